"""Reading and writing graphs as Matrix Market files and SNAP-style edge lists.

Both readers share one strict scanner, vectorized with numpy: the data section is cut
into blocks of whole lines, parsed on a pool of threads, and split into tokens; every
line must hold exactly the expected number of tokens, and every token must be a
well-formed number. Integers are parsed here; reals are checked here against the
decimal grammar, then converted by scipy's Matrix Market parser, which rounds correctly
but on its own would read ``1.5x`` as 1.5, ``1-2`` as 1 and ``1.5`` in an integer file
as 1. Anything malformed raises :class:`FileFormatError` naming the file, the line and
the problem; nothing is guessed or skipped silently. Files whose name ends in ``.gz``
are gzip-compressed, for reading and for writing.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gzip
import io
import os
import re
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._checks import as_count
from .graph import Graph

__all__ = ["FileFormatError", "read_mtx", "read_edgelist", "write_mtx"]

PathLike = str | os.PathLike

_BLOCK_BYTES = 1 << 22    # the scanner reads the data section in blocks of whole lines
_MAX_TOKEN = 128          # longer tokens are not numbers (and would bloat the token matrices)

# LAGraph's "%%GraphBLAS type <T>" line: the values each T admits (None: any finite double).
_GRAPHBLAS_TYPES = {
    "bool": (0, 1),
    **{f"{t}_t": (int(np.iinfo(t).min), int(np.iinfo(t).max))
       for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    "float": (-float(np.finfo(np.float32).max), float(np.finfo(np.float32).max)),
    "double": None,
}
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
# (%%GraphBLAS type, field) whose values a Graph keeps in 4 bytes (others: int64 or
# float64, as the field says); write_mtx names the type of such weights.
_KEPT_TYPES = {("int32_t", "integer"): np.dtype(np.int32), ("float", "real"): np.dtype(np.float32)}


class FileFormatError(ValueError):
    """A malformed input file. The message names the file, the line and the problem."""


def _error(path: PathLike, line: int, problem: str) -> FileFormatError:
    return FileFormatError(f"{os.fspath(path)}, line {line}: {problem}")


# ---------------------------------------------------------------------- public API
def read_mtx(path: PathLike) -> Graph:
    """Read a graph from a Matrix Market coordinate file.

    Every stored entry ``i j [w]`` (1-based) is an edge ``i-1 -> j-1``, explicit zeros
    included. The banner ``%%MatrixMarket matrix coordinate <field> <symmetry>`` decides:

    - field ``pattern``: an unweighted graph; ``integer``: int64 weights; ``real``:
      float64 weights (finite). ``complex`` is rejected: complex weights are unsupported.
    - symmetry ``general``: a directed graph. ``symmetric``: an undirected graph whose
      entries are stored once, in either triangle; a pair listed in both triangles is
      malformed. ``skew-symmetric``: a directed graph holding ``(i, j, w)`` and
      ``(j, i, -w)``; it may store no diagonal entry and cannot be ``pattern``.
      ``hermitian`` (real or integer field, never pattern) reads like ``symmetric``.
    - format ``array`` (a dense matrix) is rejected: it is not a list of edges.

    An optional second line ``%%GraphBLAS type <T>`` (LAGraph's extension; ``T`` one of
    ``bool``, ``int8_t`` ... ``uint64_t``, ``float``, ``double``) is a promise about the
    values: each value, and each mirrored ``-w`` of a skew-symmetric file, must be
    representable in ``T`` (an integer in range for the integer types, 0 or 1 for
    ``bool``), or the file is rejected. The field still sets the weight type, except
    that the weights of an ``integer`` file of type ``int32_t`` are int32, those of a
    ``real`` file of type ``float`` float32 (4 bytes an entry instead of 8). Complex
    and unknown ``T`` are rejected; other ``%%GraphBLAS`` lines are comments.

    Banner words are case-insensitive; comment (``%``) and blank lines may precede the
    size line. In the data section numbers are separated by blanks (spaces, tabs, any
    control character, so CRLF line ends work), blank lines are skipped, and every other
    line holds one entry. The header is checked first, then each entry in file order,
    then the matrix as a whole (no entry repeated, square).

    Parameters
    ----------
    path : str or os.PathLike
        The file; a name ending in ``.gz`` is read through gzip.

    Returns
    -------
    Graph

    Raises
    ------
    FileFormatError
        (a ``ValueError``) for a malformed file: bad banner or size line, fewer or more
        entries than the size line declares, a line without exactly 2 (pattern) or 3
        numbers, a bad number, an index outside ``1..rows``, a repeated entry, a value
        outside ``T``. The message names the file and the line. A well-formed
        rectangular matrix raises it too: a rectangular matrix is not a graph.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import lagraph_py as lg
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.mtx"
    >>> _ = p.write_text("%%MatrixMarket matrix coordinate integer symmetric\\n"
    ...                  "3 3 2\\n2 1 7\\n3 3 0\\n")
    >>> G = lg.read_mtx(p)
    >>> G.n, G.nedges, G.directed, G.weights.tolist()
    (3, 2, False, [7, 7, 0])
    """
    with _reading(path) as f:
        header = read_header(f, path)
        rows, cols, values, lines = read_entries(f, path, header)
    return _graph(path, header, rows, cols, values, lines)


def read_edgelist(path: PathLike, directed: bool = True, n: int | None = None) -> Graph:
    """Read a graph from a SNAP-style edge list: one ``u v`` or ``u v w`` per line.

    Vertex ids are 0-based non-negative integers. Lines whose first character (after
    blanks) is ``#`` or ``%`` are comments; blank lines are skipped; numbers are
    separated by blanks (spaces, tabs, any control character). Every edge line has the
    same number of columns, 2 (unweighted) or 3 (weighted). Weights are int64 when every
    weight is an integer that fits int64, float64 otherwise. Parallel edges keep the
    lightest weight, as in :meth:`Graph.from_edges`.

    Parameters
    ----------
    path : str or os.PathLike
        The file; a name ending in ``.gz`` is read through gzip.
    directed : bool, default True
        With ``False`` each line is the undirected edge ``{u, v}``.
    n : int, optional
        Number of vertices; by default one more than the largest id (0 with no edges).

    Returns
    -------
    Graph

    Raises
    ------
    FileFormatError
        (a ``ValueError``) naming the file and line of a bad token, a negative id, an id
        ``>= n``, a non-finite weight or a line with the wrong number of columns.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import lagraph_py as lg
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.txt"
    >>> _ = p.write_text("# FromNodeId\\tToNodeId\\n0\\t1\\n1\\t2\\n")
    >>> G = lg.read_edgelist(p, directed=False)
    >>> G.n, G.nedges, G.weighted
    (3, 2, False)
    """
    with _reading(path) as f:
        src, dst, w, lines, _ = edge_lines(f, path, 1)
    if n is not None:
        n = as_count(n, "n")
        _require(path, lines, (src < n) & (dst < n),
                 lambda k: f"edge ({src[k]}, {dst[k]}) names a vertex >= n = {n}")
    return Graph.from_edges(src, dst, w, n=n, directed=directed)


def write_mtx(G: Graph, path: PathLike, *, comment: str | None = None) -> None:
    """Write a graph as a Matrix Market coordinate file that :func:`read_mtx` reads back.

    A directed graph is written ``general``, one line per edge; an undirected graph
    ``symmetric``, each edge once, in the lower triangle. The field is ``pattern`` for
    an unweighted graph, ``integer`` for integer weights and ``real`` for real weights,
    each written in the shortest form that reads back to the same double; int32 and
    float32 weights are named by the line ``%%GraphBLAS type int32_t`` or ``float``. So
    :func:`read_mtx` returns the written graph exactly, weight type included (other
    integer weights read back as int64, other reals as float64).

    Parameters
    ----------
    G : Graph
    path : str or os.PathLike
        The file to create or overwrite; a name ending in ``.gz`` is written through gzip.
    comment : str, optional
        Text written as ``%`` comment lines after the banner.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import lagraph_py as lg
    >>> G = lg.Graph.from_edges([0, 1], [1, 2], weight=[0.5, -2.0], directed=False)
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.mtx"
    >>> lg.write_mtx(G, p, comment="a path")
    >>> print(p.read_text(), end="")
    %%MatrixMarket matrix coordinate real symmetric
    %a path
    3 3 2
    2 1 5E-1
    3 2 -2
    >>> H = lg.read_mtx(p)
    >>> H.n, H.directed, H.weights.tolist()
    (3, False, [0.5, 0.5, -2.0, -2.0])
    """
    src, dst, w = G.edges()
    if not G.directed:
        src, dst = dst, src            # edges() lists src <= dst; write the lower triangle
    field = "pattern" if w is None else "integer" if w.dtype.kind == "i" else "real"
    data = np.ones(src.size) if w is None else w.astype(np.int64 if field == "integer"
                                                        else np.float64, copy=False)
    kept = [t for (t, f), dtype in _KEPT_TYPES.items() if w is not None and w.dtype == dtype]
    if kept:                          # mmwrite writes "%" + each comment line
        comment = f"%GraphBLAS type {kept[0]}" + ("" if comment is None else f"\n{comment}")
    symmetry = "general" if G.directed else "symmetric"
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "wb") as f:     # a stream: given a name, mmwrite would append ".mtx"
        if src.size:
            import scipy.io
            import scipy.sparse as sp

            A = sp.coo_array((data, (src, dst)), shape=(G.n, G.n))
            scipy.io.mmwrite(f, A, comment=comment, field=field, symmetry=symmetry)
        else:                         # mmwrite would call an empty pattern matrix real
            comments = [] if comment is None else comment.split("\n")
            f.write("".join(f"{line}\n" for line in [
                f"%%MatrixMarket matrix coordinate {field} {symmetry}",
                *(f"%{c}" for c in comments), f"{G.n} {G.n} 0"]).encode())


# ---------------------------------------------------------------------- numbers
class _Tokens(NamedTuple):
    """One column of a block of records: token ``k`` is ``text[starts[k]:ends[k]]``.

    ``text`` is the block with its newlines turned into spaces and ``_MAX_TOKEN + 1``
    spaces added at both ends, so a window of ``_MAX_TOKEN + 1`` bytes that starts or
    ends at a token stays inside it.
    """

    text: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    def token(self, k: int) -> bytes:
        return self.text[self.starts[k]:self.ends[k]].tobytes()


# A token parser takes _Tokens and returns one number per token, or raises _BadToken
# with the index of the first token that is not a number it reads.
class _BadToken(Exception):
    pass


def _first_bad(ok: np.ndarray) -> None:
    if not ok.all():
        raise _BadToken(int(np.argmin(ok)))


def _integers(tokens: _Tokens, signed: bool) -> np.ndarray:
    """Tokens ``[sign] digits`` (no sign unless ``signed``) as int64."""
    lengths = tokens.ends - tokens.starts
    width = int(lengths.max())
    rows = sliding_window_view(tokens.text, width)[tokens.ends - width]  # aligned right
    digit = (np.arange(width) >= np.arange(width + 1)[:, None])[width - lengths]
    first = tokens.text[tokens.starts]
    sign = ((first == ord("-")) | (first == ord("+"))) & signed
    digit[sign, (width - lengths)[sign]] = False       # digit[k, p]: byte p of row k is a digit
    digits = (rows - np.uint8(ord("0"))) * digit       # a non-digit byte there becomes >= 10
    misplaced = np.zeros(rows.shape[0], dtype=bool)
    if (digits >= 10).any():
        misplaced = (digits >= 10).any(axis=1)
    value = np.zeros(rows.shape[0], dtype=np.uint64)
    big = np.zeros(rows.shape[0], dtype=bool)          # beyond 2**63, before uint64 wraps
    for column in digits.T:
        big |= value > np.uint64(2**63 // 10)
        value = value * np.uint64(10) + column
    negative = sign & (first == ord("-"))
    limit = np.where(negative, np.uint64(2**63), np.uint64(2**63 - 1))
    _first_bad(~misplaced & (lengths > sign) & ~big & (value <= limit))
    return np.where(negative, -value, value).view(np.int64)   # two's complement negation


_ids = functools.partial(_integers, signed=False)
_ints = functools.partial(_integers, signed=True)

# A DFA reading a decimal real [+-](d+[.d*] | .d+)[(e|E)[+-]d+] up to the separator
# that ends it; state 10 accepts, state 9 rejects. Entries are scaled by 256 so that
# the next state is _REAL_DFA[state + byte].
_CLASS = np.full(256, 5, dtype=np.intp)                 # byte -> column of the table below
_CLASS[list(b"0123456789")] = 0
_CLASS[list(b"+-")] = 1
_CLASS[ord(".")] = 2
_CLASS[list(b"eE")] = 3
_CLASS[:ord(" ") + 1] = 4
_REAL_DFA = 256 * np.array([
    # digit sign  .   e  sep other
    [2,    1,    4,  9,  9,  9],     # 0 start
    [2,    9,    4,  9,  9,  9],     # 1 after the sign
    [2,    9,    3,  6,  10, 9],     # 2 integer digits
    [5,    9,    9,  6,  10, 9],     # 3 point after digits
    [5,    9,    9,  9,  9,  9],     # 4 point before any digit
    [5,    9,    9,  6,  10, 9],     # 5 fraction digits
    [8,    7,    9,  9,  9,  9],     # 6 exponent mark
    [8,    9,    9,  9,  9,  9],     # 7 exponent sign
    [8,    9,    9,  9,  10, 9],     # 8 exponent digits
    [9,    9,    9,  9,  9,  9],     # 9 rejected
    [10,   10,   10, 10, 10, 10],    # 10 accepted: the token has ended
], dtype=np.intp)[:, _CLASS].ravel()


def _reals(tokens: _Tokens) -> np.ndarray:
    """Decimal-real tokens as float64, correctly rounded."""
    width = int((tokens.ends - tokens.starts).max())
    lines = sliding_window_view(tokens.text, width + 1)[tokens.starts]  # token, separator, ...
    state = np.zeros(lines.shape[0], dtype=np.intp)
    for column in lines.T:
        state = _REAL_DFA[state + column]
    _first_bad(state == 256 * 10)
    # Now one valid token per line, then junk that scipy's parser skips: it converts
    # them ~10x faster than numpy, but rejects a leading '+'.
    lines[:, -1] = ord("\n")
    lines[lines[:, 0] == ord("+"), 0] = ord(" ")
    header = b"%%%%MatrixMarket matrix array real general\n%d 1\n" % lines.shape[0]
    import scipy.io

    values = scipy.io.mmread(io.BytesIO(header + lines.tobytes())).ravel()
    return np.copysign(values, -1.0, out=values, where=lines[:, 0] == ord("-"))  # keeps -0.0


def _weights(tokens: _Tokens) -> np.ndarray:
    """Int64 if every token is an integer in range, else float64."""
    try:
        return _ints(tokens)
    except _BadToken:
        return _reals(tokens)


def _numbers(parse: Callable, tokens: _Tokens, at: np.ndarray, path: PathLike,
             what: str) -> np.ndarray:
    """``parse(tokens)``; a bad token raises naming its line (``at``) and ``what`` it must be."""
    try:
        return parse(tokens)
    except _BadToken as bad:
        k = bad.args[0]
        raise _error(path, int(at[k]), f"{_shown(tokens.token(k))} is not {what}") from None


# ---------------------------------------------------------------------- text scanning
@contextlib.contextmanager
def _reading(path: PathLike) -> Iterator[BinaryIO]:
    """Open ``path`` for binary reading, through gzip for ``.gz``; corrupt gzip data is a
    malformed file."""
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            yield f
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise FileFormatError(f"{os.fspath(path)}: corrupt gzip data ({e})") from e


def _blocks(f: BinaryIO) -> Iterator[bytes]:
    """The rest of ``f`` in blocks of whole lines, each ending with a newline."""
    pending: list[bytes] = []
    while chunk := f.read(_BLOCK_BYTES):
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            pending.append(chunk)
            continue
        yield b"".join([*pending, chunk[:cut]])
        pending = [chunk[cut:]]
    tail = b"".join(pending)
    if tail:
        yield tail + b"\n"


_PADDING = b" " * (_MAX_TOKEN + 1)
_THREADS = min(8, os.cpu_count() or 1)

_Columns = dict[int, list[tuple[Callable, str]]]  # tokens per line -> (parser, what) per column


def _parse_blocks(f: BinaryIO, path: PathLike, first_line: int, columns: _Columns,
                  comments: bool) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
    """Parse the rest of ``f`` with :func:`_parse_block`, block by block, on a pool of
    threads (numpy releases the GIL); yield the results in file order, so the first
    error raised is the first in the file."""
    with ThreadPoolExecutor(_THREADS) as pool:
        pending: collections.deque = collections.deque()
        line = first_line
        for block in _blocks(f):
            pending.append(pool.submit(_parse_block, block, line, path, columns, comments))
            line += block.count(b"\n")
            if len(pending) > 2 * _THREADS:              # bound the blocks held in memory
                yield from filter(None, [pending.popleft().result()])   # None: no record
        yield from filter(None, (future.result() for future in pending))


def _parse_block(block: bytes, line: int, path: PathLike, columns: _Columns,
                 comments: bool) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The line number of every record of ``block`` (whose first line is ``line``) and
    its numbers, column by column; None if it holds no record.

    Records are lines of tokens separated by blanks. Blank lines are skipped, and with
    ``comments`` so are lines whose first token starts with ``#`` or ``%``. The first
    record's token count picks the parsers from ``columns``; every record must have it.
    """
    text = np.frombuffer(bytearray(_PADDING + block + _PADDING), dtype=np.uint8)
    edges = np.flatnonzero(np.diff(text <= ord(" ")))   # any control byte is a blank
    starts, ends = edges[0::2] + 1, edges[1::2] + 1
    newlines = np.flatnonzero(text == ord("\n"))
    before = np.searchsorted(starts, newlines)          # tokens that start before each line end
    counts = np.diff(before, prepend=0)                 # tokens on each line
    if comments and starts.size:
        opening = text[starts[np.minimum(before - counts, starts.size - 1)]]
        skip = (counts > 0) & ((opening == ord("#")) | (opening == ord("%")))
        keep = np.repeat(~skip, counts)
        starts, ends, counts = starts[keep], ends[keep], np.where(skip, 0, counts)
    used = np.flatnonzero(counts)
    if not used.size:
        return None
    ncols = int(counts[used[0]])
    if ncols not in columns:
        raise _error(path, line + used[0], _found(ncols, " or ".join(map(str, columns))))
    wrong = counts[used] != ncols
    if wrong.any():
        t = used[np.argmax(wrong)]
        raise _error(path, line + t, _found(counts[t], ncols))
    at = line + used
    starts, ends = starts.reshape(-1, ncols), ends.reshape(-1, ncols)
    too_long = (ends - starts > _MAX_TOKEN).any(axis=1)
    if too_long.any():
        k = int(np.argmax(too_long))
        raise _error(path, int(at[k]), f"a token of over {_MAX_TOKEN} characters is not a number")
    text[newlines] = ord(" ")                           # see _Tokens
    return at, [_numbers(parse, _Tokens(text, starts[:, c], ends[:, c]), at, path, what)
                for c, (parse, what) in enumerate(columns[ncols])]


def _require(path: PathLike, lines: np.ndarray, ok: np.ndarray, problem: Callable) -> None:
    """Raise ``problem(k)`` at the line of the first entry ``k`` where ``ok`` is False."""
    if not ok.all():
        k = int(np.argmin(ok))
        raise _error(path, int(lines[k]), problem(k))


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def edge_lines(f: BinaryIO, path: PathLike, first_line: int):
    """The edges of the edge-list lines of ``f`` (the first numbered ``first_line``):
    ``(src, dst, weights, lines, ncols)``, weights None without a third column (int64
    unless a line holds a real weight; checked finite), ``ncols`` None without a line."""
    ids = [(_ids, "a vertex id"), (_ids, "a vertex id")]
    columns = {2: ids, 3: [*ids, (_weights, "a number")]}
    src, dst, weights, lines, ncols = [], [], [], [], None
    for at, numbers in _parse_blocks(f, path, first_line, columns, comments=True):
        if ncols not in (None, len(numbers)):          # this block disagrees with the first
            raise _error(path, int(at[0]), _found(len(numbers), ncols))
        ncols = len(numbers)
        src.append(numbers[0])
        dst.append(numbers[1])
        weights += numbers[2:]
        lines.append(at)
    src = _concat(src, np.int64)      # one at a time: each list's blocks go as it is joined
    dst = _concat(dst, np.int64)
    lines = _concat(lines, np.int64)
    w = None
    if weights:
        w = np.concatenate(weights)   # int64 unless some block held a real weight
        _require(path, lines, np.isfinite(w), lambda k: f"weight {w[k]} is not finite")
    return src, dst, w, lines, ncols


def _found(count: int, expected) -> str:
    return f"found {count} number{'' if count == 1 else 's'}; expected {expected}"


def _shown(text: bytes) -> str:
    return repr(text.decode("latin-1").strip())


# ---------------------------------------------------------------------- Matrix Market
_FIELDS = {"pattern": None,                  # field -> (value parser, what a value must be)
           "integer": (_ints, "an integer in int64 range"),
           "real": (_reals, "a real number")}


class _Header(NamedTuple):
    """What the banner, the %%GraphBLAS type line and the size line of a file say."""

    field: str
    symmetry: str
    gbtype: str | None        # the %%GraphBLAS type, if the file names one
    nrows: int
    ncols: int
    nnz: int
    size_line: int            # its line number


def read_header(f: BinaryIO, path: PathLike) -> _Header:
    banner = f.readline()
    if not banner:
        raise _error(path, 1, "the file is empty; expected the banner "
                              "'%%MatrixMarket matrix coordinate <field> <symmetry>'")
    words = banner.decode("latin-1").lower().split()
    if len(words) != 5 or words[0] != "%%matrixmarket":
        raise _error(path, 1, f"expected the banner '%%MatrixMarket matrix coordinate "
                              f"<field> <symmetry>', got {_shown(banner)}")
    _, obj, fmt, field, symmetry = words
    if obj != "matrix":
        raise _error(path, 1, f"object {obj!r} is not 'matrix'")
    if fmt == "array":
        raise _error(path, 1, "format 'array' is a dense matrix, not a list of edges; "
                              "a graph file must use format 'coordinate'")
    if fmt != "coordinate":
        raise _error(path, 1, f"format {fmt!r} is not 'coordinate'")
    if field == "complex":
        raise _error(path, 1, "field 'complex' is unsupported: edge weights are real")
    if field not in _FIELDS:
        raise _error(path, 1, f"field {field!r} is not one of pattern, integer, real")
    if symmetry not in _SYMMETRIES:
        raise _error(path, 1, f"symmetry {symmetry!r} is not one of {', '.join(_SYMMETRIES)}")
    if field == "pattern" and symmetry not in ("general", "symmetric"):
        raise _error(path, 1, f"a pattern matrix cannot be {symmetry} "
                              "(Matrix Market allows pattern only with general or symmetric)")

    gbtype, line = None, 1
    while True:
        text, line = f.readline(), line + 1
        if not text:
            raise _error(path, line, "the file ends before the size line 'rows cols entries'")
        words = text.decode("latin-1").lower().split()
        if line == 2 and words[:2] == ["%%graphblas", "type"]:
            gbtype = _graphblas_type(" ".join(words[2:]), path, line)
        elif words and not words[0].startswith("%"):
            break
    if len(words) != 3 or not all(re.fullmatch("-?[0-9]+", w) for w in words):
        raise _error(path, line, f"expected the size line 'rows cols entries' "
                                 f"(three integers), got {_shown(text)}")
    nrows, ncols, nnz = map(int, words)
    if min(nrows, ncols, nnz) < 0:
        raise _error(path, line, f"negative size in {_shown(text)}")
    return _Header(field, symmetry, gbtype, nrows, ncols, nnz, line)


def _graphblas_type(name: str, path: PathLike, line: int) -> str:
    if "complex" in name:
        raise _error(path, line, f"GraphBLAS type {name!r} is unsupported: edge weights are real")
    if name not in _GRAPHBLAS_TYPES:
        raise _error(path, line, f"unknown GraphBLAS type {name!r}; expected one of "
                                 f"{', '.join(_GRAPHBLAS_TYPES)}")
    return name


def read_entries(f: BinaryIO, path: PathLike, h: _Header, first_line: int | None = None,
                 whole: bool = True):
    """The 1-based indices, the values (None for pattern) and the line of every entry of
    the rest of ``f``, whose first line is ``first_line`` (by default the one after the
    size line). With ``whole`` (the whole data section) the count must be ``h.nnz``."""
    columns = [(_ids, "a row index"), (_ids, "a column index")]
    if _FIELDS[h.field] is not None:
        columns.append(_FIELDS[h.field])
    rows, cols, values, lines, count = [], [], [], [], 0
    first_line = h.size_line + 1 if first_line is None else first_line
    for at, numbers in _parse_blocks(f, path, first_line, {len(columns): columns},
                                     comments=False):
        if whole and count + at.size > h.nnz:
            raise _error(path, int(at[h.nnz - count]), f"more entries than the {h.nnz} "
                         f"that the size line (line {h.size_line}) declares")
        count += at.size
        rows.append(numbers[0])
        cols.append(numbers[1])
        values += numbers[2:]
        lines.append(at)
    if whole and count < h.nnz:
        end = int(lines[-1][-1]) if lines else h.size_line
        raise _error(path, end, f"the file ends after {count} of the {h.nnz} entries "
                                f"that the size line (line {h.size_line}) declares")
    rows = _concat(rows, np.int64)    # one at a time: each list's blocks go as it is joined
    cols = _concat(cols, np.int64)
    values = None if len(columns) == 2 else _concat(
        values, np.float64 if h.field == "real" else np.int64)
    return rows, cols, values, _concat(lines, np.int64)


def _graph(path: PathLike, h: _Header, rows, cols, values, lines) -> Graph:
    """Check the entries against the header's promises, then build the graph."""
    diagonal = np.count_nonzero(rows == cols)
    src, dst, w, directed = entry_edges(path, h, rows, cols, values, lines)
    G = Graph.from_edges(src, dst, w, n=h.nrows, directed=directed)
    # Graph.from_edges merges repeated edges, so any merge means the file repeats an entry.
    if G.nstored != (rows.size if h.symmetry == "general" else 2 * rows.size - diagonal):
        check_repeats(path, h, rows + 1, cols + 1, lines)
    return G


def entry_edges(path: PathLike, h: _Header, rows, cols, values, lines):
    """Check the entries (1-based ``rows``, ``cols``; ``values``; their ``lines``)
    against the header's promises; return the edges they stand for: 0-based
    ``(src, dst, weights, directed)``. ``rows`` and ``cols`` become 0-based in place
    (they are the returned ``src`` and ``dst`` unless the file is skew-symmetric)."""
    _require(path, lines, (rows >= 1) & (rows <= h.nrows),
             lambda k: f"row index {rows[k]} is outside 1..{h.nrows}")
    _require(path, lines, (cols >= 1) & (cols <= h.ncols),
             lambda k: f"column index {cols[k]} is outside 1..{h.ncols}")
    skew = h.symmetry == "skew-symmetric"
    if values is not None:
        _require(path, lines, np.isfinite(values), lambda k: f"value {values[k]} is not finite")
        if skew and values.dtype == np.int64:
            _require(path, lines, values != np.iinfo(np.int64).min,
                     lambda k: f"value {values[k]} cannot be negated in int64 (skew-symmetric)")
        _check_type(path, lines, values, h.gbtype, skew)
    if skew:
        _require(path, lines, rows != cols, lambda k: f"diagonal entry ({rows[k]}, {cols[k]}) "
                 "in a skew-symmetric file, whose diagonal is zero and never stored")
    if h.nrows != h.ncols:
        check_repeats(path, h, rows, cols, lines)       # a defect of the file comes first
        raise _error(path, h.size_line, f"the matrix is {h.nrows} x {h.ncols}; "
                                        "a rectangular matrix is not a graph")
    if (h.gbtype, h.field) in _KEPT_TYPES:
        values = values.astype(_KEPT_TYPES[h.gbtype, h.field])
    src, dst, w = rows, cols, values        # 0-based ids, in place: the arrays are ours
    src -= 1
    dst -= 1
    if skew:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        w = np.concatenate([w, -w])
    directed = h.symmetry in ("general", "skew-symmetric")
    return src, dst, w, directed


def _check_type(path: PathLike, lines, values, gbtype: str | None, skew: bool) -> None:
    """Values, and the mirrored values of a skew-symmetric file, must fit the GraphBLAS type."""
    if gbtype is None or _GRAPHBLAS_TYPES[gbtype] is None:
        return
    lo, hi = _GRAPHBLAS_TYPES[gbtype]
    if isinstance(lo, int):
        _require(path, lines, values == np.round(values),
                 lambda k: f"value {values[k]} is not an integer, as type {gbtype} requires")
    for v, what in ((values, "value"), (-values, "mirrored value"))[:1 + skew]:
        _require(path, lines, (v >= lo) & (v <= hi), lambda k, v=v, what=what:
                 f"{what} {v[k]} is outside the range {lo}..{hi} of type {gbtype}")


def check_repeats(path: PathLike, h: _Header, rows, cols, lines) -> None:
    """Raise naming the first line that repeats an earlier entry (or, in a file that is
    not general, the earlier entry's mirror image)."""
    if h.symmetry == "general":
        lo, hi = rows, cols
    else:
        lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    order = np.lexsort((hi, lo))                   # stable: equal pairs stay in file order
    same = (lo[order][1:] == lo[order][:-1]) & (hi[order][1:] == hi[order][:-1])
    if not same.any():
        return
    first, again = order[:-1][same], order[1:][same]
    k = int(np.argmin(again))
    a, b = first[k], again[k]
    note = "" if h.symmetry == "general" else f"; a {h.symmetry} file stores each pair once"
    raise _error(path, int(lines[b]), f"entry ({rows[b]}, {cols[b]}) repeats the entry "
                                      f"({rows[a]}, {cols[a]}) on line {lines[a]}{note}")
