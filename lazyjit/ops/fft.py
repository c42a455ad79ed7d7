"""The discrete Fourier transform primitive: one op, ``fft``, along the last axis.

``fft(x, (kind, norm, n))`` is NumPy's ``np.fft.<kind>(x, axis=-1, norm=norm)`` on a
contiguous operand, with ``kind``:

* ``"fft"`` and ``"ifft"``: complex to complex, of the input's length;
* ``"rfft"``: real (float32, float64) to the ``n_in // 2 + 1`` non-negative frequencies;
* ``"irfft"``: those ``n // 2 + 1`` frequencies to the real signal of length ``n``.

The API (:mod:`lazyjit.api.fft`) casts, pads or truncates to the transform's length and
moves the axis last; this op never sees an empty transform.  Every backend computes it
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

FFT_KINDS = ("fft", "ifft", "rfft", "irfft")
NORMS = ("backward", "ortho", "forward")


def _ref(x, arg, out=None):
    """NumPy's transform (into ``out`` when given: the cpu kernel's own buffer)."""
    kind, norm, n = arg
    if kind == "irfft":
        return np.fft.irfft(x, n, axis=-1, norm=norm, out=out)
    return getattr(np.fft, kind)(x, axis=-1, norm=norm, out=out)


def _shape(srcs, arg):
    kind, norm, n = arg
    (x,) = srcs
    if kind not in FFT_KINDS or norm not in NORMS or not x.shape:
        raise ValueError(f"bad fft {arg!r} of shape {x.shape}")
    m = x.shape[-1]
    if kind == "rfft":
        if x.dtype.kind != "f":
            raise TypeError("rfft takes a real operand")
        return x.shape[:-1] + (m // 2 + 1,)
    if x.dtype.kind != "c":
        raise TypeError(f"{kind} takes a complex operand")
    if kind == "irfft":
        if not isinstance(n, int) or n < 1 or m != n // 2 + 1:
            raise ValueError(f"irfft to length {n} takes {n} // 2 + 1 terms, not {m}")
        return x.shape[:-1] + (n,)
    return x.shape


def _dtype(srcs, arg):
    (x,) = srcs
    single = x.dtype in (np.float32, np.complex64)
    if arg[0] == "irfft":
        return np.dtype(np.float32 if single else np.float64)
    return np.dtype(np.complex64 if single else np.complex128)


def transform(x, kind: str, norm: str, n: int | None = None):
    """The ``fft`` node of tensor ``x`` as a tensor (``n``: irfft's output length)."""
    return F.Tensor(apply("fft", (x.node,), (kind, norm, n)))


def _vjp(g, out, x, arg):
    kind, norm, n = arg
    if kind in ("fft", "ifft"):
        return (transform(g, kind, norm),)
    if kind == "rfft":
        m = x.shape[-1]
        pad = F.zeros(g.shape[:-1] + (m - g.shape[-1],), g.dtype)
        return (F.real(transform(F.concatenate([g, pad], axis=-1), "fft", norm)),)
    m = x.shape[-1]  # irfft: n // 2 + 1 terms
    c = transform(g.astype(x.dtype), "ifft", norm)[..., :m]
    twice = np.full(m, 2.0)
    twice[0] = 1.0
    if n % 2 == 0:
        twice[-1] = 1.0
    return (c * F.asarray(twice.astype(g.dtype)),)


register(OpDef("fft", "fft", _ref, shape=_shape, dtype=_dtype, vjp=_vjp, jvp=linear_jvp,
               doc="np.fft.<kind> along the last axis (pocketfft on every backend)"))
