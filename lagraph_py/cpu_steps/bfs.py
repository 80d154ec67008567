"""The BFS group steps of the fused cpu executor (compiled loops)."""

from __future__ import annotations


class BfsSteps:
    """BFS group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`."""
