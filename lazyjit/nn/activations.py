"""Activation functions and ``one_hot`` / ``topk`` with ``torch.nn.functional``'s (and
``jax.nn``'s) semantics, as composites of lazyjit's public functions: differentiable in
both modes to any order through their primitives, on every backend.

Every activation keeps its input's shape and (float) dtype.
"""
from __future__ import annotations

import math

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api.sorting import argsort
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error

_SQRT_2_PI = math.sqrt(2.0 / math.pi)


def gelu(x, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit (Hendrycks and Gimpel 2016), as
    ``torch.nn.functional.gelu``: ``x * Phi(x)`` with the normal CDF ``Phi`` computed
    through ``erf`` (``approximate="none"``), or its tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` (``"tanh"``; ``jax.nn.gelu``'s
    default).

    Raises
    ------
    LazyjitError
        ``approximate`` is neither "none" nor "tanh".
    """
    x = F.asarray(x)
    if approximate == "none":
        return 0.5 * x * (1.0 + F.erf(x * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        return 0.5 * x * (1.0 + F.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x)))
    raise op_error("gelu", f"approximate must be 'none' or 'tanh', not {approximate!r}")


def silu(x) -> Tensor:
    """Sigmoid linear unit ``x * sigmoid(x)`` (swish, Ramachandran et al. 2017), as
    ``torch.nn.functional.silu``."""
    x = F.asarray(x)
    return x * F.sigmoid(x)


def leaky_relu(x, negative_slope: float = 0.01) -> Tensor:
    """``x`` where ``x > 0``, else ``negative_slope * x``, as
    ``torch.nn.functional.leaky_relu``; the derivative at 0 is ``negative_slope``."""
    x = F.asarray(x)
    return F.where(x > 0, x, negative_slope * x)


def elu(x, alpha: float = 1.0) -> Tensor:
    """Exponential linear unit (Clevert et al. 2015): ``x`` where ``x > 0``, else
    ``alpha * (exp(x) - 1)``, as ``torch.nn.functional.elu``."""
    x = F.asarray(x)
    return F.where(x > 0, x, alpha * F.expm1(F.minimum(x, 0.0)))


def log_sigmoid(x) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, without overflow, as
    ``torch.nn.functional.logsigmoid`` / ``jax.nn.log_sigmoid``."""
    return -F.softplus(-F.asarray(x))


def one_hot(indices, num_classes: int, dtype=np.float32) -> Tensor:
    """``(..., num_classes)`` with 1 at each index and 0 elsewhere, as ``jax.nn.one_hot``
    (an index outside ``[0, num_classes)`` gives a row of zeros; ``dtype`` float32 by
    default).

    Raises
    ------
    LazyjitError
        ``indices`` are not integers, or ``num_classes`` is not a positive int.
    """
    indices = F.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise op_error("one_hot", f"indices must be integers, not {indices.dtype}",
                       (indices.node,))
    if not isinstance(num_classes, (int, np.integer)) or num_classes <= 0:
        raise op_error("one_hot", f"num_classes must be a positive int, not {num_classes!r}")
    classes = F.arange(int(num_classes), dtype=np.int64)  # (int8 classes would wrap)
    return (F.expand_dims(indices.astype(np.int64), -1) == classes).astype(dtype)


def topk(x, k: int, axis: int = -1, largest: bool = True) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (``largest=False``: smallest) values along ``axis`` (torch's
    ``dim``) in order, and their indices (int64), as ``torch.topk``: ties in index order
    (torch leaves their order unspecified); NaN counts as the largest (tied with +inf)
    and, for ``largest=False``, is never taken before a number.  The values are differentiable
    (their gradient goes to the chosen positions).

    Raises
    ------
    LazyjitError
        ``k`` is not in ``[0, size of axis]``, or ``axis`` is out of bounds.
    """
    x = F.asarray(x)
    if not -x.ndim <= axis < x.ndim:
        raise op_error("topk", f"axis {axis} is out of bounds for a tensor of {x.ndim} "
                       "dimensions", (x.node,))
    axis = axis % x.ndim
    n = x.shape[axis]
    if not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
        raise op_error("topk", f"k={k!r} for an axis of size {n}", (x.node,))
    key = x
    if largest and x.dtype.kind == "f":  # NaN the largest (argsort puts it last)
        key = F.where(F.isnan(x), np.inf, x)
    order = argsort(key, axis=axis, descending=largest)
    idx = order[(slice(None),) * axis + (slice(0, int(k)),)]
    return F.take_along_axis(x, idx, axis=axis), idx
