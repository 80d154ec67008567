"""The BFS group steps of the fused cpu executor: BFS levels as compiled loops (numba).

A step opens the visited set (``parent``) and ``level`` in place as numpy arrays (their
bitmap and values, handed over by SuiteSparse without a copy), runs its levels and packs
them back; the new frontier is a sparse vector of the vertices of the last level. Push
levels walk a queue of frontier vertices (a large frontier's out-edges are split over the
cores and the new frontier is read off a bitmap, so that racing threads pick one parent
each); pull levels scan a shrinking list of unvisited vertices, in parallel where it is
long, each stopping at its first in-neighbour in the frontier, probing first the one with
the most out-edges (found once per graph and cached with it).

Only the semirings of BFS (``any_secondi``: the parent id; ``any_pair``: 1) on int64
vectors run compiled; anything else runs the primitive definition. The first call in a
fresh environment compiles the loops (about 15 s on two cores; numba caches them on disk,
and a later process loads them in about 0.3 s).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from graphblas import Vector
from numba import njit, prange

from ..cpu import csr_arrays, dense_array, host_form, take_bitmap
from ..executor import PULL, PUSH, Executor, LevelStats

#: Frontiers of up to this many vertices are pushed level after level in one compiled call:
#: every level of a road network or grid, the first and last levels of a power-law graph.
SMALL_FRONTIER = 8192
#: Least work (edges to push, unvisited vertices to pull) of a level split over the cores:
#: starting the threads costs microseconds on an idle machine, milliseconds on a busy one.
PARALLEL_WORK = 1 << 16
#: A parallel push level reads its new frontier off a bitmap (an O(n) scan); it runs only
#: where the frontier's out-edges also exceed n / PARALLEL_PUSH.
PARALLEL_PUSH = 16

_NONE = np.zeros(0, dtype=np.int64)      # stands for an absent level vector or degree
_NO_BITS = np.zeros(0, dtype=np.bool_)   # a level bitmap that follows the visited one
_NO_LIMIT = np.iinfo(np.int64).max


@njit(cache=True)
def _set_level(v, k, lbits, lvals):
    """``level(v) = k``; return 1 if ``v`` is a new entry. No level vector: ``lvals`` of
    size 0; a level bitmap of size 0 follows the visited one (copied afterwards)."""
    if lvals.size == 0:
        return 0
    lvals[v] = k
    if lbits.size == 0 or lbits[v]:
        return 0
    lbits[v] = True
    return 1


@njit(cache=True, parallel=True)
def _push_wide(indptr, indices, frontier, visited, parents, secondi, reached):
    """One push level over the cores: ``reached[v]`` for each newly visited ``v``."""
    for i in prange(frontier.size):
        u = frontier[i]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if not visited[v]:     # racing threads may both pass: either parent is valid,
                visited[v] = True  # and v is listed once, off the bitmap
                parents[v] = u if secondi else 1
                reached[v] = True


@njit(cache=True)
def _push_levels(indptr, indices, max_degree, queue, visited, parents, secondi, lbits,
                 lvals, k0, limit, max_levels, in_deg, parallel_work):
    """Push levels ``k0, k0+1, ...`` while ``0 < nq <= limit`` (at most ``max_levels``).

    Returns ``(frontier, last level, new visited, new level entries, in-edges of the
    visited)``; the frontier lists the last level's vertices. The in-edges are summed
    only where the frontier is not empty (the definition reports none then).
    """
    n = visited.size
    order = np.empty(n, dtype=indices.dtype)    # the levels one after the other
    nq = queue.size
    order[:nq] = queue
    head, tail = 0, nq                          # the frontier is order[head:tail]
    k, levels, nlevel = k0 - 1, 0, 0
    while 0 < nq <= limit and levels < max_levels:
        k += 1
        levels += 1
        work = 0
        if nq * max_degree > parallel_work:      # else the level is small whatever it holds
            for i in range(head, tail):
                work += indptr[order[i] + 1] - indptr[order[i]]
        end = tail
        if work > parallel_work and work * PARALLEL_PUSH > n:
            reached = np.zeros(n, dtype=np.bool_)
            _push_wide(indptr, indices, order[head:end], visited, parents, secondi, reached)
            for v in range(n):
                if reached[v]:
                    nlevel += _set_level(v, k, lbits, lvals)
                    order[tail] = v
                    tail += 1
        else:
            for i in range(head, end):
                u = order[i]
                for e in range(indptr[u], indptr[u + 1]):
                    v = indices[e]
                    if not visited[v]:   # (written out: a helper here costs twice)
                        visited[v] = True
                        parents[v] = u if secondi else 1
                        nlevel += _set_level(v, k, lbits, lvals)
                        order[tail] = v
                        tail += 1
        head = end
        nq = tail - head
    vin = 0
    if nq and in_deg.size:
        for i in range(queue.size, tail):
            vin += in_deg[order[i]]
    return order[head:tail].astype(np.int64), k, tail - queue.size, nlevel, vin


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


@njit(cache=True, parallel=True)
def _pull_wide(tptr, tind, heads, unvisited, nu, in_frontier, found):
    """``found[j]``: an in-neighbour of ``unvisited[j]`` in the frontier, or -1."""
    for j in prange(nu):
        found[j] = _first_in(tptr, tind, heads, unvisited[j], in_frontier)


@njit(cache=True)
def _first_in(tptr, tind, heads, v, in_frontier):
    if heads.size and heads[v] >= 0 and in_frontier[heads[v]]:
        return heads[v]
    for e in range(tptr[v], tptr[v + 1]):
        if in_frontier[tind[e]]:
            return tind[e]
    return -1


@njit(cache=True)
def _pull_levels(tptr, tind, heads, queue, visited, parents, secondi, lbits, lvals, k0,
                 min_nq, max_levels, in_deg, parallel_work):
    """Pull levels ``k0, k0+1, ...`` until the frontier is empty, or is no larger than the
    one before and holds fewer than ``min_nq`` vertices (at most ``max_levels``).

    Returns what :func:`_push_levels` returns; the frontier is in ascending order.
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
    nq, k, levels, nvisited, nlevel, vin = queue.size, k0 - 1, 0, 0, 0, 0
    while levels < max_levels:
        k += 1
        levels += 1
        if nu > parallel_work:
            _pull_wide(tptr, tind, heads, unvisited, nu, in_frontier, found)
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
    return cur.copy(), k, nvisited, nlevel, vin


@njit(cache=True)
def _equal(a, b):
    if a.size != b.size:
        return False
    for i in range(a.size):
        if a[i] != b[i]:
            return False
    return True


def _unsigned(a: np.ndarray) -> np.ndarray:
    """An int32 index array seen as uint32 (no copy): numba then indexes with it without
    a test for negative indices, a third of a push level's time."""
    return a.view(np.uint32) if a.dtype == np.int32 else a


def _fusable(semiring, parent, level) -> bool:
    return (semiring in ("any_secondi", "any_pair") and parent.dtype == "INT64"
            and (level is None or level.dtype == "INT64"))


@contextmanager
def _opened(u):
    """Numpy ``[bitmap, values, new entries]`` of ``u`` (``_NONE`` arrays for None);
    packed back into ``u`` on exit with ``nvals`` grown by ``new entries``."""
    if u is None:
        yield [_NONE.astype(bool), _NONE, 0]
        return
    nvals = u.nvals
    state = [*take_bitmap(u), 0]
    try:
        yield state
    finally:
        u.ss.pack_bitmap(bitmap=state[0], values=state[1], nvals=nvals + state[2],
                         take_ownership=True)


def _frontier_vector(n, vertices, parents, secondi) -> Vector:
    """The new frontier: a sparse vector of ``vertices`` holding their parents or 1."""
    if np.any(vertices[1:] < vertices[:-1]):
        vertices = np.sort(vertices)
    if secondi:
        values, iso = parents[vertices], False
    else:
        values, iso = np.ones(1, dtype=np.int64), True
    return Vector.ss.import_sparse(size=n, indices=vertices, values=values, is_iso=iso,
                                   sorted_index=True, take_ownership=True)


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

    def bfs_level(self, A, AT, frontier, parent, level, k, method, semiring, degrees=None):
        # one pull level runs as defined: SuiteSparse's pull exits early too, and the
        # compiled pull's list of unvisited vertices (O(n)) pays off over several levels
        if method != PUSH or not _fusable(semiring, parent, level):
            return super().bfs_level(A, AT, frontier, parent, level, k, method, semiring,
                                     degrees)
        frontier, _, stats = self._run(PUSH, A, frontier, parent, level, k, semiring, 1,
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
        ``(frontier, last level, stats)``."""
        queue = frontier.to_coo(values=False)[0].view(np.int64)
        if method == PUSH and not 0 < queue.size <= bound:
            return Executor.bfs_push_levels(self, M, frontier, parent, level, k, semiring,
                                            bound, degrees)
        indptr, indices = (_unsigned(a) for a in csr_arrays(M))
        out_deg, in_deg = ((_NONE, _NONE) if degrees is None
                           else (dense_array(degrees[0]), dense_array(degrees[1])))
        secondi = semiring == "any_secondi"
        if method == PUSH:
            max_degree = host_form(M, "max_degree", lambda: int(np.diff(indptr).max()))
            loop, args = _push_levels, (indptr, indices, max_degree, queue)
        else:
            heads = _NONE if A is None else host_form(
                M, "pull_heads",
                lambda: _pull_heads(indptr, indices, _unsigned(csr_arrays(A)[0])))
            loop, args = _pull_levels, (indptr, indices, heads, queue)
        with _opened(parent) as p, _opened(level) as lv:
            # in a BFS the level bitmap is the visited one: copy it once, after the loop
            follows = level is not None and _equal(lv[0], p[0])
            q, last_k, p[2], lv[2], vin = loop(
                *args, p[0], p[1], secondi, _NO_BITS if follows else lv[0], lv[1], k,
                int(bound) if method == PUSH else float(bound), max_levels, in_deg,
                self.parallel_work)
            if follows:
                lv[0][:] = p[0]
                lv[2] = p[2]
            new = _frontier_vector(p[0].size, q, p[1], secondi)
        fe = int(out_deg[q].sum()) if degrees is not None else 0
        return new, last_k, _stats(method, q.size, fe, vin, degrees)
