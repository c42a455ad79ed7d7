"""lj.nn layers: values against NumPy, parameters and state dicts, train/eval modes, and
training with lj.optim inside a jitted step."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj
from lazyjit import nn


def test_linear_sequential_and_state_dict(backend, rng):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    names = [n for n, _ in model.named_parameters()]
    assert names == ["layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"]
    x = rng.standard_normal((5, 4)).astype(np.float32)
    w1, b1, w2, b2 = (p.get_value() for p in model.parameters())
    np.testing.assert_allclose(model(lj.tensor(x)).numpy(),
                               np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-5, atol=1e-6)
    state = model.state_dict()
    other = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other(lj.tensor(x)).numpy(), model(lj.tensor(x)).numpy())
    with pytest.raises(lj.LazyjitError, match="missing keys"):
        other.load_state_dict({})
    bad = dict(state, **{"layers.0.bias": np.zeros(7, np.float32)})
    with pytest.raises(lj.LazyjitError, match="shape"):
        other.load_state_dict(bad)


def test_training_a_model_with_optim_in_jit(backend, rng):
    """A 2-layer network fits a smooth function; the jitted step updates the parameters
    (shared variables) through the optimizer, the loss falls by 10x."""
    nn.manual_seed(1)
    model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = lj.optim.Adam(model.parameters(), lr=0.02)
    x = np.linspace(-2, 2, 64, dtype=np.float32).reshape(-1, 1)
    y = np.sin(2 * x)

    @lj.jit
    def step(x, y):
        loss = lj.mean((model(x) - y) ** 2)
        opt.step(lj.grad(loss, model.parameters()))
        return loss

    first = float(step(x, y))
    for _ in range(300):
        last = float(step(x, y))
    assert last < first / 10, (first, last)


def test_conv_pool_embedding_lstm(backend, rng):
    conv, pool = nn.Conv2d(2, 3, 3, padding=1), nn.MaxPool2d(2)
    x = lj.tensor(rng.standard_normal((2, 2, 6, 6)).astype(np.float32))
    y = pool(conv(x))
    want = nn.functional.max_pool2d(nn.functional.conv2d(x, conv.weight, conv.bias,
                                                         padding=1), 2)
    assert y.shape == (2, 3, 3, 3)
    np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-6)
    emb = nn.Embedding(10, 4)
    idx = np.array([[1, 9], [0, 1]])
    np.testing.assert_array_equal(emb(lj.tensor(idx)).numpy(), emb.weight.get_value()[idx])
    lstm = nn.LSTM(4, 5)
    xs = rng.standard_normal((3, 2, 4)).astype(np.float32)
    hs, (h, c) = lstm(lj.tensor(xs))
    w, u, b = (p.get_value() for p in lstm.parameters())
    hn, cn = np.zeros((2, 5), np.float32), np.zeros((2, 5), np.float32)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    for t in range(3):
        z = xs[t] @ w + hn @ u + b
        cn = sig(z[:, 5:10]) * cn + sig(z[:, :5]) * np.tanh(z[:, 10:15])
        hn = sig(z[:, 15:]) * np.tanh(cn)
    np.testing.assert_allclose(h.numpy(), hn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), cn, rtol=1e-5, atol=1e-6)


def test_dropout_modes(backend):
    drop = nn.Dropout(0.25, seed=3)
    x = lj.ones((200, 100), "float32")
    y = drop(x).numpy()
    kept = (y != 0).mean()
    sd = np.sqrt(0.25 * 0.75 / y.size)
    assert abs(kept - 0.75) < 3 * sd
    np.testing.assert_allclose(y[y != 0], 1 / 0.75)
    assert not np.array_equal(drop(x).numpy(), y)  # a new mask at each call
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    with pytest.raises(lj.LazyjitError, match="p must be"):
        nn.Dropout(1.0)


def test_batchnorm_train_and_eval(backend, rng):
    bn = nn.BatchNorm1d(3)
    xv = (rng.standard_normal((50, 3)) * [1.0, 2.0, 3.0] + [0.0, 1.0, -1.0]).astype(np.float32)
    y = bn(lj.tensor(xv)).numpy()
    np.testing.assert_allclose(y.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(0), 1, rtol=1e-3)
    state = bn.state_dict()
    np.testing.assert_allclose(state["running_mean"], 0.1 * xv.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state["running_var"], 0.9 + 0.1 * xv.var(0, ddof=1), rtol=1e-5)
    bn.eval()
    want = (xv - state["running_mean"]) / np.sqrt(state["running_var"] + 1e-5)
    np.testing.assert_allclose(bn(lj.tensor(xv)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_jitted_functions_follow_train_and_eval(backend):
    """A mode change makes jitted functions trace again: an evaluation call after
    ``eval()`` uses the running statistics and no dropout, and updates nothing."""
    lj.nn.manual_seed(0)
    drop, bn = lj.nn.Dropout(0.5), lj.nn.BatchNorm2d(1)
    predict = lj.jit(lambda x: drop(bn(x)))
    x = np.full((4, 1, 2, 2), 3.0, np.float32) + np.arange(4, dtype=np.float32)[:, None, None,
                                                                                  None]
    drop.train()
    bn.train()
    predict(x)
    mean = bn.state_dict()["running_mean"]
    np.testing.assert_allclose(mean, 0.1 * x.mean(), rtol=1e-6)
    drop.eval()
    bn.eval()
    got = predict(x).numpy()
    np.testing.assert_allclose(got, drop(bn(lj.tensor(x))).numpy(), rtol=1e-6)
    assert (got != 0).all()
    np.testing.assert_array_equal(bn.state_dict()["running_mean"], mean)
