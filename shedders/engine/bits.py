"""Bit tricks the kernels share: a set of ranks as the bits of an int64, walked lowest first."""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zeros (one instruction, ``tzcnt``/``bsf``), for an int64 that is not 0."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], signature.args[0], types.int64)
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [v, ir.Constant(ir.IntType(1), 1)])

    return types.int64(x), codegen


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def lowest_bit_nb(x):
    """The index of the lowest set bit of ``x`` (``x`` > 0): the smallest member of a set of small integers."""
    return _cttz(x)
