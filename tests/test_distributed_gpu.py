"""The GPU ranks of the distributed executor under mpiexec (``tests/mpi/agree_gpu.py``),
against the single-process gpu executor: one GPU a rank (as many ranks as GPUs, up to 2,
exchanging through NCCL, and the BFS's levels storing into each other's GPUs where they
have peer access), and two ranks sharing one GPU (exchanging through MPI by way of
host memory, since NCCL refuses two ranks on one device). Skipped, saying why, without
CuPy and a GPU, NCCL, or mpi4py and mpiexec.
"""

from pathlib import Path

import pytest

from conftest import cupy_or_skip

cp = cupy_or_skip()

from cupy.cuda import nccl  # noqa: E402
from test_distributed import MPIEXEC, _passed, mpirun  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(MPIEXEC is None, reason="needs mpi4py and mpiexec"),
              pytest.mark.skipif(not nccl.available, reason="needs NCCL")]
HERE = Path(__file__).parent
#: One GPU a rank.
RANKS = min(2, cp.cuda.runtime.getDeviceCount())


def test_gpu_ranks_equal_the_single_process_gpu_executor():
    # BFS on shaped and random graphs and Kronecker 16-17, MSF and SCC on the small ones
    _passed(mpirun(RANKS, "agree_gpu.py", HERE, 3, 17), "agree_gpu: every result equal")


def test_gpu_ranks_sharing_one_gpu_equal_the_single_process_gpu_executor():
    # two ranks on the first GPU: the host-staged exchanges
    _passed(mpirun(2, "agree_gpu.py", HERE, 2, 16, env={"CUDA_VISIBLE_DEVICES": "0"}),
            "agree_gpu: every result equal")
