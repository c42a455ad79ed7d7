"""Derivatives of scan: the VJP is one reverse scan (back-propagation through time), the
JVP one forward scan (Theano's ``scan`` gradient and ``R_op``).

Notation of :mod:`lazyjit.api.scan`: sequences ``X_k``, states ``S_j`` (taps ``tau``, lag
``L_j``, buffer rows ``L_j + t``), invariants ``W_m``, plain outputs ``P_i``.

**Reverse scan.** It runs ``t = T-1 .. 0`` (a scan with ``reverse`` set, reading and
writing rows in time order, so nothing is copied to reverse it). Its sequences are the
forward sequences, the rows of every state buffer that step ``t`` read (``S_j[L_j + t +
tau]``, stored by the forward scan), the rows it wrote (read instead of recomputed) and
the cotangents of the forward results at step ``t``. Its states are, for each state
``j``, ``L_j`` carries: ``c_j[m]`` holds what steps after ``t`` sent to row ``L_j + t -
m``; and one accumulator per invariant. Step ``t`` recomputes the body's graph at step
``t``, seeds the row ``L_j + t`` with ``gS_j[L_j + t] + c_j[0]`` (and plain outputs with
``gP_i[t]``), back-propagates through the body to get ``d_j[tau]`` for each tap,
``dX_k[t]`` and ``dW_m``, and moves on with ``c_j[m] <- c_j[m+1] + d_j[-(m+1)]``
(``c_j[L_j-1] <- d_j[-L_j]``) and ``acc_m <- acc_m + dW_m``. After step 0 the carries
hold the cotangents of the initial rows. The graph size does not depend on ``T``.

**Forward scan.**  The JVP scan carries each state and its tangent, and reads each
sequence and invariant with its tangent; its body is the body with its tangents pushed
forward (:func:`lazyjit.autodiff.forward.push_tangents`).
"""
from __future__ import annotations

from dataclasses import dataclass

import lazyjit.api.functions as F
from lazyjit.api.scan import build_scan, results_of
from lazyjit.api.tensor import Tensor
from lazyjit.autodiff.reverse import backprop, reached_targets
from lazyjit.autodiff.forward import push_tangents
from lazyjit.errors import op_error
from lazyjit.ops.control import Parts
from lazyjit.ops.registry import apply, attach_rules
from lazyjit.rewrite.canonicalize import slice_of_write
from lazyjit.trace.graph import substitute, toposort
from lazyjit.trace.node import Node


def _rows_after(g: Tensor, lag: int) -> Tensor:
    """``g[lag:]``, without the zero padding a slice's gradient put around it (the user's
    ``outputs[j] = S[lag:]``): its elementwise graph can then move into the body."""
    t = g[lag:]
    v = slice_of_write(t.node)
    return Tensor(v) if v is not None else t


def _bind(spec, xs: list, taps: list, ws: list) -> dict[Node, Node]:
    """The body's placeholders mapped to a derivative body's tensors: one per sequence,
    per (state, tap) and per invariant."""
    mapping = {spec.inputs[k]: x.node for k, x in enumerate(xs)}
    for slots, values in zip(spec.tap_slots(), taps):
        for s, v in zip(slots, values):
            mapping[spec.inputs[s]] = v.node
    for s, w in zip(spec.inv_slots(), ws):
        mapping[spec.inputs[s]] = w.node
    return mapping


def _float(n: Node) -> bool:
    return n.dtype.kind in "fc"


def _reaches(spec, outputs: list[int], inputs: list[int]) -> set[int]:
    """The body inputs (indices) among ``inputs`` that body ``outputs`` depend on."""
    roots = [spec.outputs[i] for i in outputs]
    targets = {spec.inputs[i]: i for i in inputs}
    if not roots or not targets:
        return set()
    return {targets[n] for n in reached_targets(roots, set(targets), set())}


def _active_states(spec, start: set[int], inputs_on: set[int], plain: list[int]
                   ) -> set[int]:
    """States whose derivative may be nonzero, for the VJP (``plain``: plain outputs
    with a cotangent; ``start``: states with a cotangent) — a fixpoint over the taps."""
    slots = spec.tap_slots()
    active = {j for j in start if _float(spec.outputs[j])}
    changed = True
    while changed:
        changed = False
        outs = sorted(active) + [spec.n_states + i for i in plain]
        for j in range(spec.n_states):
            if j not in active and _float(spec.outputs[j]) and _reaches(spec, outs, slots[j]):
                active.add(j)
                changed = True
    return active


def _zeros_rows(x: Tensor) -> Tensor:
    return F.zeros((1, *x.shape[1:]), x.dtype)


@dataclass
class _Flow:
    """Where a scan's cotangents flow (indices into the spec's states, plain outputs,
    sequences and invariants): what its reverse scan carries, reads and returns."""

    active: list[int]  # states whose cotangent may be nonzero (a fixpoint over the taps)
    plain_on: list[int]  # plain outputs with a cotangent
    gs_on: list[int]  # active states whose buffer has a cotangent of its own
    seq_on: list[int]  # floating-point sequences reached
    inv_on: list[int]  # floating-point invariants reached
    acc_on: list[int]  # those whose cotangent a state of the loop accumulates
    prods: list[Node]  # the body's products x @ W_m whose W_m cotangents are one GEMM


def _whole_buffers(spec, out: Tensor, gS: list) -> tuple[list[Tensor], list]:
    """The state buffers with all their rows (the forward scan keeps them unless told
    otherwise: then a scan keeping them is built), and the buffers' cotangents padded
    to all rows."""
    nS, T = spec.n_states, spec.n_steps
    if all(spec.keep):
        return [Tensor(apply("scan_out", (out.node,), j)) for j in range(nS)], gS
    full = results_of("scan", spec.with_keep([True] * nS), out.node.src)[:nS]
    gS = [None if gs is None else gs if spec.keep[j] else
          F.concatenate([F.zeros((T, *gs.shape[1:]), gs.dtype), gs])
          for j, gs in enumerate(gS)]
    return full, gS


def _vjp_flow(spec, gS: list, gP: list) -> "_Flow | None":
    """The states, sequences and invariants the cotangents ``gS`` (of the state buffers)
    and ``gP`` (of the plain outputs) reach; None when they reach no input."""
    nS, nQ = spec.n_states, spec.n_seq
    plain_on = [i for i, gp in enumerate(gP) if gp is not None]
    active = sorted(_active_states(spec, {j for j, gs in enumerate(gS) if gs is not None},
                                   set(), plain_on))
    outs_on = active + [nS + i for i in plain_on]
    seq_on = sorted(k for k in _reaches(spec, outs_on, list(range(nQ)))
                    if _float(spec.inputs[k]))
    inv_slots = list(spec.inv_slots())
    inv_on = sorted(m for m, s in enumerate(inv_slots)
                    if s in _reaches(spec, outs_on, [s]) and _float(spec.inputs[s]))
    if not seq_on and not active and not inv_on:
        return None
    # products x @ W_m by an invariant used only so: their W_m cotangents are summed
    # after the loop as one GEMM, from the per-step x and product cotangents (outputs of
    # the loop); an invariant used otherwise too has its cotangent summed in the loop
    prods, by_gemm = _invariant_gemms(spec, [inv_slots[m] for m in inv_on])
    prods = [p for p in prods if spec.inputs.index(p.src[1]) in by_gemm]
    acc_on = [m for m in inv_on if inv_slots[m] not in by_gemm]
    gs_on = [j for j in active if gS[j] is not None]
    return _Flow(active, plain_on, gs_on, seq_on, inv_on, acc_on, prods)


def _reverse_sequences(spec, flow: _Flow, out: Tensor, seqs, full: list, gS: list,
                       gP: list) -> list[Tensor]:
    """The reverse scan's sequences.  It runs the steps backwards (``reverse`` flipped):
    what is indexed by time (sequences, plain outputs and their cotangents) is read at
    the same row as the forward step read it, with no copy; what is indexed by the step
    (state rows) is reversed when the forward scan itself ran backwards."""
    nS, T, lags = spec.n_states, spec.n_steps, spec.lags()

    def by_step(x: Tensor) -> Tensor:
        return x[::-1] if spec.reverse else x
    rseqs = [x for x in seqs]
    for j, taps in enumerate(spec.taps):  # the rows each step read
        rseqs += [by_step(full[j][lags[j] + tau: lags[j] + tau + T]) for tau in taps]
    rseqs += [gP[i] for i in flow.plain_on]
    rseqs += [by_step(_rows_after(gS[j], lags[j])) for j in flow.gs_on]
    # the rows each step wrote (states) or produced (plain outputs), as stored: the body's
    # derivative graph reads them instead of recomputing them
    rseqs += [by_step(full[j][lags[j]:lags[j] + T]) for j in range(nS)]
    rseqs += [Tensor(apply("scan_out", (out.node,), nS + i)) for i in range(spec.n_plain)]
    return rseqs


def _reverse_states(spec, flow: _Flow, inits, invs) -> list[tuple[Tensor, tuple]]:
    """The reverse scan's states, all zeros at first: the ``L_j`` carries of each active
    state, then an accumulator per invariant summed in the loop."""
    lags = spec.lags()
    rstates = [(_zeros_rows(inits[j]), (-1,)) for j in flow.active for _ in range(lags[j])]
    rstates += [(F.zeros((1, *invs[m].shape), invs[m].dtype), (-1,)) for m in flow.acc_on]
    return rstates


def _next_carries(spec, flow: _Flow, taps: list, carries: dict, ct) -> list[Tensor]:
    """``c_j[m] <- c_j[m+1] + d_j[-(m+1)]`` (``c_j[L_j-1] <- d_j[-L_j]``), with ``d_j[tau]
    = ct(tap tau of state j)`` the step's cotangent of each row it read."""
    lags, new = spec.lags(), []
    for j in flow.active:
        d = {tau: ct(v) for tau, v in zip(spec.taps[j], taps[j])}
        c = carries[j]
        for m in range(lags[j]):
            dm = d.get(-(m + 1))
            nxt = c[m + 1] if m + 1 < lags[j] else None
            new.append(dm if nxt is None else nxt if dm is None else nxt + dm)
    return new


def _reverse_body(spec, flow: _Flow, rseqs: list[Tensor], outer_of: dict[Node, Tensor],
                  left: list[Node]):
    """The reverse scan's step: the body's graph at step ``t`` seeded with the cotangents
    of the rows it wrote, back-propagated to the rows it read, its sequences and its
    invariants.  It fills ``outer_of`` (a placeholder -> its outer sequence) and ``left``
    (the ``x`` of each product by an invariant, as the body saw it)."""
    nQ, nS, lags = spec.n_seq, spec.n_states, spec.lags()
    n_rseq = len(rseqs)

    def body(*args):
        it = iter(args)
        xs = [next(it) for _ in range(nQ)]
        taps = [[next(it) for _ in t] for t in spec.taps]
        gps = {i: next(it) for i in flow.plain_on}
        gss = {j: next(it) for j in flow.gs_on}
        stored = [next(it) for _ in range(nS + spec.n_plain)]
        carries = {j: [next(it) for _ in range(lags[j])] for j in flow.active}
        accs = [next(it) for _ in flow.acc_on]
        ws = list(it)
        outer_of.update({a.node: x for a, x in zip(args[:n_rseq], rseqs)})
        mapping = _bind(spec, xs, taps, ws)
        memo: dict = {}
        fwd = substitute(spec.outputs, mapping, memo)
        # (the products by invariants used only in them: their invariants are no target,
        # so no cotangent flows to them here; the graph is not cut, so that derivatives
        # of this reverse scan, to any order, see how the step depends on them)
        prods = [memo.get(p, p) for p in flow.prods]
        seeds: dict[Node, Tensor] = {}

        def seed(node: Node, ct: Tensor) -> None:
            seeds[node] = ct if node not in seeds else seeds[node] + ct
        for j in flow.active:
            seed(fwd[j], carries[j][0] + gss[j] if j in gss else carries[j][0])
        for i in flow.plain_on:
            seed(fwd[nS + i], gps[i])
        targets = {xs[k].node for k in flow.seq_on} | {ws[m].node for m in flow.acc_on}
        targets |= {v.node for j in flow.active for v in taps[j]}
        targets |= set(prods)
        grads = backprop(seeds, targets, {w.node for w in ws})

        def ct(t: Tensor) -> Tensor:
            v = grads.get(t.node)
            return F.zeros_like(t) if v is None else v
        new = _next_carries(spec, flow, taps, carries, ct)
        new += [a + ct(ws[m]) for a, m in zip(accs, flow.acc_on)]
        extra = []
        for p in prods:  # per step: the product's cotangent, and x unless it is a sequence
            extra.append(ct(Tensor(p)))
            if p.src[0] not in outer_of:
                extra.append(Tensor(p.src[0]))
        left.clear()
        left.extend(p.src[0] for p in prods)
        res = new + [ct(xs[k]) for k in flow.seq_on] + extra
        inputs = set(mapping.values())
        known = {f: r.node for f, r in zip(fwd, stored) if f not in inputs and f.src}
        return [Tensor(n) for n in substitute([r.node for r in res], known)]
    return body


def _cotangents(spec, flow: _Flow, routs: list[Tensor], srcs: list, gS: list,
                outer_of: dict[Node, Tensor], left: list[Node]) -> tuple:
    """The cotangent of each source of the scan from the reverse scan's results: the
    carries after step 0 (those of the initial rows), the accumulators, the sequences'
    rows, and one GEMM per product by an invariant: ``sum_t x_t^T @ g_t``."""
    nQ, nS, T, lags = spec.n_seq, spec.n_states, spec.n_steps, spec.lags()
    invs = srcs[nQ + nS:]
    inv_slots = list(spec.inv_slots())
    cts: list = [None] * len(srcs)
    k = 0
    for j in flow.active:
        rows = [routs[k + m] for m in reversed(range(lags[j]))]  # carry m -> row L-1-m
        k += lags[j]
        gi = rows[0] if len(rows) == 1 else F.concatenate(rows)
        if gS[j] is not None:
            gi = gi + gS[j][:lags[j]]
        cts[nQ + j] = gi
    for m in flow.acc_on:
        cts[nQ + nS + m] = F.reshape(routs[k], invs[m].shape)
        k += 1
    for q in flow.seq_on:
        cts[q] = routs[k]
        k += 1
    for g, x in zip(flow.prods, left):  # sum over steps of x_t^T @ g_t: one GEMM
        gs = routs[k]
        k += 1
        if x in outer_of:
            xs_all = outer_of[x]
        else:
            xs_all = routs[k]
            k += 1
        rows = T * x.shape[0]
        term = F.matmul(F.reshape(xs_all, (rows, x.shape[1])).T, F.reshape(gs, (rows, g.shape[1])))
        m = inv_slots.index(spec.inputs.index(g.src[1]))
        prev = cts[nQ + nS + m]
        cts[nQ + nS + m] = term if prev is None else prev + term
    return tuple(cts)


def _no_while(spec) -> None:
    """Refuse to differentiate a loop that ends on its stop state (its steps are known
    only when it runs): JAX's ``while_loop`` has no reverse mode either."""
    if spec.stop is not None:
        raise op_error("while_loop", "a while_loop inside lj.jit has no derivatives (its "
                       "number of steps is known only as it runs): outside lj.jit, "
                       "lj.while_loop counts the steps first and is differentiable; or use "
                       "lj.fori_loop or lj.scan with a fixed number of steps")


def scan_vjp(g: Parts, out: Tensor, *srcs_spec):
    """The VJP of a scan: one reverse scan (see the module's docstring)."""
    *srcs, spec = srcs_spec
    _no_while(spec)
    nQ, nS = spec.n_seq, spec.n_states
    seqs, inits, invs = srcs[:nQ], srcs[nQ:nQ + nS], srcs[nQ + nS:]
    full, gS = _whole_buffers(spec, out, g.parts[:nS])
    gP = g.parts[nS:]
    flow = _vjp_flow(spec, gS, gP)
    if flow is None:
        return (None,) * len(srcs)
    rseqs = _reverse_sequences(spec, flow, out, seqs, full, gS, gP)
    rstates = _reverse_states(spec, flow, inits, invs)
    outer_of: dict[Node, Tensor] = {}  # body placeholder -> its outer (reversed) sequence
    left: list[Node] = []  # the x of each product, as the body saw it
    body = _reverse_body(spec, flow, rseqs, outer_of, left)
    routs = build_scan(body, rseqs, rstates, list(invs), spec.n_steps,
                       keep=[False] * len(rstates), name="scan (gradient)",
                       reverse=not spec.reverse)
    return _cotangents(spec, flow, routs, srcs, gS, outer_of, left)


def _invariant_gemms(spec, slots: list[int]) -> tuple[list[Node], set[int]]:
    """The body's products ``x @ W`` (both 2-d) of an invariant ``W`` among ``slots`` by a
    float ``x`` that depends on the step, and the slots of the invariants used only so."""
    ph = {spec.inputs[s]: s for s in slots}
    found, other = [], set()
    for n in toposort(list(spec.outputs), set(spec.inputs)):
        for i, s in enumerate(n.src):
            if s not in ph:
                continue
            if n.op == "matmul" and i == 1 and len(n.shape) == 2 and len(s.shape) == 2 \
                    and n.src[0] not in ph and n.dtype.kind in "fc":
                found.append(n)
            else:
                other.add(ph[s])
    for o in spec.outputs:
        if o in ph:
            other.add(ph[o])
    found = list(dict.fromkeys(found))
    return found, {s for s in slots if s not in other}


@dataclass
class _Tangents:
    """Where a scan's tangents flow (indices into its sequences, invariants, states and
    plain outputs): what its forward-derivative scan reads and computes."""

    t_seq: list[int]  # sequences with a tangent
    t_inv: list[int]  # invariants with a tangent
    active: list[int]  # states whose tangent may be nonzero (a fixpoint over the taps)
    plain_on: list[int]  # floating-point plain outputs reached


def _jvp_flow(spec, ts) -> "_Tangents | None":
    """The states and plain outputs the tangents ``ts`` (one per source of the scan, None
    for zero) reach; None when they reach no result."""
    nQ, nS = spec.n_seq, spec.n_states
    t_seq = [k for k in range(nQ) if ts[k] is not None]
    t_inv = [m for m in range(spec.n_inv) if ts[nQ + nS + m] is not None]
    inv_slots = list(spec.inv_slots())
    slots = spec.tap_slots()
    on_inputs = set(t_seq) | {inv_slots[m] for m in t_inv}
    active = {j for j in range(nS) if ts[nQ + j] is not None and _float(spec.outputs[j])}
    changed = True
    while changed:  # states whose tangent may be nonzero: a fixpoint over the taps
        changed = False
        ins = on_inputs | {s for j in active for s in slots[j]}
        for j in range(nS):
            if j not in active and _float(spec.outputs[j]) and _reaches(spec, [j], sorted(ins)):
                active.add(j)
                changed = True
    active = sorted(active)
    ins = sorted(on_inputs | {s for j in active for s in slots[j]})
    plain_on = [i for i in range(spec.n_plain) if _float(spec.outputs[nS + i])
                and _reaches(spec, [nS + i], ins)]
    if not active and not plain_on:
        return None
    return _Tangents(t_seq, t_inv, active, plain_on)


def _forward_body(spec, flow: _Tangents):
    """The forward-derivative scan's step: the body's graph at step ``t`` with the
    tangents of the rows, sequences and invariants it reads pushed forward; it returns
    the states' new rows, then their tangents, then the plain outputs' tangents."""
    nQ, nS = spec.n_seq, spec.n_states

    def body(*args):
        it = iter(args)
        xs = [next(it) for _ in range(nQ)]
        txs = [next(it) for _ in flow.t_seq]
        taps = [[next(it) for _ in t] for t in spec.taps]
        ttaps = {j: [next(it) for _ in spec.taps[j]] for j in flow.active}
        ws = [next(it) for _ in range(spec.n_inv)]
        tws = list(it)
        mapping = _bind(spec, xs, taps, ws)
        fwd = substitute(spec.outputs, mapping)
        seeds = {xs[k].node: tx for k, tx in zip(flow.t_seq, txs)}
        seeds.update({ws[m].node: tw for m, tw in zip(flow.t_inv, tws)})
        for j in flow.active:
            seeds.update({v.node: tv for v, tv in zip(taps[j], ttaps[j])})
        tan = push_tangents(fwd, seeds)

        def tangent(n: Node) -> Tensor:
            v = tan.get(n)
            return F.zeros(n.shape, n.dtype) if v is None else v
        primal = [Tensor(fwd[j]) for j in range(nS)]
        return (primal + [tangent(fwd[j]) for j in flow.active] +
                [tangent(fwd[nS + i]) for i in flow.plain_on])
    return body


def scan_jvp(ts, out: Tensor, *srcs_spec):
    """The JVP of a scan: one forward scan carrying each state and its tangent, reading
    each sequence and invariant with its tangent."""
    *srcs, spec = srcs_spec
    _no_while(spec)
    nQ, nS = spec.n_seq, spec.n_states
    seqs, inits, invs = srcs[:nQ], srcs[nQ:nQ + nS], srcs[nQ + nS:]
    flow = _jvp_flow(spec, ts)
    if flow is None:
        return None
    tseqs = list(seqs) + [ts[k] for k in flow.t_seq]
    states = [(inits[j], spec.taps[j]) for j in range(nS)]
    states += [(ts[nQ + j] if ts[nQ + j] is not None else F.zeros_like(inits[j]), spec.taps[j])
               for j in flow.active]
    nonseqs = list(invs) + [ts[nQ + nS + m] for m in flow.t_inv]
    keep = list(spec.keep) + [spec.keep[j] for j in flow.active]
    outs = build_scan(_forward_body(spec, flow), tseqs, states, nonseqs, spec.n_steps,
                      keep=keep, name="scan (forward derivative)", reverse=spec.reverse)
    parts: list = [None] * (nS + spec.n_plain)
    for k, j in enumerate(flow.active):
        parts[j] = outs[nS + k]
    for k, i in enumerate(flow.plain_on):
        parts[nS + i] = outs[nS + len(flow.active) + k]
    return Parts(parts, out.node)


attach_rules("scan", vjp=scan_vjp, jvp=scan_jvp)
