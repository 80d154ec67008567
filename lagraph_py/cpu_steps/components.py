"""The connected-components group step of the fused cpu executor: Afforest (Sutton,
Ben-Nun and Barak, IPDPS 2018) on the union-find of :mod:`.union_find`, in compiled loops
(numba), on every core for large graphs.

Four passes over the vertices, and a sample between the second and the third:

1. every vertex is a tree of its own;
2. *sampled links*: each vertex joins its first ``SAMPLED_NEIGHBOURS`` neighbours. This
   sparse subgraph already holds most of a giant component together;
3. the tree holding most of ``SAMPLES`` pseudo-random vertices is taken for the largest;
4. *the rest*: each vertex outside that tree joins every neighbour; one inside it skips its
   edges, since an edge to a vertex outside is joined from that vertex's side and an edge
   inside joins nothing. On a Kronecker graph that skips all but a few edges, on a grid
   all of them;
5. the root of each vertex, its component's smallest id, goes into the int64 labels.

A graph of fewer than ``SPARSE`` stored entries a vertex (road maps, grids) has little to
skip, and its sampled links would take most edges twice, once from each end: there the
second pass joins every edge once, from its larger end, which leaves nothing for the
fourth: on one thread the sample and the fourth pass are left out (a road map of 264k
vertices in 3.0 ms instead of 7.5 ms). A sparse graph of fewer than ``SEARCH_MAX`` vertices
needs no union-find at all: a breadth-first search from each vertex not labelled yet, in
id order, labels its component by that vertex, the smallest id in it.

The trees live in ``comp``, an unsigned array of the graph's index width (32 bits where
the CSR has them, else the labels' own memory). On graphs of ``PARALLEL_MIN`` vertices or
more each pass runs on every thread (``prange``), thread ``t`` taking blocks ``t``,
``t + threads``, ... of ``n / (BLOCKS_PER_THREAD threads)`` vertices. The second pass
there hooks roots by plain stores, and two threads hooking one root at once may lose one
link: harmless, since pass 4 (which runs on every graph here) joins *every* edge of a
vertex outside the largest tree, its sampled ones too, and the ends of an edge both inside
it are one tree already. Pass 4 hooks by compare-and-swap, so it loses nothing; it hooks
few roots, where a compare-and-swap in the second pass would cost twice the pass on a grid
(every vertex a hook, 4 ns more each).

The first call in a fresh environment compiles the loops for the graph's index width (about
10 s on a busy two-core machine), then numba's disk cache serves them (0.45 s to load in a
new process).
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from ..cpu import csr_arrays
from .host_vector import HostVector
from .union_find import root, union

#: Neighbours each vertex joins in the sampled pass (as GAP's Afforest). One leaves the
#: giant of a Kronecker graph in pieces (Kronecker 18: 21 ms instead of 6.2 ms, one
#: thread); three add work that the fourth pass would skip (Kronecker 18 and an 82k-vertex
#: social network 40-70% slower).
SAMPLED_NEIGHBOURS = 2
#: Vertices whose roots are sampled to find the largest tree. GAP takes 1024; 256 cost
#: 7 µs less on a 3k-vertex graph and still single out a giant (a tree of 5% of the
#: vertices gets 13 of them on average).
SAMPLES = 256
#: Graphs of fewer stored entries a vertex join every edge in one pass instead. Measured
#: on one thread, that pass over Afforest: 0.33-0.64 of the time on road maps (2.1-2.9
#: entries a vertex), 0.75 on grids (4), 1.0-1.2 on peer-to-peer graphs and meshes (4.7-6.6),
#: 1.2-5 on social, web, citation and Kronecker graphs (8 and more).
SPARSE = 4.5
#: Vertices from which the passes run on every thread. A pass costs 3-15 ns a vertex on
#: one thread; waking the others costs microseconds on an idle machine and milliseconds on a
#: busy one, where a region also waits for its slowest thread. On a 2-core machine shared
#: with other work, two threads took a web crawl of 326k vertices from 4.6 to 2.8 ms and a
#: road map of 264k from 3.0 to 2.3 ms at best, a social network of 82k from 0.37 to 0.25
#: ms while the other core was free but to 0.7 ms while it was not. Below 2^14 vertices
#: the thread start costs as much as it saves (a 3k-vertex road map 17 -> 24 µs, a 12k
#: co-author network 80 -> 77 µs); from there two threads took 20-50% off the corpus'
#: graphs of 23k-115k vertices (co-author 23k 520 -> 360 µs, peer-to-peer 26k and 63k,
#: citation 28k, email 37k, road map 115k), 2 cores, the other mostly free.
PARALLEL_MIN = 1 << 14
#: Sparse graphs (``SPARSE``) of fewer vertices are labelled by searches (module text), whose
#: queue then stays in the caches: one thread, a 3k-vertex road map 17.4 -> 11.2 µs, a 55 x
#: 55 road-like graph of 6.4k vertices 35.9 -> 23.7 µs, rome99 (3.4k) 19.2 -> 13.7 µs, a
#: 60 x 60 grid 21.5 -> 12.5 µs; at 10k vertices the two were even, at 32k the searches
#: took twice the union-find's time, at 264k (a road map) 1.6 times.
SEARCH_MAX = 1 << 13
#: Blocks of vertices per thread in a parallel pass, dealt out in turn: a few, to spread
#: work that gathers in some range of ids; not many, since every block boundary cuts trees
#: (a 1000 x 1000 grid in blocks of 4k vertices took 2-3x the time of one block, in blocks
#: of 64k 1.07x).
BLOCKS_PER_THREAD = 4

_START, _SAMPLED, _REST, _EVERY, _LABELS = range(5)
# The passes in order, in arrays: numba compiles a pass once for all of them (called with
# literal numbers, once for each).
_AFFOREST_PASSES = np.array([_START, _SAMPLED, _REST, _LABELS])
_SPARSE_PASSES = np.array([_START, _EVERY, _REST, _LABELS])
_SEED = np.uint64(0x9E3779B97F4A7C15)                    # of the xorshift sample
_ONE = np.uint64(1)


class ComponentSteps:
    """Connected components of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""

    def connected_components(self, A, n):
        """:meth:`~lagraph_py.executor.Executor.connected_components` by Afforest, or on a
        sparse graph one pass over every edge.

        Every union hangs the larger root under the smaller, so each component ends as
        one tree whose root is its smallest id: the label FastSV converges to.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> ex = FusedCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1], [2, 4], n=5, directed=False)
        >>> ex.to_dense(ex.connected_components(ex.matrix(G), G.n), -1).tolist()
        [0, 1, 2, 2, 1]
        """
        return HostVector.dense(smallest_id_labels(*csr_arrays(A, unsigned=True), n))


def smallest_id_labels(indptr, indices, n: int) -> np.ndarray:
    """The smallest vertex id of each vertex's connected component (int64), from the
    unsigned CSR arrays of a symmetric pattern with sorted rows; by searches on a small
    sparse graph (``SEARCH_MAX``), else on every thread from ``PARALLEL_MIN`` vertices."""
    labels = np.empty(n, np.int64)
    sparse = indices.size < SPARSE * n
    if n and n < SEARCH_MAX and sparse:
        _search_labels(indptr, indices, labels, np.empty(n, indices.dtype))
    elif n:
        comp = labels.view(np.uint64) if indices.itemsize == 8 else np.empty(n, np.uint32)
        threads = get_num_threads() if n >= PARALLEL_MIN else 1
        block = -(-n // (threads * BLOCKS_PER_THREAD))
        _components(indptr, indices, comp, labels, sparse, threads, np.uint64(block))
    return labels


@njit(cache=True)
def _search_labels(indptr, indices, labels, queue):
    """Each vertex's component labelled by the first of its vertices in id order, by a
    breadth-first search from it (``queue``: room for every vertex)."""
    labels[:] = -1
    for s in range(labels.size):
        if labels[s] >= 0:
            continue
        labels[s] = s
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            for e in range(indptr[u], indptr[u + _ONE]):
                v = indices[e]
                if labels[v] < 0:
                    labels[v] = s
                    queue[tail] = v
                    tail += 1


@njit(cache=True)
def _components(indptr, indices, comp, labels, sparse, threads, block):
    """The passes of the module text (the sparse graphs' ones if ``sparse``), on
    ``threads`` threads (blocks of ``block`` vertices)."""
    giant = np.uint64(comp.size)                     # (no root: before the sample)
    for step in _SPARSE_PASSES if sparse else _AFFOREST_PASSES:
        if step == _REST:
            if sparse and threads == 1:              # every edge joined already
                continue
            giant = np.uint64(_largest_tree(comp))
        if threads > 1:
            _parallel_pass(step, indptr, indices, comp, labels, giant, threads, block)
        else:
            _pass(step, indptr, indices, comp, labels, giant, np.uint64(0),
                  np.uint64(comp.size), False)


@njit(cache=True, parallel=True)
def _parallel_pass(step, indptr, indices, comp, labels, giant, threads, block):
    """Pass ``step`` on ``threads`` threads, each over every ``threads``-th block."""
    n = np.uint64(comp.size)
    blocks = (n + block - _ONE) // block
    for t in prange(threads):
        for b in range(np.uint64(t), blocks, np.uint64(threads)):
            _pass(step, indptr, indices, comp, labels, giant, b * block,
                  min(n, b * block + block), True)


@njit(cache=True)
def _pass(step, indptr, indices, comp, labels, giant, lo, hi, shared):
    """Pass ``step`` over the vertices ``lo .. hi - 1``; ``shared``: other threads work
    on ``comp`` at the same time."""
    if step == _START:
        for v in range(lo, hi):
            comp[v] = v
    elif step == _SAMPLED:                  # plain stores even when shared (module text)
        for u in range(lo, hi):
            first = indptr[u]
            for e in range(first, min(indptr[u + _ONE], first + SAMPLED_NEIGHBOURS)):
                union(comp, comp[u], comp[indices[e]])
    elif step == _REST:
        for u in range(lo, hi):
            r = root(comp, u)
            if r != giant:
                for e in range(indptr[u], indptr[u + _ONE]):
                    union(comp, r, comp[indices[e]], shared)
    elif step == _EVERY:                    # each edge once, from its larger end (rows
        for u in range(lo, hi):             # are sorted); plain stores, as _SAMPLED
            for e in range(indptr[u], indptr[u + _ONE]):
                w = indices[e]
                if w >= u:
                    break
                union(comp, comp[u], comp[w])
    else:
        for v in range(lo, hi):
            labels[v] = root(comp, v)


@njit(cache=True)
def _largest_tree(comp):
    """The root holding most of ``SAMPLES`` pseudo-random vertices (xorshift64)."""
    n = np.uint64(comp.size)
    roots = np.empty(SAMPLES, comp.dtype)
    x = _SEED
    for i in range(SAMPLES):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        roots[i] = root(comp, x % n)
    roots.sort()
    best, most, run = roots[0], 0, 0
    for i in range(SAMPLES):
        run = run + 1 if i and roots[i] == roots[i - 1] else 1
        if run > most:
            best, most = roots[i], run
    return best
