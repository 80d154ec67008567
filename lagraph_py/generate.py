"""Seeded synthetic graphs: Graph500 Kronecker, R-MAT, SSCA#2, uniform random graphs, 2-D
grids, 3-D meshes, roads and chains of cycles.

Every generator takes ``seed`` and draws from its own ``numpy.random.default_rng(seed)``
(never numpy's global state), so one seed always gives the same graph. All work is
vectorized over edges; the result is an immutable :class:`~lagraph_py.graph.Graph`, in
which parallel edges collapse to the lightest one and self-loops stay.

Weights (the ``weights`` argument of every generator), one independent draw per generated
edge, before duplicates collapse:

``None``
    unweighted graph (every algorithm counts a weight of 1).
``"uniform"``
    int64 integers uniform in ``[0, 2**32)``: the unsigned 32-bit range into which the
    hybrid Borůvka MST paper (seed document 002) maps its edge weights.
``"real"``
    float64 uniform in ``[0, 1)``, as the GraphHPC RMAT and SSCA2 generators that the
    MST paper benchmarks draw them.
"""

from __future__ import annotations

import numbers
import operator
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._checks import as_count
from .graph import Graph

__all__ = ["kronecker", "rmat", "ssca2", "uniform", "grid", "mesh", "road", "cycle_chain",
           "WEIGHT_KINDS", "ORIENTATIONS"]

#: Graph500 Kronecker initiator (A, B, C); D = 1 - A - B - C = 0.05.
GRAPH500_ABC = (0.57, 0.19, 0.19)
#: Defaults of :func:`rmat`: the (A, B, C) of the Enterprise BFS paper (seed 004) and of the
#: R-MAT paper that the MST paper cites.
RMAT_ABC = (0.45, 0.15, 0.15)
#: SSCA#2 largest clique: uniform sizes 1..49 give a mean degree of (2*49 - 2)/3 = 32 inside
#: cliques, the "average degree near 32" of the MST paper (value of the GraphHPC MST generator).
SSCA2_MAX_CLIQUE_SIZE = 49
#: SSCA#2 probability of an inter-clique edge at distance class 1; halves at each further class.
SSCA2_INTERCLIQUE_PROB = 0.1
#: Exclusive upper bound of ``weights="uniform"``.
UNIFORM_WEIGHT_HIGH = 2**32
#: Accepted values of the ``weights`` argument.
WEIGHT_KINDS = (None, "uniform", "real")
#: Accepted values of the ``orientation`` argument of :func:`grid` and :func:`mesh`.
ORIENTATIONS = ("random", "sweep")
#: Largest scale: vertex ids are built in uint32.
MAX_SCALE = 32
#: Largest vertex count of :func:`uniform`: a vertex pair is drawn as the int64 ``u * n + v``.
UNIFORM_MAX_N = 2**31

_CHUNK = 1 << 18  # edges drawn per block: the per-level temporaries then stay in cache
#: Threads that draw the blocks of a Kronecker or R-MAT graph's edges (numpy releases the
#: interpreter lock in its loops).
DRAW_THREADS = os.cpu_count() or 1


# ---------------------------------------------------------------------- public generators
def kronecker(scale, edgefactor=16, seed=0, *, weights=None, directed=False) -> Graph:
    """Graph500 Kronecker graph: ``2**scale`` vertices, ``edgefactor * 2**scale`` edge draws.

    Each edge descends the ``2**scale x 2**scale`` adjacency one bit level at a time and picks
    a quadrant with the Graph500 initiator probabilities A, B, C, D = 0.57, 0.19, 0.19, 0.05,
    as the Graph500 reference generator does; vertex labels are then randomly permuted. As
    in the specification, self-loops and repeated edges are generated; in the Graph the
    repeats collapse into one edge (keeping the lightest weight) and self-loops stay, so
    ``G.nedges`` is somewhat below ``edgefactor * 2**scale``. The edge order is not shuffled
    (the Graph sorts edges anyway).

    Parameters
    ----------
    scale : int
        ``log2`` of the vertex count, ``0 <= scale <= 32``.
    edgefactor : int, default 16
        Edge draws per vertex (Graph500: 16).
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    weights : {None, "uniform", "real"}, default None
        Edge weights; see the module docstring.
    directed : bool, default False
        Graph500 graphs are undirected; with ``True`` each draw ``(u, v)`` is the arc ``u -> v``.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = kronecker(10, seed=1)
    >>> G.n, G.directed, G.weighted
    (1024, False, False)
    >>> int(G.out_degree().max()) > 10 * G.nstored / G.n   # a few hubs, many leaves
    True
    """
    return _recursive_matrix_graph(scale, edgefactor, GRAPH500_ABC, seed, weights, directed)


def rmat(scale, edgefactor=16, a=0.45, b=0.15, c=0.15, seed=0, *, weights=None,
         directed=False) -> Graph:
    """R-MAT graph: the Kronecker recursion with other quadrant probabilities.

    The defaults follow the test graphs of the hybrid Borůvka MST paper (seed document 002):
    ``2**scale`` vertices and average degree 32, i.e. ``edgefactor = 16`` undirected edges
    per vertex, both directions stored (its table: scale 21 has 2 097 152 vertices and
    67 108 864 stored arcs). The paper does not print A, B, C; it cites the R-MAT paper,
    whose parameters (0.45, 0.15, 0.15, D = 0.25) the Enterprise BFS paper (seed 004) also
    uses for its R-MAT graphs, so those are the defaults. (The GraphHPC contest generator
    uses B = 0.25, jitters the probabilities at every level and drops self-loops; this one
    does neither.) Self-loops and repeats behave as in :func:`kronecker`.

    Parameters
    ----------
    scale, edgefactor, seed, weights, directed
        As in :func:`kronecker`.
    a, b, c : float
        Probabilities of the top-left, top-right and bottom-left quadrant; ``d = 1-a-b-c``
        must be positive.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = rmat(8, seed=3, weights="real")
    >>> G.n, G.weighted, bool((G.weights >= 0).all() and (G.weights < 1).all())
    (256, True, True)
    """
    abc = tuple(_as_probability(p, name) for p, name in ((a, "a"), (b, "b"), (c, "c")))
    if sum(abc) >= 1:
        raise ValueError(f"a + b + c must be below 1 so that d = 1 - a - b - c > 0, "
                         f"got {sum(abc)}")
    return _recursive_matrix_graph(scale, edgefactor, abc, seed, weights, directed)


def ssca2(scale, seed=0, *, max_clique_size=None, weights=None) -> Graph:
    """SSCA#2-style undirected graph: random cliques joined by sparse inter-clique edges.

    The ``n = 2**scale`` vertices are cut, in order, into cliques of uniformly random size
    ``1 .. max_clique_size`` (the last one truncated to fit); each clique is complete. Then,
    as in the GraphHPC SSCA2 generator behind the MST paper's graphs (inter-clique
    probability 0.1, no parallel edges), every vertex ``i`` tries one edge per
    distance class ``t = 1 .. scale-1``: with probability ``0.1 / 2**(t-1)`` it links to
    ``(i + 2**t + r) mod n``, ``r`` uniform in ``[0, 2**(t-1))``, unless that vertex lies in
    its own clique. Finally vertex labels are randomly permuted.

    A vertex in a clique of size ``s`` has ``s - 1`` clique neighbours; with sizes uniform
    on ``1..K`` the mean degree is ``(2K - 2)/3`` plus about 0.4 from inter-clique edges. The
    default ``K = 49`` gives about 32, the "average degree near 32" of the MST paper.

    Parameters
    ----------
    scale : int
        ``log2`` of the vertex count, ``0 <= scale <= 32``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    max_clique_size : int, optional
        Largest clique, at least 1; default 49.
    weights : {None, "uniform", "real"}, default None
        Edge weights; see the module docstring.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = ssca2(12, seed=0)
    >>> G.n, G.directed
    (4096, False)
    >>> 28 < G.nstored / G.n < 36
    True
    """
    scale = _as_scale(scale)
    k = SSCA2_MAX_CLIQUE_SIZE if max_clique_size is None else as_count(max_clique_size,
                                                                        "max_clique_size")
    if k < 1:
        raise ValueError("max_clique_size must be at least 1")
    kind = _as_weight_kind(weights)
    rng = _rng(seed)
    n = 1 << scale

    # Cliques: n sizes always suffice; keep those that start below n, truncate the last.
    size = rng.integers(1, k + 1, size=n)
    first = np.cumsum(size) - size
    ncliques = int(np.searchsorted(first, n))
    size, first = size[:ncliques], first[:ncliques]
    size[-1] = n - first[-1]
    clique = np.repeat(np.arange(ncliques), size)

    # Intra-clique edges: each vertex links to the members after it in its clique.
    vertex = np.arange(n)
    later = first[clique] + size[clique] - 1 - vertex
    src = np.repeat(vertex, later)
    dst = src + 1 + np.arange(src.size) - np.repeat(np.cumsum(later) - later, later)

    # Inter-clique edges: one try per (distance class t, vertex), probability p / 2**(t-1).
    t = np.arange(1, scale)
    p = (SSCA2_INTERCLIQUE_PROB / 2.0 ** (t - 1)).astype(np.float32)
    tries = rng.random((t.size, n), dtype=np.float32) < p[:, None]
    level, u = np.nonzero(tries)
    half = np.int64(1) << (t[level] - 1)
    v = (u + 2 * half + rng.integers(0, half)) % n
    keep = clique[u] != clique[v]

    perm = rng.permutation(n)
    src = perm[np.concatenate([src, u[keep]])]
    dst = perm[np.concatenate([dst, v[keep]])]
    return Graph.from_edges(src, dst, _draw_weights(kind, src.size, rng), n=n, directed=False)


def uniform(n, mean_degree, directed=False, seed=0, *, weights=None) -> Graph:
    """Uniform random graph (Erdős–Rényi G(n, m)): ``m`` distinct edges drawn uniformly.

    Undirected: ``m = round(n * mean_degree / 2)`` edges among the ``n (n-1) / 2`` vertex
    pairs, so the mean degree (stored entries per vertex) is ``mean_degree``. Directed:
    ``m = round(n * mean_degree)`` arcs among the ``n (n-1)`` ordered pairs, the mean
    out-degree. No self-loops, no repeated edges. Pairs are drawn uniformly and
    independently, self-loops rejected, and the first ``m`` distinct pairs kept: every
    set of ``m`` pairs is equally likely. Such a graph has no locality and, at mean
    degree above 1, one giant component of small diameter (``log n / log mean_degree``
    levels) beside many tiny ones.

    Parameters
    ----------
    n : int
        Vertex count, ``0 <= n <= 2**31``.
    mean_degree : float
        Mean degree (undirected) or out-degree (directed), ``0 <= mean_degree <= n - 1``.
    directed : bool, default False
        Draw arcs instead of edges.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` (pairs, then weights).
    weights : {None, "uniform", "real"}, default None
        Edge weights; see the module docstring.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = uniform(1000, 4, seed=1)
    >>> G.n, G.nedges, G.nstored, G.nself_loops
    (1000, 2000, 4000, 0)
    >>> uniform(1000, 1.5, directed=True).nstored
    1500
    """
    n = as_count(n, "n")
    if n > UNIFORM_MAX_N:
        raise ValueError(f"n must be at most {UNIFORM_MAX_N}, got {n}")
    if isinstance(mean_degree, (bool, np.bool_)) or not isinstance(mean_degree, numbers.Real):
        raise TypeError(f"mean_degree must be a real number, got {type(mean_degree).__name__}")
    if not 0 <= mean_degree <= max(n - 1, 0):
        raise ValueError(f"mean_degree must lie in [0, n - 1] = [0, {max(n - 1, 0)}], "
                         f"got {mean_degree}")
    kind = _as_weight_kind(weights)
    rng = _rng(seed)
    m = round(n * float(mean_degree) / (1 if directed else 2))
    src, dst = _distinct_pairs(n, m, bool(directed), rng)
    return Graph.from_edges(src, dst, _draw_weights(kind, m, rng), n=n, directed=bool(directed))


def grid(rows, cols, *, weights=None, seed=0, directed=False, orientation=None,
         two_way=0.0) -> Graph:
    """2-D grid with 4-neighbour connectivity (a road-like graph of diameter ``rows + cols - 2``).

    Vertex ``r * cols + c`` is the cell in row ``r``, column ``c``; it is joined to the cells
    left, right, above and below it. With ``directed=True`` and no ``orientation`` every grid
    edge becomes two arcs with independently drawn weights (a two-way road network); the
    graph stays strongly connected. With an ``orientation`` each grid edge becomes one arc
    (see :data:`ORIENTATIONS`), and a ``two_way`` fraction of the edges, drawn at random,
    keeps both arcs.

    Parameters
    ----------
    rows, cols : int
        Grid shape (non-negative).
    weights : {None, "uniform", "real"}, default None
        Edge weights, one draw per arc; see the module docstring.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` (orientations, two-way edges and weights).
    directed : bool, default False
    orientation : {None, "random", "sweep"}, default None
        How each grid edge is turned into an arc; needs ``directed=True``.
        ``"random"``: each edge points either way with probability 1/2 (many strongly
        connected components of every size). ``"sweep"``: every edge points along one
        random direction vector, so the graph is a DAG (all components single vertices)
        before ``two_way`` edges are added.
    two_way : float, default 0.0
        Fraction (probability per edge) of the oriented edges that keep both arcs; only
        with an ``orientation``.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = grid(3, 4)
    >>> G.n, G.nedges, sorted(set(G.out_degree().tolist()))
    (12, 17, [2, 3, 4])
    >>> D = grid(3, 4, directed=True, orientation="sweep", seed=5)
    >>> D.nedges, int(D.in_degree().min())       # one arc per grid edge; a source exists
    (17, 0)
    """
    rows, cols = as_count(rows, "rows"), as_count(cols, "cols")
    return _lattice((rows, cols), weights, seed, directed, orientation, two_way)


def mesh(nx, ny, nz, *, weights=None, seed=0, directed=False, orientation=None,
         two_way=0.0) -> Graph:
    """3-D mesh with 6-neighbour connectivity (diameter ``nx + ny + nz - 3``).

    Vertex ``(x * ny + y) * nz + z`` is the cell at ``(x, y, z)``; it is joined to the
    cells one step away along each axis. Directions, orientations and ``two_way`` behave
    as in :func:`grid`: e.g. ``mesh(100, 100, 100, directed=True, orientation="sweep",
    two_way=0.1)`` is a DAG sweep with one edge in ten made two-way, which forms strongly
    connected components of many sizes.

    Parameters
    ----------
    nx, ny, nz : int
        Mesh shape (non-negative).
    weights, seed, directed, orientation, two_way
        As in :func:`grid`.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = mesh(2, 3, 4)
    >>> G.n, G.nedges, int(G.out_degree().max())
    (24, 46, 5)
    >>> D = mesh(4, 4, 4, directed=True, orientation="random", seed=1)
    >>> D.nedges == mesh(4, 4, 4).nedges
    True
    """
    shape = (as_count(nx, "nx"), as_count(ny, "ny"), as_count(nz, "nz"))
    return _lattice(shape, weights, seed, directed, orientation, two_way)


def road(rows, cols, *, keep=0.7, seed=0, weights=None) -> Graph:
    """A road-like undirected graph: a ``rows x cols`` grid, each edge kept with
    probability ``keep``.

    Like a road network it is sparse (about ``2 * keep`` edges per vertex), nearly planar
    and has a long diameter (a few times ``rows + cols`` hops between far corners, as the
    missing edges force detours); below ``keep = 0.5`` (the bond percolation threshold of
    the square lattice) it falls apart into small pieces. Vertex ids follow the grid
    (``r * cols + c``), so neighbours have nearby ids, as in real road data.

    Parameters
    ----------
    rows, cols : int
        Grid shape (non-negative).
    keep : float, default 0.7
        Probability that a grid edge is kept, in ``[0, 1]``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` (kept edges, then weights).
    weights : {None, "uniform", "real"}, default None
        Edge weights; see the module docstring.

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = road(50, 60, seed=2)
    >>> G.n, bool(0.6 < G.nedges / grid(50, 60).nedges < 0.8)
    (3000, True)
    """
    rows, cols = as_count(rows, "rows"), as_count(cols, "cols")
    keep = _as_probability(keep, "keep")
    kind = _as_weight_kind(weights)
    rng = _rng(seed)
    src, dst = _lattice_edges((rows, cols))
    kept = rng.random(src.size) < keep
    src, dst = src[kept], dst[kept]
    return Graph.from_edges(src, dst, _draw_weights(kind, src.size, rng), n=rows * cols,
                            directed=False)


def cycle_chain(ncycles, length, *, shuffle=False, seed=0, weights=None) -> Graph:
    """A deep chain of strongly connected components: ``ncycles`` directed cycles of
    ``length`` vertices, each linked by one arc to the next.

    Cycle ``c`` holds the vertices ``c * length .. (c + 1) * length - 1``, each with an arc
    to the next one around the cycle (a cycle of one vertex is a self-loop); the last
    vertex of cycle ``c`` has one more arc, to the first vertex of cycle ``c + 1``. So the
    graph has ``ncycles`` strongly connected components of ``length`` vertices whose
    condensation is a path of ``ncycles`` vertices: an SCC code that propagates labels
    along arcs needs about ``ncycles * length`` rounds, one trimming or pivoting on the
    chain's ends ``ncycles`` rounds. The arc count is ``ncycles * length + ncycles - 1``.

    Parameters
    ----------
    ncycles, length : int
        Number of cycles and vertices per cycle (non-negative).
    shuffle : bool, default False
        Relabel the vertices by a random permutation (then no id order follows the chain).
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` (permutation, then weights).
    weights : {None, "uniform", "real"}, default None
        Arc weights; see the module docstring.

    Returns
    -------
    Graph
        A directed graph.

    Examples
    --------
    >>> G = cycle_chain(3, 4)
    >>> G.n, G.nstored, G.directed
    (12, 14, True)
    >>> G.indices[G.indptr[3]:G.indptr[4]].tolist()    # the last vertex of the first cycle
    [0, 4]
    """
    ncycles, length = as_count(ncycles, "ncycles"), as_count(length, "length")
    kind = _as_weight_kind(weights)
    rng = _rng(seed)
    n = ncycles * length
    vertex = np.arange(n, dtype=np.int64)
    around = vertex - vertex % length + (vertex % length + 1) % length if length else vertex
    last = np.arange(1, ncycles if length else 0, dtype=np.int64) * length - 1
    src = np.concatenate([vertex, last])
    dst = np.concatenate([around, last + 1])
    if shuffle:
        perm = rng.permutation(n)
        src, dst = perm[src], perm[dst]
    return Graph.from_edges(src, dst, _draw_weights(kind, src.size, rng), n=n, directed=True)


# ---------------------------------------------------------------------- shared machinery
def _recursive_matrix_graph(scale, edgefactor, abc, seed, weights, directed) -> Graph:
    """Kronecker / R-MAT: draw the edges, permute vertex labels, attach weights."""
    scale = _as_scale(scale)
    m = as_count(edgefactor, "edgefactor") << scale
    kind = _as_weight_kind(weights)
    rng = _rng(seed)
    src, dst = _recursive_matrix_edges(scale, m, abc, rng)
    return Graph.from_edges(src, dst, _draw_weights(kind, m, rng), n=1 << scale,
                            directed=bool(directed))


def _recursive_matrix_edges(scale: int, m: int, abc, rng: np.random.Generator):
    """The ``m`` edges (uint32 ``src, dst``) of :func:`_recursive_matrix_graph`, vertex
    labels permuted in place, a block at a time."""
    src, dst = _quadrant_edges(scale, m, abc, rng)
    perm = rng.permutation(1 << scale).astype(np.uint32)
    for ids in (src, dst):
        for lo in range(0, m, _CHUNK):
            block = ids[lo:lo + _CHUNK]
            np.take(perm, block, mode="clip", out=block)   # ids are in range
    return src, dst


def _quadrant_edges(scale: int, m: int, abc, rng: np.random.Generator):
    """Draw ``m`` edges of the recursive ``2**scale``-square matrix, one bit level at a time.

    At every level each edge takes one uniform 32-bit draw ``u`` and picks the quadrant
    A (``u < a``), B (``u < a+b``: column bit set), C (``u < a+b+c``: row bit set) or D (both
    bits): the Graph500 reference rule (row bit with probability ``c+d``, then the column bit
    conditioned on it), sampled with one draw instead of two. Edges go in blocks of ``_CHUNK``
    so that the per-level temporaries stay in cache; the blocks are drawn on
    :data:`DRAW_THREADS` threads, each from its own copy of the stream jumped to its first
    block (``PCG64.advance``), so the edges are those of one sequential pass, and ``rng``
    ends where that pass would. Returns uint32 ``(row, col)``.
    """
    cuts = np.cumsum(abc) * 2.0**32
    thresholds = tuple(np.uint32(min(round(x), 2**32 - 1)) for x in cuts)
    rows = np.zeros(m, dtype=np.uint32)
    cols = np.zeros(m, dtype=np.uint32)
    nblocks = -(-m // _CHUNK)
    per_block = scale * (_CHUNK // 2)                      # raw draws of a full block
    start = rng.bit_generator.state

    def draw(first: int, last: int) -> None:               # blocks first .. last-1
        stream = type(rng.bit_generator)()
        stream.state = start
        stream.advance(first * per_block)
        for lo in range(first * _CHUNK, min(m, last * _CHUNK), _CHUNK):
            _draw_block(rows[lo:lo + _CHUNK], cols[lo:lo + _CHUNK], scale, thresholds,
                        stream)

    threads = min(DRAW_THREADS, nblocks)
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(draw, *zip(*[(nblocks * t // threads, nblocks * (t + 1) // threads)
                                       for t in range(threads)])))
    elif m:
        draw(0, nblocks)
    tail = m - (nblocks - 1) * _CHUNK                      # edges of the last block
    rng.bit_generator.advance(((nblocks - 1) * (_CHUNK // 2) + (tail + 1) // 2) * scale
                              if m else 0)
    return rows, cols


def _draw_block(r: np.ndarray, c: np.ndarray, scale: int, thresholds, stream) -> None:
    """The row and column bits of one block of edges (``r``, ``c``: zeros, filled in
    place), ``scale`` levels of draws from ``stream``."""
    t_a, t_ab, t_abc = thresholds
    k = r.size
    tmp = np.empty(k, dtype=np.uint32)
    for bit in range(scale):
        # k uniform uint32 draws: the raw 64-bit PCG64 output read as two halves.
        u = stream.random_raw((k + 1) // 2).view(np.uint32)[:k]
        row_bit = u >= t_ab                    # quadrant C or D
        col_bit = u >= t_a                     # B, C or D ...
        col_bit ^= row_bit                     # ... B only ...
        col_bit ^= u >= t_abc                  # ... B or D
        r |= np.left_shift(row_bit, bit, out=tmp, dtype=np.uint32)
        c |= np.left_shift(col_bit, bit, out=tmp, dtype=np.uint32)


def _distinct_pairs(n: int, m: int, directed: bool, rng: np.random.Generator):
    """The first ``m`` distinct pairs ``(u, v)``, ``u != v``, of a stream of uniform
    draws (``u < v`` when undirected): a uniformly random ``m``-set of pairs."""
    total = n * (n - 1) if directed else n * (n - 1) // 2
    if m > total:
        raise ValueError(f"{m} edges do not fit among the {total} pairs of {n} vertices")
    keys = np.empty(0, dtype=np.int64)
    while keys.size < m:
        need = m - keys.size
        u, v = rng.integers(0, n, size=(2, need + need // 8 + 16), dtype=np.int64)
        u, v = u[u != v], v[u != v]
        if not directed:
            u, v = np.minimum(u, v), np.maximum(u, v)
        keys = np.concatenate([keys, u * n + v])
        _, first = np.unique(keys, return_index=True)
        keys = keys[np.sort(first)[:m]]                 # first occurrences, in draw order
    return keys // max(n, 1), keys % max(n, 1)


def _lattice(shape, weights, seed, directed, orientation, two_way) -> Graph:
    """:func:`grid` and :func:`mesh`: the lattice of ``shape``, arcs as the arguments say."""
    kind = _as_weight_kind(weights)
    if orientation is not None and orientation not in ORIENTATIONS:
        raise ValueError(f"orientation must be one of {ORIENTATIONS} or None, "
                         f"got {orientation!r}")
    if orientation is not None and not directed:
        raise ValueError("an orientation needs directed=True")
    two_way = _as_probability(two_way, "two_way")
    if two_way and orientation is None:
        raise ValueError("two_way needs an orientation (without one every edge is two-way "
                         "when directed, none when undirected)")
    rng = _rng(seed)
    src, dst = _lattice_edges(shape)                   # every edge goes up one axis
    if orientation == "random":
        flip = rng.random(src.size) < 0.5
    elif orientation == "sweep":
        down = rng.standard_normal(len(shape)) < 0     # direction vector, axis by axis
        flip = down[_lattice_axis(shape)]
    if orientation is not None:
        both = rng.random(src.size) < two_way
        src, dst = (np.concatenate([np.where(flip, b, a), np.where(flip, a, b)[both]])
                    for a, b in ((src, dst), (dst, src)))
    elif directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    return Graph.from_edges(src, dst, _draw_weights(kind, src.size, rng), n=int(np.prod(shape)),
                            directed=bool(directed))


def _lattice_edges(shape):
    """``(src, dst)`` of the lattice of ``shape`` (row-major ids): for each axis, last
    first, every cell to its successor along that axis."""
    ids = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    src, dst = [], []
    for axis in reversed(range(len(shape))):
        head = [slice(None)] * len(shape)
        tail = [slice(None)] * len(shape)
        head[axis], tail[axis] = slice(None, -1), slice(1, None)
        src.append(ids[tuple(head)].ravel())
        dst.append(ids[tuple(tail)].ravel())
    return np.concatenate(src), np.concatenate(dst)


def _lattice_axis(shape):
    """The axis of each edge of :func:`_lattice_edges`, in the same order."""
    counts = [int(np.prod(shape)) - int(np.prod(shape)) // s if s else 0 for s in shape]
    return np.repeat(np.arange(len(shape))[::-1], counts[::-1])


def _draw_weights(kind, m: int, rng: np.random.Generator):
    if kind is None:
        return None
    if kind == "uniform":
        return rng.integers(0, UNIFORM_WEIGHT_HIGH, size=m, dtype=np.int64)
    return rng.random(m)


# ---------------------------------------------------------------------- argument checks
def _as_scale(scale) -> int:
    if isinstance(scale, (bool, np.bool_)):
        raise TypeError("scale must be an integer, got bool")
    value = as_count(scale, "scale")
    if value > MAX_SCALE:
        raise ValueError(f"scale must be at most {MAX_SCALE}, got {value}")
    return value


def _as_probability(p, name: str) -> float:
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(p).__name__}")
    value = float(p)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value}")
    return value


def _as_weight_kind(weights):
    if weights is not None and (not isinstance(weights, str) or weights not in WEIGHT_KINDS):
        raise ValueError(f"weights must be one of {WEIGHT_KINDS}, got {weights!r}")
    return weights


def _rng(seed) -> np.random.Generator:
    try:
        operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an integer, got {type(seed).__name__}") from None
    return np.random.default_rng(seed)
