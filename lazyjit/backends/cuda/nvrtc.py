"""Compiling CUDA sources with NVRTC (no GPU needed), kept in lazyjit's code cache.

NVRTC is NVIDIA's pip package ``nvidia-cuda-nvrtc-cu12`` (part of ``pip install
lazyjit[cuda]``), called through ``ctypes``: a compile releases the GIL, so the checks
of :func:`check` run beside the C compiler and each other, and a machine without a GPU
compiles CUDA C exactly as a GPU machine does.  Warnings are errors: NVRTC has no
``-Werror``, so a compile whose log is not empty fails.  The headers of ``native/`` that
a module includes are handed to NVRTC by name (it reads no file); a module with
complex values (``LJ_COMPLEX``) also includes libcu++'s ``<cuda/std/complex>``, found
by :func:`libcudacxx` (NVIDIA's pip wheel ``nvidia-cuda-cccl-cu12``, cupy's copy, or the
CUDA toolkit's).

A compiled image (cubin) is stored in the disk cache of :mod:`lazyjit.backends.cpu.codecache`
(the user's own folder, digests checked before anything is loaded) under a key of the
source, the headers, the options and NVRTC's version, so another process compiles
nothing.  :func:`check` compiles a source for every architecture of :data:`CHECK_ARCHS`
(to its PTX, ``compute_80`` for ``sm_80``: NVRTC's errors and warnings, without ptxas's
SASS, which a GPU run makes for its own device): what the test suite does for every
CUDA source it generates, on any machine.
"""
from __future__ import annotations

import atexit
import collections
import ctypes
import glob
import importlib.util
import os
import shutil
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import xxhash

from lazyjit.backends.cpu import codecache, compiler
from lazyjit.config import config
from lazyjit.stats import count

CHECK_ARCHS = ("sm_80", "sm_90")
HEADERS = ("lazyjit_cuda.h", "lazyjit_rt.h")
# IEEE float semantics as the C modules have them (no fused multiply-add: the same
# numbers as cpu), C++17
OPTIONS = ("-std=c++17", "--fmad=false", "--diag-suppress=177,550")

_DONE: set[tuple[str, str]] = set()  # (source's digest, arch) checked in this process
_LOCK = threading.Lock()


class CudaCompileError(RuntimeError):
    """NVRTC failed or warned; the message holds its log and the source's path."""


def _headers() -> list[tuple[str, str]]:
    """(name, text) of the headers a module may include, read now."""
    out = []
    for name in HEADERS:
        with open(os.path.join(compiler.NATIVE, name)) as f:
            out.append((name, f.read()))
    return out


class _Library:
    """libnvrtc, loaded on first use."""

    def __init__(self):
        self.lib: ctypes.CDLL | None = None
        self.lock = threading.Lock()

    def get(self) -> ctypes.CDLL:
        """The loaded library.

        Raises
        ------
        ImportError
            NVRTC is not installed (the message says how to install it).
        """
        with self.lock:
            if self.lib is None:
                self.lib = _load()
            return self.lib


def _load() -> ctypes.CDLL:
    """libnvrtc: NVIDIA's pip wheel's (CUDA 12 or 13 layouts), else the system's (the
    loader's path, then ``$CUDA_HOME/lib64``)."""
    found = []
    try:
        import nvidia
        for d in nvidia.__path__:
            found += glob.glob(os.path.join(d, "**", "libnvrtc.so.[0-9]*"), recursive=True)
    except ImportError:
        pass
    found = sorted(p for p in found if "builtins" not in os.path.basename(p)
                   and ".alt." not in os.path.basename(p))
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    names = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
             os.path.join(home, "lib64", "libnvrtc.so")]
    for path in found + names:
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError:
            continue
    else:
        raise ImportError("lazyjit: the cuda backend needs NVRTC: pip install "
                          "'lazyjit[cuda]' (or nvidia-cuda-nvrtc-cu12 alone, enough to "
                          "emulate: LAZYJIT_FLAGS=backend=cuda,cuda_emulate=true)")
    P, c = ctypes.POINTER, ctypes
    lib.nvrtcCreateProgram.argtypes = [P(c.c_void_p), c.c_char_p, c.c_char_p, c.c_int,
                                       P(c.c_char_p), P(c.c_char_p)]
    lib.nvrtcCompileProgram.argtypes = [c.c_void_p, c.c_int, P(c.c_char_p)]
    for name in ("nvrtcGetProgramLogSize", "nvrtcGetCUBINSize", "nvrtcGetPTXSize"):
        getattr(lib, name).argtypes = [c.c_void_p, P(c.c_size_t)]
    for name in ("nvrtcGetProgramLog", "nvrtcGetCUBIN", "nvrtcGetPTX"):
        getattr(lib, name).argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcDestroyProgram.argtypes = [P(c.c_void_p)]
    if hasattr(lib, "nvrtcGetPCHCreateStatus"):  # (NVRTC >= 12.8)
        lib.nvrtcGetPCHCreateStatus.argtypes = [c.c_void_p]
    lib.nvrtcGetErrorString.restype = c.c_char_p
    return lib


_LIB = _Library()


def version() -> tuple[int, int]:
    """NVRTC's version (raises ``ImportError`` when it is not installed)."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    _LIB.get().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


_CCCL: list = []  # [include folder or None], found once


def libcudacxx() -> str | None:
    """The include folder holding libcu++'s ``cuda/std/complex``: NVIDIA's pip wheel's
    (``nvidia-cuda-cccl-cu12``), cupy's copy, then ``$CUDA_HOME/include``; None where
    none is installed."""
    if not _CCCL:
        found = []
        try:
            import nvidia
            for d in nvidia.__path__:
                found += sorted(glob.glob(os.path.join(d, "*", "include")))
        except ImportError:
            pass
        spec = importlib.util.find_spec("cupy")
        if spec is not None and spec.submodule_search_locations:
            found += [os.path.join(p, "_core", "include", "cupy", "_cccl", "libcudacxx")
                      for p in spec.submodule_search_locations]
        found.append(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include"))
        _CCCL.append(next((d for d in found
                           if os.path.isfile(os.path.join(d, "cuda", "std", "complex"))), None))
    return _CCCL[0]


def _options(source: str) -> tuple[list[str], str]:
    """The options compiling ``source`` beyond :data:`OPTIONS`, and what of the headers
    they name goes into its key (libcu++'s folder and version, for a complex module).

    Raises
    ------
    ImportError
        ``source`` has complex values and no libcu++ is installed.
    """
    if "#define LJ_COMPLEX" not in source:
        return [], ""
    inc = libcudacxx()
    if inc is None:
        raise ImportError("lazyjit: complex tensors on the cuda backend need libcu++'s "
                          "headers: pip install 'lazyjit[cuda]' (or nvidia-cuda-cccl-cu12 "
                          "alone)")
    stamp = [os.path.realpath(inc)]  # (the folder a link names; the version; sizes, times)
    for part in (("__cccl", "version.h"), ("complex",)):
        path = os.path.join(inc, "cuda", "std", *part)
        try:
            st = os.stat(path)
            with open(path) as f:
                stamp += [f.read(), f"{st.st_size} {st.st_mtime_ns}"]
        except OSError:
            stamp.append("-")
    return [f"-I{inc}"], "\0".join(stamp)


def _arch_options(arch: str) -> list[str]:
    """The options naming ``arch``: a virtual architecture (``compute_90``, the checks of
    :func:`check`, whose PTX no GPU runs) is compiled with NVRTC's fast-compile mode
    where it has one (12.8 and later), the same front end and code generator, with less
    optimization: 40% less time than the default."""
    fast = arch.startswith("compute_") and version() >= (12, 8)
    return [f"-arch={arch}", *(["--Ofast-compile=max"] if fast else [])]


def key(source: str, arch: str, headers: list[tuple[str, str]]) -> str:
    """The code cache key of ``source`` compiled for ``arch`` with ``headers``."""
    parts = [source, *(t for _, t in headers), " ".join(_arch_options(arch)),
             " ".join(OPTIONS), str(version()), _options(source)[1]]
    return xxhash.xxh3_128_hexdigest("\0".join(parts).encode())


def compile_image(source: str, arch: str, counter: str = "compiles",
                  headers: list[tuple[str, str]] | None = None) -> bytes:
    """The cubin of ``source`` for ``arch`` (``"sm_90"``), compiled now with ``headers``
    (default: read now), counted as ``counter`` in ``lj.stats()``.

    Raises
    ------
    CudaCompileError
        NVRTC reported an error or a warning.
    """
    headers = headers if headers is not None else _headers()
    options = [*_arch_options(arch), *OPTIONS, *_options(source)[0]]
    if "#define LJ_COMPLEX" not in source or version() < (12, 8):
        return _compile(source, arch, counter, headers, options)
    return _compile_with_pch(source, arch, counter, headers, options)


# Precompiled headers (NVRTC >= 12.8) of modules with complex values, whose libcu++
# prefix takes NVRTC 1.5-2 s a compile and 0.2 s from a precompiled header (about 75 MB
# each): one per architecture and header text, made by this process in a folder of its
# own (mkdtemp: no other user writes there), used by this process only, removed at its
# exit (by the process that made it, not a forked child)
_PCH_DIR: list[str] = []
_PCH: dict[tuple[str, str], str] = {}
_PCH_LOCKS: collections.defaultdict = collections.defaultdict(threading.Lock)
_PCH_LOCK = threading.Lock()  # guards _PCH_DIR and _PCH_LOCKS


def _remove_pch_dir(folder: str, pid: int) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, True)


def _compile_with_pch(source: str, arch: str, counter: str,
                      headers: list[tuple[str, str]], options: list[str]) -> bytes:
    """:func:`compile_image` of a module with complex values: the first of each
    architecture and header text makes the precompiled header, the next use it; one
    that cannot be used (removed meanwhile) is dropped, and the module compiled without."""
    prefix = "\0".join([*options, *(t for _, t in headers)])
    k = (arch, xxhash.xxh3_128_hexdigest(prefix.encode()))
    with _PCH_LOCK:
        lock = _PCH_LOCKS[k]
        if not _PCH_DIR:
            _PCH_DIR.append(tempfile.mkdtemp(prefix="lazyjit-pch-"))
            atexit.register(_remove_pch_dir, _PCH_DIR[0], os.getpid())
    quiet = "--pch-messages=false"
    with lock:  # (one compile makes each precompiled header; then any number use it)
        path = _PCH.get(k)
        if path is None:
            path = os.path.join(_PCH_DIR[0], f"{arch}-{k[1]}.pch")
            return _compile(source, arch, counter, headers,
                            [*options, f"--create-pch={path}", quiet],
                            lambda ok: _PCH.__setitem__(k, path) if ok else None)
        if os.path.isfile(path):
            try:
                return _compile(source, arch, counter, headers,
                                [*options, f"--use-pch={path}", quiet])
            except CudaCompileError:
                pass  # (without the header, below: its error, if the source has one)
        _PCH.pop(k, None)
    return _compile(source, arch, counter, headers, options)


def _compile(source: str, arch: str, counter: str, headers: list[tuple[str, str]],
             options: list[str], made_pch=None) -> bytes:
    """:func:`compile_image` with these ``options``; ``made_pch(ok)`` is told whether
    the compile made the precompiled header its options asked for."""
    lib, c = _LIB.get(), ctypes
    names = (c.c_char_p * len(headers))(*(n.encode() for n, _ in headers))
    texts = (c.c_char_p * len(headers))(*(t.encode() for _, t in headers))
    options = [o.encode() for o in options]
    prog = c.c_void_p()
    _ok(lib, lib.nvrtcCreateProgram(c.byref(prog), source.encode(), b"lazyjit.cu",
                                    len(headers), texts, names))
    try:
        status = lib.nvrtcCompileProgram(prog, len(options),
                                         (c.c_char_p * len(options))(*options))
        size = c.c_size_t()
        _ok(lib, lib.nvrtcGetProgramLogSize(prog, c.byref(size)))
        buf = c.create_string_buffer(size.value)
        _ok(lib, lib.nvrtcGetProgramLog(prog, buf))
        log = buf.value.decode(errors="replace").strip()
        count(counter)
        if status or log:
            fd, path = tempfile.mkstemp(suffix=".cu", prefix="lazyjit-")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            why = lib.nvrtcGetErrorString(status).decode() if status else \
                "a warning is an error"
            raise CudaCompileError(f"lazyjit: NVRTC {'failed' if status else 'warned'} "
                                   f"compiling for {arch} ({why}):\n{log[-4000:]}\n"
                                   f"source: {path}")
        ptx = arch.startswith("compute_")  # (a virtual architecture: PTX, no SASS)
        _ok(lib, (lib.nvrtcGetPTXSize if ptx else lib.nvrtcGetCUBINSize)(prog, c.byref(size)))
        buf = c.create_string_buffer(size.value)
        _ok(lib, (lib.nvrtcGetPTX if ptx else lib.nvrtcGetCUBIN)(prog, buf))
        if made_pch is not None:
            made_pch(lib.nvrtcGetPCHCreateStatus(prog) == 0)
        return buf.raw
    finally:
        lib.nvrtcDestroyProgram(c.byref(prog))


def _ok(lib, status: int) -> None:
    """Raise :class:`CudaCompileError` for a failed NVRTC call (``status`` nonzero)."""
    if status:
        raise CudaCompileError(f"lazyjit: NVRTC: {lib.nvrtcGetErrorString(status).decode()}")


_IMAGES: collections.OrderedDict = collections.OrderedDict()  # key -> cubin, this process's
_MAX_IMAGES = 256  # (the most recently used; a cubin is tens of kB)


def image(source: str, arch: str, counter: str = "compiles") -> bytes:
    """The cubin of ``source`` for ``arch``: one this process made or read before (kept
    in memory under its key), else from the disk cache (its bytes checked against their
    digest, then loaded from those very bytes), else NVRTC's (then stored).  An
    untrusted cache warns (raises with ``strict_cache``) and compiles privately."""
    headers = _headers()  # (read once: the key and the compile see the same text)
    k = key(source, arch, headers)
    with _LOCK:
        data = _IMAGES.get(k)
        if data is not None:
            _IMAGES.move_to_end(k)
            return data
    data = _image(source, arch, counter, headers, k)
    with _LOCK:
        _IMAGES[k] = data
        if len(_IMAGES) > _MAX_IMAGES:
            _IMAGES.popitem(last=False)
    return data


def _image(source: str, arch: str, counter: str, headers: list, k: str) -> bytes:
    strict = config.strict_cache
    root = codecache.root(config.cache_dir, strict) if config.disk_cache else None
    if root is not None:
        def build(work: str) -> str:
            data = compile_image(source, arch, counter, headers)
            fd, path = tempfile.mkstemp(suffix=".cubin", dir=work)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return path
        if codecache.fetch(root, k, strict, build) is not None:
            try:
                data = codecache.read_verified(root, k)
            except codecache.Untrusted as e:
                codecache.distrust(f"not loading compiled code: {e}", strict)
                data = None
            if data is not None:
                return data
    return compile_image(source, arch, counter, headers)


_POOL = ThreadPoolExecutor(max_workers=len(CHECK_ARCHS), thread_name_prefix="lazyjit-nvrtc")


def check(source: str) -> list[Future]:
    """Start compiling ``source`` for every architecture of :data:`CHECK_ARCHS` (once
    per process and cache), in background threads; :func:`wait` for the futures."""
    opts = (config.cache_dir, config.strict_cache, config.disk_cache)  # (read here)
    return [_POOL.submit(_check_one, source, arch, opts) for arch in CHECK_ARCHS]


def wait(checks: list[Future]) -> None:
    """Wait for the checks of :func:`check`.

    Raises
    ------
    CudaCompileError
        NVRTC failed or warned for one of the architectures.
    ImportError
        NVRTC is not installed.
    """
    for f in checks:
        f.result()


def _check_one(source: str, arch: str, opts: tuple) -> None:
    """One check of :func:`check` (in a pool thread: the caller's flags in ``opts``)."""
    k = (xxhash.xxh3_128_hexdigest(source.encode()), arch)
    if k in _DONE:
        return
    with config(cache_dir=opts[0], strict_cache=opts[1], disk_cache=opts[2]):
        # (to the architecture's PTX: NVRTC's front end and code generator, whose errors
        # and warnings the check is for, at a third of the time of SASS through ptxas;
        # a GPU run compiles the SASS of its own device)
        image(source, arch.replace("sm_", "compute_"), "nvrtc_checks")
    with _LOCK:
        _DONE.add(k)
