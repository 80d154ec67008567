"""Strong and weak scaling of the distributed executor: BFS, MSF and SCC on Kronecker
graphs over 1, 2, 4, 8, 16 MPI ranks, on CPUs or one GPU a rank, against the
single-process executor in the same run, and optionally Graph500's reference MPI BFS.

Run it as a plain script; it launches the ranks itself (with ``$MPIEXEC``, else the
``mpiexec`` beside the interpreter, MPICH from the ``mpi`` extra, else the one on
``PATH``)::

    python bench/distributed.py --scales 20 21 22 23 24 --ranks 1 2 4 8 16
    python bench/distributed.py --quick                     # scale 12, 1-2 ranks
    python bench/distributed.py --graph500 bench/graph500/src/graph500_reference_bfs
    python bench/distributed.py --backend gpu --ranks 2 --one-rank-too --scales 25 26 \
        --tasks bfs --sources 64 --strong-only --no-1proc --budget 300

Strong scaling: the same graph (scale s) on every rank count; weak scaling: scale
``s0 + log2(ranks)`` (``--weak-base s0``). Each run times the group steps on a graph
already built (medians of ``--repeats`` calls, BFS from ``--sources`` vertices of
non-zero degree); the 1-process rows (``lagraph_py-1proc``) run ``lg.bfs``/``msf``/``scc``
on ``lg.generate.kronecker`` of the same scale and seed, the graph the ranks draw, on
the same backend. With ``--backend gpu`` rank ``r`` of a host takes GPU ``r mod
devices``; ``"gpus"`` says how many the ranks used. With ``--one-rank-too`` a job of
several ranks also times rank 0 alone on the graphs gathered there (the distributed
executor on one rank and the single-process executor: rows of one rank), so that a
large graph is built once. ``--budget`` gives the runs that many seconds in all: a run
is stopped (its processes killed, the rows it printed kept) when it would pass it, and
the later ones are skipped, each said so.

Graph500's reference BFS (github.com/graph500/graph500, commit f89d643, the folders
``src``, ``generator`` and ``aml``; not part of this tree) is built with the mpich wheel's
``mpicc`` into the git-ignored ``bench/graph500/``::

    cd bench/graph500/src && mpicc -O3 -fcommon -Drestrict=__restrict__ \
        -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION -I../aml \
        -o graph500_reference_bfs bfs_reference.c csr_reference.c main.c utils.c \
        validate.c ../aml/aml.c ../generator/graph_generator.c ../generator/make_graph.c \
        ../generator/splittable_mrg.c ../generator/utils.c -lpthread -lm

(``-fcommon``: its sources define one global in two files, which GCC 10 and later refuse
by default.) It draws its own Kronecker graph of the same scale, edge factor and
initiator (another random stream, so not the same edges), runs 64 roots and validates
each (``SKIP_VALIDATION=1`` skips that); its row holds the median time of those and its
harmonic-mean TEPS, which count each input edge of a root's component once (ours count
stored entries, both directions). For fewer roots, where its one-rank runs take minutes,
make its count read ``NBFS`` before building::

    sed -i 's/roots = 64;/roots = getenv("NBFS") ? atoi(getenv("NBFS")) : 64;/' main.c

Writes ``bench/results/distributed_<host>.json``: ``{"rows": [{"graph", "task",
"ranks", "gpus", "implementation", "backend", "seconds"}], ...}`` with the machine and
versions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from dist_backend import launch
from lagraph_py.compilation import MODE_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("bfs", "msf", "scc")
# The cpu executor's compiled loops are timed (compiled, or loaded, in the warm-up calls),
# never scipy's routines while a background process compiles them.
os.environ.setdefault(MODE_VARIABLE, "foreground")
#: A run is not started with less than this many seconds of ``--budget`` left.
MIN_RUN_S = 5.0


def rank_main(scale: int, tasks: list[str], sources: int, repeats: int, backend: str,
              one_rank_too: bool, split: bool = False, check: bool = False) -> None:
    """Inside the MPI job: build the graphs, time each task on every rank, then, with
    ``one_rank_too``, on rank 0 alone the same graphs gathered there (the distributed
    executor on one rank, and the single-process executor); rank 0 prints JSON rows.
    With ``split``, each distributed timing is followed by one call measured part by
    part (:func:`_split`; with ``repeats`` 0, MSF and SCC are that call alone); with
    ``check`` (and ``one_rank_too``), one result of each task on every rank count is
    compared with the single-process executor's on rank 0."""
    import lagraph_py as lg
    from dist_backend import world

    t0 = time.perf_counter()
    graphs = {"undirected": lg.distributed.Graph.kronecker(
        scale, weights="real" if "msf" in tasks else None)}
    if "scc" in tasks:
        graphs["directed"] = lg.distributed.Graph.kronecker(scale, directed=True)
    built = world().allreduce(np.array([time.perf_counter() - t0]), "max")[0]
    if world().rank == 0:
        print(f"kron{scale} built on {world().size} ranks in {built:.1f} s", flush=True)
    starts = np.flatnonzero(graphs["undirected"].out_degree())[:sources]
    sync, gpus = _device(backend)
    for task in tasks:                 # rows as they come: a run stopped keeps the earlier
        row = dict(graph=f"kron{scale}", ranks=world().size, gpus=gpus,
                   implementation="lagraph_py", backend=backend)
        _measure(graphs, task, starts, repeats, backend, sync, world().allreduce, row, split)
    results = {task: _result(graphs, task, starts[0], backend)
               for task in tasks} if check else None
    if one_rank_too and world().size > 1:
        wholes = {name: g.gather_graph() for name, g in graphs.items()}
        del graphs
        if backend == "gpu":
            import cupy as cp
            cp.get_default_memory_pool().free_all_blocks()
        if world().rank == 0:
            _one_rank(wholes, tasks, starts, repeats, backend, sync, scale, split, results)
        world().comm.Barrier()               # the others wait, whatever the time-out


def _measure(graphs, task, starts, repeats, backend, sync, allreduce, row, split) -> None:
    """Report the timed row of ``task`` (:func:`_timed`) and, with ``split``, one call
    measured part by part (:func:`_split`); an MSF or SCC of ``repeats`` 0 (calls of
    minutes) is one call, measured part by part, whose time is the row's."""
    if split and repeats == 0 and task != "bfs":
        parts = _split(graphs, task, starts, backend, sync, allreduce, row)
        _report([dict(row, task=task, seconds=parts["seconds"])])
        _report(parts, "SPLIT")
        return
    _report(_timed(graphs, [task], starts, repeats, backend, sync, allreduce, row))
    if split:
        _report(_split(graphs, task, starts, backend, sync, allreduce, row), "SPLIT")


def _report(rows, kind: str = "ROWS") -> None:
    """Rank 0 prints rows for the driver (a line starting ``kind``)."""
    from dist_backend import world

    if world().rank == 0:
        print(f"{kind} " + json.dumps(rows), flush=True)


def _split(graphs, task, starts, backend, sync, allreduce, row) -> dict:
    """Where the time of one call goes on the ranks (the slowest rank's figures).

    BFS from ``starts[0]``: the search's own trace, a row a level with the seconds of
    its local work, of the global counts (a collective and the level's wait) and of
    sending the new frontier (:class:`dist_backend.bfs_rule.LevelSearch`); MSF and SCC:
    one call, and the seconds it spent in collectives, each of which waits for the
    device before and after (``timing`` of :class:`dist_backend.nccl.NcclExchange`).
    """
    import lagraph_py as lg
    from lagraph_py.registry import get_executor

    G = graphs["directed" if task == "scc" else "undirected"]
    ex = get_executor(backend, G)
    most = allreduce or (lambda x, op: x)
    if task == "bfs":
        levels: list[dict] = []
        ex.bfs_search(G, int(starts[0]), "auto", True, False, trace=levels)
        parts = np.array([[lv[p] for p in ("work", "count", "publish")] for lv in levels])
        slowest = most(parts.ravel(), "max").reshape(parts.shape)
        for lv, (work, count, publish) in zip(levels, slowest):
            lv.update(work=work, count=count, publish=publish)
        return dict(row, task=task, seconds=float(parts.sum()), levels=levels)
    devices = ex.data if ex.data is not ex.exchange else None
    if devices is not None:
        devices.timing = True
    sync()
    start = time.perf_counter()
    before = ex.exchange.seconds + (devices.seconds if devices else 0.0)
    {"msf": lg.msf, "scc": lg.scc}[task](G, backend=ex)
    sync()
    spent = np.array([time.perf_counter() - start,
                      ex.exchange.seconds + (devices.seconds if devices else 0.0) - before])
    if devices is not None:
        devices.timing = False
    seconds, exchange = (float(x) for x in most(spent, "max"))
    return dict(row, task=task, seconds=seconds, exchange_seconds=exchange)


def _device(backend: str):
    """``(sync, gpus)``: a function that waits for this rank's device, and how many
    devices the ranks use (0 on CPUs). Collective."""
    if backend != "gpu":
        return (lambda: None), 0
    import cupy as cp
    from dist_backend import world

    from lagraph_py.registry import get_executor
    get_executor("distributed-gpu")                      # picks this rank's device
    (ids,), _ = world().allgather([np.array([cp.cuda.Device().id])])
    return cp.cuda.get_current_stream().synchronize, len(set(ids.tolist()))


def _one_rank(wholes, tasks, starts, repeats, backend, sync, scale, split,
              results=None) -> None:
    """On rank 0 alone: the tasks on the gathered graphs, by the distributed executor on
    one rank (MPI.COMM_SELF; one GPU) and by the single-process executor; their rows
    reported. ``results``: one result a task of the job's ranks (:func:`_result`),
    compared with the same result of both of these (rows starting CHECK)."""
    from mpi4py import MPI

    from dist_backend import DistGraph, Exchange
    from lagraph_py.registry import get_executor

    one = Exchange(MPI.COMM_SELF)
    ex = type(get_executor(DistGraph.backends[backend]))(one)
    found = {}
    for executor, graphs, implementation in [
            (ex, {k: DistGraph.from_graph(g, exchange=one) for k, g in wholes.items()},
             "lagraph_py"),
            (backend, wholes, "lagraph_py-1proc")]:
        for task in tasks:
            row = dict(graph=f"kron{scale}", ranks=1, gpus=int(backend == "gpu"),
                       implementation=implementation, backend=backend)
            try:
                _measure(graphs, task, starts, repeats, executor, sync, None, row,
                         split and executor is ex)
            except MemoryError as exc:               # one process may not hold what two do
                print(f"skipped {implementation} {task} on 1 rank: {exc}", flush=True)
                continue
            if results is not None:
                found[implementation, task] = _result(graphs, task, starts[0], executor)
        del graphs
    if results is not None:
        from dist_backend import world
        for task in tasks:
            reference = found.get(("lagraph_py-1proc", task))
            compared = [(world().size, results[task]), (1, found.get(("lagraph_py", task)))]
            for ranks, result in compared if reference is not None else []:
                if result is None:
                    continue
                differ = [k for k in reference if not np.array_equal(reference[k], result[k])]
                _report(dict(graph=f"kron{scale}", task=task, ranks=ranks, differ=differ,
                             equal=not differ), "CHECK")


def _result(graphs, task, source, backend) -> dict | None:
    """One result of ``task`` (BFS levels from ``source``; the spanning forest's edges
    and components; the component labels) as whole numpy arrays on rank 0 of the
    graph's ranks (None on the others); on a single-process graph, in this process."""
    import lagraph_py as lg

    G = graphs["directed" if task == "scc" else "undirected"]
    if task == "bfs":
        whole, parts = {}, {"level": lg.bfs(G, int(source), backend=backend).level}
    elif task == "msf":
        f = lg.msf(G, backend=backend)
        whole = {k: lg.asnumpy(getattr(f, k)) for k in ("src", "dst", "weight")}
        parts = {"component": f.component}
    else:
        whole, parts = {}, {"labels": lg.scc(G, backend=backend).labels}
    if not hasattr(G, "gather"):
        return {**whole, **{k: lg.asnumpy(v) for k, v in parts.items()}}
    parts = {k: G.gather(v) for k, v in parts.items()}
    return {**whole, **parts} if G.rank == 0 else None


def _timed(graphs, tasks, starts, repeats, backend, sync, allreduce, row) -> list[dict]:
    """A row a task: the median time of its calls (BFS from each of ``starts``; MSF and
    SCC ``repeats`` times), after a warm-up call; MSF and SCC with ``repeats`` 0: one
    call, not warmed up (where a call takes minutes). With ``allreduce`` (ranks
    together) the ranks start each call together and the slowest rank's median counts."""
    import lagraph_py as lg

    rows = []
    for task in tasks:
        G = graphs["directed" if task == "scc" else "undirected"]
        call = {"bfs": lambda s: lg.bfs(G, int(s), backend=backend),
                "msf": lambda s: lg.msf(G, backend=backend),
                "scc": lambda s: lg.scc(G, backend=backend)}[task]
        if task == "bfs" or repeats:
            call(starts[0])                              # warm-up: compiles, uploads
        times = []
        for s in (starts if task == "bfs" else [0] * max(repeats, 1)):
            sync()
            if allreduce:
                allreduce(np.zeros(1), "sum")            # start together
            t0 = time.perf_counter()
            call(s)
            sync()
            times.append(time.perf_counter() - t0)
        median = float(np.median(times))
        if allreduce:
            median = float(allreduce(np.array([median]), "max")[0])
        rows.append(dict(row, task=task, seconds=median))
    return rows


def single_process(scale: int, tasks, sources: int, repeats: int, backend: str) -> list[dict]:
    """The tasks on ``lg.generate.kronecker`` graphs in this process."""
    import lagraph_py as lg

    graphs = {"undirected": lg.generate.kronecker(
        scale, weights="real" if "msf" in tasks else None)}
    if "scc" in tasks:
        graphs["directed"] = lg.generate.kronecker(scale, directed=True)
    starts = np.flatnonzero(graphs["undirected"].out_degree())[:sources]
    sync = lambda: None                                  # noqa: E731
    if backend == "gpu":
        import cupy as cp
        sync = cp.cuda.get_current_stream().synchronize
    return _timed(graphs, tasks, starts, repeats, backend, sync, None,
                  dict(graph=f"kron{scale}", ranks=1, gpus=int(backend == "gpu"),
                       implementation="lagraph_py-1proc", backend=backend))


def graph500(binary: str, scale: int, ranks: int, budget: "Budget") -> dict | None:
    """Graph500's reference BFS on ``ranks`` ranks (edgefactor 16): its median BFS time
    over 64 roots and its harmonic-mean TEPS."""
    run = _mpirun(ranks, [binary, str(scale), "16"], budget)
    if run is None:
        return None
    found = {key: re.search(rf"^bfs\s+{key}:\s*!?\s*([0-9.eE+-]+)", run.stdout, re.M)
             for key in ("median_time", "harmonic_mean_TEPS")}
    if run.returncode or not all(found.values()):
        print(f"graph500 at scale {scale}, {ranks} ranks failed:\n{run.stdout[-1000:]}"
              f"{run.stderr[-2000:]}")
        return None
    return dict(graph=f"kron{scale}", task="bfs", ranks=ranks, gpus=0,
                implementation="graph500-mpi", backend="cpu",
                seconds=float(found["median_time"].group(1)),
                teps=float(found["harmonic_mean_TEPS"].group(1)))


class Budget:
    """Seconds left for the runs (None: no limit)."""

    def __init__(self, seconds: float | None):
        self.end = None if seconds is None else time.monotonic() + seconds

    def left(self) -> float | None:
        return None if self.end is None else self.end - time.monotonic()


def _mpirun(ranks: int, command: list[str], budget: Budget):
    """The run of ``command`` on ``ranks`` ranks, or None (said why) if the budget ran
    out before it. One that would pass the budget is stopped (its whole process group
    killed; return code -9) and returned with what it printed until then."""
    left = budget.left()
    if left is not None and left < MIN_RUN_S:
        print(f"skipped (budget spent): {ranks} ranks: {' '.join(command[-8:])}", flush=True)
        return None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    start = time.monotonic()
    job = subprocess.Popen(launch.command(ranks, command),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                           start_new_session=True)
    try:
        out, err = job.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        out, err = job.communicate()
        print(f"stopped at the budget after {time.monotonic() - start:.0f} s: {ranks} ranks: "
              f"{' '.join(command[-8:])}", flush=True)
        return subprocess.CompletedProcess(job.args, -signal.SIGKILL, out, err)
    print(f"{time.monotonic() - start:7.1f} s  {ranks} ranks: {' '.join(command[-8:])}",
          flush=True)
    return subprocess.CompletedProcess(job.args, job.returncode, out, err)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[20, 21, 22, 23, 24])
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--weak-base", type=int, default=20, help="weak scaling: scale at 1 rank")
    p.add_argument("--strong-only", action="store_true", help="no weak-scaling runs")
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    p.add_argument("--sources", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3,
                   help="MSF and SCC calls timed after a warm-up (3); 0: one call, not "
                        "warmed up (with --split: that call, measured part by part)")
    p.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--no-1proc", action="store_true", help="no single-process rows")
    p.add_argument("--one-rank-too", action="store_true",
                   help="each job of several ranks also times rank 0 alone on its graph, "
                        "gathered (instead of a job of one rank building it again)")
    p.add_argument("--split", action="store_true",
                   help="after each distributed timing, one call measured part by part: "
                        "BFS level by level, MSF and SCC apart from their collectives")
    p.add_argument("--check", action="store_true",
                   help="with --one-rank-too: one result of each task on the job's ranks "
                        "and on one rank equal to the single-process executor's")
    p.add_argument("--budget", type=float, help="seconds for all the runs")
    p.add_argument("--graph500", help="Graph500 reference MPI BFS binary (built apart)")
    p.add_argument("--quick", action="store_true", help="scale 12 on 1 and 2 ranks")
    p.add_argument("--output", type=Path)
    p.add_argument("--rank", nargs=2, type=int, help=argparse.SUPPRESS)  # inside the job
    a = p.parse_args(argv)
    if a.rank:
        rank_main(a.rank[0], a.tasks, a.sources, a.repeats, a.backend, a.one_rank_too,
                  a.split, a.check)
        return 0
    if a.quick:
        a.scales, a.ranks, a.weak_base = [12], [1, 2], 11
    runs = {(s, r) for s in a.scales for r in a.ranks}                    # strong
    if not a.strong_only:
        runs |= {(a.weak_base + int(np.log2(r)), r) for r in a.ranks}      # weak
    budget, rows, splits, checks = Budget(a.budget), [], [], []
    if not a.no_1proc:
        for scale in sorted({s for s, _ in runs}):
            rows += single_process(scale, a.tasks, a.sources, a.repeats, a.backend)
    for scale, ranks in sorted(runs):
        run = _mpirun(ranks, [sys.executable, "-m", "mpi4py",     # an error aborts the job
                              str(Path(__file__).resolve()), "--rank",
                              str(scale), "0", "--tasks", *a.tasks, "--sources",
                              str(a.sources), "--repeats", str(a.repeats), "--backend",
                              a.backend] + ["--one-rank-too"] * a.one_rank_too
                       + ["--split"] * a.split + ["--check"] * a.check, budget)
        if run is None:
            continue
        lines = run.stdout.splitlines()
        print("\n".join(line for line in lines if " built " in line))
        for line in lines:
            if line.startswith("ROWS "):
                rows += json.loads(line[5:])
            elif line.startswith("SPLIT "):
                splits.append(json.loads(line[6:]))
            elif line.startswith("CHECK "):
                checks.append(json.loads(line[6:]))
        if run.returncode:
            print(f"scale {scale} on {ranks} ranks failed:\n{run.stderr[-3000:]}")
            continue
        if a.graph500 and "bfs" in a.tasks:
            rows += [r for r in [graph500(a.graph500, scale, ranks, budget)] if r]
    for r in rows:
        print(f"{r['graph']:>8} {r['task']:>4} {r['ranks']:>3} ranks {r['gpus']} gpus "
              f"{r['implementation']:>17} {r['seconds'] * 1e3:10.2f} ms")
    for r in splits:
        print(_split_line(r))
    for r in checks:
        print(f"check {r['graph']:>8} {r['task']:>4} {r['ranks']} ranks: "
              + ("equal to the single process" if r["equal"] else f"DIFFER in {r['differ']}"))
    import lagraph_py
    out = a.output or ROOT / "bench" / "results" / f"distributed_{socket.gethostname()}.json"
    out.write_text(json.dumps(dict(
        rows=rows, machine=platform.processor() or platform.machine(), cores=os.cpu_count(),
        gpu=_gpu_name() if a.backend == "gpu" else None,
        python=platform.python_version(), lagraph_py=lagraph_py.__version__,
        date=time.strftime("%Y-%m-%d"), **({"splits": splits} if splits else {}),
        **({"checks": checks} if checks else {})),
        indent=1))
    print(f"wrote {out}")
    return 0


def _split_line(r: dict) -> str:
    """One line of a split (:func:`_split`): where the call's seconds went."""
    head = f"split {r['graph']:>8} {r['task']:>4} {r['ranks']} ranks {r['gpus']} gpus"
    if r["task"] != "bfs":
        return (f"{head}: {r['seconds'] * 1e3:.1f} ms, collectives "
                f"{r['exchange_seconds'] * 1e3:.1f} ms")
    total = {p: sum(lv[p] for lv in r["levels"]) * 1e3 for p in ("work", "count", "publish")}
    levels = " ".join(f"{lv['direction']}{lv['frontier']}:{lv['work'] * 1e3:.2f}/"
                      f"{lv['count'] * 1e3:.2f}/{lv['publish'] * 1e3:.2f}"
                      for lv in r["levels"])
    return (f"{head}: work {total['work']:.2f} ms, counts {total['count']:.2f} ms, "
            f"publish {total['publish']:.2f} ms; levels {levels}")


def _gpu_name() -> str:
    import cupy as cp
    return cp.cuda.runtime.getDeviceProperties(0)["name"].decode()


if __name__ == "__main__":
    sys.exit(main())
