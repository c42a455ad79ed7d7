"""JAX's structured control flow, ``fori_loop``, ``while_loop`` and ``cond``, on lazyjit's
``scan`` and ``ifelse`` nodes.

The loop state (``init_val``) may be a tensor, a number, or nested tuples, lists and
dicts of them (a pytree, as in JAX); the body must return the same structure with the
same shapes.  The loops are ``scan`` nodes, so they run inside compiled code and
differentiate in both modes; ``while_loop`` is differentiable too (JAX's is not in
reverse mode), because its number of steps is found first and the loop then built with
that many.
"""
from __future__ import annotations

import operator

import numpy as np

import lazyjit.api.core as C
from lazyjit.api.ifelse import ifelse
from lazyjit.api.scan import data_dependent, scan
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError, op_error
from lazyjit.pytree import flatten, unflatten
from lazyjit.trace.dims import Dim
from lazyjit.trace.state import CONTEXT


def _leaf(x) -> bool:
    return not isinstance(x, (tuple, list, dict))


def _state(init_val) -> tuple[list[Tensor], object]:
    leaves, treedef = flatten(init_val, _leaf)
    return [C.asarray(x) for x in leaves], treedef


def _leaves_like(value, treedef, name: str) -> list[Tensor]:
    leaves, tree = flatten(value, _leaf)
    if tree != treedef:
        raise op_error(name, f"the body returned a different structure ({tree}) than the "
                       f"initial value ({treedef})")
    return [C.asarray(x) for x in leaves]


def _run(step, leaves: list[Tensor], n: "int | Dim", name: str, sequences=None) -> list:
    """The final leaves after ``n`` runs of ``step(*seq_rows, *leaves) -> leaves``."""
    if not leaves:
        raise op_error(name, "the loop state has no tensors")
    outs, _ = scan(step, sequences=sequences, outputs_info=leaves, n_steps=n, name=name)
    outs = outs if isinstance(outs, list) else [outs]
    return [o[-1] for o in outs]


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, then ``val``, as
    ``jax.lax.fori_loop``: ``lower`` and ``upper`` ints (or sizes: ``x.shape[0]``), ``i``
    an int64 0-d tensor; no steps give ``init_val`` back.

    Raises ``LazyjitError`` when the body changes the state's structure, shapes or
    dtypes, or for bounds that are not ints or sizes."""
    try:
        lower = lower if type(lower) is Dim else operator.index(lower)
        upper = upper if type(upper) is Dim else operator.index(upper)
    except TypeError:
        raise op_error("fori_loop", "lower and upper must be ints or sizes (a loop over a "
                       "tensor's value is lj.while_loop)") from None
    n = upper - lower
    if type(n) is int and n <= 0:
        return init_val
    leaves, treedef = _state(init_val)

    def step(i, *state):
        return _leaves_like(body_fun(i, unflatten(treedef, list(state))), treedef, "fori_loop")
    final = _run(step, leaves, n, "fori_loop", sequences=C.arange(lower, upper, dtype=np.int64))
    return unflatten(treedef, final)


def while_loop(cond_fun, body_fun, init_val, *, chunk: int = 16):
    """``while cond_fun(val): val = body_fun(val)``, then ``val``, as
    ``jax.lax.while_loop`` (``cond_fun`` returns a 0-d tensor; nonzero is true).

    The number of steps depends on the values: it is found first, by running the loop
    in blocks of ``chunk``, then twice as many, ... steps until the condition fails (each
    block a realize, so not inside ``lj.jit``); then the loop of exactly that many steps
    is built from ``init_val``, so the result is differentiable (in both modes, through
    the steps run).  A loop that never ends does not return."""
    leaves, treedef = _state(init_val)

    def probe(*state):  # the next state, and the condition on the state before it
        val = unflatten(treedef, list(state))
        go = C.asarray(cond_fun(val))
        if go.ndim != 0:
            raise op_error("while_loop", f"cond_fun must return a 0-d tensor, got shape "
                           f"{go.shape}", (go.node,))
        return [*_leaves_like(body_fun(val), treedef, "while_loop"), C.astype(go, np.bool_)]

    total, state = 0, leaves
    while True:
        outs, _ = scan(probe, outputs_info=[*state, None], n_steps=chunk, name="while_loop")
        last = [o[-1] for o in outs[:-1]]
        go = outs[-1]
        try:
            CONTEXT.realize(go, *last)  # (one computation for the block)
        except LazyjitError:
            pass  # (the same error, worded for the loop, from data_dependent)
        flags = np.asarray(data_dependent(go, "while_loop", "lj.while_loop"), bool)
        if not flags.all():
            total += int(np.argmin(flags))
            break
        total, state, chunk = total + chunk, last, chunk * 2
    if total == 0:
        return unflatten(treedef, leaves)

    def step(*state):
        return _leaves_like(body_fun(unflatten(treedef, list(state))), treedef, "while_loop")
    return unflatten(treedef, _run(step, leaves, total, "while_loop"))


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as
    ``jax.lax.cond``: ``pred`` a 0-d tensor or a Python bool; both results must have
    the same structure and shapes.  One ``ifelse`` node per leaf: only the branch taken
    is computed, and derivatives flow into it alone (Theano's ``ifelse``)."""
    t_leaves, t_tree = flatten(true_fun(*operands), _leaf)
    f_leaves, f_tree = flatten(false_fun(*operands), _leaf)
    if t_tree != f_tree:
        raise op_error("cond", f"the branches return different structures: {t_tree} and "
                       f"{f_tree}")
    if not t_leaves:
        return unflatten(t_tree, [])
    out = ifelse(pred, [C.asarray(x) for x in t_leaves], [C.asarray(x) for x in f_leaves],
                 name="cond")
    return unflatten(t_tree, out)


__all__ = ["fori_loop", "while_loop", "cond"]
