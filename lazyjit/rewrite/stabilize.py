"""Stabilization: replace formulas that lose digits or overflow by stable equivalents."""
from __future__ import annotations

from lazyjit.api.reductions import logsumexp as lse  # a composite, built from primitives
from lazyjit.api.tensor import Tensor
from lazyjit.rewrite.engine import ew, op_of, rule
from lazyjit.trace.consts import is_const
from lazyjit.trace.node import Node

RULES: list = []

_MAX_VIEWS = 4  # permute/reshape layers looked through between log and softmax


@rule(RULES, "log1p", "log")
def log1p(n: Node) -> Node | None:
    # log(1 + x) -> log1p(x) ; log(x + 1) -> log1p(x)
    y = n.src[0]
    if op_of(y) != "add" or n.dtype.kind != "f":  # (no complex log1p)
        return None
    a, b = y.src
    x = a if is_const(b, 1) else b if is_const(a, 1) else None
    return None if x is None else ew("log1p", x)


@rule(RULES, "expm1", "sub")
def expm1(n: Node) -> Node | None:
    # exp(x) - 1 -> expm1(x)
    a, b = n.src
    return ew("expm1", a.src[0]) if op_of(a) == "exp" and is_const(b, 1) and \
        n.dtype.kind == "f" else None


@rule(RULES, "log_sigmoid", "log")
def log_sigmoid(n: Node) -> Node | None:
    # log(sigmoid(x)) -> -softplus(-x)
    y = n.src[0]
    return ew("neg", ew("softplus", ew("neg", y.src[0]))) if op_of(y) == "sigmoid" else None


@rule(RULES, "log_softmax", "log")
def log_softmax(n: Node) -> Node | None:
    # log(exp(a) / sum(exp(a))) -> a - log(sum(exp(a)))  (lj.softmax: a = x - max(x));
    # also log(view(softmax)) -> view(log_softmax) for permute and reshape views
    views = []
    y = n.src[0]
    while op_of(y) in ("permute", "reshape") and len(views) < _MAX_VIEWS:
        views.append(y)
        y = y.src[0]
    if op_of(y) != "div":
        return None
    e, d = y.src
    s = d.src[0] if op_of(d) == "expand" else d
    if op_of(e) != "exp" or op_of(s) != "sum" or s.src[0] is not e:
        return None
    log_sum = ew("log", s)
    if d is not s:
        log_sum = Node.make("expand", (log_sum,), d.arg, d.shape, d.dtype)
    out = ew("sub", e.src[0], log_sum)
    for v in reversed(views):
        out = Node.make(v.op, (out,), v.arg, v.shape, v.dtype)
    return out


def _shifted_by_own_max(x: Node) -> bool:
    """``x`` is ``a - m`` where ``m`` is ``max(a)`` seen through ``expand``, ``reshape``,
    ``stop_gradient`` and the ``where(isinf(m), 0, m)`` of ``lj.logsumexp``: already
    stable (keeps the logsumexp rule from firing on its own output)."""
    if op_of(x) != "sub":
        return False
    a, m = x.src
    while op_of(m) in ("expand", "reshape", "stop_gradient", "where"):
        m = m.src[2] if m.op == "where" else m.src[0]
    return op_of(m) == "max" and m.src[0] is a


@rule(RULES, "logsumexp", "log")
def logsumexp(n: Node) -> Node | None:
    # log(sum(exp(x), axes)) -> logsumexp(x, axes)  (lj.logsumexp: shifted by max(x));
    # also through the reshape that drops the reduced dims (keepdims=False)
    views = []
    s = n.src[0]
    while op_of(s) == "reshape" and len(views) < _MAX_VIEWS:
        views.append(s)
        s = s.src[0]
    if op_of(s) != "sum" or n.dtype.kind != "f":
        return None
    e = s.src[0]
    if op_of(e) != "exp" or _shifted_by_own_max(e.src[0]):
        return None
    out = lse(Tensor(e.src[0]), axis=s.arg, keepdims=True).node
    for v in reversed(views):
        out = Node.make(v.op, (out,), v.arg, v.shape, v.dtype)
    return out
