"""The SCC group steps of the fused cpu executor: trimming and the final labelling as
compiled loops (numba), each linear in the size of the active subgraph.

:meth:`SccSteps.scc_trim` peels vertices with no active in- or out-neighbour off a queue
(Kahn's algorithm run from both ends), so a chain of length L costs L queue pops instead
of L/2 rounds over the active set. :meth:`SccSteps.scc_signatures` runs Pearce's variant of
Tarjan's algorithm (one number per vertex, as scipy's ``connected_components``) on the
subgraph induced by the active vertices and labels each component by its smallest id.
Both read the adjacency as the numpy CSR arrays the executor keeps for each matrix
(:func:`~lagraph_py.cpu.csr_arrays`), seen as unsigned, and the active set as its list of
ids; stack positions are unsigned too, so that numba indexes without a test for negative
indices.

The first call in a fresh environment compiles the loops (about 1 s for the labelling and
0.5 s for the trimming on a 2-core machine), then numba's disk cache serves them: about
0.2 s to load on the first call of a new process, and a whole ``lg.scc`` call on a tiny
graph costs about 15 µs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cpu import csr_arrays
from .host_vector import HostVector, held, holder

_ONE = np.uint64(1)                 # (unsigned arithmetic in the compiled loops)
_UINT32 = np.empty(0, np.uint32)
_UINT64 = np.empty(0, np.uint64)


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


@njit(cache=True)
def _smallest_id_components(indptr, indices, ids, n, like):
    """Pearce's variant of Tarjan's algorithm (iterative) on the subgraph induced by
    ``ids``; returns, aligned with ``ids``, the smallest id of each vertex's strongly
    connected component (int64).

    One number per vertex, ``rindex[v]``, of the unsigned type of ``like``: 0 for an active
    vertex not visited yet; while ``v`` is open its discovery index (from 1), lowered to
    the least index it reaches (so ``v`` roots a component when that is still its own);
    ``closed - label`` once its component is known, and ``closed`` when it is not
    active. Both exceed every discovery index (``2 n + 2 <= closed``), so no ``<`` test
    picks them. Stack positions and depths are unsigned, as are the CSR arrays: numba
    then indexes without a test for negative indices.
    """
    closed = np.iinfo(like.dtype).max
    if ids.size == n:
        rindex = np.zeros(n, like.dtype)
    else:
        rindex = np.full(n, closed, like.dtype)
        for v in ids:
            rindex[v] = 0
    stack = np.empty(ids.size, like.dtype)          # finished, component not known yet
    path = np.empty(ids.size, like.dtype)           # depth-first path: vertex, ...
    own = np.empty(ids.size, like.dtype)            # ... its discovery index ...
    edge = np.empty(ids.size, indptr.dtype)         # ... and its next edge
    count = 1
    top = np.uint64(0)
    for root in ids:
        if rindex[root] != 0:
            continue
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
                    child = w
                    break
                low = min(low, r)
            rindex[v] = low
            if child != v:                               # descend into child
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
    out = np.empty(ids.size, np.int64)
    for i in range(ids.size):
        out[i] = closed - rindex[ids[i]]
    return out


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
        like = _UINT32 if 2 * n + 2 <= np.iinfo(np.uint32).max else _UINT64
        smallest = _smallest_id_components(*csr_arrays(A, unsigned=True), ids, n, like)
        if ids.size == n:                  # every vertex: the labels are the whole vector
            with held(label) as (holder_of_label,):
                holder_of_label.set_full(smallest)
        else:
            self.assign(label, HostVector.sparse(n, ids.copy(), smallest))
