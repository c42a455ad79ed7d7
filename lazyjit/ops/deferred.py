"""The deferred gradient, ``grad``: ``lj.grad(cost, wrt)`` returns one node per ``wrt``,
with sources ``(cost, *targets)`` and argument ``("grad", indices of its targets)``,
instead of building the VJP graph at once.  It is expanded into that graph
(:func:`lazyjit.autodiff.reverse.expand_grads`) when a plan is built (a trace cache
miss) or when the graph is differentiated again, so no backend and no derivative rule
ever sees it: its kind, ``deferred``, says so to the engine and to autodiff.
"""
from __future__ import annotations

from lazyjit.errors import LazyjitError
from lazyjit.ops.registry import OpDef, register


def _target(srcs, arg):
    """The first target of the gradient: the ``wrt`` node it has the shape and dtype of."""
    return srcs[1 + arg[1][0]]


def _unexpanded(*arrays_arg):
    raise LazyjitError("a deferred gradient reached a backend unexpanded "
                       "(lazyjit.autodiff.reverse.expand_grads expands it)")


register(OpDef("grad", "deferred", _unexpanded,
               shape=lambda srcs, arg: _target(srcs, arg).shape,
               dtype=lambda srcs, arg: _target(srcs, arg).dtype,
               doc="the gradient of srcs[0] with respect to the targets arg[1] among "
                   "srcs[1:], expanded before lowering"))
