"""The gpu connected-components step (gpu_backend/components_steps.py) against scipy and
both cpu executors.

``lg.scc`` of an undirected graph on the gpu runs ``connected_components`` as one union-find
kernel; its labels (each component's smallest id) must equal scipy's components relabelled
that way, the reference executor's FastSV and the fused cpu executor's union-find, on
hypothesis graphs and on the classes in miniature: long paths (deep trees), stars whose
centre row is joined by a thread, a warp, a whole block or several blocks (chunks), many
2-vertex pieces, isolated vertices, self-loops, int64 ids, the empty and the one-vertex
graph, and edges that only the row of their end outside the hub's set may join (the rows in
that set are skipped); the edges to every row's first two entries joined once, or from both
ends (as out of core). Skipped where CuPy or a CUDA device is absent.
"""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings

from conftest import cupy_or_skip

cp = cupy_or_skip()

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor, components_steps, storage  # noqa: E402
from gpu_backend.components_steps import SAMPLED, THREAD_ROW  # noqa: E402
from lagraph_py.cpu import CpuExecutor  # noqa: E402
from lagraph_py.cpu_steps import FusedCpuExecutor  # noqa: E402
from oracles import graphs, scc_labels, with_int64_ids  # noqa: E402

pytestmark = pytest.mark.gpu
GPU, REFERENCE, FUSED = GpuExecutor(), CpuExecutor(), FusedCpuExecutor()


def gpu_labels(G):
    out = lg.scc(G, backend=GPU).labels
    assert isinstance(out, cp.ndarray) and out.dtype == np.int64
    return cp.asnumpy(out)


def step_labels(ex, G):
    return np.asarray(lg.asnumpy(ex.to_dense(ex.connected_components(ex.matrix(G), G.n), -1)))


def check(G):
    """The gpu labels equal scipy's and both cpu executors' (the step and lg.scc)."""
    labels = gpu_labels(G)
    np.testing.assert_array_equal(labels, scc_labels(G))
    np.testing.assert_array_equal(labels, step_labels(FUSED, G))
    np.testing.assert_array_equal(step_labels(GPU, G), labels)
    return labels


@settings(max_examples=100, deadline=None)
@given(graphs(max_n=60, directed=False))
def test_hypothesis_graphs(G):
    labels = check(G)
    np.testing.assert_array_equal(labels, step_labels(REFERENCE, G))


@pytest.mark.parametrize("leaves", [THREAD_ROW - 1, THREAD_ROW + 3, storage.LONG_ROW - 1,
                                    storage.LONG_ROW + 7, 3 * storage.CHUNK + 5])
@pytest.mark.parametrize("centre", ["smallest", "largest", "random"])
def test_stars_in_every_degree_bucket(leaves, centre):
    """A centre row handled by a thread, a warp, one block or several chunks; with the
    centre's id smallest (every leaf hooks to it), largest (its own row does the work) or
    anywhere."""
    rng = np.random.default_rng(leaves)
    n = 2 * leaves + 3
    ids = rng.permutation(n)
    hub = {"smallest": 0, "largest": n - 1, "random": int(ids[0])}[centre]
    others = np.setdiff1d(np.arange(n), [hub])
    leaf = rng.choice(others, leaves, replace=False)
    G = lg.Graph.from_edges(np.full(leaves, hub), leaf, n=n, directed=False)
    labels = check(G)
    assert np.unique(labels).size == n - leaves         # the star and the isolated rest


@pytest.mark.parametrize("leaves", [100, 3 * storage.CHUNK])
def test_edges_left_out_of_the_hubs_set_are_joined_from_their_other_end(leaves):
    """Vertices 0, 1, 2 (0 the hub, of largest degree) and the leaves, which form a path
    and are joined to all three, make one set after the two sampled entries of every row;
    each triangle (a, b, u) of smaller ids is joined to the rest by one edge {u, v}, v a
    leaf, that is no row's first or second entry: the leaf's row skips it (v is in the
    hub's set), so the larger row of the pair, u's, must join it though v > u."""
    leaf = np.arange(100, 100 + leaves)
    triangles = np.arange(10, 40).reshape(-1, 3)
    bridge = leaf[::leaves // len(triangles)][:len(triangles)]
    src = np.concatenate([np.repeat([0, 1, 2], leaves), [0, 0], leaf[:-1],
                          triangles[:, 0], triangles[:, 0], triangles[:, 1], triangles[:, 2]])
    dst = np.concatenate([np.tile(leaf, 3), [1, 2], leaf[1:],
                          triangles[:, 1], triangles[:, 2], triangles[:, 2], bridge])
    G = lg.Graph.from_edges(src, dst, n=100 + leaves, directed=False)
    labels = check(G)
    assert np.unique(labels).size == 1 + 100 - 3 - triangles.size     # isolated 3..99 too


def test_long_path_with_shuffled_ids():
    rng = np.random.default_rng(1)
    ids = rng.permutation(200_000)
    check(lg.Graph.from_edges(ids[:-1], ids[1:], n=ids.size, directed=False))


def test_many_pairs_and_isolated_vertices():
    rng = np.random.default_rng(2)
    ids = rng.permutation(30_001)
    pairs = ids[:20_000].reshape(-1, 2)
    labels = check(lg.Graph.from_edges(pairs[:, 0], pairs[:, 1], n=ids.size, directed=False))
    assert np.unique(labels).size == 10_000 + 10_001


@pytest.mark.parametrize("make", [
    lambda: lg.generate.kronecker(12, seed=3),
    lambda: lg.generate.road(120, 90, keep=0.55, seed=4),
    lambda: lg.generate.grid(60, 70),
    lambda: lg.generate.mesh(12, 14, 16),
], ids=["kronecker", "road", "grid", "mesh"])
def test_generated_classes(make):
    check(make())


JOINS = pytest.mark.parametrize("both_ends", [False, True], ids=["once", "from-both-ends"])


def sampled_joins(both_ends: bool):
    """Phase 2 joins each sampled edge once (reading the other end's first entries), or
    from both ends, whatever the graph."""
    return mock.patch.object(components_steps, "joins_once",
                             lambda A, heads, chained: not both_ends)


@JOINS
@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=40, directed=False))
def test_sampled_edges_joined_once_or_from_both_ends(both_ends, G):
    with sampled_joins(both_ends):
        check(G)


@JOINS
@pytest.mark.parametrize("make", [
    lambda: lg.generate.kronecker(12, seed=8),
    lambda: lg.generate.road(80, 60, keep=0.55, seed=9),
    lambda: lg.generate.uniform(5000, 2, seed=10),
    lambda: lg.generate.mesh(8, 9, 10),
], ids=["kronecker", "road", "uniform", "mesh"])
def test_sampled_joins_on_generated_classes(both_ends, make):
    with sampled_joins(both_ends):
        check(make())


def test_sampled_edges_joined_once_on_sparse_graphs_and_graphs_with_hubs():
    """Once on a sparse graph and on one with hubs, from both ends on a denser graph
    without hubs, and wherever the first entries lie in managed memory."""
    def once(G, managed=False):
        A = GPU.matrix(G)
        gpu_labels(G)
        with mock.patch.object(components_steps, "in_managed_memory", lambda a: managed):
            return components_steps.joins_once(A, A._cc_buffers[1], A._cc_buffers[4])

    road = lg.generate.road(60, 60, keep=0.6, seed=11)
    assert GPU.matrix(road).nstored <= components_steps.SPARSE_DEGREE * road.n
    assert once(road) and not once(road, managed=True)
    assert once(lg.generate.kronecker(12, seed=12))
    assert not once(lg.generate.mesh(10, 10, 10))


def test_chains_of_consecutive_ids_joined_from_both_ends():
    """A path numbered along itself is chained (each vertex's smallest neighbour its
    predecessor) and joins from both ends; the same path numbered at random joins once;
    both get the path's one component."""
    n = 500
    perm = np.random.default_rng(3).permutation(n)
    for ids, chain in ((np.arange(n), True), (perm, False)):
        G = lg.Graph.from_edges(ids[:-1], ids[1:], n=n, directed=False)
        np.testing.assert_array_equal(check(G), np.zeros(n))
        A = GPU.matrix(G)
        assert A._cc_buffers[4] == chain
        assert components_steps.joins_once(A, A._cc_buffers[1], A._cc_buffers[4]) != chain


@JOINS
def test_edge_first_in_its_smaller_end_and_third_in_the_larger(both_ends):
    """Vertex 5's one edge goes to 6, whose first two entries are 0 and 1: 6 does not join
    it before phase 3 and skips its row there (it is in the hub's set, 0 the hub), so 5
    must join it in phase 2."""
    src = [0, 0, 0, 0, 0, 6, 6]
    dst = [1, 2, 3, 4, 6, 1, 5]
    with sampled_joins(both_ends):
        labels = check(lg.Graph.from_edges(src, dst, n=7, directed=False))
    np.testing.assert_array_equal(labels, np.zeros(7))


@pytest.mark.parametrize("make", [lambda: lg.generate.kronecker(11, seed=5),
                                  lambda: lg.generate.road(50, 40, keep=0.5, seed=6)],
                         ids=["kronecker", "road"])
def test_int64_index_arrays(make):
    G = with_int64_ids(make())
    assert GPU.matrix(G).index_dtype == np.int64
    check(G)


@pytest.mark.parametrize("n, src, dst", [(0, [], []), (1, [], []), (1, [0], [0]),
                                         (5, [], []), (3, [0, 1, 2], [0, 1, 2])],
                         ids=["empty", "one-vertex", "one-loop", "no-edges", "loops-only"])
def test_tiny_graphs(n, src, dst):
    labels = check(lg.Graph.from_edges(src, dst, n=n, directed=False))
    np.testing.assert_array_equal(labels, np.arange(n))


def test_repeated_calls_reuse_the_buffers_and_agree():
    G = lg.generate.road(40, 40, keep=0.6, seed=7)
    first = gpu_labels(G)
    buffers = GPU.matrix(G)._cc_buffers
    np.testing.assert_array_equal(gpu_labels(G), first)
    assert GPU.matrix(G)._cc_buffers is buffers


def test_first_entries_of_every_row():
    # rows of 0, 1, 2 and 3 entries, a self-loop first in its row (vertex 2)
    G = lg.Graph.from_edges([0, 0, 0, 2, 3], [3, 1, 2, 2, 4], n=6, directed=False)
    A = GPU.matrix(G)
    gpu_labels(G)
    heads = cp.asnumpy(A._cc_buffers[1]).reshape(G.n, SAMPLED)
    indptr, indices = A.host_csr()
    expected = [[indices[lo + j] if lo + j < hi else v for j in range(SAMPLED)]
                for v, (lo, hi) in enumerate(zip(indptr[:-1], indptr[1:]))]
    np.testing.assert_array_equal(heads, expected)
    assert any(hi - lo < SAMPLED for lo, hi in zip(indptr[:-1], indptr[1:]))


def test_directed_graph_is_a_clear_error():
    G = lg.Graph.from_edges([0, 1], [1, 2], directed=True)
    with pytest.raises(ValueError, match="undirected"):
        GPU.connected_components(GPU.matrix(G), G.n)


def test_too_little_memory_is_a_clear_error(monkeypatch):
    G = lg.generate.grid(20, 20)
    monkeypatch.setattr(storage, "free_bytes", lambda *_: 1000)
    with pytest.raises(MemoryError, match=r"needs [0-9,]+ bytes of GPU memory; 1,000 are"):
        GPU.connected_components(GPU.matrix(G), G.n)
