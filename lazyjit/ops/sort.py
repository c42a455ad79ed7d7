"""``argsort``: the stable sorting permutation of each row (along the last axis).

``argsort(x, descending)`` gives int64 indices, of ``x``'s shape, that sort each row of
``x`` along its last axis: ascending (or descending) with NaN last, equal keys in their
original order (a stable sort, NumPy's ``kind='stable'``).  It has no derivative (its
result is integer); ``lj.sort`` is ``take_along_axis(x, argsort(x))``, so the gradient of
a sort goes back through the gather to each value's own position.
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops.registry import OpDef, register


def _order_keys(x: np.ndarray, descending: bool) -> np.ndarray:
    """Keys whose stable ascending order is the wanted order (NaN last either way)."""
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if not descending:
        return x
    if x.dtype.kind == "f":
        return -x  # NaN stays NaN: last
    return ~x  # reverses the order of any integer type without overflow


def argsort_ref(x: np.ndarray, descending: bool) -> np.ndarray:
    return np.argsort(_order_keys(x, descending), axis=-1, kind="stable").astype(np.int64)


def _shape(srcs, descending):
    (x,) = srcs
    if x.ndim == 0:
        raise ValueError("argsort needs at least one axis")
    return x.shape


register(OpDef("argsort", "sort", argsort_ref, shape=_shape,
               dtype=lambda srcs, arg: np.dtype(np.int64),
               doc="stable sorting permutation along the last axis (NaN last)"))
