"""NumPy's differences, integrals, interpolation, convolution and histograms (``diff``,
``ediff1d``, ``gradient``, ``trapezoid``, ``unwrap``, ``polyval``, ``interp``,
``convolve``, ``correlate``, ``digitize``, ``histogram``, ``histogram_bin_edges``), lazy
and differentiable where NumPy's are, written in lazyjit's primitives.

Each follows the NumPy function of the same name, which the tests compare it with:
shapes, dtypes, edge cases and, where NumPy's result depends on the order of its
floating-point operations (``gradient``'s stencils, ``interp``'s retry on NaN,
``histogram``'s uniform bins), that order.  Sizes must be known when the graph is built
(slices, stencils and convolution indices are constants).
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from lazyjit.api.core import (_axes, abs, asarray, astype, broadcast_to, clip,  # noqa: A004
                              elementwise, isinf, isnan, where, zeros)
from lazyjit.api.indexing import inc_subtensor
from lazyjit.api.reductions import any, max, min, sum  # noqa: A004
from lazyjit.api.searching import searchsorted
from lazyjit.api.shape_ops import concatenate, ravel, reshape, take
from lazyjit.api.sorting import argsort, cumsum
from lazyjit.api.statistics import _guard
from lazyjit.api.tensor import Tensor
from lazyjit.api.ufuncs import conj_method as conj, isfinite  # (bool stays bool)
from lazyjit.api.weak import WeakScalar
from lazyjit.errors import op_error
from lazyjit.trace.values import host

__all__ = ["diff", "ediff1d", "gradient", "trapezoid", "unwrap", "polyval", "interp",
           "convolve", "correlate", "digitize", "histogram", "histogram_bin_edges"]


def _along(x: Tensor, axis: int, index) -> Tensor:
    return x[(slice(None),) * axis + (index,)]


# ---------------------------------------------------------------------------------------
# differences and integrals
# ---------------------------------------------------------------------------------------

def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None) -> Tensor:
    """The ``n``-th discrete difference along ``axis``, as ``np.diff``: ``out[i] =
    a[i + 1] - a[i]``, applied ``n`` times (``not_equal`` for bools), after ``prepend``
    and ``append`` (scalars broadcast to one slice, or arrays) are joined along ``axis``.
    The axis shrinks by ``n`` (to 0 at most); the dtype is ``a``'s (promoted with
    ``prepend``/``append``); unsigned integers wrap, as NumPy's.  ``n == 0`` returns
    ``a``.  (``None`` stands for NumPy's "not given" of ``prepend``/``append``.)

    Raises
    ------
    ValueError
        A negative ``n`` or a 0-d ``a``.
    LazyjitError
        A bad axis.
    """
    if n == 0:
        return asarray(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n!r}")
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("diff: diff requires input that is at least one dimensional")
    (axis,) = _axes(operator.index(axis), a.ndim, "diff")
    parts = [a]
    if prepend is not None:
        parts.insert(0, _edge(prepend, a, axis))
    if append is not None:
        parts.append(_edge(append, a, axis))
    if len(parts) > 1:
        a = concatenate(parts, axis)
    for _ in range(n):
        hi, lo = _along(a, axis, slice(1, None)), _along(a, axis, slice(None, -1))
        a = hi != lo if a.dtype == np.bool_ else hi - lo
    return a


def _edge(value, a: Tensor, axis: int) -> Tensor:
    """``prepend``/``append`` as a block along ``axis`` (a scalar: one slice of it)."""
    v = asarray(value)
    if v.ndim:
        return v
    return broadcast_to(v, tuple(1 if i == axis else d for i, d in enumerate(a.shape)))


def ediff1d(ary, to_end=None, to_begin=None) -> Tensor:
    """The differences ``ary[1:] - ary[:-1]`` of the flattened ``ary``, with ``to_begin``
    and ``to_end`` (flattened) joined before and after, as ``np.ediff1d``: 1-D, in
    ``ary``'s dtype.

    Raises
    ------
    TypeError
        A bool ``ary`` (NumPy cannot subtract bools), or ``to_begin``/``to_end`` whose
        dtype cannot be cast to ``ary``'s under the ``same_kind`` rule.
    """
    ary = ravel(asarray(ary))
    if ary.dtype == np.bool_:
        raise op_error("ediff1d", "NumPy cannot subtract bools", (ary.node,), cls=TypeError)
    parts = [ary[1:] - ary[:-1]]
    for value, name, at in ((to_begin, "to_begin", 0), (to_end, "to_end", 1)):
        if value is None:
            continue
        v = ravel(asarray(value))
        if not np.can_cast(v.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"ediff1d: dtype of `{name}` must be compatible with input "
                            "`ary` under the `same_kind` rule.")
        parts.insert(0 if at == 0 else len(parts), astype(v, ary.dtype))
    return concatenate(parts) if len(parts) > 1 else parts[0]


def trapezoid(y, x=None, dx=1.0, axis: int = -1) -> Tensor:
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, as
    ``np.trapezoid``: sample points ``x`` (1-D along ``axis``, or ``y``'s shape) or the
    spacing ``dx``.  The shape is ``y``'s without ``axis``; the dtype NumPy's
    (``y``'s float dtype, float64 for integers and bools, promoted with ``x``).

    Raises
    ------
    LazyjitError
        A bad axis (a 0-d ``y``) or shapes that do not broadcast.
    """
    y = asarray(y)
    (ax,) = _axes(operator.index(axis), y.ndim, "trapezoid")
    if x is None:
        d = dx if isinstance(dx, (int, float, WeakScalar)) else asarray(dx)  # (weak)
    else:
        x = asarray(x)
        if x.ndim == 1:
            d = diff(x)
            d = reshape(d, tuple(d.shape[0] if i == ax else 1 for i in range(y.ndim)))
        else:
            d = diff(x, axis=ax)
    pairs = _along(y, ax, slice(1, None)) + _along(y, ax, slice(None, -1))
    return sum(d * pairs / 2.0, ax)


def _spacings(f: Tensor, varargs: tuple, axes: tuple[int, ...]) -> list:
    """NumPy's ``dx`` per axis: a scalar (uniform spacing) or a 1-D tensor of the
    differences of coordinates that are not evenly spaced."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return [varargs[0]] * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("gradient: invalid number of arguments")
    out = []
    for ax, spacing in zip(axes, varargs):
        if np.ndim(spacing) == 0:
            out.append(spacing)
            continue
        coords = asarray(spacing)
        if coords.ndim != 1:
            raise ValueError("gradient: distances must be either scalars or 1d")
        if coords.shape[0] != f.shape[ax]:
            raise ValueError("gradient: when 1d, distances must match the length of the "
                             "corresponding dimension")
        if coords.shape[0] < 2:
            raise ValueError("gradient: shape of array too small to calculate a numerical "
                             "gradient")
        if coords.dtype.kind in "iu":
            coords = astype(coords, np.float64)
        d = diff(coords)
        values = np.diff(coords.numpy())  # (the formula depends on them, as NumPy's)
        out.append(d[0] if (values == values[0]).all() else d)
    return out


def _stencil(f: Tensor, ax: int, dx, edge_order: int) -> Tensor:
    """NumPy's gradient along ``ax``: central differences inside, one-sided (first or
    second order) at the two ends, in NumPy's order of operations."""
    def at(index):
        return _along(f, ax, index)

    uniform = np.ndim(dx) == 0
    if uniform:
        inner = (at(slice(2, None)) - at(slice(None, -2))) / (2. * dx)
    else:
        dx1, dx2 = dx[0:-1], dx[1:]
        shape = tuple(-1 if i == ax else 1 for i in range(f.ndim))
        a = reshape(-(dx2) / (dx1 * (dx1 + dx2)), shape)
        b = reshape((dx2 - dx1) / (dx1 * dx2), shape)
        c = reshape(dx1 / (dx2 * (dx1 + dx2)), shape)
        inner = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
    n = f.shape[ax]
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / (dx if uniform else dx[0])
        last = (at(slice(n - 1, n)) - at(slice(n - 2, n - 1))) / (dx if uniform else dx[-1])
    else:
        if uniform:
            a, b, c = -1.5 / dx, 2. / dx, -0.5 / dx
        else:
            dx1, dx2 = dx[0], dx[1]
            a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = - dx1 / (dx2 * (dx1 + dx2))
        first = a * at(slice(0, 1)) + b * at(slice(1, 2)) + c * at(slice(2, 3))
        if uniform:
            a, b, c = 0.5 / dx, -2. / dx, 1.5 / dx
        else:
            dx1, dx2 = dx[-2], dx[-1]
            a = (dx2) / (dx1 * (dx1 + dx2))
            b = - (dx2 + dx1) / (dx1 * dx2)
            c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * at(slice(n - 3, n - 2)) + b * at(slice(n - 2, n - 1)) + c * at(slice(n - 1, n))
    return concatenate([astype(p, f.dtype) for p in (first, inner, last)], ax)


def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """The gradient of ``f`` by second-order central differences inside and first- or
    second-order (``edge_order``) one-sided differences at the boundaries, as
    ``np.gradient``.  ``varargs``: nothing (spacing 1), one scalar spacing for every
    axis, or one per axis of ``axis`` (all axes when None), each a scalar or the 1-D
    coordinates along it.  Returns one tensor of ``f``'s shape per axis (a tuple), or
    one tensor for a single axis; the dtype is ``f``'s float dtype (float64 for
    integers).  Coordinate arrays are computed when the graph is built (NumPy picks its
    formula by whether they are evenly spaced); derivatives reach them too.

    Raises
    ------
    TypeError
        A bool ``f`` (NumPy cannot subtract bools), or a number of spacings that is
        neither 0, 1 nor the number of axes.
    ValueError
        ``edge_order > 2``, spacings that are not scalars or 1-D, coordinates of another
        length than their axis, or an axis shorter than ``edge_order + 1`` (also for a
        coordinate array of one element, where NumPy raises ``IndexError``).
    """
    f = asarray(f)
    if f.dtype == np.bool_:
        raise op_error("gradient", "NumPy cannot subtract bools", (f.node,), cls=TypeError)
    _axes(axis, f.ndim, "gradient")  # (range and repeats)
    axes = tuple(range(f.ndim)) if axis is None else \
        tuple(int(a) % f.ndim for a in np.atleast_1d(axis))  # (in the order given)
    dxs = _spacings(f, varargs, axes)
    if edge_order > 2:
        raise ValueError("gradient: 'edge_order' greater than 2 not supported")
    if f.dtype.kind not in "fc":
        f = astype(f, np.float64)
    outs = []
    for ax, dx in zip(axes, dxs):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("gradient: shape of array too small to calculate a numerical "
                             "gradient, at least (edge_order + 1) elements are required.")
        outs.append(_stencil(f, ax, dx, edge_order))
    return outs[0] if len(axes) == 1 else tuple(outs)


def unwrap(p, discont=None, axis: int = -1, *, period=2 * np.pi) -> Tensor:
    """``p`` with its jumps of more than ``max(discont, period / 2)`` between neighbours
    along ``axis`` replaced by their complement modulo ``period``, as ``np.unwrap``:
    ``p``'s shape; dtype ``result_type(diff(p), period)`` (integer ``p`` and an integer
    ``period`` stay integer).

    Raises
    ------
    LazyjitError
        A 0-d ``p`` or a bad axis.
    """
    p = asarray(p)
    if p.ndim == 0:
        raise op_error("unwrap", "needs at least 1 dimension", (p.node,))
    (axis,) = _axes(operator.index(axis), p.ndim, "unwrap")
    dd = diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    dtype = np.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = (dd - low) % period + low
    if ambiguous:
        ddmod = where((ddmod == low) & (dd > 0), high, ddmod)
    correct = where(abs(dd) < discont, 0, ddmod - dd)
    up = astype(p, dtype)
    if p.shape[axis] < 2:
        return up
    rest = _along(p, axis, slice(1, None)) + cumsum(correct, axis)
    return concatenate([_along(up, axis, slice(0, 1)), astype(rest, dtype)], axis)


def polyval(p, x) -> Tensor:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by
    Horner's scheme, as ``np.polyval``: ``x``'s shape (broadcast with ``p[i]``); dtype
    ``result_type(x, p)`` (``x``'s for no coefficients)."""
    p, x = asarray(p), asarray(x)
    if p.ndim == 0:
        raise op_error("polyval", "p must be a sequence of coefficients, not a scalar",
                       (p.node,), cls=TypeError)
    y = zeros(x.shape, x.dtype)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


# ---------------------------------------------------------------------------------------
# interpolation and convolution
# ---------------------------------------------------------------------------------------

def _interp_real(x: Tensor, xp: Tensor, fp: Tensor, left, right) -> Tensor:
    """NumPy's ``compiled_interp`` on float64 tensors (``xp`` increasing)."""
    n = xp.shape[0]
    lval = fp[0] if left is None else left
    rval = fp[-1] if right is None else right
    if n == 1:  # (a NaN x gives fp[0] here, as NumPy's)
        return where(x < xp[0], lval, where(x > xp[0], rval, fp[0]))
    j = searchsorted(xp, x, side="right") - 1  # xp[j] <= x < xp[j + 1]
    jc = clip(j, 0, n - 2)
    x0, x1, y0, y1 = take(xp, jc), take(xp, jc + 1), take(fp, jc), take(fp, jc + 1)
    slope = (y1 - y0) / (x1 - x0)
    out = slope * (x - x0) + y0
    out = where(isnan(out), slope * (x - x1) + y1, out)  # (NaN one way: the other way)
    out = where(isnan(out) & (y0 == y1), y0, out)
    # (NumPy's fp[j] at a knot where the slope is not finite, or fp[j] is a zero whose
    # sign the formula could change; elsewhere the formula, exact there: its derivative
    # at a knot is the slope to the right, as JAX's)
    out = where((x0 == x) & (~isfinite(slope) | (y0 == 0)), y0, out)
    out = where(j == n - 1, fp[-1], out)
    out = where(j < 0, lval, out)
    out = where(x > xp[-1], rval, out)
    return where(isnan(x), x, out)


def interp(x, xp, fp, left=None, right=None, period=None) -> Tensor:
    """The piecewise-linear interpolant of the points ``(xp, fp)`` at ``x``, as
    ``np.interp``: ``x``'s shape, float64 (complex128 for complex ``fp``); ``left`` and
    ``right`` (default ``fp[0]``, ``fp[-1]``) outside ``[xp[0], xp[-1]]``; with
    ``period``, ``x`` and ``xp`` taken modulo it (``xp`` then need not be sorted:
    sorted lazily).  ``xp`` must be increasing (not checked, as NumPy does not); a NaN
    ``x`` gives NaN (NumPy's rules where a slope is NaN or infinite are followed).
    Derivatives reach ``x``, ``xp`` and ``fp``.

    Raises
    ------
    ValueError
        ``xp`` or ``fp`` not 1-D, of different lengths, or empty; ``period == 0``.
    """
    x, xp, fp = asarray(x), asarray(xp), asarray(fp)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("interp: data points must be 1-D sequences")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("interp: fp and xp are not of the same length")
    if xp.shape[0] == 0:
        raise ValueError("interp: array of sample points is empty")
    for v in (x, xp):
        if v.dtype.kind == "c":  # (NumPy's cast rule: complex x or xp is refused)
            raise op_error("interp", f"Cannot cast array data from {v.dtype} to float64 "
                           "according to the rule 'safe'", (v.node,), cls=TypeError)
    complex_ = fp.dtype.kind == "c"
    x, xp = astype(x, np.float64), astype(xp, np.float64)
    fp = astype(fp, np.complex128 if complex_ else np.float64)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period, left, right = builtins.abs(period), None, None
        x, xp = x % period, xp % period
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([xp[-1:] - period, xp, xp[0:1] + period])
        fp = concatenate([fp[-1:], fp, fp[0:1]])
    if not complex_:
        return _interp_real(x, xp, fp, left, right)
    parts = []
    for part in ("real", "imag"):
        side = [None if v is None else elementwise(part, astype(asarray(v), np.complex128))
                for v in (left, right)]
        parts.append(_interp_real(x, xp, elementwise(part, fp), *side))
    return parts[0] + where(isnan(x), 0.0, parts[1]) * 1j  # (NaN x: NaN + 0j, as NumPy's)


_MODES = {"valid": 0, "same": 1, "full": 2}


def _correlation(a: Tensor, v: Tensor, start: int, length: int) -> Tensor:
    """Rows ``start .. start + length`` of the full correlation ``sum_n a[k - (M - 1) +
    n] * v[n]`` (lags ``-(M - 1) .. N - 1``), of NumPy's dtype: constant index arrays
    gather ``a`` into a ``(length, M)`` table multiplied by ``v`` and summed, the terms
    outside ``a`` masked out (no ``0 * inf``)."""
    n, m = a.shape[0], v.shape[0]
    idx = np.arange(start, start + length)[:, None] - (m - 1) + np.arange(m)[None, :]
    inside = (idx >= 0) & (idx < n)
    table = take(a, np.clip(idx, 0, n - 1))
    dt = np.result_type(a.dtype, v.dtype)
    if dt == np.bool_:  # (NumPy's bool dot: any of the ands)
        return any(table & v & inside, axis=1)
    terms = astype(table, dt) * astype(v, dt)
    return sum(where(inside, terms, zeros((), dt)), axis=1, dtype=dt)


def _check_1d(a, v, name: str) -> tuple[Tensor, Tensor]:
    a, v = asarray(a), asarray(v)
    if name == "correlate" and 0 in (a.ndim, v.ndim):  # (NumPy's correlate, not convolve)
        raise ValueError("correlate: object of too small depth for desired array")
    a = reshape(a, (1,)) if a.ndim == 0 else a
    v = reshape(v, (1,)) if v.ndim == 0 else v
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}: object too deep for desired array (1-D inputs only)")
    if a.shape[0] == 0:
        raise ValueError(f"{name}: a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError(f"{name}: v cannot be empty")
    return a, v


def _mode(mode, name: str) -> int:
    code = _MODES.get(mode, mode) if isinstance(mode, str) else mode
    if code not in (0, 1, 2):
        raise ValueError(f"{name}: mode must be one of 'valid', 'same', or 'full', "
                         f"not {mode!r}")
    return code


def correlate(a, v, mode="valid") -> Tensor:
    """The cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-D
    sequences, as ``np.correlate``: ``mode`` ``"valid"`` (length ``max(M, N) - min(M,
    N) + 1``), ``"same"`` (``max(M, N)``) or ``"full"`` (``M + N - 1``), aligned as
    NumPy aligns them; dtype ``result_type(a, v)`` (integers wrap, bools give bools).
    Lazy and differentiable; memory ``length * len(v)``.

    Raises
    ------
    ValueError
        Inputs of more than 1 dimension, an empty input, or an unknown mode.
    """
    a, v = _check_1d(a, v, "correlate")
    code = _mode(mode, "correlate")
    n, m = a.shape[0], v.shape[0]
    v = conj(v)
    if code == 2:
        return _correlation(a, v, 0, n + m - 1)
    if n >= m:
        start, length = ((m - 1) - m // 2, n) if code == 1 else (m - 1, n - m + 1)
    else:  # (NumPy swaps them and reverses the result)
        start, length = (n // 2, m) if code == 1 else (n - 1, m - n + 1)
    return _correlation(a, v, start, length)


def convolve(a, v, mode="full") -> Tensor:
    """The discrete linear convolution ``c[k] = sum_n a[n] * v[k - n]`` of two 1-D
    sequences, as ``np.convolve`` (no conjugation): modes, lengths and dtypes as
    :func:`correlate`, ``"same"`` centred on the longer input.

    Raises
    ------
    ValueError
        As :func:`correlate`.
    """
    a, v = _check_1d(a, v, "convolve")
    code = _mode(mode, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    start, length = {0: (m - 1, n - m + 1), 1: ((m - 1) - m // 2, n), 2: (0, n + m - 1)}[code]
    return _correlation(a, v[::-1], start, length)


# ---------------------------------------------------------------------------------------
# bins
# ---------------------------------------------------------------------------------------

def _monotonicity(values: np.ndarray) -> int:
    """NumPy's ``_monotonicity``: 1 increasing (or constant), -1 decreasing, 0 neither."""
    if values.size < 2:
        return 1
    moved = np.flatnonzero(~(values[1:] == values[0]))  # (NaN differs: as NumPy's C loop)
    if moved.size == 0:
        return 1
    i = int(moved[0]) + 1
    if values[0] < values[i]:
        return 0 if np.any(values[i:-1] > values[i + 1:]) else 1
    return 0 if np.any(values[i:-1] < values[i + 1:]) else -1  # (a NaN: "decreasing")


def digitize(x, bins, right: bool = False) -> Tensor:
    """The index (int64) of the bin of each ``x``, as ``np.digitize``: ``i`` with
    ``bins[i-1] <= x < bins[i]`` for increasing ``bins`` (``<`` and ``<=`` swapped with
    ``right``; mirrored for decreasing ``bins``), 0 or ``len(bins)`` outside; ``x``'s
    shape.  Computes ``bins`` when it is a lazy tensor (its direction decides the
    search); ``x`` stays lazy.

    Raises
    ------
    TypeError
        A complex ``x``.
    ValueError
        ``bins`` not 1-D, or not monotonic.
    """
    x, bins = asarray(x), asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("digitize: x may not be complex")
    if bins.ndim != 1:
        raise ValueError("digitize: bins must be 1-dimensional")
    mono = _monotonicity(bins.numpy())
    if mono == 0:
        raise ValueError("digitize: bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if mono == -1:
        return bins.shape[0] - searchsorted(bins[::-1], x, side=side)
    return searchsorted(bins, x, side=side)


def _unsigned_subtract(a, b):
    """NumPy's ``_unsigned_subtract`` of two known scalars (no overflow for ints)."""
    dt = np.result_type(a, b)
    if dt.kind != "i":
        return np.subtract(a, b, dtype=dt)
    return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe",
                       dtype=np.dtype(dt.char.upper()))


def _known_edges(a: Tensor, range_, bins: int):
    """``(first, last, edges)`` from a given ``range`` (or an empty ``a``), as NumPy's
    ``_get_outer_edges`` and ``linspace``: all known now."""
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("histogram: max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"histogram: supplied range of [{first}, {last}] is not finite")
    else:
        first, last = 0, 1
    if first == last:
        first, last = first - 0.5, last + 0.5
    dt = np.result_type(first, last, a.dtype)
    dt = np.result_type(dt, float) if dt.kind in "iub" else dt
    return first, last, asarray(np.linspace(first, last, bins + 1, endpoint=True, dtype=dt))


def _lazy_edges(a: Tensor, bins: int):
    """``(first, last, edges)`` from ``a``'s minimum and maximum, lazily: NumPy's
    ``linspace`` in its order of operations (``arange * step + first``, the last edge
    ``last``), in ``a``'s float dtype (float64 for integers)."""
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    lo, hi = min(a), max(a)
    msg = "histogram: autodetected range of the data is not finite"
    lo = _guard(lo, ~(isnan(lo) | isinf(lo) | isnan(hi) | isinf(hi)), msg)
    same = lo == hi
    first = where(same, astype(lo, dt) - 0.5, astype(lo, dt))
    last = where(same, astype(hi, dt) + 0.5, astype(hi, dt))
    step = (last - first) / bins
    steps = asarray(np.arange(bins + 1, dtype=dt))
    y = where(step == 0, steps / bins * (last - first), steps * step) + first
    edges = concatenate([y[:-1], reshape(last, (1,))])
    if a.dtype.kind == "f":
        return first, last, edges, last - first
    width = astype(astype(hi - lo, np.dtype(hi.dtype.char.upper())), np.float64)
    return first, last, edges, where(same, 1.0, width)  # (NumPy's unsigned difference)


def _bin_edges(a: Tensor, bins, range_):
    """``(edges, uniform)``: the bin edges, and ``(first, last, bins, width)`` for
    evenly spaced bins (None for given edges)."""
    if isinstance(bins, str):
        raise op_error("histogram", f"bin estimators such as {bins!r} are not supported: "
                       "give a number of bins or the edges", (a.node,))
    if np.ndim(bins) == 0:
        try:
            count = operator.index(bins)
        except TypeError as e:
            raise TypeError("histogram: `bins` must be an integer, a string, or an "
                            "array") from e
        if count < 1:
            raise ValueError("histogram: `bins` must be positive, when an integer")
        if range_ is not None or a.size == 0:
            first, last, edges = _known_edges(a, range_, count)
            return edges, (first, last, count, _unsigned_subtract(last, first))
        first, last, edges, width = _lazy_edges(a, count)
        return edges, (first, last, count, width)
    edges = asarray(bins)
    if edges.ndim != 1:
        raise ValueError("histogram: `bins` must be 1d, when an array")
    known = host(edges.node.buffer)
    if known is not None:
        if np.any(known[:-1] > known[1:]):
            raise ValueError("histogram: `bins` must increase monotonically, when an array")
    elif edges.shape[0] > 1:
        edges = _guard(edges, ~any(edges[:-1] > edges[1:]),
                       "histogram: `bins` must increase monotonically, when an array")
    return edges, None


def histogram_bin_edges(a, bins=10, range=None, weights=None) -> Tensor:  # noqa: A002
    """The bin edges :func:`histogram` uses, as ``np.histogram_bin_edges``: ``bins + 1``
    evenly spaced edges over ``range`` (default: the data's minimum and maximum,
    computed lazily; widened by 0.5 both ways when equal; ``(0, 1)`` for no data), in
    NumPy's dtype (``a``'s float dtype, float64 for integers; promoted with ``range``),
    or the given edges.  ``weights`` only matter to estimators, which are not supported.

    Raises
    ------
    TypeError
        ``bins`` neither an integer nor an array.
    ValueError
        ``bins < 1``, a reversed or infinite ``range``, edges not 1-D or (known)
        decreasing; data with NaN or infinities when ``range`` is not given, and lazy
        decreasing edges, when the result is computed.
    LazyjitError
        A string ``bins`` (NumPy's estimators are not supported).
    """
    return _bin_edges(ravel(asarray(a)), bins, range)[0]


def _uniform_bins(a: Tensor, edges: Tensor, first, last, count: int, width) -> tuple:
    """The bin of each element and whether it is inside the range: NumPy's guess from
    ``(a - first) / width * bins``, corrected by one against the edges."""
    keep = (a >= first) & (a <= last)
    x = where(keep, astype(a, edges.dtype), first)  # (outside: bin 0, masked out)
    guess = astype(((x - first) / width) * count, np.int64)
    idx = clip(guess, 0, count - 1)
    idx = idx - astype(x < take(edges, idx), np.int64)
    idx = clip(idx, 0, count - 1)
    up = (x >= take(edges, idx + 1)) & (idx != count - 1)
    return idx + astype(up, np.int64), keep


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The histogram of the flattened ``a``, as ``np.histogram``: a pair ``(hist,
    bin_edges)``, edges as :func:`histogram_bin_edges`; each bin half-open
    ``[edge_i, edge_{i+1})`` but the last, closed; values outside the edges (and NaN)
    are not counted.  Evenly spaced bins place values on an edge as NumPy's algorithm
    does.  ``hist`` is int64 counts, or sums of ``weights`` (``a``'s shape) in their
    dtype; with ``density``, float64 densities (``hist / widths / hist.sum()``).  Lazy:
    the sums are an indexed accumulation, so derivatives reach the weights (and, through
    the edges, the data's extremes); with given edges, the weighted sums are direct sums
    where NumPy takes differences of cumulative sums (the last bits can differ).
    NumPy's bin estimators (``bins="auto"``, ``"fd"``, ...) are not supported: give a
    number of bins or the edges.

    Raises
    ------
    ValueError
        ``weights`` of another shape than ``a``; as :func:`histogram_bin_edges`.
    TypeError, LazyjitError
        As :func:`histogram_bin_edges`; complex weights (``TypeError``).
    """
    a = asarray(a)
    w = None if weights is None else asarray(weights)
    if w is not None and w.shape != a.shape:
        raise ValueError("histogram: weights should have the same shape as a.")
    if w is not None and w.dtype.kind == "c":
        raise op_error("histogram", "complex weights are not supported", (w.node,),
                       cls=TypeError)
    a = ravel(a)
    if a.dtype == np.bool_:  # (NumPy converts them, with a warning)
        a = astype(a, np.uint8)
    edges, uniform = _bin_edges(a, bins, range)
    count = edges.shape[0] - 1
    if uniform is not None:
        idx, keep = _uniform_bins(a, edges, *uniform)
    else:
        idx = clip(searchsorted(edges, a, side="right") - 1, 0, count - 1)
        keep = (a >= edges[0]) & (a <= edges[-1])
    if w is None:
        hist = inc_subtensor(zeros(count, np.int64)[idx], astype(keep, np.int64))
    else:
        sums = inc_subtensor(zeros(count, np.float64)[idx],
                             where(keep, astype(ravel(w), np.float64), 0.0))
        hist = astype(sums, w.dtype)
    if density:
        widths = astype(diff(edges), np.float64)
        return hist / widths / sum(hist), edges
    return hist, edges
