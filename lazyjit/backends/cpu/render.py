"""Rendering a :class:`~lazyjit.schedule.ir.Program` as one C module.

Each kernel record becomes one ``LJ_KERNEL int kN(void** B, const int64_t* P, const
int64_t* Q)`` function (:mod:`.kernels`, :mod:`.conv`, :mod:`.sort`, :mod:`.linalg`, :mod:`.loops`;
kernels of the same code share one: :class:`.kernels.Module`), in program order, nested
steps (a conditional's sides, a loop body) before the step that calls them; ``lj_run``
calls the top-level kernels in order and returns the first error.  A large module may
be rendered as several translation units instead (:func:`render_parts`), which the
compiler builds in parallel into one library.  Every size, stride, offset and scalar
constant (and, outside loop bodies, every buffer number) is read from the parameter table
``P``, filled in the order rendered, so the source depends only on the program's
structure.
"""
from __future__ import annotations

from lazyjit.backends.cpu import conv, fft, kernels as K, linalg, loops, sort
from lazyjit.backends.cpu.compiler import prelude
from lazyjit.schedule import ir

_KERNELS = {ir.Elementwise: K.elementwise, ir.Reduce: K.reduce, ir.ArgReduce: K.argreduce,
            ir.Gemm: K.gemm, ir.Gather: K.gather, ir.Scatter: K.scatter, ir.Check: K.check,
            ir.Sort: sort.render, ir.Window: conv.render, ir.Linalg: linalg.render,
            ir.FFT: fft.render}


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
    return prelude() + "".join(module.helpers) + "\n".join(module.funcs) + _lj_run(module)


def render_parts(module: K.Module, n: int) -> list[str]:
    """The module as ``n`` translation units to compile in parallel and link into one
    library with the behaviour of :func:`render`'s: consecutive kernels, about the same
    amount of source in each unit; part 0 also holds ``lj_run``.  Kernels are hidden
    symbols declared in every unit (a loop kernel may call a body's kernel in another)."""
    sizes = [len(f) for f in module.funcs]
    total, bounds, acc = sum(sizes), [0], 0
    for k, size in enumerate(sizes):
        acc += size
        if acc * n >= total * len(bounds) and len(bounds) < n and k + 1 < len(sizes):
            bounds.append(k + 1)
    bounds.append(len(sizes))
    protos = "".join(f"LJ_KERNEL int k{k}(void** restrict B, const int64_t* restrict P, "
                     "const int64_t* restrict Q);\n" for k in range(len(sizes)))
    return [prelude(i) + "".join(module.helpers) + protos +
            "\n".join(module.funcs[bounds[i]:bounds[i + 1]]) + (_lj_run(module) if i == 0 else "")
            for i in range(len(bounds) - 1)]


def _lj_run(module: K.Module) -> str:
    calls = "\n".join(f"  if ((e = {module.call(c)})) return e;" for c in module.calls)
    return f"\nint lj_run(void** B, const int64_t* P) {{\n  int e = 0;\n{calls}\n  return e;\n}}\n"
