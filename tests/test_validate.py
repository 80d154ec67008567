"""Tests of lagraph_py.validate (and of the reference oracles the other tests rely on).

Validators must accept correct results (from the oracles) on awkward hypothesis graphs and
reject results broken by hand, each test breaking one rule.
"""

import dataclasses
import doctest

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lagraph_py import generate, validate
from lagraph_py.graph import Graph
from lagraph_py.results import BFSResult, MSFResult, SCCResult
from lagraph_py.validate import ValidationError
from oracles import bfs_levels, bfs_tree, graphs, kruskal, scc, scc_labels

SETTINGS = settings(max_examples=60, deadline=None)
EMPTY = Graph.from_edges([], [], n=0, directed=False)
ONE = Graph.from_edges([0], [0], weight=[-2], n=1, directed=False)


def with_source(G, data):
    return data.draw(st.integers(0, G.n - 1), label="source")


def broken(result, **fields):
    """A copy of ``result`` with some array elements replaced: ``level={3: -1}``."""
    changes = {}
    for name, edits in fields.items():
        if isinstance(edits, dict):
            array = np.array(getattr(result, name), copy=True)
            for i, value in edits.items():
                array[i] = value
            changes[name] = array
        else:
            changes[name] = edits
    return dataclasses.replace(result, **changes)


# ---------------------------------------------------------------------- oracles vs networkx
def to_networkx(G):
    H = nx.DiGraph() if G.directed else nx.Graph()
    H.add_nodes_from(range(G.n))
    src, dst, w = G.edges()
    w = np.ones(src.size) if w is None else w
    H.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    return H


@SETTINGS
@given(graphs(min_n=1), st.data())
def test_oracles_agree_with_networkx(G, data):
    H = to_networkx(G)
    s = with_source(G, data)
    expected = np.full(G.n, -1)
    for v, d in nx.single_source_shortest_path_length(H, s).items():
        expected[v] = d
    assert np.array_equal(bfs_levels(G, s), expected)
    parts = nx.strongly_connected_components(H) if G.directed else nx.connected_components(H)
    expected = np.empty(G.n, dtype=np.int64)
    for part in parts:
        expected[list(part)] = min(part)
    assert np.array_equal(scc_labels(G), expected)
    if not G.directed:
        H.remove_edges_from(nx.selfloop_edges(H))
        forest = kruskal(G)
        assert forest.total_weight == pytest.approx(
            nx.minimum_spanning_tree(H).size(weight="weight"), rel=1e-12, abs=1e-9)
        assert np.all(forest.src < forest.dst)


# ---------------------------------------------------------------------- accepting
@SETTINGS
@given(graphs(min_n=1), st.data())
@example(G=ONE, data=None)
def test_bfs_accepts_the_reference_in_every_form(G, data):
    s = 0 if data is None else with_source(G, data)
    r = bfs_tree(G, s)
    validate.bfs(G, s, r)
    validate.bfs(G, s, BFSResult(s, r.level, None))
    validate.bfs(G, s, BFSResult(s, None, r.parent))


@SETTINGS
@given(graphs(min_n=1), st.data())
def test_bfs_accepts_any_valid_parent(G, data):
    s = with_source(G, data)
    level = bfs_levels(G, s)
    parent = np.full(G.n, -1)
    parent[s] = s
    src, dst, _ = G.edges()
    if not G.directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    for u, v in zip(src.tolist(), dst.tolist()):   # the largest valid parent, not the first
        if v != s and level[u] >= 0 and level[u] == level[v] - 1:
            parent[v] = max(parent[v], u)
    validate.bfs(G, s, BFSResult(s, level, parent))


@SETTINGS
@given(graphs(directed=False))
@example(G=EMPTY)
@example(G=ONE)
def test_msf_accepts_kruskal(G):
    validate.msf(G, kruskal(G))


@SETTINGS
@given(graphs())
@example(G=EMPTY)
def test_scc_accepts_the_reference(G):
    validate.scc(G, scc(G))


def test_validators_on_generated_graphs():
    G = generate.kronecker(9, seed=2, weights="uniform")
    s = int(np.argmax(G.out_degree()))
    validate.bfs(G, s, bfs_tree(G, s))
    validate.msf(G, kruskal(G))
    validate.scc(G, scc(G))
    D = generate.rmat(9, seed=2, directed=True)
    validate.scc(D, scc(D))
    validate.bfs(D, 0, bfs_tree(D, 0))
    R = generate.ssca2(9, seed=1, weights="real")
    validate.msf(R, kruskal(R))


def test_accepts_other_array_types_and_modifies_nothing():
    G = generate.grid(4, 4, weights="real", seed=3)
    before = [a.copy() for a in (G.indptr, G.indices, G.weights)]
    r = bfs_tree(G, 5)
    level, parent = r.level.astype(np.int32), r.parent.astype(np.int16)
    for a in (level, parent):
        a.flags.writeable = False
    validate.bfs(G, 5, BFSResult(5, level, parent))
    validate.bfs(G, 5, BFSResult(5, level.tolist(), None))
    f = kruskal(G)
    validate.msf(G, MSFResult(f.src.tolist(), f.dst.astype(np.uint32), f.weight,
                              f.total_weight, f.component))
    validate.scc(G, SCCResult(scc_labels(G).astype(np.int32)))
    assert all(np.array_equal(a, b) for a, b in zip(before, (G.indptr, G.indices, G.weights)))
    assert np.array_equal(level, r.level)


# ---------------------------------------------------------------------- BFS rejections
# 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 2 -> 6, 3 -> 4, 4 -> 4, 5 -> 0 (5 is unreachable from 0)
BFS_G = Graph.from_edges([0, 0, 1, 2, 2, 3, 4, 5], [1, 2, 3, 3, 6, 4, 4, 0])
BFS_OK = BFSResult(0, np.array([0, 1, 1, 2, 3, -1, 2]), np.array([0, 0, 0, 1, 3, -1, 2]))


def test_bfs_fixture_is_valid():
    validate.bfs(BFS_G, 0, BFS_OK)
    assert np.array_equal(bfs_levels(BFS_G, 0), BFS_OK.level)


@pytest.mark.parametrize("result, rule", [
    (broken(BFS_OK, level={0: 1}), "source level rule"),
    (broken(BFS_OK, parent={0: 1}), "source parent rule"),
    (broken(BFS_OK, parent={4: 6}), "parent edge rule"),            # 6 has level 2, no 6 -> 4
    (broken(BFS_OK, parent={3: 0}), "parent level rule"),
    (broken(BFS_OK, level={4: 4}, parent=None), "edge level rule"),  # a jump of two levels
    (broken(BFS_OK, level={4: 4}), "parent level rule"),
    (broken(BFS_OK, level={4: -1}, parent={4: -1}), "edge level rule"),   # reachable, unreached
    (broken(BFS_OK, level={5: 1}, parent=None), "predecessor rule"),      # unreachable, reached
    (broken(BFS_OK, level={3: 1}, parent=None), "edge level rule"),       # level too small
    (broken(BFS_OK, level=None, parent={3: 4, 4: 3}), "parent tree rule"),  # a parent cycle
    (broken(BFS_OK, level=None, parent={6: 5}), "parent reached rule"),
    (broken(BFS_OK, parent={5: 0}), "unreached marks rule"),
    (broken(BFS_OK, level=np.array([0, 1, 1, 2, 3, -1])), "shape rule"),
    (broken(BFS_OK, level=BFS_OK.level.astype(float)), "dtype rule"),
    (broken(BFS_OK, parent={2: 7}), "range rule"),
    (broken(BFS_OK, level={2: -2}), "range rule"),
    (broken(BFS_OK, level=None, parent=None), "result rule"),
    (broken(BFS_OK, source=1), "source rule"),
])
def test_bfs_rejects(result, rule):
    with pytest.raises(ValidationError, match=rule):
        validate.bfs(BFS_G, 0, result)


def test_bfs_rejects_a_bad_source_argument():
    with pytest.raises(ValueError, match="source"):
        validate.bfs(BFS_G, 9, BFS_OK)


@SETTINGS
@given(graphs(min_n=1), st.data())
def test_bfs_rejects_any_changed_level(G, data):
    # levels are exactly hop distances, so every single change must be caught
    s = with_source(G, data)
    level = bfs_levels(G, s)
    v = data.draw(st.integers(0, G.n - 1), label="vertex")
    new = data.draw(st.integers(-1, G.n).filter(lambda x: x != level[v]), label="new level")
    with pytest.raises(ValidationError):
        validate.bfs(G, s, BFSResult(s, broken(BFSResult(s, level, None), level={v: new}).level,
                                     None))


# ---------------------------------------------------------------------- MSF rejections
# tree {0,1,2,3}: 0-1:1, 1-2:2, 0-2:3, 2-3:1, 1-3:5, loop 3-3:-10; tree {4,5}: 4-5:0; 6 alone
MSF_G = Graph.from_edges([0, 1, 0, 2, 1, 3, 4], [1, 2, 2, 3, 3, 3, 5],
                         weight=[1, 2, 3, 1, 5, -10, 0], n=7, directed=False)
MSF_OK = MSFResult(np.array([4, 0, 2, 1]), np.array([5, 1, 3, 2]), np.array([0, 1, 1, 2]), 4,
                   np.array([0, 0, 0, 0, 4, 4, 6]))


def test_msf_fixture_is_valid():
    validate.msf(MSF_G, MSF_OK)
    validate.msf(MSF_G, kruskal(MSF_G))


def forest(src, dst, weight, total=None, component=MSF_OK.component):
    weight = np.array(weight)
    return MSFResult(np.array(src), np.array(dst), weight,
                     weight.sum() if total is None else total, component)


@pytest.mark.parametrize("result, rule", [
    (forest([4, 0, 2, 1, 0], [5, 1, 3, 2, 2], [0, 1, 1, 2, 3]), "acyclic rule"),
    (forest([4, 0, 2, 0], [5, 1, 3, 2], [0, 1, 1, 3]), "minimality rule"),
    (forest([0, 2, 1], [1, 3, 2], [1, 1, 2]), "spanning rule"),           # {4, 5} not spanned
    (forest([4, 0, 2], [5, 1, 3], [0, 1, 1]), "spanning rule"),           # a tree cut in two
    (broken(MSF_OK, total_weight=5), "total weight rule"),
    (forest([4, 0, 2, 0], [5, 1, 3, 3], [0, 1, 1, 2]), "graph edge rule"),
    (broken(MSF_OK, weight={1: 2}), "edge weight rule"),
    (forest([5, 0, 2, 1], [4, 1, 3, 2], [0, 1, 1, 2]), "src < dst rule"),
    (forest([4, 0, 2, 1, 3], [5, 1, 3, 2, 3], [0, 1, 1, 2, -10]), "src < dst rule"),  # loop
    (broken(MSF_OK, component={3: 2}), "component label rule"),
    (broken(MSF_OK, component={4: 5, 5: 5}), "component label rule"),
    (broken(MSF_OK, dst=np.array([5, 1, 3])), "shape rule"),
    (broken(MSF_OK, src=MSF_OK.src.astype(float)), "dtype rule"),
    (broken(MSF_OK, component=np.zeros(6, dtype=int)), "shape rule"),
    (broken(MSF_OK, total_weight=np.array([4])), "shape rule"),
    (broken(MSF_OK, weight=MSF_OK.weight.astype(bool)), "dtype rule"),
    (broken(MSF_OK, total_weight=None), "dtype rule"),
])
def test_msf_rejects(result, rule):
    with pytest.raises(ValidationError, match=rule):
        validate.msf(MSF_G, result)


def test_msf_float_total_tolerance():
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], weight=[0.1, 0.2, -0.3], directed=False)
    f = kruskal(G)
    validate.msf(G, broken(f, total_weight=f.total_weight + 1e-14))
    with pytest.raises(ValidationError, match="total weight rule"):
        validate.msf(G, broken(f, total_weight=f.total_weight + 1e-6))


def test_msf_unweighted_counts_ones():
    G = Graph.from_edges([0, 1, 0], [1, 2, 2], directed=False)
    validate.msf(G, MSFResult([0, 1], [1, 2], [1, 1], 2, [0, 0, 0]))
    with pytest.raises(ValidationError, match="edge weight rule"):
        validate.msf(G, MSFResult([0, 1], [1, 2], [1, 2], 3, [0, 0, 0]))


def test_msf_needs_an_undirected_graph():
    G = Graph.from_edges([0], [1], weight=[1.0])
    with pytest.raises(ValueError, match="undirected") as info:
        validate.msf(G, MSFResult([0], [1], [1.0], 1.0, [0, 0]))
    assert not isinstance(info.value, ValidationError)


@SETTINGS
@given(graphs(directed=False, weighted=True, min_n=2), st.data())
def test_msf_rejects_a_dropped_edge(G, data):
    f = kruskal(G)
    if f.src.size == 0:
        return
    k = data.draw(st.integers(0, f.src.size - 1))
    keep = np.arange(f.src.size) != k
    with pytest.raises(ValidationError, match="spanning rule"):
        validate.msf(G, MSFResult(f.src[keep], f.dst[keep], f.weight[keep],
                                  f.weight[keep].sum(), f.component))


# ---------------------------------------------------------------------- SCC rejections
# SCC {0,1,2,3}: 0<->1, 2<->3, 1->2, 3->0; 3->4; SCC {4,5}: 4<->5; 6 alone; 7 with a loop
SCC_G = Graph.from_edges([0, 1, 2, 3, 1, 3, 3, 4, 5, 7], [1, 0, 3, 2, 2, 0, 4, 5, 4, 7], n=8)
SCC_OK = SCCResult(np.array([0, 0, 0, 0, 4, 4, 6, 7]))


def test_scc_fixture_is_valid():
    validate.scc(SCC_G, SCC_OK)
    assert np.array_equal(scc_labels(SCC_G), SCC_OK.labels)


@pytest.mark.parametrize("labels, rule", [
    ([1, 1, 1, 1, 4, 4, 6, 7], "canonical label rule"),            # label above the vertex
    ([0, 0, 1, 1, 4, 4, 6, 7], "canonical label rule"),            # label not its own label
    ([0, 0, 2, 2, 4, 4, 6, 7], "acyclic condensation rule"),       # an SCC split in two cycles
    ([0, 1, 1, 0, 4, 4, 6, 7], "acyclic condensation rule"),       # split, parts not cycles
    ([0, 0, 0, 0, 0, 0, 6, 7], "strongly connected class rule"),   # two SCCs merged
    ([0, 0, 0, 0, 4, 4, 6, 6], "strongly connected class rule"),   # two singletons merged
    ([0, 0, 0, 0, 4, 4, 6], "shape rule"),
    ([0.0, 0, 0, 0, 4, 4, 6, 7], "dtype rule"),
    ([0, 0, 0, 0, 4, 4, 6, 8], "range rule"),
])
def test_scc_rejects(labels, rule):
    with pytest.raises(ValidationError, match=rule):
        validate.scc(SCC_G, SCCResult(np.array(labels)))


def test_scc_on_undirected_graph_means_connected_components():
    G = Graph.from_edges([0, 2], [1, 3], n=5, directed=False)
    validate.scc(G, SCCResult([0, 0, 2, 2, 4]))
    with pytest.raises(ValidationError, match="strongly connected class rule"):
        validate.scc(G, SCCResult([0, 0, 0, 0, 4]))
    with pytest.raises(ValidationError, match="acyclic condensation rule"):
        validate.scc(G, SCCResult([0, 1, 2, 2, 4]))


@SETTINGS
@given(graphs(min_n=1), st.data())
def test_scc_rejects_any_changed_label(G, data):
    # canonical labels are unique, so every single change must be caught
    labels = scc_labels(G)
    v = data.draw(st.integers(0, G.n - 1), label="vertex")
    new = data.draw(st.integers(0, G.n - 1).filter(lambda x: x != labels[v]), label="label")
    labels[v] = new
    with pytest.raises(ValidationError):
        validate.scc(G, SCCResult(labels))


def test_docstring_examples():
    assert doctest.testmod(validate, raise_on_error=False).failed == 0
