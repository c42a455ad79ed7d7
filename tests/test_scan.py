"""``lj.scan`` and ``lj.ifelse`` (Theano semantics).

Every scan is checked against the same loop unrolled by hand in lazyjit (``unrolled``, a
Python for loop over the same body, written from the specification) and/or against a NumPy
loop: outputs, gradients (reverse mode, forward mode, third order), on every backend.
Then: ``strict``, the size of the gradient graph (a reverse scan node, independent of the
number of steps), no new C code when the sequence length changes, and ``ifelse``.

Each test builds all its graphs (scan, unrolled reference, gradients) before computing
anything, then computes them in one ``lj.realize`` (one trace: one compile on ``cpu``).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import check_grads
from helpers import graph_ops

RTOL, ATOL = 1e-8, 1e-10   # float64 comparisons: scan against the unrolled loop


def _np(*tensors):
    """Compute ``tensors`` in one realize (one trace) and return their values."""
    lj.realize(*tensors)
    return [t.numpy() for t in tensors]


def _close(got, expected, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def _list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def unrolled(fn, sequences=None, outputs_info=None, non_sequences=None, n_steps=None,
             go_backwards=False):
    """The loop ``lj.scan`` stands for, unrolled in Python over lazyjit tensors: the
    reference implementation of the specification (Theano's conventions)."""
    seqs = [s if isinstance(s, dict) else {"input": s, "taps": [0]} for s in _list(sequences)]
    seqs = [{"input": s["input"][::-1] if go_backwards else s["input"],
             "taps": list(s.get("taps", [0]))} for s in seqs]
    infos = [None] if outputs_info is None else (
        list(outputs_info) if isinstance(outputs_info, (list, tuple)) else [outputs_info])
    nons = _list(non_sequences)
    lengths = [s["input"].shape[0] - (max(*s["taps"], 0) - min(*s["taps"], 0)) for s in seqs]
    if n_steps is not None:
        lengths.append(n_steps)
    n = min(lengths)
    # history[i]: the values y_i[j] for j = -k .. t-1 (k = rows of its initial value)
    history, out_taps = [], []
    for o in infos:
        if o is None:
            history.append(None)
            out_taps.append(None)
        elif isinstance(o, dict):
            init = o["initial"]
            history.append([init[j] for j in range(init.shape[0])])
            out_taps.append(list(o.get("taps", [-1])))
        else:
            history.append([o])
            out_taps.append([-1])
    results = [[] for _ in infos]
    for t in range(n):
        args = []
        for s in seqs:
            lo = min(*s["taps"], 0)  # (Theano cuts as if tap 0 were read too)
            args += [s["input"][t - lo + tap] for tap in s["taps"]]
        for h, taps in zip(history, out_taps):
            if h is not None:
                args += [h[len(h) + tap] for tap in taps]   # y[t + tap]
        out = _list(fn(*args, *nons))
        assert len(out) == len(infos)
        for i, y in enumerate(out):
            results[i].append(y)
            if history[i] is not None:
                history[i].append(y)
    stacked = [lj.stack(r) for r in results]
    return stacked[0] if len(stacked) == 1 else stacked


def _nodes(*tensors) -> set:
    """The nodes of the graphs of ``tensors`` (walking ``node.src``)."""
    seen: set = set()
    stack = [t.node for t in tensors]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(n.src)
    return seen


# --- forward values ---------------------------------------------------------------------------

def test_cumsum_float32(backend, rng):
    x = rng.standard_normal((6, 3)).astype(np.float32)
    out, updates = lj.scan(lambda x_t, acc: acc + x_t, sequences=lj.tensor(x),
                           outputs_info=lj.zeros(3, dtype="float32"), name="cumsum")
    assert isinstance(updates, dict) and len(updates) == 0
    assert isinstance(out, lj.Tensor)
    assert out.shape == (6, 3) and out.dtype == np.float32
    ref = unrolled(lambda x_t, acc: acc + x_t, sequences=lj.tensor(x),
                   outputs_info=lj.zeros(3, dtype="float32"))
    got, got_ref = _np(out, ref)
    assert got.dtype == np.float32 and got.shape == (6, 3)
    np.testing.assert_allclose(got, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_ref, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)


def test_linear_recurrence_non_sequences(backend, rng):
    """h_t = a * h_{t-1} + x_t * b: values against NumPy, gradients with respect to the
    sequence, the initial state and both non-sequences against the unrolled loop."""
    xv, h0v = rng.standard_normal((7, 4)), rng.standard_normal(4)
    av, bv = rng.uniform(0.5, 0.9, 4), rng.standard_normal()
    x, h0, a, b = lj.tensor(xv), lj.tensor(h0v), lj.tensor(av), lj.tensor(bv)
    step = lambda x_t, h, a, b: a * h + x_t * b
    out, _ = lj.scan(step, sequences=[x], outputs_info=h0, non_sequences=[a, b])
    ref = unrolled(step, sequences=[x], outputs_info=h0, non_sequences=[a, b])
    w = rng.standard_normal((7, 4))
    cost = lj.sum(lj.sin(out) * w)
    cost_ref = lj.sum(lj.sin(ref) * w)
    grads = lj.grad(cost, [x, h0, a, b])
    grads_ref = lj.grad(cost_ref, [x, h0, a, b])
    assert out.shape == (7, 4) and out.dtype == np.float64
    got = _np(out, cost, *grads, *grads_ref)
    expect, h = [], h0v
    for t in range(7):
        h = av * h + xv[t] * bv
        expect.append(h)
    _close(got[0], np.array(expect))
    _close(got[1], np.sum(np.sin(np.array(expect)) * w))
    for g, gr, wrt in zip(got[2:6], got[6:], (xv, h0v, av, bv)):
        assert g.shape == np.shape(wrt)
        _close(g, gr)


def test_sequence_taps(backend, rng):
    """taps [-1, 0, 1]: fn gets x[t], x[t+1], x[t+2] (n_steps = len - 2), with a fed-back
    state; taps listed out of order ([1, -1]) are passed in the listed order; taps [0, 2]."""
    xv, h0v = rng.standard_normal((8, 2)), rng.standard_normal(2)
    x, h0 = lj.tensor(xv), lj.tensor(h0v)
    step = lambda xm, x0, xp, h: 0.5 * h + xm - 2.0 * x0 + 3.0 * xp
    seq = [dict(input=x, taps=[-1, 0, 1])]
    out, _ = lj.scan(step, sequences=seq, outputs_info=h0)
    ref = unrolled(step, sequences=seq, outputs_info=h0)
    swapped, _ = lj.scan(lambda xp, xm: xp - 10.0 * xm,
                         sequences=[dict(input=x, taps=[1, -1])])
    gap, _ = lj.scan(lambda x0, x2: x0 * x2, sequences=[dict(input=x, taps=[0, 2])])
    assert out.shape == (6, 2) and swapped.shape == (6, 2) and gap.shape == (6, 2)
    cost = lj.sum(out ** 2) + lj.sum(lj.tanh(swapped * gap))
    cost_ref = lj.sum(ref ** 2) + lj.sum(lj.tanh(
        unrolled(lambda xp, xm: xp - 10.0 * xm, sequences=[dict(input=x, taps=[1, -1])])
        * unrolled(lambda x0, x2: x0 * x2, sequences=[dict(input=x, taps=[0, 2])])))
    g, g_ref = lj.grad(cost, [x, h0]), lj.grad(cost_ref, [x, h0])
    got = _np(out, swapped, gap, *g, *g_ref)
    expect, h = [], h0v
    for t in range(6):
        h = 0.5 * h + xv[t] - 2.0 * xv[t + 1] + 3.0 * xv[t + 2]
        expect.append(h)
    _close(got[0], np.array(expect))
    _close(got[1], xv[2:] - 10.0 * xv[:-2])
    _close(got[2], xv[:-2] * xv[2:])
    _close(got[3], got[5])
    _close(got[4], got[6])


def test_several_sequences_and_n_steps(backend, rng):
    """The shortest sequence wins; n_steps given with sequences: the smallest wins."""
    av, bv = rng.standard_normal(6), rng.standard_normal(4)
    a, b = lj.tensor(av), lj.tensor(bv)
    short, _ = lj.scan(lambda u, v: u * v, sequences=[a, b])
    capped, _ = lj.scan(lambda u, v: u - v, sequences=[a, b], n_steps=3)
    long_n, _ = lj.scan(lambda u, v: u + v, sequences=[a, b], n_steps=10)
    assert short.shape == (4,) and capped.shape == (3,) and long_n.shape == (4,)
    got = _np(short, capped, long_n)
    _close(got[0], av[:4] * bv)
    _close(got[1], av[:3] - bv[:3])
    _close(got[2], av[:4] + bv)


def test_output_taps_fibonacci_like(backend, rng):
    """outputs_info=dict(initial=y0, taps=[-2, -1]): initial[0] is y[-2], initial[1] is
    y[-1]; fn gets y[t-2], y[t-1] in that order.  The recurrence is not symmetric in its
    two taps, so a swap shows.  Also taps=[-2] alone, with a sequence."""
    init = lj.tensor([1.0, 2.0])
    fib, _ = lj.scan(lambda y2, y1: y1 + 0.5 * y2,
                     outputs_info=[dict(initial=init, taps=[-2, -1])], n_steps=6)
    xv = rng.standard_normal((5, 3))
    y0v = rng.standard_normal((2, 3))
    x, y0 = lj.tensor(xv), lj.tensor(y0v)
    lag, _ = lj.scan(lambda x_t, y2: 0.9 * y2 + x_t, sequences=x,
                     outputs_info=[dict(initial=y0, taps=[-2])])
    lag_ref = unrolled(lambda x_t, y2: 0.9 * y2 + x_t, sequences=x,
                       outputs_info=[dict(initial=y0, taps=[-2])])
    fib_ref = unrolled(lambda y2, y1: y1 + 0.5 * y2,
                       outputs_info=[dict(initial=init, taps=[-2, -1])], n_steps=6)
    assert fib.shape == (6,) and lag.shape == (5, 3)
    cost = lj.sum(fib * lj.arange(6.0)) + lj.sum(lag ** 2)
    cost_ref = lj.sum(fib_ref * lj.arange(6.0)) + lj.sum(lag_ref ** 2)
    g, g_ref = lj.grad(cost, [init, x, y0]), lj.grad(cost_ref, [init, x, y0])
    got = _np(fib, lag, lag_ref, *g, *g_ref)
    expect = [1.0, 2.0]
    for _ in range(6):
        expect.append(expect[-1] + 0.5 * expect[-2])
    _close(got[0], expect[2:])      # [2.5, 3.5, 4.75, 6.5, 8.875, 12.125]
    _close(got[1], got[2])
    y = list(y0v)
    for t in range(5):
        y.append(0.9 * y[-2] + xv[t])
    _close(got[1], np.array(y[2:]))
    for a_, b_ in zip(got[3:6], got[6:]):
        _close(a_, b_)


def test_several_outputs_with_none(backend, rng):
    """outputs_info [h0, None, c0]: fn gets x_t, h, c (the None output is not fed back)
    and returns three outputs, all of shape (n_steps, ...)."""
    xv = rng.standard_normal((5, 3))
    h0v, wv = rng.standard_normal(3), rng.standard_normal(3)
    x, h0, c0, w = lj.tensor(xv), lj.tensor(h0v), lj.tensor(0.5), lj.tensor(wv)

    def step(x_t, h, c, w):
        h_new = lj.tanh(h * w + x_t * c)
        aux = lj.sum(h_new * x_t)
        return h_new, aux, c * 0.9 + lj.sum(h_new) * 0.1

    outs, updates = lj.scan(step, sequences=x, outputs_info=[h0, None, c0], non_sequences=w)
    assert isinstance(outs, list) and len(outs) == 3 and updates == {}
    assert [o.shape for o in outs] == [(5, 3), (5,), (5,)]
    refs = unrolled(step, sequences=x, outputs_info=[h0, None, c0], non_sequences=w)
    cost = lj.sum(outs[0]) + lj.sum(outs[1] ** 2) + lj.sum(outs[2] * lj.arange(5.0))
    cost_ref = lj.sum(refs[0]) + lj.sum(refs[1] ** 2) + lj.sum(refs[2] * lj.arange(5.0))
    g, g_ref = lj.grad(cost, [x, h0, c0, w]), lj.grad(cost_ref, [x, h0, c0, w])
    got = _np(*outs, *refs, *g, *g_ref)
    for a_, b_ in zip(got[:3] + got[6:10], got[3:6] + got[10:]):
        _close(a_, b_)
    # NumPy
    h, c, w_ = h0v, 0.5, wv
    for t in range(5):
        h = np.tanh(h * w_ + xv[t] * c)
        _close(got[0][t], h)
        _close(got[1][t], np.sum(h * xv[t]))
        c = c * 0.9 + np.sum(h) * 0.1
        _close(got[2][t], c)


@pytest.mark.parametrize("go_backwards", [False, True])
def test_taps_everywhere(backend, rng, go_backwards):
    """Two sequences (taps [-2, 1] and plain), outputs with taps [-3, -1], None and plain,
    a non-sequence, forwards and backwards: outputs, gradients and Rop of all outputs
    against the unrolled loop."""
    x, y = lj.tensor(rng.standard_normal((9, 2))), lj.tensor(rng.standard_normal((7, 2)))
    init, h0 = lj.tensor(rng.standard_normal((3, 2))), lj.tensor(rng.standard_normal(2))
    w = lj.tensor(rng.standard_normal(2))

    def step(xm2, xp1, y_t, a3, a1, h, w):
        o = lj.tanh(a3 * 0.5 + a1 * w + xm2 * h)
        return o, lj.sum(o * y_t), h * 0.9 + xp1 * y_t

    kw = dict(sequences=[dict(input=x, taps=[-2, 1]), y],
              outputs_info=[dict(initial=init, taps=[-3, -1]), None, h0],
              non_sequences=[w], go_backwards=go_backwards)
    outs, _ = lj.scan(step, **kw)
    refs = unrolled(step, **kw)
    assert [o.shape for o in outs] == [(6, 2), (6,), (6, 2)]   # min(9 - 3, 7)
    wrt = [x, y, init, h0, w]
    cost = sum(lj.sum(o ** 2) for o in outs)
    g, g_ref = lj.grad(cost, wrt), lj.grad(sum(lj.sum(o ** 2) for o in refs), wrt)
    tangents = [rng.standard_normal(t.shape) for t in wrt]
    r, r_ref = lj.Rop(outs, wrt, tangents), lj.Rop(refs, wrt, tangents)
    got = _np(*outs, *g, *r, *refs, *g_ref, *r_ref)
    for a_, b_ in zip(got[:11], got[11:]):
        _close(a_, b_)


def test_go_backwards(backend, rng):
    """Sequences read from the last element to the first; outputs in the computed order."""
    xv = rng.standard_normal((5, 3)).astype(np.float32)
    x32 = lj.tensor(xv)
    acc, _ = lj.scan(lambda x_t, a: a + x_t, sequences=x32,
                     outputs_info=lj.zeros(3, dtype="float32"), go_backwards=True)
    xd = lj.tensor(xv.astype(np.float64))
    h0 = lj.tensor(np.ones(3))
    step = lambda x_t, h: 0.5 * h + x_t * x_t
    out, _ = lj.scan(step, sequences=xd, outputs_info=h0, go_backwards=True)
    ref = unrolled(step, sequences=xd, outputs_info=h0, go_backwards=True)
    cost = lj.sum(out * lj.arange(15.0).reshape(5, 3))
    cost_ref = lj.sum(ref * lj.arange(15.0).reshape(5, 3))
    g, g_ref = lj.grad(cost, [xd, h0]), lj.grad(cost_ref, [xd, h0])
    got = _np(acc, out, *g, *g_ref)
    assert got[0].dtype == np.float32
    np.testing.assert_allclose(got[0], np.cumsum(xv[::-1], axis=0), rtol=1e-5, atol=1e-5)
    expect, h = [], np.ones(3)
    for x_t in xv[::-1].astype(np.float64):
        h = 0.5 * h + x_t * x_t
        expect.append(h)
    _close(got[1], np.array(expect))
    _close(got[2], got[4])
    _close(got[3], got[5])


def test_non_sequences_only_with_n_steps(backend, rng):
    av, h0v = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    a, h0 = lj.tensor(av), lj.tensor(h0v)
    step = lambda h, a: lj.sin(h * a) + 1.0
    out, _ = lj.scan(step, outputs_info=h0, non_sequences=a, n_steps=5)
    ref = unrolled(step, outputs_info=h0, non_sequences=a, n_steps=5)
    mapped, _ = lj.scan(lambda a: a * 2.0, non_sequences=[a], n_steps=3)   # nothing fed back
    assert out.shape == (5, 3) and mapped.shape == (3, 3)
    cost, cost_ref = lj.sum(out ** 2), lj.sum(ref ** 2)
    g, g_ref = lj.grad(cost, [a, h0]), lj.grad(cost_ref, [a, h0])
    got = _np(out, mapped, *g, *g_ref)
    expect, h = [], h0v
    for _ in range(5):
        h = np.sin(h * av) + 1.0
        expect.append(h)
    _close(got[0], np.array(expect))
    _close(got[1], np.tile(av * 2.0, (3, 1)))
    _close(got[2], got[4])
    _close(got[3], got[5])


def test_n_steps_zero(backend):
    h0, h1, x = lj.tensor(np.ones(3)), lj.tensor(np.ones(2)), lj.tensor(np.zeros((0, 2)))
    out, _ = lj.scan(lambda h: h * 2.0, outputs_info=h0, n_steps=0)
    empty, _ = lj.scan(lambda x_t, h: h * x_t, sequences=x, outputs_info=h1)
    assert out.shape == (0, 3) and empty.shape == (0, 2)
    g0 = lj.grad(lj.sum(out) + lj.sum(h0 * 3.0), h0)
    gx, g1 = lj.grad(lj.sum(empty) + lj.sum(h1), [x, h1])
    got = _np(out, empty, g0, gx, g1)
    assert got[0].shape == (0, 3) and got[0].dtype == np.float64
    assert got[1].shape == (0, 2)
    _close(got[2], [3.0, 3.0, 3.0])
    assert got[3].shape == (0, 2)
    _close(got[4], [1.0, 1.0])


def test_rnn_matmul(backend, rng):
    """A tiny RNN, h_t = tanh(x_t @ W + h_{t-1} @ U + b), on a (batch, hidden) state."""
    T, B, D, H = 5, 2, 3, 4
    Xv = rng.standard_normal((T, B, D))
    Wv, Uv = rng.standard_normal((D, H)) * 0.5, rng.standard_normal((H, H)) * 0.5
    bv, h0v = rng.standard_normal(H) * 0.1, rng.standard_normal((B, H)) * 0.1
    X, W, U, b, h0 = map(lj.tensor, (Xv, Wv, Uv, bv, h0v))
    step = lambda x_t, h, W, U, b: lj.tanh(x_t @ W + h @ U + b)
    out, _ = lj.scan(step, sequences=X, outputs_info=h0, non_sequences=[W, U, b])
    ref = unrolled(step, sequences=X, outputs_info=h0, non_sequences=[W, U, b])
    assert out.shape == (T, B, H)
    target = rng.standard_normal((T, B, H))
    cost = lj.mean((out - target) ** 2) + lj.sum(out[-1])
    cost_ref = lj.mean((ref - target) ** 2) + lj.sum(ref[-1])
    wrt = [X, W, U, b, h0]
    g, g_ref = lj.grad(cost, wrt), lj.grad(cost_ref, wrt)
    # the same RNN in float32: values only
    out32, _ = lj.scan(step, sequences=lj.tensor(Xv.astype(np.float32)),
                       outputs_info=lj.tensor(h0v.astype(np.float32)),
                       non_sequences=[lj.tensor(v.astype(np.float32)) for v in (Wv, Uv, bv)])
    got = _np(out, out32, *g, *g_ref)
    expect, h = [], h0v
    for t in range(T):
        h = np.tanh(Xv[t] @ Wv + h @ Uv + bv)
        expect.append(h)
    _close(got[0], np.array(expect))
    assert got[1].dtype == np.float32
    np.testing.assert_allclose(got[1], np.array(expect), rtol=1e-4, atol=1e-5)
    for a_, b_, w in zip(got[2:7], got[7:], wrt):
        assert a_.shape == w.shape
        _close(a_, b_)


def _scan_nodes(*tensors):
    from lazyjit.trace.graph import toposort
    return [n for n in toposort([t.node for t in tensors], set()) if n.op == "scan"]


def test_rnn_rewrites_keep_values(backend, rng, monkeypatch):
    """The loop rewrites of the tiny RNN: ``x_t @ W`` is pushed out of the body (one
    product left inside: ``h @ U``), and the reverse scan carries no accumulator for
    ``U`` (its products are summed after the loop); values and gradients equal those
    without the push-out."""
    scan_module = sys.modules["lazyjit.api.scan"]  # (lj.scan is the function)
    T, B, D, H = 6, 3, 4, 5
    Xv, Wv = rng.standard_normal((T, B, D)), rng.standard_normal((D, H)) * 0.5
    Uv, h0v = rng.standard_normal((H, H)) * 0.5, rng.standard_normal((B, H)) * 0.1
    step = lambda x_t, h, W, U: lj.tanh(x_t @ W + h @ U)  # noqa: E731
    results = []
    for push in (True, False):
        monkeypatch.setattr(scan_module, "PUSH_OUT", push)
        X, W, U, h0 = map(lj.tensor, (Xv, Wv, Uv, h0v))
        out, _ = lj.scan(step, sequences=X, outputs_info=h0, non_sequences=[W, U])
        (fwd,) = _scan_nodes(out)
        products = [n for n in fwd.arg.trace().nodes if n.op == "matmul"]
        assert len(products) == (1 if push else 2)
        g = lj.Lop(lj.sum(out * out), [X, W, U, h0], lj.tensor(1.0))
        rev = [n for n in _scan_nodes(*g) if n is not fwd]
        assert len(rev) == 1 and rev[0].arg.n_states == 1  # the carry of h only
        results.append(_np(out, *g))
    for a_, b_ in zip(*results):
        _close(a_, b_)


def test_nested_scan(backend, rng):
    """A scan inside a scan's step function: the inner one gets the outer step's values
    through non_sequences (explicit) or by capturing them (implicit)."""
    Xv = rng.standard_normal((3, 4))
    X, s0, w = lj.tensor(Xv), lj.tensor(0.3), lj.tensor(0.7)

    def outer_explicit(x_row, s, w):
        inner, _ = lj.scan(lambda xi, h, w, s: h * w + xi * s, sequences=x_row,
                           outputs_info=lj.zeros((), dtype="float64"), non_sequences=[w, s])
        return lj.tanh(s + inner[-1])

    def outer_implicit(x_row, s):
        inner, _ = lj.scan(lambda xi, h: h * w + xi * s, sequences=x_row,
                           outputs_info=lj.zeros((), dtype="float64"))
        return lj.tanh(s + inner[-1])

    def outer_ref(x_row, s, w):
        inner = unrolled(lambda xi, h, w, s: h * w + xi * s, sequences=x_row,
                         outputs_info=lj.zeros((), dtype="float64"), non_sequences=[w, s])
        return lj.tanh(s + inner[-1])

    out_e, _ = lj.scan(outer_explicit, sequences=X, outputs_info=s0, non_sequences=w)
    out_i, _ = lj.scan(outer_implicit, sequences=X, outputs_info=s0)
    ref = unrolled(outer_ref, sequences=X, outputs_info=s0, non_sequences=w)
    assert out_e.shape == (3,) and out_i.shape == (3,)
    wts = lj.tensor([1.0, -2.0, 3.0])
    g_e = lj.grad(lj.sum(out_e * wts), [X, s0, w])
    g_i = lj.grad(lj.sum(out_i * wts), [X, s0, w])
    g_r = lj.grad(lj.sum(ref * wts), [X, s0, w])
    got = _np(out_e, out_i, ref, *g_e, *g_i, *g_r)
    expect, s = [], 0.3
    for row in Xv:
        h = 0.0
        for xi in row:
            h = h * 0.7 + xi * s
        s = np.tanh(s + h)
        expect.append(s)
    _close(got[2], np.array(expect))
    _close(got[0], np.array(expect))
    _close(got[1], np.array(expect))
    for k in range(3):
        _close(got[3 + k], got[9 + k])
        _close(got[6 + k], got[9 + k])


def test_implicit_capture_gradient(backend, rng):
    """fn uses outer tensors it was not given (leaves, and an intermediate computed
    outside): allowed without strict, and the gradient flows to them."""
    xv, wv = rng.standard_normal((6, 3)), rng.standard_normal(3)
    x, w, h0 = lj.tensor(xv), lj.tensor(wv), lj.tensor(np.zeros(3))
    c = lj.tensor(0.25)
    v = lj.exp(c * 2.0) * 0.1     # an intermediate of the outer graph
    step = lambda x_t, h: lj.tanh(h * w + x_t) + c * w - v
    out, _ = lj.scan(step, sequences=x, outputs_info=h0)
    ref = unrolled(step, sequences=x, outputs_info=h0)
    cost, cost_ref = lj.sum(out ** 3), lj.sum(ref ** 3)
    g, g_ref = lj.grad(cost, [w, c, x, h0]), lj.grad(cost_ref, [w, c, x, h0])
    got = _np(out, *g, *g_ref)
    expect, h = [], np.zeros(3)
    for t in range(6):
        h = np.tanh(h * wv + xv[t]) + 0.25 * wv - np.exp(0.5) * 0.1
        expect.append(h)
    _close(got[0], np.array(expect))
    assert np.any(got[1] != 0)
    for a_, b_ in zip(got[1:5], got[5:]):
        _close(a_, b_)


def test_strict(backend, rng):
    xv = rng.standard_normal((4, 2))
    x, h0, w = lj.tensor(xv), lj.tensor(np.zeros(2)), lj.tensor([1.5, -0.5])
    with pytest.raises(lj.LazyjitError):
        out, _ = lj.scan(lambda x_t, h: h * w + x_t, sequences=x, outputs_info=h0,
                         strict=True)
        out.numpy()
    u2 = lj.tensor([0.5, 0.25]) * 2.0    # an outer intermediate of a tensor not passed
    with pytest.raises(lj.LazyjitError):
        out, _ = lj.scan(lambda x_t, h, w: h * w + x_t + u2, sequences=x, outputs_info=h0,
                         non_sequences=w, strict=True)
        out.numpy()
    # everything passed explicitly; constants created inside fn are allowed
    out, _ = lj.scan(lambda x_t, h, w: h * w + x_t * np.array([1.0, 2.0]) + 1.0,
                     sequences=x, outputs_info=h0, non_sequences=w, strict=True)
    g = lj.grad(lj.sum(out), w)
    ref = unrolled(lambda x_t, h, w: h * w + x_t * np.array([1.0, 2.0]) + 1.0,
                   sequences=x, outputs_info=h0, non_sequences=w)
    g_ref = lj.grad(lj.sum(ref), w)
    got = _np(out, g, g_ref)
    expect, h = [], np.zeros(2)
    for t in range(4):
        h = h * np.array([1.5, -0.5]) + xv[t] * np.array([1.0, 2.0]) + 1.0
        expect.append(h)
    _close(got[0], np.array(expect))
    _close(got[1], got[2])


# --- higher order and forward mode -------------------------------------------------------------

def _tanh_recurrence(a, x, h0):
    step = lambda x_t, h, a: lj.tanh(a * h + x_t)
    out, _ = lj.scan(step, sequences=x, outputs_info=h0, non_sequences=a)
    return out


def _tanh_recurrence_unrolled(a, x, h0):
    return unrolled(lambda x_t, h, a: lj.tanh(a * h + x_t), sequences=x, outputs_info=h0,
                    non_sequences=a)


def test_third_derivatives_nested_grad(backend, rng):
    """d^3 cost / da^3 (and mixed third derivatives) by nested lj.grad through the scan,
    against the same through the unrolled loop."""
    xv = rng.standard_normal(4) * 0.5
    a, x, h0 = lj.tensor(0.8), lj.tensor(xv), lj.tensor(0.3)

    def thirds(f):
        cost = lj.sum(f(a, x, h0) * lj.tensor([1.0, -1.0, 2.0, 0.5]))
        g1 = lj.grad(cost, a)
        g2 = lj.grad(g1, a)
        g3 = lj.grad(g2, [a, x, h0])
        return [cost, g1, g2, *g3]

    got = _np(*thirds(_tanh_recurrence), *thirds(_tanh_recurrence_unrolled))
    n = len(got) // 2
    assert abs(float(got[n - 3])) > 1e-3   # d3/da3 is not trivially zero
    for a_, b_ in zip(got[:n], got[n:]):
        _close(a_, b_)


def test_third_derivatives_check_grads(backend, rng):
    """check_grads on small float64 inputs: to order 3 in forward mode and in reverse mode,
    and to order 2 with the modes mixed (forward-over-reverse, reverse-over-forward).
    (Order 3 with the modes mixed is one trace of 15 derivative functions: ~14 s of gcc
    on a cold cache; the split checks cost ~8 s.)"""
    args = [np.array(0.8), rng.standard_normal(3) * 0.5, np.array(0.3)]
    f = lambda a, x, h0: lj.sum(_tanh_recurrence(a, x, h0) ** 2)
    check_grads(f, args, order=3, modes=("fwd",), rtol=1e-5, atol=1e-7)
    check_grads(f, args, order=3, modes=("rev",), rtol=1e-5, atol=1e-7)
    check_grads(f, args, order=2, modes=("fwd", "rev"), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", ["row", "matrix", "shared"])
def test_second_derivatives_of_products_by_an_invariant(case, backend, rng):
    """``h @ W`` by an invariant ``W``: the reverse scan sums W's cotangent after the loop
    as one GEMM; its step still depends on ``W`` (the carry ``g @ W.T``), so derivatives
    of the gradient, in both modes, see it (they were missing that term: an HVP through
    ``h @ W`` was off by 10-50%).  ``shared``: W used in the product and outside it."""
    h0 = rng.standard_normal((2, 3) if case == "matrix" else 3) * 0.5
    args = [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((4, *h0.shape)), h0]

    def f(w, x, h):
        step = (lambda x_t, h, w: lj.tanh(h @ w + x_t + w[0])) if case == "shared" else \
            (lambda x_t, h, w: lj.tanh(h @ w + x_t))
        out, _ = lj.scan(step, sequences=x, outputs_info=h, non_sequences=w)
        return lj.sum(out ** 2)
    check_grads(f, args, order=2, modes=("fwd", "rev"), rtol=1e-5, atol=1e-7)


def test_rop_and_jvp(backend, rng):
    av, xv, h0v = rng.uniform(0.5, 0.9, 2), rng.standard_normal((5, 2)), rng.standard_normal(2)
    va, vx, vh = rng.standard_normal(2), rng.standard_normal((5, 2)), rng.standard_normal(2)
    a, x, h0 = lj.tensor(av), lj.tensor(xv), lj.tensor(h0v)
    out = _tanh_recurrence(a, x, h0)
    ref = _tanh_recurrence_unrolled(a, x, h0)
    r = lj.Rop(out, [a, x, h0], [va, vx, vh])
    r_ref = lj.Rop(ref, [a, x, h0], [va, vx, vh])
    r_x = lj.Rop(out, x, vx)
    r_x_ref = lj.Rop(ref, x, vx)
    primal, tangent = lj.jvp(_tanh_recurrence, (a, x, h0), (va, vx, vh))
    assert r.shape == (5, 2)
    got = _np(r, r_ref, r_x, r_x_ref, primal, tangent, ref)
    _close(got[0], got[1])
    _close(got[2], got[3])
    _close(got[5], got[1])
    _close(got[4], got[6])
    # a finite-difference sanity check of the reference itself
    eps = 1e-6

    def np_rec(a_, x_, h_):
        out_ = []
        for t in range(5):
            h_ = np.tanh(a_ * h_ + x_[t])
            out_.append(h_)
        return np.array(out_)

    fd = (np_rec(av + eps * va, xv + eps * vx, h0v + eps * vh)
          - np_rec(av - eps * va, xv - eps * vx, h0v - eps * vh)) / (2 * eps)
    np.testing.assert_allclose(got[0], fd, rtol=1e-6, atol=1e-8)


# --- structure: graph size, compiled code -------------------------------------------------------

def test_gradient_graph_size_independent_of_n_steps(backend):
    """The gradient of a scan is a (reverse) scan node: its graph does not grow with the
    number of steps."""
    sizes, values = {}, {}
    for n in (10, 1000):
        xv = np.linspace(-1.0, 1.0, n)
        x, a, h0 = lj.tensor(xv), lj.tensor(0.5), lj.tensor(0.1)
        out, _ = lj.scan(lambda x_t, h, a: a * h + lj.sin(x_t), sequences=x, outputs_info=h0,
                         non_sequences=a)
        cost = lj.sum(out ** 2)
        back = lj.Lop(cost, [x, a, h0], 1.0)     # the backward graph, built now
        deferred = lj.grad(cost, [x, a, h0])
        tangent = lj.Rop(out, [x, a], [np.ones(n), 1.0])
        sizes[n] = (len(_nodes(out)), len(_nodes(*back)), len(_nodes(*deferred)),
                    len(_nodes(tangent)))
        assert "scan" in graph_ops(out) and "scan" in graph_ops(*back)
        values[n] = (xv, _np(out, *back, *deferred))
    for small, big in zip(sizes[10], sizes[1000]):
        assert abs(small - big) <= 5, sizes
    for n, (xv, got) in values.items():   # the gradients are right (NumPy, by hand)
        hs, h = [], 0.1
        for x_t in xv:
            h = 0.5 * h + np.sin(x_t)
            hs.append(h)
        hs = np.array(hs)
        _close(got[0], hs)
        gh, gx, ga = 0.0, np.zeros(n), 0.0    # backprop through h_t = a h_{t-1} + sin(x_t)
        for t in reversed(range(n)):
            gh = gh + 2 * hs[t]
            gx[t] = gh * np.cos(xv[t])
            ga += gh * (hs[t - 1] if t > 0 else 0.1)
            gh = gh * 0.5
        for k, e in enumerate((gx, ga, gh)):
            _close(got[1 + k], e, rtol=1e-7)
            _close(got[4 + k], e, rtol=1e-7)


def test_new_sequence_length_compiles_nothing(rng):
    """A jitted scan (with its gradient) called with a new sequence length reuses the
    compiled code: after a warm-up length, neither a compile nor a disk-cache load."""
    from conftest import _unavailable
    reason = _unavailable("cpu")
    if reason is not None:
        pytest.skip(reason)

    @lj.jit
    def f(x, h0, a):
        out, _ = lj.scan(lambda x_t, h, a: lj.tanh(a * h + x_t), sequences=x, outputs_info=h0,
                         non_sequences=a)
        cost = lj.sum(out ** 2)
        return out, lj.grad(cost, [x, a])

    def run(n):
        xv = rng.standard_normal((n, 3))
        out, (gx, ga) = f(lj.tensor(xv), lj.tensor(np.zeros(3)), lj.tensor(0.7))
        expect, h = [], np.zeros(3)
        for x_t in xv:
            h = np.tanh(0.7 * h + x_t)
            expect.append(h)
        _close(np.asarray(out), np.array(expect))
        assert np.asarray(gx).shape == (n, 3)

    with lj.config(backend="cpu"):
        run(4)
        run(6)
        before = lj.stats()
        run(6)
        run(9)
        after = lj.stats()
    assert after["compiles"] == before["compiles"], (before, after)
    assert after["disk_cache_hits"] == before["disk_cache_hits"], (before, after)


# --- ifelse --------------------------------------------------------------------------------------

def test_ifelse_values_and_grads(backend, rng):
    av, bv, wv = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    a, b = lj.tensor(av), lj.tensor(bv)
    tensors, expects = [], []
    for cond, taken in ((lj.tensor(True), True), (lj.tensor(False), False),
                        (lj.tensor(0), False), (lj.tensor(2.5), True)):
        out = lj.ifelse(cond, a, b)
        assert out.shape == (3,) and out.dtype == np.float64
        ga, gb = lj.grad(lj.sum(out * wv), [a, b])
        tensors += [out, ga, gb]
        expects += [av if taken else bv, wv if taken else 0 * wv, 0 * wv if taken else wv]
    # a computed condition and lists of tensors
    c = lj.sum(a) > lj.sum(b)
    pair = lj.ifelse(c, [a, a * 2.0], (b, b * 3.0))
    assert isinstance(pair, (list, tuple)) and len(pair) == 2
    tensors += list(pair)
    big = av.sum() > bv.sum()
    expects += [av if big else bv, av * 2.0 if big else bv * 3.0]
    got = _np(*tensors)
    for g, e in zip(got, expects):
        _close(g, e)


def test_ifelse_only_taken_branch_matters(backend):
    """The untaken branch would give NaN or inf: the result (and its gradient) is finite."""
    x = lj.tensor(-1.0)
    z = lj.tensor(0.0)
    r1 = lj.ifelse(x > 0, lj.log(x), x * 2.0)          # log(-1) = nan, untaken
    r2 = lj.ifelse(z != 0, 1.0 / z, z + 5.0)            # 1/0 = inf, untaken
    r3 = lj.ifelse(x < 0, x * 3.0, lj.sqrt(x))          # sqrt(-1) = nan, untaken
    g1 = lj.grad(r1, x)
    nan_branch = lj.log(x)
    g_branch = lj.grad(lj.ifelse(x > 0, nan_branch, x * 2.0), nan_branch,
                       disconnected_inputs="ignore")   # (a constant condition may prune it)
    got = _np(r1, r2, r3, g1, g_branch)
    _close(got[0], -2.0)
    _close(got[1], 5.0)
    _close(got[2], -3.0)
    _close(got[3], 2.0)
    _close(got[4], 0.0)

    # the condition is a traced input: it cannot be folded away
    @lj.jit
    def f(x):
        r = lj.ifelse(x > 0, lj.log(x), x * 2.0)
        return r, lj.grad(r, x)

    for xv, value, slope in ((-1.0, -2.0, 2.0), (0.0, 0.0, None), (4.0, np.log(4.0), 0.25)):
        r, g = f(np.array(xv))
        _close(np.asarray(r), value)
        if slope is not None:   # at 0, log'(0) = inf times the untaken branch's 0 is nan,
            _close(np.asarray(g), slope)   # as in Theano (and lj.where): not checked


def test_ifelse_inside_scan(backend, rng):
    """A piecewise recurrence: values and gradients against the unrolled loop."""
    xv = rng.standard_normal(7)
    x, h0, a = lj.tensor(xv), lj.tensor(0.2), lj.tensor(0.6)
    step = lambda x_t, h, a: lj.ifelse(x_t > 0, h * a + x_t, lj.sin(h) - x_t * a)
    out, _ = lj.scan(step, sequences=x, outputs_info=h0, non_sequences=a)
    ref = unrolled(step, sequences=x, outputs_info=h0, non_sequences=a)
    cost, cost_ref = lj.sum(out ** 2), lj.sum(ref ** 2)
    g, g_ref = lj.grad(cost, [x, h0, a]), lj.grad(cost_ref, [x, h0, a])
    got = _np(out, *g, *g_ref)
    expect, h = [], 0.2
    for x_t in xv:
        h = h * 0.6 + x_t if x_t > 0 else np.sin(h) - x_t * 0.6
        expect.append(h)
    _close(got[0], np.array(expect))
    for a_, b_ in zip(got[1:4], got[4:]):
        _close(a_, b_)


def test_sequence_taps_cut_as_theano_cuts_them(backend):
    # Theano cuts a sequence as if tap 0 were read too: taps all above 0 skip the first
    # rows, taps all below 0 stop early (a lone tap [1] read x[0], x[1], ... before)
    x = lj.tensor(np.arange(5.0))
    for taps, want in (([1], [1, 2, 3, 4]), ([-1], [0, 1, 2, 3]), ([0], [0, 1, 2, 3, 4]),
                       ([1, 2], [3, 5, 7]), ([-2, -1], [1, 3, 5]), ([-1, 1], [2, 4, 6])):
        out, _ = lj.scan(lambda *xs: sum(xs[1:], xs[0]),
                         sequences=[dict(input=x, taps=taps)])
        np.testing.assert_array_equal(np.asarray(out), want, err_msg=str(taps))
    # and inside lj.jit, over a sequence whose length is known only at the call
    f = lj.jit(lambda s: lj.scan(lambda a: a * 10, sequences=[dict(input=s, taps=[2])])[0])
    np.testing.assert_array_equal(np.asarray(f(x)), [20.0, 30.0, 40.0])
