"""The ``lagraph`` networkx backend: networkx functions run by lagraph_py's executors.

networkx finds the backend through the entry points ``networkx.backends`` (the dispatch
class :class:`~lagraph_py.nx.interface.BackendInterface`) and ``networkx.backend_info``
(:func:`get_info`). Use it per call with ``backend="lagraph"``, or for every supported
call with ``nx.config.backend_priority = ["lagraph"]``; pick the executor with
``nx.config.backends.lagraph.executor = "gpu"`` or per call with ``executor="gpu"``.

Modules: :mod:`.graph` (the backend graph and the node-label mapping), :mod:`.traversal`
(breadth-first search), :mod:`.tree` (minimum spanning trees), :mod:`.components`.

Examples
--------
>>> import networkx as nx
>>> G = nx.path_graph(["a", "b", "c"])
>>> nx.single_source_shortest_path_length(G, "a", backend="lagraph")
{'a': 0, 'b': 1, 'c': 2}
"""

from __future__ import annotations

_EXECUTOR_PARAMETER = {
    "executor : {'cpu', 'gpu'} or Executor, optional":
        "Executor to run on; default ``nx.config.backends.lagraph.executor``.",
}

#: Each supported function with a note for its docstring (networkx adds it).
FUNCTIONS = {
    "bfs_edges": "Edges and their order equal networkx's (neighbours in adjacency order); "
                 "declines ``sort_neighbors`` and ``reverse=True`` on directed graphs.",
    "bfs_tree": "The same tree as networkx; declines ``sort_neighbors`` and "
                "``reverse=True`` on directed graphs.",
    "bfs_layers": "One source only; layers in networkx's order.",
    "single_source_shortest_path_length": "Hop counts from one BFS.",
    "minimum_spanning_edges": "Borůvka for ``algorithm`` 'kruskal' and 'boruvka', with "
                              "Kruskal's tie order (weight, then edge order); declines "
                              "'prim' and multigraphs.",
    "minimum_spanning_tree": "As minimum_spanning_edges.",
    "strongly_connected_components": "Components in order of their first node.",
    "number_strongly_connected_components": "",
    "connected_components": "Components in order of their first node, as networkx.",
    "number_connected_components": "",
}


def get_info() -> dict:
    """The backend's description for networkx (entry point ``networkx.backend_info``).

    Examples
    --------
    >>> get_info()["backend_name"]
    'lagraph'
    """
    from .config import LagraphConfig

    return {
        "backend_name": "lagraph",
        "project": "lagraph_py",
        "package": "lagraph_py",
        "short_summary": "GraphBLAS algorithms on CPU (SuiteSparse) or GPU (CuPy).",
        "default_config": LagraphConfig(executor="cpu"),
        "functions": {
            name: {"additional_docs": doc, "additional_parameters": _EXECUTOR_PARAMETER}
            for name, doc in FUNCTIONS.items()
        },
    }


# networkx calls get_info while it is being imported; importing it here, once get_info
# exists, means no submodule is the first to import networkx (which would be circular).
import networkx  # noqa: E402,F401
