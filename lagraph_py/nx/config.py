"""``nx.config.backends.lagraph``: which executor the networkx backend runs on."""

from __future__ import annotations

from networkx.utils.configs import Config

from ..executor import Executor

EXECUTORS = ("cpu", "gpu")


class LagraphConfig(Config):
    """Configuration of the ``lagraph`` networkx backend.

    Attributes
    ----------
    executor : {"cpu", "gpu"} or Executor, default "cpu"
        Executor that runs the algorithms, unless a call passes ``executor=``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.config.backends.lagraph.executor
    'cpu'
    """

    executor: str | Executor

    def _on_setattr(self, key, value):
        if key == "executor":
            return check_executor(value)
        raise AttributeError(f"{key!r} is not a configuration of the lagraph backend")


def check_executor(value):
    """Return ``value`` if it names an executor ("cpu", "gpu") or is one, else raise."""
    if isinstance(value, Executor) or value in EXECUTORS:
        return value
    raise ValueError(f"executor must be one of {EXECUTORS} or an Executor, got {value!r}")


def executor_of(executor):
    """The executor a call runs on: its ``executor=``, else the backend's configuration."""
    if executor is None:
        import networkx as nx

        return nx.config.backends.lagraph.executor
    return check_executor(executor)
