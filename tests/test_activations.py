"""Activations, ``one_hot`` and ``topk`` of ``lazyjit.nn.functional``: values against
their definitions computed with NumPy and SciPy on every backend (NaN, infinities, large
magnitudes, float32 and float64), derivatives against finite differences."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import lazyjit as lj
import lazyjit.nn.functional as nnf

from gradcheck import GradBatch, check_grads
from helpers import assert_same

X = np.array([-60.0, -3.0, -0.5, -0.0, 0.0, 1e-4, 0.7, 2.0, 60.0, np.nan, np.inf, -np.inf])

REFERENCES = {
    "gelu": (nnf.gelu, lambda x: x * 0.5 * (1 + special.erf(x / np.sqrt(2)))),
    "gelu-tanh": (lambda x: nnf.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (nnf.silu, lambda x: x * special.expit(x)),
    "leaky_relu": (nnf.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    "leaky_relu-0.2": (lambda x: nnf.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (nnf.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "elu-2": (lambda x: nnf.elu(x, 2.0),
              lambda x: np.where(x > 0, x, 2 * np.expm1(np.minimum(x, 0)))),
    "log_sigmoid": (nnf.log_sigmoid, special.log_expit),
}


@pytest.mark.parametrize("name", list(REFERENCES))
def test_activations(name, backend, rng):
    fn, ref = REFERENCES[name]
    xs = [X.astype(dt) for dt in ("float64", "float32")]
    xs.append(rng.standard_normal((3, 5)))
    got = [fn(lj.tensor(x)) for x in xs]
    lj.realize(*got)
    for g, x in zip(got, xs):
        with np.errstate(all="ignore"):
            want = ref(x).astype(x.dtype)
        assert_same(g, want)


def test_one_hot(backend):
    idx = np.array([[0, 3, 1], [4, -1, 2]])
    got = nnf.one_hot(lj.tensor(idx), 4)
    want = (idx[..., None] == np.arange(4)).astype(np.float32)
    assert_same(got, want)
    assert_same(nnf.one_hot(lj.tensor(idx[0]), 5, dtype="int32"),
                (idx[0, :, None] == np.arange(5)).astype(np.int32))
    with pytest.raises(lj.LazyjitError, match="must be integers"):
        nnf.one_hot(lj.tensor(np.ones(3)), 4)
    with pytest.raises(lj.LazyjitError, match="positive int"):
        nnf.one_hot(lj.tensor(idx), 0)
    small = np.array([5, 255], np.uint8)  # (classes beyond uint8's range: no wrap)
    assert_same(nnf.one_hot(lj.tensor(small), 300), (small[:, None] == np.arange(300))
                .astype(np.float32))


def test_topk(backend, rng):
    x = rng.standard_normal((4, 7))  # distinct values: one order
    for k, axis, largest in ((3, -1, True), (2, 0, False), (7, 1, True), (0, 1, True)):
        v, i = nnf.topk(lj.tensor(x), k, axis=axis, largest=largest)
        order = np.argsort(-x if largest else x, axis=axis, kind="stable")
        want_i = np.take(order, np.arange(k), axis=axis)
        assert_same(i, want_i)
        assert_same(v, np.take_along_axis(x, want_i, axis=axis))
    ties = np.array([1.0, np.nan, 1.0, 3.0, 1.0, -np.inf])
    v, i = nnf.topk(lj.tensor(ties), 4)
    assert i.numpy().tolist() == [1, 3, 0, 2]  # NaN the largest, ties by index
    v, i = nnf.topk(lj.tensor(ties), 3, largest=False)
    assert i.numpy().tolist() == [5, 0, 2]
    with pytest.raises(lj.LazyjitError, match="k=8 for an axis of size 7"):
        nnf.topk(lj.tensor(x), 8)
    with pytest.raises(lj.LazyjitError, match="axis -5 is out of bounds"):
        nnf.topk(lj.tensor(x), 1, axis=-5)


def test_gradients(backend, rng):
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    cases = [nnf.gelu, lambda x: nnf.gelu(x, approximate="tanh"), nnf.silu,
             lambda x: nnf.leaky_relu(x, 0.1), nnf.elu, nnf.log_sigmoid,
             lambda x: nnf.topk(x, 3, axis=1)[0] ** 2 + nnf.topk(x, 2, 0, largest=False)[0].sum()]
    for i, fn in enumerate(cases):
        x = rng.standard_normal((3, 4)) * 2
        x[np.abs(x) < 0.05] = 0.5  # (away from the kinks at 0)
        check_grads(fn, [x], order, batch=batch, label=f"case{i}")
    batch.run()
