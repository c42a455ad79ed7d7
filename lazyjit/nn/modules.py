"""Layers with parameters (``lj.nn``), written with lazyjit's public API only.

A :class:`Module` holds its parameters as shared variables (``lj.shared``), so a jitted
training step reads them at every call and an optimizer (``lj.optim``) updates them in
place; sub-modules are found through attributes (and lists of modules), as in
``torch.nn``.  ``train()``/``eval()`` switch dropout and batch normalization; a change
of mode makes jitted functions trace again at their next call, so they follow the mode
(an ``lj.function`` keeps the mode its graph was built in: build one per mode).
Initializations follow ``torch.nn`` (uniform in ``+-1/sqrt(fan_in)``, normal embeddings).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterator

import numpy as np

import lazyjit.nn.basic as basic
import lazyjit.nn.functional as F
from lazyjit.api.functions import relu, zeros
from lazyjit.api.shared import SharedVariable, shared
from lazyjit.api.tensor import check_dtype
from lazyjit.engine.jit import invalidate_traces
from lazyjit.errors import LazyjitError
from lazyjit.nn.basic import DEFAULTS
from lazyjit.random import RandomStream

__all__ = ["Module", "Linear", "Conv2d", "MaxPool2d", "Embedding", "Dropout", "Sequential",
           "LSTM", "BatchNorm1d", "BatchNorm2d", "ReLU"]

def manual_seed(seed: int) -> None:
    """Seed the generator of parameter initializations (and of dropout streams)."""
    DEFAULTS.rng = np.random.default_rng(seed)
    DEFAULTS.stream = RandomStream(int(DEFAULTS.rng.integers(2**62)))


def _uniform(shape, bound: float) -> np.ndarray:
    return DEFAULTS.rng.uniform(-bound, bound, shape).astype(np.float32)


class Module:
    """Base class: parameters (shared variables) and sub-modules, found by attribute."""

    training = True

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no forward")

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        for name, value in vars(self).items():
            if isinstance(value, Module):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    if isinstance(v, Module):
                        yield f"{name}.{i}", v

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, SharedVariable]]:
        """``(dotted name, shared variable)`` of this module's parameters, then its
        children's, in definition order."""
        for name, value in vars(self).items():
            if isinstance(value, SharedVariable) and not name.startswith("_"):
                yield prefix + name, value
        for name, child in self.named_children():
            yield from child.named_parameters(prefix + name + ".")

    def parameters(self) -> list[SharedVariable]:
        return [p for _, p in self.named_parameters()]

    def state_dict(self) -> "OrderedDict[str, np.ndarray]":
        """Copies of every parameter's (and buffer's) value, by dotted name."""
        out = OrderedDict((n, p.get_value()) for n, p in self.named_parameters())
        for name, b in self.named_buffers():
            out[name] = b.get_value()
        return out

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, SharedVariable]]:
        """Non-trained state (running statistics): shared variables named ``_x``."""
        for name, value in vars(self).items():
            if isinstance(value, SharedVariable) and name.startswith("_"):
                yield prefix + name[1:], value
        for name, child in self.named_children():
            yield from child.named_buffers(prefix + name + ".")

    def load_state_dict(self, state: dict) -> None:
        """Set every parameter and buffer from ``state`` (as :meth:`state_dict` gives).

        Raises
        ------
        lj.LazyjitError
            On a missing or unexpected key, or a shape or dtype that differs.
        """
        own = dict(self.named_parameters())
        own.update(self.named_buffers())
        missing, extra = set(own) - set(state), set(state) - set(own)
        if missing or extra:
            raise LazyjitError(f"load_state_dict: missing keys {sorted(missing)}, "
                                  f"unexpected keys {sorted(extra)}")
        for name, p in own.items():
            value = np.asarray(state[name])
            if value.shape != p.shape:
                raise LazyjitError(f"load_state_dict: {name} has shape {p.shape}, the "
                                      f"state gives {value.shape}")
            p.set_value(value)

    def train(self, mode: bool = True) -> "Module":
        """Set training mode (dropout drops, batch norm uses and updates batch statistics)
        on this module and its children; returns the module.  A change of mode makes
        ``@lj.jit`` functions trace again at their next call (``lj.invalidate_traces``),
        so a jitted function follows the mode its modules are in; an ``lj.function``
        keeps the mode its graph was built in (build one per mode, as in Theano)."""
        mode = bool(mode)
        if self.training != mode:
            invalidate_traces()
        self.training = mode
        for _, child in self.named_children():
            child.train(mode)  # (a child that overrides train is called)
        return self

    def eval(self) -> "Module":
        """``train(False)``: dropout is the identity, batch norm uses its running
        statistics."""
        return self.train(False)

    def astype(self, dtype) -> "Module":
        """Cast the floating-point parameters and buffers of this module and its
        descendants to the floating ``dtype`` (``float16``: torch's ``half()``); returns
        the module.  Each becomes a new shared variable (of the same name): build
        optimizers after casting; ``@lj.jit`` functions trace again at their next call.

        Raises
        ------
        lj.LazyjitError
            If ``dtype`` is not a supported floating dtype.
        """
        dt = check_dtype(dtype, "Module.astype")
        if dt.kind != "f":
            raise LazyjitError(f"Module.astype: {dt} is not a floating dtype")
        for m in self.modules():
            for name, value in list(vars(m).items()):
                if isinstance(value, SharedVariable) and value.dtype.kind == "f" and \
                        value.dtype != dt:
                    setattr(m, name, shared(value.get_value().astype(dt), value.name))
        invalidate_traces()
        return self

    def modules(self) -> Iterator["Module"]:
        """This module and all its descendants."""
        yield self
        for _, child in self.named_children():
            yield from child.modules()


class Linear(Module):
    """``y = x @ W + b``: x ``(..., in)``, W ``(in, out)``, b ``(out,)``."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        bound = 1 / np.sqrt(in_features)
        self.weight = shared(_uniform((in_features, out_features), bound), "weight")
        self.bias = shared(_uniform((out_features,), bound), "bias") if bias else None

    def forward(self, x):
        y = x @ self.weight
        return y + self.bias if self.bias is not None else y


class Conv2d(Module):
    """2-d convolution (:func:`lazyjit.nn.functional.conv2d`), NCHW, weights
    ``(out, in / groups, k, k)``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 padding=0, dilation=1, groups: int = 1, bias: bool = True):
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        fan_in = in_channels // groups * kh * kw
        bound = 1 / np.sqrt(fan_in)
        self.weight = shared(_uniform((out_channels, in_channels // groups, kh, kw), bound),
                                "weight")
        self.bias = shared(_uniform((out_channels,), bound), "bias") if bias else None
        self.args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, **self.args)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        self.args = (kernel_size, stride, padding)

    def forward(self, x):
        return F.max_pool2d(x, *self.args)


class ReLU(Module):
    def forward(self, x):
        return relu(x)


class Embedding(Module):
    """Rows of a ``(num, dim)`` table (initialized ``N(0, 1)``) for integer indices."""

    def __init__(self, num_embeddings: int, embedding_dim: int):
        self.weight = shared(DEFAULTS.rng.standard_normal((num_embeddings, embedding_dim))
                                .astype(np.float32), "weight")

    def forward(self, idx):
        return basic.embedding(idx, self.weight)


class Dropout(Module):
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``
    in training (inverted dropout); the identity in eval mode.  Draws come from a
    counter-based stream, advanced at every call (also inside jit)."""

    def __init__(self, p: float = 0.5, seed: int | None = None):
        if not 0 <= p < 1:
            raise LazyjitError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = p
        self.stream = RandomStream(int(DEFAULTS.rng.integers(2**62)) if seed is None
                                             else seed)

    def forward(self, x):
        return basic.dropout(x, self.p, self.training, self.stream)


class Sequential(Module):
    def __init__(self, *layers: Module):
        self.layers = list(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class _BatchNorm(Module):
    """Batch normalization (Ioffe & Szegedy 2015) over every axis but the channels (axis
    1): batch statistics in training, updating running averages (momentum 0.1, unbiased
    variance, as torch); running statistics in eval mode."""

    axes: tuple = (0,)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1):
        self.weight = shared(np.ones(num_features, np.float32), "weight")
        self.bias = shared(np.zeros(num_features, np.float32), "bias")
        self._running_mean = shared(np.zeros(num_features, np.float32), "running_mean")
        self._running_var = shared(np.ones(num_features, np.float32), "running_var")
        self.eps, self.momentum = eps, momentum

    def forward(self, x):
        return basic.batch_norm(x, self._running_mean, self._running_var, self.weight,
                                self.bias, self.training, self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs."""


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs."""


class LSTM(Module):
    """A single-layer LSTM over ``(steps, batch, input)`` (one ``lj.scan``), gates in
    torch's order ``i, f, g, o``; returns ``(outputs (steps, batch, hidden), (h, c))``."""

    def __init__(self, input_size: int, hidden_size: int):
        bound = 1 / np.sqrt(hidden_size)
        self.weight_ih = shared(_uniform((input_size, 4 * hidden_size), bound), "w_ih")
        self.weight_hh = shared(_uniform((hidden_size, 4 * hidden_size), bound), "w_hh")
        self.bias = shared(_uniform((4 * hidden_size,), bound), "bias")
        self.hidden_size = hidden_size

    def forward(self, xs, state=None):
        if state is None:
            blank = zeros((xs.shape[1], self.hidden_size), xs.dtype)
            state = (blank, blank)
        hs, h, c = F.lstm(xs, state[0], state[1], self.weight_ih, self.weight_hh, self.bias)
        return hs, (h, c)
