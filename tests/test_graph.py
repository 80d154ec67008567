"""Properties of Graph construction: canonical storage, duplicates, validation, caching."""

import graphblas as gb
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lagraph_py import Graph


def edge_lists(max_n=12, max_m=40):
    """(n, src, dst, weight-or-None) with random ids below n, duplicates likely."""
    @st.composite
    def build(draw):
        n = draw(st.integers(0, max_n))
        m = draw(st.integers(0, max_m)) if n else 0
        ids = st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)
        src, dst = draw(ids), draw(ids)
        weight = draw(st.one_of(
            st.none(),
            st.lists(st.integers(-5, 5), min_size=m, max_size=m),
            st.lists(st.floats(-3, 3, allow_nan=False), min_size=m, max_size=m)))
        return n, src, dst, weight
    return build()


def reference_edges(src, dst, weight, directed):
    """{(u, v): lightest weight} built by plain Python."""
    out = {}
    pairs = zip(src, dst) if directed else (
        p for s, d in zip(src, dst) for p in ((s, d), (d, s)))
    weights = weight if directed or weight is None else [w for w in weight for _ in (0, 1)]
    for k, key in enumerate(pairs):
        w = 1 if weight is None else weights[k]
        out[key] = min(out.get(key, w), w)
    return out


@settings(max_examples=150, deadline=None)
@given(edge_lists(), st.booleans())
def test_from_edges_matches_plain_reference(case, directed):
    n, src, dst, weight = case
    G = Graph.from_edges(src, dst, weight=weight, n=n, directed=directed)
    expected = reference_edges(src, dst, weight, directed)
    A = G.to_scipy().tocoo()
    got = {(int(i), int(j)): (1 if weight is None else v)
           for i, j, v in zip(A.row, A.col, A.data)}
    assert got == expected
    assert G.n == n and G.directed == directed and G.weighted == (weight is not None)
    assert G.nstored == len(expected)
    loops = sum(1 for (i, j) in expected if i == j)
    assert G.nedges == (len(expected) if directed else (len(expected) + loops) // 2)
    assert np.all(np.diff(G.indptr) >= 0) and G.indptr[-1] == G.nstored
    for i in range(n):  # columns sorted within each row
        row = G.indices[G.indptr[i]:G.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)


@settings(max_examples=60, deadline=None)
@given(edge_lists(), st.booleans())
def test_derived_forms(case, directed):
    n, src, dst, weight = case
    G = Graph.from_edges(src, dst, weight=weight, n=n, directed=directed)
    A = G.to_scipy()
    np.testing.assert_array_equal(G.out_degree(), np.diff(A.indptr))
    np.testing.assert_array_equal(G.in_degree(), np.diff(A.tocsc().indptr))
    T = G.transpose()
    assert (T.to_scipy() != A.T).nnz == 0
    assert G.transpose() is T  # cached
    s, d, w = G.edges()
    if not directed:
        assert np.all(s <= d)
    H = Graph.from_edges(s, d, weight=w, n=n, directed=directed)
    assert (H.to_scipy() != A).nnz == 0
    M = G.to_graphblas()
    assert M.nvals == G.nstored and M.nrows == n
    assert Graph.from_graphblas(M, directed=directed).to_scipy().nnz == A.nnz


def test_duplicates_keep_lightest_and_undirected_pairs_merge():
    G = Graph.from_edges([0, 0, 1], [1, 1, 0], weight=[4.0, 2.0, -1.0], directed=False)
    assert G.nedges == 1
    assert G.to_scipy()[0, 1] == -1.0 and G.to_scipy()[1, 0] == -1.0


@pytest.mark.parametrize("directed", [True, False])
def test_duplicates_in_one_direction_keep_the_lightest(directed):
    """Parallel edges given in one direction only (no mirror image to take the minimum
    with): the lightest of them is kept, whatever their order."""
    G = Graph.from_edges([0, 0, 0, 2, 2], [1, 1, 1, 1, 1], weight=[4, -2, 7, 3, 9], n=3,
                         directed=directed)
    A = G.to_scipy()
    assert A[0, 1] == -2 and A[2, 1] == 3
    assert G.nedges == 2 and G.nstored == (2 if directed else 4)


def test_explicit_zero_is_an_edge():
    A = sp.coo_array(([0.0, 3.0], ([0, 1], [1, 0])), shape=(2, 2))
    G = Graph.from_scipy(A)
    assert G.nedges == 2 and G.to_scipy()[0, 1] == 0.0


def test_inputs_are_not_modified_or_shared():
    src = np.array([2, 0, 1], dtype=np.int32)
    dst = np.array([1, 2, 0], dtype=np.int32)
    w = np.array([1.5, 2.5, 0.5])
    copies = src.copy(), dst.copy(), w.copy()
    G = Graph.from_edges(src, dst, weight=w, directed=False)
    for a, b in zip((src, dst, w), copies):
        np.testing.assert_array_equal(a, b)
    w[:] = 99.0
    assert G.weights.max() == 2.5
    with pytest.raises(ValueError):
        G.indices[0] = 5  # read-only storage


def test_index_width_is_narrowest():
    G = Graph.from_edges([0], [1])
    assert G.index_dtype == np.int32
    s, d, _ = G.edges()
    assert s.dtype == np.int64 and d.dtype == np.int64


@pytest.mark.parametrize("kwargs, err, words", [
    (dict(src=[0, -1], dst=[1, 0]), ValueError, "src[1]"),
    (dict(src=[0, 1], dst=[1, 5], n=3), ValueError, "dst[1]"),
    (dict(src=[0, 2], dst=[1, 0], n=2), ValueError, "src[1] = 2 is not a vertex id below n = 2"),
    (dict(src=[0, 1], dst=[1]), ValueError, "different lengths"),
    (dict(src=[0.0, 1.0], dst=[1, 0]), TypeError, "src"),
    (dict(src=[True], dst=[0]), TypeError, "src"),
    (dict(src=[[0]], dst=[[1]]), ValueError, "one-dimensional"),
    (dict(src=[0, 1], dst=[1, 0], weight=[1.0, np.nan]), ValueError, "weight[1]"),
    (dict(src=[0, 1], dst=[1, 0], weight=[np.inf, 1.0]), ValueError, "weight[0]"),
    (dict(src=[0, 1], dst=[1, 0], weight=[1.0]), ValueError, "weight"),
    (dict(src=[0], dst=[1], weight=["a"]), TypeError, "weight"),
    (dict(src=[0], dst=[1], weight=[1 + 2j]), TypeError, "weight"),
    (dict(src=[0], dst=[1], n=-1), ValueError, "n must be non-negative"),
    (dict(src=[0], dst=[1], n=2.5), TypeError, "n must be an integer"),
])
def test_from_edges_rejects(kwargs, err, words):
    with pytest.raises(err) as info:
        Graph.from_edges(**kwargs)
    assert words in str(info.value)


def test_from_scipy_and_graphblas_reject():
    with pytest.raises(ValueError, match="square"):
        Graph.from_scipy(sp.csr_array((2, 3)))
    with pytest.raises(TypeError, match="scipy.sparse"):
        Graph.from_scipy(np.eye(2))
    with pytest.raises(ValueError, match="not a finite"):
        Graph.from_scipy(sp.csr_array(np.array([[0, np.nan], [1, 0]])))
    with pytest.raises(ValueError, match="square"):
        Graph.from_graphblas(gb.Matrix(bool, 2, 3))
    with pytest.raises(TypeError, match="graphblas.Matrix"):
        Graph.from_graphblas(sp.eye(2))


def test_empty_graphs():
    G = Graph.from_edges([], [])
    assert (G.n, G.nedges, G.nstored) == (0, 0, 0)
    G = Graph.from_edges([], [], n=4, directed=False)
    assert G.n == 4 and G.to_scipy().shape == (4, 4) and G.nedges == 0


def test_transpose_keeps_the_index_type():
    """A graph built with int64 index arrays keeps them in its transpose (executors pair
    the two in one kernel instantiation)."""
    G = Graph.from_edges([0, 1, 2], [1, 2, 0], n=4)
    wide = Graph(G.n, True, G.indptr.astype(np.int64), G.indices.astype(np.int64), None)
    T = wide.transpose()
    assert T.indptr.dtype == T.indices.dtype == np.int64
    np.testing.assert_array_equal(T.indices, G.transpose().indices)
    assert G.transpose().index_dtype == np.int32


@pytest.mark.parametrize("order", ["random", "sorted", "reversed", "equal", "organ"])
@pytest.mark.parametrize("wtype", [None, np.int32, np.float32, np.int64, np.float64])
def test_long_rows_sort_and_merge(order, wtype):
    """Rows far longer than the insertion sort's (hubs with repeats, in every order a
    quicksort finds hard) come out sorted, each column once with its lightest weight."""
    rng = np.random.default_rng(7)
    m = 3000
    cols = {"random": rng.integers(0, 500, m), "sorted": np.sort(rng.integers(0, 500, m)),
            "reversed": np.sort(rng.integers(0, 500, m))[::-1], "equal": np.full(m, 9),
            "organ": np.concatenate([np.arange(m // 2), np.arange(m // 2)[::-1]])}[order]
    rows = rng.integers(0, 3, m)
    w = None if wtype is None else rng.normal(0, 100, m).astype(wtype)
    G = Graph.from_edges(rows, cols, w, n=1500)
    expected = reference_edges(rows.tolist(), cols.tolist(), None if w is None else w.tolist(),
                               True)
    A = G.to_scipy().tocoo()
    assert {(int(i), int(j)): (1 if w is None else v)
            for i, j, v in zip(A.row, A.col, A.data)} == expected
    assert all(np.all(np.diff(G.indices[G.indptr[r]:G.indptr[r + 1]]) > 0) for r in range(3))


def test_heap_sort_orders_by_column_then_weight():
    """The introsort's fallback (past its depth limit) on its own."""
    from lagraph_py.cpu_steps.csr import _heap_sort, _keyed
    rng = np.random.default_rng(3)
    for wtype in (np.int32, np.float64):
        cols = rng.integers(0, 20, 500).astype(np.int32)
        w = rng.normal(0, 5, 500).astype(wtype)
        c, x = cols.copy(), w.copy()
        _heap_sort(c, _keyed(x), 100, 400)
        np.testing.assert_array_equal(c[:100], cols[:100])
        order = 100 + np.lexsort((w[100:400], cols[100:400]))
        np.testing.assert_array_equal(c[100:400], cols[order])
        np.testing.assert_array_equal(x[100:400], w[order])
