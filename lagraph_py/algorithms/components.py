"""Connected components of an undirected graph: one group step,
:meth:`~lagraph_py.executor.Executor.connected_components`.

The step stands for FastSV (:func:`lagraph_py.algorithms.scc.fastsv`: hooking on
grandparents and shortcutting, in primitive steps), which the reference executor runs;
``backend="cpu"`` replaces it by Afforest on a lock-free union-find
(:mod:`lagraph_py.cpu_steps.components`). Both label each vertex by the smallest id of its
component, so the answer is unique and the executors agree exactly.
"""

from __future__ import annotations

import numpy as np

from .. import memory
from .._checks import undirected
from ..graph import Graph
from ..registry import get_executor
from . import require_graph
from ..results import SCCResult


def connected_components(G: Graph, *, backend: str = "cpu",
                         symmetrize: bool = False) -> SCCResult:
    """Connected components of the undirected graph ``G``.

    Parameters
    ----------
    G : Graph
    backend : {"cpu", "gpu"}
        Executor to run on; ``labels`` is a numpy array on "cpu", a CuPy array on "gpu".
    symmetrize : bool, default False
        A directed ``G`` raises ValueError unless this is True; then each directed edge
        ``(u, v)`` joins ``u`` and ``v`` (the weakly connected components).

    Returns
    -------
    SCCResult
        ``labels[v]`` (int64) is the smallest vertex id of the component of ``v``, so the
        answer is unique; ``ncomponents`` counts them. Self-loops and parallel edges make no
        difference.

    Raises
    ------
    TypeError
        ``G`` is not a :class:`~lagraph_py.Graph`.
    ValueError
        ``G`` is directed and ``symmetrize`` is False, or ``backend`` is unknown.

    See Also
    --------
    lagraph_py.scc : strongly connected components of a directed graph (on an undirected
        one, the same labels as this function).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1, 3], [1, 2, 4], n=6, directed=False)
    >>> c = lg.connected_components(G)
    >>> c.labels, c.ncomponents
    (array([0, 0, 0, 3, 3, 5]), 3)
    >>> D = lg.Graph.from_edges([0, 2], [1, 1], n=3)             # 0 -> 1 <- 2
    >>> lg.connected_components(D, symmetrize=True).labels
    array([0, 0, 0])
    """
    require_graph(G)
    ex = get_executor(backend, G)
    G = undirected(G, symmetrize, "connected_components needs an undirected graph; build "
                   "it with directed=False, pass symmetrize=True for the weakly connected "
                   "components, or call lagraph_py.scc for the strongly connected ones")
    if G.n == 0:
        return SCCResult(labels=ex.array(np.empty(0, dtype=np.int64)))
    memory.ensure_call(G, ex, "cc")
    with ex.placement(G, "cc"):
        label = ex.connected_components(ex.matrix(G), G.n)      # the group step
        return SCCResult(labels=ex.to_dense(label, -1, consume=True))
