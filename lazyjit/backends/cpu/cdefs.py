"""The C functions lazyjit calls through cffi, declared once, and the generator of
``_ffi.py``: their cffi ``ffi`` object in cffi's out-of-line ABI mode (cffi's documented
way to skip parsing declarations at run time: an in-line ``cffi.FFI().cdef(...)`` imports
pycparser and parses, about 50 ms of every process's first compiled call).

``_ffi.py`` is generated, and committed: after editing :data:`CDEFS`, run
``python -m lazyjit.backends.cpu.cdefs``; ``tests/test_cpu_backend.py`` fails while the
committed file differs from what this module generates.
"""
from __future__ import annotations

import os

MODULE = "lazyjit.backends.cpu._ffi"
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ffi.py")

GEMM_TYPES = (("s", "float"), ("d", "double"))

CDEFS = (
    # every module (lazyjit.backends.cpu.compiler.prelude)
    "int lj_run(void** B, const int64_t* P);\n"
    "void lj_set_blas(void* s, void* d, void* t, void** lapack);\n"
    # an emulated CUDA module's launcher (lazyjit.backends.cuda.emulate)
    "int lj_launch(int k, int64_t grid, int block, void** B, const int64_t* P, int32_t* E);\n"
    # the GEMM loops' module (lazyjit.backends.cpu.compiler.GEMM_LOOPS)
    + "".join(f"void lj_loop_{p}gemm(int, int, int, int64_t, int64_t, int64_t, {t}, "
              f"const {t}*, int64_t, const {t}*, int64_t, {t}, {t}*, int64_t);\n"
              for p, t in GEMM_TYPES))


def emit(path: str = PATH) -> None:
    """Write the out-of-line ``ffi`` module of :data:`CDEFS` to ``path``."""
    import cffi  # (only here: importing cffi's parser is what the generated module saves)

    builder = cffi.FFI()
    builder.cdef(CDEFS)
    builder.set_source(MODULE, None)
    builder.emit_python_code(path)


if __name__ == "__main__":
    emit()
