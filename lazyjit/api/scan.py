"""Loops as graph nodes: ``scan`` (Theano semantics) and ``ifelse``.

A scan is one node, whatever its number of steps: its argument, a :class:`ScanSpec`,
holds the loop body as an inner graph over placeholder inputs (``param`` nodes with
argument ``("scan", depth, i)``), and the node's sources are the loop's outer inputs.
The node has several results; ``scan_out`` nodes select them, one per result.

Inside, every scan has one form, to which the public :func:`scan` reduces its options:

* **sequences** ``X_k`` of shape ``(T, ...)``: the body reads row ``t`` (sequence taps
  and ``go_backwards`` become slices of the user's sequences);
* **states** ``j`` with taps ``tau < 0`` (``L_j = -min(taps)``): an initial block of
  shape ``(L_j, ...)``; the result is the buffer ``S_j`` of shape ``(L_j + T, ...)``,
  initial rows first, step ``t`` reading rows ``L_j + t + tau`` and writing row
  ``L_j + t``; a state marked not ``keep`` returns only its last ``L_j`` rows;
* **invariants** ``W_m``: loop-invariant values the body reads (non-sequences, implicit
  captures, and every subexpression of the body that does not depend on the step:
  these are hoisted out of the loop when the body is traced);
* **plain outputs** of shape ``(T, ...)``: values not fed back (``None`` in Theano's
  ``outputs_info``).

Gradients and forward derivatives of a scan are scans themselves (back-propagation
through time runs as one reverse scan: :mod:`lazyjit.autodiff.scan_grad`).
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np
import xxhash
import lazyjit.api.core as C
import lazyjit.api.shape_ops as S
from lazyjit.api.ifelse import ifelse, results_of
from lazyjit.api.scan_pushout import push_in, push_out
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError, op_error
from lazyjit.trace.gates import ungated
from lazyjit.trace.graph import Trace, collect, reachable, substitute, toposort
from lazyjit.trace.node import Node, _leaf_ids
from lazyjit.trace.constraints import require, same_shape, value_symbol
from lazyjit.trace.dims import Dim, dmax, dmin, exact_key
from lazyjit.trace.state import STATE, UPDATING, recording_trace
from lazyjit.trace.updates import UpdateFrame, pending

PUSH_OUT = True  # move step-independent sequence computations out of bodies (tests switch it)


def placeholder(depth: int, i: int, shape: tuple, dtype) -> Node:
    return Node.make("param", (), ("scan", depth, i), tuple(shape), np.dtype(dtype))


def _is_placeholder(n: Node) -> bool:
    return n.op == "param" and n.arg[0] == "scan"


class ScanSpec:
    """The static part of a scan node: its body and the roles of its sources.

    Attributes
    ----------
    inputs : the body's placeholders: one per sequence, one per (state, tap), one per
        invariant, in that order.
    outputs : the body's results: one per state (its new row), then one per plain output.
    n_seq, taps, n_inv : sequences, the taps of each state, invariants.
    keep : per state, whether the whole buffer (all rows) is a result, or its last rows.
    n_steps : the number of steps ``T``.
    reverse : step ``s`` reads and writes row ``T-1-s`` of the sequences and plain
        outputs (states are still indexed by the step): the reverse scan of a gradient
        reads its sequences, and writes its results, in time order.
    stop : None, or the index of a bool 0-d state (lag 1, last row only): the loop ends
        after the first step whose new row of it is true, ``n_steps`` then being the
        most steps it may run (a while loop: ``lj.while_loop`` inside ``lj.jit``).  Such
        a loop keeps no state whole and has no plain outputs (no result depends on the
        number of steps run), and has no derivatives.
    key : a digest of all of the above (structure, shapes, dtypes; no values).
    """

    __slots__ = ("inputs", "outputs", "n_seq", "taps", "n_inv", "keep", "n_steps", "reverse",
                 "stop", "key", "_trace", "_compiled", "__weakref__")

    def __init__(self, inputs, outputs, n_seq, taps, n_inv, keep, n_steps, reverse=False,
                 stop=None):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)
        self.n_seq, self.taps, self.n_inv = n_seq, tuple(map(tuple, taps)), n_inv
        self.keep, self.reverse = tuple(keep), bool(reverse)
        self.n_steps = n_steps if type(n_steps) is Dim else int(n_steps)
        self.stop = stop
        assert stop is None or (not any(self.keep) and len(self.outputs) == len(self.taps)
                                and self.outputs[stop].dtype == np.bool_)
        self._trace: Trace | None = None
        self._compiled: dict = {}
        body = self.trace().key()
        meta = repr(exact_key((n_seq, self.taps, n_inv, self.keep, self.n_steps,
                               self.reverse, stop))).encode()
        self.key = xxhash.xxh3_128_digest(body + meta)

    # -- structure --
    @property
    def n_states(self) -> int:
        return len(self.taps)

    @property
    def n_plain(self) -> int:
        return len(self.outputs) - len(self.taps)

    def lags(self) -> list[int]:
        return [-min(t) for t in self.taps]

    def tap_slots(self) -> list[list[int]]:
        """For each state, the body input index of each of its taps."""
        out, i = [], self.n_seq
        for taps in self.taps:
            out.append(list(range(i, i + len(taps))))
            i += len(taps)
        return out

    def inv_slots(self) -> range:
        start = self.n_seq + sum(len(t) for t in self.taps)
        return range(start, start + self.n_inv)

    def result_shapes(self) -> list[tuple[tuple, np.dtype]]:
        out = []
        for j, lag in enumerate(self.lags()):
            o = self.outputs[j]
            rows = lag + self.n_steps if self.keep[j] else lag
            out.append(((rows, *o.shape), o.dtype))
        for o in self.outputs[self.n_states:]:
            out.append(((self.n_steps, *o.shape), o.dtype))
        return out

    def trace(self) -> Trace:
        """The body as a trace whose inputs are all placeholders, in order."""
        if self._trace is None:
            t = collect(list(self.outputs), through_values=True)
            ins = list(self.inputs)
            known = set(ins)
            nodes = ins + [n for n in t.nodes if n not in known]
            self._trace = Trace(nodes, ins, list(self.outputs),
                                {n: i for i, n in enumerate(nodes)})
        return self._trace

    def with_keep(self, keep) -> "ScanSpec":
        return ScanSpec(self.inputs, self.outputs, self.n_seq, self.taps, self.n_inv, keep,
                        self.n_steps, self.reverse, self.stop)

    # -- identity --
    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, ScanSpec) and other.key == self.key

    def __repr__(self) -> str:
        return f"ScanSpec({self.key.hex()[:12]}, steps={self.n_steps})"


# ---- building the node ------------------------------------------------------------------

def _walk(roots: list[Node]) -> list[Node]:
    """All nodes below ``roots`` (sources first), not descending below computed leaves."""
    return toposort(roots, set())


def _hoist(outputs: list[Node], variant: set[Node], depth: int, first_inv: int
           ) -> tuple[list[Node], list[Node], list[Node]]:
    """Split the traced body into the loop body and its invariants.

    ``variant`` are the placeholders of sequences and states.  Every maximal subgraph
    that does not depend on them (but on something besides constants) is hoisted: it
    becomes an invariant input of the scan, read by the body through a new placeholder.
    Returns the body outputs, their placeholders and the outer invariant nodes."""
    order = _walk(outputs)
    dep: dict[Node, bool] = {}
    const_only: dict[Node, bool] = {}
    for n in order:
        if n in variant:
            dep[n], const_only[n] = True, False
        elif not n.src or n.buffer is not None:
            dep[n], const_only[n] = False, n.op == "const"
        else:
            dep[n] = any(dep[s] for s in n.src)
            const_only[n] = all(const_only[s] for s in n.src)
    hoisted: dict[Node, None] = {}
    needed = ungated(outputs)

    def below(x: Node) -> tuple:
        """What is looked at below ``x``: nothing below a node hoisted whole."""
        if dep[x] or const_only[x] or x in needed or not x.src or x.buffer is not None:
            return ()
        return x.src

    def hoist_leaves(top: Node) -> None:
        # an invariant only an ifelse branch reads stays in the body (computed when the
        # branch is taken): only its inputs, or what is computed anyway, are hoisted
        for x in reachable([top], below):
            if not (dep[x] or const_only[x]) and (x in needed or not x.src or
                                                   x.buffer is not None):
                hoisted[x] = None
    for n in order:
        if dep[n] and n.src and n not in variant:
            for s in n.src:
                if not dep[s] and not const_only[s]:
                    hoist_leaves(s)
    for o in outputs:
        if not dep[o] and not const_only[o]:
            hoisted[o] = None
    invariants = list(hoisted)
    mapping = {n: placeholder(depth, first_inv + i, n.shape, n.dtype)
               for i, n in enumerate(invariants)}
    body = substitute(outputs, mapping)
    return body, [mapping[n] for n in invariants], invariants


def _check_strict(outputs: list[Node], allowed: set[Node], first_leaf: int, name: str):
    """Raise for a tensor the body reads that is not one of its placeholders (``allowed``)
    nor a constant created while tracing it."""
    for n in toposort(outputs, allowed):
        if n in allowed or n.src:
            continue
        if n.op == "const" or (n.op == "buffer" and n.arg >= first_leaf):
            continue  # a constant made inside the body
        raise op_error(name, "strict=True (which truncate_gradient implies: the steps before "
                       "the last k must see every input as a constant): the step function "
                       "uses a tensor that is not "
                       "passed in sequences, outputs_info or non_sequences (shape "
                       f"{n.shape}, {n.dtype}); pass it in non_sequences", (n,))


def build_scan(body_fn: Callable, seqs: list[Tensor], states: list[tuple[Tensor, tuple]],
               nonseqs: list[Tensor], n_steps: int, *, strict: bool = False,
               keep: Sequence[bool] | None = None, name: str = "scan",
               reverse: bool = False, stop: int | None = None) -> list[Tensor]:
    """Trace ``body_fn`` and build the scan node; return its results as tensors.

    Parameters
    ----------
    body_fn : called with one tensor per sequence row, one per (state, tap) and the
        ``nonseqs`` themselves; returns a list: one new row per state, then plain outputs.
    seqs : tensors of shape ``(n_steps, ...)``.
    states : ``(initial, taps)`` per state, ``initial`` of shape ``(L, ...)`` with
        ``L = -min(taps)``.
    n_steps : the number of steps.
    keep : per state, whether to return the whole buffer (default) or its last rows.
    reverse : run through the sequences' rows last to first (see :class:`ScanSpec`).
    stop : the index of the bool state that ends the loop (see :class:`ScanSpec`).

    Returns
    -------
    One tensor per state (``(L + n_steps, ...)`` or ``(L, ...)``) then per plain output
    (``(n_steps, ...)``).
    """
    depth = STATE.scan_depth + 1  # (the body's placeholders carry it)
    first_leaf = next(_leaf_ids)
    ph: list[Node] = []
    args: list[Tensor] = []
    for s in seqs:
        p = placeholder(depth, len(ph), s.shape[1:], s.dtype)
        ph.append(p)
        args.append(Tensor(p))
    for init, taps in states:
        for _ in taps:
            p = placeholder(depth, len(ph), init.shape[1:], init.dtype)
            ph.append(p)
            args.append(Tensor(p))
    # with strict, the body sees its non-sequences as placeholders too, so that any other
    # tensor it reaches is an implicit capture
    ns_ph = [placeholder(depth, ("ns", i), t.shape, t.dtype) for i, t in enumerate(nonseqs)]
    STATE.scan_depth = depth
    try:
        with recording_trace():
            res = body_fn(*args, *([Tensor(p) for p in ns_ph] if strict else nonseqs))
    finally:
        STATE.scan_depth = depth - 1
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) < len(states):
        raise op_error(name, f"the step function returned {len(res)} outputs, expected at "
                       f"least {len(states)} (one per fed-back output)")
    outs: list[Node] = []
    for k, r in enumerate(res):
        if not isinstance(r, Tensor):
            try:
                r = C.asarray(r)
            except Exception:
                raise op_error(name, f"output {k} of the step function is a "
                               f"{type(r).__name__}, not a tensor") from None
        if k < len(states):
            init = states[k][0]
            want = init.shape[1:]
            if not same_shape(r.shape, want, name):
                raise op_error(name, f"output {k} of the step function has shape {r.shape}, "
                               f"but its initial value gives {want} (dtype {init.dtype})",
                               (r.node, init.node))
            if r.dtype != init.dtype:
                if not np.can_cast(r.dtype, init.dtype, "same_kind"):
                    raise op_error(name, f"output {k} of the step function has dtype "
                                   f"{r.dtype}, but its initial value has {init.dtype}",
                                   (r.node, init.node))
                r = C.astype(r, init.dtype)
        outs.append(r.node)
    if strict:
        _check_strict(outs, set(ph) | set(ns_ph), first_leaf, name)
        outs = substitute(outs, {p: t.node for p, t in zip(ns_ph, nonseqs)})
    body, inv_ph, invariants = _hoist(outs, set(ph), depth, len(ph))
    seq_ph, state_ph = ph[:len(seqs)], ph[len(seqs):]
    seq_nodes = [s.node for s in seqs]
    body = push_in(body, seq_ph, seq_nodes)
    if PUSH_OUT and stop is None:  # (a while loop has no rows to push work out to)
        count = [len(ph) + len(inv_ph)]

        def make(shape, dtype):
            count[0] += 1
            return placeholder(depth, count[0], shape, dtype)
        body, new_ph, new_seqs = push_out(body, dict(zip(seq_ph, seq_nodes)), set(state_ph),
                                          dict(zip(inv_ph, invariants)), n_steps, make)
        seq_ph, seq_nodes = seq_ph + new_ph, seq_nodes + new_seqs
    # sequences and invariants the body does not read are dropped
    used = set(_walk(body))
    keep_seq = [k for k, p in enumerate(seq_ph) if p in used]
    keep_inv = [m for m, p in enumerate(inv_ph) if p in used]
    seq_ph, seq_nodes = [seq_ph[k] for k in keep_seq], [seq_nodes[k] for k in keep_seq]
    inv_ph, invariants = [inv_ph[m] for m in keep_inv], [invariants[m] for m in keep_inv]
    keep = tuple(keep) if keep is not None else (True,) * len(states)
    n_st = len(states)
    plain = list(dict.fromkeys(body[n_st:]))  # a value returned twice is stored once
    spec = ScanSpec(seq_ph + state_ph + inv_ph, body[:n_st] + plain, len(seq_ph),
                    [taps for _, taps in states], len(invariants), keep, n_steps, reverse,
                    stop)
    src = tuple(seq_nodes + [i.node for i, _ in states] + invariants)
    outs = results_of("scan", spec, src)
    return outs[:n_st] + [outs[n_st + plain.index(p)] for p in body[n_st:]]


# ---- the public API ----------------------------------------------------------------------

def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _taps(value, default, what: str) -> tuple[int, ...]:
    taps = value if value is not None else default
    taps = [taps] if isinstance(taps, int) else list(taps)
    if not taps or not all(isinstance(t, (int, np.integer)) for t in taps):
        raise op_error("scan", f"{what}: taps must be a non-empty list of ints, got {value!r}")
    return tuple(int(t) for t in taps)


def _steps(n_steps) -> "int | Dim | None":
    """``n_steps`` as a size: an int, a symbolic size (``x.shape[0]``, or ``lj.tensor``
    of one), or the value at each call of an integer 0-d placeholder (a size symbol
    named after it, bound to the argument's value: :data:`VALUE_SYMBOLS`)."""
    if type(n_steps) is Dim:
        if n_steps.bounds()[0] < 0:  # (checked at each call: x.shape[0] - 2 at 1 row)
            require("le", 0, n_steps, "scan")
        return n_steps
    if n_steps is None:
        return n_steps
    if isinstance(n_steps, Tensor):
        node = n_steps.node
        if n_steps.ndim != 0 or n_steps.dtype.kind not in "iu":
            raise op_error("scan", f"n_steps must be an integer scalar, got shape "
                           f"{n_steps.shape} {n_steps.dtype}", (node,))
        if node.op == "param" and node.arg[0] == "size":
            return node.arg[1]
        if node.op == "param" and node.arg[0] == "input":
            return value_symbol(node)
        if node.buffer is None and node.op != "const":
            raise op_error("scan", "n_steps must be an int, a size (x.shape[0]) or an "
                           "integer placeholder (lj.scalar('n', 'int64')); a computed "
                           "tensor's value is not known while the graph is built", (node,))
        n_steps = n_steps.item()
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
        raise op_error("scan", f"n_steps must be a non-negative int, got {n_steps!r}")
    return int(n_steps)


def _holding_updates(fn: Callable) -> Callable:
    """``fn`` run holding UPDATING: a loop reads the shared variables its step assigns
    (a random stream's counter) and gives them their values after the loop in one step,
    which another thread's assignment must not come between."""
    @functools.wraps(fn)
    def holding(*args, **kwargs):
        with UPDATING:
            return fn(*args, **kwargs)
    return holding


class NotComputableHere(LazyjitError):
    """A value that decides a loop's number of steps cannot be computed where the graph
    is built (inside ``lj.jit``, a scan step, or over ``lj.function`` placeholders)."""


def data_dependent(t: Tensor, name: str, what: str) -> np.ndarray:
    """The value of ``t``, which decides a loop's number of steps; where it cannot be
    computed now (inside ``lj.jit`` or over ``lj.function`` placeholders), an error
    saying so (:class:`NotComputableHere`)."""
    try:
        return t.numpy()
    except LazyjitError as e:
        raise op_error(name, f"{what} runs a number of steps known only from the values, "
                       f"which cannot be computed here ({e}); outside lj.jit and "
                       "lj.function it works, or give a fixed number of steps",
                       cls=NotComputableHere) from None


class until:  # noqa: N801 - Theano's name
    """A scan step's stop condition (Theano's ``scan_module.until``): a step function
    that returns ``outputs, lj.until(c)`` (or ``lj.until(c)`` last in its list) stops
    the loop after the first step whose ``c`` (a 0-d tensor) is true."""

    def __init__(self, condition):
        self.condition = C.asarray(condition)
        if self.condition.ndim != 0:
            raise op_error("until", f"the condition must be 0-d, got shape "
                           f"{self.condition.shape}", (self.condition.node,))


def _split_until(res) -> tuple[list, "until | None"]:
    """A step function's results as a list, and its ``until`` (or None)."""
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    stop = res.pop() if res and isinstance(res[-1], until) else None
    if stop is not None and len(res) == 1 and isinstance(res[0], (list, tuple)):
        res = list(res[0])  # (``return [h, y], until(c)``)
    return res, stop


@_holding_updates
def scan(fn: Callable, sequences=None, outputs_info=None, non_sequences=None,
         n_steps=None, go_backwards: bool = False, strict: bool = False,
         name: str | None = None, truncate_gradient: int = -1):
    """Apply ``fn`` repeatedly, along the first axis of ``sequences`` and carrying
    outputs from step to step: a loop as one graph node (Theano's ``scan``).

    Parameters
    ----------
    fn : the step function.  Called with, in order: for each sequence, its row at each
        of its taps; for each fed-back output, its values at each of its taps; then the
        ``non_sequences``.  Returns one tensor or a list of tensors, one per output.
    sequences : a tensor, or a list of tensors and ``dict(input=x, taps=[-1, 0, 1])``;
        iterated over the first axis.  At step ``t`` a sequence gives
        ``x[t - min(taps, 0) + tap]`` for each tap, and ``len(x) - (max(taps, 0) -
        min(taps, 0))`` steps can be run: cut as if tap 0 were read too, as Theano does
        (taps ``[1]`` read ``x[1], x[2], ...``; taps ``[-1]`` stop one row early).
    outputs_info : per output: ``None`` (not fed back), an initial value ``h0`` (taps
        ``[-1]``), or ``dict(initial=h0, taps=[-2, -1])`` with ``h0`` of shape
        ``(2, ...)``, ``h0[0]`` being the value at step -2 and ``h0[1]`` at step -1.
        Omitted entries (a list shorter than the outputs) are ``None``.
    non_sequences : tensors passed unchanged to every step.
    n_steps : the number of steps (an int); with sequences the smallest count wins.
    go_backwards : read the sequences from last to first (outputs in computed order).
    strict : refuse tensors used by ``fn`` that are not passed in (implicit captures).
    name : names the scan in errors.
    truncate_gradient : ``k >= 0``: derivatives go back through the last ``k`` steps
        only (Theano's truncated back-propagation through time: earlier steps' inputs,
        sequences, states and non-sequences alike, are constants for them, in both
        modes); -1 (the default): through every step.  It implies ``strict``.

    A step may also return ``lj.until(c)`` after its outputs (Theano's ``until``): the
    loop stops after the first step whose ``c`` is true (``n_steps``, or the sequences,
    give the most steps), and the outputs hold the steps run.  Their number depends on
    the values: the loop runs to its end once to find it (a realize, so not inside
    ``lj.jit``), then the scan of that many steps is built, whose derivatives are those
    of the steps actually run.

    Returns
    -------
    ``(outputs, updates)``: ``outputs`` is one tensor (one output) or a list, each of
    shape ``(n_steps, *step_shape)`` (initial values excluded); ``updates`` maps each
    shared variable the step function assigns (``sv.assign(v)``, or a random stream's
    draws) to its value after the last step.  Inside the step, the variable reads as
    its value at that step (its initial value is the one before the loop).  The
    updates are also applied (recorded inside ``lj.jit``, assigned lazily in eager
    code), except when they depend on ``lj.function`` placeholders: then pass them as
    ``lj.function(..., updates=updates)``, as in Theano.

    Raises
    ------
    LazyjitError
        For a 0-d sequence, non-negative output taps, an initial value shorter than its
        taps, no way to know the number of steps, a step function whose outputs do not
        match the initial values in shape, or in dtype beyond a cast of the same kind
        (a float64 output of a float32 state is cast to float32, as ``astype`` with
        ``casting="same_kind"``; an int or bool state refuses a float), or with
        ``strict``, an implicit capture.

    Notes
    -----
    A step function that assigns shared variables is traced twice (once to find them,
    once with them as states): keep it free of other side effects.
    The loop is one ``scan`` node, of a size independent of the number of steps; the
    body is traced once.  Its gradient is one reverse scan, its JVP one forward scan.
    Subexpressions of the body that do not depend on the step are computed once, before
    the loop.  On the ``cpu`` backend the whole loop runs inside the compiled code.
    """
    name = name or "scan"
    result, updates, stop = scan_unapplied(fn, sequences, outputs_info, non_sequences, n_steps,
                                  go_backwards, strict, name, truncate_gradient)
    if stop is not None:
        count = _steps_until(fn, sequences, outputs_info, non_sequences, n_steps,
                             go_backwards, strict, name)

        def steps_only(*args):
            return _split_until(fn(*args))[0]
        result, updates, _ = scan_unapplied(steps_only, sequences, outputs_info,
                                            non_sequences, count, go_backwards, strict, name,
                                            truncate_gradient)
    _apply(updates)
    return (result[0] if len(result) == 1 else result), updates


def _steps_until(fn, sequences, outputs_info, non_sequences, n_steps, go_backwards, strict,
                 name) -> int:
    """How many steps a scan whose step returns ``lj.until(c)`` runs: a loop computing,
    with a ``done`` flag as its first state, the step only while no ``c`` was true (an
    ``ifelse``: no step after the stop is computed, so none can fail), then its flags.
    Its updates of shared variables are not applied (the loop of that many steps is
    built next, and applies them)."""
    n_seq_args = sum(len(_taps(x.get("taps"), [0], "sequences")) if isinstance(x, dict)
                     else 1 for x in _as_list(sequences))

    def guarded(*args):
        done = args[n_seq_args]
        res, cond = _split_until(fn(*args[:n_seq_args], *args[n_seq_args + 1:]))
        res = [C.asarray(r) for r in res]
        then = [C.zeros_like(r) for r in res] + [C.asarray(True)]
        taken = ifelse(done, then, res + [C.astype(cond.condition, np.bool_)], name=name)
        return [taken[-1], *taken[:-1]]

    info = [C.asarray(False), *_as_list(outputs_info)]
    outs, _, _ = scan_unapplied(guarded, sequences, info, non_sequences, n_steps,
                                go_backwards, strict, name, -1)
    flags = np.asarray(data_dependent(outs[0], name, "a step returning lj.until(...)"), bool)
    return int(np.argmax(flags)) + 1 if flags.any() else len(flags)


def scan_unapplied(fn, sequences, outputs_info, non_sequences, n_steps, go_backwards,
                   strict, name, truncate_gradient):
    """:func:`scan`'s loop, its updates not applied: ``(outputs, updates, the until
    conditions per step or None)``."""
    seq_items = _as_list(sequences)
    info = _as_list(outputs_info) if outputs_info is not None else []
    nonseqs = [C.asarray(x) for x in _as_list(non_sequences)]
    steps = _steps(n_steps)
    # sequences: each (sequence, tap) becomes one internal sequence (a slice)
    seq_parts = []
    for k, item in enumerate(seq_items):
        if isinstance(item, dict):
            x, taps = item.get("input"), _taps(item.get("taps"), [0], f"sequences[{k}]")
        else:
            x, taps = item, (0,)
        x = C.asarray(x)
        if x.ndim == 0:
            raise op_error(name, f"sequences[{k}] is 0-d: a sequence needs a first axis to "
                           "iterate over", (x.node,))
        if go_backwards:
            x = x[::-1]
        # (cut as if tap 0 were read too, as Theano cuts it: taps all above or all
        # below 0 leave the rows before or after them unread)
        lo = min(*taps, 0)
        count = dmax(x.shape[0] - (max(*taps, 0) - lo), 0)
        steps = count if steps is None else dmin(steps, count)
        seq_parts.append((x, taps, lo))
    if steps is None:
        raise op_error(name, "no sequences and no n_steps: the number of steps is unknown")
    seqs = [x[t - lo: t - lo + steps] for x, taps, lo in seq_parts for t in taps]
    # outputs: states (fed back) and plain ones, in outputs_info order
    states: list[tuple[Tensor, tuple]] = []
    roles: list[tuple[str, int]] = []
    for k, item in enumerate(info):
        if item is None:
            roles.append(("plain", 0))
            continue
        if isinstance(item, dict):
            if item.get("initial") is None:
                roles.append(("plain", 0))
                continue
            init = C.asarray(item["initial"])
            taps = _taps(item.get("taps"), [-1], f"outputs_info[{k}]")
        else:
            init, taps = C.asarray(item), (-1,)
        if any(t >= 0 for t in taps):
            raise op_error(name, f"outputs_info[{k}]: output taps must be negative, got "
                           f"{list(taps)}")
        lag = -min(taps)
        if lag == 1:  # the initial value is the state itself
            init = S.reshape(init, (1, *init.shape))
        else:
            rows = init.shape[0] if init.ndim else 0
            if type(rows) is Dim and rows.bounds()[0] < lag:  # (checked at each call)
                require("le", lag, rows, name)
            elif init.ndim == 0 or rows < lag:
                raise op_error(name, f"outputs_info[{k}]: taps {list(taps)} need an initial "
                               f"value with at least {lag} rows, got shape {init.shape}",
                               (init.node,))
            init = S.get_slice(init, ((rows - lag, rows, 1),) +  # (its last lag rows:
                               tuple((0, d, 1) for d in init.shape[1:]))  # rows >= lag)
        roles.append(("state", len(states)))
        states.append((init, taps))
    n_state = len(states)
    n_seq = len(seqs)
    stop: list = []
    if truncate_gradient >= 0:  # (whether a step is among the last k: a sequence only
        strict = True           # the wrapper sees)
        seqs.append(size_range(steps) >= C.tensor(steps) - int(truncate_gradient))

    def body(*args):
        if truncate_gradient >= 0:
            kept, args = args[n_seq], args[:n_seq] + args[n_seq + 1:]
            args = [C.where(kept, a, C.stop_gradient(a)) if a.dtype.kind == "f" else a
                    for a in args]
        res, cond = _split_until(fn(*args))
        stop[:] = [] if cond is None else [cond.condition]
        if len(res) < len(roles):
            raise op_error(name, f"the step function returned {len(res)} outputs, but "
                           f"outputs_info has {len(roles)} entries")
        roles.extend([("plain", 0)] * (len(res) - len(roles)))
        fed = [r for r, (kind, _) in zip(res, roles) if kind == "state"]
        plain = [r for r, (kind, _) in zip(res, roles) if kind == "plain"]
        return fed + plain + [C.astype(c, np.bool_) for c in stop]

    frame = UpdateFrame()
    STATE.scan_recording.append(frame)
    try:
        outs = build_scan(body, seqs, states, nonseqs, steps, strict=strict, name=name)
    finally:
        STATE.scan_recording.pop()
    updated = list(frame)
    if updated:  # the step assigns shared variables: they become states of the loop
        outs = _with_shared_states(body, updated, seqs, states, nonseqs, steps, strict, name)
    result, p = [], n_state + len(updated)
    for kind, j in roles:
        if kind == "state":
            lag = -min(states[j][1])
            result.append(outs[j][lag:])
        else:
            result.append(outs[p])
            p += 1
    updates = {sv: outs[n_state + i][-1] for i, sv in enumerate(updated)}
    return result, updates, (outs[-1] if stop else None)


def size_range(n: "int | Dim", dtype=np.int64) -> Tensor:
    """``arange(n)`` in ``dtype`` (``n`` may be a symbolic size)."""
    return C.arange(n, dtype=dtype)


def _with_shared_states(body, updated, seqs, states, nonseqs, steps, strict, name):
    """Build the scan again with each shared variable the step assigns as a state
    (initial value: the variable's value before the loop): inside the step, reading the
    variable gives its value at that step, and assigning it gives the next one (Theano's
    scan updates)."""
    n_args = len(seqs) + sum(len(taps) for _, taps in states)
    # (from the value the enclosing trace gives it so far: a random stream drawn before
    # the loop in one jit function continues there, not from its value before the call)
    extra = [(S.reshape(pending(sv), (1, *sv.shape)), (-1,)) for sv in updated]

    def step(*args):
        rows = args[n_args:n_args + len(updated)]
        frame = UpdateFrame()
        STATE.scan_recording.append(frame)
        # reading a variable the step assigns gives its row (its value at that step);
        # another, what the enclosing trace gives
        views = STATE.views
        views.append({**(views[-1] if views else {}), **dict(zip(updated, rows))})
        try:  # (a variable returned: its value as the step reads it, its row)
            res = [Tensor(r.node) if any(r is sv for sv in updated) else r
                   for r in body(*args[:n_args], *args[n_args + len(updated):])]
        finally:
            views.pop()
            STATE.scan_recording.pop()
        for sv in frame:
            if all(sv is not u for u in updated):
                raise op_error(name, "the step function assigns a shared variable only on "
                               "its second trace", (sv.node,))
        n_fed = len(states)
        return res[:n_fed] + [frame.get(sv, row) for sv, row in zip(updated, rows)] + \
            res[n_fed:]

    return build_scan(step, seqs, states + extra, nonseqs, steps, strict=strict, name=name)


def _apply(updates: dict) -> None:
    """Give each shared variable its value after the loop: recorded as an update in jit
    (or an enclosing scan step), assigned lazily in eager code, or symbolically when it
    depends on ``lj.function`` placeholders (the function takes it as an update)."""
    for sv, v in updates.items():
        sv.assign(v)


__all__ = ["scan", "until", "data_dependent", "scan_unapplied", "ScanSpec", "build_scan",
           "size_range", "results_of", "LazyjitError"]
