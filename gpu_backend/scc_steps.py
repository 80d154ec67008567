"""The SCC group steps of the gpu executor (kernels in ``kernels/scc.cu``)."""

from __future__ import annotations


class SccSteps:
    """SCC group steps of :class:`~gpu_backend.GpuExecutor`."""
