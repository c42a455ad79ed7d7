"""Dense linear algebra primitives: factorizations and solves batched over leading axes.

Each op works on the last two axes of contiguous float32 or float64 operands (the API,
:mod:`lazyjit.api.linalg`, promotes integers to float64 and rejects float16 as NumPy
does), with the same batch dims for every operand.  The cpu backend calls the LAPACK
that NumPy ships (through LAPACKE, as BLAS is called today); the other backends call
NumPy's ``numpy.linalg``, which calls the same LAPACK routines.

* ``cholesky(a)``: the lower Cholesky factor ``L`` (``a = L L^T``), reading the lower
  triangle of ``a`` (``potrf``); ``LinAlgError`` when ``a`` is not positive definite;
* ``solve(a, b)``: ``x`` with ``a x = b`` for ``b`` of shape ``(..., n, k)`` (``gesv``,
  LU with partial pivoting); ``LinAlgError`` for an exactly singular ``a``;
* ``slogdet(a)``: ``(..., 2)``: the sign and the log of the absolute determinant (LU:
  ``getrf``); a singular ``a`` gives sign 0 and ``-inf``, as NumPy;
* ``eigh(a)``: ``(..., n + 1, n)``: row 0 the ascending eigenvalues, rows 1.. the
  matrix whose columns are the eigenvectors, reading the lower triangle (``syevd``);
* ``svd(a, mode)``: ``U``, ``s``, ``Vh`` flattened and concatenated along one last axis
  (``gesdd``): ``mode`` ``"reduced"`` (NumPy's ``full_matrices=False``), ``"complete"``
  or ``"values"`` (``s`` alone);
* ``qr(a, mode)``: ``Q`` and ``R`` flattened and concatenated (``geqrf``, ``orgqr``),
  ``mode`` ``"reduced"`` or ``"complete"``.

Several results are packed into one array so that each op is a node with one output;
:func:`unpack` gives the parts back as views.

Derivatives, written with the public functions (so they can be differentiated again):

* ``cholesky``: Murray 2016, "Differentiation of the Cholesky decomposition", both
  modes; the gradient is the symmetric one (for perturbations that keep ``a``
  symmetric), as JAX's and PyTorch's;
* ``solve`` and ``slogdet``: Giles 2008, "Collected matrix derivative results", both
  modes;
* ``eigh``: Giles 2008 (both modes), the symmetric gradient; it divides by the
  differences of eigenvalues, so it is infinite or NaN for repeated eigenvalues unless
  the loss is invariant within their eigenspace;
* ``svd``: Townsend 2016, "Differentiating the singular value decomposition" (reverse
  mode; forward mode by transposing it); it divides by the differences of squared
  singular values and, for non-square matrices, by the singular values: infinite or NaN
  at repeated or zero singular values.  ``"complete"`` of a non-square matrix has no
  gradient (its extra columns are not unique), as in JAX;
* ``qr``: Seeger et al. 2017 / PyTorch's rule for ``m >= n`` (reverse mode), ``R``
  must be invertible; ``m < n`` has no gradient here.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.ops.registry import F, OpDef, apply, register

LINALG_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
SVD_MODES, QR_MODES = ("reduced", "complete", "values"), ("reduced", "complete")
# what a compiled kernel reports when LAPACK fails (NumPy's LinAlgError messages)
LINALG_FAILURES = {"cholesky": "Matrix is not positive definite", "solve": "Singular matrix",
                   "slogdet": "the LU factorization failed", "eigh": "Eigenvalues did not converge",
                   "svd": "SVD did not converge", "qr": "the QR factorization failed"}


def part_shapes(op: str, mode, m: int, n: int) -> list[tuple[int, ...]]:
    """The matrix shapes of the parts that ``svd``/``qr`` pack, for an ``(m, n)`` input."""
    k = min(m, n)
    if op == "svd":
        return {"reduced": [(m, k), (k,), (k, n)], "complete": [(m, m), (k,), (n, n)],
                "values": [(k,)]}[mode]
    return {"reduced": [(m, k), (k, n)], "complete": [(m, m), (m, n)]}[mode]


def unpack(packed, op: str, mode, m: int, n: int) -> list:
    """The parts of a packed ``svd``/``qr`` result (a tensor or an array of shape
    ``(..., L)``), each reshaped to ``batch + part shape``."""
    batch, out, start = tuple(packed.shape[:-1]), [], 0
    for shape in part_shapes(op, mode, m, n):
        size = math.prod(shape)
        out.append(packed[..., start:start + size].reshape(batch + shape))
        start += size
    return out


def _pack(parts, batch) -> np.ndarray:
    return np.concatenate([np.reshape(p, batch + (-1,)) for p in parts], axis=-1)


# ---- NumPy references (the semantics; the numpy, ir and cuda backends) ------------------

def _cholesky_ref(a, arg):
    return np.linalg.cholesky(a)


def _solve_ref(a, b, arg):
    return np.linalg.solve(a, b) if b.size else np.zeros(b.shape, b.dtype)


def _slogdet_ref(a, arg):
    sign, logdet = np.linalg.slogdet(a)
    return np.stack([sign, logdet], axis=-1).astype(a.dtype)


def _eigh_ref(a, arg):
    w, v = np.linalg.eigh(a)
    return np.concatenate([w[..., None, :], v], axis=-2)


def _svd_ref(a, mode):
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    if mode == "values":
        return np.linalg.svd(a, compute_uv=False).reshape(batch + (-1,))
    if min(m, n) == 0:  # (NumPy's complete factors of an empty matrix: identities)
        parts = [np.broadcast_to(np.eye(*s, dtype=a.dtype), batch + s) if len(s) == 2 else
                 np.zeros(batch + s, a.dtype) for s in part_shapes("svd", mode, m, n)]
        return _pack(parts, batch)
    return _pack(np.linalg.svd(a, full_matrices=mode == "complete"), batch)


def _qr_ref(a, mode):
    batch = a.shape[:-2]
    return _pack(np.linalg.qr(a, mode=mode), batch)


# ---- shape rules ----------------------------------------------------------------------

def _matrix(x, name: str, square: bool = True) -> tuple[int, int]:
    if len(x.shape) < 2:
        raise ValueError(f"{name} needs a matrix (at least 2 dimensions), got shape {x.shape}")
    m, n = x.shape[-2:]
    if not (isinstance(m, int) and isinstance(n, int)):
        raise ValueError(f"{name} needs its matrix sizes when the graph is built, got {x.shape}")
    if square and m != n:
        raise ValueError(f"{name} needs square matrices, got shape {x.shape}")
    if x.dtype not in LINALG_DTYPES:
        raise TypeError(f"{name} computes in float32 or float64, got {x.dtype}")
    return m, n


def _same(srcs, arg):
    _matrix(srcs[0], "cholesky")
    return srcs[0].shape


def _solve_shape(srcs, arg):
    a, b = srcs
    n, _ = _matrix(a, "solve")
    _matrix(b, "solve", square=False)
    if b.shape[:-2] != a.shape[:-2] or b.shape[-2] != n or b.dtype != a.dtype:
        raise ValueError(f"solve needs b of shape {a.shape[:-1]} + (k,) and a's dtype, got "
                         f"{b.shape} {b.dtype}")
    return b.shape


def _slogdet_shape(srcs, arg):
    _matrix(srcs[0], "slogdet")
    return srcs[0].shape[:-2] + (2,)


def _eigh_shape(srcs, arg):
    n, _ = _matrix(srcs[0], "eigh")
    return srcs[0].shape[:-2] + (n + 1, n)


def _packed_shape(op: str, modes: tuple):
    def shape(srcs, mode):
        if mode not in modes:
            raise ValueError(f"{op} mode must be one of {modes}, got {mode!r}")
        m, n = _matrix(srcs[0], op, square=False)
        return srcs[0].shape[:-2] + (sum(math.prod(s) for s in part_shapes(op, mode, m, n)),)
    return shape


# ---- derivative helpers (public functions, so derivatives nest) -------------------------

def _t(x):
    return F.swapaxes(x, -1, -2)


def _mm(a, b):
    return F.matmul(a, b)


def _solve(a, b):
    return F.Tensor(apply("solve", (a.node, F.astype(b, a.dtype).node)))


def _eye(n: int, like):
    return F.asarray(np.eye(n, dtype=like.dtype))


def _sym(x):
    return (x + _t(x)) * 0.5


def _phi(x, n: int):
    """The lower triangle with the diagonal halved (Murray 2016's ``Phi``)."""
    return F.tril(x) - x * _eye(n, x) * 0.5


def _gap_inverse(v, n: int):
    """``F[i, j] = 1 / (v[j] - v[i])`` off the diagonal, 0 on it (no division by zero
    there, so derivatives of this stay finite)."""
    eye = _eye(n, v)
    return (1 - eye) / (v[..., None, :] - v[..., :, None] + eye)


def _diag_embed(v, n: int):
    return v[..., None, :] * _eye(n, v)


def _diag_part(x, n: int):
    return F.sum(x * _eye(n, x), axis=-2)


# ---- derivative rules -----------------------------------------------------------------

def _cholesky_vjp(g, L, a, arg):
    n = a.shape[-1]
    x = _solve(_t(L), _phi(_mm(_t(L), g), n))  # L^-T Phi(L^T g)
    return (_sym(_t(_solve(_t(L), _t(x)))),)  # sym(x L^-1)


def _cholesky_jvp(ts, L, a, arg):
    (t,) = ts
    n = a.shape[-1]
    y = _solve(L, _sym(t))  # L^-1 t
    return _mm(L, _phi(_t(_solve(L, _t(y))), n))  # L Phi(L^-1 t L^-T)


def _solve_vjp(g, x, a, b, arg):
    gb = _solve(_t(a), g)
    return -_mm(gb, _t(x)), gb


def _solve_jvp(ts, x, a, b, arg):
    ta, tb = ts
    rhs = tb if ta is None else -_mm(ta, x) if tb is None else tb - _mm(ta, x)
    return None if rhs is None else _solve(a, rhs)


def _inverse(a):
    n = a.shape[-1]
    return _solve(a, F.broadcast_to(_eye(n, a), a.shape))


def _slogdet_vjp(g, out, a, arg):
    return (g[..., 1][..., None, None] * _t(_inverse(a)),)


def _slogdet_jvp(ts, out, a, arg):
    (t,) = ts
    n = a.shape[-1]
    d = _diag_part(_solve(a, t), n)
    dl = F.sum(d, axis=-1)
    return F.stack([F.zeros_like(dl), dl], axis=-1)


def _eigh_vjp(g, out, a, arg):
    n = a.shape[-1]
    w, v = out[..., 0, :], out[..., 1:, :]
    gw, gv = g[..., 0, :], g[..., 1:, :]
    x = _mm(_t(v), gv)
    inner = _gap_inverse(w, n) * (x - _t(x)) * 0.5 + _diag_embed(gw, n)
    return (_mm(_mm(v, inner), _t(v)),)


def _eigh_jvp(ts, out, a, arg):
    (t,) = ts
    n = a.shape[-1]
    w, v = out[..., 0, :], out[..., 1:, :]
    m = _mm(_mm(_t(v), _sym(t)), v)
    return F.concatenate([_diag_part(m, n)[..., None, :], _mm(v, _gap_inverse(w, n) * m)],
                         axis=-2)


def _svd_vjp(g, out, a, mode):
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "values":
        (gs,) = unpack(g, "svd", mode, m, n)
        u, _, vh = unpack(F.Tensor(apply("svd", (a.node,), "reduced")), "svd", "reduced", m, n)
        return (_mm(u * gs[..., None, :], vh),)
    if mode == "complete" and m != n:
        raise NotImplementedError(
            "the gradient of svd with full_matrices=True is defined only for square "
            f"matrices (got {m}x{n}): its extra singular vectors are not unique; use "
            "full_matrices=False")
    u, s, vh = unpack(out, "svd", mode, m, n)
    gu, gs, gvh = unpack(g, "svd", mode, m, n)
    v, gv = _t(vh), _t(gvh)
    f = _gap_inverse(s * s, k)  # 1 / (s_j^2 - s_i^2)
    j = f * (_mm(_t(u), gu) - _mm(_t(gu), u))
    kk = f * (_mm(_t(v), gv) - _mm(_t(gv), v))
    inner = j * s[..., None, :] + _diag_embed(gs, k) + s[..., :, None] * kk
    ga = _mm(_mm(u, inner), vh)
    if m > k:  # (I - U U^T) gU S^-1 V^T
        ga = ga + _mm((gu - _mm(u, _mm(_t(u), gu))) / s[..., None, :], vh)
    if n > k:  # U S^-1 gV^T (I - V V^T)
        ga = ga + _mm(u / s[..., None, :], _t(gv) - _mm(_mm(_t(gv), v), vh))
    return (ga,)


def _qr_vjp(g, out, a, mode):
    m, n = a.shape[-2:]
    if m < n:
        raise NotImplementedError(f"the gradient of qr is defined here only for m >= n "
                                  f"(got {m}x{n})")
    if mode == "complete" and m != n:
        raise NotImplementedError("the gradient of qr with mode='complete' is defined only "
                                  f"for square matrices (got {m}x{n}); use mode='reduced'")
    q, r = unpack(out, "qr", mode, m, n)
    gq, gr = unpack(g, "qr", mode, m, n)
    x = _mm(r, _t(gr)) - _mm(_t(gq), q)
    b = gq + _mm(q, F.tril(x) + _t(F.tril(x, -1)))
    return (_t(_solve(r, _t(b))),)  # b R^-T


_FLOAT = {"dtype": lambda srcs, arg: srcs[0].dtype}

register(OpDef("cholesky", "linalg", _cholesky_ref, shape=_same, vjp=_cholesky_vjp,
               jvp=_cholesky_jvp, **_FLOAT, doc="lower Cholesky factor (potrf)"))
register(OpDef("solve", "linalg", _solve_ref, shape=_solve_shape, vjp=_solve_vjp,
               jvp=_solve_jvp, **_FLOAT, doc="a^-1 b for b of shape (..., n, k) (gesv)"))
register(OpDef("slogdet", "linalg", _slogdet_ref, shape=_slogdet_shape, vjp=_slogdet_vjp,
               jvp=_slogdet_jvp, **_FLOAT, doc="[sign, log|det|] (getrf)"))
register(OpDef("eigh", "linalg", _eigh_ref, shape=_eigh_shape, vjp=_eigh_vjp, jvp=_eigh_jvp,
               **_FLOAT, doc="eigenvalues over eigenvectors, lower triangle (syevd)"))
register(OpDef("svd", "linalg", _svd_ref, shape=_packed_shape("svd", SVD_MODES),
               vjp=_svd_vjp, **_FLOAT, doc="U, s, Vh packed (gesdd)"))
register(OpDef("qr", "linalg", _qr_ref, shape=_packed_shape("qr", QR_MODES), vjp=_qr_vjp,
               **_FLOAT, doc="Q, R packed (geqrf, orgqr)"))
