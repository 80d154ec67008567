"""GPU strongly connected components: lagraph_py against ECL-SCC and scipy, same run.

Our time is the whole ``lg.scc(G, backend="gpu")`` call on a device-resident graph (one
warm-up call builds and caches the device matrices and compiles the kernels, then calls
for half a second bring the GPU to its clocks), median of ``--repeats``. ECL-SCC (built
from ``.peers/`` by the caller, path in ``--ecl``) reads the same graph from an ``.egr``
file; its own "compute time" (CUDA events around its algorithm) is taken, median of
``--repeats`` processes. scipy's ``connected_components(strong)`` runs
on the host. Then one instrumented call per graph gives where the time goes (each group
step timed between device synchronizations) and the rounds per phase.

Usage: ``python bench/gpu_scc.py [--ecl /tmp/ecl-scc] [--out FILE] [--repeats 5]
[--graphs kron20,grid1000,...] [--cpu] [--local-passes K]``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cupy as cp
import numpy as np
from scipy.sparse import csgraph

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lagraph_py as lg  # noqa: E402
from common import median_seconds, print_table, write_egr  # noqa: E402
from gpu_backend import GpuExecutor  # noqa: E402

GRAPHS = {
    "kron20": lambda: lg.generate.kronecker(20, directed=True),
    "kron22": lambda: lg.generate.kronecker(22, directed=True),
    "grid1000_random": lambda: lg.generate.grid(1000, 1000, directed=True,
                                                orientation="random"),
    "grid2000_random": lambda: lg.generate.grid(2000, 2000, directed=True,
                                                orientation="random"),
    "mesh128_sweep_2way0.1": lambda: lg.generate.mesh(128, 128, 128, directed=True,
                                                      orientation="sweep", two_way=0.1),
}
#: Seconds of untimed calls before ours are timed (see :func:`keep_busy`).
WARM_SECONDS = 0.5
_GROUP_STEPS = ("scc_trim", "scc_signatures", "bfs_level", "bfs_push_levels",
                "bfs_pull_levels")


class Instrumented(GpuExecutor):
    """The gpu executor with each group step timed between device synchronizations and
    its levels counted (BFS levels from the level numbers the steps return)."""

    def __init__(self):
        super().__init__()
        self.seconds = dict.fromkeys(_GROUP_STEPS, 0.0)
        self.calls = dict.fromkeys(_GROUP_STEPS, 0)
        self.bfs_levels = 0
        self.trim_levels = []

    def _timed(self, name, fn, *args, **kw):
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        result = fn(*args, **kw)
        cp.cuda.get_current_stream().synchronize()
        self.seconds[name] += time.perf_counter() - t0
        self.calls[name] += 1
        return result

    def scc_trim(self, *args):
        out = self._timed("scc_trim", super().scc_trim, *args)
        self.trim_levels.append(self.scc_counts()["trim_levels"])
        return out

    def scc_signatures(self, *args):
        return self._timed("scc_signatures", super().scc_signatures, *args)

    def bfs_level(self, *args, **kw):
        self.bfs_levels += 1
        return self._timed("bfs_level", super().bfs_level, *args, **kw)

    def bfs_push_levels(self, A, frontier, parent, level, k, *args, **kw):
        out = self._timed("bfs_push_levels", super().bfs_push_levels, A, frontier, parent,
                          level, k, *args, **kw)
        self.bfs_levels += out[1] - k + 1
        return out

    def bfs_pull_levels(self, A, AT, frontier, parent, level, k, *args, **kw):
        out = self._timed("bfs_pull_levels", super().bfs_pull_levels, A, AT, frontier,
                          parent, level, k, *args, **kw)
        self.bfs_levels += out[1] - k + 1
        return out


def keep_busy(fn, sync, seconds=WARM_SECONDS):
    """Call ``fn`` for ``seconds``: after host work (building the graph, scipy) the GPU
    idles at low clocks, and calls of a few milliseconds would be timed while it climbs
    back (ECL-SCC's timer starts after its own copies to the device)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        sync()


def scipy_labels(G):
    k, lab = csgraph.connected_components(G.to_scipy(), directed=True, connection="strong")
    smallest = np.full(k, G.n, dtype=np.int64)
    np.minimum.at(smallest, lab, np.arange(G.n))
    return smallest[lab], k


def ecl_seconds(binary, G, repeats):
    """Median of ECL-SCC's own compute time and its number of SCCs, or (None, None)."""
    if not binary:
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = write_egr(Path(tmp) / "g.egr", G)
        times, count = [], None
        for _ in range(repeats):
            text = subprocess.run([binary, str(path)], capture_output=True, text=True,
                                  check=True).stdout
            times.append(float(re.search(r"compute time: ([0-9.eE+-]+) s", text).group(1)))
            count = int(re.search(r"number of SCCs: (\d+)", text).group(1))
    return statistics.median(times), count


def run_graph(name, args, device):
    G = GRAPHS[name]()
    arcs = int(G.nedges)
    rows = []
    expected, k = scipy_labels(G)
    labels = cp.asnumpy(lg.scc(G, backend="gpu").labels)            # warm-up, checked
    if not np.array_equal(labels, expected):
        raise AssertionError(f"{name}: lagraph_py gpu labels differ from scipy's")

    row = dict(graph=name, arcs=arcs, device=device, n=G.n, sccs=k)
    ours = dict(local_passes=GpuExecutor.scc_local_passes)
    sync = cp.cuda.get_current_stream().synchronize
    keep_busy(lambda: lg.scc(G, backend="gpu"), sync)
    rows.append(dict(row, implementation="lagraph_py", **ours,
                     seconds=median_seconds(lambda: lg.scc(G, backend="gpu"), args.repeats,
                                            sync=sync)))
    ex = Instrumented()
    t0 = time.perf_counter()
    lg.scc(G, backend=ex)
    cp.cuda.get_current_stream().synchronize()
    total = time.perf_counter() - t0
    counts = ex.scc_counts()
    phases = {s: round(ex.seconds[s] * 1e3, 3) for s in _GROUP_STEPS if ex.calls[s]}
    phases["other steps"] = round((total - sum(ex.seconds.values())) * 1e3, 3)
    rows[-1].update(instrumented_ms=round(total * 1e3, 3), phase_ms=phases,
                    trim_levels=ex.trim_levels, bfs_levels=ex.bfs_levels,
                    signature_rounds=counts.get("signature_rounds", 0),
                    signature_sweeps=counts.get("signature_sweeps", 0))
    seconds, ecl_k = ecl_seconds(args.ecl, G, args.repeats)
    if seconds is not None:
        rows.append(dict(row, implementation="ecl-scc", seconds=seconds, ecl_sccs=ecl_k))
    rows.append(dict(row, implementation="scipy",
                     seconds=median_seconds(lambda: scipy_labels(G), 2)))
    if args.cpu:
        rows.append(dict(row, implementation="cpu-executor",
                         seconds=median_seconds(lambda: lg.scc(G, backend="cpu"), 2)))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ecl", default=None, help="ECL-SCC binary")
    ap.add_argument("--out", default=None, help="JSON file (default bench/results/...)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--cpu", action="store_true", help="also time the cpu executor")
    ap.add_argument("--local-passes", type=int, default=GpuExecutor.scc_local_passes,
                    help="SccSteps.scc_local_passes for this run")
    args = ap.parse_args(argv)
    GpuExecutor.scc_local_passes = args.local_passes
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for name in args.graphs.split(","):
        rows += run_graph(name, args, device)
        print_table(rows[-4:], ["graph", "implementation", "seconds", "phase_ms",
                                "trim_levels", "bfs_levels", "signature_rounds",
                                "signature_sweeps"])
        sys.stdout.flush()
    tag = "h200" if "H200" in device else "h100" if "H100" in device else "gpu"
    out = Path(args.out) if args.out else (
        Path(__file__).parent / "results" / f"gpu_scc_{tag}.json")
    payload = {"device": device, "rows": rows}
    out.write_text(json.dumps(payload, indent=1) + "\n")
    print()
    print_table(rows, ["graph", "implementation", "seconds", "arcs", "device"])
    return payload


if __name__ == "__main__":
    main()
