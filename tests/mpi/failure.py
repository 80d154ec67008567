"""Run by tests/test_distributed.py under mpiexec: one rank fails, every rank must say so
and the job must end (no hang). Argument: "raise" (rank 1 cannot hold its part: a
MemoryError while building it), "hang" (rank 1 never joins a collective) or
"badfile" (a file malformed in rank 1's byte range)."""

import sys
import time

import numpy as np

import lagraph_py as lg
from dist_backend import DistGraph, graph, world

mode = sys.argv[1]
rank = world().rank
if mode == "raise" and rank == 1:
    def no_room(*args):
        raise MemoryError("not enough memory for this rank's part (simulated)")
    graph._local_rows = no_room
if mode == "hang" and rank == 1:
    time.sleep(3600)
if mode == "badfile":
    path = sys.argv[2]
    if rank == 0:
        lines = ["%%MatrixMarket matrix coordinate pattern general", "4000 4000 4000"]
        lines += [f"{i + 1} {(i * 7) % 4000 + 1}" for i in range(4000)]
        lines[3500] = "12 x"
        open(path, "w").write("\n".join(lines) + "\n")
    world().allreduce(np.zeros(1), "sum")
    lg.distributed.read_mtx(path)
else:
    G = DistGraph.kronecker(8)
    lg.bfs(G, 0)
print(f"rank {rank}: no error", flush=True)
