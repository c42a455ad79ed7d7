"""NumPy's NaN-ignoring reductions, order statistics, averages, covariances and closeness
tests, as composites: ``nansum nanmean nanmax nanmin nanprod nanvar nanstd nancumsum
nancumprod nanargmax nanargmin median quantile percentile average ptp count_nonzero cov
corrcoef isclose allclose``.

Semantics, dtypes and edge cases are NumPy's (the tests compare with the NumPy function
of the same name): an all-NaN slice gives NaN in ``nanmean``, ``nanmax`` and ``nanmin``
(NumPy also warns), a NaN in a slice makes its ``median``/``quantile`` NaN.  Order
statistics sort along the axis (:func:`lazyjit.api.sorting.sort`, differentiable: the
gradient goes to the values chosen), with NumPy's default ``linear`` interpolation.
"""
from __future__ import annotations

import builtins

import numpy as np

from lazyjit.api.arrays import diagonal
from lazyjit.api.core import (_axes, abs, asarray, astype, broadcast_to, clip,  # noqa: A004
                              elementwise, floor, full, isinf, isnan, minimum, size_value,
                              sqrt, where, zeros)
from lazyjit.api.indexing import take_along_axis
from lazyjit.api.reductions import (_wide, all, any, argmax, argmin, max, mean,  # noqa: A004
                                    min, prod, sum, var)
from lazyjit.api.shape_ops import (concatenate, matmul, moveaxis, reshape, squeeze, take,
                                   transpose)
from lazyjit.api.sorting import cumprod, cumsum, sort
from lazyjit.api.tensor import Tensor
from lazyjit.errors import IndexBoundsError, op_error
from lazyjit.ops import apply
from lazyjit.trace.dims import Dim
from lazyjit.trace.values import host


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
    if x.shape[axis] == 0:  # (NumPy's IndexError: no value at the position)
        raise op_error(name, f"{name} of an empty slice", (x.node,), cls=IndexBoundsError)
    return moveaxis(sort(x, axis=axis), axis, 0), kept


def _nan_if_any(out: Tensor, srt: Tensor) -> Tensor:
    if out.dtype.kind not in "fc":  # (integer quantiles of integers: x's dtype, no NaN)
        return out
    return where(any(isnan(srt), axis=0), np.nan, out)  # (NaN sorts last)


def quantile(x, q, axis=None, keepdims: bool = False) -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-D sequence in ``[0, 1]``) along
    ``axis`` (of the flattened tensor when None), as ``np.quantile`` with its default
    ``linear`` method: between the sorted values at ``floor(q (n - 1))`` and the next,
    interpolated as NumPy interpolates (so an infinity next to the position gives NaN,
    as NumPy's; in float16 the weights are float16 and a result can differ from NumPy's
    by an ulp); a slice with a NaN gives NaN.  ``axis`` may be a tuple.  The output's
    shape is ``q``'s followed by the reduced shape; the dtype NumPy's (integers give
    float64 for float quantiles; integer quantiles, 0 or 1, keep ``x``'s dtype).

    Raises
    ------
    LazyjitError
        ``q`` outside ``[0, 1]`` or of more than 1 dimension.
    IndexError
        An empty slice (as NumPy).
    """
    return _quantile(x, q, 1.0, axis, keepdims, "quantile")


def _q_and_dtype(x: Tensor, q, scale: float, name: str) -> tuple[np.ndarray, np.dtype]:
    """The quantiles ``q * scale`` as a float64 array (checked in ``[0, 1]``), and the
    result's dtype, NumPy's: ``x``'s for integer quantiles (0 and 1, Python or NumPy
    ints: NumPy takes the elements), else ``x``'s promoted with ``q``'s (a percentile's
    ``q / 100``; a Python number weakly, as NEP 50: float64 for an integer ``x``;
    float16 for int8 and a NumPy float16)."""
    given = q.numpy() if isinstance(q, Tensor) else q
    qs = np.asarray(given, dtype=np.float64) * scale
    if qs.ndim > 1 or ((qs < 0) | (qs > 1) | np.isnan(qs)).any():
        raise op_error(name, f"q must be a number or 1-D sequence in [0, {1 / scale:g}], "
                       f"not {q!r}")
    weak = type(given) in (int, float)  # (a Python number: NumPy's weak_q)
    if scale != 1.0:  # (a percentile: NumPy divides q by 100 first)
        given = np.true_divide(given, 100)
    q_dtype = np.asarray(given).dtype
    if q_dtype.kind in "iub":
        return qs, x.dtype
    return qs, np.result_type(x.dtype, 1.0 if weak else q_dtype)


def _quantile(x, q, scale: float, axis, keepdims: bool, name: str) -> Tensor:
    """Quantiles ``q * scale``; the result's dtype is NumPy's: ``x``'s float dtype for a
    Python number ``q`` (a weak scalar), promoted with ``q``'s dtype otherwise."""
    x = asarray(x)
    graph = Tensor(q.node) if isinstance(q, Tensor) else None  # (before its value is
    qs, dt = _q_and_dtype(x, q, scale, name)  # read, which makes it a leaf: the graph
    srt, kept = _sorted(x, axis, name)  # is what a derivative goes through)
    n = srt.shape[0]
    if type(n) is Dim or graph is not None:  # a count known at each call, or a tensor
        # q (a derivative with respect to it): the positions computed in the graph, as
        # NumPy computes them (float64), the indices tensors
        qv = reshape(astype(graph, np.float64), (-1,)) * scale if graph is not None \
            else asarray(qs.reshape(-1))
        pos = qv * (size_value(n, np.float64) - 1.0)
        lo = astype(floor(pos), np.int64)
        hi = minimum(lo + 1, size_value(n, np.int64) - 1)
        t = reshape(astype(pos - lo, dt), (-1,) + (1,) * (srt.ndim - 1))
    else:
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


def _nan_positions(x, q, scale: float, axis, name: str):
    """For the NaN-ignoring quantiles: the sorted ``x`` (NaN last, the axis first), the
    reduced shape with keepdims, the quantiles ``q * scale`` as an array, the result's
    dtype (as :func:`_quantile`'s) and the per-slice count of values that are not NaN."""
    x = asarray(x)
    qs, dt = _q_and_dtype(x, q, scale, name)
    srt, kept = _sorted(x, axis, name)
    count = sum(~isnan(srt), axis=0, dtype=np.int64)
    return srt, kept, qs, dt, count


def _at(srt: Tensor, index: Tensor) -> Tensor:
    """``srt``'s values at the per-slice positions ``index`` (``(k,) + rest``) of its
    first axis, clipped into range (an all-NaN slice's positions are negative)."""
    return take_along_axis(srt, clip(index, 0, srt.shape[0] - 1), axis=0)


def _nanquantile(x, q, scale: float, axis, keepdims: bool, name: str) -> Tensor:
    x = asarray(x)
    if x.size == 0:  # NumPy's: the nanmean of no values (q's shape and dtype ignored)
        _q_and_dtype(x, q, scale, name)  # (q checked all the same)
        return nanmean(x, axis, keepdims=keepdims)
    srt, kept, qs, dt, count = _nan_positions(x, q, scale, axis, name)
    rest = (1,) * (srt.ndim - 1)
    pos = asarray(qs.reshape((-1,) + rest)) * astype(count - 1, np.float64)
    lo = astype(floor(pos), np.int64)
    hi = minimum(lo + 1, count - 1)
    t = astype(pos - astype(lo, np.float64), dt)
    a, b = _at(srt, lo), _at(srt, hi)
    diff = astype(b - a, dt)  # (in x's dtype, the rest in the result's: NumPy's lerp)
    a, b = astype(a, dt), astype(b, dt)
    out = where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    if dt.kind in "fc":  # (a slice of NaN only; integer quantiles keep x's integer dtype)
        out = where(count == 0, np.nan, out)
    if keepdims:
        out = reshape(out, (out.shape[0],) + kept)
    return out if qs.ndim else out[0]


def nanquantile(x, q, axis=None, keepdims: bool = False) -> Tensor:
    """:func:`quantile` of the values that are not NaN, as ``np.nanquantile`` (linear
    method): NaN for a slice of NaN only or of no values (NumPy also warns); shapes and
    dtypes as :func:`quantile`'s.  Raises ``LazyjitError`` for a bad ``q`` as
    :func:`quantile`."""
    return _nanquantile(x, q, 1.0, axis, keepdims, "nanquantile")


def nanpercentile(x, q, axis=None, keepdims: bool = False) -> Tensor:
    """:func:`percentile` of the values that are not NaN, as ``np.nanpercentile``."""
    return _nanquantile(x, q, 0.01, axis, keepdims, "nanpercentile")


def nanmedian(x, axis=None, keepdims: bool = False) -> Tensor:
    """:func:`median` of the values that are not NaN along ``axis``, as ``np.nanmedian``:
    the middle one, or the mean of the two middle ones; NaN for a slice of NaN only
    (NumPy also warns), or of none (an empty axis).  Integers give float64."""
    x = asarray(x)
    if x.size == 0:  # NumPy's: the nanmean of no values
        return nanmean(x, axis, keepdims=keepdims)
    srt, kept, _, _, count = _nan_positions(x, 0.5, 1.0, axis, "nanmedian")
    lo, hi = (count - 1) // 2, count // 2
    a, b = _at(srt, lo[None]), _at(srt, hi[None])
    wide = np.float32 if srt.dtype == np.float16 else srt.dtype  # (as median's)
    mid = astype((astype(a, wide) + astype(b, wide)) / 2, srt.dtype)
    out = where(count == 0, np.nan, where(lo == hi, a, mid)[0] + 0.0)  # (-0.0: as median)
    return reshape(out, kept) if keepdims else out


def median(x, axis=None, keepdims: bool = False) -> Tensor:
    """The median along ``axis`` (an int, a tuple, or all axes when None), as
    ``np.median``: the middle value, or the mean of the two middle values of an even
    count; NaN where a slice has a NaN.  Integers give float64.

    Over an empty axis the result is NaN, as NumPy's (the mean of no values; NumPy
    also warns).
    """
    x = asarray(x)
    axes = _axes(axis, x.ndim, "median")
    if x.dtype.kind != "c" and builtins.any(x.shape[a] == 0 for a in axes):
        return mean(x, axis, keepdims=keepdims)  # (NumPy's: the mean of no values, NaN)
    srt, kept = _sorted(x, axis, "median")
    n = srt.shape[0]
    # (float16 added in float32, as np.mean adds it: 6e4 + 5e4 overflows float16)
    wide = srt.astype(np.float32) if srt.dtype == np.float16 else srt
    if type(n) is Dim:  # a size known at each call (lj.jit(dynamic=True)): its parity
        pair = ((wide[(n - 1) // 2] + wide[n // 2]) / 2).astype(srt.dtype)  # picks
        mid = where(asarray(n % 2) != 0, srt[n // 2], pair)
    elif n % 2:
        mid = srt[n // 2]
    else:
        mid = ((wide[n // 2 - 1] + wide[n // 2]) / 2).astype(srt.dtype)
    if mid.dtype.kind == "f":  # (np.median's mean of the middle turns -0.0 into 0.0)
        mid = mid + 0.0
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


# ---------------------------------------------------------------------------------------
# more NaN-ignoring reductions
# ---------------------------------------------------------------------------------------

def _guard(x: Tensor, ok: Tensor, message: str) -> Tensor:
    """``x``, whose computation raises ``ValueError(message)`` unless all of ``ok``."""
    return Tensor(apply("check", (x.node, ok.node), message))


def _known(x: Tensor) -> np.ndarray | None:
    """``x``'s value when it is already known (a constant or a computed tensor)."""
    return host(x.node.buffer)


def _nan_filled(x: Tensor, fill: float) -> Tensor:
    return where(isnan(x), fill, x) if x.dtype.kind in "fc" else x


def nanprod(x, axis=None, dtype=None, keepdims: bool = False) -> Tensor:
    """The product treating NaN as 1, as ``np.nanprod`` (integers: ``np.prod``, whose
    dtypes it has: small integers and bools multiply in int64)."""
    return prod(_nan_filled(asarray(x), 1.0), axis, keepdims, dtype)


def nancumsum(x, axis=None, dtype=None) -> Tensor:
    """The cumulative sum treating NaN as 0 along ``axis`` (flattened when None), as
    ``np.nancumsum``: ``x``'s shape (1-D when ``axis`` is None), ``np.cumsum``'s dtypes."""
    return cumsum(_nan_filled(asarray(x), 0.0), axis, dtype)


def nancumprod(x, axis=None, dtype=None) -> Tensor:
    """The cumulative product treating NaN as 1, as ``np.nancumprod`` (shapes and dtypes
    as :func:`nancumsum`)."""
    return cumprod(_nan_filled(asarray(x), 1.0), axis, dtype)


def _nanvar(x, axis, dtype, ddof, keepdims, correction) -> Tensor:
    """The variance of the non-NaN values in its computing dtype (float32 for float16),
    and the result's dtype."""
    x = asarray(x)
    ddof = ddof if correction is None else correction
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise op_error("nanvar", "If a is inexact, then dtype must be inexact", (x.node,),
                       cls=TypeError)
    out_dt = np.dtype(dtype) if dtype is not None else x.dtype
    nan = isnan(x)
    x = astype(where(nan, 0, x), _wide(out_dt))
    count = sum(~nan, axis, keepdims=True)
    avg = sum(x, axis, keepdims=True) / astype(count, x.dtype)
    d = where(nan, 0, x - avg)
    if d.dtype.kind == "c":  # (NumPy's real(d * conj(d)))
        re, im = elementwise("real", d), elementwise("imag", d)
        sq = re * re + im * im
        if dtype is None:  # (NumPy: complex values give their real dtype, unless asked)
            out_dt = np.dtype(out_dt.char.lower())
    else:
        sq = d * d
    axes = _axes(axis, x.ndim, "nanvar")
    dof = count - ddof
    if not keepdims:
        dof = reshape(dof, tuple(n for i, n in enumerate(x.shape) if i not in axes))
    v = sum(sq, axis, keepdims) / astype(dof, sq.dtype)
    return where(dof <= 0, np.nan, v), out_dt


def nanvar(x, axis=None, dtype=None, ddof=0, keepdims: bool = False, *,
           correction=None) -> Tensor:
    """The variance of the non-NaN values along ``axis``, dividing by their count minus
    ``ddof`` (``correction``, its NumPy 2 name), as ``np.nanvar``: NaN for a slice with
    no more than ``ddof`` values (NumPy also warns); complex values give their real
    dtype; integers and bools are ``np.var`` (float64).  float16 is computed in float32
    and rounded once (NumPy rounds every step)."""
    x = asarray(x)
    if x.dtype.kind not in "fc":
        return var(x, axis, keepdims, ddof, dtype, correction=correction)
    v, out_dt = _nanvar(x, axis, dtype, ddof, keepdims, correction)
    return astype(v, out_dt)


def nanstd(x, axis=None, dtype=None, ddof=0, keepdims: bool = False, *,
           correction=None) -> Tensor:
    """``sqrt(nanvar)``, as ``np.nanstd`` (NaN where :func:`nanvar` is NaN)."""
    x = asarray(x)
    if x.dtype.kind not in "fc":
        return sqrt(var(x, axis, keepdims, ddof, dtype, correction=correction))
    v, out_dt = _nanvar(x, axis, dtype, ddof, keepdims, correction)
    return astype(sqrt(v), out_dt)


def _nanarg(x, axis, keepdims, fn, fill, name: str) -> Tensor:
    x = asarray(x)
    if x.dtype.kind != "f":
        return fn(x, axis, keepdims)
    nan = isnan(x)
    out = fn(where(nan, fill, x), axis, keepdims)
    return _guard(out, ~any(all(nan, axis=axis)), f"{name}: All-NaN slice encountered")


def nanargmax(x, axis=None, *, keepdims: bool = False) -> Tensor:
    """The index (int64) of the largest non-NaN value along ``axis`` (of the flattened
    tensor when None), as ``np.nanargmax`` (NaN taken as ``-inf``, NumPy's rule: in a
    slice of NaN and ``-inf`` the first of them).

    Raises
    ------
    ValueError
        When the result is computed, if a slice is all NaN (NumPy raises it at once).
    LazyjitError
        An empty slice (NumPy: ``ValueError``)."""
    return _nanarg(x, axis, keepdims, argmax, -np.inf, "nanargmax")


def nanargmin(x, axis=None, *, keepdims: bool = False) -> Tensor:
    """The index (int64) of the smallest non-NaN value along ``axis``, as
    ``np.nanargmin`` (NaN taken as ``inf``); errors as :func:`nanargmax`."""
    return _nanarg(x, axis, keepdims, argmin, np.inf, "nanargmin")


# ---------------------------------------------------------------------------------------
# averages, ranges, counts, covariances
# ---------------------------------------------------------------------------------------

def _user_axes(axis, ndim: int, name: str) -> tuple[int, ...]:
    """``axis`` as non-negative ints in the order given (NumPy's ``normalize_axis_tuple``)."""
    _axes(axis, ndim, name)  # (checks range and repeats)
    given = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(int(a) % ndim for a in given)


def average(a, axis=None, weights=None, returned: bool = False, *,
            keepdims: bool = False):
    """The weighted average along ``axis`` (an int, a tuple, or all axes when None), as
    ``np.average``: ``sum(a * w) / sum(w)``; without ``weights`` the mean.

    ``weights`` has ``a``'s shape, or with ``axis`` the shape of ``a`` along those axes
    (in ``axis``'s order).  The dtype is ``np.mean``'s without weights; with them,
    ``result_type(a, weights)``, at least float64 for integer or bool ``a``.  With
    ``returned``, a pair ``(average, sum of weights)``, the latter broadcast to the
    average's shape (without weights: the number of elements averaged, in its dtype).

    Raises
    ------
    TypeError
        ``weights`` of another shape than ``a`` without ``axis``.
    ValueError
        ``weights`` that do not match ``a`` along ``axis``.
    ZeroDivisionError
        Known weights (constants, computed tensors) that sum to zero in a slice; with
        ``returned`` and no weights, an empty average (NumPy's ``a.size / avg.size``).
        Lazy weights are checked when the result is computed, raising ``ValueError``
        then (the one deviation from NumPy).
    """
    a = asarray(a)
    axes = None if axis is None else _user_axes(axis, a.ndim, "average")
    if weights is None:
        avg = mean(a, axes, keepdims)
        if not returned:
            return avg
        return avg, full(avg.shape, a.size / avg.size, avg.dtype)  # (0 / 0: ZeroDivisionError)
    w = asarray(weights)
    known = _known(w)
    dt = np.result_type(a.dtype, w.dtype, *((np.float64,) if a.dtype.kind in "biu" else ()))
    if w.shape != a.shape:
        if axes is None:
            raise TypeError("average: axis must be specified when shapes of a and weights "
                            "differ")
        if w.shape != tuple(a.shape[ax] for ax in axes):
            raise ValueError("average: shape of weights must be consistent with shape of "
                             "a along specified axis")
        order = tuple(int(i) for i in np.argsort(axes))
        shape = tuple(s if ax in axes else 1 for ax, s in enumerate(a.shape))
        w = reshape(transpose(w, order), shape)
        known = None if known is None else known.transpose(order).reshape(shape)
    scl = sum(w, axes, keepdims, dtype=dt)
    if known is not None:
        if np.any(np.sum(known.astype(dt), axis=axes) == 0):
            raise ZeroDivisionError("average: weights sum to zero, can't be normalized")
    else:
        scl = _guard(scl, all(scl != 0), "average: weights sum to zero, can't be normalized")
    avg = sum(astype(a, dt) * astype(w, dt), axes, keepdims) / scl
    if not returned:
        return avg
    return avg, broadcast_to(scl, avg.shape) if scl.shape != avg.shape else scl


def ptp(a, axis=None, keepdims: bool = False) -> Tensor:
    """The range ``max - min`` along ``axis``, as ``np.ptp`` (in ``a``'s dtype:
    integers wrap as NumPy's do).

    Raises
    ------
    TypeError
        A bool ``a`` (NumPy cannot subtract bools).
    LazyjitError
        An empty slice."""
    a = asarray(a)
    if a.dtype == np.bool_:
        raise op_error("ptp", "the range of bools is not defined (NumPy cannot subtract "
                       "them)", (a.node,), cls=TypeError)
    return max(a, axis, keepdims) - min(a, axis, keepdims)


def count_nonzero(a, axis=None, *, keepdims: bool = False) -> Tensor:
    """The number (int64) of nonzero elements along ``axis`` (NaN is nonzero), as
    ``np.count_nonzero``; with ``axis=None`` a 0-d tensor (NumPy returns a Python int)."""
    a = asarray(a)
    nonzero = a != 0 if a.dtype.kind == "c" else astype(a, np.bool_)
    return sum(nonzero, axis, keepdims, dtype=np.int64)


def _as_2d(x: Tensor, dtype) -> Tensor:
    if x.ndim > 2:
        raise op_error("cov", f"takes at most 2 dimensions, got shape {x.shape}", (x.node,),
                       cls=ValueError)
    return reshape(astype(x, dtype), (1,) * (2 - x.ndim) + tuple(x.shape))


def _sample_weights(w, n: int, name: str, integer: bool) -> Tensor:
    """``fweights``/``aweights`` as float64, checked as NumPy checks them: now when their
    values are known, else when they are computed (``ValueError``)."""
    w = asarray(w)
    known = _known(w)
    w = astype(w, np.float64)
    if w.ndim > 1:
        raise RuntimeError(f"cov: cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"cov: incompatible numbers of samples and {name}")
    if known is not None:
        known = known.astype(np.float64)
        if integer and not np.all(known == np.around(known)):
            raise TypeError("cov: fweights must be integer")
        if np.any(known < 0):
            raise ValueError(f"cov: {name} cannot be negative")
        return w
    ok = w >= 0
    if integer:
        ok = ok & (elementwise("rint", w) == w)
    return _guard(w, ok, f"cov: {name} must be non-negative" + " integers" * integer)


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None,
        aweights=None, *, dtype=None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``m`` (columns when not
    ``rowvar``), and of ``y``'s too, as ``np.cov``: ``(k, k)`` for ``k`` variables,
    squeezed (one variable: 0-d); normalized by ``N - 1`` (``N`` with ``bias``, ``N -
    ddof`` with ``ddof``), or with frequency weights ``fweights`` and observation
    weights ``aweights`` by NumPy's formula.  A normalizer ``<= 0`` gives infinities or
    NaN (NumPy also warns).  The dtype is ``dtype`` (default ``result_type(m, y,
    float64)``), float64 or complex128 with weights (as NumPy's).  No variables: a
    ``(0, 0)`` float64 tensor.

    Raises
    ------
    ValueError
        A non-integer ``ddof``, ``m`` or ``y`` of more than 2 dimensions, negative
        weights (lazy weights: when the result is computed).
    TypeError
        Known ``fweights`` that are not integers (lazy ones: ``ValueError`` when
        computed).
    RuntimeError
        Weights of more than 1 dimension, or not one per observation (as NumPy).
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("cov: ddof must be integer")
    m = asarray(m)
    y = None if y is None else asarray(y)
    if dtype is None:
        dtype = np.result_type(m.dtype, *(() if y is None else (y.dtype,)), np.float64)
    x = _as_2d(m, dtype)
    x = x if rowvar or m.ndim == 1 else transpose(x)
    if x.shape[0] == 0:
        return zeros((0, 0), np.float64)
    if y is not None:
        yy = _as_2d(y, dtype)
        x = concatenate([x, yy if rowvar or yy.shape[0] == 1 else transpose(yy)], axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    n = x.shape[1]
    fw = None if fweights is None else _sample_weights(fweights, n, "fweights", True)
    aw = None if aweights is None else _sample_weights(aweights, n, "aweights", False)
    w = fw if aw is None else aw if fw is None else fw * aw
    if w is None:
        xc = x - mean(x, 1, keepdims=True)
        c = matmul(xc, transpose(elementwise("conj", xc) if xc.dtype.kind == "c" else xc))
        if type(n) is Dim:  # (a count known at each call: NumPy's max(n - ddof, 0) then)
            fact = size_value(n, np.float64) - float(ddof)
            return squeeze(_scaled(c, where(fact > 0, 1 / fact, np.inf)))
        fact = builtins.max(n - ddof, 0)
        return squeeze(_scaled(c, 1 / fact if fact else np.inf))  # (0 * inf: NaN)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if ddof == 0:
        fact = w_sum
    elif aw is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * sum(w * aw) / w_sum
    xc = astype(x - avg[:, None], x.dtype)
    xt = transpose(xc * w)
    c = matmul(xc, elementwise("conj", xt) if xt.dtype.kind == "c" else xt)
    real_fact = elementwise("real", fact) if fact.dtype.kind == "c" else fact
    return squeeze(_scaled(c, where(real_fact > 0, 1 / fact, np.inf)))


def _scaled(c: Tensor, k) -> Tensor:
    """``c * k`` as NumPy's ``c *= np.true_divide(1, fact)`` computes it: in double
    precision (``k`` a float64 scalar), rounded once to ``c``'s dtype."""
    wide = np.complex128 if c.dtype.kind == "c" else np.float64
    return astype(astype(c, wide) * k, c.dtype)


def corrcoef(x, y=None, rowvar: bool = True, *, dtype=None) -> Tensor:
    """Pearson correlation coefficients ``cov / outer(std, std)`` of the variables of
    ``x`` (and ``y``), as ``np.corrcoef``: shapes, dtypes and ``rowvar`` as :func:`cov`,
    the real and imaginary parts clipped to ``[-1, 1]``; one variable gives ``c / c``
    (1, or NaN); a constant variable gives NaN (NumPy also warns).

    Raises
    ------
    ValueError
        As :func:`cov`."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = diagonal(c)
    std = sqrt(elementwise("real", d) if d.dtype.kind == "c" else d)
    c = c / std[:, None] / std[None, :]
    if c.dtype.kind != "c":
        return clip(c, -1, 1)
    re, im = clip(elementwise("real", c), -1, 1), clip(elementwise("imag", c), -1, 1)
    return re + im * 1j
