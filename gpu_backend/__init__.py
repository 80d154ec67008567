"""The gpu executor for lagraph_py: the step vocabulary on CuPy with custom CUDA kernels.

``lagraph_py`` imports this package only when a user asks for ``backend="gpu"``; importing
it without CuPy or without a visible CUDA device raises an ImportError that names the
missing piece. See ``docs/gpu.md`` for the vector representation and the kernels.

Examples
--------
>>> import lagraph_py as lg
>>> from gpu_backend import GpuExecutor
>>> ex = GpuExecutor()
>>> G = lg.Graph.from_edges([0, 0, 1], [1, 2, 3])
>>> A = ex.matrix(G)
>>> u = ex.vector(G.n, [0], [0])
>>> q = ex.vxm(u, A, "any_secondi", mask=u, complement=True)   # parents of 1 and 2
>>> ex.to_coo(q)
(array([1, 2]), array([0, 0]))
"""

from __future__ import annotations

try:
    import cupy as _cp
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError(
        "gpu_backend needs CuPy: pip install 'lagraph_py[gpu]' (CUDA 12) or "
        "'lagraph_py[gpu-cuda13]' (CUDA 13)") from exc

try:
    _ndev = _cp.cuda.runtime.getDeviceCount()
except Exception as exc:  # pragma: no cover - depends on the machine
    raise ImportError(f"gpu_backend: no CUDA GPU visible ({exc})") from exc
if _ndev == 0:  # pragma: no cover
    raise ImportError("gpu_backend: no CUDA GPU visible")

from .executor import GpuExecutor  # noqa: E402
from .vector import GpuVector  # noqa: E402
from .storage import DeviceMatrix  # noqa: E402

__all__ = ["GpuExecutor", "GpuVector", "DeviceMatrix"]
