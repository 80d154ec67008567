"""The ``lagraph`` networkx backend against networkx itself.

Graphs come from the ``graphs`` strategy, rebuilt as networkx graphs with arbitrary node
labels and shuffled node and edge insertion orders (so adjacency order is not id order),
directed and undirected, weighted with ties. Results must equal networkx's own, order
included where networkx defines it.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs

import lagraph_py
from lagraph_py.cpu import CpuExecutor
from lagraph_py.nx import get_info
from lagraph_py.nx.graph import LagraphGraph
from lagraph_py.nx.interface import FUNCTIONS, BackendInterface

#: networkx notes each reuse of a converted graph it cached; the tests reuse on purpose.
#: networkx finds the backend through the entry points of an installed lagraph_py.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs"),
    pytest.mark.skipif("lagraph" not in nx.utils.backends.backends,
                       reason="lagraph_py is not installed (pip install .), so networkx "
                              "has no 'lagraph' backend"),
]
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
LABELS = [lambda i: i, lambda i: 7 * i - 20, lambda i: f"v{i}", lambda i: ("node", i),
          lambda i: i if i % 2 else f"s{i}"]


@st.composite
def nx_graphs(draw, directed=None, weighted=None, min_n=0):
    """A networkx graph from :func:`oracles.graphs`, relabelled and reordered."""
    G = draw(graphs(max_n=12, directed=directed, weighted=weighted, min_n=min_n))
    label = draw(st.sampled_from(LABELS))
    H = nx.DiGraph() if G.directed else nx.Graph()
    H.add_nodes_from(label(i) for i in draw(st.permutations(range(G.n))))
    src, dst, w = G.edges()
    for k in draw(st.permutations(range(src.size))):
        data = {} if w is None else {"weight": w[k].item()}
        H.add_edge(label(int(src[k])), label(int(dst[k])), **data)
    return H


def sources(H):
    return st.sampled_from(list(H))


@pytest.fixture(params=["named", "reference"], scope="session")
def executor(request, backend):
    """Executor for ``executor=``: the named one, or the reference cpu executor."""
    if request.param == "reference":
        if backend != "cpu":
            pytest.skip("the reference executor runs on the cpu only")
        return CpuExecutor()
    return backend


# ----------------------------------------------------------------------- traversal
@SETTINGS
@given(data=st.data())
def test_bfs_equals_networkx(data, executor):
    H = data.draw(nx_graphs(min_n=1))
    s = data.draw(sources(H))
    depth = data.draw(st.one_of(st.none(), st.integers(-1, 4)))
    kw = {"backend": "lagraph", "executor": executor}
    assert (list(nx.bfs_edges(H, s, depth_limit=depth, **kw))
            == list(nx.bfs_edges(H, s, depth_limit=depth)))
    got, want = nx.bfs_tree(H, s, depth_limit=depth, **kw), nx.bfs_tree(H, s, depth_limit=depth)
    assert list(got.edges) == list(want.edges) and list(got) == list(want)
    assert list(nx.bfs_layers(H, s, **kw)) == list(nx.bfs_layers(H, s))
    got = nx.single_source_shortest_path_length(H, s, cutoff=depth, **kw)
    assert got == nx.single_source_shortest_path_length(H, s, depth)
    assert list(got.values()) == sorted(got.values())


@SETTINGS
@given(data=st.data())
def test_bfs_on_the_backend_graph(data):
    """A converted graph is reusable; the undirected reverse traversal is the same."""
    H = data.draw(nx_graphs(directed=False, min_n=1))
    s = data.draw(sources(H))
    B = LagraphGraph.from_networkx(H)
    assert list(nx.bfs_edges(B, s, reverse=True)) == list(nx.bfs_edges(H, s))
    assert list(nx.bfs_layers(B, [s])) == list(nx.bfs_layers(H, s))


def test_bfs_on_a_multigraph_follows_networkx():
    H = nx.MultiDiGraph([(2, 0), (2, 1), (2, 0), (0, 3), (1, 3), (3, 3)])
    for s in H:
        assert list(nx.bfs_edges(H, s, backend="lagraph")) == list(nx.bfs_edges(H, s))


def test_missing_source_raises_as_networkx():
    H = nx.path_graph(3)
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(nx.bfs_edges(H, 9, backend="lagraph"))
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(nx.bfs_layers(H, [9], backend="lagraph"))
    with pytest.raises(nx.NodeNotFound, match="not in G"):
        nx.single_source_shortest_path_length(H, [9], backend="lagraph")


# ----------------------------------------------------------------------- components
@SETTINGS
@given(H=nx_graphs())
def test_components_equal_networkx(H, executor):
    kw = {"backend": "lagraph", "executor": executor}
    if H.is_directed():
        got = list(nx.strongly_connected_components(H, **kw))
        assert set(map(frozenset, got)) == set(map(frozenset, nx.strongly_connected_components(H)))
        assert len(got) == len(set(map(frozenset, got)))
        assert (nx.number_strongly_connected_components(H, **kw)
                == nx.number_strongly_connected_components(H))
    else:
        assert list(nx.connected_components(H, **kw)) == list(nx.connected_components(H))
        assert nx.number_connected_components(H, **kw) == nx.number_connected_components(H)


def test_directed_only_and_undirected_only_functions_refuse_as_networkx():
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.strongly_connected_components(nx.path_graph(2), backend="lagraph"))
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(nx.DiGraph([(0, 1)]), backend="lagraph"))


# ----------------------------------------------------------------------- spanning trees
@SETTINGS
@given(H=nx_graphs(directed=False), algorithm=st.sampled_from(["kruskal", "boruvka"]))
def test_spanning_forest_equals_kruskal(H, algorithm, executor):
    """Kruskal's forest and order, equal weights included, for both algorithm names."""
    kw = {"backend": "lagraph", "executor": executor, "algorithm": algorithm}
    want = list(nx.minimum_spanning_edges(H))
    assert list(nx.minimum_spanning_edges(H, **kw)) == want
    assert (list(nx.minimum_spanning_edges(H, data=False, **kw))
            == [(u, v) for u, v, _ in want])
    T = nx.minimum_spanning_tree(H, **kw)
    assert nx.utils.graphs_equal(T, nx.minimum_spanning_tree(H))
    if algorithm == "boruvka":                      # networkx's Borůvka: the same weight
        total = sum(d.get("weight", 1) for *_, d in nx.minimum_spanning_edges(H, "boruvka"))
        assert math.isclose(T.size(weight="weight"), total, abs_tol=1e-9)


def test_spanning_tree_keeps_attributes():
    H = nx.Graph(name="roads")
    H.add_node("a", colour="red")
    H.add_edge("a", "b", weight=1, lanes=2)
    H.add_edge("b", "c", weight=1, lanes=1)
    H.add_edge("a", "c", weight=1)
    T = nx.minimum_spanning_tree(H, backend="lagraph")
    assert nx.utils.graphs_equal(T, nx.minimum_spanning_tree(H))
    assert T.graph == {"name": "roads"} and T.nodes["a"] == {"colour": "red"}


def test_weight_attribute_by_name():
    H = nx.Graph()
    H.add_edge(0, 1, weight=1, cost=9)
    H.add_edge(1, 2, weight=9, cost=1)
    H.add_edge(0, 2, weight=5, cost=5)
    for weight in ("weight", "cost"):
        assert (list(nx.minimum_spanning_edges(H, weight=weight, backend="lagraph"))
                == list(nx.minimum_spanning_edges(H, weight=weight)))


# ----------------------------------------------------------------------- what is declined
@pytest.mark.parametrize("call", [
    lambda: list(nx.bfs_edges(nx.DiGraph([(0, 1)]), 1, reverse=True, backend="lagraph")),
    lambda: nx.bfs_tree(nx.path_graph(3), 0, sort_neighbors=sorted, backend="lagraph"),
    lambda: list(nx.bfs_layers(nx.path_graph(3), [0, 2], backend="lagraph")),
    lambda: list(nx.minimum_spanning_edges(nx.path_graph(3), "prim", backend="lagraph")),
    lambda: nx.minimum_spanning_tree(nx.MultiGraph([(0, 1)]), backend="lagraph"),
    lambda: list(nx.minimum_spanning_edges(nx.Graph([(0, 1, {"weight": math.nan})]),
                                           backend="lagraph")),
], ids=["reverse", "sort_neighbors", "two-sources", "prim", "multigraph", "nan-weight"])
def test_unsupported_arguments_are_declined(call):
    with pytest.raises(NotImplementedError):
        call()


def test_can_run_says_why():
    H = nx.DiGraph([(0, 1)])
    assert "reverse" in BackendInterface.can_run("bfs_edges", (H, 0), {"reverse": True})
    assert BackendInterface.can_run("bfs_edges", (H, 0), {}) is True
    assert "not implemented" in BackendInterface.can_run("pagerank", (H,), {})
    assert BackendInterface.should_run("bfs_edges", (H, 0), {}) is True


def test_declined_calls_fall_back_to_networkx():
    H = nx.path_graph(4)
    with nx.config(backend_priority=["lagraph"], fallback_to_nx=True):
        assert list(nx.bfs_layers(H, [0, 3])) == [[0, 3], [1, 2]]
        assert list(nx.bfs_edges(H, 1)) == [(1, 0), (1, 2), (2, 3)]


# ----------------------------------------------------------------------- executor choice
def test_executor_configuration(backend):
    H = nx.cycle_graph(5)
    config = nx.config.backends.lagraph
    assert config.executor == "cpu"
    with pytest.raises(ValueError, match="executor must be one of"):
        config.executor = "tpu"
    with pytest.raises(ValueError, match="executor must be one of"):
        nx.number_connected_components(H, backend="lagraph", executor="tpu")
    previous, config.executor = config.executor, backend
    try:
        assert nx.number_connected_components(H, backend="lagraph") == 1
    finally:
        config.executor = previous


def test_backend_info_lists_the_implemented_functions():
    info = get_info()
    assert set(info["functions"]) == set(FUNCTIONS)
    assert all(callable(getattr(BackendInterface, name)) for name in FUNCTIONS)
    assert all(nx.utils.backends._registered_algorithms[name] for name in FUNCTIONS)


def test_round_trip_of_the_backend_graph():
    H = nx.DiGraph([("a", "b", {"weight": 2.5}), ("b", "c", {"weight": -1.0})])
    H.add_node("z")
    B = BackendInterface.convert_from_nx(H, edge_attrs={"weight": 1})
    assert nx.utils.graphs_equal(BackendInterface.convert_to_nx(B), H)
    assert BackendInterface.convert_to_nx(7) == 7


# ----------------------------------------------------------------------- networkx's tests
#: networkx's own test packages for the supported functions (about 10 s together).
NETWORKX_TESTS = ["networkx.algorithms.traversal",
                  "networkx.algorithms.shortest_paths.tests.test_unweighted",
                  "networkx.algorithms.tree.tests.test_mst",
                  "networkx.algorithms.components"]


def test_networkx_own_tests_pass_with_the_backend(tmp_path):
    """networkx's tests in its backend testing mode: every call of a supported function
    runs here (declined arguments fall back to networkx) and must give networkx's result."""
    if "lagraph" not in nx.utils.backends.backends:
        pytest.skip("lagraph_py is not installed, so networkx does not see the backend")
    root = str(Path(lagraph_py.__file__).parents[1])  # importable from the run's folder
    env = {**os.environ, "NETWORKX_TEST_BACKEND": "lagraph", "NETWORKX_FALLBACK_TO_NX": "True",
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-W", "ignore", "--pyargs", *NETWORKX_TESTS],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:]
