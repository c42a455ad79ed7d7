"""Broadcast constants in the graph: ``expand(reshape(const))``, as the API builds a scalar
broadcast to a shape, recognized (:func:`const_of`) and built (:func:`const_shaped`) by
the rewrite rules and by the loop rewrites of :mod:`lazyjit.api.scan_pushout`.
"""
from __future__ import annotations

from typing import Any

from lazyjit.trace.node import Node
from lazyjit.trace.state import STATE

# movement ops that keep "every element equals c"
_CONST_VIEWS = frozenset(("reshape", "expand", "permute", "slice"))


def const_of(n: Node) -> Any:
    """The scalar ``c`` when every element of ``n`` is the constant ``c``, else ``None``.

    Looks through ``reshape``, ``expand``, ``permute`` and ``slice`` of a ``const``, but
    not into a node the running rewrite keeps (``lj.grad``'s ``wrt``: the derivative
    with respect to ``lj.full((3,), 2.0)`` is taken, not folded away).  A
    node holding a value is not a constant, a literal included (``lj.full((), 2.0)``
    realized): a trace reads it as an input, keyed by its shape and dtype only, so a
    plan that folded its value would be reused for other inputs of that key."""
    kept = STATE.rewrite_keep[0]  # (a node a rewrite keeps, lj.grad's wrt: not a constant
    while n.op in _CONST_VIEWS and n.buffer is None and n not in kept:  # to it)
        n = n.src[0]
    return n.const_value if n.op == "const" and n.buffer is None and n not in kept else None


def is_const(n: Node, value: float) -> bool:
    """True when every element of ``n`` equals ``value``."""
    c = const_of(n)
    return c is not None and c == value


def const_like(value: Any, like: Node) -> Node:
    """The constant ``value`` broadcast to the shape and dtype of ``like``, built as the
    API builds it: ``expand(reshape(const))`` (only the parts that are needed)."""
    return const_shaped(value, like.shape, like.dtype)


def const_shaped(value: Any, shape: tuple, dtype) -> Node:
    """The constant ``value`` as a node of ``shape`` and ``dtype`` (see :func:`const_like`)."""
    c = Node.const(value, dtype)
    if not shape:
        return c
    ones = (1,) * len(shape)
    r = Node.make("reshape", (c,), ones, ones, c.dtype)
    return r if shape == ones else Node.make("expand", (r,), shape, shape, c.dtype)
