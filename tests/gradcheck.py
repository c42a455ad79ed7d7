"""``check_grads``: forward and reverse mode against central finite differences, to any
order (JAX's ``check_grads``; PyTensor's ``verify_grad`` for the reverse mode).

For a function of NumPy arrays (its floating-point ones are differentiated), along one
random direction ``d`` per input, the central difference
``fd = (f(x + eps d) - f(x - eps d)) / (2 eps)`` is compared with

* ``fwd``: the Jacobian-vector product ``lj.jvp(f, x, d)``, output by output;
* ``rev``: the vector-Jacobian product ``lj.vjp(f, x)`` with a random cotangent ``u``,
  through ``<vjp(u), d> == <u, fd>``.

Order ``k > 1`` checks the derivative functions themselves at order ``k - 1``:
``x -> jvp(f, x, d)`` and ``x -> vjp(f, x)(u)`` (fixed ``d``, ``u``), in both modes, so
order 2 covers forward-over-forward, reverse-over-forward, forward-over-reverse and
reverse-over-reverse.

Everything a check needs is built first, then computed in three realizes (see
:class:`GradBatch`), which several checks can share: on compiled backends a check costs
about two compiles, whatever its order.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

import lazyjit as lj


def _outputs(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


class GradBatch:
    """Checks queued by :func:`check_grads` with ``batch=``; :meth:`run` computes their
    values, then asserts each (a failure names its check).

    The values are computed in three realizes: every function at ``x + eps d``, the
    same at ``x - eps d`` (the same trace structure, so the compiled plan is reused),
    and the analytic derivatives at ``x``.
    """

    def __init__(self):
        self.plus: list = []
        self.minus: list = []
        self.center: list = []
        self.checks: list[Callable[[], None]] = []

    def run(self) -> None:
        for group in (self.plus, self.minus, self.center):
            if group:
                lj.realize(*group)
        failures = []
        for check in self.checks:
            try:
                check()
            except AssertionError as e:
                failures.append(str(e))
        assert not failures, "\n".join(failures)


def check_grads(fn: Callable, args: Sequence, order: int = 2,
                modes: Sequence[str] = ("fwd", "rev"), *, eps: float = 1e-6,
                rtol: float = 1e-5, atol: float = 1e-6, seed: int = 0,
                batch: GradBatch | None = None, label: str = "f") -> None:
    """Assert that the derivatives of ``fn`` match finite differences, to ``order``.

    Parameters
    ----------
    fn : function of lazyjit tensors returning a tensor or a list/tuple of tensors (any
        shapes; integer outputs are skipped).
    args : NumPy arrays, one per argument of ``fn`` (float64 for precise differences);
        the floating-point ones are differentiated.
    order : derivative order to check (1: JVP/VJP; 2: also their derivatives; ...).
    modes : ``'fwd'`` (Jacobian-vector products) and/or ``'rev'`` (vector-Jacobian).
    eps : step of the central difference.
    rtol, atol : tolerance, relative to the largest magnitude compared.
    batch : queue the checks there (run by ``batch.run()``) instead of running now.
    label : names the function in failure messages.
    """
    own = batch is None
    batch = GradBatch() if own else batch
    rng = np.random.default_rng(seed)
    _plan(fn, [np.asarray(a) for a in args], order, tuple(modes), rng,
          (eps, rtol, atol), batch, label)
    if own:
        batch.run()


def _close(what: str, analytic: np.ndarray, numeric: np.ndarray, rtol: float,
           atol: float) -> None:
    scale = max(float(np.max(np.abs(analytic), initial=0)),
                float(np.max(np.abs(numeric), initial=0)))
    err = float(np.max(np.abs(analytic - numeric), initial=0))
    assert np.all(np.isfinite(analytic)) and err <= atol + rtol * scale, (
        f"{what}: |analytic - finite differences| = {err:.3g} > {atol + rtol * scale:.3g}\n"
        f"analytic {np.asarray(analytic).ravel()[:6]}\nnumeric  {np.asarray(numeric).ravel()[:6]}")


def _plan(fn, args, order, modes, rng, tol, batch: GradBatch, label: str) -> None:
    eps, rtol, atol = tol
    n = len(args)
    floats = [a.dtype.kind == "f" for a in args]
    dirs = [rng.standard_normal(a.shape).astype(a.dtype) if f else None
            for a, f in zip(args, floats, strict=True)]

    def f_list(*xs):
        return _outputs(fn(*xs))

    def at(shift: float) -> list:
        return f_list(*[lj.tensor(a + shift * d if d is not None else a)
                        for a, d in zip(args, dirs, strict=True)])

    plus, minus = at(eps), at(-eps)
    keep = [k for k, o in enumerate(plus) if o.dtype.kind == "f"]
    batch.plus += [plus[k] for k in keep]
    batch.minus += [minus[k] for k in keep]

    def fd(k: int) -> np.ndarray:
        return (plus[k].numpy().astype(np.float64) - minus[k].numpy()) / (2 * eps)

    primals = [lj.tensor(a) for a in args]
    us = [rng.standard_normal(o.shape).astype(o.dtype) if o.dtype.kind == "f" else None
          for o in plus]
    if "fwd" in modes:
        touts = lj.jvp(f_list, primals, dirs)[1]
        batch.center += [touts[k] for k in keep]
        batch.checks += [lambda k=k: _close(f"{label}: jvp of output {k}", touts[k].numpy(),
                                            fd(k), rtol, atol) for k in keep]
    if "rev" in modes:
        cts = lj.vjp(f_list, *primals)[1](us)
        batch.center += [cts[i] for i in range(n) if floats[i]]

        def check_rev():
            analytic = sum(float(np.sum(cts[i].numpy() * dirs[i])) for i in range(n) if floats[i])
            numeric = sum(float(np.sum(us[k] * fd(k))) for k in keep)
            _close(f"{label}: vjp", np.array(analytic), np.array(numeric), rtol, atol)
        batch.checks.append(check_rev)
    if order <= 1:
        return
    # the derivative functions of x (fixed tangent / cotangent), checked at order - 1
    if "fwd" in modes:
        def jvp_of(*xs):
            return lj.jvp(f_list, list(xs), dirs)[1]
        _plan(jvp_of, args, order - 1, modes, rng, tol, batch, f"jvp({label})")
    if "rev" in modes:
        def vjp_of(*xs):
            return [c for c, f in zip(lj.vjp(f_list, *xs)[1](us), floats, strict=True) if f]
        _plan(vjp_of, args, order - 1, modes, rng, tol, batch, f"vjp({label})")
