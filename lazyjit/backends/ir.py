"""The ``ir`` backend: runs a lowered :class:`~lazyjit.schedule.ir.Program` kernel by
kernel with NumPy, no compiler.

It executes exactly what a compiled backend renders: the same records, over the same
memory plan.  Buffers are raw bytes: the memory blocks of the plan (shared by slots
whose lifetimes do not overlap, written in place where the plan says so, an input
donated to an output), views addressed by offset and strides in them, scan rows and
ring buffers by pointer arithmetic as the C does.  A block is filled with 0xFF bytes
(NaN for floats) whenever a value's lifetime starts in it (unless written in place), so
a kernel reading memory no kernel wrote for it shows up in the results; a view reaching
outside its buffer raises, and so does a kernel writing memory that one of its reads of
another geometry also addresses (:class:`ScheduleError`: compiled code would read
elements already overwritten).  It is therefore the oracle for fusion, memory plans,
in-place writes and ring buffers, and the way a GPU schedule is tested on a machine
without a GPU (:func:`run_program` runs any target's program).
Each kernel computes with the ops' NumPy references (:mod:`lazyjit.ops`), as the
``numpy`` backend does.
"""
from __future__ import annotations

import numpy as np

from lazyjit.config import config
from lazyjit.errors import check_error
from lazyjit.ops import REGISTRY
from lazyjit.rewrite import optimize_body
from lazyjit.schedule import ir
from lazyjit.schedule.lower import Target, lower
from lazyjit.schedule.views import View, row_bytes
from lazyjit.schedule.window import WindowPlan
from lazyjit.stats import count
from lazyjit.trace.graph import Trace

name = "ir"

# a buffer table entry: (the bytes of a memory block or an input, byte offset in them)
Pointer = tuple[np.ndarray, int]


def target() -> Target:
    """A target with no preference of its own: no convolution implementation or scratch
    (each window kernel runs its op's reference)."""
    return Target("ir", lambda n: WindowPlan(), optimize_body,
                  checks=config.optimizer != "unsafe")


class ScheduleError(RuntimeError):
    """A program breaks its own memory plan (a bug of the schedule, never of the user)."""


def _bytes(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


def view(table: list[Pointer], v: View) -> np.ndarray:
    """The array that view ``v`` addresses (raises if it reaches outside its block)."""
    base, off = table[v.slot]
    isz = v.dtype.itemsize
    return np.ndarray(v.shape, v.dtype, buffer=base, offset=off + v.offset * isz,
                      strides=tuple(s * isz for s in v.strides))


def _store(table, dst: View, value) -> None:
    view(table, dst)[...] = np.asarray(value).astype(dst.dtype, copy=False)


def _evaluate(roots, leaves, table) -> list[np.ndarray]:
    """The values of a fused expression's roots, leaves loaded whole; each node computed
    once, when first needed (an explicit stack: fused chains can be long)."""
    vals = {}
    for node, leaf in leaves.items():
        vals[node] = view(table, leaf) if isinstance(leaf, View) else \
            np.asarray(leaf.value).astype(leaf.dtype)
    for root in roots:
        stack = [(root, False)]
        while stack:
            n, ready = stack.pop()
            if n in vals:
                continue
            if ready:
                out = REGISTRY[n.op].ref(*[vals[s] for s in n.src], n.arg)
                vals[n] = np.asarray(out).astype(n.dtype, copy=False)
                continue
            stack.append((n, True))
            stack.extend((s, False) for s in n.src if s not in vals)
    return [vals[r] for r in roots]


def _copy(dst: Pointer, src: Pointer, nbytes: int) -> None:
    (db, do), (sb, so) = dst, src
    db[do:do + nbytes] = sb[so:so + nbytes]


def _check_overlap(k, table) -> None:
    """Raise when kernel ``k`` writes memory that a read of another geometry addresses
    (only a read of the very elements written, as they are written, is in place)."""
    for w in k.writes:
        for r in k.reads:
            if w.same_elements(r):
                continue
            a, b = view(table, w), view(table, r)
            if a.size and b.size and np.may_share_memory(a, b) and \
                    np.shares_memory(a, b, max_work=1 << 20):
                raise ScheduleError(f"{type(k).__name__} writes slot {w.slot} over memory "
                                    f"that its read of slot {r.slot} ({r}) also addresses")


def _count(steps: list) -> int:
    """Kernels of ``steps``, nested ones included, each once (as a compiled module has
    one function per kernel)."""
    n = 0
    for k in steps:
        n += 1
        if isinstance(k, ir.If):
            n += _count(k.then) + _count(k.orelse)
        elif isinstance(k, ir.Loop):
            n += _count(k.body.steps)
    return n


def _fresh(prog: ir.Program) -> dict[int, list[int]]:
    """Per top-level step: the non-input slots whose lifetime starts there in a block an
    earlier value used, and not in place (its block is not named by another slot of
    that step): to be filled with 0xFF bytes first."""
    n_in, uses = prog.n_inputs, [prog.uses(k) for k in prog.steps]
    first: dict[int, int] = {}
    for pos, slots in enumerate(uses):
        for s in slots:
            first.setdefault(s, pos)
    out: dict[int, list[int]] = {}
    seen: set[int] = set()
    for s in sorted((s for s in first if s >= n_in), key=first.__getitem__):
        b, pos = prog.block[s - n_in], first[s]
        shared = any(t != s and t >= n_in and prog.block[t - n_in] == b for t in uses[pos])
        if b in seen and not shared:
            out.setdefault(pos, []).append(s)
        seen.add(b)
    return out


class Executor:
    """Runs records over a buffer table; check failures name ``messages``.  ``xp`` and
    ``view`` are the array module of the buffers and the array a view addresses
    (cupy's, for the ``cuda`` backend on a GPU, whose GEMM is this one)."""

    xp = np
    view = staticmethod(view)

    def __init__(self, messages: list[str]):
        self.messages = messages

    def steps(self, steps: list, table: list[Pointer]) -> None:
        for k in steps:
            if not isinstance(k, (ir.If, ir.Loop)):
                _check_overlap(k, table)
            RUN[type(k)](self, k, table)

    def elementwise(self, k: ir.Elementwise, table) -> None:
        values = _evaluate(k.roots, k.leaves, table)
        for dst, value in zip(k.dsts, values):
            _store(table, dst, np.broadcast_to(value, dst.shape))

    def reduce(self, k: ir.Reduce, table) -> None:
        (x,) = _evaluate((k.root,), k.leaves, table)
        x = np.broadcast_to(x, k.src_shape)
        _store(table, k.dst, np.reshape(REGISTRY[k.op].ref(x, k.axes), k.dst.shape))

    def argreduce(self, k: ir.ArgReduce, table) -> None:
        out = REGISTRY[k.op].ref(view(table, k.src), k.axis)
        _store(table, k.dst, np.reshape(out, k.dst.shape))

    def gemm(self, k: ir.Gemm, table) -> None:
        xp, view = self.xp, self.view
        a, b = view(table, k.a), view(table, k.b)
        if k.dst.dtype == np.float16:  # in float32, rounded once (as the matmul op's ref)
            a, b = a.astype(np.float32), b.astype(np.float32)
        out = xp.matmul(a, b)
        if k.alpha != 1.0:
            out = (out * k.alpha).astype(out.dtype)
        if k.accumulate:
            out = view(table, k.dst) + out
        view(table, k.dst)[...] = out.astype(k.dst.dtype, copy=False)

    def gather(self, k: ir.Gather, table) -> None:
        out = REGISTRY["take"].ref(view(table, k.src), view(table, k.idx), k.axis)
        _store(table, k.dst, out)

    def scatter(self, k: ir.Scatter, table) -> None:
        ref = REGISTRY["put_add" if k.add else "put"].ref
        out = ref(view(table, k.dst), view(table, k.idx), view(table, k.vals), k.axis)
        _store(table, k.dst, out)

    def check(self, k: ir.Check, table) -> None:
        if not view(table, k.ok).all():
            raise check_error(self.messages[k.code])

    def sort(self, k: ir.Sort, table) -> None:
        _store(table, k.dst, REGISTRY["argsort"].ref(view(table, k.src), k.descending))

    def window(self, k: ir.Window, table) -> None:
        _store(table, k.dst, REGISTRY[k.op].ref(view(table, k.a), view(table, k.b), k.arg))

    def fft(self, k: ir.FFT, table) -> None:
        _store(table, k.dst, REGISTRY["fft"].ref(view(table, k.a), k.arg))

    def linalg(self, k: ir.Linalg, table) -> None:
        srcs = [view(table, v) for v in (k.a, k.b) if v is not None]
        _store(table, k.dst, REGISTRY[k.op].ref(*srcs, k.arg))

    def branch(self, k: ir.If, table) -> None:
        self.steps(k.then if view(table, k.cond).item() else k.orelse, table)

    def loop(self, k: ir.Loop, table) -> None:
        """Steps as the C loop takes them: pointers to rows set per step, outputs
        computed in their destination rows or copied there, ring rows modulo."""
        body, T = k.body, k.n_steps
        bi: list = [None] * (body.n_inputs + len(body.slots))
        for slot, w in k.workspace.items():
            bi[slot] = table[w.slot]
        for m, v in enumerate(k.invs):
            base, off = table[v.slot]
            bi[k.inv_first + m] = (base, off + v.offset * v.dtype.itemsize)

        def row(j: int, r: int) -> Pointer:
            st = k.states[j]
            base, off = table[st.buf.slot]
            if st.final is not None:
                r %= st.lag + 1
            return base, off + r * row_bytes(st.buf)
        out_slots = [slot for slot, _ in body.outputs]
        sizes = [row_bytes(st.buf) for st in k.states] + [row_bytes(v) for v in k.collected]
        ran = T
        for t in range(T):
            r = T - 1 - t if k.reverse else t
            for q, v in enumerate(k.seqs):
                base, off = table[v.slot]
                isz = v.dtype.itemsize
                bi[q] = (base, off + v.offset * isz + r * v.strides[0] * isz)
            for j, st in enumerate(k.states):
                for slot, tau in zip(st.tap_slots, st.taps):
                    bi[slot] = row(j, st.lag + t + tau)
            dests = [row(j, st.lag + t) for j, st in enumerate(k.states)]
            for v in k.collected:
                base, off = table[v.slot]
                dests.append((base, off + r * row_bytes(v)))
            for slot, dest in zip(out_slots, dests):
                if slot in k.direct:
                    bi[slot] = dest
            self.steps(body.steps, bi)
            for slot, dest, size in zip(out_slots, dests, sizes):
                if slot not in k.direct:
                    _copy(dest, bi[slot], size)
            if k.stop is not None:  # (the stop state's new row: one bool byte)
                base, off = dests[k.stop]
                if bool(base[off]):
                    ran = t + 1
                    break
        for j, st in enumerate(k.states):
            if st.final is not None:
                base, off = table[st.final.slot]
                size = row_bytes(st.buf)
                for r in range(st.lag):
                    _copy((base, off + r * size), row(j, ran + r), size)


RUN = {ir.Elementwise: Executor.elementwise, ir.Reduce: Executor.reduce,
        ir.ArgReduce: Executor.argreduce, ir.Gemm: Executor.gemm, ir.Gather: Executor.gather,
        ir.Scatter: Executor.scatter, ir.Check: Executor.check, ir.Sort: Executor.sort,
        ir.FFT: Executor.fft, ir.Window: Executor.window, ir.Linalg: Executor.linalg,
       ir.If: Executor.branch, ir.Loop: Executor.loop}


class Plan:
    """A trace lowered for this backend; ``run`` executes it on fresh memory blocks."""

    def __init__(self, prog: ir.Program):
        self.prog = prog
        self.donors = prog.donors
        # (as a compiled program's: which outputs are fresh blocks, not inputs passed on)
        self.n_in, self.outputs = prog.n_inputs, prog.outputs

    def run(self, inputs: list[np.ndarray], donate: dict | None = None) -> list[np.ndarray]:
        return run_program(self.prog, inputs, donate)


def run_program(prog: ir.Program, inputs: list[np.ndarray], donate: dict | None = None,
                executor: Executor | None = None) -> list[np.ndarray]:
    """Execute a lowered program with NumPy, over its own memory plan.

    Parameters
    ----------
    prog : a :class:`~lazyjit.schedule.ir.Program` lowered for any target, with its
        memory plan.
    inputs : C-contiguous arrays of the shapes and dtypes of its input slots, in order.
    donate : ``{output position: input slot}``, a subset of ``prog.donors``: those
        outputs are written over those input arrays (which the caller gives up).
    executor : what runs the steps (default: an :class:`Executor`, each kernel with
        NumPy); the emulated ``cuda`` backend passes one launching its kernels.

    Returns
    -------
    The outputs, read-only C-contiguous arrays of the program's output shapes and
    dtypes (an input passed through is a read-only view of it).

    Raises
    ------
    ValueError
        A ``check`` step failed (its message), or a view reaches outside its buffer.
    IndexError
        An index of a gather or scatter is out of bounds.
    ScheduleError
        A kernel writes memory that one of its reads of another geometry addresses.
    """
    n_in = prog.n_inputs
    blocks = [np.full(n, 0xFF, np.uint8) for n in prog.block_bytes]
    for j, a in (donate or {}).items():
        s, shape = prog.outputs[j]
        arr = inputs[a]
        if prog.donors.get(j) == a and arr.nbytes == prog.slot_bytes(s) and \
                arr.dtype == prog.slots[s - n_in][1] and arr.flags.c_contiguous:
            block = _bytes(arr)
            try:  # (a read-only view of writeable memory, which the caller gives up)
                block.flags.writeable = True
            except ValueError:  # memory that is not writeable: not donated
                continue
            blocks[prog.block[s - n_in]] = block
    table: list[Pointer] = [(_bytes(a), 0) for a in inputs]
    table += [(blocks[b], 0) for b in prog.block]
    ex = executor or Executor(prog.messages)
    fresh = _fresh(prog)
    with np.errstate(all="ignore"):
        for pos, k in enumerate(prog.steps):
            for s in fresh.get(pos, ()):
                blocks[prog.block[s - n_in]][:prog.slot_bytes(s)] = 0xFF
            ex.steps([k], table)
    count("kernels_run", _count(prog.steps))
    outs = []
    for s, shape in prog.outputs:
        if s < n_in:
            a = inputs[s].view()  # an input passed through: a read-only view
        else:
            dt = prog.slots[s - n_in][1]
            a = np.ndarray(shape, dt, buffer=blocks[prog.block[s - n_in]])
        a.flags.writeable = False
        outs.append(a)
    return outs


def compile(trace: Trace) -> Plan:  # noqa: A001 - the backend interface name
    return Plan(lower(trace, target()))
