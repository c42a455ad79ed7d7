"""Reductions and the composites built on them (NumPy's ``sum``, ``mean``, ``var``, ...,
``logsumexp``, ``softmax``, ``log_softmax``).

Reductions take ``axis`` as an int, a tuple or None and honour ``keepdims`` as NumPy
does; at the primitive level they keep the reduced dims (size 1).  Composites are
written in primitives and need no rules of their own.
"""
from __future__ import annotations

import numpy as np

from lazyjit.functions import (_axes, asarray, astype, exp, isinf, log, ones, sqrt, where,
                               zeros, zeros_like)
from lazyjit.shape_ops import _squeeze_axes, reshape
from lazyjit.ops import REGISTRY, ref_dtype
from lazyjit.tensor import Tensor, apply
from lazyjit.trace.node import op_error


# reductions
# ---------------------------------------------------------------------------------------

def _reduce(name: str, x, axis, keepdims: bool, dtype=None) -> Tensor:
    x = asarray(x)
    axes = _axes(axis, x.ndim, name)
    if dtype is not None:
        x = astype(x, dtype)
    if name in ("sum", "prod") and x.dtype.kind != "f":  # floats keep their dtype
        out_dt = ref_dtype(REGISTRY[name], (x.node,), axes)
        if out_dt != x.dtype:
            x = astype(x, out_dt)
    if not axes:
        return x
    out = Tensor(apply(name, (x.node,), axes))
    return out if keepdims else _squeeze_axes(out, axes)


def sum(x, axis=None, keepdims=False, dtype=None) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (int, tuple or None for all), as ``np.sum``; bool and small
    integers accumulate in int64."""
    return _reduce("sum", x, axis, keepdims, dtype)


def prod(x, axis=None, keepdims=False, dtype=None) -> Tensor:
    """Product over ``axis``, as ``np.prod``."""
    return _reduce("prod", x, axis, keepdims, dtype)


def max(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Maximum over ``axis``, as ``np.max`` (NaN propagates; empty axes raise).
    Gradient: split evenly among tied maxima (a valid subgradient)."""
    return _reduce("max", x, axis, keepdims)


def min(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Minimum over ``axis``, as ``np.min``."""
    return _reduce("min", x, axis, keepdims)


amax, amin = max, min


def _arg(name: str, x, axis, keepdims) -> Tensor:
    x = asarray(x)
    if axis is None:
        flat = reshape(x, (x.size,))
        out = Tensor(apply(name, (flat.node,), 0))
        return reshape(out, (1,) * x.ndim) if keepdims else reshape(out, ())
    if not isinstance(axis, (int, np.integer)):
        raise op_error(name, f"axis must be an int or None, got {axis!r}", (x.node,))
    (a,) = _axes(axis, x.ndim, name)
    out = Tensor(apply(name, (x.node,), a))
    return out if keepdims else _squeeze_axes(out, (a,))


def argmax(x, axis=None, keepdims=False) -> Tensor:
    """Index (int64) of the first maximum along ``axis``, as ``np.argmax``."""
    return _arg("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False) -> Tensor:
    """Index (int64) of the first minimum along ``axis``, as ``np.argmin``."""
    return _arg("argmin", x, axis, keepdims)


def _count(x: Tensor, axis) -> int:
    return int(np.prod([x.shape[a] for a in _axes(axis, x.ndim, "mean")], dtype=np.int64))


def _float_dtype(x: Tensor, dtype=None):
    if dtype is not None:
        return np.dtype(dtype)
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def mean(x, axis=None, keepdims=False, dtype=None) -> Tensor:
    """Arithmetic mean over ``axis``, as ``np.mean`` (integers give float64)."""
    x = asarray(x)
    x = astype(x, _float_dtype(x, dtype))
    n = _count(x, axis)
    return sum(x, axis, keepdims) / (n if n else float("nan"))


def var(x, axis=None, keepdims=False, ddof=0, dtype=None) -> Tensor:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom, as ``np.var``."""
    x = asarray(x)
    x = astype(x, _float_dtype(x, dtype))
    d = x - mean(x, axis, keepdims=True)
    n = _count(x, axis) - ddof
    return sum(d * d, axis, keepdims) / (n if n > 0 else float("nan"))


def std(x, axis=None, keepdims=False, ddof=0, dtype=None) -> Tensor:
    """Standard deviation, ``sqrt(var)``, as ``np.std``."""
    return sqrt(var(x, axis, keepdims, ddof, dtype))


def any(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where any element along ``axis`` is nonzero, as ``np.any``."""
    return max(astype(x, np.bool_), axis, keepdims) if asarray(x).size else \
        zeros(_reduced_shape(asarray(x), axis, keepdims), np.bool_)


def all(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where all elements along ``axis`` are nonzero, as ``np.all``."""
    return min(astype(x, np.bool_), axis, keepdims) if asarray(x).size else \
        ones(_reduced_shape(asarray(x), axis, keepdims), np.bool_)


def _reduced_shape(x: Tensor, axis, keepdims) -> tuple[int, ...]:
    axes = _axes(axis, x.ndim, "reduce")
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)


def logsumexp(x, axis=None, keepdims=False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the max; all
    ``-inf`` gives ``-inf``, any ``+inf`` gives ``+inf``), as ``scipy.special.logsumexp``."""
    x = asarray(x)
    m = _finite_max(x, axis)
    out = log(sum(exp(x - m), axis, keepdims=True)) + m
    return out if keepdims else _squeeze_axes(out, _axes(axis, x.ndim, "logsumexp"))


def _finite_max(x: Tensor, axis) -> Tensor:
    """The max over ``axis`` (kept), 0 where it is infinite, as a constant for ``grad``:
    the shift that keeps ``exp`` in range."""
    m = stop_gradient(max(x, axis, keepdims=True))
    return where(isinf(m), zeros_like(m), m)


def log_softmax(x, axis=-1) -> Tensor:
    """``x - logsumexp(x, axis)``, stable for large magnitudes: computed as
    ``(x - max) - log(sum(exp(x - max)))`` so that no digits are lost to ``max``."""
    x = asarray(x)
    shifted = x - _finite_max(x, axis)
    return shifted - log(sum(exp(shifted), axis, keepdims=True))


def softmax(x, axis=-1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``, stable."""
    x = asarray(x)
    e = exp(x - _finite_max(x, axis))
    return e / sum(e, axis, keepdims=True)


def stop_gradient(x) -> Tensor:
    """The same value, treated as a constant by ``lj.grad``."""
    from lazyjit.autodiff import stop_gradient as sg
    return sg(x)


# ---------------------------------------------------------------------------------------
