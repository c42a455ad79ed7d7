"""The engine: computing values, and compiling functions.

* :mod:`.realize`: ``realize(*tensors)`` through the trace cache and a backend (and the
  entry points the layers below call: :data:`lazyjit.trace.state.CONTEXT`);
* :mod:`.jit`: ``@lj.jit``, one trace and one plan per input signature;
* :mod:`.function`: Theano's ``lj.function`` over placeholders of unknown sizes;
* :mod:`.symbolic`: a graph over symbolic sizes made concrete at the sizes of a call.
"""
from lazyjit.engine import function, jit, realize, symbolic  # noqa: F401

__all__ = ["function", "jit", "realize", "symbolic"]
