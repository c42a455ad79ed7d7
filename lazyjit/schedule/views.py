"""Strided views: how a movement op reads a materialized buffer without copying.

A :class:`View` addresses ``shape`` elements of buffer ``slot`` at ``offset +
sum(i_k * strides[k])`` (in elements).  ``reshape`` of a non-collapsible view returns
``None``, meaning the source must be copied to a contiguous buffer first.
:func:`collapse` merges the loop space of a kernel over several views;
:func:`gemm_operand` says whether a view is a BLAS matrix as it is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides (in elements) of a C-contiguous array of ``shape`` (NumPy's ``order='C'``)."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return tuple(reversed(out))


@dataclass(frozen=True)
class View:
    """``shape`` elements of ``dtype`` in buffer ``slot``, element ``i`` at ``offset +
    sum(i[k] * strides[k])`` (offset and strides in elements; a stride may be 0: a
    broadcast, or negative)."""
    slot: int
    dtype: np.dtype
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @staticmethod
    def contiguous(slot: int, dtype: np.dtype, shape: tuple[int, ...]) -> "View":
        return View(slot, dtype, 0, shape, c_strides(shape))

    def same_elements(self, other: "View") -> bool:
        """Whether both views address the same bytes in the same order (element ``i`` of
        one is element ``i`` of the other, in any buffer): in place is safe between them."""
        return (self.offset, self.shape, self.strides, self.dtype.itemsize) == \
            (other.offset, other.shape, other.strides, other.dtype.itemsize)

    def is_contiguous(self) -> bool:
        return all(st == c for st, c, d in zip(self.strides, c_strides(self.shape), self.shape)
                   if d != 1)

    def permute(self, perm) -> "View":
        return View(self.slot, self.dtype, self.offset, tuple(self.shape[p] for p in perm),
                    tuple(self.strides[p] for p in perm))

    def expand(self, shape) -> "View":
        st = tuple(0 if d != s else t for d, s, t in zip(self.shape, shape, self.strides))
        return View(self.slot, self.dtype, self.offset, tuple(shape), st)

    def slice(self, slices) -> "View":
        off, shape, st = self.offset, [], []
        for (start, stop, step), stride in zip(slices, self.strides):
            n = len(range(start, stop, step))
            if n:
                off += start * stride
            shape.append(n)
            st.append(stride * step)
        return View(self.slot, self.dtype, off, tuple(shape), tuple(st))

    def reshape(self, shape) -> "View | None":
        if self.is_contiguous():
            return View(self.slot, self.dtype, self.offset, tuple(shape), c_strides(shape))
        # keep strides of non-unit dims when only size-1 dims are added or removed
        old = [(d, s) for d, s in zip(self.shape, self.strides) if d != 1]
        if [d for d, _ in old] == [d for d in shape if d != 1]:
            it = iter(old)
            st = tuple(next(it)[1] if d != 1 else 0 for d in shape)
            return View(self.slot, self.dtype, self.offset, tuple(shape), st)
        return None


def collapse(shape, stride_lists, flags=None):
    """Drop size-1 dims and merge adjacent dims that are contiguous for every operand
    (and share ``flags``, e.g. reduced-or-kept).  Returns ``(shape, stride_lists, flags)``."""
    keep = [i for i, d in enumerate(shape) if d != 1]
    dims = [[shape[i], [s[i] for s in stride_lists], None if flags is None else flags[i]]
            for i in keep]
    out = []
    for d in dims:
        if out:
            prev = out[-1]
            if prev[2] == d[2] and all(ps == s * d[0] for ps, s in zip(prev[1], d[1])):
                prev[0] *= d[0]
                prev[1] = list(d[1])
                continue
        out.append([d[0], list(d[1]), d[2]])
    shape2 = tuple(d[0] for d in out)
    strides2 = [tuple(d[1][j] for d in out) for j in range(len(stride_lists))]
    flags2 = None if flags is None else tuple(d[2] for d in out)
    return shape2, strides2, flags2


def row_bytes(view: View) -> int:
    """Bytes of one row (index of the first axis) of a contiguous ``view``."""
    return math.prod(view.shape[1:]) * view.dtype.itemsize


def gemm_operand(view: View) -> tuple[int, int] | None:
    """``(trans, ld)`` when the last two dims of ``view`` are a BLAS matrix (row-major,
    possibly transposed, leading dimension ``ld``), else None."""
    rows, cols = view.shape[-2:]
    sr, sc = view.strides[-2:]
    if rows == 0 or cols == 0:
        return 0, max(1, cols)
    if cols == 1 or sc == 1:
        if rows == 1 or sr >= max(1, cols):
            return 0, (sr if rows > 1 else max(1, cols))
    if rows == 1 or sr == 1:
        if cols == 1 or sc >= max(1, rows):
            return 1, (sc if cols > 1 else max(1, rows))
    return None
