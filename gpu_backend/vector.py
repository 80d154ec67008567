"""The device vector of the gpu executor.

A :class:`GpuVector` of ``size`` indices is stored *dense*: ``values`` (a CuPy int64 or
float64 array of length ``size``) and ``present`` (a CuPy bool array, the presence
bitmap). Values at absent indices are unspecified and never read, except that a vector may
know one value that all of them hold (``absent``, set when a BFS first writes the vector);
in-place steps keep it, since they write only where they make an entry present, and
``to_dense`` with that fill then hands the values over as they are. Such a vector (the
parents and levels of a BFS) keeps no presence bytes until a step reads them: they are
``values != absent`` (BFS values are never negative), and from then on every step that
writes the vector keeps them. Every step of the vocabulary is an element-wise kernel over
two arrays, masks are a byte test, and a BFS kernel marks a vertex visited with one store
per output.

Kernels that want the *sparse* form (an index queue) get it by stream compaction of the
bitmap (:meth:`GpuVector.queue`); a vector made from a queue (a BFS frontier) keeps the
queue and builds its bitmap only when some step reads it (``lazy``). Host-side counts are
cached when known (``_nvals``) so that ``nvals`` costs no synchronization then.

In-place steps (``assign``, ``assign_scalar`` and the fused BFS kernels) bump ``version``,
which invalidates any derived state another step cached on the vector. A step that
computes on the host (a small graph's SCC) may stage host values instead
(:meth:`GpuVector.stage_host`): they go to the device in one copy when first read.
"""

from __future__ import annotations

import math
import threading
from typing import Callable, NamedTuple

import cupy as cp
import numpy as np

#: Host arrays of up to this many bytes go to the device through pinned staging memory
#: (:func:`upload`); larger ones by CuPy's copy.
STAGED_BYTES = 1 << 24
_H2D = 1                       # cudaMemcpyHostToDevice
_staging = threading.local()


class Staged(NamedTuple):
    """Host arrays made by :func:`stage`, for :func:`send`."""

    arrays: tuple          #: the host arrays, to fill
    starts: tuple          #: each one's byte offset in the staging buffer
    total: int             #: bytes of the one copy, or -1: plain arrays (too large)


def stage(*specs: tuple) -> Staged:
    """Host arrays of the ``(shape, dtype)`` pairs ``specs`` in this thread's pinned
    staging buffer (each from an 8-byte boundary; the buffer is reused once its last copy
    has finished), for a caller to fill and :func:`send` before it stages again. Where
    together they pass :data:`STAGED_BYTES` they are plain numpy arrays, sent by CuPy's
    copy."""
    sizes = [math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in specs]
    starts, total = [], 0
    for nbytes in sizes:
        starts.append(total)
        total += -(-nbytes // 8) * 8
    if total > STAGED_BYTES:
        return Staged(tuple(np.empty(shape, dtype) for shape, dtype in specs), (), -1)
    buf, done = getattr(_staging, "state", (None, None))
    if done is None:
        done = cp.cuda.Event(block=False, disable_timing=True)
    else:
        done.synchronize()
    if buf is None or buf.size < total:
        size = max(total, 1 << 16)
        buf = np.frombuffer(cp.cuda.alloc_pinned_memory(size), np.uint8, size)
    _staging.state = buf, done
    arrays = tuple(buf[start:start + nbytes].view(dtype).reshape(shape)
                   for (shape, dtype), start, nbytes in zip(specs, starts, sizes))
    return Staged(arrays, tuple(starts), total)


def send(staged: Staged) -> tuple[cp.ndarray, ...]:
    """Device copies of the arrays of :func:`stage`, as arrays over one device
    allocation filled by one asynchronous copy on the current stream from the staging
    buffer (no host copy: a step that fills the staged arrays itself writes its results
    straight into pinned memory)."""
    if staged.total < 0:
        return tuple(cp.asarray(a) for a in staged.arrays)
    buf, done = _staging.state
    device = cp.cuda.alloc(staged.total)
    out = tuple(cp.ndarray(a.shape, a.dtype, device + start)
                for a, start in zip(staged.arrays, staged.starts))
    stream = cp.cuda.get_current_stream()
    cp.cuda.runtime.memcpyAsync(device.ptr, buf.ctypes.data, staged.total, _H2D, stream.ptr)
    done.record(stream)
    return out


def upload(*arrays: np.ndarray) -> tuple[cp.ndarray, ...]:
    """Device copies of host ``arrays``: copied into the staging buffer (:func:`stage`),
    then sent in one asynchronous copy (:func:`send`). The host hand-over of a small graph
    (:mod:`.host_handover`) copied each output from pageable memory (``cupy.asarray``);
    one staged copy took its BFS of rome99 from 80 to 72 µs on the H100 machine, whose
    round trip of a copy and a sync is 35-44 µs either way. The outputs are made as
    arrays over the allocation, not as views of one: on the H200 machine an upload of a
    BFS's two outputs took 28-34 µs of host time with three CuPy view steps an array,
    23-26 µs without (the copy and its synchronization alone: 11 µs).

    Examples
    --------
    >>> import numpy as np
    >>> a, b = upload(np.arange(3), np.ones(2, np.float64))
    >>> a.tolist(), b.tolist()
    ([0, 1, 2], [1.0, 1.0])
    """
    arrays = [np.asarray(a) for a in arrays]
    staged = stage(*[(a.shape, a.dtype) for a in arrays])
    if staged.total < 0:                      # too large to stage: no host copy first
        return tuple(cp.asarray(a) for a in arrays)
    for host, a in zip(staged.arrays, arrays):
        host[...] = a
    return send(staged)


def _released():
    raise RuntimeError("this vector's storage was handed over (to_dense(consume=True)); "
                       "it can no longer be used")


class GpuVector:
    """Dense values + presence bitmap on the device (see the module docstring)."""

    __slots__ = ("size", "_values", "_present", "_lazy", "_nvals", "_queue", "_queue_build",
                 "_qedges", "version", "bfs_state", "_host_queue", "_one",
                 "absent", "_host_values", "__weakref__")

    def __init__(self, size: int, values=None, present=None, *, nvals: int | None = None,
                 lazy: Callable[[], tuple] | None = None, queue=None):
        self.size = int(size)
        self._values = values
        self._present = present
        self._lazy = lazy
        self._nvals = nvals
        self._queue = queue          # device index array of the present entries, or None
        self._queue_build = None     # makes the queue when first asked for (BFS frontier)
        self._qedges = None          # out-edges of the queue's vertices, when known
        self.version = 0
        self.bfs_state = None        # status array etc. of a BFS using this as visited set
        self._host_queue = None      # host copy of a short index list, when known
        self._one = None             # (index, value, dtype) of a one-entry vector
        self.absent = None           # the value every absent index holds, when known
        self._host_values = None     # host values not copied to the device yet (stage_host)

    # ------------------------------------------------------------------ storage
    def _materialize(self) -> None:
        if self._lazy is not None:
            self._values, self._present = self._lazy()
            self._lazy = None

    @property
    def values(self) -> cp.ndarray:
        """Dense values (int64 or float64), unspecified where absent."""
        self._materialize()
        return self._values

    @property
    def present(self) -> cp.ndarray:
        """Presence bitmap (bool)."""
        self._materialize()
        if self._present is None:                    # not kept yet: see the module docstring
            self._present = self._values != self.absent
        return self._present

    def for_update(self) -> tuple[cp.ndarray, cp.ndarray]:
        """(values, present) for a step that writes the vector in place. The presence bytes
        are made first: while the vector keeps none they are derived from the values, and
        the step may set a present entry to the ``absent`` value."""
        present = self.present
        return self._values, present

    def presence_address(self) -> int:
        """Device address of the presence bytes, 0 while the vector keeps none (a kernel
        writing the vector in place then writes only its values)."""
        self._materialize()
        return 0 if self._present is None else self._present.data.ptr

    @property
    def dtype(self) -> np.dtype:
        if self._one is not None and self._lazy is not None:
            return self._one[2]
        self._materialize()
        return self._values.dtype

    def touched(self) -> None:
        """Record an in-place change: drop cached counts and queues."""
        self.version += 1
        self._nvals = None
        self._queue = None
        self._queue_build = None
        self._qedges = None
        self._host_queue = None

    def adopt_one(self, absent):
        """For a one-entry vector not built yet (``GpuExecutor.vector`` of one host index):
        give it uninitialized values, kept without presence bytes, and return ``(index,
        value, values)``; the caller must fill them (``values[index] = value`` and
        ``absent`` elsewhere, which must differ from ``value``). None for any other vector."""
        if self._one is None or self._lazy is None:
            return None
        index, value, dtype = self._one
        self._values = cp.empty(self.size, dtype=dtype)
        self._lazy = None
        self.absent = absent
        return index, value, self._values

    def stage_host(self, values: np.ndarray, absent, nvals: int | None = None) -> None:
        """Replace the entries by host ``values`` (``absent`` at the absent indices, a value
        no present entry holds), copied to the device when a step first reads the vector;
        until then :meth:`staged_host` gives them for more host updates. The vector then
        keeps no presence bytes: they are ``values != absent``, ``nvals`` of them (counted
        if not given)."""
        self._host_values = values
        self._lazy = self._upload_staged
        self._values = self._present = None
        self.touched()
        self.absent = absent
        self._nvals = int(np.count_nonzero(values != absent)) if nvals is None else nvals

    def staged_host(self) -> np.ndarray | None:
        """The host values of :meth:`stage_host` while not copied yet (update them in
        place, then call :meth:`stage_host` again for the count), else None."""
        return self._host_values

    def _upload_staged(self) -> tuple[cp.ndarray, None]:
        values, self._host_values = self._host_values, None
        return upload(values)[0], None

    def release(self) -> cp.ndarray:
        """The values, handed over: the vector may not be used afterwards."""
        self._materialize()
        out = self._values
        self._values = self._present = self._queue = self._queue_build = None
        self._nvals = self._host_queue = self.bfs_state = self._one = self.absent = None
        self._host_values = None
        self._lazy = _released
        return out

    def nvals(self) -> int:
        """Present entries; a device-to-host sync unless already known."""
        if self._nvals is None:
            if self._queue is not None and self._lazy is not None:
                self._nvals = int(self._queue.size)
            else:
                self._nvals = int(cp.count_nonzero(self.present))  # sync
        return self._nvals

    def queue(self, dtype=np.int64) -> cp.ndarray:
        """Indices of the present entries (stream compaction of the bitmap; cached)."""
        if self._queue is None and self._queue_build is not None:
            build, self._queue_build = self._queue_build, None
            self._queue = build()
        if self._queue is None:
            if self._host_queue is not None:                     # a short host list
                self._queue = cp.asarray(self._host_queue)
            else:
                self._queue = cp.flatnonzero(self.present)       # sync (size of output)
            self._nvals = int(self._queue.size)
        q = self._queue
        return q if q.dtype == dtype else q.astype(dtype)

    def __repr__(self) -> str:
        return f"<GpuVector size={self.size} dtype={self.dtype}>"
