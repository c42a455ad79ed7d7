"""Complex numbers and FFTs: lazyjit (jitted) against NumPy (and ``jax.numpy`` and
``torch`` when importable), in one run.

Run from the repository root::

    python benchmarks/complex_fft.py [--quick]

Each row times one call; the ratio is NumPy's time over the implementation's (above 1:
faster than NumPy).  Rows: a complex128 matrix product (CBLAS's zgemm for both), a
fused complex elementwise expression, a complex sum, batched ``rfft`` and ``irfft``
(NumPy's pocketfft for both: lazyjit's compiled code calls it back), a 2-D FFT, and a
spectral training step: the value and gradient of ``sum(|fft(x * w)|**2)`` (NumPy has no
gradient: its column is the forward pass alone, a floor).
"""
from __future__ import annotations

import argparse
import os
import sys

if __name__ == "__main__":  # before NumPy loads OpenBLAS: this machine's BLAS kernels
    from timing import native_blas
    native_blas()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from timing import medians_ms, peer_calls  # noqa: E402


def _rows(rng, quick: bool) -> dict:
    n, m, b = (128, 1 << 16, 16) if quick else (256, 1 << 20, 64)
    a = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    z = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    w = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    sig = rng.standard_normal((b, 4096))
    img = rng.standard_normal((512, 512)) if not quick else rng.standard_normal((128, 128))
    spec = np.fft.rfft(sig)
    return {  # name: (function of a namespace m, arrays)
        "matmul": (lambda m, x: x @ x, (a,)),
        "exp(z)*w+1": (lambda m, x, y: m.exp(x) * y + 1, (z, w)),
        "sum": (lambda m, x: m.sum(x), (z,)),
        "rfft": (lambda m, x: m.fft.rfft(x), (sig,)),
        "irfft": (lambda m, x: m.fft.irfft(x, 4096), (spec,)),
        "fft2": (lambda m, x: m.fft.fft2(x), (img,)),
    }


def _peers(fn, arrays) -> list:
    """(label, callable) for jax and torch when importable."""
    return peer_calls(arrays, lambda jnp: lambda *xs: fn(jnp, *xs),
                      lambda torch: lambda *xs: fn(torch, *xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    repeats = 10 if args.quick else 30
    print(f"{'op':12s} {'NumPy ms':>9s} {'lazyjit':>8s} {'ratio':>6s}   peers (ratio)")
    for name, (fn, arrays) in _rows(rng, args.quick).items():
        jitted = lj.jit(lambda *xs, fn=fn: fn(lj, *xs))
        tensors = [lj.tensor(x) for x in arrays]
        np.testing.assert_allclose(jitted(*tensors).numpy(), fn(np, *arrays), rtol=1e-9,
                                   atol=1e-6)
        peers = _peers(fn, arrays)
        times = medians_ms([lambda f=fn, xs=arrays: f(np, *xs),
                            lambda f=jitted, ts=tensors: f(*ts).numpy()] +
                           [f for _, f in peers], repeats)
        extra = "  ".join(f"{label} {times[0] / t:.2f}" for (label, _), t in
                          zip(peers, times[2:]))
        print(f"{name:12s} {times[0]:9.3f} {times[1]:8.3f} {times[0] / times[1]:6.2f}   {extra}")
    x = rng.standard_normal((16, 1024))
    wt = rng.standard_normal(1024)
    step = lj.jit(lj.value_and_grad(lambda x, w: (lj.abs(lj.fft.fft(x * w)) ** 2).sum(),
                                    argnums=1))
    tx, tw = lj.tensor(x), lj.tensor(wt)

    def lj_step():
        value, g = step(tx, tw)
        return value.numpy(), g.numpy()
    t_np, t_lj = medians_ms([lambda: (np.abs(np.fft.fft(x * wt)) ** 2).sum(), lj_step],
                            repeats)
    print(f"{'fft+grad':12s} {t_np:9.3f} {t_lj:8.3f} {t_np / t_lj:6.2f}   (NumPy: forward only)")


if __name__ == "__main__":
    main()
