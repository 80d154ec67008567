"""The GAP Benchmark Suite against lagraph_py on the CPU: BFS and connected components on
the same graphs, from distinct random sources, on the same number of threads, in one run.

Usage::

    python bench/cpu_gap.py                  # Kronecker 18 and 20, grid 1000 x 1000, corpus
    python bench/cpu_gap.py --graphs kron18 cnr-2000 --tasks cc
    python bench/cpu_gap.py --quick          # Kronecker 14, grid 200 x 200, small corpus graphs

Graphs: ``kron18`` and ``kron20`` (Graph500 Kronecker), ``grid1000`` (1000 x 1000), and
every real graph of the corpus (``bench/corpus.py``) found in ``--corpus`` (default the
corpus cache: ``$LAGRAPH_CORPUS``, else ``bench/graphs``), undirected as stored, directed
ones symmetrized (each arc an undirected edge). ``--quick`` takes ``kron14``, ``grid200``
and the corpus graphs of at most ``QUICK_MAX_STORED`` stored entries. Self-loops are
dropped from every graph, as GAP drops them.

GAP (``--gap``, default ``/work/shared/peers/gapbs``: sbeamer/gapbs @ b5e3e19) is copied
to ``build/gapbs`` (git-ignored) and built there with ``make bfs cc converter`` (g++ with
OpenMP; the copy gets empty stand-ins for the two make fragments its Makefile includes,
which the published tree leaves out); without g++ or make the GAP rows are skipped with a
note. Each graph is written once as an edge list (``u v``, each undirected edge once, no
self-loops; GAP symmetrizes with ``-s``) and converted by GAP's converter into its
serialized ``.sg``, which GAP reads in milliseconds; a note is printed where GAP reports
another number of edges. GAP numbers its vertices up to the largest id in the list, so
isolated vertices at the end of the id range are missing there (they cost its CC a few
nanoseconds each).

Timing. GAP times its kernel alone (``Trial Time``, the graph already built); lagraph_py
whole calls (``common.timings``, the Graph already built, numba's compilation in an
untimed warm-up call), each result validated once. Both run on ``--threads`` threads
(GAP: ``OMP_NUM_THREADS``; lagraph_py: numba's and SuiteSparse:GraphBLAS's thread counts).
BFS computes parents (GAP's output; lagraph_py with ``levels=False``), each search from
another random vertex with an edge, as GAP's benchmark specifies: lagraph_py from
``common.sources`` (``--sources``, at least 256 on graphs under 2^20 stored entries), GAP
from its own source picker, one run of as many trials plus one. (A search repeated from
one source is faster than one from a new source, its branches and cache lines known:
p2p-Gnutella08, lagraph_py on 2 cores, 75 against 94 µs; so each side's sources are new
to it.) CC runs once with ``--trials`` trials. The first trial of every GAP run is dropped
(it starts OpenMP's threads) and the median of the rest is taken.
On a machine shared with other work, set ``OMP_WAIT_POLICY=passive`` for both (libgomp's
default spinning then stalls each parallel region for a scheduler time slice).

Prints a table (``gap/ours`` on lagraph_py's rows: above 1 where lagraph_py is faster),
writes ``bench/results/cpu_gap.json`` (``--out``) with the machine, versions and a row per
graph, task and implementation, and draws ``docs/images/cpu_gap_times.png`` and
``cpu_gap_speedup.png``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import lagraph_py as lg  # noqa: E402
from bench import common, corpus  # noqa: E402

GAP_SOURCE = Path("/work/shared/peers/gapbs")
GAP_BUILD = ROOT / "build" / "gapbs"
CORPUS = corpus.cache_dir()
IMAGES = ROOT / "docs" / "images"
TASKS = ("bfs", "cc")
#: ``--quick`` keeps the corpus graphs of at most this many stored entries.
QUICK_MAX_STORED = 1 << 20
#: GAP's make targets: the two kernels, and the converter that writes ``.sg`` files.
GAP_TARGETS = ("bfs", "cc", "converter")

_TRIAL = re.compile(r"^Trial Time:\s+([0-9.]+)\s*$", re.MULTILINE)
_SIZE = re.compile(r"^Graph has (\d+) nodes and (\d+) (un)?directed edges", re.MULTILINE)


# ---------------------------------------------------------------------- graphs
def synthetic(quick: bool) -> dict:
    """``{name: builder}`` of the generated graphs."""
    gen = lg.generate
    if quick:
        return {"kron14": lambda: gen.kronecker(14), "grid200": lambda: gen.grid(200, 200)}
    return {"kron18": lambda: gen.kronecker(18), "kron20": lambda: gen.kronecker(20),
            "grid1000": lambda: gen.grid(1000, 1000)}


def real_graphs(folder: Path, max_stored: int | None = None) -> dict:
    """``{name: builder}`` of the real graphs of the corpus (``bench/corpus.py``) found in
    ``folder``, of at most ``max_stored`` stored entries: undirected, directed ones
    symmetrized."""
    return {e.name: lambda e=e: corpus.undirected(corpus.load(e.name, folder))
            for e in corpus.entries(real=True, max_stored=max_stored)
            if (folder / f"{e.name}.npz").is_file()}


def loop_free(G: lg.Graph) -> lg.Graph:
    """``G`` without its self-loops (GAP drops them: a vertex with a self-loop alone would
    be no BFS source there)."""
    if not G.nself_loops:
        return G
    src, dst, _ = G.edges()
    keep = src != dst
    return lg.Graph.from_edges(src[keep], dst[keep], n=G.n, directed=G.directed)


def write_edge_list(path: Path, G: lg.Graph) -> Path:
    """Write each undirected edge of ``G`` once, without self-loops, as ``u v`` lines (ids
    right-aligned in fixed-width fields, which GAP's stream reader skips over)."""
    rows, cols = G.rows().astype(np.int64), G.indices.astype(np.int64)
    keep = rows < cols
    width = len(str(max(G.n - 1, 0)))
    text = np.full((int(keep.sum()), 2 * width + 2), ord(" "), np.uint8)
    for start, ids in ((0, rows[keep]), (width + 1, cols[keep])):
        for digit in range(width - 1, -1, -1):
            shown = (ids > 0) | (digit == width - 1)
            text[:, start + digit] = np.where(shown, ids % 10 + ord("0"), ord(" "))
            ids = ids // 10
    text[:, -1] = ord("\n")
    text.tofile(path)
    return path


# ---------------------------------------------------------------------- GAP
def build_gap(source: Path, build: Path = GAP_BUILD) -> Path | None:
    """GAP's binaries built in ``build`` from a copy of ``source`` (kept for later runs);
    None, with a note, where g++ or make is missing or the build fails."""
    missing = [tool for tool in ("g++", "make") if shutil.which(tool) is None]
    if missing:
        print(f"GAP skipped: {' and '.join(missing)} not found")
        return None
    if not (source / "src").is_dir():
        print(f"GAP skipped: no GAP sources at {source}")
        return None
    if build.exists() and not all((build / t).is_file() for t in GAP_TARGETS):
        shutil.rmtree(build)
    if not build.exists():
        shutil.copytree(source, build)
        for fragment in ("test/test.mk", "benchmark/bench.mk"):     # included, not shipped
            (build / fragment).parent.mkdir(exist_ok=True)
            (build / fragment).touch()
    done = subprocess.run(["make", *GAP_TARGETS], cwd=build, capture_output=True, text=True)
    if done.returncode:
        print(f"GAP skipped: make failed:\n{done.stderr[-2000:]}")
        return None
    return build


def trial_seconds(output: str) -> list[float]:
    """The ``Trial Time`` values of one GAP run, in order (seconds).

    Examples
    --------
    >>> trial_seconds("Trial Time:          0.00862\\nTrial Time:          0.00793\\n")
    [0.00862, 0.00793]
    """
    return [float(t) for t in _TRIAL.findall(output)]


def graph_size(output: str) -> tuple[int, int] | None:
    """``(vertices, edges)`` as GAP reports its graph (an undirected edge counted once).

    Examples
    --------
    >>> graph_size("Graph has 262144 nodes and 3805545 undirected edges for degree: 14")
    (262144, 3805545)
    """
    found = _SIZE.search(output)
    return (int(found[1]), int(found[2])) if found else None


def gap_run(binary: Path, args: list[str], threads: int) -> str:
    """The output of one GAP run on ``threads`` OpenMP threads (raises if it fails)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, env=env)
    if done.returncode or not trial_seconds(done.stdout):
        raise RuntimeError(f"{binary.name} {' '.join(args)} failed:\n{done.stdout[-1000:]}"
                           f"{done.stderr[-1000:]}")
    return done.stdout


def warm_median(runs: list[list[float]]) -> float:
    """Median over every trial but the first of each run (all of a one-trial run).

    Examples
    --------
    >>> warm_median([[0.5, 0.1, 0.3], [0.4, 0.2]])
    0.2
    """
    return statistics.median(t for run in runs for t in (run[1:] or run))


def gap_rows(gap: Path, sg: Path, tasks, picks, trials: int, threads: int) -> tuple:
    """GAP's rows for the ``tasks`` of one graph, and its ``(vertices, edges)``."""
    rows, size = [], None
    if "cc" in tasks:
        out = gap_run(gap / "cc", ["-f", str(sg), "-n", str(trials)], threads)
        size = graph_size(out)
        rows.append(dict(task="cc", seconds=warm_median([trial_seconds(out)])))
    if "bfs" in tasks:               # a source of GAP's picking each trial
        out = gap_run(gap / "bfs", ["-f", str(sg), "-n", str(len(picks) + 1)], threads)
        size = size or graph_size(out)
        rows.append(dict(task="bfs", seconds=warm_median([trial_seconds(out)]),
                         runs=len(picks)))
    return [dict(r, implementation="gap") for r in rows], size


# ---------------------------------------------------------------------- lagraph_py
def ours_rows(G, tasks, picks, repeats: int) -> list[dict]:
    """lagraph_py's rows for the ``tasks`` of one graph (each result validated once)."""
    rows = []
    if "cc" in tasks:
        rows.append(dict(task="cc", **common.timings(
            lambda: lg.connected_components(G), [()] * repeats,
            check=lambda r: lg.validate.scc(G, r))))
    if "bfs" in tasks:
        rows.append(dict(task="bfs", **common.timings(
            lambda s: lg.bfs(G, s, levels=False), [(s,) for s in picks],
            check=lambda r: lg.validate.bfs(G, picks[0], r))))
    return [dict(r, implementation="lagraph_py") for r in rows]


def set_threads(threads: int) -> int:
    """Run lagraph_py on ``threads`` threads (numba, SuiteSparse:GraphBLAS), at most as
    many as numba has; return the number set."""
    import graphblas as gb
    import numba
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(threads)
    gb.ss.config["nthreads"] = threads
    return threads


# ---------------------------------------------------------------------- run
def run(names, builders, tasks, gap, threads: int, nsources: int, trials: int,
        repeats: int, rounds: int = 1) -> tuple[list[dict], dict]:
    """Rows of every graph, task and implementation, and the graphs' statistics: GAP and
    lagraph_py take turns ``rounds`` times on each graph, each row the median of its
    rounds (``round_seconds``), so that a burst of load on a shared machine weighs on
    one round of one side, not on the ratio."""
    rows, graphs = [], {}
    with tempfile.TemporaryDirectory(prefix="cpu_gap_") as tmp:
        for name in names:
            G = loop_free(builders[name]())
            picks = common.sources(G, nsources) if "bfs" in tasks else []
            graphs[name] = dict(common.graph_statistics(G), sources=len(picks))
            got = []
            if gap is not None:
                el = write_edge_list(Path(tmp) / f"{name}.el", G)
                sg = Path(tmp) / f"{name}.sg"
                subprocess.run([str(gap / "converter"), "-f", str(el), "-s", "-b", str(sg)],
                               check=True, capture_output=True)
                el.unlink()
            for _ in range(rounds):
                if gap is not None:
                    mine, size = gap_rows(gap, sg, tasks, picks, trials, threads)
                    got.append(mine)
                got.append(ours_rows(G, tasks, picks, repeats))
            if gap is not None:
                sg.unlink()
                graphs[name]["gap_graph"] = size
                edges = int(np.count_nonzero(G.rows() < G.indices))
                if size and size[1] != edges:
                    print(f"{name}: GAP read {size[1]:,} edges, the graph has {edges:,}")
            got = median_of_rounds(got)
            for r in got:
                r.update(graph=name, threads=threads, n=G.n, nstored=G.nstored)
            add_ratios(got)
            common.print_table(got, ["graph", "task", "implementation", "seconds", "threads",
                                     "gap/ours"])
            rows += got
    return rows, graphs


def median_of_rounds(rounds: list[list[dict]]) -> list[dict]:
    """One row per task and implementation out of the rows of every round: the first
    round's, with the median of the rounds' seconds and those seconds
    (``round_seconds``).

    Examples
    --------
    >>> rows = [[dict(task="bfs", implementation="gap", seconds=s)] for s in (3.0, 1.0, 2.0)]
    >>> median_of_rounds(rows)
    [{'task': 'bfs', 'implementation': 'gap', 'seconds': 2.0, 'round_seconds': [3.0, 1.0, 2.0]}]
    """
    merged = {}
    for row in (r for part in rounds for r in part):
        key = row["task"], row["implementation"]
        merged.setdefault(key, dict(row, round_seconds=[]))["round_seconds"].append(
            row["seconds"])
    for row in merged.values():
        row["seconds"] = statistics.median(row["round_seconds"])
    return list(merged.values())


def add_ratios(rows: list[dict]) -> None:
    """``gap/ours`` on each lagraph_py row whose task GAP ran too."""
    gap = {r["task"]: r["seconds"] for r in rows if r["implementation"] == "gap"}
    for r in rows:
        if r["implementation"] == "lagraph_py" and r["task"] in gap:
            r["gap/ours"] = gap[r["task"]] / r["seconds"]


def figures(rows: list[dict], device: str, images: Path = IMAGES) -> list[Path]:
    """Time against size and the speed-up over GAP (``bench/plots.py``), into ``images``."""
    from bench import plots
    shown = [dict(r, algorithm=r["task"], backend="cpu", method=None) for r in rows]
    title = f"cpu_gap: {device}"
    return [plots.plot_times(shown, images / "cpu_gap_times.png", title),
            plots.plot_speedups(shown, images / "cpu_gap_speedup.png", title)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small graphs only")
    p.add_argument("--graphs", nargs="+", help="names among the generated and corpus graphs")
    p.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    p.add_argument("--corpus", type=Path, default=CORPUS,
                   help=f"folder of the corpus' graphs ({CORPUS})")
    p.add_argument("--gap", type=Path, default=GAP_SOURCE, help="GAP's source tree")
    p.add_argument("--threads", type=int, default=2, help="threads for both (2)")
    p.add_argument("--sources", type=int, default=16,
                   help="BFS sources (16; at least 256 below 2^20 stored entries)")
    p.add_argument("--trials", type=int, default=4,
                   help="GAP trials of its CC run (4; its BFS run: a trial a source)")
    p.add_argument("--repeats", type=int, default=8, help="lagraph_py CC calls (8)")
    p.add_argument("--rounds", type=int, default=3,
                   help="turns of GAP and lagraph_py on each graph, medians kept (3)")
    p.add_argument("--out", default="cpu_gap", help="name of the JSON file in bench/results")
    p.add_argument("--no-figures", action="store_true")
    args = p.parse_args(argv)
    builders = synthetic(args.quick) | real_graphs(args.corpus, QUICK_MAX_STORED if args.quick
                                                   else None)
    names = args.graphs or list(builders)
    unknown = sorted(set(names) - set(builders))
    if unknown:
        p.error(f"unknown graphs {unknown}; choose among {list(builders)}")

    threads = set_threads(args.threads)
    # the compiled loops on disk before any timing: until they are, backend="cpu" runs
    # scipy's routines (lagraph_py.compilation), and a run would time those first
    print(f"compiled loops on disk after {lg.compile_cpu_loops():.1f} s", flush=True)
    gap = build_gap(args.gap)
    rows, graphs = run(names, builders, args.tasks, gap, threads, args.sources, args.trials,
                       args.repeats, args.rounds)
    payload = dict(device=common.cpu_name(), versions=dict(common.versions(), gap=gap_version(
                   args.gap)), date=datetime.datetime.now().isoformat(timespec="seconds"),
                   commit=common.commit(), threads=threads, trials=args.trials,
                   repeats=args.repeats, rounds=args.rounds,
                   omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"), graphs=graphs, rows=rows)
    path = common.write_json(args.out, payload)
    print(f"wrote {path}")
    if not args.no_figures:
        for figure in figures(rows, payload["device"]):
            print(f"wrote {figure}")
    return payload


def gap_version(source: Path) -> str | None:
    """Where GAP was built from, and the compiler that built it."""
    if shutil.which("g++") is None:
        return None
    compiler = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    return f"{source}, {compiler.splitlines()[0]}"


if __name__ == "__main__":
    main()
