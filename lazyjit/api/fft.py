"""``lj.fft``: NumPy's ``numpy.fft`` (the Array API's ``fft`` extension), lazily and
differentiably.

Every transform is the one ``fft`` primitive (:mod:`lazyjit.ops.fft`) along one axis,
computed by NumPy's pocketfft on every backend; the n-dimensional transforms apply it
axis by axis, as pocketfft does.  Semantics are NumPy's: ``n`` (``s``) truncates or
pads with zeros, ``norm`` is ``"backward"`` (None), ``"ortho"`` or ``"forward"``; real
inputs of float32 (and float16) give complex64, the others complex128, and ``irfft`` the
matching real dtype.  Derivatives in both modes follow JAX's convention for complex
cotangents (``dL/dx - 1j*dL/dy``), so ``grad`` of a real loss through ``fft`` equals
``jax.grad``'s.  The cuda backend does not take complex tensors yet.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from lazyjit.api.core import arange, asarray, astype, elementwise
from lazyjit.api.shape_ops import concatenate, moveaxis
from lazyjit.api.arrays import roll
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.trace.dims import Dim
from lazyjit.ops.fft import NORMS, transform

__all__ = ["fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn", "hfft", "ihfft",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm, name: str) -> str:
    norm = "backward" if norm is None else norm
    if norm not in NORMS:
        raise op_error(f"fft.{name}", f"invalid norm {norm!r} (None, 'backward', 'ortho' or "
                       "'forward')", cls=ValueError)
    return norm


def _complex(x: Tensor) -> Tensor:
    """``x`` as complex: complex64 of float32 and float16, complex128 of the others."""
    if x.dtype.kind == "c":
        return x
    return astype(x, np.complex64 if x.dtype in (np.float32, np.float16) else np.complex128)


def _real(x: Tensor, name: str) -> Tensor:
    if x.dtype.kind == "c":
        raise op_error(f"fft.{name}", "takes a real input (complex given)", (x.node,),
                       cls=TypeError)
    return astype(x, np.float32 if x.dtype in (np.float32, np.float16) else np.float64)


def _resized(x: Tensor, n: int, axis: int, name: str) -> Tensor:
    """``x`` truncated or zero-padded to ``n`` along ``axis`` (NumPy's ``n``); a symbolic
    length only as the axis's own (no resizing)."""
    if type(n) is Dim and n == x.shape[axis]:
        return x
    if type(n) is Dim or type(x.shape[axis]) is Dim:
        raise op_error(f"fft.{name}", "a transform along an axis whose size is known only "
                       "at each call (a symbolic size) is not supported yet: the "
                       "transform's length must be a number when the graph is built "
                       "(lj.jit(..., dynamic=False), or a concrete placeholder shape)",
                       (x.node,), cls=NotImplementedError)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise op_error(f"fft.{name}", f"invalid number of data points ({n}) specified",
                       (x.node,), cls=ValueError)
    m = x.shape[axis]
    if n == m:
        return x
    if n < m:
        return moveaxis(moveaxis(x, axis, -1)[..., :n], -1, axis)
    shape = list(x.shape)
    shape[axis] = n - m
    return concatenate([x, asarray(np.zeros(shape, x.dtype))], axis=axis)


def _axis(x: Tensor, axis: int, name: str) -> int:
    if not -x.ndim <= axis < x.ndim:
        raise op_error(f"fft.{name}", f"axis {axis} is out of bounds for array of dimension "
                       f"{x.ndim}", (x.node,), cls=ValueError)
    return axis % x.ndim


def _along(x: Tensor, axis: int, kind: str, norm: str, n: int | None = None) -> Tensor:
    return transform(x, kind, norm, n, axis)


def _c2c(kind: str, x, n, axis: int, norm) -> Tensor:
    x = asarray(x)
    norm, axis = _norm(norm, kind), _axis(x, axis, kind)
    x = _resized(_complex(x), x.shape[axis] if n is None else n, axis, kind)
    return _along(x, axis, kind, norm)


def fft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional discrete Fourier transform along ``axis``, as ``np.fft.fft``:
    complex result, of length ``n`` (``x`` truncated or zero-padded; default its length).

    Raises ``ValueError`` for ``n < 1`` or an empty axis, a bad ``axis`` or ``norm``."""
    return _c2c("fft", x, n, axis, norm)


def ifft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of :func:`fft`, as ``np.fft.ifft`` (``1/n`` with ``norm="backward"``)."""
    return _c2c("ifft", x, n, axis, norm)


def rfft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The transform of a real ``x`` along ``axis``, its ``n // 2 + 1`` non-negative
    frequencies, as ``np.fft.rfft``.  Raises ``TypeError`` for a complex ``x``."""
    x = asarray(x)
    norm, axis = _norm(norm, "rfft"), _axis(x, axis, "rfft")
    x = _resized(_real(x, "rfft"), x.shape[axis] if n is None else n, axis, "rfft")
    return _along(x, axis, "rfft", norm)


def irfft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The real signal of length ``n`` (default ``2 * (m - 1)`` for ``m`` terms) whose
    :func:`rfft` is ``x``, as ``np.fft.irfft``: ``x`` truncated or zero-padded to
    ``n // 2 + 1`` terms; the imaginary parts of the zero (and, for even ``n``, the
    Nyquist) term are ignored, as NumPy ignores them."""
    x = asarray(x)
    half = x.dtype == np.float16  # (NumPy gives float16 back)
    norm, axis = _norm(norm, "irfft"), _axis(x, axis, "irfft")
    n = 2 * (x.shape[axis] - 1) if n is None else n
    if type(n) is not Dim and (not isinstance(n, (int, np.integer)) or isinstance(n, bool)
                               or n < 1):
        raise op_error("fft.irfft", f"invalid number of data points ({n}) specified",
                       (x.node,), cls=ValueError)
    x = _resized(_complex(x), n // 2 + 1, axis, "irfft")
    out = _along(x, axis, "irfft", norm, n if type(n) is Dim else int(n))
    return astype(out, np.float16) if half else out


def hfft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The real spectrum of a signal with Hermitian symmetry given by its first half
    ``x``, as ``np.fft.hfft``: ``irfft(conj(x), n)`` with the opposite normalization."""
    x = asarray(x)
    out = irfft(elementwise("conj", _complex(x)), n, axis, _SWAP[_norm(norm, "hfft")])
    return astype(out, np.float16) if x.dtype == np.float16 else out


def ihfft(x, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of :func:`hfft`, as ``np.fft.ihfft``: ``conj(rfft(x, n))`` with the
    opposite normalization."""
    return elementwise("conj", rfft(x, n, axis, _SWAP[_norm(norm, "ihfft")]))


def _axes_of(x: Tensor, s, axes, name: str) -> tuple[list, list]:
    """NumPy's ``s`` and ``axes`` of an n-dimensional transform: by default the last
    ``len(s)`` axes, or all of them; each length default the axis's size."""
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(-len(s), 0))  # (more
        # lengths than axes: an axis out of bounds, as NumPy's error)
    axes = [_axis(x, a, name) for a in axes]
    if s is None:
        s = [x.shape[a] for a in axes]
    if len(s) != len(axes):
        raise op_error(f"fft.{name}", "s and axes have different lengths", (x.node,),
                       cls=ValueError)
    return [x.shape[a] if n == -1 else n for n, a in zip(s, axes)], axes  # (-1: whole)


def _nd(kind: str, x, s, axes, norm) -> Tensor:
    x = _complex(asarray(x))
    s, axes = _axes_of(x, s, axes, kind + "n")
    norm = _norm(norm, kind + "n")
    for n, a in zip(reversed(s), reversed(axes)):
        x = _along(_resized(x, n, a, kind + "n"), a, kind, norm)
    return x


def fftn(x, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Tensor:
    """The n-dimensional transform over ``axes`` (default all, or the last ``len(s)``),
    each truncated or padded to ``s``, as ``np.fft.fftn``."""
    return _nd("fft", x, s, axes, norm)


def ifftn(x, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Tensor:
    """The inverse of :func:`fftn`, as ``np.fft.ifftn``."""
    return _nd("ifft", x, s, axes, norm)


def rfftn(x, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Tensor:
    """:func:`rfft` over the last of ``axes``, then :func:`fft` over the others, as
    ``np.fft.rfftn``."""
    x = asarray(x)
    s, axes = _axes_of(x, s, axes, "rfftn")
    x = rfft(x, s[-1], axes[-1], norm)
    return _nd("fft", x, s[:-1], axes[:-1], norm) if len(axes) > 1 else x


def irfftn(x, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Tensor:
    """The inverse of :func:`rfftn`, as ``np.fft.irfftn``: :func:`ifft` over all but the
    last of ``axes``, then :func:`irfft` to ``s[-1]`` (default ``2 * (m - 1)``)."""
    x = asarray(x)
    given = s is not None
    s, axes = _axes_of(x, s, axes, "irfftn")
    if not given:
        s[-1] = 2 * (s[-1] - 1)
    if len(axes) > 1:
        x = _nd("ifft", x, s[:-1], axes[:-1], norm)
    return irfft(x, s[-1], axes[-1], norm)


def fft2(x, s=None, axes=(-2, -1), norm=None) -> Tensor:
    """:func:`fftn` over the last two axes, as ``np.fft.fft2``."""
    return fftn(x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm=None) -> Tensor:
    """:func:`ifftn` over the last two axes, as ``np.fft.ifft2``."""
    return ifftn(x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm=None) -> Tensor:
    """:func:`rfftn` over the last two axes, as ``np.fft.rfft2``."""
    return rfftn(x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm=None) -> Tensor:
    """:func:`irfftn` over the last two axes, as ``np.fft.irfft2``."""
    return irfftn(x, s, axes, norm)


def fftfreq(n: int, d: float = 1.0, *, dtype=None, device=None) -> Tensor:
    """The sample frequencies of an ``n``-point transform with spacing ``d``, as
    ``np.fft.fftfreq``: ``[0, 1, ..., n/2 - 1, -n/2, ..., -1] / (d * n)``, float64 (or
    ``dtype``)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise op_error("fft.fftfreq", f"n must be a positive int, not {n!r}", cls=ValueError)
    k = arange(n, device=device)
    k = k - n * (k >= (n + 1) // 2)
    return astype(k * (1.0 / (n * d)), np.float64 if dtype is None else dtype)


def rfftfreq(n: int, d: float = 1.0, *, dtype=None, device=None) -> Tensor:
    """The non-negative sample frequencies of :func:`rfft`, as ``np.fft.rfftfreq``:
    ``[0, 1, ..., n // 2] / (d * n)``, float64 (or ``dtype``)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise op_error("fft.rfftfreq", f"n must be a positive int, not {n!r}", cls=ValueError)
    return astype(arange(n // 2 + 1, device=device) * (1.0 / (n * d)),
                  np.float64 if dtype is None else dtype)


def _shift(x, axes, sign: int, name: str) -> Tensor:
    x = asarray(x)
    axes = list(range(x.ndim)) if axes is None else [axes] if isinstance(axes, int) else \
        list(axes)
    axes = [_axis(x, a, name) for a in axes]
    return roll(x, [sign * (x.shape[a] // 2) for a in axes], axes)


def fftshift(x, axes=None) -> Tensor:
    """The zero frequency moved to the centre (a roll by ``n // 2`` along ``axes``,
    default all), as ``np.fft.fftshift``."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None) -> Tensor:
    """The inverse of :func:`fftshift` (a roll by ``-(n // 2)``), as
    ``np.fft.ifftshift``."""
    return _shift(x, axes, -1, "ifftshift")
