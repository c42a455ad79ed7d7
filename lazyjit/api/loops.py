"""JAX's structured control flow, ``fori_loop``, ``while_loop`` and ``cond``, on lazyjit's
``scan`` and ``ifelse`` nodes.

The loop state (``init_val``) may be a tensor, a number, or nested tuples, lists and
dicts of them (a pytree, as in JAX); the body must return the same structure with the
same shapes.  The loops are ``scan`` nodes, so they run inside compiled code and
differentiate in both modes; ``while_loop`` is differentiable too (JAX's is not in
reverse mode), because its number of steps is found first and the loop then built with
that many; inside ``lj.jit`` it is a loop that ends on its condition in the compiled
code (then, as JAX's, without derivatives).
"""
from __future__ import annotations

import operator

import numpy as np

import lazyjit.api.core as C
from lazyjit.api.shared import SharedVariable, current
from lazyjit.api.ifelse import ifelse
from lazyjit.api.scan import (NotComputableHere, build_scan, data_dependent, scan,
                              scan_unapplied)
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError, op_error
from lazyjit.pytree import flatten, unflatten
from lazyjit.trace.dims import Dim
from lazyjit.trace.state import CONTEXT, STATE, BranchFrame, recording_trace, tracing_jit


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

    Outside ``lj.jit``, the number of steps is found first, by running the loop in
    blocks of ``chunk``, then twice as many, ... steps until the condition fails (each
    block a realize; ``body_fun`` is not computed once the condition has failed, and
    the shared variables it assigns get back their values after the count); then the
    loop of exactly that many steps is built from ``init_val``, so the result is
    differentiable (in both modes, through the steps run).  Where the values cannot be
    computed while the graph is built (inside ``lj.jit``, a scan step, or over
    ``lj.function`` placeholders) it is one loop node that tests ``cond_fun`` after each
    step and ends inside the compiled code (no derivatives there, as JAX's has none in
    reverse mode; its functions may not assign shared variables).  A loop that never
    ends does not return.

    Raises ``ValueError`` for ``chunk < 1``; ``LazyjitError`` for a ``cond_fun`` result
    that is not 0-d, or a body that changes the state's structure."""
    if operator.index(chunk) < 1:
        raise ValueError(f"while_loop: chunk must be at least 1, got {chunk}")
    leaves, treedef = _state(init_val)
    if tracing_jit(STATE.recording) or STATE.scan_depth:
        return unflatten(treedef, _while_in_graph(cond_fun, body_fun, leaves, treedef))
    try:
        total = _count_steps(cond_fun, body_fun, leaves, treedef, chunk)
    except NotComputableHere:  # (over lj.function placeholders: the loop in the graph)
        return unflatten(treedef, _while_in_graph(cond_fun, body_fun, leaves, treedef))
    if total == 0:
        return unflatten(treedef, leaves)

    def step(*state):
        return _leaves_like(body_fun(unflatten(treedef, list(state))), treedef, "while_loop")
    return unflatten(treedef, _run(step, leaves, total, "while_loop"))


def _count_steps(cond_fun, body_fun, leaves: list[Tensor], treedef, chunk: int) -> int:
    """The number of steps ``while_loop`` runs, found by running it in doubling blocks
    (the shared variables its body assigns get back their values afterwards)."""
    def probe(*state):  # the next state (the same once the condition failed), the condition
        val = unflatten(treedef, list(state))
        go = _condition(cond_fun, val)
        new = ifelse(go, _leaves_like(body_fun(val), treedef, "while_loop"), list(state),
                     name="while_loop")
        return [*new, go]

    total, state, saved = 0, leaves, {}
    try:
        while True:
            outs, updates, _ = scan_unapplied(probe, None, [*state, None], None, chunk,
                                              False, False, "while_loop", -1)
            last = [o[-1] for o in outs[:-1]]
            try:
                CONTEXT.realize(outs[-1], *last)  # (one computation for the block)
            except LazyjitError:
                pass  # (the same error, worded for the loop, from data_dependent)
            flags = np.asarray(data_dependent(outs[-1], "while_loop", "lj.while_loop"), bool)
            if not flags.all():
                total += int(np.argmin(flags))
                break
            total, state, chunk = total + chunk, last, chunk * 2
            for sv, value in updates.items():  # (the next block goes on from there)
                saved.setdefault(sv, Tensor(sv.node))
                sv.assign(value)
    finally:
        for sv, value in saved.items():
            sv.assign(value)
    return total


def _condition(cond_fun, val) -> Tensor:
    go = C.asarray(cond_fun(val))
    if go.ndim != 0:
        raise op_error("while_loop", f"cond_fun must return a 0-d tensor, got shape "
                       f"{go.shape}", (go.node,))
    return C.astype(go, np.bool_)


_MOST_STEPS = 1 << 62  # a while loop's bound (it ends on its condition)


def _while_in_graph(cond_fun, body_fun, leaves: list[Tensor], treedef) -> list[Tensor]:
    """The while loop as one scan node ending on its stop state (``~cond`` of the new
    state), run only when ``cond_fun(init)`` holds (an ``ifelse``)."""
    if not leaves:
        raise op_error("while_loop", "the loop state has no tensors")
    n = len(leaves)

    def step(*state):
        new = _leaves_like(body_fun(unflatten(treedef, list(state[:n]))), treedef,
                           "while_loop")
        return [*new, ~_condition(cond_fun, unflatten(treedef, new))]
    states = [(x[None], (-1,)) for x in leaves]
    states.append((C.zeros((1,), np.bool_), (-1,)))
    frame: dict = {}
    STATE.scan_recording.append(frame)
    try:
        outs = build_scan(step, [], states, [], _MOST_STEPS, keep=[False] * (n + 1),
                          name="while_loop", stop=n)
    finally:
        STATE.scan_recording.pop()
    if frame:
        raise op_error("while_loop", "inside lj.jit (or a scan step, or over lj.function "
                       "placeholders), a while_loop whose cond_fun or body_fun assigns "
                       "shared variables (a random stream) is not supported yet: use "
                       "lj.fori_loop or lj.scan with a fixed number of steps")
    return ifelse(_condition(cond_fun, unflatten(treedef, leaves)),
                  [o[0] for o in outs[:n]], leaves, name="while_loop")


def _branch(fn, operands) -> tuple:
    """``fn(*operands)`` with the shared variables it assigns recorded, not applied:
    ``(result, {variable: value})``.  The branch's record starts as a copy of the
    enclosing one (a jit trace's, a scan step's, an outer branch's), so that it reads
    the values assigned earlier in the same trace (a random stream's counter)."""
    stack = STATE.scan_recording if STATE.scan_depth else STATE.recording
    enclosing = stack[-1] if stack else {}
    frame = BranchFrame(enclosing)
    stack.append(frame)
    # (outside a scan step, a read after the branch's assign gives the value assigned:
    # the program order of eager code; in a step, reads give the step's start values)
    views = [] if STATE.scan_depth else STATE.views
    views.append(frame)
    try:  # (a shared variable returned: its value as the branch reads it, at its end)
        with recording_trace():  # (the views are read only while it counts this trace)
            leaves, tree = flatten(fn(*operands), lambda x: isinstance(x, Tensor))
            out = unflatten(tree, [Tensor(x.node) if isinstance(x, SharedVariable) else x
                                   for x in leaves])
    finally:
        views.pop()
        stack.pop()
    return out, {sv: v for sv, v in frame.items() if enclosing.get(sv) is not v}


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as
    ``jax.lax.cond``: ``pred`` a 0-d tensor or a Python bool; both results must have
    the same structure and shapes.  One ``ifelse`` node per leaf: only the branch taken
    is computed, and derivatives flow into it alone (Theano's ``ifelse``).  A shared
    variable a branch assigns takes that value only when its branch is taken (both
    functions are traced, and their assignments recorded, not applied).

    Raises ``LazyjitError`` when the branches' structures or shapes differ."""
    t_out, t_assigned = _branch(true_fun, operands)
    f_out, f_assigned = _branch(false_fun, operands)
    t_leaves, t_tree = flatten(t_out, _leaf)
    f_leaves, f_tree = flatten(f_out, _leaf)
    if t_tree != f_tree:
        raise op_error("cond", f"the branches return different structures: {t_tree} and "
                       f"{f_tree}")
    svs = list(dict.fromkeys([*t_assigned, *f_assigned]))
    before = [current(sv) for sv in svs]
    t_all = [C.asarray(x) for x in t_leaves] + [t_assigned.get(sv, b) for sv, b in
                                                 zip(svs, before)]
    f_all = [C.asarray(x) for x in f_leaves] + [f_assigned.get(sv, b) for sv, b in
                                                 zip(svs, before)]
    out = ifelse(pred, t_all, f_all, name="cond") if t_all else []
    for sv, value in zip(svs, out[len(t_leaves):]):
        sv.assign(value)
    return unflatten(t_tree, out[:len(t_leaves)])


__all__ = ["fori_loop", "while_loop", "cond"]
