"""A small CNN's forward + backward time per minibatch: lazyjit against torch and jax.

Run from the repository root::

    python benchmarks/convnet.py [--batch 64] [--quick]

The network (issue 6): 32x32x3 inputs; conv 3x3 (3 -> 32, padding 1), ReLU, max-pool 2;
conv 3x3 (32 -> 64, padding 1), ReLU, max-pool 2; dense 4096 -> 128, ReLU; dense
128 -> 10; softmax cross-entropy, mean over the batch.  One call computes the loss and
the gradients of all parameters (no update).  lazyjit: ``lj.jit`` of ``lj.grad`` through
``lazyjit.nn.functional``, whose convolutions and poolings are abstract ops; on ``cpu`` the
``conv_algo`` flag (default ``guess_once``; ``--conv-algo time_once`` times the
implementations) picks im2col + GEMM (OpenBLAS) per chunk of samples for these shapes,
and max-pooling runs one-pass C kernels; torch (2 threads): eager autograd with
``torch.nn.functional`` (oneDNN convolutions); jax: ``jax.jit(jax.value_and_grad)`` with
``lax.conv``.  All start from the same parameters and the losses and a gradient are
compared.
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
from lazyjit.nn import functional as nnf  # noqa: E402
from timing import medians_ms  # noqa: E402

SHAPES = {"c1": (32, 3, 3, 3), "b1": (32,), "c2": (64, 32, 3, 3), "b2": (64,),
          "w3": (4096, 128), "b3": (128,), "w4": (128, 10), "b4": (10,)}


def make_params(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for k, shape in SHAPES.items():
        fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
        out[k] = (rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(np.float32) \
            if len(shape) > 1 else np.zeros(shape, np.float32)
    return out


def lj_loss(p, x, y):
    h = nnf.max_pool2d(lj.relu(nnf.conv2d(x, p["c1"], p["b1"], padding=1)), 2)
    h = nnf.max_pool2d(lj.relu(nnf.conv2d(h, p["c2"], p["b2"], padding=1)), 2)
    h = lj.relu(h.reshape(h.shape[0], 4096) @ p["w3"] + p["b3"])
    return lj.softmax_cross_entropy(h @ p["w4"] + p["b4"], y).mean()


def lazyjit_runner(params, x, y):
    step = lj.jit(lambda p, x, y: lj.value_and_grad(lj_loss)(p, x, y))
    p = {k: lj.tensor(v) for k, v in params.items()}
    xt, yt = lj.tensor(x), lj.tensor(y)

    def run():
        loss, g = step(p, xt, yt)
        return float(loss), g["c1"].numpy()
    return run


def torch_runner(params, x, y):
    import torch
    import torch.nn.functional as tf
    torch.set_num_threads(2)
    # torch CUDA where lazyjit runs on the GPU (backend=cuda, not emulated), else its CPU
    dev = "cuda" if lj.config.backend == "cuda" and not lj.config.cuda_emulate else "cpu"
    p = {k: torch.tensor(v, requires_grad=True, device=dev) for k, v in params.items()}
    xt, yt = torch.tensor(x, device=dev), torch.tensor(y, device=dev)

    def run():
        for v in p.values():
            v.grad = None
        h = tf.max_pool2d(tf.relu(tf.conv2d(xt, p["c1"], p["b1"], padding=1)), 2)
        h = tf.max_pool2d(tf.relu(tf.conv2d(h, p["c2"], p["b2"], padding=1)), 2)
        h = tf.relu(h.reshape(h.shape[0], 4096) @ p["w3"] + p["b3"])
        loss = tf.cross_entropy(h @ p["w4"] + p["b4"], yt)
        loss.backward()
        return loss.item(), p["c1"].grad.cpu().numpy()
    return run


def jax_runner(params, x, y):
    import jax
    import jax.numpy as jnp

    def conv(h, w, b):
        out = jax.lax.conv_general_dilated(h, w, (1, 1), ((1, 1), (1, 1)),
                                           dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return out + b[None, :, None, None]

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                                     "VALID")

    def loss_fn(p, x, y):
        h = pool(jax.nn.relu(conv(x, p["c1"], p["b1"])))
        h = pool(jax.nn.relu(conv(h, p["c2"], p["b2"])))
        h = jax.nn.relu(h.reshape(h.shape[0], 4096) @ p["w3"] + p["b3"])
        logp = jax.nn.log_softmax(h @ p["w4"] + p["b4"])
        return -jnp.take_along_axis(logp, y[:, None], 1).mean()
    step = jax.jit(jax.value_and_grad(loss_fn))
    p = {k: jnp.asarray(v) for k, v in params.items()}
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def run():
        loss, g = step(p, xj, yj)
        return float(loss), np.asarray(g["c1"])
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--conv-algo", default="guess_once",
                    help="lj.config's conv_algo: guess_once, time_once, gemm or direct")
    args = ap.parse_args()
    lj.config.conv_algo = args.conv_algo
    rng = np.random.default_rng(1)
    x = rng.standard_normal((args.batch, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, args.batch)
    params = make_params()
    names, fns = [], []
    for name, make in (("lazyjit", lazyjit_runner), ("torch", torch_runner),
                       ("jax", jax_runner)):
        try:
            fn = make(params, x, y)
        except ImportError:
            print(f"{name}: not installed")
            continue
        names.append(name)
        fns.append(fn)
    results = [fn() for fn in fns]
    for name, (loss, g) in zip(names, results):
        err = np.abs(g - results[0][1]).max() / max(np.abs(results[0][1]).max(), 1e-30)
        print(f"{name:8s} loss {loss:.6f}  gradient of c1 vs lazyjit: rel. max diff {err:.1e}")
    times = medians_ms(fns, repeats=6 if args.quick else 30)
    print(f"\nforward + backward, batch {args.batch}, 32x32x3   ms/minibatch  "
          "lazyjit time / this")
    for name, ms in zip(names, times):
        print(f"  {name:38s} {ms:10.2f}  {times[0] / ms:10.2f}")


if __name__ == "__main__":
    main()
