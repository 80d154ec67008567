"""The package imports without CuPy; asking for the gpu there fails loudly, naming the fix."""

import importlib.util
import subprocess
import sys

import pytest

import lagraph_py as lg

no_cupy = pytest.mark.skipif(importlib.util.find_spec("cupy") is not None,
                             reason="CuPy is installed here")


@no_cupy
def test_gpu_backend_import_names_the_missing_piece():
    with pytest.raises(ImportError, match=r"CuPy.*lagraph_py\[gpu\]"):
        import gpu_backend  # noqa: F401


@no_cupy
@pytest.mark.parametrize("call", [
    lambda G: lg.bfs(G, 0, backend="gpu"),
    lambda G: lg.msf(G, backend="gpu"),
    lambda G: lg.scc(G, backend="gpu"),
])
def test_algorithms_refuse_gpu_without_cupy(call):
    G = lg.Graph.from_edges([0, 1], [1, 2], directed=False)
    with pytest.raises(ImportError, match="CuPy"):
        call(G)


def test_public_names():
    for name in ("Graph", "bfs", "msf", "scc", "asnumpy", "read_mtx", "read_edgelist",
                 "write_mtx", "generate", "validate"):
        assert hasattr(lg, name), name
    assert callable(lg.generate.kronecker) and callable(lg.validate.bfs)


def test_import_lagraph_py_loads_neither_mpi_nor_the_distributed_executor():
    code = ("import sys, lagraph_py, lagraph_py.executor; "
            "assert 'mpi4py' not in sys.modules and 'dist_backend' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_lagraph_py_leaves_scipy_and_numba_for_first_use():
    """scipy.sparse (with scipy.io and csgraph) was most of the package's import time;
    the compiled loops load numba when a call first needs them."""
    code = ("import sys, lagraph_py; "
            "loaded = [m for m in ('scipy', 'numba') if m in sys.modules]; "
            "assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)
