"""NumPy's array construction and manipulation beyond :mod:`.arrays` (``atleast_2d``,
``column_stack``, ``array_split``, ``rot90``, ``block``, ``delete``, ``vander``,
``tril_indices``, ...), lazy and differentiable, written in lazyjit's primitives.

Each function has the semantics of NumPy's function of the same name (NumPy 2.4: its
parameter names, defaults, result shapes and dtypes, and the errors it raises, as
``ValueError`` (:class:`~lazyjit.LazyjitError` is one), ``IndexError`` or ``TypeError``);
its docstring names any deviation.  Tensor inputs keep their graph: derivatives go
through the movement primitives, ``where``, ``concatenate`` and ``take``.  Arguments
that decide shapes (counts, indices, axes, ``obj`` of ``delete`` and ``insert``) are
static: Python or NumPy values (a tensor given there is computed first, as ``repeat``
computes its counts), and sizes must be known when the graph is built (a symbolic size
is a clear error).  Constants of numbers alone (``tri``, ``tril_indices``, the window
functions, ...) are made by NumPy, as ``lj.eye`` is.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from lazyjit.api.arrays import _concrete, diag, flip
from lazyjit.api.core import (_axes, asarray, astype, broadcast_shapes, broadcast_to,
                              elementwise, eye, ones, tensor, where, zeros)
from lazyjit.api.indexing import take_along_axis
from lazyjit.api.reductions import any as _any
from lazyjit.api.shape_ops import concatenate, matmul, moveaxis, ravel, reshape, take, transpose
from lazyjit.api.sorting import argsort, cumprod, sort
from lazyjit.api.stacking_steps import (_3d, _along_axis, _block, _block_depths, _block_index,
                                      _check_order, _constant, _core, _insert_at, _kth, _lazy,
                                      _linspace, _matrix_shape, _slab, _split, _static)
from lazyjit.api.tensor import Tensor
from lazyjit.api.weak import WeakScalar
from lazyjit.errors import op_error
from lazyjit.ops import apply

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "dstack", "array_split",
    "hsplit", "vsplit", "dsplit", "rot90", "fliplr", "flipud", "identity", "tri",
    "diagflat", "vander", "tril_indices", "triu_indices", "tril_indices_from",
    "triu_indices_from", "diag_indices", "diag_indices_from", "indices", "ix_",
    "unravel_index", "select", "isin", "append", "delete", "insert", "rollaxis", "resize",
    "block", "lexsort", "partition", "argpartition", "matvec", "vecmat", "array",
    "asanyarray", "ascontiguousarray", "copy", "ndim", "shape", "size", "logspace",
    "geomspace", "bartlett", "blackman", "hamming", "hanning", "kaiser",
    "fromfunction",
]


def _one_or_tuple(out: list):
    return out[0] if len(out) == 1 else tuple(out)


# at least n dimensions, stacking, splitting
# ---------------------------------------------------------------------------------------

def atleast_1d(*arys):
    """Each input as a tensor of at least 1 dimension (0-d becomes shape ``(1,)``), as
    ``np.atleast_1d``: one input gives a tensor, several a tuple (none: ``()``)."""
    return _one_or_tuple([reshape(x, (1,)) if x.ndim == 0 else x
                          for x in map(asarray, arys)])


def atleast_2d(*arys):
    """Each input with at least 2 dimensions (``()`` -> ``(1, 1)``, ``(N,)`` ->
    ``(1, N)``), as ``np.atleast_2d``; one input gives a tensor, several a tuple."""
    return _one_or_tuple([x if x.ndim >= 2 else reshape(x, (1,) * (2 - x.ndim) + x.shape)
                          for x in map(asarray, arys)])


def atleast_3d(*arys):
    """Each input with at least 3 dimensions (``()`` -> ``(1, 1, 1)``, ``(N,)`` ->
    ``(1, N, 1)``, ``(M, N)`` -> ``(M, N, 1)``), as ``np.atleast_3d``; one input gives a
    tensor, several a tuple."""
    return _one_or_tuple([_3d(x) for x in map(asarray, arys)])


def column_stack(tup) -> Tensor:
    """Stack 1-D inputs as columns (``(N,)`` -> ``(N, 1)``; 0-d -> ``(1, 1)``) and
    2-D or higher inputs as they are, along the second axis, as ``np.column_stack``
    (dtypes promoted as ``concatenate``'s).  Raises ``LazyjitError`` for no inputs, or
    shapes that do not match off the second axis."""
    cols = []
    for x in map(asarray, tup):
        cols.append(reshape(x, (-1, 1) if x.ndim == 1 else (1, 1)) if x.ndim < 2 else x)
    return concatenate(cols, axis=1)


def dstack(tup) -> Tensor:
    """Concatenate along the third axis after :func:`atleast_3d`, as ``np.dstack``."""
    return concatenate([_3d(asarray(x)) for x in tup], axis=2)


def array_split(ary, indices_or_sections, axis=0) -> list[Tensor]:
    """A list of the pieces of ``ary`` along ``axis``: ``indices_or_sections`` pieces (an
    int: the first ``n % k`` pieces one longer) or cut at the given indices (Python's
    slice rules: negative ones count from the end, ones past it give empty pieces), as
    ``np.array_split``.  Raises ``LazyjitError`` for a count below 1 or a bad axis,
    ``IndexError`` for a 0-d ``ary``."""
    return _split(ary, indices_or_sections, axis, "array_split", False)


def _split_of(ary, indices_or_sections, min_ndim: int, axis_of, name: str):
    x = asarray(ary)
    if x.ndim < min_ndim:
        raise op_error(name, f"{name} only works on arrays of {min_ndim} or more "
                       "dimensions", (x.node,))
    return _split(x, indices_or_sections, axis_of(x), name, True)


def hsplit(ary, indices_or_sections) -> list[Tensor]:
    """Split along the second axis (the first of a 1-D input), as ``np.hsplit``:
    indices as :func:`array_split`'s; a count must divide the axis (else
    ``LazyjitError``, as NumPy's ``ValueError``); a 0-d input is an error."""
    return _split_of(ary, indices_or_sections, 1, lambda x: 1 if x.ndim > 1 else 0, "hsplit")


def vsplit(ary, indices_or_sections) -> list[Tensor]:
    """Split along the first axis of an input of at least 2 dimensions, as
    ``np.vsplit`` (a count must divide the axis)."""
    return _split_of(ary, indices_or_sections, 2, lambda x: 0, "vsplit")


def dsplit(ary, indices_or_sections) -> list[Tensor]:
    """Split along the third axis of an input of at least 3 dimensions, as
    ``np.dsplit`` (a count must divide the axis)."""
    return _split_of(ary, indices_or_sections, 3, lambda x: 2, "dsplit")


# rotations, flips, axes
# ---------------------------------------------------------------------------------------

def rot90(m, k=1, axes=(0, 1)) -> Tensor:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (from the first
    axis towards the second), as ``np.rot90``: ``m``'s dtype, the two axes' sizes
    swapped for odd ``k``.  Raises ``LazyjitError`` for ``axes`` not of length 2, one
    axis twice, or an axis out of range."""
    axes = tuple(axes)
    m = asarray(m)
    if len(axes) != 2:
        raise op_error("rot90", "len(axes) must be 2.", (m.node,))
    a0, a1 = (operator.index(a) for a in axes)
    if a0 == a1 or abs(a0 - a1) == m.ndim:
        raise op_error("rot90", "Axes must be different.", (m.node,))
    if not (-m.ndim <= a0 < m.ndim and -m.ndim <= a1 < m.ndim):
        raise op_error("rot90", f"Axes={axes} out of range for array of ndim={m.ndim}.",
                       (m.node,))
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)


def fliplr(m) -> Tensor:
    """``m[:, ::-1]``, as ``np.fliplr``; ``LazyjitError`` for fewer than 2 dimensions."""
    m = asarray(m)
    if m.ndim < 2:
        raise op_error("fliplr", "Input must be >= 2-d.", (m.node,))
    return m[:, ::-1]


def flipud(m) -> Tensor:
    """``m[::-1]``, as ``np.flipud``; ``LazyjitError`` for a 0-d input."""
    m = asarray(m)
    if m.ndim < 1:
        raise op_error("flipud", "Input must be >= 1-d.", (m.node,))
    return m[::-1]


def rollaxis(a, axis, start=0) -> Tensor:
    """``a`` with ``axis`` moved to before position ``start`` (the others keep their
    order), as ``np.rollaxis`` (:func:`moveaxis` says it more clearly).  Raises
    ``LazyjitError`` for ``axis`` out of range or ``start`` outside ``[-ndim, ndim]``."""
    a = asarray(a)
    n = a.ndim
    (axis,) = _axes(axis, n, "rollaxis")
    start = operator.index(start)
    start += n if start < 0 else 0
    if not 0 <= start < n + 1:
        raise op_error("rollaxis", f"'start' arg requires {-n} <= start < {n + 1}, but "
                       f"{start} was passed in", (a.node,))
    start -= 1 if axis < start else 0
    if axis == start:
        return a
    perm = [i for i in range(n) if i != axis]
    perm.insert(start, axis)
    return transpose(a, perm)


# constants: triangles, indices, windows; ranges
# ---------------------------------------------------------------------------------------

def identity(n, dtype=None) -> Tensor:
    """The ``n`` by ``n`` identity matrix (float64 unless ``dtype``), as
    ``np.identity``; ``n`` may be a symbolic size, as :func:`eye`'s."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=float) -> Tensor:  # noqa: N803 - NumPy's names
    """The ``N`` by ``M`` (default ``N``) matrix of ones at and below the ``k``-th
    diagonal, zeros elsewhere, as ``np.tri`` (float64 unless ``dtype``)."""
    return _constant(np.tri(*_static([N, M, k], "tri", "N, M and k"), dtype=dtype))


def _index_pair(fn, n, k, m, name: str) -> tuple[Tensor, Tensor]:
    return tuple(_constant(i) for i in fn(*_static([n, k, m], name, "n, k and m")))


def tril_indices(n, k=0, m=None) -> tuple[Tensor, Tensor]:
    """Row and column indices (int64) of the lower triangle of an ``n`` by ``m``
    (default ``n``) matrix, from the ``k``-th diagonal down, in row-major order, as
    ``np.tril_indices``."""
    return _index_pair(np.tril_indices, n, k, m, "tril_indices")


def triu_indices(n, k=0, m=None) -> tuple[Tensor, Tensor]:
    """Row and column indices (int64) of the upper triangle, from the ``k``-th diagonal
    up, as ``np.triu_indices``."""
    return _index_pair(np.triu_indices, n, k, m, "triu_indices")


def tril_indices_from(arr, k=0) -> tuple[Tensor, Tensor]:
    """:func:`tril_indices` of the 2-D ``arr``'s shape, as ``np.tril_indices_from``
    (``LazyjitError`` for another number of dimensions)."""
    n, m = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0) -> tuple[Tensor, Tensor]:
    """:func:`triu_indices` of the 2-D ``arr``'s shape, as ``np.triu_indices_from``."""
    n, m = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def diag_indices(n, ndim=2) -> tuple[Tensor, ...]:
    """``ndim`` copies of ``arange(n)`` (int64), the indices of the main diagonal of an
    ``ndim``-dimensional cube of side ``n``, as ``np.diag_indices``."""
    return tuple(_constant(i) for i in
                 np.diag_indices(*_static([n, ndim], "diag_indices", "n and ndim")))


def diag_indices_from(arr) -> tuple[Tensor, ...]:
    """:func:`diag_indices` of ``arr``'s side and number of dimensions, as
    ``np.diag_indices_from``.  Raises ``LazyjitError`` for fewer than 2 dimensions or
    sides of different lengths."""
    arr = asarray(arr)
    if arr.ndim < 2:
        raise op_error("diag_indices_from", "input array must be at least 2-d", (arr.node,))
    shape = _concrete(arr, "diag_indices_from")
    if len(set(shape)) != 1:
        raise op_error("diag_indices_from", "All dimensions of input must be of equal "
                       "length", (arr.node,))
    return diag_indices(shape[0], arr.ndim)


def indices(dimensions, dtype=int, sparse=False):
    """The grid of indices of an array of shape ``dimensions``, as ``np.indices``: one
    tensor of shape ``(len(dimensions), *dimensions)``, or with ``sparse`` a tuple of
    tensors of shape ``(1, .., n_i, .., 1)``; int64 unless ``dtype``."""
    dims = tuple(_static(list(dimensions), "indices", "dimensions"))
    out = np.indices(dims, dtype=dtype, sparse=sparse)
    return tuple(_constant(i) for i in out) if sparse else _constant(out)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*coordinates, **kwargs)``, called once with one tensor of coordinates
    per axis of ``shape`` (of ``dtype``, float64 by default), as ``np.fromfunction``;
    returns what ``function`` returns."""
    grid = np.indices(tuple(_static(list(shape), "fromfunction", "shape")), dtype=dtype)
    return function(*[_constant(g) for g in grid], **kwargs)


def _window(fn, name: str):
    def window(M) -> Tensor:  # noqa: N803 - NumPy's name
        return _constant(fn(_static(M, name, "M")))
    window.__name__ = window.__qualname__ = name
    window.__doc__ = (f"The {name.capitalize()} window of ``M`` points (float64; empty for "
                      f"``M < 1``, ``[1.]`` for ``M == 1``), as ``np.{name}``: a constant.")
    return window


bartlett = _window(np.bartlett, "bartlett")
blackman = _window(np.blackman, "blackman")
hamming = _window(np.hamming, "hamming")
hanning = _window(np.hanning, "hanning")


def kaiser(M, beta) -> Tensor:  # noqa: N803 - NumPy's name
    """The Kaiser window of ``M`` points and shape ``beta`` (a number), float64, as
    ``np.kaiser``: a constant."""
    return _constant(np.kaiser(*_static([M, beta], "kaiser", "M and beta")))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0) -> Tensor:
    """``base ** linspace(start, stop, num, endpoint)`` (the new axis at ``axis``), as
    ``np.logspace``: of numbers, a NumPy constant; of tensors (broadcast with ``base``),
    a lazy, differentiable tensor (float64 for integer inputs).  Raises ``TypeError``
    for complex inputs (not supported), ``LazyjitError`` for a negative ``num`` or a bad
    ``axis``."""
    if not _lazy("logspace", start, stop, base):
        return _constant(np.logspace(start, stop, num, endpoint, base, dtype, axis))
    num = operator.index(num)
    if num < 0:
        raise op_error("logspace", f"Number of samples, {num}, must be non-negative.")
    weak = type(base) in (int, float)  # (a Python number: weak, as NumPy 2 takes it)
    start, stop = asarray(start), asarray(stop)
    base = base if weak else asarray(base)
    dt = np.result_type(start.dtype, stop.dtype, 1.0)
    shape = broadcast_shapes(start.shape, stop.shape, () if weak else base.shape,
                             op="logspace")
    start, stop = (broadcast_to(astype(v, dt), shape) for v in (start, stop))
    y = _linspace(start, stop, num, bool(endpoint), dt)
    if not weak:
        base = reshape(base, (1,) * (len(shape) - base.ndim + 1) + base.shape)
    out = moveaxis(elementwise("pow", base, y), 0, _axes(axis, len(shape) + 1, "logspace")[0])
    return out if dtype is None else astype(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0) -> Tensor:
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (the endpoints
    exact; negative ones give negative numbers), as ``np.geomspace`` (float64 unless
    ``dtype``): of numbers, a NumPy constant; of tensors, a lazy, differentiable tensor.
    Raises ``TypeError`` for complex inputs (not supported), ``ValueError`` for a
    ``start`` or ``stop`` of zero (of a tensor: when the value is computed)."""
    if not _lazy("geomspace", start, stop):
        return _constant(np.geomspace(start, stop, num, endpoint, dtype, axis))
    num = operator.index(num)
    start, stop = asarray(start), asarray(stop)
    dt = np.result_type(start.dtype, stop.dtype, 1.0,
                        np.dtype(np.float64 if dtype is None else dtype))
    shape = broadcast_shapes(start.shape, stop.shape, op="geomspace")
    start, stop = (broadcast_to(astype(v, dt), shape) for v in (start, stop))
    start = Tensor(apply("check", (start.node, ((start != 0) & (stop != 0)).node),
                         "Geometric sequence cannot include zero"))
    sign = elementwise("sign", start)
    start, stop = start / sign, stop / sign
    y = logspace(elementwise("log10", start), elementwise("log10", stop), num, endpoint,
                 dtype=dt)
    if num > 0:
        last = [reshape(stop, (1,) + shape)] if num > 1 and endpoint else []
        y = concatenate([reshape(start, (1,) + shape), y[1:num - len(last)]] + last, axis=0)
    out = moveaxis(y * sign, 0, _axes(axis, len(shape) + 1, "geomspace")[0])
    return out if dtype is None else astype(out, dtype)


def diagflat(v, k=0) -> Tensor:
    """The square matrix (side ``v.size + |k|``, ``v``'s dtype) with the flattened
    ``v`` on its ``k``-th diagonal, zeros elsewhere, as ``np.diagflat``."""
    return diag(ravel(asarray(v)), operator.index(k))


def vander(x, N=None, increasing=False) -> Tensor:  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-D ``x``, of shape ``(len(x), N)`` (``N`` default
    ``len(x)``): columns ``x ** (N-1), ..., x, 1`` (or increasing powers), as
    ``np.vander``; its dtype is ``x``'s promoted with int64 (float32 gives float64, bool
    int64), the powers running products as NumPy's (integers wrap).  Raises
    ``LazyjitError`` for ``x`` not 1-D or a negative ``N``."""
    x = asarray(x)
    if x.ndim != 1:
        raise op_error("vander", "x must be a one-dimensional array or sequence.", (x.node,))
    (n,) = _concrete(x, "vander")
    N = n if N is None else operator.index(N)  # noqa: N806
    if N < 0:
        raise op_error("vander", "negative dimensions are not allowed", (x.node,))
    dt = np.promote_types(x.dtype, np.int64)
    cols = [ones((n, min(N, 1)), dt)]
    if N > 1:
        powers = broadcast_to(reshape(astype(x, dt), (n, 1)), (n, N - 1))
        cols.append(cumprod(powers, axis=1, dtype=dt))
    out = concatenate(cols, axis=1)
    return out if increasing else out[:, ::-1]


# index helpers
# ---------------------------------------------------------------------------------------

def ix_(*args) -> tuple[Tensor, ...]:
    """Open-mesh index tensors from 1-D sequences (the ``k``-th reshaped to
    ``(1, .., n, .., 1)``), as ``np.ix_``: a boolean one becomes its nonzero indices
    (computing it), an empty non-array sequence int64.  Raises ``LazyjitError`` for an
    input that is not 1-D."""
    out = []
    for k, new in enumerate(args):
        if not isinstance(new, Tensor):
            arr = np.asarray(new)
            new = _constant(arr.astype(np.intp) if arr.size == 0 and
                            not isinstance(new, np.ndarray) else arr)
        if new.ndim != 1:
            raise op_error("ix_", "Cross index must be 1 dimensional", (new.node,))
        if new.dtype == np.bool_:
            new = _constant(np.flatnonzero(new.numpy()))
        out.append(reshape(new, (1,) * k + new.shape + (1,) * (len(args) - k - 1)))
    return tuple(out)


def unravel_index(indices, shape, order="C") -> tuple[Tensor, ...]:
    """The coordinates (int64, one tensor per axis of ``shape``, each of ``indices``'s
    shape) of the flat ``indices`` into an array of ``shape`` in ``order`` ('C' or 'F'),
    as ``np.unravel_index``.  Raises ``TypeError`` for non-integer ``indices``,
    ``ValueError`` for an index outside ``[0, prod(shape))``: at once for numbers, when
    the value is computed for a tensor (the message does not name the index then)."""
    shape = tuple(_static([shape] if np.ndim(shape) == 0 else list(shape), "unravel_index",
                          "shape"))
    if order not in ("C", "F"):
        raise op_error("unravel_index", "only 'C' or 'F' order is permitted")
    if not isinstance(indices, Tensor):
        return tuple(_constant(i) for i in np.unravel_index(indices, shape, order))
    if indices.dtype.kind not in "biu":
        raise op_error("unravel_index", "only int indices permitted", (indices.node,),
                       cls=TypeError)
    total = math.prod(shape)
    ok = indices < total if indices.dtype.kind == "u" else (indices >= 0) & (indices < total)
    rest = Tensor(apply("check", (astype(indices, np.int64).node, ok.node),
                        f"index is out of bounds for array with size {total}"))
    out = [rest] * len(shape)
    for i in (reversed(range(len(shape))) if order == "C" else range(len(shape))):
        if shape[i]:
            out[i], rest = rest % shape[i], rest // shape[i]
    return tuple(out)


# choosing, membership, editing
# ---------------------------------------------------------------------------------------

def select(condlist, choicelist, default=0) -> Tensor:
    """The element of the first choice whose condition holds, else ``default``, as
    ``np.select``: conditions (bool) and choices broadcast together; the dtype is the
    choices' and the default's (Python scalars weak, NEP 50); the gradient flows into
    the chosen elements.  Raises ``LazyjitError`` for lists of different lengths or
    empty, ``TypeError`` for a condition that is not boolean or choices without a
    common dtype."""
    if len(condlist) != len(choicelist):
        raise op_error("select", "list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise op_error("select", "select with an empty condition list is not possible")
    weak = (int, float, complex)  # (and a Python number traced by lj.jit: its type's)
    choices = [c if type(c) in weak or isinstance(c, WeakScalar) else asarray(c)
               for c in list(choicelist) + [default]]
    try:
        dt = np.result_type(*[c.dtype if isinstance(c, Tensor) else
                              c.weak if isinstance(c, WeakScalar) else c for c in choices])
    except TypeError as e:
        raise op_error("select", f"Choicelist and default value do not have a common "
                       f"dtype: {e}", cls=TypeError) from None
    conds = [asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise op_error("select", f"invalid entry {i} in condlist: should be boolean "
                           "ndarray", (c.node,), cls=TypeError)
    choices = [_constant(np.asarray(c, dt)) if type(c) in weak else
               tensor(c, dt) if isinstance(c, WeakScalar) else astype(c, dt) for c in choices]
    shape = broadcast_shapes(*[t.shape for t in conds + choices], op="select")
    out = broadcast_to(choices[-1], shape)
    for c, v in zip(conds[::-1], choices[-2::-1]):
        out = where(c, v, out)
    return out


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None) -> Tensor:
    """Whether each element of ``element`` equals one of ``test_elements`` (bool, of
    ``element``'s shape; NaN is in nothing), as ``np.isin``; ``invert`` negates.
    ``assume_unique`` and ``kind`` (NumPy's algorithm) do not change the result, which
    is one comparison of every pair (memory ``element.size * test_elements.size``).
    Raises ``LazyjitError`` for a ``kind`` other than None, 'sort' or 'table', or
    'table' of non-integers."""
    if kind not in (None, "sort", "table"):
        raise op_error("isin", f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    element, test = asarray(element), ravel(asarray(test_elements))
    if kind == "table" and not (element.dtype.kind in "biu" and test.dtype.kind in "biu"):
        raise op_error("isin", "The 'table' method is only supported for boolean or integer "
                       "arrays. Please select 'sort' or None for kind.")
    found = _any(reshape(element, element.shape + (1,)) == test, axis=-1)
    return ~found if invert else found


def append(arr, values, axis=None) -> Tensor:
    """``arr`` with ``values`` appended along ``axis`` (both flattened when None), as
    ``np.append`` (dtypes promoted; the shapes must match off ``axis``)."""
    arr = asarray(arr)
    if axis is None:
        return concatenate([ravel(arr), ravel(asarray(values))], axis=0)
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None) -> Tensor:
    """``arr`` without the entries ``obj`` along ``axis`` (flattened when None), as
    ``np.delete``: ``obj`` an int, a slice, a sequence of ints (repeats allowed) or a
    boolean mask of the axis's length (static: a tensor is computed first).  Raises
    ``IndexError`` for an index out of range or a non-integer index array,
    ``LazyjitError`` for a mask of another shape or a bad axis."""
    arr, axis, n = _along_axis(arr, axis, "delete")
    obj = _static(obj, "delete", "obj")
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    elif (isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)) or \
            (np.size(obj) == 1 and np.asarray(obj).dtype.kind in "ui"):
        i = int(np.asarray(obj).reshape(()))
        if not -n <= i < n:
            raise op_error("delete", f"index {i} is out of bounds for axis {axis} with "
                           f"size {n}", (arr.node,), cls=IndexError)
        keep[i] = False
    else:
        was_array, obj = isinstance(obj, np.ndarray), np.asarray(obj)
        if obj.size == 0 and not was_array:
            obj = obj.astype(np.intp)
        if obj.dtype == bool:
            if obj.shape != (n,):
                raise op_error("delete", "boolean array argument obj to delete must be one "
                               f"dimensional and match the axis length of {n}", (arr.node,))
            keep = ~obj
        else:
            keep[obj,] = False  # (NumPy's own IndexError for bad indices)
    return arr if keep.all() else take(arr, np.flatnonzero(keep), axis=axis)


def insert(arr, obj, values, axis=None) -> Tensor:
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis``
    (flattened when None), as ``np.insert`` with its rules: an int ``obj`` inserts
    ``values`` as one block (its first axis laid along ``axis``); a sequence (or
    slice, or boolean mask) inserts one slice before each index, in order; ``values``
    are broadcast and cast to ``arr``'s dtype (unsafe casting, as NumPy's
    assignment).  ``obj`` is static.  Raises ``IndexError`` for an index outside
    ``[-N, N]`` or a non-integer one, ``LazyjitError`` for ``obj`` of more than 1
    dimension, two insertions landing on one place (NumPy: a ``ValueError``), or
    ``values`` that do not broadcast."""
    arr, axis, n = _along_axis(arr, axis, "insert")
    obj = _static(obj, "insert", "obj")
    idx = _insert_at(obj, n, arr)
    shape, values = list(arr.shape), asarray(values)
    if idx.size == 1:
        index = idx.item()
        if not isinstance(index, int):
            raise op_error("insert", "slice indices must be integers", (arr.node,),
                           cls=TypeError)
        if not -n <= index <= n:
            raise op_error("insert", f"index {obj} is out of bounds for axis {axis} with "
                           f"size {n}", (arr.node,), cls=IndexError)
        index += n if index < 0 else 0
        values = astype(values, arr.dtype)
        values = reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape)
        if idx.ndim == 0:
            values = moveaxis(values, 0, axis)
        shape[axis] = values.shape[axis]
        return concatenate([_slab(arr, axis, slice(None, index)),
                            broadcast_to(values, tuple(shape)),
                            _slab(arr, axis, slice(index, None))], axis=axis)
    if idx.dtype.kind not in "iu":
        raise op_error("insert", "arrays used as indices must be of integer (or boolean) "
                       "type", (arr.node,), cls=IndexError)
    # where each entry of the result comes from (arr's entries 0..n-1, the values'
    # n..n+k-1), by NumPy's steps (its IndexError for an index out of range)
    k = len(idx)
    at = idx.astype(np.intp)
    at[at < 0] += n
    at[at.argsort(kind="stable")] += np.arange(k)
    old = np.ones(n + k, dtype=bool)
    old[at] = False
    if old.sum() != n:
        raise op_error("insert", f"indices {idx.tolist()} put two insertions at one place "
                       f"along axis {axis} of size {n}", (arr.node,))
    source = np.empty(n + k, dtype=np.intp)
    source[at], source[old] = np.arange(n, n + k), np.arange(n)
    shape[axis] = k
    block = broadcast_to(astype(values, arr.dtype), tuple(shape))
    return take(concatenate([arr, block], axis=axis), source, axis=axis)


def resize(a, new_shape) -> Tensor:
    """``a`` flattened, repeated as often as needed and cut to ``new_shape`` (zeros when
    ``a`` is empty), in ``a``'s dtype, as ``np.resize``; ``LazyjitError`` for a
    negative size."""
    a = ravel(asarray(a))
    new_shape = _static(new_shape, "resize", "new_shape")
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise op_error("resize", "all elements of `new_shape` must be non-negative", (a.node,))
    new_size, size = math.prod(new_shape), _concrete(a, "resize")[0]
    if size == 0 or new_size == 0:
        return zeros(new_shape, a.dtype)
    return reshape(concatenate([a] * -(-new_size // size))[:new_size], new_shape)


def block(arrays) -> Tensor:
    """A tensor assembled from nested lists of blocks, as ``np.block``: the innermost
    lists are concatenated along the last axis, the next along the second to last, ...,
    every block first given leading size-1 axes up to the result's number of dimensions
    (the larger of the nesting depth and the blocks' largest ``ndim``).  Dtypes are
    promoted one concatenation at a time, as NumPy does for small results (above 65536
    elements NumPy promotes all blocks at once: the two differ only for mixes such as
    int8, uint8 and float16).  Raises ``TypeError`` for a tuple among the lists,
    ``LazyjitError`` for mismatched depths, an empty list or blocks that do not fit."""
    bottom, arr_ndim = _block_depths(arrays, [])
    if bottom and bottom[-1] is None:
        raise op_error("block", f"List at {_block_index(bottom)} cannot be empty")
    return _block(arrays, 0, len(bottom), max(arr_ndim, len(bottom)))


# sorting, products
# ---------------------------------------------------------------------------------------

def lexsort(keys, axis=-1) -> Tensor:
    """Indices (int64) that sort by several keys, the last key the primary one, as
    ``np.lexsort``: stable, NaN last; ``keys`` a sequence of tensors of one shape, or an
    array whose first axis holds the keys (a 1-D one: keys of one element, result 0).
    Raises ``TypeError`` for no keys, ``LazyjitError`` for keys of different shapes or
    a bad axis."""
    if isinstance(keys, (Tensor, np.ndarray)):
        keys = asarray(keys)
        if keys.ndim == 0:
            raise op_error("lexsort", "need sequence of keys with len > 0 in lexsort",
                           (keys.node,), cls=TypeError)
        keys = [keys[i] for i in range(_concrete(keys, "lexsort")[0])]
    keys = [asarray(k) for k in keys]
    if not keys:
        raise op_error("lexsort", "need sequence of keys with len > 0 in lexsort",
                       cls=TypeError)
    if any(k.shape != keys[0].shape for k in keys):
        raise op_error("lexsort", "all keys need to be the same shape",
                       tuple(k.node for k in keys))
    if keys[0].ndim == 0:
        return _constant(np.intp(0))
    order = argsort(keys[0], axis=axis)
    for k in keys[1:]:
        order = take_along_axis(order, argsort(take_along_axis(k, order, axis), axis=axis),
                                axis)
    return order


def partition(a, kth, axis=-1, kind="introselect", order=None) -> Tensor:
    """``a`` partitioned along ``axis`` (flattened when None) at ``kth`` (an int or a
    sequence), as ``np.partition``: the element at each ``kth`` is where a sort puts
    it, smaller ones before, larger ones after.  lazyjit returns the full stable sort,
    which is such a partition (NumPy's order within the parts is unspecified, and
    differs); differentiable as :func:`sort`.  Raises ``LazyjitError`` for ``kth`` out
    of range, another ``kind``, ``order``, a 0-d input or a bad axis."""
    a, axis = _kth(a, kth, axis, "partition", kind, order)
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None) -> Tensor:
    """Indices (int64) that partition ``a`` along ``axis`` at ``kth``, as
    ``np.argpartition``: lazyjit returns the stable :func:`argsort`, a valid partition
    (NumPy's order within the parts is unspecified, and differs); errors as
    :func:`partition`'s."""
    a, axis = _kth(a, kth, axis, "argpartition", kind, order)
    return argsort(a, axis=axis)


def matvec(x1, x2, /) -> Tensor:
    """Matrix-vector products over broadcast leading axes, ``(..., m, n)`` times
    ``(..., n)`` giving ``(..., m)``, as NumPy 2.2's ``np.matvec`` (dtypes as
    ``matmul``'s; the gufunc's keywords ``axes``, ``out``, ... are not taken).  Raises
    ``LazyjitError`` for too few dimensions or inner sizes that differ."""
    x1, x2 = asarray(x1), asarray(x2)
    _core(x1, 2, 0, "matvec", "(m,n),(n)->(m)")
    _core(x2, 1, 1, "matvec", "(m,n),(n)->(m)")
    return matmul(x1, reshape(x2, x2.shape + (1,)), "matvec")[..., 0]


def vecmat(x1, x2, /) -> Tensor:
    """Vector-matrix products over broadcast leading axes, the vector conjugated,
    ``(..., n)`` times ``(..., n, m)`` giving ``(..., m)``, as NumPy 2.2's
    ``np.vecmat`` (errors as :func:`matvec`'s)."""
    x1, x2 = asarray(x1), asarray(x2)
    _core(x1, 1, 0, "vecmat", "(n),(n,m)->(m)")
    _core(x2, 2, 1, "vecmat", "(n),(n,m)->(m)")
    if x1.dtype.kind == "c":
        x1 = elementwise("conj", x1)
    return matmul(reshape(x1, x1.shape[:-1] + (1,) + x1.shape[-1:]), x2, "vecmat")[..., 0, :]


# conversions and metadata
# ---------------------------------------------------------------------------------------

def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0) -> Tensor:  # noqa: A002
    """``object`` as a tensor (``dtype`` cast, ``ndmin`` leading size-1 axes added), as
    ``np.array``.  Tensors are immutable, so a tensor is its own copy (a shared
    variable's value now); ``copy=False`` raises ``ValueError`` where a copy cannot be
    avoided, as :func:`asarray`.  ``order`` is checked and changes nothing (tensors
    have no memory layout to see), nor does ``subok``."""
    _check_order(order, "array")
    out = asarray(object, dtype, copy=copy)
    ndmin = operator.index(ndmin)
    return reshape(out, (1,) * (ndmin - out.ndim) + out.shape) if out.ndim < ndmin else out


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None) -> Tensor:
    """``a`` as a tensor, as ``np.asanyarray``: :func:`asarray` (tensors have no
    subclasses to keep; ``order`` changes nothing)."""
    _check_order(order, "asanyarray")
    return asarray(a, dtype, device=device, copy=copy)


def ascontiguousarray(a, dtype=None) -> Tensor:
    """``a`` as a tensor of at least 1 dimension (0-d gives shape ``(1,)``), as
    ``np.ascontiguousarray`` (every tensor is C-contiguous)."""
    out = asarray(a, dtype)
    return reshape(out, (1,)) if out.ndim == 0 else out


def copy(a, order="K", subok=False) -> Tensor:
    """A copy of ``a``, as ``np.copy``: for a tensor, the tensor itself (immutable; of
    a shared variable, its value now), else a new tensor of the value."""
    _check_order(order, "copy")
    return asarray(a, copy=True)


def ndim(a) -> int:
    """The number of dimensions of ``a``, as ``np.ndim`` (nothing is computed)."""
    return a.ndim if isinstance(a, Tensor) else np.ndim(a)


def shape(a) -> tuple:
    """The shape of ``a`` as a tuple, as ``np.shape`` (a symbolic size stays one)."""
    return tuple(a.shape) if isinstance(a, Tensor) else np.shape(a)


def size(a, axis=None):
    """The number of elements of ``a`` (along ``axis``: an int or, as NumPy 2.4, a
    tuple of axes), as ``np.size``; ``LazyjitError`` for an axis out of range or
    repeated."""
    if not isinstance(a, Tensor):
        return np.size(a, axis)
    if axis is None:
        return a.size
    return math.prod(a.shape[i] for i in _axes(axis, a.ndim, "size"))
