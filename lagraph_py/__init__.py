"""lagraph_py: graph algorithms in the language of linear algebra, on CPU and GPU.

BFS, Borůvka minimum spanning forest, strongly connected and connected components, each
written once as GraphBLAS steps and run by the cpu executor (SuiteSparse:GraphBLAS) or the
gpu executor (CuPy with custom CUDA kernels, package ``gpu_backend``).

Examples
--------
>>> import lagraph_py as lg
>>> G = lg.generate.grid(3, 3)
>>> int(lg.bfs(G, 0).level.max())
4
"""

from . import generate, memory, validate
from .algorithms.bfs import bfs
from .algorithms.components import connected_components
from .algorithms.msf import msf
from .algorithms.scc import scc
from .compilation import compile_cpu_loops
from .graph import Graph
from .io import read_edgelist, read_mtx, write_mtx
from .results import BFSResult, MSFResult, SCCResult, asnumpy

__all__ = [
    "Graph", "bfs", "msf", "scc", "connected_components", "asnumpy", "read_mtx",
    "read_edgelist", "write_mtx", "generate", "memory", "validate", "BFSResult", "MSFResult",
    "SCCResult", "compile_cpu_loops",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    """``lagraph_py.distributed`` (graphs over MPI ranks), loaded on first use."""
    if name == "distributed":
        import importlib
        return importlib.import_module(".distributed", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
