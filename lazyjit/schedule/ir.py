"""The kernel IR: a :class:`Program` of typed kernel records, in no particular language.

Lowering a rewritten trace (:mod:`lazyjit.schedule.lower`) decides fusion, views,
buffers, loop layout and the memory plan once; a backend only renders the records (C
for ``cpu``; NumPy for ``ir``, the oracle).  Every record names the buffer views it
``reads`` and ``writes`` (slot, dtype, offset, shape, strides in elements), so a memory
plan, a NaN guard or a profiler needs no generated source.

Buffer slots: ``0 .. n_inputs - 1`` are the trace inputs, then one slot per
materialized value (:attr:`Program.slots`).  A fused expression is a small DAG of
:class:`Expr` (each op's backend-neutral definition is its
:class:`~lazyjit.ops.OpDef`), whose leaves are views or constants (:class:`Const`).  A
program holds no graph node: it keeps no trace alive and can be saved.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lazyjit.schedule.views import View, collapse


@dataclass(frozen=True, eq=False)
class Expr:
    """One op of a fused expression (``op``, its ``arg``, result ``dtype``, operands
    ``src``); ``op == "leaf"`` for an operand read from memory or a constant."""
    op: str
    arg: object
    dtype: np.dtype
    src: tuple["Expr", ...] = ()


@dataclass(frozen=True)
class Const:
    """A scalar constant leaf of a fused expression (its value travels at run time)."""
    value: object
    dtype: np.dtype


def loads(leaves: dict) -> list[View]:
    """The distinct views among a fused expression's leaves, in first-use order."""
    return list(dict.fromkeys(v for v in leaves.values() if isinstance(v, View)))


class Step:
    """A step of a program (a kernel record or a control step): ``READS`` and
    ``WRITES`` name its view fields (None: absent)."""
    READS: tuple[str, ...] = ()
    WRITES: tuple[str, ...] = ()

    @property
    def reads(self) -> tuple[View, ...]:
        """The views the step reads (a memory plan keeps their buffers alive until it)."""
        return tuple(v for v in (getattr(self, f) for f in self.READS) if v is not None)

    @property
    def writes(self) -> tuple[View, ...]:
        """The views the step writes."""
        return tuple(v for v in (getattr(self, f) for f in self.WRITES) if v is not None)


@dataclass(frozen=True)
class Space:
    """The loop space of a kernel over ``views``: ``shape`` with size-1 dims dropped and
    dims contiguous in every view merged (:func:`~lazyjit.schedule.views.collapse`), each
    view's ``strides`` over it, and per dim whether it is reduced (``flags``)."""
    views: tuple[View, ...]
    shape: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    flags: tuple[bool, ...] | None


def space(shape, views: list[View], flags=None) -> Space:
    """The collapsed loop space of ``views`` over ``shape`` (at least one dim)."""
    shape2, strides2, flags2 = collapse(shape, [v.strides for v in views], flags)
    if not shape2:
        shape2, strides2 = (1,), [(0,) for _ in views]
        flags2 = None if flags is None else (False,)
    return Space(tuple(views), shape2, tuple(strides2), flags2)


@dataclass(eq=False)
class Elementwise(Step):
    """``dsts[j][idx] = roots[j](idx)`` for every index of ``shape``: one loop computing
    each op of the fused expressions once; several ``dsts`` for multi-output fusion.
    ``leaves`` maps each leaf :class:`Expr` to its view or constant."""
    dsts: tuple[View, ...]
    shape: tuple[int, ...]
    roots: tuple[Expr, ...]
    leaves: dict

    @property
    def reads(self) -> tuple[View, ...]:
        return tuple(loads(self.leaves))

    @property
    def writes(self) -> tuple[View, ...]:
        return self.dsts

    def space(self) -> Space:
        """The loop space over the destinations, then the views read."""
        return space(self.shape, list(self.dsts) + list(self.reads))

    def in_place(self) -> tuple[int, set[int]] | None:
        """``(written slot, slots it may overwrite)``: the inputs read only at the very
        element written (same geometry as the one destination), never otherwise."""
        if len(self.dsts) != 1:
            return None
        dst, views = self.dsts[0], self.reads
        same = {v.slot for v in views if v.same_elements(dst)}
        same -= {v.slot for v in views if not v.same_elements(dst)} | {dst.slot}
        return dst.slot, same

    def is_one_element(self) -> bool:
        """Whether every dim has the static size 1 (a 0-d step of a scalar scan): one
        element, computed with no loop."""
        return all(type(d) is int and d == 1 for d in self.shape)

    def is_self_copy(self) -> bool:
        """A copy of a view onto itself (an indexed update of a dead tensor, planned in
        place): nothing to do when the buffers coincide at run time."""
        views = self.reads
        return (len(self.dsts) == 1 and len(views) == 1
                and self.leaves.get(self.roots[0]) is views[0]
                and views[0].same_elements(self.dsts[0]))


@dataclass(eq=False)
class Reduce(Step):
    """``dst = op`` (sum, prod, max, min) over ``axes`` of the fused expression ``root``
    evaluated over ``src_shape``; ``dst`` is contiguous with kept (size-1) axes."""
    dst: View
    op: str
    axes: tuple[int, ...]
    src_shape: tuple[int, ...]
    root: Expr
    leaves: dict
    dtype: np.dtype

    @property
    def reads(self) -> tuple[View, ...]:
        return tuple(loads(self.leaves))

    @property
    def writes(self) -> tuple[View, ...]:
        return (self.dst,)

    def space(self) -> Space:
        """The loop space over the source shape: the destination seen with stride 0 on
        the reduced axes, then the views read; ``flags`` marks reduced dims."""
        dst, n = self.dst, len(self.src_shape)
        strides = tuple(0 if i in self.axes else dst.strides[i] for i in range(n))
        out = View(dst.slot, dst.dtype, dst.offset, tuple(self.src_shape), strides)
        return space(self.src_shape, [out, *self.reads], tuple(i in self.axes for i in range(n)))


@dataclass(eq=False)
class ArgReduce(Step):
    """``dst = argmax/argmin(src, axis)`` (the first extreme; the first NaN wins)."""
    READS, WRITES = ("src",), ("dst",)
    dst: View
    op: str
    axis: int
    src: View


@dataclass(eq=False)
class Gemm(Step):
    """Batched ``dst = alpha * (a @ b)`` (``+ dst`` when ``accumulate``); ``a`` and ``b``
    of float dtype are BLAS matrices (:func:`~lazyjit.schedule.views.gemm_operand`)."""
    dst: View
    a: View
    b: View
    alpha: float = 1.0
    accumulate: bool = False

    @property
    def reads(self) -> tuple[View, ...]:
        return (self.a, self.b) + ((self.dst,) if self.accumulate else ())

    @property
    def writes(self) -> tuple[View, ...]:
        return (self.dst,)


@dataclass(eq=False)
class Gather(Step):
    """``dst = take(src, idx, axis)`` (contiguous operands); an index out of range fails
    the call when ``checked``."""
    READS, WRITES = ("src", "idx"), ("dst",)
    dst: View
    src: View
    idx: View
    axis: int
    checked: bool


@dataclass(eq=False)
class Scatter(Step):
    """``dst[..., idx, ...] (+)= vals`` along ``axis`` (``dst`` already holds the base;
    repeated indices accumulate when ``add``, the last write wins otherwise)."""
    READS, WRITES = ("dst", "idx", "vals"), ("dst",)
    dst: View
    idx: View
    vals: View
    axis: int
    add: bool
    checked: bool


@dataclass(eq=False)
class Check(Step):
    """Fail the call with message number ``code`` of :attr:`Program.messages` when an
    element of the contiguous bool view ``ok`` is false."""
    READS, WRITES = ("ok",), ()
    ok: View
    code: int


@dataclass(eq=False)
class Sort(Step):
    """``dst = argsort(src)`` along the last axis (stable; NaN last), ``src`` contiguous."""
    READS, WRITES = ("src",), ("dst",)
    dst: View
    src: View
    descending: bool


@dataclass(eq=False)
class FFT(Step):
    """``np.fft.<kind>`` (``arg = (kind, norm, n)``, :mod:`lazyjit.ops.fft`) of the
    contiguous ``a`` along its last axis into the contiguous ``dst``, by NumPy's pocketfft
    (compiled backends call back into Python); it fails the call with message ``code``
    where that call fails."""
    READS, WRITES = ("a",), ("dst",)
    arg: tuple
    dst: View
    a: View
    code: int


@dataclass(eq=False)
class Linalg(Step):
    """A dense factorization or solve (``op``, ``arg`` as in :mod:`lazyjit.ops.linalg`) of
    the contiguous matrices ``a`` (and right-hand sides ``b``) into ``dst``, batched over
    leading axes; it fails the call with message ``code`` when the op's LAPACK routine
    reports a matrix it cannot factor, and with ``code + 1`` where no LAPACK is found."""
    READS, WRITES = ("a", "b"), ("dst",)
    op: str
    arg: object
    dst: View
    a: View
    b: View | None
    code: int


@dataclass(eq=False)
class Window(Step):
    """A convolution or max-pooling op (``op``, ``arg`` as in :mod:`lazyjit.ops.conv`;
    ``same_src`` when both operands are one value) on contiguous operands ``a``, ``b``
    into ``dst``, by the backend's implementation ``algo`` (cpu convolutions: ``gemm``,
    ``direct`` or ``grid``; pooling: None), with a ``scratch`` buffer of ``threads``
    per-thread parts (or None) and ``chunk`` samples per GEMM."""
    READS, WRITES = ("a", "b"), ("dst", "scratch")
    op: str
    arg: object
    same_src: bool
    dst: View
    a: View
    b: View
    algo: str | None = None
    scratch: View | None = None
    threads: int = 1
    chunk: int = 1


@dataclass(eq=False)
class If(Step):
    """Run ``then`` when the bool at view ``cond`` is true, else ``orelse`` (``ifelse``:
    only the side taken is computed; each side ends by copying its values into the
    results)."""
    cond: View
    then: list
    orelse: list

    @property
    def reads(self) -> tuple[View, ...]:
        return (self.cond,) + tuple(v for k in self.then + self.orelse for v in k.reads)

    @property
    def writes(self) -> tuple[View, ...]:
        return tuple(v for k in self.then + self.orelse for v in k.writes)


@dataclass(eq=False)
class ScanState:
    """A scan state's buffer: ``lag`` initial rows then one row per step (``buf`` holds
    ``lag + T`` rows), or a ring of ``lag + 1`` rows whose last ``lag`` rows are copied
    to ``final`` after the loop.  Step ``t`` reads row ``lag + t + tau`` for each tap
    ``tau`` (negative) into body input slot ``tap_slots[i]``, and writes row ``lag + t``."""
    buf: View
    lag: int
    taps: tuple[int, ...]
    tap_slots: tuple[int, ...]
    final: View | None


@dataclass(eq=False)
class Loop(Step):
    """A scan: ``n_steps`` runs of ``body`` (a :class:`Program` of its own slots), step
    ``t`` reading row ``t`` (``T - 1 - t`` when ``reverse``) of each sequence into body
    slot ``q``, the tap rows of each state, and the invariants whole (from body slot
    ``inv_first``); its body outputs are the states' new rows, then the rows of the
    ``collected`` outputs (row ``t`` or ``T - 1 - t``: Theano's outputs without taps).
    ``workspace`` maps body slots to outer buffers; a body output in ``direct`` is
    computed straight into its destination row (else copied there).  The body's checks
    fail the outer program (its messages and failure flag are the outer program's).
    With ``stop`` (a state's index: a bool), the loop ends after the first step whose
    new row of that state is true, at most ``n_steps`` steps; the states' ``final`` rows
    are then the last ones written (a while loop)."""
    n_steps: int
    reverse: bool
    body: "Program"
    seqs: list[View]
    invs: list[View]
    inv_first: int
    states: list[ScanState]
    collected: list[View]
    workspace: dict[int, View]
    direct: set[int]
    stop: int | None = None

    @property
    def reads(self) -> tuple[View, ...]:
        return tuple(self.invs) + tuple(self.seqs) + tuple(s.buf for s in self.states)

    @property
    def writes(self) -> tuple[View, ...]:
        return (tuple(self.workspace.values()) + tuple(s.buf for s in self.states)
                + tuple(self.collected) + tuple(s.final for s in self.states if s.final))


@dataclass(eq=False)
class Program:
    """Kernel records in order, over buffer slots: ``n_inputs`` inputs, then ``slots``
    (shape, dtype of each materialized value); ``outputs`` gives (slot, shape) per trace
    output.  The memory plan (:mod:`lazyjit.schedule.memory`) fills ``block`` (the memory
    block of each non-input slot), ``block_bytes`` and ``donors``."""
    steps: list
    n_inputs: int
    slots: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[int, tuple[int, ...]]]
    messages: list[str] = field(default_factory=list)
    may_fail: bool = False
    block: list[int] = field(default_factory=list)
    block_bytes: list[int] = field(default_factory=list)
    donors: dict[int, int] = field(default_factory=dict)

    def slot_bytes(self, slot: int) -> int:
        """Bytes of the buffer of non-input ``slot`` (a slot number, ``>= n_inputs``)."""
        shape, dt = self.slots[slot - self.n_inputs]
        return math.prod(shape) * np.dtype(dt).itemsize

    def uses(self, step) -> set[int]:
        """The slots a top-level step names (reads or writes)."""
        return {v.slot for v in step.reads} | {v.slot for v in step.writes}
