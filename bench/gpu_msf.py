"""GPU minimum spanning forest benchmark: ``lg.msf(G, backend="gpu")`` against ECL-MST,
scipy and the cpu executor, in the same run, on the same graphs.

Run on a machine with a CUDA GPU (ECL-MST built from ``.peers/`` with nvcc)::

    python bench/gpu_msf.py --out bench/results/gpu_msf_h100.json
    python bench/gpu_msf.py --graphs kron20-int grid-int --repeats 5

Graphs: Kronecker 20, 21, 22 and the uniform random ``uniform21`` (2.1M vertices, 33.5M
edge draws; all drawn on the GPU by ``gpu_bfs.recursive_graph``), the 2000x2000 grid and
road-like grids with 30% of their edges deleted (``lagraph_py.generate.road``): 1000x1000
(``road``), 340x340 (``road340``, 115k vertices, the size of the real road maps) and 55x55
(``road55``, 3k vertices); ``corpus:NAME`` is the symmetrized pattern of the real graph
NAME of the benchmark corpus (``bench/corpus.py``, its folder in ``$LAGRAPH_CORPUS``). Weights are int in ``[1, 2**24)``, a hash of the edge's
two ends (the same both ways, so the CSR goes into ``Graph`` directly, a benchmark-only
shortcut past ``Graph.from_edges``); a ``-float`` graph carries the same values divided
by ``2**24`` (float64, the same order), so ECL-MST (int weights only) runs on the same
forest problem.

Times (seconds, median of ``--repeats`` after a warm-up call that compiles the kernels and
builds the per-graph device edge list): ``lagraph_py`` is the whole ``lg.msf`` call, the
graph resident on the GPU (``MSFResult.total_weight`` is computed when first read, so
not here); ``step_seconds`` the ``spanning_forest`` group step alone (device
arrays out); ``prepare_seconds`` the one-time edge-list build. ``ecl-mst`` is ECL's own
``Dev+`` time (its GPU part, graph on the GPU; ``Dev-``, its unfiltered variant, on graphs
of average degree below 4, where ECL itself picks that one). ``scipy``
(``minimum_spanning_tree`` on the host CSR) and ``cpu-executor`` (``backend="cpu"``): one
run each after a warm-up run, only where cheap (``--host-max`` undirected edges; the notes
name the skipped graphs). ``--profile`` adds a CUDA-event split of one call per graph by
phase; ``--launched`` times the step again launched phase by phase (``FUSED_EDGES = 0``)
where it would run as one launch.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import cupy as cp
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lagraph_py as lg  # noqa: E402
from lagraph_py.executor import get_executor  # noqa: E402
from lagraph_py.graph import Graph  # noqa: E402
from common import median_seconds, print_table, write_egr  # noqa: E402
from gpu_bfs import recursive_graph  # noqa: E402
import gpu_backend.msf_steps as steps  # noqa: E402

GRAPHS = ("kron20-int", "kron20-float", "kron21-int", "kron21-float", "kron22-int",
          "kron22-float", "grid-int", "road-int", "road340-int", "road55-int",
          "uniform21-int")
#: (a, b, c) quadrant probabilities of the recursive graphs: Graph500's Kronecker, and the
#: uniform one (every quadrant 1/4: uniform random edges).
KRONECKER, UNIFORM = (0.57, 0.19, 0.19), (0.25, 0.25, 0.25)
ECL_SOURCE = ROOT / ".peers" / "ECL-MST_10.cu"


def hashed_weights(G: Graph) -> np.ndarray:
    """int64 weights in [1, 2**24) per stored entry: a hash of (min, max) of its ends."""
    indptr, indices = cp.asarray(G.indptr), cp.asarray(G.indices)
    rows = cp.searchsorted(indptr, cp.arange(indices.size), side="right") - 1
    lo = cp.minimum(rows, indices).astype(cp.uint64)
    hi = cp.maximum(rows, indices).astype(cp.uint64)
    x = (lo << cp.uint64(32)) | hi
    for shift, mult in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):  # splitmix64
        x ^= x >> cp.uint64(shift)
        x *= cp.uint64(mult)
    x ^= x >> cp.uint64(31)
    w = (x % cp.uint64(2**24 - 1) + cp.uint64(1)).astype(cp.int64).get()
    cp.get_default_memory_pool().free_all_blocks()
    return w


def make_graphs(names):
    """name -> (int-weighted Graph, its float twin or None) for the names asked for."""
    shapes = {}
    for name in names:
        shapes.setdefault(name.rsplit("-", 1)[0], set()).add(name.rsplit("-", 1)[1])
    for shape, kinds in shapes.items():
        if shape.startswith("corpus:"):
            import corpus
            G0 = corpus.undirected(corpus.load(shape[len("corpus:"):]))
        elif shape.startswith("kron"):
            G0 = recursive_graph(int(shape[4:]), KRONECKER)
        elif shape.startswith("uniform"):
            G0 = recursive_graph(int(shape[7:]), UNIFORM)
        elif shape == "grid":
            G0 = lg.generate.grid(2000, 2000)
        else:
            side = int(shape[4:] or 1000)
            G0 = lg.generate.road(side, side, keep=0.7, seed=0)
        w = hashed_weights(G0)
        G = Graph(G0.n, False, G0.indptr, G0.indices, w)
        for kind in sorted(kinds):
            yield f"{shape}-{kind}", G, (w / 2**24 if kind == "float" else None)


def _sync() -> None:
    cp.cuda.Device().synchronize()  # sync: the timed call's kernels have finished


def ecl_seconds(binary, G, w_int, tmp) -> float | None:
    path = write_egr(Path(tmp) / "g.egr", G, weights=w_int)
    out = subprocess.run([binary, str(path)], capture_output=True, text=True, timeout=300)
    found = re.search(r"Dev[+-]:\s*([0-9.]+)\s*s", out.stdout)
    if not found or "all good" not in out.stdout:
        print(out.stdout[-2000:], out.stderr[-2000:])
        return None
    return float(found.group(1))


def profile(G) -> dict:
    """CUDA-event milliseconds of one spanning_forest call by phase (patched wrappers; the
    phases launched one by one)."""
    marks, originals = [], {}
    ev = cp.cuda.Event

    def wrap(name, fn):
        def timed(*a, **k):
            start, end = ev(), ev()
            start.record()
            r = fn(*a, **k)
            end.record()
            marks.append((name, start, end))
            return r
        return timed

    for name in ("collect", "rounds", "flatten", "order"):
        originals[name] = getattr(steps._Run, name)
        setattr(steps._Run, name, wrap(name, originals[name]))
    try:
        start, end = ev(), ev()
        with mock.patch.object(steps, "FUSED_EDGES", 0):
            start.record()
            get_executor("gpu").spanning_forest(G)
            end.record()
        end.synchronize()
    finally:
        for name, fn in originals.items():
            setattr(steps._Run, name, fn)
    split = {"total": cp.cuda.get_elapsed_time(start, end)}
    for k, (name, s, e) in enumerate(marks):
        if name == "rounds":                         # the first launch: the light rounds
            name = "light rounds" if k == 1 else "later rounds"
        split[name] = split.get(name, 0.0) + cp.cuda.get_elapsed_time(s, e)
    return split


def study(G, repeats: int) -> dict:
    """Step milliseconds for other LIGHT_PER_VERTEX / LIGHT_ROUNDS constants."""
    ex, saved, out = get_executor("gpu"), (steps.LIGHT_PER_VERTEX, steps.LIGHT_ROUNDS), {}
    try:
        for light in (1, 2, 3, 5):
            for rounds in (4, 8):
                steps.LIGHT_PER_VERTEX, steps.LIGHT_ROUNDS = light, rounds
                t = median_seconds(lambda: ex.spanning_forest(G), repeats, sync=_sync)
                out[f"light={light},rounds={rounds}"] = round(t * 1e3, 3)
    finally:
        steps.LIGHT_PER_VERTEX, steps.LIGHT_ROUNDS = saved
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--host-max", type=int, default=20_000_000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--study", action="store_true", help="other light-set constants")
    ap.add_argument("--launched", action="store_true",
                    help="also the phases launched one by one on graphs fused by default")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    ecl = "/tmp/ecl-mst"
    if ECL_SOURCE.exists():
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-o", ecl, str(ECL_SOURCE)], check=True)
    rows, notes = [], []
    ex = get_executor("gpu")
    with tempfile.TemporaryDirectory() as tmp:
        for name, G_int, w_float in make_graphs(args.graphs):
            G = G_int if w_float is None else Graph(G_int.n, False, G_int.indptr,
                                                    G_int.indices, w_float)
            m = G.nedges
            base = {"graph": name, "undirected_edges": m, "device": device}
            t0 = time.perf_counter()
            ex.spanning_forest(G)                    # compiles, builds the edge list
            cp.cuda.Device().synchronize()
            prepare = time.perf_counter() - t0
            step = median_seconds(lambda: ex.spanning_forest(G), args.repeats, sync=_sync)
            whole = median_seconds(lambda: lg.msf(G, backend="gpu"), args.repeats, sync=_sync)
            print(f"{name}: lagraph_py {whole * 1e3:.2f} ms (step {step * 1e3:.2f} ms, "
                  f"edge list {prepare:.2f} s)", flush=True)
            rows.append({**base, "implementation": "lagraph_py", "seconds": whole,
                         "step_seconds": step, "prepare_seconds": prepare})
            if args.launched and m <= steps.FUSED_EDGES:
                with mock.patch.object(steps, "FUSED_EDGES", 0):
                    launched = median_seconds(lambda: lg.msf(G, backend="gpu"), args.repeats,
                                              sync=_sync)
                rows[-1]["launched_seconds"] = launched
                print(f"{name}: launched phase by phase {launched * 1e3:.2f} ms", flush=True)
            if args.profile:
                rows[-1]["profile_ms"] = profile(G)
                print(name, {k: round(v, 3) for k, v in rows[-1]["profile_ms"].items()})
            if args.study:
                rows[-1]["study_ms"] = study(G, args.repeats)
                print(name, rows[-1]["study_ms"], flush=True)
            if Path(ecl).exists():
                rows.append({**base, "implementation": "ecl-mst",
                             "seconds": ecl_seconds(ecl, G_int, G_int.weights, tmp)})
            if m <= args.host_max:
                from scipy.sparse.csgraph import minimum_spanning_tree
                A = G.to_scipy()
                rows.append({**base, "implementation": "scipy",
                             "seconds": median_seconds(lambda: minimum_spanning_tree(A), 1)})
                rows.append({**base, "implementation": "cpu-executor",
                             "seconds": median_seconds(lambda: lg.msf(G, backend="cpu"), 1)})
            else:
                notes.append(f"{name}: scipy and cpu-executor skipped ({m:,} edges > "
                             f"--host-max {args.host_max:,}: minutes per run)")
            cp.get_default_memory_pool().free_all_blocks()
            payload = {"device": device, "rows": rows, "notes": notes}
            if args.out:                             # after every graph: partial runs count
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(payload, indent=1) + "\n")
    print_table(rows, ["graph", "implementation", "seconds", "step_seconds",
                       "undirected_edges"])
    for note in notes:
        print(note)
    return {"device": device, "rows": rows, "notes": notes}


if __name__ == "__main__":
    main()
