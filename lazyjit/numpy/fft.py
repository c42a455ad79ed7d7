"""The Array API standard's ``fft`` extension: :mod:`lazyjit.api.fft`'s functions
(``lj.fft``), which take the standard's arguments (``n``, ``axis``, ``norm``; ``s``,
``axes``; ``d``, ``dtype``, ``device``)."""
from __future__ import annotations

from lazyjit.api.fft import *  # noqa: F401,F403
from lazyjit.api.fft import __all__  # noqa: F401
