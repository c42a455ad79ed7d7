"""A 2-layer LSTM language model on the Penn Treebank, with ``lj.scan`` over time.

``python -m lazyjit.examples.ptb_lstm --data ../shared/data/ptb`` trains the
non-regularized ("small") word-level LSTM language model of Zaremba, Sutskever and
Vinyals, *Recurrent Neural Network Regularization* (arXiv:1409.2329, 2014), section 4.1:

* an embedding lookup (``lj.take`` of rows of a ``(vocab, hidden)`` matrix);
* two LSTM layers, each ONE ``lj.scan`` over the time steps.  The body computes
  ``gates = x_t @ W + h @ U + b``, splits it into ``i, f, g, o`` (torch's order),
  ``i, f, o = sigmoid(.)``, ``g = tanh(.)``, ``c = f * c + i * g``,
  ``h = o * tanh(c)``; ``outputs_info=[h0, c0]``, and ``W, U, b`` are non-sequences;
* a softmax layer over the vocabulary and the cross-entropy (``lj.log_softmax``, the
  targets' log-probabilities picked with ``lj.take_along_axis``) averaged over
  batch * steps; perplexity is ``exp`` of that average.

Training follows the paper's small configuration: 200 units, 20 unrolled steps
(truncated backpropagation through time), minibatches of 20, every parameter drawn from
``uniform(-0.1, 0.1)``, plain SGD with learning rate 1, the gradient's global norm
clipped at 5, the learning rate halved after every epoch from the 5th on, no dropout.
``--config medium`` selects 650 units, 35 steps, init 0.05, decay 1/1.2 after epoch 6,
still without the paper's dropout (not implemented here).

Hidden and cell states are carried from one minibatch to the next as values: a step
takes them as inputs and returns the new ones, so no gradient flows across minibatches.
The whole step (forward, ``lj.grad``, clipping, update) is one ``@lj.jit`` function
``(params, states, x, y, lr) -> (loss, new params, new states)``, traced and compiled
once; the learning rate is a 0-d array input, so its decay changes no trace.

Data: the training split of PTB is not available here (see the data folder's README),
so the model trains on ``ptb.valid.txt`` and is evaluated on ``ptb.test.txt``.  Words
are split on whitespace with an ``<eos>`` ending each line.  The two files use 7,596 of
PTB's 10,000 words; the output layer has 10,000 classes as in the paper (the ids beyond
those seen never occur as targets).  Evaluation uses the training batch and step sizes
(the paper used batch 1), with states carried through the whole test stream.

With 13 times less training text than the paper (73,760 words instead of 929,589, so
184 minibatches an epoch), the paper's schedule decays the learning rate while the model
is still leaving the unigram plateau: measured test perplexity 743 -> 697 over the
default 4 epochs, 672 after 13.  Keeping the full rate longer learns more:
``--epochs 13 --decay-after 100`` reached 484 (the paper's 114.5 needs the full training
split).

Printed per epoch: train perplexity, test perplexity, training words per second (the
first epoch's excludes the first step, which traces and compiles).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import lazyjit as lj
from lazyjit.nn import functional as nnf

CONFIGS = {
    "small": dict(hidden=200, layers=2, steps=20, batch=20, init=0.1, lr=1.0, max_norm=5.0,
                  decay_after=4, decay=0.5),
    "medium": dict(hidden=650, layers=2, steps=35, batch=20, init=0.05, lr=1.0,
                   max_norm=5.0, decay_after=6, decay=1 / 1.2),
    "large": dict(hidden=1500, layers=2, steps=35, batch=20, init=0.04, lr=1.0,
                  max_norm=10.0, decay_after=14, decay=1 / 1.15),
}
VOCAB = 10_000  # PTB's vocabulary size (Mikolov's preprocessing)


# ---- data -----------------------------------------------------------------------------

def read_words(path: str) -> list[str]:
    """Whitespace-separated words of a PTB file, with ``<eos>`` ending each line."""
    with open(path) as f:
        return [w for line in f for w in line.split() + ["<eos>"]]


def load_ptb(data_dir: str, vocab_size: int = VOCAB):
    """Return ``(train_ids, test_ids, vocab)``: int64 id streams of ``ptb.valid.txt``
    (trained on) and ``ptb.test.txt``, and the sorted list of the words seen in either.
    Ids are indices into that list; ``vocab_size`` (at least its length) is the size of
    the output layer."""
    train = read_words(os.path.join(data_dir, "ptb.valid.txt"))
    test = read_words(os.path.join(data_dir, "ptb.test.txt"))
    vocab = sorted(set(train) | set(test))
    if len(vocab) > vocab_size:
        raise ValueError(f"{len(vocab)} distinct words do not fit a vocabulary of {vocab_size}")
    ids = {w: i for i, w in enumerate(vocab)}
    return (np.array([ids[w] for w in train], np.int64),
            np.array([ids[w] for w in test], np.int64), vocab)


def minibatches(ids: np.ndarray, batch: int, steps: int):
    """Yield ``(x, y)`` int64 arrays of shape ``(steps, batch)`` (time-major), ``y`` the
    next words of ``x``: the stream is cut into ``batch`` contiguous rows, read ``steps``
    words at a time (Zaremba et al.'s reader), so row ``j`` of one minibatch continues
    row ``j`` of the previous one."""
    n = (len(ids) - 1) // batch
    x = ids[:n * batch].reshape(batch, n)
    y = ids[1:n * batch + 1].reshape(batch, n)
    for t in range(0, n - steps + 1, steps):
        yield (np.ascontiguousarray(x[:, t:t + steps].T),
               np.ascontiguousarray(y[:, t:t + steps].T))


# ---- model ----------------------------------------------------------------------------

def init_params(vocab: int, hidden: int, layers: int = 2, scale: float = 0.1,
                seed: int = 0) -> dict:
    """Float32 parameters drawn from ``uniform(-scale, scale)``: ``'embedding'``
    ``(vocab, hidden)``; ``'lstm'``, one ``[W (hidden, 4 hidden), U (hidden, 4 hidden),
    b (4 hidden)]`` per layer, gates in the order ``i, f, g, o``; ``'softmax_w'``
    ``(hidden, vocab)`` and ``'softmax_b'`` ``(vocab,)``.  NumPy arrays; pass them to
    :func:`to_tensors` for lazyjit."""
    rng = np.random.default_rng(seed)
    u = lambda *shape: rng.uniform(-scale, scale, shape).astype(np.float32)
    return {"embedding": u(vocab, hidden),
            "lstm": [[u(hidden, 4 * hidden), u(hidden, 4 * hidden), u(4 * hidden)]
                     for _ in range(layers)],
            "softmax_w": u(hidden, vocab), "softmax_b": u(vocab)}


def init_states(layers: int, batch: int, hidden: int) -> list[list[np.ndarray]]:
    """Zero ``[h, c]`` per layer, each ``(batch, hidden)`` float32."""
    return [[np.zeros((batch, hidden), np.float32) for _ in range(2)] for _ in range(layers)]


def to_tensors(tree):
    """The same nested dict/list structure with every NumPy array made a ``lj.tensor``."""
    if isinstance(tree, dict):
        return {k: to_tensors(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [to_tensors(v) for v in tree]
    return lj.tensor(tree)


def lstm_layer(xs, h0, c0, w, u, b):
    """Run one LSTM layer over ``xs (steps, batch, in)``: ``lj.nn``'s LSTM
    (:func:`lazyjit.nn.functional.lstm`, ONE ``lj.scan``) on this example's parameters;
    returns ``(hs (steps, batch, hidden), h_last, c_last)``."""
    return nnf.lstm(xs, h0, c0, w, u, b)


def loss_and_states(params, states, x, y):
    """Mean cross-entropy (nats per word, 0-d float32) of predicting ``y`` from ``x``
    (int64 ``(steps, batch)``) starting from ``states``, and the last ``[h, c]`` of
    every layer."""
    h = lj.take(params["embedding"], x, axis=0)             # (steps, batch, hidden)
    new_states = []
    for (w, u, b), (h0, c0) in zip(params["lstm"], states):
        h, h_last, c_last = lstm_layer(h, h0, c0, w, u, b)
        new_states.append([h_last, c_last])
    steps, batch, hidden = h.shape
    logits = h.reshape(steps * batch, hidden) @ params["softmax_w"] + params["softmax_b"]
    logp = lj.log_softmax(logits, axis=-1)
    picked = lj.take_along_axis(logp, y.reshape(steps * batch, 1), axis=1)
    return -picked.mean(), new_states


def sgd_clipped(params, grads, lr, max_norm: float):
    """``params - lr * shrink * grads`` with ``shrink = min(1, max_norm / ||grads||)``,
    the norm taken over all gradients together (Zaremba et al.'s clipping)."""
    leaves, grad_leaves = _leaves(params), _leaves(grads)
    norm = lj.sqrt(sum((g * g).sum() for g in grad_leaves))
    rate = lr * lj.minimum(1.0, max_norm / norm)
    new = iter([p - rate * g for p, g in zip(leaves, grad_leaves)])
    return _rebuild(params, new)


def _leaves(tree) -> list:
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in _leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in _leaves(v)]
    return [tree]


def _rebuild(tree, it):
    if isinstance(tree, dict):
        return {k: _rebuild(tree[k], it) for k in sorted(tree)}
    if isinstance(tree, (list, tuple)):
        return [_rebuild(v, it) for v in tree]
    return next(it)


def make_train_step(max_norm: float = 5.0):
    """A ``@lj.jit`` training step ``(params, states, x, y, lr) -> (loss, new_params,
    new_states)``: forward, gradient, clipping and SGD update in one compiled trace.
    ``lr`` is a 0-d float32 array."""
    def train_step(params, states, x, y, lr):
        loss, new_states = loss_and_states(params, states, x, y)
        grads = lj.grad(loss, _leaves(params))
        return loss, sgd_clipped(params, _rebuild(params, iter(grads)), lr, max_norm), \
            new_states
    return lj.jit(train_step)


@lj.jit
def eval_step(params, states, x, y):
    """``(loss, new_states)`` without gradients."""
    return loss_and_states(params, states, x, y)


def perplexity(params, ids: np.ndarray, cfg: dict, max_batches: int | None = None) -> float:
    """Perplexity of the stream ``ids`` (states carried through it from zero)."""
    states = to_tensors(init_states(cfg["layers"], cfg["batch"], cfg["hidden"]))
    total, count = 0.0, 0
    for k, (x, y) in enumerate(minibatches(ids, cfg["batch"], cfg["steps"])):
        if max_batches is not None and k >= max_batches:
            break
        loss, states = eval_step(params, states, x, y)
        total, count = total + float(loss), count + 1
    return float(np.exp(total / max(count, 1)))


def train(data_dir: str, config: str = "small", epochs: int = 4, seed: int = 0,
          max_batches: int | None = None, decay_after: int | None = None,
          log=print) -> list[dict]:
    """Train and evaluate; returns one dict per epoch: ``epoch``, ``lr``,
    ``train_perplexity`` (over that epoch's minibatches, as the parameters moved),
    ``test_perplexity``, ``words_per_second``.  ``decay_after`` overrides the config's
    number of epochs at the full learning rate."""
    cfg = dict(CONFIGS[config])
    if decay_after is not None:
        cfg["decay_after"] = decay_after
    train_ids, test_ids, vocab = load_ptb(data_dir)
    log(f"PTB: {len(train_ids):,} training words (ptb.valid.txt), {len(test_ids):,} test "
        f"words (ptb.test.txt), {len(vocab):,} distinct, output layer {VOCAB:,}; config "
        f"{config}: {cfg['layers']}x{cfg['hidden']}, {cfg['steps']} steps, batch "
        f"{cfg['batch']}; backend {lj.config.backend}")
    params = to_tensors(init_params(VOCAB, cfg["hidden"], cfg["layers"], cfg["init"], seed))
    step = make_train_step(cfg["max_norm"])
    history, first = [], True
    for epoch in range(1, epochs + 1):
        lr = cfg["lr"] * cfg["decay"] ** max(epoch - cfg["decay_after"], 0)
        lr_arr = np.asarray(lr, np.float32)
        states = to_tensors(init_states(cfg["layers"], cfg["batch"], cfg["hidden"]))
        total, count, words = 0.0, 0, 0
        start = time.perf_counter()
        for k, (x, y) in enumerate(minibatches(train_ids, cfg["batch"], cfg["steps"])):
            if max_batches is not None and k >= max_batches:
                break
            loss, params, states = step(params, states, x, y, lr_arr)
            total, count = total + float(loss), count + 1
            if first:          # the first step traces and compiles: not timed
                first, start = False, time.perf_counter()
            else:
                words += x.size
        elapsed = time.perf_counter() - start
        row = {"epoch": epoch, "lr": lr, "train_perplexity": float(np.exp(total / count)),
               "test_perplexity": perplexity(params, test_ids, cfg, max_batches),
               "words_per_second": words / elapsed if elapsed > 0 else float("nan")}
        history.append(row)
        log(f"epoch {epoch}: lr {lr:.3g}  train perplexity {row['train_perplexity']:.2f}  "
            f"test perplexity {row['test_perplexity']:.2f}  "
            f"{row['words_per_second']:,.0f} words/s")
    return history


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join("..", "shared", "data", "ptb"),
                        help="folder holding ptb.valid.txt and ptb.test.txt "
                             "(default: %(default)s)")
    parser.add_argument("--config", choices=sorted(CONFIGS), default="small")
    parser.add_argument("--epochs", type=int, default=4, help="passes over ptb.valid.txt")
    parser.add_argument("--max-batches", type=int, default=None,
                        help="minibatches per epoch and per evaluation (for smoke runs)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the initialization")
    parser.add_argument("--decay-after", type=int, default=None,
                        help="epochs at the full learning rate before it decays (default: "
                             "the config's, 4 for small, as in the paper)")
    args = parser.parse_args(argv)
    missing = [f for f in ("ptb.valid.txt", "ptb.test.txt")
               if not os.path.isfile(os.path.join(args.data, f))]
    if missing:
        parser.error(f"no {' or '.join(missing)} in {os.path.abspath(args.data)!r}: pass "
                     "--data <folder> holding the PTB files (Mikolov's ptb.valid.txt and "
                     "ptb.test.txt; they are not part of the repository)")
    train(args.data, args.config, args.epochs, args.seed, args.max_batches, args.decay_after)
    print(f"compiles: {lj.stats()['compiles']}")


if __name__ == "__main__":
    main()
