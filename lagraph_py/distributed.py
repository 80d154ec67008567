"""Graphs split over the ranks of an MPI job: ``lg.distributed.Graph``.

Imported on first use of ``lagraph_py.distributed`` (``import lagraph_py`` does not load
MPI); it needs the ``mpi`` extra (``pip install 'lagraph_py[mpi]'``: mpi4py and the mpich
wheel). Inside ``mpiexec -n P python script.py``, every rank running the same calls::

    import lagraph_py as lg
    G = lg.distributed.Graph.kronecker(20)     # each rank draws its share of the edges
    r = lg.bfs(G, 0)                           # r.level, r.parent: this rank's range
    f = lg.msf(G)                              # the whole forest on every rank
    c = lg.scc(G)                              # c.labels: this rank's range
    labels = G.gather(c.labels)                # the whole, on rank 0 (None elsewhere)

``backend="cpu"`` (the default) computes each rank's part on its cpu, ``backend="gpu"``
on one GPU a rank (exchanges through NCCL). Results equal the single-process executors'.
A failure on one rank (a malformed file, a part that does not fit) raises on every rank;
a collective that waits longer than ``LAGRAPH_PY_MPI_TIMEOUT`` seconds (default 600)
raises instead of hanging. See :mod:`dist_backend`.
"""

from __future__ import annotations

from dist_backend import (CollectiveTimeout, DistGraph as Graph, DistributedError,
                          PeerError)
from dist_backend.io import read_edgelist, read_mtx

__all__ = ["Graph", "read_mtx", "read_edgelist", "DistributedError", "PeerError",
           "CollectiveTimeout"]
