"""Immutable, hash-consed graph nodes.

A :class:`Node` is one application of an op (an Apply node in Theano's terms, a UOp in
tinygrad's): the op name, its source nodes, a hashable static argument, and the output
shape and dtype.  Building the same expression twice returns the same object, so
structural equality is identity and common-subexpression elimination is free.

Leaves are ``buffer`` nodes (a realized NumPy array), ``const`` nodes (a scalar literal of
shape ``()``) and ``param`` nodes (a placeholder traced by ``jit``).  A node that has been
computed keeps its value in ``buffer``.

Every node has a creation number, ``seq``, from one counter: a node's sources are older
than the node itself, so a node cannot depend on a node created after it (this bounds
the graph walks of differentiation).  A leaf holding a realized tensor's value remembers
the node that computed it (:func:`origin_of`), weakly: while that node is alive,
derivatives are taken through it.
"""
from __future__ import annotations

import itertools
import sys
import weakref
from typing import Any

import numpy as np

from lazyjit.errors import creation_site
from lazyjit.trace.constraints import PENDING, attach, symbols_of

_CACHE: dict = {}  # structural key -> weak reference to the live node with that key


class _Ref(weakref.ref):
    __slots__ = ("key",)


def _forget(ref: _Ref) -> None:
    if _CACHE.get(ref.key) is ref:
        del _CACHE[ref.key]
_leaf_ids = itertools.count()  # creation numbers (Node.seq) of every node


class Node:
    """One node of the graph.  Create through :meth:`Node.make`, never directly."""

    __slots__ = ("op", "src", "arg", "shape", "dtype", "site", "buffer", "seq", "low",
                 "derived", "__weakref__")

    op: str
    src: tuple["Node", ...]
    arg: Any
    shape: tuple[int, ...]
    dtype: np.dtype
    site: tuple
    buffer: np.ndarray | None
    seq: int
    low: int  # the oldest leaf a derivative may reach from here (see _low_of)
    derived: tuple | None  # a realized value's leaf: (weakref to its origin, its seq, low)

    @staticmethod
    def make(op: str, src: tuple["Node", ...], arg: Any, shape: tuple[int, ...],
             dtype: np.dtype) -> "Node":
        key = (op, arg, shape, dtype, *map(id, src))
        ref = _CACHE.get(key)
        if ref is not None:
            node = ref()
            if node is not None:
                if PENDING:  # what its shape assumes of symbolic sizes (recorded again)
                    _attach(node)
                return node
        node = object.__new__(Node)
        node.op, node.src, node.arg, node.shape, node.dtype = op, src, arg, shape, dtype
        node.site = creation_site()
        node.buffer = node.derived = None
        node.seq = next(_leaf_ids)
        node.low = _low_of(node)
        ref = _Ref(node, _forget)
        ref.key = key
        _CACHE[key] = ref
        if PENDING:  # what its shape assumes of symbolic sizes (lazyjit.trace.constraints)
            _attach(node)
        return node

    @staticmethod
    def fresh(like: "Node", src: tuple["Node", ...]) -> "Node":
        """A node computing what ``like`` computes over ``src``, outside the hash-consing
        table and without a value: a graph that must compute it again (its inputs change
        between calls) never picks up the value an earlier computation left."""
        node = object.__new__(Node)
        node.op, node.src, node.arg = like.op, src, like.arg
        node.shape, node.dtype, node.site = like.shape, like.dtype, like.site
        node.buffer = node.derived = None
        node.seq = next(_leaf_ids)
        node.low = _low_of(node)
        return node

    @staticmethod
    def leaf(array: np.ndarray, site: bool | tuple = True) -> "Node":
        """A realized leaf holding ``array`` (C-contiguous, owned by lazyjit).

        Leaves are unique, so they bypass the hash-consing table; ``site=False`` skips
        recording the creation stack (the jit call path, where it is never shown), a
        tuple is the site to keep (that of the node whose value this is)."""
        node = object.__new__(Node)
        node.op, node.src = "buffer", ()
        node.arg = node.seq = node.low = next(_leaf_ids)
        node.shape, node.dtype = array.shape, array.dtype
        node.site = site if type(site) is tuple else creation_site() if site else ()
        node.buffer, node.derived = array, None
        return node

    @staticmethod
    def const(value: Any, dtype: np.dtype) -> "Node":
        """A scalar literal of shape ``()``; its value is part of the trace key."""
        v = np.asarray(value, dtype=dtype)[()].item()
        return Node.make("const", (), (type(v).__name__, repr(v)), (), dtype)

    @property
    def const_value(self) -> Any:
        kind, text = self.arg
        if kind == "bool":
            return text == "True"
        return int(text) if kind == "int" else float(text)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self) -> str:
        return f"Node({self.op}, arg={self.arg!r}, shape={self.shape}, dtype={self.dtype.name})"


def _attach(node: Node) -> None:
    """Attach to ``node`` this thread's pending requirements on the symbolic sizes its
    shape, argument and operands' shapes mention (none to a node without any)."""
    symbols = symbols_of((node.shape, node.arg, *[s.shape for s in node.src]))
    if symbols:
        attach(node, symbols)


def _low_of(node: Node) -> int:
    """The oldest leaf (its ``seq``) a derivative of ``node`` may reach: a node older
    than that is not among the ancestors a derivative goes through.  Constants count for
    nothing; below a ``grad`` node nothing counts (the gradients a value was computed
    from are constants once it has been read: :mod:`lazyjit.trace.through`)."""
    if node.op == "grad" or not node.src:
        return node.seq if node.op != "const" else sys.maxsize
    low = sys.maxsize
    for s in node.src:
        if s.low < low:
            low = s.low
    return low


def derived(leaf: Node, origin: Node) -> None:
    """Record that ``leaf`` holds the value ``origin`` computed: a weak reference (alive
    while the tensor, or a graph, still holds that node) and its ``seq`` (every node it
    depended on is older); the leaf's ``low`` is that of ``origin``'s graph (which may be
    a gradient itself)."""
    leaf.low = min([s.low for s in origin.src], default=origin.low) \
        if origin.op == "grad" else origin.low
    leaf.derived = (weakref.ref(origin), origin.seq, leaf.low)


def origin_of(n: Node) -> Node | None:
    """The live node that computed the value the leaf ``n`` holds, or None (not a
    realized value's leaf, or its graph has been freed)."""
    d = n.derived
    return None if d is None else d[0]()
