"""The distributed executor under ``mpiexec``: each test runs a small script of
``tests/mpi/`` on 2 and 3 ranks (3: uneven parts, one of them empty on small graphs) and
checks what it reports. They skip, saying why, where mpi4py or mpiexec is missing
(``pip install '.[mpi]'``).

The ranks share this machine's cores: MPICH's progress loop is told to yield the core
while it waits (``MPIR_CVAR_CH4_PROGRESS_THROTTLE``), and the collectives give up after
LAGRAPH_PY_MPI_TIMEOUT seconds, so a broken exchange fails instead of hanging.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dist_backend import launch

HERE = Path(__file__).parent
SCRIPTS = HERE / "mpi"
ROOT = HERE.parent


MPIEXEC = launch.mpiexec()
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
    reason="needs mpi4py and mpiexec: pip install '.[mpi]'")

#: Environment of the ranks: MPICH yields the core while polling (2 shared cores here),
#: collectives time out, compiled loops compile in the calls (as in the rest of the suite).
ENV = {"MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
       "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "16",
       "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
       "LAGRAPH_PY_MPI_TIMEOUT": "120",
       "LAGRAPH_PY_COMPILE": "foreground"}


def mpirun(ranks: int, script: str, *args, timeout: float = 600, env=None):
    """Run ``tests/mpi/<script>`` on ``ranks`` ranks; return the finished process."""
    environment = {**os.environ, **ENV, **(env or {}),
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = launch.command(ranks, [sys.executable, "-m", "mpi4py", str(SCRIPTS / script),
                                     *map(str, args)], MPIEXEC)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=environment, cwd=ROOT)


def _passed(run, line: str) -> None:
    assert run.returncode == 0 and line in run.stdout, run.stdout[-3000:] + run.stderr[-5000:]


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_results_equal_the_single_process_executors(ranks):
    # BFS (fused and by the text's primitive steps), MSF and SCC / connected components;
    # one rank too: its push levels send nothing and skip the exchange
    _passed(mpirun(ranks, "agree.py", HERE, 3), "agree: every result equal")


@pytest.mark.parametrize("ranks", [2, 3])
def test_constructors_give_the_single_process_graphs(ranks, tmp_path):
    # Kronecker drawn by shares, files read by byte ranges, edges given by every rank
    _passed(mpirun(ranks, "build.py", tmp_path), "build: every graph equal")


@pytest.mark.parametrize("ranks", [2, 3])
def test_gpu_ranks_bfs_on_emulated_devices(ranks):
    # the GPU ranks' BFS with CuPy, NCCL and the kernels emulated on the host: the offsets
    # in the exchanges, the counters, the levels enqueued ahead and where the loop stops
    _passed(mpirun(ranks, "gpu_host.py", HERE, timeout=300), "gpu_host: every result equal")


@pytest.mark.parametrize("mode, origin, others", [
    ("raise", "MemoryError: not enough memory for this rank's part",
     "rank 1 failed: MemoryError"),
    ("badfile", "line 3501: 'x' is not a column index",
     "failed: FileFormatError: "),
    ("hang", None, "CollectiveTimeout"),
])
def test_a_failing_rank_stops_every_rank_with_its_error(mode, origin, others, tmp_path):
    run = mpirun(3, "failure.py", mode, tmp_path / "bad.mtx", timeout=120,
                 env={"LAGRAPH_PY_MPI_TIMEOUT": "10"})
    output = run.stdout + run.stderr
    assert run.returncode != 0, output
    assert "no error" not in output, output
    if origin is not None:
        assert origin in output, output
    # every other rank says what happened, not only the one that failed
    assert output.count(others) >= 2, output



def test_command_line_writes_the_single_process_result(tmp_path):
    out = tmp_path / "levels.npy"
    environment = {**os.environ, **ENV, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(launch.command(2, [
        sys.executable, "-c", "import sys; from lagraph_py.cli import main; sys.exit(main())",
        "bfs", "--kronecker", "10", "--distributed", "--source", "3", "--output", str(out)],
        MPIEXEC), capture_output=True, text=True, timeout=300, env=environment)
    assert run.returncode == 0, run.stderr
    import lagraph_py as lg
    assert (np.load(out)["level"] == lg.bfs(lg.generate.kronecker(10), 3).level).all()
    assert [p.name for p in tmp_path.iterdir()] == ["levels.npy"]     # nothing partial left
