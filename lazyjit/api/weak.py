"""Weakly typed runtime scalars: a Python ``float`` or ``int`` argument of an ``@lj.jit``
function, as the function sees it while it is traced.

A :class:`WeakScalar` holds a 0-d tensor (a ``param`` of the plan: float64 for a float,
int64 for an int) whose value is passed at each call, and takes part in type promotion
as the Python literal would (NumPy 2's NEP 50, JAX's weak types): ``float32_tensor * lr``
stays float32, ``int32_tensor + n`` stays int32, ``int32_tensor * lr`` is float64.
Arithmetic of weak scalars with each other and with Python numbers gives weak scalars
(``lr * 0.5``, ``-lr``, ``n + 1``; comparisons give a weak bool); with a tensor or a NumPy
value, a tensor.  Its operators are set in :mod:`lazyjit.api.methods`, and
:mod:`lazyjit.api.core` reads it where it reads a Python scalar.

Its value is not known while the function is traced: every use that needs a Python
number (``float()``, ``int()``, ``bool()``, an ``if``, ``range``, an axis, a shape, a
NumPy function) raises a :class:`~lazyjit.errors.LazyjitError` that says to pass the
argument in ``static_argnums`` (or ``static_argnames``), never a made-up value.
"""
from __future__ import annotations

from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError


class WeakScalar:
    """A traced Python scalar (see the module docstring): ``tensor``, the 0-d tensor of
    its value (float64, int64 or bool); ``origin``, what it is, for errors (``"argument
    1 ('lr')"``, or ``"a value computed from ..."``)."""

    __slots__ = ("tensor", "origin")
    __array_ufunc__ = None  # NumPy defers binary operators to us (ndarray * lr)
    py: type = float  # the Python type it stands for
    weak: object = 1.0  # a Python number of that type, for NumPy's promotion rules

    def __init__(self, tensor: Tensor, origin: str):
        self.tensor = tensor
        self.origin = origin

    def _refuse(self, what: str):
        raise LazyjitError(
            f"lj.jit: {self.origin} is a Python {self.py.__name__} traced as a weakly "
            f"typed runtime scalar, whose value is known only at each call; {what} needs "
            "a concrete Python value.  Pass the argument in static_argnums (static_argnames "
            "for a keyword) to bake its value into the trace (one trace per value), or "
            "compute with it as a tensor")

    def __repr__(self) -> str:
        return (f"<traced Python {self.py.__name__}: {self.origin}, known only at each "
                "call (static_argnums makes it a Python value)>")

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            self._refuse(f"formatting it ({spec!r})")
        return repr(self)

    __hash__ = object.__hash__  # by identity, as tensors (== gives a weak bool)


class WeakFloat(WeakScalar):
    __slots__ = ()
    py, weak = float, 1.0


class WeakInt(WeakScalar):
    __slots__ = ()
    py, weak = int, 1


class WeakBool(WeakScalar):
    """A comparison of weak scalars (``lr > 0.1``): usable in ``lj.where``, not in ``if``."""
    __slots__ = ()
    py, weak = bool, True


_BY_KIND = {"f": WeakFloat, "i": WeakInt, "u": WeakInt, "b": WeakBool}


def weak_of(t: Tensor, origin: str) -> "WeakScalar | Tensor":
    """The 0-d tensor ``t`` (computed from weak scalars and Python numbers only) as a weak
    scalar of the Python type of its dtype's kind; ``t`` itself for another kind."""
    cls = _BY_KIND.get(t.dtype.kind)
    return t if cls is None else cls(t, origin)


def derived(*operands) -> str:
    """``origin`` of a value computed from ``operands`` (the weak scalars among them)."""
    names = [x.origin.removeprefix("a value computed from ") for x in operands
             if isinstance(x, WeakScalar)]
    return "a value computed from " + " and ".join(dict.fromkeys(names))


def _refusing(what: str):
    def refuse(self, *args):
        self._refuse(what)
    refuse.__name__ = what
    return refuse


# every use that would make a Python number of it
for _name, _what in {
        "__bool__": "its truth value (an if, and, or, not, a while)",
        "__int__": "int()", "__float__": "float()", "__complex__": "complex()",
        "__index__": "using it as a Python int (an axis, a shape, range, a slice bound)",
        "__iter__": "iterating over it (an axis or a shape, a tuple())",
        "__len__": "len()", "__round__": "round()", "__trunc__": "math.trunc()",
        "__floor__": "math.floor()", "__ceil__": "math.ceil()",
        "__array__": "a NumPy function (np.asarray)", "__divmod__": "divmod()",
        "__rdivmod__": "divmod()"}.items():
    setattr(WeakScalar, _name, _refusing(_what))
