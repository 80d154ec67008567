"""Strongly connected components over ranks: the trim and the signature rounds, fused.

:meth:`~lagraph_py.executor.Executor.scc_signatures` is defined by the signature rounds of
:mod:`lagraph_py.algorithms.scc` in the primitive steps; over ranks every step of every
propagation is a collective, and a Kronecker 18 graph took seconds on two ranks. Here
every rank keeps, for all ``n`` vertices, whether each is still being labelled (``live``),
the signatures of the round, ``fw`` (the smallest live id found to reach the vertex) and
``bw`` (the smallest found reachable from it), and the class of the round before (the
signatures it ended with: two vertices can share a component only where they agree). A
round:

1. ``fw`` and ``bw`` start at each live vertex's own id; each rank lists the arcs it holds
   (its rows' out-arcs and in-arcs) that join two live vertices of one class, by tail and
   by head;
2. a sweep: each rank gives every vertex the least ``fw`` of the vertices that reach it
   along its arcs, and the least ``bw`` of those it reaches, exactly (searches from the
   vertices in increasing order of the value, each claiming what no earlier one reached);
   then one all-reduce (MIN) merges the ranks' ``fw`` and ``bw``, unless no rank lowered
   anything (a small all-reduce says so): the fixed point, where ``fw(v)`` is the smallest
   live id reaching ``v`` within its class, and ``bw(v)`` the smallest it reaches;
3. a vertex with ``fw == bw`` is in the component of that id, which is its smallest: its
   label. Every rank holds the same arrays, so all take the same vertices out, and the
   signatures become the classes of the next round, until no vertex is live.

Each round finishes at least the component of its class's smallest id, as the primitive
text's rounds do, so the labels are the same. Each rank keeps four arrays of ``n`` vertex
ids, two of ``n + 1`` row pointers and a few of ``n`` scratch, and its arcs twice.

A chain of components needs about a round each (a chain of 100 cycles of 100 vertices:
1.1-1.5 s on two ranks of a 2-core machine, its single-process labelling 0.5 ms), so a
round whose arcs are few hands them over: where the live arcs within classes number, over
all ranks, at most as many as a rank holds on average (its rows' out- and in-arcs: the
gathered arcs take no more memory than each rank's part of the graph) or 2^21
(``scc_handover_arcs`` sets another limit), every rank gathers them (each from the rank
that holds its tail) and labels the live vertices itself, by the compiled Pearce-Tarjan
search of the cpu executor on that subgraph (its components are the graph's: a component
lies within one class), each component by its smallest id. The chain then takes 2-3 ms,
directed Kronecker 18 0.15-0.26 s against 0.48-0.58 s in rounds alone (the single
process: 16-33 ms).

The trim before (``scc_trim``) peels, level by level, the active vertices without an
active in- or out-neighbour (each a component of its own): every rank tests its own
vertices on the out- and in-arcs of its rows, and one all-reduce of ``n`` flags a level
takes out what all ranks peeled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from lagraph_py.cpu_steps.csr import rows_of
from lagraph_py.cpu_steps.scc import smallest_id_components

from .executor import DistMatrix, DistVector
from .graph import id_dtype


class SccSteps:
    """The fused ``scc_trim`` and ``scc_signatures`` of the distributed executors (host
    arrays)."""

    #: A signature round hands its arcs to every rank, which labels the rest itself (see
    #: the module docstring), where the live arcs within classes number at most this over
    #: all ranks; None: as many as a rank holds on average, or 2^21 (16 or 32 MB on each
    #: rank) if that is more; -1: never.
    scc_handover_arcs: int | None = None

    def _live(self, active: DistVector, n: int) -> np.ndarray:
        """Every rank's ``active`` vertices, as ``n`` flags (one all-reduce)."""
        flags = np.zeros(n, np.uint8)
        flags[self._host(self.to_coo(active)[0])] = 1
        return self.exchange.allreduce(flags, "max")

    def _handover_limit(self, A: DistMatrix, AT: DistMatrix) -> int:
        """The most live arcs within classes, over all ranks, that a round hands over
        (``scc_handover_arcs``, or its default; collective)."""
        if self.scc_handover_arcs is not None:
            return self.scc_handover_arcs
        held = np.array([A.indices.size + AT.indices.size], np.int64)
        return max(1 << 21, int(self.exchange.allreduce(held, "sum")[0]) // self.exchange.size)

    def scc_trim(self, A: DistMatrix, AT: DistMatrix, active: DistVector,
                 label: DistVector) -> DistVector:
        """Peel the active vertices without an active in- or out-neighbour, level by
        level: each rank tests its own vertices on its rows' out- and in-arcs, and one
        all-reduce of ``n`` flags a level takes out what every rank peeled."""
        n = A.n
        live = self._live(active, n)
        peeled = []
        while True:
            dead = _peel(A.lo, A.indptr, A.indices, AT.indptr, AT.indices, live)
            if not self.exchange.allreduce(np.array([dead.size], np.int64), "sum")[0]:
                break
            flags = np.zeros(n, np.uint8)
            flags[dead] = 1
            live &= 1 - self.exchange.allreduce(flags, "max")
            peeled.append(dead)
        idx = np.concatenate(peeled) if peeled else np.empty(0, np.int64)
        self.assign(label, self.vector(n, idx, idx))
        left = A.lo + np.flatnonzero(live[A.lo:A.lo + A.nlocal])
        return self.vector(n, left, left)

    def scc_signatures(self, A: DistMatrix, AT: DistMatrix, active: DistVector,
                       label: DistVector) -> None:
        n, ids = A.n, id_dtype(A.n)
        live = self._live(active, n)
        fw, bw = np.zeros(n, ids), np.zeros(n, ids)
        cfw, cbw = np.zeros(n, ids), np.zeros(n, ids)      # one class: every live vertex
        done_ids, done_labels = [], []
        seen, stack = np.empty(n, np.uint8), np.empty(n, np.int64)
        limit = self._handover_limit(A, AT)
        while _restart(live, fw, bw):
            tails, heads = _class_arcs(A.lo, A.indptr, A.indices, live, cfw, cbw)
            alive = np.flatnonzero(live).astype(ids)
            total = self.exchange.allreduce(np.array([tails.size], np.int64), "sum")[0]
            if total <= limit:
                (tails, heads), _ = self.exchange.allgather([tails, heads])
                labels = smallest_id_components(*rows_of(n, tails, heads), alive, n)
                own = (A.lo <= alive) & (alive < A.lo + A.nlocal)
                done_ids.append(alive[own].astype(np.int64))
                done_labels.append(labels[own])
                break
            heads_in, tails_in = _class_arcs(A.lo, AT.indptr, AT.indices, live, cfw, cbw)
            tails, heads = np.concatenate((tails, tails_in)), np.concatenate((heads, heads_in))
            forward, backward = rows_of(n, tails, heads), rows_of(n, heads, tails)
            while True:
                changed = False
                for (ptr, nbr), sig in ((forward, fw), (backward, bw)):
                    order = rows_of(n, sig[alive], alive)[1]     # by value
                    changed |= _lower(ptr, nbr, order, sig, seen, stack)
                if not self.exchange.allreduce(np.array([changed], np.int64), "max")[0]:
                    break
                both = self.exchange.allreduce(np.concatenate((fw, bw)), "min")
                fw, bw = both[:n], both[n:]
            done = _finish(A.lo, A.lo + A.nlocal, live, fw, bw, cfw, cbw)
            done_ids.append(done)
            done_labels.append(fw[done])
        idx = np.concatenate(done_ids) if done_ids else np.empty(0, np.int64)
        values = np.concatenate(done_labels).astype(np.int64) if done_ids else idx
        self.assign(label, self.vector(n, idx, values))


@njit(cache=True, nogil=True)
def _restart(live, fw, bw):
    """Every live vertex's signatures its own id; whether any vertex is live."""
    any_live = False
    for v in range(live.size):
        if live[v]:
            fw[v] = v
            bw[v] = v
            any_live = True
    return any_live


@njit(cache=True, nogil=True)
def _class_arcs(lo, ptr, ind, live, cfw, cbw):
    """``(rows, cols)``: the entries ``(lo + r, ind[e])`` of rows ``r`` of ``ptr, ind`` (a
    rank's out-arcs, or its in-arcs) that join two live vertices of one class."""
    rows = np.empty(ind.size, ind.dtype)
    cols = np.empty_like(rows)
    k = 0
    for r in range(ptr.size - 1):
        x = lo + r
        if not live[x]:
            continue
        for e in range(ptr[r], ptr[r + 1]):
            v = ind[e]
            if live[v] and cfw[v] == cfw[x] and cbw[v] == cbw[x]:
                rows[k], cols[k] = x, v
                k += 1
    return rows[:k], cols[:k]


@njit(cache=True, nogil=True)
def _lower(ptr, nbr, order, sig, seen, stack):
    """Give every vertex the least ``sig`` of the vertices that reach it along ``ptr,
    nbr`` (itself included), exactly: searches from the vertices ``order`` (the live
    ones, in increasing order of ``sig``), each claiming what no earlier one reached.
    Returns whether any value dropped. ``seen``, ``stack``: scratch of ``n``."""
    seen[:] = 0
    changed = False
    for y in order:
        if seen[y] or ptr[y + 1] == ptr[y]:
            continue
        least = sig[y]
        seen[y] = 1
        stack[0] = y
        top = 1
        while top:
            top -= 1
            u = stack[top]
            for e in range(ptr[u], ptr[u + 1]):
                w = nbr[e]
                if not seen[w]:
                    seen[w] = 1
                    if least < sig[w]:
                        sig[w] = least
                        changed = True
                    stack[top] = w
                    top += 1
    return changed


@njit(cache=True, nogil=True)
def _peel(lo, aptr, aind, tptr, tind, live):
    """The live vertices of rows ``lo, lo + 1, ...`` (out-arcs ``aptr, aind``, in-arcs
    ``tptr, tind``) without a live out-neighbour or without a live in-neighbour."""
    dead = []
    for r in range(aptr.size - 1):
        x = lo + r
        if live[x] and not (_any_live(aind, aptr[r], aptr[r + 1], live)
                            and _any_live(tind, tptr[r], tptr[r + 1], live)):
            dead.append(x)
    return np.array(dead, dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _any_live(ids, first, last, live):
    for e in range(first, last):
        if live[ids[e]]:
            return True
    return False


@njit(cache=True, nogil=True)
def _finish(lo, hi, live, fw, bw, cfw, cbw):
    """End a round: the live vertices with ``fw == bw`` are done (no longer live); the
    signatures become the classes. Returns the done vertices of ``lo..hi-1``."""
    mine = []
    for v in range(live.size):
        if live[v]:
            if fw[v] == bw[v]:
                live[v] = 0
                if lo <= v < hi:
                    mine.append(v)
            cfw[v] = fw[v]
            cbw[v] = bw[v]
    return np.array(mine, dtype=np.int64)
