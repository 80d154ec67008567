"""GPU strongly connected components (and connected components): lagraph_py against
ECL-SCC, ECL-CC, scipy and the cpu executor, same run.

Our time is the whole ``lg.scc(G, backend="gpu")`` call on a device-resident graph (one
warm-up call builds and caches the device matrices and compiles the kernels, then calls
for half a second bring the GPU to its clocks), median of ``--repeats`` (calls under 5 ms:
of at least 256, see ``common.timings``). On a directed graph that is SCC, against
ECL-SCC (``--ecl``), whose own "compute time" (CUDA events around its algorithm) is taken,
median of ``--repeats`` processes; on an undirected graph it is connected components, against
ECL-CC (``--ecl-cc``: its own "average kernel execution time" over ``ECL_CC_REPEAT`` runs,
wall clock around its launches, printed to 0.1 ms). Both read the graph from an ``.egr``
file. scipy's ``connected_components`` and (``--cpu``) the cpu executor run on the host.
Then one instrumented call per directed graph gives where the time goes (each group step
timed between device synchronizations), the rounds per phase and the signature kernel's
log of its first rounds; ``--variants`` times our call again with other settings of the
executor (``VARIANTS``: the device's kernels only, other shares of the host's time before
the signatures hand over, the hand-over without the race of host and device on graphs
without hubs).

Graphs: Kronecker 20 and 22 (directed), grids and a 3-D mesh with random or swept arc
directions, ``road55_random`` (the 3k-vertex ``road(55, 55)`` with random arc directions,
30% two-way), ``chain1000`` (1,000 cycles of 1,000 vertices with shuffled ids, cycle i
joined to cycle i + 1 by one arc: 1,000 components in a chain), ``uniform22_deg4`` (4.2M
vertices, 16.8M uniform random arcs, drawn on the GPU); undirected for connected
components: ``road55``, ``road340`` (115k vertices), ``kron20u`` (drawn on the GPU), ``mesh128u``.
``corpus:NAME`` is the real graph NAME of the benchmark corpus (``bench/corpus.py``, its
folder in ``$LAGRAPH_CORPUS``), ``corpus:NAME:undirected`` its symmetrized pattern.

Usage: ``python bench/gpu_scc.py [--ecl /tmp/ecl-scc] [--ecl-cc /tmp/ecl-cc] [--out FILE]
[--repeats 5] [--graphs kron20,chain1000,...] [--cpu] [--variants device,share1]
[--local-passes K]``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cupy as cp
import numpy as np
from scipy.sparse import csgraph

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lagraph_py as lg  # noqa: E402
from common import ecl_cc_time, median_seconds, print_table, write_egr  # noqa: E402
from gpu_backend import GpuExecutor  # noqa: E402
from gpu_bfs import recursive_graph  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402


def road_random(rows, cols, two_way=0.3, seed=0):
    """``road(rows, cols)`` with each edge one arc of random direction, or both arcs with
    probability ``two_way``."""
    src, dst, _ = lg.generate.road(rows, cols, seed=seed).edges()
    rng = np.random.default_rng(seed)
    flip, both = rng.random(src.size) < 0.5, rng.random(src.size) < two_way
    a, b = np.where(flip, dst, src), np.where(flip, src, dst)
    return lg.Graph.from_edges(np.concatenate([a, b[both]]), np.concatenate([b, a[both]]),
                               n=rows * cols)


def cycle_chain(cycles, size, seed=0):
    """``cycles`` cycles of ``size`` vertices (shuffled ids), cycle i joined to cycle i + 1
    by one arc between random members."""
    rng = np.random.default_rng(seed)
    ids = rng.permutation(cycles * size).reshape(cycles, size)
    links = np.arange(cycles - 1)
    src = np.concatenate([ids.ravel(), ids[links, rng.integers(0, size, links.size)]])
    dst = np.concatenate([np.roll(ids, -1, axis=1).ravel(),
                          ids[links + 1, rng.integers(0, size, links.size)]])
    return lg.Graph.from_edges(src, dst, n=cycles * size)


def uniform_directed(scale, degree, seed=0):
    """``2**scale`` vertices and ``degree * 2**scale`` uniform random arcs (repeats merged,
    self-loops kept), drawn on the GPU, in Graph's canonical CSR form."""
    n, m = 1 << scale, degree << scale
    rng = cp.random.RandomState(seed)
    keys = cp.unique(rng.randint(0, n, m, dtype=cp.int64) * n
                     + rng.randint(0, n, m, dtype=cp.int64))
    rows, cols = keys // n, keys % n
    indptr = cp.searchsorted(rows, cp.arange(n + 1, dtype=cp.int64)).astype(np.int32)
    G = Graph(n, True, indptr.get(), cols.astype(np.int32).get(), None)
    del keys, rows, cols, indptr
    cp.get_default_memory_pool().free_all_blocks()
    return G


GRAPHS = {
    "kron20": lambda: lg.generate.kronecker(20, directed=True),
    "kron22": lambda: lg.generate.kronecker(22, directed=True),
    "grid1000_random": lambda: lg.generate.grid(1000, 1000, directed=True,
                                                orientation="random"),
    "grid2000_random": lambda: lg.generate.grid(2000, 2000, directed=True,
                                                orientation="random"),
    "mesh128_sweep_2way0.1": lambda: lg.generate.mesh(128, 128, 128, directed=True,
                                                      orientation="sweep", two_way=0.1),
    "road55_random": lambda: road_random(55, 55),
    "chain1000": lambda: cycle_chain(1000, 1000),
    "uniform22_deg4": lambda: uniform_directed(22, 4),
    "road55": lambda: lg.generate.road(55, 55),
    "road340": lambda: lg.generate.road(340, 340),
    "kron20u": lambda: recursive_graph(20, (0.57, 0.19, 0.19)),
    "mesh128u": lambda: lg.generate.mesh(128, 128, 128),
}
#: Other settings of the executor, timed with ``--variants``.
VARIANTS = {
    "device": dict(scc_host_items=0, scc_host_share=float("inf"), scc_race_items=-1),
    "share0.1": dict(scc_host_share=0.1),
    "share1": dict(scc_host_share=1.0),
    "no_race": dict(scc_race_items=-1),
}
#: Seconds of untimed calls before ours are timed (see :func:`keep_busy`).
WARM_SECONDS = 0.5
#: ECL-CC's own repetitions per process (it prints their mean).
ECL_CC_REPEAT = 100
_GROUP_STEPS = ("scc_trim", "scc_signatures", "bfs_level", "bfs_push_levels",
                "bfs_pull_levels")


class Instrumented(GpuExecutor):
    """The gpu executor with each group step timed between device synchronizations and
    its levels counted (BFS levels from the level numbers the steps return)."""

    def __init__(self):
        super().__init__()
        self.seconds = dict.fromkeys(_GROUP_STEPS, 0.0)
        self.calls = dict.fromkeys(_GROUP_STEPS, 0)
        self.bfs_levels = 0
        self.trim_levels = []

    def _timed(self, name, fn, *args, **kw):
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        result = fn(*args, **kw)
        cp.cuda.get_current_stream().synchronize()
        self.seconds[name] += time.perf_counter() - t0
        self.calls[name] += 1
        return result

    def scc_trim(self, *args):
        out = self._timed("scc_trim", super().scc_trim, *args)
        self.trim_levels.append(self.scc_counts()["trim_levels"])
        return out

    def scc_signatures(self, *args):
        return self._timed("scc_signatures", super().scc_signatures, *args)

    def bfs_level(self, *args, **kw):
        self.bfs_levels += 1
        return self._timed("bfs_level", super().bfs_level, *args, **kw)

    def bfs_push_levels(self, A, frontier, parent, level, k, *args, **kw):
        out = self._timed("bfs_push_levels", super().bfs_push_levels, A, frontier, parent,
                          level, k, *args, **kw)
        self.bfs_levels += out[1] - k + 1
        return out

    def bfs_pull_levels(self, A, AT, frontier, parent, level, k, *args, **kw):
        out = self._timed("bfs_pull_levels", super().bfs_pull_levels, A, AT, frontier,
                          parent, level, k, *args, **kw)
        self.bfs_levels += out[1] - k + 1
        return out


def keep_busy(fn, sync, seconds=WARM_SECONDS):
    """Call ``fn`` for ``seconds``: after host work (building the graph, scipy) the GPU
    idles at low clocks, and calls of a few milliseconds would be timed while it climbs
    back (ECL-SCC's timer starts after its own copies to the device)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        sync()


def scipy_labels(G):
    k, lab = csgraph.connected_components(G.to_scipy(), directed=G.directed,
                                          connection="strong")
    smallest = np.full(k, G.n, dtype=np.int64)
    np.minimum.at(smallest, lab, np.arange(G.n))
    return smallest[lab], k


def ecl_seconds(binary, G, repeats):
    """Median of ECL-SCC's own compute time and its number of SCCs, or (None, None)."""
    if not binary:
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = write_egr(Path(tmp) / "g.egr", G)
        times, count = [], None
        for _ in range(repeats):
            text = subprocess.run([binary, str(path)], capture_output=True, text=True,
                                  check=True).stdout
            times.append(float(re.search(r"compute time: ([0-9.eE+-]+) s", text).group(1)))
            count = int(re.search(r"number of SCCs: (\d+)", text).group(1))
    return statistics.median(times), count


def ecl_cc_seconds(binary, G):
    """ECL-CC's mean time over ECL_CC_REPEAT runs and its number of components, or
    (None, None). Its stack limit lifted, as its verification recurses."""
    if not binary:
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = write_egr(Path(tmp) / "g.egr", G)
        text = subprocess.run(["bash", "-c", f'ulimit -s unlimited; exec "{binary}" '
                               f'"{path}" {ECL_CC_REPEAT}'], capture_output=True, text=True,
                              check=True).stdout
    seconds = ecl_cc_time(text, G.n)
    count = re.search(r"number of connected components: (\d+)", text)
    if seconds is None or "PASS" not in text:
        print(text[-2000:])
        return None, None
    return seconds, int(count.group(1))


def time_ours(G, repeats, ex=None):
    sync = cp.cuda.get_current_stream().synchronize
    backend = ex or "gpu"
    keep_busy(lambda: lg.scc(G, backend=backend), sync)
    return median_seconds(lambda: lg.scc(G, backend=backend), repeats, sync=sync)


def make_graph(name):
    """The graph called ``name`` (see the module docstring)."""
    if name.startswith("corpus:"):
        import corpus
        real, _, form = name[len("corpus:"):].partition(":")
        G = corpus.load(real)
        return corpus.undirected(G) if form == "undirected" else G
    return GRAPHS[name]()


def run_graph(name, args, device):
    G = make_graph(name)
    rows = []
    expected, k = scipy_labels(G)
    labels = cp.asnumpy(lg.scc(G, backend="gpu").labels)            # warm-up, checked
    if not np.array_equal(labels, expected):
        raise AssertionError(f"{name}: lagraph_py gpu labels differ from scipy's")
    task = "scc" if G.directed else "cc"
    row = dict(graph=name, task=task, arcs=int(G.nstored), device=device, n=G.n,
               components=k)
    rows.append(dict(row, implementation="lagraph_py",
                     local_passes=GpuExecutor.scc_local_passes,
                     seconds=time_ours(G, args.repeats)))
    if G.directed:
        rows[-1].update(instrumented(G))
        seconds, ecl_k = ecl_seconds(args.ecl, G, args.repeats)
        peer = "ecl-scc"
    else:
        seconds, ecl_k = ecl_cc_seconds(args.ecl_cc, G)
        peer = "ecl-cc"
    for variant in filter(None, args.variants.split(",")):
        ex = GpuExecutor()
        for attr, value in VARIANTS[variant].items():
            setattr(ex, attr, value)
        if not np.array_equal(cp.asnumpy(lg.scc(G, backend=ex).labels), expected):
            raise AssertionError(f"{name}: labels of variant {variant} differ from scipy's")
        rows.append(dict(row, implementation=f"lagraph_py {variant}",
                         seconds=time_ours(G, args.repeats, ex)))
        if G.directed:
            rows[-1]["handed_over"] = ex.scc_counts().get("handed_over")
    if seconds is not None:
        rows.append(dict(row, implementation=peer, seconds=seconds, peer_components=ecl_k))
    rows.append(dict(row, implementation="scipy",
                     seconds=median_seconds(lambda: scipy_labels(G), 2)))
    if args.cpu:
        rows.append(dict(row, implementation="cpu-executor",
                         seconds=median_seconds(lambda: lg.scc(G, backend="cpu"), 2)))
    return rows


def instrumented(G) -> dict:
    """Where the time of one call goes: the group steps timed between synchronizations,
    the rest of the call, and the counts of the steps."""
    ex = Instrumented()
    t0 = time.perf_counter()
    lg.scc(G, backend=ex)
    cp.cuda.get_current_stream().synchronize()
    total = time.perf_counter() - t0
    counts = ex.scc_counts()
    phases = {s: round(ex.seconds[s] * 1e3, 3) for s in _GROUP_STEPS if ex.calls[s]}
    phases["other steps"] = round((total - sum(ex.seconds.values())) * 1e3, 3)
    return dict(instrumented_ms=round(total * 1e3, 3), phase_ms=phases,
                trim_levels=ex.trim_levels, bfs_levels=ex.bfs_levels,
                signature_rounds=counts.get("signature_rounds", 0),
                signature_sweeps=counts.get("signature_sweeps", 0),
                handed_over=counts.get("handed_over", 0),
                round_log=counts.get("round_log", []))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ecl", default=None, help="ECL-SCC binary")
    ap.add_argument("--ecl-cc", default=None, help="ECL-CC binary")
    ap.add_argument("--out", default=None, help="JSON file (default bench/results/...)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--cpu", action="store_true", help="also time the cpu executor")
    ap.add_argument("--variants", default="", help=f"also time these: {', '.join(VARIANTS)}")
    ap.add_argument("--local-passes", type=int, default=GpuExecutor.scc_local_passes,
                    help="SccSteps.scc_local_passes for this run")
    args = ap.parse_args(argv)
    GpuExecutor.scc_local_passes = args.local_passes
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    tag = "h200" if "H200" in device else "h100" if "H100" in device else "gpu"
    out = Path(args.out) if args.out else (
        Path(__file__).parent / "results" / f"gpu_scc_{tag}.json")
    rows = []
    for name in args.graphs.split(","):
        graph_rows = run_graph(name, args, device)
        rows += graph_rows
        print_table(graph_rows, ["graph", "implementation", "seconds", "phase_ms",
                                 "trim_levels", "signature_rounds", "signature_sweeps",
                                 "handed_over"])
        sys.stdout.flush()
        cp.get_default_memory_pool().free_all_blocks()
        out.write_text(json.dumps({"device": device, "rows": rows}, indent=1) + "\n")
    print()
    print_table(rows, ["graph", "implementation", "seconds", "arcs", "device"])
    return {"device": device, "rows": rows}


if __name__ == "__main__":
    main()
