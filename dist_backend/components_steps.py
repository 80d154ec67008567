"""Connected components over ranks: each rank's own forest, then rounds of minimum labels.

:meth:`~lagraph_py.executor.Executor.connected_components` is defined by FastSV in the
primitive steps; over ranks each of them is a collective, and a Kronecker 18 graph took
half a second on two ranks. Here:

1. each rank joins the ends of its own rows' edges in a union-find forest over all ``n``
   vertices (an edge's other end may be any rank's), once, and names each of its trees by
   its smallest vertex (``local``: the name of each vertex's tree; a vertex no local edge
   touches is its own);
2. every rank keeps the same ``label`` of each vertex, a vertex of its component no larger
   than itself, first its own id. A round: each rank takes, for each of its trees, the
   least label of its vertices, and gives it to every vertex of the tree and to the vertex
   each of them is labelled by (as FastSV hooks a tree's root); one all-reduce (MIN) over
   the ``n`` labels merges the ranks'; then every rank follows labels to their ends (one
   ascending pass: a label is no larger than its vertex, so its own is final already);
3. the rounds end when a round changes no label. Then the trees of every rank agree, and
   as they together hold every edge, each component has one label: its smallest vertex.

Labels only decrease and stay in their vertex's component, so the rounds end; in each the
hooks join what overlapping trees of different ranks hold, and the jumps halve chains, as
in FastSV. Each rank keeps five arrays of ``n`` vertex ids (4 or 8 bytes each).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .executor import DistMatrix, DistVector
from .graph import id_dtype
from .msf_steps import root_of


class ComponentsSteps:
    """The fused ``connected_components`` of the distributed executors (host arrays)."""

    def connected_components(self, A: DistMatrix, n: int) -> DistVector:
        ids = id_dtype(n)
        local = _local_trees(A.indptr, A.indices, A.lo, np.arange(n, dtype=ids))
        label = np.arange(n, dtype=ids)
        least = np.empty(n, ids)
        while True:
            offer = label.copy()
            _hook(local, label, least, offer)
            merged = self.exchange.allreduce(offer, "min")
            _jump(merged)
            if np.array_equal(merged, label):
                break
            label = merged
        mine = label[A.lo:A.lo + A.nlocal].astype(np.int64)
        return self._wrap(n, self.local.vector(A.nlocal, np.arange(A.nlocal), mine))


@njit(cache=True, nogil=True)
def _local_trees(indptr, indices, lo, tree):
    """The smallest vertex of the tree of each vertex in the union-find forest of the
    edges of rows ``lo, lo + 1, ...`` (``indptr``, ``indices``: global column ids), made
    in ``tree`` (every vertex its own at first) and returned."""
    for r in range(indptr.size - 1):
        for e in range(indptr[r], indptr[r + 1]):
            a, b = root_of(tree, lo + r), root_of(tree, indices[e])
            if a < b:
                tree[b] = a
            elif b < a:
                tree[a] = b
    for v in range(tree.size):
        tree[v] = tree[tree[v]]            # roots are smaller: one pass reaches them
    return tree


@njit(cache=True, nogil=True)
def _hook(local, label, least, offer):
    """Into ``offer`` (a copy of ``label``): the least label of each tree of ``local`` to
    its vertices and to the vertices they are labelled by. ``least``: scratch of ``n``."""
    n = local.size
    for v in range(n):
        least[v] = label[v]
    for v in range(n):
        t = local[v]
        if label[v] < least[t]:
            least[t] = label[v]
    for v in range(n):
        m = least[local[v]]
        if m < offer[v]:
            offer[v] = m
        if m < offer[label[v]]:
            offer[label[v]] = m


@njit(cache=True, nogil=True)
def _jump(label):
    """Follow labels to their ends, in place (each label is no larger than its vertex)."""
    for v in range(label.size):            # ascending: label[label[v]] is final already
        label[v] = label[label[v]]
