"""Laziness, hash-consing, realization and ``lj.jit`` (pytrees, static arguments, caches)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.engine import realize as realize_module


def _counts():
    s = lj.stats()
    return {k: s[k] for k in ("kernels_run", "trace_cache_hits", "trace_cache_misses", "compiles")}


# --- laziness ---------------------------------------------------------------------------------

def test_building_a_graph_computes_nothing(backend):
    x = lj.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = _counts()
    y = (x * 2).exp().sum(axis=1, keepdims=True) @ lj.ones((1, 5), "float32")
    z = lj.softmax(y[::-1], axis=0).T
    assert _counts() == before
    assert z.shape == (5, 3) and z.dtype == np.float32 and z.ndim == 2 and z.size == 15
    assert z.node.buffer is None
    z.numpy()
    after = _counts()
    assert after["kernels_run"] > before["kernels_run"]
    assert after["trace_cache_hits"] + after["trace_cache_misses"] == \
        before["trace_cache_hits"] + before["trace_cache_misses"] + 1
    z.numpy()  # already computed: nothing runs
    float(z[0, 0])  # a new node over the realized value: one more (small) trace
    assert _counts()["trace_cache_misses"] + _counts()["trace_cache_hits"] == \
        after["trace_cache_hits"] + after["trace_cache_misses"] + 1


def test_metadata_without_computing(backend):
    before = _counts()
    x = lj.zeros((2, 0, 3), "int32")
    assert (x.shape, x.dtype, x.ndim, x.size) == ((2, 0, 3), np.dtype("int32"), 3, 0)
    t = lj.tensor([1.5, 2.5]) > 2
    assert t.dtype == np.bool_ and t.shape == (2,) and len(t) == 2
    assert lj.mean(lj.arange(6)).dtype == np.float64
    assert (lj.ones((3, 1)) + lj.ones(4, "float32")).shape == (3, 4)
    assert _counts() == before


def test_same_computation_on_new_data_hits_the_trace_cache(backend, rng):
    def f(x):
        return lj.sum(lj.tanh(x * 3.0 + 1.0), axis=0)

    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(f(lj.tensor(a)).numpy(), np.tanh(a * 3 + 1).sum(0), rtol=1e-12)
    before = _counts()
    np.testing.assert_allclose(f(lj.tensor(b)).numpy(), np.tanh(b * 3 + 1).sum(0), rtol=1e-12)
    after = _counts()
    assert after["trace_cache_hits"] == before["trace_cache_hits"] + 1
    assert after["trace_cache_misses"] == before["trace_cache_misses"]
    assert after["compiles"] == before["compiles"]
    f(lj.tensor(rng.standard_normal((5, 3)))).numpy()  # new shape: a new trace
    assert _counts()["trace_cache_misses"] == after["trace_cache_misses"] + 1


def test_realize_several_in_one_trace(backend):
    x = lj.tensor([1.0, 2.0, 3.0])
    a, b = x * 2, lj.exp(x)
    before = _counts()
    ra, rb = lj.realize(a, b)
    assert ra is a and rb is b
    after = _counts()
    assert after["trace_cache_hits"] + after["trace_cache_misses"] == \
        before["trace_cache_hits"] + before["trace_cache_misses"] + 1
    np.testing.assert_allclose(a.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(b.numpy(), np.exp([1.0, 2.0, 3.0]))
    assert _counts() == after


# --- hash-consing -----------------------------------------------------------------------------

def test_hash_consing_gives_the_same_node():
    x = lj.tensor(np.arange(6.0).reshape(2, 3))
    assert (x + 1).node is (x + 1).node
    assert (x + 1).node is (x + 1.0).node  # the same float64 constant
    assert (x + 1).node is not (x + 2).node
    assert lj.exp(x).node is x.exp().node
    assert x.T.node is lj.transpose(x).node is x.transpose(1, 0).node
    assert lj.sum(x, axis=-1).node is x.sum(1).node
    assert x[::-1, 1].node is x[::-1, 1].node
    assert lj.softmax(x).node is lj.softmax(x, axis=-1).node
    y = lj.tensor(np.arange(6.0).reshape(2, 3))  # equal values, another leaf
    assert (y + 1).node is not (x + 1).node


def test_identity_operations_add_no_nodes():
    x = lj.tensor(np.ones((2, 3), np.float32))
    assert x.astype("float32") is x
    assert x.reshape(2, 3) is x
    assert x[:, :].node is x.node
    assert lj.asarray(x) is x
    assert (+x) is x


# --- realization --------------------------------------------------------------------------------

def test_conversions_realize(backend):
    x = lj.tensor([[1.5, -2.0], [3.0, 4.0]], dtype="float32")
    y = x * 2
    arr = y.numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float32
    np.testing.assert_array_equal(arr, [[3.0, -4.0], [6.0, 8.0]])
    assert not arr.flags.writeable
    np.testing.assert_array_equal(np.asarray(x + 1), [[2.5, -1.0], [4.0, 5.0]])
    assert np.asarray(x + 1, dtype=np.float64).dtype == np.float64
    assert np.array(x - 1, copy=True).flags.writeable
    s = lj.sum(x)
    assert s.item() == pytest.approx(6.5) and isinstance(s.item(), float)
    assert float(s) == pytest.approx(6.5)
    assert int(lj.tensor([7]) * 3) == 21
    assert bool(lj.tensor(2.0) > 1) is True and bool(lj.any(x < -5)) is False
    assert (x > 0).tolist() == [[True, False], [True, True]]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x > 0)
    with pytest.raises(ValueError):
        (x + 1).item()
    assert [float(r.sum()) for r in x] == pytest.approx([-0.5, 7.0])
    assert range(10)[lj.tensor(3) + 1] == 4  # __index__


def test_repr_shows_values_and_dtype(backend):
    r = repr(lj.tensor([1, 2, 3], dtype="int32") * 2)
    assert r.startswith("tensor(") and "2, 4, 6" in r and "int32" in r
    r = repr(lj.tensor([[0.5, 1.5]]) + 1)
    assert "1.5" in r and "2.5" in r and "float64" in r


def test_numpy_operands_defer_to_tensors(backend):
    x = lj.tensor([1.0, 2.0])
    y = np.array([10.0, 20.0]) + x  # NumPy defers: a lazy tensor comes back
    assert isinstance(y, lj.Tensor)
    np.testing.assert_array_equal(y.numpy(), [11.0, 22.0])
    assert isinstance(np.float32(2.0) * x, lj.Tensor)


def test_tensors_are_immutable(backend):
    x = lj.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="set_subtensor"):
        x[0] = 5.0
    data = np.array([1.0, 2.0])
    t = lj.tensor(data)
    data[0] = 100.0  # lj.tensor copies
    assert float(t[0]) == 1.0


def test_creation_leaves(backend):
    x = lj.ones((2, 3), dtype="int32")
    assert x.dtype == np.int32
    np.testing.assert_array_equal(lj.full((2,), 3.5).numpy(), [3.5, 3.5])
    assert lj.zeros_like(x).dtype == np.int32 and lj.ones_like(x, "float32").dtype == np.float32
    assert lj.tensor(np.float32(3.0)).shape == () and lj.tensor(3).dtype == np.int64
    assert lj.tensor([True, False]).dtype == np.bool_
    assert lj.tensor(lj.tensor([1, 2]), dtype="float32").dtype == np.float32


# --- jit ---------------------------------------------------------------------------------------

def test_jit_nested_containers(backend, rng):
    @lj.jit
    def f(params, xs, scale=2.0):
        h = xs[0] @ params["w"] + params["b"][0]
        return {"h": h * scale, "pair": (lj.sum(h), [xs[1] - 1])}

    w, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
    x0, x1 = rng.standard_normal((4, 3)), lj.tensor([1, 2], dtype="int32")
    out = f({"w": lj.tensor(w), "b": [b]}, (x0, x1))
    assert set(out) == {"h", "pair"} and isinstance(out["pair"], tuple)
    assert isinstance(out["pair"][1], list)
    h = x0 @ w + b
    np.testing.assert_allclose(out["h"].numpy(), h * 2, rtol=1e-12)
    assert float(out["pair"][0]) == pytest.approx(h.sum(), rel=1e-12)
    assert out["pair"][1][0].dtype == np.int32
    np.testing.assert_array_equal(out["pair"][1][0].numpy(), [0, 1])
    out3 = f({"w": w, "b": [b]}, (x0, x1), scale=3.0)  # kwargs are part of the signature
    np.testing.assert_allclose(out3["h"].numpy(), h * 3, rtol=1e-12)


def test_jit_cache_hits_and_retraces(backend, rng):
    calls = []

    @lj.jit
    def f(x, y):
        calls.append(1)
        return lj.tanh(x) * y + 1.0

    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(f(a, b).numpy(), np.tanh(a) * b + 1, rtol=1e-12)
    before = _counts()
    for k in range(3):
        out = f(lj.tensor(a * k), b)
        np.testing.assert_allclose(out.numpy(), np.tanh(a * k) * b + 1, rtol=1e-12)
    after = _counts()
    assert len(calls) == 1
    assert after["trace_cache_hits"] == before["trace_cache_hits"] + 3
    assert after["trace_cache_misses"] == before["trace_cache_misses"]
    assert after["compiles"] == before["compiles"]
    f(rng.standard_normal((5, 4)), rng.standard_normal((5, 4)))  # new shapes: trace again
    f(a.astype(np.float32), b.astype(np.float32))              # new dtypes: trace again
    assert len(calls) == 3
    assert _counts()["trace_cache_misses"] >= after["trace_cache_misses"] + 2


def test_jit_static_argnums(backend):
    calls = []

    @lj.jit(static_argnums=(1,), static_argnames=("axis",))  # axis: a Python int, not a
    def power_sum(x, n, axis=None):                           # weak runtime scalar
        calls.append(n)
        out = x
        for _ in range(n - 1):  # a Python loop over a static value
            out = out * x
        return lj.sum(out, axis=axis)

    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert float(power_sum(x, 2)) == 30.0
    assert float(power_sum(x, 3)) == 100.0
    assert float(power_sum(x * 1, 2)) == 30.0
    assert calls == [2, 3]
    np.testing.assert_array_equal(power_sum(x, 2, axis=0).numpy(), [10.0, 20.0])
    assert calls == [2, 3, 2]


def test_jit_outputs_are_computed_tensors(backend):
    f = lj.jit(lambda x: (x, x + 1))
    a, b = f(np.array([1.0, 2.0]))
    assert a.node.buffer is not None and b.node.buffer is not None
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])


def test_jit_captures_outer_tensors(backend):
    w = lj.tensor([2.0, 3.0])
    f = lj.jit(lambda x: x * w)
    np.testing.assert_array_equal(f(np.array([1.0, 1.0])).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(f(np.array([2.0, 0.0])).numpy(), [4.0, 0.0])


def test_jit_cannot_read_traced_values(backend):
    @lj.jit
    def f(x):
        if float(lj.sum(x)) > 0:  # data-dependent Python control flow
            return x
        return -x

    with pytest.raises(lj.LazyjitError, match="jit"):
        f(np.ones(3))


def test_jit_rejects_unhashable_non_array_arguments(backend):
    f = lj.jit(lambda x, opts: x * len(opts["k"]))
    with pytest.raises(lj.LazyjitError, match="hashable"):
        f(np.ones(2), {"k": {1, 2}})  # a set is not a container of the tree
    np.testing.assert_array_equal(f(np.ones(2), {"k": (1, 2)}).numpy(), [2.0, 2.0])


def test_jit_as_method(backend):
    class Layer:
        def __init__(self):
            self.w = lj.tensor([[1.0, 0.0], [0.0, 2.0]])

        @lj.jit
        def __call__(self, x):
            return x @ self.w

    layer = Layer()
    np.testing.assert_array_equal(layer(np.array([3.0, 4.0])).numpy(), [3.0, 8.0])


def test_config_context_restores_flags():
    old = lj.config.backend
    with lj.config(backend="numpy", optimizer="fast_compile"):
        assert lj.config.backend == "numpy" and lj.config.optimizer == "o1"
    assert lj.config.backend == old


def test_an_eager_loop_whose_carried_value_is_never_computed_warns(monkeypatch):
    # (found by a new-user helper: w = w - lr * g in a loop reading only the loss
    # compiled a larger graph at every step, 2 s a step after 100, without a word)
    monkeypatch.setattr(realize_module, "_GROWTH", [0, 0, False])
    rng = np.random.default_rng(0)
    x, y = lj.tensor(rng.standard_normal((16, 3))), lj.tensor(rng.standard_normal((16, 1)))

    def steps(n, realize_w):
        w = lj.tensor(np.zeros((3, 1)))
        with warnings.catch_warnings(record=True) as caught, lj.config(backend="numpy"):
            warnings.simplefilter("always")
            for _ in range(n):
                loss = lj.mean((x @ w - y) ** 2)
                w = w - 0.05 * lj.grad(loss, w)
                if realize_w:
                    lj.realize(w, loss)
                float(loss)
        return [c for c in caught if "larger graph" in str(c.message)]
    assert steps(12, realize_w=True) == []
    (warned,) = steps(12, realize_w=False)
    assert "lj.realize(w, loss)" in str(warned.message) and warned.filename == __file__
    assert steps(12, realize_w=False) == []  # (once)
