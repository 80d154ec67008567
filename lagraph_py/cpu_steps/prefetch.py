"""A software prefetch for the compiled loops: :func:`prefetch` asks the processor to bring
an array's item into its caches and goes on without waiting for it (LLVM's
``llvm.prefetch``: a read, kept in every cache level; a hint, which never faults).

A loop whose loads depend on the loads before it (a BFS level reads a frontier vertex, then
its row pointers, then its row) waits on memory once per step; a pass that only asks for
those loads, before the loop, lets the memory system fetch many of them at once.

Examples
--------
>>> import numpy as np
>>> from numba import njit
>>> @njit
... def total(a, order):
...     for i in range(order.size):
...         prefetch(a, order[i])
...     s = 0
...     for i in range(order.size):
...         s += a[order[i]]
...     return s
>>> total(np.arange(100), np.arange(99, -1, -1))
4950
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch ``array[index]`` (a 1-D array, an integer index below its size: not
    checked)."""
    if not (isinstance(array, types.Array) and array.ndim == 1
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        arr = context.make_array(array_type)(context, builder, args[0])
        at = context.cast(builder, args[1], index_type, types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, arr, [at],
                                           wraparound=False, boundscheck=False)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [_I8P, _I32, _I32, _I32]),
            "llvm.prefetch.p0i8")
        # (a read, locality 3: kept in every cache level, the data cache)
        builder.call(function, [builder.bitcast(pointer, _I8P), ir.Constant(_I32, 0),
                                ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen
