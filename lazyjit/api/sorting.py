"""Scans and sorts: ``cumsum``, ``cumprod``, ``sort``, ``argsort``.

``cumsum``/``cumprod`` are one ``lj.scan`` along the axis (a loop inside the compiled
code; the gradient is the reverse scan).  ``argsort`` is the primitive of
:mod:`lazyjit.ops.sort` (a stable merge sort per row on the cpu backend) applied along
the last axis, and ``sort`` gathers the values by it (``take_along_axis``), so the
gradient of a sort goes back to each value's own position.  Order is NumPy's:
ascending, NaN last; ``argsort`` is stable (ties keep their order).
"""
from __future__ import annotations

import numpy as np

import lazyjit.api.core as C
import lazyjit.api.shape_ops as S
from lazyjit.api.indexing import take_along_axis
from lazyjit.api.scan import scan, size_range
from lazyjit.api.tensor import Tensor
from lazyjit.ops import apply
from lazyjit.errors import op_error

__all__ = ["cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "sort", "argsort",
           "products_of_others"]


def _acc_dtype(x: Tensor, dtype) -> np.dtype:
    """NumPy's accumulator dtype: small integers and bools widen to the platform int."""
    if dtype is not None:
        return np.dtype(dtype)
    if x.dtype.kind == "b" or (x.dtype.kind == "i" and x.dtype.itemsize < 8):
        return np.dtype(np.int64)
    if x.dtype.kind == "u" and x.dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return x.dtype


def _scan_along(x, axis, dtype, combine, name: str) -> Tensor:
    x = C.asarray(x)
    if axis is None:
        x, axis = S.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise op_error(name, "needs an axis to run along (got a 0-d tensor)", (x.node,))
    axis = C._axes(axis, x.ndim, name)[0]
    x = C.astype(x, _acc_dtype(x, dtype))
    rows = S.moveaxis(x, axis, 0)
    n = rows.shape[0]
    if type(n) is int and n >= 1:  # from the first row, as NumPy's accumulate: not from
        if n == 1:  # 0 or 1 (0 + -0. is +0., (1+0j) * (inf+1j) is inf+nanj)
            return S.moveaxis(rows, 0, axis)
        rest, _ = scan(lambda row, acc: combine(acc, row), sequences=rows[1:],
                       outputs_info=rows[0], name=name)
        return S.moveaxis(S.concatenate([rows[:1], rest]), 0, axis)
    start = C.zeros(rows.shape[1:], x.dtype) if combine is C.add else \
        C.ones(rows.shape[1:], x.dtype)  # (an empty or symbolic axis: the first row is
    first = size_range(n) == 0  # still taken as it is, where the step is the first)
    out, _ = scan(lambda row, f, acc: C.where(f, row, combine(acc, row)),
                  sequences=[rows, first], outputs_info=start, name=name)
    return S.moveaxis(out, 0, axis)


def cumsum(x, axis=None, dtype=None) -> Tensor:
    """Cumulative sum along ``axis`` (flattened when None), as ``np.cumsum``: same
    shape; bools and integers narrower than 64 bits accumulate in int64 (uint64).

    Runs as one ``lj.scan`` over the axis (O(n) steps inside the compiled code).
    Raises ``LazyjitError`` for a 0-d input with an axis, or a bad axis."""
    return _scan_along(x, axis, dtype, C.add, "cumsum")


def cumprod(x, axis=None, dtype=None) -> Tensor:
    """Cumulative product along ``axis`` (flattened when None), as ``np.cumprod``
    (dtypes as :func:`cumsum`)."""
    return _scan_along(x, axis, dtype, C.multiply, "cumprod")


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """The Array API's (and NumPy 2.1's) ``cumulative_sum``: :func:`cumsum` along
    ``axis``, which may be None only for a 1-D ``x``; ``include_initial`` puts the sum of
    nothing (0) first, one more element along ``axis``.

    Raises ``LazyjitError`` for ``axis=None`` with more than one dimension."""
    return _cumulative(x, axis, dtype, include_initial, cumsum, C.zeros, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """NumPy 2.1's (and the Array API 2024's) ``cumulative_prod``: :func:`cumprod` along
    ``axis``, which may be None only for a 1-D ``x``; ``include_initial`` puts the product
    of nothing (1) first, one more element along ``axis``; dtypes as ``cumprod``'s.

    Raises ``LazyjitError`` for ``axis=None`` with more than one dimension."""
    return _cumulative(x, axis, dtype, include_initial, cumprod, C.ones, "cumulative_prod")


def _cumulative(x, axis, dtype, include_initial: bool, scan, initial, name: str) -> Tensor:
    x = C.asarray(x)
    if x.ndim == 0:  # (NumPy's: a 0-d x as 1-d)
        x = S.reshape(x, (1,))
    if axis is None:
        if x.ndim != 1:
            raise op_error(name, f"axis must be given for {x.ndim}-d input", (x.node,))
        axis = 0
    out = scan(x, axis, dtype)
    if not include_initial:
        return out
    axis = C._axes(axis, x.ndim, name)[0]
    shape = tuple(1 if i == axis else d for i, d in enumerate(out.shape))
    return S.concatenate([initial(shape, out.dtype), out], axis=axis)


def products_of_others(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    """For each element, the product of the other elements of its group (the elements
    reduced together over ``axes``): the partial derivative of ``prod(x, axes)``.

    Computed as an exclusive prefix product times an exclusive suffix product (two
    ``cumprod`` scans), never as ``prod / x``: exact where elements are zero (the
    derivative of ``prod([0, 2, 3])`` is ``[6, 0, 0]``), and a polynomial in ``x``, so its
    own derivatives (a Hessian of a product) are exact too, as JAX's product rule tree.
    ``x``: any shape, floating point; returns a tensor of ``x``'s shape and dtype."""
    kept = [a for a in range(x.ndim) if a not in axes]
    perm = (*kept, *axes)
    moved = S.transpose(x, perm)
    n = 1
    for a in axes:
        n *= x.shape[a]
    if n == 0:
        return C.zeros_like(x)
    rows = S.reshape(moved, (*moved.shape[:len(kept)], n))
    one = C.ones((*rows.shape[:-1], 1), x.dtype)
    before = S.concatenate([one, cumprod(rows, axis=-1)[..., :-1]], axis=-1)
    after = S.concatenate([cumprod(rows[..., ::-1], axis=-1)[..., -2::-1], one], axis=-1)
    others = S.reshape(before * after, moved.shape)
    return S.transpose(others, tuple(int(i) for i in np.argsort(perm)))


def _sort(x, axis, descending: bool, with_index: bool, name: str):
    x = C.asarray(x)
    if axis is None:  # NumPy: the flattened array
        x, axis = S.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise op_error(name, "needs an axis to sort along (got a 0-d tensor)", (x.node,))
    if not isinstance(axis, (int, np.integer)):
        raise op_error(name, f"axis must be an int or None, got {axis!r}", (x.node,))
    axis = C._axes(axis, x.ndim, name)[0]
    keys = S.moveaxis(x, axis, -1)
    order = S.moveaxis(Tensor(apply("argsort", (keys.node,), bool(descending))), -1, axis)
    return order if with_index else take_along_axis(x, order, axis)


def _sort_args(kind, order, stable, name: str) -> None:
    """NumPy's ``kind`` (any: the sort is always stable, which every kind's result is
    for values; read by its first letter, as NumPy's) and ``order`` (fields of
    structured arrays: none here)."""
    if kind is not None and (not isinstance(kind, str) or kind[:1].lower() not in "qmhs"
                             or not kind):
        raise op_error(name, "sort kind must be one of 'quick', 'heap', or 'stable' (got "
                       f"{kind!r})", cls=ValueError)
    if kind is not None and stable is not None:
        raise op_error(name, "`kind` and keyword parameters can't be provided at the same "
                       "time. Use only one of them.", cls=ValueError)
    if order is not None:
        raise op_error(name, "order= names the fields of a structured array; tensors have "
                       "none", cls=ValueError)


def sort(x, axis: int = -1, kind=None, order=None, *, descending: bool = False,
         stable=None) -> Tensor:
    """The values of ``x`` sorted along ``axis`` (``np.sort``'s signature, with the Array
    API's ``descending``; ``axis=None`` sorts the flattened array): NaN last.
    Differentiable: the gradient goes back to each value's original position (ties by
    position, as a stable sort).  ``kind`` and ``stable`` are accepted (the sort is
    always stable).  Raises ``LazyjitError`` for a 0-d input or a bad axis, a
    ``ValueError`` for an unknown ``kind`` or an ``order``."""
    _sort_args(kind, order, stable, "sort")
    return _sort(x, axis, descending, False, "sort")


def argsort(x, axis: int = -1, kind=None, order=None, *, descending: bool = False,
            stable=None) -> Tensor:
    """Indices (int64) that sort ``x`` along ``axis`` (``np.argsort``'s signature, as
    ``kind='stable'`` whatever ``kind``): ties in their original order, NaN last.
    Raises as :func:`sort`."""
    _sort_args(kind, order, stable, "argsort")
    return _sort(x, axis, descending, True, "argsort")
