"""matplotlib figures of benchmark results, written as PNG files.

Every function takes rows in the common form of :func:`bench.report.load_results` (keys
graph, algorithm, implementation, backend, method, seconds, nstored, ...) or a BFS level
trace of :func:`bench.suite.trace_bfs`, and writes one file. matplotlib is imported here
only (the ``bench`` extra), with the Agg backend: no display is needed.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator, NullFormatter  # noqa: E402

OURS = "lagraph_py"
ALGORITHMS = ("bfs", "msf", "scc", "cc")
DIRECTION_COLOURS = {"push": "tab:blue", "pull": "tab:orange"}


def label(row: dict) -> str:
    """The legend name of a row: ``lagraph_py gpu`` or a baseline's name."""
    if row["implementation"] == OURS:
        return f"{OURS} {row['backend']}"
    return row["implementation"]


def headline_rows(rows: list[dict]) -> list[dict]:
    """The rows a figure shows: every baseline, and lagraph_py's ``auto`` BFS method
    (its other methods are studies) and its MSF and SCC."""
    return [r for r in rows if r["implementation"] != OURS or r.get("method") in (None, "auto")]


def family(graph: str) -> str:
    """The graph class of a graph name: its leading letters (``kron18`` -> ``kron``)."""
    return re.match(r"[A-Za-z_]*", graph)[0] or graph


def plot_times(rows: list[dict], path, title: str) -> Path:
    """Median time against stored edges, a panel per algorithm (log-log): one colour per
    implementation, one line and marker per graph family."""
    rows = [r for r in headline_rows(rows) if r.get("nstored")]
    algorithms = [a for a in ALGORITHMS if any(r["algorithm"] == a for r in rows)]
    fig, axes = plt.subplots(1, len(algorithms), figsize=(5.5 * len(algorithms), 4.4),
                             squeeze=False)
    names = sorted({label(r) for r in rows}, key=lambda n: (not n.startswith(OURS), n))
    colours = {n: f"C{i % 10}" for i, n in enumerate(names)}
    families = sorted({family(r["graph"]) for r in rows})
    markers = {f: "os^Dvp*hx+"[i % 10] for i, f in enumerate(families)}
    for ax, algorithm in zip(axes[0], algorithms):
        series = defaultdict(list)
        for r in rows:
            if r["algorithm"] == algorithm:
                series[label(r), family(r["graph"])].append((r["nstored"], r["seconds"]))
        for (name, fam), points in sorted(series.items()):
            x, y = zip(*sorted(points))
            ax.plot(x, y, color=colours[name], marker=markers[fam],
                    linewidth=2.5 if name.startswith(OURS) else 1)
        ax.set(xscale="log", yscale="log", title=algorithm.upper(),
               xlabel="stored edges", ylabel="median seconds")
        ax.grid(True, which="major", alpha=0.3)
    handles = [Line2D([], [], color=colours[n], linewidth=2.5 if n.startswith(OURS) else 1,
                      label=n) for n in names]
    handles += [Line2D([], [], color="grey", marker=markers[f], linestyle="", label=f)
                for f in families]
    axes[0, -1].legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    fig.suptitle(title)
    return _save(fig, path)


def speedups(rows: list[dict]) -> list[dict]:
    """For each graph and algorithm, each baseline's time over each lagraph_py backend's
    (``auto`` for BFS): above 1, lagraph_py is faster."""
    rows = headline_rows(rows)
    ours = [r for r in rows if r["implementation"] == OURS]
    out = []
    for o in ours:
        for b in rows:
            if b["implementation"] != OURS and (b["graph"], b["algorithm"]) == (
                    o["graph"], o["algorithm"]):
                out.append(dict(graph=o["graph"], algorithm=o["algorithm"],
                                backend=o["backend"], baseline=b["implementation"],
                                nstored=o.get("nstored") or 0,
                                speedup=b["seconds"] / o["seconds"]))
    return out


def plot_speedups(rows: list[dict], path, title: str) -> Path:
    """Bars of the speed-up of lagraph_py over each baseline, per graph, a panel per
    algorithm (log scale; the line at 1 is parity)."""
    ratios = speedups(rows)
    algorithms = [a for a in ALGORITHMS if any(s["algorithm"] == a for s in ratios)]
    fig, axes = plt.subplots(len(algorithms) or 1, 1, figsize=(10, 3.2 * max(len(algorithms), 1)),
                             squeeze=False)
    for ax, algorithm in zip(axes[:, 0], algorithms):
        mine = [s for s in ratios if s["algorithm"] == algorithm]
        graphs = sorted({s["graph"] for s in mine},
                        key=lambda g: max(s["nstored"] for s in mine if s["graph"] == g))
        pairs = sorted({(s["backend"], s["baseline"]) for s in mine})
        width = 0.8 / len(pairs)
        for i, (backend, baseline) in enumerate(pairs):
            xs, ys = [], []
            for j, g in enumerate(graphs):
                for s in mine:
                    if (s["graph"], s["backend"], s["baseline"]) == (g, backend, baseline):
                        xs.append(j + (i - (len(pairs) - 1) / 2) * width)
                        ys.append(s["speedup"])
            ax.bar(xs, ys, width, label=f"{backend} vs {baseline}")
        ax.axhline(1, color="black", linewidth=0.8)
        crowded = len(graphs) > 10
        ax.set_xticks(range(len(graphs)), graphs, fontsize=8, rotation=50 if crowded else 0,
                      ha="right" if crowded else "center")
        ax.set(yscale="log", ylabel="speed-up (baseline s / ours)", title=algorithm.upper())
        ax.legend(fontsize=7, ncol=4)
    fig.suptitle(title)
    return _save(fig, path)


def plot_timeline(levels: list[dict], path, title: str) -> Path:
    """One BFS, level by level: vertices found (bars, coloured push or pull) and their
    out-edges (line), on a log scale."""
    fig, ax = plt.subplots(figsize=(max(6, min(14, 0.08 * len(levels) + 5)), 3.6))
    found = [e for e in levels if e["frontier"] > 0]
    for direction, colour in DIRECTION_COLOURS.items():
        mine = [e for e in found if e["direction"] == direction]
        if not mine:
            continue
        ax.bar([e["level"] for e in mine], [e["frontier"] for e in mine], color=colour,
               width=1.0 if len(levels) > 60 else 0.8, label=f"{direction}: vertices found")
    ax.plot([e["level"] for e in found], [max(e["frontier_edges"], 1) for e in found],
            color="black", linewidth=1, label="their out-edges")
    ax.set(yscale="log", xlabel="BFS level", ylabel="count", title=title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_scaling(rows: list[dict], path, title: str) -> Path:
    """The distributed executor's rows (``ranks`` set): median time against ranks (log),
    a panel per algorithm, a colour per graph: lagraph_py's ranks as a line, each other
    implementation (the single process, Graph500's MPI BFS) as its own marker."""
    ranked = [r for r in rows if r.get("ranks")]
    algorithms = [a for a in ALGORITHMS if any(r["algorithm"] == a for r in ranked)]
    fig, axes = plt.subplots(1, len(algorithms), figsize=(max(6.5, 4.6 * len(algorithms)), 4),
                             squeeze=False)
    graphs = sorted({r["graph"] for r in ranked})
    colours = {g: f"C{i % 10}" for i, g in enumerate(graphs)}
    others = sorted({r["implementation"] for r in ranked if r["implementation"] != OURS})
    markers = {name: "*^sDv"[i % 5] for i, name in enumerate(others)}
    counts = sorted({r["ranks"] for r in ranked})
    for ax, algorithm in zip(axes[0], algorithms):
        for graph in graphs:
            mine = [r for r in ranked if (r["graph"], r["algorithm"]) == (graph, algorithm)]
            ours = sorted((r["ranks"], r["seconds"]) for r in mine
                          if r["implementation"] == OURS)
            if ours:
                ax.plot(*zip(*ours), marker="o", color=colours[graph])
            for r in mine:
                if r["implementation"] != OURS:
                    ax.plot([r["ranks"]], [r["seconds"]], marker=markers[r["implementation"]],
                            markersize=10, linestyle="", color=colours[graph])
        ax.set(xscale="log", yscale="log", title=algorithm.upper(), xlabel="ranks",
               ylabel="median seconds")
        ax.set_xticks(counts)
        ax.set_xticklabels([str(x) for x in counts])
        ax.grid(True, which="major", alpha=0.3)
    handles = [Line2D([], [], color=colours[g], label=g) for g in graphs]
    handles += [Line2D([], [], color="grey", marker="o", label=f"{OURS} ranks")]
    handles += [Line2D([], [], color="grey", marker=markers[name], linestyle="",
                       markersize=9, label=name) for name in others]
    axes[0, -1].legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    fig.suptitle(title, fontsize=10)
    return _save(fig, path)


MEMORY_STAGES = ("build", "graph", "bfs", "msf", "scc", "cc")


def plot_memory(rows: list[dict], path, title: str) -> Path:
    """Peak bytes per stored entry against stored entries (log x), a panel per stage of
    ``bench/memory.py``: one line per graph kind (``kronS``, ``-int32``, ``-directed``)
    and path (host compiled, scipy, reference, SuiteSparse's build; gpu)."""
    stages = [s for s in MEMORY_STAGES if any(r["stage"] == s for r in rows)]
    fig, axes = plt.subplots(1, len(stages), figsize=(3.6 * len(stages), 3.8), squeeze=False)
    for ax, stage in zip(axes[0], stages):
        series = defaultdict(list)
        for r in rows:
            if r["stage"] == stage:
                kind = re.sub(r"^kron\d+", "kron", r["graph"])
                where = r["path"] if r["where"] == "host" else "gpu"
                series[f"{kind} {where}"].append((r["stored_entries"], r["bytes_per_entry"]))
        for name, points in sorted(series.items()):
            x, y = zip(*sorted(points))
            ax.plot(x, y, marker="o", label=name)
        ax.set(xscale="log", title=stage, xlabel="stored entries", ylabel="peak bytes / entry")
        ax.xaxis.set_minor_formatter(NullFormatter())          # decades only
        top = max(y for points in series.values() for _, y in points)
        ax.set_ylim(0, 1.15 * top)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(title)
    return _save(fig, path)


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
