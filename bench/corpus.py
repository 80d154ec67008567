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
the registry and writes ``<cache>/<name>.npz`` and ``<cache>/MANIFEST.json``. A missing
mirror is reported with the repository to mirror; nothing is downloaded here.

The cache folder is ``$LAGRAPH_CORPUS``, else ``bench/graphs/``. A cache file holds
``indptr`` (int64, n + 1), ``indices`` (int32, sorted within each row), ``directed``
(0-d bool) and, where the source ids were remapped, ``labels`` (int64: the source id of
each vertex). An undirected graph stores both directions of each edge, a self-loop once;
repeated edges of the source collapse into one.

Vertex ids: SNAP edge lists are 0-based and kept as they are when they are the ids
``0 .. n-1``; a list whose ids leave gaps (``wiki-Vote``) gets the ids ``0 .. n-1`` in
increasing order of the source id, and ``labels`` maps back. Matrix Market, DIMACS ``.gr``
and METIS files are 1-based: source id ``i`` becomes ``i - 1``.

Weights: the real graphs are unweighted. Tasks that need weights (MSF) use
:func:`weighted`: int64 weights uniform in ``[0, 2**32)`` (``lg.generate``'s
``"uniform"`` kind), one draw per undirected edge, the same on both of its arcs, drawn in
CSR order of the upper triangle from ``numpy.random.default_rng(crc32(name))``; the same
graph on every machine.

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
import tempfile
import zipfile
import zlib
from collections.abc import Callable
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
DEFAULT_MIRRORS = Path("/work/.mirror")
MANIFEST = "MANIFEST.json"
#: Classes of graphs in the registry.
CLASSES = ("web", "social", "p2p", "citation", "coauthor", "email", "road-osm",
           "road-dimacs", "small", "kronecker", "uniform", "grid", "mesh", "cycle-chain")
#: File formats ``fetch`` parses.
FORMATS = ("snap", "edges1", "mtx", "dimacs-gr", "metis", "bvgraph")


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a real graph lives: file(s) at a commit of a public GitHub repository.

    ``paths`` are concatenated in order (split files); a name ending in ``.gz``, ``.bz2``,
    ``.xz`` or ``.zip`` (whose one member is read) is decompressed first. A ``bvgraph``
    source names the ``.graph`` file, then the ``.properties`` file.
    """

    repo: str
    commit: str
    paths: tuple[str, ...]
    format: str


@dataclasses.dataclass(frozen=True)
class Entry:
    """One corpus graph: real (``source``) or generated (``generator``: a function of
    ``lg.generate`` and its keyword arguments). ``n`` and ``nstored`` are the expected
    vertex and stored-entry counts of a real graph, checked by ``fetch``."""

    name: str
    cls: str
    directed: bool
    n: int | None = None
    nstored: int | None = None
    source: Source | None = None
    generator: tuple[str, dict] | None = None
    note: str = ""

    @property
    def real(self) -> bool:
        return self.source is not None


def _snap(repo, commit, path, fmt="snap"):
    return Source(repo, commit, (path,), fmt)


_WEBGRAPH_RS = ("vigna/webgraph-rs", "67b106085b064003f127fe43090b737e86dabefa")
_UK2007 = ("taowei19/webgraph", "e628422da613d2e6484081d7136e4b4b677d0d33")
_HEPTH = ("SAKIYAMAbar/social-dataset", "800555472334c7f77cd74861286b98165fa8e8ab")
_HEPPH = ("SAKIYAMAbar/social-dataset", "06690e5c8c1d3351c417c257008aa12cb06d95eb")
_ENRON = ("Jokerro/Graph-Framework", "fd6d23e8489fbc746a2911451c1e0dad4feee3d9")
_CONDMAT = ("naling98/Voterank_MTQ", "5dc6a29b0d0e2b44b9a8f84d34adbeb289998e5a")
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
    Entry("soc-Slashdot0902", "social", True, 82_168, 948_464,
          _snap(*_SLASHDOT, "soc-Slashdot0902.txt.gz")),
    Entry("wiki-Vote", "social", True, 7_115, 103_689,
          _snap(*_GNUTELLA, "Wiki-Vote.txt"), note="ids remapped"),
    Entry("facebook-combined", "social", False, 4_039, 176_468,
          _snap(*_GRAPHDATA, "facebook_combined.txt")),
    Entry("p2p-Gnutella31", "p2p", True, 62_586, 147_892,
          _snap(*_GNUTELLA, "p2p-Gnutella31.txt")),
    Entry("p2p-Gnutella24", "p2p", True, 26_518, 65_369,
          _snap(*_GNUTELLA, "p2p-Gnutella24.txt")),
    Entry("p2p-Gnutella08", "p2p", True, 6_301, 20_777,
          _snap(*_GNUTELLA, "p2p-Gnutella08.txt")),
    Entry("cit-HepTh", "citation", True, 27_770, 352_807, _snap(*_HEPTH, "cit-HepTh.txt")),
    Entry("ca-HepPh", "coauthor", False, 12_008, 237_010, _snap(*_HEPPH, "ca-HepPh(1).txt")),
    Entry("ca-CondMat", "coauthor", False, 23_133, 186_936, _snap(*_CONDMAT, "ca-CondMat.txt"),
          note="ids remapped"),
    Entry("email-Enron", "email", False, 36_692, 367_662, _snap(*_ENRON, "email-Enron.txt")),
    Entry("luxembourg_osm", "road-osm", False, 114_599, 239_332,
          _snap(*_GRAPHDATA, "luxembourg_osm.mtx", "edges1"),
          note="a 1-based edge list (the Matrix Market header stripped)"),
)


def entries(classes=None, max_stored: int | None = None, real: bool | None = None) -> list[Entry]:
    """Registry entries of the given ``classes`` (all by default), of at most
    ``max_stored`` expected stored entries (generated graphs have no expected count and
    always pass), real only (``real=True``) or generated only (``False``)."""
    unknown = set(classes or ()) - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown classes {sorted(unknown)}; known: {CLASSES}")
    return [e for e in REGISTRY
            if (classes is None or e.cls in classes)
            and (max_stored is None or e.nstored is None or e.nstored <= max_stored)
            and (real is None or e.real == real)]


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
        indptr, indices = (_unpack(z) if "gaps" in z else (z["indptr"], z["indices"]))
        directed = bool(z["directed"])
    n = indptr.size - 1
    A = sp.csr_array((np.ones(indices.size, bool), indices, indptr), shape=(n, n))
    if "gaps" in np.load(path).files and not directed:
        A = (A + A.T).tocsr()
    return lg.Graph.from_scipy(A, directed=directed)


def weighted(G: lg.Graph, name: str) -> lg.Graph:
    """``G`` with the corpus weight rule's weights (module docstring), for MSF."""
    rows, cols = G.rows(), G.indices
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if G.directed:
        w = rng.integers(0, lg.generate.UNIFORM_WEIGHT_HIGH, size=G.nstored, dtype=np.int64)
        return lg.Graph.from_edges(rows, cols, w, n=G.n, directed=True)
    upper = rows <= cols
    w = rng.integers(0, lg.generate.UNIFORM_WEIGHT_HIGH, size=int(upper.sum()), dtype=np.int64)
    return lg.Graph.from_edges(rows[upper], cols[upper], w, n=G.n, directed=False)


# ---------------------------------------------------------------------- fetching
class MissingMirror(RuntimeError):
    """A repository that ``fetch`` needs has no local mirror."""


def mirror_dir(repo: str, mirrors=None) -> Path:
    """The bare git directory mirroring ``repo`` (``owner/name``) under ``mirrors``."""
    base = Path(mirrors or os.environ.get(MIRRORS_ENV) or DEFAULT_MIRRORS) / repo.replace("/", "+")
    for candidate in (base / "repo", base):
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


def decompress(data: bytes, name: str) -> bytes:
    """``data`` decompressed according to the suffix of ``name``."""
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
    text = decompress(b"".join(parts), e.source.paths[-1])
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
    raise ValueError(f"unknown format {fmt!r}; known: {FORMATS}")


def _compact(G: lg.Graph) -> tuple[lg.Graph, np.ndarray | None]:
    """``G`` without the ids that no edge uses (their order kept), and the old id of each
    new vertex; ``G`` itself and None when every id is used."""
    rows, cols, _ = G.edges()
    used = np.unique(np.concatenate([rows, cols]))
    if used.size == G.n:
        return G, None
    new = np.searchsorted(used, rows), np.searchsorted(used, cols)
    return lg.Graph.from_edges(*new, n=used.size, directed=G.directed), used.astype(np.int64)


def _one_based(G: lg.Graph) -> lg.Graph:
    """``G`` read with 1-based ids: vertex ``i`` becomes ``i - 1``."""
    rows, cols, _ = G.edges()
    if G.n and (rows.min() == 0 or cols.min() == 0):
        raise ValueError("a 1-based edge list names vertex 0")
    return lg.Graph.from_edges(rows - 1, cols - 1, n=max(G.n - 1, 0), directed=G.directed)


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
        found = (G.n, G.nstored)
        if found != (e.n, e.nstored):
            raise ValueError(f"{e.name}: found n={found[0]:,} and {found[1]:,} stored entries,"
                             f" the registry expects n={e.n:,} and {e.nstored:,}")
        arrays = dict(indptr=G.indptr.astype(np.int64), indices=G.indices.astype(np.int32),
                      directed=np.array(G.directed))
        if labels is not None:
            arrays["labels"] = labels
        _atomic_savez(out / f"{e.name}.npz", arrays)
        record = dict(name=e.name, **{"class": e.cls}, directed=e.directed, n=G.n,
                      nstored=G.nstored, repository=e.source.repo, commit=e.source.commit,
                      path="+".join(e.source.paths), format=e.source.format,
                      sha256=hashlib.sha256(b"".join(raw)).hexdigest(), labels=labels is not None)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="extract, check and cache the real graphs")
    f.add_argument("--names", nargs="+")
    f.add_argument("--mirrors")
    f.add_argument("--root", help=f"cache folder (default ${CACHE_ENV} or bench/graphs)")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch(args.names, args.root, args.mirrors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
