"""Forward mode and the function transforms: Rop/Lop (Theano), jvp/vjp (JAX) over nested
structures, jacobian, hessian, Hessian-vector products; symbolic zeros; conventions at
non-differentiable points; errors naming the argument.

Values are checked against NumPy formulas (or finite differences through ``check_grads``),
on every backend; tests that only build graphs or raise errors run once.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.autodiff.forward import push_tangents

from gradcheck import check_grads
from helpers import graph_ops


def _np(*tensors):
    """Compute ``tensors`` in one realize (one compile) and return their values."""
    lj.realize(*tensors)
    return [t.numpy() for t in tensors]


# --- Theano: Rop, Lop --------------------------------------------------------------------------

def test_rop_lop_single_and_lists(backend, rng):
    a, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
    va, vb, u = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal(3)
    x, y = lj.tensor(a), lj.tensor(b)
    f = lj.tanh(x @ y)                              # (3,)
    g = lj.sum(x * x)                               # ()
    r1 = lj.Rop(f, x, va)                           # single f, single wrt
    r2, r3 = lj.Rop([f, g], [x, y], [va, vb])       # lists: J v summed over wrt
    l1 = lj.Lop(f, x, u)                            # single
    l2, l3 = lj.Lop([f, g], [x, y], [u, 2.0])       # lists: sum over f
    got = _np(r1, r2, r3, l1, l2, l3)
    z = a @ b
    d = 1 - np.tanh(z) ** 2
    expect = [d * (va @ b), d * (va @ b + a @ vb), np.sum(2 * a * va),
              np.outer(d * u, b), np.outer(d * u, b) + 2.0 * 2 * a, a.T @ (d * u)]
    for g_, e in zip(got, expect, strict=True):
        np.testing.assert_allclose(g_, e, rtol=1e-12, atol=1e-14)
    assert isinstance(lj.Rop([f], [x], [va]), list) and isinstance(lj.Rop((f,), x, va), tuple)
    assert isinstance(lj.Lop([f], x, [u]), lj.Tensor) and isinstance(lj.Lop(f, [x], u), list)


def test_rop_through_realized_and_intermediate(backend):
    x = lj.tensor([1.0, 2.0])
    h = x * 3.0
    y = h * h
    h.numpy()   # realized after y was built: Rop still reaches x through h's graph node
    rx, rh = _np(lj.Rop(y, x, [1.0, 0.0]), lj.Rop(y, h, [1.0, 1.0]))
    np.testing.assert_allclose(rx, [18.0, 0.0])
    np.testing.assert_allclose(rh, [6.0, 12.0])   # h as an independent input


def test_rop_disconnected_outputs(backend):
    x, z = lj.tensor([1.0, 2.0]), lj.tensor([3.0])
    with pytest.raises(lj.LazyjitError, match=r"f\[1\] does not depend on wrt"):
        lj.Rop([x * 2, z * 2], x, [1.0, 1.0])
    with pytest.warns(UserWarning, match="disconnected output"):
        r = lj.Rop([x * 2, z * 2], x, [1.0, 1.0], disconnected_outputs="warn")
    np.testing.assert_array_equal(r[1].numpy(), [0.0])
    assert lj.Rop(z * 2, x, [1.0, 1.0], "ignore", return_disconnected="none") is None
    # reached only through a zero-derivative op: zeros, no error
    np.testing.assert_array_equal(lj.Rop(lj.floor(x) * z, x, [1.0, 1.0]).numpy(), [0.0, 0.0])


# --- JAX: jvp, vjp over nested structures ------------------------------------------------------

def test_jvp_vjp_nested(backend, rng):
    w, b, xs = rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal(3)
    tw, tb = rng.standard_normal((2, 3)), rng.standard_normal(2)

    def f(params, x, n):
        y = lj.sin(params["w"] @ x) + params["b"][0]
        return {"y": y, "sq": [lj.sum(y * y)], "n": n * 2}

    params = {"w": w, "b": [b]}
    out, t = lj.jvp(f, (params, xs, np.int64(3)), ({"w": tw, "b": [tb]}, None, None))
    cw = np.cos(w @ xs)
    dy = cw * (tw @ xs) + tb
    u = rng.standard_normal(2)
    out2, vjp_fn = lj.vjp(f, params, xs, np.int64(3))
    gp, gx, gn = vjp_fn({"y": u, "sq": [2.0], "n": None})
    got = _np(t["y"], t["sq"][0], t["n"], gp["w"], gp["b"][0], gx, gn)
    yv = np.sin(w @ xs) + b
    np.testing.assert_allclose(got[0], dy, rtol=1e-12)
    np.testing.assert_allclose(got[1], 2 * yv @ dy, rtol=1e-12)
    assert got[2] == 0 and t["n"].dtype == np.int64     # integer outputs: zero tangents
    gy = u + 2.0 * 2 * yv
    np.testing.assert_allclose(got[3], np.outer(gy * cw, xs), rtol=1e-12)
    np.testing.assert_allclose(got[4], gy, rtol=1e-12)
    np.testing.assert_allclose(got[5], w.T @ (gy * cw), rtol=1e-12)
    assert got[6] == 0 and gn.dtype == np.int64          # integer inputs: zeros
    np.testing.assert_allclose(out2["y"].numpy(), yv, rtol=1e-12)


def test_jvp_vjp_has_aux(backend):
    def f(x):
        return x * x, {"aux": x + 1}

    out, t, aux = lj.jvp(f, (lj.tensor([3.0]),), (np.array([2.0]),), has_aux=True)
    np.testing.assert_allclose(_np(out, t, aux["aux"]), [[9.0], [12.0], [4.0]])
    out, vjp_fn, aux = lj.vjp(f, lj.tensor([3.0]), has_aux=True)
    np.testing.assert_allclose(vjp_fn(np.array([1.0]))[0].numpy(), [6.0])


def test_grad_and_value_and_grad_over_pytrees(backend, rng):
    p = {"w": rng.standard_normal((2, 2)), "layers": [rng.standard_normal(2), (1.5, 2)]}
    x = rng.standard_normal(2)

    def loss(p, x):
        h = lj.tanh(p["w"] @ x) * p["layers"][1][0] + p["layers"][0]
        return lj.sum(h * h), h

    (value, h), (gp, gx) = lj.value_and_grad(loss, argnums=(0, 1), has_aux=True)(p, x)
    assert set(gp) == {"w", "layers"} and isinstance(gp["layers"], list)
    assert isinstance(gp["layers"][1], tuple) and gp["layers"][1][1].dtype == np.int64
    got = _np(value, gp["w"], gp["layers"][0], gp["layers"][1][0], gx)
    t = np.tanh(p["w"] @ x)
    hv = t * 1.5 + p["layers"][0]
    np.testing.assert_allclose(got[0], np.sum(hv ** 2), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.outer(2 * hv * 1.5 * (1 - t * t), x), rtol=1e-12)
    np.testing.assert_allclose(got[2], 2 * hv, rtol=1e-12)
    np.testing.assert_allclose(got[3], np.sum(2 * hv * t), rtol=1e-12)
    np.testing.assert_allclose(got[4], p["w"].T @ (2 * hv * 1.5 * (1 - t * t)), rtol=1e-12)
    g = lj.grad(lambda p, x: loss(p, x)[0])(p, x)       # argnums=0: the structure of p
    np.testing.assert_allclose(g["layers"][0].numpy(), 2 * hv, rtol=1e-12)


# --- jacobian, hessian, Hessian-vector products ------------------------------------------------

def test_jacobian_both_modes(backend, rng):
    a, b = rng.standard_normal((2, 2)), rng.standard_normal(3)
    x, y = lj.tensor(a), lj.tensor(b)
    e = lj.exp(x)[:, :, None] * lj.sin(y)       # (2, 2, 3)
    jr = lj.jacobian(e, [x, y], mode="rev")
    jf = lj.jacobian(e, [x, y], mode="fwd")
    ja = lj.jacobian(e, y)                     # auto: fewer passes
    got = _np(*jr, *jf, ja)
    ex = np.zeros((2, 2, 3, 2, 2))
    for i in range(2):
        for j in range(2):
            ex[i, j, :, i, j] = np.exp(a[i, j]) * np.sin(b)
    ey = np.exp(a)[:, :, None, None] * np.eye(3) * np.cos(b)
    for g, e_ in zip(got, [ex, ey, ex, ey, ey], strict=True):
        assert g.shape == e_.shape
        np.testing.assert_allclose(g, e_, rtol=1e-12, atol=1e-15)


def _tanh_sq(x, w):
    return lj.sum(lj.tanh(w @ x) ** 2)


def _tanh_sq_hessian(x, w):
    """Dense Hessian of sum(tanh(W x)^2), by hand: W^T diag(2 (1-t^2)(1-3t^2)) W."""
    t = np.tanh(w @ x)
    return w.T @ np.diag(2 * (1 - t * t) * (1 - 3 * t * t)) @ w


def test_jacobian_and_hessian_of_functions_as_jax(backend, rng):
    # (found by a new-user helper: lj.hessian(f)(x) raised a TypeError) JAX's forms:
    # jacobian(fn, argnums) and hessian(fn, argnums), a tuple of argnums giving the blocks
    a, b = rng.standard_normal((2, 2)), rng.standard_normal(3)
    x, y = lj.tensor(a), lj.tensor(b)
    ex = np.zeros((2, 2, 3, 2, 2))
    for i in range(2):
        for j in range(2):
            ex[i, j, :, i, j] = np.exp(a[i, j]) * np.sin(b)
    ey = np.exp(a)[:, :, None, None] * np.eye(3) * np.cos(b)

    def e(x, y):
        return lj.exp(x)[:, :, None] * lj.sin(y)
    for mode in ("fwd", "rev", None):
        jx, jy = lj.jacobian(e, (0, 1), mode=mode)(x, y)
        np.testing.assert_allclose(jx.numpy(), ex, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(lj.jacobian(e, 1, mode=mode)(x, y).numpy(), ey, rtol=1e-12)
        np.testing.assert_allclose(jy.numpy(), ey, rtol=1e-12)
    w = rng.standard_normal((3, 3))
    h = lj.hessian(_tanh_sq, argnums=0)(lj.tensor(b), lj.tensor(w))
    np.testing.assert_allclose(h.numpy(), _tanh_sq_hessian(b, w), rtol=1e-10, atol=1e-12)

    def f(u, v):  # sum(u v^2): d2/du dv = diag(2 v), d2/dv2 = diag(2 u)
        return lj.sum(u * v * v)
    (huu, huv), (hvu, hvv) = lj.hessian(f, (0, 1))(lj.tensor(b), lj.tensor(b[::-1].copy()))
    np.testing.assert_allclose(huu.numpy(), np.zeros((3, 3)))
    np.testing.assert_allclose(huv.numpy(), np.diag(2 * b[::-1]), rtol=1e-12)
    np.testing.assert_allclose(hvu.numpy(), np.diag(2 * b[::-1]), rtol=1e-12)
    np.testing.assert_allclose(hvv.numpy(), np.diag(2 * b), rtol=1e-12)
    with pytest.raises(lj.LazyjitError, match="must return a 0-d tensor"):
        lj.hessian(lambda u: u * u)(x)
    with pytest.raises(TypeError, match="wrt is required"):
        lj.hessian(lj.sum(x))


def test_hvp_equals_dense_hessian_times_v(backend, rng):
    n = 5
    w, xv, v = rng.standard_normal((4, n)), rng.standard_normal(n), rng.standard_normal(n)
    x = lj.tensor(xv)
    cost = _tanh_sq(x, lj.tensor(w))
    hv, h = lj.hvp(cost, x, v), lj.hessian(cost, x)
    hv_fn = lj.hvp(lambda x: _tanh_sq(x, w), (xv,), (v,))[0]
    got_hv, got_h, got_fn = _np(hv, h, hv_fn)
    dense = _tanh_sq_hessian(xv, w)
    np.testing.assert_allclose(got_h, dense, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_hv, got_h @ v, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_fn, dense @ v, rtol=1e-12, atol=1e-14)
    # Pearlmutter: the graph has no n x n node, so the Hessian is never formed
    assert not any(n_.shape == (n, n) for n_ in _nodes(hv))


def _nodes(t):
    seen, stack = {}, [t.graph_node]
    while stack:
        n = stack.pop()
        if id(n) not in seen:
            seen[id(n)] = n
            stack.extend(n.src)
    return list(seen.values())


def test_hvp_of_several_inputs_has_cross_terms(backend, rng):
    a, b = rng.standard_normal(3), rng.standard_normal(3)
    va, vb = rng.standard_normal(3), rng.standard_normal(3)
    x, y = lj.tensor(a), lj.tensor(b)
    hx, hy = lj.hvp(lj.sum(x * x * y), [x, y], [va, vb])
    got = _np(hx, hy)
    np.testing.assert_allclose(got[0], 2 * b * va + 2 * a * vb, rtol=1e-12)
    np.testing.assert_allclose(got[1], 2 * a * va, rtol=1e-12)


def test_forward_mlp_matches_reverse(backend, rng):
    """A 10-layer float64 MLP: the JVP along v equals the reverse-mode Jacobian (one VJP
    per output) contracted with v, to 1e-10."""
    sizes = [4, 6, 5, 6, 5, 6, 5, 6, 5, 6, 2]
    params = [{"w": rng.standard_normal((m, k)) / np.sqrt(k), "b": rng.standard_normal(m)}
              for k, m in zip(sizes[:-1], sizes[1:], strict=True)]
    x = rng.standard_normal(4)

    def mlp(params, x):
        for layer in params[:-1]:
            x = lj.tanh(layer["w"] @ x + layer["b"])
        return params[-1]["w"] @ x + params[-1]["b"]

    tangents = [{k: rng.standard_normal(v.shape) for k, v in p.items()} for p in params]
    tx = rng.standard_normal(4)
    _, jv = lj.jvp(mlp, (params, x), (tangents, tx))
    _, vjp_fn = lj.vjp(mlp, params, x)
    rows = [vjp_fn(e) for e in np.eye(2)]
    flat_rows = [[r[1]] + [r[0][i][k] for i in range(10) for k in ("w", "b")] for r in rows]
    values = _np(jv, *[t for r in flat_rows for t in r])
    jv, rest = values[0], values[1:]
    per_row = len(flat_rows[0])
    flat_v = np.concatenate([tx.ravel()] + [tangents[i][k].ravel() for i in range(10)
                                             for k in ("w", "b")])
    jac = np.stack([np.concatenate([a.ravel() for a in rest[r * per_row:(r + 1) * per_row]])
                    for r in range(2)])
    np.testing.assert_allclose(jv, jac @ flat_v, rtol=1e-10, atol=1e-12)
    assert np.abs(jv).min() > 1e-3   # not a trivially zero comparison


def test_any_order_mixed_modes(backend):
    x = lj.tensor(0.7)
    d1 = lj.Rop(lj.sin(x), x, 1.0)                          # cos
    d2 = lj.grad(d1, x)                                     # -sin (reverse over forward)
    d3 = lj.Rop(d2, x, 1.0)                                 # -cos (forward over both)
    d4 = lj.grad(lj.grad(lj.Rop(d3, x, 1.0), x), x)         # order 6: -sin
    got = _np(d1, d2, d3, d4)
    np.testing.assert_allclose(got, [np.cos(0.7), -np.sin(0.7), -np.cos(0.7), -np.sin(0.7)],
                               rtol=1e-12)


def test_forward_mode_inside_jit(backend, rng):
    w = rng.standard_normal((3, 4))

    @lj.jit
    def hvp_and_jvp(x, v):
        cost = _tanh_sq(x, lj.tensor(w))
        return lj.hvp(cost, x, v), lj.jvp(lambda x: lj.tanh(w @ x), (x,), (v,))[1]

    x, v = rng.standard_normal(4), rng.standard_normal(4)
    hv, jv = hvp_and_jvp(x, v)
    np.testing.assert_allclose(hv.numpy(), _tanh_sq_hessian(x, w) @ v, rtol=1e-12)
    np.testing.assert_allclose(jv.numpy(), (1 - np.tanh(w @ x) ** 2) * (w @ v), rtol=1e-12)
    hits = lj.stats()["trace_cache_hits"]
    hv2, _ = hvp_and_jvp(x * 2, v)
    assert lj.stats()["trace_cache_hits"] == hits + 1
    np.testing.assert_allclose(hv2.numpy(), _tanh_sq_hessian(x * 2, w) @ v, rtol=1e-12)


# --- symbolic zeros, constants, known gradients ------------------------------------------------

CONSTANT_OPS = {"const", "reshape", "expand"}


def test_symbolic_zeros_build_no_graph():
    x, y, k = lj.tensor([1.0, 2.0]), lj.tensor([3.0, 4.0]), lj.tensor([1, 2])
    cost = lj.sum(x * x) + lj.sum(lj.exp(y) * k)
    gx, gk = lj.grad(cost, [x, k])
    assert gk.dtype == np.int64 and graph_ops(gk) <= CONSTANT_OPS
    gz = lj.grad(cost, lj.tensor([0.0]), disconnected_inputs="ignore")
    assert graph_ops(gz) <= CONSTANT_OPS
    expanded = lj.hvp(cost, x, [1.0, 1.0])          # expands gx's deferred VJP graph
    assert "exp" not in graph_ops(expanded)
    # forward: no tangent graph for the branch that does not depend on x
    t = lj.Rop(x * x + lj.exp(y), x, [1.0, 1.0])
    assert "exp" not in graph_ops(t)
    f = x * k.astype("float64") + lj.sin(y)
    tangents = push_tangents([f.node], {x.node: lj.tensor([1.0, 1.0])})
    assert sorted(n.op for n in tangents) == ["add", "buffer", "mul"]


def test_grad_options_in_both_modes(backend):
    x = lj.tensor([1.0, 2.0])
    h = x * x
    y = lj.sum(h * x)
    g_const = lj.grad(y, x, consider_constant=[h])                       # h held constant
    g_known = lj.grad(None, x, known_grads={h: lj.tensor([10.0, 20.0])})  # dh given
    g_both = lj.grad(y, x, known_grads={h: [1.0, 1.0]})                  # added to the cost's
    g_stop = lj.grad(lj.sum(lj.stop_gradient(h) * x), x)
    r_stop = lj.Rop(lj.stop_gradient(h) * x, x, [1.0, 1.0])
    l_const = lj.Lop(h * x, x, [1.0, 1.0], consider_constant=[h])
    got = _np(g_const, g_known, g_both, g_stop, r_stop, l_const)
    expect = [[1.0, 4.0], [20.0, 80.0], [3 + 2, 12 + 4], [1.0, 4.0], [1.0, 4.0], [1.0, 4.0]]
    for g, e in zip(got, expect, strict=True):
        np.testing.assert_allclose(g, e)


def test_disconnected_inputs_policies(backend):
    x, z = lj.tensor([1.0, 2.0]), lj.tensor([[5.0]])
    cost = lj.sum(x * x)
    for call in (lambda p: lj.grad(cost, [x, z], disconnected_inputs=p),
                 lambda p: lj.Lop(x * x, [x, z], [1.0, 1.0], disconnected_inputs=p),
                 lambda p: lj.jacobian(x * x, [x, z], disconnected_inputs=p)):
        with pytest.raises(lj.DisconnectedInputError, match=r"wrt\[1\] \(shape \(1, 1\)"):
            call("raise")
        with pytest.warns(UserWarning, match=r"wrt\[1\]"):
            out = call("warn")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = call("ignore")
        assert out[1].shape in ((1, 1), (2, 1, 1))
        np.testing.assert_array_equal(out[1].numpy(), np.zeros(out[1].shape))


# --- conventions at non-differentiable points --------------------------------------------------

# (name, function, x, its elementwise derivative at x): checked as the gradient of the sum
# and as Rop along ones, with a finite second derivative; all values finite
EDGES = [
    ("sqrt-at-0", lj.sqrt, [0.0, 4.0], [0.0, 0.25]),
    ("abs-at-0", abs, [0.0, -2.0, 3.0], [0.0, -1.0, 1.0]),
    ("relu-at-0", lj.relu, [0.0, -1.0, 2.0], [0.0, 0.0, 1.0]),
    ("pow-half-at-0", lambda x: x ** 0.5, [0.0, 4.0], [0.0, 0.25]),
    ("pow-neg-at-0", lambda x: lj.where(x == 0, 0.0, x ** -1.0), [0.0, 2.0], [0.0, -0.25]),
    ("pow-2-at-0", lambda x: x ** 2, [0.0, -3.0], [0.0, -6.0]),
    ("pow-exponent", lambda b: 0.0 ** b + (-2.0) ** b + 2.0 ** b, [2.0, 3.0],
     [4 * np.log(2), 8 * np.log(2)]),
    ("maximum-self", lambda x: lj.maximum(x, x), [1.0, -2.0], [1.0, 1.0]),
    ("minimum-tie", lambda x: lj.minimum(x, lj.stop_gradient(x)), [1.0], [1.0]),
    ("where-sqrt", lambda x: lj.where(x > 0, lj.sqrt(x), 0.0), [0.0, -1.0, 4.0],
     [0.0, 0.0, 0.25]),
    ("where-pow", lambda x: lj.where(x > 0, x ** 1.5, 0.0), [-1.0, 0.0, 4.0], [0.0, 0.0, 3.0]),
    ("where-nan-value", lambda x: lj.where(x < 1, x * 2, lj.log(x - 1)), [0.5, 3.0],
     [2.0, 0.5]),
    ("double-where-log", lambda x: lj.where(x > 0, lj.log(lj.where(x > 0, x, 1.0)), 0.0),
     [0.0, -1.0, 4.0], [0.0, 0.0, 0.25]),
    ("norm-at-origin", lambda x: lj.sqrt(lj.sum(x * x)) + x * 0, [0.0, 0.0], [0.0, 0.0]),
]


def test_edges_give_finite_documented_derivatives(backend):
    outs, expect = [], []
    for name, fn, x, d in EDGES:
        t = lj.tensor(x)
        g = lj.grad(lj.sum(fn(t)), t)
        outs += [g, lj.Rop(fn(t), t, np.ones(len(x))), lj.grad(lj.sum(g), t)]
        expect.append((name, d))
    got = _np(*outs)
    for i, (name, d) in enumerate(expect):
        g, r, h = got[3 * i:3 * i + 3]
        np.testing.assert_allclose(g, d, rtol=1e-12, err_msg=name)
        if name != "norm-at-origin":      # not elementwise: its Rop sums a row
            np.testing.assert_allclose(r, d, rtol=1e-12, err_msg=name)
        assert np.isfinite(h).all(), (name, h)


def test_max_ties_split_evenly_in_both_modes(backend):
    x = lj.tensor([[3.0, 1.0, 3.0], [0.0, 2.0, 1.0]])
    v = np.array([[1.0, 5.0, 2.0], [1.0, 1.0, 1.0]])
    g, r, gm = _np(lj.grad(lj.sum(lj.max(x, 1)), x), lj.Rop(lj.max(x, 1), x, v),
                   lj.grad(lj.sum(lj.max(x)), x))
    np.testing.assert_allclose(g, [[0.5, 0, 0.5], [0, 1, 0]])
    np.testing.assert_allclose(r, [1.5, 1.0])
    np.testing.assert_allclose(gm, [[0.5, 0, 0.5], [0, 0, 0]])


def test_check_grads_of_composites_to_order_3(rng):
    """Third order, all 8 mode combinations (reference backend: graphs of this size cost
    seconds of C compile; orders 1-2 run on every backend in test_grad.py)."""
    with lj.config(backend="numpy"):
        check_grads(lambda x, w: lj.logsumexp(lj.tanh(x @ w), axis=0), [
            rng.standard_normal((2, 3)), rng.standard_normal((3, 2))], order=3)


# --- errors name the argument ------------------------------------------------------------------

X = lj.tensor(np.ones(3))
Y = lj.tensor(np.ones((2, 2)))

ERRORS = [
    ("grad-nonscalar", lambda: lj.grad(X * 2, X), "cost must be a scalar"),
    ("grad-fn-nonscalar", lambda: lj.grad(lambda x: x * 2)(np.ones(3)), "cost must be a scalar"),
    ("grad-disconnected", lambda: lj.grad(lj.sum(X), [X, Y]),
     r"wrt\[1\] \(shape \(2, 2\), float64\) is not part of the graph of cost"),
    ("grad-wrt-not-tensor", lambda: lj.grad(lj.sum(X), {"a": X, "b": np.ones(2)}),
     r"wrt\['b'\]: wrt must be tensors"),
    ("grad-known-grads-shape", lambda: lj.grad(None, X, known_grads={X: np.ones(4)}),
     r"known_grads\[0\]: gradient of shape \(4,\)"),
    ("grad-has-aux", lambda: lj.grad(lambda x: lj.sum(x), has_aux=True)(np.ones(2)),
     "must return a pair"),
    ("rop-eval-shape", lambda: lj.Rop(X * Y[0, 0], [X, Y], [np.ones(3), np.ones(3)]),
     r"eval_points\[1\] has shape \(3,\), but wrt\[1\] has shape \(2, 2\)"),
    ("rop-eval-single", lambda: lj.Rop(X * 2, X, np.ones(4)),
     r"eval_points has shape \(4,\), but wrt has shape \(3,\)"),
    ("rop-eval-count", lambda: lj.Rop(X * 2, [X, Y], [np.ones(3)]),
     "eval_points must have the structure of wrt"),
    ("lop-eval-shape", lambda: lj.Lop([X * 2, Y], X, [np.ones(3), np.ones(2)]),
     r"eval_points\[1\] has shape \(2,\), but f\[1\] has shape \(2, 2\)"),
    ("jvp-tangent-shape", lambda: lj.jvp(lambda a, b: a, (np.ones(3), {"w": np.ones(2)}),
                                         (np.ones(3), {"w": np.ones(3)})),
     r"tangents\[1\]\['w'\] has shape \(3,\), but primals\[1\]\['w'\] has shape \(2,\)"),
    ("jvp-tangent-count", lambda: lj.jvp(lambda a: a, (np.ones(3),), ()), "one entry per primal"),
    ("vjp-cotangent-shape", lambda: lj.vjp(lambda a: [a, a], np.ones(3))[1]([np.ones(3), 1.0]),
     r"cotangents\[1\] has shape \(\), but output\[1\] has shape \(3,\)"),
    ("jacobian-int", lambda: lj.jacobian(lj.tensor([1, 2]), X), "floating point"),
    ("jacobian-mode", lambda: lj.jacobian(X, X, mode="sideways"), "mode must be"),
]


@pytest.mark.parametrize("make,pattern", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_input_names_the_argument(make, pattern):
    with pytest.raises(lj.LazyjitError, match=pattern):
        make()


def test_bad_policy_values():
    with pytest.raises(ValueError, match="disconnected_outputs"):
        lj.Rop(X * 2, X, np.ones(3), disconnected_outputs="maybe")
    with pytest.raises(ValueError, match="disconnected_inputs"):
        lj.Lop(X * 2, X, np.ones(3), disconnected_inputs="maybe")


def test_hvp_over_sizes_known_at_each_call_and_related(backend):
    # (found by a fuzzing helper) w of size n - 1 against x[1:]: the broadcast size of
    # x[1:] ** 2 * w is 1 or the other at each call, and the VJP of the broadcast summed
    # over it, always: forward-over-reverse gave 2 sum(w) v; a size-1 w must still sum
    x, w, v = lj.vector("x", "float64", ("n",)), lj.vector("w"), lj.vector("v", "float64", ("n",))
    cost = (x[1:] ** 2 * w).sum()
    hvp = lj.function([x, w, v], lj.hvp(cost, x, v))
    grad_w = lj.function([x, w], lj.grad(cost, w))
    for n, wn in ((4, np.arange(1.0, 4)), (4, np.array([3.0])), (6, np.arange(1.0, 6))):
        xn, vn = np.arange(n) + 1.0, 10.0 ** np.arange(n)
        np.testing.assert_allclose(hvp(xn, wn, vn), np.concatenate([[0.0], 2 * wn * vn[1:]]))
        want = xn[1:] ** 2 if wn.size > 1 else [np.sum(xn[1:] ** 2)]
        np.testing.assert_allclose(grad_w(xn, wn), want)

    @lj.jit
    def jitted(x, w, v):
        return lj.hvp(lambda b: (b[1:] ** 2 * w).sum(), (x,), (v,))[0]
    for n in (4, 5, 7):  # (the second size on: a symbolic trace)
        xn, vn, wn = np.ones(n), 10.0 ** np.arange(n), np.arange(1.0, n)
        np.testing.assert_allclose(jitted(xn, wn, vn).numpy(),
                                   np.concatenate([[0.0], 2 * wn * vn[1:]]))
