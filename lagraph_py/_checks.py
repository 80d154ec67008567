"""Input normalization shared by the public functions: validate once, fail loudly."""

from __future__ import annotations

import operator

import numpy as np

INT32_MAX = np.iinfo(np.int32).max


def as_id_array(x, name: str) -> np.ndarray:
    """Return ``x`` as a new 1-D int64 array of vertex ids, or raise naming ``name``.

    Integer arrays of any width are accepted; floats, booleans and objects are not,
    so a silent truncation can never turn ``2.7`` into vertex 2.
    """
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer vertex ids, got dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids larger than int64 can represent")
    out = arr.astype(np.int64, copy=True)
    if out.min() < 0:
        k = int(np.argmin(out))
        raise ValueError(f"{name}[{k}] = {out[k]} is a negative vertex id")
    return out


def as_weight_array(x, length: int, name: str = "weight") -> np.ndarray:
    """Return ``x`` as a new int64 or float64 array of finite edge weights."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != length:
        raise ValueError(f"{name} has {arr.shape[0]} entries but there are {length} edges")
    if arr.size == 0 and arr.dtype == np.float64:
        return np.empty(0, dtype=np.float64)
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be integer or real, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.integer):
        if arr.dtype == np.uint64 and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} holds values larger than int64 can represent")
        return arr.astype(np.int64, copy=True)
    out = arr.astype(np.float64, copy=True)
    bad = ~np.isfinite(out)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{name}[{k}] = {out[k]} is not a finite number")
    return out


def as_count(x, name: str) -> int:
    """Return ``x`` as a non-negative Python int (a vertex count or a size)."""
    try:
        value = operator.index(x)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(x).__name__}") from None
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    return value


def as_source(source, n: int) -> int:
    """Return ``source`` as a vertex id of a graph with ``n`` vertices, or raise."""
    try:
        s = operator.index(source)
    except TypeError:
        raise TypeError(f"source must be an integer vertex id, got {type(source).__name__}") from None
    if not 0 <= s < n:
        raise ValueError(f"source {s} is not a vertex of this graph (n = {n})")
    return s


def index_dtype(n: int, nstored: int) -> np.dtype:
    """The narrowest index type (int32 or int64) that holds ids below ``n`` and ``nstored`` offsets."""
    return np.dtype(np.int32) if max(n, nstored) <= INT32_MAX else np.dtype(np.int64)


def undirected(G, symmetrize: bool, refusal: str):
    """``G`` itself if undirected. A directed ``G`` raises ``ValueError(refusal)`` unless
    ``symmetrize``; then each of its edges ``(u, v, w)`` becomes the undirected edge
    ``{u, v}`` of a new graph (of parallel edges the lightest kept)."""
    if not G.directed:
        return G
    if not symmetrize:
        raise ValueError(refusal)
    src, dst, w = G.edges()
    return type(G).from_edges(src, dst, w, n=G.n, directed=False)
