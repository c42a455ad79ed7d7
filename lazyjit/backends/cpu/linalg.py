"""The cpu kernels of the linalg ops (:mod:`lazyjit.ops.linalg`): calls of the LAPACK
that NumPy ships, through the type-generic helpers of ``native/lazyjit_linalg.h``.

The LAPACKE pointers are a table each module is given when loaded
(:func:`lazyjit.backends.cpu.compiler.lapack_pointers`); a missing one fails the call
with a message naming the library, never computes something else.  The matrices of a
batch are factored one after the other (LAPACK itself uses OpenBLAS's threads).
"""
from __future__ import annotations

import math

from lazyjit.backends.cfamily import ctype
from lazyjit.backends.cpu import kernels as K
from lazyjit.backends.cpu.table import SLOT
from lazyjit.schedule import ir

# per dtype: (LAPACK prefix, first table entry, real type, complex |.|, complex type and
# its maker)
_PREFIX = {dtype: (p, SLOT[p + "potrf"], real, cabs, ctype_, make)
           for dtype, p, real, cabs, ctype_, make in (
               ("float32", "s", "float", "", "lj_cfloat", "lj_complexf"),
               ("float64", "d", "double", "", "lj_cdouble", "lj_complex"),
               ("complex64", "c", "float", "cabsf", "lj_cfloat", "lj_complexf"),
               ("complex128", "z", "double", "cabs", "lj_cdouble", "lj_complex"))}
_HELPER = r"""#ifndef LJ_HAVE_LINALG_$P
#define LJ_HAVE_LINALG_$P
#define LJ_T $T
#define LJ_R $R
#define LJ_P $P
#define LJ_BASE $BASE
#define LJ_C $C
#define lj_complex_la $MAKE
$COMPLEX#include "lazyjit_linalg.h"
#undef LJ_T
#undef LJ_R
#undef LJ_P
#undef LJ_BASE
#undef LJ_C
#undef lj_complex_la
#undef LJ_COMPLEX_LA
#undef LJ_ABS
#endif
"""
_MODES = {"reduced": 0, "complete": 1, "values": 2, "vectors": 0}


def render(mod: K.Module, k: ir.Linalg) -> None:
    """The kernel of one linalg step: the helper's call, its status mapped to the
    program's error numbers (``3 + code``: LAPACK failed, ``4 + code``: no LAPACK)."""
    a, b, dst = k.a, k.b, k.dst
    T, D = ctype(a.dtype), ctype(dst.dtype)  # (eig: a real input, a complex result)
    prefix, base, real, cabs, complex_t, make = _PREFIX[a.dtype.name]
    extra = f"#define LJ_COMPLEX_LA 1\n#define LJ_ABS {cabs}\n" if cabs else ""
    mod.helpers.setdefault(_HELPER.replace("$P", prefix).replace("$T", T).replace(
        "$BASE", str(base)).replace("$R", real).replace("$COMPLEX", extra).replace(
        "$C", complex_t).replace("$MAKE", make), None)
    m, n = a.shape[-2:]
    batch = math.prod(a.shape[:-2])
    args = [f"(const {T}*)B[{a.slot}] + {mod.p(a.offset)}"]
    if b is not None:
        args.append(f"(const {T}*)B[{b.slot}] + {mod.p(b.offset)}")
    args += [f"({D}*)B[{dst.slot}] + {mod.p(dst.offset)}", mod.p(batch), mod.p(m)]
    if k.op == "solve":
        args.append(mod.p(b.shape[-1]))
    elif k.op in ("svd", "qr"):
        args += [mod.p(n), str(_MODES[k.arg])]
    elif k.op == "eig":
        args.append(str(_MODES[k.arg]))
    mod.add([f"  int rc = lj_la_{k.op}_{prefix}({', '.join(args)});",
             f"  return rc == LJ_LA_FAIL ? {3 + k.code} : rc == LJ_LA_NOMEM ? 2 : "
             f"rc == LJ_LA_NOLAPACK ? {4 + k.code} : 0;"])
