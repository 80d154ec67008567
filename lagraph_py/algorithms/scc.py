"""Strongly connected components: trimming, one forward-backward step, then colouring.

The phases follow the SCC source document (seed 003) and Multistep (Slota, Rajamanickam
and Madduri, IPDPS 2014). ``active`` holds the vertices whose component is not known yet,
with their own ids as values; ``label`` holds the finished ones, valued by their
component's smallest id. ``active`` is always a union of whole components, so the
components of the subgraph it induces are components of ``G``, and every step restricts
itself to it by masks alone: the adjacency is never rebuilt.

1. **Trim** (:func:`_trim`). An active vertex with no active in-neighbour or no active
   out-neighbour is a component of its own. Repeat on the neighbours of what was removed.
2. **Forward-backward** (:func:`_forward_backward`). From the pivot of largest
   ``in_degree * out_degree``, ``FW`` = everything it reaches; the vertices of ``FW`` that
   reach it (a backward search confined to ``FW``) form its component: ``FW ∩ BW`` with
   ``BW`` never grown outside ``FW``. On power-law graphs this is the giant component.
3. **Trim again, then 2-cycles** (:func:`_trim_pairs`): ``u <-> v`` where both have no other
   active in-neighbour (or both no other out-neighbour) is a component of two.
4. **Colouring** (:func:`_colour`, :func:`_colour_sets`), repeated until nothing is active:
   ``colour(v)`` = the smallest id among the active vertices that reach ``v`` (min-label
   propagation along edges). A vertex ``c`` with ``colour(c) == c`` is a root; the vertices
   of colour ``c`` that reach ``c`` are exactly ``c``'s component, and ``c`` is its smallest
   id. All roots grow their components at once by one backward search under MAX_SECOND.
   Each round is followed by a trim.

An undirected graph gets its connected components (:func:`_connected_components`, FastSV).
"""

from __future__ import annotations

import numpy as np

from ..executor import PULL, PUSH, get_executor
from ..graph import Graph
from ..results import SCCResult

#: Reachability switches push -> pull when the frontier holds more than 1/ALPHA of the
#: unvisited vertices (the BFS rule of Beamer et al., counted in vertices) ...
ALPHA = 14
#: ... and back to push when a shrinking frontier holds fewer than region / BETA vertices.
BETA = 24
#: A trim round examines only the neighbours of the vertices removed by the round before
#: when those were fewer than 1/TRIM_SPARSE of the active ones, else every active vertex.
TRIM_SPARSE = 8
#: The 2-cycle trim runs once, after the forward-backward step (as in the source document).
TRIM_PAIRS = True


def scc(G, *, backend: str = "cpu") -> SCCResult:
    """Strongly connected components of ``G`` (connected components if undirected).

    Parameters
    ----------
    G : Graph
    backend : {"cpu", "gpu"}
        Executor to run on; ``labels`` is a numpy array on "cpu", a CuPy array on "gpu".

    Returns
    -------
    SCCResult
        ``labels[v]`` (int64) is the smallest vertex id of the component of ``v``, so the
        answer is unique. Self-loops and parallel edges make no difference.

    Raises
    ------
    TypeError
        ``G`` is not a :class:`~lagraph_py.Graph`.
    ValueError
        An unknown ``backend``.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 0, 4, 3], n=6)
    >>> lg.scc(G).labels
    array([0, 0, 0, 3, 3, 5])
    """
    if not isinstance(G, Graph):
        raise TypeError(f"G must be a lagraph_py.Graph, got {type(G).__name__}")
    ex = get_executor(backend)
    if G.n == 0:
        return SCCResult(labels=ex.array(np.empty(0, dtype=np.int64)))
    label = _connected_components(ex, G) if not G.directed else _strong_components(ex, G)
    return SCCResult(labels=ex.to_dense(label, -1, consume=True))


def _strong_components(ex, G):
    """The phases above; returns the full ``label`` vector."""
    A = ex.matrix(G, loops=False)
    AT = ex.matrix(G, transpose=True, loops=False)
    label = ex.vector(G.n, np.empty(0, np.int64), np.empty(0, np.int64))
    active = ex.iota(G.n)

    active = ex.scc_trim(A, AT, active, label)
    if ex.nvals(active):
        active = _forward_backward(ex, G, A, AT, active, label)
        active = ex.scc_trim(A, AT, active, label)
    if TRIM_PAIRS and ex.nvals(active):
        active, npairs = _trim_pairs(ex, A, AT, active, label)
        if npairs:
            active = ex.scc_trim(A, AT, active, label)
    if ex.nvals(active):
        ex.scc_signatures(A, AT, active, label)     # the group step: every vertex left
    return label


def signature_rounds(ex, A, AT, active, label):
    """What :meth:`Executor.scc_signatures` stands for: label every active vertex."""
    while ex.nvals(active):
        colour = _colour(ex, A, AT, active)
        active = _colour_sets(ex, A, AT, colour, active, label)
        active = _trim(ex, A, AT, active, label)


# ------------------------------------------------------------------------ phases
def trim(ex, A, AT, active, label):
    """What :meth:`Executor.scc_trim` stands for (see the phases above)."""
    return _trim(ex, A, AT, active, label)


def _trim(ex, A, AT, active, label):
    """Label every active vertex without an active in- or out-neighbour by its own id,
    repeatedly, and return the vertices left.

    A dense round examines every active vertex by two ANY_PAIR pulls (early exit). Once a
    round removes fewer than 1/TRIM_SPARSE of them, the rounds examine only the neighbours
    of the vertices just removed, on ``status`` (1 active, 0 removed): a vertex keeps an
    active in-neighbour when the MAX_SECOND of ``status`` over its in-neighbours is 1.
    """
    while True:                                                  # dense rounds
        has_in = ex.mxv(AT, active, "any_pair", mask=active)
        keep = ex.mxv(A, active, "any_pair", mask=has_in)        # ... and an out-neighbour
        nactive, nkeep = ex.nvals(active), ex.nvals(keep)
        if nkeep == nactive:
            return active
        dead = _remove(ex, active, keep)                         # values: own ids
        active = ex.apply(keep, "index")
        ex.assign(label, dead)
        if (nactive - nkeep) * TRIM_SPARSE < nkeep:
            break
    status = ex.apply(active, "second", 1)                       # sparse rounds
    while ex.nvals(dead):
        near = ex.ewise_add(ex.vxm(dead, A, "any_pair"), ex.vxm(dead, AT, "any_pair"), "first")
        check = ex.select(ex.ewise_mult(status, near, "first"), "eq", 1)
        has_in = ex.select(ex.mxv(AT, status, "max_second", mask=check), "eq", 1)
        keep = ex.select(ex.mxv(A, status, "max_second", mask=has_in), "eq", 1)
        dead = _remove(ex, ex.apply(check, "index"), keep)
        ex.assign_scalar(status, 0, mask=dead)
        ex.assign(label, dead)
    return ex.apply(ex.select(status, "eq", 1), "index")


def _forward_backward(ex, G, A, AT, active, label):
    """Label the component of the pivot (largest in-degree x out-degree, smallest id on a
    tie) by a forward search and a backward search confined to what the first reached.

    The degrees are those of ``G`` (cached by the executor), not of the active subgraph:
    the choice is a heuristic, and exact active degrees would cost two more passes."""
    score = ex.ewise_mult(ex.ewise_mult(ex.degree(G), ex.degree(G, incoming=True), "times"),
                          active, "first")
    best = ex.select(score, "eq", ex.reduce(score, "max"))
    pivot = ex.reduce(ex.apply(best, "index"), "min")

    seen = ex.dup(label)                                         # forward: blocked = done
    _reach(ex, G.n, A, AT, pivot, seen, ex.nvals(active))
    forward = ex.ewise_mult(active, seen, "first")

    seen = ex.full(G.n, 0)                                       # backward: blocked = all
    ex.assign_scalar(seen, -1, mask=forward)                     # but forward
    seen = ex.select(seen, "ge", 0)
    _reach(ex, G.n, AT, A, pivot, seen, ex.nvals(forward))
    component = ex.ewise_mult(forward, seen, "first")

    ex.assign_scalar(label, ex.reduce(component, "min"), mask=component)
    return _remove(ex, active, component)


def _trim_pairs(ex, A, AT, active, label):
    """Label every 2-cycle ``u <-> v`` of active vertices that are each other's only active
    in-neighbour (then nothing else reaches them), or only out-neighbour, by ``min(u, v)``.

    The only neighbour ``nbr(v)`` is the MIN_SECOND of the active ids next to a vertex with
    one active neighbour; ``v`` is in a pair when ``nbr(nbr(v)) == v``.
    Returns the new active set and the number of vertices labelled.
    """
    labelled = 0
    for M in (AT, A):                                            # in-, then out-neighbours
        one = ex.select(ex.mxv(M, active, "plus_pair", mask=active), "eq", 1)
        nbr = ex.mxv(M, active, "min_second", mask=one)
        back = ex.extract(nbr, nbr)                              # nbr(nbr(v))
        paired = ex.select(ex.ewise_mult(back, active, "minus"), "eq", 0)
        pairs = ex.ewise_mult(ex.ewise_mult(nbr, paired, "first"), active, "min")
        found = ex.nvals(pairs)
        if found:
            ex.assign(label, pairs)
            active = _remove(ex, active, pairs)
            labelled += found
    return active, labelled


def _colour(ex, A, AT, active):
    """``colour(v)`` = the smallest active id that reaches ``v`` within the active set.

    Min-label propagation; each round pulls MIN_SECOND over the in-neighbours of only the
    successors of the colours that changed.
    """
    colour = ex.dup(active)
    changed = colour
    while ex.nvals(changed):
        touched = ex.vxm(changed, A, "any_pair", mask=active)
        offer = ex.mxv(AT, colour, "min_second", mask=touched)
        lower = ex.select(ex.ewise_mult(offer, colour, "minus"), "lt", 0)
        changed = ex.ewise_mult(offer, lower, "first")
        ex.assign(colour, changed)
    return colour


def _colour_sets(ex, A, AT, colour, active, label):
    """Label the component of every root ``c`` (``colour(c) == c``): the vertices of
    colour ``c`` that reach ``c``, grown backwards from all roots at once.

    Every active successor ``u`` of ``v`` has ``colour(u) <= colour(v)``, so the MAX_SECOND
    of the colours of ``v``'s successors in the frontier equals ``colour(v)`` exactly when
    one of them is in the set of root ``colour(v)``. Each level pulls only at the
    predecessors of the frontier; a vertex that joined a set gets colour -1 (consumed), so
    it never joins again.
    """
    roots = ex.select(ex.ewise_mult(colour, active, "minus"), "eq", 0)
    frontier = ex.ewise_mult(colour, roots, "first")             # values: root ids
    sets = ex.dup(frontier)
    while ex.nvals(frontier):
        ex.assign_scalar(colour, -1, mask=frontier)
        touched = ex.vxm(frontier, AT, "any_pair", mask=active)
        offer = ex.mxv(A, frontier, "max_second", mask=touched)
        joins = ex.select(ex.ewise_mult(offer, colour, "minus"), "eq", 0)
        frontier = ex.ewise_mult(offer, joins, "first")
        ex.assign(sets, frontier)
    ex.assign(label, sets)
    return _remove(ex, active, sets)


def _remove(ex, active, gone):
    """``active`` (vertex ids, consumed) without the indices present in ``gone``."""
    ex.assign_scalar(active, -1, mask=gone)
    return ex.select(active, "ge", 0)


# ------------------------------------------------------------------------ reachability
def _reach(ex, n, A, AT, source, seen, region):
    """Add to ``seen`` every vertex reachable from ``source`` along ``A`` without passing
    through ``seen``: BFS levels under ANY_PAIR. Push until a growing frontier holds more
    than 1/ALPHA of the ``region`` vertices still unvisited, then pull until a shrinking
    one holds fewer than ``region / BETA``."""
    frontier = ex.vector(n, [source], [1])
    ex.assign(seen, frontier)
    k, nq, unvisited, direction = 0, 1, region - 1, PUSH
    growing = True
    while nq:
        if direction == PUSH and growing and nq > unvisited / ALPHA:
            direction = PULL
        if direction == PUSH and nq <= ex.small_frontier:
            frontier, k, stats = ex.bfs_push_levels(A, frontier, seen, None, k + 1, "any_pair",
                                                    ex.small_frontier)
        else:
            k += 1
            frontier, stats = ex.bfs_level(A, AT, frontier, seen, None, k,
                                           ex.auto_methods[direction], "any_pair")
        growing = stats.nq > nq
        if direction == PULL and not growing and stats.nq < region / BETA:
            direction = PUSH
        nq = stats.nq
        unvisited -= nq


# ------------------------------------------------------------------------ undirected
def _connected_components(ex, G):
    """FastSV (Zhang, Azad and Hu, 2020): hooking on grandparents plus shortcutting.

    ``f`` is a forest of parent pointers, ``gp = f(f)``. Each round: ``mngp(u)`` = min of
    ``gp`` over the neighbours of ``u``; stochastic hooking ``f(f(u)) min= mngp(u)``;
    aggressive hooking ``f(u) min= mngp(u)``; shortcutting ``f(u) min= gp(u)``. It stops
    when ``gp`` stops changing; every tree is then a star rooted at its smallest id.
    """
    A = ex.matrix(G)
    f = ex.iota(G.n)
    gp = ex.dup(f)
    while True:
        mngp = ex.mxv(A, gp, "min_second")
        f = ex.ewise_add(f, ex.scatter(G.n, f, mngp, "min"), "min")
        f = ex.ewise_add(ex.ewise_add(f, mngp, "min"), gp, "min")
        gp_next = ex.extract(f, f)
        if not ex.reduce(ex.ewise_mult(gp_next, gp, "ne"), "plus"):
            return f
        gp = gp_next
