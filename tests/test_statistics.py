"""NaN-ignoring reductions, order statistics and closeness tests against NumPy's
functions of the same name on every backend (NaN and all-NaN slices, ints, keepdims,
size 1), and gradients of the differentiable ones against finite differences."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

nan, inf = float("nan"), float("inf")
WITH_NAN = np.array([[1.0, nan, 3.0, -2.0], [nan, nan, nan, nan], [0.5, 2.0, -1.0, 4.0]])

CASES = {
    "nansum": [lambda m, x: m.nansum(x), lambda m, x: m.nansum(x, axis=1),
               lambda m, x: m.nansum(x, axis=0, keepdims=True)],
    "nanmean": [lambda m, x: m.nanmean(x, axis=1), lambda m, x: m.nanmean(x, axis=0)],
    "nanmax": [lambda m, x: m.nanmax(x, axis=1), lambda m, x: m.nanmax(x, 0, keepdims=True)],
    "nanmin": [lambda m, x: m.nanmin(x, axis=1), lambda m, x: m.nanmin(x)],
    "median": [lambda m, x: m.median(x), lambda m, x: m.median(x, axis=1),
               lambda m, x: m.median(x, axis=0, keepdims=True)],
    "quantile": [lambda m, x: m.quantile(x, 0.3), lambda m, x: m.quantile(x, [0.0, 0.25, 1.0],
                                                                           axis=1),
                 lambda m, x: m.quantile(x, 0.75, axis=0, keepdims=True),
                 lambda m, x: m.quantile(x, [0.1, 0.9], keepdims=True)],
    "percentile": [lambda m, x: m.percentile(x, 40), lambda m, x: m.percentile(x, [5, 50], 0)],
    "isclose": [lambda m, x: m.isclose(x, x * (1 + 1e-6)), lambda m, x: m.isclose(x, x + 1e-3),
                lambda m, x: m.isclose(x, x, equal_nan=True), lambda m, x: m.isclose(x, 1)],
    "allclose": [lambda m, x: m.allclose(x, x + 1e-9), lambda m, x: m.allclose(x, x + 1e-3)],
}


def _inputs(rng):
    return [rng.standard_normal((3, 4)), rng.standard_normal((5, 1)).astype(np.float32),
            (rng.standard_normal((3, 5)) * 9).astype(np.int64), rng.standard_normal((1, 1)),
            WITH_NAN, np.array([[inf, -inf, 1.0], [2.0, inf, nan]])]


@pytest.mark.parametrize("name", list(CASES))
def test_against_numpy(name, backend, rng):
    got, want = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's all-NaN warnings)
        for fn in CASES[name]:
            for x in _inputs(rng):
                got.append(fn(lj, lj.tensor(x)))
                want.append(np.asarray(fn(np, x)))
    lj.realize(*got)
    for g, w in zip(got, want):
        assert_same(g, w)


def test_errors():
    x = lj.tensor(np.ones((2, 3)))
    with pytest.raises(lj.LazyjitError, match="q must be"):
        lj.quantile(x, 1.5)
    with pytest.raises(IndexError, match="empty slice"):  # (NumPy's IndexError)
        lj.quantile(lj.tensor(np.ones((2, 0))), 0.5, axis=1)


@pytest.mark.parametrize("shape", [(0, 4), (0, 0), (0,), (3, 0), (2, 0, 3)])
def test_medians_of_no_values_are_numpys(shape, backend):
    # NaN where the reduced axis is empty (median: the mean of no values; the
    # NaN-ignoring ones: NumPy returns nanmean of an empty array, q's shape ignored)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for dtype in (np.float64, np.float16, np.int32):
            a = np.zeros(shape, dtype)
            for axis in (None, 0, -1):
                for kd in (False, True):
                    for fn, args in ((lambda m: m.median, ()), (lambda m: m.nanmedian, ()),
                                     (lambda m: m.nanquantile, ([0.5, 0.2],)),
                                     (lambda m: m.nanpercentile, (50,))):
                        assert_same(fn(lj)(lj.tensor(a), *args, axis, keepdims=kd),
                                    fn(np)(a, *args, axis, keepdims=kd))


def test_gradients(backend, rng):
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    for i, fn in enumerate([lambda x: lj.nansum(x * x, axis=0), lambda x: lj.nanmean(x, 1),
                            lambda x: lj.nanmax(x, axis=1) * lj.nanmin(x),
                            lambda x: lj.median(x, axis=0), lambda x: lj.quantile(x * x, 0.3),
                            lambda x: lj.percentile(lj.exp(x), [10, 60], axis=1)]):
        check_grads(fn, [rng.standard_normal((3, 4))], order, batch=batch, label=f"case{i}")
    batch.run()


def test_review_cases(backend):
    # float16 medians added in float32; tuple axes; trace and sum with a small dtype
    x16 = np.array([60000, 50000], np.float16)
    assert_same(lj.median(lj.tensor(x16)), np.median(x16))
    y = np.random.default_rng(1).standard_normal((2, 3, 4))
    assert_same(lj.median(lj.tensor(y), axis=(0, 2)), np.median(y, axis=(0, 2)))
    assert_same(lj.quantile(lj.tensor(y), [0.2, 0.7], axis=(2, 0), keepdims=True),
                np.quantile(y, [0.2, 0.7], axis=(2, 0), keepdims=True))
    a = np.full((3, 3), 100, np.int8)
    assert_same(lj.trace(lj.tensor(a), dtype=np.int8), np.trace(a, dtype=np.int8))
    for dt in (np.int8, np.uint8, np.int16, np.float32):
        assert_same(lj.sum(lj.tensor(a), axis=0, dtype=dt), np.sum(a, axis=0, dtype=dt))
        assert_same(lj.prod(lj.tensor(a), dtype=dt), np.prod(a, dtype=dt))


def test_median_of_a_size_known_at_each_call(backend):
    # lj.jit(dynamic=True): the count's parity is known only at a call, and picks the
    # middle value or the mean of the two middle ones then; one trace for every size
    f = lj.jit(lambda x: lj.median(x, axis=0), dynamic=True)
    g = lj.jit(lambda x: lj.median(x), dynamic=True)
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float16, np.int32):
        for i, n in enumerate((5, 6, 7, 4)):
            x = (rng.standard_normal((n, 3)) * 100).astype(dtype)
            assert_same(f(x), np.median(x, axis=0))
            assert_same(g(x), np.median(x))
            if i == 0:
                traces = lj.stats()["traces"]
        assert lj.stats()["traces"] == traces
    assert_same(f(np.array([[1.0, nan, 3.0, inf, -inf]]).T), np.array([nan]))
    assert_same(f(np.array([[inf, -inf, inf, 2.0]]).T), np.array([inf]))


def test_average_of_a_size_known_at_each_call(backend):
    # (the count of returned=True was computed, as a float of the sizes, even when not
    # asked for)
    f = lj.jit(lambda x: lj.average(x, axis=0), dynamic=True)
    for n in (5, 6):
        x = np.arange(n * 3.0).reshape(n, 3)
        assert_same(f(x), np.average(x, axis=0))


@pytest.mark.parametrize("fn", [lambda m, x: m.quantile(x, 0.3, axis=0),
                                lambda m, x: m.quantile(x, [0.0, 0.25, 0.999, 1.0]),
                                lambda m, x: m.percentile(x, [10, 77], axis=0, keepdims=True)])
def test_quantiles_of_a_size_known_at_each_call(fn, backend):
    # the positions q (n - 1) computed at each call, in float64 as NumPy computes them:
    # the static trace's values exactly (NumPy's too, but for float16's ulps)
    f = lj.jit(lambda x: fn(lj, x), dynamic=True)
    rng = np.random.default_rng(4)
    for dtype in (np.float64, np.float16, np.int32):
        for n in (5, 6, 9, 2):
            x = (rng.standard_normal((n, 3)) * 10).astype(dtype)
            got = f(x)
            assert_same(got, fn(lj, lj.tensor(x)).numpy())
            if dtype != np.float16:
                assert_same(got, fn(np, x))
    with_nan = np.array([[1.0, inf, 3.0, nan, 4.0]]).T
    assert_same(f(with_nan), fn(np, with_nan))


@pytest.mark.parametrize("fn", [lambda m, x: m.cov(x), lambda m, x: m.cov(x, ddof=3),
                                lambda m, x: m.corrcoef(x[0], x[1])])
def test_covariance_over_a_count_known_at_each_call(fn, backend):
    # lj.jit's automatic dynamic sizes: the observations' axis becomes symbolic at the
    # second size, and one trace serves every later size (NumPy's max(n - ddof, 0) is
    # taken at each call: n = 2 with ddof=3 gives inf, so NaN and inf as NumPy's)
    f = lj.jit(lambda x: fn(lj, x))
    rng = np.random.default_rng(5)
    for dtype in (np.float64, np.complex128):
        for i, n in enumerate((5, 6, 2, 7)):
            x = (rng.standard_normal((3, n)) * 10).astype(dtype)
            got = f(x)
            assert_same(got, fn(lj, lj.tensor(x)).numpy())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                np.testing.assert_allclose(got.numpy(), fn(np, x), rtol=1e-9)
            if i == 1:
                traces = lj.stats()["traces"]
        assert lj.stats()["traces"] == traces


def test_quantile_derivative_with_respect_to_q(backend):
    # (found by a fuzzing helper: q was read as a constant, a silent zero derivative)
    # d quantile / dq = (n - 1) (x_hi - x_lo), as JAX's
    x = np.array([3.0, 1.0, 4.0, 1.5, 9.0])  # sorted 1, 1.5, 3, 4, 9
    np.testing.assert_allclose(lj.grad(lambda q: lj.quantile(x, q))(0.6).numpy(), 4.0)
    np.testing.assert_allclose(lj.jvp(lambda q: lj.quantile(x, q), (0.6,), (1.0,))[1].numpy(),
                               4.0)
    q = lj.tensor([0.1, 0.6])
    assert_same(lj.quantile(lj.tensor(x), q), np.quantile(x, [0.1, 0.6]))
    np.testing.assert_allclose(lj.grad(lj.percentile(lj.tensor(x), q * 100).sum(), q).numpy(),
                               [2.0, 4.0])


@pytest.mark.parametrize("xd", ["int8", "uint8", "int16", "int64", "float16", "float32"])
def test_quantile_dtypes_are_numpys(backend, xd):
    """The quantiles' dtype is NumPy's: ``x``'s for integer quantiles (0, 1, lists of
    them), ``x``'s promoted with a NumPy float ``q`` (int8 with float16 is float16: it
    gave float64), with a Python float weakly."""
    x = np.array([0, 1, 3, 5, 7], xd)
    for q in (0.5, np.float16(0.5), np.float32(0.25), np.array([0.5, 0.1], np.float32),
              0, 1, np.int8(0), [0, 1], [0.2, 0.7]):
        for name in ("quantile", "nanquantile"):
            want = getattr(np, name)(x, q)
            got = getattr(lj, name)(lj.tensor(x), q)
            assert got.dtype == np.asarray(want).dtype, (name, q)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-3)
    for q in (50, [0, 50, 100], 0, np.int64(50), np.int8(50), True, np.float16(50),
              np.array([100], np.uint8), [20.0, 70.0]):
        for name in ("percentile", "nanpercentile"):
            want = getattr(np, name)(x, q)
            got = getattr(lj, name)(lj.tensor(x), q)
            assert got.dtype == np.asarray(want).dtype, (name, q)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-3)


def test_float_products_in_numpys_order(backend):
    """A float product is taken left to right, as NumPy's: a 0 before the running
    product overflows gives 0, one after it NaN (products of blocks or lanes gave NaN
    for both: found by a bug hunt)."""
    for n in (100, 1000, 70000):
        for dt in (np.float32, np.float64):
            first, last = np.full(n, 9.0, dt), np.full(n, 9.0, dt)
            first[0] = last[-1] = 0.0
            with np.errstate(all="ignore"):
                want = np.prod(first), np.prod(last), np.prod(np.stack([first, last]), axis=1)
            got = (lj.prod(lj.tensor(first)), lj.prod(lj.tensor(last)),
                   lj.prod(lj.tensor(np.stack([first, last])), axis=1))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.numpy(), w)
