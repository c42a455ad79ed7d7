"""``lj.linalg`` against ``numpy.linalg`` on every backend (batched, float32 and float64,
integers promoted, empty and 1x1 matrices, NaN), NumPy's failures as ``LinAlgError``,
and the gradients against finite differences in both modes (well-conditioned and
batched inputs; order 2 on the numpy backend)."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import Case, assert_same

L = lj.linalg

_R = np.random.default_rng(7)
_SQ, _RHS, _TALL = _R.standard_normal((2, 3, 3)), _R.standard_normal((2, 3, 2)), \
    _R.standard_normal((2, 4, 3))
_SPD = _SQ @ np.swapaxes(_SQ, -1, -2) + 3 * np.eye(3)
# the primitives' cases of tests/test_ops.py's table (vectors squared: unique up to sign)
OP_CASES = {
    "cholesky": [Case("cholesky", L.cholesky, np.linalg.cholesky, values=(_SPD,))],
    "solve": [Case("solve", L.solve, np.linalg.solve, values=(_SQ, _RHS))],
    "slogdet": [Case("slogdet", lambda a: list(L.slogdet(a)),
                     lambda a: list(np.linalg.slogdet(a)), values=(_SQ,))],
    "eigh": [Case("eigh", lambda a: [(r := L.eigh(a))[0], r[1] ** 2],
                  lambda a: [(r := np.linalg.eigh(a))[0], r[1] ** 2], values=(_SPD,))],
    "svd": [Case("svd", lambda a: [(r := L.svd(a, full_matrices=False))[1], r[0] ** 2],
                 lambda a: [(r := np.linalg.svd(a, full_matrices=False))[1], r[0] ** 2],
                 values=(_TALL,))],
    "qr": [Case("qr", lambda a: [x ** 2 for x in L.qr(a)],
                lambda a: [x ** 2 for x in np.linalg.qr(a)], values=(_TALL,))],
    # (a matrix with complex eigenvalues: NumPy's results are complex too)
    "eig": [Case("eig", lambda a: [(r := L.eig(a))[0], abs(r[1]), L.eigvals(a)],
                 lambda a: [(r := np.linalg.eig(a))[0], abs(r[1]), np.linalg.eigvals(a)],
                 values=(np.array([[0.0, -2, 0.5], [1, 0.3, 0], [0.2, 0, 1.5]]),))],
}


def _spd(rng, shape):
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def _fix_signs(v, axis):
    """Columns (axis -2) or rows (axis -1) of ``v`` with their largest entry positive
    (singular and eigen vectors are unique up to sign)."""
    idx = np.expand_dims(np.argmax(np.abs(v), axis=axis), axis)
    return v * np.sign(np.take_along_axis(v, idx, axis))


def _cases(rng, dtype):
    """(lazyjit function, NumPy function, arguments, sign-fixing of the results)."""
    sq = rng.standard_normal((2, 3, 4, 4)).astype(dtype)
    tall = rng.standard_normal((3, 5, 3)).astype(dtype)
    wide = rng.standard_normal((4, 6)).astype(dtype)
    spd = _spd(rng, (2, 4, 4)).astype(dtype)
    rhs = rng.standard_normal((3, 4, 2)).astype(dtype)
    vec = rng.standard_normal(4).astype(dtype)
    one = np.full((1, 1), 2.5, dtype)
    return [
        ("cholesky", spd), ("cholesky", one), ("cholesky", np.zeros((0, 0), dtype)),
        ("solve", sq, rhs[None]), ("solve", sq[0], rhs), ("solve", sq[0, 0], vec),
        ("solve", one, one), ("inv", sq), ("inv", one), ("det", sq), ("det", one),
        ("det", np.zeros((2, 0, 0), dtype)), ("slogdet", sq), ("eigh", spd), ("eigh", one),
        ("eigvalsh", sq), ("svd", tall), ("svd", wide), ("svd.reduced", tall),
        ("svd.reduced", wide), ("svdvals", sq), ("svd", np.zeros((3, 0), dtype)),
        ("qr", tall), ("qr", wide), ("qr.complete", tall), ("qr.complete", wide),
        ("qr.r", sq), ("pinv", tall), ("pinv", wide), ("matrix_rank", tall),
        ("matrix_power", sq, 3), ("matrix_power", sq, 0), ("matrix_power", sq, -2),
        ("lstsq", tall[0], rhs[0, :, 0].repeat(2)[:5]), ("lstsq", wide.T, wide[0]),
        ("norm", tall), ("norm.fro", wide), ("norm.nuc", wide), ("norm.2", wide),
        ("norm.-2", wide), ("norm.inf", wide), ("norm.1", wide), ("norm.-1", tall[0]),
        ("norm.axis", tall), ("norm.p3", vec), ("norm.0", vec), ("norm.keep", tall),
    ]


def _call(mod, name, args):
    """Call ``name`` of ``mod`` (``lj.linalg`` or ``np.linalg``) per the case's name."""
    base, _, opt = name.partition(".")
    f = getattr(mod, base)
    if base == "svd":
        return f(*args, full_matrices=opt != "reduced")
    if base == "qr":
        return f(*args, mode={"": "reduced", "complete": "complete", "r": "r"}[opt])
    if base == "norm":
        ords = {"fro": "fro", "nuc": "nuc", "2": 2, "-2": -2, "inf": np.inf, "1": 1, "-1": -1,
                "p3": 3, "0": 0}
        if opt == "axis":
            return f(*args, axis=1)
        if opt == "keep":
            return f(*args, ord=1, axis=(1, 2), keepdims=True)
        return f(*args, ord=ords.get(opt))
    if base == "lstsq":
        return f(*args, rcond=None)
    return f(*args)


def _results(out, name):
    out = list(out) if isinstance(out, tuple) else [out]
    if name.startswith("svd") and len(out) == 3:  # singular vectors: up to sign; the
        u, sv, vh = (np.asarray(o) for o in out)  # complete factors' extra columns: a basis
        k = sv.shape[-1]
        signs = np.sign(np.take_along_axis(u[..., :k], np.expand_dims(
            np.argmax(np.abs(u[..., :k]), axis=-2), -2), -2)) if u.size else 1
        out = [u[..., :k] * signs, sv, vh[..., :k, :] * np.swapaxes(signs, -1, -2),
               u @ np.swapaxes(u, -1, -2), np.swapaxes(vh, -1, -2) @ vh]
    if name.startswith("eigh"):
        out = [out[0], _fix_signs(np.asarray(out[1]), -2)]
    if name.startswith("qr") and len(out) == 2:  # Q's columns, R's rows: up to sign
        k = min(out[1].shape[-2:])
        d = np.sign(np.diagonal(np.asarray(out[1])[..., :k, :k], axis1=-2, axis2=-1))
        q, r = np.asarray(out[0]).copy(), np.asarray(out[1]).copy()
        q[..., :k] *= d[..., None, :]
        r[..., :k, :] *= d[..., :, None]
        out = [q, r]
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_against_numpy(dtype, backend, rng):
    got, want, names = [], [], []
    for name, *args in _cases(rng, dtype):
        want.append(_call(np.linalg, name, args))
        got.append(_call(L, name, [lj.tensor(a) if isinstance(a, np.ndarray) else a
                                   for a in args]))
        names.append(name)
    lj.realize(*[t for g in got for t in (g if isinstance(g, tuple) else (g,))
                 if isinstance(t, lj.Tensor)])
    rtol = 2e-6 if dtype == "float32" else 1e-9  # (float32 is computed in float64, as NumPy)
    for name, g, w in zip(names, got, want):
        g = [t.numpy() if isinstance(t, lj.Tensor) else t for t in
             (g if isinstance(g, tuple) else (g,))]
        g, w = _results(tuple(g) if len(g) > 1 else g[0], name), _results(w, name)
        assert len(g) == len(w), name
        for a, b in zip(g, w):
            b = np.asarray(b)
            assert (a.shape, a.dtype) == (b.shape, b.dtype), (name, a.shape, b.shape, a.dtype)
            scale = max(1, np.abs(b).max(initial=0))
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale, err_msg=name)


def test_promotion_and_dtypes(backend):
    ints = np.array([[2, 1], [1, 3]])
    for name in ("inv", "det", "cholesky"):
        assert_same(getattr(L, name)(lj.tensor(ints)), getattr(np.linalg, name)(ints))
    assert_same(L.solve(lj.tensor(ints), lj.tensor(np.array([1.0, 2.0], np.float32))),
                np.linalg.solve(ints, np.array([1.0, 2.0], np.float32)))
    with pytest.raises(TypeError, match="float16"):
        L.inv(lj.tensor(np.eye(2, dtype=np.float16)))


def test_numpy_edge_semantics(backend):
    """Where NumPy's linalg has a rule of its own: float32 computed in float64, the
    upper triangle for cholesky(upper=True), pinv's 1e-15 cutoff, lstsq's negative
    rcond, hermitian SVDs, empty matrices and batches, axis checks."""
    a32, b32 = np.array([[3, 1], [1, 1 / 3]], np.float32), np.array([1, 2], np.float32)
    nonsym = np.array([[4.0, 1.0], [2.0, 3.0]])
    tiny = np.diag([1, 1e-7]).astype(np.float32)
    rank1, rhs = np.array([[1.0, 2], [2, 4], [3, 6]]), np.array([1.0, 2, 3])
    sym = np.array([[2.0, -3, 0.5], [-3, 1, 2], [0.5, 2, -4]])
    empty = np.zeros((0, 3))
    pairs = [
        (L.solve(a32, b32), np.linalg.solve(a32, b32)),
        (L.cholesky(nonsym, upper=True), np.linalg.cholesky(nonsym, upper=True)),
        (L.pinv(tiny), np.linalg.pinv(tiny)),
        (L.pinv(tiny, rtol=None), np.linalg.pinv(tiny, rtol=None)),
        (lj.numpy.linalg.pinv(tiny), np.linalg.pinv(tiny, rtol=None)),
        (L.lstsq(rank1, rhs, rcond=-1)[0], np.linalg.lstsq(rank1, rhs, rcond=-1)[0]),
        (L.lstsq(rank1, rhs, rcond=-1)[2], np.linalg.lstsq(rank1, rhs, rcond=-1)[2]),
        (L.svd(sym, hermitian=True).S, np.linalg.svd(sym, hermitian=True).S),
        (L.svd(sym, compute_uv=False, hermitian=True), np.linalg.svdvals(sym)),
        (L.pinv(sym, hermitian=True), np.linalg.pinv(sym, hermitian=True)),
        (L.matrix_rank(sym, hermitian=True), np.linalg.matrix_rank(sym, hermitian=True)),
        (L.pinv(empty), np.linalg.pinv(empty)),
        (L.matrix_rank(empty), np.linalg.matrix_rank(empty)),
        (L.norm(empty, 2), np.linalg.norm(empty, 2)),
        (L.norm(empty, 1), np.linalg.norm(empty, 1)),
        (L.svdvals(np.zeros((0, 3, 2))), np.linalg.svdvals(np.zeros((0, 3, 2)))),
        (L.qr(np.zeros((0, 3, 2))).R, np.linalg.qr(np.zeros((0, 3, 2))).R),
    ]
    u, s, vh = L.svd(sym, hermitian=True)
    pairs.append((u @ (s[:, None] * vh), sym))
    for got, want in pairs:
        assert_same(got, np.asarray(want), rtol=1e-6 if got.dtype == np.float32 else 1e-10)
    with pytest.raises(ValueError, match="both"):
        L.pinv(tiny, rcond=0.1, rtol=0.1)
    with pytest.raises(lj.LazyjitError, match="out of bounds"):
        L.norm(np.ones((2, 3)), axis=(0, 5))
    with pytest.raises(lj.LazyjitError, match="1-d"):
        L.outer(np.ones((2, 2)), np.ones(2))


def test_failures_raise_linalg_error(backend):
    with pytest.raises(np.linalg.LinAlgError):
        L.cholesky(lj.tensor(-np.eye(3))).numpy()
    with pytest.raises(np.linalg.LinAlgError):
        L.inv(lj.tensor(np.ones((2, 3, 3)))).numpy()
    sign, logdet = L.slogdet(lj.tensor(np.ones((3, 3))))  # singular: no error
    assert (float(sign), float(logdet)) == (0.0, -np.inf)
    a = np.array([[np.nan, 1.0], [1.0, 2.0]])  # NaN propagates as in NumPy
    assert_same(L.solve(lj.tensor(a), lj.tensor(np.ones(2))), np.linalg.solve(a, np.ones(2)))
    for name in ("cholesky", "eigvalsh", "slogdet"):
        with np.errstate(invalid="ignore"):
            got, want = getattr(L, name)(lj.tensor(a)), getattr(np.linalg, name)(a)
        for g, w in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
            assert_same(g, w)
    with pytest.raises(np.linalg.LinAlgError):
        L.svd(lj.tensor(a)).S.numpy()


def test_errors():
    with pytest.raises(lj.LazyjitError, match="square"):
        L.inv(lj.tensor(np.ones((2, 3))))
    with pytest.raises(lj.LazyjitError, match="2 dimensions"):
        L.det(lj.tensor(np.ones(3)))
    with pytest.raises(lj.LazyjitError, match="does not match"):
        L.solve(lj.tensor(np.eye(3)), lj.tensor(np.ones(2)))
    with pytest.raises(ValueError, match="mode"):
        L.qr(lj.tensor(np.eye(2)), mode="raw")
    with pytest.raises(NotImplementedError, match="full_matrices"):
        lj.grad(lambda a: L.svd(a)[0].sum())(lj.tensor(np.ones((3, 2)))).numpy()


def _sym(x):
    return (x + lj.linalg.matrix_transpose(x)) * 0.5


GRADS = [  # (label, function, argument shapes)
    ("cholesky", lambda x: L.cholesky(_sym(x) + 3 * lj.tensor(np.eye(3))), [(2, 3, 3)]),
    ("solve", lambda a, b: L.solve(a + 3 * lj.tensor(np.eye(3)), b), [(2, 3, 3), (2, 3, 2)]),
    ("solve_vec", lambda a, b: L.solve(a + 3 * lj.tensor(np.eye(3)), b), [(3, 3), (3,)]),
    ("inv", lambda a: L.inv(a + 3 * lj.tensor(np.eye(3))), [(3, 3)]),
    ("det", lambda a: L.det(a + 2 * lj.tensor(np.eye(3))), [(2, 3, 3)]),
    ("slogdet", lambda a: L.slogdet(a + 2 * lj.tensor(np.eye(3)))[1], [(3, 3)]),
    ("eigh", lambda x: [(v := L.eigh(_sym(x)))[0], v[1] ** 2], [(2, 3, 3)]),
    ("svd_tall", lambda x: [(r := L.svd(x, full_matrices=False))[1], r[0] ** 2, r[2] ** 2],
     [(4, 3)]),
    ("svd_wide", lambda x: [(r := L.svd(x, full_matrices=False))[1], r[0] ** 2, r[2] ** 2],
     [(2, 2, 3)]),
    ("svd_square", lambda x: [(r := L.svd(x))[1], r[0] ** 2], [(3, 3)]),
    ("svdvals", lambda x: L.svdvals(x), [(3, 4)]),
    ("qr", lambda x: list(L.qr(x)), [(2, 4, 3)]),
    ("pinv", lambda x: L.pinv(x), [(4, 3)]),
    ("lstsq", lambda a, b: L.lstsq(a, b)[0], [(4, 3), (4,)]),
    ("norms", lambda x: [L.norm(x), L.norm(x, "nuc"), L.norm(x, 2), L.norm(x, 1, axis=0),
                         L.vector_norm(x, ord=3)], [(3, 4)]),
    ("matrix_power", lambda x: L.matrix_power(x, 3), [(3, 3)]),
    ("cond", lambda x: [L.cond(x), L.cond(x, -2), L.cond(x[:3], "fro")], [(4, 3)]),
    ("multi_dot", lambda a, b, c: L.multi_dot([a, b, c]), [(3,), (3, 4), (4, 2)]),
    ("tensorsolve", lambda a, b: [L.tensorsolve(a, b), L.tensorinv(a, 1)], [(6, 2, 3), (6,)]),
]


def test_gradients(backend, rng):
    """Every case in both modes against finite differences (order 2 on numpy: the
    derivative rules are themselves differentiable; on emulated cuda, slow to compile,
    the first cases: the rules build the same graphs on every backend)."""
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    for label, fn, shapes in GRADS[:4] if backend == "cuda" else GRADS:
        args = [rng.standard_normal(s) for s in shapes]
        check_grads(fn, args, order, batch=batch, label=label, rtol=1e-4, atol=1e-5)
    batch.run()


def test_gradients_at_repeated_eigenvalues(backend):
    """A loss that does not depend on the choice of vectors within a repeated
    eigenvalue's (or singular value's) eigenspace has a finite gradient there; one that
    does gets NaN, never a made-up number."""
    eye, d = np.eye(3), np.diag([1.0, 1.0, 2.0])
    got = [lj.grad(lambda a: L.eigvalsh(a).sum())(lj.tensor(eye)),
           lj.grad(lambda a: L.eigvalsh(a)[-1])(lj.tensor(d)),
           lj.grad(lambda a: L.svd(a).S.sum())(lj.tensor(d)),
           lj.grad(lambda a: L.svd(a, full_matrices=False)[1][0])(lj.tensor(np.ones((3, 2))))]
    top = np.zeros((3, 3))
    top[2, 2] = 1
    for g, want in zip(got, [eye, top, eye, np.full((3, 2), 1 / np.sqrt(6))]):
        assert_same(g, want, rtol=1e-12, atol=1e-12)
    for loss in (lambda a: L.eigh(a)[1][:, 0].sum(), lambda a: L.eigh(a)[1][0, 0]):
        assert np.isnan(lj.grad(loss)(lj.tensor(eye)).numpy()).any()  # (no derivative)
    # pinv and lstsq are differentiable where the SVD is not (all singular values 1):
    # their derivatives come from the normal equations there
    assert_same(lj.grad(lambda a: L.pinv(a).sum())(lj.tensor(eye)), -np.ones((3, 3)),
                rtol=1e-12)
    q = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 3)))[0]
    check_grads(lambda a: [L.pinv(a), L.lstsq(a, np.ones(5))[0]], [q], 1)  # (order 2
    # meets, in the branch not taken, the SVD's NaN tangents times zero cotangents)


def test_norm_gradient_at_zero(backend):
    g = lj.grad(lambda x: L.norm(x))(lj.tensor(np.zeros(3)))
    assert_same(g, np.zeros(3))


def test_jit_and_new_shapes(backend, rng):
    f = lj.jit(lambda a, b: L.solve(a, b).sum() + L.slogdet(a)[1])
    for n in (3, 5):
        a, b = _spd(rng, (n, n)), rng.standard_normal((n, 2))
        want = np.linalg.solve(a, b).sum() + np.linalg.slogdet(a)[1]
        np.testing.assert_allclose(float(f(lj.tensor(a), lj.tensor(b))), want, rtol=1e-10)


def test_numpy_linalg_on_tensors(backend, rng):
    """``np.linalg`` functions called on tensors are lazyjit's: lazy, differentiable."""
    a, b = _spd(rng, (3, 3)), rng.standard_normal(3)
    x = np.linalg.solve(lj.tensor(a), lj.tensor(b))
    assert isinstance(x, lj.Tensor)
    assert_same(x, np.linalg.solve(a, b))
    assert isinstance(np.linalg.norm(lj.tensor(b)), lj.Tensor)
    g = lj.grad(lambda t: np.linalg.norm(t) ** 2)(lj.tensor(b))  # d|b|^2 = 2b
    assert_same(g, 2 * b)
    sign, logdet = np.linalg.slogdet(lj.tensor(a))
    assert_same(logdet, np.linalg.slogdet(a)[1])


def test_cond_multi_dot_and_tensor_solvers(backend, rng):
    """``cond`` (every order; a singular and a zero matrix: inf, as NumPy), ``multi_dot``
    (1-d ends, NumPy's order of products) and ``tensorinv``/``tensorsolve`` (``axes``)
    against NumPy; their errors.  (Composites of the primitives: not on emulated cuda,
    where they would cost CI's minutes in compiles.)"""
    if backend == "cuda":
        pytest.skip("composites of primitives the cuda tables check (CI's time)")
    a = rng.standard_normal((2, 3, 3))
    sing, wide = np.array([[1.0, 2.0], [2.0, 4.0]]), rng.standard_normal((2, 4))
    got, want = [], []
    for p in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"):
        got.append(L.cond(lj.tensor(a), p))
        want.append(np.linalg.cond(a, p))
    for x, p in ((sing, None), (np.zeros((2, 2)), 2), (wide, -2), (a[0] * 1j + a[1], 1)):
        got.append(L.cond(lj.tensor(x), p))
        with np.errstate(all="ignore"):
            want.append(np.linalg.cond(x, p))
    ms = [rng.standard_normal(s) for s in [(5,), (5, 3), (3, 8), (8, 2), (2,)]]
    for sl in (slice(0, 5), slice(1, 4), slice(0, 3), slice(1, 5), slice(3, 5)):
        got.append(L.multi_dot([lj.tensor(m) for m in ms[sl]]))
        want.append(np.linalg.multi_dot(ms[sl]))
    t = rng.standard_normal((4, 6, 8, 3))
    s, b = rng.standard_normal((6, 4, 2, 3, 4)), rng.standard_normal((6, 4))
    u = rng.standard_normal((6, 2, 3))
    got += [L.tensorinv(lj.tensor(t)), L.tensorinv(lj.tensor(u), ind=1),
            L.tensorsolve(lj.tensor(s), lj.tensor(b)),
            L.tensorsolve(lj.tensor(np.moveaxis(s, 2, 0)), lj.tensor(b), axes=(0,))]
    want += [np.linalg.tensorinv(t), np.linalg.tensorinv(u, ind=1),
             np.linalg.tensorsolve(s, b), np.linalg.tensorsolve(np.moveaxis(s, 2, 0), b, axes=(0,))]
    lj.realize(*got)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="at least two"):
        L.multi_dot([lj.tensor(ms[1])])
    with pytest.raises(lj.LazyjitError, match="two-dimensional"):
        L.multi_dot([lj.tensor(ms[1]), lj.tensor(np.ones((3, 2, 2)))])
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        L.cond(lj.tensor(np.zeros((0, 0))))
    with pytest.raises(np.linalg.LinAlgError, match="prod"):
        L.tensorsolve(lj.tensor(np.ones((2, 3, 2))), lj.tensor(np.ones((2,))))
    for p in (1, -1, np.inf, -np.inf, "fro"):  # (found by the bug hunt: no inverse, inf)
        with np.errstate(all="ignore"):
            assert_same(L.cond(lj.tensor(sing), p), np.linalg.cond(sing, p))
            assert_same(L.cond(lj.tensor(np.zeros((2, 2))), p), np.linalg.cond(np.zeros((2, 2)), p))


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
def test_eig_against_numpy(backend, dtype):
    """eig and eigvals (geev) in NumPy's order and with its vectors (unit norm, largest
    component real), batched, real matrices with real and with complex eigenvalues;
    always complex (NumPy gives real arrays when every eigenvalue is real)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 4, 4))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((2, 4, 4))
    a = a.astype(dtype)
    sym = (a[0] + a[0].T.conj()).astype(dtype)  # (real eigenvalues)
    w, v = L.eig(lj.tensor(a))
    ws, vs = L.eig(lj.tensor(sym))
    vals = L.eigvals(lj.tensor(a))
    lj.realize(w, v, ws, vs, vals)
    single = dtype in ("float32", "complex64")
    tol = 1e-4 if single else 1e-10
    for got, want in ((w, np.linalg.eig(a)[0]), (v, np.linalg.eig(a)[1]),
                      (ws, np.linalg.eig(sym)[0]), (vs, np.linalg.eig(sym)[1]),
                      (vals, np.linalg.eigvals(a))):
        assert got.dtype == (np.complex64 if single else np.complex128)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_eig_gradients_both_modes(backend):
    """Eigenvalues and phase-independent functions of the eigenvectors (``|V|``) of real
    and complex matrices against finite differences, in both modes (JAX's convention)."""
    if backend == "cuda":
        pytest.skip("eig is a NumPy host step on emulated cuda; its derivative graphs are "
                    "the other backends' (CI's time)")
    from test_complex import check_real_loss
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 3))
    z = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))

    def loss(m, x, z):
        w, v = m.linalg.eig(x)
        wz, vz = m.linalg.eig(z)
        return (m.sum(m.real(w) * m.arange(3)) + m.sum(m.imag(w) ** 2)
                + m.sum(m.abs(v) ** 2 * x) + m.sum(m.real(wz * (1 + 2j)))
                + m.sum(m.abs(vz) ** 2 * x) + m.sum(m.real(m.linalg.eigvals(x + z) * 1j)))
    check_real_loss(loss, (x, z), tol=1e-6)


def test_pinv_of_large_and_tiny_entries(backend):
    """Found by the bug hunt: the normal equations' Gram matrix of entries near 1e160 (or
    1e-30 in float32) overflowed (underflowed) to NaN (a LinAlgError); it is formed of
    the matrix scaled to a largest singular value of 1."""
    for a in (np.array([[3e160, 1e160], [1e160, 2e160]]), np.array([[1e-30]], np.float32),
              np.array([[1e-300]]), np.array([[1e20 + 1e20j]], np.complex64),
              np.array([[1e-30, 0, 0], [0, 2e-30, 0]], np.float32)):
        assert_same(L.pinv(lj.tensor(a)), np.linalg.pinv(a), rtol=1e-5, atol=0)
