"""The distributed executor for lagraph_py: the step vocabulary over the ranks of an MPI job.

``lagraph_py`` imports this package only when asked for (``lagraph_py.distributed``, or
an executor named ``"distributed"``); it needs ``mpi4py`` and an MPI library
(``pip install 'lagraph_py[mpi]'``: ``mpi4py`` and the ``mpich`` wheel).

Run inside an MPI job, every rank running the same calls::

    import lagraph_py as lg
    G = lg.distributed.Graph.kronecker(20)        # each rank draws its share
    r = lg.bfs(G, 0)                              # r.level: this rank's range
    level = G.gather(r.level)                     # the whole, on rank 0 (else None)

- :mod:`.graph`: :class:`DistGraph`, rows split by vertex ranges, and its constructors;
  :mod:`.io`: Matrix Market and edge-list files read by byte ranges;
- :mod:`.executor`: the primitive steps (a local executor per rank plus exchanges);
- :mod:`.bfs_steps`, :mod:`.msf_steps`, :mod:`.components_steps`, :mod:`.scc_steps`: fused
  BFS, Borůvka, connected components and SCC trim and signature group steps;
- :mod:`.bfs_rule`: the BFS level loop and direction rule of CPU and GPU ranks;
- :mod:`.exchange`: the collectives, with time-outs and shared failure;
- :mod:`.nccl`: GPU ranks, exchanging device arrays through NCCL, and
  :mod:`.gpu_bfs_steps`, :mod:`.gpu_msf_steps`, :mod:`.gpu_scc_steps`, their fused BFS,
  Borůvka and SCC trim and signature rounds.
"""

from __future__ import annotations

try:
    import mpi4py  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("the distributed executor needs mpi4py and an MPI library: "
                      "pip install 'lagraph_py[mpi]' (mpi4py and the mpich wheel)") from exc

import graphblas as gb
import numpy as np

from lagraph_py.registry import get_executor

from .bfs_steps import BfsSteps
from .components_steps import ComponentsSteps
from .exchange import CollectiveTimeout, DistributedError, Exchange, PeerError
from .executor import DistMatrix, DistVector, PrimitiveSteps
from .graph import DistGraph, partition, world
from .msf_steps import MsfSteps
from .scc_steps import SccSteps


class DistributedExecutor(BfsSteps, MsfSteps, ComponentsSteps, SccSteps, PrimitiveSteps):
    """CPU ranks: each rank's part on the cpu executor, exchanges through MPI; BFS,
    Borůvka, connected components and the SCC trim and signatures fused (:mod:`.bfs_steps`,
    :mod:`.msf_steps`, :mod:`.components_steps`, :mod:`.scc_steps`).

    Parameters
    ----------
    exchange : Exchange, optional
        The ranks; default every rank of ``MPI.COMM_WORLD`` (the graphs it runs on must
        be built on the same).
    """

    name = "distributed"
    xp = np

    def __init__(self, exchange: Exchange | None = None):
        self.exchange = self.data = exchange or world()
        self.local = get_executor("cpu")

    def local_matrix(self, M: DistMatrix):
        return gb.Matrix.from_csr(M.indptr, M.indices, True, ncols=M.n)


__all__ = ["DistributedExecutor", "DistGraph", "DistVector", "DistMatrix", "Exchange",
           "DistributedError", "PeerError", "CollectiveTimeout", "partition", "world"]
