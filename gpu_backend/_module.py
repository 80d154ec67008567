"""Compile-once loading of the CUDA sources in ``kernels/`` as CuPy RawModules.

Every kernel is a template over the index type (``int`` / ``long long``) and, for value
kernels, the value type; :func:`kernel` returns the instantiation for given numpy dtypes,
compiling each source file once per process (CuPy also caches the binary on disk).

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
from pathlib import Path

import cupy as cp
import numpy as np

_DIR = Path(__file__).parent / "kernels"
_CTYPE = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long",
          np.dtype(np.float64): "double"}

#: kernel name -> (source file, number of template parameters)
_KERNELS = {
    "vxm_push": ("primitives.cu", 2), "mxv_pull": ("primitives.cu", 2),
    "scatter_reduce": ("primitives.cu", 1), "set_one": ("primitives.cu", 1),
    "dense_fill": ("primitives.cu", 1),
    "compact_status": ("bfs.cu", 1), "push_vertex": ("bfs.cu", 1),
    "pull_vertex": ("bfs.cu", 1), "edge_centric": ("bfs.cu", 1),
    "queue_push": ("bfs.cu", 1), "queue_push_private": ("bfs.cu", 1),
    "queue_degrees": ("bfs.cu", 1), "queue_prefix": ("bfs.cu", 1),
    "push_balanced": ("bfs.cu", 1), "bits_queue": ("bfs.cu", 1),
    "pull_hub": ("bfs.cu", 1), "push_persistent": ("bfs.cu", 1),
    "mark_queue": ("bfs.cu", 1), "init_status": ("bfs.cu", 1), "status_bits": ("bfs.cu", 0),
    "search": ("bfs.cu", 1), "search_async": ("bfs.cu", 1),
    "pack_runs": ("bfs.cu", 1),
    "rank_start": ("bfs.cu", 1), "rank_levels": ("bfs.cu", 1),
    # msf.cu
    "msf_upper_count": ("msf.cu", 1), "msf_upper_edges": ("msf.cu", 1),
    "msf_init": ("msf.cu", 1), "msf_collect": ("msf.cu", 1), "msf_decide": ("msf.cu", 1),
    "msf_join": ("msf.cu", 1), "msf_shrink": ("msf.cu", 1), "msf_flatten": ("msf.cu", 1),
    "msf_order": ("msf.cu", 1), "msf_fused": ("msf.cu", 1),
    # scc.cu
    "scc_trim_fused": ("scc.cu", 1), "scc_gather_edges": ("scc.cu", 1),
    "scc_signatures_fused": ("scc.cu", 2), "scc_set_labels": ("scc.cu", 1),
    "scc_pivot_label": ("scc.cu", 1),
    # components.cu
    "cc_union_find": ("components.cu", 1), "cc_heads": ("components.cu", 1),
}


def _instances(source: str) -> list[str]:
    idx, val = ("int", "long long"), ("long long", "double")
    names = []
    for name, (src, nparams) in _KERNELS.items():
        if src != source:
            continue
        if name == "scc_signatures_fused":                 # (a bool: whether it relaxes runs)
            names += [f"{name}<{i}, {b}>" for i in idx for b in ("false", "true")]
        elif nparams == 2:
            names += [f"{name}<{i}, {v}>" for i in idx for v in val]
        elif nparams == 0:
            continue                               # extern "C": found by its plain name
        elif name == "scatter_reduce":                # (int: the ranks' vertex ids)
            names += [f"{name}<{v}>" for v in ("int",) + val]
        elif name in ("set_one", "dense_fill"):
            names += [f"{name}<{v}>" for v in val]
        else:
            names += [f"{name}<{i}>" for i in idx]
    return names


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
        pointer array, its address); holding the two ctypes objects keeps the addresses
        valid."""
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


@lru_cache(maxsize=None)
def kernel(name: str, *dtypes) -> Kernel:
    """The compiled kernel ``name<ctype(dtypes[0]), ...>`` (a bool stands for itself)."""
    src, nparams = _KERNELS[name]
    if nparams == 0:
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
