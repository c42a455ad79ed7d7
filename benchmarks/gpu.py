"""The ``cuda`` backend against cupy and torch on the same GPU, in the same process.

Run from the repository root (``benchmarks/gpu_check.sh`` runs it on a lent GPU)::

    python benchmarks/gpu.py [--quick]

Rows (float32): elementwise ``x * 2 + 1`` over 2**26 elements, its bandwidth as a
fraction of a cupy device-to-device copy of the same array (issue 14's target: 85% or
more); a 4096x4096 matmul against ``cupy.matmul``; an MLP training step
(784-1024-1024-10, batch 512) against torch CUDA.  Times are medians of synchronized
runs after warm-up.  Without a GPU the backend is emulated on the CPU
(``cuda_emulate``): sizes shrink to a smoke run and peers are skipped; the numbers then
say nothing about a GPU.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from lazyjit.backends import cuda  # noqa: E402


def _sync() -> None:
    if cuda.gpu_count():
        import cupy
        cupy.cuda.Device().synchronize()


def median_ms(fn, repeats: int) -> float:
    fn()
    fn()
    _sync()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        _sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def elementwise(n: int, repeats: int) -> None:
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    f = lj.jit(lambda t: t * 2 + 1)
    t = lj.tensor(x)
    np.testing.assert_allclose(f(t).numpy(), x * 2 + 1)
    ms = median_ms(lambda: f(t).realize(), repeats)
    print(f"elementwise x*2+1, {n} floats: lazyjit {ms:.3f} ms "
          f"({2 * x.nbytes / ms / 1e6:.1f} GB/s)")
    if cuda.gpu_count():
        import cupy
        d = cupy.asarray(x)
        copy_ms = median_ms(lambda: d.copy(), repeats)
        print(f"  cupy copy {copy_ms:.3f} ms: lazyjit at {copy_ms / ms:.0%} of the copy's "
              "bandwidth")


def matmul(n: int, repeats: int) -> None:
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    ta, tb = lj.tensor(a), lj.tensor(b)
    f = lj.jit(lambda p, q: p @ q)
    np.testing.assert_allclose(f(ta, tb).numpy(), a @ b, rtol=2e-3, atol=2e-3)
    ms = median_ms(lambda: f(ta, tb).realize(), repeats)
    print(f"matmul {n}x{n}: lazyjit {ms:.3f} ms ({2 * n ** 3 / ms / 1e9:.3g} TFLOP/s)")
    if cuda.gpu_count():
        import cupy
        da, db = cupy.asarray(a), cupy.asarray(b)
        cp_ms = median_ms(lambda: da @ db, repeats)
        print(f"  cupy {cp_ms:.3f} ms: ratio cupy/lazyjit {cp_ms / ms:.2f}")


def mlp(batch: int, width: int, repeats: int) -> None:
    rng = np.random.default_rng(2)
    sizes = (784, width, width, 10)
    ws = [(rng.standard_normal((i, o)) * np.sqrt(2 / i)).astype(np.float32)
          for i, o in zip(sizes, sizes[1:])]
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    onehot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]

    def loss_of(params, xb, yb):
        h = xb
        for w in params[:-1]:
            h = lj.relu(h @ w)
        return -(lj.log_softmax(h @ params[-1], axis=-1) * yb).sum() / xb.shape[0]

    @lj.jit
    def step(params, xb, yb):
        loss = loss_of(params, xb, yb)
        return [w - 0.01 * g for w, g in zip(params, lj.grad(loss, params))], loss

    state = {"params": [lj.tensor(w) for w in ws]}
    xt, yt = lj.tensor(x), lj.tensor(onehot)  # (copied to the device at the first step)

    def run():
        state["params"], loss = step(state["params"], xt, yt)
        lj.realize(*state["params"], loss)
    ms = median_ms(run, repeats)
    print(f"MLP step {sizes}, batch {batch}: lazyjit {ms:.3f} ms")
    if cuda.gpu_count():
        import torch
        dev = torch.device("cuda")
        tw = [torch.tensor(w, device=dev, requires_grad=True) for w in ws]
        tx, ty = torch.tensor(x, device=dev), torch.tensor(onehot, device=dev)

        def torch_step():
            h = tx
            for w in tw[:-1]:
                h = torch.relu(h @ w)
            loss = -(torch.log_softmax(h @ tw[-1], -1) * ty).sum() / batch
            gs = torch.autograd.grad(loss, tw)
            with torch.no_grad():
                for w, g in zip(tw, gs):
                    w -= 0.01 * g
        t_ms = median_ms(torch_step, repeats)
        print(f"  torch cuda {t_ms:.3f} ms: ratio torch/lazyjit {t_ms / ms:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    args = ap.parse_args()
    flags = cuda.flags()
    small = args.quick or flags["cuda_emulate"]
    print("device:", "emulated on the CPU (no GPU: a smoke run)" if flags["cuda_emulate"]
          else "GPU")
    repeats = 3 if small else 20
    with lj.config(**flags):
        elementwise(1 << (16 if small else 26), repeats)
        matmul(128 if small else 4096, repeats)
        mlp(32 if small else 512, 64 if small else 1024, repeats)


if __name__ == "__main__":
    main()
