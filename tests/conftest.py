"""Shared fixtures: every value test runs once per backend.

``backend`` parametrizes a test over :data:`BACKENDS` and runs its body inside
``lj.config(backend=name)``.  A backend is skipped only when its module cannot be
imported (``ImportError``), or is an empty folder without ``__init__.py`` (a namespace
package: not written yet); any other failure of a backend fails the tests.
"""
from __future__ import annotations

import importlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lazyjit as lj  # noqa: E402

BACKENDS = ["numpy", "cpu"]


def _unavailable(name: str) -> str | None:
    """Why backend ``name`` cannot be tested here, or None when it can."""
    if name == "numpy":
        return None
    try:
        module = importlib.import_module(f"lazyjit.backends.{name}")
    except ImportError as e:
        return f"backend {name!r} cannot be imported: {e}"
    if getattr(module, "__file__", None) is None:
        return f"backend {name!r} is an empty package (not written yet)"
    return None


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The backend name; the test body runs with ``lj.config(backend=name)``."""
    reason = _unavailable(request.param)
    if reason is not None:
        pytest.skip(reason)
    with lj.config(backend=request.param):
        yield request.param


@pytest.fixture
def rng():
    """A fresh, seeded generator per test (tests are order-independent)."""
    return np.random.default_rng(0)
