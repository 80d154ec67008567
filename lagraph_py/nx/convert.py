"""A networkx graph as arrays: node labels, and edges in networkx's adjacency order.

networkx is imported by the caller; this module only reads a graph's ``_adj`` mapping
(the same dict-of-dicts every networkx graph class keeps, in insertion order).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import itemgetter, methodcaller

import numpy as np

from .._checks import as_weight_array
from ..graph import Graph


@dataclass(frozen=True)
class NetworkxEdges:
    """Adjacency entries of a networkx graph over vertex ids ``0 .. len(labels) - 1``.

    Rows come in id order and each row in the graph's adjacency order; an undirected
    edge appears in both rows (a self-loop once); a multigraph's parallel edges appear
    once each.

    Attributes
    ----------
    labels : list
        Node of every vertex id.
    src, dst : ndarray of int64
        Endpoints of every adjacency entry.
    position : ndarray of int64
        Position of ``dst`` among the neighbours of ``src`` in the graph's adjacency
        (parallel edges share their neighbour's position).
    weight : ndarray of int64 or float64, or None
        Weight of every entry; None when no edge carries the weight attribute.
    directed, multigraph : bool
    """

    labels: list
    src: np.ndarray
    dst: np.ndarray
    position: np.ndarray
    weight: np.ndarray | None
    directed: bool
    multigraph: bool


def networkx_edges(G, weight: str | None = "weight", nodelist=None) -> NetworkxEdges:
    """Read the nodes and edges of the networkx graph ``G`` into arrays.

    Parameters
    ----------
    G : networkx.Graph (or DiGraph, MultiGraph, MultiDiGraph)
    weight : str or None
        Edge attribute holding the weight; edges without it weigh 1. With None, or when
        no edge has the attribute, the result is unweighted.
    nodelist : iterable, optional
        The nodes in id order (distinct nodes of ``G``); by default all nodes in the
        graph's order. Edges to nodes outside ``nodelist`` are left out.

    Raises
    ------
    TypeError
        ``G`` is not a networkx graph, or weights are not numbers.
    ValueError
        ``nodelist`` repeats a node or names one that ``G`` lacks; a weight is NaN or
        infinite.

    Examples
    --------
    >>> import networkx as nx
    >>> e = networkx_edges(nx.Graph([("a", "b", {"weight": 2.5})]))
    >>> e.labels, e.src, e.dst, e.weight
    (['a', 'b'], array([0, 1]), array([1, 0]), array([2.5, 2.5]))
    """
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx graph, got {type(G).__name__}")
    labels = list(G) if nodelist is None else _checked_nodelist(G, nodelist)
    adj, multigraph = G._adj, G.is_multigraph()
    rows = [adj[u] for u in labels]
    deg = np.fromiter(map(len, rows), np.int64, len(rows))
    dst = _ids(labels, rows, int(deg.sum()), complete=len(labels) == len(G))
    position = np.arange(dst.size, dtype=np.int64) - np.repeat(np.cumsum(deg) - deg, deg)
    src = np.repeat(np.arange(len(labels), dtype=np.int64), deg)
    entries = chain.from_iterable(nbrs.values() for nbrs in rows)
    if multigraph:                                     # one entry per parallel edge
        keys = list(entries)
        counts = np.fromiter(map(len, keys), np.int64, len(keys))
        src, dst, position = (np.repeat(x, counts) for x in (src, dst, position))
        entries = chain.from_iterable(k.values() for k in keys)
    data = None if weight is None else list(entries)
    if nodelist is not None:                           # drop edges leaving the nodelist
        keep = dst >= 0
        src, dst, position = src[keep], dst[keep], position[keep]
        data = None if data is None else list(compress(data, keep.tolist()))
    w = None if data is None else _weights(data, weight, labels, src, dst)
    return NetworkxEdges(labels, src, dst, position, w, G.is_directed(), multigraph)


def _checked_nodelist(G, nodelist) -> list:
    labels = list(nodelist)
    seen = set()
    for v in labels:
        if v not in G:
            raise ValueError(f"nodelist holds {v!r}, which is not a node of G")
        if v in seen:
            raise ValueError(f"nodelist holds {v!r} more than once")
        seen.add(v)
    return labels


def _ids(labels: list, rows: list, count: int, complete: bool) -> np.ndarray:
    """Vertex id of every neighbour, row by row (-1 for nodes outside ``labels``, which
    holds every node of the graph if ``complete``)."""
    neighbours = chain.from_iterable(rows)
    if complete and labels == list(range(len(labels))):   # nodes 0 .. n-1: their ids
        return np.fromiter(neighbours, np.int64, count)
    index = {v: i for i, v in enumerate(labels)}
    return np.fromiter(map(index.get, neighbours, repeat(-1)), np.int64, count)


def _weights(data: list, weight: str, labels, src, dst) -> np.ndarray | None:
    """The ``weight`` attribute of every entry (1 where absent), or None if never present."""
    if not data:
        return None
    try:
        values = np.asarray(list(map(itemgetter(weight), data)))
    except KeyError:                                   # some edges lack the attribute
        if not any(map(methodcaller("__contains__", weight), data)):
            return None
        values = np.asarray(list(map(methodcaller("get", weight, 1), data)))
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        k = int(np.argmin(np.isfinite(values)))
        raise ValueError(f"edge ({labels[src[k]]!r}, {labels[dst[k]]!r}) has {weight} = "
                         f"{values[k]}, not a finite number")
    return as_weight_array(values, values.size, f"edge attribute {weight!r}")


def graph_of(e: NetworkxEdges) -> Graph:
    """The :class:`~lagraph_py.Graph` of the entries ``e``, labelled with their nodes."""
    src, dst, w = e.src, e.dst, e.weight
    if not e.directed:                                 # both directions are listed: one
        keep = src <= dst
        src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
    graph = Graph._from_coo(len(e.labels), src, dst, w, e.directed)
    graph._labels = tuple(e.labels)
    return graph
