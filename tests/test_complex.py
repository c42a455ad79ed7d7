"""complex64 and complex128 against NumPy on every backend: elementwise ops (special values
included), NumPy's promotion with real tensors and Python complex scalars, reductions,
matrix products, the ops refused with a TypeError; and derivatives of real losses through
complex values against finite differences in both modes, with JAX's convention (the
cotangent of ``z = x + 1j*y`` is ``dL/dx - 1j*dL/dy``)."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from helpers import Case, assert_same

_R = np.random.default_rng(11)
_Z = (_R.standard_normal((3, 4)) + 1j * _R.standard_normal((3, 4)))
_W = (_R.standard_normal((3, 4)) + 1j * _R.standard_normal((3, 4)))
_X = _R.standard_normal((3, 4))
# zeros, signed zeros, infinities and NaN in either part
_SPECIAL = np.array([0, -0.0 + 0j, complex(0, -0.0), 1j, -1, np.inf, complex(0, np.inf),
                     complex(np.inf, np.nan), complex(np.nan, 1), complex(-np.inf, 2),
                     complex(1e300, 1e300), 0.5 - 2j])

# the complex-only primitives' cases of tests/test_ops.py's table
OP_CASES = {op: [Case(op, getattr(lj, op), getattr(np, op), values=(_Z,),
                      extra={"complex": True}),
                 Case(f"{op}-64", getattr(lj, op), getattr(np, op),
                      values=(_W.astype(np.complex64),), extra={"complex": True})]
            for op in ("real", "imag", "conj", "reciprocal")}

UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin",
         "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "abs", "negative", "conj",
         "real", "imag", "angle", "isnan", "isinf", "isfinite", "square", "reciprocal",
         "log1p", "expm1", "log2", "log10", "exp2", "sign"]
BINARY = ["add", "subtract", "multiply", "true_divide", "power", "equal", "not_equal"]


# the losses below made of linalg host steps on cuda
HOST_STEPS_ON_CUDA = {"linalg", "eigh", "cholesky", "norms", "svd", "qr", "pinv"}


def _cases(dtype):
    z, w = _Z.astype(dtype), _W.astype(dtype)
    out = [(f, (z,)) for f in UNARY] + [(f, (z, w)) for f in BINARY]
    out += [("multiply", (z, _X.astype(np.float32))), ("add", (_X, z[0])),
            ("where", (_X > 0, z, w)), ("power", (z, np.array(3.0))),
            ("power", (z, np.array(-2, np.int64)))]
    return out


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_elementwise_matches_numpy(backend, dtype):
    cases = _cases(dtype)
    outs = [getattr(lj, f)(*[lj.tensor(a) for a in args]) for f, args in cases]
    lj.realize(*outs)  # (one trace for the table)
    with np.errstate(all="ignore"):
        for (f, args), out in zip(cases, outs):
            assert_same(out, getattr(np, f)(*args), rtol=5e-5 if dtype == "complex64" else None)


@pytest.mark.parametrize("f", ["exp", "log", "sqrt", "abs", "tanh", "angle", "isfinite",
                               "multiply", "true_divide", "log1p", "expm1", "sign", "tan",
                               "log10", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                               "arctanh"])
def test_special_values(backend, f):
    z = _SPECIAL
    args = (z,) if f not in ("multiply", "true_divide") else (z, z[::-1])
    with np.errstate(all="ignore"):
        expected = getattr(np, f)(*args)
    out = getattr(lj, f)(*[lj.tensor(a) for a in args]).numpy()
    # the same value, or NaN in the same parts (C99's Annex G may give a NaN a sign or
    # an infinite part where NumPy gives NaN: both say "no finite value")
    finite = np.isfinite(expected)
    np.testing.assert_allclose(out[finite], expected[finite], rtol=1e-12)
    assert not np.isfinite(out[~finite]).any()


def test_promotion_and_scalars(backend):
    f32 = lj.tensor(_X.astype(np.float32))
    f16 = lj.tensor(_X.astype(np.float16))
    i8 = lj.tensor(np.arange(3, dtype=np.int8))
    z = lj.tensor(_Z.astype(np.complex64))
    got = [f32 * 2j, f16 + 1j, i8 * 1j, z * 2.5, z + 1, z * np.complex128(1j),
           1j * z, z ** 2, lj.tensor(1 + 2j) * f32]
    with np.errstate(all="ignore"):
        expected = [_X.astype(np.float32) * 2j, _X.astype(np.float16) + 1j,
                    np.arange(3, dtype=np.int8) * 1j, _Z.astype(np.complex64) * 2.5,
                    _Z.astype(np.complex64) + 1, _Z.astype(np.complex64) * np.complex128(1j),
                    1j * _Z.astype(np.complex64), _Z.astype(np.complex64) ** 2,
                    np.asarray(1 + 2j) * _X.astype(np.float32)]
    lj.realize(*got)
    for g, e in zip(got, expected):
        assert_same(g, e, rtol=1e-5)
    assert complex(z[0, 0]) == complex(_Z.astype(np.complex64)[0, 0])
    assert f"{lj.tensor(1 + 2j):.1f}" == "1.0+2.0j"


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_reductions_and_matmul(backend, dtype):
    z, w = _Z.astype(dtype), _W.astype(dtype)
    a, b = lj.tensor(z), lj.tensor(w)
    got = [a.sum(), a.sum(axis=0), a.prod(axis=1), lj.mean(a, axis=1), lj.var(a),
           lj.std(a, axis=0, ddof=1), a @ b.T, lj.einsum("ij,kj->ik", a, b),
           a[None] @ b.T[None], a.T @ lj.tensor(_X), lj.cumsum(a, axis=1),
           lj.concatenate([a, b]), a.reshape(4, 3)[1:, ::2], lj.any(a), lj.all(a),
           lj.tensor(np.zeros((0, 3), dtype)).sum(axis=0), np.mean(a)]
    expected = [z.sum(), z.sum(axis=0), z.prod(axis=1), np.mean(z, axis=1), np.var(z),
                np.std(z, axis=0, ddof=1), z @ w.T, np.einsum("ij,kj->ik", z, w),
                z[None] @ w.T[None], z.T @ _X, np.cumsum(z, axis=1),
                np.concatenate([z, w]), z.reshape(4, 3)[1:, ::2], np.any(z), np.all(z),
                np.zeros((0, 3), dtype).sum(axis=0), np.mean(z)]
    lj.realize(*got)
    for g, e in zip(got, expected):
        assert_same(g, e, rtol=5e-5 if dtype == "complex64" else 1e-10)


def test_refused(backend):
    z = lj.tensor(_Z)
    for fn in (lambda: z < z, lambda: lj.maximum(z, z), lambda: lj.max(z), lambda: lj.sort(z),
               lambda: lj.argmax(z), lambda: lj.floor(z), lambda: z // 2, lambda: lj.cbrt(z),
               lambda: lj.grad(lambda u: u.sum())(z)):
        with pytest.raises(TypeError):
            fn()


# real losses of complex (and real) inputs: lj and NumPy spell each alike
LOSSES = {
    "abs2": lambda m, z, w, x: m.sum(m.abs(z) ** 2),
    "real_exp": lambda m, z, w, x: m.sum(m.real(m.exp(z) * m.conj(w))),
    "imag_div": lambda m, z, w, x: m.sum(m.imag(z * w / (z + 2))),
    "mixed": lambda m, z, w, x: m.sum(m.abs(m.sin(z) * x + m.sqrt(w))),
    "angle": lambda m, z, w, x: m.sum(m.angle(z * w)),
    "pow": lambda m, z, w, x: m.sum(m.real(z ** 3 + z ** w)),
    "matmul": lambda m, z, w, x: m.sum(m.abs(z @ w.T + 1j)),
    "from_real": lambda m, z, w, x: m.sum(m.abs(x * (1 + 2j) + m.cos(x * 1j))),
    "trig": lambda m, z, w, x: m.sum(m.real(m.tanh(z) + m.cosh(w) * m.arctan(z)
                                            + m.log(w) + m.arcsinh(z) + m.arccos(w))),
    "reductions": lambda m, z, w, x: m.real(m.mean(z * w)) + m.imag(m.prod(z[0]))
    + m.var(w, axis=0).sum(),
    "logs_exps": lambda m, z, w, x: m.sum(m.real(m.log1p(z) * m.expm1(w) + m.log2(z * w))
                                          + m.imag(m.log10(w) + m.exp2(z))),
    "sign": lambda m, z, w, x: m.sum(m.real(m.sign(z) * w) + m.imag(m.sign(w * x))),
    "linalg": lambda m, z, w, x: m.sum(m.real(m.linalg.solve(z[:, :3], w)))
    + m.sum(m.imag(m.linalg.inv(w[:, 1:]))) + m.abs(
        m.linalg.det(z[:, 1:] * x[:, :3])) + m.imag(m.linalg.slogdet(w[:, :3])[0])
    + m.linalg.slogdet(z[:, :3] + w[:, 1:])[1],
    "norms": lambda m, z, w, x: m.linalg.norm(z) + m.sum(m.linalg.norm(w, 1, axis=1))
    + m.linalg.norm(z * w, np.inf) + m.sum(m.linalg.norm(w, 3, axis=0)),
    "eigh": lambda m, z, w, x: _eigh_loss(m, m.linalg.eigh(z @ m.conj(z).T + w @ m.conj(w).T),
                                          x),
    "cholesky": lambda m, z, w, x: m.sum(m.real(m.linalg.cholesky(
        z @ m.conj(w).T + w @ m.conj(z).T + 9 * m.eye(z.shape[0])) * (1 + 2j))),
    "svd": lambda m, z, w, x: _svd_loss(m, z, w, x),
    "qr": lambda m, z, w, x: _qr_loss(m, z, w, x),
    "pinv": lambda m, z, w, x: m.sum(m.real(m.linalg.pinv(z) * w.T))
    + m.linalg.norm(z * x, 2) + m.linalg.norm(w, "nuc")
    + m.sum(m.imag(m.linalg.lstsq(z.T, w[0])[0])),
}


def _svd_loss(m, z, w, x):
    """Singular values, and what does not depend on the vectors' phases: ``|U|``, ``|Vh|``,
    ``U @ Vh``; wide (``z``) and tall (``z.T``) matrices, and the values alone."""
    u, s, vh = m.linalg.svd(z, full_matrices=False)
    u2, s2, vh2 = m.linalg.svd(z.T * x.T, full_matrices=False)
    return (m.sum(s * m.arange(1, s.shape[-1] + 1)) + m.sum(m.abs(u) ** 2 * x[:, :u.shape[1]])
            + m.sum(m.real((u @ vh) * m.conj(w))) + m.sum(m.imag((u2 * s2) @ vh2 * w.T))
            + m.sum(m.abs(vh2[:, :2]) ** 2)
            + m.sum(m.linalg.svd(w, compute_uv=False) ** 2 * m.arange(min(w.shape))))


def _qr_loss(m, z, w, x):
    """Q and R of a tall matrix, and the complete ones of a square one."""
    q, r = m.linalg.qr(z.T + 2 * w.T)
    k = min(z.shape)
    q2, r2 = m.linalg.qr(z[:, :k], mode="complete")
    return (m.sum(m.real(q * (1 + 2j) * w.T)) + m.sum(m.imag(r * z[:, :r.shape[1]]))
            + m.sum(m.real(q2 @ r2 * w[:, -k:])) + m.sum(m.abs(r2) ** 2 * x[:, :k]))


def _eigh_loss(m, e, x):
    """Eigenvalues, and the eigenvectors' moduli (independent of their phases)."""
    k = e[0].shape[-1]
    return m.sum(e[0] * m.arange(1, k + 1)) + m.sum(m.abs(e[1]) ** 2 * x[:, :k])


def _fd_grad(f, args, eps=1e-6):
    """Central differences of the real ``f(*args)``: per argument, ``dL/dx - 1j*dL/dy``
    for a complex one (JAX's convention), ``dL/dx`` for a real one."""
    out = []
    for i, a in enumerate(args):
        g = np.zeros(a.shape, a.dtype)
        for idx in np.ndindex(a.shape):
            for step, part in ((eps, 1.0), (1j * eps, -1j)) if a.dtype.kind == "c" else \
                    ((eps, 1.0),):
                hi, lo = [list(args) for _ in range(2)]
                hi[i], lo[i] = a.copy(), a.copy()
                hi[i][idx] += step
                lo[i][idx] -= step
                g[idx] += part * (f(*hi) - f(*lo)) / (2 * eps)
        out.append(g)
    return out


def check_real_loss(f, args, tol: float = 1e-6) -> None:
    """The gradient of the real loss ``f(lj, *args)`` (reverse mode) and its JVP along a
    fixed tangent (forward mode) against central differences of ``f(np, *args)``; the JVP
    along ``t`` is ``Re(sum(cotangent * t))`` (JAX's convention)."""
    expected = _fd_grad(lambda *a: f(np, *a), args)
    ts = [lj.tensor(a) for a in args]
    got = lj.grad(lambda *a: f(lj, *a), argnums=tuple(range(len(args))))(*ts)
    tangents = [np.full(a.shape, 0.3 - 0.7j if a.dtype.kind == "c" else 0.4) for a in args]
    _, jv = lj.jvp(lambda *a: f(lj, *a), ts, [lj.tensor(t) for t in tangents])
    lj.realize(*got, jv)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=tol, atol=tol)
    directional = sum(np.real(np.sum(e * t)) for e, t in zip(expected, tangents))
    np.testing.assert_allclose(float(jv), directional, rtol=tol, atol=tol)


def check_second_order(f, args) -> None:
    """The gradient of the squared norm of ``f``'s gradient (reverse over reverse)
    against central differences of the finite-difference gradient."""
    argnums = tuple(range(len(args)))

    def energy(m, grad):
        def e(*a):
            return sum(m.sum(m.abs(gi) ** 2) for gi in grad(*a))
        return e
    lj_grad = lj.grad(lambda *a: f(lj, *a), argnums=argnums)
    got = lj.grad(energy(lj, lj_grad), argnums=argnums)(*[lj.tensor(a) for a in args])
    expected = _fd_grad(energy(np, lambda *a: _fd_grad(lambda *b: f(np, *b), a, 1e-5)),
                        args, 1e-4)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients_both_modes(backend, name):
    if backend == "cuda" and name in HOST_STEPS_ON_CUDA:
        pytest.skip("linalg runs as NumPy host steps on emulated cuda: its derivative "
                    "graphs are checked on the other backends (CI's time)")
    check_real_loss(LOSSES[name], (_Z, _W, _X), tol=1e-6)


@pytest.mark.parametrize("name", ["abs2", "real_exp", "mixed", "pow", "sign", "cholesky",
                                  "eigh", "svd", "qr"])
def test_second_order(name):
    size = (2, 2) if name in ("svd", "qr") else (1, 2)  # (square: the gap terms; the
    # non-square ones are checked to order 1)
    check_second_order(LOSSES[name], tuple(v[:size[0], :size[1]] for v in (_Z, _W, _X)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_linalg_matches_numpy(backend, dtype):
    """solve, inv, det, slogdet, cholesky, eigh, svd and qr of complex matrices (LAPACK's
    gesv, getrf, potrf, heevd, gesdd, geqrf and ungqr on cpu), batched and broadcast, a
    singular matrix included; norms (real); what is built on the SVD."""
    if backend == "cuda" and dtype == "complex64":
        pytest.skip("NumPy host steps on emulated cuda: complex128 covers them (CI's time)")
    a = (_R.standard_normal((2, 3, 3)) + 1j * _R.standard_normal((2, 3, 3))).astype(dtype)
    b = _W[:, :2].astype(dtype)
    sing = np.array([[1, 1j], [1j, -1]], dtype)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + 3 * np.eye(3, dtype=dtype)
    A = lj.tensor(a)
    got = [lj.linalg.solve(A, lj.tensor(b)), lj.linalg.solve(A[0], lj.tensor(b[:, 0])),
           lj.linalg.inv(A), lj.linalg.det(A), *lj.linalg.slogdet(A),
           *lj.linalg.slogdet(lj.tensor(sing)), lj.linalg.det(lj.tensor(sing)),
           lj.linalg.solve(A, _X[:, :2]), lj.linalg.cholesky(lj.tensor(h)),
           lj.linalg.cholesky(lj.tensor(h), upper=True), lj.linalg.norm(A),
           lj.linalg.norm(A, 1, axis=(1, 2)), lj.linalg.vector_norm(A, ord=0, axis=1),
           lj.linalg.eigvalsh(lj.tensor(h)), lj.linalg.eigvalsh(lj.tensor(h), UPLO="U"),
           lj.abs(lj.linalg.eigh(lj.tensor(h), UPLO="U")[1]),
           *(_svd_family(lj, a, b) if backend != "cuda" else [])]
    expected = [np.linalg.solve(a, b), np.linalg.solve(a[0], b[:, 0]), np.linalg.inv(a),
                np.linalg.det(a), *np.linalg.slogdet(a), *np.linalg.slogdet(sing),
                np.linalg.det(sing), np.linalg.solve(a, _X[:, :2]), np.linalg.cholesky(h),
                np.linalg.cholesky(h, upper=True), np.linalg.norm(a),
                np.linalg.norm(a, 1, axis=(1, 2)), np.linalg.vector_norm(a, ord=0, axis=1),
                np.linalg.eigvalsh(h), np.linalg.eigvalsh(h, UPLO="U"),
                np.abs(np.linalg.eigh(h, UPLO="U")[1]),
                *(_svd_family(np, a, b) if backend != "cuda" else [])]  # (cuda: NumPy's
    # linalg as host steps, the numpy backend's)
    lj.realize(*got)
    for g, e in zip(got, expected):
        assert_same(g, e, rtol=1e-5 if dtype == "complex64" else 1e-10)
    with pytest.raises(np.linalg.LinAlgError):
        lj.linalg.inv(lj.tensor(sing)).numpy()


@pytest.mark.parametrize("vectors", [lambda a: lj.linalg.eigh(a)[1],
                                     lambda a: lj.linalg.svd(a)[0],
                                     lambda a: lj.linalg.svd(a)[2]], ids=["eigh", "U", "Vh"])
def test_gradient_of_a_phase_dependent_loss_is_nan(vectors):
    """Re((1+2j) V[1, 0]) depends on the phase LAPACK picked for the first eigenvector
    (singular vector): it has no derivative (NaN, never a made-up number); |V[1, 0]|
    has one."""
    h = _Z[:, :3] @ _Z[:, :3].conj().T + np.eye(3)
    g = lj.grad(lambda a: lj.real(vectors(a)[1, 0] * (1 + 2j)))(lj.tensor(h))
    assert np.isnan(g.numpy()).all()
    g = lj.grad(lambda a: lj.abs(vectors(a)[1, 0]))(lj.tensor(h))
    assert np.isfinite(g.numpy()).all()


def _svd_family(m, a, b):
    """Values of the SVD and QR that do not depend on the vectors' phases, and of what is
    built on them, wide, tall, empty and rank-deficient matrices included."""
    t = m.asarray if m is np else lj.tensor
    low = t(np.outer(a[0, 0], a[1, 1]))  # (rank 1)
    out = []
    for x in (t(a), t(a[:, :2]), t(np.swapaxes(a, -1, -2)[..., :2, :]), low):
        out += [m.linalg.svd(x, compute_uv=False), m.linalg.pinv(x), m.linalg.matrix_rank(x),
                m.linalg.norm(x, 2, axis=(-2, -1)), m.linalg.norm(x, "nuc", axis=(-2, -1))]
        if x is not low:  # (of full rank: vectors unique up to phase)
            u, s, vh = m.linalg.svd(x, full_matrices=False)
            q, r = m.linalg.qr(x)
            out += [s, m.abs(u), m.abs(vh), u @ vh, m.abs(q), m.abs(r), q @ r]
    u, s, vh = m.linalg.svd(a)
    q, r = m.linalg.qr(a[:, :2], mode="complete")
    out += [s, u @ vh, q @ r, m.abs(r), m.linalg.svd(t(np.zeros((0, 2), a.dtype)))[0],
            m.linalg.svd(a, hermitian=True, compute_uv=False)]
    out += m.linalg.lstsq(t(a[0]), t(b[:, 0]))[:3] + m.linalg.lstsq(t(a[0, :, :2]), t(b))[:3]
    return out


def test_second_order_linalg():
    check_second_order(LOSSES["linalg"], (_Z, _W, _X))


def test_nan_functions_and_refusals_of_composites(backend):
    z = _SPECIAL[:10]
    t = lj.tensor(z)
    got = [lj.nan_to_num(t), lj.nansum(t[[0, 1, 3, 8]]), lj.nanmean(t[[0, 3, 8]])]
    with np.errstate(all="ignore"):
        expected = [np.nan_to_num(z), np.nansum(z[[0, 1, 3, 8]]), np.nanmean(z[[0, 3, 8]])]
    for g, e in zip(got, expected):
        assert_same(g, e)
    for fn in (lambda: lj.median(t), lambda: lj.round(t)):
        with pytest.raises(TypeError):
            fn()


def test_found_by_review(backend):
    """Cases a review found wrong, each now NumPy's value or a clear error."""
    z = lj.tensor(np.array([1 + 2j, complex(0, -0.0)]))
    assert_same(z - 0, np.array([1 + 2j, complex(0, -0.0)]))
    assert_same(z - complex(0, -0.0), np.array([1 + 2j, complex(0, -0.0)]) - complex(0, -0.0))
    b = lj.tensor(np.array([0j, 1j, 2, 0]))
    assert_same(b.astype(bool), np.array([0j, 1j, 2, 0]).astype(bool))
    assert_same(lj.where(b, 1, 2), np.where(np.array([0j, 1j, 2, 0]), 1, 2))
    assert_same(lj.any(b[:2]), np.True_)
    v = np.array([1j, 2 - 1j])
    assert_same(lj.vecdot(lj.tensor(v), lj.tensor(v)), np.vecdot(v, v))
    assert_same(lj.vdot(lj.tensor(v), lj.tensor(v[::-1])), np.vdot(v, v[::-1]))
    assert_same(lj.inner(lj.tensor(_Z), lj.tensor(_W)), np.inner(_Z, _W))
    p = np.array([complex(np.inf, 0), complex(-0.0, -1), complex(1, np.inf), 2 - 1j])
    for e in (1, 2, 3, -2):
        with np.errstate(all="ignore"):
            want = np.power(p, complex(e))
        got = lj.power(lj.tensor(p), complex(e)).numpy()  # (constant integer: on cuda too)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        np.testing.assert_allclose(got[ok], want[ok], rtol=1e-15)
        np.testing.assert_array_equal(np.signbit(got[ok].real), np.signbit(want[ok].real))
    c = np.array([complex(np.inf, 1), 2])  # (from the first element: 1 * (inf+1j) has NaN)
    assert_same(lj.cumprod(lj.tensor(c)), np.cumprod(c))
    assert np.signbit(lj.cumsum(lj.tensor(np.array([-0.0, -0.0]))).numpy()).all()
    v = np.array([complex(np.inf, np.nan), 1])
    assert_same(lj.linalg.norm(lj.tensor(v)), np.linalg.norm(v))
    t = lj.tensor(_Z)
    assert_same(t.real, _Z.real)
    assert_same(t.imag, _Z.imag)
    assert_same(t.conj(), _Z.conj())
    assert_same(lj.var(t, dtype=np.complex64), np.var(_Z, dtype=np.complex64), rtol=1e-5)
    for fn in (lambda: lj.bincount(lj.tensor([0]), weights=lj.tensor([1 + 5j])),
               lambda: lj.tensor(np.zeros(2)).at[0].set(1 + 5j),
               lambda: lj.var(t, dtype=np.float64)):
        with pytest.raises(TypeError):
            fn()


def test_in_a_loop_body(backend):
    """A complex step of a scan (the cuda backend runs its kernels per step)."""
    x = np.array([3.0, 4.0, -1.5])
    out, _ = lj.scan(lambda a, c: c * 1j + lj.exp(a * (1 + 1j)), sequences=lj.tensor(x),
                     outputs_info=lj.tensor(np.array(0.5 + 0j)))
    c, expected = 0.5 + 0j, []
    for a in x:
        c = c * 1j + np.exp(a * (1 + 1j))
        expected.append(c)
    assert_same(out, np.array(expected))


def _numpy_multiplies_with_fma() -> bool:
    """Whether this machine's NumPy takes its FMA complex-multiply loop (x86-64 with
    FMA, NumPy 2), the product lazyjit's cpu modules then use too."""
    try:
        with open("/proc/cpuinfo") as f:
            fma = " fma " in f.read()
    except OSError:
        return False
    return fma and int(np.__version__.split(".")[0]) >= 2


@pytest.mark.skipif(not _numpy_multiplies_with_fma(), reason="NumPy's product differs here")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_products_are_numpys_bit_for_bit(dtype):
    """Products found by a differential hunt: ``x * x``, ``square`` and ``x ** 2`` are
    NumPy's elementwise (FMA) product, as ``x * y`` is (``x * x`` gave NaN + inf j where
    NumPy overflows to -inf + inf j); integer powers and ``prod`` its textbook product
    (``prod`` overflowed to NaN - inf j, NumPy's is NaN + NaN j).  Not bit for bit, and
    in the README: ``cumprod`` and ``prod`` over outer axes (NumPy's accumulate takes the
    textbook product, its outer reduction the FMA one).  ``abs`` is NumPy's
    ``l sqrt(fma(r, r, 1))`` (glibc's ``cabs`` was up to 2 ulp off), ``reciprocal`` and
    ``x ** -1`` NumPy's reciprocal loop (``1 / 0j`` is ``inf + nan j``, its reciprocal
    ``nan + nan j``), ``x ** 2.0`` its power (not its square, as ``x ** 2``)."""
    rng = np.random.default_rng(3)
    a, b = [(rng.standard_normal(1001) + 1j * rng.standard_normal(1001)).astype(dtype)
            for _ in range(2)]
    x, y = lj.tensor(a), lj.tensor(b)
    big = np.array([1e30 + 1e30j, 2e20 + 3e20j], "complex64")
    ones = (1 + 0.01 * a).reshape(91, 11)
    with np.errstate(all="ignore"):
        pairs = [(x * y, a * b), (x * x, a * a), (lj.square(x), np.square(a)),
                 (x ** 2, a ** 2), (x ** 3, a ** 3), (x ** 7, a ** 7),
                 (lj.tensor(big) * lj.tensor(big), big * big),
                 (lj.prod(lj.tensor(ones)), np.prod(ones)),
                 (lj.prod(lj.full(100, 3 + 1j, dtype)), np.prod(np.full(100, 3 + 1j, dtype))),
                 (lj.abs(x), np.abs(a)), (lj.abs(lj.tensor(big)), np.abs(big)),
                 (lj.reciprocal(x), np.reciprocal(a)), (x ** -1, a ** -1),
                 (lj.reciprocal(lj.tensor(_SPECIAL)), np.reciprocal(_SPECIAL)),
                 (lj.tensor(big) ** 2.0, big ** 2.0), (lj.tensor(big) ** 2, big ** 2)]
        for got, want in pairs:
            np.testing.assert_array_equal(got.numpy(), want)
    # (over an outer axis NumPy multiplies rows with its elementwise, FMA, product: an
    # ulp or two from the textbook one of the reduction)
    np.testing.assert_allclose(lj.prod(lj.tensor(ones), axis=0).numpy(),
                               np.prod(ones, axis=0), rtol=4 * np.finfo(dtype).eps)


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element, the larger of the two parts' distances in units in the last place of
    NumPy's value (0 where both are the same infinity, both NaN, or equal)."""
    info = np.finfo(want.real.dtype)
    out = np.zeros(want.shape)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        g, w = g.astype(np.float64), w.astype(np.float64)
        scale = np.spacing(np.maximum(np.abs(w), info.tiny).astype(info.dtype)).astype(np.float64)
        err = np.abs(g - w) / scale
        out = np.maximum(out, np.where((np.isnan(g) & np.isnan(w)) | (g == w), 0, err))
    return out


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_cuda_forms_are_accurate(dtype):
    """lazyjit's own CUDA sqrt, log (and log2, log10), tanh, tan, the inverse functions
    and power (libcu++'s are hundreds of ulp off, or overflow), run in the emulation,
    against NumPy (glibc) on |z| from 1e-300 to 1e300 (1e-30 to 1e30 for complex64),
    around the unit circle (where log|z| cancels) and the branch points +-1: a few ulp
    (powers amplify log's error by |b log a|); and C99's special values, NumPy's, signs
    of zeros and infinities included."""
    rng = np.random.default_rng(4)
    top = 30 if dtype == "complex64" else 300
    sp = [0, -0.0, 0.5, -1, 2, 1e300, np.inf, -np.inf, np.nan]
    with np.errstate(over="ignore"):  # (1e300 is inf in complex64)
        z = np.concatenate([10.0 ** rng.uniform(-top, top, 3000)
                            * np.exp(2j * np.pi * rng.random(3000)),
                            np.exp(2j * np.pi * rng.random(500))
                            * (1 + rng.standard_normal(500) * 1e-4),
                            rng.standard_normal(500) * 3 + 3j * rng.standard_normal(500),
                            1 + 1e-5 * (rng.standard_normal(300) + 1j * rng.standard_normal(300)),
                            -1 + 1e-5 * (rng.standard_normal(300) + 1j * rng.standard_normal(300)),
                            # (found by the new user: arctanh(1 + 1e-200j) was inf)
                            np.sign(rng.standard_normal(100))
                            + 1j * 10.0 ** -rng.uniform(10, top, 100),
                            ]).astype(dtype)
        special = np.array([complex(a, b) for a in sp for b in sp]).astype(dtype)
    b = (rng.standard_normal(z.size) + 1j * rng.standard_normal(z.size)).astype(dtype)
    small = np.abs(z) < 1e3
    limits = {"sqrt": 2, "log": 4, "log2": 5, "log10": 5, "tanh": 8, "tan": 8, "arcsin": 6,
              "arccos": 6, "arctan": 6, "arcsinh": 6, "arccosh": 6, "arctanh": 6}
    with lj.config(backend="cuda", cuda_emulate=True), np.errstate(all="ignore"):
        got = [getattr(lj, f)(lj.tensor(x)) for f in limits for x in (z, special)]
        got.append(lj.power(lj.tensor(z[small]), lj.tensor(b[small])))
        lj.realize(*got)
        for i, f in enumerate(limits):
            e = _ulps(got[2 * i].numpy(), getattr(np, f)(z))
            assert e.max() <= limits[f], (f, e.max(), z[np.argmax(e)])
            g, want = got[2 * i + 1].numpy(), getattr(np, f)(special)
            for part in ("real", "imag"):
                gp, wp = getattr(g, part), getattr(want, part)
                np.testing.assert_array_equal(np.isnan(gp), np.isnan(wp), err_msg=f)
                np.testing.assert_array_equal(np.signbit(gp[gp == 0]), np.signbit(wp[gp == 0]),
                                              err_msg=f)
            assert _ulps(g, want).max() <= limits[f], f
        e = _ulps(got[-1].numpy(), np.power(z[small], b[small]))
        assert np.percentile(e, 99) <= 2 and e.max() <= 300, ("power", e.max())


def test_times_one_is_a_complex_product(backend):
    """``x * 1`` and ``x / 1`` of complex values are products and quotients, as NumPy
    computes them (``(nan+1j) * 1`` is nan+nanj, ``(inf+0j) * 1`` inf+nanj): the
    rewrites that drop them are for real dtypes only (found by a bug hunt)."""
    x = np.array([complex(np.nan, 1), complex(np.inf, 0), 1 + 2j], np.complex128)
    for f in (lambda x: x * 1 + 0j, lambda x: x / 1 + 0j, lambda x: 1.0 * x):
        with np.errstate(all="ignore"):
            want = f(x)
        np.testing.assert_array_equal(f(lj.tensor(x)).numpy(), want)
