"""The GAP runner (bench/cpu_gap.py) without GAP: its reading of GAP's output (a captured
sample), the edge lists it writes, its skip note, its ratios and its rows in the report."""

import json
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from oracles import graphs

import lagraph_py as lg
from bench import cpu_gap, report

#: ``OMP_NUM_THREADS=2 bfs -f road.sg -r 5 -n 3`` and ``cc -f road.sg -n 3`` (GAP @ b5e3e19)
#: on ``lagraph_py.generate.road(340, 340)``, on a busy machine.
BFS_OUTPUT = """Read Time:           0.00453
Graph has 115600 nodes and 161434 undirected edges for degree: 1
Trial Time:          0.02791
Trial Time:          0.26524
Trial Time:          0.00193
Average Time:        0.09836
"""
CC_OUTPUT = """Read Time:           0.01782
Graph has 115600 nodes and 161434 undirected edges for degree: 1
Trial Time:          0.06454
Trial Time:          0.00157
Trial Time:          0.01366
Average Time:        0.02659
"""


def test_trial_times_and_graph_size_of_a_captured_run():
    assert cpu_gap.trial_seconds(BFS_OUTPUT) == [0.02791, 0.26524, 0.00193]
    assert cpu_gap.trial_seconds(CC_OUTPUT) == [0.06454, 0.00157, 0.01366]
    assert cpu_gap.graph_size(CC_OUTPUT) == (115600, 161434)
    assert cpu_gap.graph_size("Read Time: 0.1\n") is None
    assert cpu_gap.trial_seconds("Average Time:        0.09836\n") == []


def test_warm_median_drops_the_first_trial_of_each_run():
    runs = [cpu_gap.trial_seconds(BFS_OUTPUT), cpu_gap.trial_seconds(CC_OUTPUT)]
    assert cpu_gap.warm_median(runs) == pytest.approx((0.00193 + 0.01366) / 2)
    assert cpu_gap.warm_median([[0.3]]) == 0.3


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=120, directed=False))
def test_edge_list_holds_each_edge_once_without_loops(tmp_path_factory, G):
    path = cpu_gap.write_edge_list(tmp_path_factory.mktemp("el") / "g.el", G)
    pairs = np.array(path.read_text().split(), dtype=np.int64).reshape(-1, 2)
    src, dst, _ = G.edges()
    loop_free = src != dst
    expected = sorted(zip(src[loop_free].tolist(), dst[loop_free].tolist()))
    assert sorted(map(tuple, pairs.tolist())) == expected


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=30, directed=False))
def test_loop_free_graphs_keep_every_other_edge(G):
    F = cpu_gap.loop_free(G)
    assert F.nself_loops == 0 and F.n == G.n and not F.directed
    src, dst, _ = G.edges()
    assert sorted(zip(*(x.tolist() for x in F.edges()[:2]))) == sorted(
        (u, v) for u, v in zip(src.tolist(), dst.tolist()) if u != v)


def test_gap_is_skipped_with_a_note_without_a_compiler(tmp_path, capsys):
    with mock.patch("shutil.which", return_value=None):
        assert cpu_gap.build_gap(tmp_path, tmp_path / "build") is None
    assert "GAP skipped: g++ and make not found" in capsys.readouterr().out
    assert cpu_gap.build_gap(tmp_path / "absent", tmp_path / "build") is None
    assert "no GAP sources" in capsys.readouterr().out


def test_ratios_and_rows_in_the_report(tmp_path):
    rows = [dict(graph="g", task="cc", implementation="gap", seconds=2.0),
            dict(graph="g", task="cc", implementation="lagraph_py", seconds=1.0),
            dict(graph="g", task="bfs", implementation="lagraph_py", seconds=1.0)]
    cpu_gap.add_ratios(rows)
    assert rows[1]["gap/ours"] == 2.0 and "gap/ours" not in rows[2]
    (tmp_path / "cpu_gap.json").write_text(json.dumps({"device": "cpu", "rows": rows}))
    read = report.load_results(tmp_path)[0]["rows"]
    assert [(r["algorithm"], r["implementation"], r["backend"]) for r in read] == [
        ("cc", "gap", "cpu"), ("cc", "lagraph_py", "cpu"), ("bfs", "lagraph_py", "cpu")]


def test_real_graphs_are_undirected(tmp_path):
    D = lg.Graph.from_edges([0, 2, 2], [1, 1, 3], n=5)
    np.savez(tmp_path / "wiki-Vote.npz", indptr=D.indptr.astype(np.int64),
             indices=D.indices, directed=np.array(True))
    builders = cpu_gap.real_graphs(tmp_path)
    assert list(builders) == ["wiki-Vote"]
    G = builders["wiki-Vote"]()
    assert not G.directed and G.n == 5 and G.nstored == 6
    assert "wiki-Vote" not in cpu_gap.real_graphs(tmp_path, max_stored=1000)   # 103,689
    assert cpu_gap.real_graphs(tmp_path / "absent") == {}
