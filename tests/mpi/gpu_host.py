"""Run by tests/test_distributed.py under mpiexec, without a GPU: the GPU ranks' BFS
(dist_backend/gpu_bfs_steps.py) with CuPy, NCCL and its kernels emulated on the host,
against the single-process cpu executor; exits non-zero on a difference.

What this checks is the host side of the GPU ranks that exchange through NCCL (ranks
without peer access): the device blocks and their index type, the slots of the exchange
buffer and the offsets of each rank's bitmap words and counters in them, the levels
enqueued ahead and where the host's loop stops, and the rows of the trace. The emulated
kernels (numpy, below) do what the CUDA ones of gpu_backend/kernels/bfs.cu do to the
arrays (the rule by the host's DirectionRule, which rank_rule transcribes); the emulated
NCCL calls move the bytes at the addresses they are given, over MPI. The same
searches run again with the exchanges of ranks that share a GPU (the real
HostStagedComm, over emulated device copies), whose all-reduce is checked too. On a
GPU, tests/mpi/agree_gpu.py checks the real ones, and the levels of ranks that store into
each other's GPUs.
"""

import ctypes
import itertools
import struct
import sys
import time
import types

import numpy as np
from mpi4py import MPI


# ---------------------------------------------------------------------- emulated CuPy
class Pointer:
    """CuPy's ``MemoryPointer``: an address, offsets, and the asynchronous byte copies."""

    def __init__(self, ptr: int):
        self.ptr = ptr

    def __add__(self, offset: int) -> "Pointer":
        return Pointer(self.ptr + offset)

    def memset_async(self, value: int, size: int) -> None:
        at(self.ptr, size, np.uint8)[:] = value

    def copy_from_device_async(self, src: "Pointer", size: int) -> None:
        at(self.ptr, size, np.uint8)[:] = at(src.ptr, size, np.uint8)


class DeviceArray(np.ndarray):
    """A numpy array with CuPy's ``data`` (a :class:`Pointer`), ``get`` and ``set``."""

    @property
    def data(self):
        return Pointer(self.ctypes.data)

    def get(self):
        return np.array(self)

    def set(self, values):
        self[...] = values


def _device(a):
    return np.asarray(a).view(DeviceArray)


def at(address: int, count: int, dtype) -> np.ndarray:
    """The ``count`` elements of ``dtype`` at ``address`` (memory of a DeviceArray)."""
    nbytes = count * np.dtype(dtype).itemsize
    return np.frombuffer((ctypes.c_char * nbytes).from_address(address), dtype)


cupy = types.ModuleType("cupy")
cupy.asarray = lambda a: _device(np.array(a))
cupy.zeros = lambda n, dtype=float: _device(np.zeros(n, dtype))
cupy.empty = lambda n, dtype=float: _device(np.zeros(n, dtype))
cupy.full = lambda n, value, dtype=None: _device(np.full(n, value, dtype))
cupy.add, cupy.cumsum = np.add, np.cumsum
cupy.ndarray = DeviceArray
cupy.cuda = types.ModuleType("cupy.cuda")
cupy.cuda.get_current_stream = lambda: types.SimpleNamespace(ptr=0, synchronize=lambda: None,
                                                             done=True)


class Event:
    """A CUDA event: the host's clock when recorded."""

    def __init__(self, disable_timing=False):
        self.time = None

    def record(self):
        self.time = time.perf_counter()

    def synchronize(self):
        pass


cupy.cuda.Event = Event
cupy.cuda.alloc_pinned_memory = bytearray
cupy.cuda.get_elapsed_time = lambda start, end: (end.time - start.time) * 1e3

cupy.cuda.runtime = types.ModuleType("cupy.cuda.runtime")
cupy.cuda.runtime.memcpyHostToDevice, cupy.cuda.runtime.memcpyDeviceToHost = 1, 2
cupy.cuda.runtime.memcpy = lambda dst, src, size, kind: ctypes.memmove(dst, src, size)
cupy.cuda.runtime.streamSynchronize = lambda stream: None

nccl = cupy.cuda.nccl = types.ModuleType("cupy.cuda.nccl")
nccl.available = True
nccl.NCCL_INT32, nccl.NCCL_INT64, nccl.NCCL_UINT64, nccl.NCCL_FLOAT64, nccl.NCCL_UINT8 = range(5)
nccl.NCCL_SUM, nccl.NCCL_MIN, nccl.NCCL_MAX = range(3)
_NCCL_DTYPES = {0: np.int32, 1: np.int64, 2: np.uint64, 3: np.float64, 4: np.uint8}
_group: list | None = None


def _in_order(op):
    if _group is None:
        op()
    else:
        _group.append(op)


def _group_start():
    global _group
    _group = []


def _group_end():
    global _group
    ops, _group = _group, None
    for op in ops:
        op()


nccl.groupStart, nccl.groupEnd = _group_start, _group_end


class Communicator:
    """NCCL's calls of the GPU ranks on MPI.COMM_WORLD, on raw addresses."""

    def allGather(self, send, recv, count, dtype, stream):
        def op():
            t = _NCCL_DTYPES[dtype]
            mine = at(send, count, t).copy()          # NCCL allows it in place
            out = at(recv, count * MPI.COMM_WORLD.size, t)
            MPI.COMM_WORLD.Allgather(mine, out)
        _in_order(op)

    def broadcast(self, send, recv, count, dtype, root, stream):
        def op():
            t = _NCCL_DTYPES[dtype]
            buf = at(recv, count, t)
            if MPI.COMM_WORLD.rank == root:
                buf[:] = at(send, count, t)
            MPI.COMM_WORLD.Bcast(buf, root=root)
        _in_order(op)


# ---------------------------------------------------------------------- emulated kernels
_RULES: dict = {}                   # each search's rule, by the address of its state words


def _fields(args) -> dict:
    """The fields of bfs.cu's RankLevel from its bytes (addresses and integers)."""
    return dict(zip(gpu_bfs_steps._LEVEL_FIELDS,
                    struct.unpack(gpu_bfs_steps._LEVEL_FORMAT, args)))


def rank_start(args, s, I):
    f = _fields(args)
    nlocal, own = f["nlocal"], s - f["lo"]
    st = at(f["st"], nlocal, np.int32)
    st[:] = -1
    bits = at(f["bits"], f["words"], np.uint32)
    bits[:] = 0
    bits[s >> 5] = 1 << (s & 31)
    counters = at(f["counters"], 3, np.uint64)
    counters[:] = 0
    if f["pv"]:
        at(f["pv"], nlocal, np.int64)[:] = -1
    if 0 <= own < nlocal:
        st[own] = 0
        if f["pv"]:
            at(f["pv"], nlocal, np.int64)[own] = s
        for i, ptr in enumerate((f["out_ptr"], f["in_ptr"])):
            p = at(ptr, nlocal + 1, I)
            counters[i + 1] = p[own + 1] - p[own]
        counters[0] = 1


def rank_levels(args, k, I):
    """bfs.cu's rank_levels without peers (one level): its one argument unpacked, its
    arrays found at their addresses, the exchange buffer's slots as the kernel reads and
    writes them."""
    f, k = _fields(args), int(k)
    assert not f["peers"] and not f["trace"]
    n, nlocal, ranks, words = f["n"], f["nlocal"], f["ranks"], f["words"]
    ring = gpu_bfs_steps._RING
    rows = at(f["rows"], 4 * ring, np.int64).reshape(ring, 4)
    slot = gpu_bfs_steps._SOURCE_SLOT if k == 1 else (k - 1) & 1
    counters = at(f["counters"], 3, np.uint64)
    gathered = at(f["gathered"] + 8 * 3 * ranks * slot, 3 * ranks, np.uint64)
    stats = LevelStats(*(int(x) for x in gathered.reshape(ranks, 3).sum(axis=0)))
    if k == 1:
        rule = _RULES[f["state"]] = DirectionRule(METHODS[f["method"]], n, f["nstored"], stats)
    else:
        rule = _RULES[f["state"]]
        rule.record(stats)
    pull = rule.nq > 0 and rule.next_level() == "pull"
    rows[k % ring] = rule.nq, pull, rule.nq == 0, k
    counters[:] = 0
    if rule.nq == 0:
        return
    st = at(f["st"], nlocal, np.int32)
    pv = at(f["pv"], nlocal, np.int64) if f["pv"] else np.empty(nlocal, np.int64)
    frontier = np.unpackbits(at(f["bits"] + 4 * words * ((k - 1) & 1), words,
                                np.uint32).view(np.uint8), bitorder="little")
    if pull:
        in_ptr = at(f["in_ptr"], nlocal + 1, I)
        in_ind = at(f["in_ind"], int(in_ptr[-1]), I)
        for v in np.flatnonzero(st == -1):
            for u in in_ind[in_ptr[v]:in_ptr[v + 1]]:
                if frontier[u]:
                    st[v], pv[v] = k, u
                    break
    else:
        col_ptr = at(f["col_ptr"], n + 1, I)
        col_ind = at(f["col_ind"], int(col_ptr[-1]), I)
        for u in np.flatnonzero(frontier):
            for v in col_ind[col_ptr[u]:col_ptr[u + 1]]:
                if st[v] == -1:
                    st[v], pv[v] = k, u
    new = np.flatnonzero(st == k)
    for i, ptr in enumerate((at(f["out_ptr"], nlocal + 1, I), at(f["in_ptr"], nlocal + 1, I))):
        counters[i + 1] = int((ptr[new + 1] - ptr[new]).sum())
    counters[0] = new.size
    own = -(-nlocal // 32)
    packed = np.zeros(4 * own, np.uint8)
    packed[:-(-nlocal // 8)] = np.packbits(st == k, bitorder="little")
    made = f["bits"] + 4 * (words * (k & 1) + f["rank"] * f["range_words"])
    at(made, own, np.uint32)[:] = packed.view(np.uint32)


_KERNELS = {"rank_start": rank_start, "rank_levels": rank_levels}
_module = types.ModuleType("gpu_backend._module")
_module.kernel = lambda name, *dtypes: (
    lambda grid, block, args, cooperative=False: _KERNELS[name](*args, *dtypes))
_module.grid_for = lambda work, block, per_sm=32: 1
_module.resident_blocks = lambda kernel, blocks, block: 1
gpu_backend = types.ModuleType("gpu_backend")
gpu_backend._module = _module
gpu_backend.DeviceMatrix = gpu_backend.GpuVector = None      # (imported, not used here)
sys.modules.update({"cupy": cupy, "cupy.cuda": cupy.cuda, "cupy.cuda.nccl": nccl,
                    "gpu_backend": gpu_backend, "gpu_backend._module": _module})

# ---------------------------------------------------------------------- the checks
import lagraph_py as lg  # noqa: E402
from dist_backend import DistGraph, world  # noqa: E402
from dist_backend import gpu_bfs_steps  # noqa: E402
from dist_backend.bfs_rule import METHODS, DirectionRule  # noqa: E402
from dist_backend.nccl import HostStagedComm, NcclExchange  # noqa: E402
from lagraph_py.cpu import CpuExecutor  # noqa: E402
from lagraph_py.executor import LevelStats  # noqa: E402

sys.path.insert(0, sys.argv[1])                 # the tests folder: oracles.py
from oracles import bfs_directions, check_bfs_parents  # noqa: E402


class EmulatedRanks(gpu_bfs_steps.GpuBfsSteps):
    """The GPU ranks' BFS group step on the emulated devices."""

    name = "emulated-gpu"

    def __init__(self):
        self.exchange = world()
        self.data = types.SimpleNamespace(comm=Communicator(), peer_access=False,
                                          type_of=lambda t: {4: 0, 8: 1}[np.dtype(t).itemsize])
        self.local = types.SimpleNamespace(block=256)


class StagedRanks(EmulatedRanks):
    """The same, exchanging as ranks that share a GPU do (:class:`HostStagedComm`, NCCL's
    type names of :class:`NcclExchange`)."""

    name = "emulated-staged"

    def __init__(self):
        super().__init__()
        self.data = types.SimpleNamespace(comm=HostStagedComm(world()), peer_access=False,
                                          type_of=NcclExchange.type_of)


def graphs(rng):
    yield "isolated", lg.Graph.from_edges([], [], n=70, directed=True)
    yield "path", lg.Graph.from_edges(np.arange(299), np.arange(1, 300), directed=True)
    yield "star", lg.Graph.from_edges(np.zeros(150, int), np.arange(1, 151), directed=False)
    yield "one-rank-edges", lg.Graph.from_edges([0, 1, 2], [1, 2, 0], n=300, directed=False)
    for i in range(4):
        n = int(rng.integers(1, 500))
        src, dst = rng.integers(0, n, (2, int(rng.integers(0, 5 * n))))
        yield f"random{i}", lg.Graph.from_edges(src, dst, n=n, directed=bool(i % 2))
    yield "kron", lg.generate.kronecker(11, seed=3)
    yield "kron-directed", lg.generate.kronecker(10, seed=5, directed=True)


def main():
    int32_top = gpu_bfs_steps.INT32_TOP
    for ex, (name, G), wide in itertools.product((EmulatedRanks(), StagedRanks()),
                                                 graphs(np.random.default_rng(5)),
                                                 (False, True)):
        gpu_bfs_steps.INT32_TOP = -1 if wide else int32_top      # int64 device arrays
        D = DistGraph.from_graph(G)
        for s in sorted({0, G.n // 2, G.n - 1}):
            ref = lg.bfs(G, s, backend=CpuExecutor()).level
            for method in ("auto", "push", "pull"):
                trace = []
                level, parent = ex.bfs_search(D, s, method, True, True, trace=trace)
                alone, none = ex.bfs_search(D, s, method, True, False)     # no parents
                assert none is None and np.array_equal(alone, level)
                deepest = int(world().allreduce(np.array([level.max(initial=0)]), "max")[0])
                assert [row["level"] for row in trace] == list(range(1, deepest + 2))
                assert {row["direction"] for row in trace} <= {"push", "pull"}
                assert D._cache[f"{ex.name}.bfs.nccl"].I == (np.int64 if wide else np.int32)
                level, parent = D.gather(level.get()), D.gather(parent.get())
                if D.rank == 0:
                    where = f"{name} from {s} ({ex.name}, {method}, int{64 if wide else 32})"
                    assert np.array_equal(level, ref), f"{where}: levels"
                    assert [row["direction"] for row in trace] == bfs_directions(
                        G, ref, method), f"{where}: directions"
                    lg.validate.bfs(G, s, lg.BFSResult(s, level, parent))
                    check_bfs_parents(G, s, parent)
    staged, ranks = HostStagedComm(world()), np.arange(world().size)
    for op, reduce in (("sum", np.sum), ("min", np.min), ("max", np.max)):
        mine = _device(np.array([world().rank + 1.5, -world().rank], np.float64))
        out = _device(np.zeros(2, np.float64))
        code = {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}[op]
        staged.allReduce(mine.data.ptr, out.data.ptr, 2, nccl.NCCL_FLOAT64, code, 0)
        assert np.array_equal(out, [reduce(ranks + 1.5), reduce(-ranks)]), op
    if world().rank == 0:
        print("gpu_host: every result equal")


if __name__ == "__main__":
    main()
