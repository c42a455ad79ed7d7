"""Symbolic sizes in graphs (issue 13): placeholders' dimensions are symbols, shapes are
exact expressions over them, what the shape rules assume is checked at each call, and
sizes used as values are exact; values against NumPy on every backend, compile counts
through ``lj.stats()``."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj


def test_theano_first_tutorial_line(backend):
    """``x = T.matrix('x'); y = T.dot(x, W)``: any number of rows; a call with the wrong
    number of columns names dot, the line that built it, the symbol and the sizes."""
    x = lj.matrix("x")
    W = lj.shared(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = lj.dot(x, W)
    assert repr(x.shape) == "(x0, x1)" and repr(y.shape) == "(x0, 3)"
    f = lj.function([x], y)
    compiles = None
    for rows in (1, 2, 7, 30):
        X = np.random.default_rng(rows).standard_normal((rows, 4))
        np.testing.assert_allclose(f(X), X @ W.get_value().astype(np.float64), rtol=1e-12)
        compiles = lj.stats()["compiles"] if compiles is None else compiles
        assert lj.stats()["compiles"] == compiles
    with pytest.raises(lj.LazyjitError, match=r"(?s)dot: the size x1 must equal 4, but at this "
                       r"call x1 is 5 \(x1 is dimension 1 of 'x'\).*test_symbolic.py"):
        f(np.ones((3, 5)))


SIZES = (1, 2, 5, 6)


@pytest.mark.parametrize("name", ["div_sqrt", "sub_half", "arange", "reshape", "slices",
                                  "mean_var", "eye_zeros"])
def test_sizes_as_values(backend, name):
    """``x.shape[0]`` in Python arithmetic stays symbolic, and passed to lazyjit functions
    is a lazy integer: exact at several sizes, 1 included."""
    m = lj.matrix("m", "float32", shape=(None, 3))
    n = m.shape[0]
    exprs = {
        "div_sqrt": (lambda: m / lj.sqrt(n), lambda M, k: M / np.sqrt(k)),
        "sub_half": (lambda: m - n // 2 + (n * 3 + 1), lambda M, k: M - k // 2 + (k * 3 + 1)),
        "arange": (lambda: lj.arange(n) * 2 + lj.arange(1, n + 1, 2).sum(),
                   lambda M, k: np.arange(k) * 2 + np.arange(1, k + 1, 2).sum()),
        "reshape": (lambda: m.reshape(n // 2, -1), lambda M, k: M.reshape(k // 2, -1)),
        "slices": (lambda: m[1:, ::-1][-2:] + m[: n // 2].sum(), lambda M, k:
                   M[1:, ::-1][-2:] + M[: k // 2].sum()),
        "mean_var": (lambda: m.mean(0) + m.var(0), lambda M, k: M.mean(0) + M.var(0)),
        "eye_zeros": (lambda: lj.eye(n) @ m + lj.zeros((n, 3)) + lj.full((n, 1), n),
                      lambda M, k: np.eye(k) @ M + np.zeros((k, 3)) + np.full((k, 1), k)),
    }
    build, ref = exprs[name]
    f = lj.function([m], build())
    for k in SIZES:
        M = np.random.default_rng(k).standard_normal((k, 3)).astype(np.float32)
        try:
            want = ref(M, k)
        except ValueError:  # NumPy refuses it at this size: so does lazyjit, clearly
            with pytest.raises(lj.LazyjitError, match="at this call"):
                f(M)
            continue
        got = f(M)
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-5)


def test_scan_steps_from_a_placeholder(backend):
    k = lj.scalar("k", "int64")
    h0 = lj.vector("h0")
    out, _ = lj.scan(lambda h: h * 2 + 1, outputs_info=h0, n_steps=k)
    assert repr(out.shape) == "(k, h0_0)"
    f = lj.function([h0, k], [out, out.sum() * k])
    for steps in (0, 1, 4):
        h, rows = np.array([1.0, -1.0]), []
        for _ in range(steps):
            h = h * 2 + 1
            rows.append(h)
        want = np.array(rows).reshape(steps, 2)
        got, total = f(np.array([1.0, -1.0]), steps)
        np.testing.assert_array_equal(got, want)
        assert total == want.sum() * steps
    with pytest.raises(lj.LazyjitError, match="must not be negative"):
        f(np.ones(2), -1)


def test_sizes_never_become_python_numbers():
    m = lj.matrix("m")
    with pytest.raises(lj.InconclusiveDimension, match="known only when the function is called"):
        float(m.shape[0])
    with pytest.raises(lj.InconclusiveDimension, match="m0 > 3"):
        if m.shape[0] > 3:
            pass
    with pytest.raises(lj.LazyjitError, match="the size m0 - 1, known only at each call"):
        (lj.ones(3) * (m.shape[0] - 1)).numpy()
    assert m.shape[0] + 1 > m.shape[0] and m.shape[0] >= 0  # known for every size


def test_broadcasting_against_a_symbol_follows_numpy_at_size_1(backend):
    """A symbol meeting a known size must be 1 or that size; both work, as NumPy's."""
    x = lj.matrix("x")
    b = lj.shared(np.arange(3.0))
    f = lj.function([x], x + b)
    np.testing.assert_array_equal(f(np.ones((2, 3))), np.ones((2, 3)) + np.arange(3.0))
    np.testing.assert_array_equal(f(np.ones((2, 1))), np.ones((2, 1)) + np.arange(3.0))
    with pytest.raises(lj.LazyjitError, match=r"the size x1 must be 1 or 3 \(broadcasting\)"):
        f(np.ones((2, 2)))


# ---- @lj.jit: automatic dynamic shapes ---------------------------------------------------

def _sgd_step():
    """A jitted SGD step of a linear model (updates a shared variable), and its NumPy
    reference."""
    W = lj.shared(np.zeros((4, 3)), "W")

    @lj.jit
    def step(x, y):
        loss = ((x @ W - y) ** 2).mean()
        W.assign(W - 0.1 * lj.grad(loss, W))
        return loss

    def ref(Wv, x, y):
        r = x @ Wv - y
        return (r ** 2).mean(), Wv - 0.1 * 2 * x.T @ r / r.size
    return step, W, ref


def test_jit_fifty_batch_sizes_two_traces_no_compiles(backend):
    """50 batch sizes: the function runs in Python twice (its first size, then once over
    a symbolic batch), and sizes after the second compile nothing."""
    step, W, ref = _sgd_step()
    rng = np.random.default_rng(0)
    before = lj.stats()
    after_two = None
    for k, n in enumerate(range(2, 52)):
        x, y = rng.standard_normal((n, 4)), rng.standard_normal((n, 3))
        want_loss, want_W = ref(W.get_value(), x, y)
        np.testing.assert_allclose(float(step(x, y)), want_loss, rtol=1e-12)
        np.testing.assert_allclose(W.get_value(), want_W, rtol=1e-12, atol=1e-15)
        if k == 1:
            after_two = lj.stats()["compiles"]
    now = lj.stats()
    assert now["traces"] - before["traces"] == 2
    assert now["compiles"] == after_two
    x = rng.standard_normal((1, 4))  # a batch of 1: right; one more plan at most
    y = rng.standard_normal((1, 3))
    want_loss, want_W = ref(W.get_value(), x, y)
    np.testing.assert_allclose(float(step(x, y)), want_loss, rtol=1e-12)
    np.testing.assert_allclose(W.get_value(), want_W, rtol=1e-12, atol=1e-15)
    assert lj.stats()["traces"] == now["traces"] and lj.stats()["compiles"] <= after_two + 1


def test_jit_dynamic_option_and_size_dependent_python(backend):
    """dynamic=True traces once for every size; a function that makes a size a Python
    number is traced at each size in automatic mode, and raises with dynamic=True;
    dynamic=False traces every signature."""
    before = lj.stats()["traces"]
    always = lj.jit(lambda x: x * x.shape[0] - x.sum(), dynamic=True)
    for n in (3, 1, 7):
        v = np.arange(float(n))
        np.testing.assert_allclose(always(v).numpy(), v * n - v.sum())
    assert lj.stats()["traces"] - before == 1

    def branchy(x):
        return x * 2 if x.shape[0] > 3 else x - 1
    auto = lj.jit(branchy)
    for n in (2, 5, 3, 6):
        v = np.arange(float(n))
        np.testing.assert_allclose(auto(v).numpy(), v * 2 if n > 3 else v - 1)
    with pytest.raises(lj.InconclusiveDimension, match="x0 > 3"):
        lj.jit(branchy, dynamic=True)(np.ones(4))
    before = lj.stats()["traces"]
    never = lj.jit(lambda x: x + 1, dynamic=False)
    for n in (2, 3, 4):
        np.testing.assert_allclose(never(np.ones(n)).numpy(), np.full(n, 2.0))
    assert lj.stats()["traces"] - before == 3


def test_jit_symbolic_requirements_fall_back_to_exact_traces(backend):
    """x[:n - 3] over a symbolic n needs n >= 3; at n = 2 the signature is traced at its
    size instead, with NumPy's meaning (a negative bound counts from the end)."""
    f = lj.jit(lambda x: x[: x.shape[0] - 3] * 2)
    for n in (5, 6, 2, 9):
        v = np.arange(float(n))
        np.testing.assert_array_equal(f(v).numpy(), v[: n - 3] * 2)
