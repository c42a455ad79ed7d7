"""Train an MLP on scikit-learn's handwritten digits, eager style with ``lj.grad``.

``python -m lazyjit.examples.digits`` trains a 64-256-256-10 ReLU network (He
initialization) on ``sklearn.datasets.load_digits`` (1,797 8x8 images, shipped with
scikit-learn, no download): softmax cross-entropy (``lj.log_softmax``) against targets
label-smoothed by 0.1, SGD with momentum 0.9 and weight decay, a cosine learning-rate
schedule, minibatches of 128.  Pixels are scaled by 1/16 and standardized with the
training set's statistics; the split is a stratified 80/20 one with a fixed seed
(``--seed`` varies the initialization and the minibatch order, not the split); float32
throughout.

Each step is written as plain array code on lazy tensors: the loss is built from the
parameters and the minibatch, ``lj.grad`` adds the backward graph, the update adds the
new parameters and velocities, and one ``lj.realize`` computes them all in one trace.
Every full step has the same structure and shapes, so after the first one each realize
finds its compiled plan in the trace cache; the last, smaller minibatch of an epoch has a
new batch size, which on the ``cpu`` backend reuses the compiled kernels (sizes are
run-time arguments), so ``compiles`` stays small.

``--model cnn`` trains a LeNet-like convolutional network instead (``lj.nn.functional``:
conv 3x3, 16 channels, ReLU, max-pool 2; conv 3x3, 32 channels, ReLU, max-pool 2; dense
128-64-10) on the images as ``(batch, 1, 8, 8)``, with the same loss and optimizer.

The last lines printed are ``test accuracy: A``, ``steps per second: S`` (after the
first step, which includes compiling) and ``compiles: N`` (``lj.stats()['compiles']``:
the training step and the evaluation, on a cold compiled-code cache).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

import lazyjit as lj
from lazyjit.backends import cuda
from lazyjit.nn import functional as nnf

LAYERS = (64, 256, 256, 10)
SPLIT_SEED = 0


def load_data(split_seed: int = SPLIT_SEED):
    """Return ``(x_train, y_train, x_test, y_test)``: float32 features in [0, 1] of shape
    ``(n, 64)`` and int64 labels, a stratified 80/20 split drawn with ``split_seed``."""
    # (scikit-learn is a dependency of the examples only: imported when the data is)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = digits.data / 16.0
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=split_seed, stratify=y)
    # standardize with the training set's statistics (0.1 keeps constant pixels finite)
    mean, scale = x_train.mean(0), x_train.std(0) + 0.1
    x_train, x_test = ((a - mean) / scale for a in (x_train, x_test))
    return x_train.astype(np.float32), y_train, x_test.astype(np.float32), y_test


def init_params(seed: int) -> list[lj.Tensor]:
    """He-initialized weights ``N(0, 2 / fan_in)`` and zero biases, as float32 tensors
    holding buffers, in the order ``[w1, b1, w2, b2, w3, b3]``.  (``lj.zeros`` would be a
    broadcast constant: the first step would then have a graph of its own to compile.)"""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:]):
        w = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
        params += [lj.tensor(w, dtype=np.float32), lj.tensor(np.zeros(fan_out, np.float32))]
    return params


CNN = ((16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (128, 64), (64,), (64, 10), (10,))


def init_cnn(seed: int) -> list[lj.Tensor]:
    """He-initialized parameters of the CNN (shapes :data:`CNN`), zero biases."""
    rng = np.random.default_rng(seed)
    params = []
    for shape in CNN:
        if len(shape) == 1:
            params.append(lj.tensor(np.zeros(shape, np.float32)))
            continue
        fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
        params.append(lj.tensor(rng.normal(0.0, np.sqrt(2.0 / fan_in), size=shape),
                                dtype=np.float32))
    return params


def forward_cnn(params, x):
    """Logits ``(batch, 10)`` of the CNN for inputs ``x`` of shape ``(batch, 64)``."""
    c1, b1, c2, b2, w3, b3, w4, b4 = params
    h = x.reshape(x.shape[0], 1, 8, 8)
    h = nnf.max_pool2d(lj.relu(nnf.conv2d(h, c1, b1, padding=1)), 2)   # (n, 16, 4, 4)
    h = nnf.max_pool2d(lj.relu(nnf.conv2d(h, c2, b2, padding=1)), 2)   # (n, 32, 2, 2)
    h = lj.relu(h.reshape(h.shape[0], 128) @ w3 + b3)
    return h @ w4 + b4


def forward(params, x):
    """Logits of shape ``(batch, 10)`` for inputs ``x`` of shape ``(batch, 64)`` (the CNN's
    when ``params`` are the CNN's)."""
    if len(params) == len(CNN) and params[0].ndim == 4:
        return forward_cnn(params, x)
    h = x
    n_layers = len(params) // 2
    for i in range(n_layers):
        w, b = params[2 * i], params[2 * i + 1]
        h = h @ w + b
        if i < n_layers - 1:
            h = lj.relu(h)
    return h


def loss_fn(params, x, targets):
    """Mean softmax cross-entropy of the batch against target distributions ``(batch, 10)``
    (a 0-d float32 tensor)."""
    logp = lj.log_softmax(forward(params, x), axis=-1)
    return -(logp * targets).sum() / x.shape[0]


def accuracy(params, x: np.ndarray, y: np.ndarray) -> float:
    logits = forward(params, lj.tensor(x)).numpy()
    return float((logits.argmax(axis=1) == y).mean())


def train(epochs: int = 60, lr: float = 0.1, batch_size: int = 128, seed: int = 0,
          momentum: float = 0.9, label_smoothing: float = 0.1, weight_decay: float = 5e-4,
          progress: bool = True, model: str = "mlp") -> dict:
    """Train and evaluate; returns ``{'test_accuracy', 'steps_per_second', 'compiles',
    'steps', 'final_loss'}``.

    SGD with momentum and L2 weight decay; the learning rate follows a cosine schedule
    from ``lr`` to 0.  It is passed as a 0-d tensor, an input of the step like the
    minibatch, so a new value changes no trace (a Python float would be a constant of
    the graph and make every step a new trace)."""
    from tqdm import tqdm  # (a dependency of the examples only, as scikit-learn)

    x_train, y_train, x_test, y_test = load_data()
    params = init_cnn(seed) if model == "cnn" else init_params(seed)
    # zeros held in buffers, as the biases: the first step has the graph of every later one
    velocity = [lj.tensor(np.zeros(p.shape, p.dtype)) for p in params]
    rng = np.random.default_rng(seed + 1)
    n_classes = LAYERS[-1]
    targets = np.eye(n_classes, dtype=np.float32) * (1 - label_smoothing) \
        + np.float32(label_smoothing / n_classes)
    n = len(x_train)
    steps_per_epoch = -(-n // batch_size)
    total_steps = epochs * steps_per_epoch
    steps = 0
    loss_value = float("nan")
    start = time.perf_counter()
    with tqdm(total=epochs * steps_per_epoch, desc="digits", unit="step",
              disable=not progress) as bar:
        for epoch in range(epochs):
            order = rng.permutation(n)
            for lo in range(0, n, batch_size):
                idx = order[lo:lo + batch_size]       # the last batch is smaller
                xb = lj.tensor(x_train[idx])
                yb = lj.tensor(targets[y_train[idx]])
                rate = lj.tensor(np.float32(lr * 0.5 * (1 + math.cos(math.pi * steps /
                                                                     total_steps))))
                loss = loss_fn(params, xb, yb)
                grads = lj.grad(loss, params)
                velocity = [momentum * v - rate * (g + weight_decay * p)
                            for v, g, p in zip(velocity, grads, params)]
                params = [p + v for p, v in zip(params, velocity)]
                lj.realize(*params, *velocity, loss)  # one trace: forward, backward, update
                steps += 1
                if steps == 1:
                    start = time.perf_counter()
                bar.update(1)
            loss_value = float(loss)
            bar.set_postfix(epoch=epoch + 1, loss=f"{loss_value:.4f}")
    elapsed = time.perf_counter() - start
    return {
        "test_accuracy": accuracy(params, x_test, y_test),
        "steps_per_second": max(steps - 1, 0) / elapsed if elapsed > 0 else float("inf"),
        "compiles": lj.stats()["compiles"],
        "steps": steps,
        "final_loss": loss_value,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=60, help="passes over the training set")
    parser.add_argument("--lr", type=float, default=0.1, help="SGD learning rate")
    parser.add_argument("--batch-size", type=int, default=128, help="minibatch size")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the initialization and the minibatch order")
    parser.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    parser.add_argument("--label-smoothing", type=float, default=0.1,
                        help="weight of the uniform distribution mixed into the targets")
    parser.add_argument("--weight-decay", type=float, default=5e-4, help="L2 weight decay")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--model", choices=("mlp", "cnn"), default="mlp",
                        help="the 64-256-256-10 MLP, or the LeNet-like CNN")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where to run: cuda runs on the GPU, or emulated on the CPU "
                             "where there is none (slow)")
    args = parser.parse_args(argv)
    flags = {}
    if args.device == "cuda":
        flags = cuda.flags()
        print("device: cuda" + (" (emulated on the CPU: no GPU here)"
                                if flags["cuda_emulate"] else ""))
    with lj.config(**flags):
        result = train(args.epochs, args.lr, args.batch_size, args.seed, args.momentum,
                       args.label_smoothing, args.weight_decay,
                       progress=not args.no_progress, model=args.model)
    print(f"test accuracy: {result['test_accuracy']:.4f}")
    print(f"steps per second: {result['steps_per_second']:.1f}")
    print(f"compiles: {result['compiles']}")


if __name__ == "__main__":
    main()
