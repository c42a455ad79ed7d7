"""NumPy's searching functions: ``argwhere``, ``flatnonzero`` and ``searchsorted``
(``nonzero`` and the one-argument ``where`` are in :mod:`.core`).

``argwhere`` and ``flatnonzero``, as ``nonzero``, return as many indices as the input has
nonzero elements, a size known only from its values: they compute the input (a realize)
and return constant int64 tensors.  ``searchsorted`` keeps the shape of ``v`` and stays
lazy (a comparison of every ``v`` with every element of ``a``, summed).
"""
from __future__ import annotations

import numpy as np

from lazyjit.api.core import asarray, isnan
from lazyjit.api.reductions import sum as _sum
from lazyjit.api.shape_ops import expand_dims
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


def searchsorted(a, v, side: str = "left") -> Tensor:
    """Where each element of ``v`` would be inserted into the sorted 1-D ``a`` to keep
    it sorted (int64, ``v``'s shape), as ``np.searchsorted``: before equal elements for
    ``side="left"``, after them for ``"right"``; NaN sorts last, as in NumPy.  Lazy: it
    compares every ``v`` with every element of ``a`` (memory ``len(a) * v.size``).

    Raises
    ------
    LazyjitError
        ``a`` is not 1-D, or ``side`` is neither "left" nor "right".
    """
    a, v = asarray(a), asarray(v)
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
