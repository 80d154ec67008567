"""The BFS group step of the fused cpu executor: the whole search as one compiled call.

:meth:`BfsSteps.bfs_search` runs what the text of :mod:`lagraph_py.algorithms.bfs`
stands for (push and pull levels, the direction rule between them, the dense results) in
one call of :func:`_search`, on the Graph's CSR arrays (and its transpose's, for pull
levels on a directed graph), with no python and no allocation between levels:

- a push (top-down) level walks a FIFO of frontier vertices that holds the levels in
  order, appending each vertex it visits (on a large graph, a level of few vertices first
  prefetches their row pointers and rows); on one core, or, on a graph of many vertices
  where the frontier's out-edges are many, on every core over slices of the frontier of
  equal edge counts, marking what it visits in a byte map that then gives the next
  frontier, ascending, without repeats;
  on a large graph, where the frontier has many vertices but too few edges for that pass
  over the byte map (road maps, grids), on every core over equal slices, each core
  listing what it visits in its own queue, the queues then joined without repeats;
- a pull (bottom-up) level goes over a bitmap of the unvisited vertices that have
  in-edges (64 a word, skipping empty words), each stopping at its first in-neighbour in
  the frontier (a bitmap), probing first its in-neighbour of most out-edges (a hub, likely
  in the frontier; found once per graph and cached with it); on every core where it
  probes many edges, each core taking every other block of words, which it alone writes;
- the direction: where the text's rule would pull (a growing frontier whose out-edges
  exceed the in-edges of the unvisited over :data:`~lagraph_py.algorithms.bfs.ALPHA`),
  the search estimates the in-edges a pull level would probe, from a sample of vertices,
  and pulls only if they are fewer than the frontier's out-edges, which a push level
  scans; it goes back to push where the text's rule would (a shrinking frontier of under
  n / :data:`~lagraph_py.algorithms.bfs.BETA` vertices), or once a pull level probed more
  edges than the new frontier has. The counts are kept in the loop, and the queue turns
  into a bitmap and back only where the direction changes.

Parents and levels are written once per vertex reached; -1 goes to the others before the
search (the outputs filled) where the graph's last search reached fewer than half its
vertices or the graph is small (:data:`FILL_AFTER`), else after it, at the vertices that the
visited byte map does not hold, so that a search reaching most of a graph writes its outputs
once, not twice (a road map, a grid: 16 bytes a vertex fewer). The visited byte map says
what is taken (racing cores may both take a vertex in a push level: either parent is valid,
and the later write stays). The work arrays are made once per graph (:class:`_Scratch`).
Queue positions, CSR arrays and bitmaps are unsigned in the loops (numba then indexes
without a test for negative indices); counts of vertices and edges are int64. The first call
in a fresh environment compiles the loops (about 15 s with the parallel ones; numba caches
them on disk, and a later process loads them in about 0.5 s).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from .._checks import as_source, check_search_outputs
from ..algorithms.bfs import ALPHA, BETA
from ..cpu import as_unsigned
from ..executor import PULL, PUSH
from .prefetch import prefetch

#: Least frontier out-edges of a push level split over the cores, and least in-edges a pull
#: level probes (its last level's count, else the estimate) for it to be: starting the
#: threads costs microseconds on an idle machine, milliseconds on a busy one, and a
#: parallel push level also gathers its new frontier from a byte map. A pull level, whose
#: probes mostly wait on memory, gains from a second core's loads sooner (2^13 against
#: 2^16: co-author network of 23k vertices 355 against 447 µs, email network 268 against
#: 316 µs; on both cores).
PARALLEL_WORK = 1 << 16
PARALLEL_PROBES = 1 << 13
#: A parallel push level reads its new frontier off a byte map (a pass over n bytes, 8 at
#: a time): it runs only where the frontier's out-edges also exceed n / PARALLEL_PUSH, and
#: only on a graph of at least PARALLEL_PUSH_VERTICES vertices. Both cores write the
#: visited map, the parents and the levels at random vertices; on a smaller graph they
#: write the same cache lines so often that the second core costs more than it does (2
#: cores, medians of 64-256 sources: a 60k-vertex web crawl of 3.6M stored entries 0.78-
#: 0.86 ms on one core's push levels against 1.6-5.0 ms with parallel ones; uk-2007-05 at
#: 100k vertices 1.6-1.9 against 2.0-2.1 ms; soc-Slashdot0902, cit-HepTh and email-Enron
#: as fast or faster; cnr-2000, of 325k vertices, 6.6 against 7.2-8.6 ms the other way).
PARALLEL_PUSH = 16
PARALLEL_PUSH_VERTICES = 1 << 18
#: On a graph of at least QUEUE_MIN_VERTICES vertices, a push level of fewer frontier
#: edges, but of at least QUEUE_NQ frontier vertices, runs on every core too, each core
#: listing what it visits in its own queue (:func:`_push_level_queues`): the levels of
#: road maps and grids, thousands of them, of a few thousand vertices each. Only where
#: the graph's arrays outgrow the caches does a level's work (waits on memory) cover the
#: thread start and the second core's cache misses on what the first one wrote (2 cores,
#: median of 16 sources: road map of 1.07M vertices 22.7 -> 19.4 ms, 1000 x 1000 grid
#: 15.9 -> 15.0-16.2 ms; road maps of 264k-436k vertices 2-4% slower at 1024, up to 70% at
#: 256 vertices a level).
QUEUE_NQ = 1024
QUEUE_MIN_VERTICES = 1 << 19
#: Push levels run without a branch per edge (:func:`_push_level`) on a graph of fewer
#: stored entries per vertex than BRANCHLESS_DEGREE, and on one of fewer than
#: BRANCHY_DEGREE whose degrees are spread (a vertex of over REGULAR_SPREAD times the mean
#: entries). Whether an edge finds a new vertex follows no pattern a branch predictor
#: learns on irregular graphs: road-like graphs of 2.4-3.2 entries per vertex searched
#: 25-45% faster (115k vertices: 1.45 against 2.1 ms; 3k: 27 against 38 µs), power-law and
#: uniform random ones up to 1.37 times (2 cores, 256 distinct sources, parents only:
#: p2p-Gnutella08 68 against 53 µs, p2p-Gnutella24 1.19-1.25, ca-CondMat 1.16-1.23,
#: uniform random of mean degree 8 and 16 1.37 and 1.27, wiki-Vote, Lederberg, citation
#: and email networks, web-Stanford 1.03-1.11, Kronecker 12-18 and cnr-2000 0.99-1.15).
#: On regular grids and meshes (the greatest degree 1.0-1.05 times the mean) the test is
#: predictable and the edges' stores cost more (grid 55 x 55: 22 against 13 µs; 20^3
#: mesh 72 against 44 µs), and so on dense graphs of cliques and ego networks (SSCA#2 13:
#: 33 entries a vertex, spread 1.5, 24 against 16 µs; facebook-combined: 44 entries a
#: vertex, 61 against 45 µs). (The same source searched again and again trains the
#: branch predictor to the graph: time from distinct sources.)
BRANCHLESS_DEGREE = 3.5
BRANCHY_DEGREE = 32
REGULAR_SPREAD = 1.5
#: Where the text's rule would pull, the search first estimates the in-edges the pull level
#: would probe from this many vertices spread over the ids (n / 64 on graphs of fewer than
#: 64 times as many vertices), and pulls only if they are fewer than the frontier's
#: out-edges, which a push level would scan; likewise it goes back to push where the last
#: pull level probed more edges than the new frontier has. A pull level probes from one
#: edge per unvisited vertex, on a Kronecker graph, whose unvisited vertices mostly
#: neighbour a hub of the frontier, to most of their edges, on a web crawl or a social
#: network, where the text's rule alone pulls at 2-3 times a push level's cost (cnr-2000:
#: 3.7 against 1.2 ms, one core). A sample costs about what a push level's edge does,
#: several of them, so small graphs take fewer (n / 64 against n / 16: wb-cs-stanford,
#: 10k vertices, 110-112 against 115-116 µs, Lederberg 103-107 against 114, peer-to-peer,
#: co-author, citation and email networks of 6k-37k vertices 2-10% faster; subgraphs of
#: uk-2007-05 of 20k-60k vertices within 3%; 2 cores, medians of 256 sources); uk-2007-05
#: at 100k vertices needs its 1024 (781 made it 14-21% slower).
PULL_SAMPLES = 1024
SAMPLED_SHARE = 64
#: What a pull level's probe of an in-edge costs, in edges a push level scans (on one core,
#: 1.2 ns a probe against 1-3.5 ns an edge pushed, by the graph's locality).
PROBE_COST = 1
#: Words (64 vertices each) of the bitmaps a core takes at a time in a parallel pull level;
#: the cores take every other block, so that a range of costly vertices is shared.
PULL_BLOCK = 16
#: On a graph of at least PREFETCH_VERTICES vertices, a push level of at most
#: PREFETCH_FRONTIER frontier vertices (on one core, or a core's share of one) first asks
#: for their row pointers, then for their rows, in two passes of prefetches
#: (:func:`_ask_rows`), so that the level does not wait on those two loads one after the
#: other at each vertex: the levels of road maps, whose ids are not in the order of the
#: roads (one core, medians of 256 sources: USA-road-COL 8.1-10.8 -> 5.4-6.7 ms,
#: USA-road-NY 2.9-5.0 -> 2.8-4.3 ms; luxembourg_osm, whose ids follow the roads, as
#: fast; 2 cores: USA-road-FLA 20.7-20.9 -> 16.6-17.9 ms, the 1000 x 1000 grid 16.5-17.1
#: -> 13.9-15.8 ms). On a smaller graph, in the caches already, the passes cost more than
#: they save (wb-cs-stanford, 10k vertices: 109 -> 114 µs). The same prefetches inside the
#: level's loop made it slower (luxembourg_osm 0.9 -> 1.9 ms): any work added there did.
PREFETCH_FRONTIER = 4096
PREFETCH_VERTICES = 1 << 17
#: On a graph of at least FILL_AFTER vertices, a search writes -1 at the vertices it did
#: not reach after it, not before, where the graph's last search reached at least half of
#: them (module docstring), and counts them for the next: on a smaller graph the pass that
#: counts costs a search of a small reach more than the fill saves (peer-to-peer graph of
#: 63k vertices: 1-2 µs of 25 µs), on larger ones the fill is the cost (1000 x 1000 grid,
#: 2 cores: 18.2-18.4 against 19.4-22.1 ms).
FILL_AFTER = 1 << 16

_AUTO, _PUSH, _PULL = 0, 1, 2
_METHODS = {"auto": _AUTO, PUSH: _PUSH, PULL: _PULL}
_ONE = np.uint64(1)                      # (unsigned arithmetic in the compiled loops)
_WORD = np.uint64(64)
_PACK = np.uint64(0x0102040810204080)    # (w * _PACK) >> 56: the low bits of w's 8 bytes
_BYTES = np.uint64(0x0101010101010101)   # (w * _BYTES) >> 56: the sum of w's 8 bytes (0/1)
_UNBOUNDED = np.iinfo(np.int64).max     # (a sample that runs whole)


@njit(cache=True, inline="always")
def _visit(v, u, k, visited, parents, levels):
    """Mark ``v`` visited from ``u`` at level ``k`` (an output not asked for is None:
    numba compiles the loops without its test)."""
    visited[v] = True
    if parents is not None:
        parents[v] = u
    if levels is not None:
        levels[v] = k


@njit(cache=True, inline="always")
def _ask_rows(indptr, indices, order, first, last):
    """Prefetch the row pointers, then the rows, of the frontier vertices
    ``order[first:last]`` if they are at most :data:`PREFETCH_FRONTIER` and the graph has
    :data:`PREFETCH_VERTICES` vertices or more."""
    if last - first > PREFETCH_FRONTIER or indptr.size <= PREFETCH_VERTICES:
        return
    for i in range(first, last):
        prefetch(indptr, order[i])
    for i in range(first, last):
        prefetch(indices, indptr[order[i]])


@njit(cache=True, inline="always")
def _push_slice(indptr, indices, order, first, last, queue, tail, visited, parents, levels,
                k, reached):
    """Push the frontier vertices ``order[first:last]``: append each vertex they visit to
    ``queue`` from ``tail`` on and return the new tail, or, given a byte map ``reached``
    (cores pushing slices of one frontier), mark it there."""
    _ask_rows(indptr, indices, order, first, last)
    for i in range(first, last):
        u = order[i]
        for e in range(indptr[u], indptr[u + _ONE]):
            v = indices[e]
            if not visited[v]:
                _visit(v, u, k, visited, parents, levels)
                if reached is None:
                    queue[tail] = v
                    tail += _ONE
                else:
                    reached[v] = True
    return tail


@njit(cache=True, inline="always")
def _push_level(indptr, indices, order, head, end, visited, parents, levels, k, branchless,
                porder):
    """Push the frontier ``order[head:end]`` one level on one core, appending the vertices
    it visits to ``order`` from ``end`` on; return the new end.

    A vertex is tested and taken in one branch (:func:`_push_slice`), or, ``branchless``
    (:data:`BRANCHLESS_DEGREE` and the two constants after it say where that pays), the
    edges run without a branch: each edge's head and tail are written at ``tail`` in
    ``order`` and ``porder`` (both one slot longer than there are vertices), ``tail``
    moving on only for a new vertex, and the parents and levels are set afterwards from
    ``porder``.
    """
    if not branchless:
        return _push_slice(indptr, indices, order, head, end, order, end, visited, parents,
                           levels, k, None)
    _ask_rows(indptr, indices, order, head, end)
    tail = end
    for i in range(head, end):
        u = order[i]
        for e in range(indptr[u], indptr[u + _ONE]):
            v = indices[e]
            new = not visited[v]
            visited[v] = True
            order[tail] = v
            porder[tail] = u
            tail += np.uint64(new)
    for i in range(end, tail):
        _visit(order[i], porder[i], k, visited, parents, levels)
    return tail


@njit(cache=True)
def _push_levels(indptr, indices, order, head, end, visited, parents, levels, k, branchless,
                 porder, nq, growing, todo_count, max_degree, push_work, queue_nq, rule):
    """Push levels ``k + 1, k + 2, ...`` on one core from the frontier ``order[head:end]``
    (``nq`` vertices, ``growing`` or not): one, then on while the frontier neither may
    have over ``push_work`` out-edges nor, where the rule is weighed (``rule``) and the
    frontier grows, more than ``todo_count`` (the unvisited vertices with in-edges), the
    cheapest pull level, nor is one that :func:`_push_level_queues` takes (``queue_nq``
    vertices or more, of :func:`_queue_fits`). Returns ``(head, end, k, nq, growing,
    todo_count)``."""
    while True:
        k += 1
        tail = _push_level(indptr, indices, order, head, end, visited, parents, levels, k,
                           branchless, porder)
        last_nq, nq = nq, np.int64(tail - end)
        todo_count -= nq
        head, end, growing = end, tail, nq > last_nq
        if (nq == 0 or nq * max_degree > push_work
                or rule and growing and nq * max_degree > todo_count
                or nq >= queue_nq and _queue_fits(nq, max_degree, porder)):
            return head, end, k, nq, growing, todo_count


@njit(cache=True, inline="always")
def _queue_fits(nq, max_degree, spill):
    """Whether a frontier of ``nq`` vertices fits :func:`_push_level_queues`'s stretches
    of ``spill``."""
    return nq * max_degree <= spill.size


@njit(cache=True, parallel=True)
def _push_level_parallel(indptr, indices, order, bounds, visited, reached, parents, levels,
                         k):
    """Push the frontier over every core, core ``c`` taking the vertices
    ``order[bounds[c]:bounds[c + 1]]``; mark each vertex visited in ``reached`` (racing
    cores may both take one: either parent is valid, and the byte map lists it once)."""
    for c in prange(bounds.size - 1):
        _push_slice(indptr, indices, order, bounds[c], bounds[c + 1], order, _ONE, visited,
                    parents, levels, k, reached)


@njit(cache=True, parallel=True)
def _push_level_queues(indptr, indices, order, head, end, visited, parents, levels, k,
                       spill, max_degree, counts):
    """Push the frontier ``order[head:end]`` over ``counts.size`` cores, core ``c`` taking
    the ``c``-th of equal slices and appending what it visits to its own stretch of
    ``spill`` (``max_degree`` slots a frontier vertex), ``counts[c]`` of them (racing
    cores may both take a vertex: either parent is valid, and both list it)."""
    cores = counts.size
    nq = end - head
    for c in prange(cores):
        first = head + nq * c // cores
        start = (first - head) * max_degree
        counts[c] = _push_slice(indptr, indices, order, first, head + nq * (c + 1) // cores,
                                spill, start, visited, parents, levels, k, None) - start


@njit(cache=True)
def _gather_queues(order, head, end, tail, spill, max_degree, counts, reached):
    """Append the vertices that :func:`_push_level_queues` listed in ``spill`` to ``order``
    from ``tail`` on, each once (``reached``, a byte map left clear, drops a repeat);
    return the new tail."""
    cores = counts.size
    nq = end - head
    first = tail
    for c in range(cores):
        start = nq * c // cores * max_degree
        for i in range(start, start + counts[c]):
            v = spill[i]
            if not reached[v]:
                reached[v] = True
                order[tail] = v
                tail += _ONE
    for i in range(first, tail):
        reached[order[i]] = False
    return tail


@njit(cache=True)
def _edge_slices(indptr, order, head, end, work, cores):
    """Bounds of ``cores`` consecutive slices of ``order[head:end]`` with about equal
    out-edges (``work`` in all)."""
    bounds = np.full(cores + 1, end, dtype=np.uint64)
    bounds[0] = head
    c, done = 1, 0
    for i in range(head, end):
        if c == cores:
            break
        if done * cores >= work * c:
            bounds[c] = i
            c += 1
        u = order[i]
        done += np.int64(indptr[u + _ONE] - indptr[u])
    return bounds


@njit(cache=True)
def _collect(reached, order, tail):
    """Append the vertices marked in the byte map ``reached`` (a multiple of 8 long) to
    ``order`` from ``tail`` on, ascending, clearing the map; return the new tail."""
    words = reached.view(np.uint64)
    for w in range(words.size):
        if words[w]:                        # (eight zero bytes at a time)
            for v in range(w * 8, w * 8 + 8):
                if reached[v]:
                    reached[v] = False
                    order[tail] = v
                    tail += _ONE
    return tail


@njit(cache=True, inline="always")
def _first_in(tptr, tind, heads, front, u, none):
    """``(p, probes)``: ``p`` the first in-neighbour of ``u`` in the bitmap ``front``, its
    ``heads`` entry first (``none`` if there is none), found in ``probes`` tests."""
    p = np.uint64(heads[u])
    if front[p >> 6] >> (p & 63) & _ONE:
        return p, 1
    start, stop = tptr[u], tptr[u + _ONE]
    e = start
    while e < stop:
        v = np.uint64(tind[e])
        e += _ONE
        if front[v >> 6] >> (v & 63) & _ONE:
            return v, np.int64(e - start) + 1
    return none, np.int64(e - start) + 1


@njit(cache=True)
def _pull_cost(tptr, tind, heads, front, visited, samples, enough):
    """The in-edges a pull level from the bitmap ``front`` would probe, estimated from
    ``samples`` vertices spread evenly over the ids (the unvisited among them probing as
    a pull level would); the sample stops once the estimate reaches ``enough`` (the
    search then pushes, whatever the rest would add; from a frontier too small to pull
    from, the sampled vertices probe their whole in-lists)."""
    n = tptr.size - 1
    none = np.uint64(n)
    probes = 0
    for i in range(samples):
        u = np.uint64((2 * i + 1) * n // (2 * samples))
        if not visited[u] and tptr[u + _ONE] > tptr[u]:
            probes += _first_in(tptr, tind, heads, front, u, none)[1]
            if probes * n // samples >= enough:
                break
    return probes * n // samples


@njit(cache=True, inline="always")
def _pull_words(indptr, tptr, tind, heads, has_in, first, last, fresh, todo, front, nxt,
                visited, parents, levels, k):
    """One pull level over the vertices of bitmap words ``first:last``: each vertex of
    ``todo`` (unvisited, with in-edges) with an in-neighbour in ``front`` is visited from
    the first such, its ``heads`` entry first, and moves from ``todo`` to ``nxt``.
    ``fresh``: ``todo`` is yet to be made, from ``has_in`` (the vertices with in-edges)
    and ``visited`` (a byte map, 64 bytes a word). Returns the vertices visited, their
    in-edges and out-edges, and the in-edges probed."""
    none = np.uint64(tptr.size - 1)
    seen8 = visited.view(np.uint64)
    awake, vin, vout, probes = 0, 0, 0, 0
    for w in range(first, last):
        if fresh:
            seen = np.uint64(0)
            for j in range(8):              # 8 bytes of 0 or 1 -> 8 bits, by a multiply
                seen |= (seen8[w * 8 + j] * _PACK >> np.uint64(56)) << np.uint64(8 * j)
            todo[w] = has_in[w] & ~seen
        rest, found = todo[w], np.uint64(0)
        while rest:
            bit = trailing_zeros(rest)
            rest &= rest - _ONE
            u = np.uint64(w * 64) + bit
            p, cost = _first_in(tptr, tind, heads, front, u, none)
            probes += cost
            if p < none:
                _visit(u, p, k, visited, parents, levels)
                found |= _ONE << bit
                awake += 1
                vin += np.int64(tptr[u + _ONE] - tptr[u])
                vout += np.int64(indptr[u + _ONE] - indptr[u])
        todo[w] ^= found
        nxt[w] = found
    return awake, vin, vout, probes


@njit(cache=True)
def _pull_level(indptr, tptr, tind, heads, has_in, fresh, todo, front, nxt, visited,
                parents, levels, k):
    """:func:`_pull_words` over every word, on one core."""
    return _pull_words(indptr, tptr, tind, heads, has_in, 0, nxt.size, fresh, todo, front,
                       nxt, visited, parents, levels, k)


@njit(cache=True, parallel=True)
def _pull_level_parallel(indptr, tptr, tind, heads, has_in, fresh, todo, front, nxt,
                         visited, parents, levels, k, block, cores):
    """:func:`_pull_words` over ``cores`` cores, each taking every ``cores``-th block of
    ``block`` words."""
    words = nxt.size
    nblocks = (words + block - 1) // block
    awake, vin, vout, probes = 0, 0, 0, 0
    for c in prange(cores):
        for b in range(c, nblocks, cores):
            a, i, o, p = _pull_words(indptr, tptr, tind, heads, has_in, b * block,
                                     min(b * block + block, words), fresh, todo, front,
                                     nxt, visited, parents, levels, k)
            awake += a
            vin += i
            vout += o
            probes += p
    return awake, vin, vout, probes


@njit(cache=True, parallel=True)
def _pull_heads(tptr, tind, indptr):
    """For each vertex, its in-neighbour with the most out-edges (0 if none), a pull's
    first probe, since a hub is likely in the frontier; and the bitmap of the vertices
    with in-edges."""
    n = tptr.size - 1
    heads = np.zeros(n, dtype=tind.dtype)
    for v in prange(n):
        most = 0
        for e in range(tptr[v], tptr[v + 1]):
            u = tind[e]
            if indptr[u + 1] - indptr[u] > most:
                most = indptr[u + 1] - indptr[u]
                heads[v] = u
    has_in = np.zeros((n + 63) // 64, dtype=np.uint64)
    for w in prange(has_in.size):
        for u in range(w * 64, min(w * 64 + 64, n)):
            if tptr[u + 1] > tptr[u]:
                has_in[w] |= _ONE << np.uint64(u - w * 64)
    return heads, has_in


@njit(cache=True)
def _queue_to_bitmap(order, head, end, front):
    """``front`` (cleared first) marks the vertices ``order[head:end]``."""
    front[:] = 0
    for i in range(head, end):
        v = np.uint64(order[i])
        front[v >> 6] |= _ONE << (v & 63)


@njit(cache=True)
def _edge_sum(ptr, order, first, last):
    """Stored entries of the rows ``order[first:last]`` of the CSR ``ptr``."""
    total = 0
    for i in range(first, last):
        v = order[i]
        total += np.int64(ptr[v + _ONE] - ptr[v])
    return total


@njit(cache=True)
def _finish_outputs(visited, n, parents, levels, filled):
    """How many of the ``n`` vertices ``visited`` holds; unless the outputs were
    ``filled`` with -1 before the search, -1 written at the others (the search wrote the
    entries of every vertex it visited)."""
    words = visited.view(np.uint64)
    count = 0
    for w in range(words.size):
        here = np.int64((words[w] * _BYTES) >> np.uint64(56))
        count += here
        if filled or here == 8:
            continue
        for v in range(w * 8, min(n, w * 8 + 8)):
            if here == 0 or not visited[v]:       # (eight unreached: no test each)
                if parents is not None:
                    parents[v] = -1
                if levels is not None:
                    levels[v] = -1
    return count


@njit(cache=True)
def _search(indptr, indices, tptr, tind, heads, has_in, with_in, symmetric, s, parents,
            levels, bytemaps, queues, bitmaps, reach, method, branchless, max_degree, alpha,
            beta, samples, probe_cost, push_work, queue_nq, pull_work, pull_block, cores,
            fill_after):
    """BFS from ``s`` (``method``: ``_AUTO``, ``_PUSH`` or ``_PULL``): fill ``parents``
    and ``levels`` (None: not asked for), -1 where unreached.

    ``tptr, tind`` is the CSR of the transpose (the same arrays on an undirected graph:
    ``symmetric``), ``heads``, ``has_in`` and ``with_in`` what pull levels read besides
    (:class:`_Pull`; empty if ``method`` is ``_PUSH``); ``bytemaps``, ``queues``,
    ``bitmaps`` and ``reach`` the work arrays (:class:`_Scratch`); ``max_degree`` the most
    out-edges of a vertex. ``alpha``, ``beta``, ``samples`` and ``probe_cost`` weigh the
    direction rule; a push level of over ``push_work`` frontier edges and a pull level of
    over ``pull_work`` probes (the last level's, else the estimate) run on ``cores`` cores,
    a pull level in blocks of ``pull_block`` words; on a graph of ``fill_after`` vertices or
    more the outputs' -1 may come after the search (module docstring). The rule's counts are
    taken only where it is weighed, for a growing frontier that may have more out-edges than
    a pull level costs at least (a probe for each unvisited vertex with in-edges:
    ``todo_count``): its out-edges, and the in-edges of the vertices the queue gained since
    the last count (``counted``; on a symmetric graph the out-edges again).
    """
    n = np.uint64(indptr.size - 1)
    nv = np.int64(n)
    s = np.uint64(s)
    visited, reached = bytemaps[0], bytemaps[1]
    visited[:] = False
    measured = nv >= fill_after                   # (the reach counted for the next search)
    filled = not measured or reach[0] * 2 < nv    # (the last search reached under half)
    if filled and parents is not None:
        parents[:] = -1
    if filled and levels is not None:
        levels[:] = -1
    order = queues[0]                                     # the levels in order
    porder = queues[1]                      # (parents, if branchless; or cores' queues)
    counts = np.zeros(cores, dtype=np.int64)
    todo, front, nxt = bitmaps[0], bitmaps[1], bitmaps[2]
    fresh = True
    _visit(s, s, 0, visited, parents, levels)
    order[0] = s
    head, end, counted, pushed = np.uint64(0), _ONE, np.uint64(0), np.uint64(0)
    unexplored = np.int64(tptr[n])                        # in-edges of the unvisited
    nq, k, growing, pulling = 1, 0, True, method == _PULL
    todo_count = with_in - np.int64(tptr[s + _ONE] > tptr[s])   # unvisited, with in-edges
    frontier_edges = -1                                   # out-edges (-1: not counted)
    probes = nv                                           # of a pull level (a bound)
    per_todo = 1.0                                        # its probes per unvisited vertex
    while nq:
        # a pull level costs a probe per unvisited vertex with in-edges at least (per_todo
        # as last estimated), and the making (or a scan) of their bitmap; the frontier has
        # at most nq * max_degree out-edges
        scan = nv // (8 if fresh else 64)
        least = (np.int64(per_todo * todo_count) + scan) * probe_cost
        if method == _AUTO and not pulling and growing and nq * max_degree > least:
            frontier_edges = _edge_sum(indptr, order, head, end)
            if symmetric and counted <= head:     # (in-edges are out-edges: one pass)
                unexplored -= _edge_sum(indptr, order, counted, head) + frontier_edges
            else:
                unexplored -= _edge_sum(tptr, order, counted, end)
            counted = end
            if frontier_edges > least and frontier_edges * alpha > unexplored:
                # the text's rule, and a pull may cost less: estimate what it costs
                _queue_to_bitmap(order, head, end, front)
                # (the sample may stop at the probes where a pull costs what a push does)
                tie = -(-frontier_edges // probe_cost) - scan if probe_cost else _UNBOUNDED
                sampled = _pull_cost(tptr, tind, heads, front, visited, samples, tie)
                per_todo = max(1.0, sampled / max(todo_count, 1))
                probes = sampled + scan
                pulling = probes * probe_cost < frontier_edges
                if pulling:
                    head = end
        if pulling:
            k += 1
            if not fresh:                       # taken off todo: the vertices pushed since
                for i in range(pushed, end):
                    v = np.uint64(order[i])
                    todo[v >> 6] &= ~(_ONE << (v & 63))
            if head < end:                                 # a queue becomes a bitmap
                _queue_to_bitmap(order, head, end, front)
                head = end
            if probes > pull_work:                  # (the last level's, or estimated)
                awake, vin, frontier_edges, probes = _pull_level_parallel(
                    indptr, tptr, tind, heads, has_in, fresh, todo, front, nxt, visited,
                    parents, levels, k, pull_block, cores)
            else:
                awake, vin, frontier_edges, probes = _pull_level(
                    indptr, tptr, tind, heads, has_in, fresh, todo, front, nxt, visited,
                    parents, levels, k)
            front, nxt = nxt, front
            fresh = False
            unexplored -= vin
            last_nq, nq = nq, awake
            todo_count -= nq
            if method == _AUTO and (nq == 0 or nq <= last_nq and nq * beta < nv
                                    or frontier_edges < probes * probe_cost):
                pulling, growing = False, False           # back to push: a queue
                for w in range(front.size):
                    rest = front[w]
                    while rest:
                        order[end] = np.uint64(w * 64) + trailing_zeros(rest)
                        end += _ONE
                        rest &= rest - _ONE
                counted = pushed = end
            continue
        if frontier_edges < 0 and nq * max_degree > push_work:
            frontier_edges = _edge_sum(indptr, order, head, end)
        if frontier_edges > push_work or nq >= queue_nq and _queue_fits(nq, max_degree,
                                                                        porder):
            k += 1
            if frontier_edges > push_work:
                bounds = _edge_slices(indptr, order, head, end, frontier_edges, cores)
                _push_level_parallel(indptr, indices, order, bounds, visited, reached,
                                     parents, levels, k)
                tail = _collect(reached, order, end)
            else:
                _push_level_queues(indptr, indices, order, head, end, visited, parents,
                                   levels, k, porder, max_degree, counts)
                tail = _gather_queues(order, head, end, end, porder, max_degree, counts,
                                      reached)
            last_nq, nq = nq, np.int64(tail - end)
            todo_count -= nq
            head, end, growing = end, tail, nq > last_nq
        else:                                 # (the levels that need no decision, at once)
            head, end, k, nq, growing, todo_count = _push_levels(
                indptr, indices, order, head, end, visited, parents, levels, k, branchless,
                porder, nq, growing, todo_count, max_degree, push_work, queue_nq,
                method == _AUTO)
        frontier_edges = -1
    if measured:
        reach[0] = _finish_outputs(visited, nv, parents, levels, filled)


class _Csr(NamedTuple):
    """A Graph's CSR as :func:`_search` reads it, cached with the Graph."""

    indptr: np.ndarray      #: unsigned views of the Graph's arrays (no copy)
    indices: np.ndarray
    max_degree: int         #: the most entries of a row

    @classmethod
    def of(cls, G) -> _Csr:
        return cls(*as_unsigned(G.indptr, G.indices), int(np.diff(G.indptr).max(initial=0)))


class _Pull(NamedTuple):
    """What pull levels read besides the CSR (:func:`_pull_heads`), cached with a Graph."""

    heads: np.ndarray       #: each vertex's in-neighbour of most out-edges
    has_in: np.ndarray      #: bitmap of the vertices with in-edges
    with_in: int            #: how many they are

    @classmethod
    def of(cls, A: _Csr, AT: _Csr) -> _Pull:
        return cls(*_pull_heads(AT.indptr, AT.indices, A.indptr),
                   int(np.count_nonzero(np.diff(AT.indptr))))


_PLANS = ("cpu.bfs.push", "cpu.bfs")     # (the Graph's cache keys of :class:`_Plan`)
_NO_PULL = {size: _Pull(np.zeros(0, dtype=f"u{size}"), np.zeros(0, dtype=np.uint64), 0)
            for size in (4, 8)}           # (for a search that never pulls)


class _Scratch(NamedTuple):
    """The work arrays of :func:`_search` on one Graph, cached with it: made once, since
    the pages of a fresh array cost more to touch than a search of a few milliseconds
    takes to fill them (and freeing several large arrays at once returns them to the
    system)."""

    bytemaps: np.ndarray    #: visited and reached, a byte a vertex (n rounded up to 64)
    queues: np.ndarray      #: the queue of vertices and, branchless, their parents
    bitmaps: np.ndarray     #: todo, front and next of pull levels
    reach: np.ndarray       #: how many vertices the last search reached (one word)

    @classmethod
    def of(cls, G) -> _Scratch:
        words = (G.n + 63) // 64
        return cls(np.zeros((2, 64 * words), dtype=np.bool_),
                   np.empty((2, G.n + 1), dtype=f"u{G.indices.itemsize}"),
                   np.empty((3, words), dtype=np.uint64), np.zeros(1, dtype=np.int64))


class _Plan(NamedTuple):
    """What :func:`_search` reads of one Graph, for searches that may pull or for push
    alone, gathered once and cached with it: a call on a small graph takes microseconds,
    as many as looking each part up again would."""

    arrays: tuple           #: the CSR, the transpose's, :class:`_Pull` (empty: push) and
    #: whether the transpose is the CSR itself (an undirected graph, or a push)
    work: _Scratch
    max_degree: int
    n: int
    nstored: int

    @classmethod
    def of(cls, G, pulls: bool) -> _Plan:
        A = G._cached("cpu.bfs.csr", lambda: _Csr.of(G))
        AT = A
        if G.directed and pulls:            # pull levels read the in-edges
            AT = G._cached("cpu.bfs.csr.T", lambda: _Csr.of(G.transpose()))
        pull = (G._cached("cpu.bfs.pull", lambda: _Pull.of(A, AT)) if pulls
                else _NO_PULL[A.indices.itemsize])
        return cls((A.indptr, A.indices, AT.indptr, AT.indices, *pull, AT is A),
                   G._cached("cpu.bfs.scratch", lambda: _Scratch.of(G)), A.max_degree,
                   G.n, G.nstored)


class BfsSteps:
    """The BFS group step of :class:`~lagraph_py.cpu_steps.FusedCpuExecutor`.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> lg.bfs(lg.generate.grid(2, 3), 0).level      # backend="cpu" runs this step
    array([0, 1, 2, 1, 2, 3])
    """

    def bfs_search(self, G, source, method, levels, parents):
        """The whole search as :meth:`Executor.bfs_search` defines it, in one compiled
        call (:func:`_search`).

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> FusedCpuExecutor().bfs_search(lg.generate.grid(2, 2), 0, "auto", True, True)
        (array([0, 1, 1, 2]), array([0, 0, 0, 1]))
        """
        # both outputs in one block, freed at once: two large arrays freed together make
        # the C allocator give their pages back, and the next call pays to touch new ones
        # (Kronecker 18: 1.7 ms, against 0.1 ms to fill reused memory)
        out = np.empty((int(levels) + int(parents), G.n), dtype=np.int64)
        level = out[0] if levels else None
        parent = out[-1] if parents else None
        self._search_into(G, source, method, level, parent)
        return level, parent

    def bfs_search_into(self, G, source, method, level, parent) -> None:
        """:meth:`bfs_search` writing its outputs into the given arrays: writable,
        contiguous int64 arrays of ``G.n`` entries, or None for an output not asked for
        (at least one given). The gpu executor's hand-over of a small graph has the search
        write into pinned memory, which it copies to the device without a host copy.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> from lagraph_py.cpu_steps import FusedCpuExecutor
        >>> level = np.empty(4, dtype=np.int64)
        >>> FusedCpuExecutor().bfs_search_into(lg.generate.grid(2, 2), 0, "auto", level, None)
        >>> level
        array([0, 1, 1, 2])
        """
        check_search_outputs(G.n, level, parent)
        self._search_into(G, source, method, level, parent)

    def _search_into(self, G, source, method, level, parent) -> None:
        """The search of :meth:`bfs_search` into ``level`` and ``parent`` (None: not
        asked for)."""
        source = as_source(source, G.n)       # (the loops index without a bounds test)
        code = _METHODS.get(method)
        if code is None:
            raise ValueError(f"the {self.name} executor has no BFS method {method!r}")
        plan = G._cached(_PLANS[code != _PUSH], lambda: _Plan.of(G, code != _PUSH))
        n = plan.n
        # (no level of a small graph has the work to go parallel: no need to ask numba)
        small = plan.nstored + n <= min(PARALLEL_WORK, PARALLEL_PROBES)
        cores = 1 if small else numba.get_num_threads()
        branchless = (plan.nstored < BRANCHLESS_DEGREE * n or plan.nstored < BRANCHY_DEGREE
                      * n and plan.max_degree * n > REGULAR_SPREAD * plan.nstored)
        _search(*plan.arrays, source, parent, level, *plan.work, code, branchless,
                plan.max_degree, ALPHA, BETA,
                min(PULL_SAMPLES, n // SAMPLED_SHARE + 1), PROBE_COST,
                max(PARALLEL_WORK, n // PARALLEL_PUSH) if n >= PARALLEL_PUSH_VERTICES
                else _UNBOUNDED,
                QUEUE_NQ if cores > 1 and n >= QUEUE_MIN_VERTICES else n + 1,
                PARALLEL_PROBES, PULL_BLOCK, cores, FILL_AFTER)
