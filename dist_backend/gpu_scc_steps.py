"""The SCC trim and signature rounds of GPU ranks: those of :mod:`.scc_steps` as array
steps on each rank's device, the ``n``-vertex all-reduces over NCCL.

Every rank keeps what the host steps keep, for all ``n`` vertices, on its device: which
are live, the signatures ``fw`` and ``bw`` of the round and the classes of the round
before. The trim and the rounds are the same, and so are the labels; what differs is how
a rank reaches its local fixed point:

- the trim tests every live vertex of the range for a live out- and in-neighbour over all
  of its rows' arcs at once (two scatters), one all-reduce of ``n`` flags a level;
- a sweep of the signature rounds lowers ``fw`` along the rank's class arcs by a scatter-min
  of the tails' values into the heads (and ``bw`` the other way), again and again until a
  pass lowers nothing: the host's searches reach the same fixed point in one pass, each
  from the least value first, but a search is a loop of one thread; a pass of the scatter
  is every arc at once, and the passes needed are the longest chain of lowerings, short
  on the graphs that keep a round's arcs many (a round of few arcs hands them over as the
  host steps do, to the compiled Pearce-Tarjan search on every rank's host).

Each call uploads the rank's rows (out- and in-arcs, ends as ids of
:func:`~.graph.id_dtype`); each round lists its class arcs anew. With numpy as the array
module the same steps run on CPU ranks, which is how the tests without a GPU check them
against the host steps.
"""

from __future__ import annotations

import numpy as np

from lagraph_py.cpu_steps.csr import rows_of
from lagraph_py.cpu_steps.scc import smallest_id_components

from .executor import DistMatrix, DistVector
from .gpu_msf_steps import entries
from .graph import id_dtype
from .scc_steps import SccSteps


class ArraySccSteps(SccSteps):
    """``scc_trim`` and ``scc_signatures`` as array steps of ``self.xp``; ``self.data``
    exchanges its arrays and ``self._least(out, at, values)`` is its scatter-min."""

    def _reserve(self, nbytes: int, what: str) -> None:
        """Refuse up front a step of ``nbytes`` that cannot fit (GPU ranks: their device's
        free memory; nothing to check on the hosts)."""

    def scc_trim(self, A: DistMatrix, AT: DistMatrix, active: DistVector,
                 label: DistVector) -> DistVector:
        xp, n, lo, nlocal = self.xp, A.n, A.lo, A.nlocal
        self._reserve(working_bytes(A, AT), "the ranks' SCC trim")
        live = xp.asarray(self._live(active, n)).astype(bool)
        (out_t, out_h), (in_t, in_h) = _arcs(xp, A), _arcs(xp, AT)
        own = xp.arange(lo, lo + nlocal)
        peeled = []
        while True:
            has_out, has_in = xp.zeros(nlocal, bool), xp.zeros(nlocal, bool)
            has_out[out_t[live[out_h]] - lo] = True
            has_in[in_t[live[in_h]] - lo] = True
            dead = own[live[lo:lo + nlocal] & ~(has_out & has_in)]
            if not self.exchange.allreduce(np.array([dead.size], np.int64), "sum")[0]:
                break
            flags = xp.zeros(n, np.uint8)
            flags[dead] = 1
            live &= self.data.allreduce(flags, "max") == 0
            peeled.append(dead)
        idx = self._host(xp.concatenate(peeled)) if peeled else np.empty(0, np.int64)
        self.assign(label, self.vector(n, idx, idx))
        left = self._host(own[live[lo:lo + nlocal]])
        return self.vector(n, left, left)

    def scc_signatures(self, A: DistMatrix, AT: DistMatrix, active: DistVector,
                       label: DistVector) -> None:
        xp, n, lo, hi = self.xp, A.n, A.lo, A.lo + A.nlocal
        ids = id_dtype(n)
        self._reserve(working_bytes(A, AT), "the ranks' SCC rounds")
        live = xp.asarray(self._live(active, n)).astype(bool)
        fw, bw = xp.zeros(n, ids), xp.zeros(n, ids)
        cfw, cbw = xp.zeros(n, ids), xp.zeros(n, ids)      # one class: every live vertex
        (out_t, out_h), (in_t, in_h) = _arcs(xp, A), _arcs(xp, AT)
        tails, heads = xp.concatenate((out_t, in_h)), xp.concatenate((out_h, in_t))
        del out_t, out_h, in_t, in_h
        done_ids, done_labels = [], []
        limit = self._handover_limit(A, AT)
        while True:
            alive = xp.flatnonzero(live).astype(ids)
            if not alive.size:
                break
            fw[alive], bw[alive] = alive, alive
            within = (live[tails] & live[heads] & (cfw[tails] == cfw[heads])
                      & (cbw[tails] == cbw[heads]))
            tails, heads = tails[within], heads[within]       # arcs of a later round too
            total = self.exchange.allreduce(np.array([tails.size], np.int64), "sum")[0]
            if total <= limit:
                (t, h), _ = self.data.allgather([tails, heads])
                alive = self._host(alive)
                labels = smallest_id_components(*rows_of(n, self._host(t), self._host(h)),
                                                alive, n)
                own = (lo <= alive) & (alive < hi)
                done_ids.append(alive[own].astype(np.int64))
                done_labels.append(labels[own])
                break
            # the scatter's index type, made once a round, not by each pass
            wide = [a.astype(np.int64, copy=False) for a in (tails, heads)]
            while self._lowered(*wide, fw, bw):
                both = self.data.allreduce(xp.concatenate((fw, bw)), "min")
                fw[...], bw[...] = both[:n], both[n:]
            cfw[...], cbw[...] = xp.where(live, fw, cfw), xp.where(live, bw, cbw)
            done = live & (fw == bw)
            live &= ~done
            mine = xp.flatnonzero(done[lo:hi]) + lo
            done_ids.append(self._host(mine).astype(np.int64))
            done_labels.append(self._host(fw[mine]))
        idx = np.concatenate(done_ids) if done_ids else np.empty(0, np.int64)
        values = np.concatenate(done_labels).astype(np.int64) if done_ids else idx
        self.assign(label, self.vector(n, idx, values))

    def _lowered(self, tails, heads, fw, bw) -> bool:
        """One sweep: ``fw`` lowered along the arcs and ``bw`` against them until a pass
        lowers neither; whether any rank lowered anything (collective)."""
        changed = False
        while True:
            before_fw, before_bw = fw.copy(), bw.copy()
            self._least(fw, heads, fw[tails])
            self._least(bw, tails, bw[heads])
            if bool((fw == before_fw).all()) and bool((bw == before_bw).all()):
                break
            changed = True
        return bool(self.exchange.allreduce(np.array([changed], np.int64), "max")[0])


def _arcs(xp, M: DistMatrix):
    """``(tails, heads)``: the rows' entries of ``M``, global ids (a rank's out-arcs, or,
    of the transpose, its in-arcs reversed)."""
    return entries(xp, M.indptr, M.indices, M.lo, id_dtype(M.n))


def working_bytes(A: DistMatrix, AT: DistMatrix) -> int:
    """Memory a call of the trim or the rounds takes at most on a rank: its out- and
    in-arcs as tails and heads twice over (listed, then filtered), with the offsets'
    search while they are listed or the sweeps' int64 ends (16 bytes an arc), and eight
    arrays of ``n`` ids, flags and scratch."""
    ids = id_dtype(A.n).itemsize
    arcs = A.indices.size + AT.indices.size
    return arcs * (4 * ids + 16) + 8 * A.n * ids
