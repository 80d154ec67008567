"""Strongly connected components on every executor, against scipy and known answers.

Labels must equal, exactly, scipy's ``connected_components(connection="strong")`` relabelled
by the smallest vertex id (``oracles.scc_labels``), and pass ``lagraph_py.validate.scc``; on
undirected graphs both are the connected components. Graphs built from strongly connected
blocks joined by one-way edges carry their answer by construction, independent of scipy.
"""

from collections import Counter
from itertools import pairwise
from unittest import mock

import numpy as np
import pytest
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs, scc_labels
from scipy.sparse import csgraph

import lagraph_py.algorithms.scc as scc_module
from lagraph_py import generate, validate
from lagraph_py.algorithms.bfs import bfs
from lagraph_py.algorithms.scc import scc
from lagraph_py.executor import get_executor
from lagraph_py.graph import Graph
from lagraph_py.io import read_mtx
from lagraph_py.results import asnumpy

MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")
RELAXED = {"deadline": None,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]}


def check(G, backend, expected=None):
    """Run scc, compare with the oracle (and ``expected`` if given), validate; return labels."""
    r = scc(G, backend=backend)
    labels = asnumpy(r.labels)
    assert labels.dtype == np.int64 and labels.shape == (G.n,)
    np.testing.assert_array_equal(labels, scc_labels(G))
    if expected is not None:
        np.testing.assert_array_equal(labels, expected)
    validate.scc(G, r)
    return labels


# ---------------------------------------------------------------------- generated graphs
@st.composite
def joined_blocks(draw, max_blocks=7, max_size=6):
    """Strongly connected blocks (a cycle, a clique, a two-way path or a lone vertex) on
    shuffled ids, with one-way edges only from earlier to later blocks: the blocks are then
    exactly the components. Returns the graph and the expected labels."""
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_blocks))
    n = sum(sizes)
    perm = draw(st.permutations(range(n)))
    blocks, src, dst, start = [], [], [], 0
    for size in sizes:
        ids = perm[start:start + size]
        start += size
        blocks.append(ids)
        kind = draw(st.sampled_from(["cycle", "clique", "two-way path"]))
        if size == 1:
            pairs = [(ids[0], ids[0])] if draw(st.booleans()) else []
        elif kind == "cycle":
            pairs = list(zip(ids, ids[1:] + ids[:1]))
        elif kind == "clique":
            pairs = [(u, v) for u in ids for v in ids if u != v]
        else:
            pairs = list(pairwise(ids)) + [(v, u) for u, v in pairwise(ids)]
        src += [u for u, _ in pairs]
        dst += [v for _, v in pairs]
    k = len(blocks)
    for i, j in draw(st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)),
                              max_size=3 * k)):
        if i != j:
            i, j = min(i, j), max(i, j)
            src.append(draw(st.sampled_from(blocks[i])))
            dst.append(draw(st.sampled_from(blocks[j])))
    expected = np.empty(n, dtype=np.int64)
    for ids in blocks:
        expected[ids] = min(ids)
    return Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                            n=n), expected


@settings(max_examples=200, **RELAXED)
@given(G=graphs(max_n=40, directed=True))
def test_random_directed_graphs(backend, G):
    check(G, backend)


@settings(max_examples=200, **RELAXED)
@given(case=joined_blocks())
def test_blocks_joined_by_one_way_edges(backend, case):
    G, expected = case
    check(G, backend, expected)


@settings(max_examples=60, **RELAXED)
@given(G=graphs(max_n=40, directed=False))
def test_undirected_graphs_give_connected_components(backend, G):
    labels = check(G, backend)
    if G.n:
        k, comp = csgraph.connected_components(G.to_scipy(), directed=False)
        assert len(np.unique(labels)) == k
        np.testing.assert_array_equal(comp, comp[labels])


# ---------------------------------------------------------------------- shapes by hand
def test_empty_and_single_vertex(backend):
    assert check(Graph.from_edges([], [], n=0), backend).size == 0
    check(Graph.from_edges([], [], n=1), backend, [0])
    check(Graph.from_edges([0], [0], n=1), backend, [0])
    check(Graph.from_edges([0], [0], n=3), backend, [0, 1, 2])


def test_docstring_example(backend):
    G = Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 0, 4, 3], n=6)
    check(G, backend, [0, 0, 0, 3, 3, 5])


def test_self_loops_and_parallel_edges_change_nothing(backend):
    src, dst = [0, 1, 2, 3, 3, 4], [1, 2, 0, 4, 4, 3]
    plain = check(Graph.from_edges(src, dst, n=6), backend)
    loops = list(range(6))
    looped = check(Graph.from_edges(src + loops + src, dst + loops + dst, n=6), backend)
    np.testing.assert_array_equal(plain, looped)


@pytest.mark.parametrize("n", [2, 3, 1000])
def test_long_cycle_is_one_component(backend, n):
    perm = np.random.default_rng(n).permutation(n)
    G = Graph.from_edges(perm, np.roll(perm, -1), n=n)
    check(G, backend, np.zeros(n, dtype=np.int64))


@pytest.mark.parametrize("order", ["up", "down", "shuffled"])
def test_long_path_is_all_singletons(backend, order):
    n = 300
    ids = {"up": np.arange(n), "down": np.arange(n)[::-1],
           "shuffled": np.random.default_rng(1).permutation(n)}[order]
    check(Graph.from_edges(ids[:-1], ids[1:], n=n), backend, np.arange(n))


def test_stars(backend):
    n = 50
    hub = np.zeros(n - 1, dtype=np.int64)
    leaves = np.arange(1, n)
    check(Graph.from_edges(hub, leaves, n=n), backend, np.arange(n))              # out-star
    check(Graph.from_edges(leaves, hub, n=n), backend, np.arange(n))              # in-star
    both = Graph.from_edges(np.r_[hub, leaves], np.r_[leaves, hub], n=n)          # two-way
    check(both, backend, np.zeros(n, dtype=np.int64))


def test_two_cycles(backend):
    # 0<->1 reached from 2 but leading nowhere (only out-neighbour rule applies); 3<->4
    # reaching 5 but reached from nowhere (only in-neighbour rule); 6<->7 with both.
    G = Graph.from_edges([0, 1, 2, 3, 4, 4, 6, 7, 2, 5],
                         [1, 0, 0, 4, 3, 5, 7, 6, 8, 2], n=9)
    check(G, backend, [0, 0, 2, 3, 3, 5, 6, 6, 8])


def test_disconnected_pieces(backend):
    # a 4-cycle, a 2-cycle, two isolated vertices, a 3-cycle with a tail, all apart
    src = [0, 1, 2, 3, 5, 6, 9, 10, 11, 12]
    dst = [1, 2, 3, 0, 6, 5, 10, 11, 9, 9]
    check(Graph.from_edges(src, dst, n=13), backend,
          [0, 0, 0, 0, 4, 5, 5, 7, 8, 9, 9, 9, 12])


def test_every_phase_runs_and_is_right(backend):
    """A graph that needs every phase: a tail to trim, a giant cycle for forward-backward,
    2-cycles with a single in- or out-neighbour, and chains of small cycles for colouring."""
    rng = np.random.default_rng(5)
    n = 400
    perm = rng.permutation(n)
    src, dst = [], []

    def cycle(ids):
        src.extend(ids)
        dst.extend(ids[1:] + ids[:1])

    giant = perm[:200].tolist()
    cycle(giant)
    src += giant[::7]                                          # chords: a high-degree pivot
    dst += giant[3::7][:len(giant[::7])]
    small = [perm[200 + 3 * k: 203 + 3 * k].tolist() for k in range(30)]
    for ids in small:
        cycle(ids)
    for a, b in pairwise(small):                               # a one-way chain of 3-cycles
        src.append(a[0])
        dst.append(b[1])
    pairs = [perm[290 + 2 * k: 292 + 2 * k].tolist() for k in range(20)]
    for k, (u, v) in enumerate(pairs):                         # 2-cycles hanging off the giant
        src += [u, v, giant[k] if k % 2 else u]
        dst += [v, u, u if k % 2 else giant[k]]
    tail = perm[330:].tolist()                                 # a path out of the giant
    src += [giant[0]] + tail[:-1]
    dst += tail
    G = Graph.from_edges(np.array(src), np.array(dst), n=n)

    calls = Counter()

    def spy(name):
        real = getattr(scc_module, name)

        def wrapper(*args, **kwargs):
            out = real(*args, **kwargs)
            calls[name] += 1
            if name == "_trim_pairs":
                calls["pairs"] += out[1]
            return out
        return mock.patch.object(scc_module, name, wrapper)

    with spy("_trim"), spy("_forward_backward"), spy("_trim_pairs"), spy("_colour"):
        labels = check(G, backend)
    assert labels[giant[0]] == min(giant) and (labels[giant] == min(giant)).all()
    assert calls["_forward_backward"] == 1 and calls["_colour"] >= 1
    assert calls["pairs"] == 2 * len(pairs)
    assert len(np.unique(labels)) == n - 199 - 2 * 30 - len(pairs)


# ---------------------------------------------------------------------- larger graphs
@pytest.mark.parametrize("seed", [0, 1])
def test_kronecker_directed(backend, seed):
    check(generate.kronecker(11, 8, seed=seed, directed=True), backend)


def test_sparse_random_directed_many_components(backend):
    rng = np.random.default_rng(3)
    n, m = 3000, 4200                                          # near the giant threshold
    labels = check(Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n),
                   backend)
    sizes = np.bincount(labels)
    assert (sizes > 1).sum() > 1                               # several non-trivial SCCs


def test_randomly_oriented_torus(backend):
    rng = np.random.default_rng(4)
    r = c = 30
    idx = np.arange(r * c).reshape(r, c)
    s = np.r_[idx.ravel(), idx.ravel()]
    d = np.r_[np.roll(idx, 1, 1).ravel(), np.roll(idx, 1, 0).ravel()]
    flip = rng.random(s.size) < 0.5
    check(Graph.from_edges(np.where(flip, d, s), np.where(flip, s, d), n=r * c), backend)


def test_undirected_grid_and_path_converge_fast(backend):
    """Connected components with pointer jumping: a shuffled 60x60 grid and a shuffled
    path of 5000 vertices take a few dozen rounds, not thousands."""
    rng = np.random.default_rng(2)
    grid = generate.grid(60, 60)
    s, d, _ = grid.edges()
    perm = rng.permutation(grid.n)
    shuffled = Graph.from_edges(perm[s], perm[d], n=grid.n, directed=False)
    path = rng.permutation(5000)
    G_path = Graph.from_edges(path[:-1], path[1:], n=5000, directed=False)
    ex = get_executor(backend)
    for G in (grid, shuffled, G_path):
        with mock.patch.object(type(ex), "extract", autospec=True,
                               side_effect=type(ex).extract) as extract:
            check(G, backend, np.zeros(G.n, dtype=np.int64))
        assert extract.call_count <= 40                        # one per FastSV round


@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_real_matrices(backend, path):
    G = read_mtx(path)
    check(G, backend)
    check(Graph.from_scipy(G.to_scipy(), directed=True), backend)   # every stored arc


# ---------------------------------------------------------------------- conventions
def test_input_graph_unchanged_and_repeatable(backend):
    G = generate.kronecker(9, 8, seed=7, directed=True)
    before = [a.copy() for a in (G.indptr, G.indices)]
    first = check(G, backend)
    bfs(G, 0, backend=backend)                                 # shares the cached matrices
    second = check(G, backend)
    np.testing.assert_array_equal(first, second)
    for a, b in zip(before, (G.indptr, G.indices), strict=True):
        np.testing.assert_array_equal(a, b)
    fresh = Graph.from_edges(*G.edges()[:2], n=G.n)
    np.testing.assert_array_equal(asnumpy(scc(fresh, backend=backend).labels), first)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="backend"):
        scc(Graph.from_edges([0], [1]), backend="tpu")
    with pytest.raises(TypeError, match="Graph"):
        scc(Graph.from_edges([0], [1]).to_scipy())
