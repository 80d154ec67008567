"""Host memory: what a build, a Graph and each algorithm take, and a check that refuses up
front, with a ``MemoryError``, what would not fit, instead of letting the operating
system's out-of-memory killer end the process without a word.

*Available* memory (:func:`available`) is the kernel's estimate of what new allocations
can take without swapping (``MemAvailable`` in ``/proc/meminfo``), less where a cgroup
limits the process (the room left under ``memory.max``, or ``memory.limit_in_bytes``),
capped by :data:`LIMIT_VARIABLE` when set. Where none of these can be read (not Linux),
nothing is refused.

*Estimates* are the peak bytes a stage allocates beyond what exists when it starts (its
inputs, the Graph), from the sizes of the arrays it makes; they depend on the path that
runs: ``"compiled"`` (the cpu executor's compiled loops), ``"scipy"`` (scipy's routines,
while those loops are not compiled), ``"reference"`` (python-graphblas, the reference
executor) and ``"graphblas"`` (SuiteSparse's build, the build's path while the loops are
not compiled). ``tests/test_memory.py`` checks each against the measured peak on small
graphs, ``bench/memory.py`` measures them at scale.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np

#: Environment variable capping the memory a stage may take, in bytes (a number, with an
#: optional suffix K, M, G or T for powers of 1024): for tests, or to leave room for
#: other work on a shared machine.
LIMIT_VARIABLE = "LAGRAPH_PY_MEMORY_LIMIT"
#: Estimates below this many bytes are not checked: reading ``/proc`` (about 20 µs) would
#: cost more than a small call takes, and no machine worth running on is that close to
#: its end. With :data:`LIMIT_VARIABLE` set every estimate is checked.
CHECK_FLOOR = 1 << 26

#: A check reuses the system's reading (``/proc/meminfo`` and the cgroup's files, about 40
#: µs) taken less than this many seconds before, less what the checks since let through,
#: where its estimate takes at most :data:`REUSE_SHARE` of that; any other check reads
#: again. So a reused reading never refuses, and the checks it lets through leave at least
#: the headroom a new reading after each would have left.
REUSE_S = 0.05
REUSE_SHARE = 0.5
#: Share of the available memory a stage must leave free: the estimates below came within
#: 0.9 of the measured peaks at their lowest, and other threads may allocate meanwhile.
HEADROOM = 0.1
#: Heavy edges left by the filter of the compiled MSF, a share of the edges: 13% on
#: Kronecker 16 and 18, 20-33% on uniform random, R-MAT and SSCA#2 graphs of 2^16
#: vertices and on grids (an over-estimate on the first, which are the largest).
MSF_SURVIVORS = 0.25
#: Bytes a vertex that scipy's routines and the levels found from them take, measured at
#: their peak (Kronecker, road-like, uniform random graphs and grids of 2^16-2^18
#: vertices; scipy 1.17).
SCIPY_VERTEX_BYTES = {"bfs": 48, "scc": 16}
#: Bytes a vertex of the reference executor's vectors over an algorithm's rounds, measured
#: at their peak on the same graphs (python-graphblas 2025.2, SuiteSparse 9.4): many
#: rounds on long-diameter graphs, few on Kronecker graphs, where these over-estimate.
REFERENCE_VERTEX_BYTES = {"bfs": 300, "msf": 1300, "scc": 1400, "cc": 700}

_MEMINFO = Path("/proc/meminfo")
_CGROUP_FILES = ((Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")),
                 (Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                  Path("/sys/fs/cgroup/memory/memory.usage_in_bytes")))
_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def limit() -> int | None:
    """The cap that :data:`LIMIT_VARIABLE` sets, in bytes, or None.

    Examples
    --------
    >>> os.environ[LIMIT_VARIABLE] = "1.5G"
    >>> limit()
    1610612736
    >>> del os.environ[LIMIT_VARIABLE]
    """
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not text:
        return None
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([KMGT]?)i?B?", text, re.IGNORECASE)
    if match is None:
        raise ValueError(f"{LIMIT_VARIABLE} must be a number of bytes (suffix K, M, G or "
                         f"T allowed), got {text!r}")
    return int(float(match.group(1)) * _SUFFIXES[match.group(2).upper()])


def available() -> int | None:
    """Bytes that new allocations can take now: ``MemAvailable``, less under a cgroup
    limit, capped by :data:`LIMIT_VARIABLE`; None where nothing says.

    Examples
    --------
    >>> available() is None or available() > 0
    True
    """
    return _capped(_system_available())


def _capped(system: int | None) -> int | None:
    known = [x for x in (system, limit()) if x is not None]
    return min(known) if known else None


_reading: tuple[float, int | None] = (float("-inf"), None)     # (time.monotonic(), bytes)


def _system_available() -> int | None:
    """The system's available memory, read now (and kept for :func:`_reused_available`)."""
    global _reading
    known = [x for x in (_meminfo_available(), _cgroup_room()) if x is not None]
    _reading = (time.monotonic(), min(known) if known else None)
    return _reading[1]


def _reused_available(nbytes: int) -> int | None:
    """:func:`available` for a check of ``nbytes``: the last reading where it is recent and
    ``nbytes`` a small share of it (:data:`REUSE_S`, :data:`REUSE_SHARE`), else a new one."""
    at, system = _reading
    if system is None or time.monotonic() - at >= REUSE_S or nbytes > REUSE_SHARE * system:
        system = _system_available()
    return _capped(system)


def _spend(nbytes: int) -> None:
    """Take ``nbytes``, which a check let through, off the kept reading."""
    global _reading
    at, system = _reading
    if system is not None:
        _reading = (at, system - nbytes)


def _meminfo_available() -> int | None:
    try:
        text = _MEMINFO.read_text()
    except OSError:
        return None
    match = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    return None if match is None else int(match.group(1)) * 1024


def _cgroup_room() -> int | None:
    for limit_file, usage_file in _CGROUP_FILES:
        try:
            cap, used = limit_file.read_text().strip(), usage_file.read_text().strip()
        except OSError:
            continue
        if cap.isdigit() and used.isdigit() and int(cap) < 1 << 60:   # else: no limit
            return max(0, int(cap) - int(used))
    return None


def _limit_set() -> bool:
    """Whether :data:`LIMIT_VARIABLE` is set. Looked up in ``os.environ``'s own dict
    where it has one (CPython): ``LIMIT_VARIABLE in os.environ`` raises and catches a
    ``KeyError`` when the variable is not set, about 1 µs, a tenth of a BFS call on a
    small graph; the dict lookup takes 30 ns."""
    data = getattr(os.environ, "_data", None)
    if data is None or _LIMIT_KEY is None:
        return LIMIT_VARIABLE in os.environ
    return _LIMIT_KEY in data


_LIMIT_KEY = (os.environ.encodekey(LIMIT_VARIABLE) if hasattr(os.environ, "encodekey")
              else None)


def fits(nbytes: int) -> bool:
    """Whether ``nbytes`` can be allocated now, leaving :data:`HEADROOM` of the available
    memory (:func:`available`; a reading of the last :data:`REUSE_S` seconds, less what
    the checks since let through, where ``nbytes`` is a small share of it) free."""
    if nbytes < CHECK_FLOOR and not _limit_set():
        return True
    free = _reused_available(nbytes)
    if free is not None and nbytes > (1 - HEADROOM) * free:
        return False
    _spend(nbytes)
    return True


def ensure(nbytes: int, what: str, graph=None) -> None:
    """Raise MemoryError naming ``what`` (on ``graph``, if given), the bytes it needs and
    the bytes available, unless ``nbytes`` fit (called before a stage allocates anything;
    the graph's description is made only for the message, since a call on a small graph
    takes microseconds).

    Examples
    --------
    >>> ensure(1024, "a small array")
    >>> os.environ[LIMIT_VARIABLE] = "1000"
    >>> ensure(1024, "a small array")
    Traceback (most recent call last):
    MemoryError: a small array needs 1,024 bytes of memory; 1,000 are available (LAGRAPH_PY_MEMORY_LIMIT caps it)
    >>> del os.environ[LIMIT_VARIABLE]
    """
    if fits(nbytes):
        return
    free = available()
    capped = limit() is not None and free == limit()
    if graph is not None:
        what = f"{what} on {graph!r}"
    raise MemoryError(f"{what} needs {nbytes:,} bytes of memory; {free:,} are available"
                      + (f" ({LIMIT_VARIABLE} caps it)" if capped else ""))


# ---------------------------------------------------------------------- estimates
def graph_bytes(n: int, nstored: int, indptr_type, index_type, weights) -> int:
    """Bytes of a Graph's arrays: ``n + 1`` row pointers, ``nstored`` column indices and
    weights (``weights``: an array, a dtype, or None)."""
    wsize = 0 if weights is None else np.dtype(getattr(weights, "dtype", weights)).itemsize
    return ((n + 1) * np.dtype(indptr_type).itemsize
            + nstored * (np.dtype(index_type).itemsize + wsize))


def build_bytes(n: int, m: int, directed: bool, wsize: int, path: str) -> int:
    """Peak bytes of building a Graph of ``n`` vertices from ``m`` edges with weights of
    ``wsize`` bytes (0: unweighted), beyond the edge arrays given.

    ``"compiled"`` (:func:`~lagraph_py.cpu_steps.csr.build_csr`): the entries, both ends
    of an undirected edge, before repeats merge (ids of 4 bytes, 8 past ``2**31``
    vertices, and weights), ``n + 2`` offsets, ``n`` row lengths and the final row
    pointers. ``"graphblas"`` (``Matrix.from_coo``, ``A + Aᵀ``, the export): measured,
    per edge, 8 bytes for each of the two 64-bit copies of the ids, SuiteSparse's
    sort (24 + w) and the matrix (8 + w); an undirected build holds the transpose and
    the sum besides (2 (8 + w) per edge) at its peak, then the arrays of the Graph.
    """
    isize = 4 if n <= np.iinfo(np.int32).max else 8
    entries = m if directed else 2 * m
    if path == "compiled":
        return entries * (isize + wsize) + 8 * (n + 2) + 8 * n + 8 * (n + 1)
    if path == "graphblas":
        per_edge = 16 + (24 + wsize) + (8 + wsize)
        if not directed:
            per_edge += 2 * (8 + wsize)
        return m * per_edge + entries * (isize + wsize) + 32 * (n + 1)
    raise ValueError(f"unknown build path {path!r}")


def path_of(executor) -> str | None:
    """The path an executor's steps take on the host, for the estimates below:
    ``"compiled"``, ``"scipy"`` or ``"reference"`` (its ``memory_path``); None for an
    executor whose working set lives elsewhere (the gpu's: ``gpu_backend.storage``)."""
    return getattr(executor, "memory_path", None)


def _sizes(G):
    """``(n, nstored, id bytes, row pointer bytes, weight bytes or 0)`` of ``G``."""
    return (G.n, G.nstored, G.indices.itemsize, G.indptr.itemsize,
            0 if G.weights is None else G.weights.itemsize)


def transpose_bytes(G) -> int:
    """Bytes of ``G.transpose()`` where it is not made yet (0 for an undirected graph,
    its own transpose): a Graph of the same arrays, plus ``n + 2`` offsets."""
    if not G.directed or "transpose" in G._cache:
        return 0
    return graph_bytes(G.n, G.nstored, G.indptr.dtype, G.indices.dtype, G.weights) \
        + 8 * (G.n + 2)


def _scipy_pattern_bytes(G) -> int:
    """scipy's copy of the pattern (``scipy_cpu._csr``: float64 ones, and index arrays
    of one type: the ids widened where the row pointers are wider)."""
    n, s, isize, psize, _ = _sizes(G)
    return 8 * s + s * max(0, psize - isize)


def bfs_bytes(G, executor, method: str = "auto") -> int:
    """Peak bytes of one BFS call beyond the Graph.

    ``"compiled"``: the int64 levels and parents (``16 n``), the search's work arrays
    (kept with the Graph: two bytemaps, two queues of ids, three bitmaps; for a pull, the
    heads and a bitmap of vertices with in-edges) and, directed and not push-only, the
    transpose. ``"scipy"``: scipy's copy of the pattern, its order and predecessors and
    the levels found from them (:data:`SCIPY_VERTEX_BYTES`). ``"reference"``: the
    pattern as a graphblas matrix (8 bytes an entry and a vertex), the transpose's too,
    and the vectors of the levels (:data:`REFERENCE_VERTEX_BYTES`).
    """
    path = path_of(executor)
    if path is None:                    # a working set held elsewhere
        return 0
    n, s, isize, psize, _ = _sizes(G)
    pulls = method != "push"
    transpose = transpose_bytes(G) if pulls else 0
    if path == "compiled":
        work = 2 * n + 2 * (n + 1) * isize + 3 * n // 8 + psize * n
        if pulls:
            work += n * isize + n // 8
        return 16 * n + work + transpose
    if path == "scipy":
        return _scipy_pattern_bytes(G) + SCIPY_VERTEX_BYTES["bfs"] * n
    matrices = 1 + (G.directed and pulls)
    return matrices * 8 * (s + n) + transpose + REFERENCE_VERTEX_BYTES["bfs"] * n


def msf_bytes(G, executor) -> int:
    """Peak bytes of one spanning-forest call beyond the Graph: ``m = nstored / 2``
    undirected edges of ``e = 2 s + w`` bytes (ids; weight, 8 unweighted).

    ``"compiled"`` (:mod:`~lagraph_py.cpu_steps.msf`): where the light pass takes every
    edge, the edge list (kept with the Graph), its ranking (``40 m``: keys, positions,
    their sort) and Kruskal's gathered ends; else a byte an entry for the passes, the
    light edges (about ``n``) with their ranking, and the heavy edges the filter leaves
    (:data:`MSF_SURVIVORS`) with a key and a chunk position each. ``"scipy"``: the
    entries' rows and the upper triangle's mask, the int64 ends and the weights of the
    edges, then scipy's matrices of their ranks and the ranking (``72 m``), or on
    graphs of over ``FILTER_DEGREE`` edges a vertex the keys and chunks of the filter
    (``24 m``). ``"reference"``: the same edge arrays and the vectors of the rounds
    (:data:`REFERENCE_VERTEX_BYTES`). Each adds the forest and the labels.
    """
    path = path_of(executor)
    if path is None:                    # a working set held elsewhere
        return 0
    n, s, isize, psize, wsize = _sizes(G)
    m, w = s // 2, wsize or 8
    edge = 2 * isize + w
    out = n * (16 + w + 8 + isize)
    if path == "compiled":
        from .cpu_steps import msf as compiled
        if s <= compiled.SMALL or compiled.LIGHT * n >= compiled.ALL_AT * m:
            return m * (edge + 40 + 2 * isize + 8) + out
        light = min(m, int(compiled.LIGHT * n))
        survivors = int(MSF_SURVIVORS * m)
        return s + light * (edge + 40) + survivors * (edge + 25) + out
    edges = s * (isize + 1) + m * (16 + wsize + 8)
    if path == "scipy":
        from .scipy_cpu import FILTER_DEGREE
        return edges + m * (72 if m <= FILTER_DEGREE * n else 24) + out
    return edges + REFERENCE_VERTEX_BYTES["msf"] * n + out


def scc_bytes(G, executor) -> int:
    """Peak bytes of one strongly-connected-components call (directed ``G``) beyond the
    Graph.

    ``"compiled"`` (:mod:`~lagraph_py.cpu_steps.scc`): the int64 labels, Tarjan's index
    of each vertex and its depth-first stacks (touched only as deep as the search goes);
    where the forward-backward search runs, its state and queues, the degrees (kept) and
    the transpose. ``"scipy"``: scipy's copy of the pattern and its labels
    (:data:`SCIPY_VERTEX_BYTES`). ``"reference"``: the loop-free pattern and its
    transpose as graphblas matrices (8 bytes an entry and a vertex each), the transpose
    Graph, and the vectors of the phases (:data:`REFERENCE_VERTEX_BYTES`).
    """
    path = path_of(executor)
    if path is None:                    # a working set held elsewhere
        return 0
    n, s, isize, psize, _ = _sizes(G)
    if path == "compiled":
        from .cpu_steps.scc import _UINT32_VERTICES, _search_pays
        rsize = 4 if n <= _UINT32_VERTICES else 8
        tarjan = 8 * n + n * (4 * rsize + psize)
        if not _search_pays(G):
            return tarjan
        return tarjan + n * (1 + 2 * rsize + 16) + transpose_bytes(G)
    if path == "scipy":
        return _scipy_pattern_bytes(G) + SCIPY_VERTEX_BYTES["scc"] * n
    return 16 * (s + n) + transpose_bytes(G) + REFERENCE_VERTEX_BYTES["scc"] * n


def cc_bytes(G, executor) -> int:
    """Peak bytes of one connected-components call (undirected ``G``) beyond the Graph.

    ``"compiled"`` (:mod:`~lagraph_py.cpu_steps.components`): the int64 labels and the
    union-find's trees (ids). ``"scipy"``: as for :func:`scc_bytes`. ``"reference"``:
    the pattern as a graphblas matrix and FastSV's vectors.
    """
    path = path_of(executor)
    if path is None:                    # a working set held elsewhere
        return 0
    n, s, isize, psize, wsize = _sizes(G)
    if path == "compiled":
        return 8 * n + n * isize
    if path == "scipy":
        return _scipy_pattern_bytes(G) + SCIPY_VERTEX_BYTES["scc"] * n
    return 8 * (s + n) + REFERENCE_VERTEX_BYTES["cc"] * n


def ensure_call(G, executor, task: str, method: str = "auto") -> None:
    """:func:`ensure` for one call of ``task`` (``"bfs"``, ``"msf"``, ``"scc"`` or
    ``"cc"``) on ``G`` by ``executor``, with the estimate of :func:`bfs_bytes` (of
    ``method``), :func:`msf_bytes`, :func:`scc_bytes` or :func:`cc_bytes`. The estimate
    depends on the Graph, the executor's path and whether the transpose is made yet, and
    is kept with the Graph for each of these once a call passed: working it out took 1-2
    µs, a tenth of a whole BFS call on a graph of ten vertices. An executor whose working
    set lives elsewhere (:func:`path_of` None: the gpu's plans its device memory itself)
    needs nothing of the host here, and the check returns at once (it took about 1 µs of
    the 7 µs a GPU BFS call spends on the host before its launch).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> from lagraph_py.registry import get_executor
    >>> G = lg.generate.grid(2, 2)
    >>> ensure_call(G, get_executor("cpu"), "bfs")
    >>> [key for key in G._cache if key.startswith("memory.")]
    ['memory.bfs.compiled.auto.0']
    """
    path = path_of(executor)
    if path is None:                        # every estimate: 0 bytes of the host's
        return None
    key = f"memory.{task}.{path}.{method}.{int('transpose' in G._cache)}"
    nbytes = G._cache.get(key)
    if nbytes is None:
        estimate = _ESTIMATES[task]
        nbytes = estimate(G, executor, method) if task == "bfs" else estimate(G, executor)
    ensure(nbytes, _TASK_NAMES.get(task, task), G)
    G._cache[key] = nbytes                  # (a refused call leaves the Graph as it was)


# ---------------------------------------------------------------------- what a Graph holds
def footprint(G) -> dict[str, int]:
    """Host bytes a Graph holds: its arrays (``indptr``, ``indices``, ``weights``), then
    each derived form cached with it, by its cache key, for those that hold any (the
    transpose, degrees, the cpu executor's patterns once a python-graphblas step made their
    matrices, the compiled MSF's edge list of a sparse graph, the BFS work arrays ...).
    Views of the Graph's own arrays cost nothing; device memory is not counted here
    (``gpu_backend.storage.graph_bytes``).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=True)
    >>> footprint(G)
    {'indptr': 16, 'indices': 12}
    >>> _ = G.transpose()
    >>> footprint(G)["transpose"]
    28
    """
    own = {"indptr": G.indptr, "indices": G.indices, "weights": G.weights}
    seen = {id(a) for a in own.values() if a is not None}
    out = {name: a.nbytes for name, a in own.items() if a is not None}
    for key, value in G._cache.items():
        if not key.startswith("gpu."):
            nbytes = _host_nbytes(value, seen)
            if nbytes:
                out[key] = nbytes
    return out


def _host_nbytes(x, seen: set) -> int:
    """Bytes of the numpy and graphblas storage ``x`` reaches that ``seen`` (ids of base
    arrays counted already) does not hold; adds what it counts to ``seen``."""
    import graphblas as gb

    from .graph import Graph

    if isinstance(x, np.ndarray):
        while isinstance(x.base, np.ndarray):
            x = x.base
        if id(x) in seen:
            return 0
        seen.add(id(x))
        return x.nbytes
    if isinstance(x, Graph):
        return sum(_host_nbytes(a, seen) for a in (x.indptr, x.indices, x.weights)) + sum(
            _host_nbytes(v, seen) for k, v in x._cache.items() if not k.startswith("gpu."))
    if isinstance(x, (tuple, list)):
        return sum(_host_nbytes(y, seen) for y in x)
    if isinstance(x, gb.Matrix):
        values = 0 if x.ss.is_iso else x.nvals * x.dtype.np_type.itemsize
        return 8 * (x.nrows + 1 + x.nvals) + values
    if isinstance(x, gb.Vector):
        return x.size * (x.dtype.np_type.itemsize + 1)
    return getattr(x, "nbytes", 0) if not isinstance(x, (int, float, bool)) else 0


#: The estimate of each task of :func:`ensure_call`, and the name its errors give.
_ESTIMATES = {"bfs": bfs_bytes, "msf": msf_bytes, "scc": scc_bytes, "cc": cc_bytes}
_TASK_NAMES = {"cc": "connected_components"}
