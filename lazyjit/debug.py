"""Diagnostics.

``rewrite_summary(fn_or_tensor)`` lists the graph rewrites applied (rule name -> times),
in the order of :data:`lazyjit.rewrite.PIPELINE`.
"""
from __future__ import annotations

from collections import Counter

from lazyjit.rewrite import PIPELINE, TOTAL, rewrite_outputs, summary_of
from lazyjit.trace.graph import collect


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
    from lazyjit.jit import Jitted
    from lazyjit.tensor import Tensor
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
        if any(n.op == "grad" for n in trace.nodes):
            from lazyjit.autodiff import expand_grads
            inputs = set(trace.inputs)
            roots = [expand_grads([n for n in trace.nodes if n not in inputs]).get(node, node)]
        from lazyjit.rewrite import _LAST
        saved, total = _LAST[0], Counter(TOTAL)  # a query: leave the counters as they were
        rewrite_outputs(roots)
        counts, _LAST[0] = _LAST[0], saved
        TOTAL.clear()
        TOTAL.update(total)
        return _ordered(counts)
    raise TypeError(f"lj.debug.rewrite_summary: expected a jitted function or a Tensor, "
                    f"got {type(fn_or_tensor).__name__}")
