"""``python -m bench`` (also ``lagraph-py bench``): run the suite, other runners, or the report.

Usage::

    python -m bench                                   # the sweep of bench/suite.py, cpu
    python -m bench run --quick                       # three small graphs, under a minute
    python -m bench run --graphs kron18 road1000x1000 --backends cpu gpu --runners gpu_bfs
    python -m bench runner gpu_msf --ecl /path/to/ecl-mst   # one runner, its own arguments
    python -m bench report                            # plots + README results from results/

``run`` writes ``bench/results/suite_<device>.json`` (``--out`` to change it); ``report``
reads every JSON file under ``bench/results/``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lagraph_py.cli import OneLineParser, UsageError, guarded  # noqa: E402

COMMANDS = ("run", "runner", "report")


def build_parser() -> OneLineParser:
    """The parser of ``python -m bench``."""
    from bench import suite

    parser = OneLineParser(prog="python -m bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    p = sub.add_parser("run", help="the sweep of bench/suite.py")
    p.add_argument("--graphs", nargs="+", default=list(suite.GRAPHS))
    p.add_argument("--algorithms", nargs="+", choices=suite.ALGORITHMS,
                   default=list(suite.ALGORITHMS))
    p.add_argument("--backends", nargs="+", choices=["cpu", "gpu"], default=["cpu"])
    p.add_argument("--sources", type=int, default=8, help="BFS sources per graph (8)")
    p.add_argument("--repeats", type=int, default=3, help="timed MSF and SCC calls (3)")
    p.add_argument("--quick", action="store_true",
                   help=f"graphs {' '.join(suite.QUICK_GRAPHS)}, 4 sources, 2 repeats")
    p.add_argument("--no-peers", action="store_true", help="lagraph_py only")
    p.add_argument("--no-validate", action="store_true")
    p.add_argument("--runners", nargs="*", choices=suite.RUNNERS, default=[],
                   help="also run these runners with their default arguments")
    p.add_argument("--out", help="JSON path (default bench/results/suite_<device>.json)")
    # main() hands everything after "runner NAME" to that runner's own parser
    sub.add_parser("runner", help=f"one runner ({', '.join(suite.RUNNERS)}) with its "
                                  f"own arguments")
    p = sub.add_parser("report", help="plots and the README results section")
    p.add_argument("--results", default=str(suite.RESULTS), help="folder of JSON results")
    p.add_argument("--images", default=str(ROOT / "docs" / "images"))
    p.add_argument("--readme", default=str(ROOT / "README.md"))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m bench`` with ``argv``; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS + ("-h", "--help"):
        argv = ["run"] + argv
    argv = [a for a in argv if a != "--debug"]
    if argv[0] == "runner" and len(argv) > 1:
        _run_runner(argv[1], argv[2:])
        return 0
    args = build_parser().parse_args(argv)
    if args.command == "runner":
        raise UsageError("runner needs a name: one of " + ", ".join(_runners()))
    if args.command == "report":
        from bench import report
        report.write_report(Path(args.results), Path(args.images), Path(args.readme))
        return 0
    return _run(args)


def _run(args) -> int:
    from bench import suite
    from bench.report import slug

    graphs = suite.QUICK_GRAPHS if args.quick else args.graphs
    sources, repeats = (4, 2) if args.quick else (args.sources, args.repeats)
    out = Path(args.out) if args.out else None

    def save(payload):
        nonlocal out
        if out is None:
            device = payload["device"].get("gpu") or payload["device"]["cpu"]
            out = suite.RESULTS / f"suite_{slug(device)}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=1) + "\n")

    suite.run_suite(graphs, args.algorithms, args.backends, sources=sources, repeats=repeats,
                    peers=not args.no_peers, validate=not args.no_validate,
                    checkpoint=save)                     # saves after every graph
    print(f"wrote {out}")
    for name in args.runners:
        _run_runner(name, [])
    return 0


def _run_runner(name: str, arguments: list[str]):
    from bench import suite

    payload = suite.run_runner(name, arguments)
    if payload is None:
        print(f"{name}: its main() returned no payload; its JSON file under "
              f"bench/results/ holds the results")
    return payload


def _runners():
    from bench import suite
    return suite.RUNNERS


if __name__ == "__main__":
    sys.exit(guarded(main, sys.argv[1:]))
