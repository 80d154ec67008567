"""The SCC group steps of the fused cpu executor (compiled loops)."""

from __future__ import annotations


class SccSteps:
    """SCC group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""
