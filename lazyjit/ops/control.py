"""Control-flow ops: ``scan`` (a loop; :mod:`lazyjit.api.scan`), ``scan_out`` (selects one
result of a multi-result node), ``ifelse`` (evaluates one branch; :mod:`lazyjit.api.ifelse`)
and ``check`` (a run-time guard: an error when a condition computed in the graph fails).

Their NumPy references define the semantics and serve the ``numpy`` backend: the scan
reference interprets the body once per step.  The derivative rules live in
:mod:`lazyjit.scan_grad` (a reverse scan and a forward scan).
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops.registry import OpDef, register
from lazyjit.trace.state import CONTEXT


def run_ifelse(cond, *branches_n):
    """The reference conditional: the ``a`` values if ``cond``, else the ``b`` values
    (the backend computes only the side taken: :func:`lazyjit.trace.gates.gates`)."""
    *branches, n = branches_n
    return tuple(branches[:n] if bool(cond) else branches[n:])


def run_scan(*arrays_spec):
    """The reference loop: ``(S_j..., P_i...)`` from ``(X_k..., init_j..., W_m...)``."""
    *arrays, spec = arrays_spec
    plan = CONTEXT.body_plan(spec, "numpy")
    T, lags = spec.n_steps, spec.lags()
    seqs = arrays[:spec.n_seq]
    inits = arrays[spec.n_seq:spec.n_seq + spec.n_states]
    invs = list(arrays[spec.n_seq + spec.n_states:])
    shapes = spec.result_shapes()
    bufs = []
    for j, (init, lag) in enumerate(zip(inits, lags)):
        o = spec.outputs[j]
        b = np.empty((lag + T, *o.shape), o.dtype)
        b[:lag] = init
        bufs.append(b)
    plains = [np.empty(shape, dt) for shape, dt in shapes[spec.n_states:]]
    for t in range(T):
        row = T - 1 - t if spec.reverse else t  # sequences' and plain outputs' row
        ins = [s[row] for s in seqs]
        for j, taps in enumerate(spec.taps):
            ins += [bufs[j][lags[j] + t + tau] for tau in taps]
        outs = plan.run(ins + invs)
        for j in range(spec.n_states):
            bufs[j][lags[j] + t] = outs[j]
        for i, p in enumerate(plains):
            p[row] = outs[spec.n_states + i]
    res = [b if keep else b[T:T + lag] for b, keep, lag in zip(bufs, spec.keep, lags)]
    return tuple(res + plains)


def _scan_vjp(g, out, *srcs_spec):
    from lazyjit.scan_grad import scan_vjp
    return scan_vjp(g, out, *srcs_spec)


def _scan_jvp(ts, out, *srcs_spec):
    from lazyjit.scan_grad import scan_jvp
    return scan_jvp(ts, out, *srcs_spec)


def _ifelse_vjp(g, out, *srcs_spec):
    from lazyjit.api.ifelse import ifelse_vjp
    return ifelse_vjp(g, out, *srcs_spec)


def _ifelse_jvp(ts, out, *srcs_spec):
    from lazyjit.api.ifelse import ifelse_jvp
    return ifelse_jvp(ts, out, *srcs_spec)


def _select_vjp(g, out, src, i):
    from lazyjit.scan_grad import Parts
    return (Parts.one(src, i, g),)


def _select_jvp(ts, out, src, i):
    return None if ts[0] is None else ts[0].parts[i]


register(OpDef("scan", "loop", run_scan, vjp=_scan_vjp, jvp=_scan_jvp,
               doc="a loop over an inner graph (see lazyjit.api.scan)"))
register(OpDef("ifelse", "branch", run_ifelse, vjp=_ifelse_vjp, jvp=_ifelse_jvp,
               doc="a conditional running one of two inner graphs (see lazyjit.api.ifelse)"))
register(OpDef("scan_out", "select", lambda parts, i: parts[i], vjp=_select_vjp,
               jvp=_select_jvp, doc="result i of a multi-result node"))


def run_check(x, ok, message):
    """The guard: ``x`` itself when every element of ``ok`` is true, else
    ``ValueError(message)`` (what NumPy raises where the condition fails: ``int ** -1``)."""
    if not np.all(ok):
        raise ValueError(message)
    return x


register(OpDef("check", "check", run_check, shape=lambda srcs, message: srcs[0].shape,
               dtype=lambda srcs, message: srcs[0].dtype,
               vjp=lambda g, out, x, ok, message: (g, None),
               jvp=lambda ts, out, x, ok, message: ts[0],
               doc="x, once every element of ok is true (else ValueError(message))"))
