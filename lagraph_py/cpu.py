"""The cpu executor: the step vocabulary on SuiteSparse:GraphBLAS (python-graphblas).

Vectors are ``graphblas.Vector``; matrices are BOOL iso ``graphblas.Matrix`` patterns
stored by rows (CSR). A pull step multiplies the stored transpose by a bitmap frontier, so
SuiteSparse runs it as a dot product per row with early exit under an ANY monoid; a push
step is a saxpy over the sparse frontier.
"""

from __future__ import annotations

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

    # ---------------------------------------------------------------- storage
    def matrix(self, G, *, transpose=False, loops=True):
        transpose = transpose and G.directed  # an undirected graph is its own transpose

        def build():
            H = G.transpose() if transpose else G
            M = gb.Matrix.from_csr(H.indptr, H.indices, True, ncols=H.n)
            return M if loops else M.select("offdiag").new()
        return G._cached(f"cpu.matrix.T{int(transpose)}.L{int(loops)}", build)

    def degree(self, G, *, incoming=False):
        deg = G.in_degree() if incoming else G.out_degree()
        return G._cached(f"cpu.degree.{int(incoming)}", lambda: Vector.from_dense(deg))

    def array(self, values):
        return np.array(values, copy=True)

    def vector(self, size, indices, values):
        indices = np.asarray(indices, dtype=np.int64)
        if np.ndim(values) and indices.size == size and np.array_equal(indices, np.arange(size)):
            return Vector.from_dense(np.asarray(values))
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
        idx, vals = u.to_coo()
        out = np.full(u.size, fill, dtype=vals.dtype)
        out[idx] = vals
        return out

    # ---------------------------------------------------------------- algebra
    def vxm(self, u, A, semiring, *, mask=None, complement=False):
        return u.vxm(A, _SEMIRINGS[semiring]).new(mask=_structure(mask, complement))

    def mxv(self, A, u, semiring, *, mask=None, complement=False):
        u.ss.config["sparsity_control"] = "bitmap"  # a bitmap input turns this into a pull
        w = A.mxv(u, _SEMIRINGS[semiring]).new(mask=_structure(mask, complement))
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
        D = labels.diag()
        row_label = D.mxm(M, gb.semiring.any_first).new()     # (i, j) -> labels(i)
        col_label = M.mxm(D, gb.semiring.any_second).new()    # (i, j) -> labels(j)
        same = row_label.ewise_mult(col_label, binary.eq).new()
        return same.select("==", True).new()


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
