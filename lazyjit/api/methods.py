"""Operators and NumPy-style methods of :class:`~lazyjit.api.tensor.Tensor`, and the
operators of :class:`~lazyjit.api.weak.WeakScalar` (a traced Python scalar).

Each is a thin alias of a function in :mod:`lazyjit.api.functions`, so the semantics are
defined once.
"""
from __future__ import annotations

import numpy as np

import lazyjit.api.core as core
import lazyjit.api.functions as F
import lazyjit.api.indexing as indexing
import lazyjit.api.sorting as sorting
import lazyjit.api.ufuncs as ufuncs
from lazyjit.api.tensor import Tensor, check_device
from lazyjit.api.weak import WeakScalar, derived, weak_of
from lazyjit.speedups import NATIVE


def _binop(fn, reflected=False):
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


_BINARY = {
    "add": F.add, "sub": F.subtract, "mul": F.multiply, "truediv": F.true_divide,
    "floordiv": F.floor_divide, "mod": F.remainder, "pow": F.power, "matmul": F.matmul,
    "and": F.bitwise_and, "or": F.bitwise_or, "xor": F.bitwise_xor,
    "lshift": F.left_shift, "rshift": F.right_shift,
}
_COMPARISONS = {"eq": F.equal, "ne": F.not_equal, "lt": F.less, "le": F.less_equal,
                "gt": F.greater, "ge": F.greater_equal}
# the operators whose function is ``core.elementwise(name, a, b)`` itself (marked there):
# eager code's ``x * 2 + 1`` tries elementwise's fast paths in C first (the same steps)
_ELEMENTWISE = {op: fn.elementwise for op, fn in {**_BINARY, **_COMPARISONS}.items()
                if hasattr(fn, "elementwise")}


def _fast_binop(name: str, fn, reflected=False):
    """:func:`_binop`, trying ``lazyjit._speedups.elementwise2`` (core.elementwise's fast
    paths for two operands) first; where they do not apply, ``fn``.  (The callable
    ``lazyjit._speedups.Operator`` takes the same steps in C, with no Python frame.)"""
    ew = NATIVE.elementwise2
    if reflected:
        def rop(self, other):
            out = ew(name, other, self)
            return fn(other, self) if out is None else out
        return rop

    def op(self, other):
        out = ew(name, self, other)
        return fn(self, other) if out is None else out
    return op


def _operator(op: str, fn, reflected=False, python=False):
    """The Tensor method of the binary operator ``op`` (``add`` for ``__add__``): the
    C ``Operator`` unless ``python`` (or the extension is missing)."""
    if NATIVE is None or python:
        return _binop(fn, reflected) if NATIVE is None or op not in _ELEMENTWISE else \
            _fast_binop(_ELEMENTWISE[op], fn, reflected)
    method = NATIVE.Operator(_ELEMENTWISE.get(op), fn, reflected)
    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    method.__qualname__ = f"Tensor.{method.__name__}"
    method.__doc__ = f"``{'other, self' if reflected else 'self, other'}``: " \
                     f"lazyjit.{getattr(fn, '__name__', op)}."
    return method


if NATIVE is not None:
    NATIVE.elementwise_init(Tensor, core._SAME_TYPE_OUT, core._SCALAR_OUT, core._CONSTS)
for _name, _fn in _BINARY.items():
    setattr(Tensor, f"__{_name}__", _operator(_name, _fn))
    setattr(Tensor, f"__r{_name}__", _operator(_name, _fn, reflected=True))
Tensor.__pow__ = _binop(F.power_operator)  # (NumPy's ndarray.__pow__: x ** 2, x ** 0.5)

for _name, _fn in _COMPARISONS.items():
    setattr(Tensor, f"__{_name}__", _operator(_name, _fn))


def _weak_binop(fn, reflected=False):
    """A weak scalar's operator: a weak scalar when the other operand is one or a Python
    number (``lr * 0.5``), else the tensor ``fn`` gives (``lr * x``, ``lr * np.float32``)."""
    def op(self, other):
        if other is None or isinstance(other, str):  # (lr == None: False, not an error)
            return NotImplemented
        out = fn(other, self) if reflected else fn(self, other)
        if isinstance(other, (WeakScalar, bool, int, float)) and \
                not isinstance(other, np.generic):
            return weak_of(out, derived(self, other))
        return out
    return op


for _name, _fn in _BINARY.items():
    if _name != "matmul":
        setattr(WeakScalar, f"__{_name}__", _weak_binop(_fn))
        setattr(WeakScalar, f"__r{_name}__", _weak_binop(_fn, reflected=True))
for _name, _fn in _COMPARISONS.items():
    setattr(WeakScalar, f"__{_name}__", _weak_binop(_fn))
for _name, _fn in {"neg": F.negative, "abs": F.absolute, "invert": F.invert}.items():
    setattr(WeakScalar, f"__{_name}__",
            lambda self, fn=_fn: weak_of(fn(self), derived(self)))
WeakScalar.__pos__ = lambda self: self

Tensor.__neg__ = F.negative  # (functions of one tensor, bound as methods)
Tensor.__pos__ = F.positive  # (a bool is a TypeError, as NumPy's)
Tensor.__abs__ = F.absolute
Tensor.__invert__ = F.invert
Tensor.__getitem__ = indexing.getitem
Tensor.__hash__ = object.__hash__

_METHODS = {
    "sum": F.sum, "mean": F.mean, "max": F.max, "min": F.min, "prod": F.prod,
    "argmax": F.argmax, "argmin": F.argmin, "var": F.var, "std": F.std, "any": F.any,
    "all": F.all, "swapaxes": F.swapaxes, "squeeze": F.squeeze, "astype": F.astype,
    "flatten": F.ravel, "ravel": F.ravel, "clip": F.clip, "exp": F.exp, "log": F.log,
    "sqrt": F.sqrt, "tanh": F.tanh, "sigmoid": F.sigmoid, "relu": F.relu, "abs": F.absolute,
    "take": F.take, "dot": F.dot, "expand_dims": F.expand_dims, "sin": F.sin, "cos": F.cos,
    "broadcast_to": F.broadcast_to, "conj": ufuncs.conj_method,
    "conjugate": ufuncs.conj_method,
    "trace": F.trace, "diagonal": F.diagonal, "cumsum": sorting.cumsum,
    "cumprod": sorting.cumprod, "argsort": sorting.argsort, "copy": F.copy,
    "nonzero": F.nonzero, "repeat": F.repeat,
}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)


def _reshape(self, *shape):
    return F.reshape(self, shape[0] if len(shape) == 1 else shape)


def _transpose(self, *axes):
    if not axes:
        return F.transpose(self)
    return F.transpose(self, axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes)


Tensor.reshape = _reshape
Tensor.transpose = _transpose
Tensor.T = property(lambda self: F.transpose(self))
Tensor.real = property(F.real)  # (NumPy's: the real and imaginary parts, as tensors)
Tensor.imag = property(F.imag)
Tensor.mT = property(lambda self: F.swapaxes(self, -1, -2))
Tensor.at = property(lambda self: indexing._At(self))


def _to_device(self, device, /, *, stream=None) -> Tensor:
    """The Array API's ``to_device``: this tensor, on the one device it can be on now
    (``device`` must be the ``backend`` flag's: see :func:`lazyjit.tensor`)."""
    check_device(device, "to_device")
    return self


Tensor.to_device = _to_device
# (no ``sort`` method: NumPy's sorts in place and returns None; lj.sort returns a tensor)
Tensor.itemsize = property(lambda self: self.dtype.itemsize)
Tensor.nbytes = property(lambda self: self.size * self.dtype.itemsize)
Tensor.__round__ = lambda self, ndigits=None: F.round(self, ndigits or 0)


def _contains(self, value) -> bool:
    """``value in t``, as NumPy's: ``(t == value).any()`` (computes it)."""
    return bool(F.any(F.equal(self, value)))


Tensor.__contains__ = _contains
