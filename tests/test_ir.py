"""The kernel IR and its NumPy executor (the ``ir`` backend) as the oracle of schedules.

The program the cpu backend compiles for each golden case (:mod:`test_golden`: its
convolution implementations and scratch buffers included) is executed record by record
by :func:`lazyjit.backends.ir.run_program`, and compiled, and both are compared with the
reference interpreter.  A memory plan that lets two live values share a block, a step
that never writes a value read later, or an in-place write over a read of another
geometry gives wrong numbers or an error there: the executor runs the plan, it does not
recompute it.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_golden import CASES, case_trace

import lazyjit as lj
from lazyjit.backends import ir as ir_backend
from lazyjit.backends import numpy_backend
from lazyjit.backends.cpu import backend as cpu
from lazyjit.rewrite import optimize
from lazyjit.schedule import ir
from lazyjit.schedule.lower import lower
from lazyjit.trace.graph import collect


@pytest.mark.parametrize("name", list(CASES))
def test_cpu_program_executed_by_numpy(name, monkeypatch):
    """The cpu backend's own Program, run by the IR executor, equals the reference."""
    with case_trace(name, monkeypatch) as trace:
        prog = lower(trace, cpu.target())
        inputs = [n.buffer for n in trace.inputs]
        want = numpy_backend.compile(trace).run(inputs)
        got = ir_backend.run_program(prog, inputs)
        module = cpu.render_program(prog)
        source = cpu.render(module)
        compiled = cpu.Program(prog, module, cpu.load(source), source).run(inputs)
    assert len(got) == len(want) == len(compiled)
    for g, c, w in zip(got, compiled, want):
        assert g.shape == c.shape == w.shape and g.dtype == c.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(c, w, rtol=2e-5, atol=2e-5)


def _two_products():
    """``exp(x @ w) + exp(x @ v)``: two GEMM results alive together, then combined."""
    rng = np.random.default_rng(1)
    x, w, v = (rng.standard_normal(s).astype(np.float32) for s in ((4, 5), (5, 3), (5, 3)))
    out = lj.exp(lj.tensor(x) @ lj.tensor(w)) + lj.exp(lj.tensor(x) @ lj.tensor(v))
    with lj.config(optimizer="o4"):
        trace = optimize(collect([out.node]))
    prog = lower(trace, ir_backend.target())
    gemms = [k for k in prog.steps if isinstance(k, ir.Gemm)]
    assert len(gemms) == 2
    return prog, [n.buffer for n in trace.inputs], np.exp(x @ w) + np.exp(x @ v), gemms


def test_memory_plan_is_executed_not_recomputed():
    prog, inputs, want, gemms = _two_products()
    (got,) = ir_backend.run_program(prog, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # a plan that lets the two live products share one block: the second overwrites the
    # first, and the executor shows it
    a, b = (g.dst.slot - prog.n_inputs for g in gemms)
    assert prog.block[a] != prog.block[b]
    block = list(prog.block)
    block[b] = block[a]
    broken = dataclasses.replace(prog, block=block)
    (bad,) = ir_backend.run_program(broken, inputs)
    assert not np.allclose(bad, want, rtol=1e-3, atol=1e-3)


def test_reading_memory_no_step_wrote_gives_nan():
    prog, inputs, want, gemms = _two_products()
    broken = dataclasses.replace(prog, steps=[k for k in prog.steps if k is not gemms[1]])
    (bad,) = ir_backend.run_program(broken, inputs)
    assert np.isnan(bad).all()


def test_a_view_outside_its_buffer_raises():
    prog, inputs, want, gemms = _two_products()
    g = gemms[0]
    outside = dataclasses.replace(g.dst, offset=g.dst.offset + 1000)
    steps = [dataclasses.replace(g, dst=outside) if k is g else k for k in prog.steps]
    with pytest.raises(ValueError, match="size of buffer"):
        ir_backend.run_program(dataclasses.replace(prog, steps=steps), inputs)


def test_in_place_write_over_another_geometry_raises():
    """``exp(x / 10).T + 1`` computed over the block of ``exp(x / 10)``: compiled code
    would read elements it already overwrote; the executor refuses."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = lj.exp(lj.tensor(x) * 0.1).T + 1
    with lj.config(optimizer="o4"):
        trace = optimize(collect([out.node]))
    prog = lower(trace, ir_backend.target())
    first, last = prog.steps
    assert isinstance(first, ir.Elementwise) and isinstance(last, ir.Elementwise)
    (got,) = ir_backend.run_program(prog, [n.buffer for n in trace.inputs])
    np.testing.assert_allclose(got, np.exp(x * 0.1).T + 1, rtol=1e-6)
    block = list(prog.block)
    block[last.dsts[0].slot - prog.n_inputs] = block[first.dsts[0].slot - prog.n_inputs]
    with pytest.raises(ir_backend.ScheduleError, match="also addresses"):
        ir_backend.run_program(dataclasses.replace(prog, block=block),
                               [n.buffer for n in trace.inputs])


def test_kernel_counts_agree_with_cpu(rng):
    """``kernels_run`` counts each kernel of a program once per call, nested ones
    included, on ir as on cpu (a scan of 50 steps: its loop and body kernels once)."""
    a = rng.standard_normal((50, 3)).astype(np.float32)
    counts = {}
    for name in ("ir", "cpu"):
        with lj.config(backend=name):
            x = lj.tensor(a)  # (a new leaf: nothing computed by the other backend)
            ys, _ = lj.scan(lambda r, h: lj.tanh(r + h), sequences=[x],
                            outputs_info=[lj.zeros(3, np.float32)])
            before = lj.stats()["kernels_run"]
            ys.numpy()
            counts[name] = lj.stats()["kernels_run"] - before
    assert counts["ir"] == counts["cpu"] > 1


def test_ir_backend_counts_its_kernels():
    x = lj.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    with lj.config(backend="ir"):
        before = lj.stats()["kernels_run"]
        y = (x * 2 + 1).sum(axis=1)
        np.testing.assert_allclose(y.numpy(), [9.0, 27.0])
        assert lj.stats()["kernels_run"] - before == 1  # one fused reduce kernel
