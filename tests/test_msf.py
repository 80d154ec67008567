"""Borůvka minimum spanning forest on every executor, against an independent Kruskal.

Kruskal (``oracles.kruskal``: plain Python union-find, ties by (weight, min, max)) gives
the unique forest, its rows in rank order, the component labels and the total; ``msf``
must match all of them exactly, on every backend, and pass ``lagraph_py.validate.msf``.
The fused cpu step (filter-Kruskal) must also return exactly what the reference executor's
primitive definition returns, under every schedule of its passes. The rank chunk schedule
(``FIRST_CHUNK``, ``GROWTH``) shapes only the reference's Filter-Borůvka, so the tests that
vary it run the reference executor too, under the schedule.
"""

from itertools import pairwise
from unittest import mock

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs, kruskal
from scipy.sparse.csgraph import connected_components

import lagraph_py.algorithms.msf as msf_module
import lagraph_py.cpu_steps.msf as fused_msf
from lagraph_py import generate, validate
from lagraph_py.algorithms.msf import FIRST_CHUNK, GROWTH, Ranking, msf, stable_order
from lagraph_py.cpu import CpuExecutor
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.graph import Graph
from lagraph_py.io import read_mtx
from lagraph_py.results import asnumpy

MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")  # 3x4

#: Weights that stress the rank sort: both zeros, neighbouring floats, a span so wide that
#: the packed sort keys drop low bits (ties of prefixes that must be re-sorted).
TRICKY_FLOATS = [0.0, -0.0, 1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), -1.0,
                 np.nextafter(-1.0, 0.0), 5e-324, -5e-324, 1e300, -1e300, 2.5]
#: Sums of up to 30 of these stay inside int64 (validate.msf sums in int64).
TRICKY_INTS = [0, 1, -1, 2, 2**58, 2**58 + 1, -(2**58), 1 - 2**58]
SORT_INTS = TRICKY_INTS + [2**63 - 1, 2**63 - 2, -(2**63), 1 - 2**63]
RELAXED = {"deadline": None,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]}
#: The executor that runs the definition of the group step, rank chunks and all.
REFERENCE = CpuExecutor()


def check(G, backend, oracle_graph=None, **kwargs):
    """Run msf and compare every field with Kruskal on ``oracle_graph`` (default ``G``)."""
    H = G if oracle_graph is None else oracle_graph
    f = msf(G, backend=backend, **kwargs)
    want = kruskal(H)
    src, dst, weight, comp = (asnumpy(x) for x in (f.src, f.dst, f.weight, f.component))
    assert src.dtype == dst.dtype == comp.dtype == np.int64
    assert weight.dtype == (H.weights.dtype if H.weighted else np.int64)
    np.testing.assert_array_equal(src, want.src)          # same edges, in rank order
    np.testing.assert_array_equal(dst, want.dst)
    np.testing.assert_array_equal(weight, want.weight)
    np.testing.assert_array_equal(comp, want.component)
    assert f.total_weight == want.total_weight
    assert type(f.total_weight) is type(want.total_weight)  # int, or float (fsum)
    validate.msf(H, f)
    return f


def reweight(G, values, data):
    """``G`` (undirected) with a weight drawn from ``values`` for every edge."""
    src, dst, _ = G.edges()
    w = data.draw(st.lists(st.sampled_from(values), min_size=src.size, max_size=src.size))
    return Graph.from_edges(src, dst, np.array(w), n=G.n, directed=False)


# ---------------------------------------------------------------------- random graphs
@settings(max_examples=120, **RELAXED)
@given(G=graphs(max_n=30, directed=False))
def test_random_graphs_match_kruskal(backend, G):
    check(G, backend)


SCHEDULES = pytest.mark.parametrize("first, growth", [(0.25, 4), (1e9, 4), (0.01, 2)],
                                    ids=["default", "one-chunk", "tiny-chunks"])


@SCHEDULES
@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=25, weighted=False, directed=False), values=st.sampled_from(
    [TRICKY_FLOATS, TRICKY_INTS]), data=st.data())
def test_extreme_and_neighbouring_weights(backend, first, growth, G, values, data):
    G = reweight(G, values, data)
    with mock.patch.multiple(msf_module, FIRST_CHUNK=first, GROWTH=growth):
        check(G, backend)
        check(G, REFERENCE)


@SCHEDULES
@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=25, directed=False))
def test_rank_chunk_schedule_does_not_change_the_forest(backend, first, growth, G):
    with mock.patch.multiple(msf_module, FIRST_CHUNK=first, GROWTH=growth):
        check(G, backend)
        check(G, REFERENCE)


def cheap_clusters_and_heavy_bridges(sizes):
    """Cliques of ``sizes`` vertices (ids in order) whose edges all weigh 0, joined in a
    chain by bridges of weight 1 between their first vertices: in rank order the cliques'
    spanning stars come first, then the other edges inside the cliques, then the bridges."""
    starts = np.cumsum([0, *sizes]).tolist()
    src, dst = [], []
    for lo, hi in pairwise(starts):
        for u in range(lo, hi):
            src += [u] * (hi - u - 1)
            dst += range(u + 1, hi)
    bridges = starts[:-2], starts[1:-1]
    w = [0] * len(src) + [1] * len(bridges[0])
    return Graph.from_edges(src + bridges[0], dst + bridges[1], w, n=starts[-1],
                            directed=False)


def crossing_edges_per_chunk(G):
    """For each rank chunk of the reference's schedule, how many of its edges join two
    trees of the edges of the chunks before it (scipy's components)."""
    src, dst, w = G.edges()
    keep = src != dst                              # edges() lists (u, v) in CSR order
    src, dst, w = src[keep], dst[keep], np.ones(keep.sum(), np.int64) if w is None else w[keep]
    counts, before = [], np.zeros(0, np.int64)
    for chunk in Ranking(w).chunks(G.n):
        A = sp.coo_array((np.ones(before.size), (src[before], dst[before])), shape=(G.n, G.n))
        label = connected_components(A, directed=False)[1]
        counts.append(int(np.count_nonzero(label[src[chunk]] != label[dst[chunk]])))
        before = np.concatenate([before, chunk])
    return counts


@pytest.mark.parametrize("sizes, first, growth", [
    ([8, 1], 1.0, 2),               # edges crossing per chunk: 9, 0, 1
    ([6, 6, 6], 0.3, 2),            # 5, 0, 20, 2
    ([16, 4, 4], 0.25, 2),          # 6, 9, 0, 0, 14
    ([12] + [1] * 32, FIRST_CHUNK, GROWTH),     # 11, 0, 32: the shipped schedule
])
def test_chunk_of_edges_inside_trees_then_a_bridge(backend, sizes, first, growth):
    """A rank chunk whose edges all lie inside trees found by earlier chunks is dropped
    whole, and a later chunk still holds a bridge that joins two trees: the rounds must go
    on past the dropped chunk."""
    G = cheap_clusters_and_heavy_bridges(sizes)
    with mock.patch.multiple(msf_module, FIRST_CHUNK=first, GROWTH=growth):
        counts = crossing_edges_per_chunk(G)
        check(G, backend)
        check(G, REFERENCE)
    dropped = counts.index(0, 1)                 # the case this test is about: a chunk
    assert any(counts[dropped + 1:]), counts     # dropped whole, a bridge after it


@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=20, directed=True))
def test_symmetrize_matches_the_undirected_graph(backend, G):
    src, dst, w = G.edges()
    check(G, backend, oracle_graph=Graph.from_edges(src, dst, w, n=G.n, directed=False),
          symmetrize=True)


# ---------------------------------------------------------------------- shapes
def test_empty_graph(backend):
    f = check(Graph.from_edges([], [], n=0, directed=False), backend)
    assert asnumpy(f.src).size == 0 and f.total_weight == 0


def test_one_vertex(backend):
    f = check(Graph.from_edges([], [], n=1, directed=False), backend)
    np.testing.assert_array_equal(asnumpy(f.component), [0])


def test_self_loops_only(backend):
    G = Graph.from_edges([0, 1, 2], [0, 1, 2], weight=[-5.0, 0.0, 3.0], directed=False)
    f = check(G, backend)
    assert asnumpy(f.src).size == 0 and f.total_weight == 0.0
    np.testing.assert_array_equal(asnumpy(f.component), [0, 1, 2])


def test_self_loop_lighter_than_every_edge_stays_out(backend):
    G = Graph.from_edges([0, 0, 1], [0, 1, 1], weight=[-100, 5, -100], directed=False)
    f = check(G, backend)
    assert f.total_weight == 5


def test_parallel_edges_keep_the_lightest(backend):
    # 0 - 1 given twice in one direction, 1 - 2 once each way, 2 - 3 twice one way, once back
    G = Graph.from_edges([0, 0, 1, 2, 2, 3, 2], [1, 1, 2, 1, 3, 2, 3],
                         weight=[5, 4, 9, 7, 8, 6, 2], n=4, directed=False)
    f = check(G, backend)
    np.testing.assert_array_equal(asnumpy(f.weight), [2, 4, 7])


def test_disconnected_forest_and_canonical_labels(backend):
    # two triangles and a path, with vertex ids interleaved, plus isolated vertices 9 and 10
    src = [8, 8, 3, 1, 5, 1, 7, 6]
    dst = [3, 0, 0, 5, 4, 4, 6, 2]
    w = [1.0, 2.0, 3.0, -1.0, -1.0, -1.0, 0.0, 0.0]
    f = check(Graph.from_edges(src, dst, w, n=11, directed=False), backend)
    np.testing.assert_array_equal(asnumpy(f.component), [0, 1, 2, 0, 1, 1, 2, 2, 0, 9, 10])


def test_star_with_largest_id_at_the_centre(backend):
    n = 200
    rng = np.random.default_rng(3)
    G = Graph.from_edges(np.full(n - 1, n - 1), np.arange(n - 1), rng.integers(-5, 5, n - 1),
                         directed=False)
    f = check(G, backend)
    assert (asnumpy(f.component) == 0).all()


@pytest.mark.parametrize("weights", ["decreasing", "increasing", "random", "equal"])
def test_long_path(backend, weights):
    n = 3000
    w = {"decreasing": np.arange(n - 1, 0, -1), "increasing": np.arange(1, n),
         "random": np.random.default_rng(5).random(n - 1), "equal": np.zeros(n - 1)}[weights]
    perm = np.random.default_rng(6).permutation(n)      # a path through shuffled ids
    f = check(Graph.from_edges(perm[:-1], perm[1:], w, directed=False), backend)
    assert asnumpy(f.src).size == n - 1


def test_all_equal_weights_break_ties_by_endpoints(backend):
    G = Graph.from_scipy(sp.csr_array(np.full((6, 6), 7) - 7 * np.eye(6, dtype=int)),
                         directed=False)                  # K6, every weight 7
    f = check(G, backend)
    np.testing.assert_array_equal(asnumpy(f.src), [0, 0, 0, 0, 0])
    np.testing.assert_array_equal(asnumpy(f.dst), [1, 2, 3, 4, 5])


def test_total_weight_past_the_float_range(backend):
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [1e308, 1e308, -1e308], directed=False)
    assert msf(G, backend=backend).total_weight == 1e308        # exact, then rounded
    G = Graph.from_edges([0, 1], [1, 2], [1e308, 1e308], directed=False)
    assert msf(G, backend=backend).total_weight == np.inf


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_zero_and_negative_weights(backend, dtype):
    src, dst = [0, 1, 2, 3, 0, 1], [1, 2, 3, 0, 2, 3]
    w = np.array([0, -2, 0, -2, -1, 0], dtype=dtype)
    f = check(Graph.from_edges(src, dst, w, directed=False), backend)
    assert f.total_weight == -5


def test_unweighted_graph_weighs_one_per_edge(backend):
    G = generate.grid(7, 9)
    f = check(G, backend)
    weight = asnumpy(f.weight)
    assert weight.dtype == np.int64 and (weight == 1).all()
    assert f.total_weight == 7 * 9 - 1 and type(f.total_weight) is int


@pytest.mark.parametrize("weights", [None, "uniform", "real"])
def test_kronecker(backend, weights):
    G = generate.kronecker(10, 8, seed=11, weights=weights)
    check(G, backend)


# ---------------------------------------------------------------------- conventions
def test_rows_follow_the_strict_order(backend):
    G = generate.kronecker(8, 8, seed=2, weights="real")
    f = msf(G, backend=backend)
    src, dst, w = (asnumpy(x) for x in (f.src, f.dst, f.weight))
    assert (src < dst).all()
    np.testing.assert_array_equal(np.lexsort((dst, src, w)), np.arange(src.size))
    comp = asnumpy(f.component)
    assert (comp <= np.arange(G.n)).all() and (comp[comp] == comp).all()


def test_input_graph_is_not_modified(backend):
    G = generate.kronecker(7, 4, seed=1, weights="uniform", directed=True)
    before = [a.copy() for a in (G.indptr, G.indices, G.weights)]
    f = msf(G, backend=backend, symmetrize=True)
    assert G.directed
    for a, b in zip(before, (G.indptr, G.indices, G.weights)):
        np.testing.assert_array_equal(a, b)
    assert not np.shares_memory(asnumpy(f.weight), G.weights)


def test_directed_graph_raises(backend):
    G = Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="undirected"):
        msf(G, backend=backend)


def test_symmetrize_keeps_the_lightest_direction(backend):
    G = Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 1], weight=[5, 2, -1, 4])
    f = msf(G, backend=backend, symmetrize=True)
    np.testing.assert_array_equal(asnumpy(f.weight), [-1, 2])


def test_bad_arguments():
    with pytest.raises(TypeError, match="Graph"):
        msf(sp.eye(3, format="csr"))
    with pytest.raises(ValueError, match="backend"):
        msf(Graph.from_edges([0], [1], directed=False), backend="tpu")


# ---------------------------------------------------------------------- real matrices
@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_real_matrices(backend, path):
    G = read_mtx(path)                    # symmetric header: undirected, else directed
    if not G.directed:
        check(G, backend)
    else:
        src, dst, w = G.edges()
        check(G, backend, oracle_graph=Graph.from_edges(src, dst, w, n=G.n, directed=False),
              symmetrize=True)


# ---------------------------------------------------------------------- the rank sort
@settings(max_examples=200, deadline=None)
@given(st.sampled_from([TRICKY_FLOATS, SORT_INTS]).flatmap(
    lambda pool: st.lists(st.sampled_from(pool), max_size=300)))
def test_stable_order_is_a_stable_argsort(values):
    w = np.array(values, dtype=np.float64 if isinstance(values[0] if values else 0.0, float)
                 else np.int64)
    np.testing.assert_array_equal(stable_order(w), np.argsort(w, kind="stable"))


def test_stable_order_resorts_prefix_ties():
    # 1e308 and -1e308 widen the key span, so 1.0 and its neighbour share a key prefix
    # and come out in position order; the fix-up must swap them.
    w = np.array([1e308, -1e308, np.nextafter(1.0, 2.0), 1.0, 1.0])
    np.testing.assert_array_equal(stable_order(w), [1, 3, 4, 2, 0])
    w = np.array([2**62, -(2**62), 3, 2, 3, 2])
    np.testing.assert_array_equal(stable_order(w), [1, 3, 5, 2, 4, 0])


# ---------------------------------------------------------------------- the fused cpu step
#: Schedules of the filter-Kruskal step: as shipped (small graphs: one light pass, one
#: sort); every graph through the sampled light pass, the filtered heavy pass and the rank
#: chunks; a light pass of a single edge. PARALLEL runs the filtered schedule on every core.
FILTERED = {"SMALL": 0, "ALL_AT": 2.0, "LIGHT": 0.2, "SAMPLE": 16}
PARALLEL = {**FILTERED, "PARALLEL_MIN": 0}
FUSED_SCHEDULES = pytest.mark.parametrize(
    "schedule", [{}, FILTERED, {"SMALL": 0, "ALL_AT": 2.0, "LIGHT": 1e-9}],
    ids=["shipped", "filtered", "one-light-edge"])


def same_as_reference(G, schedule=None, first=FIRST_CHUNK, growth=GROWTH):
    """Run the fused step under ``schedule`` and the reference definition, both under the
    rank chunk schedule ``first``, ``growth``; compare exactly."""
    shipped = {"SMALL": fused_msf.SMALL}                      # patch.multiple needs one
    with mock.patch.multiple(msf_module, FIRST_CHUNK=first, GROWTH=growth):
        with mock.patch.multiple(fused_msf, **(schedule or shipped)):
            got = FusedCpuExecutor().spanning_forest(G)
        want = REFERENCE.spanning_forest(G)
    for a, b in zip(got, want):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    return got


@FUSED_SCHEDULES
@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=30, directed=False), first=st.sampled_from([0.01, 0.25]),
       growth=st.sampled_from([2, 4]))
def test_fused_matches_reference_on_random_graphs(schedule, G, first, growth):
    same_as_reference(G, schedule, first, growth)


@settings(max_examples=15, **RELAXED)
@given(G=graphs(max_n=30, directed=False))
def test_fused_matches_reference_on_every_core(G):
    same_as_reference(G, PARALLEL)


@FUSED_SCHEDULES
@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=25, weighted=False, directed=False), values=st.sampled_from(
    [TRICKY_FLOATS, TRICKY_INTS, [7], [0.0, -0.0], [-1, 0, 1]]), data=st.data())
def test_fused_matches_reference_on_ties_and_extreme_weights(schedule, G, values, data):
    same_as_reference(reweight(G, values, data), schedule)


@FUSED_SCHEDULES
@settings(max_examples=20, **RELAXED)
@given(G=graphs(max_n=25, weighted=False, directed=False))
def test_fused_matches_reference_unweighted(schedule, G):
    f = same_as_reference(G, schedule)
    assert (f[2] == 1).all()


@pytest.mark.parametrize("schedule", [{}, FILTERED, PARALLEL],
                         ids=["shipped", "filtered", "parallel"])
def test_fused_many_components_stars_and_paths(schedule):
    rng = np.random.default_rng(8)
    ids = rng.permutation(3000)                 # 500 triangles, a star, a path; the last
    triangles = ids[:1500].reshape(-1, 3)       # 100 ids isolated
    star, path = ids[1500:2000], ids[2000:2900]
    src = np.concatenate([triangles[:, 0], triangles[:, 1], triangles[:, 2],
                          np.full(star.size - 1, star[0]), path[:-1], [5, 5]])
    dst = np.concatenate([triangles[:, 1], triangles[:, 2], triangles[:, 0],
                          star[1:], path[1:], [5, path[0]]])    # a self-loop, a bridge
    for w in (rng.integers(-2, 3, src.size), rng.random(src.size), None):
        G = Graph.from_edges(np.concatenate([src, dst[:50]]), np.concatenate([dst, src[:50]]),
                             None if w is None else np.concatenate([w, w[:50] - 1]),
                             n=3000, directed=False)           # 50 parallel edges
        forest = same_as_reference(G, schedule)
        assert np.unique(forest[3]).size == connected_components(G.to_scipy())[0]


@FUSED_SCHEDULES
@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_fused_real_matrices(schedule, path):
    G = read_mtx(path)
    if G.directed:
        src, dst, w = G.edges()
        G = Graph.from_edges(src, dst, w, n=G.n, directed=False)
    same_as_reference(G, schedule)


@pytest.mark.parametrize("weights", [None, "real"])
def test_fused_kronecker_16(weights):
    G = generate.kronecker(16, 16, seed=4, weights=weights)
    same_as_reference(G)               # sampled light pass, filtered heavy pass
    validate.msf(G, msf(G))


def test_fused_grid_with_three_weights_matches_kruskal():
    G = generate.grid(300, 300)
    rng = np.random.default_rng(9)
    src, dst, _ = G.edges()
    G = Graph.from_edges(src, dst, rng.choice([-1.5, 0.0, 2.0], src.size), n=G.n,
                         directed=False)       # equal weights: ties broken by endpoints
    with mock.patch.multiple(fused_msf, SMALL=0, ALL_AT=2.0):
        f = check(G, "cpu")                    # the oracle, through the filtered passes
    assert asnumpy(f.src).size == G.n - 1
    same_as_reference(G)


def test_fused_step_leaves_the_thread_count_alone():
    threads = numba.get_num_threads()
    FusedCpuExecutor().spanning_forest(generate.grid(5, 5))       # one thread inside
    assert numba.get_num_threads() == threads


@settings(max_examples=20, **RELAXED)
@given(G=graphs(max_n=30, directed=False))
def test_fused_repeated_calls_on_one_graph_agree(G):
    """The second call starts from the edge list the first kept with the Graph."""
    first = same_as_reference(G)
    for a, b in zip(first, FusedCpuExecutor().spanning_forest(G)):
        np.testing.assert_array_equal(a, b)
