"""The immutable :class:`Graph` container shared by every algorithm and executor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import graphblas as gb
import numpy as np

from . import memory
from ._checks import as_count, as_id_array, as_weight_array, index_dtypes

if TYPE_CHECKING:                  # (imported on first use: most of the package's import)
    import scipy.sparse as sp


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Graph:
    """A directed or undirected graph stored as a sparse adjacency matrix (CSR by rows).

    Row ``i`` of the adjacency holds the out-edges of vertex ``i``. An undirected graph
    stores both directions of every edge (a self-loop once). Parallel edges collapse into
    one edge that keeps the lightest weight. Self-loops are kept; each algorithm says what
    it does with them. Vertex ids are ``0 .. n-1``.

    Storage: the row pointers (:attr:`indptr`, ``n + 1``) are int32 up to ``2**31 - 1``
    stored entries, int64 beyond; the column indices (:attr:`indices`) are int32 up to
    ``2**31 - 1`` vertices, int64 beyond; the weights (:attr:`weights`) keep the type
    they were given in if it is int32, int64, float32 or float64 (other integer types
    become int64, other real types float64). So a graph of 32-bit ids holds 4 bytes per
    stored entry unweighted, 8 with 4-byte weights, plus 4 or 8 bytes per vertex.

    A Graph never changes after construction, and never shares memory with the arrays it
    was built from. Derived forms that algorithms need (the transpose, degrees, device
    copies) are computed on first use and cached, so a second call costs nothing;
    :func:`lagraph_py.memory.footprint` lists them with their bytes.

    Build one with :meth:`from_edges`, :meth:`from_scipy`, :meth:`from_graphblas`,
    :meth:`from_networkx` or :meth:`from_cupy`. A graph built from networkx keeps its
    node labels (:attr:`labels`) so that results map back to nodes.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1, 1], [1, 2, 2], weight=[5.0, 3.0, 1.0])
    >>> G.n, G.nedges, G.weighted
    (3, 2, True)
    >>> G.to_scipy().toarray()
    array([[0., 5., 0.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """

    __slots__ = ("_n", "_directed", "_indptr", "_indices", "_weights", "_cache", "_labels",
                 "__weakref__")

    def __init__(self, n, directed, indptr, indices, weights, nself_loops=None):
        # Private: use the from_* constructors, which validate and canonicalize.
        self._n = n
        self._directed = directed
        self._indptr = _frozen(indptr)
        self._indices = _frozen(indices)
        self._weights = None if weights is None else _frozen(weights)
        self._cache: dict[str, Any] = {}
        if nself_loops is not None:
            self._cache["nself_loops"] = nself_loops
        self._labels: tuple | None = None         # node labels, set by from_networkx

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, src, dst, weight=None, n=None, directed: bool = True) -> "Graph":
        """Build a graph from parallel arrays of edge endpoints.

        Parameters
        ----------
        src, dst : array_like of int
            Endpoints of each edge (``src[k] -> dst[k]``); non-negative integers.
        weight : array_like of int or float, optional
            One finite weight per edge. Without it the graph is unweighted. int32, int64,
            float32 and float64 weights are kept in their type; other integer types
            become int64, other real types float64.
        n : int, optional
            Number of vertices; by default one more than the largest id (0 if no edges).
        directed : bool, default True
            With ``False`` each pair is the undirected edge ``{src[k], dst[k]}``.

        Returns
        -------
        Graph

        Raises
        ------
        TypeError
            Non-integer ids or non-numeric weights.
        ValueError
            Negative ids, ids ``>= n``, arrays of different lengths, NaN or infinite weights.

        Examples
        --------
        >>> G = Graph.from_edges([0, 1], [1, 0], directed=False)
        >>> G.n, G.nedges, G.nstored
        (2, 1, 2)
        """
        s = as_id_array(src, "src")
        d = as_id_array(dst, "dst")
        if s.shape != d.shape:
            raise ValueError(f"src and dst have different lengths ({s.size} and {d.size})")
        if s.dtype != d.dtype:                 # one id type for the build (ids are >= 0)
            s, d = s.astype(np.int64, copy=False), d.astype(np.int64, copy=False)
        w = None if weight is None else as_weight_array(weight, s.size)
        if n is None:
            n = int(max(s.max(), d.max())) + 1 if s.size else 0
        else:
            n = as_count(n, "n")
            for name, ids in (("src", s), ("dst", d)):
                if ids.size and ids.max() >= n:
                    k = int(np.argmax(ids >= n))
                    raise ValueError(f"{name}[{k}] = {ids[k]} is not a vertex id below n = {n}")
        return cls._from_coo(n, s, d, w, bool(directed))

    @classmethod
    def from_scipy(cls, A, directed: bool = True) -> "Graph":
        """Build a graph from a square scipy.sparse matrix or array.

        Every stored entry is an edge, explicit zeros included (with weight 0). A boolean
        matrix gives an unweighted graph; any other numeric matrix a weighted one.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> A = sp.csr_array(([0.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))
        >>> G = Graph.from_scipy(A)
        >>> G.nedges, G.weighted
        (2, True)
        """
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise TypeError(
                f"A must be a scipy.sparse matrix or array, got {type(A).__name__}; "
                "wrap a dense array with scipy.sparse.csr_array(A)"
            )
        rows, cols = A.shape
        if rows != cols:
            raise ValueError(f"A must be square to be an adjacency matrix, got shape {A.shape}")
        coo = A.tocoo(copy=False)
        w = None if coo.dtype == np.bool_ else as_weight_array(coo.data, coo.nnz, "A's values")
        r, c = as_id_array(coo.row, "row"), as_id_array(coo.col, "col")
        if r.dtype != c.dtype:
            r, c = r.astype(np.int64, copy=False), c.astype(np.int64, copy=False)
        return cls._from_coo(rows, r, c, w, bool(directed))

    @classmethod
    def from_graphblas(cls, M: gb.Matrix, directed: bool = True) -> "Graph":
        """Build a graph from a square ``graphblas.Matrix`` (BOOL means unweighted).

        Examples
        --------
        >>> import graphblas as gb
        >>> M = gb.Matrix.from_coo([0], [1], [True], nrows=2, ncols=2)
        >>> Graph.from_graphblas(M).weighted
        False
        """
        if not isinstance(M, gb.Matrix):
            raise TypeError(f"M must be a graphblas.Matrix, got {type(M).__name__}")
        if M.nrows != M.ncols:
            raise ValueError(f"M must be square, got shape {M.shape}")
        r, c, v = M.to_coo()
        w = None if M.dtype == gb.dtypes.BOOL else as_weight_array(v, v.size, "M's values")
        return cls._from_coo(M.nrows, as_id_array(r, "row"), as_id_array(c, "col"), w,
                             bool(directed))

    @classmethod
    def from_networkx(cls, G, weight: str | None = "weight", nodelist=None) -> "Graph":
        """Build a graph from a networkx graph; vertex ``i`` is node ``labels[i]``.

        Parameters
        ----------
        G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
            Nodes may be any hashable; a DiGraph gives a directed graph. Parallel edges
            of a multigraph keep the lightest weight.
        weight : str or None, default "weight"
            Edge attribute holding the weight; edges without it weigh 1. With None, or
            when no edge carries the attribute, the graph is unweighted.
        nodelist : iterable, optional
            The nodes in vertex-id order, distinct; by default every node in the
            graph's order. Edges to nodes outside ``nodelist`` are left out.

        Returns
        -------
        Graph
            With :attr:`labels` the node of every vertex id.

        Raises
        ------
        TypeError
            ``G`` is not a networkx graph, or a weight is not an int or a real number.
        ValueError
            A weight is NaN or infinite; ``nodelist`` repeats a node or names one that
            ``G`` lacks.

        Examples
        --------
        >>> import networkx as nx
        >>> G = Graph.from_networkx(nx.Graph([("a", "b", {"weight": 2.0}), ("b", "c")]))
        >>> G.labels, G.directed, G.weights
        (('a', 'b', 'c'), False, array([2., 2., 1., 1.]))
        """
        from .nx.convert import graph_of, networkx_edges

        return graph_of(networkx_edges(G, weight, nodelist))

    @classmethod
    def from_cupy(cls, A, directed: bool = True, n=None) -> "Graph":
        """Build a graph from device data: a ``cupyx.scipy.sparse`` matrix, or a tuple
        ``(src, dst)`` or ``(src, dst, weight)`` of CuPy arrays (as :meth:`from_edges`).

        The Graph holds its adjacency on the host as well (every executor and derived
        form reads it there), so the data is read back once. The gpu executor's adjacency
        is made on the device from ``A`` itself and cached on the graph: running on the
        gpu executor copies no edge to the device again (only the ``n + 1`` row
        pointers). The transpose and the loop-free adjacency (used by some algorithms)
        are still made from the host copy on first use.

        Parameters
        ----------
        A : cupyx.scipy.sparse matrix, or tuple of cupy.ndarray
            A square sparse matrix (every stored entry an edge, explicit zeros included;
            boolean means unweighted), or edge endpoint arrays with optional weights.
        directed : bool, default True
        n : int, optional
            Number of vertices for the tuple form (default: one more than the largest id).

        Raises
        ------
        ImportError
            CuPy is not installed.
        TypeError, ValueError
            As :meth:`from_edges` and :meth:`from_scipy`.

        Examples
        --------
        >>> import cupy as cp                                       # doctest: +SKIP
        >>> G = Graph.from_cupy((cp.array([0, 1]), cp.array([1, 2])))  # doctest: +SKIP
        >>> G.nedges                                                # doctest: +SKIP
        2
        """
        import cupy as cp
        import cupyx.scipy.sparse as cpsp

        if cpsp.issparse(A):
            if n is not None:
                raise TypeError("n is given by the shape of a sparse matrix; leave it out")
            rows, cols = A.shape
            if rows != cols:
                raise ValueError(f"A must be square to be an adjacency matrix, got shape {A.shape}")
            coo, n = A.tocoo(), rows
            src, dst, weight = coo.row, coo.col, None if coo.dtype == cp.bool_ else coo.data
        elif isinstance(A, tuple) and len(A) in (2, 3):
            if not all(isinstance(x, cp.ndarray) for x in A):
                raise TypeError("the tuple form takes cupy arrays (src, dst[, weight])")
            src, dst, weight = A if len(A) == 3 else (*A, None)
        else:
            raise TypeError("A must be a cupyx.scipy.sparse matrix or a tuple "
                            f"(src, dst[, weight]) of cupy arrays, got {type(A).__name__}")
        host = [cp.asnumpy(x) for x in (src, dst, weight) if x is not None]  # sync: read back
        graph = cls.from_edges(*host[:2], host[2] if len(host) == 3 else None, n=n,
                               directed=directed)
        graph._seed_device_matrix(src, dst)
        return graph

    def _seed_device_matrix(self, src, dst) -> None:
        """Cache the gpu executor's adjacency, made on the device from validated ids (an
        undirected graph's transpose is the graph itself, so it needs no other).
        """
        import cupy as cp
        from gpu_backend.storage import seed_device_matrix

        s, d = src.astype(cp.int64), dst.astype(cp.int64)
        key = s * self._n + d
        if not self._directed:
            key = cp.concatenate([key, d * self._n + s])
        indices = (cp.unique(key) % self._n).astype(self._indices.dtype)  # CSR order, no repeats
        seed_device_matrix(self, indices)

    @classmethod
    def _from_coo(cls, n, rows, cols, weights, directed) -> "Graph":
        """The Graph of validated COO arrays (ids of one type, below ``n``): repeated
        entries merged (the lightest weight kept), mirrored if undirected.

        Built by a counting sort (:func:`~lagraph_py.cpu_steps.csr.build_csr`: the arrays
        the Graph keeps, plus ``O(n)``) once the cpu loops are compiled; until then by
        SuiteSparse:GraphBLAS (:meth:`_from_coo_graphblas`: no compiling, several times
        the memory), unless that would not fit in the memory available. Either raises
        MemoryError up front where its estimate (:mod:`lagraph_py.memory`) does not fit.
        """
        from .compilation import loops_state

        m, wsize = rows.size, 0 if weights is None else weights.itemsize
        what = f"building a graph of n = {n:,} vertices and {m:,} edges"
        if loops_state() == "scipy":
            need = memory.build_bytes(n, m, directed, wsize, "graphblas")
            if memory.fits(need):
                return cls._from_coo_graphblas(n, rows, cols, weights, directed)
        memory.ensure(memory.build_bytes(n, m, directed, wsize, "compiled"), what)
        from .cpu_steps.csr import build_csr

        indptr, indices, weights, loops = build_csr(n, rows, cols, weights, directed,
                                                    index_dtypes(n, 0)[1])
        return cls(n, directed, indptr.astype(index_dtypes(n, indices.size)[0]), indices,
                   weights, loops)

    @classmethod
    def _from_coo_graphblas(cls, n, rows, cols, weights, directed) -> "Graph":
        """:meth:`_from_coo` by SuiteSparse:GraphBLAS (``Matrix.from_coo`` with ``min``
        merging repeats, then ``A + Aᵀ`` if undirected)."""
        memory.ensure(memory.build_bytes(n, rows.size, directed,
                                         0 if weights is None else weights.itemsize,
                                         "graphblas"),
                      f"building a graph of n = {n:,} vertices and {rows.size:,} edges")
        try:
            if weights is None:
                M = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, dtype=bool)
            else:
                M = gb.Matrix.from_coo(rows, cols, weights, nrows=n, ncols=n,
                                       dup_op=gb.binary.min)
            if not directed:  # building one direction and mirroring is twice as fast
                M = M.ewise_add(M.T, gb.binary.any if weights is None else gb.binary.min).new()
            return cls._from_matrix(M, directed, weights is not None)
        except gb.exceptions.OutOfMemory:
            raise MemoryError(f"not enough memory for a graph of n = {n:,} vertices and "
                              f"{rows.size:,} edges (CSR needs n + 1 row pointers)") from None

    @classmethod
    def _from_matrix(cls, M: gb.Matrix, directed: bool, weighted: bool) -> "Graph":
        """A Graph of the matrix ``M`` (taken over: left empty)."""
        n, nstored = M.nrows, M.nvals
        ptr, idx = index_dtypes(n, nstored)
        csr = M.ss.export("csr", sort=True, give_ownership=True)
        indptr = np.asarray(csr["indptr"]).astype(ptr)
        indices = np.asarray(csr["col_indices"]).astype(idx)
        weights = None
        if weighted:
            values = np.asarray(csr["values"])
            weights = np.full(nstored, values[0]) if csr["is_iso"] and nstored else values
        return cls(n, directed, indptr, indices, weights)

    # ------------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        """Number of vertices."""
        return self._n

    @property
    def nstored(self) -> int:
        """Stored adjacency entries: both directions of an undirected edge (used for TEPS)."""
        return int(self._indices.size)

    @property
    def nedges(self) -> int:
        """Number of edges: stored entries if directed, unordered pairs if undirected."""
        if self._directed:
            return self.nstored
        return (self.nstored + self.nself_loops) // 2

    @property
    def nself_loops(self) -> int:
        """Number of vertices with an edge to themselves."""
        return self._cached("nself_loops", self._count_self_loops)

    def _count_self_loops(self) -> int:
        """Entries on the diagonal, counted a block of rows at a time, about
        ``2**20`` entries a block (the builds count them on the way; this is for a Graph
        made otherwise)."""
        count, step = 0, max(1, self._n // max(1, self.nstored >> 20))
        for lo in range(0, self._n, step):
            hi = min(lo + step, self._n)
            a, b = int(self._indptr[lo]), int(self._indptr[hi])
            rows = np.repeat(np.arange(lo, hi, dtype=self.index_dtype),
                             np.diff(self._indptr[lo:hi + 1]))
            count += int(np.count_nonzero(rows == self._indices[a:b]))
        return count

    @property
    def directed(self) -> bool:
        """Whether edges are ordered pairs."""
        return self._directed

    @property
    def weighted(self) -> bool:
        """Whether edges carry weights (otherwise every weight counts as 1)."""
        return self._weights is not None

    @property
    def index_dtype(self) -> np.dtype:
        """Integer type of the column indices (vertex ids): int32 or int64. The row
        pointers' type is ``indptr.dtype``, which may be wider."""
        return self._indices.dtype

    @property
    def nbytes(self) -> int:
        """Bytes of the stored arrays (row pointers, column indices, weights); the
        derived forms cached with the Graph come on top
        (:func:`lagraph_py.memory.footprint`)."""
        return sum(a.nbytes for a in (self._indptr, self._indices, self._weights)
                   if a is not None)

    @property
    def indptr(self) -> np.ndarray:
        """CSR row pointers of the adjacency (read-only)."""
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        """CSR column indices of the adjacency, sorted within each row (read-only)."""
        return self._indices

    @property
    def weights(self) -> np.ndarray | None:
        """CSR values (int32, int64, float32 or float64, read-only), or None if
        unweighted."""
        return self._weights

    @property
    def labels(self) -> tuple | None:
        """Node label of every vertex id for a graph built by :meth:`from_networkx`,
        else None (vertex ids are the labels)."""
        return self._labels

    # ------------------------------------------------------------------ derived forms
    def rows(self) -> np.ndarray:
        """A new array: the row (source) index of every stored entry, aligned with
        :attr:`indices`, of their type."""
        return np.repeat(np.arange(self._n, dtype=self.index_dtype), np.diff(self._indptr))

    def out_degree(self) -> np.ndarray:
        """Out-degree of every vertex as int64 (cached, read-only)."""
        return self._cached("out_degree", lambda: _frozen(np.diff(self._indptr).astype(np.int64)))

    def in_degree(self) -> np.ndarray:
        """In-degree of every vertex as int64 (cached, read-only)."""
        if not self._directed:
            return self.out_degree()
        return self._cached("in_degree", lambda: _frozen(
            np.bincount(self._indices, minlength=self._n).astype(np.int64)))

    def transpose(self) -> "Graph":
        """The graph with every edge reversed, with arrays of the same types (cached; an
        undirected graph is its own): a counting sort by column once the cpu loops are
        compiled, else SuiteSparse's transpose."""
        if not self._directed:
            return self
        return self._cached("transpose", self._transposed)

    def _transposed(self) -> "Graph":
        from .compilation import loops_state

        memory.ensure(memory.graph_bytes(self._n, self.nstored, self._indptr.dtype,
                                         self._indices.dtype, self._weights),
                      f"the transpose of a graph of {self.nstored:,} stored entries")
        if loops_state() == "scipy":
            M = gb.Matrix.from_csr(self._indptr, self._indices,
                                   True if self._weights is None else self._weights,
                                   ncols=self._n)
            T = Graph._from_matrix(M.T.new(), True, self.weighted)
            return Graph(self._n, True, T.indptr.astype(self._indptr.dtype, copy=False),
                         T.indices.astype(self._indices.dtype, copy=False), T.weights,
                         self.nself_loops)
        from .cpu_steps.csr import transpose_csr

        return Graph(self._n, True, *transpose_csr(self._indptr, self._indices, self._weights),
                     self.nself_loops)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """New int64 arrays ``(src, dst, weight)``, one row per edge.

        An undirected edge appears once, with ``src <= dst``. ``weight`` is None for an
        unweighted graph.
        """
        r = np.repeat(np.arange(self._n, dtype=np.int64), np.diff(self._indptr))
        c = self._indices.astype(np.int64)
        keep = slice(None) if self._directed else r <= c
        w = None if self._weights is None else self._weights[keep].copy()
        return r[keep], c[keep], w

    def to_scipy(self) -> sp.csr_array:
        """A new ``scipy.sparse.csr_array`` of the adjacency (BOOL if unweighted); its
        index arrays are of one type, as scipy requires (int64 where this graph's row
        pointers are)."""
        import scipy.sparse as sp

        data = np.ones(self.nstored, dtype=bool) if self._weights is None else self._weights
        idx = np.promote_types(self._indptr.dtype, self._indices.dtype)
        return sp.csr_array((data.copy(), self._indices.astype(idx), self._indptr.astype(idx)),
                            shape=(self._n, self._n))

    def to_networkx(self, weight: str = "weight"):
        """A new networkx ``Graph`` (undirected) or ``DiGraph`` (directed) of this graph.

        Nodes are :attr:`labels` when the graph has them, else ``0 .. n-1``, in id order;
        a weighted graph puts each weight in the edge attribute ``weight``.

        Examples
        --------
        >>> H = Graph.from_edges([0, 1], [1, 2], weight=[4, 5]).to_networkx()
        >>> list(H.edges(data=True))
        [(0, 1, {'weight': 4}), (1, 2, {'weight': 5})]
        """
        import networkx as nx

        H = nx.Graph() if not self._directed else nx.DiGraph()
        nodes = self._labels if self._labels is not None else range(self._n)
        H.add_nodes_from(nodes)
        src, dst, w = self.edges()
        pairs = zip(map(nodes.__getitem__, src.tolist()), map(nodes.__getitem__, dst.tolist()))
        if w is None:
            H.add_edges_from(pairs)
        else:
            H.add_weighted_edges_from(((u, v, x) for (u, v), x in zip(pairs, w.tolist())),
                                      weight=weight)
        return H

    def to_graphblas(self) -> gb.Matrix:
        """A new ``graphblas.Matrix`` of the adjacency (BOOL if unweighted)."""
        values = True if self._weights is None else self._weights
        return gb.Matrix.from_csr(self._indptr, self._indices, values, ncols=self._n)

    def _cached(self, key: str, factory: Callable[[], Any]) -> Any:
        """Return ``self._cache[key]``, computing it with ``factory()`` on first use.

        Executors keep their own storage of this graph here (device copies, transposes),
        so repeated calls on one graph build it once.
        """
        try:
            return self._cache[key]
        except KeyError:
            value = self._cache[key] = factory()
            return value

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        w = "weighted" if self.weighted else "unweighted"
        return f"<Graph {kind} {w}: n={self._n}, nedges={self.nedges}>"
