"""The fused cpu executor: the reference :class:`~lagraph_py.cpu.CpuExecutor` with group
steps replaced by compiled loops (numba) where python-graphblas call overhead dominates,
on vectors held as numpy arrays until a graphblas step needs them.

One room per algorithm, as on the gpu: :mod:`.bfs`, :mod:`.msf`, :mod:`.scc`,
:mod:`.components`. Each mixin overrides group steps of
:class:`~lagraph_py.executor.Executor` and gives the same result as their primitive
definitions, which the reference executor still runs (``backend=CpuExecutor()``); the
tests compare the two. :mod:`.host_vector` holds the vectors
(:class:`~.host_vector.HostVector`) and the steps that make and read them.
"""

from __future__ import annotations

from ..cpu import CpuExecutor
from .bfs import BfsSteps
from .components import ComponentSteps
from .host_vector import HostVector, HostVectorSteps
from .msf import MsfSteps
from .scc import SccSteps


class FusedCpuExecutor(BfsSteps, MsfSteps, SccSteps, ComponentSteps, HostVectorSteps,
                       CpuExecutor):
    """``backend="cpu"``: compiled group steps plus the python-graphblas steps, on
    :class:`~.host_vector.HostVector` vectors (``.to_graphblas()`` gives a
    ``graphblas.Vector``)."""

    name = "cpu"
    memory_path = "compiled"


__all__ = ["FusedCpuExecutor", "HostVector"]
