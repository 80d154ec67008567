"""Result checkers: each raises :class:`ValidationError` naming the broken rule and where.

The checks are vectorized over vertices and edges (numpy and scipy.sparse.csgraph), so
they run on graphs with millions of edges. Result arrays may be numpy or CuPy (they are
copied to the host with :func:`~lagraph_py.results.asnumpy`); neither the graph nor the
result is modified.

Examples
--------
>>> import lagraph_py as lg
>>> from lagraph_py.results import BFSResult
>>> G = lg.Graph.from_edges([0, 1, 2], [1, 2, 3])
>>> bfs(G, 0, BFSResult(0, level=[0, 1, 2, 3], parent=None))   # passes silently
>>> bfs(G, 0, BFSResult(0, level=[0, 1, 3, 3], parent=None))
Traceback (most recent call last):
...
lagraph_py.validate.ValidationError: bfs: edge level rule broken on edge 1 -> 2: level[1] = 1, level[2] = 3 is not in [0, 2]
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import as_source
from .graph import Graph
from .results import asnumpy

__all__ = ["ValidationError", "bfs", "msf", "scc"]

#: Relative tolerance (to the sum of |weight|) when a float total is compared with a sum.
FLOAT_TOTAL_RTOL = 1e-9


class ValidationError(ValueError):
    """An algorithm's result breaks a rule of its contract.

    The message reads ``"<algorithm>: <rule> broken ...: <where>"`` and names the vertex or
    edge ids involved.
    """


def _fail(algorithm: str, rule: str, where: str):
    raise ValidationError(f"{algorithm}: {rule} broken {where}")


# ---------------------------------------------------------------------- BFS
def bfs(G: Graph, source, result) -> None:
    """Check a breadth-first search result against the Graph500 rules.

    ``result.level`` and ``result.parent`` may each be None, not both. The rules:

    * each given array is 1-D of length ``G.n`` with an integer dtype, values in
      ``[-1, n)``; ``level[source] == 0`` and ``parent[source] == source``;
    * ``-1`` marks unreached vertices in both arrays alike;
    * every other parent ``p`` of ``v`` has an edge ``p -> v`` and ``level[p] == level[v] - 1``
      (so the parent graph is a tree rooted at ``source``); with parents alone, levels are
      derived by pointer jumping, and a parent chain that never reaches the source (a cycle)
      is an error;
    * every edge ``u -> v`` with ``u`` reached has ``v`` reached and
      ``level[v] <= level[u] + 1`` (so every vertex reachable from ``source`` is reached);
    * every reached ``v != source`` has an in-neighbour at ``level[v] - 1`` (so levels are
      hop distances and only reachable vertices are reached); the reached set is also
      compared with ``scipy.sparse.csgraph.breadth_first_order``.

    Raises
    ------
    ValidationError
        Naming the first broken rule and the vertex or edge where it breaks.

    Examples
    --------
    >>> from lagraph_py.results import BFSResult
    >>> G = Graph.from_edges([0, 0, 1], [1, 2, 2])
    >>> bfs(G, 0, BFSResult(0, level=[0, 1, 1], parent=[0, 0, 0]))
    """
    n = G.n
    s = as_source(source, n)
    if getattr(result, "source", s) != s:
        _fail("bfs", "source rule", f": result is from source {result.source}, not {s}")
    level, parent = (None if x is None else _vertex_array("bfs", x, name, n, length=n)
                     for x, name in ((result.level, "level"), (result.parent, "parent")))
    if level is None and parent is None:
        _fail("bfs", "result rule", ": the result has neither level nor parent")
    if level is not None and level[s] != 0:
        _fail("bfs", "source level rule", f"at the source {s}: level[{s}] = {level[s]}, not 0")
    if parent is not None and parent[s] != s:
        _fail("bfs", "source parent rule", f"at the source {s}: parent[{s}] = {parent[s]}")
    if level is not None and parent is not None:
        _first("bfs", "unreached marks rule", (level >= 0) != (parent >= 0),
               lambda v: f"at vertex {v}: level[{v}] = {level[v]} but parent[{v}] = {parent[v]}")
    if parent is not None:
        if level is None:
            level = _levels_from_parents(s, parent)
        else:
            child = np.flatnonzero((parent >= 0) & (np.arange(n) != s))
            p = parent[child]
            _first("bfs", "parent level rule", level[p] != level[child] - 1,
                   lambda k: f"at vertex {child[k]}: level {level[child[k]]} but its parent "
                             f"{p[k]} has level {level[p[k]]}")
    _check_edges(G, s, level, parent)
    reached = np.zeros(n, dtype=bool)
    from scipy.sparse import csgraph
    reached[csgraph.breadth_first_order(_pattern(G), s, directed=True,
                                        return_predecessors=False)] = True
    _first("bfs", "reachability rule", reached != (level >= 0),
           lambda v: f"at vertex {v}: scipy says reachable = {bool(reached[v])}")


def _levels_from_parents(s: int, parent):
    """Tree depths by pointer jumping; a parent chain that never reaches ``s`` is an error."""
    n = parent.size
    reached = parent >= 0
    _first("bfs", "parent reached rule", reached & ~reached[np.maximum(parent, 0)],
           lambda v: f"at vertex {v}: its parent {parent[v]} is unreached (parent -1)")
    anc = np.where(reached, parent, s)                    # 2**k-th ancestor after k rounds
    depth = (reached & (np.arange(n) != s)).astype(np.int64)   # hops from v to anc[v]
    for _ in range(n.bit_length() + 1):                   # a chain has fewer than n hops
        if (anc == s).all():
            return np.where(reached, depth, -1)
        depth += depth[anc]
        anc = anc[anc]
    _first("bfs", "parent tree rule", anc != s,
           lambda v: f"at vertex {v}: following parents from {v} never reaches the source "
                     f"{s} (a cycle)")


def _check_edges(G: Graph, s: int, level, parent) -> None:
    """One pass over the stored edges: edge level, predecessor and parent edge rules."""
    lev = level.astype(np.int32) if G.n <= np.iinfo(np.int32).max else level
    rows, cols = G.rows(), G.indices
    lu, lv = lev[rows], lev[cols]
    from_reached = lu >= 0
    _first("bfs", "edge level rule", from_reached & ((lv < 0) | (lv > lu + 1)),
           lambda e: f"on edge {rows[e]} -> {cols[e]}: level[{rows[e]}] = {lu[e]}, "
                     f"level[{cols[e]}] = {lv[e]} is not in [0, {lu[e] + 1}]")
    reached_others = (level >= 0) & (np.arange(G.n) != s)
    has_pred = np.zeros(G.n, dtype=bool)
    has_pred[cols[from_reached & (lv == lu + 1)]] = True
    _first("bfs", "predecessor rule", reached_others & ~has_pred,
           lambda v: f"at vertex {v}: level {level[v]} but no in-neighbour has level "
                     f"{level[v] - 1}")
    if parent is not None:
        has_parent_edge = np.zeros(G.n, dtype=bool)
        has_parent_edge[cols[parent[cols] == rows]] = True
        _first("bfs", "parent edge rule", reached_others & ~has_parent_edge,
               lambda v: f"at vertex {v}: the graph has no edge from its parent {parent[v]} "
                         f"-> {v}")


# ---------------------------------------------------------------------- MSF
def msf(G: Graph, result) -> None:
    """Check a minimum spanning forest of an undirected graph.

    The rules: ``src``, ``dst``, ``weight`` are 1-D of one length; every row is an edge of
    ``G`` with ``src < dst`` (so no self-loop) and ``weight`` equal to ``G``'s stored
    (lightest) weight, 1 for an unweighted graph; the forest is acyclic
    (``#edges == n - #trees``) and spans every connected component of ``G``; it is minimal:
    its sorted weights equal those of a minimum spanning forest computed independently with
    ``scipy.sparse.csgraph.minimum_spanning_tree`` (every minimum spanning forest has the
    same weight multiset, whatever the tie-breaking); ``total_weight`` equals the sum of
    ``weight`` (exactly for integers, within ``FLOAT_TOTAL_RTOL`` of the sum of ``|weight|``
    for floats); ``component[v]`` is the smallest vertex id in ``v``'s tree. The order of
    the rows is not checked.

    Raises
    ------
    ValueError
        ``G`` is directed.
    ValidationError
        Naming the first broken rule and the edge or vertex where it breaks.

    Examples
    --------
    >>> from lagraph_py.results import MSFResult
    >>> G = Graph.from_edges([0, 1, 0], [1, 2, 2], weight=[1, 1, 5], directed=False)
    >>> msf(G, MSFResult([0, 1], [1, 2], [1, 1], 2, [0, 0, 0]))
    """
    if G.directed:
        raise ValueError("msf needs an undirected graph; build it with directed=False")
    n = G.n
    src = _vertex_array("msf", result.src, "src", n, lowest=0)
    dst = _vertex_array("msf", result.dst, "dst", n, lowest=0)
    weight, total = asnumpy(result.weight), asnumpy(result.total_weight)
    if not (src.shape == dst.shape == weight.shape) or total.ndim != 0:
        _fail("msf", "shape rule", f": src, dst, weight, total_weight have shapes {src.shape}, "
                                   f"{dst.shape}, {weight.shape}, {total.shape}")
    if weight.dtype.kind not in "iuf" or total.dtype.kind not in "iuf":
        _fail("msf", "dtype rule", f": weight and total_weight have dtypes {weight.dtype} and "
                                   f"{total.dtype}, expected integer or real")
    _first("msf", "src < dst rule", src >= dst,
           lambda k: f"at forest edge {k}: ({src[k]}, {dst[k]})")
    pos = _edge_positions(G, src, dst)
    _first("msf", "graph edge rule", pos < 0,
           lambda k: f"at forest edge {k}: ({src[k]}, {dst[k]}) is not an edge of the graph")
    stored = _weights(G)[pos]
    _first("msf", "edge weight rule", weight != stored,
           lambda k: f"at forest edge {k}: ({src[k]}, {dst[k]}) has weight {weight[k]}, "
                     f"the graph {stored[k]}")

    from scipy.sparse import csgraph
    ntrees, tree = csgraph.connected_components(_pattern_from(n, src, dst), directed=False)
    if src.size != n - ntrees:
        size, nedges = np.bincount(tree, minlength=ntrees), np.bincount(tree[src], minlength=ntrees)
        t = int(np.argmax(nedges >= size))
        v = int(np.argmax(tree == t))
        _fail("msf", "acyclic rule", f"in the tree of vertex {v}: {nedges[t]} edges on "
                                     f"{size[t]} vertices (a cycle)")
    rows, cols = G.rows(), G.indices
    _first("msf", "spanning rule", tree[rows] != tree[cols],
           lambda e: f"on edge {rows[e]} - {cols[e]}: it joins two trees of the forest, so "
                     f"the forest does not span that component of the graph")

    mine, best = np.sort(weight), np.sort(_reference_msf_weights(G))
    _first("msf", "minimality rule", mine != best,
           lambda k: f": forest weight {_sum(mine)} but a minimum spanning forest weighs "
                     f"{_sum(best)} (sorted weight {k} is {mine[k]}, not {best[k]})")
    if not _total_matches(total.item(), weight):
        _fail("msf", "total weight rule", f": total_weight = {total.item()} but the forest "
                                          f"edges sum to {_sum(weight)}")

    component = _vertex_array("msf", result.component, "component", n, length=n, lowest=0)
    smallest = np.full(ntrees, n, dtype=np.int64)
    np.minimum.at(smallest, tree, np.arange(n))
    _first("msf", "component label rule", component != smallest[tree],
           lambda v: f"at vertex {v}: component = {component[v]}, the smallest vertex of "
                     f"its tree is {smallest[tree[v]]}")


def _reference_msf_weights(G: Graph):
    """Weights of a minimum spanning forest of G, from scipy's Kruskal."""
    rows, cols = G.rows(), G.indices
    upper = rows < cols                       # each undirected edge once, no self-loops
    keys, weight_of = _positive_keys(_weights(G)[upper])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[upper], minlength=G.n))])
    import scipy.sparse as sp
    from scipy.sparse import csgraph
    A = sp.csr_array((keys, cols[upper], indptr), shape=(G.n, G.n))
    return weight_of(csgraph.minimum_spanning_tree(A, overwrite=True).data)


def _positive_keys(w):
    """Strictly positive float64 keys ordered as ``w`` (scipy drops zero entries), and the
    function that maps keys back to weights: an exact shift for integers, else ranks."""
    if w.dtype.kind == "f" and (w.size == 0 or w.min() > 0):
        return w.astype(np.float64), lambda k: k
    if w.dtype.kind == "i" and w.size and int(w.max()) - int(w.min()) < 2**53 - 1:
        low = int(w.min())
        return ((w.astype(np.int64) - low + 1).astype(np.float64),
                lambda k: k.astype(np.int64) + (low - 1))
    values, rank = np.unique(w, return_inverse=True)
    return (rank + 1).astype(np.float64), lambda k: values[k.astype(np.int64) - 1]


def _total_matches(total, weight) -> bool:
    if weight.dtype.kind in "iu":
        return total == int(weight.sum())
    tol = FLOAT_TOTAL_RTOL * math.fsum(np.abs(weight))
    return abs(float(total) - math.fsum(weight)) <= tol


def _sum(weight):
    return int(weight.sum()) if weight.dtype.kind in "iu" else math.fsum(weight)


def _weights(G: Graph):
    return G.weights if G.weighted else np.ones(G.nstored, dtype=np.int64)


# ---------------------------------------------------------------------- SCC
def scc(G: Graph, result) -> None:
    """Check strongly connected component labels.

    The rules: ``labels`` is 1-D of length ``G.n``, integer; canonical (``labels[v] <= v``
    and ``labels[labels[v]] == labels[v]``: the label is the smallest id of the class);
    every class is strongly connected (its vertices are mutually reachable); no two classes
    are mutually reachable (the condensation is acyclic). Both are checked against the
    strong components that ``scipy.sparse.csgraph.connected_components`` finds in ``G``: a
    class must lie inside one of them, and each of them inside one class. On an undirected
    graph this checks connected components.

    Raises
    ------
    ValidationError
        Naming the first broken rule and the vertex or classes where it breaks.

    Examples
    --------
    >>> from lagraph_py.results import SCCResult
    >>> G = Graph.from_edges([0, 1, 1], [1, 0, 2])
    >>> scc(G, SCCResult([0, 0, 2]))
    """
    n = G.n
    labels = _vertex_array("scc", result.labels, "labels", n, length=n, lowest=0)
    v = np.arange(n)
    _first("scc", "canonical label rule", labels > v,
           lambda x: f"at vertex {x}: labels[{x}] = {labels[x]} is larger than {x}, so not "
                     f"the smallest id of its component")
    _first("scc", "canonical label rule", labels[labels] != labels,
           lambda x: f"at vertex {x}: labels[{x}] = {labels[x]} but labels[{labels[x]}] = "
                     f"{labels[labels[x]]}")
    if n == 0:
        return
    from scipy.sparse import csgraph
    ncomp, comp = csgraph.connected_components(_pattern(G), directed=True, connection="strong")
    _first("scc", "strongly connected class rule", comp != comp[labels],
           lambda x: f"at vertex {x}: {x} and {labels[x]} share label {labels[x]} but are not "
                     f"mutually reachable")
    member = np.empty(ncomp, dtype=np.int64)
    member[comp] = v                               # some vertex of every strong component
    other = labels[member[comp]]
    _first("scc", "acyclic condensation rule", labels != other,
           lambda x: f": classes {labels[x]} and {other[x]} are mutually reachable (vertex "
                     f"{x} and {member[comp[x]]}), so they are one strongly connected component")


# ---------------------------------------------------------------------- shared helpers
def _vertex_array(algorithm, x, name, n, *, length=None, lowest=-1):
    """``x`` as a new int64 array of values in ``[lowest, n)`` (and ``length`` long, if given)."""
    a = asnumpy(x)
    if a.ndim != 1 or (length is not None and a.size != length):
        expected = "1-D" if length is None else f"shape ({length},)"
        _fail(algorithm, "shape rule", f": {name} has shape {a.shape}, expected {expected}")
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        _fail(algorithm, "dtype rule", f": {name} has dtype {a.dtype}, expected an integer type")
    a = a.astype(np.int64)
    _first(algorithm, "range rule", (a < lowest) | (a >= n),
           lambda k: f"at {name}[{k}] = {a[k]}: outside [{lowest}, {n})")
    return a


def _first(algorithm: str, rule: str, bad, where) -> None:
    """Raise naming the first index where the boolean array ``bad`` holds, if any."""
    if bad.any():
        _fail(algorithm, rule, where(int(np.argmax(bad))))


def _edge_positions(G: Graph, u, v):
    """Position of each edge ``u[k] -> v[k]`` in G's CSR arrays, or -1 where it is absent."""
    keys = G.rows().astype(np.int64) * G.n + G.indices     # sorted: CSR rows, sorted columns
    want = np.asarray(u, dtype=np.int64) * G.n + v
    pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
    hit = keys[pos] == want if keys.size else np.zeros(want.size, dtype=bool)
    return np.where(hit, pos, -1)


def _pattern(G: Graph):
    """G's adjacency structure with every entry 1.0 (scipy's csgraph drops zero weights)."""
    import scipy.sparse as sp
    return sp.csr_array((np.ones(G.nstored), G.indices, G.indptr), shape=(G.n, G.n))


def _pattern_from(n: int, rows, cols):
    import scipy.sparse as sp
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
