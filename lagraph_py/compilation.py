"""When the cpu executor's loops get compiled: once per installation, off the user's calls.

numba compiles the loops of :mod:`lagraph_py.cpu_steps` on their first use (seconds per
algorithm) and caches them on disk, where a later process loads them in about 0.2-0.5 s.
So that no call waits for the compiler, the first ``backend="cpu"`` call of a process whose
loops are not on disk starts one detached, low-priority process (:mod:`lagraph_py.warmup`)
that compiles every loop and then writes a *stamp*; until the stamp exists,
``backend="cpu"`` runs scipy's compiled routines
(:class:`~lagraph_py.scipy_cpu.ScipyCpuExecutor`), which return the same results. Once it
exists, :func:`~lagraph_py.executor.get_executor` gives the fused executor for good.

- The stamp's name carries a fingerprint of what the compiled code depends on: the
  ``cpu_steps`` sources (size and modification time), the numba installation and the
  Python version. It lives where numba caches those sources' loops (:func:`cache_dir`),
  and finding it imports nothing: while the loops are not ready a call costs one
  ``stat``, and none afterwards.
- A lock file keeps two processes from compiling at once: the compiling process holds it
  (the system releases it if the process dies), and another waits for it, then finds the
  stamp.
- :data:`MODE_VARIABLE` set to ``foreground`` compiles in the calls themselves, as numba
  does by default (the test suite does this); so does a process whose background
  compilation could not start or failed.
- :func:`compile_cpu_loops` compiles now, or waits for the background process
  (``lagraph-py warmup`` after installing).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, NamedTuple

#: Environment variable choosing where the loops compile: ``background`` (default) or
#: ``foreground`` (in the calls that need them).
MODE_VARIABLE = "LAGRAPH_PY_COMPILE"
MODES = ("background", "foreground")
#: :func:`stop_background` looks for a starting process this often (seconds).
POLL_S = 0.1

_PACKAGE = Path(__file__).resolve().parent
_SOURCES = _PACKAGE / "cpu_steps"


def mode() -> str:
    """The compilation mode that :data:`MODE_VARIABLE` names (``background`` if unset)."""
    value = os.environ.get(MODE_VARIABLE) or MODES[0]
    if value not in MODES:
        raise ValueError(f"{MODE_VARIABLE} must be one of {MODES}, got {value!r}")
    return value


def cache_dir() -> Path:
    """The folder where numba caches the loops of ``lagraph_py/cpu_steps``, found as numba
    finds it (without importing numba): below ``$NUMBA_CACHE_DIR`` when set, else the
    sources' ``__pycache__`` when writable, else below the user's cache folder."""
    subpath = f"{_SOURCES.name}_{hashlib.sha1(str(_SOURCES).encode()).hexdigest()}"
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / subpath
    in_tree = _SOURCES / "__pycache__"
    if _writable(in_tree):
        return in_tree
    return _user_cache() / subpath


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _user_cache() -> Path:
    """numba's user-wide cache folder (its ``appdirs.user_cache_dir("numba")``)."""
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "numba" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "numba"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"


def fingerprint() -> str:
    """A digest of what the compiled loops depend on: each ``cpu_steps`` source's path,
    size and modification time, the same of numba's version file, and Python's version."""
    files = sorted(_SOURCES.glob("*.py"))
    numba = importlib.util.find_spec("numba")
    if numba is not None and numba.origin:
        files.append(Path(numba.origin).with_name("_version.py"))
    parts = [sys.version, sys.implementation.cache_tag]
    for path in files:
        stat = path.stat()
        parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


class Files(NamedTuple):
    """This installation's stamp, failure note and lock, in :func:`cache_dir`."""

    folder: Path
    stamp: str          #: (a str: one ``os.stat`` per call while it is missing)
    failed: Path        #: the traceback of a failed background compilation
    lock: Path          #: holds the compiling process's id while it compiles


@functools.cache
def files() -> Files:
    """This installation's :class:`Files` (found once per process)."""
    folder, digest = cache_dir(), fingerprint()
    return Files(folder, str(folder / f"lagraph_py-loops-{digest}.stamp"),
                 folder / f"lagraph_py-loops-{digest}.failed",
                 folder / "lagraph_py-compile.lock")


def loops_on_disk() -> bool:
    """Whether the compiled loops are on disk for this installation (the stamp exists)."""
    return os.path.exists(files().stamp)


_cold = None                    # the executor of the calls until the stamp exists
_compile_here = False           # the background process could not start, or failed


def cold_executor():
    """The executor of ``backend="cpu"`` while the compiled loops are not on disk: a
    :class:`~lagraph_py.scipy_cpu.ScipyCpuExecutor`; the first time, the background
    compilation starts. None when the fused executor should run: the loops are on disk,
    or this process compiles them (foreground mode, or no background process).
    """
    global _cold, _compile_here
    if loops_state() != "scipy":
        return None
    if _cold is None:
        # scipy first: its import (a fifth of a second) would otherwise share the cores
        # with the compiling process
        from .scipy_cpu import ScipyCpuExecutor
        if files().failed.exists() or not start_background():
            _compile_here = True
            return None
        _cold = ScipyCpuExecutor()
    return _cold


def loops_state() -> str:
    """What ``backend="cpu"`` runs in this process now: ``"compiled"`` (the loops are on
    disk), ``"foreground"`` (they compile in the calls that first need them) or
    ``"scipy"`` (scipy's routines, while a background process compiles the loops)."""
    if loops_on_disk():
        return "compiled"
    if _compile_here or mode() == "foreground":
        return "foreground"
    return "scipy"


def start_background() -> bool:
    """Start the detached, low-priority process that compiles the loops (it waits for
    one compiling already, then finds the stamp); False if it could not start.

    The process imports this very package, the one whose loops it compiles: its folder
    goes first on the path unless there already.
    """
    code = (f"import sys; sys.path[:0] = [p for p in [{str(_PACKAGE.parent)!r}] "
            "if p not in sys.path]; from lagraph_py.warmup import main; sys.exit(main())")
    env = dict(os.environ, **{MODE_VARIABLE: "foreground"})
    if sys.platform == "win32":
        detach = dict(creationflags=subprocess.DETACHED_PROCESS
                      | subprocess.CREATE_NEW_PROCESS_GROUP
                      | subprocess.BELOW_NORMAL_PRIORITY_CLASS)
    else:
        detach = dict(start_new_session=True)
    try:
        files().folder.mkdir(parents=True, exist_ok=True)
        subprocess.Popen([sys.executable, "-c", code], env=env, cwd=files().folder,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, close_fds=True, **detach)
    except (OSError, ValueError):
        return False
    return True


def stop_background(timeout: float = 0.0) -> bool:
    """Stop this installation's background compilation, waiting up to ``timeout`` seconds
    for a process that is starting; True if one was stopped (its work so far stays in
    numba's cache; a later process starts another).

    The compiling process is the one holding the lock; its id is in the lock file.
    """
    deadline = time.monotonic() + timeout
    while True:
        with _open_lock() as f:
            if not _try_lock(f, blocking=False):
                f.seek(0)
                holder = f.read().strip()
                if holder:
                    os.kill(int(holder), signal.SIGTERM)
                    return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def compile_cpu_loops(wait: bool = True) -> float:
    """Compile the cpu executor's loops for this installation, or wait for the process
    compiling them; return the seconds it took (about 0 once they are on disk).

    ``backend="cpu"`` compiles them in a background process on its first call anyway
    (running scipy's routines meanwhile); call this after installing (or run
    ``lagraph-py warmup``) to have the compiled loops from the first call, or before
    timing them.

    Parameters
    ----------
    wait : bool, default True
        Compile in this process, or wait for the background process if one is compiling.
        With False, start the background process (if the loops are not on disk) and
        return at once.

    Returns
    -------
    float
        Seconds spent.

    Examples
    --------
    >>> import lagraph_py as lg
    >>> seconds = lg.compile_cpu_loops()    # doctest: +SKIP
    """
    start = time.perf_counter()
    if wait:
        warm(background=False)
    elif not loops_on_disk():
        start_background()
    return time.perf_counter() - start


def warm(*, background: bool) -> int:
    """Compile every loop (:func:`lagraph_py.warmup.run`) and write the stamp, unless it
    exists, holding the lock (waiting for it first); return the exit status (0 done).

    A failure raises; in the background its traceback is written next to the stamp
    instead (later processes then compile in the foreground, where it shows) and the
    status is 1.
    """
    if loops_on_disk():
        return 0
    with _open_lock() as f:
        _try_lock(f, blocking=True)
        if loops_on_disk():                 # compiled by the process waited for
            return 0
        _write(f, str(os.getpid()))
        from .cpu_steps import FusedCpuExecutor
        from .warmup import run
        start = time.perf_counter()
        try:
            run(FusedCpuExecutor())
        except Exception:
            if not background:
                raise
            files().failed.write_text(traceback.format_exc())
            return 1
        finally:
            _write(f, "")
        stamp = dict(seconds=round(time.perf_counter() - start, 3), background=background,
                     python=sys.version.split()[0], written=time.strftime("%Y-%m-%d %H:%M:%S"))
        tmp = f"{files().stamp}.{os.getpid()}.tmp"
        Path(tmp).write_text(json.dumps(stamp))
        os.replace(tmp, files().stamp)
    return 0


def _open_lock() -> IO[str]:
    """The lock file, opened (closing it releases the lock)."""
    files().folder.mkdir(parents=True, exist_ok=True)
    return open(files().lock, "a+")


def _try_lock(f: IO[str], *, blocking: bool) -> bool:
    """Take the exclusive lock of the open file ``f``; False if another process holds
    it (without ``blocking``; else wait for it)."""
    f.seek(0)
    while True:
        try:
            if sys.platform == "win32":
                import msvcrt
                msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl
                fcntl.flock(f, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            return True
        except OSError:
            if not blocking:
                return False
            time.sleep(POLL_S)          # (msvcrt has no lock that waits for good)


def _write(f: IO[str], text: str) -> None:
    f.seek(0)
    f.truncate()
    f.write(text)
    f.flush()


@contextlib.contextmanager
def compile_timer() -> Iterator[Callable[[], float]]:
    """Measure the seconds numba spends compiling inside the block (loading its cache
    does not count): yields a function that returns them."""
    from numba.core.event import install_timer
    spent: list[float] = []
    with install_timer("numba:compile", spent.append):
        yield lambda: sum(spent)
