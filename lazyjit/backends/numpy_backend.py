"""The reference backend: interprets a trace node by node with each op's NumPy reference.

No compiler is involved; this defines what every other backend must compute.
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops import REGISTRY
from lazyjit.stats import COUNTERS
from lazyjit.trace.graph import Trace

name = "numpy"


class Interpreter:
    """A trace prepared for interpretation: one step per non-input node."""

    def __init__(self, trace: Trace):
        index = trace.index
        slots = {n: i for i, n in enumerate(trace.inputs)}
        self.n_values = len(trace.nodes)
        self.inputs = [index[n] for n in trace.inputs]
        self.steps = []
        for i, n in enumerate(trace.nodes):
            if n in slots:
                continue
            if n.op == "const":
                self.steps.append((i, None, np.asarray(n.const_value, n.dtype), (), n.dtype))
            else:
                opdef = REGISTRY[n.op]
                # a loop's results stay a tuple, for the nodes selecting them
                dtype = None if opdef.kind == "loop" else n.dtype
                self.steps.append((i, opdef.ref, n.arg, tuple(index[s] for s in n.src), dtype))
        self.outputs = [index[n] for n in trace.outputs]
        # values no later step reads are dropped right after their last use
        last: dict[int, int] = {}
        for k, (_, _, _, srcs, _) in enumerate(self.steps):
            for s in srcs:
                last[s] = k
        keep = set(self.outputs)
        self.frees = [[] for _ in self.steps]
        for s, k in last.items():
            if s not in keep:
                self.frees[k].append(s)

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        vals: list = [None] * self.n_values
        for i, a in zip(self.inputs, inputs):
            vals[i] = a
        with np.errstate(all="ignore"):
            for (i, ref, arg, srcs, dtype), frees in zip(self.steps, self.frees):
                if ref is None:
                    vals[i] = arg
                else:
                    out = ref(*[vals[s] for s in srcs], arg)
                    vals[i] = out if dtype is None else np.asarray(out).astype(dtype, copy=False)
                for s in frees:
                    vals[s] = None
        COUNTERS["kernels_run"] += len(self.steps)
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
