"""Specialization: general ops on special constants become cheaper ops."""
from __future__ import annotations

from lazyjit.rewrite.engine import ew, op_of, rule, single_use
from lazyjit.trace.consts import const_like, const_of, is_const
from lazyjit.trace.node import Node

RULES: list = []


@rule(RULES, "pow_two", "pow")
def pow_two(n: Node) -> Node | None:
    # x ** 2 -> x * x  (both correctly rounded: the same value)
    x, e = n.src
    return ew("mul", x, x) if n.dtype.kind in "fiu" and is_const(e, 2) else None


@rule(RULES, "pow_one", "pow")
def pow_one(n: Node) -> Node | None:
    # x ** 1 -> x
    return n.src[0] if n.dtype.kind in "fiu" and is_const(n.src[1], 1) else None


@rule(RULES, "pow_neg_one", "pow")
def pow_neg_one(n: Node) -> Node | None:
    # x ** -1 -> 1 / x
    x, e = n.src
    return ew("div", const_like(1.0, x), x) if n.dtype.kind == "f" and is_const(e, -1) \
        else None


@rule(RULES, "mul_neg_one", "mul")
def mul_neg_one(n: Node) -> Node | None:
    # x * -1 -> -x ; -1 * x -> -x
    if n.dtype.kind not in "fi":
        return None
    a, b = n.src
    return ew("neg", a) if is_const(b, -1) else ew("neg", b) if is_const(a, -1) else None


@rule(RULES, "pow_half", "pow", unsafe=True)
def pow_half(n: Node) -> Node | None:
    # x ** 0.5 -> sqrt(x)  (unsafe: (-inf) ** 0.5 is inf, sqrt(-inf) is nan)
    x, e = n.src
    return ew("sqrt", x) if n.dtype.kind == "f" and is_const(e, 0.5) else None


@rule(RULES, "mul_div_cancel", "div", unsafe=True)
def mul_div_cancel(n: Node) -> Node | None:
    # (x * y) / y -> x  (unsafe: wrong where y is 0 or inf, or x * y overflows)
    a, y = n.src
    if op_of(a) != "mul" or n.dtype.kind != "f":
        return None
    x, z = a.src
    return x if z is y else z if x is y else None


@rule(RULES, "gemm", "add", "sub")
def gemm(n: Node) -> Node | None:
    # (a @ b) * k + c -> gemm(a, b, c, k) ; (a @ b) + c -> gemm(a, b, c, 1)
    # c - (a @ b) * k -> gemm(a, b, c, -k) (an SGD step on a product's gradient)
    # (one BLAS call: c is written into the result, which the product adds to)
    if n.dtype.kind != "f":
        return None
    sign = -1.0 if n.op == "sub" else 1.0
    pairs = ((n.src[1], n.src[0]),) if sign < 0 else \
        ((n.src[0], n.src[1]), (n.src[1], n.src[0]))
    for m, c in pairs:
        alpha = sign
        if op_of(m) == "mul" and single_use(m) and const_of(m.src[1]) is not None:
            alpha, m = sign * float(const_of(m.src[1])), m.src[0]
        if op_of(m) != "matmul" or not single_use(m) or len(m.shape) != 2 or \
                m.dtype.kind != "f" or m.dtype != n.dtype or c.dtype != n.dtype:
            continue
        a, b = m.src
        if len(a.shape) == 2 and len(b.shape) == 2:
            return Node.make("gemm", (a, b, c), alpha, n.shape, n.dtype)
    return None
