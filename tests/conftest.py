"""Shared fixtures: every value test runs once per backend.

``backend`` parametrizes a test over :data:`BACKENDS` and runs its body inside
``lj.config(backend=name)``.  A backend is skipped only when one of its own third-party
dependencies (:data:`DEPENDENCIES`) is not installed: importing it raises
``ModuleNotFoundError`` naming that package, or
when it is a folder holding no Python file yet (not written).  Any other failure to
import it fails the tests loudly: an ``ImportError`` naming a lazyjit module (an import
inside lazyjit broke), a third-party package not in its row, any other exception.
"""
from __future__ import annotations

import glob
import importlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lazyjit as lj  # noqa: E402
from lazyjit.backends import cuda  # noqa: E402

BACKENDS = ["numpy", "ir", "cpu"]
# the test tables that also run on "cuda" (emulated on the CPU where there is no GPU: the
# kernels' index arithmetic, reductions and barriers are checked on every change)
CUDA_TABLES = {"test_ops", "test_grad", "test_forward", "test_scan", "test_random",
               "test_nn", "test_nn_basic", "test_nn_functional", "test_cuda",
               "test_float16", "test_linalg", "test_loops", "test_complex", "test_fft",
               "test_numpy_ufuncs", "test_numpy_calculus", "test_numpy_stacking",
               "test_statistics", "test_sorting", "test_searching", "test_arrays", "test_einsum",
               "test_activations"}
# the third-party packages each backend imports (top-level names): the only modules
# whose absence skips a backend's tests
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy",),
    "ir": ("numpy",),
    "cpu": ("numpy", "cffi", "xxhash"),
    "cuda": ("numpy", "cffi", "xxhash"),  # (NVRTC, a library: an ImportError when used)
}


class BackendImportError(RuntimeError):
    """A backend failed to import for a reason other than a missing dependency of its
    own: a bug to fix, never a reason to skip."""


def _unavailable(name: str) -> str | None:
    """Why backend ``name`` cannot be tested here (a dependency of its own is missing,
    or it is not written yet), or None when it can.

    Raises
    ------
    BackendImportError
        Importing the backend failed in any other way.
    """
    from lazyjit.backends import _MODULES
    module_name = _MODULES.get(name, f"lazyjit.backends.{name}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        missing = (e.name or "").partition(".")[0]
        if missing and missing in DEPENDENCIES.get(name, ()):
            return f"backend {name!r} needs {missing!r}, which is not installed"
        raise BackendImportError(f"backend {name!r} ({module_name}) failed to import: {e!r}; "
                                 f"only a missing package of DEPENDENCIES[{name!r}] in "
                                 "tests/conftest.py skips a backend") from e
    except Exception as e:
        raise BackendImportError(f"backend {name!r} ({module_name}) failed to import: "
                                 f"{e!r}") from e
    if getattr(module, "__file__", None) is None:  # a folder without __init__.py
        folders = list(getattr(module, "__path__", []))
        if any(glob.glob(os.path.join(f, "**", "*.py"), recursive=True) for f in folders):
            raise BackendImportError(f"backend {name!r} ({module_name}) has Python files "
                                     f"but no __init__.py: {folders}")
        return f"backend {name!r} is an empty folder (not written yet)"
    return None


def pytest_generate_tests(metafunc):
    """Tests taking ``backend`` run on :data:`BACKENDS`, and on ``cuda`` in the modules
    of :data:`CUDA_TABLES`."""
    if "backend" in metafunc.fixturenames:
        module = metafunc.module.__name__.rpartition(".")[2]
        names = BACKENDS + (["cuda"] if module in CUDA_TABLES else [])
        metafunc.parametrize("backend", names, indirect=True)


@pytest.fixture
def backend(request):
    """The backend name; the test body runs with ``lj.config(backend=name)``."""
    reason = _unavailable(request.param)
    if reason is not None:
        pytest.skip(reason)
    flags = cuda.flags() if request.param == "cuda" else {"backend": request.param}
    with lj.config(**flags):
        yield request.param


@pytest.fixture
def rng():
    """A fresh, seeded generator per test (tests are order-independent)."""
    return np.random.default_rng(0)
