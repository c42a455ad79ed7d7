"""Traces: the pending subgraph that one realize (or one jit trace) computes.

A trace is the list of nodes between the requested outputs and the nodes that already
hold values (or ``param`` placeholders), in topological order.  Its key is an xxhash of
the structure, the shapes and the dtypes, with inputs numbered by position so the same
computation on new buffers of the same shapes hits the same compiled plan.
"""
from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Callable, Collection, Iterable, Sequence

import xxhash

from lazyjit.trace.dims import exact_key
from lazyjit.trace.node import Node


# ops whose argument is a spec object holding inner graphs (keyed by its ``key`` digest)
SPEC_OPS = frozenset(("scan",))


@dataclass
class Trace:
    """Nodes in topological order, the input nodes (values supplied at run time, in slot
    order) and the output nodes.  ``index`` maps each node to its position in ``nodes``."""

    nodes: list[Node]
    inputs: list[Node]
    outputs: list[Node]
    index: dict[Node, int] = field(default_factory=dict)

    def key(self) -> bytes:
        """xxh3-128 digest of structure, shapes, dtypes and constants (not values)."""
        index = self.index
        parts = [("in", n.shape, n.dtype.char) if n.buffer is not None or n.op == "param"
                 else (n.op, n.arg if n.op not in SPEC_OPS else n.arg.key, n.shape,
                       n.dtype.char, tuple([index[s] for s in n.src]))
                 for n in self.nodes]
        parts.append(tuple([index[o] for o in self.outputs]))
        try:
            data = marshal.dumps(parts, 2)  # version 2: no object sharing, deterministic
        except ValueError:  # symbolic sizes (by identity), or an op argument marshal
            parts = exact_key(parts)  # cannot write: its repr is exact too
            try:
                data = marshal.dumps(parts, 2)
            except ValueError:
                data = repr(parts).encode()
        return xxhash.xxh3_128_digest(data)

    def consumers(self) -> dict[Node, list[Node]]:
        """Map each node to the nodes of this trace that read it (with repeats)."""
        users: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            if n.buffer is None and n.op != "param":
                for s in n.src:
                    users[s].append(n)
        return users


def reachable(roots: list[Node], children) -> dict[Node, None]:
    """Every node reached from ``roots`` by following ``children(node)`` (a sequence of
    nodes), in first-seen order (an explicit stack: graphs may be very deep)."""
    seen: dict[Node, None] = {}
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n not in seen:
            seen[n] = None
            stack.extend(children(n))
    return seen


def toposort(roots: Sequence[Node], stop: Collection[Node] | Callable[[Node], bool] = frozenset(),
             children: Callable[[Node], Sequence[Node]] | None = None) -> list[Node]:
    """The nodes of the graph of ``roots``, sources first (an explicit stack: graphs may
    be very deep).

    Parameters
    ----------
    stop : nodes (a set) or a predicate: the walk does not look below them.
    children : ``children(node)``, the nodes below ``node`` (default: its sources; leaves
        have none, and computed nodes are looked through); not called on ``stop`` nodes.
    """
    if children is None:
        children = _sources
    inside = stop if callable(stop) else stop.__contains__
    order, done = [], set()
    append, add = order.append, done.add
    for root in roots:
        if root in done:
            continue
        stack = [(root, iter(() if inside(root) else children(root)))]
        add(root)
        while stack:
            node, it = stack[-1]
            for child in it:
                if child not in done:
                    add(child)
                    stack.append((child, iter(() if inside(child) else children(child))))
                    break
            else:
                stack.pop()
                append(node)
    return order


def _sources(n: Node) -> tuple[Node, ...]:
    return n.src


def rebuild(order: Iterable[Node], memo: dict[Node, Node],
            replace: Callable[[Node, tuple], "Node | None"] | None = None) -> dict[Node, Node]:
    """Rebuild the nodes of ``order`` (sources first) over the new nodes of ``memo`` (old
    node -> new node, filled in place and returned): ``replace(node, new_sources)`` gives
    a node's replacement (``None``: none), else a node a source of which changed is made
    again over the new sources (hash-consed).  Nodes already in ``memo`` and leaves stay."""
    for n in order:
        if n in memo or not n.src:
            continue
        src = tuple([memo.get(s, s) for s in n.src])
        new = replace(n, src) if replace is not None else None
        if new is not None:
            memo[n] = new
        elif any(a is not b for a, b in zip(src, n.src)):
            memo[n] = Node.make(n.op, src, n.arg, n.shape, n.dtype)
    return memo


def substitute(outputs: Sequence[Node], mapping: dict[Node, Node],
               memo: dict | None = None) -> list[Node]:
    """``outputs`` rebuilt with the nodes of ``mapping`` replaced (hash-consed); ``memo``
    (if given) receives the map from every rebuilt node to its new node."""
    memo = memo if memo is not None else {}
    memo.update(mapping)
    rebuild(toposort(list(outputs), set(mapping)), memo)
    return [memo.get(o, o) for o in outputs]


def collect(outputs: list[Node], through_values: bool = False) -> Trace:
    """Collect the trace that computes ``outputs``, stopping at nodes that hold a buffer
    and at ``param`` placeholders, which become the trace's inputs.  With
    ``through_values``, a computed node (a value and sources) is computed again instead
    (a loop body: hash-consing may find a node of it computed elsewhere)."""
    order: list[Node] = []
    index: dict[Node, int] = {}
    inputs: list[Node] = []
    def add_input(node: Node) -> None:
        index[node] = len(order)
        order.append(node)
        inputs.append(node)

    for root in outputs:
        if root in index:
            continue
        if root.buffer is not None and not (through_values and root.src) or \
                root.op == "param":
            add_input(root)
            continue
        seen = {root}
        stack = [(root, iter(root.src))]
        while stack:
            node, it = stack[-1]
            for child in it:
                if child in index or child in seen:
                    continue
                if child.buffer is not None and not (through_values and child.src) or \
                        child.op == "param":
                    add_input(child)
                    continue
                seen.add(child)
                stack.append((child, iter(child.src)))
                break
            else:
                stack.pop()
                index[node] = len(order)
                order.append(node)
    return Trace(order, inputs, list(outputs), index)
