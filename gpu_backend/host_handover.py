"""Small graphs on the host: a BFS (``method="auto"``) or an SCC of a graph of at most
:attr:`GpuExecutor.host_items <gpu_backend.GpuExecutor.host_items>` vertices plus stored
entries runs on the cpu executor, from the Graph's own host arrays, and its result is
copied to the device once.

There a whole search or labelling takes tens of microseconds on one core, less than the
device spends on one call's launches, grid barriers and copies (H100 beside its host,
real graphs of 3k-10k vertices and up to 10^5 stored entries: BFS 0.07-0.11 ms on the host
against 0.10-0.28 ms on the device, SCC 0.09-0.35 against 0.48-1.2 ms). Past the limit the
device's BFS wins (co-author, citation and e-mail graphs of 2.5-4 x 10^5 entries), its SCC
on some graphs (a peer-to-peer graph of 2 x 10^5) and not on others (a citation graph of
3.8 x 10^5: 2.1 against 1.5 ms). The decision is taken once, before any work, from the
sizes alone; results are the cpu executor's, which the device's kernels equal (levels and
labels exactly, parents valid).
"""

from __future__ import annotations

import numpy as np

from .vector import GpuVector, upload


def on_host(ex, G) -> bool:
    """Whether ``ex`` (a gpu executor) hands ``G`` to the host."""
    return G.n + G.nstored <= ex.host_items


def _cpu():
    from lagraph_py.registry import get_executor     # (the registry imports this package)
    return get_executor("cpu")


def bfs_search(G, source: int, levels: bool, parents: bool):
    """``(level, parent)`` of a ``method="auto"`` search from ``source``, as CuPy arrays
    (None for an output not asked for)."""
    level, parent = _cpu().bfs_search(G, source, "auto", levels, parents)
    out = iter(upload(*[a for a in (level, parent) if a is not None]))
    return (next(out) if levels else None, next(out) if parents else None)


def strong_components(G) -> GpuVector:
    """The full label vector of :meth:`Executor.strong_components
    <lagraph_py.executor.Executor.strong_components>`, its values copied to the device when
    first read."""
    cpu = _cpu()
    labels = np.asarray(cpu.to_dense(cpu.strong_components(G), -1, consume=True), np.int64)
    out = GpuVector(G.n)
    out.stage_host(labels, -1)
    return out
