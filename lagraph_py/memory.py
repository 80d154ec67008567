"""Host memory: what a build, a Graph and each algorithm take, and a check that refuses up
front, with a ``MemoryError``, what would not fit, instead of letting the operating
system's out-of-memory killer end the process without a word.

*Available* memory (:func:`available`) is the kernel's estimate of what new allocations
can take without swapping (``MemAvailable`` in ``/proc/meminfo``), less where a cgroup
limits the process (the room left under ``memory.max``, or ``memory.limit_in_bytes``),
capped by :data:`LIMIT_VARIABLE` when set. Where none of these can be read (not Linux),
nothing is refused.

*Estimates* are the peak bytes a stage allocates beyond what exists when it starts (its
inputs, the Graph), from the sizes of the arrays it makes; they depend on the path that
runs: ``"compiled"`` (the cpu executor's compiled loops), ``"scipy"`` (scipy's routines,
while those loops are not compiled), ``"reference"`` (python-graphblas, the reference
executor) and ``"graphblas"`` (SuiteSparse's build, the build's path while the loops are
not compiled). ``tests/test_memory.py`` checks each against the measured peak on small
graphs, ``bench/memory.py`` measures them at scale.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

#: Environment variable capping the memory a stage may take, in bytes (a number, with an
#: optional suffix K, M, G or T for powers of 1024): for tests, or to leave room for
#: other work on a shared machine.
LIMIT_VARIABLE = "LAGRAPH_PY_MEMORY_LIMIT"
#: Estimates below this many bytes are not checked: reading ``/proc`` (about 20 µs) would
#: cost more than a small call takes, and no machine worth running on is that close to
#: its end. With :data:`LIMIT_VARIABLE` set every estimate is checked.
CHECK_FLOOR = 1 << 26

_MEMINFO = Path("/proc/meminfo")
_CGROUP_FILES = ((Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")),
                 (Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                  Path("/sys/fs/cgroup/memory/memory.usage_in_bytes")))
_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def limit() -> int | None:
    """The cap that :data:`LIMIT_VARIABLE` sets, in bytes, or None.

    Examples
    --------
    >>> os.environ[LIMIT_VARIABLE] = "1.5G"
    >>> limit()
    1610612736
    >>> del os.environ[LIMIT_VARIABLE]
    """
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not text:
        return None
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([KMGT]?)i?B?", text, re.IGNORECASE)
    if match is None:
        raise ValueError(f"{LIMIT_VARIABLE} must be a number of bytes (suffix K, M, G or "
                         f"T allowed), got {text!r}")
    return int(float(match.group(1)) * _SUFFIXES[match.group(2).upper()])


def available() -> int | None:
    """Bytes that new allocations can take now: ``MemAvailable``, less under a cgroup
    limit, capped by :data:`LIMIT_VARIABLE`; None where nothing says.

    Examples
    --------
    >>> available() is None or available() > 0
    True
    """
    known = [x for x in (_meminfo_available(), _cgroup_room(), limit()) if x is not None]
    return min(known) if known else None


def _meminfo_available() -> int | None:
    try:
        text = _MEMINFO.read_text()
    except OSError:
        return None
    match = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    return None if match is None else int(match.group(1)) * 1024


def _cgroup_room() -> int | None:
    for limit_file, usage_file in _CGROUP_FILES:
        try:
            cap, used = limit_file.read_text().strip(), usage_file.read_text().strip()
        except OSError:
            continue
        if cap.isdigit() and used.isdigit() and int(cap) < 1 << 60:   # else: no limit
            return max(0, int(cap) - int(used))
    return None


def fits(nbytes: int) -> bool:
    """Whether ``nbytes`` can be allocated now (see :func:`available`)."""
    if nbytes < CHECK_FLOOR and LIMIT_VARIABLE not in os.environ:
        return True
    free = available()
    return free is None or nbytes <= free


def ensure(nbytes: int, what: str) -> None:
    """Raise MemoryError naming ``what``, the bytes it needs and the bytes available,
    unless ``nbytes`` fit (called before a stage allocates anything).

    Examples
    --------
    >>> ensure(1024, "a small array")
    >>> os.environ[LIMIT_VARIABLE] = "100"
    >>> ensure(1024, "a small array")
    Traceback (most recent call last):
    MemoryError: a small array needs 1,024 bytes of memory; 100 are available (LAGRAPH_PY_MEMORY_LIMIT caps it)
    >>> del os.environ[LIMIT_VARIABLE]
    """
    if fits(nbytes):
        return
    free = available()
    capped = limit() is not None and free == limit()
    raise MemoryError(f"{what} needs {nbytes:,} bytes of memory; {free:,} are available"
                      + (f" ({LIMIT_VARIABLE} caps it)" if capped else ""))


# ---------------------------------------------------------------------- estimates
def graph_bytes(n: int, nstored: int, indptr_type, index_type, weights) -> int:
    """Bytes of a Graph's arrays: ``n + 1`` row pointers, ``nstored`` column indices and
    weights (``weights``: an array, a dtype, or None)."""
    wsize = 0 if weights is None else np.dtype(getattr(weights, "dtype", weights)).itemsize
    return ((n + 1) * np.dtype(indptr_type).itemsize
            + nstored * (np.dtype(index_type).itemsize + wsize))


def build_bytes(n: int, m: int, directed: bool, wsize: int, path: str) -> int:
    """Peak bytes of building a Graph of ``n`` vertices from ``m`` edges with weights of
    ``wsize`` bytes (0: unweighted), beyond the edge arrays given.

    ``"compiled"`` (:func:`~lagraph_py.cpu_steps.csr.build_csr`): the entries, both ends
    of an undirected edge, before repeats merge (ids of 4 bytes, 8 past ``2**31``
    vertices, and weights), ``n + 2`` offsets, ``n`` row lengths and the final row
    pointers. ``"graphblas"`` (``Matrix.from_coo``, ``A + Aᵀ``, the export): measured,
    per edge, 8 bytes for each of the two 64-bit copies of the ids, SuiteSparse's
    sort (24 + w) and the matrix (8 + w); an undirected build holds the transpose and
    the sum besides (2 (8 + w) per edge) at its peak, then the arrays of the Graph.
    """
    isize = 4 if n <= np.iinfo(np.int32).max else 8
    entries = m if directed else 2 * m
    if path == "compiled":
        return entries * (isize + wsize) + 8 * (n + 2) + 8 * n + 8 * (n + 1)
    if path == "graphblas":
        per_edge = 16 + (24 + wsize) + (8 + wsize)
        if not directed:
            per_edge += 2 * (8 + wsize)
        return m * per_edge + entries * (isize + wsize) + 32 * (n + 1)
    raise ValueError(f"unknown build path {path!r}")
