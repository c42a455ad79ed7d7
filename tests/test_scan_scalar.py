"""Scans whose states are scalars (one-element rows), on every backend.

The ``cpu`` backend carries such a state between steps in a local variable of the
loop (``lazyjit.backends.cpu.loops._carried``) instead of reading the row the previous
step wrote: these tests check that every step still reads the previous step's value, in
every dtype, with several states that read each other, a state passed through
unchanged, a scalar read by a vector body, backwards, in a ring (only the last row
kept), in a while loop, and through gradients (against finite differences, both modes).
Every value is compared with a NumPy loop written from the specification.  That the
state is carried at all (the code) is pinned by the golden snapshot ``scan_scalar``
(``tests/test_golden.py``); these tests fail on ``cpu`` when the carry goes stale.
"""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import check_grads

# dtype -> (step on NumPy scalars and on lazyjit tensors, tolerance)
STEPS = {
    "float32": (lambda x, h: h * 0.5 + x, 1e-6),
    "float64": (lambda x, h: h * 0.75 - x * x, 1e-12),
    "float16": (lambda x, h: h * 0.5 + x, 2e-3),
    "int32": (lambda x, h: h * 3 + x, 0),
    "int64": (lambda x, h: h * 3 - x, 0),
    "complex64": (lambda x, h: h * (0.5 + 0.25j) + x, 1e-6),
    "bool": (lambda x, h: h != x, 0),
}


def _sequence(rng, dtype: str, n: int) -> np.ndarray:
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-4, 5, n).astype(dtype)
    x = rng.standard_normal(n)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(n)
    return x.astype(dtype)


def _numpy_loop(step, xs: np.ndarray, h0) -> np.ndarray:
    out, h = [], h0
    with np.errstate(over="ignore"):  # (int32 wraps, in NumPy as in lazyjit)
        for x in xs:
            h = np.asarray(step(x, h)).astype(xs.dtype)[()]
            out.append(h)
    return np.array(out, dtype=xs.dtype)


@pytest.mark.parametrize("dtype", list(STEPS))
def test_every_step_reads_the_previous_value(backend, rng, dtype):
    step, tol = STEPS[dtype]
    xs = _sequence(rng, dtype, 37)
    h0 = xs.dtype.type(1)
    ys, _ = lj.scan(lambda x, h: step(x, h).astype(dtype), sequences=lj.tensor(xs),
                    outputs_info=lj.tensor(np.asarray(h0)))
    got = ys.numpy()
    assert got.dtype == xs.dtype and got.shape == (37,)
    np.testing.assert_allclose(got, _numpy_loop(step, xs, h0), rtol=tol, atol=tol)


def test_states_that_read_each_other_and_one_passed_through(backend):
    """``(a, b, c) -> (b, a + b, c)``: each new value from the previous ones, never from a
    value written earlier in the same step; ``c`` is the same row every step."""
    def step(a, b, c):
        return b, a + b, c
    (a, b, c), _ = lj.scan(step, outputs_info=[lj.tensor(np.int64(0)), lj.tensor(np.int64(1)),
                                               lj.tensor(np.int64(7))], n_steps=40)
    lj.realize(a, b, c)
    fib = [0, 1]
    for _ in range(41):
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(a.numpy(), fib[1:41])
    np.testing.assert_array_equal(b.numpy(), fib[2:42])
    np.testing.assert_array_equal(c.numpy(), np.full(40, 7))


def test_a_scalar_state_read_by_a_vector_body(backend, rng):
    """The scalar broadcast against a row: the body's kernels are not one-element."""
    xs, v = rng.standard_normal((9, 5)), rng.standard_normal(5)
    ys, _ = lj.scan(lambda x, h: lj.tanh((h * lj.tensor(v) + x).sum()), sequences=lj.tensor(xs),
                    outputs_info=lj.tensor(np.float64(0.3)))
    expect, h = [], 0.3
    for x in xs:
        h = np.tanh((h * v + x).sum())
        expect.append(h)
    np.testing.assert_allclose(ys.numpy(), expect, rtol=1e-12)


def test_backwards_and_only_the_last_row(backend, rng):
    """go_backwards, and a state of which only ``[-1]`` is read (its rows in a ring)."""
    xs = rng.standard_normal(25)
    ys, _ = lj.scan(lambda x, h: lj.sin(h) + x, sequences=lj.tensor(xs),
                    outputs_info=lj.tensor(np.float64(0.1)), go_backwards=True)
    last, _ = lj.scan(lambda x, h: lj.sin(h) + x, sequences=lj.tensor(xs),
                      outputs_info=lj.tensor(np.float64(0.1)))
    lj.realize(ys, last[-1])
    h, expect = 0.1, []
    for x in xs[::-1]:
        h = np.sin(h) + x
        expect.append(h)
    np.testing.assert_allclose(ys.numpy(), expect, rtol=1e-12)
    h = 0.1
    for x in xs:
        h = np.sin(h) + x
    np.testing.assert_allclose(last[-1].numpy(), h, rtol=1e-12)


def test_a_while_loop_on_a_scalar(backend):
    """Ends inside compiled code (under jit) on the state's new value."""
    @lj.jit
    def collatz_steps(n):
        def body(s):
            n, k = s
            return lj.where(n % 2 == 0, n // 2, 3 * n + 1), k + 1
        # (at most 200 steps: a loop that missed its scalar state's new value ends, and
        # fails; the count is a 2-vector, which the loop does not carry in a local)
        k0 = lj.tensor(np.zeros(2, np.int64))
        return lj.while_loop(lambda s: (s[0] != 1) & (s[1][0] < 200), body, (n, k0))[1][0]

    def steps(n):
        k = 0
        while n != 1:
            n, k = (n // 2 if n % 2 == 0 else 3 * n + 1), k + 1
        return k
    for n in (1, 6, 27, 97):
        assert int(collatz_steps(lj.tensor(np.int64(n))).numpy()) == steps(n)


def test_gradients_through_a_scalar_state(backend):
    """Reverse and forward mode, to second order, against finite differences."""
    def f(xs, h0, a):
        ys, _ = lj.scan(lambda x, h, a: lj.tanh(a * h) + x * h, sequences=xs,
                        outputs_info=h0, non_sequences=a)
        return (ys * ys).sum()
    rng = np.random.default_rng(1)
    check_grads(f, [rng.standard_normal(6) * 0.5, np.array(0.4), np.array(0.9)], order=2)
