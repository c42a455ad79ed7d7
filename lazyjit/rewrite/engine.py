"""The rewrite engine: rules (a pattern and a replacement), phases, and one linear pass.

A :class:`Rule` matches a node by its op (``ops``) and a replacement function that
returns the node to use instead, or ``None`` when the pattern does not match.  A
:class:`Phase` is a named group of rules.  :func:`run_phase` makes one bottom-up pass
over the graph: each node is rebuilt from its (already rewritten) sources through
:meth:`Node.make`, which hash-conses, so equal rewritten subgraphs merge (CSE for
free), then the phase's rules are tried on it; a rule may fire again on the node it
just produced, at most :data:`MAX_FIRES` times.  Every node is therefore visited a
bounded number of times per phase: optimization time is linear in graph size (the
cyclic garbage collector is paused during a run: its full collections, triggered by the
allocations of a pass over a large graph, scan every live object and made the time
per node grow with the graph, 2.5x from 3,000 to 48,000 nodes).

Helpers for rules: :func:`op_of` (a pattern never looks inside an input),
:func:`single_use`, :func:`ew` builds an elementwise node; the broadcast constants the
API builds are recognized and built by :mod:`lazyjit.trace.consts`.
"""
from __future__ import annotations

import gc
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from lazyjit.trace.graph import toposort
from lazyjit.trace.node import Node
from lazyjit.trace.state import STATE

MAX_FIRES = 8  # rule applications on one node per phase (bounds the work per node)

# rule name -> times applied, over the whole process (see lj.debug.rewrite_summary)
TOTAL: Counter = Counter()


@dataclass(frozen=True)
class Rule:
    """One rewrite: ``fn(node) -> Node | None`` tried on nodes whose op is in ``ops``.

    Attributes
    ----------
    name : the rule's name in summaries.
    ops : the ops of the nodes the pattern's root may have.
    fn : the replacement; returns a node of the same shape and dtype, or ``None``.
    unsafe : the rewrite changes results in edge cases; applied at level ``unsafe`` only.
    """

    name: str
    ops: tuple[str, ...]
    fn: Callable[[Node], Node | None]
    unsafe: bool = False


@dataclass(frozen=True)
class Phase:
    """A named group of rules, active from optimizer level ``level`` (1 = ``o1``) on."""

    name: str
    level: int
    rules: tuple[Rule, ...] = field(default=())

    def table(self, unsafe: bool) -> dict[str, list[Rule]]:
        """Map each op to the rules whose pattern may match it, in order."""
        out: dict[str, list[Rule]] = {}
        for r in self.rules:
            if r.unsafe and not unsafe:
                continue
            for op in r.ops:
                out.setdefault(op, []).append(r)
        return out


def rule(rules: list, name: str, *ops: str, unsafe: bool = False):
    """Decorator: append a :class:`Rule` built from the function to ``rules``."""
    def deco(fn: Callable[[Node], Node | None]) -> Callable[[Node], Node | None]:
        rules.append(Rule(name, ops, fn, unsafe))
        return fn
    return deco


def _count_uses(outputs: list[Node]) -> dict:
    uses: dict = {}
    for n in toposort(outputs, is_input):
        if not is_input(n):
            for s in n.src:
                uses[s] = uses.get(s, 0) + 1
    for o in outputs:
        uses[o] = uses.get(o, 0) + 1
    return uses


def single_use(n: Node) -> bool:
    """Whether ``n`` has one consumer in the graph being rewritten (a node rebuilt by an
    earlier rule is not counted: False), so a rule may fold it into that consumer."""
    return STATE.rewrite_uses.get(n) == 1


def is_input(n: Node) -> bool:
    """A node whose value is supplied at run time, or one the running rewrite must keep
    (never rewritten, and no pattern looks inside it)."""
    keep, through_values = STATE.rewrite_keep
    if n in keep:
        return True
    if n.buffer is not None:
        return not (through_values and n.src)
    return n.op == "param"


def op_of(n: Node) -> str | None:
    """``n.op``, or ``None`` for an input (a pattern must not look inside it)."""
    return None if is_input(n) else n.op


def ew(op: str, *srcs: Node) -> Node:
    """An elementwise node of ``op`` whose shape and dtype are those of ``srcs[0]``."""
    return Node.make(op, srcs, None, srcs[0].shape, srcs[0].dtype)


def _takes_place(new: Node, old: Node) -> None:
    """``new`` replaces ``old`` in the graph: it gets ``old``'s consumers, counted for
    :func:`single_use` (added to those it has: a count too high only keeps a rule from
    folding a node; an SGD step's ``w - lr * grad`` is a ``gemm`` once the constant is
    moved right)."""
    if new is not old:
        uses = STATE.rewrite_uses
        uses[new] = uses.get(new, 0) + uses.get(old, 0)


def _apply(n: Node, table: dict[str, list[Rule]], counts: Counter) -> Node:
    for _ in range(MAX_FIRES):
        for r in table.get(n.op, ()):
            out = r.fn(n)
            if out is not None and out is not n and out.shape == n.shape \
                    and out.dtype == n.dtype:
                counts[r.name] += 1
                _takes_place(out, n)
                if is_input(out):  # (a rule's result that is an input or a kept node,
                    return out  # lj.grad's wrt: never rewritten itself)
                n = out
                break
        else:
            return n
    return n


def run_phase(outputs: list[Node], table: dict[str, list[Rule]],
              counts: Counter) -> list[Node]:
    """One bottom-up pass of a phase's rules over the graph of ``outputs``.

    Parameters
    ----------
    outputs : the roots; nodes holding values and ``param`` nodes are kept as they are.
    table : op -> rules (:meth:`Phase.table`).
    counts : incremented by rule name for every application.

    Returns
    -------
    list of Node
        The rewritten outputs, in order (each of the same shape and dtype).
    """
    memo: dict[Node, Node] = {}
    for n in toposort(outputs, is_input):
        if is_input(n) or not n.src:
            memo[n] = _apply(n, table, counts) if not is_input(n) else n
            continue
        src = tuple([memo[s] for s in n.src])
        m = n
        for a, b in zip(src, n.src):
            if a is not b:
                m = Node.make(n.op, src, n.arg, n.shape, n.dtype)
                _takes_place(m, n)
                break
        memo[n] = _apply(m, table, counts)
    return [memo[o] for o in outputs]


def run(outputs: list[Node], phases: list[Phase], unsafe: bool,
        keep: frozenset = frozenset(), through_values: bool = False
        ) -> tuple[list[Node], Counter]:
    """Run ``phases`` in order over ``outputs``; returns the new outputs and the counts
    of the rules applied (also added to :data:`TOTAL`).  The nodes of ``keep`` are
    treated as inputs: kept as they are, with their subgraphs (``lj.grad`` keeps the
    tensors it differentiates with respect to).  With ``through_values``, computed
    nodes that have sources are rewritten as if not computed (``lj.grad`` differentiates
    through them)."""
    counts: Counter = Counter()
    saved = STATE.rewrite_keep, STATE.rewrite_uses
    STATE.rewrite_keep = (frozenset(keep), through_values)
    STATE.rewrite_uses = _count_uses(outputs)
    collecting = gc.isenabled()
    gc.disable()  # a pass allocates a node per node: full collections would make it O(n^2)
    try:
        for phase in phases:
            table = phase.table(unsafe)
            if table:  # a phase without rules (merge) is done by hash-consing already
                outputs = run_phase(outputs, table, counts)
    finally:
        STATE.rewrite_keep, STATE.rewrite_uses = saved
        if collecting:
            gc.enable()
    TOTAL.update(counts)
    return outputs, counts


def np_scalar(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as a 0-d array of ``dtype``."""
    return np.asarray(value, dtype=dtype)
