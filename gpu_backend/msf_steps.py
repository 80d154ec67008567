"""The MSF group step of the gpu executor: Borůvka on the device (``kernels/msf.cu``).

:meth:`MsfSteps.spanning_forest` replaces the Filter-Borůvka text of
:mod:`lagraph_py.algorithms.msf` with edge-centric kernels and returns the same forest.

Per graph, once (cached on the Graph): the upper triangle of the device CSR as an edge list
(ends ``u < v``) numbered in the strict order (weight, u, v), so that an edge's id is its
rank (one stable device sort of the weights, -0.0 and 0.0 equal; none for an unweighted
graph), and the edges' weights in that order. The ids ``0 .. LIGHT_PER_VERTEX * n - 1`` are
the light edges.

Per call, on the device: the light edges become candidates (each offered to both endpoints'
``minkey`` by one atomicMin of its id), then Borůvka rounds of three kernels (decide: the
lightest candidate of either endpoint's component enters the forest; join: the new forest
edges join their components in a lock-free union-find whose roots are each set's smallest
vertex, so the labels need no extra pass, and the minkey array just read is cleared;
shrink: candidates inside a component dropped, the rest offered to the other minkey array).
A candidate is its id alone, of the CSR's index type (fewer edges than stored entries): the
rounds look its ends up in the edge list and find their roots again, so two candidate lists
cost what the edge list's ends do. After ``LIGHT_ROUNDS`` rounds the heavy edges are
filtered against the components found (an edge inside one is the heaviest of a cycle) and
join the candidate list; rounds go on until it is empty. Then the forest's rows are
written in rank order without a sort (its edges flagged among the ids, each block writing
the rows of its flagged ids from the count of those before it). On a graph of at most
``FUSED_EDGES`` edges all of it is one persistent kernel (``msf_fused``: the phases a grid
barrier apart, the rounds decided on the device, one sync for the forest's size), since
there a call would otherwise be some fifty launches of a few microseconds of work each. On
larger graphs the phases are kernels of their own; they read list lengths from device
words, so the host launches rounds without waiting: it reads the words back (the call's
only synchronizations) every ``ROUNDS_PER_SYNC`` rounds of the second phase.
"""

from __future__ import annotations

from functools import cached_property

import cupy as cp
import numpy as np

from . import _module
from .storage import (device_empty, device_index_dtype, ensure_fits, free_bytes,
                      in_managed_memory, out_of_core_now, read_back, streamed_alloc)

#: The first phase runs on the lightest ``LIGHT_PER_VERTEX * n`` edges (a forest has < n).
#: 1 was fastest on Kronecker 20..22 and the 2000x2000 grid on an H100 (tried 1, 2, 3, 5;
#: Kronecker 22: 6.8 ms against 12.7 ms with 3).
LIGHT_PER_VERTEX = 1
#: Rounds launched on the light edges before the heavy edges are filtered (no host wait;
#: light edges left over simply stay candidates).
LIGHT_ROUNDS = 8
#: Rounds of the second phase launched between two reads of the list length (graphs
#: launched phase by phase).
ROUNDS_PER_SYNC = 4
#: Graphs of at most this many undirected edges run every phase in one launch
#: (``msf_fused``: grid barriers instead of launches, rounds decided on the device); on
#: larger ones the barriers of a full grid cost more than the launches (H200, same run,
#: phase by phase against one launch: USA-road-FLA 1.78 / 1.46 ms, USA-road-NW 1.99 /
#: 1.65, USA-road-NE 2.05 / 1.93, Kronecker 20 3.30 / 3.09 ms; uniform random of 33.5M
#: edges 7.50 / 7.83 ms).
FUSED_EDGES = 1 << 24
#: Blocks per SM of the one launch: its grid barriers (three a round) cost more with more
#: blocks, fewer blocks keep fewer loads in flight (H200, whole calls, median of 31, two
#: alternations, 2 / 4 / 8 a SM: USA-road-NY 569 / 583-632 /
#: 685-686 µs, USA-road-COL 663 / 661 / 776-778, USA-road-FLA 1,046 / 1,014-1,015 /
#: 1,101-1,103, USA-road-NE 1,298 / 1,238-1,244 / 1,331-1,364, Kronecker 20 2,648 /
#: 2,264-2,463 / 2,256-2,313).
FUSED_BLOCKS_PER_SM = 4
BLOCK = 256
_NULL = 0                      # a null pointer argument (msf_flatten: no labels, no flags)
_CNT = 6                       # count words (msf.cu CNT)
_EDGE_LIST = "gpu.msf.edges"


def working_set(n: int, m: int, index_dtype, weight_dtype, cached: bool) -> int:
    """Device bytes one call needs for ``n`` vertices and ``m`` undirected edges of
    weights of ``weight_dtype`` (None: unweighted), besides the device CSR: two candidate
    lists of ``s`` bytes an edge (``s`` the index size) and ``4 s + 32`` bytes a vertex
    (union-find, two minkey arrays, the forest's ids, rows, weights and the labels); unless
    ``cached``, also the edge list (ends ``2 s`` and the weight ``w`` an edge) and its build
    at its peak: the edges' CSR positions (8 bytes), the graph's weights uploaded (both
    directions), the edges' weights, and their stable sort (a normalized copy, the sort's
    own copy and buffers and the 8-byte order); then the ends and weights gathered in
    that order, and 16 bytes a vertex of row offsets."""
    s = np.dtype(index_dtype).itemsize
    per_vertex = 4 * s + 32
    if cached:
        return 2 * s * m + per_vertex * n
    w = 0 if weight_dtype is None else np.dtype(weight_dtype).itemsize
    build = (max(2 * s + 8 + 3 * w, 2 * s + 4 * w + 16, 4 * s + w + 8) if w else 2 * s)
    return max(4 * s + w, build) * m + (per_vertex + 16) * n     # call: edge list + lists


def streamed_set(n: int, index_dtype) -> int:
    """The bytes of :func:`working_set` a vertex that the kernels write once and read in
    order at most once more (in managed memory out of core where the budget does not hold
    them, ``storage.streamed_alloc``): the forest's ids (appended, then read by the join
    and by the order), its rows and weights and the labels.

    Examples
    --------
    >>> streamed_set(10, np.int32)
    360
    """
    return n * (np.dtype(index_dtype).itemsize + 32)


class _EdgeList:
    """The per-graph device edge list (module docstring): ``ends`` (2 ids an edge, in rank
    order), ``weights`` (in rank order; None when unweighted) and ``m``."""

    __slots__ = ("ends", "weights", "m")


def _edge_list(A, G) -> _EdgeList:
    """Build the edge list of ``G`` from its device CSR ``A`` (once per graph)."""
    n, I = A.n, A.index_dtype
    E = _EdgeList()
    count = cp.empty(n, dtype=np.int64)
    _module.kernel("msf_upper_count", I)((_module.grid_for(n, BLOCK),), (BLOCK,),
                                         (A.indptr, A.indices, n, count))
    uoff = cp.zeros(n + 1, dtype=np.int64)
    cp.cumsum(count, out=uoff[1:])
    del count
    E.m = m = int(uoff[-1])                                     # sync (once per graph)
    E.ends = cp.empty(2 * m, dtype=I)
    csr = cp.empty(m if G.weighted else 0, dtype=np.int64)
    if m:
        _module.kernel("msf_upper_edges", I)(
            (_module.grid_for(32 * n, BLOCK),), (BLOCK,),
            (A.indptr, A.indices, n, uoff, E.ends, csr.data.ptr if csr.size else 0))
    del uoff
    E.weights = None
    if G.weighted:
        weights = cp.asarray(G.weights)[csr]
        del csr
        # rank order: stable by weight over the (u, v) order; +0 makes -0.0 equal to 0.0
        order = cp.argsort(weights + weights.dtype.type(0) if weights.dtype.kind == "f"
                           else weights)
        E.ends = E.ends.reshape(m, 2)[order].ravel()
        E.weights = weights[order]
    return E


class MsfSteps:
    """Mixin with the fused MSF step; needs the storage steps of the executor."""

    def spanning_forest(self, G):
        """The minimum spanning forest of the undirected graph ``G`` on the device:
        CuPy arrays ``(src, dst, weight, component)`` as
        :meth:`lagraph_py.executor.Executor.spanning_forest` defines them.

        Working set, with ``m`` undirected edges, ``n`` vertices, ``s`` the index size
        (4 bytes for int32 ids, 8 for int64) and ``w`` the weight size: per call ``2 s m``
        bytes of candidate lists and ``4 s + 32`` per vertex; once per graph, cached, an
        edge list of ``2 s + w`` bytes per edge, whose build peaks at ``2 s + 4 w + 16``
        bytes per edge (the stable sort of the weights), besides the device CSR.
        :func:`working_set` gives the total.

        Raises
        ------
        MemoryError
            The working set exceeds the free device memory (checked before any work).

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.executor import get_executor
        >>> G = lg.Graph.from_edges([0, 1, 0], [1, 2, 2], weight=[2, 1, 2], directed=False)
        >>> src, dst, weight, comp = get_executor("gpu").spanning_forest(G)
        >>> src.tolist(), dst.tolist(), weight.tolist(), comp.tolist()
        ([1, 0], [2, 1], [1, 2], [0, 0, 0])
        """
        n = G.n
        wdtype = G.weights.dtype if G.weighted else np.dtype(np.int64)
        cached = _EDGE_LIST in G._cache
        m = G._cache[_EDGE_LIST].m if cached else G.nstored // 2
        ensure_fits(working_set(n, m, device_index_dtype(G.indptr, G.indices),
                                G.weights.dtype if G.weighted else None, cached),
                    f"msf of {n:,} vertices and {m:,} edges")
        A = self.matrix(G)
        E = G._cached(_EDGE_LIST, lambda: _edge_list(A, G))
        if E.m == 0:
            none = cp.empty(0, dtype=np.int64)
            return none, none.copy(), cp.empty(0, dtype=wdtype), cp.arange(n, dtype=np.int64)
        run = _Run(A, E, wdtype)
        k = (run.fused if E.m <= FUSED_EDGES else run.launched)(E, self._barrier())
        if k > run.forest_size:
            raise RuntimeError("msf: more forest edges than a forest has on the gpu executor")
        return run.results(k)


def _carve(memory: cp.cuda.MemoryPointer, sizes) -> list:
    """Pointers to consecutive parts of ``memory``, of ``sizes`` bytes each."""
    parts, at = [], 0
    for size in sizes:
        parts.append(memory + at)
        at += size
    return parts


def _grid(work: int) -> tuple[int]:
    return (_module.grid_for(max(1, work), BLOCK),)


class _Run:
    """Device state of one call: the count words (``cnt[0]``, ``cnt[1]``: list lengths;
    ``cnt[2]``: forest edges; ``cnt[3:5]``: the fused kernel's results; ``cnt[5]``: forest
    edges joined; zeroed by the first kernel), two candidate lists (edge ids), union-find,
    two minkey arrays and the forest's ids, all in one allocation (out of core, each its
    own, so that the union-find and the minkey arrays, which every round reads at random,
    stay in device memory while the lists go to managed memory, and the forest's ids with
    the streamed arrays); and the outputs, streamed (:func:`streamed_set`): the forest's
    rows and weights (room for ``n - 1``) and the labels. Round by round the lists
    and the minkey arrays alternate together: the next round reads list ``i`` and
    ``minkey[i]``. Where the edge list is in managed memory (out of core), the rounds that
    would read it by edge id across the host link run on device copies instead, where the
    device has room: the light rounds on the light edges' ends (:meth:`light_on_device`),
    the rounds after the heavy edges' filter on the candidates' ends, renumbered
    (:meth:`heavy_on_device`). Kronecker 24 on an H200 capped to a quarter and an eighth
    of its footprint: 400 and 830 ms before, 227 and 280 ms with both copies and the
    forest's flags as a bitmap (twice the link's time for the 6.25 GB it keeps managed,
    at a quarter)."""

    def __init__(self, A, E, weight_dtype):
        n, I = A.n, A.index_dtype
        self.I, self.n = I, n
        cap = max(1, n - 1)
        sizes = (_CNT * 8 // I.itemsize, E.m, E.m, n, 2 * n, cap)
        nbytes = [size * I.itemsize for size in sizes]
        # the outputs: the forest's rows, the labels, the forest's weights
        out_bytes = (8 * cap, 8 * cap, 8 * n, np.dtype(weight_dtype).itemsize * cap)
        if out_of_core_now():       # apart: only the lists are large enough to be managed
            mems = [cp.empty(size, dtype=I).data for size in sizes[:-1]]
            mems.append(streamed_alloc(nbytes[-1]))
            outs = [streamed_alloc(size) for size in out_bytes]
        else:                       # one allocation for the scratch, one for the outputs
            mems = _carve(cp.cuda.alloc(sum(nbytes)), nbytes)
            outs = _carve(streamed_alloc(sum(out_bytes)), out_bytes)
        # the scratch's parts by name, (memory, items), made arrays only where a step
        # needs them (the launched phases), not for the one launch of a smaller graph
        self._parts = dict(zip(("cnt", "list0", "list1", "parent", "both", "forest"),
                               zip(mems, sizes)))
        self.forest_size = cap
        self._outputs = outs, weight_dtype
        self.src, self.dst, self.labels, self.weight = (out.ptr for out in outs)
        self.weights = E.weights
        self.cap, self.ends = E.m, E.ends
        self.nlight = min(E.m, LIGHT_PER_VERTEX * n)
        self.i = 0                                 # the list the next round reads

    def ptr(self, part: str) -> int:
        """Device address of a part of the scratch."""
        return self._parts[part][0].ptr

    def _array(self, part: str) -> cp.ndarray:
        memory, size = self._parts[part]
        return cp.ndarray((size,), self.I, memory)

    @cached_property
    def cnt(self) -> cp.ndarray:
        return self._array("cnt").view(np.uint64)

    @cached_property
    def lists(self) -> list:
        return [self._array("list0"), self._array("list1")]

    @cached_property
    def parent(self) -> cp.ndarray:
        return self._array("parent")

    @cached_property
    def both(self) -> cp.ndarray:
        return self._array("both")

    @cached_property
    def minkey(self) -> list:
        return [self.both[:self.n], self.both[self.n:]]

    @cached_property
    def forest(self) -> cp.ndarray:
        return self._array("forest")

    def results(self, k: int) -> tuple:
        """The outputs as arrays: the forest's ``k`` rows and weights, and the labels."""
        (src, dst, labels, weight), weight_dtype = self._outputs
        return (cp.ndarray((k,), np.int64, src), cp.ndarray((k,), np.int64, dst),
                cp.ndarray((k,), weight_dtype, weight), cp.ndarray((self.n,), np.int64, labels))

    def max_rounds(self) -> int:
        """More rounds than Borůvka needs: each round at least halves the components that
        still have candidates, once every edge is one."""
        return LIGHT_ROUNDS + self.n.bit_length() + 2

    def fused(self, E, barrier) -> int:
        """Every phase in one launch (``msf_fused``), the forest's rows and weights in
        rank order included; returns the forest's size."""
        kernel = _module.kernel("msf_fused", self.I)
        ptr = self.ptr
        _module.launch_resident(
            kernel, min(_grid(E.m)[0], FUSED_BLOCKS_PER_SM * _module.sm_count()), BLOCK,
            (E.ends, E.m, self.nlight, np.int32(LIGHT_ROUNDS), np.int32(self.max_rounds()),
             self.n, ptr("parent"), ptr("both"), ptr("list0"), ptr("list1"), ptr("cnt"),
             ptr("forest"), self.forest_size, self.labels, self.src, self.dst,
             *self.output_weights(), barrier))
        _, _, k, _, failed = read_back(ptr("cnt"), 5)                    # sync
        if failed:
            raise RuntimeError("msf: Borůvka rounds made no progress on the gpu executor")
        return k

    def launched(self, E, barrier) -> int:
        """The phases launched one by one, the list length read back every
        ``ROUNDS_PER_SYNC`` rounds of the second phase, then the forest's rows and weights
        in rank order (:meth:`order`); returns the forest's size."""
        _module.kernel("msf_init", self.I)(_grid(self.n), (BLOCK,),
                                           (self.n, self.parent, self.both, self.cnt))
        light_apart = self.light_on_device(E)
        self.collect(0, self.nlight)
        self.rounds(LIGHT_ROUNDS, self.nlight)
        bound, heavy_apart = self.nlight, None
        if self.nlight < E.m:
            if light_apart:
                self.restore(keep_list=True)
            self.flatten()                         # one hop to a root for the filter
            self.collect(self.nlight, E.m)
            bound = E.m
            heavy_apart = self.heavy_on_device(E)
            if heavy_apart is not None:
                bound = heavy_apart[0].size
        for _ in range(self.n.bit_length() // ROUNDS_PER_SYNC + 2):   # halving: <= log2(n) + 1
            self.rounds(ROUNDS_PER_SYNC, bound)
            counts = self.cnt.get()                # sync: once per ROUNDS_PER_SYNC rounds
            bound = int(counts[self.i])
            if bound == 0:
                break
        else:
            raise RuntimeError("msf: Borůvka rounds made no progress on the gpu executor")
        if heavy_apart is not None:                # the forest's edges found since: by id
            ids, first = heavy_apart
            found = self.forest[first:int(counts[2])]
            found[...] = ids[found]
            self.restore(keep_list=False)
        # the forest's flags for order: a bit an edge, in the first list's block, free now;
        # where that is managed memory, an array of their own (a thirty-second of a list)
        words = (E.m + 31) // 32
        flags = (cp.empty(words, dtype=np.uint32) if in_managed_memory(self.lists[0])
                 else self.lists[0].view(np.uint32)[:words])
        self.flatten(self.labels, flags, E.m)
        self.order(E, flags, barrier)
        return int(counts[2])

    def order(self, E, flags, barrier) -> None:
        """The forest's rows and weights in rank order (``msf_order``, a launch whose
        blocks wait for each other; ``flags`` cleared by the last :meth:`flatten`)."""
        _module.launch_resident(
            _module.kernel("msf_order", self.I), _grid(E.m)[0], BLOCK,
            (self.forest, self.count(2), self.forest.size, E.m, E.ends, flags,
             self.lists[1], self.src, self.dst, *self.output_weights(), barrier))

    def output_weights(self) -> tuple:
        """The kernels' weight arguments: the edges' weights by id (null when
        unweighted), their size (0: write int64 ones) and the output."""
        if self.weights is None:
            return 0, np.int32(0), self.weight
        return self.weights, np.int32(self.weights.itemsize), self.weight

    def count(self, j: int) -> int:
        return self.ptr("cnt") + 8 * j

    def light_on_device(self, E) -> bool:
        """Where the edge list is in managed memory (out of core) and has heavy edges, run
        the light rounds on copies in device memory, if it has room for them: the light
        edges' ends and two candidate lists of their size (the light rounds see no other
        edge id), so that the light rounds read nothing across the host link. Returns
        whether it made them."""
        size = self.nlight
        if not (size < E.m and in_managed_memory(E.ends) and self.room(4 * size)):
            return False
        ends = device_empty(2 * size, self.I)
        ends[...] = self.ends[:2 * size]
        self.apart(ends, size)
        return True

    def heavy_on_device(self, E):
        """Where the edge list is in managed memory, run the rounds after the heavy edges'
        filter on the candidates alone, renumbered by rank among themselves, in device
        memory, if it has room for them: their ids sorted, their ends gathered in that
        order, two lists of their number, and the candidates collected again under their
        new ids (a fraction of the edges on power-law graphs: Kronecker 16-20, 14-11% of
        them), so that the rounds read nothing across the host link. Returns ``(ids,
        first)``, the old id of each new one and the forest's size when the renumbered
        rounds began, or None where it made no copies. (A sync: the candidates' count.)"""
        if not in_managed_memory(E.ends):
            return None
        counts = self.cnt.get()                                       # sync
        size, first = int(counts[self.i]), int(counts[2])
        if not (size and self.room(8 * size)):                        # (and the sort's)
            return None
        ids = device_empty(size, self.I)
        ids[...] = self.lists[self.i][:size]
        ids.sort()
        ends = device_empty(2 * size, self.I)
        cp.take(E.ends.reshape(-1, 2), ids, axis=0, out=ends.reshape(-1, 2))
        self.apart(ends, size)
        self.minkey[self.i].fill(np.iinfo(self.I).max)                # (msf.cu no_edge)
        self.cnt[self.i] = 0
        self.collect(0, size)                                         # all cross
        return ids, first

    def room(self, words: int) -> bool:
        """Whether ``words`` of the index type fit in device memory now."""
        nbytes = words * self.I.itemsize
        return free_bytes(nbytes) >= nbytes

    def apart(self, ends, size: int) -> None:
        """The next rounds on ``ends`` (of ``size`` edges) and two lists of ``size``
        candidates in device memory (not managed, whatever their size), the call's own kept
        for :meth:`restore`."""
        self.own = self.ends, self.lists, self.cap
        self.ends, self.cap = ends, size
        self.lists = [device_empty(size, self.I) for _ in range(2)]

    def restore(self, keep_list: bool) -> None:
        """The call's own ends and lists again (:meth:`apart`); with ``keep_list``, the
        candidates of the current list copied into its own (their ids unchanged)."""
        ends, lists, self.cap = self.own
        if keep_list:
            lists[self.i][:self.lists[self.i].size] = self.lists[self.i]
        self.ends, self.lists, self.own = ends, lists, None

    def collect(self, lo: int, hi: int) -> None:
        """Edges ``lo .. hi - 1`` that join two components join the current list."""
        _module.kernel("msf_collect", self.I)(
            _grid(hi - lo), (BLOCK,),
            (self.ends, lo, hi, self.parent, self.minkey[self.i], self.lists[self.i],
             self.count(self.i), self.cap))

    def rounds(self, count: int, bound: int) -> None:
        """Launch ``count`` Borůvka rounds on lists of at most ``bound`` candidates."""
        grid, everyone = _grid(bound), _grid(self.n)
        decide, join, shrink = (_module.kernel(f"msf_{name}", self.I)
                                for name in ("decide", "join", "shrink"))
        for _ in range(count):
            i, o = self.i, 1 - self.i
            decide(grid, (BLOCK,), (self.lists[i], self.count(i), self.ends, self.parent,
                                    self.minkey[i], self.forest, self.count(2),
                                    self.forest.size, self.count(o)))
            join(everyone, (BLOCK,), (self.forest, self.count(5), self.count(2), self.ends,
                                      self.parent, self.minkey[i], self.n))
            shrink(grid, (BLOCK,), (self.lists[i], self.count(i), self.ends, self.parent,
                                    self.minkey[o], self.lists[o], self.count(o), self.cap,
                                    self.count(5), self.count(2)))
            self.i = o

    def flatten(self, labels=None, flags=None, m: int = 0) -> None:
        """Point every vertex at its root (and write the roots to ``labels``); with
        ``flags``, also clear their ``m`` bits for :meth:`order`."""
        _module.kernel("msf_flatten", self.I)(
            _grid(max(self.n, -(-m // 32))), (BLOCK,),
            (self.n, self.parent, _NULL if labels is None else labels,
             _NULL if flags is None else flags, m))
