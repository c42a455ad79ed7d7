"""Graphs over symbolic sizes, made concrete at the sizes of a call.

A placeholder of ``lj.function`` (``lj.matrix("x")``) has dimensions whose sizes are
symbols (``x0``, ``x1``: :mod:`lazyjit.trace.dims`), and every shape computed from them
is an exact expression over those symbols.  What the shape rules assumed of the symbols
(``x1 == 4`` for ``x @ W``) is attached to the graph as requirements
(:mod:`lazyjit.trace.constraints`).  At a call, the symbols are bound to the sizes of
the arguments (:func:`bind`), the requirements are checked, and :func:`instantiate`
evaluates every size of the graph: each node's shape, the sizes in its op's argument
(a reshape target, slice bounds, a scan's step count), a size used as a value (a
``("size", n)`` leaf becomes an int64 constant) and a constant array whose shape is
symbolic (a ``("sized", ...)`` leaf, ``lj.arange(n)``, becomes that array).  Nothing is
guessed: every number is the exact value of its expression, and every op's shape rule
is run again on the concrete operands as a check.  The concrete graph is an ordinary
trace whose kernels are those of any other size (the code key holds no sizes).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from lazyjit.api.scan import ScanSpec
from lazyjit.errors import IndexBoundsError, LazyjitError, describe, format_site
from lazyjit.ops import REGISTRY
from lazyjit.trace.constraints import CHECKS, gather
from lazyjit.trace.dims import Dim, UnboundSize, evaluate, ident
from lazyjit.trace.graph import reachable, toposort
from lazyjit.trace.node import Node, origin_of


_LEAVES = frozenset(("buffer", "param"))  # a computed node is rebuilt even if it has a value


def graph_leaves(roots: list[Node]) -> list[Node]:
    """The ``buffer`` and ``param`` leaves the graph of ``roots`` reads (walking through
    computed nodes even when they hold a value), in first-seen order."""
    return [n for n in reachable(roots, lambda n: () if n.op in _LEAVES else n.src)
            if n.op in _LEAVES]


def _through_values(n: Node) -> tuple[Node, ...]:
    """Below a realized tensor's value: the node that computed it (while alive)."""
    origin = origin_of(n)
    return (origin,) if origin is not None else n.src


def recompute_stateful(roots: list[Node], stateful: Callable[[Node], "Node | None"]
                       ) -> list[Node]:
    """``roots`` over the current values of shared variables: ``stateful(leaf)`` gives
    the current value of the shared variable whose value ``leaf`` is or was (None for
    other leaves).  An earlier value is replaced by the current one, and every computed
    node that holds a value (read eagerly earlier, or found again by hash-consing) but
    depends on a shared variable is replaced by a fresh node that computes it again.  A
    compiled function reads shared variables at each call (Theano's semantics): it must
    not capture a value computed from them as a constant, whenever it was traced."""
    order = toposort(roots, children=_through_values)
    dep: dict[Node, bool] = {}
    memo: dict[Node, Node] = {}
    for n in order:
        if n.op in _LEAVES or n.op == "const":
            origin = origin_of(n)
            if origin is not None and dep.get(origin):
                if origin.op == "numpy":  # (a NumPy function's value: not recomputable)
                    raise LazyjitError(
                        f"this graph reads a value np.{origin.arg[0]} computed (NumPy, on the "
                        "values, lazyjit has no such function) from a shared variable's "
                        "value: a compiled function reads shared variables at each call, "
                        "and cannot compute NumPy's function again.  Compute it with "
                        "lazyjit's functions, or pass the value as an input\n"
                        + format_site(n.site))
                dep[n], memo[n] = True, memo.get(origin, origin)
            elif n.op == "buffer":
                current = stateful(n)  # a shared variable's value: its current one
                dep[n] = current is not None
                if current is not None and current is not n:
                    if current.shape != n.shape or current.dtype != n.dtype:
                        raise LazyjitError(
                            f"a shared variable read by this graph now holds a value of "
                            f"shape {describe(current.shape)} {current.dtype}, but the graph "
                            f"was built for {describe(n.shape)} {n.dtype}\n"
                            + format_site(n.site))
                    memo[n] = current
            else:
                dep[n] = False
            continue
        dep[n] = any(dep[s] for s in n.src)
        src = tuple(memo.get(s, s) for s in n.src)
        if dep[n] and n.buffer is not None:
            memo[n] = Node.fresh(n, src)
        elif src != n.src:
            memo[n] = Node.make(n.op, src, n.arg, n.shape, n.dtype)
    return [memo.get(r, r) for r in roots]


def _children(n: Node):
    """The nodes a graph walk goes to from ``n``: its sources, and a loop's body."""
    if n.op in _LEAVES:
        return ()
    if n.op == "scan":
        return n.src + n.arg.outputs
    return n.src


def requirements(roots: list[Node]) -> list:
    """The requirements on symbolic sizes of the graph of ``roots`` (loop bodies
    included: :mod:`lazyjit.trace.constraints`), in the order the nodes were made: the
    first that fails at a call is the one the user's code met first (the function they
    called, before the primitives it is made of)."""
    if not CHECKS:
        return []
    return gather(sorted(reachable(roots, _children), key=lambda n: n.seq))


def sub_arg(a, env: dict):
    """An op argument with its symbolic sizes evaluated (nested in tuples)."""
    t = type(a)
    if t is Dim:
        return a.evaluate(env)
    if t is tuple:
        return tuple([sub_arg(x, env) for x in a])
    return a


def _has_dim(a) -> bool:
    t = type(a)
    return t is Dim or (t is tuple and any(_has_dim(x) for x in a))


_MAKERS = {"arange": lambda a, b, c: np.arange(a, b, c),
           "linspace": lambda a, b, n, end: np.linspace(a, b, n, endpoint=end),
           "eye": lambda n, m, k: np.eye(n, m, k)}


def _sized(n: Node, env: dict) -> Node:
    """The constant array of a ``("sized", op, *args, dtype)`` leaf at these sizes."""
    _, op, *args, dt = n.arg
    arr = np.ascontiguousarray(_MAKERS[op](*sub_arg(tuple(args), env)).astype(dt))
    arr.flags.writeable = False
    return Node.leaf(arr, site=n.site)


def _scan_spec(spec: ScanSpec, env: dict, leaf) -> ScanSpec:
    """The scan's spec at these sizes: its body's placeholders and graph, its steps."""
    inner = {p: Node.make("param", (), p.arg, tuple([evaluate(d, env) for d in p.shape]),
                          p.dtype) for p in spec.inputs}
    outs = instantiate(list(spec.outputs), inner, env, leaf)
    return ScanSpec([inner[p] for p in spec.inputs], outs, spec.n_seq, spec.taps, spec.n_inv,
                    spec.keep, evaluate(spec.n_steps, env), spec.reverse, spec.stop)


def _fail(n: Node, src: tuple, message: str, cls=LazyjitError) -> LazyjitError:
    shown = ", ".join(f"{describe(s.shape)} {s.dtype.name}" for s in src)
    return cls(f"{n.op} with operands [{shown}] at this call's sizes: {message}\n"
                        f"(the node was built at)\n{format_site(n.site)}")


def instantiate(roots: list[Node], mapping: dict[Node, Node], env: dict,
                leaf: Callable[[Node], Node] | None = None) -> list[Node]:
    """The graph of ``roots`` at the sizes ``env`` (symbol identity -> int), with
    ``mapping`` (old node -> new node) for the inputs; ``leaf(node)`` supplies the other
    buffers (default: kept as they are).  Loop bodies are made concrete too.

    Raises
    ------
    LazyjitError
        If an op's shape rule rejects the concrete shapes (naming the op, the shapes and
        the line that built it); the requirements (:func:`requirements`) are checked
        before, with clearer errors.
    """
    try:
        return _instantiate(roots, mapping, env, leaf)
    except UnboundSize as e:  # (a size of another function's inputs: name where it is)
        raise LazyjitError(f"{e}\n(the size is used by the graph built at)\n"
                           f"{format_site(_site_of(roots, e))}") from None


def _site_of(roots: list[Node], e: UnboundSize) -> tuple:
    """The creation site of the first node of the graph of ``roots`` that mentions the
    unbound size of ``e`` (its message names it), else of the first root."""
    for n in sorted(reachable(roots, _children), key=lambda n: n.seq):
        sizes = (*n.shape, *(n.arg if n.op == "param" and type(n.arg) is tuple else ()))
        if n.site and any(type(d) is Dim and f"size {d} " in str(e) for d in sizes):
            return n.site
    return roots[0].site if roots else ()


def _instantiate(roots: list[Node], mapping: dict[Node, Node], env: dict,
                 leaf: Callable[[Node], Node] | None) -> list[Node]:
    memo = dict(mapping)
    stack = [(r, False) for r in reversed(roots)]
    while stack:
        n, ready = stack.pop()
        if n in memo:
            continue
        op = n.op
        if op == "param":
            kind = n.arg[0]
            if kind == "size":
                memo[n] = Node.const(evaluate(n.arg[1], env), n.dtype)
            elif kind == "sized":
                memo[n] = _sized(n, env)
            else:
                raise LazyjitError(f"a placeholder this graph reads has no value here "
                                   f"({n.arg!r})\n" + format_site(n.site))
            continue
        if op == "buffer":
            memo[n] = n if leaf is None else leaf(n)
            continue
        if op == "const":
            memo[n] = n
            continue
        if not ready:
            stack.append((n, True))
            stack.extend((s, False) for s in reversed(n.src) if s not in memo)
            continue
        src = tuple([memo[s] for s in n.src])
        arg = n.arg
        if op == "scan":
            arg = _scan_spec(arg, env, leaf)
        elif _has_dim(arg):
            arg = sub_arg(arg, env)
        shape = n.shape
        symbolic = any(type(d) is Dim for d in shape)
        if symbolic:
            shape = tuple([d.evaluate(env) if type(d) is Dim else d for d in shape])
        if arg is n.arg and not symbolic and all(a is b for a, b in zip(src, n.src)):
            memo[n] = n
            continue
        opdef = REGISTRY[op]
        try:
            want = tuple(opdef.shape(src, arg)) if opdef.shape is not None else src[0].shape
        except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
            raise _fail(n, src, str(e), IndexBoundsError if isinstance(e, IndexError) and
                        not isinstance(e, np.exceptions.AxisError) else LazyjitError) \
                from None
        if want != shape or (opdef.kind == "elementwise" and
                             any(s.shape != shape for s in src)):
            raise _fail(n, src, f"the graph's shape {describe(n.shape)} is {shape} here, "
                        f"but the op gives {want}: a requirement on the sizes was not "
                        "recorded where the graph was built (please report it)")
        memo[n] = Node.make(op, src, arg, shape, n.dtype)
    return [memo[r] for r in roots]


def bind(shapes, given, env: dict | None = None, names: dict | None = None,
         where: str = "lj.function") -> dict:
    """The symbol values that make the declared ``shapes`` (tuples of sizes) those of
    ``given`` (tuples of ints), added to ``env``; ``names[k]`` says what the k-th shape
    is (an input's name), for errors.  A declared size that is an expression (not a
    bare symbol) is checked once its symbols are bound.

    Raises
    ------
    LazyjitError
        For a rank that differs, a known size that differs, or a symbol given two sizes.
    """
    env = {} if env is None else env
    later = []
    for k, (decl, real) in enumerate(zip(shapes, given)):
        what = names[k] if names else f"argument {k}"
        if len(decl) != len(real):
            raise LazyjitError(f"{where}: {what} is {len(decl)}-d (shape {describe(decl)}), "
                               f"got shape {real}")
        for axis, (d, a) in enumerate(zip(decl, real)):
            if type(d) is not Dim:
                if d != a:
                    raise LazyjitError(f"{where}: {what} has a known size {d} in dimension "
                                       f"{axis} (declared shape {describe(decl)}), got shape "
                                       f"{real}")
                continue
            i = ident(d)
            if i is None:
                later.append((d, a, what, axis, real))
            elif env.setdefault(i, a) != a:
                raise LazyjitError(f"{where}: the size {d} is {env[i]} in an earlier input "
                                   f"but {a} in {what} (shape {real})")
    for d, a, what, axis, real in later:
        try:
            v = d.evaluate(env)
        except KeyError:
            raise LazyjitError(f"{where}: the size {d} of dimension {axis} of {what} is "
                               "not given by any input's shape") from None
        if v != a:
            raise LazyjitError(f"{where}: dimension {axis} of {what} has the size {d}, "
                               f"which is {v} here, but its shape is {real}")
    return env


