"""NumPy indexing (``x[idx]``) and Theano's indexed updates.

``x[idx]`` supports ints, slices (negative steps too), ``None``, ``Ellipsis``, integer
arrays (NumPy's advanced-indexing placement rules) and boolean masks (realized first,
since the result shape depends on the data).  It lowers to ``slice``, ``reshape``,
``permute`` and ``take`` nodes.

``set_subtensor(x[idx], v)`` and ``inc_subtensor(x[idx], v)`` (Theano's names) return a
new tensor equal to ``x`` with the indexed part replaced by / incremented by ``v``;
repeated integer indices accumulate in ``inc_subtensor`` (``np.add.at``), which is what
the gradient of indexing needs.  ``x.at[idx].set(v)`` / ``.add(v)`` are the same, JAX-style.
"""
from __future__ import annotations

import math

import numpy as np

import lazyjit.api.core as C
import lazyjit.api.shape_ops as S
from lazyjit.api.scan import size_range
from lazyjit.api.tensor import Tensor
from lazyjit.api.weak import WeakScalar
from lazyjit.errors import op_error
from lazyjit.ops.structural import from_end, slice_indices
from lazyjit.trace.constraints import require
from lazyjit.trace.dims import Dim
from lazyjit.trace.graph import collect
from lazyjit.trace.node import Node


_NO_AXES = object()  # an Ellipsis that stands for no axes (see _normalize)


def _mask_axes(key: list, shape: tuple) -> None:
    """Check each boolean mask of ``key`` against the axes it indexes (NumPy raises an
    IndexError where their sizes differ; its nonzero() would pick wrong elements)."""
    width = [k.ndim if _is_mask(k) else 0 if k is None or k is Ellipsis else 1 for k in key]
    at = 0
    for i, k in enumerate(key):
        if k is Ellipsis:  # (the axes after it are counted from the end)
            at = len(shape) - sum(width[i + 1:])
            continue
        if _is_mask(k) and k.ndim:
            for d in range(k.ndim):
                n = shape[at + d] if 0 <= at + d < len(shape) else None
                if type(n) is int and k.shape[d] != n:
                    raise IndexError(f"boolean index did not match indexed tensor along "
                                     f"axis {at + d}; size of axis is {n} but size of "
                                     f"corresponding boolean axis is {k.shape[d]}")
        at += width[i]


def _is_mask(k) -> bool:
    return isinstance(k, (Tensor, np.ndarray)) and k.dtype == np.bool_


def _normalize(key, ndim: int, shape: tuple = ()):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, WeakScalar):  # a traced Python int: a 0-d index array, read at
            k = k.tensor  # each call (a float is refused below, as NumPy refuses it)
        if isinstance(k, Tensor):
            out.append(k)
        elif isinstance(k, (bool, np.bool_)):  # x[True]: a 0-d mask (not the index 1)
            out.append(np.asarray(k))
        elif isinstance(k, (list, np.ndarray)) and not isinstance(k, str):
            arr = np.asarray(k)
            out.append(arr.astype(np.intp) if arr.size == 0 else arr)  # x[[]] as NumPy
        else:
            out.append(k)
        if isinstance(out[-1], (Tensor, np.ndarray)) and out[-1].dtype.kind not in "biu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type, "
                             f"got {out[-1].dtype}")
    # boolean masks become integer arrays (data-dependent shape: realize now)
    _mask_axes(out, shape)
    expanded = []
    for k in out:
        if _is_mask(k):
            if isinstance(k, Tensor) and k.node.buffer is None and \
                    any(n.op == "param" for n in collect([k.node]).inputs):
                raise op_error("getitem", "a boolean mask known only at each call: the "
                               "result's shape would depend on the mask's values; use "
                               "lj.where(mask, x, 0), or lj.sort / lj.argsort to gather",
                               (k.node,))
            mask = k.numpy() if isinstance(k, Tensor) else k
            if mask.ndim == 0:  # x[True]: a new axis of length 1 (NumPy's)
                others = [j for j in out if j is not k and (
                    _is_array(j) or isinstance(j, (int, np.integer, Dim)))]
                if not mask or others:
                    raise IndexError("a 0-d boolean index is supported alone with slices, "
                                     "None and Ellipsis, and True only (x[True], a new "
                                     "axis); use x[None] with ordinary indices")
                expanded.append(None)
                continue
            expanded.extend(np.nonzero(mask))
        else:
            expanded.append(k)
    out = expanded
    consumed = sum(0 if (k is None or k is Ellipsis) else 1 for k in out)
    if sum(k is Ellipsis for k in out) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor: tensor is {ndim}-dimensional, "
                         f"but {consumed} were indexed")
    if Ellipsis in [k for k in out if not isinstance(k, (Tensor, np.ndarray))]:
        i = next(j for j, k in enumerate(out) if k is Ellipsis)
        # (one of no axes stays, as a mark: it still separates advanced indices)
        out = out[:i] + ([slice(None)] * (ndim - consumed) or [_NO_AXES]) + out[i + 1:]
    else:
        out = out + [slice(None)] * (ndim - consumed)
    return out


def _index(i, n, dim: int) -> tuple:
    """The slice of the integer index ``i`` (an int or a symbolic size) of a dimension
    of size ``n`` (``i`` counts from the end when negative, as NumPy); where the sizes
    are symbolic, that it is in bounds is a requirement checked at each call."""
    if type(i) is not Dim and type(n) is not Dim:
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
        i %= n
        return (i, i + 1, 1)
    if i < 0 if type(i) is not Dim else from_end(i):  # from the end (0 must not be)
        require("rindex", i, n, "getitem")  # (-n <= i < 0)
        i = n + i
    else:
        require("index", i, n, "getitem")  # (0 <= i < n)
    return (i, i + 1, 1)


def _is_array(k) -> bool:
    return isinstance(k, (Tensor, np.ndarray))


def _broadcast_or_none(shapes: list) -> tuple:
    """NumPy's broadcast of ``shapes``, or ``()`` when they do not broadcast (the error
    is raised where the index arrays are broadcast)."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return ()


def take_along_axis(x, indices, axis: int | None) -> Tensor:
    """Gather values along ``axis`` at ``indices`` (same ndim as ``x``; with ``axis=None``,
    1-d indices into the flattened ``x``), as ``np.take_along_axis``."""
    x, idx = C.asarray(x), C.astype(C.asarray(indices), np.int64)
    if axis is None:
        x, axis = S.ravel(x), 0
    if idx.ndim != x.ndim:
        raise op_error("take_along_axis", "indices and arr must have the same number of "
                       "dimensions", (x.node, idx.node))
    (axis,) = C._axes(axis, x.ndim, "take_along_axis")
    shape = tuple(idx.shape[i] if i == axis else
                  C.broadcast_shapes((x.shape[i],), (idx.shape[i],), op="take_along_axis")[0]
                  for i in range(x.ndim))
    idx = C.broadcast_to(idx, shape)
    n = x.shape[axis]
    idx = C.where(idx < 0, idx + n, idx)
    bad = (idx < 0) | (idx >= n)
    linear = C.zeros(shape, np.int64)
    stride = 1
    for i in reversed(range(x.ndim)):
        if i == axis:
            comp = idx
        else:
            comp = S.reshape(size_range(shape[i]),
                             tuple(shape[i] if j == i else 1 for j in range(x.ndim)))
        linear = linear + comp * stride
        stride *= x.shape[i] if i == axis else shape[i]
    src = C.broadcast_to(x, tuple(x.shape[i] if i == axis else shape[i] for i in range(x.ndim)))
    linear = C.where(bad, -(src.size + 1), linear)
    return S.take(S.ravel(src), linear, 0)


def getitem(x: Tensor, key) -> Tensor:
    """``x[key]`` with NumPy semantics (see the module docstring)."""
    key = _normalize(key, x.ndim, x.shape)
    has_array = any(_is_array(k) for k in key)
    # NumPy checks the bounds of index arrays only when their broadcast shape selects
    # something: z[[], :, [254]] of z with shape (0, 4, 2) is empty, not an error
    empty = has_array and 0 in _broadcast_or_none([k.shape for k in key if _is_array(k)])
    # pass 1: basic slicing of every consumed dim; ints become arrays when arrays exist
    slices, after, adv = [], [], []  # after: shape template after the basic slice
    # apart: advanced indices on both sides of an Ellipsis of no axes (split: one before)
    dim, split, apart = 0, False, False
    for k in key:
        if k is _NO_AXES:
            split = bool(adv)
            continue
        if k is None:
            after.append(("new",))
            continue
        n = x.shape[dim]
        if _is_array(k) or (has_array and isinstance(k, (int, np.integer))):
            if not isinstance(k, Tensor) and not (empty and _is_array(k)):
                S._check_bounds(np.asarray(k), dim, n)
            slices.append((0, n, 1))
            apart = apart or split
            adv.append((len(after), k))
            after.append(("keep", dim))
        elif isinstance(k, (int, np.integer, Dim)):
            slices.append(_index(k if type(k) is Dim else int(k), n, dim))
            after.append(("drop", dim))
        elif isinstance(k, slice):
            slices.append(slice_indices(k, n))
            after.append(("keep", dim))
        else:
            raise IndexError(f"only integers, slices, None, Ellipsis and integer or boolean "
                             f"arrays are valid indices, got {type(k).__name__}")
        dim += 1
    out = S.get_slice(x, tuple(slices))
    shape = []
    for a in after:
        if a[0] == "new":
            shape.append(1)
        elif a[0] == "keep":
            shape.append(out.shape[a[1]])
    out = S.reshape(out, tuple(shape))
    if not adv:
        return _tag(out, x, key)
    return _tag(_advanced(out, adv, apart), x, key)


def _advanced(x: Tensor, adv, apart: bool = False) -> Tensor:
    """Apply integer-array indices at positions ``adv`` (NumPy placement rules; ``apart``:
    they are not adjacent in the key, so their dimensions go first)."""
    pos = [p for p, _ in adv]
    idxs = [C.astype(C.asarray(k), np.int64) for _, k in adv]
    bshape = C.broadcast_shapes(*[i.shape for i in idxs], op="getitem")
    idxs = [C.broadcast_to(i, bshape) for i in idxs]
    if len(adv) == 1:
        return S.take(x, idxs[0], pos[0])
    adjacent = not apart and pos == list(range(pos[0], pos[0] + len(pos)))
    rest = [i for i in range(x.ndim) if i not in pos]
    moved = S.transpose(x, tuple(pos) + tuple(rest))
    dims = [x.shape[p] for p in pos]
    flat = S.reshape(moved, (math.prod(dims),) + tuple(x.shape[r] for r in rest))
    linear, bad, stride = C.zeros(bshape, np.int64), C.zeros(bshape, np.bool_), 1
    for i, n in reversed(list(zip(idxs, dims))):
        bad = bad | (i < -n) | (i >= n)
        linear = linear + C.where(i < 0, i + n, i) * stride
        stride *= n
    linear = C.where(bad, -(flat.shape[0] + 1), linear)
    out = S.take(flat, linear, 0)
    if adjacent and pos[0] > 0:
        nb = len(bshape)
        perm = list(range(nb, nb + pos[0])) + list(range(nb)) + list(range(nb + pos[0], out.ndim))
        out = S.transpose(out, tuple(perm))
    return out


def _tag(out: Tensor, base: Tensor, key) -> Tensor:
    """Return a tensor that remembers it is ``base[key]`` (for set/inc_subtensor)."""
    t = Tensor(out.node)
    t._index = base.node
    return t


def _write(node: Node, base: Node, value: Tensor, add: bool) -> Tensor:
    """Rebuild ``base`` with ``node`` (a chain of view/take ops over ``base``) replaced by
    ``value`` (or incremented by it, at the innermost slice or take)."""
    if node is base:
        return C.asarray(value) + Tensor(base) if add else value
    src = Tensor(node.src[0])
    if node.op == "reshape":
        return _write(node.src[0], base, S.reshape(value, src.shape), add)
    if node.op == "permute":
        inv = tuple(int(i) for i in np.argsort(node.arg))
        return _write(node.src[0], base, S.transpose(value, inv), add)
    if node.op == "slice":
        new = (S.inc_slice if add else S.set_slice)(src, value, node.arg)
        return _write(node.src[0], base, new, False)
    if node.op == "take":
        new = (S.put_add if add else S.put)(src, Tensor(node.src[1]), value, node.arg)
        return _write(node.src[0], base, new, False)
    raise op_error("set_subtensor", f"cannot write through a {node.op!r} node")


def _update(sub: Tensor, value, add: bool) -> Tensor:
    if not isinstance(sub, Tensor) or sub._index is None:
        raise op_error("set_subtensor" if not add else "inc_subtensor",
                       "the first argument must be an indexed tensor x[idx]")
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        value = value.item()  # (NumPy converts a NumPy number as the Python one)
    if type(value) in (bool, int, float) or isinstance(value, WeakScalar):
        # (a Python number is converted as NumPy's a[i] = 300 does: OverflowError for
        # int8, ValueError for a NaN into an integer dtype; a traced one, at each call)
        value = C.tensor(value, sub.dtype)
    value = C.asarray(value)
    if value.dtype.kind == "c" and sub.dtype.kind != "c":  # (NumPy: TypeError, or a warning)
        raise op_error("set_subtensor" if not add else "inc_subtensor",
                       f"a complex value into a {sub.dtype} tensor would lose its "
                       "imaginary part: write its real part (.real) explicitly",
                       (value.node, sub.node), cls=TypeError)
    v = C.broadcast_to(C.astype(value, sub.dtype), sub.shape)
    return _write(sub.graph_node, sub._index, v, add)  # (the view chain, even once read)


def set_subtensor(sub: Tensor, value) -> Tensor:
    """Return ``x`` with ``x[idx]`` replaced by ``value`` (broadcast), for ``sub = x[idx]``
    (Theano's ``set_subtensor``).  With repeated integer indices the last write wins."""
    return _update(sub, value, add=False)


def inc_subtensor(sub: Tensor, value) -> Tensor:
    """Return ``x`` with ``value`` added at ``x[idx]``, for ``sub = x[idx]``; repeated
    integer indices accumulate (Theano's ``inc_subtensor``, NumPy's ``np.add.at``)."""
    return _update(sub, value, add=True)


class _At:
    """``x.at[idx].set(v)`` / ``.add(v)`` / ``.get()``, as in JAX."""

    def __init__(self, x: Tensor):
        self._x = x

    def __getitem__(self, key):
        return _AtIndex(self._x, key)


class _AtIndex:
    def __init__(self, x, key):
        self._x, self._key = x, key

    def get(self) -> Tensor:
        return self._x[self._key]

    def set(self, value) -> Tensor:
        return set_subtensor(self._x[self._key], value)

    def add(self, value) -> Tensor:
        return inc_subtensor(self._x[self._key], value)
