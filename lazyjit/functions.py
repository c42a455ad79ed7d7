"""NumPy-named functions over lazy tensors (``lj.exp``, ``lj.sum``, ``lj.matmul``, ...).

Semantics follow NumPy 2: broadcasting, type promotion with weakly typed Python scalars
(NEP 50: ``float32 * 2.0`` stays float32), reductions with ``axis`` tuples and
``keepdims``.  Every function only records nodes; nothing is computed here.
Composite functions (``mean``, ``var``, ``softmax``, ``logsumexp``, ...) are written in
primitives, so they need no rules of their own.
"""
from __future__ import annotations

import builtins
import math
from numbers import Number
from typing import Any, NamedTuple, Sequence

import numpy as np

from lazyjit.ops import REGISTRY, ref_dtype
from lazyjit.tensor import Tensor, apply, check_dtype
from lazyjit.trace.node import LazyjitError, Node, op_error

Scalar = (bool, int, float, np.generic)


class _Probe(NamedTuple):
    """Stands for an operand in dtype rules: only ``shape`` and ``dtype`` are read."""
    shape: tuple
    dtype: np.dtype


# ---------------------------------------------------------------------------------------
# creation
# ---------------------------------------------------------------------------------------

def tensor(data: Any, dtype: Any = None, device: str | None = None) -> Tensor:
    """Create a tensor holding a copy of ``data`` (array-like), as ``np.array`` would.

    Parameters
    ----------
    data : array-like (nested lists, scalars, NumPy arrays, tensors).
    dtype : optional dtype; default as NumPy infers it (Python floats give float64).
    device : accepted for API compatibility; the backend is chosen by the ``backend`` flag.

    Raises
    ------
    LazyjitError
        For a non-numeric dtype (strings, objects).
    """
    if isinstance(data, Tensor):
        return data.astype(dtype) if dtype is not None else data
    arr = np.array(data, dtype=dtype, order="C", copy=True)
    check_dtype(arr.dtype, "tensor")
    arr.flags.writeable = False
    return Tensor(Node.leaf(arr))


def _from_array(arr: np.ndarray) -> Tensor:
    arr = np.asarray(arr, order="C")
    arr.flags.writeable = False
    return Tensor(Node.leaf(arr))


def _shape_arg(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def full(shape, fill_value, dtype=None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (a broadcast constant, no memory)."""
    dt = check_dtype(dtype if dtype is not None else np.asarray(fill_value).dtype, "full")
    return broadcast_to(Tensor(Node.const(fill_value, dt)), _shape_arg(shape))


def zeros(shape, dtype=np.float64) -> Tensor:
    """A tensor of zeros, as ``np.zeros``."""
    return full(shape, 0, dtype)


def ones(shape, dtype=np.float64) -> Tensor:
    """A tensor of ones, as ``np.ones``."""
    return full(shape, 1, dtype)


def empty(shape, dtype=np.float64) -> Tensor:
    """As ``np.empty``; lazyjit fills it with zeros."""
    return zeros(shape, dtype)


def zeros_like(x, dtype=None) -> Tensor:
    x = asarray(x)
    return zeros(x.shape, dtype or x.dtype)


def ones_like(x, dtype=None) -> Tensor:
    x = asarray(x)
    return ones(x.shape, dtype or x.dtype)


def full_like(x, fill_value, dtype=None) -> Tensor:
    x = asarray(x)
    return full(x.shape, fill_value, dtype or x.dtype)


def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """As ``np.arange``."""
    return _from_array(np.arange(start, stop, step, dtype=dtype))


def linspace(start, stop, num=50, endpoint=True, dtype=None) -> Tensor:
    """As ``np.linspace``."""
    return _from_array(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))


def eye(n, m=None, k=0, dtype=np.float64) -> Tensor:
    """As ``np.eye``."""
    return _from_array(np.eye(n, m, k, dtype=dtype))


def asarray(x, dtype=None) -> Tensor:
    """Return ``x`` as a tensor (no copy for tensors of the right dtype)."""
    if isinstance(x, Tensor):
        return x if dtype is None or np.dtype(dtype) == x.dtype else x.astype(dtype)
    return tensor(x, dtype)


# ---------------------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------------------

def _as_operand(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Scalar) and not isinstance(x, np.generic):
        return x  # weakly typed Python scalar
    return tensor(x)


def broadcast_shapes(*shapes, op: str = "broadcast") -> tuple[int, ...]:
    """NumPy's broadcast of ``shapes``; raises naming ``op`` and the shapes."""
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) > len(out):
            out[:0] = [1] * (len(shape) - len(out))
        k = len(out) - len(shape)
        for i, d in enumerate(shape):
            o = out[k + i]
            if d != o:
                if o == 1:
                    out[k + i] = d
                elif d != 1:
                    shown = ", ".join(str(tuple(s)) for s in shapes)
                    raise op_error(op, f"shapes {shown} cannot be broadcast together")
    return tuple(out)


def _node_to(x, dtype: np.dtype, shape: tuple[int, ...]) -> Node:
    if isinstance(x, Tensor):
        node = x.node
        if node.dtype != dtype:
            node = apply("cast", (node,), dtype.str)
        return _broadcast_node(node, shape)
    key = (type(x), repr(x), dtype, shape)
    node = _CONSTS.get(key)
    if node is None:
        try:
            node = _broadcast_node(Node.const(x, dtype), shape)
        except OverflowError as e:
            raise op_error("const", f"Python scalar {x!r} does not fit {dtype}: {e}") from None
        if len(_CONSTS) > 4096:
            _CONSTS.clear()
        _CONSTS[key] = node
    return node


_CONSTS: dict = {}  # (type, value, dtype, shape) -> broadcast constant node


def _broadcast_node(node: Node, shape: tuple[int, ...]) -> Node:
    if node.shape == shape:
        return node
    if node.ndim < len(shape):
        node = apply("reshape", (node,), (1,) * (len(shape) - node.ndim) + node.shape)
    if node.shape != shape:
        node = apply("expand", (node,), shape)
    return node


_SAME_TYPE_OUT: dict = {}  # (op, dtype) -> result dtype, when no operand needs a cast


def elementwise(name: str, *operands) -> Tensor:
    """Apply the elementwise primitive ``name`` with NumPy broadcasting and promotion."""
    first = operands[0]
    if type(first) is Tensor:  # fast path: tensors of one shape and dtype
        node0 = first.node
        for x in operands:
            if type(x) is not Tensor or x.node.shape != node0.shape or \
                    x.node.dtype != node0.dtype:
                break
        else:
            out = _SAME_TYPE_OUT.get((name, node0.dtype))
            if out is not None:
                return Tensor(Node.make(name, tuple([x.node for x in operands]), None,
                                        node0.shape, out))
    return _elementwise(name, operands)


def _elementwise(name: str, operands) -> Tensor:
    ops = [_as_operand(x) for x in operands]
    tensors = [x for x in ops if isinstance(x, Tensor)]
    opdef = REGISTRY[name]
    if len(tensors) == len(ops):
        dts = {t.dtype for t in tensors}
        common = tensors[0].dtype if len(dts) == 1 else None
    else:
        common = None
    if common is None:
        try:
            common = np.result_type(*[x.dtype if isinstance(x, Tensor) else x for x in ops])
        except TypeError as e:
            raise op_error(name, str(e), tuple(t.node for t in tensors)) from None
        check_dtype(common, name)
    shape = broadcast_shapes(*[t.shape for t in tensors], op=name) if tensors else ()
    probe = _Probe(shape, common)
    try:
        out = ref_dtype(opdef, (probe,) * len(ops), None)
    except TypeError:
        raise op_error(name, f"not defined for dtype {common}",
                       tuple(t.node for t in tensors)) from None
    if opdef.float_only and out != common and out != np.bool_:
        common = out
    elif len(tensors) == len(ops) and builtins.all(t.dtype == common for t in tensors):
        _SAME_TYPE_OUT[(name, common)] = out if out == np.bool_ or not opdef.float_only \
            else common
    srcs = tuple(_node_to(x, common, shape) for x in ops)
    return Tensor(Node.make(name, srcs, None, shape, out if out == np.bool_ or
                            not opdef.float_only else common))


def _unary(name):
    def fn(x):
        return elementwise(name, x)
    fn.__name__ = name
    fn.__doc__ = (f"Elementwise ``{name}``, as NumPy's ufunc of that name; integer and bool "
                  "inputs are promoted as NumPy promotes them.")
    return fn


exp = _unary("exp")
log = _unary("log")
log1p = _unary("log1p")
expm1 = _unary("expm1")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
tanh = _unary("tanh")
erf = _unary("erf")
sigmoid = _unary("sigmoid")
softplus = _unary("softplus")
relu = _unary("relu")
negative = _unary("neg")
absolute = _unary("abs")
abs = absolute  # noqa: A001 - NumPy's name
sign = _unary("sign")
floor = _unary("floor")
ceil = _unary("ceil")
logical_not = _unary("logical_not")
invert = _unary("invert")
isnan = _unary("isnan")
isinf = _unary("isinf")
sigmoid.__doc__ = "Logistic sigmoid ``1 / (1 + exp(-x))``, computed without overflow."
softplus.__doc__ = "``log(1 + exp(x))``, computed without overflow (``max(x,0)+log1p(exp(-|x|))``)."
relu.__doc__ = "Rectified linear unit ``maximum(x, 0)``; NaN propagates as in NumPy."
erf.__doc__ = "Gauss error function, as ``scipy.special.erf``."


def _binary(name):
    def fn(a, b):
        return elementwise(name, a, b)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with NumPy broadcasting and type promotion."
    return fn


add = _binary("add")
subtract = _binary("sub")
multiply = _binary("mul")
floor_divide = _binary("floordiv")
remainder = _binary("mod")
mod = remainder
power = _binary("pow")
maximum = _binary("maximum")
minimum = _binary("minimum")
equal = _binary("eq")
not_equal = _binary("ne")
less = _binary("lt")
less_equal = _binary("le")
greater = _binary("gt")
greater_equal = _binary("ge")
logical_and = _binary("logical_and")
logical_or = _binary("logical_or")
logical_xor = _binary("logical_xor")
bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")
floor_divide.__doc__ = ("Floor division ``a // b`` with NumPy semantics (rounds toward -inf; "
                        "integer division by zero gives 0).")
remainder.__doc__ = "Remainder ``a % b`` with NumPy semantics (the sign of ``b``)."


def true_divide(a, b) -> Tensor:
    """``a / b``; integer operands give float64, as in NumPy."""
    return elementwise("div", a, b)


divide = true_divide


def where(condition, x, y) -> Tensor:
    """Elements of ``x`` where ``condition`` else of ``y`` (``np.where`` with 3 arguments).
    Both branches are computed; the gradient flows only into the selected one."""
    c = _as_operand(condition)
    if not isinstance(c, Tensor) or c.dtype != np.bool_:
        c = asarray(c).astype(np.bool_)
    xs = [_as_operand(x), _as_operand(y)]
    tensors = [t for t in xs if isinstance(t, Tensor)]
    common = np.result_type(*[t.dtype if isinstance(t, Tensor) else t for t in xs])
    check_dtype(common, "where")
    shape = broadcast_shapes(c.shape, *[t.shape for t in tensors], op="where")
    srcs = (_broadcast_node(c.node, shape),) + tuple(_node_to(t, common, shape) for t in xs)
    return Tensor(apply("where", srcs))


def clip(x, a_min=None, a_max=None) -> Tensor:
    """Limit values to ``[a_min, a_max]`` (``np.clip``); ``None`` leaves a side open."""
    out = asarray(x)
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


def astype(x, dtype) -> Tensor:
    """Cast to ``dtype`` (C casting rules as NumPy's ``astype``)."""
    x = asarray(x)
    dt = check_dtype(dtype, "astype")
    return x if dt == x.dtype else Tensor(apply("cast", (x.node,), dt.str))


def square(x) -> Tensor:
    """``x * x``, as ``np.square`` (which has no bool loop: bool gives int8)."""
    x = asarray(x)
    if x.dtype == np.bool_:
        x = astype(x, np.int8)
    return x * x


def reciprocal(x) -> Tensor:
    """``1 / x``; integers give float64 (NumPy's integer reciprocal, which truncates, is
    not provided)."""
    return 1.0 / asarray(x)


# ---------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------

def _axes(axis, ndim: int, op: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise op_error(op, f"axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise op_error(op, f"repeated axis in {axis}")
    return tuple(sorted(out))


def _squeeze_axes(t: Tensor, axes: tuple[int, ...]) -> Tensor:
    if not axes:
        return t
    shape = tuple(d for i, d in enumerate(t.shape) if i not in axes)
    return reshape(t, shape)


def _reduce(name: str, x, axis, keepdims: bool, dtype=None) -> Tensor:
    x = asarray(x)
    axes = _axes(axis, x.ndim, name)
    if dtype is not None:
        x = astype(x, dtype)
    if name in ("sum", "prod"):
        out_dt = ref_dtype(REGISTRY[name], (x.node,), axes)
        if out_dt != x.dtype:
            x = astype(x, out_dt)
    if not axes:
        return x
    out = Tensor(apply(name, (x.node,), axes))
    return out if keepdims else _squeeze_axes(out, axes)


def sum(x, axis=None, keepdims=False, dtype=None) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (int, tuple or None for all), as ``np.sum``; bool and small
    integers accumulate in int64."""
    return _reduce("sum", x, axis, keepdims, dtype)


def prod(x, axis=None, keepdims=False, dtype=None) -> Tensor:
    """Product over ``axis``, as ``np.prod``."""
    return _reduce("prod", x, axis, keepdims, dtype)


def max(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Maximum over ``axis``, as ``np.max`` (NaN propagates; empty axes raise).
    Gradient: split evenly among tied maxima (a valid subgradient)."""
    return _reduce("max", x, axis, keepdims)


def min(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Minimum over ``axis``, as ``np.min``."""
    return _reduce("min", x, axis, keepdims)


amax, amin = max, min


def _arg(name: str, x, axis, keepdims) -> Tensor:
    x = asarray(x)
    if axis is None:
        flat = reshape(x, (x.size,))
        out = Tensor(apply(name, (flat.node,), 0))
        return reshape(out, (1,) * x.ndim) if keepdims else reshape(out, ())
    if not isinstance(axis, (int, np.integer)):
        raise op_error(name, f"axis must be an int or None, got {axis!r}", (x.node,))
    (a,) = _axes(axis, x.ndim, name)
    out = Tensor(apply(name, (x.node,), a))
    return out if keepdims else _squeeze_axes(out, (a,))


def argmax(x, axis=None, keepdims=False) -> Tensor:
    """Index (int64) of the first maximum along ``axis``, as ``np.argmax``."""
    return _arg("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False) -> Tensor:
    """Index (int64) of the first minimum along ``axis``, as ``np.argmin``."""
    return _arg("argmin", x, axis, keepdims)


def _count(x: Tensor, axis) -> int:
    return int(np.prod([x.shape[a] for a in _axes(axis, x.ndim, "mean")], dtype=np.int64))


def _float_dtype(x: Tensor, dtype=None):
    if dtype is not None:
        return np.dtype(dtype)
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def mean(x, axis=None, keepdims=False, dtype=None) -> Tensor:
    """Arithmetic mean over ``axis``, as ``np.mean`` (integers give float64)."""
    x = asarray(x)
    x = astype(x, _float_dtype(x, dtype))
    n = _count(x, axis)
    return sum(x, axis, keepdims) / (n if n else float("nan"))


def var(x, axis=None, keepdims=False, ddof=0, dtype=None) -> Tensor:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom, as ``np.var``."""
    x = asarray(x)
    x = astype(x, _float_dtype(x, dtype))
    d = x - mean(x, axis, keepdims=True)
    n = _count(x, axis) - ddof
    return sum(d * d, axis, keepdims) / (n if n > 0 else float("nan"))


def std(x, axis=None, keepdims=False, ddof=0, dtype=None) -> Tensor:
    """Standard deviation, ``sqrt(var)``, as ``np.std``."""
    return sqrt(var(x, axis, keepdims, ddof, dtype))


def any(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where any element along ``axis`` is nonzero, as ``np.any``."""
    return max(astype(x, np.bool_), axis, keepdims) if asarray(x).size else \
        zeros(_reduced_shape(asarray(x), axis, keepdims), np.bool_)


def all(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """True where all elements along ``axis`` are nonzero, as ``np.all``."""
    return min(astype(x, np.bool_), axis, keepdims) if asarray(x).size else \
        ones(_reduced_shape(asarray(x), axis, keepdims), np.bool_)


def _reduced_shape(x: Tensor, axis, keepdims) -> tuple[int, ...]:
    axes = _axes(axis, x.ndim, "reduce")
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)


def logsumexp(x, axis=None, keepdims=False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the max; all
    ``-inf`` gives ``-inf``, any ``+inf`` gives ``+inf``), as ``scipy.special.logsumexp``."""
    x = asarray(x)
    m = _finite_max(x, axis)
    out = log(sum(exp(x - m), axis, keepdims=True)) + m
    return out if keepdims else _squeeze_axes(out, _axes(axis, x.ndim, "logsumexp"))


def _finite_max(x: Tensor, axis) -> Tensor:
    """The max over ``axis`` (kept), 0 where it is infinite, as a constant for ``grad``:
    the shift that keeps ``exp`` in range."""
    m = stop_gradient(max(x, axis, keepdims=True))
    return where(isinf(m), zeros_like(m), m)


def log_softmax(x, axis=-1) -> Tensor:
    """``x - logsumexp(x, axis)``, stable for large magnitudes: computed as
    ``(x - max) - log(sum(exp(x - max)))`` so that no digits are lost to ``max``."""
    x = asarray(x)
    shifted = x - _finite_max(x, axis)
    return shifted - log(sum(exp(shifted), axis, keepdims=True))


def softmax(x, axis=-1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``, stable."""
    x = asarray(x)
    e = exp(x - _finite_max(x, axis))
    return e / sum(e, axis, keepdims=True)


def stop_gradient(x) -> Tensor:
    """The same value, treated as a constant by ``lj.grad``."""
    from lazyjit.autodiff import stop_gradient as sg
    return sg(x)


# ---------------------------------------------------------------------------------------
# movement
# ---------------------------------------------------------------------------------------

def reshape(x, shape, *more) -> Tensor:
    """Reshape (one ``-1`` allowed), as ``np.reshape`` in C order."""
    x = asarray(x)
    shape = _shape_arg(shape) + tuple(int(s) for s in more)
    if shape.count(-1) > 1:
        raise op_error("reshape", f"can only specify one unknown dimension, got {shape}", (x.node,))
    if -1 in shape:
        known = math.prod([s for s in shape if s != -1])
        if known == 0 or x.size % known:
            raise op_error("reshape", f"cannot reshape array of size {x.size} into shape {shape}",
                           (x.node,))
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    if shape == x.shape:
        return x
    return Tensor(apply("reshape", (x.node,), shape))


def transpose(x, axes=None) -> Tensor:
    """Permute axes (reverse them when ``axes`` is None), as ``np.transpose``."""
    x = asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))[::-1]
    axes = tuple(int(a) % x.ndim if x.ndim else int(a) for a in axes)
    if axes == tuple(range(x.ndim)):
        if len(axes) != x.ndim:
            raise op_error("transpose", f"axes {axes} don't match array", (x.node,))
        return x
    return Tensor(apply("permute", (x.node,), axes))


permute_dims = transpose


def swapaxes(x, axis1, axis2) -> Tensor:
    """Interchange two axes, as ``np.swapaxes``."""
    x = asarray(x)
    a, b = _axes(axis1, x.ndim, "swapaxes")[0], _axes(axis2, x.ndim, "swapaxes")[0]
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, tuple(perm))


def moveaxis(x, source, destination) -> Tensor:
    """Move one axis to a new position, as ``np.moveaxis``."""
    x = asarray(x)
    (s,), (d,) = _axes(source, x.ndim, "moveaxis"), _axes(destination, x.ndim, "moveaxis")
    perm = [i for i in range(x.ndim) if i != s]
    perm.insert(d, s)
    return transpose(x, tuple(perm))


def expand_dims(x, axis) -> Tensor:
    """Insert size-1 axes at ``axis`` (int or tuple), as ``np.expand_dims``."""
    x = asarray(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = x.ndim + len(axes)
    axes = _axes(axes, nd, "expand_dims")
    it = iter(x.shape)
    return reshape(x, tuple(1 if i in axes else next(it) for i in range(nd)))


def squeeze(x, axis=None) -> Tensor:
    """Remove size-1 axes (all, or those in ``axis``), as ``np.squeeze``."""
    x = asarray(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = _axes(axis, x.ndim, "squeeze")
        bad = [a for a in axes if x.shape[a] != 1]
        if bad:
            raise op_error("squeeze", f"cannot select an axis to squeeze out which has size "
                           f"not equal to one (axis {bad[0]})", (x.node,))
    return _squeeze_axes(x, axes)


def broadcast_to(x, shape) -> Tensor:
    """Broadcast to ``shape`` (a view, no copy), as ``np.broadcast_to``."""
    x = asarray(x)
    shape = _shape_arg(shape)
    if x.shape == shape:
        return x
    if len(shape) < x.ndim or broadcast_shapes(x.shape, shape, op="broadcast_to") != shape:
        raise op_error("broadcast_to", f"cannot broadcast shape {x.shape} to {shape}", (x.node,))
    return Tensor(_broadcast_node(x.node, shape))


def broadcast_arrays(*xs) -> list[Tensor]:
    xs = [asarray(x) for x in xs]
    shape = broadcast_shapes(*[x.shape for x in xs])
    return [broadcast_to(x, shape) for x in xs]


def ravel(x) -> Tensor:
    x = asarray(x)
    return reshape(x, (x.size,))


flatten = ravel


def concatenate(xs: Sequence, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis, as ``np.concatenate`` (dtypes promoted)."""
    xs = [asarray(x) for x in xs]
    if not xs:
        raise op_error("concatenate", "need at least one array to concatenate")
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    if builtins.any(x.ndim == 0 for x in xs):
        raise op_error("concatenate", "zero-dimensional arrays cannot be concatenated",
                       tuple(x.node for x in xs))
    (axis,) = _axes(axis, xs[0].ndim, "concatenate")
    dt = np.result_type(*[x.dtype for x in xs])
    xs = [astype(x, dt) for x in xs]
    if len(xs) == 1:
        return xs[0]
    return Tensor(apply("concat", tuple(x.node for x in xs), axis))


concat = concatenate


def stack(xs: Sequence, axis: int = 0) -> Tensor:
    """Join tensors along a new axis, as ``np.stack``."""
    xs = [asarray(x) for x in xs]
    if not xs:
        raise op_error("stack", "need at least one array to stack")
    shapes = {x.shape for x in xs}
    if len(shapes) != 1:
        raise op_error("stack", "all input arrays must have the same shape",
                       tuple(x.node for x in xs))
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def split(x, indices_or_sections, axis=0) -> list[Tensor]:
    """Split into pieces along ``axis``, as ``np.split``."""
    x = asarray(x)
    (axis,) = _axes(axis, x.ndim, "split")
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise op_error("split", f"array of size {n} along axis {axis} does not divide into "
                           f"{k} equal sections", (x.node,))
        bounds = [i * (n // k) for i in range(k + 1)]
    else:
        bounds = [0] + [builtins.min(int(i), n) for i in indices_or_sections] + [n]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        sl = tuple((a, builtins.max(a, b), 1) if i == axis else (0, d, 1)
                   for i, d in enumerate(x.shape))
        out.append(get_slice(x, sl))
    return out


def get_slice(x, sl) -> Tensor:
    """Basic slice with one normalized ``(start, stop, step)`` triple per axis."""
    x = asarray(x)
    if builtins.all(s == (0, d, 1) for s, d in zip(sl, x.shape)):
        return x
    return Tensor(apply("slice", (x.node,), tuple(sl)))


def set_slice(x, v, sl) -> Tensor:
    x, v = asarray(x), asarray(v)
    return Tensor(apply("set_slice", (x.node, astype(v, x.dtype).node), tuple(sl)))


def inc_slice(x, v, sl) -> Tensor:
    x, v = asarray(x), asarray(v)
    return Tensor(apply("inc_slice", (x.node, astype(v, x.dtype).node), tuple(sl)))


def take(x, indices, axis=None) -> Tensor:
    """Take elements along ``axis`` (flattened when None), as ``np.take``; negative
    indices wrap, out-of-range ones raise ``IndexError`` when computed."""
    x = asarray(x)
    idx = asarray(indices)
    if idx.dtype.kind not in "iu":
        raise op_error("take", f"indices must be integers, got {idx.dtype}", (x.node, idx.node))
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = _axes(axis, x.ndim, "take")
    return Tensor(apply("take", (x.node, astype(idx, np.int64).node), axis))


def put(x, indices, values, axis: int = 0) -> Tensor:
    """``x`` with ``x[..., indices, ...] = values`` along ``axis`` (functional)."""
    return _put("put", x, indices, values, axis)


def put_add(x, indices, values, axis: int = 0) -> Tensor:
    """``x`` with ``values`` added at ``indices`` along ``axis``; repeated indices
    accumulate, as ``np.add.at``."""
    return _put("put_add", x, indices, values, axis)


def _put(name, x, indices, values, axis):
    x, idx = asarray(x), astype(asarray(indices), np.int64)
    (axis,) = _axes(axis, x.ndim, name)
    shape = x.shape[:axis] + idx.shape + x.shape[axis + 1:]
    v = broadcast_to(astype(asarray(values), x.dtype), shape)
    return Tensor(apply(name, (x.node, idx.node, v.node), axis))


def take_along_axis(x, indices, axis: int) -> Tensor:
    """Gather values along ``axis`` at ``indices`` (same ndim as ``x``), as
    ``np.take_along_axis``."""
    x, idx = asarray(x), astype(asarray(indices), np.int64)
    if idx.ndim != x.ndim:
        raise op_error("take_along_axis", "indices and arr must have the same number of "
                       "dimensions", (x.node, idx.node))
    (axis,) = _axes(axis, x.ndim, "take_along_axis")
    shape = tuple(idx.shape[i] if i == axis else
                  broadcast_shapes((x.shape[i],), (idx.shape[i],), op="take_along_axis")[0]
                  for i in range(x.ndim))
    idx = broadcast_to(idx, shape)
    n = x.shape[axis]
    idx = where(idx < 0, idx + n, idx)
    bad = (idx < 0) | (idx >= n)
    linear = zeros(shape, np.int64)
    stride = 1
    for i in reversed(range(x.ndim)):
        if i == axis:
            comp = idx
        else:
            comp = reshape(arange(shape[i], dtype=np.int64),
                           tuple(shape[i] if j == i else 1 for j in range(x.ndim)))
        linear = linear + comp * stride
        stride *= x.shape[i] if i == axis else shape[i]
    src = broadcast_to(x, tuple(x.shape[i] if i == axis else shape[i] for i in range(x.ndim)))
    linear = where(bad, -(src.size + 1), linear)
    return take(ravel(src), linear, 0)


# ---------------------------------------------------------------------------------------
# linear algebra
# ---------------------------------------------------------------------------------------

def matmul(a, b) -> Tensor:
    """Matrix product with NumPy's ``matmul`` rules: 1-d operands are promoted to
    matrices and the added dim removed, batch dims broadcast.

    Raises
    ------
    LazyjitError
        If the inner dimensions differ or an operand is 0-d.
    """
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise op_error("matmul", "operands cannot be 0-d (use *)", (a.node, b.node))
    dt = np.result_type(a.dtype, b.dtype)
    if dt == np.bool_:
        dt = np.dtype(np.bool_)
    a, b = astype(a, dt), astype(b, dt)
    va, vb = a.ndim == 1, b.ndim == 1
    a2 = reshape(a, (1,) + a.shape) if va else a
    b2 = reshape(b, b.shape + (1,)) if vb else b
    if a2.shape[-1] != b2.shape[-2]:
        raise op_error("matmul", f"inner dimensions {a.shape[-1]} and "
                       f"{b.shape[-2] if b.ndim > 1 else b.shape[0]} do not match",
                       (a.node, b.node))
    batch = broadcast_shapes(a2.shape[:-2], b2.shape[:-2], op="matmul")
    a2 = broadcast_to(a2, batch + a2.shape[-2:])
    b2 = broadcast_to(b2, batch + b2.shape[-2:])
    out = Tensor(apply("matmul", (a2.node, b2.node)))
    if va:
        out = squeeze(out, -2)
    if vb:
        out = squeeze(out, -1)
    return out


def dot(a, b) -> Tensor:
    """``np.dot``: matmul for 1-d and 2-d operands, sum over the last axis of ``a`` and
    the second-to-last of ``b`` otherwise; scalars multiply."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def tensordot(a, b, axes=2) -> Tensor:
    """Sum products over the given axes, as ``np.tensordot``."""
    a, b = asarray(a), asarray(b)
    if isinstance(axes, (int, np.integer)):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(int(axes)))
    else:
        ax_a, ax_b = [list(np.atleast_1d(x)) for x in axes]
    ax_a = [int(x) % a.ndim for x in ax_a]
    ax_b = [int(x) % b.ndim for x in ax_b]
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(np.prod([a.shape[i] for i in ax_a], dtype=np.int64))
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise op_error("tensordot", "shape-mismatch for sum", (a.node, b.node))
    am = reshape(transpose(a, free_a + ax_a), (-1 if free_a else 1, k) if k else
                 (int(np.prod([a.shape[i] for i in free_a])), 0))
    bm = reshape(transpose(b, ax_b + free_b), (k, -1 if free_b else 1) if k else
                 (0, int(np.prod([b.shape[i] for i in free_b]))))
    out = matmul(am, bm)
    return reshape(out, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def outer(a, b) -> Tensor:
    a, b = ravel(a), ravel(b)
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


# indexing and indexed updates live in lazyjit.indexing; re-exported by lazyjit/__init__
from lazyjit.indexing import getitem, set_subtensor, inc_subtensor  # noqa: E402,F401
