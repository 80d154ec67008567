"""GPU BFS: every method against the cpu executor, on generated and real graphs.

Levels must equal the cpu path's exactly; parents must pass ``lagraph_py.validate.bfs``
(any valid BFS tree). Skipped where CuPy or a CUDA device is absent.
"""

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cupy_or_skip  # noqa: E402

cp = cupy_or_skip()

from oracles import bfs_levels, graphs, with_int64_ids  # noqa: E402

from lagraph_py import validate  # noqa: E402
from lagraph_py.algorithms.bfs import bfs  # noqa: E402
from lagraph_py.executor import get_executor  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402
from lagraph_py.io import read_mtx  # noqa: E402
from lagraph_py.results import BFSResult, asnumpy  # noqa: E402

pytestmark = pytest.mark.gpu
GPU = get_executor("gpu")
METHODS = ("auto",) + GPU.bfs_methods
MTX = sorted((Path(__file__).parent / "data" / "mtx").glob("*.mtx")) or sorted(
    Path("/work/shared/data/mtx").glob("*.mtx"))


def poison_pool():
    junk = cp.full(64 << 20, 0xA5, dtype=cp.uint8)
    del junk


def check(G, s, method, *, cpu=None):
    """GPU BFS from s by `method`: levels == cpu levels, parents valid, results on device."""
    poison_pool()
    cpu = cpu or bfs(G, s, backend="cpu")
    r = bfs(G, s, backend="gpu", method=method)
    assert isinstance(r.level, cp.ndarray) and isinstance(r.parent, cp.ndarray)
    level, parent = asnumpy(r.level), asnumpy(r.parent)
    assert level.dtype == np.int64 and parent.dtype == np.int64
    np.testing.assert_array_equal(level, cpu.level, err_msg=f"method {method}")
    validate.bfs(G, s, BFSResult(s, level, parent))
    return cpu


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(G=graphs(max_n=40, min_n=1), data=st.data())
def test_every_method_on_generated_graphs(G, data):
    s = data.draw(st.integers(0, G.n - 1))
    cpu = None
    for method in METHODS:
        cpu = check(G, s, method, cpu=cpu)


@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_every_method_on_mtx(path):
    try:
        G = read_mtx(path)
    except ValueError as exc:                   # e.g. a rectangular matrix is no graph
        pytest.skip(str(exc))
    if G.n == 0:
        pytest.skip("empty graph")
    deg = G.out_degree()
    sources = {0, G.n - 1, int(np.argmax(deg))}
    for s in sorted(sources):
        cpu = None
        for method in METHODS:
            cpu = check(G, s, method, cpu=cpu)
        if G.directed:                      # the same matrix read as undirected
            U = Graph.from_scipy(G.to_scipy(), directed=False)
            cpu = None
            for method in METHODS:
                cpu = check(U, s, method, cpu=cpu)


@pytest.mark.parametrize("directed", [True, False])
def test_random_larger_graphs(directed):
    rng = np.random.default_rng(7 + directed)
    for n, m in ((2000, 6000), (5000, 60000), (3000, 3100)):
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        hubs = rng.integers(0, n, 5)
        src = np.concatenate([src, np.repeat(hubs, n // 3)])     # a few high-degree vertices
        dst = np.concatenate([dst, rng.integers(0, n, 5 * (n // 3))])
        G = Graph.from_edges(src, dst, n=n, directed=directed)
        for s in (int(src[0]), int(hubs[0]), n - 1):
            cpu = None
            for method in METHODS:
                cpu = check(G, s, method, cpu=cpu)


@pytest.mark.parametrize("method", METHODS)
def test_isolated_source_self_loops_duplicates(method):
    G = Graph.from_edges([0, 0, 0, 1, 1, 2, 4, 4], [0, 1, 1, 2, 1, 0, 4, 4], n=6)
    for s in range(6):
        check(G, s, method)


@pytest.mark.parametrize("directed", [True, False])
def test_long_path(directed):
    n = 100_000
    rng = np.random.default_rng(3)
    perm = rng.permutation(n)
    G = Graph.from_edges(perm[:-1], perm[1:], n=n, directed=directed)
    s = int(perm[0])
    expected = np.empty(n, dtype=np.int64)
    expected[perm] = np.arange(n)
    known = BFSResult(s, expected, None)
    # 100k levels: the per-level methods cost a host sync each, so two of them suffice
    for method in ("auto", "queue") if directed else ("auto", "pull_hub"):
        check(G, s, method, cpu=known)


def test_levels_only_parents_only_and_repeat():
    rng = np.random.default_rng(11)
    n = 3000
    G = Graph.from_edges(rng.integers(0, n, 20000), rng.integers(0, n, 20000), n=n,
                         directed=False)
    cpu = bfs(G, 5, backend="cpu")
    for method in METHODS:
        r = bfs(G, 5, backend="gpu", method=method, parents=False)
        assert r.parent is None
        np.testing.assert_array_equal(asnumpy(r.level), cpu.level)
        r = bfs(G, 5, backend="gpu", method=method, levels=False)
        assert r.level is None
        validate.bfs(G, 5, BFSResult(5, None, asnumpy(r.parent)))
    A = GPU.matrix(G)
    bfs(G, 5, backend="gpu")
    assert GPU.matrix(G) is A                        # second BFS copies nothing


def test_persistent_kernel_single_block_and_grid():
    """bfs_push_levels with one block (PMPP's single-block kernel) and with a grid."""
    from lagraph_py.generate import grid
    G = grid(60, 70)
    cpu = bfs(G, 0, backend="cpu")
    old = GPU.persistent_blocks
    try:
        for blocks in (1, None):
            GPU.persistent_blocks = blocks
            check(G, 0, "auto", cpu=cpu)
            check(G, 1234, "auto")
    finally:
        GPU.persistent_blocks = old


@pytest.mark.parametrize("directed", [True, False])
def test_persistent_kernel_edge_balanced(directed):
    """With the persistent kernel's limits lifted, a search from a leaf runs in its launch
    through levels holding hubs among leaves; they are expanded edge-balanced (on every
    level with persistent_balance 0, on the heavy ones by default): levels equal the cpu's,
    parents are valid."""
    from lagraph_py.generate import kronecker
    G = kronecker(11, seed=4, directed=directed)
    deg = G.out_degree()
    sources = (int(np.flatnonzero(deg == 1)[0]), int(np.argmax(deg)), int(np.argmin(deg)))
    old = GPU.persistent_balance, GPU.persistent_edge_limit, GPU.small_frontier
    try:
        GPU.persistent_edge_limit, GPU.small_frontier = G.nstored, G.n
        for balance in (0, old[0]):
            GPU.persistent_balance = balance
            for s in sources:
                check(G, s, "auto")
    finally:
        GPU.persistent_balance, GPU.persistent_edge_limit, GPU.small_frontier = old


def test_pull_lists():
    """Each row of the hub-first pull order is a permutation of the stored row, by
    decreasing out-degree of its entries (ties in storage order); the heads are the rows'
    first entries in either order, -1 for an empty row; BFS agrees with either order."""
    rng = np.random.default_rng(5)
    n = 4100                                     # vertices 4000.. have no edges
    src = np.concatenate([rng.integers(0, 4000, 30000), np.repeat(rng.integers(0, 4000, 4), 800)])
    G = Graph.from_edges(src, rng.integers(0, 4000, src.size), n=n, directed=True)
    A = GPU.matrix(G)
    AT = GPU.matrix(G, transpose=True)
    ptr, ind = G.transpose().indptr, G.transpose().indices
    out_deg = G.out_degree()
    for hub_first in (True, False):
        order, heads = (asnumpy(x) for x in AT.pull_lists(A.indptr, hub_first))
        for v in range(n):
            row, got = ind[ptr[v]:ptr[v + 1]], order[ptr[v]:ptr[v + 1]]
            expected = row[np.argsort(-out_deg[row], kind="stable")] if hub_first else row
            np.testing.assert_array_equal(got, expected)
            assert heads[v] == (expected[0] if row.size else -1)
    cpu = bfs(G, int(src[-1]), backend="cpu")
    old = GPU.hub_first_pull
    try:
        for flag in (False, True):
            GPU.hub_first_pull = flag
            for method in ("auto", "pull_hub"):
                check(G, int(src[-1]), method, cpu=cpu)
    finally:
        GPU.hub_first_pull = old


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(G=graphs(max_n=200, min_n=1))
def test_packed_lists_decode_to_the_rows(G):
    """Each row's packed words, in order, hold exactly the row's entries: word indices
    rising, masks not empty, and the ids of the set bits, word by word, the sorted row."""
    AT = GPU.matrix(G, transpose=True)
    ptr, words = (asnumpy(x) for x in AT.packed_lists())
    assert words.size == ptr[-1]
    T = G.transpose()
    for v in range(G.n):
        row = words[ptr[v]:ptr[v + 1]]
        word, mask = (row >> 32).astype(np.int64), row & 0xFFFFFFFF
        assert (np.diff(word) > 0).all() and (mask != 0).all()
        ids = [32 * w + b for w, m in zip(word, mask) for b in range(32) if (int(m) >> b) & 1]
        np.testing.assert_array_equal(ids, T.indices[T.indptr[v]:T.indptr[v + 1]])


@pytest.mark.parametrize("directed", [True, False])
def test_hub_source_and_star(directed):
    """A source of very high degree (one vertex spread over the whole persistent grid),
    then a frontier of leaves pointing back to it."""
    leaves = 20000
    hub = np.zeros(leaves, dtype=np.int64)
    rng = np.random.default_rng(9)
    tail = rng.integers(1, leaves + 1, 300)
    G = Graph.from_edges(np.concatenate([hub, np.arange(1, leaves + 1), tail]),
                         np.concatenate([np.arange(1, leaves + 1), hub, tail[::-1]]),
                         n=leaves + 2, directed=directed)
    for s in (0, 1, leaves + 1):
        cpu = None
        for method in METHODS:
            cpu = check(G, s, method, cpu=cpu)


@pytest.mark.parametrize("directed", [True, False])
def test_pull_levels_and_push_from_a_pull_bitmap(directed):
    """The fused pull levels (one launch) against the same group step as a loop of single
    levels on both executors: same last level, stats and levels. Then the persistent push
    kernel starts from the pull's bitmap (no queue) and the BFS ends as on the cpu."""
    from lagraph_py.algorithms.bfs import BETA
    from lagraph_py.executor import PUSH, Executor
    from lagraph_py.generate import kronecker
    G = kronecker(12, seed=3, directed=directed)
    s = int(np.argmax(G.out_degree()))
    sr = "any_secondi"
    expected = bfs(G, s, backend="cpu").level
    runs = {}
    old = GPU.small_level_guard
    GPU.small_level_guard = False                     # the fused pull, not the queue kernel
    try:
        for name, ex, pull in (("cpu", get_executor("cpu"), None), ("loop", GPU, Executor),
                               ("fused", GPU, None)):
            A, AT = ex.matrix(G), ex.matrix(G, transpose=True)
            degrees = (ex.degree(G), ex.degree(G, incoming=True))
            frontier, visited, level = (ex.vector(G.n, [s], [v]) for v in (s, s, 0))
            frontier, _ = ex.bfs_level(A, AT, frontier, visited, level, 1,
                                       ex.auto_methods[PUSH], sr, degrees)
            step = (pull or type(ex)).bfs_pull_levels
            frontier, k, stats = step(ex, A, AT, frontier, visited, level, 2, sr, G.n / BETA,
                                      degrees)
            runs[name] = k, stats, asnumpy(ex.to_dense(ex.dup(level), -1))
            if name == "fused":
                assert frontier._queue is None and stats.nq > 0    # a bitmap, no queue yet
            while stats.nq:
                frontier, k, stats = ex.bfs_push_levels(A, frontier, visited, level, k + 1, sr,
                                                        G.n, degrees)
            np.testing.assert_array_equal(asnumpy(ex.to_dense(level, -1)), expected)
            validate.bfs(G, s, BFSResult(s, None, asnumpy(ex.to_dense(visited, -1))))
    finally:
        GPU.small_level_guard = old
    k, stats, level = runs["cpu"]
    assert k > 2                                      # several pull levels ran
    for name in ("loop", "fused"):
        assert runs[name][:2] == (k, stats), name
        np.testing.assert_array_equal(runs[name][2], level, err_msg=name)


def test_bfs_vectors_without_presence_bytes():
    """A BFS's parent and level vectors keep no presence bytes (they are values != -1) until
    a step reads them; from then on the fused kernels keep them, also after a generic step
    wrote -1 as a present value. Step by step equal to the cpu executor."""
    from lagraph_py.executor import PUSH
    from lagraph_py.generate import kronecker
    G = kronecker(9, seed=5, directed=False)
    s = int(np.argmax(G.out_degree()))
    sr = "any_secondi"
    runs = {}
    for name in ("cpu", "gpu"):
        ex = get_executor(name)
        A, AT = ex.matrix(G), ex.matrix(G, transpose=True)
        degrees = (ex.degree(G), ex.degree(G, incoming=True))
        frontier, visited, level = (ex.vector(G.n, [s], [v]) for v in (s, s, 0))
        frontier, _ = ex.bfs_level(A, AT, frontier, visited, level, 1, ex.auto_methods[PUSH],
                                   sr, degrees)
        if name == "gpu":
            assert visited.presence_address() == 0 and level.presence_address() == 0
        seen = [asnumpy(ex.to_coo(visited)[0])]                  # read: presence made
        if name == "gpu":
            assert visited.presence_address() != 0
        frontier, _ = ex.bfs_level(A, AT, frontier, visited, level, 2, ex.auto_methods[PUSH],
                                   sr, degrees)
        ex.assign_scalar(level, -1, mask=frontier)              # present, with value -1
        seen.append(asnumpy(ex.to_coo(level)[0]))
        nq = ex.nvals(frontier)
        k = 2
        while nq:
            k += 1
            frontier, stats = ex.bfs_level(A, AT, frontier, visited, level, k,
                                           ex.auto_methods[PUSH], sr, degrees)
            nq = stats.nq
        seen += [asnumpy(x) for x in ex.to_coo(level)] + [asnumpy(ex.to_coo(visited)[0])]
        runs[name] = seen
    assert (runs["cpu"][3] == -1).sum() > 0                        # the -1 values survive
    for cpu, gpu in zip(runs["cpu"], runs["gpu"]):
        np.testing.assert_array_equal(gpu, cpu)


def test_unknown_method_is_refused():
    G = Graph.from_edges([0], [1])
    with pytest.raises(ValueError):
        bfs(G, 0, backend="gpu", method="nope")


# ---------------------------------------------------------------------- the whole search
#: GpuExecutor settings that send the search kernel down each of its paths.
SEARCH_PATHS = {
    "default": {},
    "solo": {"solo_width": 1 << 40},                  # every push level in one block
    "teams": {"solo_width": 0, "team_width": 64},     # never one block: teams of blocks
    "teams_pausing": {"solo_width": 0, "team_width": 64,    # ... the blocks outside a
                      "team_wait_ns": 2048},                # team pause between polls
    "teams_queues": {"solo_width": 0, "team_width": 64,     # ... the grid's push levels
                     "grid_bitmap_edges": 1 << 62},         # leave queues, not bitmaps
    "pull": {"small_frontier": 0, "persistent_edge_limit": 0},   # pull when the rule says
    "balanced": {"persistent_balance": 0,             # every push level edge-balanced
                 "persistent_balance_short": 0},
    "teams_balanced": {"solo_width": 0, "team_width": 64,   # ... by teams (each block its
                       "persistent_balance": 0,             # own degree prefix while short)
                       "persistent_balance_short": 0},
    "teams_grouped": {"solo_width": 0, "team_width": 64,    # ... never edge-balanced: a
                      "persistent_balance": 1 << 40,        # group of lanes a vertex
                      "persistent_balance_short": 1 << 40},
    "long": {"pull_list_cap": 2, "small_frontier": 0,   # pulls, in-lists beyond 2 entries
             "persistent_edge_limit": 0},               # shared out in chunks (pull_long)
    "long_every_level": {"pull_list_cap": 2, "small_frontier": 0,   # ... pull_long on
                         "persistent_edge_limit": 0,                # every pull level,
                         "pull_long_if_cut": False},                # cut lists or not
    "packed": {"pull_packed": True, "small_frontier": 0,   # pulls from bit-packed lists
               "persistent_edge_limit": 0},
    "packed_long": {"pull_packed": True, "pull_list_cap": 1, "small_frontier": 0,
                    "persistent_edge_limit": 0},        # their words beyond the first shared
    "unpacked": {"pull_packed": False, "small_frontier": 0, "persistent_edge_limit": 0},
    "async": {"search_async_after": 0,               # one block finishes the search
              "search_async_frontier": 4000,         # without levels, from the source on
              "search_async_always": True},
    "async_later": {"search_async_after": 3,         # ... from the first frontier of at
                    "search_async_frontier": 40,     # most 40 vertices after level 2
                    "search_async_always": True},
    "async_seen": {"search_async_after": 3,          # ... once a search of the graph met
                   "search_async_frontier": 40},     # the rule (the first goes on: levels)
}


@contextmanager
def gpu_settings(**values):
    old = {name: getattr(GPU, name) for name in values}
    try:
        for name, value in values.items():
            setattr(GPU, name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(GPU, name, value)


def check_tree(G, s, level, parent):
    """An independent check of BFS parents: the source its own, -1 exactly where the
    level is -1, and every other parent an in-neighbour one level up (an edge of G)."""
    reached = level >= 0
    assert parent[s] == s
    np.testing.assert_array_equal(parent >= 0, reached)
    v = np.flatnonzero(reached)
    v = v[v != s]
    p = parent[v]
    np.testing.assert_array_equal(level[p], level[v] - 1)
    edges = G.rows().astype(np.int64) * G.n + G.indices
    assert np.isin(p * G.n + v, edges).all()


def search_check(G, s, expected=None):
    """The whole search on every path: levels equal to the plain reference (or expected),
    parents a valid BFS tree (Graph500 validator and check_tree), levels-only and
    parents-only calls equal."""
    expected = bfs_levels(G, s) if expected is None else expected
    for name, values in SEARCH_PATHS.items():
        with gpu_settings(**values):
            poison_pool()
            r = bfs(G, s, backend="gpu")
            level, parent = asnumpy(r.level), asnumpy(r.parent)
            np.testing.assert_array_equal(level, expected, err_msg=name)
            check_tree(G, s, level, parent)
            validate.bfs(G, s, BFSResult(s, level, parent))
            only = bfs(G, s, backend="gpu", parents=False)
            assert only.parent is None
            np.testing.assert_array_equal(asnumpy(only.level), expected, err_msg=name)
            only = bfs(G, s, backend="gpu", levels=False)
            assert only.level is None
            check_tree(G, s, expected, asnumpy(only.parent))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(G=graphs(max_n=60, min_n=1), data=st.data())
def test_search_paths_on_generated_graphs(G, data):
    search_check(G, data.draw(st.integers(0, G.n - 1)))


@pytest.mark.parametrize("directed", [True, False])
def test_search_paths_on_generator_classes(directed):
    from lagraph_py import generate
    rng = np.random.default_rng(21)
    graphs_ = [generate.kronecker(10, seed=2, directed=directed),
               generate.rmat(11, edgefactor=8, seed=3, directed=directed),
               generate.grid(40, 50, directed=directed, orientation="random" if directed else None),
               generate.road(60, 50, seed=4),
               generate.mesh(12, 10, 8),
               generate.cycle_chain(40, 30, shuffle=True, seed=5) if directed
               else generate.grid(1, 700)]                  # deep: the finish without levels
    for G in graphs_ + [with_int64_ids(graphs_[0]), with_int64_ids(graphs_[3])]:
        deg = G.out_degree()
        sinks = np.flatnonzero(deg == 0)
        sources = {int(np.argmax(deg)), int(rng.integers(G.n))}
        if sinks.size:
            sources.add(int(sinks[0]))                  # a source with no out-edges
        for s in sorted(sources):
            search_check(G, s)


@pytest.mark.parametrize("directed", [True, False])
def test_search_vertex_of_degree_above_2_16(directed):
    """A hub of 70,000 out-edges (one level of edge-balanced or whole-grid work), leaves
    pointing back, and a path hanging off a leaf (a tail of small levels)."""
    leaves, tail = 70_000, 500
    hub = np.zeros(leaves, dtype=np.int64)
    path = np.arange(leaves + 1, leaves + tail)
    G = Graph.from_edges(np.concatenate([hub, np.arange(1, leaves + 1), [leaves], path]),
                         np.concatenate([np.arange(1, leaves + 1), hub, [leaves + 1],
                                         path + 1]),
                         n=leaves + tail + 1, directed=directed)
    for s in (0, 1, leaves + tail):
        search_check(G, s)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5000), max_size=300), st.integers(1, 64))
def test_pull_list_cap_is_the_largest_that_bounds_every_warp(degrees, warps):
    from gpu_backend.bfs_steps import _LIST_CAPS, _WARP_STEPS, pull_list_cap
    deg = np.array(degrees, dtype=np.int64)

    def longest_warp_fits(cap):
        steps = -(-np.minimum(deg, cap) // 32)
        per_word = [steps[i:i + 32].sum() for i in range(0, deg.size, 32)]
        return max(per_word, default=0) <= max(_WARP_STEPS, steps.sum() / warps)

    cap = pull_list_cap(deg, warps)
    assert cap in _LIST_CAPS
    assert cap == _LIST_CAPS[-1] or longest_warp_fits(cap)
    assert not any(longest_warp_fits(c) for c in _LIST_CAPS if c > cap)


@pytest.mark.parametrize("directed", [False, True])
def test_search_where_long_in_lists_cluster(directed):
    # 64 neighbouring vertices each with 1,500 in-neighbours: their warps scan 64 entries
    # each and share the rest (pull_long); the others, leaves, stop at their first entry
    hubs, leaves = 64, 1500
    u = np.repeat(np.arange(hubs), leaves)
    v = np.tile(np.arange(hubs, hubs + leaves), hubs)
    G = Graph.from_edges(np.concatenate([u, v]), np.concatenate([v, u]), directed=directed)
    from gpu_backend.bfs_steps import pull_list_cap
    assert pull_list_cap(G.in_degree(), 16) < 1024
    with gpu_settings(small_frontier=0, persistent_edge_limit=0):
        for s in (0, hubs, hubs + leaves - 1):
            search_check(G, s)


def test_search_trace_counts_every_level():
    """The kernel's per-level record: the frontier size of every level equals the count of
    vertices at that level in the reference, and the settings choose who runs a level (one
    block for "solo"; a pull for "pull" on a Kronecker graph)."""
    from lagraph_py import generate
    G = generate.kronecker(12, seed=8)
    s = int(np.argmax(G.out_degree()))
    expected = bfs_levels(G, s)
    depth = int(expected.max())
    sizes = np.bincount(expected[expected >= 0], minlength=depth + 2)
    for name, values in SEARCH_PATHS.items():
        if name.startswith("async"):
            continue                                    # no levels to record
        trace = cp.zeros(4 * (depth + 3), dtype=cp.uint64)
        with gpu_settings(search_trace=trace, **values):
            bfs(G, s, backend="gpu")
        t = asnumpy(trace).reshape(-1, 4).astype(np.int64)
        np.testing.assert_array_equal(t[1:depth + 2, 2], sizes[1:depth + 2], err_msg=name)
        assert (t[depth + 2] == 0).all()                  # no level after the empty one
        ends = t[1:depth + 2, 0]
        assert (np.diff(ends) >= 0).all() and ends[0] > 0
        pulled, blocks = t[1:depth + 2, 3] >> 32, t[1:depth + 2, 3] & 0xFFFFFFFF
        if name == "solo":
            assert (blocks[pulled == 0] == 1).all()
        if name == "pull":
            assert pulled.any()


def smallest_parents(G, level):
    """Each reached vertex's smallest in-neighbour one level up (-1 for the source)."""
    rows = G.rows().astype(np.int64)
    cols = G.indices.astype(np.int64)
    up = (level[rows] >= 0) & (level[rows] == level[cols] - 1)
    best = np.full(G.n, np.iinfo(np.int64).max)
    np.minimum.at(best, cols[up], rows[up])
    return np.where(best == np.iinfo(np.int64).max, -1, best)


@pytest.mark.parametrize("directed", [False, True])
def test_async_finish_parents_are_the_smallest_of_the_level_before(directed):
    """Every vertex that the asynchronous finish finds (from level 1's frontier on: all
    of level 2 and after) has the smallest in-neighbour of the level before as its
    parent: the minimum of the keys its offers left, whatever their order."""
    from lagraph_py import generate
    for G in (generate.road(70, 60, seed=5), generate.grid(30, 40, directed=directed,
                                                           orientation="random"
                                                           if directed else None)):
        for s in (0, G.n // 2):
            with gpu_settings(search_async_after=1, search_async_frontier=4000,
                              search_async_always=True):
                r = bfs(G, s, backend="gpu")
            level, parent = asnumpy(r.level), asnumpy(r.parent)
            np.testing.assert_array_equal(level, bfs_levels(G, s))
            later = level >= 2
            np.testing.assert_array_equal(parent[later], smallest_parents(G, level)[later])


@pytest.mark.parametrize("ids", ["int32", "int64"])
def test_async_finish_that_overflows_starts_again_with_levels(ids):
    """A path into a binary tree of 2^15 leaves: the finish's ring (4,096 vertices) must
    overflow on the tree's wide levels; the search starts again with levels only, its
    results are exact, and the graph's later searches keep to levels (ASYNC_OFF)."""
    from gpu_backend.bfs_steps import _SEARCH_CTL
    tail, depth = 4, 15
    tree = np.arange(1, 2 ** (depth + 1) - 1)                 # heap-numbered children
    u = np.concatenate([np.arange(tail), (tree - 1) // 2 + tail])
    v = np.concatenate([np.arange(1, tail + 1), tree + tail])
    G = Graph.from_edges(u, v, n=2 ** (depth + 1) - 1 + tail, directed=False)
    if ids == "int64":
        G = with_int64_ids(G)
    with gpu_settings(search_async_after=1, search_async_frontier=1000,
                      search_async_always=True):
        for s in (0, 0, G.n - 1):
            search_check(G, s)
    plans = [v for k, v in G._cache.items() if k.startswith("gpu.bfs.search.")]
    assert plans and all(int(p.ctl[_SEARCH_CTL - 1]) == 1 for p in plans)


@pytest.mark.parametrize("ids", ["int32", "int64"])
def test_a_graph_s_searches_finish_asynchronously_once_one_met_the_rule(ids):
    """By default a search runs the kernel without the asynchronous finish: where the
    rule is met (a path of 700 vertices, at level 128) it goes on with levels and sets its
    plan's host word, after which the graph's searches launch the kernel with the finish
    (ctl ASYNC: how it ended). A graph whose searches never meet the rule (Kronecker)
    keeps the kernel without it. Levels and parents exact either way."""
    from gpu_backend.bfs_steps import _SEARCH_CTL
    from lagraph_py import generate
    deep, shallow = generate.grid(1, 700), generate.kronecker(10, seed=3)
    if ids == "int64":
        deep, shallow = with_int64_ids(deep), with_int64_ids(shallow)
    finished = []
    for G in (deep, deep, deep, shallow, shallow):
        r = bfs(G, 0, backend="gpu")
        level = asnumpy(r.level)
        np.testing.assert_array_equal(level, bfs_levels(G, 0))
        check_tree(G, 0, level, asnumpy(r.parent))
        plan, = [v for k, v in G._cache.items() if k.startswith("gpu.bfs.search.")]
        finished.append((int(plan.deep_seen[0]), int(plan.ctl[_SEARCH_CTL - 2])))
    assert finished == [(1, 0), (1, 1), (1, 1), (0, 0), (0, 0)]


def test_search_reuses_its_scratch_and_repeats():
    """Two graphs searched in turn: each keeps its scratch, and repeated searches (levels
    only in between) give the same levels."""
    from lagraph_py import generate
    A, B = generate.road(40, 40, seed=1), generate.kronecker(9, seed=1)
    first = {}
    for G in (A, B, A, B):
        r = bfs(G, 3, backend="gpu")
        bfs(G, 5, backend="gpu", parents=False)
        level = asnumpy(r.level)
        np.testing.assert_array_equal(first.setdefault(id(G), level), level)
        np.testing.assert_array_equal(level, bfs_levels(G, 3))
    keys = [k for k in A._cache if k.startswith("gpu.bfs.search.")]
    assert len(keys) == 1


def test_search_scratch_counts_against_free_memory(monkeypatch):
    from lagraph_py import generate
    G = generate.grid(30, 30)
    monkeypatch.setattr("gpu_backend.storage.free_bytes", lambda *_: 1000)
    with pytest.raises(MemoryError, match=r"bfs on .* needs [0-9,]+ bytes of GPU memory; "
                                          r"1,000 are free \(its vertex arrays"):
        bfs(G, 0, backend="gpu")
