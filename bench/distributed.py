"""Strong and weak scaling of the distributed executor: BFS, MSF and SCC on Kronecker
graphs over 1, 2, 4, 8, 16 MPI ranks, against the single-process cpu executor in the
same run, and optionally Graph500's reference MPI BFS (a binary built outside the tree).

Run it as a plain script; it launches the ranks itself (the ``mpiexec`` beside the
interpreter, MPICH from the ``mpi`` extra)::

    python bench/distributed.py --scales 20 21 22 23 24 --ranks 1 2 4 8 16
    python bench/distributed.py --quick                     # scale 12, 1-2 ranks
    python bench/distributed.py --graph500 /tmp/graph500/src/graph500_reference_bfs

Strong scaling: the same graph (scale s) on every rank count; weak scaling: scale
``s0 + log2(ranks)`` (``--weak-base s0``). Each run times the group steps on a graph
already built (medians of ``--repeats`` calls, BFS from ``--sources`` vertices of
non-zero degree); the 1-process rows (``lagraph_py-1proc``) run ``lg.bfs``/``msf``/``scc``
on ``lg.generate.kronecker`` of the same scale and seed, the graph the ranks draw.
Writes ``bench/results/distributed_<host>.json``: ``{"rows": [{"graph", "task",
"ranks", "implementation", "backend", "seconds"}], ...}`` with the machine and versions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("bfs", "msf", "scc")


def rank_main(scale: int, tasks: list[str], sources: int, repeats: int, backend: str) -> None:
    """Inside the MPI job: build the graph, time each task, rank 0 prints JSON rows."""
    import lagraph_py as lg
    from dist_backend import world

    G = lg.distributed.Graph.kronecker(scale, weights="real")
    degree = G.out_degree()
    starts = np.flatnonzero(degree)[:sources]
    rows = []
    for task in tasks:
        H = G
        if task == "scc":
            H = lg.distributed.Graph.kronecker(scale, directed=True)
        call = {"bfs": lambda s: lg.bfs(H, int(s), backend=backend),
                "msf": lambda s: lg.msf(H, backend=backend),
                "scc": lambda s: lg.scc(H, backend=backend)}[task]
        call(starts[0])                                  # warm-up: compiles
        times = []
        for s in (starts if task == "bfs" else [0] * repeats):
            world().allreduce(np.zeros(1), "sum")        # start together
            t0 = time.perf_counter()
            call(s)
            times.append(time.perf_counter() - t0)
        worst = world().allreduce(np.array([np.median(times)]), "max")[0]
        rows.append(dict(graph=f"kron{scale}", task=task, ranks=world().size,
                         implementation="lagraph_py", backend=backend, seconds=float(worst)))
    if world().rank == 0:
        print("ROWS " + json.dumps(rows), flush=True)


def single_process(scale: int, tasks, sources: int, repeats: int) -> list[dict]:
    import lagraph_py as lg

    G = lg.generate.kronecker(scale, weights="real")
    D = lg.generate.kronecker(scale, directed=True)
    starts = np.flatnonzero(G.out_degree())[:sources]
    rows = []
    for task in tasks:
        call = {"bfs": lambda s: lg.bfs(G, int(s)), "msf": lambda s: lg.msf(G),
                "scc": lambda s: lg.scc(D)}[task]
        call(starts[0])
        times = []
        for s in (starts if task == "bfs" else [0] * repeats):
            t0 = time.perf_counter()
            call(s)
            times.append(time.perf_counter() - t0)
        rows.append(dict(graph=f"kron{scale}", task=task, ranks=1,
                         implementation="lagraph_py-1proc", backend="cpu",
                         seconds=float(np.median(times))))
    return rows


def graph500(binary: str, scale: int, ranks: int) -> dict | None:
    """Graph500's reference BFS on ``ranks`` ranks: its mean BFS time (edgefactor 16)."""
    run = _mpirun(ranks, [binary, str(scale), "16"])
    found = re.search(r"mean_time:\s*([0-9.eE+-]+)", run.stdout)
    if run.returncode or not found:
        print(f"graph500 at scale {scale}, {ranks} ranks failed:\n{run.stderr[-2000:]}")
        return None
    return dict(graph=f"kron{scale}", task="bfs", ranks=ranks, implementation="graph500-mpi",
                backend="cpu", seconds=float(found.group(1)))


def _mpirun(ranks: int, command: list[str]):
    mpiexec = Path(sys.executable).parent / "mpiexec"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([str(mpiexec), "-launcher", "fork", "-n", str(ranks), *command],
                          capture_output=True, text=True, env=env)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[20, 21, 22, 23, 24])
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--weak-base", type=int, default=20, help="weak scaling: scale at 1 rank")
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    p.add_argument("--sources", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--graph500", help="Graph500 reference MPI BFS binary (built apart)")
    p.add_argument("--quick", action="store_true", help="scale 12 on 1 and 2 ranks")
    p.add_argument("--output", type=Path)
    p.add_argument("--rank", nargs=2, type=int, help=argparse.SUPPRESS)  # inside the job
    a = p.parse_args(argv)
    if a.rank:
        rank_main(a.rank[0], a.tasks, a.sources, a.repeats, a.backend)
        return 0
    if a.quick:
        a.scales, a.ranks, a.weak_base = [12], [1, 2], 11
    runs = {(s, r) for s in a.scales for r in a.ranks}                    # strong
    runs |= {(a.weak_base + int(np.log2(r)), r) for r in a.ranks}           # weak
    rows = []
    for scale in sorted({s for s, _ in runs}):
        rows += single_process(scale, a.tasks, a.sources, a.repeats)
    for scale, ranks in sorted(runs):
        run = _mpirun(ranks, [sys.executable, str(Path(__file__).resolve()), "--rank",
                              str(scale), "0", "--tasks", *a.tasks, "--sources",
                              str(a.sources), "--repeats", str(a.repeats), "--backend",
                              a.backend])
        found = [line for line in run.stdout.splitlines() if line.startswith("ROWS ")]
        if run.returncode or not found:
            print(f"scale {scale} on {ranks} ranks failed:\n{run.stderr[-3000:]}")
            continue
        rows += json.loads(found[0][5:])
        if a.graph500 and "bfs" in a.tasks:
            rows += [r for r in [graph500(a.graph500, scale, ranks)] if r]
    for r in rows:
        print(f"{r['graph']:>8} {r['task']:>4} {r['ranks']:>3} {r['implementation']:>17} "
              f"{r['seconds'] * 1e3:10.2f} ms")
    import lagraph_py
    out = a.output or ROOT / "bench" / "results" / f"distributed_{socket.gethostname()}.json"
    out.write_text(json.dumps(dict(
        rows=rows, machine=platform.processor() or platform.machine(), cores=os.cpu_count(),
        python=platform.python_version(), lagraph_py=lagraph_py.__version__,
        date=time.strftime("%Y-%m-%d")), indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
