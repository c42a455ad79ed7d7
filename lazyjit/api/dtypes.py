"""Data type functions of NumPy and the Array API standard, for tensors and dtypes:
``finfo iinfo can_cast isdtype result_type`` (answered from dtypes, never computing a
tensor), and DLPack exchange (``from_dlpack``; ``Tensor.__dlpack__``).

A tensor stands for its dtype; Python scalars are weak, as in NumPy 2 (NEP 50:
``result_type(float32_tensor, 1.0)`` is float32).  The semantics are NumPy's functions
of the same names, which also follow the standard's type promotion table.
"""
from __future__ import annotations

import numpy as np

from lazyjit.api.core import tensor
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError
from lazyjit.trace.values import DeviceBuffer


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else x


def finfo(type) -> np.finfo:  # noqa: A002 - the standard's parameter name
    """Machine limits of a floating-point dtype (or a tensor's), as ``np.finfo``: ``bits
    eps max min smallest_normal dtype``."""
    return np.finfo(_dtype_of(type))


def iinfo(type) -> np.iinfo:  # noqa: A002
    """Limits of an integer dtype (or a tensor's), as ``np.iinfo``: ``bits max min
    dtype``."""
    return np.iinfo(_dtype_of(type))


def can_cast(from_, to) -> bool:
    """Whether a value of ``from_`` (a dtype or a tensor) casts to ``to`` by the
    promotion rules (NumPy's ``"safe"`` casting), as ``np.can_cast``."""
    return bool(np.can_cast(_dtype_of(from_), to))


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a name among ``"bool"``,
    ``"signed integer"``, ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
    ``"complex floating"``, ``"numeric"``, or a tuple of them), as the Array API's and
    NumPy's ``isdtype``."""
    return bool(np.isdtype(np.dtype(dtype), kind))


def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype that promoting the tensors, dtypes and Python scalars gives, as
    ``np.result_type`` (Python scalars weak)."""
    return np.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


def from_dlpack(x, /, *, device=None, copy=None) -> Tensor:
    """A tensor of the values of ``x``, any object with ``__dlpack__`` (a NumPy array, a
    torch CPU tensor, ...), as the Array API's ``from_dlpack``.  The values are copied:
    tensors are immutable, and the producer may change its memory later; so
    ``copy=False`` raises ``ValueError``.  ``device``: see :func:`lazyjit.tensor`.  A
    lazyjit tensor gives its value (on the GPU or not); another producer's GPU memory
    raises NumPy's error (import it through cupy or torch, then pass the host array)."""
    if copy is False:
        raise ValueError("lazyjit.from_dlpack: copy=False, but lazyjit copies what it "
                         "imports (its tensors are immutable; the producer's memory is not)")
    if isinstance(x, Tensor):  # (its value, wherever the cuda backend left it)
        return tensor(x.numpy(), device=device)
    return tensor(np.from_dlpack(x), device=device)


def _device_array(t: Tensor):
    """The (computed) value of ``t`` as the GPU array holding it (a cupy array) where
    the ``cuda`` backend computed or read it on a GPU; None where it is on the host."""
    if t.node.buffer is None or t.node.src:  # (computed first)
        t.realize()
    buf = t.node.buffer
    if type(buf) is DeviceBuffer and type(buf.data) is not np.ndarray:
        return buf.data
    return None


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export of the (computed) value, shared, not copied (unless ``copy=True``):
    the GPU memory holding it where the ``cuda`` backend left it there (as cupy exports
    it: ``cupy.from_dlpack(t)`` and ``torch.from_dlpack(t)`` read it in place), else its
    read-only host buffer, to consumers of DLPack 1.0 and later, which can be told it is
    read-only.  Consumers that ignore the flag (torch), and every consumer of GPU memory
    (DLPack has no read-only flag there), must not write into it: lazyjit's later
    results assume the value never changes.  An older consumer of a host value (no
    ``max_version``) cannot be told, so it gets a copy; ``copy=False`` then raises
    ``BufferError``."""
    data = _device_array(self)
    if data is not None:
        if max_version is None:
            return data.__dlpack__(stream=stream)
        try:
            return data.__dlpack__(stream=stream, max_version=max_version,
                                   dl_device=dl_device, copy=copy)
        except TypeError:  # (a cupy before DLPack 1.0's keywords)
            if copy or dl_device is not None:
                raise
            return data.__dlpack__(stream=stream)
    value = self.numpy()
    if max_version is None or tuple(max_version) < (1, 0):
        if copy is False:
            raise BufferError("lazyjit: a DLPack consumer older than 1.0 cannot be told "
                              "the value is read-only; it can only have a copy")
        return value.copy().__dlpack__(stream=stream)
    return value.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                            copy=copy)


def _dlpack_device(self):
    """Where the value lives for DLPack: the GPU (``(kDLCUDA, device)``) where the
    ``cuda`` backend left it, else the host (``(kDLCPU, 0)``)."""
    data = _device_array(self)
    return (data if data is not None else self.numpy()).__dlpack_device__()


def _cuda_array_interface(self) -> dict:
    """The CUDA array interface (version 3) of a value held on the GPU, shared (numba,
    cupy, torch read it in place; they must not write into it).

    Raises
    ------
    AttributeError
        The value is on the host (another backend's, or the CUDA emulation's).
    """
    try:
        data = _device_array(self)
    except LazyjitError as e:  # (no value: a traced tensor; hasattr() says False)
        raise AttributeError(f"__cuda_array_interface__: {e}") from None
    if data is None:
        raise AttributeError("__cuda_array_interface__: this tensor's value is on the host "
                             "(only a value the cuda backend computed on a GPU has one)")
    return data.__cuda_array_interface__


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device
Tensor.__cuda_array_interface__ = property(_cuda_array_interface)
