"""``dropout``, ``batch_norm``, ``embedding`` and ``cross_entropy`` as functions, with
``torch.nn.functional``'s semantics, written with lazyjit's public API only (import them
from :mod:`lazyjit.nn.functional`; the layers of :mod:`lazyjit.nn.modules` call them).
"""
from __future__ import annotations

import numpy as np

import lazyjit.api.functions as F
from lazyjit.errors import LazyjitError
from lazyjit.random import RandomStream
from lazyjit.trace.dims import dmax

__all__ = ["dropout", "batch_norm", "embedding", "cross_entropy"]


class Defaults:
    """The process-wide state of :mod:`lazyjit.nn` (one instance, :data:`DEFAULTS`): the
    generator of parameter initializations, and the random stream of the dropout calls
    given none (created on first use); :func:`lazyjit.nn.manual_seed` replaces both."""

    __slots__ = ("rng", "stream")

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.stream: RandomStream | None = None


DEFAULTS = Defaults()


def default_stream() -> RandomStream:
    """The random stream ``dropout`` draws from when given none (seed 0; reseeded by
    :func:`lazyjit.nn.manual_seed`)."""
    if DEFAULTS.stream is None:
        DEFAULTS.stream = RandomStream(0)
    return DEFAULTS.stream


def dropout(x, p: float = 0.5, training: bool = True, stream=None):
    """Inverted dropout (Srivastava et al. 2014; ``torch.nn.functional.dropout``): each
    element is zeroed with probability ``p`` and the others are scaled by ``1/(1-p)``,
    when ``training``; else ``x`` itself.

    Parameters
    ----------
    x : a floating tensor, any shape.
    p : the drop probability, in ``[0, 1)``.
    stream : the ``lj.random.RandomStream`` to draw the mask from (default: one shared
        stream, :func:`default_stream`).  Draws advance it, also inside ``lj.jit``,
        ``lj.function`` and ``lj.scan`` steps (a new mask per call and per step).

    Raises
    ------
    LazyjitError
        For ``p`` outside ``[0, 1)``.
    """
    if not 0 <= p < 1:
        raise LazyjitError(f"dropout: p must be in [0, 1), got {p!r}")
    x = F.asarray(x)
    if not training or p == 0:
        return x
    keep = (stream or default_stream()).bernoulli(x.shape, 1 - p)
    return F.where(keep, x / (1 - p), F.zeros_like(x))


def batch_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5):
    """Batch normalization (Ioffe & Szegedy 2015; ``torch.nn.functional.batch_norm``)
    over every axis of ``x`` but the channels (axis 1).

    Parameters
    ----------
    x : ``(N, C, *)`` floating tensor.
    running_mean, running_var : ``(C,)`` shared variables (or None).  In training they
        are assigned ``(1 - momentum) * old + momentum * batch`` (the variance unbiased,
        ``* n / (n - 1)``, as torch); in eval mode they are the statistics used.
    weight, bias : ``(C,)`` affine parameters, or None.
    training : use the batch's statistics (biased variance) and update the running ones.

    Returns
    -------
    A tensor of ``x``'s shape and dtype.

    Raises
    ------
    LazyjitError
        For an ``x`` of rank < 2, eval mode without running statistics, statistics not
        of shape ``(C,)``, or in training running statistics that are not shared
        variables (they are updated).
    """
    x = F.asarray(x)
    if x.ndim < 2:
        raise LazyjitError(f"batch_norm: x must be (N, C, ...), got shape {x.shape}")
    C = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (C,):
            raise LazyjitError(f"batch_norm: {name} must have shape ({C},), got "
                                  f"{tuple(t.shape)} (x has shape {x.shape})")
    shape = (1, C) + (1,) * (x.ndim - 2)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None and not callable(getattr(t, "assign", None)):
                raise LazyjitError(f"batch_norm: in training {name} is updated, so it must "
                                   f"be a shared variable (lj.shared), got a "
                                   f"{type(t).__name__}; pass None for no running statistics")
        mean = F.mean(x, axis=axes)
        var = F.var(x, axis=axes)
        n = x.size // C
        m = momentum
        if running_mean is not None:
            running_mean.assign((1 - m) * running_mean + m * mean)
        if running_var is not None:
            unbiased = var * F.size_value(n, x.dtype) / F.size_value(dmax(n - 1, 1), x.dtype)
            running_var.assign((1 - m) * running_var + m * unbiased)
    else:
        if running_mean is None or running_var is None:
            raise LazyjitError("batch_norm: eval mode (training=False) needs "
                                  "running_mean and running_var")
        mean, var = running_mean, running_var
    y = (x - F.reshape(mean, shape)) / F.sqrt(F.reshape(var, shape) + eps)
    if weight is not None:
        y = y * F.reshape(weight, shape)
    if bias is not None:
        y = y + F.reshape(bias, shape)
    return y


def embedding(idx, weight):
    """Rows of ``weight`` (``(num, dim)``) at the integer indices ``idx`` (any shape):
    a tensor of shape ``idx.shape + (dim,)`` (``torch.nn.functional.embedding``); the
    gradient with respect to ``weight`` adds into the rows read.

    Raises
    ------
    LazyjitError
        For a ``weight`` that is not 2-d or non-integer indices.
    IndexError
        For constant indices outside ``[-num, num)``.
    """
    weight = F.asarray(weight)
    idx = F.asarray(idx)
    if weight.ndim != 2:
        raise LazyjitError(f"embedding: weight must be (num, dim), got {weight.shape}")
    if idx.dtype.kind not in "iu":
        raise LazyjitError(f"embedding: indices must be integers, got {idx.dtype}")
    return F.take(weight, idx, axis=0)


def cross_entropy(logits, target, reduction: str = "mean", label_smoothing: float = 0.0):
    """Softmax cross-entropy (``torch.nn.functional.cross_entropy``): ``-log
    softmax(logits)[target]`` per example, with classes along axis 1 (or 0 for 1-d
    logits), reduced by ``reduction`` (``'mean'``, ``'sum'`` or ``'none'``).

    Parameters
    ----------
    logits : ``(N, C)`` or ``(N, C, d1, ...)`` or ``(C,)`` floating tensor.
    target : integer classes of the shape of ``logits`` without the class axis, or
        class probabilities of ``logits``' shape.
    label_smoothing : in ``[0, 1]``: the target is mixed with the uniform distribution
        (Szegedy et al. 2016), as torch.

    Returns
    -------
    A scalar (``'mean'``, ``'sum'``) or the per-example losses (``'none'``), in nats.

    Raises
    ------
    LazyjitError
        For an unknown ``reduction``, ``label_smoothing`` outside ``[0, 1]``, or shapes
        that do not match.
    """
    if reduction not in ("mean", "sum", "none"):
        raise LazyjitError(f"cross_entropy: reduction must be 'mean', 'sum' or 'none', "
                              f"got {reduction!r}")
    if not 0 <= label_smoothing <= 1:
        raise LazyjitError(f"cross_entropy: label_smoothing must be in [0, 1], got "
                              f"{label_smoothing!r}")
    logits = F.asarray(logits)
    axis = 0 if logits.ndim == 1 else 1
    loss = F.softmax_cross_entropy(logits, target, axis=axis)
    if label_smoothing:
        uniform = -F.mean(F.log_softmax(logits, axis=axis), axis=axis)
        loss = (1 - label_smoothing) * loss + label_smoothing * uniform
    if reduction == "mean":
        return F.mean(loss)
    return F.sum(loss) if reduction == "sum" else loss

