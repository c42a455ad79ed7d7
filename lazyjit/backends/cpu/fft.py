"""The cpu kernel of the ``fft`` op (:mod:`lazyjit.ops.fft`): a call back into Python,
where NumPy's pocketfft computes the transform on the module's own buffers (no copy).

The callback is one cffi function pointer, an entry of the table of native functions
each module is given when loaded (:mod:`lazyjit.backends.cpu.table`), so a module from
the disk cache finds it too.  The generated code passes
the transform (kind, norm and length as small integers), the number of rows, the
lengths in and out, the dtypes and the two pointers; the callback reads them as NumPy
arrays over that memory, as the ``ir`` backend's views are.  The GIL is taken for the
call (the compiled module runs without it).  A failure returns -1, and the program
fails with the step's message (never a made-up result).
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.backends.cfamily import ctype
from lazyjit.backends.cpu._ffi import ffi as _ffi
from lazyjit.backends.cpu import kernels as K
from lazyjit.backends.cpu.table import SLOT
from lazyjit.ops import REGISTRY
from lazyjit.ops.fft import FFT_KINDS, NORMS
from lazyjit.schedule import ir

DTYPES = tuple(np.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))
SIGNATURE = "int(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, " \
    "int64_t, void*, void*)"


def _array(ptr, dtype: np.dtype, outer: int, n: int, inner: int) -> np.ndarray:
    nbytes = outer * n * inner * dtype.itemsize
    return np.frombuffer(_ffi.buffer(_ffi.cast("char*", ptr), nbytes), dtype).reshape(
        outer, n, inner)


@_ffi.callback(SIGNATURE, error=-1)
def _host_fft(kind, norm, n, outer, n_in, n_out, inner, dt_in, dt_out, a, dst):
    x = _array(a, DTYPES[dt_in], outer, n_in, inner)
    out = _array(dst, DTYPES[dt_out], outer, n_out, inner)
    REGISTRY["fft"].ref(x, (FFT_KINDS[kind], NORMS[norm], n if n > 0 else None, 1), out)
    return 0


def callback_address() -> int:
    """The address of the callback, for the modules' table of host functions."""
    return int(_ffi.cast("uintptr_t", _host_fft))


def render(mod: K.Module, k: ir.FFT) -> None:
    """The kernel of one FFT step: the callback (the table's ``fft`` entry) on its
    operands; its failure, or a module loaded without it, fails the call with the step's
    message."""
    slot = SLOT["fft"]
    kind, norm, n, axis = k.arg
    a, dst = k.a, k.dst  # (contiguous: outer x length x inner)
    args = [str(FFT_KINDS.index(kind)), str(NORMS.index(norm)), mod.p(n or 0),
            mod.p(math.prod(a.shape[:axis])), mod.p(a.shape[axis]), mod.p(dst.shape[axis]),
            mod.p(math.prod(a.shape[axis + 1:])),
            str(DTYPES.index(a.dtype)), str(DTYPES.index(dst.dtype)),
            f"(void*)((const {ctype(a.dtype)}*)B[{a.slot}] + {mod.p(a.offset)})",
            f"(void*)(({ctype(dst.dtype)}*)B[{dst.slot}] + {mod.p(dst.offset)})"]
    sig = SIGNATURE.replace("int(", "int (*)(", 1)
    mod.add([f"  if (!lj_lapack[{slot}]) return {3 + k.code};",
             f"  return (({sig})lj_lapack[{slot}])({', '.join(args)}) ? {3 + k.code} : 0;"])
