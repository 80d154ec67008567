"""The whole BFS as one group step on GPU ranks: two kernels a level, one exchange.

The ranks split the vertices as CPU ranks do (:mod:`.bfs_steps`), and run the same level
loop and direction rule (:mod:`.bfs_rule`) with each rank's work on its GPU. A rank keeps
there, besides its range's status array (the level of each vertex, Enterprise's), levels
and parents:

- the in-edges of its vertices (:meth:`~.graph.DistGraph.in_rows`, global ids): a
  **pull** level is a thread per unvisited vertex of the range that stops at its first
  in-neighbour in the frontier, read from a bitmap of the whole frontier (``n`` bits;
  kernel ``pull_bits``);
- the edges into its vertices as rows of every vertex
  (:meth:`~.graph.DistGraph.column_block`): a **push** level expands the whole frontier,
  a list of global ids, over these rows with the gpu executor's ``push_balanced`` (the
  level's edges split evenly over the threads), so every vertex it reaches is the
  rank's own and no message goes to another rank.

After either, the gpu executor's ``compact_status`` lists the range's new frontier,
counts its out- and in-edges and writes its bitmap into the range's words of the frontier
bitmap. Between levels, one NCCL group of all-gathers: three counters per rank, which
the host reads (the level's one sync: the rule's global counts and each rank's share),
and the new frontier, before anyone knows its size. No rank can have found more new
vertices than the frontier had out-edges: where the slots of that many ids for every
rank are smaller than the bitmap of the graph (:func:`~.bfs_rule.sends_ids`), each rank's
list goes in its slot, and the host then puts the lists end to end (a device copy a
rank); else the ranges' words of the bitmap go, in place. A pull after a list sets the
bitmap from it (``ids_bits``); a push after a bitmap lists it (the gpu executor's
``bits_queue``).

The levels are the single-process executors' (a level set does not depend on the
direction); each parent is a frontier vertex with an edge to its child.
"""

from __future__ import annotations

import cupy as cp
import numpy as np
from cupy.cuda import nccl

from gpu_backend import _module
from lagraph_py.executor import LevelStats

from .bfs_rule import LevelSearch, sends_ids
from .graph import DistGraph

#: Largest vertex id or entry count kept in int32 device arrays; past it, on any rank,
#: every rank's arrays are int64 (the kernels' other instantiation).
INT32_TOP = np.iinfo(np.int32).max
_UNVISITED = -1                 # bfs.cu UNV: the status of a vertex not reached yet
_NO_HUBS = np.iinfo(np.int64).max   # a hub degree no vertex reaches (no hub cache)
_PREFIX_ONE_BLOCK = 1 << 14     # frontiers up to this long get their degree prefix in one
                                # block (as the gpu executor's push_balanced level)


class GpuBfsSteps:
    """The fused ``bfs_search`` of the GPU ranks (a mixin of
    :class:`~.nccl.GpuRanksExecutor`)."""

    def bfs_search(self, G: DistGraph, source, method, levels, parents, trace=None):
        """The group step; ``trace``: a list to append a row a level to (see
        :class:`~.bfs_rule.LevelSearch`)."""
        blocks = G._cached(f"{self.name}.bfs", lambda: DeviceBlocks(G))
        search = _GpuSearch(G, blocks, int(source), self.data, self.local.block)
        search.trace = trace
        search.run(method)
        return (search.level if levels else None), (search.parent if parents else None)


class DeviceBlocks:
    """A rank's part of a graph as the BFS kernels read it, on its GPU (cached with the
    graph): its rows' pointers (out-degrees), its in-edges, its column block, all of one
    index type ``I`` on every rank (int64 where any rank's entries or ``n`` need it), and
    the scratch of a search: the frontier list (global ids), the new frontier of the
    range, every rank's new frontier in slots, the degree prefix of a push, the bitmap of
    the whole frontier (whole words of each range, end to end) and the counters."""

    def __init__(self, G: DistGraph):
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
        self.step = max(int(G.bounds[1] - G.bounds[0]), 1)
        self.range_words = -(-self.step // 32)
        self.bits = cp.zeros(self.range_words * exchange.size, np.uint32)
        self.queue = cp.empty(G.n, I)                              # the whole frontier
        self.new = cp.empty(self.step, I)                          # the range's new one
        self.slots = cp.empty(self.step * exchange.size, I)        # every rank's, in slots
        self.prefix = cp.empty(G.n, np.int64)
        self.counters = cp.zeros(3, np.uint64)                     # nq, out-, in-edges
        self.gathered = cp.empty(3 * exchange.size, np.uint64)
        self.counter = cp.zeros(1, np.uint64)                      # bits_queue's length


class _GpuSearch(LevelSearch):
    """One search on this rank: the status, levels and parents of its range (device),
    and which form of the frontier is up to date (``"ids"``: ``queue``, ``"bits"``:
    ``bits``)."""

    def __init__(self, G: DistGraph, blocks: DeviceBlocks, s: int, data, block: int):
        self.G, self.b, self.block = G, blocks, block
        self.comm, self.id_type = data.comm, data.type_of(blocks.I)
        self.rank, self.size = G.rank, G.exchange.size
        self.st = cp.full(G.nlocal, _UNVISITED, np.int32)
        self.level = cp.full(G.nlocal, -1, np.int64)
        self.parent = cp.full(G.nlocal, -1, np.int64)
        first = np.zeros(3, np.uint64)
        if G.lo <= s < G.hi:
            v = s - G.lo
            self.st[v], self.level[v], self.parent[v] = 0, 0, s
            in_ptr = G.in_rows()[0]
            first[:] = 1, G.indptr[v + 1] - G.indptr[v], in_ptr[v + 1] - in_ptr[v]
        blocks.counters.set(first)
        blocks.queue[0] = s
        self.form, self.shares, self.last, self.sent, self.slot = "ids", None, None, None, 0

    @property
    def _stream(self) -> int:
        return cp.cuda.get_current_stream().ptr

    def _clock(self):
        if self.trace is None:
            return None
        event = cp.cuda.Event()
        event.record()
        return event

    def _seconds(self, start, end) -> float:
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) / 1e3

    # ------------------------------------------------------------------ exchanges
    def _stats(self) -> LevelStats:
        b, G = self.b, self.G
        # The new frontier goes with the counters, in one NCCL group (one launch, one
        # wait): each rank's list in a slot as long as the frontier's out-edges (no rank
        # can have found more), or the bitmap where all those slots would be larger.
        self.sent = None
        if self.last is not None:
            self.slot = min(self.last.frontier_edges, b.step)
            self.sent = "ids" if sends_ids(self.slot * self.size, G.n) else "bits"
        if self.sent == "ids":
            cp.add(b.new[:self.slot], b.I.type(G.lo), out=b.new[:self.slot])  # global ids
        nccl.groupStart()
        self.comm.allGather(b.counters.data.ptr, b.gathered.data.ptr, 3, nccl.NCCL_UINT64,
                            self._stream)
        if self.sent == "ids":
            self.comm.allGather(b.new.data.ptr, b.slots.data.ptr, self.slot, self.id_type,
                                self._stream)
        elif self.sent == "bits":
            self.comm.allGather(b.bits.data.ptr + 4 * b.range_words * self.rank,
                                b.bits.data.ptr, b.range_words, nccl.NCCL_INT32, self._stream)
        nccl.groupEnd()
        counts = b.gathered.get().reshape(self.size, 3).astype(np.int64)   # sync: one a level
        b.counters.data.memset_async(0, b.counters.nbytes)
        self.shares = counts[:, 0]
        self.last = LevelStats(*(int(x) for x in counts.sum(axis=0)))
        return self.last

    def _begin(self, *, as_frontier: bool) -> None:
        """The source is the frontier list already (``queue[0]``)."""

    def _publish(self, nq: int, *, as_frontier: bool) -> None:
        """The frontier came with the counts: a list's slots put end to end."""
        b, item = self.b, self.b.I.itemsize
        self.form = self.sent
        if self.sent == "bits":
            return
        at = 0
        for r in np.flatnonzero(self.shares):
            count = int(self.shares[r])
            (b.queue.data + at * item).copy_from_device_async(
                b.slots.data + int(r) * self.slot * item, count * item)
            at += count

    # ------------------------------------------------------------------ one level
    def _push(self, k: int) -> None:
        b, I, bl = self.b, self.b.I, self.block
        nq = self.last.nq
        if self.form == "bits":
            b.counter.data.memset_async(0, b.counter.nbytes)
            _module.kernel("bits_queue", I)((_module.grid_for(b.bits.size, bl, 8),), (bl,),
                                            (b.bits, b.bits.size, b.queue, b.counter))
        if nq <= _PREFIX_ONE_BLOCK:
            _module.kernel("queue_prefix", I)((1,), (1024,), (b.col_ptr, b.queue, nq, b.prefix))
        else:
            _module.kernel("queue_degrees", I)((_module.grid_for(nq, bl),), (bl,),
                                               (b.col_ptr, b.queue, nq, b.prefix))
            cp.cumsum(b.prefix[:nq], out=b.prefix[:nq])
        # the frontier's out-edges bound those into this range: the grid, with no sync
        edges = max(self.last.frontier_edges, 1)
        _module.kernel("push_balanced", I)(
            (_module.grid_for(edges, bl),), (bl,),
            (b.col_ptr, b.col_ind, b.queue, b.prefix, nq) + self._visit(k))
        self._compact(k)

    def _pull(self, k: int) -> None:
        b, I, bl = self.b, self.b.I, self.block
        if self.form == "ids":
            b.bits.data.memset_async(0, b.bits.nbytes)
            nq = self.last.nq
            _module.kernel("ids_bits", I)((_module.grid_for(nq, bl),), (bl,),
                                          (b.queue, nq, b.bits))
        _module.kernel("pull_bits", I)((_module.grid_for(self.G.nlocal, bl, 8),), (bl,),
                                       (b.in_ptr, b.in_ind, self.G.nlocal, b.bits)
                                       + self._visit(k))
        self._compact(k)

    def _visit(self, k: int) -> tuple:
        """The kernels' arguments of the status and the outputs (no presence bytes)."""
        return (self.st, np.int32(k), self.parent, 0, self.level, 0, np.int32(1))

    def _compact(self, k: int) -> None:
        """The range's new frontier: its list (local offsets), counters, and bitmap words."""
        b, G, bl = self.b, self.G, self.block
        _module.kernel("compact_status", b.I)(
            (_module.grid_for(G.nlocal, bl, 8),), (bl,),
            (self.st, G.nlocal, np.int32(k), b.new, b.out_ptr, b.in_ptr, b.counters, 0,
             _NO_HUBS, b.bits.data.ptr + 4 * b.range_words * self.rank))
