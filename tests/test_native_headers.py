"""The C headers of ``native/``: the runtime and the type-generic helpers (convolutions,
pooling, argsort) that generated modules include.

The code cache key covers every header's text, so editing any of them recompiles the
modules (a stale library built from an older header is never loaded).
"""
from __future__ import annotations

import glob
import os
import shutil

import pytest

from lazyjit.backends.cpu import compiler


def _headers() -> list[str]:
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(compiler.NATIVE,
                                                                      "*.h")))


def test_the_helpers_are_headers():
    assert {"lazyjit_rt.h", "lazyjit_conv.h", "lazyjit_conv_gemm.h", "lazyjit_conv_direct.h",
            "lazyjit_conv_grid.h", "lazyjit_pool.h", "lazyjit_sort.h"} <= set(_headers())


@pytest.mark.parametrize("name", _headers())
def test_cache_key_covers_header(name, tmp_path, monkeypatch):
    """Editing header ``name`` (a copy of native/) changes every module's key."""
    native = tmp_path / "native"
    shutil.copytree(compiler.NATIVE, native)
    monkeypatch.setattr(compiler, "NATIVE", str(native))
    opts = ("cc", ("-O2",), False, str(tmp_path), False)

    def key() -> str:
        monkeypatch.setattr(compiler, "_HEADER", None)  # (read once per process)
        return compiler._key("int lj_run(void** B, const int64_t* P) { return 0; }\n", opts)

    before = key()
    assert key() == before
    with open(native / name, "a") as f:
        f.write("/* edited */\n")
    assert key() != before
