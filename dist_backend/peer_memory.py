"""Device memory that the GPU ranks of one host store into directly, each in the others'
GPUs (CUDA IPC: peer access over NVLink or PCIe), so that a kernel exchanges what it makes
as it makes it, with no collective launched after it.

:func:`peer_access` says whether the ranks can (collective); a :class:`PeerBuffer` is a
buffer of the same size on every rank, with every rank's address of every rank's buffer.
"""

from __future__ import annotations

import weakref

import cupy as cp
import numpy as np
from mpi4py import MPI

from .exchange import Exchange


def peer_access(host: Exchange) -> bool:
    """Whether every rank's GPU can store into every other rank's: all ranks on one host,
    each on a GPU of its own, each pair of GPUs with peer access (collective; alike on
    every rank)."""
    node = host.comm.Split_type(MPI.COMM_TYPE_SHARED)
    mine = cp.cuda.Device().id
    (ids,), _ = host.allgather([np.array([mine], np.int64)])
    able = (node.Get_size() == host.size and len(set(ids.tolist())) == host.size and
            all(d == mine or cp.cuda.runtime.deviceCanAccessPeer(mine, int(d)) for d in ids))
    return bool(host.allreduce(np.array([able], np.int64), "min")[0])


class PeerBuffer:
    """``nbytes`` of device memory on each rank, zeroed, opened on every other rank
    (collective): ``memory`` is this rank's (a ``cupy`` uint8 array) and ``addresses``
    (a device array of uint64) every rank's address of each rank's buffer, in rank order,
    its own included. The others' buffers stay open while this object lives."""

    def __init__(self, nbytes: int, host: Exchange):
        own = cp.cuda.Memory(max(nbytes, 1))          # its own allocation: IPC shares whole ones
        self.memory = cp.ndarray(nbytes, np.uint8, cp.cuda.MemoryPointer(own, 0))
        self.memory[:] = 0
        cp.cuda.get_current_stream().synchronize()     # zeroed before any rank stores into it
        opened = []
        if host.size > 1:
            handle = cp.cuda.runtime.ipcGetMemHandle(own.ptr)
            (handles,), _ = host.allgather([np.frombuffer(handle, np.uint8)])
            handles = handles.reshape(host.size, -1)
            opened = [cp.cuda.runtime.ipcOpenMemHandle(handles[r].tobytes())
                      for r in range(host.size) if r != host.rank]
        others = iter(opened)
        self.addresses = cp.asarray(np.array(
            [own.ptr if r == host.rank else next(others) for r in range(host.size)], np.uint64))
        host.allreduce(np.zeros(1), "sum")            # every rank's buffer zeroed and open
        self._own = own
        self._closed = weakref.finalize(self, _close, opened)


def _close(opened: list[int]) -> None:
    for address in opened:
        cp.cuda.runtime.ipcCloseMemHandle(address)


__all__ = ["PeerBuffer", "peer_access"]
