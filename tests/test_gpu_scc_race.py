"""The SCC race of host and device (``gpu_backend/scc_race.py``) against scipy: whichever
side finishes first, ``lg.scc(G, backend="gpu")`` gives the components labelled by their
smallest ids; the host's side takes over what the kernel leaves once the host has
finished, is called off when the device wins, and never runs on graphs with hubs. Skipped
where CuPy or a CUDA device is absent.
"""

import threading
from concurrent.futures import Future

import numpy as np
import pytest

from conftest import cupy_or_skip  # noqa: E402

cp = cupy_or_skip()

import lagraph_py as lg  # noqa: E402
from gpu_backend import GpuExecutor, scc_race  # noqa: E402
from oracles import scc_labels, with_int64_ids  # noqa: E402

pytestmark = pytest.mark.gpu
GPU = GpuExecutor()


@pytest.fixture
def racing(monkeypatch):
    """The executor with the race on every graph of the kernels' size, the signature
    rounds past their budget at once (a budget of 0: the kernel reads the stop word after
    every sweep)."""
    for name, value in dict(scc_race_items=1 << 62, scc_host_items=0,
                            scc_host_share=0.0).items():
        monkeypatch.setattr(GPU, name, value)
    return GPU


def chain(k, size, seed):
    return lg.generate.cycle_chain(k, size, shuffle=True, seed=seed)


GRAPHS = {
    "chain": lambda: chain(300, 100, 1),
    "chain-int64": lambda: with_int64_ids(chain(300, 100, 2)),
    "grid": lambda: lg.generate.grid(150, 150, directed=True, orientation="random", seed=3),
    "mesh": lambda: lg.generate.mesh(20, 20, 20, directed=True, orientation="sweep",
                                     two_way=0.1, seed=4),
    "uniform": lambda: lg.generate.uniform(30_000, 2.0, directed=True, seed=5),
    "isolated": lambda: lg.Graph.from_edges([0, 1, 5], [1, 0, 6], n=40_000),
}


@pytest.mark.parametrize("share", [0.0, 1e-3, float("inf")])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_race_labels_equal_scipy(racing, monkeypatch, name, share):
    """Rounds late at once, after a short budget, or never (the kernel then never reads
    the stop word and labels everything, launched even where the host has finished
    first): the same labels, whoever wins. (A graph of mostly isolated vertices counts as
    one with hubs, against its tiny mean degree.)"""
    monkeypatch.setattr(GPU, "scc_host_share", share)
    if share == float("inf"):
        monkeypatch.setattr(scc_race.Race, "host_finished", lambda self: False)
    G = GRAPHS[name]()
    np.testing.assert_array_equal(cp.asnumpy(lg.scc(G, backend=GPU).labels), scc_labels(G))
    counts = GPU.scc_counts()
    assert counts["raced"] == (name != "isolated")
    if share == float("inf"):
        assert counts["handed_over"] == 0


def _host_at_once(truth):
    """``Race.start_host`` with a host side that has the labels ``truth`` at once."""
    def start_host(self):
        self._host = Future()
        self._host.set_result(self._label_on_host())
    return start_host


@pytest.mark.parametrize("before_launch", [True, False])
def test_host_wins_on_a_deep_chain(racing, monkeypatch, before_launch):
    """A host side that has the labels at once: the signature kernel is not launched, or
    (told the host is not done yet) it reads the stop word after its first sweep (a chain
    of 1,000 cycles needs many) and hands over; either way every vertex takes the host's
    label."""
    G = chain(1000, 100, 6)
    truth = scc_labels(G)
    monkeypatch.setattr(scc_race, "strong_components_until", lambda *_: truth.copy())
    monkeypatch.setattr(scc_race.Race, "start_host", _host_at_once(truth))
    if not before_launch:
        monkeypatch.setattr(scc_race.Race, "host_finished", lambda self: False)
    np.testing.assert_array_equal(cp.asnumpy(lg.scc(G, backend=GPU).labels), truth)
    counts = GPU.scc_counts()
    assert counts["raced"] and counts["handed_over"] > 0
    assert ("signature_rounds" in counts) is not before_launch


def test_host_labels_after_a_sweep_limit(racing, monkeypatch):
    """Handed over by the sweep limit (not by the stop word): the host's labels, waited
    for."""
    monkeypatch.setattr(GPU, "scc_handoff_sweeps", 2)
    G = chain(200, 50, 7)
    np.testing.assert_array_equal(cp.asnumpy(lg.scc(G, backend=GPU).labels), scc_labels(G))
    assert GPU.scc_counts()["handed_over"] > 0


@pytest.mark.parametrize("who", ["kernel", "trim"])
def test_the_call_calls_the_host_off(racing, monkeypatch, who):
    """A host side that can only be stopped. The kernel labels everything (a chain of
    cycles), or the trim does (a grid without cycles: no signatures run); either way the
    call sets the stop word, which the host side sees."""
    called_off = threading.Event()

    def host_never_finishing(indptr, indices, stop, work):
        while not stop[0]:
            pass
        called_off.set()

    monkeypatch.setattr(scc_race, "strong_components_until", host_never_finishing)
    G = (chain(100, 50, 8) if who == "kernel"
         else lg.generate.grid(120, 120, directed=True, orientation="sweep", seed=2))
    np.testing.assert_array_equal(cp.asnumpy(lg.scc(G, backend=GPU).labels), scc_labels(G))
    counts = GPU.scc_counts()
    assert counts["raced"] and counts.get("handed_over", 0) == 0
    assert ("handed_over" in counts) is (who == "kernel")
    assert called_off.wait(10)


def test_no_race_on_graphs_with_hubs(racing):
    """Graphs with hubs hand their rest over as before: the host never starts."""
    G = lg.generate.kronecker(14, seed=9, directed=True)
    assert not scc_race.hub_free(GPU.matrix(G, loops=False),
                                 GPU.matrix(G, transpose=True, loops=False))
    np.testing.assert_array_equal(cp.asnumpy(lg.scc(G, backend=GPU).labels), scc_labels(G))
    assert not GPU.scc_counts()["raced"]


def test_hub_free_reads_the_degrees():
    grid = lg.generate.grid(40, 40, directed=True, orientation="random", seed=1)
    star = lg.Graph.from_edges(np.zeros(500, np.int64), np.arange(1, 501), n=1000)
    for G, expected in ((grid, True), (star, False),
                        (lg.Graph.from_edges([], [], n=5, directed=True), True)):
        A, AT = GPU.matrix(G, loops=False), GPU.matrix(G, transpose=True, loops=False)
        assert scc_race.hub_free(A, AT) is expected
