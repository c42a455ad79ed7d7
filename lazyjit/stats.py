"""Process-wide counters: ``lj.stats()`` returns their sums over every thread.

Each thread counts into its own dict (no lock on the hot paths, and no increment lost
when threads count at once); :func:`stats` adds them up, those of finished threads too.
"""
from __future__ import annotations

import threading

NAMES = (
    "compiles",            # compiler runs in this process
    "disk_cache_hits",     # compiled modules loaded from the disk cache
    "trace_cache_hits",    # realizes / jit calls that found a ready plan
    "trace_cache_misses",  # ... that had to build one
    "traces",              # runs of a jitted function's Python body (lj.jit traces)
    "kernels_run",         # kernels launched (cpu) or nodes evaluated (numpy)
    "nvrtc_checks",        # NVRTC compiles checking a CUDA source (cuda backend's cuda_check)
)
_ALL: list[tuple[threading.Thread, dict[str, int]]] = []  # live threads' counters
_DONE = dict.fromkeys(NAMES, 0)  # the counts of threads that have ended
_LOCK = threading.Lock()  # guards _ALL and _DONE (not the counting itself)


class _Counts(threading.local):
    def __init__(self) -> None:
        self.of = dict.fromkeys(NAMES, 0)
        with _LOCK:
            _ALL.append((threading.current_thread(), self.of))


COUNTS = _Counts()  # this thread's: COUNTS.of[name]


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to counter ``name`` (one of :data:`NAMES`) in this thread."""
    COUNTS.of[name] += n


def stats() -> dict[str, int]:
    """Return a dict of counters, summed over threads: ``compiles`` (compiler runs in this
    process), ``disk_cache_hits``, ``trace_cache_hits``, ``trace_cache_misses``,
    ``traces`` (runs of an ``@lj.jit`` function's Python body), ``kernels_run``,
    ``nvrtc_checks`` (NVRTC compiles that only check a CUDA source; those run on a GPU
    are ``compiles``)."""
    with _LOCK:
        for thread, c in [e for e in _ALL if not e[0].is_alive()]:  # folded, then dropped
            for k in NAMES:
                _DONE[k] += c[k]
            _ALL.remove((thread, c))
        return {k: _DONE[k] + sum(c[k] for _, c in _ALL) for k in NAMES}


def reset_stats() -> None:
    """Set every counter to zero (tests use it)."""
    with _LOCK:
        for c in [_DONE] + [c for _, c in _ALL]:
            for k in NAMES:
                c[k] = 0
