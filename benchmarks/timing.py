"""Timing shared by the benchmarks: medians of interleaved rounds, each implementation
starting from idle worker threads."""
from __future__ import annotations

import os
import statistics
import sys
import time

# set in some environments (CI): OpenBLAS then runs Haswell kernels with a 512 KiB L2
# on any CPU, 2x slower GEMMs on AVX-512 machines; torch's MKL ignores them
BLAS_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def native_blas() -> None:
    """Re-run the benchmark without :data:`BLAS_ENV` if set, so that NumPy's OpenBLAS
    (which lazyjit calls for GEMMs) uses this machine's kernels, as the peers do.  Call
    before NumPy is imported; ``LAZYJIT_KEEP_BLAS_ENV=1`` keeps them."""
    found = {k: os.environ[k] for k in BLAS_ENV if k in os.environ}
    if not found or os.environ.get("LAZYJIT_KEEP_BLAS_ENV") == "1":
        return
    print("(re-running without " + ", ".join(f"{k}={v}" for k, v in found.items()) +
          ": NumPy's OpenBLAS would use another CPU's kernels)", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in BLAS_ENV}
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

IDLE_S = 0.3  # OpenBLAS's worker threads spin ~0.1 s after a call before sleeping
# warm-up calls run for at least this long after the pause: on our 2-core host a pass
# over 64 MiB took 5 ms right after a pause and 1.4-3.5 ms (NumPy, lazyjit, one thread
# or two) only after 30-50 ms of calls, so two warm-up calls timed the host's recovery
WARM_S = 0.1


def medians_ms(fns: list, repeats: int, warmup: int = 2, rounds: int = 3) -> list[float]:
    """Median wall time in milliseconds of one call of each callable in ``fns``
    (:func:`paired_ms` without the ratios)."""
    return paired_ms(fns, repeats, warmup, rounds)[0]


def paired_ms(fns: list, repeats: int, warmup: int = 2,
              rounds: int = 3) -> tuple[list[float], list[float]]:
    """Median wall time in milliseconds of one call of each callable in ``fns``, and
    for each the median over rounds of ``fns[0]``'s round median over its own (the
    ratio of two implementations timed minutes apart follows the machine's drift;
    within a round they run seconds apart).

    In each of ``rounds`` rounds every callable runs in turn: a pause of ``IDLE_S`` (so
    the previous library's worker threads, still spinning after its last call, have
    gone to sleep and do not compete with the next one), untimed calls (``warmup`` of
    them, and more until :data:`WARM_S` has passed), then its share of the ``repeats``
    timed calls.  The rounds spread bursts of load from
    elsewhere on the machine over all implementations; when one implementation's rounds
    disagree by more than :data:`UNSTABLE` (a burst longer than a round), a warning on
    standard error says that the numbers of this run are not to be trusted."""
    times: list[list[float]] = [[] for _ in fns]
    rounds_of: list[list[float]] = [[] for _ in fns]  # per callable, each round's median
    per_round = max(repeats // rounds, 1)
    for _ in range(rounds):
        for fn, ts, rs in zip(fns, times, rounds_of, strict=True):
            time.sleep(IDLE_S)
            start, done = time.perf_counter(), 0
            while done < warmup or time.perf_counter() - start < WARM_S:
                fn()
                done += 1
            this = []
            for _ in range(per_round):
                t0 = time.perf_counter()
                fn()
                this.append(time.perf_counter() - t0)
            ts.extend(this)
            rs.append(statistics.median(this))
    spread = max(max(rs) / max(min(rs), 1e-12) for rs in rounds_of)
    if spread > UNSTABLE:
        print(f"warning: the timed rounds of one implementation differ {spread:.1f}x (other "
              "processes using the CPU?): rerun on a quiet machine before trusting these "
              "numbers", file=sys.stderr, flush=True)
    ratios = [statistics.median(a / b for a, b in zip(rounds_of[0], rs, strict=True))
              for rs in rounds_of]
    return [statistics.median(ts) * 1e3 for ts in times], ratios


UNSTABLE = 1.5  # largest ratio of one implementation's round medians taken as quiet


def peer_calls(arrays: list, jax_of=None, torch_of=None) -> list[tuple[str, object]]:
    """``(label, callable)`` for the peers that are importable, each called on ``arrays``:
    ``jax_of(jax.numpy)`` jitted (float64 enabled, waiting for the result) and
    ``torch_of(torch)`` on tensors sharing the NumPy ``arrays``' memory."""
    out = []
    if jax_of is not None:
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
            jf = jax.jit(jax_of(jnp))
            out.append(("jax", lambda: jf(*arrays).block_until_ready()))
        except ImportError:
            pass
    if torch_of is not None:
        try:
            import torch
            tf, ts = torch_of(torch), [torch.from_numpy(x) for x in arrays]
            out.append(("torch", lambda: tf(*ts)))
        except ImportError:
            pass
    return out
