"""Connected components: the fused cpu step (Afforest on a lock-free union-find, or one
pass over every edge on sparse graphs, or searches on small sparse ones) against its
primitive definition (FastSV, run by the reference executor) and scipy, on random and
generated graphs, with 32- and 64-bit index arrays, each way on one thread and on all
(forced on small graphs by setting ``SPARSE`` and ``SEARCH_MAX`` and lowering
``PARALLEL_MIN`` and the block size); the public call and its errors; the
union-find's compare-and-swap.

Vertex ids past 2^31 are not tried: the labels alone would take 16 GiB. The 64-bit path
runs on small graphs given 64-bit index arrays.
"""

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import get_num_threads, njit, prange
from oracles import graphs, with_int64_ids
from scipy.sparse import csgraph

import lagraph_py as lg
from lagraph_py.cpu import CpuExecutor
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.cpu_steps import components
from lagraph_py.cpu_steps.union_find import compare_and_swap, union
from lagraph_py.graph import Graph
from lagraph_py.results import asnumpy

REF, FUSED = CpuExecutor(), FusedCpuExecutor()
RELAXED = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: The paths of the fused step: Afforest or one pass over every edge, on one thread or
#: on every thread in blocks of one vertex (so that the threads interleave on graphs of a
#: few vertices), or searches.
ONE_THREAD = dict(PARALLEL_MIN=1 << 62, SEARCH_MAX=0)
ALL_THREADS = dict(PARALLEL_MIN=0, BLOCKS_PER_THREAD=1 << 40, SEARCH_MAX=0)
PATHS = {"afforest": dict(ONE_THREAD, SPARSE=0),
         "afforest-threads": dict(ALL_THREADS, SPARSE=0),
         "every-edge": dict(ONE_THREAD, SPARSE=np.inf),
         "every-edge-threads": dict(ALL_THREADS, SPARSE=np.inf),
         "searches": dict(SPARSE=np.inf, SEARCH_MAX=1 << 62)}


def smallest_ids(G: Graph, weak: bool = False) -> np.ndarray:
    """scipy's connected components, each labelled by its smallest vertex id."""
    if G.n == 0:
        return np.zeros(0, np.int64)
    k, label = csgraph.connected_components(G.to_scipy(), directed=weak, connection="weak")
    smallest = np.full(k, G.n, np.int64)
    np.minimum.at(smallest, label, np.arange(G.n))
    return smallest[label]


def fused_labels(G: Graph, path: str) -> np.ndarray:
    with mock.patch.multiple(components, **PATHS[path]):
        return FUSED.to_dense(FUSED.connected_components(FUSED.matrix(G), G.n), -1)


def check(G: Graph, path: str) -> np.ndarray:
    """The fused step on ``path`` equals scipy, and the public call equals it too."""
    expected = smallest_ids(G)
    np.testing.assert_array_equal(fused_labels(G, path), expected)
    with mock.patch.multiple(components, **PATHS[path]):
        got = lg.connected_components(G).labels
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    return expected


# ---------------------------------------------------------------------- random graphs
@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=150, **RELAXED)
@given(G=graphs(max_n=40, directed=False), widen=st.booleans())
def test_random_graphs_equal_the_definition_and_scipy(path, G, widen):
    G = with_int64_ids(G) if widen else G
    expected = check(G, path)
    if G.n:
        reference = REF.to_dense(REF.connected_components(REF.matrix(G), G.n), -1)
        np.testing.assert_array_equal(reference, expected)


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=60, **RELAXED)
@given(G=graphs(max_n=40, directed=False))
def test_a_matrix_not_of_the_graph(path, G):
    """A loop-free matrix (exported once, not the Graph's own arrays) gives the same."""
    if not G.n:
        return
    with mock.patch.multiple(components, **PATHS[path]):
        got = FUSED.to_dense(FUSED.connected_components(FUSED.matrix(G, loops=False), G.n), -1)
    np.testing.assert_array_equal(got, smallest_ids(G))


# ---------------------------------------------------------------------- shapes by hand
def shapes() -> dict:
    n = 50
    ids = np.arange(n)
    pairs = np.arange(0, n - 1, 2)
    return {
        "empty": Graph.from_edges([], [], n=0, directed=False),
        "isolated": Graph.from_edges([], [], n=n, directed=False),
        "self-loops": Graph.from_edges(ids, ids, n=n, directed=False),
        "giant path": Graph.from_edges(ids[1:], ids[:-1], directed=False),
        "star on the last id": Graph.from_edges(np.full(n - 1, n - 1), ids[:-1],
                                                directed=False),
        "tiny pairs": Graph.from_edges(pairs, pairs + 1, n=n, directed=False),
        "duplicates": Graph.from_edges([3, 4, 3, 4, 9], [4, 3, 4, 3, 8], n=n,
                                       directed=False),
        "giant and tiny ones": Graph.from_edges(np.r_[ids[1:40], pairs[20:]],
                                                np.r_[ids[:39], pairs[20:] + 1],
                                                directed=False),
    }


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("widen", [False, True])
@pytest.mark.parametrize("name", list(shapes()))
def test_shapes(name, widen, path):
    G = shapes()[name]
    check(with_int64_ids(G) if widen else G, path)


# ---------------------------------------------------------------------- generators
GENERATED = {
    "kronecker": lambda: lg.generate.kronecker(12),
    "rmat": lambda: lg.generate.rmat(11),
    "ssca2": lambda: lg.generate.ssca2(10),
    "grid": lambda: lg.generate.grid(60, 70),
    "road": lambda: lg.generate.road(80, 60),
    "mesh": lambda: lg.generate.mesh(12, 10, 8),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("widen", [False, True])
@pytest.mark.parametrize("name", list(GENERATED))
def test_generated_graphs(name, widen, path):
    G = GENERATED[name]()
    check(with_int64_ids(G) if widen else G, path)


@pytest.mark.parametrize("make, runs", [(lambda: lg.generate.kronecker(14), 10),
                                        (lambda: lg.generate.road(150, 150), 40)])
def test_threads_racing_on_one_giant(make, runs):
    """Blocks of 64 vertices, both threads hooking into one giant component at once:
    every run equals scipy. (Links lost to races show only where the two threads do run
    at once, hence many runs.)"""
    G = make()
    expected = smallest_ids(G)
    with mock.patch.multiple(components, PARALLEL_MIN=0, BLOCKS_PER_THREAD=G.n // 128,
                             SEARCH_MAX=0):
        for _ in range(runs):
            np.testing.assert_array_equal(lg.connected_components(G).labels, expected)


@pytest.mark.parametrize("first", [components._SAMPLED, components._EVERY])
@settings(max_examples=100, **RELAXED)
@given(G=graphs(max_n=40, directed=False), data=st.data())
def test_links_lost_before_the_last_pass_are_made_again(first, G, data):
    """Whatever forest the sampled pass (or the pass over every edge) leaves (links lost
    to races: here, trees cut at random vertices), the last pass joins every component: a
    vertex outside the sampled largest tree joins all its neighbours, its sampled ones
    too."""
    if not G.n:
        return
    indptr, indices = G.indptr.view(np.uint32), G.indices.view(np.uint32)
    comp, labels = np.empty(G.n, np.uint32), np.empty(G.n, np.int64)
    nothing, everything = np.uint64(G.n), (np.uint64(0), np.uint64(G.n))
    for step in (components._START, first):
        components._pass(step, indptr, indices, comp, labels, nothing, *everything, False)
    cut = data.draw(st.lists(st.sampled_from(range(G.n)), max_size=G.n))
    comp[cut] = np.array(cut, np.uint32)
    giant = np.uint64(components._largest_tree(comp))
    for step in (components._REST, components._LABELS):
        components._pass(step, indptr, indices, comp, labels, giant, *everything, False)
    np.testing.assert_array_equal(labels, smallest_ids(G))


# ---------------------------------------------------------------------- the public call
def test_scc_of_an_undirected_graph_is_this_call():
    G = lg.generate.road(30, 30)
    np.testing.assert_array_equal(lg.scc(G).labels, lg.connected_components(G).labels)


def test_reference_executor_and_count():
    G = Graph.from_edges([0, 1, 3], [1, 2, 4], n=7, directed=False)
    c = lg.connected_components(G, backend=CpuExecutor())
    np.testing.assert_array_equal(asnumpy(c.labels), [0, 0, 0, 3, 3, 5, 6])
    assert c.ncomponents == 4


@settings(max_examples=60, **RELAXED)
@given(D=graphs(max_n=30, directed=True))
def test_directed_graphs_need_symmetrize(D):
    with pytest.raises(ValueError, match="undirected.*symmetrize=True.*scc"):
        lg.connected_components(D)
    indptr, indices = D.indptr.copy(), D.indices.copy()
    got = lg.connected_components(D, symmetrize=True).labels
    np.testing.assert_array_equal(got, smallest_ids(D, weak=True))
    np.testing.assert_array_equal(D.indptr, indptr)                  # input untouched
    np.testing.assert_array_equal(D.indices, indices)


def test_bad_arguments():
    with pytest.raises(TypeError, match="lagraph_py.Graph"):
        lg.connected_components(np.eye(3))
    with pytest.raises(ValueError, match="backend"):
        lg.connected_components(Graph.from_edges([0], [1], directed=False), backend="tpu")


# ---------------------------------------------------------------------- union-find
@njit
def _swap_twice(a, i, old, new):
    first = compare_and_swap(a, i, old, new)
    second = compare_and_swap(a, i, old, new)
    return first, second


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64, np.int32, np.int64])
def test_compare_and_swap_stores_only_over_the_expected_value(dtype):
    a = np.array([5, 7, 9], dtype)
    assert _swap_twice(a, 1, dtype(7), dtype(2)) == (True, False)
    np.testing.assert_array_equal(a, [5, 2, 9])


@njit
def _unions(parent, pairs, atomic):
    joined = 0
    for k in range(pairs.shape[0]):
        if atomic:
            joined += union(parent, pairs[k, 0], pairs[k, 1], True)
        else:
            joined += union(parent, pairs[k, 0], pairs[k, 1])
    return joined


@settings(max_examples=50, **RELAXED)
@given(st.lists(st.tuples(st.integers(0, 19), st.integers(0, 19)), max_size=40))
def test_union_roots_are_smallest_ids_atomic_or_not(pairs):
    pairs = np.array(pairs, np.int64).reshape(-1, 2)
    expected = smallest_ids(Graph.from_edges(pairs[:, 0], pairs[:, 1], n=20, directed=False))
    for atomic in (False, True):
        parent = np.arange(20, dtype=np.int64)
        joined = _unions(parent, pairs, atomic)
        roots = np.array([_root(parent, v) for v in range(20)])
        np.testing.assert_array_equal(roots, expected)
        assert joined == 20 - np.unique(expected).size          # one True per join


@njit(parallel=True)
def _contend(parent, steps, arrived, patience):
    """Two threads in lockstep (each waits for the other at every step, or gives up
    after ``patience`` polls): at step ``k`` thread ``t`` joins ``2 k + t`` with the root
    ``2 steps + k``, larger than both, so both try to hook that root at once. Returns
    the number of threads that gave up."""
    gave_up = np.zeros(2, np.int64)
    for t in prange(2):
        for k in range(steps):
            arrived[t] = k + 1
            polls = 0
            while not (compare_and_swap(arrived, 1 - t, k + 1, k + 1)        # atomic reads
                       or compare_and_swap(arrived, 1 - t, k + 2, k + 2)):
                polls += 1
                if polls > patience:
                    gave_up[t] = 1
                    break
            if gave_up[t]:
                break
            union(parent, 2 * k + t, 2 * steps + k, True)
    return gave_up.sum()


@pytest.mark.skipif(get_num_threads() < 2, reason="needs two threads")
def test_two_threads_hooking_one_root_lose_no_join():
    """Without the compare-and-swap about a third of these joins are lost."""
    steps = 5000
    parent = np.arange(3 * steps, dtype=np.int64)
    if _contend(parent, steps, np.zeros(2, np.int64), 1 << 26):
        pytest.skip("the two threads did not run at the same time")
    roots = np.array([_root(parent, v) for v in range(parent.size)])
    k = np.arange(steps)
    for members in (2 * k, 2 * k + 1, 2 * steps + k):
        np.testing.assert_array_equal(roots[members], 2 * k)


def _root(parent, v):
    while parent[v] != v:
        v = parent[v]
    return v
