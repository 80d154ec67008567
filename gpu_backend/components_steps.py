"""The connected-components group step of the gpu executor: union-find in one launch
(``kernels/components.cu``).

:meth:`ComponentsSteps.connected_components` replaces FastSV (the definition in
``lagraph_py/algorithms/scc.py``) with a lock-free union-find in one persistent kernel,
after Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018): every vertex starts under an
ancestor in the forest of smallest neighbours and its two smallest neighbours are joined
(on sparse graphs and graphs with hubs, each such edge once: an end reads whether the edge
is among the other end's two, which costs less than the second join's search), which puts
most of a graph's giant component in one set; then the rest of every row is joined (the
larger root hooked under the smaller, so a root is its set's smallest id: FastSV's label)
except the rows of vertices already in the set of a vertex of largest degree, and a last
pass writes each vertex's root. The rows are taken by degree bucket, as ECL-CC (Jaiganesh
and Burtscher, HPDC 2018) does: a thread a row up to ``THREAD_ROW`` entries, a warp a row
up to ``LONG_ROW``, whole blocks the chunks of longer rows. The first two phases read
every row's first ``SAMPLED`` entries from an array of their own (``SAMPLED`` words a
vertex, made once, read in order, and at the other ends of the edges). The warp rows, the
chunks, that vertex, those entries and the union-find's scratch array are cached with the
device matrix, so a call allocates only its labels, launches once and never waits for the
device. Out of core, the union-find's array and the row pointers are what a call needs in
device memory (its vertex arrays); the first entries and the labels, written once, are
streamed vertex arrays (:func:`streamed_set`), in managed memory where the budget does not
hold them (then no end reads the other's entries across the host link: both join the
edge).
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from lagraph_py.algorithms.scc import hub_degrees

from . import _module
from .storage import (LONG_ROW, ensure_fits, in_managed_memory, long_row_chunks,
                      streamed_empty)
from .vector import GpuVector

#: Rows of at most this many entries are joined by one thread (THREAD_ROW in
#: components.cu), longer ones up to ``LONG_ROW`` by a warp.
THREAD_ROW = 16
#: Entries of every row the first two phases join, kept apart (SAMPLED in components.cu).
SAMPLED = 2
#: Graphs of at most this many stored entries a vertex join the edges to their rows' first
#: entries once (:func:`joins_once`).
SPARSE_DEGREE = 3
#: ... unless more than this share of the vertices have their predecessor (id - 1) as
#: their smallest neighbour: chains of consecutive ids (an OSM road map numbers its ways'
#: points in order: luxembourg_osm 0.83; DIMACS road maps 0.16-0.28, every other corpus
#: graph at most 0.09), which phase 1 hooks into trees 20 steps deep a vertex
#: (luxembourg_osm; the DIMACS maps 1.2-2.5) that only the joins from both ends walk and
#: shorten in phase 2.
CHAIN_SHARE = 0.5
_BLOCK = 512


class ComponentsSteps:
    """Mixin with the fused connected-components step."""

    def connected_components(self, A, n) -> GpuVector:
        """:meth:`~lagraph_py.executor.Executor.connected_components` by union-find on the
        device: the full vector of each vertex's smallest component id (int64).

        Raises
        ------
        ValueError
            ``A`` is the adjacency of a directed graph (its components are not defined by
            one direction of the arcs: ``lg.scc`` gives the strong ones), or not ``n x n``.
        MemoryError
            The labels and the scratch array do not fit in free device memory.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.executor import get_executor
        >>> ex = get_executor("gpu")
        >>> G = lg.Graph.from_edges([3, 1], [2, 4], n=5, directed=False)
        >>> ex.to_dense(ex.connected_components(ex.matrix(G), G.n), -1).tolist()
        [0, 1, 2, 2, 1]
        """
        if A.graph.directed:
            raise ValueError("connected_components needs the adjacency of an undirected "
                             "graph; this one is directed (lg.scc gives its strongly "
                             "connected components)")
        if A.n != n:
            raise ValueError(f"connected_components: the matrix has {A.n} rows, n is {n}")
        cached = getattr(A, "_cc_buffers", None)
        ensure_fits(working_set(n, A.index_dtype, cached is not None),
                    f"connected components of {n:,} vertices")
        label = streamed_empty(n, np.int64)                           # (written once)
        if n:
            parent, heads, warp_rows, hub, in_chains = cached or _buffers(A)
            cv, clo = long_row_chunks(A)
            kernel = _module.kernel("cc_union_find", A.index_dtype)
            _module.launch_resident(
                kernel, _module.grid_for(max(n, A.nstored // 4), _BLOCK), _BLOCK,
                (A.indptr, A.indices, n, heads, warp_rows, warp_rows.size, cv, clo, cv.size,
                 hub, np.int32(joins_once(A, heads, in_chains)), parent, label,
                 self._barrier()))
        out = GpuVector(n, label, nvals=n)
        out.absent = -1                       # none absent: presence is label != -1
        return out


def joins_once(A, heads: cp.ndarray, chained: bool) -> bool:
    """Whether the kernel joins each edge to a row's first ``SAMPLED`` entries once, an
    end reading the other end's entries in ``heads`` to tell which of the two joins it, or
    from both ends. Once where ``heads`` lies in device memory (not managed memory, which
    the reads would cross the host link for), the graph is not ``chained``
    (:data:`CHAIN_SHARE`, :func:`chained`) and it is sparse (at most
    :data:`SPARSE_DEGREE` entries a vertex: most edges are among both ends' first two, and
    the read spares the second join's search) or has hubs
    (:func:`lagraph_py.algorithms.scc.hub_degrees`). H200, kernel times, the two ways
    alternated in four processes: a uniform random graph of 2^22 vertices and mean degree
    2 450-494 -> 344-375 µs, the road maps USA-road-FLA, NE, NW and NY 12-22% faster,
    Kronecker 20 2-19%, cnr-2000 7%; on denser graphs without hubs the read seldom spares
    a search (a uniform graph of mean degree 8 +10%, the 2000 x 2000 grid +1%), and on
    chained ones the last phases walk the chains that phase 2 no longer does
    (luxembourg_osm 23 -> 31 µs).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> from lagraph_py.executor import get_executor
    >>> ex = get_executor("gpu")
    >>> road, mesh = lg.generate.road(30, 30, seed=1), lg.generate.mesh(10, 10, 10)
    >>> [joins_once(A, cp.empty(2 * A.n, A.index_dtype), False)
    ...  for A in (ex.matrix(road), ex.matrix(mesh))]
    [True, False]
    """
    return (not in_managed_memory(heads) and not chained
            and (A.nstored <= SPARSE_DEGREE * A.n
                 or hub_degrees(A.max_row_degree, A.max_row_degree, A.nstored, A.n)))


def working_set(n: int, index_dtype, cached: bool = False) -> int:
    """Device bytes of one call on ``n`` vertices besides the CSR: the int64 labels and,
    unless ``cached`` with the matrix, the union-find's array and the rows' first
    ``SAMPLED`` entries (the warp rows, a few, besides); :func:`streamed_set` of them
    are streamed vertex arrays."""
    return 8 * n + (0 if cached else (1 + SAMPLED) * n * np.dtype(index_dtype).itemsize)


def streamed_set(n: int, index_dtype) -> int:
    """The bytes of :func:`working_set` (nothing cached) that the kernel reads in order or
    writes once, in managed memory out of core where the budget does not hold them
    (``storage.streamed_alloc``): the rows' first ``SAMPLED`` entries and the labels.

    Examples
    --------
    >>> streamed_set(10, np.int32)
    160
    """
    return n * (SAMPLED * np.dtype(index_dtype).itemsize + 8)


def chained(heads: cp.ndarray) -> bool:
    """Whether more than :data:`CHAIN_SHARE` of the vertices have their predecessor as
    their smallest neighbour, from the rows' first ``SAMPLED`` entries ``heads`` (a
    vertex's own id where its row is empty). One reduction on the device and its sync;
    False, without either, where ``heads`` lies in managed memory (then
    :func:`joins_once` is False anyway).

    Examples
    --------
    >>> heads = cp.asarray([0, 0, 0, 2, 1, 3, 2, 2])        # 1 -> 0, 2 -> 1, 3 -> 2
    >>> chained(heads), chained(cp.asarray([0, 0, 0, 2, 0, 3, 0, 3]))
    (True, False)
    """
    n = heads.size // SAMPLED
    if in_managed_memory(heads) or n < 2:
        return False
    first = heads.reshape(n, SAMPLED)[1:, 0]
    steps = cp.count_nonzero(first == cp.arange(n - 1, dtype=first.dtype))
    return int(steps) > CHAIN_SHARE * n                                  # sync (once)


def _buffers(A) -> tuple[cp.ndarray, cp.ndarray, cp.ndarray, int, bool]:
    """The union-find's scratch array, the rows' first ``SAMPLED`` entries (``cc_heads``),
    the warp rows of ``A``, a vertex of largest degree and whether ``A`` is
    :func:`chained` (cached on ``A``)."""
    deg = A.row_degree_host()
    warp_rows = np.flatnonzero((deg > THREAD_ROW) & (deg <= LONG_ROW))
    heads = streamed_empty(SAMPLED * A.n, A.index_dtype)
    _module.kernel("cc_heads", A.index_dtype)((_module.grid_for(A.n, _BLOCK),), (_BLOCK,),
                                              (A.indptr, A.indices, A.n, heads))
    A._cc_buffers = (cp.empty(A.n, dtype=A.index_dtype), heads,
                     cp.asarray(warp_rows.astype(A.index_dtype)), int(np.argmax(deg)),
                     chained(heads))
    return A._cc_buffers
