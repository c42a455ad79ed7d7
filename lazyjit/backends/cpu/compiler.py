"""Compiling generated C: gcc through a subprocess, loaded with cffi, cached on disk.

The code cache key is an xxhash of the source, the headers of ``native/`` it may
include, the compiler command line and the machine (``-march=native`` code is not
portable).  Modules live in the disk cache of :mod:`.codecache`, which loads only the
user's own, verified libraries and lets one process compile a module while the others
wait for it; a module is compiled in a per-process work folder and renamed into place
(atomic), so a failed or interrupted compile never leaves a broken entry.  A large
module may be compiled as several translation units at once, one per core, and linked
(:func:`load`).  The compilers run in their own process groups and end with the call
(Ctrl-C, an exception, or even ``kill -9`` of this process).  BLAS is NumPy's own
OpenBLAS, whose ``cblas_?gemm`` addresses are handed to each module at load time (no
link-time dependency); where NumPy has none, a module of GEMM loops serves instead
(:data:`GEMM_LOOPS`).  The cffi declarations are :mod:`.cdefs`' (out of line: no C
parser at run time).
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import glob
import os
import platform
import shutil
import signal
import subprocess
import tempfile
import threading

import numpy as np
import xxhash

from lazyjit.backends.cpu import codecache, fft
from lazyjit.backends.cpu._ffi import ffi
from lazyjit.backends.cpu.cdefs import GEMM_TYPES
from lazyjit.backends.cpu.table import COMPLEX_GEMMS, LAPACK_NAMES, NAMES, SLOT
from lazyjit.config import config
from lazyjit.errors import op_error
from lazyjit.stats import count

_HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))), "native")
if not os.path.isdir(NATIVE):  # installed without the source tree
    NATIVE = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "native")

_LOADED: dict[str, object] = {}
_LOCK = threading.Lock()                      # guards _KEY_LOCKS and _BLAS's publication
_KEY_LOCKS: dict[str, threading.Lock] = {}    # one per module key: threads load it once


def _unlock_in_child() -> None:
    """In a forked child: the locks of the modules other threads of the parent were
    loading (held across their compiles) would stay held by threads the child has not,
    and its own load of one of those modules would wait forever."""
    global _LOCK
    _LOCK = threading.Lock()
    _KEY_LOCKS.clear()


os.register_at_fork(after_in_child=_unlock_in_child)


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
             f"-I{NATIVE}"]
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


def prelude(part: int | None = None) -> str:
    """Declarations every module starts with: the runtime header, vector-math
    declarations, BLAS function pointers and the parallel-region helper.  ``part`` is
    None for a module of one translation unit, else the unit's number in a module
    compiled in parts (:func:`load`): there the kernels and the BLAS pointers are hidden
    symbols shared among the units, each kernel defined in the unit that holds it, the
    BLAS pointers and ``lj_set_blas`` in part 0."""
    simd = "\n".join(f"__attribute__((simd(\"notinbranch\"))) {t} {n}({', '.join([t] * arity)});"
                     for n, t, arity in MVEC_FUNCS)
    hidden = '__attribute__((visibility("hidden")))'
    linkage = {None: ("static", "static"), 0: (hidden, hidden)}.get(
        part, (hidden, "extern " + hidden))
    setter = "" if part else f"""void lj_set_blas(void* s, void* d, void* t, void** lapack) {{
  lj_sgemm = (lj_sgemm_t)s; lj_dgemm = (lj_dgemm_t)d; lj_blas_threads = (lj_threads_t)t;
  for (int i = 0; i < {len(NAMES)}; i++) lj_lapack[i] = lapack[i];
}}
"""
    return f"""#include <stdint.h>
#include <string.h>
#include <math.h>
{simd}
#include "lazyjit_rt.h"
#define LJ_KERNEL {linkage[0]}
typedef void (*lj_sgemm_t)(int, int, int, int64_t, int64_t, int64_t, float, const float*,
                           int64_t, const float*, int64_t, float, float*, int64_t);
typedef void (*lj_dgemm_t)(int, int, int, int64_t, int64_t, int64_t, double, const double*,
                           int64_t, const double*, int64_t, double, double*, int64_t);
typedef void (*lj_cgemm_t)(int, int, int, int64_t, int64_t, int64_t, const void*,
                           const void*, int64_t, const void*, int64_t, const void*, void*,
                           int64_t);
typedef int (*lj_threads_t)(int);
{linkage[1]} lj_sgemm_t lj_sgemm;
{linkage[1]} lj_dgemm_t lj_dgemm;
{linkage[1]} lj_threads_t lj_blas_threads;
{linkage[1]} void* lj_lapack[{len(NAMES)}];  /* LAPACKE, complex GEMMs, host calls: table.py */
{setter}typedef void (*lj_items_t)(void**, const int64_t*, const int64_t*, int64_t, int64_t);
/* work items [0, count) of a kernel's loop function split among an OpenMP team: one
   parallel region serves every elementwise and reduction kernel with a loop function
   (one region per kernel made gcc take 20% longer) */
static __attribute__((noinline, unused)) void lj_parallel(lj_items_t f, void** B,
                                                          const int64_t* P, const int64_t* Q,
                                                          int64_t count) {{
  if (count < 2) {{  /* (one item: handed to another thread it took 130 us more) */
    f(B, P, Q, 0, count);
    return;
  }}
  #pragma omp parallel
  {{
    int nt = 1, t = 0;
#ifdef _OPENMP
    nt = omp_get_num_threads(); t = omp_get_thread_num();
#endif
    f(B, P, Q, count * t / nt, count * (t + 1) / nt);
  }}
}}
"""




def _address(lib, name: str):
    """The address of ``name`` in the ctypes library ``lib``, as a cffi ``void*``."""
    return ffi.cast("void*", ctypes.cast(getattr(lib, name), ctypes.c_void_p).value)


def _blas_pointers():
    """Addresses of NumPy's OpenBLAS ``cblas_sgemm``/``cblas_dgemm`` (ILP64), of
    ``openblas_set_num_threads_local`` and a table of its LAPACKE functions
    (:data:`LAPACK_NAMES`), or NULLs where NumPy has no OpenBLAS of its own (the GEMMs
    are then :data:`GEMM_LOOPS`', see :func:`_blas`)."""
    libdir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    lapack = ffi.new(f"void*[{len(NAMES)}]")  # (NULLs but the callback; kept by _BLAS)
    lapack[SLOT["fft"]] = ffi.cast("void*", fft.callback_address())
    for path in sorted(glob.glob(os.path.join(libdir, "libscipy_openblas64_*.so"))):
        try:
            lib = ctypes.CDLL(path)
            ptr = [_address(lib, f"scipy_cblas_{p}gemm64_") for p in "sd"]
        except (OSError, AttributeError):
            continue
        try:  # per-call thread count (OpenBLAS >= 0.3.27)
            t = _address(lib, "openblas_set_num_threads_local")
        except AttributeError:
            t = ffi.NULL
        for name in LAPACK_NAMES + COMPLEX_GEMMS:
            symbol = f"scipy_cblas_{name}64_" if name in COMPLEX_GEMMS else \
                f"scipy_LAPACKE_{name}_work64_"
            try:
                lapack[SLOT[name]] = _address(lib, symbol)
            except AttributeError:
                pass  # (a kernel that needs it fails its call, naming the library)
        return (*ptr, t, lapack)
    return ffi.NULL, ffi.NULL, ffi.NULL, lapack


_BLAS = None  # lj_set_blas's arguments, once known (see _blas)

# CBLAS's row-major ?gemm (C = alpha op(A) op(B) + beta C; beta 0 does not read C), as
# loops: the GEMMs of every module where NumPy has no OpenBLAS (compiled once, cached as
# any module), so that the kernels need no loop of their own (gcc's time per kernel)
GEMM_LOOPS = "".join(f"""
void lj_loop_{p}gemm(int order, int ta, int tb, int64_t M, int64_t N, int64_t K, {T} alpha,
                     const {T}* A, int64_t lda, const {T}* B, int64_t ldb, {T} beta, {T}* C,
                     int64_t ldc) {{
  const int64_t ai = ta == 112 ? 1 : lda, al = ta == 112 ? lda : 1;
  const int64_t bl = tb == 112 ? 1 : ldb, bj = tb == 112 ? ldb : 1;
  (void)order;  /* (row-major: 101, what the kernels pass) */
  #pragma omp parallel for if(M * N * K > 262144) schedule(static)
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {{
      {T} acc = 0;
      for (int64_t l = 0; l < K; l++) acc += A[i * ai + l * al] * B[l * bl + j * bj];
      C[i * ldc + j] = beta == 0 ? alpha * acc : alpha * acc + beta * C[i * ldc + j];
    }}
}}""" for p, T in GEMM_TYPES)


def _blas(opts: tuple):
    """The pointers every module is given (``lj_set_blas``'s arguments): NumPy's
    OpenBLAS, or :data:`GEMM_LOOPS` (compiled and loaded with ``opts`` then, the
    settings of the module that needs them; the other entries stay NULL).  Never a NULL
    GEMM: the kernels call them unchecked.  No lock is held while the loops compile (a
    process forked meanwhile would inherit it held: only ``load``'s lock of their key).

    Raises
    ------
    LazyjitError, CompileError
        The loops are needed and cannot be compiled (see :func:`load`)."""
    global _BLAS
    blas = _BLAS
    if blas is None:
        blas = _blas_pointers()
        if blas[0] == ffi.NULL or blas[1] == ffi.NULL:  # (the loops' module calls no GEMM)
            loops = load(prelude() + GEMM_LOOPS + "\n", opts, blas=blas)
            blas = (ffi.cast("void*", loops.lj_loop_sgemm),
                    ffi.cast("void*", loops.lj_loop_dgemm), ffi.NULL, blas[3])
        with _LOCK:
            if _BLAS is None:
                _BLAS = blas
            blas = _BLAS
    return blas


def _header_text() -> str:
    """The name and text of every header in ``native/`` (the runtime and the type-generic
    helpers a module may include), for the code cache key: editing one recompiles."""
    parts = []
    for path in sorted(glob.glob(os.path.join(NATIVE, "*.h"))):
        with open(path) as f:
            parts.append(f"{os.path.basename(path)}\0{f.read()}")
    return "\0".join(parts)


_HEADER = None


def settings() -> tuple:
    """The flags a compile depends on, read from the configuration now (a compile in
    another thread must not read the configuration, which may have changed):
    ``(compiler, cflags, disk_cache, cache_dir, strict_cache)``."""
    return (config.compiler, tuple(cflags()), config.disk_cache, config.cache_dir,
            config.strict_cache)


def _key(source: str, opts: tuple) -> str:
    global _HEADER
    if _HEADER is None:
        _HEADER = _header_text()
    cmd = [opts[0], *opts[1], *_libs()]
    text = "\0".join([source, _HEADER, " ".join(cmd), _MACHINE, codecache.LAYOUT])
    return xxhash.xxh3_128_hexdigest(text.encode())


def is_cached(source: str, opts: tuple) -> bool:
    """Whether ``source`` is loaded already or compiled on disk (a cheap :func:`load`:
    whether the entry verifies is left to :func:`load`)."""
    key = _key(source, opts)
    return key in _LOADED or (opts[2] and os.path.exists(
        os.path.join(opts[3], key[:2], key[2:] + ".so")))


def require_compiler(compiler: str) -> None:
    """Check that the C compiler command ``compiler`` (the ``compiler`` flag) can be run.

    Raises
    ------
    LazyjitError
        It is not on ``PATH``, does not exist or is not executable; the message names
        the command and the flag, and how to run without a compiler.
    """
    if shutil.which(compiler) is None:
        where = "does not exist or is not executable" if os.sep in compiler else \
            f"was not found on PATH ({os.environ.get('PATH', '')})"
        raise _no_compiler(compiler, where)


def _no_compiler(compiler: str, why: str) -> Exception:
    return op_error("compile", f"cannot run the C compiler {compiler!r}: it {why}. It is "
                    f"the `compiler` flag (compiler={compiler}): install a C compiler "
                    f"(gcc or clang) or point the flag at one (LAZYJIT_FLAGS=compiler=gcc, "
                    f"or lj.config(compiler=...)); LAZYJIT_FLAGS=backend=numpy runs "
                    f"without a compiler")


def load(source: str, opts: tuple | None = None, parts=None, blas: tuple | None = None):
    """Return the loaded cffi library for ``source``, compiling it only on a true miss
    (neither in memory nor verified on disk); ``opts`` are :func:`settings` (default:
    now).  Threads loading different modules compile concurrently; processes compiling
    the same module take turns (one compiles, the others load its result).

    ``parts(n)``, when given, renders the same module as ``n`` translation units
    (:func:`~lazyjit.backends.cpu.render.render_parts`): a large module is then
    compiled as one unit per core, in parallel, and linked (gcc's time grows with the
    module; the first call of a training step is mostly this compile).  The code cache
    key is ``source``'s either way, so the library does not depend on the core count.
    ``blas``: the module's ``lj_set_blas`` arguments when not :func:`_blas`'s (its own).

    Raises
    ------
    LazyjitError
        No usable C compiler (see :func:`require_compiler`), or ``strict_cache`` is set
        and the disk cache cannot be trusted.
    CompileError
        The compiler failed.
    """
    opts = opts or settings()
    key = _key(source, opts)
    lib = _LOADED.get(key)
    if lib is not None:
        return lib
    with _LOCK:
        key_lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with key_lock:
        lib = _LOADED.get(key)
        if lib is None:
            n = min(_CPUS, len(source) // PART_CHARS) if parts is not None else 1
            # (rendered only when a compile needs them: a disk-cache hit does not)
            units = (lambda: parts(n)) if n > 1 else (lambda: [source])
            lib = _LOADED[key] = _load_new(key, units, opts, blas)
        return lib


PART_CHARS = 12000  # source characters per translation unit, at least, when split
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _load_new(key: str, units, opts: tuple, blas: tuple | None):
    """Load module ``key`` from the disk cache, or compile ``units()`` (its translation
    units) and load that."""
    compiler, flags, disk_cache, cache_dir, strict = opts
    cmd = [compiler, *flags]
    root = codecache.root(cache_dir, strict) if disk_cache else None
    if root is not None:
        path = codecache.fetch(root, key, strict, lambda work: _build(units(), cmd, work))
        if path is not None:
            return _dlopen(path, opts, blas)
    # a private module (no disk cache, or none that can be trusted): loaded, then unlinked
    path = _build(units(), cmd, codecache.private_folder(root))
    try:
        return _dlopen(path, opts, blas)
    finally:
        os.unlink(path)


def _dlopen(path: str, opts: tuple, blas: tuple | None):
    # never unloaded: OpenMP worker threads may still sit in a module's code at exit
    lib = ffi.dlopen(path, ffi.RTLD_NOW | getattr(ffi, "RTLD_NODELETE", 0))
    lib.lj_set_blas(*(blas or _blas(opts)))
    return lib


def _build(units: list[str], cmd: list[str], folder: str) -> str:
    """Compile the translation units ``units`` of one module with ``cmd`` in the work
    ``folder`` (several: each to an object file, in parallel, then linked); return the
    library's temporary path there.  Nothing is left in ``folder`` but, after a failed
    compile, the sources (named in the error).

    Raises
    ------
    LazyjitError
        The compiler cannot be run.
    CompileError
        It failed.
    """
    require_compiler(cmd[0])
    sources = []
    for text in units:
        fd, path = tempfile.mkstemp(suffix=".c", dir=folder)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        sources.append(path)
    tmp_so = sources[0][:-2] + ".so.tmp"
    objects = [path[:-2] + ".o" for path in sources]
    keep_source = built = False
    try:
        if len(sources) == 1:
            jobs = [[*cmd, sources[0], "-o", tmp_so, *_libs()]]
        else:
            compile_only = [c for c in cmd if c != "-shared"] + ["-c"]
            jobs = [[*compile_only, src, "-o", obj] for src, obj in zip(sources, objects)]
        results = _run(jobs, folder)
        if len(sources) > 1 and all(code == 0 for code, _ in results):
            results += _run([[*cmd, *objects, "-o", tmp_so, *_libs()]], folder)
        count("compiles")
        for code, output in results:
            if code in (126, 127):  # the shell could not run it
                raise _no_compiler(cmd[0], f"could not be run ({output.strip()[-300:]})")
        failed = [output for code, output in results if code != 0]
        if failed:
            keep_source = True
            raise CompileError(f"lazyjit: C compilation failed ({' '.join(cmd)}):\n"
                               f"{failed[0][-4000:]}\nsource kept at {', '.join(sources)} "
                               f"until this process exits")
        if not os.path.exists(tmp_so):
            raise CompileError(f"lazyjit: the C compiler ({' '.join(cmd)}) exited without "
                               f"error but wrote no library")
        built = True
        return tmp_so
    finally:
        for path in objects + ([] if built else [tmp_so]) + ([] if keep_source else sources):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


# Runs the compiler ("$@": never parsed by a shell) in the background and waits for it;
# a watcher blocks reading fd 3, a pipe whose other end only the Python process holds:
# when that process dies (even by kill -9) the read ends and the watcher kills the whole
# process group (the compiler, cc1, as, ld), itself included.
_WRAPPER = ('exec 3<&0; "$@" 3<&- & c=$!; (read x <&3; kill -9 0) >/dev/null 2>&1 & '
            'w=$!; wait $c; s=$?; kill $w 2>/dev/null; exit $s')


def _run(jobs: list[list[str]], folder: str) -> list[tuple[int, str]]:
    """Run the commands ``jobs`` at once, each in its own process group with
    ``TMPDIR=folder``; return each one's exit status and output.  The compilers end with
    the call: an exception while waiting (Ctrl-C) kills their groups, and so does the
    death of this process (the wrapper)."""
    env = dict(os.environ, TMPDIR=folder)
    procs, pipes = [], []
    try:
        for args in jobs:
            child_end, parent_end = os.pipe()
            pipes.append(parent_end)
            try:
                procs.append(subprocess.Popen(
                    ["/bin/sh", "-c", _WRAPPER, "lazyjit-cc", *args], stdin=child_end,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                    process_group=0))
            finally:
                os.close(child_end)
        return [_wait(proc) for proc in procs]
    except BaseException:
        for proc in procs:
            if proc.returncode is None:  # (a reaped one's pid may be another's by now)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        raise
    finally:
        for end in pipes:
            os.close(end)
        for proc in procs:
            if proc.stdout is not None:
                proc.stdout.close()


def _wait(proc: subprocess.Popen) -> tuple[int, str]:
    output = proc.communicate()[0]
    return proc.returncode, output.decode(errors="replace")
