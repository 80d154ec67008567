"""GPU BFS benchmark: GTEPS of every ``method=`` of the gpu executor, with baselines.

Run on a machine with a CUDA GPU::

    python bench/gpu_bfs.py                     # all graphs
    python bench/gpu_bfs.py --graphs kron20 grid --sources 16

GTEPS = stored edges (both directions of an undirected edge) / median time of one
``lg.bfs(G, s, backend="gpu", method=...)`` call (levels and parents), over 16+ sources
of nonzero degree, the graph resident on the GPU (built and copied before timing; the
copy time is reported separately). Times are CUDA events around the whole call, so they
include the host-side Python and every synchronization.

Baselines, in the same run: ``naive_spmv`` (the BFS a CuPy user would write: one
``cupyx.scipy.sparse`` SpMV per level plus a mask and a host check of the frontier), and
the cpu executor (``backend="cpu"``, SuiteSparse:GraphBLAS on the host CPU, wall clock).

Kronecker / R-MAT graphs are drawn on the GPU here (Graph500 initiator 0.57/0.19/0.19,
R-MAT 0.45/0.15/0.15, edge factor 16, random vertex permutation, symmetrized, duplicate
edges merged, self-loops kept: the canonical form ``Graph`` stores) because the host
generator takes minutes at scale 24; the CSR goes into ``Graph`` directly (a
benchmark-only shortcut past ``Graph.from_edges``). The 2000x2000 grid comes from
``lagraph_py.generate.grid``.

``auto`` and ``naive_spmv`` are timed over ``--passes`` passes of the sources (median of
all runs), which damps the host's noise: the host-side share of a Kronecker-22 BFS is about
half its time, and it varies from one process to the next on a shared machine.

The direction-rule study (``--rules``) reruns ``method="auto"`` with other ALPHA / BETA
constants of ``lagraph_py.algorithms.bfs`` and reports their GTEPS.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lagraph_py.algorithms.bfs as bfs_mod  # noqa: E402
from lagraph_py.algorithms.bfs import bfs  # noqa: E402
from lagraph_py.executor import get_executor  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402
from common import sources as pick_sources  # noqa: E402

GRAPHS = ("kron20", "kron22", "kron24", "rmat22", "grid")


# ---------------------------------------------------------------------- graphs
def recursive_graph(scale: int, abc, edgefactor: int = 16, seed: int = 0) -> Graph:
    """Undirected Kronecker/R-MAT graph drawn on the GPU, in Graph's canonical CSR form."""
    n, m = 1 << scale, edgefactor << scale
    rng = cp.random.RandomState(seed)
    sh32 = cp.uint64(32)
    a, ab, abc_ = abc[0], abc[0] + abc[1], abc[0] + abc[1] + abc[2]
    rows = cp.zeros(m, dtype=cp.uint64)
    cols = cp.zeros(m, dtype=cp.uint64)
    for bit in range(scale):
        u = rng.random_sample(m, dtype=cp.float32)
        row_bit = u >= ab
        col_bit = (u >= a) ^ row_bit ^ (u >= abc_)
        rows |= row_bit.astype(cp.uint64) << cp.uint64(bit)
        cols |= col_bit.astype(cp.uint64) << cp.uint64(bit)
        del u, row_bit, col_bit
    perm = rng.permutation(n).astype(cp.uint64)
    src, dst = perm[rows], perm[cols]
    del rows, cols
    keys = cp.unique(cp.concatenate([(src << sh32) | dst, (dst << sh32) | src]))
    del src, dst
    r = (keys >> sh32).astype(cp.int64)
    c = (keys & cp.uint64(0xFFFFFFFF)).astype(cp.int64)
    del keys
    idx = np.int32 if max(n, int(c.size)) < 2**31 else np.int64
    indptr = cp.searchsorted(r, cp.arange(n + 1, dtype=cp.int64)).astype(idx)
    G = Graph(n, False, indptr.get(), c.astype(idx).get(), None)
    del r, c, indptr
    cp.get_default_memory_pool().free_all_blocks()
    return G


def make_graph(name: str) -> Graph:
    if name.startswith("kron"):
        return recursive_graph(int(name[4:]), (0.57, 0.19, 0.19))
    if name.startswith("rmat"):
        return recursive_graph(int(name[4:]), (0.45, 0.15, 0.15), seed=1)
    if name == "grid":
        from lagraph_py.generate import grid
        return grid(2000, 2000)
    raise ValueError(name)


# ---------------------------------------------------------------------- baselines
def naive_spmv_bfs(AT, s: int, n: int):
    """The linear-algebra BFS a CuPy user would write: one SpMV per level."""
    level = cp.full(n, -1, dtype=cp.int32)
    level[s] = 0
    x = cp.zeros(n, dtype=cp.float32)
    x[s] = 1
    k = 0
    while True:
        k += 1
        y = AT @ x
        new = (y > 0) & (level < 0)
        if not bool(new.any()):                         # sync per level
            break
        level[new] = k
        x = new.astype(cp.float32)
    return level


# ---------------------------------------------------------------------- timing
def time_gpu(fn, sources, budget_s: float, min_runs: int = 3):
    """CUDA-event time of fn(s) per source (ms), stopping early past budget_s."""
    fn(sources[0])                                      # warm up (compile, allocate)
    cp.cuda.Device().synchronize()
    times, t0 = [], time.perf_counter()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for s in sources:
        start.record()
        fn(s)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
        if len(times) >= min_runs and time.perf_counter() - t0 > budget_s:
            break
    return times


def add_speedups(methods: dict) -> None:
    """Each entry's ``speedup_vs_naive``: the naive SpMV BFS's median time over its own."""
    base = methods["naive_spmv"]["median_ms"]
    for entry in methods.values():
        entry["speedup_vs_naive"] = round(base / entry["median_ms"], 3)


#: Levels the per-level record of trace_auto holds at most.
TRACE_LEVELS = 1 << 16


def trace_auto(ex, G, s):
    """Per-level log of one auto BFS (one launch of the search kernel), from its record
    (``GpuExecutor.search_trace``): level, frontier size after it, the direction, the blocks
    of its team and the microseconds since the previous level ended."""
    trace = cp.zeros(4 * min(G.n + 2, TRACE_LEVELS), dtype=cp.uint64)
    ex.search_trace = trace
    try:
        bfs(G, s, backend="gpu", method="auto")
        cp.cuda.Device().synchronize()
    finally:
        ex.search_trace = None
    t = trace.get().reshape(-1, 4).astype(np.int64)
    done = np.flatnonzero(t[:, 0])
    ends = t[done, 0]
    gaps = np.diff(ends, prepend=ends[:1]) / 1e3
    return [{"k": int(k), "nq": int(t[k, 2]), "step": "pull" if t[k, 3] >> 32 else "push",
             "blocks": int(t[k, 3] & 0xFFFFFFFF), "us": round(float(gap), 3)}
            for k, gap in zip(done, gaps)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per study method")
    ap.add_argument("--passes", type=int, default=3,
                    help="passes over the sources for auto and the naive baseline")
    ap.add_argument("--cpu-sources", type=int, default=3)
    ap.add_argument("--methods", nargs="+", default=None)
    ap.add_argument("--rules", action="store_true", help="also time other ALPHA/BETA")
    ap.add_argument("--out", default=None, help="JSON path")
    args = ap.parse_args(argv)

    ex = get_executor("gpu")
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    device = dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]
    methods = args.methods or (["auto"] + list(ex.bfs_methods))
    report = {"device": device, "host": platform.node(), "cupy": cp.__version__,
              "alpha": bfs_mod.ALPHA, "beta": bfs_mod.BETA,
              "small_frontier": ex.small_frontier, "graphs": {}}
    rows = []
    for name in args.graphs:
        t0 = time.perf_counter()
        G = make_graph(name)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        ex.matrix(G)
        ex.matrix(G, transpose=True)
        ex.degree(G), ex.degree(G, incoming=True)
        cp.cuda.Device().synchronize()
        t_copy = time.perf_counter() - t0
        sources = pick_sources(G, args.sources, seed=12345)
        g = {"n": G.n, "nstored": G.nstored, "build_s": round(t_build, 3),
             "host_to_device_s": round(t_copy, 3), "sources": sources, "methods": {}}
        report["graphs"][name] = g
        print(f"\n== {name}: n={G.n:,} stored edges={G.nstored:,} "
              f"(built {t_build:.1f} s, to device {t_copy:.2f} s)", flush=True)

        # correctness spot check: auto levels == naive SpMV levels on the first source
        AT = ex.matrix(G, transpose=True).to_cupyx()
        ref = naive_spmv_bfs(AT, sources[0], G.n)
        got = bfs(G, sources[0], backend="gpu", method="auto")
        assert bool(cp.all(got.level == ref)), f"{name}: auto levels differ from SpMV BFS"
        g["max_level"] = int(ref.max())

        def record(label, times, unit="event"):
            med = statistics.median(times)
            entry = {"median_ms": round(med, 4), "min_ms": round(min(times), 4),
                     "runs": len(times), "gteps": round(G.nstored / (med * 1e-3) / 1e9, 3),
                     "timer": unit}
            g["methods"][label] = entry
            rows.append((name, label, entry))
            print(f"  {label:16s} {entry['gteps']:9.2f} GTEPS  median {med:10.3f} ms"
                  f"  ({len(times)} runs)", flush=True)

        def passes(fn):
            return [t for _ in range(args.passes) for t in time_gpu(fn, sources, 1e9)]

        for m in methods:
            run = lambda s, m=m: bfs(G, s, backend="gpu", method=m)   # noqa: E731
            record(m, passes(run) if m == "auto" else time_gpu(run, sources, args.budget))
        record("naive_spmv", passes(lambda s: naive_spmv_bfs(AT, s, G.n)))
        add_speedups(g["methods"])
        if args.rules:
            a, b = bfs_mod.ALPHA, bfs_mod.BETA
            rules = {f"alpha{a}_beta{b}": (a, b)}                # the default first
            rules.update({f"alpha{x}_beta{y}": (x, y) for x, y in
                          ((4, b), (14, b), (40, b), (a, 12), (a, 48))})
            rules["push_only"] = (sys.float_info.min, b)      # unexplored / ALPHA: inf
            g["rules"] = {}
            for label, (alpha, beta) in rules.items():
                old = bfs_mod.ALPHA, bfs_mod.BETA
                bfs_mod.ALPHA, bfs_mod.BETA = alpha, beta
                try:
                    t = time_gpu(lambda s: bfs(G, s, backend="gpu", method="auto"), sources, 1e9)
                finally:
                    bfs_mod.ALPHA, bfs_mod.BETA = old
                med = statistics.median(t)
                g["rules"][label] = {"median_ms": round(med, 4),
                                     "gteps": round(G.nstored / (med * 1e-3) / 1e9, 3)}
                print(f"  rule {label:16s} {g['rules'][label]['gteps']:9.2f} GTEPS "
                      f"median {med:9.3f} ms", flush=True)
        if name == "grid" and args.rules:
            g["team_width"] = {}
            old = ex.team_width
            for width in (256, 512, 1024):
                ex.team_width = width
                try:
                    t = time_gpu(lambda s: bfs(G, s, backend="gpu", method="auto"),
                                 sources, 2.0)
                finally:
                    ex.team_width = old
                g["team_width"][width] = {"median_ms": round(statistics.median(t), 3),
                                          "runs": len(t)}
                print(f"  team width {width:5d}: median {statistics.median(t):8.3f} ms"
                      f" ({len(t)} sources)", flush=True)
        g["trace_auto"] = trace_auto(ex, G, sources[0])
        if args.cpu_sources:
            times = []
            for s in sources[:args.cpu_sources]:
                t0 = time.perf_counter()
                bfs(G, s, backend="cpu")
                times.append((time.perf_counter() - t0) * 1e3)
            record("cpu_executor", times, unit="wall")
            add_speedups(g["methods"])
        AT = None                                   # frees the SpMV copy
        G._cache.clear()
        cp.get_default_memory_pool().free_all_blocks()

    print("\n| graph | method | GTEPS | median ms | vs naive | runs |\n|---|---|---|---|---|---|")
    for name, label, e in rows:
        print(f"| {name} | {label} | {e['gteps']} | {e['median_ms']} | "
              f"{e['speedup_vs_naive']} | {e['runs']} |")
    out = Path(args.out) if args.out else ROOT / "bench" / "results" / (
        "gpu_bfs_" + device.replace(" ", "_").lower() + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")
    return report


if __name__ == "__main__":
    main()
