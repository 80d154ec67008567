"""Graph.from_networkx / Graph.to_networkx / Graph.from_cupy: round trips, label
mappings, validation, and the device copy a CuPy-built graph hands to the gpu executor."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import cupy_or_skip
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import bfs_levels, graphs, scc_labels

import lagraph_py as lg
from lagraph_py.executor import get_executor

SETTINGS = settings(max_examples=40, deadline=None)


def same_graph(A: lg.Graph, B: lg.Graph) -> None:
    assert (A.n, A.directed, A.weighted) == (B.n, B.directed, B.weighted)
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    if A.weighted:
        assert A.weights.dtype == B.weights.dtype
        np.testing.assert_array_equal(A.weights, B.weights)


def edge_dict(H: nx.Graph, index: dict, weight="weight") -> dict:
    """``{(id(u), id(v)): w}`` from networkx's own edge view (both ways if undirected)."""
    out = {}
    for u, v, w in H.edges(data=weight, default=1):
        out[index[u], index[v]] = w
        if not H.is_directed():
            out[index[v], index[u]] = w
    return out


def graph_edge_dict(G: lg.Graph) -> dict:
    w = G.weights if G.weighted else np.ones(G.nstored, dtype=np.int64)
    return dict(zip(zip(G.rows().tolist(), G.indices.tolist()), w.tolist()))


# ----------------------------------------------------------------------- networkx
@SETTINGS
@given(G=graphs())
def test_networkx_round_trip(G):
    H = G.to_networkx()
    assert H.is_directed() == G.directed and list(H) == list(range(G.n))
    assert H.number_of_edges() == G.nedges
    back = lg.Graph.from_networkx(H)
    edgeless = lg.Graph.from_edges([], [], n=G.n, directed=G.directed)
    same_graph(back, G if G.nedges or not G.weighted else edgeless)  # no weights: unweighted
    assert back.labels == tuple(range(G.n))


@SETTINGS
@given(data=st.data())
def test_from_networkx_maps_labels(data):
    """Edges and weights equal networkx's own view under the kept label mapping."""
    G = data.draw(graphs(weighted=True))
    H = nx.relabel_nodes(G.to_networkx(), {i: f"n{i}" for i in range(G.n)})
    nodelist = data.draw(st.permutations(list(H)))
    B = lg.Graph.from_networkx(H, nodelist=nodelist)
    assert B.labels == tuple(nodelist)
    index = {v: i for i, v in enumerate(B.labels)}
    assert graph_edge_dict(B) == edge_dict(H, index)
    assert nx.utils.graphs_equal(B.to_networkx(), H)


@SETTINGS
@given(data=st.data())
def test_nodelist_subset_keeps_induced_edges(data):
    G = data.draw(graphs(min_n=1))
    H = G.to_networkx()
    nodelist = data.draw(st.lists(st.sampled_from(list(H)), unique=True))
    B = lg.Graph.from_networkx(H, nodelist=nodelist)
    index = {v: i for i, v in enumerate(nodelist)}
    weight = "weight" if G.weighted else None
    assert graph_edge_dict(B) == edge_dict(H.subgraph(nodelist), index, weight)


def test_weights_from_attributes():
    H = nx.Graph([("a", "b", {"cost": 2, "weight": 0.5}), ("b", "c", {"cost": 3})])
    assert lg.Graph.from_networkx(H, weight="cost").weights.dtype == np.int64
    mixed = lg.Graph.from_networkx(H)                # a missing weight counts 1
    assert graph_edge_dict(mixed) == {(0, 1): 0.5, (1, 0): 0.5, (1, 2): 1.0, (2, 1): 1.0}
    assert not lg.Graph.from_networkx(H, weight=None).weighted
    assert not lg.Graph.from_networkx(H, weight="length").weighted


def test_multigraph_keeps_the_lightest_parallel_edge():
    H = nx.MultiDiGraph([(0, 1, {"weight": 3}), (0, 1, {"weight": -2}), (1, 1)])
    G = lg.Graph.from_networkx(H)
    assert graph_edge_dict(G) == {(0, 1): -2, (1, 1): 1}
    assert lg.msf(lg.Graph.from_networkx(nx.MultiGraph(H)), backend="cpu").total_weight == -2


def test_from_networkx_leaves_its_input_alone():
    H = nx.Graph([(0, 1, {"weight": 2.0})])
    H.add_node(5, colour="blue")
    before = H.copy()
    lg.Graph.from_networkx(H).to_networkx()
    assert nx.utils.graphs_equal(H, before) and H.nodes[5] == {"colour": "blue"}


def test_results_map_back_to_nodes():
    H = nx.DiGraph([("x", "y"), ("y", "x"), ("y", "z")])
    G = lg.Graph.from_networkx(H)
    labels = lg.scc(G).labels
    components = {}
    for node, c in zip(G.labels, labels.tolist()):
        components.setdefault(G.labels[c], set()).add(node)
    assert sorted(map(sorted, components.values())) == [["x", "y"], ["z"]]


@pytest.mark.parametrize("H, weight, error, match", [
    ("not a graph", "weight", TypeError, "networkx graph"),
    (nx.Graph([(0, 1, {"weight": math.nan})]), "weight", ValueError, r"edge \(0, 1\).*nan"),
    (nx.Graph([(0, 1, {"weight": math.inf})]), "weight", ValueError, "not a finite"),
    (nx.Graph([(0, 1, {"weight": "heavy"})]), "weight", TypeError, "integer or real"),
    (nx.Graph([(0, 1, {"weight": True})]), "weight", TypeError, "integer or real"),
])
def test_from_networkx_rejects_bad_input(H, weight, error, match):
    with pytest.raises(error, match=match):
        lg.Graph.from_networkx(H, weight=weight)


@pytest.mark.parametrize("nodelist, match", [([0, 0], "more than once"),
                                             ([0, 7], "not a node")])
def test_from_networkx_rejects_bad_nodelist(nodelist, match):
    with pytest.raises(ValueError, match=match):
        lg.Graph.from_networkx(nx.path_graph(3), nodelist=nodelist)


def test_to_networkx_weight_name_and_unlabelled_graphs():
    G = lg.Graph.from_edges([0, 2], [1, 2], weight=[1.5, -1.0], n=4, directed=False)
    H = G.to_networkx(weight="w")
    assert list(H) == [0, 1, 2, 3] and H[2][2] == {"w": -1.0} and H[0][1] == {"w": 1.5}
    assert G.labels is None
    assert lg.Graph.from_edges([0], [1]).to_networkx().edges[0, 1] == {}


# ----------------------------------------------------------------------- cupy
@SETTINGS
@given(G=graphs())
def test_from_cupy_equals_from_scipy(G):
    cp = cupy_or_skip()
    import cupyx.scipy.sparse as cpsp

    A = G.to_scipy().astype(np.float64 if G.weighted else np.float32)
    if not G.weighted:
        A.data[:] = 1
    D = lg.Graph.from_cupy(cpsp.csr_matrix(A), directed=G.directed)
    same_graph(D, lg.Graph.from_scipy(A, directed=G.directed))
    src, dst, w = G.edges()
    arrays = (cp.asarray(src), cp.asarray(dst)) + (() if w is None else (cp.asarray(w),))
    T = lg.Graph.from_cupy(arrays, directed=G.directed, n=G.n)
    same_graph(T, G)
    ex = get_executor("gpu")
    dm = ex.matrix(T)
    assert dm is T._cached("gpu.matrix.T0.L1", lambda: None)   # seeded, not rebuilt
    if T.nself_loops == 0:                                     # the same arrays serve
        assert ex.matrix(T, loops=False).indices is dm.indices
    np.testing.assert_array_equal(cp.asnumpy(dm.indices), T.indices)
    np.testing.assert_array_equal(cp.asnumpy(dm.indptr), T.indptr)
    assert dm.indices.dtype == T.index_dtype
    if G.n:
        np.testing.assert_array_equal(cp.asnumpy(lg.bfs(T, 0, backend="gpu").level),
                                      bfs_levels(G, 0))
        np.testing.assert_array_equal(cp.asnumpy(lg.scc(T, backend="gpu").labels),
                                      scc_labels(G))


def test_from_cupy_rejects_bad_input():
    cp = cupy_or_skip()
    import cupyx.scipy.sparse as cpsp

    with pytest.raises(ValueError, match="square"):
        lg.Graph.from_cupy(cpsp.csr_matrix(cp.ones((2, 3), dtype=cp.float32)))
    with pytest.raises(TypeError, match="cupy arrays"):
        lg.Graph.from_cupy((np.array([0]), np.array([1])))
    with pytest.raises(TypeError, match="integer vertex ids"):
        lg.Graph.from_cupy((cp.array([0.5]), cp.array([1.0])))
    with pytest.raises(ValueError, match="negative"):
        lg.Graph.from_cupy((cp.array([-1]), cp.array([1])))
    with pytest.raises(ValueError, match="not a finite"):
        lg.Graph.from_cupy((cp.array([0]), cp.array([1]), cp.array([cp.nan])))
    with pytest.raises(TypeError, match="cupyx.scipy.sparse matrix or a tuple"):
        lg.Graph.from_cupy(sp.csr_array(np.eye(2)))
