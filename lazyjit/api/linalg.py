"""``lj.linalg``: NumPy's ``numpy.linalg`` (and the Array API's ``linalg`` extension),
lazy and differentiable, batched over leading axes.

The factorizations are the primitives of :mod:`lazyjit.ops.linalg` (LAPACK: NumPy's own
on the cpu backend); the rest are composites of them.  Inputs are promoted as NumPy's
``linalg`` promotes them: integers and bools to float64, float32 and float64 kept;
float16 is a ``TypeError`` (as NumPy's).  Failures NumPy reports, a matrix that is not
positive definite for ``cholesky``, a singular one for ``solve`` and ``inv``, raise
``numpy.linalg.LinAlgError`` when the value is computed.  Matrix sizes must be known
when the graph is built (a symbolic size is a clear error).

Derivatives in both modes come from the primitives' rules (see
:mod:`lazyjit.ops.linalg` for the sources and caveats): ``eigh``, ``svd`` and the
functions built on ``svd`` (``pinv``, ``lstsq``, ``matrix_rank``'s values, the ``2``
and ``nuc`` matrix norms) divide by differences of eigenvalues or singular values:
at repeated ones their gradients are NaN unless the loss ignores the choice of vectors
in the eigenspace (``pinv`` of the identity gives NaN); ``det``'s gradient at a
singular matrix raises ``LinAlgError``.
"""
from __future__ import annotations

import operator
import warnings
from typing import NamedTuple

import numpy as np

from lazyjit.api.arrays import _concrete, diagonal as _diagonal
from lazyjit.api.core import (_axes, asarray, astype, broadcast_to, elementwise, sign as _sign,
                              stop_gradient, where, zeros)
from lazyjit.api.ifelse import ifelse
from lazyjit.api.indexing import take_along_axis
from lazyjit.api.reductions import all as _all, max as _max, min as _min, sum as _sum
from lazyjit.api.shape_ops import matmul, moveaxis, stack, swapaxes, tensordot
from lazyjit.api.shape_ops import outer as _outer
from lazyjit.api.sorting import argsort, sort
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LinAlgShapeError, op_error
from lazyjit.ops import apply
from lazyjit.ops.linalg import unpack

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm",
           "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def _no_half(x: Tensor, name: str) -> None:
    """Refuse float16, as NumPy does."""
    if x.dtype == np.float16:
        raise TypeError(f"lazyjit.linalg.{name}: array type float16 is unsupported in "
                        "linalg (as in NumPy); convert to float32")


def _float(x, name: str, square: bool = True) -> Tensor:
    """``x`` as a stack of matrices in the dtype of the result (float32 stays, other
    numbers become float64; float16 is a ``TypeError``, as in NumPy)."""
    x = asarray(x)
    if x.ndim < 2:
        raise op_error(name, f"needs at least 2 dimensions, got {x.ndim}", (x.node,),
                       cls=LinAlgShapeError)
    shape = _concrete(x, name)
    if square and shape[-1] != shape[-2]:
        raise op_error(name, f"last 2 dimensions of the array must be square, got {shape}",
                       (x.node,), cls=LinAlgShapeError)
    _no_half(x, name)
    if x.dtype.kind not in "fc":
        x = astype(x, np.float64)
    return x


def _op(name: str, *xs: Tensor, arg=None) -> Tensor:
    """The primitive ``name`` computed in float64 (complex128 for complex operands), as
    NumPy's ``linalg`` computes float32 too, its result rounded to the first operand's
    dtype."""
    wide = np.complex128 if xs[0].dtype.kind == "c" else np.float64
    out = Tensor(apply(name, tuple(astype(x, wide).node for x in xs), arg))
    return astype(out, xs[0].dtype)


def matrix_transpose(x) -> Tensor:
    """Swap the last two axes (the Array API's ``matrix_transpose``, NumPy's ``.mT``)."""
    x = asarray(x)
    if x.ndim < 2:
        raise op_error("matrix_transpose", "needs at least 2 dimensions", (x.node,))
    return swapaxes(x, -1, -2)


def cholesky(a, upper: bool = False) -> Tensor:
    """The Cholesky factor of each symmetric positive-definite matrix of ``a``
    ``(..., n, n)``: lower ``L`` with ``a = L L^T`` (``upper=True``: ``L^T``), as
    ``np.linalg.cholesky`` (only the lower triangle of ``a`` is read; with ``upper``,
    the upper one).

    Raises ``LinAlgError`` (when computed) where a matrix is not positive definite."""
    a = _float(a, "cholesky")
    if upper:  # (U = L^T of a^T, whose lower triangle is a's upper one)
        return matrix_transpose(_op("cholesky", matrix_transpose(a)))
    return _op("cholesky", a)


def solve(a, b) -> Tensor:
    """``x`` with ``a @ x = b``, as ``np.linalg.solve`` (NumPy 2 and the Array API): ``a``
    ``(..., n, n)``; ``b`` a vector ``(n,)`` or matrices ``(..., n, k)``, batch dims
    broadcast; LU with partial pivoting (``gesv``).

    Raises ``LinAlgError`` (when computed) for an exactly singular matrix."""
    a = _float(a, "solve")
    b = asarray(b)
    _no_half(b, "solve")
    dtype = np.result_type(a.dtype, b.dtype if b.dtype.kind in "fc" else np.float64)
    a, b = astype(a, dtype), astype(b, dtype)
    n = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    bshape = _concrete(b, "solve")
    if b.ndim < 2 or bshape[-2] != n:
        raise op_error("solve", f"b of shape {b.shape} does not match a of shape {a.shape}",
                       (a.node, b.node))
    batch = np.broadcast_shapes(a.shape[:-2], bshape[:-2])
    x = _op("solve", broadcast_to(a, batch + (n, n)), broadcast_to(b, batch + bshape[-2:]))
    return x[..., 0] if vector else x


def inv(a) -> Tensor:
    """The inverse of each matrix of ``a`` ``(..., n, n)``, as ``np.linalg.inv``
    (``solve(a, I)``).  Raises ``LinAlgError`` (when computed) for a singular matrix."""
    a = _float(a, "inv")
    return solve(a, broadcast_to(asarray(np.eye(a.shape[-1], dtype=a.dtype)), a.shape))


def slogdet(a) -> SlogdetResult:
    """``(sign, logabsdet)`` of each matrix of ``a`` ``(..., n, n)``, as
    ``np.linalg.slogdet``: LU (``getrf``); a singular matrix gives ``(0, -inf)``."""
    out = _op("slogdet", _float(a, "slogdet"))
    logdet = out[..., 1]
    return SlogdetResult(out[..., 0], logdet.real if logdet.dtype.kind == "c" else logdet)


def det(a) -> Tensor:
    """The determinant of each matrix of ``a`` ``(..., n, n)``, as ``np.linalg.det``
    (``sign * exp(logabsdet)`` of the LU factorization)."""
    sign, logdet = slogdet(a)
    return sign * logdet.exp()


def eigh(a, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix of
    ``a`` ``(..., n, n)``, as ``np.linalg.eigh``, reading the ``UPLO`` triangle
    (``syevd``).  Eigenvectors are unique up to sign (and within repeated
    eigenvalues' eigenspaces); at repeated eigenvalues the gradient is NaN unless the
    loss does not depend on the eigenvectors.  The gradient is the symmetric one (for
    perturbations that keep ``a`` symmetric, as JAX's and PyTorch's): for a
    non-symmetric ``a`` it is not the derivative of reading one triangle.  Complex
    Hermitian ``a`` (``heevd``) has real eigenvalues and eigenvectors unique up to a
    phase each: the gradient of a loss that depends on those phases does not exist and
    is NaN (where a diagonal entry of ``V^H dL/dV`` has an imaginary part above 1e-4 of
    the largest entry), as PyTorch refuses it; the others have JAX's."""
    a = _float(a, "eigh")
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    if UPLO == "U":  # (the lower triangle of a^H is the Hermitian matrix a's upper one gives)
        a = matrix_transpose(a).conj() if a.dtype.kind == "c" else matrix_transpose(a)
    out = _op("eigh", a)
    w = out[..., 0, :]
    return EighResult(w.real if w.dtype.kind == "c" else w, out[..., 1:, :])


def _eig(a, mode: str) -> Tensor:
    a = _float(a, "eig" if mode == "vectors" else "eigvals")
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    out = Tensor(apply("eig", (astype(a, wide).node,), mode))
    return astype(out, np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128)


def eig(a) -> EigResult:
    """The eigenvalues and right eigenvectors (columns, each of unit 2-norm, the largest
    component real, as LAPACK's ``geev`` gives them) of each square matrix of ``a``
    ``(..., n, n)``, as ``np.linalg.eig``, in its order, but always complex (complex64
    for float32 and complex64, else complex128), as JAX's and PyTorch's: NumPy returns
    real arrays when every eigenvalue is real, a dtype that depends on the values.

    Derivatives (JAX's rule, both modes): the eigenvalues' exist where they are simple;
    the eigenvectors' are those of unit-norm vectors, so a loss that depends on their
    phases (``real(v)``, not ``abs(v)``) has a derivative that LAPACK's phase choice
    does not follow; at repeated eigenvalues they are NaN unless the loss ignores the
    vectors.  Raises ``LinAlgError`` (when computed) where ``geev`` fails."""
    out = _eig(a, "vectors")
    return EigResult(out[..., 0, :], out[..., 1:, :])


def eigvals(a) -> Tensor:
    """The eigenvalues of each square matrix of ``a``, as ``np.linalg.eigvals`` (``geev``
    without vectors), always complex (see :func:`eig`)."""
    return _eig(a, "values")


def eigvalsh(a, UPLO: str = "L") -> Tensor:
    """The eigenvalues of each symmetric matrix of ``a``, ascending (``np.linalg.eigvalsh``)."""
    return eigh(a, UPLO).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """The singular value decomposition ``a = U @ (S[..., None] * Vh)`` of each matrix of
    ``a`` ``(..., m, n)``, as ``np.linalg.svd`` (``gesdd``): ``SVDResult(U, S, Vh)``
    (``U`` ``(..., m, m)`` and ``Vh`` ``(..., n, n)`` with ``full_matrices``, else
    ``(..., m, k)`` and ``(..., k, n)``, ``k = min(m, n)``), or ``S`` alone (descending)
    without ``compute_uv``.  With ``hermitian``, ``a`` is taken as symmetric (its lower
    triangle read) and decomposed through :func:`eigh`, as NumPy does.  Singular vectors
    are unique up to sign; see the module's note on gradients."""
    a = _float(a, "svd", square=hermitian)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    m, n = a.shape[-2:]
    mode = "values" if not compute_uv else "complete" if full_matrices else "reduced"
    parts = unpack(_op("svd", a, arg=mode), "svd", mode, m, n)
    if a.dtype.kind == "c":  # (the singular values, real, are stored as complex numbers)
        parts[-1 if mode == "values" else 1] = parts[-1 if mode == "values" else 1].real
    return parts[0] if mode == "values" else SVDResult(*parts)


def _hermitian_svd(a: Tensor, compute_uv: bool):
    """NumPy's ``svd(hermitian=True)``: the eigenvalues' magnitudes, descending; the
    eigenvectors as ``U``, with the eigenvalues' signs moved into ``Vh`` (``U``'s
    conjugate transpose, but for those signs)."""
    if not compute_uv:
        return sort(abs(eigvalsh(a)), axis=-1, descending=True)
    w, v = eigh(a)
    order = argsort(abs(w), axis=-1, descending=True)
    s, sign = take_along_axis(abs(w), order, -1), take_along_axis(_sign(w), order, -1)
    u = take_along_axis(v, broadcast_to(order[..., None, :], v.shape), -1)
    return SVDResult(u, s, _h(u * sign[..., None, :]))


def _h(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix (the transpose of a real one)."""
    x = matrix_transpose(x)
    return elementwise("conj", x) if x.dtype.kind == "c" else x


def svdvals(x) -> Tensor:
    """The singular values of each matrix of ``x``, descending (the Array API's ``svdvals``)."""
    return svd(x, compute_uv=False)


def qr(a, mode: str = "reduced"):
    """The QR factorization of each matrix of ``a`` ``(..., m, n)``, as ``np.linalg.qr``
    (``geqrf``, ``orgqr``): ``mode`` ``"reduced"`` (``Q`` ``(..., m, k)``, ``R``
    ``(..., k, n)``), ``"complete"`` (``(..., m, m)``, ``(..., m, n)``) or ``"r"``
    (``R`` alone); NumPy's ``"raw"`` is not supported.  Gradients: ``m >= n`` only."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    a = _float(a, "qr", square=False)
    m, n = a.shape[-2:]
    kind = "complete" if mode == "complete" else "reduced"
    q, r = unpack(_op("qr", a, arg=kind), "qr", kind, m, n)
    return r if mode == "r" else QRResult(q, r)


def _default_rtol(a: Tensor):
    return max(a.shape[-2:]) * np.finfo(a.dtype).eps


_NO_VALUE = object()  # (NumPy's pinv tells rtol=None from no rtol)


def pinv(a, rcond=None, hermitian: bool = False, *, rtol=_NO_VALUE) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix of ``a`` ``(..., m, n)``, as
    ``np.linalg.pinv``: singular values at most ``rcond`` times the largest are treated
    as zero; ``rcond`` defaults to 1e-15, or to ``rtol`` when given (``rtol=None``: the
    Array API's ``max(m, n) * eps``).  Raises ``ValueError`` when both are given."""
    a = _float(a, "pinv", square=False)
    if rcond is not None and rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    cut = rcond if rcond is not None else 1e-15 if rtol is _NO_VALUE else \
        _default_rtol(a) if rtol is None else rtol
    m, n = a.shape[-2:]
    if min(m, n) == 0:
        return zeros(a.shape[:-2] + (n, m), a.dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    top = _max(s, axis=-1, keepdims=True)
    big = s > asarray(cut, dtype=s.dtype)[..., None] * top
    inv_s = where(big, 1 / where(big, s, 1), 0)
    p = matmul(_h(vh) * inv_s[..., None, :], _h(u))
    # the derivatives: through the SVD they are NaN at repeated singular values (pinv of
    # an orthogonal matrix), so for well-conditioned matrices of full rank they come
    # from the normal equations' form instead, the value staying the SVD's: p + (g - g)
    # has g's derivatives to any order.  Elsewhere the Gram matrix is replaced by I, so
    # that the derivative graph of the branch not taken never solves a singular system
    well = _all(s[..., -1:] > np.finfo(a.dtype).eps ** 0.4 * top)
    # (the Gram matrix of a scaled to a largest singular value of 1: a^H a of 1e160 or
    # 1e-300 would overflow or underflow; pinv(a / c) / c is pinv(a) for any c, so the
    # scale is a constant to the derivatives)
    c = stop_gradient(where(top > 0, top, 1)[..., None])
    sa = a / c
    at = _h(sa)
    tall = m >= n
    gram = matmul(at, sa) if tall else matmul(sa, at)
    gram = where(well, gram, asarray(np.eye(min(m, n), dtype=a.dtype)))
    g = (solve(gram, at) if tall else _h(solve(gram, sa))) / c
    return ifelse(well, stop_gradient(p) + (g - stop_gradient(g)), p, name="pinv")


def matrix_rank(A, tol=None, hermitian: bool = False, *, rtol=None) -> Tensor:
    """The number of singular values of each matrix above ``tol`` (default: ``rtol``,
    itself ``max(m, n) * eps`` by default, times the largest), as
    ``np.linalg.matrix_rank`` (an int64 tensor)."""
    A = asarray(A)
    if A.ndim < 2:
        return astype(_sum(A != 0) > 0, np.int64)
    A = _float(A, "matrix_rank", square=hermitian)
    if min(A.shape[-2:]) == 0:
        return zeros(A.shape[:-2], np.int64)
    s = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        cut = _default_rtol(A) if rtol is None else rtol
        tol = asarray(cut, dtype=s.dtype)[..., None] * _max(s, axis=-1, keepdims=True)
    else:
        tol = asarray(tol, dtype=s.dtype)[..., None]
    return _sum(s > tol, axis=-1, dtype=np.int64)


def lstsq(a, b, rcond=None) -> tuple:
    """The least-squares solution of ``a @ x = b``, as ``np.linalg.lstsq``: ``(x,
    residuals, rank, s)`` for ``a`` ``(m, n)`` and ``b`` ``(m,)`` or ``(m, k)``, through
    the SVD in float64 (singular values at most ``rcond * max(s)`` treated as zero;
    ``rcond`` None: ``max(m, n) * eps``, negative: ``eps``, float64's, as NumPy).
    ``residuals`` (the squared residual norms, empty unless the rank is ``n`` and
    ``m > n``) has a size known only from the data: it computes ``rank`` (so not inside
    ``lj.jit``)."""
    a = _float(a, "lstsq", square=False)
    if a.ndim != 2:
        raise op_error("lstsq", f"a must be 2-dimensional, got shape {a.shape}", (a.node,),
                       cls=LinAlgShapeError)
    b = asarray(b)
    _no_half(b, "lstsq")
    dtype = np.result_type(a.dtype, b.dtype if b.dtype.kind in "fc" else np.float64)
    wide = np.complex128 if dtype.kind == "c" else np.float64
    a, b = astype(a, wide), astype(b, wide)  # (NumPy computes in double)
    m, n = a.shape
    eps = np.finfo(np.float64).eps
    cut = max(m, n) * eps if rcond is None else eps if rcond < 0 else rcond
    s = svdvals(a)
    x = matmul(pinv(a, rcond=cut), b)
    rank = astype(matrix_rank(a, rtol=cut), np.int32)  # (NumPy's lstsq: int32)
    if m > n and int(rank) == n:  # (data-dependent: NumPy's residuals exist only then)
        d = matmul(a, x) - b
        r = _sum(d.real * d.real + d.imag * d.imag if wide == np.complex128 else d * d, axis=0)
        residuals = r[None] if b.ndim == 1 else r
    else:
        residuals = asarray(np.zeros((0,), np.float64))
    real = np.finfo(dtype).dtype  # (complex: residuals and s are real)
    return astype(x, dtype), astype(residuals, real), rank, astype(s, real)


def matrix_power(a, n: int) -> Tensor:
    """``a`` (``(..., m, m)``) to the integer power ``n`` by repeated squaring, as
    ``np.linalg.matrix_power`` (``n = 0``: identities; ``n < 0``: powers of ``inv(a)``;
    integer matrices stay integer for ``n >= 0``)."""
    a = asarray(a)
    n = operator.index(n)
    shape = _concrete(a, "matrix_power")
    if a.ndim < 2 or shape[-1] != shape[-2]:
        raise op_error("matrix_power", f"needs square matrices, got shape {shape}", (a.node,),
                       cls=LinAlgShapeError)
    if n == 0:
        return broadcast_to(asarray(np.eye(shape[-1], dtype=a.dtype)), shape)
    if n < 0:
        a, n = inv(a), -n
    result, power = None, a
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def _vector_norm(x: Tensor, axes: tuple, ord) -> Tensor:
    ax = abs(x)  # (of complex x: real, and so is every norm)
    if ord == np.inf:  # (NumPy's: 0 of an empty vector)
        if any(x.shape[a] == 0 for a in axes):
            return zeros(tuple(d for i, d in enumerate(x.shape) if i not in axes), ax.dtype)
        return _max(ax, axis=axes)
    if ord == -np.inf:
        return _min(ax, axis=axes)
    if ord == 0:
        return astype(_sum(x != 0, axis=axes), ax.dtype)
    if ord == 1:
        return _sum(ax, axis=axes)
    if ord is None or ord == 2:  # (complex: re^2 + im^2, as NumPy, NaN for inf + nan j)
        s = _sum(x.real * x.real + x.imag * x.imag if x.dtype.kind == "c" else x * x,
                 axis=axes)
        zero = s == 0  # (the gradient at 0 is 0, a subgradient, not 0 * inf)
        return where(zero, 0, where(zero, 1, s) ** 0.5)
    if isinstance(ord, str):
        raise ValueError(f"invalid norm order {ord!r} for vectors")
    return _sum(ax ** ord, axis=axes) ** (1.0 / ord)


def _matrix_norm(x: Tensor, r: int, c: int, ord) -> Tensor:
    if ord in (None, "fro"):
        return _vector_norm(x, (r, c), 2)
    empty = x.shape[r] == 0 or x.shape[c] == 0
    if empty and ord in ("nuc", 2, 1, np.inf):  # (NumPy: 0 for an empty matrix)
        return zeros(tuple(d for i, d in enumerate(x.shape) if i not in (r, c)),
                     abs(x).dtype)
    if ord in ("nuc", 2, -2):
        s = svdvals(moveaxis(x, (r, c), (-2, -1)))
        return _sum(s, axis=-1) if ord == "nuc" else \
            _max(s, axis=-1) if ord == 2 else _min(s, axis=-1)
    if ord in (1, -1):
        sums = _sum(abs(x), axis=r, keepdims=True)
        return (_max if ord == 1 else _min)(sums, axis=(r, c))
    if ord in (np.inf, -np.inf):
        sums = _sum(abs(x), axis=c, keepdims=True)
        return (_max if ord == np.inf else _min)(sums, axis=(r, c))
    raise ValueError(f"invalid norm order {ord!r} for matrices")


def _keep(out: Tensor, ndim: int, axes: tuple) -> Tensor:
    shape = list(out.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return out.reshape(tuple(shape)) if len(shape) == ndim else out


def _norm_input(x) -> Tensor:
    """``x`` as floats (integers and bools as float64); complex stays complex (its norms
    are real)."""
    x = asarray(x)
    return astype(x, np.float64) if x.dtype.kind not in "fc" else x


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:
    """A vector or matrix norm, as ``np.linalg.norm``: over all elements (``axis`` None,
    ``ord`` None: the 2-norm of the flattened array), a vector norm along one axis
    (``ord``: ``None``/2, 1, ``inf``, ``-inf``, 0, any other p), or a matrix norm over two
    axes (``"fro"``, ``"nuc"``, 1, -1, 2, -2, ``inf``, ``-inf``).  The 2-norm's gradient
    at zero is zero (a subgradient).  Complex ``x`` has real norms."""
    x = _norm_input(x)
    if axis is None:
        if ord is None or x.ndim == 1:
            axes = tuple(range(x.ndim))
            return _keep(_vector_norm(x, axes, ord), x.ndim, axes) if keepdims else \
                _vector_norm(x, axes, ord)
        if x.ndim != 2:
            raise ValueError("improper number of dimensions to norm")
        axis = (0, 1)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(axes) == 1:
        (a,) = _axes(axes[0], x.ndim, "norm")
        out = _vector_norm(x, (a,), ord)
        return _keep(out, x.ndim, (a,)) if keepdims else out
    if len(axes) != 2:
        raise ValueError("improper number of dimensions to norm")
    r, c = (_axes(a, x.ndim, "norm")[0] for a in axes)
    if r == c:
        raise ValueError("duplicate axes given")
    out = _matrix_norm(x, r, c, ord)
    return _keep(out, x.ndim, (r, c)) if keepdims else out


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2) -> Tensor:
    """The Array API's ``vector_norm``: ``ord`` (2, 1, ``inf``, ``-inf``, 0 or any p)
    over ``axis`` (all axes when None; a tuple of axes counts as one flattened vector)."""
    x = _norm_input(x)
    axes = _axes(axis, x.ndim, "vector_norm")
    out = _vector_norm(x, axes, ord)
    return _keep(out, x.ndim, axes) if keepdims else out


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro") -> Tensor:
    """The Array API's ``matrix_norm`` over the last two axes (``ord`` as :func:`norm`)."""
    x = _norm_input(x)
    if x.ndim < 2:
        raise op_error("matrix_norm", f"needs at least 2 dimensions, got {x.ndim}", (x.node,))
    out = _matrix_norm(x, x.ndim - 2, x.ndim - 1, ord)
    return _keep(out, x.ndim, (x.ndim - 2, x.ndim - 1)) if keepdims else out


def diagonal(x, /, *, offset: int = 0) -> Tensor:
    """The Array API's ``linalg.diagonal``: diagonals of the last two axes."""
    return _diagonal(x, offset, -2, -1)


def trace(x, /, *, offset: int = 0, dtype=None) -> Tensor:
    """The Array API's ``linalg.trace``: sums of the diagonals of the last two axes."""
    d = diagonal(x, offset=offset)
    return d.sum(axis=-1) if dtype is None else d.sum(axis=-1, dtype=dtype)


def outer(x1, x2, /) -> Tensor:
    """The outer product of two vectors (``np.linalg.outer``, the Array API's: 1-D
    inputs only; ``lj.outer``, NumPy's ``np.outer``, flattens)."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise op_error("outer", f"needs 1-d inputs, got shapes {x1.shape} and {x2.shape}",
                       (x1.node, x2.node))
    return _outer(x1, x2)


def vecdot(x1, x2, /, *, axis: int = -1) -> Tensor:
    """The Array API's ``vecdot``: ``sum(conj(x1) * x2, axis)`` after broadcasting (the
    conjugate of complex ``x1``, as ``np.vecdot``), in the operands' promoted dtype (bools
    give a bool, small integers wrap, as NumPy's)."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.dtype.kind == "c":
        x1 = elementwise("conj", x1)
    products = x1 * x2
    return _sum(products, axis=axis, dtype=products.dtype)


def cross(x1, x2, /, *, axis: int = -1) -> Tensor:
    """The cross product of 3-element vectors along ``axis`` (the Array API's
    ``linalg.cross``; NumPy's ``cross`` of 3-vectors)."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise op_error("cross", f"needs 3-element vectors along axis {axis}, got shapes "
                       f"{x1.shape} and {x2.shape}", (x1.node, x2.node))
    a, b = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    c = stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
               a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
               a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)
    return moveaxis(c, -1, axis)


def numpy_cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1,
                axis: int | None = None) -> Tensor:
    """NumPy's ``cross`` (``lj.cross``): the cross product of 3- or 2-element vectors
    along ``axisa`` of ``a`` and ``axisb`` of ``b`` (``axis``, when given, for all three),
    broadcast over the other axes, the result's vectors along ``axisc``; a 2-element
    vector has a third component 0, and two of them give the ``z`` component alone (a
    scalar per pair), as NumPy.

    Raises
    ------
    ValueError
        For vectors of another length (a ``LazyjitError``)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(asarray(a), axisa, -1), moveaxis(asarray(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise op_error("cross", "incompatible dimensions for cross product (dimension must "
                       f"be 2 or 3), got shapes {a.shape} and {b.shape}", (a.node, b.node))
    if 2 in (a.shape[-1], b.shape[-1]):
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    if a.shape[-1] == b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if a.shape[-1] == b.shape[-1] == 3:
        return moveaxis(cross(a, b), -1, axisc)
    # NumPy's products with the missing component left out, not times 0 (0 * inf is NaN,
    # 0 - x differs from -x at 0)
    third = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if a.shape[-1] == 2:
        c = stack([a[..., 1] * b[..., 2], -(a[..., 0] * b[..., 2]), third], axis=-1)
    else:
        c = stack([-(a[..., 2] * b[..., 1]), a[..., 2] * b[..., 0], third], axis=-1)
    return moveaxis(c, -1, axisc)


def cond(x, p=None) -> Tensor:
    """The condition number of each matrix of ``x`` ``(..., m, n)``, as
    ``np.linalg.cond``: ``p`` None or 2 (``s_max / s_min`` of the SVD), -2 (``s_min /
    s_max``), or any matrix norm order of :func:`norm` for square matrices
    (``norm(x, p) * norm(inv(x), p)``).  A singular matrix gives ``inf`` (NumPy's
    NaN-to-inf rule; for the orders that invert, where the LU factorization meets a zero
    pivot).  An empty matrix is a ``LinAlgError``, as in NumPy."""
    x = _float(x, "cond", square=p not in (None, 2, -2))
    if 0 in x.shape[-2:]:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")
    if p in (None, 2, -2):
        s = svdvals(x)
        hi, lo = s[..., 0], s[..., -1]
        r = lo / hi if p == -2 else hi / lo
        return where(r != r, np.inf, r)  # (NumPy's: 0 / 0, of a zero matrix, is inf)
    singular = (slogdet(x).sign == 0)[..., None, None]  # (no inverse: inf, not an error)
    safe = where(singular, asarray(np.eye(x.shape[-1], dtype=x.dtype)), x)
    r = norm(x, p, axis=(-2, -1)) * norm(inv(safe), p, axis=(-2, -1))
    return where(singular[..., 0, 0], np.inf, r)


def multi_dot(arrays) -> Tensor:
    """The product of two or more matrices in the order of fewest scalar multiplications,
    as ``np.linalg.multi_dot`` (the textbook matrix-chain dynamic program; Cormen et al.,
    "Introduction to Algorithms", 15.2): a first 1-d array is a row vector, a last one a
    column vector (and the result loses that axis).  Raises ``ValueError`` for fewer than
    two arrays or arrays that are not 1-d (first, last) or 2-d."""
    arrays = [asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    first, last = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first:
        arrays[0] = arrays[0][None, :]
    if last:
        arrays[-1] = arrays[-1][:, None]
    for a in arrays:
        if a.ndim != 2:
            raise op_error("multi_dot", f"{a.ndim}-dimensional array given. Array must be "
                           "two-dimensional", (a.node,), cls=LinAlgShapeError)
    dims = [_concrete(a, "multi_dot")[0] for a in arrays] + [arrays[-1].shape[1]]
    n = len(arrays)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                for k in range(i, j))

    def chain(i: int, j: int) -> Tensor:
        return arrays[i] if i == j else matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))
    out = chain(0, n - 1)
    if first and last:
        return out[0, 0]
    return out[0] if first else out[:, 0] if last else out


def tensorinv(a, ind: int = 2) -> Tensor:
    """The inverse of ``a`` for :func:`tensordot` over its first ``ind`` axes, as
    ``np.linalg.tensorinv``: shape ``a.shape[ind:] + a.shape[:ind]``; the product of
    ``a.shape[:ind]`` must equal that of ``a.shape[ind:]`` (else ``ValueError``)."""
    a = asarray(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    shape = _concrete(a, "tensorinv")
    rows = int(np.prod(shape[ind:]))
    return inv(a.reshape((rows, -1))).reshape(shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None) -> Tensor:
    """``x`` with ``tensordot(a, x, axes=x.ndim) == b``, as ``np.linalg.tensorsolve``:
    ``x`` has shape ``a.shape[b.ndim:]`` (after ``axes`` of ``a`` are moved to the end);
    raises ``LinAlgError`` unless ``prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])``."""
    a, b = asarray(a), asarray(b)
    if axes is not None:
        order = [k for k in range(a.ndim) if k not in [k % a.ndim for k in axes]]
        a = a.transpose(order + [k % a.ndim for k in axes])
    shape = _concrete(a, "tensorsolve")
    tail = shape[b.ndim:] if a.ndim > b.ndim else shape  # (NumPy's a.shape[-0:]: all)
    size = int(np.prod(tail))
    if int(np.prod(shape)) != size ** 2:
        raise np.linalg.LinAlgError("Input arrays must satisfy the requirement "
                                    "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape((size, size)), b.reshape((-1,))).reshape(tail)
