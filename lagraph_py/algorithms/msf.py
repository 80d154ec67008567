"""Minimum spanning forest by Borůvka's algorithm over edge ranks (hybrid MST, seed 002).

Every undirected edge except self-loops has a *rank* in the strict order (weight, min(u, v),
max(u, v)): the paper's "weights to integers" step. Rank order names the edges in the
vectors below, so a component's lightest edge is a plain MIN over integers (no (weight,
index) packing limit) and the forest is unique: both executors return the same edges.

Edge vectors are full vectors over a list of edges in rank order; ``EU(k)``, ``EV(k)`` hold
the current components of the two endpoints of candidate edge ``k``. A Borůvka round:

=============================================  ==========================================
``cross = select(EU ≠ EV, ≠ 0)``               edges between two components; stop if none
``EU, EV = EU<cross>, EV<cross>``              drop edges inside a component
``best(c) = min{k : EU(k) = c or EV(k) = c}``  two scatter-min: each component's lightest
``other(c) = EU(best(c)) + EV(best(c)) - c``   the component across that edge (hook)
``other(c) = min(c, other(c))`` if mutual      a 2-cycle keeps the smaller id as its root
``forest += {best(c)}``                        one new forest edge per hooked component
``parent = other(other)`` until stable         pointer jumping: every component -> its root
``comp, EU, EV = parent(comp, EU, EV)``        contract
=============================================  ==========================================

Filtering by rank chunks (Filter-Borůvka). An edge whose endpoints are already joined by
lighter edges is the heaviest edge of a cycle and never in the forest. So the edges are
split into chunks of consecutive ranks, of growing size: the rounds above run on the
lightest ``FIRST_CHUNK * n`` edges; each later chunk is first relabelled by the components
found so far (one gather per endpoint), the edges inside a component are dropped, and the
rounds run on the survivors only. The host sorts only what the rounds need: the first
chunk and each chunk's survivors. On a Kronecker graph of scale 20 (15.7M edges) the
rounds touch about 2M edges in all instead of 69M, and 1.25M edges are sorted, not 15.7M.

Host preprocessing (numpy, once): sort keys pack an order-preserving integer image of the
weight above the edge's position in (min, max) order, so sorting keys sorts by rank;
chunks are ranges of those keys, cut at quantiles of a sample.

Host↔device traffic: each edge goes to the executor once, each survivor once more in rank
order; in the loop only scalars decide stopping -- one per round (``nvals(cross)``) and one
per pointer jump; each later chunk reads its survivors' positions back once; the forest
and the labels come back at the end.
"""

from __future__ import annotations

import numpy as np

from .. import memory
from .._checks import undirected
from ..graph import Graph
from ..registry import get_executor
from . import require_graph
from ..results import MSFResult, asnumpy

#: The first rank chunk holds the ``FIRST_CHUNK * n`` lightest edges (a forest has < n):
#: cheap rounds that already join most vertices the later chunks touch. 1/4 was fastest
#: on Kronecker scales 16..20 (tried 1/8..1).
FIRST_CHUNK = 0.25
#: Each further chunk is ``GROWTH`` times larger than the one before (2..16 all work).
GROWTH = 4
#: Chunk boundaries are quantiles of every k-th sort key, ``SAMPLE`` keys in all.
SAMPLE = 1 << 16


def msf(G: Graph, *, backend: str = "cpu", symmetrize: bool = False) -> MSFResult:
    """Minimum spanning forest of an undirected graph (Borůvka).

    Parameters
    ----------
    G : Graph
        Undirected; weights of any sign, int or float, 0 included (unweighted: all 1).
        Self-loops never enter the forest; parallel edges were merged by the Graph,
        keeping the lightest.
    backend : {"cpu", "gpu"}
        Executor to run on. Result arrays are numpy on "cpu", CuPy on "gpu".
    symmetrize : bool, default False
        A directed ``G`` raises ValueError unless this is True; then each directed edge
        ``(u, v, w)`` is the undirected edge ``{u, v}``, and of the edges joining one pair
        of vertices the lightest is kept.

    Returns
    -------
    MSFResult
        ``src``, ``dst`` (int64, ``src < dst``) and ``weight`` (int64 or float64 as the
        graph's weights; int64 ones when unweighted): one row per forest edge, rows in the
        strict order (weight, src, dst). With that order breaking ties the forest is unique.
        ``total_weight``: a Python int (exact) or float (``math.fsum``: correctly rounded,
        so the same on every executor), computed from ``weight`` when first read (on the
        gpu a copy of the forest's weights to the host). ``component[v]``: the smallest
        vertex id in the tree of ``v`` (int64).

    Raises
    ------
    TypeError
        ``G`` is not a Graph.
    ValueError
        ``G`` is directed and ``symmetrize`` is False, or ``backend`` is unknown.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1, 0, 3], [1, 2, 2, 4], weight=[2.0, 1.0, 2.0, 0.5],
    ...                         directed=False)
    >>> f = lg.msf(G)
    >>> f.src, f.dst, f.weight
    (array([3, 1, 0]), array([4, 2, 1]), array([0.5, 1. , 2. ]))
    >>> f.total_weight, f.component
    (3.5, array([0, 0, 0, 3, 3]))
    """
    require_graph(G)
    ex = get_executor(backend, G)
    G = undirected(G, symmetrize, "msf needs an undirected graph; build it with "
                   "directed=False, or pass symmetrize=True to treat each directed edge "
                   "(u, v, w) as the undirected edge {u, v} (parallel edges keep the lightest)")
    memory.ensure_call(G, ex, "msf")
    with ex.placement(G, "msf"):
        src, dst, weight, component = ex.spanning_forest(G)      # the group step
    return MSFResult(src=src, dst=dst, weight=weight, component=component)


def boruvka_forest(ex, G: Graph):
    """The text above in primitive steps: what :meth:`Executor.spanning_forest` stands for.

    Returns executor arrays ``(src, dst, weight, component)``, rows in rank order.
    """
    eu, ev, w = _undirected_edges(G)
    n, m = G.n, eu.size
    if m == 0:                                        # no edge joins two vertices
        none = np.empty(0, np.int64)
        return ex.array(none), ex.array(none), ex.array(w), ex.array(np.arange(n))
    ranking = Ranking(w)

    comp = ex.iota(n)                                 # vertex -> its component (a root id)
    forests = []                                      # (chunk edges in rank order, forest)
    for chunk in ranking.chunks(n):                   # edge positions, chunk by chunk
        if forests:                                   # drop edges inside a component
            EU, EV = _relabelled(ex, comp, eu[chunk], ev[chunk])
            cross = ex.select(ex.ewise_mult(EU, EV, "ne"), "ne", 0)
            chunk = chunk[asnumpy(ex.to_coo(cross)[0])]  # sync: the chunk's survivors
            if chunk.size == 0:
                continue
        edges = ranking.order(chunk)                  # rank order: the chunk's one sort
        EU, EV = _relabelled(ex, comp if forests else None, eu[edges], ev[edges])
        forests.append((edges, _boruvka_rounds(ex, n, edges.size, EU, EV, comp)))

    tree = np.concatenate([edges[asnumpy(ex.to_coo(forest)[0])]   # sync: once per chunk
                           for edges, forest in forests])
    return (ex.array(eu[tree]), ex.array(ev[tree]), ex.array(w[tree]),
            _canonical_labels(ex, n, comp))


def _relabelled(ex, comp, u, v):
    """Full edge vectors of endpoint components ``comp(u)``, ``comp(v)`` (ids if no comp)."""
    index = np.arange(u.size)
    EU, EV = ex.vector(u.size, index, u), ex.vector(v.size, index, v)
    return (EU, EV) if comp is None else (ex.extract(comp, EU), ex.extract(comp, EV))


def _boruvka_rounds(ex, n, size, EU, EV, comp):
    """Borůvka rounds on one chunk's candidate edges until none joins two components.

    ``EU`` and ``EV`` are full vectors of ``size`` edges. Returns the chunk's forest edges
    (a vector over the chunk's ranks; values are not used) and updates ``comp``
    (vertex -> root) in place. Each round at least halves the components that have a
    candidate edge, so ``log2(n) + 1`` rounds suffice.
    """
    forest = ex.vector(size, np.empty(0, np.int64), np.empty(0, np.int64))
    ncand = size
    for _ in range(n.bit_length() + 1):
        cross = ex.select(ex.ewise_mult(EU, EV, "ne"), "ne", 0)
        ncross = ex.nvals(cross)                      # sync: the stopping rule
        if ncross == 0:
            return forest
        if ncross < ncand:                            # shrink the candidate list
            EU, EV = ex.mask(EU, cross), ex.mask(EV, cross)
        ncand = ncross
        rank = ex.apply(EU, "index")
        best = ex.ewise_add(ex.scatter(n, EU, rank, "min"), ex.scatter(n, EV, rank, "min"),
                            "min")                    # best(c): rank of c's lightest edge
        c = ex.apply(best, "index")
        other = ex.ewise_mult(ex.ewise_mult(ex.extract(EU, best), ex.extract(EV, best), "plus"),
                              c, "minus")             # the endpoint component that is not c
        mutual = ex.select(ex.ewise_mult(ex.extract(other, other), c, "eq"), "ne", 0)
        ex.assign(other, ex.mask(ex.ewise_mult(other, c, "min"), mutual))   # 2-cycle root
        ex.assign(forest, ex.scatter(size, best, best, "any"))  # 2-cycles pick one twice
        parent = _pointer_jump(ex, n, other)
        ex.assign(comp, ex.extract(parent, comp))
        EU, EV = ex.extract(parent, EU), ex.extract(parent, EV)
    raise RuntimeError(f"msf: Borůvka rounds made no progress on the {ex.name} executor")


def _pointer_jump(ex, n, parent):
    """``parent = parent(parent)`` until every entry points at a root (``parent(r) = r``)."""
    for _ in range(n.bit_length() + 1):               # a chain is shorter than n
        grand = ex.extract(parent, parent)
        if not ex.reduce(ex.ewise_mult(grand, parent, "ne"), "max"):   # sync: per jump
            return parent
        parent = grand
    raise RuntimeError(f"msf: pointer jumping found a cycle on the {ex.name} executor")


def _canonical_labels(ex, n, comp):
    """Dense labels: the smallest vertex id of each tree (roots are arbitrary ids)."""
    smallest = ex.scatter(n, comp, ex.iota(n), "min")     # at each root: its tree's min id
    return ex.to_dense(ex.extract(smallest, comp), -1, consume=True)


# ---------------------------------------------------------------------- host preprocessing
def _undirected_edges(G: Graph):
    """New arrays ``(eu, ev, w)`` of the edges, once each, without self-loops.

    ``eu < ev`` (int64), in (eu, ev) order; ``w`` int64 ones when ``G`` is unweighted.
    """
    rows, cols = G.rows(), G.indices     # CSR: rows ascending, columns sorted in each row,
    upper = rows < cols                  # so the upper triangle is in (u, v) order already
    eu, ev = rows[upper].astype(np.int64), cols[upper].astype(np.int64)
    w = np.ones(eu.size, np.int64) if not G.weighted else G.weights[upper]
    return eu, ev, w


class Ranking:
    """Rank order of edges given in (min, max) order, through packed int64 sort keys.

    ``key[k]`` holds an order-preserving integer image of ``w[k]`` above ``b`` bits of the
    position ``k``, so sorting keys sorts by (weight, position) = rank. When the weights
    span more than ``63 - b`` bits the image drops its ``shift`` low bits; runs of equal
    images whose weights then come out of order (rare) are re-sorted exactly.
    """

    def __init__(self, w: np.ndarray):
        self.w, m = w, w.size
        self.b = max(1, (m - 1).bit_length())
        key = _order_key(w)                           # a new array: updated in place below
        lo, hi = (int(key.min()), int(key.max())) if m else (0, 0)
        self.shift = max(0, (hi - lo).bit_length() - (63 - self.b))
        key -= np.int64(lo)                           # wraps in int64, exact as uint64
        packed = key.view(np.uint64)
        packed >>= np.uint64(self.shift)
        packed <<= np.uint64(self.b)
        packed |= np.arange(m, dtype=np.uint64)       # < 2**63: compares as int64
        self.key = key

    def order(self, edges: np.ndarray) -> np.ndarray:
        """``edges`` (positions) sorted by rank: one sort of their keys."""
        key = np.sort(self.key[edges])
        ranked = key & np.int64((1 << self.b) - 1)
        if self.shift:
            _resort_prefix_ties(self.w, ranked, key >> np.int64(self.b))
        return ranked

    def chunks(self, n: int):
        """Positions (ascending) of the edges of each rank chunk, lightest chunk first.

        Chunks are ranges of keys (of weight images when those drop bits, so that edges
        they cannot order stay in one chunk), cut at quantiles of every k-th key.
        """
        m = self.key.size
        cuts, lo, size = [], 0, max(1, int(FIRST_CHUNK * n))
        while lo + size < m:                          # ranks where chunks start
            lo += size
            cuts.append(lo)
            size = max(1, int(size * GROWTH))
        image = self.key >> np.int64(self.b) if self.shift else self.key
        sample = np.sort(image[::max(1, m // SAMPLE)])
        bounds = sample[[cut * sample.size // m for cut in cuts]]
        chunk = np.zeros(m, np.min_scalar_type(len(bounds)))
        for bound in bounds:                          # chunk id = bounds passed
            chunk += image >= bound
        for c in range(len(bounds) + 1):
            edges = np.flatnonzero(chunk == c)
            if edges.size:
                yield edges


def stable_order(w: np.ndarray) -> np.ndarray:
    """``np.argsort(w, kind="stable")`` for int64 or float64 ``w``, with one int64 sort."""
    return Ranking(w).order(np.arange(w.size))


def _order_key(w: np.ndarray) -> np.ndarray:
    """New int64 keys with ``key(x) < key(y)`` iff ``x < y`` for int32, int64, float32 or
    float64 ``w`` (-0.0 equals 0.0): a real's bits as a signed integer of its width,
    widened, the order of the negative ones flipped."""
    if w.dtype.kind != "f":
        return w.astype(np.int64, copy=True)
    bits = (w + w.dtype.type(0)).view(f"i{w.itemsize}")   # -0.0 + 0.0 == +0.0
    key = bits.astype(np.int64, copy=False)           # (w + 0 is a new array already)
    if key.size and key.min() < 0:                    # negative reals: flip their order
        flip = key >> np.int64(63)
        flip &= np.int64(np.iinfo(bits.dtype).max)
        key ^= flip
    return key


def _resort_prefix_ties(w, order, prefix) -> None:
    """Re-sort, by (weight, position), each run of equal ``prefix`` that is out of order."""
    tie = np.flatnonzero(prefix[1:] == prefix[:-1])  # few, unless many weights are equal
    desc = tie[w[order[tie + 1]] < w[order[tie]]]
    if desc.size == 0:
        return
    runs = np.unique(prefix[desc])
    start = np.searchsorted(prefix, runs, side="left")
    length = np.searchsorted(prefix, runs, side="right") - start
    run = np.repeat(np.arange(runs.size), length)
    pos = np.arange(run.size) - np.repeat(np.cumsum(length) - length, length) + start[run]
    sub = order[pos]
    order[pos] = sub[np.lexsort((sub, w[sub], run))]
