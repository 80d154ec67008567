"""Matrix Market and edge-list I/O: the shipped data, malformed files, round trips."""

import gzip
import pathlib
import re
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_py.io as lio
from lagraph_py import Graph
from lagraph_py.io import FileFormatError, read_edgelist, read_mtx, write_mtx

DATA = pathlib.Path(__file__).parent / "data"
GOOD = sorted((DATA / "mtx").glob("*.mtx"))
BAD = sorted((DATA / "bad").glob("*.mtx"))

# What each known bad file must be rejected for; a file missing here (a new one) is
# still checked for an error that names the file and a line.
BAD_REASON = {
    "mangled1.mtx": "line 1: object 'mangled'",
    "mangled2.mtx": "line 1: format 'mangled'",
    "mangled3.mtx": "line 1: field 'mangled'",
    "mangled4.mtx": "line 1: symmetry 'mangled'",
    "mangled5.mtx": "line 1: a pattern matrix cannot be hermitian",
    "mangled6.mtx": "line 5: found 4 numbers; expected 3",
    "mangled7.mtx": "line 2: unknown GraphBLAS type 'gunk'",
    "mangled8.mtx": "line 4: expected the size line",
    "mangled9.mtx": "line 5: found 2 numbers; expected 3",
    "mangled10.mtx": "line 6: the file ends after 2 of the 3 entries",
    "mangled11.mtx": "line 5: 'zero' is not a column index",
    "mangled12.mtx": "line 5: found 2 numbers; expected 3",
    "mangled13.mtx": "line 7: column index 9999 is outside 1..4",
    "mangled14.mtx": "line 8: entry (2, 2) repeats the entry (2, 2) on line 7",
    "mangled15.mtx": "line 1: format 'array' is a dense matrix",
    "mangled16.mtx": "line 1: format 'array' is a dense matrix",
    "mangled_bool.mtx": "line 10: value 2 is outside the range 0..1 of type bool",
    "mangled_format.mtx": "line 1: format 'array' is a dense matrix",
    "mangled_int8.mtx": "line 8: value -129 is outside the range -128..127 of type int8_t",
    "mangled_int16.mtx": "line 8: value -32769 is outside",
    "mangled_int32.mtx": "line 8: value -2147483649 is outside",
    "mangled_uint8.mtx": "line 9: value 256 is outside the range 0..255 of type uint8_t",
    "mangled_uint16.mtx": "line 9: value 65536 is outside",
    "mangled_uint32.mtx": "line 9: value 4294967296 is outside",
    "mangled_skew.mtx": "line 4: mirrored value -12 is outside the range 0..255 of type uint8_t",
}


def write(tmp_path, text, name="g.mtx"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def scipy_read(path):
    with warnings.catch_warnings():          # scipy >= 1.18 warns about its default type
        warnings.simplefilter("ignore", DeprecationWarning)
        return sp.coo_array(scipy.io.mmread(path))


def stored(G):
    """{(i, j): weight} of every stored adjacency entry (weight 1 if unweighted)."""
    w = np.ones(G.nstored, dtype=np.int64) if G.weights is None else G.weights
    entries = zip(G.rows().tolist(), G.indices.tolist(), strict=True)
    return dict(zip(entries, w.tolist(), strict=True))


def same_graph(G, H):
    assert (G.n, G.directed, G.weighted) == (H.n, H.directed, H.weighted)
    assert np.array_equal(G.indptr, H.indptr) and np.array_equal(G.indices, H.indices)
    if G.weighted:
        assert G.weights.dtype == H.weights.dtype
        # bit patterns: -0.0 must stay -0.0
        bits = f"i{G.weights.itemsize}"
        assert np.array_equal(G.weights.view(bits), H.weights.view(bits))


# ---------------------------------------------------------------------- shipped data
def test_data_folders_hold_the_expected_files():
    assert {p.name for p in BAD} >= set(BAD_REASON)
    assert len(GOOD) >= 10 and (DATA / "mtx" / "empty.mtx") in GOOD


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_every_bad_file_raises_naming_file_line_and_reason(path):
    with pytest.raises(ValueError) as info:
        read_mtx(path)
    message = str(info.value)
    assert isinstance(info.value, FileFormatError)
    assert message.startswith(f"{path}, line ")
    assert re.search(r", line \d+: \S", message)
    assert BAD_REASON.get(path.name, "") in message


@pytest.mark.parametrize("path", [p for p in GOOD if p.name != "empty.mtx"],
                         ids=lambda p: p.name)
def test_good_files_match_scipy(path):
    G = read_mtx(path)
    nrows, ncols, nnz, fmt, field, symmetry = scipy.io.mminfo(path)
    A = scipy_read(path)                     # scipy expands symmetric files to both triangles
    assert G.n == nrows == ncols and G.nedges == nnz
    assert G.directed == (symmetry == "general")
    assert G.weighted == (field != "pattern")
    gbtype = re.fullmatch(r"%%graphblas type (.*)", path.read_text().splitlines()[1].lower())
    gbtype = gbtype and gbtype.group(1).strip()
    if field == "integer":        # a 4-byte type, as the file names it, stays 4 bytes
        assert G.weights.dtype == (np.int32 if gbtype == "int32_t" else np.int64)
    if field == "real":
        assert G.weights.dtype == (np.float32 if gbtype == "float" else np.float64)
    values = np.ones(A.nnz, dtype=np.int64) if field == "pattern" else A.data
    entries = zip(A.row.tolist(), A.col.tolist(), strict=True)
    assert stored(G) == dict(zip(entries, values.tolist(), strict=True))
    assert G.nstored == A.nnz


def test_empty_mtx_is_rejected_as_rectangular():
    path = DATA / "mtx" / "empty.mtx"
    with pytest.raises(ValueError, match="line 4: the matrix is 3 x 4; a rectangular matrix "
                                         "is not a graph"):
        read_mtx(path)


# ---------------------------------------------------------------------- malformed snippets
REAL = "%%MatrixMarket matrix coordinate real general\n"
INT = "%%MatrixMarket matrix coordinate integer general\n"
PATTERN = "%%MatrixMarket matrix coordinate pattern general\n"
SYM = "%%MatrixMarket matrix coordinate real symmetric\n"
SKEW = "%%MatrixMarket matrix coordinate integer skew-symmetric\n"

MALFORMED = {
    "empty file": ("", "line 1: the file is empty"),
    "comments only": ("%%MatrixMarket matrix coordinate real general\n% a\n%\n",
                      "line 4: the file ends before the size line"),
    "no banner": ("3 3 1\n1 1 1\n", "line 1: expected the banner"),
    "short banner": ("%%MatrixMarket matrix coordinate real\n3 3 0\n",
                     "line 1: expected the banner"),
    "complex field": ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n",
                      "line 1: field 'complex' is unsupported"),
    "array format": ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
                     "line 1: format 'array'"),
    "pattern skew": ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
                     "line 1: a pattern matrix cannot be skew-symmetric"),
    "complex GraphBLAS type": (REAL + "%%GraphBLAS type double complex\n1 1 0\n",
                               "line 2: GraphBLAS type 'double complex' is unsupported"),
    "size line missing a count": (REAL + "3 3\n", "line 2: expected the size line"),
    "size line with a word": (REAL + "% c\n3 3 x\n", "line 3: expected the size line"),
    "size line with a real": (REAL + "3 3 2.0\n", "line 2: expected the size line"),
    "negative size": (REAL + "3 3 -1\n", "line 2: negative size"),
    "truncated": (REAL + "3 3 3\n1 1 1.0\n2 2 2.0\n",
                  "line 4: the file ends after 2 of the 3 entries"),
    "nothing after size": (REAL + "3 3 3\n", "line 2: the file ends after 0 of the 3 entries"),
    "extra entry": (REAL + "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", "line 5: more entries than the 2"),
    "zero index": (REAL + "3 3 2\n1 1 1\n0 2 2\n", "line 4: row index 0 is outside 1..3"),
    "index out of range": (REAL + "3 3 2\n1 4 1\n2 2 2\n",
                           "line 3: column index 4 is outside 1..3"),
    "negative index": (REAL + "3 3 1\n-1 2 1\n", "line 3: '-1' is not a row index"),
    "real index": (REAL + "3 3 1\n1.0 2 1\n", "line 3: '1.0' is not a row index"),
    "word value": (REAL + "3 3 2\n1 1 1\n2 2 pi\n", "line 4: 'pi' is not a real number"),
    "value with junk": (REAL + "3 3 2\n1 1 1.5x\n2 2 2\n",
                        "line 3: '1.5x' is not a real number"),
    "two points": (REAL + "3 3 1\n1 1 1.5.3\n", "line 3: '1.5.3' is not a real number"),
    "inner sign": (REAL + "3 3 1\n1 1 1-2\n", "line 3: '1-2' is not a real number"),
    "hex value": (REAL + "3 3 1\n1 1 0x10\n", "line 3: '0x10' is not a real number"),
    "nan value": (REAL + "3 3 1\n1 1 nan\n", "line 3: 'nan' is not a real number"),
    "overflowing real": (REAL + "3 3 1\n1 1 1e400\n", "line 3: value inf is not finite"),
    "real in integer file": (INT + "3 3 1\n1 1 1.5\n", "line 3: '1.5' is not an integer"),
    "int64 overflow": (INT + "3 3 1\n1 1 9223372036854775808\n",
                       "'9223372036854775808' is not an integer in int64 range"),
    "index wrapping uint64": (REAL + "3 3 1\n18446744073709551617 1 1\n",
                              "line 3: '18446744073709551617' is not a row index"),
    "value wrapping uint64": (INT + "3 3 1\n1 1 -18446744073709551615\n",
                              "'-18446744073709551615' is not an integer in int64 range"),
    "pattern index with junk": (PATTERN + "3 3 1\n1 1x\n", "line 3: '1x' is not a column index"),
    "too few tokens": (REAL + "3 3 2\n1 1 1\n2 2\n", "line 4: found 2 numbers; expected 3"),
    "too many tokens": (REAL + "3 3 2\n1 1 1\n2 2 1 1\n", "line 4: found 4 numbers; expected 3"),
    "two entries on a line": (REAL + "3 3 2\n1 1 1 2 2 2\n", "line 3: found 6 numbers; expected 3"),
    "value on a pattern line": (PATTERN + "3 3 1\n1 2 1\n", "line 3: found 3 numbers; expected 2"),
    "comment in the data": (REAL + "3 3 2\n1 1 1\n% no\n2 2 2\n", "line 4: found 2 numbers"),
    "old Mac line ends": ("%%MatrixMarket matrix coordinate real general\r3 3 1\r1 1 1\r",
                          "line 1: expected the banner"),
    "duplicate entry": (REAL + "3 3 3\n1 2 1\n2 2 1\n1 2 5\n",
                        "line 5: entry (1, 2) repeats the entry (1, 2) on line 3"),
    "both triangles": (SYM + "3 3 2\n2 1 1\n1 2 1\n",
                       "line 4: entry (1, 2) repeats the entry (2, 1) on line 3; a symmetric "
                       "file stores each pair once"),
    "skew diagonal": (SKEW + "3 3 1\n2 2 1\n",
                      "line 3: diagonal entry (2, 2) in a skew-symmetric file"),
    "skew int64 min": (SKEW + "3 3 1\n2 1 -9223372036854775808\n",
                       "line 3: value -9223372036854775808 cannot be negated"),
    "skew unsigned type": (SKEW + "%%GraphBLAS type uint8_t\n3 3 1\n2 1 3\n",
                           "line 4: mirrored value -3 is outside the range 0..255 of type uint8_t"),
    "float type overflow": (REAL + "%%GraphBLAS type float\n2 2 1\n1 1 1e39\n",
                            "line 4: value 1e+39 is outside the range"),
    "fraction for an integer type": (
        REAL + "%%GraphBLAS type int32_t\n2 2 1\n1 1 2.5\n",
        "line 4: value 2.5 is not an integer, as type int32_t requires"),
    "rectangular": (REAL + "2 3 1\n1 3 1\n", "line 2: the matrix is 2 x 3; a rectangular matrix"),
    "token too long": (REAL + "3 3 1\n1 1 " + "1" * 200 + "\n",
                       "line 3: a token of over 128 characters"),
    "binary junk": (REAL.encode() + b"3 3 1\n1 1 \xff\xfe\n",
                    "line 3: '\xff\xfe' is not a real number"),
}


@pytest.mark.parametrize("text, reason", MALFORMED.values(), ids=MALFORMED)
def test_malformed_file_raises_naming_the_line(tmp_path, text, reason):
    path = write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        read_mtx(path)
    assert str(info.value).startswith(f"{path}, ")
    assert reason in str(info.value)


def test_errors_name_the_right_line_across_blocks(tmp_path, monkeypatch):
    # Tiny blocks: every few lines start a block, parsed on another thread.
    monkeypatch.setattr(lio, "_BLOCK_BYTES", 16)
    entries = "".join(f"{k} {k} {k}.5\n" for k in range(1, 41))
    path = write(tmp_path, REAL + "% c\n\n40 40 40\n" + entries)
    G = read_mtx(path)
    assert G.weights.tolist() == [k + 0.5 for k in range(1, 41)]
    bad = entries.replace("33 33 33.5", "33 33 33.5.5")
    with pytest.raises(FileFormatError, match=r"line 37: '33.5.5' is not a real number"):
        read_mtx(write(tmp_path, REAL + "% c\n\n40 40 40\n" + bad))
    repeated = r"line 45: entry \(1, 1\) repeats the entry \(1, 1\) on line 5"
    with pytest.raises(FileFormatError, match=repeated):
        read_mtx(write(tmp_path, REAL + "% c\n\n40 40 41\n" + entries + "1 1 0\n"))


# ---------------------------------------------------------------------- well-formed variants
def test_forgiving_but_exact_layouts(tmp_path):
    text = ("%%MatrixMarket MATRIX Coordinate Real General\r\n"
            "%%GraphBLAS comment: silently ignored\r\n"
            "\r\n"
            "% comment\r\n"
            "  4 4   7\r\n"
            "1\t2  +1.5\r\n"
            "\r\n"
            " 2 3 -0\r\n"
            "3 4 .5\r\n"
            "4 1 5.\r\n"
            "1 1 1e+2\r\n"
            "2 2 -1.25E-3\r\n"
            "3 3 0")
    G = read_mtx(write(tmp_path, text))
    assert G.directed and G.n == 4 and G.weights.dtype == np.float64
    assert stored(G) == {(0, 1): 1.5, (1, 2): 0.0, (2, 3): 0.5, (3, 0): 5.0, (0, 0): 100.0,
                         (1, 1): -1.25e-3, (2, 2): 0.0}
    assert np.signbit(G.weights[G.indptr[1] + 1])   # "-0" is the double -0.0


def test_symmetric_skew_hermitian_and_types(tmp_path):
    sym = read_mtx(write(tmp_path, "%%MatrixMarket matrix coordinate integer symmetric\n"
                                   "3 3 3\n2 1 4\n1 3 -2\n3 3 0\n"))   # either triangle
    assert not sym.directed and sym.nedges == 3 and sym.weights.dtype == np.int64
    assert stored(sym) == {(0, 1): 4, (1, 0): 4, (0, 2): -2, (2, 0): -2, (2, 2): 0}
    skew = read_mtx(write(tmp_path, SKEW + "3 3 2\n2 1 4\n3 1 -9223372036854775807\n"))
    assert skew.directed and stored(skew) == {
        (1, 0): 4, (0, 1): -4, (2, 0): -9223372036854775807, (0, 2): 9223372036854775807}
    herm = read_mtx(write(tmp_path, "%%MatrixMarket matrix coordinate real hermitian\n"
                                    "2 2 1\n2 1 0.25\n"))
    assert not herm.directed and stored(herm) == {(0, 1): 0.25, (1, 0): 0.25}
    typed = read_mtx(write(tmp_path, INT + "%%GraphBLAS type uint8_t\n2 2 2\n1 2 255\n2 1 0\n"))
    assert stored(typed) == {(0, 1): 255, (1, 0): 0}
    boolean = read_mtx(write(tmp_path, PATTERN + "%%GraphBLAS type bool\n3 3 1\n3 1\n"))
    assert not boolean.weighted and stored(boolean) == {(2, 0): 1}


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_mtx(tmp_path / "missing.mtx")
    with pytest.raises(FileNotFoundError):
        read_edgelist(tmp_path / "missing.txt.gz")


def test_sizes_without_entries(tmp_path):
    G = read_mtx(write(tmp_path, REAL + "5 5 0\n"))
    assert (G.n, G.nedges, G.weighted, G.weights.dtype) == (5, 0, True, np.float64)
    G = read_mtx(write(tmp_path, INT + "0 0 0\n"))
    assert (G.n, G.nedges, G.weights.dtype) == (0, 0, np.int64)


def test_gzip_input_and_output(tmp_path):
    G = read_mtx(DATA / "mtx" / "west0067.mtx")
    path = tmp_path / "west.mtx.gz"
    write_mtx(G, path)
    with gzip.open(path, "rt") as f:
        assert f.readline() == "%%MatrixMarket matrix coordinate real general\n"
    same_graph(read_mtx(path), G)
    with pytest.raises(FileFormatError, match="corrupt gzip data"):
        read_mtx(write(tmp_path, b"not gzip at all", "bad.mtx.gz"))


def test_write_format(tmp_path):
    G = Graph.from_edges([0, 2, 2], [1, 0, 2], directed=False)
    path = tmp_path / "g.mtx"
    write_mtx(G, path, comment="two lines\nof comment")
    assert path.read_text() == ("%%MatrixMarket matrix coordinate pattern symmetric\n"
                                "%two lines\n%of comment\n3 3 3\n2 1\n3 1\n3 3\n")
    write_mtx(Graph.from_edges([1], [0], weight=[7]), path)
    assert path.read_text().splitlines()[0] == "%%MatrixMarket matrix coordinate integer general"
    assert path.read_text().splitlines()[-1] == "2 1 7"


# ---------------------------------------------------------------------- round trips
WEIGHTS = {  # weight type -> values of it
    np.int64: st.integers(-2**63, 2**63 - 1),
    np.float64: st.floats(allow_nan=False, allow_infinity=False),
    np.int32: st.integers(-2**31, 2**31 - 1),
    np.float32: st.floats(allow_nan=False, allow_infinity=False, width=32),
}


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 9))
    m = draw(st.integers(0, 30)) if n else 0
    ids = st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)
    wtype = draw(st.sampled_from([None, *WEIGHTS]))
    w = None if wtype is None else np.array(
        draw(st.lists(WEIGHTS[wtype], min_size=m, max_size=m)), dtype=wtype)
    return Graph.from_edges(draw(ids), draw(ids), w, n=n, directed=draw(st.booleans()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(G=graphs(), gz=st.booleans())
def test_write_then_read_gives_the_same_graph(tmp_path_factory, G, gz):
    path = tmp_path_factory.mktemp("rt") / ("g.mtx.gz" if gz else "g.mtx")
    write_mtx(G, path)
    same_graph(read_mtx(path), G)


# ---------------------------------------------------------------------- edge lists
def test_edgelist_comments_whitespace_and_weights(tmp_path):
    text = ("# Directed graph: example.txt\n"
            "% also a comment\n"
            "\n"
            "0\t1\t5\n"
            "  1   2 -3  \r\n"
            "   # an indented comment\n"
            "2 0\t\t0\n"
            "3 3 7")
    G = read_edgelist(write(tmp_path, text, "g.txt"))
    assert G.directed and G.n == 4 and G.weights.dtype == np.int64
    assert stored(G) == {(0, 1): 5, (1, 2): -3, (2, 0): 0, (3, 3): 7}
    F = read_edgelist(write(tmp_path, "0 1 1\n1 2 2.5\n", "f.txt"), directed=False, n=5)
    assert not F.directed and F.n == 5 and F.weights.dtype == np.float64
    assert stored(F) == {(0, 1): 1.0, (1, 0): 1.0, (1, 2): 2.5, (2, 1): 2.5}
    U = read_edgelist(write(tmp_path, "# nodes: 3\n0 1\n1 0\n2 2\n", "u.txt"))
    assert not U.weighted and stored(U) == {(0, 1): 1, (1, 0): 1, (2, 2): 1}


def test_edgelist_gzip_and_empty(tmp_path):
    path = tmp_path / "g.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("# gz\n0 1\n1 2\n")
    G = read_edgelist(path, directed=False)
    assert (G.n, G.nedges, G.weighted) == (3, 2, False)
    E = read_edgelist(write(tmp_path, "# nothing\n\n", "e.txt"))
    assert (E.n, E.nedges) == (0, 0)
    assert read_edgelist(write(tmp_path, "", "e.txt"), n=4).n == 4


EDGELIST_ERRORS = {
    "bad token": ("0 1\n1 x\n", "line 2: 'x' is not a vertex id"),
    "negative id": ("0 1\n-1 2\n", "line 2: '-1' is not a vertex id"),
    "real id": ("0 1.0\n", "line 1: '1.0' is not a vertex id"),
    "one column": ("# c\n0\n", "line 2: found 1 number; expected 2 or 3"),
    "four columns": ("0 1 2 3\n", "line 1: found 4 numbers; expected 2 or 3"),
    "columns change": ("0 1\n1 2\n2 3 4\n", "line 3: found 3 numbers; expected 2"),
    "bad weight": ("0 1 2\n1 2 three\n", "line 2: 'three' is not a number"),
    "nan weight": ("0 1 nan\n", "line 1: 'nan' is not a number"),
    "infinite weight": ("0 1 1\n1 2 1e999\n", "line 2: weight inf is not finite"),
    "id beyond n": ("0 1\n1 4\n", "line 2: edge (1, 4) names a vertex >= n = 4"),
}


@pytest.mark.parametrize("text, reason", EDGELIST_ERRORS.values(), ids=EDGELIST_ERRORS)
def test_edgelist_errors_name_the_line(tmp_path, text, reason):
    path = write(tmp_path, text, "g.txt")
    with pytest.raises(FileFormatError) as info:
        read_edgelist(path, n=4)
    assert str(info.value).startswith(f"{path}, ")
    assert reason in str(info.value)


def test_edgelist_columns_change_in_a_later_block(tmp_path, monkeypatch):
    monkeypatch.setattr(lio, "_BLOCK_BYTES", 8)
    lines = [f"{k} {k + 1}" for k in range(30)] + ["30 31 5"]
    with pytest.raises(FileFormatError, match="line 31: found 3 numbers; expected 2"):
        read_edgelist(write(tmp_path, "\n".join(lines), "g.txt"))


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_edgelist_matches_from_edges(tmp_path_factory, data):
    m = data.draw(st.integers(0, 25))
    ids = st.lists(st.integers(0, 50), min_size=m, max_size=m)
    src, dst = data.draw(ids), data.draw(ids)
    weights = data.draw(st.sampled_from([None, WEIGHTS[np.int64], WEIGHTS[np.float64]]))
    w = None if weights is None else data.draw(st.lists(weights, min_size=m, max_size=m))
    blank = st.sampled_from([" ", "\t", "  ", " \t "])
    lines = []
    for k in range(m):
        fields = [str(src[k]), str(dst[k])] + ([] if w is None else [repr(w[k])])
        lines.append(data.draw(st.sampled_from(["", " ", "\t"])) + data.draw(blank).join(fields))
        if data.draw(st.booleans()):
            lines.append(data.draw(st.sampled_from(["", "# comment", "% 1 2 3", "  #x"])))
    path = tmp_path_factory.mktemp("el") / "g.txt"
    path.write_text("\n".join(lines))
    directed = data.draw(st.booleans())
    if w is not None and weights is WEIGHTS[np.int64]:
        w = np.array(w, dtype=np.int64)
    if m == 0:
        w = None                                  # no line tells that edges have weights
    expected = Graph.from_edges(src, dst, w, directed=directed)
    same_graph(read_edgelist(path, directed=directed), expected)
