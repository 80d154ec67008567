"""Compile-once loading of the CUDA sources in ``kernels/`` as CuPy RawModules.

Every kernel is a template over the index type (``int`` / ``long long``) and, for value
kernels, the value type (one also over a bool); :func:`kernel` returns the instantiation
for given numpy dtypes (and bools), compiling each source file once per process (CuPy also
caches the binary on disk).

Launch arguments: arrays as CuPy arrays, 64-bit integers and device addresses as Python
ints, 32-bit integers as ``np.int32``, floating-point values as Python or numpy floats, a
struct passed by value as the ``bytes`` of its fields.
:class:`Kernel` packs them with :mod:`struct` into one parameter block and hands it to the
driver: on the lent H100 hosts a launch of a 24-argument BFS kernel through CuPy's own
argument conversion took about 11 µs, the driver call alone about 4 µs. A kernel is loaded
on the device current at its first use, like the device count below: the executor works on
one device.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from functools import lru_cache
from itertools import product
from pathlib import Path

import cupy as cp
import numpy as np

_DIR = Path(__file__).parent / "kernels"
_CTYPE = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long",
          np.dtype(np.float64): "double"}

#: The choices of each kind of template parameter: an index type, a value type, a bool.
_IDX, _VAL, _BOOL = ("int", "long long"), ("long long", "double"), ("false", "true")
#: kernel name -> (source file, the choices of each of its template parameters; none: an
#: extern "C" kernel, found by its plain name)
_KERNELS = {
    "vxm_push": ("primitives.cu", (_IDX, _VAL)), "mxv_pull": ("primitives.cu", (_IDX, _VAL)),
    "scatter_reduce": ("primitives.cu", (("int",) + _VAL,)),   # (int: the ranks' vertex ids)
    "set_one": ("primitives.cu", (_VAL,)), "dense_fill": ("primitives.cu", (_VAL,)),
    "compact_status": ("bfs.cu", (_IDX,)), "push_vertex": ("bfs.cu", (_IDX,)),
    "pull_vertex": ("bfs.cu", (_IDX,)), "edge_centric": ("bfs.cu", (_IDX,)),
    "queue_push": ("bfs.cu", (_IDX,)), "queue_push_private": ("bfs.cu", (_IDX,)),
    "queue_degrees": ("bfs.cu", (_IDX,)), "queue_prefix": ("bfs.cu", (_IDX,)),
    "push_balanced": ("bfs.cu", (_IDX,)), "bits_queue": ("bfs.cu", (_IDX,)),
    "pull_hub": ("bfs.cu", (_IDX,)), "push_persistent": ("bfs.cu", (_IDX,)),
    "mark_queue": ("bfs.cu", (_IDX,)), "init_status": ("bfs.cu", (_IDX,)),
    "status_bits": ("bfs.cu", ()),
    "search": ("bfs.cu", (_IDX,)), "search_async": ("bfs.cu", (_IDX,)),
    "pack_runs": ("bfs.cu", (_IDX,)),
    "rank_start": ("bfs.cu", (_IDX,)), "rank_levels": ("bfs.cu", (_IDX,)),
    # msf.cu
    "msf_upper_count": ("msf.cu", (_IDX,)), "msf_upper_edges": ("msf.cu", (_IDX,)),
    "msf_init": ("msf.cu", (_IDX,)), "msf_collect": ("msf.cu", (_IDX,)),
    "msf_decide": ("msf.cu", (_IDX,)), "msf_join": ("msf.cu", (_IDX,)),
    "msf_shrink": ("msf.cu", (_IDX,)), "msf_flatten": ("msf.cu", (_IDX,)),
    "msf_order": ("msf.cu", (_IDX,)), "msf_fused": ("msf.cu", (_IDX,)),
    # scc.cu
    "scc_trim_fused": ("scc.cu", (_IDX,)), "scc_gather_edges": ("scc.cu", (_IDX,)),
    "scc_signatures_fused": ("scc.cu", (_IDX, _BOOL)),   # (whether it relaxes runs)
    "scc_set_labels": ("scc.cu", (_IDX,)), "scc_pivot_label": ("scc.cu", (_IDX,)),
    # components.cu
    "cc_union_find": ("components.cu", (_IDX,)), "cc_heads": ("components.cu", (_IDX,)),
}


def _instances(source: str) -> list[str]:
    """The instantiations of the templates of ``source`` that it is compiled with: every
    combination of each kernel's parameter choices."""
    return [f"{name}<{', '.join(args)}>"
            for name, (src, params) in _KERNELS.items() if src == source and params
            for args in product(*params)]


@lru_cache(maxsize=None)
def _module(source: str) -> cp.RawModule:
    code = (_DIR / source).read_text()
    return cp.RawModule(code=code, options=("-std=c++17", f"-I{_DIR}"),  # shared.cuh
                        name_expressions=_instances(source))


def _code(arg) -> str:
    """struct code of one launch argument (see the module docstring)."""
    if isinstance(arg, bytes):
        return f"{len(arg)}s"
    if isinstance(arg, np.int32):
        return "i"
    return "d" if isinstance(arg, (float, np.floating)) else "q"


class Kernel:
    """A compiled kernel, called like a ``cupy.RawKernel`` (``kernel((grid,), (block,),
    args)``), with the arguments packed into a parameter block of the driver.

    The block's layout is fixed by the first call (a kernel's parameters have fixed
    types); each thread packs into its own block, which the driver copies at launch.
    """

    def __init__(self, raw: cp.RawKernel):
        self.ptr = raw.kernel.ptr                  # the CUfunction
        self._format = None
        self._local = threading.local()

    def _block(self, args):
        """This thread's (packing format, number of arguments, argument buffer, parameter
        pointer array, its address), laid out for ``args`` by the first call; holding the
        two ctypes objects keeps the addresses valid."""
        block = getattr(self._local, "block", None)
        if block is None:
            if self._format is None:
                self._format = [_code(a) for a in args]
            codes = self._format
            fmt = "".join(codes)
            buf = ctypes.create_string_buffer(struct.calcsize(fmt))
            ends = [struct.calcsize("".join(codes[:i + 1])) for i in range(len(codes))]
            params = (ctypes.c_void_p * max(1, len(codes)))(
                *[ctypes.addressof(buf) + e - struct.calcsize(c) for e, c in zip(ends, codes)])
            block = self._local.block = (fmt, len(codes), buf, params,
                                         ctypes.addressof(params))
        return block

    def __call__(self, grid: tuple, block: tuple, args: tuple, *,
                 cooperative: bool = False) -> None:
        fmt, nargs, buf, _, params = self._block(args)
        if len(args) != nargs:
            raise TypeError(f"kernel takes {nargs} arguments, got {len(args)}")
        struct.pack_into(fmt, buf, 0, *[a.data.ptr if isinstance(a, cp.ndarray) else a
                                        for a in args])
        launch = (cp.cuda.driver.launchCooperativeKernel if cooperative
                  else cp.cuda.driver.launchKernel)
        extra = () if cooperative else (0,)
        launch(self.ptr, grid[0], 1, 1, block[0], 1, 1, 0,
               cp.cuda.get_current_stream().ptr, params, *extra)

    def launch_struct(self, blocks: int, block: int, layout: struct.Struct, *fields) -> None:
        """Launch, cooperatively, a kernel whose one argument is a struct: ``fields``
        packed by ``layout`` straight into the parameter block. What ``self((blocks,),
        (block,), (layout.pack(*fields),), cooperative=True)`` does, with ``blocks`` as
        given (resident: the caller's to know), about 3 µs sooner on the H200 hosts (a
        BFS's launch on a small graph, where the host's time before it counts)."""
        block_of = getattr(self._local, "block", None)
        if block_of is None:
            block_of = self._block((bytes(layout.size),))
        layout.pack_into(block_of[2], 0, *fields)
        cp.cuda.driver.launchCooperativeKernel(self.ptr, blocks, 1, 1, block, 1, 1, 0,
                                               cp.cuda.get_current_stream().ptr, block_of[4])


@lru_cache(maxsize=None)
def kernel(name: str, *dtypes) -> Kernel:
    """The compiled kernel ``name<ctype(dtypes[0]), ...>`` (a bool stands for itself)."""
    src, params = _KERNELS[name]
    if not params:
        return Kernel(_module(src).get_function(name))
    args = ", ".join(str(d).lower() if isinstance(d, bool) else _CTYPE[np.dtype(d)]
                     for d in dtypes)
    return Kernel(_module(src).get_function(f"{name}<{args}>"))


@lru_cache(maxsize=None)
def sm_count() -> int:
    """Streaming multiprocessors of the current device."""
    return int(cp.cuda.Device().attributes["MultiProcessorCount"])


@lru_cache(maxsize=None)
def l2_bytes() -> int:
    """Size of the current device's L2 cache."""
    return int(cp.cuda.Device().attributes["L2CacheSize"])


@lru_cache(maxsize=None)
def _resident_per_sm(function: int, block: int) -> int:
    return max(1, cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function, block, 0))


def resident_blocks(kernel: Kernel, blocks: int, block: int) -> int:
    """``blocks``, or fewer: as many as fit on the device at once (the grid of
    :func:`launch_resident`)."""
    return max(1, min(blocks, _resident_per_sm(kernel.ptr, block) * sm_count()))


def launch_resident(kernel: Kernel, blocks: int, block: int, args: tuple) -> None:
    """Launch ``kernel`` with at most as many blocks as fit on the device at once, as a
    cooperative launch (CUDA refuses it rather than leave a block waiting to start), for
    kernels whose blocks wait for each other."""
    kernel((resident_blocks(kernel, blocks, block),), (block,), args, cooperative=True)


def grid_for(work: int, block: int, per_sm: int = 32) -> int:
    """Blocks for a grid-stride loop over ``work`` items: enough to fill the device."""
    return max(1, min(-(-int(work) // block), sm_count() * per_sm))
