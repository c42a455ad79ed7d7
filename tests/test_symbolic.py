"""Symbolic sizes in graphs (issue 13): placeholders' dimensions are symbols, shapes are
exact expressions over them, what the shape rules assume is checked at each call, and
sizes used as values are exact; values against NumPy on every backend, compile counts
through ``lj.stats()``."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lazyjit as lj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_theano_first_tutorial_line(backend):
    """``x = T.matrix('x'); y = T.dot(x, W)``: any number of rows; a call with the wrong
    number of columns names dot, the line that built it, the symbol and the sizes."""
    x = lj.matrix("x")
    W = lj.shared(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = lj.dot(x, W)
    assert repr(x.shape) == "(x0, x1)" and repr(y.shape) == "(x0, 3)"
    f = lj.function([x], y)
    compiles = None
    for rows in (1, 2, 7, 30):
        X = np.random.default_rng(rows).standard_normal((rows, 4))
        np.testing.assert_allclose(f(X), X @ W.get_value().astype(np.float64), rtol=1e-12)
        compiles = lj.stats()["compiles"] if compiles is None else compiles
        assert lj.stats()["compiles"] == compiles
    with pytest.raises(lj.LazyjitError, match=r"(?s)dot: the size x1 must equal 4, but at this "
                       r"call x1 is 5 \(x1 is dimension 1 of 'x'\).*test_symbolic.py"):
        f(np.ones((3, 5)))


SIZES = (1, 2, 5, 6)


@pytest.mark.parametrize("name", ["div_sqrt", "sub_half", "arange", "reshape", "slices",
                                  "mean_var", "eye_zeros"])
def test_sizes_as_values(backend, name):
    """``x.shape[0]`` in Python arithmetic stays symbolic, and passed to lazyjit functions
    is a lazy integer: exact at several sizes, 1 included."""
    m = lj.matrix("m", "float32", shape=(None, 3))
    n = m.shape[0]
    exprs = {
        "div_sqrt": (lambda: m / lj.sqrt(n), lambda M, k: M / np.sqrt(k)),
        "sub_half": (lambda: m - n // 2 + (n * 3 + 1), lambda M, k: M - k // 2 + (k * 3 + 1)),
        "arange": (lambda: lj.arange(n) * 2 + lj.arange(1, n + 1, 2).sum(),
                   lambda M, k: np.arange(k) * 2 + np.arange(1, k + 1, 2).sum()),
        "reshape": (lambda: m.reshape(n // 2, -1), lambda M, k: M.reshape(k // 2, -1)),
        "slices": (lambda: m[1:, ::-1][-2:] + m[: n // 2].sum(), lambda M, k:
                   M[1:, ::-1][-2:] + M[: k // 2].sum()),
        "mean_var": (lambda: m.mean(0) + m.var(0), lambda M, k: M.mean(0) + M.var(0)),
        "eye_zeros": (lambda: lj.eye(n) @ m + lj.zeros((n, 3)) + lj.full((n, 1), n),
                      lambda M, k: np.eye(k) @ M + np.zeros((k, 3)) + np.full((k, 1), k)),
    }
    build, ref = exprs[name]
    f = lj.function([m], build())
    for k in SIZES:
        M = np.random.default_rng(k).standard_normal((k, 3)).astype(np.float32)
        try:
            want = ref(M, k)
        except ValueError:  # NumPy refuses it at this size: so does lazyjit, clearly
            with pytest.raises(lj.LazyjitError, match="at this call"):
                f(M)
            continue
        got = f(M)
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-5)


def test_scan_steps_from_a_placeholder(backend):
    k = lj.scalar("k", "int64")
    h0 = lj.vector("h0")
    out, _ = lj.scan(lambda h: h * 2 + 1, outputs_info=h0, n_steps=k)
    assert repr(out.shape) == "(k, h0_0)"
    f = lj.function([h0, k], [out, out.sum() * k])
    for steps in (0, 1, 4):
        h, rows = np.array([1.0, -1.0]), []
        for _ in range(steps):
            h = h * 2 + 1
            rows.append(h)
        want = np.array(rows).reshape(steps, 2)
        got, total = f(np.array([1.0, -1.0]), steps)
        np.testing.assert_array_equal(got, want)
        assert total == want.sum() * steps
    with pytest.raises(lj.LazyjitError, match="must not be negative"):
        f(np.ones(2), -1)


def test_sizes_never_become_python_numbers():
    m = lj.matrix("m")
    with pytest.raises(lj.InconclusiveDimension, match="known only when the function is called"):
        float(m.shape[0])
    with pytest.raises(lj.InconclusiveDimension, match="m0 > 3"):
        if m.shape[0] > 3:
            pass
    with pytest.raises(lj.LazyjitError, match="the size m0 - 1, known only at each call"):
        (lj.ones(3) * (m.shape[0] - 1)).numpy()
    assert m.shape[0] + 1 > m.shape[0] and m.shape[0] >= 0  # known for every size


def test_broadcasting_against_a_symbol_follows_numpy_at_size_1(backend):
    """A symbol meeting a known size must be 1 or that size; both work, as NumPy's."""
    x = lj.matrix("x")
    b = lj.shared(np.arange(3.0))
    f = lj.function([x], x + b)
    np.testing.assert_array_equal(f(np.ones((2, 3))), np.ones((2, 3)) + np.arange(3.0))
    np.testing.assert_array_equal(f(np.ones((2, 1))), np.ones((2, 1)) + np.arange(3.0))
    with pytest.raises(lj.LazyjitError, match=r"the size x1 must be 1 or 3 \(broadcasting\)"):
        f(np.ones((2, 2)))


# ---- @lj.jit: automatic dynamic shapes ---------------------------------------------------

def _sgd_step():
    """A jitted SGD step of a linear model (updates a shared variable), and its NumPy
    reference."""
    W = lj.shared(np.zeros((4, 3)), "W")

    @lj.jit
    def step(x, y):
        loss = ((x @ W - y) ** 2).mean()
        W.assign(W - 0.1 * lj.grad(loss, W))
        return loss

    def ref(Wv, x, y):
        r = x @ Wv - y
        return (r ** 2).mean(), Wv - 0.1 * 2 * x.T @ r / r.size
    return step, W, ref


_FIFTY = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import lazyjit as lj
sys.path.insert(0, sys.argv[2])
from test_symbolic import _sgd_step
step, W, ref = _sgd_step()
rng = np.random.default_rng(0)
counts = []
for n in list(range(2, 52)) + [1]:
    x, y = rng.standard_normal((n, 4)), rng.standard_normal((n, 3))
    want_loss, want_W = ref(W.get_value(), x, y)
    assert abs(float(step(x, y)) - want_loss) <= 1e-12 * abs(want_loss)
    np.testing.assert_allclose(W.get_value(), want_W, rtol=1e-12, atol=1e-15)
    counts.append((n, lj.stats()["traces"], lj.stats()["compiles"]))
print(json.dumps(counts))
"""


def test_jit_fifty_batch_sizes_two_traces_no_compiles(backend, tmp_path):
    """50 batch sizes: the function runs in Python twice (its first size, then once over
    a symbolic batch), and sizes after the second compile nothing; a batch of 1 is right
    with one more plan at most.  Counted in a fresh process (with its own code cache):
    a node a test before computed and kept alive (hash-consing finds it) would make
    this process's traces differ from a fresh one's."""
    flags = f"backend={backend},cache_dir={tmp_path}"
    proc = subprocess.run([sys.executable, "-c", _FIFTY, ROOT, os.path.dirname(__file__)],
                          env=dict(os.environ, LAZYJIT_FLAGS=flags), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    (_, traces_two, compiles_two), (_, traces_fifty, compiles_fifty) = counts[1], counts[-2]
    assert traces_two == traces_fifty == 2
    assert compiles_fifty == compiles_two
    assert counts[-1][1] == 2 and counts[-1][2] <= compiles_two + 1  # (the batch of 1)


def test_jit_dynamic_option_and_size_dependent_python(backend):
    """dynamic=True traces once for every size; a function that makes a size a Python
    number is traced at each size in automatic mode, and raises with dynamic=True;
    dynamic=False traces every signature."""
    before = lj.stats()["traces"]
    always = lj.jit(lambda x: x * x.shape[0] - x.sum(), dynamic=True)
    for n in (3, 1, 7):
        v = np.arange(float(n))
        np.testing.assert_allclose(always(v).numpy(), v * n - v.sum())
    assert lj.stats()["traces"] - before == 1

    def branchy(x):
        return x * 2 if x.shape[0] > 3 else x - 1
    auto = lj.jit(branchy)
    for n in (2, 5, 3, 6):
        v = np.arange(float(n))
        np.testing.assert_allclose(auto(v).numpy(), v * 2 if n > 3 else v - 1)
    with pytest.raises(lj.InconclusiveDimension, match="x0 > 3"):
        lj.jit(branchy, dynamic=True)(np.ones(4))
    before = lj.stats()["traces"]
    never = lj.jit(lambda x: x + 1, dynamic=False)
    for n in (2, 3, 4):
        np.testing.assert_allclose(never(np.ones(n)).numpy(), np.full(n, 2.0))
    assert lj.stats()["traces"] - before == 3


def test_inconclusive_sizes_name_the_users_line_and_the_lazyjit_function():
    """A size question asked on the user's line names that line; one asked inside a
    lazyjit function that needs the size as a number names the function too."""
    def branchy(x):
        return x * 2 if x.shape[0] > 3 else x - 1
    line = branchy.__code__.co_firstlineno + 1
    with pytest.raises(lj.InconclusiveDimension) as e:
        lj.jit(branchy, dynamic=True)(np.ones(4))
    assert f'line {line}, in branchy' in str(e.value) and "asked inside" not in str(e.value)

    def squeezed(x):  # (which axes have size 1 is known only at a call)
        return lj.squeeze(x)
    line = squeezed.__code__.co_firstlineno + 1
    with pytest.raises(lj.InconclusiveDimension) as e:
        lj.jit(squeezed, dynamic=True)(np.ones((4, 3)))
    assert "asked inside lazyjit's squeeze" in str(e.value)
    assert f'line {line}, in squeezed' in str(e.value)


def test_jit_symbolic_requirements_fall_back_to_exact_traces(backend):
    """x[:n - 3] over a symbolic n needs n >= 3; at n = 2 the signature is traced at its
    size instead, with NumPy's meaning (a negative bound counts from the end)."""
    f = lj.jit(lambda x: x[: x.shape[0] - 3] * 2)
    for n in (5, 6, 2, 9):
        v = np.arange(float(n))
        np.testing.assert_array_equal(f(v).numpy(), v[: n - 3] * 2)


# ---- found by the review, the differential bug hunt and the new-user trial ---------------

def _each(f, args_of, ref, sizes):
    """``f`` against NumPy's ``ref`` at each size; where NumPy raises, lazyjit must raise
    too (an IndexError where NumPy's is, else a LazyjitError), never return a number."""
    for n in sizes:
        args = args_of(n)
        try:
            want = ref(*args)
        except (ValueError, IndexError) as e:
            with pytest.raises(type(e) if isinstance(e, IndexError) else lj.LazyjitError):
                f(*args)
            continue
        got = f(*args)
        got = got.numpy() if isinstance(got, lj.Tensor) else got
        assert np.shape(got) == np.shape(want), (n, np.shape(got), np.shape(want))
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_numpy_semantics_at_every_size(backend):
    """Two symbols broadcast (a 0 meeting a 1 is 0), negative symbolic bounds count from
    the end, sizes as exponents, split, stack, reshape(-1) at size 0, indexing by a
    symbolic arange: NumPy's answer, or a LazyjitError where NumPy raises."""
    x, y = lj.matrix("x"), lj.matrix("y")
    _each(lj.function([x, y], x + y), lambda n: (np.ones((n, 3)), np.arange(3.0)[None]),
          lambda a, b: a + b, (0, 1, 4))
    v = lj.vector("v")
    n = v.shape[0]
    tail = lj.function([v], v[-(n // 2):])
    _each(tail, lambda k: (np.arange(1.0, k + 1.0),), lambda a: a[-(len(a) // 2):], (2, 5))
    with pytest.raises(lj.LazyjitError, match=r"the size -\(v0 // 2\) must be negative .* at "
                       r"this call -\(v0 // 2\) is 0"):  # (NumPy reads -0 as 0: a clear error)
        tail(np.ones(1))
    last = lj.function([v], v[n - 1:])
    _each(last, lambda k: (np.arange(1.0, k + 1.0),), lambda a: a[len(a) - 1:], (1, 4))
    with pytest.raises(lj.LazyjitError, match="the size v0 - 1 must not be negative"):
        last(np.ones(0))  # (NumPy counts -1 from the end of nothing: a clear error here)
    for expr, ref in ((lj.stack([v, v * 2]), lambda a: np.stack([a, a * 2])),
                      (lj.split(v, 2)[1], lambda a: np.split(a, 2)[1]),
                      (v.reshape(n, -1).sum(0), lambda a: a.reshape(len(a), -1).sum(0))):
        _each(lj.function([v], expr), lambda k: (np.arange(1.0, k + 1.0),), ref, (0, 1, 2, 5))
    i = lj.matrix("i", "int64")
    _each(lj.function([i], i ** i.shape[1]), lambda k: (np.arange(6).reshape(2, 3) - k,),
          lambda a: a ** a.shape[1], (0, 2))
    t = lj.vector("t", "int64")
    _each(lj.function([x, t], x[lj.arange(x.shape[0]), t]),
          lambda k: (np.arange(12.0).reshape(4, 3), np.arange(4) % 3 + k),
          lambda a, b: a[np.arange(4), b], (0, 1))


def test_index_errors_name_the_index(backend):
    # an IndexError, as NumPy's (and eager lazyjit's), and a LazyjitError
    x = lj.vector("x")
    f = lj.function([x], x[5])
    for cls in (IndexError, lj.LazyjitError):
        with pytest.raises(cls, match=r"getitem: the index 5 must be in bounds for an "
                           r"axis of size x0, but at this call x0 is 3"):
            f(np.ones(3))
    assert f(np.arange(6.0)) == 5.0
    with pytest.raises(IndexError, match="from the end"):
        lj.jit(lambda a: a[-7], dynamic=True)(np.zeros((3, 4)))
    g = lj.jit(lambda a: lj.take(a, np.array([0]), axis=0))
    g(np.ones((3, 4)))
    with pytest.raises(IndexError, match="empty axis 0"):  # (a new size: traced over it)
        g(np.zeros((0, 4)))


def test_constant_index_arrays_along_a_symbolic_axis(backend):
    """NumPy index arrays (negative entries too, with an int beside them) along an axis
    of symbolic size are checked when computed, as NumPy would at that size (they
    raised InconclusiveDimension from the trace-time bounds check; found by a fuzzing
    helper)."""
    fs = [lj.jit(lambda x: x[np.array([0, -1])].sum(axis=0), dynamic=True),
          lj.jit(lambda x: x[np.array([0, -1]), -2], dynamic=True),
          lj.jit(lambda x: x[1, np.array([-1, 0, 1])], dynamic=True),
          lj.jit(lambda x: lj.take(x, np.array([-2, 1]), axis=1), dynamic=True)]
    refs = [lambda a: a[[0, -1]].sum(axis=0), lambda a: a[[0, -1], -2],
            lambda a: a[1, [-1, 0, 1]], lambda a: np.take(a, [-2, 1], axis=1)]
    for shape in [(4, 4), (6, 5), (2, 3)]:
        a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        for f, ref in zip(fs, refs):
            np.testing.assert_array_equal(f(a).numpy(), ref(a))
    with pytest.raises(IndexError):
        lj.jit(lambda x: x[np.array([0, 5])], dynamic=True)(np.ones((4, 4)))


def test_requirements_of_a_failed_expression_reach_no_other_graph(backend):
    """A requirement recorded by an expression that then failed, or by a graph that was
    never compiled, is not checked by other functions (it made every later function
    fail with 'the size m is not known here')."""
    m = lj.matrix("m", shape=(None, 3))
    with pytest.raises(IndexError):
        m[m.shape[0] - 1, 5]
    a = lj.matrix("a", shape=("m", None))
    lj.function([a], lj.sort(a.reshape(a.shape[0], -1), axis=1))  # built, never called
    y = lj.vector("y")
    np.testing.assert_array_equal(lj.function([y], lj.sort(y * 2))(np.array([3.0, 1.0])),
                                  [2.0, 6.0])


def test_labels_out_of_range_raise_at_each_call(backend):
    """softmax_cross_entropy raises for an out-of-range label when the labels are known
    only at the call, as it does eagerly (it gave the loss of no class)."""
    z, t = lj.matrix("z", "float32"), lj.vector("t", "int64")
    f = lj.function([z, t], lj.softmax_cross_entropy(z, t))
    logits = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    np.testing.assert_allclose(f(logits, np.array([3])), [np.log(np.exp(logits).sum()) - 4],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="label is out of range"):
        f(logits, np.array([7]))


def test_jit_python_that_depends_on_sizes_is_traced_per_size(backend):
    """Under automatic dynamic shapes, Python that compares a size (==, !=, a dict key,
    squeeze without axes, a size ** 0.5) is traced at each size: NumPy's answers."""
    @lj.jit
    def branch(x):
        if x.shape[0] == 1:
            return x * 100.0
        return x * {4: 3.0}.get(x.shape[0], 1.0) / x.shape[0] ** 0.5
    squeezed = lj.jit(lambda x: lj.squeeze(x).sum())
    for n in (3, 5, 4, 1, 2):
        a = np.arange(1.0, n + 1.0)
        want = a * 100.0 if n == 1 else a * {4: 3.0}.get(n, 1.0) / n ** 0.5
        np.testing.assert_allclose(branch(a).numpy(), want, rtol=1e-12)
        m = a.reshape(n, 1)
        np.testing.assert_allclose(squeezed(m).numpy(), np.squeeze(m).sum())


def test_jit_shared_variable_of_a_new_shape_and_a_new_axis(backend):
    """A shared variable given another shape makes the symbolic trace stale (it wrote
    past a buffer on cpu); an axis that starts to vary widens it (one more trace)."""
    W = lj.shared(np.ones((4, 3)), "W")
    f = lj.jit(lambda x: x @ W)
    for n in (2, 3):
        f(np.ones((n, 4)))
    W.set_value(np.arange(20.0).reshape(4, 5))
    for n in (5, 3, 7):
        x = np.ones((n, 4))
        np.testing.assert_array_equal(f(x).numpy(), x @ W.get_value())
    h = lj.jit(lambda x: x * 2.0)
    before = lj.stats()["traces"]
    for shape in [(2, 3), (4, 3)] + [(4, k) for k in range(5, 15)] + [(7, 9)]:
        np.testing.assert_array_equal(h(np.ones(shape)).numpy(), np.full(shape, 2.0))
    assert lj.stats()["traces"] - before == 3


def test_jit_equal_sizes_share_a_symbol(backend):
    """Duck sizing: varying axes of one size at the trace share a symbol, so a function
    that checks x.shape == y.shape traces twice for all sizes; a later call where they
    differ traces once more, with a symbol each (NumPy's broadcasting there)."""
    @lj.jit
    def f(x, y):
        assert x.shape == y.shape
        return x - y

    @lj.jit
    def g(x, y):
        return x - y
    before = lj.stats()["traces"]
    for n in range(2, 12):
        a, b = np.arange(float(n)), np.full(n, 2.0)
        np.testing.assert_array_equal(f(a, b).numpy(), a - b)
        np.testing.assert_array_equal(g(a, b).numpy(), a - b)
    assert lj.stats()["traces"] - before == 4
    for n, m in ((3, 1), (1, 4), (5, 5), (6, 1)):
        a, b = np.arange(float(n)), np.full(m, 2.0)
        np.testing.assert_array_equal(g(a, b).numpy(), a - b)
    with pytest.raises(AssertionError):
        f(np.ones(3), np.ones(1))


def test_found_by_the_second_bug_hunt(backend):
    """A shared variable's shape read as a number (jit retraces, lj.function refuses);
    str() of a size in a trace over symbols lj.jit chose itself; bounds 0 at large
    sizes (scan taps of a symbolic initial value); an empty batch's label check;
    tensordot, linspace, split over symbols."""
    s = lj.shared(np.arange(3.0))
    f = lj.jit(lambda x: x * s.shape[0])
    g = lj.jit(lambda x: x * 100 if s.shape[0] == 3 else x)
    x = lj.vector("x")
    h = lj.function([x], x * s.shape[0])
    np.testing.assert_array_equal(f(np.ones(2)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(g(np.ones(2)).numpy(), [100.0, 100.0])
    np.testing.assert_array_equal(h(np.ones(2)), [3.0, 3.0])
    s.set_value(np.arange(5.0))
    np.testing.assert_array_equal(f(np.ones(2)).numpy(), [5.0, 5.0])
    np.testing.assert_array_equal(g(np.ones(2)).numpy(), [1.0, 1.0])
    with pytest.raises(lj.LazyjitError, match="build the function again"):
        h(np.ones(2))

    text = lj.jit(lambda v: v * (2.0 if f"{v.shape[0]}" == "4" else 1.0))
    for n in (2, 3, 4, 5):
        np.testing.assert_array_equal(text(np.ones(n)).numpy(), np.full(n, 2.0 if n == 4 else 1.0))

    v = lj.vector("v")
    fib, _ = lj.scan(lambda a, b: a + b, outputs_info=dict(initial=v[:2], taps=[-2, -1]),
                     n_steps=4)
    np.testing.assert_array_equal(lj.function([v], fib)(np.array([1.0, 1.0, 7.0])),
                                  [2.0, 3.0, 5.0, 8.0])
    z, t = lj.matrix("z"), lj.vector("t", "int64")
    sce = lj.function([z, t], lj.softmax_cross_entropy(z, t))
    assert sce(np.ones((0, 3)), np.zeros(0, np.int64)).shape == (0,)
    a, b = lj.matrix("a"), lj.matrix("b")
    A, B = np.arange(6.0).reshape(3, 2), np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(lj.function([a, b], lj.tensordot(a, b, axes=([0], [0])))(A, B),
                               np.tensordot(A, B, axes=([0], [0])))
    m = lj.matrix("m")
    M = np.arange(12.0).reshape(3, 4)
    lin, part = lj.function([m], [lj.linspace(0, m.shape[1], m.shape[0] + 1),
                                  lj.split(m, [m.shape[0] // 2])[1]])(M)
    np.testing.assert_allclose(lin, np.linspace(0, 4, 4))
    np.testing.assert_array_equal(part, np.split(M, [1])[1])
    with pytest.raises(lj.LazyjitError, match="start and step must be ints"):
        lj.arange(0, m.shape[0], 0.5)


def test_any_all_over_a_symbolic_size_at_zero(backend):
    m = lj.matrix("m")
    f = lj.function([m], [lj.any(m > 0, axis=0), lj.all(m > 0), lj.any(m)])
    for n in (0, 1, 3):
        M = np.arange(n * 2.0).reshape(n, 2) - 1
        for got, want in zip(f(M), [np.any(M > 0, axis=0), np.all(M > 0), np.any(M)]):
            np.testing.assert_array_equal(got, want)
