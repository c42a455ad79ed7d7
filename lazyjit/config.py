"""The one place where lazyjit's flags are read.

Flags come from the ``LAZYJIT_FLAGS`` environment variable (comma-separated
``key=value`` pairs, e.g. ``backend=numpy,cache_dir=/tmp/x``) and can be changed
for a block with ``with lj.config(backend='numpy'): ...``.  An unknown flag or an
invalid value raises :class:`~lazyjit.LazyjitError` (a ``ValueError``) naming the flag.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import threading
from dataclasses import dataclass, fields
from typing import Any, Iterator

from lazyjit.errors import op_error


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in ("1", "true", "yes", "on"):
        return True
    if s in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected a boolean, got {v!r}")


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lazyjit")


_OPTIMIZERS = {"o1": "o1", "o2": "o2", "o3": "o3", "o4": "o4", "fast_compile": "o1",
               "fast_run": "o4", "unsafe": "unsafe", "none": "none"}


def _optimizer(v: Any) -> str:
    s = str(v).strip().lower()
    if s not in _OPTIMIZERS:
        raise ValueError(f"expected one of {sorted(_OPTIMIZERS)}, got {v!r}")
    return _OPTIMIZERS[s]


# the values of the conv_algo flag (lazyjit.backends.algorithms): how a convolution's
# implementation is chosen per shape, or the name of an implementation a backend may offer
CONV_POLICIES = ("guess_once", "time_once")
CONV_ALGORITHMS = ("gemm", "direct")


def _conv_algo(v: Any) -> str:
    s = str(v).strip().lower()
    if s not in CONV_POLICIES + CONV_ALGORITHMS:
        raise ValueError(f"expected one of {list(CONV_POLICIES + CONV_ALGORITHMS)}, got {v!r}")
    return s


def _backend(v: Any) -> str:
    s = str(v).strip().lower()
    if s not in ("cpu", "numpy", "ir", "cuda"):
        raise ValueError(f"expected 'cpu', 'numpy', 'ir' or 'cuda', got {v!r}")
    return s


@dataclass
class _Flags:
    backend: str = "cpu"
    cache_dir: str = ""
    openmp: bool = True
    optimizer: str = "o4"
    compiler: str = "cc"
    cflags: str = ""
    disk_cache: bool = True
    # an untrusted disk cache (another user's, or writable by others) is an error instead
    # of a warning and a private per-process compile (lazyjit.backends.cpu.codecache)
    strict_cache: bool = False
    # how convolutions choose their implementation per shape (lazyjit.backends.algorithms):
    # guess_once (a heuristic), time_once (time the candidates once), or an algorithm
    conv_algo: str = "guess_once"
    # the cuda backend runs its CUDA source on the CPU (lazyjit.backends.cuda.emulate)
    cuda_emulate: bool = False
    # every CUDA source is compiled by NVRTC for sm_80 and sm_90, a warning failing it
    cuda_check: bool = True


_PARSERS = {"backend": _backend, "cache_dir": str, "openmp": _bool, "optimizer": _optimizer,
            "compiler": str, "cflags": str, "disk_cache": _bool, "conv_algo": _conv_algo,
            "strict_cache": _bool, "cuda_emulate": _bool, "cuda_check": _bool}


class _Versions:
    """The version of the process-wide flags and the number of ``with`` blocks open in any
    thread (see :func:`flags_version`): a plain object, read at every jitted call
    (Config's own attributes go through its ``__getattr__`` hook)."""

    __slots__ = ("global_version", "scopes")

    def __init__(self) -> None:
        self.global_version, self.scopes = 0, 0


_V = _Versions()


def flags_version() -> int:
    """A number that changes whenever the flags this thread sees change (part of the keys
    of cached plans): unique to each set of flags in effect."""
    if not _V.scopes:  # (no thread-local lookup on the common path)
        return _V.global_version
    scope = getattr(config._local, "scope", None)
    return _V.global_version if scope is None else scope[1]


class Config:
    """Current flag values, readable as attributes (``lj.config.backend``).

    Setting an attribute (``lj.config.backend = 'numpy'``) changes the flag for the whole
    process.  Calling the object, ``lj.config(backend='numpy')``, returns a context
    manager that sets the given flags for a ``with`` block in the calling thread only
    (as ``torch.no_grad``), and restores them afterwards; other threads keep theirs.
    """

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", _Flags(cache_dir=_default_cache_dir()))
        _V.global_version = next(_VERSIONS)
        object.__setattr__(self, "_local", threading.local())  # .scope: (flags, version)
        text = os.environ.get("LAZYJIT_FLAGS", "")
        try:
            self._apply(_parse_env(text))
        except ValueError as e:
            raise type(e)(f"in LAZYJIT_FLAGS={text!r}: {e}") from None

    @staticmethod
    def _parse(values: dict[str, Any]) -> dict[str, Any]:
        parsed = {}
        for key, value in values.items():
            if key not in _PARSERS:
                known = ", ".join(sorted(_PARSERS))
                raise op_error("config", f"unknown flag {key!r} (known flags: {known})")
            try:
                parsed[key] = _PARSERS[key](value)
            except ValueError as e:
                raise op_error("config", f"bad value for flag {key!r}: {e}") from None
        return parsed

    def _apply(self, values: dict[str, Any]) -> None:
        """Set flags for the whole process (a ``with`` block in this thread keeps its own)."""
        for key, value in self._parse(values).items():
            setattr(self._flags, key, value)
        _V.global_version = next(_VERSIONS)

    def _scope(self) -> tuple | None:
        return getattr(self._local, "scope", None)

    def __getattr__(self, name: str) -> Any:
        get = object.__getattribute__
        scope = getattr(get(self, "_local"), "scope", None) if _V.scopes else None
        flags = get(self, "_flags") if scope is None else scope[0]
        if name in _PARSERS:
            return getattr(flags, name)
        raise AttributeError(f"lazyjit: unknown flag {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._apply({name: value})
        scope = self._scope()
        if scope is not None:  # inside a with block: this thread sees the change too
            self._local.scope = (dataclasses.replace(scope[0], **self._parse({name: value})),
                                 next(_VERSIONS))

    def snapshot(self) -> dict[str, Any]:
        """Return the flags in effect in this thread as a dict."""
        scope = self._scope()
        flags = self._flags if scope is None else scope[0]
        return {f.name: getattr(flags, f.name) for f in fields(_Flags)}

    def __call__(self, **flags: Any) -> contextlib.AbstractContextManager[Config]:
        parsed = self._parse(flags)  # bad flags fail at the caller's line, not at the block
        return self._scoped(parsed)

    @contextlib.contextmanager
    def _scoped(self, parsed: dict[str, Any]) -> Iterator[Config]:
        outer = self._scope()
        flags = dataclasses.replace(self._flags if outer is None else outer[0], **parsed)
        with _SCOPES_LOCK:
            _V.scopes += 1
        self._local.scope = (flags, next(_VERSIONS))
        try:
            yield self
        finally:
            self._local.scope = outer
            with _SCOPES_LOCK:
                _V.scopes -= 1


_VERSIONS = itertools.count()  # flag sets in effect (flags_version), process-wide
_SCOPES_LOCK = threading.Lock()


def _parse_env(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"lazyjit: LAZYJIT_FLAGS entry {item!r} is not key=value")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


config = Config()

# Idle OpenMP threads sleep instead of spinning: on machines with few cores a spinning
# team competes with Python and OpenBLAS (measured: a*x+b on 10M floats 12 ms spinning,
# 3 ms passive, on 2 vCPUs).  Must be set before libgomp loads; the user's value wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
