"""Corpus benchmark: BFS, MSF, SCC and connected components on every corpus graph
(``bench/corpus.py``: real graphs of every class and generated ones), lagraph_py's gpu
and cpu executors against scipy and the ECL codes, measured in the same run.

Usage::

    python bench/gpu_corpus.py                                  # every graph, every task
    python bench/gpu_corpus.py --ecl-mst /tmp/ecl-mst --ecl-scc /tmp/ecl-scc --ecl-cc /tmp/ecl-cc
    python bench/gpu_corpus.py --classes web road-osm --tasks bfs scc --budget 5
    LAGRAPH_CORPUS=.corpus_pack python bench/gpu_corpus.py --small

Tasks and the graph each runs on (``task_graphs``): ``bfs`` on the graph as it is (a
directed graph's BFS follows arcs), from ``--sources`` random vertices with an out-edge
(``common.sources``: at least 256 distinct ones below 2^20 stored entries); ``scc`` on the
directed graphs; ``cc`` (connected components: ``lg.scc`` of an undirected graph) on the
undirected graph or the symmetrized directed one; ``msf`` on ``corpus.msf_graph`` (the
undirected form with the graph's own weights or the corpus' seeded rule).

Contestants: ``lagraph_py`` (``backend="gpu"``; skipped without a GPU),
``cpu-executor`` (``backend="cpu"``), ``scipy`` (``scipy.sparse.csgraph`` on float64
CSR, as ``common.peer_runs`` builds it) and, where their binaries are given (built on the
GPU machine as ``shared/peers/README.md`` says; skipped when absent), ``ecl-mst``,
``ecl-scc`` and ``ecl-cc`` on ``.egr`` files written by ``common.write_egr`` (the
symmetric CSR without self-loops for ECL-MST and ECL-CC, the directed CSR without
self-loops for ECL-SCC).

Times: lagraph_py, the cpu executor and scipy are timed with ``common.timings`` (whole
calls, warm-up calls first so that the graph is resident on the device and the kernels
compiled, a device synchronization inside every GPU call's timing, medians, at most about
``--budget`` seconds per contestant and task). The ECL codes report their own compute
time (graph already on the device), median of ``--repeats`` processes. Each lagraph_py and
cpu-executor result is validated once (``lg.validate``), untimed; the ECL component
counts are checked against scipy's.

Prints, per graph and task, ours (lagraph_py, or the cpu executor without a GPU), the best
peer and ``best/ours`` (above 1 where lagraph_py is faster), and writes
``bench/results/gpu_corpus_<device>.json``: ``{"device", "versions", "rows": [{"graph",
"class", "task", "implementation", "seconds", "n", "nstored", ...}]}``.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lagraph_py as lg  # noqa: E402
from bench import corpus  # noqa: E402
from common import (cpu_name, ecl_cc_time, peer_runs, print_table, sources,  # noqa: E402
                    timings, versions, write_egr, write_json)

TASKS = ("bfs", "msf", "scc", "cc")
#: Our two executors (every other implementation is a peer).
OURS = ("lagraph_py", "cpu-executor")
#: The ECL code of each task that has one.
ECL = {"msf": "ecl-mst", "scc": "ecl-scc", "cc": "ecl-cc"}
#: Seconds an ECL process may take before it is abandoned.
ECL_TIMEOUT_S = 300
#: ECL-CC times its repeated kernels together (the first launch included, no warm-up) and
#: prints their mean: one process with this many repeats stands for ``--repeats`` processes.
ECL_CC_REPEATS = 20
#: How each ECL code prints its time and its count (components), and what it prints last
#: when its own check passed (ECL-CC's time is then read more finely from its rate:
#: ``common.ecl_cc_time``).
ECL_OUTPUT = {
    "ecl-mst": (r"Dev[+-]:\s*([0-9.eE+-]+)\s*s", None, "all good"),
    "ecl-scc": (r"compute time: ([0-9.eE+-]+) s", r"number of SCCs: (\d+)", None),
    "ecl-cc": (r"Average kernel execution time: ([0-9.eE+-]+) s",
               r"number of connected components: (\d+)", "PASS"),
}


# ---------------------------------------------------------------------- what runs
def task_graphs(G: lg.Graph, name: str, tasks=TASKS) -> dict[str, lg.Graph]:
    """The graph each of ``tasks`` runs on (module docstring); ``scc`` only where ``G``
    is directed."""
    out = {}
    for task in tasks:
        if task == "bfs":
            out[task] = G
        elif task == "scc" and G.directed:
            out[task] = G
        elif task == "cc":
            out[task] = corpus.undirected(G)
        elif task == "msf":
            out[task] = corpus.msf_graph(G, name)
    return out


def gpu_device() -> str | None:
    """The name of the GPU that lagraph_py's gpu executor would use, or None."""
    try:
        import cupy as cp
        import gpu_backend  # noqa: F401
        if cp.cuda.runtime.getDeviceCount() == 0:
            return None
        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    except Exception:      # no CuPy, no driver, no device: the GPU contestants are skipped
        return None
    return name.decode() if isinstance(name, bytes) else name


def _gpu_sync() -> None:
    import cupy as cp
    cp.cuda.Device().synchronize()


def lagraph_call(task: str, H: lg.Graph, backend: str) -> Callable:
    """lagraph_py's call for ``task`` on ``H``: ``run(source)`` for BFS, ``run()``
    otherwise."""
    if task == "bfs":
        return lambda s: lg.bfs(H, s, backend=backend)
    if task == "msf":
        return lambda: lg.msf(H, backend=backend)
    return lambda: lg.scc(H, backend=backend)


def validator(task: str, H: lg.Graph, source: int | None) -> Callable:
    """A check of one lagraph_py result of ``task`` on ``H`` (``lg.validate``)."""
    if task == "bfs":
        return lambda r: lg.validate.bfs(H, source, r)
    if task == "msf":
        return lambda r: lg.validate.msf(H, r)
    return lambda r: lg.validate.scc(H, r)


def component_count(H: lg.Graph) -> int:
    """scipy's number of strongly connected components of ``H`` (connected components of
    an undirected ``H``)."""
    from scipy.sparse import csgraph
    return csgraph.connected_components(H.to_scipy(), directed=H.directed,
                                        connection="strong")[0]


# ---------------------------------------------------------------------- timing
def time_in_process(task: str, H: lg.Graph, picks: list[tuple], budget: float,
                    gpu: bool) -> list[dict]:
    """Rows of lagraph_py (when ``gpu``), the cpu executor and scipy on ``H``."""
    rows = []
    check = validator(task, H, picks[0][0] if task == "bfs" else None)
    runs = [("cpu-executor", lagraph_call(task, H, "cpu"), None, check)]
    if gpu:
        runs.insert(0, ("lagraph_py", lagraph_call(task, H, "gpu"), _gpu_sync, check))
    scipy_task = "scc" if task == "cc" else task
    for peer, run in peer_runs(scipy_task, H, peers=("scipy",)).items():
        runs.append((peer, run, None, None))
    for implementation, run, sync, validate in runs:
        rows.append(dict(implementation=implementation,
                         **timings(run, picks, budget=budget, sync=sync, check=validate)))
    return rows


def ecl_seconds(implementation: str, binary: str, H: lg.Graph, repeats: int,
                expected_count: int | None) -> dict | None:
    """The median of ``repeats`` runs of an ECL code's own time on ``H`` (ECL-CC: the mean
    of its :data:`ECL_CC_REPEATS` in one run), or None when its output lacks the time or
    fails its own check (the output is printed then). Raises AssertionError where its
    component count differs from ``expected_count``."""
    pattern, count_pattern, passed = ECL_OUTPUT[implementation]
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        path = write_egr(Path(tmp) / "g.egr", H,
                         weights=H.weights if implementation == "ecl-mst" else None)
        argv = [binary, str(path)]
        if implementation == "ecl-cc":
            argv.append(str(ECL_CC_REPEATS))
            repeats = 1
        for _ in range(repeats):
            out = subprocess.run(argv, capture_output=True, text=True, timeout=ECL_TIMEOUT_S,
                                 preexec_fn=_unlimited_stack)
            found = re.search(pattern, out.stdout)
            if out.returncode or not found or (passed and passed not in out.stdout):
                print(f"{implementation} failed:", out.stdout[-2000:], out.stderr[-2000:])
                return None
            seconds = float(found.group(1))
            if implementation == "ecl-cc":
                seconds = ecl_cc_time(out.stdout, H.n) or seconds
            times.append(seconds)
            if count_pattern and expected_count is not None:
                count = int(re.search(count_pattern, out.stdout).group(1))
                if count != expected_count:
                    raise AssertionError(f"{implementation} found {count} components, "
                                         f"scipy {expected_count}")
    return dict(seconds=statistics.median(times), min_s=min(times), max_s=max(times),
                runs=len(times))


def _unlimited_stack() -> None:
    """ECL-CC recurses deeply: lift the stack limit as far as this process may."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))


def run_graph(e: corpus.Entry, args, gpu: bool, log=print) -> list[dict]:
    """Every row of one corpus graph."""
    t0 = time.perf_counter()
    G = corpus.load(e.name, root=args.root)
    log(f"== {e.name} ({e.cls}): n={G.n:,} stored={G.nstored:,} "
        f"{'directed' if G.directed else 'undirected'}, loaded in "
        f"{time.perf_counter() - t0:.1f} s", flush=True)
    rows = []
    for task, H in task_graphs(G, e.name, args.tasks).items():
        picks = [(s,) for s in sources(H, args.sources)] if task == "bfs" else [()] * args.repeats
        if not picks:                                   # no vertex has an out-edge
            continue
        got = time_in_process(task, H, picks, args.budget, gpu)
        binary = getattr(args, ECL[task].replace("-", "_")) if task in ECL else None
        if gpu and binary:
            count = component_count(H) if task in ("scc", "cc") else None
            timed = ecl_seconds(ECL[task], binary, H, args.repeats, count)
            if timed:
                got.append(dict(implementation=ECL[task], **timed))
        for r in got:
            r.update(graph=e.name, **{"class": e.cls}, task=task, n=H.n, nstored=H.nstored)
        rows += got
        _release_device_memory(gpu)
    return rows


def _release_device_memory(gpu: bool) -> None:
    if gpu:
        import cupy as cp
        cp.get_default_memory_pool().free_all_blocks()


# ---------------------------------------------------------------------- report
def summary(rows: list[dict]) -> list[dict]:
    """One line per graph and task: ours (lagraph_py, else the cpu executor), the best
    peer and ``best/ours`` (above 1 where ours is faster)."""
    out = []
    keys = dict.fromkeys((r["graph"], r["task"]) for r in rows)
    for graph, task in keys:
        mine = {r["implementation"]: r for r in rows if (r["graph"], r["task"]) == (graph, task)}
        ours = next((mine[i] for i in OURS if i in mine), None)
        peers = [r for i, r in mine.items() if i not in OURS]
        best = min(peers, key=lambda r: r["seconds"], default=None)
        line = dict(graph=graph, task=task, **{"class": next(iter(mine.values()))["class"]})
        if ours:
            line.update(ours=ours["implementation"], ours_s=ours["seconds"])
        if best:
            line.update(best_peer=best["implementation"], best_s=best["seconds"])
        if ours and best:
            line["best/ours"] = best["seconds"] / ours["seconds"]
        out.append(line)
    return out


def device_tag(device: str | None) -> str:
    """The results file's device word: h100, h200, gpu or cpu."""
    if device is None:
        return "cpu"
    return "h200" if "H200" in device else "h100" if "H100" in device else "gpu"


def select(args) -> list[corpus.Entry]:
    """The corpus entries the arguments name."""
    if args.graphs:
        return [corpus.entry(name) for name in args.graphs]
    return corpus.entries(args.classes, max_stored=args.max_stored,
                          small=True if args.small else None)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", help="corpus names (default: every graph)")
    p.add_argument("--classes", nargs="+", choices=corpus.CLASSES)
    p.add_argument("--max-stored", type=int, help="skip graphs of more stored entries")
    p.add_argument("--small", action="store_true",
                   help=f"only graphs of at most {corpus.SMALL_N:,} vertices")
    p.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    p.add_argument("--sources", type=int, default=64, help="BFS sources (at least 256 on "
                   "graphs under 2^20 stored entries)")
    p.add_argument("--repeats", type=int, default=5, help="MSF, SCC and cc runs")
    p.add_argument("--budget", type=float, default=10.0,
                   help="about this many seconds per contestant, graph and task")
    p.add_argument("--root", help="corpus cache or pack folder (default $LAGRAPH_CORPUS "
                                  "or bench/graphs)")
    for implementation in ECL.values():
        p.add_argument(f"--{implementation}", metavar="BINARY",
                       help=f"{implementation} binary (skipped when absent)")
    p.add_argument("--no-gpu", action="store_true", help="skip the GPU contestants")
    p.add_argument("--out", help="JSON file name in bench/results "
                                 "(default gpu_corpus_<device>)")
    args = p.parse_args(argv)
    device = None if args.no_gpu else gpu_device()
    selected = select(args)
    missing = [e.name for e in selected
               if e.real and not (corpus.cache_dir(args.root) / f"{e.name}.npz").exists()]
    if missing and not args.graphs:
        print(f"not in {corpus.cache_dir(args.root)}, skipped: {' '.join(missing)}")
        selected = [e for e in selected if e.name not in missing]
    print(f"device: {device or 'none (GPU contestants skipped)'}; host: {cpu_name()}")
    rows, name = [], args.out or f"gpu_corpus_{device_tag(device)}"
    for e in selected:
        got = run_graph(e, args, device is not None)
        print_table(got, ["graph", "task", "implementation", "seconds", "min_s", "max_s",
                          "runs", "nstored"])
        rows += got
        payload = dict(device=device or cpu_name(), host=cpu_name(), versions=versions(),
                       sources=args.sources, repeats=args.repeats, budget_s=args.budget,
                       rows=rows, summary=summary(rows))
        path = write_json(name, payload)     # after every graph: a cut-short run keeps its rows
    print()
    print_table(summary(rows), ["graph", "class", "task", "ours", "ours_s", "best_peer",
                                "best_s", "best/ours"])
    print(f"wrote {path}" if rows else "no graph run")
    return payload if rows else {}


if __name__ == "__main__":
    main()
