"""Reductions, movement (view) ops, indexing, concatenation and matmul primitives.

Conventions at the primitive level, which the API in :mod:`lazyjit.api.functions` maps
NumPy's calls onto:

* reductions take a sorted tuple of axes and keep reduced dims (size 1);
* ``argmax``/``argmin`` take one axis and keep it (size 1), giving int64;
* ``slice`` takes one normalized ``(start, stop, step)`` per axis (negative steps allowed);
* ``take``/``put``/``put_add`` index one axis with an integer array (negative indices
  wrap, out-of-range ones raise ``IndexError``); ``put_add`` accumulates repeats as
  ``np.add.at``;
* ``matmul`` multiplies ``(..., m, k) @ (..., k, n)`` with equal batch dims.

Derivatives: ops linear in their floating-point operands (``sum``, views, indexed reads
and writes, ``concat``) have the op itself as JVP (:func:`linear_jvp`); ``prod``,
``max`` and ``min`` have local weights (``out / x``; ``1/k`` on each of ``k`` tied
extremes, a valid subgradient) shared by both modes; ``matmul`` is bilinear.

float16 (NumPy's float16, IEEE 754 binary16): ``sum``, ``prod``, ``matmul`` and ``gemm``
accumulate in float32 and round the result to float16 once (NumPy's float16 ``sum``
accumulates in float16: lazyjit's is as accurate as float32's, then rounded; a sum
beyond 65504 is ``inf`` either way); ``max``/``min`` are exact.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from lazyjit.ops.registry import F
from lazyjit.trace.constraints import equal_size, require
from lazyjit.trace.dims import Dim, ceildiv, dmax, dmin, extreme_of
from lazyjit.ops.registry import OpDef, bilinear_jvp, linear_jvp, register

# views, indexed reads and writes, concat: the dtype of the first operand, and linear in
# the floating-point operands (so the JVP is the op applied to the tangents)
_LINEAR = {"dtype": lambda srcs, arg: srcs[0].dtype, "jvp": linear_jvp}


def _in_float32(ref):
    """The NumPy reference ``ref(*arrays, arg)`` computed in float32 where an operand is
    float16, its result rounded to float16 once (accumulation in float32)."""
    def wide(*args):
        *arrays, arg = args
        if not any(a.dtype == np.float16 for a in arrays):
            return ref(*arrays, arg)
        out = ref(*[a.astype(np.float32) if a.dtype == np.float16 else a for a in arrays], arg)
        return np.asarray(out).astype(np.float16)
    return wide


def _keep(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _reduce_shape(srcs, axes):
    (x,) = srcs
    return _keep(x.shape, axes)


def _nonempty_reduce_shape(name):
    def rule(srcs, axes):
        (x,) = srcs
        if any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"zero-size reduction along axes {axes}: {name} has no identity")
        return _keep(x.shape, axes)
    return rule


def _reduce_rules(weights):
    """VJP and JVP of a reduction whose partial derivatives are ``weights(out, x, axes)``
    (an array of ``x``'s shape): ``g * weights`` and ``sum(t * weights)``."""
    return {"vjp": lambda g, out, x, axes: (g * weights(out, x, axes),),
            "jvp": lambda ts, out, x, axes: F.sum(ts[0] * weights(out, x, axes), axis=axes,
                                                  keepdims=True)}


def _tie_weights(out, x, axes):
    """``1/k`` at each of the ``k`` elements equal to the extreme, 0 elsewhere.  Where
    the extreme was computed by an earlier program (a value read, then differentiated
    through), ``x``, computed again here, may differ from what it was there in the last
    bits (another fusion, a stabilized rewrite): no element would equal it (0/0), so
    the extreme is taken again from this ``x``, as ``-min(-x)`` (exact), a node other
    than the one holding the old value."""
    if out.node.buffer is not None:
        flip = F.min if out.node.op == "max" else F.max
        out = -flip(-x, axis=axes, keepdims=True)
    mask = (x == out).astype(out.dtype)
    return mask / F.sum(mask, axis=axes, keepdims=True)


def _constant_identity(value):
    """The identity ``value`` (0 for sums, 1 for products) in each dtype."""
    return lambda dtype: np.array(value, dtype)[()]


def _extreme_identity(lowest: bool):
    """The identity of ``max`` (``lowest``: the dtype's lowest value) or ``min`` (its
    highest): infinite for floats, ``False``/``True`` for bool, the integer limits."""
    def identity(dtype):
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            value = -np.inf if lowest else np.inf
        elif dtype.kind == "b":
            value = not lowest
        else:
            value = np.iinfo(dtype).min if lowest else np.iinfo(dtype).max
        return np.array(value, dtype)[()]
    return identity


register(OpDef("sum", "reduce", _in_float32(lambda x, axes: np.sum(x, axis=axes, keepdims=True)),
               shape=_reduce_shape, vjp=lambda g, out, x, axes: (F.broadcast_to(g, x.shape),),
               jvp=linear_jvp, identity=_constant_identity(0)))
def _others(out, x, axes):
    """d prod / d x: the product of the other elements (exact at zeros; not out / x)."""
    return F.products_of_others(x, axes)


register(OpDef("prod", "reduce", _in_float32(lambda x, axes: np.prod(x, axis=axes,
                                                                      keepdims=True)),
               shape=_reduce_shape, **_reduce_rules(_others), identity=_constant_identity(1),
               doc="derivative: the product of the other elements, exact at zeros"))
register(OpDef("max", "reduce", lambda x, axes: np.max(x, axis=axes, keepdims=True),
               shape=_nonempty_reduce_shape("max"), **_reduce_rules(_tie_weights),
               identity=_extreme_identity(lowest=True),
               doc="derivative split evenly among tied maxima"))
register(OpDef("min", "reduce", lambda x, axes: np.min(x, axis=axes, keepdims=True),
               shape=_nonempty_reduce_shape("min"), **_reduce_rules(_tie_weights),
               identity=_extreme_identity(lowest=False),
               doc="derivative split evenly among tied minima"))
def _arg_op(name: str, ref) -> OpDef:
    """``argmax``/``argmin`` along one axis, kept as a size-1 dim; int64 indices."""
    rule = _nonempty_reduce_shape(name)
    return OpDef(name, "arg", lambda x, axis: ref(x, axis=axis, keepdims=True).astype(np.int64),
                 shape=lambda srcs, axis: rule(srcs, (axis,)),
                 dtype=lambda srcs, axis: np.dtype(np.int64))


register(_arg_op("argmax", np.argmax))
register(_arg_op("argmin", np.argmin))


# --- movement: views of their source -------------------------------------------------

def _reshape_shape(srcs, shape):
    (x,) = srcs
    total = math.prod(shape)
    if total != x.size:
        if type(total) is not Dim and type(x.size) is not Dim:
            raise ValueError(f"cannot reshape array of size {x.size} into shape {shape}")
        equal_size(total, x.size, "reshape")
    return shape


def _permute_shape(srcs, perm):
    (x,) = srcs
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"axes {perm} are not a permutation of {x.ndim} dims")
    return tuple(x.shape[p] for p in perm)


def _expand_shape(srcs, shape):
    (x,) = srcs
    if len(shape) != x.ndim or any(s != 1 and s != d and type(s) is not Dim and type(d) is
                                   not Dim for s, d in zip(x.shape, shape)):
        raise ValueError(f"cannot broadcast shape {x.shape} to {shape}")
    return shape  # (a symbolic size: its requirement recorded where it was broadcast)


def as_slices(sl) -> tuple:
    """Normalized ``(start, stop, step)`` triples as Python slices selecting exactly
    ``range(start, stop, step)`` (stop -1 with a negative step means 'past index 0'; an
    empty range, such as ``(-1, -1, -1)`` for ``a[-6::-1]`` of 5 elements, selects
    nothing, where NumPy would read a negative start from the end)."""
    return tuple(slice(a, b if b >= 0 else None, c) if len(range(a, b, c)) else slice(0, 0)
                 for a, b, c in sl)


def slice_len(a, b, c: int):
    """``len(range(a, b, c))`` for sizes that may be symbolic (``c`` an int)."""
    if type(a) is int and type(b) is int:
        return len(range(a, b, c))
    e = extreme_of(a)
    if c == 1 and e is not None:  # b - min(u, v) is max(b - u, b - v), and the other way
        op, u, v = e  # (x[s:] is n - min(s, n): max(n - s, 0); x[-s:] is min(s, n))
        return dmax((dmax if op == "min" else dmin)(b - u, b - v), 0)
    if c > 0:
        return dmax(ceildiv(b - a, c), 0)
    return dmax(ceildiv(a - b, -c), 0)


def _bound(v, n, neg: bool, op: str):
    """A slice bound ``v`` (int or symbolic) clipped as NumPy clips it to a dimension of
    size ``n``: to ``[0, n]`` for a positive step, ``[-1, n - 1]`` for a negative one
    (``neg``); a negative bound counts from the end.  A symbolic bound whose sign is not
    the same at every size must keep the sign it can have most (a requirement: ``>= 0``,
    or ``< 0`` for one never positive, ``-(n // 2)``, which NumPy reads as 0 at 0)."""
    lo, hi = (-1, n - 1) if neg else (0, n)
    if type(v) is Dim:
        if from_end(v):  # counts from the end (where it is not 0: checked at each call)
            if v.bounds()[1] == 0:
                require("le", v + 1, 0, op)
            return dmax(n + v, lo)
        if v.bounds()[0] < 0:
            require("le", 0, v, op)
        return dmin(v, hi)
    if v < 0:
        return dmax(n + v, lo)
    return dmin(v, hi)


def from_end(v: Dim) -> bool:
    """Whether the symbolic bound or index ``v`` is read as counted from the end: when it
    is never positive and is negative at large sizes (``-(n // 2)``), not when it is 0
    there (``min(2, n) - 2``).  Either reading is checked at each call (it must keep
    its sign), so the choice is never a wrong number: at most an error."""
    lo, hi = v.bounds()
    if lo >= 0 or hi > 0:
        return False
    return hi < 0 or v.evaluate({s: 1 << 20 for s in v.symbols()}) < 0


def slice_indices(k: slice, n, op: str = "getitem") -> tuple:
    """``k.indices(n)`` (NumPy's normalized ``(start, stop, step)``) where ``n`` or the
    bounds may be symbolic sizes; the step must be an int."""
    if type(n) is int and type(k.start) is not Dim and type(k.stop) is not Dim:
        return k.indices(n)
    c = 1 if k.step is None else operator.index(k.step)
    if c == 0:
        raise ValueError("slice step cannot be zero")
    neg = c < 0
    a = (n - 1 if neg else 0) if k.start is None else _bound(k.start, n, neg, op)
    b = (-1 if neg else n) if k.stop is None else _bound(k.stop, n, neg, op)
    return a, b, c


def _slice_shape(srcs, slices):
    (x,) = srcs
    if len(slices) != x.ndim:
        raise ValueError(f"{len(slices)} slices for {x.ndim} dims")
    out = []
    for (a, b, c), d in zip(slices, x.shape):  # normalized: the kernels do no clipping
        n = slice_len(a, b, c)
        if type(n) is Dim or type(d) is Dim or type(a) is Dim:
            out.append(n)  # (normalized by slice_indices; checked at each call's sizes)
            continue
        if c == 0 or (n and not (0 <= a < d and 0 <= a + (n - 1) * c < d)):
            raise ValueError(f"slice ({a}, {b}, {c}) is out of bounds for a dim of size {d}")
        out.append(n)
    return tuple(out)


def _expand_vjp(g, out, x, shape):
    # the cotangent summed over the broadcast axes: those of size 1 in x; an axis whose
    # sizes are symbolic and differ (x's w0 against broadcast(n - 1, w0), which is 1 or
    # the other at each call) is summed, or not, at each call
    axes, unsure = [], []
    for i, (a, b) in enumerate(zip(x.shape, shape)):
        if a is b or (type(a) is not Dim and type(b) is not Dim and a == b):
            continue
        (axes if type(a) is int and a == 1 or not (type(a) is Dim or type(b) is Dim)
         else unsure).append(i)
    if axes:
        g = F.sum(g, axis=tuple(axes), keepdims=True)
    for i in unsure:
        g = _unbroadcast(g, i, x.shape[i])
    return (g,)


def _unbroadcast(g, axis: int, n):
    """``g`` summed along ``axis`` into ``n`` (a size known at each call) entries, where
    ``n`` is 1 (a broadcast axis: the sum) or ``g``'s size there (the identity): each
    entry ``j`` is added to entry ``j % n`` (one scatter-add, right in both cases)."""
    moved = F.moveaxis(g, axis, 0)
    index = F.arange(moved.shape[0]) % F.size_value(n, np.int64)
    out = F.zeros((n, *moved.shape[1:]), g.dtype).at[index].add(moved)
    return F.moveaxis(out, 0, axis)


register(OpDef("reshape", "movement", lambda x, shape: x.reshape(shape), shape=_reshape_shape,
               **_LINEAR,
               vjp=lambda g, out, x, shape: (g.reshape(x.shape),)))
register(OpDef("permute", "movement", lambda x, perm: np.transpose(x, perm),
               shape=_permute_shape, **_LINEAR,
               vjp=lambda g, out, x, perm: (g.transpose(tuple(np.argsort(perm))),)))
register(OpDef("expand", "movement", lambda x, shape: np.broadcast_to(x, shape),
               shape=_expand_shape, **_LINEAR, vjp=_expand_vjp))
register(OpDef("slice", "movement", lambda x, sl: x[as_slices(sl)],
               shape=_slice_shape, **_LINEAR,
               vjp=lambda g, out, x, sl: (F.inc_slice(F.zeros_like(x), g, sl),)))


# --- indexed reads and writes ----------------------------------------------------------

def _slice_write(x, v, sl, add):
    out = x.copy()
    ix = as_slices(sl)
    if add:
        out[ix] += v
    else:
        out[ix] = v
    return out


def _slice_write_shape(srcs, sl):
    x, v = srcs
    want = _slice_shape((x,), sl)
    if tuple(v.shape) != want:
        raise ValueError(f"value of shape {v.shape} does not match the slice shape {want}")
    return x.shape


def _axis_index(ndim, axis, idx):
    return (slice(None),) * axis + (idx,) + (slice(None),) * (ndim - axis - 1)


def _check_bounds(x, idx, axis):
    n = x.shape[axis]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _take(x, idx, axis):
    _check_bounds(x, idx, axis)
    return np.take(x, idx, axis=axis)


def _put(x, idx, v, axis, add):
    _check_bounds(x, idx, axis)
    out = x.copy()
    ix = _axis_index(x.ndim, axis, idx)
    if add:
        np.add.at(out, ix, v)
    else:
        out[ix] = v
    return out


def _take_shape(srcs, axis):
    x, idx = srcs
    if idx.dtype.kind not in "iu":
        raise ValueError(f"indices must be integers, got {idx.dtype.name}")
    if x.shape[axis] == 0 and idx.size:
        raise IndexError(f"cannot take from an empty axis {axis}")  # (NumPy's error)
    return x.shape[:axis] + idx.shape + x.shape[axis + 1:]


def _put_shape(srcs, axis):
    x, idx, v = srcs
    want = _take_shape((x, idx), axis)
    if tuple(v.shape) != want:
        raise ValueError(f"values of shape {v.shape} do not match the indexed shape {want}")
    return x.shape


register(OpDef("set_slice", "index", lambda x, v, sl: _slice_write(x, v, sl, False),
               shape=_slice_write_shape, **_LINEAR,
               vjp=lambda g, out, x, v, sl: (F.set_slice(g, F.zeros_like(v), sl),
                                             F.get_slice(g, sl))))
register(OpDef("inc_slice", "index", lambda x, v, sl: _slice_write(x, v, sl, True),
               shape=_slice_write_shape, **_LINEAR,
               vjp=lambda g, out, x, v, sl: (g, F.get_slice(g, sl))))
register(OpDef("take", "index", _take, shape=_take_shape,
               **_LINEAR,
               vjp=lambda g, out, x, idx, axis: (F.put_add(F.zeros_like(x), idx, g, axis),
                                                 None)))
def _survivors(x, idx, v, axis):
    """1 at the index positions whose write survives ``put`` (the last of repeated
    indices, as the forward's last write wins), else 0; shaped to broadcast against
    ``v``.  Computed with ``put`` itself: each element records the last position
    written to it."""
    flat = F.reshape(idx, (idx.size,))
    pos = F.size_range(idx.size)
    last = F.put(F.full((x.shape[axis],), -1, np.int64), flat, pos, 0)
    won = F.astype(F.take(last, flat, 0) == pos, v.dtype)
    return F.reshape(won, (1,) * axis + idx.shape + (1,) * (x.ndim - axis - 1))


register(OpDef("put", "index", lambda x, idx, v, axis: _put(x, idx, v, axis, False),
               shape=_put_shape, **_LINEAR,
               vjp=lambda g, out, x, idx, v, axis: (
                   F.put(g, idx, F.zeros_like(v), axis), None,
                   F.take(g, idx, axis) * _survivors(x, idx, v, axis)),
               doc="repeated indices: the last write wins, and only it receives gradient"))
register(OpDef("put_add", "index", lambda x, idx, v, axis: _put(x, idx, v, axis, True),
               shape=_put_shape, **_LINEAR,
               vjp=lambda g, out, x, idx, v, axis: (g, None, F.take(g, idx, axis))))


def _concat_shape(srcs, axis):
    first = srcs[0]
    shape = list(first.shape)
    for s in srcs[1:]:
        if s.ndim != first.ndim:
            raise ValueError("all input shapes must match except along the concatenation axis")
        for i, (a, b) in enumerate(zip(s.shape, shape)):
            if i != axis:
                try:
                    shape[i] = equal_size(b, a, "concatenate")
                except ValueError:
                    raise ValueError("all input shapes must match except along the "
                                     "concatenation axis") from None
    shape[axis] = sum(s.shape[axis] for s in srcs)
    return tuple(shape)


def _concat_vjp(g, out, *srcs_and_axis):
    *srcs, axis = srcs_and_axis
    grads, start = [], 0
    for s in srcs:
        sl = tuple((start, start + s.shape[axis], 1) if i == axis else (0, d, 1)
                   for i, d in enumerate(g.shape))
        grads.append(F.get_slice(g, sl))
        start += s.shape[axis]
    return tuple(grads)


register(OpDef("concat", "concat", lambda *xs_axis: np.concatenate(xs_axis[:-1], axis=xs_axis[-1]),
               shape=_concat_shape, **_LINEAR, vjp=_concat_vjp))


# --- matmul ----------------------------------------------------------------------------

def _matmul_shape(srcs, arg):
    a, b = srcs
    if a.ndim < 2 or a.ndim != b.ndim:
        raise ValueError("shapes are not aligned (inner dims must match)")
    try:
        batch = tuple(equal_size(x, y, "matmul") for x, y in zip(a.shape[:-2], b.shape[:-2]))
        equal_size(a.shape[-1], b.shape[-2], "matmul")
    except ValueError:
        raise ValueError("shapes are not aligned (inner dims must match)") from None
    return batch + (a.shape[-2], b.shape[-1])


register(OpDef("matmul", "matmul", _in_float32(lambda a, b, arg: np.matmul(a, b)),
               shape=_matmul_shape,
               vjp=lambda g, out, a, b, arg: (F.matmul(g, F.swapaxes(b, -1, -2)),
                                              F.matmul(F.swapaxes(a, -1, -2), g)),
               jvp=bilinear_jvp(lambda a, b, arg: F.matmul(a, b))))


def _gemm_shape(srcs, alpha):
    a, b, c = srcs
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0] or \
            c.shape != (a.shape[0], b.shape[1]):
        raise ValueError("gemm needs a (M, K), b (K, N) and c (M, N)")
    return c.shape


def _gemm_vjp(g, out, a, b, c, alpha):
    return (F.matmul(g, b.T) * alpha, F.matmul(a.T, g) * alpha, g)


def _gemm_jvp(ts, out, a, b, c, alpha):
    ta, tb, tc = ts
    terms = ([F.matmul(ta, b) * alpha] if ta is not None else []) + \
        ([F.matmul(a, tb) * alpha] if tb is not None else []) + ([tc] if tc is not None else [])
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


# made by the specialization rule "gemm" (never by the API): one BLAS call computes
# alpha * (a @ b) + c, c filled into the result first (BLAS's beta = 1)
register(OpDef("gemm", "matmul",
               _in_float32(lambda a, b, c, alpha: (alpha * np.matmul(a, b) + c).astype(c.dtype)),
               shape=_gemm_shape, dtype=lambda dts, alpha: dts[2], vjp=_gemm_vjp,
               jvp=_gemm_jvp, float_only=True))
