"""The vectors of the fused cpu executor: numpy arrays until a graphblas step needs them.

A python-graphblas call costs 5-10 µs, which is the whole of a small BFS's work; so
:class:`~lagraph_py.cpu_steps.FusedCpuExecutor` keeps its vectors as :class:`HostVector`
holders, which the compiled group steps make, read and fill as numpy arrays, and hands a
holder's ``graphblas.Vector`` to the steps it inherits from the reference
:class:`~lagraph_py.cpu.CpuExecutor` (:func:`on_graphblas`). A holder changes form in
place, so every reference to it sees the change. Its forms:

- *sparse*: ascending uint64 ``indices`` and their ``values`` (what :meth:`~HostVectorSteps.vector`
  makes);
- *bitmap*: a bool ``bitmap`` of length ``size`` (None when every index is present), the
  ``values`` (length ``size``, arbitrary where absent) and ``nvals`` (what a consuming
  :meth:`~HostVector.to_dense` takes from a graphblas form);
- *graphblas*: a ``graphblas.Vector``.

Changes of form hand arrays over without copying them where SuiteSparse allows (GxB
pack and unpack with ownership; a bitmap from SuiteSparse is copied on its way back). A
holder owns its arrays: the readers (:meth:`HostVector.to_coo`, :meth:`HostVector.to_dense`)
return copies, except that a consuming ``to_dense`` gives its values away.

The first call in a fresh environment compiles the filling loop here (about 0.2 s for each
value type; numba caches it on disk).
"""

from __future__ import annotations

import functools

import numpy as np
from graphblas import Vector
from numba import njit

from ..cpu import CpuExecutor, take_arrays
from ..executor import Executor


class HostVector:
    """A vector of the fused cpu executor, held as numpy arrays or as a ``graphblas.Vector``.

    Build one from a ``graphblas.Vector`` (the holder takes it over), or with the
    executor's steps. :meth:`to_graphblas` gives the holder's contents as a
    ``graphblas.Vector``.

    Parameters
    ----------
    vector : graphblas.Vector
        The contents; it becomes the holder's storage (see :meth:`to_graphblas`).

    Examples
    --------
    >>> from lagraph_py.cpu_steps import FusedCpuExecutor
    >>> ex = FusedCpuExecutor()
    >>> u = ex.vector(5, [3, 1], [30, 10])          # numpy arrays, no graphblas call
    >>> u
    HostVector(size=5, nvals=2, dtype=int64, form='sparse')
    >>> w = ex.apply(u, "plus", 1)                  # an inherited step: graphblas
    >>> w.to_graphblas().to_coo()
    (array([1, 3], dtype=uint64), array([11, 31]))
    >>> ex.to_dense(w, -1)
    array([-1, 11, -1, 31, -1])
    """

    __slots__ = ("_bitmap", "_indices", "_nvals", "_values", "_vector", "size")

    def __init__(self, vector: Vector):
        self.size: int = vector.size
        self._vector: Vector | None = vector
        self._indices = self._bitmap = self._values = None
        self._nvals = 0

    @classmethod
    def sparse(cls, size: int, indices: np.ndarray, values: np.ndarray) -> HostVector:
        """The vector of ``values[k]`` at ``indices[k]``: ascending distinct uint64 indices
        below ``size`` (not checked). The holder takes both arrays: use them no more.

        Examples
        --------
        >>> HostVector.sparse(4, np.array([0, 2], np.uint64), np.array([5, 6])).to_coo()
        (array([0, 2]), array([5, 6]))
        """
        u = cls.__new__(cls)
        u.size, u._vector, u._bitmap, u._nvals = size, None, None, 0
        u._indices, u._values = indices, values
        return u

    @classmethod
    def dense(cls, values: np.ndarray, bitmap: np.ndarray | None = None,
              nvals: int | None = None) -> HostVector:
        """The vector of ``values[i]`` where ``bitmap[i]`` (every ``i`` when ``bitmap`` is
        None); ``nvals`` counts the True entries of ``bitmap`` (counted when not given).
        The holder takes the arrays: use them no more.

        Examples
        --------
        >>> HostVector.dense(np.array([7, 8, 9]), np.array([True, False, True])).to_coo()
        (array([0, 2]), array([7, 9]))
        """
        u = cls.__new__(cls)
        u.size, u._vector, u._indices = values.size, None, None
        u._bitmap, u._values = bitmap, values
        u._nvals = (values.size if bitmap is None else
                    int(np.count_nonzero(bitmap)) if nvals is None else nvals)
        return u

    # ------------------------------------------------------------------ reading
    @property
    def dtype(self) -> np.dtype:
        """The numpy type of the values."""
        return self._vector.dtype.np_type if self._values is None else self._values.dtype

    @property
    def nvals(self) -> int:
        """The number of present entries."""
        if self._values is None:
            return self._vector.nvals
        return self._nvals if self._indices is None else self._indices.size

    def __repr__(self) -> str:
        form = ("graphblas" if self._values is None else "sparse" if self._indices is not None
                else "full" if self._bitmap is None else "bitmap")
        return (f"HostVector(size={self.size}, nvals={self.nvals}, dtype={self.dtype}, "
                f"form={form!r})")

    def to_graphblas(self) -> Vector:
        """This vector as a ``graphblas.Vector``: the holder's own storage, not a copy.

        The holder keeps this Vector: the executor's steps that take the holder read and
        update it, and a compiled step may take its arrays for a while, so read it through
        this method again after such a step; ``.dup()`` gives a copy to keep.

        Examples
        --------
        >>> u = HostVector.dense(np.array([4, 5, 6]))
        >>> v = u.to_graphblas()
        >>> v.nvals, v.to_dense().tolist(), u.to_graphblas() is v
        (3, [4, 5, 6], True)
        """
        if self._values is not None:
            self._pack()
        return self._vector

    def indices(self) -> np.ndarray:
        """The present indices, ascending, as uint64 (read-only: the holder's own array in
        the sparse form).

        Examples
        --------
        >>> HostVector.dense(np.array([7, 8, 9]), np.array([True, False, True])).indices()
        array([0, 2], dtype=uint64)
        """
        if self._values is None:
            return self._vector.to_coo(values=False)[0]
        if self._indices is not None:
            return self._indices
        if self._bitmap is None:
            return np.arange(self.size, dtype=np.uint64)
        return np.flatnonzero(self._bitmap).view(np.uint64)

    def to_coo(self) -> tuple[np.ndarray, np.ndarray]:
        """New int64 ``indices`` (ascending) and ``values`` arrays of the present entries.

        Examples
        --------
        >>> HostVector.dense(np.array([4.0, 5.0]), np.array([False, True])).to_coo()
        (array([1]), array([5.]))
        """
        if self._values is None:
            idx, vals = self._vector.to_coo()
            return idx.astype(np.int64), vals
        if self._indices is not None:
            return self._indices.astype(np.int64), self._values.copy()
        if self._bitmap is None:
            return np.arange(self.size, dtype=np.int64), self._values.copy()
        idx = np.flatnonzero(self._bitmap)
        return idx, self._values[idx]

    def to_dense(self, fill, *, consume: bool = False) -> np.ndarray:
        """A numpy array of the values with ``fill`` where absent.

        With ``consume=True`` the holder gives its values array away, filled in place in
        one pass, and is left empty.

        Examples
        --------
        >>> u = HostVector.dense(np.array([4, 5, 6]), np.array([True, False, True]))
        >>> u.to_dense(-1), u.to_dense(0, consume=True), u.nvals
        (array([ 4, -1,  6]), array([4, 0, 6]), 0)
        """
        if consume and self._values is None:
            self._unpack()
        if self._values is None:
            idx, vals = self._vector.to_coo()
            out = np.full(self.size, fill, dtype=vals.dtype)
            out[idx] = vals
            return out
        if self._indices is not None:
            out = np.full(self.size, fill, dtype=self._values.dtype)
            out[self._indices] = self._values
        else:
            out = self._values if consume else self._values.copy()
            if self._nvals < self.size:
                _fill_absent(self._bitmap, out, fill)
        if consume:
            self._indices = np.empty(0, np.uint64)
            self._values = np.empty(0, out.dtype)
            self._bitmap, self._nvals = None, 0
        return out

    def dup(self) -> HostVector:
        """An independent copy, in the same form.

        Examples
        --------
        >>> u = HostVector.sparse(3, np.array([1], np.uint64), np.array([5]))
        >>> u.dup().to_coo()
        (array([1]), array([5]))
        """
        if self._values is None:
            return HostVector(self._vector.dup())
        if self._indices is not None:
            return HostVector.sparse(self.size, self._indices.copy(), self._values.copy())
        bitmap = None if self._bitmap is None else self._bitmap.copy()
        return HostVector.dense(self._values.copy(), bitmap, self._nvals)

    # ------------------------------------------------------------------ writing (steps)
    def set_full(self, values: np.ndarray) -> None:
        """Make this the full vector of ``values`` (taken, not copied: use them no more);
        in the graphblas form the Vector gets them when next read."""
        self._indices, self._bitmap, self._values = None, None, values
        self._nvals = values.size

    # ------------------------------------------------------------------ changes of form
    def _pack(self) -> None:
        """Numpy form -> graphblas: the arrays go to SuiteSparse (into the holder's
        Vector when it has one, so that references to that Vector stay valid)."""
        if self._indices is not None:
            fmt, arrays = "sparse", {"indices": self._indices, "sorted_index": True}
        elif self._bitmap is None:
            fmt, arrays = "full", {}
        else:
            fmt, arrays = "bitmap", {"bitmap": self._bitmap, "nvals": self._nvals}
        if self._vector is None:
            self._vector = getattr(Vector.ss, f"import_{fmt}")(
                size=self.size, values=self._values, take_ownership=True, **arrays)
        else:
            getattr(self._vector.ss, f"pack_{fmt}")(values=self._values, take_ownership=True,
                                                    **arrays)
        self._indices = self._bitmap = self._values = None

    def _unpack(self) -> None:
        """Graphblas -> the numpy form SuiteSparse held; the Vector stays, empty."""
        nvals = self._vector.nvals
        self._indices, self._bitmap, self._values = take_arrays(self._vector)
        self._nvals = nvals


class held:
    """Context manager: :class:`HostVector` holders for step arguments that may also be
    ``graphblas.Vector`` objects (or None).

    A HostVector (or None) is given as it is; a Vector is put in a holder of its own whose
    contents go back into that same Vector at the end, so that a step that updates a
    holder in place updates a Vector argument in place too.

    Examples
    --------
    >>> v = Vector.from_coo([0], [1], size=3)
    >>> with held(v, None) as (u, nothing):
    ...     u.set_full(np.array([1, 4, 5]))
    >>> v.to_coo()
    (array([0, 1, 2], dtype=uint64), array([1, 4, 5]))
    """

    __slots__ = ("given", "holders")

    def __init__(self, *vectors: HostVector | Vector | None):
        self.given = vectors
        self.holders = [u if u is None or isinstance(u, HostVector) else HostVector(u)
                        for u in vectors]

    def __enter__(self) -> list[HostVector | None]:
        return self.holders

    def __exit__(self, *exc) -> None:
        for u, holder in zip(self.given, self.holders):
            if holder is not u:
                holder.to_graphblas()           # back into the Vector u


@njit(cache=True)
def _fill_absent(bitmap, values, fill):
    """``values[i] = fill`` where ``bitmap[i]`` is False, in one pass."""
    for i in range(values.size):
        if not bitmap[i]:
            values[i] = fill


def holder(u: HostVector | Vector) -> HostVector:
    """``u`` itself, or a holder of the Vector ``u``: a step's way to read a vector of
    either kind (use :class:`held` to update one in place).

    Examples
    --------
    >>> holder(Vector.from_coo([2], [5], size=4)).indices()
    array([2], dtype=uint64)
    """
    return u if isinstance(u, HostVector) else HostVector(u)


class HostVectorSteps:
    """The steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor` on :class:`HostVector`
    holders: construction and reading back on the numpy forms, every other primitive of
    the reference executor on the holders' graphblas forms (:func:`on_graphblas`).

    The steps also take ``graphblas.Vector`` arguments (from the reference executor).

    Examples
    --------
    >>> from lagraph_py.cpu_steps import FusedCpuExecutor
    >>> ex = FusedCpuExecutor()
    >>> u = ex.vector(4, [2, 0], [5, 7])
    >>> ex.nvals(u), ex.to_coo(u)
    (2, (array([0, 2]), array([7, 5])))
    >>> ex.to_dense(u, -1, consume=True)
    array([ 7, -1,  5, -1])
    """

    def vector(self, size, indices, values) -> HostVector:
        idx = np.array(indices, dtype=np.int64).reshape(-1)
        vals = np.array(values)
        if vals.ndim:
            vals = vals.reshape(-1)
        else:                                   # like the reference: a scalar is int64
            vals = np.full(idx.size, vals, dtype=np.int64)
        if vals.size != idx.size:
            raise ValueError(f"vector: {idx.size} indices but {vals.size} values")
        if idx.size > 1 and np.any(idx[1:] <= idx[:-1]):
            order = np.argsort(idx, kind="stable")
            idx, vals = idx[order], vals[order]
            if np.any(idx[1:] == idx[:-1]):
                raise ValueError("vector indices must be distinct")
        if idx.size and not (0 <= int(idx[0]) and int(idx[-1]) < size):
            raise IndexError(f"vector indices must lie in [0, {size})")
        if idx.size == size:                    # every index, ascending: 0, 1, ..., size-1
            return HostVector.dense(vals)
        return HostVector.sparse(size, idx.view(np.uint64), vals)

    def iota(self, size) -> HostVector:
        return HostVector.dense(np.arange(size, dtype=np.int64))

    def degree(self, G, *, incoming=False) -> HostVector:
        return G._cached(f"cpu.host_degree.{int(incoming)}",
                         lambda: HostVector(CpuExecutor.degree(self, G, incoming=incoming)))

    def dup(self, u) -> HostVector:
        return holder(u).dup()

    def nvals(self, u) -> int:
        return u.nvals

    def to_coo(self, u) -> tuple[np.ndarray, np.ndarray]:
        return holder(u).to_coo()

    def to_dense(self, u, fill, *, consume=False) -> np.ndarray:
        return holder(u).to_dense(fill, consume=consume)


def on_graphblas(step):
    """The reference executor's ``step`` on graphblas forms: each :class:`HostVector`
    argument enters as its ``graphblas.Vector`` (:meth:`HostVector.to_graphblas`, in place,
    so an in-place step updates the holder), and a Vector result leaves in a holder.

    Examples
    --------
    >>> from lagraph_py.cpu_steps import FusedCpuExecutor
    >>> ex = FusedCpuExecutor()
    >>> w = ex.vector(3, [0, 1], [4, 5])
    >>> ex.assign_scalar(w, 9, mask=ex.vector(3, [2], [1]))     # w in place
    >>> ex.to_dense(w, -1)
    array([4, 5, 9])
    """
    @functools.wraps(step)
    def run(self, *args, **kwargs):
        args = [a.to_graphblas() if isinstance(a, HostVector) else a for a in args]
        kwargs = {k: a.to_graphblas() if isinstance(a, HostVector) else a
                  for k, a in kwargs.items()}
        out = step(self, *args, **kwargs)
        return HostVector(out) if isinstance(out, Vector) else out
    return run


# every other primitive of the vocabulary, but those without vector arguments or results
for _name in sorted(Executor.__abstractmethods__ - set(vars(HostVectorSteps))
                    - {"matrix", "array"}):
    setattr(HostVectorSteps, _name, on_graphblas(getattr(CpuExecutor, _name)))
