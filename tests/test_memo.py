"""Replayed API functions (lazyjit.api.memo): a call whose signature was seen before
builds, in one native call, the very graph the function builds (the same nodes, by
hash-consing), and its values are NumPy's; where a recording would not be the
function's graph (two origins of one node, symbolic sizes, leaves made from values),
nothing is kept."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import lazyjit as lj
import lazyjit.api.functions as F
from lazyjit.api import memo
from lazyjit.speedups import NATIVE

pytestmark = pytest.mark.skipif(NATIVE is None, reason="lazyjit._speedups is not built")

# (function, NumPy's, argument makers): tensors from shapes and dtypes, and other arguments
F32, I64 = np.float32, np.int64


def _calls(rng):
    def t(shape, dtype=F32):
        if np.dtype(dtype).kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        if np.dtype(dtype).kind == "b":
            return rng.random(shape) < 0.5
        return rng.integers(-5, 5, shape).astype(dtype)

    def log_softmax(a, axis=-1):
        if a.size == 0:
            return a.copy()
        m = a.max(axis=axis, keepdims=True)
        return a - m - np.log(np.exp(a - m).sum(axis=axis, keepdims=True))

    def softmax(a, axis=-1):
        return np.exp(log_softmax(a, axis))

    def logsumexp(a, axis=None, keepdims=False):
        m = a.max(axis=axis, keepdims=True)
        out = np.log(np.exp(a - m).sum(axis=axis, keepdims=True)) + m
        return out if keepdims else np.squeeze(out, axis=axis)

    return [
        ("add", np.add, lambda: (t((4, 5)), t((5,)))),
        ("add", np.add, lambda: (t((4, 1)), t((1, 5), I64))),
        ("subtract", np.subtract, lambda: (t((3, 4)), 2)),
        ("multiply", np.multiply, lambda: (t((2, 3), I64), -0.0)),
        ("true_divide", np.true_divide, lambda: (t((3,), I64), t((2, 3), I64))),
        ("maximum", np.maximum, lambda: (t((4, 5)), 0.0)),
        ("minimum", np.minimum, lambda: (t((4, 5)), t((4, 1)))),
        ("less", np.less, lambda: (t((4, 5)), t((5,)))),
        ("equal", np.equal, lambda: (t((4,), I64), 300)),
        ("logical_and", np.logical_and, lambda: (t((4,), bool), t((2, 4), bool))),
        ("where", np.where, lambda: (t((3, 4), bool), t((3, 4)), 0.0)),
        ("sum", np.sum, lambda: (t((4, 5)),)),
        ("sum", lambda a: np.sum(a, axis=1, keepdims=True), lambda: (t((4, 5)),)),
        ("sum", lambda a: np.sum(a, axis=0), lambda: (t((4, 5), I64),)),
        ("mean", lambda a: np.mean(a, axis=(0, 2)), lambda: (t((2, 3, 4)),)),
        ("mean", np.mean, lambda: (t((3, 4), I64),)),
        ("max", lambda a: np.max(a, axis=-1), lambda: (t((4, 5)),)),
        ("min", np.min, lambda: (t((6,), I64),)),
        ("prod", lambda a: np.prod(a, axis=1), lambda: (t((3, 4)),)),
        ("var", lambda a: np.var(a, axis=0), lambda: (t((5, 3)),)),
        ("std", lambda a: np.std(a, ddof=1), lambda: (t((5, 3)),)),
        ("logsumexp", lambda a: logsumexp(a, axis=1), lambda: (t((4, 5)),)),
        ("softmax", softmax, lambda: (t((4, 5)),)),
        ("log_softmax", log_softmax, lambda: (t((4, 10)),)),
        ("log_softmax", lambda a: log_softmax(a, axis=0), lambda: (t((0, 3)),)),
        ("matmul", np.matmul, lambda: (t((4, 3)), t((3, 5)))),
        ("matmul", np.matmul, lambda: (t((2, 4, 3)), t((3,), I64))),
        ("relu", lambda a: np.maximum(a, 0), lambda: (t((4, 3)),)),
        ("exp", np.exp, lambda: (t((4,), I64),)),
        ("negative", np.negative, lambda: (t((2, 2), bool).astype(np.int8),)),
    ]


_KWARGS = {("sum", 1): {"axis": 1, "keepdims": True}, ("sum", 2): {"axis": 0},
           ("mean", 0): {"axis": (0, 2)}, ("max", 0): {"axis": -1},
           ("prod", 0): {"axis": 1}, ("var", 0): {"axis": 0}, ("std", 0): {"ddof": 1},
           ("logsumexp", 0): {"axis": 1}, ("log_softmax", 1): {"axis": 0}}


def _plain(name):
    return getattr(F, name).__wrapped__


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's mean of empty axes)
def test_replay_is_the_functions_graph_and_numpys_values(rng):
    """Each function called three times with one signature (new inputs each time, so
    the later calls replay): the result is the very node the unwrapped function makes
    for those inputs, and its value is NumPy's."""
    seen: dict = {}
    with lj.config(backend="numpy"):
        for name, want, make in _calls(rng):
            k = seen[name] = seen.get(name, -1) + 1
            kwargs = _KWARGS.get((name, k), {})
            for _ in range(3):
                args = make()
                ts = [lj.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
                got = getattr(F, name)(*ts, **kwargs)
                plain = _plain(name)(*ts, **kwargs)
                assert got.node is plain.node, (name, kwargs)
                np.testing.assert_allclose(got.numpy(), want(*args), rtol=2e-5, atol=1e-6,
                                           err_msg=name)
            assert getattr(F, name).memoized, name  # (recorded, so the calls replayed)


def test_aliased_inputs_and_signed_zeros_are_other_signatures():
    """``x * x`` is recorded apart from ``x * y``, and ``-0.0`` apart from ``0.0``."""
    with lj.config(backend="numpy"):
        x = lj.tensor(np.array([1.0, -2.0, 3.0], np.float32))
        y = lj.tensor(np.array([4.0, 5.0, -6.0], np.float32))
        for _ in range(2):
            np.testing.assert_array_equal(F.multiply(x, x).numpy(), [1, 4, 9])
            np.testing.assert_array_equal(F.multiply(x, y).numpy(), [4, -10, -18])
        z = lj.tensor(np.zeros(2, np.float32))
        for _ in range(2):
            pos, neg = F.add(z, 0.0).numpy(), F.multiply(z, -0.0).numpy()
            assert not np.signbit(pos).any() and np.signbit(neg).all()


def test_a_node_of_two_origins_is_not_kept():
    """An argument that is itself the node the function makes from another argument
    (``broadcast_to(b)`` passed with ``b``): not recorded, and a later call with
    unrelated arguments of that signature gets its own graph."""
    with lj.config(backend="numpy"):
        b = lj.tensor(np.arange(3, dtype=np.float32))
        bb = lj.broadcast_to(b, (2, 3))
        F.add.memoized.clear()
        np.testing.assert_array_equal(F.add(b, bb).numpy(), 2 * np.broadcast_to(
            np.arange(3), (2, 3)))
        assert not F.add.memoized
        m = np.arange(6, dtype=np.float32).reshape(2, 3)
        b2 = np.array([10, 20, 30], np.float32)
        for _ in range(2):
            np.testing.assert_array_equal(F.add(lj.tensor(b2), lj.tensor(m)).numpy(), b2 + m)


def test_an_argument_returned_is_the_argument():
    """A function that returns its argument itself (a sum over no axes) does on replay."""
    with lj.config(backend="numpy"):
        for _ in range(2):
            x = lj.tensor(np.ones(3, np.float32))
            assert F.sum(x, axis=()) is x


def test_symbolic_sizes_are_not_recorded():
    """A jitted function of symbolic sizes records nothing (its nodes hold sizes known at
    each call) and computes NumPy's values for several sizes."""
    for f in (F.log_softmax, F.add, F.mean):
        f.memoized.clear()
    g = lj.jit(lambda a, b: lj.mean(lj.log_softmax(a + b, axis=-1), axis=0),
               dynamic=True)
    for n in (3, 5, 7):
        a = np.linspace(-1, 1, n * 4, dtype=np.float32).reshape(n, 4)
        b = np.arange(4, dtype=np.float32)
        z = a + b
        ls = z - z.max(-1, keepdims=True)
        ls = ls - np.log(np.exp(ls).sum(-1, keepdims=True))
        np.testing.assert_allclose(g(a, b).numpy(), ls.mean(0), rtol=1e-5, atol=1e-6)
    for f in (F.log_softmax, F.add, F.mean):
        for key in f.memoized:  # (shapes, and (type, value) for other arguments)
            for k in key:
                if type(k) is tuple and not (k and type(k[0]) is type):
                    assert all(type(d) is int for d in k), key


def test_gradients_through_replayed_calls_match_finite_differences(rng):
    """The eager MLP step's pieces (broadcast add, log_softmax, sum), replayed, give the
    gradients of finite differences (float64)."""
    w = rng.standard_normal((4, 3))
    b = rng.standard_normal(3)
    x = rng.standard_normal((5, 4))

    def loss(wn, bn):
        return -lj.log_softmax(lj.tensor(x) @ wn + bn, axis=-1).sum() / 5

    with lj.config(backend="numpy"):
        for _ in range(2):  # (the second call replays)
            tw, tb = lj.tensor(w), lj.tensor(b)
            gw, gb = lj.grad(loss(tw, tb), [tw, tb])
        eps = 1e-6
        for arr, g in ((w, gw), (b, gb)):
            num = np.zeros_like(arr)
            for i in np.ndindex(arr.shape):
                d = np.zeros_like(arr)
                d[i] = eps
                hi = float(loss(lj.tensor(w + d if arr is w else w),
                                lj.tensor(b + d if arr is b else b)))
                lo = float(loss(lj.tensor(w - d if arr is w else w),
                                lj.tensor(b - d if arr is b else b)))
                num[i] = (hi - lo) / (2 * eps)
            np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)


def test_switched_off_the_functions_run_as_they_are():
    """Switched off (the Python reference of tests/test_speedups.py), nothing is
    recorded or replayed."""
    F.softmax.memoized.clear()
    memo.ON[0] = False
    try:
        with lj.config(backend="numpy"):
            x = lj.tensor(np.array([[1.0, 2.0]], np.float32))
            for _ in range(2):
                np.testing.assert_allclose(F.softmax(x).numpy(), [[0.26894142, 0.7310586]])
    finally:
        memo.ON[0] = True
    assert not F.softmax.memoized


def test_signatures_in_c_equal_pythons():
    """The C callable's signature key (``key``) is :func:`lazyjit.api.memo.key_of`'s for
    tensors (shared nodes, symbolic sizes aside), Python scalars, axes, dtypes and what
    has no signature (lists, NumPy scalars and arrays)."""
    x = lj.tensor(np.ones((2, 3), np.float32))
    y = lj.tensor(np.ones(3, np.int64))
    cases = [((x,), {}), ((x, x), {}), ((x, y, x), {}), ((x, 2.0), {}), ((x, -0.0), {}),
             ((x, float("nan")), {}), ((x, True), {}), ((x, 1), {}), ((2, x), {}),
             ((x,), {"axis": (0, 1), "keepdims": True}), ((x,), {"dtype": np.float32}),
             ((x,), {"dtype": np.dtype("float32")}), ((x,), {"dtype": "float32"}),
             ((x, None), {}), ((x, [1]), {}), ((x, np.float32(2)), {}),
             ((x, np.ones(3)), {}), ((x,), {"axis": [0]})]
    for args, kwargs in cases:
        assert F.add.key(*args, **kwargs) == memo.key_of(args, kwargs), (args, kwargs)
    assert F.add.key(x, [1]) is None and F.add.key(x, x)[0][2] == 0


def test_an_argument_of_constants_only_is_not_mistaken_for_the_functions_constant(rng):
    """A first call on ``lj.zeros``/``lj.ones``/``lj.full`` tensors, whose nodes are the
    constants the function itself reads from a cache for its Python scalars (not
    through ``make``, unseen by the recording), keeps nothing that a later call with
    other values of that signature could replay (found by review: ``x == 0`` after
    ``zeros == 0`` gave all True)."""
    with lj.config(backend="numpy"):
        for f in (F.equal, F.subtract, F.mean, F.maximum, F.where):
            f.memoized.clear()
        xi = np.array([0, 1, 2, 0])
        (lj.zeros((4,), np.int64) == 0).numpy()
        np.testing.assert_array_equal((lj.tensor(xi) == 0).numpy(), xi == 0)
        lj.subtract(lj.ones((4,), np.int64), 1)
        np.testing.assert_array_equal(lj.subtract(lj.tensor(xi), 1).numpy(), xi - 1)
        lj.mean(lj.ones(()))
        assert float(lj.mean(lj.tensor(5.0))) == 5.0
        xf = rng.standard_normal((4, 5)).astype(np.float32)
        F.maximum(lj.zeros((4, 5), np.float32), 0)
        np.testing.assert_array_equal(F.maximum(lj.tensor(xf), 0).numpy(), np.maximum(xf, 0))
        mask = lj.tensor(xf > 0)
        lj.where(mask, lj.full((4, 5), 0.0, np.float32), 0.0)
        np.testing.assert_array_equal(lj.where(mask, lj.tensor(xf), 0.0).numpy(),
                                      np.where(xf > 0, xf, 0))
        c = lj.tensor(np.array([[True, False, True]]))
        lj.full((1, 3), 0.0)
        F.where(c, lj.full((), 0.0), 0.0)
        np.testing.assert_array_equal(F.where(c, lj.tensor(7.0), 0.0).numpy(), [[7, 0, 7]])


def test_an_interrupted_recording_ends():
    """An exception raised by the function (or a Ctrl-C) ends the recording: the next
    call records."""
    with lj.config(backend="numpy"):
        F.log_softmax.memoized.clear()
        with pytest.raises(lj.LazyjitError):
            F.log_softmax(lj.tensor(np.ones(3, np.float32)), axis=5)
        assert NATIVE.record([]) is True
        NATIVE.record(None)
        F.log_softmax(lj.tensor(np.ones(3, np.float32)))
        assert F.log_softmax.memoized


def test_replayed_nodes_name_the_callers_line():
    """Every node a replay makes (here a broadcast's reshape and expand, and the add)
    has the creation site of the user's line, as the function's own nodes have."""
    from lazyjit import errors
    with lj.config(backend="numpy"):
        F.add(lj.tensor(np.ones((2, 3), np.float32)), lj.tensor(np.ones(3, np.float32)))
        x, b = lj.tensor(np.zeros((2, 3), np.float32)), lj.tensor(np.zeros(3, np.float32))
        line = sys._getframe().f_lineno + 1
        out = F.add(x, b)
        made = [out.node, *[s for s in out.node.src if s is not x.node]]
        made.append(made[1].src[0])  # (expand, then its reshape)
        assert [n.op for n in made] == ["add", "expand", "reshape"]
        for n in made:
            assert errors.site_lines(n.site)[0][1:] == (line, "test_replayed_nodes_name_the_"
                                                        "callers_line")
