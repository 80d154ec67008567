"""The MSF group steps of the fused cpu executor (compiled loops)."""

from __future__ import annotations


class MsfSteps:
    """MSF group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""
