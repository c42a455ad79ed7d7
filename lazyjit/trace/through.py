"""Derivatives through values that were read: the graph behind a realized tensor.

A tensor whose value was read (printed, ``.numpy()``, ``lj.realize``) becomes a leaf
holding the value; the node that computed it stays alive while the tensor does, and the
leaf refers to it weakly (:func:`lazyjit.trace.node.derived`).  Before a graph is
differentiated, :func:`see_through` replaces each such leaf whose computing graph leads
to a differentiated node (a *target*) by that computing node, so that reading a value
never changes a derivative.

Where the chain is cut: below a computing node, the gradients it was computed from
(``grad`` nodes: an optimizer step ``w - lr * g`` that was then read) are constants, as
``torch.no_grad`` updates are; the computing node itself may be a gradient (a gradient
that was read, then differentiated again).  ``stop_gradient`` nodes are never looked
below.  When the graph behind a value has been freed and a target may lie in it, an
error says so: never a silent zero.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from lazyjit.errors import LazyjitError, format_site, op_error
from lazyjit.speedups import NATIVE
from lazyjit.trace.node import FromNumpy, Node
from lazyjit.trace.state import STATE

_OUT, _ORIGIN, _INSIDE = 0, 1, 2  # walking the graph itself, a computing node, below it


@contextlib.contextmanager
def keeping_read_values() -> Iterator[list]:
    """A block in which the graphs of the values read (printed, ``.numpy()``) stay alive,
    held by the list it yields: a function differentiated by ``lj.grad(fn)`` may print an
    intermediate that is dropped when it returns."""
    kept: list = []
    STATE.keep.append(kept)
    try:
        yield kept
    finally:
        STATE.keep.pop()


def see_through(roots: list[Node], targets: set[Node], stop: set[Node]
                ) -> tuple[dict[Node, Node], set[Node]]:
    """Make the graph of ``roots`` differentiable through values that were read.

    Only nodes created after the oldest target are looked at (an older node cannot
    depend on a target); ``stop`` and ``stop_gradient`` nodes are not looked below.

    Returns the map from each rebuilt node to its replacement (usually empty), and the
    targets the rebuilt graph depends on (through any op).

    Raises
    ------
    LazyjitError
        If the path to a target may pass through a value whose computing graph has been
        freed (every tensor holding it was dropped), or one a jitted function returned.
    """
    if not targets:
        return {}, set()
    floor = min([t.seq for t in targets])
    seen = _reach(list(roots), floor, stop, targets, lambda n: _look_into(n, targets, floor))
    if seen is None:  # a value's computing graph must be looked into
        return _Rebuild(targets, stop, floor).run(roots)
    return {}, targets & seen


def reach_py(roots: list[Node], floor: int, stop: set[Node], targets: set[Node],
             dead) -> set[Node] | None:
    """The nodes seen from ``roots``, not looking below nodes older than ``floor``, in
    ``stop`` or ``stop_gradient`` ones, and looking into the graph that computed each
    realized value's leaf whose computing node is not older than ``floor``
    (:func:`_look_into`); None as soon as one may lead to a target.
    (``lazyjit._speedups.reach`` does the same steps, its ``look_into`` in C, calling
    ``dead(leaf)``, :func:`_look_into` itself, only where a value's graph is gone.)"""
    seen: set[Node] = set()
    add, stack = seen.add, list(roots)
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        if n in seen:
            continue
        add(n)
        if n.seq < floor or n in stop or n.op == "stop_gradient":
            continue
        if n.derived is None:
            extend(n.src)
        elif n.derived[1] >= floor and _look_into(n, targets, floor):  # (a value made of
            return None  # nodes older than every target holds none of them)
    return seen


_reach = NATIVE.reach if NATIVE is not None else reach_py


def _look_into(leaf: Node, targets: set[Node], floor: int) -> bool:
    """Whether the graph that computed the value ``leaf`` holds may lead to a target
    (other than the node computing a target's own value); raises when that graph is
    gone and a target may be in it."""
    ref, born, low = leaf.derived
    origin = ref()
    if origin is None:
        if any(low <= t.seq < born for t in targets):
            gone(leaf)
        return False
    if leaf not in targets and origin in targets:
        return True
    return _reaches(origin.src, targets, floor)


def _reaches(nodes, targets: set[Node], floor: int) -> bool:
    """Whether a target is among the ancestors of ``nodes`` inside a computing node's
    graph (not below gradients, ``stop_gradient`` nodes or nodes older than ``floor``,
    through the graphs of values read); raises as :func:`_look_into` for a freed one."""
    seen: set[Node] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n in seen or n.seq < floor:
            continue
        seen.add(n)
        if n in targets:
            return True
        if n.op in ("grad", "stop_gradient"):
            continue
        if n.derived is not None:
            if n.derived[1] < floor:  # (made of nodes older than every target)
                continue
            origin = n.derived[0]()
            if origin is None:
                _look_into(n, targets, floor)  # an error if it may matter
            else:
                stack.append(origin)
            continue
        stack.extend(n.src)
    return False


def through_numpy(leaf: Node) -> LazyjitError:
    """The error for a derivative that would go through the value of ``leaf``, which a
    NumPy function lazyjit lacks computed (:class:`lazyjit.trace.node.FromNumpy`)."""
    return op_error("grad", "a derivative may go through the value of "
                    f"np.{leaf.derived[0].name}, which NumPy computed from the values (lazyjit "
                    "has no such function): it has no derivative.  Compute it with "
                    "lazyjit's functions, or take it as a constant with lj.stop_gradient."
                    + _computed_at(leaf))


def gone(leaf: Node):
    if isinstance(leaf.derived[0], FromNumpy):  # (an input it was computed from is gone)
        raise through_numpy(leaf)
    jitted = leaf.derived[0] is JITTED
    raise op_error(
        "grad", ("a derivative may depend on a value a jitted function returned, and "
                 "derivatives do not go through a jit call's outputs: take lj.grad inside "
                 "the jitted function, or call the function without jit" if jitted else
                 "a derivative may depend on a value that was read (printed, .numpy()) "
                 "and whose graph has been freed: every tensor holding it was dropped.  "
                 "Keep that tensor alive until the derivative is built, or build the "
                 "derivative before reading the value") +
        "; lj.stop_gradient(t) makes it a constant." + _computed_at(leaf))


def _computed_at(leaf: Node) -> str:
    """Where the value of ``leaf`` was created (nothing when that was not recorded: a
    jitted call's output)."""
    where = format_site(leaf.site) if leaf.site else ""
    return f"  The value was computed at\n{where}" if where else ""


def JITTED():
    """The record of a value a jitted function returned: no graph to look into (see
    :func:`gone`)."""
    return None


class _Rebuild:
    """:func:`see_through` when some value's computing graph must be looked into: each
    node is visited in a mode (the graph itself, a computing node, below one)."""

    def __init__(self, targets: set[Node], stop: set[Node], floor: int):
        self.targets, self.stop, self.floor = targets, stop, floor
        self.reach: dict[tuple, bool] = {}  # a target below (looking into computing graphs)
        self.hit: dict[tuple, bool] = {}    # a target below in the rebuilt graph
        self.new: dict[tuple, Node] = {}    # rebuilt nodes
        self.via: dict[tuple, tuple] = {}   # a leaf replaced by its computing node: that node

    def kids(self, n: Node, mode: int) -> list[tuple]:
        """The (node, mode) pairs below ``n`` visited in ``mode``."""
        if n.seq < self.floor or n in self.stop or n.op == "stop_gradient":
            return []
        if n.derived is not None:
            if n.derived[1] < self.floor:  # (made of nodes older than every target)
                return []
            origin = n.derived[0]()
            if origin is None:
                _look_into(n, self.targets, self.floor)  # an error if it may matter
                return []
            # below a computing node, a value read is looked into as the rest (its
            # gradients constants too)
            return [(origin, _ORIGIN if mode == _OUT else _INSIDE)]
        if n.op == "grad" and mode == _INSIDE:  # a gradient an optimizer step used
            return []
        below = _OUT if mode == _OUT else _INSIDE
        return [(k, below) for k in n.src]

    def run(self, roots: list[Node]) -> tuple[dict[Node, Node], set[Node]]:
        reach, hit, new, targets = self.reach, self.hit, self.new, self.targets
        stack = [((r, _OUT), False) for r in roots]
        while stack:
            key, ready = stack.pop()
            if key in reach:
                continue
            n, mode = key
            kids = self.kids(n, mode)
            if not ready:
                stack.append((key, True))
                stack.extend((k, False) for k in kids if k not in reach)
                continue
            mine = n in targets
            reach[key] = mine or any(reach[k] for k in kids)
            if n.op == "grad" and mode == _INSIDE and not mine:  # the cut: a constant
                hit[key] = False
                new[key] = Node.make("stop_gradient", (n,), None, n.shape, n.dtype)
                continue
            if n.derived is None or not kids:
                hit[key] = mine or any(hit[k] for k in kids)
                if not mine and any(k in new for k in kids):  # (a target stays itself)
                    new[key] = Node.make(n.op, tuple(new.get(k, k[0]) for k in kids), n.arg,
                                         n.shape, n.dtype)
                continue
            (origin_key,) = kids  # a value read: through its computing node, when a
            # target is there (besides the node computing a target's own value)
            if reach[origin_key] if not mine else any(
                    reach.get((k, _INSIDE), False) for k in origin_key[0].src):
                if origin_key[0].op == "numpy":  # (no derivative goes through NumPy)
                    raise through_numpy(n)
                new[key] = new.get(origin_key, origin_key[0])
                self.via[key] = origin_key
                hit[key] = mine or hit[origin_key]
            else:
                hit[key] = mine
        mapping = {n: m for (n, mode), m in new.items() if mode == _OUT}
        return mapping, self.found(roots)

    def found(self, roots: list[Node]) -> set[Node]:
        """The targets on paths from the roots in the rebuilt graph."""
        out, seen = set(), set()
        stack = [(r, _OUT) for r in roots if self.hit.get((r, _OUT))]
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            n, mode = key
            if n in self.targets:
                out.add(n)
            if key in self.via:
                kids = [self.via[key]]
            elif n.derived is not None:
                kids = []
            else:
                kids = self.kids(n, mode)
            stack.extend(k for k in kids if self.hit.get(k))
        return out
