"""The whole BFS as one group step on CPU ranks: a compiled loop a level, one exchange.

:meth:`~lagraph_py.executor.Executor.bfs_search` stands for the text of
:mod:`lagraph_py.algorithms.bfs`; over ranks each of its steps would be a collective
(a level of the text is seven), so CPU ranks run the search here, with the text's
direction rule on global counts and one round of messages a level (the level loop and
the rule are :mod:`.bfs_rule`'s, shared with the GPU ranks):

- every rank keeps a bitmap of the visited vertices of the whole graph (``n / 8``
  bytes), up to date as of the level before;
- a **push** level expands the frontier of the whole graph (as every rank has it
  after the exchange of the level before) over the rank's column block (the edges into
  its own vertices, as rows of every vertex: :meth:`~.graph.DistGraph.column_block`),
  so that every vertex it visits is its own and no message follows: the out-edges of a
  hub are scanned by every rank at once, a share each, not by its owner alone while the
  others wait (Kronecker 24, 16 ranks: the second level, 13 hubs, took 19 ms on the
  owner, then 17 ms to send the targets and claim them);
- a **pull** level scans the in-edges of the rank's unvisited vertices and stops at the
  first one in the frontier, read from a bitmap of the whole frontier, trying first the
  vertex's in-neighbour of most out-edges (found once per graph, cached with it): on a
  graph with hubs, most vertices a pull level finds have theirs in the frontier;
- where the direction rule would switch to pull, each rank estimates the in-edges its
  pull would probe from a sample of its vertices (as the fused cpu search does), one
  all-reduce sums them, and the level pulls only if they are fewer than the frontier's
  out-edges, which a push scans (on Kronecker 21 and 22 both cost 13-14 ns an edge or
  probe on 1 rank, and the estimate chooses the cheaper: Kronecker 22's first pull,
  8.6M probes, 112 ms, against 134 ms to push its 9.9M edges);
- after each level one all-reduce gives the frontier size and the edge counts of the
  direction rule, and the ranks publish their new frontier to each other: as a list
  of ids or as the bitmap of their range (whole 64-bit words: the ranges start at
  multiples of 64), whichever is smaller, and add it to the visited bitmap (and, before
  a pull level, make it the frontier bitmap; before a push level, the list of the
  frontier, read off the bitmap where that was sent).

The levels are those of the text (a level set does not depend on the direction); each
parent is a frontier vertex with an edge to its child, so the tree is a BFS tree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from lagraph_py.cpu import as_unsigned
from lagraph_py.cpu_steps.bfs import PULL_SAMPLES, _pull_cost
from lagraph_py.executor import PULL, LevelStats

from .bfs_rule import LevelSearch, id_dtype, sends_ids
from .graph import DistGraph


#: A push level sorts a frontier of at least this many vertices that a push level found,
#: so that it reads the rows in order: in the order they were found, each row starts with
#: a cache and TLB miss (Kronecker 22, 1 rank: a push level of 1.17M frontier vertices and
#: 114M edges, 800-860 ms from the order found, 420-460 ms sorted; sorting took 19 ms).
#: A pull level's frontier is ascending already, and one that a pull level reads is not
#: sorted (Kronecker 20, 1 rank: 1.9-4.6 ms a search saved, the second level's frontier
#: of 40k vertices, whose next level pulls).
SORTED_FRONTIER = 1024


class BfsSteps:
    """The fused ``bfs_search`` of the CPU ranks (a mixin of the distributed executor)."""

    def bfs_search(self, G: DistGraph, source, method, levels, parents, trace=None):
        """The group step; ``trace``: a list to append a row a level to (see
        :class:`~.bfs_rule.LevelSearch`)."""
        search = _Search(G, int(source), self.exchange, method)
        search.trace = trace
        search.run(method)
        return (search.level if levels else None), (search.parent if parents else None)


class _Search(LevelSearch):
    """The state of one search on this rank: its range's levels and parents, the
    visited bitmap of the whole graph, the frontier (local offsets)."""

    def __init__(self, G: DistGraph, s: int, exchange, method: str):
        self.G, self.ex = G, exchange
        nbytes = (G.n + 7) // 8
        self.visited = np.zeros(nbytes, np.uint8)
        self.frontier_bits = np.zeros(nbytes, np.uint8)
        self.level = np.full(G.nlocal, -1, np.int64)
        self.parent = np.full(G.nlocal, -1, np.int64)
        self.out_degree = G._cached("bfs.out_degree", lambda: np.diff(G.indptr))
        self.frontier = np.empty(0, np.int64)      # this rank's part (local offsets)
        self.whole = np.array([s])         # the whole frontier (ids), before a push level
        self.ascending = True              # its order (a push level's is not)
        if G.lo <= s < G.hi:
            self.level[s - G.lo], self.parent[s - G.lo] = 0, s
            self.frontier = np.array([s - G.lo])
        _set_bits(self.visited, self.whole)
        self.col_ptr, self.col_ind = G.column_block()       # (collective once)
        if method in ("auto", PULL):
            self.in_ptr, self.in_ind = G.in_rows()
            self.in_degree = self.out_degree if self.in_ptr is G.indptr else G._cached(
                "bfs.in_degree", lambda: np.diff(self.in_ptr))
            self.heads = G._cached("bfs.heads", lambda: _hubs(
                self.in_ptr, self.in_ind, G.out_degree()))            # (collective once)
        else:
            self.in_degree = self.out_degree
        self.unvisited = None              # of the range, kept over consecutive pulls
        # out- and in-edges of the frontier (the loops add those of the vertices they visit)
        self.edges = np.array([self.out_degree[self.frontier].sum(),
                               self.in_degree[self.frontier].sum()], np.int64)

    def _begin(self, *, as_frontier: bool) -> None:
        if as_frontier:
            self.frontier_bits[:] = self.visited                 # the source alone

    # ------------------------------------------------------------------ one level
    def _push(self, k: int) -> None:
        if self.whole is None:                  # published as a bitmap
            self.whole = np.flatnonzero(np.unpackbits(self.frontier_bits, bitorder="little"))
        elif self.whole.size >= SORTED_FRONTIER and not self.ascending:
            self.whole.sort()
        self.unvisited = None
        self.edges[:] = 0
        found = self._found()
        nnew = _push_level(*as_unsigned(self.col_ptr), self.col_ind, self.G.lo, self.whole,
                           self.visited, self.parent, self.level, k, self.out_degree,
                           self.in_degree, self.edges, found)
        self.frontier, self.ascending = found[:nnew], False

    def _found(self) -> np.ndarray:
        """The buffer a level writes its new frontier to (kept with the graph, as the
        pull's list of unvisited vertices)."""
        return self.G._cached("bfs.found", lambda: np.empty(self.G.nlocal, np.int64))

    def _pull(self, k: int) -> None:
        todo = self.G._cached("bfs.todo", lambda: np.empty(self.G.nlocal, np.int64))
        found = self._found()
        every = self.unvisited is None          # the first of consecutive pull levels
        listed = todo if every else self.unvisited
        self.edges[:] = 0
        nnew, nleft = _pull_level(
            *as_unsigned(self.in_ptr), self.in_ind, self.heads, listed, every,
            self.frontier_bits, self.parent, self.level, k, self.out_degree, self.in_degree,
            self.edges, found)
        self.frontier, self.unvisited, self.ascending = found[:nnew], listed[:nleft], True

    def _pull_estimate(self, frontier_edges: int) -> int:
        """The fused cpu search's estimate (:func:`~lagraph_py.cpu_steps.bfs._pull_cost`:
        the probes of ``min(PULL_SAMPLES, nlocal / 16 + 1)`` vertices spread over the
        range, heads first, scaled to the range) plus a pass over the range's levels
        (an eighth of a probe a vertex) for its list of unvisited vertices, summed over
        the ranks. The frontier bitmap's bytes are read as 64-bit words (little-endian
        order: bit ``v`` of byte ``v / 8`` is bit ``v`` of word ``v / 64``)."""
        G = self.G
        words = np.zeros((G.n + 63) // 64, np.uint64)
        words.view(np.uint8)[:self.frontier_bits.size] = self.frontier_bits
        samples = min(PULL_SAMPLES, G.nlocal // 16 + 1)
        mine = G.nlocal // 8
        if G.nlocal:            # (a sample past the frontier's out-edges may stop: push)
            mine += _pull_cost(*as_unsigned(self.in_ptr, self.in_ind), self.heads, words,
                               self.level >= 0, samples, frontier_edges)
        return int(self.ex.allreduce(np.array([mine], np.int64), "sum")[0])

    def _stats(self) -> LevelStats:
        mine = np.array([self.frontier.size, *self.edges], np.int64)
        return LevelStats(*(int(x) for x in self.ex.allreduce(mine, "sum")))

    def _publish(self, nq: int, *, as_frontier: bool) -> None:
        """Every rank's new frontier into the visited bitmap, and into the frontier
        bitmap if ``as_frontier``: as a list of ids or as bitmaps of the ranges,
        whichever is smaller."""
        G = self.G
        if sends_ids(nq, G.n):
            ids = (self.frontier + G.lo).astype(id_dtype(G.n))
            (self.whole,), _ = self.ex.allgather([ids])
            _set_bits(self.visited, self.whole)
            if as_frontier:
                self.frontier_bits[:] = 0
                _set_bits(self.frontier_bits, self.whole)
            return
        mine = np.zeros(G.nlocal, bool)
        mine[self.frontier] = True
        (bits,), _ = self.ex.allgather([np.packbits(mine, bitorder="little")])
        self.visited |= bits
        self.frontier_bits[:] = bits            # (a push level lists it)
        self.whole, self.ascending = None, True


# ---------------------------------------------------------------------- compiled loops
@njit(cache=True, nogil=True)
def _set_bits(bits, ids):
    for v in ids:
        bits[v >> 3] |= np.uint8(1 << (v & 7))


@njit(cache=True, nogil=True, inline="always")
def _visit(v, u, parent, level, k, out_degree, in_degree, edges):
    """Local vertex ``v`` joins the new frontier with parent ``u``; its out- and in-edges
    are added to ``edges``."""
    parent[v], level[v] = u, k
    edges[0] += out_degree[v]
    edges[1] += in_degree[v]


@njit(cache=True, nogil=True)
def _push_level(col_ptr, col_ind, lo, whole, visited, parent, level, k, out_degree,
                in_degree, edges, found):
    """Expand the whole frontier (ids) over the column block: each unvisited vertex of
    this range that a frontier vertex has an edge to is visited (the first such vertex
    its parent), marked in the bitmap and written to ``found`` (local offsets); returns
    how many.

    The loops of this module take the row pointers as unsigned (the ids stay signed):
    numba then indexes the edges without a test for a negative index (Kronecker 22,
    1 rank, a push level of 114M edges: 570 -> 420-460 ms)."""
    nnew = 0
    for u in whole:
        for e in range(col_ptr[u], col_ptr[u + 1]):
            v = col_ind[e]
            w = v + lo
            byte, bit = w >> 3, np.uint8(1 << (w & 7))
            if visited[byte] & bit:
                continue
            visited[byte] |= bit
            _visit(v, u, parent, level, k, out_degree, in_degree, edges)
            found[nnew] = v
            nnew += 1
    return nnew


@njit(cache=True, nogil=True)
def _pull_level(indptr, indices, heads, unvisited, every, frontier_bits, parent, level, k,
                out_degree, in_degree, edges, found):
    """Each vertex of ``unvisited`` (local offsets; with ``every``, each local vertex not
    visited yet that has in-edges, the only ones a pull can visit) takes an in-neighbour
    in the frontier as parent, trying its hub first (``heads``, -1 for none), then the
    others in order. The new frontier goes to ``found``, ascending, the vertices still
    unvisited to the front of ``unvisited`` (in place), ascending; returns how many of
    each. The two buffers are kept with the graph: arrays made anew each level cost more
    in first touches of their pages than the later levels' work (Kronecker 21, 1 rank:
    the three pull levels 47, 9 and 7 ms -> 40, 6 and 0.3 ms, with the vertices without
    in-edges left out of ``unvisited``)."""
    nnew = nleft = 0
    for i in range(level.size if every else unvisited.size):
        if every:
            v = i
            if level[v] >= 0 or in_degree[v] == 0:
                continue
        else:
            v = unvisited[i]
        found_parent = -1
        h = heads[v]
        if h >= 0 and frontier_bits[h >> 3] & (1 << (h & 7)):
            found_parent = h
        else:
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if frontier_bits[u >> 3] & (1 << (u & 7)):
                    found_parent = u
                    break
        if found_parent >= 0:
            _visit(v, found_parent, parent, level, k, out_degree, in_degree, edges)
            found[nnew] = v
            nnew += 1
        else:
            unvisited[nleft] = v
            nleft += 1
    return nnew, nleft


@njit(cache=True, nogil=True)
def _hubs(indptr, indices, degree):
    """The in-neighbour of most out-edges (``degree``: of every vertex of the graph) of
    each local vertex, -1 where it has none: on a graph with hubs, most vertices a pull
    level finds have theirs in the frontier, one probe."""
    heads = np.full(indptr.size - 1, -1, np.int64)
    for v in range(indptr.size - 1):
        most = -1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if degree[u] > most:
                most, heads[v] = degree[u], u
    return heads
