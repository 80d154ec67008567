"""Device memory of one GPU call, and where the graph's arrays go for a budget: arithmetic
on sizes only (no CuPy), so that the planning is the same, and tested, on any machine.

A call of a task (``"bfs"``, ``"msf"``, ``"scc"``, ``"cc"``) on a graph of ``n`` vertices
and ``s`` stored entries holds four kinds of device arrays (a :class:`Needs`):

- the **adjacency**: what the kernels read per stored entry (column indices of the CSR and
  of its transpose, the BFS pull lists, packed or not, the MSF edge list), cached with
  the Graph;
- **edge scratch**: per-entry arrays one call makes and frees (MSF candidate lists, the SCC
  arcs gathered, the sort that orders the BFS pull lists);
- **vertex arrays**: row pointers and per-vertex state (status, labels, union-find);
- **streamed vertex arrays**: per-vertex arrays that the kernels read in order or write
  once (a BFS's frontier queues, the out-degrees beside their entries, its outputs).

:func:`plan` places a call for the bytes a budget leaves (:class:`DevicePlan`):
``"resident"`` where all of it fits; ``"managed"`` (out of core) where only the vertex
arrays fit: every allocation of :func:`managed_threshold` bytes or more (the adjacency
and the edge scratch), and the streamed vertex arrays where the budget does not hold them
beside the vertex arrays, are then CUDA managed memory, by default kept in host memory
and read by the kernels over the host link, and any allocation the budget refuses goes
there too, so the call never fails half-way; where not
even the vertex arrays fit, a ``MemoryError`` that names the bytes needed and free, before
any work. The gpu executor
(``gpu_backend.budget``) fills in the sizes from each of its rooms' working sets.

Examples
--------
>>> p = plan("bfs", Needs(adjacency=4000, edge_scratch=0, vertex=900), held=0,
...          budget=2000, n=100_000)
>>> p.mode, p.managed_from
('managed', 1600001)
>>> plan("bfs", Needs(4000, 0, 900), held=0, budget=800, n=100, what="bfs on G")
Traceback (most recent call last):
MemoryError: bfs on G needs 900 bytes of GPU memory; 800 are free (its vertex arrays, the least it runs with: its adjacency out of core, in managed memory)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RESIDENT, MANAGED = "resident", "managed"
TASKS = ("bfs", "msf", "scc", "cc")
#: The largest vertex array a task keeps in device memory is 2 words a vertex (the MSF's
#: two minkey arrays of 64-bit ids in one, the SCC's signature pairs, connected
#: components' first entries of each row); in managed mode an allocation of more than
#: this many bytes a vertex is taken to be per stored entry (a 3-D mesh's column indices
#: are 24 bytes a vertex). The BFS's queues and outputs, 2 to 3 words, are streamed.
VERTEX_ARRAY_BYTES = 16
#: ... and at least this many bytes: smaller arrays (control words, barriers, counters
#: that kernels poll or update atomically) stay in device memory.
MANAGED_FLOOR = 1 << 20
#: Scratch bytes per entry of the sort that orders the BFS pull lists hub-first
#: (``DeviceMatrix.pull_lists``): row ids, keys, the permutation and CuPy's sort buffers,
#: about six words an entry, over chunks of whole rows of about ``PULL_SORT_CHUNK``
#: entries (a longer row is a chunk of its own). Chunks of 2^26 entries held 3.2 GB of
#: scratch beside the 0.5 GB of a Kronecker 22 graph's indices (H100).
PULL_SORT_BYTES = 48
PULL_SORT_CHUNK = 1 << 20


@dataclass(frozen=True)
class Needs:
    """Device bytes of one call, by kind (module docstring)."""

    adjacency: int
    edge_scratch: int
    vertex: int
    streamed: int = 0

    @property
    def total(self) -> int:
        return self.adjacency + self.edge_scratch + self.vertex + self.streamed


@dataclass(frozen=True)
class DevicePlan:
    """Where one call's arrays live: ``mode`` (``"resident"`` or ``"managed"``), the
    :class:`Needs` it was planned for, the device bytes the Graph held already
    (``held``), the bytes the budget left (``budget``) and, in managed mode, the
    allocation size from which arrays are managed (``managed_from``; None when
    resident) and whether the streamed vertex arrays are managed too
    (``streamed_managed``: where the budget does not hold them beside the vertex arrays;
    a Kronecker 24 BFS capped to a quarter of its footprint took 62 ms with them in
    device memory, 103 ms managed, H200)."""

    task: str
    mode: str
    needs: Needs
    held: int
    budget: int
    managed_from: int | None
    streamed_managed: bool = False


def managed_threshold(n: int) -> int:
    """Allocations of at least this many bytes go to managed memory in managed mode: more
    than the largest vertex array of a graph of ``n`` vertices, and :data:`MANAGED_FLOOR`.

    Examples
    --------
    >>> managed_threshold(10) == MANAGED_FLOOR, managed_threshold(1 << 20)
    (True, 16777217)
    """
    return max(VERTEX_ARRAY_BYTES * n + 1, MANAGED_FLOOR)


def plan(task: str, needs: Needs, *, held: int, budget: int, n: int,
         what: str | None = None, held_on_device: int = 0) -> DevicePlan:
    """Place a call of ``task`` needing ``needs`` where ``budget`` bytes of device memory
    are free and the Graph holds ``held`` bytes there already (counted against its
    adjacency, which is built once), ``held_on_device`` of them in device memory (not
    managed: counted against its vertex arrays out of core, since an earlier call out
    of core keeps its scratch with the Graph, and its adjacency in managed memory).

    Raises
    ------
    MemoryError
        The vertex arrays alone exceed ``budget`` (with what the Graph holds in device
        memory); the message names ``what`` (default: the task), both numbers, and that
        nothing was allocated.

    Examples
    --------
    >>> plan("cc", Needs(100, 0, 50), held=100, budget=60, n=10).mode
    'resident'
    >>> plan("cc", Needs(100, 0, 50), held=140, budget=20, n=10, held_on_device=40).mode
    'managed'
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if (max(0, needs.adjacency - held) + needs.edge_scratch + needs.vertex + needs.streamed
            <= budget):
        return DevicePlan(task, RESIDENT, needs, held, budget, None)
    if needs.vertex > budget + held_on_device:
        raise MemoryError(f"{what or task} needs {needs.vertex - held_on_device:,} bytes of "
                          f"GPU memory; {budget:,} are free (its vertex arrays, the least it "
                          f"runs with: its adjacency out of core, in managed memory)")
    return DevicePlan(task, MANAGED, needs, held, budget, managed_threshold(n),
                      needs.vertex + needs.streamed > budget + held_on_device)


def csr_bytes(n: int, nstored: int, isize: int) -> Needs:
    """One device CSR of ``isize``-byte indices: its column indices (adjacency) and row
    pointers (vertex arrays).

    Examples
    --------
    >>> csr_bytes(3, 4, 4)
    Needs(adjacency=16, edge_scratch=0, vertex=16, streamed=0)
    """
    return Needs(nstored * isize, 0, (n + 1) * isize)


def pull_list_bytes(n: int, nstored: int, isize: int, hub_first: bool,
                    longest_row: int = 0) -> Needs:
    """The BFS pull lists of a transpose (``DeviceMatrix.pull_lists``): the row heads,
    and, ordered hub-first, a reordered copy of the column indices and its sort's scratch
    (a chunk of :data:`PULL_SORT_CHUNK` entries, or the longest row, ``longest_row``, if
    longer).

    Examples
    --------
    >>> pull_list_bytes(10, 100, 4, False)
    Needs(adjacency=0, edge_scratch=0, vertex=40, streamed=0)
    >>> pull_list_bytes(10, 100, 4, True)
    Needs(adjacency=400, edge_scratch=4960, vertex=40, streamed=0)
    >>> pull_list_bytes(10, 2**30, 4, True, longest_row=2**22).edge_scratch == 48 * 2**22 + 160
    True
    """
    if not hub_first:
        return Needs(0, 0, n * isize)
    chunk = min(nstored, max(PULL_SORT_CHUNK, longest_row))
    return Needs(nstored * isize, PULL_SORT_BYTES * chunk + 16 * n, n * isize)


def packed_fraction(indptr: np.ndarray, indices: np.ndarray, rows: int = 4096) -> float:
    """Words of the bit-packed BFS pull lists (``DeviceMatrix.packed_lists``: one word
    for each run of a row's entries within one 32-id word of a vertex bitmap) per stored
    entry of the CSR ``(indptr, indices)``, rows sorted, estimated from ``rows`` rows
    spread evenly over the matrix (every row if it has fewer): 1.0 where no two entries
    of a row share a bitmap word, 1/32 at best.

    Examples
    --------
    >>> packed_fraction(np.array([0, 3, 4]), np.array([1, 2, 40, 7]))
    0.75
    """
    n = indptr.size - 1
    if n <= 0:
        return 1.0
    v = np.unique(np.linspace(0, n - 1, min(n, rows)).astype(np.int64))
    lengths = (indptr[v + 1] - indptr[v]).astype(np.int64)
    total = int(lengths.sum())
    if total == 0:
        return 1.0
    ends = np.cumsum(lengths)
    at = np.repeat(indptr[v].astype(np.int64) - (ends - lengths), lengths) + np.arange(total)
    word = indices[at] >> 5
    first = np.ones(total, dtype=bool)
    first[1:] = word[1:] != word[:-1]
    first[ends[:-1][lengths[1:] > 0]] = True           # each row's first entry
    return float(first.sum()) / total


def packed_list_bytes(n: int, nstored: int, isize: int, fraction: float) -> Needs:
    """The bit-packed BFS pull lists of a transpose of ``fraction`` words an entry
    (:func:`packed_fraction`): 8 bytes a word and the row pointers, and the scratch of
    their build (a flag and two ``isize``-byte words an entry).

    Examples
    --------
    >>> packed_list_bytes(10, 100, 4, 0.25)
    Needs(adjacency=200, edge_scratch=900, vertex=44, streamed=0)
    """
    return Needs(8 * round(nstored * fraction), (1 + 2 * isize) * nstored, (n + 1) * isize)


def add(*parts: Needs) -> Needs:
    """The sum of several :class:`Needs`.

    Examples
    --------
    >>> add(Needs(1, 2, 3), Needs(10, 20, 30, 40))
    Needs(adjacency=11, edge_scratch=22, vertex=33, streamed=40)
    """
    return Needs(sum(p.adjacency for p in parts), sum(p.edge_scratch for p in parts),
                 sum(p.vertex for p in parts), sum(p.streamed for p in parts))
