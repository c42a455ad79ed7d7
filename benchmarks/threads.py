"""Throughput of one compiled function called from 1 and from 2 threads, NumPy alongside.

Run from the repository root::

    python benchmarks/threads.py [--quick]

lazyjit runs with ``openmp=false`` (each call on one core), so the second thread is the
only source of parallelism: a compiled call releases the GIL for its whole native run,
and calls that update no shared state run side by side.  NumPy's ufuncs release the GIL
too and are timed the same way, in the same run.

Workload: ``exp(-x*x/2)*sin(3*x)+0.5*tanh(x)`` on float32 arrays of 1,000,000 elements
(compute-bound: the vector math of libmvec), ``--quick`` 200,000.  Each thread makes the
same number of calls on its own input; the time is that of the slowest thread, the
median of several rounds.  Printed: calls per second with 1 and 2 threads, and the
speed-up (2-thread throughput over 1-thread throughput; 2.0 is perfect scaling on 2
idle cores).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402


def np_gauss_sin(x):
    return np.exp(-x * x / 2) * np.sin(3 * x) + 0.5 * np.tanh(x)


def lj_gauss_sin(x):
    return lj.exp(-x * x / 2) * lj.sin(3 * x) + 0.5 * lj.tanh(x)


def seconds(call, inputs: list, n_threads: int, calls: int) -> float:
    """Wall time of ``calls`` calls of ``call`` in each of ``n_threads`` threads started
    together (thread ``i`` on ``inputs[i]``)."""
    barrier = threading.Barrier(n_threads + 1)
    done = []

    def work(x):
        barrier.wait()
        for _ in range(calls):
            call(x)
        done.append(time.perf_counter())

    threads = [threading.Thread(target=work, args=(inputs[i],)) for i in range(n_threads)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return max(done) - start


def throughput(call, inputs: list, n_threads: int, calls: int, rounds: int) -> float:
    """Median calls per second over ``rounds`` rounds (after a warm-up round)."""
    seconds(call, inputs, n_threads, max(calls // 4, 1))
    rates = [n_threads * calls / seconds(call, inputs, n_threads, calls)
             for _ in range(rounds)]
    return statistics.median(rates)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer rounds")
    args = parser.parse_args(argv)
    n, calls, rounds = (200_000, 20, 3) if args.quick else (1_000_000, 40, 5)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(n).astype(np.float32) for _ in range(2)]
    print(f"exp(-x*x/2)*sin(3x)+0.5*tanh(x), {n:,} float32, {calls} calls per thread, "
          f"{os.cpu_count()} CPUs")
    with lj.config(openmp=False):
        f = lj.jit(lj_gauss_sin)
        np.testing.assert_allclose(f(inputs[0]).numpy(), np_gauss_sin(inputs[0]),
                                   rtol=1e-5, atol=1e-6)
        # lj.config blocks belong to their thread: each worker enters its own
        def lj_call(x):
            with lj.config(openmp=False):
                return f(x)
        rows = [("lazyjit (cpu, openmp=false)", lj_call), ("NumPy", np_gauss_sin)]
        print(f"{'':30} {'1 thread':>12} {'2 threads':>12} {'speed-up':>9}")
        for name, call in rows:
            one = throughput(call, inputs, 1, calls, rounds)
            two = throughput(call, inputs, 2, calls, rounds)
            print(f"{name:30} {one:9.1f}/s {two:9.1f}/s {two / one:8.2f}x")


if __name__ == "__main__":
    main()
