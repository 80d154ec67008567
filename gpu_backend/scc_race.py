"""The race of host and device for the SCC labels of a graph without hubs.

On a graph without hubs (a road map, a lattice, a chain of components) the signature
sweeps of :meth:`SccSteps.scc_signatures <gpu_backend.scc_steps.SccSteps.scc_signatures>`
need as many sweeps as labels travel, and the host's Tarjan labels the whole graph in time
linear in its size. Which one finishes first depends on the graph's depth, which nothing
cheap foretells: a swept mesh or a uniform random graph finishes on the device within the
first round's time budget, a randomly oriented grid soon after it, a chain of a thousand
cycles much later; handing the rest to the host at the budget costs the grid the budget,
the copy and the host's whole time.

So the host starts on the whole graph as the call starts, before the trim, in a worker
thread (:func:`~lagraph_py.cpu_steps.scc.strong_components_until`, compiled, without the
GIL), and a round past its budget sweeps on, reading a word of pinned host memory after
each sweep. The first to finish gives the labels: the host sets the word, and the kernel
stops and hands over (or is not launched at all where the host finished first), and
every vertex takes the host's label, copied to the device in one piece; or the kernel
finishes, and the word calls the host off (it stops within a few thousand vertices; the
call does not wait for it). Both label each component by its smallest id, so the answer
is the same whoever wins. (H200, whole calls, against handing over at the budget: a
randomly oriented 1000 x 1000 grid 32.1 against 52.9 ms, the cpu executor 46.3; chains of
shuffled cycles, 3000 x 300 158 against 184 ms, 1000 x 1000 171 against 183; a swept
64^3 mesh, which the device finishes within the budget, 6.76 against 6.61. Starting the
host only once the first round ran past its budget cost the chains that budget, 1-6 ms.
``docs/gpu.md`` has the table.)
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from lagraph_py.algorithms.scc import hub_degrees
from lagraph_py.cpu_steps.scc import pearce_work, strong_components_until

from .storage import pinned_words

#: One worker: a race called off stops within a few thousand vertices, before the next
#: one's host side needs the worker.
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lagraph_py-scc-host")


def hub_free(A, AT) -> bool:
    """Whether the graph of ``A`` (its transpose ``AT``) has no hubs: the geometric mean
    of its largest out- and in-degree below :data:`~lagraph_py.algorithms.scc.HUB` times
    its mean degree (:func:`~lagraph_py.algorithms.scc.hub_degrees`, read off the
    matrices' host degrees). On graphs with hubs the signatures leave few vertices to the
    host, and a race would set the host's whole Tarjan against them."""
    return not hub_degrees(A.max_row_degree, AT.max_row_degree, A.nstored, A.n)


class Race:
    """One race over the host CSR ``indptr, indices`` (the whole graph): :attr:`stop` is
    the word the kernel reads (:attr:`stop_pointer`), set by whichever side finishes
    first."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray):
        self.stop = pinned_words(1, np.uint32)
        self._csr = (indptr, indices)
        self._work = pearce_work(indptr)        # (made by the calling thread)
        self._host: Future | None = None

    @property
    def stop_pointer(self) -> int:
        """The stop word's address, which the device reads."""
        return self.stop.ctypes.data

    def start_host(self) -> None:
        """Start the host's labelling in the worker thread."""
        self._host = _WORKER.submit(self._label_on_host)

    def _label_on_host(self) -> np.ndarray | None:
        labels = strong_components_until(*self._csr, self.stop, self._work)
        if labels is not None:
            self.stop[0] = 1
        return labels

    def host_finished(self) -> bool:
        """Whether the host has its labels (without waiting)."""
        return self._host.done() and self._host.result() is not None

    def host_labels(self) -> np.ndarray:
        """The host's labels of every vertex (waiting for the worker)."""
        return self._host.result()

    def call_off(self) -> None:
        """The device has finished: stop the host's labelling, if running (not waited for)."""
        self.stop[0] = 1
