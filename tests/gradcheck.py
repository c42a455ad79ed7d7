"""``check_grad``: reverse-mode gradients against central finite differences.

The function under test may return any shape (or a list of tensors); it is reduced to a
scalar by a fixed random projection ``cost = sum(out * R)``, as PyTensor's
``verify_grad`` does.  The gradient of each input is then compared with the central
difference of ``cost`` along a few random directions, in float64.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

import lazyjit as lj


def _outputs(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _projected(fn: Callable, tensors: list, projections: list[np.ndarray]):
    outs = _outputs(fn(*tensors))
    assert len(outs) == len(projections)
    terms = [lj.sum(o * p) for o, p in zip(outs, projections, strict=True)]
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def check_grad(fn: Callable, args: Sequence, wrt: Sequence[int] | None = None, *,
               eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-6, n_dirs: int = 3,
               seed: int = 0) -> list[np.ndarray]:
    """Assert that ``lj.grad`` of ``fn`` matches finite differences.

    Parameters
    ----------
    fn : function of lazyjit tensors returning a floating tensor (any shape) or a list.
    args : NumPy arrays, one per argument of ``fn``.
    wrt : positions of the arguments to differentiate (default: the float ones).
    eps : step of the central difference.
    rtol, atol : tolerance on each directional derivative.
    n_dirs : random directions per argument.

    Returns
    -------
    The analytic gradients (NumPy arrays), one per ``wrt``.
    """
    rng = np.random.default_rng(seed)
    args = [np.asarray(a) for a in args]
    if wrt is None:
        wrt = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
    probe = _outputs(fn(*[lj.tensor(a) for a in args]))
    projections = [rng.standard_normal(o.shape) for o in probe]

    def cost_value(arrays) -> float:
        return float(_projected(fn, [lj.tensor(a) for a in arrays], projections))

    tensors = [lj.tensor(a) for a in args]
    cost = _projected(fn, tensors, projections)
    grads = lj.grad(cost, [tensors[i] for i in wrt])
    values = []
    for i, g in zip(wrt, grads, strict=True):
        assert g.shape == args[i].shape and g.dtype == args[i].dtype, \
            (i, g.shape, g.dtype, args[i].shape, args[i].dtype)
        values.append(g.numpy())
    for i, g in zip(wrt, values, strict=True):
        for k in range(n_dirs):
            d = rng.standard_normal(args[i].shape)
            plus, minus = list(args), list(args)
            plus[i], minus[i] = args[i] + eps * d, args[i] - eps * d
            numeric = (cost_value(plus) - cost_value(minus)) / (2 * eps)
            analytic = float(np.sum(g * d))
            bound = atol + rtol * max(abs(numeric), abs(analytic))
            assert abs(numeric - analytic) <= bound, (
                f"argument {i}, direction {k}: finite differences {numeric!r} "
                f"vs grad {analytic!r} (|diff| {abs(numeric - analytic):.3g} > {bound:.3g})")
    return values
