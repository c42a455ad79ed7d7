"""Reverse-mode automatic differentiation (vector-Jacobian products) over the graph.

``grad`` walks the graph of a scalar cost backwards, calling each op's ``vjp`` rule
(written with lazyjit's own functions), so the gradient is itself a lazy graph: it can
be realized, jitted, or differentiated again.  Semantics follow Theano's
``theano.gradient.grad``.
"""
from __future__ import annotations

import warnings
from typing import Callable, Sequence


from lazyjit import functions as F
from lazyjit.ops import REGISTRY
from lazyjit.tensor import Tensor, apply
from lazyjit.trace.node import LazyjitError, Node, op_error


class DisconnectedInputError(LazyjitError):
    """``wrt`` is not part of the graph of ``cost``."""


def stop_gradient(x) -> Tensor:
    """Return ``x`` unchanged, but treated as a constant by :func:`grad`."""
    x = F.asarray(x)
    return Tensor(apply("stop_gradient", (x.node,)))


def _toposort(roots: Sequence[Node], stop: set[Node]) -> list[Node]:
    order, done = [], set()
    for root in roots:
        if root in done:
            continue
        stack = [(root, iter(root.src if root not in stop else ()))]
        done.add(root)
        while stack:
            node, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                order.append(node)
            elif child not in done:
                done.add(child)
                stack.append((child, iter(child.src if child not in stop else ())))
    return order


def _differentiable(node: Node) -> bool:
    return node.dtype.kind == "f"


def grad(cost, wrt=None, consider_constant=None, disconnected_inputs: str = "raise",
         known_grads: dict | None = None, *, argnums: int | Sequence[int] = 0):
    """Gradient of a scalar ``cost`` with respect to ``wrt`` (reverse mode).

    Parameters
    ----------
    cost : 0-d floating-point tensor, or a callable (then ``grad(fn, argnums)`` returns a
        function computing the gradient of ``fn`` with respect to its ``argnums``).
    wrt : tensor or list of tensors (any tensors of the graph, leaves or intermediates).
    consider_constant : tensors whose gradient is not propagated further.
    disconnected_inputs : ``'raise'`` (default, as Theano), ``'warn'`` or ``'ignore'``
        when a ``wrt`` is not part of the graph of ``cost``; the gradient is then zeros.
    known_grads : optional ``{tensor: gradient}`` added to the backpropagated values.

    Returns
    -------
    A tensor per ``wrt`` (a single tensor when ``wrt`` is one tensor), each with the
    shape and dtype of its ``wrt``; lazy, so it composes to any order.

    Raises
    ------
    LazyjitError
        If ``cost`` is not a scalar or not floating point, or an input is disconnected
        and ``disconnected_inputs='raise'``.
    """
    if callable(cost) and not isinstance(cost, Tensor):
        return _grad_fn(cost, argnums, with_value=False)
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError("disconnected_inputs must be 'raise', 'warn' or 'ignore'")
    cost = F.asarray(cost)
    if cost.ndim != 0:
        raise op_error("grad", f"cost must be a scalar (0-d), got shape {cost.shape}; "
                       "reduce it first (e.g. .sum())", (cost.node,))
    if cost.dtype.kind != "f":
        raise op_error("grad", f"cost must be floating point, got {cost.dtype}", (cost.node,))
    if wrt is None:
        raise op_error("grad", "wrt is required")
    single = isinstance(wrt, Tensor)
    wrts = [wrt] if single else list(wrt)
    for w in wrts:
        if not isinstance(w, Tensor):
            raise op_error("grad", f"wrt must be tensors, got {type(w).__name__}")
    if not consider_constant and not known_grads:
        out = _deferred(cost, wrts, disconnected_inputs)
        return out[0] if single else out
    stop = {F.asarray(c).graph_node for c in (consider_constant or ())}
    stop |= {F.asarray(c).node for c in (consider_constant or ())}
    seeds: dict[Node, Tensor] = {cost.graph_node: F.ones_like(cost)}
    for t, g in (known_grads or {}).items():
        seeds[t.graph_node] = F.broadcast_to(F.asarray(g, t.dtype), t.shape)
    targets = {n for w in wrts for n in (w.node, w._origin) if n is not None}
    grads = backprop(seeds, targets, stop)
    connected = _reached(list(seeds), targets, stop)
    out = []
    for w in wrts:
        parts = [grads[n] for n in (w.node, w._origin) if n is not None and n in grads]
        if not parts and {w.node, w._origin} & connected:
            out.append(F.zeros_like(w))  # in the graph, but only through zero gradients
            continue
        if not parts:
            out.append(_disconnected(w, disconnected_inputs))
            continue
        g = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        out.append(F.astype(g, w.dtype) if g.dtype != w.dtype else g)
    return out[0] if single else out


def _disconnected(w: Tensor, policy: str) -> Tensor:
    msg = ("wrt is not part of the graph of cost (disconnected input); pass "
           "disconnected_inputs='ignore' to get zeros")
    if policy == "raise":
        raise op_error("grad", msg, (w.node,), cls=DisconnectedInputError)
    if policy == "warn":
        warnings.warn(msg, stacklevel=3)
    return F.zeros_like(w)


# ---- deferred gradients ------------------------------------------------------------------
#
# ``grad`` without consider_constant / known_grads returns ``grad`` nodes: one per wrt,
# with sources ``(cost, *targets)`` and argument ``("grad", indices of its targets)``.
# They are expanded into the VJP graph only when a plan is built (a trace cache miss) or
# when the graph is differentiated again, so an eager training step whose structure was
# seen before never builds its backward graph in Python at all.

def _deferred(cost: Tensor, wrts: list[Tensor], policy: str) -> list[Tensor]:
    root = cost.graph_node
    nodes = {n for w in wrts for n in (w.node, w._origin) if n is not None}
    reach, depends = set(), set()
    for n in _toposort([root], set()):
        if n in nodes or any(s in reach for s in n.src):
            reach.add(n)
            if _differentiable(n) and (n in nodes or any(s in depends for s in n.src)):
                depends.add(n)
    targets = tuple(dict.fromkeys(n for w in wrts for n in (w.node, w._origin)
                                  if n is not None and n in depends))
    out = []
    for w in wrts:
        mine = tuple(i for i, t in enumerate(targets) if t is w.node or t is w._origin)
        if mine:
            out.append(Tensor(Node.make("grad", (root, *targets), ("grad", mine), w.shape,
                                        w.dtype)))
        elif {w.node, w._origin} & reach:
            out.append(F.zeros_like(w))  # in the graph, but only through zero gradients
        else:
            out.append(_disconnected(w, policy))
    return out


def expand_grads(order: list[Node]) -> dict[Node, Node]:
    """Replace the deferred ``grad`` nodes among ``order`` (topologically sorted) by their
    VJP graphs; return the map from each changed node to its replacement (nodes above a
    ``grad`` node are rebuilt over the replacements)."""
    mapping: dict[Node, Node] = {}
    groups: dict[tuple, dict[Node, Tensor]] = {}
    for n in order:
        if n.op == "grad":
            src = tuple(mapping.get(s, s) for s in n.src)
            grads = groups.get(src)
            if grads is None:
                root, targets = src[0], src[1:]
                grads = groups[src] = backprop({root: F.ones_like(Tensor(root))}, set(targets),
                                               set())
            parts = [grads[src[1 + i]] for i in n.arg[1] if src[1 + i] in grads]
            g = parts[0] if parts else F.zeros(n.shape, n.dtype)
            for p in parts[1:]:
                g = g + p
            mapping[n] = F.astype(g, n.dtype).node
        elif n.src and any(s in mapping for s in n.src):
            mapping[n] = Node.make(n.op, tuple(mapping.get(s, s) for s in n.src), n.arg,
                                   n.shape, n.dtype)
    return mapping


def _reached(roots: list[Node], targets: set[Node], stop: set[Node]) -> set[Node]:
    """The ``targets`` that ``roots`` depend on through any op (floor, comparisons, ...),
    without looking past ``stop``: the inputs that are not disconnected."""
    reach: set[Node] = set()
    for n in _toposort(roots, stop):
        if n in targets or (n not in stop and any(s in reach for s in n.src)):
            reach.add(n)
    return reach & targets


def backprop(seeds: dict[Node, Tensor], targets: set[Node], stop: set[Node]) -> dict[Node, Tensor]:
    """Propagate cotangents from ``seeds`` back to every node that depends on a target.

    Returns the accumulated cotangent of each such node reached (a symbolic zero is
    simply absent).
    """
    order = _toposort(list(seeds), stop)
    if any(n.op == "grad" for n in order):  # differentiating a gradient: expand it first
        mapping = expand_grads(order)
        grads = backprop({mapping.get(n, n): g for n, g in seeds.items()},
                         {mapping.get(t, t) for t in targets}, stop)
        for t in targets:
            if t in mapping and mapping[t] in grads:
                grads[t] = grads[mapping[t]]
        return grads
    depends: set[Node] = set()
    for n in order:
        if n in targets or (n not in stop and any(s in depends for s in n.src)):
            if _differentiable(n):
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
        for s, ct in zip(n.src, cts):
            if ct is None or s not in depends:
                continue
            if ct.shape != s.shape:
                ct = F.broadcast_to(ct, s.shape)
            if ct.dtype != s.dtype:
                ct = F.astype(ct, s.dtype)
            prev = grads.get(s)
            grads[s] = ct if prev is None else prev + ct
    return grads


def _grad_fn(fn: Callable, argnums, with_value: bool, has_aux: bool = False):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def wrapped(*args, **kwargs):
        args = list(args)
        for i in nums:
            args[i] = F.asarray(args[i])
        out = fn(*args, **kwargs)
        value, aux = (out if has_aux else (out, None))
        gs = grad(value, [args[i] for i in nums])
        g = gs[0] if isinstance(argnums, int) else tuple(gs)
        if not with_value:
            return (g, aux) if has_aux else g
        return ((value, aux), g) if has_aux else (value, g)

    wrapped.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return wrapped


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False):
    """Return a function computing ``(fn(*args), grad of fn w.r.t. args[argnums])``
    (JAX's ``value_and_grad``); ``fn`` must return a scalar tensor."""
    return _grad_fn(fn, argnums, with_value=True, has_aux=has_aux)


__all__ = ["grad", "value_and_grad", "stop_gradient", "backprop", "DisconnectedInputError"]
