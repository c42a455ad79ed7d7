"""Flatten nested tuples, lists and dicts of tensors into leaves and a hashable treedef."""
from __future__ import annotations

from typing import Any


def flatten(tree: Any, is_leaf) -> tuple[list, Any]:
    """Return ``(leaves, treedef)``; ``is_leaf(x)`` decides what is a leaf.  Non-leaf,
    non-container values are kept in the treedef (they must be hashable)."""
    leaves: list = []

    def rec(x):
        if is_leaf(x):
            leaves.append(x)
            return "*"
        if isinstance(x, tuple):
            return ("t", tuple(rec(v) for v in x))
        if isinstance(x, list):
            return ("l", tuple(rec(v) for v in x))
        if isinstance(x, dict):
            keys = sorted(x)
            return ("d", tuple(keys), tuple(rec(x[k]) for k in keys))
        return ("c", x)

    return leaves, rec(tree)


def unflatten(treedef: Any, leaves) -> Any:
    """Inverse of :func:`flatten`."""
    it = iter(leaves)

    def rec(d):
        if d == "*":
            return next(it)
        kind = d[0]
        if kind == "t":
            return tuple(rec(v) for v in d[1])
        if kind == "l":
            return [rec(v) for v in d[1]]
        if kind == "d":
            return {k: rec(v) for k, v in zip(d[1], d[2])}
        return d[1]

    return rec(treedef)
