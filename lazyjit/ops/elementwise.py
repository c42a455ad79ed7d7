"""Elementwise primitives: NumPy ufunc semantics, a C scalar expression, a VJP and a JVP.

Operands of an elementwise primitive always have the same shape (the API inserts
explicit ``expand`` nodes for broadcasting) and the same dtype (the API inserts ``cast``
nodes, following NumPy's promotion with weak Python scalars: ``float16 * 2.0`` stays
float16, ``int8 + float16`` is float16, ``np.exp`` of bool is float16).  float16 ops
compute in float32 and round to float16, as NumPy's float16 loops do.  Integer helpers
(``lj_floordiv_*`` etc.) and the stable ``lj_sigmoid``/``lj_softplus`` live in
``native/lazyjit_rt.h``.

The JVP of every elementwise op is derived from its VJP (:func:`diagonal_jvp`), so both
modes share one derivative formula and one set of conventions at the edges, all finite:

* where a derivative is infinite or not real, it is taken as 0: ``sqrt'(x)`` for
  ``x <= 0``; ``d(a ** b)/da`` at ``a == 0, b < 1`` and at ``a < 0`` with a non-integer
  ``b``; ``d(a ** b)/db`` for ``a <= 0``.  So ``sqrt(sum(x ** 2))`` has the subgradient
  0 at the origin, and ``where(x > 0, sqrt(x), 0)`` has derivative 0 (not NaN) for
  ``x <= 0``; where the value itself is NaN, the result is NaN anyway;
* ``abs'(0) == 0``, ``relu'(0) == 0`` (valid subgradients);
* ``maximum(a, b)`` (``minimum``) at ``a == b`` sends the whole derivative to ``a``, so
  ``maximum(x, x)`` has derivative 1, not 2;
* ``where(c, a, b)`` gives exactly 0 (never ``0 * nan``) to the unselected branch.
  The rules above guard their own unselected branches with the double-``where`` trick
  (the denominator is replaced where it would be 0), so differentiating them again
  stays finite too.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.ops.registry import F
from lazyjit.ops.registry import OpDef, diagonal_jvp, register


def _as_float(x):
    """``x`` promoted as NumPy's float ufuncs (``np.exp``) promote it: int32 to float64,
    int16 to float32, bool and 8-bit ints to float16."""
    return x if x.dtype.kind == "f" else x.astype(np.result_type(x.dtype, np.float16))


_ERF: list = []  # the vectorized erf, found at its first use (see _erf_impl)


def _erf_impl():
    """SciPy's ``erf`` when SciPy is installed, else ``math.erf`` vectorized (the same
    values to 1 ulp).  Imported at the first use, not with lazyjit: importing
    ``scipy.special`` took 170 ms, half of ``import lazyjit``, and loaded SciPy's own
    OpenBLAS (a second thread pool) into every process."""
    if not _ERF:
        try:
            from scipy.special import erf  # noqa: PLC0415 (see the docstring)
        except ImportError:  # pragma: no cover - depends on the environment
            vec = np.vectorize(math.erf, otypes=[np.float64])

            def erf(x):
                return vec(x).astype(x.dtype)
        _ERF.append(erf)
    return _ERF[0]


def _erf(x):
    x = _as_float(x)
    return _erf_impl()(x).astype(x.dtype, copy=False)


def _sigmoid(x):
    x = _as_float(x)
    e = np.exp(-np.abs(x))
    r = 1 / (1 + e)
    return np.where(x >= 0, r, e * r).astype(x.dtype)


def _softplus(x):
    x = _as_float(x)
    return (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))).astype(x.dtype)


def _fc(fn: str) -> dict:
    """The template of C's real function ``fn`` and of its complex form ``c<fn>``."""
    return {"*": fn + "{s}({0})", "c": "c" + fn + "{s}({0})"}


def _fn(fn: str, complex_form: str) -> dict:
    """The template of C's real function ``fn`` and of a complex form of lazyjit_rt.h's
    (NumPy's formula where C99 has none)."""
    return {"*": fn + "{s}({0})", "c": complex_form}


def _rules(vjp):
    return {"vjp": vjp, "jvp": diagonal_jvp(vjp) if vjp is not None else None}


def _unary(name, ref, c, vjp=None, promote=True, doc=""):
    return register(OpDef(name, "elementwise", lambda x, arg: ref(x), c=c, **_rules(vjp),
                          float_only=promote, doc=doc))


def _binary(name, ref, c, vjp=None, promote=True, doc=""):
    return register(OpDef(name, "elementwise", lambda a, b, arg: ref(a, b), c=c,
                          **_rules(vjp), float_only=promote, doc=doc))


def _sqrt_vjp(g, out, x, arg):
    # sqrt'(x) = 0.5 / sqrt(x) for x > 0; 0 elsewhere (infinite at 0, not real below);
    # the division is guarded too, so that differentiating again stays finite
    pos = out > 0 if out.dtype.kind != "c" else out != 0  # (complex: holomorphic)
    return (g * F.where(pos, 0.5 / F.where(pos, out, 1.0), 0.0),)


SQRT_PI_2 = 2.0 / math.sqrt(math.pi)

# float functions; ints and bools are first cast to NumPy's result dtype
_unary("exp", np.exp, _fc("exp"), lambda g, out, x, arg: (g * out,))
_unary("log", np.log, _fc("log"), lambda g, out, x, arg: (g / x,))
_unary("log1p", np.log1p, _fn("log1p", "lj_clog1p{s}({0})"),
       lambda g, out, x, arg: (g / (x + 1),))
_unary("expm1", np.expm1, _fn("expm1", "lj_cexpm1{s}({0})"),
       lambda g, out, x, arg: (g * (out + 1),))
_unary("sqrt", np.sqrt, _fc("sqrt"), _sqrt_vjp, doc="derivative taken as 0 for x <= 0")
_unary("sin", np.sin, _fc("sin"), lambda g, out, x, arg: (g * F.cos(x),))
_unary("cos", np.cos, _fc("cos"), lambda g, out, x, arg: (-g * F.sin(x),))
_unary("tan", np.tan, _fc("tan"), lambda g, out, x, arg: (g * (out * out + 1),))
_unary("tanh", np.tanh, _fc("tanh"), lambda g, out, x, arg: (g * (1 - out * out),))
_unary("erf", _erf, "erf{s}({0})",
       lambda g, out, x, arg: (g * SQRT_PI_2 * F.exp(-(x * x)),))
_unary("sigmoid", _sigmoid, "lj_sigmoid{s}({0})",
       lambda g, out, x, arg: (g * out * (1 - out),), doc="1 / (1 + exp(-x)), stable")
_unary("softplus", _softplus, "lj_softplus{s}({0})",
       lambda g, out, x, arg: (g * F.sigmoid(x),), doc="log(1 + exp(x)), stable")


def _inside_unit(x):
    """``|x| < 1`` (where arcsin, arccos and arctanh have finite derivatives) and
    ``1 - x*x`` there, 1 elsewhere (the guarded denominator)."""
    inside = x * x < 1
    return inside, F.where(inside, 1 - x * x, 1.0)


def _arcsin_vjp(g, out, x, arg):
    if x.dtype.kind == "c":  # holomorphic (infinite at the branch points +-1)
        return (g / F.sqrt(1 - x * x),)
    inside, d = _inside_unit(x)
    return (F.where(inside, g / F.sqrt(d), 0.0),)


def _arccos_vjp(g, out, x, arg):
    if x.dtype.kind == "c":
        return (-g / F.sqrt(1 - x * x),)
    inside, d = _inside_unit(x)
    return (F.where(inside, -g / F.sqrt(d), 0.0),)


def _arctanh_vjp(g, out, x, arg):
    if x.dtype.kind == "c":
        return (g / (1 - x * x),)
    inside, d = _inside_unit(x)
    return (F.where(inside, g / d, 0.0),)


def _arccosh_vjp(g, out, x, arg):
    if x.dtype.kind == "c":  # (the principal branch: sqrt(x - 1) sqrt(x + 1))
        return (g / (F.sqrt(x - 1) * F.sqrt(x + 1)),)
    above = x > 1
    return (F.where(above, g / F.sqrt(F.where(above, (x - 1) * (x + 1), 1.0)), 0.0),)


def _cbrt_vjp(g, out, x, arg):
    nz = out != 0  # infinite at 0: taken as 0
    return (F.where(nz, g / (3 * F.where(nz, out * out, 1.0)), 0.0),)


LN2, LN10 = math.log(2.0), math.log(10.0)
_unary("arcsin", np.arcsin, _fc("asin"), _arcsin_vjp, doc="derivative taken as 0 for |x| >= 1")
_unary("arccos", np.arccos, _fc("acos"), _arccos_vjp, doc="derivative taken as 0 for |x| >= 1")
_unary("arctan", np.arctan, _fc("atan"), lambda g, out, x, arg: (g / (1 + x * x),))
_unary("sinh", np.sinh, _fc("sinh"), lambda g, out, x, arg: (g * F.cosh(x),))
_unary("cosh", np.cosh, _fc("cosh"), lambda g, out, x, arg: (g * F.sinh(x),))
_unary("arcsinh", np.arcsinh, _fc("asinh"),
       lambda g, out, x, arg: (g / F.sqrt(x * x + 1),))
_unary("arccosh", np.arccosh, _fc("acosh"), _arccosh_vjp, doc="derivative taken as 0 for x <= 1")
_unary("arctanh", np.arctanh, _fc("atanh"), _arctanh_vjp,
       doc="derivative taken as 0 for |x| >= 1")
_unary("log2", np.log2, _fn("log2", "lj_clogk{s}({0}, 1.442695040888963407359924681001892137)"),
       lambda g, out, x, arg: (g / (x * LN2),))
_unary("log10", np.log10, _fn("log10", "lj_clogk{s}({0}, 0.434294481903251827651128918916605082)"),
       lambda g, out, x, arg: (g / (x * LN10),))
_unary("exp2", np.exp2, _fn("exp2", "lj_cexp2{s}({0})"),
       lambda g, out, x, arg: (g * out * LN2,))
_unary("cbrt", np.cbrt, "cbrt{s}({0})", _cbrt_vjp, doc="derivative taken as 0 at 0")

_unary("reciprocal", np.reciprocal, {"*": "(1 / {0})", "c": "lj_crecip{s}({0})"},
       lambda g, out, x, arg: (-g * out * out,),
       doc="1 / x (NumPy's loop: of complex 0, NaN in both parts, where 1 / 0j has an "
           "infinite real part)")

# functions that keep integer dtypes
_unary("neg", np.negative, "(-{0})", lambda g, out, x, arg: (-g,))


def _abs_vjp(g, out, x, arg):
    if x.dtype.kind != "c":
        return (g * F.sign(x),)
    # |z| = hypot(re, im): the cotangent conj(z) / |z| (JAX's convention), 0 at 0
    nz = out != 0
    return (F.where(nz, g * F.conj(x) / F.where(nz, out, 1.0), 0.0),)


def _real_valued(vjp):
    """The JVP of an op from complex to real (abs, real, imag): Re(vjp(t)), the tangent's
    component along the real output (JAX's convention: a cotangent ``dL/dx - i dL/dy``);
    the diagonal JVP for real operands."""
    diag = diagonal_jvp(vjp)

    def jvp(ts, out, x, arg):
        t = diag(ts, out, x, arg)
        return F.real(t) if t is not None and x.dtype.kind == "c" else t
    return jvp


register(OpDef("abs", "elementwise", lambda x, arg: np.abs(x),
               c={"f": "fabs{s}({0})", "c": "lj_cabs{s}({0})", "i": "({0} < 0 ? -{0} : {0})",
                  "u": "{0}", "b": "{0}"}, vjp=_abs_vjp, jvp=_real_valued(_abs_vjp),
               doc="derivative sign(x): 0 at 0; of complex z, conj(z) / |z| (0 at 0)"))
register(OpDef("real", "elementwise", lambda x, arg: np.real(x), c={"c": "creal{s}({0})"},
               vjp=lambda g, out, x, arg: (g.astype(x.dtype),),
               jvp=lambda ts, out, x, arg: None if ts[0] is None else F.real(ts[0]),
               doc="the real part of a complex tensor"))
register(OpDef("imag", "elementwise", lambda x, arg: np.imag(x), c={"c": "cimag{s}({0})"},
               vjp=lambda g, out, x, arg: (g * (-1j),),
               jvp=lambda ts, out, x, arg: None if ts[0] is None else F.imag(ts[0]),
               doc="the imaginary part of a complex tensor (cotangent -i g)"))
register(OpDef("conj", "elementwise", lambda x, arg: np.conj(x), c={"c": "conj{s}({0})"},
               **_rules(lambda g, out, x, arg: (F.conj(g),)),
               doc="the complex conjugate (cotangent conj(g))"))
# (sign(-0.) is +0., as NumPy's; NaN stays NaN)
def _sign_vjp(g, out, x, arg):
    if x.dtype.kind != "c":
        return (None,)
    # z / |z| (not holomorphic): i conj(s) Im(g s) / |z| with s = z / |z| (no |z|^3 to
    # overflow or underflow), 0 at 0
    r = F.abs(x)
    nz = r != 0
    rs = F.where(nz, r, 1.0)
    s = x / rs
    return (F.where(nz, F.conj(s) * (1j * F.imag(g * s) / rs), 0.0),)


def _sign_jvp(ts, out, x, arg):
    if ts[0] is None or x.dtype.kind != "c":
        return None
    r = F.abs(x)
    nz = r != 0
    rs = F.where(nz, r, 1.0)
    s = x / rs
    return F.where(nz, s * (1j * F.imag(F.conj(s) * ts[0]) / rs), 0.0)


register(OpDef("sign", "elementwise", lambda x, arg: np.sign(x),
               c={"f": "({0} > 0 ? 1 : ({0} < 0 ? -1 : ({0} == 0 ? 0 : {0})))",
                  "i": "(({0} > 0) - ({0} < 0))", "u": "({0} > 0)", "c": "lj_csign{s}({0})"},
               vjp=_sign_vjp, jvp=_sign_jvp, float_only=True,
               doc="of complex z, z / |z| (NumPy 2), 0 at 0; derivative 0 for real x"))
_unary("floor", np.floor, {"f": "floor{s}({0})", "i": "{0}", "u": "{0}", "b": "{0}"},
       lambda g, out, x, arg: (None,))
_unary("ceil", np.ceil, {"f": "ceil{s}({0})", "i": "{0}", "u": "{0}", "b": "{0}"},
       lambda g, out, x, arg: (None,))
_unary("rint", np.rint, {"f": "rint{s}({0})", "i": "{0}", "u": "{0}", "b": "{0}"},
       lambda g, out, x, arg: (None,), doc="to the nearest integer, halves to even")
_unary("trunc", np.trunc, {"f": "trunc{s}({0})", "i": "{0}", "u": "{0}", "b": "{0}"},
       lambda g, out, x, arg: (None,))
_unary("signbit", np.signbit, {"f": "(signbit({0}) != 0)", "i": "({0} < 0)", "u": "0",
                               "b": "0"}, promote=False, doc="True where the sign bit is set "
                                                             "(-0.0 and negative NaN too)")
_unary("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)),
       {"f": "(({0} > 0 || {0} != {0}) ? {0} : 0)", "i": "({0} > 0 ? {0} : 0)",
        "u": "{0}", "b": "{0}"},
       # the mask from the output (out > 0 iff x > 0): the input may be freed after the
       # forward pass (or overwritten by it in place)
       lambda g, out, x, arg: (F.where(out > 0, g, F.zeros_like(g)),),
       doc="max(x, 0); derivative 0 at 0")
_unary("logical_not", np.logical_not, "(!{0})", promote=False)
_unary("invert", np.invert, {"b": "(!{0})", "i": "(~{0})", "u": "(({T})~{0})"})
_unary("isnan", np.isnan, {"f": "({0} != {0})", "c": "({0} != {0})", "i": "0", "u": "0",
                           "b": "0"}, promote=False)
_unary("isinf", np.isinf, {"f": "(isinf({0}) != 0)", "i": "0", "u": "0", "b": "0",
                           "c": "((isinf(creal{s}({0})) | isinf(cimag{s}({0}))) != 0)"},
       promote=False)


def _cast_vjp(g, out, x, arg):
    # (complex to real keeps the real part: the cotangent is g as complex; real to
    # complex, Re(g): both are astype, as JAX's convention has it)
    return (g.astype(x.dtype),) if x.dtype.kind in "fc" else (None,)


def _cast_jvp(ts, out, x, arg):
    return ts[0].astype(out.dtype) if out.dtype.kind in "fc" else None


def _cast(x, arg):
    """``x.astype(arg)``; complex to real keeps the real part, without NumPy's warning
    (to bool: nonzero, either part)."""
    if x.dtype.kind == "c" and np.dtype(arg).kind not in "cb":
        x = x.real
    return x.astype(arg)


register(OpDef("cast", "elementwise", _cast,
               dtype=lambda srcs, arg: np.dtype(arg),
               c={">b": "({0} != 0)", "*": "(({T}){0})"}, vjp=_cast_vjp, jvp=_cast_jvp))

# binary arithmetic
_binary("add", np.add, {"b": "({0} | {1})", "*": "({0} + {1})"},
        lambda g, out, a, b, arg: (g, g))
_binary("sub", np.subtract, "({0} - {1})", lambda g, out, a, b, arg: (g, -g))
_binary("mul", np.multiply, {"b": "({0} & {1})", "*": "({0} * {1})",
                            "c": "lj_cmul{s}({0}, {1})"},
        lambda g, out, a, b, arg: (g * b, g * a))
_binary("div", np.true_divide, {"*": "({0} / {1})", "c": "lj_cdiv{s}({0}, {1})"},
        lambda g, out, a, b, arg: (g / b, -g * out / b))
_binary("floordiv", np.floor_divide, "lj_floordiv_{n}({0}, {1})",
        lambda g, out, a, b, arg: (None, None))
_binary("mod", np.remainder, "lj_mod_{n}({0}, {1})",
        lambda g, out, a, b, arg: (g, -g * F.floor_divide(a, b)))


def _pow_vjp(g, out, a, b, arg):
    if a.dtype.kind == "c":  # holomorphic: b a**(b-1) and a**b log(a), 0 at a == 0
        nz = a != 0
        safe = F.where(nz, a, 1.0)
        return (F.where(nz, g * b * safe ** (b - 1), 0.0),
                F.where(nz, g * out * F.log(safe), 0.0))
    if a.dtype.kind != "f":
        return (None, None)
    # d/da = b * a**(b-1): 0 where b == 0, where a == 0 and b < 1 (infinite there) and
    # where a < 0 and b is not an integer (not real); the base is replaced by 1 at those
    # points, so that no branch computes inf or nan
    flat = (b == 0) | ((a == 0) & (b < 1)) | ((a < 0) & (b != F.floor(b)))
    da = F.where(flat, 0.0, b * F.where(flat, 1.0, a) ** (b - 1))
    # d/db = a**b * log(a) for a > 0; 0 where a <= 0 (log(a) not real)
    pos = a > 0
    db = F.where(pos, out, 0.0) * F.log(F.where(pos, a, 1.0))
    return (g * da, g * db)


def _pow_ref(a, b):
    """NumPy's power of real floats as C's ``pow`` (the compiled backends'): NumPy takes
    ``sqrt`` for an exponent of 0.5 of stride 0 (``-0.0 ** 0.5`` is -0.0 there, 0.0 in
    ``pow``), so the exponent is given in full."""
    if np.result_type(a, b).kind != "f":
        return np.power(a, b)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    flat = [np.array(np.broadcast_to(x, shape)).reshape(-1) for x in (a, b)]
    return np.power(*flat).reshape(shape)


_binary("pow", _pow_ref, {"f": "pow{s}({0}, {1})", "c": "lj_cpow{s}({0}, {1})",
                          "*": "lj_ipow_{n}({0}, {1})"}, _pow_vjp,
        doc="d/da taken as 0 at a == 0, b < 1 and at a < 0, b not integer; d/db as 0 "
            "for a <= 0")
def _picked_vjp(g, take_a):
    """The cotangents of a selection between ``a`` and ``b`` (``maximum``, ``minimum``):
    ``g`` to the operand whose value was taken (``take_a``: a's), 0 to the other."""
    zero = F.zeros_like(g)
    return (F.where(take_a, g, zero), F.where(take_a, zero, g))


_binary("maximum", np.maximum, {"f": "(({0} > {1} || {0} != {0}) ? {0} : {1})",
                                "*": "({0} > {1} ? {0} : {1})"},
        lambda g, out, a, b, arg: _picked_vjp(g, (a >= b) | F.isnan(a)),
        doc="at a == b the derivative goes to a; to the operand that is NaN (whose value "
            "is taken), a if both are")
_binary("minimum", np.minimum, {"f": "(({0} < {1} || {0} != {0}) ? {0} : {1})",
                                "*": "({0} < {1} ? {0} : {1})"},
        lambda g, out, a, b, arg: _picked_vjp(g, (a <= b) | F.isnan(a)),
        doc="at a == b the derivative goes to a; to the operand that is NaN (whose value "
            "is taken), a if both are")


def _guarded_ratio(num, den):
    """``num / den`` where ``den`` is finite and not 0, 0 elsewhere (no inf or NaN in
    either branch)."""
    ok = (den != 0) & (F.abs(den) < math.inf)
    return F.where(ok, num / F.where(ok, den, 1.0), 0.0)


def _arctan2_vjp(g, out, a, b, arg):
    # d/da = b / r**2, d/db = -a / r**2 with r = hypot(a, b) (no underflow of a*a + b*b
    # for tiny a, b); taken as 0 at the origin and where r is infinite (their limits)
    r = F.hypot(a, b)
    ok = (r > 0) & (r < math.inf)
    rr = F.where(ok, r, 1.0)
    return (F.where(ok, g * (b / rr) / rr, 0.0), F.where(ok, -g * (a / rr) / rr, 0.0))


def _logaddexp_vjp(g, out, a, b, arg):
    # d/da = exp(a - out): where out is not finite (both -inf, an inf, a NaN) taken as 0
    ok = F.abs(out) < math.inf
    base = F.where(ok, out, a)
    return (F.where(ok, g * F.exp(a - base), 0.0),
            F.where(ok, g * F.exp(b - F.where(ok, out, b)), 0.0))


_binary("arctan2", np.arctan2, "atan2{s}({0}, {1})", _arctan2_vjp,
        doc="derivative taken as 0 at a == b == 0 and where a or b is infinite")
_binary("hypot", np.hypot, "hypot{s}({0}, {1})",
        lambda g, out, a, b, arg: (g * _guarded_ratio(a, out), g * _guarded_ratio(b, out)),
        doc="derivative taken as 0 at a == b == 0 and where the result is infinite")
_binary("copysign", np.copysign, "copysign{s}({0}, {1})",
        lambda g, out, a, b, arg: (g * F.sign(a * out), None),
        doc="d/da = sign(a) * sign of b (0 at a == 0); d/db = 0")
_binary("fmod", np.fmod, {"f": "fmod{s}({0}, {1})",
                          "i": "(({1} == 0 || {1} == -1) ? 0 : {0} % {1})",
                          "u": "({1} == 0 ? 0 : {0} % {1})"},
        # d/db = -(a - out) / b, the integer quotient (a / b itself may round up to
        # the next integer: fmod(1.0, 0.1) is 0.0999..., its quotient 9, a / b is 10)
        lambda g, out, a, b, arg: (g, -g * F.rint((a - out) / b)),
        doc="C's remainder (the sign of a), as np.fmod; integer division by 0 gives 0")
_binary("logaddexp", np.logaddexp, "lj_logaddexp{s}({0}, {1})", _logaddexp_vjp,
        doc="log(exp(a) + exp(b)) without overflow")
_binary("bitwise_and", np.bitwise_and, "({0} & {1})")
_binary("bitwise_or", np.bitwise_or, "({0} | {1})")
_binary("bitwise_xor", np.bitwise_xor, "({0} ^ {1})")
# NumPy's shifts: by the bit width or more (or a negative amount), 0, or -1 for a negative
# number shifted right; a left shift is done unsigned (C's is undefined for negatives)
_IN_WIDTH = "((uint64_t){1} < 8 * sizeof({I}))"
_binary("left_shift", np.left_shift,
        f"({_IN_WIDTH} ? ({{T}})((uint64_t){{0}} << {{1}}) : ({{T}})0)",
        doc="a << b, as np.left_shift (0 when b is the bit width or more)")
_binary("right_shift", np.right_shift,
        {"i": f"({_IN_WIDTH} ? ({{T}})({{0}} >> {{1}}) : ({{T}})({{0}} < 0 ? -1 : 0))",
         "u": f"({_IN_WIDTH} ? ({{T}})({{0}} >> {{1}}) : ({{T}})0)"},
        doc="a >> b, arithmetic, as np.right_shift (0 or -1 when b is the bit width or more)")

# comparisons and logic: bool results, operands keep their (common) dtype
for _name, _ref, _sym in (("eq", np.equal, "=="), ("ne", np.not_equal, "!="),
                          ("lt", np.less, "<"), ("le", np.less_equal, "<="),
                          ("gt", np.greater, ">"), ("ge", np.greater_equal, ">=")):
    _binary(_name, _ref, f"({{0}} {_sym} {{1}})", promote=False)
_binary("logical_and", np.logical_and, "(({0} != 0) & ({1} != 0))", promote=False)
_binary("logical_or", np.logical_or, "(({0} != 0) | ({1} != 0))", promote=False)
_binary("logical_xor", np.logical_xor, "(({0} != 0) != ({1} != 0))", promote=False)

register(OpDef("where", "elementwise", lambda c, a, b, arg: np.where(c, a, b),
               dtype=lambda srcs, arg: srcs[1].dtype, c="({0} ? {1} : {2})",
               **_rules(lambda g, out, c, a, b, arg: (None, F.where(c, g, F.zeros_like(g)),
                                                      F.where(c, F.zeros_like(g), g))),
               doc="the unselected branch gets exactly 0"))

COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))

register(OpDef("stop_gradient", "elementwise", lambda x, arg: x, c="{0}",
               vjp=lambda g, out, x, arg: (None,), jvp=lambda ts, out, x, arg: None,
               doc="identity; zero derivative in both modes"))
