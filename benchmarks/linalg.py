"""Batched linear algebra: lazyjit's ``lj.linalg`` (jitted: LAPACK called from the
compiled module) against NumPy's ``numpy.linalg`` (and ``jax.numpy.linalg`` and
``torch.linalg`` when importable), in one run.

Run from the repository root::

    python benchmarks/linalg.py [--quick]

Each row times one call on float64 batches; the ratio is NumPy's time over the
implementation's (above 1: faster than NumPy).  The last row is a training-style step:
the value and gradient of ``sum(solve(a, b)**2)`` with respect to ``a`` and ``b``
(NumPy has no gradient: its column is the forward solve alone, a floor).
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


def _problems(rng, quick: bool) -> dict:
    b, n = (16, 32) if quick else (64, 48)
    x = rng.standard_normal((b, n, n))
    spd = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
    rhs = rng.standard_normal((b, n, 4))
    tall = rng.standard_normal((b, 2 * n, n))
    return {"solve": (np.linalg.solve, lj.linalg.solve, (spd, rhs)),
            "cholesky": (np.linalg.cholesky, lj.linalg.cholesky, (spd,)),
            "slogdet": (lambda a: np.linalg.slogdet(a)[1], lambda a: lj.linalg.slogdet(a)[1],
                        (spd,)),
            "eigh": (lambda a: np.linalg.eigh(a)[0], lambda a: lj.linalg.eigh(a)[0], (spd,)),
            "svd": (lambda a: np.linalg.svd(a, full_matrices=False)[1],
                    lambda a: lj.linalg.svd(a, full_matrices=False)[1], (tall,)),
            "qr": (lambda a: np.linalg.qr(a)[1], lambda a: lj.linalg.qr(a)[1], (tall,))}


def _peers(name: str, arrays) -> list:
    """(label, callable) for jax and torch when importable."""
    return peer_calls(
        arrays,
        lambda jnp: {"solve": jnp.linalg.solve, "cholesky": jnp.linalg.cholesky,
                     "slogdet": lambda a: jnp.linalg.slogdet(a)[1],
                     "eigh": lambda a: jnp.linalg.eigh(a)[0],
                     "svd": lambda a: jnp.linalg.svd(a, full_matrices=False)[1],
                     "qr": lambda a: jnp.linalg.qr(a)[1]}[name],
        lambda torch: {"solve": torch.linalg.solve, "cholesky": torch.linalg.cholesky,
                       "slogdet": lambda a: torch.linalg.slogdet(a)[1],
                       "eigh": lambda a: torch.linalg.eigh(a)[0],
                       "svd": torch.linalg.svdvals, "qr": lambda a: torch.linalg.qr(a)[1]}[name])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches, fewer repeats")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    repeats = 20 if args.quick else 60
    print(f"{'op':10s} {'NumPy ms':>9s} {'lazyjit':>8s} {'ratio':>6s}   peers (ratio)")
    for name, (np_fn, lj_fn, arrays) in _problems(rng, args.quick).items():
        jitted = lj.jit(lj_fn)
        tensors = [lj.tensor(a) for a in arrays]
        np.testing.assert_allclose(jitted(*tensors).numpy(), np_fn(*arrays), rtol=1e-8,
                                   atol=1e-8)
        peers = _peers(name, arrays)
        fns = [lambda f=np_fn, xs=arrays: f(*xs),
               lambda f=jitted, ts=tensors: f(*ts).numpy()] + [f for _, f in peers]
        times = medians_ms(fns, repeats)
        extra = "  ".join(f"{label} {times[0] / t:.2f}" for (label, _), t in
                          zip(peers, times[2:]))
        print(f"{name:10s} {times[0]:9.3f} {times[1]:8.3f} {times[0] / times[1]:6.2f}   {extra}")
    a, b = _problems(rng, args.quick)["solve"][2]
    step = lj.jit(lj.value_and_grad(lambda a, b: (lj.linalg.solve(a, b) ** 2).sum(),
                                    argnums=(0, 1)))
    ta, tb = lj.tensor(a), lj.tensor(b)

    def lj_step():
        value, (ga, gb) = step(ta, tb)
        return value.numpy(), ga.numpy(), gb.numpy()
    t_np, t_lj = medians_ms([lambda: np.linalg.solve(a, b), lj_step], repeats)
    print(f"{'solve+grad':10s} {t_np:9.3f} {t_lj:8.3f} {t_np / t_lj:6.2f}   (NumPy: forward only)")


if __name__ == "__main__":
    main()
