"""Automatic differentiation over the graph, both modes, to any order.

* :mod:`.reverse`: ``lj.grad``, ``lj.value_and_grad`` (vector-Jacobian products, the
  deferred ``grad`` nodes and their expansion);
* :mod:`.forward`: ``lj.Rop``, ``lj.Lop``, ``lj.jvp``, ``lj.vjp``, ``lj.jacobian``,
  ``lj.hessian``, ``lj.hvp`` (Jacobian-vector products, the transforms of both modes);
* :mod:`.scan_grad`: the derivatives of ``scan`` (a reverse scan and a forward scan),
  attached to the op when this package is imported.
"""
from lazyjit.autodiff import forward, reverse, scan_grad  # noqa: F401

__all__ = ["forward", "reverse", "scan_grad"]
