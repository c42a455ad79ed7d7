"""Diagnostics.

``rewrite_summary(fn_or_tensor)`` lists the graph rewrites applied (rule name -> times),
in the order of :data:`lazyjit.rewrite.PIPELINE`; ``check(x, ok, message)`` guards a
value with a condition computed in the graph.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api.tensor import Tensor
from lazyjit.autodiff.reverse import expand_grads, has_deferred
from lazyjit.engine.jit import Jitted
from lazyjit.errors import op_error
from lazyjit.ops import apply
from lazyjit.rewrite import PIPELINE, TOTAL, rewrite_outputs, summary_of
from lazyjit.trace.graph import collect
from lazyjit.trace.state import STATE


def check(x, ok, message: str = "lj.debug.check failed") -> Tensor:
    """``x``, guarded by a condition computed with it: a run-time assertion in the graph
    (as ``tf.debugging.assert_*`` or JAX's ``checkify``).

    Parameters
    ----------
    x : tensor (any shape and dtype): the value passed through.
    ok : boolean tensor of any shape: every element must be true when ``x`` is computed.
    message : the error's text (kept in Python: never part of generated code).

    Returns
    -------
    A tensor equal to ``x`` (its shape and dtype) whose computation checks ``ok`` first;
    derivatives pass through to ``x`` in both modes.

    Raises
    ------
    LazyjitError
        If ``ok`` is not boolean.
    ValueError
        With ``message``, when the result is computed and an element of ``ok`` is false
        (the ``cpu`` backend skips the check at the ``unsafe`` optimizer level, as it
        does index checks).
    """
    x, ok = F.asarray(x), F.asarray(ok)
    if ok.dtype != np.bool_:
        raise op_error("check", f"the condition must be boolean, got {ok.dtype}", (ok.node,))
    return Tensor(apply("check", (x.node, ok.node), str(message)))


def _ordered(counts: Counter) -> dict[str, int]:
    order = {r.name: i for i, r in enumerate(r for p in PIPELINE for r in p.rules)}
    return {k: counts[k] for k in sorted(counts, key=lambda k: order.get(k, len(order)))
            if counts[k]}


def rewrite_summary(fn_or_tensor) -> dict[str, int]:
    """The rewrite rules applied and how often.

    Parameters
    ----------
    fn_or_tensor : a function compiled by ``lj.jit`` (the rules applied to every trace
        it has compiled so far) or a ``Tensor`` (the rules the current ``optimizer``
        level applies to the graph that computes it; realized tensors report the graph
        they were computed from, and leaves report nothing).

    Returns
    -------
    dict of str to int
        Rule name -> number of applications, in pipeline order; rules that did not
        apply are left out.

    Raises
    ------
    TypeError
        For anything but a jitted function or a tensor.
    """
    if isinstance(fn_or_tensor, Jitted):
        total: Counter = Counter()
        for entry in fn_or_tensor._cache.values():
            total.update(summary_of(entry.plan))
        return _ordered(total)
    if isinstance(fn_or_tensor, Tensor):
        node = fn_or_tensor.node
        if node.buffer is not None:
            node = getattr(fn_or_tensor, "_origin", None)
            if node is None:
                return {}
        trace = collect([node])
        roots = [node]
        if has_deferred(trace.nodes):
            inputs = set(trace.inputs)
            roots = [expand_grads([n for n in trace.nodes if n not in inputs]).get(node, node)]
        saved, total = STATE.rewrite_last, Counter(TOTAL)  # a query: leave the counters
        rewrite_outputs(roots)
        counts, STATE.rewrite_last = STATE.rewrite_last, saved
        TOTAL.clear()
        TOTAL.update(total)
        return _ordered(counts)
    raise TypeError(f"lj.debug.rewrite_summary: expected a jitted function or a Tensor, "
                    f"got {type(fn_or_tensor).__name__}")
