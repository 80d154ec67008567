"""The fused cpu executor: the reference :class:`~lagraph_py.cpu.CpuExecutor` with group
steps replaced by compiled loops (numba) where python-graphblas call overhead dominates.

One room per algorithm, as on the gpu: :mod:`.bfs`, :mod:`.msf`, :mod:`.scc`. Each mixin
overrides group steps of :class:`~lagraph_py.executor.Executor` and gives the same result
as their primitive definitions, which the reference executor still runs
(``backend=CpuExecutor()``); the tests compare the two.
"""

from __future__ import annotations

from ..cpu import CpuExecutor
from .bfs import BfsSteps
from .msf import MsfSteps
from .scc import SccSteps


class FusedCpuExecutor(BfsSteps, MsfSteps, SccSteps, CpuExecutor):
    """``backend="cpu"``: python-graphblas steps plus compiled group steps."""

    name = "cpu"


__all__ = ["FusedCpuExecutor"]
