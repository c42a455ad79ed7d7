"""Optimizers as updates of shared variables: ``SGD`` (momentum, Nesterov, weight decay),
``Adam`` and ``AdamW``, written with the public API only.

An optimizer holds a list of shared variables (the parameters) and its own state as
shared variables (velocities, moments, the step count, the learning rate).  ``step``
gives every one of them its new value through ``assign``: called inside ``@lj.jit`` the
updates are part of the compiled function and applied after each call; called outside,
they are computed at once, in one trace per step.  The rules follow
``torch.optim`` (SGD: Sutskever et al. 2013 momentum; Adam: Kingma & Ba 2015; AdamW:
Loshchilov & Hutter 2019, decoupled weight decay).

float16 parameters are updated in float32: their gradients, the optimizer's state and
its learning rate are float32, and each new value is rounded to float16 once (in
float16, Adam's ``eps = 1e-8`` is 0 and ``g * g`` underflows below ``|g| = 2.4e-4``).

>>> w = lj.shared(np.zeros(3, np.float32))
>>> opt = lj.optim.Adam([w], lr=1e-2)
>>> @lj.jit
... def step(x, y):
...     loss = lj.mean((x @ w - y) ** 2)
...     opt.step(lj.grad(loss, [w]))
...     return loss
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api.shared import SharedVariable, realize_pending, shared
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError
from lazyjit.trace.state import STATE

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a parameter of ``dtype`` is updated in: float32 for float16."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


class Optimizer:
    """The parameters (shared variables of a floating dtype) and a learning rate held as a
    shared scalar (``opt.lr = 0.01`` changes it without tracing anything again), of the
    widest dtype the parameters are updated in (float32 for float16), cast to each
    parameter's (a float64 parameter beside float32 ones gets a float64 step)."""

    def __init__(self, params: Sequence[SharedVariable], lr: float):
        params = list(params)
        if not params:
            raise LazyjitError("optim: no parameters given")
        for i, p in enumerate(params):
            if not isinstance(p, SharedVariable):
                raise LazyjitError(f"optim: params[{i}] is a {type(p).__name__}, not a shared "
                                   "variable (lj.shared): only shared variables can be updated")
            if p.dtype.kind != "f":
                raise LazyjitError(f"optim: params[{i}] has dtype {p.dtype}; parameters "
                                   "must be floating point")
        if lr < 0:
            raise LazyjitError(f"optim: the learning rate must be >= 0, got {lr}")
        self.params = params
        self.dtype = np.result_type(*(_compute_dtype(p.dtype) for p in params))
        self._lr = shared(np.asarray(lr, self.dtype), name="lr")
        self._along, self._casts = (), {}

    @property
    def lr(self) -> float:
        return float(self._lr.get_value())

    @lr.setter
    def lr(self, value: float) -> None:
        self._lr.set_value(np.asarray(value, self.dtype))

    def _state(self, name: str) -> list[SharedVariable]:
        return [shared(np.zeros(p.shape, _compute_dtype(p.dtype)), name=f"{name}{i}")
                for i, p in enumerate(self.params)]

    def _check(self, grads) -> list:
        if isinstance(grads, (Tensor, np.ndarray)):
            raise LazyjitError("optim.step: pass a list of gradients, one per parameter "
                               "(lj.grad(cost, opt.params) gives one), not a single tensor")
        grads = list(grads)
        if len(grads) != len(self.params):
            raise LazyjitError(f"optim.step: {len(grads)} gradients for "
                               f"{len(self.params)} parameters")
        out = []
        for i, (p, g) in enumerate(zip(self.params, grads)):
            g = F.asarray(g)
            if g.shape != p.shape:
                raise LazyjitError(f"optim.step: gradient {i} has shape {g.shape}, its "
                                   f"parameter {p.shape}")
            dt = _compute_dtype(p.dtype)
            out.append(F.astype(g, dt) if g.dtype != dt else g)
        return out

    def step(self, grads) -> None:
        """Assign every parameter (and the optimizer's state) its updated value, given
        one gradient per parameter, of its shape.  Outside ``@lj.jit`` the new values
        are computed at once, in one trace (a loop of eager steps would otherwise chain
        every step into one growing graph)."""
        grads = self._check(grads)
        self._along, self._casts = grads, {}
        try:
            self._update(grads)
        finally:
            self._along, self._casts = (), {}
        if not STATE.recording:
            realize_pending()

    def _in(self, p: SharedVariable, *scalars) -> tuple:
        """``scalars`` (0-d tensors) in the dtype ``p`` is updated in, each cast once a
        step per dtype (``self._casts``, cleared by :meth:`step`)."""
        dt = _compute_dtype(p.dtype)
        got = self._casts.get((dt, len(scalars)))
        if got is None:
            got = self._casts[(dt, len(scalars))] = tuple(
                x if x.dtype == dt else F.astype(x, dt) for x in scalars)
        return got

    def _assign(self, var: SharedVariable, value) -> None:
        """``var.assign(value)`` as part of this step: symbolic, like the gradients, when
        they depend on ``lj.function`` placeholders (the step count too)."""
        var.assign(value, along=self._along)

    def _update(self, grads: list) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """Stochastic gradient descent (``torch.optim.SGD``): with weight decay ``wd`` the
    gradient is ``g + wd * p``; with momentum ``mu`` the buffer is ``b = mu * b + g`` and
    the step ``b`` (Nesterov: ``g + mu * b``); then ``p -= lr * step``."""

    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, weight_decay: float = 0.0):
        super().__init__(params, lr)
        if nesterov and momentum <= 0:
            raise LazyjitError("optim.SGD: Nesterov momentum needs momentum > 0")
        self.momentum, self.nesterov, self.weight_decay = momentum, nesterov, weight_decay
        self.buffers = self._state("momentum") if momentum else []

    def _update(self, grads: list) -> None:
        for i, (p, g) in enumerate(zip(self.params, grads)):
            if self.weight_decay:
                g = g + self.weight_decay * p
            if self.momentum:
                b = self.buffers[i]
                new = self.momentum * b + g
                self._assign(b, new)
                g = g + self.momentum * new if self.nesterov else new
            (lr,) = self._in(p, self._lr)
            self._assign(p, p - lr * g)


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``): ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)``; weight decay adds
    ``wd * p`` to the gradient (L2)."""

    decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, lr)
        b1, b2 = betas
        if not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise LazyjitError(f"optim.{type(self).__name__}: betas must be in [0, 1), "
                               f"got {betas}")
        self.betas, self.eps, self.weight_decay = (b1, b2), eps, weight_decay
        self.m, self.v = self._state("m"), self._state("v")
        # (the step count and the bias corrections in float64, as torch's are, then cast)
        self.t = shared(np.asarray(0, np.float64), name="t")

    def _update(self, grads: list) -> None:
        b1, b2 = self.betas
        t = self.t + 1
        self._assign(self.t, t)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            if self.weight_decay and not self.decoupled:
                g = g + self.weight_decay * p
            m_new = b1 * m + (1 - b1) * g
            v_new = b2 * v + (1 - b2) * g * g
            self._assign(m, m_new)
            self._assign(v, v_new)
            lr, c1p, c2p = self._in(p, self._lr, c1, c2)
            base = p * (1 - lr * self.weight_decay) if self.decoupled and \
                self.weight_decay else p
            self._assign(p, base - lr * (m_new / c1p) / (F.sqrt(v_new / c2p) + self.eps))


class AdamW(Adam):
    """AdamW (``torch.optim.AdamW``): Adam with decoupled weight decay, ``p *= 1 - lr *
    wd`` before the Adam step (default ``wd = 0.01``)."""

    decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.01):
        super().__init__(params, lr, betas, eps, weight_decay)
