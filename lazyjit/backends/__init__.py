"""Backends turn a :class:`~lazyjit.trace.Trace` into an executable.

Interface (each backend is one module or folder):

* ``compile(trace) -> Executable``: build a runnable plan for the trace's concrete
  shapes (a backend may reuse compiled code across shapes).
* ``Executable.run(inputs) -> outputs``: ``inputs`` are C-contiguous arrays in
  ``trace.inputs`` order; returns C-contiguous arrays in ``trace.outputs`` order.

``numpy`` is the reference interpreter of traces; ``ir`` runs the lowered kernel IR
(:mod:`lazyjit.schedule`) with NumPy, the oracle of schedules; ``cpu`` renders the IR as
C compiled through cffi; ``cuda`` renders it as CUDA C (NVRTC), run on a GPU or emulated
on the CPU.
"""
from __future__ import annotations

import importlib
from typing import Protocol

import numpy as np

from lazyjit.trace.graph import Trace


class Executable(Protocol):
    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]: ...


class Backend(Protocol):
    name: str

    def compile(self, trace: Trace) -> Executable: ...


_MODULES = {"numpy": "lazyjit.backends.numpy_backend", "ir": "lazyjit.backends.ir",
            "cpu": "lazyjit.backends.cpu.backend", "cuda": "lazyjit.backends.cuda.backend"}
_LOADED: dict[str, Backend] = {}


def get_backend(name: str) -> Backend:
    """Return the backend module for ``name`` (``'numpy'``, ``'ir'``, ``'cpu'`` or
    ``'cuda'``)."""
    backend = _LOADED.get(name)
    if backend is None:
        if name not in _MODULES:
            raise ValueError(f"lazyjit: backend {name!r} is not available "
                             f"(available: {', '.join(sorted(_MODULES))})")
        backend = importlib.import_module(_MODULES[name])
        _LOADED[name] = backend
    return backend
