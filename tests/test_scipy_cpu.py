"""The cpu executor's cold path (scipy's routines, while the compiled loops are not ready)
returns exactly what the fused executor returns: BFS levels (parents validated), the
minimum spanning forest with its components, strongly connected and connected component
labels; its other steps are the fused executor's."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs, with_int64_ids

import lagraph_py as lg
import lagraph_py.scipy_cpu as scipy_cpu
from lagraph_py import generate
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.graph import Graph
from lagraph_py.scipy_cpu import ScipyCpuExecutor

COLD, FUSED = ScipyCpuExecutor(), FusedCpuExecutor()
RELAXED = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Weights whose span makes the packed rank keys drop low bits (see Ranking).
WIDE_INTS = [-(2**63), 2**63 - 1, 0, 1, -1]


def same_bfs(G, s, method):
    for levels, parents in ((True, True), (True, False), (False, True)):
        got = lg.bfs(G, s, backend=COLD, method=method, levels=levels, parents=parents)
        want = lg.bfs(G, s, backend=FUSED, method=method, levels=levels, parents=parents)
        assert (got.level is None) == (want.level is None)
        assert (got.parent is None) == (want.parent is None)
        if levels:
            assert got.level.dtype == np.int64
            np.testing.assert_array_equal(got.level, want.level)
        if parents:
            assert got.parent.dtype == np.int64
            lg.validate.bfs(G, s, lg.BFSResult(s, want.level, got.parent))


def same_forest(G):
    got = lg.msf(G, backend=COLD, symmetrize=True)
    want = lg.msf(G, backend=FUSED, symmetrize=True)
    for a, b in zip((got.src, got.dst, got.weight, got.component),
                    (want.src, want.dst, want.weight, want.component)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def same_components(G):
    got, want = lg.scc(G, backend=COLD).labels, lg.scc(G, backend=FUSED).labels
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


@settings(max_examples=150, **RELAXED)
@given(G=graphs(max_n=14), index64=st.booleans(), data=st.data())
def test_cold_path_equals_the_fused_executor(G, index64, data):
    G = with_int64_ids(G) if index64 else G
    if G.n:
        s = data.draw(st.integers(0, G.n - 1), label="source")
        for method in ("auto", "push", "pull"):
            same_bfs(G, s, method)
    same_components(G)
    for degree in (10**9, -1):                  # one scipy forest, filtered rank chunks
        with mock.patch.object(scipy_cpu, "FILTER_DEGREE", degree):
            same_forest(G)


@pytest.mark.parametrize("make", [
    lambda: generate.kronecker(11, weights="real"),
    lambda: generate.kronecker(11, weights="uniform"),
    lambda: generate.kronecker(11),
    lambda: generate.grid(40, 50, weights="real"),
    lambda: generate.road(60, 60, weights="uniform"),
    lambda: generate.uniform(3000, 1.5, weights="real"),
    lambda: generate.uniform(3000, 10, weights="real"),
    lambda: generate.ssca2(10, weights="uniform"),
], ids=["kron-real", "kron-int", "kron", "grid", "road", "uniform-sparse", "uniform-dense",
        "ssca2"])
def test_cold_path_on_generated_graphs(make):
    G = make()
    for s in (0, int(np.argmax(G.out_degree())), G.n - 1):
        for method in ("auto", "push", "pull"):
            same_bfs(G, s, method)
    same_forest(G)
    same_forest(with_int64_ids(G))
    same_components(G)


@pytest.mark.parametrize("make", [
    lambda: generate.kronecker(11, directed=True),
    lambda: generate.grid(30, 40, directed=True, orientation="random"),
    lambda: generate.mesh(8, 8, 8, directed=True, orientation="sweep", two_way=0.1),
    lambda: generate.cycle_chain(40, 25, shuffle=True),
    lambda: generate.uniform(3000, 2, directed=True),
], ids=["kron", "grid", "mesh", "cycle-chain", "uniform"])
def test_cold_path_on_directed_graphs(make):
    D = make()
    same_components(D)
    same_components(with_int64_ids(D))
    same_bfs(D, int(np.argmax(D.out_degree())), "auto")


def test_forest_of_weights_too_wide_for_the_packed_keys():
    n = 60
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, n, (2, 400))
    weight = rng.choice(np.array(WIDE_INTS, dtype=np.int64), 400)
    G = Graph.from_edges(src, dst, weight, n=n, directed=False)
    for degree in (10**9, -1):
        with mock.patch.object(scipy_cpu, "FILTER_DEGREE", degree):
            same_forest(G)


def test_long_path_levels():
    """Levels by pointer jumping along a path of many levels (and a stray vertex)."""
    n = 5000
    G = Graph.from_edges(np.arange(n - 1), np.arange(1, n), n=n + 1, directed=False)
    r = lg.bfs(G, 0, backend=COLD)
    np.testing.assert_array_equal(r.level, np.append(np.arange(n), -1))
    np.testing.assert_array_equal(r.parent[1:n], np.arange(n - 1))


def test_other_steps_run_on_the_fused_executor():
    """The README's push step on the cold executor, and its components as a vector."""
    G = lg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    frontier = COLD.vector(G.n, [0], [0])
    q = COLD.vxm(frontier, COLD.matrix(G), "any_secondi", mask=frontier, complement=True)
    idx, parents = COLD.to_coo(q)
    assert idx.tolist() == [1, 2] and parents.tolist() == [0, 0]
    labels = COLD.strong_components(G)
    assert COLD.nvals(labels) == G.n
    assert COLD.to_dense(COLD.apply(labels, "plus", 1), -1).tolist() == [1, 2, 3, 4]
    U = lg.Graph.from_edges([0, 2], [1, 3], n=5, directed=False)
    A = FUSED.matrix(U)                     # another executor's pattern: its own step
    assert COLD.to_dense(COLD.connected_components(A, U.n), -1).tolist() == [0, 0, 2, 2, 4]
