"""NumPy's construction and manipulation functions of ``lazyjit.api.stacking`` (``rot90``,
``block``, ``delete``, ``insert``, ``vander``, ...): values, shapes and dtypes against
NumPy's functions of the same name on every backend (odd shapes, 0-d, size 0 and 1,
negative axes, ints, bools, float32 and float64), the errors NumPy raises, derivatives
against finite differences in both modes, and ``np.<name>(tensor)`` dispatching here."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same


def _rows(m, x):  # a 2-D view of x for the functions that need one
    return m.reshape(x, (x.shape[0], -1)) if x.ndim > 1 else m.reshape(x, (1, -1))


# name -> (function of a module m (lj or np) and an input, input shapes)
CASES = {
    "atleast_1d": (lambda m, x: m.atleast_1d(x), [(), (0,), (2, 3)]),
    "atleast_2d-many": (lambda m, x: m.atleast_2d(x, x[..., :1]), [(3,), (2, 1, 3)]),
    "atleast_2d-0d": (lambda m, x: m.atleast_2d(x), [()]),
    "atleast_3d": (lambda m, x: m.atleast_3d(x), [(), (4,), (2, 3), (1, 2, 3, 1)]),
    "column_stack": (lambda m, x: m.column_stack([x, x[:, ::-1], x[:, 0]]), [(3, 2), (1, 1)]),
    "column_stack-1d": (lambda m, x: m.column_stack((x, x)), [(4,), (0,), (1,)]),
    "dstack": (lambda m, x: m.dstack([x, x]), [(3,), (2, 3), (2, 1, 2), ()]),
    "array_split": (lambda m, x: m.array_split(x, 3), [(7, 2), (2,), (0, 3)]),
    "array_split-idx": (lambda m, x: m.array_split(x, [1, -2, 9, 0], axis=-1), [(2, 5)]),
    "hsplit": (lambda m, x: m.hsplit(x, 2), [(3, 4), (6,), (1, 2, 3)]),
    "hsplit-idx": (lambda m, x: m.hsplit(x, np.array([1, 3])), [(2, 4)]),
    "vsplit": (lambda m, x: m.vsplit(x, [1]), [(3, 4), (1, 2, 2)]),
    "dsplit": (lambda m, x: m.dsplit(x, 2), [(1, 2, 4), (2, 1, 0)]),
    "rot90": (lambda m, x: [m.rot90(x, k) for k in (-1, 0, 1, 2, 3, 5)],
              [(3, 4), (2, 3, 1), (0, 2)]),
    "rot90-axes": (lambda m, x: m.rot90(x, 1, axes=(-1, 0)), [(2, 3, 4)]),
    "fliplr-ud": (lambda m, x: [m.fliplr(x), m.flipud(x), m.flipud(x[0])], [(3, 4), (1, 2, 2)]),
    "rollaxis": (lambda m, x: [m.rollaxis(x, a, s) for a, s in
                               ((2, 0), (0, 3), (-1, -2), (1, 1), (1, 2))], [(2, 3, 4)]),
    "diagflat": (lambda m, x: [m.diagflat(x, k) for k in (-2, 0, 3)], [(2, 2), (1,), (0,), ()]),
    "vander": (lambda m, x: [m.vander(x), m.vander(x, 1), m.vander(x, 0),
                             m.vander(x, N=4, increasing=True)], [(3,), (0,), (1,)]),
    "select": (lambda m, x: m.select([x > 0.5, x < -1], [x, x[:1] if x.ndim else x], default=7),
               [(3, 4), (), (0,)]),
    "select-scalars": (lambda m, x: m.select([x > 0, x < 0], [1.5, -1]), [(5,)]),
    "isin": (lambda m, x: [m.isin(x, x[:1]), m.isin(x, [0, 1], invert=True),
                           m.isin(x, x[:0])], [(4,), (2, 3), (1, 1)]),
    "isin-0d": (lambda m, x: m.isin(x, [0, 1, 2]), [()]),
    "append": (lambda m, x: [m.append(x, x), m.append(x, [[1, 2, 3]], axis=0)],
               [(2, 3), (0, 3)]),
    "append-flat": (lambda m, x: m.append(x, 5), [(), (2, 2), (0,)]),
    "delete": (lambda m, x: [m.delete(x, 1, axis=-1), m.delete(x, [0, 0, -1], 1),
                             m.delete(x, slice(None, None, -2), 1), m.delete(x, [], 0),
                             m.delete(x, np.array([1]), 1), m.delete(x, -2),
                             m.delete(x, [True, False, True], axis=1)], [(2, 3), (1, 3)]),
    "delete-flat": (lambda m, x: [m.delete(x, 0), m.delete(x, slice(1, 0))], [(), (1,)]),
    "insert": (lambda m, x: [m.insert(x, 1, 9, axis=1), m.insert(x, [1], [[7], [8]], axis=1),
                             m.insert(x, [3, 0, 3, -1], 5, axis=-1), m.insert(x, 6, [1, 2]),
                             m.insert(x, slice(0, 2), [[4], [5]], axis=0),
                             m.insert(x, 0, x[0], axis=0), m.insert(x, [], 1, axis=1),
                             m.insert(x, -3, 2.7, 1)], [(2, 3)]),
    "insert-1d": (lambda m, x: [m.insert(x, 0, [1, 2]), m.insert(x, [0, 0], [3, 4])],
                  [(0,), (1,), ()]),
    "resize": (lambda m, x: [m.resize(x, (3, 5)), m.resize(x, 2), m.resize(x, (0, 2))],
               [(2, 3), (1,), (), (0,)]),
    "block": (lambda m, x: m.block([[x, x[:, :1]], [x[:1], x[:1, :1]]]), [(2, 3), (1, 1)]),
    "block-1d": (lambda m, x: [m.block([x, x[:1], 3]), m.block(x), m.block([[x], [x]])],
                 [(3,), (0,)]),
    "block-0d": (lambda m, x: [m.block(x), m.block([x, x]), m.block([[x]])], [()]),
    "block-3d": (lambda m, x: m.block([[[x], [x]]]), [(2, 2)]),
    "lexsort": (lambda m, x: [m.lexsort([x[0], x[1]]), m.lexsort(x > 0, axis=0)], [(2, 5)]),
    "lexsort-3": (lambda m, x: m.lexsort((x[0] > 0, x[1], x[2] > 1)), [(3, 6), (3, 0)]),
    "matvec": (lambda m, x: [m.matvec(x, x[..., 0, :]), m.vecmat(x[..., 0], x)],
               [(2, 3, 3), (1, 2)]),
    "cumulative_prod": (lambda m, x: [m.cumulative_prod(x, axis=-1),
                                      m.cumulative_prod(x, axis=0, include_initial=True)],
                        [(2, 3), (0, 2)]),
    "cumulative_prod-1d": (lambda m, x: m.cumulative_prod(x, include_initial=True),
                           [(4,), (0,)]),
    "conversions": (lambda m, x: [m.array(x), m.array(x, ndmin=3), m.asanyarray(x),
                                  m.ascontiguousarray(x), m.copy(x), m.array(x, np.float32)],
                    [(), (2, 3)]),
}
DTYPES = ("float64", "float32", "int32", "bool")
FLOAT_ONLY = {"vander", "cumulative_prod", "cumulative_prod-1d"}  # (int overflow: below)


def _input(shape, dtype, rng):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 2).astype(dtype)


def _flat(out) -> list:
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


@pytest.mark.parametrize("name", list(CASES))
def test_against_numpy(name, backend, rng):
    # every dtype and shape of a case in one realize (one compile on compiled backends)
    fn, shapes = CASES[name]
    inputs = [_input(s, d, rng) for d in DTYPES for s in shapes]
    got = [fn(lj, lj.tensor(x)) for x in inputs]
    lj.realize(*[t for g in got for t in _flat(g)])
    for g, x in zip(got, inputs):
        want = fn(np, x)
        assert_same(_flat(g), _flat(want))


def test_integer_powers_and_products_wrap_as_numpy(backend):
    x = np.array([3, -7, 125, 0], np.int8)
    assert_same(lj.vander(lj.tensor(x), 5), np.vander(x, 5))
    y = np.array([[40000, 3], [-5, 70000]], np.int32)
    assert_same(lj.cumulative_prod(lj.tensor(y), axis=1), np.cumulative_prod(y, axis=1))
    u = np.array([3, 9], np.uint64)
    assert_same(lj.vander(lj.tensor(u)), np.vander(u))


def test_partition_is_a_partition(backend, rng):
    x = rng.standard_normal((3, 7))
    x[0, 2] = np.nan
    t = lj.tensor(x)
    for kth, axis in ((2, -1), ([0, 6], 1), (-1, 0), (4, None)):
        out = lj.partition(t, kth, axis=axis).numpy()
        idx = lj.argpartition(t, kth, axis=axis)
        assert idx.dtype == np.int64
        flat = x.ravel() if axis is None else x
        ax = -1 if axis is None else axis
        want = np.partition(flat, kth, axis=ax)
        for k in np.atleast_1d(kth):  # the kth elements as NumPy's, smaller before
            np.testing.assert_array_equal(np.take(out, k, ax), np.take(want, k, ax))
        np.testing.assert_array_equal(np.sort(out, ax), np.sort(want, ax))
        np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy(), ax), out)


def test_constants():
    for got, want in [
        (lj.identity(3), np.identity(3)), (lj.identity(0, dtype=bool), np.identity(0, bool)),
        (lj.tri(3), np.tri(3)), (lj.tri(2, 4, -1, dtype=np.int8), np.tri(2, 4, -1, np.int8)),
        (lj.tril_indices(3), np.tril_indices(3)), (lj.triu_indices(4, 1, 2),
                                                   np.triu_indices(4, 1, 2)),
        (lj.tril_indices(0), np.tril_indices(0)),
        (lj.tril_indices_from(lj.ones((2, 5)), -1), np.tril_indices_from(np.ones((2, 5)), -1)),
        (lj.triu_indices_from(np.ones((3, 1))), np.triu_indices_from(np.ones((3, 1)))),
        (lj.diag_indices(3), np.diag_indices(3)), (lj.diag_indices(2, 4), np.diag_indices(2, 4)),
        (lj.diag_indices_from(lj.ones((2, 2, 2))), np.diag_indices_from(np.ones((2, 2, 2)))),
        (lj.indices((2, 3)), np.indices((2, 3))), (lj.indices((), dtype=np.int8),
                                                   np.indices((), np.int8)),
        (lj.indices((2, 0, 3), sparse=True), np.indices((2, 0, 3), sparse=True)),
        (lj.ix_([1, 0], [True, False, True], []), np.ix_([1, 0], [True, False, True], [])),
        (lj.ix_(lj.tensor([2.5])), np.ix_(np.array([2.5]))),
        (lj.unravel_index(17, (3, 4, 2)), np.unravel_index(17, (3, 4, 2))),
        (lj.unravel_index([0, 5], (2, 3), order="F"), np.unravel_index([0, 5], (2, 3), "F")),
        (lj.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
         np.fromfunction(lambda i, j: i * 10 + j, (2, 3))),
        (lj.fromfunction(lambda i: i, (3,), dtype=int),
         np.fromfunction(lambda i: i, (3,), dtype=int)),
        (lj.logspace(0, 3, 4), np.logspace(0, 3, 4)),
        (lj.logspace([0, 1], 2, 3, base=2, axis=-1), np.logspace([0, 1], 2, 3, base=2, axis=-1)),
        (lj.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4)),
        (lj.geomspace(-1, -16, 5, endpoint=False, dtype=np.float32),
         np.geomspace(-1, -16, 5, endpoint=False, dtype=np.float32)),
    ] + [(getattr(lj, w)(m), getattr(np, w)(m)) for w in
         ("bartlett", "blackman", "hamming", "hanning") for m in (0, 1, 6)] + \
            [(lj.kaiser(m, 3.5), np.kaiser(m, 3.5)) for m in (1, 5)]:
        assert_same(_flat(got), _flat(want))


def test_lazy_ranges_and_indices(backend):
    for start, stop, kw in (([0.5, 2.0], 3.0, {}), (np.float32(1), [2, 5], dict(num=4)),
                            (2, [[1.0], [3.0]], dict(num=3, endpoint=False, base=3.0, axis=1)),
                            (1.0, 1.0, dict(num=1)), (1.0, 2.0, dict(num=0))):
        want = np.logspace(start, stop, **kw)
        assert_same(lj.logspace(lj.tensor(start), stop, **kw), want)
    for start, stop, kw in (([1.0, -2.0], [100.0, -2e3], {}),
                            (np.float32(3), 7.5, dict(num=4, endpoint=False, axis=-1)),
                            ([[2.0]], 2.0, dict(num=1)), (5, 9, dict(num=3, dtype=np.float32))):
        assert_same(lj.geomspace(lj.tensor(start), stop, **kw), np.geomspace(start, stop, **kw))
    idx = np.array([[0, 23], [7, 11]])
    for dt in (np.int64, np.uint8, np.int32):
        for order in "CF":
            assert_same(lj.unravel_index(lj.tensor(idx.astype(dt)), (2, 3, 4), order),
                        np.unravel_index(idx.astype(dt), (2, 3, 4), order))
    with pytest.raises(ValueError, match="out of bounds for array with size 24"):
        lj.unravel_index(lj.tensor([24]), (2, 3, 4))[0].numpy()
    with pytest.raises(ValueError, match="cannot include zero"):
        lj.geomspace(lj.tensor([1.0, 0.0]), 3.0, 4).numpy()


def test_metadata():
    t = lj.ones((2, 0, 3), dtype="int8")
    assert lj.ndim(t) == 3 and lj.shape(t) == (2, 0, 3) and lj.size(t) == 0
    assert lj.size(t, -1) == 3 and lj.size(t, (0, 2)) == 6 and lj.size([[1, 2]], 1) == 2
    assert lj.ndim(5) == 0 and lj.shape([[1], [2]]) == (2, 1) and lj.size(np.ones(4)) == 4
    assert np.size(t, 0) == 2 and np.ndim(t) == 3
    s = lj.shared(np.ones(2), "s")
    assert type(lj.copy(s)) is lj.Tensor and lj.array(t, copy=False) is t
    with pytest.raises(ValueError, match="copy"):
        lj.array([1, 2], copy=False)


# (call, error class, message) of each error NumPy raises too
ERRORS = [
    (lambda: lj.array_split(lj.ones(3), 0), ValueError, "larger than 0"),
    (lambda: lj.array_split(lj.tensor(1.0), 2), IndexError, "0-d"),
    (lambda: lj.hsplit(lj.ones((2, 3)), 2), ValueError, "equal division"),
    (lambda: lj.hsplit(lj.tensor(1.0), 1), ValueError, "1 or more dimensions"),
    (lambda: lj.vsplit(lj.ones(4), 2), ValueError, "2 or more dimensions"),
    (lambda: lj.dsplit(lj.ones((2, 2)), 2), ValueError, "3 or more dimensions"),
    (lambda: lj.rot90(lj.ones((2, 2)), axes=(0,)), ValueError, "len\\(axes\\) must be 2"),
    (lambda: lj.rot90(lj.ones((2, 2)), axes=(1, -1)), ValueError, "must be different"),
    (lambda: lj.rot90(lj.ones((2, 2)), axes=(0, 3)), ValueError, "out of range"),
    (lambda: lj.fliplr(lj.ones(3)), ValueError, ">= 2-d"),
    (lambda: lj.flipud(lj.tensor(1.0)), ValueError, ">= 1-d"),
    (lambda: lj.rollaxis(lj.ones((2, 3)), 0, 3), ValueError, "'start' arg requires"),
    (lambda: lj.rollaxis(lj.ones((2, 3)), 2), ValueError, "out of bounds"),
    (lambda: lj.vander(lj.ones((2, 2))), ValueError, "one-dimensional"),
    (lambda: lj.vander(lj.ones(2), -1), ValueError, "negative dimensions"),
    (lambda: lj.tril_indices_from(lj.ones(3)), ValueError, "must be 2-d"),
    (lambda: lj.diag_indices_from(lj.ones((2, 3))), ValueError, "equal length"),
    (lambda: lj.diag_indices_from(lj.ones(3)), ValueError, "at least 2-d"),
    (lambda: lj.ix_(lj.ones((2, 2))), ValueError, "1 dimensional"),
    (lambda: lj.unravel_index(lj.ones(2), (2,)), TypeError, "only int indices"),
    (lambda: lj.unravel_index(6, (2, 3)), ValueError, "out of bounds"),
    (lambda: lj.select([lj.ones(2) > 0], []), ValueError, "same length"),
    (lambda: lj.select([], []), ValueError, "empty condition list"),
    (lambda: lj.select([lj.ones(2)], [lj.ones(2)]), TypeError, "should be boolean"),
    (lambda: lj.isin(lj.ones(2), [1], kind="hash"), ValueError, "Invalid kind"),
    (lambda: lj.isin(lj.ones(2), [1], kind="table"), ValueError, "'table' method"),
    (lambda: lj.append(lj.ones((2, 2)), lj.ones(2), axis=0), ValueError, ""),
    (lambda: lj.delete(lj.ones((2, 3)), 3, axis=1), IndexError, "out of bounds"),
    (lambda: lj.delete(lj.ones((2, 3)), [0, 5], axis=1), IndexError, "out of bounds"),
    (lambda: lj.delete(lj.ones((2, 3)), [1.0, 2.0], axis=1), IndexError, "integer"),
    (lambda: lj.delete(lj.ones(3), [True, False]), ValueError, "match the axis length"),
    (lambda: lj.delete(lj.tensor(1.0), 0, axis=0), ValueError, "out of bounds"),
    (lambda: lj.insert(lj.ones(3), 4, 1.0), IndexError, "out of bounds"),
    (lambda: lj.insert(lj.ones(3), [0, 5], 1.0), IndexError, "out of bounds"),
    (lambda: lj.insert(lj.ones(3), [[0]], 1.0), ValueError, "one dimensional or scalar"),
    (lambda: lj.insert(lj.ones(3), [1.5, 2.5], 1.0), IndexError, "integer"),
    (lambda: lj.insert(lj.ones((2, 3)), 1, lj.ones((3, 3)), axis=1), ValueError, ""),
    (lambda: lj.resize(lj.ones(3), (2, -1)), ValueError, "non-negative"),
    (lambda: lj.block([]), ValueError, "cannot be empty"),
    (lambda: lj.block([[lj.ones(2)], []]), ValueError, "cannot be empty"),
    (lambda: lj.block([lj.ones(2), [lj.ones(2)]]), ValueError, "depths are mismatched"),
    (lambda: lj.block((lj.ones(2),)), TypeError, "is a tuple"),
    (lambda: lj.block([[lj.ones(2)], [lj.ones(3)]]), ValueError, ""),
    (lambda: lj.lexsort([]), TypeError, "len > 0"),
    (lambda: lj.lexsort([lj.ones(2), lj.ones(3)]), ValueError, "same shape"),
    (lambda: lj.partition(lj.ones(3), 3), ValueError, "out of bounds"),
    (lambda: lj.argpartition(lj.ones((2, 3)), [0, -4]), ValueError, "out of bounds"),
    (lambda: lj.partition(lj.tensor(1.0), 0), ValueError, ""),
    (lambda: lj.matvec(lj.ones(3), lj.ones(3)), ValueError, "enough dimensions"),
    (lambda: lj.vecmat(lj.ones(3), lj.ones((2, 2))), ValueError, ""),
    (lambda: lj.cumulative_prod(lj.ones((2, 2))), ValueError, "axis must be given"),
    (lambda: lj.logspace(lj.tensor(1.0), 2.0, -1), ValueError, "non-negative"),
    (lambda: lj.logspace(lj.tensor(1.0), 2j), TypeError, "complex"),
    (lambda: lj.array([1], order="X"), ValueError, "order must be one of"),
    (lambda: lj.size(lj.ones(2), 1), ValueError, "out of bounds"),
]


def test_errors_as_numpy():
    for i, (call, cls, match) in enumerate(ERRORS):
        with pytest.raises(cls, match=match or None):
            call()
            print(f"ERRORS[{i}] did not raise")


def test_symbolic_size_is_a_clear_error():
    x = lj.placeholder("x", "float64", shape=(None, 3))
    with pytest.raises(lj.LazyjitError, match="needs the sizes of its input"):
        lj.vander(x[:, 0])
    with pytest.raises(lj.LazyjitError, match="must be known when the graph is built"):
        lj.tri(x.shape[0])


GRADS = [
    ("rot90", lambda x: lj.rot90(x * x, 1) + lj.rot90(lj.exp(x), -1, axes=(1, 0)), [(3, 3)]),
    ("block", lambda x: lj.block([[x, x[:, :1] ** 2], [lj.sin(x[:1]), x[:1, :1]]]), [(2, 3)]),
    ("delete", lambda x: lj.delete(x * x, [0, 2], axis=1) + lj.delete(x, [1, -1], 1), [(2, 4)]),
    ("insert", lambda x: lj.insert(x * x, [1, 1, 3], x[:, :1], axis=1)[:, :3]
     + lj.insert(x, 2, lj.exp(x[0]), axis=0)[1:], [(2, 3)]),
    ("vander", lambda x: lj.vander(x, 4) + lj.vander(x, increasing=True)[:, :4], [(4,)]),
    ("select", lambda x: lj.select([x > 0.5, x < -0.5], [x * x, lj.sin(x)], lj.exp(x)), [(3, 4)]),
    ("column_stack", lambda x, y: lj.column_stack([x, y * y, x * y]), [(3,), (3,)]),
    ("logspace", lambda x: lj.logspace(x, x * x + 1, 4, base=3.0), [(2,)]),
    ("misc", lambda x: lj.matvec(x, x[0]) + lj.vecmat(x[:, 1], x) +
     lj.cumulative_prod(x, axis=1, include_initial=True)[:, 1] +
     lj.partition(x, 1, axis=0)[1] + lj.resize(x, (5,))[1:4], [(3, 3)]),
]


def test_gradients_in_both_modes(backend, rng):
    """To order 2 on the reference backend; to order 1 on the compiled ones (each new
    graph a compile)."""
    batch = GradBatch()
    for label, fn, shapes in GRADS:
        args = [rng.standard_normal(s) for s in shapes]
        check_grads(fn, args, 2 if backend == "numpy" else 1, batch=batch, label=label)
    batch.run()


def test_numpy_functions_dispatch_to_lazyjit():
    x = np.arange(6.0).reshape(2, 3)
    t = lj.tensor(x)
    calls = [lambda m, a: m.rot90(a), lambda m, a: m.delete(a, 1, axis=1),
             lambda m, a: m.insert(a, [0], 7.0, axis=0), lambda m, a: m.vander(a[0]),
             lambda m, a: m.column_stack([a[0], a[1]]), lambda m, a: m.block([[a, a]]),
             lambda m, a: m.select([a > 2], [a])]
    for call in calls:
        out = call(np, t)
        assert type(out) is lj.Tensor
        assert_same(out, call(np, x))
    assert np.size(t, axis=1) == 3 and np.shape(t) == (2, 3)
    # NumPy's functions of *arrays (atleast_3d, ix_) run NumPy: right values, no graph
    # (lazyjit/api/interop.py binds the tuple of them as one argument otherwise)
    assert_same(lj.tensor(np.atleast_3d(t)), np.atleast_3d(x))
