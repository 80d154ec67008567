"""The calls that compile every loop of the cpu executor: ``python -m lagraph_py.warmup``.

numba compiles a loop once per combination of argument types (array element types,
read-only or not, None or an array), so the calls below run BFS, MSF and SCC through the
public API on graphs that take every typed path of :mod:`lagraph_py.cpu_steps` (its
module texts name the thresholds):

- int32 row pointers and ids, and int64 row pointers beside int32 ids (a Graph of over
  2^31 stored entries);
- a grid of at most ``SMALL`` stored entries (MSF without the filter) and a Kronecker
  graph whose frontiers pull (BFS pull levels and the arrays they read; MSF's light and
  heavy passes and rank chunks);
- small random graphs with self-loops and parallel edges (SCC rounds then read a copy of
  the adjacency, where other graphs read the Graph's own arrays);
- BFS by every method, with levels and parents, levels only, parents only;
- builds and transposes of every weight width (none, 4 and 8 bytes), from 32- and 64-bit
  ids, and MSF unweighted and with int32, int64, float32 and float64 weights;
- SCC on undirected graphs (connected components), on a directed Kronecker graph (the
  forward-backward search, then Tarjan) and on a directed grid (Tarjan alone).

The loops run the same code whatever the graph's size, so these graphs also compile the
paths that split a level over the cores. ``tests/test_compilation.py`` checks that calls
on graphs of every class need no loop variant these did not compile. What no generated
graph reaches compiles on first use: int64 ids and SCC's 64-bit work arrays, for graphs of
over 2^31 vertices.

Run as a module (:func:`main`) it compiles in the background, once per installation
(:func:`lagraph_py.compilation.warm`): at low priority, after waiting for any other
process compiling them, which leaves it nothing to do.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from . import generate
from .algorithms.bfs import bfs
from .algorithms.msf import msf
from .algorithms.scc import scc
from .graph import Graph

#: Graph sizes: a grid of SIDE x SIDE vertices (under 2^15 stored entries) and Kronecker
#: graphs of SCALE (2^14 vertices, about 2^19 stored entries: from their largest hub the
#: BFS direction rule pulls).
SIDE, SCALE = 12, 14
#: Vertices of the small random graphs with self-loops and parallel edges: their SCC
#: rounds read the loop-free copy of the adjacency (also on a graph of one vertex).
TANGLE = 40
#: Nice increment of the background process: compiling waits for the user's work.
NICENESS = 19


def run(executor) -> None:
    """Run the calls of the module text on ``executor`` (a fused cpu executor)."""
    for wide in (False, True):
        for weights in (None, "uniform", "real"):
            for G in (generate.grid(SIDE, SIDE, weights=weights),
                      generate.kronecker(SCALE, weights=weights),
                      _tangle(weights, directed=False), _tangle(weights, directed=False, n=1)):
                for H in (G, _narrowed(G)):
                    H = _with_index(H, wide)
                    msf(H, backend=executor)
                    if weights is None:
                        _searches(H, executor)
                        scc(H, backend=executor)
            for D in (_tangle(weights, directed=True), _narrowed(_tangle(weights,
                                                                         directed=True))):
                D = _with_index(D, wide)
                D.transpose()
                msf(D, backend=executor, symmetrize=True)    # built from the Graph's ids
        for D in (generate.kronecker(SCALE, directed=True),
                  generate.grid(SIDE, SIDE, directed=True, orientation="random"),
                  _tangle(None, directed=True)):
            D = _with_index(D, wide)
            scc(D, backend=executor)
            _searches(D, executor)


def _searches(G: Graph, executor) -> None:
    source = int(np.argmax(G.out_degree()))
    for method in ("auto",) + executor.bfs_methods:
        for levels, parents in ((True, True), (True, False), (False, True)):
            bfs(G, source, backend=executor, method=method, levels=levels, parents=parents)


def _tangle(weights, *, directed: bool, n: int = TANGLE) -> Graph:
    """A small random graph with self-loops and parallel edges (``weights`` as the
    generators name them)."""
    rng = np.random.default_rng(n)
    src, dst = rng.integers(0, n, (2, 3 * n))
    weight = {None: None, "uniform": rng.integers(-3, 4, 3 * n),
              "real": rng.normal(size=3 * n)}[weights]
    return Graph.from_edges(src, dst, weight, n=n, directed=directed)


def _narrowed(G: Graph) -> Graph:
    """``G`` built again from its edges (int64 ids) with 4-byte weights: int32 (the
    integers modulo 2^31) or float32 (an unweighted ``G`` as it is)."""
    if not G.weighted:
        return G
    src, dst, w = G.edges()
    w = (w % (1 << 31)).astype(np.int32) if w.dtype.kind == "i" else w.astype(np.float32)
    return Graph.from_edges(src, dst, w, n=G.n, directed=G.directed)


def _with_index(G: Graph, wide: bool) -> Graph:
    """``G``, or a copy with int64 row pointers (its ids int32, as past 2^31 entries)."""
    if not wide:
        return G
    return Graph(G.n, G.directed, G.indptr.astype(np.int64), G.indices, G.weights,
                 G.nself_loops)


def main() -> int:
    """Compile in the background: the entry point of ``python -m lagraph_py.warmup``."""
    from .compilation import warm
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    return warm(background=True)


if __name__ == "__main__":
    sys.exit(main())
