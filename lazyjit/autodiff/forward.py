"""Forward-mode automatic differentiation, and the function transforms of both modes.

:func:`push_tangents` walks the graph forwards from seeded inputs, calling each op's
``jvp`` rule (for an op with only a VJP rule, the transposed VJP: :func:`transposed_vjp`),
so a Jacobian-vector product is itself a lazy graph: it can be realized, jitted, or
differentiated again in either mode, to any order.  Built on it and on reverse mode
(:mod:`lazyjit.autodiff`):

* Theano's ``Rop`` (``J v``) and ``Lop`` (``v J``), ``jacobian`` and ``hessian``;
* JAX's ``jvp`` and ``vjp`` on functions of tensors and of nested lists, tuples and dicts
  of them;
* ``hvp``: Hessian-vector products by forward-over-reverse (Pearlmutter 1994, "Fast
  exact multiplication by the Hessian"): the ``Rop`` of the gradient, a few gradients'
  cost, without forming the Hessian.

Symbolic zeros: a tangent is only created for floating-point nodes that depend on a
seeded input (``None`` stands for zero), so disconnected branches and integer or boolean
paths build no derivative graph; ``stop_gradient`` has a zero derivative in both modes.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

import lazyjit.api.functions as F
from lazyjit.autodiff.reverse import (add_seed, as_tensors, as_variable, backprop, differentiable,
                                      disconnected_zeros, expand_grads, grad, has_deferred,
                                      is_argnums, leaf_paths, mapped, reached_targets,
                                      reverse, split_aux, wrt_leaves)
from lazyjit.trace.graph import toposort
from lazyjit.errors import op_error
from lazyjit.ops import REGISTRY
from lazyjit.pytree import flatten, unflatten
from lazyjit.api.tensor import Tensor
from lazyjit.trace.node import Node
from lazyjit.trace.through import keeping_read_values, see_through

_POLICIES = ("raise", "warn", "ignore")


# ---- the forward pass ------------------------------------------------------------------------

def push_tangents(roots: list[Node], seeds: dict[Node, Tensor],
                  stop: frozenset | set = frozenset(), through: bool = True
                  ) -> dict[Node, Tensor]:
    """Propagate tangents from ``seeds`` (node -> tangent of its shape and dtype) forwards
    to every floating-point node below ``roots`` that depends on a seed.

    Seeded nodes are independent inputs (their own sources are not looked at); nodes in
    ``stop`` get a zero tangent.  Returns the tangent of each node that has a nonzero
    one (a symbolic zero is absent).  Deferred ``grad`` nodes are expanded first.
    """
    # through values read earlier (seeds are independent inputs: not looked below)
    mapping = see_through(roots, set(seeds), set(stop) | set(seeds))[0] if through else None
    order = toposort(roots, set(seeds)) if not mapping else []
    if mapping or has_deferred(order):
        mapping = mapping or expand_grads(order)
        tangents = push_tangents([mapping.get(r, r) for r in roots],
                                 {mapping.get(n, n): t for n, t in seeds.items()},
                                 {mapping.get(n, n) for n in stop}, False)
        return mapped(mapping, mapping, tangents)
    tangents = dict(seeds)
    for n in order:
        if n in tangents or not n.src or n in stop or not differentiable(n):
            continue
        ts = tuple(tangents.get(s) for s in n.src)
        if all(t is None for t in ts):
            continue
        t = node_jvp(n, ts)
        if t is None:
            continue
        if t.shape != n.shape:
            t = F.broadcast_to(t, n.shape)
        if t.dtype != n.dtype:
            t = F.astype(t, n.dtype)
        tangents[n] = t
    return tangents


def node_jvp(n: Node, ts: tuple) -> Tensor | None:
    """The tangent of node ``n`` given the tangents ``ts`` of its sources."""
    opdef = REGISTRY[n.op]
    if opdef.jvp is not None:
        return opdef.jvp(ts, Tensor(n), *[Tensor(s) for s in n.src], n.arg)
    if opdef.vjp is not None:
        return transposed_vjp(n, ts)
    raise op_error(n.op, "has no derivative rule (neither JVP nor VJP)", n.src)


def transposed_vjp(n: Node, ts: tuple) -> Tensor | None:
    """The JVP of node ``n`` from its op's VJP rule alone (the "double VJP").

    The VJP is linear in the cotangent ``u``: ``vjp(u) = J^T u``.  Hence
    ``<vjp(u), t> = <u, J t>``, whose gradient with respect to ``u`` is ``J t``: the VJP
    graph is built on a dummy cotangent (a fresh leaf, whose value does not matter) and
    differentiated with respect to it.  Used for ops without a ``jvp`` rule.
    """
    u = F.broadcast_to(Tensor(Node.leaf(np.zeros((), n.dtype), site=False)), n.shape)
    cts = REGISTRY[n.op].vjp(u, Tensor(n), *[Tensor(s) for s in n.src], n.arg)
    total = None
    for s, ct, t in zip(n.src, cts, ts, strict=True):
        if ct is None or t is None:
            continue
        term = F.sum(F.astype(F.broadcast_to(ct, s.shape), t.dtype) * t)
        total = term if total is None else total + term
    if total is None:
        return None
    return backprop({total.node: F.ones_like(total)}, {u.node}, set()).get(u.node)


def _tangent_of(tangents: dict[Node, Tensor], y: Tensor) -> Tensor | None:
    t = tangents.get(y.graph_node)
    return t if t is not None else tangents.get(y.node)


def _seed_nodes(w: Tensor) -> list[Node]:
    return [n for n in (w.node, w._origin) if n is not None]


# ---- checking arguments ----------------------------------------------------------------------

def _outputs(f, op: str, name: str = "f") -> tuple[list[Tensor], Any, list[str]]:
    """The tensors of ``f`` (a tensor or nested list/tuple/dict of tensors), its structure
    (``None`` for one tensor) and the name of each leaf."""
    if isinstance(f, Tensor):
        return [f], None, [name]
    leaves, tree = flatten(f, lambda x: not isinstance(x, (list, tuple, dict)))
    names = [name + p for p in leaf_paths(f)]
    out = []
    for x, nm in zip(leaves, names, strict=True):
        if not isinstance(x, Tensor):
            raise op_error(op, f"{nm}: expected a tensor, got {type(x).__name__}")
        out.append(x)
    return out, tree, names


def _matching(values, like: list[Tensor], tree, names: list[str], prefix: str, what: str,
              op: str) -> list[Tensor | None]:
    """``values`` (tensors, arrays or numbers in the structure ``tree`` of ``like``, or
    ``None`` leaves for zeros) as tensors of the shapes and dtypes of ``like``; ``None``
    for zeros and for integer or boolean ``like``.

    ``names`` name the tensors of ``like`` (``wrt[1]``), all starting with ``prefix``
    (``wrt``); a value is named by replacing that prefix with ``what`` (``eval_points[1]``).

    Raises
    ------
    LazyjitError
        Naming the argument when the structure, a shape or a dtype does not match.
    """
    if tree is None:
        vals, vtree = [values], None
    else:
        vals, vtree = flatten(values, lambda x: not isinstance(x, (list, tuple, dict)))
    if vtree != tree:
        raise op_error(op, f"{what} must have the structure of {prefix} ({len(like)} "
                       f"tensors), got {len(vals)} values")
    out: list[Tensor | None] = []
    for v, x, nm in zip(vals, like, names, strict=True):
        vname = what + nm[len(prefix):]
        if v is None:
            out.append(None)
            continue
        try:
            v = F.asarray(v)
        except (TypeError, ValueError) as e:
            raise op_error(op, f"{vname}: {e}") from None
        if v.shape != x.shape:
            raise op_error(op, f"{vname} has shape {v.shape}, but {nm} has shape {x.shape}",
                           (v.node, x.node))
        if v.dtype.kind not in "fiubc" or (v.dtype.kind == "c" and x.dtype.kind != "c"):
            raise op_error(op, f"{vname}: expected a real tensor, got {v.dtype}", (v.node,))
        out.append(F.astype(v, x.dtype) if x.dtype.kind in "fc" else None)
    return out


def _policy(value: str, name: str) -> None:
    if value not in _POLICIES:
        raise ValueError(f"{name} must be 'raise', 'warn' or 'ignore', got {value!r}")


# ---- Theano: Rop, Lop, jacobian, hessian ------------------------------------------------------

def Rop(f, wrt, eval_points, disconnected_outputs: str = "raise",
        return_disconnected: str = "zero"):
    """Jacobian of ``f`` with respect to ``wrt``, times ``eval_points`` (forward mode).

    ``Rop[i] = sum_j (d f[i] / d wrt[j]) eval_points[j]``, as Theano's ``Rop``.

    Parameters
    ----------
    f : tensor, or list/tuple (or nested dict) of tensors, of any shapes.
    wrt : tensor, or list/tuple (nested) of tensors: leaves or intermediates of the graph
        of ``f`` (an intermediate is treated as an independent input).
    eval_points : the tangents, in the structure of ``wrt``, each of its ``wrt``'s shape
        (tensors, arrays or numbers; cast to the ``wrt``'s dtype).  Integer and boolean
        ``wrt`` carry no tangent.
    disconnected_outputs : ``'raise'`` (default, as Theano), ``'warn'`` or ``'ignore'``
        when an output of ``f`` does not depend on any ``wrt``.
    return_disconnected : ``'zero'`` (default: zeros of the output's shape) or ``'none'``
        (``None``) for disconnected outputs.

    Returns
    -------
    The products in the structure of ``f`` (one tensor for one tensor), each of its
    output's shape and dtype; lazy.  Outputs reached only through integer paths and
    zero-derivative ops get zeros.

    Raises
    ------
    LazyjitError
        If ``eval_points`` does not match ``wrt`` (the message names the argument, e.g.
        ``eval_points[1] has shape (3,), but wrt[1] has shape (4,)``), or an output is
        disconnected and ``disconnected_outputs='raise'``.
    """
    _policy(disconnected_outputs, "disconnected_outputs")
    if return_disconnected not in ("zero", "none"):
        raise ValueError(f"return_disconnected must be 'zero' or 'none', "
                         f"got {return_disconnected!r}")
    ys, ytree, ynames = _outputs(f, "Rop")
    wrts, wtree, wnames = wrt_leaves(wrt, "Rop")
    points = _matching(eval_points, wrts, wtree, wnames, "wrt", "eval_points", "Rop")
    seeds = {n: v for w, v in zip(wrts, points, strict=True) if v is not None
             for n in _seed_nodes(w)}
    tangents = push_tangents([y.graph_node for y in ys], seeds)
    targets = {n for w in wrts for n in _seed_nodes(w)}
    out = []
    for y, name in zip(ys, ynames, strict=True):
        t = _tangent_of(tangents, y)
        if t is None and y.node not in targets and \
                not reached_targets([y.graph_node], targets, set()):
            msg = f"{name} does not depend on wrt (disconnected output)"
            if disconnected_outputs == "raise":
                raise op_error("Rop", msg + "; pass disconnected_outputs='ignore' for zeros",
                               (y.node,))
            if disconnected_outputs == "warn":
                warnings.warn(msg, stacklevel=2)
            if return_disconnected == "none":
                out.append(None)
                continue
        out.append(t if t is not None else F.zeros_like(y))
    return out[0] if ytree is None else unflatten(ytree, out)


def Lop(f, wrt, eval_points, consider_constant=None, disconnected_inputs: str = "raise"):
    """``eval_points`` times the Jacobian of ``f`` with respect to ``wrt`` (reverse mode).

    ``Lop[j] = sum_i eval_points[i] (d f[i] / d wrt[j])``, as Theano's ``Lop``: a
    vector-Jacobian product, the gradient of ``sum_i <eval_points[i], f[i]>``.

    Parameters
    ----------
    f : floating-point tensor, or list/tuple (nested) of them.
    wrt : tensor, or list/tuple (nested) of tensors.
    eval_points : the cotangents, in the structure of ``f``, each of its output's shape.
    consider_constant, disconnected_inputs : as :func:`lazyjit.grad`.

    Returns
    -------
    One tensor per ``wrt``, in its structure, each of its ``wrt``'s shape and dtype.

    Raises
    ------
    LazyjitError
        If ``eval_points`` does not match ``f`` (naming the argument), or an output is
        not floating point.
    DisconnectedInputError
        If a ``wrt`` is not part of the graph and ``disconnected_inputs='raise'``.
    """
    _policy(disconnected_inputs, "disconnected_inputs")
    ys, ytree, ynames = _outputs(f, "Lop")
    points = _matching(eval_points, ys, ytree, ynames, "f", "eval_points", "Lop")
    seeds: dict[Node, Tensor] = {}
    for y, v, name in zip(ys, points, ynames, strict=True):
        if y.dtype.kind not in "fc":
            raise op_error("Lop", f"{name} is {y.dtype}: only floating-point outputs have "
                           "a vector-Jacobian product", (y.node,))
        if v is not None:
            add_seed(seeds, y, v, "eval_points" + name[1:], "Lop")
    return reverse(seeds, wrt, consider_constant, disconnected_inputs, "Lop", "f")


def jacobian(expression, wrt=None, consider_constant=None, disconnected_inputs: str = "raise",
             mode: str | None = None, *, argnums: int | tuple = 0):
    """The Jacobian of ``expression`` with respect to each ``wrt`` (Theano's ``jacobian``,
    for any shapes).

    Parameters
    ----------
    expression : floating-point tensor of any shape ``S``; or a function: then
        ``jacobian(fn, argnums=0)`` returns a function of ``fn``'s arguments computing the
        Jacobian of its (tensor) value with respect to argument ``argnums`` (a tuple: one
        Jacobian per argument), as JAX's ``jacrev``/``jacfwd`` (the second positional
        argument is ``argnums`` then).
    wrt : tensor, or list/tuple (nested) of tensors.
    consider_constant, disconnected_inputs : as :func:`lazyjit.grad`.
    mode : ``'rev'`` (one vector-Jacobian product per element of ``expression``),
        ``'fwd'`` (one Jacobian-vector product per element of the ``wrt``), or ``None``:
        the one needing fewer passes (JAX's ``jacrev``/``jacfwd``).

    Returns
    -------
    Per ``wrt`` of shape ``W``, a tensor of shape ``S + W`` and ``expression``'s dtype:
    ``J[s..., w...] = d expression[s...] / d wrt[w...]``; in the structure of ``wrt``.
    The graph grows with the number of passes: meant for small Jacobians (use
    :func:`Rop`/:func:`Lop`, :func:`hvp` for large problems).

    Raises
    ------
    LazyjitError
        If ``expression`` is not floating point, or ``mode`` is unknown.
    DisconnectedInputError
        If a ``wrt`` is not part of the graph and ``disconnected_inputs='raise'``.
    """
    if callable(expression) and not isinstance(expression, Tensor):
        return _of_function(expression, argnums if wrt is None else wrt, "jacobian",
                            lambda y, xs: [jacobian(y, x, consider_constant, "ignore", mode)
                                           for x in xs])
    _policy(disconnected_inputs, "disconnected_inputs")
    _required(wrt, "jacobian")
    y = F.asarray(expression)
    if y.dtype.kind != "f":
        raise op_error("jacobian", f"expression must be floating point, got {y.dtype}",
                       (y.node,))
    wrts, tree, names = wrt_leaves(wrt, "jacobian")
    if mode is None:
        mode = "fwd" if sum(w.size for w in wrts) < y.size else "rev"
    if mode not in ("fwd", "rev"):
        raise op_error("jacobian", f"mode must be 'fwd', 'rev' or None, got {mode!r}")
    stop = {F.asarray(c).graph_node for c in (consider_constant or ())}
    reached = reached_targets([y.graph_node], {n for w in wrts for n in _seed_nodes(w)}, stop)
    for w, name in zip(wrts, names, strict=True):
        if not reached & set(_seed_nodes(w)):
            disconnected_zeros(w, name, disconnected_inputs, "jacobian", "expression")
    y = _expanded(y)
    if mode == "rev":
        blocks = _jacobian_rev(y, wrts, consider_constant)
    else:
        blocks = [_jacobian_fwd(y, w, stop) for w in wrts]
    blocks = [F.astype(b, y.dtype) for b in blocks]
    return blocks[0] if tree is None else unflatten(tree, blocks)


def _expanded(y: Tensor) -> Tensor:
    """``y`` with its deferred ``grad`` nodes expanded once (not once per pass)."""
    order = toposort([y.graph_node], set())
    if not has_deferred(order):
        return y
    return Tensor(expand_grads(order).get(y.graph_node, y.graph_node))


def _jacobian_rev(y: Tensor, wrts: list[Tensor], consider_constant) -> list[Tensor]:
    m = y.size
    if m == 0:
        return [F.zeros(y.shape + w.shape, y.dtype) for w in wrts]
    eye = F.eye(m, dtype=y.dtype)
    rows = [reverse({y.graph_node: F.reshape(eye[i], y.shape)}, list(wrts), consider_constant,
                    "ignore", "jacobian", "expression") for i in range(m)]
    return [F.reshape(F.stack([F.astype(r[k], y.dtype) for r in rows]), y.shape + w.shape)
            for k, w in enumerate(wrts)]


def _jacobian_fwd(y: Tensor, w: Tensor, stop: set) -> Tensor:
    n = w.size
    if n == 0 or w.dtype.kind not in "fc":
        return F.zeros(y.shape + w.shape, y.dtype)
    eye = F.eye(n, dtype=w.dtype)
    cols = []
    for j in range(n):
        e = F.reshape(eye[j], w.shape)
        t = _tangent_of(push_tangents([y.graph_node], {s: e for s in _seed_nodes(w)}, stop), y)
        cols.append(t if t is not None else F.zeros_like(y))
    return F.reshape(F.stack(cols, axis=-1), y.shape + w.shape)


def hessian(cost, wrt=None, consider_constant=None, disconnected_inputs: str = "raise", *,
            argnums: int | tuple = 0):
    """The Hessian of a scalar ``cost`` with respect to each ``wrt`` (Theano's
    ``hessian``): forward-over-reverse, one Jacobian-vector product of the gradient
    per element of the ``wrt``.

    Parameters
    ----------
    cost : 0-d floating-point tensor; or a function: then ``hessian(fn, argnums=0)``
        returns a function of ``fn``'s arguments computing the Hessian of its (scalar)
        value with respect to argument ``argnums``, as JAX's ``hessian`` (a tuple of
        ``argnums``: the blocks ``H[i][j]``, cross blocks included, as a tuple of tuples).
    wrt : tensor, or list/tuple (nested) of tensors.
    consider_constant, disconnected_inputs : as :func:`lazyjit.grad`.

    Returns
    -------
    Per ``wrt`` of shape ``W``, its Hessian block of shape ``W + W`` (no cross blocks
    between different ``wrt``, as Theano); in the structure of ``wrt``.

    Raises
    ------
    LazyjitError
        As :func:`lazyjit.grad` (non-scalar or integer ``cost``).
    """
    if callable(cost) and not isinstance(cost, Tensor):
        return _of_function(cost, argnums if wrt is None else wrt, "hessian",
                            lambda c, xs: [_row(g, xs, consider_constant, isinstance(
                                argnums if wrt is None else wrt, int))
                                for g in grad(c, xs, consider_constant, "ignore")],
                            scalar=True)
    _required(wrt, "hessian")
    wrts, tree, _ = wrt_leaves(wrt, "hessian")
    gs = grad(cost, wrts, consider_constant, disconnected_inputs)
    hs = [jacobian(g, w, consider_constant, "ignore", mode="fwd")
          for g, w in zip(gs, wrts, strict=True)]
    return hs[0] if tree is None else unflatten(tree, hs)


def _row(g: Tensor, xs: list, consider_constant, single: bool):
    """The Hessian blocks ``d g / d x`` for each of ``xs`` (the one block for a single
    argument)."""
    blocks = tuple(jacobian(g, x, consider_constant, "ignore", mode="fwd") for x in xs)
    return blocks[0] if single else blocks


def _required(wrt, op: str) -> None:
    if wrt is None:
        raise op_error(op, f"wrt is required with a tensor (Theano's {op}); with a function, "
                       f"lj.{op}(fn, argnums)(*args) (JAX's)", cls=TypeError)


def _of_function(fn: Callable, argnums, op: str, build: Callable, scalar: bool = False):
    """JAX's form of ``op``: a function of ``fn``'s arguments returning ``build(value,
    [the arguments argnums names, as tensors])`` (a list, one entry per argument: the
    entry itself for an int ``argnums``, a tuple of them for a tuple)."""
    if not is_argnums(argnums):  # (a tensor: Theano's form given a function)
        raise op_error(op, f"{op}(fn, argnums) takes argument positions (an int or a tuple "
                       f"of ints), got {describe_value(argnums)}; Theano's form takes the "
                       f"expression, not a function: call the function first, "
                       f"lj.{op}(fn(x), x)")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def wrapped(*args, **kwargs):
        args = list(args)
        for i in nums:
            if i >= len(args):
                raise op_error(op, f"argnums {argnums}: the function got only {len(args)} "
                               "positional arguments")
            args[i] = as_variable(args[i])
        with keeping_read_values():  # (fn may print an intermediate it then drops)
            value = fn(*args, **kwargs)
            if not isinstance(value, Tensor) or (scalar and value.ndim):
                raise op_error(op, f"the function must return a {'0-d ' if scalar else ''}"
                               f"tensor, got {describe_value(value)}")
            out = build(value, [args[i] for i in nums])
        return out[0] if isinstance(argnums, int) else tuple(out)
    wrapped.__name__ = f"{op}_{getattr(fn, '__name__', 'fn')}"
    return wrapped


def describe_value(v) -> str:
    """``v`` as an error names it: a tensor's shape, or its type."""
    return f"a tensor of shape {v.shape}" if isinstance(v, Tensor) else f"a {type(v).__name__}"


def hvp(cost, wrt, v, consider_constant=None):
    """Hessian-vector product ``H v`` by forward-over-reverse (Pearlmutter): the ``Rop``
    of the gradient, without forming the Hessian (a few gradients' cost).

    Parameters
    ----------
    cost : 0-d floating-point tensor; or a function ``fn``, then ``hvp(fn, primals,
        tangents)`` differentiates ``fn(*primals)`` with respect to all its arguments.
    wrt : tensor, or list/tuple (nested) of tensors (for a function: the tuple of
        arguments, ``primals``).
    v : the vector, in the structure of ``wrt`` (for a function: ``tangents``).
    consider_constant : as :func:`lazyjit.grad`.

    Returns
    -------
    ``H v`` in the structure of ``wrt`` (with several ``wrt``, the full Hessian, cross
    terms included, times the concatenated ``v``); for a function, a tuple with one entry
    per argument.  Inputs that ``cost`` does not depend on get zeros.

    Raises
    ------
    LazyjitError
        If ``v`` does not match ``wrt`` (naming ``eval_points``), or as :func:`lazyjit.grad`.
    """
    if callable(cost) and not isinstance(cost, Tensor):
        if not isinstance(wrt, (tuple, list)) or not isinstance(v, (tuple, list)):
            raise op_error("hvp", "with a function, the primals and the tangents are tuples "
                           "of its arguments: lj.hvp(fn, (x,), (v,))")
        primals, tangents = tuple(wrt), tuple(v)
        g = grad(cost, argnums=tuple(range(len(primals))))
        return jvp(g, primals, tangents)[1]
    gs = grad(cost, wrt, consider_constant, disconnected_inputs="ignore")
    return Rop(gs, wrt, v, disconnected_outputs="ignore")


# ---- JAX: jvp, vjp --------------------------------------------------------------------------

def _arguments(primals, op: str) -> tuple[list, list[tuple[list[Tensor], Any]]]:
    """The arguments (tensors in their structures) and, per argument, its tensors and
    its structure."""
    if not isinstance(primals, (tuple, list)):
        raise op_error(op, f"primals must be a tuple or list of arguments, got "
                       f"{type(primals).__name__}")
    args, parts = [], []
    for p in primals:
        leaves, tree = as_tensors(p)
        args.append(unflatten(tree, leaves))
        parts.append((leaves, tree))
    return args, parts


def _regroup(flat: list, parts: list[tuple]) -> tuple:
    out, k = [], 0
    for leaves, tree in parts:
        out.append(unflatten(tree, flat[k:k + len(leaves)]))
        k += len(leaves)
    return tuple(out)


def jvp(fn: Callable, primals, tangents, has_aux: bool = False):
    """Evaluate ``fn(*primals)`` and its Jacobian-vector product along ``tangents``
    (JAX's ``jax.jvp``).

    Parameters
    ----------
    fn : function of tensors (and nested lists/tuples/dicts of them) returning a tensor
        or a nested structure of tensors.
    primals : tuple or list of arguments (tensors, arrays, numbers, nested structures).
    tangents : the same structure, each leaf of its primal's shape (``None`` for zero);
        cast to the primal's dtype; ignored for integer and boolean primals.
    has_aux : ``fn`` returns ``(output, aux)``; ``aux`` is returned as is.

    Returns
    -------
    ``(primals_out, tangents_out)`` (with ``aux`` third when ``has_aux``):
    ``tangents_out`` in the structure of the output, each leaf of its output's shape and
    dtype (zeros where the output does not depend on the primals, and for integer
    outputs).

    Raises
    ------
    LazyjitError
        If ``tangents`` does not match ``primals``; the message names the argument, e.g.
        ``tangents[0] has shape (3,), but primals[0] has shape (4,)``.

    Notes
    -----
    Tensor arguments are graph variables, as in :func:`lazyjit.value_and_grad`.
    """
    args, parts = _arguments(primals, "jvp")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise op_error("jvp", "tangents must be a tuple or list with one entry per primal "
                       f"({len(primals)})")
    flat, tflat = [], []
    for i, (t, (leaves, tree)) in enumerate(zip(tangents, parts, strict=True)):
        prefix = f"primals[{i}]"
        names = [prefix + q for q in leaf_paths(primals[i])]
        flat += leaves
        tflat += _matching(t, leaves, None if tree == "*" else tree, names, prefix,
                           f"tangents[{i}]", "jvp")
    with keeping_read_values():  # (fn may print an intermediate it then drops)
        out, aux = split_aux(fn(*args), has_aux, "jvp")
        ys, ytree, _ = _outputs(out, "jvp", "output")
        seeds = {n: t for x, t in zip(flat, tflat, strict=True) if t is not None
                 for n in _seed_nodes(x)}
        tangents_out = push_tangents([y.graph_node for y in ys], seeds)
    touts = [_tangent_of(tangents_out, y) for y in ys]
    touts = [t if t is not None else F.zeros_like(y) for t, y in zip(touts, ys, strict=True)]
    result = (out, touts[0] if ytree is None else unflatten(ytree, touts))
    return result + (aux,) if has_aux else result


def vjp(fn: Callable, *primals, has_aux: bool = False):
    """Evaluate ``fn(*primals)`` and return a function of its vector-Jacobian product
    (JAX's ``jax.vjp``).

    Parameters
    ----------
    fn : function of tensors (and nested lists/tuples/dicts of them) returning a tensor
        or a nested structure of tensors.
    *primals : the arguments (tensors, arrays, numbers, nested structures).
    has_aux : ``fn`` returns ``(output, aux)``; ``aux`` is returned as is.

    Returns
    -------
    ``(primals_out, vjp_fn)`` (with ``aux`` third when ``has_aux``).
    ``vjp_fn(cotangents)`` takes cotangents in the structure of ``primals_out`` (each of
    its output's shape; ``None`` for zero) and returns a tuple with one entry per primal,
    in its structure, each of its shape and dtype (zeros for primals the output does not
    depend on, and for integer ones).

    Raises
    ------
    LazyjitError
        From ``vjp_fn``, if the cotangents do not match the outputs (naming the argument,
        e.g. ``cotangents[1]``).

    Notes
    -----
    Tensor arguments are graph variables, as in :func:`lazyjit.value_and_grad`.
    """
    args, parts = _arguments(primals, "vjp")
    flat = [x for leaves, _ in parts for x in leaves]
    with keeping_read_values() as kept:  # (held by vjp_fn: fn may print an intermediate)
        out, aux = split_aux(fn(*args), has_aux, "vjp")
    ys, ytree, ynames = _outputs(out, "vjp", "output")

    def vjp_fn(cotangents):
        cts = _matching(cotangents, ys, ytree, ynames, "output", "cotangents", "vjp")
        seeds: dict[Node, Tensor] = {}
        for y, c, name in zip(ys, cts, ynames, strict=True):
            if c is not None:
                add_seed(seeds, y, c, "cotangents" + name[len("output"):], "vjp")
        if not flat:
            return _regroup([], parts)
        return _regroup(reverse(seeds, flat, None, "ignore", "vjp", "fn"), parts)

    vjp_fn.read_values = kept  # the graphs of the values fn read live as long as vjp_fn
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


__all__ = ["Rop", "Lop", "jvp", "vjp", "jacobian", "hessian", "hvp", "push_tangents",
           "transposed_vjp"]
