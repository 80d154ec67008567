"""The gpu executor's primitive steps against the cpu executor, on random inputs.

Every step runs on both executors from the same host data and the results are compared
exactly (indices, values and value dtype). ANY-monoid results, where several answers are
valid, are checked for validity instead. Skipped where CuPy or a CUDA device is absent.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import cupy_or_skip  # noqa: E402

cp = cupy_or_skip()

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor  # noqa: E402
from lagraph_py.cpu import CpuExecutor  # noqa: E402
from lagraph_py.executor import BINARY_OPS, SELECT_OPS, SEMIRINGS  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402

pytestmark = pytest.mark.gpu
CPU, GPU = CpuExecutor(), GpuExecutor()
SEEDS = range(6)


@pytest.fixture(autouse=True)
def poison():
    """Fill the CuPy pool with 0xA5 bytes so unwritten outputs show up as garbage."""
    junk = cp.full(64 << 20, 0xA5, dtype=cp.uint8)
    del junk
    yield


def host(x):
    return x.get() if isinstance(x, cp.ndarray) else np.asarray(x)


def rand_vec(rng, n, kind="int", density=0.4):
    idx = np.flatnonzero(rng.random(n) < density)
    if kind == "int":
        vals = rng.integers(-4, 5, idx.size).astype(np.int64)
    else:
        vals = rng.choice([-1.5, 0.0, 0.25, 2.0, 3.5], idx.size)
    return idx, vals


def pair(rng, n, kind="int", density=0.4):
    idx, vals = rand_vec(rng, n, kind, density)
    return CPU.vector(n, idx, vals), GPU.vector(n, idx, vals)


def same(cv, gv):
    ci, cvals = CPU.to_coo(cv)
    gi, gvals = GPU.to_coo(gv)
    gi, gvals = host(gi), host(gvals)
    np.testing.assert_array_equal(gi, ci)
    assert gvals.dtype == cvals.dtype, (gvals.dtype, cvals.dtype)
    np.testing.assert_array_equal(gvals, cvals)
    assert GPU.nvals(gv) == CPU.nvals(cv)


def rand_graph(rng, n, directed=True, loops=True):
    m = int(rng.integers(0, 4 * n + 1))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if not loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    return Graph.from_edges(src, dst, n=n, directed=directed)


# ---------------------------------------------------------------------- construction
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["int", "float"])
def test_vector_roundtrip(seed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    c, g = pair(rng, n, kind)
    same(c, g)
    same(CPU.dup(c), GPU.dup(g))
    np.testing.assert_array_equal(host(GPU.to_dense(g, -1)), CPU.to_dense(c, -1))
    assert host(GPU.to_dense(g, -1)).dtype == CPU.to_dense(c, -1).dtype
    same(CPU.vector(n, [0], 7), GPU.vector(n, [0], 7))
    same(CPU.full(n, 3), GPU.full(n, 3))
    same(CPU.full(n, 2.5), GPU.full(n, 2.5))
    same(CPU.iota(n), GPU.iota(n))
    assert isinstance(host(GPU.array(np.arange(3))), np.ndarray)


@pytest.mark.parametrize("index, value", [(0, 7), (4, -2.5), (3, [6]), (1, [0.5]),
                                          (2, np.int32(5))])
def test_one_entry_vector(index, value):
    """The one-entry fast path (built on first read) equals the general path and the cpu."""
    n = 5
    single = GPU.vector(n, [index], value)
    general = GPU.vector(n, np.array([index]), np.asarray(value).reshape(-1) if np.ndim(value)
                         else value)
    same(CPU.vector(n, [index], value), single)
    same(CPU.vector(n, [index], value), general)
    np.testing.assert_array_equal(host(single.queue()), [index])
    with pytest.raises(IndexError):
        GPU.vector(n, [n], value)


def test_dup_is_independent():
    g = GPU.vector(5, [1, 2], [3, 4])
    d = GPU.dup(g)
    GPU.assign_scalar(d, 9, mask=GPU.full(5, 1))
    np.testing.assert_array_equal(host(GPU.to_dense(g, -1)), [-1, 3, 4, -1, -1])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["int", "float"])
def test_to_dense_consume(seed, kind):
    """Handing a vector over gives the same array as a copy; the vector is then unusable."""
    rng = np.random.default_rng(seed)
    c, g = pair(rng, 50, kind)
    kept = GPU.dup(g)
    expected = CPU.to_dense(c, -1)
    got = host(GPU.to_dense(g, -1, consume=True))
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(host(GPU.to_dense(kept, -1)), expected)
    np.testing.assert_array_equal(CPU.to_dense(c, -1, consume=True), expected)
    with pytest.raises(RuntimeError, match="handed over"):
        GPU.nvals(g)
    with pytest.raises(RuntimeError, match="handed over"):
        GPU.to_dense(g, -1)


def test_kernel_launch_packs_arguments():
    """The launcher packs ints, 32-bit ints, floats and arrays into the driver's parameter
    block, and refuses a call with the wrong number of arguments."""
    from gpu_backend import _module
    out, present = cp.zeros(5), cp.zeros(5, dtype=bool)
    set_one = _module.kernel("set_one", np.float64)
    set_one((1,), (32,), (2, np.float64(-1.25), out, present, 5))
    np.testing.assert_array_equal(host(out), [0, 0, -1.25, 0, 0])
    np.testing.assert_array_equal(host(present), [False, False, True, False, False])
    with pytest.raises(TypeError, match="5 arguments"):
        set_one((1,), (32,), (2, np.float64(1.0), out, present))
    status = cp.full(6, 9, dtype=cp.int32)
    mark = _module.kernel("mark_queue", np.int32)
    mark((1,), (32,), (cp.asarray([1, 4], dtype=cp.int32), 2, np.int32(-7), status))
    np.testing.assert_array_equal(host(status), [9, -7, 9, 9, -7, 9])


# ---------------------------------------------------------------------- element-wise
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("kinds", [("int", "int"), ("int", "float"), ("float", "float")])
def test_ewise(seed, op, kinds):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    cu, gu = pair(rng, n, kinds[0])
    cv, gv = pair(rng, n, kinds[1])
    same(CPU.ewise_add(cu, cv, op), GPU.ewise_add(gu, gv, op))
    same(CPU.ewise_mult(cu, cv, op), GPU.ewise_mult(gu, gv, op))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", BINARY_OPS + ("index",))
@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("right", [2, -1, 0.5])
def test_apply(seed, op, kind, right):
    rng = np.random.default_rng(seed)
    cu, gu = pair(rng, int(rng.integers(1, 200)), kind)
    r = None if op == "index" else right
    same(CPU.apply(cu, op, r), GPU.apply(gu, op, r))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", SELECT_OPS)
@pytest.mark.parametrize("kind", ["int", "float"])
def test_select_mask(seed, op, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    cu, gu = pair(rng, n, kind)
    cm, gm = pair(rng, n)
    for thunk in ((0, 2) if kind == "int" else (0.0, 0.25, -1.5)):
        same(CPU.select(cu, op, thunk), GPU.select(gu, op, thunk))
    same(CPU.mask(cu, cm), GPU.mask(gu, gm))
    same(CPU.mask(cu, cm, complement=True), GPU.mask(gu, gm, complement=True))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kinds", [("int", "int"), ("float", "int"), ("int", "float")])
def test_assign(seed, kinds):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    cw, gw = pair(rng, n, kinds[0])
    cu, gu = pair(rng, n, kinds[1])
    cm, gm = pair(rng, n)
    CPU.assign(cw, cu)
    GPU.assign(gw, gu)
    same(cw, gw)
    cu, gu = pair(rng, n, kinds[1])
    CPU.assign(cw, cu, mask=cm)
    GPU.assign(gw, gu, mask=gm)
    same(cw, gw)
    CPU.assign_scalar(cw, 7, mask=cm)
    GPU.assign_scalar(gw, 7, mask=gm)
    same(cw, gw)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("monoid", ["min", "max", "plus", "any"])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_reduce(seed, monoid, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    idx, vals = rand_vec(rng, n, kind)
    c, g = CPU.vector(n, idx, vals), GPU.vector(n, idx, vals)
    rc, rg = CPU.reduce(c, monoid), GPU.reduce(g, monoid)
    if idx.size == 0:
        assert rc is None and rg is None
    elif monoid == "any":
        assert rg in set(vals.tolist())
    else:
        assert rg == rc and type(rg) in (int, float)
    assert GPU.reduce(GPU.vector(n, [], np.array([], dtype=np.int64)), monoid) is None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["int", "float"])
def test_extract(seed, kind):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 100)), int(rng.integers(1, 100))
    ct, gt = pair(rng, n, kind, density=0.6)
    idx = np.flatnonzero(rng.random(m) < 0.7)
    targets = rng.integers(0, n, idx.size)
    ci, gi = CPU.vector(m, idx, targets), GPU.vector(m, idx, targets)
    same(CPU.extract(ct, ci), GPU.extract(gt, gi))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("monoid", ["min", "max", "plus", "any"])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_scatter(seed, monoid, kind):
    rng = np.random.default_rng(seed)
    size, m = int(rng.integers(1, 50)), int(rng.integers(1, 300))
    idx = np.flatnonzero(rng.random(m) < 0.8)
    targets = rng.integers(0, size, idx.size)                  # many duplicates
    ci, gi = CPU.vector(m, idx, targets), GPU.vector(m, idx, targets)
    cv, gv = pair(rng, m, kind, density=0.8)
    # float sums are exact here (values with short binary forms), whatever the order
    g = GPU.scatter(size, gi, gv, monoid)
    if kind == "int":
        same(CPU.scatter(size, ci, cv, monoid), g)
    # a plain reference (the cpu executor's mask() turns int indices into float64 when
    # the mask holds floats, so it cannot run this case)
    vi, vv = CPU.to_coo(cv)
    vals = dict(zip(vi.tolist(), vv.tolist()))
    ref = {}
    for k, t in zip(idx.tolist(), targets.tolist()):
        if k in vals:
            x = vals[k]
            if t not in ref:
                ref[t] = x
            elif monoid != "any":
                ref[t] = {"min": min, "max": max, "plus": lambda a, b: a + b}[monoid](ref[t], x)
    gi_, gv_ = (host(x) for x in GPU.to_coo(g))
    assert gi_.tolist() == sorted(ref)
    assert gv_.tolist() == [ref[t] for t in sorted(ref)]
    assert gv_.dtype == vv.dtype


# ---------------------------------------------------------------------- matrix steps
def _check_any(gw, gu, A_pattern, semiring, allowed):
    """Each output j has a witness k in u with A(k, j); any_secondi gives such a k."""
    gi, gvals = (host(x) for x in GPU.to_coo(gw))
    ui = set(host(GPU.to_coo(gu)[0]).tolist())
    for j, val in zip(gi.tolist(), gvals.tolist()):
        assert allowed[j]
        witnesses = [k for k in ui if A_pattern[k, j]]
        assert witnesses
        if semiring == "any_secondi":
            assert val in witnesses
        else:
            assert val == 1
    expected = {j for j in range(A_pattern.shape[1]) if allowed[j]
                and any(A_pattern[k, j] for k in ui)}
    assert set(gi.tolist()) == expected


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("masking", [None, "mask", "complement"])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_vxm_mxv(seed, semiring, masking, directed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    G = rand_graph(rng, n, directed)
    cu, gu = pair(rng, n, kind)
    cm, gm = pair(rng, n)
    kw_c = {} if masking is None else {"mask": cm, "complement": masking == "complement"}
    kw_g = {} if masking is None else {"mask": gm, "complement": masking == "complement"}
    pm = host(gm.present).astype(int)
    allowed = (np.ones(n, bool) if masking is None
               else (pm == 0) if masking == "complement" else (pm == 1))
    pattern = G.to_scipy().toarray() != 0
    for transpose in (False, True):
        cA, gA = CPU.matrix(G, transpose=transpose), GPU.matrix(G, transpose=transpose)
        P = pattern.T if transpose else pattern
        cw = CPU.vxm(cu, cA, semiring, **kw_c)
        gw = GPU.vxm(gu, gA, semiring, **kw_g)
        cx = CPU.mxv(cA, cu, semiring, **kw_c)
        gx = GPU.mxv(gA, gu, semiring, **kw_g)
        if semiring.startswith("any"):
            _check_any(gw, gu, P, semiring, allowed)
            _check_any(gx, gu, P.T, semiring, allowed)
        else:
            same(cw, gw)
            same(cx, gx)


@pytest.mark.parametrize("seed", SEEDS)
def test_matrix_without_loops_and_cache(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    G = rand_graph(rng, n, directed=bool(seed % 2))
    A = GPU.matrix(G)
    assert GPU.matrix(G) is A                                   # built once, cached
    assert A.indices.dtype == np.int32
    if not G.directed:
        assert GPU.matrix(G, transpose=True) is A
    cu, gu = pair(rng, n)
    same(CPU.mxv(CPU.matrix(G, loops=False), cu, "plus_pair"),
         GPU.mxv(GPU.matrix(G, loops=False), gu, "plus_pair"))
    same(CPU.degree(G, incoming=True), GPU.degree(G, incoming=True))
    same(CPU.degree(G), GPU.degree(G))


def test_readme_snippet():
    """The masked vxm shown in docs/gpu.md."""
    G = Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    A = GPU.matrix(G)
    frontier = GPU.vector(G.n, [0], [0])
    q = GPU.vxm(frontier, A, "any_secondi", mask=frontier, complement=True)
    idx, parents = GPU.to_coo(q)
    assert host(idx).tolist() == [1, 2] and host(parents).tolist() == [0, 0]


def test_a_placed_call_holds_the_executor():
    """While one thread's call is placed, another thread's call waits for it."""
    G = Graph.from_edges([0, 1], [1, 2], n=3)
    taken = []
    with GPU.placement(G, "bfs"):
        other = threading.Thread(target=lambda: taken.append(GPU._calls.acquire(timeout=0.05)))
        other.start()
        other.join()
    assert taken == [False]
    assert GPU._calls.acquire(blocking=False)           # released with the call
    GPU._calls.release()


def test_calls_from_several_threads_give_the_cpu_executors_answers():
    graphs = [lg.generate.kronecker(13 + seed % 2, directed=True, seed=seed)
              for seed in range(8)]           # above the host routes' sizes

    def both(G):
        return (lg.asnumpy(lg.scc(G, backend=GPU).labels),
                lg.asnumpy(lg.bfs(G, 0, backend=GPU, parents=False).level))

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(both, graphs))
    for G, (labels, level) in zip(graphs, got):
        np.testing.assert_array_equal(labels, lg.asnumpy(lg.scc(G, backend=CPU).labels))
        np.testing.assert_array_equal(
            level, lg.asnumpy(lg.bfs(G, 0, backend=CPU, parents=False).level))
