"""The ``mpiexec`` command line for a job of ranks on this host, whichever MPI provides it.

MPICH (the ``mpich`` wheel of the ``mpi`` extra) starts its ranks over ssh unless told
``-launcher fork``; Open MPI refuses more ranks than cores unless ``--oversubscribe``, and
refuses to run as root unless ``--allow-run-as-root``. The flavour is read from
``mpiexec --version`` once.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path


def mpiexec() -> str | None:
    """The launcher: ``$MPIEXEC``, else the one beside this Python (a virtual environment's
    wheel), else the first on ``PATH``; None if there is none."""
    beside = Path(sys.executable).parent / "mpiexec"
    return os.environ.get("MPIEXEC") or (str(beside) if beside.exists()
                                         else shutil.which("mpiexec"))


@functools.cache
def _flavour_options(launcher: str) -> tuple[str, ...]:
    try:
        text = subprocess.run([launcher, "--version"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if "HYDRA" in text:                                    # MPICH
        return ("-launcher", "fork")
    if "Open MPI" in text or "OpenRTE" in text:
        root = hasattr(os, "geteuid") and os.geteuid() == 0
        return ("--oversubscribe",) + (("--allow-run-as-root",) if root else ())
    return ()


def command(ranks: int, argv: list[str], launcher: str | None = None) -> list[str]:
    """``mpiexec`` with the options its flavour needs on one host, ``-n ranks``, then
    ``argv``.

    Examples
    --------
    >>> command(2, ["python3", "job.py"], launcher="mpiexec")[-4:]
    ['-n', '2', 'python3', 'job.py']
    """
    launcher = launcher or mpiexec()
    if launcher is None:
        raise FileNotFoundError("no mpiexec: pip install 'lagraph_py[mpi]'")
    return [launcher, *_flavour_options(launcher), "-n", str(ranks), *argv]
