"""The host side of a distributed BFS: the level loop of CPU ranks, the text's direction
rule on global counts (which GPU ranks apply on the device, ``rank_rule`` of gpu_backend's
``bfs.cu``), and the form in which a frontier travels between CPU ranks.

:class:`LevelSearch` runs the levels of one search on every rank together. A subclass
gives the level in each direction (``_push``, ``_pull``: the rank's own work, against the
frontier of the whole graph) and the two exchanges between levels: ``_stats``, the
global counts of the new frontier (one small collective), and ``_publish``, the new
frontier to every rank. The loop is the text of :mod:`lagraph_py.algorithms.bfs` with
its rule (:class:`DirectionRule`): a level set does not depend on the direction, so
the levels are the single-process executors'.

A frontier travels as a list of ids or as the bitmap of each range (the ranges start at
multiples of 64 vertices, so the bitmaps put end to end are the bitmap of the graph),
whichever is smaller in all (:func:`sends_ids`).
"""

from __future__ import annotations

import time


from lagraph_py.algorithms.bfs import ALPHA, BETA
from lagraph_py.cpu_steps.bfs import PROBE_COST
from lagraph_py.executor import PULL, PUSH, LevelStats

from .graph import id_dtype

#: The methods a distributed search runs: the text's rule, or one direction throughout.
METHODS = ("auto", PUSH, PULL)


def check_method(method: str) -> None:
    """Raise ValueError unless a distributed search runs ``method``.

    Examples
    --------
    >>> check_method("auto")
    >>> check_method("queue")
    Traceback (most recent call last):
    ...
    ValueError: method must be one of ('auto', 'push', 'pull') on distributed ranks, got 'queue'
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS} on distributed ranks, "
                         f"got {method!r}")


def sends_ids(nq: int, n: int) -> bool:
    """Whether a frontier of ``nq`` vertices (over all ranks) of a graph of ``n`` travels
    as a list of ids: when the list is smaller than the bitmap of the graph (``n / 8``
    bytes).

    Examples
    --------
    >>> sends_ids(1000, 2**20), sends_ids(40000, 2**20)
    (True, False)
    """
    return nq * id_dtype(n).itemsize < n / 8


class DirectionRule:
    """The direction rule of :mod:`lagraph_py.algorithms.bfs` on the global counts of a
    search: pull once a growing frontier's out-edges exceed the unvisited vertices'
    in-edges / ALPHA; push again once a shrinking frontier holds fewer than n / BETA
    vertices ("auto"); or one direction throughout ("push", "pull").

    Where the ranks can estimate the in-edges a pull level would probe (CPU ranks, as the
    fused cpu search does: :func:`lagraph_py.cpu_steps.bfs._pull_cost`), a switch to pull
    takes place only if they are fewer than the frontier's out-edges, which a push level
    scans; else the level pushes and the rule is weighed again at the next one.

    Parameters
    ----------
    method : {"auto", "push", "pull"}
    n, nstored : int
        Vertices and stored entries of the graph.
    source : LevelStats
        The counts of the first frontier (the source alone).

    Examples
    --------
    >>> rule = DirectionRule("auto", 1000, 8000, LevelStats(1, 500, 500))
    >>> rule.next_level()            # 500 out-edges > 7500 unexplored / ALPHA
    'pull'
    >>> rule.record(LevelStats(600, 4000, 4000))     # growing: pull again
    >>> rule.next_level()
    'pull'
    >>> rule.record(LevelStats(30, 90, 90))          # shrinking, under n / BETA
    >>> rule.next_level()
    'push'
    >>> costly = DirectionRule("auto", 1000, 8000, LevelStats(1, 500, 500))
    >>> costly.switching(), costly.next_level(estimate=900)   # a pull would probe more
    (True, 'push')
    """

    def __init__(self, method: str, n: int, nstored: int, source: LevelStats):
        check_method(method)
        self.method, self.n = method, n
        self.nq, self.frontier_edges = source.nq, source.frontier_edges
        self.unexplored = nstored - source.visited_in_edges
        self.direction = PULL if method == PULL else PUSH
        self.growing = True

    def pulls(self) -> bool:
        """Whether the next level pulls."""
        return self.direction == PULL or (self.method == "auto" and self.growing and
                                          self.frontier_edges > self.unexplored / ALPHA)

    def switching(self) -> bool:
        """Whether the counts say that the next level switches from push to pull (an
        estimate of its cost may still keep it pushing: :meth:`next_level`)."""
        return self.direction == PUSH and self.pulls()

    def next_level(self, estimate: int | None = None) -> str:
        """The direction of the next level (a switch to pull holds until :meth:`record`
        switches back). ``estimate``: the in-edges a pull level would probe, where the
        ranks estimated them for a switch; the switch is made only if a probe each costs
        less than pushing the frontier's out-edges."""
        if self.pulls() and not (self.switching() and estimate is not None
                                 and estimate * PROBE_COST >= self.frontier_edges):
            self.direction = PULL
        return self.direction

    def record(self, stats: LevelStats) -> None:
        """The global counts of the frontier a level made."""
        self.unexplored -= stats.visited_in_edges
        if self.method == "auto" and self.direction == PULL:
            if stats.nq == 0 or (stats.nq <= self.nq and stats.nq < self.n / BETA):
                self.direction, self.growing = PUSH, False
        else:
            self.growing = stats.nq > self.nq
        self.nq, self.frontier_edges = stats.nq, stats.frontier_edges


class LevelSearch:
    """The level loop of one search on this rank (see the module text). Subclasses give
    ``G`` (the :class:`~.graph.DistGraph`) and the steps below.

    With ``trace`` a list, :meth:`run` appends a row a level: its number, direction,
    frontier size and pull estimate (:meth:`_pull_estimate`; None where none was made),
    and the seconds of its three parts on this rank, ``work`` (the level's own loops),
    ``count`` (the global counts: a collective) and ``publish`` (the new frontier to every
    rank), by the host's clock. A part includes any wait for a slower rank. (The GPU
    ranks' search, :mod:`.gpu_bfs_steps`, gives rows of the same keys.)
    """

    G = None
    trace: list | None = None

    def run(self, method: str) -> None:
        """Levels until the frontier is empty, in the directions of ``method``."""
        rule = DirectionRule(method, self.G.n, self.G.nstored, self._stats())
        self._begin(as_frontier=rule.pulls())
        k, marks = 0, []
        while rule.nq:
            k += 1
            nq, start = rule.nq, self._clock()
            estimate = self._pull_estimate(rule.frontier_edges) if rule.switching() else None
            direction = rule.next_level(estimate)
            if direction == PULL:
                self._pull(k)
            else:
                self._push(k)
            worked = self._clock()
            rule.record(self._stats())
            counted = self._clock()
            if rule.nq:
                self._publish(rule.nq, as_frontier=rule.pulls())
            if self.trace is not None:
                marks.append((k, direction, nq, estimate, start, worked, counted,
                              self._clock()))
        for k, direction, nq, estimate, *clocks in marks:
            self.trace.append(dict(level=k, direction=direction, frontier=nq,
                                   estimate=estimate, **{
                part: b - a
                for part, a, b in zip(("work", "count", "publish"), clocks, clocks[1:])}))

    def _clock(self):
        """A mark of now on this rank, when tracing (else None)."""
        return None if self.trace is None else time.perf_counter()

    def _stats(self) -> LevelStats:
        """The global counts of the frontier this rank's last level made (collective)."""
        raise NotImplementedError

    def _pull_estimate(self, frontier_edges: int) -> int | None:
        """The in-edges that a pull level from the current frontier (published as a
        bitmap) would probe over all ranks, estimated where a switch to pull is weighed
        (collective), or None: no estimate, the counts decide. ``frontier_edges``: the
        frontier's out-edges (an estimate past them may stop early)."""
        return None

    def _begin(self, *, as_frontier: bool) -> None:
        """Make the source the frontier every rank reads (a bitmap if ``as_frontier``:
        the first level pulls)."""
        raise NotImplementedError

    def _push(self, k: int) -> None:
        """Level ``k`` top-down: the frontier's out-edges."""
        raise NotImplementedError

    def _pull(self, k: int) -> None:
        """Level ``k`` bottom-up: unvisited vertices look for a parent in the frontier."""
        raise NotImplementedError

    def _publish(self, nq: int, *, as_frontier: bool) -> None:
        """The new frontier of ``nq`` vertices to every rank (``as_frontier``: the next
        level pulls)."""
        raise NotImplementedError
