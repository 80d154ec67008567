"""Matrix Market files and edge lists read by byte ranges: each rank parses its share.

The data section is cut into ``size`` equal byte ranges; each rank moves its range's
ends forward to the next line start and parses those whole lines with the scanner of
:mod:`lagraph_py.io` (the same checks and messages, with the right line numbers: the
ranks count the lines before theirs). The edges then go to the ranks holding their
rows. Checks that look at the whole file (the entry count, repeated entries: each
checked on the rank of the pair's row) run after that. A malformed file raises on every
rank. A gzip file cannot be cut by byte ranges: decompress it first.
"""

from __future__ import annotations

import io
import os

import numpy as np

from lagraph_py import io as lgio
from lagraph_py._checks import as_count

from .exchange import Exchange
from .graph import DistGraph, owner, partition, world

_PROBE = 1 << 16          # bytes read at a time when looking for the next line start


def read_mtx(path, *, exchange: Exchange | None = None) -> DistGraph:
    """Read a Matrix Market coordinate file on every rank together, each rank parsing
    one byte range: as :func:`lagraph_py.read_mtx` (same rules and errors)."""
    ex = exchange or world()
    with ex.guard():
        _refuse_gzip(path)
        with open(path, "rb") as f:
            h = lgio.read_header(f, path)
            start = f.tell()
    data, first_line = _my_lines(path, start, ex, h.size_line + 1)
    with ex.guard():
        rows, cols, values, lines = lgio.read_entries(io.BytesIO(data), path, h, first_line,
                                                      whole=False)
    total = int(ex.allreduce(np.array([rows.size], np.int64), "sum")[0])
    if total != h.nnz:
        raise lgio.FileFormatError(f"{os.fspath(path)}: the file holds {total} entries; the "
                                   f"size line (line {h.size_line}) declares {h.nnz}")
    with ex.guard():
        src, dst, w, directed = lgio.entry_edges(path, h, rows, cols, values, lines)
    _check_repeats(ex, path, h, rows, cols, lines)
    return DistGraph.from_edges(src, dst, w, n=h.nrows, directed=directed, exchange=ex)


def read_edgelist(path, directed: bool = True, n: int | None = None, *,
                  exchange: Exchange | None = None) -> DistGraph:
    """Read a SNAP-style edge list on every rank together, each rank parsing one byte
    range: as :func:`lagraph_py.read_edgelist` (same rules and errors)."""
    ex = exchange or world()
    with ex.guard():
        _refuse_gzip(path)
    data, first_line = _my_lines(path, 0, ex, 1)
    with ex.guard():
        src, dst, w, lines, ncols = lgio.edge_lines(io.BytesIO(data), path, first_line)
    kinds = ex.allreduce(np.array([ncols == 2, ncols == 3, w is not None and w.dtype.kind == "f"],
                                  np.int64), "max")
    if kinds[0] and kinds[1]:
        raise lgio.FileFormatError(f"{os.fspath(path)}: some lines hold 2 numbers and "
                                   "others 3; every edge line must have the same count")
    if kinds[1] and w is None:                     # a rank without lines: no weights yet
        w = np.empty(0, np.int64)
    if kinds[2]:
        w = w.astype(np.float64)                   # as one process concatenates them
    if n is not None:
        n = as_count(n, "n")
        with ex.guard():
            lgio._require(path, lines, (src < n) & (dst < n),
                          lambda k: f"edge ({src[k]}, {dst[k]}) names a vertex >= n = {n}")
    return DistGraph.from_edges(src, dst, w, n=n, directed=directed, exchange=ex)


def _refuse_gzip(path) -> None:
    if os.fspath(path).endswith(".gz"):
        raise ValueError(f"{os.fspath(path)}: a gzip file cannot be read by byte ranges; "
                         "decompress it first (gunzip), or read it on one process")


def _my_lines(path, start: int, ex: Exchange, first_line: int) -> tuple[bytes, int]:
    """This rank's whole lines of the bytes ``start ..`` of ``path`` (cut into equal
    ranges moved to line starts), newline-terminated, and the number of its first line
    (the data section's first line being ``first_line``)."""
    with ex.guard(), open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        cuts = [start + (size - start) * r // ex.size for r in (ex.rank, ex.rank + 1)]
        begin, end = (_line_start(f, x, start, size) for x in cuts)
        f.seek(begin)
        data = f.read(end - begin)
    first = first_line + ex.exscan(data.count(b"\n"))
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data, first


def _line_start(f, x: int, start: int, size: int) -> int:
    """The first line start at or after byte ``x`` (``start`` is one; ``size`` ends)."""
    if x <= start or x >= size:
        return min(max(x, start), size)
    f.seek(x - 1)
    pos = x - 1
    while chunk := f.read(_PROBE):
        at = chunk.find(b"\n")
        if at >= 0:
            return pos + at + 1
        pos += len(chunk)
    return size


def _check_repeats(ex: Exchange, path, h, rows, cols, lines) -> None:
    """Each entry (0-based ``rows``, ``cols``) to the rank of its pair's smaller index
    (its row in a general file), which raises naming the first repeat it holds."""
    key = rows if h.symmetry == "general" else np.minimum(rows, cols)
    bounds = partition(h.nrows, ex.size)
    to = owner(bounds, key)
    order = np.argsort(to, kind="stable")
    (r, c, at), _ = ex.alltoallv([rows[order], cols[order], lines[order]],
                                 np.bincount(to, minlength=ex.size))
    with ex.guard():
        first = np.argsort(at, kind="stable")                  # file order
        lgio.check_repeats(path, h, r[first] + 1, c[first] + 1, at[first])
