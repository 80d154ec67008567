"""The benchmark suite (bench/): the sweep on tiny graphs, the BFS level trace, reading
every results format, the figures and the README section."""

import doctest
import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from oracles import bfs_levels, graphs

import lagraph_py as lg
from lagraph_py.cpu import CpuExecutor
from bench import common, report, suite
from bench.__main__ import main as bench_main
from lagraph_py.cli import main as cli_main


# ---------------------------------------------------------------------- the sweep
def test_suite_on_tiny_graphs():
    payload = suite.run_suite(["grid4x5", "kron6"], sources=3, repeats=2,
                              log=lambda line: None)
    rows = payload["rows"]
    for graph in ("grid4x5", "kron6"):
        G = suite.build_graphs(graph)[0]
        for algorithm in suite.ALGORITHMS:
            mine = [r for r in rows if (r["graph"], r["algorithm"]) == (graph, algorithm)]
            names = {r["implementation"] for r in mine}
            assert {"lagraph_py", "scipy", "networkx"} <= names
            for r in mine:
                assert r["min_s"] <= r["seconds"] <= r["max_s"]
                # fast calls: more samples; BFS from every vertex with an out-edge of
                # these tiny graphs (at least FAST_SAMPLES sources where there are so many)
                asked = len(common.sources(G, 3)) if algorithm == "bfs" else 2
                assert r["runs"] in (asked, asked * -(-common.FAST_SAMPLES // asked))
        methods = {r["method"] for r in rows if r["implementation"] == "lagraph_py" and
                   r["algorithm"] == "bfs" and r["graph"] == graph}
        assert methods == {"auto", "push", "pull"}
    G, D = suite.build_graphs("grid4x5")
    assert len(common.sources(G, 3)) == G.n                  # every vertex, below 256
    stats = payload["graphs"]["grid4x5"]
    assert (stats["n"], stats["nstored"], stats["directed_variant"]["nstored"]) == (
        20, G.nstored, D.nstored)
    assert set(payload["traces"]) == {"grid4x5", "kron6"}
    assert payload["device"]["cpu"] and payload["versions"]["lagraph_py"] == lg.__version__
    json.dumps(payload)                                      # the payload is plain JSON


def test_timings_repeat_fast_calls_only():
    calls = []
    fast = common.timings(lambda a: calls.append(a), [(1,), (2,), (3,)])
    assert fast["runs"] == 3 * -(-common.FAST_SAMPLES // 3)
    assert calls.count(3) >= fast["runs"] // 3                 # every argument, in turn
    slow = common.timings(lambda: time.sleep(2 * common.WARM_CALL), [()] * 3)
    assert slow["runs"] == 3
    assert fast["min_s"] <= fast["seconds"] <= fast["max_s"]


def test_timings_warm_up_past_a_slow_first_call():
    # a first call that compiles (seconds, past a short budget) must not leave a fast
    # call two runs
    first = []
    calls = common.timings(lambda: first.append(1) or (len(first) == 1 and time.sleep(1.5)),
                           [()] * 3, budget=0.4)
    assert calls["runs"] >= common.FAST_SAMPLES and calls["max_s"] < 1.0


def test_graph_names():
    G, D = suite.build_graphs("mesh3x4x5")
    assert (G.n, G.directed, D.directed) == (60, False, True)
    G, D = suite.build_graphs("road6x7")
    assert G is D and not G.directed and G.weighted
    with pytest.raises(ValueError, match="unknown graph name"):
        suite.build_graphs("kronecker16")


def test_docstring_examples():
    assert doctest.testmod(suite).failed == 0
    assert doctest.testmod(report).failed == 0


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=14, weighted=False))
def test_trace_follows_the_search(G):
    if G.n == 0:
        return
    ex = suite.traced_executor("cpu", G.out_degree())
    traced = lg.bfs(G, 0, backend=ex)
    plain = lg.bfs(G, 0)
    level = bfs_levels(G, 0)
    np.testing.assert_array_equal(traced.level, plain.level)
    lg.validate.bfs(G, 0, traced)
    found = np.bincount(level[level > 0], minlength=level.max() + 1)[1:]
    assert [e["level"] for e in ex.levels] == list(range(1, len(found) + 2))
    assert [e["frontier"] for e in ex.levels] == found.tolist() + [0]
    deg = G.out_degree()
    assert [e["frontier_edges"] for e in ex.levels] == [
        int(deg[level == k].sum()) for k in range(1, len(found) + 2)]
    assert {e["direction"] for e in ex.levels} <= {"push", "pull"}


def test_trace_of_a_power_law_graph_pulls():
    G = lg.generate.kronecker(10, seed=1)
    hub = int(np.argmax(G.out_degree()))
    ex = suite.traced_executor(CpuExecutor(), G.out_degree())  # no multi-level push steps
    lg.bfs(G, hub, backend=ex)
    assert [e["direction"] for e in ex.levels][:2] == ["push", "pull"]  # a huge frontier


def test_bench_command_writes_json(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert bench_main(["run", "--graphs", "grid3x4", "--algorithms", "scc", "--no-peers",
                       "--repeats", "1", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["graph"], r["algorithm"], r["implementation"]) for r in rows] == [
        ("grid3x4", "scc", "lagraph_py")]
    assert cli_main(["bench", "run", "--graphs", "grid3x3", "--algorithms", "msf",
                     "--repeats", "1", "--out", str(out)]) == 0
    assert {r["implementation"] for r in json.loads(out.read_text())["rows"]} >= {
        "lagraph_py", "scipy"}


# ---------------------------------------------------------------------- results files
SUITE_ROWS = [
    dict(graph="kron8", algorithm="bfs", implementation="lagraph_py", backend="cpu",
         method="auto", seconds=0.002, min_s=0.001, max_s=0.003, n=256, nstored=4000,
         device="cpu0"),
    dict(graph="kron8", algorithm="bfs", implementation="lagraph_py", backend="cpu",
         method="push", seconds=0.004, min_s=0.004, max_s=0.004, n=256, nstored=4000,
         device="cpu0"),
    dict(graph="kron8", algorithm="bfs", implementation="scipy", backend="cpu", method=None,
         seconds=0.006, min_s=0.005, max_s=0.007, n=256, nstored=4000, device="cpu0"),
    dict(graph="kron10", algorithm="bfs", implementation="lagraph_py", backend="cpu",
         method="auto", seconds=0.01, min_s=0.01, max_s=0.01, n=1024, nstored=20000,
         device="cpu0"),
    dict(graph="kron10", algorithm="bfs", implementation="scipy", backend="cpu", method=None,
         seconds=0.005, min_s=0.005, max_s=0.005, n=1024, nstored=20000, device="cpu0"),
    dict(graph="grid9x9", algorithm="scc", implementation="lagraph_py", backend="cpu",
         method=None, seconds=0.001, min_s=0.001, max_s=0.001, n=81, nstored=144,
         device="cpu0"),
]
TRACE = [dict(level=1, direction="push", method="push", frontier=5, frontier_edges=60,
              seconds=1e-4),
         dict(level=2, direction="pull", method="pull", frontier=200, frontier_edges=900,
              seconds=2e-4),
         dict(level=3, direction="push", method="push", frontier=0, frontier_edges=0,
              seconds=1e-5)]


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "suite_x.json").write_text(json.dumps(dict(
        suite="lagraph_py", date="2026-01-02T03:04:05+00:00", commit="abc1234",
        rows=SUITE_ROWS, traces={"kron8": {"cpu": TRACE}})))
    (folder / "cpu.json").write_text(json.dumps(dict(device="cpu1", rows=[
        dict(graph="g", algorithm="msf", method="scipy", seconds=3.0, n=9, nstored=24),
        dict(graph="g", algorithm="msf", method="lagraph_py", seconds=1.5, n=9, nstored=24),
        dict(graph="g", algorithm="bfs", method="pull", seconds=0.5, n=9, nstored=24)])))
    (folder / "gpu_msf_h.json").write_text(json.dumps(dict(rows=[
        dict(graph="k", implementation="ecl-mst", seconds=0.02, undirected_edges=50,
             device="gpu0"),
        dict(graph="k", implementation="lagraph_py", seconds=0.01, undirected_edges=50,
             device="gpu0"),
        dict(graph="k", implementation="cpu-executor", seconds=0.4, undirected_edges=50,
             device="gpu0")])))
    (folder / "gpu_bfs_h.json").write_text(json.dumps(dict(device="gpu0", graphs=dict(
        kron9=dict(n=512, nstored=9000, methods=dict(
            auto=dict(median_ms=0.5, min_ms=0.4), naive_spmv=dict(median_ms=2.0, min_ms=2.0),
            cpu_executor=dict(median_ms=8.0, min_ms=8.0)))))))
    (folder / "notes.json").write_text(json.dumps({"nothing": "here"}))
    return folder


def test_load_results_reads_every_format(results):
    loaded = {r["file"]: r for r in report.load_results(results)}
    assert set(loaded) == {"suite_x.json", "cpu.json", "gpu_msf_h.json", "gpu_bfs_h.json"}
    assert (loaded["suite_x.json"]["date"], loaded["suite_x.json"]["commit"]) == (
        "2026-01-02", "abc1234")

    def key(r):
        return (r["graph"], r["algorithm"], r["implementation"], r["backend"], r["method"],
                r["seconds"], r["nstored"])
    assert [key(r) for r in loaded["cpu.json"]["rows"]] == [
        ("g", "msf", "scipy", "cpu", None, 3.0, 24),
        ("g", "msf", "lagraph_py", "cpu", None, 1.5, 24),
        ("g", "bfs", "lagraph_py", "cpu", "pull", 0.5, 24)]
    assert [key(r) for r in loaded["gpu_msf_h.json"]["rows"]] == [
        ("k", "msf", "ecl-mst", "gpu", None, 0.02, 100),
        ("k", "msf", "lagraph_py", "gpu", None, 0.01, 100),
        ("k", "msf", "lagraph_py", "cpu", None, 0.4, 100)]
    assert [key(r) for r in loaded["gpu_bfs_h.json"]["rows"]] == [
        ("kron9", "bfs", "lagraph_py", "gpu", "auto", 0.0005, 9000),
        ("kron9", "bfs", "naive_spmv", "gpu", None, 0.002, 9000),
        ("kron9", "bfs", "lagraph_py", "cpu", "auto", 0.008, 9000)]


def test_speedups_and_table():
    pytest.importorskip("matplotlib")
    from bench import plots
    ratios = {(s["graph"], s["baseline"]): s["speedup"] for s in plots.speedups(SUITE_ROWS)}
    assert ratios == {("kron8", "scipy"): pytest.approx(3.0),
                      ("kron10", "scipy"): pytest.approx(0.5)}
    table = report.summary_table(SUITE_ROWS)
    assert table[2:] == ["| kron8 | bfs | cpu 2 ms | scipy 6 ms | 3x |",
                         "| kron10 | bfs | cpu 10 ms | scipy 5 ms | 0.5x |",
                         "| grid9x9 | scc | cpu 1 ms | | |"]


def test_figures_render(tmp_path):
    pytest.importorskip("matplotlib")
    from bench import plots
    for path in (plots.plot_times(SUITE_ROWS, tmp_path / "t.png", "t"),
                 plots.plot_speedups(SUITE_ROWS, tmp_path / "s.png", "s"),
                 plots.plot_timeline(TRACE, tmp_path / "l.png", "l")):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_distributed_rows_draw_a_scaling_figure(tmp_path):
    # rows of bench/distributed.py: the ranks reach the figure through the report's rows
    pytest.importorskip("matplotlib")
    from bench import plots
    raw = [dict(graph="kron12", task=task, ranks=ranks, gpus=ranks, implementation=name,
                backend="gpu", seconds=seconds)
           for task in ("bfs", "msf")
           for ranks, name, seconds in ((2, "lagraph_py", 0.02), (1, "lagraph_py", 0.03),
                                        (1, "lagraph_py-1proc", 0.01))]
    (tmp_path / "distributed_x.json").write_text(json.dumps({"rows": raw}))
    rows = report.load_results(tmp_path)[0]["rows"]
    assert sorted((r["algorithm"], r["ranks"], r["backend"]) for r in rows) == [
        (task, ranks, backend) for task in ("bfs", "msf")
        for ranks, backend in ((1, "gpu"), (1, "gpu, 1 rank"), (2, "gpu, 2 ranks"))]
    path = plots.plot_scaling(rows, tmp_path / "d.png", "d")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_report_rewrites_only_its_section(results, tmp_path):
    pytest.importorskip("matplotlib")
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{report.START}\nold text\n{report.END}\n\noutro\n")
    images = tmp_path / "docs" / "images"
    figures = report.write_report(results, images, readme)
    first = readme.read_text()
    assert first.startswith("intro\n\n" + report.START) and first.endswith(
        report.END + "\n\noutro\n")
    assert "old text" not in first and "commit abc1234" in first
    assert images / "suite_x_timeline_kron8_cpu.png" in figures
    for p in figures:
        assert f"](docs/images/{p.name})" in first and p.stat().st_size > 0
    report.write_report(results, images, readme)
    assert readme.read_text() == first                        # a second run changes nothing
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="no results section"):
        report.write_report(results, images, readme)


# ---------------------------------------------------------------------- the corpus runners
def test_corpus_task_graphs():
    from bench import gpu_corpus
    D = lg.generate.cycle_chain(4, 3)
    forms = gpu_corpus.task_graphs(D, "d")
    assert set(forms) == {"bfs", "msf", "scc", "cc"}
    assert forms["bfs"] is D and forms["scc"] is D
    assert not forms["cc"].directed and not forms["cc"].weighted
    assert not forms["msf"].directed and forms["msf"].weighted
    assert forms["cc"].nstored == 2 * D.nstored                 # no arc of D is two-way
    U = lg.generate.grid(3, 4)
    assert set(gpu_corpus.task_graphs(U, "u")) == {"bfs", "msf", "cc"}   # no scc
    assert set(gpu_corpus.task_graphs(U, "u", ["bfs", "scc"])) == {"bfs"}


def test_corpus_summary_picks_ours_and_the_best_peer():
    from bench import gpu_corpus
    row = dict(graph="g", task="scc", n=5, nstored=9, **{"class": "web"})
    rows = [dict(row, implementation="lagraph_py", seconds=2.0),
            dict(row, implementation="cpu-executor", seconds=1.0),
            dict(row, implementation="scipy", seconds=3.0),
            dict(row, implementation="ecl-scc", seconds=0.5),
            dict(row, task="bfs", implementation="cpu-executor", seconds=4.0),
            dict(row, task="bfs", implementation="scipy", seconds=8.0)]
    table = gpu_corpus.summary(rows)
    assert [(t["task"], t["ours"], t["best_peer"], t["best/ours"]) for t in table] == [
        ("scc", "lagraph_py", "ecl-scc", 0.25), ("bfs", "cpu-executor", "scipy", 2.0)]


def test_corpus_runner_without_a_gpu(tmp_path, capsys):
    from bench import gpu_corpus
    payload = gpu_corpus.main(["--graphs", "road55", "cycle-chain30x30", "--no-gpu",
                               "--budget", "0.2", "--repeats", "2", "--sources", "3",
                               "--out", str(tmp_path / "corpus")])
    rows = payload["rows"]
    assert {(r["graph"], r["task"]) for r in rows} == {
        ("road55", "bfs"), ("road55", "msf"), ("road55", "cc"), ("cycle-chain30x30", "bfs"),
        ("cycle-chain30x30", "msf"), ("cycle-chain30x30", "scc"), ("cycle-chain30x30", "cc")}
    for r in rows:
        assert r["implementation"] in ("cpu-executor", "scipy")
        assert r["min_s"] <= r["seconds"] <= r["max_s"] and r["seconds"] > 0
        assert r["class"] == {"road55": "road-like"}.get(r["graph"], "cycle-chain")
        assert r["n"] == {"road55": 55**2}.get(r["graph"], 900)
    written = json.loads((tmp_path / "corpus.json").read_text())
    assert written["rows"] == json.loads(json.dumps(rows))
    assert len(written["summary"]) == 7
    # the report reads its rows under their task
    loaded = report.load_results(tmp_path)[0]["rows"]
    assert {r["algorithm"] for r in loaded} == {"bfs", "msf", "scc", "cc"}
    assert "best/ours" in capsys.readouterr().out


@pytest.mark.parametrize("implementation, output, expected", [
    ("ecl-scc", "compute time: 0.25 s\nnumber of SCCs: 7\n", 0.25),
    ("ecl-cc", "Average kernel execution time: 0.0100 s\n"
               "number of connected components: 7\nPASS\n", 0.01),
    ("ecl-cc", "Average kernel execution time: 0.0000 s\nthroughput: 0.350 Mnodes/s\n"
               "number of connected components: 7\nPASS\n", 4e-5),     # 14 vertices
    ("ecl-mst", "Dev+: 0.125 s\nHost: 3 s\nall good\n", 0.125),
    ("ecl-mst", "Dev+: 0.125 s\nHost: 3 s\nmismatch\n", None),    # its own check failed
    ("ecl-scc", "no time printed\n", None),
])
def test_ecl_output_is_read_and_checked(tmp_path, implementation, output, expected):
    from bench import gpu_corpus
    script = tmp_path / "peer"
    script.write_text(f"#!/bin/sh\ntest -s \"$1\" || exit 3\nprintf '{output}'\n")
    script.chmod(0o755)
    G = gpu_corpus.task_graphs(lg.generate.cycle_chain(7, 2), "c")
    H = G["msf"] if implementation == "ecl-mst" else G["scc"]
    got = gpu_corpus.ecl_seconds(implementation, str(script), H, 3, 7)
    assert (got and got["seconds"]) == (expected and pytest.approx(expected))
    if implementation != "ecl-mst" and expected:
        with pytest.raises(AssertionError, match="found 7 components, scipy 8"):
            gpu_corpus.ecl_seconds(implementation, str(script), H, 3, 8)


def test_cpu_runner_adds_corpus_graphs(tmp_path, monkeypatch):
    from bench import corpus
    from bench import cpu as cpu_bench
    G = lg.generate.cycle_chain(5, 4)
    np.savez(tmp_path / "chain.npz", indptr=G.indptr.astype(np.int64),
             indices=G.indices.astype(np.int32), directed=np.array(True))
    source = corpus.Source("someone/graphs", "0" * 40, ("chain.txt",), "snap")
    monkeypatch.setattr(corpus, "REGISTRY", (
        corpus.Entry("chain", "web", True, 20, 25, source),
        corpus.Entry("absent", "web", True, 1, 1, source)))
    builders = cpu_bench.corpus_set(None, ["web"], tmp_path)
    assert list(builders) == ["chain"]                       # "absent" is not cached
    cls, build = builders["chain"]
    U, D = build()
    assert cls == "web" and D.directed and np.array_equal(D.indices, G.indices)
    assert not U.directed and U.weighted and U.nstored == 2 * G.nstored
    payload = cpu_bench.main(["--corpus", "chain", "--root", str(tmp_path), "--graphs",
                              "chain", "--tasks", "scc", "--repeats", "2",
                              "--first-call-scale", "0", "--out", str(tmp_path / "cpu")])
    assert {(r["graph"], r["class"], r["algorithm"]) for r in payload["rows"]} == {
        ("chain", "web", "scc")}
