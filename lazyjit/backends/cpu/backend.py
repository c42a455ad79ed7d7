"""The ``cpu`` backend: fused C kernels compiled through cffi, the whole trace one call.

``compile(trace)`` lowers the trace to the kernel IR (:func:`lazyjit.schedule.lower`:
fusion, views, memory plan), renders the program as one C module (:mod:`.render`) whose
``lj_run(B, P)`` runs every kernel in order (buffers ``B``, sizes and strides ``P``),
and loads it through the code cache (:mod:`.compiler`).  The module's source does not
depend on sizes, so a new batch size reuses the compiled code and only builds a new
parameter table.  ``Program.run`` draws output and intermediate buffers from the pool
and makes one cffi call, which releases the GIL.
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from lazyjit.backends import numpy_backend
from lazyjit.backends.cpu import conv, pool
from lazyjit.backends.cpu.compiler import (ffi, is_cached, load, prelude, require_compiler,
                                          settings)
from lazyjit.backends.cpu.kernels import Module
from lazyjit.backends.cpu.render import render, render_program
from lazyjit.config import config
from lazyjit.rewrite import optimize_body
from lazyjit.schedule.lower import Target, lower
from lazyjit.schedule.ir import Program as IRProgram
from lazyjit.stats import COUNTS
from lazyjit.trace.graph import Trace, collect
from lazyjit.trace.node import Node

name = "cpu"


def target(forced: str | None = None) -> Target:
    """What lowering asks of this backend (``forced``: one convolution implementation,
    while it is timed)."""
    return Target("cpu", lambda n: conv.plan(n, time_candidate, forced), optimize_body,
                  checks=config.optimizer != "unsafe")


def _build(trace: Trace, tgt: Target) -> tuple[IRProgram, Module, str]:
    """``trace`` lowered for ``tgt``, its kernels and parameter table, and the source."""
    prog = lower(trace, tgt)
    module = render_program(prog)
    return prog, module, render(module)


def generate(trace: Trace) -> tuple[str, list[int]]:
    """The C source of ``trace``'s module (without the :func:`prelude`) and its
    parameter table, without compiling: what the golden snapshots of
    ``tests/test_golden.py`` record (``trace`` as the rewrites leave it)."""
    _, module, source = _build(trace, target())
    return source[len(prelude()):], list(module.params)


class Program:
    """A compiled trace bound to concrete shapes (its parameter table)."""

    __slots__ = ("lib", "params", "P", "n_in", "slots", "outputs", "n_kernels", "source",
                 "n_slots", "block", "blocks", "_B", "donors", "messages")

    def __init__(self, prog: IRProgram, module: Module, lib, source: str):
        self.lib = lib
        self.source = source
        self.params = np.array(module.params or [0], dtype=np.int64)
        self.P = ffi.from_buffer("int64_t[]", self.params)
        self.n_in = prog.n_inputs
        self.slots = [(shape, np.dtype(dt), math.prod(shape) * np.dtype(dt).itemsize)
                      for shape, dt in prog.slots]
        self.n_slots = self.n_in + len(self.slots)
        self.outputs = prog.outputs
        self.n_kernels = len(module.funcs)
        self.block, sizes = prog.block, prog.block_bytes
        # per block: (shape, dtype, bytes) of its array: an output's own, or raw bytes
        self.blocks = [((n,), np.dtype(np.uint8), n) for n in sizes]
        sharing = Counter(self.block)
        for i, b in enumerate(self.block):
            if sharing[b] == 1:
                self.blocks[b] = self.slots[i]
        self._B: list = []  # buffer tables not in use (one per call running at once)
        # output position -> the input slot its kernel may overwrite (see run's donate);
        # none when a kernel can fail during the call (an index check, an allocation):
        # an update already written in place could not be undone
        self.donors = prog.donors  # (none when a kernel may fail)
        self.messages = prog.messages  # of error codes 3, 4, ... (check ops)

    def _donated(self, inputs, donate: dict) -> list[np.ndarray]:
        """The call's memory blocks, each donated output's block being its input array."""
        given = {}
        for j, a in donate.items():
            s, shape = self.outputs[j]
            arr, (_, dt, nbytes) = inputs[a], self.slots[s - self.n_in]
            if self.donors.get(j) == a and arr.dtype == dt and arr.nbytes == nbytes and \
                    arr.flags.c_contiguous:
                given[self.block[s - self.n_in]] = arr.reshape(shape)
        alloc = pool.alloc
        return [given[b] if b in given else alloc(shape, dt, nbytes)
                for b, (shape, dt, nbytes) in enumerate(self.blocks)]

    def run(self, inputs: list[np.ndarray], donate: dict | None = None) -> list[np.ndarray]:
        """Run on ``inputs``; ``donate`` (``{output position: input slot}``, a subset of
        :attr:`donors`) lets those outputs be written over those inputs, in place: the
        caller gives up the input arrays (a shared variable's old value)."""
        self.params[0] = busy()
        try:
            B = self._B.pop()  # (atomic: a call running in another thread takes another)
        except IndexError:
            B = ffi.new("void*[]", self.n_slots or 1)
        i = 0
        for a in inputs:
            B[i] = _from_buffer(_CHARS, a, False)
            i += 1
        n_in = self.n_in
        alloc = pool.alloc
        blocks = [alloc(shape, dt, nbytes) for shape, dt, nbytes in self.blocks] \
            if not donate else self._donated(inputs, donate)
        ptrs = [_from_buffer(_CHARS, b, False) for b in blocks]
        for b in self.block:
            B[i] = ptrs[b]
            i += 1
        err = self.lib.lj_run(B, self.P)
        self._B.append(B)
        COUNTS.of["kernels_run"] += self.n_kernels  # (count(), inlined: the hot path)
        if err == 2:
            raise MemoryError("lazyjit: a kernel could not allocate its scratch memory")
        if err >= 3:
            raise ValueError(self.messages[err - 3])
        if err:
            raise IndexError("lazyjit: an index is out of bounds (take, put or advanced "
                             "indexing)")
        outs = []
        for s, shape in self.outputs:
            # an input passed through is returned as a read-only view, never re-flagged
            a = inputs[s].view() if s < n_in else blocks[self.block[s - n_in]]
            if a.shape != shape:
                a = a.reshape(shape)
            a.flags.writeable = False
            outs.append(a)
        return outs


_NCPU = os.cpu_count() or 1
_from_buffer = ffi._backend.from_buffer  # cffi's own, without the Python wrapper's checks
_CHARS = ffi.typeof("char[]")


class _Machine:
    """When the machine was last looked at, a moving average of the other processes
    ready to run, and whether that leaves too few cores for this process's thread teams
    (one per process: written by whichever call samples it)."""

    def __init__(self):
        self.sampled, self.others, self.busy = 0.0, 0.0, False


_MACHINE = _Machine()


def _others_running() -> int:
    """Runnable threads of other processes now: the kernel's count (``/proc/loadavg``)
    minus this process's own (its OpenBLAS threads spin for a while after each GEMM)."""
    with open("/proc/loadavg") as f:
        running = int(f.read().split()[3].split("/")[0])
    own = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/stat") as f:
                own += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except OSError:
            pass
    return max(running - own, 0)


def busy() -> bool:
    """Whether other processes hold so many cores that a parallel region or an OpenBLAS
    thread team would wait for one (half the cores or more, on average over the last
    samples, taken at most every 50 ms; Linux only).  Then every kernel and GEMM of a
    call runs on one thread: waiting for a core some other process holds made steps 2-3x
    slower (digits MLP 830 -> 330 steps/s next to one busy process)."""
    now, m = time.monotonic(), _MACHINE
    if now - m.sampled > 0.05:
        m.sampled = now
        try:
            others = _others_running()
        except (OSError, ValueError, IndexError):
            return False
        m.others = 0.5 * m.others + 0.5 * others
        limit = max(1.0, _NCPU / 2) - 0.3  # entering; leaving at 0.3 below that
        m.busy = m.others >= limit - (0.3 if m.busy else 0.0)
    return m.busy


class Tiered:
    """A plan of the ``fast_compile`` level (``o1``): it runs on the reference interpreter
    (no compile at all, as Theano's FAST_COMPILE ran Python implementations) until the
    C module, compiled in a background thread, is ready, and on the module from then on.
    A missing compiler raises at once; a failed compile raises at the next call, and the
    call after that compiles again in the foreground (so a compiler fixed meanwhile is
    used; changed flags make a new plan anyway)."""

    __slots__ = ("interp", "prog", "module", "source", "future", "program")

    def __init__(self, trace: Trace, prog: IRProgram, module: Module, source: str):
        opts = settings()
        require_compiler(opts[0])
        self.interp = numpy_backend.compile(trace)
        self.prog, self.module, self.source, self.program = prog, module, source, None
        self.future = COMPILES.submit(load, source, opts)

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if self.program is None:
            if self.future is None:  # the background compile failed
                lib = load(self.source)
            elif not self.future.done():
                return self.interp.run(inputs)
            else:
                future, self.future = self.future, None
                lib = future.result()
            self.program = Program(self.prog, self.module, lib, self.source)
        return self.program.run(inputs)


class _Compiles:
    """The background compiles of ``fast_compile`` plans: a pool of two threads, made
    on first use."""

    def __init__(self):
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, fn, *args) -> Future:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lazyjit-cc")
            return self._pool.submit(fn, *args)

    def wait(self) -> None:
        """Wait for the compiles running now (the next one starts a new pool)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


COMPILES = _Compiles()


def compile(trace: Trace) -> "Program | Tiered":  # noqa: A001 - the backend interface name
    prog, module, source = _build(trace, target())
    if config.optimizer == "o1" and not is_cached(source, settings()):
        return Tiered(trace, prog, module, source)
    return Program(prog, module, load(source), source)


def time_candidate(n: Node, name: str) -> float:
    """Seconds that convolution implementation ``name`` takes on node ``n``'s shapes (the
    best of a few runs of a one-kernel plan on random inputs): the timer of the
    ``time_once`` policy (:mod:`lazyjit.backends.algorithms`)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s.shape).astype(s.dtype) for s in n.src]
    leaves = tuple(Node.leaf(a, site=False) for a in arrays)
    probe = Node.make(n.op, leaves, n.arg, n.shape, n.dtype)
    prog, module, source = _build(collect([probe]), target(forced=name))
    program = Program(prog, module, load(source), source)
    program.run(arrays)
    best, total = math.inf, 0.0
    for _ in range(5):
        start = time.perf_counter()
        program.run(arrays)
        took = time.perf_counter() - start
        best, total = min(best, took), total + took
        if total > 0.2:
            break
    return best
