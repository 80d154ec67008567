"""The SCC group steps of the fused cpu executor: trimming and the final labelling as
compiled loops (numba), each linear in the size of the active subgraph.

:meth:`SccSteps.scc_trim` peels vertices with no active in- or out-neighbour off a queue
(Kahn's algorithm run from both ends), so a chain of length L costs L queue pops instead
of L/2 rounds over the active set. :meth:`SccSteps.scc_signatures` runs Tarjan's algorithm
on the subgraph induced by the active vertices and labels each component by its smallest
id. Both read the adjacency as the numpy CSR arrays the executor keeps for each matrix
(:func:`~lagraph_py.cpu.csr_arrays`) and the active set as its list of ids.

The first call in a fresh environment compiles the loops (about 7 s for both on a
2-core machine), then numba's disk cache serves them: about 0.5 s to load on the first
call of a new process, and every later call pays about 0.1 ms of fixed cost.
"""

from __future__ import annotations

import numpy as np
from graphblas import Vector
from numba import njit

from ..cpu import csr_arrays
from .union_find import flatten, union

_UNSEEN = -1        # Tarjan: an active vertex not visited yet
_INT32 = np.empty(0, np.int32)
_INT64 = np.empty(0, np.int64)


@njit(cache=True)
def _peel(indptr, indices, tindptr, tindices, ids, n):
    """Trim the subgraph induced by ``ids``: return ``(removed, kept)``, the ids without an
    active in- or out-neighbour once their removable neighbours are gone, and the rest
    (ascending)."""
    state = np.zeros(n, np.uint8)                   # 1: active, 2: removed or queued
    for v in ids:
        state[v] = 1
    indeg, outdeg = _active_degrees(indptr, indices, tindptr, tindices, ids, state)
    queue = np.empty(ids.size, np.int64)
    tail = 0
    for v in ids:
        if indeg[v] == 0 or outdeg[v] == 0:
            state[v] = 2
            queue[tail] = v
            tail += 1
    head = 0
    while head < tail:
        v = queue[head]
        head += 1
        tail = _release(indptr, indices, v, indeg, state, queue, tail)    # successors
        tail = _release(tindptr, tindices, v, outdeg, state, queue, tail)  # predecessors
    kept = np.empty(ids.size - tail, np.int64)
    k = 0
    for v in ids:
        if state[v] == 1:
            kept[k] = v
            k += 1
    return queue[:tail], kept


@njit(cache=True)
def _component_roots(indptr, indices, n):
    """For every vertex the smallest id of its connected component (``indices`` holds
    both directions of every edge, so one direction suffices)."""
    parent = np.arange(n)
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            if indices[e] < u:
                union(parent, u, indices[e])
    flatten(parent)
    return parent


@njit(cache=True)
def _release(indptr, indices, v, degree, state, queue, tail):
    """The neighbours of removed ``v`` along one direction lose one active neighbour; those
    left with none join the queue. Returns the new queue length."""
    for e in range(indptr[v], indptr[v + 1]):
        w = indices[e]
        if state[w] == 1:
            degree[w] -= 1
            if degree[w] == 0:
                state[w] = 2
                queue[tail] = w
                tail += 1
    return tail


@njit(cache=True)
def _active_degrees(indptr, indices, tindptr, tindices, ids, state):
    """Active in- and out-neighbours of each id (``state`` nonzero = active); the row
    lengths when every vertex is active (the matrices have no self-loops)."""
    n = state.size
    outdeg = np.zeros(n, np.int64)
    indeg = np.zeros(n, np.int64)
    if ids.size == n:
        for v in range(n):
            outdeg[v] = indptr[v + 1] - indptr[v]
            indeg[v] = tindptr[v + 1] - tindptr[v]
        return indeg, outdeg
    for k in range(ids.size):
        v = ids[k]
        for e in range(indptr[v], indptr[v + 1]):
            outdeg[v] += state[indices[e]] != 0
        for e in range(tindptr[v], tindptr[v + 1]):
            indeg[v] += state[tindices[e]] != 0
    return indeg, outdeg


@njit(cache=True)
def _smallest_id_components(indptr, indices, ids, n, like):
    """Tarjan's algorithm (iterative) on the subgraph induced by ``ids``; returns, aligned
    with ``ids``, the smallest id of each vertex's strongly connected component.

    ``order[v]`` is ``_UNSEEN`` for an active vertex not visited yet, its discovery index
    while it is open (on Tarjan's stack), and ``closed`` (the largest integer) once its
    component is known or when it is not active; then no ``order[w] < low[v]`` test can
    pick it. ``low[v]`` holds the low-link of an open vertex and the label of a closed
    one. The work arrays take the integer type of ``like`` (int32 while ids fit).
    """
    closed = np.iinfo(like.dtype).max
    order = np.full(n, closed, like.dtype)
    for v in ids:
        order[v] = _UNSEEN
    low = np.empty(n, like.dtype)
    stack = np.empty(ids.size, like.dtype)          # Tarjan's stack of open vertices
    path = np.empty(ids.size, like.dtype)           # depth-first path: vertex ...
    edge = np.empty(ids.size, indptr.dtype)         # ... and its next edge
    count = 0
    top = 0
    for root in ids:
        if order[root] != _UNSEEN:
            continue
        order[root] = low[root] = count
        count += 1
        stack[top] = root
        top += 1
        path[0], edge[0] = root, indptr[root]
        depth = 1
        while depth:
            v = path[depth - 1]
            e = edge[depth - 1]
            end = indptr[v + 1]
            low_v = low[v]
            child = -1
            while e < end:
                w = indices[e]
                e += 1
                if order[w] == _UNSEEN:
                    child = w
                    break
                low_v = min(low_v, order[w])
            low[v] = low_v
            if child >= 0:                               # descend into child
                edge[depth - 1] = e
                order[child] = low[child] = count
                count += 1
                stack[top] = child
                top += 1
                path[depth], edge[depth] = child, indptr[child]
                depth += 1
                continue
            depth -= 1                                   # v is finished
            if low_v == order[v]:                        # v roots a component: pop it
                first = top - 1
                smallest = v
                while stack[first] != v:
                    smallest = min(smallest, stack[first])
                    first -= 1
                for k in range(first, top):
                    order[stack[k]] = closed
                    low[stack[k]] = smallest
                top = first
            elif depth:                                  # (a root's low-link is no lower)
                u = path[depth - 1]
                low[u] = min(low[u], low_v)
    out = np.empty(ids.size, np.int64)
    for k in range(ids.size):
        out[k] = low[ids[k]]
    return out


class SccSteps:
    """SCC group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""

    def connected_components(self, A, n):
        """:meth:`~lagraph_py.executor.Executor.connected_components` by union-find.

        Joining the ends of every edge, the larger root under the smaller, leaves each
        component a tree whose root is its smallest id: the label FastSV converges to.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> ex = FusedCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1], [2, 4], n=5, directed=False)
        >>> ex.to_dense(ex.connected_components(ex.matrix(G), G.n), -1).tolist()
        [0, 1, 2, 2, 1]
        """
        return Vector.from_dense(_component_roots(*csr_arrays(A), n))

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
        ids = _active_ids(active)
        removed, kept = _peel(*csr_arrays(A), *csr_arrays(AT), ids, active.size)
        if removed.size:
            self.assign(label, Vector.from_coo(removed, removed, size=active.size))
        return Vector.from_coo(kept, kept, size=active.size)

    def scc_signatures(self, A, AT, active, label):
        """:meth:`~lagraph_py.executor.Executor.scc_signatures` by Tarjan's algorithm on the
        subgraph that ``active`` induces, in time linear in its size.

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
        ids = _active_ids(active)
        if not ids.size:
            return
        like = _INT32 if active.size < np.iinfo(np.int32).max else _INT64
        smallest = _smallest_id_components(*csr_arrays(A), ids, active.size, like)
        if ids.size == active.size:        # every vertex: label is empty; hand the array over
            label.ss.pack_full(smallest, take_ownership=True)
        else:
            self.assign(label, Vector.from_coo(ids, smallest, size=active.size))


def _active_ids(active: Vector) -> np.ndarray:
    """The ids present in ``active``, ascending, as int64."""
    if active.nvals == active.size:
        return np.arange(active.size, dtype=np.int64)
    return active.to_coo(values=False)[0].view(np.int64)
