"""Components for networkx: ``strongly_connected_components`` and
``number_strongly_connected_components`` by :func:`lagraph_py.scc`,
``connected_components`` and ``number_connected_components`` by
:func:`lagraph_py.connected_components` (networkx passes them undirected graphs only).

Components come as sets in the order of their first node in the graph, which is
networkx's order for connected components.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..algorithms.components import connected_components as _connected
from ..algorithms.scc import scc
from ..results import asnumpy
from .config import executor_of
from .graph import LagraphGraph


def _labels(G: LagraphGraph, executor, components) -> np.ndarray:
    """Component of every vertex by ``components`` (:func:`lagraph_py.scc` or
    :func:`lagraph_py.connected_components`): its smallest vertex id."""
    return asnumpy(components(G.graph(), backend=executor).labels)


def _components(label: np.ndarray, G: LagraphGraph) -> Iterator[set]:
    order = np.argsort(label, kind="stable")
    bounds = np.flatnonzero(np.diff(label[order])) + 1
    labels = G.labels
    for ids in np.split(order, bounds) if order.size else ():
        yield {labels[i] for i in ids.tolist()}


def _count(label: np.ndarray) -> int:
    return int(np.count_nonzero(label == np.arange(label.size)))


def strongly_connected_components(G: LagraphGraph, *, executor=None) -> Iterator[set]:
    """Sets of nodes, one per strongly connected component.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    >>> [sorted(c) for c in nx.strongly_connected_components(G, backend="lagraph")]
    [['a', 'b'], ['c']]
    """
    yield from _components(_labels(G, executor_of(executor), scc), G)


def number_strongly_connected_components(G: LagraphGraph, *, executor=None) -> int:
    """Number of strongly connected components.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_strongly_connected_components(nx.DiGraph([(0, 1)]), backend="lagraph")
    2
    """
    return _count(_labels(G, executor_of(executor), scc))


def connected_components(G: LagraphGraph, *, executor=None) -> Iterator[set]:
    """Sets of nodes, one per connected component, in networkx's order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.connected_components(nx.Graph([(0, 1), (2, 3)]), backend="lagraph"))
    [{0, 1}, {2, 3}]
    """
    yield from _components(_labels(G, executor_of(executor), _connected), G)


def number_connected_components(G: LagraphGraph, *, executor=None) -> int:
    """Number of connected components.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_connected_components(nx.Graph([(0, 1), (2, 3)]), backend="lagraph")
    2
    """
    return _count(_labels(G, executor_of(executor), _connected))
