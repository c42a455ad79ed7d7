"""Optimizers as shared-variable updates, against NumPy transcriptions of torch.optim's
update rules, eager and inside lj.jit, on both backends."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

A = np.array([[2.0, 0.5], [0.5, 1.0]])
B = np.array([1.0, -1.0])


def grad_np(w):  # of 0.5 w.A.w - b.w
    return A @ w - B


def reference(kind, steps, lr, **kw):
    w = np.array([0.3, -0.2])
    state = {"b": np.zeros(2), "m": np.zeros(2), "v": np.zeros(2)}
    for t in range(1, steps + 1):
        g = grad_np(w)
        if kind == "sgd":
            if kw.get("weight_decay"):
                g = g + kw["weight_decay"] * w
            if kw.get("momentum"):
                state["b"] = kw["momentum"] * state["b"] + g
                g = g + kw["momentum"] * state["b"] if kw.get("nesterov") else state["b"]
            w = w - lr * g
        else:
            b1, b2, eps, wd = 0.9, 0.999, 1e-8, kw.get("weight_decay", 0.0)
            if kind == "adam" and wd:
                g = g + wd * w
            state["m"] = b1 * state["m"] + (1 - b1) * g
            state["v"] = b2 * state["v"] + (1 - b2) * g * g
            if kind == "adamw":
                w = w * (1 - lr * wd)
            w = w - lr * (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["v"] / (1 - b2 ** t))
                                                         + eps)
    return w


CASES = [("sgd", dict()), ("sgd", dict(momentum=0.9)),
         ("sgd", dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
         ("adam", dict()), ("adam", dict(weight_decay=0.1)), ("adamw", dict(weight_decay=0.1))]


def make(kind, params, lr, kw):
    cls = {"sgd": lj.optim.SGD, "adam": lj.optim.Adam, "adamw": lj.optim.AdamW}[kind]
    return cls(params, lr=lr, **kw)


@pytest.mark.parametrize("kind,kw", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
@pytest.mark.parametrize("jitted", [False, True])
def test_matches_torch_rules(kind, kw, jitted, backend):
    w = lj.shared(np.array([0.3, -0.2]), name="w")
    opt = make(kind, [w], 0.05, kw)

    def step():
        loss = 0.5 * (w @ lj.tensor(A) @ w) - lj.tensor(B) @ w
        opt.step(lj.grad(loss, [w]))
        return loss
    run = lj.jit(step) if jitted else step
    for _ in range(7):
        run()
    np.testing.assert_allclose(w.get_value(), reference(kind, 7, 0.05, **kw), rtol=1e-10,
                               atol=1e-12)


def test_learning_rate_changes_without_retracing(backend):
    w = lj.shared(np.array([1.0]))
    opt = lj.optim.SGD([w], lr=0.25)

    @lj.jit
    def step():
        opt.step([w * 2.0])  # the gradient of w**2
        return w

    step()  # w = 1 - 0.25 * 2 = 0.5
    misses = lj.stats()["trace_cache_misses"]
    opt.lr = 0.1
    step()  # w = 0.5 - 0.1 * 1 = 0.4
    assert lj.stats()["trace_cache_misses"] == misses
    np.testing.assert_allclose(w.get_value(), [0.4])


def test_errors():
    with pytest.raises(lj.LazyjitError, match="not a shared variable"):
        lj.optim.SGD([lj.tensor([1.0])])
    with pytest.raises(lj.LazyjitError, match="floating point"):
        lj.optim.SGD([lj.shared(np.arange(3))])
    w = lj.shared(np.zeros(2))
    with pytest.raises(lj.LazyjitError, match="shape"):
        lj.optim.Adam([w]).step([np.zeros(3)])
    with pytest.raises(lj.LazyjitError, match="Nesterov"):
        lj.optim.SGD([w], nesterov=True)


def test_mixed_dtype_parameters_each_get_their_own_precision(backend):
    # lr and Adam's step count were scalars of the first parameter's dtype: a float64
    # parameter after a float32 one was updated with float32 bias corrections (an error
    # of 7e-7 against float64 math); they are kept in float64 and cast per parameter
    p0, g = np.array([0.3, -1.2, 2.0]), np.array([0.5, -0.25, 1e-3])
    for opt_cls in (lj.optim.Adam, lj.optim.SGD):
        q = lj.shared(p0.copy())
        w = lj.shared(np.ones(3, np.float32))
        opt = opt_cls([w, q], lr=0.1)
        for _ in range(3):
            opt.step([lj.tensor(np.ones(3, np.float32)), lj.tensor(g)])
        alone = lj.shared(p0.copy())
        ref = opt_cls([alone], lr=0.1)
        for _ in range(3):
            ref.step([lj.tensor(g)])
        np.testing.assert_array_equal(q.get_value(), alone.get_value())
        assert w.get_value().dtype == np.float32 and q.get_value().dtype == np.float64
