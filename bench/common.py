"""Shared pieces of the benchmark runners: timing, machine description, table and JSON."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"


def median_seconds(fn, repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def sources(G, count: int, seed: int = 0) -> list[int]:
    """``count`` distinct random vertices with at least one out-edge (Graph500 rule)."""
    candidates = np.flatnonzero(G.out_degree() > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(candidates, size=min(count, candidates.size),
                                       replace=False)]


def cpu_name() -> str:
    """The processor model and the number of cores this process may use."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model} ({len(os.sched_getaffinity(0))} cores)"


def print_table(rows: list[dict], columns: list[str]) -> None:
    """Print ``rows`` as a fixed-width table of ``columns``."""
    cells = [[_fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def write_json(name: str, payload: dict) -> Path:
    """Write ``payload`` to ``bench/results/<name>.json`` and return the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=1, default=float) + "\n")
    return path


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def write_egr(path, G, *, weights=None) -> Path:
    """Write ``G`` without self-loops as an ECL ``.egr`` file (little-endian int32:
    ``nodes, edges, nindex[nodes + 1], nlist[edges]``, then ``weights[edges]`` if given,
    aligned with ``nlist``) for the ECL peer codes; return the path."""
    rows, cols = G.rows(), G.indices
    keep = rows != cols
    nlist = cols[keep].astype("<i4")
    counts = np.bincount(rows[keep], minlength=G.n)
    nindex = np.zeros(G.n + 1, dtype="<i4")
    np.cumsum(counts, out=nindex[1:])
    path = Path(path)
    with path.open("wb") as f:
        np.array([G.n, nlist.size], dtype="<i4").tofile(f)
        nindex.tofile(f)
        nlist.tofile(f)
        if weights is not None:
            np.asarray(weights)[keep].astype("<i4").tofile(f)
    return path
