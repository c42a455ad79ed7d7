"""NumPy's ufuncs that lazyjit writes as composites (``deg2rad``, ``fmax``, ``heaviside``,
``logaddexp2``, ``sinc``, ``modf``, ``isposinf``, ...) against NumPy on every backend:
values (signed zeros, infinities, NaN), result dtypes for every input dtype (NumPy's
choice of loop), weak Python scalars, errors; derivatives against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

_F = [-2.5, -0.0, 0.0, 0.5, 3.0, np.inf, -np.inf, np.nan]
VALUES = {"float64": np.array(_F), "float32": np.array(_F, np.float32),
          "float16": np.array([-2.5, -0.0, 0.5, np.inf, np.nan], np.float16),
          "int8": np.array([-3, 0, 2], np.int8), "int64": np.array([-3, 0, 2, 7]),
          "bool": np.array([True, False])}
UNARY = ["deg2rad", "rad2deg", "radians", "degrees", "fabs", "fix", "sinc", "isposinf",
         "isneginf", "iscomplex", "isreal"]
BINARY = ["fmax", "fmin", "float_power", "heaviside", "logaddexp2", "divmod"]


def _same(got, want, name):
    """NumPy's values and dtype, and its signs of zeros."""
    tol = 2e-15 if name == "logaddexp2" and np.asarray(want).dtype == np.float64 else None
    assert_same(got, want, rtol=tol)
    want = np.asarray(want)
    if want.dtype.kind == "f":
        zero = want == 0
        np.testing.assert_array_equal(np.signbit(got.numpy()[zero]), np.signbit(want[zero]))


@pytest.mark.parametrize("dtype", list(VALUES))
def test_against_numpy(backend, dtype):
    v = VALUES[dtype]
    t = lj.tensor(v)
    with np.errstate(all="ignore"):
        for name in UNARY:
            _same(getattr(lj, name)(t), getattr(np, name)(v), name)
        for got, want in zip(lj.modf(t), np.modf(v)):
            _same(got, want, "modf")
        for name in BINARY:
            for w in (v[::-1], 1.5, 2, np.float32(0.5)):
                if name == "divmod" and dtype == "bool" and not isinstance(w, float):
                    continue  # (NumPy: no bool loop for // on bools)
                want = getattr(np, name)(v, w)
                got = getattr(lj, name)(t, lj.tensor(w) if isinstance(w, np.ndarray) else w)
                if isinstance(want, tuple):
                    for g, e in zip(got, want):
                        _same(g, e, name)
                else:
                    _same(got, want, name)
    assert lj.iscomplexobj(t) is False and lj.isrealobj(t) is True


def test_complex(backend):
    z = np.array([1 + 2j, -0.5 + 0j, complex(np.inf, 0)])
    t = lj.tensor(z)
    for name in ("iscomplex", "isreal", "float_power"):
        args = (z, 2) if name == "float_power" else (z,)
        with np.errstate(all="ignore"):
            assert_same(getattr(lj, name)(t, *args[1:]), getattr(np, name)(*args))
    assert lj.iscomplexobj(t) is True and lj.isrealobj(t) is False
    for name in ("fabs", "isposinf", "isneginf", "deg2rad"):
        with pytest.raises(TypeError):
            getattr(lj, name)(t)


def test_numpy_calls_them_on_tensors(backend):
    t = lj.tensor(VALUES["float64"][:5])
    for fn in (np.deg2rad, np.sinc, np.fabs):
        assert isinstance(fn(t), lj.Tensor)
    assert isinstance(np.fmax(t, 1.0), lj.Tensor)
    assert all(isinstance(p, lj.Tensor) for p in np.modf(t))


def test_gradients(backend, rng):
    x, y = rng.standard_normal(5), rng.standard_normal(5)
    x[0] = 0.0  # (sinc and modf at 0)
    y[1] = x[1]  # (logaddexp2 at equal operands: half to each)
    away = x + np.where(x >= 0, 0.5, -0.5)  # (fmax and heaviside away from their kinks)
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    for label, fn in [("deg_rad", lambda a: lj.deg2rad(a) + lj.rad2deg(a) * a),
                      ("sinc", lj.sinc), ("fabs", lj.fabs),
                      ("modf", lambda a: list(lj.modf(a * 3.3))),
                      ("float_power", lambda a: lj.float_power(abs(a) + 0.5, a)),
                      ("logaddexp2", lambda a, b: lj.logaddexp2(a, b)),
                      ("fmax", lambda a, b: lj.fmax(a, b) * 2 + lj.fmin(a, b)),
                      ("heaviside", lambda a, b: lj.heaviside(a, b) * b)]:
        args = [away if label != "logaddexp2" else x, y][:fn.__code__.co_argcount]
        check_grads(fn, args, order, batch=batch, label=label)
    for label, fn in [("sinc at 0", lj.sinc), ("modf at 0", lambda a: lj.modf(a)[0])]:
        check_grads(fn, [x], 1, batch=batch, label=label)
    batch.run()
    # heaviside's derivative in h0 where x == 0
    g = lj.grad(lambda h: lj.heaviside(lj.tensor([0.0, 1.0, -1.0]), h).sum())(lj.tensor(0.3))
    assert float(g) == 1.0
    # sinc's second derivative at 0: -pi**2 / 3 (NumPy's formula would give 0)
    g2 = lj.grad(lj.grad(lj.sinc))(lj.tensor(0.0))
    np.testing.assert_allclose(float(g2), -np.pi ** 2 / 3, rtol=1e-12)
