"""Canonicalization: remove identities and collapse chains, so later phases see one form."""
from __future__ import annotations

from lazyjit.rewrite.engine import is_const, op_of, rule
from lazyjit.trace.node import Node

RULES: list = []


@rule(RULES, "neg_neg", "neg")
def neg_neg(n: Node) -> Node | None:
    # neg(neg(x)) -> x
    x = n.src[0]
    return x.src[0] if op_of(x) == "neg" else None


@rule(RULES, "mul_one", "mul")
def mul_one(n: Node) -> Node | None:
    # x * 1 -> x ; 1 * x -> x
    a, b = n.src
    return a if is_const(b, 1) else b if is_const(a, 1) else None


@rule(RULES, "add_zero", "add")
def add_zero(n: Node) -> Node | None:
    # x + 0 -> x ; 0 + x -> x  (only -0.0 + 0 -> +0.0 becomes -0.0, which compares equal)
    a, b = n.src
    return a if is_const(b, 0) else b if is_const(a, 0) else None


@rule(RULES, "sub_zero", "sub")
def sub_zero(n: Node) -> Node | None:
    # x - 0 -> x
    return n.src[0] if is_const(n.src[1], 0) else None


@rule(RULES, "div_one", "div")
def div_one(n: Node) -> Node | None:
    # x / 1 -> x
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
