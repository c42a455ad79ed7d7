"""Choosing a concrete implementation ("algorithm") of an abstract op, per shape.

Abstract ops (convolutions: :mod:`lazyjit.ops.conv`) have several implementations on a
backend (on ``cpu``: im2col + GEMM through BLAS, or direct loops).  Each backend lists
its candidates for an op and asks :func:`choose` which to use, with the policy of the
``conv_algo`` flag, in the spirit of Theano's cuDNN modes (``dnn.conv.algo_fwd``):

* ``guess_once``: the backend's heuristic, decided once per shape signature;
* ``time_once``: on the first compile of a shape signature, every applicable candidate
  is timed on inputs of that shape (the backend's ``timer``), and the fastest is kept
  for the rest of the process;
* an algorithm's name (``gemm``, ``direct``): that one wherever it applies (else the
  heuristic).

A shape signature is the op, its argument, and its operands' shapes and dtypes (the
backend's name and the policy are part of the memo key too).  :func:`choices` shows
what was decided, and :data:`TIMED` counts the timings per signature.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from lazyjit.config import CONV_POLICIES as POLICIES, config
from lazyjit.trace.node import Node

_CHOSEN: dict[tuple, str] = {}
TIMED: Counter = Counter()        # signature -> times its candidates were timed


def signature(node: Node) -> tuple:
    """What an algorithm choice depends on: op, argument, operand shapes and dtypes."""
    return (node.op, node.arg, tuple((s.shape, s.dtype.str) for s in node.src))


def choose(backend: str, node: Node, candidates: Sequence[str],
           guess: Callable[[Node], str],
           timer: Callable[[Node, str], float]) -> str:
    """The algorithm to compile ``node`` with, among the applicable ``candidates``
    (a non-empty list of names), following the ``conv_algo`` flag.

    ``guess(node)`` is the backend's heuristic (one of ``candidates``); ``timer(node,
    name)`` runs that implementation on inputs of the node's shapes and returns seconds.
    """
    policy = config.conv_algo
    if policy not in POLICIES:
        return policy if policy in candidates else guess(node)
    key = (backend, policy, signature(node))
    name = _CHOSEN.get(key)
    if name is None:
        if policy == "time_once" and len(candidates) > 1:
            TIMED[key[1:]] += 1
            name = min(candidates, key=lambda c: timer(node, c))
        else:
            name = guess(node)
        _CHOSEN[key] = name
    return name


def choices() -> dict[tuple, str]:
    """The decisions so far: ``(backend, policy, signature) -> algorithm``."""
    return dict(_CHOSEN)


def forget() -> None:
    """Drop every decision and timing count (tests use it)."""
    _CHOSEN.clear()
    TIMED.clear()
