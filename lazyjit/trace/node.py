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

from lazyjit.errors import _INTERNAL, _MAX_FRAMES, creation_site, is_internal, warn_at_user
from lazyjit.speedups import NATIVE
from lazyjit.trace.constraints import PENDING, attach, symbols_of
from lazyjit.trace.dims import Dim

_CACHE: dict = {}  # structural key -> weak reference to the live node with that key


class _Ref(weakref.ref):
    __slots__ = ("key", "hash")  # (hash: the key's, kept by the C make for its forget)


def _forget(ref: _Ref) -> None:
    if _CACHE.get(ref.key) is ref:
        del _CACHE[ref.key]
_leaf_ids = itertools.count()  # creation numbers (Node.seq) of every node


def next_seq() -> int:
    """A creation number no node has: every node made later has a larger ``seq``."""
    return next(_leaf_ids)


class Node:
    """One node of the graph.  Create through :meth:`Node.make`, never directly."""

    __slots__ = ("op", "src", "arg", "shape", "dtype", "site", "buffer", "seq", "low",
                 "derived", "ins", "sk", "ep", "__weakref__")

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
    # the structural key, computed when the node is made (see _structure): the inputs
    # its trace reads (collect's order; None: no such key), the structure's number, and
    # the oldest epoch of its graph's nodes (see EPOCH)
    ins: tuple | None
    sk: int
    ep: int

    @staticmethod
    def make(op: str, src: tuple["Node", ...], arg: Any, shape: tuple[int, ...],
             dtype: np.dtype) -> "Node":
        key = (op, arg, shape, dtype, src)  # (nodes hash and compare by identity)
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
        _structure(node)
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
        node.buffer = node.derived = node.ins = None  # (no structural key)
        node.sk = node.ep = 0
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
        # (a leaf is read as an input of every trace: see _structure; ins is never
        # (node,), a cycle that would keep its array alive past its last use)
        node.ins, node.sk, node.ep = None, _INPUT, NEVER
        return node

    @staticmethod
    def const(value: Any, dtype: np.dtype) -> "Node":
        """A scalar literal of shape ``()``; its value is part of the trace key (a float
        beyond a narrow float dtype's range is infinity, with NumPy's warning given at
        the user's line)."""
        if type(value) is float and dtype.kind == "f" and dtype.itemsize < 8:
            with np.errstate(over="ignore"):
                v = np.asarray(value, dtype=dtype)[()].item()
            if abs(v) == float("inf") and abs(value) != float("inf"):
                warn_at_user("overflow encountered in cast")
        else:
            v = np.asarray(value, dtype=dtype)[()].item()
        return Node.make("const", (), (type(v).__name__, repr(v)), (), dtype)

    @property
    def const_value(self) -> Any:
        kind, text = self.arg
        if kind == "bool":
            return text == "True"
        return int(text) if kind == "int" else complex(text) if kind == "complex" else \
            float(text)

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


# ---- structural keys (tinygrad's UOp.key, for the realize of eager code) ----------------
#
# Every node made by ``make`` gets, from its sources' keys in O(sources), the inputs its
# trace would read (``ins``: the leaves and computed nodes below it, in the order
# :func:`lazyjit.trace.graph.collect` finds them) and a number for its structure
# (``sk``): op, argument, shape, dtype, and each source's number with the positions of
# that source's inputs among ``ins``.  Two nodes of one number compute the same function
# of their ``ins``: a realize finds its plan from its outputs' numbers, with no walk of
# the graph.  A node's key holds while none of its graph's nodes has been computed
# since it was made: ``ep`` is the oldest epoch (EPOCH, bumped by every realize that
# stores values) of the nodes below it that read inputs (NEVER for constants, whose
# values never change, and for leaves).  Nodes outside these rules (placeholders,
# loops, nodes made by ``fresh``, graphs reading more than MAX_INS inputs) have
# ``ins`` None: their realize walks the graph.

EPOCH = [0]
next_epoch = itertools.count(1).__next__  # (atomic: realizes in two threads never share one)
NEVER = sys.maxsize
MAX_INS = 32
_NUMBERS: dict = {}  # structure -> its number (numbers are never reused)
_next_number = itertools.count(1).__next__
_INPUT = -1  # the number of an input: its shape and dtype are the caller's to add


def _number(key: tuple) -> int:
    n = _NUMBERS.get(key)
    if n is None:
        if len(_NUMBERS) > 1 << 20:
            _NUMBERS.clear()  # (later nodes get new numbers: a miss, never a mix-up)
        n = _NUMBERS[key] = _next_number()
    return n


def _structure(node: Node) -> None:
    """Set ``node.ins``, ``node.sk`` and ``node.ep`` (see above).  (Written out for one
    source and for two inputs, the common cases: this runs for every node made.  Their
    structures are tagged "u" and "b", which no part of :func:`_structure_any`'s, an
    int or a tuple, can equal.)"""
    src = node.src
    op = node.op
    if op in _NO_KEY:
        node.ins, node.sk, node.ep = None, 0, 0
        return
    if len(src) == 1:
        s = src[0]
        if s.buffer is not None:  # an input of the trace (a leaf, or computed)
            node.ins, node.ep = (s,), EPOCH[0]
            k = _input_number(s)
        else:
            ins = s.ins
            if ins is None:
                node.ins, node.sk, node.ep = None, 0, 0
                return
            node.ins, k, ep = ins, s.sk, EPOCH[0]
            node.ep = s.ep if s.ep < ep else ep if ins else NEVER
        node.sk = _number((op, node.arg, node.shape, node.dtype, "u", k))
        return
    if len(src) == 2:
        a, b = src
        if a.buffer is not None:  # (inputs: a leaf, or computed)
            ia, ea = (a,), NEVER
            ka = _input_number(a)
        else:
            ia, ka, ea = a.ins, a.sk, a.ep
            if ia is None:
                node.ins, node.sk, node.ep = None, 0, 0
                return
        if b.buffer is not None:
            ib, eb = (b,), NEVER
            kb = _input_number(b)
        else:
            ib, kb, eb = b.ins, b.sk, b.ep
            if ib is None:
                node.ins, node.sk, node.ep = None, 0, 0
                return
        if not ia or ib is ia or b is a:  # b's inputs at 0, 1, ... (None)
            ins, at = (ib if not ia else ia), None
        elif not ib:  # (b a constant)
            ins, at = ia, ()
        elif len(ib) == 1:
            x = ib[0]
            if x in ia:
                ins, at = ia, (ia.index(x),)
            elif len(ia) < MAX_INS:
                ins, at = ia + ib, (len(ia),)
            else:  # (a sum of many leaves: keys would cost quadratic memory)
                node.ins, node.sk, node.ep = None, 0, 0
                return
        else:
            ins, at = merge(ia, ib)
            if len(ins) > MAX_INS:
                node.ins, node.sk, node.ep = None, 0, 0
                return
        node.ins = ins
        node.sk = _number((op, node.arg, node.shape, node.dtype, "b", ka, kb, at))
        ep = EPOCH[0]
        if ea < ep:
            ep = ea
        if eb < ep:
            ep = eb
        node.ep = ep if ins else NEVER
        return
    _structure_any(node)


def _structure_any(node: Node) -> None:
    """:func:`_structure` for any number of sources (not a ``_NO_KEY`` op): the number
    of ``(op, arg, shape, dtype, "m", t)``, where ``t`` numbers the sources' part
    (:func:`_sources_key`), which the nodes of a :func:`make_group` share."""
    src = node.src
    if not src:
        if node.op == "const":
            node.ins, node.sk, node.ep = (), _number(("const", node.arg, node.dtype)), NEVER
        else:
            node.ins, node.sk, node.ep = None, 0, 0
        return
    keyed = _sources_key(src)
    if keyed is None:
        node.ins, node.sk, node.ep = None, 0, 0
        return
    ins, tail, ep = keyed
    node.ins, node.sk = ins, _number((node.op, node.arg, node.shape, node.dtype, "m", tail))
    node.ep = ep if ins else NEVER


def _sources_key(src: tuple) -> tuple | None:
    """The inputs that a node of the sources ``src`` reads, the number of the sources'
    keys with their inputs' positions there (a tuple of ints and pairs, unlike any other
    structure), and the oldest epoch below; None where such a node gets no key."""
    ep = EPOCH[0]
    ins: tuple = ()
    parts = []
    for s in src:
        if s.buffer is not None:  # an input of the trace (a leaf, or computed)
            si = (s,)
            k = _input_number(s)
        else:
            si = s.ins
            if si is None:
                return None
            k = s.sk
            if s.ep < ep:
                ep = s.ep
            if not si:  # (a constant: no inputs)
                parts.append(k)
                continue
        if ins:
            ins, at = merge(ins, si)
            parts.append((k, at))
        else:  # (its inputs come first, in their order)
            ins = si
            parts.append((k, None))
    if len(ins) > MAX_INS:
        return None
    return ins, _number(tuple(parts)), ep


def make_group(op: str, src: tuple, specs: list) -> list[Node]:
    """``[Node.make(op, src, *spec) for spec in specs]``, each ``spec`` an ``(arg, shape,
    dtype)``: nodes over one tuple of sources (a deferred gradient's, one per ``wrt``).
    (``lazyjit._speedups.make_group`` computes their sources' part of the structural
    key once.)"""
    make = Node.make
    return [make(op, src, *spec) for spec in specs]


def _input_number(s: Node) -> int:
    """The number of ``s`` read as an input (its shape and dtype), kept on a leaf (not on
    a computed node or a literal given a value: their ``sk`` numbers their structure)."""
    if s.op == "buffer":
        if s.sk == _INPUT:
            s.sk = _number(("in", s.shape, s.dtype))
        return s.sk
    return _number(("in", s.shape, s.dtype))


def merge(ins: tuple, si: tuple) -> tuple[tuple, tuple | None]:
    """``ins`` followed by the inputs of ``si`` it lacks, and the positions of ``si``'s
    inputs there (None: ``si`` is ``ins`` itself, at its own positions)."""
    if si is ins:  # (the same inputs: x * x, a value and its own sum)
        return ins, None
    if len(ins) + len(si) <= 16:  # (linear scans beat building a dict)
        new = tuple([x for x in si if x not in ins])
        if new:
            ins = ins + new
        return ins, tuple([ins.index(x) for x in si])
    at = {x: i for i, x in enumerate(ins)}
    for x in si:
        if x not in at:
            at[x] = len(at)
    return tuple(at), tuple([at[x] for x in si])


# ops whose argument holds graphs (a loop's body): their nodes get no structural key
_NO_KEY = frozenset(("scan",))



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


class FromNumpy:
    """The record of a value NumPy computed from tensors' values (a NumPy function
    lazyjit lacks: :mod:`lazyjit.api.interop`), called as a weak reference to a
    computing node is (``ref()``): a ``numpy`` node of its inputs while they all live,
    else None.  The inputs are held weakly (a chain ``x = np.i0(x)`` keeps no earlier
    value alive); a derivative that would go through the value raises
    (:mod:`lazyjit.trace.through`), as none does."""

    __slots__ = ("name", "arg", "inputs", "shape", "dtype")

    def __init__(self, name: str, number: int, inputs: tuple, shape: tuple, dtype):
        self.name, self.arg = name, (name, number)
        self.inputs = tuple(weakref.ref(n) for n in inputs)
        self.shape, self.dtype = shape, dtype

    def __call__(self) -> "Node | None":
        nodes = tuple(r() for r in self.inputs)
        if any(n is None for n in nodes):
            return None
        return Node.make("numpy", nodes, self.arg, self.shape, self.dtype)


def from_numpy(leaf: Node, name: str, number: int, inputs: tuple) -> None:
    """Record that ``leaf`` holds the value NumPy's ``name`` computed from the values of
    the nodes ``inputs`` (see :class:`FromNumpy`).  An integer or bool value carries no
    derivative: its record says that nothing below it is looked into (``born`` -1, no
    node is that old), and is kept for :func:`lazyjit.engine.symbolic.recompute_stateful`,
    which must not take a value computed from a shared variable for a constant."""
    born = leaf.seq
    if leaf.dtype.kind in "fc":
        leaf.low = min([n.low for n in inputs], default=leaf.seq)
    else:
        born = -1
    leaf.derived = (FromNumpy(name, number, inputs, leaf.shape, leaf.dtype), born, leaf.low)


def origin_of(n: Node) -> Node | None:
    """The live node that computed the value the leaf ``n`` holds, or None (not a
    realized value's leaf, or its graph has been freed)."""
    d = n.derived
    return None if d is None else d[0]()


# ---- the same steps in C (lazyjit.speedups): Node.make and _structure ----------------
structure_py = _structure  # (the Python steps, which the C ones must equal: tests)
make_py, leaf_py, make_group_py = Node.make, Node.leaf, make_group
if NATIVE is not None:  # (a new node in a third of the time: eager code makes one per op)
    NATIVE.structure_init(Node, EPOCH, _NUMBERS, _next_number, _NO_KEY, NEVER, _INPUT,
                          MAX_INS, merge)
    _structure = NATIVE.structure
    NATIVE.make_init(_CACHE, _Ref, _forget, _leaf_ids, PENDING, _attach, _INTERNAL,
                     is_internal, _MAX_FRAMES, NATIVE.forget, Dim)
    Node.make, Node.leaf = staticmethod(NATIVE.make), staticmethod(NATIVE.leaf)
    make_group = NATIVE.make_group
