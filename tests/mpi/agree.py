"""Run by tests/test_distributed.py under mpiexec: the distributed executors against the
single-process ones on random graphs, on every rank; exits non-zero on a difference.

Each graph is built the same on every rank (seeded), split by DistGraph.from_graph (and
other constructors where named), and every result gathered on rank 0 must equal the cpu
executor's: levels, forests, labels exactly; BFS parents valid (lagraph_py.validate and
an independent check). The GPU ranks' array steps (spanning forest, SCC trim and
rounds) run here too, on numpy arrays.
"""

import sys

import numpy as np

import lagraph_py as lg
from dist_backend import DistGraph, DistributedExecutor
from dist_backend.gpu_msf_steps import GpuMsfSteps
from dist_backend.gpu_scc_steps import ArraySccSteps
from lagraph_py.cpu import CpuExecutor

sys.path.insert(0, sys.argv[1])                # the tests folder: oracles.py
from oracles import bfs_directions, check_bfs_parents, pull_estimate  # noqa: E402

ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
#: The directions that the CPU ranks' pull estimates chose (both must have been run).
ESTIMATED = set()


def graphs(rng):
    """Random graphs of every shape the tests name: empty, isolated vertices, a rank
    without edges, self-loops, duplicates, stars, paths (one crossing between the ranks'
    ranges again and again), int64 weights and ids."""
    yield "empty", lg.Graph.from_edges([], [], n=0, directed=False)
    yield "isolated", lg.Graph.from_edges([], [], n=70, directed=True)
    yield "one-rank-edges", lg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], n=300,
                                                weight=[3, 1, 2, 1], directed=False)
    yield "path", lg.Graph.from_edges(np.arange(199), np.arange(1, 200), directed=True)
    yield "star", lg.Graph.from_edges(np.zeros(150, int), np.arange(1, 151), directed=False)
    # one path through runs of 8 vertices taken from the top and bottom halves in turn,
    # vertex 0 at its far end: on 2 or 3 ranks most of its edges are one rank's alone
    runs = np.arange(256).reshape(2, -1, 8).transpose(1, 0, 2).ravel()[::-1]
    yield "alternating-path", lg.Graph.from_edges(runs[:-1], runs[1:], directed=False)
    # 12 directed cycles of 10 vertices, each linked one way to the next, ids shuffled:
    # components that the signature rounds peel off one class after another
    ring = np.arange(120).reshape(12, 10)
    src = np.concatenate([ring.ravel(), ring[:-1, 0]])
    dst = np.concatenate([np.roll(ring, -1, axis=1).ravel(), ring[1:, 5]])
    ids = rng.permutation(120)
    yield "cycle-chain", lg.Graph.from_edges(ids[src], ids[dst], directed=True)
    for i in range(ROUNDS):
        n = int(rng.integers(1, 400))
        m = int(rng.integers(0, 4 * n))
        src, dst = rng.integers(0, n, (2, m))
        kind = ["none", "int", "float"][i % 3]
        w = (None if kind == "none" else rng.integers(-5, 5, m) if kind == "int"
             else rng.integers(0, 4, m) / 2)
        yield f"random{i}", lg.Graph.from_edges(src, dst, w, n=n, directed=bool(i % 2))
    yield "kron", lg.generate.kronecker(10, seed=2, weights="uniform")
    yield "kron-directed", lg.generate.kronecker(9, seed=1, directed=True)


def main():
    rng = np.random.default_rng(7)
    executors = [("fused", DistributedExecutor()), ("primitives", Primitives())]
    rounds = [("rounds", _handover(-1)), ("handover-late", _handover(40)),
              ("forward-backward, rounds", _handover(-1, True)),
              ("forward-backward", _handover(None, True)),
              ("no forward-backward", _handover(None, False))]
    arrays = [("array steps", ArrayRanks()), ("array rounds", ArrayRanks(-1)),
              ("array handover-late", ArrayRanks(40))]
    for name, G in graphs(rng):
        D = DistGraph.from_graph(G)
        for label, ex in executors:
            where = f"{name} ({label}, rank {D.rank})"
            if G.n:
                for s in {0, G.n // 2, G.n - 1}:
                    for method in ("auto", "push", "pull"):
                        trace = []
                        if label == "fused":        # with the level trace of the search
                            level, parent = ex.bfs_search(D, s, method, True, True, trace)
                        else:
                            r = lg.bfs(D, s, backend=ex, method=method)
                            level, parent = r.level, r.parent
                        level, parent = D.gather(level), D.gather(parent)
                        if D.rank == 0:
                            ref = lg.bfs(G, s, backend=CpuExecutor())
                            assert np.array_equal(level, ref.level), f"{where}: bfs levels"
                            if trace:               # the rule fed the right global counts
                                estimates = [t["estimate"] for t in trace]
                                assert [t["direction"] for t in trace] == bfs_directions(
                                    G, ref.level, method, estimates), f"{where}: directions"
                                _check_estimates(G, ref.level, D.bounds, trace, where)
                            got = lg.BFSResult(s, level, parent)
                            lg.validate.bfs(G, s, got)
                            check_bfs_parents(G, s, parent)
            if not G.directed:
                _check_msf(G, D, ex, where)
            _check_scc(G, D, ex, where)
        for label, ex in rounds:                    # the SCC rounds, handed over late or never
            _check_scc(G, D, ex, f"{name} ({label}, rank {D.rank})")
        for label, ex in arrays:                    # the GPU ranks' steps, on numpy arrays
            where = f"{name} ({label}, rank {D.rank})"
            if not G.directed:
                _check_msf(G, D, ex, where)
            _check_scc(G, D, ex, where)
    if DistGraph.from_graph(lg.generate.grid(2, 2)).rank == 0:
        assert ESTIMATED == {"push", "pull"}, ESTIMATED
        print("agree: every result equal")


def _check_msf(G, D, ex, where):
    f = lg.msf(D, backend=ex)
    ref = lg.msf(G, backend=CpuExecutor())
    for field in ("src", "dst", "weight"):
        assert np.array_equal(getattr(f, field), getattr(ref, field)), f"{where}: msf {field}"
    assert f.total_weight == ref.total_weight, f"{where}: msf total"
    component = D.gather(f.component)
    if D.rank == 0:
        assert np.array_equal(component, ref.component), f"{where}: msf component"


class ArrayRanks(GpuMsfSteps, ArraySccSteps, DistributedExecutor):
    """CPU ranks that run the GPU ranks' array steps on numpy arrays (their scatter-min
    ``np.minimum.at``): the forest of gpu_msf_steps, the SCC trim and rounds of
    gpu_scc_steps; ``arcs``: where the SCC rounds hand their arcs over."""

    _least = staticmethod(np.minimum.at)

    def __init__(self, arcs=None):
        super().__init__()
        self.scc_handover_arcs = arcs


def _check_scc(G, D, ex, where):
    labels = D.gather(lg.scc(D, backend=ex).labels)
    if D.rank == 0:
        assert np.array_equal(labels, lg.scc(G, backend=CpuExecutor()).labels), \
            f"{where}: scc labels"


def _handover(arcs, forward_backward=None):
    """A distributed executor whose SCC rounds hand their arcs over at ``arcs`` (-1:
    never; None: the default) and start with the pivot's searches as ``forward_backward``
    says (None: where the graph has hubs)."""
    ex = DistributedExecutor()
    ex.scc_handover_arcs = arcs
    ex.scc_forward_backward = forward_backward
    return ex


def _check_estimates(G, level, bounds, trace, where):
    """Each pull estimate in ``trace`` is :func:`oracles.pull_estimate`'s, where that is
    below the frontier's out-edges (the level's sample may stop once past them: then
    both are at least those)."""
    out = np.diff(G.to_scipy().indptr)
    for row in trace:
        if row["estimate"] is None:
            continue
        k = row["level"]
        edges = int(out[level == k - 1].sum())
        want = pull_estimate(G, level, k, bounds)
        assert min(row["estimate"], edges) == min(want, edges), \
            f"{where}: pull estimate of level {k}: {row['estimate']}, plain {want}"
        ESTIMATED.add(row["direction"])


class Primitives(DistributedExecutor):
    """The distributed executor running BFS and the SCC trim and signatures by the text's
    primitive steps (the MSF text reads the whole graph on the host: a distributed graph
    runs the fused one)."""

    name = "distributed-primitives"
    bfs_search = lg.executor.Executor.bfs_search
    scc_trim = lg.executor.Executor.scc_trim
    scc_signatures = lg.executor.Executor.scc_signatures


if __name__ == "__main__":
    main()
