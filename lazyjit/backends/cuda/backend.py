"""The ``cuda`` backend: one CUDA translation unit per trace, run on a GPU or emulated.

``compile(trace)`` lowers the trace to the kernel IR (:func:`lazyjit.schedule.lower`),
renders its device kernels as CUDA C (:mod:`.render`: sizes, strides and scalars are
kernel parameters, so a new shape compiles nothing) and, with ``cuda_check`` (the
default), compiles the source with NVRTC for every architecture of
:data:`.nvrtc.CHECK_ARCHS`, failing on any warning: a kernel that a GPU would reject
fails on any machine.  With ``cuda_emulate`` the module runs on the CPU
(:mod:`.emulate`); otherwise on the GPU (:mod:`.device`).
"""
from __future__ import annotations

import importlib.util

from lazyjit.backends.cuda import device, emulate, gpu_count, nvrtc
from lazyjit.backends.cuda.render import render, render_program
from lazyjit.config import config
from lazyjit.errors import format_site, op_error
from lazyjit.rewrite import optimize_body
from lazyjit.schedule.lower import Target, lower
from lazyjit.schedule.window import WindowPlan
from lazyjit.trace.graph import Trace

name = "cuda"


def target() -> Target:
    """Window ops are host steps with no scratch of their own (cuDNN, or NumPy's
    reference in emulation)."""
    return Target("cuda", lambda n: WindowPlan(), optimize_body,
                  checks=config.optimizer != "unsafe")


def generate(trace: Trace) -> tuple[str, list[int]]:
    """The CUDA source of ``trace``'s module and its parameter table, without compiling."""
    mod = render_program(lower(trace, target()))
    return render(mod), list(mod.params)


# the complex functions whose libcu++ forms are not NumPy's numbers (measured against
# NumPy on 20,000 values: overflow or 1e8 ulp for the inverse functions at large or tiny
# |z|) and that lazyjit has no CUDA form of its own for yet: refused on cuda (sqrt, log,
# tan, tanh and pow, as bad in libcu++, are lazyjit's own: native/lazyjit_rt.h)
INACCURATE = frozenset(("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"))


def _integer_power(n) -> bool:
    """Whether ``n`` is ``pow`` to a constant integer exponent of magnitude below 100
    (``lj_cpow``'s repeated squaring: NumPy's product, never libcu++'s ``pow``)."""
    if n.op != "pow":
        return False
    e = n.src[1]
    while e.op in ("reshape", "expand", "cast") and e.src:
        e = e.src[0]
    if e.op != "const":
        return False
    v = complex(e.const_value)
    return v.imag == 0 and v.real == int(v.real) and abs(v.real) < 100


def refuse_inaccurate(trace: Trace) -> None:
    """Raise ``NotImplementedError`` naming the first node of ``trace`` (or of a loop body
    in it) that computes a function of :data:`INACCURATE` on complex values, with the
    line that built it: never a number libcu++ gets wrong."""
    stack, seen = list(trace.nodes), set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.op in INACCURATE and n.dtype.kind == "c" and not _integer_power(n):
            where = f"\n(built at)\n{format_site(n.site)}" if n.site else ""
            raise NotImplementedError(
                f"lazyjit: complex {n.op} on the cuda backend: libcu++'s is not accurate "
                "(hundreds of ulp or more, other special values) and lazyjit has no CUDA "
                "form of its own yet; compute it on the cpu backend" + where)
        stack.extend(n.src)
        stack.extend(getattr(n.arg, "outputs", ()))  # (a scan's body)


def compile(trace: Trace):  # noqa: A001 - the backend interface name
    refuse_inaccurate(trace)
    prog = lower(trace, target())
    mod = render_program(prog)
    source = render(mod)
    checks = nvrtc.check(source) if config.cuda_check else []
    try:
        if config.cuda_emulate:
            plan = emulate.Plan(prog, mod, source)
        else:
            if gpu_count() == 0:
                why = "cupy sees no CUDA GPU here" if importlib.util.find_spec("cupy") \
                    else "cupy is not installed (pip install 'lazyjit[cuda]')"
                raise op_error("cuda", f"{why}: LAZYJIT_FLAGS=backend="
                               "cuda,cuda_emulate=true runs the CUDA kernels on the CPU")
            plan = device.Plan(prog, mod, source)
    finally:
        nvrtc.wait(checks)  # (raises the check's error first: NVRTC said why)
    return plan
