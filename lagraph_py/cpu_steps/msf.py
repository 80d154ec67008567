"""The MSF group step of the fused cpu executor: filter-Kruskal in compiled loops (numba).

:meth:`MsfSteps.spanning_forest` returns the forest of the Filter-Borůvka definition
(:func:`~lagraph_py.algorithms.msf.boruvka_forest`) by another exact method: Kruskal's
algorithm, which walks the edges in rank order (weight, min(u, v), max(u, v)) and takes
each edge that joins two trees. An edge whose endpoints are already joined by lighter edges
is never taken, so only edges that may still join two trees are sorted:

1. *Light pass.* One pass over the upper triangle of the CSR (each undirected edge once,
   in (u, v) order) marks each entry light, when its rank lies below a limit read off a
   sample (about ``LIGHT * n`` entries), or heavy; a second copies the light edges out.
   They are ranked (a stable sort by weight) and fed to Kruskal.
2. *Heavy pass.* One pass drops the heavy entries whose endpoints lie in one tree; a
   second copies the rest out, in (u, v) order.
3. Those are split into rank chunks of growing size
   (:meth:`~lagraph_py.algorithms.msf.Ranking.chunks`); each chunk is filtered again by
   the trees found so far, sorted (:meth:`~lagraph_py.algorithms.msf.Ranking.order`) and
   fed to Kruskal.

Small graphs skip the filter (one sort), and so do graphs of at most ``LIGHT * n / ALL_AT``
edges (road networks): there the filter would drop little. Their edge list, the upper
triangle in (u, v) order, is kept with the Graph (the one thing this step keeps: a form of
the graph, smaller than the Graph's own arrays), so that a later call starts at the sort.

The union-find hangs the larger root under the smaller, so a root is the smallest id of its
tree (the component label) and ``parent[v] <= v`` always; path halving keeps finds short.
The passes over the CSR run on every core (``prange``) on graphs of ``PARALLEL_MIN``
entries or more, on one below; the sorts are numpy's; Kruskal is sequential and reads the
endpoints of its edges in rank order from arrays gathered beforehand.

The first call in a fresh environment compiles the loops (about 5 s for the first weight
type, 3 s for each other of float, int and unweighted; then cached on disk by numba:
about 0.3 s to load in a new process).
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange, set_num_threads

from ..algorithms.msf import Ranking, stable_order
from ..graph import Graph, _frozen
from .csr import row_blocks
from .union_find import flatten, union

#: The light pass takes about ``LIGHT * n`` edges. Larger than ``FIRST_CHUNK``: on power-law
#: graphs many vertices are isolated and the first ``n / 4`` edges leave most of the
#: heavier ones joining two trees (Kronecker 20: 29% survive the filter, 11% after ``n``).
LIGHT = 1.0
#: When the light pass would take this share of the edges, it takes them all: one sort, no
#: filter (road networks: ``n`` edges are about 70% of them).
ALL_AT = 0.6
#: Up to this many stored entries every edge goes to the light pass.
SMALL = 1 << 15
#: Up to this many light edges are ranked by numpy's stable argsort (``_rank_order``).
ARGSORT_MAX = 1 << 13
#: The light pass's rank limit is drawn from a sample of about this many entries.
SAMPLE = 1 << 12
#: Below this many stored entries the passes run on one thread. They are bound by memory
#: traffic: on the 2-core development machine (shared with other jobs) two threads were
#: slower than one on every graph up to Kronecker 20 (31M entries: 0.54 s against 0.50 s),
#: and a parallel region waits for the slower thread when another process holds a core.
PARALLEL_MIN = 1 << 25
#: Row blocks per thread in the passes over the CSR (balance for skewed degrees).
BLOCKS_PER_THREAD = 8


class MsfSteps:
    """MSF group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""

    def spanning_forest(self, G: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray]:
        """The minimum spanning forest of the undirected graph ``G`` by filter-Kruskal:
        numpy arrays ``(src, dst, weight, component)``, as
        :meth:`~lagraph_py.executor.Executor.spanning_forest` defines them.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> G = lg.Graph.from_edges([0, 1, 0], [1, 2, 2], weight=[2.0, 1.0, 2.0],
        ...                         directed=False)
        >>> FusedCpuExecutor().spanning_forest(G)
        (array([1, 0]), array([2, 1]), array([1., 2.]), array([0, 0, 0]))
        """
        threads = get_num_threads()
        set_num_threads(1 if G.indices.size < PARALLEL_MIN else threads)
        try:
            return _filter_kruskal(G)
        finally:
            set_num_threads(threads)


def _filter_kruskal(G: Graph):
    """The three passes of the module text; returns the group step's four arrays."""
    n, indptr, indices, weights = G.n, G.indptr, G.indices, G.weights
    wtype = np.dtype(np.int64) if weights is None else weights.dtype
    parent = np.arange(n, dtype=indices.dtype)      # union-find: roots are smallest ids
    blocks = row_blocks(indptr, BLOCKS_PER_THREAD * get_num_threads())
    forest = _Forest(n, wtype)

    limit = _light_limit(G, LIGHT * n)
    if limit is None:                                 # every edge is light
        kind = None
        u, v, w = G._cached("cpu.upper_edges", lambda: tuple(map(_frozen, _copy_edges(
            G, blocks, None, _LIGHT_EDGE, _count_upper(indptr, indices, blocks), wtype))))
    else:
        kind = np.empty(indices.size, np.uint8)      # of each upper entry: _LIGHT_EDGE...
        counts = _classify(indptr, indices, weights, blocks, wtype.type(limit[0]), limit[1],
                           kind)
        u, v, w = _copy_edges(G, blocks, kind, _LIGHT_EDGE, counts, wtype)
    forest.kruskal(u, v, w, _rank_order(w), parent)
    if kind is not None and not forest.done():
        flatten(parent)
        counts = _drop_joined(indptr, indices, blocks, kind, parent)
        u, v, w = _copy_edges(G, blocks, kind, _HEAVY_EDGE, counts, wtype)
        if w.size:
            ranking = Ranking(w)
            for chunk in ranking.chunks(n):
                if forest.done():
                    break
                flatten(parent)
                chunk = _joining(chunk, u, v, parent)
                forest.kruskal(u, v, w, ranking.order(chunk), parent)
    flatten(parent)
    return (*forest.arrays(), parent.astype(np.int64))


def _rank_order(w):
    """Positions of ``w`` (edges in (u, v) order) in rank order: a stable argsort. numpy's
    own is twice as fast as :func:`~lagraph_py.algorithms.msf.stable_order` below
    ``ARGSORT_MAX`` values, slower above (0.05 against 0.10 ms for 4k values)."""
    return np.argsort(w, kind="stable") if w.size <= ARGSORT_MAX else stable_order(w)


class _Forest:
    """Forest edges found so far, in rank order, and how many more a forest can take."""

    def __init__(self, n, wtype):
        self.pieces, self.wtype, self.budget = [], wtype, max(n - 1, 0)

    def kruskal(self, u, v, w, ranked, parent):
        """Feed the edges ``ranked`` (positions into ``u``, ``v``, ``w``) to Kruskal."""
        if ranked.size == 0 or self.budget == 0:
            return
        su, sv, taken = _kruskal(u[ranked], v[ranked], ranked, parent, self.budget)
        self.budget -= taken.size
        self.pieces.append((su, sv, w[taken]))

    def done(self):
        """A forest of ``n - 1`` edges is a spanning tree: no edge can join two trees."""
        return self.budget == 0

    def arrays(self):
        """``(src, dst, weight)`` of every edge taken, in rank order."""
        if len(self.pieces) == 1:
            src, dst, weight = self.pieces[0]
        else:
            src, dst, weight = (np.concatenate([piece[i] for piece in self.pieces])
                                if self.pieces else np.empty(0, np.int64) for i in range(3))
        return (src.astype(np.int64, copy=False), dst.astype(np.int64, copy=False),
                weight.astype(self.wtype, copy=False))


def _light_limit(G, size):
    """``(weight, position)`` of an upper-triangle entry whose rank is about ``size``: the
    light pass takes the entries of smaller rank. None (every entry) when the graph is
    small or the light pass would take most edges."""
    nnz, weights = G.indices.size, G.weights
    if nnz <= SMALL or size >= ALL_AT * nnz / 2:      # about half the entries are upper
        return None
    pos = np.arange(0, nnz, max(1, nnz // SAMPLE), dtype=np.int64)    # in (u, v) order
    rows = np.searchsorted(G.indptr, pos, side="right") - 1
    pos = pos[rows < G.indices[pos]]                  # upper triangle only
    k = int(size * pos.size / (nnz / 2))
    if k >= pos.size:
        return None
    if weights is None:                               # rank order is (u, v) order
        return 1, int(pos[k])
    p = pos[stable_order(weights[pos])[k]]
    return weights[p], int(p)


# ---------------------------------------------------------------------- compiled loops
_JOINED, _LIGHT_EDGE, _HEAVY_EDGE = 0, 1, 2      # kinds of upper-triangle entries


@njit(cache=True, inline="always")
def _upper_start(indptr, indices, r):
    """First entry of row ``r`` with a column above ``r`` (columns sorted in a row)."""
    lo, hi = indptr[r], indptr[r + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] <= r:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def _prefix_sums(counts):
    """Block offsets from per-block counts (``counts[0] == 0``)."""
    for b in range(counts.size - 1):
        counts[b + 1] += counts[b]
    return counts


@njit(cache=True, parallel=True)
def _count_upper(indptr, indices, blocks):
    """Block offsets of every upper entry."""
    counts = np.zeros(blocks.size, np.int64)
    for b in prange(blocks.size - 1):
        upper = 0
        for r in range(blocks[b], blocks[b + 1]):
            upper += indptr[r + 1] - _upper_start(indptr, indices, r)
        counts[b + 1] = upper
    return _prefix_sums(counts)


@njit(cache=True, parallel=True)
def _classify(indptr, indices, weights, blocks, limit_w, limit_p, kind):
    """Mark each upper entry light (rank below ``(limit_w, limit_p)``) or heavy; return
    the light entries' block offsets."""
    counts = np.zeros(blocks.size, np.int64)
    for b in prange(blocks.size - 1):
        light = 0
        for r in range(blocks[b], blocks[b + 1]):
            for p in range(_upper_start(indptr, indices, r), indptr[r + 1]):
                w = 1 if weights is None else weights[p]
                below = w < limit_w or (w == limit_w and p < limit_p)
                kind[p] = _LIGHT_EDGE if below else _HEAVY_EDGE
                light += below
        counts[b + 1] = light
    return _prefix_sums(counts)


@njit(cache=True, parallel=True)
def _drop_joined(indptr, indices, blocks, kind, root):
    """Mark joined the heavy entries whose endpoints have one root; return the block
    offsets of the heavy entries left."""
    counts = np.zeros(blocks.size, np.int64)
    for b in prange(blocks.size - 1):
        left = 0
        for r in range(blocks[b], blocks[b + 1]):
            for p in range(_upper_start(indptr, indices, r), indptr[r + 1]):
                if kind[p] == _HEAVY_EDGE:
                    if root[r] == root[indices[p]]:
                        kind[p] = _JOINED
                    else:
                        left += 1
        counts[b + 1] = left
    return _prefix_sums(counts)


@njit(cache=True, parallel=True)
def _fill_edges(indptr, indices, weights, blocks, kind, want, offsets, u, v, w):
    """Copy the upper entries of kind ``want`` (every one if ``kind`` is None) to ``u``,
    ``v``, ``w`` (weight 1 when unweighted), block ``b`` from ``offsets[b]`` on."""
    for b in prange(blocks.size - 1):
        k = offsets[b]
        for r in range(blocks[b], blocks[b + 1]):
            for p in range(_upper_start(indptr, indices, r), indptr[r + 1]):
                if kind is None:
                    wanted = True
                else:
                    wanted = kind[p] == want
                if wanted:
                    u[k] = r
                    v[k] = indices[p]
                    if weights is None:
                        w[k] = 1
                    else:
                        w[k] = weights[p]
                    k += 1


def _copy_edges(G, blocks, kind, want, offsets, wtype):
    """Arrays ``(u, v, w)`` of the upper entries of kind ``want`` (all if ``kind`` is
    None), in (u, v) order."""
    m = offsets[-1]
    u, v, w = np.empty(m, G.indices.dtype), np.empty(m, G.indices.dtype), np.empty(m, wtype)
    _fill_edges(G.indptr, G.indices, G.weights, blocks, kind, np.uint8(want), offsets, u, v, w)
    return u, v, w


@njit(cache=True)
def _joining(chunk, u, v, root):
    """The edges of ``chunk`` whose endpoints have different roots, in ``chunk`` order."""
    out = np.empty_like(chunk)
    k = 0
    for e in chunk:
        if root[u[e]] != root[v[e]]:
            out[k] = e
            k += 1
    return out[:k]


@njit(cache=True)
def _kruskal(su, sv, ranked, parent, budget):
    """Kruskal over edges ``(su[i], sv[i])`` in rank order, edge ``ranked[i]``; return the
    endpoints and the edges taken (at most ``budget``): ``su`` and ``sv`` are compacted in
    place. The larger root goes under the smaller."""
    taken = np.empty(min(su.size, budget), ranked.dtype)
    count = 0
    for i in range(su.size):
        if count == budget:
            break
        if union(parent, su[i], sv[i]):
            su[count], sv[count], taken[count] = su[i], sv[i], ranked[i]
            count += 1
    return su[:count], sv[:count], taken[:count]
