"""BFS on every executor and method: levels against an independent oracle, parents by the
Graph500 rules (twice: ``lagraph_py.validate.bfs`` and the independent
``oracles.check_bfs_parents``), result conventions and input validation."""

import contextlib
from unittest import mock

import numpy as np
import pytest
import scipy.io
import scipy.sparse.csgraph as csgraph
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import bfs_levels, bfs_tree, check_bfs_parents, graphs

import lagraph_py as lg
from lagraph_py.cpu import CpuExecutor
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.cpu_steps import bfs as fused_bfs
from lagraph_py.executor import get_executor
from lagraph_py.scipy_cpu import ScipyCpuExecutor

MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")


def methods(backend):
    return ("auto",) + get_executor(backend).bfs_methods


def check(G, source, backend, method):
    r = lg.bfs(G, source, backend=backend, method=method)
    level, parent = lg.asnumpy(r.level), lg.asnumpy(r.parent)
    assert level.dtype == np.int64 and parent.dtype == np.int64
    np.testing.assert_array_equal(level, bfs_levels(G, source), err_msg=method)
    lg.validate.bfs(G, source, r)
    check_bfs_parents(G, source, parent)
    return r


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_n=40, directed=True) | graphs(max_n=40, directed=False), st.data())
def test_levels_and_parents_on_random_graphs(backend, G, data):
    if G.n == 0:
        return
    s = data.draw(st.integers(0, G.n - 1), label="source")
    for m in methods(backend):
        check(G, s, backend, m)


@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_real_matrices(backend, path):
    G = lg.read_mtx(path)
    rng = np.random.default_rng(7)
    for s in rng.choice(G.n, size=min(G.n, 4), replace=False):
        for m in methods(backend):
            check(G, int(s), backend, m)


@pytest.mark.parametrize("directed", [True, False])
def test_kronecker_all_methods_agree_with_scipy(backend, directed):
    G = lg.generate.kronecker(10, 8, seed=3, directed=directed)
    s = int(np.argmax(G.out_degree()))
    dist = csgraph.shortest_path(G.to_scipy(), unweighted=True, indices=s,
                                 directed=directed)
    expected = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    for m in methods(backend):
        r = lg.bfs(G, s, backend=backend, method=m)
        np.testing.assert_array_equal(lg.asnumpy(r.level), expected, err_msg=m)
        lg.validate.bfs(G, s, r)
        check_bfs_parents(G, s, lg.asnumpy(r.parent))


def as_index_type(G, index_type):
    """``G`` with its CSR arrays of ``index_type`` (the Graph's own choice is int32)."""
    return lg.Graph(G.n, G.directed, G.indptr.astype(index_type),
                    G.indices.astype(index_type), G.weights)


#: Every level on every core (a pull level in blocks of one word, so that both cores take
#: some).
PARALLEL = {(fused_bfs, "PARALLEL_WORK"): 0, (fused_bfs, "PARALLEL_PROBES"): 0,
            (fused_bfs, "PARALLEL_PUSH"): 1 << 62, (fused_bfs, "PARALLEL_PUSH_VERTICES"): 0,
            (fused_bfs, "PULL_BLOCK"): 1}
#: Every push level on every core, each core listing what it visits in its own queue.
PARALLEL_QUEUES = {(fused_bfs, "PARALLEL_WORK"): 1 << 62, (fused_bfs, "QUEUE_NQ"): 1,
                   (fused_bfs, "QUEUE_MIN_VERTICES"): 0, (fused_bfs, "PARALLEL_PROBES"): 0,
                   (fused_bfs, "PULL_BLOCK"): 1}
#: The direction changing as often as the search lets it: pull whatever it costs, back to
#: push whenever the frontier shrinks.
SWITCHING = {(fused_bfs, "ALPHA"): 1 << 40, (fused_bfs, "BETA"): 1,
             (fused_bfs, "PROBE_COST"): 0}
#: The rule's counts weighed tightly: pull only once the frontier has more out-edges than
#: the unvisited have in-edges.
COUNTED = {(fused_bfs, "ALPHA"): 1}
#: The outputs' -1 after the search wherever the last search reached half the vertices,
#: however small the graph.
FILL_AFTER = {(fused_bfs, "FILL_AFTER"): 0}
#: Tunings of the cpu executor's compiled search, each a set of patches: as shipped,
#: parallel, switching, counted, switching and parallel (and -1 after the search), and push
#: levels with a branch per edge on every graph, and on none.
TUNINGS = {
    "shipped": {},
    "parallel": PARALLEL,
    "switching": SWITCHING,
    "counted": COUNTED,
    "switching-parallel": SWITCHING | PARALLEL | FILL_AFTER,
    "parallel-queues": PARALLEL_QUEUES,
    "branches": {(fused_bfs, "BRANCHLESS_DEGREE"): 0,
                 (fused_bfs, "BRANCHY_DEGREE"): 0},
    "branchless": {(fused_bfs, "BRANCHLESS_DEGREE"): np.inf},
    "fill-after": FILL_AFTER,
}


@contextlib.contextmanager
def tuned(name):
    with contextlib.ExitStack() as stack:
        for (owner, attr), value in TUNINGS[name].items():
            stack.enter_context(mock.patch.object(owner, attr, value))
        yield


@pytest.mark.parametrize("tuning", TUNINGS)
@pytest.mark.parametrize("index_type", [np.int32, np.int64])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(max_n=150), st.data())
def test_fused_cpu_equals_reference_executor(tuning, index_type, G, data):
    """The compiled search gives the reference executor's levels and a valid BFS tree, for
    every method and output, under every tuning, on either index type."""
    if G.n == 0:
        return
    G = as_index_type(G, index_type)
    s = data.draw(st.integers(0, G.n - 1), label="source")
    for m in methods("cpu"):
        expected = lg.bfs(G, s, method=m, backend=CpuExecutor())
        with tuned(tuning):
            r = lg.bfs(G, s, method=m)
            levels_only = lg.bfs(G, s, method=m, parents=False)
            parents_only = lg.bfs(G, s, method=m, levels=False)
        np.testing.assert_array_equal(r.level, expected.level, err_msg=m)
        lg.validate.bfs(G, s, r)
        assert levels_only.parent is None and parents_only.level is None
        np.testing.assert_array_equal(levels_only.level, expected.level, err_msg=m)
        lg.validate.bfs(G, s, lg.BFSResult(s, None, parents_only.parent))
        for parent in (expected.parent, r.parent, parents_only.parent):
            check_bfs_parents(G, s, parent)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(min_n=1, max_n=120), st.lists(st.integers(0, 10**6), min_size=2, max_size=6),
       st.sampled_from(["auto", "push", "pull"]))
def test_searches_in_turn_mark_the_unreached_whatever_the_last_one_reached(G, picks, method):
    """The compiled search writes -1 at the unreached vertices before the search or after
    it, by how much of the graph the last search reached (on graphs of any size here):
    searches in turn on one Graph, from sources that reach much and little, each equal to
    the oracle's."""
    for pick in picks:
        s = pick % G.n
        with tuned("fill-after"):
            r = lg.bfs(G, s, method=method)
        np.testing.assert_array_equal(r.level, bfs_levels(G, s))
        check_bfs_parents(G, s, r.parent)


@pytest.mark.parametrize("method", ["auto", "push", "pull"])
def test_a_search_after_one_that_reached_most_marks_the_unreached(method):
    """A grid of 100 vertices beside 30 isolated ones: after a search that reached the
    grid, a search from an isolated vertex marks the other 129 unreached (written after the
    search, which the first one's reach chose), and the grid's again reaches it all."""
    grid = lg.generate.grid(10, 10).to_scipy().tocoo()
    G = lg.Graph.from_edges(grid.row, grid.col, n=130, directed=False)
    for s, reached in ((0, 100), (120, 1), (55, 100)):
        with tuned("fill-after"):
            r = lg.bfs(G, s, method=method)
        np.testing.assert_array_equal(r.level, bfs_levels(G, s))
        check_bfs_parents(G, s, r.parent)
        assert np.count_nonzero(r.level >= 0) == reached
        assert G._cache["cpu.bfs.scratch"].reach[0] == reached


@pytest.mark.parametrize("method", ["auto", "push", "pull"])
def test_cpu_search_is_one_call_without_steps(method):
    """Every cpu search, whatever the graph's size, runs no executor step: the whole
    search is one compiled call."""
    G = lg.generate.kronecker(12, 8, seed=1)
    s = int(np.argmax(G.out_degree()))
    steps = ("bfs_level", "bfs_push_levels", "bfs_pull_levels", "vxm", "mxv", "vector",
             "assign", "to_dense")
    with contextlib.ExitStack() as stack:
        for step in steps:
            stack.enter_context(mock.patch.object(FusedCpuExecutor, step,
                                                  side_effect=AssertionError(step)))
        r = lg.bfs(G, s, method=method)
    np.testing.assert_array_equal(r.level, bfs_levels(G, s))


def test_cores_queues_list_a_vertex_two_cores_took_once():
    """Two cores racing may both take a vertex: the next frontier lists it once, after
    the vertices before it, and the byte map that drops the repeat is left clear."""
    order = np.zeros(12, dtype=np.uint32)
    order[:4] = [0, 1, 2, 3]                              # frontier order[1:3]: 2 cores
    spill = np.zeros(12, dtype=np.uint32)
    spill[[0, 1, 3, 4]] = [7, 9, 9, 5]                    # 3 slots a frontier vertex
    counts = np.array([2, 2])
    reached = np.zeros(16, dtype=np.bool_)
    tail = fused_bfs._gather_queues(order, 1, 3, 4, spill, 3, counts, reached)
    assert tail == 7
    np.testing.assert_array_equal(order[4:7], [7, 9, 5])
    assert not reached.any()


def star_then_cluster():
    """A graph whose search from 0 pulls its second level only if the rule counts the
    in-edges of every vertex visited so far, the source's too (with :data:`COUNTED`): 0
    joined to 300 leaves (pushed without counting: its 300 edges are fewer than a pull
    costs at least), each leaf to a vertex of a cluster of 30 (100 edges among them), the
    last 30 leaves to a second one (the cluster's first probes in a pull, so a pull and a
    push give other parents)."""
    leaves, cluster = np.arange(1, 301), 301 + np.arange(30)
    edges = [(0, v) for v in leaves] + [(v, cluster[v % 30]) for v in leaves]
    edges += [(v, cluster[(v + 1) % 30]) for v in leaves[-30:]]
    edges += [(cluster[i], cluster[(i + step) % 30]) for step in (1, 2, 5) for i in range(30)]
    edges += [(cluster[i], cluster[i + 7]) for i in range(10)]
    src, dst = np.array(edges).T
    return lg.Graph.from_edges(src, dst, directed=False)


@pytest.mark.parametrize("make", [
    star_then_cluster,
    lambda: burst_ladder_burst(False),
    lambda: lg.generate.kronecker(12, 8, seed=1),
    lambda: lg.generate.rmat(11, 16, seed=2),
], ids=["star-then-cluster", "burst-ladder-burst", "kronecker", "rmat"])
@pytest.mark.parametrize("tuning", ["shipped", "counted"])
def test_search_choices_do_not_depend_on_how_the_arcs_are_stored(make, tuning):
    """An undirected graph and the directed graph of its arcs both ways (the same CSR, its
    transpose stored apart) are searched alike: the direction rule counts the same
    in-edges of the unvisited, read off the out-edges on the first, so every source
    gives the same parents (also where those counts alone decide: ``counted``)."""
    G = make()
    D = lg.Graph(G.n, True, G.indptr, G.indices, None)
    assert not G.directed and D.transpose() is not D
    degree = G.out_degree()
    for s in np.flatnonzero(degree)[::max(1, G.n // 64)]:
        with tuned(tuning):
            r, d = lg.bfs(G, s), lg.bfs(D, s)
        np.testing.assert_array_equal(r.level, d.level)
        np.testing.assert_array_equal(r.parent, d.parent, err_msg=f"source {s}")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(min_n=1, max_n=200), st.data())
def test_pull_estimate_stops_only_past_the_tie(G, data):
    """The pull estimate with a bound is the whole sample's where that stays below the
    bound, and else at least the bound and at most the whole sample's: the search's
    choice (pull where the estimate is below the tie) is the one the whole sample gives."""
    A = fused_bfs._Csr.of(G)
    AT = fused_bfs._Csr.of(G.transpose())
    heads = fused_bfs._Pull.of(A, AT).heads
    words = (G.n + 63) // 64
    visited = np.zeros(64 * words, dtype=np.bool_)
    visited[:G.n] = data.draw(st.lists(st.booleans(), min_size=G.n, max_size=G.n))
    front = np.zeros(words, dtype=np.uint64)
    for v in data.draw(st.lists(st.integers(0, G.n - 1), max_size=G.n)):
        front[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    samples = data.draw(st.integers(1, G.n))
    whole = fused_bfs._pull_cost(AT.indptr, AT.indices, heads, front, visited, samples,
                                 fused_bfs._UNBOUNDED)
    bound = data.draw(st.integers(0, 2 * whole + 2))
    got = fused_bfs._pull_cost(AT.indptr, AT.indices, heads, front, visited, samples, bound)
    if whole < bound:
        assert got == whole
    else:
        assert bound <= got <= whole


def burst_ladder_burst(directed):
    """A graph whose search from 0 pulls, pushes, then pulls again as shipped: 0 and a
    clique of 20 (level 1), 40 vertices joined to two clique vertices each (pulled), a
    ladder of 12 rungs (pushed, two vertices a level joined by a rung), a hub with 30
    leaves paired by edges (a frontier of more edges than what is left has, some within
    its level) and a tail behind each leaf (pulled)."""
    clique, fan = np.arange(1, 21), np.arange(21, 61)
    edges = [(0, v) for v in clique] + [(u, v) for u in clique for v in clique if u < v]
    edges += [(u, v) for v in fan for u in clique[[v % 20, (3 * v + 1) % 20]]]
    a, b = 61 + 2 * np.arange(12), 62 + 2 * np.arange(12)
    edges += [(fan[-1], a[0]), (fan[-1], b[0])] + list(zip(a, b)) + list(zip(a, a[1:]))
    edges += list(zip(b, b[1:]))
    hub = 85
    leaves, tails = hub + 1 + np.arange(30), hub + 31 + np.arange(30)
    edges += [(a[-1], hub), (b[-1], hub)] + [(hub, v) for v in leaves]
    edges += list(zip(leaves[::2], leaves[1::2])) + list(zip(leaves, tails))
    src, dst = np.array(edges).T
    if directed:                    # each edge both ways: pull levels read the transpose
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    return lg.Graph.from_edges(src, dst, directed=directed)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("tuning", ["shipped", "parallel", "parallel-queues"])
def test_direction_changes_back_and_forth(directed, tuning):
    """Pull, push, pull again: the second pull phase must not take again what the push
    levels between took (same-level edges in the last push level would re-take them)."""
    G = burst_ladder_burst(directed)
    with tuned(tuning):
        r = lg.bfs(G, 0)
    np.testing.assert_array_equal(r.level, bfs_levels(G, 0))
    lg.validate.bfs(G, 0, r)
    check_bfs_parents(G, 0, r.parent)


@pytest.mark.parametrize("directed", [False, True])
def test_reference_executor_changes_direction_back_and_forth(directed):
    """The algorithm text on the reference executor's primitive steps, on the same graph:
    its pull levels hand the search back to push levels at the level they reached."""
    from lagraph_py.cpu import CpuExecutor
    G = burst_ladder_burst(directed)
    r = lg.bfs(G, 0, backend=CpuExecutor())
    np.testing.assert_array_equal(r.level, bfs_levels(G, 0))
    check_bfs_parents(G, 0, r.parent)


@pytest.mark.parametrize("make", [
    lambda: lg.generate.road(60, 70, seed=1),
    lambda: lg.generate.grid(45, 50),
    lambda: lg.generate.kronecker(15, 8, seed=1),
    lambda: lg.generate.kronecker(15, 8, seed=1, directed=True),
], ids=["road", "grid", "kronecker", "kronecker-directed"])
@pytest.mark.parametrize("tuning", ["shipped", "parallel", "switching-parallel",
                                    "parallel-queues"])
def test_long_diameter_and_power_law_graphs(make, tuning):
    """Graphs large enough for the parallel levels and the direction switches as shipped,
    from a hub and from a vertex of the fewest edges."""
    G = make()
    degree = G.out_degree()
    for s in (int(np.argmax(degree)), int(np.argmin(np.where(degree > 0, degree, G.n)))):
        dist = csgraph.shortest_path(G.to_scipy().astype(bool), unweighted=True, indices=s,
                                     directed=G.directed)
        expected = np.where(np.isinf(dist), -1, dist).astype(np.int64)
        for m in methods("cpu"):
            with tuned(tuning):
                r = lg.bfs(G, s, method=m)
            np.testing.assert_array_equal(r.level, expected, err_msg=m)
            lg.validate.bfs(G, s, r)
            check_bfs_parents(G, s, r.parent)


@pytest.mark.parametrize("tuning", ["shipped", "parallel-queues", "branchless"])
def test_a_road_like_graph_past_the_prefetch_size(tuning):
    """A grid of more than ``PREFETCH_VERTICES`` vertices, its ids shuffled as a road map's
    are: push levels that prefetch their frontier's rows (on one core or each core's
    share) find the levels scipy finds, and valid parents."""
    side = int(np.ceil(np.sqrt(fused_bfs.PREFETCH_VERTICES))) + 8
    grid = lg.generate.grid(side, side)
    shuffle = np.random.default_rng(4).permutation(grid.n)
    src, dst, _ = grid.edges()
    G = lg.Graph.from_edges(shuffle[src], shuffle[dst], n=grid.n, directed=False)
    assert G.n > fused_bfs.PREFETCH_VERTICES
    for s in (0, int(shuffle[grid.n // 2])):
        dist = csgraph.shortest_path(G.to_scipy().astype(bool), unweighted=True, indices=s,
                                     directed=False)
        for m in ("auto", "push"):
            with tuned(tuning):
                r = lg.bfs(G, s, method=m)
            np.testing.assert_array_equal(r.level, dist.astype(np.int64), err_msg=m)
            lg.validate.bfs(G, s, r)


def test_long_path(backend):
    # One level per vertex; a pull level scans every unvisited vertex, so pull costs
    # O(n^2) here: the cpu path stays short, the gpu runs the full 100k-vertex path.
    n = 100_000 if backend == "gpu" else 1_500
    G = lg.Graph.from_edges(np.arange(n - 1), np.arange(1, n), directed=False)
    for m in methods(backend):
        r = lg.bfs(G, 0, backend=backend, method=m)
        np.testing.assert_array_equal(lg.asnumpy(r.level), np.arange(n), err_msg=m)
        np.testing.assert_array_equal(lg.asnumpy(r.parent)[1:], np.arange(n - 1))


def test_isolated_source_and_self_loop(backend):
    G = lg.Graph.from_edges([1, 1, 2], [1, 2, 1], n=4)
    for m in methods(backend):
        r = lg.bfs(G, 0, backend=backend, method=m)
        np.testing.assert_array_equal(lg.asnumpy(r.level), [0, -1, -1, -1])
        np.testing.assert_array_equal(lg.asnumpy(r.parent), [0, -1, -1, -1])
        r = lg.bfs(G, 1, backend=backend, method=m)
        np.testing.assert_array_equal(lg.asnumpy(r.level), [-1, 0, 1, -1])


def test_levels_only_and_parents_only(backend):
    G = lg.generate.grid(7, 9)
    full = lg.bfs(G, 5, backend=backend)
    lv = lg.bfs(G, 5, backend=backend, parents=False)
    pa = lg.bfs(G, 5, backend=backend, levels=False)
    assert lv.parent is None and pa.level is None
    np.testing.assert_array_equal(lg.asnumpy(lv.level), lg.asnumpy(full.level))
    lg.validate.bfs(G, 5, pa)
    check_bfs_parents(G, 5, lg.asnumpy(pa.parent))


def test_input_graph_unchanged(backend):
    G = lg.generate.kronecker(8, 4, seed=1)
    before = (G.indptr.copy(), G.indices.copy())
    lg.bfs(G, 0, backend=backend)
    np.testing.assert_array_equal(G.indptr, before[0])
    np.testing.assert_array_equal(G.indices, before[1])


def test_directed_edges_are_followed_forward_only():
    A = scipy.io.mmread(DATA / "mtx" / "west0067.mtx")
    G = lg.Graph.from_scipy(A)
    r = lg.bfs(G, 0)
    order = csgraph.breadth_first_order(A.tocsr(), 0, directed=True,
                                        return_predecessors=False)
    assert set(np.flatnonzero(r.level >= 0)) == set(order.tolist())


@pytest.mark.parametrize("kwargs, err, words", [
    (dict(source=5), ValueError, "source 5"),
    (dict(source=-1), ValueError, "source -1"),
    (dict(source=1.0), TypeError, "source"),
    (dict(source=0, method="sideways"), ValueError, "method"),
    (dict(source=0, backend="tpu"), ValueError, "backend"),
    (dict(source=0, levels=False, parents=False), ValueError, "nothing to compute"),
])
def test_bad_arguments(kwargs, err, words):
    G = lg.Graph.from_edges([0, 1], [1, 2], n=5)
    with pytest.raises(err, match=words):
        lg.bfs(G, **kwargs)


@pytest.mark.parametrize("source, method", [(5, "auto"), (-1, "pull"), (0, "edge")])
def test_cpu_search_step_checks_its_arguments(source, method):
    """The compiled search indexes without bounds tests: its group step refuses a source
    outside the graph or an unknown method itself."""
    G = lg.Graph.from_edges([0], [1], n=5)
    with pytest.raises(ValueError, match="source|method"):
        FusedCpuExecutor().bfs_search(G, source, method, True, True)


#: The cpu executors: the fused one and the one that runs while its loops compile.
CPU_EXECUTORS = [FusedCpuExecutor(), ScipyCpuExecutor()]


@pytest.mark.parametrize("ex", CPU_EXECUTORS, ids=["fused", "scipy"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(min_n=1, max_n=60, directed=True) | graphs(min_n=1, max_n=60, directed=False),
       st.data())
def test_search_into_given_arrays_equals_the_search(ex, G, data):
    """The search into the caller's arrays (what the gpu executor's hand-over runs, into
    pinned memory, with whichever cpu executor is active) writes what the search
    returns, into one output or both, even over arrays that held other values."""
    source = data.draw(st.integers(0, G.n - 1))
    want_level, want_parent = ex.bfs_search(G, source, "auto", True, True)
    levels, parents = data.draw(st.sampled_from([(True, True), (True, False), (False, True)]))
    level = np.full(G.n, 7, np.int64) if levels else None
    parent = np.full(G.n, 7, np.int64) if parents else None
    ex.bfs_search_into(G, source, "auto", level, parent)
    if levels:
        np.testing.assert_array_equal(level, want_level)
    if parents:
        np.testing.assert_array_equal(parent, want_parent)


@pytest.mark.parametrize("level, parent", [
    (None, None), (np.zeros(5, np.int32), None), (None, np.zeros(4, np.int64)),
    (np.zeros(10, np.int64)[::2], None), (np.zeros((5, 1), np.int64), None)],
    ids=["none", "int32", "short", "strided", "2-d"])
@pytest.mark.parametrize("ex", CPU_EXECUTORS, ids=["fused", "scipy"])
def test_search_into_refuses_unfit_arrays(ex, level, parent):
    G = lg.Graph.from_edges([0, 1], [1, 2], n=5)
    with pytest.raises(ValueError, match="nothing to compute|int64 arrays of 5"):
        ex.bfs_search_into(G, 0, "auto", level, parent)


@pytest.mark.parametrize("ex", CPU_EXECUTORS, ids=["fused", "scipy"])
def test_search_into_refuses_a_read_only_array(ex):
    level = np.zeros(5, np.int64)
    level.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        ex.bfs_search_into(lg.Graph.from_edges([0], [1], n=5), 0, "auto", level, None)


def test_gpu_only_methods_are_refused_on_cpu():
    with pytest.raises(ValueError, match="method"):
        lg.bfs(lg.Graph.from_edges([0], [1]), 0, method="edge")


def test_parent_checker_rejects_every_broken_rule():
    """The independent parent checker the tests above rely on accepts a BFS tree and
    rejects each broken rule: a parent without an edge, one at the wrong level, a source
    that is not its own parent, a parent for an unreached vertex."""
    G = lg.Graph.from_edges([0, 0, 1, 2, 3, 4, 5], [1, 2, 3, 3, 4, 2, 4], n=6)  # 5 unreached
    parent = bfs_tree(G, 0).parent
    check_bfs_parents(G, 0, parent)
    for v, p in ((4, 2), (3, 0), (2, 4), (0, 1), (5, 4), (4, 5), (4, -1)):
        broken = parent.copy()
        broken[v] = p
        with pytest.raises(AssertionError):
            check_bfs_parents(G, 0, broken)
