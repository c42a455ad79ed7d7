"""What a launch costs in the CUDA emulation (``cuda_emulate``): the tests' budget.

Run from the repository root::

    python benchmarks/cuda_emulation.py [--threads 32 64 128]

One ``@lj.jit`` call of three kernels on a 64x100 float32 input (``t * 2 + 1``, a
64-row block reduction ``t.sum(1)``: 64 outputs, each through the warp shuffles and
barriers, and an outer-axis ``t.max(0)``), per emulated block size, and NumPy's eager
time for the same three results as the reference.  The emulation exists to check
kernels, not to be fast: the number says how many emulated tests CI affords.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from lazyjit.backends.cuda import emulate  # noqa: E402


def per_call_ms(fn, n: int = 30) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[32, 64, 128])
    args = ap.parse_args()
    x = np.random.default_rng(0).random((64, 100), dtype=np.float32)
    ref = per_call_ms(lambda: (x * 2 + 1, x.sum(1), x.max(0)))
    print(f"NumPy eager: {ref:.3f} ms per call")
    f = lj.jit(lambda t: (t * 2 + 1, t.sum(1), t.max(0)))
    with lj.config(backend="cuda", cuda_emulate=True):
        t = lj.tensor(x)
        for threads in args.threads:
            emulate.THREADS = threads
            out = lj.realize(*f(t))
            np.testing.assert_allclose(out[1].numpy(), x.sum(1), rtol=1e-5)
            ms = per_call_ms(lambda: lj.realize(*f(t)))
            print(f"emulated, {threads} threads per block: {ms:.3f} ms per call "
                  f"(NumPy/this {ref / ms:.4f})")


if __name__ == "__main__":
    main()
