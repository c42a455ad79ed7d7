"""Realization: compute pending tensors through the trace cache and a backend.

``realize(*tensors)`` collects the pending subgraph of all given tensors as one trace,
looks its key (xxhash of structure, shapes, dtypes) up in the in-memory plan cache,
builds a plan through the backend only on a miss, runs it, and stores the results.
A realized tensor then refers to a fresh leaf holding its value, so later graphs do not
keep earlier ones alive; its former node stays reachable for ``lj.grad``.
"""
from __future__ import annotations

from collections import OrderedDict

from lazyjit.backends import Executable, get_backend
from lazyjit.config import config
from lazyjit.stats import COUNTERS
from lazyjit.trace.graph import Trace, collect
from lazyjit.trace.node import LazyjitError, Node, format_site

_PLANS: "OrderedDict[tuple, Executable]" = OrderedDict()
_MAX_PLANS = 4096


_KEY_CACHE: list = [None, None]


def backend_key() -> tuple:
    """The flags that change what a plan computes or how it is compiled."""
    version = config._version
    if _KEY_CACHE[0] != version:
        _KEY_CACHE[:] = [version, (config.backend, config.openmp, config.optimizer,
                                   config.compiler, config.cflags)]
    return _KEY_CACHE[1]


def plan_for(trace: Trace) -> Executable:
    """Return the cached plan for ``trace`` or build one (counted in ``lj.stats()``)."""
    key = (trace.key(), backend_key())
    plan = _PLANS.get(key)
    if plan is not None:
        COUNTERS["trace_cache_hits"] += 1
        return plan
    COUNTERS["trace_cache_misses"] += 1
    plan = get_backend(config.backend).compile(trace)
    _PLANS[key] = plan
    if len(_PLANS) > _MAX_PLANS:
        _PLANS.popitem(last=False)
    return plan


def realize(*tensors) -> None:
    """Compute every given tensor that has no value yet, in one trace."""
    nodes = []
    seen = set()
    for t in tensors:
        n = t.node
        if n.buffer is None and n not in seen:
            seen.add(n)
            nodes.append(n)
    if nodes:
        trace = collect(nodes)
        for n in trace.inputs:
            if n.op == "param":
                raise LazyjitError(
                    "cannot compute the value of a tensor traced by lj.jit (its value "
                    "depends on the function's inputs); return it instead, or mark the "
                    "argument static.\n" + format_site(nodes[0].site))
        outs = plan_for(trace).run([n.buffer for n in trace.inputs])
        for n, arr in zip(trace.outputs, outs):
            n.buffer = arr
    for t in tensors:
        if t.node.op != "buffer":
            t._origin = t.node
            t.node = Node.leaf(t.node.buffer)
