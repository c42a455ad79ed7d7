"""The one namespace of lazyjit's NumPy-named functions (``lj.exp``, ``lj.sum``,
``lj.matmul``, ...), the names of :mod:`.core` (creation, broadcasting, elementwise),
:mod:`.shape_ops` (movement, concatenation, linear algebra), :mod:`.reductions`,
:mod:`.indexing`, :mod:`.ufuncs` (more elementwise functions), :mod:`.arrays` (array
manipulation: ``flip``, ``pad``, ``tril``, ...), :mod:`.dtypes` (``finfo``,
``result_type``, ``from_dlpack``, ...), :mod:`.statistics` (``nanmean``,
``median``, ``isclose``, ...), :mod:`.searching`, :mod:`.einsum`, :mod:`.calculus`
(``diff``, ``interp``, ``histogram``, ...) and :mod:`.stacking` (``atleast_2d``,
``block``, ``rot90``, ...).  The layers above call them as
``F.name`` (``import lazyjit.api.functions as F``); ``lazyjit`` exports every
name of :data:`__all__`.

Composite functions (``mean``, ``var``, ``softmax``, ``logsumexp``, ...) are written in
primitives, so they need no rules of their own.
"""
from lazyjit.api.arrays import *  # noqa: F401,F403
from lazyjit.api.calculus import *  # noqa: F401,F403
from lazyjit.api.core import *  # noqa: F401,F403
from lazyjit.api.dtypes import *  # noqa: F401,F403
from lazyjit.api.einsum import einsum  # noqa: F401
from lazyjit.api.indexing import *  # noqa: F401,F403
from lazyjit.api.reductions import *  # noqa: F401,F403
from lazyjit.api.searching import *  # noqa: F401,F403
from lazyjit.api.shape_ops import *  # noqa: F401,F403
from lazyjit.api.stacking import *  # noqa: F401,F403
from lazyjit.api.statistics import *  # noqa: F401,F403
from lazyjit.api.ufuncs import *  # noqa: F401,F403
from lazyjit.api.scan import size_range  # noqa: F401  (arange, also of an unknown size)
from lazyjit.api.linalg import matrix_transpose, vecdot  # noqa: F401  (NumPy 2's names)
from lazyjit.api.linalg import numpy_cross as cross  # noqa: F401  (np.cross's signature)
from lazyjit.api.memo import memoize

_MODULES = ("lazyjit.api.core", "lazyjit.api.dtypes", "lazyjit.api.reductions",
            "lazyjit.api.shape_ops",
            "lazyjit.api.indexing", "lazyjit.api.ufuncs", "lazyjit.api.arrays",
            "lazyjit.api.statistics", "lazyjit.api.einsum", "lazyjit.api.searching",
            "lazyjit.api.calculus", "lazyjit.api.stacking")
__all__ = sorted([name for name, value in globals().items()
                  if not name.startswith("_") and callable(value)
                  and getattr(value, "__module__", None) in _MODULES] +
                 ["size_range", "matrix_transpose", "vecdot", "cross"])

# composites and broadcasting ops whose graphs depend only on their arguments' shapes,
# dtypes and other arguments (audited: no value read, no random key, no warning):
# eager calls replay the graph of a signature seen before (lazyjit.api.memo)
MEMOIZED = ("add", "subtract", "multiply", "true_divide", "divide", "maximum", "minimum",
            "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
            "logical_and", "logical_or", "logical_xor", "where", "sum", "mean", "max",
            "min", "amax", "amin", "prod", "var", "std", "logsumexp", "softmax",
            "log_softmax", "matmul", "exp", "log", "log1p", "expm1", "sqrt", "tanh",
            "sigmoid", "softplus", "relu", "negative", "absolute", "abs", "sin", "cos")
for _name in MEMOIZED:
    globals()[_name] = memoize(globals()[_name])
