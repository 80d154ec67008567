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

On a graph with hubs (:func:`lagraph_py.algorithms.scc.has_hubs`, on the ranks' greatest
degrees) and more than :data:`HANDOVER_FLOOR` stored entries a forward-backward search
comes first, as the single-process text's seed phase: from the live vertex of largest
in-degree x out-degree, a forward search over the live
vertices and a backward search over what it reached find its component, on a power-law
graph the giant one, in a few levels. In a level each rank expands its own vertices of
the frontier along its rows (out-arcs forward, in-arcs backward) and the ranks share what
they marked: an all-gather of the ids, or an all-reduce of ``n`` flags where the ids
would be more bytes. The vertices left keep whether the forward search reached them as
their class: a component lies within one class. Rounds or the hand-over label the rest
(directed Kronecker 20 on a 2-core machine, whole calls: 1 rank 784 -> 298 ms, 2 ranks
1,067 -> 312 ms; Kronecker 19: 291 -> 168 and 416 -> 224 ms; every vertex the trim left
was in the pivot's component). The searches take two arrays of ``n`` flags and one of at
most ``n`` ids more.

The trim before (``scc_trim``) peels, level by level, the active vertices without an
active in- or out-neighbour (each a component of its own): every rank tests its own
vertices on the out- and in-arcs of its rows, and one all-reduce of ``n`` flags a level
takes out what all ranks peeled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from lagraph_py.algorithms.scc import hub_degrees
from lagraph_py.cpu import as_unsigned
from lagraph_py.cpu_steps.csr import rows_of
from lagraph_py.cpu_steps.scc import smallest_id_components

from .executor import DistMatrix, DistVector
from .graph import id_dtype


#: A round hands over at least this many arcs (see ``scc_handover_arcs``), and a graph of
#: no more stored entries skips the pivot's searches: a trim and the hand-over label it
#: sooner (p2p-Gnutella31, 148k arcs, 2 ranks of a 2-core machine: 21-25 ms, against
#: 41-54 ms with the searches first).
HANDOVER_FLOOR = 1 << 21


class SccSteps:
    """The fused ``scc_trim`` and ``scc_signatures`` of the distributed executors (host
    arrays)."""

    #: A signature round hands its arcs to every rank, which labels the rest itself (see
    #: the module docstring), where the live arcs within classes number at most this over
    #: all ranks; None: as many as a rank holds on average, or 2^21 (16 or 32 MB on each
    #: rank) if that is more; -1: never.
    scc_handover_arcs: int | None = None
    #: Whether the rounds start with a forward-backward search from the pivot (see the
    #: module docstring); None: where the graph has hubs.
    scc_forward_backward: bool | None = None

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
        return max(HANDOVER_FLOOR,
                   int(self.exchange.allreduce(held, "sum")[0]) // self.exchange.size)

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
        if live.any() and self._seeds_forward_backward(A, AT):
            forward, found = self._pivot_searches(A, AT, live)
            component = np.flatnonzero(found)
            live[component] = 0
            own = component[(A.lo <= component) & (component < A.lo + A.nlocal)]
            done_ids.append(own)
            done_labels.append(np.full(own.size, component[0], ids))
            cfw[:] = forward
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

    def _seeds_forward_backward(self, A: DistMatrix, AT: DistMatrix) -> bool:
        """Whether the rounds start with the pivot's searches (``scc_forward_backward``,
        else on a graph of more than :data:`HANDOVER_FLOOR` stored entries that
        :func:`~lagraph_py.algorithms.scc.has_hubs` on every rank's rows; collective
        unless set)."""
        if self.scc_forward_backward is not None:
            return self.scc_forward_backward
        mine = np.array([A.indices.size, np.diff(A.indptr).max(initial=0),
                         np.diff(AT.indptr).max(initial=0)], np.int64)
        stored = int(self.exchange.allreduce(mine[:1], "sum")[0])
        top_out, top_in = (int(x) for x in self.exchange.allreduce(mine[1:], "max"))
        return stored > HANDOVER_FLOOR and hub_degrees(top_out, top_in, stored, A.n)

    def _pivot_searches(self, A: DistMatrix, AT: DistMatrix, live: np.ndarray):
        """``(forward, component)``: ``n`` flags of the live vertices that the pivot (the
        live vertex of largest in-degree x out-degree, smallest id on a tie) reaches, and
        of those of them that reach it (the backward search confined to the forward one,
        as the single process's ``_label_giant``), alike on every rank (collective)."""
        degrees = np.diff(A.indptr) * np.diff(AT.indptr)
        score = np.where(live[A.lo:A.lo + A.nlocal], degrees, -1)
        best = int(self.exchange.allreduce(np.array([score.max(initial=-1)]), "max")[0])
        mine = A.lo + np.flatnonzero(score == best)[:1]
        pivot = int(self.exchange.allreduce(
            np.array([mine[0] if mine.size else A.n], np.int64), "min")[0])
        forward = self._reach(A, pivot, live)
        return forward, self._reach(AT, pivot, live & forward)

    def _reach(self, M: DistMatrix, source: int, live: np.ndarray) -> np.ndarray:
        """``n`` flags of the live vertices reached from ``source`` along the arcs of ``M``
        (a rank's rows: its vertices' out-arcs, or in-arcs for the backward search), alike
        on every rank: level by level, every rank expands its own vertices of the frontier
        and the ranks share what they marked, as a list of ids or, where that is longer
        than ``n`` bytes, as flags (collective)."""
        n, lo, hi = live.size, M.lo, M.lo + M.nlocal
        reached = np.zeros(n, np.uint8)
        reached[source] = 1
        frontier = np.array([source - lo] if lo <= source < hi else [], np.int64)
        marked = np.empty(min(n, M.indices.size), M.indices.dtype)
        while True:
            count = _expand(*as_unsigned(M.indptr), M.indices, frontier, live, reached,
                            marked)
            total = int(self.exchange.allreduce(np.array([count], np.int64), "sum")[0])
            if not total:
                return reached
            if total * marked.itemsize < n:
                (ids,), _ = self.exchange.allgather([marked[:count]])
                reached[ids] = 1
                frontier = np.unique(ids[(lo <= ids) & (ids < hi)]).astype(np.int64) - lo
            else:
                flags = np.zeros(n, np.uint8)
                flags[marked[:count]] = 1
                flags = self.exchange.allreduce(flags, "max")
                reached |= flags
                frontier = np.flatnonzero(flags[lo:hi])


@njit(cache=True, nogil=True)
def _expand(ptr, ind, frontier, live, reached, marked):
    """Mark the live vertices not reached yet that the ``frontier`` (row offsets) has arcs
    to, writing their ids to ``marked``; returns how many."""
    count = 0
    for u in frontier:
        for e in range(ptr[u], ptr[u + 1]):
            v = ind[e]
            if live[v] and not reached[v]:
                reached[v] = 1
                marked[count] = v
                count += 1
    return count


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
