"""Compiling generated C: gcc through a subprocess, loaded with cffi, cached on disk.

The code cache key is an xxhash of the source, the compiler command line and the
machine (``-march=native`` code is not portable).  A module is compiled into a
temporary file in the cache folder and renamed into place (atomic), so a failed or
interrupted compile never leaves a broken entry; a second process finds it on disk and
compiles nothing.  BLAS is NumPy's own OpenBLAS, whose ``cblas_?gemm`` addresses are
handed to each module at load time (no link-time dependency).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import platform
import subprocess
import tempfile
import threading

import cffi
import xxhash

from lazyjit.config import config
from lazyjit.stats import COUNTERS

_HERE = os.path.dirname(os.path.abspath(__file__))
_NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))), "native")
if not os.path.isdir(_NATIVE):  # installed without the source tree
    _NATIVE = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "native")

ffi = cffi.FFI()
ffi.cdef("int lj_run(void** B, const int64_t* P); void lj_set_blas(void* s, void* d, void* t);")

_LOADED: dict[str, object] = {}
_LOCK = threading.Lock()


class CompileError(RuntimeError):
    """The C compiler failed; the message holds its output and the source path."""


def _machine_id() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags")):
                    model += line
    except OSError:
        pass
    return platform.machine() + model


_MACHINE = _machine_id()


def cflags() -> list[str]:
    """The compiler command line.  -O2 vectorizes the ``omp simd`` loops as -O3 does
    (same speed measured on the benchmarks) and compiles about 25% faster."""
    flags = ["-O2", "-march=native", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno",
             "-fno-trapping-math", "-ffp-contract=off", "-fwrapv", "-fno-semantic-interposition",
             "-w",
             f"-I{_NATIVE}"]
    flags.append("-fopenmp" if config.openmp else "-fopenmp-simd")
    flags += config.cflags.split()
    return flags


def _libs() -> list[str]:
    return ["-lmvec", "-lm"] if MVEC_FUNCS else ["-lm"]


def _mvec_functions() -> list[tuple[str, str, int]]:
    """libm functions that glibc's libmvec provides AVX2/AVX-512 variants of."""
    path = ctypes.util.find_library("mvec")
    if not path or platform.machine() != "x86_64":
        return []
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return []
    names = []
    for fn in ("exp", "log", "sin", "cos", "tan", "tanh", "expm1", "log1p", "erf", "pow"):
        for suffix, width in (("f", 16), ("", 8)):
            arity = "vv" if fn == "pow" else "v"
            if hasattr(lib, f"_ZGVeN{width}{arity}_{fn}{suffix}") and \
                    hasattr(lib, f"_ZGVbN{width // 4}{arity}_{fn}{suffix}"):
                names.append((fn + suffix, "float" if suffix else "double", len(arity)))
    return names


MVEC_FUNCS = _mvec_functions()


def prelude() -> str:
    """Declarations every module starts with: the runtime header, vector-math
    declarations, and BLAS function pointers."""
    simd = "\n".join(f"__attribute__((simd(\"notinbranch\"))) {t} {n}({', '.join([t] * arity)});"
                     for n, t, arity in MVEC_FUNCS)
    return f"""#include <stdint.h>
#include <string.h>
#include <math.h>
{simd}
#include "lazyjit_rt.h"
typedef void (*lj_sgemm_t)(int, int, int, int64_t, int64_t, int64_t, float, const float*,
                           int64_t, const float*, int64_t, float, float*, int64_t);
typedef void (*lj_dgemm_t)(int, int, int, int64_t, int64_t, int64_t, double, const double*,
                           int64_t, const double*, int64_t, double, double*, int64_t);
typedef int (*lj_threads_t)(int);
static lj_sgemm_t lj_sgemm;
static lj_dgemm_t lj_dgemm;
static lj_threads_t lj_blas_threads;
void lj_set_blas(void* s, void* d, void* t) {{
  lj_sgemm = (lj_sgemm_t)s; lj_dgemm = (lj_dgemm_t)d; lj_blas_threads = (lj_threads_t)t;
}}
"""


def _blas_pointers():
    """Addresses of NumPy's OpenBLAS ``cblas_sgemm``/``cblas_dgemm`` (ILP64) and of
    ``openblas_set_num_threads_local``, or NULLs."""
    import numpy as np
    libdir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libdir, "libscipy_openblas64_*.so"))):
        try:
            lib = ctypes.CDLL(path)
            s, d = lib.scipy_cblas_sgemm64_, lib.scipy_cblas_dgemm64_
        except (OSError, AttributeError):
            continue
        ptr = [ffi.cast("void*", ctypes.cast(f, ctypes.c_void_p).value) for f in (s, d)]
        try:  # per-call thread count (OpenBLAS >= 0.3.27)
            t = ffi.cast("void*", ctypes.cast(lib.openblas_set_num_threads_local,
                                              ctypes.c_void_p).value)
        except AttributeError:
            t = ffi.NULL
        return (*ptr, t)
    return ffi.NULL, ffi.NULL, ffi.NULL


_BLAS = None


def _header_text() -> str:
    with open(os.path.join(_NATIVE, "lazyjit_rt.h")) as f:
        return f.read()


_HEADER = None


def settings() -> tuple:
    """The flags a compile depends on, read from the configuration now (a compile in
    another thread must not read the configuration, which may have changed)."""
    return (config.compiler, tuple(cflags()), config.disk_cache, config.cache_dir)


def _key(source: str, opts: tuple) -> str:
    global _HEADER
    if _HEADER is None:
        _HEADER = _header_text()
    cmd = [opts[0], *opts[1], *_libs()]
    return xxhash.xxh3_128_hexdigest("\0".join([source, _HEADER, " ".join(cmd), _MACHINE]).encode())


def is_cached(source: str, opts: tuple) -> bool:
    """Whether ``source`` is loaded already or compiled on disk (a cheap :func:`load`)."""
    key = _key(source, opts)
    return key in _LOADED or (opts[2] and os.path.exists(
        os.path.join(opts[3], key[:2], key[2:] + ".so")))


def load(source: str, opts: tuple | None = None):
    """Return the loaded cffi library for ``source``, compiling it only on a true miss
    (neither in memory nor on disk); ``opts`` are :func:`settings` (default: now)."""
    global _BLAS
    opts = opts or settings()
    compiler, flags, disk_cache, cache_dir = opts
    cmd = [compiler, *flags, *_libs()]
    key = _key(source, opts)
    lib = _LOADED.get(key)
    if lib is not None:
        return lib
    with _LOCK:
        lib = _LOADED.get(key)
        if lib is not None:
            return lib
        path = _compiled_path(key, source, cmd, disk_cache, cache_dir)
        # never unloaded: OpenMP worker threads may still sit in a module's code at exit
        lib = ffi.dlopen(path, ffi.RTLD_NOW | getattr(ffi, "RTLD_NODELETE", 0))
        if _BLAS is None:
            _BLAS = _blas_pointers()
        lib.lj_set_blas(*_BLAS)
        _LOADED[key] = lib
        return lib


def _compiled_path(key: str, source: str, cmd: list[str], disk_cache: bool,
                   cache_dir: str) -> str:
    if disk_cache:
        folder = os.path.join(cache_dir, key[:2])
        path = os.path.join(folder, key[2:] + ".so")
        if os.path.exists(path):
            COUNTERS["disk_cache_hits"] += 1
            return path
        os.makedirs(folder, exist_ok=True)
    else:
        folder = tempfile.mkdtemp(prefix="lazyjit-")
        path = os.path.join(folder, key + ".so")
    fd, tmp_c = tempfile.mkstemp(suffix=".c", dir=folder)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    tmp_so = tmp_c[:-2] + ".so.tmp"
    try:
        proc = subprocess.run([cmd[0], *cmd[1:-len(_libs())], tmp_c, "-o", tmp_so,
                               *_libs()], capture_output=True, text=True)
        COUNTERS["compiles"] += 1
        if proc.returncode != 0:
            raise CompileError(f"lazyjit: C compilation failed ({' '.join(cmd)}):\n"
                               f"{proc.stderr[-4000:]}\nsource kept at {tmp_c}")
        os.replace(tmp_so, path)
    finally:
        if os.path.exists(tmp_so):
            os.unlink(tmp_so)
    os.unlink(tmp_c)
    return path
