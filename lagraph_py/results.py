"""Result records returned by the algorithms, and :func:`asnumpy`.

Array fields hold numpy arrays from the cpu executor and CuPy arrays from the gpu
executor; :func:`asnumpy` turns either into numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
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


def exact_total(weight: np.ndarray):
    """Sum of ``weight`` independent of summation order and executor: a Python int for
    integer weights (exact), a float for float weights (``math.fsum``, correctly rounded).

    Examples
    --------
    >>> exact_total(np.array([1e16, 1.0, -1e16])), exact_total(np.array([2**62, 2**62]))
    (1.0, 9223372036854775808)
    """
    if weight.dtype.kind == "f":
        try:
            return math.fsum(weight)
        except OverflowError:                         # a partial sum passed 1.8e308
            exact = sum(map(Fraction, weight.tolist()), Fraction(0))
            try:
                return float(exact)
            except OverflowError:
                return math.inf if exact > 0 else -math.inf
    w = weight.astype(np.int64, copy=False)           # exact: two int64 half-word sums
    return int((w >> 32).sum()) * 2**32 + int((w & 0xFFFFFFFF).sum())


_FROM_WEIGHT = object()


class _TotalWeight:
    """The ``total_weight`` field: the value given, or else :func:`exact_total` of the
    forest's weights, computed on first read (a device-to-host copy on the gpu)."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return _FROM_WEIGHT                       # the dataclass default
        value = obj.__dict__["_total_weight"]
        if value is _FROM_WEIGHT:
            value = obj.__dict__["_total_weight"] = exact_total(asnumpy(obj.weight))
        return value

    def __set__(self, obj, value):
        obj.__dict__["_total_weight"] = value


@dataclass(frozen=True)
class MSFResult:
    """Minimum spanning forest: one row per forest edge, ``src < dst``, in the tie order.

    Attributes
    ----------
    src, dst : array of int64
    weight : array (int64 or float64; int64 ones for an unweighted graph)
    total_weight : int or float
        Exact: :func:`exact_total` of ``weight``. Computed when first read unless given.
    component : array of int64
        Component of every vertex: the smallest vertex id in its tree.
    """

    src: Any
    dst: Any
    weight: Any
    total_weight: Any = _TotalWeight()
    component: Any = None


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
