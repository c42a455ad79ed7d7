"""The Array API standard's ``linalg`` extension: :mod:`lazyjit.api.linalg`'s functions
(``lj.linalg``), with the standard's default where NumPy's differs: ``pinv``'s cutoff
is ``max(m, n) * eps`` times the largest singular value (NumPy's is 1e-15)."""
from __future__ import annotations

import lazyjit.api.linalg as _linalg
from lazyjit.api.linalg import *  # noqa: F401,F403
from lazyjit.api.linalg import __all__  # noqa: F401
from lazyjit.api.tensor import Tensor


def pinv(x, /, *, rtol=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (the standard's ``pinv``): singular values at
    most ``rtol`` (default ``max(m, n) * eps`` of ``x``'s dtype) times the largest are
    treated as zero."""
    return _linalg.pinv(x, rtol=rtol)
