"""Compiled loops (numba) that build a Graph's CSR arrays: a counting sort of an edge list
by row, straight into the arrays the Graph keeps, and the transpose of a CSR.

A build (:func:`build_csr`) holds, besides the caller's edge list, only what the Graph
keeps plus one array of ``n + 2`` int64 offsets and one of ``n`` int64 row lengths:

1. *Count* the entries of each row (both ends of an undirected edge, a self-loop once).
2. *Scatter* every edge into its row, in input order, within arrays sized for every entry
   (an undirected edge list is mirrored here, never materialized twice): the offsets,
   shifted by one row, serve as the rows' cursors and end up as the row pointers.
3. *Sort* each row by column (rows split over the cores in blocks of about equal entries),
   merging repeated columns into one entry of the lightest weight, and count the
   self-loops. A row already in order is only read; a short one is sorted by insertion.
4. *Compact*: where entries were merged, rows move left over the gaps (in place), and the
   arrays shrink to the entries kept (``ndarray.resize``: the allocator trims the block
   in place).

Ids and weights are read where the caller gave them: signed ids, checked non-negative
beforehand, are seen as unsigned of their width, and the scatter moves weights as raw
bits of their width, so these loops are compiled for two id types and three weight widths
(None, 4 and 8 bytes); the sort compares weights in their own type (int32, int64,
float32, float64).

:func:`transpose_csr` is one more counting sort, by column: rows scanned in order leave
each column's entries sorted.

The scatter is sequential (random writes into rows; a parallel one would need a cursor
per row and per thread, ``8 n`` bytes each); counting is too, and costs a fraction of
it. Measured on Kronecker graphs with ``bench/memory.py``.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from ..cpu import as_unsigned

#: Ranges of at most this many entries are sorted by insertion.
INSERTION_ROW = 32
#: Row blocks per thread in the sort (balance for skewed degrees).
BLOCKS_PER_THREAD = 8

_NO_WEIGHTS = None


@njit(cache=True)
def row_blocks(indptr, nblocks):
    """Row ranges ``[bounds[b], bounds[b + 1])`` holding about equal numbers of entries."""
    n = indptr.size - 1
    bounds = np.empty(nblocks + 1, np.int64)
    nnz = indptr[n]
    for b in range(nblocks + 1):
        bounds[b] = np.searchsorted(indptr[:n], b * nnz // nblocks)
    bounds[nblocks] = n
    return bounds


@njit(cache=True)
def _count(src, dst, mirror, offsets):
    """``offsets[u + 2]`` += entries of row ``u``; then the prefix sums, so that
    ``offsets[u + 1]`` is where row ``u`` starts."""
    for k in range(src.size):
        offsets[src[k] + 2] += 1
        if mirror and src[k] != dst[k]:
            offsets[dst[k] + 2] += 1
    for u in range(2, offsets.size):
        offsets[u] += offsets[u - 1]


@njit(cache=True)
def _scatter(src, dst, bits, mirror, offsets, indices, out_bits):
    """Put every edge into its row at the row's cursor ``offsets[u + 1]``, which moves on;
    at the end ``offsets[u + 1]`` is the end of row ``u`` and ``offsets[:n + 1]`` the row
    pointers. ``bits``: the weights' raw bits (None: unweighted)."""
    for k in range(src.size):
        u, v = src[k], dst[k]
        p = offsets[u + 1]
        offsets[u + 1] = p + 1
        indices[p] = v
        if bits is not None:
            out_bits[p] = bits[k]
        if mirror and u != v:
            p = offsets[v + 1]
            offsets[v + 1] = p + 1
            indices[p] = u
            if bits is not None:
                out_bits[p] = bits[k]


@njit(cache=True, inline="always")
def _order(w, p):
    """An unsigned key of weight ``p`` that orders as the weights do: of a signed
    integer its bits with the sign bit flipped; of a real its bits flipped whole when
    negative, else with the sign bit set (-0.0 sorts before 0.0)."""
    bits, sign, real = w
    x = bits[p]
    if not real:
        return x ^ sign
    if x & sign:
        return ~x
    return x | sign


@njit(cache=True, inline="always")
def _before(indices, w, i, j):
    """Whether entry ``i`` comes before entry ``j``: by column, then by weight."""
    if indices[i] != indices[j]:
        return indices[i] < indices[j]
    if w is None:
        return False
    return _order(w, i) < _order(w, j)


@njit(cache=True, inline="always")
def _swap(indices, w, i, j):
    indices[i], indices[j] = indices[j], indices[i]
    if w is not None:
        bits = w[0]
        bits[i], bits[j] = bits[j], bits[i]


@njit(cache=True)
def _insertion_sort(indices, w, lo, hi):
    """Sort entries ``lo .. hi-1`` by (column, weight) in place."""
    for i in range(lo + 1, hi):
        j = i
        while j > lo and _before(indices, w, j, j - 1):
            _swap(indices, w, j, j - 1)
            j -= 1


@njit(cache=True)
def _sift_down(indices, w, lo, root, size):
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and _before(indices, w, lo + child, lo + child + 1):
            child += 1
        if not _before(indices, w, lo + root, lo + child):
            return
        _swap(indices, w, lo + root, lo + child)
        root = child


@njit(cache=True)
def _heap_sort(indices, w, lo, hi):
    """Sort entries ``lo .. hi-1`` by (column, weight) in place, in ``O(k log k)``."""
    size = hi - lo
    for root in range(size // 2 - 1, -1, -1):
        _sift_down(indices, w, lo, root, size)
    for end in range(size - 1, 0, -1):
        _swap(indices, w, lo, lo + end)
        _sift_down(indices, w, lo, 0, end)


@njit(cache=True)
def _sort_entries(indices, w, lo, hi):
    """Sort entries ``lo .. hi-1`` by (column, weight) in place: introsort (quicksort
    with a median-of-three pivot; ranges of at most :data:`INSERTION_ROW` entries by
    insertion; heapsort past ``2 log2`` levels of partitions, so never quadratic)."""
    limit = 2 * int(np.log2(hi - lo + 1))
    stack = np.empty((64, 3), np.int64)      # the larger part waits: depth <= log2
    stack[0, 0], stack[0, 1], stack[0, 2] = lo, hi, 0
    top = 1
    while top:
        top -= 1
        a, b, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while b - a > INSERTION_ROW:
            if depth > limit:
                _heap_sort(indices, w, a, b)
                a = b
                break
            depth += 1
            mid = a + (b - a) // 2           # median of three to a, the pivot
            if _before(indices, w, mid, a):
                _swap(indices, w, mid, a)
            if _before(indices, w, b - 1, a):
                _swap(indices, w, b - 1, a)
            if _before(indices, w, b - 1, mid):
                _swap(indices, w, b - 1, mid)
            _swap(indices, w, a, mid)        # a: the median
            i, j = a, b
            while True:                      # Hoare: [a+1, j] <= pivot <= [j+1, b)
                i += 1
                while i < b and _before(indices, w, i, a):
                    i += 1
                j -= 1
                while _before(indices, w, a, j):
                    j -= 1
                if i >= j:
                    break
                _swap(indices, w, i, j)
            _swap(indices, w, a, j)          # the pivot at j: [a, j) and [j+1, b) left
            if j - a < b - j - 1:
                stack[top, 0], stack[top, 1], stack[top, 2] = j + 1, b, depth
                b = j
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = a, j, depth
                a = j + 1
            top += 1
        _insertion_sort(indices, w, a, b)


@njit(cache=True)
def _sort_row(indices, w, lo, hi):
    """Sort row entries ``lo .. hi-1`` by column, the repeats of a column merged into its
    first entry with the lightest weight, kept from ``lo`` on; return how many are kept."""
    ordered = True
    for i in range(lo + 1, hi):
        if indices[i] <= indices[i - 1]:
            ordered = False
            break
    if ordered:
        return hi - lo
    _sort_entries(indices, w, lo, hi)
    kept = lo
    for i in range(lo + 1, hi):              # sorted by weight too: the first is lightest
        if indices[i] != indices[kept]:
            kept += 1
            indices[kept] = indices[i]
            if w is not None:
                w[0][kept] = w[0][i]
    return kept + 1 - lo


@njit(cache=True)
def _sort_range(indptr, indices, w, first, last, kept):
    """:func:`_sort_row` on rows ``first .. last-1``; ``kept[r]``: the entries row ``r``
    keeps. Returns the self-loops kept."""
    loops = 0
    for r in range(first, last):
        lo = indptr[r]
        k = _sort_row(indices, w, lo, indptr[r + 1])
        kept[r] = k
        for i in range(lo, lo + k):          # (a sorted row: stop past the diagonal)
            if indices[i] >= r:
                loops += indices[i] == r
                break
    return loops


@njit(cache=True, parallel=True)
def _sort_rows(indptr, indices, w, blocks, kept):
    """:func:`_sort_range` on every block of rows, over the cores; returns the
    self-loops kept."""
    nblocks = blocks.size - 1
    loops = np.zeros(nblocks, np.int64)
    for b in prange(nblocks):
        loops[b] = _sort_range(indptr, indices, w, blocks[b], blocks[b + 1], kept)
    return loops.sum()


@njit(cache=True)
def _compact(indptr, indices, bits, kept):
    """Move each row's kept entries left over the gaps before them; ``indptr`` becomes
    the new row pointers. Returns the entries kept."""
    n = kept.size
    pos = 0
    for r in range(n):
        start = indptr[r]
        indptr[r] = pos
        for i in range(kept[r]):
            indices[pos + i] = indices[start + i]
            if bits is not None:
                bits[pos + i] = bits[start + i]
        pos += kept[r]
    indptr[n] = pos
    return pos


@njit(cache=True)
def _transpose(indptr, indices, bits, offsets, tindices, tbits):
    """Counting sort of the entries by column: ``tindices`` (and ``tbits``, the weights'
    raw bits, unless None) become the rows of the transpose, ``offsets[:n + 1]`` (``n + 2``
    zeros on entry) its row pointers."""
    n = indptr.size - 1
    for p in range(indptr[n]):
        offsets[indices[p] + 2] += 1
    for u in range(2, offsets.size):
        offsets[u] += offsets[u - 1]
    for r in range(n):
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p] + 1
            q = offsets[c]
            offsets[c] = q + 1
            tindices[q] = r
            if bits is not None:
                tbits[q] = bits[p]


def _read(a: np.ndarray | None) -> np.ndarray | None:
    """``a`` seen as read-only unsigned integers of its width (no copy): the loops are
    compiled once for the caller's arrays and the Graph's own, which are read-only."""
    if a is None:
        return None
    (view,) = as_unsigned(a)
    view.flags.writeable = False
    return view


def _bits(weights: np.ndarray | None) -> np.ndarray | None:
    """The raw bits of ``weights`` (written to)."""
    return None if weights is None else as_unsigned(weights)[0]


def _keyed(weights: np.ndarray | None) -> tuple | None:
    """What the sort reads of the weights: their raw bits, the sign bit and whether
    they are reals (see :func:`_order`)."""
    if weights is None:
        return None
    bits = _bits(weights)
    return bits, bits.dtype.type(1) << bits.dtype.type(8 * bits.itemsize - 1), \
        weights.dtype.kind == "f"


@njit(cache=True, nogil=True)
def rows_of(n, src, dst):
    """``(indptr, targets)``: the arcs ``src -> dst`` (ids below ``n``) by tail, each
    row's in input order (steps 1 and 2 of :func:`build_csr` alone: no sort, repeats
    kept).

    Examples
    --------
    >>> ptr, targets = rows_of(3, np.array([2, 0, 2]), np.array([0, 1, 1]))
    >>> ptr.tolist(), targets.tolist()
    ([0, 1, 1, 3], [1, 0, 1])
    """
    offsets = np.zeros(n + 2, np.int64)
    _count(src, dst, False, offsets)
    targets = np.empty(src.size, dst.dtype)
    _scatter(src, dst, None, False, offsets, targets, None)
    return offsets[:n + 1], targets


def build_csr(n: int, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None,
              directed: bool, index_type: np.dtype):
    """The canonical CSR of an edge list: ``(indptr, indices, weights, nself_loops)``.

    ``src``, ``dst``: ids below ``n``, non-negative, both of one integer type of 4 or 8
    bytes; ``weights``: one per edge (int32, int64, float32, float64, finite) or None.
    With ``directed=False`` each edge is stored both ways (a self-loop once). Rows are
    sorted by column; the repeats of an entry merge into one with the lightest weight.
    ``indices`` are of ``index_type``; ``indptr`` is int64 (the caller narrows it).

    Examples
    --------
    >>> ptr, ind, w, loops = build_csr(3, np.array([2, 0, 2]), np.array([0, 1, 0]),
    ...                                np.array([5, 7, 4]), False, np.dtype(np.int32))
    >>> ptr.tolist(), ind.tolist(), w.tolist(), loops
    ([0, 2, 3, 4], [1, 2, 0, 0], [7, 4, 7, 4], 0)
    """
    src, dst = _read(src), _read(dst)
    mirror = not directed
    offsets = np.zeros(n + 2, np.int64)
    _count(src, dst, mirror, offsets)
    total = int(offsets[n + 1])
    indices = np.empty(total, index_type)
    out = None if weights is None else np.empty(total, weights.dtype)
    _scatter(src, dst, _read(weights), mirror, offsets, indices, _bits(out))
    indptr = offsets[:n + 1]
    kept = np.empty(n, np.int64)
    blocks = row_blocks(indptr, BLOCKS_PER_THREAD * get_num_threads())
    loops = int(_sort_rows(indptr, indices, _keyed(out), blocks, kept))
    if n and int(kept.sum()) < total:
        nstored = int(_compact(indptr, indices, _bits(out), kept))
        indices.resize(nstored, refcheck=False)
        if out is not None:
            out.resize(nstored, refcheck=False)
    return indptr, indices, out, loops


def transpose_csr(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None):
    """``(indptr, indices, weights)`` of the transpose, in the types of the arguments,
    rows sorted by column.

    Examples
    --------
    >>> ptr, ind, w = transpose_csr(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), None)
    >>> ptr.tolist(), ind.tolist(), w
    ([0, 0, 1, 3], [0, 0, 1], None)
    """
    n = indptr.size - 1
    offsets = np.zeros(n + 2, np.int64)
    tindices = np.empty(indices.size, indices.dtype)
    tweights = None if weights is None else np.empty(weights.size, weights.dtype)
    _transpose(_read(indptr), _read(indices), _read(weights), offsets, tindices,
               _bits(tweights))
    return offsets[:n + 1].astype(indptr.dtype), tindices, tweights
