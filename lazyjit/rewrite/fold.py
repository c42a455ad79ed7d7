"""Constant folding: ops whose operands are all constants become one constant."""
from __future__ import annotations

import cmath

import numpy as np

from lazyjit.ops import REGISTRY
from lazyjit.rewrite.engine import np_scalar, rule
from lazyjit.trace.consts import const_like, const_of
from lazyjit.trace.node import Node

RULES: list = []

_ELEMENTWISE = tuple(name for name, d in REGISTRY.items() if d.kind == "elementwise")
# integer ops whose C and NumPy results may differ at the edges (x // 0, x ** -1)
_INT_EDGES = frozenset(("floordiv", "mod", "pow"))


@rule(RULES, "fold_elementwise", *_ELEMENTWISE)
def fold_elementwise(n: Node) -> Node | None:
    # op(c1, c2, ...) -> c
    values = [const_of(s) for s in n.src]
    if any(v is None for v in values):
        return None
    if n.op in _INT_EDGES and n.src[0].dtype.kind != "f":
        return None
    if n.op == "cast" and n.dtype.kind in "iu" and not all(cmath.isfinite(v) for v in values):
        return None  # float -> int of inf or nan is undefined in C
    with np.errstate(all="ignore"):
        out = REGISTRY[n.op].ref(*[np_scalar(v, s.dtype) for v, s in zip(values, n.src)],
                                 n.arg)
    return const_like(np.asarray(out).astype(n.dtype)[()].item(), n)


@rule(RULES, "fold_view", "reshape", "expand", "permute", "slice")
def fold_view(n: Node) -> Node | None:
    # view(expand(reshape(c))) -> expand(reshape(c))
    v = const_of(n)
    return None if v is None else const_like(v, n)
