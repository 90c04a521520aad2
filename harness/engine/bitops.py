"""Bit-twiddling intrinsics for numba kernels (LLVM ctpop / cttz on uint64).

numba has no builtin popcount; the LLVM intrinsics compile to single POPCNT /
TZCNT instructions on the host CPU, which the bit-parallel BFS relies on.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _unary_i64(name: str, extra_false_flag: bool):
    @intrinsic
    def _impl(typingctx, x):
        if not isinstance(x, types.Integer):
            return None
        sig = types.uint64(x)

        def codegen(context, builder, signature, args):
            value = context.cast(builder, args[0], signature.args[0], types.uint64)
            i64 = ir.IntType(64)
            if extra_false_flag:
                fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
                fn = cgutils.get_or_insert_function(builder.module, fnty, name)
                return builder.call(fn, [value, ir.Constant(ir.IntType(1), 0)])
            fnty = ir.FunctionType(i64, [i64])
            fn = cgutils.get_or_insert_function(builder.module, fnty, name)
            return builder.call(fn, [value])

        return sig, codegen

    return _impl


popcount64 = _unary_i64("llvm.ctpop.i64", extra_false_flag=False)
popcount64.__doc__ = "Number of set bits of a 64-bit integer (numba only)."

trailing_zeros64 = _unary_i64("llvm.cttz.i64", extra_false_flag=True)
trailing_zeros64.__doc__ = "Index of the lowest set bit of a non-zero 64-bit integer (numba only)."
