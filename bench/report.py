"""``python -m bench report``: figures and the README's results section from bench/results/.

:func:`load_results` reads every JSON file of a folder, whatever runner wrote it, into one
row form: graph, algorithm, implementation ("lagraph_py" or a baseline's name), backend,
method, seconds (median), min_s, max_s, n, nstored, device. The formats it knows:

- the suite's (``suite`` key; rows already in this form);
- row lists (``bench/cpu.py``, ``bench/cpu_gap.py``, ``bench/gpu_msf.py``,
  ``bench/gpu_scc.py``): ``rows`` of graph, algorithm (or task), ``implementation`` or
  ``method``, seconds;
- the GPU BFS study (``bench/gpu_bfs.py``): ``graphs`` -> ``methods`` -> median_ms.

Memory files (``bench/memory.py``: ``"kind": "memory"``) hold peaks, not times:
:func:`load_results` leaves them out and :func:`load_memory` reads them.

:func:`write_report` draws, per file, time against size and the speed-ups over each
baseline, and a BFS level timeline of the largest traced graph of each family (``kron``,
``grid``, ...), into ``docs/images/``; then rewrites
the part of README.md between :data:`START` and :data:`END` with a table per file.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
from pathlib import Path

START = "<!-- bench-results:start (python -m bench report rewrites this part) -->"
END = "<!-- bench-results:end -->"
OURS = "lagraph_py"
#: A BFS of levels only (bench/gpu_bfs_peers.py): lagraph_py too, shown beside the whole one.
LEVELS_ONLY = "lagraph_py-levels"
#: Names by which runners record the cpu executor as the baseline of a GPU study.
CPU_EXECUTOR = ("cpu_executor", "cpu-executor")


def load_results(folder) -> list[dict]:
    """Every JSON file of ``folder`` as ``dict(file, device, date, commit, rows, traces)``.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "cpu.json").write_text(json.dumps({"device": "x", "rows": [
    ...     {"graph": "g", "algorithm": "msf", "method": "scipy", "seconds": 2.0},
    ...     {"graph": "g", "algorithm": "msf", "method": "lagraph_py", "seconds": 1.0}]}))
    >>> [(r["implementation"], r["backend"]) for r in load_results(d)[0]["rows"]]
    [('scipy', 'cpu'), ('lagraph_py', 'cpu')]
    """
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        payload = json.loads(path.read_text())
        if _is_memory(payload):
            continue
        rows = _rows(payload, gpu_file=path.stem.startswith("gpu"))
        if not rows:
            continue
        date, commit = _provenance(path, payload)
        devices = sorted({r["device"] for r in rows if r.get("device")})
        out.append(dict(file=path.name, device=", ".join(devices), date=date, commit=commit,
                        rows=rows, traces=payload.get("traces", {}) if isinstance(
                            payload, dict) else {}))
    return out


def _is_memory(payload) -> bool:
    return isinstance(payload, dict) and payload.get("kind") == "memory"


def load_memory(folder) -> list[dict]:
    """Every memory file of ``folder`` (``bench/memory.py``) as ``dict(file, device,
    date, commit, rows)``."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        payload = json.loads(path.read_text())
        if _is_memory(payload):
            date, commit = _provenance(path, payload)
            out.append(dict(file=path.name, device=payload.get("device", ""), date=date,
                            commit=commit, rows=payload["rows"]))
    return out


def memory_table(rows: list[dict]) -> list[str]:
    """Markdown lines: per graph kind, stage and path, the peak bytes per stored entry at
    the largest scale measured, and the estimate's ratio to it."""
    largest = max(r["stored_entries"] for r in rows if not r["graph"].endswith("directed"))
    scale = next(r["graph"] for r in rows if r["stored_entries"] == largest)
    scale = re.match(r"kron\d+", scale)[0]
    lines = [f"| graph ({scale}) | stage | where | path | peak | bytes / entry | estimate / peak |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if re.match(r"kron\d+", r["graph"])[0] == scale:
            lines.append(f"| {r['graph']} | {r['stage']} | {r['where']} | {r['path']} | "
                         f"{r['peak_bytes'] / 2**20:.0f} MiB | {r['bytes_per_entry']:.2f} | "
                         f"{r['estimate_bytes'] / max(r['peak_bytes'], 1):.2f} |")
    return lines


def _rows(payload, gpu_file: bool) -> list[dict]:
    if isinstance(payload, dict) and "suite" in payload:
        return payload["rows"]
    if isinstance(payload, dict) and isinstance(payload.get("graphs"), dict) and any(
            "methods" in g for g in payload["graphs"].values()):
        return list(_gpu_bfs_rows(payload))
    raw = payload.get("rows", []) if isinstance(payload, dict) else payload
    device = payload.get("device") if isinstance(payload, dict) else None
    rows = []
    for r in raw:
        seconds = r.get("seconds", r.get("median_s"))
        if seconds is None and "median_ms" in r:
            seconds = r["median_ms"] / 1e3
        if seconds is None or "graph" not in r:
            continue
        name = r.get("implementation") or r.get("method") or OURS
        variant = "levels" if name == LEVELS_ONLY else None
        ours = name == OURS or variant is not None or name in CPU_EXECUTOR or (
            "implementation" not in r and name in ("auto", "push", "pull"))
        backend = r.get("backend") or ("cpu" if name in CPU_EXECUTOR or not gpu_file
                                       else "gpu" if ours else "cpu")
        if name.startswith("ecl"):
            backend = "gpu"
        if ours and "ranks" in r:                 # the distributed executor's rows
            backend = f"{backend}, {r['ranks']} rank{'s' * (r['ranks'] > 1)}"
        stored = r.get("nstored") or r.get("arcs") or 2 * r.get("undirected_edges", 0)
        algorithm = r.get("algorithm") or r.get("task") or _algorithm_of(r)
        rows.append(dict(graph=r["graph"], algorithm=algorithm,
                         implementation=OURS if ours else name, backend=backend,
                         method=variant or (r.get("method") if ours and r.get("method") not in (
                             OURS, *CPU_EXECUTOR) else None),
                         seconds=float(seconds), min_s=r.get("min_s"), max_s=r.get("max_s"),
                         n=r.get("n"), nstored=stored or None, ranks=r.get("ranks"),
                         device=r.get("device") or device))
    return rows


def _algorithm_of(row: dict) -> str:
    name = row.get("implementation", "")
    if "GTEPS" in row:                            # bench/gpu_bfs_peers.py
        return "bfs"
    return "msf" if "mst" in name or "undirected_edges" in row else "scc"


def _gpu_bfs_rows(payload):
    for graph, g in payload["graphs"].items():
        for method, e in g["methods"].items():
            ours = method not in ("naive_spmv",)
            cpu = method in CPU_EXECUTOR
            yield dict(graph=graph, algorithm="bfs", implementation=OURS if ours else method,
                       backend="cpu" if cpu else "gpu",
                       method="auto" if cpu else method if ours else None,
                       seconds=e["median_ms"] / 1e3, min_s=e.get("min_ms", 0) / 1e3,
                       max_s=None, n=g.get("n"), nstored=g.get("nstored"),
                       device=payload.get("device"))


def _provenance(path: Path, payload) -> tuple[str, str]:
    """Date and commit of a results file: its own fields, else the last commit that
    changed it, else its modification time and "uncommitted"."""
    if isinstance(payload, dict) and payload.get("date"):
        return payload["date"][:10], payload.get("commit") or "?"
    try:
        log = subprocess.run(["git", "log", "-1", "--format=%h %cs", "--", path.name],
                             cwd=path.parent, capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        log = []
    if len(log) == 2:
        return log[1], log[0]
    mtime = datetime.date.fromtimestamp(path.stat().st_mtime).isoformat()
    return mtime, "uncommitted"


def summary_table(rows: list[dict]) -> list[str]:
    """Markdown lines: per graph and algorithm, lagraph_py's time on each backend
    (``auto`` for BFS, and a BFS of levels only where a runner timed one) and the fastest
    baseline's."""
    from_ours = [r for r in rows if r["implementation"] == OURS and r.get("method") in (
        None, "auto", "levels")]
    lines = ["| graph | algorithm | lagraph_py | fastest baseline | speed-up |",
             "|---|---|---|---|---|"]
    for o in sorted(from_ours, key=lambda r: (r["algorithm"], r.get("nstored") or 0,
                                              r["graph"], r["backend"])):
        peers = [r for r in rows if r["implementation"] != OURS and
                 (r["graph"], r["algorithm"]) == (o["graph"], o["algorithm"])]
        only = " (levels only)" if o.get("method") == "levels" else ""
        ours = f"{o['backend']}{only} {_ms(o['seconds'])}"
        if not peers:
            lines.append(f"| {o['graph']} | {o['algorithm']} | {ours} | | |")
            continue
        best = min(peers, key=lambda r: r["seconds"])
        lines.append(f"| {o['graph']} | {o['algorithm']} | {ours} | {best['implementation']} "
                     f"{_ms(best['seconds'])} | {best['seconds'] / o['seconds']:.3g}x |")
    return lines


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def write_report(results, images, readme) -> list[Path]:
    """Draw the figures of every results file into ``images`` and rewrite the results
    section of ``readme`` (between :data:`START` and :data:`END`); return the figures."""
    from . import plots

    images, readme = Path(images), Path(readme)
    figures, section = [], []
    for res in load_results(results):
        stem = Path(res["file"]).stem
        section += [f"**{res['file']}**: {res['device']}; {res['date']}, commit "
                    f"{res['commit']}.", "", *summary_table(res["rows"]), ""]
        title = f"{stem}: {res['device']}"
        shown = []
        for kind, draw in (("times", plots.plot_times), ("speedup", plots.plot_speedups)):
            if (kind == "speedup" and not plots.speedups(res["rows"])
                    or not any(r.get("nstored") for r in res["rows"])):
                continue                        # (nothing to draw: no sizes, no speed-ups)
            figures.append(draw(res["rows"], images / f"{stem}_{kind}.png", title))
            shown.append(figures[-1])
        if any(r.get("ranks") for r in res["rows"]):
            figures.append(plots.plot_scaling(res["rows"], images / f"{stem}_scaling.png",
                                              title))
            shown.append(figures[-1])
        for graph in _largest_per_family(res["rows"], res["traces"]):
            for backend, levels in res["traces"][graph].items():
                figures.append(plots.plot_timeline(
                    levels, images / f"{stem}_timeline_{slug(graph)}_{backend}.png",
                    f"BFS levels: {graph}, {backend} executor"))
                shown.append(figures[-1])
        section += [f"![{p.stem}]({Path(os.path.relpath(p, readme.parent)).as_posix()})"
                    for p in shown] + [""]
    for res in load_memory(results):
        stem = Path(res["file"]).stem
        figure = plots.plot_memory(res["rows"], images / f"{stem}.png",
                                   f"{stem}: {res['device']}")
        figures.append(figure)
        section += [f"**{res['file']}** (peak memory): {res['device']}; {res['date']}, "
                    f"commit {res['commit']}.", "", *memory_table(res["rows"]), "",
                    f"![{stem}]({Path(os.path.relpath(figure, readme.parent)).as_posix()})",
                    ""]
    text = readme.read_text()
    if START not in text or END not in text:
        raise ValueError(f"{readme} has no results section: add the lines {START!r} and "
                         f"{END!r}")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    readme.write_text(head + START + "\n\n" + "\n".join(section) + "\n" + END + tail)
    return figures


def _largest_per_family(rows: list[dict], graphs) -> list[str]:
    """Of ``graphs``, the one with the most stored edges in each family (``kron``, ...)."""
    size = {r["graph"]: r.get("nstored") or 0 for r in rows}
    best = {}
    for g in graphs:
        family = re.match(r"[A-Za-z_]*", g)[0]
        if family not in best or size.get(g, 0) > size.get(best[family], 0):
            best[family] = g
    return sorted(best.values())


def slug(text: str) -> str:
    """``"AMD EPYC (2 cores)"`` -> ``"amd_epyc_2_cores"``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
