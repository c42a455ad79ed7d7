"""Rendering a :class:`~lazyjit.schedule.ir.Program` as one C module.

Each kernel record becomes one ``static int kN(void** B, const int64_t* P)`` function
(:mod:`.kernels`, :mod:`.conv`, :mod:`.sort`, :mod:`.loops`), in program order, nested
steps (a conditional's sides, a loop body) before the step that calls them; ``lj_run``
calls the top-level kernels in order and returns the first error.  Every size, stride,
offset and scalar constant is read from the parameter table ``P``, filled in the order
rendered, so the source depends only on the program's structure.
"""
from __future__ import annotations

from lazyjit.backends.cpu import conv, kernels as K, loops, sort
from lazyjit.backends.cpu.compiler import prelude
from lazyjit.schedule import ir

_KERNELS = {ir.Elementwise: K.elementwise, ir.Reduce: K.reduce, ir.ArgReduce: K.argreduce,
            ir.Gemm: K.gemm, ir.Gather: K.gather, ir.Scatter: K.scatter, ir.Check: K.check,
            ir.Sort: sort.render, ir.Window: conv.render}


def render_steps(mod: K.Module, steps: list) -> None:
    """Append the kernels of ``steps`` (and of the steps nested in them) to ``mod``."""
    for k in steps:
        if isinstance(k, ir.If):
            loops.render_if(mod, k, render_steps)
        elif isinstance(k, ir.Loop):
            loops.render_loop(mod, k, render_steps)
        else:
            _KERNELS[type(k)](mod, k)


def render_program(prog: ir.Program) -> K.Module:
    """The kernels and parameter table of ``prog``."""
    mod = K.Module()
    render_steps(mod, prog.steps)
    return mod


def render(module: K.Module) -> str:
    """The module's whole source: the prelude, helpers, kernels and ``lj_run``."""
    calls = "\n".join(f"  if ((e = k{i}(B, P))) return e;" for i in module.calls)
    return (prelude() + "".join(module.helpers) + "\n".join(module.funcs) +
            f"\nint lj_run(void** B, const int64_t* P) {{\n  int e = 0;\n{calls}\n"
            f"  return e;\n}}\n")
