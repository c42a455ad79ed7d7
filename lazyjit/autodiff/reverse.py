"""Reverse-mode automatic differentiation (vector-Jacobian products) over the graph.

``grad`` walks the graph of a scalar cost backwards, calling each op's ``vjp`` rule
(written with lazyjit's own functions), so the gradient is itself a lazy graph: it can
be realized, jitted, or differentiated again.  Semantics follow Theano's
``theano.gradient.grad``.
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence

import numpy as np

import lazyjit.api.functions as F
from lazyjit.errors import LazyjitError, op_error
from lazyjit.ops import REGISTRY, kind_of
from lazyjit.pytree import flatten, unflatten
from lazyjit.rewrite import rewrite_cost
from lazyjit.api.tensor import Tensor
from lazyjit.api.weak import WeakScalar
from lazyjit.trace.dims import is_symbolic
from lazyjit.trace.graph import rebuild, toposort
from lazyjit.trace.node import Node, make_group
from lazyjit.trace.state import STATE
from lazyjit.trace.through import keeping_read_values, see_through


class DisconnectedInputError(LazyjitError):
    """``wrt`` is not part of the graph of ``cost``."""


def differentiable(node: Node) -> bool:
    """Floating point, real or complex (JAX's convention for complex cotangents: that of
    ``z = x + 1j*y`` is ``dL/dx - 1j*dL/dy``, so holomorphic ops keep their real rules)."""
    return node.dtype.kind in "fc"


def grad(cost, wrt=None, consider_constant=None, disconnected_inputs: str = "raise",
         known_grads: dict | None = None, *, argnums: int | Sequence[int] = 0,
         has_aux: bool = False):
    """Gradient of a scalar ``cost`` with respect to ``wrt`` (reverse mode).

    Parameters
    ----------
    cost : 0-d floating-point tensor; ``None`` when ``known_grads`` gives the seeds; or a
        callable: then ``grad(fn, argnums=0, has_aux=False)`` returns a function computing
        the gradient of ``fn`` with respect to its ``argnums`` (see :func:`value_and_grad`).
    wrt : tensor, or list, tuple or dict (nested) of tensors: any tensors of the graph,
        leaves or intermediates (an intermediate is treated as an independent input).
    consider_constant : tensors whose gradient is not propagated further (Theano).
    disconnected_inputs : ``'raise'`` (default, as Theano), ``'warn'`` or ``'ignore'``
        when a ``wrt`` is not part of the graph of ``cost``; its gradient is then zeros.
    known_grads : optional ``{tensor: gradient}``: gradients of intermediate tensors
        known by the caller, added to the backpropagated values (Theano); each gradient
        must broadcast to its tensor's shape.

    Returns
    -------
    The gradients in the structure of ``wrt`` (a single tensor when ``wrt`` is one
    tensor), each with the shape and dtype of its ``wrt``; lazy, so it composes to any
    order.  Inputs that are disconnected, integer or boolean, or reached only through
    integer paths and zero-derivative ops (``floor``, comparisons) get a constant zeros
    tensor: no gradient graph is built for them.

    Raises
    ------
    LazyjitError
        If ``cost`` is not a scalar or not floating point, or ``wrt`` holds a non-tensor
        (the message names the argument, e.g. ``wrt[1]``).
    DisconnectedInputError
        If an input is disconnected and ``disconnected_inputs='raise'``; the message names
        the input (``wrt``, ``wrt[i]``).

    Notes
    -----
    Conventions at non-differentiable points (finite everywhere): ``max``/``min`` split
    the derivative evenly among ties; ``maximum(a, b)`` at ``a == b`` sends it to ``a``
    (so ``maximum(x, x)`` has derivative 1); ``abs'(0) = relu'(0) = 0``; derivatives
    that are infinite or not real are taken as 0: ``sqrt'(x)`` for ``x <= 0``,
    ``d(a ** b)/da`` at ``a == 0, b < 1`` and at ``a < 0`` with non-integer ``b``,
    ``d(a ** b)/db`` for ``a <= 0``; ``where`` gives exactly 0 to the unselected branch,
    so ``where(x > 0, sqrt(x), 0)`` has a finite derivative everywhere.  A user function whose own
    derivative is infinite in the unselected branch (``where(x > 0, log(x), 0)`` at
    ``x = 0``) still gives ``0 * inf = nan``: guard its operand as well (the double-where
    trick, ``log(where(x > 0, x, 1))``), as in JAX.
    """
    if callable(cost) and not isinstance(cost, Tensor):
        if wrt is not None:  # JAX's grad(fn, 1): the second positional is argnums
            if argnums != 0 or not is_argnums(wrt):
                raise op_error("grad", "grad(fn, ...): the second argument of a function's "
                               "grad is argnums (an int or a tuple of ints), given once; "
                               f"got {wrt!r} and argnums={argnums!r}", cls=TypeError)
            argnums = wrt
        if consider_constant is not None or known_grads is not None:
            raise op_error("grad", "grad(fn, ...) takes argnums and has_aux; "
                           "consider_constant and known_grads are for a cost tensor",
                           cls=TypeError)
        return _grad_fn(cost, argnums, with_value=False, has_aux=has_aux)
    seeds: dict[Node, Tensor] = {}
    # (not deferred in a scan step's body, whose trace is compiled as it is, with no
    # expansion: its gradients are built now)
    defer = not known_grads and not STATE.scan_depth
    if cost is not None:
        cost = F.asarray(cost)
        if cost.ndim != 0:
            raise op_error("grad", f"cost must be a scalar (0-d), got shape {cost.shape}; "
                           "reduce it first (e.g. .sum())", (cost.node,))
        if cost.dtype.kind != "f":
            hint = "; take its real part, abs() or a real function of it" \
                if cost.dtype.kind == "c" else ""
            raise op_error("grad", f"cost must be real floating point, got {cost.dtype}"
                           f"{hint}", (cost.node,),
                           cls=TypeError if cost.dtype.kind == "c" else LazyjitError)
        if defer and not consider_constant:  # deferred: no seed graph needed
            return reverse({cost.graph_node: None}, wrt, None, disconnected_inputs, "grad",
                           "cost", deferred=True)
        seeds[cost.graph_node] = F.ones_like(cost)
    elif not known_grads:
        raise op_error("grad", "cost is None: give the seeds in known_grads")
    for i, (t, g) in enumerate((known_grads or {}).items()):
        add_seed(seeds, t, g, f"known_grads[{i}]", "grad")
    return reverse(seeds, wrt, consider_constant, disconnected_inputs, "grad", "cost",
                   deferred=defer)


def is_argnums(x) -> bool:
    """An int, or a non-empty tuple or list of ints (not bools): argument positions."""
    items = x if isinstance(x, (tuple, list)) and x else [x]
    return all(isinstance(i, int) and not isinstance(i, bool) for i in items)


def add_seed(seeds: dict[Node, Tensor], t, g, name: str, op: str) -> None:
    """Add the cotangent ``g`` of tensor ``t`` to ``seeds`` (checked, cast to ``t``'s dtype,
    broadcast to its shape); ``name`` names the argument in errors."""
    if not isinstance(t, Tensor):
        raise op_error(op, f"{name}: expected a tensor, got {type(t).__name__}")
    g = F.asarray(g)
    if t.dtype.kind not in "fc":
        raise op_error(op, f"{name}: cannot seed a gradient on a {t.dtype} tensor", (t.node,))
    if g.shape != t.shape and (g.ndim > t.ndim or any(
            a not in (1, b) for a, b in zip(g.shape[::-1], t.shape[::-1], strict=False))):
        raise op_error(op, f"{name}: gradient of shape {g.shape} does not match its tensor's "
                       f"shape {t.shape}", (g.node, t.node))
    g = F.broadcast_to(F.astype(g, t.dtype), t.shape)
    prev = seeds.get(t.graph_node)
    seeds[t.graph_node] = g if prev is None else prev + g


def wrt_leaves(wrt, op: str) -> tuple[list[Tensor], object, list[str]]:
    """The tensors of ``wrt`` (a tensor or a nested list/tuple/dict), its structure and a
    name for each (``wrt``, ``wrt[1]``, ``wrt['w'][0]``) for error messages."""
    if wrt is None:
        raise op_error(op, "wrt is required")
    if isinstance(wrt, Tensor):
        return [wrt], None, ["wrt"]
    kind = "l" if type(wrt) is list else "t" if type(wrt) is tuple else None
    if kind and all(type(w) is Tensor for w in wrt):  # (flatten's result, at once)
        return list(wrt), (kind, ("*",) * len(wrt)), _FlatNames(len(wrt))
    leaves, tree = flatten(wrt, lambda x: not isinstance(x, (list, tuple, dict)))
    names = [f"wrt{p}" for p in leaf_paths(wrt)]
    for w, name in zip(leaves, names, strict=True):
        if not isinstance(w, Tensor):
            hint = ("; a number is not a tensor here (an argument of lj.jit that is a "
                    "Python number is a traced scalar, a NumPy scalar a static value): pass "
                    "a 0-d array, or compute the cost from lj.asarray(v), to differentiate "
                    "with respect to it"
                    ) if isinstance(w, (int, float, complex, np.generic, WeakScalar)) else ""
            raise op_error(op, f"{name}: wrt must be tensors, got {type(w).__name__}{hint}")
    return leaves, tree, names


class _FlatNames(Sequence):
    """``["wrt[0]", "wrt[1]", ...]``, each made when an error message asks for it."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.n))]
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return f"wrt[{i % self.n}]"


def leaf_paths(tree, prefix: str = "") -> list[str]:
    """Index paths (``[1]``, ``['w'][0]``) of the leaves of a nested list/tuple/dict, in
    :func:`lazyjit.pytree.flatten` order."""
    if isinstance(tree, (list, tuple)):
        return [p for i, v in enumerate(tree) for p in leaf_paths(v, f"{prefix}[{i}]")]
    if isinstance(tree, dict):
        return [p for k in sorted(tree) for p in leaf_paths(tree[k], f"{prefix}[{k!r}]")]
    return [prefix]


def reverse(seeds: dict[Node, Tensor], wrt, consider_constant, disconnected_inputs: str,
            op: str, source: str, deferred: bool = False):
    """Backpropagate ``seeds`` to ``wrt`` (the driver of :func:`grad` and ``Lop``);
    returns the gradients in the structure of ``wrt``.  ``source`` names what the inputs
    should be part of (``cost``, ``f``) in the disconnected-input message.  With
    ``deferred`` (one seed, a scalar cost's, whose value of ones is not built) and no
    ``consider_constant``, the gradients are deferred ``grad`` nodes (see below)."""
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError("disconnected_inputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_inputs!r}")
    wrts, tree, names = wrt_leaves(wrt, op)
    if deferred and not consider_constant:
        (root,) = seeds
        out = _deferred(root, wrts, names, disconnected_inputs, op, source)
        return out[0] if tree is None else unflatten(tree, out)
    stop = {F.asarray(c).graph_node for c in (consider_constant or ())}
    stop |= {F.asarray(c).node for c in (consider_constant or ())}
    targets = {n for w in wrts for n in (w.node, w._origin) if n is not None}
    grads = backprop(seeds, targets, stop)
    connected = reached_targets(list(seeds), targets, stop)
    out = []
    for i, w in enumerate(wrts):  # (names[i]: made only for a message)
        parts = [grads[n] for n in (w.node, w._origin) if n is not None and n in grads]
        if not parts and {w.node, w._origin} & connected:
            out.append(F.zeros_like(w))  # in the graph, but only through zero gradients
            continue
        if not parts:
            out.append(disconnected_zeros(w, names[i], disconnected_inputs, op, source))
            continue
        g = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        out.append(F.astype(g, w.dtype) if g.dtype != w.dtype else g)
    return out[0] if tree is None else unflatten(tree, out)


def disconnected_zeros(w: Tensor, name: str, policy: str, op: str, source: str) -> Tensor:
    msg = (f"{name} (shape {w.shape}, {w.dtype}) is not part of the graph of {source} "
           "(disconnected input); pass disconnected_inputs='ignore' to get zeros, if the "
           "derivative is zero indeed (derivatives do not go through a jitted function's "
           "outputs: take lj.grad inside the jitted function)")
    if policy == "raise":
        raise op_error(op, msg, (w.node,), cls=DisconnectedInputError)
    if policy == "warn":
        warnings.warn(msg, stacklevel=4)
    return F.zeros_like(w)


# ---- deferred gradients ------------------------------------------------------------------
#
# ``grad`` without consider_constant / known_grads returns ``grad`` nodes: one per wrt,
# with sources ``(cost, *targets)`` and argument ``("grad", indices of its targets)``.
# They are expanded into the VJP graph only when a plan is built (a trace cache miss) or
# when the graph is differentiated again, so an eager training step whose structure was
# seen before never builds its backward graph in Python at all.

def _deferred(root: Node, wrts: list[Tensor], names: list[str], policy: str, op: str,
              source: str) -> list[Tensor]:
    nodes = [w.node for w in wrts]
    origins = {w._origin for w in wrts}
    origins.discard(None)
    candidates = set(nodes)
    distinct = len(candidates) == len(nodes)
    candidates |= origins
    mapping, reach = see_through([root], candidates, set())
    # the common case (an eager training step's): each wrt's own node, distinct, float
    # and in the cost's graph, and no value it was computed from (a realized tensor's
    # origin) in it: each its own grad node, in order
    if not mapping and distinct and reach.issuperset(nodes) and reach.isdisjoint(origins) \
            and all([n.dtype.kind in "fc" for n in nodes]):
        return list(map(Tensor, make_group("grad", (root, *nodes), [
            (_grad_arg(i), n.shape, n.dtype) for i, n in enumerate(nodes)])))
    get = mapping.get
    root = get(root, root)
    nodes = [[get(n, n) for n in (w.node, w._origin) if n in reach]  # each wrt's nodes in
             for w in wrts]  # the (rebuilt) graph of the cost (None is never in reach)
    # float wrt in the graph get a grad node (zeros if, on expansion, no float path
    # leads to them); integer and bool ones carry no gradient graph at all
    position: dict[Node, int] = {}
    for ns in nodes:
        for n in ns:
            if n not in position and n.dtype.kind in "fc":
                position[n] = len(position)
    targets = tuple(position)
    src = (root, *targets)  # (one tuple: the grad nodes' sources are the same)
    make = Node.make
    out = []
    # (names[i] is read only for a message: _FlatNames makes each name when asked)
    for i, (w, ns) in enumerate(zip(wrts, nodes, strict=True)):
        if len(ns) == 1 and ns[0] in position:  # (the common case: one node, float)
            t = ns[0]
            out.append(Tensor(make("grad", src, _grad_arg(position[t]), t.shape, t.dtype)))
            continue
        mine = tuple(sorted({position[n] for n in ns if n in position}))
        if mine:
            t = targets[mine[0]]  # (the op's shape and dtype rules: its first target's)
            out.append(Tensor(make("grad", src, ("grad", mine), t.shape, t.dtype)))
        elif ns:
            out.append(F.zeros_like(w))  # in the graph, but only through zero gradients
        else:
            out.append(disconnected_zeros(w, names[i], policy, op, source))
    return out


_GRAD_ARGS = tuple(("grad", (i,)) for i in range(64))  # (the arguments of one target)


def _grad_arg(i: int) -> tuple:
    return _GRAD_ARGS[i] if i < 64 else ("grad", (i,))


def has_deferred(nodes) -> bool:
    """Whether ``nodes`` hold a deferred gradient (an op of kind ``deferred``)."""
    return any(kind_of(n) == "deferred" for n in nodes)


def expand_grads(order: list[Node]) -> dict[Node, Node]:
    """Replace the deferred ``grad`` nodes among ``order`` (topologically sorted) by their
    VJP graphs, built from the cost's graph as the optimizer level rewrites it (the
    ``wrt`` nodes kept; :func:`lazyjit.rewrite.rewrite_cost`), so stabilized forms are
    differentiated; return the map from each changed node to its replacement (nodes
    above a ``grad`` node are rebuilt over the replacements)."""
    groups: dict[tuple, dict[Node, Tensor]] = {}

    def expand(n: Node, src: tuple) -> Node | None:
        if kind_of(n) != "deferred":
            return None
        if src[0] is n.src[0]:  # a cost computed earlier (not rebuilt here) reads the
            src = n.src         # targets as they were: differentiate its own graph
        grads = groups.get(src)
        if grads is None:  # differentiate the rewritten (stabilized) cost
            root, targets = rewrite_cost(src[0], set(src[1:])), src[1:]
            grads = groups[src] = backprop({root: F.ones_like(Tensor(root))},
                                           set(targets), set(), False)
        # (a value's leaf and the node computing it, both targets, may have become
        # one node: its gradient is counted once)
        mine = dict.fromkeys(src[1 + i] for i in n.arg[1])
        parts = [grads[t] for t in mine if t in grads]
        g = parts[0] if parts else F.zeros(n.shape, n.dtype)
        for p in parts[1:]:
            g = g + p
        return F.astype(g, n.dtype).node
    return rebuild(order, {}, expand)


def reached_targets(roots: list[Node], targets: set[Node], stop: set[Node]) -> set[Node]:
    """The ``targets`` that ``roots`` depend on through any op (floor, comparisons, ...),
    without looking past ``stop``: the inputs that are not disconnected (through the
    graphs that computed values read earlier: :func:`see_through`)."""
    return see_through(roots, targets, stop)[1]


def backprop(seeds: dict[Node, Tensor], targets: set[Node], stop: set[Node],
             through: bool = True) -> dict[Node, Tensor]:
    """Propagate cotangents from ``seeds`` back to every node that depends on a target.

    ``through``: first look through values read earlier (:func:`see_through`; a graph
    a deferred gradient was built over has been already).  Returns the accumulated
    cotangent of each such node reached (a symbolic zero is simply absent).
    """
    mapping = see_through(list(seeds), targets, stop)[0] if through else None
    if mapping:  # values read earlier: differentiated through the graphs computing them
        return mapped(mapping, targets, backprop(
            {mapping.get(n, n): g for n, g in seeds.items()},
            {mapping.get(t, t) for t in targets}, stop, False), once=True)
    order = toposort(list(seeds), stop)
    if has_deferred(order):  # differentiating a gradient: expand it first
        mapping = expand_grads(order)
        return mapped(mapping, targets, backprop(
            {mapping.get(n, n): g for n, g in seeds.items()},
            {mapping.get(t, t) for t in targets}, stop, False), once=True)
    depends: set[Node] = set()
    for n in order:
        if n in targets or (n not in stop and any(s in depends for s in n.src)):
            if differentiable(n):
                depends.add(n)
    grads: dict[Node, Tensor] = {n: g for n, g in seeds.items() if n in depends}
    for n in reversed(order):
        g = grads.get(n)
        if g is None or not n.src or n in stop:
            continue
        opdef = REGISTRY[n.op]
        if opdef.vjp is None:
            raise op_error(n.op, "has no gradient (VJP) rule", n.src)
        cts = opdef.vjp(g, Tensor(n), *[Tensor(s) for s in n.src], n.arg)
        for s, ct in zip(n.src, cts, strict=True):
            if ct is None or s not in depends:
                continue
            if ct.shape != s.shape:
                ct = F.broadcast_to(ct, s.shape)
            if ct.dtype != s.dtype:
                ct = F.astype(ct, s.dtype)
            prev = grads.get(s)
            grads[s] = ct if prev is None else prev + ct
    return grads


def mapped(mapping: dict[Node, Node], nodes, values: dict[Node, Tensor],
           once: bool = False) -> dict[Node, Tensor]:
    """``values`` computed on a rebuilt graph, also given under the original ``nodes``
    that ``mapping`` replaced.  With ``once`` (cotangents, which callers add up), nodes
    that became one node get its value once: a realized value's leaf and the node that
    computed it are one value."""
    given = {n for n in nodes if n not in mapping} if once else set()
    for n in nodes:
        m = mapping.get(n)
        if m is None or m not in values:
            continue
        if m in given:
            values.pop(n, None)
            continue
        values[n] = values[m]
        if once:
            given.add(m)
    return values


def _is_value(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic, float, int))


def as_tensors(tree) -> tuple[list[Tensor], object]:
    """The leaves of ``tree`` (tensors, arrays, numbers, in nested lists, tuples and
    dicts) as tensors to differentiate (:func:`as_variable`), and its structure for
    :func:`lazyjit.pytree.unflatten`."""
    leaves, treedef = flatten(tree, _is_value)
    return [as_variable(x) for x in leaves], treedef


def as_variable(x) -> Tensor:
    """An argument of a function being differentiated (``lj.grad(fn)(x)``) as the
    variable to differentiate: a tensor as the graph variable it is, except one made of
    constants alone (``lj.ones(3)``, whose node hash-consing shares with every equal
    constant, ``fn``'s own ``lj.ones(3)`` included: d/dx sum(x * ones(3)) gave 2), which
    becomes a leaf of its own holding its value; an array or a number, a new leaf."""
    t = F.asarray(x)
    node = t.node
    if node.low == sys.maxsize and node.op != "buffer":  # (no leaf below: constants)
        if is_symbolic(node.shape):  # (no value before the call: plus a -0. leaf of its
            zero = np.array(-0.0 if node.dtype.kind in "fc" else 0, node.dtype)  # own, an
            return t + Tensor(Node.leaf(zero, site=False))  # exact identity)
        t.realize()
        t = Tensor(Node.leaf(t.node.buffer, site=False))
    return t


def split_aux(out, has_aux: bool, who: str):
    """``(value, aux)`` of a function's output, checking the ``has_aux`` pair."""
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise op_error(who, "with has_aux=True, the function must return a pair "
                       f"(output, aux), got {type(out).__name__}")
    return out[0], out[1]


def _grad_fn(fn: Callable, argnums, with_value: bool, has_aux: bool = False):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def wrapped(*args, **kwargs):
        args = list(args)
        for i in nums:
            if i >= len(args):
                raise op_error("grad", f"argnums {argnums}: the function got only "
                               f"{len(args)} positional arguments")
        trees = []
        for i in nums:
            leaves, tree = as_tensors(args[i])
            args[i] = unflatten(tree, leaves)
            trees.append((leaves, tree))
        with keeping_read_values():  # (fn may print an intermediate it then drops)
            value, aux = split_aux(fn(*args, **kwargs), has_aux, "grad")
            if not isinstance(value, Tensor):  # (a zero gradient here would be wrong)
                raise op_error("grad", f"the function returned a {type(value).__name__}, "
                               "not a tensor: its value was computed outside lazyjit's "
                               "graph (float(), .numpy(), or a NumPy function lazyjit "
                               "does not have), so no derivative reaches its arguments")
            flat = grad(value, [w for leaves, _ in trees for w in leaves],
                        disconnected_inputs="ignore")
        gs, k = [], 0
        for leaves, tree in trees:
            gs.append(unflatten(tree, flat[k:k + len(leaves)]))
            k += len(leaves)
        g = gs[0] if isinstance(argnums, int) else tuple(gs)
        if not with_value:
            return (g, aux) if has_aux else g
        return ((value, aux), g) if has_aux else (value, g)

    wrapped.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return wrapped


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False):
    """Return a function computing ``fn``'s value and its gradient (JAX's
    ``value_and_grad``).

    Parameters
    ----------
    fn : function whose output is a 0-d floating-point tensor, or with ``has_aux`` a pair
        ``(scalar, aux)``.
    argnums : int or tuple of ints: the positional arguments to differentiate; each may be
        a tensor, an array, a number, or a nested list/tuple/dict of them.
    has_aux : whether ``fn`` returns ``(scalar, aux)``; ``aux`` is returned, not
        differentiated.

    Returns
    -------
    A function returning ``(value, grads)`` (``((value, aux), grads)`` with ``has_aux``):
    ``grads`` has the structure of ``args[argnums]`` (a tuple of them for a tuple
    ``argnums``), each leaf with its argument's shape and dtype.  Arguments that do not
    affect the value, and integer ones, get zeros (JAX semantics: no disconnected-input
    error).

    Raises
    ------
    LazyjitError
        If the value is not a floating-point scalar, or ``has_aux`` is set and ``fn``
        does not return a pair.

    Notes
    -----
    Arrays and numbers become fresh input tensors.  A tensor argument is differentiated
    as the graph variable it is (Theano semantics), so passing one tensor as two
    arguments, or also closing over it in ``fn``, differentiates through every use of it
    (JAX would treat each argument position separately).
    """
    return _grad_fn(fn, argnums, with_value=True, has_aux=has_aux)


__all__ = ["grad", "value_and_grad", "backprop", "DisconnectedInputError"]
