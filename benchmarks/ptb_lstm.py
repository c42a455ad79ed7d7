"""PTB LSTM language model: training words per second, lazyjit against torch and jax.

Run from the repository root::

    python benchmarks/ptb_lstm.py                          # configs small and medium
    python benchmarks/ptb_lstm.py --configs small,medium,large
    python benchmarks/ptb_lstm.py --quick                  # a smoke run

The model is Zaremba et al.'s 2-layer LSTM language model (arXiv:1409.2329) over a
10,000-word vocabulary: embedding, two LSTM layers, a softmax layer, cross-entropy
averaged over batch * steps, the gradient's global norm clipped, a plain SGD update.
Configurations: small (2x200, 20 steps, batch 20), medium (2x650, 35 steps, batch 20)
and large (2x1500, 35 steps, batch 20).  The token ids are random (throughput does not
depend on them); every library trains on the same few minibatches in turn, carrying its
hidden states from one to the next (truncated BPTT).

* lazyjit: the ``@lj.jit`` step of ``lazyjit/examples/ptb_lstm.py`` (one ``lj.scan``
  per layer), imported from there; the backend is lazyjit's default (``cpu``) unless
  ``LAZYJIT_FLAGS=backend=numpy`` says otherwise;
* torch (if installed): ``nn.Embedding``, ``nn.LSTM(num_layers=2)``, ``nn.Linear``,
  ``F.cross_entropy``, ``clip_grad_norm_`` and ``optim.SGD``, eager, with
  ``torch.set_num_threads(2)``;
* jax (if installed): an LSTM written with ``lax.scan``, ``jax.jit`` of
  ``value_and_grad``, clipping and the SGD update.

All three start from the same parameters, and the losses of their first two steps are
compared (the second checks the gradients and the update).  A step is timed as one
forward, backward and update of a minibatch, after warm-up (the first call, which
traces and compiles, is reported separately), with ``timing.medians_ms``; words per
second is ``batch * steps`` over the median step time.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time

if __name__ == "__main__":  # before NumPy loads OpenBLAS: this machine's BLAS kernels
    from timing import native_blas
    native_blas()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout
import lazyjit as lj  # noqa: E402
from lazyjit.examples import ptb_lstm as model  # noqa: E402
from timing import medians_ms  # noqa: E402

VOCAB = model.VOCAB
N_BATCHES = 4  # distinct random minibatches cycled through
LR = 1.0


def make_batches(cfg: dict, seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """``N_BATCHES`` random ``(x, y)`` int64 minibatches of shape ``(steps, batch)``."""
    rng = np.random.default_rng(seed)
    return [tuple(rng.integers(0, VOCAB, (cfg["steps"], cfg["batch"]), dtype=np.int64)
                  for _ in range(2)) for _ in range(N_BATCHES)]


class Runner:
    """One library's training loop: ``step()`` trains on the next minibatch and returns
    the loss as a float only when ``sync`` (timed calls just wait for the result)."""

    def __init__(self, step_fn, batches):
        self.step_fn, self.batches, self.k = step_fn, batches, 0

    def __call__(self, sync: bool = False):
        x, y = self.batches[self.k % len(self.batches)]
        self.k += 1
        loss = self.step_fn(x, y)
        return float(loss) if sync else None


# ---- lazyjit --------------------------------------------------------------------------

def lazyjit_runner(cfg: dict, params: dict, batches) -> Runner:
    step = model.make_train_step(cfg["max_norm"])
    state = {"params": model.to_tensors(params),
             "states": model.to_tensors(model.init_states(cfg["layers"], cfg["batch"],
                                                          cfg["hidden"]))}
    lr = np.asarray(LR, np.float32)

    def run(x, y):
        loss, state["params"], state["states"] = step(state["params"], state["states"],
                                                      x, y, lr)
        return loss
    return Runner(run, batches)


# ---- torch ----------------------------------------------------------------------------

def torch_runner(cfg: dict, params: dict, batches) -> Runner | None:
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    torch.set_num_threads(2)
    # torch CUDA where lazyjit runs on the GPU (backend=cuda, not emulated), else its CPU;
    # each step then waits for the GPU, as lazyjit's does (its values come to the host)
    dev = "cuda" if lj.config.backend == "cuda" and not lj.config.cuda_emulate else "cpu"
    hidden, layers = cfg["hidden"], cfg["layers"]
    emb = torch.nn.Embedding(VOCAB, hidden)
    lstm = torch.nn.LSTM(hidden, hidden, num_layers=layers)
    out = torch.nn.Linear(hidden, VOCAB)
    with torch.no_grad():        # the same parameters (torch's gate order is i, f, g, o too)
        emb.weight.copy_(torch.from_numpy(params["embedding"]))
        for k, (w, u, b) in enumerate(params["lstm"]):
            getattr(lstm, f"weight_ih_l{k}").copy_(torch.from_numpy(w.T))
            getattr(lstm, f"weight_hh_l{k}").copy_(torch.from_numpy(u.T))
            getattr(lstm, f"bias_ih_l{k}").copy_(torch.from_numpy(b))
            getattr(lstm, f"bias_hh_l{k}").zero_()
        out.weight.copy_(torch.from_numpy(params["softmax_w"].T))
        out.bias.copy_(torch.from_numpy(params["softmax_b"]))
    modules = torch.nn.ModuleList([emb, lstm, out]).to(dev)
    opt = torch.optim.SGD(modules.parameters(), lr=LR)
    zeros = torch.zeros(layers, cfg["batch"], hidden, device=dev)
    state = {"hc": (zeros, zeros.clone())}
    tbatches = [(torch.from_numpy(x).to(dev), torch.from_numpy(y).to(dev))
                for x, y in batches]

    def run(x, y):
        opt.zero_grad(set_to_none=True)
        h, hc = lstm(emb(x), state["hc"])
        loss = F.cross_entropy(out(h).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(modules.parameters(), cfg["max_norm"])
        opt.step()
        state["hc"] = tuple(s.detach() for s in hc)
        if dev == "cuda":
            torch.cuda.synchronize()
        return loss.detach()
    return Runner(run, tbatches)


# ---- jax ------------------------------------------------------------------------------

def jax_runner(cfg: dict, params: dict, batches) -> Runner | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def cell(carry, x_t, wub):
        (h, c), (w, u, b) = carry, wub
        i, f, g, o = jnp.split(x_t @ w + h @ u + b, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    def loss_fn(ps, states, x, y):
        h = ps["embedding"][x]
        new_states = []
        for (w, u, b), (h0, c0) in zip(ps["lstm"], states):
            (hl, cl), h = jax.lax.scan(functools.partial(cell, wub=(w, u, b)), (h0, c0), h)
            new_states.append([hl, cl])
        logp = jax.nn.log_softmax(h.reshape(-1, h.shape[-1]) @ ps["softmax_w"]
                                  + ps["softmax_b"], axis=-1)
        return -jnp.take_along_axis(logp, y.reshape(-1, 1), axis=1).mean(), new_states

    @jax.jit
    def step(ps, states, x, y):
        (loss, new_states), grads = jax.value_and_grad(loss_fn, has_aux=True)(ps, states, x, y)
        leaves = jax.tree_util.tree_leaves(grads)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
        rate = LR * jnp.minimum(1.0, cfg["max_norm"] / norm)
        return loss, jax.tree_util.tree_map(lambda p, g: p - rate * g, ps, grads), new_states

    state = {"ps": jax.tree_util.tree_map(jnp.asarray, params),
             "states": jax.tree_util.tree_map(
                 jnp.asarray, model.init_states(cfg["layers"], cfg["batch"], cfg["hidden"]))}
    jbatches = [(jnp.asarray(x), jnp.asarray(y)) for x, y in batches]

    def run(x, y):
        loss, state["ps"], state["states"] = step(state["ps"], state["states"], x, y)
        return loss.block_until_ready()
    return Runner(run, jbatches)


# ---- measuring ------------------------------------------------------------------------

def bench_config(name: str, quick: bool) -> dict:
    """``{library: words/s or a reason string}`` for one configuration; prints the
    first-call times and the first two losses."""
    cfg = model.CONFIGS[name]
    params = model.init_params(VOCAB, cfg["hidden"], cfg["layers"], cfg["init"], seed=0)
    batches = make_batches(cfg)
    makers = {"lazyjit": lazyjit_runner, "torch": torch_runner, "jax": jax_runner}
    runners, result = {}, {}
    for lib, make in makers.items():
        if lib == "lazyjit" and not hasattr(lj, "scan"):
            result[lib] = "no lj.scan"
            continue
        try:
            runner = make(cfg, params, batches)
            if runner is None:
                result[lib] = "not installed"
                continue
            t0 = time.perf_counter()
            first = runner(sync=True)
            t1 = time.perf_counter()
            second = runner(sync=True)
        except Exception as e:  # report, measure the others
            result[lib] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:80]}"
            continue
        print(f"  {name:<6} {lib:<8} first call {t1 - t0:7.2f} s   losses of steps 1, 2: "
              f"{first:.5f} {second:.5f}")
        runners[lib] = runner
    repeats, warmup, rounds = {"small": (30, 3), "medium": (9, 2), "large": (3, 1)}[name] \
        + (3,)
    if quick:
        repeats, warmup, rounds = max(repeats // 5, 2), 1, 1
    libs = list(runners)
    ms = medians_ms([runners[lib] for lib in libs], repeats, warmup, rounds)
    words = cfg["batch"] * cfg["steps"]
    result.update({lib: words / (t / 1e3) for lib, t in zip(libs, ms)})
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="small,medium",
                        help="comma-separated subset of small,medium,large")
    parser.add_argument("--quick", action="store_true", help="few repeats (a smoke run)")
    args = parser.parse_args(argv)
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    for c in names:
        if c not in model.CONFIGS:
            parser.error(f"unknown config {c!r}; choose from {', '.join(model.CONFIGS)}")
    print(f"lazyjit {lj.__version__}, backend={lj.config.backend}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs; PTB LSTM, vocab {VOCAB:,}, random ids, float32"
          + (" [--quick]" if args.quick else ""))
    rows = [(c, bench_config(c, args.quick)) for c in names]
    libs = ("lazyjit", "torch", "jax")
    print()
    print(f"{'train words/s':<26}" + "".join(f"{lib:>16}" for lib in libs)
          + f"{'lazyjit/torch':>15}")
    for c, res in rows:
        cfg = model.CONFIGS[c]
        label = f"{c} ({cfg['layers']}x{cfg['hidden']}, {cfg['steps']}x{cfg['batch']})"
        cells = [f"{res[lib]:>16,.0f}" if isinstance(res[lib], float)
                 else f"{res[lib].split(':')[0]:>16}" for lib in libs]
        ratio = (f"{res['lazyjit'] / res['torch']:>15.2f}"
                 if all(isinstance(res[lib], float) for lib in ("lazyjit", "torch"))
                 else f"{'-':>15}")
        print(f"{label:<26}" + "".join(cells) + ratio)
    for c, res in rows:
        for lib in libs:
            if isinstance(res[lib], str) and res[lib].startswith("failed"):
                print(f"{c} {lib}: {res[lib]}")


if __name__ == "__main__":
    main()
