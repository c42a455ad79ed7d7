"""Control-flow ops: ``scan`` (a loop; :mod:`lazyjit.api.scan`), ``scan_out`` (selects one
result of a multi-result node), ``ifelse`` (evaluates one branch; :mod:`lazyjit.api.ifelse`)
and ``check`` (a run-time guard: an error when a condition computed in the graph fails).

Their NumPy references define the semantics and serve the ``numpy`` backend: the scan
reference interprets the body once per step.  The derivatives of ``ifelse`` are
conditionals of the derivatives (written with the public ``lj.ifelse``); those of
``scan`` (a reverse scan and a forward scan) are built by autodiff itself and attached
by :mod:`lazyjit.autodiff.scan_grad`.  :class:`Parts` holds the cotangents (or tangents) of the
results of a multi-result node.
"""
from __future__ import annotations

import numpy as np

from lazyjit.errors import LazyjitError, check_error
from lazyjit.ops.registry import REGISTRY, F, OpDef, register
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
    if spec.stop is not None:
        return _run_while(plan, arrays, spec)
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


def _run_while(plan, arrays, spec):
    """The reference of a loop that ends on its stop state (at most ``n_steps`` steps):
    each state's last ``lag`` rows, kept as the loop goes."""
    seqs = arrays[:spec.n_seq]
    rows = [list(init) for init in arrays[spec.n_seq:spec.n_seq + spec.n_states]]
    invs = list(arrays[spec.n_seq + spec.n_states:])
    for t in range(spec.n_steps):
        ins = [s[t] for s in seqs]
        for j, taps in enumerate(spec.taps):
            ins += [rows[j][len(rows[j]) + tau] for tau in taps]
        outs = plan.run(ins + invs)
        for j in range(spec.n_states):
            rows[j] = rows[j][1:] + [np.asarray(outs[j])]
        if bool(outs[spec.stop]):
            break
    return tuple(np.array(r, spec.outputs[j].dtype).reshape((len(r), *spec.outputs[j].shape))
                 for j, r in enumerate(rows))


class Parts:
    """Cotangents (or tangents) of the results of a multi-result node: one entry per
    result, ``None`` for zero.  Shaped like the node (``()``) for the autodiff drivers."""

    __slots__ = ("parts", "shape", "dtype")

    def __init__(self, parts, like):
        self.parts = list(parts)
        self.shape, self.dtype = like.shape, like.dtype

    @staticmethod
    def one(src, i: int, g) -> "Parts":
        arg = src.node.arg  # ifelse: the number of results; scan: its spec
        parts = [None] * (arg if isinstance(arg, int) else len(arg.result_shapes()))
        parts[i] = g
        return Parts(parts, src.node)

    def __add__(self, other: "Parts") -> "Parts":
        return Parts([a if b is None else b if a is None else a + b
                      for a, b in zip(self.parts, other.parts)], self)


def _ifelse_vjp(g, out, cond, *branches_n):
    """Into the taken branch only: ``ifelse(c, g, 0)`` for ``a``, ``ifelse(c, 0, g)`` for
    ``b``."""
    *branches, n = branches_n
    a = branches[:n]
    cts: list = [None] * (1 + 2 * n)
    on = [i for i in range(n) if g.parts[i] is not None and a[i].dtype.kind in "fc"]
    if not on:
        return tuple(cts)
    zeros = [F.zeros_like(a[i]) for i in on]
    ga = F.ifelse(cond, [g.parts[i] for i in on], zeros)
    gb = F.ifelse(cond, zeros, [g.parts[i] for i in on])
    for k, i in enumerate(on):
        cts[1 + i], cts[1 + n + i] = ga[k], gb[k]
    return tuple(cts)


def _ifelse_jvp(ts, out, cond, *branches_n):
    """The tangent of the taken branch: ``ifelse(c, ta, tb)``."""
    *branches, n = branches_n
    ta, tb = ts[1:1 + n], ts[1 + n:]
    on = [i for i in range(n) if ta[i] is not None or tb[i] is not None]
    if not on:
        return None
    pick = [[t[i] if t[i] is not None else F.zeros_like(branches[i]) for i in on]
            for t in (ta, tb)]
    res = F.ifelse(cond, pick[0], pick[1])
    parts: list = [None] * n
    for k, i in enumerate(on):
        parts[i] = res[k]
    return Parts(parts, out.node)


def _select_vjp(g, out, src, i):
    return (Parts.one(src, i, g),)


def _select_jvp(ts, out, src, i):
    return None if ts[0] is None else ts[0].parts[i]


# A multi-result node (scan, ifelse) has shape () and a dtype that only says whether a
# result is floating point (differentiable); its results, their shapes and dtypes given by
# its op's ``results`` rule, are read by ``scan_out`` nodes.

def _scan_results(srcs, spec) -> list:
    """A loop's results: its state buffers, then its plain outputs (the spec says)."""
    return spec.result_shapes()


def _ifelse_results(srcs, n: int) -> list:
    """A conditional's results: shaped like the ``a`` branch (both branches agree)."""
    return [(s.shape, s.dtype) for s in srcs[1:1 + n]]


def _multi_dtype(results):
    """The dtype of a multi-result node: float64 if any result is floating point."""
    def dtype(srcs, arg) -> np.dtype:
        floating = any(dt.kind in "fc" for _, dt in results(srcs, arg))
        return np.dtype(np.float64 if floating else np.int64)
    return dtype


def _selected(srcs, i: int) -> tuple:
    """The (shape, dtype) of result ``i`` of the multi-result node ``srcs[0]``."""
    owner = srcs[0]
    return REGISTRY[owner.op].results(owner.src, owner.arg)[i]


# the derivatives of a loop are loops over the body's derivatives, built by autodiff
# itself, a layer above: lazyjit.autodiff.scan_grad attaches them (attach_rules)
register(OpDef("scan", "loop", run_scan, shape=lambda srcs, spec: (),
               dtype=_multi_dtype(_scan_results), results=_scan_results,
               doc="a loop over an inner graph (see lazyjit.api.scan)"))
register(OpDef("ifelse", "branch", run_ifelse, shape=lambda srcs, n: (),
               dtype=_multi_dtype(_ifelse_results), results=_ifelse_results,
               vjp=_ifelse_vjp, jvp=_ifelse_jvp,
               doc="a conditional running one of two inner graphs (see lazyjit.api.ifelse)"))
register(OpDef("scan_out", "select", lambda parts, i: parts[i],
               shape=lambda srcs, i: _selected(srcs, i)[0],
               dtype=lambda srcs, i: _selected(srcs, i)[1], vjp=_select_vjp,
               jvp=_select_jvp, doc="result i of a multi-result node"))


def run_check(x, ok, message):
    """The guard: ``x`` itself when every element of ``ok`` is true, else the error
    NumPy raises where the condition fails (``ValueError`` for ``int ** -1``:
    :func:`lazyjit.errors.check_error`)."""
    if not np.all(ok):
        raise check_error(message)
    return x


register(OpDef("check", "check", run_check, shape=lambda srcs, message: srcs[0].shape,
               dtype=lambda srcs, message: srcs[0].dtype,
               vjp=lambda g, out, x, ok, message: (g, None),
               jvp=lambda ts, out, x, ok, message: ts[0],
               doc="x, once every element of ok is true (else check_error(message))"))


def _given_when_made(*args):
    """A ``numpy`` node is never computed: its value is the leaf that records it."""
    raise LazyjitError("a value NumPy computed reached a backend: a bug in lazyjit")


# the computing node of a value NumPy computed from the values of its sources
# (lazyjit.api.interop: a NumPy function lazyjit lacks, run on tensors), made only to
# look for derivative targets below such a value (lazyjit.trace.node.FromNumpy): never
# in a graph that is lowered or differentiated (it has no derivative rule)
register(OpDef("numpy", "numpy", _given_when_made, doc="a value NumPy computed from the "
               "values of its operands (arg: the function's name and a call number)"))
