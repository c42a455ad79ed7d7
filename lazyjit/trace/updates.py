"""The updates of shared variables a trace records (a ``@lj.jit`` function's, a scan
step's, an ``lj.cond`` branch's), applied after the call (the step, the branch taken).
In a jit trace, reading a variable after an ``assign`` gives the value assigned, as in
eager code (:attr:`lazyjit.trace.state.TraceState.views`).  In a scan step, a read
gives the variable's value at the step's start, also after an ``assign`` (Theano's scan
updates): a second assign of one variable computed from such a read would silently drop
the first (``v.assign(v + 1); v.assign(v * 10)`` gives ``v * 10``, where eager code
gives ``(v + 1) * 10``): it raises where the read is a node made after the first
assign (:func:`check_second_assign`); a read that hash-consing finds among the nodes
made before (``v.assign(v + 1); v.assign(v + 1)``) is not told apart from a value kept
in a local, which chains rightly, so that case still drops the first assign.  A loop in
a trace starts its variables from the values the trace gave them so far
(:func:`pending`).
"""
from __future__ import annotations

from lazyjit.errors import op_error
from lazyjit.trace.graph import reachable
from lazyjit.trace.node import Node, next_seq
from lazyjit.trace.state import STATE


class UpdateFrame(dict):
    """The updates one trace records, ``{variable: new value}``; ``marks`` keeps, for
    each variable, the creation number at its first assign and the node that reading
    the variable gives in this trace."""

    __slots__ = ("marks",)

    def __init__(self):
        super().__init__()
        self.marks: dict = {}


def recording() -> "dict | None":
    """The innermost record of updates being traced in this thread (a scan step's, else
    a jit function's: :class:`lazyjit.trace.state.TraceState`), or None in eager code."""
    state = STATE
    stack = state.scan_recording if state.scan_depth else state.recording
    return stack[-1] if stack else None


def pending(sv):
    """``sv``'s value as the code being traced sees it: its update recorded so far in the
    innermost trace (two random draws in one step read the counter the first advanced),
    else the variable itself."""
    frame = recording()
    return frame.get(sv, sv) if frame is not None else sv


def check_second_assign(frame: dict, sv, value: Node) -> None:
    """Record ``sv``'s assign of ``value`` in ``frame`` (an :class:`UpdateFrame`; other
    frames are not checked); raise if an earlier assign of ``sv`` in this trace would be
    lost to a value computed from a read of ``sv`` made after it.  (A node that
    hash-consing finds again, made before that assign, is not seen.)"""
    if type(frame) is not UpdateFrame:
        return
    mark = frame.marks.get(sv)
    if mark is None:
        frame.marks[sv] = (next_seq(), sv.node)
        return
    seq, read = mark
    late = reachable([value], lambda n: n.src if n.seq > seq else ())
    if any(n.seq > seq and read in n.src for n in late):
        raise op_error("assign", f"shared variable {sv.name or ''} is assigned twice in "
                       "one scan step, the second time a value computed from a read of it "
                       "made after the first assign: in a step that read gives the value "
                       "from the step's start (the assigns apply after it), "
                       "so the first assign would be lost, where eager code chains them; "
                       "compute the final value in one expression, or from the first value "
                       "kept in a local", (sv.node, value))
