"""Union-find on a numpy parent array whose roots are the smallest ids of their trees, for
the compiled loops of the fused cpu steps (numba).

The larger root always goes under the smaller, so ``parent[x] <= x`` everywhere: a root
is its tree's smallest vertex (the label the results use), and one upward sweep
(:func:`flatten`) points every vertex at its root.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def find(parent, x):
    """The root of ``x``, halving the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, inline="always")
def union(parent, a, b):
    """Join the trees of ``a`` and ``b``; False when they are one tree already."""
    a, b = find(parent, a), find(parent, b)
    if a == b:
        return False
    if a < b:
        parent[b] = a
    else:
        parent[a] = b
    return True


@njit(cache=True)
def flatten(parent):
    """Point every vertex at its root (``parent[v] <= v``: one sweep upwards suffices)."""
    for x in range(parent.size):
        parent[x] = parent[parent[x]]
