"""Union-find on a numpy parent array whose roots are the smallest ids of their trees, for
the compiled loops of the fused cpu steps (numba); lock-free where threads share it.

The larger root always goes under the smaller, so ``parent[x] <= x`` everywhere: a root
is its tree's smallest vertex (the label the results use), and one upward sweep
(:func:`flatten`) points every vertex at its root.

Threads may find and join in one array at once. Every store lowers an entry to an
ancestor of its vertex (path halving) or hooks a root under a smaller vertex of the tree it
joins, so ``parent[x] <= x`` holds whatever the interleaving, no cycle can form, and every
tree stays inside one component. Halving stores only into vertices that are no roots,
which never become roots again, so they may race with each other (one ancestor replacing
another loses nothing) but never with a hook. Two threads hooking one root at once by plain
stores lose one of the two joins; ``union(..., atomic=True)`` loses none: a
compare-and-swap (:func:`compare_and_swap`, an LLVM ``cmpxchg``, since numba offers no CPU
atomics) sets ``parent[root]`` only while it still holds ``root``, and a union whose root
was hooked meanwhile finds the new roots and tries again. It costs a pass where every
vertex is a hook (a 1000 x 1000 grid) twice the time of plain stores, so
:mod:`.components` hooks by plain stores first and makes any lost join again by atomic
unions.
"""

from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def compare_and_swap(typingctx, array, index, expected, value):
    """``array[index] = value`` if ``array[index] == expected``, in one atomic step
    (sequentially consistent, as GCC's ``__sync`` builtins); True when it stored.
    ``index`` must lie in bounds (no check)."""
    dtype = array.dtype
    sig = types.boolean(array, index, dtype, dtype)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        holder = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, holder, [args[1]],
                                           wraparound=False)
        pair = builder.cmpxchg(pointer, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return sig, codegen


@njit(cache=True, inline="always")
def find(parent, x):
    """The root of ``x``, halving the path on the way (no store where the grandparent is
    the parent already: another thread may be reading that cache line)."""
    p = parent[x]
    while p != x:
        g = parent[p]
        if g != p:
            parent[x] = g
        x = g
        p = parent[x]
    return x


@njit(cache=True, inline="always")
def root(parent, x):
    """The root of ``x``, without a store: where paths are short already (after
    :func:`find` has halved them), faster than :func:`find` by a load and a branch a
    step."""
    p = parent[x]
    while p != parent[p]:
        p = parent[p]
    return p


@njit(cache=True, inline="always")
def union(parent, a, b, atomic=False):
    """Join the trees of ``a`` and ``b``; False when they are one tree already. With
    ``atomic=True`` other threads may find and join in ``parent`` meanwhile."""
    while True:
        a, b = find(parent, a), find(parent, b)
        if a == b:
            return False
        if a < b:
            a, b = b, a
        if not atomic:
            parent[a] = b
            return True
        if compare_and_swap(parent, a, a, b):
            return True


@njit(cache=True)
def flatten(parent):
    """Point every vertex at its root (``parent[v] <= v``: one sweep upwards suffices)."""
    for x in range(parent.size):
        parent[x] = parent[parent[x]]
