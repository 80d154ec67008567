"""Small graphs on the host: an SCC of a graph of at most :attr:`GpuExecutor.host_items
<gpu_backend.GpuExecutor.host_items>` vertices plus stored entries, or a BFS
(``method="auto"``) of one of at most :attr:`~gpu_backend.GpuExecutor.bfs_host_items`,
runs on the cpu executor, from the Graph's own host arrays, and its result is copied to
the device once.

There a whole search or labelling takes tens of microseconds on one core, less than the
device spends on one call's launches, grid barriers and copies (H100 beside its host,
real graphs of 3k-10k vertices and up to 10^5 stored entries: BFS 0.07-0.11 ms on the host
against 0.10-0.28 ms on the device, SCC 0.09-0.35 against 0.48-1.2 ms). Past
``host_items`` the device's SCC wins on some graphs (a peer-to-peer graph of 2 x 10^5
entries) and not on others (a citation graph of 3.8 x 10^5: 2.1 against 1.5 ms). An SCC's
decision is taken before any work, from the sizes alone; results are the cpu executor's,
which the device's kernels equal (levels and labels exactly, parents valid).

Size alone does not tell a BFS's cost, though: a peer-to-peer graph of 26k vertices and
65k arcs (whose searches reach nearly every vertex in 24 levels) took 0.39 ms on the host
and 0.18 ms on the device, a citation graph of 50k items 15 µs on the host (its searches
reach 56 vertices). So the first :data:`SAMPLED_SEARCHES` host searches of a graph are
also costed on either side by :func:`search_costs` from what they reached, and while
their device costs add up to less than their host costs, the graph's searches run on the
device (:func:`bfs_on_host`). The choice follows from the searches made, not from
timings. Graphs up to ``bfs_host_items`` (2^19) are tried on the host first: there a deep
road map stays (luxembourg_osm, 354k items, 1,137 levels: 1.6 ms on the host against
4.3 ms on the device, H200), while co-author, citation and e-mail graphs of 2.5-4 x 10^5
entries, whose searches the device runs in 0.14-0.24 ms against 0.2-0.75 ms on the host,
leave it after their first search.
"""

from __future__ import annotations

import numpy as np

from .vector import GpuVector, send, stage


#: Host searches of a graph costed by :func:`search_costs`, at most (the first ones).
SAMPLED_SEARCHES = 4
#: The model of a search's time, in ns, fitted on real graphs of 3k-63k vertices (H200
#: and its host, medians over 64 sources): on the host 45 µs a call (the route's staging,
#: copy and synchronization: whole host-route calls took the cpu executor's time plus
#: 40-60 µs on seven real graphs of 3k-28k vertices), 15 ns a vertex reached and 1.5 an
#: arc from one (the compiled search, peer-to-peer graphs 0.12-1.0 ms); on the device
#: 55 µs a call (launch, output fill, synchronization), 5 µs a level and 0.3 ns an arc
#: (0.06-0.26 ms).
HOST_NS_PER_CALL, HOST_NS_PER_REACHED, HOST_NS_PER_ARC = 45e3, 15.0, 1.5
DEVICE_NS_PER_CALL, DEVICE_NS_PER_LEVEL, DEVICE_NS_PER_ARC = 55e3, 5e3, 0.3
_ROUTE = "gpu.bfs.route"  # G's cache: (searches costed, their host ns, their device ns)


def on_host(ex, G) -> bool:
    """Whether ``ex`` (a gpu executor) hands an SCC of ``G`` to the host."""
    return G.n + G.nstored <= ex.host_items


def bfs_on_host(ex, G) -> bool:
    """Whether ``ex`` hands a BFS of ``G`` to the host: a graph of at most
    ``bfs_host_items`` vertices plus entries whose costed searches (if any) would have
    taken no less time on the device."""
    _, host, device = G._cache.get(_ROUTE, (0, 0.0, 0.0))
    return G.n + G.nstored <= ex.bfs_host_items and not device < host


def search_costs(level: np.ndarray, out_degree: np.ndarray) -> tuple[float, float]:
    """Nanoseconds that a search which found ``level`` (-1 unreached) takes on the host
    and on the device, by the model above.

    Examples
    --------
    >>> path = np.arange(3000)                      # one vertex a level: the host's
    >>> [round(t / 1e3) for t in search_costs(path, np.ones(3000))]
    [94, 15051]
    >>> wide = np.repeat(np.arange(20), 1500)       # 30,000 vertices in 20 levels
    >>> [round(t / 1e3) for t in search_costs(wide, np.full(30000, 3))]
    [630, 177]
    """
    reached = level >= 0
    arcs = float(out_degree[reached].sum())
    host = (HOST_NS_PER_CALL + HOST_NS_PER_REACHED * np.count_nonzero(reached)
            + HOST_NS_PER_ARC * arcs)
    device = (DEVICE_NS_PER_CALL + DEVICE_NS_PER_LEVEL * int(level.max(initial=0))
              + DEVICE_NS_PER_ARC * arcs)
    return float(host), float(device)


def _cpu():
    from lagraph_py.registry import get_executor     # (the registry imports this package)
    return get_executor("cpu")


def bfs_search(G, source: int, levels: bool, parents: bool):
    """``(level, parent)`` of a ``method="auto"`` search from ``source``, as CuPy arrays
    (None for an output not asked for); one of the graph's first searches is costed
    (:func:`search_costs`)."""
    costed, host, device = G._cache.get(_ROUTE, (0, 0.0, 0.0))
    sample = costed < SAMPLED_SEARCHES
    # the search writes the outputs asked for straight into pinned staging memory
    staged = stage(*[((G.n,), np.int64)] * (levels + parents))
    outputs = iter(staged.arrays)
    level = next(outputs) if levels else (np.empty(G.n, np.int64) if sample else None)
    parent = next(outputs) if parents else None
    _cpu().bfs_search_into(G, source, "auto", level, parent)
    if sample:
        h, d = search_costs(level, G.out_degree())
        G._cache[_ROUTE] = (costed + 1, host + h, device + d)
    out = iter(send(staged))
    return (next(out) if levels else None, next(out) if parents else None)


def strong_components(G) -> GpuVector:
    """The full label vector of :meth:`Executor.strong_components
    <lagraph_py.executor.Executor.strong_components>`, its values copied to the device when
    first read."""
    cpu = _cpu()
    labels = np.asarray(cpu.to_dense(cpu.strong_components(G), -1, consume=True), np.int64)
    out = GpuVector(G.n)
    out.stage_host(labels, -1, nvals=G.n)                 # every vertex has its label
    return out
