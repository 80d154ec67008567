"""Result records returned by the algorithms, and :func:`asnumpy`.

Array fields hold numpy arrays from the cpu executor and CuPy arrays from the gpu
executor; :func:`asnumpy` turns either into numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def asnumpy(x: Any) -> np.ndarray:
    """Return a numpy copy of a numpy or CuPy array (or anything ``numpy.asarray`` takes).

    Examples
    --------
    >>> asnumpy([1, 2])
    array([1, 2])
    """
    get = getattr(x, "get", None)  # cupy.ndarray.get() copies device -> host
    if callable(get) and type(x).__module__.startswith("cupy"):
        return get()
    return np.array(x, copy=True)


@dataclass(frozen=True)
class BFSResult:
    """Breadth-first search from ``source``.

    Attributes
    ----------
    source : int
    level : array of int64 or None
        Hops from ``source``; ``level[source] == 0``, ``-1`` where unreached.
    parent : array of int64 or None
        A BFS-tree parent; ``parent[source] == source``, ``-1`` where unreached. Several
        parents are valid for most vertices: any ``p`` with an edge ``p -> v`` and
        ``level[p] == level[v] - 1``; :func:`lagraph_py.validate.bfs` checks exactly that.
    """

    source: int
    level: Any
    parent: Any


@dataclass(frozen=True)
class MSFResult:
    """Minimum spanning forest: one row per forest edge, ``src < dst``, in the tie order.

    Attributes
    ----------
    src, dst : array of int64
    weight : array (int64 or float64; int64 ones for an unweighted graph)
    total_weight : int or float
    component : array of int64
        Component of every vertex: the smallest vertex id in its tree.
    """

    src: Any
    dst: Any
    weight: Any
    total_weight: Any
    component: Any


@dataclass(frozen=True)
class SCCResult:
    """Strongly connected components.

    Attributes
    ----------
    labels : array of int64
        ``labels[v]`` is the smallest vertex id in the component of ``v``.
    """

    labels: Any

    @property
    def ncomponents(self) -> int:
        """Number of components."""
        return int((asnumpy(self.labels) == np.arange(len(self.labels))).sum())
