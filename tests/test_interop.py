"""Tensors in NumPy code (NEP 13 and NEP 18, ``format``): NumPy's ufuncs and functions
on tensors give lazy tensors with NumPy's values, on every backend; what lazyjit does not
have runs NumPy on the values; in-place forms are clear errors."""
from __future__ import annotations

import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

import lazyjit as lj

from helpers import assert_same


@pytest.fixture
def xy(backend, rng):
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal((3, 4))
    return x, y, lj.tensor(x), lj.tensor(y)


@pytest.mark.parametrize("case", [
    lambda m, a, b: m.exp(a),
    lambda m, a, b: m.arctan2(a, b),
    lambda m, a, b: m.add(a, 2.0),
    lambda m, a, b: m.maximum(a, b) * m.sign(b),
    lambda m, a, b: m.mean(a),
    lambda m, a, b: m.sum(a, axis=1),
    lambda m, a, b: m.mean(a, axis=0, keepdims=True),
    lambda m, a, b: m.concatenate([a, b], axis=1),
    lambda m, a, b: m.stack([a, b]),
    lambda m, a, b: m.where(a > 0, a, b),
    lambda m, a, b: m.round(a, 2),
    lambda m, a, b: m.add.reduce(a, 0),
    lambda m, a, b: m.maximum.reduce(a, axis=1, keepdims=True),
    lambda m, a, b: m.matmul(a, b.T),
], ids=range(14))
def test_numpy_functions_on_tensors_are_lazy_tensors(xy, case):
    x, y, tx, ty = xy
    got = case(np, tx, ty)  # NumPy's function, called on tensors
    assert isinstance(got, lj.Tensor)
    assert_same(got, case(np, x, y))


def test_ndarray_operators_with_tensors(xy):
    x, y, tx, _ = xy
    for got, want in ((y * tx, y * x), (y - tx, y - x), (np.float32(2) * tx, 2 * x),
                      (y @ tx.T, y @ x.T), (y > tx, y > x)):
        assert isinstance(got, lj.Tensor)
        assert_same(got, want)


def test_gradient_through_numpy_functions(backend, rng):
    x = rng.standard_normal(5)
    t = lj.tensor(x)
    (g,) = lj.grad(np.sum(np.exp(t) * np.sin(t)), [t])
    np.testing.assert_allclose(g.numpy(), np.exp(x) * (np.sin(x) + np.cos(x)), rtol=1e-12)


def test_what_lazyjit_lacks_runs_numpy_on_the_values(xy):
    x, _, tx, _ = xy
    ints = (x * 10).astype(np.int64)
    got = np.gcd(lj.tensor(ints), 4)  # NumPy's value, as a tensor (no derivative)
    assert_same(got, np.gcd(ints, 4))
    nz = np.where(tx > 0)  # the one-argument form: lj.nonzero (computes its input)
    assert all(isinstance(a, lj.Tensor) for a in nz)
    assert all((a.numpy() == b).all() for a, b in zip(nz, np.where(x > 0)))
    assert np.allclose(tx, x)
    as32 = np.add(tx, 1.0, dtype=np.float32)  # a keyword lj.add does not take: NumPy's
    assert_same(as32, np.add(x, 1.0, dtype=np.float32))
    hist, edges = np.histogram(tx, bins=3)  # (a tuple of NumPy's arrays: each a tensor)
    want = np.histogram(x, bins=3)
    assert_same(hist, want[0])
    assert_same(edges, want[1])
    assert np.array_equal(tx, tx) is True  # (not an array: NumPy's bool)
    np.testing.assert_allclose(np.cumsum(tx, axis=0), np.cumsum(x, axis=0))
    np.testing.assert_allclose(np.add.accumulate(tx, axis=1), np.add.accumulate(x, axis=1))


def test_in_place_forms_are_errors(xy):
    _, _, tx, _ = xy
    with pytest.raises(TypeError, match="out= .*immutable"):
        np.exp(tx, out=np.empty((3, 4)))
    with pytest.raises(TypeError, match="out= .*immutable"):
        np.sum(tx, out=np.empty(()))
    with pytest.raises(TypeError, match="np.put writes into"):
        np.put(tx, [0], [1.0])
    with pytest.raises(TypeError, match="np.add.at writes into"):
        np.add.at(tx, [0], 1.0)


def test_format_spec_on_tensors():
    assert format(lj.tensor(np.float32(1.23456)), ".3f") == "1.235"
    loss = lj.sum(lj.tensor(np.array([0.25, 0.5])))
    assert f"{loss:.2f}|{loss:8.1e}" == "0.75| 7.5e-01"
    assert f"{lj.tensor(np.int64(7)):03d}" == "007"
    assert format(lj.tensor(np.ones(2)), "") == str(lj.tensor(np.ones(2)))
    with pytest.raises(TypeError, match="only 0-d tensors"):
        format(lj.tensor(np.ones(2)), ".3f")


def test_metadata_without_computing():
    t = lj.tensor(np.ones((2, 3), np.float32)) * 2
    assert np.shape(t) == (2, 3) and np.ndim(t) == 2 and np.size(t) == 6
    assert np.result_type(t, np.int64) == np.float64
    assert np.result_type(t, 1.0) == np.float32  # (a Python float is weak, NEP 50)
    assert t.node.buffer is None  # nothing was computed


def test_arguments_mean_what_they_mean_to_numpy(xy):
    x, _, tx, _ = xy
    got = np.sum(tx, 0, np.float32)  # (NumPy's third parameter is dtype, not keepdims)
    assert isinstance(got, lj.Tensor)
    assert_same(got, np.sum(x, 0, np.float32))
    assert_same(np.mean(tx, 1, None, None, True), np.mean(x, 1, None, None, True))
    ints = np.array([1, 2, -3, 4], np.int32)
    got = np.reciprocal(lj.tensor(ints))  # NumPy's truncating integer reciprocal
    assert_same(got, np.reciprocal(ints))
    f_order = np.reshape(tx, (4, 3), "F")  # an argument lazyjit lacks: NumPy's
    assert_same(f_order, np.reshape(x, (4, 3), "F"))
    # lazyjit's linspace calls NumPy's: no recursion through __array_function__
    np.testing.assert_allclose(np.linspace(0, lj.tensor(3.0), 4), [0, 1, 2, 3])
    out = np.zeros((3, 4))
    np.copyto(out, tx)  # writes into the NumPy array: allowed
    assert (out == x).all()


def test_einsum_and_values_outside_the_graph(backend, rng):
    x = rng.standard_normal((2, 3))
    t = lj.tensor(x)
    got = np.einsum("ij,kj->ik", t, t, optimize=True)
    assert isinstance(got, lj.Tensor)
    assert_same(got, np.einsum("ij,kj->ik", x, x))
    (g,) = [lj.grad(lambda a: np.einsum("ij->", a * a))(t)]
    np.testing.assert_allclose(g.numpy(), 2 * x)
    # a function whose value NumPy computed from the values has no derivative: an
    # error, not a zero gradient
    for f in (lambda a: np.i0(a).sum(), lambda a: (np.i0(a) * a).sum(),  # (lazyjit lacks
              lambda a: lj.sum(np.i0(a)), lambda a: (np.add(a, 1.0, dtype=np.float32) ** 2  # i0)
                                                     ).sum()):
        with pytest.raises(lj.LazyjitError, match="which NumPy computed from the values"):
            lj.grad(f)(t).numpy()  # (a deferred gradient: raised when it is expanded)
        with pytest.raises(lj.LazyjitError, match="which NumPy computed from the values"):
            lj.realize(*lj.jvp(f, (t,), (t,)))
    with pytest.raises(lj.LazyjitError, match="which NumPy computed from the values"):
        lj.grad((np.i0(t) * t).sum(), t).numpy()
    # other inputs' gradients go on: NumPy's value is a constant to them, and stop_gradient
    # makes it one explicitly
    w = lj.tensor(np.ones_like(x))
    features = np.i0(t)
    np.testing.assert_allclose(lj.grad((features * w).sum(), w).numpy(), np.i0(x))
    np.testing.assert_allclose(lj.grad(lambda a: (lj.stop_gradient(np.i0(a)) * a).sum())(t)
                               .numpy(), np.i0(x))
    with pytest.raises(lj.LazyjitError, match="returned a float, not a tensor"):
        lj.grad(lambda a: float(lj.sum(a)))(t)


def test_sorting_and_accumulations_are_lazyjit_functions(backend):
    """np.sort, np.argsort, np.cumsum, np.cumprod and ufunc.accumulate on a tensor run
    lazyjit's, so derivatives go through them (NumPy's would be constants: zeros)."""
    x = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]])
    t = lj.tensor(x)
    for got, want in [(np.sort(t), np.sort(x)), (np.sort(t, axis=None), np.sort(x, axis=None)),
                      (np.argsort(t, axis=0), np.argsort(x, axis=0, kind="stable")),
                      (np.cumsum(t, axis=1), np.cumsum(x, axis=1)), (np.cumprod(t), np.cumprod(x)),
                      (np.add.accumulate(t), np.add.accumulate(x)),
                      (np.multiply.accumulate(t, axis=1), np.multiply.accumulate(x, axis=1))]:
        assert isinstance(got, lj.Tensor)
        assert_same(got, want)
    g = lj.grad(lambda a: lj.sum(np.cumsum(a, axis=1)))(t)
    assert_same(g, np.array([[3.0, 2.0, 1.0]] * 2))
    g = lj.grad(lambda a: (np.sort(a, axis=None) * np.arange(6.0)).sum())(t)
    assert_same(g, np.argsort(np.argsort(x, axis=None)).reshape(2, 3).astype(float))


def test_numpy_functions_taking_star_args(backend):
    """Found by the stacking helper: NumPy's ``*xi`` of ``np.meshgrid`` reached lazyjit's
    as one tuple (a wrong grid for equal lengths, a crash for others); now each array is
    one argument, as NumPy means."""
    x, y = np.arange(3.0), np.arange(2.0)
    for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
        got = np.meshgrid(lj.tensor(x), lj.tensor(y), **kw)
        assert all(isinstance(g, lj.Tensor) for g in got)
        assert_same(list(got), list(np.meshgrid(x, y, **kw)))
    got = np.atleast_2d(lj.tensor(x), lj.tensor(y))
    assert_same(list(got), list(np.atleast_2d(x, y)))


def test_split_at_negative_indices(backend):
    """Found by the stacking helper: indices are Python slice bounds, as in NumPy."""
    x = np.arange(7.0)
    for idx in ([-2], [2, -2], [-10, 3], [5, 2], [3, 100], [-1, -3]):
        assert_same(lj.split(lj.tensor(x), idx), np.split(x, idx))


def test_numpy_functions_with_parameters_before_star_args(backend):
    """Found by review: ``np.gradient(t, 2.0)`` (``f`` before ``*varargs``) ran NumPy's,
    outside the graph; it is lazyjit's, lazy and differentiable."""
    x = np.arange(6.0) ** 2
    got = np.gradient(lj.tensor(x), 2.0)
    assert isinstance(got, lj.Tensor)
    assert_same(got, np.gradient(x, 2.0))


def test_ndarray_methods_and_attributes_found_missing(backend):
    """The ndarray methods and attributes a new user reached for (``cumsum cumprod
    argsort copy nonzero repeat``, ``nbytes itemsize``, ``round(t, n)``, ``v in t``)
    give NumPy's values; ``in`` compares as NumPy's ``(a == v).any()``."""
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4) - 4.5
    t = lj.tensor(a)
    pairs = [(t.cumsum(), a.cumsum()), (t.cumsum(axis=1), a.cumsum(axis=1)),
             (t.cumprod(0), a.cumprod(0)), (t.argsort(), a.argsort()),
             (t.argsort(axis=0), a.argsort(axis=0)), (t.copy(), a.copy()),
             (t.repeat(2), a.repeat(2)), (t.repeat([1, 0, 2], axis=0), a.repeat([1, 0, 2], axis=0)),
             (round(t, 1), np.round(a, 1)), (round(t), np.round(a))]
    pairs += list(zip((t > 0).nonzero(), (a > 0).nonzero()))
    for got, want in pairs:
        np.testing.assert_array_equal(got.numpy(), want)
        assert got.dtype == want.dtype
    assert (t.nbytes, t.itemsize) == (a.nbytes, a.itemsize)
    assert (-0.5 in t, 0.25 in t, np.float32(2.5) in t) == (-0.5 in a, 0.25 in a, 2.5 in a)


def test_numpy_only_keywords_are_not_taken_as_an_axis(backend):
    # np.sum(t, initial=0) bound NumPy's initial= to lazyjit's second positional
    # parameter (axis): column sums instead of the total
    a = np.array([[1.5, -2.0, 3.0], [0.0, 4.25, -1.0]])
    t = lj.tensor(a)
    for f in (lambda x: np.sum(x, initial=0), lambda x: np.sum(x, where=True),
              lambda x: np.max(x, initial=1), lambda x: np.prod(x, initial=1),
              lambda x: np.mean(x, where=True), lambda x: np.sum(x, 1, None, None, True, 2.0)):
        np.testing.assert_allclose(np.asarray(f(t)), f(a), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(np.sum(t, axis=1)), a.sum(axis=1), rtol=1e-12)


def test_tensors_pickle_and_copy_as_their_values(backend):
    # (found by a new-user helper: pickle.dumps(tensor) raised "cannot pickle code
    # objects", the creation site's)
    t = lj.tensor([1.0, 2.0]) * 3
    for got in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), copy.copy(t)):
        assert type(got) is lj.Tensor
        assert_same(got, np.array([3.0, 6.0]))
    s = lj.shared(np.ones(2, np.float32), name="w")
    back = pickle.loads(pickle.dumps(s))
    assert isinstance(back, lj.SharedVariable) and back.name == "w" and back is not s
    np.testing.assert_array_equal(back.get_value(), np.ones(2, np.float32))
    with pytest.raises(lj.LazyjitError, match="traced by lj.jit"):
        lj.jit(lambda x: pickle.dumps(x))(np.ones(2))
    # (found by the reviewer) copies keep the graph, so derivatives go through them; a
    # copied or unpickled random stream's counter stays one (lj.function advances it)
    for cp in (copy.copy, copy.deepcopy):
        g = lj.grad(lambda x, cp=cp: lj.sum(cp(x) ** 2))(lj.tensor([1.0, 2.0]))
        np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    for stream in (copy.deepcopy(lj.random.RandomStream(0)),
                   pickle.loads(pickle.dumps(lj.random.RandomStream(0)))):
        f = lj.function([], stream.uniform((3,)))
        assert not np.array_equal(f(), f())


def test_numpy_values_keep_no_chain_and_no_function_recomputes_them(backend):
    # (found by the reviewer) x = np.i0(x) in a loop held every earlier value; a
    # function reading a NumPy value computed from a shared variable compiled it as a
    # pass-through of its first input (a wrong value); an integer NumPy value in a
    # derivative is a constant (no derivative goes through integers)
    x = lj.tensor(np.full(3, 0.01))
    first = weakref.ref(x.node)
    for _ in range(5):
        x = np.i0(x)
    gc.collect()
    assert first() is None
    s = lj.shared(np.array([2.0, 3.0]))
    y = np.add(s, lj.tensor([True, True]), dtype=np.float64)
    with pytest.raises(lj.LazyjitError, match="cannot compute NumPy's function again"):
        lj.function([], y * 1)()  # (traced at the first call)
    t = lj.tensor(np.array([0.3, 1.2, -0.7]))
    k = np.add((t * 10).astype(np.int64), 5, dtype=np.int64)
    np.testing.assert_array_equal(lj.grad(lj.sum(t * k), t).numpy(), k.numpy())


def test_numpy_reciprocal_of_floats_is_lazyjits(backend):
    # (noted by the reviewer: np.reciprocal always ran NumPy, so a gradient through it
    # raised) floats: lj.reciprocal, differentiable; integers: NumPy's truncating one
    t = lj.tensor([2.0, 4.0])
    np.testing.assert_allclose(lj.grad(lambda x: np.reciprocal(x).sum())(t).numpy(),
                               [-0.25, -0.0625])
    assert_same(np.reciprocal(lj.tensor(np.array([1, 2, -3], np.int32))),
                np.reciprocal(np.array([1, 2, -3], np.int32)))
