"""NumPy's array manipulation and construction routines, as composites of the movement
primitives (slices, reshapes, broadcasts, concatenation, ``where``): ``flip roll tile
repeat hstack vstack meshgrid kron tril triu diag diagonal trace pad``.

Each has NumPy's semantics, shapes and dtypes (the NumPy function of the same name is
the reference of the tests), differentiates in both modes through its primitives, and
runs on every backend.  They need sizes known when the graph is built (a symbolic size
is a clear error), and ``repeat`` with per-element counts reads the counts' values.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lazyjit.api.core import _axes, asarray, broadcast_to, full, where
from lazyjit.api.shape_ops import concatenate, expand_dims, ravel, reshape, take, transpose
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.trace.dims import Dim


def _concrete(x: Tensor, name: str) -> tuple[int, ...]:
    """``x``'s shape, all of whose sizes must be known now."""
    if any(type(d) is Dim for d in x.shape):
        raise op_error(name, f"needs the sizes of its input when the graph is built; shape "
                       f"{x.shape} has a symbolic size", (x.node,))
    return tuple(x.shape)


def _along(x: Tensor, axis: int, sl: slice) -> Tensor:
    return x[(slice(None),) * axis + (sl,)]


def flip(x, axis=None) -> Tensor:
    """Reverse the order of elements along ``axis`` (an int, a tuple, or all axes when
    None), as ``np.flip``.

    Raises
    ------
    LazyjitError
        An axis out of range, or repeated.
    """
    x = asarray(x)
    axes = _axes(axis, x.ndim, "flip")
    return x[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))]


def roll(x, shift, axis=None) -> Tensor:
    """Shift elements cyclically by ``shift`` along ``axis`` (of the flattened tensor
    when None; a shift per axis when both are tuples), as ``np.roll``."""
    x = asarray(x)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shape = _concrete(x, "roll")
    axes = [_axes(int(a), x.ndim, "roll")[0] for a in np.atleast_1d(axis)]
    shifts = np.atleast_1d(np.asarray(shift, dtype=np.int64))
    if len(shifts) not in (1, len(axes)):
        raise op_error("roll", f"{len(shifts)} shifts for {len(axes)} axes", (x.node,))
    shifts = np.broadcast_to(shifts, (len(axes),))
    for a, s in zip(axes, shifts):
        n = shape[a]
        s = int(s) % n if n else 0
        if s:
            x = concatenate([_along(x, a, slice(n - s, None)), _along(x, a, slice(0, n - s))],
                            axis=a)
    return x


def tile(x, reps) -> Tensor:
    """``x`` repeated ``reps`` times along each axis (``reps`` an int or a tuple; the
    shorter of ``x.shape`` and ``reps`` is padded with ones in front), as ``np.tile``."""
    x = asarray(x)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise op_error("tile", f"negative repetitions {reps}", (x.node,))
    shape = _concrete(x, "tile")
    d = max(len(shape), len(reps))
    shape, reps = (1,) * (d - len(shape)) + shape, (1,) * (d - len(reps)) + reps
    spread = reshape(x, tuple(v for s in shape for v in (1, s)))
    wide = broadcast_to(spread, tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    return reshape(wide, tuple(r * s for r, s in zip(reps, shape)))


def repeat(x, repeats, axis=None) -> Tensor:
    """Repeat each element ``repeats`` times along ``axis`` (of the flattened tensor when
    None), as ``np.repeat``; ``repeats`` an int, or one count per element (a tensor of
    counts is computed first: the output's size depends on its values).

    Raises
    ------
    LazyjitError
        A negative count, or a number of counts that is neither 1 nor the axis's size.
    """
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = _axes(int(axis), x.ndim, "repeat")
    shape = _concrete(x, "repeat")
    counts = np.asarray(repeats.numpy() if isinstance(repeats, Tensor) else repeats)
    if counts.dtype.kind not in "iub" or (counts < 0).any():
        raise op_error("repeat", "repeats must be non-negative integers", (x.node,))
    if counts.size == 1:
        r = int(counts.reshape(()))
        wide = broadcast_to(expand_dims(x, axis + 1),
                            shape[:axis + 1] + (r,) + shape[axis + 1:])
        return reshape(wide, shape[:axis] + (shape[axis] * r,) + shape[axis + 1:])
    if counts.shape != (shape[axis],):
        raise op_error("repeat", f"{counts.size} counts for an axis of size {shape[axis]}",
                       (x.node,))
    return take(x, np.repeat(np.arange(shape[axis]), counts), axis=axis)


def _at_least(x, ndim: int) -> Tensor:
    x = asarray(x)
    return x if x.ndim >= ndim else reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))


def unstack(x, /, *, axis: int = 0) -> tuple:
    """The tensors along ``axis``, as a tuple (the Array API's and NumPy 2.1's
    ``unstack``: the inverse of ``stack``)."""
    x = asarray(x)
    if x.ndim == 0:
        raise op_error("unstack", "needs at least 1 dimension", (x.node,))
    (axis,) = _axes(axis, x.ndim, "unstack")
    n = _concrete(x, "unstack")[axis]
    return tuple(take(x, i, axis) for i in range(n))


def hstack(xs: Sequence) -> Tensor:
    """Concatenate along the second axis (the first for 1-D inputs), as ``np.hstack``."""
    xs = [_at_least(x, 1) for x in xs]
    return concatenate(xs, axis=0 if xs and xs[0].ndim == 1 else 1)


def vstack(xs: Sequence) -> Tensor:
    """Concatenate along the first axis, 1-D inputs as rows, as ``np.vstack``."""
    return concatenate([_at_least(x, 2) for x in xs], axis=0)


def meshgrid(*xs, indexing: str = "xy", sparse: bool = False) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D coordinate vectors (each flattened), as
    ``np.meshgrid``: ``indexing="xy"`` (Cartesian: the first two axes swapped) or
    ``"ij"`` (matrix); ``sparse`` keeps size-1 axes instead of broadcasting.

    Raises
    ------
    LazyjitError
        ``indexing`` is neither "xy" nor "ij".
    """
    if indexing not in ("xy", "ij"):
        raise op_error("meshgrid", f"indexing must be 'xy' or 'ij', not {indexing!r}")
    xs = [ravel(asarray(x)) for x in xs]
    n = len(xs)
    sizes = [x.shape[0] for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        pos = (1 - i if i < 2 else i) if indexing == "xy" and n > 1 else i
        g = reshape(x, tuple(-1 if j == pos else 1 for j in range(n)))
        out.append(g if sparse else broadcast_to(g, tuple(sizes)))
    return tuple(out)  # (NumPy 2's: a tuple)


def kron(a, b) -> Tensor:
    """Kronecker product: blocks ``a[i] * b`` (the shorter shape padded with ones in
    front), as ``np.kron``."""
    a, b = asarray(a), asarray(b)
    sa, sb = _concrete(a, "kron"), _concrete(b, "kron")
    d = max(len(sa), len(sb))
    sa, sb = (1,) * (d - len(sa)) + sa, (1,) * (d - len(sb)) + sb
    prod = reshape(a, tuple(v for s in sa for v in (s, 1))) * \
        reshape(b, tuple(v for s in sb for v in (1, s)))
    return reshape(prod, tuple(p * q for p, q in zip(sa, sb)))


def _masked(x, keep: np.ndarray) -> Tensor:
    """``x`` where ``keep`` (a constant mask over its last two axes), else zero."""
    return where(keep, x, asarray(np.zeros((), x.dtype)))


def tril(x, k: int = 0) -> Tensor:
    """The lower triangle of the last two axes (from the ``k``-th diagonal down), the
    rest zero, as ``np.tril`` (a 1-D input gives the triangle of its broadcast square)."""
    x = asarray(x)
    shape = _concrete(x, "tril")
    return _masked(x, np.tri(*shape[-2:], k=k, dtype=bool))


def triu(x, k: int = 0) -> Tensor:
    """The upper triangle of the last two axes (from the ``k``-th diagonal up), the rest
    zero, as ``np.triu``."""
    x = asarray(x)
    shape = _concrete(x, "triu")
    return _masked(x, ~np.tri(*shape[-2:], k=k - 1, dtype=bool))


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of the planes of ``axis1`` and ``axis2``, as the last
    axis of the result, as ``np.diagonal`` (a new tensor, not a view).

    Raises
    ------
    LazyjitError
        ``x`` has fewer than 2 dimensions, or ``axis1 == axis2``.
    """
    x = asarray(x)
    if x.ndim < 2:
        raise op_error("diagonal", "needs at least 2 dimensions", (x.node,))
    (a1,), (a2,) = _axes(int(axis1), x.ndim, "diagonal"), _axes(int(axis2), x.ndim, "diagonal")
    if a1 == a2:
        raise op_error("diagonal", "axis1 and axis2 cannot be the same", (x.node,))
    x = transpose(x, tuple(i for i in range(x.ndim) if i not in (a1, a2)) + (a1, a2))
    shape = _concrete(x, "diagonal")
    n, m = shape[-2:]
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset if offset >= 0 else -offset * m
    flat = reshape(x, shape[:-2] + (n * m,))
    if length == 0:
        return flat[..., 0:0]
    return flat[..., start:start + (length - 1) * (m + 1) + 1:m + 1]


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None) -> Tensor:
    """The sum along the ``offset``-th diagonal, as ``np.trace`` (integer sums promote
    as ``np.sum``'s)."""
    d = diagonal(x, offset, axis1, axis2)
    if dtype is None:
        return d.sum(axis=-1)
    return d.sum(axis=-1, dtype=dtype)


def diag(v, k: int = 0) -> Tensor:
    """For 1-D ``v``, the square matrix with ``v`` on its ``k``-th diagonal; for 2-D,
    its ``k``-th diagonal, as ``np.diag``.

    Raises
    ------
    LazyjitError
        ``v`` is neither 1-D nor 2-D.
    """
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise op_error("diag", "input must be 1- or 2-d", (v.node,))
    (n,) = _concrete(v, "diag")
    square = _masked(broadcast_to(reshape(v, (1, n)), (n, n)), np.eye(n, dtype=bool))
    if k == 0:
        return square
    return pad(square, ((0, k), (k, 0)) if k > 0 else ((-k, 0), (0, -k)))


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(x, pad_width, mode: str = "constant", constant_values=0) -> Tensor:
    """``x`` padded by ``pad_width`` (an int, a ``(before, after)`` pair, or one pair per
    axis), as ``np.pad`` in the modes ``constant`` (``constant_values``: a scalar or one
    pair per axis), ``edge``, ``reflect``, ``symmetric`` and ``wrap``.

    Raises
    ------
    LazyjitError
        Another mode, a negative width, a copying mode on an empty axis, or a
        ``reflect``, ``symmetric`` or ``wrap`` width larger than the axis it copies from
        (``reflect``: the axis's size minus one; NumPy repeats the copy, lazyjit not yet).
    """
    x = asarray(x)
    if mode not in _PAD_MODES:
        raise op_error("pad", f"mode {mode!r} is not supported (modes: {_PAD_MODES})",
                       (x.node,))
    shape = list(_concrete(x, "pad"))
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2))
    if (widths < 0).any():
        raise op_error("pad", f"negative pad width {pad_width}", (x.node,))
    values = np.broadcast_to(np.asarray(constant_values), (x.ndim, 2))
    for axis, (before, after) in enumerate(widths.tolist()):
        n = shape[axis]
        blocks = []
        for side, w in ((0, before), (1, after)):
            if w == 0:
                blocks.append(None)
                continue
            if mode == "constant":
                size = shape[:axis] + [w] + shape[axis + 1:]
                blocks.append(full(tuple(size), values[axis, side].item(), dtype=x.dtype))
                continue
            limit = n - 1 if mode == "reflect" else n if mode != "edge" else n and w
            if w > limit or n == 0:
                raise op_error("pad", f"a {mode} pad of {w} along axis {axis} of size {n} "
                               f"(at most {limit} is supported)", (x.node,))
            if mode == "edge":
                edge = _along(x, axis, slice(0, 1) if side == 0 else slice(n - 1, n))
                size = shape[:axis] + [w] + shape[axis + 1:]
                blocks.append(broadcast_to(edge, tuple(size)))
            elif mode == "wrap":
                blocks.append(_along(x, axis, slice(n - w, n) if side == 0 else slice(0, w)))
            else:  # reflect (the edge not repeated) or symmetric (repeated)
                skip = 1 if mode == "reflect" else 0
                part = _along(x, axis, slice(skip, skip + w) if side == 0
                              else slice(n - skip - w, n - skip))
                blocks.append(flip(part, axis))
        x = concatenate([b for b in (blocks[0], x, blocks[1]) if b is not None], axis=axis)
        shape[axis] = n + before + after
    return x
