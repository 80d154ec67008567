"""Compile-once loading of the CUDA sources in ``kernels/`` as CuPy RawModules.

Every kernel is a template over the index type (``int`` / ``long long``) and, for value
kernels, the value type; :func:`kernel` returns the instantiation for given numpy dtypes,
compiling each source file once per process (CuPy also caches the binary on disk).

Launch arguments: arrays as CuPy arrays, 64-bit integers and device addresses as Python
ints (CuPy passes them as int64, and creating numpy scalars costs more than the launch
needs), 32-bit ones as ``np.int32``.
"""

from __future__ import annotations

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
}


def _instances(source: str) -> list[str]:
    idx, val = ("int", "long long"), ("long long", "double")
    names = []
    for name, (src, nparams) in _KERNELS.items():
        if src != source:
            continue
        if nparams == 2:
            names += [f"{name}<{i}, {v}>" for i in idx for v in val]
        elif nparams == 0:
            continue                               # extern "C": found by its plain name
        elif name in ("scatter_reduce", "set_one", "dense_fill"):
            names += [f"{name}<{v}>" for v in val]
        else:
            names += [f"{name}<{i}>" for i in idx]
    return names


@lru_cache(maxsize=None)
def _module(source: str) -> cp.RawModule:
    code = (_DIR / source).read_text()
    return cp.RawModule(code=code, options=("-std=c++17",), name_expressions=_instances(source))


@lru_cache(maxsize=None)
def kernel(name: str, *dtypes) -> cp.RawKernel:
    """The compiled kernel ``name<ctype(dtypes[0]), ...>``."""
    src, nparams = _KERNELS[name]
    if nparams == 0:
        return _module(src).get_function(name)
    args = ", ".join(_CTYPE[np.dtype(d)] for d in dtypes)
    return _module(src).get_function(f"{name}<{args}>")


@lru_cache(maxsize=None)
def sm_count() -> int:
    """Streaming multiprocessors of the current device."""
    return int(cp.cuda.Device().attributes["MultiProcessorCount"])


@lru_cache(maxsize=None)
def _resident_per_sm(function, block: int) -> int:
    return max(1, cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function.ptr,
                                                                           block, 0))


def launch_resident(kernel, blocks: int, block: int, args: tuple) -> None:
    """Launch ``kernel`` with at most as many blocks as fit on the device at once, as a
    cooperative launch (CUDA refuses it rather than leave a block waiting to start), for
    kernels whose blocks wait for each other."""
    function = kernel.kernel
    blocks = max(1, min(blocks, _resident_per_sm(function, block) * sm_count()))
    function((blocks,), (block,), args, enable_cooperative_groups=True)


def grid_for(work: int, block: int, per_sm: int = 32) -> int:
    """Blocks for a grid-stride loop over ``work`` items: enough to fill the device."""
    return max(1, min(-(-int(work) // block), sm_count() * per_sm))
