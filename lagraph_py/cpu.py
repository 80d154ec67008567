"""The cpu executor: the step vocabulary on SuiteSparse:GraphBLAS (python-graphblas).

Vectors are ``graphblas.Vector``; matrices are BOOL iso ``graphblas.Matrix`` patterns
stored by rows (CSR). A pull step multiplies the stored transpose by a bitmap frontier, so
SuiteSparse runs it as a dot product per row with early exit under an ANY monoid; a push
step is a saxpy over the sparse frontier.

The pattern of a Graph (:meth:`CpuExecutor.matrix`) is a :class:`CsrPattern`: the Graph's
own CSR arrays, whose ``graphblas.Matrix`` (SuiteSparse's 64-bit indices: 8 bytes an
entry and a vertex) is made only when a python-graphblas step first needs it, so that the
compiled steps, which read the arrays, cost no copy of the graph.
"""

from __future__ import annotations

import weakref

import graphblas as gb
import numpy as np
from graphblas import Vector, binary, indexunary, monoid

from .executor import Executor, monoid_identity

INT64 = gb.dtypes.INT64

_SEMIRINGS = {
    "any_secondi": gb.semiring.ss.any_secondi[INT64],
    "any_pair": gb.semiring.any_pair[INT64],
    "plus_pair": gb.semiring.plus_pair[INT64],
    "min_first": gb.semiring.min_first,
    "max_first": gb.semiring.max_first,
    "min_second": gb.semiring.min_second,
    "max_second": gb.semiring.max_second,
}
_BINARY = {
    "min": binary.min, "max": binary.max, "plus": binary.plus, "minus": binary.minus,
    "times": binary.times, "first": binary.first, "second": binary.second,
    "eq": binary.eq, "ne": binary.ne, "lt": binary.lt, "le": binary.le, "gt": binary.gt,
    "ge": binary.ge,
}
_SELECT = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_MONOIDS = {"min": monoid.min, "max": monoid.max, "plus": monoid.plus, "any": monoid.any}
_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


def _result_type(u, op: str):
    """Comparisons give int64 0/1, so every vector stays numeric."""
    return INT64 if op in _COMPARISONS else None


class CpuExecutor(Executor):
    """The reference executor on python-graphblas."""

    name = "cpu"
    memory_path = "reference"

    # ---------------------------------------------------------------- storage
    def matrix(self, G, *, transpose=False, loops=True):
        transpose = transpose and G.directed  # an undirected graph is its own transpose
        loops = loops or G.nself_loops == 0   # nothing to drop: share the one matrix

        def build():
            H = G.transpose() if transpose else G
            M = CsrPattern(H.indptr, H.indices)
            return M if loops else M.graphblas().select("offdiag").new()
        return G._cached(f"cpu.matrix.T{int(transpose)}.L{int(loops)}", build)

    def degree(self, G, *, incoming=False):
        deg = G.in_degree() if incoming else G.out_degree()
        return G._cached(f"cpu.degree.{int(incoming)}",
                         lambda: _keep_host_form(Vector.from_dense(deg), "dense", deg))

    def array(self, values):
        return np.array(values, copy=True)

    def vector(self, size, indices, values):
        indices = np.asarray(indices, dtype=np.int64)
        if np.ndim(values) and indices.size == size and np.array_equal(indices, np.arange(size)):
            return Vector.from_dense(np.asarray(values))
        if indices.size == 1 and 0 <= indices[0] < size:  # a BFS source: the cheap import
            values = np.array(values, dtype=None if np.ndim(values) else np.int64).reshape(1)
            return Vector.ss.import_sparse(size=size, indices=indices.view(np.uint64),
                                           values=values, sorted_index=True,
                                           take_ownership=True)
        return Vector.from_coo(indices, values, size=size,
                               dtype=None if np.ndim(values) else INT64)

    def full(self, size, value):
        return Vector.from_scalar(value, size, dtype=INT64 if isinstance(value, (int, np.integer))
                                  else None)

    def iota(self, size):
        return Vector.from_dense(np.arange(size, dtype=np.int64))

    def dup(self, u):
        return u.dup()

    # ---------------------------------------------------------------- reading back
    def nvals(self, u):
        return u.nvals

    def to_coo(self, u):
        idx, vals = u.to_coo()
        return idx.astype(np.int64), vals

    def to_dense(self, u, fill, *, consume=False):
        if consume:  # u's own arrays: fill where the bitmap says absent
            full = u.nvals == u.size
            bitmap, values = take_bitmap(u)
            if not full:
                values[~bitmap] = fill
            return values
        idx, vals = u.to_coo()
        out = np.full(u.size, fill, dtype=vals.dtype)
        out[idx] = vals
        return out

    # ---------------------------------------------------------------- algebra
    def vxm(self, u, A, semiring, *, mask=None, complement=False):
        return u.vxm(_graphblas(A), _SEMIRINGS[semiring]).new(mask=_structure(mask, complement))

    def mxv(self, A, u, semiring, *, mask=None, complement=False):
        u.ss.config["sparsity_control"] = "bitmap"  # a bitmap input turns this into a pull
        w = _graphblas(A).mxv(u, _SEMIRINGS[semiring]).new(mask=_structure(mask, complement))
        u.ss.config["sparsity_control"] = "auto"
        return w

    def ewise_add(self, u, v, op):
        return u.ewise_add(v, _BINARY[op]).new(dtype=_result_type(u, op))

    def ewise_mult(self, u, v, op):
        return u.ewise_mult(v, _BINARY[op]).new(dtype=_result_type(u, op))

    def apply(self, u, op, right=None):
        if op == "index":
            return u.apply(indexunary.rowindex).new(dtype=INT64)
        return u.apply(_BINARY[op], right=right).new(dtype=_result_type(u, op))

    def select(self, u, op, thunk):
        return u.select(_SELECT[op], thunk).new()

    def mask(self, u, mask, *, complement=False):
        if complement:
            return u.dup(mask=~mask.S)
        return u.ewise_mult(mask, binary.first).new(dtype=u.dtype)

    def assign(self, w, u, *, mask=None):
        w(mask=_structure(mask, False), accum=binary.second) << u

    def assign_scalar(self, w, value, *, mask):
        w(mask.S) << value

    def reduce(self, u, monoid):
        return u.reduce(_MONOIDS[monoid]).value

    def extract(self, table, index):
        k, targets = index.to_coo()
        values, present = _dense(table)
        hit = present[targets]
        return _from_sorted(index.size, k[hit], values[targets[hit]])

    def scatter(self, size, index, values, monoid):
        i_idx, targets = index.to_coo()
        v_idx, vals = values.to_coo()
        if not np.array_equal(i_idx, v_idx):  # keep the entries present in both
            _, a, b = np.intersect1d(i_idx, v_idx, assume_unique=True, return_indices=True)
            targets, vals = targets[a], vals[b]
        out = np.empty(size, dtype=vals.dtype)
        present = np.zeros(size, dtype=bool)
        present[targets] = True
        if monoid == "any":  # the first of duplicates wins, as with GraphBLAS dup_op=first
            first = np.full(size, targets.size)
            np.minimum.at(first, targets, np.arange(targets.size))
            out[present] = vals[first[present]]
        else:
            out[present] = monoid_identity(monoid, vals.dtype)
            _UFUNC[monoid].at(out, targets, vals)
        k = np.flatnonzero(present)
        return _from_sorted(size, k, out[k])

    def select_edges(self, M, labels):
        M = _graphblas(M)
        D = labels.diag()
        row_label = D.mxm(M, gb.semiring.any_first).new()     # (i, j) -> labels(i)
        col_label = M.mxm(D, gb.semiring.any_second).new()    # (i, j) -> labels(j)
        same = row_label.ewise_mult(col_label, binary.eq).new()
        return same.select("==", True).new()


class CsrPattern:
    """The pattern of a Graph's adjacency (or of its transpose) as the cpu executors hold
    it: the Graph's own CSR arrays ``indptr`` and ``indices`` (read-only), and, made from
    them when first asked for (:meth:`graphblas`) and then kept, its BOOL iso
    ``graphblas.Matrix``.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1], [1, 2])
    >>> A = CpuExecutor().matrix(G)
    >>> A.indices is G.indices, A.graphblas().nvals
    (True, 2)
    """

    __slots__ = ("indptr", "indices", "_matrix", "__weakref__")

    def __init__(self, indptr: np.ndarray, indices: np.ndarray):
        self.indptr, self.indices, self._matrix = indptr, indices, None

    def graphblas(self) -> gb.Matrix:
        """The ``graphblas.Matrix`` of the pattern (made on the first call: 8 bytes an
        entry and a vertex)."""
        if self._matrix is None:
            n = self.indptr.size - 1
            self._matrix = gb.Matrix.from_csr(self.indptr, self.indices, True, ncols=n)
        return self._matrix

    @property
    def nbytes(self) -> int:
        """Bytes this pattern holds of its own: its ``graphblas.Matrix`` once made (the
        CSR arrays are the Graph's)."""
        if self._matrix is None:
            return 0
        return 8 * (self.indptr.size + self._matrix.nvals)


def _graphblas(M):
    """The ``graphblas.Matrix`` of a matrix step argument."""
    return M.graphblas() if isinstance(M, CsrPattern) else M


# Numpy forms of graphblas objects this executor caches on a Graph (matrices, degrees), by
# (id of the object, name of the form); an entry goes when its object does.
_HOST_FORMS: dict[tuple[int, str], object] = {}


def host_form(x, name: str, build):
    """The numpy form ``name`` of the graphblas object ``x``: ``build()`` on first use,
    then kept while ``x`` lives (read-only: never write to it).

    Examples
    --------
    >>> u = Vector.from_dense(np.array([3, 1]))
    >>> host_form(u, "sorted", lambda: np.sort(u.to_dense())).tolist()
    [1, 3]
    """
    key = (id(x), name)
    form = _HOST_FORMS.get(key)
    if form is None:
        form = _HOST_FORMS[key] = build()
        weakref.finalize(x, _HOST_FORMS.pop, key, None)
    return form


def _keep_host_form(x, name, form):
    host_form(x, name, lambda: form)
    return x


def csr_arrays(M, *, unsigned: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Numpy ``(indptr, indices)`` of the pattern ``M`` (read-only; never write to them).

    Free for a :class:`CsrPattern` (the Graph's own arrays); a ``graphblas.Matrix`` is
    exported once and the copy kept while ``M`` lives. With ``unsigned=True`` both are
    seen as unsigned integers of their widths (no copy): numba then indexes with them
    without a test for negative indices.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1], [1, 2])
    >>> indptr, indices = csr_arrays(CpuExecutor().matrix(G))
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 2, 2], [1, 2])
    >>> csr_arrays(CpuExecutor().matrix(G), unsigned=True)[1].dtype
    dtype('uint32')
    """
    def export():
        if isinstance(M, CsrPattern):
            return M.indptr, M.indices
        csr = M.ss.export("csr", sort=True)
        return csr["indptr"].view(np.int64), csr["col_indices"].view(np.int64)
    if unsigned:
        return host_form(M, "csr.unsigned", lambda: as_unsigned(*host_form(M, "csr", export)))
    return host_form(M, "csr", export)


def as_unsigned(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The integer ``arrays`` seen as unsigned integers of the same width (no copy).

    Examples
    --------
    >>> as_unsigned(np.array([1, 2], np.int32))[0].dtype
    dtype('uint32')
    """
    return tuple(a.view(f"u{a.itemsize}") for a in arrays)


def dense_array(u: Vector) -> np.ndarray:
    """Numpy values of the full vector ``u`` (read-only; free for a vector from
    :meth:`CpuExecutor.degree`, a copy kept while ``u`` lives otherwise).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 0], [1, 2])
    >>> dense_array(CpuExecutor().degree(G)).tolist()
    [2, 0, 0]
    """
    return host_form(u, "dense", u.to_dense)


def take_arrays(u: Vector) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray]:
    """Numpy ``(indices, bitmap, values)`` of ``u``, taken from it (left empty) as SuiteSparse
    stores them, without a copy: a sparse ``u`` gives ascending uint64 ``indices`` and
    their values (``bitmap`` None), a bitmap one its ``bitmap`` and ``values`` of length
    ``u.size`` (arbitrary where absent; ``indices`` None), a full one only ``values``.
    Iso values are expanded.

    Examples
    --------
    >>> take_arrays(Vector.from_coo([2], [7], size=100_000))
    (array([2], dtype=uint64), None, array([7]))
    >>> take_arrays(Vector.from_dense(np.array([4, 5])))
    (None, None, array([4, 5]))
    """
    d = u.ss.unpack(sort=True)
    indices, bitmap, values = d.get("indices"), d.get("bitmap"), d["values"]
    if d["is_iso"]:
        count = u.size if indices is None else indices.size
        values = np.full(count, values[0] if values.size else 0, dtype=values.dtype)
    return indices, bitmap, values


def take_bitmap(u: Vector) -> tuple[np.ndarray, np.ndarray]:
    """Numpy ``(bitmap, values)`` of length ``u.size``, taken from ``u`` (left empty);
    ``values`` is arbitrary where ``bitmap`` is False.

    A bitmap or full vector hands over its own arrays; a sparse one is scattered into
    fresh ones (not SuiteSparse's conversion, which writes all of both).

    Examples
    --------
    >>> bitmap, values = take_bitmap(Vector.from_coo([1], [7], size=3))
    >>> bitmap.tolist(), int(values[1])
    ([False, True, False], 7)
    """
    n = u.size
    indices, bitmap, values = take_arrays(u)
    if indices is not None:
        bitmap = np.zeros(n, dtype=bool)
        bitmap[indices] = True
        dense = np.empty(n, dtype=values.dtype)
        dense[indices] = values
        return bitmap, dense
    return (np.ones(n, dtype=bool) if bitmap is None else bitmap), values


def _from_sorted(size, indices, values):
    """A Vector from ascending distinct ``indices``; a full one skips the index build."""
    if indices.size == size:
        return Vector.from_dense(values)
    return Vector.from_coo(indices, values, size=size)


def _dense(u):
    """Numpy arrays ``(values, present)`` of length ``u.size`` (values arbitrary where absent)."""
    idx, vals = u.to_coo()
    if idx.size == u.size:
        return vals, np.ones(u.size, dtype=bool)
    values = np.zeros(u.size, dtype=vals.dtype)
    present = np.zeros(u.size, dtype=bool)
    values[idx] = vals
    present[idx] = True
    return values, present


_UFUNC = {"min": np.minimum, "max": np.maximum, "plus": np.add}


def _structure(mask, complement):
    if mask is None:
        return None
    return ~mask.S if complement else mask.S
