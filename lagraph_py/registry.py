"""Executors by name: the one place where ``backend=`` becomes an executor.

The step vocabulary (:mod:`lagraph_py.executor`) imports no executor; every executor is
a class found here by name, as ``"module:Class"``, and imported only when first asked
for, so ``import lagraph_py`` works without CuPy or MPI. The built-in names:

================== ==========================================================================
``"cpu"``          :class:`lagraph_py.cpu_steps.FusedCpuExecutor` once its compiled loops are
                   on disk; until then :class:`~lagraph_py.scipy_cpu.ScipyCpuExecutor`
                   (:mod:`lagraph_py.compilation`)
``"gpu"``          :class:`gpu_backend.GpuExecutor` (CuPy and a CUDA GPU)
``"distributed"``  :class:`dist_backend.DistributedExecutor`: MPI ranks, each computing its
                   part on the cpu (``mpi4py``; the ``mpi`` extra)
``"distributed-gpu"`` the same with one GPU a rank, exchanging through NCCL
================== ==========================================================================

Executors of other packages register under the entry-point group :data:`ENTRY_POINTS`
(``name = "module:Class"``); a built-in name cannot be taken over.

A graph whose data lives outside this process (a :class:`dist_backend.DistGraph`) names,
in its ``backends`` mapping, the executor that runs each ``backend`` on it: on such a
graph ``backend="cpu"`` means "each rank on its cpu", the ``"distributed"`` executor.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

#: Entry-point group of executors from other packages.
ENTRY_POINTS = "lagraph_py.executors"

_BUILTIN = {
    "cpu": "lagraph_py.cpu_steps:FusedCpuExecutor",
    "gpu": "gpu_backend:GpuExecutor",
    "distributed": "dist_backend:DistributedExecutor",
    "distributed-gpu": "dist_backend.nccl:GpuRanksExecutor",
}
_EXECUTORS: dict[str, Any] = {}


def names() -> tuple[str, ...]:
    """Every executor name: the built-in ones, then those of installed packages.

    Examples
    --------
    >>> names()[:4]
    ('cpu', 'gpu', 'distributed', 'distributed-gpu')
    """
    return tuple(_BUILTIN) + tuple(n for n in _plugins() if n not in _BUILTIN)


def get_executor(backend, graph=None):
    """Return the executor named ``backend``, creating it on first use.

    An executor instance is returned as it is (``backend=CpuExecutor()`` runs the
    reference cpu executor, whose group steps are the primitive definitions). With a
    ``graph`` that names its own executors (``graph.backends``, e.g. a distributed
    graph), ``backend`` is looked up there first.

    Parameters
    ----------
    backend : str or Executor
        A name from :func:`names`, or an executor.
    graph : optional
        The graph the executor is to run on.

    Raises
    ------
    ValueError
        An unknown name, or a name that does not run on ``graph``.
    ImportError
        The executor's package or what it needs (CuPy, a GPU, mpi4py) is missing; the
        message names it.

    Examples
    --------
    >>> get_executor("cpu").name
    'cpu'
    >>> get_executor("tpu")
    Traceback (most recent call last):
    ...
    ValueError: backend must be one of 'cpu', 'gpu', 'distributed', 'distributed-gpu', got 'tpu'
    """
    backends = getattr(graph, "backends", None)
    if not isinstance(backend, str):
        if hasattr(backend, "bfs_search"):              # an Executor instance
            return backend
        raise ValueError(f"backend must be an executor name or an Executor, got {backend!r}")
    if backends is not None:
        if backend not in backends:
            raise ValueError(f"a {type(graph).__name__} runs on backend "
                             f"{' or '.join(map(repr, backends))}, got {backend!r}")
        backend = backends[backend]
    if backend not in _EXECUTORS:
        if backend == "cpu":
            from .compilation import cold_executor
            cold = cold_executor()          # one stat per call until the loops are ready
            if cold is not None:
                return cold
        _EXECUTORS[backend] = _load(backend)()
    return _EXECUTORS[backend]


def _load(name: str):
    """The executor class registered as ``name``."""
    target = _BUILTIN.get(name) or _plugins().get(name)
    if target is None:
        raise ValueError(f"backend must be one of {', '.join(map(repr, names()))}, "
                         f"got {name!r}")
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _plugins() -> dict[str, str]:
    """Executors registered by installed packages: name -> ``"module:Class"``."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINTS)}
