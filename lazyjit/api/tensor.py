"""The lazy :class:`Tensor`: a handle on a graph node, realized on demand.

Operations on tensors only record nodes; the value is computed when it is needed
(``.numpy()``, ``np.asarray``, ``.item()``, ``float``, ``int``, ``bool``, ``repr``) by
:func:`lazyjit.engine.realize.realize` (called through :data:`lazyjit.trace.state.CONTEXT`).
Shape, dtype, ndim and size are known without computing.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from lazyjit.config import config
from lazyjit.errors import DTypeError, ScalarOverflowError, describe, op_error
from lazyjit.ops import SUPPORTED_DTYPES
from lazyjit.trace.graph import collect
from lazyjit.trace.node import Node
from lazyjit.trace.dims import Dim
from lazyjit.trace.state import CONTEXT, STATE


def check_dtype(dtype: Any, where: str = "tensor", data: Any = None) -> np.dtype:
    """Return ``np.dtype(dtype)`` in native byte order, or raise a clear error for a
    non-numeric dtype (for an array of objects made from ``data`` holding a Python int
    beyond every integer dtype, a :class:`ScalarOverflowError` naming it)."""
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise op_error(where, f"{e}", cls=DTypeError) from None
    big = _big_int(data) if dt.kind == "O" else None
    if big is not None:  # (NumPy keeps such ints as objects)
        text = repr(big) if len(repr(big)) < 40 else f"{repr(big)[:12]}... (an int of " \
            f"{len(repr(big))} digits)"
        raise op_error(where, f"Python int {text} is out of the range of every integer "
                       "dtype (int64, uint64)", cls=ScalarOverflowError)
    if not dt.isnative:  # (tensors hold native byte order: '>f8' is float64's values)
        dt = dt.newbyteorder("=")
    if dt not in SUPPORTED_DTYPES:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise op_error(where, f"unsupported dtype {dt} (supported: {names})")
    return dt


def owned_array(data: Any, dtype: Any, where: str) -> np.ndarray:
    """A read-only, C-contiguous, aligned copy of ``data`` (array-like) in native byte
    order (a big-endian ``>f8`` array gives float64, the values unchanged), of ``dtype``
    or the one NumPy infers; its dtype checked as :func:`check_dtype` checks it."""
    if dtype is not None and not isinstance(dtype, np.dtype):  # (named at the user's line)
        dtype = check_dtype(dtype, where)
    arr = np.array(data, dtype=dtype, order="C", copy=True)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    check_dtype(arr.dtype, where, data)
    arr.flags.writeable = False
    return arr


def leaf_tensor(data: Any, dtype: Any = None, where: str = "tensor") -> "Tensor":
    """A tensor holding :func:`owned_array`'s copy of ``data`` (``lj.tensor``'s, a NumPy
    creation function's result, an unpickled tensor's)."""
    return Tensor(Node.leaf(owned_array(data, dtype, where)))


def _big_int(data: Any) -> int | None:
    """The first Python int of ``data`` (nested lists and tuples) beyond uint64 or below
    int64, or None."""
    if isinstance(data, (list, tuple)):
        for d in data:
            big = _big_int(d)
            if big is not None:
                return big
        return None
    return data if type(data) is int and not -2 ** 63 <= data < 2 ** 64 else None


def check_device(device: Any, where: str) -> None:
    """Accept ``device`` only where the ``backend`` flag already computes (tensors have
    no device of their own yet: a request for another is an error, never ignored)."""
    here = "cuda" if config.backend == "cuda" else "cpu"
    if device != here:
        how = "lj.config(backend='cuda') (emulated without a GPU: cuda_emulate=True)" \
            if device == "cuda" else "lj.config(backend='cpu')"
        if device not in ("cpu", "cuda"):
            raise op_error(where, f"unknown device {device!r} (devices: 'cpu', 'cuda')")
        raise op_error(where, f"device {device!r}: this computation runs on {here!r}, as "
                       f"the backend flag ({config.backend!r}) says; tensors do not have "
                       f"devices of their own yet: use {how}")


class Tensor:
    """A lazily computed n-dimensional array.

    Do not construct directly: use :func:`lazyjit.tensor` or the creation functions.
    ``shape`` (tuple of int), ``dtype`` (a NumPy dtype), ``ndim`` and ``size`` are
    known without computing anything.
    """

    __slots__ = ("node", "_origin", "_index", "__weakref__")
    __array_priority__ = 1000  # NumPy defers binary operators to us

    def __init__(self, node: Node):
        self.node = node
        self._origin: Node | None = None
        self._index: Node | None = None  # base node when this tensor is base[idx]

    # ---- metadata, known without computing ----
    @property
    def shape(self) -> tuple:
        """The shape: a tuple of sizes, each an ``int`` or, for a dimension known only at
        each call (a placeholder's, a size computed from one), a symbolic size
        (:class:`lazyjit.trace.dims.Dim`, printed by name: ``(x0, 784)``)."""
        return self.node.shape

    @property
    def dtype(self) -> np.dtype:
        return self.node.dtype

    @property
    def ndim(self) -> int:
        return len(self.node.shape)

    @property
    def size(self) -> "int | Dim":
        return self.node.size

    @property
    def device(self) -> str:
        """Where the ``backend`` flag computes: ``"cuda"`` for the ``cuda`` backend,
        else ``"cpu"`` (tensors have no device of their own yet)."""
        return "cuda" if config.backend == "cuda" else "cpu"

    def __reduce__(self):
        """Pickled as its value: unpickling gives a tensor holding it, with no graph (as
        a NumPy array's pickle).  A tensor with no value outside a call (a jit tracer, a
        placeholder's) raises, as reading its value does."""
        return leaf_tensor, (self.numpy(),)

    def __copy__(self) -> "Tensor":
        """``self``: tensors are immutable (its graph, so its derivatives, are kept)."""
        return self

    def __deepcopy__(self, memo) -> "Tensor":
        return self

    def __len__(self) -> int:
        shape = self.node.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return int(shape[0])  # (a symbolic size raises: known only at each call)

    @property
    def graph_node(self) -> Node:
        """The node that defines this tensor in the graph (kept for ``grad`` even after the
        tensor has been realized and turned into a leaf)."""
        return self._origin if self._origin is not None else self.node

    # ---- realization ----
    def realize(self) -> "Tensor":
        CONTEXT.realize(self)
        return self

    def numpy(self) -> np.ndarray:
        """Compute (if needed) and return the value as a read-only NumPy array."""
        node = self.node
        buf = node.buffer
        if buf is None or node.src or STATE.recording:  # (not a leaf yet: realize makes it
            self.realize()  # one; inside lj.jit, realize refuses a shared variable's value)
            buf = self.node.buffer
        out = buf.view()  # (a device buffer's: a view of its host copy, made once)
        if out.flags.writeable:  # (a view of a read-only array is read-only)
            out.flags.writeable = False
        return out

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def item(self) -> Any:
        if self.size != 1:
            raise ValueError(f"item(): tensor of shape {self.shape} has {self.size} elements, "
                             "not 1")
        return self.numpy().reshape(()).item()

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype}")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(f"the truth value of a tensor of shape {self.shape} is ambiguous; "
                             "use .any() or .all()")
        return bool(self.item())

    def __repr__(self) -> str:
        if self.node.op == "param" and self.node.arg[0] == "size":  # lj.tensor(n)
            return f"tensor(<{self.node.arg[1]}, known at each call>, dtype={self.dtype.name})"
        if self.node.buffer is None:
            params = [n for n in collect([self.node]).inputs if n.op == "param"]
            if params:  # no value outside a call (lj.function, lj.jit, a scan step)
                names = [repr(n.arg[2]) for n in params if n.arg[0] == "input"]
                of = f" of {', '.join(dict.fromkeys(names))}" if names else ""
                return (f"tensor(<symbolic{of}>, shape={describe(self.shape)}, "
                        f"dtype={self.dtype.name})")
        body = np.array2string(self.numpy(), separator=", ", prefix="tensor(")
        return f"tensor({body}, dtype={self.dtype.name})"

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __setitem__(self, key, value):
        raise TypeError("lazyjit tensors are immutable: use lj.set_subtensor(x[idx], v), "
                        "lj.inc_subtensor(x[idx], v) or x.at[idx].set(v)")
