"""Memory of the eager training loop of ``examples/digits.py`` over many steps.

Run from the repository root::

    python benchmarks/eager_memory.py [--steps 10000]

The loop is the example's (the MLP, SGD with momentum, ``params = [p + v ...]`` and one
``lj.realize`` per step, the values read each step): a realized tensor keeps the graph
that computed it for differentiation while the tensor is alive, and only while it is.
Printed after 1,000 steps and at the end: the resident set size (``/proc/self/statm``),
the live graph nodes, the trace-cache misses (one plan serves every step) and the steps
per second.  The RSS at the end should stay within a few percent of the RSS at 1,000.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from lazyjit.examples.digits import init_params, load_data, loss_fn  # noqa: E402
from lazyjit.trace.node import Node  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def live_nodes() -> int:
    gc.collect()
    return sum(type(o) is Node for o in gc.get_objects())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args(argv)
    x_train, y_train, _, _ = load_data()
    targets = np.eye(10, dtype=np.float32)
    params = init_params(0)
    velocity = [lj.tensor(np.zeros(p.shape, p.dtype)) for p in params]
    rng = np.random.default_rng(1)
    rate = lj.tensor(np.float32(0.02))
    checkpoints = sorted({min(1000, args.steps), args.steps})
    rows = []
    step, start = 0, time.perf_counter()
    while step < args.steps:
        order = rng.permutation(len(x_train))
        for lo in range(0, len(x_train) - 127, 128):
            idx = order[lo:lo + 128]
            xb, yb = lj.tensor(x_train[idx]), lj.tensor(targets[y_train[idx]])
            loss = loss_fn(params, xb, yb)
            grads = lj.grad(loss, params)
            velocity = [0.9 * v - rate * g for v, g in zip(velocity, grads)]
            params = [p + v for p, v in zip(params, velocity)]
            lj.realize(*params, *velocity, loss)
            float(loss)
            step += 1
            if step in checkpoints:
                rows.append((step, rss_mib(), live_nodes(), lj.stats()["trace_cache_misses"],
                             step / (time.perf_counter() - start)))
            if step >= args.steps:
                break
    print(f"{'steps':>7} {'RSS MiB':>9} {'live nodes':>11} {'plan misses':>12} {'steps/s':>8}")
    for s, rss, nodes, misses, rate_ in rows:
        print(f"{s:7d} {rss:9.1f} {nodes:11d} {misses:12d} {rate_:8.0f}")
    if len(rows) == 2:
        print(f"RSS growth from step {rows[0][0]} to {rows[1][0]}: "
              f"{100 * (rows[1][1] / rows[0][1] - 1):+.2f}%")


if __name__ == "__main__":
    main()
