"""Loops on the ``cpu`` backend: a scan node runs entirely inside the compiled module.

The body's trace is scheduled into kernels of the same module (its sizes and constants
go to the same parameter table), and one loop kernel calls them once per step with a
private buffer table ``Bi``: sequence rows, state rows and invariants are pointers into
the outer buffers, set per step; the body's intermediates are workspace buffers of the
outer program, allocated once per call.  Each body output is computed straight into
its row of the result (state buffer or plain output) when the body's schedule gives it
a buffer of its own, else copied there.  A state not kept whole (only its last ``L``
rows are a result) lives in a ring of ``L + 1`` rows.  No Python runs between steps,
and the source does not depend on the number of steps or on any size.
"""
from __future__ import annotations

import numpy as np

from lazyjit.backends.cpu import kernels as K
from lazyjit.backends.cpu.views import View, c_strides
from lazyjit.rewrite import optimize_body
from lazyjit.trace.node import Node


def _rows_contiguous(v: View) -> bool:
    return all(st == c for st, c, d in zip(v.strides[1:], c_strides(v.shape[1:]), v.shape[1:])
               if d != 1)


def _subprogram(s, trace):
    """Schedule ``trace`` into the module of ``s`` as a group of kernels that the
    current kernel calls itself; returns the schedule and the kernel numbers."""
    from lazyjit.backends.cpu.schedule import Scheduler
    mod = s.mod
    saved, mod.calls = mod.calls, []
    saved_par, mod.par_min = mod.par_min, max(mod.par_min, K.PAR_MIN_LOOP)
    try:
        inner = Scheduler(optimize_body(trace), mod).run()
    finally:
        calls, mod.calls, mod.par_min = mod.calls, saved, saved_par
    return inner, calls


def _table(s, inner, indent: str) -> tuple[list[str], list[int], set[int]]:
    """Declare the buffer table ``Bi`` of a subprogram: workspace buffers are outer
    buffers, except those holding an output alone, which will point at the output's
    destination.  Returns the lines, the output slots and the direct ones."""
    n_in = inner.n_inputs
    out_slots = [slot for slot, _ in inner.outputs]
    direct = {slot for slot in out_slots if slot >= n_in and out_slots.count(slot) == 1}
    lines = [f"{indent}void* Bi[{n_in + len(inner.slots) or 1}];"]
    for i, (shape, dt) in enumerate(inner.slots):
        if n_in + i not in direct:
            w = s.new_buffer(shape, dt)
            lines.append(f"{indent}Bi[{n_in + i}] = B[{w.slot}];")
    return lines, out_slots, direct


def _nbytes(mod, shape, dt) -> str:
    return mod.p(int(np.prod(shape)) * np.dtype(dt).itemsize)


def emit_scan(s, n: Node) -> list[View]:
    """The kernels of scan node ``n``: copies of the initial rows, then the loop."""
    spec, mod = n.arg, s.mod
    nQ, nS, T, lags = spec.n_seq, spec.n_states, spec.n_steps, spec.lags()
    seqs = []
    for src in n.src[:nQ]:
        v = s.materialize(src)
        seqs.append(v if _rows_contiguous(v) else s.contiguous(src))
    invs = [s.contiguous(src) for src in n.src[nQ + nS:]]
    bufs, finals = [], []
    ring = _ring_states(s, n, T)
    for j in range(nS):
        o, lag = spec.outputs[j], lags[j]
        keep = spec.keep[j] and j not in ring
        buf = s.new_buffer((lag + T if keep else lag + 1, *o.shape), o.dtype)
        init = n.src[nQ + j]
        region = buf.slice(((0, lag, 1),) + tuple((0, d, 1) for d in o.shape))
        K.elementwise(mod, region, init.shape, [], init, {init: s.vals[init]})
        bufs.append(buf)
        finals.append(None if keep else s.new_buffer((lag, *o.shape), o.dtype))
    plains = [s.new_buffer((T, *o.shape), o.dtype) for o in spec.outputs[nS:]]

    inner, calls = _subprogram(s, spec.trace())
    p = mod.p
    table, out_slots, direct = _table(s, inner, "  ")
    lines = [*table, f"  const int64_t T = {p(T)};", "  int e = 0;"]
    inv_first = spec.inv_slots().start
    for m, v in enumerate(invs):
        lines.append(f"  Bi[{inv_first + m}] = (char*)B[{v.slot}] + "
                     f"{p(v.offset * v.dtype.itemsize)};")
    rows = []
    for j, buf in enumerate(bufs):
        lines.append(f"  char* S{j} = (char*)B[{buf.slot}]; "
                     f"const int64_t R{j} = {_nbytes(mod, buf.shape[1:], buf.dtype)};")
        ring = "" if finals[j] is None else f" % {lags[j] + 1}"
        rows.append(lambda r, j=j, ring=ring: f"S{j} + (({r}){ring}) * R{j}")
    for i, v in enumerate(plains):
        lines.append(f"  char* Q{i} = (char*)B[{v.slot}]; "
                     f"const int64_t RQ{i} = {_nbytes(mod, v.shape[1:], v.dtype)};")
    step = ["  for (int64_t t = 0; t < T; t++) {",
            f"    const int64_t row = {'T - 1 - t' if spec.reverse else 't'};"]
    for k, v in enumerate(seqs):
        isz = v.dtype.itemsize
        step.append(f"    Bi[{k}] = (char*)B[{v.slot}] + {p(v.offset * isz)} + "
                    f"row * {p(v.strides[0] * isz)};")
    for j, slots in enumerate(spec.tap_slots()):
        for slot, tau in zip(slots, spec.taps[j]):
            step.append(f"    Bi[{slot}] = {rows[j](f'{lags[j]} + t + ({tau})')};")
    dests = [rows[j](f"{lags[j]} + t") for j in range(nS)]
    dests += [f"Q{i} + row * RQ{i}" for i in range(len(plains))]
    sizes = [f"R{j}" for j in range(nS)] + [f"RQ{i}" for i in range(len(plains))]
    for slot, dest in zip(out_slots, dests):
        if slot in direct:
            step.append(f"    Bi[{slot}] = {dest};")
    step += [f"    if ((e = k{c}(Bi, P))) return e;" for c in calls]
    for slot, dest, size in zip(out_slots, dests, sizes):
        if slot not in direct:
            step.append(f"    memcpy({dest}, Bi[{slot}], {size});")
    step.append("  }")
    lines += step
    for j, fin in enumerate(finals):
        if fin is not None:
            lines += [f"  for (int64_t r = 0; r < {lags[j]}; r++)",
                      f"    memcpy((char*)B[{fin.slot}] + r * R{j}, {rows[j]('T + r')}, R{j});"]
    lines.append("  (void)e;")
    mod.add("\n".join(lines))
    results = []
    for j, (buf, fin) in enumerate(zip(bufs, finals)):
        if fin is not None and spec.keep[j]:  # the whole buffer, of which only the last
            row = int(np.prod(fin.shape[1:]))  # rows exist (the only ones read)
            fin = View(fin.slot, fin.dtype, -T * row, (lags[j] + T, *fin.shape[1:]),
                       c_strides((lags[j] + T, *fin.shape[1:])))
        results.append(fin if fin is not None else buf)
    return results + plains


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
