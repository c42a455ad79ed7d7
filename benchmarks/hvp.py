"""Hessian-vector product against one gradient evaluation (Pearlmutter's forward-over-reverse).

Run from the repository root::

    python benchmarks/hvp.py
    python benchmarks/hvp.py --n 1000 --repeats 50

For ``f(x) = sum(tanh(W @ x) ** 2)`` with ``W`` of shape ``(n, n)`` (``n = 1000`` inputs,
float64), two ``@lj.jit`` functions on the ``cpu`` backend:

* ``grad_fn(x, W) = lj.grad(f(x), x)``: two matrix-vector products;
* ``hvp_fn(x, W, v) = lj.hvp(f(x), x, v)``: the ``Rop`` of the gradient along ``v``,
  without forming the Hessian (three matrix-vector products: ``W x``, ``W v`` and
  ``W^T (...)``; the gradient's own ``W^T`` product is not needed).

Each time is the median of ``--repeats`` calls after warm-up calls (compiles excluded).
The ratio HVP / gradient is printed against the target of at most 4x, and the HVP is
checked against the dense Hessian times ``v``, the Hessian written out in NumPy:
``H = W^T diag(2 (1 - t^2)(1 - 3 t^2)) W`` with ``t = tanh(W x)``.  Exits non-zero when
the check fails or the ratio is above 4.
"""
from __future__ import annotations

import argparse
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

TARGET = 4.0


def f(x, w):
    return lj.sum(lj.tanh(w @ x) ** 2)


@lj.jit
def grad_fn(x, w):
    return lj.grad(f(x, w), x)


@lj.jit
def hvp_fn(x, w, v):
    return lj.hvp(f(x, w), x, v)


def dense_hessian(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    t = np.tanh(w @ x)
    return w.T @ (w * (2 * (1 - t * t) * (1 - 3 * t * t))[:, None])


def median_ms(fn, repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="number of inputs (W is n x n)")
    parser.add_argument("--repeats", type=int, default=30, help="timed calls per function")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.n
    w = lj.tensor(rng.standard_normal((n, n)) / np.sqrt(n))
    x, v = lj.tensor(rng.standard_normal(n)), lj.tensor(rng.standard_normal(n))
    with lj.config(backend="cpu"):
        hv = hvp_fn(x, w, v).numpy()
        expected = dense_hessian(x.numpy(), w.numpy()) @ v.numpy()
        err = float(np.max(np.abs(hv - expected)) / np.max(np.abs(expected)))
        g = grad_fn(x, w).numpy()
        t = np.tanh(w.numpy() @ x.numpy())
        g_err = float(np.max(np.abs(g - w.numpy().T @ (2 * t * (1 - t * t)))))
        t_grad = median_ms(lambda: grad_fn(x, w), args.repeats)
        t_hvp = median_ms(lambda: hvp_fn(x, w, v), args.repeats)
    ratio = t_hvp / t_grad
    print(f"f(x) = sum(tanh(W @ x)**2), n = {n}, float64, cpu backend, "
          f"median of {args.repeats} calls")
    print(f"  gradient               {t_grad:8.3f} ms   (max error vs NumPy {g_err:.1e})")
    print(f"  Hessian-vector product {t_hvp:8.3f} ms   (max relative error vs dense H @ v "
          f"{err:.1e})")
    print(f"  ratio HVP / gradient   {ratio:8.2f}x   (target <= {TARGET:g}x)")
    ok = err < 1e-10 and g_err < 1e-10 and ratio <= TARGET
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
