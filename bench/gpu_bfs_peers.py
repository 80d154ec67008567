"""GPU BFS against BLEST: the whole ``lg.bfs`` call and BLEST's kernel on the same graphs.

Run on a machine with a CUDA GPU and BLEST (Elbek & Kaya, "BLEST: Blazingly Efficient BFS
using Tensor Cores", ICS 2026; github.com/delbek/blest at 9be20d9, in a copy whose
``Benchmark.cuh`` reads ``<dir><name>.mtx`` instead of downloading it) built from its
sources::

    nvcc -O3 -std=c++20 -arch=sm_90 -Xcompiler -fopenmp -I. -IDataStructures -IBFS -ICC \
        -IMBFS -IGorder main.cu Gorder/Graph.cpp Gorder/Util.cpp Gorder/UnitHeap.cpp -lgomp \
        -o /tmp/blest
    python bench/gpu_bfs_peers.py --blest /tmp/blest
    python bench/gpu_bfs_peers.py --graphs kron20 grid2000x2000 corpus:cnr-2000:undirected

Graphs: ``kron<S>`` (Graph500 Kronecker, edge factor 16), ``uniform<S>`` (2**S vertices,
16 * 2**S uniformly random edges: mean degree 32), ``grid<R>x<C>`` and ``road<R>x<C>``
(``lagraph_py.generate``), ``corpus:<name>`` (a real graph of ``bench/corpus.py``, read
from ``$LAGRAPH_CORPUS``; ``corpus:<name>:undirected``, its undirected form). Kronecker
and uniform graphs are drawn on the GPU where one is present (``bench/gpu_bfs.py``), else
by ``lagraph_py.generate``.

Rows (``implementation``), each the median over the same ``--sources`` random sources of
nonzero out-degree:

- ``lagraph_py``: ``lg.bfs(G, s, backend="gpu")``, levels and parents; ``lagraph_py-levels``:
  levels only (``parents=False``). CUDA events around the whole call, after warm-up calls;
  ``preprocess_seconds``: the device forms of the graph built on its first search (CSR,
  transpose, pull lists, the search's scratch).
- ``blest``: BLEST's own time per source (its cooperative kernel, levels only; the upload
  and its set-up are outside it); ``preprocess_seconds``: its reordering and bit-packed
  (BVSS) construction on the CPU, as it prints them. BLEST reads its CSR from a binary file
  written here (the graph's own CSR without self-loops) and is run with ``-j 0``; it
  reorders graphs it does not take for social networks (RCM), as it always does. The
  depth and reached count it prints are checked against ours for every source (JSON
  ``differs``).
- ``scipy``: ``scipy.sparse.csgraph.breadth_first_order`` on the host, for scale.

GTEPS = stored entries (both directions of an undirected edge) / median seconds. Without
CuPy or without BLEST their rows are skipped. ``--study NAME=V1,V2,...`` also times the
levels-only call with each value of a gpu executor setting on the ``--study-graphs``
(JSON ``studies``). Output: a table, and JSON ``bench/results/gpu_bfs_peers_<host>.json``
(``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lagraph_py as lg  # noqa: E402
from common import sources as pick_sources  # noqa: E402

GRAPHS = ("kron20", "kron22", "kron23", "uniform22", "grid2000x2000")
#: BLEST's average-degree test for a social network (its SOCIAL_THRESHOLD), beside the
#: heavy tail test below (its degree-share rule: the top 1% of vertices hold at least 5%
#: of the entries and the top 10% at least 40%).
BLEST_SOCIAL_DEGREE = 18
BLEST_SOURCE = re.compile(r"Source: (\d+) - Number of levels processed: (\d+) - "
                          r"Total visited: (\d+) - Time took: ([0-9.eE+-]+) ms")
BLEST_PREPROCESS = re.compile(r"(?:Time took to reorder|BVSS construction took): "
                              r"([0-9.eE+-]+)")


def _cupy():
    """CuPy with a usable GPU, or None."""
    try:
        import cupy as cp
        return cp if cp.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no CuPy, or no driver
        return None


# ---------------------------------------------------------------------- graphs
def make_graph(name: str, gpu) -> lg.Graph:
    """The graph of a benchmark name (see the module docstring)."""
    if name.startswith("corpus:"):
        import corpus
        _, real, *form = name.split(":")
        G = corpus.load(real)
        return corpus.undirected(G) if form == ["undirected"] else G
    kind, size = re.fullmatch(r"([a-z]+)([0-9x]+)", name).groups()
    if kind in ("grid", "road"):
        rows, cols = (int(x) for x in size.split("x"))
        return getattr(lg.generate, kind)(rows, cols)
    scale = int(size)
    if kind == "kron":
        if gpu:
            from gpu_bfs import recursive_graph
            return recursive_graph(scale, (0.57, 0.19, 0.19))
        return lg.generate.kronecker(scale)
    if kind == "uniform":
        if gpu:
            from gpu_bfs import recursive_graph
            return recursive_graph(scale, (0.25, 0.25, 0.25), seed=2)
        return lg.generate.uniform(1 << scale, 32)
    raise ValueError(f"unknown graph {name!r}")


# ---------------------------------------------------------------------- lagraph_py
def time_lagraph(G, sources, cp, *, parents: bool, passes: int = 3) -> list[float]:
    """Seconds of the whole ``lg.bfs`` call per source (CUDA events), after warm-up calls,
    over ``passes`` passes of the sources."""
    run = lambda s: lg.bfs(G, s, backend="gpu", parents=parents)   # noqa: E731
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.2:                          # warm up
        run(sources[0])
        cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(passes):
        for s in sources:
            start.record()
            run(s)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3)
    return times


def study(G, sources, cp, setting: str) -> list[dict]:
    """Median seconds of the levels-only call with each value of a gpu executor setting
    (``NAME=V1,V2,...``, integers), in turn, the setting restored after."""
    from lagraph_py.executor import get_executor
    ex = get_executor("gpu")
    name, values = setting.split("=")
    old = getattr(ex, name)
    out = []
    try:
        for value in values.split(","):
            setattr(ex, name, int(value))
            times = time_lagraph(G, sources, cp, parents=False, passes=1)
            out.append({"setting": name, "value": int(value),
                        "seconds": statistics.median(times)})
    finally:
        setattr(ex, name, old)
    return out


def lagraph_preprocess(G, cp) -> float:
    """Seconds to build the device forms of G a search uses (its first search)."""
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    lg.bfs(G, 0, backend="gpu")
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t0


# ---------------------------------------------------------------------- BLEST
def is_social(G) -> bool:
    """BLEST's social-network test on G's out- and in-degrees (see BLEST_SOCIAL_DEGREE)."""
    if G.nstored > BLEST_SOCIAL_DEGREE * G.n:
        return True
    for deg in (G.out_degree(), G.in_degree()):
        total = deg.sum()
        if not total:
            continue
        top = np.sort(deg)[::-1]
        share = lambda f: top[:max(1, int(np.ceil(f * deg.size)))].sum() / total  # noqa: E731
        if share(0.01) >= 0.05 and share(0.10) >= 0.40:
            return True
    return False


def write_blest_inputs(G, sources, folder: Path, name: str) -> None:
    """BLEST's inputs for G: ``<name>.mtx`` (its header only: BLEST reads the graph from
    ``<name>.mtx_csc.bin``, its binary CSR: n, entries, a social flag byte, column
    pointers and rows as uint32, one column per vertex listing its out-neighbours, no
    self-loops) and ``<name>.txt``, the sources."""
    rows = G.rows()
    keep = rows != G.indices
    counts = np.bincount(rows[keep], minlength=G.n)
    ptr = np.zeros(G.n + 1, dtype=np.uint32)
    np.cumsum(counts, out=ptr[1:])
    symmetry = "general" if G.directed else "symmetric"
    (folder / f"{name}.mtx").write_text(f"%%MatrixMarket matrix coordinate pattern {symmetry}\n")
    with open(folder / f"{name}.mtx_csc.bin", "wb") as f:
        f.write(np.array([G.n, int(ptr[-1])], dtype=np.uint32).tobytes())
        f.write(bytes([is_social(G)]))
        f.write(ptr.tobytes())
        f.write(G.indices[keep].astype(np.uint32).tobytes())
    (folder / f"{name}.txt").write_text("".join(f"{s}\n" for s in sources))


def parse_blest(text: str) -> tuple[dict[int, tuple[int, int, float]], float]:
    """BLEST's output: {source: (levels processed, reached, seconds)} and its preprocessing
    seconds (reordering plus bit-packed construction)."""
    runs = {int(s): (int(levels), int(reached), float(ms) * 1e-3)
            for s, levels, reached, ms in BLEST_SOURCE.findall(text)}
    return runs, sum(float(x) for x in BLEST_PREPROCESS.findall(text))


def run_blest(binary: str, G, sources, name: str, timeout: float) -> tuple[dict, float]:
    with tempfile.TemporaryDirectory() as tmp:
        write_blest_inputs(G, sources, Path(tmp), name)
        out = subprocess.run([binary, "-d", tmp + "/", "-g", name, "-j", "0", "-w", "65536"],
                             capture_output=True, text=True, timeout=timeout, check=True)
    return parse_blest(out.stdout)


def check_blest(runs: dict, levels: dict) -> list[str]:
    """The sources from which BLEST did not reach as many vertices as we did, in as many
    levels (it counts the empty last level too), described."""
    return [f"from {s}: BLEST {depth} levels, {reached} reached; ours {levels[s].max()} "
            f"levels, {(levels[s] >= 0).sum()} reached"
            for s, (depth, reached, _) in runs.items()
            if reached != int((levels[s] >= 0).sum())
            or depth not in (levels[s].max(), levels[s].max() + 1)]


# ---------------------------------------------------------------------- scipy
def time_scipy(G, sources) -> list[float]:
    A = sp.csr_array((np.ones(G.nstored), G.indices, G.indptr), shape=(G.n, G.n))
    times = []
    for s in sources:
        t0 = time.perf_counter()
        csgraph.breadth_first_order(A, s, directed=True, return_predecessors=True)
        times.append(time.perf_counter() - t0)
    return times


# ---------------------------------------------------------------------- report
def row(graph: str, G, implementation: str, times, preprocess) -> dict:
    med = statistics.median(times)
    return {"graph": graph, "implementation": implementation, "seconds": med,
            "preprocess_seconds": preprocess, "GTEPS": G.nstored / med / 1e9,
            "runs": len(times), "n": G.n, "nstored": G.nstored}


def table(rows: list[dict]) -> str:
    """Markdown table: one line per graph, an implementation per column (ms and GTEPS),
    and BLEST's time over each of ours."""
    names = ("lagraph_py", "lagraph_py-levels", "blest", "scipy")
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    cell = {(r["graph"], r["implementation"]): r for r in rows}
    lines = ["| graph | " + " | ".join(names) + " | blest / levels | blest / parents |",
             "|---" * (len(names) + 3) + "|"]
    for g in graphs:
        parts = [f"{cell[g, i]['seconds'] * 1e3:.3f} ms ({cell[g, i]['GTEPS']:.3g})"
                 if (g, i) in cell else "-" for i in names]
        ratios = [f"{cell[g, 'blest']['seconds'] / cell[g, i]['seconds']:.2f}"
                  if (g, "blest") in cell and (g, i) in cell else "-"
                  for i in ("lagraph_py-levels", "lagraph_py")]
        lines.append(f"| {g} | " + " | ".join(parts + ratios) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--blest", default=None, help="path of the BLEST binary")
    ap.add_argument("--blest-timeout", type=float, default=300.0)
    ap.add_argument("--scipy-sources", type=int, default=8)
    ap.add_argument("--passes", type=int, default=3, help="passes over the sources (ours)")
    ap.add_argument("--study", default=None, help="NAME=V1,V2,...: a gpu executor setting")
    ap.add_argument("--study-graphs", nargs="*", default=[])
    ap.add_argument("--out", default=None, help="JSON path")
    args = ap.parse_args(argv)

    cp = _cupy()
    blest = args.blest if args.blest and os.access(args.blest, os.X_OK) else None
    report = {"host": platform.node(), "device": None, "sources": args.sources, "rows": []}
    if cp is not None:
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        report["device"] = props["name"].decode() if isinstance(props["name"], bytes) \
            else props["name"]
        report["cupy"] = cp.__version__
    print(f"device: {report['device'] or 'none (GPU rows skipped)'}; "
          f"BLEST: {blest or 'none (its rows skipped)'}", flush=True)
    rows, report["studies"] = report["rows"], []
    out = Path(args.out) if args.out else ROOT / "bench" / "results" / (
        f"gpu_bfs_peers_{platform.node()}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    for name in args.graphs:
        G = make_graph(name, cp)
        sources = pick_sources(G, args.sources, seed=7)[:args.sources]
        print(f"\n== {name}: n={G.n:,} stored={G.nstored:,}", flush=True)
        levels = {}
        if cp is not None:
            pre = lagraph_preprocess(G, cp)
            for label, parents in (("lagraph_py", True), ("lagraph_py-levels", False)):
                rows.append(row(name, G, label, time_lagraph(G, sources, cp, parents=parents,
                                                             passes=args.passes), pre))
            levels = {s: lg.asnumpy(lg.bfs(G, s, backend="gpu", parents=False).level)
                      for s in sources}
            if args.study and name in args.study_graphs:
                for entry in study(G, sources, cp, args.study):
                    report["studies"].append({"graph": name, **entry})
                    print(f"  study {entry['setting']}={entry['value']}: levels only "
                          f"{entry['seconds'] * 1e3:.3f} ms", flush=True)
        if blest is not None:
            runs, pre = run_blest(blest, G, sources, re.sub(r"\W", "_", name),
                                  args.blest_timeout)
            rows.append(row(name, G, "blest", [t for _, _, t in runs.values()], pre))
            rows[-1]["differs"] = check_blest(runs, levels) if levels else []
            for line in rows[-1]["differs"]:
                print(f"  DIFFERS {line}", flush=True)
        if args.scipy_sources:
            rows.append(row(name, G, "scipy", time_scipy(G, sources[:args.scipy_sources]),
                            0.0))
        for r in rows:
            if r["graph"] == name:
                print(f"  {r['implementation']:18s} {r['seconds'] * 1e3:9.3f} ms "
                      f"{r['GTEPS']:8.2f} GTEPS  (preprocess {r['preprocess_seconds']:.2f} s)",
                      flush=True)
        if cp is not None:
            G._cache.clear()
            cp.get_default_memory_pool().free_all_blocks()
        out.write_text(json.dumps(report, indent=1))        # after every graph
    print("\n" + table(rows))
    print(f"wrote {out}")
    return report


if __name__ == "__main__":
    main()
