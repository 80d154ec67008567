"""GPU ranks: the distributed executor with each rank's part on its GPU, exchanging device
arrays through NCCL (``cupy.cuda.nccl``).

Rank ``r`` of a host takes device ``r mod devices``. With one GPU a rank, rank 0 makes
the NCCL communicator's id and the ranks share it over MPI. Every exchange of device
arrays first agrees on the counts over MPI (:class:`~.exchange.Exchange`: time-outs and
failure notes as on CPU ranks), then moves the data with NCCL: all-reduce, all-gather
(padded to the largest part), and all-to-all as grouped sends and receives. Where a host
has more ranks than GPUs, ranks share a GPU, which NCCL refuses ("Duplicate GPU"): then
every rank exchanges through MPI instead, by way of host memory (:class:`HostStagedComm`).

The primitive steps are those of :class:`~.executor.PrimitiveSteps` on the gpu
executor's vectors; the BFS is one fused group step (:mod:`.gpu_bfs_steps`: levels decided
on the device; where the ranks' GPUs reach each other's memory, one launch runs them all
and stores each level's part into the others' GPUs itself, else a launch and an NCCL
exchange a level), and so are the spanning forest
(:mod:`.gpu_msf_steps`: Borůvka rounds as array steps on the device, all-reduces over
NCCL) and the SCC trim and signature rounds (:mod:`.gpu_scc_steps`, the same way); the
connected components run the CPU ranks' fused step on the ranks' hosts
(:mod:`.components_steps`). The local rows are a :class:`gpu_backend.DeviceMatrix` with
``n`` rows (the rows past the rank's range empty), since the gpu executor's products are
square.

Importing this module without CuPy, a GPU or NCCL raises an ImportError naming what is
missing.
"""

from __future__ import annotations

import functools
import pickle
import time

from gpu_backend import DeviceMatrix, GpuVector, _module  # first: CuPy or a GPU missing?

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402
from cupy.cuda import nccl  # noqa: E402
from mpi4py import MPI  # noqa: E402

if not nccl.available:  # pragma: no cover - depends on the machine
    raise ImportError("the distributed executor's GPU ranks need NCCL: pip install "
                      "nvidia-nccl-cu12 (CUDA 12) or nvidia-nccl-cu13 (CUDA 13)")

from lagraph_py.registry import get_executor  # noqa: E402

from .components_steps import ComponentsSteps  # noqa: E402
from .exchange import Exchange  # noqa: E402
from .executor import _PATTERN_ONLY, DistMatrix, PrimitiveSteps  # noqa: E402
from .gpu_bfs_steps import GpuBfsSteps  # noqa: E402
from .gpu_msf_steps import GpuMsfSteps  # noqa: E402
from .gpu_scc_steps import ArraySccSteps  # noqa: E402
from .graph import world  # noqa: E402
from .peer_memory import peer_access  # noqa: E402

_TYPES = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.float64): nccl.NCCL_FLOAT64,
          np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.uint64): nccl.NCCL_UINT64,
          np.dtype(np.uint8): nccl.NCCL_UINT8, np.dtype(bool): nccl.NCCL_UINT8}
_OPS = {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}
_DTYPES = {t: d for d, t in reversed(_TYPES.items())}       # NCCL's type -> numpy's
_OP_NAMES = {op: name for name, op in _OPS.items()}


class HostStagedComm:
    """An NCCL communicator's all-gather and all-reduce (its names, its arguments) over MPI
    by way of host memory: the exchanges of ranks that share a GPU.

    Each call waits for the given stream, copies its device bytes to the host, runs the
    collective of :class:`~.exchange.Exchange` (time-outs, failure notes) and copies the
    result back before it returns, so calls inside an NCCL group run at once, in order.
    It has no sends and receives: :meth:`NcclExchange.alltoallv` of staged ranks goes
    through the host exchange.
    """

    def __init__(self, host: Exchange):
        self.host = host

    @staticmethod
    def _get(ptr: int, count: int, t: int, stream: int) -> np.ndarray:
        cp.cuda.runtime.streamSynchronize(stream)
        out = np.empty(count, _DTYPES[t])
        if out.nbytes:
            cp.cuda.runtime.memcpy(out.ctypes.data, ptr, out.nbytes,
                                   cp.cuda.runtime.memcpyDeviceToHost)
        return out

    @staticmethod
    def _put(ptr: int, values: np.ndarray) -> None:
        if values.nbytes:
            cp.cuda.runtime.memcpy(ptr, values.ctypes.data, values.nbytes,
                                   cp.cuda.runtime.memcpyHostToDevice)

    def allGather(self, send, recv, count, t, stream) -> None:
        (whole,), _ = self.host.allgather([self._get(send, count, t, stream)])
        self._put(recv, whole)

    def allReduce(self, send, recv, count, t, op, stream) -> None:
        self._put(recv, self.host.allreduce(self._get(send, count, t, stream),
                                            _OP_NAMES[op]))


def _timed(collective):
    """With ``timing`` on, a collective waits for the device before and after, and adds
    its seconds (less those its host exchanges add to ``host.seconds``) to ``seconds``."""
    @functools.wraps(collective)
    def run(self, *args):
        if not self.timing:
            return collective(self, *args)
        stream = cp.cuda.get_current_stream()
        stream.synchronize()
        start, host = time.perf_counter(), self.host.seconds
        out = collective(self, *args)
        stream.synchronize()
        self.seconds += time.perf_counter() - start - (self.host.seconds - host)
        return out
    return run


class NcclExchange:
    """The collectives of :class:`~.exchange.Exchange` on CuPy arrays, through NCCL.

    ``timing`` (default off): each collective waits for the device before and after, so
    that ``seconds`` (and ``host.seconds``) hold the time spent exchanging, apart from
    the local work. ``peer_access``: whether kernels may store into the other ranks'
    GPUs themselves (:func:`~.peer_memory.peer_access`, where ``allow_peer_access``).
    """

    def __init__(self, host: Exchange, *, allow_peer_access: bool = True):
        self.host, self.rank, self.size = host, host.rank, host.size
        self.timing, self.seconds = False, 0.0
        node = host.comm.Split_type(MPI.COMM_TYPE_SHARED)
        devices = cp.cuda.runtime.getDeviceCount()
        cp.cuda.Device(node.Get_rank() % devices).use()
        # ranks sharing a GPU anywhere: every rank exchanges through the host
        self.staged = bool(host.allreduce(np.array([node.Get_size() > devices], np.int64),
                                          "max")[0])
        self.peer_access = allow_peer_access and not self.staged and peer_access(host)
        if self.staged:
            self.comm = HostStagedComm(host)
            return
        uid = pickle.dumps(nccl.get_unique_id() if self.rank == 0 else None)
        (ids,), counts = host.allgather([np.frombuffer(uid, np.uint8)])
        uid = pickle.loads(ids[:counts[0]].tobytes())
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)

    def _stream(self) -> int:
        return cp.cuda.get_current_stream().ptr

    @staticmethod
    def type_of(dtype) -> int:
        """NCCL's name of the element type ``dtype``."""
        return _TYPES[np.dtype(dtype)]

    @_timed
    def allreduce(self, x, op: str):
        out = cp.empty_like(x)
        self.comm.allReduce(x.data.ptr, out.data.ptr, x.size, _TYPES[x.dtype], _OPS[op],
                            self._stream())
        return out

    @_timed
    def allgather(self, arrays):
        counts = self.host.allgather([np.array([arrays[0].size], np.int64)])[0][0]
        top = int(counts.max(initial=0))
        outs = []
        for a in arrays:
            padded = cp.zeros(top, a.dtype)
            padded[:a.size] = a
            whole = cp.empty(top * self.size, a.dtype)
            self.comm.allGather(padded.data.ptr, whole.data.ptr, top, _TYPES[a.dtype],
                                self._stream())
            outs.append(cp.concatenate([whole[r * top:r * top + int(c)]
                                        for r, c in enumerate(counts)]))
        return outs, counts

    @_timed
    def alltoallv(self, arrays, counts):
        if self.staged:
            outs, received = self.host.alltoallv([cp.asnumpy(a) for a in arrays], counts)
            return [cp.asarray(out) for out in outs], received
        received = self.host.arriving(counts)
        sdispl = np.concatenate([[0], np.cumsum(counts)])
        rdispl = np.concatenate([[0], np.cumsum(received)])
        outs = [cp.empty(int(rdispl[-1]), a.dtype) for a in arrays]
        nccl.groupStart()
        for a, out in zip(arrays, outs):
            t, item = _TYPES[a.dtype], a.dtype.itemsize
            for r in range(self.size):
                if counts[r]:
                    self.comm.send(a.data.ptr + int(sdispl[r]) * item, int(counts[r]), t, r,
                                   self._stream())
                if received[r]:
                    self.comm.recv(out.data.ptr + int(rdispl[r]) * item, int(received[r]), t,
                                   r, self._stream())
        nccl.groupEnd()
        return outs, received


class GpuRanksExecutor(GpuBfsSteps, GpuMsfSteps, ComponentsSteps, ArraySccSteps,
                       PrimitiveSteps):
    """``backend="gpu"`` on a distributed graph: each rank's part on its GPU, the BFS,
    the MSF and the SCC trim and signature rounds fused on the device; the connected
    components run on the ranks' hosts, over their host arrays, as on CPU ranks (their
    results go to the device). ``allow_peer_access=False``: the BFS exchanges through
    NCCL even where the ranks' GPUs reach each other's memory."""

    name = "distributed-gpu"
    xp = cp

    def __init__(self, exchange: Exchange | None = None, *, allow_peer_access: bool = True):
        self.exchange = exchange or world()
        self.data = NcclExchange(self.exchange, allow_peer_access=allow_peer_access)
        self.local = get_executor("gpu")

    def _reserve(self, nbytes: int, what: str) -> None:
        from gpu_backend.storage import ensure_fits

        ensure_fits(nbytes, what)

    @staticmethod
    def _least(out, at, values) -> None:
        """``out[at[k]] = min(out[at[k]], values[k])``: the scatter-min of the fused
        steps (gpu_backend's ``scatter_reduce``; int32 or int64 values)."""
        if at.size:
            block = 256
            ignored = cp.empty(out.size, np.uint8)                # the kernel's bitmap
            _module.kernel("scatter_reduce", out.dtype)(
                (_module.grid_for(at.size, block),), (block,),
                (at.astype(np.int64, copy=False), values, at.size, out, out, ignored,
                 np.int32(0)))

    def mxv(self, A, u, semiring, *, mask=None, complement=False):
        # the local rows are an n x n matrix (rows past the range empty): pad the mask to
        # n, keep the range of the product
        whole = self._gathered(u, semiring not in _PATTERN_ONLY)
        m = None
        if mask is not None:
            present = cp.zeros(A.n, bool)
            present[:A.nlocal] = mask.local.present
            m = GpuVector(A.n, cp.zeros(A.n, np.int64), present)
        w = self.local.mxv(A.local, whole, semiring, mask=m, complement=complement)
        return self._wrap(A.n, GpuVector(A.nlocal, w.values[:A.nlocal], w.present[:A.nlocal]))

    def local_matrix(self, M: DistMatrix):
        indptr = np.concatenate([M.indptr, np.full(M.n - M.nlocal, M.indptr[-1])])
        return DeviceMatrix(None, False, True, indptr, M.indices)


__all__ = ["GpuRanksExecutor", "NcclExchange", "HostStagedComm"]
