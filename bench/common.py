"""Shared pieces of the benchmark runners: timing, machine description, table and JSON."""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from lagraph_py.compilation import MODE_VARIABLE

RESULTS = Path(__file__).parent / "results"

# The runners time the cpu executor's compiled loops, compiled (or loaded from numba's
# cache) in untimed warm-up calls: never scipy's routines while a background process
# compiles them (bench/cpu.py times the first calls of fresh processes apart).
os.environ[MODE_VARIABLE] = "foreground"


def median_seconds(fn, repeats: int, sync=None) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls, after one warm-up call
    (``sync`` as in :func:`timings`)."""
    return timings(fn, [()] * repeats, budget=None, sync=sync)["seconds"]


#: Calls faster than this many seconds are warmed up for ``WARM_SECONDS`` before timing,
#: and timed over at least ``FAST_SAMPLES`` calls (the arguments repeated).
WARM_CALL = 5e-3
WARM_SECONDS = 0.2
FAST_SAMPLES = 256
#: A first call under this many seconds (or the budget, if longer) is followed by a second
#: untimed one: compiling the cpu loops in the first call of a process takes seconds.
WARM_AGAIN_S = 10.0


def timings(fn, arguments: list[tuple], budget: float | None = 10.0, sync=None,
            check=None) -> dict:
    """Wall times of ``fn(*a)`` for each ``a`` in ``arguments``: median, min and max
    seconds and the number of runs.

    One untimed warm-up call with the first arguments comes first, then a second one
    where the first took under ``budget`` seconds (or :data:`WARM_AGAIN_S`): the first
    may load or compile code (a GPU step's first call on a graph compiles its kernels, the
    first call of a process the cpu loops), and a call timed by it alone would get two
    runs and no warm-up. A call faster than
    :data:`WARM_CALL` seconds then gets :data:`WARM_SECONDS` of untimed calls (caches,
    branch predictors and clocks settle) and is timed over at least :data:`FAST_SAMPLES`
    calls, the arguments repeated. A call slower than ``budget / len(arguments)`` seconds
    at warm-up runs on the first few arguments only (at least two), to stay near
    ``budget``; ``budget=None`` runs them all. ``sync()``, if given, follows every call
    inside its timing (a GPU call up to a device synchronization); ``check(result)``, if
    given, validates the warm-up call's result, untimed."""
    sync = sync or (lambda: None)
    t0 = time.perf_counter()
    result = fn(*arguments[0])
    sync()
    warm = time.perf_counter() - t0
    if check is not None:
        check(result)
    if warm < max(WARM_AGAIN_S, budget or 0.0):   # the first may compile: time a second
        t0 = time.perf_counter()
        fn(*arguments[0])
        sync()
        warm = time.perf_counter() - t0
    if warm < WARM_CALL:
        arguments = arguments * -(-FAST_SAMPLES // len(arguments))
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < WARM_SECONDS:
            for a in arguments:
                fn(*a)
                sync()
    if budget is not None:
        arguments = arguments[:max(2, int(budget / max(warm, 1e-9)))]
    times = []
    for a in arguments:
        t0 = time.perf_counter()
        fn(*a)
        sync()
        times.append(time.perf_counter() - t0)
    return dict(seconds=statistics.median(times), min_s=min(times), max_s=max(times),
                runs=len(times))


def versions(modules=("numpy", "scipy", "graphblas", "numba", "igraph", "networkit",
                      "rustworkx", "lagraph_py"), *, absent: bool = True) -> dict:
    """Python and the versions of ``modules``: None for one that does not import, or no
    entry at all with ``absent=False``."""
    out = {"python": platform.python_version()}
    for name in modules:
        try:
            out[name] = getattr(importlib.import_module(name), "__version__", "?")
        except ImportError:
            if absent:
                out[name] = None
    return out


def graph_statistics(G, *, self_loops: bool = False) -> dict:
    """Vertices, edges, stored entries, direction (self-loops too with ``self_loops=True``)
    and degrees of a ``lagraph_py.Graph``."""
    deg = G.out_degree()
    out = dict(n=G.n, edges=G.nedges, nstored=G.nstored, directed=G.directed)
    if self_loops:
        out["self_loops"] = G.nself_loops
    return dict(out, max_degree=int(deg.max()) if G.n else 0,
                mean_degree=round(G.nstored / max(G.n, 1), 3))


# ---------------------------------------------------------------------- peers
#: The libraries a Python user already has for these tasks, in the order printed.
PEERS = ("scipy", "igraph", "networkit", "rustworkx")
#: Every peer :func:`peer_runs` can build: :data:`PEERS` and networkx (pure Python, for
#: small graphs only).
ALL_PEERS = PEERS + ("networkx",)


def peer_runs(task: str, G, peers=PEERS) -> dict:
    """``{peer: run}`` for each of ``peers`` (names in :data:`ALL_PEERS`) importable here:
    ``run(source)`` for "bfs", ``run()`` for "msf" and "scc"; the peer's own graph is
    built here, before timing.

    scipy gets float64 CSR matrices, the type its routines compute on (any other one is
    converted, a copy of the matrix, on every call): the MST the upper triangle (its
    fastest input), the BFS ``directed=True`` on the stored (symmetric) matrix. Every BFS
    computes parents or levels.
    """
    out = {}
    for peer in peers:
        try:
            out[peer] = _PEER_BUILDERS[peer](task, G)
        except ImportError:
            continue
    return out


def _scipy(task, G):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph
    A = G.to_scipy().astype(np.float64)
    if task == "bfs":
        return lambda s: csgraph.breadth_first_order(A, s, directed=True,
                                                     return_predecessors=True)
    if task == "msf":
        U = sp.triu(A, format="csr")
        return lambda: csgraph.minimum_spanning_tree(U)
    return lambda: csgraph.connected_components(A, directed=G.directed, connection="strong")


def _igraph(task, G):
    import igraph
    src, dst, w = G.edges()
    g = igraph.Graph(n=G.n, edges=np.column_stack([src, dst]), directed=G.directed)
    if task == "bfs":
        return lambda s: g.bfs(s)                       # order, layers and parents
    if task == "msf":
        weights = None if w is None else w.tolist()
        return lambda: g.spanning_tree(weights=weights, return_tree=False)
    return lambda: g.connected_components(mode="strong")


def _networkit(task, G):
    import networkit as nk
    src, dst, w = G.edges()
    if task == "msf":       # a maximum spanning forest of the negated weights
        weights = -(np.ones(src.size) if w is None else w.astype(np.float64))
        g = nk.GraphFromCoo((weights, (src, dst)), n=G.n, directed=False, weighted=True)
        return lambda: nk.graph.RandomMaximumSpanningForest(g).run()
    g = nk.GraphFromCoo((src, dst), n=G.n, directed=G.directed)
    if task == "bfs":
        return lambda s: nk.distance.BFS(g, s, storePaths=False).run()   # distances
    cc = (nk.components.StronglyConnectedComponents if G.directed
          else nk.components.ConnectedComponents)
    return lambda: cc(g).run()


def _rustworkx(task, G):
    import rustworkx as rx
    src, dst, w = G.edges()
    g = rx.PyDiGraph() if G.directed else rx.PyGraph()
    g.add_nodes_from(range(G.n))
    weights = np.ones(src.size) if w is None else w
    g.add_edges_from(list(zip(src.tolist(), dst.tolist(), weights.tolist())))
    if task == "bfs":
        return lambda s: rx.bfs_layers(g, [s])          # levels (no parents API)
    if task == "msf":
        return lambda: list(rx.minimum_spanning_edges(g, weight_fn=float))
    return ((lambda: rx.strongly_connected_components(g)) if G.directed
            else (lambda: rx.connected_components(g)))


def _networkx(task, G):
    import networkx as nx
    src, dst, w = G.edges()
    g = nx.DiGraph() if G.directed else nx.Graph()
    g.add_nodes_from(range(G.n))
    weights = np.ones(src.size) if w is None else w
    g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), weights.tolist()))
    if task == "bfs":
        return lambda s: dict(nx.bfs_predecessors(g, s))
    if task == "msf":
        return lambda: list(nx.minimum_spanning_edges(g, data=False))
    components = nx.strongly_connected_components if G.directed else nx.connected_components
    return lambda: list(components(g))


_PEER_BUILDERS = dict(scipy=_scipy, igraph=_igraph, networkit=_networkit,
                      rustworkx=_rustworkx, networkx=_networkx)


#: BFS on graphs of fewer stored entries (searches of a few milliseconds or less) is timed
#: from at least ``FAST_SAMPLES`` distinct sources: repeating a few would train the branch
#: predictor on their searches (on a 3k-vertex road graph scipy's BFS took 17 µs from 8
#: sources taken over and over, 43 µs from distinct ones).
DISTINCT_SOURCES_BELOW = 1 << 20


def sources(G, count: int, seed: int = 0) -> list[int]:
    """``count`` distinct random vertices with at least one out-edge (Graph500 rule); at
    least :data:`FAST_SAMPLES` on a graph of under :data:`DISTINCT_SOURCES_BELOW` stored
    entries (or every such vertex, if fewer)."""
    if G.nstored < DISTINCT_SOURCES_BELOW:
        count = max(count, FAST_SAMPLES)
    candidates = np.flatnonzero(G.out_degree() > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(candidates, size=min(count, candidates.size),
                                       replace=False)]


def cpu_name() -> str:
    """The processor model and the number of cores this process may use."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model} ({len(os.sched_getaffinity(0))} cores)"


def print_table(rows: list[dict], columns: list[str]) -> None:
    """Print ``rows`` as a fixed-width table of ``columns``."""
    cells = [[_fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def commit() -> str | None:
    """The checked-out commit (with ``+dirty`` for local changes to tracked files), or
    None outside git: the code a results file was measured with."""
    here = Path(__file__).parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def write_json(name: str, payload: dict) -> Path:
    """Write ``payload`` to ``bench/results/<name>.json`` and return the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=1, default=float) + "\n")
    return path


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def write_egr(path, G, *, weights=None) -> Path:
    """Write ``G`` without self-loops as an ECL ``.egr`` file (little-endian int32:
    ``nodes, edges, nindex[nodes + 1], nlist[edges]``, then ``weights[edges]`` if given,
    aligned with ``nlist``) for the ECL peer codes; return the path."""
    rows, cols = G.rows(), G.indices
    keep = rows != cols
    nlist = cols[keep].astype("<i4")
    counts = np.bincount(rows[keep], minlength=G.n)
    nindex = np.zeros(G.n + 1, dtype="<i4")
    np.cumsum(counts, out=nindex[1:])
    path = Path(path)
    with path.open("wb") as f:
        np.array([G.n, nlist.size], dtype="<i4").tofile(f)
        nindex.tofile(f)
        nlist.tofile(f)
        if weights is not None:
            np.asarray(weights)[keep].astype("<i4").tofile(f)
    return path


def ecl_cc_time(text: str, n: int) -> float | None:
    """ECL-CC's mean time from its output on a graph of ``n`` vertices, or None: read from
    the rate it prints (``n * 1e-6 / time`` Mnodes/s, to 7 digits) rather than from the
    time itself, which it prints to 0.1 ms."""
    found = re.search(r"throughput: ([0-9.eE+-]+) Mnodes/s", text)
    return n * 1e-6 / float(found.group(1)) if found and float(found.group(1)) > 0 else None
