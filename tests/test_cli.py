"""The ``lagraph-py`` command end to end: results against oracles, output files read back,
and bad files and arguments giving one line on stderr and a non-zero exit status."""

import csv
import gzip
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from oracles import bfs_levels, graphs, kruskal, scc_labels

import lagraph_py as lg
from lagraph_py.cli import main
from conftest import DATA

BAD_FILES = sorted((DATA / "bad").glob("*.mtx"))


def run_json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_edgelist(G: lg.Graph, path) -> None:
    src, dst, w = G.edges()
    cols = [src, dst] if w is None else [src, dst, w]
    lines = ["# generated for a test"] + [" ".join(map(str, row)) for row in zip(*cols)]
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------- results
@settings(max_examples=25, deadline=None)
@given(G=graphs(max_n=12, weighted=False))
def test_bfs_on_an_edge_list_matches_the_oracle(G, tmp_path_factory):
    path = tmp_path_factory.mktemp("el") / "g.txt"
    write_edgelist(G, path)
    out = path.with_suffix(".npy")
    argv = ["bfs", str(path), "--source", "0", "--output", str(out), "--validate", "--json"]
    if not G.directed:
        argv.append("--undirected")
    read = lg.read_edgelist(path, directed=G.directed)   # n: one more than the largest id
    if read.n == 0:
        assert main(argv) == 1                            # source 0 is not a vertex
        return
    assert main(argv) == 0
    table = np.load(out)
    np.testing.assert_array_equal(table["level"], bfs_levels(read, 0))
    lg.validate.bfs(read, 0, lg.BFSResult(0, table["level"], table["parent"]))


def test_bfs_summary_counts(capsys):
    G = lg.generate.grid(7, 9)
    r = run_json(capsys, "bfs", "--grid", "7x9", "--source", "4", "--validate")
    level = bfs_levels(G, 4)
    assert (r["n"], r["stored"], r["directed"]) == (63, G.nstored, False)
    assert (r["reached"], r["max_level"], r["valid"]) == (63, int(level.max()), True)


@pytest.mark.parametrize("method", ["push", "pull", "auto"])
def test_bfs_tree_written_as_mtx_is_a_bfs_tree(tmp_path, capsys, method):
    path = DATA / "mtx" / "karate.mtx"
    G = lg.read_mtx(path)
    out = tmp_path / "tree.mtx"
    r = run_json(capsys, "bfs", str(path), "--source", "5", "--method", method,
                 "--output", str(out))
    T = lg.read_mtx(out)
    level = bfs_levels(G, 5)
    src, dst, w = T.edges()
    assert T.directed and T.nedges == r["reached"] - 1 == int((level >= 0).sum()) - 1
    np.testing.assert_array_equal(level[dst], w)            # edge weight: the child's level
    np.testing.assert_array_equal(level[src], level[dst] - 1)


def test_msf_forest_written_as_mtx_and_csv(tmp_path, capsys):
    G = lg.generate.grid(12, 10, weights="uniform", seed=3)
    ref = kruskal(G)
    r = run_json(capsys, "msf", "--grid", "12x10", "--weights", "uniform", "--seed", "3",
                 "--output", str(tmp_path / "f.mtx"), "--validate")
    assert r["total_weight"] == int(ref.total_weight) and r["forest_edges"] == len(ref.src)
    F = lg.read_mtx(tmp_path / "f.mtx")
    src, dst, w = F.edges()
    assert sorted(zip(src, dst, w)) == sorted(zip(ref.src, ref.dst, ref.weight))
    assert main(["msf", "--grid", "12x10", "--weights", "uniform", "--seed", "3",
                 "--output", str(tmp_path / "f.csv")]) == 0
    with open(tmp_path / "f.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(int(x["src"]), int(x["dst"]), int(x["weight"])) for x in rows] == list(
        zip(ref.src.tolist(), ref.dst.tolist(), ref.weight.tolist()))


@pytest.mark.parametrize("name", ["west0067.mtx", "ldbc-directed-example.mtx",
                                  "karate.mtx"])
def test_scc_labels_as_csv_and_npy(tmp_path, capsys, name):
    G = lg.read_mtx(DATA / "mtx" / name)
    expected = scc_labels(G)
    r = run_json(capsys, "scc", str(DATA / "mtx" / name), "--output",
                 str(tmp_path / "c.csv"), "--validate")
    assert r["components"] == len(np.unique(expected))
    with open(tmp_path / "c.csv") as f:
        labels = [int(row["label"]) for row in csv.DictReader(f)]
    np.testing.assert_array_equal(labels, expected)
    assert main(["scc", str(DATA / "mtx" / name), "--output", str(tmp_path / "c.npy")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "c.npy")["label"], expected)


def test_gzipped_edge_list_and_directed_generator(tmp_path, capsys):
    D = lg.generate.kronecker(8, directed=True, seed=2)
    write_edgelist(D, tmp_path / "k.txt.gz")
    from_file = run_json(capsys, "scc", str(tmp_path / "k.txt.gz"))
    generated = run_json(capsys, "scc", "--kronecker", "8", "--directed", "--seed", "2")
    # the file has no trailing isolated vertices, so compare the labelled part
    assert from_file["components"] == generated["components"] - (D.n - from_file["n"])


@pytest.mark.parametrize("argv, kind", [
    (["--road", "20x15", "--weights", "real"], "road"),
    (["--grid", "6x7", "--directed", "--orientation", "random", "--seed", "4"], "grid"),
    (["--kronecker", "7", "--weights", "uniform"], "kronecker"),
    (["--ssca2", "6"], "ssca2"),
    (["--mesh", "3x4x5"], "mesh"),
    (["--uniform", "300x2.5", "--directed", "--seed", "3"], "uniform"),
    (["--uniform", "300x4", "--weights", "real"], "uniform"),
    (["--cycle-chain", "20x7", "--weights", "uniform"], "cycle_chain"),
])
def test_generate_writes_the_generated_graph(tmp_path, capsys, argv, kind):
    out = tmp_path / "g.mtx.gz"
    r = run_json(capsys, "generate", *argv, "--output", str(out))
    G = lg.read_mtx(out)
    assert (G.n, G.nedges) == (r["n"], r["edges"])
    from lagraph_py.cli import build_parser, load_graph
    H, _ = load_graph(build_parser().parse_args(["bfs", *argv]))
    for a, b in zip(G.edges(), H.edges()):
        np.testing.assert_array_equal(a, b)


def test_human_summary(capsys):
    assert main(["bfs", "--grid", "3x3", "--validate"]) == 0
    out = capsys.readouterr().out
    assert "reached 9 vertices in 4 levels" in out and "result valid" in out


# ---------------------------------------------------------------------- failures
def assert_one_line_error(capsys, argv, status):
    assert main(argv) == status
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lagraph-py: error: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    return lines[0]


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.name)
def test_bad_files_give_one_line(capsys, path):
    line = assert_one_line_error(capsys, ["bfs", str(path)], 1)
    assert path.name in line


@pytest.mark.parametrize("argv, status, words", [
    ([], 2, "required"),
    (["frobnicate"], 2, "invalid choice"),
    (["bfs"], 2, "no graph"),
    (["bfs", "--grid", "3y3"], 2, "ROWSxCOLS"),
    (["bfs", "--kronecker", "many"], 2, "SCALE"),
    (["bfs", "--grid", "3x3", "--kronecker", "4"], 2, "one graph"),
    (["bfs", "--grid", "3x3", "--source", "99"], 1, "source 99"),
    (["bfs", "--grid", "3x3", "--source", "x"], 2, "invalid int"),
    (["bfs", "--grid", "3x3", "--method", "sideways"], 1, "method"),
    (["bfs", "--grid", "3x3", "--backend", "tpu"], 2, "invalid choice"),
    (["bfs", "--road", "3x3", "--directed"], 2, "undirected"),
    (["bfs", "--cycle-chain", "3x3", "--directed"], 2, "are directed"),
    (["bfs", "--uniform", "30x2.5.1"], 2, "NxDEG"),
    (["bfs", "--uniform", "30"], 2, "NxDEG"),
    (["bfs", "--uniform", "10x12"], 1, "mean_degree"),
    (["bfs", "--cycle-chain", "3x-3"], 2, "CYCLESxLENGTH"),
    (["bfs", "--kronecker", "4", "--orientation", "sweep"], 2, "orientation"),
    (["scc", "--grid", "3x3", "--output", "c.mtx"], 2, "--output"),
    (["msf", "--grid", "3x3", "--output", "f.txt"], 2, "--output"),
    (["msf", str(DATA / "mtx" / "west0067.mtx")], 1, "directed"),
    (["bfs", "no/such/file.mtx"], 1, "no such file"),
    (["bfs", str(DATA / "mtx" / "karate.mtx"), "--weights", "real"], 2, "generated"),
    (["generate", "--grid", "3x3", "--output", "g.npy"], 2, ".mtx"),
    (["bfs", str(DATA / "mtx" / "empty.mtx")], 1, "empty.mtx"),
])
def test_bad_arguments_give_one_line(capsys, argv, status, words):
    assert words in assert_one_line_error(capsys, argv, status)


def test_debug_shows_the_exception():
    with pytest.raises(ValueError, match="source 99"):
        main(["bfs", "--grid", "3x3", "--source", "99", "--debug"])


def test_bench_refuses_unknown_arguments(capsys):
    assert_one_line_error(capsys, ["bench", "run", "--frob"], 2)


def test_entry_points_in_a_process(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "lagraph_py.cli", "bfs",
                          str(BAD_FILES[0])], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    demo = subprocess.run([sys.executable, "-m", "lagraph_py", "--scale", "8",
                           "--sources", "2"], capture_output=True, text=True)
    assert demo.returncode == 0 and "all results valid" in demo.stdout
