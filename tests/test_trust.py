"""Values that were silently wrong (issue 11, part 1): each pinned by the smallest program
that showed it, against NumPy, finite differences or the number it must be."""
from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.trace import node as graph_nodes

from gradcheck import check_grads


# ---- a realized tensor stays differentiable ---------------------------------------------

def test_reading_a_value_does_not_change_its_gradient(backend):
    w = lj.tensor([1.0, 2.0])
    h = w * 3
    print(h)  # realized: h is now a leaf holding [3, 6]
    cost = (h * h).sum() + (w * w).sum()  # 9 w^2 + w^2
    np.testing.assert_allclose(lj.grad(cost, w).numpy(), [20.0, 40.0])
    np.testing.assert_allclose(float(lj.Rop(cost, w, lj.tensor([1.0, 0.0]))), 20.0)
    # a tensor argument is the graph variable it is: h, computed from w, follows it
    _, t = lj.jvp(lambda v: (h * h).sum() + (v * v).sum(), (w,), (lj.tensor([0.0, 1.0]),))
    np.testing.assert_allclose(float(t), 40.0)
    np.testing.assert_allclose(lj.hessian(cost, w).numpy(), np.diag([20.0, 20.0]))


def test_a_printed_clip_keeps_its_gradient(backend):
    x = lj.tensor([1.0, -2.0, 3.0])
    c = lj.clip(x, 0, x)  # min(max(x, 0), x) = x everywhere
    print(c)
    np.testing.assert_allclose(lj.grad(c.sum(), x).numpy(), [1.0, 1.0, 1.0])


def test_gradients_through_a_chain_of_read_values(backend):
    w = lj.tensor([0.5, -1.0])
    a = lj.exp(w).realize()
    b = (a * w).realize()
    float(b.sum())
    cost = (b * a).sum()  # w exp(2w)
    want = np.exp(2 * np.array([0.5, -1.0])) * (1 + 2 * np.array([0.5, -1.0]))
    np.testing.assert_allclose(lj.grad(cost, w).numpy(), want, rtol=1e-12)
    # and with respect to the read value itself (an intermediate: Theano's semantics)
    np.testing.assert_allclose(lj.grad(cost, a).numpy(), b.numpy() + a.numpy() * w.numpy())


def test_a_plain_plan_is_not_reused_through_a_read_value(backend):
    """The same structure once with plain inputs (its plan cached) and then with a read
    value whose graph the gradient goes through: the trace keys are equal (they stop at
    inputs), the second plan is not the first (it was half the gradient)."""
    def f(a, b):
        return lj.sum(a * a * b)
    lj.grad(f, argnums=1)(np.array([1.0, 2.0]), np.array([3.0, 4.0])).numpy()
    w = lj.tensor([0.5, -1.0])
    a = lj.exp(w).realize()
    b = (a * w).realize()
    cost = (b * a).sum()
    np.testing.assert_allclose(lj.grad(cost, a).numpy(), 2 * b.numpy())


def test_a_freed_graph_is_an_error_not_a_zero(backend):
    w = lj.tensor([1.0, 2.0])
    h = (w * 3).realize()
    h2 = (h + 1).realize()
    del h  # nothing holds the graph that computed h any more
    gc.collect()
    with pytest.raises(lj.LazyjitError, match="graph has been freed"):
        lj.grad((h2 * h2).sum(), w)
    # a derivative that cannot pass through the freed value is fine
    np.testing.assert_allclose(lj.grad((h2 * w).sum(), h2).numpy(), [1.0, 2.0])


def test_the_eager_training_loop_keeps_flat_memory():
    """``w = w - lr * g`` every step (examples/digits.py): the graphs of earlier steps are
    released (the live graph nodes stay as many), and the plan is reused."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 8)), rng.normal(size=(32, 1))
    params = [lj.tensor(rng.normal(size=(8, 16))), lj.tensor(np.zeros(16)),
              lj.tensor(rng.normal(size=(16, 1)))]
    velocity = [lj.zeros_like(p) for p in params]

    def step(params, velocity):
        w1, b1, w2 = params
        loss = ((lj.tanh(lj.tensor(x) @ w1 + b1) @ w2 - lj.tensor(y)) ** 2).mean()
        grads = lj.grad(loss, params)
        velocity = [0.9 * v - 0.01 * g for v, g in zip(velocity, grads)]
        params = [p + v for p, v in zip(params, velocity)]
        lj.realize(*params, *velocity, loss)
        return params, velocity, float(loss)

    def live_nodes() -> int:
        gc.collect()
        return sum(type(o) is graph_nodes.Node for o in gc.get_objects())

    for _ in range(20):
        params, velocity, loss = step(params, velocity)
    nodes, misses = live_nodes(), lj.stats()["trace_cache_misses"]
    for _ in range(180):
        params, velocity, loss = step(params, velocity)
    assert live_nodes() == nodes
    assert lj.stats()["trace_cache_misses"] == misses  # one plan for every step
    assert math.isfinite(loss)


def test_alternating_updates_are_not_differentiated_through(backend):
    """Found by review: updating b after a read update of a (a GAN, coordinate
    descent) differentiated through a's optimizer step (the gradients that went into a
    value that was read are constants, as torch.no_grad updates), and kept every step."""
    def loss(a, b):
        return ((a * b - 1.0) ** 2).sum()

    a, b = lj.tensor([0.5]), lj.tensor([3.0])
    a1 = a - 0.1 * lj.grad(loss(a, b), a)
    a1.numpy()
    want = 2 * (a1.numpy() * 3.0 - 1.0) * a1.numpy()  # a1 as a constant
    np.testing.assert_allclose(lj.grad(loss(a1, b), b).numpy(), want, rtol=1e-12)
    misses = []
    for _ in range(30):  # both players updated and read, in turn
        a = a - 0.05 * lj.grad(loss(a, b), a)
        a.numpy()
        gb = lj.grad(loss(a, b), b)
        want = 2 * (a.numpy() * b.numpy() - 1.0) * a.numpy()
        np.testing.assert_allclose(gb.numpy(), want, rtol=1e-12)
        b = b - 0.05 * gb
        b.numpy()
        misses.append(lj.stats()["trace_cache_misses"])
    assert misses[-1] == misses[5]  # the same plans every step: no chain of steps
    # a meta-gradient through an update that was read is cut the same way (build it
    # before reading to differentiate through the update)
    w, x = lj.tensor([1.0]), lj.tensor([2.0])
    inner = lambda w: ((w * x - 1) ** 2).sum()  # noqa: E731
    w2 = w - 0.1 * lj.grad(inner(w), w)
    np.testing.assert_allclose(lj.grad(inner(w2), w).numpy(), [0.16])  # through the step
    w2.numpy()
    np.testing.assert_allclose(lj.grad(inner(w2), w).numpy(), [0.8])  # a read step: cut


def test_gradients_of_gradients_through_read_values(backend):
    w = lj.tensor([1.0, 2.0])
    h = w * 3
    a = (h * h).sum()
    print(h)
    g = lj.grad(a + (h * h).sum(), h)  # 4 h, through the node and the read leaf
    np.testing.assert_allclose(lj.grad(g.sum(), w).numpy(), [12.0, 12.0])  # was doubled
    x = lj.tensor([1.0, 2.0])
    gx = lj.grad((x ** 3).sum(), x)
    print(gx)  # a gradient read, then differentiated: a Hessian-vector product
    np.testing.assert_allclose(lj.grad((gx * lj.tensor([1.0, 0.0])).sum(), x).numpy(), [6, 0])


def test_freed_graphs_that_cannot_matter_are_not_errors(backend):
    """Found by review: a value read inside a function that returned its gradient, a
    freed graph that never involved the target, a stop_gradient over a freed value."""
    w = lj.tensor([1.0, 2.0, 3.0])

    def gradient(w, batch):
        x = lj.tensor(batch) / 10.0
        x.numpy()
        return lj.grad(((x * w) ** 2).sum(), w)

    np.testing.assert_allclose(gradient(w, np.arange(3.0)).numpy(), [0.0, 0.04, 0.24])
    m = lj.tensor(np.ones((3, 2)))
    x = lj.tensor(np.arange(9.0).reshape(3, 3)) / 10
    x.numpy()
    batch = x[:2]
    del x
    gc.collect()
    np.testing.assert_allclose(lj.grad(((batch @ m) ** 2).sum(), m).numpy(),
                               [[0.72, 0.72], [1.02, 1.02], [1.32, 1.32]])
    y = lj.tensor(np.arange(9.0).reshape(3, 3)) * m[:, :1].T  # depends on m
    y.numpy()
    batch = lj.stop_gradient(y[:2])
    del y
    gc.collect()
    np.testing.assert_allclose(lj.grad(((batch @ m) ** 2).sum(), m).numpy(),
                               [[72.0, 72.0], [102.0, 102.0], [132.0, 132.0]])


def test_derivatives_do_not_silently_skip_a_jit_call(backend):
    """Found by review: a jitted function's output was a constant to lj.grad (the
    issue's own example, through @lj.jit): now an error names the jit call."""
    w = lj.tensor([1.0, 2.0])
    triple = lj.jit(lambda v: v * 3)
    for _ in range(2):  # (the first call traces; the second takes the call's fast path)
        h = triple(w)
        with pytest.raises(lj.LazyjitError, match="jitted function"):
            lj.grad((h * h).sum() + (w * w).sum(), w)
    feats = lj.jit(lambda v: v * 3)(np.ones(2))  # from arrays: nothing to differentiate
    np.testing.assert_allclose(lj.grad((feats * w).sum(), w).numpy(), [3.0, 3.0])


def test_derivatives_do_not_skip_a_jit_call_through_captures_or_chains(backend):
    """Found by this session's fuzzing helper: a jitted function's output was a constant
    to lj.grad when the differentiated tensor reached the function as a closure capture
    or a shared variable rather than an argument (d/dw of ``f(x) + w`` with ``f = x * w``
    gave 1, not 2), or through another jitted function's output (``f(f(w))``).  Each now
    raises, naming the jit call; a derivative that depends on none of them still works."""
    w = lj.tensor([1.0, 2.0, 3.0])
    s = lj.shared(np.ones(3))
    by_closure = lj.jit(lambda x: x * w)
    by_shared = lj.jit(lambda x: x * s)
    tanh = lj.jit(lj.tanh)
    for _ in range(2):  # (the first call traces; the second takes the fast path)
        for wrt, y in ((w, by_closure(np.ones(3))), (s, by_shared(np.ones(3))),
                       (w, tanh(tanh(w)))):
            with pytest.raises(lj.LazyjitError, match="jitted function"):
                lj.grad((y + wrt).sum(), [wrt])
            with pytest.raises(lj.LazyjitError, match="jitted function"):
                lj.grad((y * y).sum() + (wrt * wrt).sum(), [wrt])
    v = lj.tensor([2.0, 2.0, 2.0])  # made before the calls below: no jit output reads it
    y = tanh(tanh(lj.tensor(np.zeros(3))))
    np.testing.assert_allclose(lj.grad((y + v * v).sum(), [v])[0].numpy(), [4.0] * 3)


def test_a_numpy_float_constant_argument_of_either_sign(backend):
    """Found by this session's fuzzing helper: a NumPy scalar argument is a constant of
    the trace (not a runtime input, as a Python float is), and np.float64(-0.0) shared
    the trace of np.float64(0.0) (equal, same hash): 1 / (x * s) gave -inf for s = 0."""
    g = lj.jit(lambda x, s: 1.0 / (x * s))
    x = np.ones(2, np.float32)
    for s in (np.float64(-0.0), np.float64(0.0), np.float32(-0.0), np.float64(-0.0)):
        with np.errstate(divide="ignore"):
            want = 1.0 / (x * s)
        np.testing.assert_array_equal(g(x, s).numpy(), want)


def test_an_integer_power_of_a_shared_exponent_is_checked_at_each_call(backend):
    a = lj.tensor(np.array([2, 3]))
    e = lj.shared(np.array([1, 2]))
    f = lj.function([], a ** e)
    h = lj.jit(lambda x: x ** e)
    np.testing.assert_array_equal(f(), [2, 9])
    np.testing.assert_array_equal(h(np.array([2, 3])).numpy(), [2, 9])
    e.set_value(np.array([-1, 2]))
    with pytest.raises(ValueError, match="negative integer powers"):
        f()
    with pytest.raises(ValueError, match="negative integer powers"):
        h(np.array([2, 3]))


def test_a_gradient_wrt_a_lazy_value_after_its_cost_was_read(backend):
    """Found by the new-user trial: the cost read before its gradient is built, the wrt a
    lazy tensor whose graph holds a gradient (an eager SGD loop that prints the loss)."""
    w = lj.tensor(np.array([1.0, 2.0]))
    for _ in range(3):
        loss = (w * w).sum()
        g = lj.grad(loss, w)
        float(loss)
        w = w - 0.25 * g
    np.testing.assert_allclose(w.numpy(), [0.125, 0.25])


# ---- symbolic sizes used as Python numbers ---------------------------------------------------

def test_symbolic_sizes_never_become_a_silent_number():
    """A symbolic size made a Python number (float, int, bool, an ``if``, a NumPy
    function, min/max of builtins) raises at that line; ``==`` is true only for the same
    size (JAX's semantics: a size is not equal to a number it is only sometimes)."""
    m = lj.matrix("m", shape=(None, 3))
    n = m.shape[0]
    for use in (lambda: m / np.sqrt(n), lambda: m * min(n, 3),
                lambda: 1.0 if n > 3 else 0.0, lambda: float(n), lambda: range(n),
                lambda: len(m), lambda: m * (2.0 / n), lambda: np.zeros((n, 3)),
                lambda: bool(n), lambda: int(n), lambda: n / 2):
        with pytest.raises(lj.LazyjitError, match="known only when the function is called"):
            use()
    for use in (lambda: n == 4, lambda: n != 4, lambda: m.shape == (4, 3)):
        with pytest.raises(lj.InconclusiveDimension, match="depends on the sizes"):
            use()
    assert n == n and (n + 1 > n) is True and (n + 1 == n) is False and m.shape == (n, 3)
    assert repr(n) == "m0" and m.shape == (n, 3) and repr(m.size) == "3*m0"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_sizes_as_scalars_are_exact(backend, dtype):
    """n - 1 as a float32 constant was n (found by the new-user trial): sizes go into the
    graph as exact int64 constants, cast there; one that does not fit the dtype raises."""
    x = lj.vector("x", dtype)
    n = x.shape[0]
    f = lj.function([x], [x * (n - 1), x + (n + 1), (n * 2 + 3) - x,
                          lj.where(x > 0, n - 1, x), x * lj.full((), n - 1, dtype)])
    for rows in (3, 5, 7):
        a = np.ones(rows, dtype)
        want = [a * (rows - 1), a + (rows + 1), (2 * rows + 3) - a,
                np.where(a > 0, rows - 1, a), a * (rows - 1)]
        for got, w in zip(f(a), want, strict=True):
            np.testing.assert_array_equal(got, w.astype(dtype))
    if dtype == "uint8":
        with pytest.raises(ValueError, match="out of bounds for uint8"):
            f(np.ones(300, dtype))


def test_values_made_of_unknown_sizes_have_no_value_before_a_call():
    x = lj.vector("x")
    n = x.shape[0]
    for use in (lambda: x[: lj.tensor(n) // 2], lambda: float(lj.tensor(1.0) / n),
                lambda: lj.full((), n).numpy(), lambda: lj.tensor(n).numpy()):
        with pytest.raises(lj.LazyjitError, match="no value before a call"):
            use()
    assert "known at each call" in repr(lj.tensor(n))


@pytest.mark.parametrize("mode", ["cpu", "numpy"])
def test_unknown_sizes_through_tensors_are_right_at_every_call(mode):
    m = lj.matrix("m", shape=(None, 3))
    n = m.shape[0]
    outs = [m / lj.sqrt(lj.tensor(n, "float64")), m - lj.tensor(n) // 2, m * (n * 2 + 1),
            m / n, m.reshape(n * 3).sum() + 0 * m, m[: n - 1].sum(0) + 0 * m,
            m + lj.zeros((n, 3))]
    f = lj.function([m], outs, mode=mode)
    for rows in (4, 1, 9):
        x = np.ones((rows, 3))
        want = [x / np.sqrt(rows), x - rows // 2, x * (2 * rows + 1), x / rows,
                x.sum() + 0 * x, x[:rows - 1].sum(0) + 0 * x, x]
        for got, w in zip(f(x), want, strict=True):
            np.testing.assert_allclose(got, w, rtol=1e-12)


# ---- indexed writes, products, slices --------------------------------------------------------

def test_only_the_surviving_write_receives_gradient(backend):
    x, v = lj.tensor([5.0, 6.0, 7.0]), lj.tensor([1.0, 2.0])
    y = lj.set_subtensor(x[[0, 0]], v)
    np.testing.assert_array_equal(y.numpy(), [2.0, 6.0, 7.0])  # the last write wins
    np.testing.assert_array_equal(lj.grad(y.sum(), v).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(lj.grad(y.sum(), x).numpy(), [0.0, 1.0, 1.0])
    _, t = lj.jvp(lambda v: lj.set_subtensor(x[[0, 0]], v), (v,), (lj.tensor([1.0, 2.0]),))
    np.testing.assert_array_equal(t.numpy(), [2.0, 0.0, 0.0])
    rng = np.random.default_rng(0)
    check_grads(lambda x, v: lj.set_subtensor(x[[2, -1, 0, 2], 1:], v) ** 2,
                [rng.normal(size=(4, 3)), rng.normal(size=(4, 2))])
    check_grads(lambda x, v: lj.set_subtensor(x[[1, 1, 0], [2, 2, 2]], v),
                [rng.normal(size=(3, 4)), rng.normal(size=(3,))])


def test_the_gradient_of_a_product_with_zeros(backend):
    x = lj.tensor([0.0, 2.0, 3.0])
    np.testing.assert_array_equal(lj.grad(lj.prod(x), x).numpy(), [6.0, 0.0, 0.0])
    _, t = lj.jvp(lj.prod, (x,), (lj.tensor([1.0, 1.0, 1.0]),))
    assert float(t) == 6.0
    np.testing.assert_array_equal(lj.hessian(lj.prod(x), x).numpy(),
                                  [[0, 3, 2], [3, 0, 0], [2, 0, 0]])
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 4, 2))
    a[0, 1, 0] = a[2, 3, 1] = a[2, 0, 1] = 0.0  # one zero and two zeros in some groups
    for axis in (None, 1, (0, 2)):
        check_grads(lambda t, ax=axis: lj.prod(t, axis=ax), [a], order=2)


SLICES = [np.s_[-6::-1], np.s_[-3::-1], np.s_[::-1], np.s_[-1:-6:-1], np.s_[4:-7:-2],
          np.s_[10:0:-1], np.s_[-9:2], np.s_[2:2], np.s_[::3], np.s_[-2::-3]]


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_slices_match_numpy(backend, n):
    a = np.arange(2.0 * n).reshape(2, n)
    x = lj.tensor(a)
    for sl in SLICES:
        np.testing.assert_array_equal(x[:, sl].numpy(), a[:, sl], err_msg=str(sl))
        want = a.copy()
        want[:, sl] = -1.0
        np.testing.assert_array_equal(lj.set_subtensor(x[:, sl], -1.0).numpy(), want,
                                      err_msg=str(sl))


# ---- NumPy's rules for integers -------------------------------------------------------------

def test_integer_powers_refuse_negative_exponents(backend):
    a = lj.tensor(np.array([1, 2]))
    with pytest.raises(ValueError, match="negative integer powers") as e:
        a ** -1
    assert "test_trust.py" in str(e.value)
    with pytest.raises(ValueError, match="negative integer powers"):
        lj.realize(a ** (a - 2))  # computed: a run-time check
    np.testing.assert_array_equal((a ** (a - 1)).numpy(), [1, 2])
    np.testing.assert_allclose((a ** -1.0).numpy(), [1.0, 0.5])  # a float power is fine


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint64", "int32"])
def test_python_ints_out_of_range_compare_as_numpy(backend, dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, 0, 1, info.max], dtype)
    x = lj.tensor(a)
    for v in (info.min - 1, info.max + 1, -1, 300, 2**70, -(2**70)):
        for fn in (lambda p, q: p < q, lambda p, q: p <= q, lambda p, q: p > q,
                   lambda p, q: p >= q, lambda p, q: p == q, lambda p, q: p != q):
            np.testing.assert_array_equal(fn(x, v).numpy(), fn(a, v), err_msg=f"{v}")
            np.testing.assert_array_equal(fn(v, x).numpy(), fn(v, a), err_msg=f"{v}")
        for fn in (lj.logical_and, lj.logical_or, lj.logical_xor):
            ref = getattr(np, fn.__name__)
            if not -(2**63) <= v < 2**63:
                continue  # NumPy raises OverflowError for these (lazyjit reads them as true)
            np.testing.assert_array_equal(fn(x, v).numpy(), ref(a, v), err_msg=f"{v}")


# ---- empty reductions and empty index broadcasts ------------------------------------------

def test_logsumexp_of_an_empty_axis_is_minus_infinity(backend):
    from scipy.special import logsumexp
    a = np.zeros((3, 0))
    np.testing.assert_array_equal(lj.logsumexp(lj.tensor(a), axis=1).numpy(),
                                  logsumexp(a, axis=1))
    assert float(lj.logsumexp(lj.tensor(np.zeros(0)))) == -np.inf
    assert lj.log_softmax(lj.tensor(a), axis=1).numpy().shape == (3, 0)


def test_index_arrays_broadcast_to_nothing_are_not_bounds_checked(backend):
    z = np.zeros((0, 4, 2))
    assert lj.tensor(z)[[], :, [254]].numpy().shape == z[[], :, [254]].shape == (0, 4)
    y = np.arange(12.0).reshape(3, 4)
    idx = np.zeros((0, 1), int)
    assert lj.tensor(y)[idx, [7, 8]].numpy().shape == y[idx, [7, 8]].shape
    with pytest.raises(IndexError):
        lj.tensor(y)[np.zeros(0, int), 7]  # an int is still checked, as NumPy does


# ---- found by the differential bug hunt --------------------------------------------------

def test_sizes_of_any_form_are_exact_at_each_call():
    """With sentinel sizes, a call could recompute only sizes a * n + b (one monomial,
    small a and b), and other forms were refused (x + (n + 5000) had been 1.7e9 at every
    call, x.sum(0) / (n + m) 1.5e-9).  Symbolic sizes are exact in every form; a slice
    bound that must not be negative is checked at each call."""
    x = lj.matrix("x", shape=(None, 4))
    y = lj.matrix("y", shape=("b", 4))
    n, m = x.shape[0], y.shape[0]
    g = lj.function([x, y], [x + (n + 5000), x * (n * 10**7), x * (n * n * n * n),
                             x.sum(0) / (n + m), lj.tensor(x[::2].shape[0]), x[:, :n],
                             x[:n - 3], x[n - 4:]])
    for rows, other in ((4, 1), (6, 3), (9, 2)):
        a, b = np.arange(rows * 4.0).reshape(rows, 4), np.ones((other, 4))
        want = [a + rows + 5000, a * rows * 10**7, a * rows**4, a.sum(0) / (rows + other),
                len(a[::2]), a[:, :rows], a[:rows - 3], a[rows - 4:]]
        for got, w in zip(g(a, b), want, strict=True):
            np.testing.assert_array_equal(got, w)
    with pytest.raises(lj.LazyjitError, match="getitem: the size x0 - [34] must not be negative"):
        g(np.ones((2, 4)), np.ones((1, 4)))
    f = lj.function([x], [x[:n - 1], x[n - 2:], x * (n * n + 1) - 0 * n])
    for rows in (2, 3, 5):  # (x[n - 2:] has the 2 rows it was built for)
        a = np.arange(rows * 4.0).reshape(rows, 4)
        got = f(a)
        for g, w in zip(got, [a[:rows - 1], a[rows - 2:], a * (rows * rows + 1)], strict=True):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("mode", ["cpu", "numpy"])
def test_constants_are_not_mistaken_for_sizes(mode):
    x = lj.matrix("x", "float32", shape=(None, 4))
    n = x.shape[0]
    padded = lj.concatenate([x, lj.zeros((1, 4), "float32")])  # a size n + 1 is learned
    f = lj.function([x], [x * 0 + 1e-15, x / lj.sqrt(lj.tensor(n, "float32")), padded.sum()],
                    mode=mode)
    for rows in (1, 2, 4):
        tiny, scaled, _ = f(np.ones((rows, 4), np.float32))
        np.testing.assert_array_equal(tiny, np.float32(1e-15))
        np.testing.assert_allclose(scaled, 1 / np.sqrt(np.float32(rows)), rtol=1e-6)


def test_edge_values_that_rewrites_changed(backend):
    big = lj.tensor(np.array([1e308, 1e308]))
    assert float((big * 0.5).sum()) == 1e308  # sum(x * c) -> sum(x) * c overflowed
    assert float((big * 0.0).sum()) == 0.0    # ... and gave 0 * inf = nan
    z = lj.tensor(np.array([-0.0]))
    assert float(1.0 / (z + 0.0)) == np.inf and float(1.0 / (z - 0.0)) == -np.inf


def test_found_by_the_bug_hunt(backend):
    x = lj.tensor(np.arange(5.0))
    s = x[1:3]
    s.numpy()  # a view that was read can still be written through
    np.testing.assert_array_equal(lj.set_subtensor(s, 0.0).numpy(), [0, 0, 0, 3, 4])
    u = lj.random.RandomStream(0).uniform((1000,), -3e38, 3e38, dtype="float32").numpy()
    assert np.unique(u).size > 990 and np.isfinite(u).all()  # (high - low) overflowed
    np.testing.assert_array_equal(lj.clip(lj.tensor(np.array([0, 5], np.uint8)), -1, 300)
                                  .numpy(), np.clip(np.array([0, 5], np.uint8), -1, 300))

    def f(w):
        h = w * 3
        print(h)  # read inside the function, dropped when it returns
        return (h * h).sum()

    w = lj.tensor([1.0, 2.0])
    np.testing.assert_allclose(lj.value_and_grad(f)(w)[1].numpy(), [18.0, 36.0])
    np.testing.assert_allclose(lj.grad(f)(w).numpy(), [18.0, 36.0])
    np.testing.assert_allclose(lj.vjp(f, w)[1](lj.tensor(1.0))[0].numpy(), [18.0, 36.0])
    np.testing.assert_allclose(float(lj.jvp(f, (w,), (lj.tensor([1.0, 0.0]),))[1]), 18.0)


def test_a_loop_body_never_reads_a_value_computed_elsewhere(backend):
    """Hash-consing found, inside a scan body, a constant-only node computed by an earlier
    realize: the body's interpreter failed on it (KeyError)."""
    ones = lj.ones((1,)) * 2.0
    ones.numpy()  # computed: the node now holds a value
    out, _ = lj.scan(lambda a, h: h + a * (lj.ones((1,)) * 2.0), sequences=lj.tensor(
        np.arange(3.0).reshape(3, 1)), outputs_info=lj.zeros(1))
    np.testing.assert_array_equal(out.numpy().ravel(), [0.0, 2.0, 6.0])
