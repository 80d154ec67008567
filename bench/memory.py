"""Peak memory per stored entry of each stage, measured, on Kronecker graphs.

::

    python bench/memory.py                          # scales 20..22, host stages
    python bench/memory.py --scales 20 24 26 --gpu  # the big scales on the GPU machine
    python bench/memory.py --scales 16 --paths compiled scipy reference

Graphs: Graph500 Kronecker graphs of each scale (edge factor 16, seed 0, as
``lg.generate.kronecker``): ``kronS`` unweighted, ``kronS-int32`` with int32 weights
uniform in ``[0, 2**31)``, ``kronS-directed`` (the arcs as drawn, for SCC).

Stages, each in a fresh process (a child of this one) that reads its inputs first, then
loads the compiled code by the same call on a Kronecker graph of scale 16 of the same
kind, then measures one call:

- ``build``: ``Graph.from_edges`` of the generated edge list (uint32 ids, int32 weights):
  the peak beyond the edge arrays; path ``compiled`` (the counting sort) and, as the
  baseline, ``graphblas`` (SuiteSparse's build, which ``from_edges`` runs while the
  compiled loops are not ready, and the only one before);
- ``graph``: in the same process, what the Graph holds once the edge arrays are freed;
- ``bfs`` (from the vertex of largest out-degree), ``msf``, ``scc`` (on the directed
  graph), ``cc``: one call of ``lg.bfs`` etc. on the Graph loaded from files, the peak
  beyond it; on the host for each ``--paths`` (``compiled``: ``backend="cpu"`` with its
  compiled loops, ``scipy``: scipy's routines, ``reference``: python-graphblas), and with
  ``--gpu`` on the gpu executor.

Host peaks are resident memory, measured: ``VmHWM`` of ``/proc/self/status`` after
resetting it (``/proc/self/clear_refs``), less ``VmRSS`` before the call, with freed
memory handed back to the system first (``malloc_trim``); where the reset is refused, the
growth of ``ru_maxrss``. GPU peaks are the bytes CuPy's memory pool holds after the call,
started empty (the device CSR and everything cached with the graph included), beside the
formulas' count (``gpu_backend.storage.graph_bytes`` plus the call's ``working_set``).
Each row has ``peak_bytes``, the estimate of :mod:`lagraph_py.memory` (host) or of the
formulas (gpu) as ``estimate_bytes``, ``stored_entries`` and ``seconds``; the JSON goes to
``bench/results/memory_<tag>.json`` (tag: ``--tag``, else ``h100``/``h200`` on such a GPU,
else ``cpu``).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import lagraph_py as lg  # noqa: E402
from lagraph_py import generate, memory  # noqa: E402
from common import commit, cpu_name, print_table, versions, write_json  # noqa: E402

STAGES = ("build", "bfs", "msf", "scc", "cc")
PATHS = ("compiled", "scipy", "reference")
#: Stages of each graph kind (the name's suffix); "graph" rows come with "build".
KIND_STAGES = {"": ("build", "bfs", "msf", "cc"), "-int32": ("build", "msf"),
               "-directed": ("build", "bfs", "scc")}
_KIND_ARGUMENT = {"": "plain", "-int32": "int32", "-directed": "directed"}
#: Scale of the graphs of the warm-up calls (past the size thresholds of the loops).
WARM_SCALE = 16
INT32_WEIGHT_HIGH = 2**31


# ---------------------------------------------------------------------- measuring
def _status(key: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE).group(1)) * 1024


def _trim() -> None:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_bytes(fn):
    """``(fn(), peak bytes of resident memory during the call beyond the start, seconds)``.

    Examples
    --------
    >>> _, peak, _ = peak_bytes(lambda: np.ones(1 << 24).sum())
    >>> 100e6 < peak < 200e6                     # 128 MiB of float64 ones
    True
    """
    _trim()
    try:
        Path("/proc/self/clear_refs").write_text("5")      # VmHWM := VmRSS
        before, peak = _status("VmRSS"), lambda: _status("VmHWM")
    except OSError:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # noqa: E731
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    return out, max(0, peak() - before), seconds


# ---------------------------------------------------------------------- graphs
def kronecker_edges(scale: int, kind: str):
    """``(n, src, dst, weights, directed)`` of the graph ``kron<scale><kind>``: the edge
    list of ``lg.generate.kronecker(scale)`` (uint32 ids) and, for ``-int32``, int32
    weights drawn after it."""
    rng = np.random.default_rng(0)
    src, dst = generate._recursive_matrix_edges(scale, 16 << scale, generate.GRAPH500_ABC,
                                                rng)
    weights = None
    if kind == "-int32":
        weights = rng.integers(0, INT32_WEIGHT_HIGH, size=src.size, dtype=np.int32)
    return 1 << scale, src, dst, weights, kind == "-directed"


def save_graph(G, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("indptr", "indices", "weights"):
        if getattr(G, name) is not None:
            np.save(folder / f"{name}.npy", getattr(G, name))
    (folder / "graph.json").write_text(json.dumps(dict(n=G.n, directed=G.directed,
                                                       nself_loops=G.nself_loops)))


def load_graph(folder: Path):
    meta = json.loads((folder / "graph.json").read_text())
    arrays = [np.load(folder / f"{name}.npy") if (folder / f"{name}.npy").exists() else None
              for name in ("indptr", "indices", "weights")]
    return lg.Graph(meta["n"], meta["directed"], *arrays, meta["nself_loops"])


# ---------------------------------------------------------------------- one stage
def _executor(path: str):
    if path == "compiled":
        from lagraph_py.cpu_steps import FusedCpuExecutor
        return FusedCpuExecutor()
    if path == "scipy":
        from lagraph_py.scipy_cpu import ScipyCpuExecutor
        return ScipyCpuExecutor()
    if path == "reference":
        from lagraph_py.cpu import CpuExecutor
        return CpuExecutor()
    from lagraph_py.executor import get_executor
    return get_executor("gpu")


def _call(stage: str, G, ex):
    if stage == "bfs":
        return lg.bfs(G, int(np.argmax(G.out_degree())), backend=ex)
    if stage == "msf":
        return lg.msf(G, backend=ex)
    if stage == "scc":
        return lg.scc(G, backend=ex)
    return lg.connected_components(G, backend=ex)


def run_stage(scale: int, kind: str, stage: str, path: str, folder: Path) -> list[dict]:
    """The rows of one stage (in this process, which should be fresh)."""
    graph = f"kron{scale}{kind}"
    if stage == "build":
        build = (lg.Graph.from_edges if path == "compiled" else
                 lambda s, d, w, n, directed: lg.Graph._from_coo_graphblas(n, s, d, w,
                                                                           directed))
        n, src, dst, w, directed = kronecker_edges(WARM_SCALE, kind)
        build(src, dst, w, n=n, directed=directed)                           # warm up
        n, src, dst, w, directed = kronecker_edges(scale, kind)
        _trim()
        base = _status("VmRSS") - sum(a.nbytes for a in (src, dst, w) if a is not None)
        estimate = memory.build_bytes(n, src.size, directed, 0 if w is None else w.itemsize,
                                      path)
        G, peak, seconds = peak_bytes(lambda: build(src, dst, w, n=n, directed=directed))
        if path == "compiled":
            save_graph(G, folder / graph)
        del src, dst, w
        _trim()
        held = _status("VmRSS") - base
        common = dict(graph=graph, where="host", path=path, n=G.n, stored_entries=G.nstored)
        return [dict(common, stage="build", peak_bytes=peak, estimate_bytes=estimate,
                     seconds=seconds),
                dict(common, stage="graph", peak_bytes=held, estimate_bytes=G.nbytes,
                     seconds=None)][:1 + (path == "compiled")]
    ex = _executor(path)
    n, src, dst, w, directed = kronecker_edges(WARM_SCALE, kind)
    _call(stage, lg.Graph.from_edges(src, dst, w, n=n, directed=directed), ex)  # warm up
    G = load_graph(folder / graph)
    row = dict(graph=graph, stage=stage, path=path, n=G.n, stored_entries=G.nstored)
    if path == "gpu":
        return [dict(row, where="gpu", **_gpu_peak(stage, G, ex))]
    estimate = {"bfs": memory.bfs_bytes, "msf": memory.msf_bytes, "scc": memory.scc_bytes,
                "cc": memory.cc_bytes}[stage](G, ex)
    _, peak, seconds = peak_bytes(lambda: _call(stage, G, ex))
    return [dict(row, where="host", peak_bytes=peak, estimate_bytes=estimate,
                 seconds=seconds)]


def _gpu_peak(stage: str, G, ex) -> dict:
    """The pool's bytes after one call from an empty pool, and the formulas' count: what
    ``G`` holds on the device after the call and the call's working set (an MSF's first
    call: its edge list's build, counted by its working set, not as held)."""
    import cupy as cp
    from gpu_backend import bfs_steps, components_steps, msf_steps, scc_steps, storage

    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    built = stage == "msf" and msf_steps._EDGE_LIST not in G._cache
    start = time.perf_counter()
    _call(stage, G, ex)
    cp.cuda.Device().synchronize()
    seconds = time.perf_counter() - start
    peak = int(pool.total_bytes())
    edges = G._cache.pop(msf_steps._EDGE_LIST) if built else None
    held = storage.graph_bytes(G)
    if built:
        G._cache[msf_steps._EDGE_LIST] = edges
    itype = storage.device_index_dtype(G.indptr, G.indices)
    work = {"bfs": lambda: bfs_steps.working_set(G.n, itype),
            "msf": lambda: msf_steps.working_set(
                G.n, G.nstored // 2, itype, G.weights.dtype if G.weighted else None,
                not built),
            "scc": lambda: scc_steps.trim_working_set(G.n, itype)
            + scc_steps.signatures_working_set(G.n, G.nstored, G.n, itype)
            + scc_steps.pivot_working_set(G.n, itype, kept=True),     # (its scratch: held)
            "cc": lambda: components_steps.working_set(G.n, itype, True)}[stage]()
    return dict(peak_bytes=peak, estimate_bytes=held + work,
                resident_bytes=int(pool.used_bytes()), seconds=seconds)


# ---------------------------------------------------------------------- the sweep
def sweep(scale, stages, paths, gpu: bool, kinds=tuple(KIND_STAGES),
          builds=("compiled", "graphblas"), log=print) -> list[dict]:
    """Every stage of every graph of kind in ``kinds`` at ``scale``, each in a child
    process; the rows. The graph is built first (``compiled``, whose Graph the other
    stages load; ``graphblas`` too, as the build's baseline, where ``builds`` names it)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="lagraph_memory_") as tmp:
        for kind in kinds:
            for stage in (s for s in KIND_STAGES[kind] if s in stages or s == "build"):
                where = ["compiled", *(b for b in builds if b != "compiled")] \
                    if stage == "build" else list(paths) + (["gpu"] if gpu else [])
                for path in where:
                    rows += _child(scale, kind, stage, path, Path(tmp), log)
    return rows


def _child(scale, kind, stage, path, folder, log) -> list[dict]:
    cmd = [sys.executable, __file__, "--child", str(scale), _KIND_ARGUMENT[kind], stage, path,
           str(folder)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        log(f"kron{scale}{kind} {stage} {path}: failed\n{done.stderr[-2000:]}")
        return []
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    for r in rows:
        r["bytes_per_entry"] = round(r["peak_bytes"] / max(r["stored_entries"], 1), 3)
        log(f"{r['graph']:>18} {r['stage']:>6} {r['where']:>4} {r['path']:>9}: "
            f"{r['peak_bytes'] / 2**20:9.1f} MiB, {r['bytes_per_entry']:6.2f} B/entry, "
            f"estimate {r['estimate_bytes'] / max(r['peak_bytes'], 1):.2f}x")
    return rows


def _device() -> tuple[str, str]:
    """(device description, tag of the results file)."""
    try:
        import cupy as cp
        name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        tag = "h200" if "H200" in name else "h100" if "H100" in name else "gpu"
        return f"{cpu_name()}, {name}", tag
    except Exception:      # no CuPy or no device: the host alone
        return cpu_name(), "cpu"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[20, 21, 22])
    p.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES))
    p.add_argument("--paths", nargs="*", choices=PATHS, default=["compiled"],
                   help="host paths of the algorithm stages (none: the GPU's alone)")
    p.add_argument("--kinds", nargs="+", choices=list(_KIND_ARGUMENT.values()),
                   default=list(_KIND_ARGUMENT.values()))
    p.add_argument("--builds", nargs="+", choices=("compiled", "graphblas"),
                   default=["compiled", "graphblas"], help="build paths measured")
    p.add_argument("--gpu", action="store_true", help="also the gpu executor's pool peaks")
    p.add_argument("--tag", help="results file: bench/results/memory_<tag>.json")
    p.add_argument("--child", nargs=5, metavar=("SCALE", "KIND", "STAGE", "PATH", "DIR"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        scale, kind, stage, path, folder = args.child
        kind = {v: k for k, v in _KIND_ARGUMENT.items()}[kind]
        print(json.dumps(run_stage(int(scale), kind, stage, path, Path(folder))))
        return 0
    device, tag = _device()
    kinds = [k for k, v in _KIND_ARGUMENT.items() if v in args.kinds]
    rows = []
    for scale in args.scales:          # the file is rewritten after each scale
        rows += sweep(scale, args.stages, args.paths, args.gpu, kinds, args.builds)
        payload = dict(kind="memory", device=device, date=time.strftime("%Y-%m-%d %H:%M:%S"),
                       commit=commit() or "?", versions=versions(("numpy", "scipy", "numba")),
                       memory_total=_status_total(), rows=rows)
        path = write_json(f"memory_{args.tag or tag}", payload)
    print_table(rows, ["graph", "stage", "where", "path", "stored_entries", "peak_bytes",
                       "bytes_per_entry", "estimate_bytes", "seconds"])
    print(f"wrote {path}")
    return 0


def _status_total() -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    return int(re.search(r"^MemTotal:\s+(\d+) kB", text, re.MULTILINE).group(1)) * 1024


if __name__ == "__main__":
    os.environ.setdefault("LAGRAPH_PY_COMPILE", "foreground")   # the compiled loops, always
    sys.exit(main())
