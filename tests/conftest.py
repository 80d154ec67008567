"""Shared fixtures: the cross-backend parametrization and the test data folder; the
suite runs the cpu executor's compiled loops (compiled in the foreground).

Every algorithm test that takes the ``backend`` fixture runs its body once per executor;
the gpu run is skipped (not failed) where CuPy or a CUDA device is absent.
"""

import functools
import os
from pathlib import Path

import pytest

from lagraph_py import Graph
from lagraph_py.compilation import MODE_VARIABLE

DATA = Path(__file__).parent / "data"

# The suite exercises the compiled loops: they compile in the calls that need them (a fresh
# checkout has an empty numba cache), not in a background process while scipy's routines
# answer.
os.environ[MODE_VARIABLE] = "foreground"


@functools.cache
def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # ImportError, or CUDA runtime errors without a driver
        return False


requires_gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU")


def cupy_or_skip():
    """Return the CuPy module, or skip the calling test module where no GPU is usable."""
    cp = pytest.importorskip("cupy")
    if not gpu_available():
        pytest.skip("needs a CUDA GPU", allow_module_level=True)
    return cp


def uncached(G):
    """``G``'s arrays in a new Graph: nothing built for ``G`` (on the host or a device)
    is cached with it."""
    return Graph(G.n, G.directed, G.indptr, G.indices, G.weights, G.nself_loops)

BACKENDS = ["cpu", pytest.param("gpu", marks=[pytest.mark.gpu, requires_gpu])]


@pytest.fixture(params=BACKENDS, scope="session")
def backend(request):
    """Executor name; tests using it run on every executor available here."""
    return request.param

@pytest.fixture(autouse=True)
def gpu_kernels_on_small_graphs(request, monkeypatch):
    """The suite's graphs are small, and the gpu executor hands small graphs to the host
    (``GpuExecutor.host_items``, ``bfs_host_items``): tests run its kernels on them,
    except those marked ``host_handover``; and without the SCC race of host and device
    (``scc_race_items``), which its own tests run."""
    if gpu_available() and request.node.get_closest_marker("host_handover") is None:
        import gpu_backend
        monkeypatch.setattr(gpu_backend.GpuExecutor, "host_items", -1)
        monkeypatch.setattr(gpu_backend.GpuExecutor, "bfs_host_items", -1)
        monkeypatch.setattr(gpu_backend.GpuExecutor, "scc_race_items", -1)


# tests/mpi/ holds the scripts that test_distributed.py runs under mpiexec, not tests.
collect_ignore = ["mpi"]
