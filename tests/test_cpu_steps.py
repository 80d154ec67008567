"""The fused cpu executor's BFS group steps against their primitive definitions (run by the
reference executor), step by step from the same mid-search state, on the executor's own
vectors (HostVector) and on graphblas ones; the HostVector holder itself (changes of form,
in-place steps, reading back); and the numpy forms of graphblas objects the fused steps
read."""

from unittest import mock

import graphblas as gb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import graphs
from scipy.sparse.csgraph import connected_components

import lagraph_py as lg
from lagraph_py.cpu import (
    CpuExecutor,
    csr_arrays,
    dense_array,
    take_arrays,
    take_bitmap,
)
from lagraph_py.cpu_steps import FusedCpuExecutor, HostVector
from lagraph_py.cpu_steps import bfs as fused_bfs
from lagraph_py.cpu_steps.host_vector import held
from lagraph_py.cpu_steps import scc as fused_scc
from lagraph_py.executor import PUSH
from lagraph_py.results import BFSResult

REF, FUSED = CpuExecutor(), FusedCpuExecutor()
RELAXED = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def coo(u):
    idx, vals = u.to_coo()
    return idx.astype(np.int64), vals


def mid_search(ex, G, s, depth, semiring, with_level):
    """BFS vectors ``(frontier, visited, level)`` after ``depth`` reference push levels."""
    A = REF.matrix(G)
    frontier = REF.vector(G.n, [s], [s if semiring == "any_secondi" else 1])
    visited = REF.dup(frontier)
    level = REF.vector(G.n, [s], [0]) if with_level else None
    for k in range(1, depth + 1):
        frontier, _ = REF.bfs_level(A, None, frontier, visited, level, k, PUSH, semiring)
    return frontier, visited, level


def check_parents(G, visited_before, visited_after, level_after, semiring):
    """Each newly visited vertex holds a visited parent with an edge to it, one level up
    where levels are kept (or 1 under ``any_pair``)."""
    before = set(coo(visited_before)[0].tolist())
    idx, vals = coo(visited_after)
    seen = set(idx.tolist())
    level = None if level_after is None else dict(zip(*(x.tolist() for x in coo(level_after))))
    edges = set(zip(G.rows().tolist(), G.indices.tolist()))
    for v, p in zip(idx.tolist(), vals.tolist()):
        if v in before:
            continue
        if semiring == "any_pair":
            assert p == 1
            continue
        assert p in seen and (p, v) in edges, (p, v)
        if level is not None:
            assert level[p] == level[v] - 1, (p, v)


def fused_copy(u, kind):
    """A copy of the graphblas vector ``u`` as the fused executor's step input: a
    HostVector in the sparse or the bitmap numpy form, one holding a Vector ("held"), or
    a Vector ("graphblas")."""
    if u is None:
        return None
    if kind in ("sparse", "bitmap"):
        h = FUSED.vector(u.size, *coo(u))
        if kind == "bitmap":
            h.opened()
        return h
    return HostVector(u.dup()) if kind == "held" else u.dup()


def run_step(ex, name, G, state, k, semiring, bound, with_degrees, kind="graphblas"):
    frontier, visited, level = (fused_copy(x, kind) for x in state)
    A, AT = ex.matrix(G), ex.matrix(G, transpose=True)
    degrees = (ex.degree(G), ex.degree(G, incoming=True)) if with_degrees else None
    if name == "push_levels":
        out = ex.bfs_push_levels(A, frontier, visited, level, k, semiring, bound, degrees)
    elif name == "pull_levels":
        out = ex.bfs_pull_levels(A, AT, frontier, visited, level, k, semiring, bound, degrees)
    else:
        q, stats = ex.bfs_level(A, AT, frontier, visited, level, k, name, semiring, degrees)
        out = (q, k, stats)
    return out, frontier, visited, level


@settings(max_examples=80, **RELAXED)
@given(graphs(max_n=30), st.data())
def test_fused_bfs_steps_equal_their_definitions(G, data):
    if G.n == 0:
        return
    s = data.draw(st.integers(0, G.n - 1), label="source")
    semiring = data.draw(st.sampled_from(["any_secondi", "any_pair"]), label="semiring")
    with_level = data.draw(st.booleans(), label="level")
    with_degrees = data.draw(st.booleans(), label="degrees")
    depth = data.draw(st.integers(0, 3), label="depth")
    name = data.draw(st.sampled_from([PUSH, "push_levels", "pull_levels"]))
    bound = data.draw(st.integers(0, G.n) if name == "push_levels"
                      else st.floats(0, G.n) if name == "pull_levels" else st.just(None))
    kind = data.draw(st.sampled_from(["sparse", "bitmap", "held", "graphblas"]),
                     label="inputs")
    branchless = data.draw(st.sampled_from([np.inf, 0]), label="branchless degree")
    state = mid_search(REF, G, s, depth, semiring, with_level)
    k = depth + 1
    (q0, k0, st0), f0, v0, l0 = run_step(REF, name, G, state, k, semiring, bound, with_degrees)
    with mock.patch.object(fused_bfs, "BRANCHLESS_DEGREE", branchless):
        (q1, k1, st1), f1, v1, l1 = run_step(FUSED, name, G, state, k, semiring, bound,
                                             with_degrees, kind)
    assert isinstance(q1, HostVector)
    for before, out in ((state[1], v1), (state[2], l1)):    # updated in place, same type
        assert before is None or isinstance(out, HostVector) == (kind != "graphblas")
    assert (k1, st1) == (k0, st0)
    np.testing.assert_array_equal(coo(q1)[0], coo(q0)[0])
    np.testing.assert_array_equal(coo(v1)[0], coo(v0)[0])
    if with_level:
        for a, b in zip(coo(l1), coo(l0)):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(coo(f1), coo(state[0])):             # the input frontier is untouched
        np.testing.assert_array_equal(a, b)
    check_parents(G, state[1], v1, l1, semiring)
    if semiring == "any_pair":
        np.testing.assert_array_equal(coo(q1)[1], coo(q0)[1])


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("name", ["push_levels", "pull_levels"])
def test_steps_on_a_large_graph_use_every_path(directed, name):
    """Every level on every core (the parallel push and pull), from a hub of a Kronecker
    graph: the same last level, stats and levels as the definition, valid parents."""
    G = lg.generate.kronecker(12, 8, seed=2, directed=directed)
    s = int(np.argmax(G.out_degree()))
    state = mid_search(REF, G, s, 1, "any_secondi", True)
    bound = G.n if name == "push_levels" else 0.0
    (q0, k0, st0), _, v0, l0 = run_step(REF, name, G, state, 2, "any_secondi", bound, True)
    with mock.patch.object(FUSED, "parallel_work", 0):
        (q1, k1, st1), _, v1, l1 = run_step(FUSED, name, G, state, 2, "any_secondi", bound,
                                             True)
    assert (k1, st1) == (k0, st0) and k1 > 3
    for a, b in zip(coo(l1), coo(l0)):
        np.testing.assert_array_equal(a, b)
    r = BFSResult(s, None, FUSED.to_dense(v1, -1))
    lg.validate.bfs(G, s, r)


def test_loop_free_matrix_and_other_values_fall_back():
    """A loop-free matrix (exported once) runs fused; a float visited vector runs the
    definition; both agree with the reference."""
    G = lg.Graph.from_edges([0, 0, 1, 2, 2], [0, 1, 2, 2, 3], directed=True)
    for ex in (REF, FUSED):
        A = ex.matrix(G, loops=False)
        for values in ([0], [0.5]):
            frontier, visited = ex.vector(G.n, [0], values), ex.vector(G.n, [0], values)
            q, k, stats = ex.bfs_push_levels(A, frontier, visited, None, 1, "any_pair", 4)
            assert (k, stats.nq) == (4, 0)
            np.testing.assert_array_equal(coo(visited)[0], [0, 1, 2, 3])
    indptr, indices = csr_arrays(FUSED.matrix(G, loops=False))
    np.testing.assert_array_equal(indptr, [0, 1, 2, 3, 3])
    np.testing.assert_array_equal(indices, [1, 2, 3])


def test_host_forms_are_the_graphs_own_arrays():
    G = lg.generate.grid(4, 5)
    indptr, indices = csr_arrays(FUSED.matrix(G))
    assert indptr is G.indptr and indices is G.indices
    unsigned = csr_arrays(FUSED.matrix(G), unsigned=True)
    assert all(u.base is a and u.dtype == np.uint32 for u, a in zip(unsigned, (indptr, indices)))
    assert dense_array(REF.degree(G)) is G.out_degree()
    assert FUSED.degree(G).full_values() is G.out_degree()
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
def test_host_vector_round_trips_keep_the_vector(name):
    """graphblas -> numpy (bitmap) -> graphblas gives the same entries, back in the same
    Vector object; take_arrays hands over what SuiteSparse stores."""
    v, expected = GRAPHBLAS_VECTORS[name](), GRAPHBLAS_VECTORS[name]()
    u = HostVector(v)
    assert (u.size, u.nvals, u.dtype) == (v.size, expected.nvals, expected.dtype.np_type)
    bitmap, values = u.opened()
    idx, vals = coo(expected)
    np.testing.assert_array_equal(np.flatnonzero(bitmap), idx)
    np.testing.assert_array_equal(values[bitmap], vals)
    assert v.nvals == 0                               # its arrays were taken, not copied
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
    u.opened()                                        # and back, into the same Vector
    assert u.to_graphblas() is v
    same_vector(v, expected)
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
        u.opened()
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


def test_same_pattern_sees_every_change():
    """After a fused push step ``level`` follows ``parent`` (told without a pass); any
    later change of either, by any step, is seen."""
    G = lg.generate.grid(3, 3)
    A = FUSED.matrix(G)
    frontier, parent, level = (FUSED.vector(G.n, [0], [v]) for v in (0, 0, 0))
    q, _ = FUSED.bfs_level(A, None, frontier, parent, level, 1, PUSH, "any_secondi")
    assert level.same_pattern(parent)
    FUSED.assign(parent, FUSED.vector(G.n, [8], [5]))          # parent alone changes
    assert not level.same_pattern(parent)
    FUSED.assign(level, FUSED.vector(G.n, [8], [2]))
    assert level.same_pattern(parent)                           # (found by comparing)
    q, _ = FUSED.bfs_level(A, None, q, parent, level, 2, PUSH, "any_secondi")
    np.testing.assert_array_equal(FUSED.to_coo(level)[0], FUSED.to_coo(parent)[0])
    np.testing.assert_array_equal(FUSED.to_dense(level, -1), [0, 1, 2, 1, 2, -1, 2, -1, 2])


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
    _, comp = connected_components(G.to_scipy(), directed=True, connection="strong")
    smallest = np.full(comp.max() + 1, G.n)
    np.minimum.at(smallest, comp, np.arange(G.n))
    truth = smallest[comp]
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
        G = lg.Graph(G.n, True, G.indptr.astype(np.int64), G.indices.astype(np.int64), None)
    _, comp = connected_components(G.to_scipy(), directed=True, connection="strong")
    smallest = np.full(comp.max() + 1, G.n)
    np.minimum.at(smallest, comp, np.arange(G.n))
    arrays = fused_scc._csr(G) + fused_scc._csr(G.transpose())
    like = fused_scc._UINT64 if wide else fused_scc._UINT32
    for search in (False, True):
        labels = fused_scc._strong_components(*arrays, search, like, G.nstored,
                                              fused_scc.PULL_ARCS, fused_scc.PUSH_VERTICES)
        np.testing.assert_array_equal(labels, smallest[comp])
