"""NumPy's differences, integrals, interpolation, convolution, histograms (lazyjit/api/
calculus.py) and averages, covariances and NaN-ignoring reductions (the newer part of
lazyjit/api/statistics.py) against the NumPy functions of the same names on every
backend: odd shapes, size 0 and 1, NaN and infinities, float32, float64 and integer
inputs (result dtypes included), keyword arguments; errors as NumPy's; derivatives
against finite differences; NumPy's functions on tensors running lazyjit's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

nan, inf = float("nan"), float("inf")
_R = np.random.default_rng(3)
F64 = _R.standard_normal((3, 5))
F32 = _R.standard_normal((4, 7)).astype(np.float32)
INT = _R.integers(-6, 7, (2, 6))
I32 = _R.integers(0, 9, (5,)).astype(np.int32)
BOOL = _R.random((3, 4)) < 0.5
ONE = np.array([[2.5]])
NANS = np.array([[1.0, nan, 3.0, -2.0], [nan, nan, nan, nan], [0.5, inf, -1.0, -inf]])
EMPTY = np.zeros((0, 3))
VEC = _R.standard_normal(6)
XP, FP = np.array([-1.0, 0.0, 0.5, 2.0]), np.array([3.0, 1.0, -1.0, 2.0])
REAL = (F64, F32, INT, ONE)

# (id, fn(m, *arrays) with m NumPy or lazyjit, inputs: a list of tuples of arrays)
CASES = [
    # statistics
    ("average", lambda m, a: m.average(a), [(x,) for x in REAL + (NANS,)]),
    ("average-axis", lambda m, a: m.average(a, axis=-1, keepdims=True), [(x,) for x in REAL]),
    ("average-w", lambda m, a: m.average(a, axis=1, weights=np.arange(1, a.shape[1] + 1),
                                         returned=True), [(x,) for x in REAL]),
    ("average-w-f32", lambda m, a, w: m.average(a, weights=w, returned=True),
     [(F32, F32 * F32 + 1), (INT, np.ones(INT.shape, np.float32))]),
    ("average-w-axes", lambda m, a: m.average(a, axis=(2, 0), weights=np.arange(
        1.0, 7.0).reshape(3, 2), keepdims=True), [(_R.standard_normal((2, 4, 3)),)]),
    ("ptp", lambda m, a: m.ptp(a, axis=0), [(x,) for x in REAL + (NANS,)]),
    ("ptp-all", lambda m, a: m.ptp(a, keepdims=True), [(x,) for x in REAL]),
    ("count_nonzero", lambda m, a: m.count_nonzero(a, axis=1), [(x,) for x in REAL + (
        NANS, BOOL, EMPTY)]),
    ("count_nonzero-all", lambda m, a: m.count_nonzero(a), [(INT,), (BOOL,), (EMPTY,)]),
    ("cov", lambda m, a: m.cov(a), [(x,) for x in REAL + (NANS, VEC, BOOL)]),
    ("cov-kw", lambda m, a: m.cov(a, rowvar=False, bias=True), [(x,) for x in REAL]),
    ("cov-ddof-y", lambda m, a, b: m.cov(a, b, ddof=2), [(F64[0], F64[1]), (F64, F64[:1]),
                                                           (INT[0], INT[1])]),
    ("cov-y-cols", lambda m, a, b: m.cov(a, b, rowvar=False), [(F64, F64[:, :2])]),
    ("cov-dtype", lambda m, a: m.cov(a, dtype=np.float32), [(F64,), (INT,)]),
    ("cov-weights", lambda m, a: m.cov(a, fweights=np.arange(a.shape[1]) % 3,
                                       aweights=np.linspace(0.2, 1.0, a.shape[1])),
     [(F64,), (F32,), (INT,)]),
    ("cov-fweights", lambda m, a: m.cov(a, fweights=[1, 2, 1, 1, 3], ddof=1), [(F64,)]),
    ("cov-aweights", lambda m, a: m.cov(a, aweights=[1, 2, 1, 1, 3], bias=True), [(F64,)]),
    ("cov-empty", lambda m, a: m.cov(a), [(np.zeros((0, 4)),)]),
    ("corrcoef", lambda m, a: m.corrcoef(a), [(x,) for x in (F64, F32, INT, VEC)]),
    ("corrcoef-y", lambda m, a, b: m.corrcoef(a, b, rowvar=False),
     [(F64, F64[:, :1] * 2), (F64[:, 0], F64[:, 1])]),
    ("corrcoef-complex", lambda m, a: m.corrcoef(a + 1j * a[::-1]), [(F64,)]),
    ("nanvar", lambda m, a: m.nanvar(a, axis=1), [(x,) for x in REAL + (NANS, BOOL)]),
    ("nanvar-kw", lambda m, a: m.nanvar(a, axis=0, ddof=1, keepdims=True),
     [(x,) for x in (F64, F32, NANS, ONE)]),
    ("nanvar-complex", lambda m, a: m.nanvar(a + 2j * a[::-1], axis=1), [(NANS,), (F64,)]),
    ("nanstd", lambda m, a: m.nanstd(a), [(x,) for x in REAL + (NANS,)]),
    ("nanstd-kw", lambda m, a: m.nanstd(a, axis=1, ddof=2, dtype=np.float32),
     [(F64,), (NANS,)]),
    ("nanprod", lambda m, a: m.nanprod(a, axis=1), [(x,) for x in REAL + (NANS, BOOL)]),
    ("nanprod-kw", lambda m, a: m.nanprod(a, keepdims=True, dtype=np.float64), [(I32,)]),
    ("nancumsum", lambda m, a: m.nancumsum(a, axis=1), [(x,) for x in REAL + (NANS,)]),
    ("nancumsum-flat", lambda m, a: m.nancumsum(a), [(NANS,), (BOOL,), (EMPTY,)]),
    ("nancumprod", lambda m, a: m.nancumprod(a, axis=0), [(x,) for x in REAL + (NANS,)]),
    ("nanargmax", lambda m, a: m.nanargmax(a, axis=1), [(x,) for x in REAL + (NANS[[0, 2]],)]),
    ("nanargmax-flat", lambda m, a: m.nanargmax(a, keepdims=True), [(NANS,), (INT,)]),
    ("nanargmin", lambda m, a: m.nanargmin(a, axis=0), [(x,) for x in REAL + (NANS[[0, 2]],)]),
    ("nanargmin-nan-inf", lambda m, a: m.nanargmin(a), [(np.array([nan, inf, 2.0]),),
                                                        (np.array([nan, -inf]),)]),
    # calculus
    ("diff", lambda m, a: m.diff(a), [(x,) for x in REAL + (NANS, BOOL, EMPTY)]),
    ("diff-kw", lambda m, a: m.diff(a, n=2, axis=0, prepend=1, append=a[:1]),
     [(x,) for x in REAL + (BOOL,)]),
    ("diff-long", lambda m, a: m.diff(a, n=7), [(F64,), (np.array([3, 1], np.uint8),)]),
    ("diff-0", lambda m, a: m.diff(a, n=0), [(F32,)]),
    ("ediff1d", lambda m, a: m.ediff1d(a), [(x,) for x in REAL + (NANS, EMPTY)]),
    ("ediff1d-kw", lambda m, a: m.ediff1d(a, to_end=[7, 8], to_begin=-1),
     [(F64,), (F32,), (INT,), (EMPTY,)]),
    ("trapezoid", lambda m, a: m.trapezoid(a), [(x,) for x in REAL + (NANS, BOOL, EMPTY)]),
    ("trapezoid-dx", lambda m, a: m.trapezoid(a, dx=0.25, axis=0), [(x,) for x in REAL]),
    ("trapezoid-x", lambda m, a, b: m.trapezoid(a, b), [(F64, VEC[:5] ** 2), (F32, INT[0, :2]
                                                                               .repeat(4)[:7]),
                                                        (F64, F64[::-1])]),
    ("gradient", lambda m, a: m.gradient(a), [(x,) for x in (F64, F32, INT, VEC, NANS)]),
    ("gradient-2", lambda m, a: m.gradient(a, 0.5, edge_order=2),
     [(F64,), (F32,), (INT.reshape(3, 4),)]),
    ("gradient-coords", lambda m, a: m.gradient(a, np.array([0.0, 1, 3]), 2, axis=(0, -1),
                                                edge_order=2), [(F64,), (F32[:3],), (NANS,)]),
    ("gradient-coords1", lambda m, a: m.gradient(a, np.arange(a.shape[1]) * 3, axis=1),
     [(F64,), (F32,), (INT,)]),
    ("gradient-axis", lambda m, a: m.gradient(a, axis=-1), [(F32,), (VEC[:2],)]),
    ("unwrap", lambda m, a: m.unwrap(a * 3), [(x,) for x in REAL + (VEC, EMPTY)]),
    ("unwrap-kw", lambda m, a: m.unwrap(a * 3, discont=4.0, axis=0, period=5),
     [(x,) for x in REAL]),
    ("unwrap-int-period", lambda m, a: m.unwrap(a * 5, period=6), [(INT,), (I32,)]),
    ("polyval", lambda m, a: m.polyval([1.5, -2, 3], a), [(x,) for x in REAL + (NANS,)]),
    ("polyval-int", lambda m, a: m.polyval(np.array([2, 3, -1], np.int32), a),
     [(INT,), (F32,), (I32,)]),
    ("polyval-array", lambda m, p, a: m.polyval(p, a), [(VEC[:3], F64), (I32[:2], 2.5)]),
    ("interp", lambda m, a: m.interp(a, XP, FP), [(x,) for x in REAL + (
        NANS, np.array([-1.0, 0.0, 0.5, 2.0, 5.0, -9.0]))]),
    ("interp-kw", lambda m, a: m.interp(a, XP, FP, left=-7, right=9.5), [(F64,), (NANS,)]),
    ("interp-one", lambda m, a: m.interp(a, [0.5], [3.0]), [(F64,), (NANS,)]),
    ("interp-inf", lambda m, a: m.interp(a, [0.0, 1.0, 2.0], [inf, 1.0, 1.0]),
     [(np.array([0.0, 0.5, 1.0, 1.5]),)]),
    ("interp-period", lambda m, a: m.interp(a, [3.0, 0.5, 2.0, 0.0], [3, 1, -1, 2],
                                            period=-3), [(F64,), (INT,)]),
    ("interp-complex", lambda m, a: m.interp(a, XP, FP + 1j * FP[::-1], right=2j),
     [(F64,), (NANS,)]),
    ("interp-lazy", lambda m, a, xp, fp: m.interp(a, xp, fp), [(F32, XP, FP.astype(np.float32))]),
    ("digitize", lambda m, a: m.digitize(a, [-1, 0, 0.5, 2]), [(x,) for x in REAL + (NANS,)]),
    ("digitize-kw", lambda m, a: m.digitize(a, [3, 0.5, 0.5, -2], right=True),
     [(x,) for x in REAL + (NANS,)]),
    ("digitize-edges", lambda m, a: m.digitize(a, [0.5, 0.5], right=True), [(ONE,), (XP,)]),
    ("digitize-few", lambda m, a: m.digitize(a, []), [(F64,)]),
    ("histogram", lambda m, a: m.histogram(a), [(x,) for x in REAL + (BOOL, EMPTY)]),
    ("histogram-range", lambda m, a: m.histogram(a, 4, range=(-1, 1.5), density=True),
     [(x,) for x in REAL + (NANS,)]),
    ("histogram-edges", lambda m, a: m.histogram(a, [-3, -1, 0, 0.5, 2], weights=a * 2),
     [(F64,), (F32,), (INT,)]),
    ("histogram-weights", lambda m, a: m.histogram(a, 7, weights=np.ones(a.shape, np.int32)),
     [(x,) for x in REAL]),
    ("histogram-on-edges", lambda m, a: m.histogram(a, 10, range=(0, 1)),
     [(np.linspace(0, 1, 21),), (np.linspace(0, 1, 31).astype(np.float32),),
      (np.arange(11) / 10,)]),
    ("histogram-on-edges-data", lambda m, a: m.histogram(a, 3), [(np.arange(13) / 10,),
                                                                (np.arange(-7, 9),)]),
    ("histogram_bin_edges", lambda m, a: m.histogram_bin_edges(a, 3, range=(0, 1)),
     [(x,) for x in REAL]),
    ("histogram_bin_edges-data", lambda m, a: m.histogram_bin_edges(a, 5),
     [(x,) for x in REAL + (EMPTY, np.full(4, 2, np.int8))]),
]
CONV = [VEC, VEC[:1], VEC[:4].astype(np.float32), INT[0], BOOL[0], VEC[:3] + 1j * VEC[3:]]
for _mode in ("full", "same", "valid"):
    CASES += [(f"correlate-{_mode}", lambda m, a, v, mode=_mode: m.correlate(a, v, mode),
               [(a, v) for a in CONV for v in CONV[:4] + CONV[5:]]),
              (f"convolve-{_mode}", lambda m, a, v, mode=_mode: m.convolve(a, v, mode=mode),
               [(a, v) for a in CONV for v in CONV[1:]])]
CASES.append(("correlate-bool", lambda m, a, v: m.correlate(a, v, "full"),
              [(BOOL[0], BOOL[1]), (np.array([1, 2], np.int8), np.array([100, 100], np.int8))]))


def _numpy(fn, arrays):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(np, *arrays)


def _as_tuple(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def test_against_numpy(backend):
    got, want, ids = [], [], []
    for name, fn, inputs in CASES:
        for k, arrays in enumerate(inputs):
            expected = _as_tuple(_numpy(fn, arrays))
            out = _as_tuple(fn(lj, *[lj.tensor(a) for a in arrays]))
            assert len(out) == len(expected), name
            got += out
            want += expected
            ids += [f"{name}[{k}]"] * len(out)
    lj.realize(*got)
    for i, g, w in zip(ids, got, want):
        try:
            if np.asarray(w).dtype == np.float32:  # (sums in another order)
                assert_same(g, w, rtol=2e-5, atol=2e-5)
            else:
                assert_same(g, w)
        except AssertionError as e:
            raise AssertionError(f"{i}: {e}") from None


ERRORS = [  # NumPy and lazyjit raise the same exception class, when the graph is built
    lambda m: m.diff(np.float64(1.0)), lambda m: m.diff(VEC, n=-1),
    lambda m: m.ediff1d(BOOL), lambda m: m.ediff1d(INT, to_begin=[0.5]),
    lambda m: m.gradient(F64[:1]), lambda m: m.gradient(F64, edge_order=3),
    lambda m: m.gradient(F64, 1.0, 2.0, 3.0), lambda m: m.gradient(F64, np.ones((2, 2)), 1),
    lambda m: m.gradient(F64, [1.0, 2.0], 1), lambda m: m.gradient(BOOL),
    lambda m: m.interp(F64, [1.0, 2.0], [1.0]), lambda m: m.interp(F64, [], []),
    lambda m: m.interp(F64, XP, FP, period=0), lambda m: m.interp(F64, F64, F64),
    lambda m: m.convolve([], VEC), lambda m: m.correlate(VEC, []),
    lambda m: m.convolve(VEC, VEC, "middle"), lambda m: m.digitize(F64, [1.0, 0.0, 2.0]),
    lambda m: m.digitize(F64 + 1j, XP), lambda m: m.histogram(F64, 0),
    lambda m: m.histogram(F64, 2.5), lambda m: m.histogram(F64, range=(1, 0)),
    lambda m: m.histogram(F64, range=(0, inf)), lambda m: m.histogram(F64, [1.0, 0.0]),
    lambda m: m.histogram(F64, 3, weights=VEC), lambda m: m.average(F64, weights=VEC),
    lambda m: m.average(F64, axis=1, weights=VEC), lambda m: m.polyval(2.0, F64),
    lambda m: m.average(F64, axis=1, weights=np.zeros(5)), lambda m: m.ptp(BOOL),
    lambda m: m.cov(np.ones((2, 2, 2))), lambda m: m.cov(F64, ddof=1.5),
    lambda m: m.cov(F64, fweights=[1, 2, 1.5, 1, 1]), lambda m: m.cov(F64, aweights=[-1] * 5),
    lambda m: m.cov(F64, fweights=[1, 2]), lambda m: m.cov(F64, aweights=np.ones((5, 1))),
    lambda m: m.average(EMPTY[:, :0], axis=0, returned=True),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_as_numpy(k):
    fn = ERRORS[k]
    with pytest.raises(Exception) as theirs:
        _numpy(fn, ())
    with pytest.raises(theirs.type):
        fn(lj)


def test_runtime_checks():
    """What NumPy checks on values lazyjit checks when the value is computed."""
    x = lj.tensor(NANS)
    with pytest.raises(ValueError, match="All-NaN"):
        lj.nanargmax(x, axis=1).numpy()
    with pytest.raises(ValueError, match="All-NaN"):
        lj.nanargmin(x * 1.0, axis=1).numpy()
    lj.nanargmax(x, axis=0).numpy()  # (no all-NaN column)
    with pytest.raises(ValueError, match="sum to zero"):
        lj.average(lj.tensor(F64), axis=1, weights=lj.tensor(np.zeros(5)) * 1.0).numpy()
    with pytest.raises(ValueError, match="not finite"):
        lj.histogram(x)[0].numpy()
    with pytest.raises(ValueError, match="monotonically"):
        lj.histogram(lj.tensor(F64), lj.tensor([0.0, 1.0, 0.5]) * 1.0)[0].numpy()
    with pytest.raises(ValueError, match="negative"):
        lj.cov(lj.tensor(F64), aweights=lj.tensor(-np.ones(5)) * 1.0).numpy()
    with pytest.raises(lj.LazyjitError, match="not supported"):
        lj.histogram(lj.tensor(F64), "auto")


def test_gradients(backend, rng):
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    xp = np.sort(rng.standard_normal(5))
    fns = [
        ("diff", lambda a: lj.diff(a * a, n=2, axis=0, prepend=1.0), [(4, 3)]),
        ("gradient", lambda a, c: lj.gradient(a * a, c, axis=1, edge_order=2), [(3, 5), (5,)]),
        ("trapezoid", lambda a, b: lj.trapezoid(a * a, b, axis=0), [(4, 3), (4, 3)]),
        ("interp", lambda x, f: lj.interp(x, xp, f), [(7,), (5,)]),
        ("correlate", lambda a, v: lj.correlate(a, v * v, "same"), [(6,), (3,)]),
        ("convolve", lambda a, v: lj.convolve(a, v, "full") ** 2, [(2,), (4,)]),
        ("cov", lambda a, w: lj.cov(a, aweights=w * w + 1), [(3, 5), (5,)]),
        ("corrcoef", lambda a: lj.corrcoef(a, rowvar=False), [(6, 3)]),
        ("average", lambda a, w: lj.average(a, axis=0, weights=w * w + 1), [(4, 2), (4,)]),
        ("nanvar", lambda a: lj.nanstd(a, axis=1) + lj.nanvar(a, ddof=1), [(3, 4)]),
        ("nancum", lambda a: lj.nancumprod(a, 1) + lj.nancumsum(a) .reshape(3, 4) +
         lj.nanprod(a), [(3, 4)]),
        ("unwrap-polyval", lambda a, p: lj.unwrap(a * 4) + lj.polyval(p, a), [(3, 4), (3,)]),
        ("ptp", lambda a: lj.ptp(a, axis=1), [(3, 4)]),
        ("histogram", lambda w: lj.histogram(xp, 3, weights=w)[0] +
         lj.histogram_bin_edges(w, 2), [(5,)]),
    ]
    for label, fn, shapes in fns:
        args = [rng.standard_normal(s) for s in shapes]
        if label == "gradient":
            args[1] = np.cumsum(np.abs(args[1]) + 0.5)
        check_grads(fn, args, order if label in ("diff", "interp", "cov", "gradient") else 1,
                    batch=batch, label=label, rtol=1e-4, atol=1e-5)
    batch.run()


def test_numpy_functions_run_lazyjit(backend):
    t = lj.tensor(F64)
    for out, want in ((np.diff(t, axis=0), np.diff(F64, axis=0)),
                      (np.cov(t, bias=True), np.cov(F64, bias=True)),
                      (np.trapezoid(t, dx=0.5), np.trapezoid(F64, dx=0.5)),
                      (np.nanvar(t, axis=1), np.nanvar(F64, axis=1)),
                      (np.histogram(t, 4)[0], np.histogram(F64, 4)[0]),
                      (np.interp(t, XP, FP), np.interp(F64, XP, FP))):
        assert isinstance(out, lj.Tensor)
        assert_same(out, want)
    assert all(isinstance(g, lj.Tensor) for g in np.gradient(t))


def test_found_by_review(backend):
    """NumPy's values and dtypes in cases a review found otherwise."""
    x32 = np.random.default_rng(1).standard_normal((3, 7)).astype(np.float32)
    m = np.array([[1, 2j, 3], [0, 1, 1j]])
    with np.errstate(all="ignore"):
        pairs = [(lj.cov(lj.tensor(m), fweights=[1, 2, 1]), np.cov(m, fweights=[1, 2, 1])),
                 (lj.cov(lj.tensor(m), aweights=[0.5, 2, 1]), np.cov(m, aweights=[0.5, 2, 1])),
                 (lj.cov(lj.tensor(x32), dtype=np.float32), np.cov(x32, dtype=np.float32)),
                 (lj.corrcoef(lj.tensor(x32), dtype=np.float32),
                  np.corrcoef(x32, dtype=np.float32)),
                 (lj.nanvar(lj.tensor([1.0, 3.0]), dtype=np.complex128),
                  np.nanvar([1.0, 3.0], dtype=np.complex128)),
                 (lj.logspace(lj.tensor(np.float32(0)), lj.tensor(np.float32(2)), 3),
                  np.logspace(np.float32(0), np.float32(2), 3))]
    # (float32 bit for bit where the product is NumPy's own BLAS call; cuBLAS, and the
    # emulation's host GEMM, sum in another order)
    want_exact = backend != "cuda"
    for got, want in pairs:
        exact = want_exact and want.dtype == np.float32
        assert_same(got, want, rtol=0 if exact else None, atol=0 if exact else None)
    with pytest.raises(TypeError):
        lj.interp(lj.tensor([0.5 + 1j]), lj.tensor([0.0, 1.0]), lj.tensor([0.0, 1.0]))
    with pytest.raises(TypeError):
        lj.nanvar(lj.tensor([1.0, 3.0]), dtype=np.int64)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_nan_quantiles_and_median(backend, dtype):
    """nanquantile, nanpercentile and nanmedian against NumPy: slices with NaN, an
    all-NaN slice (NaN), odd and even counts, tuple axes, keepdims, a list of q."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 3, 5)) * 5).astype(dtype)
    if dtype != "int64":
        x[rng.random(x.shape) < 0.3] = np.nan
        x[1, :, 2] = np.nan
    got, want = [], []
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in (None, 0, -1, (0, 2)):
            for keepdims in (False, True):
                got.append(lj.nanmedian(lj.tensor(x), axis=axis, keepdims=keepdims))
                want.append(np.nanmedian(x, axis=axis, keepdims=keepdims))
                got.append(lj.nanquantile(lj.tensor(x), 0.3, axis=axis, keepdims=keepdims))
                want.append(np.nanquantile(x, 0.3, axis=axis, keepdims=keepdims))
            got.append(lj.nanpercentile(lj.tensor(x), [0, 40, 100], axis=axis))
            want.append(np.nanpercentile(x, [0, 40, 100], axis=axis))
    lj.realize(*got)
    for g, w in zip(got, want):
        w = np.asarray(w)
        if np.isnan(w).any() and g.dtype != w.dtype:  # (NumPy's dtype with an all-NaN
            w = w.astype(g.dtype)  # slice and a list q is its input's, else float64)
        assert_same(g, w)


def test_found_by_the_bug_hunt(backend):
    """0-d inputs and empty vectors as NumPy takes them."""
    three = np.array(3.0)
    assert_same(lj.cumulative_prod(lj.tensor(three)), np.cumulative_prod(three))
    assert_same(lj.cumulative_sum(lj.tensor(three), include_initial=True),
                np.cumulative_sum(three, include_initial=True))
    assert_same(lj.linalg.norm(lj.tensor(np.zeros(0)), np.inf), np.linalg.norm(np.zeros(0), np.inf))
    assert_same(lj.linalg.norm(lj.tensor(np.zeros((0, 3))), np.inf, axis=0),
                np.linalg.norm(np.zeros((0, 3)), np.inf, axis=0))
    assert_same(lj.convolve(lj.tensor(np.array(2.0)), lj.tensor([1.0, 3.0])),
                np.convolve(np.array(2.0), [1.0, 3.0]))
    with pytest.raises(ValueError, match="too small depth"):
        lj.correlate(lj.tensor(np.array(2.0)), lj.tensor([1.0, 3.0]))


def test_interp_derivative_at_a_knot_is_the_slope_to_the_right(backend):
    """Found by the new user: at a data point, the derivative in ``x`` was 0; it is the
    slope to the right (JAX's), the value NumPy's."""
    xp, fp = lj.tensor([0.0, 1.0, 2.0]), lj.tensor([0.0, 1.0, 3.0])
    assert float(lj.grad(lambda t: lj.interp(t, xp, fp))(lj.tensor(1.0))) == 2.0
    assert_same(lj.interp(lj.tensor([1.0, 2.0, 0.0]), xp, fp),
                np.interp([1.0, 2.0, 0.0], [0.0, 1.0, 2.0], [0.0, 1.0, 3.0]))
