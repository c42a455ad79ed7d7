"""``@lj.jit`` with Python ``float`` and ``int`` arguments: weakly typed runtime scalars.

A Python scalar argument is a 0-d input of the plan, not a trace constant: new values
trace and compile nothing (counted by ``lj.stats()``), and in arithmetic it takes the
dtype of the tensor it meets, as the literal does in eager code (NumPy 2, NEP 50; JAX's
weak types).  Values are checked against NumPy on every backend.
"""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from helpers import assert_same


def _counts():
    s = lj.stats()
    return {k: s[k] for k in ("trace_cache_hits", "trace_cache_misses", "compiles")}


def test_learning_rates_trace_once(backend, rng):
    traces = []

    @lj.jit
    def step(w, x, lr):
        traces.append(lr)
        g = x.T @ (x @ w)
        return w - lr * g

    w = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    lrs = [0.1 / (1 + k) for k in range(100)]
    got = step(w, x, lrs[0])  # the one trace
    want = w - np.float32(lrs[0]) * (x.T @ (x @ w))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    before = _counts()
    cur, ref = lj.tensor(want), want
    for lr in lrs[1:]:
        cur = step(cur, x, lr)
        ref = ref - np.float32(lr) * (x.T @ (x @ ref))
        assert cur.dtype == np.float32  # weak: float32 weights stay float32
    after = _counts()
    np.testing.assert_allclose(cur.numpy(), ref, rtol=1e-4, atol=1e-5)
    assert len(traces) == 1
    assert after["trace_cache_misses"] == before["trace_cache_misses"]
    assert after["compiles"] == before["compiles"]
    assert after["trace_cache_hits"] == before["trace_cache_hits"] + 99


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_promotion_as_a_python_literal(backend, dtype):
    """Each result has the dtype and value the same expression with the literal has in
    NumPy 2 (and in eager lazyjit)."""
    a = np.array([0, 1, 2, 5], dtype=dtype)

    @lj.jit
    def f(x, s, n):
        return x * s, x + n, s * x + n, lj.where(x > 0, x, s), x * (s * 2.0 - n)

    for s, n in [(0.5, 3), (-1.25, 7)]:
        outs = f(a, s, n)
        want = (a * s, a + n, s * a + n, np.where(a > 0, a, s), a * (s * 2.0 - n))
        eager = (lj.tensor(a) * s, lj.tensor(a) + n)
        for o, w in zip(outs, want):
            assert o.dtype == w.dtype, (o.dtype, w.dtype)
            np.testing.assert_allclose(o.numpy(), w, rtol=1e-6)
        assert [o.dtype for o in outs[:2]] == [e.dtype for e in eager]


def test_int_argument_is_weak_and_runtime(backend):
    traces = []

    @lj.jit
    def f(x, n):
        traces.append(n)
        return x + n, x[n], n // 2 + 1

    x = np.arange(6, dtype=np.int16)
    before = None
    for n in [1, 4, -2, 5]:
        shifted, picked, half = f(x, n)
        assert shifted.dtype == np.int16 and picked.dtype == np.int16
        np.testing.assert_array_equal(shifted.numpy(), x + n)
        assert int(picked) == x[n]
        assert int(half) == n // 2 + 1 and half.dtype == np.int64
        if before is None:
            before = _counts()
    assert len(traces) == 1 and _counts()["trace_cache_misses"] == before["trace_cache_misses"]
    with pytest.raises(OverflowError,
                       match=r"out of bounds for int16: lj.jit's argument 1 \('n'\)"):
        f(x, 40000)  # checked at the call, as NumPy refuses np.int16 array + 40000


def test_comparisons_with_an_int_out_of_range(backend):
    """An integer tensor compared with a traced Python int outside its dtype's range gives
    NumPy 2's answer, as eagerly (``uint8 < -1`` false everywhere, ``int8 != 1000`` true),
    one trace for every value; arithmetic with it still raises (it raised for both;
    found by a fuzzing helper)."""
    for dt in (np.uint8, np.int8, np.uint64, np.int32):
        x = np.array([0, 3, 5, np.iinfo(dt).max], dt)
        for op in ("<", "<=", ">", ">=", "==", "!="):
            f = lj.jit(eval(f"lambda x, s: (x {op} s, s {op} x)"))
            before = lj.stats()["traces"]
            for v in (-1, 0, 3, 300, -300, 2 ** 40, -2 ** 40, 2 ** 63 - 1):
                got = f(x, v)
                for g, want in zip(got, (eval(f"x {op} v"), eval(f"v {op} x"))):
                    assert g.dtype == np.bool_
                    np.testing.assert_array_equal(g.numpy(), want, err_msg=f"{dt} {op} {v}")
            assert lj.stats()["traces"] - before == 1
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        lj.jit(lambda x, s: x + s)(np.array([1], np.uint8), -1)
    x = np.array([0, 1, 2], np.uint8)  # (a bool literal is no int here: it crashed)
    for f in (lambda t: t == True, lambda t: True == t, lambda t: t > False):  # noqa: E712
        np.testing.assert_array_equal(f(lj.tensor(x)).numpy(), f(x))
        np.testing.assert_array_equal(lj.jit(f)(x).numpy(), f(x))


def test_int_meets_float_and_python_type_is_in_key(backend):
    traces = []

    @lj.jit
    def f(x, s):
        traces.append(type(s).__name__)
        return x * s

    x = np.array([1, 2, 3], dtype=np.int32)
    assert f(x, 2).dtype == np.int32  # int32 * int stays int32
    out = f(x, 2.5)  # int32 * float: float64, a new trace (the key keeps the type)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.numpy(), x * 2.5)
    assert f(x, 3).dtype == np.int32 and f(x, 0.5).dtype == np.float64
    assert traces == ["WeakInt", "WeakFloat"]
    f(x, True)  # a bool is not a runtime scalar: part of the key, as before
    f(x, False)
    assert traces[2:] == ["bool", "bool"]


def test_nested_containers_of_scalars(backend, rng):
    traces = []

    @lj.jit
    def f(params, hp):
        traces.append(1)
        w, b = params["w"], params["b"]
        return {"w": w * (1 - hp["lr"] * hp["decay"][0]), "b": b + hp["steps"][1],
                "lr": hp["lr"]}

    w = rng.standard_normal((2, 3)).astype(np.float32)
    b = np.zeros(3, np.float32)
    for lr, k in [(0.1, 2), (0.01, 5), (0.001, -1)]:
        hp = {"lr": lr, "decay": (0.5,), "steps": [k, k * 2]}
        out = f({"w": w, "b": b}, hp)
        assert out["w"].dtype == np.float32 and out["b"].dtype == np.float32
        np.testing.assert_allclose(out["w"].numpy(), w * np.float32(1 - lr * 0.5), rtol=1e-6)
        np.testing.assert_array_equal(out["b"].numpy(), b + k * 2)
        assert out["lr"].dtype == np.float64 and float(out["lr"]) == lr  # returned: 0-d
    assert len(traces) == 1


def test_static_argnums_still_bakes(backend):
    traces = []

    @lj.jit(static_argnums=(1,), static_argnames=("axis",))
    def f(x, scale, axis=0):
        traces.append((scale, axis))
        assert type(scale) is float and type(axis) is int  # Python values, as given
        return lj.sum(x * scale, axis=axis)

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(f(x, 2.0).numpy(), (x * 2).sum(0))
    np.testing.assert_array_equal(f(x, 3.0, axis=1).numpy(), (x * 3).sum(1))
    np.testing.assert_array_equal(f(x, 2.0).numpy(), (x * 2).sum(0))
    np.testing.assert_array_equal(f(x, 2.0, 1).numpy(), (x * 2).sum(1))  # axis by position
    assert traces == [(2.0, 0), (3.0, 1), (2.0, 1)]


def test_traced_int_where_a_python_int_is_needed(backend):
    x = np.ones((2, 3))
    uses = {
        "axis": lambda x, n: lj.sum(x, axis=n),
        "shape": lambda x, n: x.reshape(n, -1),
        "range": lambda x, n: sum(x for _ in range(n)),
        "if": lambda x, n: x if n > 1 else -x,
        "int()": lambda x, n: x * int(n),
        "slice": lambda x, n: x[:n],
        "zeros": lambda x, n: lj.zeros((n,)),
    }
    for name, fn in uses.items():
        with pytest.raises(lj.LazyjitError, match=r"argument 1 \('n'\).*static_argnums"):
            lj.jit(fn)(x, 1)
        static = lj.jit(fn, static_argnums=1)(x, 1)  # the fix the error names
        assert isinstance(static, lj.Tensor), name
    with pytest.raises(lj.LazyjitError, match=r"keyword argument 'lr'.*float\(\)"):
        lj.jit(lambda x, lr: x * float(lr))(x, lr=0.5)
    with pytest.raises(lj.LazyjitError, match=r"argument 0 \('hp'\)\['k'\]\[1\]"):
        lj.jit(lambda hp, x: lj.sum(x, axis=hp["k"][1]))({"k": (0, 1)}, x)


def test_weak_scalars_in_scalar_arithmetic(backend):
    @lj.jit
    def f(x, a, n):
        c = -a * 2 + n / 4 - abs(a) ** 2  # weak all along: float32 at the end
        return x * c, x * lj.exp(a)       # lj.exp(a) is a float64 tensor, as lj.exp(0.1)

    x = np.array([1.0, 2.0], np.float32)
    for a, n in [(0.5, 3), (-2.0, 10)]:
        scaled, exped = f(x, a, n)
        c = -a * 2 + n / 4 - abs(a) ** 2
        assert scaled.dtype == np.float32 and exped.dtype == np.float64
        np.testing.assert_allclose(scaled.numpy(), x * np.float32(c), rtol=1e-6)
        np.testing.assert_allclose(exped.numpy(), x * np.exp(a), rtol=1e-12)


@pytest.mark.parametrize("dtype,fn,want", [
    ("float32", lambda x: x * 2.0, "float32"), ("float32", lambda x: 2.0 * x, "float32"),
    ("float32", lambda x: x + 1, "float32"), ("int32", lambda x: x * 2.5, "float64"),
    ("int32", lambda x: x + 3, "int32"), ("int32", lambda x: x / 2, "float64"),
    ("bool", lambda x: x + 1, "int64"), ("bool", lambda x: x * 1.5, "float64"),
    ("int8", lambda x: x * 100, "int8"), ("float32", lambda x: x * np.float64(2), "float64"),
    ("float32", lambda x: lj.where(x > 0, x, 0.0), "float32"),
    ("float32", lambda x: lj.mean(x), "float32"), ("int32", lambda x: lj.mean(x), "float64"),
])
def test_python_scalars_are_weak(dtype, fn, want):
    """NEP 50 / Array API: a Python scalar does not widen a tensor's dtype (no compute)."""
    assert fn(lj.ones((2,), dtype)).dtype == np.dtype(want)


def test_equal_values_of_other_types_trace_apart(backend):
    """A new user found ``np.float32(2.5)`` then ``np.float64(2.5)`` served by one trace
    (equal values, equal hashes: the float32 result, where NumPy's is float64); so were
    static arguments 2 and 2.0, and True and np.int64(1).  Each type now has its own."""
    k = lj.jit(lambda x, a: a * x)
    x32, x8 = np.ones(2, np.float32), np.ones(2, np.int8)
    for x, scalars in [(x32, [np.float32(2.5), np.float64(2.5)]),
                       (x8, [np.int32(3), np.int64(3), np.int8(3)]),
                       (x8, [True, np.int64(1)])]:
        for a in scalars:
            got = k(x, a)
            assert got.dtype == (a * x).dtype, (x.dtype, type(a))
            np.testing.assert_array_equal(got.numpy(), a * x)
    s = lj.jit(lambda x, a: x * a, static_argnums=1)
    for a in (2, 2.0, np.float32(2.0)):
        assert s(x8, a).dtype == (x8 * a).dtype, type(a)


def test_python_ints_beyond_int64_mean_what_they_mean_to_numpy(backend):
    # (found by a fuzzing helper: a uint64 mask of 2**63 raised "does not fit int64")
    # such an int is a constant of its trace, as a static argument
    x = np.array([1, 2 ** 63 + 5], np.uint64)
    f = lj.jit(lambda x, m: x & m)
    for m in (2 ** 63, 2 ** 63 + 1, 2 ** 64 - 1, 5):
        assert_same(f(x, m), x & m)
    g = lj.jit(lambda x, s: x * s)
    assert_same(g(np.array([1.5]), 2 ** 70), np.array([1.5]) * 2 ** 70)
    with pytest.raises(OverflowError):  # (as NumPy: int64 + 2**63)
        lj.jit(lambda x, s: x + s)(np.array([1], np.int64), 2 ** 63)


@pytest.mark.parametrize("dtype, value, error", [
    ("int8", 300, OverflowError), ("uint8", -1, OverflowError), ("uint8", -1.5, OverflowError),
    ("int8", 1e10, OverflowError), ("int8", float("inf"), OverflowError),
    ("int64", float("nan"), ValueError), ("int8", -128.9, None), ("int8", 127.9, None),
    ("uint8", 255, None), ("int64", 2.5, None), ("bool", 300, None)])
def test_python_numbers_written_into_integers_as_numpy(backend, dtype, value, error):
    """``x[i] = v`` of a Python number converts it as NumPy does (``int8[0] = 300``
    raises OverflowError, a NaN into integers ValueError, a float is truncated), eagerly
    and for a traced argument at each call (the value wrapped, or a NaN gave 0)."""
    x = np.arange(4).astype(dtype)
    jitted = lj.jit(lambda v: lj.set_subtensor(lj.tensor(x)[0], v))
    as_dtype = lj.jit(lambda v: lj.asarray(v, dtype=dtype))
    if error is not None:
        with pytest.raises(error):
            x.copy()[0] = value
        if type(value) is not bool:  # (a NumPy number: as the Python one)
            with pytest.raises(error):
                lj.set_subtensor(lj.tensor(x)[0], np.float64(value))
        for call in (lambda: lj.set_subtensor(lj.tensor(x)[0], value), lambda: jitted(value),
                     lambda: lj.tensor(x).at[x > 2].set(value), lambda: as_dtype(value)):
            with pytest.raises(error):
                call()
        return
    want = x.copy()
    want[0] = value
    assert_same(lj.set_subtensor(lj.tensor(x)[0], value), want)
    assert_same(jitted(value), want)
    assert_same(as_dtype(value), np.array(value, dtype))


def test_traced_numbers_keep_numpys_dtypes_and_truth(backend):
    """A traced Python number in logical ops is read by its truth (1e-300 is true: it
    was cast to float32 first, giving false), in ``select``, ``trapezoid``,
    ``float_power``, ``heaviside`` weakly as the literal (they gave float64, int64, or
    raised a TypeError), in ``clip`` of integers beyond their range bounding nothing
    (it raised); ``bool ** n`` raises (NumPy's dtype depends on n's value)."""
    x32 = np.array([0.0, 1.0, 3.0, 5.0], np.float32)
    i8 = np.array([0, 1, 3, 5], np.int8)
    cases = [
        (lambda x, s: lj.logical_and(x, s), lambda x, s: np.logical_and(x, s), x32, 1e-300),
        (lambda x, s: lj.logical_or(x * 0, s), lambda x, s: np.logical_or(x * 0, s), x32, 1e-300),
        (lambda x, s: lj.logical_xor(x, s), lambda x, s: np.logical_xor(x, s), i8, 256),
        (lambda x, s: lj.select([x > 2], [x], s), lambda x, s: np.select([x > 2], [x], s),
         x32, 7.5),
        (lambda x, s: lj.select([x > 2], [x], s), lambda x, s: np.select([x > 2], [x], s),
         i8, 7),
        (lambda x, s: lj.trapezoid(x, dx=s), lambda x, s: np.trapezoid(x, dx=s), x32, 0.5),
        (lambda x, s: lj.float_power(x, s), lambda x, s: np.float_power(x, s), x32, 2.0),
        (lambda x, s: lj.heaviside(x, s), lambda x, s: np.heaviside(x, s), x32, 0.5),
        (lambda x, s: lj.clip(x, -s, s), lambda x, s: np.clip(x, -s, s), i8, 300),
        (lambda x, s: lj.clip(x, None, s), lambda x, s: np.clip(x, None, s),
         np.array([1, 10], np.uint64), 5)]
    for fn, ref, x, s in cases:
        want = ref(x, s)
        assert_same(fn(lj.tensor(x), s), want)
        assert_same(lj.jit(fn)(x, s), want)
    with pytest.raises(lj.LazyjitError, match="depends on its value"):
        lj.jit(lambda x, n: x ** n)(np.array([True, False]), 2)
