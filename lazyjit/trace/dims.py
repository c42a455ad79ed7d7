"""Symbolic sizes: integer expressions over named dimension symbols (issue 13).

A size is an ``int`` or a :class:`Dim`, an expression over symbols (:func:`sym`) built
with ``+ - *``, floor division and modulo (Python's semantics), :func:`ceildiv`,
:func:`dmax` and :func:`dmin`, as tinygrad's symbolic ``Variable`` and JAX's shape
polymorphism have them.  Every result is simplified to a canonical form: a sum of
integer multiples of products of atoms (symbols, and the quotients, remainders, maxima
and minima that do not simplify) plus a constant, so that equal expressions built two
ways compare and hash equal (``n * 2 // 2 == n``); an expression whose value does not
depend on any symbol is returned as a plain ``int``.  Symbols stand for sizes: integers
``>= 0``.

:meth:`Dim.evaluate` computes the exact value for given symbol values.  A comparison
that does not have one answer for every value of its symbols (``n > 3``), and turning a
``Dim`` into a Python number (``int(n)``, ``float(n)``, ``bool(n)``), raise
:class:`InconclusiveDimension` (JAX's "inconclusive comparison"): never a guessed number.
"""
from __future__ import annotations

import itertools
import math
import numbers
import sys
import threading
from typing import Union

from lazyjit.errors import LazyjitError, is_internal

Size = Union[int, "Dim"]


class InconclusiveDimension(LazyjitError, TypeError):
    """A question about a symbolic size whose answer depends on the symbols' values; the
    message ends with the user's line, and names the lazyjit function called there when
    the question was asked inside it."""

    def __init__(self, message: str):
        super().__init__(message + _asked_at(sys._getframe(1)))


def _asked_at(frame) -> str:
    """The user's line where the frames from ``frame`` outward leave lazyjit, and, when
    a lazyjit function called there asked the question, its name (it cannot take such a
    size)."""
    entry = None
    while frame is not None and is_internal(frame.f_code):
        if frame.f_code.co_filename != __file__:
            entry = frame.f_code.co_name
        frame = frame.f_back
    if frame is None:
        return ""
    code = frame.f_code
    where = f'\n  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}'
    if entry is None or entry.startswith("_"):
        return where
    return (f"\n(asked inside lazyjit's {entry}, which needs this size as a number when "
            "the graph is built: make the size known (a static argument, a placeholder's "
            "shape); under lj.jit, dynamic=True is what makes it unknown: plain lj.jit "
            "traces each size)" + where)


class UnboundSize(LazyjitError, KeyError):
    """A symbolic size evaluated without a value for one of its symbols."""

    def __str__(self) -> str:
        return self.args[0]


# --- atoms: the irreducible factors of a term ---------------------------------------------

class _Atom:
    __slots__ = ("key", "order")

    def __init__(self, key: tuple):
        self.key = key
        self.order: "str | None" = None  # (its sort key in canonical forms: _order)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Atom) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: "_Atom") -> bool:  # (a fixed order: canonical forms)
        return _order(self) < _order(other)


class _Sym(_Atom):
    """A symbol: ``key`` is ``("sym", ident)``, ``ident`` its identity (the key of its
    value in an environment), ``name`` how it prints."""
    __slots__ = ("name",)

    def __init__(self, name: str, ident):
        super().__init__(("sym", ident))
        self.name = name

    def value(self, env: dict) -> int:
        try:
            return int(env[self.key[1]])
        except KeyError:
            raise UnboundSize(f"the size {self.name} is not known here: no input of this "
                              "function has a dimension of that size") from None

    def bounds(self) -> tuple[float, float]:
        return 0, math.inf

    def text(self) -> str:
        return self.name


class _Op(_Atom):
    """``a // b``, ``a % b``, ``max(a, b)``, ``min(a, b)`` or ``broadcast(a, b)`` that
    does not simplify."""
    __slots__ = ()

    def __init__(self, op: str, a: Size, b: Size):
        super().__init__((op, a, b))

    def value(self, env: dict) -> int:
        op, a, b = self.key
        x, y = _value(a, env), _value(b, env)
        return {"//": lambda: x // y, "%": lambda: x % y, "max": lambda: max(x, y),
                "min": lambda: min(x, y), "bcast": lambda: y if x == 1 else x}[op]()

    def bounds(self) -> tuple[float, float]:
        op, a, b = self.key
        (alo, ahi), (blo, bhi) = _bounds(a), _bounds(b)
        if op == "max":
            return max(alo, blo), max(ahi, bhi)
        if op == "min":
            return min(alo, blo), min(ahi, bhi)
        if op == "bcast":
            return min(alo, blo), max(ahi, bhi)
        if blo < 1:  # (a divisor known >= 1 only: sizes and what lowering builds)
            return -math.inf, math.inf
        if op == "%":
            return 0, bhi - 1
        if isinstance(b, int):
            return _floor(alo, b), _floor(ahi, b)
        return (0, ahi) if alo >= 0 else (-math.inf, math.inf)

    def text(self) -> str:
        op, a, b = self.key
        if op in ("max", "min", "bcast"):
            return f"{'broadcast' if op == 'bcast' else op}({_text(a)}, {_text(b)})"
        return f"{_text(a, True)} {op} {_text(b, True)}"


# --- the expression -----------------------------------------------------------------------

class Dim:
    """A symbolic size: ``const + sum(coeff * product(atoms))`` in canonical form (see the
    module docstring).  Immutable and hashable; use it wherever a size may be symbolic."""

    __slots__ = ("terms", "const", "_hash")

    def __init__(self, terms: dict, const: int):
        # terms: {tuple of sorted atoms (a monomial): nonzero coefficient}
        self.terms = tuple(sorted(terms.items(), key=lambda t: [_order(a) for a in t[0]]))
        self.const = const
        self._hash = hash((self.terms, const))

    # -- construction ---
    @staticmethod
    def make(terms: dict, const: int) -> Size:
        terms = {m: c for m, c in terms.items() if c}
        return const if not terms else Dim(terms, const)

    def _parts(self) -> tuple[dict, int]:
        return dict(self.terms), self.const

    # -- arithmetic (with ints and sizes; others: NotImplemented, so that a tensor's
    # reflected operator runs: n * x is x's) ---
    def __add__(self, other) -> Size:
        return _add(self, other, 1) if _size_like(other, self, "+") else NotImplemented

    __radd__ = __add__

    def __sub__(self, other) -> Size:
        return _add(self, other, -1) if _size_like(other, self, "-") else NotImplemented

    def __rsub__(self, other) -> Size:
        return _add(other, self, -1) if _size_like(other, self, "-") else NotImplemented

    def __neg__(self) -> Size:
        return _add(0, self, -1)

    def __mul__(self, other) -> Size:
        return _mul(self, other) if _size_like(other, self, "*") else NotImplemented

    __rmul__ = __mul__

    def __floordiv__(self, other) -> Size:
        return _floordiv(self, other) if _size_like(other, self, "//") else NotImplemented

    def __rfloordiv__(self, other) -> Size:
        return _floordiv(other, self) if _size_like(other, self, "//") else NotImplemented

    def __mod__(self, other) -> Size:
        return _mod(self, other) if _size_like(other, self, "%") else NotImplemented

    def __rmod__(self, other) -> Size:
        return _mod(other, self) if _size_like(other, self, "%") else NotImplemented

    def __truediv__(self, other):
        if _size_like(other, self, "/"):
            self._no_number("float ('/' of sizes is a float; '//' keeps a size)")
        return NotImplemented

    def __rtruediv__(self, other):
        if _size_like(other, self, "/"):
            self._no_number("float ('/' of sizes is a float; '//' keeps a size)")
        return NotImplemented

    def __pow__(self, other):
        if type(other) is int and other >= 0:
            out = 1
            for _ in range(other):
                out = out * self
            return out
        if isinstance(other, (int, float)):  # n ** 0.5, n ** -1: a float, no size
            self._no_number(f"float (** {other!r} of a size)")
        return NotImplemented

    def __abs__(self) -> Size:
        if _bounds(self)[0] >= 0:
            return self
        return dmax(self, -self)

    def __round__(self, ndigits=None):
        self._no_number("rounded")

    def __divmod__(self, other):
        return self // other, self % other

    def _no_bits(self, *args):
        self._no_number("bitwise")

    __lshift__ = __rshift__ = __and__ = __or__ = __xor__ = __invert__ = _no_bits
    __rlshift__ = __rrshift__ = __rand__ = __ror__ = __rxor__ = _no_bits

    # -- comparisons: structural equality; order only where it has one answer ---
    def __eq__(self, other) -> bool:
        """Equal as expressions (the same size at every value of the symbols).  In the
        user's code, a size that is neither the same nor different at every value
        (``n == 4``, ``x0 == y0``) raises :class:`InconclusiveDimension` (an ``if`` on it
        would pick a branch for one size only); lazyjit's own code compares
        structurally (dict keys, shape rules that record requirements)."""
        return self._equal(other, "==", sys._getframe(1).f_code)

    def __ne__(self, other) -> bool:
        eq = self._equal(other, "!=", sys._getframe(1).f_code)
        return eq if eq is NotImplemented else not eq

    def _equal(self, other, op: str, caller) -> bool:
        t = type(other)
        if t is Dim:
            if self.terms == other.terms and self.const == other.const:
                return True
        elif t is not int:
            if not isinstance(other, numbers.Integral) or isinstance(other, bool):
                return NotImplemented
            other = int(other)
        if is_internal(caller):
            return False
        lo, hi = _bounds(self - other)
        if lo > 0 or hi < 0:
            return False
        raise InconclusiveDimension(
            f"the comparison {self} {op} {_text(other)} depends on the sizes, known only when "
            "the function is called (lj.jit traces each size where its Python compares a "
            "size; lj.where and lj.ifelse choose at run time)")

    def __hash__(self) -> int:
        if not is_internal(sys._getframe(1).f_code):  # a key in the user's dict or set:
            self._no_number("hashable")  # {1: a, 4: b}.get(n) would miss silently
        return self._hash

    def __lt__(self, other) -> bool:
        return _decide(other - self, 1, f"{self} < {_text(other)}")

    def __le__(self, other) -> bool:
        return _decide(other - self, 0, f"{self} <= {_text(other)}")

    def __gt__(self, other) -> bool:
        return _decide(self - other, 1, f"{self} > {_text(other)}")

    def __ge__(self, other) -> bool:
        return _decide(self - other, 0, f"{self} >= {_text(other)}")

    # -- never a silent number ---
    def _no_number(self, what: str):
        raise InconclusiveDimension(
            f"the size {self} is known only when the function is called: it has no {what} "
            "value here.  Use it in lazyjit operations (it becomes a lazy integer), or make "
            "the size known (a shape given to the placeholder, a static argument)")

    def __bool__(self) -> bool:
        self._no_number("truth")

    def __int__(self) -> int:
        self._no_number("int")

    def __index__(self) -> int:
        self._no_number("int")

    def __array__(self, dtype=None, copy=None):
        self._no_number("NumPy")

    def __float__(self) -> float:
        self._no_number("float")

    # -- inspection ---
    def evaluate(self, env: dict) -> int:
        """The exact value for symbol values ``env`` (``{name: int}``).

        Raises
        ------
        UnboundSize
            A symbol of the expression has no value in ``env`` (a ``KeyError``).
        """
        total = self.const
        for mono, coeff in self.terms:
            p = coeff
            for a in mono:
                p *= a.value(env)
            total += p
        return total

    def bounds(self) -> tuple[float, float]:
        """``(lo, hi)``: bounds of the value over every value of the symbols (sizes
        ``>= 0``), infinite where unknown."""
        return _bounds(self)

    def symbols(self) -> set[str]:
        """The identities (:func:`ident`) of the symbols the expression depends on."""
        out: set[str] = set()
        stack: list = [self]
        while stack:
            d = stack.pop()
            if isinstance(d, Dim):
                for mono, _ in d.terms:
                    for a in mono:
                        if isinstance(a, _Sym):
                            out.add(a.key[1])  # (its ident)
                        else:
                            stack.extend(a.key[1:])
        return out

    def __str__(self) -> str:
        if getattr(TEXT, "strict", 0) and not is_internal(sys._getframe(1).f_code):
            self._no_number("text (in a trace over sizes lj.jit made itself: str() of a "
                            "size is its symbol's name, not its number)")
        return repr(self)

    def __format__(self, spec: str) -> str:
        if getattr(TEXT, "strict", 0) and not is_internal(sys._getframe(1).f_code):
            self._no_number("text (in a trace over sizes lj.jit made itself: f'{n}' of a "
                            "size is its symbol's name, not its number)")
        return format(repr(self), spec)

    def __repr__(self) -> str:
        terms = sorted(self.terms, key=lambda t: t[1] < 0)  # (stable: positive first)
        lead_negative = terms[0][1] < 0 and self.const <= 0  # printed first, with "-"
        parts = []
        for k, (mono, coeff) in enumerate(terms):
            alone = len(mono) == 1 and abs(coeff) == 1  # (no product to group against)
            grouped = not alone or (k == 0 and lead_negative)  # -(n // 2), not -n // 2
            body = " * ".join(a.text() if isinstance(a, _Sym) or a.key[0] in _CALLS
                              or not grouped else f"({a.text()})" for a in mono)
            parts.append((coeff, body))
        if self.const:
            parts.append((self.const, ""))
        parts.sort(key=lambda p: p[0] < 0)  # (stable: positive terms first)
        out = ""
        for i, (c, body) in enumerate(parts):
            sign = "-" if c < 0 else "+"
            mag = abs(c)
            item = body if mag == 1 and body else (f"{mag}*{body}" if body else str(mag))
            out += (("-" if sign == "-" else "") + item) if i == 0 else f" {sign} {item}"
        return out


# --- the operations, on ints and Dims alike --------------------------------------------------

def _size_like(other, d: "Dim", op: str) -> bool:
    """Whether ``other`` combines with the size ``d`` into a size (an int or a size);
    a float raises (a size with a float is no size, and has no value before a call)."""
    t = type(other)
    if t is Dim or t is int:
        return True
    if t is float:
        raise InconclusiveDimension(
            f"{d} {op} {other!r}: the size {d} is known only when the function is called, "
            "and a float made from it has no value here.  Compute with tensors instead "
            "(x * (1.5 / lj.tensor(n)), x / n)")
    return isinstance(other, numbers.Integral) and t is not bool

def _parts(x: Size) -> tuple[dict, int]:
    if isinstance(x, Dim):
        return x._parts()
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"a size is an int or a symbolic size, not {type(x).__name__}")
    return {}, int(x)


def _add(a: Size, b: Size, sign: int) -> Size:
    ta, ca = _parts(a)
    tb, cb = _parts(b)
    for m, c in tb.items():
        ta[m] = ta.get(m, 0) + sign * c
    return Dim.make(ta, ca + sign * cb)


def _mul(a: Size, b: Size) -> Size:
    ta, ca = _parts(a)
    tb, cb = _parts(b)
    out: dict = {}
    for m, c in ta.items():
        out[m] = out.get(m, 0) + c * cb
    for m, c in tb.items():
        out[m] = out.get(m, 0) + c * ca
    for ma, xa in ta.items():
        for mb, xb in tb.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + xa * xb
    return Dim.make(out, ca * cb)


def _split(a: Size, k: int) -> tuple[Size, Size]:
    """``a = k * q + r`` with ``r``'s coefficients and constant in ``[0, k)``."""
    ta, ca = _parts(a)
    q = Dim.make({m: c // k for m, c in ta.items()}, ca // k)
    r = Dim.make({m: c % k for m, c in ta.items()}, ca % k)
    return q, r


def _floordiv(a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    if isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError(f"size {a} divided by 0")
        if b < 0:
            return _floordiv(-a, -b)
        q, r = _split(a, b)
        lo, hi = _bounds(r)
        if 0 <= lo and hi < b:  # (0 <= r < b: it adds nothing to the quotient)
            return q
        return q + Dim.make({(_Op("//", r, b),): 1}, 0)
    if a == b:
        return 1
    return Dim.make({(_Op("//", a, b),): 1}, 0)


def _mod(a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return a % b
    if isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError(f"size {a} modulo 0")
        if b < 0:
            return -_mod(-a, -b)
        _, r = _split(a, b)
        if isinstance(r, int):
            return r % b
        return Dim.make({(_Op("%", r, b),): 1}, 0)
    if a == b:
        return 0
    return Dim.make({(_Op("%", a, b),): 1}, 0)


def ceildiv(a: Size, b: Size) -> Size:
    """``ceil(a / b)`` for sizes (``-((-a) // b)``)."""
    return -_floordiv(-a, b)


def _extreme(op: str, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b) if op == "max" else min(a, b)
    lo, hi = _bounds(a - b)
    if lo >= 0:  # a >= b for every value of the symbols
        return a if op == "max" else b
    if hi <= 0:
        return b if op == "max" else a
    x, y = sorted((a, b), key=lambda d: repr(exact_key(d)))
    return Dim.make({(_Op(op, x, y),): 1}, 0)


_CALLS = ("max", "min", "bcast")  # atoms printed as function calls


def dbroadcast(a: Size, b: Size) -> Size:
    """The broadcast of sizes ``a`` and ``b`` that are equal or one of which is 1
    (NumPy's rule): ``b`` where ``a`` is 1, else ``a``."""
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if isinstance(a, int) and isinstance(b, int):
        raise ValueError(f"sizes {a} and {b} do not broadcast")
    x, y = sorted((a, b), key=lambda d: repr(exact_key(d)))
    return Dim.make({(_Op("bcast", x, y),): 1}, 0)


def dmax(a: Size, b: Size) -> Size:
    """``max(a, b)`` for sizes."""
    return _extreme("max", a, b)


def dmin(a: Size, b: Size) -> Size:
    """``min(a, b)`` for sizes."""
    return _extreme("min", a, b)


_fresh = itertools.count()
# strict > 0 while this thread runs a jitted function over symbols lj.jit chose itself
# (automatic dynamic shapes): the user's str() or format() of a size raises there, since
# the code expects a number (the trace is then made at each size instead)
TEXT = threading.local()


def sym(name: str, unique: bool = False) -> Dim:
    """The size symbol ``name`` (a size ``>= 0`` known only at each call).  Symbols of
    one name are one symbol, unless ``unique``: then a new symbol that prints as
    ``name`` (a placeholder's own dimension: two placeholders named ``x`` have
    different sizes).  An environment (:meth:`Dim.evaluate`) maps :func:`ident` of a
    symbol to its value."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a size symbol is named by a string, not {name!r}")
    return Dim({(_Sym(name, (name, next(_fresh)) if unique else name),): 1}, 0)


def axis_symbol(name: str, k: int) -> "Dim":
    """A new symbol for dimension ``k`` of the input ``name``: ``x0`` for ``x``, ``h0_1``
    for ``h0`` (a unique symbol that prints so)."""
    return sym(f"{name}{'_' if name[-1:].isdigit() else ''}{k}", unique=True)


def ident(d: "Dim"):
    """The identity of the symbol ``d`` (its key in an environment), or None when ``d``
    is not a bare symbol (an int, or an expression)."""
    if isinstance(d, Dim) and not d.const and len(d.terms) == 1:
        (mono, coeff), = d.terms
        if coeff == 1 and len(mono) == 1 and isinstance(mono[0], _Sym):
            return mono[0].key[1]
    return None


def is_symbolic(shape) -> bool:
    """Whether a shape (a tuple of sizes) has a symbolic size."""
    for d in shape:
        if type(d) is Dim:
            return True
    return False


# --- bounds and decisions ------------------------------------------------------------------

def _floor(x: float, k: int) -> float:
    return x if math.isinf(x) else x // k


def _imul(a: tuple, b: tuple) -> tuple[float, float]:
    """The interval of products of two intervals (ends may be infinite)."""
    products = [0 if 0 in (x, y) else x * y for x in a for y in b]
    return min(products), max(products)


def _bounds(x: Size) -> tuple[float, float]:
    """Bounds ``(lo, hi)`` of ``x`` over every value of its symbols (sizes ``>= 0``);
    infinite where unknown (interval arithmetic over the canonical form)."""
    if isinstance(x, int):
        return x, x
    lo = hi = x.const
    for mono, coeff in x.terms:
        interval = (coeff, coeff)
        for a in mono:
            interval = _imul(interval, a.bounds())
        lo, hi = lo + interval[0], hi + interval[1]
    return lo, hi


def _decide(diff: Size, least: int, what: str) -> bool:
    """Whether ``diff >= least`` for every value of the symbols (True), for none (False),
    or neither (raise)."""
    lo, hi = _bounds(diff)
    if lo >= least:
        return True
    if hi < least:
        return False
    raise InconclusiveDimension(f"the comparison {what} depends on the sizes, known only "
                                "when the function is called (lj.where and lj.ifelse choose "
                                "at run time; min and max of sizes: lj.dims.dmin, dmax)")


def _value(x: Size, env: dict) -> int:
    return x if isinstance(x, int) else x.evaluate(env)


def _text(x: Size, group: bool = False) -> str:
    s = repr(x)
    return f"({s})" if group and isinstance(x, Dim) and ident(x) is None else s


def extreme_of(d: Size) -> "tuple | None":
    """``("max" or "min", a, b)`` when ``d`` is exactly ``max(a, b)`` or ``min(a, b)``."""
    if type(d) is Dim and not d.const and len(d.terms) == 1:
        (mono, coeff), = d.terms
        if coeff == 1 and len(mono) == 1 and mono[0].key[0] in ("max", "min"):
            return mono[0].key
    return None


def _order(a: _Atom) -> str:
    """The sort key of an atom in canonical forms: exact (symbols by identity, not by
    the names they print), so that equal expressions always have one form."""
    if a.order is None:
        a.order = repr(_atom_key(a))
    return a.order


def _atom_key(a: _Atom) -> tuple:
    if isinstance(a, _Sym):
        return ("sym", repr(a.key[1]))
    op, x, y = a.key
    return (op, exact_key(x), exact_key(y))


def exact_key(x):
    """``x`` (a size, or tuples and lists holding sizes) with each symbolic size replaced
    by nested tuples of strings and ints that identify it exactly (its symbols by
    identity, not by the name it prints): for digests (``marshal``) of graphs."""
    t = type(x)
    if t is Dim:
        return ("dim", tuple((tuple(_atom_key(a) for a in mono), c) for mono, c in x.terms),
                x.const)
    if t is tuple or t is list:
        return tuple(exact_key(v) for v in x)
    return x


def evaluate(x: Size, env: dict) -> int:
    """The value of size ``x`` (an int or a :class:`Dim`) for symbol values ``env``."""
    return _value(x, env)
