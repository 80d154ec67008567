"""Planning a GPU call against a device budget (``lagraph_py.device_memory``), on the host.

The plan is arithmetic on sizes: ``"resident"`` exactly when everything the call needs
(less what the Graph holds of its adjacency) fits the budget, ``"managed"`` (out of core)
when only its vertex arrays do, else a ``MemoryError`` naming the bytes needed and free.
The size formulas are checked against the arrays they count, and every algorithm is
checked to enter its executor's placement before its first step, so that a refusal comes
before any work. No GPU needed.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_py as lg
from oracles import graphs
from lagraph_py import device_memory as dm
from lagraph_py.cpu import CpuExecutor

sizes = st.integers(0, 1 << 40)


@settings(max_examples=300, deadline=None)
@given(adjacency=sizes, scratch=sizes, vertex=sizes, streamed=sizes, held=sizes,
       budget=sizes, n=st.integers(0, 1 << 33), on_device=st.floats(0, 1))
def test_plan_places_by_what_fits(adjacency, scratch, vertex, streamed, held, budget, n,
                                  on_device):
    held_on_device = int(held * on_device)
    needs = dm.Needs(adjacency, scratch, vertex, streamed)
    resident = max(0, adjacency - held) + scratch + vertex + streamed
    if vertex - held_on_device > budget and resident > budget:
        with pytest.raises(MemoryError, match=f"x needs {vertex - held_on_device:,} bytes of "
                                              f"GPU memory; {budget:,} are free"):
            dm.plan("bfs", needs, held=held, budget=budget, n=n, what="x",
                    held_on_device=held_on_device)
        return
    p = dm.plan("bfs", needs, held=held, budget=budget, n=n, held_on_device=held_on_device)
    assert (p.mode == dm.RESIDENT) == (resident <= budget)
    assert (p.managed_from is None) == (p.mode == dm.RESIDENT)
    if p.mode == dm.MANAGED:
        assert p.managed_from > dm.VERTEX_ARRAY_BYTES * n
        assert p.managed_from >= dm.MANAGED_FLOOR
    assert p.streamed_managed == (p.mode == dm.MANAGED
                                  and vertex + streamed > budget + held_on_device)
    assert (p.needs, p.held, p.budget, p.task) == (needs, held, budget, "bfs")


def test_plan_boundaries():
    needs = dm.Needs(1000, 200, 100)
    assert dm.plan("msf", needs, held=0, budget=1300, n=1).mode == dm.RESIDENT
    assert dm.plan("msf", needs, held=0, budget=1299, n=1).mode == dm.MANAGED
    assert dm.plan("msf", needs, held=1000, budget=300, n=1).mode == dm.RESIDENT
    assert dm.plan("msf", needs, held=5000, budget=299, n=1).mode == dm.MANAGED  # scratch
    assert dm.plan("msf", needs, held=0, budget=100, n=1).mode == dm.MANAGED
    with pytest.raises(MemoryError, match="msf needs 100 bytes of GPU memory; 99 are free"):
        dm.plan("msf", needs, held=0, budget=99, n=1)
    # an earlier call out of core left 40 bytes of its vertex arrays with the graph
    assert dm.plan("msf", needs, held=1040, budget=60, n=1, held_on_device=40).mode == dm.MANAGED
    with pytest.raises(MemoryError, match="msf needs 60 bytes of GPU memory; 59 are free"):
        dm.plan("msf", needs, held=1040, budget=59, n=1, held_on_device=40)
    # streamed vertex arrays count for a resident call, not for one out of core
    streams = dm.Needs(1000, 200, 100, 50)
    assert dm.plan("bfs", streams, held=0, budget=1350, n=1).mode == dm.RESIDENT
    assert dm.plan("bfs", streams, held=0, budget=1349, n=1).mode == dm.MANAGED
    assert dm.plan("bfs", streams, held=0, budget=100, n=1).mode == dm.MANAGED
    # ... and stay in device memory out of core where the budget holds them
    assert not dm.plan("bfs", streams, held=0, budget=150, n=1).streamed_managed
    assert dm.plan("bfs", streams, held=0, budget=149, n=1).streamed_managed
    with pytest.raises(MemoryError, match="bfs needs 100 bytes of GPU memory; 99 are free"):
        dm.plan("bfs", streams, held=0, budget=99, n=1)
    assert streams.total == 1350
    with pytest.raises(ValueError, match="task"):
        dm.plan("pagerank", needs, held=0, budget=10**9, n=1)


@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("directed", [True, False])
def test_csr_bytes_count_the_device_arrays(index, directed):
    G = lg.generate.kronecker(8, seed=2, directed=directed)
    isize = np.dtype(index).itemsize
    csr = dm.csr_bytes(G.n, G.nstored, isize)
    assert csr.adjacency == G.indices.astype(index).nbytes
    assert csr.vertex == G.indptr.astype(index).nbytes
    pull = dm.pull_list_bytes(G.n, G.nstored, isize, hub_first=True)
    assert pull.adjacency == csr.adjacency                 # a reordered copy of the indices
    assert pull.vertex == np.empty(G.n, index).nbytes      # the row heads
    assert dm.pull_list_bytes(G.n, G.nstored, isize, hub_first=False).adjacency == 0
    assert dm.add(csr, pull).total == csr.total + pull.total


@settings(max_examples=80, deadline=None)
@given(G=graphs(max_n=300), rows=st.integers(1, 400))
def test_packed_fraction_counts_the_runs_of_the_rows_it_reads(G, rows):
    """Against a plain count: the distinct bitmap words of each row read (every row when
    ``rows`` covers them, else ``rows`` of them spread evenly) over its entries."""
    sample = np.unique(np.linspace(0, G.n - 1, min(G.n, rows)).astype(np.int64))
    words = [len({int(u) >> 5 for u in G.indices[G.indptr[v]:G.indptr[v + 1]]})
             for v in sample]
    entries = int(np.diff(G.indptr)[sample].sum())
    expected = sum(words) / entries if entries else 1.0
    assert dm.packed_fraction(G.indptr, G.indices, rows) == pytest.approx(expected)
    assert 1 / 32 <= dm.packed_fraction(G.indptr, G.indices) <= 1
    runs = sum(len({(v, int(u) >> 5) for u in G.indices[G.indptr[v]:G.indptr[v + 1]]})
               for v in range(G.n))
    fraction = dm.packed_fraction(G.indptr, G.indices, max(G.n, 1))
    packed = dm.packed_list_bytes(G.n, G.nstored, G.indices.itemsize, fraction)
    assert packed.adjacency == np.empty(runs, np.uint64).nbytes          # 8 bytes a word
    assert packed.vertex == G.indptr.astype(G.indices.dtype).nbytes      # row pointers


class Refusing(CpuExecutor):
    """The reference executor, refusing every call in its placement and recording the
    steps run (none may run before the placement)."""

    def __init__(self):
        self.log = []

    def placement(self, G, task):
        self.log.append(("placement", task))
        raise MemoryError(f"{task}: no room")

    def matrix(self, G, **kw):
        self.log.append("matrix")
        return super().matrix(G, **kw)


@pytest.mark.parametrize("task, call", [
    ("bfs", lambda G, ex: lg.bfs(G, 0, backend=ex)),
    ("msf", lambda G, ex: lg.msf(G, backend=ex)),
    ("scc", lambda G, ex: lg.scc(G, backend=ex)),
    ("cc", lambda G, ex: lg.connected_components(G, backend=ex)),
])
def test_every_algorithm_is_placed_before_any_step(task, call):
    G = lg.generate.grid(4, 4, directed=task in ("bfs", "scc"), weights="uniform")
    ex = Refusing()
    with pytest.raises(MemoryError, match=f"{task}: no room"):
        call(G, ex)
    assert ex.log == [("placement", task)]


def test_the_placement_surrounds_the_call():
    entered = []

    class Watching(CpuExecutor):
        def placement(self, G, task):
            from contextlib import contextmanager

            @contextmanager
            def watch():
                entered.append("enter")
                yield
                entered.append("exit")
            return watch()

        def bfs_search(self, *args):
            entered.append("search")
            return super().bfs_search(*args)

    G = lg.generate.grid(3, 3)
    r = lg.bfs(G, 0, backend=Watching())
    assert entered == ["enter", "search", "exit"]
    lg.validate.bfs(G, 0, r)
