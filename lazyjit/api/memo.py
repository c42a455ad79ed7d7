"""Eager calls of composite API functions, replayed: the graph an API function built
for one signature of its arguments, built again over new inputs in one native call.

Eager code calls ``log_softmax``, ``x + b`` (with broadcasting), ``sum`` and ``mean`` with
the same shapes every step; each call runs the function's Python (argument checks,
NumPy's promotion and broadcasting rules, the composite's ops) to make nodes that depend
only on its arguments' shapes and dtypes and its other arguments.  :func:`memoize`
records, on a function's first call with a signature, the nodes it made
(``lazyjit._speedups.record``: every node ``Node.make`` returns in this thread, hits
included) as a program over the input nodes, and replays it on the next call with that
signature (``lazyjit._speedups.replay``: the same ``make`` calls, with the new inputs'
nodes as sources), which is exactly the graph the function would make again.

The program is kept only where that holds, checked at the recording:

* the arguments are tensors (exactly :class:`Tensor`), Python scalars (their type and
  value are in the signature; a float's ``repr`` where it is 0 or NaN, so ``0.0`` and
  ``-0.0`` differ), None, strings, tuples
  of ints, dtypes; the signature holds each tensor's shape and dtype and which tensor
  arguments are one node (``x * x`` is not ``x * y``);
* every shape is a tuple of ints (symbolic sizes record requirements as nodes are made);
* each node has one origin: a node ``make`` returned is neither an input's node nor a
  node the function read from elsewhere (a constant, kept in the program), and that
  node was made before the call (no leaf came from the arguments' values); no input is
  a graph of constants only (``lj.zeros(4)``), which the function may also read from a
  cache of constants without ``make`` (``x == 0``'s 0), unseen by the recording;
* the result is a new :class:`Tensor` of no view or origin, or one argument itself.

Only functions whose nodes depend on nothing else are wrapped (:data:`MEMOIZED` in
:mod:`lazyjit.api.functions`): no value is read, no random key drawn, no warning given.
Without ``lazyjit._speedups`` (``LAZYJIT_SPEEDUPS=0``) the functions run as they are.
"""
from __future__ import annotations

import functools
import sys

import numpy as np

from lazyjit.api.tensor import Tensor
from lazyjit.speedups import NATIVE
from lazyjit.trace.node import Node, next_seq

_MAX = 1024  # programs kept per function (the table starts again when full)
if NATIVE is not None:
    NATIVE.memo_init(Tensor)
_PLAIN = (int, bool, str, type(None))


def _part(v):
    """The signature part of a non-tensor argument, or None when it cannot be one."""
    t = type(v)
    if t is float:  # (equal floats are one value, but for 0.0 == -0.0, and NaN != NaN)
        return (t, v) if v != 0.0 and v == v else (t, repr(v))
    if t in _PLAIN or isinstance(v, np.dtype) or (t is type and issubclass(v, np.generic)):
        return t, v
    if t is tuple and all(type(x) is int for x in v):
        return t, v
    return None


def key_of(args: tuple, kwargs: dict):
    """``(key, nodes)``: the signature of a call's arguments (each tensor's node's shape,
    of ints, and dtype, or the position among ``nodes`` of an earlier argument of that node; each
    other argument's :func:`_part`, keyword arguments with their names) and the distinct
    nodes of its tensors; None when an argument cannot be part of one.  (The callable
    ``lazyjit._speedups.Memoized`` builds the same key in C: its ``key`` method.)"""
    key, nodes = [], []
    for a in args:
        if type(a) is Tensor:
            n = a.node
            if type(n) is not Node or not _concrete(n):  # (the function says what is
                return None  # wrong; symbolic sizes are recorded as nodes are made)
            if n in nodes:  # (identity: nodes have no __eq__)
                key.append(nodes.index(n))
            else:
                nodes.append(n)
                key.append(n.shape)
                key.append(n.dtype)
        else:
            p = _part(a)
            if p is None:
                return None
            key.append(p)
    for k, v in kwargs.items():
        p = _part(v)
        if p is None:
            return None
        key.append(k)
        key.append(p)
    return tuple(key), nodes


ON = [True]  # ON[0] false: every memoized function runs as it is (the tests' reference)


def memoize(fn):
    """``fn``, its graph replayed for a signature of arguments seen before (see the
    module docstring), as a ``lazyjit._speedups.Memoized`` callable (``memoized``: its
    table of programs); ``fn`` itself without ``lazyjit._speedups``."""
    if NATIVE is None:
        return fn
    table: dict = {}
    call = functools.update_wrapper(NATIVE.Memoized(fn, table, _record, _part, ON), fn)
    call.memoized = table
    return call


def _record(fn, table: dict, key: tuple, args: tuple, kwargs: dict, nodes: list):
    made: list = []
    first = next_seq()
    started = False
    try:  # (the recording ends whatever happens once it has started, Ctrl-C included)
        started = NATIVE.record(made)  # (False: one is under way: an outer call's)
        out = fn(*args, **kwargs)
    finally:
        if started:
            NATIVE.record(None)
    if started and type(out) is Tensor:
        program = _program(out, args, nodes, made, first)
        if program is not None:
            if len(table) >= _MAX:
                table.clear()
            table[key] = program
    return out


def _program(out: Tensor, args: tuple, nodes: list, made: list, first: int):
    """The replay of a recording (see the module docstring), or None where it would not
    be the function's graph."""
    for i, a in enumerate(args):
        if out is a:
            return i
    if out._origin is not None or out._index is not None:
        return None
    where = {id(n): i for i, n in enumerate(nodes)}  # id -> value number
    kept = set(where)  # the ids of inputs and of nodes read from elsewhere
    for n in nodes:  # (an input of constants only may also be read from a cache of
        if n.low == sys.maxsize:  # constants, not through make: _node_to's of Python
            return None  # scalars; its two origins would not show.  Shapes: key_of's)
    program = []
    for n in made:
        if id(n) in where:
            if id(n) in kept:  # an input or a constant came out of make: two origins
                return None
            continue  # made again: the same step
        if not _concrete(n) or n.op == "param":
            return None
        srcs = []
        for s in n.src:
            j = where.get(id(s))
            if j is None:  # read from elsewhere: kept as it is, if it is older than
                if s.seq >= first:  # the call (a leaf made from the arguments' values)
                    return None
                j = where[id(s)] = len(nodes) + len(program)
                kept.add(id(s))
                program.append(s)
            srcs.append(j)
        where[id(n)] = len(nodes) + len(program)
        program.append((n.op, tuple(srcs), n.arg, n.shape, n.dtype))
    j = where.get(id(out.node))
    return None if j is None else (tuple(program), j)


def _concrete(n: Node) -> bool:
    return all(type(d) is int for d in n.shape)
