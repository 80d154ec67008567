"""Out-of-core calls of the gpu executor: a budget that holds a call's vertex arrays but
not its adjacency puts the adjacency and the edge scratch in CUDA managed memory
(``GpuExecutor.placement``), and every result must stay exactly what the cpu executor
gives (BFS levels, and parents validated; MSF forests; SCC and connected-component labels)
on hypothesis graphs and on Kronecker 16, under each managed-memory advice; a budget that
does not hold the vertex arrays is refused up front, before anything is allocated.

Two ways to make a small budget: :func:`budget_of` makes the plan see exactly the vertex
arrays' bytes free (the pool is not limited, so arrays of at least ``managed_from`` bytes
go to managed memory, here any array over 16 bytes a vertex); :func:`pool_limit` limits
CuPy's pool for real, so the arrays the pool refuses spill to managed memory as well.
Skipped where CuPy or a CUDA device is absent.
"""

import gc
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from conftest import cupy_or_skip, uncached

cp = cupy_or_skip()

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor, budget, msf_steps, storage  # noqa: E402
from lagraph_py import device_memory as dm  # noqa: E402
from lagraph_py.cpu import CpuExecutor  # noqa: E402
from lagraph_py.results import BFSResult, MSFResult, exact_total  # noqa: E402
from oracles import bfs_levels, check_bfs_parents, graphs, scc_labels  # noqa: E402

pytestmark = pytest.mark.gpu
CPU = CpuExecutor()
TASKS = {
    "bfs": lambda G, ex: lg.bfs(G, 0, backend=ex),
    "msf": lambda G, ex: lg.msf(G, backend=ex),
    "scc": lambda G, ex: lg.scc(G, backend=ex),
    "cc": lambda G, ex: lg.connected_components(G, backend=ex),
}
#: What a call holds beyond its planned vertex arrays: the pool's rounding (512 bytes an
#: array) and the BFS search's words per block and chunks of long in-lists.
SLACK = 1 << 16
SETTINGS = dict(max_examples=20, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
managed = storage.in_managed_memory


def executor(advice="host") -> GpuExecutor:
    ex = GpuExecutor()
    ex.scc_host_items = 0                  # the device's SCC kernels, even on small graphs,
    ex.scc_pivot_items = 0                 # the pivot's searches among them (where the
                                           # memory left holds them; out of core they
                                           # push only)
    ex.managed_advice = advice
    return ex


@contextmanager
def budget_of(ex, G, task):
    """The plan sees the call's vertex arrays free, no more; any array of more than 16
    bytes a vertex is managed (no floor)."""
    room = budget.needs(ex, G, task).vertex
    with mock.patch.object(storage, "free_bytes", lambda *_: room), \
            mock.patch.object(dm, "MANAGED_FLOOR", 0):
        yield


def host(x):
    return None if x is None else np.asarray(lg.asnumpy(x))


def run(task, G, ex):
    """The result of ``task`` on ``G`` as host arrays."""
    r = TASKS[task](G, ex)
    if task == "bfs":
        return host(r.level), host(r.parent)
    if task == "msf":
        return tuple(host(a) for a in (r.src, r.dst, r.weight, r.component))
    return (host(r.labels),)


def check_same(task, G, out, want):
    if task == "bfs":
        np.testing.assert_array_equal(out[0], want[0])
        check_bfs_parents(G, 0, out[1])
        lg.validate.bfs(G, 0, BFSResult(0, out[0], out[1]))
    else:
        for a, b in zip(out, want):
            np.testing.assert_array_equal(a, b)


def placed_as(task, G) -> str:
    """The task a call of ``task`` is placed as (``lg.scc`` of an undirected graph is
    connected components)."""
    return "cc" if task == "scc" and not G.directed else task


def out_of_core(task, G, ex):
    with budget_of(ex, G, placed_as(task, G)):
        out = run(task, G, ex)
    plan = ex.last_plan
    assert plan.task == placed_as(task, G)
    assert plan.mode == (dm.MANAGED if plan.needs.total > plan.budget else dm.RESIDENT)
    if plan.mode == dm.MANAGED:
        assert plan.managed_from == dm.VERTEX_ARRAY_BYTES * G.n + 1
    return out


def undirected(G):
    return G if not G.directed else lg.Graph.from_scipy(G.to_scipy() + G.to_scipy().T,
                                                         directed=False)


@pytest.mark.parametrize("task", sorted(TASKS))
@settings(**SETTINGS)
@given(G=graphs(max_n=40, min_n=1))
def test_hypothesis_graphs_out_of_core_equal_the_cpu(task, G):
    if task in ("msf", "cc"):
        G = undirected(G)
    ex = executor()
    out = out_of_core(task, G, ex)
    check_same(task, G, out, run(task, G, CPU))
    if task == "scc":
        np.testing.assert_array_equal(out[0], scc_labels(G))


@settings(**SETTINGS)
@given(G=graphs(max_n=40, min_n=1))
def test_hypothesis_graphs_out_of_core_msf_launched_phase_by_phase_equal_the_cpu(G):
    """The MSF's phases launched one by one (``FUSED_EDGES`` 0) out of core, where the
    light and the heavy rounds run on device copies whenever the edge list is managed."""
    G = undirected(G)
    with mock.patch.object(msf_steps, "FUSED_EDGES", 0):
        out = out_of_core("msf", G, executor())
    check_same("msf", G, out, run("msf", G, CPU))


@pytest.fixture(scope="module")
def kron16():
    return {True: lg.generate.kronecker(16, seed=5, directed=True),
            False: lg.generate.kronecker(16, seed=5, weights="uniform")}


@pytest.mark.parametrize("task, advice", [(task, "host") for task in sorted(TASKS)]
                         + [(task, advice) for task in ("bfs", "msf")
                            for advice in storage.MANAGED_ADVICE if advice != "host"])
def test_kronecker16_out_of_core_equals_resident(kron16, task, advice):
    G = kron16[task in ("bfs", "scc")]
    resident = run(task, G, executor())
    Gc = uncached(G)
    ex = executor(advice)
    out = out_of_core(task, Gc, ex)
    assert ex.last_plan.mode == dm.MANAGED
    assert ex.last_managed_bytes >= Gc.indices.nbytes      # the adjacency, at least
    check_same(task, Gc, out, resident)
    again = run(task, Gc, ex)                     # cached arrays stay where they were put
    check_same(task, Gc, again, resident)
    if task == "bfs":
        np.testing.assert_array_equal(out[0], bfs_levels(G, 0))
    if task == "scc":
        np.testing.assert_array_equal(out[0], scc_labels(G))
    if task == "msf":
        lg.validate.msf(G, MSFResult(*out[:3], exact_total(out[2]), out[3]))


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_limited_pool_spills_to_managed_memory(kron16, task):
    """A real pool limit: room for the vertex arrays and a little more, not the
    adjacency; what the pool refuses is managed, results unchanged, and so for a second
    call on the same graph, which finds the first one's scratch kept with it."""
    G0 = kron16[task in ("bfs", "scc")]
    want = run(task, G0, executor())
    G = uncached(G0)
    ex = executor()
    pool = cp.get_default_memory_pool()
    need = budget.needs(ex, G, task)
    before = ex.memory_limit
    ex.memory_limit = pool.used_bytes() + need.vertex + (4 << 20)
    try:
        assert ex.plan(G, task).mode == dm.MANAGED
        out = run(task, G, ex)
        first = ex.last_plan.mode, ex.last_managed_bytes
        again = run(task, G, ex)              # (planned resident where G holds the rest)
    finally:
        ex.memory_limit = before
    assert first[0] == dm.MANAGED and first[1] > 0
    check_same(task, G, out, want)
    check_same(task, G, again, want)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_too_small_a_budget_is_refused_before_any_work(task):
    G = lg.generate.kronecker(10, seed=1, directed=task in ("bfs", "scc"),
                              weights="uniform" if task == "msf" else None)
    ex = executor()
    need = budget.needs(ex, G, task).vertex
    used = cp.get_default_memory_pool().used_bytes()
    with mock.patch.object(storage, "free_bytes", lambda *_: need - 1):
        with pytest.raises(MemoryError, match=f"{task} on .* needs {need:,} bytes of GPU "
                                              f"memory; {need - 1:,} are free"):
            TASKS[task](G, ex)
    assert storage.graph_bytes(G) == 0                     # nothing built for the graph
    assert cp.get_default_memory_pool().used_bytes() == used
    with mock.patch.object(storage, "free_bytes", lambda *_: need):
        assert ex.plan(G, task).mode == dm.MANAGED


def test_resident_needs_cover_what_a_call_builds(kron16):
    """The adjacency a resident BFS plans for is what the graph then holds on the device
    (its CSR, the pull lists), and the scratch: no more than planned."""
    G0 = kron16[True]
    G = uncached(G0)
    ex = executor()
    lg.bfs(G, 0, backend=ex)
    plan = ex.last_plan
    assert plan.mode == dm.RESIDENT
    held = storage.graph_bytes(G)
    assert plan.needs.adjacency <= held
    assert held - plan.needs.adjacency <= plan.needs.vertex + plan.needs.streamed + SLACK


def test_an_out_of_core_bfs_streams_its_queues_and_outputs(kron16):
    """Out of core, a BFS's frontier queues, the degrees beside them and its outputs (its
    streamed vertex arrays, each smaller than ``managed_from``) are managed memory; its
    status array stays in device memory; the results are unchanged."""
    G0 = kron16[True]
    want = run("bfs", G0, executor())
    G = uncached(G0)
    ex = executor()
    with budget_of(ex, G, "bfs"):
        r = lg.bfs(G, 0, backend=ex)
    assert ex.last_plan.mode == dm.MANAGED
    assert managed(r.level) and managed(r.parent)
    search = next(v for k, v in G._cache.items() if k.startswith("gpu.bfs.search."))
    status, _, queues, degrees = search._arrays[:4]
    assert managed(queues) and managed(degrees) and not managed(status)
    assert queues.nbytes < ex.last_plan.managed_from     # managed for what it is, not size
    check_same("bfs", G, (host(r.level), host(r.parent)), want)


def test_managed_allocations_are_reused_by_size_advice_and_stream():
    """An allocation whose arrays are gone is a spare: the next one of its size, advice
    and stream takes it (its contents whatever they were), another size, advice or
    stream gets new memory; either lies in managed memory."""
    spares = {}
    host_advice = storage.ManagedAllocator(1, "host", spares=spares)
    a = cp.ndarray((1000,), cp.int64, host_advice.managed(8000))
    a.fill(7)
    first = a.data.ptr
    assert managed(a)
    del a
    b = cp.ndarray((1000,), cp.int64, host_advice.managed(8000))
    assert b.data.ptr == first and managed(b)
    assert int(b[999]) == 7                    # the spare as it was left: not cleared
    c = cp.ndarray((1001,), cp.int64, host_advice.managed(8008))
    d = cp.ndarray((1000,), cp.int64,
                   storage.ManagedAllocator(1, "migrate", spares=spares).managed(8000))
    with cp.cuda.Stream():
        e = cp.ndarray((1000,), cp.int64, host_advice.managed(8000))
    assert len({first, c.data.ptr, d.data.ptr, e.data.ptr}) == 4
    assert all(managed(x) for x in (c, d, e))
    assert host_advice.managed_bytes == 8000 * 3 + 8008


def test_a_second_out_of_core_call_reuses_the_first_calls_outputs(kron16):
    """The outputs of an out-of-core BFS, once dropped, are the next call's (no new
    managed memory for the device to fault in); the levels stay right."""
    G0 = kron16[True]
    want = run("bfs", G0, executor())
    G = uncached(G0)
    ex = executor()
    with budget_of(ex, G, "bfs"):
        r = lg.bfs(G, 0, backend=ex, parents=False)
        first = r.level.data.ptr
        assert managed(r.level)
        del r
        r = lg.bfs(G, 0, backend=ex, parents=False)
    assert r.level.data.ptr == first
    np.testing.assert_array_equal(host(r.level), want[0])


def test_an_out_of_core_bfs_keeps_its_streamed_arrays_where_the_budget_holds_them(kron16):
    """Out of core with room for the streamed vertex arrays beside the other vertex
    arrays, a BFS's queues and outputs stay in device memory; the results are unchanged."""
    G0 = kron16[True]
    want = run("bfs", G0, executor())
    G = uncached(G0)
    ex = executor()
    need = budget.needs(ex, G, "bfs")
    with mock.patch.object(storage, "free_bytes", lambda *_: need.vertex + need.streamed), \
            mock.patch.object(dm, "MANAGED_FLOOR", 0):
        r = lg.bfs(G, 0, backend=ex)
    assert ex.last_plan.mode == dm.MANAGED and not ex.last_plan.streamed_managed
    assert not managed(r.level) and not managed(r.parent)
    search = next(v for k, v in G._cache.items() if k.startswith("gpu.bfs.search."))
    _, _, queues, degrees = search._arrays[:4]
    assert not managed(queues) and not managed(degrees)
    assert ex.last_managed_bytes >= G.indices.nbytes       # the adjacency is managed
    check_same("bfs", G, (host(r.level), host(r.parent)), want)


def test_an_out_of_core_cc_streams_its_labels_and_first_entries(kron16):
    """Out of core with room for its vertex arrays only, connected components keep the
    union-find's array in device memory and place the rows' first entries and the
    labels (streamed: read in order, written once) in managed memory; with room for them
    as well, in device memory; the labels are unchanged either way."""
    from gpu_backend import components_steps
    G0 = kron16[False]
    want = run("cc", G0, executor())
    need = budget.needs(executor(), G0, "cc")
    for room, streamed in ((need.vertex, True), (need.vertex + need.streamed, False)):
        G = uncached(G0)
        ex = executor()
        with mock.patch.object(storage, "free_bytes", lambda *_: room), \
                mock.patch.object(dm, "MANAGED_FLOOR", 0):
            labels = lg.scc(G, backend=ex).labels
        assert ex.last_plan.mode == dm.MANAGED
        assert ex.last_plan.streamed_managed == streamed
        parent, heads = ex.matrix(G)._cc_buffers[:2]
        assert managed(heads) == streamed and managed(labels) == streamed
        assert not managed(parent)
        assert heads.nbytes < ex.last_plan.managed_from  # managed for what it is, not size
        check_same("cc", G, (host(labels),), want)
    assert need.streamed == components_steps.streamed_set(G0.n, ex.matrix(G0).index_dtype)


def test_an_out_of_core_msf_streams_its_forest_and_outputs(kron16):
    """Out of core with room for its vertex arrays only, the MSF keeps the union-find and
    the minkey arrays in device memory and places the forest's ids, rows and weights and
    the labels (streamed: written once, read in order) in managed memory; with room for
    them as well, in device memory; the forest is unchanged either way."""
    G0 = kron16[False]
    want = run("msf", G0, executor())
    need = budget.needs(executor(), uncached(G0), "msf")   # (a copy: no edge list cached)
    assert need.streamed == msf_steps.streamed_set(G0.n, executor().matrix(G0).index_dtype)
    for room, streamed in ((need.vertex, True), (need.vertex + need.streamed, False)):
        G = uncached(G0)
        ex = executor()
        seen = []
        real = msf_steps._Run.__init__

        def spy(state, *args):
            real(state, *args)
            seen.append(state)
        with mock.patch.object(storage, "free_bytes", lambda *_: room), \
                mock.patch.object(dm, "MANAGED_FLOOR", 0), \
                mock.patch.object(msf_steps._Run, "__init__", spy):
            r = lg.msf(G, backend=ex)
        assert ex.last_plan.mode == dm.MANAGED
        assert ex.last_plan.streamed_managed == streamed
        out = (r.src, r.dst, r.weight, r.component)
        assert [managed(a) for a in out] == [streamed] * 4
        assert managed(seen[0].forest) == streamed
        assert not managed(seen[0].parent) and not managed(seen[0].both)
        check_same("msf", G, tuple(host(a) for a in out), want)


@pytest.mark.parametrize("limited, light_rounds", [(False, msf_steps.LIGHT_ROUNDS),
                                                   (True, msf_steps.LIGHT_ROUNDS), (False, 1)])
def test_an_out_of_core_msf_runs_its_rounds_on_device_copies(kron16, limited, light_rounds):
    """Out of core, the MSF's phases launched one by one (graphs past ``FUSED_EDGES``;
    here every graph) run the light rounds on device copies of the light edges' ends and
    of two candidate lists of their size, and the rounds after the heavy edges' filter on
    device copies of the candidates' ends, renumbered; under a real pool limit that leaves
    no room for the copies, on the managed arrays. The forest is the resident one either
    way, and also after a single light round, which leaves light candidates on the device
    copy for the heavy edges to join."""
    G0 = kron16[False]
    placed = []

    def spy(phase):
        real = getattr(msf_steps._Run, phase)

        def on_device(state, E):
            lists = [managed(a) for a in state.lists]
            made = real(state, E)
            placed.append((phase, made not in (None, False), lists,
                           [managed(a) for a in (state.ends, *state.lists)]))
            return made
        return mock.patch.object(msf_steps._Run, phase, on_device)

    with mock.patch.object(msf_steps, "FUSED_EDGES", 0), \
            mock.patch.object(msf_steps, "LIGHT_ROUNDS", light_rounds):
        want = run("msf", G0, executor())
        G = uncached(G0)
        ex = executor()
        with spy("light_on_device"), spy("heavy_on_device"):
            if limited:
                pool = cp.get_default_memory_pool()
                before = ex.memory_limit
                ex.memory_limit = pool.used_bytes() + budget.needs(ex, G, "msf").vertex
                try:
                    out = run("msf", G, ex)
                finally:
                    ex.memory_limit = before
            else:
                # the plan sees the vertex arrays' bytes free, the copies find room
                with mock.patch.object(msf_steps, "free_bytes", lambda *_: 1 << 40):
                    out = out_of_core("msf", G, ex)
    assert ex.last_plan.mode == dm.MANAGED
    assert [phase for phase, *_ in placed] == ["light_on_device", "heavy_on_device"]
    for phase, made, lists, copies in placed:
        assert lists == [True, True]
        assert made == (not limited)
        if made:
            assert copies == [False, False, False]
    check_same("msf", G, out, want)
    lg.validate.msf(G, MSFResult(*out[:3], exact_total(out[2]), out[3]))


@pytest.mark.parametrize("task", sorted(TASKS))
def test_deleting_a_graph_frees_its_device_arrays_at_once(kron16, task):
    """What a call caches with a Graph goes when the Graph goes, without waiting for a
    cycle collection (which device memory does not prompt): a budget set after a deleted
    graph must not count its arrays."""
    G0 = kron16[task in ("bfs", "scc")]
    ex = executor()
    TASKS[task](uncached(G0), ex)                  # what the executor keeps across graphs
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    base = pool.used_bytes()
    G = uncached(G0)
    gc.disable()
    try:
        out = TASKS[task](G, ex)
        assert storage.graph_bytes(G) > 0
        del out, G
        assert pool.used_bytes() == base
    finally:
        gc.enable()


def test_a_matrix_that_outlives_its_graph_says_so():
    """A step given the device matrix of a Graph that was deleted meanwhile (the matrix
    refers to its Graph weakly) raises a clear error, not an AttributeError on None."""
    ex = executor()
    G = lg.generate.grid(3, 3)
    A = ex.matrix(G)
    del G
    with pytest.raises(RuntimeError, match="Graph this device matrix was made of no longer"):
        ex.connected_components(A, 9)


def test_free_bytes_answers_from_the_pool_only_where_its_blocks_suffice():
    """Where the pool has no limit and its free blocks hold what a step asks for, no
    driver query is made; asked for no amount, or under a limit, the driver is asked."""
    pool = cp.get_default_memory_pool()
    block = cp.empty(1 << 20, dtype=np.uint8)
    del block                                        # a free block of 1 MiB in the pool
    asked = mock.patch.object(cp.cuda.runtime, "memGetInfo",
                              side_effect=AssertionError("the driver was asked"))
    old = pool.get_limit()
    try:
        pool.set_limit(size=0)
        with asked:
            assert storage.free_bytes(1 << 20) >= 1 << 20
            with pytest.raises(AssertionError, match="the driver was asked"):
                storage.free_bytes()
            with pytest.raises(AssertionError, match="the driver was asked"):
                storage.free_bytes(pool.free_bytes() + 1)
        pool.set_limit(size=pool.total_bytes() + (1 << 30))
        with asked, pytest.raises(AssertionError, match="the driver was asked"):
            storage.free_bytes(1 << 20)
    finally:
        pool.set_limit(size=old)
