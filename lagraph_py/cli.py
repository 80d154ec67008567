"""The ``lagraph-py`` command: BFS, MSF and SCC on a file or a generated graph.

A thin layer on the public API (:func:`lagraph_py.read_mtx`, :func:`lagraph_py.bfs`, ...)::

    lagraph-py bfs graph.mtx --source 3 --validate
    lagraph-py msf --kronecker 16 --weights real --output forest.mtx
    lagraph-py scc web-Google.txt.gz --json
    lagraph-py generate --grid 300x300 --output grid.mtx
    lagraph-py bench --graphs kron14 grid200x200
    lagraph-py warmup

On the cpu, a run reports which code ran: the compiled loops, or scipy's routines while
the loops are not ready (they compile in the background once per installation; ``warmup``
compiles them, or waits for them); time spent compiling inside a run is reported apart.

The summary goes to stdout (``--json``: one JSON object instead); errors are one line on
stderr and a non-zero exit status (``--debug`` shows the traceback). Reading, generating
and benchmark sweeps that last more than a second show a progress bar on a terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from . import __version__, generate, validate
from .algorithms.bfs import bfs
from .algorithms.msf import msf
from .algorithms.scc import scc
from .compilation import compile_cpu_loops, compile_timer, loops_state
from .graph import Graph
from .io import read_edgelist, read_mtx, write_mtx
from .results import asnumpy

PROG = "lagraph-py"
#: Generated graphs: option (``_`` spelled ``-``) -> (generator name, size grammar, which
#: graphs: ``"either"`` (``--directed`` asks for the directed one), ``"undirected"`` or
#: ``"directed"`` (``--directed`` is refused: the generator makes only one kind)).
GENERATORS = {
    "kronecker": ("kronecker", "SCALE", "either"),
    "rmat": ("rmat", "SCALE", "either"),
    "ssca2": ("ssca2", "SCALE", "undirected"),
    "uniform": ("uniform", "NxDEG", "either"),
    "grid": ("grid", "ROWSxCOLS", "either"),
    "road": ("road", "ROWSxCOLS", "undirected"),
    "mesh": ("mesh", "XxYxZ", "either"),
    "cycle_chain": ("cycle_chain", "CYCLESxLENGTH", "directed"),
}
#: Size grammar words that take a decimal number (all others: a non-negative integer).
DECIMAL_WORDS = ("DEG",)
#: Output file kinds of each algorithm, by file name extension.
OUTPUTS = {"bfs": (".npy", ".csv", ".mtx"), "msf": (".npy", ".csv", ".mtx"),
           "scc": (".npy", ".csv")}
#: A progress bar appears once a task has lasted this many seconds.
PROGRESS_DELAY_S = 1.0


class UsageError(Exception):
    """A bad command line (reported as one line, exit status 2)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`UsageError` (one line, no usage)."""

    def error(self, message):
        raise UsageError(message)


# ---------------------------------------------------------------------- progress
@contextlib.contextmanager
def progress(description: str, total: int | None = None) -> Iterator[Callable[[int], None]]:
    """Show a progress bar on stderr if the enclosed work lasts over a second.

    Yields ``advance(steps=1)``; with ``total=None`` the bar only shows that work is
    under way. Nothing is drawn when stderr is not a terminal.

    Examples
    --------
    >>> with progress("counting", total=3) as advance:
    ...     for _ in range(3):
    ...         advance(1)
    """
    if not sys.stderr.isatty():
        yield lambda steps=1: None
        return
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    task = bar.add_task(description, total=total)
    lock, shown = threading.Lock(), []

    def show():
        with lock:
            if shown == []:
                bar.start()
                shown.append(True)

    timer = threading.Timer(PROGRESS_DELAY_S, show)
    timer.daemon = True
    timer.start()
    try:
        yield lambda steps=1: bar.advance(task, steps)
    finally:
        timer.cancel()
        with lock:
            if shown:
                bar.stop()
            shown.append(False)


# ---------------------------------------------------------------------- graphs
def parse_size(kind: str, text: str) -> tuple[int | float, ...]:
    """The numbers of a generator's size argument: ``"16"``, ``"300x200"`` or
    ``"1000x2.5"`` (a decimal where the grammar says ``DEG``).

    Examples
    --------
    >>> parse_size("grid", "300x200")
    (300, 200)
    >>> parse_size("uniform", "1000x2.5")
    (1000, 2.5)
    """
    grammar = GENERATORS[kind][1]
    words = grammar.split("x")
    pattern = "x".join(r"(\d+(?:\.\d+)?)" if w in DECIMAL_WORDS else r"(\d+)" for w in words)
    match = re.fullmatch(pattern, text)
    if not match:
        raise UsageError(f"{_option(kind)} takes {grammar}, got {text!r}")
    return tuple(float(p) if w in DECIMAL_WORDS else int(p)
                 for w, p in zip(words, match.groups()))


def _option(kind: str) -> str:
    """The command-line option of generator ``kind``."""
    return "--" + kind.replace("_", "-")


def generated(kind: str, size: str, *, directed: bool = False, weights: str | None = None,
              seed: int = 0, orientation: str | None = None) -> Graph:
    """A graph from :mod:`lagraph_py.generate`, named as on the command line.

    Examples
    --------
    >>> generated("grid", "3x4").n
    12
    """
    name, _, which = GENERATORS[kind]
    numbers = parse_size(kind, size)
    make = getattr(generate, name)
    options = dict(seed=seed, weights=weights)
    if directed:
        if which != "either":
            raise UsageError(f"{_option(kind)} graphs are {which}; drop --directed")
        options["directed"] = True
    if orientation is not None:
        if not (directed and kind in ("grid", "mesh")):
            raise UsageError("--orientation applies to --grid and --mesh with --directed")
        options["orientation"] = orientation
    with progress(f"generating {_option(kind)[2:]} {size}"):
        return make(*numbers, **options)


def read_graph(path: str, *, directed: bool) -> Graph:
    """Read ``path``: Matrix Market if the name ends in ``.mtx`` (or ``.mtx.gz``), a
    SNAP edge list otherwise (directed unless ``directed=False``)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    with progress(f"reading {p.name}"):
        return read_mtx(p) if _is_mtx(p) else read_edgelist(p, directed=directed)


def _is_mtx(path) -> bool:
    """Whether ``path`` names a Matrix Market file (``.mtx`` or ``.mtx.gz``)."""
    return Path(path).name.lower().removesuffix(".gz").endswith(".mtx")


def load_graph(args) -> tuple[Graph, str]:
    """The graph the arguments name and a short description of it."""
    kinds = [k for k in GENERATORS if getattr(args, k) is not None]
    if args.file is not None and kinds or len(kinds) > 1:
        raise UsageError("give one graph: a file or one generator option")
    if args.file is not None:
        if args.weights or args.seed is not None or args.directed or args.orientation:
            raise UsageError("--weights, --seed, --directed and --orientation apply to "
                             "generated graphs only")
        return read_graph(args.file, directed=not args.undirected), args.file
    if not kinds:
        raise UsageError("no graph: give a file or a generator option such as --kronecker 16")
    kind = kinds[0]
    G = generated(kind, getattr(args, kind), directed=args.directed, weights=args.weights,
                  seed=args.seed or 0, orientation=args.orientation)
    return G, f"{_option(kind)[2:]} {getattr(args, kind)}"


def graph_summary(G: Graph) -> dict:
    """Size statistics of ``G`` (vertices, edges, stored entries, degrees)."""
    deg = G.out_degree()
    return dict(n=G.n, edges=G.nedges, stored=G.nstored, directed=G.directed,
                weighted=G.weighted, self_loops=G.nself_loops,
                max_out_degree=int(deg.max()) if G.n else 0)


# ---------------------------------------------------------------------- algorithms
def run_algorithm(name: str, G: Graph, args):
    """Run ``name`` on ``G`` as the arguments ask; return ``(result, seconds, seconds
    numba spent compiling in the call)``, the first without the last."""
    if name == "bfs":
        source = args.source if args.source is not None else _first_source(G)
        call = lambda: bfs(G, source, backend=args.backend, method=args.method)  # noqa: E731
    elif name == "msf":
        call = lambda: msf(G, backend=args.backend, symmetrize=args.symmetrize)  # noqa: E731
    else:
        call = lambda: scc(G, backend=args.backend)  # noqa: E731
    with compile_timer() as compiling:
        t0 = time.perf_counter()
        result = call()
        _synchronize(args.backend)
        seconds = time.perf_counter() - t0
    return result, seconds - compiling(), compiling()


def result_summary(name: str, G: Graph, result, seconds: float) -> dict:
    """What the human summary and ``--json`` report about a result."""
    out = dict(seconds=seconds)
    if name == "bfs":
        level = asnumpy(result.level)
        out.update(source=result.source, reached=int((level >= 0).sum()),
                   max_level=int(level.max()), MTEPS=G.nstored / seconds / 1e6)
    elif name == "msf":
        total = result.total_weight
        out.update(forest_edges=len(result.src),
                   total_weight=float(total) if isinstance(total, float) else int(total),
                   trees=int(np.unique(asnumpy(result.component)).size))
    else:
        labels = asnumpy(result.labels)
        sizes = np.bincount(labels, minlength=1)
        out.update(components=result.ncomponents, largest=int(sizes.max()))
    return out


def write_result(name: str, G: Graph, result, path: str) -> None:
    """Write ``result`` to ``path`` as npy (a record array), csv or mtx (BFS tree or
    forest as a graph), chosen by the file name's extension."""
    suffix = Path(path).suffix.lower()
    if name == "bfs":
        level, parent = asnumpy(result.level), asnumpy(result.parent)
        columns = dict(vertex=np.arange(G.n), level=level, parent=parent)
        reached = np.flatnonzero((parent >= 0) & (np.arange(G.n) != result.source))
        tree = lambda: Graph.from_edges(parent[reached], reached, level[reached],  # noqa: E731
                                        n=G.n, directed=True)
    elif name == "msf":
        columns = dict(src=asnumpy(result.src), dst=asnumpy(result.dst),
                       weight=asnumpy(result.weight))
        tree = lambda: Graph.from_edges(columns["src"], columns["dst"],  # noqa: E731
                                        columns["weight"], n=G.n, directed=False)
    else:
        columns = dict(vertex=np.arange(G.n), label=asnumpy(result.labels))
    if suffix == ".npy":
        table = np.empty(G.n if name != "msf" else len(columns["src"]),
                         dtype=[(k, v.dtype) for k, v in columns.items()])
        for k, v in columns.items():
            table[k] = v
        np.save(path, table)
    elif suffix == ".csv":
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(columns)
            w.writerows(zip(*(v.tolist() for v in columns.values())))
    else:
        write_mtx(tree(), path, comment=f"{name} result written by {PROG}")


def _first_source(G: Graph) -> int:
    """The default BFS source: the first vertex with an out-edge (0 if there is none)."""
    if G.n == 0:
        raise ValueError("the graph has no vertices")
    nonzero = np.flatnonzero(G.out_degree() > 0)
    return int(nonzero[0]) if nonzero.size else 0


def _synchronize(backend: str) -> None:
    if backend == "gpu":
        import cupy
        cupy.cuda.Device().synchronize()  # sync: the call's kernels finish inside the timing


# ---------------------------------------------------------------------- commands
def cmd_algorithm(args) -> int:
    name = args.command
    if args.output and Path(args.output).suffix.lower() not in OUTPUTS[name]:
        raise UsageError(f"--output for {name} must end in one of {', '.join(OUTPUTS[name])}")
    t0 = time.perf_counter()
    G, description = load_graph(args)
    t_load = time.perf_counter() - t0
    cpu_code = loops_state() if args.backend == "cpu" else None
    result, seconds, compiling = run_algorithm(name, G, args)
    report = dict(command=name, graph=description, **graph_summary(G), load_seconds=t_load,
                  backend=args.backend, **result_summary(name, G, result, seconds))
    if cpu_code is not None:
        report.update(cpu_code="scipy" if cpu_code == "scipy" else "compiled",
                      compile_seconds=compiling)
    if name == "bfs":
        report["method"] = args.method
    if args.validate:
        check = {"bfs": lambda: validate.bfs(G, result.source, result),
                 "msf": lambda: validate.msf(G, result), "scc": lambda: validate.scc(G, result)}
        check[name]()  # raises ValidationError naming the broken rule
        report["valid"] = True
    if args.output:
        write_result(name, G, result, args.output)
        report["output"] = args.output
    _print(report, args.json, _human(name, report))
    return 0


def cmd_generate(args) -> int:
    if not _is_mtx(args.output):
        raise UsageError("generate writes Matrix Market: --output must end in .mtx or .mtx.gz")
    G, description = load_graph(args)
    with progress(f"writing {args.output}"):
        write_mtx(G, args.output, comment=f"{description}, written by {PROG} {__version__}")
    report = dict(command="generate", graph=description, **graph_summary(G),
                  output=args.output)
    _print(report, args.json, f"{description}: n = {G.n:,}, edges = {G.nedges:,} "
                              f"-> {args.output}")
    return 0


def cmd_warmup(args) -> int:
    before = loops_state()
    seconds = compile_cpu_loops()
    report = dict(command="warmup", seconds=seconds, compiled_before=before == "compiled")
    human = ("the cpu executor's loops were compiled already" if before == "compiled"
             else f"compiled the cpu executor's loops in {seconds:.1f} s")
    _print(report, args.json, human)
    return 0


def cmd_bench(arguments: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    entry = root / "bench" / "__main__.py"
    if not entry.is_file():
        raise UsageError("the benchmark suite lives in the source tree (bench/); "
                         "run lagraph-py bench from a source checkout")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("bench.__main__", entry)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(arguments)


def _human(name: str, r: dict) -> str:
    kind = "directed" if r["directed"] else "undirected"
    lines = [f"graph: {r['graph']} ({kind}, n = {r['n']:,}, edges = {r['edges']:,}, "
             f"stored = {r['stored']:,}; loaded in {r['load_seconds']:.2f} s)"]
    head = f"{name} on {r['backend']}: {r['seconds'] * 1e3:.2f} ms"
    if name == "bfs":
        lines.append(f"{head} ({r['method']}), source {r['source']}: reached {r['reached']:,} "
                     f"vertices in {r['max_level']} levels, {r['MTEPS']:.3g} MTEPS")
    elif name == "msf":
        lines.append(f"{head}: {r['forest_edges']:,} forest edges in {r['trees']:,} trees, "
                     f"total weight {r['total_weight']:.6g}")
    else:
        lines.append(f"{head}: {r['components']:,} components, largest {r['largest']:,}")
    if r.get("compile_seconds"):
        lines.append(f"and {r['compile_seconds']:.1f} s compiling loops (once per "
                     "installation)")
    if r.get("cpu_code") == "scipy":
        lines.append("compiled loops not ready: ran scipy's routines; the loops compile in "
                     f"the background, once per installation ({PROG} warmup waits for them)")
    if r.get("valid"):
        lines.append("result valid")
    if r.get("output"):
        lines.append(f"wrote {r['output']}")
    return "\n".join(lines)


def _print(report: dict, as_json: bool, human: str) -> None:
    print(json.dumps(report) if as_json else human)


# ---------------------------------------------------------------------- parser
def _graph_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help=".mtx or SNAP edge list (.gz read through gzip)")
    for kind, (name, grammar, _) in GENERATORS.items():
        p.add_argument(_option(kind), metavar=grammar, help=f"generate.{name} graph")
    p.add_argument("--directed", action="store_true",
                   help="generate the directed variant (kronecker, rmat, uniform, grid, mesh)")
    p.add_argument("--orientation", choices=["random", "sweep"],
                   help="one arc per edge of a directed grid or mesh (default: both)")
    p.add_argument("--undirected", action="store_true",
                   help="read an edge list as undirected (default: directed)")
    p.add_argument("--weights", choices=["uniform", "real"],
                   help="weights of a generated graph (default: unweighted)")
    p.add_argument("--seed", type=int, help="seed of a generated graph (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--debug", action="store_true", help="show tracebacks")


def build_parser() -> argparse.ArgumentParser:
    """The ``lagraph-py`` argument parser."""
    parser = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    helps = {"bfs": "breadth-first search (levels and parents)",
             "msf": "minimum spanning forest (undirected graphs)",
             "scc": "strongly connected components"}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text, description=text)
        _graph_options(p)
        p.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
        if name == "bfs":
            p.add_argument("--source", type=int, help="start vertex (default: the first "
                                                      "vertex with an out-edge)")
            p.add_argument("--method", default="auto",
                           help="auto, push, pull (the gpu has more; see gpu_backend)")
        if name == "msf":
            p.add_argument("--symmetrize", action="store_true",
                           help="accept a directed graph: each arc becomes an edge")
        p.add_argument("--validate", action="store_true", help="check the result's rules")
        p.add_argument("--output", help="write the result: " + ", ".join(OUTPUTS[name]))
        p.set_defaults(run=cmd_algorithm)
    p = sub.add_parser("warmup", help="compile the cpu executor's loops now (once per "
                                      "installation)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    p.set_defaults(run=cmd_warmup)
    p = sub.add_parser("generate", help="write a generated graph as Matrix Market")
    _graph_options(p)
    p.add_argument("--output", required=True, help=".mtx or .mtx.gz")
    p.set_defaults(run=cmd_generate)
    # main() hands everything after "bench" to the suite's own parser
    sub.add_parser("bench", help="run the benchmark suite (lagraph-py bench --help)",
                   add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``lagraph-py`` with ``argv`` (default: the process arguments); return the exit
    status: 0 success, 1 bad input or a failed run, 2 bad arguments."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return guarded(_dispatch, argv)


def _dispatch(argv: list[str]) -> int:
    if argv[:1] == ["bench"]:
        return cmd_bench(argv[1:])
    args = build_parser().parse_args(argv)
    return args.run(args)


def guarded(run: Callable[[list[str]], int], argv: list[str]) -> int:
    """``run(argv)`` with errors turned into one line on stderr and an exit status (2 for
    bad arguments, 1 otherwise); with ``--debug`` in ``argv`` errors propagate."""
    debug = "--debug" in argv
    try:
        return run(argv)
    except UsageError as err:
        if debug:
            raise
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # one line for the user; --debug shows the traceback
        if debug:
            raise
        print(f"{PROG}: error: {_one_line(err)}", file=sys.stderr)
        return 1


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, (ValueError, OSError, MemoryError)):
        return text
    return f"{type(err).__name__}: {text}"


if __name__ == "__main__":
    sys.exit(main())
