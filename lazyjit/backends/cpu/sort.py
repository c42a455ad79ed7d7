"""The cpu kernel of ``argsort`` (:mod:`lazyjit.ops.sort`): a stable bottom-up merge
sort of each row's indices by its keys, rows spread over threads.

The keys are read through the indices (no copy of the rows); ties keep their order
(the merge takes from the right run only when strictly before), NaN sorts last in both
directions.  O(n log n) per row, one scratch array of ``n`` indices per thread, all
allocated before the parallel region (a failed allocation returns error 2:
``MemoryError``).
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.backends.cfamily import ctype, load_expr
from lazyjit.backends.cpu import kernels as K
from lazyjit.schedule import ir

# the helper is the type-generic native/lazyjit_sort.h, included once per key dtype and
# direction in a module
_HELPER = r"""#ifndef LJ_HAVE_ARGSORT_$NAME
#define LJ_HAVE_ARGSORT_$NAME
#define LJ_T $T
#define LJ_S $NAME
#define LJ_BEFORE(u, v) ($BEFORE)
#include "lazyjit_sort.h"
#endif
"""


def _before(dtype: np.dtype, descending: bool) -> str:
    """C test that key ``u`` goes strictly before key ``v`` (float16 keys compared as
    floats: exact)."""
    u, v = load_expr("u", dtype), load_expr("v", dtype)
    cmp = f"{u} > {v}" if descending else f"{u} < {v}"
    if dtype.kind == "f":
        return f"({cmp}) || ({v} != {v} && {u} == {u})"
    return cmp


def render(mod: K.Module, k: ir.Sort) -> None:
    """The kernel of ``argsort`` over the last axis of the contiguous ``k.src``."""
    x, dst = k.src, k.dst
    rows, length = math.prod(dst.shape[:-1]), dst.shape[-1]
    T = ctype(x.dtype)
    name = f"{x.dtype.name}_{'d' if k.descending else 'a'}"
    code = _HELPER.replace("$NAME", name).replace("$T", T).replace(
        "$BEFORE", _before(x.dtype, k.descending))
    mod.helpers.setdefault(code, None)
    mod.add([
        f"  const {T}* keys = (const {T}*)B[{x.slot}] + {mod.p(x.offset)};",
        f"  int64_t* out = (int64_t*)B[{dst.slot}] + {mod.p(dst.offset)};",
        f"  const int64_t rows = {mod.p(rows)}, n = {mod.p(length)};",
        "  int nt = 1;",
        "#ifdef _OPENMP",
        "  nt = omp_get_max_threads();",
        "#endif",
        "  int64_t* tmp = (int64_t*)malloc((size_t)nt * (size_t)n * sizeof(int64_t));",
        "  if (!tmp) return 2;",  # scratch for every thread, allocated before the region
        f"  #pragma omp parallel if(!P[0] && rows > 1 && rows * n > {mod.par_min})",
        "  {",
        "    int t = 0;",
        "#ifdef _OPENMP",
        "    t = omp_get_thread_num();",
        "#endif",
        "    #pragma omp for schedule(static)",
        "    for (int64_t r = 0; r < rows; r++)",
        f"      lj_argsort_{name}(keys + r * n, n, out + r * n, tmp + (int64_t)t * n);",
        "  }",
        "  free(tmp);"])
