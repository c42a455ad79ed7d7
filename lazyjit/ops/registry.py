"""The op registry: one :class:`OpDef` per primitive op.

An OpDef gathers everything lazyjit knows about an op in one place: its kind (which
decides how backends render it), its shape rule, its dtype rule, its NumPy reference
(the semantics, and the ``numpy`` backend), a backend-neutral C expression for
elementwise ops, and its derivatives: a vector-Jacobian product (reverse mode, used by
:mod:`lazyjit.autodiff`) and a Jacobian-vector product (forward mode, used by
:mod:`lazyjit.autodiff.forward`).  An op with only a VJP still has a forward mode: the JVP is
then the transpose of the VJP (see :func:`lazyjit.autodiff.forward.transposed_vjp`).  Composite
functions (softmax, mean, var, ...) are written in primitives in :mod:`lazyjit.api`
and need no entry here.  :func:`apply` builds a node after checking its op's shape and
dtype rules (the one way the API makes op nodes).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from lazyjit.errors import op_error
from lazyjit.trace.constraints import discard
from lazyjit.trace.node import Node

# kinds: leaf, elementwise, reduce, movement (views), matmul, and "other" kernels
# "loop": a node running an inner graph (scan); "branch": a conditional (ifelse);
# "select": picks one result of those multi-result nodes
# "window": sliding-window ops (convolution, pooling), whose concrete implementation each
# backend chooses per shape (see lazyjit.backends.algorithms); "sort": a permutation of
# each row by its keys; "linalg": a dense factorization or solve on the last two axes
# (lazyjit.ops.linalg); "check": a run-time guard that passes its first operand through;
# "deferred": a gradient kept as one node until a plan is built or it is differentiated
# again (lazyjit.autodiff.reverse.expand_grads), which no backend ever sees
# "fft": a discrete Fourier transform along the last axis (lazyjit.ops.fft), computed
# by NumPy's pocketfft on every backend
KINDS = ("leaf", "elementwise", "reduce", "movement", "matmul", "index", "concat", "arg",
         "loop", "branch", "select", "window", "sort", "linalg", "check", "deferred", "fft",
         "numpy")

# float16 is NumPy's float16 (IEEE 754 binary16): stored in 16 bits, computed in float32
# (each backend's elementwise ops compute in float32; sums, products and matrix products
# accumulate in float32), promoted as NumPy promotes it.  complex64 and complex128 are
# NumPy's (pairs of float32 or float64, C99's float _Complex and double _Complex);
# only the ops in COMPLEX_OPS, and the kinds in _ANY_DTYPE, take complex operands
SUPPORTED_DTYPES = tuple(np.dtype(d) for d in
                         ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                          "uint64", "float16", "float32", "float64", "complex64", "complex128"))

# the ops defined for complex operands (their C templates have a ``c`` form, their
# derivative rules follow JAX's convention: :mod:`lazyjit.ops.complex_ops`); the others
# (orderings, max and min, integer and bitwise ops, sorting, convolution, LAPACK, ...)
# raise a TypeError naming the op
# elementwise ops computed by exact (correctly rounded) arithmetic, comparisons, casts
# and selections, with no libm approximation (libmvec's vector exp or sin, which the cpu
# backend calls in vectorized loops, differs in the last bits from libm's scalar one in
# the other loops): the same operands give the same bits in every kernel, so that a
# schedule may compute such a node again in each kernel that reads it
# (:mod:`lazyjit.schedule.fusion`); recomputing another could make ``x == max(x)``
# false everywhere along an axis
EXACT_OPS = frozenset((
    "abs", "add", "sub", "mul", "div", "neg", "reciprocal", "sqrt", "maximum", "minimum",
    "relu", "floor", "ceil", "rint", "trunc", "sign", "signbit", "copysign", "fmod",
    "floordiv", "mod", "cast", "where", "stop_gradient", "eq", "ne", "lt", "le", "gt",
    "ge", "isnan", "isinf", "logical_not", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
    "real", "imag", "conj", "philox"))
COMPLEX_OPS = frozenset((
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "abs", "eq", "ne", "isnan", "isinf", "where", "cast", "stop_gradient", "logical_not",
    "logical_and", "logical_or", "logical_xor", "real", "imag", "conj", "sum", "prod",
    "matmul", "gemm", "fft", "log1p", "expm1", "log2", "log10", "exp2", "sign", "solve",
    "slogdet", "cholesky", "eigh", "svd", "qr", "eig", "reciprocal"))
_ANY_DTYPE = frozenset(("leaf", "movement", "index", "concat", "select", "loop", "branch",
                        "check", "deferred"))


@dataclass(frozen=True)
class OpDef:
    """Everything about one primitive op.

    Attributes
    ----------
    name : the op name used in nodes, keys and error messages.
    kind : how backends render it (one of ``KINDS``).
    ref : NumPy reference ``ref(*arrays, arg) -> ndarray``; defines the semantics.
    shape : ``shape(src_nodes, arg) -> tuple``; raises ``ValueError`` on bad shapes.
    dtype : ``dtype(src_dtypes, arg) -> np.dtype``; ``None`` derives it from ``ref``.
    c : elementwise C expression template: ``{0}``.. operands, ``{s}`` libm suffix
        (``f`` for float32 and float16), ``{T}`` result C type, ``{I}`` operand C type,
        ``{n}`` operand dtype name (float16 is seen as float32, the type it is computed in:
        :mod:`lazyjit.backends.cfamily`); a dict maps the operand dtype kind (``'f'``, ``'i'``,
        ``'b'``, ``'u'``, ``'*'`` for any other) or the result kind (``'>b'``) to a template.
    vjp : ``vjp(g, out, *srcs, arg) -> tuple`` of cotangents (Tensors or ``None`` for
        zero/disconnected), with ``g``, ``out`` and ``srcs`` as Tensors.
    jvp : ``jvp(ts, out, *srcs, arg) -> Tensor | None``: the tangent of ``out`` given
        ``ts``, one tangent per source (a Tensor of the source's shape and dtype, or
        ``None`` for a symbolic zero: integer sources, or sources that do not depend on
        the differentiated inputs).  ``None`` as the result is a zero tangent.  Both
        rules are written with the public functions (``F``), so derivatives of
        derivatives work to any order.
    float_only : inputs must be floating point (ints are promoted by the API).
    identity : for a reduce op: ``identity(dtype) -> a NumPy scalar of dtype``, the value
        of a reduction over no elements and where an accumulator starts (0 for ``sum``,
        1 for ``prod``, the lowest value of the dtype for ``max`` (``-inf`` for floats,
        ``False`` for bool), the highest for ``min``).
    results : for a multi-result op (kinds ``loop`` and ``branch``, whose node has shape
        ``()``): ``results(src_nodes, arg) -> [(shape, dtype), ...]``, the result that
        each ``scan_out`` node selects.
    """

    name: str
    kind: str
    ref: Callable[..., np.ndarray]
    shape: Callable[[tuple, Any], tuple] | None = None
    dtype: Callable[[tuple, Any], np.dtype] | None = None
    c: str | dict | None = None
    vjp: Callable[..., tuple] | None = None
    jvp: Callable[..., Any] | None = None
    float_only: bool = False
    identity: Callable[[np.dtype], Any] | None = None
    results: Callable[[tuple, Any], list] | None = None
    doc: str = ""


REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    assert opdef.kind in KINDS, opdef.kind
    assert opdef.name not in REGISTRY, opdef.name
    REGISTRY[opdef.name] = opdef
    return opdef


def kind_of(node: Node) -> str:
    """The kind of ``node``'s op: ``"leaf"`` for buffers, constants and placeholders."""
    opdef = REGISTRY.get(node.op)
    return "leaf" if opdef is None else opdef.kind


_DTYPE_CACHE: dict[tuple, np.dtype] = {}


def ref_dtype(opdef: OpDef, srcs: tuple, arg: Any) -> np.dtype:
    """Output dtype as NumPy's reference computes it, cached per (op, arg, dtypes, ranks):
    float16 where NumPy gives it (``np.exp`` of an int8 or bool array)."""
    key = (opdef.name, arg, *[(s.dtype, len(s.shape)) for s in srcs])
    dt = _DTYPE_CACHE.get(key)
    if dt is None:
        with np.errstate(all="ignore"):
            probe = [np.ones((1,) * len(s.shape), s.dtype) for s in srcs]
            dt = np.asarray(opdef.ref(*probe, arg)).dtype
        _DTYPE_CACHE[key] = dt
    return dt


def apply(name: str, srcs: tuple[Node, ...], arg: Any = None) -> Node:
    """Create (or find) the node ``name(srcs, arg)`` after checking shapes and dtypes.

    Raises
    ------
    LazyjitError
        If the op's shape or dtype rule rejects the operands; the message names the op,
        the operand shapes and dtypes, and the user's line.
    """
    opdef = REGISTRY[name]
    if name not in COMPLEX_OPS and opdef.kind not in _ANY_DTYPE:
        for s in srcs:
            if s.dtype.kind == "c":
                raise op_error(name, "not defined for complex operands", srcs, cls=TypeError)
    try:
        shape = opdef.shape(srcs, arg) if opdef.shape is not None else srcs[0].shape
        dtype = opdef.dtype(srcs, arg) if opdef.dtype is not None else ref_dtype(opdef, srcs, arg)
    except (ValueError, TypeError, np.exceptions.AxisError) as e:
        discard()  # (requirements the rule recorded before it failed)
        raise op_error(name, str(e), srcs) from None
    return Node.make(name, srcs, arg, tuple(shape), np.dtype(dtype))


class _Functions:
    """The NumPy-named functions the derivative rules are written with (``F.sum``,
    ``F.where``, ..., and ``F.Tensor`` for a node as a tensor): the API is a layer above
    the ops, so :mod:`lazyjit.api` binds them here (:meth:`bind`) when it is imported."""

    def bind(self, namespace, **more: Callable) -> None:
        """Make the public names of the module ``namespace``, and ``more``, attributes."""
        self.__dict__.update({k: v for k, v in vars(namespace).items() if not k.startswith("__")})
        self.__dict__.update(more)


F = _Functions()


def attach_rules(name: str, vjp: Callable[..., tuple], jvp: Callable[..., Any]) -> None:
    """Give the registered op ``name`` its derivative rules, for the ops whose rules need a
    layer above the ops (a loop's derivatives are loops of derivatives:
    :mod:`lazyjit.autodiff.scan_grad`)."""
    REGISTRY[name] = dataclasses.replace(REGISTRY[name], vjp=vjp, jvp=jvp)


def diagonal_jvp(vjp: Callable[..., tuple]) -> Callable[..., Any]:
    """The JVP rule of an elementwise op, from its VJP rule.

    The operands of an elementwise primitive have the output's shape, so the Jacobian
    with respect to each operand is diagonal, hence its own transpose: ``J_i t_i`` is
    the VJP rule applied to the tangent ``t_i`` as cotangent, and the JVP is
    ``sum_i vjp(t_i)[i]``.  Edge conventions (``sqrt`` at 0, ties of ``maximum``, ...)
    are therefore the same in both modes.
    """
    def jvp(ts, out, *srcs_arg):
        total = None
        for i, t in enumerate(ts):
            if t is None:
                continue
            term = vjp(t, out, *srcs_arg)[i]
            if term is not None:
                total = term if total is None else total + term
        return total
    return jvp


def linear_jvp(ts, out, *srcs_arg):
    """The JVP rule of an op that is linear in its floating-point operands (sums, views,
    indexed reads and writes, concatenation): the same op applied to the tangents, zeros
    standing for symbolic zeros and integer operands (indices) passed unchanged."""
    *srcs, arg = srcs_arg
    if all(t is None for t in ts):
        return None
    operands = tuple((s if s.dtype.kind not in "fc" else t if t is not None
                      else F.zeros_like(s)).node for s, t in zip(srcs, ts, strict=True))
    return F.Tensor(apply(out.node.op, operands, arg))


def bilinear_jvp(f: Callable[..., Any]) -> Callable[..., Any]:
    """The JVP rule of an op bilinear in its two operands (matmul, convolution), given
    ``f(a, b, arg)`` building the op: ``f(ta, b) + f(a, tb)``, symbolic zeros skipped."""
    def jvp(ts, out, a, b, arg):
        ta, tb = ts
        terms = ([f(ta, b, arg)] if ta is not None else []) + \
            ([f(a, tb, arg)] if tb is not None else [])
        return None if not terms else terms[0] if len(terms) == 1 else terms[0] + terms[1]
    return jvp
