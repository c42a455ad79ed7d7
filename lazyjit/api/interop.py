"""Tensors inside NumPy code: NumPy's ufuncs and functions called on tensors
(``__array_ufunc__``, ``__array_function__``: NEP 13 and NEP 18) and ``format``.

``np.exp(t)``, ``ndarray * t``, ``np.add.reduce(t, 0)``, ``np.mean(t, axis=1)`` and
``np.concatenate([t, t])`` run lazyjit's function of the same name and return a lazy
tensor, differentiable as any other.  A NumPy ufunc or function lazyjit does not have
(``np.gcd``, ``np.polyfit``, ...), or a call with arguments lazyjit's function does not
take (a ufunc's ``where=`` or ``dtype=``), runs NumPy on the tensors' values and returns
what NumPy returns, each numeric array as a tensor holding it that records the tensors
it was computed from: a gradient through it raises (naming the function and the line)
instead of taking the value as a constant.
``out=`` is an error, and so are NumPy's in-place functions (``np.put``, ``np.copyto``,
...) writing into a tensor: tensors are immutable.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import threading

import numpy as np

import lazyjit.api.functions as F
import lazyjit.api.fft as fft
import lazyjit.api.linalg as linalg
import lazyjit.api.sorting as sorting
from lazyjit.api.tensor import Tensor, leaf_tensor
from lazyjit.errors import op_error
from lazyjit.ops import SUPPORTED_DTYPES
from lazyjit.trace.node import from_numpy


# lazyjit functions whose name is a NumPy ufunc's but whose meaning differs on some
# dtypes (lj.reciprocal of integers is float; np.reciprocal's truncates)
_NOT_THE_UFUNC = frozenset(("reciprocal",))


def _ufunc_table() -> dict:
    """NumPy ufunc -> lazyjit's function of the same name (``np.divide`` ->
    ``lj.divide``), for the ufuncs lazyjit has."""
    table = {}
    for uf in vars(np).values():  # (not dir(np): getattr would import np.testing, np.f2py
        # and np.ma, 60 ms, for their names)
        if isinstance(uf, np.ufunc) and uf.__name__ in F.__all__ and \
                uf.__name__ not in _NOT_THE_UFUNC:
            table[uf] = getattr(F, uf.__name__)
    return table


_UFUNCS = _ufunc_table()
# ufunc.reduce -> the reduction it is (axis=0 by default, as ufunc.reduce's)
_REDUCTIONS = {np.add: F.sum, np.multiply: F.prod, np.maximum: F.max, np.minimum: F.min,
               np.logical_and: F.all, np.logical_or: F.any}
# ufunc.accumulate -> the scan it is (axis=0 by default)
_ACCUMULATIONS = {np.add: sorting.cumsum, np.multiply: sorting.cumprod}
# NumPy functions that write into their array argument: tensors are immutable
_IN_PLACE = frozenset(("put", "place", "putmask", "copyto", "fill_diagonal", "put_along_axis"))


# NumPy functions (NEP 18) -> lazyjit's function of the same name
_FUNCTIONS = {getattr(np, name): getattr(F, name) for name in F.__all__
              if callable(getattr(np, name, None)) and name not in _IN_PLACE
              and not isinstance(getattr(np, name), (np.ufunc, type))}
_FUNCTIONS.update({getattr(np, name): getattr(sorting, name)  # (lj.sort, lj.cumsum, ...)
                   for name in ("sort", "argsort", "cumsum", "cumprod", "cumulative_sum",
                                "cumulative_prod")
                   if hasattr(np, name)})
for _sub, _ours in ((np.linalg, linalg), (np.fft, fft)):  # (np.linalg.solve(t, b), np.fft.fft(t))
    _FUNCTIONS.update({getattr(_sub, name): getattr(_ours, name) for name in _ours.__all__
                       if callable(getattr(_sub, name, None))
                       and not isinstance(getattr(_sub, name), type)})


# what NumPy reads off an array's metadata: answered without computing the tensor
_METADATA = {np.shape: lambda t: tuple(t.shape), np.ndim: lambda t: t.ndim,
             np.size: lambda t: t.size}


def _each(x, fn):
    """``x`` with ``fn(t)`` for every tensor ``t`` in it (in lists, tuples and dicts'
    values too)."""
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_each(v, fn) for v in x)
    if isinstance(x, dict):
        return {k: _each(v, fn) for k, v in x.items()}
    return x


def _values(x):
    """``x`` with every tensor in it replaced by its value."""
    return _each(x, Tensor.numpy)


_CALLS = itertools.count()  # (each NumPy call's values are its own: never hash-consed)


def _from_numpy(name: str, result, given):
    """NumPy's ``result`` of ``name`` run on the values of the tensors in ``given``: each
    numeric array in it (a tuple's or list's too) as a tensor holding that value, which
    records the tensors it was computed from (:func:`lazyjit.trace.node.from_numpy`): a
    derivative that would go through it raises, naming the call, instead of taking the
    value as a constant.  Anything else (a bool, a string) is returned as it is."""
    srcs: dict = {}
    _each(given, lambda t: srcs.setdefault(t.node))
    srcs = tuple(srcs)

    def wrap(r):
        if isinstance(r, (np.ndarray, np.generic)) and \
                r.dtype.newbyteorder("=") in SUPPORTED_DTYPES:
            t = leaf_tensor(r, where=name)
            from_numpy(t.node, name, next(_CALLS), srcs)
            return t
        if type(r) in (tuple, list):
            return type(r)(wrap(v) for v in r)
        if isinstance(r, tuple) and hasattr(r, "_make"):  # (a named tuple)
            return r._make(wrap(v) for v in r)
        return r
    return wrap(result)


def _no_out(name: str, kwargs: dict) -> None:
    if kwargs.get("out") is not None:
        raise op_error(name, "out= asks NumPy to write into an array; lazyjit tensors are "
                       "immutable: use the returned value (y = np.exp(x), not "
                       "np.exp(x, out=y))", cls=TypeError)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: a NumPy ufunc called with a tensor among its operands."""
    _no_out(ufunc.__name__, kwargs)
    if method == "at":
        raise op_error(ufunc.__name__, f"np.{ufunc.__name__}.at writes into its first "
                       "argument; lazyjit tensors are immutable: use lj.inc_subtensor or "
                       "x.at[idx].add(v), which return the new tensor", cls=TypeError)
    kwargs.pop("out", None)
    if method == "__call__" and not kwargs and ufunc in _UFUNCS:
        return _UFUNCS[ufunc](*inputs)
    if ufunc is np.reciprocal and method == "__call__" and not kwargs and \
            np.result_type(*_each(inputs, lambda t: t.dtype)).kind in "fc":
        return F.reciprocal(*inputs)  # (lj.reciprocal's meaning for floats)
    if method == "reduce" and ufunc in _REDUCTIONS and len(inputs) == 1 and \
            set(kwargs) <= {"axis", "keepdims"}:
        return _REDUCTIONS[ufunc](inputs[0], axis=kwargs.get("axis", 0),
                                  keepdims=kwargs.get("keepdims", False))
    if method == "accumulate" and ufunc in _ACCUMULATIONS and len(inputs) == 1 and \
            set(kwargs) <= {"axis", "dtype"}:
        return _ACCUMULATIONS[ufunc](inputs[0], axis=kwargs.get("axis", 0),
                                     dtype=kwargs.get("dtype"))
    result = getattr(ufunc, method)(*_values(inputs),
                                    **{k: _values(v) for k, v in kwargs.items()})
    return _from_numpy(ufunc.__name__ if method == "__call__" else
                       f"{ufunc.__name__}.{method}", result, (inputs, kwargs))


_signature = functools.lru_cache(maxsize=None)(inspect.signature)  # (per function, once)


def _as_lazyjit_call(func, mine, args: tuple, kwargs: dict) -> tuple | None:
    """``(args, kwargs)`` for lazyjit's ``mine`` meaning what ``args`` and ``kwargs``
    mean to NumPy's ``func``, or None when ``mine`` does not take them all.  Arguments
    are matched by NumPy's parameter names (a positional ``dtype`` of ``np.sum`` is not
    lazyjit's ``keepdims``); NumPy's leading parameters whose names lazyjit spells
    otherwise (``a``, ``arrays``) go by position."""
    try:
        theirs = _signature(func)
        bound = theirs.bind(*args, **kwargs)
    except (TypeError, ValueError):  # (no signature: bind to lazyjit's)
        try:
            _signature(mine).bind(*args, **kwargs)
        except TypeError:
            return None
        return args, kwargs
    params = _signature(mine).parameters
    order = list(theirs.parameters)
    pos, named = [], {}
    star = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in theirs.parameters.values())
    for name, value in bound.arguments.items():
        kind = theirs.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:  # (np.meshgrid(*xi): each its own)
            if named:
                return None
            pos.extend(value)
            continue
        if star and kind in (inspect.Parameter.POSITIONAL_ONLY,
                             inspect.Parameter.POSITIONAL_OR_KEYWORD):
            pos.append(value)  # (before *args: by position, np.gradient(f, *varargs))
            continue
        if kind is inspect.Parameter.VAR_KEYWORD:
            if set(value) & set(named):
                return None
            named.update(value)
            continue
        if name not in params and value is theirs.parameters[name].default:
            continue  # (NumPy's default given explicitly: np.mean(x, 1, None, None, True))
        if name in params and params[name].kind != inspect.Parameter.POSITIONAL_ONLY:
            named[name] = value
        elif not named and len(pos) < len(params) and order.index(name) == len(pos):
            pos.append(value)  # (at its own position: np.sum's initial= is not an axis)
        else:
            return None
    try:
        _signature(mine).bind(*pos, **named)
    except TypeError:
        return None
    return tuple(pos), named


_ACTIVE = threading.local()  # the NumPy functions being answered by lazyjit's, per thread


def array_function(self, func, types, args, kwargs):
    """NEP 18: a NumPy function called with a tensor among its arguments."""
    _no_out(func.__name__, kwargs)
    if func.__name__ in _IN_PLACE and args and isinstance(args[0], Tensor):
        raise op_error(func.__name__, f"np.{func.__name__} writes into its array argument; "
                       "lazyjit tensors are immutable: use lj.set_subtensor, lj.put or "
                       "x.at[idx].set(v), which return the new tensor", cls=TypeError)
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if func in _METADATA and len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
        return _METADATA[func](args[0])
    if func is np.result_type:
        return np.result_type(*_each(args, lambda t: t.dtype))
    if func is np.einsum and args and isinstance(args[0], str) and set(kwargs) <= {"optimize"}:
        return F.einsum(*args)  # (optimize= chooses NumPy's contraction order only)
    mine = _FUNCTIONS.get(func)
    active = getattr(_ACTIVE, "funcs", None)
    if active is None:
        active = _ACTIVE.funcs = set()
    call = None if mine is None or func in active else _as_lazyjit_call(func, mine, args,
                                                                         kwargs)
    if call is None:  # (also when lazyjit's own function calls NumPy's on a tensor)
        result = func(*_values(args), **{k: _values(v) for k, v in kwargs.items()})
        return _from_numpy(func.__name__, result, (args, kwargs))
    active.add(func)
    try:
        return mine(*call[0], **call[1])
    finally:
        active.discard(func)


def tensor_format(self, spec: str) -> str:
    """``format(t, spec)``: ``str(t)`` for an empty ``spec``; a 0-d tensor's value
    formatted as a Python number (``f"{loss:.3f}"``); any other spec on a tensor with
    more than one element is a ``TypeError``, as for NumPy arrays."""
    if not spec:
        return str(self)
    if self.ndim == 0:
        return format(self.item(), spec)
    raise TypeError(f"unsupported format string {spec!r} for a tensor of shape {self.shape} "
                    "(only 0-d tensors take a format spec, as NumPy arrays)")


Tensor.__array_ufunc__ = array_ufunc
Tensor.__array_function__ = array_function
Tensor.__format__ = tensor_format
Tensor.round = F.round
