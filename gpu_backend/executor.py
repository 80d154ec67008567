"""The gpu executor: every step of :class:`lagraph_py.executor.Executor` on CuPy.

Semantics mirror ``lagraph_py/cpu.py`` exactly (value types, comparisons giving int64 0/1,
``reduce`` returning a Python scalar or None, ``to_coo`` with ascending indices, ``scatter``
with ``any`` keeping the first entry like GraphBLAS ``dup_op=first``). Vectors are
:class:`~gpu_backend.vector.GpuVector` (dense values + presence bitmap); matrices are
:class:`~gpu_backend.storage.DeviceMatrix` (device CSR). Element-wise steps are CuPy
element-wise expressions; the matrix steps and scatter are the kernels of
``kernels/primitives.cu``; the group steps are the fused kernels of their rooms
(:mod:`gpu_backend.bfs_steps`, ``components_steps``, ``msf_steps``, ``scc_steps``). Each
device-to-host synchronization is marked ``# sync``.
"""

from __future__ import annotations

import operator
import threading
from contextlib import contextmanager, nullcontext

import cupy as cp
import numpy as np

from lagraph_py import memory as host_memory
from lagraph_py.device_memory import RESIDENT, DevicePlan
from lagraph_py.executor import SEMIRINGS, Executor, monoid_identity

from . import _module, budget
from .bfs_steps import BfsSteps
from .components_steps import ComponentsSteps
from .msf_steps import MsfSteps
from .scc_steps import SccSteps
from .storage import DeviceMatrix, device_matrix, out_of_core
from .vector import GpuVector

_SEMIRING_CODE = {"any_secondi": 0, "any_pair": 1, "plus_pair": 2, "min_second": 3,
                  "max_second": 4}
_COMPARISONS = {"eq": cp.equal, "ne": cp.not_equal, "lt": cp.less, "le": cp.less_equal,
                "gt": cp.greater, "ge": cp.greater_equal}
_ARITH = {"min": cp.fmin, "max": cp.fmax, "plus": cp.add, "minus": cp.subtract,
          "times": cp.multiply}
_INT64, _FP64 = np.dtype(np.int64), np.dtype(np.float64)
#: Small host index lists are remembered on the vector, so a BFS can size its first step
#: without a device-to-host copy.
_HOST_QUEUE_MAX = 64


def _value_dtype(dtype) -> np.dtype:
    """Vector values are int64 or float64 (anything integral or boolean -> int64)."""
    return _FP64 if np.dtype(dtype).kind in "fc" else _INT64


def _scalar_dtype(x) -> np.dtype:
    return _FP64 if isinstance(x, (float, np.floating)) else _INT64


def _binary(op, a, b, rt):
    if op in _COMPARISONS:
        return _COMPARISONS[op](a, b).astype(_INT64)
    if op == "first":
        return cp.asarray(a).astype(rt)
    if op == "second":
        return cp.broadcast_to(cp.asarray(b, dtype=rt), a.shape).astype(rt)
    if op in _ARITH:
        return _ARITH[op](a.astype(rt), cp.asarray(b).astype(rt) if isinstance(b, cp.ndarray)
                          else rt.type(b))
    raise ValueError(f"unknown binary op {op!r}")


def _one_entry(indices, values):
    """(index, value, dtype) when a host list holds one index and one int/float value (or a
    scalar value), the form a BFS source takes; None otherwise."""
    if not (isinstance(indices, (list, tuple)) and len(indices) == 1):
        return None
    index = indices[0]
    if isinstance(values, (list, tuple)):
        if len(values) != 1:
            return None
        value = values[0]
        dtype = _FP64 if isinstance(value, (float, np.floating)) else _INT64
    else:
        value, dtype = values, _INT64              # like the cpu executor: scalar -> int64
    ok = (int, np.integer, float, np.floating)
    if (not isinstance(index, (int, np.integer)) or isinstance(index, (bool, np.bool_))
            or not isinstance(value, ok)):
        return None
    return int(index), value, dtype


def _result_dtype(op, a, b) -> np.dtype:
    return _INT64 if op in _COMPARISONS else np.result_type(a, b)


class _PlacedCall:
    """The context of one call placed by :meth:`GpuExecutor.placement`: the executor's
    lock taken before the plan, released when the call's context ends. A class rather
    than a ``contextmanager`` generator: every call on the executor enters one, and a
    resident call's context (``nullcontext``) makes no generator either."""

    __slots__ = ("ex", "G", "task", "inner")

    def __init__(self, ex, G, task: str):
        self.ex, self.G, self.task = ex, G, task

    def __enter__(self) -> DevicePlan:
        self.ex._calls.acquire()
        try:
            self.inner = self.ex._place(self.G, self.task)
            return self.inner.__enter__()
        except BaseException:
            self.ex._calls.release()
            raise

    def __exit__(self, *exc):
        try:
            return self.inner.__exit__(*exc)
        finally:
            self.ex._calls.release()


class GpuExecutor(BfsSteps, ComponentsSteps, MsfSteps, SccSteps, Executor):
    """The step vocabulary on a CUDA GPU through CuPy (see the module docstring)."""

    name = "gpu"
    #: Graphs of at most this many vertices plus stored entries run SCC on the host's cpu
    #: executor, the labels copied to the device (:mod:`.host_handover`); -1 keeps every
    #: graph on the device.
    host_items = 1 << 17
    #: The same for a BFS (``method="auto"``), which goes back to the device once the
    #: graph's first searches say it is cheaper there: deep graphs of this size (an OSM
    #: road map of 115k vertices and 1,137 levels: 1.6 ms on the host, 4.3 ms on the
    #: device, H200) stay on the host, wide ones leave it after one search.
    bfs_host_items = 1 << 19
    #: How an out-of-core call advises its managed memory (``storage.MANAGED_ADVICE``):
    #: ``"host"`` keeps it in host memory, read by the kernels over the host link, so the
    #: device holds no more than the budget.
    managed_advice = "host"

    def __init__(self, memory_limit: int | None = None):
        #: The plan of the last call placed (:meth:`placement`), or None.
        self.last_plan: DevicePlan | None = None
        #: Bytes of managed memory the last call placed out of core allocated.
        self.last_managed_bytes = 0
        self._calls = threading.RLock()          # held by a call placed (:meth:`placement`)
        if memory_limit is not None:
            self.memory_limit = memory_limit

    def plan(self, G, task: str) -> DevicePlan:
        """Where a call of ``task`` (``"bfs"``, ``"msf"``, ``"scc"``, ``"cc"``) on ``G``
        would run now (:func:`lagraph_py.device_memory.plan`): ``"resident"``, every array
        in device memory, while the call fits the memory left (:attr:`memory_limit`, else
        the device's free memory); ``"managed"`` (out of core) where only its vertex
        arrays fit.

        Raises
        ------
        MemoryError
            Not even the vertex arrays fit (bytes needed and free named); nothing is
            allocated.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from gpu_backend import GpuExecutor
        >>> gpu = GpuExecutor()
        >>> G = lg.generate.kronecker(10)
        >>> gpu.plan(G, "bfs").mode
        'resident'
        """
        return budget.plan(self, G, task)

    def placement(self, G, task: str):
        """Run one call of ``task`` on ``G`` as :meth:`plan` places it: out of core, the
        arrays it makes of more than ``device_memory.VERTEX_ARRAY_BYTES`` a vertex (the
        adjacency, the edge scratch), its streamed vertex arrays (a BFS's queues and
        outputs, ``storage.streamed_alloc``) where the budget does not hold them beside
        the vertex arrays, and any that the budget refuses, are CUDA managed
        memory advised as :attr:`managed_advice` says (``storage.out_of_core``); the
        kernels are the same. A BFS out of core reads its pull lists in storage order
        (:attr:`hub_first_pull` needs a sorted copy of the transpose). The plan is kept in
        :attr:`last_plan`, the managed bytes in :attr:`last_managed_bytes`. Managed
        memory lives in host memory: an out-of-core call is refused (``MemoryError``)
        where the host could not hold it (:func:`lagraph_py.memory.ensure`). The managed
        allocations a call's arrays leave behind stay with ``G`` for its later calls
        (``storage.ManagedAllocator``: new managed memory costs the device a fault per
        page), and are freed with ``G``.

        A resident plan is kept with ``G`` while :attr:`memory_limit` stays the same: what
        it built stays cached with ``G``, so later calls add no more than their scratch,
        and they plan nothing (a plan queries the device and walks ``G``'s cache; a kept
        one cost a Kronecker 16 BFS about 1 µs on the H100 hosts).

        Calls from several threads run one at a time, each holding the executor from its
        plan to its end: its persistent kernels share one barrier word, the SCC's race
        and the counts of its last call are the executor's, and a plan depends on what
        the other calls hold."""
        return _PlacedCall(self, G, task)

    def _place(self, G, task: str):
        """The context :meth:`placement` enters, the executor held."""
        key, limit = f"gpu.plan.{task}", self.memory_limit
        kept = G._cache.get(key)
        if kept is not None and kept[0] == limit:
            plan = kept[1]
        else:
            plan = self.plan(G, task)
            if plan.mode == RESIDENT:
                G._cache[key] = (limit, plan)
        self.last_plan = plan
        self.last_managed_bytes = 0
        if plan.mode == RESIDENT:
            return nullcontext(plan)
        needs = plan.needs
        host_memory.ensure(needs.adjacency + needs.edge_scratch + needs.streamed,
                           f"{task} on {G!r} out of core (managed memory, in host memory)")
        return self._out_of_core(plan, G._cached("gpu.managed_spares", dict))

    @contextmanager
    def _out_of_core(self, plan: DevicePlan, spares: dict):
        """The context of a managed plan (:meth:`placement`), reusing the managed
        allocations in ``spares`` (``storage.ManagedAllocator``)."""
        with out_of_core(plan.managed_from, self.managed_advice,
                         plan.streamed_managed, spares) as allocator:
            try:
                yield plan
            finally:
                self.last_managed_bytes = allocator.managed_bytes

    @property
    def memory_limit(self) -> int | None:
        """Bytes of GPU memory the steps may hold at once: the limit of CuPy's default
        memory pool (None: none, the device's free memory bounds them). Every algorithm
        call is planned against what the limit leaves (:meth:`plan`: resident, out of
        core, or refused up front), and every step checks its working set before it
        allocates, raising MemoryError naming both numbers where it would not fit
        (:func:`~gpu_backend.storage.ensure_fits`; out of core, what does not fit goes to
        managed memory instead).

        Examples
        --------
        >>> from lagraph_py.executor import get_executor
        >>> gpu = get_executor("gpu")
        >>> gpu.memory_limit = 8 << 30          # 8 GiB for this process's device arrays
        >>> gpu.memory_limit
        8589934592
        >>> gpu.memory_limit = None
        """
        return int(cp.get_default_memory_pool().get_limit()) or None

    @memory_limit.setter
    def memory_limit(self, nbytes: int | None) -> None:
        cp.get_default_memory_pool().set_limit(size=0 if nbytes is None else int(nbytes))

    # ---------------------------------------------------------------- storage
    def matrix(self, G, *, transpose=False, loops=True) -> DeviceMatrix:
        return device_matrix(G, transpose=transpose, loops=loops)

    def degree(self, G, *, incoming=False) -> GpuVector:
        def build():
            deg = G.in_degree() if incoming else G.out_degree()
            return GpuVector(G.n, cp.asarray(deg, dtype=np.int64), cp.ones(G.n, dtype=bool),
                             nvals=G.n)
        return G._cached(f"gpu.degree.{int(incoming)}", build)

    def array(self, values) -> cp.ndarray:
        return cp.array(values, copy=True)

    def vector(self, size, indices, values) -> GpuVector:
        size = operator.index(size)
        one = _one_entry(indices, values)
        if one is not None and 0 <= one[0] < size:
            return self._vector_one(size, *one)
        host = not isinstance(indices, cp.ndarray)
        if host and np.size(indices) == 0 and not isinstance(values, cp.ndarray):
            dtype = _INT64 if np.ndim(values) == 0 else _value_dtype(np.asarray(values).dtype)
            return GpuVector(size, lazy=lambda: (cp.empty(size, dtype=dtype),
                                                 cp.zeros(size, dtype=bool)),
                             nvals=0)    # no entries: no copies, no scatter; made when read
        if host:
            idx_h = np.asarray(indices, dtype=np.int64).reshape(-1)
            if idx_h.size and (idx_h.min() < 0 or idx_h.max() >= size):
                raise IndexError(f"vector indices must lie in [0, {size})")
        if np.ndim(values) == 0 and not isinstance(values, cp.ndarray):
            dtype, vals = _INT64, values           # like the cpu executor: scalar -> int64
        else:
            vals = values if isinstance(values, cp.ndarray) else np.asarray(values)
            dtype = _value_dtype(vals.dtype)
            vals = cp.asarray(vals).astype(dtype, copy=False)
        idx = cp.asarray(idx_h) if host else indices.astype(np.int64, copy=False).reshape(-1)
        out = cp.empty(size, dtype=dtype)
        present = cp.zeros(size, dtype=bool)
        if idx.size:
            out[idx] = vals
            present[idx] = True
        v = GpuVector(size, out, present, nvals=int(idx.size), queue=idx)
        if host and idx_h.size <= _HOST_QUEUE_MAX:
            v._host_queue = idx_h
        return v

    def _vector_one(self, size, index, value, dtype) -> GpuVector:
        """A vector of one entry from host values, made on first read (one kernel, no
        host-to-device copy); a BFS frontier of one vertex is never read."""
        def build():
            out = cp.empty(size, dtype=dtype)
            present = cp.empty(size, dtype=bool)
            _module.kernel("set_one", dtype)((_module.grid_for(size, 512, 4),), (512,),
                                             (index, dtype.type(value), out,
                                              present, size))
            return out, present

        v = GpuVector(size, lazy=build, nvals=1)
        v._host_queue = np.array([index], dtype=np.int64)
        v._one = index, value, dtype
        return v

    def full(self, size, value) -> GpuVector:
        dtype = _INT64 if isinstance(value, (int, np.integer)) else _FP64
        return GpuVector(size, cp.full(size, value, dtype=dtype), cp.ones(size, dtype=bool),
                         nvals=size)

    def iota(self, size) -> GpuVector:
        return GpuVector(size, lazy=lambda: (cp.arange(size, dtype=np.int64),
                                             cp.ones(size, dtype=bool)),
                         nvals=size)     # made when read (a step on the host never does)

    def dup(self, u) -> GpuVector:
        v = GpuVector(u.size, u.values.copy(), u.present.copy(), nvals=u._nvals)
        return v

    # ---------------------------------------------------------------- reading back
    def nvals(self, u) -> int:
        return u.nvals()

    def to_coo(self, u):
        idx = cp.flatnonzero(u.present)            # sync (output size)
        return idx.astype(np.int64, copy=False), u.values[idx]

    def to_dense(self, u, fill, *, consume=False):
        values = u.values
        fill = values.dtype.type(fill)               # like the cpu: fill cast to u's type
        if consume and u.absent is not None and values.dtype.type(u.absent) == fill:
            return u.release()                       # already dense with that fill
        present = u.present
        if consume:                                  # in place, u given up
            out = u.release()
        else:
            out = cp.empty(u.size, dtype=values.dtype)
        _module.kernel("dense_fill", values.dtype)(
            (_module.grid_for(u.size, 512, 8),), (512,),
            (values, present, fill, out, u.size))
        return out

    # ---------------------------------------------------------------- algebra
    def _mask_args(self, mask, complement, dummy):
        if mask is None:
            return dummy, 0
        return mask.present, 2 if complement else 1

    def _semiring_out(self, semiring, u, n, vector_op):
        """Kernel code, output type, output buffer and value source for ``semiring``.

        ``vector_op`` is the multiply op that yields the vector entry: ``"first"`` in vxm
        (``u ⊕.⊗ A``), ``"second"`` in mxv (``A ⊕.⊗ u``). The other one yields the matrix
        entry, the pattern's 1, so ``min``/``max`` of it run as ``any_pair`` in u's type.
        """
        add, _, mult = semiring.partition("_")
        if add in ("min", "max") and mult in ("first", "second"):
            code = _SEMIRING_CODE[f"{add}_second"] if mult == vector_op else 1
        elif semiring in _SEMIRING_CODE:
            code = _SEMIRING_CODE[semiring]
        else:
            raise ValueError(f"unknown semiring {semiring!r}; one of {SEMIRINGS}")
        dtype = _INT64 if semiring in ("any_secondi", "any_pair", "plus_pair") else u.dtype
        monoid = {2: "plus", 3: "min", 4: "max"}.get(code)
        out = (cp.empty(n, dtype=dtype) if monoid is None
               else cp.full(n, monoid_identity(monoid, dtype), dtype=dtype))
        uval = u.values if code >= 3 else out      # unused for codes 0..2
        return code, dtype, out, uval

    def vxm(self, u, A, semiring, *, mask=None, complement=False) -> GpuVector:
        code, dtype, out, uval = self._semiring_out(semiring, u, A.n, "first")
        pres = cp.zeros(A.n, dtype=bool)
        m, mode = self._mask_args(mask, complement, pres)
        q = u.queue(np.int64)
        if q.size:
            block = 256
            _module.kernel("vxm_push", A.index_dtype, dtype)(
                (_module.grid_for(q.size * 32, block),), (block,),
                (A.indptr, A.indices, q, q.size, uval, m, np.int32(mode), out, pres,
                 np.int32(code)))
        return GpuVector(A.n, out, pres)

    def mxv(self, A, u, semiring, *, mask=None, complement=False) -> GpuVector:
        code, dtype, out, uval = self._semiring_out(semiring, u, A.n, "second")
        pres = cp.zeros(A.n, dtype=bool)
        m, mode = self._mask_args(mask, complement, pres)
        if A.n:
            block = 256
            _module.kernel("mxv_pull", A.index_dtype, dtype)(
                (_module.grid_for(A.n, block),), (block,),
                (A.indptr, A.indices, A.n, u.present, uval, m, np.int32(mode), out,
                 pres, np.int32(code)))
        return GpuVector(A.n, out, pres)

    def ewise_add(self, u, v, op) -> GpuVector:
        pu, pv, a, b = u.present, v.present, u.values, v.values
        rt = _result_dtype(op, a.dtype, b.dtype)
        both = pu & pv
        single = cp.where(pu, a, b)
        if op in _COMPARISONS:     # GraphBLAS casts a lone entry to the op's type, BOOL
            single = single != 0
        vals = cp.where(both, _binary(op, a, b, np.result_type(a.dtype, b.dtype)),
                        single).astype(rt, copy=False)
        return GpuVector(u.size, vals, pu | pv)

    def ewise_mult(self, u, v, op) -> GpuVector:
        a, b = u.values, v.values
        vals = _binary(op, a, b, np.result_type(a.dtype, b.dtype))
        return GpuVector(u.size, vals.astype(_result_dtype(op, a.dtype, b.dtype), copy=False),
                         u.present & v.present)

    def apply(self, u, op, right=None) -> GpuVector:
        if op == "index":
            return GpuVector(u.size, cp.arange(u.size, dtype=np.int64), u.present.copy(),
                             nvals=u._nvals)
        rt = np.result_type(u.dtype, _scalar_dtype(right))
        vals = _binary(op, u.values, right, rt)
        return GpuVector(u.size, vals.astype(_result_dtype(op, u.dtype, rt), copy=False),
                         u.present.copy(), nvals=u._nvals)

    def select(self, u, op, thunk) -> GpuVector:
        keep = _COMPARISONS[op](u.values, thunk)
        return GpuVector(u.size, u.values.copy(), u.present & keep)

    def mask(self, u, mask, *, complement=False) -> GpuVector:
        keep = ~mask.present if complement else mask.present
        return GpuVector(u.size, u.values.copy(), u.present & keep)

    def assign(self, w, u, *, mask=None) -> None:
        sel = u.present if mask is None else (u.present & mask.present)
        values, present = w.for_update()
        cp.copyto(values, u.values, casting="unsafe", where=sel)
        cp.logical_or(present, sel, out=present)
        w.touched()

    def assign_scalar(self, w, value, *, mask) -> None:
        values, present = w.for_update()
        cp.copyto(values, w.dtype.type(value), casting="unsafe", where=mask.present)
        cp.logical_or(present, mask.present, out=present)
        w.touched()

    def reduce(self, u, monoid):
        if u.nvals() == 0:                                   # sync (unless known)
            return None
        vals, pres = u.values, u.present
        if monoid == "any":
            r = vals[cp.argmax(pres)]
        else:
            masked = cp.where(pres, vals, monoid_identity(monoid, u.dtype))
            r = {"plus": masked.sum, "min": masked.min, "max": masked.max}[monoid]()
        return r.astype(u.dtype).item()                      # sync

    def extract(self, table, index) -> GpuVector:
        t = index.values.astype(np.int64, copy=False)
        ip = index.present
        if bool(cp.any(ip & ((t < 0) | (t >= table.size)))):  # sync
            raise IndexError(f"extract: an index value lies outside [0, {table.size})")
        tt = cp.clip(t, 0, max(table.size - 1, 0))
        if table.size == 0:
            return GpuVector(index.size, cp.empty(index.size, table.dtype),
                             cp.zeros(index.size, dtype=bool))
        return GpuVector(index.size, table.values[tt], ip & table.present[tt])

    def scatter(self, size, index, values, monoid) -> GpuVector:
        codes = {"min": 0, "max": 1, "plus": 2, "any": 3}
        if monoid not in codes:
            raise ValueError(f"unknown monoid {monoid!r}")
        k = cp.flatnonzero(index.present & values.present)   # sync (output size)
        t = index.values[k].astype(np.int64, copy=False)
        v = values.values[k]
        dtype = values.dtype
        if t.size and bool(cp.any((t < 0) | (t >= size))):    # sync
            raise IndexError(f"scatter: an index value lies outside [0, {size})")
        out = (cp.zeros(size, dtype) if monoid == "any"
               else cp.full(size, monoid_identity(monoid, dtype), dtype))
        first = cp.full(size, np.iinfo(np.int64).max, np.int64) if monoid == "any" else out
        pres = cp.zeros(size, dtype=bool)
        if t.size:
            block = 256
            _module.kernel("scatter_reduce", dtype)(
                (_module.grid_for(t.size, block),), (block,),
                (t, v, t.size, out, first, pres, np.int32(codes[monoid])))
            if monoid == "any":
                out = cp.where(pres, v[cp.minimum(first, t.size - 1)], out)
        return GpuVector(size, out, pres)

    def select_edges(self, M, labels) -> DeviceMatrix:
        if labels.size != M.n:
            raise ValueError(f"select_edges: labels has size {labels.size}, the matrix {M.n}")
        rows, cols = M.rows(), M.indices
        present, values = labels.present, labels.values
        keep = present[rows] & present[cols] & (values[rows] == values[cols])
        kept = rows[keep]
        counts = cp.bincount(kept, minlength=M.n).get()               # sync
        indptr = np.zeros(M.n + 1, dtype=M.index_dtype)
        np.cumsum(counts, out=indptr[1:])
        out = DeviceMatrix(M.graph, M.transposed, M.loops, indptr, cols[keep])
        out._rows = kept                                              # already on the device
        return out
