"""Values held in a device's memory: what a ``cuda`` computation leaves in its nodes.

A computed node's ``buffer`` is a read-only NumPy array on the host backends (``cpu``,
``numpy``, ``ir``).  The ``cuda`` backend leaves its results where it computed them, in
GPU memory (a cupy array from cupy's memory pool), so that the next computation reads
them without a copy and no call waits for the GPU until a value is read: such a buffer
is a :class:`DeviceBuffer`.  Its host copy is made once, when something reads the value
(``.numpy()``, printing, a host backend's computation) and kept beside it.  The CUDA
emulation (``cuda_emulate``) holds its values the same way, in host memory, so that the
paths taking device values are the ones CI runs.

Values are immutable, as every buffer of a node is: a device buffer is never written
after the computation that made it, so its host copy never goes stale.
"""
from __future__ import annotations

import numpy as np

# a device buffer, or a plan reading them, was made in this process (until then the
# host backends' paths check nothing)
SEEN = [False]


class DeviceBuffer:
    """A computed value in a device's memory: ``data`` (a cupy array, or a NumPy array
    under the CUDA emulation), its ``shape`` and ``dtype`` (a NumPy dtype), and its
    host copy once made (:meth:`host`)."""

    __slots__ = ("data", "shape", "dtype", "_host", "__weakref__")

    def __init__(self, data, host: np.ndarray | None = None):
        self.data = data
        self.shape = tuple(data.shape)
        self.dtype = np.dtype(data.dtype)
        self._host = host
        SEEN[0] = True

    def host(self) -> np.ndarray:
        """The value as a read-only, C-contiguous NumPy array: copied from the device
        the first time (which waits for the computation that makes it), then kept."""
        out = self._host
        if out is None:
            data = self.data
            out = data if type(data) is np.ndarray else data.get()  # (an array of its own)
            if not out.flags.c_contiguous:
                out = np.ascontiguousarray(out)
            if out.shape != self.shape:
                out = out.reshape(self.shape)
            if out.flags.writeable:  # (read-only down to its memory: never changed)
                out = out if out.base is None else out.copy()
                out.flags.writeable = False
            self._host = out
        return out

    def view(self) -> np.ndarray:
        """A read-only view of :meth:`host` (as a NumPy array's ``view()``)."""
        return self.host().view()

    def __repr__(self) -> str:
        return f"DeviceBuffer(shape={self.shape}, dtype={self.dtype.name})"


def immutable(array: np.ndarray) -> bool:
    """Whether no one can write into ``array``'s memory: read-only, and owning its memory
    or viewing a read-only array that owns it (lazyjit's own values are such arrays; a
    caller's array, or a read-only view of one, is not)."""
    base = array.base
    return not array.flags.writeable and (
        base is None or type(base) is np.ndarray and not base.flags.writeable
        and base.base is None)


def host(buf):
    """A device buffer's host copy; anything else (a NumPy array, None) as it is."""
    return buf.host() if type(buf) is DeviceBuffer else buf


def hosts(arrays: list) -> list:
    """:func:`host` of each (the list itself where no device buffer was ever made)."""
    if not SEEN[0]:
        return arrays
    return [a.host() if type(a) is DeviceBuffer else a for a in arrays]
