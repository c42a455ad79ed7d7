"""The kernel IR and the lowering of rewritten traces to it.

:func:`lazyjit.schedule.lower.lower` gives a :class:`~lazyjit.schedule.ir.Program`:
typed kernel records with explicit reads and writes, control steps (``If``, ``Loop``),
and a memory plan (:mod:`.memory`); :mod:`.fusion` decides which nodes share a kernel,
:mod:`.views` how movement ops address buffers, :mod:`.loops` and :mod:`.window` lower
scans and window ops.  Backends render programs (:mod:`lazyjit.backends`); nothing
here depends on a target language.
"""
