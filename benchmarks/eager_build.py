"""The Python cost of building an eager MLP train step's graph, and of freeing it.

Run from the repository root::

    python benchmarks/eager_build.py [--steps 20000]

Each step builds ``benchmarks/mlp.py``'s step (forward, ``lj.grad``, SGD update) over
realized parameters, without computing it, and drops it: the nodes, tensors and
structural keys eager code makes and frees at every step.  The two parameter sets
alternate, so no step finds the previous one's nodes by hash-consing.  Printed: the
microseconds per step (the minimum of 5 rounds).

Wall time on a shared 2-core host moves by tens of percent; instructions do not.  For
those, count the steps' loop (the ``any(map(...))`` call below) under callgrind::

    OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=builtin_any python benchmarks/eager_build.py --steps 1000 --rounds 1

and divide callgrind's total by the steps.  (With BLAS threads, which spin while they
wait, valgrind, which runs one thread at a time, took 15 minutes for 100 steps.)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import lazyjit as lj  # noqa: E402
import mlp  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    params = [lj.tensor(p) for p in mlp.make_params()]
    x, onehot = (lj.tensor(a) for a in mlp.make_batch(128))
    for _ in range(20):  # (compiled, and every signature recorded)
        params, _ = mlp.eager_step(params, x, onehot)
    sets = [params, [lj.tensor(p.numpy() + 0) for p in params]]

    def step(i: int) -> None:
        ps = sets[i & 1]
        loss = mlp.lj_loss(ps, x, onehot)
        grads = lj.grad(loss, ps)
        [p - mlp.LR * g for p, g in zip(ps, grads)]
    best = float("inf")
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        any(map(step, range(args.steps)))
        best = min(best, (time.perf_counter() - t0) / args.steps)
    print(f"eager MLP step, graph built and freed: {best * 1e6:.1f} us per step "
          f"(min of {args.rounds} rounds of {args.steps})")


if __name__ == "__main__":
    main()
