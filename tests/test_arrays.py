"""NumPy's array manipulation routines (``lazyjit.api.arrays``): values, shapes and dtypes
against NumPy's functions of the same name on every backend (odd shapes, size 0 and 1,
NaN and infinities, ints and bools), and derivatives against finite differences to order
2 in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

nan, inf = float("nan"), float("inf")

# name -> (function of a module m (lj or np) and the inputs, input shapes)
CASES = {
    "flip-all": (lambda m, x: m.flip(x), [(3, 4), (0, 2), (1,), ()]),
    "flip-axis": (lambda m, x: m.flip(x, 1), [(3, 4), (2, 0, 3)]),
    "flip-axes": (lambda m, x: m.flip(x, (0, -1)), [(2, 3, 4)]),
    "roll-flat": (lambda m, x: m.roll(x, 5), [(3, 4), (0,), (1,)]),
    "roll-axis": (lambda m, x: m.roll(x, -2, axis=1), [(3, 4), (2, 5, 1)]),
    "roll-axes": (lambda m, x: m.roll(x, (1, -3), axis=(0, 2)), [(2, 3, 4)]),
    "tile": (lambda m, x: m.tile(x, (2, 1, 3)), [(3, 4), (2,), (), (0, 2)]),
    "tile-int": (lambda m, x: m.tile(x, 3), [(2, 3), (1,)]),
    "repeat-flat": (lambda m, x: m.repeat(x, 2), [(3, 4), (0,)]),
    "repeat-axis": (lambda m, x: m.repeat(x, 3, axis=-1), [(2, 3), (2, 0)]),
    "repeat-counts": (lambda m, x: m.repeat(x, [2, 0, 1], axis=0), [(3, 2), (3,)]),
    "hstack": (lambda m, x: m.hstack([x, x[..., :1]]), [(3, 4), (5,), (2, 0)]),
    "vstack": (lambda m, x: m.vstack([x, x]), [(3, 4), (5,), ()]),
    "meshgrid-xy": (lambda m, x: m.meshgrid(x, x[:2], x[1:]), [(4,), (1,)]),
    "meshgrid-ij": (lambda m, x: m.meshgrid(x, x[:2], indexing="ij"), [(3,)]),
    "meshgrid-sparse": (lambda m, x: m.meshgrid(x, x[:2], sparse=True), [(3,)]),
    "kron": (lambda m, x: m.kron(x, x[:2]), [(3, 4), (3,), (2, 1, 3)]),
    "tril": (lambda m, x: m.tril(x), [(3, 4), (4, 3), (2, 3, 3), (0, 2), (4,)]),
    "tril-k": (lambda m, x: m.tril(x, -1) + m.tril(x, 2), [(3, 4)]),
    "triu": (lambda m, x: m.triu(x), [(3, 4), (4, 3), (2, 3, 3), (1, 1)]),
    "triu-k": (lambda m, x: m.triu(x, 1) + m.triu(x, -2), [(3, 4)]),
    "diagonal": (lambda m, x: m.diagonal(x), [(3, 4), (4, 3), (1, 1), (0, 3)]),
    "diagonal-offsets": (lambda m, x: [m.diagonal(x, k) for k in (-4, -1, 1, 3, 7)],
                         [(3, 4), (5, 2)]),
    "diagonal-axes": (lambda m, x: m.diagonal(x, 1, 2, 0), [(2, 3, 4)]),
    "trace": (lambda m, x: m.trace(x), [(3, 4), (4, 3), (1, 1)]),
    "trace-axes": (lambda m, x: m.trace(x, -1, 1, 2), [(2, 3, 4)]),
    "diag-vector": (lambda m, x: [m.diag(x, k) for k in (-2, 0, 1)], [(3,), (1,), (0,)]),
    "diag-matrix": (lambda m, x: [m.diag(x, k) for k in (-1, 0, 2)], [(3, 4)]),
    "pad-constant": (lambda m, x: m.pad(x, ((1, 2), (0, 3))), [(3, 4), (0, 2)]),
    "pad-values": (lambda m, x: m.pad(x, 2, constant_values=((1, 2), (-3, 4))), [(2, 3)]),
    "pad-1d": (lambda m, x: m.pad(x, (2, 1), constant_values=7), [(4,), (1,)]),
    "pad-edge": (lambda m, x: m.pad(x, ((2, 1), (1, 3)), mode="edge"), [(3, 4), (1, 1)]),
    "pad-reflect": (lambda m, x: m.pad(x, ((2, 1), (1, 3)), mode="reflect"), [(3, 4)]),
    "pad-symmetric": (lambda m, x: m.pad(x, ((2, 3), (1, 3)), mode="symmetric"), [(3, 4)]),
    "pad-wrap": (lambda m, x: m.pad(x, ((2, 3), (4, 1)), mode="wrap"), [(3, 4)]),
    "moveaxis": (lambda m, x: m.moveaxis(x, (0, -1), (2, 0)), [(2, 3, 4), (1, 0, 2)]),
    "moveaxis-one": (lambda m, x: m.moveaxis(x, 1, -1), [(2, 3, 4)]),
}
DTYPES = ("float64", "float32", "int32", "bool")
SPECIAL = np.array([[nan, inf, -inf, -0.0], [1.0, -2.5, 0.0, 3.0], [5.0, nan, -1.0, 2.0]])


def _input(shape, dtype, rng):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 4).astype(dtype)


@pytest.mark.parametrize("name", list(CASES))
def test_against_numpy(name, backend, rng):
    # every dtype and shape of a case in one realize (one compile on compiled backends)
    fn, shapes = CASES[name]
    inputs = [_input(shape, dtype, rng) for dtype in DTYPES for shape in shapes
              if not (dtype == "bool" and name.startswith(("pad-values", "pad-1d")))]
    if len(shapes[0]) == 2 and shapes[0][0] <= 3 and shapes[0][1] <= 4:
        inputs.append(SPECIAL[:shapes[0][0], :shapes[0][1]])  # NaN and infinities
    got = [fn(lj, lj.tensor(x)) for x in inputs]
    lj.realize(*[t for g in got for t in (g if isinstance(g, (list, tuple)) else [g])])
    for g, x in zip(got, inputs):
        assert_same(g, fn(np, x))


def test_errors(backend):
    x = lj.tensor(np.ones((2, 3)))
    with pytest.raises(lj.LazyjitError, match="mode 'median' is not supported"):
        lj.pad(x, 1, mode="median")
    with pytest.raises(lj.LazyjitError, match="reflect pad of 3 along axis 0"):
        lj.pad(x, 3, mode="reflect")
    with pytest.raises(lj.LazyjitError, match="negative pad width"):
        lj.pad(x, -1)
    with pytest.raises(lj.LazyjitError, match="2 counts for an axis of size 3"):
        lj.repeat(x, [1, 2], axis=1)
    with pytest.raises(lj.LazyjitError, match="non-negative"):
        lj.repeat(x, -1)
    with pytest.raises(lj.LazyjitError, match="at least 2 dimensions"):
        lj.diagonal(lj.tensor(np.ones(3)))
    with pytest.raises(lj.LazyjitError, match="1- or 2-d"):
        lj.diag(lj.tensor(np.ones((2, 2, 2))))
    with pytest.raises(lj.LazyjitError, match="indexing must be"):
        lj.meshgrid(x[0], indexing="yx")
    with pytest.raises(lj.LazyjitError, match="out of bounds"):
        lj.flip(x, 2)


def test_symbolic_size_is_a_clear_error():
    x = lj.placeholder("x", "float64", shape=(None, 3))
    with pytest.raises(lj.LazyjitError, match="tril .*needs the sizes of its input when"):
        lj.tril(x)


GRADS = [
    lambda x: lj.flip(x, 0) * x,
    lambda x: lj.roll(x, (1, -2), axis=(0, 1)) * x,
    lambda x: lj.tile(x, (2, 1)) ** 2,
    lambda x: lj.repeat(x, [2, 0, 1], axis=0) * lj.repeat(x, 2, axis=0)[:3],
    lambda x: lj.kron(x, x[:2, :2]),
    lambda x: lj.tril(x * x, -1) + lj.triu(lj.exp(x), 1),
    lambda x: lj.diagonal(x * x, 1) + lj.trace(lj.sin(x)),
    lambda x: lj.diag(lj.diag(x) ** 2, 1),
    lambda x: lj.pad(x * x, ((1, 0), (2, 1)), mode="reflect") +
    lj.pad(x, ((1, 0), (2, 1)), constant_values=2.0),
    lambda x: lj.pad(x ** 3, 1, mode="edge") * lj.pad(x, 1, mode="wrap"),
    lambda x: lj.hstack([x, x * x]) + lj.vstack([x, lj.exp(x)])[:3, :1],
    lambda x: sum(lj.meshgrid(x[0] * x[1], x[2, :2])),
]


def test_gradients_in_both_modes(backend, rng):
    """To order 2 on the reference backend; to order 1 on the compiled ones (each new
    graph a compile: the values of their primitives' second derivatives are checked by
    tests/test_grad.py)."""
    batch = GradBatch()
    for i, fn in enumerate(GRADS):
        check_grads(fn, [rng.standard_normal((3, 4))], 2 if backend == "numpy" else 1,
                    batch=batch, label=f"case{i}")
    batch.run()
