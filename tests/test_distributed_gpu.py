"""The GPU ranks of the distributed executor under mpiexec (``tests/mpi/agree_gpu.py``):
one GPU a rank, so as many ranks as GPUs, up to 2, against the single-process gpu
executor. Skipped, saying why, without CuPy and a GPU, NCCL, or mpi4py and mpiexec.
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
#: One GPU a rank (NCCL refuses two ranks on one device).
RANKS = min(2, cp.cuda.runtime.getDeviceCount())


def test_gpu_ranks_equal_the_single_process_gpu_executor():
    # BFS on shaped and random graphs and Kronecker 16-17, MSF and SCC on the small ones
    _passed(mpirun(RANKS, "agree_gpu.py", HERE, 3, 17), "agree_gpu: every result equal")
