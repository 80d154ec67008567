"""Device-resident graph storage, built once per :class:`~lagraph_py.Graph` and cached on it.

A :class:`DeviceMatrix` is the CSR pattern of a graph (rows = out-edges) or of its
transpose (rows = in-edges, i.e. CSC of the graph), with index arrays of one type, as the
kernels read them: int32 where the graph's row pointers and ids are int32, else int64
(a graph of over ``2**31 - 1`` stored entries keeps int32 ids on the host, beside int64
row pointers; on the device both are int64). The COO row array (edge-centric BFS) and a
``cupyx.scipy.sparse.csr_matrix`` view (for users and the naive SpMV baseline) are built on
first use, and so are the pull lists of the BFS (:meth:`DeviceMatrix.pull_lists`) and the
chunks of its long rows (:func:`long_row_chunks`). Everything is cached in ``G._cached``, so
a second call copies nothing to the device. The transpose of an undirected graph is the
graph itself and shares its storage.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from contextlib import contextmanager
from functools import cached_property, lru_cache

import cupy as cp
import numpy as np

from lagraph_py.device_memory import PULL_SORT_CHUNK

from . import _module

#: Slots of the hub cache in bfs.cu (HC); the hub degree threshold keeps about this many
#: of the highest out-degree vertices as hubs.
HUB_SLOTS = 2048
#: Rows longer than LONG_ROW are cut into chunks of CHUNK entries, each handled by a whole
#: block (LONG_ROW and CHUNK in kernels/shared.cuh).
LONG_ROW, CHUNK = 512, 2048


class DeviceMatrix:
    """CSR pattern on the device: ``indptr``, ``indices`` (CuPy, index dtype), ``n``;
    ``graph`` the Graph it was made of (or None). The matrix is cached with that Graph and
    refers to it weakly, so that deleting the Graph frees the device arrays at once, not
    at Python's next cycle collection (which device memory does not prompt)."""

    def __init__(self, graph, transposed: bool, loops: bool, indptr: np.ndarray,
                 indices: np.ndarray):
        self._graph = None if graph is None else weakref.ref(graph)
        self.transposed = transposed
        self.loops = loops
        self.n = int(indptr.size - 1)
        self.nstored = int(indices.size)
        self.index_dtype = device_index_dtype(indptr, indices)
        self.indptr = cp.asarray(indptr.astype(self.index_dtype, copy=False))
        self.indices = cp.asarray(indices).astype(self.index_dtype, copy=False)
        deg = np.diff(indptr)
        #: out-degree (rows) at or above which a vertex counts as a hub (bfs.cu hub cache)
        self.hub_deg = int(max(32, np.partition(deg, -HUB_SLOTS)[-HUB_SLOTS]
                               if deg.size > HUB_SLOTS else deg.max(initial=0) + 1))
        self._host_deg = deg
        self._host_ptr = np.asarray(indptr)
        self._host_indices = indices if isinstance(indices, np.ndarray) else None
        self._rows = None
        self._csr = None
        self._pull_lists = {}
        self._packed = None
        self._long_chunks = None

    @property
    def graph(self):
        if self._graph is None:
            return None
        graph = self._graph()
        if graph is None:
            raise RuntimeError("the Graph this device matrix was made of no longer exists; "
                               "keep the Graph while using its matrices")
        return graph

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def rows(self) -> cp.ndarray:
        """COO row index of every stored entry (built on first use)."""
        if self._rows is None:
            rows = np.repeat(np.arange(self.n, dtype=self.index_dtype), self._host_deg)
            self._rows = cp.asarray(rows)
        return self._rows

    def pull_lists(self, out_indptr: cp.ndarray, hub_first: bool = True
                   ) -> tuple[cp.ndarray, cp.ndarray]:
        """The rows as a pull step reads them: ``(indices, heads)``.

        With ``hub_first``, ``indices`` has every row reordered by decreasing out-degree of
        its entries' vertices, ties in storage order (``out_indptr``, the graph's CSR row
        pointers, gives the out-degrees): a pull step that stops at the first parent in the
        frontier then tries the likeliest parents first, since high-degree vertices are
        reached in the earliest levels. Otherwise ``indices`` is the storage order.
        ``heads[v]`` is the first entry of row ``v`` in that order, -1 for an empty row: one
        contiguous array that holds most vertices' only probe. Built on first use (rows
        sorted in chunks of whole rows of about ``PULL_SORT_CHUNK`` entries, which bounds
        the sort's scratch: :func:`lagraph_py.device_memory.pull_list_bytes`), then cached.
        """
        if hub_first not in self._pull_lists:
            indices = self._hub_first(out_indptr) if hub_first else self.indices
            heads = cp.full(self.n, -1, dtype=self.index_dtype)
            nonempty = cp.flatnonzero(cp.diff(self.indptr))
            heads[nonempty] = indices[self.indptr[nonempty]]
            self._pull_lists[hub_first] = (indices, heads)
        return self._pull_lists[hub_first]

    def packed_lists(self) -> tuple[cp.ndarray, cp.ndarray]:
        """The rows bit-packed, as a pull step against a frontier bitmap reads them:
        ``(indptr, words)``. Each run of a row's (sorted) entries that share one 32-bit
        word of a vertex bitmap, ``u >> 5``, becomes one uint64: that word's index above
        the mask of the run's bits, ``u & 31``; ``indptr`` (the index type) delimits each
        row's runs. Where neighbouring ids link to each other (a web crawl in crawl order)
        a row of hundreds of entries packs into tens of words
        (:func:`lagraph_py.device_memory.packed_fraction` estimates how many). Built on
        the device on first use (its bytes checked against free memory first), then
        cached.
        """
        if self._packed is None:
            m, I = self.nstored, self.index_dtype
            first = cp.ones(m, dtype=bool)
            if m:
                word = self.indices >> 5
                cp.not_equal(word[1:], word[:-1], out=first[1:])
                first[self.indptr[:-1][cp.diff(self.indptr) > 0]] = True
                del word
            run = cp.cumsum(first, dtype=I)                   # 1-based run of each entry
            runs = int(run[-1]) if m else 0                   # sync (once)
            ensure_fits(8 * runs + I.itemsize * (self.n + 1), "packed pull lists")
            words = cp.zeros(runs, dtype=cp.uint64)
            if m:
                _module.kernel("pack_runs", I)((_module.grid_for(m, 256),), (256,),
                                               (self.indices, run, m, words))
            indptr = cp.concatenate((cp.zeros(1, dtype=I), run))[self.indptr]
            self._packed = (indptr, words)
        return self._packed

    def _hub_first(self, out_indptr: cp.ndarray) -> cp.ndarray:
        deg = cp.diff(out_indptr).astype(cp.uint64)
        inverse = cp.uint64(0xFFFFFFFF) - cp.minimum(deg, cp.uint64(0xFFFFFFFF))
        out = cp.empty_like(self.indices)
        ptr, lo = self._host_ptr, 0
        while lo < self.n:
            hi = max(lo + 1,
                     int(np.searchsorted(ptr, ptr[lo] + PULL_SORT_CHUNK, "right")) - 1)
            a, b = int(ptr[lo]), int(ptr[hi])
            if b > a:
                seg = self.indices[a:b]
                row = cp.searchsorted(self.indptr[lo:hi + 1], cp.arange(a, b),
                                      side="right").astype(cp.uint64)
                out[a:b] = seg[cp.argsort((row << cp.uint64(32)) | inverse[seg])]
            lo = hi
        return out

    def row_degree_host(self) -> np.ndarray:
        """Entries per row, on the host (for host-side decisions without a sync)."""
        return self._host_deg

    @cached_property
    def max_row_degree(self) -> int:
        """The most entries of a row (0 without rows), from the host degrees, once."""
        return int(self._host_deg.max(initial=0))

    def host_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)`` of this matrix on the host (the arrays it was built from;
        read back once, a sync, where it was made on the device). Read-only."""
        if self._host_indices is None:
            self._host_indices = self.indices.get()                      # sync (once)
        return self._host_ptr, self._host_indices

    def to_cupyx(self):
        """A ``cupyx.scipy.sparse.csr_matrix`` (float32 ones) sharing the index arrays."""
        if self._csr is None:
            import cupyx.scipy.sparse as cpsp
            data = cp.ones(self.nstored, dtype=cp.float32)
            self._csr = cpsp.csr_matrix((data, self.indices, self.indptr), shape=self.shape)
        return self._csr

    def __repr__(self) -> str:
        what = "transpose" if self.transposed else "adjacency"
        return f"<DeviceMatrix {what} n={self.n} nstored={self.nstored} {self.index_dtype}>"


def long_row_chunks(M: DeviceMatrix) -> tuple[cp.ndarray, cp.ndarray]:
    """The chunks of the rows of ``M`` longer than LONG_ROW: each one's vertex (``M``'s
    index type) and first entry (int64), device arrays built from the host degrees and
    cached on ``M``."""
    chunks = M._long_chunks
    if chunks is None:
        deg = M.row_degree_host().astype(np.int64)
        rows = np.flatnonzero(deg > LONG_ROW)
        pieces = -(-deg[rows] // CHUNK)
        vertex = np.repeat(rows, pieces)
        first = np.concatenate(([0], np.cumsum(deg)))[vertex]
        k = np.arange(vertex.size) - np.repeat(np.cumsum(pieces) - pieces, pieces)
        chunks = M._long_chunks = (cp.asarray(vertex.astype(M.index_dtype)),
                                   cp.asarray(first + k * CHUNK))
    return chunks


def device_index_dtype(indptr, indices) -> np.dtype:
    """The one index type of the device arrays of a CSR whose host arrays are of these
    types: the wider of the two."""
    return np.promote_types(indptr.dtype, indices.dtype)


def free_bytes(enough: int = 0) -> int:
    """Device memory free for new arrays: the device's free bytes plus the CuPy pool's,
    or, where the pool has a limit (:meth:`GpuExecutor.memory_limit
    <gpu_backend.GpuExecutor.memory_limit>`), what the limit leaves, if less. Where the
    pool has no limit and its free blocks alone hold ``enough`` bytes, it returns those
    without asking the driver (that query took 8-12 µs of a call; H200: a connected
    components call on a road map of 264k vertices 77-84 -> 68-74 µs)."""
    pool = cp.get_default_memory_pool()
    held, limit = int(pool.free_bytes()), int(pool.get_limit())
    if enough and held >= enough and not limit:
        return held
    free = int(cp.cuda.runtime.memGetInfo()[0]) + held
    if limit:
        free = min(free, limit - int(pool.used_bytes()))
    return free


def ensure_fits(nbytes: int, what: str) -> None:
    """Raise MemoryError naming both numbers unless ``nbytes`` of device memory are free
    (called before a step allocates anything). Inside :func:`out_of_core` nothing is
    refused: what the budget does not take goes to managed memory."""
    if out_of_core_now():
        return
    free = free_bytes(nbytes)
    if nbytes > free:
        raise MemoryError(f"{what} needs {nbytes:,} bytes of GPU memory; {free:,} are free")


# ---------------------------------------------------------------------- out of core
#: How managed memory is advised (:func:`out_of_core`): ``"host"``: kept in host memory
#: (preferred location) and mapped into the device's page tables (accessed by), so kernels
#: read it over the host link, page faults and device memory none; ``"read_mostly"``: the
#: device makes read-only copies of the pages it reads (device memory beyond the budget,
#: which the driver reclaims under pressure); ``"migrate"``: no advice, pages move to the
#: device on first touch and back when evicted.
MANAGED_ADVICE = ("host", "read_mostly", "migrate")
_ADVISE_READ_MOSTLY, _ADVISE_PREFERRED_LOCATION, _ADVISE_ACCESSED_BY = 1, 3, 5  # cuda.h
_LOCATION_DEVICE, _LOCATION_HOST = 1, 2                          # CUmemLocationType
_placement = threading.local()


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]   # CUmemLocation


@lru_cache(maxsize=None)
def _mem_advise():
    """The driver's ``cuMemAdvise`` taking a CUmemLocation (CUDA 12.2 and later)."""
    advise = ctypes.CDLL("libcuda.so.1").cuMemAdvise_v2
    advise.argtypes = [ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, _Location]
    advise.restype = ctypes.c_int
    return advise


def _advise(ptr: int, size: int, advice: int, location: int) -> None:
    device = cp.cuda.runtime.getDevice()
    status = _mem_advise()(ptr, size, advice, _Location(location, device))
    if status:
        raise RuntimeError(f"cuMemAdvise({advice}) failed: CUDA driver error {status}")


class _Lease:
    """Holds a managed allocation while an array uses it, then puts it back among the
    ``spares`` it came from, under ``key``."""

    __slots__ = ("memory", "spares", "key")

    def __init__(self, memory: cp.cuda.memory.ManagedMemory, spares: dict, key: tuple):
        self.memory, self.spares, self.key = memory, spares, key

    def __del__(self):
        self.spares.setdefault(self.key, []).append(self.memory)


class ManagedAllocator:
    """The CuPy allocator of an out-of-core call: an allocation of ``managed_from`` bytes
    or more, or one that the memory pool refuses (its limit), is CUDA managed memory
    advised as ``advice`` says (:data:`MANAGED_ADVICE`, :meth:`managed`); the others come
    from the pool. With ``streamed_managed``, so are the streamed vertex arrays
    (:func:`streamed_alloc`). ``managed_bytes`` counts what it placed in managed memory.

    ``spares`` (a dict, kept with the Graph) collects the managed allocations whose arrays
    are gone, by size, advice and stream, and a later allocation of the same size, advice
    and stream takes one of them instead of new memory: a page of managed memory that
    the device writes first costs it a fault (H200, 128 MiB advised ``"host"``: a fill
    took 20-47 ms on new memory, 2.6 ms on memory written before), and an out-of-core
    call's outputs and scratch are new arrays on every call. As in CuPy's memory pool,
    an allocation reused on its stream is ordered after the work on its old array."""

    def __init__(self, managed_from: int, advice: str, streamed_managed: bool = True,
                 spares: dict | None = None):
        if advice not in MANAGED_ADVICE:
            raise ValueError(f"managed advice must be one of {MANAGED_ADVICE}, got {advice!r}")
        self.managed_from, self.advice = managed_from, advice
        self.streamed_managed = streamed_managed
        self.spares = {} if spares is None else spares
        self.pool = cp.get_default_memory_pool()
        self.managed_bytes = 0

    def __call__(self, size: int) -> cp.cuda.MemoryPointer:
        if not size or size < self.managed_from:
            try:
                return self.pool.malloc(size)
            except cp.cuda.memory.OutOfMemoryError:
                pass                                   # over the budget: managed instead
        return self.managed(size)

    def managed(self, size: int) -> cp.cuda.MemoryPointer:
        """``size`` bytes of managed memory, advised: a spare, or new."""
        key = (size, self.advice, cp.cuda.get_current_stream().ptr)
        spare = self.spares.get(key)
        if spare:
            memory = spare.pop()
        else:
            memory = cp.cuda.memory.ManagedMemory(size)
            if self.advice == "host":
                _advise(memory.ptr, size, _ADVISE_PREFERRED_LOCATION, _LOCATION_HOST)
                _advise(memory.ptr, size, _ADVISE_ACCESSED_BY, _LOCATION_DEVICE)
            elif self.advice == "read_mostly":
                _advise(memory.ptr, size, _ADVISE_READ_MOSTLY, _LOCATION_DEVICE)
        self.managed_bytes += size
        lease = _Lease(memory, self.spares, key)
        return cp.cuda.MemoryPointer(
            cp.cuda.UnownedMemory(memory.ptr, size, lease, memory.device_id), 0)


@contextmanager
def out_of_core(managed_from: int, advice: str = "host", streamed_managed: bool = True,
                spares: dict | None = None):
    """Within this context (this thread), device arrays of ``managed_from`` bytes or more,
    any the budget refuses and, with ``streamed_managed``, the streamed vertex arrays are
    made in managed memory (:class:`ManagedAllocator`, yielded, reusing ``spares``), and
    :func:`ensure_fits` refuses nothing. Arrays cached with a Graph keep their memory
    after the context."""
    allocator = ManagedAllocator(managed_from, advice, streamed_managed, spares)
    outer, _placement.allocator = getattr(_placement, "allocator", None), allocator
    try:
        with cp.cuda.using_allocator(allocator):
            yield allocator
    finally:
        _placement.allocator = outer


HOST_WORDS = 5                 # words of host_words: counters copied back, or results a
                               # kernel publishes (bfs.cu)
_D2H = 2                       # cudaMemcpyDeviceToHost
_pinned = threading.local()


def host_words() -> tuple[np.ndarray, int]:
    """This thread's :data:`HOST_WORDS` pinned host words (uint64) and their address:
    counters are copied into them (:func:`read_back`), and the multi-level BFS kernels
    write their results there directly (pinned memory shares the device's address
    space)."""
    buf = getattr(_pinned, "buf", None)
    if buf is None:
        words = pinned_words(HOST_WORDS, np.uint64)
        buf = _pinned.buf = words, words.ctypes.data
    return buf


def read_back(address: int, count: int) -> list[int]:
    """``count`` (at most :data:`HOST_WORDS`) device words at ``address`` as Python ints
    (a sync: one small copy on the current stream into :func:`host_words`, where
    ``ndarray.get`` would also make a host array: a few µs of a small call)."""
    host, host_address = host_words()
    stream = cp.cuda.get_current_stream()
    cp.cuda.runtime.memcpyAsync(host_address, address, 8 * count, _D2H, stream.ptr)
    stream.synchronize()
    return host[:count].tolist()


def pinned_words(count: int, dtype) -> np.ndarray:
    """``count`` zeroed words of ``dtype`` in pinned host memory, which kernels read and
    write at their address (``.ctypes.data``; pinned memory shares the device's address
    space): the host's side of a flag or a result the device publishes. The array holds
    its memory."""
    words = np.frombuffer(cp.cuda.alloc_pinned_memory(count * np.dtype(dtype).itemsize),
                          dtype, count)
    words[:] = 0
    return words


def streamed_alloc(nbytes: int) -> cp.cuda.MemoryPointer:
    """``nbytes`` of device memory for a streamed vertex array
    (:class:`lagraph_py.device_memory.Needs`), which the kernels read in order or write
    once: within :func:`out_of_core` where the plan has no room for them beside the vertex
    arrays (``streamed_managed``), managed memory whatever its size; elsewhere from the
    current allocator, as ``cupy.cuda.alloc`` gives it (a call's hot path: no context).

    Examples
    --------
    >>> import cupy as cp
    >>> queue = cp.ndarray((8,), cp.int32, streamed_alloc(32))
    """
    allocator = getattr(_placement, "allocator", None)
    if allocator is None or not allocator.streamed_managed or not nbytes:
        return cp.cuda.alloc(nbytes)
    return allocator.managed(nbytes)


def streamed_empty(size: int, dtype) -> cp.ndarray:
    """An uninitialized array of ``size`` items of ``dtype`` over :func:`streamed_alloc`.

    Examples
    --------
    >>> import cupy as cp
    >>> labels = streamed_empty(8, cp.int64)
    """
    dtype = np.dtype(dtype)
    return cp.ndarray((size,), dtype, streamed_alloc(size * dtype.itemsize))


def device_empty(size: int, dtype) -> cp.ndarray:
    """An uninitialized 1-D array of ``size`` items in device memory, from the memory
    pool, also within :func:`out_of_core`, whose allocator places an array of its size in
    managed memory: for the device copies an out-of-core call makes where it found room
    (``free_bytes``).

    Examples
    --------
    >>> import numpy as np
    >>> device_empty(3, np.int32).shape
    (3,)
    """
    dtype = np.dtype(dtype)
    return cp.ndarray((size,), dtype, cp.get_default_memory_pool().malloc(size * dtype.itemsize))


def out_of_core_now() -> bool:
    """Whether this thread is inside :func:`out_of_core`."""
    return getattr(_placement, "allocator", None) is not None


def in_managed_memory(a: cp.ndarray) -> bool:
    """Whether the device array ``a`` lies in CUDA managed memory (:func:`out_of_core`)."""
    memory = a.data.mem
    return (isinstance(memory, cp.cuda.memory.ManagedMemory)
            or isinstance(getattr(memory, "_owner", None), _Lease))


def graph_bytes(G, managed: bool | None = None) -> int:
    """Device bytes held with ``G``: the allocations of every device array its cache
    reaches through this package's objects (device matrices and what was built on them,
    degree vectors, the BFS search's scratch, the MSF edge list), each counted once; with
    ``managed``, only those in managed memory (True, :func:`out_of_core`) or only the
    others (False).

    With the working set of a call (``working_set`` of each steps module), what a call
    holds on the device at its peak; the gpu runner of ``bench/memory.py`` reports both.
    """
    return sum(size for size, in_managed in _allocations(G).values()
               if managed is None or in_managed == managed)


def held_bytes(G) -> tuple[int, int]:
    """``(graph_bytes(G), graph_bytes(G, managed=False))`` from one walk of the cache."""
    allocations = _allocations(G).values()
    return (sum(size for size, _ in allocations),
            sum(size for size, in_managed in allocations if not in_managed))


def _allocations(G) -> dict[int, tuple[int, bool]]:
    """Each allocation that ``G``'s device arrays use (:func:`graph_bytes`): its size and
    whether it is managed memory, by address."""
    allocations: dict[int, tuple[int, bool]] = {}

    def visit(x) -> None:
        if isinstance(x, cp.ndarray):
            allocations[x.data.mem.ptr] = (x.data.mem.size, in_managed_memory(x))
        elif isinstance(x, (tuple, list)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)
        elif type(x).__module__.startswith(__package__):
            names = getattr(type(x), "__slots__", ()) or vars(x)
            for name in names:
                visit(getattr(x, name, None))

    for key, value in G._cache.items():
        if key.startswith("gpu."):
            visit(value)
    return allocations


def _matrix_key(transposed: bool, loops: bool) -> str:
    return f"gpu.matrix.T{int(transposed)}.L{int(loops)}"


def seed_device_matrix(G, indices: cp.ndarray) -> DeviceMatrix:
    """Cache, as ``G``'s device adjacency, CSR column indices already on the device (in
    ``G``'s own CSR order and index dtype): the first gpu call then uploads only the row
    pointers."""
    return G._cached(_matrix_key(False, True),
                     lambda: DeviceMatrix(G, False, True, G.indptr, indices))


def device_matrix(G, *, transpose: bool = False, loops: bool = True) -> DeviceMatrix:
    """The cached :class:`DeviceMatrix` of ``G`` (or of its transpose); a graph without
    self-loops has one matrix for both values of ``loops``."""
    loops = loops or G.nself_loops == 0
    H = G.transpose() if transpose else G
    transposed = transpose and H is not G          # undirected: the transpose is G itself
    key = _matrix_key(transposed, loops)

    def build():
        indptr, indices = H.indptr, H.indices
        if not loops:
            rows = H.rows()
            keep = rows != indices
            indices = indices[keep]
            counts = np.bincount(rows[keep], minlength=H.n)
            indptr = np.zeros(H.n + 1, dtype=H.indptr.dtype)
            np.cumsum(counts, out=indptr[1:])
        return DeviceMatrix(G, transposed, loops, indptr, indices)

    return G._cached(key, build)
