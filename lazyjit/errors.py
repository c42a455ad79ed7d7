"""Errors that name the user's line: :class:`LazyjitError`, :func:`op_error`, creation sites.

Every node records where the user's code created it (:func:`creation_site`: the stack
without lazyjit's own frames), and every error about bad input names the op, the
operands' shapes and dtypes, and that line.  Symbolic sizes (sizes known only at each
call: :mod:`lazyjit.trace.dims`) print by name.
"""
from __future__ import annotations

import functools
import os
import sys
import warnings

import numpy as np

from lazyjit.speedups import NATIVE

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_MAX_FRAMES = 3
# id(code object) -> (the code object, whether it belongs to lazyjit itself).  Keyed by
# id: a code object's hash is computed anew at each call from its contents, nested code
# included (10 us for a module's); the entry holds the code, so its id is not reused.
_INTERNAL: dict = {}


def is_internal(code) -> bool:
    """Whether the code object belongs to lazyjit itself (not its examples)."""
    v = _INTERNAL.get(id(code))
    if v is None or v[0] is not code:
        fn = code.co_filename
        if len(_INTERNAL) > 65536:  # (code compiled again and again: exec, notebooks)
            _INTERNAL.clear()
        v = _INTERNAL[id(code)] = (code, fn.startswith(_PKG_DIR) and "examples" not in fn)
    return v[1]


def creation_site() -> tuple:
    """Return the user's stack (innermost first) as ``(code, offset)`` pairs (the offset
    of the frame's current instruction, ``f_lasti``: its line is looked up only when an
    error shows it, see :func:`site_lines`); frames inside the lazyjit package are
    skipped, so the first entry is the user's line that created the op.
    :func:`format_site` turns it into text."""
    frames = []
    get = _INTERNAL.get
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        known = get(id(code))
        inside = known[1] if known is not None and known[0] is code else is_internal(code)
        if not inside:
            frames.append((code, f.f_lasti))
            if len(frames) == _MAX_FRAMES:
                break
        f = f.f_back
    return tuple(frames)


walk_stack = creation_site  # (the Python walk, which the C one must equal: tests)
if NATIVE is not None:  # the same walk in C (lazyjit.speedups), without a frame of its own
    creation_site = functools.partial(NATIVE.creation_site, _INTERNAL, is_internal, _MAX_FRAMES)


def site_lines(site: tuple) -> list[tuple[str, int, str]]:
    """``(file, line, function)`` for each frame of a creation site."""
    return [(code.co_filename, _line(code, offset), code.co_name) for code, offset in site]


def _line(code, offset: int) -> int:
    """The source line of the instruction at byte ``offset`` of ``code`` (as a frame's
    ``f_lineno`` reads it from ``f_lasti``; 0 where the code has no line for it)."""
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line if line is not None else 0
    return 0


_WARNED: dict = {}  # file -> the warnings registry of warn_at_user (once per line, as Python's)


def warn_at_user(message: str, category: type = RuntimeWarning) -> None:
    """Warn, as NumPy would have, at the user's line (the first frame outside lazyjit),
    not at lazyjit's own code that met the condition."""
    site = site_lines(creation_site())
    if site:
        warnings.warn_explicit(message, category, site[0][0], site[0][1],
                               registry=_WARNED.setdefault(site[0][0], {}))
    else:
        warnings.warn(message, category, stacklevel=2)


def format_site(site: tuple) -> str:
    return "\n".join(f'  File "{fn}", line {ln}, in {name}' for fn, ln, name in site_lines(site))


def describe(shape: tuple) -> str:
    """``shape`` as text, symbolic sizes by name: ``(batch, 784)``."""
    parts = [str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


# called when an error about bad input is made (the layers above register what a failed
# graph-building call must undo: lazyjit.trace.constraints drops the requirements it
# recorded, so that they never reach the next graph)
ON_ERROR: list = []


class LazyjitError(ValueError):
    """Raised for bad input; the message names the op, the shapes and the dtypes."""


class DTypeError(LazyjitError, TypeError):
    """An op given operands of a dtype it is not defined for (``&`` of floats, ``-`` of
    bools): a ``TypeError``, as NumPy raises there, and a :class:`LazyjitError`."""


class IndexBoundsError(LazyjitError, IndexError):
    """An index out of bounds found where sizes become known (a constant index checked
    at a call against a symbolic size, a take from an axis that is empty then): an
    ``IndexError`` as NumPy's, and a :class:`LazyjitError`."""


class LinAlgShapeError(LazyjitError, np.linalg.LinAlgError):
    """A matrix of the wrong shape for a ``linalg`` function (not square, not 2-D):
    NumPy's ``LinAlgError``, and a :class:`LazyjitError`."""


class ScalarOverflowError(LazyjitError, OverflowError):
    """A Python int that the dtype of the operation cannot hold (``int8 + 300``): an
    ``OverflowError`` as NumPy's, and a :class:`LazyjitError`."""


# how the run-time check of a Python int (a jit argument, a symbolic size) against a
# dtype's range begins its message: a backend raises ScalarOverflowError for it
INT_OVERFLOW = "Python integer out of bounds for"


def check_error(message: str) -> Exception:
    """The exception a failed run-time check (the ``check`` op) with ``message`` raises
    on every backend: NumPy's for the same failure (``LinAlgError`` for a LAPACK
    failure, ``OverflowError`` for a Python int out of a dtype's range, else
    ``ValueError``)."""
    if message.startswith("linalg."):
        return np.linalg.LinAlgError(message)
    if message.startswith(INT_OVERFLOW):
        return ScalarOverflowError(message)
    return ValueError(message)


def op_error(op: str, message: str, srcs: tuple = (), cls: type = LazyjitError) -> LazyjitError:
    """Build an error naming ``op`` and the shapes and dtypes of ``srcs``.

    Raising it inside lazyjit's code leaves the user's line as the frame below the API
    call; the message also carries that line so it is visible in logs.
    """
    for undo in ON_ERROR:
        undo()
    parts = ", ".join(f"{describe(s.shape)} {np.dtype(s.dtype).name}" for s in srcs)
    site = site_lines(creation_site())
    where = f" (at {site[0][0]}:{site[0][1]})" if site else ""
    operands = f" with operands [{parts}]" if srcs else ""
    return cls(f"{op}{operands}: {message}{where}")
