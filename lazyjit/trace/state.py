"""The state of tracing: one per thread, and one for the process.

Tracing a function (``@lj.jit``, ``lj.scan``'s step), rewriting a graph and building a
plan keep a little state while they run: the assignments of shared variables recorded
so far, how deep in scan bodies the code is, the rewrite in progress.  Each thread has
its own (:data:`STATE`, a ``threading.local``), so that two threads tracing at once never
see each other's: an update recorded by one trace is never taken by another.
:data:`UPDATING` is the one lock that orders updates of shared variables across threads.
:data:`CONTEXT` holds what the whole process shares (the jit epoch, a cached key), and
the engine's entry points that the layers below it call (computing a value).
"""
from __future__ import annotations

import contextlib
import os
import threading
from collections import Counter
from typing import Any, Callable

# Held by every call that updates shared variables, for its whole run (so such calls run
# one at a time, none lost, and an update written in place into a variable's memory is
# never seen half done), and held while any computation takes the arrays of the values
# it reads (then it holds them: an update sees that and does not write over them).
UPDATING = threading.RLock()
# A fork waits for the update another thread is making: the child never starts with the
# lock held by a thread it does not have (its first realize would wait forever) nor with
# variables half updated.  (Any other lock a fork holds is taken after this one, in the
# order every thread takes them: lazyjit.backends.cpu.codecache.)
os.register_at_fork(before=UPDATING.acquire, after_in_parent=UPDATING.release,
                    after_in_child=UPDATING.release)


# traces being recorded now in all threads (a jit function's, a scan step's, an lj.cond
# branch's): while it is 0, a jitted call needs not read its thread's TraceState to know
# that it is not inside one (lazyjit.engine.jit's fast path)
ACTIVE = [0]
_ACTIVE_LOCK = threading.Lock()


@contextlib.contextmanager
def recording_trace():
    """Count a trace being recorded in this thread for as long as the block runs."""
    with _ACTIVE_LOCK:
        ACTIVE[0] += 1
    try:
        yield
    finally:
        with _ACTIVE_LOCK:
            ACTIVE[0] -= 1


def in_trace() -> bool:
    """Whether this thread records a trace now (a jit function's, a scan step's, an
    ``lj.cond`` branch's); ``ACTIVE[0] and in_trace()`` on hot paths."""
    return bool(STATE.recording or STATE.scan_depth)


class BranchFrame(dict):
    """The record of an ``lj.cond`` branch being traced (``{shared variable: value}``),
    started as a copy of the enclosing record: a frame of :attr:`TraceState.recording`
    that, unlike a jit trace's, does not mean the values read will change per call."""


def tracing_jit(stack: list) -> bool:
    """Whether a record stack holds an ``lj.jit`` trace's (not only ``lj.cond``s')."""
    return any(type(frame) is not BranchFrame for frame in stack)


class TraceState(threading.local):
    """Per-thread state of tracing, rewriting and planning (fresh in each thread).

    Attributes
    ----------
    recording : stack of ``{shared variable: new value}``, one per ``@lj.jit`` trace in
        progress (the innermost last).
    scan_recording : the same for the ``lj.scan`` step functions being traced.
    views : stack of ``{shared variable: tensor}``, the values reading a shared variable
        gives in the code being traced (the innermost last; one absent reads its own
        value): a jit trace's and an ``lj.cond`` branch's records, so that a read after
        an ``assign`` gives the assigned value, as in eager code; a scan step's rows of
        the variables it assigns (their values at that step).
    scan_depth : nesting depth of the scan step being traced (0 outside any).
    generic_sizes : plans are being built for sizes that vary from call to call
        (``lj.function`` over placeholders of unknown sizes): a backend then makes no
        choice of code structure from this trace's sizes.
    rewrite_keep : the running rewrite's ``(nodes kept as inputs, through values)``.
    rewrite_uses : the running rewrite's count of consumers per node.
    rewrite_last : counts of the rules applied by the last rewrite (for the plan built
        from it).
    rewrite_pending : counts of rewrites of costs before ``lj.grad`` expanded them, added
        to the next rewrite's.
    keep : while a function is differentiated (``lj.grad(fn)``, ``lj.vjp``, ...), the
        graphs that computed the values it read (see
        :func:`lazyjit.trace.through.keeping_read_values`).
    """

    def __init__(self) -> None:
        self.recording: list[dict] = []
        self.scan_recording: list[dict] = []
        self.views: list[dict] = []
        self.scan_depth = 0
        self.generic_sizes = False
        self.rewrite_keep: tuple = (frozenset(), False)
        self.rewrite_uses: dict = {}
        self.rewrite_last: Counter = Counter()
        self.rewrite_pending: Counter = Counter()
        self.keep: list[list] = []  # lists that hold the graphs of values read meanwhile


STATE = TraceState()


def _not_ready(*args: Any) -> Any:
    raise RuntimeError("lazyjit's engine is not loaded: import lazyjit")


class Context:
    """Process-wide state of tracing, and the engine's entry points (one instance).

    Attributes
    ----------
    epoch : bumped by ``lj.invalidate_traces``: part of every jitted function's cache
        keys (so every thread's functions trace again).
    backend_key : ``(config version, key)``: the flags that change a plan, cached for
        the flags last in effect (a tuple, read and replaced at once).
    placeholders : how many ``lj.function`` placeholders this process created (while
        none, no graph walk looks for them).
    realize : ``realize(*tensors)``, computing tensors (a value read by ``repr``,
        ``bool``, ``.numpy()``): the one call up the layers, set by
        :mod:`lazyjit.engine.realize` when lazyjit is imported.
    body_plan : ``body_plan(spec, backend)``, a loop body compiled by a backend (the
        NumPy reference of ``scan`` runs its body with it), set there too.
    """

    __slots__ = ("epoch", "backend_key", "placeholders", "realize", "body_plan")

    def __init__(self) -> None:
        self.epoch = 0
        self.backend_key: tuple = (None, None)
        self.placeholders = 0
        self.realize: Callable[..., None] = _not_ready
        self.body_plan: Callable[[Any, str], Any] = _not_ready


CONTEXT = Context()
