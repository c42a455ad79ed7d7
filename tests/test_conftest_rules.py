"""The rule of ``tests/conftest.py`` for skipping a backend, checked on fake backends.

A backend's tests are skipped only when a third-party package of its own row of
``DEPENDENCIES`` is missing; a backend whose import breaks inside lazyjit (or in any
other way) fails.  Each fake backend is a real package ``lazyjit.backends.<name>``
written to a temporary folder added to ``lazyjit.backends.__path__``.
"""
from __future__ import annotations

import importlib
import sys

import pytest

import conftest
import lazyjit.backends

MISSING = "lazyjit_test_no_such_package"  # a third-party package nobody has installed


@pytest.fixture
def fake_backend(tmp_path, monkeypatch):
    """Write ``lazyjit.backends.<name>`` with the given ``__init__.py`` (None: an empty
    folder), its dependencies ``deps``; return the name."""
    monkeypatch.setattr(lazyjit.backends, "__path__", [*lazyjit.backends.__path__,
                                                       str(tmp_path)])
    made = []

    def make(name: str, init: str | None, deps: tuple[str, ...] = (MISSING,),
             files: dict[str, str] | None = None) -> str:
        folder = tmp_path / name
        folder.mkdir()
        if init is not None:
            (folder / "__init__.py").write_text(init)
        for fname, text in (files or {}).items():
            (folder / fname).write_text(text)
        monkeypatch.setitem(conftest.DEPENDENCIES, name, deps)
        made.append(f"lazyjit.backends.{name}")
        importlib.invalidate_caches()
        return name

    yield make
    for module in made:
        sys.modules.pop(module, None)


def test_skipped_when_its_own_dependency_is_missing(fake_backend):
    name = fake_backend("fake_own_dep", f"import {MISSING}.cuda\n")
    reason = conftest._unavailable(name)
    assert reason is not None and MISSING in reason


def test_available_when_it_imports(fake_backend):
    assert conftest._unavailable(fake_backend("fake_fine", "import numpy\nname = 'x'\n")) is None


def test_empty_folder_is_not_written_yet(fake_backend):
    assert "not written" in conftest._unavailable(fake_backend("fake_empty", None))


@pytest.mark.parametrize("init", [
    "import lazyjit.backends.no_such_module\n",        # a lazyjit module is missing
    "from lazyjit.trace.node import no_such_name\n",  # a name inside lazyjit is missing
    f"import {MISSING}_other\n",                      # a package not in its row
    "raise RuntimeError('broken at import')\n",       # any other error
], ids=["lazyjit-module", "lazyjit-name", "other-package", "other-error"])
def test_broken_import_fails(fake_backend, init):
    name = fake_backend("fake_broken", init)
    with pytest.raises(conftest.BackendImportError, match="failed to import"):
        conftest._unavailable(name)


def test_python_files_without_init_fail(fake_backend):
    name = fake_backend("fake_no_init", None, files={"kernels.py": "x = 1\n"})
    with pytest.raises(conftest.BackendImportError, match="no __init__.py"):
        conftest._unavailable(name)


def test_dependency_of_another_backend_does_not_skip(fake_backend, monkeypatch):
    """Only the backend's own row counts: a package listed for another backend fails."""
    monkeypatch.setitem(conftest.DEPENDENCIES, "fake_other_owner", (MISSING,))
    name = fake_backend("fake_borrowed", f"import {MISSING}\n", deps=("numpy",))
    with pytest.raises(conftest.BackendImportError):
        conftest._unavailable(name)


@pytest.mark.parametrize("name", conftest.BACKENDS)
def test_real_backends_import(name):
    """The backends of this checkout import, or miss only a package of their own."""
    reason = conftest._unavailable(name)
    assert reason is None or "needs" in reason
