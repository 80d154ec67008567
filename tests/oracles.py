"""Plain reference implementations and hypothesis strategies shared by the tests.

The references read a graph only through ``G.to_scipy()`` and use plain Python (a deque,
a union-find, the BFS direction rule transcribed) or scipy.sparse.csgraph: nothing from
the library's algorithms or GraphBLAS but the rule's two constants.
Import them from any test module with ``from oracles import ...`` (pytest puts ``tests/``
on ``sys.path``).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st
from scipy.sparse import csgraph

from lagraph_py.algorithms.bfs import ALPHA, BETA
from lagraph_py.executor import LevelStats
from lagraph_py.graph import Graph
from lagraph_py.results import BFSResult, MSFResult, SCCResult

__all__ = ["bfs_levels", "bfs_tree", "check_bfs_parents", "reference_directions",
           "pull_estimate", "bfs_directions", "kruskal", "scc_labels", "scc", "graphs"]


# ---------------------------------------------------------------------- references
def _neighbours(G: Graph) -> list[list[int]]:
    A = G.to_scipy()
    return [A.indices[A.indptr[u]:A.indptr[u + 1]].tolist() for u in range(G.n)]


def bfs_tree(G: Graph, source: int) -> BFSResult:
    """Queue-based BFS: levels and the first-discovered parent (``-1`` where unreached)."""
    level = [-1] * G.n
    parent = [-1] * G.n
    level[source], parent[source] = 0, source
    adj = _neighbours(G)
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if level[v] < 0:
                level[v], parent[v] = level[u] + 1, u
                queue.append(v)
    return BFSResult(source, np.array(level, dtype=np.int64), np.array(parent, dtype=np.int64))


def bfs_levels(G: Graph, source: int) -> np.ndarray:
    """Hop distance from ``source`` of every vertex, ``-1`` where unreachable (int64)."""
    return bfs_tree(G, source).level


def check_bfs_parents(G: Graph, source: int, parent) -> None:
    """Assert that ``parent`` is a BFS tree of ``G`` from ``source``.

    The source is its own parent; ``-1`` marks exactly the vertices :func:`bfs_levels`
    leaves unreached; every other parent ``p`` of ``v`` is an in-neighbour (``p -> v`` is
    stored in ``G.to_scipy()``) one level nearer the source. Independent of
    ``lagraph_py.validate``: the algorithm tests check parents twice, so that one broken
    checker cannot hide a broken parent rule.
    """
    n = G.n
    parent = np.asarray(parent)
    level = bfs_levels(G, source)
    assert parent.shape == (n,), f"parent has shape {parent.shape}, not ({n},)"
    assert parent[source] == source, f"parent[{source}] = {parent[source]}: not the source"
    np.testing.assert_array_equal(parent >= 0, level >= 0,
                                  err_msg="parent is -1 exactly where unreached")
    child = np.flatnonzero(level > 0)
    p = parent[child].astype(np.int64)
    assert ((p >= 0) & (p < n)).all(), f"parents outside [0, {n}): {p[(p < 0) | (p >= n)]}"
    A = G.to_scipy()
    edge_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr)) * n + A.indices
    no_edge = ~np.isin(p * n + child, edge_keys)
    assert not no_edge.any(), f"no edge parent -> v for v = {child[no_edge][:5]}"
    wrong = level[p] != level[child] - 1
    assert not wrong.any(), f"parent not one level up for v = {child[wrong][:5]}"


def reference_directions(method, n, nstored, stats, estimates=None):
    """The text's rule (lagraph_py.algorithms.bfs), transcribed: the direction of each
    level, given the counts of the source and then of each level's new frontier; with
    ``estimates`` (the probes a pull would make, one a level, None where not estimated),
    a switch to pull is made only where the level's estimate is below the frontier's
    out-edges (the distributed CPU ranks' rule)."""
    unexplored = nstored - stats[0].visited_in_edges
    nq, fe = stats[0].nq, stats[0].frontier_edges
    pulling, growing, out = method == "pull", True, []
    for i, s in enumerate(stats[1:]):
        if method == "auto" and not pulling and growing and fe > unexplored / ALPHA:
            estimate = None if estimates is None else estimates[i]
            pulling = estimate is None or estimate < fe
        out.append("pull" if pulling else "push")
        unexplored -= s.visited_in_edges
        if method == "auto" and pulling:
            if s.nq == 0 or (s.nq <= nq and s.nq < n / BETA):
                pulling, growing = False, False
        else:
            growing = s.nq > nq
        nq, fe = s.nq, s.frontier_edges
    return out


def bfs_directions(G: Graph, level, method: str, estimates=None) -> list[str]:
    """The direction the text's rule gives each level of a BFS whose levels are
    ``level``, fed their true counts: each level's vertices, their out-edges and their
    in-edges (the source's first, the last level's empty frontier last); ``estimates``
    as :func:`reference_directions` takes them."""
    A = G.to_scipy()
    out, into = np.diff(A.indptr), np.bincount(A.indices, minlength=G.n)
    level = np.asarray(level)
    stats = []
    for k in range(int(level.max(initial=0)) + 2):
        mask = level == k
        stats.append(LevelStats(int(mask.sum()), int(out[mask].sum()), int(into[mask].sum())))
    return reference_directions(method, G.n, G.nstored, stats, estimates)


def pull_estimate(G: Graph, level, k: int, bounds) -> int:
    """The probes that the CPU ranks (ranges ``bounds``) estimate a pull level ``k`` of a
    BFS with levels ``level`` to make, in plain Python: on each range, the vertices
    ``lo + (2 i + 1) * m // (2 * samples)`` (``m`` the range's size, ``samples`` =
    ``min(1024, m // 16 + 1)``) that are unvisited before level ``k`` and have in-edges
    probe their in-neighbour of most out-edges (the first such in ascending order), then
    their in-neighbours in ascending order, to the first in level ``k - 1`` (a probe
    more than its position) or to the end (a probe more than their count); the sum,
    scaled by ``m // samples`` rounding down, plus ``m // 8``, summed over the ranges."""
    A = G.to_scipy()
    T = A.T.tocsr()
    T.sort_indices()
    out = np.diff(A.indptr)
    total = 0
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        m = int(hi - lo)
        samples = min(1024, m // 16 + 1)
        probes = 0
        for i in range(samples if m else 0):
            u = int(lo) + (2 * i + 1) * m // (2 * samples)
            ins = T.indices[T.indptr[u]:T.indptr[u + 1]].tolist()
            if not ins or 0 <= level[u] < k:
                continue
            head = max(ins, key=lambda w: (out[w], -w))
            if level[head] == k - 1:
                probes += 1
                continue
            hits = [j for j, w in enumerate(ins) if level[w] == k - 1]
            probes += (hits[0] + 2) if hits else len(ins) + 1
        total += probes * m // samples + m // 8
    return total


def kruskal(G: Graph) -> MSFResult:
    """The unique minimum spanning forest under the strict order (weight, min(u,v), max(u,v)).

    Rows come in that order with ``src < dst``; self-loops never enter; an unweighted graph
    weighs 1 per edge (int64). ``component`` is the smallest vertex id of each tree and
    ``total_weight`` a Python int (integer weights) or ``math.fsum`` (float weights).
    """
    if G.directed:
        raise ValueError("kruskal needs an undirected graph")
    A = G.to_scipy().tocoo()
    w = A.data.tolist() if G.weighted else [1] * A.nnz
    edges = sorted((wk, u, v) for wk, u, v in zip(w, A.row.tolist(), A.col.tolist()) if u < v)
    root = list(range(G.n))

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    forest = []
    for wk, u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            root[max(ru, rv)] = min(ru, rv)          # the root is the smallest id of its tree
            forest.append((wk, u, v))
    src = np.array([u for _, u, _ in forest], dtype=np.int64)
    dst = np.array([v for _, _, v in forest], dtype=np.int64)
    dtype = G.weights.dtype if G.weighted else np.dtype(np.int64)
    weight = np.array([wk for wk, _, _ in forest], dtype=dtype)
    total = math.fsum(weight.tolist()) if dtype.kind == "f" else sum(weight.tolist())
    component = np.array([find(x) for x in range(G.n)], dtype=np.int64)
    return MSFResult(src, dst, weight, total, component)


def scc_labels(G: Graph) -> np.ndarray:
    """Strongly connected components from scipy, relabelled by the smallest vertex id."""
    n = G.n
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    A = G.to_scipy()
    pattern = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=(n, n))
    k, label = csgraph.connected_components(pattern, directed=True, connection="strong")
    smallest = np.full(k, n, dtype=np.int64)
    np.minimum.at(smallest, label, np.arange(n))
    return smallest[label]


def scc(G: Graph) -> SCCResult:
    """:func:`scc_labels` wrapped as an :class:`SCCResult`."""
    return SCCResult(scc_labels(G))


# ---------------------------------------------------------------------- strategies
_INT_WEIGHTS = st.integers(-3, 3)                      # many ties, zero and negatives
_FLOAT_WEIGHTS = st.one_of(st.sampled_from([-1.5, 0.0, 0.25, 1.0]),
                           st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False))


def with_int64_ids(G: Graph) -> Graph:
    """``G`` with int64 CSR index arrays (the kernels' ``long long`` instantiation), its
    weights kept."""
    return Graph(G.n, G.directed, G.indptr.astype(np.int64), G.indices.astype(np.int64),
                 G.weights)


@st.composite
def graphs(draw, max_n: int = 10, weighted: bool | None = None, directed: bool | None = None,
           min_n: int = 0) -> Graph:
    """Small graphs of every awkward shape.

    ``n`` is drawn from ``[min_n, max_n]`` (0 gives the empty graph); up to three pieces
    (a path, a cycle, a star or random edges) are laid over random vertex subsets, leaving
    the rest isolated, so graphs are often disconnected and paths and cycles can span every
    vertex; then some edges are repeated (parallel edges, with their own weights) and
    self-loops added. Weights, if any, are all integers in ``[-3, 3]`` or all floats
    (zero, negative, equal values included). ``weighted`` / ``directed`` of None are drawn.
    """
    directed = draw(st.booleans()) if directed is None else directed
    weighted = draw(st.booleans()) if weighted is None else weighted
    n = draw(st.integers(min_n, max_n))
    pairs: list[tuple[int, int]] = []
    if n:
        for shape in draw(st.lists(st.sampled_from(["path", "cycle", "star", "random"]),
                                   max_size=3)):
            ids = draw(st.permutations(range(n)))[:draw(st.integers(1, n))]
            if shape == "path":
                pairs += zip(ids, ids[1:])
            elif shape == "cycle":
                pairs += zip(ids, ids[1:] + ids[:1])
            elif shape == "star":
                pairs += [(ids[0], x) for x in ids[1:]]
            else:
                vertex = st.sampled_from(ids)
                pairs += draw(st.lists(st.tuples(vertex, vertex), max_size=2 * len(ids)))
        if pairs:
            pairs += draw(st.lists(st.sampled_from(pairs), max_size=3))      # parallel edges
        pairs += [(v, v) for v in draw(st.lists(st.integers(0, n - 1), max_size=2))]
    src = np.array([u for u, _ in pairs], dtype=np.int64)
    dst = np.array([v for _, v in pairs], dtype=np.int64)
    weight = None
    if weighted:
        if draw(st.booleans()):
            weight = np.array(draw(st.lists(_INT_WEIGHTS, min_size=len(pairs),
                                            max_size=len(pairs))), dtype=np.int64)
        else:
            weight = np.array(draw(st.lists(_FLOAT_WEIGHTS, min_size=len(pairs),
                                            max_size=len(pairs))), dtype=np.float64)
    return Graph.from_edges(src, dst, weight=weight, n=n, directed=directed)
