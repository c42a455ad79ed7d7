"""More of NumPy's elementwise functions: inverse trigonometric and hyperbolic functions,
logarithms and exponentials in bases 2 and 10, rounding, and the floating-point tests
and manipulations (``copysign``, ``fmod``, ``logaddexp``, ``isfinite``, ``nan_to_num``),
``square``, ``reciprocal`` and the ``**`` operator's special exponents.

Each is one elementwise primitive (:mod:`lazyjit.ops.elementwise`, with its derivative
and its conventions where a derivative is infinite) or a composite of primitives, so it
fuses, runs on every backend and differentiates in both modes.  Semantics and dtypes are
NumPy's ufuncs' (integer and bool inputs of float functions are promoted as NumPy
promotes them); the Array API standard's names (``asin``, ``atan2``, ...) are aliases.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.api.core import (_binary, _unary, asarray, astype, elementwise, floor_divide, invert,
                              isinf, isnan, remainder, sin, sqrt, _snapshot,
                              stop_gradient, where, zeros_like)
from lazyjit.api.tensor import Tensor
from lazyjit.api.weak import WeakScalar
from lazyjit.errors import op_error, site_lines
from lazyjit.trace.dims import Dim
from lazyjit.ops import apply
from lazyjit.trace.values import host

arcsin = _unary("arcsin")
arccos = _unary("arccos")
arctan = _unary("arctan")
sinh = _unary("sinh")
cosh = _unary("cosh")
arcsinh = _unary("arcsinh")
arccosh = _unary("arccosh")
arctanh = _unary("arctanh")
log2 = _unary("log2")
log10 = _unary("log10")
exp2 = _unary("exp2")
cbrt = _unary("cbrt")
rint = _unary("rint")
trunc = _unary("trunc")
signbit = _unary("signbit")
arctan2 = _binary("arctan2")
hypot = _binary("hypot")
copysign = _binary("copysign")
fmod = _binary("fmod")
logaddexp = _binary("logaddexp")

arcsin.__doc__ = ("Inverse sine, as ``np.arcsin``: NaN outside [-1, 1]; the derivative "
                  "``1 / sqrt(1 - x**2)`` is taken as 0 for ``|x| >= 1``.")
arccos.__doc__ = ("Inverse cosine, as ``np.arccos``: NaN outside [-1, 1]; the derivative is "
                  "taken as 0 for ``|x| >= 1``.")
arccosh.__doc__ = ("Inverse hyperbolic cosine, as ``np.arccosh``: NaN below 1; the "
                   "derivative is taken as 0 for ``x <= 1``.")
arctanh.__doc__ = ("Inverse hyperbolic tangent, as ``np.arctanh``: +-inf at +-1, NaN "
                   "beyond; the derivative is taken as 0 for ``|x| >= 1``.")
cbrt.__doc__ = "Real cube root, as ``np.cbrt`` (negative for negative x); derivative 0 at 0."
rint.__doc__ = ("Round to the nearest integer, halves to even, as ``np.rint`` (integers and "
                "bools unchanged); derivative 0.")
trunc.__doc__ = "Round toward zero, as ``np.trunc`` (integers unchanged); derivative 0."
signbit.__doc__ = ("Whether the sign bit is set, as ``np.signbit``: a bool tensor, True for "
                   "-0.0 and negative NaNs too.")
arctan2.__doc__ = ("``arctan(a / b)`` in the quadrant of the point ``(b, a)``, as "
                   "``np.arctan2`` (signed zeros and infinities as C's ``atan2``); the "
                   "derivative is taken as 0 at ``a == b == 0``.")
hypot.__doc__ = ("``sqrt(a**2 + b**2)`` without overflow, as ``np.hypot``; the derivative is "
                 "taken as 0 at ``a == b == 0``.")
copysign.__doc__ = ("The magnitude of ``a`` with the sign of ``b``, as ``np.copysign`` (ints "
                    "promote to float); ``d/da = sign(a) * (the sign of b)``, 0 at "
                    "``a == 0``; ``d/db = 0``.")
fmod.__doc__ = ("C's remainder of ``a / b``, with the sign of ``a`` (``np.fmod``, unlike "
                "``%``); integer division by 0 gives 0, float gives NaN.")
logaddexp.__doc__ = ("``log(exp(a) + exp(b))`` without overflow or underflow, as "
                     "``np.logaddexp`` (equal infinities give that infinity); the "
                     "derivative is taken as 0 where the result is not finite.")

left_shift = _binary("left_shift")
right_shift = _binary("right_shift")
left_shift.__doc__ = ("``a << b`` for integers, as ``np.left_shift``: 0 when ``b`` is the bit "
                      "width or more (or negative); bits shifted out are lost.")
right_shift.__doc__ = ("``a >> b`` for integers (arithmetic: the sign kept), as "
                       "``np.right_shift``: 0, or -1 for a negative ``a``, when ``b`` is the "
                       "bit width or more (or negative).")

# the Array API standard's names (NumPy 2 has them too)
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
asinh, acosh, atanh = arcsinh, arccosh, arctanh
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
bitwise_invert = bitwise_not = invert


def positive(x) -> Tensor:
    """``+x``: ``x`` itself (tensors are immutable), as ``np.positive``; bool is a
    ``TypeError`` as in NumPy."""
    x = asarray(x)
    if x.dtype == np.bool_:
        raise op_error("positive", "the unary + of a bool tensor is not supported (NumPy "
                       "raises too)", (x.node,), cls=TypeError)
    return _snapshot(x)


def conj(x) -> Tensor:
    """The complex conjugate, as ``np.conj``: same shape and dtype (int8 for bools, as
    NumPy's loops); ``x`` itself for real tensors.  Its cotangent is the conjugate of
    the output's (JAX's convention)."""
    x = asarray(x)
    return astype(x, np.int8) if x.dtype == np.bool_ else conj_method(x)


def conj_method(x: Tensor) -> Tensor:
    """``x.conj()``: as :func:`conj`, but a bool tensor stays bool (``ndarray.conj``)."""
    return elementwise("conj", x) if x.dtype.kind == "c" else _snapshot(x)


def real(x) -> Tensor:
    """The real part, as ``np.real``: float32 of complex64, float64 of complex128; ``x``
    itself for real tensors."""
    x = asarray(x)
    return elementwise("real", x) if x.dtype.kind == "c" else _snapshot(x)


def imag(x) -> Tensor:
    """The imaginary part, as ``np.imag``: float32 of complex64, float64 of complex128;
    zeros of ``x``'s shape and dtype for real tensors.  Of ``L(imag(z))``, the cotangent
    of ``z`` is ``-1j * dL`` (JAX's convention: ``dL/dx - 1j * dL/dy``)."""
    x = asarray(x)
    return elementwise("imag", x) if x.dtype.kind == "c" else zeros_like(x)


def angle(z, deg: bool = False) -> Tensor:
    """The argument of each element, ``arctan2(imag(z), real(z))`` in ``(-pi, pi]``, as
    ``np.angle`` (in degrees with ``deg=True``); real: 0, or pi for negative values (in
    ``arctan2``'s dtype for integers and bools, as NumPy: float16 for int8 and bool,
    float32 for int16).  Derivatives as ``arctan2``'s (0 at the origin)."""
    z = asarray(z)
    if z.dtype.kind not in "fc":
        z = z.astype(_loop_dtype(np.arctan2, 0, z))
    a = arctan2(imag(z), real(z))
    return a * (180.0 / np.pi) if deg else a


conjugate = conj


def isfinite(x) -> Tensor:
    """Whether each element is neither infinite nor NaN, as ``np.isfinite``: a bool tensor
    of ``x``'s shape (True for every integer and bool)."""
    x = asarray(x)
    return ~(isnan(x) | isinf(x))


def nan_to_num(x, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by
    default the largest and the most negative finite value of ``x``'s dtype), as
    ``np.nan_to_num``; integer and bool tensors are returned unchanged.  The derivative
    is 1 where ``x`` is finite, 0 where it was replaced.

    Raises
    ------
    LazyjitError
        ``copy=False``: tensors are immutable, so there is nothing to modify in place.
    """
    if not copy:
        raise op_error("nan_to_num", "copy=False asks to modify the input in place; lazyjit "
                       "tensors are immutable: call nan_to_num(x) and use its result")
    x = asarray(x)
    if x.dtype.kind == "c":  # each part on its own, as NumPy
        parts = [nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (real(x), imag(x))]
        return parts[0] + parts[1] * 1j
    if x.dtype.kind != "f":
        return x
    info = np.finfo(x.dtype)
    with np.errstate(over="ignore"):  # (a replacement beyond the dtype's range: inf)
        hi, lo = (asarray(np.asarray(default if v is None else v, x.dtype))
                  for v, default in ((posinf, info.max), (neginf, info.min)))
    out = where(isnan(x), nan, x)
    return where(isinf(x), where(x > 0, hi, lo), out)


def round(x, decimals: int = 0) -> Tensor:  # noqa: A001 - NumPy's name
    """Round to ``decimals`` decimal places, halves to even, as ``np.round``: floats as
    NumPy computes them (``rint(x * 10**decimals) / 10**decimals``, so the result has
    that product's rounding), integers unchanged for ``decimals >= 0`` and rounded to a
    multiple of ``10**-decimals`` (halves to even) otherwise, exactly (NumPy goes
    through float64, so int64 values above 2**53 can differ), a result that does not
    fit the dtype wrapping as NumPy's does; derivative 0.

    Raises
    ------
    LazyjitError
        ``decimals`` is not an int.
    TypeError
        A bool tensor and ``decimals != 0`` (NumPy cannot either).
    """
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise op_error("round", f"decimals must be an int, not {type(decimals).__name__}")
    x = asarray(x)
    decimals = int(decimals)
    if x.dtype.kind == "c":
        raise op_error("round", "complex tensors are not supported yet", (x.node,),
                       cls=TypeError)
    if x.dtype == np.bool_:  # (NumPy rounds bools as float16, to 0 decimals only)
        if decimals:
            raise op_error("round", f"cannot round a bool tensor to {decimals} decimals "
                           "(as NumPy): cast it first", (x.node,), cls=TypeError)
        x = x.astype(np.float16)
    if x.dtype.kind == "f":
        if decimals == 0:
            return rint(x)
        if decimals > 0:
            scale = _power_of_ten(decimals)
            return rint(x * scale) / scale
        scale = _power_of_ten(-decimals)
        return rint(x / scale) * scale
    if decimals >= 0:
        return x
    m = 10 ** -decimals
    wide = np.uint64 if x.dtype == np.uint64 else np.int64
    if m > np.iinfo(wide).max:
        return x * 0
    w = x.astype(wide)  # (m may not fit x's dtype; the result wraps into it, as NumPy's)
    q, r = w // m, w % m  # w = q * m + r, 0 <= r < m; r against m - r (2 * r may overflow)
    up = (r > m - r) | ((r == m - r) & (q % 2 == 1))
    return ((q + up.astype(wide)) * m).astype(x.dtype)


around = round


def _power_of_ten(n: int) -> float:
    """``10**n`` (``n >= 1``) as NumPy's ``round`` computes it: a table to ``1e8``, then
    products by 10 (so ``1e23`` is NumPy's ``1.0000000000000001e23``, and past ``1e308``
    infinity, a NaN result, where Python's ``10.0 ** n`` raises)."""
    if n < 9:
        return 10.0 ** n
    out = 1e9
    for _ in range(n - 9):
        out *= 10.0
        if out == math.inf:
            break
    return out


# ---- NumPy's ufuncs that are composites of the above --------------------------------------

def _loop_dtype(ufunc: np.ufunc, *operands) -> np.dtype:
    """The dtype of ``ufunc``'s result for these operands (tensors by their dtype, Python
    scalars as NumPy takes them, weakly, traced ones too): NumPy's choice of loop, asked
    of NumPy itself on empty arrays."""
    probes = [np.empty(0, x.dtype) if isinstance(x, Tensor) else
              x.weak if isinstance(x, WeakScalar) else x for x in operands]
    out = ufunc(*probes)
    return (out[0] if isinstance(out, tuple) else out).dtype


def _in_loop_dtype(ufunc: np.ufunc, *operands) -> list[Tensor]:
    """The operands as tensors of the dtype ``ufunc`` computes in (NumPy's loop)."""
    xs = [asarray(x) if isinstance(x, Tensor) else x for x in operands]
    dt = _loop_dtype(ufunc, *xs)
    return [asarray(x, dtype=dt) if not isinstance(x, Tensor) else
            x if x.dtype == dt else x.astype(dt) for x in xs]


def deg2rad(x) -> Tensor:
    """Degrees to radians, ``x * (pi / 180)``, as ``np.deg2rad`` (and ``np.radians``):
    float results, ints and bools promoted as NumPy's loops promote them; the constant
    rounded as NumPy's (float32's for float32 and float16, computed in float32)."""
    (x,) = _in_loop_dtype(np.deg2rad, x)
    return _times(x, np.pi, 180.0)


def rad2deg(x) -> Tensor:
    """Radians to degrees, ``x * (180 / pi)``, as ``np.rad2deg`` (and ``np.degrees``)."""
    (x,) = _in_loop_dtype(np.rad2deg, x)
    return _times(x, 180.0, np.pi)


def _times(x: Tensor, num: float, den: float) -> Tensor:
    """``x * (num / den)`` with NumPy's constant: ``num / den`` in double for float64,
    in single (and the product in single, then rounded) for float32 and float16."""
    if x.dtype == np.float64:
        return x * (num / den)
    k = np.float32(num) / np.float32(den)
    return astype(astype(x, np.float32) * k, x.dtype)


radians, degrees = deg2rad, rad2deg


def fabs(x) -> Tensor:
    """The absolute value as a float, as ``np.fabs`` (ints and bools promoted to float;
    complex is a ``TypeError``, as in NumPy: use ``abs``)."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise op_error("fabs", "complex tensors are not supported (as in NumPy): use abs",
                       (x.node,), cls=TypeError)
    (x,) = _in_loop_dtype(np.fabs, x)
    return abs(x)


def fmax(a, b) -> Tensor:
    """The elementwise maximum ignoring NaN (NaN only where both are), as ``np.fmax``;
    the derivative goes to the operand taken (to ``a`` where they are equal)."""
    return where(isnan(b) | (asarray(a) >= b), a, b)


def fmin(a, b) -> Tensor:
    """The elementwise minimum ignoring NaN (NaN only where both are), as ``np.fmin``;
    the derivative goes to the operand taken (to ``a`` where they are equal)."""
    return where(isnan(b) | (asarray(a) <= b), a, b)


def fix(x) -> Tensor:
    """Round toward zero, as ``np.fix`` (``trunc``: -0.5 gives -0.0; integers unchanged);
    derivative 0."""
    return trunc(x)


def float_power(a, b) -> Tensor:
    """``a ** b`` computed in float64 (complex128 for complex operands), as
    ``np.float_power``, whatever the operands' precision."""
    a, b = _in_loop_dtype(np.float_power, a, b)
    return power(a, b)


def heaviside(x, h0) -> Tensor:
    """The Heaviside step function, as ``np.heaviside``: 0 where ``x < 0``, ``h0`` where
    ``x == 0``, 1 where ``x > 0``, NaN where ``x`` is NaN (float results); the derivative
    is 0 in ``x`` and goes to ``h0`` where ``x == 0``."""
    x, h0 = _in_loop_dtype(np.heaviside, x, h0)
    step = where(x < 0, 0, where(x > 0, 1, h0))
    return where(isnan(x), np.nan, step)


def logaddexp2(a, b) -> Tensor:
    """``log2(2**a + 2**b)`` without overflow or underflow, as ``np.logaddexp2``: computed
    as ``logaddexp(a ln 2, b ln 2) / ln 2`` (within an ulp or two of NumPy's; equal
    infinities give that infinity); derivatives as :func:`logaddexp`'s."""
    a, b = _in_loop_dtype(np.logaddexp2, a, b)
    if a.dtype == np.float16:  # (NumPy's float16 loop computes in float32, rounding once)
        return (logaddexp(a.astype(np.float32) * _LN2, b.astype(np.float32) * _LN2)
                / _LN2).astype(np.float16)
    return logaddexp(a * _LN2, b * _LN2) / _LN2


_LN2 = math.log(2.0)


def sinc(x) -> Tensor:
    """The normalized sinc function ``sin(pi x) / (pi x)``, 1 at 0, as ``np.sinc`` (float
    results, ints and bools as float64).  At 0 it is the Taylor polynomial ``1 - y**2/6
    + y**4/120 - y**6/5040`` of ``y = pi x``, so derivatives there are right to order 6
    (NumPy's formula, ``sin(eps) / eps``, would make them all 0)."""
    y = np.pi * asarray(x)
    if y.dtype.kind not in "fc":
        y = y.astype(np.float64)
    zero = y == 0
    ys = where(zero, 1, y)
    y2 = y * y
    taylor = 1 - y2 / 6 * (1 - y2 / 20 * (1 - y2 / 42))
    return where(zero, taylor, sin(ys) / ys)


def divmod(a, b) -> tuple:  # noqa: A001 - NumPy's name
    """``(a // b, a % b)``, as ``np.divmod`` (floor division and the remainder with the
    sign of ``b``)."""
    return floor_divide(a, b), remainder(a, b)


def modf(x) -> tuple:
    """The fractional and integral parts, each with ``x``'s sign, as ``np.modf``: ``(x -
    trunc(x), trunc(x))`` as floats, ``(±0, ±inf)`` for infinities; derivatives 1 and 0."""
    (x,) = _in_loop_dtype(np.modf, x)
    whole = trunc(x)
    frac = where(isinf(x), 0, x - whole)
    # (the value takes x's sign, -0.0 for -2.0; the derivative is frac's own, 1, also at
    # 0, where copysign's is taken as 0; a zero subtracted keeps the zero's sign)
    return stop_gradient(copysign(frac, x)) - (stop_gradient(frac) - frac), whole


def isposinf(x) -> Tensor:
    """Whether each element is +inf, as ``np.isposinf`` (complex is a ``TypeError``, as
    in NumPy: the sign of a complex infinity is ambiguous)."""
    x = _real_only(x, "isposinf")
    return isinf(x) & ~signbit(x) if x.dtype.kind == "f" else zeros_like(x, dtype=np.bool_)


def isneginf(x) -> Tensor:
    """Whether each element is -inf, as ``np.isneginf`` (complex: ``TypeError``)."""
    x = _real_only(x, "isneginf")
    return isinf(x) & signbit(x) if x.dtype.kind == "f" else zeros_like(x, dtype=np.bool_)


def _real_only(x, name: str) -> Tensor:
    x = asarray(x)
    if x.dtype.kind == "c":
        raise op_error(name, "This operation is not supported for complex values because "
                       "it would be ambiguous (as in NumPy)", (x.node,), cls=TypeError)
    return x


def iscomplex(x) -> Tensor:
    """Whether each element has a nonzero imaginary part, as ``np.iscomplex`` (all False
    for real tensors)."""
    x = asarray(x)
    return imag(x) != 0 if x.dtype.kind == "c" else zeros_like(x, dtype=np.bool_)


def isreal(x) -> Tensor:
    """Whether each element's imaginary part is zero, as ``np.isreal`` (all True for
    real tensors)."""
    return ~iscomplex(x)


def iscomplexobj(x) -> bool:
    """Whether ``x``'s dtype is complex (a Python bool, from the dtype alone), as
    ``np.iscomplexobj``."""
    return asarray(x).dtype.kind == "c"


def isrealobj(x) -> bool:
    """Whether ``x``'s dtype is not complex (a Python bool), as ``np.isrealobj``."""
    return not iscomplexobj(x)


_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def power(a, b) -> Tensor:
    """``a ** b`` elementwise with NumPy broadcasting and type promotion (``np.power``).
    A tensor exponent is C's ``pow`` on every backend: NumPy takes ``sqrt`` for a
    stride-0 exponent of 0.5, so there ``(-0.0, -inf) ** 0.5`` give ``(-0.0, nan)``
    where this gives ``(0.0, inf)`` (a Python 0.5, and ``x ** 0.5``, are NumPy's; a
    Python number traced by ``lj.jit``, whose value is known only at each call, is a
    tensor exponent).

    Raises
    ------
    ValueError
        For an integer result with a negative exponent, as NumPy: at once (a
        ``LazyjitError`` at this line) for a Python or NumPy integer exponent or a
        computed tensor, else when the value is computed (a run-time check).
    """
    if type(a) is Tensor and type(b) is float and b == 0.5 and a.dtype.kind == "f":
        return sqrt(a)  # (NumPy's float loop with this scalar: sqrt(-0.) is -0., not 0.)
    out = elementwise("pow", a, b)
    if out.dtype.kind not in "iu":
        return out
    if isinstance(b, WeakScalar):  # a traced Python int: checked at each computation
        b = b.tensor
    if type(b) is Dim:  # a size: never negative
        return out
    if not isinstance(b, Tensor):
        if np.any(np.asarray(b) < 0):
            raise op_error("pow", _NEGATIVE_POWER, (out.node,))
        return out
    if b.dtype.kind != "i":
        return out
    if b.node.buffer is not None and (host(b.node.buffer) < 0).any():  # known now: say so now
        raise op_error("pow", _NEGATIVE_POWER, (b.node,))
    # and at each computation (a shared variable's value may change between calls)
    site = site_lines(out.node.site)
    where = f" (the power was taken at {site[0][0]}:{site[0][1]})" if site else ""
    return Tensor(apply("check", (out.node, (b >= 0).node), _NEGATIVE_POWER + where))


pow = power  # noqa: A001 - the Array API's name


def power_operator(a, b) -> Tensor:
    """``a ** b`` for a tensor ``a``: :func:`power`, except that a float ``a`` to a
    Python number ``b`` of 2 or 0.5 is :func:`square` or :func:`sqrt`, a complex or bool
    ``a`` to the int 2 :func:`square`, a complex one to the float 0.5 or the int -1
    :func:`sqrt` or :func:`reciprocal`, as NumPy 2's ``ndarray.__pow__`` does (values
    unlike ``np.power``'s: complex products, ``(-0.) ** 0.5`` is -0.; bool: int8).  A
    Python number traced by ``lj.jit`` is :func:`power`'s (a bool ``a`` to a traced int
    raises ``LazyjitError``: NumPy's dtype depends on the value, int8 for 2)."""
    if isinstance(b, WeakScalar) and b.py is int and type(a) is Tensor and a.dtype.kind == "b":
        raise op_error("**", f"bool ** {b.origin} (a traced Python int): NumPy's dtype "
                       "depends on its value (int8 for 2, else int64); pass it in "
                       "static_argnums, or cast the base first", (a.node,))
    if type(a) is Tensor and type(b) in (int, float) and a.dtype.kind in "fcb":
        # (complex, bool: only the int exponents 2 and -1 take the fast path, as NumPy 2)
        if b == 2 and (type(b) is int or a.dtype.kind == "f"):
            return square(a)
        if b == 0.5 and a.dtype.kind != "b":
            return sqrt(a)
        if b == -1 and type(b) is int and a.dtype.kind == "c":
            return reciprocal(a)
    return power(a, b)


def square(x) -> Tensor:
    """``x * x``, as ``np.square`` (which has no bool loop: bool gives int8)."""
    x = asarray(x)
    if x.dtype == np.bool_:
        x = astype(x, np.int8)
    return x * x


def reciprocal(x) -> Tensor:
    """``1 / x``; integers give float64 (NumPy's integer reciprocal, which truncates, is
    not provided); complex ``x`` by NumPy's own reciprocal loop (of ``0j``, NaN in both
    parts, where ``1 / 0j`` has an infinite real part)."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return Tensor(apply("reciprocal", (x.node,)))
    return 1.0 / x
