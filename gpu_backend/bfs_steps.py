"""The BFS group steps of the gpu executor: fused level kernels (``kernels/bfs.cu``).

:meth:`BfsSteps.bfs_level` replaces ``q<¬s(parent)> = frontier ⊕.⊗ A`` (or the pull form),
``parent<s(q)> = q``, ``level<s(q)> = k`` and the LevelStats reductions with one or two
kernels and ONE device-to-host copy (four counters). Methods (``method=``):

=================  =====================================================================
``push``           PMPP 15.2: thread per vertex; frontier vertices push to unvisited
                   neighbours; next queue by status-array compaction
``pull``           PMPP 15.3: thread per unvisited vertex, first frontier in-neighbour wins
``edge``           PMPP 15.4: thread per stored edge (COO)
``queue``          PMPP 15.5: frontier queue, atomicCAS claim, atomicAdd append
``queue_private``  PMPP 15.6: as ``queue`` with a block-private shared-memory queue
``push_balanced``  production push: edges of the frontier split evenly over threads by a
                   prefix sum of out-degrees + binary search; next queue from the status
                   array by block scans (Enterprise), hubs recorded in the hub cache
``pull_hub``       production pull: early exit, in-neighbours tried in decreasing
                   out-degree (``DeviceMatrix.hub_first``), frontier hubs cached in
                   shared memory, other frontier tests on an n-bit bitmap; the next
                   frontier is written as a bitmap, its queue made only if asked for
=================  =====================================================================

:meth:`BfsSteps.bfs_push_levels` runs consecutive small push levels in ONE persistent
launch (software grid barrier between levels, a group of threads per frontier vertex sized
to the level's largest out-degree).

The BFS keeps Enterprise's status array (int32 level per vertex, ``UNV`` if unvisited) on
the ``parent`` vector (``GpuVector.bfs_state``); it is rebuilt from the vector's bitmap
whenever the vector or the frontier is not the one the previous fused step left.
Frontiers returned are :class:`GpuVector` built from the queue; their bitmap and values
(the parents of the frontier vertices, or 1 with ANY_PAIR) are made only if read.
"""

from __future__ import annotations

import threading
import weakref

import cupy as cp
import numpy as np

from lagraph_py.executor import PULL, PUSH, Executor, LevelStats

from . import _module
from .vector import GpuVector

UNV = 0x7FFFFFFF
HC = 2048                      # hub cache slots (bfs.cu)
_NULL = np.uint64(0)           # a null pointer argument
_SLOTS = 64                    # levels whose counters are zeroed by one fill
_CTL = 18                      # control words of push_persistent (bfs.cu)
_PREFIX_ONE_BLOCK = 1 << 14    # queues up to this long get their degree prefix in one block
_D2H = 2                       # cudaMemcpyDeviceToHost
_NO_HUBS = np.iinfo(np.int64).max   # a hub degree that no vertex reaches
_PUSH_METHODS = ("push", "edge", "queue", "queue_private", "push_balanced")
_COUNTS_HUBS = ("push", "pull", "edge", "push_balanced", "pull_hub")   # via compact_status


def _fusable(semiring, parent, level) -> bool:
    """The fused kernels write int64 parents/levels under ANY_SECONDI / ANY_PAIR only."""
    return (semiring in ("any_secondi", "any_pair") and parent.dtype == np.int64
            and (level is None or level.dtype == np.int64))


_pinned = threading.local()


def _host_buffer() -> np.ndarray:
    """This thread's pinned host words that counters are copied into."""
    buf = getattr(_pinned, "buf", None)
    if buf is None:
        mem = cp.cuda.alloc_pinned_memory(8 * _CTL)
        buf = _pinned.buf = np.frombuffer(mem, np.uint64, _CTL)
    return buf


class _BfsState:
    """Per-BFS device state, attached to the visited (``parent``) vector.

    ``cnt`` holds four counters per level (``_SLOTS`` levels, then re-zeroed) followed by
    the control words of the persistent kernel; steps pass and read them by address.
    """

    __slots__ = ("st", "hc", "cnt", "q1", "bits", "bits_level", "version", "k", "frontier")

    def __init__(self, n, index_dtype):
        self.st = cp.empty(n, dtype=np.int32)
        self.hc = cp.empty(HC, dtype=np.uint64)                      # init_status empties
        self.cnt = cp.empty(4 * _SLOTS + _CTL, dtype=np.uint64)      # init_status zeroes
        self.q1 = cp.empty(1, dtype=index_dtype)      # the queue of a one-vertex frontier
        words = (n + 31) // 32
        self.bits = [cp.empty(words, dtype=np.uint32), cp.empty(words, dtype=np.uint32)]
        self.bits_level = [None, None]                # frontier level each bitmap holds
        self.version = -1
        self.k = None
        self.frontier = None

    def frontier_bits(self, k, block):
        """(bitmap of the level-k frontier, a zeroed bitmap for level k+1); the first is
        built from the status array unless a pull step left it."""
        if k in self.bits_level:
            i = self.bits_level.index(k)
        else:
            i = 0
            n = self.st.size
            if n:
                _module.kernel("status_bits")((_module.grid_for(n, block, 8),), (block,),
                                              (self.st, np.int64(n), np.int32(k), self.bits[0]))
        nxt = self.bits[1 - i]
        nxt.data.memset_async(0, nxt.nbytes)
        self.bits_level = [None, None]
        self.bits_level[i], self.bits_level[1 - i] = k, k + 1
        return self.bits[i], nxt

    def counters(self, k) -> int:
        """Device address of four zeroed counters for level k (new frontier size, its
        out-edges, in-edges, hubs): slot k % _SLOTS, all slots re-zeroed on wrap."""
        slot = k % _SLOTS
        if slot == 0:
            self.cnt.data.memset_async(0, 8 * 4 * _SLOTS)
        return self.cnt.data.ptr + 32 * slot

    def control(self) -> int:
        """Device address of the persistent kernel's control words, zeroed."""
        mem = self.cnt.data + 8 * 4 * _SLOTS
        mem.memset_async(0, 8 * _CTL)
        return mem.ptr

    def read(self, address: int, count: int) -> list[int]:
        """``count`` device words at ``address`` as Python ints (sync: one small copy)."""
        host = _host_buffer()
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(host.ctypes.data, address, 8 * count, _D2H, stream.ptr)
        stream.synchronize()
        return host[:count].tolist()


def _host_load(A, h) -> tuple[int, int, int]:
    """(out-edges, hubs, largest out-degree) of the vertices of a short host index list."""
    deg = A.row_degree_host()
    if h.size == 1:
        d = int(deg[h[0]])
        return d, int(d >= A.hub_deg), d
    d = deg[h]
    return int(d.sum()), int((d >= A.hub_deg).sum()), int(d.max())


class BfsSteps:
    """Mixin with the fused BFS steps; needs the primitive steps of the executor."""

    bfs_methods = ("push", "pull", "edge", "queue", "queue_private", "push_balanced",
                   "pull_hub")
    auto_methods = {PUSH: "push_balanced", PULL: "pull_hub"}
    #: Largest frontier that the persistent multi-level kernel handles.
    small_frontier = 32768
    #: The persistent kernel also hands back when the next frontier has more out-edges.
    persistent_edge_limit = 1 << 18
    #: In direction-optimizing runs, expand small hub-free frontiers with the queue kernel.
    small_level_guard = True
    #: pull_hub tries in-neighbours in decreasing out-degree (``DeviceMatrix.hub_first``);
    #: False: in storage order.
    hub_first_pull = True
    #: Blocks of the persistent kernel (None: half the multiprocessors, the fastest of 1,
    #: 33, 66, 132 on an H100 for the 2000x2000 grid; 1: PMPP's single-block kernel).
    persistent_blocks = None
    block = 512

    # ------------------------------------------------------------------ state
    def _state(self, parent: GpuVector, frontier: GpuVector, k: int, I) -> _BfsState:
        s = parent.bfs_state
        last = s.frontier() if (s is not None and s.frontier is not None) else None
        if s is not None and s.version == parent.version and s.k == k - 1 and last is frontier:
            return s
        n = parent.size
        s = _BfsState(n, I)
        one = frontier._host_queue
        single = one is not None and one.size == 1
        bl = self.block
        _module.kernel("init_status", I)((_module.grid_for(max(n, HC), bl, 8),), (bl,),
                                         (parent.present, np.int64(n), s.st,
                                          np.int64(one[0] if single else -1), np.int32(k - 1),
                                          s.q1, s.hc, s.cnt, np.int32(s.cnt.size)))
        if single and frontier._queue is None:
            frontier._queue = s.q1                    # written by init_status: no copy
        if not single:
            q = frontier.queue(I)
            if q.size:
                _module.kernel("mark_queue", I)((_module.grid_for(q.size, bl),), (bl,),
                                                (q, np.int64(q.size), np.int32(k - 1), s.st))
        parent.bfs_state = s
        return s

    def _finish(self, s, parent, level, frontier, k):
        parent.touched()
        if level is not None:
            level.touched()
        s.version, s.k, s.frontier = parent.version, k, weakref.ref(frontier)

    def _in_ptr(self, A):
        """Row pointers whose differences are in-degrees of A's columns (null: not needed)."""
        if not A.graph.directed:
            return A.indptr
        return self.matrix(A.graph, transpose=not A.transposed, loops=A.loops).indptr

    def _frontier(self, n, q, nq, fe, nh, parent_values):
        """The next frontier as a vector: from its queue ``q``, or from a function that makes
        the queue (called only if some step asks for it); bitmap and values on demand."""
        f = GpuVector(n, nvals=nq)
        if callable(q):
            f._queue_build = q
        else:
            f._queue = q[:nq]

        def build():
            present = cp.zeros(n, dtype=bool)
            values = cp.zeros(n, dtype=np.int64)
            if nq:
                idx = f.queue()
                present[idx] = True
                values[idx] = parent_values[idx]
            return values, present

        f._lazy = build
        f._qedges, f._nhubs = fe, nh
        return f

    def _level_queue(self, s, n, k, nq, I):
        """A function making the queue of the nq vertices visited at level k: from the
        level's bitmap while a pull step's bitmap still holds it, else by compaction of
        the status array."""
        def build():
            q = cp.empty(nq, dtype=I)
            if nq:
                counter = cp.zeros(4, dtype=np.uint64)
                bl = self.block
                if k in s.bits_level:
                    bits = s.bits[s.bits_level.index(k)]
                    _module.kernel("bits_queue", I)(
                        (_module.grid_for(bits.size, bl, 8),), (bl,),
                        (bits, np.int64(bits.size), q, counter))
                else:
                    _module.kernel("compact_status", I)(
                        (_module.grid_for(n, bl, 8),), (bl,),
                        (s.st, np.int64(n), np.int32(k), q, _NULL, _NULL, counter, s.hc,
                         np.int64(_NO_HUBS)))
            return q
        return build

    def _queue_load(self, A, frontier) -> tuple[int, int]:
        """Out-edges and hubs of the frontier: known from the step that made it, else
        computed together from the degrees of its queue."""
        edges, hubs = frontier._qedges, frontier._nhubs
        if edges is not None and hubs is not None:
            return edges, hubs
        if frontier._host_queue is not None:
            return _host_load(A, frontier._host_queue)[:2]
        q = frontier.queue(A.index_dtype)
        deg = A.indptr[q.astype(np.int64) + 1] - A.indptr[q]
        both = cp.stack([deg.sum(dtype=np.int64), (deg >= A.hub_deg).sum(dtype=np.int64)])
        e, h = (int(x) for x in both.get())                                   # sync
        return (e if edges is None else edges), (h if hubs is None else hubs)

    def _small(self, A, frontier, nq, limit) -> bool:
        """Whether the persistent queue kernel suits this frontier (and its next level)."""
        if not 0 < nq <= limit:
            return False
        edges, hubs = self._queue_load(A, frontier)
        # a hub would serialize its group, except alone: then the whole grid expands it
        return edges <= self._edge_limit(A) and (hubs == 0 or nq == 1)

    def _edge_limit(self, A) -> int:
        return min(self.persistent_edge_limit, max(1024, A.nstored // 64))

    # ------------------------------------------------------------------ one level
    def bfs_level(self, A, AT, frontier, parent, level, k, method, semiring, degrees=None):
        if method not in self.bfs_methods:
            raise ValueError(f"the gpu executor has no BFS method {method!r}; "
                             f"one of {self.bfs_methods}")
        if not _fusable(semiring, parent, level):
            return Executor.bfs_level(self, A, AT, frontier, parent, level, k,
                                      PUSH if method in _PUSH_METHODS else PULL, semiring,
                                      degrees)
        I = A.index_dtype
        n = A.n
        if degrees is not None and self.small_level_guard:
            # In a direction-optimizing run, a small frontier without hubs is expanded by
            # one level of the queue kernel whatever the direction: every pull or
            # status-scan step costs a pass over all n vertices, this one does not.
            nq = frontier.nvals()
            if self._small(A, frontier, nq, self.small_frontier):
                f, _, nq, fe, vin = self._persistent(A, frontier, nq, parent, level, k,
                                                     semiring, 0, True)
                return f, LevelStats(nq, fe, vin)
        s = self._state(parent, frontier, k, I)
        want = np.int32(semiring == "any_secondi")
        pv, pp = parent.values, parent.present
        lv, lp = (level.values, level.present) if level is not None else (_NULL, _NULL)
        in_ptr = self._in_ptr(A) if degrees is not None else _NULL
        kk = np.int32(k)
        cnt_at = s.counters(k)
        cnt = np.uint64(cnt_at)
        bl = self.block
        visit = (s.st, kk, pv, pp, lv, lp, want)
        if AT is None and method in ("pull", "pull_hub"):
            AT = self.matrix(A.graph, transpose=not A.transposed, loops=A.loops)
        if method == "pull_hub":
            tind = AT.hub_first(A.indptr) if self.hub_first_pull else AT.indices
            fbits, nbits = s.frontier_bits(k - 1, bl)
            _module.kernel("pull_hub", I)(
                (_module.grid_for(n, bl, 4),), (bl,),
                (AT.indptr, tind, np.int64(n)) + visit +
                (A.indptr, in_ptr, cnt, s.hc, np.int64(A.hub_deg), fbits, nbits))
        else:
            nxt = cp.empty(n, dtype=I)
            fused = False
            if method == "pull":
                _module.kernel("pull_vertex", I)((_module.grid_for(n, bl, 8),), (bl,),
                                                 (AT.indptr, AT.indices, np.int64(n)) + visit)
            elif method in ("queue", "queue_private", "push_balanced"):
                q = frontier.queue(I)
                nq = int(q.size)
                if nq:
                    if method == "push_balanced":
                        fe, _ = self._queue_load(A, frontier)
                        prefix = cp.empty(nq, dtype=np.int64)
                        if nq <= _PREFIX_ONE_BLOCK:
                            _module.kernel("queue_prefix", I)((1,), (1024,),
                                                              (A.indptr, q, np.int64(nq), prefix))
                        else:
                            _module.kernel("queue_degrees", I)(
                                (_module.grid_for(nq, bl),), (bl,),
                                (A.indptr, q, np.int64(nq), prefix))
                            cp.cumsum(prefix, out=prefix)
                        _module.kernel("push_balanced", I)(
                            (_module.grid_for(max(fe, 1), bl),), (bl,),
                            (A.indptr, A.indices, q, prefix, np.int64(nq)) + visit)
                    else:
                        name = "queue_push" if method == "queue" else "queue_push_private"
                        _module.kernel(name, I)((_module.grid_for(nq, bl),), (bl,),
                                                (A.indptr, A.indices, q, np.int64(nq), nxt)
                                                + visit + (in_ptr, cnt))
                fused = method != "push_balanced"
            elif method == "push":
                _module.kernel("push_vertex", I)((_module.grid_for(n, bl, 8),), (bl,),
                                                 (A.indptr, A.indices, np.int64(n)) + visit)
            else:  # edge
                m = A.nstored
                if m:
                    _module.kernel("edge_centric", I)((_module.grid_for(m, bl, 16),), (bl,),
                                                      (A.rows(), A.indices, np.int64(m))
                                                      + visit)
            if not fused and n:
                _module.kernel("compact_status", I)(
                    (_module.grid_for(n, bl, 8),), (bl,),
                    (s.st, np.int64(n), kk, nxt, A.indptr, in_ptr, cnt, s.hc,
                     np.int64(A.hub_deg)))
        nq, fe, vin, nh = s.read(cnt_at, 4)                   # sync: the one per level
        if method == "pull_hub":                               # its queue only if asked for
            nxt = self._level_queue(s, n, k, nq, I)
        f = self._frontier(n, nxt, nq, fe, nh if method in _COUNTS_HUBS else None, pv)
        self._finish(s, parent, level, f, k)
        stats = LevelStats(nq, fe, vin) if degrees is not None else LevelStats(nq, 0, 0)
        return f, stats

    # ------------------------------------------------------------------ many small levels
    def bfs_push_levels(self, A, frontier, parent, level, k, semiring, limit, degrees=None):
        if not _fusable(semiring, parent, level):
            return Executor.bfs_push_levels(self, A, frontier, parent, level, k, semiring,
                                            limit, degrees)
        run = degrees if degrees is not None else (None, None)
        cur, last_k, vin = frontier, k - 1, 0
        nq = cur.nvals()
        fe = 0
        while 0 < nq <= limit:
            if not self._small(A, cur, nq, limit):
                # too many edges or a hub: a warp per vertex would serialize. Hand back so
                # the caller's direction rule sees this frontier, or (nothing run yet) run
                # one load-balanced level.
                if last_k >= k:
                    fe, _ = self._queue_load(A, cur)
                    break
                cur, st = self.bfs_level(A, None, cur, parent, level, last_k + 1,
                                         "push_balanced", semiring, run)
                last_k += 1
                nq, fe, vin = st.nq, st.frontier_edges, vin + st.visited_in_edges
                continue
            cur, last_k, nq, fe, v = self._persistent(A, cur, nq, parent, level, last_k + 1,
                                                      semiring, limit, degrees is not None)
            vin += v
        stats = (LevelStats(nq, fe, vin) if degrees is not None
                 else LevelStats(nq, 0, 0))
        return cur, last_k, stats

    def _persistent(self, A, cur, nq, parent, level, k, semiring, limit, in_degrees):
        """Levels k, k+1, ... in one launch of push_persistent (see bfs.cu)."""
        I, n = A.index_dtype, A.n
        s = self._state(parent, cur, k, I)
        q = cur.queue(I)
        queues = cp.empty(2 * n, dtype=I)             # the two queues the levels alternate
        qb = np.uint64(queues.data.ptr + n * queues.itemsize)
        ctl = s.control()
        host_q = cur._host_queue
        max_deg = _host_load(A, host_q)[2] if host_q is not None else 32
        lv, lp = (level.values, level.present) if level is not None else (_NULL, _NULL)
        in_ptr = self._in_ptr(A) if in_degrees else _NULL
        blocks = self.persistent_blocks or max(1, _module.sm_count() // 2)
        _module.kernel("push_persistent", I)(
            (blocks,), (self.block,),
            (A.indptr, A.indices, in_ptr, q, queues, qb, np.int64(nq), np.uint64(max_deg),
             np.int32(k), np.int64(limit), np.int64(self._edge_limit(A)), s.st,
             parent.values, parent.present, lv, lp, np.int32(semiring == "any_secondi"),
             np.uint64(ctl), self._barrier(), s.hc, np.int64(A.hub_deg)))
        c = s.read(ctl, _CTL)                                 # sync: once per launch
        last_k, nq, fe = c[7], c[8], c[9]
        f = self._frontier(n, queues[n:] if c[10] else queues, nq, fe, c[14], parent.values)
        self._finish(s, parent, level, f, last_k)
        return f, last_k, nq, fe, c[6]

    def _barrier(self):
        bar = getattr(self, "_bar", None)
        if bar is None:
            bar = self._bar = cp.zeros(2, dtype=np.uint32)
        return bar
