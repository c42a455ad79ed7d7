"""NumPy's NaN-ignoring reductions, order statistics and closeness tests, as composites:
``nansum nanmean nanmax nanmin median quantile percentile isclose allclose``.

Semantics, dtypes and edge cases are NumPy's (the tests compare with the NumPy function
of the same name): an all-NaN slice gives NaN in ``nanmean``, ``nanmax`` and ``nanmin``
(NumPy also warns), a NaN in a slice makes its ``median``/``quantile`` NaN.  Order
statistics sort along the axis (:func:`lazyjit.api.sorting.sort`, differentiable: the
gradient goes to the values chosen), with NumPy's default ``linear`` interpolation.
"""
from __future__ import annotations

import numpy as np

from lazyjit.api.core import _axes, abs, asarray, isinf, isnan, where  # noqa: A004
from lazyjit.api.reductions import all, any, max, min, sum  # noqa: A004
from lazyjit.api.shape_ops import moveaxis, reshape, take, transpose
from lazyjit.api.sorting import sort
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error


def nansum(x, axis=None, keepdims: bool = False) -> Tensor:
    """The sum treating NaN as 0, as ``np.nansum`` (integers: ``np.sum``)."""
    x = asarray(x)
    if x.dtype.kind in "fc":
        x = where(isnan(x), 0.0, x)
    return sum(x, axis=axis, keepdims=keepdims)


def nanmean(x, axis=None, keepdims: bool = False) -> Tensor:
    """The mean of the non-NaN values, as ``np.nanmean``: NaN for an all-NaN slice;
    integers as ``np.mean`` (float64)."""
    x = asarray(x)
    if x.dtype.kind not in "fc":
        return x.mean(axis=axis, keepdims=keepdims)
    kept = ~isnan(x)
    return nansum(x, axis, keepdims) / sum(kept, axis=axis, keepdims=keepdims).astype(x.dtype)


def _nan_extreme(x, axis, keepdims, fn, fill) -> Tensor:
    x = asarray(x)
    if x.dtype.kind != "f":
        return fn(x, axis=axis, keepdims=keepdims)
    nan = isnan(x)
    out = fn(where(nan, fill, x), axis=axis, keepdims=keepdims)
    return where(all(nan, axis=axis, keepdims=keepdims), np.nan, out)


def nanmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """The maximum ignoring NaN, as ``np.nanmax``: NaN for an all-NaN slice."""
    return _nan_extreme(x, axis, keepdims, max, -np.inf)


def nanmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """The minimum ignoring NaN, as ``np.nanmin``: NaN for an all-NaN slice."""
    return _nan_extreme(x, axis, keepdims, min, np.inf)


def _sorted(x, axis, name: str) -> tuple[Tensor, tuple]:
    """``x`` (ints as float64) sorted along ``axis`` (the flattened tensor when None),
    that axis moved first; and the reduced shape with keepdims."""
    x = asarray(x)
    if x.dtype.kind == "c":  # (no ordering of complex numbers)
        raise op_error(name, "not defined for complex values", (x.node,), cls=TypeError)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    axes = _axes(axis, x.ndim, name)  # (all of them for None)
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    if len(axes) != 1:  # several axes: moved last and flattened into one
        rest = [i for i in range(x.ndim) if i not in axes]
        x = reshape(transpose(x, (*rest, *axes)), tuple(x.shape[i] for i in rest) + (-1,))
        axis = x.ndim - 1
    else:
        (axis,) = axes
    if x.shape[axis] == 0:
        raise op_error(name, f"{name} of an empty slice", (x.node,))
    return moveaxis(sort(x, axis=axis), axis, 0), kept


def _nan_if_any(out: Tensor, srt: Tensor) -> Tensor:
    return where(any(isnan(srt), axis=0), np.nan, out)  # (NaN sorts last)


def quantile(x, q, axis=None, keepdims: bool = False) -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-D sequence in ``[0, 1]``) along
    ``axis`` (of the flattened tensor when None), as ``np.quantile`` with its default
    ``linear`` method: between the sorted values at ``floor(q (n - 1))`` and the next,
    interpolated as NumPy interpolates (so an infinity next to the position gives NaN,
    as NumPy's; in float16 the weights are float16 and a result can differ from NumPy's
    by an ulp); a slice with a NaN gives NaN.  ``axis`` may be a tuple.  The output's
    shape is ``q``'s followed by the reduced shape.  Integers give float64.

    Raises
    ------
    LazyjitError
        ``q`` outside ``[0, 1]`` or of more than 1 dimension, or an empty slice.
    """
    return _quantile(x, q, 1.0, axis, keepdims, "quantile")


def _quantile(x, q, scale: float, axis, keepdims: bool, name: str) -> Tensor:
    """Quantiles ``q * scale``; the result's dtype is NumPy's: ``x``'s float dtype for a
    Python number ``q`` (a weak scalar), promoted with ``q``'s dtype otherwise."""
    x = asarray(x)
    given = q.numpy() if isinstance(q, Tensor) else q
    qs = np.asarray(given, dtype=np.float64) * scale
    if qs.ndim > 1 or ((qs < 0) | (qs > 1) | np.isnan(qs)).any():
        raise op_error(name, f"q must be a number or 1-D sequence in [0, {1 / scale:g}], "
                       f"not {q!r}")
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    if not isinstance(given, (int, float)) or isinstance(given, np.generic):
        dt = np.result_type(dt, np.asarray(given).dtype)
    srt, kept = _sorted(x, axis, name)
    n = srt.shape[0]
    pos = qs.reshape(-1) * (n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    t = (pos - lo).astype(dt).reshape((-1,) + (1,) * (srt.ndim - 1))
    a, b = take(srt, lo, axis=0), take(srt, hi, axis=0)
    diff = (b - a).astype(dt)  # (in x's dtype, the rest in the result's: NumPy's lerp)
    a, b = a.astype(dt), b.astype(dt)
    out = _nan_if_any(where(t >= 0.5, b - diff * (1 - t), a + diff * t), srt)
    if keepdims:
        out = reshape(out, (out.shape[0],) + kept)
    return out if qs.ndim else out[0]


def percentile(x, q, axis=None, keepdims: bool = False) -> Tensor:
    """The ``q``-th percentiles (``q`` in ``[0, 100]``), as ``np.percentile``:
    :func:`quantile` of ``q / 100``."""
    return _quantile(x, q, 0.01, axis, keepdims, "percentile")


def median(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median along ``axis`` (an int, a tuple, or all axes when None), as
    ``np.median``: the middle value, or the mean of the two middle values of an even
    count; NaN where a slice has a NaN.  Integers give float64.

    Raises
    ------
    LazyjitError
        An empty slice.
    """
    srt, kept = _sorted(x, axis, "median")
    n = srt.shape[0]
    if n % 2:
        mid = srt[n // 2]
    else:  # (float16 added in float32, as np.mean adds it: 6e4 + 5e4 overflows float16)
        wide = srt.astype(np.float32) if srt.dtype == np.float16 else srt
        mid = ((wide[n // 2 - 1] + wide[n // 2]) / 2).astype(srt.dtype)
    out = _nan_if_any(mid, srt)
    return reshape(out, kept) if keepdims else out


def isclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (not symmetric), with infinities
    close only to themselves and NaN to nothing unless ``equal_nan``, as ``np.isclose``;
    a bool tensor of the broadcast shape."""
    a, b = asarray(a), asarray(b)
    if b.dtype.kind not in "fc":
        b = b.astype(np.result_type(b.dtype, 1.0))
    finite_b = ~(isnan(b) | isinf(b))
    out = ((abs(a - b) <= atol + rtol * abs(b)) & finite_b) | (a == b)
    if equal_nan:
        out = out | (isnan(a) & isnan(b))
    return out


def allclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Whether every element of ``a`` is close to ``b``'s (:func:`isclose`), as
    ``np.allclose``: a 0-d bool tensor (``bool()`` of it computes it)."""
    return all(isclose(a, b, rtol, atol, equal_nan))
