"""The spanning forest of GPU ranks: the Borůvka rounds of :mod:`.msf_steps` as array
steps on each rank's device, its all-reduces over NCCL.

The rounds, the strict order (weight, min(u, v), max(u, v)) and the hooks are those of
:mod:`.msf_steps` (same forest, same labels); what differs is how a rank finds the
components of its edges' ends. The host loops walk a union-find forest with path halving,
edge by edge; here the forest is flattened after every round (pointer jumping until each
vertex points at its root), so that the components of all the edges' ends are two
gathers. A round, on the device:

1. ``a, b = uf[u], uf[v]``; the edges with ``a == b`` are dropped for good (one
   compaction, whose size is the round's host wait) and the others now join ``a`` to
   ``b``; an all-reduce of the counts over MPI ends the rounds when none is left;
2. the least order key of each root's leaving edges (an atomic scatter-min at the root's
   place in ``R``, the sorted roots that may still grow), all-reduced (MIN, NCCL); then
   the least name ``min * n + max`` among the edges of that key, all-reduced;
3. every rank hooks the same roots (:func:`.msf_steps._hook`) and flattens its copy of
   the forest.

A rank's edges go to its device once a call: ends as ids of :func:`~.graph.id_dtype`,
order keys and names int64 (24 bytes an edge at most, and as much again while a
round compacts them), the forest ``uf``, the places of ``R`` and the labels of ``n``
vertices. Names are int64 here, so ``n`` is at most :data:`MAX_N`.

:func:`array_boruvka` takes the array module and the exchanges as arguments: with numpy
and the hosts' MPI exchange it runs on CPU ranks too, which is how the tests without a
GPU check it against the host loops.
"""

from __future__ import annotations

import numpy as np

from lagraph_py.algorithms.msf import _order_key

from .graph import DistGraph, id_dtype
from .msf_steps import _hook, _weight_of

#: Largest vertex count: an edge is named ``min * n + max`` in int64.
MAX_N = 2**31
_NONE = np.iinfo(np.int64).max               # no edge, and the greatest order key


class GpuMsfSteps:
    """The fused ``spanning_forest`` of GPU ranks (device arrays of ``self.xp``, their
    exchange ``self.data``, the scatter-min ``self._least``, the memory check
    ``self._reserve``)."""

    def spanning_forest(self, G: DistGraph):
        self._reserve(device_bytes(G), "the ranks' spanning forest")
        return array_boruvka(G, self.xp, self.exchange, self.data, self._least)


def device_bytes(G: DistGraph) -> int:
    """Device memory one call of :meth:`GpuMsfSteps.spanning_forest` takes at most on this
    rank: its edges' ends, keys and names twice over (a round compacts them into new
    arrays), the row offsets, and the forest, places and labels of ``n`` vertices."""
    ids = id_dtype(G.n).itemsize
    m = G.indices.size
    return 2 * m * (2 * ids + 16) + 8 * m + 8 * (G.indptr.size) + G.n * (ids + 24)


def entries(xp, indptr, indices, lo: int, ids):
    """``(rows, cols)``: the stored entries of the CSR rows ``indptr, indices`` of a
    rank's range from ``lo`` as ``xp`` arrays of ``ids``, rows as global ids (found on
    the device by a search of the row offsets, not copied there)."""
    indptr = xp.asarray(indptr)
    cols = xp.asarray(indices).astype(ids, copy=False)
    rows = xp.searchsorted(indptr[1:], xp.arange(cols.size), side="right") + lo
    return rows.astype(ids), cols


def array_boruvka(G: DistGraph, xp, host, data, least):
    """``(src, dst, weight, component)`` as :meth:`Executor.spanning_forest` returns them
    (the whole forest on every rank, this rank's range of ``component``), as ``xp``
    arrays.

    ``host``: the ranks' :class:`~.exchange.Exchange` (the counts); ``data``: the
    exchange of ``xp`` arrays (``allreduce``, ``allgather``); ``least(out, at, values)``:
    the scatter-min of int64 ``values`` into ``out`` at ``at``."""
    n, ids = G.n, id_dtype(G.n)
    if n > MAX_N:
        raise ValueError(f"the GPU ranks' forest names edges in int64: at most {MAX_N} "
                         f"vertices, got {n}")
    u, v = entries(xp, G.indptr, G.indices, G.lo, ids)
    keep = u != v
    u, v = u[keep], v[keep]
    key = (_order_key(xp.asarray(G.weights)[keep]) if G.weighted
           else xp.ones(u.size, xp.int64))
    name = xp.minimum(u, v).astype(xp.int64) * n + xp.maximum(u, v)
    starts = xp.ones(u.size, bool)                         # (u ascends: rows in order)
    starts[1:] = u[1:] != u[:-1]
    (roots,), _ = data.allgather([u[starts]])              # vertices with an edge
    roots = roots.astype(xp.int64)
    uf = xp.arange(n, dtype=ids)
    place = xp.empty(n, xp.int64)                          # a root's place in R
    forest_name, forest_key = [], []
    while True:
        a, b = uf[u], uf[v]
        cross = a != b
        u, v, key, name = a[cross], b[cross], key[cross], name[cross]
        if not host.allreduce(np.array([u.size], np.int64), "sum")[0]:
            break
        place[roots] = xp.arange(roots.size)
        at = place[u]
        best_key = xp.full(roots.size, _NONE, xp.int64)
        least(best_key, at, key)
        best_key = data.allreduce(best_key, "min")
        lightest = key == best_key[at]
        best = xp.full(roots.size, _NONE, xp.int64)
        least(best, at[lightest], name[lightest])
        best = data.allreduce(best, "min")
        hooked, joins = _hook(xp, uf, roots, best, _NONE, lambda x: uf[x].astype(xp.int64))
        forest_name.append(best[joins])
        forest_key.append(best_key[joins])
        roots = roots[(best != _NONE) & ~hooked]
        _flatten(xp, uf)

    names = xp.concatenate(forest_name) if forest_name else xp.empty(0, xp.int64)
    keys = xp.concatenate(forest_key) if forest_key else xp.empty(0, xp.int64)
    if names.size:
        order = xp.lexsort(xp.stack([names, keys]))        # (key, then min, then max)
        names, keys = names[order], keys[order]
    weight = (_weight_of(keys, G.weights.dtype) if G.weighted
              else xp.ones(names.size, xp.int64))
    mine = uf[G.lo:G.hi].astype(xp.int64)                  # flat: each vertex's root
    smallest = xp.full(n, n, xp.int64)                     # each tree's smallest id
    least(smallest, mine, xp.arange(G.lo, G.hi, dtype=xp.int64))
    smallest = data.allreduce(smallest, "min")
    return names // n, names % n, weight, smallest[mine]


def _flatten(xp, uf) -> None:
    """Pointer jumping: ``uf = uf[uf]`` until every vertex points at its root."""
    while True:
        up = uf[uf]
        if bool((up == uf).all()):
            return
        uf[...] = up
