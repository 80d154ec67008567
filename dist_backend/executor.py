"""The distributed executor: every step of :class:`lagraph_py.executor.Executor` over ranks.

A :class:`DistVector` of size ``s`` is split by the ranges of :func:`~.graph.partition`
``(s, ranks)``; each rank holds its range as a vector of its *local* executor (the cpu
executor on CPU ranks, the gpu executor on GPU ranks), indexed from 0. Values stay global
(a parent, a label, a vertex id). A :class:`DistMatrix` is a rank's rows of an adjacency:
a CSR block with global column ids, as the local executor's matrix of ``nlocal x n``.

How each step runs:

- element-wise steps (``ewise_*``, ``apply``, ``select``, ``mask``, ``assign*``) run on
  the local parts alone; ``apply(u, "index")`` adds the range's first id;
- ``vxm`` (push) multiplies the local rows, then sends each partial result to the rank
  of its column, which combines them with the semiring's monoid and applies the mask;
- ``mxv`` (pull) gathers the input vector on every rank (its indices as a bitmap of
  whole words or as a list, whichever is smaller over the ranks, and values only where
  the semiring reads them), then multiplies the local rows;
- ``extract`` sends each index to the rank of its target and gets the value back;
  ``scatter`` sends each value to the rank of its target, in index order (``any``:
  the first wins, as on one process); ``select_edges`` fetches the labels of its
  columns; ``reduce`` and ``nvals`` combine the ranks' results;
- ``to_coo`` and ``to_dense`` give this rank's range.

Every collective goes through :class:`~.exchange.Exchange` (time-outs, failure shared by
every rank). Group steps are the primitive definitions unless a mixin replaces them (the
CPU ranks' fused BFS and Borůvka).
"""

from __future__ import annotations

import operator

import numpy as np

from lagraph_py.executor import Executor

from .graph import DistGraph, id_dtype, owner, partition

#: The monoid that combines partial results of each semiring.
_MONOID = {"any_secondi": "any", "any_pair": "any", "plus_pair": "plus",
           "min_first": "min", "max_first": "max", "min_second": "min", "max_second": "max"}
#: Semirings whose result does not read the vector's values (a pattern is enough).
_PATTERN_ONLY = {"any_secondi", "any_pair", "plus_pair"}


class DistVector:
    """A vector split by ranges over the ranks: this rank's ``local`` part (a vector of
    the local executor, of ``hi - lo`` entries) of a vector of ``size``."""

    __slots__ = ("size", "bounds", "lo", "hi", "local")

    def __init__(self, size: int, bounds: np.ndarray, rank: int, local):
        self.size, self.bounds, self.local = size, bounds, local
        self.lo, self.hi = int(bounds[rank]), int(bounds[rank + 1])

    def __repr__(self) -> str:
        return f"DistVector(size={self.size}, range {self.lo}..{self.hi - 1}: {self.local!r})"


class DistMatrix:
    """This rank's rows of an adjacency pattern: host CSR ``indptr`` (int64) and
    ``indices`` (global column ids); ``local`` is the local executor's form of it, an
    ``nlocal x n`` pattern, made on first use."""

    def __init__(self, ex: "PrimitiveSteps", n: int, lo: int, indptr: np.ndarray,
                 indices: np.ndarray):
        self.n, self.lo, self.nlocal = n, lo, indptr.size - 1
        self.indptr, self.indices = indptr, indices
        self._ex, self._local = ex, None

    @property
    def local(self):
        if self._local is None:
            self._local = self._ex.local_matrix(self)
        return self._local


class PrimitiveSteps(Executor):
    """The primitive steps over ranks, on a local executor and an exchange of its arrays.

    Subclasses give ``local`` (the local executor), ``xp`` (numpy or cupy), ``exchange``
    (the ranks' :class:`~.exchange.Exchange`, host arrays) and ``data`` (an exchange of
    ``xp`` arrays: the same one on CPU ranks), and :meth:`local_matrix`.
    """

    local: Executor
    bfs_methods = ("push", "pull")
    #: No hub test (it would read every rank's degrees): one trim before the signatures.
    scc_seed_phases = "trim"

    def local_matrix(self, M: DistMatrix):
        """The local executor's ``nlocal x n`` pattern of the block ``M``."""
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers
    def _wrap(self, size: int, local) -> DistVector:
        return DistVector(size, partition(size, self.exchange.size), self.exchange.rank, local)

    def _like(self, u: DistVector, local) -> DistVector:
        return DistVector(u.size, u.bounds, self.exchange.rank, local)

    def _host(self, x) -> np.ndarray:
        return x if isinstance(x, np.ndarray) else np.asarray(x.get() if hasattr(x, "get") else x)

    def _route(self, bounds, targets, arrays):
        """Send ``arrays`` (aligned with the global ``targets``, ``xp`` arrays) to the
        ranks holding the targets; return the targets' offsets in the receiving rank's
        range, the arrays received (source rank order, each source's in its order), and
        the plan of the way back (:meth:`_reply`)."""
        xp = self.xp
        dest = (owner(bounds, targets) if xp is np else
                xp.searchsorted(xp.asarray(bounds), targets, side="right") - 1)
        order = xp.argsort(dest, kind="stable")
        counts = self._host(xp.bincount(dest, minlength=self.exchange.size)).astype(np.int64)
        payload = [(targets - xp.asarray(bounds)[dest])[order]] + [a[order] for a in arrays]
        received, arrived = self.data.alltoallv(payload, counts)
        return received[0], received[1:], (order, arrived)

    def _reply(self, plan, arrays):
        """Send ``arrays`` (aligned with what :meth:`_route` received) back to the ranks
        that sent it; return them aligned with the targets those ranks routed."""
        order, arrived = plan
        back, _ = self.data.alltoallv(arrays, arrived)
        out = [self.xp.empty_like(a) for a in back]
        for o, a in zip(out, back):
            o[order] = a
        return out

    def _fetch(self, table: DistVector, targets):
        """``(values, present)`` of ``table`` at the global ``targets`` (``xp`` arrays)."""
        offsets, _, plan = self._route(table.bounds, targets, [])
        values, present = self._dense(table)
        return self._reply(plan, [values[offsets], present[offsets]])

    # ---------------------------------------------------------------- storage
    def matrix(self, G: DistGraph, *, transpose=False, loops=True) -> DistMatrix:
        transpose = transpose and G.directed
        loops = loops or G.nself_loops == 0

        def build():
            indptr, indices = G.in_rows() if transpose else (G.indptr, G.indices)
            if not loops:
                rows = np.repeat(np.arange(G.lo, G.hi, dtype=indices.dtype), np.diff(indptr))
                keep = rows != indices
                indices = indices[keep]
                indptr = np.concatenate([[0], np.cumsum(np.bincount(
                    rows[keep] - G.lo, minlength=G.nlocal))]).astype(np.int64)
            return DistMatrix(self, G.n, G.lo, indptr, indices)
        return G._cached(f"{self.name}.matrix.T{int(transpose)}.L{int(loops)}", build)

    def degree(self, G: DistGraph, *, incoming=False) -> DistVector:
        indptr = G.in_rows()[0] if incoming else G.indptr
        return G._cached(f"{self.name}.degree.{int(incoming)}", lambda: self._wrap(
            G.n, self.local.vector(G.nlocal, np.arange(G.nlocal), np.diff(indptr))))

    def array(self, values):
        return self.local.array(values)

    def vector(self, size, indices, values) -> DistVector:
        size = operator.index(size)
        bounds = partition(size, self.exchange.size)
        lo, hi = int(bounds[self.exchange.rank]), int(bounds[self.exchange.rank + 1])
        idx = self._host(indices).astype(np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise IndexError(f"vector indices must lie in [0, {size})")
        keep = np.flatnonzero((idx >= lo) & (idx < hi))
        mine = values if np.ndim(values) == 0 else self._host(values)[keep]
        return DistVector(size, bounds, self.exchange.rank,
                          self.local.vector(hi - lo, idx[keep] - lo, mine))

    def full(self, size, value) -> DistVector:
        bounds = partition(size, self.exchange.size)
        r = self.exchange.rank
        return DistVector(size, bounds, r, self.local.full(int(bounds[r + 1] - bounds[r]), value))

    def iota(self, size) -> DistVector:
        u = self.full(size, 0)
        ids = self.local.iota(u.hi - u.lo)
        u.local = self.local.apply(ids, "plus", u.lo) if u.lo else ids
        return u

    def dup(self, u) -> DistVector:
        return self._like(u, self.local.dup(u.local))

    # ---------------------------------------------------------------- reading back
    def nvals(self, u) -> int:
        return int(self.exchange.allreduce(np.array([self.local.nvals(u.local)]), "sum")[0])

    def to_coo(self, u):
        """This rank's entries: global indices, values."""
        idx, vals = self.local.to_coo(u.local)
        return idx + u.lo, vals

    def to_dense(self, u, fill, *, consume=False):
        """This rank's range, dense."""
        return self.local.to_dense(u.local, fill, consume=consume)

    # ---------------------------------------------------------------- algebra
    def vxm(self, u, A, semiring, *, mask=None, complement=False) -> DistVector:
        part = self.local.vxm(u.local, A.local, semiring)     # size n: global columns
        targets, values = self.local.to_coo(part)
        if semiring == "any_secondi":                          # the local row -> global id
            values = values + A.lo
        offsets, (values,), _ = self._route(partition(A.n, self.exchange.size), targets,
                                              [values])
        w = self._combined(A.n, offsets, values, _MONOID[semiring])
        if mask is not None:
            w.local = self.local.mask(w.local, mask.local, complement=complement)
        return w

    def _combined(self, size, offsets, values, monoid) -> DistVector:
        """The vector of this rank's range with ``values`` combined by ``monoid`` at
        ``offsets`` (in arrival order: ``any`` keeps the first)."""
        bounds = partition(size, self.exchange.size)
        r = self.exchange.rank
        k = np.arange(offsets.size)
        index = self.local.vector(offsets.size, k, offsets)
        vals = self.local.vector(offsets.size, k, values)
        return DistVector(size, bounds, r, self.local.scatter(
            int(bounds[r + 1] - bounds[r]), index, vals, monoid))

    def mxv(self, A, u, semiring, *, mask=None, complement=False) -> DistVector:
        whole = self._gathered(u, semiring not in _PATTERN_ONLY)
        w = self.local.mxv(A.local, whole, semiring,
                           mask=None if mask is None else mask.local, complement=complement)
        return self._wrap(A.n, w)

    def _gathered(self, u: DistVector, values: bool):
        """``u`` whole on every rank, as a local vector of ``u.size``: the ranks send
        their indices as a list or as a bitmap of their range, whichever is smaller in
        all (a bitmap of whole bytes: the ranges start at multiples of 64), and their
        values only if ``values``."""
        xp = self.xp
        idx, vals = self.local.to_coo(u.local)
        total = self.nvals(u)
        entry = id_dtype(u.size).itemsize
        if total * entry * 8 > u.size:                        # bitmaps are smaller
            present = xp.zeros(u.hi - u.lo, dtype=bool)
            present[idx] = True
            (bits,), _ = self.data.allgather([xp.packbits(present, bitorder="little")])
            idx = xp.flatnonzero(xp.unpackbits(bits, bitorder="little")[:u.size])
            vals = None
            if values:
                (dense,), _ = self.data.allgather([self.local.to_dense(u.local, 0)])
                vals = dense[idx]
        else:
            arrays = [(idx + u.lo).astype(np.int32 if entry == 4 else np.int64)]
            (idx, *rest), _ = self.data.allgather(arrays + ([vals] if values else []))
            vals = rest[0] if values else None
        if vals is None:
            vals = 1
        return self.local.vector(u.size, idx, vals)

    def ewise_add(self, u, v, op) -> DistVector:
        return self._like(u, self.local.ewise_add(u.local, v.local, op))

    def ewise_mult(self, u, v, op) -> DistVector:
        return self._like(u, self.local.ewise_mult(u.local, v.local, op))

    def apply(self, u, op, right=None) -> DistVector:
        w = self.local.apply(u.local, op, right)
        if op == "index" and u.lo:
            w = self.local.apply(w, "plus", u.lo)
        return self._like(u, w)

    def select(self, u, op, thunk) -> DistVector:
        return self._like(u, self.local.select(u.local, op, thunk))

    def mask(self, u, mask, *, complement=False) -> DistVector:
        return self._like(u, self.local.mask(u.local, mask.local, complement=complement))

    def assign(self, w, u, *, mask=None) -> None:
        self.local.assign(w.local, u.local, mask=None if mask is None else mask.local)

    def assign_scalar(self, w, value, *, mask) -> None:
        self.local.assign_scalar(w.local, value, mask=mask.local)

    def reduce(self, u, monoid):
        mine = self.local.reduce(u.local, monoid)
        dtype = np.float64 if isinstance(mine, float) else np.int64
        flags = self.exchange.allreduce(np.array([mine is not None, dtype == np.float64], np.int64),
                                        "sum")
        if flags[0] == 0:
            return None
        dtype = np.float64 if flags[1] else np.int64
        op = {"plus": "sum", "any": "min"}.get(monoid, monoid)
        fill = 0 if op == "sum" else _identity(op, dtype)
        value = self.exchange.allreduce(np.array([fill if mine is None else mine], dtype), op)
        return value[0].item()

    def extract(self, table, index) -> DistVector:
        k, targets = self.local.to_coo(index.local)
        values, hit = self._fetch(table, targets)
        return self._like(index, self.local.vector(index.hi - index.lo, k[hit], values[hit]))

    def scatter(self, size, index, values, monoid) -> DistVector:
        i_idx, targets = self.local.to_coo(index.local)
        v_idx, vals = self.local.to_coo(values.local)
        if i_idx.size != v_idx.size or not bool((i_idx == v_idx).all()):
            both = self.local.ewise_mult(index.local, values.local, "second")
            _, vals = self.local.to_coo(both)
            _, targets = self.local.to_coo(self.local.mask(index.local, both))
        offsets, (vals,), _ = self._route(partition(size, self.exchange.size), targets, [vals])
        return self._combined(size, offsets, vals, monoid)

    def select_edges(self, M, labels) -> DistMatrix:
        rows = np.repeat(np.arange(M.nlocal), np.diff(M.indptr))
        values, present = (self._host(a) for a in self._dense(labels))
        seen = np.zeros(M.n, bool)
        seen[M.indices] = True
        cols = np.flatnonzero(seen)                           # each asked for once
        col_values, col_present = (self._host(a) for a in
                                   self._fetch(labels, self.xp.asarray(cols)))
        place = np.empty(M.n, id_dtype(cols.size))
        place[cols] = np.arange(cols.size)                    # (a map, not a search an edge)
        at = place[M.indices]
        keep = present[rows] & col_present[at] & (values[rows] == col_values[at])
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[keep], minlength=M.nlocal))])
        return DistMatrix(self, M.n, M.lo, indptr.astype(np.int64), M.indices[keep])

    def _dense(self, u: DistVector):
        """``(values, present)`` of this rank's range of ``u``, dense ``xp`` arrays."""
        idx, vals = self.local.to_coo(u.local)
        values = self.xp.zeros(u.hi - u.lo, dtype=vals.dtype)
        present = self.xp.zeros(u.hi - u.lo, dtype=bool)
        values[idx], present[idx] = vals, True
        return values, present


def _identity(op: str, dtype) -> float | int:
    from lagraph_py.executor import monoid_identity
    return monoid_identity(op, dtype)
