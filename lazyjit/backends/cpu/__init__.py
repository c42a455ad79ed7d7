"""The ``cpu`` backend: the kernel IR rendered as C, compiled through cffi, the whole
trace one native call.  :mod:`.backend` is its entry point (``compile(trace)``);
:mod:`.render` prints a program (kernels in :mod:`.kernels`, :mod:`.conv`, :mod:`.sort`,
control steps in :mod:`.loops`); :mod:`.compiler` and :mod:`.codecache` build and
verify modules; :mod:`.pool` recycles buffers.
"""
