"""The steps of :mod:`.stacking`'s functions that are not NumPy functions themselves:
static arguments read, ``np.split``'s and ``np.insert``'s index rules, ``np.block``'s
nesting check, a lazy ``linspace`` of tensor endpoints, and NumPy's argument checks
(``partition``'s ``kth``, a gufunc's core dimensions)."""
from __future__ import annotations

import operator

import numpy as np

from lazyjit.api.arrays import _concrete
from lazyjit.api.core import _axes, asarray, where
from lazyjit.api.shape_ops import concatenate, ravel, reshape
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.trace.dims import Dim


def _static(value, name: str, what: str):
    """A shape-deciding argument as a Python/NumPy value: a tensor's value (computed
    now); a symbolic size is a clear error."""
    if type(value) is Dim or (isinstance(value, (list, tuple)) and
                              any(type(v) is Dim for v in value)):
        raise op_error(name, f"{what} must be known when the graph is built, got the "
                       f"symbolic size {value!r}")
    return value.numpy() if isinstance(value, Tensor) else value


def _constant(arr) -> Tensor:
    """A NumPy array (or scalar) as a constant tensor."""
    return asarray(np.ascontiguousarray(arr) if np.ndim(arr) else np.asarray(arr))


def _slab(x: Tensor, axis: int, sl: slice) -> Tensor:
    """``x[..., sl, ...]`` with ``sl`` along ``axis`` (Python's slice rules)."""
    return x[(slice(None),) * axis + (sl,)]


def _3d(x: Tensor) -> Tensor:
    if x.ndim == 0:
        return reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return reshape(x, (1,) + x.shape + (1,))
    return reshape(x, x.shape + (1,)) if x.ndim == 2 else x


def _split(ary, indices_or_sections, axis, name: str, equal: bool) -> list[Tensor]:
    x = asarray(ary)
    if x.ndim == 0:
        raise op_error(name, "cannot split a 0-d array (it has no axis)", (x.node,),
                       cls=IndexError)
    (axis,) = _axes(axis, x.ndim, name)
    n = _concrete(x, name)[axis]
    ios = _static(indices_or_sections, name, "indices_or_sections")
    if np.ndim(ios) == 0:
        k = operator.index(ios)
        if k <= 0:
            raise op_error(name, "number sections must be larger than 0.", (x.node,))
        if equal and n % k:
            raise op_error(name, "array split does not result in an equal division",
                           (x.node,))
        each, extras = divmod(n, k)
        bounds = np.cumsum([0] + extras * [each + 1] + (k - extras) * [each]).tolist()
    else:
        bounds = [0] + [operator.index(i) for i in np.asarray(ios).tolist()] + [n]
    return [_slab(x, axis, slice(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _matrix_shape(arr, name: str) -> tuple[int, int]:
    arr = asarray(arr)
    if arr.ndim != 2:
        raise op_error(name, "input array must be 2-d", (arr.node,))
    return _concrete(arr, name)


def _lazy(name: str, *values) -> bool:
    """Whether any of ``values`` is a tensor (then the result is built lazily); complex
    values are a ``TypeError``."""
    for v in values:
        if type(v) is Dim:
            raise op_error(name, f"a symbolic size is not supported here, got {v!r}")
        if (v.dtype if isinstance(v, Tensor) else np.asarray(v).dtype).kind == "c":
            raise op_error(name, "complex inputs are not supported", cls=TypeError)
    return any(isinstance(v, Tensor) for v in values)


def _linspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, dt) -> Tensor:
    """``np.linspace(start, stop, num, endpoint)`` along a new first axis, of tensors of
    one shape and the float dtype ``dt``, by NumPy's formula (which, where any step is
    zero, scales every element by ``delta / div`` instead of ``step``: here only those
    elements, a difference of a rounding)."""
    div = num - 1 if endpoint else num
    delta = stop - start
    steps = reshape(asarray(np.arange(num, dtype=dt)), (num,) + (1,) * start.ndim)
    if div > 0:
        step = delta / div
        y = where(step == 0, steps / div * delta, steps * step)
    else:
        y = steps * delta
    y = y + start
    if endpoint and num > 1:
        y = concatenate([y[:-1], reshape(stop, (1,) + stop.shape)], axis=0)
    return y


def _along_axis(arr, axis, name: str) -> tuple[Tensor, int, int]:
    """``arr`` (flattened when ``axis`` is None), the axis and its size."""
    arr = asarray(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    (axis,) = _axes(axis, arr.ndim, name)
    return arr, axis, _concrete(arr, name)[axis]


def _insert_at(obj, n: int, arr: Tensor) -> np.ndarray:
    """``np.insert``'s index array for ``obj`` along an axis of size ``n``."""
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n), dtype=np.intp)
    idx = np.array(obj)
    if idx.dtype == bool:
        if idx.ndim != 1:
            raise op_error("insert", "boolean array argument obj to insert must be one "
                           "dimensional", (arr.node,))
        return np.flatnonzero(idx)
    if idx.ndim > 1:
        raise op_error("insert", "index array argument obj to insert must be one "
                       "dimensional or scalar", (arr.node,))
    return idx.astype(np.intp) if idx.size == 0 and not isinstance(obj, np.ndarray) else idx


def _block_index(index: list) -> str:
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_depths(arrays, parent: list) -> tuple[list, int]:
    """NumPy's check of ``block``'s nesting: (the index of the first leaf, the largest
    number of dimensions of a leaf)."""
    if type(arrays) is tuple:
        raise op_error("block", f"{_block_index(parent)} is a tuple. Only lists can be used "
                       "to arrange blocks, and np.block does not allow implicit conversion "
                       "from tuple to ndarray.", cls=TypeError)
    if type(arrays) is list and arrays:
        found = [_block_depths(a, parent + [i]) for i, a in enumerate(arrays)]
        first, ndim = found[0]
        for index, nd in found[1:]:
            ndim = max(ndim, nd)
            if len(index) != len(first):
                raise op_error("block", f"List depths are mismatched. First element was at "
                               f"depth {len(first)}, but there is an element at depth "
                               f"{len(index)} ({_block_index(index)})")
            if index[-1] is None:
                first = index
        return first, ndim
    if type(arrays) is list:
        return parent + [None], 0
    return parent, arrays.ndim if isinstance(arrays, Tensor) else np.ndim(arrays)


def _block(arrays, depth: int, list_ndim: int, ndim: int) -> Tensor:
    if depth < list_ndim:
        return concatenate([_block(a, depth + 1, list_ndim, ndim) for a in arrays],
                           axis=-(list_ndim - depth))
    x = asarray(arrays)
    return reshape(x, (1,) * (ndim - x.ndim) + x.shape) if x.ndim < ndim else x


def _kth(a, kth, axis, name: str, kind, order) -> tuple[Tensor, int]:
    if kind != "introselect":
        raise op_error(name, f"Unknown selection kind {kind!r}")
    if order is not None:
        raise op_error(name, "order= needs a structured dtype, which lazyjit does not have")
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), -1
    if a.ndim == 0:
        raise op_error(name, "axis -1 is out of bounds for array of dimension 0", (a.node,))
    (axis,) = _axes(axis, a.ndim, name)
    n = _concrete(a, name)[axis]
    kths = np.asarray(_static(kth, name, "kth"))
    if kths.dtype.kind not in "iu":
        raise op_error(name, "Partition index must be integer", (a.node,), cls=TypeError)
    for k in kths.ravel().tolist():
        if not -n <= k < n:
            raise op_error(name, f"kth(={k}) out of bounds ({n})", (a.node,))
    return a, axis


def _core(x: Tensor, need: int, i: int, name: str, sig: str) -> None:
    if x.ndim < need:
        raise op_error(name, f"Input operand {i} does not have enough dimensions (has "
                       f"{x.ndim}, gufunc core with signature {sig} requires {need})",
                       (x.node,))


def _check_order(order, name: str) -> None:
    if order not in ("K", "A", "C", "F", None):
        raise op_error(name, f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
