"""A reusing pool of output and intermediate buffers (the role CNMeM played for Theano).

Large arrays come back to the pool when nothing refers to them any more (the pool's own
reference is the only one left), so repeated calls reuse pages that are already
mapped instead of faulting in fresh ones.  Buffers of 2 MiB and more are anonymous
mappings with ``MADV_HUGEPAGE``, so first touches fault 2 MiB at a time.
"""
from __future__ import annotations

import errno
import mmap
import sys
import threading

import numpy as np

MIN_POOLED = 1 << 16          # smaller buffers come from NumPy's allocator
HUGE = 1 << 21
MAX_PER_SIZE = 16
MAX_POOLED_BYTES = 1 << 30    # above this, buffers not in use are released
_pooled = 0                   # bytes held in the pool (in use or not)

MAX_KEPT_BYTES = 1 << 26     # intermediates programs keep between calls, all together
_kept = 0                     # bytes they keep (reserve, release)
# guards _kept: its own lock, never _LOCK, as release runs from a finalizer, which a
# garbage collection may run inside alloc_all, with _LOCK held
_KEPT_LOCK = threading.RLock()

_free: dict[int, list[np.ndarray]] = {}
_LOCK = threading.Lock()  # guards _free and _pooled (calls may run in several threads)


def _raw(nbytes: int) -> np.ndarray:
    """A fresh buffer of ``nbytes`` bytes.

    Raises
    ------
    MemoryError
        The machine cannot provide it (the message names the size).
    """
    if nbytes >= HUGE:
        # whole 4 KiB pages: the kernel backs the 2 MiB-aligned stretches inside with huge
        # pages and the ends with small ones (rounding up to 2 MiB made the last huge page
        # resident in full: +1.5 MiB on a 6.5 MiB buffer)
        size = -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE
        try:
            mm = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        except OSError as e:
            if e.errno != errno.ENOMEM:
                raise
            raise MemoryError(f"lazyjit: cannot allocate a buffer of {nbytes} bytes "
                              f"({nbytes / 2**30:.3g} GiB): out of memory") from None
        if hasattr(mmap, "MADV_HUGEPAGE"):
            try:
                mm.madvise(mmap.MADV_HUGEPAGE)
            except OSError:
                pass
        return np.frombuffer(mm, np.uint8, count=nbytes)
    return np.empty(nbytes, np.uint8)


def alloc(shape: tuple[int, ...], dtype: np.dtype, nbytes: int) -> np.ndarray:
    """An uninitialized C-contiguous array of ``nbytes`` bytes, reusing a released pooled
    buffer if any.

    Raises
    ------
    MemoryError
        The machine cannot provide it.
    """
    return alloc_all(((shape, dtype, nbytes),))[0]


def alloc_all(blocks) -> list[np.ndarray]:
    """:func:`alloc` of each ``(shape, dtype, nbytes)`` of ``blocks`` (a call's memory
    blocks), under one hold of the lock."""
    empty, over = np.empty, np.ndarray  # (an array over a pooled buffer, its base)
    with _LOCK:  # two threads must never take the same released buffer
        return [empty(shape, dt) if nbytes < MIN_POOLED else
                over(shape, dt, _pooled_alloc(nbytes)) for shape, dt, nbytes in blocks]


def _pooled_alloc(nbytes: int) -> np.ndarray:
    lst = _free.get(nbytes)
    if lst is None:
        lst = _free[nbytes] = []
    for raw in lst:
        if sys.getrefcount(raw) == 3:  # the list, the loop variable, the call argument
            return raw
    raw = _raw(nbytes)
    if len(lst) < MAX_PER_SIZE:
        global _pooled
        if _pooled + nbytes > MAX_POOLED_BYTES:
            _evict()
            lst = _free.setdefault(nbytes, lst)
        lst.append(raw)
        _pooled += nbytes
    return raw


def _evict() -> None:
    """Drop every pooled buffer nobody uses (sizes that stopped being asked for would
    otherwise hold their memory forever)."""
    global _pooled
    for nbytes, lst in list(_free.items()):
        keep = [raw for raw in lst if sys.getrefcount(raw) > 3]  # list, loop var, argument
        _pooled -= nbytes * (len(lst) - len(keep))
        if keep:
            _free[nbytes] = keep
        else:
            del _free[nbytes]


def reserve(nbytes: int) -> bool:
    """Whether a program may keep ``nbytes`` of intermediate blocks between its calls
    (counted until :func:`release`): at most :data:`MAX_KEPT_BYTES` in all, so that the
    thousands of plans a process may cache hold little memory that is not in use."""
    global _kept
    with _KEPT_LOCK:
        if _kept + nbytes > MAX_KEPT_BYTES:
            return False
        _kept += nbytes
        return True


def release(nbytes: int) -> None:
    """Give back what :func:`reserve` granted (the program is gone)."""
    global _kept
    with _KEPT_LOCK:
        _kept -= nbytes


def clear() -> None:
    """Forget all pooled buffers (those in use stay alive until released)."""
    global _pooled
    with _LOCK:
        _free.clear()
        _pooled = 0
