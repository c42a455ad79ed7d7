"""Process-wide counters: ``lj.stats()`` returns a copy."""
from __future__ import annotations

COUNTERS: dict[str, int] = {
    "compiles": 0,            # compiler runs in this process
    "disk_cache_hits": 0,     # compiled modules loaded from the disk cache
    "trace_cache_hits": 0,    # realizes / jit calls that found a ready plan
    "trace_cache_misses": 0,  # ... that had to build one
    "kernels_run": 0,         # kernels launched (cpu) or nodes evaluated (numpy)
}


def stats() -> dict[str, int]:
    """Return a dict of counters: ``compiles`` (compiler runs in this process),
    ``disk_cache_hits``, ``trace_cache_hits``, ``trace_cache_misses``, ``kernels_run``."""
    return dict(COUNTERS)


def reset_stats() -> None:
    """Set every counter to zero (tests use it)."""
    for k in COUNTERS:
        COUNTERS[k] = 0
