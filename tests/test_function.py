"""``lj.function`` over placeholders of unknown sizes (Theano's ``theano.function``):
values against NumPy, one compile for every size, updates, givens, ``copy(swap=...)``,
modes and errors."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.nn import functional as nnf


def _softmax_xent(z, y):
    z = z - z.max(axis=1, keepdims=True)
    lp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -lp[np.arange(len(y)), y].mean(), np.exp(lp)


def _logreg(lr=0.5):
    rng = np.random.default_rng(0)
    x = lj.matrix("x", "float64", shape=(None, 4))
    y = lj.vector("y", "int64")
    W = lj.shared(rng.standard_normal((4, 3)), "W")
    b = lj.shared(np.zeros(3), "b")
    logits = x @ W + b
    loss = lj.softmax_cross_entropy(logits, y).mean()
    gW, gb = lj.grad(loss, [W, b])
    f = lj.function([x, y], [loss, logits.argmax(axis=1)],
                    updates=[(W, W - lr * gW), (b, b - lr * gb)])
    return f, W, b


def test_one_compile_serves_batch_sizes_1_7_128(backend):
    """A training step compiled once: batch sizes 1, 7, 128 (any order) give NumPy's
    loss, predictions and SGD update, and compile nothing after the first call."""
    f, W, b = _logreg()
    rng = np.random.default_rng(1)
    compiles = None
    for n in (7, 1, 128, 1, 7):
        X, Y = rng.standard_normal((n, 4)), rng.integers(0, 3, n)
        W0, b0 = W.get_value(), b.get_value()
        loss, pred = f(X, Y)
        ref, p = _softmax_xent(X @ W0 + b0, Y)
        np.testing.assert_allclose(loss, ref, rtol=1e-12)
        np.testing.assert_array_equal(pred, (X @ W0 + b0).argmax(axis=1))
        d = p.copy()
        d[np.arange(n), Y] -= 1
        d /= n
        np.testing.assert_allclose(W.get_value(), W0 - 0.5 * X.T @ d, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(b.get_value(), b0 - 0.5 * d.sum(0), rtol=1e-10, atol=1e-12)
        if compiles is None:
            compiles = lj.stats()["compiles"]
        assert lj.stats()["compiles"] == compiles


def test_outputs_use_values_before_updates_and_no_outputs(backend):
    x = lj.vector("x", shape=(3,))
    acc = lj.shared(np.zeros(3), "acc")
    f = lj.function([x], acc * 1, updates={acc: acc + x})
    np.testing.assert_array_equal(f([1.0, 2.0, 3.0]), [0, 0, 0])
    np.testing.assert_array_equal(f(np.ones(3)), [1, 2, 3])
    np.testing.assert_array_equal(acc.get_value(), [2, 3, 4])
    g = lj.function([x], updates=[(acc, acc * x)])
    assert g(np.full(3, 2.0)) == []
    np.testing.assert_array_equal(acc.get_value(), [4, 6, 8])


def test_givens_replace_placeholders_and_shared_variables(backend):
    x = lj.matrix("x", shape=(None, 2))
    s = lj.scalar("s")
    w = lj.shared(np.array([1.0, 2.0]), "w")
    data = lj.shared(np.arange(6.0).reshape(3, 2), "data")
    y = (x * w).sum(axis=1)
    f = lj.function([s], y, givens={x: data * s})
    np.testing.assert_allclose(f(2.0), (np.arange(6.0).reshape(3, 2) * 2 * [1, 2]).sum(1))
    w2 = lj.shared(np.array([3.0, 4.0]), "w2")
    g = lj.function([x], y, givens=[(w, w2)])
    np.testing.assert_allclose(g(np.ones((5, 2))), np.full(5, 7.0))


def test_copy_swaps_shared_variables_without_compiling(backend):
    f, W, b = _logreg(lr=0.1)
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((5, 4)), rng.integers(0, 3, 5)
    f(X, Y)
    W2, b2 = lj.shared(np.zeros((4, 3)), "W2"), lj.shared(np.ones(3), "b2")
    before = lj.stats()["compiles"]
    g = f.copy(swap={W: W2, b: b2})
    Wf = W.get_value()
    loss, _ = g(X, Y)
    np.testing.assert_allclose(loss, np.log(3.0))  # all-equal logits
    assert not np.array_equal(W2.get_value(), np.zeros((4, 3)))  # g updated W2 ...
    np.testing.assert_array_equal(W.get_value(), Wf)  # ... and left W alone
    assert lj.stats()["compiles"] == before
    with pytest.raises(lj.LazyjitError, match="cannot swap"):
        f.copy(swap={W: lj.shared(np.zeros(3), "v")})


def test_modes():
    x = lj.vector("x", "float32")
    y = lj.exp(x) * 2 + 1
    for mode in (None, "fast_compile", "fast_run", "numpy", {"optimizer": "o2"}):
        f = lj.function([x], y, mode=mode)
        np.testing.assert_allclose(f(np.arange(4, dtype=np.float32)),
                                   np.exp(np.arange(4, dtype=np.float32)) * 2 + 1, rtol=1e-6)
    with pytest.raises(lj.LazyjitError):
        lj.function([x], y, mode="fastest")


def test_scan_with_unknown_time_and_batch(backend):
    """An RNN over ``(time, batch, 3)`` sequences: loss and gradients against NumPy for
    two (time, batch) sizes; the second compiles nothing."""
    rng = np.random.default_rng(3)
    xs = lj.tensor3("xs", shape=("time", "batch", 3))
    h0 = lj.matrix("h0", shape=("batch", 4))
    Wx = lj.shared(rng.standard_normal((3, 4)) * 0.5, "Wx")
    Wh = lj.shared(rng.standard_normal((4, 4)) * 0.5, "Wh")
    hs, _ = lj.scan(lambda x, h: lj.tanh(x @ Wx + h @ Wh), sequences=xs, outputs_info=h0)
    loss = (hs ** 2).mean()
    f = lj.function([xs, h0], [loss, *lj.grad(loss, [Wx, Wh])])

    def ref(X, H):
        hs = []
        h = H
        for x in X:
            h = np.tanh(x @ Wx.get_value() + h @ Wh.get_value())
            hs.append(h)
        return (np.stack(hs) ** 2).mean()

    compiles = None
    for T, N in ((5, 2), (3, 1), (8, 6)):
        X, H = rng.standard_normal((T, N, 3)), rng.standard_normal((N, 4))
        loss_v, gx, gh = f(X, H)
        np.testing.assert_allclose(loss_v, ref(X, H), rtol=1e-12)
        eps = 1e-6
        for k, (i, j) in enumerate(((0, 1), (2, 3))):
            sv, g = (Wx, gx) if k == 0 else (Wh, gh)
            v = sv.get_value()
            v[i, j] += eps
            sv.set_value(v)
            up = ref(X, H)
            v[i, j] -= 2 * eps
            sv.set_value(v)
            down = ref(X, H)
            v[i, j] += eps
            sv.set_value(v)
            np.testing.assert_allclose(g[i, j], (up - down) / (2 * eps), rtol=1e-5, atol=1e-9)
        if compiles is None:
            compiles = lj.stats()["compiles"]
        assert lj.stats()["compiles"] == compiles


def test_cnn_with_unknown_batch(backend):
    rng = np.random.default_rng(4)
    x = lj.tensor4("x", "float32", shape=(None, 1, 6, 6))
    w = lj.shared(rng.standard_normal((2, 1, 3, 3)).astype(np.float32), "w")
    h = nnf.max_pool2d(lj.relu(nnf.conv2d(x, w, padding=1)), 2)
    loss = h.reshape(h.shape[0], -1).sum(axis=1).mean()
    f = lj.function([x], [h, loss, lj.grad(loss, w)])
    def eager(xv, wv):
        return nnf.max_pool2d(lj.relu(nnf.conv2d(xv, wv, padding=1)), 2)

    for n in (3, 1, 2):
        X = rng.standard_normal((n, 1, 6, 6)).astype(np.float32)
        hv, lv, gv = f(X)
        want = eager(X, w.get_value()).numpy()
        np.testing.assert_allclose(hv, want, rtol=1e-6)
        np.testing.assert_allclose(lv, want.reshape(n, -1).sum(1).mean(), rtol=1e-5)
        gref = lj.grad(lambda wv, X=X, n=n: eager(X, wv).sum() / n)(w.get_value()).numpy()
        np.testing.assert_allclose(gv, gref, rtol=1e-5, atol=1e-6)


def test_errors():
    x = lj.matrix("x", "float32", shape=(None, 4))
    y = lj.vector("y")
    W = lj.shared(np.ones((4, 2), np.float32), "W")
    out = x @ W
    with pytest.raises(lj.LazyjitError, match="not a shared variable"):
        lj.function([x], out, updates=[(out, out * 2)])
    with pytest.raises(lj.LazyjitError, match="'y'.*not among the inputs"):
        lj.function([x], out.sum() + y.sum())
    with pytest.raises(lj.LazyjitError, match="must be a placeholder"):
        lj.function([W], out)
    with pytest.raises(lj.LazyjitError, match="shape"):
        lj.function([x], out, updates={W: W.sum()})
    with pytest.raises(lj.LazyjitError, match="lj.function"):
        out.numpy()  # a placeholder has no value outside a call
    f = lj.function([x], out)
    with pytest.raises(lj.LazyjitError, match="known size 4 in dimension 1"):
        f(np.ones((3, 5), np.float32))
    with pytest.raises(lj.LazyjitError, match="lossy cast"):
        f(np.ones((3, 4)))
    np.testing.assert_array_equal(lj.function([x], out, allow_input_downcast=True)(
        np.ones((1, 4))), np.full((1, 2), 4.0))
    with pytest.raises(lj.LazyjitError, match="2-d"):
        f(np.ones(4, np.float32))
    with pytest.raises(lj.LazyjitError, match="expected 1 arguments"):
        f()
    a, b = lj.vector("a"), lj.vector("b")
    g = lj.function([a, b], a + b)
    np.testing.assert_array_equal(g([1.0, 2.0], [3.0, 4.0]), [4.0, 6.0])
    np.testing.assert_array_equal(g([1.0, 2.0], [3.0]), [4.0, 5.0])  # NumPy broadcasts
    with pytest.raises(lj.LazyjitError, match=r"add: the sizes a0 and b0 must be equal, or "
                       "one of them 1.*a0 is 2 and b0 is 3"):
        g([1.0, 2.0], [3.0, 4.0, 5.0])
    z = lj.matrix("z")  # an undeclared dimension meeting a known size: a requirement
    zw = lj.function([z], z @ W)
    np.testing.assert_array_equal(zw(np.ones((2, 4), np.float32)), np.full((2, 2), 4.0))
    with pytest.raises(lj.LazyjitError, match="(?s)matmul: the size z1 must equal 4, but at this "
                       "call z1 is 3 .z1 is dimension 1 of 'z'.*test_function.py"):
        zw(np.ones((2, 3), np.float32))


def test_random_draws_advance_the_stream_at_each_call(backend):
    """Draws in a function's graph read the stream's counter at each call and advance
    it (Theano's default updates of random streams): calls give the numbers the same
    draws made one after another give, and a dropout mask keeps its fraction."""
    x = lj.vector("x", "float32", shape=(1000,))
    rs = lj.random.RandomStream(5)
    a = rs.uniform((3,))
    b = rs.uniform((3,))
    f = lj.function([x], [a, b, lj.where(rs.bernoulli((1000,), 0.75), x / 0.75, 0.0)])
    ref = lj.random.RandomStream(5)
    ref.counter = rs.counter  # the draws above advanced it at graph-building time
    first = None
    for _ in range(3):
        av, bv, d = f(np.ones(1000, np.float32))
        np.testing.assert_array_equal(av, ref.uniform((3,)).numpy())
        np.testing.assert_array_equal(bv, ref.uniform((3,)).numpy())
        ref.counter = rs.counter
        kept = (d != 0).mean()
        assert abs(kept - 0.75) < 3 * np.sqrt(0.75 * 0.25 / 1000)
        np.testing.assert_allclose(d[d != 0], 1 / 0.75)
        assert first is None or not np.array_equal(av, first)
        first = av


def test_dropout_with_an_unknown_batch_size(backend):
    """A dropout mask over an unknown batch dimension (its counters from a scan, not a
    constant of the sentinel size): the fraction kept, new masks per call, and draws
    equal to eager draws of the same shape from the same counter."""
    x = lj.matrix("x", "float32", shape=(None, 300))
    rs = lj.random.RandomStream(8)
    f = lj.function([x], lj.nn.functional.dropout(x, 0.5, stream=rs))
    ref = lj.random.RandomStream(8)
    prev = None
    for n in (5, 1, 40):
        ref.counter = rs.counter
        want = lj.nn.functional.dropout(lj.ones((n, 300)), 0.5, stream=ref).numpy()
        y = f(np.ones((n, 300), np.float32))
        np.testing.assert_array_equal(y, want)
        assert rs.counter == ref.counter
        if n == 40:
            assert abs((y != 0).mean() - 0.5) < 3 * np.sqrt(0.25 / y.size)
        assert prev is None or not np.array_equal(y[:1], prev[:1])
        prev = y


def test_cnn_with_unknown_image_sizes(backend):
    """Height and width unknown too: sizes computed by floor division (a strided
    convolution, a pooling) are learned from the replayed shapes, so a bias broadcast
    to them and a reshape of them follow."""
    rng = np.random.default_rng(5)
    x = lj.tensor4("x", "float32", shape=(None, 3, "h", "w"))
    w = lj.shared(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = lj.shared(rng.standard_normal(4).astype(np.float32), "b")

    def net(xv, wv):
        return nnf.max_pool2d(lj.relu(nnf.conv2d(xv, wv, b, stride=2, padding=1)), 2)

    h = net(x, w)
    loss = h.reshape(h.shape[0], -1).mean(axis=1).sum()
    f = lj.function([x], [h, loss, lj.grad(loss, w)])
    for shape in ((2, 3, 16, 16), (1, 3, 11, 20), (3, 3, 8, 9)):
        X = rng.standard_normal(shape).astype(np.float32)
        hv, lv, gv = f(X)
        want = net(lj.tensor(X), lj.tensor(w.get_value())).numpy()
        np.testing.assert_allclose(hv, want, rtol=1e-6)
        np.testing.assert_allclose(lv, want.reshape(shape[0], -1).mean(1).sum(), rtol=1e-5)
        g = lj.grad(lambda wv, X=X, n=shape[0]: net(lj.tensor(X), wv).reshape(n, -1).mean(
            axis=1).sum())(lj.tensor(w.get_value())).numpy()
        np.testing.assert_allclose(gv, g, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["cpu", "numpy"])
def test_slices_and_sizes_over_unknown_dims_follow_numpy(mode):
    """Slice bounds over symbolic sizes follow NumPy at each call's size (clipped: never
    a read past the input), constants are left alone, sizes as values (reciprocals,
    0-d tensors, floor divisions) are exact."""
    x = lj.vector("x")
    a = np.arange(1.0, 6.0)
    for expr, want in ((x[:3], a[:3]), (x[3:], a[3:]), (x[-2:], a[-2:]),
                       (x[:-10], a[:-10]), (x[::-2], a[::-2]), (x[1:-1], a[1:-1]),
                       (x * 1e6, a * 1e6), (lj.where(x > 2, x, -1e9), np.where(a > 2, a, -1e9)),
                       (x / x.shape[0], a / 5), (x.sum() / lj.tensor(x.shape[0]), 3.0),
                       (x[::2].mean(), a[::2].mean()),
                       (lj.arange(1000000.0)[-1] + x, a + 999999)):
        np.testing.assert_allclose(lj.function([x], expr, mode=mode)(a), want, rtol=1e-12)
    s = lj.matrix("s", shape=("n", "n"))
    np.testing.assert_allclose(lj.function([s], s.mean(), mode=mode)(np.ones((3, 3))), 1.0)
    for expr, want in ((x[:10], a), (x[-10:], a), (x[:10].mean(), a.mean()),  # clipped
                       (x[: x.shape[0] // 2], a[:2]), (x[x.shape[0] - 1], a[-1]),
                       (lj.arange(x.shape[0]) * x, np.arange(5) * a)):
        np.testing.assert_allclose(lj.function([x], expr, mode=mode)(a), want, rtol=1e-12)
    xs = lj.vector("xs")
    out, _ = lj.scan(lambda v, h: h + v, sequences=xs, outputs_info=lj.tensor(0.0), n_steps=4)
    cut = lj.function([xs], out, mode=mode)  # as many steps as the sequence has, up to 4
    np.testing.assert_array_equal(cut(np.ones(2)), [1.0, 2.0])
    np.testing.assert_array_equal(cut(np.ones(6)), [1.0, 2.0, 3.0, 4.0])
    # a size made a Python float is refused at that line (no number before a call)
    for make in (lambda n: x * (1.0 / n), lambda n: x * (2.0 * n), lambda n: float(n)):
        with pytest.raises(lj.LazyjitError, match="known only when the function is called"):
            make(x.shape[0])


def test_assignments_while_building_become_updates(backend):
    """An optimizer step and a batch norm's running statistics assigned while the
    graph is built (values depending on placeholders) are taken by the function as
    updates; the variables keep their values until a call."""
    rng = np.random.default_rng(6)
    x = lj.matrix("x", shape=(None, 3))
    y = lj.vector("y")
    W = lj.shared(rng.standard_normal(3), "W")
    rm, rv = lj.shared(np.zeros(3), "rm"), lj.shared(np.ones(3), "rv")
    h = nnf.batch_norm(x, rm, rv, training=True, momentum=0.5)
    loss = ((h @ W - y) ** 2).mean()
    opt = lj.optim.SGD([W], lr=0.1)
    opt.step(lj.grad(loss, [W]))
    assert W.symbolic
    with pytest.raises(lj.LazyjitError, match="depends on the placeholders 'x', 'y'"):
        W.get_value()
    f = lj.function([x, y], loss)
    assert not W.symbolic and not rm.symbolic
    for n in (4, 9):
        X, Y = rng.standard_normal((n, 3)), rng.standard_normal(n)
        W0, rm0, rv0 = W.get_value(), rm.get_value(), rv.get_value()
        Hn = (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5)
        np.testing.assert_allclose(f(X, Y), ((Hn @ W0 - Y) ** 2).mean(), rtol=1e-10)
        np.testing.assert_allclose(W.get_value(), W0 - 0.1 * 2 * Hn.T @ (Hn @ W0 - Y) / n,
                                   rtol=1e-10)
        np.testing.assert_allclose(rm.get_value(), 0.5 * rm0 + 0.5 * X.mean(0), rtol=1e-10)
        np.testing.assert_allclose(rv.get_value(), 0.5 * rv0 + 0.5 * X.var(0, ddof=1),
                                   rtol=1e-10)


def test_scan_draws_and_copies_advance_the_stream(backend):
    """Draws in a scan over a placeholder advance the stream at each call without
    passing the scan's updates; a draw after the scan follows the scan's counters;
    copies advance their own swapped counter by the same amount; chained copies
    compose their swaps."""
    x = lj.vector("x", shape=(3,))
    rs = lj.random.RandomStream(2)
    noise, _ = lj.scan(lambda x_t: x_t + rs.uniform(()), sequences=x)
    later = rs.uniform((2,))
    f = lj.function([x], [noise, later])
    a1, l1 = f(np.zeros(3))
    a2, l2 = f(np.zeros(3))
    assert not np.array_equal(a1, a2)
    ref = lj.random.RandomStream(2)
    ref.counter = rs.counter - 5
    np.testing.assert_array_equal(a2, ref.uniform((3,)).numpy())
    np.testing.assert_array_equal(l2, ref.uniform((2,)).numpy())
    rs2 = lj.random.RandomStream(2)
    g = f.copy(swap={rs.state: rs2.state})
    g(np.zeros(3))
    assert rs2.counter == 5
    A, B, C = (lj.shared(np.array(v)) for v in (1.0, 2.0, 3.0))
    s = lj.scalar("s")
    h = lj.function([s], A * s)
    assert h.copy(swap={A: B}).copy(swap={B: C})(1.0) == 3.0
    W = lj.shared(np.ones((2, 3)))
    k = lj.function([], W.mean())
    W.set_value(np.ones((4, 3)))
    with pytest.raises(lj.LazyjitError, match="built for"):
        k()
    assert "symbolic of 's'" in repr(s * 2)


def test_found_by_the_new_user_trial(backend):
    """Scan updates passed to lj.function (the Theano idiom) keep the stream advancing;
    a slice of a symbolic size is clipped as NumPy's at each call; a conv net's
    gradient compiles nothing at later batch sizes (no size-dependent fusion choice)."""
    rs = lj.random.RandomStream(3)
    out, upd = lj.scan(lambda h: h + rs.normal((3,)), outputs_info=lj.zeros(3, "float32"),
                       n_steps=4)
    f = lj.function([], out, updates=upd)
    assert not np.array_equal(f(), f())
    v = lj.vector("v", "float32")
    g = lj.function([v], v[:3] * 2)
    np.testing.assert_array_equal(g(np.arange(10, dtype=np.float32)), [0, 2, 4])
    np.testing.assert_array_equal(g(np.array([5.0, 4.0], np.float32)), [10, 8])
    x = lj.tensor4("x", "float32", shape=(None, 1, 8, 8))
    w = lj.shared(np.random.default_rng(0).normal(size=(16, 1, 3, 3)).astype(np.float32))
    b = lj.shared(np.zeros(16, np.float32))
    h = lj.function([x], lj.grad((nnf.conv2d(x, w, b, padding=1) ** 2).mean(), [w, b]))
    compiles = None
    for n in (64, 32, 3, 100):
        gw, gb = h(np.ones((n, 1, 8, 8), np.float32))
        y = nnf.conv2d(lj.tensor(np.ones((n, 1, 8, 8), np.float32)), w, b, padding=1).numpy()
        np.testing.assert_allclose(gb, 2 * y.sum(axis=(0, 2, 3)) / y.size, rtol=1e-4,
                                   atol=1e-7)
        compiles = lj.stats()["compiles"] if compiles is None else compiles
        assert lj.stats()["compiles"] == compiles


def test_found_by_the_second_review(backend):
    """Values read eagerly are computed again by compiled functions (their shared
    variables change); Adam's step count is an update of the function; a concrete
    assignment ends a symbolic one; no_default_updates keeps an evaluation function
    from taking the optimizer's updates; sort over an unknown batch."""
    W = lj.shared(np.array([1.0, 2.0]), "W")
    loss = (W ** 2).sum()
    assert float(loss) == 5.0
    reg = (W * 0 + 1).sum()
    reg.numpy()
    f = lj.function([], loss + reg, updates=[(W, W - 0.1 * lj.grad(loss, W))])
    np.testing.assert_allclose([f() for _ in range(3)], [7.0, 5.2, 4.048])
    step = lj.jit(lambda: (W.assign(W * 2), (W ** 2).sum())[1])
    W.set_value(np.array([1.0, 1.0]))  # (the read after the assign: its value, as eagerly)
    np.testing.assert_allclose([float(step()) for _ in range(2)], [8.0, 32.0])

    x, y = lj.matrix("x", shape=(None, 3)), lj.vector("y")
    P = lj.shared(np.zeros(3), "P")
    cost = ((x @ P - y) ** 2).mean()
    opt = lj.optim.Adam([P], lr=0.1)
    opt.step(lj.grad(cost, [P]))
    evaluate = lj.function([x, y], cost, no_default_updates=True)
    train = lj.function([x, y], cost)
    assert not P.symbolic and {v.name for v, _ in train.updates} >= {"P"}
    X, Y = np.eye(3), np.ones(3)
    evaluate(X, Y)
    np.testing.assert_array_equal(P.get_value(), np.zeros(3))
    for _ in range(3):
        train(X, Y)
    assert float(opt.t.get_value()) == 3.0
    ref = lj.shared(np.zeros(3))
    ropt = lj.optim.Adam([ref], lr=0.1)
    jstep = lj.jit(lambda a, b: ropt.step(lj.grad(((a @ ref - b) ** 2).mean(), [ref])) or 0)
    for _ in range(3):
        jstep(X, Y)
    np.testing.assert_allclose(P.get_value(), ref.get_value(), rtol=1e-12)

    V = lj.shared(np.ones(2), "V")
    z = lj.vector("z")
    V.assign(V * z.sum())
    assert V.symbolic
    V.assign(lj.tensor([3.0, 3.0]))
    assert not V.symbolic and lj.function([z], z * 2).updates == []
    np.testing.assert_array_equal(V.get_value(), [3.0, 3.0])

    m = lj.matrix("m", shape=(None, 4))
    s = lj.function([m], lj.sort(m, axis=1))
    M = np.random.default_rng(0).standard_normal((3, 4))
    np.testing.assert_array_equal(s(M), np.sort(M, axis=1))


def test_values_read_eagerly_follow_their_shared_variables_whenever_traced(backend):
    """A function traced after a shared variable changed computes what it read eagerly
    from the variable's current value, as one traced before the change does."""
    W = lj.shared(np.ones(4))
    m = W.sum()
    assert float(m) == 4.0
    x = lj.vector("x")
    g = lj.function([x], m + x.sum() * 0)
    assert float(g(np.zeros(1))) == 4.0
    W.set_value(np.full(4, 2.0))
    assert float(g(np.zeros(1))) == 8.0
    assert float(g(np.zeros(3))) == 8.0  # a new trace, after the change
