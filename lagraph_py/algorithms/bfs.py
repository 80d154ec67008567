"""Breadth-first search (levels and parents) as masked vector-matrix products.

One level is ``q<¬s(parent)> = q ⊕.⊗ A`` (push) or ``q<¬s(parent)> = Aᵀ ⊕.⊗ q`` (pull) under
the ANY_SECONDI semiring, whose value is the index of the vertex a new vertex was reached
from: its parent. ``parent`` doubles as the visited set.

Direction rule for ``method="auto"`` (Beamer, Asanović and Patterson, SC 2012):

- push -> pull when the frontier is growing and its out-edges ``m_f`` exceed
  ``m_u / ALPHA``, where ``m_u`` counts the in-edges of still unvisited vertices (the work
  a pull step would do at most). Requiring growth (as LAGraph does) keeps the tail of a
  search in push: there ``m_u`` collapses, since what stays unvisited is mostly isolated,
  and the edge test alone would pull for frontiers of a few vertices;
- pull -> push when the frontier is shrinking and holds fewer than ``n / BETA`` vertices
  (the stopping condition of :meth:`Executor.bfs_pull_levels`).

The whole search is one group step, :meth:`Executor.bfs_search`, which this text
(:func:`search`) defines; an executor may run a small graph's search as one fused call.
"""

from __future__ import annotations

from .. import memory
from .._checks import as_source
from ..executor import PULL, PUSH
from ..registry import get_executor
from ..results import BFSResult

#: Switch to pull when frontier out-edges exceed unexplored in-edges / ALPHA.
ALPHA = 20
#: Switch back to push when the frontier holds fewer than n / BETA vertices.
BETA = 24


def bfs(G, source, *, backend: str = "cpu", method: str = "auto", levels: bool = True,
        parents: bool = True) -> BFSResult:
    """Breadth-first search from ``source``.

    Parameters
    ----------
    G : Graph
    source : int
        Start vertex.
    backend : {"cpu", "gpu"}
        Executor to run on. Results are numpy arrays on "cpu", CuPy arrays on "gpu".
    method : str, default "auto"
        "push" (top-down), "pull" (bottom-up with early exit), or "auto"
        (direction-optimizing). The gpu executor offers more variants for study; see
        ``gpu_backend``.
    levels, parents : bool
        Which outputs to compute; skipping parents uses the cheaper ANY_PAIR semiring.

    Returns
    -------
    BFSResult
        ``level`` (``-1`` unreached, 0 at source) and ``parent`` (``-1`` unreached,
        ``parent[source] == source``); an output not asked for is None. Levels are unique;
        parents are one valid BFS tree among possibly many.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> r = lg.bfs(G, 0)
    >>> r.level
    array([0, 1, 1, 2])
    >>> lg.validate.bfs(G, 0, r)
    """
    s = as_source(source, G.n)
    if not (levels or parents):
        raise ValueError("nothing to compute: levels and parents are both False")
    ex = get_executor(backend, G)
    methods = ("auto",) + ex.bfs_methods
    if method not in methods:
        raise ValueError(f"method must be one of {methods} on the {ex.name} executor, "
                         f"got {method!r}")
    memory.ensure_call(G, ex, "bfs", method)
    with ex.placement(G, "bfs"):
        level, parent = ex.bfs_search(G, s, method, levels, parents)    # the group step
    return BFSResult(source=s, level=level, parent=parent)


def search(ex, G, s: int, method: str, levels: bool, parents: bool):
    """The text of this module in steps: what :meth:`Executor.bfs_search` stands for.

    Returns executor arrays ``(level, parent)`` as :class:`BFSResult` holds them (None for
    an output not asked for).
    """
    semiring = "any_secondi" if parents else "any_pair"
    A = ex.matrix(G)
    AT = ex.matrix(G, transpose=True) if method in ("auto", PULL) else None
    frontier = ex.vector(G.n, [s], [s])
    visited = ex.vector(G.n, [s], [s])             # values: parents (or 1 with any_pair)
    level = ex.vector(G.n, [s], [0]) if levels else None

    if method == "auto":
        _direction_optimizing(ex, G, s, A, AT, frontier, visited, level, semiring)
    elif ex.auto_methods.get(method) == method:
        # a method that is also the executor's auto direction (the cpu's push and pull)
        # runs as one group step that stands for this same loop: no frontier limit, no
        # pull stopping size
        if method == PUSH:
            ex.bfs_push_levels(A, frontier, visited, level, 1, semiring, G.n)
        else:
            ex.bfs_pull_levels(A, AT, frontier, visited, level, 1, semiring, 0)
    else:
        k, nq = 0, 1
        while nq:
            k += 1
            frontier, stats = ex.bfs_level(A, AT, frontier, visited, level, k, method, semiring)
            nq = stats.nq
    return (ex.to_dense(level, -1, consume=True) if levels else None,
            ex.to_dense(visited, -1, consume=True) if parents else None)


def _direction_optimizing(ex, G, s, A, AT, frontier, visited, level, semiring) -> None:
    """Run levels until the frontier is empty, choosing push or pull by the rule above.

    Pull levels run as one group step (:meth:`Executor.bfs_pull_levels`), which stops where
    the rule switches back to push. While pushing a frontier of at most
    ``ex.small_frontier`` vertices, the executor may run several consecutive levels in one
    step (:meth:`Executor.bfs_push_levels`).
    """
    degrees = (ex.degree(G), ex.degree(G, incoming=True))
    frontier_edges = int(G.out_degree()[s])
    unexplored = G.nstored - int(G.in_degree()[s])     # in-edges of unvisited vertices
    k, nq, growing, direction = 0, 1, True, PUSH
    while nq:
        if direction == PUSH and growing and frontier_edges > unexplored / ALPHA:
            direction = PULL
        if direction == PULL:
            frontier, k, stats = ex.bfs_pull_levels(A, AT, frontier, visited, level, k + 1,
                                                    semiring, G.n / BETA, degrees)
            direction, growing = PUSH, False
        else:
            if nq <= ex.small_frontier:
                frontier, k, stats = ex.bfs_push_levels(A, frontier, visited, level, k + 1,
                                                        semiring, ex.small_frontier, degrees)
            else:
                k += 1
                frontier, stats = ex.bfs_level(A, AT, frontier, visited, level, k,
                                               ex.auto_methods[PUSH], semiring, degrees)
            growing = stats.nq > nq
        unexplored -= stats.visited_in_edges
        nq, frontier_edges = stats.nq, stats.frontier_edges
