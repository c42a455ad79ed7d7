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

import math
from typing import Union

Size = Union[int, "Dim"]


class InconclusiveDimension(TypeError):
    """A question about a symbolic size whose answer depends on the symbols' values."""


# --- atoms: the irreducible factors of a term ---------------------------------------------

class _Atom:
    __slots__ = ("key",)

    def __init__(self, key: tuple):
        self.key = key

    def __eq__(self, other) -> bool:
        return isinstance(other, _Atom) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: "_Atom") -> bool:  # (a fixed order: canonical forms)
        return repr(self.key) < repr(other.key)


class _Sym(_Atom):
    __slots__ = ()

    def __init__(self, name: str):
        super().__init__(("sym", name))

    def value(self, env: dict) -> int:
        try:
            return int(env[self.key[1]])
        except KeyError:
            raise KeyError(f"no value for the size symbol {self.key[1]!r}") from None

    def bounds(self) -> tuple[float, float]:
        return 0, math.inf

    def text(self) -> str:
        return self.key[1]


class _Op(_Atom):
    """``a // b``, ``a % b``, ``max(a, b)`` or ``min(a, b)`` that does not simplify."""
    __slots__ = ()

    def __init__(self, op: str, a: Size, b: Size):
        super().__init__((op, a, b))

    def value(self, env: dict) -> int:
        op, a, b = self.key
        x, y = _value(a, env), _value(b, env)
        return {"//": lambda: x // y, "%": lambda: x % y, "max": lambda: max(x, y),
                "min": lambda: min(x, y)}[op]()

    def bounds(self) -> tuple[float, float]:
        op, a, b = self.key
        (alo, ahi), (blo, bhi) = _bounds(a), _bounds(b)
        if op == "max":
            return max(alo, blo), max(ahi, bhi)
        if op == "min":
            return min(alo, blo), min(ahi, bhi)
        if blo < 1:  # (a divisor known >= 1 only: sizes and what lowering builds)
            return -math.inf, math.inf
        if op == "%":
            return 0, bhi - 1
        if isinstance(b, int):
            return _floor(alo, b), _floor(ahi, b)
        return (0, ahi) if alo >= 0 else (-math.inf, math.inf)

    def text(self) -> str:
        op, a, b = self.key
        if op in ("max", "min"):
            return f"{op}({_text(a)}, {_text(b)})"
        return f"{_text(a, True)} {op} {_text(b, True)}"


# --- the expression -----------------------------------------------------------------------

class Dim:
    """A symbolic size: ``const + sum(coeff * product(atoms))`` in canonical form (see the
    module docstring).  Immutable and hashable; use it wherever a size may be symbolic."""

    __slots__ = ("terms", "const", "_hash")

    def __init__(self, terms: dict, const: int):
        # terms: {tuple of sorted atoms (a monomial): nonzero coefficient}
        self.terms = tuple(sorted(terms.items(), key=lambda t: [repr(a.key) for a in t[0]]))
        self.const = const
        self._hash = hash((self.terms, const))

    # -- construction ---
    @staticmethod
    def make(terms: dict, const: int) -> Size:
        terms = {m: c for m, c in terms.items() if c}
        return const if not terms else Dim(terms, const)

    def _parts(self) -> tuple[dict, int]:
        return dict(self.terms), self.const

    # -- arithmetic ---
    def __add__(self, other) -> Size:
        return _add(self, other, 1)

    __radd__ = __add__

    def __sub__(self, other) -> Size:
        return _add(self, other, -1)

    def __rsub__(self, other) -> Size:
        return _add(other, self, -1)

    def __neg__(self) -> Size:
        return _add(0, self, -1)

    def __mul__(self, other) -> Size:
        return _mul(self, other)

    __rmul__ = __mul__

    def __floordiv__(self, other) -> Size:
        return _floordiv(self, other)

    def __rfloordiv__(self, other) -> Size:
        return _floordiv(other, self)

    def __mod__(self, other) -> Size:
        return _mod(self, other)

    def __rmod__(self, other) -> Size:
        return _mod(other, self)

    # -- comparisons: structural equality; order only where it has one answer ---
    def __eq__(self, other) -> bool:
        return isinstance(other, Dim) and self.terms == other.terms and self.const == other.const

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
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

    def __float__(self) -> float:
        self._no_number("float")

    # -- inspection ---
    def evaluate(self, env: dict) -> int:
        """The exact value for symbol values ``env`` (``{name: int}``).

        Raises
        ------
        KeyError
            A symbol of the expression has no value in ``env``.
        """
        total = self.const
        for mono, coeff in self.terms:
            p = coeff
            for a in mono:
                p *= a.value(env)
            total += p
        return total

    def symbols(self) -> set[str]:
        """The names of the symbols the expression depends on."""
        out: set[str] = set()
        stack: list = [self]
        while stack:
            d = stack.pop()
            if isinstance(d, Dim):
                for mono, _ in d.terms:
                    for a in mono:
                        if isinstance(a, _Sym):
                            out.add(a.key[1])
                        else:
                            stack.extend(a.key[1:])
        return out

    def __repr__(self) -> str:
        parts = []
        for mono, coeff in self.terms:
            body = " * ".join(a.text() if isinstance(a, _Sym) or a.key[0] in ("max", "min")
                              else f"({a.text()})" for a in mono)
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

def _parts(x: Size) -> tuple[dict, int]:
    if isinstance(x, Dim):
        return x._parts()
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"a size is an int or a symbolic size, not {type(x).__name__}")
    return {}, x


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
    x, y = sorted((a, b), key=repr)
    return Dim.make({(_Op(op, x, y),): 1}, 0)


def dmax(a: Size, b: Size) -> Size:
    """``max(a, b)`` for sizes."""
    return _extreme("max", a, b)


def dmin(a: Size, b: Size) -> Size:
    """``min(a, b)`` for sizes."""
    return _extreme("min", a, b)


def sym(name: str) -> Dim:
    """The size symbol ``name`` (a size ``>= 0`` known only at each call)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a size symbol is named by an identifier, not {name!r}")
    return Dim({(_Sym(name),): 1}, 0)


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
                                "when the function is called")


def _value(x: Size, env: dict) -> int:
    return x if isinstance(x, int) else x.evaluate(env)


def _text(x: Size, group: bool = False) -> str:
    s = repr(x)
    return f"({s})" if group and isinstance(x, Dim) and (len(x.terms) > 1 or x.const) else s


def evaluate(x: Size, env: dict) -> int:
    """The value of size ``x`` (an int or a :class:`Dim`) for symbol values ``env``."""
    return _value(x, env)
