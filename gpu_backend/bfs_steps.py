"""The BFS group steps of the gpu executor: fused level kernels (``kernels/bfs.cu``).

:meth:`BfsSteps.bfs_level` replaces ``q<¬s(parent)> = frontier ⊕.⊗ A`` (or the pull form),
``parent<s(q)> = q``, ``level<s(q)> = k`` and the LevelStats reductions with one or two
kernels and ONE device-to-host copy (three counters). Methods (``method=``):

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
                   out-degree (``DeviceMatrix.pull_lists``), the first read from a
                   contiguous array of row heads, a warp sharing long lists,
                   frontier hubs cached in shared memory, other frontier tests on an
                   n-bit bitmap; the next frontier is written as a bitmap (one ballot per
                   word), its queue made only if asked for
=================  =====================================================================

:meth:`BfsSteps.bfs_search` runs a whole ``method="auto"`` search in ONE cooperative launch
of the ``search`` kernel: every level's direction (the text's rule, on the kernels' exact
counts) and the blocks that run it are decided on the device, down to a single block with
block barriers for a small frontier; the host waits for nothing (see docs/gpu.md).

:meth:`BfsSteps.bfs_pull_levels` runs consecutive pull levels in ONE launch of the same
``pull_hub`` kernel, and :meth:`BfsSteps.bfs_push_levels` consecutive small push levels in
ONE launch of a persistent kernel (a group of threads per frontier vertex sized to the
level's largest out-degree, or the level's edges split evenly when a hub would hold up its
group). Both keep all blocks resident (a cooperative launch) and wait at a software grid
barrier between levels, where every block reads the level's counters and decides the same
way whether to go on; at the end one thread writes the results into pinned host memory, so
the host reads them without a copy. The persistent push starts from a pull step's bitmap
when its frontier has no queue, and leaves its last frontier as a bitmap for a following
pull step.

The BFS keeps Enterprise's status array (int32 level per vertex, ``UNV`` if unvisited) on
the ``parent`` vector (``GpuVector.bfs_state``); it is rebuilt from the vector's bitmap
whenever the vector or the frontier is not the one the previous fused step left.
Frontiers returned are :class:`GpuVector` built from the queue; their bitmap and values
(the parents of the frontier vertices, or 1 with ANY_PAIR) are made only if read.
"""

from __future__ import annotations

import math
import struct
import weakref

import cupy as cp
import numpy as np

from lagraph_py import device_memory
from lagraph_py.algorithms import bfs as bfs_text
from lagraph_py.executor import PULL, PUSH, Executor, LevelStats

from . import _module, host_handover
from .storage import (ensure_fits, host_words, out_of_core_now, pinned_words, read_back,
                      streamed_alloc, streamed_empty)
from .vector import GpuVector

HC = 2048                      # hub cache slots (bfs.cu)
_NULL = 0                      # a null pointer argument (64-bit kernel arguments are
                               # Python ints, packed as int64 by _module.Kernel)
_SLOTS = 64                    # levels whose counters are zeroed by one fill
_CTL = 12                      # control words of push_persistent and pull_hub (bfs.cu CTL)
_NCNT = 3 * _SLOTS + 2 * _CTL + 1  # counter words of a BFS state
_PREFIX_ONE_BLOCK = 1 << 14    # queues up to this long get their degree prefix in one block
_NO_HUBS = np.iinfo(np.int64).max   # a hub degree that no vertex reaches
_NO_LIMIT = np.iinfo(np.int32).max  # levels: as many as the frontier lasts
#: What a BFS's parent and level vectors hold where absent, from their first fused step on
#: (the fill of the algorithm's to_dense, which then costs nothing).
ABSENT = -1
_PUSH_METHODS = ("push", "edge", "queue", "queue_private", "push_balanced")
_SEARCH_CTL = 64               # control words of the search kernel (bfs.cu SCTL, and
                               # ASYNC_OFF after them, zeroed once here)
_SEARCH_LEFT = 60              # the one where a search stopped at its last level leaves
                               # its frontier's size (bfs.cu LEFT), and the next one the
                               # vertices its levels found (REACHED)
_PULL_CHUNK = 1024             # entries of a long in-list a warp tries at once (bfs.cu
                               # pull_long), of a packed list: PACKED_CHUNK words
_LIST_CAPS = (1024, 512, 256, 128, 64)   # pull_list_cap's choices, the first preferred
_WARP_STEPS = 64               # steps of 32 entries a pull_level warp may always take
#: The search pulls from packed in-lists (DeviceMatrix.packed_lists) where they hold at
#: most 1 / PACK_GAIN words an entry, ...
PACK_GAIN = 2.0
#: ... and a warp tries at most this many words of a list itself: the rest goes to the
#: chunks of PACKED_CHUNK words that all warps share (H100, whole search, cap 8 against
#: 64: cnr-2000 0.54 against 0.59 ms, the crawl of uk-2007-05 0.20 against 0.25 ms, 4 and
#: 16 slower; chunks of 128 against 1024 words: 0.52 and 0.19 ms, 64 and 256 slower).
PACKED_LIST_CAP = 8
PACKED_CHUNK = 128
#: The search kernel's one argument (bfs.cu ``struct Search``): its fields in order, each
#: 8 bytes, a device address or an integer ("q") or a float ("d"); those of a graph's plan
#: and the executor's settings (packed once, :meth:`SearchPlan.packed`), then those of one
#: search (:data:`_SEARCH_CALL`).
_SEARCH_FIELDS = (
    ("indptr", "q"), ("indices", "q"), ("in_ptr", "q"), ("tptr", "q"), ("tind", "q"),
    ("pk", "q"), ("heads", "q"), ("long_items", "q"), ("nlong", "q"), ("pull_cap", "q"),
    ("pull_chunk", "q"), ("n", "q"), ("words", "q"), ("st", "q"), ("bits", "q"),
    ("queues", "q"), ("degs", "q"), ("totals", "q"), ("hc", "q"), ("hub_deg", "q"),
    ("ctl", "q"), ("bar", "q"), ("alpha", "d"), ("pull_min", "d"), ("small_frontier", "q"),
    ("edge_limit", "q"), ("stored", "q"), ("balance", "q"), ("balance_short", "q"),
    ("serial", "q"),
    ("solo_width", "q"), ("width", "q"), ("wait_ns", "q"), ("bits_edges", "q"),
    ("long_if_cut", "q"), ("trace", "q"), ("trace_len", "q"), ("async_after", "q"),
    ("async_frontier", "q"), ("deep_seen", "q"))
_SEARCH_CALL = (("source", "q"), ("pv", "q"), ("lv", "q"), ("max_level", "q"))
_SEARCH_PLAN = struct.Struct("=" + "".join(code for _, code in _SEARCH_FIELDS))
_SEARCH = struct.Struct(f"={_SEARCH_PLAN.size}s" + "".join(code for _, code in _SEARCH_CALL))


def _fusable(semiring, parent, level) -> bool:
    """The fused kernels write int64 parents/levels under ANY_SECONDI / ANY_PAIR only."""
    return (semiring in ("any_secondi", "any_pair") and parent.dtype == np.int64
            and (level is None or level.dtype == np.int64))


_UNWRITTEN = 2**64 - 1


def _result_words() -> int:
    """Host address for a multi-level kernel's results (bfs.cu ``publish``), marked
    unwritten until the kernel writes them."""
    host, host_address = host_words()
    host.fill(_UNWRITTEN)
    return host_address


def _published() -> list[int]:
    """The results the last multi-level kernel published (sync: waits for it)."""
    cp.cuda.get_current_stream().synchronize()
    words = host_words()[0].tolist()
    if _UNWRITTEN in words:
        raise RuntimeError("a BFS kernel ended without publishing its results")
    return words


class _BfsState:
    """Per-BFS device state, attached to the visited (``parent``) vector: one allocation,
    whose parts the kernels get by address (an int).

    ``st`` is the status array (int32 per vertex), ``bits`` two n-bit frontier bitmaps,
    ``hc`` the hub cache, ``cnt`` three counters per level (``_SLOTS`` levels, then
    re-zeroed), two sets of control words of the multi-level kernels (each launch zeroes
    the other set, for the next one) and a spare counter; ``q1`` (an array) is the queue
    of a one-vertex frontier.
    """

    __slots__ = ("n", "words", "mem", "cnt", "hc", "st", "bits", "q1", "bits_level",
                 "version", "k", "frontier", "ctl", "ctl_set")

    def __init__(self, n, index_dtype):
        self.n, self.words = n, (n + 31) // 32
        self.mem = cp.cuda.alloc(8 * (_NCNT + HC + 1) + 4 * n + 8 * self.words)
        self.cnt = self.mem.ptr                       # then hc, q1, st, the two bitmaps
        self.hc = self.cnt + 8 * _NCNT
        q1 = self.hc + 8 * HC
        self.st = q1 + 8
        self.bits = [self.st + 4 * n, self.st + 4 * n + 4 * self.words]
        self.q1 = cp.ndarray((1,), dtype=index_dtype, memptr=self.mem + (q1 - self.cnt))
        self.bits_level = [None, None]                # frontier level each bitmap holds
        ctl = self.cnt + 8 * 3 * _SLOTS
        self.ctl = (ctl, ctl + 8 * _CTL)
        self.ctl_set = 0
        self.version = -1
        self.k = None
        self.frontier = None

    def frontier_bits(self, k, block):
        """(bitmap of the level-k frontier, the other bitmap); the first is built from the
        status array unless a pull step left it."""
        if k in self.bits_level:
            i = self.bits_level.index(k)
        else:
            i = 0
            n = self.n
            if n:
                _module.kernel("status_bits")((_module.grid_for(n, block, 8),), (block,),
                                              (self.st, n, np.int32(k), self.bits[0]))
        self.bits_level = [None, None]
        self.bits_level[i] = k
        return self.bits[i], self.bits[1 - i]

    def pulled(self, first, last):
        """Record that pull levels first..last ran from the frontier_bits of first - 1:
        level j's frontier is in bits[i] when j - first is odd, i the slot of first - 1."""
        i = self.bits_level.index(first - 1)
        self.bits_level = [None, None]
        self.bits_level[i if (last - first) % 2 else 1 - i] = last
        self.bits_level[1 - i if (last - first) % 2 else i] = last - 1

    def _zeroed(self, word: int, count: int) -> int:
        """Device address of ``count`` counter words from ``word`` on, zeroed."""
        address = self.cnt + 8 * word
        cp.cuda.runtime.memsetAsync(address, 0, 8 * count, cp.cuda.get_current_stream().ptr)
        return address

    def counters(self, k) -> int:
        """Device address of three zeroed counters for level k (new frontier size, its
        out-edges, in-edges): slot k % _SLOTS, all slots re-zeroed on wrap."""
        slot = k % _SLOTS
        if slot == 0:
            self._zeroed(0, 3 * _SLOTS)
        return self.cnt + 24 * slot

    def control(self) -> tuple[int, int]:
        """Device addresses of the control words for the next multi-level launch (zero) and
        of the other set, which that launch zeroes; call :meth:`launched` after it."""
        return self.ctl[self.ctl_set], self.ctl[1 - self.ctl_set]

    def launched(self) -> None:
        """A multi-level launch was made: the next one uses the other set."""
        self.ctl_set ^= 1

    def spare_counter(self) -> int:
        """Device address of one zeroed counter word."""
        return self._zeroed(3 * _SLOTS + 2 * _CTL, 1)


def _one_args(one) -> tuple:
    """init_status arguments that build a one-entry vector (GpuVector.adopt_one), or not."""
    if one is None:
        return -1, _NULL, 0
    index, value, values = one
    return int(index), values, int(value)


def _vector_args(parent, level) -> tuple:
    """Kernel arguments of the parent and level vectors: values and presence bytes (null
    when a vector keeps none, or for levels not asked for)."""
    if level is None:
        return parent.values, parent.presence_address(), _NULL, _NULL
    return parent.values, parent.presence_address(), level.values, level.presence_address()


def _host_load(A, h) -> tuple[int, int]:
    """(out-edges, largest out-degree) of the vertices of a short host index list."""
    deg = A.row_degree_host()
    if h.size == 1:
        d = int(deg[h[0]])
        return d, d
    d = deg[h]
    return int(d.sum()), int(d.max())


def working_set(n: int, index_dtype, blocks: int = 0) -> int:
    """Device bytes of one search's scratch on ``n`` vertices (kept with the graph; the
    int64 outputs included), besides the CSR, its transpose and their pull lists:
    status, queues, degrees and outputs per vertex, the frontier bitmaps, a word per
    block (``blocks``), the hub cache and the control words; :func:`streamed_set` of
    them are streamed vertex arrays."""
    return (4 * n + streamed_set(n, index_dtype) + 8 * ((n + 31) // 32)
            + 8 * (blocks + HC + _SEARCH_CTL) + 16)


def streamed_set(n: int, index_dtype) -> int:
    """The bytes of :func:`working_set` that the search reads in order or writes once,
    in managed memory out of core where the budget does not hold them
    (``storage.streamed_alloc``): the two frontier queues, the out-degrees beside their
    entries and the two int64 outputs."""
    return n * (2 * np.dtype(index_dtype).itemsize + 16 + 16)


def pull_list_cap(in_degree: np.ndarray, warps: int) -> int:
    """The longest in-list prefix a warp of the search's pull level scans itself
    (:attr:`BfsSteps.pull_list_cap`): the largest of :data:`_LIST_CAPS` under which no
    warp's 32 vertices take more steps of 32 entries than the greater of
    :data:`_WARP_STEPS` and an average warp's share of all steps, counted as if no vertex
    stopped early. Where long lists cluster among neighbouring ids (a web crawl in crawl
    order) a warp of 32 of them would otherwise scan for the whole level while the others
    wait (H100, whole search: cnr-2000 1.71 ms with a cap of 1024, 0.88 ms with 64; a
    100,000-vertex crawl of uk-2007-05 0.83 against 0.21 ms); where they are spread (a
    Kronecker graph's permuted ids) the long cap spares the second pass (Kronecker 22:
    0.47 ms with 1024, 0.52 with 64)."""
    if in_degree.size == 0:
        return _LIST_CAPS[0]
    words = np.arange(0, in_degree.size, 32)
    for cap in _LIST_CAPS[:-1]:
        per_word = np.add.reduceat(-(-np.minimum(in_degree, cap) // 32), words)
        if per_word.max() <= max(_WARP_STEPS, per_word.sum() / warps):
            return cap
    return _LIST_CAPS[-1]


def packed_fraction(ex, G) -> float | None:
    """The words an entry of the packed in-lists of ``G``
    (:func:`lagraph_py.device_memory.packed_fraction`, estimated on the host) where the
    search of ``ex`` pulls from them (:attr:`BfsSteps.pull_packed`), else None. The
    estimate is cached with ``G``."""
    T = G.transpose()
    fraction = G._cached("gpu.bfs.packed_fraction",
                         lambda: device_memory.packed_fraction(T.indptr, T.indices))
    packed = ex.pull_packed
    return fraction if (fraction * PACK_GAIN <= 1 if packed is None else packed) else None


class SearchPlan:
    """What the whole search (bfs.cu ``search``) needs of a graph, kept with it: the kernel
    and its grid, the leading fields of its argument (the device arrays of ``A`` and of
    its transpose ``AT``: CSR, the in-degree row pointers, the pull lists of ``AT``,
    packed or not), the scratch fields (the status array, two frontier bitmaps, two queues
    with the out-degree beside each entry, a word per block, the hub cache, the control
    words and the barrier words, multiples of 2^31 between launches: ``shared.cuh``
    ``blocks_sync``; those of ``scratch_of``, another plan of the same size, if given),
    and the host pull list lengths.

    ``hub_first``: the pull lists in decreasing out-degree (a sorted copy of ``AT``'s
    indices) or in storage order; ``packed``: the pull levels read ``AT``'s packed
    lists; ``pulls=False``: none, every level pushes (a search whose adjacency crosses
    the host link reads each row it reaches once, where a pull level would reread the
    in-lists of every vertex not reached)."""

    def __init__(self, ex, A, AT, *, hub_first: bool, packed: bool, scratch_of=None,
                 pulls: bool = True):
        self.A = A
        n, I = A.n, A.index_dtype
        if pulls:
            tind, heads = AT.pull_lists(A.indptr, hub_first)
            tptr, pk = AT.packed_lists() if packed else (AT.indptr, None)
            lists = (tptr.data.ptr, tind.data.ptr, _NULL if pk is None else pk.data.ptr,
                     heads.data.ptr)
            self._list_lengths = np.diff(tptr.get()) if packed else AT.row_degree_host()
        else:
            packed, lists, self._list_lengths = False, (_NULL,) * 4, np.zeros(0, np.int64)
        self.kernel = _module.kernel("search", I)
        self.async_kernel = _module.kernel("search_async", I)
        self.blocks = min(_module.resident_blocks(k, -(-n // ex.block), ex.block)
                          for k in (self.kernel, self.async_kernel))
        # a host word that `search` sets where a search met the asynchronous finish's rule
        self.deep_seen = pinned_words(1, np.uint64)
        self.deep_seen_ptr = self.deep_seen.ctypes.data
        words = (n + 31) // 32
        if scratch_of is not None:
            self._arrays = scratch_of._arrays
        else:
            ensure_fits(working_set(n, I, self.blocks), "bfs_search")
            # the queues and their degrees (streamed: out of core, maybe managed memory)
            queues = streamed_empty(2 * n, I), streamed_empty(2 * n, np.int64)
            self._arrays = (cp.empty(n, dtype=np.int32), cp.empty(2 * words, dtype=np.uint32),
                            *queues, cp.empty(self.blocks, dtype=np.int64),  # st, bits
                            cp.empty(HC, dtype=np.uint64),
                            cp.zeros(_SEARCH_CTL, dtype=np.uint64),
                            cp.zeros(4, dtype=np.uint32))
        self.ctl = self._arrays[6]
        st, bits, queues, degs, totals, hc, ctl, bar = (a.data.ptr for a in self._arrays)
        self._long = {}
        self._packed = {}        # the search's packed fields, by the executor's settings
        self.graph = (A.indptr.data.ptr, A.indices.data.ptr, ex._in_ptr(A).data.ptr,
                      *lists, n, words)
        self.scratch = (st, bits, queues, degs, totals, hc, A.hub_deg, ctl, bar)
        self.list_cap = (PACKED_LIST_CAP if packed else
                         pull_list_cap(self._list_lengths, self.blocks * ex.block // 32))
        self.chunk = PACKED_CHUNK if packed else _PULL_CHUNK

    def packed(self, ex) -> bytes:
        """The fields of the search's argument that do not change from one search to the
        next (:data:`_SEARCH_FIELDS`), packed for the settings of ``ex`` and kept for them:
        packing all of them took about 3 µs of a call's host time before its launch."""
        settings = ex._search_settings()
        packed = self._packed.get(settings)
        if packed is None:
            (cap, chunk, small_frontier, _, balance, balance_short, serial, solo_width,
             width, wait_ns, bits_edges, long_if_cut, async_after, async_frontier, alpha,
             beta, trace) = settings
            cap, chunk = cap or self.list_cap, chunk or self.chunk
            trace_ptr, trace_words = trace or (_NULL, 0)
            packed = self._packed[settings] = _SEARCH_PLAN.pack(   # in the fields' order
                *self.graph[:7], *self.long_items(cap, chunk), cap, chunk, *self.graph[7:],
                *self.scratch, float(alpha), self.A.n / beta, small_frontier,
                ex._edge_limit(self.A), self.A.nstored, balance, balance_short, serial,
                solo_width, width, wait_ns, bits_edges, int(long_if_cut), trace_ptr,
                trace_words // 4,
                async_after, async_frontier, self.deep_seen_ptr)
        return packed

    @property
    def outcome(self) -> cp.ndarray:
        """The control words of the plan's last search: the frontier it left where it
        stopped at its ``max_level`` (0 where it ran to its end), then the vertices its
        levels found besides the source (bfs.cu LEFT and REACHED)."""
        return self.ctl[_SEARCH_LEFT:_SEARCH_LEFT + 2]

    def long_items(self, cap: int, chunk: int) -> tuple[int, int]:
        """(device address, count) of the chunks of the pull lists longer than cap that the
        search's pull_long shares out: (vertex, first entry) pairs, each chunk of at most
        ``chunk`` entries beyond the first cap; built on first use for a cap and chunk."""
        if (cap, chunk) not in self._long:
            deg = self._list_lengths
            v = np.flatnonzero(deg > cap)
            chunks = -(-(deg[v] - cap) // chunk)
            before = np.repeat(np.cumsum(chunks) - chunks, chunks)
            items = np.empty((int(chunks.sum()), 2), dtype=np.int64)
            items[:, 0] = np.repeat(v, chunks)
            items[:, 1] = cap + chunk * (np.arange(len(items)) - before)
            array = cp.asarray(items.ravel()) if len(items) else None
            self._long[cap, chunk] = (array, _NULL if array is None else array.data.ptr,
                                      len(items))
        _, address, count = self._long[cap, chunk]
        return address, count


class BfsSteps:
    """Mixin with the fused BFS steps; needs the primitive steps of the executor."""

    bfs_methods = ("push", "pull", "edge", "queue", "queue_private", "push_balanced",
                   "pull_hub")
    auto_methods = {PUSH: "push_balanced", PULL: "pull_hub"}
    #: Largest frontier that the persistent multi-level kernel handles.
    small_frontier = 32768
    #: The persistent kernel also hands back when the next frontier has more out-edges
    #: (None: a 64th of the stored edges, at least 1024).
    persistent_edge_limit = None
    #: The persistent kernel expands a level edge-balanced (not a thread group per vertex)
    #: when its largest out-degree exceeds this many rounds of a group.
    persistent_balance = 16
    #: The same for a level of the whole search (:meth:`bfs_search`) by a team of blocks
    #: whose frontier holds at most 2,048 vertices: each block then makes the frontier's
    #: degree prefix in its shared memory, without a barrier of the team, so a level whose
    #: largest out-degree takes a group a few rounds (a crawl's second level: 30 vertices,
    #: 1,500 out-edges, one of 435, a group of 64 lanes a vertex) is balanced too (H200,
    #: kernel times from the trace, levels only, 16 sources, two interleaved rounds, 4
    #: against 16: uk-2007-05@100000 66.1 against 67.7 µs, soc-Slashdot0902 82.8 against
    #: 85.9, wiki-Vote 51.0 against 52.6; cnr-2000, ca-CondMat, Kronecker 20 and 22, uniform
    #: 2^22 x 16, the 1000 x 1000 grid and USA-road-NY within 1%; 0: cnr-2000 294 against
    #: 274 µs, the grid 7.4 against 4.5 ms).
    persistent_balance_short = 4
    #: In direction-optimizing runs, expand small frontiers with the queue kernel.
    small_level_guard = True
    #: pull_hub tries in-neighbours in decreasing out-degree (``DeviceMatrix.pull_lists``);
    #: False: in storage order.
    hub_first_pull = True
    #: In-neighbours pull_hub scans with one thread (the row head included, so at least 1)
    #: before the warp shares the rest of a long list. 16: where a fifth of the vertices
    #: are in the frontier (a uniform random graph's pull level), a vertex needs about 5
    #: probes, which its lanes make at once; with 4, four lanes in ten wait in turn for the
    #: warp's shared scans (whole search on the H100, uniform 2^22 x 16: 0.54 ms with 16,
    #: 0.69 ms with 4; Kronecker 22 0.38 ms with either).
    pull_serial = 16
    #: In the whole search, a pull level tries at most this many in-neighbours of a vertex
    #: on its own warp; the rest of a longer list is cut into chunks of 1024 that all warps
    #: share after a barrier (bfs.cu ``pull_long``). None: chosen per graph
    #: (:func:`pull_list_cap`; :data:`PACKED_LIST_CAP` words of packed lists).
    pull_list_cap = None
    #: The search's pull levels read the in-lists bit-packed (``DeviceMatrix.packed_lists``:
    #: a word of the frontier bitmap and a mask for each run of in-neighbours sharing it)
    #: instead of one id an entry. None: where that packs at least PACK_GAIN entries a word.
    pull_packed = None
    #: Entries of the chunks of long lists that ``pull_long`` shares out (None: 1024, or
    #: PACKED_CHUNK words of packed lists).
    pull_chunk = None
    #: The search's pull level shares out the rest of the long in-lists (``pull_long``,
    #: with the barrier after it) only when it cut some unvisited vertex's list at the cap
    #: without finding a parent, which is rare once the hubs are visited; False: on every
    #: pull level.
    pull_long_if_cut = True
    #: Blocks of the persistent kernel (None: half the multiprocessors, the fastest of 1,
    #: 33, 66, 132 on an H100 for the 2000x2000 grid; 1: PMPP's single-block kernel).
    persistent_blocks = None
    block = 512
    #: The whole search (:meth:`bfs_search`) runs a push level in one block while its
    #: frontier needs at most this many thread slots (vertices x lanes a vertex), with
    #: block barriers; a larger one in a team of blocks, one per ``team_width / 2`` slots:
    #: two threads a slot, so that a level waits on its slowest edges less (H200, levels
    #: only, 16 sources, two runs against 1024: the 2000x2000 grid 20.7 and 21.5 against
    #: 22.0 and 22.9 ms, a 100,000-vertex crawl of uk-2007-05 0.112 and 0.114 against
    #: 0.122 and 0.124 ms, Kronecker 22 2-4% faster, cnr-2000 2%, USA-road-NY (one run)
    #: 3.25 against 3.46 ms; Kronecker 20, uniform 2^22 x 16 and soc-Slashdot0902 within
    #: 2%). A wider solo block gained at most 3% anywhere and cost lattices and roads
    #: (H200, kernel times, 16 sources, three interleaved rounds, 2048 / 4096 / 8192
    #: against 1024: rome99 202 / 201 / 203 against 209 µs; the 1000 x 1000 road-like
    #: lattice 4.14 / 5.60 / 6.75 against 4.01 ms, USA-road-NY 1.72 / 1.88 / 3.00 against
    #: 1.67 ms; cnr-2000, uk-2007-05@100000, soc-Slashdot0902 and Kronecker 20 within 2%
    #: up to 4096; at 8192 the web, peer-to-peer and citation graphs 3-9% slower).
    solo_width = 1024
    team_width = 512
    #: The blocks outside a team wait for it pausing between polls, at most this many ns,
    #: or spin (0). Since the grid barrier releases with the last arrival, spinning is
    #: faster (H200, levels only, 32 sources, eight interleaved rounds, against 2,048 ns:
    #: soc-Slashdot0902 117 against 123 µs, the uk-2007-05 crawl 100 against 106 µs,
    #: Kronecker 20 112 against 115 µs, cnr-2000 326 against 332 µs, USA-road-NY 3.29
    #: against 3.33 ms; the 1000 x 1000 grid 10.07 against 10.04 ms in one round).
    team_wait_ns = 0
    #: A push level of the whole grid leaves the next frontier as a bitmap when the
    #: frontier has at least this many out-edges, else as a queue, as a smaller team does:
    #: a bitmap spares a wide level the queue's length counter, but costs two grid
    #: barriers, to zero it and to make it a queue again if the next level pushes (H200,
    #: levels only, 32 sources, four interleaved rounds, against a bitmap on every such
    #: level: soc-Slashdot0902 132 against 140 µs, cnr-2000 359 against 373 µs, Kronecker
    #: 20, 22 and 23, uniform 2^22 x 16 and the crawl of uk-2007-05 within 2%; a queue on
    #: every such level cost uniform 2^22 x 16 8% and Kronecker 20 5%).
    grid_bitmap_edges = 1 << 16
    #: A CuPy uint64 array of 4 words a level, or None: where :meth:`bfs_search` records
    #: when each level ended (ns and block 0's clock), its frontier size and who ran it
    #: (bfs.cu ``search``), for profiling.
    search_trace = None
    #: A deep search (a road map, a long path): from a push frontier of at most
    #: ``search_async_frontier`` vertices at level ``search_async_after`` or later, which
    #: did not grow over the last 64 levels (a lattice's does), one block finishes the
    #: search without levels (bfs.cu ``async_finish``): a label-correcting search whose
    #: vertices wait in a ring in shared memory, so that the block expands as many at once
    #: as it has threads instead of one level's few. ``search_async_frontier = 0`` (or
    #: 4,096 and more): never. Should the ring overflow (4,096 vertices waiting), the
    #: search starts again with levels only, and so do the graph's later searches. (H200,
    #: levels only, 8 sources, against never: USA-road-NY 2.28 against 3.10 ms,
    #: USA-road-COL 4.03 against 7.09, USA-road-FLA 7.23 against 8.53, a 1000 x 1000
    #: road-like lattice 7.82 against 11.2, the 2000 x 2000 grid 19.8 against 22.5 (it
    #: finishes the far side); Kronecker 22 and uniform random graphs never finish so. A
    #: frontier of 512 at level 64, without the growth test, took the grid to 26.9 ms;
    #: continuing with the first vertex a thread pushed instead of putting it in the ring
    #: took it to 39 ms.) On graphs of 3k-115k vertices (whole calls, the finish in
    #: every search, 48 sources): from level 1 (frontier up to 4,095) rome99 took 152
    #: against 237 µs and luxembourg_osm 2.35 against 3.05 ms, but wiki-Vote 275 against
    #: 83 µs (its ring overflows, and the search starts again) and wb-cs-stanford 153
    #: against 124; from level 8 (frontier up to 1,024) rome99 155 µs and luxembourg_osm
    #: 2.35 ms, ten other real graphs from 6% faster to 2% slower, and cit-HepTh 224
    #: against 205 µs. On larger graphs (levels only, 32 sources x 4 rounds, against 128)
    #: level 8 gained 1-5% on the web and social graphs and Kronecker 22, USA-road-NY
    #: 1.69 against 2.44 ms, but the 2000 x 2000 grid took 26.3 against 17.9 ms (before
    #: its 64th level the growth test has not judged yet, and one block expands the grid);
    #: judging growth over 8 levels (from level 8, 16 or 32) spared the grid (+1-4%) and
    #: kept most gains, but USA-road-FLA took 8.4-8.9 against 6.0 ms (its ring
    #: overflows, and its later searches keep to levels) and cit-HepTh 7-13% longer.
    search_async_after = 128
    search_async_frontier = 1024
    #: Whether every search launches the kernel with that finish (bfs.cu
    #: ``search_async``). By default a graph's searches launch it once one of them met
    #: the finish's rule: the kernel without it (``search``) goes on with levels there
    #: and sets a host word of the graph's plan. In one kernel with the finish, every
    #: search paid for its code (H200, kernel times from the trace, levels only, against
    #: the kernel before the finish existed: cnr-2000 272 against 264 µs, uniform 2^22 x
    #: 16 465 against 458; without the finish 270 and 460).
    search_async_always = False

    # ------------------------------------------------------------------ whole search
    def bfs_search(self, G, source, method, levels, parents):
        """A ``method="auto"`` search in one launch of the ``search`` kernel (bfs.cu), or on
        the host for a small graph (:mod:`.host_handover`); other methods run the algorithm
        text (:meth:`Executor.bfs_search`). The kernel fills the outputs itself, so the host
        issues nothing but the launch; the results are returned without waiting for it."""
        if method != "auto":
            return super().bfs_search(G, source, method, levels, parents)
        if host_handover.bfs_on_host(self, G):
            return host_handover.bfs_search(G, source, levels, parents)
        stream = cp.cuda.get_current_stream()
        plan = G._cached(f"gpu.bfs.search.{stream.ptr}.{self.pull_packed}",
                         lambda: SearchPlan(self, self.matrix(G),
                                             self.matrix(G, transpose=True),
                                             hub_first=self._hub_first(),
                                             packed=packed_fraction(self, G) is not None))
        n = G.n
        # the outputs in one raw allocation (streamed, as the queues), made arrays while
        # the kernel runs: cupy.empty and a view of it for each output took 4.2-6.0 µs of
        # host time, the allocation 1.7 µs and each view 2 µs (H200 host)
        out = streamed_alloc(8 * n * (levels + parents))
        self._launch_search(plan, source, out.ptr if levels else _NULL,
                            out.ptr + 8 * n * levels if parents else _NULL)
        return (cp.ndarray((n,), np.int64, out) if levels else None,
                cp.ndarray((n,), np.int64, out + 8 * n * levels) if parents else None)

    def _launch_search(self, plan, source: int, lv: int, pv: int,
                       max_level: int = _NO_LIMIT) -> None:
        """Launch the search kernel of ``plan`` (``search``, or ``search_async`` once the
        plan's ``deep_seen`` is set or with ``search_async_always``) from ``source``,
        writing the levels at device address ``lv`` and the parents at ``pv`` (either
        null), and stopping after level ``max_level`` (its frontier left and the vertices
        it found in ``plan.outcome``)."""
        kernel = (plan.async_kernel if self.search_async_always or plan.deep_seen[0]
                  else plan.kernel)
        kernel.launch_struct(plan.blocks, self.block, _SEARCH,
                             plan.packed(self), source, pv, lv, max_level)

    def _search_settings(self) -> tuple:
        """The executor's settings that a search's argument holds, read on every search (a
        change takes effect on the next one), in the order :meth:`SearchPlan.packed` takes
        them (the edge limit as :meth:`_edge_limit` works it out from the fourth)."""
        trace = self.search_trace
        return (self.pull_list_cap, self.pull_chunk, self.small_frontier,
                self.persistent_edge_limit, self.persistent_balance,
                self.persistent_balance_short, self.pull_serial,
                self.solo_width, self.team_width, self.team_wait_ns, self.grid_bitmap_edges,
                self.pull_long_if_cut, self.search_async_after, self.search_async_frontier,
                bfs_text.ALPHA, bfs_text.BETA,
                None if trace is None else (trace.data.ptr, trace.size))

    # ------------------------------------------------------------------ state
    def _state(self, parent: GpuVector, level, frontier: GpuVector, k: int, I) -> _BfsState:
        s = parent.bfs_state
        last = s.frontier() if (s is not None and s.frontier is not None) else None
        if s is not None and s.version == parent.version and s.k == k - 1 and last is frontier:
            return s
        n = parent.size
        s = _BfsState(n, I)
        one = frontier._host_queue
        single = one is not None and one.size == 1
        bl = self.block
        p1 = parent.adopt_one(ABSENT)                 # built by init_status if still lazy
        l1 = level.adopt_one(ABSENT) if level is not None else None
        _module.kernel("init_status", I)((_module.grid_for(max(n, HC), bl, 8),), (bl,),
                                         (parent.present if p1 is None else _NULL,
                                          n, s.st, int(one[0]) if single else -1, np.int32(k - 1),
                                          s.q1, s.hc, s.cnt, np.int32(_NCNT))
                                         + _one_args(p1) + _one_args(l1)
                                         + (ABSENT,))
        if single and frontier._queue is None:
            frontier._queue = s.q1                    # written by init_status: no copy
        if not single:
            q = frontier.queue(I)
            if q.size:
                _module.kernel("mark_queue", I)((_module.grid_for(q.size, bl),), (bl,),
                                                (q, q.size, np.int32(k - 1), s.st))
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

    def _frontier(self, n, q, nq, fe, parent_values):
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
        f._qedges = fe
        return f

    def _level_queue(self, s, n, k, nq, I):
        """A function making the queue of the nq vertices visited at level k: from the
        level's bitmap while a pull step's bitmap still holds it, else by compaction of
        the status array."""
        def build():
            q = cp.empty(nq, dtype=I)
            if nq:
                counter = s.spare_counter()
                bl = self.block
                if k in s.bits_level:
                    bits = s.bits[s.bits_level.index(k)]
                    _module.kernel("bits_queue", I)(
                        (_module.grid_for(s.words, bl, 8),), (bl,),
                        (bits, s.words, q, counter))
                else:
                    _module.kernel("compact_status", I)(
                        (_module.grid_for(n, bl, 8),), (bl,),
                        (s.st, n, np.int32(k), q, _NULL, _NULL, counter, s.hc, _NO_HUBS,
                         _NULL))
            return q
        return build

    def _queue_edges(self, A, frontier) -> int:
        """Out-edges of the frontier: known from the step that made it, else summed over
        the degrees of its queue."""
        if frontier._qedges is None:
            if frontier._host_queue is not None:
                frontier._qedges = _host_load(A, frontier._host_queue)[0]
            else:
                q = frontier.queue(A.index_dtype)
                deg = A.indptr[q.astype(np.int64) + 1] - A.indptr[q]
                frontier._qedges = int(deg.sum(dtype=np.int64))                 # sync
        return frontier._qedges

    def _small(self, A, frontier, nq, limit) -> bool:
        """Whether the persistent queue kernel suits this frontier (and its next level)."""
        return 0 < nq <= limit and self._queue_edges(A, frontier) <= self._edge_limit(A)

    def _guarded(self, A, frontier, degrees) -> bool:
        """Whether :attr:`small_level_guard` sends this frontier to the queue kernel."""
        return (degrees is not None and self.small_level_guard
                and self._small(A, frontier, frontier.nvals(), self.small_frontier))

    def _edge_limit(self, A) -> int:
        if self.persistent_edge_limit is not None:
            return self.persistent_edge_limit
        return max(1024, A.nstored // 64)

    # ------------------------------------------------------------------ one level
    def bfs_level(self, A, AT, frontier, parent, level, k, method, semiring, degrees=None):
        if method not in self.bfs_methods:
            raise ValueError(f"the gpu executor has no BFS method {method!r}; "
                             f"one of {self.bfs_methods}")
        if not _fusable(semiring, parent, level):
            return Executor.bfs_level(self, A, AT, frontier, parent, level, k,
                                      PUSH if method in _PUSH_METHODS else PULL, semiring,
                                      degrees)
        if self._guarded(A, frontier, degrees):
            # In a direction-optimizing run, a small frontier (few vertices and out-edges)
            # is expanded by one level of the queue kernel whatever the direction: every
            # pull or status-scan step costs a pass over all n vertices, this one does not.
            f, _, nq, fe, vin = self._persistent(A, frontier, frontier.nvals(), parent, level,
                                                 k, semiring, 0, True)
            return f, LevelStats(nq, fe, vin)
        if method == "pull_hub":
            f, _, stats = self._pull(A, AT, frontier, parent, level, k, semiring, 0, 1, degrees)
            return f, stats
        I = A.index_dtype
        n = A.n
        s = self._state(parent, level, frontier, k, I)
        want = np.int32(semiring == "any_secondi")
        pv, pp, lv, lp = _vector_args(parent, level)
        in_ptr = self._in_ptr(A) if degrees is not None else _NULL
        kk = np.int32(k)
        cnt_at = s.counters(k)
        bl = self.block
        visit = (s.st, kk, pv, pp, lv, lp, want)
        nxt = cp.empty(n, dtype=I)
        fused = False
        if method == "pull":
            if AT is None:
                AT = self.matrix(A.graph, transpose=not A.transposed, loops=A.loops)
            _module.kernel("pull_vertex", I)((_module.grid_for(n, bl, 8),), (bl,),
                                             (AT.indptr, AT.indices, n) + visit)
        elif method in ("queue", "queue_private", "push_balanced"):
            q = frontier.queue(I)
            nq = int(q.size)
            if nq:
                if method == "push_balanced":
                    fe = self._queue_edges(A, frontier)
                    prefix = cp.empty(nq, dtype=np.int64)
                    if nq <= _PREFIX_ONE_BLOCK:
                        _module.kernel("queue_prefix", I)((1,), (1024,),
                                                          (A.indptr, q, nq, prefix))
                    else:
                        _module.kernel("queue_degrees", I)(
                            (_module.grid_for(nq, bl),), (bl,),
                            (A.indptr, q, nq, prefix))
                        cp.cumsum(prefix, out=prefix)
                    _module.kernel("push_balanced", I)(
                        (_module.grid_for(max(fe, 1), bl),), (bl,),
                        (A.indptr, A.indices, q, prefix, nq) + visit)
                else:
                    name = "queue_push" if method == "queue" else "queue_push_private"
                    _module.kernel(name, I)((_module.grid_for(nq, bl),), (bl,),
                                            (A.indptr, A.indices, q, nq, nxt)
                                            + visit + (in_ptr, cnt_at))
            fused = method != "push_balanced"
        elif method == "push":
            _module.kernel("push_vertex", I)((_module.grid_for(n, bl, 8),), (bl,),
                                             (A.indptr, A.indices, n) + visit)
        else:  # edge
            m = A.nstored
            if m:
                _module.kernel("edge_centric", I)((_module.grid_for(m, bl, 16),), (bl,),
                                                  (A.rows(), A.indices, m) + visit)
        if not fused and n:
            _module.kernel("compact_status", I)(
                (_module.grid_for(n, bl, 8),), (bl,),
                (s.st, n, kk, nxt, A.indptr, in_ptr, cnt_at, s.hc, A.hub_deg, s.bits[0]))
            s.bits_level = [k, None]
        nq, fe, vin = read_back(cnt_at, 3)                     # sync: the one per level
        f = self._frontier(n, nxt, nq, fe, pv)
        self._finish(s, parent, level, f, k)
        stats = LevelStats(nq, fe, vin) if degrees is not None else LevelStats(nq, 0, 0)
        return f, stats

    # ------------------------------------------------------------------ pull levels
    def bfs_pull_levels(self, A, AT, frontier, parent, level, k, semiring, min_nq,
                        degrees=None):
        if not _fusable(semiring, parent, level) or self._guarded(A, frontier, degrees):
            return Executor.bfs_pull_levels(self, A, AT, frontier, parent, level, k, semiring,
                                            min_nq, degrees)
        return self._pull(A, AT, frontier, parent, level, k, semiring, math.ceil(min_nq),
                          _NO_LIMIT, degrees)

    def _pull(self, A, AT, frontier, parent, level, k, semiring, min_nq, max_levels,
              degrees):
        """Pull levels k, k+1, ... (at most max_levels) in one launch of pull_hub (bfs.cu);
        returns (frontier, last level run, stats)."""
        I, n, bl = A.index_dtype, A.n, self.block
        s = self._state(parent, level, frontier, k, I)
        if AT is None:
            AT = self.matrix(A.graph, transpose=not A.transposed, loops=A.loops)
        tind, heads = AT.pull_lists(A.indptr, self._hub_first())
        fbits, nbits = s.frontier_bits(k - 1, bl)
        ctl, ctl_next = s.control()
        in_ptr = self._in_ptr(A) if degrees is not None else _NULL
        _module.launch_resident(
            _module.kernel("pull_hub", I), -(-n // bl), bl,
            (AT.indptr, tind, heads, n, s.st, np.int32(k)) + _vector_args(parent, level)
            + (np.int32(semiring == "any_secondi"), A.indptr, in_ptr, ctl, ctl_next, s.hc,
               A.hub_deg, fbits, nbits, np.int32(self.pull_serial), frontier.nvals(), min_nq,
               np.int32(max_levels), self._barrier(), _result_words()))
        s.launched()
        vin, last_k, nq, fe, _ = _published()                  # sync: once per launch
        s.pulled(k, last_k)
        f = self._frontier(n, self._level_queue(s, n, last_k, nq, I), nq, fe, parent.values)
        self._finish(s, parent, level, f, last_k)
        stats = LevelStats(nq, fe, vin) if degrees is not None else LevelStats(nq, 0, 0)
        return f, last_k, stats

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
                    fe = self._queue_edges(A, cur)
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
        """Levels k, k+1, ... in one launch of push_persistent (see bfs.cu), from the
        frontier's queue or, for a pull step's frontier, its bitmap."""
        I, n = A.index_dtype, A.n
        s = self._state(parent, level, cur, k, I)
        if cur._queue is None and k - 1 in s.bits_level:   # a pull step's frontier: the
            q, in_bits = _NULL, s.bits[s.bits_level.index(k - 1)]   # kernel reads its bitmap
        else:
            q, in_bits = cur.queue(I), _NULL
        # the two queues the levels alternate, then the degree prefix of a balanced level
        scan_len = min(n, max(nq, limit))
        queues = cp.empty(2 * n + scan_len * 8 // np.dtype(I).itemsize, dtype=I)
        qb = queues.data.ptr + n * queues.itemsize
        scan = qb + n * queues.itemsize
        ctl, ctl_next = s.control()
        host_q = cur._host_queue
        max_deg = _host_load(A, host_q)[1] if host_q is not None else 0   # 0: kernel finds
        in_ptr = self._in_ptr(A) if in_degrees else _NULL
        blocks = self.persistent_blocks or max(1, _module.sm_count() // 2)
        _module.launch_resident(
            _module.kernel("push_persistent", I), blocks, self.block,
            (A.indptr, A.indices, in_ptr, q, queues, qb, scan, nq, max_deg,
             self.persistent_balance, np.int32(k), limit,
             self._edge_limit(A), s.st) + _vector_args(parent, level)
            + (np.int32(semiring == "any_secondi"), ctl, ctl_next, self._barrier(), s.hc,
               A.hub_deg, in_bits, s.bits[0], s.words, _result_words()))
        s.launched()
        vin, last_k, nq, fe, in_b = _published()               # sync: once per launch
        s.bits_level = [last_k, None] if nq else [None, None]   # the kernel's last bitmap
        f = self._frontier(n, queues[n:] if in_b else queues, nq, fe, parent.values)
        self._finish(s, parent, level, f, last_k)
        return f, last_k, nq, fe, vin

    def _hub_first(self) -> bool:
        """Whether pull steps read the hub-first pull lists: :attr:`hub_first_pull`,
        except out of core (their sorted copy would double the adjacency read over the
        host link, and sorting it there costs more than the search)."""
        return self.hub_first_pull and not out_of_core_now()

    def _barrier(self):
        """The grid barrier's word of the executor's persistent kernels (``shared.cuh``
        ``blocks_sync``; zeroed once, a multiple of 2^31 between launches)."""
        bar = getattr(self, "_bar", None)
        if bar is None:
            bar = self._bar = cp.zeros(2, dtype=np.uint32)
        return bar
