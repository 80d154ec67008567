"""A reader for WebGraph's BV format (``.graph`` + ``.properties``), the compressed form in
which the Laboratory for Web Algorithmics publishes its web crawls (cnr-2000, eu-2005 ...).

The ``.graph`` file is one bit stream, most significant bit first, holding each vertex's
successor list in vertex order (Boldi and Vigna, "The WebGraph Framework I", WWW 2004):

1. the out-degree ``d`` (gamma code);
2. if ``d > 0`` and the window is not empty, a reference ``r`` (unary code): with
   ``r > 0`` the list of vertex ``x - r`` is the reference list, and a block count ``b``
   (gamma) and ``b`` block lengths (gamma; every block after the first stores its length
   minus one) follow. The blocks cut the reference list into runs that are, in turn,
   copied and skipped, the first one copied; past the last block the rest of the
   reference list is copied when ``b`` is even and skipped when it is odd;
3. if successors remain and ``minintervallength > 0``, an interval count (gamma) and the
   intervals: the first left end as ``x`` plus a signed gap (gamma of the zig-zag
   natural), the others as the gap after the previous interval's end, minus one (gamma);
   each length minus ``minintervallength`` (gamma);
4. the remaining successors, the *residuals*: the first as ``x`` plus a signed gap, the
   others as the gap after the previous one, minus one (zeta code with parameter
   ``zetak``).

The union of copied, interval and residual successors is the sorted successor list.
Only the default codes are read (an empty ``compressionflags``), as in the published
files; other flags are rejected.

Codes (of a natural ``v``): unary: ``v`` zeros, then a one. Gamma: ``v + 1`` in binary,
its bit count minus one first sent in unary, then the bits below its leading one. Zeta
with parameter ``k``: ``h`` in unary, where ``v + 1`` lies in ``[2**(h*k), 2**((h+1)*k))``,
then ``v + 1 - 2**(h*k)`` in minimal binary over that interval. Zig-zag: the natural
``2n`` stands for ``n`` and ``2n - 1`` for ``-n``.
"""

from __future__ import annotations

import numba
import numpy as np

#: The only ``version`` of the BV format this reader knows.
VERSION = 0
#: Properties this reader needs (and their meaning): vertex and arc counts, the
#: reference window, the minimal interval length and the zeta parameter of residuals.
REQUIRED = ("nodes", "arcs", "windowsize", "minintervallength", "zetak")
#: Widest binary field read (a longer one is a corrupt stream: no count needs 63 bits).
MAX_WIDTH = 62


def parse_properties(text: str) -> dict[str, str]:
    """The ``key=value`` lines of a Java properties file (``#`` lines are comments)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def read_bvgraph(graph: bytes, properties: str) -> tuple[np.ndarray, np.ndarray]:
    """Decode a BV graph: its CSR ``indptr`` (int64, nodes + 1) and ``indices`` (int32,
    sorted within each row).

    Raises
    ------
    ValueError
        Unsupported properties, or a stream that does not decode to exactly ``arcs``
        successors in ``0 .. nodes - 1`` within the file's bits.
    """
    p = parse_properties(properties)
    missing = [k for k in REQUIRED if k not in p]
    if missing:
        raise ValueError(f"BV properties lack {missing}")
    if p.get("compressionflags", ""):
        raise ValueError(f"unsupported BV compression flags {p['compressionflags']!r}")
    if int(p.get("version", VERSION)) != VERSION:
        raise ValueError(f"unsupported BV version {p['version']}")
    nodes, arcs = int(p["nodes"]), int(p["arcs"])
    bits = np.frombuffer(graph, dtype=np.uint8)
    indptr = np.zeros(nodes + 1, np.int64)
    indices = np.zeros(arcs, np.int32)
    status = _decode(bits, nodes, int(p["windowsize"]), int(p["minintervallength"]),
                     int(p["zetak"]), indptr, indices)
    if status:
        raise ValueError(f"malformed BV stream at vertex {status - 1}: a successor out of "
                         "range or repeated, more arcs than the properties say, or the end of "
                         "the file reached")
    if indptr[-1] != arcs:
        raise ValueError(f"the BV stream holds {indptr[-1]} arcs, its properties say {arcs}")
    return indptr, indices


@numba.njit(cache=True)
def _bit(bits, pos):
    return (bits[pos >> 3] >> (7 - (pos & 7))) & 1


@numba.njit(cache=True)
def _int(bits, pos, width):
    """The ``width``-bit number at ``pos``; past the stream's end (or wider than
    :data:`MAX_WIDTH`), 0 at a position past the end, which the caller reports."""
    if width > MAX_WIDTH or pos + width > bits.size * 8:
        return 0, bits.size * 8 + 1
    value = 0
    for _ in range(width):
        value = (value << 1) | _bit(bits, pos)
        pos += 1
    return value, pos


@numba.njit(cache=True)
def _unary(bits, pos, end):
    start = pos
    while pos < end and _bit(bits, pos) == 0:
        pos += 1
    return pos - start, pos + 1


@numba.njit(cache=True)
def _gamma(bits, pos, end):
    width, pos = _unary(bits, pos, end)
    low, pos = _int(bits, pos, width)
    return ((1 << width) | low) - 1, pos


@numba.njit(cache=True)
def _zeta(bits, pos, end, k):
    h, pos = _unary(bits, pos, end)
    left = 1 << (h * k)
    m, pos = _int(bits, pos, h * k + k - 1)
    if m < left:
        return m + left - 1, pos
    extra, pos = _int(bits, pos, 1)
    return (m << 1) + extra - 1, pos


@numba.njit(cache=True)
def _signed(v):
    return v >> 1 if v % 2 == 0 else -((v + 1) >> 1)


@numba.njit(cache=True)
def _decode(bits, nodes, window, min_interval, k, indptr, indices):
    """Fill ``indptr`` and ``indices``; 0 on success, else 1 + the failing vertex."""
    end = bits.size * 8
    capacity = indices.size
    pos = 0
    at = 0
    for x in range(nodes):
        d, pos = _gamma(bits, pos, end)
        if pos > end or at + d > capacity:
            return x + 1
        start = at
        if d > 0:
            ref = 0
            if window > 0:
                ref, pos = _unary(bits, pos, end)
            if ref > x:
                return x + 1
            if ref > 0:
                nblocks, pos = _gamma(bits, pos, end)
                lo, hi = indptr[x - ref], indptr[x - ref + 1]
                i = lo
                copying = True
                for b in range(nblocks):
                    length, pos = _gamma(bits, pos, end)
                    if b > 0:
                        length += 1
                    if i + length > hi:
                        return x + 1
                    if copying:
                        if at + length > start + d:
                            return x + 1
                        for j in range(i, i + length):
                            indices[at] = indices[j]
                            at += 1
                    i += length
                    copying = not copying
                if copying:
                    if at + (hi - i) > start + d:
                        return x + 1
                    for j in range(i, hi):
                        indices[at] = indices[j]
                        at += 1
            left = start + d - at
            if left > 0 and min_interval > 0:
                nintervals, pos = _gamma(bits, pos, end)
                prev = 0
                for t in range(nintervals):
                    gap, pos = _gamma(bits, pos, end)
                    first = x + _signed(gap) if t == 0 else prev + gap + 1
                    length, pos = _gamma(bits, pos, end)
                    length += min_interval
                    if first < 0 or first + length > nodes or at + length > start + d:
                        return x + 1
                    for v in range(first, first + length):
                        indices[at] = v
                        at += 1
                    prev = first + length
                left = start + d - at
            prev = 0
            for t in range(left):
                gap, pos = _zeta(bits, pos, end, k)
                v = x + _signed(gap) if t == 0 else prev + gap + 1
                if v < 0 or v >= nodes:
                    return x + 1
                indices[at] = v
                at += 1
                prev = v
            indices[start:at].sort()
            for j in range(start + 1, at):
                if indices[j] == indices[j - 1]:
                    return x + 1
        if pos > end:
            return x + 1
        indptr[x + 1] = at
    return 0
