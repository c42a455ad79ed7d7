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
from lazyjit.errors import op_error
from lazyjit.rewrite import optimize_body
from lazyjit.schedule.lower import Target, lower
from lazyjit.schedule.window import WindowPlan
from lazyjit.trace.graph import Trace

name = "cuda"
# its plans read device buffers and leave their results on the device (see upload)
device_values = True


def upload(array):
    """A host value copied to the device (emulated: the same memory), as a device
    buffer whose host copy ``array`` stays: what a tensor's leaf keeps once a
    computation on this backend has read it."""
    return (emulate.Plan.upload if config.cuda_emulate else device.upload)(array)


def target() -> Target:
    """Window ops are host steps with no scratch of their own (cuDNN, or NumPy's
    reference in emulation)."""
    return Target("cuda", lambda n: WindowPlan(), optimize_body,
                  checks=config.optimizer != "unsafe")


def generate(trace: Trace) -> tuple[str, list[int]]:
    """The CUDA source of ``trace``'s module and its parameter table, without compiling."""
    mod = render_program(lower(trace, target()))
    return render(mod), list(mod.params)


def compile(trace: Trace):  # noqa: A001 - the backend interface name
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
