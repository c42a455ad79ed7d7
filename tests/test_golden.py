"""Golden snapshots of the C that the ``cpu`` backend generates (tinygrad's process replay).

Each case below builds a small canonical computation from the public API, takes the trace
the ``cpu`` backend would be handed to compile (after the rewrites, and after ``lj.grad``'s
deferred gradients are expanded), and renders it with
:func:`lazyjit.backends.cpu.backend.generate`, which compiles nothing.  The module's source
(without the prelude: includes, vector-math and BLAS declarations), its parameter table
and the program's memory plan (the block of each buffer slot, the blocks' sizes, the
donors, whether a kernel may fail) are compared with ``tests/golden/<case>.c``, the
table and the plan being its trailing comments.

What a snapshot is for: a refactor of the compiler that should not change the generated
code (issue 12: a backend-neutral kernel IR) shows here, kernel by kernel, the moment it
does.  A change that is meant to change the code re-records the snapshots on purpose,
and the diff of ``tests/golden/`` is then part of the review::

    LAZYJIT_RECORD_GOLDEN=1 python -m pytest tests/test_golden.py

Snapshots do not depend on the machine or on the tests run before:

* the flags that shape the code are pinned (``backend=cpu``, ``optimizer=o4``,
  ``conv_algo``), whatever ``LAZYJIT_FLAGS`` says;
* the number of cores: the convolutions' workspaces and the column split of reductions
  over outer axes are sized for ``lazyjit.backends.cpu.kernels.MAX_THREADS`` threads
  (``os.cpu_count()``), a number that lands in the parameter table; it is pinned to
  :data:`THREADS` here;
* the prelude (which lists the libmvec functions found and the BLAS pointer types) is
  left out; BLAS is reached through the module's ``lj_sgemm`` / ``lj_dgemm`` pointers,
  set at load time, so the source is the same with or without it; no path or compiler
  flag is part of the source;
* the plan cache is emptied for each case (a trace compiled earlier would never reach
  the backend) and every case builds its tensors from fresh arrays.
"""
from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import textwrap
from collections import OrderedDict

import numpy as np
import pytest

import lazyjit as lj
import lazyjit.nn.functional as F
from lazyjit.backends.cpu import backend as cpu
from lazyjit.backends.cpu import kernels
from lazyjit.schedule.lower import lower

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
RECORD = os.environ.get("LAZYJIT_RECORD_GOLDEN", "") not in ("", "0")
THREADS = 4  # kernels.MAX_THREADS while generating (it is os.cpu_count() otherwise)
_realize = importlib.import_module("lazyjit.engine.realize")  # (lj.realize is the function)


class _Captured(Exception):
    """Raised by the stand-in compile once it holds the trace (nothing is compiled)."""


def _rand(rng, *shape, dtype=np.float32) -> lj.Tensor:
    return lj.tensor(rng.standard_normal(shape).astype(dtype))


# --- the cases: each returns (outputs computed in one trace, flags to generate with) ---

def elementwise_chain(rng):
    """Transcendentals and a broadcast bias, fused into one kernel."""
    x, b = _rand(rng, 4, 5), _rand(rng, 5)
    return [lj.exp(lj.tanh(x * 2 + b)) + lj.log1p(lj.abs(x)) * lj.sin(b)], {}


def sum_inner(rng):
    """A reduction over the last (contiguous) axis, after an elementwise square."""
    x = _rand(rng, 6, 7)
    return [(x * x).sum(axis=-1)], {}


def sum_outer(rng):
    """A reduction over axis 0 (strided), float64."""
    x = _rand(rng, 6, 7, dtype=np.float64)
    return [x.sum(axis=0)], {}


def max_reduce(rng):
    """A max reduction over a middle axis."""
    x = _rand(rng, 3, 4, 5)
    return [lj.max(x, axis=1)], {}


def multi_output(rng):
    """Two elementwise outputs sharing a subexpression."""
    x, y = _rand(rng, 8, 3), _rand(rng, 8, 3)
    s = lj.exp(x) + y
    return [s * 2, lj.sqrt(lj.abs(s)) - 1], {}


def gemm_bias(rng):
    """``x @ w + b``: the specialize rule makes one GEMM with the bias as BLAS's C."""
    x, w, b = _rand(rng, 8, 16), _rand(rng, 16, 4), _rand(rng, 4)
    return [x @ w + b], {}


def batched_matmul(rng):
    x, w = _rand(rng, 3, 4, 5), _rand(rng, 3, 5, 6)
    return [x @ w], {}


def gather(rng):
    """Integer indexing of rows (a take along axis 0, with its bounds check)."""
    x = _rand(rng, 10, 3)
    idx = lj.tensor(np.array([3, 0, 9, 3], dtype=np.int64))
    return [x[idx] * 2], {}


def scatter_add(rng):
    """``inc_subtensor`` at integer indices, repeated ones included (a put_add)."""
    x, v = _rand(rng, 10, 3), _rand(rng, 4, 3)
    idx = lj.tensor(np.array([1, 4, 1, 7], dtype=np.int64))
    return [lj.inc_subtensor(x[idx], v)], {}


def set_subtensor_slice(rng):
    x, v = _rand(rng, 6, 4), _rand(rng, 2, 4)
    return [lj.set_subtensor(x[1:3], v * 3)], {}


def scan_ring(rng):
    """A forward RNN of which only ``h[-1]`` is read: the state's rows live in a ring."""
    xs, w, u, h0 = _rand(rng, 7, 3), _rand(rng, 3, 4), _rand(rng, 4, 4), _rand(rng, 4)
    h, _ = lj.scan(lambda x, h: lj.tanh(x @ w + h @ u), sequences=xs, outputs_info=h0)
    return [h[-1]], {}


def scan_scalar(rng):
    """``h = 0.5 * h + x_t`` on a scalar state: the loop carries it in a local (``C0``)."""
    xs = _rand(rng, 8)
    h, _ = lj.scan(lambda x, h: 0.5 * h + x, sequences=xs, outputs_info=lj.zeros((), "float32"))
    return [h], {}


def scan_taps(rng):
    """A state with taps ``[-2, -1]`` (a Fibonacci-like recurrence), all rows read."""
    init = _rand(rng, 2, 3)
    y, _ = lj.scan(lambda a, b: a + 0.5 * b, outputs_info=[dict(initial=init, taps=[-2, -1])],
                   n_steps=6)
    return [y], {}


def ifelse(rng):
    x, y = _rand(rng, 5), _rand(rng, 5)
    return [lj.ifelse(x.sum() > 0, x * 2, lj.exp(y))], {}


def conv2d_gemm(rng):
    """im2col + GEMM, float32 (padding 1) and float64 in one module: each dtype's
    helpers once, the shared ones once."""
    x, w = _rand(rng, 2, 3, 8, 8), _rand(rng, 4, 3, 3, 3)
    xd, wd = _rand(rng, 1, 2, 5, 5, dtype=np.float64), _rand(rng, 2, 2, 3, 3, dtype=np.float64)
    return [F.conv2d(x, w, padding=1), F.conv2d(xd, wd, stride=2)], {"conv_algo": "gemm"}


def conv2d_direct_grid(rng):
    """Direct loops, stride 1: the zero-padded grid with one long loop per kernel tap."""
    x, w = _rand(rng, 2, 3, 8, 8), _rand(rng, 4, 3, 3, 3)
    return [F.conv2d(x, w, padding=1)], {"conv_algo": "direct"}


def conv2d_direct_strided(rng):
    """Direct loops along rows (stride 2), with dilation and groups."""
    x, w = _rand(rng, 2, 4, 9, 9), _rand(rng, 4, 2, 3, 3)
    return [F.conv2d(x, w, stride=2, padding=1, dilation=2, groups=2)], {"conv_algo": "direct"}


def max_pool(rng):
    x = _rand(rng, 2, 3, 7, 7)
    return [F.max_pool2d(x, 3, 2, 1)], {}


def max_pool_grad(rng):
    """The gradient of a pooled sum: the cotangent added at each window's maximum."""
    x = _rand(rng, 1, 2, 6, 6)
    return [lj.grad(F.max_pool2d(x, 2).sum(), x)], {}


def argsort(rng):
    x = _rand(rng, 4, 9)
    return [lj.argsort(x, axis=-1)], {}


def argmax(rng):
    x = _rand(rng, 5, 6)
    return [lj.argmax(x, axis=1)], {}


def sgd_update(rng):
    """``w - 0.1 * g``: an output a kernel may write over its input in place (a donor)."""
    w, g = _rand(rng, 6, 4), _rand(rng, 6, 4)
    return [w - 0.1 * (g * w)], {}


def scan_grad(rng):
    """The gradient of an RNN: a reverse scan over the forward scan's states."""
    xs, w, h0 = _rand(rng, 5, 3), _rand(rng, 3, 3), _rand(rng, 3)
    h, _ = lj.scan(lambda x, h: lj.tanh(x + h @ w), sequences=xs, outputs_info=h0)
    return [lj.grad((h * h).sum(), w)], {}


def scan_of_ifelse(rng):
    """A scan whose body holds an ifelse (a conditional inside a loop body)."""
    xs, h0 = _rand(rng, 6, 3), _rand(rng, 3)
    h, _ = lj.scan(lambda x, h: lj.ifelse(x.sum() > 0, h + x, h * 0.5), sequences=xs,
                   outputs_info=h0)
    return [h], {}


def ifelse_of_scan(rng):
    """An ifelse whose taken side runs a scan (a loop inside a conditional)."""
    xs, h0 = _rand(rng, 4, 3), _rand(rng, 3)
    h, _ = lj.scan(lambda x, h: h * x + 1, sequences=xs, outputs_info=h0)
    return [lj.ifelse(h0.sum() > 0, h[-1], h0)], {}


def put_concat(rng):
    """set_subtensor at integer indices (a put) and a concatenation of strided views."""
    x, v = _rand(rng, 8, 3), _rand(rng, 2, 3)
    idx = lj.tensor(np.array([6, 1], dtype=np.int64))
    y = lj.set_subtensor(x[idx], v)
    return [lj.concatenate([y[::2], x[1::2].T.T * 2], axis=1)], {}


CASES = {f.__name__: f for f in [
    elementwise_chain, sum_inner, sum_outer, max_reduce, multi_output, gemm_bias,
    batched_matmul, gather, scatter_add, set_subtensor_slice, scan_ring, scan_scalar, scan_taps,
    ifelse, conv2d_gemm, conv2d_direct_grid, conv2d_direct_strided, max_pool, max_pool_grad,
    argsort, argmax, sgd_update, scan_grad, scan_of_ifelse, ifelse_of_scan, put_concat]}


# --- generating, recording and comparing ---

@contextlib.contextmanager
def case_trace(name: str, monkeypatch):
    """The trace case ``name`` gives the cpu backend (nothing compiled), inside the flags
    it is generated with."""
    captured = []

    def capture(trace):
        captured.append(trace)
        raise _Captured

    monkeypatch.setattr(_realize, "_PLANS", OrderedDict())  # the trace reaches the backend
    monkeypatch.setattr(kernels, "MAX_THREADS", THREADS)
    monkeypatch.setattr(cpu, "compile", capture)
    with lj.config(backend="cpu", optimizer="o4", conv_algo="guess_once"):
        outputs, flags = CASES[name](np.random.default_rng(0))
        with lj.config(**flags):
            with pytest.raises(_Captured):
                lj.realize(*outputs)
            yield captured[0]


def generated(name: str, monkeypatch) -> str:
    """The snapshot text of case ``name``: the module's source, then its parameter table
    as a C comment."""
    with case_trace(name, monkeypatch) as trace:
        source, params = cpu.generate(trace)
        prog = lower(trace, cpu.target())
    wrap = lambda text: textwrap.fill(text, 96, initial_indent="   ",  # noqa: E731
                                      subsequent_indent="   ")
    plan = (f"blocks {prog.block}; bytes {prog.block_bytes}; donors {prog.donors}; "
            f"may fail {prog.may_fail}; messages {len(prog.messages)}")
    return (f"{source}/* params:\n{wrap(', '.join(map(str, params)))}\n*/\n"
            f"/* memory plan:\n{wrap(plan)}\n*/\n")


def _diff(expected: str, actual: str, path: str, limit: int = 60) -> str:
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                      f"{path} (recorded)", "generated now", n=2,
                                      lineterm=""))
    more = f"\n... ({len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + more


@pytest.mark.parametrize("name", list(CASES))
def test_golden(name, monkeypatch):
    actual = generated(name, monkeypatch)
    path = os.path.join(GOLDEN, f"{name}.c")
    rel = os.path.relpath(path, os.path.dirname(GOLDEN))
    if RECORD:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(actual)
        return
    if not os.path.exists(path):
        pytest.fail(f"no snapshot tests/{rel}: record it with LAZYJIT_RECORD_GOLDEN=1 "
                    "python -m pytest tests/test_golden.py")
    with open(path, newline="") as f:
        expected = f.read()
    if actual != expected:
        pytest.fail(f"the generated C of case {name!r} differs from its snapshot:\n"
                    f"{_diff(expected, actual, 'tests/' + rel)}\n"
                    "If the change is meant, re-record on purpose with "
                    "LAZYJIT_RECORD_GOLDEN=1 python -m pytest tests/test_golden.py "
                    "and review the diff of tests/golden/.", pytrace=False)


def test_no_stale_snapshots():
    """Every snapshot file belongs to a case (a renamed case leaves none behind)."""
    stale = sorted(f for f in os.listdir(GOLDEN) if f[:-2] not in CASES) \
        if os.path.isdir(GOLDEN) else []
    assert not stale, f"snapshots of no case in tests/golden/: {stale}"
