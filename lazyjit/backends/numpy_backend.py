"""The reference backend: interprets a trace node by node with each op's NumPy reference.

No compiler is involved; this defines what every other backend must compute.  Nodes
that only one branch of an ``ifelse`` needs (:func:`lazyjit.trace.gates.gates`) are
interpreted only when that branch is taken.
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops import REGISTRY
from lazyjit.stats import count
from lazyjit.trace.gates import gates
from lazyjit.trace.graph import Trace

name = "numpy"


class Interpreter:
    """A trace prepared for interpretation: one step per non-input node; a conditional's
    step holds the steps of each of its sides."""

    def __init__(self, trace: Trace):
        index = trace.index
        slots = {n: i for i, n in enumerate(trace.inputs)}
        gate = gates(trace)
        self.n_values = len(trace.nodes)
        self.inputs = [index[n] for n in trace.inputs]
        blocks: dict = {None: []}
        for i, n in enumerate(trace.nodes):
            if n in slots:
                continue
            if n.op == "const":
                step = [i, None, np.asarray(n.const_value, n.dtype), (), n.dtype, None, []]
            else:
                opdef = REGISTRY[n.op]
                # a loop's or a conditional's results stay a tuple, for "select" nodes
                dtype = None if opdef.kind in ("loop", "branch") else n.dtype
                sides = None
                if n.op == "ifelse":
                    sides = (blocks.setdefault((n, 0), []), blocks.setdefault((n, 1), []))
                step = [i, opdef.ref, n.arg, tuple(index[s] for s in n.src), dtype, sides, []]
            blocks.setdefault(gate.get(n), []).append(step)
        self.steps = blocks[None]
        self.outputs = [index[n] for n in trace.outputs]
        # values no later step reads are dropped right after their last use (in the
        # order of a run that takes both sides of every conditional)
        flat: list = []

        def flatten(steps):
            for st in steps:
                if st[5] is not None:
                    flatten(st[5][0])
                    flatten(st[5][1])
                flat.append(st)
        flatten(self.steps)
        self.n_steps = len(flat)
        last: dict[int, list] = {}
        for st in flat:
            for s in st[3]:
                last[s] = st
        keep = set(self.outputs)
        for s, st in last.items():
            if s not in keep:
                st[6].append(s)

    def _exec(self, steps, vals) -> None:
        for i, ref, arg, srcs, dtype, sides, frees in steps:
            if ref is None:
                vals[i] = arg
            elif sides is not None:  # ifelse: run the side taken, then pick its values
                taken = 0 if bool(vals[srcs[0]]) else 1
                self._exec(sides[taken], vals)
                k = arg
                picked = srcs[1:1 + k] if taken == 0 else srcs[1 + k:]
                vals[i] = tuple(vals[s] for s in picked)
            else:
                out = ref(*[vals[s] for s in srcs], arg)
                vals[i] = out if dtype is None else np.asarray(out).astype(dtype, copy=False)
            for s in frees:
                vals[s] = None

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        vals: list = [None] * self.n_values
        for i, a in zip(self.inputs, inputs):
            vals[i] = a
        with np.errstate(all="ignore"):
            self._exec(self.steps, vals)
        count("kernels_run", self.n_steps)
        outs = []
        for i in self.outputs:
            a = np.asarray(vals[i], order="C")
            if a.base is not None or a.flags.writeable:
                a = a.copy()
            a.flags.writeable = False
            outs.append(a)
        return outs


def compile(trace: Trace) -> Interpreter:  # noqa: A001 - the backend interface name
    return Interpreter(trace)
