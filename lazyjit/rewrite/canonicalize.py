"""Canonicalization: remove identities and collapse chains, so later phases see one form."""
from __future__ import annotations

import math

from lazyjit.ops import REGISTRY
from lazyjit.rewrite.engine import ew, op_of, rule
from lazyjit.trace.consts import const_like, const_of, const_shaped, is_const
from lazyjit.trace.node import Node

RULES: list = []


@rule(RULES, "neg_neg", "neg")
def neg_neg(n: Node) -> Node | None:
    # neg(neg(x)) -> x
    x = n.src[0]
    return x.src[0] if op_of(x) == "neg" else None


@rule(RULES, "mul_one", "mul")
def mul_one(n: Node) -> Node | None:
    # x * 1 -> x ; 1 * x -> x  (not complex: (nan+1j) * (1+0j) is nan+nanj, the
    # product's 0 times an infinite or NaN part, as NumPy computes it)
    if n.dtype.kind == "c":
        return None
    a, b = n.src
    return a if is_const(b, 1) else b if is_const(a, 1) else None


@rule(RULES, "add_zero", "add", unsafe=True)
def add_zero(n: Node) -> Node | None:
    # x + 0 -> x ; 0 + x -> x  (unsafe: -0.0 + 0.0 is +0.0, and 1 / x then differs)
    a, b = n.src
    return a if is_const(b, 0) else b if is_const(a, 0) else None


@rule(RULES, "sub_zero", "sub")
def sub_zero(n: Node) -> Node | None:
    # x - 0 -> x  (+0 only: x - (-0.0) is x + 0.0, +0.0 for x = -0.0)
    c = const_of(n.src[1])
    if c is None or c != 0:
        return None
    parts = (c.real, c.imag) if isinstance(c, complex) else (c,)  # (each a +0)
    return n.src[0] if all(math.copysign(1.0, p) > 0 for p in parts) else None


@rule(RULES, "div_one", "div")
def div_one(n: Node) -> Node | None:
    # x / 1 -> x  (not complex, as mul_one)
    if n.dtype.kind == "c":
        return None
    return n.src[0] if is_const(n.src[1], 1) else None


@rule(RULES, "reshape_reshape", "reshape")
def reshape_reshape(n: Node) -> Node | None:
    # reshape(reshape(x, s1), s2) -> reshape(x, s2)
    x = n.src[0]
    if op_of(x) != "reshape":
        return None
    return Node.make("reshape", (x.src[0],), n.arg, n.shape, n.dtype)


@rule(RULES, "reshape_noop", "reshape")
def reshape_noop(n: Node) -> Node | None:
    # reshape(x, x.shape) -> x
    return n.src[0] if n.src[0].shape == n.shape else None


@rule(RULES, "expand_expand", "expand")
def expand_expand(n: Node) -> Node | None:
    # expand(expand(x, s1), s2) -> expand(x, s2)
    x = n.src[0]
    if op_of(x) != "expand" or x.src[0].ndim != n.ndim:
        return None
    return Node.make("expand", (x.src[0],), n.arg, n.shape, n.dtype)


@rule(RULES, "slice_of_write", "slice")
def slice_of_write(n: Node) -> Node | None:
    # slice(set_slice(x, v, sl), sl) -> v ; slice(inc_slice(0, v, sl), sl) -> v
    # (a gradient padded into zeros and cut back out: slice's VJP read by a slice)
    x = n.src[0]
    op = op_of(x)
    if op not in ("set_slice", "inc_slice") or x.arg != n.arg:
        return None
    if op == "inc_slice" and not is_const(x.src[0], 0):
        return None
    v = x.src[1]
    return v if v.shape == n.shape else None


@rule(RULES, "const_right", "add", "mul", "maximum", "minimum")
def const_right(n: Node) -> Node | None:
    # c + x -> x + c ; c * x -> x * c  (one form for commuted operands: they then merge)
    a, b = n.src
    if a.dtype == b.dtype and const_of(a) is not None and const_of(b) is None:
        return Node.make(n.op, (b, a), n.arg, n.shape, n.dtype)
    return None


@rule(RULES, "sum_of_scaled", "sum", unsafe=True)
def sum_of_scaled(n: Node) -> Node | None:
    # sum(x * c) -> sum(x) * c  (c a constant: one multiply per result, not per element;
    # unsafe: sum(x) may overflow where sum(x * 0.5) does not, and 0 * inf is nan)
    m = n.src[0]
    if op_of(m) != "mul" or m.dtype != n.dtype or n.dtype.kind not in "fiu":
        return None
    x, c = m.src
    value = const_of(c)
    if value is None or const_of(x) is not None:
        return None
    s = Node.make("sum", (x,), n.arg, n.shape, n.dtype)
    return ew("mul", s, const_like(value, s))


_SINKABLE = tuple(name for name, d in REGISTRY.items() if d.kind == "elementwise")


@rule(RULES, "broadcast_sinking", *_SINKABLE)
def broadcast_sinking(n: Node) -> Node | None:
    # f(expand(a), expand(b), c) -> expand(f(a, b, c))  (computed before broadcasting)
    shape = None
    for s in n.src:
        if const_of(s) is not None:
            continue
        if op_of(s) != "expand" or s.src[0].ndim != n.ndim:
            return None
        if shape is None:
            shape = s.src[0].shape
        elif s.src[0].shape != shape:
            return None
    if shape is None or shape == n.shape:
        return None
    small = tuple(s.src[0] if const_of(s) is None else const_shaped(const_of(s), shape, s.dtype)
                  for s in n.src)
    inner = Node.make(n.op, small, n.arg, shape, n.dtype)
    return Node.make("expand", (inner,), n.shape, n.shape, n.dtype)
