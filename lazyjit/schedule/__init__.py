"""The kernel IR and the lowering of rewritten traces to it.

``lower(trace, target)`` gives a :class:`~lazyjit.schedule.ir.Program`: typed kernel
records with explicit reads and writes, control steps (``If``, ``Loop``), and a memory
plan.  Backends render programs (:mod:`lazyjit.backends`); nothing here depends on a
target language.
"""
from lazyjit.schedule.ir import Program
from lazyjit.schedule.lower import Target, lower
from lazyjit.schedule.window import WindowPlan

__all__ = ["Program", "Target", "WindowPlan", "lower"]
