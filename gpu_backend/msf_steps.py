"""The MSF group step of the gpu executor: Borůvka on the device (``kernels/msf.cu``).

:meth:`MsfSteps.spanning_forest` replaces the Filter-Borůvka text of
:mod:`lagraph_py.algorithms.msf` with edge-centric kernels and returns the same forest.

Per graph, once (cached on the Graph): the upper triangle of the device CSR as an edge list
(ends ``u < v``; edge id ``e`` = position in (u, v) order) and a 64-bit key per edge, the
rank of its weight above the id bits, so that key order is the strict order (weight, u, v).
The rank is the weight minus the smallest weight for integer weights whose span fits beside
the id bits (no sort), else the index of the weight among the distinct weights (one device
sort); float64 weights thus cost a call what int64 weights do. The lightest
``LIGHT_PER_VERTEX * n`` edges by key (a threshold from a sample of keys) are stored first.

Per call, on the device: the light edges become candidates (each offered to both endpoints'
``minkey`` by one 64-bit atomicMin), then Borůvka rounds of two kernels (hook: the lightest
candidate of either endpoint's component joins them in a lock-free union-find whose roots are
each set's smallest vertex, and enters the forest; shrink: the candidates relabelled by
roots, those inside a component dropped, the others offered to the other minkey array while
the one just read is cleared). After ``LIGHT_ROUNDS`` rounds the heavy edges
are filtered against the components found (an edge inside one is the heaviest of a cycle)
and join the candidate list; rounds go on until it is empty. On a graph of at most
``FUSED_EDGES`` edges all of it is one persistent kernel (``msf_fused``: the phases a grid
barrier apart, the rounds decided on the device, one sync for the forest's size), since
there a call would otherwise be some forty launches of a few microseconds of work each.
On larger graphs the phases are kernels of their own; they read list lengths from device
words, so the host launches rounds without waiting: it reads the words back (the call's
only synchronizations) every ``ROUNDS_PER_SYNC`` rounds of the second phase. The forest's
keys are sorted on the device and decoded into rows.
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
#: larger ones the barriers of a full grid cost more than the launches.
FUSED_EDGES = 1 << 20
BLOCK = 256
_NO_LABEL = 0                  # null pointer argument: msf_flatten writes no labels
_EDGE_LIST = "gpu.msf.edges"


def _candidate_bytes(index_dtype) -> int:
    """Bytes of one candidate (``Candidate<I>`` in msf.cu: two ids and a key, 16-aligned)."""
    return 16 if np.dtype(index_dtype).itemsize == 4 else 32


def working_set(n: int, m: int, index_dtype, weighted: bool, cached: bool) -> int:
    """Device bytes one call needs for ``n`` vertices and ``m`` undirected edges: the
    per-graph edge list unless ``cached`` (see :meth:`MsfSteps.spanning_forest`; 4-byte
    weights count as 8: their rank is computed from an 8-byte copy)."""
    isize = np.dtype(index_dtype).itemsize
    per_edge = 2 * _candidate_bytes(index_dtype)
    per_vertex = isize + 80
    if not cached:
        per_edge += 2 * (2 * isize + 8) + (56 if weighted else 24)
        per_vertex += 8 + isize
    return per_edge * m + per_vertex * n


class _EdgeList:
    """The per-graph device edge list (module docstring): ``ends`` (2 ids per edge),
    ``keys``, ``weights`` (by edge id; None when unweighted), ``uoff`` (upper entries before
    each row), ``m``, ``nlight`` (light edges, stored first), ``idbits``."""

    __slots__ = ("ends", "keys", "weights", "uoff", "m", "nlight", "idbits")


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
    csr = cp.empty(m, dtype=np.int64)
    if m:
        _module.kernel("msf_upper_edges", I)((_module.grid_for(32 * n, BLOCK),), (BLOCK,),
                                             (A.indptr, A.indices, n, E.uoff, E.ends, csr))
    E.idbits = max(1, (m - 1).bit_length())
    E.weights = None if G.weights is None else cp.asarray(G.weights)[csr]
    del csr
    E.keys = _weight_rank(E.weights, m, 64 - E.idbits) << np.uint64(E.idbits)
    E.keys |= cp.arange(m, dtype=np.uint64)
    E.nlight = m
    if LIGHT_PER_VERTEX * n < m:
        sample = cp.sort(E.keys[::max(1, m // SAMPLE)])
        threshold = sample[LIGHT_PER_VERTEX * n * sample.size // m]
        light = E.keys <= threshold
        first = cp.flatnonzero(light)                                          # sync
        E.nlight = int(first.size)
        order = cp.concatenate((first, cp.flatnonzero(~light)))                # sync
        E.keys = E.keys[order]
        E.ends = E.ends.reshape(m, 2)[order].reshape(-1)
    return E


def _weight_rank(w, m: int, bits: int) -> cp.ndarray:
    """uint64 ranks of the ``m`` weights ``w`` (None: all 0), order-preserving, below
    ``2**bits`` (-0.0 and 0.0 equal): the offset from the smallest weight if the span fits,
    else the index among the distinct weights."""
    if w is None:
        return cp.zeros(m, dtype=np.uint64)
    if w.size and w.dtype.kind != "f":
        lo, hi = int(w.min()), int(w.max())                     # sync (once per graph)
        if hi - lo < (1 << bits) - 1:                           # exact mod 2**64:
            return w.astype(np.int64, copy=False).view(np.uint64) - np.uint64(lo % 2**64)
    return cp.searchsorted(cp.unique(w), w).astype(np.uint64)


class MsfSteps:
    """Mixin with the fused MSF step; needs the storage steps of the executor."""

    def spanning_forest(self, G):
        """The minimum spanning forest of the undirected graph ``G`` on the device:
        CuPy arrays ``(src, dst, weight, component)`` as
        :meth:`lagraph_py.executor.Executor.spanning_forest` defines them.

        Working set, with ``m`` undirected edges, ``n`` vertices and ``s`` the index size
        (4 bytes for int32 ids, 8 for int64): per call ``32 m`` bytes of candidate lists
        (``64 m`` with int64 ids) and ``s + 80`` per vertex; once per graph, cached, an edge
        list of ``2 s + 8`` bytes per edge (``+ 8`` weighted) and ``8`` per vertex, whose
        build takes ``2 (2 s + 8) + 56`` bytes per edge at its peak (``+ 24`` unweighted),
        besides the device CSR. :func:`working_set` gives the total.

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
        ensure_fits(working_set(n, m, device_index_dtype(G.indptr, G.indices), G.weighted,
                                cached),
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
        weight = cp.ones(keys.size, dtype=np.int64) if E.weights is None else E.weights[edge]
        return src, dst, weight, labels


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
    """Device state of one call: union-find, two minkey arrays, two candidate lists, forest
    keys and the count words (``cnt[0]``, ``cnt[1]``: list lengths; ``cnt[2]``: forest
    edges; ``cnt[3:5]``: the fused kernel's results). Round by round the lists and the
    minkey arrays alternate together: the next round reads list ``i`` and ``minkey[i]``."""

    def __init__(self, A, E):
        n, I = A.n, A.index_dtype
        self.I, self.n = I, n
        self.parent = cp.empty(n, dtype=I)
        self.both = cp.empty(2 * n, dtype=np.uint64)
        self.minkey = [self.both[:n], self.both[n:]]
        esize = _candidate_bytes(I)
        self.lists = [cp.empty(E.m * esize, dtype=np.uint8) for _ in range(2)]
        self.forest = cp.empty(max(1, n - 1), dtype=np.uint64)
        self.cnt = cp.zeros(5, dtype=np.uint64)
        self.cap = E.m
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
            (E.ends, E.keys, E.nlight, E.m, np.int32(LIGHT_ROUNDS),
             np.int32(self.max_rounds()), self.n, self.parent, self.both, *self.lists,
             self.cnt, self.forest, self.forest.size, labels, barrier, self.count(3)))
        _, _, k, _, failed = (int(x) for x in self.cnt.get())            # sync
        if failed:
            raise RuntimeError("msf: Borůvka rounds made no progress on the gpu executor")
        return k

    def launched(self, E, labels) -> int:
        """The phases launched one by one, the list length read back every
        ``ROUNDS_PER_SYNC`` rounds of the second phase; returns the forest's size."""
        _module.kernel("msf_init", self.I)(_grid(self.n), (BLOCK,),
                                           (self.n, self.parent, self.both))
        self.collect(E, 0, E.nlight, filter_=False)
        self.rounds(LIGHT_ROUNDS, E.nlight)
        bound = E.nlight
        if E.nlight < E.m:
            self.flatten()                         # one hop to a root for the filter
            self.collect(E, E.nlight, E.m, filter_=True)
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

    def collect(self, E, lo: int, hi: int, filter_: bool) -> None:
        """Edges lo..hi-1 of the edge list join the current list (filtered by roots)."""
        if hi > lo:
            _module.kernel("msf_collect", self.I)(
                _grid(hi - lo), (BLOCK,),
                (E.ends, E.keys, lo, hi, np.int32(filter_), self.parent,
                 self.minkey[self.i], self.lists[self.i], self.count(self.i), self.cap))

    def rounds(self, count: int, bound: int) -> None:
        """Launch ``count`` Borůvka rounds on lists of at most ``bound`` candidates."""
        grid = _grid(bound)
        hook, shrink = _module.kernel("msf_hook", self.I), _module.kernel("msf_shrink", self.I)
        for _ in range(count):
            i, o = self.i, 1 - self.i
            hook(grid, (BLOCK,), (self.lists[i], self.count(i), self.parent, self.minkey[i],
                                  self.forest, self.count(2), self.forest.size, self.count(o)))
            shrink(grid, (BLOCK,), (self.lists[i], self.count(i), self.parent, self.minkey[i],
                                    self.minkey[o], self.lists[o], self.count(o), self.cap))
            self.i = o

    def flatten(self, labels=None) -> None:
        """Point every vertex at its root (and write the roots to ``labels``)."""
        _module.kernel("msf_flatten", self.I)(
            _grid(self.n), (BLOCK,),
            (self.n, self.parent, _NO_LABEL if labels is None else labels))
