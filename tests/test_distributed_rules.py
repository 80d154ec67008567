"""The host-side decisions of the distributed executor, in one process: the partition
into ranges, the BFS direction rule on global counts against a plain transcription of the
text's rule, the choice between id lists and bitmaps; the GPU ranks' module refusing
cleanly where CuPy is absent (the layout of its kernel's argument: test_kernel_arguments).
Skipped without mpi4py (``pip install '.[mpi]'``).
"""

import importlib.util

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("mpi4py")

from dist_backend.bfs_rule import DirectionRule, id_dtype, sends_ids  # noqa: E402
from dist_backend.graph import ALIGN, owner, partition  # noqa: E402
from lagraph_py.executor import LevelStats  # noqa: E402
from oracles import reference_directions  # noqa: E402


# ---------------------------------------------------------------------- partition
@given(st.integers(0, 10**7), st.integers(1, 40))
def test_partition_covers_the_vertices_in_aligned_ranges(n, size):
    bounds = partition(n, size)
    assert bounds.size == size + 1 and bounds[0] == 0 and bounds[-1] == n
    assert np.all(np.diff(bounds) >= 0)
    starts = bounds[:-1][bounds[:-1] < n]
    assert np.all(starts % ALIGN == 0)                 # bitmaps of ranges join up
    assert np.diff(bounds).max() < n / size + ALIGN       # balanced
    ids = np.arange(0, n, max(1, n // 1000))
    r = owner(bounds, ids)
    assert np.all((bounds[r] <= ids) & (ids < bounds[r + 1]))


# ---------------------------------------------------------------------- direction rule
level_counts = st.builds(LevelStats, st.integers(0, 5000), st.integers(0, 50000),
                         st.integers(0, 50000))


@given(st.sampled_from(["auto", "push", "pull"]), st.integers(1, 100000),
       st.lists(level_counts, min_size=2, max_size=30), st.booleans(), st.data())
def test_direction_rule_follows_the_text(method, n, stats, estimated, data):
    # with pull estimates (the CPU ranks'), a switch to pull is made only below the
    # frontier's out-edges; the rule asks for one only where it would switch
    nstored = sum(s.visited_in_edges for s in stats) + n
    estimates = data.draw(st.lists(st.integers(0, 60000), min_size=len(stats) - 1,
                                   max_size=len(stats) - 1)) if estimated else None
    rule = DirectionRule(method, n, nstored, stats[0])
    got, asked = [], []
    for i, s in enumerate(stats[1:]):
        switching = rule.switching()
        asked.append(switching)
        got.append(rule.next_level(estimates[i] if estimated and switching else None))
        rule.record(s)
    assert got == reference_directions(method, n, nstored, stats, estimates)
    if method != "auto":
        assert not any(asked)


def test_direction_rule_switches_at_the_thresholds():
    # pull only when the frontier's edges exceed unexplored / ALPHA (strictly)
    at = DirectionRule("auto", 10**6, 20 * 1000 + 1, LevelStats(1, 1000, 1))
    assert at.next_level() == "push"
    over = DirectionRule("auto", 10**6, 20 * 1000 + 1, LevelStats(1, 1001, 1))
    assert over.next_level() == "pull"
    # back to push once shrinking below n / BETA, not before
    n = 24 * 100
    rule = DirectionRule("auto", n, 10**9, LevelStats(1, 10**9, 0))
    assert rule.next_level() == "pull"
    rule.record(LevelStats(500, 10**8, 0))
    rule.record(LevelStats(100, 10, 0))                      # shrinking, but n / BETA = 100
    assert rule.next_level() == "pull"
    rule.record(LevelStats(99, 10, 0))
    assert rule.next_level() == "push"


def test_direction_rule_refuses_unknown_methods():
    with pytest.raises(ValueError, match="push_balanced"):
        DirectionRule("push_balanced", 10, 10, LevelStats(1, 1, 1))


# ---------------------------------------------------------------------- ids or bitmaps
@given(st.integers(1, 2**40), st.integers(0, 2**36))
def test_a_frontier_travels_in_the_smaller_form(n, nq):
    itemsize = 4 if n < 2**31 else 8
    assert id_dtype(n).itemsize == itemsize
    assert sends_ids(nq, n) == (nq * itemsize * 8 < n)


def test_ids_of_eight_bytes_past_two_billion_vertices():
    n = 2**33
    assert sends_ids(n // 80, n) and not sends_ids(n // 48, n)


# ---------------------------------------------------------------------- GPU ranks
@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None,
                    reason="CuPy is installed here")
def test_gpu_ranks_without_cupy_raise_a_clear_import_error():
    import lagraph_py as lg

    with pytest.raises(ImportError, match="CuPy"):
        importlib.import_module("dist_backend.nccl")
    with pytest.raises(ImportError, match="CuPy"):
        lg.registry.get_executor("distributed-gpu")


# ---------------------------------------------------------------------- launcher
@pytest.mark.parametrize("version, options", [
    ("HYDRA build details:\n    Version: 4.2.0", ["-launcher", "fork"]),
    ("mpiexec (Open MPI) 4.1.2", ["--oversubscribe"]),
    ("mpiexec (OpenRTE) 2.1.1", ["--oversubscribe"]),
    ("some other launcher 1.0", []),
])
def test_launch_command_gives_each_mpi_flavour_its_options(version, options, tmp_path,
                                                           monkeypatch):
    from dist_backend import launch
    fake = tmp_path / "mpiexec"
    fake.write_text(f"#!/bin/sh\ncat <<'END'\n{version}\nEND\n")
    fake.chmod(0o755)
    monkeypatch.setattr(launch.os, "geteuid", lambda: 1000)          # not root
    command = launch.command(3, ["python3", "job.py"], str(fake))
    assert command == [str(fake), *options, "-n", "3", "python3", "job.py"]
    if options and options[0] == "--oversubscribe":
        monkeypatch.setattr(launch.os, "geteuid", lambda: 0)
        launch._flavour_options.cache_clear()
        assert "--allow-run-as-root" in launch.command(1, [], str(fake))


def test_launch_command_without_mpiexec_says_how_to_get_one(monkeypatch):
    from dist_backend import launch
    monkeypatch.setattr(launch, "mpiexec", lambda: None)
    with pytest.raises(FileNotFoundError, match=r"lagraph_py\[mpi\]"):
        launch.command(2, ["x"])
