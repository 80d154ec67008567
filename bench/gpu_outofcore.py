"""Graphs larger than the GPU's budget: BFS, MSF and SCC (connected components on an
undirected graph) with the device budget capped to a fraction of what the call needs
resident, against the same calls uncapped and the cpu executor, same run.

For each graph and task, the call's resident footprint ``F`` is what
``gpu_backend.budget.needs`` counts (the device CSR and transpose, what the task builds on
them, its scratch). Modes:

- ``resident``: no cap, every array in device memory;
- ``managed``: CuPy's pool limited to ``cap_fraction * F`` (beyond what the process holds
  already), so the call is planned out of core (``GpuExecutor.placement``): the adjacency
  and edge scratch in CUDA managed memory, advised as ``--advice`` says (``host``: kept in
  host memory, read by the kernels over the host link; ``read_mostly``: the device keeps
  read-only copies of the pages it reads, beyond the budget; ``migrate``: no advice);
- ``cpu-executor``: ``--cpu compiled`` (the fused cpu executor, compiled first, untimed) or
  ``--cpu scipy`` (the cpu executor's scipy routines, nothing to compile).

Each call runs on a fresh Graph (nothing cached): one untimed call builds what it caches
(its time is ``build_seconds``), then the timed calls (``bench.common.timings``; BFS from
``--sources`` random vertices with an out-edge), median. ``same`` says whether the result
equals the resident one (BFS: levels from the first source; MSF: the forest; SCC: the
labels). ``bytes_moved`` is what the graph holds in managed memory, a nominal count of
what a call reads over the link where the advice keeps it in host memory (a pull level
that stops at a vertex's first parent reads less of it, Borůvka rounds that reread their
candidates more; the device's own link counters are not read), ``h2d_GBps`` that over the
median time, beside ``link_h2d_GBps``, a pinned host-to-device copy of 256 MiB, best
of three, and the link's peak (``nvidia-smi``'s PCIe generation and width).

Graphs: ``kronS`` (Graph500 Kronecker of scale S, edge factor 16, int64 weights uniform in
[0, 2^32): BFS, MSF, connected components ``cc``, which ``lg.scc`` runs on an undirected
graph), ``kronSd`` (the arcs as drawn, directed: SCC), ``meshK`` (a K^3 3-D mesh, weights
uniform: BFS, MSF, connected components; ``mesh256`` has 16.8M vertices). A row's
``planned`` is the plan of its first call: ``resident`` where the cap held the call.
``--quick`` runs ``kron18`` and ``kron18d`` with 2 repeats and BFS from 2 sources, small
enough for one device call of a few minutes with the tests.

Usage: ``python bench/gpu_outofcore.py [--quick] [--graphs kron24,kron24d,kron25,mesh256]
[--tasks bfs,msf,cc,scc] [--caps 0.25,0.125] [--advice host,read_mostly]
[--cpu compiled|scipy|none] [--repeats 3] [--sources 4] [--out FILE]`` (``--tasks``: of
each graph's tasks, only these; ``--cpu none``: no cpu-executor rows).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lagraph_py as lg  # noqa: E402
from common import print_table, timings, versions, write_json  # noqa: E402
from gpu_backend import GpuExecutor, budget, storage  # noqa: E402
from lagraph_py.device_memory import MANAGED  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402

#: Bytes of the pinned host buffer copied to the device to measure the link.
LINK_PROBE = 256 << 20
H2D = 1                        # cudaMemcpyHostToDevice
#: Transfer rate of one PCIe lane by generation, GT/s.
PCIE_GTS = {3: 8, 4: 16, 5: 32, 6: 64}
COLUMNS = ["graph", "task", "mode", "advice", "cap_fraction", "seconds", "vs_resident",
           "build_seconds", "bytes_moved", "h2d_GBps", "same"]


def graph(name: str) -> tuple[Graph, tuple[str, ...]]:
    """The graph ``name`` names and the tasks run on it."""
    kron = re.fullmatch(r"kron(\d+)(d?)", name)
    if kron:
        scale, directed = int(kron.group(1)), bool(kron.group(2))
        if directed:
            return lg.generate.kronecker(scale, directed=True), ("scc",)
        return lg.generate.kronecker(scale, weights="uniform"), ("bfs", "msf", "cc")
    mesh = re.fullmatch(r"mesh(\d+)", name)
    if mesh:
        k = int(mesh.group(1))
        return lg.generate.mesh(k, k, k, weights="uniform"), ("bfs", "msf", "cc")
    raise ValueError(f"unknown graph {name!r}")


def fresh(G: Graph) -> Graph:
    """``G``'s arrays in a new Graph: nothing cached with it, on the host or the device."""
    return Graph(G.n, G.directed, G.indptr, G.indices, G.weights, G.nself_loops)


def sync() -> None:
    cp.cuda.get_current_stream().synchronize()                     # sync


def call(task: str, ex, H: Graph, source: int):
    """The call and a host copy of what identifies its result."""
    if task == "bfs":
        return lg.asnumpy(lg.bfs(H, source, backend=ex, parents=False).level)
    if task == "msf":
        f = lg.msf(H, backend=ex)
        return np.concatenate([lg.asnumpy(f.src), lg.asnumpy(f.dst)])
    if task == "cc":
        return lg.asnumpy(lg.connected_components(H, backend=ex).labels)
    return lg.asnumpy(lg.scc(H, backend=ex).labels)


def measure(task, ex, G, srcs, repeats) -> tuple[dict, Graph, np.ndarray]:
    """Build (one untimed call on a fresh Graph), then time; the Graph and the first
    result come back too, and on the gpu the first call's plan (``planned``: resident
    where the cap was more than it needed)."""
    H = fresh(G)
    t0 = time.perf_counter()
    first = call(task, ex, H, srcs[0])
    build = time.perf_counter() - t0
    planned = getattr(getattr(ex, "last_plan", None), "mode", None)
    args = [(s,) for s in srcs] if task == "bfs" else [(srcs[0],)] * repeats
    t = timings(lambda s: call(task, ex, H, s), args, budget=None, sync=sync)
    return dict(seconds=t["seconds"], build_seconds=build, planned=planned), H, first


def link_h2d() -> float:
    """Host-to-device bandwidth of a pinned copy, GB/s (best of three)."""
    host = cp.cuda.alloc_pinned_memory(LINK_PROBE)
    dev = cp.empty(LINK_PROBE, dtype=np.uint8)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        cp.cuda.runtime.memcpy(dev.data.ptr, host.ptr, LINK_PROBE, H2D)
        sync()
        best = min(best, time.perf_counter() - t0)
    return LINK_PROBE / best / 1e9


def link_peak() -> dict:
    """The host link as ``nvidia-smi`` reports it (PCIe generation and width) and its
    peak in GB/s (128b/130b encoding), or {} where it cannot say."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=pcie.link.gen.current,"
                              "pcie.link.width.current", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout
        gen, width = (int(x) for x in out.splitlines()[0].split(","))
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return {}
    return dict(pcie_gen=gen, pcie_width=width,
                link_peak_GBps=PCIE_GTS[gen] * width * 128 / 130 / 8)


def release() -> None:
    cp.get_default_memory_pool().free_all_blocks()


def implementation(row: dict) -> str:
    """The row's name in ``bench/report.py``: ``lagraph_py`` resident, ``lagraph_py
    managed ADVICE CAP`` out of core, ``cpu-executor``."""
    if row["mode"] == MANAGED:
        return f"lagraph_py managed {row['advice']} {row['cap_fraction']:g}"
    return "lagraph_py" if row["mode"] == "resident" else row["mode"]


def cpu_executor(kind: str):
    if kind == "scipy":
        from lagraph_py.scipy_cpu import ScipyCpuExecutor
        return ScipyCpuExecutor()
    return "cpu"


def bench_task(name, G, task, args) -> list[dict]:
    base = dict(graph=name, task=task, n=G.n, nstored=G.nstored)
    rng = np.random.default_rng(0)
    srcs = [int(s) for s in rng.choice(np.flatnonzero(G.out_degree() > 0),
                                       args.sources if task == "bfs" else 1, replace=False)]
    ex = GpuExecutor()
    footprint = budget.needs(ex, fresh(G), task).total
    t, H, want = measure(task, ex, G, srcs, args.repeats)
    resident = t["seconds"]
    rows = [dict(base, mode="resident", advice=None, cap_fraction=1.0, **t, bytes_moved=0,
                 h2d_GBps=None, same=True, footprint_bytes=footprint,
                 device_bytes=storage.graph_bytes(H), vs_resident=1.0)]
    del H
    release()
    pool = cp.get_default_memory_pool()
    for fraction in args.caps:
        for advice in args.advice:
            ex.managed_advice = advice
            cap = int(fraction * footprint)
            row = dict(base, mode=MANAGED, advice=advice, cap_fraction=fraction,
                       budget_bytes=cap, footprint_bytes=footprint)
            ex.memory_limit = pool.used_bytes() + cap
            try:
                t, H, got = measure(task, ex, G, srcs, args.repeats)
            except MemoryError as err:                 # the vertex arrays do not fit
                rows.append(dict(row, mode="refused", error=str(err)))
                continue
            finally:
                ex.memory_limit = None
            moved = storage.graph_bytes(H, managed=True)
            rows.append(dict(row, **t, bytes_moved=moved,
                             device_bytes=storage.graph_bytes(H, managed=False),
                             h2d_GBps=moved / t["seconds"] / 1e9,
                             vs_resident=t["seconds"] / resident,
                             same=bool(np.array_equal(got, want))))
            del H
            release()
    if args.cpu:
        cpu = cpu_executor(args.cpu)
        t, H, got = measure(task, cpu, G, srcs, args.repeats)
        rows.append(dict(base, mode="cpu-executor", advice=None, cap_fraction=None, **t,
                         executor=args.cpu, bytes_moved=None, h2d_GBps=None,
                         vs_resident=t["seconds"] / resident,
                         same=bool(np.array_equal(got, want))))
    return [dict(r, implementation=implementation(r),
                 backend="cpu" if r["mode"] == "cpu-executor" else "gpu") for r in rows]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--graphs", default="kron24,kron24d,kron25,kron25d,mesh256")
    ap.add_argument("--tasks", default="bfs,msf,cc,scc")
    ap.add_argument("--caps", default="0.25,0.125")
    ap.add_argument("--advice", default="host,read_mostly")
    ap.add_argument("--cpu", choices=("compiled", "scipy", "none"), default="compiled")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    args.cpu = None if args.cpu == "none" else args.cpu
    if args.quick:
        args.graphs, args.repeats, args.sources = "kron18,kron18d", 2, 2
    args.caps = [float(c) for c in args.caps.split(",")]
    args.advice = args.advice.split(",")
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    link, peak = link_h2d(), link_peak()
    print(f"{device}: pinned host-to-device copy {link:.1f} GB/s; link {peak}", flush=True)
    tag = "h200" if "H200" in device else "h100" if "H100" in device else "gpu"
    rows = []

    def save() -> Path:                 # after each task: a run cut short keeps its rows
        payload = dict(device=device, versions=versions(("numpy", "scipy", "cupy",
                                                         "lagraph_py")),
                       link_h2d_GBps=link, **peak, quick=args.quick, rows=rows)
        if args.out:
            Path(args.out).write_text(json.dumps(payload, indent=1, default=float) + "\n")
            return Path(args.out)
        return write_json(f"gpu_outofcore_{tag}" + ("_quick" if args.quick else ""), payload)

    where = None
    for name in args.graphs.split(","):
        t0 = time.perf_counter()
        G, tasks = graph(name)
        print(f"{name}: n={G.n:,} stored={G.nstored:,} built in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        for task in (t for t in tasks if t in args.tasks.split(",")):
            task_rows = bench_task(name, G, task, args)
            print_table(task_rows, COLUMNS)
            rows += task_rows
            where = save()
        del G
    print_table(rows, COLUMNS)
    print(where)


if __name__ == "__main__":
    main()
