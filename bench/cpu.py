"""CPU benchmark: lagraph_py's cpu executor against scipy.sparse.csgraph, python-igraph,
networkit and rustworkx, measured in the same process.

Usage::

    python bench/cpu.py                 # every graph below (several minutes on two cores)
    python bench/cpu.py --quick         # small graphs of each class, under a minute
    python bench/cpu.py --graphs kron18 road --sources 4
    python bench/cpu.py --corpus --classes web road-osm   # with the corpus' real graphs

Graphs (BFS and MSF on the undirected graph with random real weights, SCC on its directed
variant): ``kron18``, ``kron20`` (Graph500 Kronecker; SCC on the directed draw),
``grid1000`` (1000 x 1000; SCC on a random orientation), ``road`` (``generate.road(340, 340)``:
about 115k vertices and several hundred BFS levels; SCC gives its connected components)
and ``small`` (``generate.road(55, 55)``, about 3k vertices). SCC only: ``grid500`` (a
randomly oriented 500 x 500 grid) and ``mesh`` (a 64^3 mesh, sweep orientation with a
tenth of the edges two-way). ``--quick`` takes Kronecker 12 and 14, grids 200 and 150,
``road`` 100 x 100 and a 20^3 mesh.

``--corpus`` adds the real graphs of ``bench/corpus.py`` found in its cache
(``$LAGRAPH_CORPUS``, ``--root``), all of them, those named after it, or those of
``--classes``: BFS and MSF on ``corpus.msf_graph`` (the undirected form with the corpus'
weights), SCC on the graph itself where it is directed. Every row names its graph's
``class`` (the corpus class; generated graphs: kronecker, grid, road-like, mesh).

BFS times are medians over ``--sources`` random vertices with an out-edge, at least 256
distinct ones on graphs under 2^20 stored entries (``common.sources``; lagraph_py with
levels and parents, for ``method`` auto, push and pull); MSF and SCC over ``--repeats``
calls. Calls of a few milliseconds or less are warmed up and repeated (see
``common.timings``). Every timing follows an untimed warm-up call, so numba's first-call
compilation (cached on disk afterwards) is never timed. The first call is measured apart
(``first_call_s``, ``--first-call-scale``): BFS, MSF and SCC each as the first call of a
fresh process on a Kronecker graph (the demo's), with an empty numba cache (``cold``:
scipy's routines, the background compilation started and then stopped), with the cache
filled (``load``: the compiled loops loaded), and with an empty cache in foreground mode
(``compile``: the call compiles its loops, as before background compilation); with the
import time and a second call. A contestant whose warm-up takes over 10 s / runs is timed
on two runs only (``runs`` in the JSON): rustworkx on Kronecker 20, and a pure pull BFS on
a long-diameter graph, O(n x levels). Each lagraph_py result is validated once. Peers that
do not import are skipped; scipy gets float64 matrices (``common.peer_runs``). Prints a
table (``peer/ours``: a peer's time over lagraph_py's, above 1 where lagraph_py is faster)
and writes ``bench/results/cpu.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lagraph_py as lg  # noqa: E402
from bench import corpus  # noqa: E402
from lagraph_py.compilation import MODE_VARIABLE  # noqa: E402
from common import (commit, cpu_name, graph_statistics, peer_runs,  # noqa: E402
                    print_table, sources, timings, versions, write_json)

BFS_METHODS = ("auto", "push", "pull")
TASKS = ("bfs", "msf", "scc")
#: The first calls' conditions: (name, mode, whether numba's cache is the filled one).
FIRST_CALLS = (("cold", "background", False), ("load", "background", True),
               ("compile", "foreground", False))
#: What a fresh process runs (argv: algorithm, Kronecker scale): it prints the import
#: time, what ran, the first and a second call's seconds, and stops the background
#: compilation if the call started one.
FIRST_CALL = """
import json, sys, time
t0 = time.perf_counter()
import lagraph_py as lg
imported = time.perf_counter() - t0
from lagraph_py.compilation import loops_state, stop_background
task, scale = sys.argv[1], int(sys.argv[2])
G = lg.generate.kronecker(scale, weights="real", directed=task == "scc")
call = dict(bfs=lambda: lg.bfs(G, int(G.out_degree().argmax())), msf=lambda: lg.msf(G),
            scc=lambda: lg.scc(G))[task]
state = loops_state()
t0 = time.perf_counter(); call(); first = time.perf_counter() - t0
t0 = time.perf_counter(); call(); second = time.perf_counter() - t0
stopped = state == "scipy" and stop_background(timeout=120)
print(json.dumps(dict(import_s=imported, ran=state, first_s=first, second_s=second,
                      background_stopped=stopped)))
"""


def graph_set(quick: bool) -> dict:
    """``{name: (class, builder)}``: ``builder()`` gives ``(undirected graph or None,
    directed graph or None)``; BFS and MSF run on the first, SCC on the second."""
    gen = lg.generate
    if quick:
        sizes = dict(kron=(12, 14), grid=200, grid_scc=150, road=(100, 100), mesh=20)
    else:
        sizes = dict(kron=(18, 20), grid=1000, grid_scc=500, road=(340, 340), mesh=64)
    out = {}
    for scale in sizes["kron"]:
        out[f"kron{scale}"] = ("kronecker", lambda s=scale: (gen.kronecker(s, weights="real"),
                                                             gen.kronecker(s, directed=True)))
    g = sizes["grid"]
    out[f"grid{g}"] = ("grid", lambda: (gen.grid(g, g, weights="real"),
                                        gen.grid(g, g, directed=True, orientation="random")))
    out["road"] = ("road-like", lambda: (gen.road(*sizes["road"], weights="real"),) * 2)
    out["small"] = ("road-like", lambda: (gen.road(55, 55, weights="real"),) * 2)
    gs = sizes["grid_scc"]
    out[f"grid{gs}"] = ("grid", lambda: (None, gen.grid(gs, gs, directed=True,
                                                        orientation="random")))
    m = sizes["mesh"]
    out["mesh"] = ("mesh", lambda: (None, gen.mesh(m, m, m, directed=True, orientation="sweep",
                                                   two_way=0.1)))
    return out


def corpus_set(names, classes, root) -> dict:
    """``{name: (class, builder)}`` as :func:`graph_set` of the corpus' real graphs
    ``names`` (default: those of ``classes``, all classes by default) found in the cache."""
    picked = ([corpus.entry(n) for n in names] if names
              else corpus.entries(classes, real=True))
    folder = corpus.cache_dir(root)
    out = {}
    for e in picked:
        if not e.real or not (folder / f"{e.name}.npz").exists():
            print(f"{e.name}: not a cached real corpus graph, skipped")
            continue

        def build(e=e):
            G = corpus.load(e.name, root)
            return corpus.msf_graph(G, e.name), (G if G.directed else None)
        out[e.name] = (e.cls, build)
    return out


def first_call_rows(scale: int, tasks) -> list[dict]:
    """The first call of each of ``tasks`` in fresh processes, under each of
    :data:`FIRST_CALLS`; the compiled loops are on disk (:func:`main` compiles them first)
    for ``load``, and each other condition starts from an empty numba cache."""
    root = Path(__file__).resolve().parent.parent
    rows = []
    for condition, mode, filled in FIRST_CALLS:
        for task in tasks:
            with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as empty:
                env = dict(os.environ, PYTHONPATH=str(root), **{MODE_VARIABLE: mode})
                if not filled:
                    env["NUMBA_CACHE_DIR"] = empty
                out = subprocess.run([sys.executable, "-c", FIRST_CALL, task, str(scale)],
                                     env=env, capture_output=True, text=True, check=True)
            rows.append(dict(algorithm=task, condition=condition, graph=f"kron{scale}",
                             **json.loads(out.stdout.splitlines()[-1])))
    print_table(rows, ["graph", "algorithm", "condition", "ran", "import_s", "first_s",
                       "second_s"])
    return rows


def bfs_rows(G, nsources):
    picks = [(s,) for s in sources(G, nsources)]
    rows = []
    for m in BFS_METHODS:
        rows.append(dict(implementation="lagraph_py", method=m,
                         **timings(lambda s, m=m: lg.bfs(G, s, method=m), picks,
                                   check=lambda r: lg.validate.bfs(G, picks[0][0], r))))
    for peer, run in peer_runs("bfs", G).items():
        rows.append(dict(implementation=peer, **timings(run, picks)))
    return rows


def task_rows(task, G, repeats):
    ours = (lambda: lg.msf(G)) if task == "msf" else (lambda: lg.scc(G))
    validate = lg.validate.msf if task == "msf" else lg.validate.scc
    calls = [()] * repeats
    rows = [dict(implementation="lagraph_py",
                 **timings(ours, calls, check=lambda r: validate(G, r)))]
    for peer, run in peer_runs(task, G).items():
        rows.append(dict(implementation=peer, **timings(run, calls)))
    return rows


def add_ratios(rows) -> None:
    """``peer/ours`` on each peer row (over lagraph_py's auto BFS or its one run); on
    lagraph_py rows ``scipy/ours`` and ``best/ours`` (the fastest peer)."""
    ours = next(r["seconds"] for r in rows if r["implementation"] == "lagraph_py"
                and r.get("method") in (None, "auto"))
    peers = {r["implementation"]: r["seconds"] for r in rows
             if r["implementation"] != "lagraph_py"}
    for r in rows:
        if r["implementation"] == "lagraph_py":
            if peers:
                r["scipy/ours"] = peers.get("scipy", np.nan) / r["seconds"]
                r["best/ours"] = min(peers.values()) / r["seconds"]
        else:
            r["peer/ours"] = r["seconds"] / ours


def levels_of(G) -> int:
    """BFS levels from the vertex of largest degree (a lower bound on the diameter)."""
    return int(lg.bfs(G, int(np.argmax(G.out_degree())), parents=False).level.max())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small graphs, under a minute")
    p.add_argument("--graphs", nargs="+", default=None, help="names among the graph set")
    p.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    p.add_argument("--sources", type=int, default=None,
                   help="BFS sources (8; quick 4; at least 256 below 2^20 stored entries)")
    p.add_argument("--repeats", type=int, default=None, help="MSF/SCC runs (3; quick 2)")
    p.add_argument("--corpus", nargs="*", metavar="NAME",
                   help="add the corpus' real graphs (these, or every cached one)")
    p.add_argument("--classes", nargs="+", choices=corpus.CLASSES,
                   help="with --corpus: only graphs of these classes")
    p.add_argument("--root", help="corpus cache folder (default $LAGRAPH_CORPUS or "
                                  "bench/graphs)")
    p.add_argument("--first-call-scale", type=int, default=16,
                   help="Kronecker scale of the first-call measurement (16; 0 skips it)")
    p.add_argument("--out", default="cpu", help="name of the JSON file in bench/results")
    args = p.parse_args(argv)
    nsources = args.sources or (4 if args.quick else 8)
    repeats = args.repeats or (2 if args.quick else 3)
    builders = graph_set(args.quick)
    if args.corpus is not None:
        builders.update(corpus_set(args.corpus, args.classes, args.root))
    names = args.graphs or list(builders)
    unknown = sorted(set(names) - set(builders))
    if unknown:
        p.error(f"unknown graphs {unknown}; choose among {list(builders)}")

    # the compiled loops on disk before any timing: until they are, backend="cpu" runs
    # scipy's routines (lagraph_py.compilation), and a run would time those first
    started = time.strftime("%Y-%m-%dT%H:%M:%S")
    print(f"compiled loops on disk after {lg.compile_cpu_loops():.1f} s", flush=True)
    first = first_call_rows(args.first_call_scale, args.tasks) if args.first_call_scale else []
    rows, graphs = [], {}
    for name in names:
        t0 = time.perf_counter()
        cls, build = builders[name]
        G, D = build()
        graphs[name] = {}
        if G is not None:
            graphs[name]["undirected"] = dict(graph_statistics(G), bfs_levels=levels_of(G))
        if D is not None and D is not G:
            graphs[name]["directed"] = graph_statistics(D)
        print(f"{name}: {graphs[name]} built in {time.perf_counter() - t0:.1f} s", flush=True)
        for task in args.tasks:
            H = D if task == "scc" else G
            if H is None:
                continue
            got = bfs_rows(H, nsources) if task == "bfs" else task_rows(task, H, repeats)
            add_ratios(got)
            for r in got:
                r.update(graph=name, algorithm=task, n=H.n, nstored=H.nstored,
                         **{"class": cls})
            print_table(got, ["graph", "algorithm", "implementation", "method", "seconds",
                              "min_s", "max_s", "peer/ours", "scipy/ours", "best/ours"])
            rows += got
    payload = dict(device=cpu_name(), versions=versions(), date=started, commit=commit(),
                   first_call_s=first, quick=args.quick, sources=nsources, repeats=repeats,
                   graphs=graphs, rows=rows)
    path = write_json(args.out, payload)
    print(f"wrote {path}")
    return payload


if __name__ == "__main__":
    main()
