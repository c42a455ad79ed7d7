"""Movement, indexed reads and writes, and linear algebra (NumPy's ``reshape``, ``transpose``,
``concatenate``, ``take``, ``matmul``, ``tensordot``, ...).

Movement ops are views at the primitive level (``reshape``, ``permute``, ``expand``,
``slice``); ``matmul`` takes equal batch dims, which the API broadcasts first.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Sequence

import numpy as np

from lazyjit.errors import describe, op_error
from lazyjit.api.core import (_axes, _shape_arg, asarray, astype, broadcast_shapes,
                              broadcast_to, elementwise)
from lazyjit.api.tensor import Tensor
from lazyjit.ops import apply
from lazyjit.trace.constraints import require, same_shape
from lazyjit.trace.dims import Dim, InconclusiveDimension, dmax, dmin
from lazyjit.trace.node import Node

# movement
# ---------------------------------------------------------------------------------------

def reshape(x, shape, *more, copy=None) -> Tensor:
    """Reshape (one ``-1`` allowed), as ``np.reshape`` in C order (``copy``, the Array
    API's, changes nothing: tensors are immutable, so a reshape is never seen to share
    memory)."""
    x = asarray(x)
    shape = _shape_arg(shape) + _shape_arg(more)
    if shape.count(-1) > 1:
        raise op_error("reshape", f"can only specify one unknown dimension, got {shape}", (x.node,))
    if -1 in shape:
        known = math.prod([s for s in shape if s != -1])
        rest = 1 if known == 0 else x.size % known
        if type(known) is Dim or type(rest) is Dim:  # (symbolic: checked at each call)
            require("divides", known, x.size, "reshape")
        elif known == 0 or rest:
            raise op_error("reshape", f"cannot reshape array of size {x.size} into shape "
                           f"{describe(shape)}", (x.node,))
        shape = tuple(x.size // known if s == -1 else s for s in shape)
        if type(known) is Dim or type(rest) is Dim:  # (a node to hold the requirement)
            return Tensor(apply("reshape", (x.node,), shape))
    if shape == x.shape:
        return x
    return Tensor(apply("reshape", (x.node,), shape))


def _squeeze_axes(t: Tensor, axes: tuple[int, ...]) -> Tensor:
    if not axes:
        return t
    shape = tuple(d for i, d in enumerate(t.shape) if i not in axes)
    return reshape(t, shape)


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
    """Move axes to new positions (an int or a sequence each, of one length; the other
    axes keep their order), as ``np.moveaxis``.

    Raises
    ------
    LazyjitError
        An axis out of range or repeated, or sequences of different lengths.
    """
    x = asarray(x)
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise op_error("moveaxis", f"source {source!r} and destination {destination!r} must "
                       "have the same number of elements", (x.node,))
    src = [_axes(int(a), x.ndim, "moveaxis")[0] for a in src]
    dst = [_axes(int(a), x.ndim, "moveaxis")[0] for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise op_error("moveaxis", f"repeated axis in {source!r} or {destination!r}",
                       (x.node,))
    perm = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
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
        if any(type(d) is Dim for d in x.shape):
            raise InconclusiveDimension(
                f"squeeze: which of the dimensions {describe(x.shape)} have size 1 depends "
                "on the sizes, known only at each call: give the axes to remove (axis=)")
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = _axes(axis, x.ndim, "squeeze")
        bad = [a for a in axes if not same_shape((x.shape[a],), (1,), "squeeze")]
        if bad:
            raise op_error("squeeze", f"cannot select an axis to squeeze out which has size "
                           f"not equal to one (axis {bad[0]})", (x.node,))
    return _squeeze_axes(x, axes)


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
    if not all(same_shape(x.shape, xs[0].shape, "stack") for x in xs[1:]):
        raise op_error("stack", "all input arrays must have the same shape",
                       tuple(x.node for x in xs))
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def split(x, indices_or_sections, axis=0) -> list[Tensor]:
    """Split into pieces along ``axis``, as ``np.split``."""
    x = asarray(x)
    (axis,) = _axes(axis, x.ndim, "split")
    n = x.shape[axis]
    divides = None  # the sections' count, when it must divide a symbolic size
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k > 0 and type(n % k) is Dim:  # (checked at each call's size, for each piece)
            divides = k
        elif k <= 0 or n % k:
            raise op_error("split", f"array of size {n} along axis {axis} does not divide into "
                           f"{k} equal sections", (x.node,))
        bounds = [i * (n // k) for i in range(k + 1)]
    else:  # (each piece is x[a:b] with Python's slice bounds: negative from the end)
        bounds = [0] + [_slice_bound(i if type(i) is Dim else operator.index(i), n)
                        for i in indices_or_sections] + [n]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        sl = tuple((a, dmax(a, b), 1) if i == axis else (0, d, 1)
                   for i, d in enumerate(x.shape))
        if divides is not None:
            require("divides", divides, n, "split")
        out.append(get_slice(x, sl))
    return out


def _slice_bound(i, n):
    """A slice bound ``i`` of an axis of size ``n`` as Python takes it: from the end when
    negative, clipped to ``[0, n]``."""
    return dmax(n + i, 0) if type(i) is not Dim and i < 0 else dmin(i, n)


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


def _check_bounds(idx: np.ndarray, axis: int, n: int) -> None:
    """Raise NumPy's ``IndexError`` for a constant index array with an entry outside
    ``[-n, n)`` (indices that are tensors, and any index along a symbolic size ``n``,
    are checked when computed)."""
    if not isinstance(n, (int, np.integer)):
        return
    if idx.size and idx.dtype.kind in "iu" and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


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
    if not isinstance(indices, Tensor):
        _check_bounds(np.asarray(indices), axis, x.shape[axis])
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


# ---------------------------------------------------------------------------------------
# linear algebra
# ---------------------------------------------------------------------------------------

def matmul(a, b, name: str = "matmul") -> Tensor:
    """Matrix product with NumPy's ``matmul`` rules: 1-d operands are promoted to
    matrices and the added dim removed, batch dims broadcast.

    Raises
    ------
    LazyjitError
        If the inner dimensions differ or an operand is 0-d (naming ``name``, the
        function called); for symbolic inner sizes, at each call where they differ.
    """
    a, b = asarray(a), asarray(b)
    na, nb = a.node, b.node
    if len(na.shape) == 2 == len(nb.shape) and na.dtype == nb.dtype and \
            na.shape[1] == nb.shape[0]:  # the common case: matrices of one dtype
        return Tensor(Node.make("matmul", (na, nb), None, (na.shape[0], nb.shape[1]),
                                na.dtype))
    if a.ndim == 0 or b.ndim == 0:
        raise op_error("matmul", "operands cannot be 0-d (use *)", (a.node, b.node))
    dt = np.result_type(a.dtype, b.dtype)
    if dt == np.bool_:
        dt = np.dtype(np.bool_)
    a, b = astype(a, dt), astype(b, dt)
    va, vb = a.ndim == 1, b.ndim == 1
    a2 = reshape(a, (1,) + a.shape) if va else a
    b2 = reshape(b, b.shape + (1,)) if vb else b
    if not same_shape(a2.shape[-1:], b2.shape[-2:-1], name):
        raise op_error(name, f"inner dimensions {a.shape[-1]} and "
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
        return matmul(a, b, "dot")
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def inner(a, b) -> Tensor:
    """``np.inner``: the sum of products over the last axes of ``a`` and ``b`` (no
    conjugate), of shape ``a.shape[:-1] + b.shape[:-1]``; scalars multiply."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def vdot(a, b) -> Tensor:
    """``np.vdot``: the dot product of the flattened ``a`` and ``b`` (equal sizes), the
    complex conjugate of ``a`` taken, as a 0-d tensor."""
    a, b = ravel(asarray(a)), ravel(asarray(b))
    if a.dtype.kind == "c":
        a = elementwise("conj", a)
    return matmul(a, b, "vdot")


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
    k = math.prod(a.shape[i] for i in ax_a)
    for i, j in zip(ax_a, ax_b):
        if not same_shape((a.shape[i],), (b.shape[j],), "tensordot"):
            raise op_error("tensordot", "shape-mismatch for sum", (a.node, b.node))
    nonzero = type(k) is Dim or k  # (a symbolic count: reshaped with it, even at 0)
    am = reshape(transpose(a, free_a + ax_a), (-1 if free_a else 1, k) if nonzero else
                 (math.prod(a.shape[i] for i in free_a), 0))
    bm = reshape(transpose(b, ax_b + free_b), (k, -1 if free_b else 1) if nonzero else
                 (0, math.prod(b.shape[i] for i in free_b)))
    out = matmul(am, bm)
    return reshape(out, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def outer(a, b) -> Tensor:
    a, b = ravel(a), ravel(b)
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


# indexing and indexed updates live in lazyjit.api.indexing
