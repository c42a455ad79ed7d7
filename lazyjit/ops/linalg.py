"""Dense linear algebra primitives: factorizations and solves batched over leading axes.

Each op works on the last two axes of contiguous float32, float64 or complex128
operands (the API,
:mod:`lazyjit.api.linalg`, promotes integers to float64 and rejects float16 as NumPy
does, and computes float32 in float64 as NumPy does), with the same batch dims for every
operand.  The cpu backend calls the LAPACK that NumPy ships (through LAPACKE, as BLAS is
called today); the other backends call NumPy's ``numpy.linalg``, which calls the same
LAPACK routines.

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
  or ``"values"`` (``s`` alone; complex matrices: stored as complex numbers, as ``eigh``'s
  eigenvalues);
* ``qr(a, mode)``: ``Q`` and ``R`` flattened and concatenated (``geqrf``, ``orgqr``),
  ``mode`` ``"reduced"`` or ``"complete"``;
* ``eig(a, mode)``: complex, ``(..., n + 1, n)``: row 0 the eigenvalues, rows 1.. the
  right eigenvectors (``geev``); ``mode`` ``"vectors"`` or ``"values"`` (``(..., n)``).

Several results are packed into one array so that each op is a node with one output;
:func:`unpack` gives the parts back as views.

Derivatives, written with the public functions (so they can be differentiated again):

* ``cholesky``: Murray 2016, "Differentiation of the Cholesky decomposition", both
  modes; the gradient is the symmetric one (for perturbations that keep ``a``
  symmetric; Hermitian for complex ``a``, with conjugate transposes), as JAX's and
  PyTorch's;
* ``solve`` and ``slogdet``: Giles 2008, "Collected matrix derivative results", both
  modes; for complex matrices (these two take them), with JAX's convention: ``solve``
  and ``log det`` are holomorphic, so their rules keep plain transposes, and ``slogdet``'s
  sign ``exp(i Im log det)`` and ``log|det| = Re log det`` go through ``log det``'s;
* ``eigh``: Giles 2008 (both modes), the symmetric gradient (Hermitian, for complex
  matrices, with NaN for a loss that depends on the eigenvectors' phases); it divides by the
  differences of eigenvalues: where two are equal, a term is 0 if what it divides is
  exactly 0 (a loss that ignores the choice of vectors in their eigenspace), else NaN
  (the derivative does not exist), never a made-up number;
* ``svd``: Townsend 2016, "Differentiating the singular value decomposition" (reverse
  mode) and JAX's JVP rule (forward mode); it divides by the differences of squared
  singular values and, for non-square matrices, by the singular values, with the same
  rule at equal or zero ones.  ``"complete"`` of a non-square matrix has no derivative
  (its extra columns are not unique), as in JAX.  Complex matrices: conjugate
  transposes, and the imaginary diagonal of ``U^H dU`` (JAX's choice of phases, as
  PyTorch's rule); NaN for a loss that depends on the singular vectors' phases;
* ``eig``: JAX's rule (forward mode) and its transpose (reverse mode), for unit-norm
  vectors, with the same rule at equal eigenvalues as ``eigh``'s;
* ``qr``: Seeger et al. 2017 / PyTorch's rule (reverse mode) and JAX's (forward mode)
  for ``m >= n``, ``R`` invertible; ``m < n`` has no derivative here.  Complex matrices:
  conjugate transposes, with ``R``'s real diagonal kept real.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.ops.registry import F, OpDef, apply, register

LINALG_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# the ops defined for complex matrices too (LU: gesv, getrf)
COMPLEX_LINALG = ("cholesky", "solve", "slogdet", "eigh", "svd", "qr", "eig")
SVD_MODES, QR_MODES = ("reduced", "complete", "values"), ("reduced", "complete")
# what a compiled kernel reports when LAPACK fails (NumPy's LinAlgError messages)
LINALG_FAILURES = {"cholesky": "Matrix is not positive definite", "solve": "Singular matrix",
                   "slogdet": "the LU factorization failed", "eigh": "Eigenvalues did not converge",
                   "svd": "SVD did not converge", "qr": "the QR factorization failed",
                   "eig": "Eigenvalues did not converge"}


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
    return np.concatenate([np.reshape(p, batch + (math.prod(np.shape(p)[len(batch):]),))
                           for p in parts], axis=-1)


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
    if mode == "values":  # (complex: the real values stored as complex numbers)
        return np.linalg.svd(a, compute_uv=False).reshape(batch + (min(m, n),)).astype(a.dtype)
    if min(m, n) == 0:  # (NumPy's complete factors of an empty matrix: identities)
        parts = [np.broadcast_to(np.eye(*s, dtype=a.dtype), batch + s) if len(s) == 2 else
                 np.zeros(batch + s, a.dtype) for s in part_shapes("svd", mode, m, n)]
        return _pack(parts, batch)
    return _pack(np.linalg.svd(a, full_matrices=mode == "complete"), batch)


def _eig_ref(a, mode):
    """``np.linalg.eig`` (``eigvals`` for ``"values"``), always complex, packed as eigh's."""
    dt = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    if mode == "values":
        return np.linalg.eigvals(a).astype(dt)
    w, v = np.linalg.eig(a)
    return np.concatenate([w[..., None, :], v], axis=-2).astype(dt)


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
    if x.dtype not in LINALG_DTYPES and (x.dtype.kind != "c" or name not in COMPLEX_LINALG):
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


def _eig_shape(srcs, mode):
    if mode not in ("vectors", "values"):
        raise ValueError(f"eig mode must be 'vectors' or 'values', got {mode!r}")
    n, _ = _matrix(srcs[0], "eig")
    return srcs[0].shape[:-2] + ((n + 1, n) if mode == "vectors" else (n,))


def _eig_dtype(srcs, mode):
    return np.dtype(np.complex64 if srcs[0].dtype in (np.float32, np.complex64)
                    else np.complex128)


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


def _conj(x):
    """The complex conjugate (a real tensor itself)."""
    return F.conj(x) if x.dtype.kind == "c" else x


def _h(x):
    """The conjugate transpose (the transpose of a real matrix)."""
    return _conj(_t(x))


def _sym(x):
    """The symmetric (Hermitian, for complex ``x``) part of ``x``."""
    return (x + _h(x)) * 0.5


def _phi(x, n: int):
    """The lower triangle with the diagonal halved (Murray 2016's ``Phi``)."""
    return F.tril(x) - x * _eye(n, x) * 0.5


def _unused(*cotangents):
    """Whether the cotangents of a factorization's vectors are all exactly zero, per
    matrix of the batch (a loss of the eigenvalues or singular values alone)."""
    out = None
    for g in cotangents:
        zero = F.all(g == 0, axis=(-2, -1), keepdims=True)
        out = zero if out is None else out & zero
    return out


def _safe_div(num, den, unused=False):
    """``num / den``, and where ``den`` is 0 (a repeated eigenvalue, a zero singular
    value): 0 where ``unused`` says the vectors' cotangents are all exactly zero (then
    these terms are not part of the derivative), else NaN (a derivative that does not
    exist, or that these formulas cannot give: never a made-up number, even where
    ``num`` happens to be 0).  No division by zero is computed, so derivatives of this
    stay finite where it is."""
    zero = den == 0
    fill = F.where(unused, 0.0, np.nan) if unused is not False else np.nan
    return F.where(zero, fill, num / F.where(zero, 1.0, den))


def _over_gaps(x, v, unused=False):
    """``x[i, j] / (v[j] - v[i])`` off the diagonal (0 on it, where ``x`` is 0): see
    :func:`_safe_div` for equal ``v``."""
    n = v.shape[-1]
    gap = v[..., None, :] - v[..., :, None] + _eye(n, v)  # (the diagonal: 1, x is 0 there)
    return _safe_div(x, gap, unused)


def _diag_embed(v, n: int):
    return v[..., None, :] * _eye(n, v)


# ---- derivative rules -----------------------------------------------------------------

def _cholesky_vjp(g, L, a, arg):
    # (complex: on the conjugate of JAX's cotangent, the gradient of the real inner
    # product, with conjugate transposes; then conjugated back)
    n = a.shape[-1]
    c = _conj(g)
    x = _solve(_h(L), _phi(_mm(_h(L), c), n))  # L^-H Phi(L^H g)
    ga = _sym(_h(_solve(_h(L), _h(x))))  # sym(x L^-1)
    return (_conj(ga),)


def _cholesky_jvp(ts, L, a, arg):
    (t,) = ts
    n = a.shape[-1]
    y = _solve(L, _sym(t))  # L^-1 t
    return _mm(L, _phi(_h(_solve(L, _h(y))), n))  # L Phi(L^-1 t L^-H)


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
    k = g[..., 1]
    if a.dtype.kind == "c":  # (log|det a| = Re h and sign = exp(i Im h), h = log det a:
        # the cotangent of h, then h's holomorphic rule; the stored log's imaginary part
        # is a constant 0)
        k = F.real(k) + 1j * F.imag(g[..., 0] * out[..., 0])
    return (k[..., None, None] * _t(_inverse(a)),)


def _slogdet_jvp(ts, out, a, arg):
    (t,) = ts
    dl = F.trace(_solve(a, t), 0, -2, -1)  # d log|det a| = tr(a^-1 da)
    if a.dtype.kind == "c":  # d log det a = dl: d log|det| = Re dl, d sign = sign i Im dl
        return F.stack([out[..., 0] * (1j * F.imag(dl)), F.real(dl).astype(a.dtype)],
                       axis=-1)
    return F.stack([F.zeros_like(dl), dl], axis=-1)


def _eigh_vjp(g, out, a, arg):
    n = a.shape[-1]
    w, v = out[..., 0, :], out[..., 1:, :]
    gw, gv = g[..., 0, :], g[..., 1:, :]
    if a.dtype.kind == "c":
        return (_eigh_vjp_complex(w, v, gw, gv, n),)
    x = _mm(_t(v), gv)
    inner = _over_gaps((x - _t(x)) * 0.5, w, _unused(gv)) + _diag_embed(gw, n)
    return (_mm(_mm(v, inner), _t(v)),)


def _eigh_vjp_complex(w, v, gw, gv, n):
    """The real rule on the gradient (the conjugate of JAX's cotangent), with conjugate
    transposes, conjugated back; the eigenvalues are real (their cotangents' imaginary
    parts, of stored zeros, ignored).  A diagonal entry of ``X = V^H gV`` with an
    imaginary part is a loss that depends on the eigenvectors' phases: NaN there."""
    w, gw = F.real(w), F.real(gw)
    x = _mm(_h(v), F.conj(gv))
    off = 1 - _eye(n, x)
    inner = _over_gaps((x - _h(x)) * 0.5 * off, w, _unused(gv)) + _diag_embed(gw, n)
    ga = F.conj(_mm(_mm(v, inner), _h(v)))
    phase = F.abs(F.imag(F.diagonal(x, 0, -2, -1)))
    scale = F.max(F.abs(x), axis=(-2, -1))
    bad = F.any(phase > 1e-4 * scale[..., None], axis=-1)[..., None, None]
    return F.where(bad, np.nan, ga)


def _eigh_jvp(ts, out, a, arg):
    (t,) = ts
    n = a.shape[-1]
    w, v = out[..., 0, :], out[..., 1:, :]
    m = _mm(_mm(_h(v), _sym(t)), v)
    off = m * (1 - _eye(n, m))
    dw = F.diagonal(m, 0, -2, -1)
    if a.dtype.kind == "c":  # (the eigenvalues real; the vectors' phases held: V^H dV has
        w, dw = F.real(w), F.real(dw).astype(a.dtype)  # a zero diagonal, as JAX's)
    return F.concatenate([dw[..., None, :], _mm(v, _over_gaps(off, w))], axis=-2)


def _svd_checked(a, mode):
    m, n = a.shape[-2:]
    if mode == "complete" and m != n:
        raise NotImplementedError(
            "the derivative of svd with full_matrices=True is defined only for square "
            f"matrices (got {m}x{n}): its extra singular vectors are not unique; use "
            "full_matrices=False")
    return m, n, min(m, n)


def _reduced_svd(a, m: int, n: int):
    return unpack(F.Tensor(apply("svd", (a.node,), "reduced")), "svd", "reduced", m, n)


def _svd_vjp(g, out, a, mode):
    """Townsend 2016 (real); for complex matrices, the same on the gradient (the
    conjugate of JAX's cotangent) with conjugate transposes, plus the term of the
    imaginary diagonal of ``U^H gU`` (JAX's choice of the vectors' phases, as PyTorch's
    rule), conjugated back; NaN where the loss depends on those phases."""
    m, n, k = _svd_checked(a, mode)
    cplx = a.dtype.kind == "c"
    if mode == "values":
        (gs,) = unpack(g, "svd", mode, m, n)
        u, _, vh = _reduced_svd(a, m, n)
        gs = F.real(gs) if cplx else gs
        return (_conj(_mm(u * gs[..., None, :], vh)),)
    u, s, vh = unpack(out, "svd", mode, m, n)
    gu, gs, gvh = unpack(g, "svd", mode, m, n)
    if cplx:  # (the singular values real: their stored imaginary parts are 0)
        s, gs, gu, gvh = F.real(s), F.real(gs), F.conj(gu), F.conj(gvh)
    v, gv = _h(vh), _h(gvh)
    s2 = s * s
    unused = _unused(gu, gv)
    uhgu, vhgv = _mm(_h(u), gu), _mm(_h(v), gv)
    skew_u, skew_v = uhgu - _h(uhgu), vhgv - _h(vhgv)
    if cplx:  # (their diagonals, imaginary, are the phases' terms: below)
        off = 1 - _eye(k, skew_u)
        skew_u, skew_v = skew_u * off, skew_v * off
    j = _over_gaps(skew_u, s2, unused)  # F o (U^H gU - gU^H U)
    kk = _over_gaps(skew_v, s2, unused)
    inner = j * s[..., None, :] + _diag_embed(gs, k) + s[..., :, None] * kk
    if cplx:
        im_u = F.imag(F.diagonal(uhgu, 0, -2, -1))
        inner = inner + _diag_embed(1j * _safe_div(im_u, s, unused[..., 0]), k)
    ga = _mm(_mm(u, inner), vh)
    if m > k:  # (I - U U^H) gU S^-1 V^H
        ga = ga + _mm(_safe_div(gu - _mm(u, _mm(_h(u), gu)), s[..., None, :], unused), vh)
    if n > k:  # U S^-1 gV^H (I - V V^H)
        ga = ga + _mm(u, _safe_div(_h(gv) - _mm(_mm(_h(gv), v), vh), s[..., :, None],
                                   unused))
    if not cplx:
        return (ga,)
    # a loss invariant under U, V -> U e^(i phi), V e^(i phi) has Im diag(U^H gU) =
    # -Im diag(V^H gV); where it is not, the derivative does not exist
    phase = F.abs(im_u + F.imag(F.diagonal(vhgv, 0, -2, -1)))
    scale = F.maximum(F.max(F.abs(uhgu), axis=(-2, -1)), F.max(F.abs(vhgv), axis=(-2, -1)))
    bad = F.any(phase > 1e-4 * scale[..., None], axis=-1)[..., None, None]
    return (F.where(bad, np.nan, F.conj(ga)),)


def _svd_jvp(ts, out, a, mode):
    """The tangents of ``U``, ``s``, ``Vh`` (the JVP that the VJP above transposes; for
    complex matrices JAX's, whose ``U^H dU`` holds the imaginary diagonal)."""
    (t,) = ts
    m, n, k = _svd_checked(a, mode)
    cplx = a.dtype.kind == "c"
    u, s, vh = _reduced_svd(a, m, n) if mode == "values" else unpack(out, "svd", mode, m, n)
    s = F.real(s) if cplx else s
    v = _h(vh)
    dp = _mm(_mm(_h(u), t), v)  # U^H dA V
    ds = F.diagonal(dp, 0, -2, -1)
    if cplx:
        ds = F.real(ds).astype(a.dtype)
    if mode == "values":
        return ds
    s2, off = s * s, 1 - _eye(k, s)  # (the diagonals: no rotation of a vector into itself)
    inner_u = _over_gaps((dp * s[..., None, :] + s[..., :, None] * _h(dp)) * off, s2)
    if cplx:
        inner_u = inner_u + _diag_embed(1j * _safe_div(F.imag(F.diagonal(dp, 0, -2, -1)), s),
                                        k)
    du = _mm(u, inner_u)
    dv = _mm(v, _over_gaps((s[..., :, None] * dp + _h(dp) * s[..., None, :]) * off, s2))
    if m > k:
        dav = _mm(t, v)
        du = du + _safe_div(dav - _mm(u, _mm(_h(u), dav)), s[..., None, :])
    if n > k:
        dau = _mm(_h(t), u)
        dv = dv + _safe_div(dau - _mm(v, _mm(_h(v), dau)), s[..., None, :])
    batch = tuple(a.shape[:-2])
    return F.concatenate([du.reshape(batch + (-1,)), ds, _h(dv).reshape(batch + (-1,))],
                         axis=-1)


def _qr_checked(a, mode):
    m, n = a.shape[-2:]
    if m < n:
        raise NotImplementedError(f"the derivative of qr is defined here only for m >= n "
                                  f"(got {m}x{n})")
    if mode == "complete" and m != n:
        raise NotImplementedError("the derivative of qr with mode='complete' is defined "
                                  f"only for square matrices (got {m}x{n}); use "
                                  "mode='reduced'")
    return m, n


def _qr_vjp(g, out, a, mode):
    """Seeger et al. 2017 / PyTorch's rule; for complex matrices on the gradient (the
    conjugate of JAX's cotangent) with conjugate transposes and the real part of the
    diagonal (R's diagonal is real), conjugated back."""
    m, n = _qr_checked(a, mode)
    q, r = unpack(out, "qr", mode, m, n)
    gq, gr = (_conj(x) for x in unpack(g, "qr", mode, m, n))
    x = _mm(r, _h(gr)) - _mm(_h(gq), q)
    sym = F.tril(x) + _h(F.tril(x, -1))
    if a.dtype.kind == "c":
        sym = sym - _diag_embed(1j * F.imag(F.diagonal(x, 0, -2, -1)), n)
    b = gq + _mm(q, sym)
    return (_conj(_h(_solve(r, _h(b)))),)  # b R^-H


def _qr_jvp(ts, out, a, mode):
    """JAX's rule: with ``X = Q^H dA R^-1``, ``dR = (X - O) R`` and ``dQ = Q (O - X) +
    dA R^-1``, ``O`` the skew-Hermitian part built from ``X``'s strict lower triangle
    (and, complex, the imaginary part of its diagonal)."""
    (t,) = ts
    m, n = _qr_checked(a, mode)
    q, r = unpack(out, "qr", mode, m, n)
    dx_rinv = _t(_solve(_t(r), _t(t)))  # dA R^-1
    x = _mm(_h(q), dx_rinv)
    low = F.tril(x, -1)
    o = low - _h(low)
    if a.dtype.kind == "c":
        o = o + _diag_embed(1j * F.imag(F.diagonal(x, 0, -2, -1)), n)
    dq = _mm(q, o - x) + dx_rinv
    dr = _mm(x - o, r)
    batch = tuple(a.shape[:-2])
    return F.concatenate([dq.reshape(batch + (-1,)), dr.reshape(batch + (-1,))], axis=-1)


def _eig_parts(a, out, mode):
    """``w``, ``V`` and ``V^-1`` of the op's result (the vectors computed again for
    ``"values"``: the derivative needs them)."""
    if mode == "values":
        out = F.Tensor(apply("eig", (a.node,), "vectors"))
    w, v = out[..., 0, :], out[..., 1:, :]
    n = v.shape[-1]
    return w, v, _solve(v, F.broadcast_to(_eye(n, v), v.shape))


def _eig_jvp(ts, out, a, mode):
    """JAX's rule: with ``M = V^-1 dA V``, ``dw = diag(M)`` and ``dV = V (F o M)``, ``F =
    1 / (w_j - w_i)`` off the diagonal, less each vector's change of norm (``V`` has unit
    columns): ``dV - V Re(diag(V^H dV))``."""
    (t,) = ts
    w, v, vinv = _eig_parts(a, out, mode)
    m = _mm(_mm(vinv, F.astype(t, v.dtype)), v)
    dw = F.diagonal(m, 0, -2, -1)
    if mode == "values":
        return dw
    n = w.shape[-1]
    dv = _mm(v, _over_gaps(m * (1 - _eye(n, m)), w))
    dv = dv - v * F.real(F.sum(F.conj(v) * dv, axis=-2, keepdims=True))
    return F.concatenate([dw[..., None, :], dv], axis=-2)


def _eig_vjp(g, out, a, mode):
    """The transpose of :func:`_eig_jvp`, on the gradient (the conjugate of JAX's
    cotangent): ``V^-H (diag(gw) + conj(F) o Q) V^H`` with ``Q = V^H gV - V^H V
    diag(Re diag(V^H gV))``, conjugated back (its real part for a real matrix).  Equal
    eigenvalues: a term is 0 where the vectors' cotangents are all 0, else NaN."""
    w, v, vinv = _eig_parts(a, out, mode)
    n = w.shape[-1]
    if mode == "values":
        gw, gv = F.conj(g), None
    else:
        gw, gv = F.conj(g[..., 0, :]), F.conj(g[..., 1:, :])
    z = _diag_embed(gw, n)
    if gv is not None:
        k = _mm(_h(v), gv)
        q = k - _mm(_h(v), v) * F.real(F.diagonal(k, 0, -2, -1))[..., None, :]
        z = z + _over_gaps(q * (1 - _eye(n, q)), F.conj(w), _unused(gv))
    ga = F.conj(_mm(_mm(_h(vinv), z), _h(v)))
    return (ga if a.dtype.kind == "c" else F.real(ga),)


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
               vjp=_svd_vjp, jvp=_svd_jvp, **_FLOAT, doc="U, s, Vh packed (gesdd)"))
register(OpDef("qr", "linalg", _qr_ref, shape=_packed_shape("qr", QR_MODES), vjp=_qr_vjp,
               jvp=_qr_jvp, **_FLOAT, doc="Q, R packed (geqrf, orgqr)"))
register(OpDef("eig", "linalg", _eig_ref, shape=_eig_shape, dtype=_eig_dtype, vjp=_eig_vjp,
               jvp=_eig_jvp, doc="eigenvalues over right eigenvectors, complex (geev)"))
