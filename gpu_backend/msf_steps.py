"""The MSF group steps of the gpu executor (kernels in ``kernels/msf.cu``)."""

from __future__ import annotations


class MsfSteps:
    """MSF group steps of :class:`~gpu_backend.GpuExecutor`."""
