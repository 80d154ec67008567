"""The benchmark suite: algorithms x backends x methods x graphs, every baseline in one process.

For each graph of the sweep, each algorithm (BFS, MSF, SCC) runs on every lagraph_py
executor asked for (every BFS ``method=`` of each) and on every baseline importable here:
scipy.sparse.csgraph, python-igraph, networkit, rustworkx, networkx (graphs of at most
:data:`NETWORKX_MAX_STORED` stored entries) and, on the GPU, the naive cupyx SpMV BFS of
``bench/gpu_bfs.py``. Each baseline's own graph object is built before timing; only the
algorithm call is timed (a GPU call up to a device synchronization).

BFS times are medians over ``sources`` random vertices of nonzero degree, at least 256
distinct ones on graphs under 2^20 stored entries (``common.sources``), after one
warm-up call on the first; MSF and SCC over ``repeats`` calls after one warm-up. Every
lagraph_py result is validated once (``lagraph_py.validate``). For each graph and
executor, one ``method="auto"`` BFS is traced level by level (:func:`trace_bfs`).

Graph names: ``kron<scale>``, ``rmat<scale>`` (power-law; SCC on the directed draw),
``grid<r>x<c>`` (SCC on a randomly oriented grid), ``road<r>x<c>`` (a grid keeping 70% of
its edges; SCC gives its connected components), ``mesh<x>x<y>x<z>`` (SCC on a sweep
orientation with a tenth of the edges two-way). MSF weights are ``"real"``.
"""

from __future__ import annotations

import datetime
import importlib.util
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import lagraph_py as lg
from bench import common
from lagraph_py.cli import progress
from lagraph_py.executor import PULL, PUSH, Executor, get_executor

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
ALGORITHMS = ("bfs", "msf", "scc")
#: The default sweep: power-law, long-diameter and small graphs.
GRAPHS = ("kron12", "kron16", "kron18", "road60x50", "grid300x300", "grid1000x1000",
          "road300x300", "road1000x1000", "mesh40x40x40")
#: Graphs of ``--quick`` (well under a minute on two cores).
QUICK_GRAPHS = ("kron12", "road60x50", "grid100x100")
#: networkx runs only on graphs up to this many stored entries (it is pure Python).
NETWORKX_MAX_STORED = 300_000
#: The other runners of bench/, driven through their ``main(argv)``.
RUNNERS = ("cpu", "cpu_gap", "gpu_bfs", "gpu_msf", "gpu_scc", "gpu_corpus")
PEERS = common.ALL_PEERS


class Implementation(NamedTuple):
    """One contestant: ``run(source)`` for BFS, ``run()`` otherwise."""

    implementation: str     #: "lagraph_py" or the baseline's name
    backend: str            #: "cpu" or "gpu"
    method: str | None      #: the lagraph_py BFS method; None elsewhere
    run: Callable


# ---------------------------------------------------------------------- graphs
def build_graphs(name: str) -> tuple[lg.Graph, lg.Graph]:
    """The undirected weighted graph (BFS, MSF) and the directed one (SCC) ``name`` stands
    for (see the module docstring)."""
    m = re.fullmatch(r"(kron|rmat)(\d+)|(grid|road)(\d+)x(\d+)|mesh(\d+)x(\d+)x(\d+)", name)
    if m is None:
        raise ValueError(f"unknown graph name {name!r}: use kron16, rmat16, grid300x300, "
                         f"road300x300 or mesh40x40x40")
    gen = lg.generate
    if m[1]:
        make = gen.kronecker if m[1] == "kron" else gen.rmat
        scale = int(m[2])
        return make(scale, weights="real"), make(scale, directed=True)
    if m[3] == "grid":
        r, c = int(m[4]), int(m[5])
        return (gen.grid(r, c, weights="real"),
                gen.grid(r, c, directed=True, orientation="random"))
    if m[3] == "road":
        G = gen.road(int(m[4]), int(m[5]), weights="real")
        return G, G
    dims = (int(m[6]), int(m[7]), int(m[8]))
    return (gen.mesh(*dims, weights="real"),
            gen.mesh(*dims, directed=True, orientation="sweep", two_way=0.1))


def graph_statistics(G: lg.Graph) -> dict:
    """Size and shape of ``G``: vertices, edges, stored entries, degrees, self-loops."""
    return common.graph_statistics(G, self_loops=True)


#: ``count`` distinct random vertices with an out-edge (Graph500 rule).
pick_sources = common.sources


# ---------------------------------------------------------------------- contestants
def lagraph_implementations(algorithm: str, G: lg.Graph, backends) -> list[Implementation]:
    """lagraph_py on each executor; BFS once per method the executor offers."""
    out = []
    for b in backends:
        ex = get_executor(b)
        if algorithm == "bfs":
            for m in ("auto",) + tuple(ex.bfs_methods):
                out.append(Implementation("lagraph_py", b, m, lambda s, b=b, m=m: lg.bfs(
                    G, s, backend=b, method=m)))
        elif algorithm == "msf":
            out.append(Implementation("lagraph_py", b, None, lambda b=b: lg.msf(G, backend=b)))
        else:
            out.append(Implementation("lagraph_py", b, None, lambda b=b: lg.scc(G, backend=b)))
    return out


def peer_implementations(algorithm: str, G: lg.Graph, backends) -> list[Implementation]:
    """Every baseline importable here (networkx only on small graphs)."""
    peers = [p for p in PEERS if p != "networkx" or G.nstored <= NETWORKX_MAX_STORED]
    out = [Implementation(peer, "cpu", None, run)
           for peer, run in common.peer_runs(algorithm, G, peers).items()]
    if algorithm == "bfs" and "gpu" in backends:
        out.append(Implementation("naive_spmv", "gpu", None, _naive_spmv(G)))
    return out


def _naive_spmv(G):
    gpu_bfs = load_runner("gpu_bfs")
    AT = get_executor("gpu").matrix(G, transpose=True).to_cupyx()
    return lambda s: gpu_bfs.naive_spmv_bfs(AT, s, G.n)


# ---------------------------------------------------------------------- timing
def measure(run: Callable, arguments: list[tuple], gpu: bool, check=None) -> dict:
    """Wall times of ``run(*a)`` for each ``a`` in ``arguments`` after one warm-up call
    with the first (validated by ``check`` if given): median, min, max (seconds) and the
    number of runs."""
    return common.timings(run, arguments, budget=None, sync=_gpu_sync if gpu else None,
                          check=check)


def _gpu_sync():
    import cupy
    cupy.cuda.Device().synchronize()  # sync: the timed call's kernels have finished


def check(algorithm: str, G: lg.Graph, result, source=None) -> None:
    """Validate a lagraph_py result; raises ``ValidationError`` if it is wrong."""
    if algorithm == "bfs":
        lg.validate.bfs(G, source, result)
    elif algorithm == "msf":
        lg.validate.msf(G, result)
    else:
        lg.validate.scc(G, result)


# ---------------------------------------------------------------------- BFS level trace
def traced_executor(backend, out_degree: np.ndarray) -> Executor:
    """A new executor of ``backend``'s class whose BFS group steps run their definitions
    in :class:`~lagraph_py.executor.Executor` (one :meth:`bfs_level` per level) and log
    every level in ``.levels``: level, direction, method, frontier vertices, frontier
    out-edges and seconds.

    Pass it as ``backend=`` to :func:`lagraph_py.bfs`: the direction rule of the algorithm
    text decides as it always does, and the result is the same.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.generate.grid(3, 3)
    >>> ex = traced_executor("cpu", G.out_degree())
    >>> [entry["frontier"] for entry in (lg.bfs(G, 0, backend=ex), ex.levels)[1]]
    [2, 3, 2, 1, 0]
    """
    base = type(get_executor(backend))
    gpu = getattr(base, "name", "") == "gpu"

    class TracedExecutor(base):
        bfs_search = Executor.bfs_search
        bfs_push_levels = Executor.bfs_push_levels
        bfs_pull_levels = Executor.bfs_pull_levels

        def __init__(self):
            super().__init__()
            self.levels: list[dict] = []

        def bfs_level(self, A, AT, frontier, parent, level, k, method, semiring,
                      degrees=None):
            t0 = time.perf_counter()
            q, stats = super().bfs_level(A, AT, frontier, parent, level, k, method,
                                         semiring, degrees)
            if gpu:
                _gpu_sync()
            seconds = time.perf_counter() - t0
            idx = lg.asnumpy(self.to_coo(q)[0])
            pull = method in (PULL, self.auto_methods[PULL])
            self.levels.append(dict(level=k, direction=PULL if pull else PUSH, method=method,
                                    frontier=stats.nq,
                                    frontier_edges=int(out_degree[idx].sum()),
                                    seconds=seconds))
            return q, stats

    return TracedExecutor()


def trace_bfs(G: lg.Graph, source: int, backend: str = "cpu") -> list[dict]:
    """The levels of one ``method="auto"`` BFS (see :func:`traced_executor`)."""
    ex = traced_executor(backend, G.out_degree())
    lg.bfs(G, source, backend=ex)
    return ex.levels


# ---------------------------------------------------------------------- the sweep
def run_suite(graphs=GRAPHS, algorithms=ALGORITHMS, backends=("cpu",), *, sources: int = 8,
              repeats: int = 3, peers: bool = True, validate: bool = True,
              log: Callable[[str], None] = print,
              checkpoint: Callable[[dict], None] = lambda payload: None) -> dict:
    """Run the sweep; return the JSON payload (see the module docstring).

    ``checkpoint(payload)`` is called after each graph (to save partial results).

    Examples
    --------
    >>> payload = run_suite(["grid4x5"], ["scc"], sources=2, repeats=1, peers=False,
    ...                     log=lambda line: None)
    >>> [(r["algorithm"], r["implementation"], r["graph"]) for r in payload["rows"]]
    [('scc', 'lagraph_py', 'grid4x5')]
    """
    payload = dict(suite="lagraph_py", date=_now(), commit=common.commit(),
                   device=device_names(backends), versions=versions(),
                   settings=dict(sources=sources, repeats=repeats),
                   graphs={}, rows=[], traces={})
    for name in graphs:
        t0 = time.perf_counter()
        with progress(f"building {name}"):
            G, D = build_graphs(name)
        stats = graph_statistics(G)
        payload["graphs"][name] = dict(stats, build_s=time.perf_counter() - t0,
                                       directed_variant=graph_statistics(D))
        log(f"{name}: n = {G.n:,}, stored = {G.nstored:,}; directed variant "
            f"{D.nstored:,} arcs")
        picks = pick_sources(G, sources)
        for algorithm in algorithms:
            graph = D if algorithm == "scc" else G
            if algorithm == "bfs" and not picks:
                continue
            contestants = lagraph_implementations(algorithm, graph, backends)
            if peers:
                contestants += peer_implementations(algorithm, graph, backends)
            arguments = [(s,) for s in picks] if algorithm == "bfs" else [()] * repeats
            with progress(f"{name} {algorithm}", total=len(contestants)) as advance:
                for c in contestants:
                    row = dict(graph=name, algorithm=algorithm, implementation=c.implementation,
                               backend=c.backend, method=c.method,
                               device=payload["device"][c.backend],
                               **measure(c.run, arguments, c.backend == "gpu",
                                         check=(lambda r: check(algorithm, graph, r,
                                                                *arguments[0]))
                                         if validate and c.implementation == "lagraph_py"
                                         else None),
                               n=graph.n, nstored=graph.nstored)
                    if algorithm == "bfs":
                        row["GTEPS"] = graph.nstored / row["seconds"] / 1e9
                    payload["rows"].append(row)
                    log(_row_line(row))
                    advance(1)
        if "bfs" in algorithms and picks:
            payload["traces"][name] = {b: trace_bfs(G, picks[0], b) for b in backends}
        checkpoint(payload)
    return payload


def _row_line(r: dict) -> str:
    who = r["implementation"] + (f" {r['backend']} {r['method']}" if r["method"] else
                                 f" {r['backend']}" * (r["implementation"] == "lagraph_py"))
    return (f"  {r['algorithm']} {who:32s} {r['seconds'] * 1e3:10.3f} ms "
            f"[{r['min_s'] * 1e3:.3f}, {r['max_s'] * 1e3:.3f}] over {r['runs']}")


# ---------------------------------------------------------------------- environment
def device_names(backends) -> dict:
    """The processor, and the GPU's name when ``backends`` has "gpu"."""
    names = dict(cpu=common.cpu_name())
    if "gpu" in backends:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        names["gpu"] = name.decode() if isinstance(name, bytes) else name
    return names


def versions() -> dict:
    """Versions of Python, lagraph_py and every library the suite may time."""
    return common.versions(("lagraph_py", "numpy", "scipy", "graphblas", "numba", "igraph",
                            "networkit", "rustworkx", "networkx", "cupy"), absent=False)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------------- other runners
def load_runner(name: str):
    """Import ``bench/<name>.py`` (one of :data:`RUNNERS`) as ``bench.<name>``."""
    if name not in RUNNERS:
        raise ValueError(f"unknown runner {name!r}; one of {RUNNERS}")
    module_name = f"bench.{name}"
    if module_name not in sys.modules:
        path = BENCH / f"{name}.py"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such runner")
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def run_runner(name: str, argv: list[str] | None = None) -> Any:
    """Run ``bench/<name>.py``'s ``main(argv)`` in this process; return its payload (the
    runner also writes its own JSON under ``bench/results/``)."""
    return load_runner(name).main(argv or [])
