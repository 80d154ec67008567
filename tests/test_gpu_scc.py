"""The fused SCC steps of the gpu executor against scipy and the reference cpu executor.

``lg.scc(G, backend="gpu")`` must give scipy's components labelled by their smallest id on
every graph; the group steps ``scc_trim`` and ``scc_signatures`` and the primitive
``select_edges``, called directly on random inputs, must give exactly what the cpu
executor's definitions give. Each runs in the modes of :data:`MODES`: on the device's
kernels alone, on the host's compiled loops (small graphs), with the signature kernel
handing its rest to the host after a few sweeps (deep graphs), with the pivot's searches
cut short, and with one trim instead of the pivot's searches. Skipped where CuPy or a
CUDA device is absent.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from conftest import DATA, cupy_or_skip, uncached  # noqa: E402

cp = cupy_or_skip()

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor, _module, scc_steps, storage  # noqa: E402
from lagraph_py.cpu import CpuExecutor  # noqa: E402
from oracles import graphs, scc_labels, with_int64_ids  # noqa: E402

pytestmark = pytest.mark.gpu
CPU, GPU = CpuExecutor(), GpuExecutor()
#: The executor's settings of each mode: the kernels alone (never the host), the host's
#: loops alone (every graph counts as small), the kernels handing over after 3 sweeps
#: (without the pivot's searches, as on graphs of their size), the pivot's searches cut
#: after two levels (given up on deeper graphs; the backward
#: one after every forward one that finished), one trim without the pivot's searches,
#: and the kernels relaxing runs of arcs that follow each other on every graph.
MODES = {
    "device": dict(scc_host_items=0, scc_pivot_items=0, scc_host_share=float("inf")),
    "host": dict(scc_host_items=1 << 62),
    "handoff": dict(scc_host_items=0, scc_handoff_sweeps=3),
    "pivot_cut": dict(scc_host_items=0, scc_pivot_items=0, scc_pivot_levels=2,
                      scc_pivot_share=0.0),
    "trim_first": dict(scc_host_items=0, scc_seed_phases="trim"),
    "runs": dict(scc_host_items=0, scc_pivot_items=0, scc_host_share=float("inf"),
                 scc_run_share=-1.0),
}
RELAXED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(params=sorted(MODES))
def mode(request, monkeypatch):
    for name, value in MODES[request.param].items():
        monkeypatch.setattr(GPU, name, value)
    return request.param


def gpu_labels(G):
    return cp.asnumpy(lg.scc(G, backend=GPU).labels)


def random_ids(rng, n):
    return rng.permutation(n)


# ------------------------------------------------------------------ generated classes
def long_cycle(rng, n=100_000):
    ids = random_ids(rng, n)
    return lg.Graph.from_edges(ids, np.roll(ids, -1), n=n)


def cycle_of_cycles(rng, closed, k=60, size=150):
    """``k`` cycles of ``size`` vertices, each joined to the next by one arc (and the last
    to the first when ``closed``, making one component)."""
    ids = random_ids(rng, k * size).reshape(k, size)
    src = [ids.ravel()]
    dst = [np.roll(ids, -1, axis=1).ravel()]
    links = k if closed else k - 1
    src.append(ids[np.arange(links), rng.integers(0, size, links)])
    dst.append(ids[(np.arange(links) + 1) % k, rng.integers(0, size, links)])
    return lg.Graph.from_edges(np.concatenate(src), np.concatenate(dst), n=k * size)


def dag(rng, n=20_000, m=80_000):
    order = random_ids(rng, n)
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    return lg.Graph.from_edges(order[np.minimum(a, b)], order[np.maximum(a, b)], n=n)


def giant(rng, n=30_000, m=60_000):
    ids = random_ids(rng, n)
    src = np.concatenate([ids, rng.integers(0, n, m)])
    dst = np.concatenate([np.roll(ids, -1), rng.integers(0, n, m)])
    return lg.Graph.from_edges(src, dst, n=n)


def two_cycles(rng, pairs=20_000, links=30_000):
    """Many 2-cycles, joined by one-way arcs between pairs (some closing larger cycles)."""
    ids = random_ids(rng, 2 * pairs).reshape(pairs, 2)
    a, b = rng.integers(0, pairs, links), rng.integers(0, pairs, links)
    src = np.concatenate([ids[:, 0], ids[:, 1], ids[a, rng.integers(0, 2, links)]])
    dst = np.concatenate([ids[:, 1], ids[:, 0], ids[b, rng.integers(0, 2, links)]])
    return lg.Graph.from_edges(src, dst, n=2 * pairs)


def hubs(rng, n=20_000, spokes=6_000):
    """Two hubs with rows longer than a group handles (arcs to and from thousands of
    vertices), over random arcs."""
    ids = random_ids(rng, n)
    a, b = rng.integers(0, n, spokes), rng.integers(0, n, spokes)
    src = np.concatenate([np.full(spokes, ids[0]), ids[a], ids[1:3], rng.integers(0, n, n)])
    dst = np.concatenate([ids[b], np.full(spokes, ids[1]), np.full(2, ids[0]),
                          rng.integers(0, n, n)])
    return lg.Graph.from_edges(src, dst, n=n)


def numbered_along(rng, k=40, size=300):
    """``k`` cycles of ``size`` vertices numbered along them, joined one way in a chain,
    with random chords (some closing larger cycles, some arcs against the id order)."""
    G = lg.generate.cycle_chain(k, size)
    src, dst, _ = G.edges()
    a, b = rng.integers(0, G.n, 200), rng.integers(0, G.n, 200)
    return lg.Graph.from_edges(np.concatenate([src, a]), np.concatenate([dst, b]), n=G.n)


def sparse_random(rng, n=50_000):
    return lg.Graph.from_edges(rng.integers(0, n, n), rng.integers(0, n, n), n=n)


CLASSES = {
    "grid_random": lambda rng: lg.generate.grid(150, 170, directed=True,
                                                orientation="random", seed=int(rng.integers(99))),
    "mesh_sweep": lambda rng: lg.generate.mesh(24, 30, 28, directed=True, orientation="sweep",
                                               two_way=0.1, seed=int(rng.integers(99))),
    "mesh_random": lambda rng: lg.generate.mesh(20, 20, 20, directed=True,
                                                orientation="random", seed=int(rng.integers(99))),
    "long_cycle": long_cycle,
    "path_numbered_along": lambda rng: lg.Graph.from_edges(np.arange(9_999),
                                                           np.arange(1, 10_000)),
    "cycles_numbered_along": numbered_along,
    "cycle_of_cycles_open": lambda rng: cycle_of_cycles(rng, False),
    "cycle_of_cycles_closed": lambda rng: cycle_of_cycles(rng, True),
    "dag": dag,
    "giant": giant,
    "two_cycles": two_cycles,
    "sparse_random": sparse_random,
    "hubs": hubs,
    "kronecker": lambda rng: lg.generate.kronecker(12, directed=True,
                                                   seed=int(rng.integers(99))),
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(CLASSES))
def test_generated_classes_match_scipy(name, seed):
    G = CLASSES[name](np.random.default_rng(seed))
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_generated_classes_in_every_mode(name, mode):
    G = CLASSES[name](np.random.default_rng(2))
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


def cycle_chain(rng, k=200, size=200):
    """``k`` cycles of ``size`` vertices (shuffled ids), cycle i joined to cycle i + 1 by
    one arc: ``k`` components, each reaching all the later ones."""
    return cycle_of_cycles(rng, False, k, size)


@pytest.mark.parametrize("setting, value", [("scc_host_share", 0.0),
                                            ("scc_handoff_sweeps", 1),
                                            ("scc_handoff_sweeps", 40)])
def test_deep_chain_handed_to_the_host(monkeypatch, setting, value):
    """A chain of components runs a sweep per arc it spans; the kernel hands what it has
    not labelled to the host after its budget (time or sweeps), and the labels agree."""
    monkeypatch.setattr(GPU, "scc_host_items", 0)
    if setting == "scc_handoff_sweeps":                       # the sweeps alone decide
        monkeypatch.setattr(GPU, "scc_host_share", float("inf"))
    monkeypatch.setattr(GPU, setting, value)
    G = cycle_chain(np.random.default_rng(7))
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))
    counts = GPU.scc_counts()
    assert counts["handed_over"] > 0
    if setting == "scc_handoff_sweeps":
        assert counts["signature_sweeps"] == value


@pytest.mark.parametrize("name", ["grid_random", "hubs", "kronecker", "two_cycles"])
def test_int64_index_arrays(name, mode):
    G = with_int64_ids(CLASSES[name](np.random.default_rng(5)))
    assert GPU.matrix(G).index_dtype == np.int64
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


@pytest.mark.parametrize("passes, cache", [(1, None), (8, None), (4, 0)],
                         ids=["one-pass", "eight-passes", "arcs-beyond-cache"])
@pytest.mark.parametrize("name", ["grid_random", "mesh_sweep", "cycle_of_cycles_closed",
                                  "kronecker"])
def test_signature_passes_do_not_change_labels(monkeypatch, name, passes, cache):
    """Local passes per sweep, and one pass only where the arcs exceed the cache: the same
    labels, however the values travel."""
    monkeypatch.setattr(GPU, "scc_local_passes", passes)
    if cache is not None:
        monkeypatch.setattr(_module, "l2_bytes", lambda: cache)
    G = CLASSES[name](np.random.default_rng(3))
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


def test_runs_chosen_where_rows_end_at_the_next_id(monkeypatch):
    """Cycles numbered along themselves: the signature kernel relaxes runs of arcs (most
    rows end with an arc to the next id), whose values cross a warp's arcs in one pass,
    and so takes a fraction of the sweeps that arcs relaxed one by one take."""
    monkeypatch.setattr(GPU, "scc_host_items", 0)
    monkeypatch.setattr(GPU, "scc_host_share", float("inf"))
    G = lg.generate.cycle_chain(8, 2_000)
    sweeps = {}
    for share in (GPU.scc_run_share, 2.0):                   # the default; never runs
        monkeypatch.setattr(GPU, "scc_run_share", share)
        np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))
        sweeps[share] = GPU.scc_counts()["signature_sweeps"]
    runs, arcs_alone = sweeps.values()
    assert 4 * runs < arcs_alone
    shuffled = lg.generate.cycle_chain(8, 2_000, shuffle=True)
    assert scc_steps.next_id_share(GPU.matrix(shuffled, loops=False)) < 0.01


@pytest.mark.parametrize("name", ["hubs", "kronecker", "giant"])
def test_forward_backward_seed_phases_on_the_gpu(monkeypatch, name):
    """The cpu's seed phases (forward-backward, 2-cycles) with the gpu's steps: the text's
    other strategy gives the same labels."""
    monkeypatch.setattr(GPU, "scc_seed_phases", "forward_backward")
    G = CLASSES[name](np.random.default_rng(4))
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


@settings(max_examples=80, **RELAXED)
@given(G=graphs(max_n=40, directed=True))
def test_hypothesis_graphs_match_scipy_and_cpu(mode, G):
    labels = gpu_labels(G)
    np.testing.assert_array_equal(labels, scc_labels(G))
    np.testing.assert_array_equal(labels, lg.scc(G, backend=CPU).labels)


MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")  # 3 x 4


@pytest.mark.parametrize("path", MTX, ids=lambda p: p.stem)
def test_matrix_market_files_match_scipy_and_cpu(path):
    G = lg.read_mtx(path)
    labels = gpu_labels(G)
    np.testing.assert_array_equal(labels, lg.scc(G, backend=CPU).labels)
    if G.directed:
        np.testing.assert_array_equal(labels, scc_labels(G))


# ------------------------------------------------------------------ group steps directly
def random_digraph(rng, n):
    m = int(rng.integers(0, 3 * n))
    return lg.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n)


def both(n, idx, vals):
    return CPU.vector(n, idx, vals), GPU.vector(n, idx, vals)


def same(cv, gv):
    ci, cvals = CPU.to_coo(cv)
    gi, gvals = GPU.to_coo(gv)
    np.testing.assert_array_equal(cp.asnumpy(gi), ci)
    np.testing.assert_array_equal(cp.asnumpy(gvals), cvals)


def step_inputs(rng, G, active_ids):
    """Both executors' (A, AT, active, label); label holds random earlier entries outside
    ``active_ids``, which the steps must leave alone."""
    n = G.n
    others = np.setdiff1d(np.arange(n), active_ids)
    done = others[rng.random(others.size) < 0.5]
    c_active, g_active = both(n, active_ids, active_ids)
    c_label, g_label = both(n, done, rng.integers(0, n, done.size))
    return ((CPU.matrix(G, loops=False), CPU.matrix(G, transpose=True, loops=False),
             c_active, c_label),
            (GPU.matrix(G, loops=False), GPU.matrix(G, transpose=True, loops=False),
             g_active, g_label))


@pytest.mark.parametrize("seed", range(12))
def test_scc_signatures_step_on_unions_of_components(seed, mode):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    G = random_digraph(rng, n)
    comp = scc_labels(G)
    chosen = np.unique(comp)[rng.random(np.unique(comp).size) < rng.random()]
    active_ids = np.flatnonzero(np.isin(comp, chosen))
    (cA, cAT, ca, cl), (gA, gAT, ga, gl) = step_inputs(rng, G, active_ids)
    CPU.scc_signatures(cA, cAT, ca, cl)
    GPU.scc_signatures(gA, gAT, ga, gl)
    same(cl, gl)
    np.testing.assert_array_equal(cp.asnumpy(GPU.to_dense(gl, -1))[active_ids],
                                  comp[active_ids])


def test_scc_signatures_step_on_vertices_without_arcs(mode):
    """Active vertices and no arcs at all (the trim would have removed them; the step
    alone does not): each is a component of its own, on either kernel."""
    G = lg.Graph.from_edges([], [], n=6, directed=True)
    (cA, cAT, ca, cl), (gA, gAT, ga, gl) = step_inputs(np.random.default_rng(0), G,
                                                       np.arange(1, 5))
    CPU.scc_signatures(cA, cAT, ca, cl)
    GPU.scc_signatures(gA, gAT, ga, gl)
    same(cl, gl)


@pytest.mark.parametrize("seed", range(12))
def test_scc_pivot_component_step_matches_cpu(seed, monkeypatch):
    """The fused step, never given up, labels the pivot's component as the cpu executor's
    definition does, leaves the earlier labels alone and returns the rest."""
    for name, value in dict(scc_host_items=0, scc_pivot_items=0, scc_pivot_share=0.0,
                            scc_pivot_levels=1 << 30).items():
        monkeypatch.setattr(GPU, name, value)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    G = [lambda: giant(rng, n, 2 * n), lambda: random_digraph(rng, n), lambda: hubs(rng),
         lambda: lg.generate.grid(30, 40, directed=True, orientation="random", seed=seed)
         ][seed % 4]()
    comp = scc_labels(G)
    components = np.unique(comp)
    chosen = components[rng.random(components.size) < (1.0 if seed % 2 else 0.6)]
    active_ids = np.flatnonzero(np.isin(comp, chosen if chosen.size else components[-1:]))
    (cA, cAT, ca, cl), (gA, gAT, ga, gl) = step_inputs(rng, G, active_ids)
    c_left = CPU.scc_pivot_component(G, cA, cAT, ca, cl)
    g_left = GPU.scc_pivot_component(G, gA, gAT, ga, gl)
    same(c_left, g_left)
    same(cl, gl)
    assert GPU.nvals(g_left) < active_ids.size


@pytest.mark.parametrize("levels", [1, 3, 1 << 20])
def test_pivot_searches_cut_at_their_levels(monkeypatch, levels):
    """A path of 50 vertices closed into a cycle: the pivot's searches need 49 levels;
    cut before, the step labels nothing; either way the labels are right."""
    for name, value in dict(scc_host_items=0, scc_pivot_items=0,
                            scc_pivot_levels=levels).items():
        monkeypatch.setattr(GPU, name, value)
    ids = np.random.default_rng(1).permutation(50)
    G = lg.Graph.from_edges(ids, np.roll(ids, -1), n=50)
    _, (A, AT, active, label) = step_inputs(np.random.default_rng(2), G, np.arange(50))
    left = GPU.scc_pivot_component(G, A, AT, active, label)
    assert GPU.nvals(left) == (0 if levels > 49 else 50)
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


def test_pivot_component_skipped_where_its_scratch_does_not_fit(monkeypatch):
    """The pivot's searches are not in the call's plan: where the free device memory does
    not hold them, the step labels nothing and allocates nothing, and the labels are
    right all the same."""
    for name, value in dict(scc_host_items=0, scc_pivot_items=0).items():
        monkeypatch.setattr(GPU, name, value)
    G = giant(np.random.default_rng(6))
    need = scc_steps.pivot_working_set(G.n, GPU.matrix(G).index_dtype)
    monkeypatch.setattr(scc_steps, "free_bytes", lambda *_: need - 1)
    _, (A, AT, active, label) = step_inputs(np.random.default_rng(0), G, np.arange(G.n))
    assert GPU.nvals(GPU.scc_pivot_component(G, A, AT, active, label)) == G.n
    assert not any(key.startswith("gpu.scc.pivot") for key in G._cache)
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))
    monkeypatch.setattr(scc_steps, "free_bytes", lambda *_: need)
    left = GPU.scc_pivot_component(G, A, AT, active, label)
    assert GPU.nvals(left) < G.n


def test_pivot_component_out_of_core_pushes_only_and_keeps_no_scratch(monkeypatch):
    """Out of core (either adjacency in managed memory) the pivot's searches push every
    level (a pull would reread, across the host link, the in-lists of every vertex not
    reached), on a scratch of their own that the Graph does not keep; they label the
    same component as on the device, and the labels are right."""
    for name, value in dict(scc_host_items=0, scc_pivot_items=0).items():
        monkeypatch.setattr(GPU, name, value)
    G = giant(np.random.default_rng(7))
    _, (A, AT, active, label) = step_inputs(np.random.default_rng(0), G, np.arange(G.n))
    want = GPU.scc_pivot_component(G, A, AT, active, label)
    plans = []
    real = scc_steps.SearchPlan
    monkeypatch.setattr(scc_steps, "SearchPlan",
                        lambda *a, **k: plans.append(k["pulls"]) or real(*a, **k))
    for managed in ("A", "AT"):
        H = uncached(G)
        _, (hA, hAT, active, label) = step_inputs(np.random.default_rng(0), H,
                                                  np.arange(G.n))
        monkeypatch.setattr(scc_steps, "in_managed_memory",
                            lambda a, m=dict(A=hA, AT=hAT)[managed]: a is m.indices)
        left = GPU.scc_pivot_component(H, hA, hAT, active, label)
        assert GPU.nvals(left) < G.n
        np.testing.assert_array_equal(cp.asnumpy(left.present), cp.asnumpy(want.present))
        assert plans[-2:] == [False, False]
        assert not any(key.startswith("gpu.scc.pivot_plans") for key in H._cache)
    np.testing.assert_array_equal(gpu_labels(G), scc_labels(G))


@pytest.mark.parametrize("reverse", [False, True], ids=["backward-cut", "forward-cut"])
def test_pivot_component_given_up_when_one_search_is_cut(monkeypatch, reverse):
    """One component: the pivot p (4 arcs out, 1 in) reaches v, w1..w4 in one level,
    which reach p only along v -> w1 -> w2 -> w3 -> w4 -> p. Cut at 3 levels, the
    backward search stops short (the forward one, on the reversed graph) although the
    other finished: the step labels nothing, and the labels are right."""
    for name, value in dict(scc_host_items=0, scc_pivot_items=0, scc_pivot_levels=3).items():
        monkeypatch.setattr(GPU, name, value)
    p, v, w1, w2, w3, w4 = 3, 0, 5, 1, 4, 2
    src = [p, p, p, p, p, v, w1, w2, w3, w4]
    dst = [v, w1, w2, w3, w4, w1, w2, w3, w4, p]
    G = lg.Graph.from_edges(*((dst, src) if reverse else (src, dst)), n=6)
    _, (A, AT, active, label) = step_inputs(np.random.default_rng(0), G, np.arange(6))
    assert GPU.nvals(GPU.scc_pivot_component(G, A, AT, active, label)) == 6
    np.testing.assert_array_equal(gpu_labels(G), np.zeros(6, dtype=np.int64))


@pytest.mark.parametrize("seed", range(12))
def test_scc_trim_step_matches_cpu(seed, mode):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    G = [lambda: lg.generate.grid(30, 40, directed=True, orientation="random", seed=seed),
         lambda: random_digraph(rng, n), lambda: hubs(rng)][seed % 3]()
    active_ids = np.flatnonzero(rng.random(G.n) < (1.0 if seed % 2 else 0.7))
    (cA, cAT, ca, cl), (gA, gAT, ga, gl) = step_inputs(rng, G, active_ids)
    c_left = CPU.scc_trim(cA, cAT, ca, cl)
    g_left = GPU.scc_trim(gA, gAT, ga, gl)
    same(c_left, g_left)
    same(cl, gl)
    assert GPU.nvals(g_left) == CPU.nvals(c_left)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("transpose", [False, True])
def test_select_edges_matches_cpu(seed, transpose):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    G = random_digraph(rng, n)
    idx = np.flatnonzero(rng.random(n) < 0.8)
    vals = rng.integers(0, int(rng.integers(1, 6)), idx.size)
    c_lab, g_lab = both(n, idx, vals)
    c_out = CPU.select_edges(CPU.matrix(G, transpose=transpose), c_lab)
    g_out = GPU.select_edges(GPU.matrix(G, transpose=transpose), g_lab)
    indptr, indices, _ = c_out.to_csr()
    np.testing.assert_array_equal(cp.asnumpy(g_out.indptr), indptr)
    np.testing.assert_array_equal(cp.asnumpy(g_out.indices), indices)
    assert g_out.n == n and g_out.nstored == indices.size


def test_select_edges_rejects_labels_of_another_size():
    G = lg.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="size"):
        GPU.select_edges(GPU.matrix(G), GPU.iota(G.n + 1))


@pytest.mark.parametrize("step", ["scc_trim", "scc_signatures"])
def test_too_little_memory_is_a_clear_error(monkeypatch, step):
    monkeypatch.setattr(GPU, "scc_host_items", 0)            # (the host path needs none)
    G = lg.generate.grid(20, 20, directed=True, orientation="random", seed=3)
    A, AT = GPU.matrix(G, loops=False), GPU.matrix(G, transpose=True, loops=False)
    monkeypatch.setattr(storage, "free_bytes", lambda *_: 1000)
    label = GPU.vector(G.n, np.empty(0, np.int64), np.empty(0, np.int64))
    with pytest.raises(MemoryError, match=r"needs [0-9,]+ bytes of GPU memory; 1,000 are"):
        getattr(GPU, step)(A, AT, GPU.iota(G.n), label)
    assert GPU.nvals(label) == 0
