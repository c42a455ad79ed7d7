"""``lj.tensor`` / ``lj.asarray`` / ``lj.array`` of nested sequences that hold tensors or
traced scalars (``lazyjit.api.nested``): values and dtypes against ``np.array`` of the
same nesting on every backend, derivatives through them against finite differences in
both modes, ``lj.jit`` over them (one trace for new values), and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import check_grads
from helpers import assert_same


def _nestings(m, a, b, c):
    """The same nestings over ``m``'s values ``a`` (3,) float32, ``b`` () float64 and
    ``c`` (2, 3) int8, with Python numbers and NumPy arrays beside them."""
    return [
        m.asarray([a, a * 2, np.arange(3, dtype=np.float32)]),       # float32 rows
        m.asarray([[b, 1.0], (2.0, b * b)]),                         # tuples, numbers
        m.asarray([a, [1, 2, 3]]),                                   # float32 + int64 -> f64
        m.asarray([c, c + 1, np.ones((2, 3), np.int8)]),             # int8 stays int8
        m.asarray([[True, False, True], c[0]]),                      # bool + int8 -> int8
        m.asarray([b, np.float32(2), 3]),                            # numbers of 3 kinds
        m.asarray([[a]]),                                            # one item per level
        m.asarray([a, a], dtype="float64"),                          # given dtype
        m.array([b, b], dtype=np.float32, ndmin=2),
        m.asarray([a[:0], a[1:1]]),                                  # empty items: (2, 0)
    ]


def test_nested_values_and_dtypes_match_numpy(backend):
    a = np.array([1.5, -2.0, 3.25], np.float32)
    b = np.array(0.75)
    c = np.arange(6, dtype=np.int8).reshape(2, 3)
    want = _nestings(np, a, b, c)
    got = _nestings(lj, lj.tensor(a), lj.tensor(b), lj.tensor(c))
    assert isinstance(got[0], lj.Tensor) and got[0].node.op != "buffer"  # (in the graph)
    lj.realize(*got)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        assert_same(g, w)


def test_derivatives_flow_through_nested_sequences(backend):
    def f(x, y):
        m = lj.asarray([[x[0] * y, 2.0], [lj.sin(x[1]), x[0] * x[1]]])
        return lj.asarray([m, m.T @ m]).sum(axis=0) ** 2

    check_grads(f, [np.array([0.3, -1.2]), np.array(0.7)], order=2)
    x, y = lj.tensor([0.3, -1.2]), lj.tensor(0.7)
    gx, gy = lj.grad(lj.asarray([x[0] * y, y, 1.0]).sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.7, 0.0])
    np.testing.assert_allclose(gy.numpy(), 1.3)


def test_jit_stacks_traced_tensors_and_python_scalars(backend):
    @lj.jit
    def f(xs, s):
        return lj.asarray(xs) * lj.asarray([s, 1.0, s])

    before = lj.stats()["traces"]
    for k in range(3):
        xs = [1.0 + k, 2.0, np.float64(3.0)]  # (a NumPy scalar: static, part of the key)
        out = f(xs, 0.5 * k)
        np.testing.assert_allclose(out.numpy(), np.asarray(xs) * [0.5 * k, 1.0, 0.5 * k])
        assert out.dtype == np.float64
    assert lj.stats()["traces"] - before == 1  # new Python float values: no new trace

    @lj.jit
    def g(w, b):
        return lj.grad(lj.asarray([w * b, b]).sum(), [w, b])

    gw, gb = g(lj.tensor(2.0), lj.tensor(3.0))
    assert (gw.numpy(), gb.numpy()) == (3.0, 3.0)


def test_ragged_nesting_raises_naming_the_shapes():
    a = lj.tensor([1.0, 2.0])
    with pytest.raises(lj.LazyjitError, match=r"not rectangular.*\(2,\).*\(3,\)"):
        lj.asarray([a, [1.0, 2.0, 3.0]])
    with pytest.raises(lj.LazyjitError, match="not rectangular"):
        lj.asarray([[a], []])


def test_plain_nested_numbers_stay_one_leaf():
    t = lj.asarray([[1, 2], [3, 4.5]])
    assert t.node.op == "buffer" and t.dtype == np.float64
    assert_same(t, np.array([[1, 2], [3, 4.5]]))


def test_an_unknown_dtype_name_is_a_dtype_error_at_the_users_line():
    with pytest.raises(lj.DTypeError, match=r"tensor: data type 'float33' not understood "
                       r"\(at .*test_nested.py"):
        lj.tensor([1.0], dtype="float33")
    with pytest.raises(TypeError):  # (also NumPy's exception class)
        lj.asarray([[1.0]], dtype="flaot32")


def test_a_given_dtype_reads_numbers_as_numpy_does():
    t = lj.tensor(np.array([1, 2], np.int8))
    with pytest.raises(OverflowError):  # (np.array([[1, 2], [300, 1]], np.int8) raises)
        lj.asarray([t, [300, 1]], dtype=np.int8)
    with pytest.raises(ValueError):
        lj.asarray([t, [np.nan, 1]], dtype=np.int64)
    with pytest.raises(lj.DTypeError, match="float33"):
        lj.asarray([t], dtype="float33")
    out = lj.asarray([lj.tensor(np.array([300, 1], np.int16)), [3, 4]], dtype=np.int8)
    assert_same(out, np.array([np.array([300, 1], np.int16), [3, 4]], dtype=np.int8))
