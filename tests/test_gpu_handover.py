"""The gpu executor's hand-over of small graphs to the host (gpu_backend/host_handover.py):
taken exactly for graphs of at most ``host_items`` (SCC) or ``bfs_host_items`` (BFS, while
the searches costed say the host is cheaper) vertices plus stored entries, with the
results on the device and equal to independent oracles."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cupy_or_skip  # noqa: E402

cp = cupy_or_skip()

from oracles import bfs_levels, check_bfs_parents, graphs, scc_labels  # noqa: E402

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor, host_handover  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.host_handover]
RELAXED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@pytest.fixture
def handed(monkeypatch):
    """Counts of the hand-overs taken, by task."""
    count = {"bfs": 0, "scc": 0}

    def counted(task, f):
        def run(*args):
            count[task] += 1
            return f(*args)
        return run

    monkeypatch.setattr(host_handover, "bfs_search", counted("bfs", host_handover.bfs_search))
    monkeypatch.setattr(host_handover, "strong_components",
                        counted("scc", host_handover.strong_components))
    return count


def check(G, source):
    r = lg.bfs(G, source, backend="gpu")
    assert isinstance(r.level, cp.ndarray) and isinstance(r.parent, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(r.level), bfs_levels(G, source))
    check_bfs_parents(G, source, cp.asnumpy(r.parent))
    only = lg.bfs(G, source, backend="gpu", parents=False)
    assert only.parent is None
    np.testing.assert_array_equal(cp.asnumpy(only.level), bfs_levels(G, source))
    if G.directed:
        labels = lg.scc(G, backend="gpu").labels
        assert isinstance(labels, cp.ndarray) and labels.dtype == np.int64
        np.testing.assert_array_equal(cp.asnumpy(labels), scc_labels(G))


@settings(max_examples=40, **RELAXED)
@given(G=graphs(max_n=30))
def test_small_graphs_on_the_host_equal_the_oracles(G):
    if G.n:
        check(G, G.n - 1)


@pytest.mark.parametrize("G", [lg.generate.road(30, 30), lg.generate.kronecker(9),
                               lg.generate.kronecker(9, directed=True)],
                         ids=["road", "kronecker", "kronecker-directed"])
def test_taken_exactly_up_to_the_size(G, handed, monkeypatch):
    items = G.n + G.nstored
    monkeypatch.setattr(GpuExecutor, "host_items", items)
    monkeypatch.setattr(GpuExecutor, "bfs_host_items", items)
    check(G, 0)
    assert handed == {"bfs": 2, "scc": int(G.directed)}
    monkeypatch.setattr(GpuExecutor, "bfs_host_items", items - 1)
    check(G, 0)                                     # one entry more: BFS on the device
    assert handed == {"bfs": 2, "scc": 2 * int(G.directed)}
    monkeypatch.setattr(GpuExecutor, "host_items", items - 1)
    check(G, 0)                                     # and SCC
    assert handed == {"bfs": 2, "scc": 2 * int(G.directed)}


def test_a_search_route_follows_the_searches_costed(handed, monkeypatch):
    """A graph whose searches reach many vertices in few levels leaves the host after its
    first search; one whose searches are deep stays there; the results stay exact."""
    monkeypatch.setattr(GpuExecutor, "bfs_host_items", 1 << 17)
    wide, deep = lg.generate.uniform(20000, 3), lg.generate.grid(1, 3000)
    for source in (0, 1, 2):
        r = lg.bfs(wide, source, backend="gpu", parents=source != 1)
        np.testing.assert_array_equal(cp.asnumpy(r.level), bfs_levels(wide, source))
        if r.parent is not None:
            check_bfs_parents(wide, source, cp.asnumpy(r.parent))
    assert handed["bfs"] == 1
    host, device = host_handover.search_costs(bfs_levels(wide, 0), wide.out_degree())
    assert device < host
    calls = 2 * host_handover.SAMPLED_SEARCHES
    for source in range(calls):
        check(deep, source)
    assert handed["bfs"] == 1 + 2 * calls         # (check searches twice)
    costed, host, device = deep._cache["gpu.bfs.route"]
    assert costed == host_handover.SAMPLED_SEARCHES and host < device


def test_a_search_for_parents_alone_is_costed_by_its_levels(handed, monkeypatch):
    monkeypatch.setattr(GpuExecutor, "bfs_host_items", 1 << 17)
    wide = lg.generate.uniform(20000, 3)
    r = lg.bfs(wide, 5, backend="gpu", levels=False)
    assert r.level is None and handed["bfs"] == 1
    check_bfs_parents(wide, 5, cp.asnumpy(r.parent))
    lg.bfs(wide, 6, backend="gpu")
    assert handed["bfs"] == 1


def test_the_hand_over_runs_while_the_cpu_loops_compile(handed, monkeypatch):
    """Until the cpu executor's compiled loops are on disk, ``backend="cpu"`` is the scipy
    executor: the hand-over searches and labels with it, into the same pinned memory."""
    from lagraph_py import compilation, registry
    from lagraph_py.scipy_cpu import ScipyCpuExecutor
    monkeypatch.delitem(registry._EXECUTORS, "cpu", raising=False)
    monkeypatch.setattr(compilation, "cold_executor", ScipyCpuExecutor)
    assert isinstance(host_handover._cpu(), ScipyCpuExecutor)
    for G in (lg.generate.road(12, 12), lg.generate.kronecker(8, directed=True)):
        check(G, 3)
    assert handed == {"bfs": 4, "scc": 1}


def test_other_methods_stay_on_the_device(handed):
    G = lg.generate.road(10, 10)
    for method in ("push", "pull"):
        r = lg.bfs(G, 3, backend="gpu", method=method)
        np.testing.assert_array_equal(cp.asnumpy(r.level), bfs_levels(G, 3))
    assert handed["bfs"] == 0


@settings(max_examples=60, **RELAXED)
@given(st.lists(st.tuples(st.sampled_from(["int64", "int32", "float64", "bool", "uint8"]),
                          st.integers(0, 3000)), min_size=1, max_size=4),
       st.integers(0, 2**31))
def test_upload_copies_every_array_and_reuses_its_staging(specs, seed):
    """Each array of an upload arrives whole on the device, whatever its dtype and length
    (odd byte counts included); a later upload, which refills the same staging buffer,
    leaves the earlier copies as they were."""
    from gpu_backend.vector import upload
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(0, 200, size).astype(dtype) for dtype, size in specs]
    first = upload(*arrays)
    later = upload(*[a[::-1].copy() for a in arrays])
    for a, got, back in zip(arrays, first, later):
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(cp.asnumpy(got), a)
        np.testing.assert_array_equal(cp.asnumpy(back), a[::-1])
