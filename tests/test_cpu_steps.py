"""The fused cpu executor's BFS group steps against their primitive definitions (run by the
reference executor), step by step from the same mid-search state; and the numpy forms of
graphblas objects the fused steps read."""

from unittest import mock

import graphblas as gb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs

import lagraph_py as lg
from lagraph_py.cpu import CpuExecutor, csr_arrays, dense_array, take_bitmap
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.executor import PUSH
from lagraph_py.results import BFSResult

REF, FUSED = CpuExecutor(), FusedCpuExecutor()
RELAXED = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def coo(u):
    idx, vals = u.to_coo()
    return idx.astype(np.int64), vals


def mid_search(ex, G, s, depth, semiring, with_level):
    """BFS vectors ``(frontier, visited, level)`` after ``depth`` reference push levels."""
    A = REF.matrix(G)
    frontier = REF.vector(G.n, [s], [s if semiring == "any_secondi" else 1])
    visited = REF.dup(frontier)
    level = REF.vector(G.n, [s], [0]) if with_level else None
    for k in range(1, depth + 1):
        frontier, _ = REF.bfs_level(A, None, frontier, visited, level, k, PUSH, semiring)
    return frontier, visited, level


def check_parents(G, visited_before, visited_after, level_after, semiring):
    """Each newly visited vertex holds a visited parent with an edge to it, one level up
    where levels are kept (or 1 under ``any_pair``)."""
    before = set(coo(visited_before)[0].tolist())
    idx, vals = coo(visited_after)
    seen = set(idx.tolist())
    level = None if level_after is None else dict(zip(*(x.tolist() for x in coo(level_after))))
    edges = set(zip(G.rows().tolist(), G.indices.tolist()))
    for v, p in zip(idx.tolist(), vals.tolist()):
        if v in before:
            continue
        if semiring == "any_pair":
            assert p == 1
            continue
        assert p in seen and (p, v) in edges, (p, v)
        if level is not None:
            assert level[p] == level[v] - 1, (p, v)


def run_step(ex, name, G, state, k, semiring, bound, with_degrees):
    frontier, visited, level = (None if x is None else x.dup() for x in state)
    A, AT = ex.matrix(G), ex.matrix(G, transpose=True)
    degrees = (ex.degree(G), ex.degree(G, incoming=True)) if with_degrees else None
    if name == "push_levels":
        out = ex.bfs_push_levels(A, frontier, visited, level, k, semiring, bound, degrees)
    elif name == "pull_levels":
        out = ex.bfs_pull_levels(A, AT, frontier, visited, level, k, semiring, bound, degrees)
    else:
        q, stats = ex.bfs_level(A, AT, frontier, visited, level, k, name, semiring, degrees)
        out = (q, k, stats)
    return out, frontier, visited, level


@settings(max_examples=80, **RELAXED)
@given(graphs(max_n=30), st.data())
def test_fused_bfs_steps_equal_their_definitions(G, data):
    if G.n == 0:
        return
    s = data.draw(st.integers(0, G.n - 1), label="source")
    semiring = data.draw(st.sampled_from(["any_secondi", "any_pair"]), label="semiring")
    with_level = data.draw(st.booleans(), label="level")
    with_degrees = data.draw(st.booleans(), label="degrees")
    depth = data.draw(st.integers(0, 3), label="depth")
    name = data.draw(st.sampled_from([PUSH, "push_levels", "pull_levels"]))
    bound = data.draw(st.integers(0, G.n) if name == "push_levels"
                      else st.floats(0, G.n) if name == "pull_levels" else st.just(None))
    state = mid_search(REF, G, s, depth, semiring, with_level)
    k = depth + 1
    (q0, k0, st0), f0, v0, l0 = run_step(REF, name, G, state, k, semiring, bound, with_degrees)
    (q1, k1, st1), f1, v1, l1 = run_step(FUSED, name, G, state, k, semiring, bound,
                                         with_degrees)
    assert (k1, st1) == (k0, st0)
    np.testing.assert_array_equal(coo(q1)[0], coo(q0)[0])
    np.testing.assert_array_equal(coo(v1)[0], coo(v0)[0])
    if with_level:
        for a, b in zip(coo(l1), coo(l0)):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(coo(f1), coo(state[0])):             # the input frontier is untouched
        np.testing.assert_array_equal(a, b)
    check_parents(G, state[1], v1, l1, semiring)
    if semiring == "any_pair":
        np.testing.assert_array_equal(coo(q1)[1], coo(q0)[1])


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("name", ["push_levels", "pull_levels"])
def test_steps_on_a_large_graph_use_every_path(directed, name):
    """Every level on every core (the parallel push and pull), from a hub of a Kronecker
    graph: the same last level, stats and levels as the definition, valid parents."""
    G = lg.generate.kronecker(12, 8, seed=2, directed=directed)
    s = int(np.argmax(G.out_degree()))
    state = mid_search(REF, G, s, 1, "any_secondi", True)
    bound = G.n if name == "push_levels" else 0.0
    (q0, k0, st0), _, v0, l0 = run_step(REF, name, G, state, 2, "any_secondi", bound, True)
    with mock.patch.object(FUSED, "parallel_work", 0):
        (q1, k1, st1), _, v1, l1 = run_step(FUSED, name, G, state, 2, "any_secondi", bound,
                                             True)
    assert (k1, st1) == (k0, st0) and k1 > 3
    for a, b in zip(coo(l1), coo(l0)):
        np.testing.assert_array_equal(a, b)
    r = BFSResult(s, None, REF.to_dense(v1, -1))
    lg.validate.bfs(G, s, r)


def test_loop_free_matrix_and_other_values_fall_back():
    """A loop-free matrix (exported once) runs fused; a float visited vector runs the
    definition; both agree with the reference."""
    G = lg.Graph.from_edges([0, 0, 1, 2, 2], [0, 1, 2, 2, 3], directed=True)
    for ex in (REF, FUSED):
        A = ex.matrix(G, loops=False)
        for values in ([0], [0.5]):
            frontier, visited = ex.vector(G.n, [0], values), ex.vector(G.n, [0], values)
            q, k, stats = ex.bfs_push_levels(A, frontier, visited, None, 1, "any_pair", 4)
            assert (k, stats.nq) == (4, 0)
            np.testing.assert_array_equal(coo(visited)[0], [0, 1, 2, 3])
    indptr, indices = csr_arrays(FUSED.matrix(G, loops=False))
    np.testing.assert_array_equal(indptr, [0, 1, 2, 3, 3])
    np.testing.assert_array_equal(indices, [1, 2, 3])


def test_host_forms_are_the_graphs_own_arrays():
    G = lg.generate.grid(4, 5)
    indptr, indices = csr_arrays(FUSED.matrix(G))
    assert indptr is G.indptr and indices is G.indices
    assert dense_array(FUSED.degree(G)) is G.out_degree()
    u = gb.Vector.from_dense(np.array([3, 1, 2]))
    np.testing.assert_array_equal(dense_array(u), [3, 1, 2])


@pytest.mark.parametrize("make", [
    lambda: gb.Vector.from_coo([1, 3], [7, 8], size=5),                 # sparse
    lambda: gb.Vector.from_coo([1, 3], [7, 7], size=5),                 # sparse, iso
    lambda: gb.Vector.from_dense(np.array([4, 5, 6, 7, 8])),            # full
    lambda: gb.Vector.from_scalar(9, 5),                                # full, iso
    lambda: gb.Vector(int, 5),                                          # empty
])
@pytest.mark.parametrize("as_bitmap", [False, True])
def test_take_bitmap_and_consuming_to_dense(make, as_bitmap):
    u = make()
    if as_bitmap:
        u.ss.config["sparsity_control"] = "bitmap"
        u.wait()
    idx, vals = u.to_coo()
    expected = np.full(u.size, -1)
    expected[idx] = vals
    bitmap, values = take_bitmap(u.dup())
    np.testing.assert_array_equal(np.flatnonzero(bitmap), idx)
    np.testing.assert_array_equal(values[bitmap], vals)
    np.testing.assert_array_equal(REF.to_dense(u.dup(), -1, consume=True), expected)
    np.testing.assert_array_equal(REF.to_dense(u, -1), expected)
