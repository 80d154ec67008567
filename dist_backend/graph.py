"""The distributed graph: each rank holds the rows of one range of vertices.

Vertices are split into ``size`` consecutive ranges, ``bounds[r] .. bounds[r + 1]`` on
rank ``r`` (1-D by rows), every range but the last a multiple of :data:`ALIGN` long, so
that the ranks' bitmaps of their ranges put end to end are a bitmap of the whole graph.
A rank holds the out-edges of its vertices (for an undirected graph, both directions of
each edge: so every edge of a vertex is on its rank) as a CSR block whose column indices
are global vertex ids, and on first use the in-edges of its vertices (the rows of the
transpose). Vectors are split by the same ranges.

A :class:`DistGraph` is built inside an MPI job, by every rank together: from the edges
each rank has (:meth:`DistGraph.from_edges`), from a :class:`~lagraph_py.Graph` that
every rank holds (:meth:`DistGraph.from_graph`), from a Kronecker generator that each
rank runs for its own draws (:meth:`DistGraph.kronecker`), or from a file that each rank
reads a byte range of (:func:`dist_backend.io.read_mtx`, :func:`~dist_backend.io.read_edgelist`).
No rank ever holds the whole graph.
"""

from __future__ import annotations

from typing import Any

import graphblas as gb
import numpy as np

from lagraph_py import generate
from lagraph_py._checks import (WEIGHT_TYPES, as_count, as_id_array, as_weight_array,
                                index_dtypes)
from lagraph_py.graph import Graph

from .exchange import Exchange

#: Every range but the last starts at a multiple of ALIGN vertices: ranges of whole
#: 64-bit words in a bitmap of the vertices.
ALIGN = 64
#: Entries a message of :meth:`DistGraph.gather_graph` holds at most (MPI counts are int).
PIECE = 1 << 28
#: A rank's part of at least this many entries is built by the compiled counting sort
#: (2.7x SuiteSparse's build on 2 cores at 16.7M), a smaller one by SuiteSparse: loading
#: the compiled loops takes tenths of a second, which a small part does not repay.
COUNTING_SORT_MIN = 1 << 20

_WORLD: Exchange | None = None


def world() -> Exchange:
    """The :class:`~dist_backend.exchange.Exchange` of ``MPI.COMM_WORLD`` (made once)."""
    global _WORLD
    if _WORLD is None:
        _WORLD = Exchange()
    return _WORLD


def id_dtype(n: int) -> np.dtype:
    """The integer type of arrays of vertex ids ``0 .. n`` (or of places in a list of
    ``n``) on the ranks: int32 where they fit.

    Examples
    --------
    >>> id_dtype(2**20), id_dtype(2**31 + 1)
    (dtype('int32'), dtype('int64'))
    """
    return np.dtype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)


def partition(n: int, size: int) -> np.ndarray:
    """``bounds`` of ``size`` ranges of ``0 .. n-1``: equal multiples of :data:`ALIGN`
    (the last range shorter, and ranges past ``n`` empty).

    Examples
    --------
    >>> partition(200, 3).tolist()
    [0, 128, 200, 200]
    >>> partition(1000, 4).tolist()
    [0, 256, 512, 768, 1000]
    """
    step = -(-(-(-n // size)) // ALIGN) * ALIGN         # ceil(ceil(n / size) / ALIGN)
    return np.minimum(np.arange(size + 1, dtype=np.int64) * step, n)


def owner(bounds: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The rank holding each vertex of ``ids``."""
    return np.searchsorted(bounds, ids, side="right") - 1


class DistGraph:
    """A graph whose rows are split over the ranks of an MPI job (see the module text).

    Build one with :meth:`from_edges`, :meth:`from_graph`, :meth:`kronecker`,
    :func:`lagraph_py.distributed.read_mtx` or :func:`lagraph_py.distributed.read_edgelist`,
    on every rank together. ``lg.bfs``, ``lg.msf``, ``lg.scc`` and
    ``lg.connected_components`` take it like a :class:`~lagraph_py.Graph`, run on every
    rank together (``backend="cpu"``: each rank computes on its cpu, ``"gpu"``: on its
    GPU), and return this rank's range of each per-vertex result; :meth:`gather` collects
    a whole one on rank 0.

    Attributes
    ----------
    n, directed, weighted, nstored, nedges, nself_loops
        Of the whole graph, as on :class:`~lagraph_py.Graph`.
    bounds : numpy.ndarray
        ``bounds[r] .. bounds[r + 1]`` are the vertices of rank ``r``.
    lo, hi, nlocal
        This rank's range and its length.
    indptr, indices, weights
        This rank's rows: CSR row pointers (int64, ``nlocal + 1``), global column ids
        (int32 when ``n`` fits, sorted in each row) and weights (or None).
    """

    #: The executor that runs each ``backend=`` on a distributed graph (see
    #: :func:`lagraph_py.registry.get_executor`).
    backends = {"cpu": "distributed", "gpu": "distributed-gpu",
                "distributed": "distributed", "distributed-gpu": "distributed-gpu"}

    def __init__(self, exchange: Exchange, n: int, directed: bool, bounds: np.ndarray,
                 indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None):
        # Private: use the constructors, which build the rows on every rank together.
        self.exchange = exchange
        self.n, self.directed, self.bounds = n, directed, bounds
        self.lo, self.hi = int(bounds[exchange.rank]), int(bounds[exchange.rank + 1])
        self.nlocal = self.hi - self.lo
        self.indptr, self.indices, self.weights = indptr, indices, weights
        self._cache: dict[str, Any] = {}
        loops = int(np.count_nonzero(self.rows() == indices))
        counts = exchange.allreduce(np.array([indices.size, loops, weights is not None],
                                             np.int64), "sum")
        self.nstored, self.nself_loops = int(counts[0]), int(counts[1])
        if counts[2] not in (0, exchange.size):
            raise ValueError("some ranks gave weights and others did not")
        self.weighted = bool(counts[2])

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, src, dst, weight=None, n=None, directed: bool = True, *,
                   exchange: Exchange | None = None) -> "DistGraph":
        """Build a graph from the edges every rank gives (any edges, not only its rows).

        As :meth:`lagraph_py.Graph.from_edges` over the union of the ranks' edges:
        parallel edges keep the lightest weight; with ``directed=False`` each pair is the
        undirected edge ``{src[k], dst[k]}``. Every rank calls it, with its own edges
        (possibly none) and the same ``n`` and ``directed``.

        Parameters
        ----------
        src, dst : array_like of int
        weight : array_like of int or float, optional
            Weighted on every rank or on none.
        n : int, optional
            Number of vertices; by default one more than the largest id on any rank.
        directed : bool, default True
        exchange : Exchange, optional
            The ranks to build on; default every rank of ``MPI.COMM_WORLD``.
        """
        ex = exchange or world()
        with ex.guard():
            s, d = as_id_array(src, "src"), as_id_array(dst, "dst")
            if s.shape != d.shape:
                raise ValueError(f"src and dst have different lengths ({s.size} and {d.size})")
            w = None if weight is None else as_weight_array(weight, s.size)
            top = int(max(s.max(), d.max())) + 1 if s.size else 0
            # the weight type of the ranks with edges (-1 without), which must agree
            kind = WEIGHT_TYPES.index(w.dtype) if w is not None and s.size else -1
        top, kind, low = (int(x) for x in ex.allreduce(
            np.array([top, kind, -kind if kind >= 0 else -len(WEIGHT_TYPES)], np.int64), "max"))
        if kind >= 0 and w is not None:
            if -low != kind:
                raise ValueError("the ranks give weights of different types: give every "
                                 "rank the same weight dtype")
            w = w.astype(WEIGHT_TYPES[kind], copy=False)
        if n is None:
            n = top
        else:
            n = as_count(n, "n")
            if top > n:
                raise ValueError(f"an edge names vertex {top - 1}, not a vertex id below "
                                 f"n = {n}")
        return cls._routed(ex, n, s, d, w, bool(directed))

    @classmethod
    def from_graph(cls, G, *, exchange: Exchange | None = None) -> "DistGraph":
        """The distributed form of a :class:`~lagraph_py.Graph` that every rank holds
        (the same on each): each rank keeps its rows. For graphs that fit one process
        (tests, comparisons); larger ones are built by the other constructors.

        Examples
        --------
        >>> import lagraph_py as lg                             # doctest: +SKIP
        >>> D = DistGraph.from_graph(lg.generate.grid(4, 4))    # doctest: +SKIP
        """
        ex = exchange or world()
        bounds = partition(G.n, ex.size)
        lo, hi = int(bounds[ex.rank]), int(bounds[ex.rank + 1])
        a, b = int(G.indptr[lo]), int(G.indptr[hi])
        indptr = G.indptr[lo:hi + 1].astype(np.int64) - a
        weights = None if G.weights is None else G.weights[a:b].copy()
        return cls(ex, G.n, G.directed, bounds, indptr,
                   G.indices[a:b].astype(index_dtypes(G.n, 0)[1]), weights)

    @classmethod
    def kronecker(cls, scale, edgefactor=16, seed=0, *, weights=None, directed=False,
                  exchange: Exchange | None = None) -> "DistGraph":
        """The graph of :func:`lagraph_py.generate.kronecker` with the same arguments,
        each rank drawing only its share of the edges.

        The generator's random stream is cut at its blocks of edges: rank ``r`` jumps
        its copy of the stream (``PCG64.advance``) to its first block, draws its blocks,
        then every rank draws the vertex permutation (``2**scale`` ids) and its share of
        the weights. The edges then go to the ranks holding their rows.
        """
        ex = exchange or world()
        with ex.guard():
            src, dst, w, n = _kronecker_share(scale, edgefactor, seed, weights, ex)
        return cls._routed(ex, n, src, dst, w, bool(directed))

    @classmethod
    def _routed(cls, ex: Exchange, n: int, src, dst, w, directed: bool) -> "DistGraph":
        """Send each edge to the rank of its row (both directions if undirected), then
        build the local rows, merging parallel edges (lightest weight)."""
        bounds = partition(n, ex.size)
        ids = index_dtypes(n, 0)[1]                  # one id type on every rank
        src, dst = src.astype(ids, copy=False), dst.astype(ids, copy=False)
        if not directed:
            src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
            w = None if w is None else np.concatenate([w, w])
        # the rank of each row (ranges of `step` rows), as the smallest integers, which
        # numpy sorts by radix
        step = int(bounds[1]) or 1
        to = np.minimum(src // step, ex.size - 1).astype(np.min_scalar_type(ex.size))
        order = np.argsort(to, kind="stable")
        counts = np.bincount(to, minlength=ex.size)
        arrays = [src[order], dst[order]] + ([] if w is None else [w[order]])
        del src, dst, w, to, order
        received, _ = ex.alltoallv(arrays, counts)
        with ex.guard():
            lo, hi = int(bounds[ex.rank]), int(bounds[ex.rank + 1])
            indptr, indices, weights = _local_rows(received, lo, hi, n)
        return cls(ex, n, directed, bounds, indptr, indices, weights)

    # ------------------------------------------------------------------ local forms
    @property
    def rank(self) -> int:
        return self.exchange.rank

    @property
    def nedges(self) -> int:
        """Edges: stored entries if directed, unordered pairs if undirected."""
        return self.nstored if self.directed else (self.nstored + self.nself_loops) // 2

    @property
    def index_dtype(self) -> np.dtype:
        return self.indices.dtype

    def rows(self) -> np.ndarray:
        """Global row id of every local stored entry (cached)."""
        return self._cached("rows", lambda: np.repeat(
            np.arange(self.lo, self.hi, dtype=self.indices.dtype), np.diff(self.indptr)))

    def in_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)`` of the in-edges of this rank's vertices: its rows of the
        transpose (an undirected graph's own rows). Collective on first use (cached)."""
        if not self.directed:
            return self.indptr, self.indices
        return self._cached("in_rows", lambda: _transposed_rows(self))

    def column_block(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)`` of the edges into this rank's vertices, as rows of every
        vertex: row ``u`` (of ``n``) lists, ascending, the offsets ``v - lo`` of the
        vertices ``v`` of this range with an edge ``u -> v``. A push level of GPU ranks
        expands the whole frontier over it, so that every vertex it reaches is this
        rank's. The transpose of :meth:`in_rows` (collective on first use for a directed
        graph), cached; on one rank, the graph's own rows.
        """
        if self.exchange.size == 1:
            return self.indptr, self.indices
        return self._cached("column_block", lambda: _column_block(self))

    def out_degree(self) -> np.ndarray:
        """The out-degree of every vertex of the graph (int64), on every rank.
        Collective on first use (cached): ``8 n`` bytes a rank."""
        return self._cached("out_degree", lambda: _everywhere(self, np.diff(self.indptr)))

    def in_degree(self) -> np.ndarray:
        """The in-degree of every vertex (int64), on every rank; collective on first use."""
        if not self.directed:
            return self.out_degree()
        return self._cached("in_degree",
                            lambda: _everywhere(self, np.diff(self.in_rows()[0])))

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """New int64 arrays ``(src, dst, weight)`` of this rank's rows' edges (an
        undirected edge once in the whole graph: on the rank of ``min(src, dst)``)."""
        r, c = self.rows().astype(np.int64), self.indices.astype(np.int64)
        keep = slice(None) if self.directed else r <= c
        return r[keep], c[keep], None if self.weights is None else self.weights[keep].copy()

    def gather(self, part, root: int = 0):
        """The whole of a per-vertex result from each rank's ``part`` (its range), on rank
        ``root``; None on the others. Collective.

        Examples
        --------
        >>> r = lg.bfs(D, 0)                 # doctest: +SKIP
        >>> level = D.gather(r.level)        # doctest: +SKIP
        """
        from lagraph_py.results import asnumpy

        part = asnumpy(part)
        if part.size != self.nlocal:
            raise ValueError(f"part has {part.size} entries; this rank's range has "
                             f"{self.nlocal}")
        (whole,), _ = self.exchange.allgather([part])
        return whole if self.rank == root else None

    def gather_graph(self, root: int = 0):
        """The whole graph as a :class:`~lagraph_py.Graph` on rank ``root``, None on the
        others: every rank's rows sent there (in pieces of at most :data:`PIECE`
        entries). Collective; the whole graph must fit one process (to compare one
        process with many on the same graph).

        Examples
        --------
        >>> D = DistGraph.kronecker(10)              # doctest: +SKIP
        >>> G = D.gather_graph()                     # doctest: +SKIP
        """
        ex = self.exchange
        (degrees,), _ = ex.allgather([np.diff(self.indptr)])
        arrays = [self.indices] + ([self.weights] if self.weighted else [])
        if self.rank != root:
            for a in arrays:
                for lo in range(0, a.size, PIECE):
                    ex.comm.Send(np.ascontiguousarray(a[lo:lo + PIECE]), dest=root)
            return None
        indptr = np.concatenate([[0], np.cumsum(degrees)])
        whole = [np.empty(int(indptr[-1]), a.dtype) for a in arrays]
        for r in range(ex.size):
            first, last = indptr[self.bounds[r]], indptr[self.bounds[r + 1]]
            for a, out in zip(arrays, whole):
                if r == self.rank:
                    out[first:last] = a
                    continue
                for lo in range(first, last, PIECE):
                    ex.comm.Recv(out[lo:min(last, lo + PIECE)], source=r)
        return Graph(self.n, self.directed,
                     indptr.astype(index_dtypes(self.n, whole[0].size)[0]), whole[0],
                     whole[1] if self.weighted else None, self.nself_loops)

    _cached = Graph._cached          # (the same cache of derived forms as a Graph's)

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = "weighted" if self.weighted else "unweighted"
        return (f"<DistGraph {kind} {w}: n={self.n}, nedges={self.nedges}; rank "
                f"{self.rank} of {self.exchange.size} holds {self.lo}..{self.hi - 1}>")


# ---------------------------------------------------------------------- building
def _local_rows(received, lo: int, hi: int, n: int):
    """CSR ``(indptr, indices, weights)`` of the edges ``received`` (global ``src``,
    ``dst`` and maybe weights) whose sources are ``lo .. hi-1``; parallel edges merged.

    Built by the counting sort of a Graph's build (:func:`~lagraph_py.cpu_steps.csr.build_csr`)
    where the part has at least :data:`COUNTING_SORT_MIN` entries and the cpu loops are
    compiled, else by SuiteSparse:GraphBLAS. ``received`` is consumed (its sources made
    local in place).
    """
    from lagraph_py.compilation import loops_state

    src, dst = received[0], received[1]
    w = received[2] if len(received) > 2 else None
    np.subtract(src, src.dtype.type(lo), out=src)                # local rows
    ids = index_dtypes(n, 0)[1]
    try:
        if src.size >= COUNTING_SORT_MIN and loops_state() != "scipy":
            from lagraph_py.cpu_steps.csr import build_csr

            indptr, indices, weights, _ = build_csr(hi - lo, src, dst, w, True, ids)
            return indptr, indices, weights
        if w is None:
            M = gb.Matrix.from_coo(src, dst, True, nrows=hi - lo, ncols=n, dtype=bool)
        else:
            M = gb.Matrix.from_coo(src, dst, w, nrows=hi - lo, ncols=n,
                                   dup_op=gb.binary.min)
        csr = M.ss.export("csr", sort=True, give_ownership=True)
    except (gb.exceptions.OutOfMemory, MemoryError):
        raise MemoryError(f"not enough memory for this rank's part: {hi - lo:,} rows "
                          f"(CSR row pointers) and {src.size:,} stored entries") from None
    indptr = np.asarray(csr["indptr"]).astype(np.int64)
    indices = np.asarray(csr["col_indices"]).astype(ids)
    weights = None
    if w is not None:
        values = np.asarray(csr["values"])
        weights = (np.full(indices.size, values[0]) if csr["is_iso"] and indices.size
                   else values.copy())
    return indptr, indices, weights


def _transposed_rows(G: DistGraph) -> tuple[np.ndarray, np.ndarray]:
    """The in-edges of each rank's vertices: every edge sent to the rank of its head."""
    src, dst = G.rows().astype(np.int64), G.indices.astype(np.int64)
    to = owner(G.bounds, dst)
    order = np.argsort(to, kind="stable")
    (tail, head), _ = G.exchange.alltoallv([src[order], dst[order]],
                                           np.bincount(to, minlength=G.exchange.size))
    indptr, indices, _ = _local_rows([head, tail], G.lo, G.hi, G.n)
    return indptr, indices


def _column_block(G: DistGraph) -> tuple[np.ndarray, np.ndarray]:
    """The in-edges of each of the rank's vertices ``v`` (tail ``u``) as rows ``u`` of
    local offsets ``v - lo``: the rows of in-edges exported by columns (SuiteSparse's
    transpose, over the cores)."""
    in_ptr, in_ind = G.in_rows()
    try:
        M = gb.Matrix.from_csr(in_ptr, in_ind, True, ncols=G.n)
        csc = M.ss.export("csc", sort=True, give_ownership=True)
    except (gb.exceptions.OutOfMemory, MemoryError):
        raise MemoryError(f"not enough memory for this rank's column block: {G.n:,} rows "
                          f"and {in_ind.size:,} stored entries") from None
    return (np.asarray(csc["indptr"]).astype(np.int64),
            np.asarray(csc["row_indices"]).astype(index_dtypes(G.nlocal, 0)[1]))


def _everywhere(G: DistGraph, part: np.ndarray) -> np.ndarray:
    (whole,), _ = G.exchange.allgather([part.astype(np.int64)])
    whole.flags.writeable = False
    return whole


def _kronecker_share(scale, edgefactor, seed, weights, ex: Exchange):
    """This rank's share of the draws of :func:`lagraph_py.generate.kronecker`: permuted
    ``(src, dst)``, their weights (or None) and ``n``; whole blocks of the generator's
    ``_CHUNK`` edges, the blocks split evenly over the ranks."""
    scale = generate._as_scale(scale)
    m = as_count(edgefactor, "edgefactor") << scale
    kind = generate._as_weight_kind(weights)
    generate._rng(seed)                                      # the generator's seed checks
    nblocks = -(-m // generate._CHUNK)
    first, last = (nblocks * ex.rank // ex.size, nblocks * (ex.rank + 1) // ex.size)
    lo, hi = first * generate._CHUNK, min(m, last * generate._CHUNK)
    raw_per_edge_level = generate._CHUNK // 2                # raw draws a full block level
    rng = np.random.default_rng(seed)
    rng.bit_generator.advance(first * scale * raw_per_edge_level)
    src, dst = generate._quadrant_edges(scale, hi - lo, generate.GRAPH500_ABC, rng)
    tail = m - (nblocks - 1) * generate._CHUNK               # edges of the last block
    rng = np.random.default_rng(seed)                        # the stream after every edge
    rng.bit_generator.advance(((nblocks - 1) * raw_per_edge_level + (tail + 1) // 2) * scale
                              if m else 0)
    perm = rng.permutation(1 << scale).astype(np.uint32)
    src, dst = (np.take(perm, ids, mode="clip").astype(np.int64) for ids in (src, dst))
    w = None
    if kind == "uniform":                                    # two draws per raw number
        rng.bit_generator.advance(lo // 2)
        w = rng.integers(0, generate.UNIFORM_WEIGHT_HIGH, size=hi - lo, dtype=np.int64)
    elif kind == "real":                                     # one draw per raw number
        rng.bit_generator.advance(lo)
        w = rng.random(hi - lo)
    return src, dst, w, 1 << scale
