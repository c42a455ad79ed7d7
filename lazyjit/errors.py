"""Errors that name the user's line: :class:`LazyjitError`, :func:`op_error`, creation sites.

Every node records where the user's code created it (:func:`creation_site`: the stack
without lazyjit's own frames), and every error about bad input names the op, the
operands' shapes and dtypes, and that line.  Dimensions of sizes known only at each call
of an ``lj.function`` print by name (:data:`UNKNOWN`, filled by
:func:`lazyjit.trace.sizes.unknown_dim`).
"""
from __future__ import annotations

import os
import sys

import numpy as np

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_MAX_FRAMES = 3
_INTERNAL: dict = {}  # code object -> True when it belongs to lazyjit itself
UNKNOWN: dict[int, str] = {}  # the stand-in size of an unknown dimension -> its name


def is_internal(code) -> bool:
    """Whether the code object belongs to lazyjit itself (not its examples)."""
    v = _INTERNAL.get(code)
    if v is None:
        fn = code.co_filename
        v = _INTERNAL[code] = fn.startswith(_PKG_DIR) and "examples" not in fn
    return v


def creation_site() -> tuple:
    """Return the user's stack (innermost first) as ``(code, line)`` pairs; frames inside
    the lazyjit package are skipped, so the first entry is the user's line that created
    the op.  :func:`format_site` turns it into text."""
    frames = []
    get = _INTERNAL.get
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        inside = get(code)
        if inside is None:
            inside = is_internal(code)
        if not inside:
            frames.append((code, f.f_lineno))
            if len(frames) == _MAX_FRAMES:
                break
        f = f.f_back
    return tuple(frames)


def site_lines(site: tuple) -> list[tuple[str, int, str]]:
    """``(file, line, function)`` for each frame of a creation site."""
    return [(code.co_filename, line, code.co_name) for code, line in site]


def format_site(site: tuple) -> str:
    return "\n".join(f'  File "{fn}", line {ln}, in {name}' for fn, ln, name in site_lines(site))


def describe(shape: tuple) -> str:
    """``shape`` with the stand-ins of unknown sizes shown by name: ``(batch, 784)``."""
    parts = [UNKNOWN.get(d, str(d)) if isinstance(d, int) else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


class LazyjitError(ValueError):
    """Raised for bad input; the message names the op, the shapes and the dtypes."""


def op_error(op: str, message: str, srcs: tuple = (), cls: type = LazyjitError) -> LazyjitError:
    """Build an error naming ``op`` and the shapes and dtypes of ``srcs``.

    Raising it inside lazyjit's code leaves the user's line as the frame below the API
    call; the message also carries that line so it is visible in logs.
    """
    parts = ", ".join(f"{tuple(s.shape)} {np.dtype(s.dtype).name}" for s in srcs)
    site = site_lines(creation_site())
    where = f" (at {site[0][0]}:{site[0][1]})" if site else ""
    operands = f" with operands [{parts}]" if srcs else ""
    if any(str(d) in message for s in srcs for d in s.shape if d in UNKNOWN):
        named = ", ".join(f"{d} is the unknown size {UNKNOWN[d]!r}" for d in
                          dict.fromkeys(d for s in srcs for d in s.shape if d in UNKNOWN))
        shown = ", ".join(describe(s.shape) for s in srcs)
        all_unknown = all(any(d in UNKNOWN for d in s.shape) for s in srcs)
        hint = ("two unknown dimensions that must be equal here need one name: "
                "shape=('n', None) and shape=(None, 'n')" if all_unknown else
                "a dimension of unknown size cannot meet a known one, declare it: "
                "lj.matrix(name, shape=(None, 784))")
        message += f" [{shown}: {named}, placeholder dimensions; {hint}]"
    return cls(f"{op}{operands}: {message}{where}")
