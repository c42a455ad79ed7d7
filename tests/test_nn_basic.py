"""``lj.nn.functional``'s dropout, batch_norm, embedding and cross_entropy against NumPy
references (torch's semantics), with gradients against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.nn import functional as B
from gradcheck import check_grads


def _log_softmax(z, axis):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def test_dropout_fraction_scale_eval_and_streams(backend):
    x = np.ones((200, 50), np.float32)
    rs = lj.random.RandomStream(9)
    y = B.dropout(lj.tensor(x), 0.3, stream=rs).numpy()
    kept = (y != 0).mean()
    assert abs(kept - 0.7) < 3 * np.sqrt(0.7 * 0.3 / x.size)
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
    y2 = B.dropout(lj.tensor(x), 0.3, stream=rs).numpy()
    assert not np.array_equal(y, y2)  # the stream advanced
    rs2 = lj.random.RandomStream(9)
    np.testing.assert_array_equal(B.dropout(lj.tensor(x), 0.3, stream=rs2).numpy(), y)
    np.testing.assert_array_equal(B.dropout(lj.tensor(x), 0.3, training=False).numpy(), x)
    a = B.dropout(lj.tensor(x), 0.5).numpy()
    assert not np.array_equal(a, B.dropout(lj.tensor(x), 0.5).numpy())  # default stream
    with pytest.raises(lj.LazyjitError, match="p must be"):
        B.dropout(lj.tensor(x), 1.0)


def test_dropout_is_bit_identical_on_both_backends():
    outs = []
    for be in ("numpy", "cpu"):
        with lj.config(backend=be):
            rs = lj.random.RandomStream(123)
            outs.append(B.dropout(lj.ones((64, 33)), 0.4, stream=rs).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_batch_norm_training_eval_and_running_statistics(backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3, 4, 5))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = lj.shared(np.zeros(3)), lj.shared(np.ones(3))
    y = B.batch_norm(lj.tensor(x), rm, rv, lj.tensor(w), lj.tensor(b), training=True,
                     momentum=0.2).numpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    np.testing.assert_allclose(y, ref * w[:, None, None] + b[:, None, None], rtol=1e-10)
    n = 6 * 4 * 5
    np.testing.assert_allclose(rm.get_value(), 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.get_value(), 0.8 + 0.2 * var * n / (n - 1), rtol=1e-12)
    y = B.batch_norm(lj.tensor(x), rm, rv).numpy()
    m, v = rm.get_value(), rv.get_value()
    np.testing.assert_allclose(y, (x - m[:, None, None]) / np.sqrt(v[:, None, None] + 1e-5),
                               rtol=1e-10)
    with pytest.raises(lj.LazyjitError, match="needs running_mean"):
        B.batch_norm(lj.tensor(x))
    with pytest.raises(lj.LazyjitError, match=r"weight must have shape \(3,\)"):
        B.batch_norm(lj.tensor(x), weight=lj.ones(4), training=True)
    with pytest.raises(lj.LazyjitError, match="must be a shared variable"):  # (an
        B.batch_norm(lj.tensor(x), lj.zeros(3), lj.ones(3), training=True)  # AttributeError)


def test_batch_norm_gradients(backend):
    rng = np.random.default_rng(1)
    check_grads(lambda x, w, b: B.batch_norm(x, weight=w, bias=b, training=True),
                [rng.standard_normal((4, 3, 2)), rng.standard_normal(3),
                 rng.standard_normal(3)], order=1, rtol=1e-4)


def test_embedding_values_and_gradient(backend):
    rng = np.random.default_rng(2)
    W = rng.standard_normal((5, 3))
    idx = np.array([[0, 4, 4], [2, 0, 1]])
    np.testing.assert_array_equal(B.embedding(lj.tensor(idx), lj.tensor(W)).numpy(), W[idx])
    g = lj.grad(lambda w: (B.embedding(lj.tensor(idx), w) ** 2).sum())(lj.tensor(W)).numpy()
    ref = np.zeros_like(W)
    np.add.at(ref, idx, 2 * W[idx])
    np.testing.assert_allclose(g, ref)
    with pytest.raises(lj.LazyjitError, match="integers"):
        B.embedding(lj.tensor([0.5]), lj.tensor(W))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_against_numpy(backend, reduction):
    rng = np.random.default_rng(3)
    z = rng.standard_normal((4, 5, 2, 3))
    t = rng.integers(0, 5, (4, 2, 3))
    lp = _log_softmax(z, 1)
    per = -np.take_along_axis(lp, t[:, None], axis=1)[:, 0]
    want = {"mean": per.mean(), "sum": per.sum(), "none": per}[reduction]
    got = B.cross_entropy(lj.tensor(z), lj.tensor(t), reduction=reduction).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    smooth = 0.9 * per + 0.1 * (-lp.mean(axis=1))
    want = {"mean": smooth.mean(), "sum": smooth.sum(), "none": smooth}[reduction]
    got = B.cross_entropy(lj.tensor(z), lj.tensor(t), reduction, label_smoothing=0.1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_cross_entropy_gradients_and_errors(backend):
    rng = np.random.default_rng(4)
    t = lj.tensor(rng.integers(0, 4, 3))
    check_grads(lambda z: B.cross_entropy(z, t, label_smoothing=0.2),
                [rng.standard_normal((3, 4))], order=2)
    with pytest.raises(lj.LazyjitError, match="reduction"):
        B.cross_entropy(lj.ones((2, 3)), t[:2], reduction="avg")
