"""Elementwise, reduction and dispatch timings: lazyjit against NumPy (and torch / jax).

Run from the repository root::

    python benchmarks/elementwise.py [--quick]

Where ``OPENBLAS_CORETYPE`` or ``OPENBLAS_L2_SIZE`` is set, the script re-runs itself
without them (``timing.native_blas``), so NumPy's OpenBLAS uses this machine's kernels
(see shared/PERFORMANCE.md).  The backend is lazyjit's default (``cpu``) unless
``LAZYJIT_FLAGS=backend=numpy`` says otherwise.

Workloads (float32): ``exp(-x*x/2)*sin(3*x)+0.5*tanh(x)`` and ``a*x+b`` on 10,000,000
elements, ``sum`` along axis 1 and axis 0 of a 4096x4096 matrix, and the per-call
overhead of ``x*2+1`` on 10 floats: ``@lj.jit`` given a realized tensor (alone, and
followed by ``.numpy()`` on its result) and given a NumPy array, ``lj.function`` given a
NumPy array, eager lazyjit (built and realized), against NumPy's eager ``x*2+1``
(issue 16's targets: the jitted call plus ``.numpy()`` within 2x NumPy, a NumPy/this
ratio of 0.5 or more; eager within 6x, a ratio of 0.17 or more).  ``--quick`` uses
sizes ten times smaller (1,000,000 elements, 1024x1024) and fewer repeats: a smoke run,
not a measurement.

Each time is the median of several runs after warm-up calls.  lazyjit runs twice: as an
``@lj.jit`` function, and eager style (build the expression on a realized tensor, then
``.realize()``).  The ratio column is NumPy's time over the row's time (above 1: faster
than NumPy).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

if __name__ == "__main__":  # before NumPy loads OpenBLAS: this machine's BLAS kernels
    from timing import native_blas
    native_blas()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from timing import medians_ms  # noqa: E402

A, B = 2.0, 1.0


# ---- the workloads, once per library ------------------------------------------------------

def np_gauss_sin(x):
    return np.exp(-x * x / 2) * np.sin(3 * x) + 0.5 * np.tanh(x)


def lj_gauss_sin(x):
    return lj.exp(-x * x / 2) * lj.sin(3 * x) + 0.5 * lj.tanh(x)


def np_axpb(x):
    return A * x + B


def lj_axpb(x):
    return A * x + B


def lj_sum1(m):
    return m.sum(axis=1)


def lj_sum0(m):
    return m.sum(axis=0)


def lj_small(x):
    return x * 2 + 1


# ---- timing ---------------------------------------------------------------------------

def per_call_us(cases: list[tuple], repeats: int) -> list[float]:
    """Per ``(fn, iters)`` of ``cases``, the median over ``repeats`` loops of ``iters``
    calls of the mean time of one call of ``fn`` (microseconds).  The loops of all cases
    take turns, so that load from elsewhere on the machine spreads over all of them (their
    ratios are what to read)."""
    for fn, iters in cases:
        for _ in range(min(iters, 1000)):
            fn()
    times: list[list[float]] = [[] for _ in cases]
    for _ in range(repeats):
        for (fn, iters), ts in zip(cases, times, strict=True):
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            ts.append((time.perf_counter() - t0) / iters)
    return [statistics.median(ts) * 1e6 for ts in times]


# ---- optional peers -------------------------------------------------------------------

def torch_cases(x, m, xs):
    """``{workload: callable}`` for torch (CPU, eager), or ``{}`` when not importable."""
    try:
        import torch
    except ImportError:
        return {}
    tx, tm, txs = torch.from_numpy(x), torch.from_numpy(m), torch.from_numpy(xs)
    return {
        "gauss_sin": lambda: torch.exp(-tx * tx / 2) * torch.sin(3 * tx) + 0.5 * torch.tanh(tx),
        "axpb": lambda: A * tx + B,
        "sum1": lambda: tm.sum(dim=1),
        "sum0": lambda: tm.sum(dim=0),
        "small": lambda: txs * 2 + 1,
    }


def jax_cases(x, m, xs):
    """``{workload: callable}`` for ``jax.jit`` functions (blocking), or ``{}``."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return {}
    jx, jm, jxs = jnp.asarray(x), jnp.asarray(m), jnp.asarray(xs)
    f = jax.jit(lambda v: jnp.exp(-v * v / 2) * jnp.sin(3 * v) + 0.5 * jnp.tanh(v))
    g = jax.jit(lambda v: A * v + B)
    s1 = jax.jit(lambda v: v.sum(axis=1))
    s0 = jax.jit(lambda v: v.sum(axis=0))
    small = jax.jit(lambda v: v * 2 + 1)
    return {
        "gauss_sin": lambda: f(jx).block_until_ready(),
        "axpb": lambda: g(jx).block_until_ready(),
        "sum1": lambda: s1(jm).block_until_ready(),
        "sum0": lambda: s0(jm).block_until_ready(),
        "small": lambda: small(jxs).block_until_ready(),
    }


# ---- main -----------------------------------------------------------------------------

def check(name: str, got, want, rtol: float, atol: float) -> None:
    got = np.asarray(got)
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        err = float(np.max(np.abs(got.astype(np.float64) - want)))
        print(f"WARNING: {name}: lazyjit result differs from NumPy (max abs error {err:.3g})")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="10x smaller sizes and few repeats (a smoke run)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per case")
    args = parser.parse_args(argv)

    n, side = (1_000_000, 1024) if args.quick else (10_000_000, 4096)
    repeats = args.repeats or (3 if args.quick else 12)
    small_iters, small_repeats = (2_000, 3) if args.quick else (100_000, 5)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"note: {var} is set; NumPy timings are meant to be taken with it unset "
                  "(see this script's docstring)")
    print(f"lazyjit {lj.__version__}, backend={lj.config.backend}, NumPy {np.__version__}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
          + (" [--quick: reduced sizes]" if args.quick else ""))

    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    m = rng.standard_normal((side, side), dtype=np.float32)
    xs = rng.standard_normal(10, dtype=np.float32)
    lx, lm, lxs = lj.tensor(x), lj.tensor(m), lj.tensor(xs)

    cases = [  # (key, label, numpy fn, lazyjit fn, lazyjit input, numpy input)
        ("gauss_sin", f"exp(-x*x/2)*sin(3x)+0.5*tanh(x), n={n:,}", np_gauss_sin, lj_gauss_sin,
         lx, x),
        ("axpb", f"a*x+b, n={n:,}", np_axpb, lj_axpb, lx, x),
        ("sum1", f"sum axis 1, {side}x{side}", lambda v: v.sum(axis=1), lj_sum1, lm, m),
        ("sum0", f"sum axis 0, {side}x{side}", lambda v: v.sum(axis=0), lj_sum0, lm, m),
    ]
    peers = {"torch": torch_cases(x, m, xs), "jax.jit": jax_cases(x, m, xs)}
    for name in ("torch", "jax"):
        if not peers["torch" if name == "torch" else "jax.jit"]:
            print(f"({name} not importable: skipped)")

    rows = []  # (workload, implementation, ms)
    for key, label, np_fn, lj_fn, lin, nin in cases:
        want = np_fn(nin.astype(np.float64))
        jitted = lj.jit(lj_fn)
        check(f"{key} (jit)", jitted(lin), want, 1e-4, 1e-4 * math.sqrt(lin.size))
        check(f"{key} (eager)", lj_fn(lin).realize(), want, 1e-4, 1e-4 * math.sqrt(lin.size))
        impls = [("NumPy", lambda f=np_fn, a=nin: f(a)),
                 ("lazyjit @jit", lambda f=jitted, a=lin: f(a)),
                 ("lazyjit eager", lambda f=lj_fn, a=lin: f(a).realize())]
        impls += [(peer, fns[key]) for peer, fns in peers.items() if key in fns]
        times = medians_ms([fn for _, fn in impls], repeats)
        rows += [(label, name, ms, times[0]) for (name, _), ms in zip(impls, times)]

    print()
    print(f"{'workload':<46} {'implementation':<15} {'ms':>10} {'NumPy/this':>11}")
    for label, impl, ms, np_ms in rows:
        print(f"{label:<46} {impl:<15} {ms:>10.3f} {np_ms / ms:>11.2f}")

    # the cost of a call: x*2+1 on 10 floats, jitted, as an lj.function, eager
    small = lj.jit(lj_small)
    v = lj.vector("x", dtype=xs.dtype)
    small_fn = lj.function([v], lj_small(v))
    want = xs.astype(np.float64) * 2 + 1
    check("small (jit, tensor)", small(lxs), want, 1e-6, 1e-6)
    check("small (jit, ndarray)", small(xs), want, 1e-6, 1e-6)
    check("small (lj.function)", small_fn(xs), want, 1e-6, 1e-6)
    cases = [("NumPy eager", lambda: xs * 2 + 1, small_iters),
             ("@jit(tensor)", lambda: small(lxs), small_iters),
             ("@jit + .numpy()", lambda: small(lxs).numpy(), small_iters),
             ("@jit(ndarray)", lambda: small(xs), small_iters),
             ("lj.function", lambda: small_fn(xs), small_iters),
             ("lazyjit eager", lambda: lj_small(lxs).realize(), max(small_iters // 10, 100))]
    cases += [(peer, fns["small"], small_iters) for peer, fns in peers.items()
              if "small" in fns]
    times = per_call_us([(fn, iters) for _, fn, iters in cases], small_repeats)
    np_us = times[0]
    small_rows = [(impl, us) for (impl, _, _), us in zip(cases, times, strict=True)]
    print()
    print(f"{'x*2+1 on 10 float32, per call':<46} {'implementation':<15} {'us':>10} "
          f"{'NumPy/this':>11}")
    for impl, us in small_rows:
        print(f"{'':<46} {impl:<15} {us:>10.2f} {np_us / us:>11.2f}")
    print(f"\nlj.stats(): {lj.stats()}")


if __name__ == "__main__":
    main()
