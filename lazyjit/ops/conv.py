"""Convolution and max-pooling as abstract ops (NCHW), with their gradients as ops too.

Five ops, each with a NumPy reference (the semantics, and the ``numpy`` backend) and
derivative rules written with these ops only, so derivatives compose to any order:

* ``conv2d(x, w)``: ``(N, C, H, W)`` and ``(O, C/G, KH, KW)`` -> ``(N, O, OH, OW)``, the
  cross-correlation of ``torch.nn.functional.conv2d`` / cuDNN (kernel not flipped);
* ``conv2d_grad_input(g, w)``: the adjoint in ``x`` (cuDNN's backward data), ``g`` of
  the output's shape -> the input's shape;
* ``conv2d_grad_weight(x, g)``: the adjoint in ``w`` (cuDNN's backward filter) -> the
  weight's shape.

The three are one bilinear form ``<g, conv2d(x, w)> = <x, conv2d_grad_input(g, w)> =
<w, conv2d_grad_weight(x, g)>``, so each one's VJP and JVP are the other two.

* ``max_pool2d(x, v)``: per window, the element of ``v`` at the first maximum of ``x``
  (row-major window order; a NaN counts as the maximum, as ``np.argmax``); the API
  builds ``max_pool2d(x, x)``.  ``x`` only selects, so it has no derivative;
* ``max_pool2d_grad(x, g)``: the adjoint in ``v``: each window's ``g`` added at the
  position that window selects.  Each is the other's derivative in its second operand.

Arguments are plain tuples (hashable, part of trace keys): a convolution's
``(stride, pads, dilation, groups)`` with ``stride = (sh, sw)``, ``pads = (top, bottom,
left, right)``, ``dilation = (dh, dw)``; the gradients append the size their shape rule
cannot infer (the input's ``(H, W)``, the kernel's ``(KH, KW)``).  A pooling's argument is
``(kernel, stride, pads, dilation)``.  Concrete implementations are chosen by each backend
at compile time (:mod:`lazyjit.backends.algorithms`).  Window ops of float16 operands
are computed in float32 and rounded to float16 (:func:`_tensor`).
"""
from __future__ import annotations

import numpy as np

from lazyjit.trace.constraints import equal_size, require
from lazyjit.trace.dims import Dim
from lazyjit.ops.registry import F, OpDef, apply, bilinear_jvp, register

CONV_OPS = ("conv2d", "conv2d_grad_input", "conv2d_grad_weight")
POOL_OPS = ("max_pool2d", "max_pool2d_grad")


def out_size(size: int, pad: tuple[int, int], k: int, s: int, d: int) -> int:
    """Output length of a window op along one axis (``ceil_mode=False``): ``(size + pads
    - d * (k - 1) - 1) // s + 1``; below 1 when the dilated kernel does not fit."""
    return (size + pad[0] + pad[1] - d * (k - 1) - 1) // s + 1


def _out_hw(hw, kernel, stride, pads, dilation) -> tuple[int, int]:
    return (out_size(hw[0], pads[:2], kernel[0], stride[0], dilation[0]),
            out_size(hw[1], pads[2:], kernel[1], stride[1], dilation[1]))


def window_views(xp: np.ndarray, kernel, stride, dilation, out) -> np.ndarray:
    """The windows of padded ``xp (N, C, Hp, Wp)`` as ``(N, C, KH, KW, OH, OW)`` (im2col)."""
    n, c = xp.shape[:2]
    cols = np.empty((n, c, kernel[0], kernel[1], out[0], out[1]), xp.dtype)
    for p in range(kernel[0]):
        for q in range(kernel[1]):
            cols[:, :, p, q] = xp[:, :, _sl(p, dilation[0], stride[0], out[0]),
                                  _sl(q, dilation[1], stride[1], out[1])]
    return cols


def _sl(p: int, d: int, s: int, n: int) -> slice:
    return slice(p * d, p * d + s * (n - 1) + 1, s)


def _pad(x: np.ndarray, pads, value=0) -> np.ndarray:
    t, b, le, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (le, r)), constant_values=value)


def _fold(cols: np.ndarray, hw, pads, stride, dilation) -> np.ndarray:
    """col2im: the adjoint of :func:`window_views` followed by the crop of the padding."""
    n, c, kh, kw, oh, ow = cols.shape
    t, b, le, r = pads
    xp = np.zeros((n, c, hw[0] + t + b, hw[1] + le + r), cols.dtype)
    for p in range(kh):
        for q in range(kw):
            xp[:, :, _sl(p, dilation[0], stride[0], oh),
               _sl(q, dilation[1], stride[1], ow)] += cols[:, :, p, q]
    return xp[:, :, t:t + hw[0], le:le + hw[1]]


# --- convolution ---------------------------------------------------------------------

def _columns(x, kernel, arg) -> np.ndarray:
    """``(N, G, C/G * KH * KW, OH * OW)`` column matrices of ``x``."""
    stride, pads, dilation, groups = arg[:4]
    out = _out_hw(x.shape[2:], kernel, stride, pads, dilation)
    cols = window_views(_pad(x, pads), kernel, stride, dilation, out)
    n, k = x.shape[0], x.shape[1] // groups * kernel[0] * kernel[1]
    return cols.reshape(n, groups, k, out[0] * out[1]), out  # (sizes given: n may be 0)


def conv2d_ref(x, w, arg) -> np.ndarray:
    groups = arg[3]
    o = w.shape[0]
    cols, out = _columns(x, w.shape[2:], arg)
    y = np.matmul(w.reshape(groups, o // groups, -1), cols)      # (N, G, O/G, L)
    return y.reshape(x.shape[0], o, *out)


def conv2d_grad_input_ref(g, w, arg) -> np.ndarray:
    stride, pads, dilation, groups, hw = arg
    n, o = g.shape[:2]
    og, cg = o // groups, w.shape[1]
    wt = w.reshape(groups, og, -1).transpose(0, 2, 1)            # (G, Cg*K, O/G)
    cols = np.matmul(wt, g.reshape(n, groups, og, g.shape[2] * g.shape[3]))  # (N, G, Cg*K, L)
    cols = cols.reshape(n, groups * cg, *w.shape[2:], *g.shape[2:])
    return _fold(cols, hw, pads, stride, dilation)


def conv2d_grad_weight_ref(x, g, arg) -> np.ndarray:
    groups, kernel = arg[3], arg[4]
    n, o = g.shape[:2]
    cols, _ = _columns(x, kernel, arg)
    gw = np.matmul(g.reshape(n, groups, o // groups, g.shape[2] * g.shape[3]),
                   cols.transpose(0, 1, 3, 2))
    return gw.sum(0, dtype=g.dtype).reshape(o, x.shape[1] // groups, *kernel)


def _check_conv(x_shape, w_shape, arg) -> tuple[int, int]:
    """The output ``(OH, OW)`` of ``conv2d`` on these shapes; ValueError if they do not fit."""
    stride, pads, dilation, groups = arg[:4]
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"expected a 4-d input and weight, got {x_shape} and {w_shape}")
    try:
        equal_size(x_shape[1], w_shape[1] * groups, "conv2d")
        if w_shape[0] % groups:
            raise ValueError
    except ValueError:
        raise ValueError(f"input channels {x_shape[1]} and output channels {w_shape[0]} do "
                         f"not match weight {w_shape} with groups={groups}") from None
    out = _out_hw(x_shape[2:], w_shape[2:], stride, pads, dilation)
    if not _fits(out, "conv2d"):
        raise ValueError(f"the dilated kernel {w_shape[2:]} is larger than the padded input")
    return out


def _fits(out: tuple, op: str) -> bool:
    """Whether the output sizes of a window op are at least 1 (for a symbolic size not
    known to be, a requirement checked at each call)."""
    for o in out:
        if type(o) is Dim:
            if o.bounds()[0] < 1:
                require("le", 1, o, op)
        elif o < 1:
            return False
    return True


def _same_dtype(srcs, arg):
    a, b = srcs
    if a.dtype != b.dtype or a.dtype.kind not in "fiu":
        raise TypeError(f"operands must be of one real, non-boolean dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    return a.dtype


def _conv_shape(srcs, arg):
    x, w = srcs
    return (x.shape[0], w.shape[0], *_check_conv(x.shape, w.shape, arg))


def _grad_input_shape(srcs, arg):
    g, w = srcs
    x_shape = (g.shape[0], w.shape[1] * arg[3], *arg[4])
    if _check_conv(x_shape, w.shape, arg) != tuple(g.shape[2:]) or g.shape[1] != w.shape[0]:
        raise ValueError(f"cotangent {g.shape} is not the output of an input {x_shape}")
    return x_shape


def _grad_weight_shape(srcs, arg):
    x, g = srcs
    w_shape = (g.shape[1], x.shape[1] // arg[3], *arg[4])
    if _check_conv(x.shape, w_shape, arg) != tuple(g.shape[2:]) or g.shape[0] != x.shape[0]:
        raise ValueError(f"cotangent {g.shape} is not the output of input {x.shape}")
    return w_shape


def _tensor(op: str, a, b, arg):
    """The window node ``op(a, b, arg)``; of float16 operands, the node of their float32
    casts, cast back to float16 (no backend sees a float16 window op: convolutions
    accumulate in float32, pooling selects exactly)."""
    if a.dtype == np.float16 and b.dtype == np.float16:
        f32 = np.dtype(np.float32)
        out = F.Tensor(apply(op, (F.astype(a, f32).node, F.astype(b, f32).node), arg))
        return F.astype(out, a.dtype)
    return F.Tensor(apply(op, (a.node, b.node), arg))


def conv(x, w, arg):
    """``conv2d(x, w)`` (Tensors) with the geometry ``arg`` (its first four entries)."""
    return _tensor("conv2d", x, w, tuple(arg[:4]))


def conv_grad_input(g, w, arg, hw):
    """``conv2d_grad_input(g, w)`` for an input of spatial size ``hw``."""
    return _tensor("conv2d_grad_input", g, w, (*arg[:4], tuple(hw)))


def conv_grad_weight(x, g, arg, kernel):
    """``conv2d_grad_weight(x, g)`` for a kernel of size ``kernel``."""
    return _tensor("conv2d_grad_weight", x, g, (*arg[:4], tuple(kernel)))


register(OpDef(
    "conv2d", "window", conv2d_ref, shape=_conv_shape, dtype=_same_dtype,
    vjp=lambda g, out, x, w, arg: (conv_grad_input(g, w, arg, x.shape[2:]),
                                   conv_grad_weight(x, g, arg, w.shape[2:])),
    jvp=bilinear_jvp(lambda x, w, arg: conv(x, w, arg)),
    doc="2-d cross-correlation, NCHW (torch.nn.functional.conv2d)"))
register(OpDef(
    "conv2d_grad_input", "window", conv2d_grad_input_ref, shape=_grad_input_shape,
    dtype=_same_dtype,
    vjp=lambda c, out, g, w, arg: (conv(c, w, arg), conv_grad_weight(c, g, arg, w.shape[2:])),
    jvp=bilinear_jvp(lambda g, w, arg: conv_grad_input(g, w, arg, arg[4])),
    doc="the adjoint of conv2d in its input (cuDNN's backward data)"))
register(OpDef(
    "conv2d_grad_weight", "window", conv2d_grad_weight_ref, shape=_grad_weight_shape,
    dtype=_same_dtype,
    vjp=lambda c, out, x, g, arg: (conv_grad_input(g, c, arg, x.shape[2:]), conv(x, c, arg)),
    jvp=bilinear_jvp(lambda x, g, arg: conv_grad_weight(x, g, arg, arg[4])),
    doc="the adjoint of conv2d in its weight (cuDNN's backward filter)"))


# --- max pooling -----------------------------------------------------------------------

def _selected(x, arg) -> tuple[np.ndarray, tuple[int, int]]:
    """Per window of ``x``, the flat index into the padded plane of its first maximum
    (NaN first, as ``np.argmax``; padding never selected): ``(N, C, OH, OW)`` int64."""
    kernel, stride, pads, dilation = arg
    out = _out_hw(x.shape[2:], kernel, stride, pads, dilation)
    valid = window_views(_pad(np.ones((1, 1) + x.shape[2:], bool), pads, False),
                         kernel, stride, dilation, out)
    xw = window_views(_pad(x, pads), kernel, stride, dilation, out)
    n, c, kh, kw, oh, ow = xw.shape
    xw, valid = xw.reshape(n, c, kh * kw, oh, ow), valid.reshape(1, 1, kh * kw, oh, ow)
    if x.dtype.kind == "f":
        top = np.where(valid, xw, -np.inf).max(axis=2, keepdims=True)
        hit = valid & ((xw == top) | (np.isnan(top) & np.isnan(xw)))
    else:
        low = False if x.dtype.kind == "b" else np.iinfo(x.dtype).min
        hit = valid & (xw == np.where(valid, xw, low).max(axis=2, keepdims=True))
    k = hit.argmax(axis=2)                                        # (N, C, OH, OW)
    p, q = k // kw, k % kw
    rows = p * dilation[0] + np.arange(oh)[:, None] * stride[0]
    cols = q * dilation[1] + np.arange(ow)[None, :] * stride[1]
    return rows * (x.shape[3] + pads[2] + pads[3]) + cols, out


def max_pool2d_ref(x, v, arg) -> np.ndarray:
    idx, _ = _selected(x, arg)
    vp = _pad(v, arg[2])
    vp = vp.reshape(v.shape[0], v.shape[1], vp.shape[2] * vp.shape[3])
    flat = idx.reshape(idx.shape[0], idx.shape[1], idx.shape[2] * idx.shape[3])
    return np.take_along_axis(vp, flat, 2).reshape(idx.shape)


def max_pool2d_grad_ref(x, g, arg) -> np.ndarray:
    idx, _ = _selected(x, arg)
    pads = arg[2]
    n, c, h, w = x.shape
    hp, wp = h + pads[0] + pads[1], w + pads[2] + pads[3]
    flat = np.zeros((n * c, hp * wp), g.dtype)
    planes = np.arange(n * c)[:, None]
    k = idx.shape[2] * idx.shape[3]
    np.add.at(flat, (planes, idx.reshape(n * c, k)), g.reshape(n * c, k))
    return flat.reshape(n, c, hp, wp)[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


def _pool_out(x_shape, arg) -> tuple[int, int]:
    kernel, stride, pads, dilation = arg
    if len(x_shape) != 4:
        raise ValueError(f"expected a 4-d input, got {x_shape}")
    if pads[0] > kernel[0] // 2 or pads[2] > kernel[1] // 2:
        raise ValueError(f"padding {pads} exceeds half the kernel {kernel}")
    out = _out_hw(x_shape[2:], kernel, stride, pads, dilation)
    if not _fits(out, "max_pool2d"):
        raise ValueError(f"the dilated kernel {kernel} is larger than the padded input")
    return out


def _pool_shape(srcs, arg):
    x, v = srcs
    if x.shape != v.shape:
        raise ValueError(f"selector {x.shape} and values {v.shape} differ in shape")
    return (*x.shape[:2], *_pool_out(x.shape, arg))


def _pool_grad_shape(srcs, arg):
    x, g = srcs
    if tuple(g.shape) != (*x.shape[:2], *_pool_out(x.shape, arg)):
        raise ValueError(f"cotangent {g.shape} is not the pooled shape of {x.shape}")
    return x.shape


def pool(x, v, arg, op: str = "max_pool2d"):
    """``max_pool2d(x, v)`` (Tensors); ``max_pool2d_grad(x, v)`` with that ``op``."""
    return _tensor(op, x, v, arg)


def pool_grad(x, g, arg):
    return pool(x, g, arg, "max_pool2d_grad")


def _selection(name, ref, shape, this, adjoint, doc) -> OpDef:
    """A max-pooling op: linear in its second operand, which ``x`` (the first, with no
    derivative) routes; the VJP is the ``adjoint`` op, the JVP the op itself."""
    return OpDef(name, "window", ref, shape=shape, dtype=lambda srcs, arg: srcs[1].dtype,
                 vjp=lambda g, out, x, v, arg: (None, adjoint(x, g, arg)),
                 jvp=lambda ts, out, x, v, arg: None if ts[1] is None else this(x, ts[1], arg),
                 doc=doc)


register(_selection("max_pool2d", max_pool2d_ref, _pool_shape, pool, pool_grad,
                    "per window, v at the first maximum of x (torch's max_pool2d)"))
register(_selection("max_pool2d_grad", max_pool2d_grad_ref, _pool_grad_shape, pool_grad, pool,
                    "each window's g added where max_pool2d(x, .) selects"))
