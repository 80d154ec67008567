"""The whole BFS as one group step on GPU ranks: levels decided on the device, and their
exchanges.

The ranks split the vertices as CPU ranks do (:mod:`.bfs_steps`) and follow the same
direction rule on global counts (:class:`~.bfs_rule.DirectionRule`), but no host decides
a level. A level is a pass of the cooperative kernel ``rank_levels`` (gpu_backend's
``bfs.cu``, its ranks' section):

- the rule, by every block (each from the state the last level left, two slots by level
  parity, so that no block waits for another): the counters that every rank gathered
  after the last level (the new frontier's size, out- and in-edges) summed and recorded,
  alike on every rank, and the level's direction; block 0 keeps the new state and writes
  the level's frontier size, direction and whether the search is over to pinned host
  memory;
- a **push** level lists the frontier from its bitmap with each vertex's out-degree in
  the rank's column block (:meth:`~.graph.DistGraph.column_block`: the edges into the
  rank's vertices, as rows of every vertex), sums the degrees in place and splits the
  level's edges evenly over the threads (each finds its edge's source by binary search, as
  the gpu executor's ``push_balanced`` does): every vertex it reaches is the rank's own,
  no message;
- a **pull** level is a thread per unvisited vertex of the range that stops at its first
  in-neighbour (:meth:`~.graph.DistGraph.in_rows`, global ids) whose bit is set in the
  frontier bitmap;
- then the range's words of the new frontier's bitmap, and its counters.

So that its size is known before the level runs, the frontier always travels as the
bitmap of the graph (``n / 8`` bytes over all ranks). Where the ranks' GPUs reach each
other's memory (one host, peer access: :func:`~.peer_memory.peer_access`), a level copies
its range's words and its counters into every rank's exchange buffer
(:class:`~.peer_memory.PeerBuffer`) and ends at a barrier of the ranks, and one launch runs
every level: no host takes part in the search. Elsewhere a launch is one level, and an
NCCL group after it all-gathers the counters and the ranges' words (in place); the host
enqueues level ``k``, waits only until the device has decided it (its host words), and then
enqueues its NCCL group and level ``k + 1`` while level ``k`` runs, so that the device
never waits for the host. Either way the first level that finds no frontier ends the
search on every rank alike, with no exchange.

The levels are the single-process executors' (a level set does not depend on the
direction); each parent is a frontier vertex with an edge to its child.
"""

from __future__ import annotations

import struct

import cupy as cp
import numpy as np
from cupy.cuda import nccl

from gpu_backend import _module
from lagraph_py.algorithms.bfs import ALPHA, BETA

from .bfs_rule import METHODS, check_method
from .graph import DistGraph
from .peer_memory import PeerBuffer

#: Largest vertex id or entry count kept in int32 device arrays; past it, on any rank,
#: every rank's arrays are int64 (the kernels' other instantiation).
INT32_TOP = np.iinfo(np.int32).max
_RING = 4                       # bfs.cu RANK_RING: host rows of 4, by level mod _RING
_STATE = 6                      # bfs.cu RS_WORDS: the search's state words
_SOURCE_SLOT = 2                # bfs.cu SOURCE_SLOT: the counters' slot of the source
_TRACE = 4                      # bfs.cu TRACE_WORDS: words of a level's trace
#: Levels a trace holds (of a search through the ranks' memory; later ones are not traced).
TRACE_LEVELS = 1 << 14
#: The fields of bfs.cu's RankLevel, in order: its arrays' addresses and integers, and the
#: two floating-point factors of the rule.
_LEVEL_FIELDS = ("state", "counters", "qcount", "rows", "trace", "trace_len", "bits",
                 "gathered", "arrived", "peers", "barriers", "words", "range_words", "rank",
                 "col_ptr", "col_ind", "in_ptr", "in_ind", "out_ptr", "queue", "degs",
                 "totals", "bar", "st", "pv", "n", "nstored", "lo", "nlocal", "ranks",
                 "method", "patience_ns", "alpha", "beta")
_LEVEL_FORMAT = "=" + "q" * (len(_LEVEL_FIELDS) - 2) + "dd"
#: Threads a block of rank_levels (its launch bounds: three blocks a multiprocessor at 40
#: registers a thread; fewer blocks meet at each grid barrier than with more, smaller ones).
_BLOCK = 512
#: Polls of the host words between checks that the stream still has work (else the level
#: can never be decided: the device failed).
_POLLS = 1 << 12


class GpuBfsSteps:
    """The fused ``bfs_search`` of the GPU ranks (a mixin of
    :class:`~.nccl.GpuRanksExecutor`)."""

    def bfs_search(self, G: DistGraph, source, method, levels, parents, trace=None):
        """The group step; ``trace``: a list to append a row a level to, as
        :class:`~.bfs_rule.LevelSearch` does (``count``: the level's exchange, ``publish``
        0: the frontier travels with the counts)."""
        check_method(method)
        direct = self.data.peer_access
        blocks = G._cached(f"{self.name}.bfs.{'direct' if direct else 'nccl'}",
                           lambda: DeviceBlocks(G, direct))
        search = _GpuSearch(G, blocks, int(source), self.data.comm, METHODS.index(method),
                            parents, trace is not None)
        search.run(trace)
        return (search.st.astype(np.int64) if levels else None), search.parent


class DeviceBlocks:
    """A rank's part of a graph as the BFS kernel reads it, on its GPU (cached with the
    graph): its rows' pointers (out-degrees), its in-edges, its column block, all of one
    index type ``I`` on every rank (int64 where any rank's entries or ``n`` need it), and
    the scratch of a search: the exchange buffer (the frontier bitmap of every vertex in
    two slots, whole words of each range end to end; every rank's counters in three; the
    ranks' arrivals at the barrier), a :class:`~.peer_memory.PeerBuffer` where ``direct``,
    a push level's queue and degree sums, the counters, the state words, the host rows of
    the levels (pinned) and the grid barrier."""

    def __init__(self, G: DistGraph, direct: bool):
        exchange = G.exchange
        in_ptr, in_ind = G.in_rows()
        col_ptr, col_ind = G.column_block()
        top = max(G.n, G.indices.size, in_ind.size, col_ind.size)
        wide = exchange.allreduce(np.array([top > INT32_TOP], np.int64), "max")
        I = self.I = np.dtype(np.int64 if wide[0] else np.int32)
        uploaded: dict[int, cp.ndarray] = {}

        def device(a: np.ndarray) -> cp.ndarray:      # each host array once
            if id(a) not in uploaded:
                uploaded[id(a)] = cp.asarray(a.astype(I, copy=False))
            return uploaded[id(a)]

        self.out_ptr = device(G.indptr)
        self.in_ptr, self.in_ind = device(in_ptr), device(in_ind)
        self.col_ptr, self.col_ind = device(col_ptr), device(col_ind)
        # vertices and words of every range (a multiple of 64 vertices, or all of them on
        # rank 0); the last range may be shorter
        ranks = exchange.size
        self.range_words = -(-max(int(G.bounds[1] - G.bounds[0]), 1) // 32)
        self.words = self.range_words * ranks
        sizes = (2 * self.words * 4, 3 * 3 * ranks * 8, ranks * 8)   # bits, gathered, arrived
        nbytes = sum(sizes)
        self.peers = PeerBuffer(nbytes, exchange) if direct else None
        whole = self.peers.memory if direct else cp.zeros(nbytes, np.uint8)
        self.bits = whole[:sizes[0]].view(np.uint32)
        self.gathered = whole[sizes[0]:sizes[0] + sizes[1]].view(np.uint64)
        self.arrived = whole[sizes[0] + sizes[1]:].view(np.uint64)
        self.barriers = cp.zeros(1, np.uint64)
        self.queue = cp.empty(G.n, I)
        self.degs = cp.empty(G.n, np.int64)
        self.start, self.kernel = _module.kernel("rank_start", I), _module.kernel("rank_levels", I)
        self.grid = _module.resident_blocks(self.kernel, 1 << 20, _BLOCK)
        self.totals = cp.empty(self.grid, np.int64)
        self.bar = cp.zeros(4, np.uint32)
        self.counters = cp.zeros(3, np.uint64)
        self.qcount = cp.zeros(2, np.uint64)                       # by level parity
        self.state = cp.zeros(2 * _STATE, np.int64)                # by level parity
        memory = cp.cuda.alloc_pinned_memory(8 * 4 * _RING)
        self.rows = np.frombuffer(memory, np.int64, 4 * _RING).reshape(_RING, 4)
        self._memory = memory                                      # keeps the rows alive


class _GpuSearch:
    """One search on this rank: the status of its range (the levels: -1 where unvisited),
    its parents (device; None unless ``parents``), the trace of its levels (``traced``:
    on the device, where the levels run in one launch), and the argument of its
    launches."""

    def __init__(self, G: DistGraph, blocks: DeviceBlocks, s: int, comm, method: int,
                 parents: bool, traced: bool):
        self.G, self.b, self.comm, self.s = G, blocks, comm, s
        self.rank = G.rank
        self.st = cp.empty(G.nlocal, np.int32)
        self.parent = cp.empty(G.nlocal, np.int64) if parents else None
        self.levels = (cp.zeros((TRACE_LEVELS, _TRACE), np.int64)
                       if traced and blocks.peers is not None else None)
        b = blocks
        fields = dict(
            state=b.state, counters=b.counters, qcount=b.qcount, rows=b.rows.ctypes.data,
            trace=0 if self.levels is None else self.levels, trace_len=TRACE_LEVELS,
            bits=b.bits, gathered=b.gathered, arrived=b.arrived,
            peers=0 if b.peers is None else b.peers.addresses, barriers=b.barriers,
            words=b.words, range_words=b.range_words, rank=self.rank,
            col_ptr=b.col_ptr, col_ind=b.col_ind, in_ptr=b.in_ptr, in_ind=b.in_ind,
            out_ptr=b.out_ptr, queue=b.queue, degs=b.degs, totals=b.totals, bar=b.bar,
            st=self.st, pv=0 if self.parent is None else self.parent, n=G.n,
            nstored=G.nstored, lo=G.lo, nlocal=G.nlocal, ranks=G.exchange.size,
            method=method, patience_ns=int(G.exchange.timeout * 1e9), alpha=float(ALPHA),
            beta=float(BETA))
        self.args = struct.pack(_LEVEL_FORMAT, *(
            x.data.ptr if isinstance(x, cp.ndarray) else x
            for x in (fields[f] for f in _LEVEL_FIELDS)))

    @property
    def _stream(self) -> int:
        return cp.cuda.get_current_stream().ptr

    def _gather(self, slot: int, *, bits: bool = True) -> None:
        """Every rank's counters and (``bits``) every range's words of the frontier bitmap
        into ``slot`` on every rank: one NCCL group (ranks without peer access)."""
        b, ranks = self.b, self.G.exchange.size
        nccl.groupStart()
        self.comm.allGather(b.counters.data.ptr, b.gathered.data.ptr + 8 * 3 * ranks * slot,
                            3, nccl.NCCL_UINT64, self._stream)
        if bits:
            words = b.bits.data.ptr + 4 * b.words * slot
            self.comm.allGather(words + 4 * b.range_words * self.rank, words, b.range_words,
                                nccl.NCCL_INT32, self._stream)
        nccl.groupEnd()

    def _decided(self, k: int) -> tuple[int, int, int]:
        """Level ``k``'s host words once the device has written them: the frontier's size,
        whether the level pulls, whether the search is over."""
        row, stream = self.b.rows[k % _RING], cp.cuda.get_current_stream()
        polls = 0
        while row[3] != k:
            polls += 1
            if polls % _POLLS == 0 and stream.done and row[3] != k:   # idle: never written
                stream.synchronize()                    # the device's error, if any
                raise RuntimeError(f"level {k} of a BFS did not run on rank {self.rank}")
        return int(row[0]), int(row[1]), int(row[2])

    def _launch(self, k: int) -> None:
        """Level ``k`` (and, through the ranks' memory, every level after it)."""
        self.b.kernel((self.b.grid,), (_BLOCK,), (self.args, np.int32(k)), cooperative=True)

    def run(self, trace: list | None) -> None:
        """Every level: through the ranks' memory one launch, else a launch and an NCCL
        group a level until one finds no frontier; with ``trace``, a row a level
        appended."""
        b, G = self.b, self.G
        b.start((_module.grid_for(max(G.nlocal, b.words), _BLOCK, 8),), (_BLOCK,),
                (self.args, self.s))
        if b.peers is not None:
            self._launch(1)
            if trace is not None:
                self._trace_device(trace)
            return
        b.rows[:] = 0                    # (the last search's rows end in levels it ran)
        self._gather(_SOURCE_SLOT, bits=False)       # (every rank set the source's bit)
        k, marks = 0, []
        while True:
            k += 1
            start = self._clock(trace)
            self._launch(k)
            worked = self._clock(trace)
            nq, pull, done = self._decided(k)
            if done:
                break
            self._gather(k & 1)
            marks.append((k, "pull" if pull else "push", nq, start, worked,
                          self._clock(trace)))
        if trace is not None:
            for level, direction, nq, start, worked, exchanged in marks:
                trace.append(dict(level=level, direction=direction, frontier=nq,
                                  estimate=None, work=_seconds(start, worked),
                                  count=_seconds(worked, exchanged), publish=0.0))

    def _trace_device(self, trace: list) -> None:
        """The rows of the levels that the device traced (``count``: the words' copies
        and the ranks' barrier, waiting for the slowest rank included)."""
        for k, (nq, pull, work, exchange) in enumerate(cp.asnumpy(self.levels)):
            if k and nq:
                trace.append(dict(level=k, direction="pull" if pull else "push",
                                  frontier=int(nq), estimate=None, work=work / 1e9,
                                  count=exchange / 1e9, publish=0.0))

    @staticmethod
    def _clock(trace):
        if trace is None:
            return None
        event = cp.cuda.Event()
        event.record()
        return event


def _seconds(start, end) -> float:
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / 1e3
