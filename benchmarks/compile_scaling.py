"""Optimization plus compile time of a long chain of elementwise ops, per node (issue 5).

Run from the repository root::

    python benchmarks/compile_scaling.py            # N = 1,000, 4,000, 16,000
    python benchmarks/compile_scaling.py --sizes 250 1000

The graph: ``x = tanh(x * 1.0001 + 0.1)`` repeated N times on a float32 vector (3 nodes
per step).  For each N, on the ``cpu`` backend with a fresh, empty compiled-code cache
(``cache_dir`` a new temporary folder), it times the stages a plan-cache miss runs:

* ``optimize``: the rewrite pipeline (:func:`lazyjit.rewrite.optimize`);
* ``codegen``: lowering to the kernel IR and rendering C (the chain fuses into one
  kernel);
* ``cc``: the C compiler and loading the module;

and prints the time per node of the trace (optimize + codegen + cc), the ratio of that
per-node time between the largest and the smallest N (issue target: at most 1.5x), and
the same ratio for ``optimize`` alone.  The result is checked against the same chain
computed by NumPy.  JAX (``jax.jit(...).lower(x).compile()``) and PyTensor
(``pytensor.function``, with a fresh compile directory) are timed on the same graph
only when importable.

The backend's kernel emitter recurses once per fused node; when that exceeds Python's
recursion limit the script says so and measures again with a higher limit.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from lazyjit.backends.cpu.backend import load, render, render_program, target  # noqa: E402
from lazyjit.rewrite import optimize  # noqa: E402
from lazyjit.schedule.lower import lower  # noqa: E402
from lazyjit.trace.graph import collect  # noqa: E402

SCALE, SHIFT = 1.0001, 0.1


def chain(x, n: int, tanh):
    """``x = tanh(x * SCALE + SHIFT)``, ``n`` times."""
    for _ in range(n):
        x = tanh(x * SCALE + SHIFT)
    return x


def reference(a: np.ndarray, n: int) -> np.ndarray:
    return chain(a, n, np.tanh).astype(np.float32)


def time_lazyjit(n: int, size: int) -> dict:
    """Stage times (seconds) of one plan-cache miss for the chain of ``n`` steps."""
    a = np.linspace(-1, 1, size, dtype=np.float32)
    with tempfile.TemporaryDirectory() as cache, lj.config(backend="cpu", cache_dir=cache):
        y = chain(lj.tensor(a), n, lj.tanh)
        trace = collect([y.node])
        t0 = time.perf_counter()
        opt = optimize(trace)
        t1 = time.perf_counter()
        source = render(render_program(lower(opt, target())))
        t2 = time.perf_counter()
        load(source)
        t3 = time.perf_counter()
        got = y.numpy()  # the same trace again: compiled on the same path, from the cache
    np.testing.assert_allclose(got, reference(a, n), rtol=1e-4, atol=1e-5)
    return {"nodes": len(trace.nodes), "optimize": t1 - t0, "codegen": t2 - t1,
            "cc": t3 - t2, "lines": source.count("\n")}


def time_jax(n: int, size: int) -> float | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    x = jnp.zeros(size, jnp.float32)
    t0 = time.perf_counter()
    jax.jit(lambda v: chain(v, n, jnp.tanh)).lower(x).compile()
    return time.perf_counter() - t0


def time_pytensor(n: int) -> float | None:
    """PyTensor's compile of the chain, in a child process with a fresh compile
    directory (PyTensor reads it once, at import)."""
    try:
        import pytensor  # noqa: F401
    except ImportError:
        return None
    code = (f"import sys, time; sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
            "import pytensor, pytensor.tensor as pt\n"
            "from compile_scaling import chain\n"
            "x = pt.vector('x', dtype='float32')\n"
            "t0 = time.perf_counter()\n"
            f"pytensor.function([x], chain(x, {n}, pt.tanh))\n"
            "print(time.perf_counter() - t0)\n")
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTENSOR_FLAGS=f"base_compiledir={d}")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000],
                        help="chain lengths N (elementwise steps of 3 nodes)")
    parser.add_argument("--elements", type=int, default=1000, help="vector length")
    args = parser.parse_args()
    sizes = sorted(args.sizes)

    print(f"chain x = tanh(x * {SCALE} + {SHIFT}), float32[{args.elements}], cpu backend, "
          "fresh cache_dir per N")
    rows = []
    for n in sizes:
        try:
            r = time_lazyjit(n, args.elements)
        except RecursionError:
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(limit, 10 * 3 * n + 1000))
            print(f"N={n}: RecursionError at Python's recursion limit {limit} (the cpu "
                  f"backend's kernel emitter recurses per fused node); measuring with "
                  f"limit {sys.getrecursionlimit()}")
            r = time_lazyjit(n, args.elements)
        r["total"] = r["optimize"] + r["codegen"] + r["cc"]
        rows.append((n, r))

    print(f"{'N':>7} {'nodes':>7} {'C lines':>8} {'optimize s':>11} {'codegen s':>10} "
          f"{'cc s':>8} {'total s':>8} {'us/node':>8} {'opt us/node':>12}")
    for n, r in rows:
        print(f"{n:>7} {r['nodes']:>7} {r['lines']:>8} {r['optimize']:>11.3f} "
              f"{r['codegen']:>10.3f} {r['cc']:>8.3f} {r['total']:>8.3f} "
              f"{r['total'] / r['nodes'] * 1e6:>8.1f} "
              f"{r['optimize'] / r['nodes'] * 1e6:>12.2f}")
    if len(rows) > 1:
        (n0, a), (n1, b) = rows[0], rows[-1]
        per = [(r["total"] / r["nodes"], r["optimize"] / r["nodes"]) for r in (a, b)]
        ratio, opt_ratio = per[1][0] / per[0][0], per[1][1] / per[0][1]
        verdict = "met" if ratio <= 1.5 else "NOT met"
        print(f"time per node, N={n1} over N={n0}: {ratio:.2f}x (target <= 1.5x: {verdict}); "
              f"optimize alone: {opt_ratio:.2f}x")

    for name, fn in (("jax", lambda n: time_jax(n, args.elements)),
                     ("pytensor", time_pytensor)):
        for n, r in rows:
            try:
                t = fn(n)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{name} N={n}: failed: {type(e).__name__}: {str(e)[:200]}")
                continue
            if t is None:
                print(f"{name}: not importable, skipped")
                break
            print(f"{name} N={n}: compile {t:.3f} s, {t / r['nodes'] * 1e6:.1f} us/node "
                  f"(lazyjit {r['total']:.3f} s)")


if __name__ == "__main__":
    main()
