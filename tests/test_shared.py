"""Shared variables (Theano's ``theano.shared``): values that persist across calls, read
by compiled functions at every call and updated by ``assign``."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import lazyjit as lj


def test_get_set_value(backend):
    w = lj.shared(np.arange(3.0), name="w")
    v = w.get_value()
    v[0] = 100.0  # a copy: the variable keeps its value
    np.testing.assert_array_equal(w.get_value(), [0.0, 1.0, 2.0])
    w.set_value(np.ones((2, 2)))  # the shape may change
    assert w.shape == (2, 2)
    np.testing.assert_array_equal((w * 2).numpy(), 2 * np.ones((2, 2)))
    with pytest.raises(lj.LazyjitError, match="dtype float64"):
        w.set_value(np.ones(3, np.float32))
    assert "w" in repr(w)


def test_jit_reads_the_current_value_and_compiles_nothing_new(backend):
    w = lj.shared(np.array([1.0, 2.0], np.float32))
    f = lj.jit(lambda x: x * w)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(x).numpy(), [1.0, 2.0])
    w.set_value(np.array([3.0, 4.0], np.float32))
    np.testing.assert_array_equal(f(x).numpy(), [3.0, 4.0])
    before = lj.stats()["compiles"]
    w.set_value(np.array([5.0, 6.0, 7.0], np.float32))  # new shape: traced again
    np.testing.assert_array_equal(f(np.ones(3, np.float32)).numpy(), [5.0, 6.0, 7.0])
    assert lj.stats()["compiles"] == before


def test_jit_assign_updates_after_the_outputs(backend):
    """SGD on ``sum((w - t)^2)`` with the update inside the compiled step: each call
    returns the loss of the value before its update, and ``w`` converges to ``t``."""
    t = np.array([1.0, -2.0, 3.0])
    w = lj.shared(np.zeros(3), name="w")

    @lj.jit
    def step(target):
        loss = lj.sum((w - target) ** 2)
        w.assign(w - 0.25 * lj.grad(loss, w))
        return loss

    losses = [float(step(t)) for _ in range(30)]
    assert losses[0] == pytest.approx(14.0)  # at w = 0, before the first update
    assert losses[1] == pytest.approx(14.0 * 0.25)  # w halfway: (1 - 2 * 0.25)^2 = 0.25
    np.testing.assert_allclose(w.get_value(), t, atol=1e-6)


def test_assign_outside_jit_is_lazy_and_chains(backend):
    v = lj.shared(np.arange(4.0))
    v.assign(v * 2)
    v.assign(v + 1)  # reads the pending value
    f = lj.jit(lambda x: x + v)  # computed before the call
    np.testing.assert_array_equal(f(np.zeros(4)).numpy(), [1.0, 3.0, 5.0, 7.0])
    np.testing.assert_array_equal(v.get_value(), [1.0, 3.0, 5.0, 7.0])


def test_assign_errors(backend):
    w = lj.shared(np.zeros(3, np.int64))
    with pytest.raises(lj.LazyjitError, match="cannot assign"):
        w.assign(np.ones(3) * 0.5)

    @lj.jit
    def bad(x):
        w.assign(lj.zeros(4, np.int64) + x)
        return x

    with pytest.raises(lj.LazyjitError, match="keep the shape"):
        bad(np.int64(1))


def test_assign_inside_a_scan_step_is_a_state_of_the_loop(backend):
    """``acc.assign(...)`` in a step: ``acc`` reads as its value at that step, the scan
    returns its final value in ``updates`` and applies it (eagerly here, as an update
    of each call in jit)."""
    acc = lj.shared(np.array([1.0, 2.0]), "acc")

    def body(x_t):
        acc.assign(acc + x_t)
        return acc * 10  # the value before this step's update

    xs = np.arange(6.0).reshape(3, 2)
    out, updates = lj.scan(body, sequences=lj.tensor(xs))
    before = np.array([1.0, 2.0]) + np.concatenate([[0, 0], np.cumsum(xs, 0)[:-1].ravel()]
                                                   ).reshape(3, 2)
    np.testing.assert_allclose(out.numpy(), before * 10)
    assert list(updates) == [acc]
    np.testing.assert_allclose(acc.get_value(), [1 + 6, 2 + 9])
    f = lj.jit(lambda xs: lj.scan(body, sequences=xs)[0].sum())
    f(xs)
    f(xs)
    np.testing.assert_allclose(acc.get_value(), [7 + 12, 11 + 18])
    w = lj.shared(np.zeros(2))
    with pytest.raises(lj.LazyjitError, match="keep the shape"):
        lj.scan(lambda x_t: (w.assign(x_t.sum()), x_t)[1], sequences=lj.tensor(xs))


def test_updates_are_written_in_place_when_nothing_else_holds_the_value():
    """After the first call, a parameter's update is computed into the parameter's own
    buffer (no new array per step); a borrowed array, a view from ``numpy()``, an
    argument sharing the memory, an input passed through, or a lazy graph that still
    reads the old value make the calls write elsewhere, and all keep their values."""
    rng = np.random.default_rng(0)
    W = lj.shared(rng.standard_normal((32, 16)).astype(np.float32), "W")
    x = lj.matrix("x", "float32", shape=(None, 32))
    loss = ((x @ W) ** 2).mean()
    step = lj.function([x], loss, updates=[(W, W - 0.1 * lj.grad(loss, W))])
    X = rng.standard_normal((8, 32)).astype(np.float32)
    ref = W.get_value()

    def sgd(w):
        return w - 0.1 * 2 * X.T @ (X @ w) / (8 * 16)

    addresses = []
    for _ in range(4):
        step(X)
        ref = sgd(ref)
        np.testing.assert_allclose(W.get_value(), ref, rtol=1e-5, atol=1e-6)
        # (read through the node: a borrowed array would never be overwritten)
        addresses.append(W.node.buffer.__array_interface__["data"][0])
    assert len(set(addresses[1:])) == 1  # one buffer from the second call on
    held = W.get_value(borrow=True)
    kept = held.copy()
    lazy = W * 1
    step(X)
    ref = sgd(ref)
    np.testing.assert_array_equal(held, kept)
    np.testing.assert_array_equal(lazy.numpy(), kept)
    np.testing.assert_allclose(W.get_value(), ref, rtol=1e-5, atol=1e-6)


def test_in_place_updates_never_write_into_memory_they_do_not_own():
    """Regressions from a review: an update that passes another variable (or the
    caller's array) through, views handed out by ``numpy()``, an argument that is the
    variable's own memory, and a call that fails after its kernels ran."""
    best, W = lj.shared(np.ones(3)), lj.shared(np.zeros(3))
    restore = lj.function([], [], updates=[(W, best)])
    train = lj.function([], [], updates=[(W, W + 1)])
    restore()
    train()
    train()
    np.testing.assert_array_equal(best.get_value(), [1, 1, 1])
    np.testing.assert_array_equal(W.get_value(), [3, 3, 3])
    U = lj.shared(np.zeros(3))
    p = lj.vector("p")
    setu = lj.function([p], [], updates=[(U, p)])
    incu = lj.function([], [], updates=[(U, U + 1)])
    mine = np.full(3, 5.0)
    setu(mine)
    incu()
    incu()
    np.testing.assert_array_equal(mine, [5, 5, 5])
    V = lj.shared(np.ones(4))
    double = lj.jit(lambda: (V.assign(V * 2), V.sum())[1])
    double()
    double()
    held = [V.numpy(), np.asarray(V)]
    double()
    assert [h[0] for h in held] == [4.0, 4.0] and V.get_value()[0] == 8.0
    A = np.arange(16.0).reshape(4, 4)
    M = lj.shared(A)
    x = lj.matrix("x", shape=(4, 4))
    f = lj.function([x], [], updates=[(M, M - 0.1 * x.T)])
    f(np.zeros((4, 4)))
    f(np.zeros((4, 4)))
    f(M)
    np.testing.assert_allclose(M.get_value(), A - 0.1 * A.T)
    Z = lj.shared(np.ones(4))
    step = lj.jit(lambda i: (Z.assign(Z * 2), (Z * 2)[i])[1])
    step(np.array([0]))
    step(np.array([0]))
    with pytest.raises(IndexError):
        step(np.array([100]))
    np.testing.assert_array_equal(Z.get_value(), [4, 4, 4, 4])


def test_assigned_constant_fill_becomes_the_value(backend):
    # lj.zeros(2) (literals alone) never holds its value in its node: the variable
    # got no leaf (get_value failed) and jit captured the constant (updates were lost)
    w = lj.shared(np.array([1.0, 2.0]))
    w.assign(lj.zeros(2))
    np.testing.assert_array_equal(w.get_value(), [0.0, 0.0])
    w.assign(lj.full(2, 3.0))

    @lj.jit
    def step(x):
        w.assign(w + x)
        return w * 1.0
    got = [step(lj.tensor(1.0)).numpy().tolist() for _ in range(3)]
    assert got == [[4.0, 4.0], [5.0, 5.0], [6.0, 6.0]]  # (w read after its assign)
    np.testing.assert_array_equal(w.get_value(), [6.0, 6.0])


def test_function_over_an_assigned_constant_reads_the_variable(backend):
    # a value of literals alone is computed at the assignment: a graph built after it
    # reads the variable (its updates included), and an equal constant elsewhere in a
    # graph stays a constant
    v = lj.shared(np.array([1.0, 2.0]))
    v.assign(lj.full(2, 3.0))
    x = lj.vector("x")
    f = lj.function([x], v * x, updates=[(v, v + 1)])
    for k in range(3):
        np.testing.assert_array_equal(f(np.full(2, 2.0)), 2 * (3.0 + k))
    np.testing.assert_array_equal(v.get_value(), [6.0, 6.0])
    g = lj.function([x], x + lj.full(2, 3.0))
    np.testing.assert_array_equal(g(np.ones(2)), [4.0, 4.0])


def test_function_refuses_a_pending_assignment_it_reads(backend):
    # a graph built over a value assigned and not computed yet held the assigned
    # expression over the older value: lj.function applied it again at each call, on
    # top of its updates ([4, 8], [10, 18] for [2, 4], [3, 5]); now an error says to
    # compute it first, after which the graph reads the variable
    v = lj.shared(np.array([1.0, 2.0]), "v")
    v.assign(v * 2)
    x = lj.vector("x")
    for make in (lambda: lj.function([x], v * x, updates=[(v, v + 1)]),
                 lambda: lj.function([x], x * 1.0, givens=[(x, v * 3.0)]),
                 lambda: lj.function([x], x + 1, updates=[(v, v * x)])):
        with pytest.raises(lj.LazyjitError, match="assigned to the shared variable v before"):
            make()
    v.assign(v + 1)  # (two assignments pending: the newest one read)
    with pytest.raises(lj.LazyjitError, match="before it was computed"):
        lj.function([x], v * x)
    lj.realize(v)
    f = lj.function([x], v * x, updates=[(v, v + 1)])
    for k in range(3):
        np.testing.assert_array_equal(f(np.ones(2)), np.array([3.0, 5.0]) + k)


def test_a_second_assign_that_would_drop_the_first_raises(backend):
    """In a scan step, reads give the value from the step's start, so
    ``b.assign(b * 10)`` after ``b.assign(b + 1)`` would drop the first assign (eager
    code chains them: 20): it raises.  In jit, a read after an assign gives the value
    assigned, so the assigns chain as eagerly.  Chaining through the first value, and a
    random stream's draws (each reads the counter the last advanced), compute as
    eager code does."""
    b = lj.shared(np.array(1.0), "b")

    def twice():
        b.assign(b + 1)
        b.assign(b * 10)
        return b + 0

    assert float(twice()) == 20.0  # eagerly: chained
    b.set_value(np.array(1.0))
    assert float(lj.jit(twice)()) == 20.0  # in jit as well
    assert float(b.get_value()) == 20.0
    with pytest.raises(lj.LazyjitError, match="assigned twice in one scan step"):
        lj.scan(lambda h: (twice(), h + 1)[1], outputs_info=lj.tensor(0.0), n_steps=2)

    def chained(x):
        first = b + x
        b.assign(first)
        b.assign(first * 10)
        return first

    b.set_value(np.array(1.0))
    assert float(lj.jit(chained)(1.0)) == 2.0
    assert float(b.get_value()) == 20.0
    rs, ref = lj.random.RandomStream(3), lj.random.RandomStream(3)
    draws = lj.jit(lambda: lj.stack([rs.uniform(()), rs.uniform(())]))().numpy()
    np.testing.assert_array_equal(draws, [float(ref.uniform(())), float(ref.uniform(()))])

    @lj.jit
    def before_and_in_a_loop():  # (the loop continues the stream the trace advanced)
        x = rs.uniform(())
        return x, lj.fori_loop(0, 2, lambda i, s: s + rs.uniform(()), lj.tensor(0.0))

    x, s = before_and_in_a_loop()
    want = [float(ref.uniform(())) for _ in range(3)]
    np.testing.assert_allclose([float(x), float(s)], [want[0], want[1] + want[2]])


def test_a_value_taken_from_a_variable_never_follows_its_updates(backend):
    """A function of a shared variable is a value: also where it changes nothing (a
    reshape to its own shape, ``.T`` of a vector, ``asarray``), where it returned the
    variable itself, whose later updates it then showed."""
    w = lj.shared(np.arange(4.0), "w")
    step = lj.function([], [], updates=[(w, w * 10)])
    taken = [w.reshape(-1), w.reshape(4), w.T, w.transpose(), w.flatten(), w.ravel(),
             w.squeeze(), lj.asarray(w), lj.array(w), lj.broadcast_to(w, (4,)), w[:]]
    assert not any(isinstance(t, lj.SharedVariable) for t in taken)
    step()
    for t in taken:
        np.testing.assert_array_equal(t.numpy(), np.arange(4.0))
    np.testing.assert_array_equal(w.get_value(), np.arange(4.0) * 10)


def _read_after(v):
    v.assign(v + 1)
    return v * 10


def _twice(v):
    v.assign(v + 1)
    v.assign(v + 1)
    return v * 1


def _sgd_twice(v):  # two optimizer steps in one function: two steps
    for _ in range(2):
        v.assign(v - 0.1 * lj.grad(lambda w: (w ** 2).sum())(v))
    return (v ** 2).sum()


def _loop_after(v):  # a loop after an assign reads the value assigned
    v.assign(v * 2)
    return lj.fori_loop(0, 3, lambda i, h: h + v, lj.zeros(2, dtype="float64"))


def _step_assigns(v):  # in a step, reads give the step's start values (Theano's scan)
    v.assign(v * 2)

    def body(i, h):
        v.assign(v + 1)
        return h + v
    return lj.fori_loop(0, 3, body, lj.zeros(2, dtype="float64")) + v


def _branch(v):
    v.assign(v + 1)

    def taken():
        v.assign(v * 3)
        return v + 0
    return lj.cond(v.sum() > 0, taken, lambda: v - 0) + v


def _nested(v):  # a jitted function called inside: part of the trace
    @lj.jit
    def inner(x):
        v.assign(v * x)
        return v + x, {"a": x * 2}
    v.assign(v + 1)
    a, d = inner(lj.tensor(3.0))
    return a * d["a"] + v


@pytest.mark.parametrize("body, first", [
    (_read_after, [20.0, 30.0]), (_twice, [3.0, 4.0]), (_sgd_twice, [0.4096 * 5]),
    (_loop_after, [6.0, 12.0]), (_step_assigns, [14.0, 22.0]), (_branch, [12.0, 18.0]),
    (_nested, [60.0, 81.0])])
def test_jit_reads_and_assigns_in_program_order(backend, body, first):
    """Inside ``lj.jit``, a read of a shared variable after its ``assign`` gives the
    value assigned, as eager code does (it gave the value from before the call: two
    optimizer steps in one jitted function made one, silently); the same at every call."""
    got = {}
    for mode in ("eager", "jit"):
        v = lj.shared(np.array([1.0, 2.0]), "v")
        step = functools.partial(body, v)
        step = lj.jit(step) if mode == "jit" else step
        outs = [np.asarray(step().numpy(), np.float64).tolist() for _ in range(2)]
        got[mode] = outs, v.get_value().tolist()
    np.testing.assert_allclose(got["eager"][0][0], first)
    np.testing.assert_allclose(got["jit"][0], got["eager"][0])
    np.testing.assert_allclose(got["jit"][1], got["eager"][1])


def test_reads_inside_traces_are_of_that_trace_only(backend):
    """Found by review of the program order: an inlined jitted function takes a shared
    variable argument's value at the call (it read the variable, so it saw assigns made
    after it), and NumPy arguments as tensors (it got the array: ``.exp()`` failed,
    ``x += 1`` changed the caller's); a value read in an ``lj.cond`` branch being
    traced is never kept as the variable's (the untaken branch's assign was); a branch
    returning the variable gives the value it assigned; an ``lj.function`` called
    while a trace is recorded raises (it returned None)."""
    v = lj.shared(np.array([1.0, 2.0]), "v")

    @lj.jit
    def bump_then(x):
        v.assign(v + 1)
        return x * 1

    def outer():
        return bump_then(v)
    eager = [outer().numpy().tolist() for _ in range(2)]
    v.set_value(np.array([1.0, 2.0]))
    jitted = lj.jit(outer)
    assert [jitted().numpy().tolist() for _ in range(2)] == eager == [[1.0, 2.0], [2.0, 3.0]]

    arr = np.ones(2)

    @lj.jit
    def inner(x):
        x += 1
        return lj.exp(x * 0).sum() + x
    np.testing.assert_allclose(lj.jit(lambda: inner(arr) + arr)().numpy(), [5.0, 5.0])
    np.testing.assert_array_equal(arr, [1.0, 1.0])

    v.set_value(np.array([1.0, 2.0]))
    seen = []

    def untaken():
        v.assign(v + 1)
        seen.append(v.get_value())
        return v * 1
    lj.cond(lj.tensor(False), untaken, lambda: v * 0)
    np.testing.assert_array_equal(seen[0], [2.0, 3.0])
    np.testing.assert_array_equal(v.get_value(), [1.0, 2.0])
    got = lj.cond(lj.tensor(True), lambda: (v.assign(v + 10), v)[1], lambda: v * 0)
    np.testing.assert_array_equal(got.numpy(), [11.0, 12.0])

    np.testing.assert_array_equal(v.get_value(), [11.0, 12.0])
    x = lj.vector("x")
    fn = lj.function([x], (x * v).sum(), updates=[(v, v + x)])
    with pytest.raises(lj.LazyjitError, match="called while a trace is recorded"):
        lj.jit(lambda: lj.tensor(fn(np.ones(2))))()
    with pytest.raises(lj.LazyjitError, match="set_value while a trace is recorded"):
        lj.jit(lambda: (v.set_value(np.zeros(2)), v * 1)[1])()
    with pytest.raises(lj.LazyjitError, match="would be baked into the trace"):
        lj.jit(lambda: v * float(v.get_value()[0]))()


def test_augmented_assignment_of_a_variable_raises(backend):
    """``v += 1`` would rebind the name to a new tensor and leave the variable as it was
    (a training loop's update silently lost): it raises, naming ``assign``."""
    v = lj.shared(np.array([1.0, 2.0]), "v")
    w = v
    with pytest.raises(TypeError, match="assign"):
        w += 1
    np.testing.assert_array_equal(v.get_value(), [1.0, 2.0])


def test_a_read_value_is_never_updated_in_place(backend):
    """Found by review: a shared variable's value read through a view (``W.reshape(3)``:
    the variable's own array, seen through a tensor that is not the variable) was
    overwritten by the next in-place update (3 became 4). A computed value is a view of
    its block; the read's view had the block as its base, which the check of who holds
    the value did not count."""
    W = lj.shared(np.ones(3))
    step = lj.jit(lambda: W.assign(W + 1))
    step()
    step()
    snap = W.reshape(3).numpy()
    row = W.reshape(1, 3).numpy()
    step()
    step()
    np.testing.assert_array_equal(snap, [3, 3, 3])
    np.testing.assert_array_equal(row, [[3, 3, 3]])
    np.testing.assert_array_equal(W.get_value(), [5, 5, 5])
