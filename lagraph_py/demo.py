"""The main job: generate a Kronecker graph, run BFS, MSF and SCC, validate each result.

Run it with ``python -m lagraph_py`` (``--help`` lists the options). The exit status is
non-zero if any result fails validation.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from . import generate, validate
from .algorithms.bfs import bfs
from .algorithms.msf import msf
from .algorithms.scc import scc
from .results import asnumpy
from .validate import ValidationError


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _check(name, fn) -> bool:
    try:
        fn()
    except ValidationError as err:
        print(f"  {name}: INVALID - {err}")
        return False
    print(f"  {name}: valid")
    return True


def run(scale: int, edgefactor: int, backend: str, nsources: int, seed: int) -> bool:
    """Run the demo on one executor; return True when every result validates."""
    G, t_gen = _timed(lambda: generate.kronecker(scale, edgefactor, seed, weights="real"))
    D, _ = _timed(lambda: generate.kronecker(scale, edgefactor, seed, directed=True))
    print(f"Kronecker scale {scale}, edge factor {edgefactor}: n = {G.n:,}, "
          f"undirected edges = {G.nedges:,} (stored {G.nstored:,}); "
          f"directed copy: {D.nedges:,} edges; generated in {t_gen:.2f} s")
    print(f"backend: {backend}")
    ok = True

    rng = np.random.default_rng(seed)
    starts = rng.choice(np.flatnonzero(G.out_degree() > 0), size=nsources, replace=False)
    bfs(G, int(starts[0]), backend=backend)  # warm-up: builds cached storage
    times, results = [], []
    for s in starts:
        r, t = _timed(lambda: bfs(G, int(s), backend=backend))
        times.append(t)
        results.append(r)
    t = statistics.median(times)
    reached = int((asnumpy(results[0].level) >= 0).sum())
    print(f"BFS    median {t * 1e3:8.2f} ms over {nsources} sources, "
          f"{G.nstored / t / 1e6:8.1f} MTEPS; first source reached {reached:,} vertices")
    ok &= _check("BFS", lambda: [validate.bfs(G, int(s), r) for s, r in zip(starts, results)])

    f, t = _timed(lambda: msf(G, backend=backend))
    print(f"MSF    {t * 1e3:8.2f} ms: {len(f.src):,} forest edges, "
          f"total weight {f.total_weight:.6g}")
    ok &= _check("MSF", lambda: validate.msf(G, f))

    c, t = _timed(lambda: scc(D, backend=backend))
    labels = asnumpy(c.labels)
    sizes = np.bincount(labels)
    print(f"SCC    {t * 1e3:8.2f} ms: {c.ncomponents:,} components, "
          f"largest {sizes.max() if sizes.size else 0:,} vertices")
    ok &= _check("SCC", lambda: validate.scc(D, c))
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m lagraph_py", description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=16, help="log2 of the vertex count (16)")
    p.add_argument("--edgefactor", type=int, default=16, help="edges per vertex (16)")
    p.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--sources", type=int, default=8, help="BFS sources (8)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    ok = run(args.scale, args.edgefactor, args.backend, args.sources, args.seed)
    print("all results valid" if ok else "SOME RESULTS ARE INVALID")
    return 0 if ok else 1
