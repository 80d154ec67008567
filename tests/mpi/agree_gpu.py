"""Run under mpiexec with one GPU a rank (by tests/test_distributed_gpu.py, and on a
machine of several GPUs by its own command): the GPU ranks against the single-process gpu
executor, gathered on rank 0; exits non-zero on a difference, after reporting every one.

Arguments: the tests folder (oracles.py), the number of random graphs, the largest
Kronecker scale (BFS and MSF also on weighted Kronecker graphs of scale 16 up to it;
none below 16).

BFS levels must equal the gpu executor's exactly (every method, from three sources, on
int64 device arrays, and exchanging through NCCL where the ranks' GPUs reach each other's
memory), the direction of each level the text's rule's on the true counts
(oracles.bfs_directions: the device applies it), and parents form a valid BFS tree (lagraph_py.validate and an
independent check); on the random and shaped graphs of ``agree.py`` (empty, isolated
vertices, a rank without edges, paths, stars, self-loops, duplicates, weights) the
forests and the strong / connected component labels must equal the gpu executor's too.
"""

import sys
from pathlib import Path

import numpy as np

import lagraph_py as lg
from dist_backend import DistGraph, gpu_bfs_steps
from dist_backend.nccl import GpuRanksExecutor
from lagraph_py.registry import get_executor

sys.path.insert(0, str(Path(__file__).parent))
from agree import graphs  # noqa: E402  (reads argv[1], argv[2] as this script does)
from oracles import bfs_directions, check_bfs_parents  # noqa: E402

TOP_SCALE = int(sys.argv[3]) if len(sys.argv) > 3 else 0


def sources(G) -> list[int]:
    """Three sources: the first vertex with an edge, the highest out-degree, the last id."""
    deg = G.out_degree()
    first = np.flatnonzero(deg)
    return sorted({int(first[0]) if first.size else 0, int(np.argmax(deg)), G.n - 1})


def main() -> int:
    rng = np.random.default_rng(11)
    problems: list[str] = []
    shaped = list(graphs(rng))
    kron = [(f"kron{s}", lg.generate.kronecker(s, seed=s, weights="uniform"))
            for s in range(16, TOP_SCALE + 1)]
    rank = 0
    through_nccl = GpuRanksExecutor(allow_peer_access=False)
    for name, G in shaped + kron:
        D = DistGraph.from_graph(G)
        rank = D.rank
        for task, run in tasks(name, G, D, through_nccl):
            try:
                problems += [f"{name}: {task}: {p}" for p in run()]
            except Exception as exc:                 # report, go on with the next
                problems.append(f"{name}: {task} raised {type(exc).__name__}: {exc}")
        if rank == 0:
            print(f"{name}: done ({len(problems)} differences so far)", flush=True)
    if rank == 0:
        print("\n".join(problems) if problems else "agree_gpu: every result equal")
    return 1 if problems else 0


def tasks(name, G, D, through_nccl):
    """(task, check) pairs for one graph; each check runs on every rank and returns the
    differences rank 0 found. ``through_nccl``: GPU ranks whose BFS exchanges through
    NCCL (the same as the others' where their GPUs lack peer access)."""
    if G.n:
        for s in sources(G):
            for method in ("auto", "push", "pull"):
                yield f"bfs {method} from {s}", lambda s=s, m=method: bfs(G, D, s, m)
        s = sources(G)[-1]
        yield f"bfs through NCCL from {s}", lambda: bfs(G, D, s, "auto", through_nccl)
    if name.startswith("kron"):                     # the forest, no SCC, on the large ones
        if not G.directed:
            yield "msf", lambda: msf(G, D)
        return
    if G.n:
        yield "bfs on int64 device arrays", lambda: bfs_int64(G)
    if not G.directed:
        yield "msf", lambda: msf(G, D)
    yield "scc", lambda: scc(G, D)


def bfs(G, D, s, method, executor=None) -> list[str]:
    executor = executor or get_executor("gpu", D)
    r = lg.bfs(D, s, backend=executor, method=method)
    level, parent = D.gather(r.level), D.gather(r.parent)
    trace: list[dict] = []                     # the directions the device's rule chose
    executor.bfs_search(D, s, method, False, False, trace=trace)
    if D.rank:
        return []
    ref = lg.asnumpy(lg.bfs(G, s, backend="gpu").level)
    if not np.array_equal(level, ref):
        return [f"levels differ at {np.flatnonzero(level != ref)[:5].tolist()}"]
    directions = [row["direction"] for row in trace]
    if directions != bfs_directions(G, ref, method):
        return [f"directions {directions} differ from the rule's"]
    lg.validate.bfs(G, s, lg.BFSResult(s, level, parent))
    check_bfs_parents(G, s, parent)
    return []


def bfs_int64(G) -> list[str]:
    """BFS from the last vertex with the GPU ranks' arrays int64 (the kernels' other
    instantiation), on a graph made anew (its device blocks)."""
    int32_top = gpu_bfs_steps.INT32_TOP
    gpu_bfs_steps.INT32_TOP = -1
    try:
        return bfs(G, DistGraph.from_graph(G), G.n - 1, "auto")
    finally:
        gpu_bfs_steps.INT32_TOP = int32_top


def msf(G, D) -> list[str]:
    f = lg.msf(D, backend="gpu")
    component = D.gather(f.component)
    if D.rank:
        return []
    ref = lg.msf(G, backend="gpu")
    return [field for field in ("src", "dst", "weight")
            if not np.array_equal(lg.asnumpy(getattr(f, field)),
                                  lg.asnumpy(getattr(ref, field)))] + \
        ([] if np.array_equal(component, lg.asnumpy(ref.component)) else ["component"])


def scc(G, D) -> list[str]:
    labels = D.gather(lg.scc(D, backend="gpu").labels)
    if D.rank:
        return []
    ref = lg.asnumpy(lg.scc(G, backend="gpu").labels)
    return [] if np.array_equal(labels, ref) else ["labels"]


if __name__ == "__main__":
    sys.exit(main())
