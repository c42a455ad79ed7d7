"""Every registered op against NumPy, table-driven, on every backend.

``OPS`` maps each name in ``lazyjit.ops.REGISTRY`` to cases that build the op through the
public API (``lj.exp``, ``+``, ``x[::-2]``, ``lj.take``, ...) next to a NumPy reference;
``test_every_registry_op_has_cases`` fails when an op is added without cases.  Composite
functions (softmax, clip, var, ...) have their own list, ``COMPOSITES``.

Where NumPy rejects an input (``TypeError``: the op is not defined for the dtype) lazyjit
must reject it too; where NumPy raises ``ValueError``/``IndexError``, lazyjit must raise
the same kind of error (``LazyjitError`` is a ``ValueError``).

Cases of one op and dtype (shapes, axes, ...) form a group, computed in one realize: one
trace, so one compile on compiled backends; a failure names the case.
"""
from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import special

import lazyjit as lj
import lazyjit.nn.functional as nnf
from lazyjit.ops import REGISTRY

from helpers import (DTYPES, Case, assert_same, batched, flat_tensors, float_ufunc, graph_ops,
                     reference)
from test_complex import OP_CASES as COMPLEX_CASES
from test_fft import OP_CASES as FFT_CASES
from test_linalg import OP_CASES as LINALG_CASES
from test_nn_functional import (GEOMETRY, conv2d_grad_input_fn, conv2d_grad_weight_fn,
                                max_pool2d_grad_fn, ref_conv2d, ref_conv2d_grads, ref_pool2d,
                                ref_pool2d_grad, ref_pool2d_select)

nan, inf = float("nan"), float("inf")
INTS = ("int32", "int64")
FLOATS = ("float32", "float64")
SOME = ("float32", "float64", "int32", "bool")  # (dtypes of the newer float functions)
SHAPES = [(7,), (3, 5), (2, 3, 4), (1, 1), (), (0,), (3, 0)]
PAIRS = [((7,), (7,)), ((3, 5), (3, 5)), ((2, 3, 4), (2, 3, 4)), ((1, 1), (1, 1)),
         ((3, 1), (1, 4)), ((), (2, 3)), ((2, 3, 4), (4,)), ((0,), (1,)), ((3, 0), (3, 1))]
SPECIAL = [nan, inf, -inf, 0.0, -0.0, 1e-3, 1.0, -2.5, 100.0, -100.0]


def _sid(shape) -> str:
    return "x".join(map(str, shape)) or "scalar"


# --- elementwise -------------------------------------------------------------------------

# op -> (lazyjit function, NumPy reference, input domain, dtypes)
UNARY = {
    "exp": (lj.exp, np.exp, "any", DTYPES),
    "log": (lj.log, np.log, "pos", DTYPES),
    "log1p": (lj.log1p, np.log1p, "gt-1", DTYPES),
    "expm1": (lj.expm1, np.expm1, "any", DTYPES),
    "sqrt": (lj.sqrt, np.sqrt, "nonneg", DTYPES),
    "sin": (lj.sin, np.sin, "any", DTYPES),
    "cos": (lj.cos, np.cos, "any", DTYPES),
    "tan": (lj.tan, np.tan, "small", DTYPES),
    "tanh": (lj.tanh, np.tanh, "any", DTYPES),
    "erf": (lj.erf, float_ufunc(special.erf), "any", DTYPES),
    "sigmoid": (lj.sigmoid, float_ufunc(special.expit), "any", DTYPES),
    "softplus": (lj.softplus, float_ufunc(lambda x: np.logaddexp(0, x)), "any", DTYPES),
    "neg": (operator.neg, np.negative, "any", DTYPES),
    "abs": (abs, np.abs, "any", DTYPES),
    "sign": (lj.sign, np.sign, "any", DTYPES),
    "floor": (lj.floor, np.floor, "any", DTYPES),
    "ceil": (lj.ceil, np.ceil, "any", DTYPES),
    # relu(bool) is bool in lazyjit; NumPy's maximum(bool, 0) is int64, so no bool here
    "relu": (lj.relu, lambda x: np.maximum(x, 0), "any", FLOATS + INTS),
    "logical_not": (lj.logical_not, np.logical_not, "any", DTYPES),
    "invert": (operator.invert, np.invert, "any", DTYPES),
    "isnan": (lj.isnan, np.isnan, "any", DTYPES),
    "isinf": (lj.isinf, np.isinf, "any", DTYPES),
    "arcsin": (lj.arcsin, np.arcsin, "small", SOME),
    "arccos": (lj.arccos, np.arccos, "small", SOME),
    "arctan": (lj.arctan, np.arctan, "any", SOME),
    "sinh": (lj.sinh, np.sinh, "any", SOME),
    "cosh": (lj.cosh, np.cosh, "any", SOME),
    "arcsinh": (lj.arcsinh, np.arcsinh, "any", SOME),
    "arccosh": (lj.arccosh, np.arccosh, "pos", SOME),
    "arctanh": (lj.arctanh, np.arctanh, "small", SOME),
    "log2": (lj.log2, np.log2, "pos", SOME),
    "log10": (lj.log10, np.log10, "pos", SOME),
    "exp2": (lj.exp2, np.exp2, "any", SOME),
    "cbrt": (lj.cbrt, np.cbrt, "any", SOME),
    "rint": (lj.rint, np.rint, "any", SOME),
    "trunc": (lj.trunc, np.trunc, "any", SOME),
    "signbit": (lj.signbit, np.signbit, "any", SOME),
}

# op -> (lazyjit function, NumPy reference, domain of a, domain of b)
BINARY = {
    "add": (operator.add, np.add, "any", "any"),
    "sub": (operator.sub, np.subtract, "any", "any"),
    "mul": (operator.mul, np.multiply, "any", "any"),
    "div": (operator.truediv, np.true_divide, "any", "nonzero"),
    "floordiv": (operator.floordiv, np.floor_divide, "any", "any"),  # int // 0 == 0
    "mod": (operator.mod, np.remainder, "any", "any"),
    "pow": (operator.pow, np.power, "any", "nonneg"),
    "maximum": (lj.maximum, np.maximum, "any", "any"),
    "minimum": (lj.minimum, np.minimum, "any", "any"),
    "bitwise_and": (operator.and_, np.bitwise_and, "any", "any"),
    "bitwise_or": (operator.or_, np.bitwise_or, "any", "any"),
    "bitwise_xor": (operator.xor, np.bitwise_xor, "any", "any"),
    "left_shift": (operator.lshift, np.left_shift, "any", "any"),
    "right_shift": (operator.rshift, np.right_shift, "any", "any"),
    "eq": (operator.eq, np.equal, "any", "any"),
    "ne": (operator.ne, np.not_equal, "any", "any"),
    "lt": (operator.lt, np.less, "any", "any"),
    "le": (operator.le, np.less_equal, "any", "any"),
    "gt": (operator.gt, np.greater, "any", "any"),
    "ge": (operator.ge, np.greater_equal, "any", "any"),
    "logical_and": (lj.logical_and, np.logical_and, "any", "any"),
    "logical_or": (lj.logical_or, np.logical_or, "any", "any"),
    "logical_xor": (lj.logical_xor, np.logical_xor, "any", "any"),
    "arctan2": (lj.arctan2, np.arctan2, "any", "any"),
    "hypot": (lj.hypot, np.hypot, "any", "any"),
    "copysign": (lj.copysign, np.copysign, "any", "any"),
    "fmod": (lj.fmod, np.fmod, "any", "any"),  # int fmod by 0 is 0
    "logaddexp": (lj.logaddexp, np.logaddexp, "any", "any"),
}

_NEWER = ("arctan2", "hypot", "copysign", "fmod", "logaddexp")
OPS: dict[str, list[Case]] = {}
for _op, (_fn, _ref, _dom, _dts) in UNARY.items():
    OPS[_op] = [Case(f"{_op}-{dt}-{_sid(s)}", _fn, _ref, (s,), dt, _dom, group=f"{_op}-{dt}")
                for dt in _dts for s in SHAPES]
    OPS[_op] += [Case(f"{_op}-{dt}-special", _fn, _ref, values=(np.array(SPECIAL, dt),))
                 for dt in FLOATS]
for _op, (_fn, _ref, _da, _db) in BINARY.items():
    OPS[_op] = [Case(f"{_op}-{dt}-{_sid(a)}-{_sid(b)}", _fn, _ref, (a, b), dt, (_da, _db),
                     group=f"{_op}-{dt}")
                for dt in (SOME if _op in _NEWER else DTYPES) for a, b in PAIRS]

# explicit values: signs of // and %, division by zero, NaN in maximum/minimum
_A = [-7, -7, 7, 7, 0, 5, -5, 3]
_B = [2, -2, 2, -2, 3, 0, 0, 3]
for dt in DTYPES[:4]:
    for op in ("floordiv", "mod", "div"):
        OPS[op].append(Case(f"{op}-{dt}-signs-and-zero", BINARY[op][0], BINARY[op][1],
                            values=(np.array(_A, dt), np.array(_B, dt))))
for dt in FLOATS:
    a = np.array([-7.5, 7.5, -7.5, 0.5, -inf, inf, 1.0, nan], dt)
    b = np.array([2.0, -2.0, -2.0, inf, 2.0, 3.0, -0.0, 1.0], dt)
    for op in ("floordiv", "mod"):
        OPS[op].append(Case(f"{op}-{dt}-float-edges", BINARY[op][0], BINARY[op][1],
                            values=(a, b)))
    for op in ("maximum", "minimum"):
        OPS[op].append(Case(f"{op}-{dt}-nan", BINARY[op][0], BINARY[op][1],
                            values=(np.array([nan, 1.0, nan, -inf, 2.0], dt),
                                    np.array([1.0, nan, nan, 3.0, inf], dt))))

for dt in ("int8", "uint8", "int32", "uint64"):  # shifts by the bit width and more
    a, w = np.array([1, 3, -1, -128, 127, 5]).astype(dt), np.iinfo(dt).bits
    OPS.update({op: OPS[op] + [Case(f"{op}-{dt}-widths", *BINARY[op][:2], values=(a, np.array(
        [0, w - 1, w, w + 1, 2 * w, 63], dt)))] for op in ("left_shift", "right_shift")})
OPS.update(LINALG_CASES | COMPLEX_CASES | FFT_CASES)

_EDGE = np.array(SPECIAL + [2.5, -0.5, 0.5])
for dt in FLOATS:  # every pair of special values (signed zeros, infinities, NaN)
    a, b = np.repeat(_EDGE, len(_EDGE)).astype(dt), np.tile(_EDGE, len(_EDGE)).astype(dt)
    for op in ("arctan2", "hypot", "copysign", "fmod", "logaddexp"):
        OPS[op].append(Case(f"{op}-{dt}-special-pairs", BINARY[op][0], BINARY[op][1],
                            values=(a, b)))
    OPS["rint"].append(Case(f"rint-{dt}-halves", lj.rint, np.rint,
                            values=(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999], dt),)))

for da, db in (("int8", "uint8"), ("int16", "uint16"), ("uint8", "int32"), ("bool", "int8")):
    for op in ("arctan2", "hypot", "copysign", "logaddexp", "fmod"):  # NumPy's loop choice
        OPS[op].append(Case(f"{op}-{da}-{db}", BINARY[op][0], BINARY[op][1], ((2, 3), (3,)),
                            (da, db), ("any", "pos")))

# mixed dtypes promote as NumPy 2; Python scalars are weak (NEP 50)
MIXED = [("float32", "int32"), ("int64", "float32"), ("bool", "int32"), ("int32", "int64"),
         ("float32", "float64"), ("bool", "float32")]
for da, db in MIXED:
    for op in ("add", "div", "lt", "maximum"):
        OPS[op].append(Case(f"{op}-{da}-{db}", BINARY[op][0], BINARY[op][1],
                            ((3, 1), (4,)), (da, db), ("any", "nonzero")))
WEAK = {
    "mul": [lambda x: x * 2.0, lambda x: 2.0 * x, lambda x: x * 2, lambda x: x * 2.5,
            lambda x: x * np.float64(2.0), lambda x: x * np.float32(2.0)],
    "add": [lambda x: x + 1, lambda x: 1 + x, lambda x: x + True, lambda x: x + 1.5],
    "sub": [lambda x: 2 - x, lambda x: x - 0.5],
    "div": [lambda x: x / 2, lambda x: 2.0 / x],
    "floordiv": [lambda x: x // 2, lambda x: -7 // x],
    "mod": [lambda x: x % 3, lambda x: x % -2.5],
    # (ndarray ** 2 is np.square: int8 for bool, as lazyjit's; ** 0.5 of floats np.sqrt)
    "pow": [lambda x: x ** 2, lambda x: x ** 0.5, lambda x: 2 ** x],
    "gt": [lambda x: x > 0.5, lambda x: x > 1],
    "eq": [lambda x: x == 2],
    "bitwise_and": [lambda x: x & 6, lambda x: True & x],
}
for op, fns in WEAK.items():
    for i, f in enumerate(fns):
        f, r = f if isinstance(f, tuple) else (f, f)
        for dt in DTYPES:
            dom = "pos" if op in ("div", "floordiv", "pow") else "any"
            OPS[op].append(Case(f"{op}-{dt}-weak{i}", f, r, ((2, 3),), dt, dom,
                                group=f"{op}-{dt}-weak"))

OPS["where"] = [
    Case(f"where-{dt}-{_sid(a)}-{_sid(b)}", lambda c, x, y: lj.where(c, x, y), np.where,
         ((3, 1), a, b), ("bool", dt, dt))
    for dt in DTYPES for a, b in [((3, 4), (3, 4)), ((1, 4), ()), ((2, 1, 1), (4,))]]
OPS["where"] += [
    Case("where-weak-scalar", lambda c, x: lj.where(c, x, 0.5), lambda c, x: np.where(c, x, 0.5),
         ((3, 4), (3, 4)), ("bool", "float32")),
    Case("where-int-condition", lambda c, x: lj.where(c, x, -x), lambda c, x: np.where(c, x, -x),
         ((3, 4), (3, 4)), ("int32", "float64")),
    Case("where-mixed", lambda c, x, y: lj.where(c, x, y), np.where, ((5,), (5,), (5,)),
         ("bool", "int32", "float32")),
]
OPS["cast"] = [Case(f"cast-{a}-{b}", (lambda d: lambda x: x.astype(d))(b),
                    (lambda d: lambda x: x.astype(d))(b), ((2, 3),), a, "any", group=f"cast-{a}")
               for a in DTYPES + ("int8", "uint8", "int16") for b in DTYPES + ("int8", "int16")
               if a != b]  # no float -> uint8: negative floats to unsigned are undefined in C
OPS["cast"] += [Case(f"cast-{dt}-fraction-to-int", lambda x: x.astype("int32"),
                     lambda x: x.astype("int32"), values=(np.array([-2.7, -0.5, 0.5, 2.7], dt),))
                for dt in FLOATS]
OPS["scan"] = [Case(f"scan-cumsum-{dt}", lambda x: lj.scan(
    lambda a, s: s + a, sequences=x, outputs_info=lj.zeros(x.shape[1:], x.dtype))[0],
    lambda x: np.cumsum(x, 0, dtype=x.dtype), ((5, 3),), dt) for dt in ("float32", "int64")]
OPS["ifelse"] = [Case(f"ifelse-{dt}", lambda x: lj.ifelse(x.sum() > 0, x * 2, -x),
                     lambda x: x * 2 if x.sum() > 0 else -x, ((4,),), dt)
                for dt in ("float32", "int32")]
OPS["scan_out"] = [Case("scan_out-taps-plain", lambda x: lj.scan(
    lambda a, s2, s1: [s1 - s2 * a, s1 * 2], sequences=x,
    outputs_info=[dict(initial=lj.ones(2), taps=[-2, -1]), None])[0][1],
    lambda x: 2 * np.array(_fib(x)), ((6,),), "float64")]


def _fib(x):
    out, s2, s1 = [], 1.0, 1.0
    for a in x:
        s2, s1 = s1, s1 - s2 * a
        out.append(s2)
    return out


OPS["stop_gradient"] = [Case(f"stop_gradient-{dt}", lj.stop_gradient, lambda x: x, ((3, 4),), dt)
                        for dt in DTYPES]

# Philox4x32-10 known answers (Random123's tests/kat_vectors): counter words 0-3, key 0-1
_KAT = [((0, 0), (0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
        ((2**32 - 1,) * 2, (2**32 - 1,) * 2, (2**32 - 1,) * 2,
         (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
        ((0x243f6a88, 0x85a308d3), (0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
         (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]
_KAT_IN = [np.array([lo | hi << 32 for lo, hi in [v[j] for v in _KAT] for _ in range(4)],
                    np.uint64) for j in range(3)]
OPS["numpy"] = [Case("numpy-i0", lambda x: np.i0(x), np.i0, ((3, 4),)),  # (lazyjit lacks it:
                 Case("numpy-gcd", lambda x: np.gcd(x, 6), lambda x: np.gcd(x, 6),  # NumPy's
                      ((3, 4),), "int32")]                                       # value)
OPS["philox"] = [Case("philox-kat", lambda c, h, k, w: lj.random.philox(c, k, w, h),
                      lambda c, h, k, w: np.array([x for v in _KAT for x in v[3]], np.uint32),
                      values=(*_KAT_IN, np.tile(np.arange(4, dtype=np.uint64), 3)))]

# --- window ops: references in test_nn_functional --------------------------------------

_XS, _WS, _GS = (2, 4, 5, 6), (4, 2, 2, 3), (2, 4, 3, 2)   # conv2d under GEOMETRY
OPS["conv2d"] = [Case(f"conv2d-{dt}", lambda x, w: nnf.conv2d(x, w, **GEOMETRY),
                      lambda x, w: ref_conv2d(x, w, **GEOMETRY), (_XS, _WS), dt,
                      extra={"accum": True}) for dt in ("float32", "float64", "int32")]
OPS["conv2d"] += [Case("conv2d-avg_pool2d-depthwise", lambda x: nnf.avg_pool2d(x, 3, 2, 1),
                       lambda x: ref_pool2d(x, 3, 2, 1, kind="avg"), ((2, 3, 7, 6),))]
OPS["conv2d_grad_input"] = [Case(
    f"conv2d_grad_input-{dt}", conv2d_grad_input_fn(_XS, **GEOMETRY),
    lambda g, w: ref_conv2d_grads(np.zeros(_XS, g.dtype), w, g, **GEOMETRY)[0], (_GS, _WS), dt,
    extra={"accum": True}) for dt in FLOATS]
OPS["conv2d_grad_weight"] = [Case(
    f"conv2d_grad_weight-{dt}", conv2d_grad_weight_fn(_WS, **GEOMETRY),
    lambda x, g: ref_conv2d_grads(x, np.zeros(_WS, g.dtype), g, **GEOMETRY)[1], (_XS, _GS), dt,
    extra={"accum": True}) for dt in FLOATS]
_POOL = (3, 2, 1, 1)  # kernel, stride, padding, dilation
OPS["max_pool2d"] = [Case(f"max_pool2d-{dt}", lambda x: nnf.max_pool2d(x, *_POOL),
                          lambda x: ref_pool2d_select(x, x, *_POOL)[0], ((2, 3, 7, 6),), dt)
                     for dt in ("float32", "float64", "int32", "bool")]
OPS["max_pool2d"] += [
    Case("max_pool2d-nan-ties-dilated", lambda x: nnf.max_pool2d(x, 2, 1, 0, (1, 2)),
         lambda x: ref_pool2d_select(x, x, 2, 1, 0, (1, 2))[0],
         values=(np.array([[[[1.0, nan, 1.0, 2.0], [1.0, 0.0, -inf, 2.0],
                             [inf, 1.0, inf, nan]]]]),)),
    Case("max_pool2d-jvp-selects", lambda x, t: lj.jvp(lambda x: nnf.max_pool2d(x, *_POOL),
                                                       (x,), (t,))[1],
         lambda x, t: ref_pool2d_select(x, t, *_POOL)[0], ((2, 3, 7, 6), (2, 3, 7, 6)))]
OPS["max_pool2d_grad"] = [Case(f"max_pool2d_grad-{dt}", max_pool2d_grad_fn(*_POOL),
                               lambda x, g: ref_pool2d_grad(x, g, *_POOL),
                               ((2, 3, 7, 6), (2, 3, 4, 3)), dt) for dt in FLOATS]

# --- reductions --------------------------------------------------------------------------

REDUCTIONS = {
    "sum": (lj.sum, np.sum), "prod": (lj.prod, np.prod), "max": (lj.max, np.max),
    "min": (lj.min, np.min), "mean": (lj.mean, np.mean), "argmax": (lj.argmax, np.argmax),
    "argmin": (lj.argmin, np.argmin), "var": (lj.var, np.var), "std": (lj.std, np.std),
    "any": (lj.any, np.any), "all": (lj.all, np.all),
}
PRIMITIVE = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "argmax": "argmax",
             "argmin": "argmin", "mean": "sum", "var": "sum", "std": "sum", "any": "max",
             "all": "min"}


def _reduce_case(name, shape, dt, axis, keepdims, tag=""):
    fn, ref = REDUCTIONS[name]
    kw = {"axis": axis, "keepdims": keepdims}
    return Case(f"{name}{tag}-{dt}-{_sid(shape)}-axis{axis}-keep{int(keepdims)}",
                lambda x: fn(x, **kw), lambda x: ref(x, **kw), (shape,), dt, "any",
                extra={"accum": True}, group=f"{name}{tag}-{dt}")


for _name in REDUCTIONS:
    # composites of sum (mean, var, std) on fewer axes: each one is a few kernels
    axes = (None, -1, (0, 2)) if PRIMITIVE[_name] != _name else (None, 0, -1, (0, 2), (-1, 0), ())
    cases = [_reduce_case(_name, (2, 3, 4), dt, ax, kd) for dt in DTYPES
             for ax in axes for kd in (False, True)]
    cases += [_reduce_case(_name, s, dt, ax, False, "-small") for dt in ("float32", "int32")
              for s, ax in [((7,), 0), ((1, 1), None), ((), None), ((3, 5), 1)]]
    cases += [_reduce_case(_name, (3, 0), dt, ax, kd, "-empty") for dt in ("float64", "int64")
              for ax in (None, 0, 1) for kd in (False, True)]
    OPS.setdefault(PRIMITIVE[_name], []).extend(cases)
OPS["max"] += [Case("max-nan", lambda x: x.max(axis=1), lambda x: x.max(axis=1),
                    values=(np.array([[1.0, nan, 3.0], [-inf, 2.0, 1.0]]),))]
OPS["argsort"] = [Case(f"argsort-{dt}-{axis}-{d}",
                       lambda x, a=axis, d=d: lj.argsort(x, a, descending=d),
                       lambda x, a=axis, d=d: np.argsort(-x if d else x, a, kind="stable"),
                       ((6, 9),), dt)
                  for dt in ("float32", "int32", "float64") for axis in (0, 1)
                  for d in (False, True)]
OPS["argsort"] += [Case("argsort-nan-ties", lambda x: (lj.argsort(x), lj.sort(x)),
                        lambda x: (np.argsort(x, kind="stable"), np.sort(x)),
                        values=(np.array([[2.0, nan, 1.0, 2.0, -inf, nan, 1.0]]),)),
                   Case("argsort-bool", lambda x: lj.argsort(x), lambda x: np.argsort(
                       x, kind="stable"), values=(np.array([True, False, True, False]),))]
OPS["argmax"] += [Case("argmax-ties-method", lambda x: x.argmax(0), lambda x: x.argmax(0),
                       values=(np.array([[1, 5, 5], [5, 5, 1]], "int32"),)),
                  Case("argmax-nan", lambda x: (x.argmax(1), x.argmin(1)),
                       lambda x: (x.argmax(1), x.argmin(1)),
                       values=(np.array([[1.0, nan, 3.0, nan], [-inf, 2.0, inf, 1.0]]),))]


def _ddof1(f):
    return lambda x: f(x, axis=1, ddof=1)


OPS["sum"] += [Case(f"{n}-ddof1-{dt}", _ddof1(f), _ddof1(r), ((3, 5),), dt, extra={"accum": True})
               for n, f, r in (("var", lj.var, np.var), ("std", lj.std, np.std))
               for dt in FLOATS + INTS]
OPS["sum"] += [Case("sum-dtype-arg", lambda x: lj.sum(x, dtype="float32"),
                    lambda x: np.sum(x, dtype="float32"), ((3, 5),), "int32"),
               Case("methods", lambda x: (x.sum(0), x.mean(), x.max(-1, keepdims=True),
                                          x.min(), x.prod(1), x.argmax(), x.argmin(1)),
                    lambda x: (x.sum(0), x.mean(), x.max(-1, keepdims=True), x.min(),
                               x.prod(1), x.argmax(), x.argmin(1)), ((3, 4),), "float64",
                    extra={"accum": True})]

# --- movement, slicing, indexing -----------------------------------------------------------


def _same(f):
    """A case whose lazyjit call and NumPy call are spelled the same (methods, indexing)."""
    return f, f


MOVEMENT = {
    "reshape": [("minus1-first", (2, 3, 4), *_same(lambda x: x.reshape(-1, 4))),
                ("minus1-last", (2, 3, 4), *_same(lambda x: x.reshape(4, -1))),
                ("tuple", (2, 3, 4), lambda x: lj.reshape(x, (24,)), lambda x: x.reshape(24)),
                ("to-scalar", (1, 1), *_same(lambda x: x.reshape(()))),
                ("from-scalar", (), *_same(lambda x: x.reshape(1, 1, 1))),
                ("flatten", (2, 3, 4), *_same(lambda x: x.flatten())),
                ("zero-size", (3, 0), *_same(lambda x: x.reshape(0, 5, -1))),
                ("expand_dims", (2, 3), lambda x: lj.expand_dims(x, (0, -1)),
                 lambda x: np.expand_dims(x, (0, -1))),
                ("expand_dims-mid", (2, 3), lambda x: lj.expand_dims(x, 1),
                 lambda x: np.expand_dims(x, 1)),
                ("squeeze-all", (1, 3, 1), *_same(lambda x: x.squeeze())),
                ("squeeze-axis", (1, 3, 1), *_same(lambda x: x.squeeze(-1))),
                ("squeeze-tuple", (1, 3, 1), *_same(lambda x: x.squeeze((0, 2))))],
    "permute": [("T", (2, 3, 4), *_same(lambda x: x.T)),
                ("args", (2, 3, 4), *_same(lambda x: x.transpose(1, 0, 2))),
                ("tuple", (2, 3, 4), *_same(lambda x: x.transpose((2, 0, 1)))),
                ("negative", (2, 3, 4), lambda x: lj.transpose(x, (-1, 0, 1)),
                 lambda x: np.transpose(x, (-1, 0, 1))),
                ("swapaxes", (2, 3, 4), *_same(lambda x: x.swapaxes(0, -1))),
                ("moveaxis", (2, 3, 4), lambda x: lj.moveaxis(x, 0, -1),
                 lambda x: np.moveaxis(x, 0, -1)),
                ("then-reshape", (2, 3, 4), *_same(lambda x: x.T.reshape(4, 6)))],
    "expand": [("col", (3, 1), lambda x: lj.broadcast_to(x, (2, 3, 4)),
                lambda x: np.broadcast_to(x, (2, 3, 4))),
               ("scalar", (), lambda x: lj.broadcast_to(x, (2, 2)),
                lambda x: np.broadcast_to(x, (2, 2))),
               ("method", (4,), lambda x: x.broadcast_to((3, 4)),
                lambda x: np.broadcast_to(x, (3, 4))),
               ("to-zero", (3, 1), lambda x: lj.broadcast_to(x, (3, 0)),
                lambda x: np.broadcast_to(x, (3, 0))),
               ("then-sum", (3, 1), lambda x: lj.broadcast_to(x, (3, 4)).sum(0),
                lambda x: np.broadcast_to(x, (3, 4)).sum(0))],
    "slice": [(f"{i}", s, *_same(f)) for i, (s, f) in enumerate([
        ((7,), lambda x: x[::-2]), ((7,), lambda x: x[5:1:-1]), ((7,), lambda x: x[-100:100]),
        ((7,), lambda x: x[3:3]), ((7,), lambda x: x[::3]), ((7,), lambda x: x[-1]),
        ((4, 5, 6), lambda x: x[1]), ((4, 5, 6), lambda x: x[1:3, ::-1]),
        ((4, 5, 6), lambda x: x[..., 2]), ((4, 5, 6), lambda x: x[None, 1]),
        ((4, 5, 6), lambda x: x[-1, :, 3:0:-2]), ((4, 5, 6), lambda x: x[:, None, 1:, None]),
        ((4, 5, 6), lambda x: x[::-1, ::-1, ::-1]), ((4, 5, 6), lambda x: x[1, 2, 3]),
        ((4, 5, 6), lambda x: x[..., ::-2][1:, 2]), ((3, 0), lambda x: x[1:]),
        ((4, 5, 6), lambda x: x[2:0, 1]), ((), lambda x: x[None]), ((), lambda x: x[...]),
        ((3,), lambda x: x[..., None, :]),
    ])] + [
        ("split-sections", (6, 2), lambda x: lj.split(x, 3), lambda x: np.split(x, 3)),
        ("split-indices", (2, 6), lambda x: lj.split(x, [1, 4], axis=1),
         lambda x: np.split(x, [1, 4], axis=1)),
        ("split-past-end", (2, 6), lambda x: lj.split(x, [2, 10], axis=-1),
         lambda x: np.split(x, [2, 10], axis=-1))],
}
M = np.array([[True, False, True, True, False]] * 4)
INDEX = [  # integer arrays and masks: lowered to take
    ((4, 5, 6), lambda x: x[[0, 2, 2, -1]]),
    ((4, 5, 6), lambda x: x[:, [1, -1]]),
    ((4, 5, 6), lambda x: x[[0, 1], [2, 3]]),            # adjacent
    ((4, 5, 6), lambda x: x[:, [0, 1], [2, 3]]),         # adjacent, after a slice
    ((4, 5, 6), lambda x: x[[0, 1], :, [2, 3]]),         # non-adjacent: dims go first
    ((4, 5, 6), lambda x: x[1, [0, 2]]),                 # int and array
    ((4, 5, 6), lambda x: x[:, 1, [0, 2]]),
    ((4, 5, 6), lambda x: x[[1, 3], 2:0:-1, [0, 2]]),
    ((4, 5, 6), lambda x: x[1:3, [[0, 1], [2, 4]]]),     # 2-d index array
    ((4, 5, 6), lambda x: x[[[0], [3]], [1, 2]]),        # broadcast index arrays
    ((4, 5, 6), lambda x: x[np.array([2, 0])]),
    ((4, 5, 6), lambda x: x[..., [5, 0, -6]]),
    ((4, 5, 6), lambda x: x[None, [0, 1], None, 2]),
    ((4, 5, 6), lambda x: x[[]]),
    ((4, 5), lambda x: x[M]),                            # boolean masks
    ((4, 5), lambda x: x[:, M[0]]),
    ((4, 5), lambda x: x[x > 0]),
    ((4, 5), lambda x: x[np.zeros((4, 5), bool)]),
    ((4, 5), lambda x: x[[0, 4]]),                       # out of bounds: IndexError
]
for _op, rows in MOVEMENT.items():
    OPS[_op] = [Case(f"{_op}-{n}-{dt}", f, r, (s,), dt, group=f"{_op}-{dt}")
                for n, s, f, r in rows
                for dt in ("float32", "int64", "bool")]
OPS["take"] = [Case(f"index{i}-{dt}", f, f, (s,), dt, group=f"index-{dt}")
               for i, (s, f) in enumerate(INDEX)
               for dt in ("float64", "int32")]
OPS["take"] += [Case(f"index-tensor-{i}", f, r, ((4, 5),)) for i, (f, r) in enumerate([
    (lambda x: x[lj.tensor([3, 0])], lambda x: x[np.array([3, 0])]),
    (lambda x: x[lj.tensor([True, False, True, False])], lambda x: x[[True, False, True, False]]),
    (lambda x: lj.take(x, [5, -1, 0]), lambda x: np.take(x, [5, -1, 0])),
    (lambda x: lj.take(x, [[1, 0], [2, 2]], axis=1), lambda x: np.take(x, [[1, 0], [2, 2]], 1)),
    (lambda x: x.take(lj.tensor([-1, 0]), axis=-1), lambda x: x.take([-1, 0], axis=-1)),
    (lambda x: lj.take(x, [7], axis=0), lambda x: np.take(x, [7], axis=0)),
    (lambda x: lj.take_along_axis(x, lj.tensor(np.argsort(np.asarray(x), 1)), 1),
     lambda x: np.take_along_axis(x, np.argsort(x, 1), 1)),
    (lambda x: lj.take_along_axis(x, lj.tensor([[2, 0, 1, 3, -1]]), 0),
     lambda x: np.take_along_axis(x, np.array([[2, 0, 1, 3, -1]]), 0)),
    (lambda x: lj.take_along_axis(x, lj.tensor([[4], [0], [1], [2]]), -1),
     lambda x: np.take_along_axis(x, np.array([[4], [0], [1], [2]]), -1)),
])]


def _set(key, add=False, at=False):
    def fn(x, v):
        if at:
            return x.at[key].add(v) if add else x.at[key].set(v)
        return (lj.inc_subtensor if add else lj.set_subtensor)(x[key], v)

    def ref(x, v):
        out = x.copy()
        if add:
            np.add.at(out, key, v)
        else:
            out[key] = v
        return out
    return fn, ref


# (key, value shape) on x of shape (4, 5); repeated indices only for inc (set: last wins)
WRITES_SLICE = [(np.s_[1:3], (2, 5)), (np.s_[::-2], (2, 5)), (np.s_[:, 1], (4,)),
                (np.s_[1, 2], ()), (np.s_[1:3], (5,)), (np.s_[..., ::-3], (1, 2)),
                (np.s_[None, 2:], (2, 5))]
WRITES_ARRAY = [(np.s_[[0, 2]], (2, 5)), (np.s_[[0, 2], [1, 3]], (2,)),
                (np.s_[:, [4, 0]], (4, 2)), (np.s_[M], (12,)), (np.s_[1, [-1, 0]], ())]
REPEATED = [(np.s_[[0, 2, 0, 0]], (4, 5)), (np.s_[[0, 0], [1, 1]], (2,)), (np.s_[[1, 1, 1]], ()),
            (np.s_[:, [1, 1, 3]], (4, 3)), (np.s_[[1, 1], 2:0:-1], (2, 2))]


def _write_cases(op, writes, add):
    return [Case(f"{op}-{i}-{at}-{dt}", *_set(k, add, at), ((4, 5), vs), dt, group=f"{op}-{dt}")
            for i, (k, vs) in enumerate(writes) for at in (False, True)
            for dt in ("float32", "int64")]


OPS["set_slice"] = _write_cases("set_slice", WRITES_SLICE, False)
OPS["inc_slice"] = _write_cases("inc_slice", WRITES_SLICE, True)
OPS["put"] = _write_cases("put", WRITES_ARRAY, False)
OPS["put_add"] = _write_cases("put_add", WRITES_ARRAY + REPEATED, True)
OPS["put"] += [Case("put-float-into-int", *_set(np.s_[[1]]), ((4, 5), (5,)), ("int32", "float64")),
               Case("put-out-of-bounds", *_set(np.s_[[4]]), ((4, 5), (5,)))]

OPS["concat"] = [Case(f"{n}-{dt}", f, r, shapes, dt) for n, f, r, shapes in [
    ("axis0", lambda a, b: lj.concatenate([a, b]), lambda a, b: np.concatenate([a, b]),
     ((2, 3), (4, 3))),
    ("axis-1", lambda a, b: lj.concatenate((a, b), axis=-1),
     lambda a, b: np.concatenate((a, b), axis=-1), ((2, 3), (2, 1))),
    ("axisNone", lambda a, b: lj.concatenate([a, b], axis=None),
     lambda a, b: np.concatenate([a, b], axis=None), ((2, 3), (4,))),
    ("empty-piece", lambda a, b, c: lj.concatenate([a, b, c]),
     lambda a, b, c: np.concatenate([a, b, c]), ((2, 3), (0, 3), (1, 3))),
    ("stack0", lambda a, b: lj.stack([a, b]), lambda a, b: np.stack([a, b]), ((2, 3), (2, 3))),
    ("stack-1", lambda a, b, c: lj.stack([a, b, c], axis=-1),
     lambda a, b, c: np.stack([a, b, c], axis=-1), ((2, 3),) * 3),
    ("mismatch", lambda a, b: lj.concatenate([a, b]), lambda a, b: np.concatenate([a, b]),
     ((2, 3), (2, 4))),
] for dt in ("float32", "int64", "bool")]
OPS["concat"] += [Case(f"concat-{da}-{db}", lambda a, b: lj.concatenate([a, b], 1),
                       lambda a, b: np.concatenate([a, b], 1), ((2, 3), (2, 2)), (da, db))
                  for da, db in MIXED]

def _refused(message: str):
    def ref(*arrays):
        raise ValueError(message)
    return ref


# a deferred gradient (kind "deferred"): expanded into its VJP graph before lowering
OPS["grad"] = [Case(f"grad-{dt}", lambda x: lj.grad((x * x).sum(), x), lambda x: 2 * x,
                    ((3, 4),), dt) for dt in FLOATS]
OPS["check"] = [Case(f"check-{dt}", lambda x: lj.debug.check(x * 2, x < 10), lambda x: x * 2,
                     ((3, 4),), dt, group=f"check-{dt}") for dt in FLOATS + INTS]
OPS["check"] += [
    Case("check-fails", lambda x: lj.debug.check(x, x > 0, "negative"), _refused("negative"),
         values=(np.array([1.0, -1.0]),)),
    # integer powers refuse negative exponents (NumPy's ValueError), known at once or not
    Case("pow-int-computed-negative-exponent", lambda a, b: a ** (b * 1), np.power,
         values=(np.array([2, 3]), np.array([1, -1]))),
    Case("pow-int-computed-exponents", lambda a, b: a ** (b * b), lambda a, b: a ** (b * b),
         values=(np.array([2, 3, -2]), np.array([1, -1, 3]))),
    Case("rpow-int-negative-exponent", lambda b: 2 ** b, lambda b: 2 ** b,
         values=(np.array([2, -3]),)),
    Case("pow-int-negative-constant", lambda a: a ** -1, lambda a: a ** -1,
         values=(np.array([1, 2]),)),
]

MATMUL = [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (4, 5)),
          ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((3, 0), (0, 4)),
          ((1, 1), (1, 1)), ((3, 4), (5, 4))]
OPS["matmul"] = [Case(f"matmul-{dt}-{_sid(a)}-{_sid(b)}", operator.matmul, np.matmul, (a, b), dt,
                      extra={"accum": True}, group=f"matmul-{dt}")
                 for dt in DTYPES for a, b in MATMUL]
OPS["matmul"] += [Case(f"{n}-{dt}", f, r, shapes, dt, extra={"accum": True})
                  for n, f, r, shapes in [
    ("dot-2d", lj.dot, np.dot, ((3, 4), (4, 2))), ("dot-1d", lj.dot, np.dot, ((4,), (4,))),
    ("dot-3d-2d", lj.dot, np.dot, ((2, 3, 4), (4, 2))),
    ("dot-2d-3d", lj.dot, np.dot, ((3, 4), (2, 4, 5))),
    ("dot-scalar", lj.dot, np.dot, ((), (3, 2))),
    ("method-dot", lambda a, b: a.dot(b), lambda a, b: a.dot(b), ((2, 3), (3,))),
    ("tensordot", lambda a, b: lj.tensordot(a, b, axes=([1, 0], [0, 1])),
     lambda a, b: np.tensordot(a, b, axes=([1, 0], [0, 1])), ((3, 4, 2), (4, 3, 5))),
    ("tensordot-int", lambda a, b: lj.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1),
     ((2, 3), (3, 4))),
    ("outer", lj.outer, np.outer, ((3,), (4,))),
] for dt in FLOATS + INTS]
OPS["matmul"] += [Case("matmul-int32-float32", operator.matmul, np.matmul, ((2, 3), (3, 2)),
                       ("int32", "float32"), extra={"accum": True})]

# --- composites ----------------------------------------------------------------------------
SOFT = np.array([[1000.0, 0.0, -5.0], [-inf, 0.0, 1.0], [-inf, -inf, -inf],
                 [-1000.0, 1000.0, 999.0], [0.0, 0.0, 0.0]])
LSE = np.vstack([SOFT, [[inf, 0.0, 1.0], [inf, -inf, 0.0], [nan, 0.0, 1.0]]])
COMPOSITES = []
for dt in FLOATS:
    for axis in (-1, 0):
        COMPOSITES += [
            Case(f"softmax-{dt}-axis{axis}", lambda x, a=axis: lj.softmax(x, axis=a),
                 lambda x, a=axis: special.softmax(x, axis=a), ((3, 5),), dt, extra={"accum": 1}),
            Case(f"log_softmax-{dt}-axis{axis}", lambda x, a=axis: lj.log_softmax(x, axis=a),
                 lambda x, a=axis: special.log_softmax(x, axis=a), ((3, 5),), dt,
                 extra={"accum": 1}),
        ]
    COMPOSITES += [
        Case(f"softmax-of-{dt.replace('float', 'int')}", lj.softmax,
             lambda x: special.softmax(x, axis=-1), ((3, 4),), dt.replace("float", "int")),
        Case(f"softmax-extremes-{dt}", lj.softmax, lambda x: special.softmax(x, axis=-1),
             values=(SOFT.astype(dt),)),
        Case(f"log_softmax-extremes-{dt}", lj.log_softmax,
             lambda x: special.log_softmax(x, axis=-1), values=(SOFT.astype(dt),)),
        Case(f"logsumexp-extremes-{dt}", lambda x: lj.logsumexp(x, axis=1),
             lambda x: special.logsumexp(x, axis=1),
             values=(LSE.astype(dt),)),
    ]
    COMPOSITES += [
        Case(f"softmax_cross_entropy-int-{dt}",
             lambda z: lj.softmax_cross_entropy(z, np.array([4, 0, 2])),
             lambda z: -special.log_softmax(z, axis=-1)[np.arange(3), [4, 0, 2]],
             ((3, 5),), dt),
        Case(f"softmax_cross_entropy-axis0-extremes-{dt}",
             lambda z: lj.softmax_cross_entropy(z, np.array([0, 1, 2]), axis=0),
             lambda z: -special.log_softmax(z, axis=0)[[0, 1, 2], np.arange(3)],
             values=(SOFT[:3].T.astype(dt),)),
        Case(f"softmax_cross_entropy-probs-{dt}",
             lambda z, p: lj.softmax_cross_entropy(z, p),
             lambda z, p: -(p * special.log_softmax(z, axis=-1)).sum(-1),
             ((3, 5), (3, 5)), dt, domain=("any", "pos")),
    ]
    COMPOSITES += [Case(f"logsumexp-{dt}-axis{ax}-keep{kd}",
                        lambda x, a=ax, k=kd: lj.logsumexp(x, axis=a, keepdims=k),
                        lambda x, a=ax, k=kd: special.logsumexp(x, axis=a, keepdims=k),
                        ((2, 3, 4),), dt, extra={"accum": 1})
                   for ax in (None, 1, (0, 2)) for kd in (False, True)]
for dt in DTYPES:
    COMPOSITES += [
        Case(f"clip-{dt}", lambda x: x.clip(-1, 2), lambda x: np.clip(x, -1, 2), ((3, 4),), dt),
        Case(f"clip-one-sided-{dt}", lambda x: lj.clip(x, None, 0.5),
             lambda x: np.clip(x, None, 0.5), ((3, 4),), dt),
        Case(f"square-{dt}", lj.square, np.square, ((5,),), dt),
    ]
    # reciprocal is 1 / x: NumPy's integer reciprocal (1 // x) is not provided
    if dt in FLOATS:
        COMPOSITES.append(Case(f"reciprocal-{dt}", lj.reciprocal, np.reciprocal, ((5,),), dt,
                               "nonzero"))
_ROUNDING = np.array([1250, 1350, -1250, -1350, 1249, 50, -50, 150, 5, 15, 25, -5, 127, -128])
COMPOSITES += [
    *(Case(f"isfinite-{dt}", lj.isfinite, np.isfinite, values=(np.array(SPECIAL, dt),))
      for dt in FLOATS),
    *(Case(f"isfinite-{dt}", lj.isfinite, np.isfinite, ((2, 3),), dt) for dt in ("int32", "bool")),
    *(Case(f"nan_to_num-{dt}-{i}", lambda x, kw=kw: lj.nan_to_num(x, **kw),
           lambda x, kw=kw: np.nan_to_num(x, **kw), values=(np.array(SPECIAL, dt),))
      for dt in FLOATS for i, kw in enumerate(({}, dict(nan=-1.0, posinf=9.0, neginf=-9.0)))),
    Case("nan_to_num-int32", lj.nan_to_num, np.nan_to_num, ((2, 3),), "int32"),
    *(Case(f"round-{dt}-{d}", lambda x, d=d: lj.round(x, d), lambda x, d=d: np.round(x, d),
           values=(_ROUNDING.astype(dt) / (1 if dt[0] == "i" else 100),))
      for dt in FLOATS + ("int8", "int32", "int64") for d in (0, 1, 2, -1, -2, -3)),
    Case("round-uint16-wraps", lambda x: lj.round(x, -5), lambda x: np.round(x, -5),
         values=(np.array([50000, 60000, 7, 65535], np.uint16),)),
    Case("round-bool", lj.round, np.round, ((3,),), "bool"),
    Case("around-float32", lj.around, np.around, ((4, 3),), "float32"),
]
COMPOSITES += [
    Case("clip-nan", lambda x: lj.clip(x, -1.0, 1.0), lambda x: np.clip(x, -1.0, 1.0),
         values=(np.array([nan, -3.0, 0.5, 3.0, inf]),)),
    Case("clip-tensor-bounds", lambda x, lo, hi: lj.clip(x, lo, hi), np.clip,
         ((3, 4), (4,), (3, 1)), "float64", ("any", "small", "pos")),
]


def _api(name, f, shapes, dtype="float64", domain="any"):
    """A case spelled the same with ``m = lj`` and ``m = np`` (NumPy-named aliases)."""
    return Case(f"api-{name}", lambda *xs: f(lj, *xs), lambda *xs: f(np, *xs), shapes, dtype,
                domain)


COMPOSITES += [
    _api("arith", lambda m, a, b: (m.add(a, b), m.subtract(a, b), m.multiply(a, b),
                                   m.divide(a, b), m.true_divide(a, b), m.floor_divide(a, b),
                                   m.remainder(a, b), m.mod(a, b), m.power(m.absolute(a), b),
                                   m.negative(a), m.absolute(a)),
         ((3, 4), (4,)), "float64", ("any", "nonzero")),
    _api("compare", lambda m, a, b: (m.equal(a, b), m.not_equal(a, b), m.less(a, b),
                                     m.less_equal(a, b), m.greater(a, b), m.greater_equal(a, b),
                                     m.bitwise_and(a, b), m.bitwise_or(a, b),
                                     m.bitwise_xor(a, b), m.invert(a), m.logical_not(a)),
         ((3, 4), (3, 1)), "int32"),
    _api("shape", lambda m, a, b: (m.amax(a, 0), m.amin(a, 1), m.permute_dims(a, (1, 0)),
                                   m.concat([a, b]), m.ravel(a), *m.broadcast_arrays(a, b[0]),
                                   m.full_like(a, 2), m.zeros_like(a), m.ones_like(a),
                                   m.asarray(a), m.isnan(a), m.isinf(a)),
         ((2, 3), (1, 3))),
    Case("at-get", lambda x: x.at[1:, [0, 0]].get(), lambda x: x[1:, [0, 0]], ((3, 4),)),
    Case("empty-is-zeros", lambda: lj.empty((2, 3), "int32"), lambda: np.zeros((2, 3), "int32")),
]


def _create_case(n, f, r):
    return Case(f"create-{n}", lambda: f(lj), lambda: r(np))


COMPOSITES += [_create_case(n, f, f) for n, f in [
    ("zeros", lambda m: m.zeros((2, 3))), ("ones-int", lambda m: m.ones(4, dtype="int32")),
    ("full", lambda m: m.full((2, 2), 7.5)), ("full-int", lambda m: m.full((3,), 2)),
    ("arange", lambda m: m.arange(2, 11, 3)), ("arange-f", lambda m: m.arange(0.0, 1.0, 0.25)),
    ("linspace", lambda m: m.linspace(-1, 1, 5)), ("eye", lambda m: m.eye(3, 4, k=1)),
    ("zeros_like", lambda m: m.zeros_like(m.ones((2, 2), dtype="int64"))),
    ("full-bool", lambda m: m.full((2,), True)),
]]

GROUPS: dict[str, list[Case]] = {}
for _case in [c for cases in OPS.values() for c in cases] + COMPOSITES:
    GROUPS.setdefault(_case.group or _case.id, []).append(_case)

# groups run together, up to 8 cases per test: one realize compiles one module for them
# (gcc's fixed cost per module was most of this file's time)
BATCHES = batched(GROUPS, 8)


def _build(case, arrays):
    return case.fn(*[lj.tensor(a) for a in arrays])


def _accum_tol(case, expected):
    if not case.extra.get("accum") or case.rtol is not None:
        return case.rtol, case.atol
    dts = {np.asarray(e).dtype for e in (expected if isinstance(expected, (list, tuple))
                                         else [expected])}
    return (1e-5, 1e-4) if np.dtype("float32") in dts else (1e-10, 1e-10)


@pytest.mark.parametrize("group", BATCHES.values(), ids=BATCHES.keys())
def test_op(group, backend, rng):
    """The cases of a few groups against NumPy; their values are computed in one
    realize."""
    checks, rejected = [], []
    for case in group:
        arrays = case.inputs(rng)
        expected = _expect(case, arrays)
        if isinstance(expected, str):
            rejected.append(expected)
        elif expected is not None:
            checks.append((case, _build(case, arrays), expected))
    _realize_pinpointed(checks)
    failures = []
    for case, out, expected in checks:
        try:
            assert_same(out, expected, *_accum_tol(case, expected))
        except AssertionError as e:
            failures.append(f"[{case.id}] {e}")
    assert not failures, "\n".join(failures)
    if len(rejected) == len(group):
        pytest.skip(f"NumPy raises TypeError: {rejected[0]}")


def _expect(case, arrays):
    """NumPy's result for ``case``; or NumPy's TypeError message after checking that lazyjit
    refuses the op too; or None after checking that lazyjit raises NumPy's ValueError or
    IndexError (at build time or when computing)."""
    try:
        return reference(case.ref, arrays)
    except TypeError as e:
        with pytest.raises((TypeError, lj.LazyjitError)):
            _build(case, arrays)
        return str(e)
    except (ValueError, IndexError) as e:
        with pytest.raises(type(e)):
            lj.realize(*flat_tensors(_build(case, arrays)))
        return None


def _realize_pinpointed(checks) -> None:
    """Realize all outputs at once; if that fails, name the case that fails alone."""
    try:
        lj.realize(*[t for _, out, _ in checks for t in flat_tensors(out)])
    except Exception:
        for case, out, _ in checks:
            try:
                lj.realize(*flat_tensors(out))
            except Exception as e:
                raise AssertionError(f"[{case.id}] {type(e).__name__}: {e}") from e
        raise


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
       op=st.sampled_from(["add", "sub", "mul", "maximum", "le", "floordiv"]),
       dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)), data=st.data())
def test_binary_broadcasting_property(backend, shapes, op, dtypes, data):
    """Random broadcastable shapes and dtype pairs: as NumPy, including the promotion."""
    arrays = [data.draw(hnp.arrays(dt, shape, elements=ELEMENTS[dt]))
              for dt, shape in zip(dtypes, shapes.input_shapes, strict=True)]
    fn, ref = BINARY[op][:2]
    case = Case(f"{op}-property", fn, ref)
    expected = _expect(case, arrays)
    if not isinstance(expected, str):
        assert_same(_build(case, arrays), expected)


ELEMENTS = {"float32": st.floats(-8, 8, width=32), "float64": st.floats(-8, 8),
            "int32": st.integers(-8, 8), "int64": st.integers(-8, 8), "bool": st.booleans()}


def test_every_registry_op_has_cases(rng):
    """Each registered op has cases here, and at least one of them really builds it."""
    # "gemm" is made only by a rewrite (tests/test_rewrite.py checks it on both backends)
    ops = set(REGISTRY) - {"gemm"}
    assert set(OPS) == ops, (ops - set(OPS), set(OPS) - ops)
    for name, cases in OPS.items():
        built = set()
        for case in cases:
            try:
                built |= graph_ops(*flat_tensors(_build(case, case.inputs(rng))))
            except (TypeError, ValueError, IndexError):
                continue
            if name in built:
                break
        assert name in built, f"no case of {name!r} builds a {name!r} node"
