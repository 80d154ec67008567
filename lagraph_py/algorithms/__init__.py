"""The algorithms, each written once over the executor step vocabulary."""

from __future__ import annotations

from ..graph import Graph


def require_graph(G) -> None:
    """Raise TypeError unless ``G`` is a :class:`~lagraph_py.Graph`, or a graph whose parts
    live elsewhere and that names the executors running on it (``G.backends``: a
    distributed graph)."""
    if not isinstance(G, Graph) and getattr(G, "backends", None) is None:
        raise TypeError(f"G must be a lagraph_py.Graph, got {type(G).__name__}")
