"""Scans and sorts as composites of primitives: ``cumsum``, ``cumprod``, ``sort``,
``argsort``.

``cumsum``/``cumprod`` are one ``lj.scan`` along the axis (a loop inside the compiled
code; the gradient is the reverse scan).  ``sort``/``argsort`` are Batcher's bitonic
sorting network (Batcher 1968) along the last axis: ``log2(m) * (log2(m) + 1) / 2``
compare-exchange stages over the axis padded to ``m``, the next power of two, run as
one scan over the stages (each a gather of the partners and a few elementwise ops), so
O(n log^2 n) work, no data-dependent control flow and code whose size does not depend
on ``n``: it runs unchanged on every backend, and the gradient of ``sort`` (through the
gathers and the ``where`` of each exchange) comes from the primitives.
Order is NumPy's: ascending, NaN last; ``argsort`` is stable (ties keep their order).
"""
from __future__ import annotations

import numpy as np

from lazyjit import functions as F
from lazyjit import shape_ops as S
from lazyjit.tensor import Tensor
from lazyjit.trace.node import op_error

__all__ = ["cumsum", "cumprod", "sort", "argsort"]


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
    from lazyjit.scan import scan
    x = F.asarray(x)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise op_error(name, "needs an axis to run along (got a 0-d tensor)", (x.node,))
    axis = F._axes(axis, x.ndim, name)[0]
    x = F.astype(x, _acc_dtype(x, dtype))
    rows = S.moveaxis(x, axis, 0)
    start = F.zeros(rows.shape[1:], x.dtype) if combine is F.add else \
        F.ones(rows.shape[1:], x.dtype)
    out, _ = scan(lambda row, acc: combine(acc, row), sequences=rows, outputs_info=start,
                  name=name)
    return S.moveaxis(out, 0, axis)


def cumsum(x, axis=None, dtype=None) -> Tensor:
    """Cumulative sum along ``axis`` (flattened when None), as ``np.cumsum``: same
    shape; bools and integers narrower than 64 bits accumulate in int64 (uint64).

    Runs as one ``lj.scan`` over the axis (O(n) steps inside the compiled code).
    Raises ``LazyjitError`` for a 0-d input with an axis, or a bad axis."""
    return _scan_along(x, axis, dtype, F.add, "cumsum")


def cumprod(x, axis=None, dtype=None) -> Tensor:
    """Cumulative product along ``axis`` (flattened when None), as ``np.cumprod``
    (dtypes as :func:`cumsum`)."""
    return _scan_along(x, axis, dtype, F.multiply, "cumprod")


def _greater(a: Tensor, b: Tensor, descending: bool) -> Tensor:
    """``a`` goes after ``b``: NumPy's order (NaN last)."""
    if a.dtype.kind != "f":
        return a < b if descending else a > b
    nan_a, nan_b = F.isnan(a), F.isnan(b)
    return ((a < b) if descending else (a > b)) | (nan_a & ~nan_b)


def _stages(m: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(k, j)`` of each compare-exchange stage of the bitonic network on ``m``."""
    ks, js = [], []
    k = 2
    while k <= m:
        j = k // 2
        while j >= 1:
            ks.append(k)
            js.append(j)
            j //= 2
        k *= 2
    return np.array(ks, np.int64), np.array(js, np.int64)


def _network(keys: Tensor, idx: Tensor, descending: bool):
    """Sort ``keys`` (``(..., m)``, m a power of two) along the last axis with the
    bitonic network, as one scan over its stages: at stage ``(k, j)`` element ``i``
    meets ``i ^ j`` and keeps the smaller of the two when ``i`` is the lower one of an
    ascending block (``i & k == 0``) or the upper one of a descending block, else the
    larger.  ``idx`` (the positions) rides along and breaks ties.  Returns both.  The
    body is the same for every ``m``: one small compiled loop whatever the length."""
    from lazyjit.scan import scan
    m = keys.shape[-1]
    ks, js = _stages(m)
    pos = F.arange(m, dtype=np.int64)

    def stage(k, j, keys, idx):
        partner = pos ^ j
        other = F.take(keys, partner, axis=-1)
        other_idx = F.take(idx, partner, axis=-1)
        after = _greater(keys, other, descending)  # this one sorts after its partner
        before = _greater(other, keys, descending)
        after = after | (~before & (idx > other_idx))
        want_small = ((pos & j) == 0) == ((pos & k) == 0)
        take_other = F.where(want_small, after, ~after)
        return [F.where(take_other, other, keys), F.where(take_other, other_idx, idx)]

    outs, _ = scan(stage, sequences=[F.tensor(ks), F.tensor(js)], outputs_info=[keys, idx],
                   name="sort")
    return outs[0][-1], outs[1][-1]


def _sort(x, axis: int, descending: bool, with_index: bool, name: str):
    x = F.asarray(x)
    if axis is None:  # NumPy: the flattened array
        x, axis = F.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise op_error(name, "needs an axis to sort along (got a 0-d tensor)", (x.node,))
    if not isinstance(axis, (int, np.integer)):
        raise op_error(name, f"axis must be an int or None, got {axis!r}", (x.node,))
    axis = F._axes(axis, x.ndim, name)[0]
    keys = S.moveaxis(x, axis, -1)
    if keys.dtype.kind == "b":
        keys = F.astype(keys, np.uint8)
    n = keys.shape[-1]
    m = 1 << max(n - 1, 0).bit_length()
    if m != n:  # padding that sorts after every element (and, by position, after ties)
        if keys.dtype.kind == "f":
            fill = np.nan
        else:
            info = np.iinfo(keys.dtype)
            fill = info.min if descending else info.max
        pad = F.full((*keys.shape[:-1], m - n), fill, keys.dtype)
        keys = S.concatenate([keys, pad], axis=-1)
    # the positions ride along and break ties, also for sort: the network is then a
    # permutation (equal keys are not both read from one input: -0.0 keeps its sign,
    # and the gradient goes to each value's own position)
    idx = F.broadcast_to(F.arange(m, dtype=np.int64), keys.shape)
    if m > 1:
        keys, idx = _network(keys, idx, descending)
    out = idx if with_index else keys
    out = out[..., :n]
    if not with_index and x.dtype.kind == "b":
        out = F.astype(out, np.bool_)
    return S.moveaxis(out, -1, axis)


def sort(x, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The values of ``x`` sorted along ``axis`` (``np.sort``; the Array API's
    ``descending``; ``axis=None`` sorts the flattened array): NaN last.  Differentiable:
    the gradient goes back to each value's original position (ties by position, as a
    stable sort).  ``stable`` is accepted (the sort is always stable).  Raises
    ``LazyjitError`` for a 0-d input or a bad axis."""
    return _sort(x, axis, descending, False, "sort")


def argsort(x, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """Indices (int64) that sort ``x`` along ``axis`` (``np.argsort(kind='stable')``):
    always stable, ties in their original order, NaN last.  Raises ``LazyjitError`` for
    a 0-d input or a bad axis."""
    return _sort(x, axis, descending, True, "argsort")
