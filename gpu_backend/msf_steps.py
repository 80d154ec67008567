"""The MSF group step of the gpu executor: Borůvka on the device (``kernels/msf.cu``).

:meth:`MsfSteps.spanning_forest` replaces the Filter-Borůvka text of
:mod:`lagraph_py.algorithms.msf` with edge-centric kernels and returns the same forest.

Per graph, once (cached on the Graph): the upper triangle of the device CSR as an edge list
(ends ``u < v``; edge id ``e`` = position in (u, v) order) and a 64-bit key per edge, the
rank of its weight above the id bits, so that key order is the strict order (weight, u, v)
and a key names its edge. The rank is the weight minus the smallest weight for integer
weights whose span fits beside the id bits (no sort; the forest's weights are read back off
its keys), else the index of the weight among the distinct weights (one device sort; the
weights are then kept by edge id); float64 weights thus cost a call what int64 weights do.
The lightest ``LIGHT_PER_VERTEX * n`` edges by key (a threshold from a sample of keys) are
the light edges.

Per call, on the device: the light edges become candidates (each offered to both endpoints'
``minkey`` by one 64-bit atomicMin), then Borůvka rounds of three kernels (decide: the
lightest candidate of either endpoint's component enters the forest; join: the new forest
edges join their components in a lock-free union-find whose roots are each set's smallest
vertex, so the labels need no extra pass, and the minkey array just read is cleared;
shrink: candidates inside a component dropped, the rest offered to the other minkey array).
A candidate is its key alone (8 bytes): the rounds look its ends up in the edge list and
find their roots again, so two candidate lists cost what the edge list does. After
``LIGHT_ROUNDS`` rounds the heavy edges are filtered against the components found (an edge
inside one is the heaviest of a cycle) and join the candidate list; rounds go on until it
is empty. On a graph of at most ``FUSED_EDGES`` edges all of it is one persistent kernel
(``msf_fused``: the phases a grid barrier apart, the rounds decided on the device, one sync
for the forest's size), since there a call would otherwise be some fifty launches of a few
microseconds of work each. On larger graphs the phases are kernels of their own; they read
list lengths from device words, so the host launches rounds without waiting: it reads the
words back (the call's only synchronizations) every ``ROUNDS_PER_SYNC`` rounds of the
second phase. The forest's keys are sorted on the device and decoded into rows.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from . import _module
from .storage import device_index_dtype, ensure_fits

#: The first phase runs on the lightest ``LIGHT_PER_VERTEX * n`` edges (a forest has < n).
#: 1 was fastest on Kronecker 20..22 and the 2000x2000 grid on an H100 (tried 1, 2, 3, 5;
#: Kronecker 22: 6.8 ms against 12.7 ms with 3).
LIGHT_PER_VERTEX = 1
#: The light-edge threshold is a quantile of every k-th key, this many keys in all.
SAMPLE = 1 << 16
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
BLOCK = 256
_NO_LABEL = 0                  # null pointer argument: msf_flatten writes no labels
NO_EDGE = (1 << 64) - 1        # the largest key (msf.cu NO_EDGE): every edge is light
_EDGE_LIST = "gpu.msf.edges"


def _rank_table(weight_dtype) -> bool:
    """Whether weights of ``weight_dtype`` may need the table of distinct weights (a sort;
    the weights kept by edge id): floats, and 8-byte integers, whose span may not fit
    beside the id bits."""
    return weight_dtype.kind == "f" or weight_dtype.itemsize == 8


def working_set(n: int, m: int, index_dtype, weight_dtype, cached: bool) -> int:
    """Device bytes one call needs for ``n`` vertices and ``m`` undirected edges of
    weights of ``weight_dtype`` (None: unweighted), besides the device CSR: two candidate
    lists of 8-byte keys and ``s + 80`` bytes a vertex (``s`` the index size); unless
    ``cached``, also the edge list (ends ``2 s`` and a key, 8, an edge; the weights too
    where the ranks index the distinct weights) and its build at its peak: the 8-byte CSR
    positions of the edges and the graph's weights uploaded (both directions), held
    until the keys are made, and, where the ranks index the distinct weights, the
    edges' weights and their sort (a copy and the distinct ones)."""
    s = np.dtype(index_dtype).itemsize
    per_edge, per_vertex = 16, s + 80
    if cached:
        return per_edge * m + per_vertex * n
    w = 0 if weight_dtype is None else np.dtype(weight_dtype).itemsize
    table = w and _rank_table(np.dtype(weight_dtype))
    edges = 2 * s + 8 + (w if table else 0)
    if not w:
        build = edges
    elif table:        # ends, positions, the upload, the edges' weights, the sort's copies
        build = 2 * s + 8 + 2 * w + w + 2 * w + 1
    else:
        build = 2 * s + 16 + 2 * w
    return max(edges + per_edge, build) * m + (per_vertex + 16) * n


class _EdgeList:
    """The per-graph device edge list (module docstring): ``ends`` (2 ids per edge),
    ``keys`` (by edge id), ``uoff`` (upper entries before each row), ``m``, ``light``
    (the largest light key), ``nlight`` (light edges), ``idbits``, and how the forest's
    weights are found: ``weights`` (by edge id, where the ranks index the distinct
    weights), else ``offset`` (the smallest weight, which the ranks are above), else
    neither (unweighted)."""

    __slots__ = ("ends", "keys", "uoff", "m", "light", "nlight", "idbits", "weights",
                 "offset")


def _edge_list(A, G) -> _EdgeList:
    """Build the edge list of ``G`` from its device CSR ``A`` (once per graph)."""
    n, I = A.n, A.index_dtype
    E = _EdgeList()
    count = cp.empty(n, dtype=np.int64)
    _module.kernel("msf_upper_count", I)((_module.grid_for(n, BLOCK),), (BLOCK,),
                                         (A.indptr, A.indices, n, count))
    E.uoff = cp.zeros(n + 1, dtype=np.int64)
    cp.cumsum(count, out=E.uoff[1:])
    del count
    E.m = m = int(E.uoff[-1])                                   # sync (once per graph)
    E.ends = cp.empty(2 * m, dtype=I)
    # 8-byte CSR positions: its block (and the weights') holds a candidate list later
    csr = cp.empty(m if G.weighted else 0, dtype=np.int64)
    if m:
        _module.kernel("msf_upper_edges", I)(
            (_module.grid_for(32 * n, BLOCK),), (BLOCK,),
            (A.indptr, A.indices, n, E.uoff, E.ends, csr.data.ptr if csr.size else 0))
    E.idbits = max(1, (m - 1).bit_length())
    if G.weighted:
        E.keys, E.weights, E.offset = _weight_keys(cp.asarray(G.weights), csr, E.idbits)
    else:
        E.keys, E.weights, E.offset = cp.arange(m, dtype=np.uint64), None, None
    del csr
    E.light, E.nlight = NO_EDGE, m
    if LIGHT_PER_VERTEX * n < m:
        sample = cp.sort(E.keys[::max(1, m // SAMPLE)])
        E.light = int(sample[LIGHT_PER_VERTEX * n * sample.size // m])          # sync
        E.nlight = int(cp.count_nonzero(E.keys <= np.uint64(E.light)))         # sync
    return E


#: ``_offset_keys(w, csr, lo, idbits, keys)``: the key of edge ``i`` from its weight
#: ``w[csr[i]]`` (``w`` integer) above the smallest, ``lo``: ``((w - lo) << idbits) | i``
#: (mod 2**64: exact where the span fits).
_offset_keys = cp.ElementwiseKernel(
    "raw T w, int64 csr, uint64 lo, int32 idbits", "uint64 key",
    "key = (((unsigned long long)(long long)w[csr] - lo) << idbits) | (unsigned long long)i",
    "lagraph_msf_offset_keys")
#: ``_index_keys(idbits, keys)``: each rank in ``keys`` becomes the key of its edge ``i``,
#: ``(rank << idbits) | i``, in place.
_index_keys = cp.ElementwiseKernel("int32 idbits", "uint64 key",
                                   "key = (key << idbits) | (unsigned long long)i",
                                   "lagraph_msf_index_keys")


def _weight_keys(w, csr, idbits: int):
    """``(keys, weights, offset)`` of the edges at CSR positions ``csr`` of the device
    weights ``w``: each key an order-preserving rank of the edge's weight (-0.0 and 0.0
    equal) above the ``idbits`` of its id. The rank is the offset from the smallest weight
    (``offset``) if the span fits (integers), else the index among the distinct weights;
    then ``weights`` holds the edges' weights, by edge id, to name the forest's."""
    m = csr.size
    if m and w.dtype.kind != "f":
        lo, hi = int(w.min()), int(w.max())                     # sync (once per graph)
        if hi - lo < (1 << (64 - idbits)) - 1:
            keys = cp.empty(m, dtype=np.uint64)
            _offset_keys(w, csr, np.uint64(lo % 2**64), np.int32(idbits), keys)
            return keys, None, lo
    weights = w[csr]
    keys = cp.searchsorted(cp.unique(weights), weights).view(np.uint64)
    _index_keys(np.int32(idbits), keys)
    return keys, weights, None


def _forest_weights(E: _EdgeList, keys: cp.ndarray, edge: cp.ndarray, dtype) -> cp.ndarray:
    """The weights of the forest edges ``edge`` whose sorted keys are ``keys``."""
    if E.weights is not None:
        return E.weights[edge]
    if E.offset is None:
        return cp.ones(keys.size, dtype=dtype)
    rank = (keys >> np.uint64(E.idbits)) + np.uint64(E.offset % 2**64)
    return rank.view(np.int64 if dtype.kind == "i" else np.uint64).astype(dtype, copy=False)


class MsfSteps:
    """Mixin with the fused MSF step; needs the storage steps of the executor."""

    def spanning_forest(self, G):
        """The minimum spanning forest of the undirected graph ``G`` on the device:
        CuPy arrays ``(src, dst, weight, component)`` as
        :meth:`lagraph_py.executor.Executor.spanning_forest` defines them.

        Working set, with ``m`` undirected edges, ``n`` vertices and ``s`` the index size
        (4 bytes for int32 ids, 8 for int64): per call ``16 m`` bytes of candidate lists
        and ``s + 80`` per vertex; once per graph, cached, an edge list of ``2 s + 8``
        bytes per edge (and the weights, where their ranks index the distinct weights:
        floats, wide integers) and ``8`` per vertex, whose build takes no more than a call
        with 32-bit ids and weights (the edges' 8-byte CSR positions, the weights of both
        directions and the keys, whose blocks the candidate lists take over), besides the
        device CSR: 16 bytes per stored entry in all. :func:`working_set` gives the total.

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
        keys, labels = _boruvka(A, E, self._barrier())
        src, dst, edge = (cp.empty(keys.size, dtype=np.int64) for _ in range(3))
        if keys.size:
            _module.kernel("msf_forest_rows", A.index_dtype)(
                _grid(keys.size), (BLOCK,),
                (keys, keys.size, np.int32(E.idbits), E.uoff, n, A.indptr, A.indices,
                 src, dst, edge))
        return src, dst, _forest_weights(E, keys, edge, wdtype), labels


def _boruvka(A, E, barrier) -> tuple[cp.ndarray, cp.ndarray]:
    """The forest's keys, sorted, and every vertex's label (its tree's smallest vertex):
    in one launch on a graph of at most ``FUSED_EDGES`` edges, else phase by phase."""
    run = _Run(A, E)
    labels = cp.empty(A.n, dtype=np.int64)
    if E.m <= FUSED_EDGES:
        k = run.fused(E, labels, barrier)
    else:
        k = run.launched(E, labels)
    if k > run.forest.size:
        raise RuntimeError("msf: more forest edges than a forest has on the gpu executor")
    return cp.sort(run.forest[:k]), labels


def _grid(work: int) -> tuple[int]:
    return (_module.grid_for(max(1, work), BLOCK),)


class _Run:
    """Device state of one call: union-find, two minkey arrays, two candidate lists (keys),
    forest keys and the count words (``cnt[0]``, ``cnt[1]``: list lengths; ``cnt[2]``:
    forest edges; ``cnt[3:5]``: the fused kernel's results; ``cnt[5]``: forest edges
    joined). Round by round the lists and the minkey arrays alternate together: the next
    round reads list ``i`` and ``minkey[i]``."""

    def __init__(self, A, E):
        n, I = A.n, A.index_dtype
        self.I, self.n = I, n
        # the lists first: on a first call they take the blocks of the edge list's build
        # (its CSR positions and weights) whole, before vertex arrays split them
        self.lists = [cp.empty(E.m, dtype=np.uint64) for _ in range(2)]
        self.parent = cp.empty(n, dtype=I)
        self.both = cp.empty(2 * n, dtype=np.uint64)
        self.minkey = [self.both[:n], self.both[n:]]
        self.forest = cp.empty(max(1, n - 1), dtype=np.uint64)
        self.cnt = cp.zeros(6, dtype=np.uint64)
        self.cap = E.m
        self.ends, self.mask = E.ends, (1 << E.idbits) - 1
        self.i = 0                                 # the list the next round reads

    def max_rounds(self) -> int:
        """More rounds than Borůvka needs: each round at least halves the components that
        still have candidates, once every edge is one."""
        return LIGHT_ROUNDS + self.n.bit_length() + 2

    def fused(self, E, labels, barrier) -> int:
        """Every phase in one launch (``msf_fused``); returns the forest's size."""
        kernel = _module.kernel("msf_fused", self.I)
        _module.launch_resident(
            kernel, _grid(E.m)[0], BLOCK,
            (E.ends, E.keys, E.m, _u64(E.light), np.int32(E.nlight < E.m), self.mask,
             np.int32(LIGHT_ROUNDS), np.int32(self.max_rounds()), self.n, self.parent,
             self.both, *self.lists, self.cnt, self.forest, self.forest.size, labels,
             barrier))
        _, _, k, _, failed, _ = (int(x) for x in self.cnt.get())         # sync
        if failed:
            raise RuntimeError("msf: Borůvka rounds made no progress on the gpu executor")
        return k

    def launched(self, E, labels) -> int:
        """The phases launched one by one, the list length read back every
        ``ROUNDS_PER_SYNC`` rounds of the second phase; returns the forest's size."""
        _module.kernel("msf_init", self.I)(_grid(self.n), (BLOCK,),
                                           (self.n, self.parent, self.both))
        self.collect(E, heavy=False)
        self.rounds(LIGHT_ROUNDS, E.nlight)
        bound = E.nlight
        if E.nlight < E.m:
            self.flatten()                         # one hop to a root for the filter
            self.collect(E, heavy=True)
            bound = E.m
        for _ in range(self.n.bit_length() // ROUNDS_PER_SYNC + 2):   # halving: <= log2(n) + 1
            self.rounds(ROUNDS_PER_SYNC, bound)
            counts = self.cnt.get()                # sync: once per ROUNDS_PER_SYNC rounds
            bound = int(counts[self.i])
            if bound == 0:
                break
        else:
            raise RuntimeError("msf: Borůvka rounds made no progress on the gpu executor")
        self.flatten(labels)
        return int(counts[2])

    def count(self, j: int) -> int:
        return self.cnt.data.ptr + 8 * j

    def collect(self, E, heavy: bool) -> None:
        """The light edges (or the heavy ones, filtered by roots) join the current list."""
        _module.kernel("msf_collect", self.I)(
            _grid(E.m), (BLOCK,),
            (E.ends, E.keys, E.m, _u64(E.light), np.int32(heavy), self.mask, self.parent,
             self.minkey[self.i], self.lists[self.i], self.count(self.i), self.cap))

    def rounds(self, count: int, bound: int) -> None:
        """Launch ``count`` Borůvka rounds on lists of at most ``bound`` candidates."""
        grid, everyone = _grid(bound), _grid(self.n)
        decide, join, shrink = (_module.kernel(f"msf_{name}", self.I)
                                for name in ("decide", "join", "shrink"))
        for _ in range(count):
            i, o = self.i, 1 - self.i
            decide(grid, (BLOCK,), (self.lists[i], self.count(i), self.ends, self.mask,
                                    self.parent, self.minkey[i], self.forest, self.count(2),
                                    self.forest.size, self.count(o)))
            join(everyone, (BLOCK,), (self.forest, self.count(5), self.count(2), self.ends,
                                      self.mask, self.parent, self.minkey[i], self.n))
            shrink(grid, (BLOCK,), (self.lists[i], self.count(i), self.ends, self.mask,
                                    self.parent, self.minkey[o], self.lists[o], self.count(o),
                                    self.cap, self.count(5), self.count(2)))
            self.i = o

    def flatten(self, labels=None) -> None:
        """Point every vertex at its root (and write the roots to ``labels``)."""
        _module.kernel("msf_flatten", self.I)(
            _grid(self.n), (BLOCK,),
            (self.n, self.parent, _NO_LABEL if labels is None else labels))


def _u64(x: int) -> int:
    """A uint64 kernel argument as the int64 of the same bits (how launches pack it)."""
    return x - (1 << 64) if x >= 1 << 63 else x
