"""Breadth-first search for networkx: ``bfs_edges``, ``bfs_tree``, ``bfs_layers`` and
``single_source_shortest_path_length``.

One :func:`lagraph_py.bfs` gives the levels; the order in which networkx would discover
the vertices follows from them level by level (:func:`discovery`): a vertex of level
``k + 1`` is found by the first vertex of level ``k`` (in discovery order) that has it as
a neighbour, and vertices of one level are found in the order (discovery of their
parent, position in the parent's adjacency). So edges, trees and layers equal
networkx's, order included.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx
import numpy as np

from ..algorithms.bfs import bfs
from ..results import asnumpy
from .config import executor_of
from .graph import LagraphGraph


def levels(G: LagraphGraph, source: int, executor, depth_limit=None) -> np.ndarray:
    """Hops from ``source`` (int64, -1 where unreached or where ``hops - 1 >= depth_limit``)."""
    level = asnumpy(bfs(G.graph(), source, backend=executor, parents=False).level)
    if depth_limit is not None:
        level[(level - 1 >= depth_limit) & (level > 0)] = -1
    return level


def discovery(G: LagraphGraph, source: int, executor, depth_limit=None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertices reached from ``source`` in networkx's discovery order, and their parents.

    Returns ``(order, parent, level)``: int64 arrays, ``order[0] == source`` and
    ``parent[k]`` the vertex that discovered ``order[k]`` (``source`` for itself);
    ``level`` holds every vertex's hops, -1 where unreached. Only vertices of level
    ``k`` with ``k - 1 < depth_limit`` are reached.
    """
    graph = G.graph()
    level = levels(G, source, executor, depth_limit)
    rows, cols, rank = graph.rows(), graph.indices, G.neighbour_rank()
    tree = (level[cols] == level[rows] + 1) & (level[rows] >= 0)
    u, v, r = rows[tree], cols[tree], rank[tree]
    by_level = np.argsort(level[u], kind="stable")
    u, v, r = u[by_level], v[by_level], r[by_level]
    bounds = np.searchsorted(level[u], np.arange(level.max(initial=0) + 1))
    visit = np.full(graph.n, -1, dtype=np.int64)       # discovery index of every vertex
    visit[source] = 0
    orders, parents = [np.array([source])], [np.array([source])]
    found = 1
    for lo, hi in zip(bounds[:-1], bounds[1:]):         # edges from level k to level k + 1
        first_seen = np.lexsort((r[lo:hi], visit[u[lo:hi]]))
        kids, dads = v[lo:hi][first_seen], u[lo:hi][first_seen]
        _, first = np.unique(kids, return_index=True)
        first.sort()
        kids, dads = kids[first], dads[first]
        visit[kids] = np.arange(found, found + kids.size)
        found += kids.size
        orders.append(kids)
        parents.append(dads)
    return np.concatenate(orders), np.concatenate(parents), level


def _source_id(G: LagraphGraph, source, error):
    try:
        return G.index[source]
    except (KeyError, TypeError):
        raise error from None


def bfs_edges(G: LagraphGraph, source, reverse: bool = False, depth_limit=None,
              sort_neighbors=None, *, executor=None) -> Iterator[tuple]:
    """Edges of networkx's breadth-first search from ``source``, in its order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_edges(nx.path_graph(4), 1, backend="lagraph"))
    [(1, 0), (1, 2), (2, 3)]
    """
    ex = executor_of(executor)
    s = _source_id(G, source, nx.NetworkXError(f"The node {source} is not in the graph."))
    order, parent, _ = discovery(G, s, ex, depth_limit)
    labels = G.labels
    yield from zip(map(labels.__getitem__, parent[1:].tolist()),
                   map(labels.__getitem__, order[1:].tolist()))


def bfs_tree(G: LagraphGraph, source, reverse: bool = False, depth_limit=None,
             sort_neighbors=None, *, executor=None) -> nx.DiGraph:
    """The oriented breadth-first tree from ``source`` (a new ``networkx.DiGraph``).

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_tree(nx.path_graph(3), 1, backend="lagraph").edges)
    [(1, 0), (1, 2)]
    """
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, depth_limit=depth_limit, executor=executor))
    return T


def bfs_layers(G: LagraphGraph, sources, *, executor=None) -> Iterator[list]:
    """Lists of nodes at each distance from one source, in networkx's order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_layers(nx.star_graph(3), 1, backend="lagraph"))
    [[1], [0], [2, 3]]
    """
    if sources in G:
        sources = [sources]
    (source,) = set(sources)                           # can_run admits one source only
    s = _source_id(G, source, nx.NetworkXError(f"The node {source} is not in the graph."))
    order, _, level = discovery(G, s, executor_of(executor))
    layer = level[order]
    bounds = np.flatnonzero(np.diff(layer)) + 1
    labels = G.labels
    for ids in np.split(order, bounds):
        yield [labels[i] for i in ids.tolist()]


def single_source_shortest_path_length(G: LagraphGraph, source, cutoff=None, *,
                                       executor=None) -> dict:
    """Hops from ``source`` to every node it reaches, as networkx (a dict ordered by
    hops, then node order).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_shortest_path_length(nx.path_graph(3), 2, backend="lagraph")
    {2: 0, 1: 1, 0: 2}
    """
    s = _source_id(G, source, nx.NodeNotFound(f"Source {source} is not in G"))
    level = levels(G, s, executor_of(executor), cutoff)
    reached = np.flatnonzero(level >= 0)
    order = reached[np.argsort(level[reached], kind="stable")]
    labels = G.labels
    return dict(zip(map(labels.__getitem__, order.tolist()), level[order].tolist()))
