"""Run by tests/test_distributed.py under mpiexec: the constructors that never hold the
whole graph on one rank give the graph of their single-process counterparts (rows, and
the column blocks that GPU ranks push over).

Arguments: a scratch folder (shared by the ranks). Exits non-zero on a difference.
"""

import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import lagraph_py as lg
from dist_backend import DistGraph, graph, world


def whole(D):
    """The rows of every rank, put together on every rank: (indptr, indices, weights)."""
    (deg,), _ = world().allgather([np.diff(D.indptr)])
    (idx, w), _ = world().allgather([D.indices.astype(np.int64),
                                     D.weights if D.weighted else np.zeros(D.indices.size)])
    return np.concatenate([[0], np.cumsum(deg)]), idx, (w if D.weighted else None)


def same(D, G, what):
    columns_agree(D, G, what)
    gathered = D.gather_graph(root=D.exchange.size - 1)
    if gathered is not None:
        assert (gathered.n, gathered.directed, gathered.nedges, gathered.nself_loops) == \
            (G.n, G.directed, G.nedges, G.nself_loops), f"{what}: gathered sizes"
        for name in ("indptr", "indices", "weights"):
            assert np.array_equal(getattr(gathered, name), getattr(G, name)), \
                f"{what}: gathered {name}"
    indptr, indices, weights = whole(D)
    assert (D.n, D.directed, D.weighted, D.nstored, D.nedges) == \
        (G.n, G.directed, G.weighted, G.nstored, G.nedges), f"{what}: sizes"
    assert np.array_equal(indptr, G.indptr) and np.array_equal(indices, G.indices), \
        f"{what}: adjacency"
    if G.weighted:
        assert weights.dtype == G.weights.dtype and np.array_equal(weights, G.weights), \
            f"{what}: weights"


def columns_agree(D, G, what):
    """The rank's column block is scipy's slice of the whole adjacency by its range."""
    A = sp.csr_array((np.ones(G.nstored, bool), G.indices, G.indptr), shape=(G.n, G.n))
    block = A[:, D.lo:D.hi].tocsr()
    block.sort_indices()
    indptr, indices = D.column_block()
    assert np.array_equal(indptr, block.indptr) and np.array_equal(indices, block.indices), \
        f"{what}: column block"


def main(folder: Path):
    rank = world().rank
    for scale, kw in [(8, {}), (9, {"weights": "uniform"}), (10, {"weights": "real"}),
                      (7, {"directed": True, "edgefactor": 3}), (3, {"edgefactor": 0})]:
        same(DistGraph.kronecker(scale, seed=4, **kw),
             lg.generate.kronecker(scale, seed=4, **kw), f"kronecker {scale} {kw}")
    # the parts of large graphs, built by the compiled counting sort (parallel edges and
    # weights merged as SuiteSparse merges them)
    smallest, graph.COUNTING_SORT_MIN = graph.COUNTING_SORT_MIN, 0
    for scale, kw in [(9, {"weights": "uniform"}), (8, {"weights": "real", "directed": True}),
                      (8, {})]:
        same(DistGraph.kronecker(scale, seed=6, **kw),
             lg.generate.kronecker(scale, seed=6, **kw), f"counting sort {scale} {kw}")
    graph.COUNTING_SORT_MIN = smallest
    rng = np.random.default_rng(3)
    for i, (directed, weights) in enumerate([(True, None), (False, "int"), (True, "real")]):
        n = 500
        src, dst = rng.integers(0, n, (2, 3000))
        w = (None if weights is None else rng.integers(-9, 9, 3000) if weights == "int"
             else rng.random(3000))
        G = lg.Graph.from_edges(src, dst, w, n=n, directed=directed)
        mtx, txt = folder / f"g{i}.mtx", folder / f"g{i}.txt"
        if rank == 0:
            lg.write_mtx(G, mtx)
            s, d, ww = G.edges()
            cols = [s, d] if ww is None else [s, d, ww]
            rows = zip(*(c.tolist() for c in cols))
            txt.write_text("# an edge list\n" + "".join(" ".join(map(repr, r)) + "\n"
                                                         for r in rows))
        world().allreduce(np.zeros(1), "sum")              # the files are written
        same(lg.distributed.read_mtx(mtx), lg.read_mtx(mtx), f"read_mtx {i}")
        same(lg.distributed.read_edgelist(txt, directed=directed),
             lg.read_edgelist(txt, directed=directed), f"read_edgelist {i}")
        # each rank gives a different share of the edges
        mine = np.arange(src.size) % world().size == rank
        same(DistGraph.from_edges(src[mine], dst[mine], None if w is None else w[mine],
                                  n=n, directed=directed), G, f"from_edges {i}")
    for dtype in (np.int64, np.uint64, np.int32):                 # any integer ids
        ids = np.array([299, 5, 7], dtype=dtype)
        mine = ids if rank == 0 else ids[:0]
        same(DistGraph.from_edges(mine, mine[::-1], n=300),
             lg.Graph.from_edges(ids, ids[::-1], n=300), f"ids of {np.dtype(dtype)}")
    if rank == 0:
        print("build: every graph equal")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
