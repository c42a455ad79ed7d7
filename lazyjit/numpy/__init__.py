"""``lazyjit.numpy``: lazyjit as an Array API standard namespace (version 2023.12).

Code written against the standard (``xp = x.__array_namespace__()``, or ``import
lazyjit.numpy as xp``) runs on lazyjit tensors: lazily, compiled, differentiable.  Every
function here is lazyjit's own (the one implementation in :mod:`lazyjit`, re-exported,
no second copy), with the standard's names, parameters and type promotion (NumPy 2's,
which the standard's table is a part of; Python scalars are weak).  The namespace also
has lazyjit's other NumPy-named functions (``lj.exp``'s neighbours ``lj.arctan2``,
``lj.pad``, ...), as NumPy 2's own namespace does.

What the standard says and lazyjit does:

* ``device=``: ``"cpu"``, or ``"cuda"`` under the cuda backend; tensors have no device of
  their own yet, so another device is a clear error (``x.device``, ``x.to_device``).
* ``copy=``: tensors are immutable, so a tensor is its own copy; ``asarray(obj,
  copy=False)`` raises ``ValueError`` where a copy cannot be avoided (any non-tensor).
* Data-dependent output shapes (``nonzero``, ``unique_*``, boolean masks) compute their
  input first, as their docstrings say.
* Elementwise special cases (NaN, signed zeros, infinities) are those of C99's math
  library, which the standard's follow; integer overflow wraps.

* ``complex64`` and ``complex128``: arithmetic, the elementwise functions the standard
  defines for them (C99's special cases), sums, products, means, matrix products and the
  ``fft`` and ``linalg`` extensions; derivatives with JAX's convention.  Orderings,
  ``max``/``min`` and sorting of complex tensors raise ``TypeError``, as the standard
  leaves them undefined.
"""
from __future__ import annotations

import numpy as _np

import lazyjit.api.functions as _F
from lazyjit.numpy import fft, linalg  # noqa: F401  (the fft and linalg extensions)
from lazyjit.api.functions import *  # noqa: F401,F403
from lazyjit.api.functions import (  # noqa: F401  (names that shadow builtins)
    abs, all, any, max, min, round, sum,
)
from lazyjit.api.searching import (  # noqa: F401
    unique_all, unique_counts, unique_inverse, unique_values,
)
from lazyjit.api.sorting import argsort, cumulative_sum, sort  # noqa: F401
from lazyjit.api.ufuncs import pow  # noqa: F401
from lazyjit.config import config as _config

__array_api_version__ = "2023.12"

# constants
e, inf, nan, pi = _np.e, _np.inf, _np.nan, _np.pi
newaxis = None

# data types (NumPy's dtype objects: lazyjit's dtypes are NumPy's)
bool = _np.dtype("bool")  # noqa: A001 - the standard's name
int8, int16, int32, int64 = (_np.dtype(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_np.dtype(f"uint{b}") for b in (8, 16, 32, 64))
float32, float64 = _np.dtype("float32"), _np.dtype("float64")
complex64, complex128 = _np.dtype("complex64"), _np.dtype("complex128")

_KINDS = {"bool": (bool,), "signed integer": (int8, int16, int32, int64),
          "unsigned integer": (uint8, uint16, uint32, uint64),
          "real floating": (float32, float64)}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["complex floating"] = (complex64, complex128)
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class _Info:
    """The standard's inspection namespace (``__array_namespace_info__()``)."""

    __module__ = "lazyjit.numpy"

    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes are supported (they compute their
        input first)."""
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self) -> str:
        """Where the ``backend`` flag computes: ``"cuda"`` or ``"cpu"``."""
        return "cuda" if _config.backend == "cuda" else "cpu"

    def devices(self) -> list:
        """The device a tensor can be on now (the ``backend`` flag's: one)."""
        return [self.default_device()]

    def default_dtypes(self, *, device=None) -> dict:
        """float64, int64 (and int64 indices), as NumPy's defaults."""
        return {"real floating": float64, "complex floating": complex128,
                "integral": int64, "indexing": int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The dtypes tensors hold, by name, of ``kind`` (a kind name or a tuple of
        them, as :func:`isdtype` takes; None: all)."""
        if kind is None:
            kinds = ("bool", "numeric")
        else:
            kinds = (kind,) if isinstance(kind, str) else tuple(kind)
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"unknown dtype kind {k!r}")
            out.update({dt.name: dt for dt in _KINDS[k]})
        return out


def __array_namespace_info__() -> _Info:
    """The standard's inspection utilities: capabilities, devices, dtypes."""
    return _Info()


__all__ = sorted(set(_F.__all__) | {
    "abs", "all", "any", "max", "min", "round", "sum", "argsort", "sort", "cumulative_sum",
    "pow", "unique_all", "unique_counts", "unique_inverse", "unique_values", "linalg", "fft",
    "e", "inf", "nan", "pi", "newaxis", "bool", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "float32", "float64", "complex64", "complex128",
    "__array_api_version__", "__array_namespace_info__"})
