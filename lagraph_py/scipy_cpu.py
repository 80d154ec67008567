"""The cpu executor's whole algorithms on scipy.sparse.csgraph: what ``backend="cpu"`` runs
while its compiled loops are not ready.

numba compiles the loops of the fused cpu executor (:mod:`lagraph_py.cpu_steps`) on their
first use, seconds per algorithm, and caches them on disk. So that no user call waits for
that, :mod:`lagraph_py.compilation` compiles them once per installation in a background
process; until they are on disk :func:`~lagraph_py.executor.get_executor` gives
:class:`ScipyCpuExecutor`, whose whole-algorithm group steps run scipy's compiled routines
(one call each, no cost per BFS level or Borůvka round) and return exactly what the fused
executor returns. The reference executor's primitive steps, the other executor that needs
no compiling, cost a step per level: on a 500 x 500 grid its BFS, connected components,
MSF and SCC (random orientation) took 0.83, 2.5, 9.0 and 198 s against scipy's 0.05,
0.015, 0.30 and 0.03 s; on Kronecker 16 0.06, 0.17, 0.72 and 0.21 s against 0.01, 0.04,
0.13 and 0.02 s (2 shared cores).

- :meth:`~ScipyCpuExecutor.bfs_search`: ``breadth_first_order`` with predecessors, which
  form a BFS tree (each vertex's parent is the vertex it was first seen from). Levels come
  from the order: the queue's parent positions never decrease, so pointer jumping over
  them (``depth += depth[up]; up = up[up]``) ends once the last entry's jump reaches the
  source, after ``log2(levels)`` rounds.
- :meth:`~ScipyCpuExecutor.spanning_forest`: ``minimum_spanning_tree`` over the edges'
  ranks in the strict order (weight, min(u, v), max(u, v)): distinct weights, so scipy's
  forest is the unique one. Ranks start at 1 (scipy drops zero weights) and are exact in
  float64 below 2^53. On graphs of over :data:`FILTER_DEGREE` edges per vertex the edges
  come in rank chunks (:meth:`~lagraph_py.algorithms.msf.Ranking.chunks`), each filtered
  by the trees found so far, as Filter-Borůvka does: an edge inside a tree is the heaviest
  of a cycle.
- :meth:`~ScipyCpuExecutor.connected_components` and
  :meth:`~ScipyCpuExecutor.strong_components`: ``connected_components`` with
  ``connection="strong"`` (Pearce's algorithm; on the symmetric pattern of an undirected
  graph the strong components are the connected ones, and scipy needs no transpose), each
  label mapped to the smallest id of its component.

Every other step is the fused executor's, imported (and compiled) on first use. This
module imports neither numba nor the compiled loops.
"""

from __future__ import annotations

import abc
import functools
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ._checks import check_search_outputs
from .algorithms.msf import Ranking, _undirected_edges, stable_order
from .executor import PULL, PUSH, Executor

#: Spanning forests of graphs with more undirected edges per vertex than this filter rank
#: chunks by the trees found so far. Measured on 65k-vertex graphs with real weights (2
#: cores, shared): Kronecker 16 (14 per vertex) 150 against 530 ms for one sort and one
#: scipy forest of every edge, uniform random of 8 per vertex 180 against 270 ms and of
#: 4 per vertex 126 against 135 ms; of 2.5 per vertex 110 against 90 ms, grids 100
#: against 70 ms.
FILTER_DEGREE = 3


class Pattern(NamedTuple):
    """The adjacency pattern of ``G`` as :meth:`ScipyCpuExecutor.matrix` gives it."""

    G: Any
    transpose: bool
    loops: bool


class Labels(NamedTuple):
    """A full vector of component labels, as the components steps return it."""

    values: np.ndarray


class ScipyCpuExecutor(Executor):
    """``backend="cpu"`` while the compiled loops are not ready: whole algorithms on
    scipy.sparse.csgraph, every other step on the fused executor.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> lg.bfs(G, 0, backend=ScipyCpuExecutor()).level
    array([0, 1, 1, 2])
    """

    name = "cpu"
    memory_path = "scipy"
    bfs_methods = (PUSH, PULL)
    placement = Executor.placement      # nothing to plan, and nothing to compile for it

    def matrix(self, G, *, transpose=False, loops=True) -> Pattern:
        return Pattern(G, transpose, loops)

    def array(self, values) -> np.ndarray:
        return np.array(values, copy=True)

    def to_dense(self, u, fill, *, consume=False) -> np.ndarray:
        if isinstance(u, Labels):                     # full: nothing to fill
            return u.values if consume else u.values.copy()
        return self.compiled.to_dense(u, fill, consume=consume)

    @functools.cached_property
    def compiled(self) -> Executor:
        """The fused executor, which runs every step this one does not define."""
        from .cpu_steps import FusedCpuExecutor
        return FusedCpuExecutor()

    # ------------------------------------------------------------ whole algorithms
    def bfs_search(self, G, source, method, levels, parents):
        """A whole search by ``breadth_first_order``, as
        :meth:`~lagraph_py.executor.Executor.bfs_search` defines it (for every
        ``method``: the levels are unique, the parents one BFS tree).

        Examples
        --------
        >>> import lagraph_py as lg
        >>> ScipyCpuExecutor().bfs_search(lg.generate.grid(2, 2), 0, "auto", True, True)
        (array([0, 1, 1, 2]), array([0, 0, 0, 1]))
        """
        order, pred = csgraph.breadth_first_order(_csr(G), source, directed=True,
                                                  return_predecessors=True)
        parent = np.where(pred < 0, -1, pred).astype(np.int64)
        parent[source] = source
        level = _levels(order, parent, G.n) if levels else None
        return level, parent if parents else None

    def bfs_search_into(self, G, source, method, level, parent) -> None:
        """:meth:`bfs_search` copied into the given arrays, which it takes and checks as
        :meth:`FusedCpuExecutor.bfs_search_into
        <lagraph_py.cpu_steps.BfsSteps.bfs_search_into>` does (the gpu executor's
        hand-over of a small graph searches into pinned memory this way, also while
        the compiled loops are not ready).

        Examples
        --------
        >>> import lagraph_py as lg
        >>> level = np.empty(4, dtype=np.int64)
        >>> ScipyCpuExecutor().bfs_search_into(lg.generate.grid(2, 2), 0, "auto", level, None)
        >>> level
        array([0, 1, 1, 2])
        """
        check_search_outputs(G.n, level, parent)
        found = self.bfs_search(G, source, method, level is not None, parent is not None)
        for out, values in zip((level, parent), found):
            if out is not None:
                out[...] = values

    def spanning_forest(self, G):
        """The minimum spanning forest by ``minimum_spanning_tree`` over edge ranks, as
        :meth:`~lagraph_py.executor.Executor.spanning_forest` defines it.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> G = lg.Graph.from_edges([0, 1, 0], [1, 2, 2], weight=[2.0, 1.0, 2.0],
        ...                         directed=False)
        >>> ScipyCpuExecutor().spanning_forest(G)
        (array([1, 0]), array([2, 1]), array([1., 2.]), array([0, 0, 0]))
        """
        eu, ev, w = _undirected_edges(G)
        n = G.n
        if eu.size == 0:
            none = np.empty(0, np.int64)
            return none, none.copy(), w, np.arange(n, dtype=np.int64)
        if eu.size <= FILTER_DEGREE * n:
            tree, forest = _forest(eu, ev, stable_order(w), n)
        else:
            ranking, tree, forest = Ranking(w), np.empty(0, np.int64), None
            for chunk in ranking.chunks(n):
                if forest is not None:                # drop the edges inside a tree
                    _, label = csgraph.connected_components(forest, directed=False)
                    chunk = chunk[label[eu[chunk]] != label[ev[chunk]]]
                    if chunk.size == 0:
                        continue
                ranked = np.concatenate([tree, ranking.order(chunk)])  # lighter first
                tree, forest = _forest(eu, ev, ranked, n)
                if tree.size == n - 1:                # a spanning tree: nothing can join
                    break
        component = _smallest_ids(*csgraph.connected_components(forest, directed=False))
        return eu[tree], ev[tree], w[tree], component

    def connected_components(self, A, n):
        """The smallest id of each vertex's connected component, as
        :meth:`~lagraph_py.executor.Executor.connected_components` defines it, for the
        pattern of an undirected graph from :meth:`matrix`.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> ex = ScipyCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1], [2, 4], n=5, directed=False)
        >>> ex.to_dense(ex.connected_components(ex.matrix(G), G.n), -1).tolist()
        [0, 1, 2, 2, 1]
        """
        if not isinstance(A, Pattern):
            return self.compiled.connected_components(A, n)
        return self.strong_components(A.G)

    def strong_components(self, G):
        """The smallest id of each vertex's strongly connected component, as
        :meth:`~lagraph_py.executor.Executor.strong_components` defines it.

        Examples
        --------
        >>> import lagraph_py as lg
        >>> ex = ScipyCpuExecutor()
        >>> G = lg.Graph.from_edges([3, 1, 2, 0], [1, 3, 0, 2])      # 1 <-> 3, 0 <-> 2
        >>> ex.to_dense(ex.strong_components(G), -1).tolist()
        [0, 1, 0, 1]
        """
        count, label = csgraph.connected_components(_csr(G), directed=True,
                                                    connection="strong")
        return Labels(_smallest_ids(count, label))


def _forwarded(name: str):
    """The fused executor's step ``name``, with this executor's patterns and labels
    turned into the fused executor's matrices and vectors."""
    def step(self, *args, **kwargs):
        ex = self.compiled

        def native(x):
            if isinstance(x, Pattern):
                return ex.matrix(x.G, transpose=x.transpose, loops=x.loops)
            if isinstance(x, Labels):
                return ex.vector(x.values.size, np.arange(x.values.size), x.values)
            return x
        return getattr(ex, name)(*map(native, args),
                                 **{k: native(x) for k, x in kwargs.items()})
    step.__name__ = step.__qualname__ = name
    step.__doc__ = f"The fused executor's ``{name}``."
    return step


# every other step of the vocabulary, group steps included
for _name in sorted(name for name, value in vars(Executor).items()
                    if callable(value) and not name.startswith("_")
                    and name not in vars(ScipyCpuExecutor)):
    setattr(ScipyCpuExecutor, _name, _forwarded(_name))
abc.update_abstractmethods(ScipyCpuExecutor)


def _csr(G) -> sp.csr_array:
    """``G``'s pattern as scipy's routines take it (float64 ones: no conversion there)."""
    return sp.csr_array((np.ones(G.nstored), G.indices, G.indptr), shape=(G.n, G.n))


def _levels(order: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """BFS levels (``-1`` unreached) from the visiting ``order`` and the ``parent`` tree.

    ``up[i]`` is the queue position of an ancestor of the entry at position ``i``,
    ``depth[i]`` how many levels up it is. The parents' positions never decrease along
    the queue, and neither do jumps composed of them, so once the last entry's ``up`` is
    the source (0) every entry's is.
    """
    position = np.empty(n, np.int64)
    position[order] = np.arange(order.size)
    up = position[parent[order]]
    depth = (up != np.arange(order.size)).astype(np.int64)    # 1, but 0 at the source
    while up[-1]:
        depth += depth[up]
        up = up[up]
    level = np.full(n, -1, np.int64)
    level[order] = depth
    return level


def _forest(eu, ev, ranked, n):
    """``(tree, forest)``: the positions (rank order) of the minimum spanning forest of
    the edges ``ranked`` (positions in rank order), and scipy's matrix of it."""
    rank = np.arange(1, ranked.size + 1, dtype=np.float64)
    forest = csgraph.minimum_spanning_tree(
        sp.csr_array((rank, (eu[ranked], ev[ranked])), shape=(n, n)))
    return ranked[np.sort(forest.data).astype(np.int64) - 1], forest


def _smallest_ids(count: int, label: np.ndarray) -> np.ndarray:
    """Each vertex's smallest fellow under the labelling ``label`` (``count`` labels)."""
    smallest = np.full(count, label.size, np.int64)
    np.minimum.at(smallest, label, np.arange(label.size))
    return smallest[label]
