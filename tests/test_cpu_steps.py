"""The fused cpu executor's vectors: the HostVector holder (changes of form, in-place
steps, reading back) and the numpy forms of graphblas objects the compiled steps read; the
SCC steps on graphblas inputs. (The BFS step, one compiled search, is tested against the
reference executor in test_bfs.py.)"""

import graphblas as gb
import numpy as np
import pytest

import lagraph_py as lg
from lagraph_py.cpu import (
    CpuExecutor,
    csr_arrays,
    dense_array,
    take_arrays,
    take_bitmap,
)
from lagraph_py.cpu_steps import FusedCpuExecutor, HostVector
from lagraph_py.cpu_steps import scc as fused_scc
from lagraph_py.cpu_steps.host_vector import held
from oracles import scc_labels, with_int64_ids

REF, FUSED = CpuExecutor(), FusedCpuExecutor()


def coo(u):
    idx, vals = u.to_coo()
    return idx.astype(np.int64), vals


def test_loop_free_matrix_is_exported_once():
    G = lg.Graph.from_edges([0, 0, 1, 2, 2], [0, 1, 2, 2, 3], directed=True)
    indptr, indices = csr_arrays(FUSED.matrix(G, loops=False))
    assert csr_arrays(FUSED.matrix(G, loops=False))[0] is indptr
    np.testing.assert_array_equal(indptr, [0, 1, 2, 3, 3])
    np.testing.assert_array_equal(indices, [1, 2, 3])


def test_host_forms_are_the_graphs_own_arrays():
    G = lg.generate.grid(4, 5)
    indptr, indices = csr_arrays(FUSED.matrix(G))
    assert indptr is G.indptr and indices is G.indices
    unsigned = csr_arrays(FUSED.matrix(G), unsigned=True)
    assert all(u.base is a and u.dtype == np.uint32 for u, a in zip(unsigned, (indptr, indices)))
    assert dense_array(REF.degree(G)) is G.out_degree()
    assert FUSED.degree(G) is FUSED.degree(G)
    u = gb.Vector.from_dense(np.array([3, 1, 2]))
    np.testing.assert_array_equal(dense_array(u), [3, 1, 2])


@pytest.mark.parametrize("make", [
    lambda: gb.Vector.from_coo([1, 3], [7, 8], size=5),                 # sparse
    lambda: gb.Vector.from_coo([1, 3], [7, 7], size=5),                 # sparse, iso
    lambda: gb.Vector.from_dense(np.array([4, 5, 6, 7, 8])),            # full
    lambda: gb.Vector.from_scalar(9, 5),                                # full, iso
    lambda: gb.Vector(int, 5),                                          # empty
])
@pytest.mark.parametrize("as_bitmap", [False, True])
def test_take_bitmap_and_consuming_to_dense(make, as_bitmap):
    u = make()
    if as_bitmap:
        u.ss.config["sparsity_control"] = "bitmap"
        u.wait()
    idx, vals = u.to_coo()
    expected = np.full(u.size, -1)
    expected[idx] = vals
    bitmap, values = take_bitmap(u.dup())
    np.testing.assert_array_equal(np.flatnonzero(bitmap), idx)
    np.testing.assert_array_equal(values[bitmap], vals)
    np.testing.assert_array_equal(REF.to_dense(u.dup(), -1, consume=True), expected)
    np.testing.assert_array_equal(REF.to_dense(u, -1), expected)


# ---------------------------------------------------------------------- HostVector
def as_bitmap(u):
    u.ss.config["sparsity_control"] = "bitmap"
    u.wait()
    return u


GRAPHBLAS_VECTORS = {
    "sparse": lambda: gb.Vector.from_coo([1, 3], [7, 8], size=100_000),
    "sparse iso": lambda: gb.Vector.from_coo([1, 3], [7, 7], size=100_000),
    "bitmap": lambda: as_bitmap(gb.Vector.from_coo([0, 4], [2.5, -1.0], size=6)),
    "full": lambda: gb.Vector.from_dense(np.array([4, 5, 6, 7, 8])),
    "full iso": lambda: gb.Vector.from_scalar(9, 5),
    "empty": lambda: gb.Vector(int, 5),
}


def same_vector(u, v):
    """Exact equality of two vectors' entries (indices, values and value type)."""
    (i, a), (j, b) = coo(u), coo(v)
    np.testing.assert_array_equal(i, j)
    np.testing.assert_array_equal(a, b)
    assert a.dtype == b.dtype


@pytest.mark.parametrize("name", GRAPHBLAS_VECTORS)
def test_host_vector_of_a_vector_reads_it(name):
    """A holder of a Vector reads its entries and gives back that same Vector;
    take_arrays hands over what SuiteSparse stores."""
    v, expected = GRAPHBLAS_VECTORS[name](), GRAPHBLAS_VECTORS[name]()
    u = HostVector(v)
    assert (u.size, u.nvals, u.dtype) == (v.size, expected.nvals, expected.dtype.np_type)
    idx, vals = coo(expected)
    np.testing.assert_array_equal(u.indices(), idx)
    same_vector(u, expected)
    assert u.to_graphblas() is v
    same_vector(v, expected)
    indices, bits, values = take_arrays(expected.dup())
    if indices is not None:
        np.testing.assert_array_equal(indices, idx)
    elif bits is not None:
        np.testing.assert_array_equal(values[bits], vals)
    else:
        np.testing.assert_array_equal(values, vals)


@pytest.mark.parametrize("form", ["sparse", "bitmap", "full"])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_host_vector_numpy_forms_to_graphblas(form, dtype):
    n, idx = 7, np.array([0, 2, 5])
    values = (np.arange(n) * 3 - 4).astype(dtype)
    if form == "full":
        u, idx = HostVector.dense(values.copy()), np.arange(n)
    elif form == "bitmap":
        bitmap = np.zeros(n, dtype=bool)
        bitmap[idx] = True
        u = HostVector.dense(values.copy(), bitmap)
    else:
        u = HostVector.sparse(n, idx.astype(np.uint64), values[idx])
    expected = gb.Vector.from_coo(idx, values[idx], size=n)
    same_vector(u, expected)
    assert u.nvals == idx.size and u.dtype == dtype
    np.testing.assert_array_equal(u.indices(), idx)
    v = u.to_graphblas()
    same_vector(v, expected)
    assert u.to_graphblas() is v and u.nvals == idx.size
    dense = np.full(n, -1, dtype=dtype)
    dense[idx] = values[idx]
    np.testing.assert_array_equal(u.dup().to_dense(-1), dense)
    np.testing.assert_array_equal(u.to_dense(-1, consume=True), dense)
    assert u.nvals == 0


@pytest.mark.parametrize("name", GRAPHBLAS_VECTORS)
@pytest.mark.parametrize("numpy_first", [False, True])
def test_consuming_to_dense_of_a_host_vector(name, numpy_first):
    """``to_dense(consume=True)`` from either form equals the reference's, and the holder
    is left empty."""
    u = HostVector(GRAPHBLAS_VECTORS[name]())
    if numpy_first:
        u = FUSED.vector(u.size, *u.to_coo())
    expected = REF.to_dense(GRAPHBLAS_VECTORS[name](), -1)
    np.testing.assert_array_equal(FUSED.to_dense(u.dup(), -1), expected)
    np.testing.assert_array_equal(FUSED.to_dense(u, -1, consume=True), expected)
    assert u.nvals == 0 and FUSED.to_coo(u)[0].size == 0


@pytest.mark.parametrize("converted", [False, True])
@pytest.mark.parametrize("with_mask", [False, True])
def test_in_place_assign_updates_the_holder(converted, with_mask):
    """``assign`` and ``assign_scalar`` on a holder never converted (numpy) and on one
    already in graphblas form: the holder itself changes, as the reference's Vector."""
    n = 9
    results = []
    for ex in (FUSED, REF):
        w = ex.vector(n, [1, 4, 6], [10, 40, 60])
        if ex is FUSED and converted:
            w.to_graphblas()
        u = ex.vector(n, [0, 4, 8], [-1, -4, -8])
        mask = ex.vector(n, [0, 4], [1, 1]) if with_mask else None
        ex.assign(w, u, mask=mask)
        ex.assign_scalar(w, 7, mask=ex.vector(n, [2], [1]))
        results.append(w)
    fused, ref = results
    assert isinstance(fused, HostVector)
    same_vector(fused, ref)
    np.testing.assert_array_equal(FUSED.to_dense(fused, 0), REF.to_dense(ref, 0))


def test_vector_validates_and_sorts():
    u = FUSED.vector(6, [4, 1, 3], [40, 10, 30])
    np.testing.assert_array_equal(FUSED.to_coo(u)[0], [1, 3, 4])
    np.testing.assert_array_equal(FUSED.to_coo(u)[1], [10, 30, 40])
    same_vector(FUSED.vector(3, [2, 0, 1], 5), REF.vector(3, [2, 0, 1], 5))   # full, scalar
    same_vector(FUSED.vector(3, [1], [0.5]), REF.vector(3, [1], [0.5]))
    with pytest.raises(ValueError, match="distinct"):
        FUSED.vector(6, [1, 1], [2, 3])
    with pytest.raises(IndexError):
        FUSED.vector(6, [6], [1])
    with pytest.raises(IndexError):
        FUSED.vector(6, [-1, 2], [1, 2])


def test_held_hands_contents_back_into_a_vector():
    v = gb.Vector.from_coo([1], [3], size=4)
    with held(v, None) as (u, nothing):
        assert isinstance(u, HostVector) and nothing is None
        u.set_full(np.array([9, 8, 7, 6]))
    np.testing.assert_array_equal(v.to_dense(), [9, 8, 7, 6])


@pytest.mark.parametrize("graphblas_inputs", [False, True])
def test_fused_scc_steps_take_graphblas_vectors(graphblas_inputs):
    """The fused SCC steps on the reference executor's Vectors update ``label`` in place
    and give what they give on HostVectors, which is what the definitions give."""
    G = lg.generate.kronecker(7, 4, seed=3, directed=True)
    labels = lg.scc(G, backend=REF).labels
    active = np.flatnonzero(np.isin(labels, labels[::3]))        # whole components
    results = []
    for ex, make in ((REF, REF), (FUSED, REF if graphblas_inputs else FUSED)):
        A, AT = ex.matrix(G, loops=False), ex.matrix(G, transpose=True, loops=False)
        label = make.vector(G.n, np.empty(0, np.int64), np.empty(0, np.int64))
        left = ex.scc_trim(A, AT, make.vector(G.n, active, active), label)
        ex.scc_signatures(A, AT, left, label)
        results.append(label)
    assert isinstance(results[1], gb.Vector if graphblas_inputs else HostVector)
    same_vector(results[1], results[0])
    np.testing.assert_array_equal(coo(results[1])[1], labels[active])
    full = FUSED.vector(G.n, np.empty(0, np.int64), np.empty(0, np.int64))
    if graphblas_inputs:
        full = full.to_graphblas()
    FUSED.scc_signatures(FUSED.matrix(G, loops=False), None, FUSED.iota(G.n), full)
    np.testing.assert_array_equal(FUSED.to_dense(full, -1), labels)


@pytest.mark.parametrize("wide", [False, True])
def test_pearce_labels_with_either_index_width(wide):
    """The labelling loop of scc_signatures with 32- and 64-bit work arrays (the latter
    for graphs of 2^31 vertices or more) gives scipy's components, labelled by their
    smallest ids, on the whole graph and on a union of its components."""
    G = lg.generate.grid(30, 30, directed=True, orientation="random", seed=4)
    truth = scc_labels(G)
    indptr, indices = csr_arrays(FUSED.matrix(G, loops=False), unsigned=True)
    like = fused_scc._UINT64 if wide else fused_scc._UINT32
    for ids in (np.arange(G.n), np.flatnonzero(np.isin(truth, truth[::7]))):
        labels = fused_scc._smallest_id_components(indptr, indices, ids.astype(np.uint64),
                                                   G.n, like)
        np.testing.assert_array_equal(labels, truth[ids])


@pytest.mark.parametrize("wide_ids", [False, True])
@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("make", [
    lambda: lg.generate.grid(30, 30, directed=True, orientation="random", seed=4),
    lambda: lg.generate.kronecker(10, seed=4, directed=True),
], ids=["grid", "kronecker"])
def test_compiled_scc_with_either_index_width(make, wide, wide_ids):
    """The compiled SCC call on int32 and int64 CSR arrays, with 32- and 64-bit work arrays
    (the latter for graphs of 2^31 vertices or more), with and without the search for the
    giant component: scipy's components, labelled by their smallest ids."""
    G = make()
    if wide_ids:
        G = with_int64_ids(G)
    truth = scc_labels(G)
    arrays = fused_scc._csr(G) + fused_scc._csr(G.transpose())
    like = fused_scc._UINT64 if wide else fused_scc._UINT32
    for search in (False, True):
        work = fused_scc._work(G.n, like, arrays[0], G.n)
        labels = fused_scc._strong_components(*arrays, search, work, G.nstored,
                                              fused_scc.PULL_ARCS, fused_scc.PUSH_VERTICES,
                                              fused_scc._NO_STOP)
        np.testing.assert_array_equal(labels, truth)


@pytest.mark.parametrize("make", [
    lambda: lg.generate.grid(30, 30, directed=True, orientation="random", seed=4),
    lambda: lg.generate.cycle_chain(40, 25, shuffle=True, seed=2),
    lambda: lg.Graph.from_edges([], [], n=3),
], ids=["grid", "chain", "no-arcs"])
def test_strong_components_until_labels_or_gives_up_whole(make):
    """The host side of the gpu executor's SCC race: with its stop word clear, scipy's
    components labelled by their smallest ids; with the word set, None (no partial
    labels); the graph's arrays are not modified."""
    G = make()
    truth = scc_labels(G)
    before = G.indptr.copy(), G.indices.copy()
    labels = fused_scc.strong_components_until(G.indptr, G.indices, np.zeros(1, np.uint32))
    np.testing.assert_array_equal(labels, truth)
    assert fused_scc.strong_components_until(G.indptr, G.indices,
                                             np.ones(1, np.uint32)) is None
    np.testing.assert_array_equal(G.indptr, before[0])
    np.testing.assert_array_equal(G.indices, before[1])


@pytest.mark.parametrize("stale", [1, 2**31 - 1])
def test_strong_components_until_on_used_work_arrays(stale):
    """Work arrays given by the caller (as the gpu executor's race allocates them on its
    own thread) may hold anything, here every word ``stale``: the labels do not depend on
    it, and the labels array returned is the one given."""
    G = lg.generate.cycle_chain(30, 20, shuffle=True, seed=5)
    work = fused_scc.pearce_work(G.indptr)
    for a in work:
        a.fill(stale)
    labels = fused_scc.strong_components_until(G.indptr, G.indices, np.zeros(1, np.uint32),
                                               work)
    np.testing.assert_array_equal(labels, scc_labels(G))
    assert np.shares_memory(labels, work[1])


def test_strong_components_until_stops_from_another_thread():
    """A stop set by another thread while the labelling runs ends it with None, or it has
    already finished with every label right: never a partial answer. The long chain of
    shuffled cycles keeps it running past several stop reads."""
    import threading
    G = lg.generate.cycle_chain(400, 500, shuffle=True, seed=3)
    truth = scc_labels(G)
    stop = np.zeros(1, np.uint32)
    timer = threading.Timer(0.002, lambda: stop.__setitem__(0, 1))
    timer.start()
    labels = fused_scc.strong_components_until(G.indptr, G.indices, stop)
    timer.join()
    assert labels is None or np.array_equal(labels, truth)
