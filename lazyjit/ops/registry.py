"""The op registry: one :class:`OpDef` per primitive op.

An OpDef gathers everything lazyjit knows about an op in one place: its kind (which
decides how backends render it), its shape rule, its dtype rule, its NumPy reference
(the semantics, and the ``numpy`` backend), a backend-neutral C expression for
elementwise ops, and its vector-Jacobian product.  Composite functions (softmax, mean,
var, ...) are written in primitives in :mod:`lazyjit.functions` and need no entry here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# kinds: leaf, elementwise, reduce, movement (views), matmul, and "other" kernels
KINDS = ("leaf", "elementwise", "reduce", "movement", "matmul", "index", "concat", "arg")

SUPPORTED_DTYPES = tuple(np.dtype(d) for d in
                         ("bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64"))


@dataclass(frozen=True)
class OpDef:
    """Everything about one primitive op.

    Attributes
    ----------
    name : the op name used in nodes, keys and error messages.
    kind : how backends render it (one of ``KINDS``).
    ref : NumPy reference ``ref(*arrays, arg) -> ndarray``; defines the semantics.
    shape : ``shape(src_nodes, arg) -> tuple``; raises ``ValueError`` on bad shapes.
    dtype : ``dtype(src_dtypes, arg) -> np.dtype``; ``None`` derives it from ``ref``.
    c : elementwise C expression template: ``{0}``.. operands, ``{s}`` libm suffix
        (``f`` for float32), ``{T}`` result C type, ``{I}`` operand C type, ``{n}``
        operand dtype name; a dict maps the operand dtype kind (``'f'``, ``'i'``,
        ``'b'``, ``'u'``, ``'*'`` for any other) or the result kind (``'>b'``) to a template.
    vjp : ``vjp(g, out, *srcs, arg) -> tuple`` of cotangents (Tensors or ``None`` for
        zero/disconnected), with ``g``, ``out`` and ``srcs`` as Tensors.
    float_only : inputs must be floating point (ints are promoted by the API).
    """

    name: str
    kind: str
    ref: Callable[..., np.ndarray]
    shape: Callable[[tuple, Any], tuple] | None = None
    dtype: Callable[[tuple, Any], np.dtype] | None = None
    c: str | dict | None = None
    vjp: Callable[..., tuple] | None = None
    float_only: bool = False
    doc: str = ""


REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    assert opdef.kind in KINDS, opdef.kind
    assert opdef.name not in REGISTRY, opdef.name
    REGISTRY[opdef.name] = opdef
    return opdef


_DTYPE_CACHE: dict[tuple, np.dtype] = {}


def ref_dtype(opdef: OpDef, srcs: tuple, arg: Any) -> np.dtype:
    """Output dtype as NumPy's reference computes it, cached per (op, arg, dtypes, ranks)."""
    key = (opdef.name, arg, *[(s.dtype, len(s.shape)) for s in srcs])
    dt = _DTYPE_CACHE.get(key)
    if dt is None:
        with np.errstate(all="ignore"):
            probe = [np.ones((1,) * len(s.shape), s.dtype) for s in srcs]
            dt = np.asarray(opdef.ref(*probe, arg)).dtype
        if dt == np.float16:
            dt = np.dtype(np.float32)
        _DTYPE_CACHE[key] = dt
    return dt


class _Functions:
    """Late-bound access to :mod:`lazyjit.functions` for VJP rules (which build graphs
    with the public functions, defined after the registry)."""

    def __getattr__(self, name: str):
        import lazyjit.functions as functions
        return getattr(functions, name)


F = _Functions()
