"""lazyjit: NumPy-style array math, recorded lazily, compiled to native code, differentiable.

>>> import lazyjit as lj
>>> x = lj.tensor([1.0, 2.0, 3.0], dtype="float32")
>>> y = (x * 2).exp().sum()      # nothing computed yet
>>> float(y)                      # compiled (once) and run
"""
from numpy import e, inf, nan, newaxis, pi  # noqa: F401  (NumPy's constants, as lj.numpy's)

from lazyjit.config import config
from lazyjit.errors import DTypeError, IndexBoundsError, LazyjitError, ScalarOverflowError
from lazyjit.stats import reset_stats, stats
from lazyjit.api.tensor import Tensor
from lazyjit.api.functions import *  # noqa: F401,F403
from lazyjit.api.functions import (  # noqa: F401  (names shadowing builtins)
    abs, all, any, max, min, round, stop_gradient, sum, tensor,
)
from lazyjit.api.indexing import getitem, inc_subtensor, set_subtensor
from lazyjit.api.ifelse import ifelse
from lazyjit.api.loops import cond, fori_loop, while_loop
from lazyjit.api.scan import scan, until
from lazyjit.api.shared import SharedVariable, shared
from lazyjit.api.sorting import argsort, cumprod, cumsum, cumulative_prod, cumulative_sum, sort
from lazyjit.api import linalg  # noqa: F401  (lj.linalg: numpy.linalg, lazily)
from lazyjit.api import fft  # noqa: F401  (lj.fft: numpy.fft, lazily)
from lazyjit.autodiff.reverse import DisconnectedInputError, grad, value_and_grad
from lazyjit.autodiff.forward import Lop, Rop, hessian, hvp, jacobian, jvp, vjp
from lazyjit.engine.jit import invalidate_traces, jit
from lazyjit.engine.function import (  # noqa: F401  (Theano-style compiled functions)
    Function, Placeholder, function, matrix, placeholder, scalar, tensor3, tensor4, vector,
)
from lazyjit.engine.realize import realize as _realize
from lazyjit.trace import dims  # noqa: F401  (lj.dims: symbolic sizes, dmax, dmin, ...)
from lazyjit.trace.dims import Dim, InconclusiveDimension  # noqa: F401
from lazyjit import debug  # noqa: F401
from lazyjit import random  # noqa: F401  (lj.random: counter-based random numbers)
from lazyjit import optim  # noqa: F401  (lj.optim: SGD, Adam, AdamW as shared updates)
from lazyjit import nn  # noqa: F401  (lj.nn: layers on the public API)
from lazyjit import numpy as _array_api  # (lazyjit.numpy: the Array API namespace)

__version__ = "0.1.0"


def _array_namespace(self, /, *, api_version=None):
    """The Array API namespace of tensors, :mod:`lazyjit.numpy` (``api_version`` None or
    ``"2023.12"``)."""
    if api_version not in (None, "2021.12", "2022.12", "2023.12"):  # (each a subset of the last)
        raise ValueError(f"lazyjit.numpy implements the Array API 2023.12, not {api_version!r}")
    return _array_api


Tensor.__array_namespace__ = _array_namespace


def realize(*tensors):
    """Compute all given tensors in one trace (one compiled call); returns them."""
    _realize(*tensors)
    return tensors[0] if len(tensors) == 1 else tensors


__all__ = [
    "config", "Tensor", "tensor", "grad", "value_and_grad", "stop_gradient", "jit", "stats",
    "reset_stats", "realize", "set_subtensor", "inc_subtensor", "getitem", "LazyjitError",
    "DisconnectedInputError", "DTypeError", "IndexBoundsError", "ScalarOverflowError",
    "Rop", "Lop", "jvp", "vjp", "jacobian", "hessian", "hvp", "scan", "until", "ifelse", "cond",
    "fori_loop", "while_loop", "shared",
    "SharedVariable", "function", "Function", "Placeholder", "placeholder", "scalar", "vector",
    "matrix", "tensor3", "tensor4", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
    "sort", "argsort",
    "invalidate_traces",
    "Dim", "InconclusiveDimension", "dims", "linalg", "fft",
]
