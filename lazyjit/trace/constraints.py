"""What a graph over symbolic sizes assumes of them, checked at each call.

A shape rule that meets an unknown size where it needs a particular one (``x @ W`` with
``x`` of shape ``(x0, x1)`` and ``W`` of shape ``(4, 3)`` needs ``x1 == 4``) does not fail:
it records a :class:`Requirement` and goes on with the size it needs (PyTensor's static
shapes with ``None`` work the same way, checked when the function runs).  A requirement
is recorded in :data:`PENDING` and attached by :meth:`lazyjit.trace.node.Node.make` to
the next node made in this thread whose shape, argument or operands' shapes mention one
of its symbols (the node that assumes it; never a constant every graph shares);
:func:`gather` collects those of a graph and :func:`check` tests them against the sizes
of a call, with an error naming the op, the line that built it, the symbol and both
sizes.
"""
from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

from lazyjit.errors import ON_ERROR, IndexBoundsError, LazyjitError, creation_site, format_site
from lazyjit.trace.dims import Dim, Size, dbroadcast, evaluate, sym


class Requirement(NamedTuple):
    """``kind`` of ``a`` and ``b``: ``"eq"`` (``a == b``), ``"bcast"`` (``a == b`` or
    ``a == 1``: ``a`` broadcasts to ``b``), ``"bcast2"`` (``a == b`` or one of them is 1:
    ``broadcast(a, b)`` is their broadcast), ``"le"`` (``a <= b``), ``"divides"`` (``a !=
    0`` and ``b % a == 0``), ``"index"`` (``0 <= a < b``), ``"rindex"`` (``-b <= a <
    0``: an index counted from the end); ``op`` the op whose rule needed it, ``site`` the
    user's line."""
    kind: str
    a: Size
    b: Size
    op: str
    site: tuple


# (thread, requirement, its symbols) recorded and not yet attached: a graph built in
# another thread at the same time must not take them (empty almost always: Node.make
# tests it cheaply)
PENDING: list[tuple[int, Requirement, set]] = []
# an integer 0-d placeholder used as a size (a scan's n_steps) -> the size symbol bound to
# its value at each call
VALUE_SYMBOLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
CHECKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # node -> requirements


_LOCK = threading.Lock()


def value_symbol(node) -> Dim:
    """The size symbol bound to the value of the integer 0-d placeholder ``node`` (made
    once, named after it)."""
    with _LOCK:
        d = VALUE_SYMBOLS.get(node)
        if d is None:
            d = VALUE_SYMBOLS[node] = sym(str(node.arg[2]), unique=True)
    return d


def require(kind: str, a: Size, b: Size, op: str) -> None:
    """Record that the node about to be made assumes ``kind(a, b)`` (see
    :class:`Requirement`)."""
    entry = (threading.get_ident(), Requirement(kind, a, b, op, creation_site()),
             symbols_of((a, b)))
    with _LOCK:
        PENDING.append(entry)


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
    be equal or one of them 1, and the result is :func:`~lazyjit.trace.dims.dbroadcast`
    of them (the other where one is 1: a 0 meeting a 1 is 0).

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
    return dbroadcast(a, b)


def symbols_of(x) -> set:
    """The symbols (identities) of the sizes in ``x``: a size, or tuples of them, or an
    object with sizes in ``n_steps`` (a scan's spec)."""
    out: set = set()
    stack = [x]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is Dim:
            out |= v.symbols()
        elif t is tuple or t is list:
            stack.extend(v)
        elif t is not int and hasattr(v, "n_steps"):
            stack.append(v.n_steps)
    return out


def attach(node, symbols: set) -> None:
    """Attach to ``node`` this thread's pending requirements over any of ``symbols``."""
    got = take(symbols)
    if got:
        with _LOCK:
            CHECKS[node] = tuple(dict.fromkeys(CHECKS.get(node, ()) + got))


def take(symbols: "set | None" = None) -> tuple:
    """This thread's pending requirements over any of ``symbols`` (all of them when
    None), taken (for the node being made)."""
    me = threading.get_ident()
    with _LOCK:
        out = tuple(r for t, r, s in PENDING
                    if t == me and (symbols is None or s & symbols))
        if out:
            PENDING[:] = [e for e in PENDING if e[1] not in out]
    return out


def discard() -> None:
    """Forget this thread's pending requirements (a rule recorded some, then failed; or
    a graph is complete and what it left unattached must not reach another)."""
    if PENDING:
        take()


ON_ERROR.append(discard)  # (every error about bad input: lazyjit.errors.op_error)


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
        return a == b or a == 1 or b == 1
    if r.kind == "le":
        return a <= b
    if r.kind == "index":
        return 0 <= a < b
    if r.kind == "rindex":
        return -b <= a < 0
    return a != 0 and b % a == 0  # divides


_SAID = {"eq": "the size {a} must equal {b}",
         "bcast": "the size {a} must be 1 or {b} (broadcasting)",
         "bcast2": "the sizes {a} and {b} must be equal, or one of them 1 (broadcasting)",
         "le": "the size {a} must be at most {b}", "divides": "the size {a} must divide {b}",
         "index": "the index {a} must be in bounds for an axis of size {b}",
         "rindex": "the index {a} (from the end) must be in bounds for an axis of size {b}"}


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
        try:
            a, b = evaluate(r.a, env), evaluate(r.b, env)
            if _holds(r, a, b):
                continue
        except ZeroDivisionError:  # (a size divided by a size that is 0 here)
            raise LazyjitError(
                f"{r.op}: the size {r.a} or {r.b} divides by a size that is 0 at this call"
                f"\n(the {r.op} was built at)\n{format_site(r.site)}") from None
        said = []
        for d in (r.a, r.b):
            if type(d) is Dim and names:
                said += [f"{names[s]}" for s in d.symbols() if s in names]
        what = f" ({'; '.join(dict.fromkeys(said))})" if said else ""
        shown = ((r.a, a), (r.b, b))
        if r.kind == "le" and r.a == 0:
            said_as = f"the size {r.b} must not be negative (a slice bound, an index)"
        elif r.kind == "le" and r.b == 0:
            said_as = (f"the size {r.a - 1} must be negative (a bound counted from the "
                       "end, as it is at other sizes)")
            shown = ((r.a - 1, a - 1),)
        else:
            said_as = _SAID[r.kind].format(a=r.a, b=r.b)
        now = " and ".join(f"{d} is {v}" for d, v in shown if type(d) is Dim)
        raise (IndexBoundsError if r.kind in ("index", "rindex") else LazyjitError)(
            f"{r.op}: {said_as}, but at this call {now}{what}"
            f"\n(the {r.op} was built at)\n{format_site(r.site)}")
