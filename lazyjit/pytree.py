"""Flatten nested tuples, lists and dicts of tensors into leaves and a hashable treedef.

Written as plain recursive functions (no self-referencing closures), so no reference
cycle keeps leaves, and the buffers they hold, alive after a call.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np


def _flatten(x: Any, is_leaf: Callable, leaves: list) -> Any:
    if is_leaf(x):
        leaves.append(x)
        return "*"
    if isinstance(x, tuple):
        return ("t", tuple(_flatten(v, is_leaf, leaves) for v in x))
    if isinstance(x, list):
        return ("l", tuple(_flatten(v, is_leaf, leaves) for v in x))
    if isinstance(x, dict):
        keys = sorted(x)
        return ("d", tuple(keys), tuple(_flatten(x[k], is_leaf, leaves) for k in keys))
    return ("c", constant_kind(x), x)  # (np.float32(2.5) == np.float64(2.5), 1 == True)


def constant_kind(v) -> Any:
    """What tells a constant (a static argument, a non-leaf value of a tree) from one
    equal to it that a trace must treat differently: its type; a float's or complex's
    repr too, NumPy's included (``-0.0 == 0.0``; found by the fuzzing helpers: ``1 / (x
    * s)`` with ``s = -0.0`` gave ``inf``); the kinds of a tuple's or list's items
    (``(2,) == (2.0,)``)."""
    t = type(v)
    if isinstance(v, (float, complex, np.floating, np.complexfloating)):
        return t, repr(v)
    if t is tuple or t is list:
        return t, tuple(constant_kind(x) for x in v)
    return t


def flatten(tree: Any, is_leaf: Callable) -> tuple[list, Any]:
    """Return ``(leaves, treedef)``; ``is_leaf(x)`` decides what is a leaf.  Non-leaf,
    non-container values are kept in the treedef with their :func:`constant_kind` (they
    must be hashable): two treedefs are equal only where those values are of one kind."""
    leaves: list = []
    return leaves, _flatten(tree, is_leaf, leaves)


def _unflatten(d: Any, it: Iterator) -> Any:
    if d == "*":
        return next(it)
    kind = d[0]
    if kind == "t":
        return tuple(_unflatten(v, it) for v in d[1])
    if kind == "l":
        return [_unflatten(v, it) for v in d[1]]
    if kind == "d":
        return {k: _unflatten(v, it) for k, v in zip(d[1], d[2])}
    return d[2]


def unflatten(treedef: Any, leaves) -> Any:
    """Inverse of :func:`flatten`."""
    kind = treedef[0] if type(treedef) is tuple else None
    if (kind == "l" or kind == "t") and type(leaves) in (list, tuple) and \
            treedef[1].count("*") == len(treedef[1]) == len(leaves):  # (a flat list or
        # tuple of leaves: at once)
        return list(leaves) if kind == "l" else tuple(leaves)
    return _unflatten(treedef, iter(leaves))
