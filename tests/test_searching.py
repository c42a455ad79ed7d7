"""``nonzero``, ``where(c)``, ``argwhere``, ``flatnonzero`` and ``searchsorted`` against
NumPy on every backend (ints, floats with NaN and infinities, bools, empty results,
both sides), and their errors."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from helpers import assert_same

nan, inf = float("nan"), float("inf")


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_nonzero_family(dtype, backend, rng):
    for shape in [(3, 4), (5,), (2, 0), (2, 3, 2)]:
        x = (rng.standard_normal(shape) > 0.3).astype(dtype) * (2 if dtype != "bool" else 1)
        x = x.astype(dtype)
        t = lj.tensor(x) * 1 if dtype != "bool" else lj.tensor(x) | False  # (computed)
        for got, want in zip(lj.nonzero(t), np.nonzero(x)):
            assert_same(got, want)
        for got, want in zip(lj.where(t), np.where(x)):
            assert_same(got, want)
        assert_same(lj.argwhere(t), np.argwhere(x))
        assert_same(lj.flatnonzero(t), np.flatnonzero(x))
    with pytest.raises(lj.LazyjitError, match="0-d"):
        lj.nonzero(lj.tensor(np.float64(1.0)))
    with pytest.raises(lj.LazyjitError, match="give both x and y"):
        lj.where(lj.tensor(np.ones(2)) > 0, 1.0)


SORTED = np.array([-inf, -2.0, -2.0, 0.0, 1.5, 1.5, 1.5, 3.0, inf, nan, nan])
VALUES = np.array([[-3.0, -2.0, 0.0, 1.5], [2.0, inf, -inf, nan], [1.5, 3.0, 4.0, -0.0]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side, backend, rng):
    cases = [(SORTED, VALUES), (SORTED.astype(np.float32), VALUES.astype(np.float32)),
             (np.array([1, 3, 3, 7], np.int32), np.array([0, 3, 5, 7, 9], np.int32)),
             (np.arange(5.0), np.float64(2.0)), (np.zeros(0), np.array([1.0, 2.0])),
             (np.sort(rng.standard_normal(9)), rng.standard_normal((2, 3)))]
    got = [lj.searchsorted(lj.tensor(a), lj.tensor(v), side=side) for a, v in cases]
    lj.realize(*got)
    for g, (a, v) in zip(got, cases):
        assert_same(g, np.asarray(np.searchsorted(a, v, side=side), dtype=np.int64))
    with pytest.raises(lj.LazyjitError, match="1-D"):
        lj.searchsorted(lj.tensor(np.ones((2, 2))), 1.0)
    with pytest.raises(lj.LazyjitError, match="side must be"):
        lj.searchsorted(lj.tensor(np.ones(2)), 1.0, side="middle")


def test_bincount_and_unique(backend, rng):
    x = rng.integers(0, 6, 20)
    w = rng.standard_normal(20)
    for got, want in [(lj.bincount(x), np.bincount(x)),
                      (lj.bincount(x, w, minlength=9), np.bincount(x, w, minlength=9)),
                      (lj.bincount(x.astype(np.uint8), minlength=2),
                       np.bincount(x.astype(np.uint8), minlength=2)),
                      (lj.bincount(np.zeros(0, np.int64)), np.bincount(np.zeros(0, np.int64)))]:
        assert_same(got, want)
    g = lj.grad(lambda t: (lj.bincount(x, t) ** 2).sum())(lj.tensor(w))
    assert_same(g, 2 * np.bincount(x, w)[x])
    with pytest.raises(lj.LazyjitError, match="negative"):
        lj.bincount(np.array([1, -1]))
    with pytest.raises(lj.LazyjitError, match="integer"):
        lj.bincount(np.array([1.0]))
    a = np.array([[3.0, 1.0, np.nan], [1.0, np.nan, 3.0]])
    vals, idx, inv, counts = np.unique(a, return_index=True, return_inverse=True,
                                       return_counts=True)
    got = lj.unique(a, return_index=True, return_inverse=True, return_counts=True)
    for g_, w_ in zip(got, (vals, idx, inv, counts)):
        assert_same(g_, w_)
    values, indices, inverse, counts = lj.unique_all(a)  # (each NaN distinct: the standard)
    assert_same(values, np.array([1.0, 3.0, np.nan, np.nan]))
    assert_same(counts, np.array([2, 2, 1, 1]))
    assert_same(lj.take(lj.ravel(lj.tensor(a)), indices), values.numpy())
    assert_same(lj.take(values, inverse), a)
    g = lj.grad(lambda t: (lj.unique_values(t) * lj.tensor([1.0, 10.0, 100.0])).sum())(
        lj.tensor(np.array([3.0, 1.0, 1.0, 2.0])))
    assert_same(g, np.array([100.0, 1.0, 0.0, 10.0]))  # (first occurrences)
    rows = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [0.0, 4.0]])
    for axis in (0, 1, -2):
        want = np.unique(rows, axis=axis, return_index=True, return_inverse=True,
                         return_counts=True)
        assert_same(list(lj.unique(rows, True, True, True, axis=axis)), list(want))
    g = lj.grad(lambda t: (lj.unique(t, axis=0) * lj.tensor([[1.0], [10.0], [100.0]])).sum())(
        lj.tensor(rows))
    assert_same(g, np.array([[100.0] * 2, [10.0] * 2, [0.0] * 2, [1.0] * 2]))
    with pytest.raises(lj.LazyjitError, match="axis"):
        lj.unique(rows, axis=2)
