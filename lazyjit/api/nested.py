"""Arrays from nested sequences that hold lazy values: ``lj.tensor([a, b])``,
``lj.asarray([[x, 1.0], [2.0, y]])`` where ``a``, ``x``... are tensors, traced Python
scalars or symbolic sizes.

NumPy reads nested lists into one array (``np.array``'s nesting rules: every level
rectangular, the dtype that of all items together).  A lazy item has no value NumPy
can read without computing it, and a computed copy would cut the graph (no derivative
would reach ``a``; under ``lj.jit`` there is no value at all), so such a sequence is
built in the graph instead: each level is a stack of its items, as ``jnp.asarray`` of
traced values is in JAX.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from lazyjit.api.tensor import Tensor, check_dtype
from lazyjit.api.weak import WeakScalar
from lazyjit.errors import describe, op_error
from lazyjit.ops import apply
from lazyjit.trace.constraints import same_shape
from lazyjit.trace.dims import Dim

_NUMBERS = frozenset((float, int, bool, complex))


def holds_lazy(data: list | tuple) -> bool:
    """Whether the nested lists and tuples ``data`` hold a tensor, a traced Python scalar
    or a symbolic size (a plain list of Python numbers is decided at C speed)."""
    if set(map(type, data)) <= _NUMBERS:
        return False
    for d in data:
        if isinstance(d, (list, tuple)):
            if holds_lazy(d):
                return True
        elif _lazy(d):
            return True
    return False


def _lazy(d) -> bool:
    """Whether ``d`` is a value NumPy cannot read: a tensor, a traced Python scalar or a
    symbolic size."""
    return isinstance(d, (Tensor, WeakScalar)) or type(d) is Dim


def from_nested(data: list | tuple, dtype: Any, item: Callable[[Any], Tensor],
                where: str) -> Tensor:
    """The tensor ``np.array(data, dtype)`` would give, built in the graph: ``item``
    makes each non-sequence item a tensor (a Python number a tensor of NumPy's default
    dtype for it, as ``np.array`` reads it); the result's dtype is ``dtype``, else NumPy's
    result type of all items' dtypes.

    Raises
    ------
    LazyjitError
        Where the nesting is not rectangular (items of one level of different shapes,
        NumPy's "inhomogeneous shape"), naming ``where``; :class:`DTypeError` for an
        unknown ``dtype``; NumPy's errors for a number that ``dtype`` cannot hold.
    """
    items: list[Tensor] = []

    given = check_dtype(dtype, where) if dtype is not None else None

    def read(d):
        if isinstance(d, (list, tuple)):
            return [read(x) for x in d]
        # (a number or array made in the given dtype, as np.array makes it: 300 for int8
        # raises; a tensor is cast, as np.array casts an array)
        t = item(d) if given is None or _lazy(d) else item(d, given)
        items.append(t)
        return t

    tree = read(data)
    dt = given if given is not None else np.result_type(*[t.dtype for t in items])

    def build(d) -> Tensor:
        if not isinstance(d, list):
            return d if d.dtype == dt else d.astype(dt)
        if not d:  # (an empty level: shape (0,), which items beside it cannot match)
            return item(np.zeros(0, dt))
        parts = [build(x) for x in d]
        first = parts[0].shape
        for p in parts[1:]:
            if not same_shape(p.shape, first, where):
                raise op_error(where, "the nested sequences are not rectangular: items of "
                               f"shapes {describe(first)} and {describe(p.shape)} at one "
                               "level (NumPy's inhomogeneous shape)",
                               (parts[0].node, p.node))
        rows = [p.reshape((1, *p.shape)) for p in parts]
        if len(rows) == 1:
            return rows[0]
        return Tensor(apply("concat", tuple(r.node for r in rows), 0))

    return build(tree)
