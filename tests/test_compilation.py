"""When the cpu executor's loops compile: a fresh environment's first calls run scipy's
routines (same answers) while a background process compiles; foreground mode compiles in
the call; the stamp, the lock and the failure note; the calls of the background process
compile every loop that other calls need."""

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from oracles import bfs_levels

import lagraph_py as lg
import lagraph_py.compilation as compilation
import lagraph_py.cpu_steps
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.cpu_steps.bfs import _search
from lagraph_py.graph import Graph

ROOT = Path(__file__).resolve().parent.parent


def run_child(code: str, **env) -> dict:
    """Run ``code`` in a fresh interpreter on this source tree with the environment
    changed by ``env`` (None removes a variable); return the JSON it prints last."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


FIRST_CALLS = """
import json, sys
import lagraph_py as lg
from lagraph_py.compilation import loops_state, stop_background
from lagraph_py.executor import get_executor
G = lg.generate.kronecker(10, weights="real")
D = lg.generate.kronecker(10, directed=True)
state = loops_state()
r, f, c, u = lg.bfs(G, 3), lg.msf(G), lg.scc(D), lg.scc(G)
print(json.dumps(dict(
    state=state, executor=type(get_executor("cpu")).__name__,
    compiled_loops_imported="lagraph_py.cpu_steps" in sys.modules,
    level=r.level.tolist(), parent=r.parent.tolist(),
    forest=[x.tolist() for x in (f.src, f.dst, f.weight, f.component)],
    scc=c.labels.tolist(), cc=u.labels.tolist(),
    stopped=stop_background(timeout=120))))
"""


def test_first_calls_in_a_fresh_environment(tmp_path):
    """Empty numba cache, no stamp: scipy's routines answer, the compiled loops are not
    even imported, and the background process starts (stopped here)."""
    got = run_child(FIRST_CALLS, NUMBA_CACHE_DIR=str(tmp_path),
                    **{compilation.MODE_VARIABLE: None})
    assert got["state"] == "scipy" and got["executor"] == "ScipyCpuExecutor"
    assert not got["compiled_loops_imported"]
    assert got["stopped"]                           # it was compiling, holding the lock
    assert not list(tmp_path.rglob("*.stamp"))
    G = lg.generate.kronecker(10, weights="real")
    D = lg.generate.kronecker(10, directed=True)
    r = lg.bfs(G, 3)                                 # the compiled loops (foreground)
    np.testing.assert_array_equal(got["level"], r.level)
    lg.validate.bfs(G, 3, lg.BFSResult(3, r.level, np.array(got["parent"])))
    f = lg.msf(G)
    for a, b in zip(got["forest"], (f.src, f.dst, f.weight, f.component)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got["scc"], lg.scc(D).labels)
    np.testing.assert_array_equal(got["cc"], lg.scc(G).labels)


FOREGROUND = """
import contextlib, io, json
from lagraph_py.cli import main
from lagraph_py.compilation import cache_dir, files, loops_state
from lagraph_py.executor import get_executor
state, executor = loops_state(), type(get_executor("cpu")).__name__
with contextlib.redirect_stdout(io.StringIO()) as out:
    main(["bfs", "--grid", "4x5", "--source", "0", "--json"])
from lagraph_py.cpu_steps.bfs import _search
print(json.dumps(dict(state=state, executor=executor, cli=json.loads(out.getvalue()),
                      cache_dir=str(cache_dir()), numba_cache=_search.stats.cache_path,
                      lock=files().lock.exists())))
"""


def test_foreground_mode_compiles_in_the_call(tmp_path):
    """An empty numba cache in foreground mode: the call compiles (the command line
    reports it apart), and the stamp's folder is numba's cache folder."""
    got = run_child(FOREGROUND, NUMBA_CACHE_DIR=str(tmp_path),
                    **{compilation.MODE_VARIABLE: "foreground"})
    assert got["state"] == "foreground" and got["executor"] == "FusedCpuExecutor"
    assert got["cli"]["cpu_code"] == "compiled" and got["cli"]["compile_seconds"] > 0
    assert got["cli"]["max_level"] == bfs_levels(lg.generate.grid(4, 5), 0).max()
    assert not got["lock"]                          # no background process
    assert got["cache_dir"] == got["numba_cache"]
    assert Path(got["cache_dir"]).parent == tmp_path


def test_cache_dir_is_numbas():
    assert compilation.cache_dir() == Path(_search.stats.cache_path)


def test_mode_names_the_variable(monkeypatch):
    monkeypatch.setenv(compilation.MODE_VARIABLE, "later")
    with pytest.raises(ValueError, match=compilation.MODE_VARIABLE):
        compilation.mode()


@pytest.fixture
def installation(tmp_path, monkeypatch):
    """This process seen as a fresh installation in background mode: its stamp, failure
    note and lock in ``tmp_path``, no background process started yet."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(compilation.MODE_VARIABLE, "background")
    monkeypatch.setattr(compilation, "_cold", None)
    monkeypatch.setattr(compilation, "_compile_here", False)
    compilation.files.cache_clear()
    yield compilation.files()
    compilation.files.cache_clear()


def test_stamp_ends_the_cold_path(installation, monkeypatch):
    calls = []
    monkeypatch.setattr(compilation, "start_background", lambda: calls.append(1) or True)
    assert type(compilation.cold_executor()).__name__ == "ScipyCpuExecutor"
    assert compilation.cold_executor() is compilation.cold_executor()
    assert calls == [1]                                     # started once per process
    monkeypatch.setattr("lagraph_py.warmup.run", lambda executor: calls.append(executor))
    assert lg.compile_cpu_loops() >= 0
    assert isinstance(calls[1], FusedCpuExecutor) and Path(installation.stamp).exists()
    assert compilation.loops_state() == "compiled" and compilation.cold_executor() is None
    assert lg.compile_cpu_loops() >= 0 and len(calls) == 2  # on disk: nothing to do


def test_compiling_waits_for_the_process_holding_the_lock(installation, monkeypatch):
    monkeypatch.setattr("lagraph_py.warmup.run", pytest.fail)    # never compiles here
    held, release = threading.Event(), threading.Event()

    def other_process():
        with compilation._open_lock() as f:
            compilation._try_lock(f, blocking=True)
            held.set()
            release.wait(10)
            Path(installation.stamp).write_text("{}")

    thread = threading.Thread(target=other_process)
    thread.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()
    assert compilation.warm(background=False) == 0          # found the holder's stamp
    thread.join()


def test_a_background_failure_moves_compilation_to_the_foreground(installation,
                                                                  monkeypatch):
    def broken(executor):
        raise RuntimeError("no compiler today")
    monkeypatch.setattr("lagraph_py.warmup.run", broken)
    assert compilation.warm(background=True) == 1
    assert "no compiler today" in installation.failed.read_text()
    assert compilation.cold_executor() is None              # compile in the calls
    assert compilation.loops_state() == "foreground"
    with pytest.raises(RuntimeError, match="no compiler today"):
        lg.compile_cpu_loops()


def test_a_failed_start_compiles_in_the_foreground(installation, monkeypatch):
    monkeypatch.setattr(compilation.sys, "executable", str(installation.folder / "none"))
    assert not compilation.start_background()
    assert compilation.cold_executor() is None
    assert compilation.loops_state() == "foreground"


def test_stop_background_stops_the_lock_holder(installation):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not compilation.stop_background()            # nobody holds the lock
        with compilation._open_lock() as f:
            compilation._try_lock(f, blocking=True)
            compilation._write(f, str(sleeper.pid))
            assert compilation.stop_background()
        assert sleeper.wait(10) != 0
    finally:
        sleeper.kill()
        sleeper.wait()


# ---------------------------------------------------------------------- the warm calls
def compiled_signatures() -> set:
    """``(loop, argument types)`` of every loop of ``cpu_steps`` compiled (or loaded) in
    this process."""
    out = set()
    for info in pkgutil.iter_modules(lagraph_py.cpu_steps.__path__):
        module = importlib.import_module(f"lagraph_py.cpu_steps.{info.name}")
        for name, loop in vars(module).items():
            if hasattr(loop, "signatures") and hasattr(loop, "py_func"):
                out |= {(f"{info.name}.{name}", str(sig)) for sig in loop.signatures}
    return out


def various_calls() -> None:
    """BFS, MSF and SCC on graphs of every class, size, weight type and index layout
    (int64 row pointers beside int32 ids: past 2^31 entries), with self-loops and
    parallel edges, by every method; graphs built from scipy and from another graph's
    arrays."""
    gen, ex, rng = lg.generate, FusedCpuExecutor(), np.random.default_rng(1)
    undirected, directed = [], []
    for w in (None, "uniform", "real"):
        undirected += [gen.kronecker(13, weights=w), gen.grid(30, 30, weights=w),
                       gen.road(60, 60, weights=w), gen.uniform(3000, 1.2, weights=w),
                       gen.uniform(20000, 16, weights=w), gen.rmat(12, weights=w)]
    for G in undirected[-6:]:                       # 4-byte weights, from scipy
        A = G.to_scipy()
        A.data = A.data.astype(np.float32)
        undirected.append(Graph.from_scipy(A, directed=False))
    directed += [gen.kronecker(13, directed=True), gen.rmat(12, directed=True),
                 gen.grid(40, 40, directed=True, orientation="sweep"),
                 gen.cycle_chain(100, 30, shuffle=True), gen.uniform(20000, 4, directed=True)]
    for n in (0, 1, 2, 5, 40, 300):
        src, dst = rng.integers(0, max(n, 1), (2, 3 * n))
        for w in (None, rng.integers(-3, 3, 3 * n), rng.normal(size=3 * n),
                  rng.integers(-3, 3, 3 * n, dtype=np.int32),
                  rng.normal(size=3 * n).astype(np.float32)):
            undirected.append(Graph.from_edges(src, dst, w, n=n, directed=False))
            directed.append(Graph.from_edges(src, dst, w, n=n, directed=True))
    for G in undirected + directed:
        for H in (G, Graph(G.n, G.directed, G.indptr.astype(np.int64), G.indices,
                           G.weights)):
            lg.msf(H, backend=ex, symmetrize=True)
            lg.scc(H, backend=ex)
            for method in ("auto", "push", "pull") if H.n else ():
                for levels, parents in ((True, True), (True, False), (False, True)):
                    lg.bfs(H, H.n // 2, backend=ex, method=method, levels=levels,
                           parents=parents)


WARM_COVERAGE = """
import json
import test_compilation as t
from lagraph_py.cpu_steps import FusedCpuExecutor
from lagraph_py.warmup import run
run(FusedCpuExecutor())
warm = t.compiled_signatures()
t.various_calls()
print(json.dumps(sorted(map(list, t.compiled_signatures() - warm))))
"""


def test_the_warm_calls_compile_every_loop_other_calls_need():
    """In a fresh process (numba's cache as the suite's), no call of various_calls needs a
    loop variant that the background process's calls did not compile."""
    missing = run_child(WARM_COVERAGE, **{compilation.MODE_VARIABLE: "foreground"})
    assert missing == []


# ---------------------------------------------------------------------- reporting
def test_cli_and_demo_say_what_ran(installation, monkeypatch, capsys):
    from lagraph_py import demo
    from lagraph_py.cli import main
    monkeypatch.setattr(compilation, "start_background", lambda: True)
    assert main(["scc", "--kronecker", "8", "--directed", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cpu_code"] == "scipy" and report["compile_seconds"] == 0
    assert main(["bfs", "--grid", "5x5"]) == 0
    assert "ran scipy's routines" in capsys.readouterr().out
    assert demo.main(["--scale", "8", "--sources", "2"]) == 0
    assert "running scipy's routines" in capsys.readouterr().out

    monkeypatch.setattr("lagraph_py.warmup.run", lambda executor: None)
    assert main(["warmup", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["compiled_before"] is False
    assert main(["warmup"]) == 0
    assert "compiled already" in capsys.readouterr().out
    assert main(["msf", "--grid", "5x5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cpu_code"] == "compiled"
