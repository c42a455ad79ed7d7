"""Reductions and the composites built on them (NumPy's ``sum``, ``mean``, ``var``, ...,
``logsumexp``, ``softmax``, ``log_softmax``).

Reductions take ``axis`` as an int, a tuple or None and honour ``keepdims`` as NumPy
does; at the primitive level they keep the reduced dims (size 1).  Composites are
written in primitives and need no rules of their own.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.errors import op_error
from lazyjit.api.core import (_axes, arange, asarray, astype, elementwise, exp, isinf, log,
                              ones, size_value, sqrt, stop_gradient, where, zeros, zeros_like)
from lazyjit.ops import REGISTRY, ref_dtype
from lazyjit.api.shape_ops import _squeeze_axes, expand_dims, reshape
from lazyjit.api.tensor import Tensor
from lazyjit.ops import apply
from lazyjit.trace.constraints import same_shape
from lazyjit.trace.dims import Dim, dmax
from lazyjit.trace.values import host


# reductions
# ---------------------------------------------------------------------------------------

def _reduce(name: str, x, axis, keepdims: bool, dtype=None) -> Tensor:
    x = asarray(x)
    axes = _axes(axis, x.ndim, name)
    if dtype is not None:
        x = astype(x, dtype)
    want = x.dtype  # a given dtype is the result's (NumPy accumulates in it: an int8 sum
    # wraps as the int64 sum cast back does)
    if name in ("sum", "prod") and x.dtype.kind != "f":  # floats keep their dtype
        out_dt = ref_dtype(REGISTRY[name], (x.node,), axes)
        if out_dt != x.dtype:
            x = astype(x, out_dt)
    out = x if not axes else Tensor(apply(name, (x.node,), axes))
    out = out if keepdims else _squeeze_axes(out, axes)
    return astype(out, want) if dtype is not None and out.dtype != want else out


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
    return math.prod(x.shape[a] for a in _axes(axis, x.ndim, "mean"))  # Python ints: exact


def _float_dtype(x: Tensor, dtype=None):
    if dtype is not None:
        return np.dtype(dtype)
    return x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)


def _wide(dtype: np.dtype) -> np.dtype:
    """The dtype a mean or variance of result ``dtype`` is computed in: float32 for
    float16 (NumPy's intermediates for ``np.mean`` of float16), else ``dtype``."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def mean(x, axis=None, keepdims=False, dtype=None) -> Tensor:
    """Arithmetic mean over ``axis``, as ``np.mean`` (integers give float64; float16 is
    summed and divided in float32, the result rounded to float16; an integer ``dtype``
    sums in it, wrapping, and truncates the quotient, as NumPy does)."""
    x = asarray(x)
    out_dt = _float_dtype(x, dtype)
    n = _count(x, axis)
    if out_dt.kind in "iub":  # an integer dtype asked for: NumPy sums in it (wrapping),
        total, div = sum(x, axis, keepdims, dtype=out_dt), np.float64  # divides in float64
    else:  # and truncates
        x = astype(x, _wide(out_dt))
        total, div = sum(x, axis, keepdims), x.dtype
    # (a symbolic count is 0 at a call: 0 / 0, NaN as NumPy's)
    return astype(total / (size_value(n, div) if type(n) is Dim or n else float("nan")),
                  out_dt)


def _var(x, axis, keepdims, ddof, dtype) -> tuple[Tensor, np.dtype]:
    """The variance in the dtype it is computed in (float32 for float16), and the dtype
    of the result."""
    x = asarray(x)
    out_dt = _float_dtype(x, dtype)
    if x.dtype.kind == "c" and out_dt.kind != "c":
        raise op_error("var", f"dtype {out_dt} for complex values would drop their "
                       "imaginary parts (NumPy's result there mixes both): take .real or "
                       "abs() first", (x.node,), cls=TypeError)
    x = astype(x, _wide(out_dt))
    d = x - mean(x, axis, keepdims=True)
    if d.dtype.kind == "c":  # |d|**2, real, as np.var of complex (complex with dtype=)
        d = elementwise("abs", d)
        out_dt = d.dtype if dtype is None else out_dt
    n = _count(x, axis) - ddof
    if type(n) is Dim:  # NumPy divides by max(n - ddof, 0)
        return sum(d * d, axis, keepdims) / size_value(dmax(n, 0), x.dtype), out_dt
    return sum(d * d, axis, keepdims) / size_value(n if n > 0 else 0, x.dtype), out_dt


def var(x, axis=None, keepdims=False, ddof=0, dtype=None, *, correction=None) -> Tensor:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom (``correction``, its
    NumPy 2 and Array API name), as ``np.var`` (float16 computed in float32, the result
    rounded to float16)."""
    v, out_dt = _var(x, axis, keepdims, ddof if correction is None else correction, dtype)
    return astype(v, out_dt)


def std(x, axis=None, keepdims=False, ddof=0, dtype=None, *, correction=None) -> Tensor:
    """Standard deviation, ``sqrt(var)``, as ``np.std`` (``correction`` is ``ddof``;
    float16 computed in float32, rounded once)."""
    v, out_dt = _var(x, axis, keepdims, ddof if correction is None else correction, dtype)
    return astype(sqrt(v), out_dt)


def any(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where any element along ``axis`` is nonzero, as ``np.any`` (False over no
    elements)."""
    x = asarray(x)
    if type(x.size) is Dim:  # (maybe empty at a call: a count, which has an identity)
        return sum(astype(astype(x, np.bool_), np.int64), axis, keepdims) > 0
    return max(astype(x, np.bool_), axis, keepdims) if x.size else \
        zeros(_reduced_shape(x, axis, keepdims), np.bool_)


def all(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where all elements along ``axis`` are nonzero, as ``np.all`` (True over no
    elements)."""
    x = asarray(x)
    if type(x.size) is Dim:  # (maybe empty at a call: a count, which has an identity)
        return sum(astype(~astype(x, np.bool_), np.int64), axis, keepdims) == 0
    return min(astype(x, np.bool_), axis, keepdims) if x.size else \
        ones(_reduced_shape(x, axis, keepdims), np.bool_)


def _reduced_shape(x: Tensor, axis, keepdims) -> tuple[int, ...]:
    axes = _axes(axis, x.ndim, "reduce")
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)


def logsumexp(x, axis=None, keepdims=False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the max; all
    ``-inf`` gives ``-inf``, any ``+inf`` gives ``+inf``), as ``scipy.special.logsumexp``
    (bools and integers are taken as float64)."""
    x = asarray(x)
    x = astype(x, _float_dtype(x))
    m = _finite_max(x, axis)
    out = log(sum(exp(x - m), axis, keepdims=True)) + m
    return out if keepdims else _squeeze_axes(out, _axes(axis, x.ndim, "logsumexp"))


def _finite_max(x: Tensor, axis) -> Tensor:
    """The max over ``axis`` (kept), 0 where it is infinite, as a constant for ``grad``:
    the shift that keeps ``exp`` in range; 0 over an empty axis (whose ``log(sum(exp))``
    is then ``log(0) = -inf``, as ``scipy.special.logsumexp`` gives)."""
    if 0 in [x.shape[a] for a in _axes(axis, x.ndim, "logsumexp")]:
        return zeros(_reduced_shape(x, axis, True), x.dtype)
    m = stop_gradient(max(x, axis, keepdims=True))
    return where(isinf(m), zeros_like(m), m)


def log_softmax(x, axis=-1) -> Tensor:
    """``x - logsumexp(x, axis)``, stable for large magnitudes: computed as
    ``(x - max) - log(sum(exp(x - max)))`` so that no digits are lost to ``max``
    (bools and integers are taken as float64)."""
    x = asarray(x)
    x = astype(x, _float_dtype(x))
    shifted = x - _finite_max(x, axis)
    return shifted - log(sum(exp(shifted), axis, keepdims=True))


def softmax_cross_entropy(logits, labels, axis=-1) -> Tensor:
    """Cross-entropy of ``softmax(logits)`` against ``labels``, per example: ``-log
    softmax(logits)[label]`` (optax's ``softmax_cross_entropy_with_integer_labels``,
    torch's ``cross_entropy`` with ``reduction='none'``).

    Parameters
    ----------
    logits : floating tensor, classes along ``axis``.
    labels : integer class indices, of the shape of ``logits`` without ``axis``; or
        floating probabilities (one-hot or soft) of the shape of ``logits``.
    axis : the class axis.

    Returns
    -------
    The losses (nats), of the shape of ``logits`` without ``axis``, in its dtype.

    Raises
    ------
    LazyjitError
        For non-floating logits or labels of another shape.
    IndexError
        For constant integer labels outside ``[0, classes)`` (computed labels out of
        range pick no logit: their loss is meaningless, without an error).

    Notes
    -----
    Stable for any magnitude: ``logsumexp(z) - z[label]`` with both terms shifted by the
    row's max.  The label's logit is picked by a masked sum, not a gather, so the
    gradient ``softmax(z) - onehot(label)`` is one elementwise pass, fused with the
    recomputed softmax (no scatter, no materialized log-probabilities).
    """
    z = asarray(logits)
    if z.dtype.kind != "f":
        raise op_error("softmax_cross_entropy", f"logits must be floating point, got "
                       f"{z.dtype}", (z.node,))
    (axis,) = _axes(axis, z.ndim, "softmax_cross_entropy")
    y = asarray(labels)
    shifted = z - _finite_max(z, axis)
    lse = log(sum(exp(shifted), axis, keepdims=True))
    if y.dtype.kind == "f":
        if not same_shape(y.shape, z.shape, "softmax_cross_entropy"):
            raise op_error("softmax_cross_entropy", "probability labels must have the "
                           "logits' shape", (z.node, y.node))
        loss = -sum(astype(y, z.dtype) * (shifted - lse), axis, keepdims=True)
    else:
        want = z.shape[:axis] + z.shape[axis + 1:]
        if not same_shape(y.shape, want, "softmax_cross_entropy"):
            raise op_error("softmax_cross_entropy", f"integer labels must have shape {want} "
                           "(the logits' without the class axis)", (z.node, y.node))
        n = z.shape[axis]
        labels = host(y.node.buffer)
        if labels is not None and labels.size and (labels.min() < 0 or labels.max() >= n):
            bad = labels[(labels < 0) | (labels >= n)].flat[0]
            raise IndexError(f"softmax_cross_entropy: label {bad} is out of range for "
                             f"{n} classes (axis {axis})")
        # int64 class numbers: arange in a narrow label dtype (uint8 with 300 classes)
        # would wrap and match a label twice
        iota = reshape(arange(n, dtype=np.int64), tuple(n if i == axis else 1
                                                        for i in range(z.ndim)))
        label = expand_dims(astype(y, np.int64), axis)
        picked = sum(where(iota == label, shifted, 0), axis, keepdims=True)
        loss = lse - picked
        if labels is None:  # known only when computed: checked then (eagerly: above)
            inside = (label >= 0) & (label < size_value(n, np.int64))
            ok = sum(where(inside, 0, 1)) == 0  # (a sum: an empty batch has no bad label)
            loss = Tensor(apply("check", (loss.node, ok.node),
                                f"softmax_cross_entropy: a label is out of range for the "
                                f"{n} classes of axis {axis} (labels are 0 .. classes - 1)"))
    return _squeeze_axes(loss, (axis,))


def softmax(x, axis=-1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``, stable (bools and integers
    are taken as float64)."""
    x = asarray(x)
    x = astype(x, _float_dtype(x))
    e = exp(x - _finite_max(x, axis))
    return e / sum(e, axis, keepdims=True)


# ---------------------------------------------------------------------------------------
