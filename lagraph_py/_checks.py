"""Input normalization shared by the public functions: validate once, fail loudly."""

from __future__ import annotations

import operator

import numpy as np

INT32_MAX = np.iinfo(np.int32).max
#: A graph of at most this many vertices stores its column indices (vertex ids) as int32,
#: a larger one as int64. Tests lower it to reach int64 ids on small graphs.
INT32_IDS_MAX = INT32_MAX
#: A graph of at most this many stored entries stores its row pointers as int32, a larger
#: one as int64 (its ids stay int32 if they fit). Tests lower it to reach int64 row
#: pointers on small graphs.
INT32_OFFSETS_MAX = INT32_MAX
#: Weight types a Graph keeps as given; other integer types widen to int64, other real
#: types to float64.
WEIGHT_TYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32),
                np.dtype(np.float64))


def as_id_array(x, name: str) -> np.ndarray:
    """Return ``x`` as a 1-D array of vertex ids of 4 or 8 bytes, or raise naming ``name``.

    Integer arrays of any width are accepted; floats, booleans and objects are not, so
    a silent truncation can never turn ``2.7`` into vertex 2. An array of int32, uint32,
    int64 or uint64 (contiguous, native byte order) is returned as it is, not copied:
    read it, never write to it. Narrower ids become int32.
    """
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer vertex ids, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, arr.dtype.newbyteorder("=") if arr.itemsize >= 4
                               else np.int32)
    if arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids larger than int64 can represent")
    if arr.dtype.kind == "i" and arr.min() < 0:
        k = int(np.argmin(arr))
        raise ValueError(f"{name}[{k}] = {arr[k]} is a negative vertex id")
    return arr


def as_weight_array(x, length: int, name: str = "weight") -> np.ndarray:
    """Return ``x`` as a 1-D array of finite edge weights of a type in :data:`WEIGHT_TYPES`.

    An array of such a type (contiguous, native byte order) is returned as it is, not
    copied: read it, never write to it. Other integer types are copied to int64, other
    real types to float64.
    """
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
    if arr.dtype == np.uint64 and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds values larger than int64 can represent")
    native = arr.dtype.newbyteorder("=")
    if native not in WEIGHT_TYPES:
        native = np.dtype(np.int64 if native.kind in "iu" else np.float64)
    arr = np.ascontiguousarray(arr, native)
    if arr.dtype.kind == "f" and arr.size and not (np.isfinite(arr.min())
                                                   and np.isfinite(arr.max())):
        k = int(np.argmax(~np.isfinite(arr)))            # min and max see any NaN
        raise ValueError(f"{name}[{k}] = {arr[k]} is not a finite number")
    return arr


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


def check_search_outputs(n: int, level, parent) -> None:
    """Raise unless ``level`` and ``parent`` are arrays a search of a graph of ``n``
    vertices can write into: writable, contiguous int64 arrays of ``n`` entries, or None
    for an output not asked for (at least one given)."""
    if level is None and parent is None:
        raise ValueError("nothing to compute: level and parent are both None")
    for a in (level, parent):
        if a is not None and not (isinstance(a, np.ndarray) and a.dtype == np.int64
                                  and a.shape == (n,) and a.flags.c_contiguous
                                  and a.flags.writeable):
            raise ValueError(f"BFS outputs must be writable contiguous int64 arrays "
                             f"of {n} entries")


def index_dtypes(n: int, nstored: int) -> tuple[np.dtype, np.dtype]:
    """The types ``(row pointers, column indices)`` of a graph of ``n`` vertices and
    ``nstored`` entries: int32 where they fit (:data:`INT32_OFFSETS_MAX`,
    :data:`INT32_IDS_MAX`), else int64."""
    wide = np.dtype(np.int64), np.dtype(np.int32)
    return wide[nstored <= INT32_OFFSETS_MAX], wide[n <= INT32_IDS_MAX]


def undirected(G, symmetrize: bool, refusal: str):
    """``G`` itself if undirected. A directed ``G`` raises ``ValueError(refusal)`` unless
    ``symmetrize``; then each of its edges ``(u, v, w)`` becomes the undirected edge
    ``{u, v}`` of a new graph (of parallel edges the lightest kept)."""
    if not G.directed:
        return G
    if not symmetrize:
        raise ValueError(refusal)
    return type(G).from_edges(G.rows(), G.indices, G.weights, n=G.n, directed=False)
