"""The discrete Fourier transform primitive: one op, ``fft``, along one axis.

``fft(x, (kind, norm, n, axis))`` is NumPy's ``np.fft.<kind>(x, axis=axis, norm=norm)``
on a contiguous operand (``axis`` non-negative), with ``kind``:

* ``"fft"`` and ``"ifft"``: complex to complex, of the input's length;
* ``"rfft"``: real (float32, float64) to the ``n_in // 2 + 1`` non-negative frequencies;
* ``"irfft"``: those ``n // 2 + 1`` frequencies to the real signal of length ``n``.

The API (:mod:`lazyjit.api.fft`) casts, pads or truncates to the transform's length;
this op never sees an empty transform.  Every backend computes it
with NumPy's pocketfft (the cpu backend from its compiled code, through a callback:
:mod:`lazyjit.backends.cpu.host`); lazyjit has no FFT of its own.

Derivatives (JAX's convention for complex cotangents, ``dL/dx - 1j*dL/dy``): the op is
linear, so its JVP is the op of the tangent; its VJP is the transpose, which is the same
transform for ``fft`` and ``ifft`` (the DFT matrix is symmetric); for ``rfft``, the real
part of the ``fft`` of the cotangent padded with zeros; for ``irfft``, the ``ifft`` of the
cotangent, kept to ``n // 2 + 1`` terms and doubled where the real signal counts a
frequency twice (all but 0 and, for even ``n``, ``n / 2``).
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops.registry import F, OpDef, apply, linear_jvp, register
from lazyjit.trace.dims import Dim

FFT_KINDS = ("fft", "ifft", "rfft", "irfft")
NORMS = ("backward", "ortho", "forward")


def _ref(x, arg, out=None):
    """NumPy's transform (into ``out`` when given: the cpu kernel's own buffer)."""
    kind, norm, n, axis = arg
    if kind == "irfft":
        return np.fft.irfft(x, n, axis=axis, norm=norm, out=out)
    return getattr(np.fft, kind)(x, axis=axis, norm=norm, out=out)


def _shape(srcs, arg):
    kind, norm, n, axis = arg
    (x,) = srcs
    if kind not in FFT_KINDS or norm not in NORMS or not 0 <= axis < len(x.shape):
        raise ValueError(f"bad fft {arg!r} of shape {x.shape}")
    m = x.shape[axis]
    if kind == "rfft":
        if x.dtype.kind != "f":
            raise TypeError("rfft takes a real operand")
        m = m // 2 + 1
    elif x.dtype.kind != "c":
        raise TypeError(f"{kind} takes a complex operand")
    elif kind == "irfft":
        if (type(n) is not Dim and (not isinstance(n, int) or n < 1)) or m != n // 2 + 1:
            raise ValueError(f"irfft to length {n} takes {n} // 2 + 1 terms, not {m}")
        m = n
    return x.shape[:axis] + (m,) + x.shape[axis + 1:]


def _dtype(srcs, arg):
    (x,) = srcs
    single = x.dtype in (np.float32, np.complex64)
    if arg[0] == "irfft":
        return np.dtype(np.float32 if single else np.float64)
    return np.dtype(np.complex64 if single else np.complex128)


def transform(x, kind: str, norm: str, n: int | None = None, axis: int = -1):
    """The ``fft`` node of tensor ``x`` along ``axis`` as a tensor (``n``: irfft's output
    length)."""
    return F.Tensor(apply("fft", (x.node,), (kind, norm, n, axis % x.ndim)))


def _vjp(g, out, x, arg):
    kind, norm, n, axis = arg
    if kind in ("fft", "ifft"):
        return (transform(g, kind, norm, None, axis),)
    m = x.shape[axis]
    if kind == "rfft":
        pad = F.zeros(g.shape[:axis] + (m - g.shape[axis],) + g.shape[axis + 1:], g.dtype)
        return (F.real(transform(F.concatenate([g, pad], axis=axis), "fft", norm, None,
                                 axis)),)
    # irfft: n // 2 + 1 terms
    c = transform(g.astype(x.dtype), "ifft", norm, None, axis)
    c = c[(slice(None),) * axis + (slice(0, m),)]
    twice = np.full(m, 2.0)
    twice[0] = 1.0
    if n % 2 == 0:
        twice[-1] = 1.0
    return (c * F.asarray(twice.astype(g.dtype).reshape((m,) + (1,) * (g.ndim - 1 - axis))),)


register(OpDef("fft", "fft", _ref, shape=_shape, dtype=_dtype, vjp=_vjp, jvp=linear_jvp,
               doc="np.fft.<kind> along an axis (pocketfft on every backend)"))
