"""Strongly connected components on every executor, against scipy and known answers.

Labels must equal, exactly, scipy's ``connected_components(connection="strong")`` relabelled
by the smallest vertex id (``oracles.scc_labels``), and pass ``lagraph_py.validate.scc``; on
undirected graphs both are the connected components. Graphs built from strongly connected
blocks joined by one-way edges carry their answer by construction, independent of scipy.

Every test taking ``backend`` runs on the fused cpu executor ("cpu"), on the reference
:class:`~lagraph_py.cpu.CpuExecutor` (the primitive definitions of the group steps) and on
the gpu where one exists. The group steps are also called directly on random unions of
components and compared between the fused and the reference executor.
"""

import doctest
from collections import Counter
from itertools import pairwise
from unittest import mock

import numpy as np
import pytest
from conftest import BACKENDS, DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs, scc_labels, with_int64_ids
from scipy.sparse import csgraph

import lagraph_py.algorithms.scc as scc_module
import lagraph_py.cpu_steps.scc as fused_scc
from lagraph_py import generate, validate
from lagraph_py.algorithms.bfs import bfs
from lagraph_py.algorithms.scc import scc
from lagraph_py.cpu import CpuExecutor
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.executor import Executor, get_executor
from lagraph_py.graph import Graph
from lagraph_py.io import read_mtx
from lagraph_py.results import asnumpy

MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")
RELAXED = {"deadline": None,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]}


@pytest.fixture(params=BACKENDS[:1] + ["reference"] + BACKENDS[1:])
def backend(request):
    """The fused cpu executor, the reference cpu executor, and the gpu where present."""
    return CpuExecutor() if request.param == "reference" else request.param


class TextOnFusedCpu(FusedCpuExecutor):
    """The fused cpu executor running the SCC text (its compiled BFS levels included)."""

    strong_components = Executor.strong_components


@pytest.fixture(params=["reference", "text on fused"] + BACKENDS[1:])
def text_backend(request):
    """The executors that run the SCC text: the reference cpu executor, the fused one with
    the text instead of its compiled ``strong_components``, and the gpu where present."""
    makers = {"reference": CpuExecutor, "text on fused": TextOnFusedCpu}
    return makers[request.param]() if request.param in makers else request.param


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


def test_every_phase_runs_and_is_right(text_backend):
    """A graph with a hub, so that every phase runs: a tail to trim, a giant component for
    forward-backward, 2-cycles with a single in- or out-neighbour, and chains of small
    cycles left to the signature step."""
    rng = np.random.default_rng(5)
    n = 400
    perm = rng.permutation(n)
    src, dst = [], []

    def cycle(ids):
        src.extend(ids)
        dst.extend(ids[1:] + ids[:1])

    giant = perm[:200].tolist()
    cycle(giant)
    src += [giant[0]] * 199 + giant[3::3]                      # a hub: the pivot
    dst += giant[1:] + [giant[0]] * len(giant[3::3])
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

    with spy("forward_backward"), spy("_trim_pairs"), \
            mock.patch.object(get_executor(text_backend), "scc_seed_phases",
                              "forward_backward"):
        labels = check(G, text_backend)
    assert (labels[giant] == min(giant)).all()
    assert calls["forward_backward"] == 1
    assert calls["pairs"] == 2 * len(pairs)
    assert len(np.unique(labels)) == n - 199 - 2 * 30 - len(pairs)


def test_two_way_edges_inside_larger_components(text_backend):
    """The 2-cycle trim takes a pair u <-> v only when each is the other's only active in-
    (or out-)neighbour: here every two-way edge u <-> v also lies on a 3-cycle
    u -> v -> w -> u, so the three are one component, left by the seed phases (a hub
    makes them run) to the signature step."""
    rng = np.random.default_rng(11)
    n = 300
    perm = rng.permutation(n)
    giant = perm[:150].tolist()
    src = giant + [giant[0]] * 149 + giant[3::3]               # a cycle and its hub
    dst = giant[1:] + giant[:1] + giant[1:] + [giant[0]] * len(giant[3::3])
    triangles = perm[150:].reshape(-1, 3)
    for u, v, w in triangles.tolist():
        src += [u, v, v, w]
        dst += [v, u, w, u]
    G = Graph.from_edges(np.array(src), np.array(dst), n=n)
    assert scc_module.has_hubs(G)
    expected = np.empty(n, dtype=np.int64)
    expected[giant] = min(giant)
    expected[triangles] = triangles.min(axis=1, keepdims=True)
    with mock.patch.object(get_executor(text_backend), "scc_seed_phases",
                           "forward_backward"):
        check(G, text_backend, expected)


@pytest.mark.parametrize("make", [
    lambda: generate.grid(30, 30, directed=True, orientation="random", seed=1),
    lambda: generate.mesh(8, 8, 8, directed=True, orientation="sweep", two_way=0.2, seed=1),
], ids=["grid", "mesh"])
def test_graphs_without_hubs_skip_forward_backward(make):
    G = make()
    with mock.patch.object(scc_module, "forward_backward",
                           side_effect=AssertionError("forward-backward ran")):
        check(G, TextOnFusedCpu())
        check(G, CpuExecutor())


@pytest.mark.parametrize("make", [
    lambda: generate.kronecker(10, directed=True, seed=2),
    lambda: generate.grid(30, 30, directed=True, orientation="random", seed=2),
    lambda: generate.mesh(8, 8, 8, directed=True, orientation="sweep", two_way=0.2, seed=2),
], ids=["kronecker", "grid", "mesh"])
def test_trim_seed_phase_gives_the_same_labels(text_backend, make):
    """The choice of ``Executor.scc_seed_phases`` of one trim, no forward-backward, on
    every executor that runs the text."""
    G = make()
    with mock.patch.object(get_executor(text_backend), "scc_seed_phases", "trim"), \
            mock.patch.object(scc_module, "forward_backward",
                              side_effect=AssertionError("forward-backward ran")):
        check(G, text_backend)


@pytest.mark.parametrize("make", [
    lambda: generate.kronecker(10, directed=True, seed=3),
    lambda: generate.grid(20, 20, directed=True, orientation="random", seed=3),
    lambda: generate.uniform(2000, 3, directed=True, seed=3),
], ids=["kronecker", "grid", "uniform"])
def test_pivot_seed_phase_gives_the_same_labels(text_backend, make):
    """The gpu's choice of ``Executor.scc_seed_phases``: the pivot's component first on
    every graph (with or without hubs), then one trim, on every executor that runs the
    text; the pivot's component is labelled by the searches."""
    G = make()
    calls = []

    def spy(ex, G, A, AT, active, label):
        calls.append(ex.nvals(active))
        out = scc_module.forward_backward(ex, G, A, AT, active, label)
        calls.append(ex.nvals(out))
        return out

    ex = get_executor(text_backend)
    with mock.patch.object(ex, "scc_seed_phases", "pivot"), \
            mock.patch.object(type(ex), "scc_pivot_component", spy):
        check(G, text_backend)
    assert calls[0] == G.n and calls[1] < G.n      # the pivot's component at least


def test_hub_rule_tells_power_law_from_meshes_and_random_graphs():
    rng = np.random.default_rng(0)
    n = 1 << 14
    assert scc_module.has_hubs(generate.kronecker(10, 8, directed=True))
    assert scc_module.has_hubs(generate.kronecker(14, directed=True))
    for G in (generate.grid(100, 100, directed=True, orientation="random"),
              generate.mesh(20, 20, 20, directed=True, orientation="sweep", two_way=0.1),
              generate.road(100, 100), Graph.from_edges([], [], n=5),
              Graph.from_edges([], [], n=0),
              Graph.from_edges(rng.integers(0, n, n), rng.integers(0, n, n), n=n),
              Graph.from_edges(rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n), n=n)):
        assert not scc_module.has_hubs(G)


# ---------------------------------------------------------------------- graph classes
@pytest.mark.parametrize("two_way", [0.0, 0.2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomly_oriented_grids(backend, seed, two_way):
    G = generate.grid(25, 31, directed=True, orientation="random", two_way=two_way, seed=seed)
    labels = check(G, backend)
    assert 1 < len(np.unique(labels)) < G.n


@pytest.mark.parametrize("two_way", [0.0, 0.05, 0.15, 0.4])
def test_swept_meshes_with_two_way_edges(backend, two_way):
    G = generate.mesh(9, 10, 11, directed=True, orientation="sweep", two_way=two_way, seed=3)
    labels = check(G, backend)
    if two_way == 0:
        np.testing.assert_array_equal(labels, np.arange(G.n))          # a DAG


def test_cycle_of_cycles_is_one_component(backend):
    rng = np.random.default_rng(6)
    k, size = 20, 15
    ids = rng.permutation(k * size).reshape(k, size)
    src = np.r_[ids.ravel(), ids[:, 0]]                        # each row a cycle, and the
    dst = np.r_[np.roll(ids, -1, axis=1).ravel(), np.roll(ids[:, 5], -1)]  # cycles in a ring
    check(Graph.from_edges(src, dst, n=k * size), backend, np.zeros(k * size, np.int64))
    chain = Graph.from_edges(src[:-1], dst[:-1], n=k * size)   # open the ring: k components
    expected = np.empty(k * size, np.int64)
    expected[ids] = ids.min(axis=1, keepdims=True)
    check(chain, backend, expected)


@pytest.mark.parametrize("m", [500, 3000])
def test_random_dags_are_all_singletons(backend, m):
    rng = np.random.default_rng(m)
    n = 600
    order = rng.permutation(n)                                 # arcs go up this order
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    src, dst = order[np.minimum(a, b)], order[np.maximum(a, b)]
    check(Graph.from_edges(src, dst, n=n), backend, np.arange(n))


def test_one_giant_component(backend):
    rng = np.random.default_rng(8)
    n = 2000
    perm = rng.permutation(n)
    src = np.r_[perm, rng.integers(0, n, 3 * n)]
    dst = np.r_[np.roll(perm, -1), rng.integers(0, n, 3 * n)]
    check(Graph.from_edges(src, dst, n=n), backend, np.zeros(n, np.int64))


def test_many_two_cycles(backend):
    rng = np.random.default_rng(9)
    k = 500
    ids = rng.permutation(2 * k).reshape(k, 2)
    up = rng.integers(0, k, (2, 3 * k))                        # one-way arcs between pairs,
    lo, hi = up.min(axis=0), up.max(axis=0)                    # earlier pair to later pair
    keep = lo < hi
    side = rng.integers(0, 2, (2, keep.sum()))
    src = np.r_[ids[:, 0], ids[:, 1], ids[lo[keep], side[0]]]
    dst = np.r_[ids[:, 1], ids[:, 0], ids[hi[keep], side[1]]]
    expected = np.empty(2 * k, np.int64)
    expected[ids] = ids.min(axis=1, keepdims=True)
    check(Graph.from_edges(src, dst, n=2 * k), backend, expected)


@pytest.mark.parametrize("ratio", [0.9, 1.0, 1.2])
def test_random_directed_near_the_giant_threshold(backend, ratio):
    rng = np.random.default_rng(10)
    n = 4000
    m = int(ratio * n)
    check(Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n), backend)


def test_signature_rounds_are_few_on_a_long_diameter_graph():
    """Each signature round splits every class; on a randomly oriented 60x60 grid (diameter
    118) a handful of rounds finish it (about 7 on 200x200)."""
    G = generate.grid(60, 60, directed=True, orientation="random", seed=4)
    ex = CpuExecutor()
    with mock.patch.object(CpuExecutor, "select_edges", autospec=True,
                           side_effect=CpuExecutor.select_edges) as split:
        check(G, ex)
    assert 0 < split.call_count <= 2 * 12                      # two matrices per round


# ---------------------------------------------------------------------- the fused step
@st.composite
def scc_shapes(draw, max_n=60):
    """Directed graphs of the shapes the SCC methods part on, on shuffled ids: a hub with
    arcs out to some vertices and back from some (a giant component with others hanging
    off it), 2-cycles, one-way tails, chains of cycles linked one way, self-loops, a few
    random arcs, and vertices left isolated; int32 or int64 index arrays."""
    n = draw(st.integers(1, max_n))
    perm = draw(st.permutations(range(n)))
    src, dst = [], []

    def arcs(pairs):
        pairs = list(pairs)
        src.extend(u for u, _ in pairs)
        dst.extend(v for _, v in pairs)

    def some_ids():
        start = draw(st.integers(0, n - 1))
        return perm[start:start + draw(st.integers(1, n))]

    for shape in draw(st.lists(st.sampled_from(["hub", "pairs", "tail", "chain", "loops",
                                                "random"]), max_size=6)):
        ids = some_ids()
        if shape == "hub":
            hub, rest = ids[0], ids[1:]
            arcs((hub, v) for v in rest if draw(st.booleans()))
            arcs((v, hub) for v in rest if draw(st.booleans()))
        elif shape == "pairs":
            arcs((u, v) for a, b in zip(ids[::2], ids[1::2]) for u, v in ((a, b), (b, a)))
        elif shape == "tail":
            arcs(pairwise(ids))
        elif shape == "chain":
            size = draw(st.integers(1, 6))
            cycles = [ids[k:k + size] for k in range(0, len(ids), size)]
            for c in cycles:
                arcs(zip(c, c[1:] + c[:1]))
            arcs((a[-1], b[0]) for a, b in pairwise(cycles))
        elif shape == "loops":
            arcs((v, v) for v in ids)
        else:
            vertex = st.sampled_from(ids)
            arcs(draw(st.lists(st.tuples(vertex, vertex), max_size=2 * len(ids))))
    G = Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n=n)
    if draw(st.booleans()):
        G = with_int64_ids(G)
    return G


@settings(max_examples=200, **RELAXED)
@given(G=scc_shapes())
def test_hubs_pairs_tails_and_chains(backend, G):
    check(G, backend)


@settings(max_examples=300, **RELAXED)
@given(G=scc_shapes(), data=st.data(), pull=st.sampled_from([0, 1, 4, 1 << 20]),
       push=st.sampled_from([1, 24, 1 << 20]), wide=st.booleans())
def test_every_branch_of_the_compiled_search(G, data, pull, push, wide):
    """The compiled call with the search forced on, given up at every point (``budget``
    arcs read, from none to twice what the graph holds), pulling never, soon, late or at
    once, pushing again soon or never, on 32- and 64-bit work arrays; and without it."""
    budget = data.draw(st.integers(0, 2 * G.nstored), label="budget")
    arrays = fused_scc._csr(G) + fused_scc._csr(G.transpose())
    like = fused_scc._UINT64 if wide else fused_scc._UINT32
    truth = scc_labels(G)
    for search in (True, False):
        work = fused_scc._work(G.n, like, arrays[0], G.n)
        labels = fused_scc._strong_components(*arrays, search, work, budget, pull, push,
                                              fused_scc._NO_STOP)
        np.testing.assert_array_equal(labels, truth)


NO_BUDGET = np.uint64(np.iinfo(np.uint64).max)


def check_reach(G, source, pull, push):
    """Forward from ``source``, then backward inside what that reached: each vertex once,
    exactly those scipy's BFS reaches, with their out-arcs counted."""
    (indptr, indices), (tindptr, tindices) = fused_scc._csr(G), fused_scc._csr(G.transpose())
    A = G.to_scipy()
    state = np.zeros(G.n, np.uint8)
    queue, cand = np.empty(G.n, np.uint32), np.empty(G.n, np.uint32)
    region = np.arange(G.n)
    for direction, M, arrays, within, bit in (
            ("forward", A, (indptr, indices, tindptr, tindices), 0, fused_scc._FW),
            ("backward", A.T.tocsr(), (tindptr, tindices, indptr, indices), fused_scc._FW,
             fused_scc._BW)):
        count, out_arcs, _ = fused_scc._reach(
            *arrays, np.uint64(source), state, np.uint8(within), bit, np.uint64(region.size),
            np.uint64(np.diff(arrays[2])[region].sum()), queue, cand, NO_BUDGET,
            np.uint64(pull), np.uint64(push))
        sub = M[region][:, region]
        order = csgraph.breadth_first_order(sub, int(np.flatnonzero(region == source)[0]),
                                            return_predecessors=False)
        expected = np.sort(region[order])
        reached = queue[:count].astype(np.int64)
        np.testing.assert_array_equal(np.sort(reached), expected, err_msg=direction)
        np.testing.assert_array_equal(np.flatnonzero(state & bit), expected)
        assert out_arcs == np.diff(arrays[0])[expected].sum()
        region = expected


@settings(max_examples=200, **RELAXED)
@given(G=scc_shapes(), data=st.data(), pull=st.sampled_from([0, 1, 4, 1 << 20]),
       push=st.sampled_from([1, 24, 1 << 20]))
def test_search_reaches_exactly_the_reachable_vertices(G, data, pull, push):
    check_reach(G, data.draw(st.integers(0, G.n - 1), label="source"), pull, push)


def test_search_that_pulls_after_pushing():
    """Pulling at once, pushing again on a shrinking frontier, then pulling: the vertices
    the pushes visited are still on the pull's list of candidates, and are not taken
    twice."""
    G = Graph.from_edges([1, 0, 0, 4, 6, 0, 2, 1, 5, 3, 1, 4, 6, 1],
                         [0, 3, 1, 6, 5, 5, 3, 2, 1, 3, 4, 6, 6, 2], n=8)
    check_reach(G, 0, 1, 1)


@settings(max_examples=100, **RELAXED)
@given(G=scc_shapes(), search=st.booleans())
def test_fused_strong_components_equals_the_definition(G, search):
    """Either choice of the fused step's rule, against the text on the reference executor
    and on the fused executor's own steps."""
    expected = CpuExecutor().strong_components(G).to_dense(-1)
    with mock.patch.object(fused_scc, "_search_pays", return_value=search):
        fused = FusedCpuExecutor().strong_components(G)
    text = TextOnFusedCpu().strong_components(G)
    for ex, labels in ((FusedCpuExecutor(), fused), (TextOnFusedCpu(), text)):
        np.testing.assert_array_equal(ex.to_dense(labels, -1), expected)


def test_search_rule_runs_the_search_on_graphs_with_hubs_and_many_arcs():
    rng = np.random.default_rng(0)
    n = 1 << 15
    for G in (generate.kronecker(10, 8, directed=True), generate.kronecker(14, directed=True)):
        assert fused_scc._search_pays(G)
    for G in (generate.kronecker(16, 2, directed=True),                    # few arcs
              generate.grid(300, 300, directed=True, orientation="random"),  # no hubs
              generate.mesh(40, 40, 40, directed=True, orientation="sweep", two_way=0.5),
              Graph.from_edges(rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n), n=n)):
        assert not fused_scc._search_pays(G)


@pytest.mark.parametrize("search", [False, True])
def test_deep_chain_of_cycles(search):
    """300 cycles of 300 vertices, each linked one way to the next, ids shuffled: a
    depth-first path of 90,000 vertices, on the compiled call with and without the
    search."""
    G = generate.cycle_chain(300, 300, shuffle=True, seed=11)
    with mock.patch.object(fused_scc, "_search_pays", return_value=search):
        labels = check(G, "cpu")
    assert (np.bincount(labels)[np.unique(labels)] == 300).all()
    assert np.unique(labels).size == 300


# ---------------------------------------------------------------------- group steps directly
@st.composite
def unions_of_components(draw):
    """A directed graph, a random union of its components as the active set, and labels
    already set on some vertices outside it."""
    G = draw(graphs(max_n=40, directed=True))
    truth = scc_labels(G)
    roots = np.unique(truth)
    chosen = np.array(draw(st.lists(st.sampled_from(roots.tolist()), unique=True)) if G.n
                      else [], dtype=np.int64)
    active = np.flatnonzero(np.isin(truth, chosen))
    outside = np.setdiff1d(np.arange(G.n), active)
    known = outside[np.array(draw(st.lists(st.booleans(), min_size=outside.size,
                                           max_size=outside.size)), dtype=bool)]
    return G, active, known, truth


def group_step_inputs(ex, G, active, known, truth):
    A = ex.matrix(G, loops=False)
    AT = ex.matrix(G, transpose=True, loops=False)
    return A, AT, ex.vector(G.n, active, active), ex.vector(G.n, known, truth[known])


@settings(max_examples=150, **RELAXED)
@given(case=unions_of_components())
def test_fused_scc_trim_equals_the_definition(case):
    G, active, known, truth = case
    results = []
    for ex in (FusedCpuExecutor(), CpuExecutor()):
        A, AT, act, label = group_step_inputs(ex, G, active, known, truth)
        left = ex.scc_trim(A, AT, act, label)
        results.append((ex.to_coo(left), ex.to_coo(label)))
    (fused_left, fused_label), (ref_left, ref_label) = results
    for a, b in ((fused_left, ref_left), (fused_label, ref_label)):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(fused_left[1], fused_left[0])             # values: own ids
    trimmed = np.setdiff1d(active, fused_left[0])
    np.testing.assert_array_equal(truth[trimmed], trimmed)                  # singletons


@settings(max_examples=150, **RELAXED)
@given(case=unions_of_components())
def test_fused_scc_signatures_equal_the_definition(case):
    G, active, known, truth = case
    labels = []
    for ex in (FusedCpuExecutor(), CpuExecutor()):
        A, AT, act, label = group_step_inputs(ex, G, active, known, truth)
        ex.scc_signatures(A, AT, act, label)
        labels.append(ex.to_coo(label))
    np.testing.assert_array_equal(labels[0][0], labels[1][0])
    np.testing.assert_array_equal(labels[0][1], labels[1][1])
    done = np.union1d(active, known)
    np.testing.assert_array_equal(labels[0][0], done)
    np.testing.assert_array_equal(labels[0][1], truth[done])


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


def test_docstring_examples():
    for module in (scc_module, fused_scc):
        assert doctest.testmod(module, raise_on_error=False).failed == 0


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="backend"):
        scc(Graph.from_edges([0], [1]), backend="tpu")
    with pytest.raises(TypeError, match="Graph"):
        scc(Graph.from_edges([0], [1]).to_scipy())
