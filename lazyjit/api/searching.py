"""NumPy's searching and counting functions: ``argwhere``, ``flatnonzero``,
``searchsorted``, ``bincount`` and ``unique`` (with the Array API's ``unique_all``,
``unique_counts``, ``unique_inverse``, ``unique_values``); ``nonzero`` and the
one-argument ``where`` are in :mod:`.core`.

``argwhere`` and ``flatnonzero``, as ``nonzero``, return as many indices as the input has
nonzero elements, a size known only from its values: they compute the input (a realize)
and return constant int64 tensors; so do the ``unique`` functions, whose values are
gathered from the input at constant indices (differentiable).  ``searchsorted`` keeps
the shape of ``v`` and stays lazy (a comparison of every ``v`` with every element of
``a``, summed).
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from lazyjit.api.core import _axes, asarray, astype, isnan, zeros
from lazyjit.api.indexing import inc_subtensor
from lazyjit.api.reductions import sum as _sum
from lazyjit.api.shape_ops import expand_dims, ravel, take
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error


def argwhere(x) -> Tensor:
    """The indices of the nonzero elements as an ``(n, x.ndim)`` int64 tensor, as
    ``np.argwhere``.  Computes ``x`` first (the output's size depends on its values)."""
    x = asarray(x)
    return asarray(np.argwhere(x.numpy()).astype(np.int64))


def flatnonzero(x) -> Tensor:
    """The indices of the nonzero elements of the flattened tensor (int64), as
    ``np.flatnonzero``.  Computes ``x`` first."""
    x = asarray(x)
    return asarray(np.flatnonzero(x.numpy()).astype(np.int64))


def searchsorted(a, v, side: str = "left", sorter=None) -> Tensor:
    """Where each element of ``v`` would be inserted into the sorted 1-D ``a`` to keep
    it sorted (int64, ``v``'s shape), as ``np.searchsorted``: before equal elements for
    ``side="left"``, after them for ``"right"``; NaN sorts last, as in NumPy; ``sorter``,
    indices that sort ``a``, searches ``a[sorter]``.  Lazy: it compares every ``v`` with
    every element of ``a`` (memory ``len(a) * v.size``).

    Raises
    ------
    LazyjitError
        ``a`` is not 1-D, or ``side`` is neither "left" nor "right".
    """
    a, v = asarray(a), asarray(v)
    if sorter is not None:
        a = take(a, sorter)
    if a.ndim != 1:
        raise op_error("searchsorted", f"a must be 1-D, got shape {a.shape}", (a.node,))
    if side not in ("left", "right"):
        raise op_error("searchsorted", f"side must be 'left' or 'right', not {side!r}")
    w = expand_dims(v, -1)  # (..., 1) against a's (n,)
    if side == "left":  # a[i] < v, NaN the largest
        before = a < w
        if a.dtype.kind == "f" or w.dtype.kind == "f":
            before = before | (isnan(w) & ~isnan(a))
    else:  # a[i] <= v
        before = a <= w
        if a.dtype.kind == "f" or w.dtype.kind == "f":
            before = before | isnan(w)
    return _sum(before, axis=-1, dtype=np.int64)


def bincount(x, weights=None, minlength: int = 0) -> Tensor:
    """How many times each value ``0 .. max(x)`` occurs in the non-negative 1-D integer
    ``x`` (int64), or the sums of ``weights`` per value (float64), at least
    ``minlength`` long, as ``np.bincount``.  Computes ``x`` first (the length depends on
    its largest value); the sums are an indexed accumulation, so derivatives reach the
    weights.

    Raises
    ------
    LazyjitError
        ``x`` is not a 1-D integer (or bool) tensor, has a negative value, or
        ``weights`` has another shape."""
    x = asarray(x)
    if x.ndim != 1 or x.dtype.kind not in "biu":
        raise op_error("bincount", f"needs a 1-d integer tensor, got shape {x.shape} "
                       f"{x.dtype}", (x.node,))
    values = x.numpy()
    if values.size and values.min() < 0:
        raise op_error("bincount", "x must have no negative elements", (x.node,))
    if operator.index(minlength) < 0:
        raise op_error("bincount", f"minlength must be non-negative, got {minlength}")
    n = max(int(values.max()) + 1 if values.size else 0, operator.index(minlength))
    idx = astype(x, np.int64)
    if weights is None:
        return inc_subtensor(zeros(n, np.int64)[idx], 1)
    weights = asarray(weights)
    if weights.dtype.kind == "c":  # (NumPy cannot cast them to float64 either)
        raise op_error("bincount", "weights must be real, not complex", (weights.node,),
                       cls=TypeError)
    weights = astype(weights, np.float64)
    if weights.shape != x.shape:
        raise op_error("bincount", f"weights of shape {weights.shape} do not match x of "
                       f"shape {x.shape}", (x.node, weights.node))
    return inc_subtensor(zeros(n, np.float64)[idx], weights)


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def _unique(x, equal_nan: bool, axis: int | None = None):
    """``(values, first indices, inverse indices, counts)`` of the flattened ``x`` (inverse
    in ``x``'s shape), or of its slices along ``axis`` (compared whole, as NumPy's), sorted
    (NaN last): the values gathered from ``x`` at the first indices, so a derivative
    reaches the element each value came from.  Computes ``x`` first."""
    x = asarray(x)
    flat = ravel(x) if axis is None else x
    ax = None if axis is None else _axes(axis, x.ndim, "unique")[0]
    _, first, inverse, counts = np.unique(flat.numpy(), return_index=True,
                                          return_inverse=True, return_counts=True,
                                          axis=ax, equal_nan=equal_nan)
    first = asarray(first.astype(np.int64))
    inverse = inverse.astype(np.int64)
    return (take(flat, first, axis=0 if ax is None else ax), first,
            asarray(inverse.reshape(x.shape) if ax is None else inverse.reshape(-1)),
            asarray(counts.astype(np.int64)))


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True):
    """The sorted unique elements of the flattened ``ar`` (with ``axis``: its distinct
    slices along that axis, in lexicographic order), as ``np.unique``, with the indices
    of their first occurrences, the inverse indices (``ar``'s shape for the flattened
    array, NumPy 2; one per slice with ``axis``) and the counts on request (int64); NaNs
    are one value unless ``equal_nan=False``.  Computes ``ar`` first (the number of
    values depends on them); the values are gathered from ``ar``, so derivatives reach
    it.  Raises ``AxisError``-like ``LazyjitError`` for a bad ``axis``."""
    values, first, inverse, counts = _unique(ar, equal_nan, axis)
    extra = [t for t, want in ((first, return_index), (inverse, return_inverse),
                               (counts, return_counts)) if want]
    return (values, *extra) if extra else values


def unique_values(x, /) -> Tensor:
    """The Array API's ``unique_values``: the sorted distinct elements, each NaN distinct
    (the standard's rule).  Computes ``x`` first."""
    return _unique(x, False)[0]


def unique_counts(x, /) -> UniqueCountsResult:
    """The Array API's ``unique_counts``: distinct elements and their counts (int64)."""
    values, _, _, counts = _unique(x, False)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /) -> UniqueInverseResult:
    """The Array API's ``unique_inverse``: distinct elements and, in ``x``'s shape, the
    index of each element's value among them."""
    values, _, inverse, _ = _unique(x, False)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /) -> UniqueAllResult:
    """The Array API's ``unique_all``: distinct elements, their first indices in the
    flattened ``x``, the inverse indices (``x``'s shape) and the counts."""
    return UniqueAllResult(*_unique(x, False))
