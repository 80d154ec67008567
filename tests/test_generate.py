"""Tests of lagraph_py.generate: sizes, seeding, structure statistics, weights, bad arguments."""

import doctest

import numpy as np
import pytest
from scipy.sparse import csgraph

from lagraph_py import generate
from lagraph_py.generate import GRAPH500_ABC, RMAT_ABC, _quadrant_edges
from lagraph_py.graph import Graph
from oracles import bfs_levels, scc_labels

SMALL = {
    "kronecker": lambda **kw: generate.kronecker(8, **kw),
    "rmat": lambda **kw: generate.rmat(8, **kw),
    "ssca2": lambda **kw: generate.ssca2(8, **kw),
    "grid": lambda **kw: generate.grid(9, 13, **kw),
    "mesh": lambda **kw: generate.mesh(4, 5, 6, **kw),
    "road": lambda **kw: generate.road(9, 13, **kw),
    "uniform": lambda **kw: generate.uniform(120, 5.5, **kw),
}
ORIENTED = {
    "grid random": lambda **kw: generate.grid(12, 17, directed=True, orientation="random", **kw),
    "grid sweep": lambda **kw: generate.grid(12, 17, directed=True, orientation="sweep", **kw),
    "mesh random": lambda **kw: generate.mesh(5, 6, 7, directed=True, orientation="random", **kw),
    "mesh sweep": lambda **kw: generate.mesh(5, 6, 7, directed=True, orientation="sweep", **kw),
}


def same(G: Graph, H: Graph) -> bool:
    return (G.n == H.n and G.directed == H.directed and G.weighted == H.weighted
            and np.array_equal(G.indptr, H.indptr) and np.array_equal(G.indices, H.indices)
            and (not G.weighted or np.array_equal(G.weights, H.weights)))


# ---------------------------------------------------------------------- seeding
@pytest.mark.parametrize("name", SMALL)
def test_same_seed_same_graph_other_seed_other_graph(name):
    make = SMALL[name]
    assert same(make(seed=1, weights="real"), make(seed=1, weights="real"))
    assert not same(make(seed=1, weights="real"), make(seed=2, weights="real"))


@pytest.mark.parametrize("name", ORIENTED)
def test_oriented_same_seed_same_graph_other_seed_other_graph(name):
    make = ORIENTED[name]
    assert same(make(seed=1, two_way=0.2), make(seed=1, two_way=0.2))
    # other sweeps may share a direction vector's signs: compare a few seeds
    assert any(not same(make(seed=1, two_way=0.2), make(seed=s, two_way=0.2)) for s in (2, 3))


def test_generators_leave_numpy_global_random_state_alone():
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    generate.kronecker(6, seed=4, weights="uniform")
    generate.ssca2(6, seed=4)
    assert np.random.random() == expected


def test_kronecker_directed_flag_only_changes_symmetrization():
    D = generate.kronecker(7, seed=3, weights="uniform", directed=True)
    U = generate.kronecker(7, seed=3, weights="uniform")
    assert D.directed and not U.directed
    src, dst, w = D.edges()
    assert same(Graph.from_edges(src, dst, w, n=D.n, directed=False), U)


# ---------------------------------------------------------------------- recursive matrix
@pytest.mark.parametrize("abc", [GRAPH500_ABC, RMAT_ABC, (0.25, 0.25, 0.25)])
def test_quadrant_choice_follows_the_initiator_at_every_level(abc):
    a, b, c = abc
    d = 1 - a - b - c
    scale, m = 10, 1 << 15
    rows, cols = _quadrant_edges(scale, m, abc, np.random.default_rng(5))
    bit = np.arange(scale)
    rb, cb = (rows[:, None] >> bit) & 1, (cols[:, None] >> bit) & 1
    tol = 5 * np.sqrt(0.25 / m)                      # five standard deviations
    np.testing.assert_allclose(rb.mean(0), c + d, atol=tol)
    np.testing.assert_allclose(cb.mean(0), b + d, atol=tol)
    np.testing.assert_allclose((rb & cb).mean(0), d, atol=tol)
    # levels are independent: two row bits are both set with probability (c + d)**2
    np.testing.assert_allclose((rb[:, 0] & rb[:, 1]).mean(), (c + d) ** 2, atol=tol)


@pytest.mark.parametrize("m", [0, 5, 3 * generate._CHUNK + 7])
def test_quadrant_draws_on_threads_are_those_of_one_pass(m, monkeypatch):
    # blocks drawn on threads from jumped copies of the stream: the same edges, and the
    # stream left where one sequential pass leaves it (the permutation is drawn next)
    one, many = np.random.default_rng(9), np.random.default_rng(9)
    monkeypatch.setattr(generate, "DRAW_THREADS", 1)
    alone = _quadrant_edges(6, m, GRAPH500_ABC, one)
    monkeypatch.setattr(generate, "DRAW_THREADS", 3)
    threaded = _quadrant_edges(6, m, GRAPH500_ABC, many)
    assert all(np.array_equal(a, b) for a, b in zip(alone, threaded))
    expected = np.random.default_rng(9)
    expected.bit_generator.advance(sum(6 * ((int(k) + 1) // 2) for k in
                                       np.diff(np.r_[0:m:generate._CHUNK, m])))
    assert one.integers(1 << 62) == many.integers(1 << 62) == expected.integers(1 << 62)


def test_kronecker_size_and_skew():
    G = generate.kronecker(10, seed=0)
    assert G.n == 1024 and not G.directed and not G.weighted
    draws = 16 * 1024
    assert 0.5 * draws < G.nedges <= draws             # repeats collapse, most draws survive
    degree = G.out_degree()
    assert degree.max() > 10 * degree.mean()            # hubs
    assert (degree == 0).sum() > 0.05 * G.n             # and many isolated vertices
    assert G.nself_loops > 0                            # kept as the generator draws them


@pytest.mark.parametrize("make", [generate.kronecker, generate.rmat])
def test_vertex_labels_are_permuted(make):
    # unpermuted, the top-left quadrant makes low ids the hubs (about 30x the degree of the
    # highest eighth here); permuted, both eighths look alike
    degree = make(10, seed=0).out_degree()
    eighth = len(degree) // 8
    assert 1 / 3 < degree[:eighth].sum() / degree[-eighth:].sum() < 3


def test_kronecker_edgefactor_scales_draws():
    assert generate.kronecker(6, edgefactor=0).nedges == 0
    assert generate.kronecker(0, edgefactor=3).nedges == 1     # one vertex: a self-loop
    assert generate.kronecker(8, edgefactor=4).nedges < generate.kronecker(8, edgefactor=8).nedges


def test_rmat_defaults_give_average_degree_near_32():
    G = generate.rmat(12, seed=0)
    assert G.n == 4096 and not G.directed
    assert 27 < G.nstored / G.n <= 32                  # 32 before repeats collapse
    assert G.out_degree().max() > 5 * 32


def test_rmat_probabilities_shape_the_degrees():
    flat = generate.rmat(10, a=0.25, b=0.25, c=0.25, seed=0).out_degree()
    skewed = generate.rmat(10, a=0.7, b=0.1, c=0.1, seed=0).out_degree()
    assert skewed.max() > 4 * flat.max()


# ---------------------------------------------------------------------- SSCA#2
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ssca2_average_degree_near_32(seed):
    G = generate.ssca2(12, seed=seed)
    assert G.n == 4096 and not G.directed
    assert 29 < G.nstored / G.n < 35
    assert G.out_degree().max() < 49 + 10               # clique neighbours plus a few links


@pytest.mark.parametrize("k", [1, 4, 10])
def test_ssca2_degree_follows_clique_size(k):
    G = generate.ssca2(12, seed=0, max_clique_size=k)
    expected = (2 * k - 2) / 3 + 0.4                    # clique edges + inter-clique edges
    assert abs(G.nstored / G.n - expected) < 0.1 * expected + 0.15


def test_ssca2_is_made_of_cliques():
    G = generate.ssca2(10, seed=0, max_clique_size=8)
    A = G.to_scipy().astype(np.int64)
    triangles = (A @ A).multiply(A).sum() / 6
    # an edge of a clique of s vertices lies on s - 2 triangles, and a triangle has 3 edges:
    # sizes 1..8 give about 1.5 triangles per edge; a sparse random graph has almost none
    assert triangles > 1.2 * G.nedges


def test_ssca2_labels_are_permuted():
    # unpermuted, every clique edge joins ids less than max_clique_size apart
    src, dst, _ = generate.ssca2(10, seed=0).edges()
    assert np.median(dst - src) > 1024 / 8


@pytest.mark.parametrize("scale", [0, 1, 2])
def test_ssca2_tiny(scale):
    G = generate.ssca2(scale, seed=0)
    assert G.n == 2**scale and G.nself_loops == 0


# ---------------------------------------------------------------------- grid
def test_grid_structure():
    rows, cols = 4, 7
    G = generate.grid(rows, cols)
    assert G.n == 28 and G.nedges == rows * (cols - 1) + cols * (rows - 1)
    assert np.bincount(G.out_degree()).tolist() == [0, 0, 4, 14, 10]
    A = G.to_scipy()
    assert A[1 * cols + 2, 1 * cols + 3] and A[1 * cols + 2, 2 * cols + 2]   # right and below
    assert not A[1 * cols + 6, 2 * cols + 0]                                  # no wrap-around
    dist = csgraph.shortest_path(A, unweighted=True, indices=0)
    assert dist.max() == rows + cols - 2
    assert bfs_levels(G, 0).max() == rows + cols - 2


def test_grid_directed_is_two_way():
    G = generate.grid(3, 5, directed=True, weights="uniform", seed=1)
    assert G.directed and G.nstored == 2 * (3 * 4 + 5 * 2)
    assert (scc_labels(G) == 0).all()
    A = G.to_scipy()
    assert (A != A.T).nnz > 0                   # each arc has its own weight


@pytest.mark.parametrize("shape, nedges", [((0, 3), 0), ((1, 1), 0), ((1, 5), 4), ((5, 1), 4)])
def test_grid_degenerate(shape, nedges):
    G = generate.grid(*shape)
    assert G.n == shape[0] * shape[1] and G.nedges == nedges


def undirected_pattern(G: Graph):
    """The set of undirected edges {u, v} (u < v) under the arcs of ``G``."""
    src, dst, _ = G.edges()
    return set(zip(np.minimum(src, dst).tolist(), np.maximum(src, dst).tolist()))


@pytest.mark.parametrize("name", ORIENTED)
def test_oriented_lattice_keeps_every_edge_once(name):
    G = ORIENTED[name](seed=4)
    U = generate.grid(12, 17) if name.startswith("grid") else generate.mesh(5, 6, 7)
    assert G.directed and G.n == U.n and G.nedges == U.nedges
    assert undirected_pattern(G) == undirected_pattern(U)


@pytest.mark.parametrize("shape", [(40, 50), (9, 10, 11)])
def test_random_orientation_is_a_fair_coin(shape):
    make = generate.grid if len(shape) == 2 else generate.mesh
    G = make(*shape, directed=True, orientation="random", seed=0)
    src, dst, _ = G.edges()
    up = (dst > src).mean()                               # each lattice edge joins u < v
    assert abs(up - 0.5) < 5 * np.sqrt(0.25 / src.size)
    k = len(np.unique(scc_labels(G)))
    assert 1 < k < G.n                                    # non-trivial components and singletons


@pytest.mark.parametrize("shape", [(6, 7), (10, 12), (3, 4, 5), (6, 6, 6)])
@pytest.mark.parametrize("seed", range(4))
def test_sweep_is_a_dag_following_one_direction(shape, seed):
    make = generate.grid if len(shape) == 2 else generate.mesh
    G = make(*shape, directed=True, orientation="sweep", seed=seed)
    np.testing.assert_array_equal(scc_labels(G), np.arange(G.n))          # a DAG
    src, dst, _ = G.edges()
    step = np.abs(dst - src)
    for stride in np.unique(step):                        # one axis: every arc the same way
        along = step == stride
        assert len(np.unique(np.sign(dst - src)[along])) == 1


@pytest.mark.parametrize("orientation", ["random", "sweep"])
@pytest.mark.parametrize("two_way", [0.0, 0.1, 0.5, 1.0])
def test_two_way_fraction(orientation, two_way):
    G = generate.mesh(10, 11, 12, directed=True, orientation=orientation, two_way=two_way,
                      seed=3)
    m = generate.mesh(10, 11, 12).nedges
    A = G.to_scipy()
    both = (A.multiply(A.T)).nnz // 2                     # edges stored in both directions
    assert G.nedges == m + both
    assert abs(both / m - two_way) < 5 * np.sqrt(0.25 / m)
    if two_way == 1.0:
        assert (scc_labels(G) == 0).all()


def test_sweep_with_two_way_edges_has_components_of_many_sizes():
    G = generate.mesh(12, 12, 12, directed=True, orientation="sweep", two_way=0.3, seed=1)
    sizes = np.bincount(np.unique(scc_labels(G), return_counts=True)[1])
    assert sizes[1] > 0 and len(np.flatnonzero(sizes)) > 3


# ---------------------------------------------------------------------- mesh
def test_mesh_structure():
    nx, ny, nz = 3, 4, 5
    G = generate.mesh(nx, ny, nz)
    assert G.n == 60 and not G.directed
    assert G.nedges == (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)
    A = G.to_scipy()
    v = (1 * ny + 2) * nz + 3                               # cell (1, 2, 3)
    assert sorted(A[[v]].indices.tolist()) == sorted([v - ny * nz, v + ny * nz, v - nz,
                                                      v + nz, v - 1, v + 1])
    assert not A[(0 * ny + 0) * nz + nz - 1, (0 * ny + 1) * nz + 0]       # no wrap-around
    assert bfs_levels(G, 0).max() == nx + ny + nz - 3
    assert np.bincount(G.out_degree()).tolist() == [0, 0, 0, 8, 24, 22, 6]


def test_mesh_with_a_unit_axis_is_a_grid():
    assert same(generate.mesh(1, 6, 7), generate.grid(6, 7))
    assert same(generate.mesh(6, 1, 7, directed=True), generate.grid(6, 7, directed=True))


@pytest.mark.parametrize("shape", [(0, 3, 3), (1, 1, 1), (1, 1, 5), (2, 2, 2)])
def test_mesh_degenerate(shape):
    G = generate.mesh(*shape)
    assert G.n == int(np.prod(shape))
    assert G.nedges == len(undirected_pattern(G))
    assert G.nedges == sum(int(np.prod(shape)) - int(np.prod(shape)) // s for s in shape if s)


# ---------------------------------------------------------------------- road
def test_road_is_a_thinned_grid():
    G = generate.road(60, 70, keep=0.7, seed=1)
    U = generate.grid(60, 70)
    assert not G.directed and G.n == U.n
    assert undirected_pattern(G) <= undirected_pattern(U)
    assert abs(G.nedges / U.nedges - 0.7) < 5 * np.sqrt(0.21 / U.nedges)
    assert same(generate.road(8, 9, keep=1.0), generate.grid(8, 9))
    assert generate.road(8, 9, keep=0.0).nedges == 0


def test_road_has_a_longer_diameter_than_its_grid():
    G = generate.road(60, 60, keep=0.7, seed=0)
    labels = scc_labels(G)
    giant = np.bincount(labels).argmax()
    assert (labels == giant).mean() > 0.8                 # above percolation: one big piece
    source = int(np.flatnonzero(labels == giant)[0])
    assert bfs_levels(G, source).max() > 60 + 60 - 2


# ---------------------------------------------------------------------- uniform
@pytest.mark.parametrize("n, mean_degree", [(1000, 1.5), (1000, 2), (997, 4), (2000, 16),
                                            (7, 6), (2, 1), (1, 0), (0, 0)])
@pytest.mark.parametrize("directed", [False, True])
def test_uniform_counts(n, mean_degree, directed):
    G = generate.uniform(n, mean_degree, directed=directed, seed=3)
    m = round(n * mean_degree / (1 if directed else 2))
    assert G.n == n and G.directed == directed and not G.weighted
    assert G.nedges == m                               # m distinct edges: none collapsed
    assert G.nself_loops == 0
    assert G.nstored == (m if directed else 2 * m)
    assert G.out_degree().sum() == G.nstored           # mean (out-)degree n * mean_degree


def test_uniform_degrees_are_binomial():
    # undirected G(n, m): degree ~ Binomial(n - 1, p), p = 2m / (n (n - 1)): mean and
    # variance near mean_degree; no hubs (a Kronecker graph of this size has degrees > 100)
    degree = generate.uniform(20_000, 8, seed=1).out_degree()
    assert degree.mean() == 8
    assert 7.5 < degree.var() < 8.5
    assert degree.max() < 30


def test_uniform_every_pair_equally_likely():
    # 5 edges of the 10 pairs of 5 vertices, over 2000 seeds: each pair in half the draws
    counts = np.zeros((5, 5))
    for seed in range(2000):
        counts += generate.uniform(5, 2, seed=seed).to_scipy().toarray()
    pairs = counts[np.triu_indices(5, 1)] / 2000
    np.testing.assert_allclose(pairs, 0.5, atol=5 * np.sqrt(0.25 / 2000))
    assert np.diag(counts).sum() == 0


def test_uniform_directed_arcs_are_ordered_pairs():
    # directed: (u, v) and (v, u) are distinct pairs, both appear
    A = generate.uniform(40, 20, directed=True, seed=2).to_scipy()
    assert (A.multiply(A.T)).nnz > 0
    assert (A != A.T).nnz > 0


# ---------------------------------------------------------------------- cycle chain
def condensation(G: Graph) -> tuple[np.ndarray, set]:
    """scipy's SCC labels of ``G`` and the set of arcs between distinct components."""
    k, label = csgraph.connected_components(G.to_scipy(), directed=True, connection="strong")
    src, dst, _ = G.edges()
    return label, {(a, b) for a, b in zip(label[src], label[dst]) if a != b}


@pytest.mark.parametrize("ncycles, length", [(1, 1), (1, 6), (5, 1), (4, 2), (30, 17)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_cycle_chain_is_a_path_of_cycles(ncycles, length, shuffle):
    G = generate.cycle_chain(ncycles, length, shuffle=shuffle, seed=4)
    assert G.n == ncycles * length and G.directed
    assert G.nstored == ncycles * length + ncycles - 1
    label, between = condensation(G)
    assert np.bincount(label).tolist() == [length] * ncycles
    # the condensation is one path through every component: each has at most one arc in
    # and one out, ncycles - 1 arcs join them, and following them visits all
    assert len(between) == ncycles - 1
    after = dict(between)
    assert len(after) == len(set(after.values())) == ncycles - 1
    start = (set(range(ncycles)) - set(after.values())).pop()
    path = [start]
    while path[-1] in after:
        path.append(after[path[-1]])
    assert sorted(path) == list(range(ncycles))
    # every vertex lies on its cycle: out-degree 1, or 2 at the chain's links
    assert set(G.out_degree().tolist()) <= {1, 2}


def test_cycle_chain_unshuffled_ids_follow_the_chain():
    label, between = condensation(generate.cycle_chain(6, 4))
    first = label[::4]                       # the first vertex of each cycle, in id order
    assert all((first[c], first[c + 1]) in between for c in range(5))


def test_cycle_chain_shuffle_permutes_ids():
    plain = generate.cycle_chain(50, 10)
    mixed = generate.cycle_chain(50, 10, shuffle=True, seed=1)
    assert not same(plain, mixed)
    assert same(mixed, generate.cycle_chain(50, 10, shuffle=True, seed=1))
    src, dst, _ = mixed.edges()
    assert (np.abs(src - dst) > 10).mean() > 0.5      # neighbours no longer have near ids


def test_cycle_chain_weights_one_per_arc():
    G = generate.cycle_chain(10, 10, weights="uniform", seed=2)
    assert G.weights.dtype == np.int64 and G.weights.size == G.nstored
    assert not same(G, generate.cycle_chain(10, 10, weights="uniform", seed=3))


# ---------------------------------------------------------------------- weights
@pytest.mark.parametrize("name", SMALL)
def test_weight_kinds(name):
    make = SMALL[name]
    assert not make(seed=0).weighted
    uniform = make(seed=0, weights="uniform")
    assert uniform.weights.dtype == np.int64
    assert uniform.weights.min() >= 0 and uniform.weights.max() < generate.UNIFORM_WEIGHT_HIGH
    assert uniform.weights.max() > generate.UNIFORM_WEIGHT_HIGH // 2    # the whole range is used
    real = make(seed=0, weights="real")
    assert real.weights.dtype == np.float64
    assert real.weights.min() >= 0 and real.weights.max() < 1
    A = real.to_scipy()
    assert (A != A.T).nnz == 0                 # one weight per undirected edge


# ---------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("call, error, match", [
    (lambda: generate.kronecker(-1), ValueError, "scale"),
    (lambda: generate.kronecker(33), ValueError, "scale"),
    (lambda: generate.kronecker(2.5), TypeError, "scale"),
    (lambda: generate.kronecker(True), TypeError, "scale"),
    (lambda: generate.kronecker("4"), TypeError, "scale"),
    (lambda: generate.kronecker(4, edgefactor=-2), ValueError, "edgefactor"),
    (lambda: generate.kronecker(4, seed=1.5), TypeError, "seed"),
    (lambda: generate.kronecker(4, weights="normal"), ValueError, "weights"),
    (lambda: generate.kronecker(4, weights=True), ValueError, "weights"),
    (lambda: generate.rmat(4, a=0.5, b=0.3, c=0.2), ValueError, "a \\+ b \\+ c"),
    (lambda: generate.rmat(4, a=0.6, b=0.3, c=0.15), ValueError, "a \\+ b \\+ c"),
    (lambda: generate.rmat(4, a=-0.1), ValueError, "probability"),
    (lambda: generate.rmat(4, c=float("nan")), ValueError, "probability"),
    (lambda: generate.rmat(4, b="0.1"), TypeError, "real number"),
    (lambda: generate.ssca2(-3), ValueError, "scale"),
    (lambda: generate.ssca2(4, max_clique_size=0), ValueError, "max_clique_size"),
    (lambda: generate.ssca2(4, max_clique_size=2.0), TypeError, "max_clique_size"),
    (lambda: generate.grid(-1, 3), ValueError, "rows"),
    (lambda: generate.grid(3, 2.0), TypeError, "cols"),
    (lambda: generate.grid(3, 3, weights="int"), ValueError, "weights"),
    (lambda: generate.grid(3, 3, orientation="random"), ValueError, "directed=True"),
    (lambda: generate.grid(3, 3, directed=True, orientation="up"), ValueError, "orientation"),
    (lambda: generate.grid(3, 3, directed=True, two_way=0.5), ValueError, "two_way"),
    (lambda: generate.grid(3, 3, directed=True, orientation="sweep", two_way=1.5),
     ValueError, "two_way"),
    (lambda: generate.mesh(3, -1, 3), ValueError, "ny"),
    (lambda: generate.mesh(3, 3, 3.0), TypeError, "nz"),
    (lambda: generate.mesh(2, 2, 2, directed=True, orientation="sweep", two_way="x"),
     TypeError, "two_way"),
    (lambda: generate.road(3, 3, keep=1.2), ValueError, "keep"),
    (lambda: generate.road(-3, 3), ValueError, "rows"),
    (lambda: generate.road(3, 3, weights="normal"), ValueError, "weights"),
    (lambda: generate.uniform(-1, 2), ValueError, "n"),
    (lambda: generate.uniform(2**31 + 1, 2), ValueError, "n must be at most"),
    (lambda: generate.uniform(10.0, 2), TypeError, "n"),
    (lambda: generate.uniform(10, -1), ValueError, "mean_degree"),
    (lambda: generate.uniform(10, 9.5), ValueError, "mean_degree"),
    (lambda: generate.uniform(10, float("nan")), ValueError, "mean_degree"),
    (lambda: generate.uniform(10, "2"), TypeError, "mean_degree"),
    (lambda: generate.uniform(10, True), TypeError, "mean_degree"),
    (lambda: generate.uniform(10, 2, weights="int"), ValueError, "weights"),
    (lambda: generate.uniform(10, 2, seed=0.5), TypeError, "seed"),
    (lambda: generate.cycle_chain(-1, 3), ValueError, "ncycles"),
    (lambda: generate.cycle_chain(3, 2.0), TypeError, "length"),
    (lambda: generate.cycle_chain(3, 3, weights="x"), ValueError, "weights"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_docstring_examples():
    assert doctest.testmod(generate, raise_on_error=False).failed == 0
