"""The BFS group steps of the fused cpu executor: BFS levels as compiled loops (numba).

A small graph's whole search (:meth:`BfsSteps.bfs_search`, :data:`SMALL_GRAPH`) is one
compiled push loop on numpy arrays; a larger one runs the algorithm text on the steps
below.

A step updates the visited set (``parent``) and ``level`` in place as numpy arrays (their
bitmap and values: :meth:`~.host_vector.HostVector.opened`) and returns the new frontier,
the vertices of the last level, as a sparse :class:`~.host_vector.HostVector`. Push
levels walk a queue of frontier vertices (a large frontier's out-edges are split over the
cores and the new frontier is read off a bitmap, so that racing threads pick one parent
each); pull levels scan a shrinking list of unvisited vertices, in parallel where it is
long, each stopping at its first in-neighbour in the frontier, probing first the one with
the most out-edges (found once per graph and cached with it).

Queue positions, counts and the CSR arrays are unsigned in the loops (numba then indexes
without a test for negative indices), and an absent level vector, or a level bitmap that
follows the visited one, is passed as None (numba compiles a loop without those tests).

Only the semirings of BFS (``any_secondi``: the parent id; ``any_pair``: 1) on int64
vectors run compiled; anything else runs the primitive definition. The first call in a
fresh environment compiles the loops it needs (about 3 s for a search with levels and
parents on two cores, 5 s more for the pull loop and the other variants); numba caches
them on disk, and a later process loads them in about 0.2 s.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..cpu import as_unsigned, csr_arrays, host_form
from ..executor import PULL, PUSH, Executor, LevelStats
from .host_vector import HostVector, _fill_absent, held, holder

#: Frontiers of up to this many vertices are pushed level after level in one compiled call:
#: every level of a road network or grid, the first and last levels of a power-law graph.
SMALL_FRONTIER = 8192
#: A graph of at most this many stored entries is searched (``method`` "auto" or "push")
#: in one compiled call, push only, from allocating the outputs to filling the unreached:
#: there the steps' fixed cost (about 20 µs) exceeds the work, and pulling saves little.
SMALL_GRAPH = 1 << 15
#: Push levels on a graph of fewer stored entries per vertex than this run without a branch
#: per edge (:func:`_push_level`). There about every third edge finds a new vertex, in no
#: pattern a branch predictor follows on an irregular graph: road-like graphs of 2.4-3.2
#: entries per vertex searched 25-35% faster (115k vertices: 1.45 against 2.1 ms). Above
#: it, on regular grids and meshes and on power-law graphs, where the test is mostly
#: predictable, the edges' stores cost more (grid 55 x 55, 3.9 per vertex: 22 against
#: 13 µs; Kronecker 12: 140 against 96 µs).
BRANCHLESS_DEGREE = 3.5
#: Least work (edges to push, unvisited vertices to pull) of a level split over the cores:
#: starting the threads costs microseconds on an idle machine, milliseconds on a busy one.
PARALLEL_WORK = 1 << 16
#: A parallel push level reads its new frontier off a bitmap (an O(n) scan); it runs only
#: where the frontier's out-edges also exceed n / PARALLEL_PUSH.
PARALLEL_PUSH = 16

_NONE = np.zeros(0, dtype=np.int64)      # stands for absent degrees or pull heads
_NO_LIMIT = np.uint64(np.iinfo(np.int64).max)
_ONE = np.uint64(1)                      # (unsigned arithmetic in the compiled loops)
_PARALLEL_PUSH = np.uint64(PARALLEL_PUSH)


@njit(cache=True)
def _set_level(v, k, lbits, lvals):
    """``level(v) = k``; return 1 if ``v`` is a new entry. No level vector: ``lvals`` is
    None; a level bitmap that follows the visited one (copied afterwards) is None. (numba
    compiles a loop for each case, without the tests.)"""
    if lvals is None:
        return 0
    lvals[v] = k
    if lbits is None or lbits[v]:
        return 0
    lbits[v] = True
    return 1


@njit(cache=True, inline="always")
def _push_level(indptr, indices, order, head, end, tail, visited, parents, secondi, lbits,
                lvals, k, porder):
    """Push the frontier ``order[head:end]`` one level, on one core: append the vertices
    it visits to ``order`` from ``tail`` on; return the new ``tail`` and the number of
    new level entries.

    With an empty ``porder`` a vertex is tested and taken in one branch. Otherwise (an
    array as long as ``order``, which then holds one slot more than there are vertices)
    the edges run without a branch: each edge's head and tail are written at ``tail``,
    which moves on only for a new vertex, and the parents and levels are set afterwards
    from ``porder`` (:data:`BRANCHLESS_DEGREE` says where that pays).
    """
    nlevel = 0
    if porder.size == 0:
        while head < end:
            u = order[head]
            head += _ONE
            for e in range(indptr[u], indptr[u + _ONE]):
                v = indices[e]
                if not visited[v]:   # (written out: a helper for this costs twice)
                    visited[v] = True
                    parents[v] = u if secondi else _ONE
                    nlevel += _set_level(v, k, lbits, lvals)
                    order[tail] = v
                    tail += _ONE
        return tail, nlevel
    start = tail
    while head < end:
        u = order[head]
        head += _ONE
        for e in range(indptr[u], indptr[u + _ONE]):
            v = indices[e]
            new = not visited[v]
            visited[v] = True
            order[tail] = v
            porder[tail] = u
            tail += np.uint64(new)
    for i in range(start, tail):
        v = order[i]
        parents[v] = porder[i] if secondi else _ONE
        nlevel += _set_level(v, k, lbits, lvals)
    return tail, nlevel


@njit(cache=True, parallel=True)
def _push_levels(indptr, indices, max_degree, branchless, queue, visited, parents, secondi,
                 lbits, lvals, k0, limit, max_levels, in_deg, parallel_work):
    """Push levels ``k0, k0+1, ...`` while ``0 < nq <= limit`` (at most ``max_levels``).

    Returns ``(frontier, last level, new visited, new level entries, in-edges of the
    visited)``; the frontier is :func:`_frontier` of the last level's vertices. The
    in-edges are summed only where the frontier is not empty (the definition reports
    none then).

    The levels follow each other in one FIFO, ``order[head:tail]`` the frontier. Queue
    positions, counts and the bounds (``max_degree``, ``limit``, ``max_levels``,
    ``parallel_work``: uint64) are unsigned, as are the CSR arrays, so that numba indexes
    without a test for negative indices; ``k`` and the counts of entries stay signed
    (numba would compute a signed-unsigned mix in float64).
    """
    n = np.uint64(visited.size)
    order = np.empty(n + _ONE, dtype=indices.dtype)
    porder = np.empty(n + _ONE if branchless else np.uint64(0), dtype=indices.dtype)
    start = np.uint64(queue.size)
    for i in range(start):
        order[i] = queue[i]
    head, tail = np.uint64(0), start
    k, levels, nlevel = k0 - 1, np.uint64(0), 0
    while tail > head and tail - head <= limit and levels < max_levels:
        k += 1
        levels += _ONE
        end = tail
        work = np.uint64(0)
        if (end - head) * max_degree > parallel_work:   # else small whatever it holds
            for i in range(head, end):
                work += indptr[order[i] + _ONE] - indptr[order[i]]
        if work > parallel_work and work * _PARALLEL_PUSH > n:     # over the cores
            reached = np.zeros(n, dtype=np.bool_)
            for i in prange(end - head):
                u = order[head + i]
                for e in range(indptr[u], indptr[u + _ONE]):
                    v = indices[e]
                    if not visited[v]:    # racing threads may both pass: either parent is
                        visited[v] = True  # valid, and v is listed once, off the bitmap
                        parents[v] = u if secondi else _ONE
                        reached[v] = True
            for v in range(n):
                if reached[v]:
                    nlevel += _set_level(v, k, lbits, lvals)
                    order[tail] = v
                    tail += _ONE
        else:
            tail, added = _push_level(indptr, indices, order, head, end, tail, visited,
                                      parents, secondi, lbits, lvals, k, porder)
            nlevel += added
        head = end
    vin = 0
    if tail > head and in_deg.size:
        for i in range(start, tail):
            vin += in_deg[order[i]]
    return _frontier(order[head:tail], parents, secondi), k, tail - start, nlevel, vin


@njit(cache=True)
def _search(indptr, indices, s, parents, lvals, branchless):
    """A whole push BFS from ``s`` on one core: fill ``parents`` and ``lvals`` (None: no
    levels), ``-1`` where unreached."""
    n = parents.size
    visited = np.zeros(n, dtype=np.bool_)
    order = np.empty(n + 1, dtype=indices.dtype)
    porder = np.empty(n + 1 if branchless else 0, dtype=indices.dtype)
    visited[s], parents[s], order[0] = True, s, s
    if lvals is not None:
        lvals[s] = 0
    head, tail, k = np.uint64(0), _ONE, 0
    while tail > head:
        k += 1
        end = tail
        tail, _ = _push_level(indptr, indices, order, head, end, end, visited, parents,
                              True, None, lvals, k, porder)
        head = end
    _fill_absent(visited, parents, -1)
    if lvals is not None:
        _fill_absent(visited, lvals, -1)


@njit(cache=True)
def _frontier(vertices, parents, secondi):
    """``(indices, values)`` of the new frontier: the ``vertices`` ascending (uint64),
    holding their parents or 1."""
    indices = vertices.astype(np.uint64)
    for i in range(1, indices.size):
        if indices[i] < indices[i - 1]:
            indices.sort()
            break
    if secondi:
        return indices, parents[indices]
    return indices, np.ones(indices.size, np.int64)


@njit(cache=True, parallel=True)
def _pull_heads(tptr, tind, indptr):
    """For each vertex, its in-neighbour with the most out-edges (-1 if none): a pull's
    first probe, since a hub is likely in the frontier."""
    n = tptr.size - 1
    heads = np.full(n, -1, dtype=np.int64)
    for v in prange(n):
        most = -1
        for e in range(tptr[v], tptr[v + 1]):
            u = tind[e]
            if indptr[u + 1] - indptr[u] > most:
                most = indptr[u + 1] - indptr[u]
                heads[v] = u
    return heads


@njit(cache=True)
def _first_in(tptr, tind, heads, v, in_frontier):
    if heads.size and heads[v] >= 0 and in_frontier[heads[v]]:
        return heads[v]
    for e in range(tptr[v], tptr[v + 1]):
        if in_frontier[tind[e]]:
            return tind[e]
    return -1


@njit(cache=True, parallel=True)
def _pull_levels(tptr, tind, heads, queue, visited, parents, secondi, lbits, lvals, k0,
                 min_nq, max_levels, in_deg, parallel_work):
    """Pull levels ``k0, k0+1, ...`` until the frontier is empty, or is no larger than the
    one before and holds fewer than ``min_nq`` vertices (at most ``max_levels``).

    Returns what :func:`_push_levels` returns.
    """
    n = visited.size
    in_frontier = np.zeros(n, dtype=np.bool_)
    for u in queue:
        in_frontier[u] = True
    unvisited = np.empty(n, dtype=tind.dtype)   # ascending; no in-edge: never reached
    nu = 0
    for v in range(n):
        if not visited[v] and tptr[v + 1] > tptr[v]:
            unvisited[nu] = v
            nu += 1
    found = np.empty(nu, dtype=np.int64)
    cur = queue.astype(np.int64)
    nq, k, levels, nvisited, nlevel, vin = queue.size, k0 - 1, np.uint64(0), 0, 0, 0
    while levels < max_levels:
        k += 1
        levels += _ONE
        if nu > parallel_work:                                 # over the cores
            for j in prange(nu):
                found[j] = _first_in(tptr, tind, heads, unvisited[j], in_frontier)
        else:
            for j in range(nu):
                found[j] = _first_in(tptr, tind, heads, unvisited[j], in_frontier)
        for u in cur:
            in_frontier[u] = False
        nxt = np.empty(nu, dtype=np.int64)
        m, keep = 0, 0
        for j in range(nu):
            v = unvisited[j]
            if found[j] >= 0:
                visited[v] = True
                parents[v] = found[j] if secondi else 1
                nlevel += _set_level(v, k, lbits, lvals)
                vin += in_deg[v] if in_deg.size else 0
                in_frontier[v] = True
                nxt[m] = v
                m += 1
            else:
                unvisited[keep] = v
                keep += 1
        nu = keep
        nvisited += m
        cur = nxt[:m]
        if m == 0 or (m <= nq and m < min_nq):
            break
        nq = m
    return _frontier(cur, parents, secondi), k, nvisited, nlevel, vin


def _branchless(indptr) -> bool:
    """Whether push levels on this CSR run without a branch per edge (see
    :data:`BRANCHLESS_DEGREE`)."""
    return bool(indptr[-1] < BRANCHLESS_DEGREE * (indptr.size - 1))


def _fusable(semiring, parent, level) -> bool:
    return (semiring in ("any_secondi", "any_pair") and parent.dtype == np.int64
            and (level is None or level.dtype == np.int64))


def _stats(method, nq, fe, vin, degrees) -> LevelStats:
    """As the definitions count: an empty frontier ends push levels with no counts, pull
    levels with the in-edges of everything they visited."""
    if degrees is None:
        return LevelStats(nq, 0, 0)
    if nq == 0:
        return LevelStats(0, 0, vin if method == PULL else 0)
    return LevelStats(nq, fe, vin)


class BfsSteps:
    """BFS group steps of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> lg.bfs(lg.generate.grid(2, 3), 0).level      # backend="cpu" runs these steps
    array([0, 1, 2, 1, 2, 3])
    """

    small_frontier = SMALL_FRONTIER
    #: Least work of a level run on every core (see :data:`PARALLEL_WORK`).
    parallel_work = PARALLEL_WORK
    #: Graphs of at most this many stored entries are searched in one call (see
    #: :data:`SMALL_GRAPH`).
    small_graph = SMALL_GRAPH

    def bfs_search(self, G, source, method, levels, parents):
        """The whole search as :meth:`Executor.bfs_search` defines it; on a graph of at
        most :attr:`small_graph` stored entries (``method`` "auto" or "push") one compiled
        push loop, without vectors or steps.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> FusedCpuExecutor().bfs_search(lg.generate.grid(2, 2), 0, "auto", True, True)
        (array([0, 1, 1, 2]), array([0, 0, 0, 1]))
        """
        if method not in ("auto", PUSH) or G.nstored > self.small_graph:
            return super().bfs_search(G, source, method, levels, parents)
        indptr, indices = G._cached("cpu.csr.unsigned",
                                    lambda: as_unsigned(G.indptr, G.indices))
        parent = np.empty(G.n, dtype=np.int64)
        level = np.empty(G.n, dtype=np.int64) if levels else None
        _search(indptr, indices, np.uint64(source), parent, level, _branchless(indptr))
        return level, parent if parents else None

    def bfs_level(self, A, AT, frontier, parent, level, k, method, semiring, degrees=None):
        # one pull level runs as defined: SuiteSparse's pull exits early too, and the
        # compiled pull's list of unvisited vertices (O(n)) pays off over several levels
        if method != PUSH or not _fusable(semiring, parent, level):
            return super().bfs_level(A, AT, frontier, parent, level, k, method, semiring,
                                     degrees)
        frontier, _, stats = self._run(PUSH, A, frontier, parent, level, k, semiring, _ONE,
                                       _NO_LIMIT, degrees)
        return frontier, stats

    def bfs_push_levels(self, A, frontier, parent, level, k, semiring, limit, degrees=None):
        if not _fusable(semiring, parent, level):
            return super().bfs_push_levels(A, frontier, parent, level, k, semiring, limit,
                                           degrees)
        return self._run(PUSH, A, frontier, parent, level, k, semiring, _NO_LIMIT,
                         limit, degrees)

    def bfs_pull_levels(self, A, AT, frontier, parent, level, k, semiring, min_nq,
                        degrees=None):
        if self.auto_methods[PULL] != PULL or not _fusable(semiring, parent, level):
            return super().bfs_pull_levels(A, AT, frontier, parent, level, k, semiring,
                                           min_nq, degrees)
        return self._run(PULL, AT, frontier, parent, level, k, semiring,
                         _NO_LIMIT, min_nq, degrees, A)

    def _run(self, method, M, frontier, parent, level, k, semiring, max_levels, bound,
             degrees, A=None):
        """Levels from ``k`` by ``method`` along the pattern ``M`` (a pull's ``M`` is the
        transpose of ``A``); ``bound`` is the push limit or the pull's ``min_nq``. Returns
        ``(frontier, last level, stats)``; ``max_levels`` is a uint64."""
        with held(frontier, parent, level) as vectors:
            frontier, parent, level = vectors
            queue = frontier.indices()
            if method == PUSH and not 0 < queue.size <= bound:
                return Executor.bfs_push_levels(self, M, frontier, parent, level, k, semiring,
                                                bound, degrees)
            indptr, indices = csr_arrays(M, unsigned=True)
            in_deg = _NONE if degrees is None else holder(degrees[1]).full_values()
            secondi = semiring == "any_secondi"
            if method == PUSH:
                max_degree = host_form(M, "max_degree",
                                       lambda: np.uint64(np.diff(indptr).max()))
                loop, args = _push_levels, (indptr, indices, max_degree,
                                            _branchless(indptr), queue)
                bound = np.uint64(bound)
            else:
                heads = _NONE if A is None else host_form(
                    M, "pull_heads",
                    lambda: _pull_heads(indptr, indices, csr_arrays(A, unsigned=True)[0]))
                loop, args = _pull_levels, (indptr, indices, heads, queue)
                bound = float(bound)
            # in a BFS the level bitmap is the visited one: copied once, after the loop
            follows = level is not None and level.same_pattern(parent)
            pbits, pvals = parent.opened()
            lbits, lvals = (None, None) if level is None else level.opened()
            (q, qvals), last_k, grown, nlevel, vin = loop(
                *args, pbits, pvals, secondi, None if follows else lbits, lvals, k,
                bound, max_levels, in_deg, np.uint64(self.parallel_work))
            parent.added(int(grown))
            if follows:
                lbits[:] = pbits
                level.added(int(grown), like=parent)
            elif level is not None:
                level.added(nlevel)
            new = HostVector.sparse(pbits.size, q, qvals)
        fe = int(holder(degrees[0]).full_values()[q].sum()) if degrees and q.size else 0
        return new, last_k, _stats(method, q.size, fe, vin, degrees)
