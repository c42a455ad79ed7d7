"""Peak memory of a training step, measured (not estimated) in child processes.

Run from the repository root::

    python benchmarks/memory.py [--batch 4096] [--steps 100]

Each workload runs twice in fresh Python processes: the first run fills the compile caches
(lazyjit's disk cache); the second imports every library it uses (lazyjit's backend
included), builds its inputs, resets the kernel's peak-RSS mark
(``echo 5 > /proc/self/clear_refs``), records the resident size, runs three calls
(lazyjit's first one traces its function and loads the compiled code) and reports
``VmHWM - VmRSS before``: the extra memory the steps needed at their peak, in MiB, all
buffers, pools and code included.  The workloads:

* the MLP train step of ``benchmarks/mlp.py`` at batch 4,096: lazyjit ``@lj.jit``
  against the same step written by hand in NumPy;
* the gradient of a 100-step RNN (``h = tanh(x_t @ W + h @ U)``, batch 64, 256 units,
  a squared loss on every step): lazyjit's ``lj.scan`` and its reverse scan against
  torch's autograd through the same Python loop (if torch is installed).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import os, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, os.path.join({root!r}, "benchmarks"))
import numpy as np

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

def measure(step, repeats=3):
    if {warm}:  # a run that only fills the compile caches
        step()
        print(0.0)
        return
    if "lazyjit" in sys.modules:  # imports are not the step's memory (cffi's parser: 3 MiB)
        import lazyjit as lj
        from lazyjit.backends import get_backend
        get_backend(lj.config.backend)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    for _ in range(repeats):
        step()
    print((status("VmHWM") - before) / 2**20)

kind, batch, steps = {kind!r}, {batch}, {steps}
if kind in ("lazyjit-mlp", "numpy-mlp"):
    import mlp
    params, (x, onehot) = mlp.make_params(), mlp.make_batch(batch)
    if kind == "numpy-mlp":
        measure(lambda: mlp.numpy_step(params, x, onehot))
    else:
        import lazyjit as lj
        def step():
            new, loss = mlp.JIT_STEP(params, x, onehot)
            lj.realize(*new, loss)
        measure(step)
else:
    H, B = 256, 64
    rng = np.random.default_rng(0)
    X = rng.standard_normal((steps, B, H)).astype(np.float32)
    W = (rng.standard_normal((H, H)) / np.sqrt(H)).astype(np.float32)
    U = (rng.standard_normal((H, H)) / np.sqrt(H)).astype(np.float32)
    if kind == "lazyjit-rnn":
        import lazyjit as lj
        @lj.jit
        def grads(X, W, U):
            hs, _ = lj.scan(lambda x_t, h, W, U: lj.tanh(x_t @ W + h @ U), sequences=X,
                            outputs_info=lj.zeros((B, H), "float32"), non_sequences=[W, U])
            return lj.grad(lj.sum(hs * hs), [W, U])
        measure(lambda: lj.realize(*grads(X, W, U)))
    else:
        import torch
        torch.set_num_threads(2)
        Xt, Wt, Ut = (torch.tensor(a) for a in (X, W, U))
        Wt.requires_grad_(); Ut.requires_grad_()
        def step():
            h, loss = torch.zeros(B, H), 0.0
            for t in range(steps):
                h = torch.tanh(Xt[t] @ Wt + h @ Ut)
                loss = loss + (h * h).sum()
            gw, gu = torch.autograd.grad(loss, [Wt, Ut])
        measure(step)
'''


def run(kind: str, batch: int, steps: int) -> float | None:
    """The step's peak extra memory in MiB (after a first process filled the caches)."""
    for warm in (True, False):
        code = CHILD.format(root=ROOT, kind=kind, batch=batch, steps=steps, warm=warm)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=ROOT)
        if proc.returncode != 0:
            if "No module named 'torch'" in proc.stderr:
                return None
            raise RuntimeError(f"{kind} failed:\n{proc.stderr}")
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()
    rows = [("MLP train step, batch %d" % args.batch, "lazyjit-mlp", "numpy-mlp", "NumPy"),
            ("RNN gradient, %d-step scan" % args.steps, "lazyjit-rnn", "torch-rnn", "torch")]
    print(f"{'workload':32s} {'lazyjit (MiB)':>14s} {'peer (MiB)':>12s}  peer   ratio")
    for title, ours, peer, peer_name in rows:
        a = run(ours, args.batch, args.steps)
        b = run(peer, args.batch, args.steps)
        if b is None:
            print(f"{title:32s} {a:14.1f} {'-':>12s}  {peer_name}: not installed")
            continue
        print(f"{title:32s} {a:14.1f} {b:12.1f}  {peer_name:6s} {a / b:5.2f}")


if __name__ == "__main__":
    main()
