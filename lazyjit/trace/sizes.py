"""Sizes unknown until a call: the stand-in numbers of ``lj.function``'s placeholders.

A placeholder's dimension of unknown size stands as a *sentinel*, a large prime that no
real size is (:func:`unknown_dim`); :mod:`lazyjit.engine.replay` rebuilds a graph at the
real sizes of each call.  In the user's code, such a size is an :class:`UnknownSize`
that refuses every use that would turn it into a Python number (issue 13 replaces all
this with symbolic sizes).
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from lazyjit.errors import UNKNOWN, LazyjitError, op_error
from lazyjit.trace.node import Node


def _primes() -> list[int]:
    """64 primes in ``[2**30, 2**31)``, at ``2**30 * (1 + frac(k * golden ratio))``: far
    from each other and from small rational multiples of each other (``3 * P1`` is
    never within a few thousand of ``2 * P2``), and far from the constants people write
    (``1e6``, ``-1e9``); products of two stay below ``2**62``."""
    out = []
    for k in range(1, 65):
        n = int(2**30 * (1 + (k * 0.6180339887498949) % 1)) | 1
        while any(n % d == 0 for d in range(3, math.isqrt(n) + 1, 2)):
            n += 2
        out.append(n)
    return out


_SENTINELS = _primes()
FLOOR = 2**29    # numbers below this are never sizes computed from sentinels
_MAX_COEF = 2**22  # nor are numbers a * P + b with |a| above this (a: known sizes)
_MAX_OFFSET = 4096  # nor with |b| above this (b: x[:-1], ddof, taps)
_EPS = {4: 2.5e-7, 8: 1e-15}  # a float constant's relative rounding, by its itemsize
_BY_NAME: dict[str, int] = {}   # a named unknown dimension -> its sentinel


def unknown_dim(name: str) -> int:
    """The sentinel size standing for the unknown dimension ``name`` (one per name, so
    that dimensions with one name must be equal at each call)."""
    s = _BY_NAME.get(name)
    if s is None:
        if len(_BY_NAME) == len(_SENTINELS):
            raise LazyjitError(f"too many named unknown dimensions (at most "
                               f"{len(_SENTINELS)})")
        s = _BY_NAME[name] = _SENTINELS[len(_BY_NAME)]
        UNKNOWN[s] = name
    return s


def has_unknown(shape: tuple) -> bool:
    return any(d in UNKNOWN for d in shape)


class UnknownSize:
    """A size of a dimension unknown until a call (``x.shape[0]`` of an ``lj.function``
    placeholder), as the user's code sees it while the graph is built.

    Sums, differences and products with ints (and other unknown sizes) are unknown sizes
    too, which lazyjit's functions take as shapes, slice bounds, indices, step counts
    and scalar operands, and recompute at each call's sizes.  Every use that would make a
    Python number of it (``int``, ``float``, ``bool``, ``//``, ``/``, ``%``, ``**``, ``<``,
    ``min``, ``range``, NumPy functions) raises a ``LazyjitError`` at that line: its
    stand-in value (a large prime, see :func:`unknown_dim`) is never a right answer.
    ``==`` is true for the same size and raises when the answer depends on the call.

    ``poly`` is the size as a polynomial in the unknown dimensions (``{monomial:
    coefficient}``, a monomial a sorted tuple of stand-ins, ``()`` the constant), or None
    for a size learned from the graph (a strided slice's length).  Until sizes are
    symbolic, a call recomputes only sizes of the form ``a * m + b`` (one monomial ``m``
    of at most three dimensions, ``|a| <= 2**22``, ``|b| <= 4096``): others are refused
    where they are used (:func:`exact`, :func:`plain`).
    """

    __slots__ = ("value", "text", "poly")

    def __init__(self, value: int, text: str, poly: dict | None):
        self.value, self.text, self.poly = value, text, poly

    def _refuse(self, what: str):
        raise op_error(
            "size", f"{self.text} is the size of a dimension known only at each call of an "
            f"lj.function; {what} would compute with a stand-in number, not the size.  "
            "Compute with tensors instead (lj.tensor(n) is a 0-d tensor holding the size "
            "at each call: lj.sqrt(lj.tensor(n, 'float32')), lj.tensor(n) // 2), or "
            "declare the dimension's size in the placeholder")

    def _combine(self, other, op, sym: str, reflected: bool = False):
        if type(other) is UnknownSize:
            v, text, poly = other.value, other.text, other.poly
        elif isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
            v, text, poly = int(other), str(int(other)), {(): int(other)}
        elif isinstance(other, (float, np.floating, complex)):
            self._refuse(f"'{sym}' with the float {other!r}")
        else:
            return NotImplemented
        a, b = (v, self.value) if reflected else (self.value, v)
        ta, tb = (text, self.text) if reflected else (self.text, text)
        pa, pb = (poly, self.poly) if reflected else (self.poly, poly)
        out = op(a, b)
        if out == 0:
            return 0
        new = None if pa is None or pb is None else \
            _poly_mul(pa, pb) if sym == "*" else _poly_add(pa, pb, -1 if sym == "-" else 1)
        return UnknownSize(out, f"({ta} {sym} {tb})", new)

    def __add__(self, o):
        return self._combine(o, lambda a, b: a + b, "+")

    def __radd__(self, o):
        return self._combine(o, lambda a, b: a + b, "+", True)

    def __sub__(self, o):
        return self._combine(o, lambda a, b: a - b, "-")

    def __rsub__(self, o):
        return self._combine(o, lambda a, b: a - b, "-", True)

    def __mul__(self, o):
        return self._combine(o, lambda a, b: a * b, "*")

    def __rmul__(self, o):
        return self._combine(o, lambda a, b: a * b, "*", True)

    def __neg__(self):
        poly = None if self.poly is None else {m: -c for m, c in self.poly.items()}
        return UnknownSize(-self.value, f"-{self.text}", poly)

    def __pos__(self):
        return self

    def __eq__(self, o):
        if type(o) is UnknownSize and o.value == self.value:
            return True
        if type(o) is UnknownSize or isinstance(o, (int, float, np.number)):
            self._refuse("'==' (whether it equals another size)")
        return NotImplemented

    def __ne__(self, o):
        eq = self.__eq__(o)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return self.text

    def followed(self) -> bool:
        """Whether a call can recompute this size (see the class docstring)."""
        if self.poly is None:
            return False
        terms = [(m, c) for m, c in self.poly.items() if m and c]
        if len(terms) != 1:
            return False
        (mono, coef), = terms
        return len(mono) <= 3 and abs(coef) <= _MAX_COEF and \
            abs(self.poly.get((), 0)) <= _MAX_OFFSET


def _poly_add(a: dict, b: dict, sign: int) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
    return out


def _poly_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return out


def _refusing(what: str):
    def refuse(self, *args):
        self._refuse(what)
    return refuse


# every use that would make a Python number of an unknown size
for _name, _what in {
        "__lt__": "'<' (a comparison)", "__le__": "'<=' (a comparison)",
        "__gt__": "'>' (a comparison)", "__ge__": "'>=' (a comparison)",
        "__bool__": "its truth value", "__int__": "int()", "__float__": "float()",
        "__index__": "using it as a Python int (range, an index, a NumPy shape)",
        "__complex__": "complex()", "__abs__": "abs()", "__round__": "round()",
        "__array__": "a NumPy function", "__truediv__": "'/'", "__rtruediv__": "'/'",
        "__floordiv__": "'//'", "__rfloordiv__": "'//'", "__mod__": "'%'",
        "__rmod__": "'%'", "__divmod__": "divmod()", "__rdivmod__": "divmod()",
        "__pow__": "'**'", "__rpow__": "'**'"}.items():
    setattr(UnknownSize, _name, _refusing(_what))


def user_size(d: int) -> "int | UnknownSize":
    """``d`` as user code sees it: an :class:`UnknownSize` when it is a placeholder's
    unknown size or a size computed from them (FLOOR or more), else the int."""
    if d < FLOOR:
        return d
    if d in UNKNOWN:
        return UnknownSize(d, UNKNOWN[d], {(d,): 1})
    return UnknownSize(d, "a size computed from unknown sizes", None)


# nodes holding a number made of unknown sizes (lj.tensor(n), a size as a scalar operand):
# the text of the size, for the error when such a value is asked for before a call
SIZE_VALUES: "weakref.WeakKeyDictionary[Node, str]" = weakref.WeakKeyDictionary()


def size_dependence(nodes) -> "str | None":
    """The unknown size (its text) that one of ``nodes`` holds a number of, if any."""
    if not SIZE_VALUES:
        return None
    for n in nodes:
        text = SIZE_VALUES.get(n)
        if text is not None:
            return text
    return None


def plain(v):
    """The number an :class:`UnknownSize` stands for as a size (a shape, a slice bound,
    an index, a step count), recomputed at each call; ``v`` itself for anything else.

    Raises
    ------
    LazyjitError
        For a polynomial a call cannot recompute (``n + m`` of two unknown sizes,
        ``n * 10**7``, ``n + 5000``: see :class:`UnknownSize`).
    """
    if type(v) is not UnknownSize:
        return v
    if v.poly is not None and not v.followed():
        v._refuse("a size of this form (a sum of two unknown sizes, a product of more "
                  "than three, a coefficient above 2**22 or an offset above 4096)")
    return v.value


def exact(v: UnknownSize) -> int:
    """The number ``v`` stands for as a value (a scalar operand, ``lj.tensor(n)``),
    recomputed exactly at each call.

    Raises
    ------
    LazyjitError
        For a size a call cannot recompute exactly: a polynomial of another form, or a
        size learned from the graph (a strided slice's length).
    """
    if not v.followed():
        v._refuse("using it as a value (this size is not one a call recomputes: a size of "
                  "a strided slice or a window, a sum of two unknown sizes, ...)")
    return v.value


