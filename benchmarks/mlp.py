"""MLP train step: lazyjit against hand-written NumPy (and torch / jax when importable).

Run from the repository root::

    python benchmarks/mlp.py [--quick]

Where ``OPENBLAS_CORETYPE`` or ``OPENBLAS_L2_SIZE`` is set, the script re-runs itself
without them (``timing.native_blas``), so NumPy's OpenBLAS uses this machine's kernels
(see shared/PERFORMANCE.md).  The backend is lazyjit's default (``cpu``) unless
``LAZYJIT_FLAGS=backend=numpy`` says otherwise.

The step: a 64-256-256-10 ReLU MLP, softmax cross-entropy (mean over the batch), its
gradient, and a plain SGD update, float32, batch 128.  Implementations:

* NumPy: forward, backward and update written by hand;
* lazyjit ``@lj.jit``: a function returning the new parameters (``lj.grad`` inside);
* lazyjit ``lj.function``: the same step over placeholders of unknown batch size, the
  parameters shared variables updated by the call (Theano's style);
* lazyjit eager: the same code on realized tensors, then ``lj.realize(*new_params, loss)``;
* torch (eager autograd, in-place update) and ``jax.jit``, only if importable.

Times are medians after warm-up, in 10 rounds where each implementation runs 30 steps
in turn; ``NumPy/this`` is the median over rounds of NumPy's time over this one's in the
same round (a shared host's drift over the minutes of a run cancels).  The first call of
the jitted step (trace, optimize, compile) is timed in a fresh subprocess, once with an
empty compiled-code disk cache and once with the disk cache that run filled (each the
median of three such pairs);
``jax.jit``'s first call too (its imports done before the clock starts, as lazyjit's
are).  lazyjit's modules are byte-compiled first (``__pycache__`` folders written next
to the lazyjit imported), as ``pip install`` compiles jax's: in
a checkout run with ``PYTHONDONTWRITEBYTECODE`` set, each fresh process otherwise
compiled the source of the modules it imported (0.03 s of the first call, and 0.1 s of
``import lazyjit``, before the clock).  Finally, ``lj.stats()['compiles']`` is printed
before and after running the steps at batch 64, to show that a new batch size does not
compile again.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import tempfile
import time

if __name__ == "__main__":  # before NumPy loads OpenBLAS: this machine's BLAS kernels
    from timing import native_blas
    native_blas()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from timing import paired_ms  # noqa: E402

LAYERS = (64, 256, 256, 10)
LR = 0.01


# ---- data and parameters --------------------------------------------------------------

def make_params(seed: int = 0) -> list[np.ndarray]:
    """He-initialized float32 ``[w1, b1, w2, b2, w3, b3]``."""
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:]):
        out.append(rng.normal(0, np.sqrt(2 / fan_in), (fan_in, fan_out)).astype(np.float32))
        out.append(np.zeros(fan_out, np.float32))
    return out


def make_batch(batch: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``(batch, 64)`` and one-hot targets ``(batch, 10)``, float32."""
    rng = np.random.default_rng(seed)
    x = rng.random((batch, LAYERS[0]), dtype=np.float32)
    onehot = np.eye(LAYERS[-1], dtype=np.float32)[rng.integers(0, LAYERS[-1], batch)]
    return x, onehot


# ---- NumPy, by hand -------------------------------------------------------------------

def numpy_step(params, x, onehot):
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    h1 = np.maximum(x @ w1 + b1, 0)
    h2 = np.maximum(h1 @ w2 + b2, 0)
    z = h2 @ w3 + b3
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = -((z - np.log(s)) * onehot).sum() / n
    dz = (e / s - onehot) / n
    dh2 = (dz @ w3.T) * (h2 > 0)
    dh1 = (dh2 @ w2.T) * (h1 > 0)
    grads = (x.T @ dh1, dh1.sum(0), h1.T @ dh2, dh2.sum(0), h2.T @ dz, dz.sum(0))
    return [p - LR * g for p, g in zip(params, grads)], loss


# ---- lazyjit --------------------------------------------------------------------------

def lj_loss(params, x, onehot):
    w1, b1, w2, b2, w3, b3 = params
    h1 = lj.relu(x @ w1 + b1)
    h2 = lj.relu(h1 @ w2 + b2)
    logp = lj.log_softmax(h2 @ w3 + b3, axis=-1)
    return -(logp * onehot).sum() / x.shape[0]


def lj_step(params, x, onehot):
    loss = lj_loss(params, x, onehot)
    grads = lj.grad(loss, params)
    return [p - LR * g for p, g in zip(params, grads)], loss


JIT_STEP = lj.jit(lj_step)


def theano_function(np_params):
    """The same step as ``lj.function`` over placeholders of unknown batch size, the
    parameters shared variables updated in the call (Theano's style); returns the
    function and the shared variables."""
    shared = [lj.shared(p) for p in np_params]
    x = lj.matrix("x", "float32", shape=(None, np_params[0].shape[0]))
    onehot = lj.matrix("onehot", "float32", shape=(None, np_params[-1].shape[0]))
    new, loss = lj_step(shared, x, onehot)
    return lj.function([x, onehot], loss, updates=list(zip(shared, new))), shared


def eager_step(params, x, onehot):
    new, loss = lj_step(params, x, onehot)
    lj.realize(*new, loss)
    return new, loss


# ---- optional peers -------------------------------------------------------------------

def torch_runner(params, x, onehot):
    """A callable doing one torch step (in-place SGD), or None when torch is missing."""
    try:
        import torch
    except ImportError:
        return None
    ps = [torch.from_numpy(p.copy()).requires_grad_() for p in params]
    tx, tt = torch.from_numpy(x), torch.from_numpy(onehot)

    def step():
        w1, b1, w2, b2, w3, b3 = ps
        h = torch.relu(torch.relu(tx @ w1 + b1) @ w2 + b2)
        loss = -(torch.log_softmax(h @ w3 + b3, dim=-1) * tt).sum() / tx.shape[0]
        grads = torch.autograd.grad(loss, ps)
        with torch.no_grad():
            for p, g in zip(ps, grads):
                p.sub_(LR * g)
        return loss
    return step


def jax_runner(params, x, onehot):
    """A callable doing one ``jax.jit`` step, or None when jax is missing."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss_fn(ps, xb, tb):
        w1, b1, w2, b2, w3, b3 = ps
        h = jax.nn.relu(jax.nn.relu(xb @ w1 + b1) @ w2 + b2)
        return -(jax.nn.log_softmax(h @ w3 + b3, axis=-1) * tb).sum() / xb.shape[0]

    @jax.jit
    def step(ps, xb, tb):
        loss, grads = jax.value_and_grad(loss_fn)(ps, xb, tb)
        return [p - LR * g for p, g in zip(ps, grads)], loss

    state = {"ps": [jnp.asarray(p) for p in params]}
    jx, jt = jnp.asarray(x), jnp.asarray(onehot)

    def run():
        state["ps"], loss = step(state["ps"], jx, jt)
        return loss.block_until_ready()
    return run


# ---- timing ---------------------------------------------------------------------------

FIRST_RUNS = 3  # fresh processes per first-call row (one took 0.30-0.39 s from run to run)


def first_call(mode: str, batch: int) -> dict:
    """Time the first step of a fresh process (``mode``: 'jit', 'eager', or 'jax' for
    ``jax.jit``'s, whose compile cache is in memory only; its ``compiles`` is -1 when
    jax is not importable)."""
    if mode == "jax":
        try:
            import jax  # noqa: F401 - imported before the clock starts
            import jax.numpy  # noqa: F401
        except ImportError:
            return {"seconds": 0.0, "compiles": -1, "disk_cache_hits": 0}
        x, onehot = make_batch(batch)
        t0 = time.perf_counter()
        run = jax_runner(make_params(), x, onehot)
        if run is None:
            return {"seconds": 0.0, "compiles": -1, "disk_cache_hits": 0}
        run()
        return {"seconds": time.perf_counter() - t0, "compiles": 1, "disk_cache_hits": 0}
    params = [lj.tensor(p) for p in make_params()]
    x, onehot = make_batch(batch)
    lx, lt = lj.tensor(x), lj.tensor(onehot)
    step = JIT_STEP if mode == "jit" else eager_step
    t0 = time.perf_counter()
    _, loss = step(params, lx, lt)
    float(loss)
    return {"seconds": time.perf_counter() - t0, "compiles": lj.stats()["compiles"],
            "disk_cache_hits": lj.stats()["disk_cache_hits"]}


def first_call_subprocess(mode: str, batch: int, cache_dir: str) -> dict:
    flags = os.environ.get("LAZYJIT_FLAGS", "")
    env = dict(os.environ, LAZYJIT_FLAGS=",".join(f for f in (flags, f"cache_dir={cache_dir}")
                                                  if f))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--first-call", mode,
                          "--batch", str(batch)], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"first-call subprocess ({mode}) failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def check(name: str, got, want) -> None:
    got, want = [np.asarray(g) for g in got], [np.asarray(w) for w in want]
    bad = [i for i, (g, w) in enumerate(zip(got, want))
           if not np.allclose(g, w, rtol=1e-3, atol=1e-5)]
    if bad:
        print(f"WARNING: {name}: results differ from NumPy's step in outputs {bad}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats (a smoke run)")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--first-call", choices=("jit", "eager", "jax"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_call:
        print(json.dumps(first_call(args.first_call, args.batch)))
        return

    repeats, warmup, rounds = (20, 5, 2) if args.quick else (300, 10, 10)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"note: {var} is set; NumPy timings are meant to be taken with it unset "
                  "(see this script's docstring)")
    print(f"lazyjit {lj.__version__}, backend={lj.config.backend}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs; MLP {'-'.join(map(str, LAYERS))}, batch {args.batch}, "
          f"float32" + (" [--quick]" if args.quick else ""))

    with tempfile.TemporaryDirectory(prefix="lazyjit-bench-") as cache_dir:
        # first call, including compile, each in a fresh process (lazyjit byte-compiled)
        compileall.compile_dir(os.path.dirname(lj.__file__), quiet=1)
        # (FIRST_RUNS rounds of every row, each run on its own cache: the median's row)
        runs: dict[str, list[dict]] = {}
        for i in range(FIRST_RUNS):
            for mode in ("jit", "eager"):
                for state in ("empty", "warm"):
                    runs.setdefault(f"{mode}, {state} disk cache", []).append(
                        first_call_subprocess(mode, args.batch, f"{cache_dir}/{mode}{i}"))
            runs.setdefault("jax.jit (imported already)", []).append(
                first_call_subprocess("jax", args.batch, f"{cache_dir}/jax"))
        first = [(name, sorted(rs, key=lambda r: r["seconds"])[len(rs) // 2])
                 for name, rs in runs.items() if rs[0]["compiles"] >= 0]
        # this process compiles into a cache of its own too, so its counts start at zero
        with lj.config(cache_dir=f"{cache_dir}/main"):
            times = time_steps(args.batch, repeats, warmup, rounds)
            compiles = batch_change(args.batch)

    print()
    print(f"{'train step, batch ' + str(args.batch):<28} {'ms/step':>10} {'NumPy/this':>11}")
    for name, ms, ratio in times:
        print(f"{name:<28} {ms:>10.3f} {ratio:>11.2f}")

    print()
    print(f"{'first call (fresh process)':<28} {'seconds':>10} {'compiles':>9} "
          f"{'disk hits':>10}")
    for name, r in first:
        print(f"{name:<28} {r['seconds']:>10.3f} {r['compiles']:>9} {r['disk_cache_hits']:>10}")
    print(f"  (each row the median of {FIRST_RUNS} fresh processes)")

    before, after_jit, after_eager = compiles
    half = max(args.batch // 2, 1)
    print()
    print(f"compiles at batch {args.batch}: {before}; after the @jit step at batch {half}: "
          f"{after_jit} (+{after_jit - before}); after the eager step at batch {half}: "
          f"{after_eager} (+{after_eager - after_jit})")
    print("  (the @jit step's first new batch size traces it once more with that axis "
          "symbolic, as torch.compile's automatic dynamic shapes; later sizes reuse that "
          "code: see README, jit)")
    print(f"lj.stats(): {lj.stats()}")


def time_steps(batch: int, repeats: int, warmup: int,
               rounds: int) -> list[tuple[str, float, float]]:
    """Check lazyjit's steps against NumPy's, then time every implementation in
    ``rounds`` rounds: ``[(name, ms per step, NumPy/this)]``, NumPy first."""
    np_params = make_params()
    x, onehot = make_batch(batch)
    lx, lt = lj.tensor(x), lj.tensor(onehot)
    want, want_loss = numpy_step(np_params, x, onehot)
    got, loss = JIT_STEP([lj.tensor(p) for p in np_params], lx, lt)
    check("lazyjit @jit", got + [loss], want + [want_loss])
    got, loss = eager_step([lj.tensor(p) for p in np_params], lx, lt)
    check("lazyjit eager", got + [loss], want + [want_loss])

    function_step, shared = theano_function(np_params)
    loss = function_step(x, onehot)
    check("lazyjit lj.function", [s.get_value() for s in shared] + [lj.tensor(loss)],
          want + [want_loss])
    state = {"np": np_params, "jit": [lj.tensor(p) for p in np_params],
             "eager": [lj.tensor(p) for p in np_params]}

    def run_numpy():
        state["np"], _ = numpy_step(state["np"], x, onehot)

    def run_jit():
        state["jit"], _ = JIT_STEP(state["jit"], lx, lt)

    def run_eager():
        state["eager"], _ = eager_step(state["eager"], lx, lt)

    runners = [("NumPy (by hand)", run_numpy), ("lazyjit @jit", run_jit),
               ("lazyjit lj.function", lambda: function_step(x, onehot)),
               ("lazyjit eager", run_eager)]
    for name, make in (("torch", torch_runner), ("jax.jit", jax_runner)):
        fn = make(np_params, x, onehot)
        if fn is None:
            print(f"({name.split('.')[0]} not importable: skipped)")
        else:
            runners.append((name, fn))
    times, ratios = paired_ms([fn for _, fn in runners], repeats, warmup, rounds)
    return [(name, ms, q) for (name, _), ms, q in zip(runners, times, ratios)]


def batch_change(batch: int) -> tuple[int, int, int]:
    """``lj.stats()['compiles']`` after the steps at ``batch`` (run by :func:`time_steps`),
    after one @jit step at ``batch // 2``, and after one eager step at ``batch // 2``."""
    before = lj.stats()["compiles"]
    params = [lj.tensor(p) for p in make_params()]
    x, onehot = (lj.tensor(a) for a in make_batch(max(batch // 2, 1), seed=2))
    JIT_STEP(params, x, onehot)
    after_jit = lj.stats()["compiles"]
    eager_step(params, x, onehot)
    return before, after_jit, lj.stats()["compiles"]

if __name__ == "__main__":
    main()
