"""Rendering control steps to C: a conditional (:class:`~lazyjit.schedule.ir.If`) and a
scan loop (:class:`~lazyjit.schedule.ir.Loop`), which runs entirely inside the module.

A loop kernel calls its body's kernels once per step with a private buffer table
``Bi``: sequence rows, state rows and invariants are pointers into the outer buffers,
set per step; the body's intermediates are the workspace buffers the schedule gave it.
No Python runs between steps.
"""
from __future__ import annotations

import math

from lazyjit.backends.cfamily import ctype
from lazyjit.backends.cpu import kernels as K
from lazyjit.schedule import ir
from lazyjit.schedule.views import row_bytes


def _calls(ks: list[tuple[int, int]], table: str, indent: str) -> list[str]:
    return [f"{indent}if ((e = {K.Module.call(c, table)})) return e;" for c in ks]


def render_if(mod: K.Module, k: ir.If, render_steps) -> None:
    """Each side's kernels, then the kernel testing the condition and calling them."""
    sides = []
    for steps in (k.then, k.orelse):
        saved, mod.calls = mod.calls, []
        render_steps(mod, steps)
        sides.append(mod.calls)
        mod.calls = saved
    cond = k.cond
    mod.add(["  int e = 0;",
             f"  if (*((const uint8_t*)B[{cond.slot}] + {mod.p(cond.offset)})) {{",
             *_calls(sides[0], "B", "    "), "  } else {", *_calls(sides[1], "B", "    "),
             "  }", "  (void)e;"])


def _carried(k: ir.Loop) -> set[int]:
    """The states of loop ``k`` whose step reads the previous row only (tap -1) and
    whose row is one element: carried between steps in a local ``C<j>`` (copied from
    the row written each step) that the body reads instead of the row.  With the
    body's one-element kernels inlined (their zero offsets literal: kernels.elementwise)
    the C compiler keeps the value in a register, so a step does not wait for the
    previous step's store to reach its load (the scalar scan of
    ``benchmarks/scan_steps.py``: 3.3 -> 1.9-2.1 ns a step; jax.lax.scan 2.9-3.0 in the same
    runs)."""
    return {j for j, st in enumerate(k.states)
            if list(st.taps) == [-1] and math.prod(st.buf.shape[1:]) == 1}


def render_loop(mod: K.Module, k: ir.Loop, render_steps) -> None:
    """The body's kernels (each elementwise kernel on one thread unless it is large),
    then the loop kernel."""
    saved, mod.calls = mod.calls, []
    saved_in, mod.in_loop = mod.in_loop, True
    try:
        render_steps(mod, k.body.steps)
    finally:
        calls, mod.calls, mod.in_loop = mod.calls, saved, saved_in
    body, p = k.body, mod.p
    n_in = body.n_inputs
    lines = [f"  void* Bi[{n_in + len(body.slots) or 1}];"]
    lines += [f"  Bi[{slot}] = B[{w.slot}];" for slot, w in k.workspace.items()]
    lines += [f"  const int64_t T = {p(k.n_steps)};", "  int e = 0;"]
    ran = "T"  # (the steps run: fewer for a loop that ends on its stop state)
    if k.stop is not None:
        ran = "ran"
        lines.append("  int64_t ran = T;")
    for m, v in enumerate(k.invs):
        lines.append(f"  Bi[{k.inv_first + m}] = (char*)B[{v.slot}] + "
                     f"{p(v.offset * v.dtype.itemsize)};")
    rows, carried = [], _carried(k)
    for j, st in enumerate(k.states):
        buf = st.buf
        lines.append(f"  char* S{j} = (char*)B[{buf.slot}]; "
                     f"const int64_t R{j} = {p(row_bytes(buf))};")
        ring = "" if st.final is None else f" % {st.lag + 1}"
        rows.append(lambda r, j=j, ring=ring: f"S{j} + (({r}){ring}) * R{j}")
        if j in carried:
            lines.append(f"  {ctype(buf.dtype)} C{j}; "
                         f"memcpy(&C{j}, {rows[j](f'{st.lag} - 1')}, sizeof C{j});")
    for i, v in enumerate(k.collected):
        lines.append(f"  char* Q{i} = (char*)B[{v.slot}]; "
                     f"const int64_t RQ{i} = {p(row_bytes(v))};")
    step = ["  for (int64_t t = 0; t < T; t++) {",
            f"    const int64_t row = {'T - 1 - t' if k.reverse else 't'};"]
    for q, v in enumerate(k.seqs):
        isz = v.dtype.itemsize
        step.append(f"    Bi[{q}] = (char*)B[{v.slot}] + {p(v.offset * isz)} + "
                    f"row * {p(v.strides[0] * isz)};")
    for j, st in enumerate(k.states):
        for slot, tau in zip(st.tap_slots, st.taps):
            row = f"&C{j}" if j in carried else rows[j](f'{st.lag} + t + ({tau})')
            step.append(f"    Bi[{slot}] = {row};")
    dests = [rows[j](f"{st.lag} + t") for j, st in enumerate(k.states)]
    dests += [f"Q{i} + row * RQ{i}" for i in range(len(k.collected))]
    sizes = [f"R{j}" for j in range(len(k.states))] + \
        [f"RQ{i}" for i in range(len(k.collected))]
    out_slots = [slot for slot, _ in body.outputs]
    for slot, dest in zip(out_slots, dests):
        if slot in k.direct:
            step.append(f"    Bi[{slot}] = {dest};")
    step += _calls(calls, "Bi", "    ")
    for slot, dest, size in zip(out_slots, dests, sizes):
        if slot not in k.direct:
            step.append(f"    memcpy({dest}, Bi[{slot}], {size});")
    step += [f"    memcpy(&C{j}, {dests[j]}, sizeof C{j});" for j in carried]
    if k.stop is not None:  # (a while loop: its stop state's new row, one bool byte)
        step.append(f"    if (*(const uint8_t*)({dests[k.stop]})) {{ ran = t + 1; break; }}")
    step.append("  }")
    lines += step
    for j, st in enumerate(k.states):
        if st.final is not None:
            lines += [f"  for (int64_t r = 0; r < {st.lag}; r++)",
                      f"    memcpy((char*)B[{st.final.slot}] + r * R{j}, "
                      f"{rows[j](f'{ran} + r')}, R{j});"]
    lines.append("  (void)e;")
    mod.add(lines)
