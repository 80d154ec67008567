"""What one call of each task needs on the device, by kind, from the working sets its room
counts, planned against the memory free (:mod:`lagraph_py.device_memory` decides; the
executor's :meth:`~gpu_backend.GpuExecutor.placement` applies the plan).

Each :class:`~lagraph_py.device_memory.Needs` counts the device CSR (and, for BFS and SCC
on a directed graph, its transpose), what the task builds on it and its room's scratch:
BFS the pull lists (and their packed form where the search reads it) and the search's
scratch (``bfs_steps.working_set``), MSF the edge list and candidate lists
(``msf_steps.working_set``, split into its per-edge and per-vertex parts, the forest and
the outputs streamed), SCC the trim
and a signatures round over every arc (``scc_steps``; its pivot's searches run only where
the memory left holds them, so they are not counted), connected components the
union-find's arrays (``components_steps.working_set``, the rows' first entries and the
labels streamed).
"""

from __future__ import annotations

from lagraph_py import device_memory as dm

from . import bfs_steps, components_steps, msf_steps, scc_steps, storage


def needs(ex, G, task: str) -> dm.Needs:
    """Device bytes of one call of ``task`` on ``G`` by the executor ``ex`` (its settings:
    ``hub_first_pull`` and ``pull_packed`` for BFS), as if nothing were cached with ``G``
    yet (except the MSF edge list, whose build the MSF counts only once)."""
    n, s = G.n, G.nstored
    I = storage.device_index_dtype(G.indptr, G.indices)
    csr = dm.csr_bytes(n, s, I.itemsize)
    both = dm.add(csr, csr) if G.directed else csr
    if task == "bfs":
        fraction = bfs_steps.packed_fraction(ex, G)
        packed = dm.Needs(0, 0, 0) if fraction is None else dm.packed_list_bytes(
            n, s, I.itemsize, fraction)
        pulls = dm.pull_list_bytes(n, s, I.itemsize, ex.hub_first_pull,
                                   int(G.in_degree().max(initial=0)))
        scratch, streamed = bfs_steps.working_set(n, I), bfs_steps.streamed_set(n, I)
        return dm.add(both, pulls, packed, dm.Needs(0, 0, scratch - streamed, streamed))
    if task == "msf":
        cached = msf_steps._EDGE_LIST in G._cache
        m = G._cache[msf_steps._EDGE_LIST].m if cached else s // 2
        wdtype = G.weights.dtype if G.weighted else None
        per_edge = msf_steps.working_set(0, m, I, wdtype, cached)
        per_vertex = msf_steps.working_set(n, 0, I, wdtype, cached)
        streamed = msf_steps.streamed_set(n, I)
        return dm.add(csr, dm.Needs(0, per_edge, per_vertex - streamed, streamed))
    if task == "scc":
        arcs = scc_steps.signatures_working_set(0, s, 0, I)
        vertex = (scc_steps.trim_working_set(n, I)
                  + scc_steps.signatures_working_set(n, 0, n, I))
        return dm.add(both, dm.Needs(0, arcs, vertex))
    if task == "cc":
        scratch = components_steps.working_set(n, I)
        streamed = components_steps.streamed_set(n, I)
        return dm.add(csr, dm.Needs(0, 0, scratch - streamed, streamed))
    raise ValueError(f"task must be one of {dm.TASKS}, got {task!r}")


def plan(ex, G, task: str) -> dm.DevicePlan:
    """:func:`lagraph_py.device_memory.plan` for a call of ``task`` on ``G``: its
    :func:`needs` against the free device memory (:func:`storage.free_bytes
    <gpu_backend.storage.free_bytes>`, under the pool's limit), counting what ``G`` holds
    on the device already (:func:`storage.held_bytes <gpu_backend.storage.held_bytes>`).

    Raises
    ------
    MemoryError
        Not even the call's vertex arrays fit; nothing was allocated.
    """
    held, held_on_device = storage.held_bytes(G)
    return dm.plan(task, needs(ex, G, task), held=held, held_on_device=held_on_device,
                   budget=max(0, storage.free_bytes()), n=G.n, what=f"{task} on {G!r}")
