"""Numba's compiler where it is installed (perfcompose's ``numba`` extra), plain Python where it is
not. The kernels written for Numba (PAMELA's event loop, the heaps, the LogGP kernels where the C
extension is not built, the Gaussian elimination study's operations, the reference tasks) take
:func:`njit` from here, so that without Numba the very same functions run as Python: slower, with
the same results. :func:`prefetch`, the one Numba intrinsic they use (a cache hint), does nothing
there.

>>> @njit(cache=True)
... def twice(x):
...     return 2 * x
>>> int(twice(21))
42
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import numba
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    #: whether Numba compiles the kernels in this process
    HAVE_NUMBA = True
except ImportError:  # the numba extra is not installed: the kernels run as Python
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "njit", "prefetch"]


def _same(function: Callable[..., Any]) -> Callable[..., Any]:
    return function


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` where Numba is installed; otherwise the function unchanged, whether written
    ``@njit`` or ``@njit(cache=True, ...)`` (the options are Numba's and mean nothing to Python)."""
    if HAVE_NUMBA:
        return numba.njit(*args, **options)
    if len(args) == 1 and callable(args[0]) and not options:
        return args[0]
    return _same


def _no_prefetch(arr: Any, idx: Any) -> None:
    """Without Numba the hint has nothing to tell: Python's own work per element dwarfs a cache miss."""


prefetch: Any = _no_prefetch
if HAVE_NUMBA:

    @intrinsic
    def _prefetch(typingctx, arr, idx):  # pragma: no cover - compiled
        """Fetch the cache line of ``arr[idx]`` (a 1-d array, a non-negative index) ahead of its use,
        as C's ``__builtin_prefetch``: a hint, with no effect on results."""
        sig = types.void(arr, idx)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                                "llvm.prefetch.p0")
            builder.call(fn, [builder.bitcast(builder.gep(ary.data, [args[1]]), i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return sig, codegen

    prefetch = _prefetch
