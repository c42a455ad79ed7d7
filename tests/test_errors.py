"""Bad input fails at the line that made it, with an error naming the op, the shapes and
the dtypes (``LazyjitError``, a ``ValueError``), or NumPy's ``IndexError``/``TypeError``
where NumPy raises those."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import lazyjit as lj

X23 = lj.tensor(np.ones((2, 3)))
I3 = lj.tensor([1, 2, 3], dtype="int8")

# (id, a call that must fail, fragments its message must contain)
ERRORS = [
    ("add-shapes", lambda: X23 + lj.ones((4,)), ["add", "(2, 3)", "(4,)", "broadcast"]),
    ("mul-shapes", lambda: lj.ones((3, 2)) * lj.ones((2, 3)), ["mul", "(3, 2)", "(2, 3)"]),
    ("where-shapes", lambda: lj.where(X23 > 0, X23, lj.ones(4)), ["where", "(4,)"]),
    ("matmul-inner", lambda: X23 @ lj.ones((4, 5)),
     ["matmul", "(2, 3) float64", "(4, 5) float64", "3 and 4"]),
    ("matmul-vector", lambda: lj.ones(3) @ lj.ones(4), ["matmul", "(3,)", "(4,)"]),
    ("matmul-batch", lambda: lj.ones((2, 3, 4)) @ lj.ones((3, 4, 5)),
     ["matmul", "(2,)", "(3,)"]),
    ("matmul-0d", lambda: lj.tensor(2.0) @ X23, ["matmul", "0-d"]),
    ("dot-inner", lambda: lj.dot(X23, lj.ones(2)), ["dot", "(2, 3)", "(2,)"]),
    ("grad-nonscalar", lambda: lj.grad(X23 * 2, X23), ["grad", "scalar", "(2, 3)"]),
    ("grad-integer-cost", lambda: lj.grad(lj.sum(I3), I3), ["grad", "floating", "int"]),
    ("grad-no-wrt", lambda: lj.grad(lj.sum(X23)), ["grad", "wrt"]),
    ("tensor-strings", lambda: lj.tensor(["a"]), ["tensor", "dtype", "<U1"]),
    ("tensor-objects", lambda: lj.tensor([{}, 1]), ["tensor", "object"]),
    ("tensor-clongdouble", lambda: lj.tensor([1 + 2j], dtype=np.clongdouble),
     ["tensor", np.dtype(np.clongdouble).name, "complex128"]),
    ("tensor-longdouble", lambda: lj.tensor([1.0], dtype=np.longdouble),
     ["tensor", np.dtype(np.longdouble).name, "float16"]),
    ("astype-string", lambda: X23.astype(str), ["astype", "dtype"]),
    ("config-unknown-flag", lambda: lj.config(no_such_flag=1), ["config", "no_such_flag",
                                                                "backend"]),
    ("config-bad-value", lambda: lj.config(backend="tpu"), ["config", "backend", "tpu"]),
    ("reshape-size", lambda: X23.reshape(4, 2), ["reshape", "size 6", "(4, 2)"]),
    ("reshape-two-unknowns", lambda: X23.reshape(-1, -1), ["reshape", "unknown"]),
    ("reshape-unknown-size", lambda: X23.reshape(-1, 4), ["reshape", "size 6"]),
    ("sum-axis", lambda: lj.sum(X23, axis=2), ["sum", "axis 2", "dimension 2"]),
    ("mean-axis", lambda: X23.mean(axis=-3), ["mean", "axis -3"]),
    ("repeated-axis", lambda: X23.max(axis=(0, 0)), ["max", "repeated"]),
    ("argmax-tuple-axis", lambda: X23.argmax(axis=(0, 1)), ["argmax", "axis"]),
    ("max-empty", lambda: lj.max(lj.zeros((3, 0)), axis=1), ["max", "(3, 0)", "identity"]),
    ("transpose-axes", lambda: X23.transpose(0, 0), ["permute", "(2, 3)"]),
    ("squeeze-size", lambda: X23.squeeze(0), ["squeeze", "(2, 3)", "size"]),
    ("broadcast_to", lambda: lj.broadcast_to(X23, (3, 3)), ["broadcast_to", "(2, 3)",
                                                            "(3, 3)"]),
    ("concat-shapes", lambda: lj.concatenate([X23, lj.ones((2, 4))]),
     ["concat", "(2, 3)", "(2, 4)"]),
    ("concat-0d", lambda: lj.concatenate([lj.tensor(1.0), lj.tensor(2.0)]),
     ["concatenate", "zero-dimensional"]),
    ("concat-empty", lambda: lj.concatenate([]), ["concatenate", "at least one"]),
    ("stack-shapes", lambda: lj.stack([X23, lj.ones(3)]), ["stack", "(2, 3)", "(3,)"]),
    ("split-unequal", lambda: lj.split(X23, 2, axis=1), ["split", "3", "2"]),
    ("bitwise-float", lambda: X23 & X23, ["bitwise_and", "float64"]),
    ("invert-float", lambda: ~X23, ["invert", "float64"]),
    ("negative-bool", lambda: -(X23 > 1), ["neg", "bool"]),
    ("scalar-overflow", lambda: I3 + 1000, ["1000", "int8"]),
    ("take-float-indices", lambda: lj.take(X23, lj.tensor([0.5])), ["take", "integers"]),
    ("take_along_axis-ndim", lambda: lj.take_along_axis(X23, lj.tensor([0]), 1),
     ["take_along_axis", "dimensions"]),
    ("set_subtensor-plain", lambda: lj.set_subtensor(X23, 1.0), ["set_subtensor", "x[idx]"]),
    ("set_subtensor-shape", lambda: lj.set_subtensor(X23[0], lj.ones(4)),
     ["broadcast_to", "(4,)", "(3,)"]),
]


@pytest.mark.parametrize("fn,fragments", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_names_op_shapes_and_user_line(fn, fragments):
    with pytest.raises(lj.LazyjitError) as info:
        fn()
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert f"{__file__}:{fn.__code__.co_firstlineno}" in message, message


def test_error_points_at_the_line_inside_a_user_function():
    def model(x):
        h = x * 2
        return h @ lj.ones((5, 1))  # the bad line

    with pytest.raises(lj.LazyjitError) as info:
        model(X23)
    line = model.__code__.co_firstlineno + 2
    assert f"test_errors.py:{line}" in str(info.value)


INDEX_ERRORS = [
    ("int-out-of-range", lambda x: x[2], "out of bounds"),
    ("negative-out-of-range", lambda x: x[:, -4], "out of bounds"),
    ("too-many", lambda x: x[0, 0, 0], "too many indices"),
    ("two-ellipses", lambda x: x[..., ...], "ellipsis"),
    ("float-index", lambda x: x[1.5], "only integers"),
    ("float-array-index", lambda x: x[[0.0, 1.0]], "integer"),
    ("float-tensor-index", lambda x: x[:, lj.tensor([1.0])], "integer"),
]


@pytest.mark.parametrize("fn,match", [e[1:] for e in INDEX_ERRORS],
                         ids=[e[0] for e in INDEX_ERRORS])
def test_indexing_errors_at_build_time(fn, match):
    with pytest.raises(IndexError, match=match):
        fn(X23)


def test_out_of_range_array_index_raises_when_computed_and_cache_stays_usable(backend):
    x = lj.tensor([10.0, 20.0, 30.0])
    with pytest.raises(IndexError):
        x[lj.tensor([0, 3])].numpy()
    with pytest.raises(IndexError):
        lj.take(x, lj.tensor([-4])).numpy()
    # the same trace (same shapes) with valid indices still runs
    np.testing.assert_array_equal(x[lj.tensor([2, -1])].numpy(), [30.0, 30.0])
    np.testing.assert_array_equal(lj.take(x, lj.tensor([-3])).numpy(), [10.0])


def test_grad_errors_are_lazyjit_errors():
    x = lj.tensor([1.0])
    with pytest.raises(lj.DisconnectedInputError) as info:
        lj.grad(lj.sum(x * 2), lj.tensor([3.0]))
    assert isinstance(info.value, lj.LazyjitError) and "grad" in str(info.value)
    with pytest.raises(lj.LazyjitError, match="wrt must be tensors"):
        lj.grad(lj.sum(x), [np.ones(1)])


def test_environment_flags_are_checked():
    import subprocess
    import sys
    code = "import lazyjit"
    env = {"LAZYJIT_FLAGS": "backend=numpy,bogus=1", "PATH": ""}
    root = __file__.rsplit("/tests/", 1)[0]
    r = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": root},
                       capture_output=True, text=True)
    assert r.returncode != 0 and "bogus" in r.stderr and "LazyjitError" in r.stderr


def test_truth_value_and_item_errors():
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        bool(X23)
    with pytest.raises(TypeError):
        len(lj.tensor(1.0))
    with pytest.raises(TypeError, match="integer"):
        range(5)[lj.tensor(1.0)]


def test_valid_after_error():
    """A rejected op leaves nothing behind: the next valid op works."""
    with pytest.raises(lj.LazyjitError):
        X23 + lj.ones(4)
    with lj.config(backend="numpy"):
        np.testing.assert_array_equal((X23 + lj.ones(3)).numpy(), np.full((2, 3), 2.0))


def test_theano_style_derivatives_given_a_function():
    """jacobian and hessian take a tensor (Theano's), hvp of a function takes tuples: a
    function or a bare tensor in their place says so, at the caller's line."""
    x = lj.tensor(np.ones(3))
    with pytest.raises(lj.LazyjitError, match=r"lj\.jacobian\(fn\(x\), x\)"):
        lj.jacobian(lambda a: a * 2, x)
    with pytest.raises(lj.LazyjitError, match=r"lj\.hessian\(fn\(x\), x\)"):
        lj.hessian(lambda a: (a * a).sum(), x)
    with pytest.raises(lj.LazyjitError, match=r"lj\.hvp\(fn, \(x,\), \(v,\)\)"):
        lj.hvp(lambda a: (a * a).sum(), x, x)
    np.testing.assert_array_equal(lj.hvp(lambda a: (a * a).sum(), (x,), (x,))[0].numpy(),
                                  [2.0, 2.0, 2.0])


def test_an_index_out_of_bounds_names_where_the_indexing_was_written(backend):
    """An index array out of bounds fails when the value is computed; the error names
    the line that indexed (found by a new user: it named no line)."""
    a = lj.tensor(np.arange(12.0).reshape(3, 4))
    y = a[lj.tensor([0, 7])]  # the indexing
    line = inspect.currentframe().f_lineno - 1
    with pytest.raises(IndexError, match=rf"(?s)take of a \(3, 4\) float64.*{__file__}\", "
                       rf"line {line},"):
        y.sum().numpy()


def test_a_python_int_out_of_the_dtypes_range_is_an_overflow_error_as_in_numpy(backend):
    """``int8 + 300`` raises what NumPy raises, ``OverflowError`` (still a
    ``LazyjitError``), naming the user's line; a 300-digit int is shown shortened."""
    for dtype, value in ((np.int8, 300), (np.uint8, -1), (np.int64, 2 ** 1000)):
        with pytest.raises(OverflowError):
            np.array([1], dtype) + value
        with pytest.raises(OverflowError, match=f"{__file__}:") as e:
            lj.tensor(np.array([1], dtype)) + value
        assert isinstance(e.value, lj.LazyjitError) and len(str(e.value)) < 300


def test_an_op_on_a_dtype_it_lacks_is_a_type_error_as_in_numpy(backend):
    """``&`` of floats and ``-`` of bools raise what NumPy raises, ``TypeError`` (a
    ``DTypeError``, still a ``LazyjitError``), naming the user's line."""
    f, b = np.ones(2), np.array([True, False])
    for op in (lambda x, y: x & y, lambda x, y: -y):
        with pytest.raises(TypeError):
            op(f, b)
        with pytest.raises(lj.DTypeError, match=f"{__file__}:") as e:
            op(lj.tensor(f), lj.tensor(b))
        assert isinstance(e.value, (TypeError, lj.LazyjitError))


def test_a_python_int_beyond_every_integer_dtype_is_an_overflow_error():
    """``lj.tensor(2**70)``: NumPy makes an array of objects, lazyjit says the int fits
    no integer dtype (``OverflowError``); the ends of int64 and uint64 still fit."""
    for data in (2 ** 70, [1, -2 ** 64], [[2 ** 64]]):
        with pytest.raises(lj.ScalarOverflowError, match="out of the range of every integer"):
            lj.tensor(data)
    assert lj.tensor(-2 ** 63).dtype == np.int64 and lj.tensor(2 ** 64 - 1).dtype == np.uint64


def test_a_singular_matrix_names_where_the_inverse_was_asked_for(backend):
    """``inv`` of a singular matrix raises NumPy's ``LinAlgError`` when computed, naming
    the line that asked for it (inv computes a solve)."""
    a = lj.tensor(np.zeros((2, 2)))
    y = lj.linalg.inv(a)
    line = inspect.currentframe().f_lineno - 1
    with pytest.raises(np.linalg.LinAlgError, match=rf"(?s)Singular matrix.*solve of a "
                       rf"\(2, 2\) float64.*{__file__}\", line {line},"):
        y.numpy()


def test_a_python_branch_on_a_traced_value_names_the_graph_branches():
    # (found by a new-user helper: the message named only return and static arguments)
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(lj.LazyjitError, match=r"lj\.where\(c, a, b\), lj\.cond or lj\.ifelse"):
        lj.jit(f)(np.ones(2))
