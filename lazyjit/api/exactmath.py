"""``log`` and ``cos(2 pi u)`` in float64 that round the same on every backend.

NumPy's SIMD loops and glibc's libm/libmvec compute ``log`` and ``cos`` to within an
ulp or so, but not the same ulp, so a draw that calls them differs in its last bits
between backends.  The functions here are graphs of the operations that IEEE 754
rounds identically everywhere (``+ - * /`` on float64, comparisons, ``where``,
``floor``); with no fused multiply-add (the ``cpu`` backend compiles with
``-ffp-contract=off``) and doubles evaluated in double precision (C's
``FLT_EVAL_METHOD == 0``: x86-64, aarch64), every backend computes them bit for bit.

Their method is fdlibm's (Sun Microsystems, 1993; its polynomial coefficients, as in
FreeBSD's msun and musl): the argument reduction is done exactly with float
operations instead of reading the exponent bits.  ``log`` is Cody and Waite's (Software
Manual for the Elementary Functions, 1980): ``x = 2**k * m`` with ``m`` in
``[sqrt(2)/2, sqrt(2))``, ``log(m) = 2 atanh(s)``, ``s = (m - 1) / (m + 1)``, an odd
series in ``s`` (a minimax polynomial in ``s**2``), plus ``k log(2)`` with ``log(2)`` split
in a high part (``k * ln2_hi`` exact) and a low part.  ``cos(2 pi u)`` reduces ``4u``
exactly to a quadrant and a fraction of ``pi/2`` (J.-M. Muller, Elementary Functions:
Algorithms and Implementation, the chapter on range reduction: here it is exact, since
the period is a power of two in ``u``) and evaluates fdlibm's sin/cos kernels on ``[0, pi/4]`` at a
double-float argument.  Measured errors (``tests/test_random.py``, against long double
references on about a million points each, edges included): at most 0.81 ulp for
``log`` (NumPy's: 0.52) and 0.77 ulp for ``cos_2pi``.
"""
from __future__ import annotations

import numpy as np

import lazyjit.api.functions as F
from lazyjit.errors import LazyjitError
from lazyjit.api.tensor import Tensor

__all__ = ["log", "cos_2pi"]

_F64 = np.dtype(np.float64)

# fdlibm e_log.c: ln2 split (ln2_hi has 32 significant bits: k * ln2_hi is exact for
# |k| < 2**21) and the minimax coefficients of R(z) ~ log((1+s)/(1-s)) / s - 2, z = s*s
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
      2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
      1.479819860511658591e-01)
SQRT2 = 1.4142135623730951  # the double nearest sqrt(2) (just above it)

# fdlibm k_sin.c and k_cos.c: sin(x) ~ x + S1 x^3 + ... + S6 x^13 and
# cos(x) ~ 1 - x^2/2 + C1 x^4 + ... + C6 x^14 on [-pi/4, pi/4] (errors below 2**-58)
S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
     2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
     -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)

# pi/2 = PIO2_HI + PIO2_LO + ~6e-25: PIO2_HI (glibc's mp1) has 26 significant bits, so
# its product with a number of at most 26 bits is exact (Dekker 1971)
PIO2_HI = float.fromhex("0x1.921fb58p+0")
PIO2_LO = float.fromhex("-0x1.dde973dcb3b3ap-27")
_VELTKAMP = 2.0 ** 27 + 1  # splits a double into two halves of at most 26 bits each


def _f64(x, where: str) -> Tensor:
    x = F.asarray(x)
    if x.dtype != _F64:
        raise LazyjitError(f"exactmath.{where}: x must be float64, not {x.dtype}")
    return x


def _normalize(x: Tensor, min_exponent: int, max_exponent: int) -> tuple[Tensor, Tensor]:
    """``(m, e)``, ``x = m * 2**e`` with ``m`` in ``[1, 2)`` and ``e`` an integer (float64),
    for ``x`` in ``[2**min_exponent, 2**(max_exponent + 1))``: a binary search on the
    exponent, each step a multiplication by a power of two (exact).  (Selected with
    ``where``: on the ``cpu`` backend, where the Philox loop of a draw is not
    vectorized, its branches measured faster than arithmetic selection.)"""
    e = None

    def step(cond, s):  # x *= 2**-s, e += s where cond
        nonlocal x, e
        x = F.where(cond, x * 2.0 ** -s, x)
        inc = F.where(cond, float(s), 0.0)
        e = inc if e is None else e + inc

    s = 1  # from above, before the step of size s: x < 2**(2s)
    while 2 * s < max_exponent + 1:
        s *= 2
    while max_exponent >= 1 and s >= 1:
        step(x >= 2.0 ** s, s)  # after: x < 2**s
        s //= 2
    s = 1  # from below, before the step of size s: x >= 2**-(2s - 1)
    while 2 * s - 1 < -min_exponent:
        s *= 2
    while min_exponent <= -1 and s >= 1:
        step(x < 2.0 ** (1 - s), -s)  # after: x >= 2**-(s - 1)
        s //= 2
    return x, (e if e is not None else F.zeros_like(x))


def log(x, min_exponent: int = -1022, max_exponent: int = 1023) -> Tensor:
    """Natural logarithm of float64 ``x``, the same bits on every backend.

    Parameters
    ----------
    x : float64 tensor (any shape) with every value in ``[2**min_exponent,
        2**(max_exponent + 1))``: positive, finite, normal.  Outside that range (0,
        negatives, subnormals, inf, nan, or values beyond the bounds given) the result
        is meaningless.
    min_exponent, max_exponent : the range of exponents the reduction handles; each
        power of two of range costs about 4 operations per element (``-53, 0`` for the
        uniforms of :meth:`lazyjit.random.RandomStream.normal`: 6 steps).

    Returns
    -------
    A float64 tensor of ``x``'s shape; error below 1 ulp (measured: see the module).
    fdlibm's ``__ieee754_log`` (Cody-Waite reduction, minimax series of ``atanh``) with
    the exponent found by exact scalings instead of bit manipulation.

    Raises
    ------
    LazyjitError
        If ``x`` is not float64, or the bounds are not ints with ``min <= 0 <= max``.
    """
    x = _f64(x, "log")
    if not (isinstance(min_exponent, int) and isinstance(max_exponent, int)
            and -1022 <= min_exponent <= 0 <= max_exponent <= 1023):
        raise LazyjitError(f"exactmath.log: need ints -1022 <= min_exponent <= 0 <= "
                           f"max_exponent <= 1023, got {min_exponent}, {max_exponent}")
    m, k = _normalize(x, min_exponent, max_exponent)
    big = m >= SQRT2  # m in [sqrt2/2, sqrt2): f = m - 1 in [-0.29, 0.41], exact
    m = F.where(big, m * 0.5, m)
    k = k + F.where(big, 1.0, 0.0)
    f = m - 1.0
    s = f / (f + 2.0)
    z = s * s
    w = z * z
    t1 = w * (LG[1] + w * (LG[3] + w * LG[5]))
    t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])))
    r = t2 + t1
    hfsq = f * f * 0.5
    # log(1 + f) = f - hfsq + s (hfsq + R), with k ln2 added as hi and lo parts
    return k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)


def _sin_kernel(x: Tensor, y: Tensor) -> Tensor:
    """sin(x + y) for ``|x| <= pi/4``, ``y`` the tail of ``x`` (fdlibm ``__kernel_sin``)."""
    z = x * x
    w = z * z
    r = (S[1] + z * (S[2] + z * S[3])) + z * w * (S[4] + z * S[5])
    v = z * x
    return x - ((z * (y * 0.5 - v * r) - y) - v * S[0])


def _cos_kernel(x: Tensor, y: Tensor) -> Tensor:
    """cos(x + y) for ``|x| <= pi/4``, ``y`` the tail of ``x`` (fdlibm ``__kernel_cos``)."""
    z = x * x
    w = z * z
    r = z * (C[0] + z * (C[1] + z * C[2])) + w * w * (C[3] + z * (C[4] + z * C[5]))
    hz = z * 0.5
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


def _times_pio2(r: Tensor) -> tuple[Tensor, Tensor]:
    """``(hi, lo)`` with ``hi + lo = (pi/2) r`` to about 2**-100 relative, ``|lo| <=
    ulp(hi) / 2``, for ``r`` in ``[0, 1/2]``: Veltkamp's split of ``r`` into two halves of
    at most 26 significant bits makes both products with ``PIO2_HI`` exact, and their
    sum is a Knuth two-sum (exact); only the tiny ``r * PIO2_LO`` rounds."""
    c = r * _VELTKAMP
    r_hi = c - (c - r)
    r_lo = r - r_hi
    a, b = r_hi * PIO2_HI, r_lo * PIO2_HI
    hi = a + b
    bb = hi - a
    lo = ((a - (hi - bb)) + (b - bb)) + r * PIO2_LO
    top = hi + lo  # renormalized (fast two-sum: |lo| is far below |hi|)
    return top, lo - (top - hi)


def cos_2pi(u) -> Tensor:
    """``cos(2 pi u)`` of float64 ``u``, the same bits on every backend.

    Parameters
    ----------
    u : float64 tensor (any shape) of finite values with ``|4u| < 2**53`` (in
        particular any value of ``[0, 1]``).

    Returns
    -------
    A float64 tensor of ``u``'s shape; error below 1 ulp (measured against a long
    double reference: see the module).  ``t = 4u`` is exact; its quadrant ``q =
    floor(t) mod 4`` and fraction ``r = t - floor(t)`` (or ``1 - r`` above 1/2, the
    complementary angle) are exact, so the only rounding is in ``(pi/2) r`` (kept as a
    double-float) and in fdlibm's kernels on ``[0, pi/4]``.  Exact at multiples of
    1/4 (``cos(pi/2) = 0`` exactly, where ``np.cos(2 * np.pi * 0.25)`` is 6e-17).

    Raises
    ------
    LazyjitError
        If ``u`` is not float64.
    """
    u = _f64(u, "cos_2pi")
    t = u * 4.0
    n = F.floor(t)
    r = t - n
    q = n - F.floor(n * 0.25) * 4.0  # quadrant 0..3 (exact: n is an integer)
    flip = r > 0.5  # cos((pi/2)(q + r)) with r' = 1 - r: the angle (pi/2)(q + 1) - x
    r = F.where(flip, 1.0 - r, r)
    q = F.where(flip, q + 1.0, q)  # 0..4
    hi, lo = _times_pio2(r)  # x = (pi/2) r in [0, pi/4]
    odd = (q == 1.0) | (q == 3.0)
    value = F.where(odd, _sin_kernel(hi, lo), _cos_kernel(hi, lo))
    # cos(q pi/2 + x) = cos x, -sin x, -cos x, sin x for q = 0..3;
    # cos(q pi/2 - x) = cos x,  sin x, -cos x, -sin x
    neg = (q == 2.0) | ((q == 1.0) & ~flip) | ((q == 3.0) & flip)
    return F.where(neg, -value, value)
