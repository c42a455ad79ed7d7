"""lazyjit.nn.functional: conv2d, max_pool2d, avg_pool2d against NumPy references written
here (loops over output positions, einsum over each patch), their gradients in both modes
(check_grads), and their errors.  torch, where installed, cross-checks the references."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj
import lazyjit.nn.functional as F
from gradcheck import GradBatch, check_grads


# NumPy references
# ---------------------------------------------------------------------------------------

def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pads(padding, k, d):
    """(top, bottom, left, right) as torch: 'same' puts the odd element bottom/right."""
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        th, tw = d[0] * (k[0] - 1), d[1] * (k[1] - 1)
        return (th // 2, th - th // 2, tw // 2, tw - tw // 2)
    p = _pair(padding)
    return (p[0], p[0], p[1], p[1])


def _patches(xp, k, s, d):
    """Yield (i, j, patch (N, C, KH, KW)) for every output position of padded ``xp``."""
    oh = (xp.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    for i in range(oh):
        for j in range(ow):
            yield i, j, xp[:, :, i * s[0]:i * s[0] + d[0] * (k[0] - 1) + 1:d[0],
                           j * s[1]:j * s[1] + d[1] * (k[1] - 1) + 1:d[1]], (oh, ow)


def ref_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    s, d = _pair(stride), _pair(dilation)
    o, cg, kh, kw = w.shape
    t, bo, le, r = _pads(padding, (kh, kw), d)
    xp = np.pad(x, ((0, 0), (0, 0), (t, bo), (le, r)))
    og = o // groups
    out = None
    for i, j, patch, (oh, ow) in _patches(xp, (kh, kw), s, d):
        if out is None:
            out = np.zeros((x.shape[0], o, oh, ow), np.result_type(x, w))
        for g in range(groups):
            out[:, g * og:(g + 1) * og, i, j] = np.einsum(
                "nckl,ockl->no", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
    if b is not None:
        out += b[None, :, None, None]
    return out


def ref_pool2d(x, kernel, stride=None, padding=0, dilation=1, kind="max"):
    k = _pair(kernel)
    s = k if stride is None else _pair(stride)
    d, p = _pair(dilation), _pair(padding)
    fill = -np.inf if kind == "max" else 0
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)
    out = None
    for i, j, patch, (oh, ow) in _patches(xp, k, s, d):
        if out is None:
            out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
        out[:, :, i, j] = patch.max(axis=(2, 3)) if kind == "max" else patch.mean(axis=(2, 3))
    return out


def ref_pool2d_select(x, v, kernel, stride=None, padding=0, dilation=1):
    """Per window of ``x``: ``v`` at its first maximum (row-major; NaN wins, padding never)
    and that position's flat index in the plane: ``(values, index)``."""
    k = _pair(kernel)
    s, d, p = (k if stride is None else _pair(stride)), _pair(dilation), _pair(padding)
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out, index = np.zeros((n, c, oh, ow), v.dtype), np.zeros((n, c, oh, ow), np.int64)
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    best = None
                    for r in range(i * s[0] - p[0], i * s[0] - p[0] + d[0] * k[0], d[0]):
                        for q in range(j * s[1] - p[1], j * s[1] - p[1] + d[1] * k[1], d[1]):
                            if 0 <= r < h and 0 <= q < w and (
                                    best is None or x[a, b, r, q] > x[a, b][best]
                                    or (np.isnan(x[a, b, r, q]) and not np.isnan(x[a, b][best]))):
                                best = (r, q)
                    out[a, b, i, j] = v[a, b][best]
                    index[a, b, i, j] = best[0] * w + best[1]
    return out, index


def ref_pool2d_grad(x, g, *args):
    """The cotangent of ``x`` of max pooling: each window's ``g`` added at its selection."""
    _, index = ref_pool2d_select(x, x, *args)
    gx = np.zeros(x.shape, g.dtype)
    n, c = x.shape[:2]
    for a in range(n):
        for b in range(c):
            np.add.at(gx[a, b].reshape(-1), index[a, b].ravel(), g[a, b].ravel())
    return gx


def ref_conv2d_grads(x, w, g, **kw):
    """``(J_x^T g, J_w^T g)`` of ``ref_conv2d`` through its Jacobians (one column per
    basis vector: ``ref_conv2d`` is linear in each operand)."""
    def jt(shape, f):
        basis = np.eye(int(np.prod(shape)), dtype=g.dtype)
        jac = np.stack([f(e.reshape(shape)).ravel() for e in basis], 1)
        return (jac.T @ g.ravel()).reshape(shape)
    return (jt(x.shape, lambda e: ref_conv2d(e, w, **kw)),
            jt(w.shape, lambda e: ref_conv2d(x, e, **kw)))


# the gradient ops as functions of their operands (for the op tables of test_ops and
# test_grad): conv2d_grad_input(g, w), conv2d_grad_weight(x, g), max_pool2d_grad(x, g)
GEOMETRY = dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)


def conv2d_grad_input_fn(x_shape, **kw):
    return lambda g, w: lj.vjp(lambda x: F.conv2d(x, w, **kw), lj.zeros(x_shape, g.dtype)
                               )[1](g)[0]


def conv2d_grad_weight_fn(w_shape, **kw):
    return lambda x, g: lj.vjp(lambda w: F.conv2d(x, w, **kw), lj.zeros(w_shape, g.dtype)
                               )[1](g)[0]


def max_pool2d_grad_fn(*args):
    return lambda x, g: lj.vjp(lambda x: F.max_pool2d(x, *args), x)[1](g)[0]


# cases: x shape, w shape, bias, stride, padding, dilation, groups
CONV_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), True, 1, 0, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), False, (2, 1), (1, 2), 1, 1),
    ((1, 4, 8, 7), (6, 2, 3, 3), True, 2, 1, 2, 2),              # groups, dilation
    ((2, 4, 6, 6), (4, 1, 3, 3), True, 1, "same", 1, 4),          # depthwise
    ((2, 4, 6, 5), (8, 1, 4, 2), False, 1, "same", (2, 1), 4),    # multiplier 2, asymmetric
    ((2, 3, 5, 5), (5, 3, 1, 1), True, 1, "valid", 1, 1),         # 1x1
]
POOL_CASES = [  # x shape, kernel, stride, padding, dilation (max only)
    ((2, 3, 7, 6), 3, 2, 1, 1),
    ((2, 3, 7, 6), (2, 3), None, 0, 1),
    ((1, 2, 8, 7), (3, 2), (1, 2), (1, 1), 2),
]


def _conv_data(case, dtype, seed=0):
    xs, ws, has_bias = case[:3]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype) if has_bias else None
    return x, w, b


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


# values
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV_CASES, ids=[f"conv{i}" for i in range(len(CONV_CASES))])
def test_conv2d_values(backend, case, dtype):
    x, w, b = _conv_data(case, dtype)
    stride, padding, dilation, groups = case[3:]
    out = F.conv2d(lj.tensor(x), lj.tensor(w), None if b is None else lj.tensor(b),
                   stride=stride, padding=padding, dilation=dilation, groups=groups)
    ref = ref_conv2d(x, w, b, stride, padding, dilation, groups)
    assert out.shape == ref.shape and out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), ref, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pool_values(backend, dtype):
    rng = np.random.default_rng(1)
    outs, refs = [], []
    for shape, k, s, p, d in POOL_CASES:
        x = rng.standard_normal(shape).astype(dtype)
        outs += [F.max_pool2d(lj.tensor(x), k, s, p, d), F.avg_pool2d(lj.tensor(x), k, s, p)]
        refs += [ref_pool2d(x, k, s, p, d, "max"), ref_pool2d(x, k, s, p, 1, "avg")]
    lj.realize(*outs)
    for out, ref in zip(outs, refs):
        assert out.shape == ref.shape and out.dtype == dtype
        np.testing.assert_allclose(out.numpy(), ref, **_tol(dtype))


@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_references_match_torch():
    """The NumPy references above follow torch.nn.functional (when torch is installed)."""
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    for case in CONV_CASES:
        x, w, b = _conv_data(case, np.float64)
        stride, padding, dilation, groups = case[3:]
        t = tf.conv2d(torch.from_numpy(x), torch.from_numpy(w),
                      None if b is None else torch.from_numpy(b), stride=stride,
                      padding=padding, dilation=dilation, groups=groups).numpy()
        np.testing.assert_allclose(ref_conv2d(x, w, b, stride, padding, dilation, groups), t,
                                   rtol=1e-12, atol=1e-12)
    rng = np.random.default_rng(1)
    for shape, k, s, p, d in POOL_CASES:
        x = rng.standard_normal(shape)
        tx = torch.from_numpy(x)
        np.testing.assert_allclose(ref_pool2d(x, k, s, p, d, "max"),
                                   tf.max_pool2d(tx, k, s, p, d).numpy(), rtol=1e-12)
        np.testing.assert_allclose(ref_pool2d(x, k, s, p, 1, "avg"),
                                   tf.avg_pool2d(tx, k, s, p).numpy(), rtol=1e-12)


def test_int_inputs(backend):
    x = np.arange(2 * 2 * 4 * 4).reshape(2, 2, 4, 4) % 7 - 3
    mp = F.max_pool2d(lj.tensor(x), 3, 1, 1)
    ap = F.avg_pool2d(lj.tensor(x), 2)
    assert mp.dtype == x.dtype and ap.dtype == np.float64
    np.testing.assert_array_equal(mp.numpy(), ref_pool2d(x.astype(float), 3, 1, 1, 1, "max"))
    np.testing.assert_allclose(ap.numpy(), ref_pool2d(x.astype(float), 2, None, 0, 1, "avg"))


# gradients
# ---------------------------------------------------------------------------------------

def test_conv2d_grads(backend):
    rng = np.random.default_rng(2)
    batch = GradBatch()
    x = rng.standard_normal((2, 2, 5, 4))
    w = rng.standard_normal((4, 1, 2, 3))
    b = rng.standard_normal(4)
    check_grads(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2),
                                         groups=2),
                [x, w, b], order=1, batch=batch, label="conv2d groups")
    w1 = rng.standard_normal((3, 2, 3, 2))
    check_grads(lambda x, w: F.conv2d(x, w, padding="same"), [x, w1], order=1, batch=batch,
                label="conv2d same")
    batch.run()


def test_conv2d_grads_order2(backend):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 1, 3, 3))
    w = rng.standard_normal((2, 1, 2, 2))
    b = rng.standard_normal(2)
    check_grads(lambda x, w, b: F.conv2d(x, w, b, padding=1), [x, w, b], order=2)


def test_pool_grads(backend):
    rng = np.random.default_rng(4)
    batch = GradBatch()
    x = rng.standard_normal((2, 2, 5, 4))
    check_grads(lambda x: F.max_pool2d(x, 3, (2, 1), 1), [x], order=1, batch=batch,
                label="max_pool2d")
    check_grads(lambda x: F.max_pool2d(x, 2, 1, 0, dilation=2), [x], order=1, batch=batch,
                label="max_pool2d dilated")
    check_grads(lambda x: F.avg_pool2d(x, (3, 2), 2, (1, 1)), [x], order=1, batch=batch,
                label="avg_pool2d")
    batch.run()


def test_max_pool2d_tie_gradient(backend):
    """With ties the whole gradient goes to the first maximum of the window (as torch)."""
    x = lj.tensor(np.ones((1, 1, 2, 2)))
    g = lj.grad(F.max_pool2d(x, 2).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [[[[1.0, 0.0], [0.0, 0.0]]]])


def test_conv2d_in_jit_train_step(backend):
    """A jitted step with lj.grad through conv2d + max_pool2d; a new batch size works."""
    @lj.jit
    def step(w, x):
        loss = (F.max_pool2d(lj.relu(F.conv2d(x, w, padding=1)), 2) ** 2).mean()
        return w - 0.1 * lj.grad(loss, w), loss

    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 2, 3, 3))
    for n in (2, 3):
        x = rng.standard_normal((n, 2, 4, 4))
        w_new, loss = step(w, x)
        ref = (ref_pool2d(np.maximum(ref_conv2d(x, w, padding=1), 0), 2) ** 2).mean()
        np.testing.assert_allclose(float(loss), ref, rtol=1e-12)
        assert w_new.shape == w.shape


# concrete implementations and the choice policy (cpu)
# ---------------------------------------------------------------------------------------

def _conv_and_grads(case, dtype, seed):
    """conv2d of a case, and its input and weight gradients for a random cotangent:
    the lazy tensors and their references."""
    x, w, _ = _conv_data(case, dtype, seed)
    kw = dict(zip(("stride", "padding", "dilation", "groups"), case[3:]))
    y, vjp = lj.vjp(lambda x, w: F.conv2d(x, w, **kw), lj.tensor(x), lj.tensor(w))
    g = np.random.default_rng(seed + 1).standard_normal(y.shape).astype(dtype)
    return [y, *vjp(lj.tensor(g))], [ref_conv2d(x, w, **kw), *ref_conv2d_grads(x, w, g, **kw)]


@pytest.mark.parametrize("algo", ["gemm", "direct", "time_once"])
def test_conv2d_implementations(algo):
    """Each cpu implementation (and the timed choice) of conv2d, conv2d_grad_input and
    conv2d_grad_weight against the NumPy references, for every case (strides, padding,
    dilation, groups, depthwise, 1x1): values and the gradients' Jacobian transposes."""
    outs, refs = [], []
    for i, case in enumerate(CONV_CASES):
        o, r = _conv_and_grads(case, np.float64, i)
        outs, refs = outs + o, refs + r
    with lj.config(backend="cpu", conv_algo=algo):
        lj.realize(*outs)
    for i, (out, ref) in enumerate(zip(outs, refs)):
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10,
                                   err_msg=f"case {i // 3}, output {i % 3}")


@pytest.mark.parametrize("algo", ["gemm", "direct"])
def test_conv2d_batched_images_against_reference(algo):
    """Larger batches and images (the gemm implementation multiplies chunks of samples,
    here 4 and 1 of 5; strided, asymmetric): cpu against the numpy backend."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 2, 24, 23))
    w = rng.standard_normal((4, 2, 3, 2))
    g = rng.standard_normal((5, 4, 24, 11))
    kw = dict(stride=(1, 2), padding=(1, 0), dilation=(1, 2))
    values = {}
    for backend, flags in (("numpy", {}), ("cpu", {"conv_algo": algo})):
        with lj.config(backend=backend, **flags):
            y, vjp = lj.vjp(lambda x, w: F.conv2d(x, w, **kw), lj.tensor(x), lj.tensor(w))
            outs = [y, *vjp(lj.tensor(g))]
            lj.realize(*outs)
            values[backend] = [o.numpy() for o in outs]
    for got, want in zip(values["cpu"], values["numpy"]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_int_conv2d(backend):
    """Integers convolve in their dtype (the direct loops on cpu)."""
    rng = np.random.default_rng(6)
    x, w = rng.integers(-3, 4, (2, 4, 5, 5)), rng.integers(-3, 4, (4, 2, 3, 3))
    out = F.conv2d(lj.tensor(x.astype(np.int32)), lj.tensor(w.astype(np.int32)), padding=1,
                   groups=2)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), ref_conv2d(x, w, padding=1, groups=2))


def test_conv_policies_agree_and_time_once_times_once():
    """guess_once and time_once give the same values; time_once times the candidates
    once per shape signature (a new batch size is a new signature), never again."""
    from lazyjit.backends import algorithms
    algorithms.forget()
    rng = np.random.default_rng(7)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    step = lj.jit(lambda x, w: lj.value_and_grad(
        lambda w: (F.conv2d(x, w, padding=1) ** 2).sum())(w))
    xs = {n: rng.standard_normal((n, 3, 6, 6)).astype(np.float32) for n in (2, 3)}
    results = {}
    for policy in ("guess_once", "time_once"):
        with lj.config(backend="cpu", conv_algo=policy):
            for n in (2, 3, 2):
                results.setdefault(n, []).append([a.numpy() for a in step(xs[n], w)])
    for (v0, g0), *rest in results.values():
        for v1, g1 in rest:
            np.testing.assert_allclose(v1, v0, rtol=1e-5)
            np.testing.assert_allclose(g1, g0, rtol=1e-5, atol=1e-4)
    timed = algorithms.TIMED
    # batch 2 and 3: forward and weight gradient, one signature each, timed once
    assert len(timed) == 4 and set(timed.values()) == {1}, timed
    chosen = algorithms.choices()
    assert {k[1] for k in chosen} == {"guess_once", "time_once"}
    assert set(chosen.values()) <= {"gemm", "direct"}


def test_conv_algo_flag_is_checked():
    with pytest.raises(lj.LazyjitError, match="conv_algo"):
        lj.config(conv_algo="fft")


def test_pool_select_and_grad_ops(backend):
    """max_pool2d(x, v) (a JVP: v at x's maxima) and max_pool2d_grad with ties, NaN and
    padding, against loop references."""
    x = np.array([[[[1.0, 3.0, 3.0, 0.0], [3.0, np.nan, 2.0, 2.0], [-np.inf] * 4,
                    [0.5, 0.5, -1.0, 4.0]]]])
    v = np.arange(16.0).reshape(x.shape) + 100
    g = np.random.default_rng(8).standard_normal((1, 1, 2, 2))
    args = (3, 2, 1, 1)
    _, tangent = lj.jvp(lambda x: F.max_pool2d(x, *args), (lj.tensor(x),), (lj.tensor(v),))
    _, vjp = lj.vjp(lambda x: F.max_pool2d(x, *args), lj.tensor(x))
    (grad,) = vjp(lj.tensor(g))
    np.testing.assert_array_equal(tangent.numpy(), ref_pool2d_select(x, v, *args)[0])
    np.testing.assert_array_equal(grad.numpy(), ref_pool2d_grad(x, g, *args))


# errors
# ---------------------------------------------------------------------------------------

def _t(*shape):
    return lj.zeros(shape)


@pytest.mark.parametrize("call, match", [
    (lambda: F.conv2d(_t(1, 4, 5, 5), _t(2, 3, 3, 3)), "channel mismatch"),
    (lambda: F.conv2d(_t(1, 4, 5, 5), _t(2, 2, 3, 3), groups=3), "not divisible by groups"),
    (lambda: F.conv2d(_t(1, 4, 5, 5), _t(3, 2, 3, 3), groups=2), "output channels"),
    (lambda: F.conv2d(_t(4, 5, 5), _t(2, 4, 3, 3)), "4-d input"),
    (lambda: F.conv2d(_t(1, 4, 5, 5), _t(2, 4, 3)), "4-d weight"),
    (lambda: F.conv2d(_t(1, 1, 3, 3), _t(1, 1, 4, 2)), "larger than the padded input"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), dilation=3), "larger than the padded"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(2, 1, 3, 3), bias=_t(3)), "bias must have shape"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=2, padding="same"), "stride 1"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), padding="full"), "padding must be"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=0), "stride must be >= 1"),
    (lambda: F.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), padding=(1, 2, 3)), "pair of ints"),
    (lambda: F.max_pool2d(_t(1, 5, 5), 2), "4-d input"),
    (lambda: F.max_pool2d(_t(1, 1, 5, 5), 3, padding=2), "at most half"),
    (lambda: F.avg_pool2d(_t(1, 1, 4, 4), (3, 2), padding=(1, 2)), "at most half"),
    (lambda: F.avg_pool2d(_t(1, 1, 2, 5), 3), "larger than the padded input"),
])
def test_errors(call, match):
    with pytest.raises(lj.LazyjitError, match=match):
        call()


def test_conv2d_and_pool_of_shared_variables(backend, rng):
    """conv2d and max_pool2d of shared variables (the op rules build their results as
    tensors, not as the operand's class) equal those of plain tensors, gradients too."""
    xv = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    wv = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    results = []
    for make in (lj.tensor, lj.shared):
        x, w = make(xv), make(wv)
        y = F.max_pool2d(F.conv2d(x, w), 2)
        assert type(y) is lj.Tensor
        results.append([y.numpy()] + [g.numpy() for g in lj.grad(y.sum(), [x, w])])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
