"""Collectives between the ranks of an MPI job, with time-outs and shared failure.

Every collective the distributed executor runs goes through one :class:`Exchange`, which
starts it non-blocking and waits for it by polling: first spinning on ``MPI_Test`` for
:data:`SPIN_S` (:data:`SPIN_OWN_CORE_S` where the host has a core for each of its ranks)
plus the time its bytes take at :data:`SPIN_RATE` (an MPI library moves a large message
a piece per test, so sleeping while data flows would stall it), then
sleeping between tests (growing to :data:`SLEEP_MAX_S`), so a rank that waits for a
slower one gives its core away. While it waits it also looks for a
failure note from another rank:

- a rank whose own code raises (a malformed file, a part that does not fit in memory)
  sends the error's type and message to every other rank (:meth:`Exchange.guard`) and
  raises it; every rank waiting in a collective raises :class:`PeerError` naming it;
- a collective that does not complete within :func:`timeout` seconds (a rank that died
  without a word, or hangs) raises :class:`CollectiveTimeout` on the ranks waiting.

Either way the communicator is unusable afterwards (a collective may be half done):
later collectives raise at once, and when the process exits the job is aborted
(``MPI_Abort``), so that no rank hangs in ``MPI_Finalize`` waiting for the others.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import sys
import time

import numpy as np
from mpi4py import MPI

#: Environment variable: seconds a rank waits for a collective before giving up.
TIMEOUT_VARIABLE = "LAGRAPH_PY_MPI_TIMEOUT"
#: Its default: the longest local work between two collectives (building a part of a
#: scale-26 graph on one core) takes minutes, not ten.
DEFAULT_TIMEOUT_S = 600.0
#: A waiting rank tests its request this long before it starts sleeping between tests:
#: most collectives of a BFS level complete within it on ranks that have a core each.
SPIN_S = 1e-3
#: ... or this long where its host has a core for each of its ranks: a rank that sleeps
#: holds up every collective step that waits for it, and a collective after a level
#: whose work differs between ranks by milliseconds waits that long (Kronecker 24 BFS
#: on 16 ranks of a 16-core host: the levels' collectives 48 of 95 ms).
SPIN_OWN_CORE_S = 0.1
#: ... plus one second for every SPIN_RATE bytes it sends and receives. Measured on two
#: ranks of one host (MPICH): an all-to-all of 128 MB took 5 s when the waiting rank
#: slept between tests, 0.3 s spinning.
SPIN_RATE = 2.5e8
#: The sleep between tests grows by half each time, from SLEEP_MIN_S to SLEEP_MAX_S.
SLEEP_MIN_S, SLEEP_MAX_S = 2e-5, 1e-3
#: A failed rank waits this long before aborting the job, so that every rank has told
#: its error before the job is torn down.
ABORT_GRACE_S = 0.5
#: Tag of failure notes, on a communicator of their own.
_FAILURE_TAG = 77

_OPS = {"sum": MPI.SUM, "min": MPI.MIN, "max": MPI.MAX}
_failed = False                  # this process saw a failure: abort the job at exit


class DistributedError(RuntimeError):
    """A distributed computation failed; the message says where and why."""


class PeerError(DistributedError):
    """Another rank failed (its error's type and message are in this one's)."""


class CollectiveTimeout(DistributedError):
    """A collective did not complete in time: a rank died, hangs or fell far behind."""


def timeout() -> float:
    """Seconds a collective may wait: :data:`TIMEOUT_VARIABLE`, else :data:`DEFAULT_TIMEOUT_S`."""
    text = os.environ.get(TIMEOUT_VARIABLE)
    try:
        value = float(text) if text else DEFAULT_TIMEOUT_S
    except ValueError:
        raise ValueError(f"{TIMEOUT_VARIABLE} must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise ValueError(f"{TIMEOUT_VARIABLE} must be positive, got {text!r}")
    return value


class Exchange:
    """The collectives of one MPI communicator on numpy arrays (see the module text).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm, optional
        Default ``MPI.COMM_WORLD``; the exchange works on a duplicate of it.

    Examples
    --------
    >>> ex = Exchange()                       # doctest: +SKIP
    >>> ex.allreduce(np.array([ex.rank]), "sum")   # doctest: +SKIP
    array([6])
    """

    def __init__(self, comm=None):
        comm = MPI.COMM_WORLD if comm is None else comm
        self.comm = comm.Dup()
        self._notes = comm.Dup()                 # failure notes only
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        self.timeout = timeout()
        host = self.comm.Split_type(MPI.COMM_TYPE_SHARED)
        self.spin_s = SPIN_OWN_CORE_S if host.Get_size() <= (os.cpu_count() or 1) else SPIN_S
        host.Free()
        self.broken: str | None = None           # why the communicator is unusable
        self.seconds = 0.0                       # spent in collectives, from the start

    # ------------------------------------------------------------------ collectives
    def allreduce(self, x: np.ndarray, op: str) -> np.ndarray:
        """Element-wise ``op`` ("sum", "min", "max") of ``x`` over the ranks (a new array)."""
        x = np.ascontiguousarray(x)
        out = np.empty_like(x)
        self._wait([self.comm.Iallreduce(x, out, _OPS[op])], f"allreduce({op})",
                   2 * x.nbytes)
        return out

    def allgather(self, arrays: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
        """Every rank's ``arrays`` (the same number on each, of one length per rank),
        concatenated in rank order; and the length each rank gave."""
        counts = self._counts(np.array([arrays[0].size], np.int64), "allgather")
        displs = _displacements(counts)
        outs = [np.empty(int(counts.sum()), a.dtype) for a in arrays]
        requests = [self.comm.Iallgatherv(np.ascontiguousarray(a), [out, (counts, displs)])
                    for a, out in zip(arrays, outs)]
        self._wait(requests, "allgather", sum(out.nbytes for out in outs))
        return outs, counts

    def alltoallv(self, arrays: list[np.ndarray], counts: np.ndarray
                  ) -> tuple[list[np.ndarray], np.ndarray]:
        """Send ``arrays[j][displ(r) : displ(r) + counts[r]]`` to rank ``r`` (arrays ordered
        by destination); return what each array received, in source rank order, and the
        count received from each rank."""
        counts = np.asarray(counts, np.int64)
        received = self.arriving(counts)
        sdispl, rdispl = _displacements(counts), _displacements(received)
        outs = [np.empty(int(received.sum()), a.dtype) for a in arrays]
        requests = [self.comm.Ialltoallv([np.ascontiguousarray(a), (counts, sdispl)],
                                         [out, (received, rdispl)])
                    for a, out in zip(arrays, outs)]
        self._wait(requests, "alltoallv",
                   sum(a.nbytes for a in arrays) + sum(out.nbytes for out in outs))
        return outs, received

    def arriving(self, counts: np.ndarray) -> np.ndarray:
        """How much each rank sends this one, given how much this one sends each rank."""
        received = np.empty(self.size, np.int64)
        self._wait([self.comm.Ialltoall(np.asarray(counts, np.int64), received)],
                   "alltoall(counts)")
        return received

    def exscan(self, value: int) -> int:
        """The sum of ``value`` over the ranks before this one (0 on rank 0)."""
        counts = self._counts(np.array([value], np.int64), "exscan")
        return int(counts[:self.rank].sum())

    def _counts(self, mine: np.ndarray, what: str) -> np.ndarray:
        out = np.empty(self.size * mine.size, mine.dtype)
        self._wait([self.comm.Iallgather(mine, out)], what)
        return out

    # ------------------------------------------------------------------ failure
    @contextlib.contextmanager
    def guard(self):
        """Run the body; if it raises (other than a failure reported by this exchange),
        tell every other rank, then re-raise: those waiting in a collective raise too."""
        try:
            yield
        except DistributedError:
            raise
        except BaseException as exc:
            self.fail(exc)
            raise

    def fail(self, exc: BaseException) -> None:
        """Send every other rank a note of ``exc`` and mark the communicator unusable."""
        global _failed
        _failed = True
        if self.broken is not None:
            return
        self.broken = f"rank {self.rank} failed: {type(exc).__name__}: {exc}"
        note = pickle.dumps(self.broken)
        for r in range(self.size):
            if r != self.rank:
                self._notes.Isend([note, MPI.BYTE], dest=r, tag=_FAILURE_TAG)

    def _wait(self, requests: list, what: str, nbytes: int = 0) -> None:
        """Wait for ``requests`` moving ``nbytes`` in all (see the module text), or raise."""
        if self.broken is not None:
            raise DistributedError(f"{what}: the ranks cannot communicate any more "
                                   f"({self.broken})")
        start = time.monotonic()
        pause, spin = SLEEP_MIN_S, self.spin_s + nbytes / SPIN_RATE
        while not MPI.Request.Testall(requests):
            waited = time.monotonic() - start
            if waited < spin:
                continue
            status = MPI.Status()
            if self._notes.Iprobe(source=MPI.ANY_SOURCE, tag=_FAILURE_TAG, status=status):
                note = bytearray(status.Get_count(MPI.BYTE))
                self._notes.Recv([note, MPI.BYTE], source=status.Get_source(),
                                 tag=_FAILURE_TAG)
                self._break(PeerError(f"{what} on rank {self.rank}: "
                                      f"{pickle.loads(note)}"))
            if waited > self.timeout:
                self._break(CollectiveTimeout(
                    f"{what} on rank {self.rank}: no answer from every rank within "
                    f"{self.timeout:g} s ({TIMEOUT_VARIABLE}); a rank died, hangs or "
                    "runs far behind"))
            time.sleep(pause)
            pause = min(SLEEP_MAX_S, pause * 1.5)
        self.seconds += time.monotonic() - start

    def _break(self, error: DistributedError):
        global _failed
        _failed = True
        self.broken = str(error)
        raise error


def _abort_if_failed() -> None:
    """At exit after a failure: abort the job, so no rank waits in ``MPI_Finalize``."""
    if _failed and MPI.Is_initialized() and not MPI.Is_finalized():
        sys.stdout.flush()
        sys.stderr.flush()
        time.sleep(ABORT_GRACE_S)
        MPI.COMM_WORLD.Abort(1)


atexit.register(_abort_if_failed)      # runs before mpi4py's own MPI_Finalize


def _displacements(counts: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
