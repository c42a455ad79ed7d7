"""Convolution and pooling with ``torch.nn.functional``'s semantics, recorded as abstract
ops (:mod:`lazyjit.ops.conv`).

Layout is NCHW throughout: inputs ``(N, C, H, W)``, weights ``(O, C // groups, KH, KW)``.
``conv2d`` is a cross-correlation (the kernel is not flipped), as in
``torch.nn.functional.conv2d`` and cuDNN.

``conv2d`` records one ``conv2d`` node; its gradients are ``conv2d_grad_input`` and
``conv2d_grad_weight`` nodes (cuDNN's backward data and backward filter), whose own
derivatives are the three ops again, so ``lj.grad``, ``lj.jvp`` and their compositions
work to any order.  Each backend replaces these abstract ops by a concrete
implementation when it compiles: the ``numpy`` backend runs the NumPy references; ``cpu``
chooses per shape between im2col + GEMM (BLAS) and direct loops, as the ``conv_algo``
flag says (``guess_once``: a heuristic; ``time_once``: time both on the first compile of a
shape; or ``gemm`` / ``direct``; see :mod:`lazyjit.backends.algorithms`).
``max_pool2d`` is the ``max_pool2d`` op (backward: ``max_pool2d_grad``, one pass that adds
each window's cotangent at its maximum); ``avg_pool2d`` is a depthwise ``conv2d`` with
constant weights ``1 / (KH * KW)``.

Output sizes (``ceil_mode=False``, as torch's default)::

    OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) // stride_h + 1

and the same for ``OW``.
"""
from __future__ import annotations

import math

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api.scan import scan
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.nn.activations import elu, gelu, leaky_relu, log_sigmoid, one_hot, silu, topk
from lazyjit.nn.basic import batch_norm, cross_entropy, dropout, embedding
from lazyjit.ops.conv import conv, pool
from lazyjit.trace.dims import Dim

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "lstm_cell", "lstm", "dropout", "batch_norm",
           "embedding", "cross_entropy", "gelu", "silu", "leaky_relu", "elu", "log_sigmoid",
           "one_hot", "topk"]


# argument helpers
# ---------------------------------------------------------------------------------------

def _pair(op: str, name: str, value, minimum: int, srcs: tuple) -> tuple[int, int]:
    """An int or a pair of ints, each >= ``minimum``, as a pair."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        pair = (int(value), int(value))
    elif (isinstance(value, (tuple, list)) and len(value) == 2
          and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                  for v in value)):
        pair = (int(value[0]), int(value[1]))
    else:
        raise op_error(op, f"{name} must be an int or a pair of ints, got {value!r}", srcs)
    if min(pair) < minimum:
        raise op_error(op, f"{name} must be >= {minimum}, got {value!r}", srcs)
    return pair


def _check_4d(op: str, x: Tensor, what: str, srcs: tuple) -> None:
    if x.ndim != 4:
        raise op_error(op, f"expected a 4-d {what} (N, C, H, W), got {x.ndim}-d shape "
                       f"{x.shape}", srcs)


def _out_size(op: str, size: int, pads: tuple[int, int], k: int, s: int, d: int,
              axis: str, srcs: tuple) -> int:
    span = d * (k - 1) + 1
    padded = size + pads[0] + pads[1]
    if type(padded) is not Dim and padded < span:  # (symbolic: checked at each call)
        raise op_error(op, f"kernel size along {axis} ({k}, dilation {d}: spans {span}) is "
                       f"larger than the padded input ({size} + padding {pads[0]} + "
                       f"{pads[1]} = {padded})", srcs)
    return (padded - span) // s + 1


# convolution
# ---------------------------------------------------------------------------------------

def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """2-d convolution (cross-correlation) with ``torch.nn.functional.conv2d``'s semantics.

    Parameters
    ----------
    x : tensor of shape ``(N, C, H, W)``.
    w : tensor of shape ``(O, C // groups, KH, KW)``; ``O`` divisible by ``groups``.
    bias : optional tensor of shape ``(O,)``, added to every output position.
    stride, dilation : int or ``(sh, sw)`` / ``(dh, dw)``, each >= 1.
    padding : int or ``(ph, pw)`` (zeros on both sides of each axis, >= 0), or
        ``'valid'`` (no padding) or ``'same'`` (output size = input size; stride 1 only;
        total padding ``d * (k - 1)`` per axis, the odd extra element on the bottom /
        right, as torch does).
    groups : input channels and output channels are split into ``groups`` blocks; block
        ``g`` of the output sees only block ``g`` of the input (``groups == C``: depthwise).

    Returns
    -------
    Tensor of shape ``(N, O, OH, OW)`` with
    ``out[n, o, i, j] = bias[o] + sum_{c, p, q} x_pad[n, g*C/groups + c, i*sh + p*dh,
    j*sw + q*dw] * w[o, c, p, q]`` where ``g = o // (O // groups)``.  Its dtype is the
    promotion of the dtypes of ``x``, ``w`` (and ``bias``), as ``lj.matmul``'s.

    Raises
    ------
    LazyjitError
        If ``x`` or ``w`` is not 4-d; ``C`` is not divisible by ``groups``;
        ``C != w.shape[1] * groups``; ``O`` is not divisible by ``groups``; ``bias`` is not
        of shape ``(O,)``; stride, padding or dilation are malformed (``'same'`` with a
        stride other than 1 included); or the dilated kernel is larger than the padded
        input.

    Notes
    -----
    One ``conv2d`` node (an abstract op: its implementation is chosen per shape when the
    graph is compiled; see the module docstring); the bias is a broadcast add after it.
    Booleans are refused (as torch does); integers convolve in their own dtype.
    """
    op = "conv2d"
    x, w = F.asarray(x), F.asarray(w)
    srcs = (x.node, w.node)
    _check_4d(op, x, "input", srcs)
    if w.ndim != 4:
        raise op_error(op, f"expected a 4-d weight (O, C/groups, KH, KW), got {w.ndim}-d "
                       f"shape {w.shape}", srcs)
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or groups < 1:
        raise op_error(op, f"groups must be a positive int, got {groups!r}", srcs)
    groups = int(groups)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if c % groups:
        raise op_error(op, f"input channels ({c}) are not divisible by groups ({groups})",
                       srcs)
    if c != cg * groups:
        raise op_error(op, f"channel mismatch: input has {c} channels, but the weight "
                       f"expects {cg} * groups ({groups}) = {cg * groups}", srcs)
    if o % groups:
        raise op_error(op, f"output channels ({o}) are not divisible by groups ({groups})",
                       srcs)
    if bias is not None:
        bias = F.asarray(bias)
        if bias.shape != (o,):
            raise op_error(op, f"bias must have shape ({o},), got {bias.shape}",
                           srcs + (bias.node,))
    s = _pair(op, "stride", stride, 1, srcs)
    d = _pair(op, "dilation", dilation, 1, srcs)
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        elif padding == "same":
            if s != (1, 1):
                raise op_error(op, f"padding='same' requires stride 1, got {stride!r}", srcs)
            th, tw = d[0] * (kh - 1), d[1] * (kw - 1)
            pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
        else:
            raise op_error(op, f"padding must be 'valid', 'same', an int or a pair of ints, "
                           f"got {padding!r}", srcs)
    else:
        ph, pw = _pair(op, "padding", padding, 0, srcs)
        pads = (ph, ph, pw, pw)
    _out_size(op, h, pads[:2], kh, s[0], d[0], "H", srcs)
    _out_size(op, wd, pads[2:], kw, s[1], d[1], "W", srcs)
    dt = np.result_type(x.dtype, w.dtype)
    if dt == np.bool_:
        raise op_error(op, "boolean inputs are not supported (cast them first)", srcs)
    out = conv(F.astype(x, dt), F.astype(w, dt), (s, pads, d, groups))
    if bias is not None:
        out = out + F.reshape(bias, (1, o, 1, 1))
    return out


# pooling
# ---------------------------------------------------------------------------------------

def _pool_args(op: str, x, kernel_size, stride, padding, dilation):
    x = F.asarray(x)
    srcs = (x.node,)
    _check_4d(op, x, "input", srcs)
    k = _pair(op, "kernel_size", kernel_size, 1, srcs)
    s = k if stride is None else _pair(op, "stride", stride, 1, srcs)
    p = _pair(op, "padding", padding, 0, srcs)
    d = _pair(op, "dilation", dilation, 1, srcs)
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise op_error(op, f"padding {padding!r} must be at most half the kernel size "
                       f"{kernel_size!r}", srcs)
    pads = (p[0], p[0], p[1], p[1])
    out = (_out_size(op, x.shape[2], pads[:2], k[0], s[0], d[0], "H", srcs),
           _out_size(op, x.shape[3], pads[2:], k[1], s[1], d[1], "W", srcs))
    return x, k, s, d, pads, out


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1) -> Tensor:
    """2-d max pooling with ``torch.nn.functional.max_pool2d``'s semantics
    (``ceil_mode=False``, no indices).

    Parameters
    ----------
    x : tensor of shape ``(N, C, H, W)`` (any real dtype; the result has the same).
    kernel_size : int or ``(KH, KW)``.
    stride : int or pair; ``None`` (default) means ``kernel_size``.
    padding : int or pair, at most half the kernel size; padded positions are never
        selected (as ``-inf`` padding).
    dilation : int or pair, spacing between kernel elements.

    Returns
    -------
    Tensor of shape ``(N, C, OH, OW)``: one ``max_pool2d`` node (a NaN in a window is
    its maximum).  Its gradient (a ``max_pool2d_grad`` node) goes, where several
    elements of a window tie, to the first of them in row-major window order, as
    torch's.

    Raises
    ------
    LazyjitError
        If ``x`` is not 4-d, an argument is malformed, the padding exceeds half the
        kernel, or the dilated kernel is larger than the padded input.
    """
    op = "max_pool2d"
    x, k, s, d, pads, out = _pool_args(op, x, kernel_size, stride, padding, dilation)
    if x.dtype.kind not in "fiub":
        raise op_error(op, f"unsupported dtype {x.dtype}", (x.node,))
    return pool(x, x, (k, s, pads, d))


def avg_pool2d(x, kernel_size, stride=None, padding=0) -> Tensor:
    """2-d average pooling with ``torch.nn.functional.avg_pool2d``'s defaults
    (``ceil_mode=False``, ``count_include_pad=True``: padded zeros count in the mean, the
    divisor is always ``KH * KW``).

    Parameters
    ----------
    x : tensor of shape ``(N, C, H, W)``; floating dtypes keep their dtype, integers and
        booleans give float64 (NumPy's true division).
    kernel_size : int or ``(KH, KW)``.
    stride : int or pair; ``None`` (default) means ``kernel_size``.
    padding : int or pair of zero padding, at most half the kernel size.

    Returns
    -------
    Tensor of shape ``(N, C, OH, OW)``: a depthwise ``conv2d`` node (``groups = C``) with
    constant weights ``1 / (KH * KW)``.

    Raises
    ------
    LazyjitError
        If ``x`` is not 4-d, an argument is malformed, the padding exceeds half the
        kernel, or the kernel is larger than the padded input.
    """
    op = "avg_pool2d"
    x, k, s, d, pads, out = _pool_args(op, x, kernel_size, stride, padding, 1)
    if x.dtype.kind not in "fiub":
        raise op_error(op, f"unsupported dtype {x.dtype}", (x.node,))
    if x.dtype.kind != "f":
        x = F.astype(x, np.float64)
    c = x.shape[1]
    w = F.full((c, 1, *k), 1.0 / math.prod(k), dtype=x.dtype)
    return conv(x, w, (s, pads, (1, 1), c))



# recurrent layers
# ---------------------------------------------------------------------------------------

def lstm_cell(x_t, h, c, w_ih, w_hh, bias):
    """One LSTM step (Hochreiter & Schmidhuber 1997; gates in torch's order ``i, f, g,
    o``): ``x_t (batch, in)``, ``h, c (batch, hidden)``, ``w_ih (in, 4 hidden)``,
    ``w_hh (hidden, 4 hidden)``, ``bias (4 hidden,)`` -> ``[h', c']``."""
    n = h.shape[-1]
    z = x_t @ w_ih + h @ w_hh + bias
    i, f = F.sigmoid(z[:, :n]), F.sigmoid(z[:, n:2 * n])
    g, o = F.tanh(z[:, 2 * n:3 * n]), F.sigmoid(z[:, 3 * n:])
    c = f * c + i * g
    return [o * F.tanh(c), c]


def lstm(xs, h0, c0, w_ih, w_hh, bias):
    """An LSTM layer over ``xs (steps, batch, in)`` as ONE ``lj.scan`` of
    :func:`lstm_cell` (its gradient one reverse scan); returns ``(hs (steps, batch,
    hidden), h_last, c_last)``."""
    (hs, cs), _ = scan(lstm_cell, sequences=[xs], outputs_info=[h0, c0],
                       non_sequences=[w_ih, w_hh, bias])
    return hs, hs[-1], cs[-1]
