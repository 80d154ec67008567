"""The main job: generate a Kronecker graph, run BFS, MSF and SCC, validate each result.

Run it with ``python -m lagraph_py`` (``--help`` lists the options). The exit status is
non-zero if any result fails validation.

On the cpu, the times are those of whatever ran: scipy's routines while the compiled
loops are not ready (the first run after installing; they compile in the background),
then the compiled loops; ``--compiled`` waits for them first. Time numba spends compiling
inside a call is reported apart from the call's.
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
from .compilation import compile_cpu_loops, compile_timer, loops_state
from .executor import get_executor
from .results import asnumpy
from .validate import ValidationError


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _timed_apart(fn):
    """``(result, seconds, seconds numba spent compiling)``: the call's time without the
    compiler's, which comes apart."""
    with compile_timer() as compiling:
        out, t = _timed(fn)
    return out, t - compiling(), compiling()


def _compiling(seconds: float) -> str:
    return f" (+ {seconds:.1f} s compiling loops, once per installation)" if seconds else ""


def cpu_executor(wait: bool):
    """The cpu executor every call of the demo uses, after saying which it is: with
    ``wait``, the compiled loops (compiled, or waited for, first)."""
    state = loops_state()
    if state == "scipy" and wait:
        print(f"compiled the cpu executor's loops in {compile_cpu_loops():.1f} s "
              "(once per installation)")
    elif state == "scipy":
        print("compiled loops not ready: running scipy's routines; the loops compile in "
              "the background, once per installation (--compiled waits for them)")
    return get_executor("cpu")


def _check(name, fn) -> bool:
    try:
        fn()
    except ValidationError as err:
        print(f"  {name}: INVALID - {err}")
        return False
    print(f"  {name}: valid")
    return True


def run(scale: int, edgefactor: int, backend: str, nsources: int, seed: int,
        compiled: bool = False) -> bool:
    """Run the demo on one executor (the cpu's compiled loops only, with ``compiled``);
    return True when every result validates."""
    G, t_gen = _timed(lambda: generate.kronecker(scale, edgefactor, seed, weights="real"))
    D, _ = _timed(lambda: generate.kronecker(scale, edgefactor, seed, directed=True))
    print(f"Kronecker scale {scale}, edge factor {edgefactor}: n = {G.n:,}, "
          f"undirected edges = {G.nedges:,} (stored {G.nstored:,}); "
          f"directed copy: {D.nedges:,} edges; generated in {t_gen:.2f} s")
    print(f"backend: {backend}")
    ex = cpu_executor(compiled) if backend == "cpu" else backend
    ok = True

    rng = np.random.default_rng(seed)
    starts = rng.choice(np.flatnonzero(G.out_degree() > 0), size=nsources, replace=False)
    # a warm-up call builds the cached storage
    _, _, compiling = _timed_apart(lambda: bfs(G, int(starts[0]), backend=ex))
    times, results = [], []
    for s in starts:
        r, t, c = _timed_apart(lambda: bfs(G, int(s), backend=ex))
        times.append(t)
        results.append(r)
        compiling += c
    t = statistics.median(times)
    reached = int((asnumpy(results[0].level) >= 0).sum())
    print(f"BFS    median {t * 1e3:8.2f} ms over {nsources} sources, "
          f"{G.nstored / t / 1e6:8.1f} MTEPS; first source reached {reached:,} vertices"
          + _compiling(compiling))
    ok &= _check("BFS", lambda: [validate.bfs(G, int(s), r) for s, r in zip(starts, results)])

    f, t, compiling = _timed_apart(lambda: msf(G, backend=ex))
    print(f"MSF    {t * 1e3:8.2f} ms: {len(f.src):,} forest edges, "
          f"total weight {f.total_weight:.6g}" + _compiling(compiling))
    ok &= _check("MSF", lambda: validate.msf(G, f))

    c, t, compiling = _timed_apart(lambda: scc(D, backend=ex))
    labels = asnumpy(c.labels)
    sizes = np.bincount(labels)
    print(f"SCC    {t * 1e3:8.2f} ms: {c.ncomponents:,} components, "
          f"largest {sizes.max() if sizes.size else 0:,} vertices" + _compiling(compiling))
    ok &= _check("SCC", lambda: validate.scc(D, c))
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m lagraph_py", description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=16, help="log2 of the vertex count (16)")
    p.add_argument("--edgefactor", type=int, default=16, help="edges per vertex (16)")
    p.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--sources", type=int, default=8, help="BFS sources (8)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compiled", action="store_true",
                   help="cpu: wait for the compiled loops (compiling them if need be)")
    args = p.parse_args(argv)
    ok = run(args.scale, args.edgefactor, args.backend, args.sources, args.seed,
             args.compiled)
    print("all results valid" if ok else "SOME RESULTS ARE INVALID")
    return 0 if ok else 1
