"""NumPy-named functions over lazy tensors: creation, broadcasting and type promotion,
elementwise arithmetic (``lj.tensor``, ``lj.zeros``, ``lj.exp``, ``lj.where``, ...).

Semantics follow NumPy 2: broadcasting, type promotion with weakly typed Python scalars
(NEP 50: ``float32 * 2.0`` stays float32).  Every function only records nodes; nothing
is computed here.  What every other module of the API builds on; the one namespace of
all the functions is :mod:`lazyjit.api.functions`.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, NamedTuple

import numpy as np

from lazyjit.errors import INT_OVERFLOW, DTypeError, ScalarOverflowError, describe, op_error
from lazyjit.ops import REGISTRY, apply, ref_dtype
from lazyjit.ops.registry import COMPLEX_OPS
from lazyjit.api.nested import from_nested, holds_lazy
from lazyjit.api.tensor import check_device, check_dtype, leaf_tensor, Tensor
from lazyjit.api.weak import WeakInt, WeakScalar
from lazyjit.trace.constraints import broadcast_size, discard, require
from lazyjit.trace.dims import Dim, ceildiv, dmax, is_symbolic
from lazyjit.trace.node import Node

Scalar = (bool, int, float, complex, np.generic)


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
    data : array-like (nested lists, scalars, NumPy arrays, tensors).  Nested lists that
        hold tensors (or, under ``lj.jit``, traced scalars) are stacked in the graph, so
        derivatives flow to those tensors (:mod:`lazyjit.api.nested`).
    dtype : optional dtype; default as NumPy infers it (Python floats give float64).
    device : ``None``, or the device the ``backend`` flag runs on (``"cuda"`` for the
        ``cuda`` backend, ``"cpu"`` for the others): tensors do not have devices of
        their own yet, the flag places every computation.

    Raises
    ------
    LazyjitError
        For a non-numeric dtype (strings, objects); for any other ``device`` (naming
        the flag that would place the computation there).
    """
    _placed(device, "tensor")
    if isinstance(data, Tensor):
        return data.astype(dtype) if dtype is not None else _snapshot(data)
    if isinstance(data, WeakScalar):  # a traced Python scalar: its 0-d tensor
        return data.tensor if dtype is None else _weak_node(data, check_dtype(dtype, "tensor"))
    if type(data) is Dim:  # a symbolic size: a lazy int64 scalar, its value at each call
        out = Tensor(size_node(data))
        return out if dtype is None else astype(out, dtype)
    if isinstance(data, (list, tuple)) and holds_lazy(data):  # (built in the graph)
        return from_nested(data, dtype, tensor, "tensor")
    return leaf_tensor(data, dtype)


def _snapshot(x: Tensor) -> Tensor:
    """``x`` as an immutable tensor: ``x`` itself, or for a shared variable (whose value
    later assignments change) a tensor of its value now (inside ``lj.jit``: its value
    at each call, as the variable's own reads)."""
    return x if type(x) is Tensor else Tensor(x.node)


def size_node(d: "Dim | int") -> Node:
    """The size ``d`` as a 0-d int64 node: a constant, or for a symbolic size a ``param``
    leaf ``("size", d)`` whose value is known at each call (lazyjit.engine.symbolic
    makes it a constant then)."""
    if type(d) is Dim:
        return Node.make("param", (), ("size", d), (), np.dtype(np.int64))
    return Node.const(d, np.int64)


def _size(d, op: str = "shape") -> "int | Dim":
    """One size of a shape argument: an int, or a symbolic size (which must be ``>= 0``
    at each call where that is not known now)."""
    if type(d) is Dim:
        if d.bounds()[0] < 0:
            require("le", 0, d, op)
        return d
    if isinstance(d, Tensor) and d.node.op == "param" and d.node.arg[0] == "size":
        return d.node.arg[1]  # lj.tensor(n) of a symbolic size given back as a size
    try:
        return operator.index(d)
    except TypeError:
        raise op_error(op, f"a size must be an int or a symbolic size, got "
                       f"{type(d).__name__}") from None


def _shape_arg(shape, op: str = "shape") -> tuple:
    if isinstance(shape, (int, np.integer, Dim)) or \
            (isinstance(shape, Tensor) and shape.ndim == 0):
        return (_size(shape, op),)
    return tuple(_size(s, op) for s in shape)


def _placed(device, op: str) -> None:
    """The ``device=`` argument of a creation function (NumPy 2, the Array API): None or
    where the ``backend`` flag computes (:func:`check_device`)."""
    if device is not None:
        check_device(device, op)


def full(shape, fill_value, dtype=None, *, device=None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (a broadcast constant, no memory).
    ``shape`` may hold symbolic sizes, ``fill_value`` be one (its value at each call);
    ``device``: see :func:`tensor`."""
    _placed(device, "full")
    if type(fill_value) is Dim:
        dt = check_dtype(dtype if dtype is not None else np.int64, "full")
        return broadcast_to(Tensor(_node_to(fill_value, dt, ())), _shape_arg(shape, "full"))
    if isinstance(fill_value, WeakScalar):  # a traced Python scalar: known at each call
        dt = check_dtype(dtype if dtype is not None else fill_value.tensor.dtype, "full")
        return broadcast_to(Tensor(_node_to(fill_value, dt, ())), _shape_arg(shape, "full"))
    dt = check_dtype(dtype if dtype is not None else np.asarray(fill_value).dtype, "full")
    shape = _shape_arg(shape, "full")
    if builtins.any(type(d) is int and d < 0 for d in shape):
        raise op_error("full", f"negative dimensions are not allowed: {shape}")
    if isinstance(fill_value, (bool, int, float)):  # the cached broadcast constant
        return Tensor(_node_to(fill_value, dt, shape))
    return broadcast_to(Tensor(Node.const(fill_value, dt)), shape)


def zeros(shape, dtype=None, *, device=None) -> Tensor:
    """A tensor of zeros, as ``np.zeros`` (float64 by default)."""
    return full(shape, 0, np.float64 if dtype is None else dtype, device=device)


def ones(shape, dtype=None, *, device=None) -> Tensor:
    """A tensor of ones, as ``np.ones`` (float64 by default)."""
    return full(shape, 1, np.float64 if dtype is None else dtype, device=device)


def empty(shape, dtype=None, *, device=None) -> Tensor:
    """As ``np.empty``; lazyjit fills it with zeros."""
    return zeros(shape, dtype, device=device)


def zeros_like(x, dtype=None, *, device=None) -> Tensor:
    """Zeros of ``x``'s shape (and dtype unless given), as ``np.zeros_like``."""
    x = asarray(x)
    return zeros(x.shape, dtype or x.dtype, device=device)


def ones_like(x, dtype=None, *, device=None) -> Tensor:
    """Ones of ``x``'s shape (and dtype unless given), as ``np.ones_like``."""
    x = asarray(x)
    return ones(x.shape, dtype or x.dtype, device=device)


def empty_like(x, dtype=None, *, device=None) -> Tensor:
    """As ``np.empty_like``; lazyjit fills it with zeros."""
    return zeros_like(x, dtype, device=device)


def full_like(x, fill_value, dtype=None, *, device=None) -> Tensor:
    """``fill_value`` in ``x``'s shape (and dtype unless given), as ``np.full_like``."""
    x = asarray(x)
    return full(x.shape, fill_value, dtype or x.dtype, device=device)


def size_value(n: "int | Dim", dtype) -> "Tensor | int":
    """The count ``n`` as an operand of a ``dtype`` computation: the Python int, or, for
    a symbolic size, its value at each call as an int64 scalar cast to ``dtype`` (exact:
    a float32 constant would lose ``n - 1``'s 1), checked against a narrow integer
    dtype's range as NumPy checks a Python int."""
    if type(n) is not Dim:
        return n
    count = Tensor(size_node(n))
    out = astype(count, dtype)
    dt = np.dtype(dtype)
    if dt.kind in "iu" and dt.itemsize < 8:  # NumPy refuses a Python int out of its range
        info = np.iinfo(dt)
        out = Tensor(apply("check", (out.node, ((count >= info.min) & (count <= info.max)).node),
                           f"{INT_OVERFLOW} {dt}: a size"))
    return out


def _sized(op: str, args: tuple, shape: tuple, dtype) -> Tensor:
    """A constant array whose shape depends on symbolic sizes: a ``param`` leaf
    ``("sized", op, *args, dtype)``, made by NumPy's ``op(*args)`` at each call's sizes
    (lazyjit.engine.symbolic)."""
    for a in args:
        if not isinstance(a, (int, float, np.integer, np.floating, Dim)) and a is not None:
            raise op_error(op, f"with a symbolic size, the other arguments must be numbers, "
                           f"got {a!r}")
    dt = check_dtype(dtype if dtype is not None else np.int64, op)
    return Tensor(Node.make("param", (), ("sized", op, *args, dt.str), shape, dt))


def arange(start, stop=None, step=1, dtype=None, *, device=None) -> Tensor:
    """As ``np.arange``; ``start`` and ``stop`` may be symbolic sizes (``x.shape[0]``),
    with an int ``step`` (the length is then known at each call).

    Raises
    ------
    LazyjitError
        For a zero step, or a symbolic size with float arguments."""
    _placed(device, "arange")
    if type(start) is Dim or type(stop) is Dim:
        if stop is None:
            start, stop = 0, start
        try:
            step = operator.index(step)
            start = start if type(start) is Dim else operator.index(start)
        except TypeError:
            raise op_error("arange", "with a symbolic size, start and step must be ints "
                           f"(the length must be a size), got {start!r} and {step!r}") from None
        if step == 0:
            raise op_error("arange", "step must not be zero")
        n = dmax(ceildiv(stop - start, step), 0)
        return _sized("arange", (start, stop, step), (n,), dtype)
    return leaf_tensor(np.arange(start, stop, step, dtype=dtype), where="arange")


def linspace(start, stop, num=50, endpoint=True, dtype=None, *, device=None) -> Tensor:
    """As ``np.linspace``; ``start``, ``stop`` and ``num`` may be symbolic sizes (the
    array is made at each call's sizes; a ``num`` below 0 there raises a
    ``LazyjitError``)."""
    _placed(device, "linspace")
    if type(num) is Dim or type(start) is Dim or type(stop) is Dim:
        dt = dtype if dtype is not None else np.result_type(
            *[1 if type(v) is Dim else v for v in (start, stop)], 1.0)
        num = _size(num, "linspace")
        return _sized("linspace", (start, stop, num, bool(endpoint)), (num,), dt)
    return leaf_tensor(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype),
                       where="linspace")


def eye(n, m=None, k=0, dtype=np.float64, *, device=None) -> Tensor:
    """As ``np.eye``; ``n`` and ``m`` may be symbolic sizes (made at each call's sizes;
    one below 0 there raises a ``LazyjitError``)."""
    _placed(device, "eye")
    dtype = np.float64 if dtype is None else dtype
    if type(n) is Dim or type(m) is Dim:
        n, m = _size(n, "eye"), n if m is None else _size(m, "eye")
        return _sized("eye", (n, m, operator.index(k)), (n, m), dtype)
    return leaf_tensor(np.eye(n, m, k, dtype=dtype), where="eye")


def asarray(x, dtype=None, *, device=None, copy=None) -> Tensor:
    """Return ``x`` as a tensor (no copy for tensors of the right dtype), as
    ``np.asarray`` and the Array API's ``asarray``.  Tensors are immutable, so a tensor
    serves as its own copy; anything else is copied into a new tensor, so ``copy=False``
    raises ``ValueError`` for it (and for a tensor whose dtype changes), as the standard
    says of a copy that cannot be avoided.  ``device``: see :func:`tensor`."""
    _placed(device, "asarray")
    same = isinstance(x, Tensor) and (dtype is None or np.dtype(dtype) == x.dtype)
    if copy is False and not same:
        raise ValueError("lazyjit.asarray: copy=False, but making a tensor of this input "
                         "needs a copy (only a tensor of the requested dtype is not copied)")
    if isinstance(x, Tensor):  # (a shared variable's value now, _snapshot's: never the
        if same:  # variable, which later updates change)
            return x if type(x) is Tensor else Tensor(x.node)
        return x.astype(dtype)
    return tensor(x, dtype)


# ---------------------------------------------------------------------------------------
# elementwise
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


def _as_operand(x):
    if isinstance(x, (Tensor, WeakScalar)) or type(x) is Dim:  # (a symbolic size: a
        return x  # weak int, exact; a traced Python scalar: weak, known at each call)
    if isinstance(x, Scalar) and not isinstance(x, np.generic):
        return x  # weakly typed Python scalar
    return tensor(x)


def broadcast_shapes(*shapes, op: str = "broadcast", srcs: tuple = ()) -> tuple[int, ...]:
    """NumPy's broadcast of ``shapes``; raises naming ``op``, the shapes and (when the
    operand nodes ``srcs`` are given) their dtypes."""
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) > len(out):
            out[:0] = [1] * (len(shape) - len(out))
        k = len(out) - len(shape)
        for i, d in enumerate(shape):
            o = out[k + i]
            if d != o:
                try:
                    out[k + i] = broadcast_size(o, d, op)
                except ValueError:
                    discard()
                    shown = ", ".join(describe(s) for s in shapes)
                    raise op_error(op, f"shapes {shown} cannot be broadcast together",
                                   srcs) from None
    return tuple(out)


def _weak(x):
    """``x`` for NumPy's promotion: a symbolic size is a weak Python int whatever it will
    be (its range is checked at each call: :func:`size_value`); a traced Python scalar,
    a number of its Python type (:func:`_weak_node` checks an int's range at each call)."""
    if isinstance(x, WeakScalar):
        return x.weak
    return 1 if type(x) is Dim else x


def _weak_node(x: WeakScalar, dtype: np.dtype) -> Tensor:
    """The traced Python scalar ``x`` as a 0-d tensor of ``dtype``: a cast of its float64,
    int64 or bool value; to an integer dtype, checked at each call as NumPy converts a
    Python number (``int8 + 300``, ``np.array(x, dtype)``, ``a[i] = x``): an int, or a
    float's integer part, out of the dtype's range raises ``OverflowError``, a NaN
    ``ValueError``."""
    t = x.tensor
    if t.dtype == dtype:
        return t
    out = astype(t, dtype)
    if dtype.kind in "iu" and t.dtype.kind in "iuf":
        info = np.iinfo(dtype)
        if t.dtype.kind == "f":  # int(t) fits when min - 1 < t < max + 1 (exact floats;
            low, high = info.min - 1, info.max + 1  # for int64, t >= min: none between)
            ok = ((t > float(low)) if float(low) == low else (t >= float(info.min))) & \
                (t < float(high)) | (t != t)
            out = Tensor(apply("check", (out.node, (t == t).node),
                               f"cannot convert float NaN to integer: lj.jit's {x.origin}"))
        else:
            ok = (t >= int(info.min)) & (t <= int(info.max))
        out = Tensor(apply("check", (out.node, ok.node),
                           f"{INT_OVERFLOW} {dtype}: lj.jit's {x.origin}"))
    return out


def _node_to(x, dtype: np.dtype, shape: tuple[int, ...]) -> Node:
    if type(x) is Dim:  # an exact int64 value at each call, cast: a float32 constant
        x = size_value(x, dtype)  # would lose n - 1's 1
    elif isinstance(x, WeakScalar):
        x = _weak_node(x, dtype)
    if isinstance(x, Tensor):
        node = x.node
        if node.dtype != dtype:
            node = Node.make("cast", (node,), dtype.str, node.shape, dtype)
        return _broadcast_node(node, shape)
    key = (type(x), repr(x), dtype, shape)
    node = _CONSTS.get(key)
    if node is None:
        try:
            node = _broadcast_node(Node.const(x, dtype), shape)
        except OverflowError as e:  # (NumPy's exception; a 300-digit int shown shortened)
            text = repr(x) if len(repr(x)) < 40 else f"{repr(x)[:12]}... ({len(repr(x))} digits)"
            raise op_error("const", f"Python scalar {text} does not fit {dtype}: {e}",
                           cls=ScalarOverflowError) from None
        if len(_CONSTS) > 4096:
            _CONSTS.clear()
        _CONSTS[key] = node
    return node


_CONSTS: dict = {}  # (type, value, dtype, shape) -> broadcast constant node


def _broadcast_node(node: Node, shape: tuple[int, ...]) -> Node:
    """``node`` broadcast to ``shape``, which the caller has checked to be a valid
    broadcast of it (so the nodes are made without running their shape rules)."""
    if node.shape == shape:
        return node
    if len(node.shape) < len(shape):
        new = (1,) * (len(shape) - len(node.shape)) + node.shape
        node = Node.make("reshape", (node,), new, new, node.dtype)
    if node.shape != shape:
        node = Node.make("expand", (node,), shape, shape, node.dtype)
    return node


_SAME_TYPE_OUT: dict = {}  # (op, dtype) -> result dtype, when no operand needs a cast


def broadcast_to(x, shape) -> Tensor:
    """Broadcast to ``shape`` (a view, no copy), as ``np.broadcast_to``."""
    x = asarray(x)
    shape = _shape_arg(shape)
    if x.shape == shape:
        return x
    ok = len(shape) >= x.ndim
    for d, t in zip(x.shape[::-1], shape[::-1]):  # one way: x's sizes are 1 or the target's
        if d == t or d == 1:
            continue
        if type(d) is Dim or type(t) is Dim:
            require("bcast", d, t, "broadcast_to")  # (checked at each call)
        else:
            ok = False
    if not ok:
        discard()
        raise op_error("broadcast_to", f"cannot broadcast shape {describe(x.shape)} to "
                       f"{describe(shape)}", (x.node,))
    return Tensor(_broadcast_node(x.node, shape))


def broadcast_arrays(*xs) -> list[Tensor]:
    xs = [asarray(x) for x in xs]
    shape = broadcast_shapes(*[x.shape for x in xs])
    return [broadcast_to(x, shape) for x in xs]


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
    if len(operands) == 2:  # fast path: a tensor and a Python float or int (x * 2)
        a, b = operands
        ta, tb = type(a), type(b)
        if ta is Tensor and (tb is float or tb is int):
            t, v = a, b
        elif tb is Tensor and (ta is float or ta is int):
            t, v = b, a
        else:
            t = None
        if t is not None:
            node = t.node
            known = _SCALAR_OUT.get((name, node.shape, node.dtype, type(v), t is a))
            if known is not None:
                common, out = known
                c = _node_to(v, common, node.shape)
                if node.dtype != common:
                    node = Node.make("cast", (node,), common.str, node.shape, common)
                return Tensor(Node.make(name, (node, c) if t is a else (c, node), None,
                                        node.shape, out))
    return _elementwise(name, operands)


# (op, tensor shape, tensor dtype, scalar type, tensor first) -> (operand dtype, result
# dtype), for a tensor and a Python scalar whose recipe keeps the tensor's shape
_SCALAR_OUT: dict = {}


def _elementwise(name: str, operands) -> Tensor:
    if name in _RANGE_DECIDED and len(operands) == 2:
        decided = _out_of_range(name, *operands)
        if decided is not None:
            return decided
    ops = [_as_operand(x) for x in operands]
    sig = (name, *[(x.node.shape, x.node.dtype) if isinstance(x, Tensor) else type(x)
                   for x in ops])  # (a Tensor subclass, e.g. a shared variable, too)
    recipe = _RECIPES.get(sig)
    if recipe is None:
        recipe = _recipe(name, ops)
        if len(_RECIPES) > 8192:
            _RECIPES.clear()
        if not is_symbolic(recipe[2]):  # (symbolic: its requirements recorded each time)
            _RECIPES[sig] = recipe
    common, out, shape = recipe
    if len(ops) == 2 and name not in _RANGE_DECIDED and sig in _RECIPES:
        kinds = [type(x) for x in ops]
        for i in (0, 1):
            if kinds[i] is Tensor and kinds[1 - i] in (float, int) and \
                    ops[i].shape == shape and len(_SCALAR_OUT) < 8192:
                _SCALAR_OUT[(name, shape, ops[i].dtype, kinds[1 - i], i == 0)] = (common, out)
    srcs = tuple(_node_to(x, common, shape) for x in ops)
    return Tensor(Node.make(name, srcs, None, shape, out))


_RECIPES: dict = {}  # (op, operand shapes and dtypes or scalar types) -> recipe

_FLIPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_RANGE_DECIDED = frozenset(_FLIPPED)


def _out_of_range(name: str, a, b) -> "Tensor | None":
    """A comparison of an integer tensor with a Python int outside its dtype's range, as
    NumPy 2 computes it (NEP 50): ``uint8 >= -1`` is true everywhere, ``uint8 == 300``
    false; None for other operands (the int would not fit the tensor's dtype)."""
    if isinstance(a, Tensor) and _an_int(b):  # (a traced Python int: decided at each call)
        t, v = a, b
    elif isinstance(b, Tensor) and _an_int(a):
        t, v = b, a
    else:
        return None
    if t.dtype.kind not in "iu" or t.dtype == np.int64 and type(v) is not int:
        return None
    lo, hi = int(np.iinfo(t.dtype).min), int(np.iinfo(t.dtype).max)
    op = name if t is a else _FLIPPED[name]  # v < t is t > v
    if type(v) is int:
        if lo <= v <= hi:
            return None
        return full(t.shape, _decided(op, v > hi, v < lo), np.bool_)
    hi = min(hi, 2 ** 63 - 1)  # (of the traced int's int64 value: uint64's range clipped)
    w = v.tensor  # in range at a call: the comparison; else every element's
    inside, above = (w >= lo) & (w <= hi), w > hi
    w = astype(w, t.dtype)
    return where(inside, elementwise(name, t, w) if t is a else elementwise(name, w, t),
                 _decided(op, above, ~above))


def _decided(op: str, above, below):
    """Comparison ``op`` of every element with an int ``above`` or ``below`` its range."""
    return {"eq": False, "ne": True, "lt": above, "le": above, "gt": below, "ge": below}[op]


def _an_int(x) -> bool:
    """Whether ``x`` is a Python int (not a bool) or a traced one."""
    return type(x) is int or isinstance(x, WeakScalar) and x.py is int


def _recipe(name: str, ops: list) -> tuple[np.dtype, np.dtype, tuple[int, ...]]:
    """``(operand dtype, result dtype, result shape)`` of elementwise ``name`` on ``ops``
    by NumPy's promotion (weak Python scalars) and broadcasting; raises on bad input."""
    tensors = [x for x in ops if isinstance(x, Tensor)]
    opdef = REGISTRY[name]
    try:
        common = np.result_type(*[x.dtype if isinstance(x, Tensor) else _weak(x) for x in ops])
    except TypeError as e:
        raise op_error(name, str(e), tuple(t.node for t in tensors)) from None
    check_dtype(common, name)
    if common.kind == "c" and name not in COMPLEX_OPS:
        raise op_error(name, "not defined for complex operands",
                       tuple(t.node for t in tensors), cls=TypeError)
    shape = broadcast_shapes(*[t.shape for t in tensors], op=name,
                             srcs=tuple(t.node for t in tensors)) if tensors else ()
    # NumPy resolves a float function of mixed dtypes from the operands' own dtypes
    # (arctan2 of int8 and uint8 is float16, not float32 as of their common int16)
    mixed = opdef.float_only and len(tensors) == len(ops) > 1 and \
        len({t.dtype for t in tensors}) > 1
    probes = tuple(_Probe(shape, t.dtype) for t in tensors) if mixed else \
        (_Probe(shape, common),) * len(ops)
    try:
        out = ref_dtype(opdef, probes, None)
    except TypeError:
        raise op_error(name, f"not defined for dtype {common}",
                       tuple(t.node for t in tensors), cls=DTypeError) from None
    if opdef.float_only and out != common and out != np.bool_:
        common = out
    elif len(tensors) == len(ops) and builtins.all(t.dtype == common for t in tensors):
        _SAME_TYPE_OUT[(name, common)] = out if out == np.bool_ or not opdef.float_only \
            else common
    return common, (out if out == np.bool_ or not opdef.float_only else common), shape


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
    fn.__name__ = fn.elementwise = name  # (elementwise(name, a, b) itself: methods.py)
    fn.__doc__ = f"Elementwise ``{name}`` with NumPy broadcasting and type promotion."
    return fn


add = _binary("add")
subtract = _binary("sub")
multiply = _binary("mul")
floor_divide = _binary("floordiv")
remainder = _binary("mod")
mod = remainder
maximum = _binary("maximum")
minimum = _binary("minimum")
equal = _binary("eq")
not_equal = _binary("ne")
less = _binary("lt")
less_equal = _binary("le")
greater = _binary("gt")
greater_equal = _binary("ge")
def _logical(name):
    def fn(a, b):  # (a Python number read by its truth, as NumPy's: 1e-300 is true;
        # a traced one, at each call: never first cast to the other operand's dtype)
        return elementwise(name, *[bool(x) if type(x) in (int, float, complex) else
                                   x.tensor != 0 if isinstance(x, WeakScalar) else x
                                   for x in (a, b)])
    fn.__name__, fn.__doc__ = name, _binary(name).__doc__
    return fn


logical_and, logical_or, logical_xor = (_logical(f"logical_{k}") for k in ("and", "or", "xor"))
bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")


floor_divide.__doc__ = ("Floor division ``a // b`` with NumPy semantics (rounds toward -inf; "
                        "integer division by zero gives 0).")
remainder.__doc__ = "Remainder ``a % b`` with NumPy semantics (the sign of ``b``)."


def true_divide(a, b) -> Tensor:
    """``a / b``; integer operands give float64, as in NumPy."""
    return elementwise("div", a, b)


true_divide.elementwise = "div"
divide = true_divide


def where(condition, x=None, y=None) -> "Tensor | tuple[Tensor, ...]":
    """Elements of ``x`` where ``condition`` else of ``y`` (``np.where`` with 3 arguments).
    Both branches are computed; the gradient flows only into the selected one.  With
    ``condition`` alone, :func:`nonzero` of it (``np.where``'s one-argument form).

    Raises
    ------
    LazyjitError
        Only one of ``x`` and ``y`` is given.
    """
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise op_error("where", "give both x and y, or neither (then where(c) is "
                       "nonzero(c))")
    c = _as_operand(condition)
    if type(c) is Tensor and type(x) is Tensor and type(y) is Tensor and \
            c.dtype == np.bool_ and x.dtype == y.dtype and c.shape == x.shape == y.shape:
        return Tensor(Node.make("where", (c.node, x.node, y.node), None, x.shape, x.dtype))
    if not isinstance(c, Tensor) or c.dtype != np.bool_:
        c = asarray(c).astype(np.bool_)
    xs = [_as_operand(x), _as_operand(y)]
    tensors = [t for t in xs if isinstance(t, Tensor)]
    common = np.result_type(*[t.dtype if isinstance(t, Tensor) else _weak(t) for t in xs])
    check_dtype(common, "where")
    shape = broadcast_shapes(c.shape, *[t.shape for t in tensors], op="where",
                             srcs=(c.node, *[t.node for t in tensors]))
    srcs = (_broadcast_node(c.node, shape),) + tuple(_node_to(t, common, shape) for t in xs)
    return Tensor(apply("where", srcs))


def nonzero(x) -> tuple[Tensor, ...]:
    """The indices of the nonzero elements, one int64 tensor per axis, as
    ``np.nonzero`` (C order).  Computes ``x`` first: the output's size depends on its
    values.

    Raises
    ------
    LazyjitError
        ``x`` is 0-d (NumPy 2 rejects it too).
    """
    x = asarray(x)
    if x.ndim == 0:
        raise op_error("nonzero", "nonzero of a 0-d tensor: use nonzero(atleast_1d(x))",
                       (x.node,))
    return tuple(asarray(np.ascontiguousarray(i, dtype=np.int64))
                 for i in np.nonzero(x.numpy()))


def clip(x, a_min=None, a_max=None, *, min=None, max=None) -> Tensor:  # noqa: A002
    """Limit values to ``[a_min, a_max]`` (``np.clip``; ``min`` and ``max`` are NumPy 2.1's
    and the Array API's names for them); ``None`` leaves a side open.  A Python int
    bound beyond an integer dtype's range bounds nothing, as in NumPy 2."""
    a_min, a_max = (a_min if min is None else min), (a_max if max is None else max)
    out = asarray(x)
    if out.dtype.kind in "iu":
        info = np.iinfo(out.dtype)
        a_min = None if type(a_min) is int and a_min < info.min else a_min
        a_max = None if type(a_max) is int and a_max > info.max else a_max
        if isinstance(a_min, WeakInt) and info.min > -2 ** 63:  # (traced, an int64: the
            a_min = WeakInt(maximum(a_min.tensor, int(info.min)), a_min.origin)  # same,
        if isinstance(a_max, WeakInt) and info.max < 2 ** 63 - 1:  # at each call)
            a_max = WeakInt(minimum(a_max.tensor, int(info.max)), a_max.origin)
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


def astype(x, dtype, *, copy: bool = True, device=None) -> Tensor:
    """Cast to ``dtype`` (C casting rules as NumPy's ``astype``).  ``copy`` is accepted
    for the Array API (tensors are immutable: either way the result cannot change
    ``x``); ``device``: see :func:`tensor`."""
    _placed(device, "astype")
    x = asarray(x)
    dt = check_dtype(dtype, "astype")
    if dt == x.dtype:
        return _snapshot(x) if copy else x
    return Tensor(apply("cast", (x.node,), dt.str))


def stop_gradient(x) -> Tensor:
    """Return ``x`` unchanged, with a zero derivative in both modes: ``lj.grad`` treats it
    as a constant and forward mode gives it a zero tangent (JAX's ``stop_gradient``,
    Theano's ``zero_grad``).

    Parameters
    ----------
    x : tensor or array-like, any shape and dtype.

    Returns
    -------
    A tensor equal to ``x`` (same shape and dtype).
    """
    x = asarray(x)
    return Tensor(apply("stop_gradient", (x.node,)))
