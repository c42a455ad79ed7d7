"""Lowering a scan node to a :class:`~lazyjit.schedule.ir.Loop`.

The body's trace is rewritten (the target's ``body``) and lowered into a program of its
own, whose buffers are the outer program's: sequence rows, state rows and invariants
are set per step; the body's intermediates are workspace buffers of the outer program
(allocated once per call).  Each body output is computed straight into its row of the
result (state buffer or plain output) when the body gives it a buffer of its own, else
copied there.  A state not kept whole (only its last ``L`` rows are a result, or only
they are read) lives in a ring of ``L + 1`` rows.  Nothing depends on the number of
steps or on any size.
"""
from __future__ import annotations

import numpy as np

from lazyjit.schedule import ir
from lazyjit.schedule.views import View, c_strides
from lazyjit.trace.node import Node


def _rows_contiguous(v: View) -> bool:
    return all(st == c for st, c, d in zip(v.strides[1:], c_strides(v.shape[1:]), v.shape[1:])
               if d != 1)


def lower_scan(s, n: Node) -> list[View]:
    """In lowerer ``s`` (:class:`~lazyjit.schedule.lower.Lowerer`): copies of the
    initial rows, then the loop; returns the scan's result views."""
    spec = n.arg
    nQ, nS, T, lags = spec.n_seq, spec.n_states, spec.n_steps, spec.lags()
    seqs = []
    for src in n.src[:nQ]:
        v = s.materialize(src)
        seqs.append(v if _rows_contiguous(v) else s.contiguous(src))
    invs = [s.contiguous(src) for src in n.src[nQ + nS:]]
    ring = _ring_states(s, n, T)
    tap_slots = spec.tap_slots()
    states = []
    for j in range(nS):
        o, lag = spec.outputs[j], lags[j]
        keep = spec.keep[j] and j not in ring
        buf = s.new_buffer((lag + T if keep else lag + 1, *o.shape), o.dtype)
        init = n.src[nQ + j]
        region = buf.slice(((0, lag, 1),) + tuple((0, d, 1) for d in o.shape))
        s.copy(region, init.shape, init, s.vals[init])
        final = None if keep else s.new_buffer((lag, *o.shape), o.dtype)
        states.append(ir.ScanState(buf, lag, tuple(spec.taps[j]), tuple(tap_slots[j]), final))
    collected = [s.new_buffer((T, *o.shape), o.dtype) for o in spec.outputs[nS:]]
    # the body lowered by a lowerer of the same kind, its failures counted in this program
    body = type(s)(s.target.body(spec.trace()), s.target, s.top).run()
    out_slots = [slot for slot, _ in body.outputs]
    direct = {slot for slot in out_slots if slot >= body.n_inputs and out_slots.count(slot) == 1}
    workspace = {}
    for i, (shape, dt) in enumerate(body.slots):
        if body.n_inputs + i not in direct:
            workspace[body.n_inputs + i] = s.new_buffer(shape, dt)
    s.add(ir.Loop(T, spec.reverse, body, seqs, invs, spec.inv_slots().start, states,
                  collected, workspace, direct, spec.stop))
    results = []
    for j, st in enumerate(states):
        fin = st.final
        if fin is not None and spec.keep[j]:  # the whole buffer, of which only the last
            row = int(np.prod(fin.shape[1:]))  # rows exist (the only ones read)
            fin = View(fin.slot, fin.dtype, -T * row, (lags[j] + T, *fin.shape[1:]),
                       c_strides((lags[j] + T, *fin.shape[1:])))
        results.append(fin if fin is not None else st.buf)
    return results + collected


def _ring_states(s, n: Node, T: int) -> set[int]:
    """The states of scan ``n`` kept whole whose readers only read rows ``>= T`` (their
    last rows: ``h[-1]`` of a forward pass): those live in a ring of ``L + 1`` rows."""
    users = s.users
    outputs = set(s.trace.outputs)

    def lowest(node: Node, offset: int, step: int) -> int:
        """The lowest row of the state buffer read through ``node`` (whose row ``i`` is
        row ``offset + step * i`` of the buffer)."""
        span = min(offset, offset + step * (node.shape[0] - 1))
        if node in outputs:
            return span
        best = 1 << 62
        for u in users.get(node, ()):
            if u.op == "slice":
                start, stop, st = u.arg[0]
                if not range(start, stop, st):
                    continue
                best = min(best, lowest(u, offset + step * start, step * st))
            else:
                best = min(best, span)
        return best

    ring = set()
    for u in users.get(n, ()):
        if u.op == "scan_out" and u.arg < n.arg.n_states and n.arg.keep[u.arg]:
            if u.shape[0] and lowest(u, 0, 1) >= T:
                ring.add(u.arg)
    return ring
