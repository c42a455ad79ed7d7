"""Lowering window nodes (convolutions and max-pooling: :mod:`lazyjit.ops.conv`).

The backend's :class:`~lazyjit.schedule.lower.Target` chooses the implementation of each
node and says how much scratch memory it needs (:class:`WindowPlan`); the scratch buffer
is a buffer of the program like any other, so the memory plan reuses it.
"""
from __future__ import annotations

from dataclasses import dataclass

from lazyjit.schedule import ir
from lazyjit.schedule.views import View
from lazyjit.trace.node import Node


@dataclass(frozen=True)
class WindowPlan:
    """A backend's implementation of a window node: ``algo`` (a convolution's, e.g.
    ``gemm``, ``direct`` or ``grid``; None for pooling), scratch of ``per_thread`` elements for
    each of ``threads`` threads plus ``shared`` more (none when ``per_thread`` is 0), and
    ``chunk`` samples per GEMM."""
    algo: str | None = None
    per_thread: int = 0
    shared: int = 0
    threads: int = 1
    chunk: int = 1


def conv_shapes(op: str, a: tuple, b: tuple, out: tuple) -> tuple[tuple, tuple, tuple]:
    """(input, weight, output) shapes of the forward convolution behind convolution op
    ``op`` with operand shapes ``a``, ``b`` and result shape ``out``."""
    if op == "conv2d":
        return a, b, out
    if op == "conv2d_grad_input":
        return out, b, a
    return a, out, b


def shapes(n: Node) -> tuple[tuple, tuple, tuple]:
    """(input, weight, output) shapes of the forward convolution behind node ``n``."""
    return conv_shapes(n.op, n.src[0].shape, n.src[1].shape, n.shape)


def lower_window(s, n: Node) -> View:
    """The kernel of window node ``n`` in lowerer ``s``; returns its result's view."""
    a, b = (s.contiguous(src) for src in n.src)
    dst = s.new_buffer(n.shape, n.dtype)
    if n.size == 0:
        return dst
    plan = s.target.window(n)
    scratch = None
    if plan.per_thread:
        scratch = s.new_buffer((plan.threads * plan.per_thread + plan.shared,), n.dtype)
    s.add(ir.Window(n.op, n.arg, n.src[0] is n.src[1], dst, a, b, plan.algo, scratch,
                    plan.threads, plan.chunk))
    return dst
