"""The gates of ``ifelse`` branches: which nodes of a graph only one branch needs.

An ``ifelse`` node's branches are ordinary sources (:mod:`lazyjit.api.ifelse`), so every
graph tool sees through it; laziness is the backends' part: :func:`gates` finds, in a
trace, the nodes that only one branch of one ``ifelse`` needs, which a backend computes
only when that branch is taken, and :func:`ungated` the nodes needed whatever the
conditions decide, which a loop may compute before its steps.
"""
from __future__ import annotations

from lazyjit.trace.graph import Trace, reachable
from lazyjit.trace.node import Node


def gates(trace: Trace) -> dict[Node, tuple[Node, int]]:
    """The gate of each node of ``trace`` that only one branch needs: ``(ifelse node,
    side)`` (side 0: computed only when the condition is true, 1: only when false).

    A node is gated by ``(X, s)`` when every use of it is by side ``s`` of ``X``'s
    branch operands, or by nodes gated by ``(X, s)``; outputs of the trace and inputs
    are never gated.  Nested conditionals give nested gates (a node gated by an inner
    ``ifelse`` that is itself gated)."""
    if not any(n.op == "ifelse" for n in trace.nodes):
        return {}
    users = trace.consumers()
    outputs = set(trace.outputs)
    inputs = set(trace.inputs)
    gate: dict[Node, tuple[Node, int] | None] = {}
    for n in reversed(trace.nodes):
        if n in inputs or n in outputs or not users[n]:
            gate[n] = None
            continue
        g: object = ...
        for u in users[n]:
            if u.op == "ifelse":
                k = u.arg
                sides = {0 if 1 <= i <= k else 1 for i, s in enumerate(u.src)
                         if s is n and i > 0}
                mine = (u, sides.pop()) if len(sides) == 1 and n is not u.src[0] else None
            else:
                mine = gate[u]
            if g is ...:
                g = mine
            elif g != mine:
                g = None
            if g is None:
                break
        gate[n] = g  # type: ignore[assignment]
    return {n: g for n, g in gate.items() if g is not None}


def ungated(outputs: list[Node]) -> set[Node]:
    """The nodes of the graph of ``outputs`` that are needed whatever every ``ifelse``
    decides: reached from ``outputs`` without going through an ``ifelse``'s branch
    operands (only its condition).  A loop must not compute the others before its
    steps (hoisting, push-out): they may belong to a branch never taken."""
    return set(reachable(outputs, lambda n: n.src[:1] if n.op == "ifelse" else n.src))
