"""Strongly connected components: seed phases on power-law graphs, then signatures.

``active`` holds the vertices whose component is not known yet, with their own ids as
values; ``label`` holds the finished ones, valued by their component's smallest id.
``active`` is always a union of whole components, so the components of the subgraph it
induces are components of ``G``, and every step restricts itself to it by masks (or by
the edge sets of :meth:`~lagraph_py.executor.Executor.select_edges`).

The whole is the group step ``strong_components`` (:func:`strong_components` defines it),
which the reference cpu executor and the gpu run as written here; the fused cpu executor
replaces it with one compiled call (:mod:`lagraph_py.cpu_steps.scc`: Tarjan's algorithm,
after a forward-backward search like the one below where that pays), where the steps
between BFS levels and phases would cost more than the work.

What runs before the signatures is the executor's choice (``Executor.scc_seed_phases``).
With ``"forward_backward"`` (the default), on a graph with hubs (:func:`has_hubs`)
the phases of the SCC source document (seed 003) and of Multistep (Slota, Rajamanickam and
Madduri, IPDPS 2014) run first:

1. **Trim** (group step ``scc_trim``, :func:`trim`). An active vertex with no active
   in-neighbour or no active out-neighbour is a component of its own; repeat.
2. **Forward-backward** (group step ``scc_pivot_component``, :func:`forward_backward`).
   From the pivot of largest
   ``in_degree * out_degree``, ``FW`` = everything it reaches; the vertices of ``FW`` that
   reach it form its component. On power-law graphs this is the giant component, found in
   a few BFS levels.
3. **Trim again, then 2-cycles** (:func:`_trim_pairs`): ``u <-> v`` where both have no other
   active in-neighbour (or both no other out-neighbour) is a component of two.

With ``"trim"`` one trim runs on every graph: an executor whose signatures settle what a
trim leaves of a Kronecker graph in one round. With ``"pivot"`` (the gpu) the
forward-backward search runs first on every graph, then one trim: the searches are whole
BFS in one launch each, which label the giant component of a power-law or uniform random
graph in tens of levels, and the executor gives them up where they would not pay: on
small graphs, and where they run deep (grids, meshes, roads, chains of components), where
the signatures do better.

Then, on every graph, **signatures** (group step ``scc_signatures``,
:func:`signature_rounds`) label what is left. Each round trims, then computes for every
active ``v`` ``fw(v)`` = the smallest id reaching ``v`` and ``bw(v)`` = the smallest id
reachable from ``v`` (:func:`_min_reaching`: min-label propagation plus pointer jumping).
``fw(v) == bw(v) == c`` means ``c`` and ``v`` reach each other and nothing smaller reaches
``v``: ``v`` is in the component of ``c``, and ``c`` is its smallest id; every member of
that component agrees, so whole components finish together (at least the one of each
class's smallest id). Vertices of one component share ``(fw, bw)``, so every edge whose
ends differ in it joins two components: the round drops those edges, which splits the
rest into independent classes (all at once: every vertex is a pivot, the observation of
ECL-SCC) and lets the next trim peel what they cut loose.

Why (``bench/scc_notes.md`` has the numbers). The earlier text ran colouring rounds that
each propagated labels over the whole diameter and then grew only the components of the
roots by a second search of the same depth: on a randomly oriented 200x200 grid 12 rounds
with about 4,000 propagation and 1,200 growth steps, 20x the time for 4x the vertices.
Signatures finish the same grid in 7 rounds (2,666 propagation steps, none for growth) and
a swept 30^3 mesh with 10% two-way edges in 9 rounds instead of 63. A propagation still
needs as many steps as labels travel, so each round costs steps in proportion to the
diameter; executors replace the group step with code that has no per-step cost.
Forward-backward pays only when its BFS is short and its component giant, i.e. from a hub:
on grids, meshes and roads it would walk hundreds of levels to find a small component, so
it is skipped there (HUB).

An undirected graph gets its connected components (:mod:`.components`: the group step
``connected_components``, defined by :func:`fastsv`).
"""

from __future__ import annotations

import numpy as np

from .. import memory
from ..executor import PULL, PUSH
from ..registry import get_executor
from ..results import SCCResult
from . import require_graph
from .components import connected_components

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
#: The seed phases (trim, forward-backward, 2-cycle trim) run only on graphs with hubs:
#: largest in- and out-degree at least HUB times the mean degree (geometric mean of the
#: two). Kronecker graphs score 30 (scale 10) to 2600 (scale 20); Erdős–Rényi graphs of
#: mean degree 1.1 to 8 score below 9; grids, meshes and road networks about 2.
HUB = 16


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
    require_graph(G)
    if not G.directed:
        return connected_components(G, backend=backend)
    ex = get_executor(backend, G)
    if G.n == 0:
        return SCCResult(labels=ex.array(np.empty(0, dtype=np.int64)))
    memory.ensure_call(G, ex, "scc")
    with ex.placement(G, "scc"):
        label = ex.strong_components(G)
        return SCCResult(labels=ex.to_dense(label, -1, consume=True))


def strong_components(ex, G):
    """What :meth:`Executor.strong_components` stands for: the phases above; returns the
    full ``label`` vector."""
    A = ex.matrix(G, loops=False)
    AT = ex.matrix(G, transpose=True, loops=False)
    label = ex.vector(G.n, np.empty(0, np.int64), np.empty(0, np.int64))
    active = ex.iota(G.n)

    if ex.scc_seed_phases == "trim":
        active = ex.scc_trim(A, AT, active, label)
    elif ex.scc_seed_phases == "pivot":
        active = ex.scc_pivot_component(G, A, AT, active, label)
        active = ex.scc_trim(A, AT, active, label)
    elif has_hubs(G):
        active = ex.scc_trim(A, AT, active, label)
        if ex.nvals(active):
            active = ex.scc_pivot_component(G, A, AT, active, label)
            active = ex.scc_trim(A, AT, active, label)
        if TRIM_PAIRS and ex.nvals(active):
            active, npairs = _trim_pairs(ex, A, AT, active, label)
            if npairs:
                active = ex.scc_trim(A, AT, active, label)
    if ex.nvals(active):
        ex.scc_signatures(A, AT, active, label)     # the group step: every vertex left
    return label


def signature_rounds(ex, A, AT, active, label):
    """What :meth:`Executor.scc_signatures` stands for: label every active vertex.

    Each round trims, computes the signatures ``fw`` and ``bw`` (:func:`_min_reaching`)
    on the edges ``M`` left, labels the vertices with ``fw == bw`` and drops the edges
    whose ends differ in ``(fw, bw)``.
    """
    if not ex.nvals(active):
        return
    span = ex.reduce(active, "max") + 1                 # fw * span + bw: one key per pair
    M, MT = A, AT
    while True:
        active = trim(ex, M, MT, active, label)
        if not ex.nvals(active):
            return
        fw = _min_reaching(ex, M, active)
        bw = _min_reaching(ex, MT, active)
        agree = ex.select(ex.ewise_mult(fw, bw, "minus"), "eq", 0)
        done = ex.ewise_mult(fw, agree, "first")
        ex.assign(label, done)
        active = _remove(ex, active, done)
        key = ex.ewise_add(ex.apply(fw, "times", span), bw, "plus")
        key = ex.ewise_mult(key, active, "first")
        M, MT = ex.select_edges(M, key), ex.select_edges(MT, key)


# ------------------------------------------------------------------------ phases
def trim(ex, A, AT, active, label):
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


def has_hubs(G) -> bool:
    """True when the largest in- and out-degrees of ``G`` are, as a geometric mean, at
    least HUB times the mean degree: the mark of a power-law graph (:func:`hub_degrees`)."""
    return hub_degrees(G.out_degree().max(initial=0), G.in_degree().max(initial=0),
                       G.nstored, G.n)


def hub_degrees(max_out: int, max_in: int, nstored: int, n: int) -> bool:
    """Whether a graph of ``n`` vertices and ``nstored`` arcs whose largest out- and
    in-degree are ``max_out`` and ``max_in`` has hubs: their geometric mean at least HUB
    times the mean degree. A graph without arcs has none.

    Examples
    --------
    >>> hub_degrees(100, 100, 1000, 1000), hub_degrees(3, 2, 1000, 1000)
    (True, False)
    >>> hub_degrees(0, 0, 0, 0)
    False
    """
    return nstored > 0 and float(max_out) * float(max_in) >= (HUB * nstored / n) ** 2


def forward_backward(ex, G, A, AT, active, label):
    """What :meth:`Executor.scc_pivot_component` stands for: label the component of the
    pivot (largest in-degree x out-degree, smallest id on a tie) by a forward search and a
    backward search confined to what the first reached; return the active vertices left.

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


def _min_reaching(ex, M, active):
    """``f(v)`` = the smallest active id from which ``v`` is reached along ``M`` (``v``
    itself included), for every active ``v``.

    Min-label propagation pushed from the labels that changed, each round followed by
    pointer jumping ``f(v) = min(f(v), f(f(v)))`` at the vertices whose label just dropped:
    ``f(v)`` is always an id that reaches ``v``, so whatever reaches ``f(v)`` reaches ``v``
    too. A label then crosses a run of ascending ids in a logarithmic number of rounds
    instead of one round per vertex; on randomly oriented grids it saves about a third of
    the rounds. The fixed point is the smallest id reaching ``v``: no arc can lower it.
    """
    f = ex.dup(active)
    changed = f
    while ex.nvals(changed):
        offer = ex.vxm(changed, M, "min_first", mask=active)
        pushed = _lower(ex, offer, f)
        ex.assign(f, pushed)
        jumped = _lower(ex, ex.extract(f, pushed), f)
        ex.assign(f, jumped)
        changed = ex.ewise_add(pushed, jumped, "min")
    return f


def _lower(ex, offer, f):
    """The entries of ``offer`` smaller than ``f`` at the same index."""
    return ex.ewise_mult(offer, ex.select(ex.ewise_mult(offer, f, "minus"), "lt", 0), "first")


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
def fastsv(ex, A, n):
    """What :meth:`Executor.connected_components` stands for: FastSV (Zhang, Azad and Hu,
    2020), hooking on grandparents plus shortcutting.

    ``f`` is a forest of parent pointers, ``gp = f(f)``. Each round: ``mngp(u)`` = min of
    ``gp`` over the neighbours of ``u``; stochastic hooking ``f(f(u)) min= mngp(u)``;
    aggressive hooking ``f(u) min= mngp(u)``; shortcutting ``f(u) min= gp(u)``. It stops
    when ``gp`` stops changing; every tree is then a star rooted at its smallest id.
    """
    f = ex.iota(n)
    gp = ex.dup(f)
    while True:
        mngp = ex.mxv(A, gp, "min_second")
        f = ex.ewise_add(f, ex.scatter(n, f, mngp, "min"), "min")
        f = ex.ewise_add(ex.ewise_add(f, mngp, "min"), gp, "min")
        gp_next = ex.extract(f, f)
        if not ex.reduce(ex.ewise_mult(gp_next, gp, "ne"), "plus"):
            return f
        gp = gp_next
