"""What a graph over symbolic sizes assumes of them, checked at each call.

A shape rule that meets an unknown size where it needs a particular one (``x @ W`` with
``x`` of shape ``(x0, x1)`` and ``W`` of shape ``(4, 3)`` needs ``x1 == 4``) does not fail:
it records a :class:`Requirement` and goes on with the size it needs (PyTensor's static
shapes with ``None`` work the same way, checked when the function runs).  A requirement
is recorded in :data:`PENDING` and attached by :meth:`lazyjit.trace.node.Node.make` to
the next node made, the node whose shape assumes it; :func:`gather` collects those of a
graph and :func:`check` tests them against the sizes of a call, with an error naming the
op, the line that built it, the symbol and both sizes.
"""
from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

from lazyjit.errors import LazyjitError, creation_site, format_site
from lazyjit.trace.dims import Dim, Size, dmax, evaluate


class Requirement(NamedTuple):
    """``kind`` of ``a`` and ``b``: ``"eq"`` (``a == b``), ``"bcast"`` (``a == b`` or
    ``a == 1``: ``a`` broadcasts to ``b``), ``"bcast2"`` (``a == b`` or the smaller is 1:
    ``max(a, b)`` is their broadcast), ``"le"`` (``a <= b``), ``"divides"`` (``b % a ==
    0``); ``op`` the op whose rule needed it, ``site`` the user's line."""
    kind: str
    a: Size
    b: Size
    op: str
    site: tuple


# (thread, requirement) recorded and not yet attached: a graph built in another thread at
# the same time must not take them (empty almost always: Node.make tests it cheaply)
PENDING: list[tuple[int, Requirement]] = []
# an integer 0-d placeholder used as a size (a scan's n_steps) -> the size symbol bound to
# its value at each call
VALUE_SYMBOLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
CHECKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # node -> requirements


_LOCK = threading.Lock()


def require(kind: str, a: Size, b: Size, op: str) -> None:
    """Record that the node about to be made assumes ``kind(a, b)`` (see
    :class:`Requirement`)."""
    PENDING.append((threading.get_ident(), Requirement(kind, a, b, op, creation_site())))


def equal_size(a: Size, b: Size, op: str) -> Size:
    """The size two dimensions that must be equal have: ``a`` when it is ``b``; when one
    is symbolic, the equality is required (and the known one, if any, returned).

    Raises
    ------
    ValueError
        For two different known sizes.
    """
    if a == b:
        return a
    if type(a) is not Dim and type(b) is not Dim:
        raise ValueError(f"sizes {a} and {b} differ")
    require("eq", a, b, op)
    return a if type(b) is Dim else b


def same_shape(a: tuple, b: tuple, op: str) -> bool:
    """Whether shapes ``a`` and ``b`` are equal: False when their ranks or two known sizes
    differ; sizes that may differ only at some symbol values are required equal."""
    if a == b:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x != y and type(x) is not Dim and type(y) is not Dim:
            return False
    for x, y in zip(a, b):
        if x != y:
            require("eq", x, y, op)
    return True


def broadcast_size(a: Size, b: Size, op: str) -> Size:
    """NumPy's broadcast of two sizes, over symbols: a symbol meeting a known size ``k``
    (not 1) must be 1 or ``k`` and the result is ``k``; two different symbolic sizes must
    be equal or one of them 1, and the result is their maximum.

    Raises
    ------
    ValueError
        For two known sizes that do not broadcast.
    """
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    ta, tb = type(a) is Dim, type(b) is Dim
    if not ta and not tb:
        raise ValueError(f"sizes {a} and {b} do not broadcast")
    if not tb:
        require("bcast", a, b, op)
        return b
    if not ta:
        require("bcast", b, a, op)
        return a
    require("bcast2", a, b, op)
    return dmax(a, b)


def take() -> tuple:
    """This thread's pending requirements, taken (for the node being made)."""
    me = threading.get_ident()
    with _LOCK:
        out = tuple(r for t, r in PENDING if t == me)
        PENDING[:] = [e for e in PENDING if e[0] != me]
    return out


def discard() -> None:
    """Forget this thread's pending requirements (a rule recorded some, then failed)."""
    take()


def gather(nodes) -> list[Requirement]:
    """The requirements attached to ``nodes`` (each once)."""
    out: dict = {}
    if CHECKS:
        for n in nodes:
            for r in CHECKS.get(n, ()):
                out[r[:4]] = r
    return list(out.values())


def _holds(r: Requirement, a: int, b: int) -> bool:
    if r.kind == "eq":
        return a == b
    if r.kind == "bcast":
        return a == b or a == 1
    if r.kind == "bcast2":
        return a == b or min(a, b) == 1
    if r.kind == "le":
        return a <= b
    return a != 0 and b % a == 0  # divides


_SAID = {"eq": "the size {a} must equal {b}",
         "bcast": "the size {a} must be 1 or {b} (broadcasting)",
         "bcast2": "the sizes {a} and {b} must be equal, or one of them 1 (broadcasting)",
         "le": "the size {a} must be at most {b}", "divides": "the size {a} must divide {b}"}


def check(requirements, env: dict, names: dict | None = None) -> None:
    """Test ``requirements`` against the symbol values ``env``.

    Raises
    ------
    LazyjitError
        For the first that fails: the op, the sizes as symbols and as numbers, what the
        symbols stand for (``names``: symbol identity -> a description such as
        "dimension 1 of 'x'") and the line that built the op.
    """
    for r in requirements:
        a, b = evaluate(r.a, env), evaluate(r.b, env)
        if _holds(r, a, b):
            continue
        said = []
        for d in (r.a, r.b):
            if type(d) is Dim and names:
                said += [f"{names[s]}" for s in d.symbols() if s in names]
        what = f" ({'; '.join(dict.fromkeys(said))})" if said else ""
        if r.kind == "le" and r.a == 0:
            said_as = f"the size {r.b} must not be negative (a slice bound, an index)"
        else:
            said_as = _SAID[r.kind].format(a=r.a, b=r.b)
        now = " and ".join(f"{d} is {v}" for d, v in ((r.a, a), (r.b, b)) if type(d) is Dim)
        raise LazyjitError(
            f"{r.op}: {said_as}, but at this call {now}{what}"
            f"\n(the {r.op} was built at)\n{format_site(r.site)}")
