"""The fused gpu MSF step (gpu_backend/msf_steps.py) against the cpu reference executor.

Every field of ``lg.msf`` must equal the reference executor's (which runs the primitive
definition of ``Executor.spanning_forest``) exactly: the same rows in the same order, the
same weight bits (-0.0 stays -0.0), the same labels and total. Small graphs also run with
the light/heavy split and the round schedule forced, so that the filter phase and the
host's batch reads are exercised where ``LIGHT_PER_VERTEX * n`` would cover every edge.
"""

from unittest import mock

import numpy as np
import pytest
from conftest import DATA, cupy_or_skip
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs, with_int64_ids

from lagraph_py import generate
from lagraph_py.algorithms.msf import msf
from lagraph_py.cpu import CpuExecutor
from lagraph_py.graph import Graph
from lagraph_py.io import read_mtx

cp = cupy_or_skip()
import gpu_backend.msf_steps as steps  # noqa: E402
from gpu_backend import GpuExecutor, budget, storage  # noqa: E402

pytestmark = pytest.mark.gpu
MTX = sorted(p for p in (DATA / "mtx").glob("*.mtx") if p.name != "empty.mtx")  # 3x4
RELAXED = {"deadline": None,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]}
#: (LIGHT_PER_VERTEX, LIGHT_ROUNDS, ROUNDS_PER_SYNC): the defaults; a light set of about
#: one edge with no light rounds (everything in the filtered phase, one round per read);
#: one light round, so leftover light candidates meet the filtered heavy ones.
SCHEDULES = pytest.mark.parametrize("light, light_rounds, per_sync",
                                    [(3, 8, 4), (0, 0, 1), (0, 1, 2)],
                                    ids=["default", "all-filtered", "leftovers"])
#: FUSED_EDGES: every graph in one launch (msf_fused), or every graph phase by phase.
DRIVERS = pytest.mark.parametrize("fused_edges", [1 << 40, 0], ids=["fused", "launched"])
WEIGHT_SETS = {
    "equal": [7],
    "ints": [0, -1, 1, -7, 2**40, -(2**62)],
    "wide-ints": [-(2**63), 2**63 - 1, 0, 1, -1],       # span too wide: ranks of distinct
    "floats": [0.0, -0.0, 1.0, np.nextafter(1.0, 2.0), -1.0, 5e-324, -1e300, 1e300, 2.5],
    "three": [1.0, 2.0, 3.0],
}


def same_forest(G, **kwargs):
    """lg.msf on the gpu equals lg.msf on the reference cpu executor, field by field."""
    want = msf(G, backend=CpuExecutor(), **kwargs)
    got = msf(G, backend="gpu", **kwargs)
    for field in ("src", "dst", "weight", "component"):
        g, w = getattr(got, field), getattr(want, field)
        assert isinstance(g, cp.ndarray)
        g = cp.asnumpy(g)
        assert g.dtype == w.dtype, field
        np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"),
                                      err_msg=field)                # the same bits
    assert got.total_weight == want.total_weight
    assert type(got.total_weight) is type(want.total_weight)
    return got


def reweighted(G, values, rng):
    """``G`` (undirected) with each edge's weight drawn from ``values``."""
    src, dst, _ = G.edges()
    w = np.array(values)[rng.integers(0, len(values), src.size)]
    return Graph.from_edges(src, dst, w, n=G.n, directed=False)


@DRIVERS
@SCHEDULES
@settings(max_examples=60, **RELAXED)
@given(G=graphs(max_n=40, directed=False), data=st.data())
def test_random_graphs(light, light_rounds, per_sync, fused_edges, G, data):
    values = data.draw(st.sampled_from([None, *WEIGHT_SETS.values()]))
    if values is not None:
        G = reweighted(G, values, np.random.default_rng(data.draw(st.integers(0, 99))))
    with mock.patch.multiple(steps, LIGHT_PER_VERTEX=light, LIGHT_ROUNDS=light_rounds,
                             ROUNDS_PER_SYNC=per_sync, FUSED_EDGES=fused_edges):
        same_forest(G)


def shapes(n: int, rng) -> dict[str, Graph]:
    """Stars (centre first and last), a long path, many small components, parallel edges
    and self-loops, on ``n`` vertices."""
    star = np.arange(1, n)
    path = np.arange(n - 1)
    pieces = np.arange(0, n - 1, 3)
    dup = rng.integers(0, n, (2, 4 * n))
    return {
        "star": (np.zeros(n - 1, int), star),
        "star-last": (np.full(n - 1, n - 1), path),
        "path": (path, path + 1),
        "components": (pieces, pieces + 1),
        "parallel": (np.concatenate([dup[0], dup[1]]), np.concatenate([dup[1], dup[0]])),
        "self-loops": (np.concatenate([path, star]), np.concatenate([path + 1, star])),
    }


@DRIVERS
@SCHEDULES
@pytest.mark.parametrize("kind", ["unweighted", *WEIGHT_SETS])
def test_shapes(light, light_rounds, per_sync, fused_edges, kind):
    rng = np.random.default_rng(5)
    for src, dst in shapes(500, rng).values():
        w = None if kind == "unweighted" else np.array(WEIGHT_SETS[kind])[
            rng.integers(0, len(WEIGHT_SETS[kind]), src.size)]
        G = Graph.from_edges(src, dst, w, n=500, directed=False)
        with mock.patch.multiple(steps, LIGHT_PER_VERTEX=light, LIGHT_ROUNDS=light_rounds,
                                 ROUNDS_PER_SYNC=per_sync, FUSED_EDGES=fused_edges):
            same_forest(G)


@pytest.mark.parametrize("path", MTX, ids=[p.stem for p in MTX])
def test_matrix_market_files(path):
    G = read_mtx(path)
    same_forest(G, symmetrize=G.directed)


@DRIVERS
@pytest.mark.parametrize("kind", ["unweighted", "ints", "three", "floats"])
def test_kronecker_16(kind, fused_edges):
    G = generate.kronecker(16, seed=2)
    if kind != "unweighted":
        G = reweighted(G, WEIGHT_SETS[kind], np.random.default_rng(1))
    with mock.patch.object(steps, "FUSED_EDGES", fused_edges):
        f = same_forest(G)
    assert f.src.size > 0 and steps.LIGHT_PER_VERTEX * G.n < G.nedges  # both phases ran


@pytest.mark.parametrize("kind", ["unweighted", "three"])
def test_sparse_uniform_million(kind):
    """A million vertices of mean degree 2: thousands of warps offer and join at once in
    every round, with the giant component's pieces merging late (small graphs leave most
    warps idle, and so races between their lanes unexercised)."""
    G = generate.uniform(1 << 20, 2, seed=3)
    if kind != "unweighted":
        G = reweighted(G, WEIGHT_SETS[kind], np.random.default_rng(4))
    same_forest(G)


@pytest.mark.parametrize("kind", ["unweighted", "three"])
def test_grid_300(kind):
    G = generate.grid(300, 300)
    if kind != "unweighted":
        G = reweighted(G, WEIGHT_SETS[kind], np.random.default_rng(2))
    same_forest(G)


@DRIVERS
@pytest.mark.parametrize("kind", ["unweighted", "three", "wide-ints"])
def test_int64_index_arrays(kind, fused_edges):
    G = generate.kronecker(10, seed=3)
    if kind != "unweighted":
        G = reweighted(G, WEIGHT_SETS[kind], np.random.default_rng(3))
    with mock.patch.object(steps, "FUSED_EDGES", fused_edges):
        same_forest(with_int64_ids(G))


@DRIVERS
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_four_byte_weights(dtype, fused_edges):
    """Weights of 4 bytes come out as they went in (the kernels copy their bits), ties
    and -0.0 included."""
    G = generate.kronecker(10, seed=5)
    src, dst, _ = G.edges()
    w = np.random.default_rng(5).integers(-3, 4, src.size).astype(dtype)
    if dtype == np.float32:
        w[::2][w[::2] == 0] = -0.0
    H = Graph.from_edges(src, dst, w, n=G.n, directed=False)
    assert H.weights.dtype == dtype
    with mock.patch.object(steps, "FUSED_EDGES", fused_edges):
        same_forest(H)


@pytest.mark.parametrize("n, src, dst", [(0, [], []), (1, [], []), (4, [], []),
                                         (3, [0, 1, 2], [0, 1, 2])],
                         ids=["empty", "one-vertex", "no-edges", "self-loops-only"])
def test_no_forest_edges(n, src, dst):
    for w in (None, np.ones(len(src)), np.ones(len(src), dtype=np.int64)):
        f = same_forest(Graph.from_edges(src, dst, w, n=n, directed=False))
        assert f.src.size == 0


def test_repeated_calls_reuse_the_edge_list():
    G = reweighted(generate.kronecker(12, seed=4), WEIGHT_SETS["three"],
                   np.random.default_rng(4))
    first = same_forest(G)
    edges = G._cache[steps._EDGE_LIST]
    second = same_forest(G)
    assert G._cache[steps._EDGE_LIST] is edges
    np.testing.assert_array_equal(cp.asnumpy(first.src), cp.asnumpy(second.src))


def test_memory_error_names_bytes_needed_and_free():
    G = generate.grid(30, 30, weights="real")
    need = budget.needs(GpuExecutor(), G, "msf").vertex      # the vertex arrays, at least
    assert need == (steps.working_set(G.n, 0, G.index_dtype, G.weights.dtype, False)
                    - steps.streamed_set(G.n, G.index_dtype)   # (out of core: managed)
                    + (G.n + 1) * G.indptr.itemsize)
    with mock.patch.object(cp.cuda.runtime, "memGetInfo", return_value=(1000, 2**30)), \
            mock.patch.object(cp, "get_default_memory_pool") as pool:
        pool.return_value.free_bytes.return_value = 24
        pool.return_value.get_limit.return_value = 0          # no pool limit
        with pytest.raises(MemoryError,
                           match=f"needs {need:,} bytes of GPU memory; 1,024 are free"):
            msf(G, backend="gpu")
    assert steps._EDGE_LIST not in G._cache                 # raised before any work
    same_forest(G)                                          # and works with the memory


def test_working_set_grows_with_the_graph():
    small = steps.working_set(10, 20, np.int32, np.int32, True)
    assert steps.working_set(10, 21, np.int32, np.int32, True) > small
    assert steps.working_set(11, 20, np.int32, np.int32, True) > small
    assert steps.working_set(10, 20, np.int64, np.int32, True) > small
    assert steps.working_set(10, 20, np.int32, np.int32, False) > small
    assert (steps.working_set(10, 20, np.int32, np.float64, False)
            > steps.working_set(10, 20, np.int32, np.int32, False)
            >= steps.working_set(10, 20, np.int32, None, False))
    assert 0 < storage.free_bytes()
