"""Theano's ``until`` and ``truncate_gradient`` for ``lj.scan``, and JAX's ``fori_loop``,
``while_loop`` and ``cond``, against hand-written Python loops and hand-truncated
gradients, on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

# the derivatives of these loops are scans and ifelses, which test_scan and test_grad
# check on emulated cuda too; compiling them again in emulation costs a minute of CI
_NOT_ON_EMULATED_CUDA = "gradient graphs: covered on cuda by test_scan and test_grad"


def _values_only_on_cuda(backend):
    if backend == "cuda":
        pytest.skip(_NOT_ON_EMULATED_CUDA)


def _hand_until(h0, xs, w):
    """The loop ``h = tanh(h * w + x)``, stopping after the first ``sum(h) > 2``."""
    h, hs = h0, []
    for x in xs:
        h = np.tanh(h * w + x)
        hs.append(h)
        if h.sum() > 2.0:
            break
    return np.array(hs)


def _until_step(x, h, w):
    new = lj.tanh(h * w + x)
    return new, lj.until(new.sum() > 2.0)


def test_until_equals_a_hand_written_loop(backend, rng):
    xs, h0, w = rng.uniform(-0.2, 0.6, (12, 3)), rng.uniform(-0.5, 0.5, 3), 0.8
    out, _ = lj.scan(_until_step, sequences=lj.tensor(xs), outputs_info=lj.tensor(h0),
                     non_sequences=lj.tensor(w))
    want = _hand_until(h0, xs, w)
    assert 1 < len(want) < 12  # (the loop does stop early)
    assert_same(out, want)
    # never true: every step; n_steps bounds the loop with no sequence
    out, _ = lj.scan(lambda h: (h + 1, lj.until(h > 100)), outputs_info=lj.tensor(0.0),
                     n_steps=4)
    assert_same(out, np.array([1.0, 2.0, 3.0, 4.0]))
    # true at once: one step; several outputs returned as a list with the until
    out, _ = lj.scan(lambda h: ([h + 1, h * 2], lj.until(h >= 0)),
                     outputs_info=[lj.tensor(0.0), None], n_steps=5)
    assert_same(out[0], np.array([1.0]))
    assert_same(out[1], np.array([0.0]))


def test_until_gradient_is_over_the_steps_run(backend, rng):
    _values_only_on_cuda(backend)
    xs, h0 = rng.uniform(-0.2, 0.6, (12, 3)), rng.uniform(-0.5, 0.5, 3)

    def f(w, x):
        out, _ = lj.scan(_until_step, sequences=x, outputs_info=lj.tensor(h0),
                         non_sequences=w)
        return (out * out).sum()

    n = len(_hand_until(h0, xs, 0.8))

    def hand(w, x):  # the same loop, written with n steps
        h, total = lj.tensor(h0), 0.0
        for t in range(n):
            h = lj.tanh(h * w + x[t])
            total = total + (h * h).sum()
        return total
    args = (lj.tensor(0.8), lj.tensor(xs))
    got, want = lj.grad(f, argnums=(0, 1))(*args), lj.grad(hand, argnums=(0, 1))(*args)
    for g, w_ in zip(got, want):
        assert_same(g, w_.numpy(), rtol=1e-12)


def test_truncate_gradient_equals_a_hand_truncated_gradient(backend, rng):
    _values_only_on_cuda(backend)
    xs, h0, k = rng.standard_normal((7, 2)), rng.standard_normal(2), 3

    def f(w, x, h):
        out, _ = lj.scan(lambda x_t, h_t, w_: lj.tanh(h_t * w_ + x_t), sequences=x,
                         outputs_info=h, non_sequences=w, truncate_gradient=k)
        return (out ** 2).sum()

    def hand(w, x, h):  # the steps before the last k see constants
        total = 0.0
        for t in range(len(xs)):
            live = t >= len(xs) - k
            ww, xx, hh = (v if live else lj.stop_gradient(v) for v in (w, x[t], h))
            h = lj.tanh(hh * ww + xx)
            total = total + (h ** 2).sum()
        return total
    args = (lj.tensor(0.7), lj.tensor(xs), lj.tensor(h0))
    got, want = lj.grad(f, argnums=(0, 1, 2))(*args), lj.grad(hand, argnums=(0, 1, 2))(*args)
    for g, w_ in zip(got, want):
        assert_same(g, w_.numpy(), rtol=1e-12)
    assert_same(got[2], np.zeros(2))  # (the initial state is beyond the last k steps)
    assert_same(got[1][: len(xs) - k], np.zeros((len(xs) - k, 2)))
    # the value is the loop's, untruncated; k at least the length: the full gradient
    full = lj.grad(lambda w: lj.scan(lambda x_t, h_t, w_: lj.tanh(h_t * w_ + x_t),
                                     sequences=args[1], outputs_info=args[2],
                                     non_sequences=w)[0].sum())(args[0])
    long = lj.grad(lambda w: lj.scan(lambda x_t, h_t, w_: lj.tanh(h_t * w_ + x_t),
                                     sequences=args[1], outputs_info=args[2],
                                     non_sequences=w, truncate_gradient=50)[0].sum())(args[0])
    assert_same(long, full.numpy(), rtol=1e-12)


def test_truncate_gradient_refuses_implicit_captures():
    w = lj.tensor(0.5)
    with pytest.raises(lj.LazyjitError, match="non_sequences"):
        lj.scan(lambda h: h * w, outputs_info=lj.tensor(1.0), n_steps=3, truncate_gradient=1)


def test_fori_while_and_cond_equal_python_loops(backend):
    x = np.array([1.0, 2.0])
    got = lj.fori_loop(2, 6, lambda i, v: {"a": v["a"] * 1.1 + i, "n": v["n"] + 1},
                       {"a": lj.tensor(x), "n": 0})
    a = x.copy()
    for i in range(2, 6):
        a = a * 1.1 + i
    assert_same(got["a"], a)
    assert_same(got["n"], np.array(4))
    assert lj.fori_loop(3, 3, lambda i, v: v + 1, 7) == 7  # (no steps)
    v, n = lj.while_loop(lambda s: s[0] < 100.0, lambda s: (s[0] * 1.5, s[1] + 1),
                         (lj.tensor(1.0), lj.tensor(0)), chunk=2)
    hv, hn = 1.0, 0
    while hv < 100.0:
        hv, hn = hv * 1.5, hn + 1
    assert (float(v), int(n)) == (hv, hn)
    assert float(lj.while_loop(lambda s: s > 5, lambda s: s + 1, lj.tensor(1.0))) == 1.0
    for p in (True, False):
        out = lj.cond(lj.tensor(p), lambda s: [s * 2, s.sum()], lambda s: [s - 1, s.max()],
                      lj.tensor(x))
        assert_same(out[0], x * 2 if p else x - 1)
        assert_same(out[1], np.array(x.sum() if p else x.max()))


def test_loop_gradients(backend, rng):
    """fori_loop, while_loop (through the steps it runs) and cond against finite
    differences, both modes (to order 2 on the reference backend)."""
    _values_only_on_cuda(backend)
    batch, order = GradBatch(), 2 if backend == "numpy" else 1
    check_grads(lambda w, x: lj.fori_loop(0, 4, lambda i, v: lj.tanh(v * w + i), x),
                [np.array(0.7), rng.standard_normal(3)], order, batch=batch, label="fori")
    check_grads(lambda a: lj.while_loop(lambda v: v.sum() < 50.0, lambda v: v * a,
                                        lj.tensor(np.array([1.0, 2.0]))),
                [np.array(1.5)], order, batch=batch, label="while")
    check_grads(lambda x: lj.cond(x.sum() > 0, lambda v: lj.exp(v), lambda v: v ** 3, x),
                [rng.standard_normal(3)], order, batch=batch, label="cond")
    batch.run()


def test_errors():
    with pytest.raises(lj.LazyjitError, match="structure"):
        lj.fori_loop(0, 2, lambda i, v: (v, v), lj.tensor(1.0))
    with pytest.raises(lj.LazyjitError, match="different structures"):
        lj.cond(True, lambda: 1.0, lambda: (1.0, 2.0))
    with pytest.raises(lj.LazyjitError, match="0-d"):
        lj.scan(lambda h: (h, lj.until(h > lj.tensor([1.0, 2.0]))),
                outputs_info=lj.tensor(0.0), n_steps=2)
    f = lj.jit(lambda x: lj.scan(lambda h: (h * 2, lj.until(h > 10.0)), outputs_info=x,
                                 n_steps=9)[0])
    with pytest.raises(lj.LazyjitError, match="traced by lj.jit"):
        f(lj.tensor(1.0))


def _collatz(n):
    return lj.while_loop(lambda s: s[0] != 1,
                         lambda s: (lj.where(s[0] % 2 == 0, s[0] // 2, 3 * s[0] + 1), s[1] + 1),
                         (n, lj.tensor(0)))


def test_while_loop_inside_jit(backend):
    """Inside lj.jit a while_loop is one loop node ending in the compiled code: the values
    of Python's loop, one compile for every value, no body step once the condition fails
    (an index past the end would raise); no derivatives, no shared assignments."""
    f = lj.jit(_collatz)
    for v, steps in ((27, 111), (1, 0), (6, 8)):
        n, k = f(lj.tensor(v))
        assert (int(n), int(k)) == (1, steps)
    before = lj.stats()["compiles"]
    assert int(f(lj.tensor(97))[1]) == 118
    assert lj.stats()["compiles"] == before
    xs = lj.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    g = lj.jit(lambda n: lj.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] + xs[s[0]]),
                                       (lj.tensor(0), lj.tensor(0.0))))
    for n, total in ((5, 15.0), (0, 0.0), (2, 3.0)):
        i, t = g(lj.tensor(n))
        assert (int(i), float(t)) == (n, total)
    newton = lj.jit(lambda a: lj.while_loop(lambda x: lj.abs(x * x - a).max() > 1e-12,
                                            lambda x: 0.5 * (x + a / x), a))
    assert_same(newton(lj.tensor([2.0, 9.0, 0.25])), np.sqrt([2.0, 9.0, 0.25]))
    x, n = lj.vector("x"), lj.scalar("n", dtype="int64")  # (lj.function placeholders)
    out = lj.while_loop(lambda s: s[1] < n, lambda s: (s[0] * 2, s[1] + 1), (x, lj.tensor(0)))
    h = lj.function([x, n], list(out))
    assert_same(list(map(lj.tensor, h(np.array([1.0, 2.0]), 3))), [np.array([8.0, 16.0]), 3])
    ys, _ = lj.scan(lambda xi, v0: lj.while_loop(lambda v: v < xi, lambda v: v * 2 + 1, v0),
                    sequences=lj.tensor([3.0, 10.0, 1.0]), outputs_info=lj.tensor(0.0))
    assert_same(ys, np.array([3.0, 15.0, 15.0]))  # (in an eager scan's step)
    with pytest.raises(lj.LazyjitError, match="no derivatives"):
        lj.jit(lj.grad(lambda a: lj.while_loop(lambda x: x < 10.0, lambda x: x * a,
                                               lj.tensor(1.0))))(lj.tensor(2.0))
    sv = lj.shared(np.array(0.0))
    with pytest.raises(lj.LazyjitError, match="shared"):
        lj.jit(lambda x: lj.while_loop(lambda v: v < 3.0,
                                       lambda v: (sv.assign(sv + 1.0), v + 1.0)[1], x))(
            lj.tensor(0.0))


def test_loops_stop_where_python_stops(backend):
    """No step after the stop is computed (an index past the end would raise), and the
    shared variables and random streams a while_loop's body advances end where the
    Python loop leaves them."""
    xs = lj.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    i, total = lj.while_loop(lambda s: s[0] < 5, lambda s: (s[0] + 1, s[1] + xs[s[0]]),
                             (0, 0.0), chunk=2)
    assert (int(i), float(total)) == (5, 15.0)
    out, _ = lj.scan(lambda k, h: (h + xs[k], lj.until(k >= 4)), sequences=lj.arange(8),
                     outputs_info=lj.tensor(0.0))
    assert_same(out, np.array([1.0, 3.0, 6.0, 10.0, 15.0]))
    sv = lj.shared(np.array(0.0))

    def body(v):
        sv.assign(sv + 1.0)
        return v + 1
    assert int(lj.while_loop(lambda v: v < 40, body, lj.tensor(0), chunk=4)) == 40
    assert float(sv.numpy()) == 40.0
    rs = lj.random.RandomStream(seed=0)
    for _ in range(3):
        s = lj.while_loop(lambda v: v < 2.0, lambda v: v + rs.uniform((), dtype="float64"),
                          lj.tensor(0.0), chunk=2)
        assert 2.0 <= float(s) < 3.0
    with pytest.raises(ValueError, match="chunk"):
        lj.while_loop(lambda v: v < 1, lambda v: v + 1, 0, chunk=0)


def test_cond_assigns_only_in_the_branch_taken(backend):
    sv = lj.shared(np.array(0.0))

    def bump(x):
        sv.assign(sv + 100.0)
        return x + 1
    for p, want in ((True, 0.0), (False, 100.0)):
        lj.cond(lj.tensor(p), lambda x: x - 1, bump, lj.tensor(1.0))
        assert float(sv.numpy()) == want
    f = lj.jit(lambda p: lj.cond(p, lambda: (sv.assign(sv + 1.0), 0.0)[1], lambda: 1.0))
    for p in (True, False, True):
        f(lj.tensor(p))
    assert float(sv.numpy()) == 102.0


def test_values_from_shared_variables_are_not_frozen_by_jit():
    """A loop's length, or unique's size, from a shared variable would be the first
    call's forever: inside lj.jit that is an error, never a stale value (a while_loop
    there is a loop node that reads the variable at each call)."""
    sv = lj.shared(np.array(1.0))
    u = lj.shared(np.array([3, 1, 3, 2]))
    f = lj.jit(lambda: lj.while_loop(lambda v: v < 10, lambda v: v * 2, sv))
    assert float(f()) == 16.0
    sv.assign(np.array(3.0))
    assert float(f()) == 12.0
    for fn in (lambda: lj.unique_counts(u),
               lambda: lj.scan(lambda h: (h * 2, lj.until(h > 10)), outputs_info=sv,
                               n_steps=20)[0]):
        with pytest.raises(lj.LazyjitError, match="shared variable"):
            lj.jit(fn)()


def test_cond_branches_see_what_the_trace_assigned_before():
    """A branch's record starts from the enclosing trace's: a random draw in a branch
    continues the stream (not the first draw again), a nested cond keeps an earlier
    assignment; an eager branch may read a shared variable's value."""
    rs = lj.random.RandomStream(0)

    @lj.jit
    def f(p):
        a = rs.uniform((2,))
        return a, lj.cond(p, lambda: rs.uniform((2,)), lambda: lj.zeros(2, dtype=a.dtype))
    a, b = f(lj.tensor(True))
    ref = lj.random.RandomStream(0)
    assert_same(a, ref.uniform((2,)).numpy())
    assert_same(b, ref.uniform((2,)).numpy())
    assert rs.counter == ref.counter
    v = lj.shared(np.float64(0.0))

    @lj.jit
    def h(p, q):
        v.assign(v + 100)
        lj.cond(p, lambda: lj.cond(q, lambda: (v.assign(lj.asarray(7.0)), ())[1], lambda: ()),
                lambda: ())
        return v * 1
    for p, q, want in ((True, True, 7.0), (True, False, 100.0), (False, False, 100.0)):
        v.set_value(np.float64(0.0))
        h(lj.tensor(p), lj.tensor(q))
        assert float(v.get_value()) == want
    s = lj.shared(np.array(2.0))
    assert float(lj.cond(True, lambda: lj.asarray(float(s) + 1), lambda: lj.asarray(0.0))) == 3.0


def test_a_loop_that_draws_compiles_once(backend):
    """Found while timing the tests: a while_loop whose body draws left the stream's
    counter a pending result of its loop, so each next call's graph held every earlier
    loop (computed again, a new structure: new modules at every call, without end).  The
    counter now comes out of the run that computes the loop."""
    rs = lj.random.RandomStream(seed=0)

    def run():
        return float(lj.while_loop(lambda v: v < 2.0,
                                   lambda v: v + rs.uniform((), dtype="float64"),
                                   lj.tensor(0.0), chunk=8))
    values = [run(), run()]
    built = lj.stats()["compiles"] + lj.stats()["disk_cache_hits"]
    values += [run() for _ in range(4)]
    assert lj.stats()["compiles"] + lj.stats()["disk_cache_hits"] == built
    assert all(2.0 <= v < 3.0 for v in values) and len(set(values)) == len(values)


def test_only_views_of_a_loop_result_come_out_with_it(backend):
    """Found by review: a pending shared value computed from a loop's result by an op
    that can fail (here a Cholesky factor of a matrix that has none) is not computed
    when the loop's other outputs are: only views and casts of its results are."""
    w = lj.shared(np.eye(2) * -1.0, "W")

    def step(x):
        w.assign(w + x)
        return (w * 2).sum()
    ys, _ = lj.scan(step, sequences=lj.tensor(np.zeros((3, 2, 2))))
    w.assign(lj.linalg.cholesky(w))
    assert_same(ys, np.array([-4.0, -4.0, -4.0]))
    with pytest.raises(np.linalg.LinAlgError):
        w.get_value()


def _gd_step(h, x):
    """One gradient step on ``sum(h * h * x)``: ``lj.grad`` inside a loop's body."""
    return h - 0.1 * lj.grad((h * h * x).sum(), h)


def test_grad_inside_a_loop_body(backend, rng):
    # lj.grad in a step function (meta-learning's inner loop): the body's trace is
    # compiled as it is, so its gradients are built at once, never deferred (they
    # reached the lowering unexpanded: a ValueError there, or a LazyjitError)
    h0, xs = rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 4)
    want, hs = h0.copy(), []
    for x in xs:
        want = want - 0.1 * 2 * want * x
        hs.append(want)
    out, _ = lj.scan(lambda x, h: _gd_step(h, x), sequences=lj.tensor(xs),
                     outputs_info=lj.tensor(h0))
    assert_same(out, np.array(hs))
    assert_same(lj.fori_loop(0, 3, lambda i, h: _gd_step(h, 1.0), lj.tensor(h0)),
                h0 * 0.8 ** 3)
    stop = h0.sum() * 0.7  # (the loop runs while the sum is above it: two steps)
    assert_same(lj.while_loop(lambda h: h.sum() > stop, lambda h: _gd_step(h, 1.0),
                              lj.tensor(h0)), h0 * 0.8 ** 2)
    jitted = lj.jit(lambda h: lj.scan(lambda x, s: _gd_step(s, x), sequences=lj.tensor(xs),
                                      outputs_info=h)[0])
    assert_same(jitted(lj.tensor(h0)), np.array(hs))
    # and the loop differentiated: d(sum of the last state)/dh0 = prod(1 - 0.2 x)
    _values_only_on_cuda(backend)
    h = lj.tensor(h0)
    out, _ = lj.scan(lambda x, s: _gd_step(s, x), sequences=lj.tensor(xs), outputs_info=h)
    assert_same(lj.grad(out[-1].sum(), h), np.full(3, np.prod(1 - 0.2 * xs)))
