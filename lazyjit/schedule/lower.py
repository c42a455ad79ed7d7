"""Lowering a rewritten trace to a :class:`~lazyjit.schedule.ir.Program`.

One walk over the trace in topological order: fused groups (:mod:`.fusion`) become
elementwise and reduce kernels; movement ops become strided views of materialized
buffers (a copy only when a reshape cannot be expressed with strides); matmul, indexing
and concatenation read views of materialized operands; ``ifelse`` becomes an
:class:`~lazyjit.schedule.ir.If` of the gated nodes' kernels, a scan a
:class:`~lazyjit.schedule.ir.Loop` (:mod:`.loops`).  What only a backend knows (which
convolution implementation, how much scratch it needs) it says through its
:class:`Target`.  The memory plan (:mod:`.memory`) is computed on the result.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lazyjit.errors import LazyjitError, format_site
from lazyjit.trace.gates import gates
from lazyjit.ops import REGISTRY
from lazyjit.ops.linalg import LINALG_FAILURES
from lazyjit.schedule import ir, memory
from lazyjit.schedule.fusion import Fusion
from lazyjit.schedule.loops import lower_scan
from lazyjit.schedule.views import View, gemm_operand
from lazyjit.schedule.window import WindowPlan, lower_window
from lazyjit.trace.graph import Trace
from lazyjit.trace.node import Node
from lazyjit.trace.state import STATE


@dataclass(frozen=True)
class Target:
    """What lowering asks of the backend it lowers for: ``window(node)`` chooses the
    implementation of a convolution or pooling node and the scratch it needs; a loop
    body is lowered by ``body(trace)`` (its rewrites) first; ``checks`` keeps the
    run-time guards of user input (index bounds, ``check`` ops: off at ``unsafe``)."""
    name: str
    window: Callable[[Node], WindowPlan]
    body: Callable[[Trace], Trace]
    checks: bool = True


def expressions(roots: list[Node], leaves: dict) -> tuple[tuple[ir.Expr, ...], dict]:
    """The fused expression computing graph nodes ``roots`` from the nodes of ``leaves``
    (node -> view or constant): the roots' :class:`~lazyjit.schedule.ir.Expr` and the
    leaf map (Expr -> view or constant, in the same order).  An explicit stack: fused
    chains can be long."""
    memo: dict[Node, ir.Expr] = {}
    out: dict[ir.Expr, object] = {}
    for node, value in leaves.items():
        memo[node] = e = ir.Expr("leaf", None, node.dtype)
        out[e] = value
    for root in roots:
        stack = [(root, False)]
        while stack:
            n, ready = stack.pop()
            if n in memo:
                continue
            if ready:
                memo[n] = ir.Expr(n.op, n.arg, n.dtype, tuple(memo[s] for s in n.src))
                continue
            stack.append((n, True))
            stack.extend((s, False) for s in n.src if s not in memo)
    return tuple(memo[r] for r in roots), out


class Lowerer:
    """One walk of a trace, in topological order, appending the steps that compute it
    (``steps``) over buffer slots (``slots``: shape and dtype of each materialized
    value after the ``n_inputs`` inputs); ``vals`` maps each node to its value: a view,
    a constant, or (loops, conditionals) a list of views.  A loop body is lowered by a
    lowerer of its own whose failures go to ``program``, the outer one."""

    def __init__(self, trace: Trace, target: Target, program: ir.Program | None = None):
        self.trace, self.target = trace, target
        # the program the messages and failure flag go to (a loop body's: its outer one)
        self.top = program
        self.steps: list = []
        self.slots: list[tuple[tuple[int, ...], np.dtype]] = []
        self.n_inputs = len(trace.inputs)
        self.vals: dict[Node, object] = {}
        self.users = trace.consumers()
        self.gate = gates(trace)  # nodes computed only when one side of an ifelse is taken
        self.gated: dict[tuple, list[Node]] = {}
        for n in trace.nodes:
            if n in self.gate:
                self.gated.setdefault(self.gate[n], []).append(n)
        self.fusion = Fusion(trace, self.users, self.gate, STATE.generic_sizes)

    # ---- buffers ----
    def new_buffer(self, shape, dtype) -> View:
        self.slots.append((tuple(shape), np.dtype(dtype)))
        return View.contiguous(self.n_inputs + len(self.slots) - 1, np.dtype(dtype), tuple(shape))

    def add(self, kernel) -> None:
        self.steps.append(kernel)

    def copy(self, dst: View, shape, node: Node, value) -> None:
        """``dst = value`` of ``node`` over ``shape`` (an elementwise copy)."""
        self.fused((dst,), shape, [node], {node: value})

    def fused(self, dsts, shape, roots: list[Node], leaves: dict) -> None:
        """``dsts[j] = roots[j]`` over ``shape``, computed from ``leaves``."""
        if math.prod(shape):
            exprs, leaves = expressions(roots, leaves)
            self.add(ir.Elementwise(tuple(dsts), tuple(shape), exprs, leaves))

    def materialize(self, node: Node) -> View:
        """The value of ``node`` as a view of a buffer (copying a constant if needed)."""
        v = self.vals[node]
        if isinstance(v, View):
            return v
        dst = self.new_buffer(node.shape, node.dtype)
        self.copy(dst, node.shape, node, v)
        self.vals[node] = dst
        return dst

    def contiguous(self, node: Node) -> View:
        v = self.materialize(node)
        if v.is_contiguous():
            return v
        dst = self.new_buffer(node.shape, node.dtype)
        self.copy(dst, node.shape, node, v)
        return dst

    def fail(self, message: str | None = None) -> int:
        """Mark the program as able to fail during a call; a ``check`` message gets its
        error number."""
        prog = self.top
        prog.may_fail = True
        if message is None:
            return -1
        prog.messages.append(message)
        return len(prog.messages) - 1

    # ---- the walk ----
    def run(self) -> ir.Program:
        top = self.top is None
        if top:
            self.top = ir.Program([], self.n_inputs, [], [])
        for i, n in enumerate(self.trace.inputs):
            self.vals[n] = View.contiguous(i, n.dtype, n.shape)
        self.walk([n for n in self.trace.nodes if n not in self.gate])
        outputs = []
        for n in self.trace.outputs:
            v = self.vals[n]
            if n in self.trace.inputs:
                outputs.append((v.slot, n.shape))
                continue
            if not (isinstance(v, View) and v.slot >= self.n_inputs and v.offset == 0
                    and v.is_contiguous() and v.slot not in [s for s, _ in outputs]
                    and int(np.prod(self.slots[v.slot - self.n_inputs][0])) == n.size):
                dst = self.new_buffer(n.shape, n.dtype)
                self.copy(dst, n.shape, n, v)
                v = dst
            outputs.append((v.slot, n.shape))
        if not top:
            return ir.Program(self.steps, self.n_inputs, self.slots, outputs)
        prog = self.top
        prog.steps, prog.slots, prog.outputs = self.steps, self.slots, outputs
        return memory.plan(prog)

    def walk(self, nodes: list[Node]) -> None:
        group, fusion = self.fusion.group, self.fusion
        for n in nodes:
            if n in self.vals:
                continue
            if n.op == "const":
                self.vals[n] = ir.Const(n.const_value, n.dtype)
            elif fusion.is_root(n):
                roots = group.get(n)
                if roots is None:
                    self.vals[n] = self.emit(n)
                elif n is roots[-1]:  # a multi-output kernel, emitted at its last root
                    _, leaves = fusion.leaves(roots, self.vals)
                    dsts = tuple(self.new_buffer(r.shape, r.dtype) for r in roots)
                    self.fused(dsts, n.shape, roots, leaves)
                    self.vals.update(zip(roots, dsts))

    def branch(self, n: Node) -> list[View]:
        """``ifelse``: each side's gated nodes and a copy of its values into the results,
        run under a test of the condition."""
        k = n.arg
        cond = self.contiguous(n.src[0])
        outs = [self.new_buffer(x.shape, x.dtype) for x in n.src[1:1 + k]]
        sides = []
        for side, srcs in ((0, n.src[1:1 + k]), (1, n.src[1 + k:])):
            before = dict(self.vals)  # values made inside a side are not valid outside it
            saved, self.steps = self.steps, []
            self.walk(self.gated.get((n, side), []))
            for o, x in zip(outs, srcs):
                self.copy(o, x.shape, x, self.vals[x])
            sides.append(self.steps)
            self.steps = saved
            self.vals = {m: before.get(m, v) for m, v in self.vals.items()}
        self.add(ir.If(cond, sides[0], sides[1]))
        return outs

    def emit(self, n: Node):
        kind = REGISTRY[n.op].kind
        if kind == "movement":
            return self.movement(n)
        if kind in ("elementwise", "reduce"):
            members, leaves = self.fusion.leaves([n], self.vals)
            dst = self.new_buffer(n.shape, n.dtype)
            if kind == "elementwise":
                self.fused((dst,), n.shape, [n], leaves)
                return dst
            src = n.src[0]
            if src not in members:
                leaves = {src: self.vals[src]}
            if math.prod(n.shape):
                (root,), leaves = expressions([src], leaves)
                self.add(ir.Reduce(dst, n.op, n.arg, src.shape, root, leaves, n.dtype))
            return dst
        if kind == "arg":
            dst = self.new_buffer(n.shape, n.dtype)
            if math.prod(n.shape):
                self.add(ir.ArgReduce(dst, n.op, n.arg, self.materialize(n.src[0])))
            return dst
        if kind == "matmul":
            return self.matmul(n)
        if kind == "loop":
            return lower_scan(self, n)
        if kind == "branch":
            return self.branch(n)
        if kind == "window":
            return lower_window(self, n)
        if kind == "sort":
            x = self.contiguous(n.src[0])
            dst = self.new_buffer(n.shape, n.dtype)
            if n.size:
                self.fail()  # its scratch allocation
                self.add(ir.Sort(dst, x, bool(n.arg)))
            return dst
        if kind == "linalg":
            srcs = [self.contiguous(s) for s in n.src]
            dst = self.new_buffer(n.shape, n.dtype)
            if n.size:
                code = self.fail(f"linalg.{n.op}: {LINALG_FAILURES[n.op]}")
                self.fail(f"{n.op}: no LAPACK was found for the cpu backend (lazyjit calls "
                          "the scipy_openblas64_ library that NumPy's wheels ship)")
                self.add(ir.Linalg(n.op, n.arg, dst, *srcs, *([None] * (2 - len(srcs))), code))
            return dst
        if kind == "fft":
            x = self.contiguous(n.src[0])
            dst = self.new_buffer(n.shape, n.dtype)
            if n.size:
                code = self.fail(f"fft: NumPy's pocketfft failed on {n.arg[0]} of shape "
                                 f"{n.src[0].shape}")
                self.add(ir.FFT(n.arg, dst, x, code))
            return dst
        if kind == "select":
            return self.vals[n.src[0]][n.arg]
        if kind == "check":  # the guard, then the value passes through unchanged
            ok = self.contiguous(n.src[1])
            if self.target.checks and n.src[1].size:
                self.add(ir.Check(ok, self.fail(n.arg)))
            return self.vals[n.src[0]]
        if kind in ("deferred", "numpy"):  # (expanded before a plan is built; only
            # looked into for derivatives: never lowered)
            raise LazyjitError(f"a {kind} {n.op!r} node reached the kernel IR lowering "
                               "(a deferred gradient is expanded first, a NumPy value's "
                               "node is never in a graph): a bug in lazyjit\n"
                               + format_site(n.site))
        if kind == "concat":
            dst = self.new_buffer(n.shape, n.dtype)
            start = 0
            for s in n.src:
                sl = tuple((start, start + s.shape[n.arg], 1) if i == n.arg else (0, d, 1)
                           for i, d in enumerate(n.shape))
                self.copy(dst.slice(sl), s.shape, s, self.vals[s])
                start += s.shape[n.arg]
            return dst
        return self.index(n)

    def movement(self, n: Node):
        v = self.vals[n.src[0]]
        if not isinstance(v, View):  # a broadcast constant stays a constant
            return v
        if n.op == "reshape":
            out = v.reshape(n.arg)
            if out is None:
                out = self.contiguous(n.src[0]).reshape(n.arg)
            return out
        if n.op == "permute":
            return v.permute(n.arg)
        if n.op == "expand":
            return v.expand(n.arg)
        return v.slice(n.arg)

    def matmul(self, n: Node) -> View:
        a, b = (self.materialize(s) for s in n.src[:2])
        if n.dtype.kind == "f":
            if gemm_operand(a) is None:
                a = self.contiguous(n.src[0])
            if gemm_operand(b) is None:
                b = self.contiguous(n.src[1])
        dst = self.new_buffer(n.shape, n.dtype)
        if not math.prod(n.shape):
            return dst
        if n.op == "gemm":  # c into the result, then the product added to it
            c = n.src[2]
            self.copy(dst, n.shape, c, self.vals[c])
            self.add(ir.Gemm(dst, a, b, alpha=n.arg, accumulate=True))
            return dst
        nb = len(n.shape) - 2
        if nb > 0 and not any(b.strides[:nb]) and a.is_contiguous() and gemm_operand(b):
            # (..., M, K) @ broadcast (K, N): one GEMM over all rows, not one per batch
            rows = int(np.prod(n.shape[:-1]))
            a2 = View(a.slot, a.dtype, a.offset, (rows, a.shape[-1]), (a.shape[-1], 1))
            b2 = View(b.slot, b.dtype, b.offset, b.shape[-2:], b.strides[-2:])
            self.add(ir.Gemm(dst.reshape((rows, n.shape[-1])), a2, b2))
            return dst
        self.add(ir.Gemm(dst, a, b))
        return dst

    def index(self, n: Node) -> View:
        x = n.src[0]
        checked = self.target.checks
        if n.op == "take":
            dst = self.new_buffer(n.shape, n.dtype)
            src, idx = self.contiguous(x), self.contiguous(n.src[1])
            self.fail()
            if n.size:
                self.add(ir.Gather(dst, src, idx, n.arg, checked))
            return dst
        dst = self.new_buffer(n.shape, n.dtype)
        self.copy(dst, n.shape, x, self.vals[x])
        if n.op in ("put", "put_add"):
            idx, vals = self.contiguous(n.src[1]), self.contiguous(n.src[2])
            self.fail()
            work = n.src[1].size * math.prod(n.shape[:n.arg]) * math.prod(n.shape[n.arg + 1:])
            if work:  # (into an empty axis: every index is out of bounds)
                self.add(ir.Scatter(dst, idx, vals, n.arg, n.op == "put_add", checked))
            return dst
        v = n.src[1]
        region = dst.slice(n.arg)
        if n.op == "set_slice":
            self.copy(region, v.shape, v, self.vals[v])
        elif math.prod(v.shape):  # inc_slice: region = region + v
            # (two leaves even when v is x itself: the region of the copy, and v)
            lx, lv = ir.Expr("leaf", None, x.dtype), ir.Expr("leaf", None, v.dtype)
            total = ir.Expr("add", None, n.dtype, (lx, lv))
            self.add(ir.Elementwise((region,), v.shape, (total,),
                                    {lx: region, lv: self.vals[v]}))
        return dst


def lower(trace: Trace, target: Target) -> ir.Program:
    """Lower a rewritten trace to the kernel IR.

    Parameters
    ----------
    trace : a :class:`~lazyjit.trace.graph.Trace` as the rewrites leave it (its input
        nodes become buffer slots ``0 .. len(trace.inputs) - 1``, in order).
    target : what the backend that will run the program decides itself
        (:class:`Target`).

    Returns
    -------
    A :class:`~lazyjit.schedule.ir.Program` with its memory plan: one output slot per
    trace output, of the output's shape and dtype, C-contiguous.
    """
    return Lowerer(trace, target).run()
