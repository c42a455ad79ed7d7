"""The NumPy-named API over lazy tensors: the layer user code calls.

* :mod:`.tensor`: the lazy :class:`~lazyjit.api.tensor.Tensor`; :mod:`.methods`, its
  operators and methods; :mod:`.interop`, NumPy's ufuncs and functions on tensors;
* :mod:`.functions`: the one namespace of the NumPy-named functions, gathered from
  :mod:`.core` (creation, broadcasting, elementwise), :mod:`.shape_ops` (movement,
  linear algebra), :mod:`.reductions` and :mod:`.indexing`;
* :mod:`.scan` (loops; :mod:`.scan_pushout` moves work across their boundary),
  :mod:`.ifelse`, :mod:`.sorting` (cumulative sums, sorts), :mod:`.shared` (shared
  variables), :mod:`.exactmath`.

Importing any part of the API loads all of it, so tensors always have their operators,
and the ops' derivative rules, written with these functions, have them
(:data:`lazyjit.ops.registry.F`, bound here: the API is a layer above the ops).
"""
from lazyjit.api import functions, interop, methods  # noqa: F401
from lazyjit.api.ifelse import ifelse
from lazyjit.api.sorting import products_of_others
from lazyjit.api.tensor import Tensor
from lazyjit.ops.registry import F

F.bind(functions, Tensor=Tensor, ifelse=ifelse, products_of_others=products_of_others)

__all__ = ["functions", "interop", "methods"]
