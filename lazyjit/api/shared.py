"""Shared variables: persistent state that compiled functions read and update (Theano's
``theano.shared``).

A :class:`SharedVariable` is a tensor whose value lives across calls.  Graphs built
from it read its current value; ``set_value`` replaces it (the shape may change, the
dtype may not); ``assign`` gives it a new value computed lazily.  Inside ``@lj.jit`` a
shared variable is an implicit input read at every call (not a constant of the trace),
and ``assign`` records an update: the function's plan computes the new value with its
outputs, and the variable takes it after the call (reads after the ``assign`` in the
function give the new value, as in eager code).  Outside jit, assigning a value that
depends on ``lj.function`` placeholders (an optimizer step while a training graph is
built) makes the variable *symbolic*: later graphs read the new expression, its value
cannot be read, and the next ``lj.function`` over those placeholders takes the
assignment as one of its updates and gives the variable back its value.
"""
from __future__ import annotations

import itertools
import sys
import weakref
from typing import Any

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api.tensor import Tensor, owned_array
from lazyjit.errors import LazyjitError, describe, op_error
from lazyjit.trace.graph import collect, reachable
from lazyjit.trace.node import Node
from lazyjit.trace.state import ACTIVE, CONTEXT, STATE, UPDATING, in_trace, tracing_jit
from lazyjit.trace.updates import check_second_assign, pending, recording
from lazyjit.trace.values import host

# the leaf node holding each shared variable's current value -> the variable
OWNER: "weakref.WeakKeyDictionary[Node, SharedVariable]" = weakref.WeakKeyDictionary()
# shared variables given a value not computed yet (``assign`` outside jit), by id (a
# tensor's == is elementwise, so they cannot sit in a set)
_PENDING: "dict[int, weakref.ref]" = {}
# shared variables assigned, outside jit, a value that depends on lj.function
# placeholders (an optimizer step or a batch norm while building a graph): by id
# (the variable, the placeholders its update depends on)
SYMBOLIC: "dict[int, tuple[weakref.ref, frozenset]]" = {}
# every value assigned outside jit that was not computed at once (pending: it depends on
# other values) -> its variable; a value of literals alone is computed at once
ASSIGNED: "weakref.WeakKeyDictionary[Node, weakref.ref]" = weakref.WeakKeyDictionary()


def placeholders_of(node: Node) -> list[Node]:
    """The ``lj.function`` placeholders the graph of ``node`` depends on, and the leaves
    holding symbolic sizes (``("size", n)``, ``("sized", ...)``: :mod:`lazyjit.api.core`)."""
    return [n for n in collect([node]).inputs
            if n.op == "param" and n.arg[0] in ("input", "size", "sized")]


def _leaf_text(p: Node) -> str:
    """A leaf :func:`placeholders_of` returns, in messages."""
    if p.arg[0] == "input":
        return repr(p.arg[2])
    return f"the size {p.arg[1] if p.arg[0] == 'size' else describe(p.shape)}"


current = pending  # (the name random streams and lj.cond read it by)


READS = itertools.count(1)  # the clock of shape reads (SharedVariable.shape_read)
ALL: "weakref.WeakSet[SharedVariable]" = weakref.WeakSet()  # every live shared variable


def shapes_read_since(start: int) -> list[tuple]:
    """``(variable, shape, dtype)`` of each shared variable whose shape was read after the
    clock value ``start`` (a trace that used it as a Python number baked it in: a
    change makes that trace stale)."""
    return [(sv, stored(sv).shape, stored(sv).dtype) for sv in list(ALL)
            if sv.shape_read > start]


def changed(reads: list, resolve=None) -> "SharedVariable | None":
    """The first shared variable of ``reads`` (``(variable, shape, dtype)``, as
    :func:`shapes_read_since` gives) whose value no longer has that shape and dtype;
    None when all still do.  ``resolve`` maps a variable to the one that stands for it
    (a copied function's swaps)."""
    for sv, shape, dtype in reads:
        if resolve is not None:
            sv = resolve(sv)
        node = stored(sv)
        if node.shape != shape or node.dtype != dtype:
            return sv
    return None


_SLOT = Tensor.node  # (the slot a tensor's node is kept in)
# a shared variable's own node (its leaf, or an assigned expression not computed yet),
# whatever the code being traced assigned to it (``SharedVariable.node``'s view)
stored = _SLOT.__get__


class SharedVariable(Tensor):
    """A tensor with a persistent, replaceable value.  Create with :func:`shared`."""

    __slots__ = ("name", "counter", "_concrete", "own", "shape_read", "updating")

    @property
    def node(self) -> Node:
        """The node reading the variable gives: in code being traced, the value assigned
        to it earlier in the same trace (a jit function's, an ``lj.cond`` branch's: the
        program order of eager code) or its row in a scan step (``STATE.views``), else
        the node holding its value (its leaf, or an assigned expression not computed
        yet)."""
        if ACTIVE[0]:  # (some thread traces: views are pushed only then)
            views = STATE.views
            if views:
                v = views[-1].get(self)
                if v is not None:
                    return v.node
        node = stored(self)
        if self.updating:  # (a compiled update may be writing over this value in place,
            with UPDATING:  # having checked that no one held it: the value it leaves)
                node = stored(self)
        return node

    @node.setter
    def node(self, node: Node) -> None:
        _SLOT.__set__(self, node)

    def __reduce__(self):
        """Pickled (and copied by ``copy``) as a new shared variable of its current value,
        name and role (a random stream's counter stays one)."""
        return _restored, (self.get_value(), self.name, self.counter)

    def __copy__(self):  # (not Tensor's: a variable's copy is a variable of its own)
        rebuild, args = self.__reduce__()
        return rebuild(*args)

    def __deepcopy__(self, memo):
        return self.__copy__()

    @property
    def shape(self) -> tuple:
        """The current value's shape (a read is recorded: :func:`shapes_read_since`)."""
        self.shape_read = next(READS)
        return self.node.shape

    def __init__(self, value: Any, name: str | None = None, dtype: Any = None):
        super().__init__(Node.leaf(owned_array(value, dtype, "shared")))
        self.name = name
        self.counter = False  # a random stream's counter (lj.function advances it)
        self._concrete: Node | None = None  # the value behind a symbolic assignment
        # whether the value's memory is lazyjit's alone (an update's fresh output, never
        # handed out): only then may a compiled update overwrite it in place
        self.own = False
        # a call that may compute the value in place is running (set before it checks
        # who holds the value: a reader then waits for the new one, see node)
        self.updating = False
        self.shape_read = 0
        OWNER[self.node] = self
        ALL.add(self)

    def _in_place(self, other):
        raise TypeError(f"shared variable {self.name or ''}: an augmented assignment (v += "
                        "x) would bind the name to a new tensor and leave the variable "
                        "unchanged: use v.assign(v + x)")

    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = \
        __ipow__ = __imatmul__ = __iand__ = __ior__ = __ixor__ = __ilshift__ = \
        __irshift__ = _in_place

    @property
    def symbolic(self) -> bool:
        """Whether the variable was assigned a value that depends on placeholders (not
        yet taken by an ``lj.function`` as an update)."""
        return id(self) in SYMBOLIC

    def restore(self) -> None:
        """Drop a symbolic assignment: the variable holds its value again."""
        if SYMBOLIC.pop(id(self), None) is not None:
            self.node, self._origin, self._concrete = self._concrete, None, None

    def _set_leaf(self, arr: np.ndarray, own: bool = False) -> None:
        SYMBOLIC.pop(id(self), None)
        self._concrete = None
        self.own = own
        node = Node.leaf(arr, site=False)
        # registered before it is the value: a jit trace in another thread that reads
        # the new leaf must find its variable, or it would capture the array as a
        # constant and every call of that trace would lose the updates made since
        OWNER[node] = self
        self._origin = None
        self.node = node
        _PENDING.pop(id(self), None)

    def get_value(self, borrow: bool = False) -> np.ndarray:
        """The current value (a copy, or with ``borrow`` the read-only array itself).

        Raises
        ------
        LazyjitError
            If the variable is symbolic (assigned a value depending on placeholders);
            inside ``lj.jit`` or a scan step (the value would go stale).
        """
        if self.symbolic:
            names = ", ".join(sorted({_leaf_text(p) for p in SYMBOLIC[id(self)][1]}))
            raise op_error("get_value", f"shared variable {self.name or ''} was assigned a "
                           f"value that depends on the placeholders {names}: it has no value "
                           "until an lj.function over them takes the assignment as an "
                           "update (or call .restore())", (self.node,))
        if STATE.scan_depth or STATE.recording and tracing_jit(STATE.recording):
            raise op_error("get_value", f"shared variable {self.name or ''}: its value read "
                           "while lj.jit or a scan step is traced would be baked into the "
                           "trace and go stale at later calls (steps): use the variable "
                           "itself, as a tensor, or read it outside", (self.node,))
        node = self.node
        if node is not stored(self):  # the value the code being traced assigned (an
            out = Tensor(node).numpy()  # lj.cond branch's: computed, never kept; in
            return out if borrow else out.copy()  # jit, an error saying why)
        if id(self) in _PENDING:
            realize_pending()
        if stored(self).buffer is None:  # (its assignment taken by another thread's realize)
            settle([self])
        with UPDATING:  # (not half updated by a call in another thread)
            arr = host(stored(self).buffer)
            if borrow:
                self.own = False  # handed out: never overwritten in place
            return arr if borrow else arr.copy()

    def numpy(self) -> np.ndarray:
        """The value as a read-only NumPy array (a view of the variable's memory, which
        is then never overwritten by an in-place update).  Inside ``lj.jit`` an error:
        the function reads the variable at every call, a value read now would go stale."""
        if STATE.recording:
            CONTEXT.realize(self)  # (which refuses it, naming the variable)
        out = self.get_value(borrow=True).view()  # (the value it holds now, computed)
        out.flags.writeable = False
        return out

    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Replace the value by a copy of ``value`` (``borrow`` is accepted for Theano
        compatibility); the shape may change, the dtype may not (no implicit casting).

        Raises
        ------
        LazyjitError
            If the value's dtype differs from the variable's; while a trace is recorded
            (inside ``lj.jit``, a scan step, an ``lj.cond`` branch), where it would take
            effect once, as the trace is built (``assign`` records an update there).
        """
        if in_trace():
            raise op_error("set_value", f"shared variable {self.name or ''}: set_value while "
                           "a trace is recorded (inside lj.jit, a scan step or an lj.cond "
                           "branch) would take effect once, as the trace is built, not at "
                           "each call or only in the branch taken: use .assign(value)",
                           (self.node,))
        arr = np.asarray(value)
        if arr.dtype.newbyteorder("=") != self.dtype:  # (the byte order is no cast)
            raise op_error("set_value", f"shared variable {self.name or ''} has dtype "
                           f"{self.dtype}, got a value of dtype {arr.dtype}; cast it first "
                           f"(value.astype('{self.dtype}'))", (self.node,))
        self._set_leaf(owned_array(arr, self.dtype, "shared"))

    def coerce(self, value: Any, op: str) -> Tensor:
        """``value`` as a tensor of this variable's dtype (a same-kind cast, as Theano's
        updates allow); raises a ``LazyjitError`` naming ``op`` for another kind."""
        v = F.asarray(value)
        if v.dtype == self.dtype:
            return v
        if not np.can_cast(v.dtype, self.dtype, "same_kind"):
            raise op_error(op, f"cannot assign a {v.dtype} value to the {self.dtype} shared "
                           f"variable {self.name or ''}", (self.node, v.node))
        return F.astype(v, self.dtype)

    def assign(self, value: Any, along: Any = ()) -> None:
        """Give the variable the value of ``value`` (a tensor of its dtype and shape, or
        anything :func:`lazyjit.asarray` takes), computed lazily.  Inside ``@lj.jit``
        this records an update applied after each call of the compiled function.

        ``along``: tensors the assignment belongs with (an optimizer step's gradients):
        when they depend on ``lj.function`` placeholders, the assignment is symbolic like
        theirs (taken as an update by the function over those placeholders) even if
        ``value`` itself does not depend on them (the step count).

        Raises
        ------
        LazyjitError
            If the value's shape or dtype differs from the variable's (in jit; outside,
            only the dtype must match).
        """
        frame = recording()
        if STATE.scan_depth and frame is None:
            raise op_error("assign", "assigning a shared variable inside this step function "
                           "is not supported (only in lj.scan's step functions)", (self.node,))
        v = self.coerce(value, "assign")
        if frame is not None:
            if v.shape != self.shape:
                raise op_error("assign", f"inside jit or a scan step the new value must keep "
                               f"the shape {self.shape}, got {v.shape}", (self.node, v.node))
            if STATE.scan_depth:  # (in jit, a read after an assign gives its value)
                check_second_assign(frame, self, v.node)
            frame[self] = v
            return
        phs: list = []
        if CONTEXT.placeholders:  # (graph walks only once lj.function placeholders exist)
            along = along if isinstance(along, (list, tuple)) else [along]
            phs = placeholders_of(v.node) if v.node.buffer is None else []
            for t in along:
                phs += placeholders_of(F.asarray(t).node)
        if phs:  # a graph being built: an update of the lj.function over ``phs``
            if id(self) in _PENDING:
                realize_pending()
            if not self.symbolic:
                self._concrete = stored(self)
            SYMBOLIC[id(self)] = (weakref.ref(self), frozenset(phs))
            self.node, self._origin = v.node, None
            return
        if self.symbolic:  # a value of its own again: no longer an update to take
            SYMBOLIC.pop(id(self))
            self._concrete = None
        self.node, self._origin = v.node, None
        if v.node.buffer is None:
            _PENDING[id(self)] = weakref.ref(self)
            if v.node.low == sys.maxsize:  # (no leaf below it: see trace.node's low)
                settle([self])  # (literals alone, lj.zeros(n): computed now, never
            elif not self.counter:  # pending, so no graph reads them as the variable;
                # a random stream's counter is read by offsets: lj.function's _offsets)
                ASSIGNED[v.node] = _PENDING[id(self)]
        else:
            self._set_leaf(v.node.buffer)

    def __repr__(self) -> str:
        name = f"{self.name!r}, " if self.name else ""
        return f"shared({name}shape={self.shape}, dtype={self.dtype.name})"


def _restored(value, name: str | None, counter: bool) -> SharedVariable:
    """A shared variable of ``value`` and ``name``, a random stream's counter if
    ``counter`` (an unpickled or copied one)."""
    sv = SharedVariable(value, name)
    sv.counter = counter
    return sv


def shared(value: Any, name: str | None = None, dtype: Any = None) -> SharedVariable:
    """A shared variable holding a copy of ``value`` (Theano's ``theano.shared``).

    Parameters
    ----------
    value : array-like, any shape; copied.
    name : optional, for messages and ``repr``.
    dtype : optional dtype of the copy (default: the value's).

    Returns
    -------
    A :class:`SharedVariable`: use it as a tensor; ``get_value``, ``set_value``,
    ``assign``.
    """
    return SharedVariable(value, name, dtype)


def pending_nodes() -> list[Node]:
    """The values assigned to shared variables and not computed yet (their nodes)."""
    out = []
    for ref in list(_PENDING.values()):
        s = ref()
        if s is not None and stored(s).buffer is None:
            out.append(stored(s))
    return out


def realize_pending() -> None:
    """Compute the values assigned to shared variables but not computed yet (in one
    trace), so that they hold buffers again."""
    refs = []
    while _PENDING:  # taken one by one (atomic: another thread may be assigning)
        try:
            refs.append(_PENDING.popitem()[1])
        except KeyError:
            break
    settle([s for s in (r() for r in refs) if s is not None])


def settle(variables: list) -> None:
    """Compute the pending values of ``variables`` (in one trace) and make them their
    leaves: each the value its variable held when this began (another thread may assign
    it meanwhile: that newer value is left pending, not overwritten)."""
    nodes = [(s, stored(s)) for s in variables]
    todo = {n: Tensor(n) for _, n in nodes if n.buffer is None}
    if todo:
        CONTEXT.realize(*todo.values())
    for s, n in nodes:
        # (a value made of literals alone, lj.zeros(n), never holds it in its node: its
        # tensor's new leaf does)
        value = n.buffer if n not in todo else todo[n].node.buffer
        if stored(s) is n and value is not None:
            s._set_leaf(value)


def refuse_assigned_reads(roots: list[Node], op: str) -> None:
    """Refuse a graph (``lj.function``'s, which reads shared variables at each call)
    that reads a value assigned to a shared variable before it was computed
    (``W.assign(W * 2)``, then ``W * x``): the graph holds the assigned expression over
    the variable's older value, which each call would apply again on top of the
    variable's updates.  (With hash-consing, an equal expression built independently
    is the same node: refused as well, with the same remedy.)

    Raises
    ------
    LazyjitError
        Naming the variable, and how to build the graph instead (``op`` in the message)."""
    if not ASSIGNED:
        return
    for n in reachable(roots, lambda n: n.src):
        ref = ASSIGNED.get(n)
        sv = ref() if ref is not None else None
        if sv is not None:
            raise op_error(op, f"the graph reads a value assigned to the shared variable "
                           f"{sv.name or ''} before it was computed (the expression of its "
                           "older value, which each call would apply again): compute it "
                           "first (lj.realize(v) or v.get_value()), then build the graph "
                           "over the variable", (n,))


__all__ = ["shared", "SharedVariable", "LazyjitError", "pending_nodes"]
