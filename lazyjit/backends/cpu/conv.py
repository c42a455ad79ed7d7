"""Window ops on the ``cpu`` backend: the concrete implementations of convolutions and
max-pooling (:mod:`lazyjit.ops.conv`), one C kernel per node.

Each convolution op (forward, backward data, backward filter) has two implementations;
:func:`lazyjit.backends.algorithms.choose` picks one per shape (``conv_algo`` flag):

* ``gemm``: im2col + GEMM per (sample, group) through BLAS (the ``lj_sgemm`` /
  ``lj_dgemm`` pointers of every module, NumPy's OpenBLAS): forward ``y_n = W @
  cols(x_n)``; backward data ``x_n = col2im(W^T @ g_n)``; backward filter ``dW += g_n @
  cols(x_n)^T``.  Small images go in chunks of samples, one GEMM per chunk (through a
  staging copy of the chunk's output or cotangent rows).  Chunks are spread over
  OpenMP threads, each with its own column buffer (a workspace buffer of the plan,
  sized to stay in cache) and one BLAS thread; backward filter sums per-thread partial
  weights at the end.  1x1 convolutions with stride 1 and no padding use the input as
  its column matrix.
* ``direct``: plain loops over output planes (forward), input planes (backward data) or
  weights (backward filter; float32 sums in double across samples).  With stride 1
  each plane is laid out on a zero-padded grid, where every kernel position is one long
  vectorized loop over the plane; other strides loop along rows.  Any real dtype; the
  guess for integers and one output channel per group (depthwise, ``avg_pool2d``).

Max-pooling kernels recompute each window's first maximum (no index buffer): forward
reads the selected value, backward adds the cotangent there, one pass per plane.

Geometry travels in the parameter table as 16 consecutive int64 read through a struct
(``lj_win_t``), so the source does not depend on any size.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.backends import algorithms
from lazyjit.backends.cfamily import ctype, literal
from lazyjit.backends.cpu import kernels as K
from lazyjit.ops import REGISTRY
from lazyjit.ops.conv import CONV_OPS
from lazyjit.schedule import ir
from lazyjit.schedule.views import View
from lazyjit.schedule.window import WindowPlan, conv_shapes, shapes
from lazyjit.trace.node import Node

# a kernel may use K.MAX_THREADS threads: one column buffer each, fewer when their
# buffers would pass WORKSPACE_BYTES (then BLAS may thread each GEMM)
WORKSPACE_BYTES = 1 << 26
# the gemm implementation multiplies chunks of samples at once when images are small:
# up to this many columns per GEMM, the chunk's matrices within this many bytes
GEMM_COLUMNS = 1024
CHUNK_BYTES = 1 << 18

def _instance(header: str, guard: str, **params: str) -> str:
    """The C text instantiating the type-generic ``native/<header>`` in a module: its
    parameters defined as ``LJ_<name>`` macros (here ``$`` placeholders that
    :func:`_helper` fills in per dtype), under an include guard keyed by them."""
    defines = "".join(f"#define LJ_{name} {value}\n" for name, value in params.items())
    return f'#ifndef {guard}\n#define {guard}\n{defines}#include "{header}"\n#endif\n'


# The C helpers are type-generic headers in native/ (each says what it does and what its
# parameters are); these texts include them, each once per dtype in a module.
_BASE = '#include "lazyjit_conv.h"\n'  # lj_win_t, lj_span, lj_max_threads, lj_thread
# im2col / col2im of Cg channels of one sample; GEMM through BLAS, or loops without it
_GEMM = _instance("lazyjit_conv_gemm.h", "LJ_HAVE_CONV_GEMM_$S", T="$T", S="$S",
                  BLAS="$BLAS", MTMIN="$MTMIN")
# direct loops; the innermost loop runs along an output (or input) row
_DIRECT = _instance("lazyjit_conv_direct.h", "LJ_HAVE_CONV_DIRECT_$S", T="$T", S="$S",
                    A="$A")
# direct loops for stride 1 on the zero-padded grid: one long loop per kernel position
_GRID = _instance("lazyjit_conv_grid.h", "LJ_HAVE_CONV_GRID_$S", T="$T", S="$S", A="$A")
# max pooling, one plane per call, by rows ($X is x's type, $T that of the values or
# cotangents)
_POOL = _instance("lazyjit_pool.h", "LJ_HAVE_MAXPOOL_$XS_$S", X="$X", XS="$XS", T="$T",
                  S="$S")


def _helper(mod: K.Module, code: str, **subst: str) -> None:
    """Add a C helper to the module once (keyed by its text after substitution)."""
    for k, v in sorted(subst.items(), key=lambda kv: -len(kv[0])):
        code = code.replace("$" + k, v)
    mod.helpers.setdefault(code, None)


def _types(dtype: np.dtype) -> dict[str, str]:
    dtype = np.dtype(dtype)
    acc = "double" if dtype == np.float32 else ctype(dtype)
    blas = {"float32": "lj_sgemm", "float64": "lj_dgemm"}.get(dtype.name, "0")
    return {"T": ctype(dtype), "S": dtype.name, "A": acc, "BLAS": blas,
            "MTMIN": f"{K.BLAS_MT_MIN:.1f}"}


def _geometry(mod: K.Module, x_shape, w_shape, y_shape, arg) -> str:
    """The ``lj_win_t`` of a window op, as 16 consecutive parameters."""
    stride, pads, dilation, groups = arg[:4]
    first = len(mod.params)
    n, c, h, w = x_shape
    for v in (n, c, h, w, w_shape[0], w_shape[2], w_shape[3], y_shape[2], y_shape[3],
              stride[0], stride[1], pads[0], pads[2], dilation[0], dilation[1], groups):
        mod.p(v)
    return f"(const lj_win_t*)(P + {first})"


def _ptr(mod: K.Module, v: View, const: bool = True) -> str:
    T = ctype(v.dtype)
    q = "const " if const else ""
    return f"({q}{T}*)B[{v.slot}] + {mod.p(v.offset)}"


def _flops(x, w, y) -> int:
    """Multiply-adds of a convolution of input, weight and output shapes ``x, w, y``."""
    return math.prod(y) * math.prod(w[1:])


def _chunk(n: Node) -> int:
    """Samples per GEMM of the gemm implementation: enough for ``GEMM_COLUMNS`` columns
    when images are small, as long as the chunk's column matrix stays within
    ``CHUNK_BYTES`` (so it is still in cache for the GEMM)."""
    x, w, y = shapes(n)
    L, cg_k = y[2] * y[3], math.prod(w[1:])
    fit = CHUNK_BYTES // max(1, (cg_k + w[0]) * L * n.dtype.itemsize)
    return max(1, min(x[0], -(-GEMM_COLUMNS // max(L, 1)), fit))


def _threads(n: Node, per_thread: int) -> int:
    """Threads that may run with a scratch part of ``per_thread`` elements each: all
    cores, fewer when their parts would pass ``WORKSPACE_BYTES`` (large images)."""
    fit = WORKSPACE_BYTES // max(1, per_thread * n.dtype.itemsize)
    return max(1, min(K.MAX_THREADS, fit))


def candidates(n: Node) -> list[str]:
    """The implementations that apply to convolution node ``n`` (GEMM: floats only)."""
    return ["gemm", "direct"] if n.dtype.kind == "f" else ["direct"]


def guess(n: Node) -> str:
    """The heuristic (``guess_once``): direct loops for integers and for convolutions
    with one output channel per group (depthwise, ``avg_pool2d``: each GEMM would be a
    vector product; direct measured 1.3-2.7x faster); im2col + GEMM otherwise (measured
    2.5-10x faster, even for 3x3 kernels on one input channel)."""
    x, w, y = shapes(n)
    return "direct" if n.dtype.kind != "f" or w[0] == n.arg[3] else "gemm"


def plan(n: Node, timer, forced: str | None = None) -> WindowPlan:
    """This backend's implementation of window node ``n`` and the scratch it needs:
    ``forced``, or the one :func:`lazyjit.backends.algorithms.choose` picks (``timer``
    times a candidate for the ``time_once`` policy)."""
    if n.op not in CONV_OPS:
        return WindowPlan()
    name = forced or algorithms.choose("cpu", n, candidates(n), guess, timer)
    x, w, y = shapes(n)
    if name == "gemm":  # per thread: the chunk's column matrix and its staging matrix
        cg_k, L, cs = math.prod(w[1:]), y[2] * y[3], _chunk(n)
        og = w[0] // n.arg[3]
        per = (cg_k + (og if cs > 1 else 0)) * cs * L
        # and a partial weight gradient per thread but the first
        return WindowPlan(name, per, (K.MAX_THREADS - 1) * w[0] * cg_k, _threads(n, per), cs)
    if n.arg[0] == (1, 1):  # stride 1: long loops over whole planes on the padded grid
        dil = n.arg[2]
        wp, hp = y[3] + dil[1] * (w[3] - 1), y[2] + dil[0] * (w[2] - 1)
        per = (hp + 1) * wp + y[2] * wp
        return WindowPlan("grid", per, 0, _threads(n, per))
    return WindowPlan(name)


def _render_gemm(mod: K.Module, k: ir.Window) -> None:
    x, w, y = conv_shapes(k.op, k.a.shape, k.b.shape, k.dst.shape)
    t = _types(k.dst.dtype)
    _helper(mod, _BASE)
    _helper(mod, _GEMM, **t)
    mode = CONV_OPS.index(k.op)
    mod.add([f"  lj_conv_gemm_{t['S']}({mode}, {_geometry(mod, x, w, y, k.arg)}, "
             f"{_ptr(mod, k.a)}, {_ptr(mod, k.b)}, {_ptr(mod, k.dst, False)}, "
             f"{_ptr(mod, k.scratch, False)}, {mod.p(k.chunk)}, {mod.p(k.threads)}, "
             f"!P[0] && {mod.p(_flops(x, w, y))} > {mod.par_min}, (int)P[0]);"])


def _render_direct(mod: K.Module, k: ir.Window) -> None:
    """Direct loops (``algo`` ``direct``), on the zero-padded grid for stride 1 (``grid``,
    whose planes live in the scratch buffer)."""
    x, w, y = conv_shapes(k.op, k.a.shape, k.b.shape, k.dst.shape)
    t = _types(k.dst.dtype)
    _helper(mod, _BASE)
    flops = f"!P[0] && {{}} > {mod.par_min}"
    if k.algo == "grid":
        _helper(mod, _GRID, **t)
        mod.add([f"  lj_conv_grid_{t['S']}({CONV_OPS.index(k.op)}, "
                 f"{_geometry(mod, x, w, y, k.arg)}, {_ptr(mod, k.a)}, {_ptr(mod, k.b)}, "
                 f"{_ptr(mod, k.dst, False)}, {_ptr(mod, k.scratch, False)}, "
                 f"(int){mod.p(k.threads)}, {flops.format(mod.p(_flops(x, w, y)))});"])
        return
    _helper(mod, _DIRECT, **t)
    call = {"conv2d": "lj_conv_direct_{}(0, ", "conv2d_grad_input": "lj_conv_direct_{}(1, ",
            "conv2d_grad_weight": "lj_conv_direct_gw_{}("}[k.op].format(t["S"])
    mod.add([f"  {call}{_geometry(mod, x, w, y, k.arg)}, {_ptr(mod, k.a)}, "
             f"{_ptr(mod, k.b)}, {_ptr(mod, k.dst, False)}, "
             f"{flops.format(mod.p(_flops(x, w, y)))});"])


def _render_pool(mod: K.Module, k: ir.Window) -> None:
    x, v = k.a, k.b
    tx, tv = _types(x.dtype), _types(v.dtype)
    _helper(mod, _BASE)
    names = dict(X=tx["T"], XS=tx["S"], T=tv["T"], S=tv["S"])
    _helper(mod, _POOL, **names)
    kernel, stride, pads, dilation = k.arg
    geom = _geometry(mod, x.shape, (0, 0, *kernel), k.dst.shape if k.op == "max_pool2d"
                     else v.shape, (stride, pads, dilation, 1))
    mode = 2 if k.op == "max_pool2d_grad" else 0 if k.same_src else 1
    dt = x.dtype
    lowest = REGISTRY["max"].identity(dt)  # (each window's first maximum starts there)
    planes = math.prod(x.shape[:2])
    mod.add([], K.Parallel(mod.p(math.prod(x.shape)), mod.p(planes), [
        f"lj_maxpool_{tx['S']}_{tv['S']}({geom}, {_ptr(mod, x)}, {_ptr(mod, v)}, "
        f"{_ptr(mod, k.dst, False)}, {mode}, {literal(lowest, dt)}, w);"]))


def render(mod: K.Module, k: ir.Window) -> None:
    """The kernel of a window record."""
    if k.algo is None:
        _render_pool(mod, k)
    elif k.algo == "gemm":
        _render_gemm(mod, k)
    else:
        _render_direct(mod, k)
