"""The SCC group steps of the fused cpu executor: strongly connected components in one
compiled call (numba), in time linear in the graph, and the text's trim and labelling
steps as compiled loops.

:meth:`SccSteps.strong_components`, which ``lg.scc`` runs, is Pearce's variant of Tarjan's
algorithm (one number per vertex, iterative, as scipy's ``connected_components``),
labelling each component by its smallest id. On a graph with hubs and many arcs per
vertex (:data:`SEARCH_DEGREE`) a forward-backward search from the largest hub first finds
the giant component: BFS levels whose pull levels stop at a vertex's first in-neighbour in
the frontier, so they read a fraction of the giant's arcs where Tarjan reads them all;
Tarjan then passes over the giant as finished. Both read the graph's own CSR arrays (and
its transpose's for the search), self-loops included: they change no reachability.

:meth:`SccSteps.scc_trim` peels vertices with no active in- or out-neighbour off a queue
(Kahn's algorithm run from both ends), and :meth:`SccSteps.scc_signatures` runs Tarjan's
algorithm on the subgraph the active vertices induce: the SCC text's group steps, for a
caller that runs the text on this executor (the gpu executor's host finish runs the same
loops). They read the matrices' CSR arrays (:func:`~lagraph_py.cpu.csr_arrays`) and the
active set as its list of ids.

Arrays are seen as unsigned, and work arrays and stack positions are unsigned too, so
that numba indexes without a test for negative indices. The first call in a fresh
environment compiles the loops (a few seconds on a 2-core machine), then numba's disk
cache serves them: about 0.2 s to load on the first call of a new process.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..algorithms.scc import has_hubs
from ..cpu import as_unsigned, csr_arrays
from .host_vector import HostVector, held, holder

#: The forward-backward search runs only on graphs with hubs (the text's rule,
#: :func:`~lagraph_py.algorithms.scc.has_hubs`) of at least this many stored entries per
#: vertex: there its pull levels skip most of the giant's arcs (thread time of the call,
#: against Tarjan alone: Kronecker 20 46 against 201 ms, Kronecker 18 9.4 against 26 ms,
#: soc-Slashdot0902 2.4 against 4.8 ms, Kronecker 13 0.09 against 0.17 ms; wiki-Vote,
#: whose pivot's component holds 18% of it, 0.11 against 0.10 ms). With fewer,
#: the search reads about as many arcs as Tarjan and costs its levels on top (R-MAT 16 at
#: 2 per vertex: 1.3 times Tarjan's time; at 4: 1.25 times; Kronecker 16 at 4: 1.1 times;
#: p2p-Gnutella31, 2.4: 1.4 times).
SEARCH_DEGREE = 5
#: Each of the two searches is given up once it has read more than 1/SEARCH_READS of the
#: arcs, and Tarjan labels the whole graph: on a citation graph or a web crawl the pivot
#: reaches much and its component is not giant, and the pull levels read the arcs of the
#: vertices found late again and again (the forward search alone would read 0.94 m arcs
#: on cit-HepTh, 1.8 m on cnr-2000; the searches that pay read 0.05 m (Kronecker) to 0.25 m
#: (soc-Slashdot0902, R-MAT 18) each). Given up, the search costs Tarjan's time 1.15
#: (cnr-2000) to 1.25 times (cit-HepTh); given up at a third it cost 1.3 to 1.45 times.
SEARCH_READS = 4
#: A search pulls once the frontier's out-arcs exceed 1/PULL_ARCS of the in-arcs of the
#: vertices still unvisited (arcs both searches read, over the arcs: Kronecker 18 0.09,
#: soc-Slashdot0902 0.41, cit-HepTh 1.42; with 14, Beamer's value, 0.09, 0.71, 4.65; with
#: the text's rule in vertices, 1/14 of those unvisited, 0.69, 0.41, 3.41) ...
PULL_ARCS = 4
#: ... and pushes again once a shrinking frontier holds fewer than 1/PUSH_VERTICES of the
#: vertices it searches among (the text's BETA).
PUSH_VERTICES = 24

_ONE = np.uint64(1)                 # (unsigned arithmetic in the compiled loops)
_UINT32 = np.empty(0, np.uint32)
_UINT64 = np.empty(0, np.uint64)
_UINT32_VERTICES = (np.iinfo(np.uint32).max - 2) // 2     # most with 32-bit work arrays
_FW, _BW, _FRONT = np.uint8(1), np.uint8(2), np.uint8(4)    # bits of a search's state
_NO_STOP = np.zeros(1, np.uint32)          # a stop word never set
#: :func:`_pearce` reads its stop word once every this many vertices it enters (and at
#: each root): a called-off labelling stops within a fraction of a millisecond.
_STOP_EVERY = 1 << 12


@njit(cache=True)
def _peel(indptr, indices, tindptr, tindices, ids, n):
    """Trim the subgraph induced by ``ids``: return ``(removed, kept)``, the ids without an
    active in- or out-neighbour once their removable neighbours are gone (ascending), and
    the rest (ascending), as uint64. The queue positions are unsigned (no test for
    negative indices)."""
    state = np.zeros(n, np.uint8)                   # 1: active, 2: removed or queued
    for v in ids:
        state[v] = 1
    indeg, outdeg = _active_degrees(indptr, indices, tindptr, tindices, ids, state)
    queue = np.empty(ids.size, np.uint64)
    tail = np.uint64(0)
    for v in ids:
        if indeg[v] == 0 or outdeg[v] == 0:
            state[v] = 2
            queue[tail] = v
            tail += _ONE
    head = np.uint64(0)
    while head < tail:
        v = queue[head]
        head += _ONE
        tail = _release(indptr, indices, v, indeg, state, queue, tail)    # successors
        tail = _release(tindptr, tindices, v, outdeg, state, queue, tail)  # predecessors
    kept = np.empty(np.uint64(ids.size) - tail, np.uint64)
    k = np.uint64(0)
    for v in ids:
        if state[v] == 1:
            kept[k] = v
            k += _ONE
    removed = queue[:tail].copy()
    removed.sort()
    return removed, kept


@njit(cache=True)
def _release(indptr, indices, v, degree, state, queue, tail):
    """The neighbours of removed ``v`` along one direction lose one active neighbour; those
    left with none join the queue. Returns the new queue length."""
    for e in range(indptr[v], indptr[v + _ONE]):
        w = indices[e]
        if state[w] == 1:
            degree[w] -= 1
            if degree[w] == 0:
                state[w] = 2
                queue[tail] = w
                tail += _ONE
    return tail


@njit(cache=True)
def _active_degrees(indptr, indices, tindptr, tindices, ids, state):
    """Active in- and out-neighbours of each id (``state`` nonzero = active); the row
    lengths when every vertex is active (the matrices have no self-loops)."""
    n = state.size
    outdeg = np.zeros(n, np.int64)
    indeg = np.zeros(n, np.int64)
    if ids.size == n:
        for v in range(np.uint64(n)):
            outdeg[v] = indptr[v + _ONE] - indptr[v]
            indeg[v] = tindptr[v + _ONE] - tindptr[v]
        return indeg, outdeg
    for v in ids:
        for e in range(indptr[v], indptr[v + _ONE]):
            outdeg[v] += state[indices[e]] != 0
        for e in range(tindptr[v], tindptr[v + _ONE]):
            indeg[v] += state[tindices[e]] != 0
    return indeg, outdeg


def _work_type(n: int) -> np.ndarray:
    """An empty array of the unsigned type of Pearce's work arrays for ``n`` vertices."""
    return _UINT32 if n <= _UINT32_VERTICES else _UINT64


def pearce_work(indptr: np.ndarray) -> tuple[np.ndarray, ...]:
    """The work arrays of :func:`strong_components_until` on a CSR with the row pointers
    ``indptr``, allocated by the calling thread: a thread's first touch of memory freshly
    mapped for it costs a page fault (a worker thread labelling 1M vertices took 3,800 a
    call, the main thread none, reusing what its earlier calls freed)."""
    n = indptr.size - 1
    return _work(n, _work_type(n), as_unsigned(indptr)[0], n)


@njit(cache=True)
def _work(n, like, indptr, nlabels):
    """Work arrays for ``n`` vertices: Pearce's ``rindex`` and ``nlabels`` labels
    (int64), then :func:`_pearce`'s stack, path and discovery indices (of the unsigned
    type of ``like``) and next edges (of the type of ``indptr``)."""
    return (np.empty(n, like.dtype), np.empty(nlabels, np.int64), np.empty(n, like.dtype),
            np.empty(n, like.dtype), np.empty(n, like.dtype), np.empty(n, indptr.dtype))


def smallest_id_components(indptr: np.ndarray, indices: np.ndarray, ids: np.ndarray,
                           n: int) -> np.ndarray:
    """The strongly connected components of the subgraph that the vertices ``ids``
    (ascending, a union of whole components) induce in the CSR ``indptr, indices`` of
    ``n`` vertices (int32 or int64; arcs may repeat): aligned with ``ids``, the smallest
    id of each one's component, by Pearce's variant of Tarjan's algorithm.

    Examples
    --------
    >>> ptr, nbr = np.array([0, 1, 2, 3, 3]), np.array([1, 0, 3])      # 0 <-> 1, 2 -> 3
    >>> smallest_id_components(ptr, nbr, np.arange(4), 4).tolist()
    [0, 0, 2, 3]
    """
    return _smallest_id_components(*as_unsigned(indptr, indices), ids, n, _work_type(n))


@njit(cache=True)
def _smallest_id_components(indptr, indices, ids, n, like):
    """:func:`_pearce` on the subgraph induced by ``ids`` (a union of whole components of
    the ``n`` vertices): aligned with ``ids``, the smallest id of each one's component
    (int64). The work arrays are of the unsigned type of ``like``."""
    closed = np.iinfo(like.dtype).max
    work = _work(n, like, indptr, 0)                # (no labels array: ``out`` below)
    rindex = work[0]
    rindex[:] = closed
    for v in ids:
        rindex[v] = 0
    _pearce(indptr, indices, closed, _NO_STOP, work)
    out = np.empty(ids.size, np.int64)
    for i in range(ids.size):
        out[i] = closed - rindex[ids[i]]
    return out


@njit(cache=True)
def _pearce(indptr, indices, closed, stop, work):
    """Pearce's variant of Tarjan's algorithm (iterative) on the vertices with
    ``rindex == 0``; leaves ``rindex[v] = closed - label`` for each, ``label`` the smallest
    id of its component. Returns False, with ``rindex`` partial, where it found ``stop[0]``
    set (read once every :data:`_STOP_EVERY` vertices it enters), else True. ``work``:
    the arrays of :func:`_work`, ``rindex`` first.

    One number per vertex, ``rindex[v]``: 0 for a vertex not visited yet; while ``v`` is
    open its discovery index (from 1), lowered to the least index it reaches (so ``v``
    roots a component when that is still its own); ``closed - label`` once its component
    is known (set beforehand for vertices to pass over). That exceeds every discovery
    index (``2 n + 2 <= closed``), so no ``<`` test picks it.
    """
    rindex = work[0]
    n = rindex.size
    stack = work[2]                             # finished, component not known yet
    path = work[3]                              # depth-first path: vertex, ...
    own = work[4]                               # ... its discovery index ...
    edge = work[5]                              # ... and its next edge
    count = 1
    top = np.uint64(0)
    for root in range(n):
        if rindex[root] != 0:
            continue
        if stop[0]:
            return False
        rindex[root] = own[0] = count
        count += 1
        path[0], edge[0] = root, indptr[root]
        depth = _ONE
        while depth:
            d = depth - _ONE
            v = path[d]
            e = edge[d]
            end = indptr[v + _ONE]
            low = rindex[v]
            child = v                                    # (v: none; v is no child of v)
            while e < end:
                w = indices[e]
                e += _ONE
                r = rindex[w]
                if r == 0:
                    if indptr[w] == indptr[w + _ONE]:        # a sink: its own component
                        rindex[w] = closed - w
                        continue
                    child = w
                    break
                low = min(low, r)
            rindex[v] = low
            if child != v:                               # descend into child
                if count % _STOP_EVERY == 0 and stop[0]:
                    return False
                edge[d] = e
                rindex[child] = own[depth] = count
                count += 1
                path[depth], edge[depth] = child, indptr[child]
                depth += _ONE
                continue
            depth = d                                    # v is finished
            if low == own[d]:                            # v roots a component: pop it
                first = top
                smallest = v
                while first and rindex[stack[first - _ONE]] >= low:
                    first -= _ONE
                    smallest = min(smallest, stack[first])
                rindex[v] = closed - smallest
                for i in range(first, top):
                    rindex[stack[i]] = closed - smallest
                top = first
            else:
                stack[top] = v
                top += _ONE
                if depth:                                # (a root's index is no lower)
                    u = path[depth - _ONE]
                    rindex[u] = min(rindex[u], low)
    return True


@njit(cache=True, nogil=True)
def _strong_components(indptr, indices, tindptr, tindices, search, work, budget, alpha,
                       beta, stop):
    """For every vertex the smallest id of its strongly connected component (int64: the
    labels array of ``work``), or an empty array where :func:`_pearce` found ``stop[0]``
    set.

    With ``search`` the component of the pivot is found first (:func:`_label_giant`;
    ``tindptr, tindices`` the transpose), then :func:`_pearce` labels the rest. ``work``:
    the arrays of :func:`_work` for the graph. Runs without the GIL.
    """
    rindex, labels = work[0], work[1]
    n = rindex.size
    closed = np.iinfo(rindex.dtype).max
    rindex[:] = 0
    if search:
        _label_giant(indptr, indices, tindptr, tindices, rindex, closed, np.uint64(budget),
                     np.uint64(alpha), np.uint64(beta))
    if not _pearce(indptr, indices, closed, stop, work):
        return np.empty(0, np.int64)
    for v in range(n):
        labels[v] = closed - rindex[v]
    return labels


@njit(cache=True)
def _label_giant(indptr, indices, tindptr, tindices, rindex, closed, budget, alpha, beta):
    """Mark the component of the pivot (largest in-degree x out-degree, smallest id on a
    tie) finished in ``rindex``: everything the pivot reaches (forward), then what of that
    reaches the pivot (backward, confined to the forward set). A search that reads more
    than ``budget`` arcs is given up, and nothing is marked."""
    n = rindex.size
    pivot, best = np.uint64(0), np.uint64(0)
    for v in range(np.uint64(n)):
        score = np.uint64(indptr[v + _ONE] - indptr[v]) * (tindptr[v + _ONE] - tindptr[v])
        if score > best:
            pivot, best = v, score
    state = np.zeros(n, np.uint8)
    queue = np.empty(n, rindex.dtype)
    cand = np.empty(n, rindex.dtype)
    forward, out_arcs, reads = _reach(indptr, indices, tindptr, tindices, pivot, state,
                                      np.uint8(0), _FW, np.uint64(n), np.uint64(indptr[n]),
                                      queue, cand, budget, alpha, beta)
    if reads > budget:
        return
    size, _, reads = _reach(tindptr, tindices, indptr, indices, pivot, state, _FW, _BW,
                            forward, out_arcs, queue, cand, budget, alpha, beta)
    if reads > budget:
        return
    smallest = queue[0]
    for i in range(size):
        smallest = min(smallest, queue[i])
    for i in range(size):
        rindex[queue[i]] = closed - smallest


@njit(cache=True)
def _reach(indptr, indices, tindptr, tindices, source, state, within, bit, region,
           region_in, queue, cand, budget, alpha, beta):
    """Set ``bit`` in ``state`` for every vertex that ``source`` reaches along the CSR
    ``indptr, indices`` through vertices with the bits ``within`` (``region`` of them,
    with ``region_in`` in-arcs in all). Returns ``(reached, out_arcs, reads)``: how many
    (``queue`` holds them from 0, in BFS order), their out-arcs, and the arcs read; it
    stops as soon as ``reads`` exceeds ``budget``, leaving ``state`` and ``queue`` partial.

    BFS levels. Push over the frontier's out-arcs until they outnumber, ``alpha`` times
    over, the in-arcs of the vertices still unvisited (the rule of Beamer et al.); then
    pull, where each unvisited vertex with an in-neighbour (``cand``, a list that shrinks
    level by level) scans its in-neighbours (the transpose ``tindptr, tindices``) up to the
    first one in the frontier (marked by ``_FRONT``), until a shrinking frontier holds
    fewer than ``region / beta`` vertices.
    """
    seen = within | bit
    state[source] |= bit
    queue[0] = source
    head, tail = np.uint64(0), _ONE
    frontier_out = np.uint64(indptr[source + _ONE] - indptr[source])
    out_arcs = frontier_out
    unvisited_in = region_in - (tindptr[source + _ONE] - tindptr[source])
    reads = np.uint64(0)
    ncand = np.uint64(0)
    pull = listed = False
    while head < tail:
        nq = tail - head
        if not pull and frontier_out * alpha > unvisited_in:
            pull = True
            if not listed:                               # the first pull: list the rest
                listed = True
                for v in range(np.uint64(state.size)):
                    if (state[v] & seen) == within and tindptr[v] < tindptr[v + _ONE]:
                        cand[ncand] = v
                        ncand += _ONE
            for i in range(head, tail):
                state[queue[i]] |= _FRONT
        end = tail
        if pull:
            kept = np.uint64(0)
            for i in range(ncand):
                v = cand[i]
                if state[v] & bit:                       # (visited by a push level)
                    continue
                e, stop = tindptr[v], tindptr[v + _ONE]
                while e < stop and not state[tindices[e]] & _FRONT:
                    e += _ONE
                if e < stop:
                    queue[tail] = v
                    tail += _ONE
                    e += _ONE
                else:
                    cand[kept] = v
                    kept += _ONE
                reads += e - tindptr[v]
                if reads > budget:
                    return tail, out_arcs, reads
            ncand = kept
            for i in range(head, end):
                state[queue[i]] ^= _FRONT
            for i in range(end, tail):
                state[queue[i]] |= bit | _FRONT
        else:
            reads += frontier_out
            if reads > budget:
                return tail, out_arcs, reads
            for i in range(head, end):
                for e in range(indptr[queue[i]], indptr[queue[i] + _ONE]):
                    w = indices[e]
                    if (state[w] & seen) == within:
                        state[w] |= bit
                        queue[tail] = w
                        tail += _ONE
        head = end
        frontier_out = np.uint64(0)
        for i in range(head, tail):
            v = queue[i]
            frontier_out += indptr[v + _ONE] - indptr[v]
            unvisited_in -= tindptr[v + _ONE] - tindptr[v]
        out_arcs += frontier_out
        if pull and tail - head <= nq and (tail - head) * beta < region:
            pull = False
            for i in range(head, tail):
                state[queue[i]] ^= _FRONT
    return tail, out_arcs, reads


def _csr(G) -> tuple[np.ndarray, np.ndarray]:
    """The unsigned views of ``G``'s own CSR arrays (kept with it)."""
    return G._cached("cpu.csr.unsigned", lambda: as_unsigned(G.indptr, G.indices))


def _search_pays(G) -> bool:
    """Whether the forward-backward search runs on ``G`` (see :data:`SEARCH_DEGREE`;
    cached with ``G``: the degrees' maxima are a pass over the vertices, which the memory
    estimate before each call would repeat)."""
    return G._cached("cpu.scc.search",
                     lambda: G.nstored >= SEARCH_DEGREE * G.n and has_hubs(G))


class SccSteps:
    """SCC group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""

    def scc_trim(self, A, AT, active, label):
        """:meth:`~lagraph_py.executor.Executor.scc_trim` by one queue pass.

        A vertex is peeled when its count of active in- or out-neighbours reaches zero,
        which is exactly when a round of the definition would remove it, so both remove
        the same set; each removed vertex is labelled by its own id.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> ex = FusedCpuExecutor()
        >>> G = lg.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 3])      # 0 <-> 1 -> 2 -> 3
        >>> A, AT = ex.matrix(G, loops=False), ex.matrix(G, transpose=True, loops=False)
        >>> none = np.empty(0, dtype=np.int64)
        >>> label = ex.vector(4, none, none)
        >>> ex.to_coo(ex.scc_trim(A, AT, ex.iota(4), label))[0].tolist()
        [0, 1]
        >>> ex.to_dense(label, -1).tolist()
        [-1, -1, 2, 3]
        """
        n = active.size
        removed, kept = _peel(*csr_arrays(A, unsigned=True), *csr_arrays(AT, unsigned=True),
                              holder(active).indices(), n)
        if removed.size:
            self.assign(label, HostVector.sparse(n, removed, removed.astype(np.int64)))
        return HostVector.sparse(n, kept, kept.astype(np.int64))

    def scc_signatures(self, A, AT, active, label):
        """:meth:`~lagraph_py.executor.Executor.scc_signatures` by Pearce's variant of
        Tarjan's algorithm on the subgraph that ``active`` induces, in time linear in its
        size.

        ``active`` is a union of whole components, so the components of that subgraph are
        those of the graph, and each is labelled by its smallest id: the labels that the
        signature rounds of the definition reach.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> ex = FusedCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1, 2, 0], [1, 3, 0, 2])      # 1 <-> 3, 0 <-> 2
        >>> A, AT = ex.matrix(G, loops=False), ex.matrix(G, transpose=True, loops=False)
        >>> none = np.empty(0, dtype=np.int64)
        >>> label = ex.vector(4, none, none)
        >>> ex.scc_signatures(A, AT, ex.iota(4), label)
        >>> ex.to_dense(label, -1).tolist()
        [0, 1, 0, 1]
        """
        n = active.size
        ids = holder(active).indices()
        if not ids.size:
            return
        smallest = smallest_id_components(*csr_arrays(A), ids, n)
        if ids.size == n:                  # every vertex: the labels are the whole vector
            with held(label) as (holder_of_label,):
                holder_of_label.set_full(smallest)
        else:
            self.assign(label, HostVector.sparse(n, ids.copy(), smallest))

    def strong_components(self, G):
        """:meth:`~lagraph_py.executor.Executor.strong_components` in one compiled call:
        Pearce's variant of Tarjan's algorithm, after a forward-backward search for the
        giant component where that pays (:data:`SEARCH_DEGREE`).

        Both label each component by its smallest id, the labels the definition reaches.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> ex = FusedCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1, 2, 0, 4], [1, 3, 0, 2, 4])    # 1 <-> 3, 0 <-> 2
        >>> ex.to_dense(ex.strong_components(G), -1).tolist()
        [0, 1, 0, 1, 4]
        """
        search = _search_pays(G)
        return HostVector.dense(_strong_components(
            *_csr(G), *_csr(G.transpose() if search else G), search, pearce_work(G.indptr),
            G.nstored // SEARCH_READS, PULL_ARCS, PUSH_VERTICES, _NO_STOP))


def strong_components_until(indptr: np.ndarray, indices: np.ndarray, stop: np.ndarray,
                            work: tuple | None = None) -> np.ndarray | None:
    """The strongly connected components of the CSR ``indptr, indices`` (int32 or int64):
    for every vertex the smallest id of its component (int64), by Pearce's variant of
    Tarjan's algorithm without the GIL, or None where another thread set ``stop[0]`` (a
    uint32 word, read every :data:`_STOP_EVERY` vertices) before it finished. ``work``:
    the arrays of :func:`pearce_work` (the labels are written into them), made here if
    not given.

    Examples
    --------
    >>> ptr, nbr = np.array([0, 1, 2, 3, 3]), np.array([1, 0, 3])      # 0 <-> 1, 2 -> 3
    >>> strong_components_until(ptr, nbr, np.zeros(1, np.uint32)).tolist()
    [0, 0, 2, 3]
    >>> strong_components_until(ptr, nbr, np.ones(1, np.uint32)) is None
    True
    """
    work = pearce_work(indptr) if work is None else work
    indptr, indices = as_unsigned(indptr, indices)
    labels = _strong_components(indptr, indices, indptr, indices, False, work, 0, 0, 0,
                                stop)
    return labels if labels.size or indptr.size == 1 else None
