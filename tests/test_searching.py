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
