"""The graph type of the networkx backend: a :class:`~lagraph_py.Graph` plus node labels.

networkx nodes are any hashables; the backend numbers them ``0 .. n-1`` in the graph's
node order, runs the algorithms on ids and maps results back. It also keeps, for every
stored adjacency entry, its position in networkx's adjacency order, so traversals can
report edges in the order networkx would.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, _frozen
from .convert import graph_of, networkx_edges


class LagraphGraph:
    """A networkx graph converted for the ``lagraph`` backend.

    Built by networkx when a function is called with ``backend="lagraph"`` (through
    :meth:`~lagraph_py.nx.interface.BackendInterface.convert_from_nx`), or directly with
    :meth:`from_networkx`; pass it to any supported networkx function to skip the
    conversion on later calls.

    Edge weights are read per attribute name: the graph converts the edges once for each
    weight attribute an algorithm asks for. When networkx asks to preserve attributes
    (``minimum_spanning_tree``, ``minimum_spanning_edges(data=True)``) the source graph is
    kept, not copied, and attributes are read from it.

    Examples
    --------
    >>> import networkx as nx
    >>> G = LagraphGraph.from_networkx(nx.path_graph(["x", "y", "z"]))
    >>> len(G), G.is_directed(), G.labels
    (3, False, ('x', 'y', 'z'))
    >>> nx.number_connected_components(G)
    1
    """

    __networkx_backend__ = "lagraph"

    def __init__(self, labels: tuple, directed: bool, multigraph: bool, source=None,
                 graph_attrs: dict | None = None):
        # Private: use from_networkx.
        self.labels = labels
        self.directed = directed
        self.multigraph = multigraph
        self.source = source
        self.graph_attrs = {} if graph_attrs is None else graph_attrs
        self._by_weight: dict[str | None, tuple[Graph, np.ndarray]] = {}
        self._index: dict | None = None

    @classmethod
    def from_networkx(cls, G, weight: str | None = "weight", *, keep_source: bool = False
                      ) -> "LagraphGraph":
        """Convert the networkx graph ``G``, reading weights from the attribute ``weight``.

        With ``keep_source`` the conversion keeps a reference to ``G`` for node and edge
        attributes (and converts edges only when an algorithm asks for them).
        """
        import networkx as nx

        if not isinstance(G, nx.Graph):
            raise TypeError(f"G must be a networkx graph, got {type(G).__name__}")
        out = cls(tuple(G), G.is_directed(), G.is_multigraph(), G if keep_source else None,
                  dict(G.graph))
        if not keep_source:
            out._by_weight[weight] = _convert(G, weight)
        return out

    # -------------------------------------------------------------- what networkx asks
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.labels)

    def __len__(self) -> int:
        return len(self.labels)

    def __iter__(self):
        return iter(self.labels)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:                              # unhashable: not a node
            return False

    # -------------------------------------------------------------- ids and arrays
    @property
    def index(self) -> dict:
        """Vertex id of every node (built on first use)."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.labels)}
        return self._index

    def graph(self, weight: str | None = None) -> Graph:
        """The :class:`~lagraph_py.Graph`, weighted by the edge attribute ``weight``.

        With ``weight=None`` any converted form serves (algorithms that read only the
        pattern).
        """
        return self._converted(weight)[0]

    def neighbour_rank(self) -> np.ndarray:
        """Position of every stored adjacency entry (CSR order of :meth:`graph`) among
        the neighbours of its row in networkx's adjacency order."""
        return self._converted(None)[1]

    def _converted(self, weight):
        if weight in self._by_weight:
            return self._by_weight[weight]
        if weight is None and self._by_weight:
            return next(iter(self._by_weight.values()))
        if self.source is None:
            raise ValueError(f"this graph was converted with the weight attribute "
                             f"{next(iter(self._by_weight))!r}; convert it again with "
                             f"weight={weight!r}")
        return self._by_weight.setdefault(weight, _convert(self.source, weight))

    def to_networkx(self):
        """The source graph's copy when attributes were kept, else a new networkx graph
        with the weights of the first converted attribute."""
        if self.source is not None:
            return self.source.copy()
        weight, (G, _) = next(iter(self._by_weight.items()))
        H = G.to_networkx(weight if weight is not None else "weight")
        H.graph.update(self.graph_attrs)
        return H

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<LagraphGraph {kind}: {len(self.labels)} nodes>"


def _convert(G, weight) -> tuple[Graph, np.ndarray]:
    """The Graph of ``G`` and the adjacency position of each of its stored entries.

    Raises NotImplementedError for NaN or infinite weights (networkx takes them; its own
    implementation runs where fallback is configured).
    """
    try:
        e = networkx_edges(G, weight)
    except ValueError as error:                        # NaN or infinite weights
        raise NotImplementedError(f"lagraph takes finite weights only: {error}") from error
    graph = graph_of(e)
    key = e.src * graph.n + e.dst                           # CSR order of every entry
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = np.ones(key.size, dtype=bool)              # parallel edges: one stored entry
    first[1:] = key[1:] != key[:-1]
    return graph, _frozen(e.position[order][first])
