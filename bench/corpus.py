"""The benchmark corpus: real graphs of every class, extracted from public repositories,
beside seeded generated graphs, all loaded by one name.

Usage::

    python -m bench.corpus fetch [--names NAME ...] [--mirrors DIR]   # build the cache
    python -m bench.corpus list [--classes web road-osm ...]           # what the registry holds
    python -m bench.corpus pack DIR --max-mib 30                       # a compact copy

Real graphs are never kept in git. Each registry entry names the repository, the commit
and the file(s) holding it; ``fetch`` reads them from local bare git mirrors of those
repositories (``--mirrors``, ``$LAGRAPH_MIRRORS``, by default ``/work/.mirror``; a
repository ``owner/name`` is looked for at ``<mirrors>/owner+name/repo`` or
``<mirrors>/owner+name``), parses them, checks the vertex and stored-entry counts against
the registry and writes ``<cache>/<name>.npz`` and ``<cache>/MANIFEST.json`` (per graph:
name, class, directed, n, stored entries, weighted, repository, commit, path(s) joined by
``+``, archive member, format, the sha256 of the source files' bytes, concatenated,
whether ids were remapped, and a note). A missing
mirror is reported with the repository to mirror; nothing is downloaded here.

The cache folder is ``$LAGRAPH_CORPUS``, else ``bench/graphs/``. A cache file holds
``indptr`` (int64, n + 1), ``indices`` (int32, sorted within each row), ``directed``
(0-d bool) and, where the source ids were remapped, ``labels`` (int64: the source id of
each vertex). An undirected graph stores both directions of each edge, a self-loop once;
repeated edges of the source collapse into one.

Vertex ids: SNAP edge lists are 0-based and kept as they are when they are the ids
``0 .. n-1``; a list whose ids leave gaps (``wiki-Vote``) gets the ids ``0 .. n-1`` in
increasing order of the source id, and ``labels`` maps back. Matrix Market files, DIMACS
``.gr`` files and 1-based edge lists: source id ``i`` becomes ``i - 1``. WebGraph BV files
are 0-based.

Weights: the real graphs are unweighted, except the DIMACS road maps (arc lengths). MSF
runs on :func:`msf_graph`: the undirected graph (a directed one symmetrized: an arc
``u -> v`` is the edge ``{u, v}``) with the source's weights (the lighter of the two
directions) or else int64 weights uniform in ``[1, 2**24)``, one draw per undirected
edge, the same on both of its arcs, drawn in CSR order of the upper triangle from
``numpy.random.default_rng(crc32(name))``: the same graph on every machine, and positive
int32 values, as ECL-MST needs.

A *pack* (``pack DIR``) is a compact copy of a subset, for carrying to another machine:
``DIR/<name>.npz`` holds the rows' degrees and, per row, the sorted column ids as gaps
(the first one from 0; an undirected graph keeps only its upper triangle), split into byte
planes and compressed with lzma. :func:`load` reads both forms (``root=DIR`` or
``LAGRAPH_CORPUS=DIR``).
"""

from __future__ import annotations

import argparse
import bz2
import dataclasses
import gzip
import hashlib
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lagraph_py as lg  # noqa: E402
from bench.bvgraph import read_bvgraph  # noqa: E402

#: Environment variable naming the cache folder (or a pack folder) that :func:`load` reads.
CACHE_ENV = "LAGRAPH_CORPUS"
#: Cache folder when ``$LAGRAPH_CORPUS`` is unset (git-ignored).
DEFAULT_CACHE = Path(__file__).resolve().parent / "graphs"
#: Environment variable naming the folder of bare git mirrors that ``fetch`` reads.
MIRRORS_ENV = "LAGRAPH_MIRRORS"
#: Folder of mirrors when ``$LAGRAPH_MIRRORS`` is unset.
DEFAULT_MIRRORS = Path("/work/.mirror")
#: The cache's (and a pack's) list of graphs, with their sources.
MANIFEST = "MANIFEST.json"
#: Classes of graphs in the registry.
CLASSES = ("web", "social", "p2p", "citation", "coauthor", "email", "road-osm",
           "road-dimacs", "kronecker", "uniform", "grid", "mesh", "cycle-chain", "road-like")
#: Graphs of at most this many vertices are the corpus' small graphs (``entries(small=True)``).
SMALL_N = 50_000
#: Weights of :func:`msf_graph` on graphs without their own: uniform in this range.
MSF_WEIGHTS = (1, 2**24)
#: File formats ``fetch`` parses.
FORMATS = ("snap", "edges1", "mtx", "dimacs-gr", "pace-gr", "bvgraph")


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a real graph lives: file(s) at a commit of a public GitHub repository.

    Formats (:data:`FORMATS`): ``snap`` (SNAP edge list, ``#`` comments, 0-based ids),
    ``edges1`` (an edge list with 1-based ids), ``mtx`` (Matrix Market), ``dimacs-gr``
    (DIMACS shortest-path ``.gr``, its ``a u v w`` arcs), ``pace-gr`` (PACE 2016 ``.gr``:
    ``p tw n m``, then ``m`` lines ``u v``, 1-based) and ``bvgraph`` (WebGraph BV).
    ``paths`` are concatenated in order (split files); a name ending in ``.gz``, ``.bz2``,
    ``.xz`` or ``.zip`` (whose one member is read) is decompressed first. A ``bvgraph``
    source names the ``.graph`` file, then the ``.properties`` file. ``member`` names the
    file read from a ``.tar.gz`` archive. ``drop_lines`` (1-based) are removed before
    parsing: lines that a copy added to the published file.
    """

    repo: str
    commit: str
    paths: tuple[str, ...]
    format: str
    drop_lines: tuple[int, ...] = ()
    member: str | None = None


@dataclasses.dataclass(frozen=True)
class Entry:
    """One corpus graph: real (``source``) or generated (``generator``: a function of
    ``lg.generate`` and its keyword arguments). ``n`` and ``nstored`` are the vertex and
    stored-entry counts: exact for a real graph (``fetch`` checks them), for a generated
    one ``n`` exact and ``nstored`` the number of draws or an estimate, used only to select
    graphs by size. ``weighted`` keeps the source's weights (real road distances); other
    sources' values are dropped. ``note`` says what was mapped or dropped (in the manifest)."""

    name: str
    cls: str
    directed: bool
    n: int
    nstored: int
    source: Source | None = None
    generator: tuple[str, dict] | None = None
    weighted: bool = False
    note: str = ""

    @property
    def real(self) -> bool:
        return self.source is not None

    @property
    def small(self) -> bool:
        return self.n <= SMALL_N


def _generated(name, cls, directed, n, nstored, function, kwargs) -> Entry:
    return Entry(name, cls, directed, n, nstored, generator=(function, kwargs))


def _one_file(repo, commit, path, fmt="snap"):
    return Source(repo, commit, (path,), fmt)


_WEBGRAPH_RS = ("vigna/webgraph-rs", "67b106085b064003f127fe43090b737e86dabefa")
_UK2007 = ("taowei19/webgraph", "e628422da613d2e6484081d7136e4b4b677d0d33")
_HEPTH = ("SAKIYAMAbar/social-dataset", "800555472334c7f77cd74861286b98165fa8e8ab")
_HEPPH = ("SAKIYAMAbar/social-dataset", "06690e5c8c1d3351c417c257008aa12cb06d95eb")
_ENRON = ("ankur-maximos/Sparse_Matrix_with_Flops", "8c7ba37d79154ef2170c43337753727d6047c064")
_CONDMAT = ("naling98/Voterank_MTQ", "5dc6a29b0d0e2b44b9a8f84d34adbeb289998e5a")
_BETWEEN = ("Knightjulius/BetweenMyAss", "2fcc6b2a3ff3453ec57ef2a6199a9b632b405136")
_PACE = ("ben-strasser/road-graphs-pace16", "d65496ca1e6a99e3fb782af04ef706b7f39ce876")
_GRAPHDATA = ("fahaizhong/graphdata", "1800816d861ea15a37281e19a28b2d1cf7a7c633")
_GNUTELLA = ("joshua-benabou/Strongly-Connected-Components-and-DBSCAN",
             "4f432dbbdc213568b6c9fcfdc766a7f1ebe35c9a")
_SLASHDOT = ("AllenDowney/ProbablyOverthinkingIt", "3059bb1925250ef2d53a71da22785f5f022678fb")

#: The registry: every corpus graph, real ones first.
REGISTRY: tuple[Entry, ...] = (
    Entry("cnr-2000", "web", True, 325_557, 3_216_152,
          Source(*_WEBGRAPH_RS, ("data/cnr-2000.graph", "data/cnr-2000.properties"), "bvgraph")),
    Entry("uk-2007-05@100000", "web", True, 100_000, 3_050_615,
          Source(*_UK2007, ("uk-2007-05@100000.graph", "uk-2007-05@100000.properties"),
                 "bvgraph")),
    Entry("wb-cs-stanford", "web", True, 9_914, 36_854,
          Source(*_BETWEEN, ("wb-cs-stanford.tar.gz",), "mtx",
                 member="wb-cs-stanford/wb-cs-stanford.mtx")),
    Entry("soc-Slashdot0902", "social", True, 82_168, 948_464,
          _one_file(*_SLASHDOT, "soc-Slashdot0902.txt.gz")),
    Entry("wiki-Vote", "social", True, 7_115, 103_689,
          _one_file(*_GNUTELLA, "Wiki-Vote.txt"), note="ids remapped"),
    Entry("facebook-combined", "social", False, 4_039, 176_468,
          _one_file(*_GRAPHDATA, "facebook_combined.txt")),
    Entry("p2p-Gnutella31", "p2p", True, 62_586, 147_892,
          _one_file(*_GNUTELLA, "p2p-Gnutella31.txt")),
    Entry("p2p-Gnutella24", "p2p", True, 26_518, 65_369,
          _one_file(*_GNUTELLA, "p2p-Gnutella24.txt")),
    Entry("p2p-Gnutella08", "p2p", True, 6_301, 20_777,
          _one_file(*_GNUTELLA, "p2p-Gnutella08.txt")),
    Entry("cit-HepTh", "citation", True, 27_770, 352_807, _one_file(*_HEPTH, "cit-HepTh.txt")),
    Entry("Lederberg", "citation", True, 8_843, 41_601,
          Source(*_BETWEEN, ("Lederberg.tar.gz",), "mtx", member="Lederberg/Lederberg.mtx"),
          note="citation counts dropped"),
    Entry("ca-HepPh", "coauthor", False, 12_008, 237_010, _one_file(*_HEPPH, "ca-HepPh(1).txt")),
    Entry("ca-CondMat", "coauthor", False, 23_133, 186_936, _one_file(*_CONDMAT, "ca-CondMat.txt"),
          note="ids remapped"),
    Entry("email-Enron", "email", False, 36_692, 367_662,
          Source(*_ENRON, ("email-Enron.txt",), "snap", drop_lines=(5,)),
          note="line 5 of the copy (its counts, '36692 367662') is not in the published file"),
    Entry("rome99", "road-dimacs", True, 3_353, 8_859,
          Source(*_BETWEEN, ("rome99.gr",), "dimacs-gr"), weighted=True,
          note="arc lengths in metres; repeated arcs keep the shortest"),
    *(Entry(f"USA-road-{region}", "road-dimacs", False, n, 2 * m,
            _one_file(*_PACE, f"{region}.gr.xz", "pace-gr"),
            note=f"the 9th DIMACS challenge's USA-road-d.{region} as a simple undirected "
                 "graph (PACE 2016 conversion, DIMACS vertex ids)")
      for region, n, m in [("NY", 264_346, 365_050), ("BAY", 321_270, 397_415),
                           ("COL", 435_666, 521_200), ("FLA", 1_070_376, 1_343_951),
                           ("NW", 1_207_945, 1_410_387), ("NE", 1_524_453, 1_934_010)]),
    Entry("luxembourg_osm", "road-osm", False, 114_599, 239_332,
          _one_file(*_GRAPHDATA, "luxembourg_osm.mtx", "edges1"),
          note="a 1-based edge list (the Matrix Market header stripped)"),
    # generated: stored entries are draws (Kronecker, an upper bound) or exact counts
    _generated("kron20", "kronecker", False, 1 << 20, 32 << 20, "kronecker", dict(scale=20)),
    _generated("kron22", "kronecker", False, 1 << 22, 32 << 22, "kronecker", dict(scale=22)),
    _generated("kron20-directed", "kronecker", True, 1 << 20, 16 << 20, "kronecker",
               dict(scale=20, directed=True)),
    _generated("kron22-directed", "kronecker", True, 1 << 22, 16 << 22, "kronecker",
               dict(scale=22, directed=True)),
    *(_generated(f"uniform{d}{'-directed' * directed}", "uniform", directed, 1 << 22,
                 d << 22, "uniform", dict(n=1 << 22, mean_degree=d, directed=directed))
      for directed in (False, True) for d in (2, 4, 16)),
    _generated("grid2000", "grid", False, 2000**2, 4 * 2000 * 1999, "grid",
               dict(rows=2000, cols=2000)),
    _generated("grid2000-random", "grid", True, 2000**2, 2 * 2000 * 1999, "grid",
               dict(rows=2000, cols=2000, directed=True, orientation="random")),
    _generated("mesh128", "mesh", False, 128**3, 6 * 128**2 * 127, "mesh",
               dict(nx=128, ny=128, nz=128)),
    _generated("mesh128-sweep", "mesh", True, 128**3, round(3.3 * 128**2 * 127), "mesh",
               dict(nx=128, ny=128, nz=128, directed=True, orientation="sweep", two_way=0.1)),
    _generated("cycle-chain1000x1000", "cycle-chain", True, 10**6, 10**6 + 999,
               "cycle_chain", dict(ncycles=1000, length=1000)),
    _generated("cycle-chain1000x1000-shuffled", "cycle-chain", True, 10**6, 10**6 + 999,
               "cycle_chain", dict(ncycles=1000, length=1000, shuffle=True)),
    _generated("road55", "road-like", False, 55**2, round(0.7 * 4 * 55 * 54), "road",
               dict(rows=55, cols=55)),
    _generated("kron12", "kronecker", False, 1 << 12, 32 << 12, "kronecker", dict(scale=12)),
    _generated("uniform4-4k", "uniform", False, 4096, 4 * 4096, "uniform",
               dict(n=4096, mean_degree=4)),
    _generated("cycle-chain30x30", "cycle-chain", True, 900, 929, "cycle_chain",
               dict(ncycles=30, length=30)),
)


def entries(classes=None, max_stored: int | None = None, real: bool | None = None,
            small: bool | None = None) -> list[Entry]:
    """Registry entries, in registry order: of the given ``classes`` (all by default), of
    at most ``max_stored`` stored entries, real only (``real=True``) or generated only
    (``False``), small only (``small=True``: at most :data:`SMALL_N` vertices) or large
    only (``False``)."""
    unknown = set(classes or ()) - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown classes {sorted(unknown)}; known: {CLASSES}")
    return [e for e in REGISTRY
            if (classes is None or e.cls in classes)
            and (max_stored is None or e.nstored <= max_stored)
            and (real is None or e.real == real)
            and (small is None or e.small == small)]


def entry(name: str) -> Entry:
    """The registry entry called ``name``."""
    for e in REGISTRY:
        if e.name == name:
            return e
    raise KeyError(f"no corpus graph {name!r}; known: {[e.name for e in REGISTRY]}")


# ---------------------------------------------------------------------- loading
def cache_dir(root=None) -> Path:
    """``root``, else ``$LAGRAPH_CORPUS``, else ``bench/graphs/``."""
    return Path(root or os.environ.get(CACHE_ENV) or DEFAULT_CACHE)


def load(name: str, root=None) -> lg.Graph:
    """The corpus graph ``name``: a generated one is generated, a real one read from the
    cache or pack folder ``root`` (see :func:`cache_dir`)."""
    e = entry(name)
    if not e.real:
        function, kwargs = e.generator
        return getattr(lg.generate, function)(**kwargs)
    path = cache_dir(root) / f"{name}.npz"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python -m bench.corpus fetch "
                                f"--names {name}` (or point {CACHE_ENV} at a folder holding it)")
    with np.load(path) as z:
        arrays = unpack(z) if "gaps" in z.files else {k: z[k] for k in z.files}
    indptr, indices = arrays["indptr"], arrays["indices"]
    n = indptr.size - 1
    values = arrays.get("weights", np.ones(indices.size, bool))
    A = sp.csr_array((values, indices, indptr), shape=(n, n))
    return lg.Graph.from_scipy(A, directed=bool(arrays["directed"]))


def undirected(G: lg.Graph) -> lg.Graph:
    """``G`` itself if undirected, else its symmetrized pattern (arc ``u -> v`` becomes
    the edge ``{u, v}``)."""
    if not G.directed:
        return G
    return lg.Graph.from_edges(G.rows(), G.indices, n=G.n, directed=False)


def msf_graph(G: lg.Graph, name: str) -> lg.Graph:
    """The weighted undirected graph on which MSF runs (module docstring): ``G``
    symmetrized, with its own weights or the seeded rule's."""
    if G.weighted:
        return lg.Graph.from_edges(G.rows(), G.indices, G.weights, n=G.n, directed=False)
    U = undirected(G)
    rows, cols = U.rows(), U.indices
    upper = rows <= cols
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    w = rng.integers(*MSF_WEIGHTS, size=int(upper.sum()), dtype=np.int64)
    return lg.Graph.from_edges(rows[upper], cols[upper], w, n=G.n, directed=False)


# ---------------------------------------------------------------------- fetching
class MissingMirror(RuntimeError):
    """A repository that ``fetch`` needs has no local mirror."""


def mirror_dir(repo: str, mirrors=None) -> Path:
    """The bare git directory mirroring ``repo`` (``owner/name``) under ``mirrors``."""
    base = Path(mirrors or os.environ.get(MIRRORS_ENV) or DEFAULT_MIRRORS) / repo.replace("/", "+")
    for candidate in (base / "repo", base / "repo" / ".git", base):
        if (candidate / "HEAD").exists():
            return candidate
    raise MissingMirror(f"no mirror of github:{repo} under {base.parent}: mirror that "
                        f"repository there (a bare git directory {base}/repo), then fetch again")


def read_source(source: Source, mirrors=None) -> list[bytes]:
    """The bytes of each of the source's files, as stored at its commit."""
    git = mirror_dir(source.repo, mirrors)
    parts = []
    for path in source.paths:
        out = subprocess.run(["git", f"--git-dir={git}", "show", f"{source.commit}:{path}"],
                             capture_output=True, check=False)
        if out.returncode:
            raise RuntimeError(f"{source.repo}@{source.commit[:10]}:{path}: "
                               f"{out.stderr.decode().strip()}")
        parts.append(out.stdout)
    return parts


def decompress(data: bytes, name: str, member: str | None = None) -> bytes:
    """``data`` decompressed according to the suffix of ``name`` (``member`` of a
    ``.tar.gz`` archive)."""
    if name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            f = tar.extractfile(member)
            if f is None:
                raise ValueError(f"{name}: {member} is not a file")
            return f.read()
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith(".bz2"):
        return bz2.decompress(data)
    if name.endswith(".xz"):
        return lzma.decompress(data)
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            members = [m for m in z.namelist() if not m.endswith("/")]
            if len(members) != 1:
                raise ValueError(f"{name} holds {len(members)} files, expected one")
            return z.read(members[0])
    return data


def parse(parts: list[bytes], e: Entry) -> tuple[lg.Graph, np.ndarray | None]:
    """The graph held by the source files' bytes ``parts`` in ``e.source.format`` and the
    source label of each vertex where ids were remapped (else None)."""
    fmt = e.source.format
    if fmt == "bvgraph":
        indptr, indices = read_bvgraph(parts[0], parts[1].decode())
        n = indptr.size - 1
        A = sp.csr_array((np.ones(indices.size, bool), indices, indptr), shape=(n, n))
        return lg.Graph.from_scipy(A, directed=e.directed), None
    text = decompress(b"".join(parts), e.source.paths[-1], e.source.member)
    if e.source.drop_lines:
        lines = text.split(b"\n")
        drop = {k - 1 for k in e.source.drop_lines}
        text = b"\n".join(line for k, line in enumerate(lines) if k not in drop)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("g.mtx" if fmt == "mtx" else "g.txt")
        path.write_bytes(text)
        if fmt == "mtx":
            G = lg.read_mtx(path)
            if G.directed != e.directed:
                raise ValueError(f"{e.name}: the file says directed={G.directed}")
            return G, None
        if fmt == "snap":
            return _compact(lg.read_edgelist(path, directed=e.directed))
        if fmt == "edges1":
            return _one_based(lg.read_edgelist(path, directed=e.directed)), None
        if fmt in ("dimacs-gr", "pace-gr"):
            n, arcs = _dimacs_arcs(text, fmt)
            path.write_bytes(arcs)
            G = lg.read_edgelist(path, directed=e.directed)
            return _one_based(G, None if n is None else n + 1), None
    raise ValueError(f"unknown format {fmt!r}; known: {FORMATS}")


#: The problem line's word and the prefix of each edge line of the DIMACS-like formats.
_GR_FORMATS = {"dimacs-gr": (b"sp", b"a "), "pace-gr": (b"tw", b"")}


def _dimacs_arcs(text: bytes, fmt: str) -> tuple[int | None, bytes]:
    """A DIMACS shortest-path (``p sp n m``, arcs ``a u v w``) or PACE (``p tw n m``, edges
    ``u v``) file's vertex count (None for a copy without a problem line) and its edges as
    an edge list ``u v [w]``; with a problem line, the edge count must be ``m``."""
    word, prefix = _GR_FORMATS[fmt]
    lines = text.splitlines()
    problem = [line.split() for line in lines if line.startswith(b"p ")]
    edges = [line[len(prefix):] for line in lines if line.strip() and (
        line.startswith(prefix) if prefix else not line.startswith((b"c", b"p")))]
    if len(problem) > 1 or problem and (len(problem[0]) != 4 or problem[0][1] != word):
        raise ValueError(f"a {fmt} file has at most one problem line "
                         f"'p {word.decode()} <nodes> <edges>'")
    if not problem:
        return None, b"\n".join(edges) + b"\n"
    n, m = int(problem[0][2]), int(problem[0][3])
    if len(edges) != m:
        raise ValueError(f"the {fmt} file declares {m} edges and lists {len(edges)}")
    return n, b"\n".join(edges) + b"\n"


def _compact(G: lg.Graph) -> tuple[lg.Graph, np.ndarray | None]:
    """``G`` without the ids that no edge uses (their order kept), and the old id of each
    new vertex; ``G`` itself and None when every id is used."""
    rows, cols, _ = G.edges()
    used = np.unique(np.concatenate([rows, cols]))
    if used.size == G.n:
        return G, None
    new = np.searchsorted(used, rows), np.searchsorted(used, cols)
    return lg.Graph.from_edges(*new, n=used.size, directed=G.directed), used.astype(np.int64)


def _pattern(G: lg.Graph) -> lg.Graph:
    """``G`` without its weights."""
    rows, cols, _ = G.edges()
    return lg.Graph.from_edges(rows, cols, n=G.n, directed=G.directed)


def _one_based(G: lg.Graph, n: int | None = None) -> lg.Graph:
    """``G`` read with 1-based ids (``n`` ids, by default ``G.n``, 0 included): vertex
    ``i`` becomes ``i - 1``."""
    rows, cols, w = G.edges()
    n = G.n if n is None else n
    if rows.size and (rows.min() == 0 or cols.min() == 0):
        raise ValueError("a 1-based edge list names vertex 0")
    if G.n > n:
        raise ValueError(f"a 1-based edge list names vertex {G.n - 1} > {n - 1}")
    return lg.Graph.from_edges(rows - 1, cols - 1, w, n=max(n - 1, 0), directed=G.directed)


def fetch(names=None, root=None, mirrors=None, log=print) -> list[dict]:
    """Extract, check and cache the real graphs ``names`` (all by default); return their
    manifest records. The manifest is rewritten after each graph."""
    todo = [entry(n) for n in names] if names else entries(real=True)
    out = cache_dir(root)
    out.mkdir(parents=True, exist_ok=True)
    records, missing = [], []
    for e in todo:
        if not e.real:
            continue
        try:
            raw = read_source(e.source, mirrors)
        except MissingMirror as err:
            missing.append(e.source.repo)
            log(f"{e.name}: {err}")
            continue
        G, labels = parse(raw, e)
        if G.weighted and not e.weighted:
            G = _pattern(G)
        found = (G.n, G.nstored)
        if found != (e.n, e.nstored):
            raise ValueError(f"{e.name}: found n={found[0]:,} and {found[1]:,} stored entries,"
                             f" the registry expects n={e.n:,} and {e.nstored:,}")
        arrays = dict(indptr=G.indptr.astype(np.int64), indices=G.indices.astype(np.int32),
                      directed=np.array(G.directed))
        if G.weighted:
            arrays["weights"] = G.weights
        if labels is not None:
            arrays["labels"] = labels
        _atomic_savez(out / f"{e.name}.npz", arrays)
        record = dict(name=e.name, **{"class": e.cls}, directed=e.directed, n=G.n,
                      nstored=G.nstored, weighted=G.weighted, repository=e.source.repo,
                      commit=e.source.commit, path="+".join(e.source.paths),
                      member=e.source.member, format=e.source.format,
                      sha256=hashlib.sha256(b"".join(raw)).hexdigest(),
                      labels=labels is not None, note=e.note)
        records.append(record)
        _update_manifest(out, record)
        log(f"{e.name}: n={G.n:,} stored={G.nstored:,} ({e.cls})")
    if missing:
        log("mirror these repositories, then fetch again: "
            + " ".join(f"github:{r}" for r in sorted(set(missing))))
    return records


def _atomic_savez(path: Path, arrays: dict) -> None:
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def _update_manifest(folder: Path, record: dict) -> None:
    path = folder / MANIFEST
    old = json.loads(path.read_text()) if path.exists() else []
    merged = [r for r in old if r["name"] != record["name"]] + [record]
    order = {e.name: k for k, e in enumerate(REGISTRY)}
    merged.sort(key=lambda r: order.get(r["name"], len(order)))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=1) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------- packs
#: lzma preset of the packs (9: the smallest files; packing the corpus takes about a minute).
PACK_PRESET = 9
PACK_README = "README"
#: The pack's README: how to load it, with or without this module.
PACK_HELP = """\
A pack of the bench corpus ({mib:.1f} MiB, {count} graphs; MANIFEST.json lists them).
Load one from the repository root with `{env}={folder} python -c 'from bench.corpus import load;
G = load("{name}")'` (or `bench.corpus.load(name, root="{folder}")`);
`python -m bench.corpus unpack {folder} DIR` writes plain npz files (indptr, indices, directed,
optional weights). Without bench/corpus.py, with numpy only: each NAME.npz holds n, directed
and, lzma-compressed and split into byte planes (all first bytes, then all second bytes ...),
the row degrees (<u4), the column gaps (<u4: per row, its first column as the zig-zag
(2d, or -2d-1 when negative) of column - row, then each column minus the previous one) and
optional weights (<i8); an undirected graph keeps only its entries with column >= row.

    import lzma, numpy as np
    def planes(b, t):
        r = np.frombuffer(lzma.decompress(b.tobytes()), np.uint8)
        return r.reshape(np.dtype(t).itemsize, -1).T.copy().view(t).ravel()
    z = np.load("{folder}/{name}.npz")
    deg, gap = (planes(z[k], "<u4").astype(np.int64) for k in ("degrees", "gaps"))
    rows = np.repeat(np.arange(int(z["n"])), deg)
    first = np.r_[0, np.cumsum(deg)[:-1]][deg > 0]
    step = gap.copy(); step[first] = 0; within = np.cumsum(step)
    within -= np.repeat(within[first], deg[deg > 0])
    g = gap[first]; start = rows[first] + np.where(g % 2 == 0, g // 2, -(g + 1) // 2)
    cols = np.repeat(start, deg[deg > 0]) + within     # then mirror if not z["directed"]
"""


def pack_arrays(indptr, indices, directed: bool, weights=None) -> dict:
    """A graph's CSR arrays in pack form (module docstring): ``n``, ``directed``, and the
    lzma-compressed byte planes of the row degrees, the column gaps and the weights
    (int64) of the stored entries kept (an undirected graph: ``column >= row``)."""
    n = indptr.size - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cols = np.asarray(indices, np.int64)
    keep = np.ones(cols.size, bool) if directed else cols >= rows
    rows, cols = rows[keep], cols[keep]
    degrees = np.bincount(rows, minlength=n)
    gaps = np.diff(cols, prepend=0)
    first = np.cumsum(degrees)[degrees > 0] - degrees[degrees > 0]
    gaps[first] = _zigzag(cols[first] - rows[first])
    out = dict(n=np.int64(n), directed=np.bool_(directed),
               degrees=_planes(degrees.astype("<u4")), gaps=_planes(gaps.astype("<u4")))
    if weights is not None:
        out["weights"] = _planes(np.asarray(weights)[keep].astype("<i8"))
    return out


def unpack(z) -> dict:
    """The CSR arrays (``indptr``, ``indices``, ``directed``, optional ``weights``) of a
    graph in pack form ``z`` (a mapping, such as an open ``.npz``)."""
    n, directed = int(z["n"]), bool(z["directed"])
    degrees = _unplanes(z["degrees"], "<u4").astype(np.int64)
    gaps = _unplanes(z["gaps"], "<u4").astype(np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), degrees)
    first = np.cumsum(degrees)[degrees > 0] - degrees[degrees > 0]
    start_col = rows[first] + _unzigzag(gaps[first])
    steps = gaps.copy()
    steps[first] = 0
    within = np.cumsum(steps)
    within -= np.repeat(within[first], degrees[degrees > 0])
    cols = np.repeat(start_col, degrees[degrees > 0]) + within
    weights = _unplanes(z["weights"], "<i8") if "weights" in z else None
    if not directed:
        loop = rows == cols
        rows, cols = np.concatenate([rows, cols[~loop]]), np.concatenate([cols, rows[~loop]])
        if weights is not None:
            weights = np.concatenate([weights, weights[~loop]])
    A = sp.coo_array((np.ones(rows.size, bool) if weights is None else weights, (rows, cols)),
                     shape=(n, n)).tocsr()
    A.sort_indices()
    out = dict(indptr=A.indptr.astype(np.int64), indices=A.indices.astype(np.int32),
               directed=np.bool_(directed))
    if weights is not None:
        out["weights"] = A.data
    return out


def _zigzag(v: np.ndarray) -> np.ndarray:
    return np.where(v >= 0, 2 * v, -2 * v - 1)


def _unzigzag(u: np.ndarray) -> np.ndarray:
    return np.where(u % 2 == 0, u // 2, -(u + 1) // 2)


def _planes(a: np.ndarray) -> np.ndarray:
    """``a``'s bytes, byte plane by byte plane (all first bytes, then all second bytes
    ...), lzma-compressed: small values then compress to little more than their entropy."""
    planes = a.view(np.uint8).reshape(-1, a.itemsize).T.tobytes()
    return np.frombuffer(lzma.compress(planes, preset=PACK_PRESET), np.uint8)


def _unplanes(buffer: np.ndarray, dtype: str) -> np.ndarray:
    raw = np.frombuffer(lzma.decompress(np.asarray(buffer).tobytes()), np.uint8)
    size = np.dtype(dtype).itemsize
    return raw.reshape(size, -1).T.copy().view(dtype).ravel()


def choose_pack(sizes: dict[str, int], budget: int) -> list[str]:
    """Names of real graphs (``sizes``: packed bytes by name) to pack within ``budget``
    bytes: first the smallest graph of each class, then each class's graph raised to
    the largest that fits, then further graphs, largest first, while they fit."""
    by_class: dict[str, list[str]] = {}
    for name in sorted(sizes, key=sizes.get):
        by_class.setdefault(entry(name).cls, []).append(name)
    chosen = {cls: names[0] for cls, names in by_class.items()}
    if sum(sizes[n] for n in chosen.values()) > budget:
        raise ValueError(f"the smallest graph of each class takes "
                         f"{sum(sizes[n] for n in chosen.values()) / 2**20:.1f} MiB, "
                         f"over the {budget / 2**20:.1f} MiB budget")
    for cls, names in by_class.items():
        spare = budget - sum(sizes[n] for n in chosen.values()) + sizes[chosen[cls]]
        chosen[cls] = max((n for n in names if sizes[n] <= spare), key=sizes.get)
    picked = set(chosen.values())
    used = sum(sizes[n] for n in picked)
    for name in sorted(sizes, key=sizes.get, reverse=True):
        if name not in picked and used + sizes[name] <= budget:
            picked.add(name)
            used += sizes[name]
    order = {e.name: k for k, e in enumerate(REGISTRY)}
    return sorted(picked, key=order.get)


def pack(folder, max_mib: float = 30.0, names=None, root=None, log=print) -> list[str]:
    """Write a pack of the cached real graphs ``names`` (by default :func:`choose_pack`'s
    choice within ``max_mib`` MiB) to ``folder``, with its manifest and a README line;
    return the names packed."""
    source = cache_dir(root)
    records = {r["name"]: r for r in json.loads((source / MANIFEST).read_text())}
    candidates = names or [n for n in records if n in {e.name for e in REGISTRY}]
    packed = {}
    for name in candidates:
        with np.load(source / f"{name}.npz") as z:
            packed[name] = pack_arrays(z["indptr"], z["indices"], bool(z["directed"]),
                                       z["weights"] if "weights" in z.files else None)
    sizes = {n: sum(a.nbytes for a in arrays.values()) for n, arrays in packed.items()}
    budget = int(max_mib * 2**20)
    chosen = list(names) if names else choose_pack(sizes, budget)
    total = sum(sizes[n] for n in chosen)
    if total > budget:
        raise ValueError(f"the pack would take {total / 2**20:.1f} MiB, over {max_mib} MiB")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.npz"):
        old.unlink()
    for name in chosen:
        _atomic_savez(folder / f"{name}.npz", packed[name])
        log(f"{name}: {sizes[name] / 2**20:.2f} MiB ({records[name]['class']})")
    manifest = [dict(records[n], packed_bytes=sizes[n]) for n in chosen]
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    (folder / PACK_README).write_text(PACK_HELP.format(
        mib=total / 2**20, count=len(chosen), env=CACHE_ENV, folder=folder.name,
        name=chosen[0]))
    log(f"{len(chosen)} graphs, {total / 2**20:.1f} MiB in {folder}")
    return chosen


def unpack_folder(folder, out) -> list[str]:
    """Write every graph of the pack ``folder`` to ``out`` as plain cache files (with the
    manifest); return their names."""
    folder, out = Path(folder), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    records = json.loads((folder / MANIFEST).read_text())
    for r in records:
        with np.load(folder / f"{r['name']}.npz") as z:
            _atomic_savez(out / f"{r['name']}.npz", unpack(z))
        _update_manifest(out, {k: v for k, v in r.items() if k != "packed_bytes"})
    return [r["name"] for r in records]


def main(argv=None) -> int:
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m bench.corpus",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="extract, check and cache the real graphs")
    f.add_argument("--names", nargs="+", help="registry names (default: every real graph)")
    f.add_argument("--mirrors", help=f"folder of bare git mirrors (default ${MIRRORS_ENV} "
                                     f"or {DEFAULT_MIRRORS})")
    f.add_argument("--root", help=f"cache folder (default ${CACHE_ENV} or bench/graphs)")
    ls = sub.add_parser("list", help="the registry, with what the cache holds")
    ls.add_argument("--classes", nargs="+", choices=CLASSES)
    ls.add_argument("--root")
    pk = sub.add_parser("pack", help="a compact copy of cached real graphs")
    pk.add_argument("folder")
    pk.add_argument("--max-mib", type=float, default=30.0)
    pk.add_argument("--names", nargs="+", help="graphs to pack (default: chosen to fit)")
    pk.add_argument("--root")
    up = sub.add_parser("unpack", help="a pack's graphs as plain cache files")
    up.add_argument("folder")
    up.add_argument("out")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch(args.names, args.root, args.mirrors)
    elif args.command == "list":
        folder = cache_dir(args.root)
        for e in entries(args.classes):
            state = ("generated" if not e.real else
                     "cached" if (folder / f"{e.name}.npz").exists() else "not cached")
            counts = f"n={e.n:,} stored={'' if e.real else '~'}{e.nstored:,}"
            print(f"{e.name:30} {e.cls:12} {'directed' if e.directed else 'undirected':10} "
                  f"{counts:34} {state}{'' if e.real else ': ' + _call(e)}")
    elif args.command == "pack":
        pack(args.folder, args.max_mib, args.names, args.root)
    else:
        print(" ".join(unpack_folder(args.folder, args.out)))
    return 0


def _call(e: Entry) -> str:
    function, kwargs = e.generator
    return f"{function}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


if __name__ == "__main__":
    sys.exit(main())
