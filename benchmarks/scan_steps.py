"""Per-step cost of a loop: a 10,000-step scan of a scalar body, ``h = 0.5 * h + x_t``.

Run from the repository root::

    python benchmarks/scan_steps.py [--steps 10000]

With a scalar body the time is all loop overhead: lazyjit's ``cpu`` backend runs the
whole loop inside the compiled module (no Python per step); the NumPy baseline is a
Python ``for`` loop over NumPy scalars (what eager code does); ``jax.lax.scan`` under
``jax.jit`` runs in the same process when jax is installed.  Every result is checked
against the NumPy loop.  Also reported: whether a new sequence length compiles anything.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from timing import medians_ms  # noqa: E402


def numpy_loop(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    h = x.dtype.type(0)
    half = x.dtype.type(0.5)
    for t in range(len(x)):
        h = half * h + x[t]
        out[t] = h
    return out


@lj.jit
def lazyjit_scan(x):
    ys, _ = lj.scan(lambda x_t, h: 0.5 * h + x_t, sequences=x,
                    outputs_info=lj.zeros((), x.dtype))
    return ys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10_000)
    args = ap.parse_args()
    x = np.random.default_rng(0).standard_normal(args.steps).astype(np.float32)
    ref = numpy_loop(x)
    got = lazyjit_scan(x).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    names, fns = ["lazyjit scan (cpu)", "NumPy Python loop"], [
        lambda: lazyjit_scan(x).numpy(), lambda: numpy_loop(x)]
    try:
        import jax
        import jax.numpy as jnp

        @jax.jit
        def jax_scan(xs):
            def body(h, x_t):
                h = 0.5 * h + x_t
                return h, h
            return jax.lax.scan(body, jnp.zeros((), xs.dtype), xs)[1]
        xj = jnp.asarray(x)
        np.testing.assert_allclose(np.asarray(jax_scan(xj)), ref, rtol=1e-5, atol=1e-5)
        names.append("jax lax.scan (jit)")
        fns.append(lambda: jax_scan(xj).block_until_ready())
    except ImportError:
        print("jax: not installed")
    times = medians_ms(fns, repeats=30)
    print(f"{args.steps} steps of h = 0.5*h + x_t (float32), backend {lj.config.backend}")
    print(f"{'implementation':24s} {'per call (ms)':>14s} {'per step (us)':>14s}")
    for name, ms in zip(names, times):
        print(f"{name:24s} {ms:14.3f} {ms * 1e3 / args.steps:14.4f}")
    before = lj.stats()["compiles"]
    for n in (args.steps // 2, args.steps // 3 + 1):
        lazyjit_scan(x[:n]).numpy()
    print(f"new sequence lengths compiled {lj.stats()['compiles'] - before} modules")


if __name__ == "__main__":
    main()
