"""The benchmark corpus (bench/corpus.py, bench/bvgraph.py): the BV reader against an
encoder written from the format's description, fetching from a local git mirror, counts
checked, the cache and pack forms read back to the same graph, the pack's choice, the
MSF weight rule and the command line."""

import gzip
import io
import json
import lzma
import subprocess
import tarfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import graphs

import lagraph_py as lg
from bench import bvgraph, corpus
from lagraph_py.graph import Graph


def same(G: Graph, H: Graph) -> bool:
    return (G.n == H.n and G.directed == H.directed and G.weighted == H.weighted
            and np.array_equal(G.indptr, H.indptr) and np.array_equal(G.indices, H.indices)
            and (not G.weighted or np.array_equal(G.weights, H.weights)))


# ---------------------------------------------------------------------- a BV encoder
class Bits:
    """A bit stream written most significant bit first, in the codes of the BV format."""

    def __init__(self):
        self.bits = []

    def int(self, value: int, width: int):
        self.bits += [(value >> (width - 1 - i)) & 1 for i in range(width)]

    def unary(self, v: int):
        self.bits += [0] * v + [1]

    def gamma(self, v: int):
        x = v + 1
        self.unary(x.bit_length() - 1)
        self.int(x - (1 << (x.bit_length() - 1)), x.bit_length() - 1)

    def zeta(self, v: int, k: int):
        x = v + 1
        h = (x.bit_length() - 1) // k
        left = 1 << (h * k)                  # x in [left, left * 2**k): minimal binary of
        size = (left << k) - left            # x - left over an interval of this size
        self.unary(h)
        width = size.bit_length() - 1
        short = (1 << (width + 1)) - size    # this many values take width bits
        if x - left < short:
            self.int(x - left, width)
        else:
            self.int(x - left + short, width + 1)

    def bytes(self) -> bytes:
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return np.packbits(np.array(bits, np.uint8)).tobytes()


def zigzag(v: int) -> int:
    return 2 * v if v >= 0 else -2 * v - 1


def runs(values: list[int], minimum: int) -> list[tuple[int, int]]:
    """Maximal runs ``(first, length)`` of consecutive integers in sorted ``values`` of at
    least ``minimum`` (> 0) elements."""
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[i - 1] + 1:
            if i - start >= minimum:
                out.append((values[start], i - start))
            start = i
    return out


def encode(lists: list[list[int]], window: int, min_interval: int, k: int,
           refs: list[int]) -> bytes:
    """BV-encode successor lists; vertex ``x`` refers back ``refs[x]`` vertices (clipped
    to the window and to ``x``)."""
    out = Bits()
    for x, succ in enumerate(lists):
        out.gamma(len(succ))
        if not succ:
            continue
        r = min(refs[x], window, x)
        if window:
            out.unary(r)
        extra = list(succ)
        if r:
            ref = lists[x - r]
            copied = [v in succ for v in ref]
            lengths, want = [], True          # alternate copy / skip runs, copy first
            i = 0
            while i < len(ref):
                j = i
                while j < len(ref) and copied[j] == want:
                    j += 1
                lengths.append(j - i)
                i, want = j, not want
            blocks = lengths[:-1] if lengths else []      # the last run is implicit
            out.gamma(len(blocks))
            for b, length in enumerate(blocks):
                out.gamma(length - (b > 0))
            extra = [v for v in succ if v not in set(ref)]
        if extra and min_interval:
            intervals = runs(extra, min_interval)
            out.gamma(len(intervals))
            prev = None
            for first, length in intervals:
                out.gamma(zigzag(first - x) if prev is None else first - prev - 1)
                out.gamma(length - min_interval)
                prev = first + length
            inside = {v for first, length in intervals for v in range(first, first + length)}
            extra = [v for v in extra if v not in inside]
        for t, v in enumerate(extra):
            out.zeta(zigzag(v - x) if t == 0 else v - extra[t - 1] - 1, k)
    return out.bytes()


def properties(nodes, arcs, window=7, min_interval=4, k=3, flags=""):
    return (f"#BVGraph properties\nnodes={nodes}\narcs={arcs}\nwindowsize={window}\n"
            f"minintervallength={min_interval}\nzetak={k}\ncompressionflags={flags}\n"
            f"version=0\n")


@st.composite
def bv_cases(draw):
    n = draw(st.integers(0, 30))
    lists = []
    for x in range(n):
        kind = draw(st.sampled_from(["random", "runs", "copy"]))
        if kind == "copy" and x:              # a near copy of an earlier list
            base = set(lists[draw(st.integers(max(0, x - 8), x - 1))])
            base ^= set(draw(st.lists(st.integers(0, n - 1), max_size=3)))
        elif kind == "runs":                  # consecutive ids, for the intervals
            start = draw(st.integers(0, n - 1))
            base = set(range(start, min(n, start + draw(st.integers(0, 12)))))
        else:
            base = set(draw(st.lists(st.integers(0, n - 1), max_size=8)))
        lists.append(sorted(base))
    window = draw(st.sampled_from([0, 1, 3, 7]))
    min_interval = draw(st.sampled_from([0, 1, 2, 4]))
    k = draw(st.integers(1, 4))
    refs = [draw(st.integers(0, 8)) for _ in range(n)]
    return lists, window, min_interval, k, refs


@settings(max_examples=300, deadline=None)
@given(bv_cases())
def test_bv_reader_decodes_what_the_format_describes(case):
    lists, window, min_interval, k, refs = case
    data = encode(lists, window, min_interval, k, refs)
    arcs = sum(map(len, lists))
    indptr, indices = bvgraph.read_bvgraph(
        data, properties(len(lists), arcs, window, min_interval, k))
    assert indptr.tolist() == [0, *np.cumsum([len(s) for s in lists]).tolist()]
    assert indices.tolist() == [v for s in lists for v in s]


def test_bv_codes_by_hand():
    # gamma(1) = 010, zeta_3(0) = 1 + 00 (h = 0, two bits), gamma(0) = 1: vertex 0 has one
    # successor (itself: gap 0, zig-zag 0), vertex 1 none; no window, no intervals
    lists = [[0], []]
    data = encode(lists, 0, 0, 3, [0, 0])
    assert data == bytes([0b01010010])           # 010 100 1, then a pad bit
    assert bvgraph.read_bvgraph(data, properties(2, 1, 0, 0, 3))[1].tolist() == [0]


def test_bv_reader_on_a_published_example():
    # a 9-vertex, 12-arc graph compressed with the default codes and minimum interval
    # length 3, with its bytes and decoded lists, as published in a walk-through of the
    # format ("Webgraph from scratch: BVGraph"): vertex 2 copies vertex 1's list, vertex 3
    # is one interval, vertex 6 copies vertex 5's list
    data = bytes.fromhex("7d c5 ea 64 a7 27 72 97 a9 e0")
    indptr, indices = bvgraph.read_bvgraph(data, properties(9, 12, 7, 3, 3))
    lists = [indices[a:b].tolist() for a, b in zip(indptr[:-1], indptr[1:])]
    assert lists == [[1, 2], [3], [3], [4, 5, 6], [5, 6, 8], [7], [7], [], []]
    assert encode(lists, 7, 3, 3, [0, 0, 1, 0, 0, 0, 1, 0, 0]) == data     # this file's encoder


@pytest.mark.parametrize("change, match", [
    (dict(flags="OUTDEGREES_DELTA"), "compression flags"),
    (dict(arcs=4), "holds 3 arcs"),
    (dict(arcs=2), "malformed"),
    (dict(nodes=2), "malformed"),            # a successor id out of range
])
def test_bv_reader_rejects_bad_input(change, match):
    lists = [[0, 2], [1], []]
    data = encode(lists, 7, 4, 3, [0, 1, 0])
    props = dict(nodes=3, arcs=3)
    props.update(change)
    with pytest.raises(ValueError, match=match):
        bvgraph.read_bvgraph(data, properties(**props))


def test_bv_reader_rejects_a_truncated_stream_and_missing_properties():
    lists = [list(range(20)) for _ in range(20)]
    data = encode(lists, 7, 4, 3, [1] * 20)
    with pytest.raises(ValueError, match="malformed"):
        bvgraph.read_bvgraph(data[:3], properties(20, 400))
    with pytest.raises(ValueError, match="lack"):
        bvgraph.read_bvgraph(data, "nodes=20\narcs=400\n")


# ---------------------------------------------------------------------- fetching
SNAP = b"# Directed graph\n# Nodes: 4 Edges: 5\n10\t20\n20\t10\n20\t30\n40\t40\n10\t20\n"
DIMACS = (b"c a road\np sp 5 4\na 1 2 7\na 2 1 9\na 2 3 5\na 5 4 1\n")
MTX = b"%%MatrixMarket matrix coordinate integer symmetric\n4 4 3\n2 1 5\n3 2 6\n4 4 1\n"


def tar_gz(member: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A mirror of a repository ``someone/graphs`` holding one file per format, and a
    registry of entries reading them; returns (mirrors folder, commit)."""
    work = tmp_path / "work"
    work.mkdir()
    lists = [[1, 2, 3, 4, 5, 9], [0, 2, 3, 4, 5, 9], [], [0]] + [[]] * 6
    files = {
        "snap.txt.gz": gzip.compress(SNAP),
        "plain.txt": b"0 1\n1 2\n2 0\n",
        "edges.mtx": b"2 1\n3 1\n",
        "road.gr": DIMACS,
        "pace.gr.xz": lzma.compress(b"p tw 4 2\n1 2\n2 3\n"),
        "bundle.tar.gz": tar_gz("dir/g.mtx", MTX),
        "extra.txt": b"# header\n3 3\n0 1\n",
        "web.graph": encode(lists, 7, 4, 3, [0, 1, 0, 0] + [0] * 6),
        "web.properties": properties(10, 13).encode(),
    }
    for name, data in files.items():
        (work / name).write_bytes(data)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "graphs"], check=True)
    commit = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work),
                    str(mirrors / "someone+graphs" / "repo")], check=True)
    repo = ("someone/graphs", commit)
    registry = (
        corpus.Entry("snap", "social", True, 4, 4, corpus.Source(*repo, ("snap.txt.gz",),
                                                                 "snap")),
        corpus.Entry("plain", "p2p", False, 3, 6, corpus.Source(*repo, ("plain.txt",), "snap")),
        corpus.Entry("edges1", "road-osm", False, 3, 4,
                     corpus.Source(*repo, ("edges.mtx",), "edges1")),
        corpus.Entry("road", "road-dimacs", True, 5, 4, corpus.Source(*repo, ("road.gr",),
                                                                      "dimacs-gr"),
                     weighted=True),
        corpus.Entry("pace", "road-dimacs", False, 4, 4,
                     corpus.Source(*repo, ("pace.gr.xz",), "pace-gr")),
        corpus.Entry("bundle", "citation", False, 4, 5,
                     corpus.Source(*repo, ("bundle.tar.gz",), "mtx", member="dir/g.mtx")),
        corpus.Entry("extra", "email", True, 2, 1,
                     corpus.Source(*repo, ("extra.txt",), "snap", drop_lines=(2,))),
        corpus.Entry("web", "web", True, 10, 13,
                     corpus.Source(*repo, ("web.graph", "web.properties"), "bvgraph")),
        corpus.Entry("gen", "grid", False, 6, 14, generator=("grid", dict(rows=2, cols=3))),
    )
    monkeypatch.setattr(corpus, "REGISTRY", registry)
    return mirrors, commit


def test_fetch_reads_every_format_and_checks_counts(mirror, tmp_path):
    mirrors, commit = mirror
    cache = tmp_path / "cache"
    records = corpus.fetch(root=cache, mirrors=mirrors, log=lambda line: None)
    assert [r["name"] for r in records] == ["snap", "plain", "edges1", "road", "pace",
                                            "bundle", "extra", "web"]
    manifest = json.loads((cache / corpus.MANIFEST).read_text())
    assert manifest == records
    assert all(r["commit"] == commit and r["repository"] == "someone/graphs" for r in records)
    load = lambda name: corpus.load(name, root=cache)                     # noqa: E731
    # sparse SNAP ids 10, 20, 30, 40 become 0..3 in increasing order; the repeat collapses
    snap = load("snap")
    assert snap.directed and snap.edges()[0].tolist() == [0, 1, 1, 3]
    assert snap.edges()[1].tolist() == [1, 0, 2, 3]
    with np.load(cache / "snap.npz") as z:
        assert z["labels"].tolist() == [10, 20, 30, 40]
        assert z["indptr"].dtype == np.int64 and z["indices"].dtype == np.int32
    assert [r["labels"] for r in records] == [True] + [False] * 7
    assert load("plain").nedges == 3 and not load("plain").directed
    assert load("edges1").edges()[0].tolist() == [0, 0]                    # 1-based ids
    road = load("road")                                                   # weights kept
    assert road.n == 5 and road.weights.tolist() == [7, 9, 5, 1]
    assert road.edges()[0].tolist() == [0, 1, 1, 4]
    pace = load("pace")                           # 4 vertices, the last one isolated
    assert pace.n == 4 and not pace.directed and pace.edges()[1].tolist() == [1, 2]
    bundle = load("bundle")                                               # weights dropped
    assert not bundle.weighted and bundle.nedges == 3 and bundle.nself_loops == 1
    assert load("extra").edges()[0].tolist() == [0]                       # line 2 dropped
    web = load("web")
    assert web.indices[web.indptr[1]:web.indptr[2]].tolist() == [0, 2, 3, 4, 5, 9]


def test_fetch_rejects_counts_that_differ(mirror, tmp_path, monkeypatch):
    bad = corpus.Entry("plain", "p2p", False, 3, 5, corpus.REGISTRY[1].source)
    monkeypatch.setattr(corpus, "REGISTRY", (bad,))
    with pytest.raises(ValueError, match="found n=3 and 6 stored entries"):
        corpus.fetch(root=tmp_path / "cache", mirrors=mirror[0], log=lambda line: None)
    assert not (tmp_path / "cache" / "plain.npz").exists()


def test_fetch_names_a_missing_mirror_and_goes_on(mirror, tmp_path, monkeypatch):
    lost = corpus.Entry("lost", "web", True, 1, 1,
                        corpus.Source("nobody/nothing", "0" * 40, ("g.txt",), "snap"))
    monkeypatch.setattr(corpus, "REGISTRY", (lost, corpus.REGISTRY[1]))
    lines = []
    records = corpus.fetch(root=tmp_path / "cache", mirrors=mirror[0], log=lines.append)
    assert [r["name"] for r in records] == ["plain"]
    assert any("github:nobody/nothing" in line for line in lines)


def test_fetch_reports_a_missing_file(mirror, tmp_path, monkeypatch):
    gone = corpus.Entry("gone", "web", True, 1, 1,
                        corpus.Source("someone/graphs", mirror[1], ("absent.txt",), "snap"))
    monkeypatch.setattr(corpus, "REGISTRY", (gone,))
    with pytest.raises(RuntimeError, match="absent.txt"):
        corpus.fetch(root=tmp_path / "cache", mirrors=mirror[0], log=lambda line: None)


def test_load_generated_and_unknown(mirror, tmp_path):
    assert same(corpus.load("gen"), lg.generate.grid(2, 3))
    with pytest.raises(KeyError, match="no corpus graph"):
        corpus.load("nothing")
    with pytest.raises(FileNotFoundError, match="fetch"):
        corpus.load("plain", root=tmp_path / "empty")


def test_entries_filter(mirror):
    assert [e.name for e in corpus.entries(["p2p", "grid"])] == ["plain", "gen"]
    assert [e.name for e in corpus.entries(real=False)] == ["gen"]
    assert [e.name for e in corpus.entries(max_stored=4)] == ["snap", "edges1", "road",
                                                              "pace", "extra"]
    assert len(corpus.entries(small=False)) == 0
    with pytest.raises(ValueError, match="unknown classes"):
        corpus.entries(["webs"])


def test_the_real_registry_is_consistent():
    names = [e.name for e in corpus.REGISTRY]
    assert len(names) == len(set(names))
    for e in corpus.REGISTRY:
        assert e.cls in corpus.CLASSES and e.n >= 0 and e.nstored >= 0
        assert e.real != (e.generator is not None)
        if e.real:
            assert len(e.source.commit) == 40 and e.source.format in corpus.FORMATS
    real = {e.cls for e in corpus.REGISTRY if e.real}
    assert {"web", "social", "p2p", "citation", "coauthor", "email", "road-osm",
            "road-dimacs"} <= real


# ---------------------------------------------------------------------- packs
@settings(max_examples=60, deadline=None)
@given(graphs(max_n=12), st.booleans())
def test_pack_round_trip(G, weighted):
    A = G.to_scipy()
    w = None
    if weighted:
        H = corpus.msf_graph(G, "g") if not G.directed else G
        A = H.to_scipy()
        w = A.data.astype(np.int64) if H.weighted else None
    arrays = corpus.pack_arrays(A.indptr, A.indices, G.directed, w)
    back = corpus.unpack(arrays)
    assert bool(back["directed"]) == G.directed
    np.testing.assert_array_equal(back["indptr"], A.indptr)
    np.testing.assert_array_equal(back["indices"], A.indices)
    if w is not None:
        np.testing.assert_array_equal(back["weights"], w)
    else:
        assert "weights" not in back


def test_pack_keeps_half_of_an_undirected_graph():
    G = lg.generate.grid(30, 30)
    half = corpus.pack_arrays(G.indptr, G.indices, False)
    full = corpus.pack_arrays(G.indptr, G.indices, True)
    assert len(corpus._unplanes(half["gaps"], "<u4")) == G.nstored // 2
    assert len(corpus._unplanes(full["gaps"], "<u4")) == G.nstored


def test_choose_pack_covers_every_class_within_the_budget(mirror):
    sizes = {"snap": 50, "plain": 10, "edges1": 40, "road": 5, "bundle": 30, "extra": 3,
             "web": 100}
    # one graph per class here, so every class must fit: 238 bytes
    assert corpus.choose_pack(sizes, 238) == list(sizes)
    with pytest.raises(ValueError, match="smallest graph of each class"):
        corpus.choose_pack(sizes, 237)


def test_choose_pack_raises_each_class_to_the_largest_that_fits(monkeypatch):
    E = corpus.Entry
    monkeypatch.setattr(corpus, "REGISTRY", tuple(
        E(name, cls, True, 1, 1) for name, cls in
        [("w1", "web"), ("w2", "web"), ("w3", "web"), ("s1", "social"), ("s2", "social")]))
    sizes = {"w1": 1, "w2": 5, "w3": 50, "s1": 2, "s2": 4}
    assert corpus.choose_pack(sizes, 9) == ["w2", "s2"]        # 5 + 4; w3 does not fit
    assert corpus.choose_pack(sizes, 10) == ["w1", "w2", "s2"]  # then w1 fits beside
    assert corpus.choose_pack(sizes, 100) == ["w1", "w2", "w3", "s1", "s2"]


def test_pack_and_unpack_folders(mirror, tmp_path):
    cache, packed, plain = tmp_path / "cache", tmp_path / "pack", tmp_path / "plain"
    corpus.fetch(root=cache, mirrors=mirror[0], log=lambda line: None)
    chosen = corpus.pack(packed, 1.0, root=cache, log=lambda line: None)
    assert set(chosen) == {"snap", "plain", "edges1", "road", "pace", "bundle", "extra",
                           "web"}
    assert "LAGRAPH_CORPUS=pack" in (packed / corpus.PACK_README).read_text()
    assert corpus.unpack_folder(packed, plain) == chosen
    for name in chosen:
        reference = corpus.load(name, root=cache)
        assert same(corpus.load(name, root=packed), reference)
        assert same(corpus.load(name, root=plain), reference)
    with pytest.raises(ValueError, match="over"):
        corpus.pack(tmp_path / "small", 1e-5, names=["web"], root=cache, log=lambda line: None)


# ---------------------------------------------------------------------- forms for tasks
def test_msf_graph_weights():
    G = lg.generate.kronecker(8, seed=1, directed=True)
    H = corpus.msf_graph(G, "k")
    assert not H.directed and H.weights.dtype == np.int64
    A = H.to_scipy()
    assert (A != A.T).nnz == 0                                   # one weight per edge
    assert H.weights.min() >= corpus.MSF_WEIGHTS[0] and H.weights.max() < corpus.MSF_WEIGHTS[1]
    assert same(H, corpus.msf_graph(G, "k"))                     # seeded by the name
    assert not same(H, corpus.msf_graph(G, "other"))
    pattern = corpus.undirected(G)
    assert np.array_equal(pattern.indices, H.indices) and not pattern.weighted
    # a graph with its own weights keeps them: the lighter direction of each pair
    D = lg.Graph.from_edges([0, 1, 1], [1, 0, 2], [5, 3, 4])
    assert corpus.msf_graph(D, "d").weights.tolist() == [3, 3, 4, 4]
    U = lg.generate.grid(3, 3)
    assert corpus.undirected(U) is U


def test_command_line(mirror, tmp_path, capsys):
    cache = str(tmp_path / "cache")
    assert corpus.main(["fetch", "--root", cache, "--mirrors", str(mirror[0]),
                        "--names", "plain", "road"]) == 0
    assert corpus.main(["list", "--root", cache]) == 0
    out = capsys.readouterr().out
    assert "plain" in out and "cached" in out and "not cached" in out and "grid(" in out
    assert corpus.main(["pack", str(tmp_path / "pk"), "--root", cache, "--names", "plain"]) == 0
    assert corpus.main(["unpack", str(tmp_path / "pk"), str(tmp_path / "up")]) == 0
    assert same(corpus.load("plain", root=tmp_path / "up"), corpus.load("plain", root=cache))
