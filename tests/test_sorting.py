"""``lj.cumsum/cumprod`` (a scan) and ``lj.sort/argsort`` (the argsort primitive) against
NumPy, with gradients against finite differences."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_grads

import lazyjit as lj


@pytest.mark.parametrize("n", [1, 6, 13])
def test_sort_and_argsort_match_numpy(backend, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n))
    x[0, ::3] = np.nan  # NaN sorts last
    x[1, : n // 2 + 1] = 0.5  # ties: argsort keeps their order
    np.testing.assert_array_equal(lj.sort(lj.tensor(x)).numpy(), np.sort(x))
    np.testing.assert_array_equal(lj.argsort(lj.tensor(x)).numpy(),
                                  np.argsort(x, kind="stable"))
    xi = rng.integers(-3, 3, (n, 4)).astype(np.int32)
    np.testing.assert_array_equal(lj.argsort(lj.tensor(xi), axis=0).numpy(),
                                  np.argsort(xi, axis=0, kind="stable"))
    np.testing.assert_array_equal(lj.sort(lj.tensor(xi), axis=0, descending=True).numpy(),
                                  -np.sort(-xi, axis=0))
    np.testing.assert_array_equal(lj.argsort(lj.tensor(xi), 0, descending=True).numpy(),
                                  np.argsort(-xi.astype(np.int64), axis=0, kind="stable"))
    b = xi > 0
    np.testing.assert_array_equal(lj.sort(lj.tensor(b), axis=0).numpy(), np.sort(b, axis=0))


def test_sort_gradient(backend):
    rng = np.random.default_rng(0)
    check_grads(lambda x: lj.sort(x, axis=0) * lj.tensor(np.arange(5.0)[:, None]),
                [rng.standard_normal((5, 3))], order=2)


def test_cumsum_cumprod_match_numpy_with_gradients(backend):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5))
    for axis in (None, 0, 1, -1):
        np.testing.assert_allclose(lj.cumsum(lj.tensor(x), axis).numpy(), np.cumsum(x, axis))
        np.testing.assert_allclose(lj.cumprod(lj.tensor(x), axis).numpy(),
                                   np.cumprod(x, axis))
    xi = np.array([[1, 2], [3, 4]], np.int8)
    got = lj.cumsum(lj.tensor(xi), 0).numpy()
    assert got.dtype == np.cumsum(xi, 0).dtype
    np.testing.assert_array_equal(got, np.cumsum(xi, 0))
    check_grads(lambda t: lj.cumsum(t, 1), [x], order=2)
    check_grads(lambda t: lj.cumprod(t, 0), [x], order=2)
    with pytest.raises(lj.LazyjitError, match="cumsum"):
        lj.cumsum(lj.tensor(1.0), 0)


def test_permutation_is_a_permutation_and_bit_identical_on_both_backends():
    outs = []
    for be in ("numpy", "cpu"):
        with lj.config(backend=be):
            outs.append(lj.random.RandomStream(4).permutation(1000).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(np.sort(outs[0]), np.arange(1000))
    assert (outs[0] != np.arange(1000)).mean() > 0.99


def test_sort_flattened_ties_and_signed_zeros(backend):
    x = np.array([[3.0, 1.0], [2.0, 0.0]])
    np.testing.assert_array_equal(lj.sort(lj.tensor(x), axis=None).numpy(), np.sort(x, None))
    np.testing.assert_array_equal(lj.argsort(lj.tensor(x), axis=None).numpy(),
                                  np.argsort(x, None, kind="stable"))
    z = np.array([0.0, -0.0, 0.0, -0.0])
    assert list(np.signbit(lj.sort(lj.tensor(z)).numpy())) == [False, True, False, True]
    # at ties the gradient of sort(x) . w is a permutation of w (a stable sort's)
    g = lj.grad(lambda t: (lj.sort(t) * lj.tensor([1.0, 2.0, 3.0])).sum())(
        lj.tensor(np.ones(3))).numpy()
    np.testing.assert_array_equal(g, [1.0, 2.0, 3.0])


def test_cumulative_ops_start_from_the_first_element_at_any_size(backend):
    """With sizes known only at a call (``lj.function``, ``jit(dynamic=True)``), cumsum
    and cumprod start from the first element as NumPy's accumulate does (``-0.`` stays
    ``-0.``, ``nan+0j`` is not multiplied by ``1+0j``): they started from 0 or 1."""
    x = np.array([-0.0, 1.0, -0.0])
    z = np.array([complex(np.nan, 0), 1 + 1j], np.complex64)
    p, q = lj.placeholder("x", "float64", (None,)), lj.placeholder("z", "complex64", (None,))
    sums, prods = lj.function([p], lj.cumsum(p)), lj.function([q], lj.cumprod(q))
    dynamic = lj.jit(lambda t: lj.cumsum(t), dynamic=True)
    with np.errstate(all="ignore"):
        want_z = np.cumprod(z)
    for got in (sums(x), dynamic(x).numpy()):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(np.cumsum(x)))
    np.testing.assert_array_equal(prods(z), want_z)
    g = lj.function([p], lj.grad(lj.sum(lj.cumprod(p)), p))
    v = np.array([2.0, 3.0, 4.0])
    np.testing.assert_allclose(g(v), [1 + 3 + 12, 2 + 8, 6])
