"""Minimum spanning trees for networkx: ``minimum_spanning_edges`` and
``minimum_spanning_tree``, both by :func:`lagraph_py.msf` (Borůvka).

networkx's default, Kruskal, takes edges by weight and equal weights in the order of
``G.edges`` (node order, then adjacency order); lagraph_py breaks ties by vertex ids.
Where the two orders can differ on equal weights, the forest is computed over the edges'
ranks in networkx's order instead of their weights, so the forest is always the one
networkx returns, and edges come in its order.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx
import numpy as np

from ..algorithms.msf import msf
from ..graph import Graph
from ..results import asnumpy
from .config import executor_of
from .graph import LagraphGraph

#: networkx's algorithm names this backend runs (both give Kruskal's forest here).
ALGORITHMS = ("kruskal", "boruvka")


def forest_edges(G: LagraphGraph, weight: str | None, executor
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Forest edges ``(u, v, w)`` as ids (``u < v``) and weights, in networkx's order."""
    graph = G.graph(weight)
    rows, cols = graph.rows(), graph.indices
    upper = cols > rows                                 # each edge once; loops never
    u, v = rows[upper].astype(np.int64), cols[upper].astype(np.int64)
    rank = G.neighbour_rank()[upper]
    w = graph.weights[upper] if graph.weighted else np.ones(u.size, dtype=np.int64)
    in_id_order = np.all((u[1:] != u[:-1]) | (rank[1:] > rank[:-1]))
    if in_id_order or np.unique(w).size == w.size:      # ties agree with networkx's
        f = msf(graph, backend=executor)
        return asnumpy(f.src), asnumpy(f.dst), asnumpy(f.weight)
    order = np.lexsort((rank, u, w))                    # networkx's order of the edges
    position = np.empty(w.size, dtype=np.int64)
    position[order] = np.arange(w.size)
    ranked = Graph.from_edges(u, v, weight=position, n=graph.n, directed=False)
    f = msf(ranked, backend=executor)
    edge = order[asnumpy(f.weight)]
    return u[edge], v[edge], w[edge]


def minimum_spanning_edges(G: LagraphGraph, algorithm: str = "kruskal",
                           weight: str | None = "weight", keys: bool = True, data: bool = True,
                           ignore_nan: bool = False, *, executor=None) -> Iterator[tuple]:
    """Edges of networkx's minimum spanning forest, in Kruskal's order.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2}), (1, 2, {"weight": 1}), (0, 2, {"weight": 2})])
    >>> list(nx.minimum_spanning_edges(G, backend="lagraph"))
    [(1, 2, {'weight': 1}), (0, 1, {'weight': 2})]
    """
    src, dst, w = forest_edges(G, weight, executor_of(executor))
    labels = G.labels
    pairs = zip(map(labels.__getitem__, src.tolist()), map(labels.__getitem__, dst.tolist()))
    if not data:
        yield from pairs
    elif G.source is not None:                          # the edges' own attribute dicts
        adj = G.source._adj
        yield from ((a, b, adj[a][b]) for a, b in pairs)
    elif G.graph(weight).weighted:
        yield from ((a, b, {weight: x}) for (a, b), x in zip(pairs, w.tolist()))
    else:
        yield from ((a, b, {}) for a, b in pairs)


def minimum_spanning_tree(G: LagraphGraph, weight: str | None = "weight",
                          algorithm: str = "kruskal", ignore_nan: bool = False, *,
                          executor=None) -> nx.Graph:
    """networkx's minimum spanning forest as a new graph, with every attribute.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.cycle_graph(4)
    >>> G.add_edge(0, 3, weight=2)
    >>> sorted(nx.minimum_spanning_tree(G, backend="lagraph").edges(data=True))
    [(0, 1, {}), (1, 2, {}), (2, 3, {})]
    """
    source = G.source
    T = source.__class__() if source is not None else nx.Graph()
    T.graph.update(G.graph_attrs)
    T.add_nodes_from(source.nodes.items() if source is not None else G.labels)
    T.add_edges_from(minimum_spanning_edges(G, algorithm, weight, data=True,
                                            executor=executor))
    return T
