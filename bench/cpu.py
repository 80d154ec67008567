"""CPU benchmark: the cpu executor against scipy.sparse.csgraph, measured in the same run.

Usage::

    python bench/cpu.py                      # Kronecker scale 16..20 and a 1000x1000 grid
    python bench/cpu.py --scales 16 18 --no-grid --repeats 3

For each graph: BFS (auto, push, pull; median over sources with nonzero degree) against
``breadth_first_order``, MSF against ``minimum_spanning_tree`` and SCC against
``connected_components(connection="strong")``. Prints a table and writes
``bench/results/cpu.json``; ``speedup`` is scipy's median time over ours.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import scipy.sparse.csgraph as csgraph

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lagraph_py as lg  # noqa: E402
from common import cpu_name, median_seconds, print_table, sources, write_json  # noqa: E402

BFS_METHODS = ("auto", "push", "pull")


def bfs_rows(name, G, nsources):
    A = G.to_scipy()
    picks = sources(G, nsources)

    def per_source(fn):
        fn(picks[0])  # warm-up: builds cached matrices and transposes
        times = []
        for s in picks:
            t0 = time.perf_counter()
            fn(s)
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    base = per_source(lambda s: csgraph.breadth_first_order(
        A, s, directed=G.directed, return_predecessors=True))
    rows = [dict(graph=name, algorithm="bfs", method="scipy", seconds=base)]
    for m in BFS_METHODS:
        t = per_source(lambda s: lg.bfs(G, s, method=m))
        rows.append(dict(graph=name, algorithm="bfs", method=m, seconds=t,
                         speedup=base / t, MTEPS=G.nstored / t / 1e6))
    return rows


def timed_pair(name, algorithm, ours, theirs, repeats):
    base = median_seconds(theirs, repeats)
    t = median_seconds(ours, repeats)
    return [dict(graph=name, algorithm=algorithm, method="scipy", seconds=base),
            dict(graph=name, algorithm=algorithm, method="lagraph_py", seconds=t,
                 speedup=base / t)]


def graph_rows(name, G_undirected, G_directed, nsources, repeats):
    rows = bfs_rows(name, G_undirected, nsources)
    A = G_undirected.to_scipy()
    rows += timed_pair(name, "msf", lambda: lg.msf(G_undirected),
                       lambda: csgraph.minimum_spanning_tree(A), repeats)
    D = G_directed.to_scipy()
    rows += timed_pair(name + (" (directed)" if G_directed.directed else ""), "scc",
                       lambda: lg.scc(G_directed),
                       lambda: csgraph.connected_components(
                           D, directed=G_directed.directed, connection="strong"), repeats)
    for r in rows:
        r.update(n=G_undirected.n, nstored=G_undirected.nstored)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[16, 17, 18, 19, 20])
    p.add_argument("--edgefactor", type=int, default=16)
    p.add_argument("--no-grid", action="store_true", help="skip the 1000x1000 grid")
    p.add_argument("--sources", type=int, default=8, help="BFS sources per graph")
    p.add_argument("--repeats", type=int, default=3, help="timed runs of MSF and SCC")
    p.add_argument("--out", default="cpu", help="name of the JSON file in bench/results")
    args = p.parse_args(argv)

    rows = []
    for scale in args.scales:
        t0 = time.perf_counter()
        G = lg.generate.kronecker(scale, args.edgefactor, weights="real")
        D = lg.generate.kronecker(scale, args.edgefactor, directed=True)
        print(f"kron{scale}: n={G.n} nstored={G.nstored} generated in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        rows += graph_rows(f"kron{scale}", G, D, args.sources, args.repeats)
    if not args.no_grid:
        G = lg.generate.grid(1000, 1000, weights="real")
        rows += graph_rows("grid1000x1000", G, G, args.sources, args.repeats)

    print_table(rows, ["graph", "algorithm", "method", "seconds", "speedup", "MTEPS"])
    path = write_json(args.out, dict(device=cpu_name(), edgefactor=args.edgefactor,
                                     lagraph_py=lg.__version__, rows=rows))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
