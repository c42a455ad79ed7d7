"""Where an eager MLP train step's time goes, and its speed against NumPy in paired rounds.

Run from the repository root::

    python benchmarks/mlp_eager.py [--rounds 80]

The step is ``benchmarks/mlp.py``'s (64-256-256-10 ReLU MLP, batch 128, float32).

* Building: the Python that makes the step's graph, split into the forward pass
  (``lj_loss``), ``lj.grad``, the SGD update, and ``lj.realize`` (the compiled program's
  run); microseconds per step, the minimum over rounds of 200 steps.
* Paired rounds: NumPy's step, the ``@lj.jit`` step and the eager step take turns, 10
  steps each, for ``--rounds`` rounds; printed are each one's fastest round (ms per
  step) and the median over rounds of NumPy's time over each one's in the same round,
  which cancels most of a noisy host's drift (``mlp.py`` times each implementation in
  turn, minutes apart).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __name__ == "__main__":  # before NumPy loads OpenBLAS: this machine's BLAS kernels
    from timing import native_blas
    native_blas()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import lazyjit as lj  # noqa: E402
import mlp  # noqa: E402


def build_split(rounds: int = 10, steps: int = 200) -> np.ndarray:
    """Microseconds per step of forward, grad, update and realize (minimum of rounds)."""
    params = [lj.tensor(p) for p in mlp.make_params()]
    x, onehot = (lj.tensor(a) for a in mlp.make_batch(128))
    for _ in range(50):  # (compiled, and every signature recorded)
        params, _ = mlp.eager_step(params, x, onehot)
    best = np.full(4, np.inf)
    for _ in range(rounds):
        t = np.zeros(4)
        for _ in range(steps):
            t0 = time.perf_counter()
            loss = mlp.lj_loss(params, x, onehot)
            t1 = time.perf_counter()
            grads = lj.grad(loss, params)
            t2 = time.perf_counter()
            new = [p - mlp.LR * g for p, g in zip(params, grads)]
            t3 = time.perf_counter()
            lj.realize(*new, loss)
            t += [t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3]
            params = new
        best = np.minimum(best, t / steps * 1e6)
    return best


def paired(rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """Fastest round (ms per step) of NumPy, @jit and eager, and the median NumPy/this
    ratios of the rounds."""
    xn, onehot = mlp.make_batch(128)
    x, t = lj.tensor(xn), lj.tensor(onehot)
    state = {"n": mlp.make_params(), "j": [lj.tensor(p) for p in mlp.make_params()],
             "e": [lj.tensor(p) for p in mlp.make_params()]}

    def run_numpy():
        state["n"], _ = mlp.numpy_step(state["n"], xn, onehot)

    def run_jit():
        state["j"], _ = mlp.JIT_STEP(state["j"], x, t)

    def run_eager():
        state["e"], _ = mlp.eager_step(state["e"], x, t)
    fns = [run_numpy, run_jit, run_eager]
    for f in fns:
        for _ in range(30):
            f()
    times = np.zeros((rounds, 3))
    for r in range(rounds):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(10):
                f()
            times[r, i] = (time.perf_counter() - t0) / 10 * 1e3
    return times.min(0), np.median(times[:, :1] / times, axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=80)
    args = parser.parse_args()
    print(f"lazyjit {lj.__version__}, NumPy {np.__version__}, {os.cpu_count()} CPUs; "
          f"eager MLP {'-'.join(map(str, mlp.LAYERS))}, batch 128, float32")
    split = build_split()
    print("\nbuilding, us per step (min of 10 rounds of 200 steps)")
    for name, us in zip(("forward (lj_loss)", "lj.grad", "update", "realize (run)"), split):
        print(f"  {name:<20} {us:8.1f}")
    print(f"  {'graph building':<20} {split[:3].sum():8.1f}")
    best, ratio = paired(args.rounds)
    print(f"\npaired rounds ({args.rounds} x 10 steps)   fastest ms/step   median NumPy/this")
    for name, ms, q in zip(("NumPy (by hand)", "lazyjit @jit", "lazyjit eager"), best, ratio):
        print(f"  {name:<30} {ms:10.3f} {q:15.2f}")


if __name__ == "__main__":
    main()
