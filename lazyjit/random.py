"""Counter-based random numbers (Philox4x32-10), built as lazy graph ops.

>>> rs = lj.random.RandomStream(seed=42)
>>> x = rs.uniform((3, 4))                 # float32 in [0, 1), lazy
>>> z = rs.normal((1000,), dtype="float64")

Every number is a pure function of (seed, counter): element ``i`` of a draw of ``k``
values reads the Philox4x32-10 block (Salmon et al., SC 2011; the generator of Random123
and cuRAND) of counter ``c + i`` under the key ``seed``, where ``c`` is the stream's
64-bit counter, which then advances by ``k``.  So successive draws differ, streams of
different seeds differ, and every backend draws the same bits: every distribution here
is computed with integer ops and correctly rounded float ops only (``normal``'s ``log``
and ``cos`` are :mod:`lazyjit.api.exactmath`'s, not libm's), and the ``cpu`` backend
compiles without fused multiply-adds, so its draws equal the ``numpy`` backend's bit
for bit.

The counter is a shared variable (:func:`lazyjit.shared`): inside ``@lj.jit`` a draw
reads it at every call and advances it by an update applied after the call, so a
jitted function draws new numbers at each call, the same ones as the eager draws it
replaces.
"""
from __future__ import annotations

import math
import operator

import numpy as np

import lazyjit.api.functions as F
from lazyjit.api import exactmath
from lazyjit.api.shared import current, recording, shared
from lazyjit.api.sorting import argsort
from lazyjit.api.tensor import Tensor
from lazyjit.errors import LazyjitError
from lazyjit.ops import apply
from lazyjit.trace.dims import Dim
from lazyjit.trace.state import UPDATING

__all__ = ["RandomStream", "philox"]

_U64 = np.dtype(np.uint64)
_F64 = np.dtype(np.float64)


def _u64(x) -> Tensor:
    """``x`` (a Python int in [0, 2**64), or an integer array/tensor) as uint64."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        if not 0 <= int(x) < 1 << 64:
            raise LazyjitError(f"random.philox: {x} is outside [0, 2**64)")
        return F.full((), int(x), _U64)
    x = F.asarray(x)
    if x.dtype.kind not in "iub":
        raise LazyjitError(f"random.philox: counter and key must be integers, not {x.dtype}")
    return F.astype(x, _U64)


def _flat_index(shape: tuple) -> Tensor:
    """The C-order flat index of each element of ``shape`` (uint64; its sizes may be
    symbolic: an ``arange`` made at each call's size)."""
    return F.reshape(F.arange(math.prod(shape), dtype=_U64), shape)


def philox(counter, key, word=0, counter_hi=0) -> Tensor:
    """Word ``word`` (0..3) of the Philox4x32-10 block of each counter under ``key``.

    Parameters
    ----------
    counter : integer tensor/array or int: counter words 0 (low 32 bits) and 1 (high).
    key : integer tensor/array or int in [0, 2**64): key words 0 (low) and 1 (high).
    word : which of the 4 output words (int or integer tensor; taken modulo 4).
    counter_hi : counter words 2 (low 32 bits) and 3 (high); default 0.

    All are cast to uint64 and broadcast together (NumPy rules).  Returns a uint32
    tensor of the broadcast shape.  Matches Random123's ``philox4x32_10`` known-answer
    vectors (counter 0, key 0, words 0..3 -> 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8).

    Raises
    ------
    LazyjitError
        For non-integer operands, ints outside [0, 2**64), or shapes that do not broadcast.
    """
    ops = F.broadcast_arrays(*(_u64(x) for x in (counter, counter_hi, key, word)))
    return Tensor(apply("philox", tuple(t.node for t in ops)))


def _shape(shape, where: str) -> tuple[int, ...]:
    try:
        shape = (_index(shape),) if not isinstance(shape, (tuple, list)) \
            else tuple(_index(s) for s in shape)
    except TypeError:
        raise LazyjitError(f"random.{where}: shape must be an int or a tuple of ints, "
                           f"got {shape!r}") from None
    if any(type(d) is int and d < 0 for d in shape):
        raise LazyjitError(f"random.{where}: negative dimensions are not allowed: {shape}")
    return shape


def _index(d) -> "int | Dim":
    return d if type(d) is Dim else operator.index(d)


def _float_dtype(dtype, where: str) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.float16, np.float32, np.float64):
        raise LazyjitError(f"random.{where}: dtype must be float16, float32 or float64, "
                           f"not {dt}")
    return dt


def _finite(where: str, **values) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise LazyjitError(f"random.{where}: {name} must be a finite number, got {v!r}")


class RandomStream:
    """A stream of random numbers: a Philox key (the seed) and a 64-bit counter.

    Parameters
    ----------
    seed : int in [0, 2**64), the Philox key.
    counter : the first counter (default 0); ``stream.counter`` may be read and set.

    Each draw of ``k`` values uses counters ``[counter, counter + k)`` (modulo 2**64) and
    advances ``counter`` by ``k``.  The draws are lazy tensors (nothing computed here).
    """

    def __init__(self, seed: int, counter: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
                or not 0 <= int(seed) < 1 << 64:
            raise LazyjitError(f"random.RandomStream: seed must be an int in [0, 2**64), "
                               f"got {seed!r}")
        self.seed = int(seed)
        self.state = shared(np.uint64(int(counter) % (1 << 64)), name="random counter")
        self.state.counter = True

    @property
    def counter(self) -> int:
        """The next counter (read and set; computing any pending draws' advance)."""
        return int(self.state.get_value())

    @counter.setter
    def counter(self, value: int) -> None:
        self.state.set_value(np.uint64(int(value) % (1 << 64)))

    def __repr__(self) -> str:
        return f"RandomStream(seed={self.seed}, counter={self.counter})"

    def _words(self, shape, n: int, where: str) -> list[Tensor]:
        """Output words ``0..n-1`` of the blocks of the next ``prod(shape)`` counters."""
        shape = _shape(shape, where)
        k = math.prod(shape)
        with UPDATING:  # a draw reads the counter and advances it in one step: threads
            # drawing from one stream at once (eagerly or in jitted calls, which update
            # it under this lock too) never draw the same numbers, as NumPy's Generator
            state = current(self.state)  # advanced by the draws before this one in a trace
            ctr = _flat_index(shape) + state
            if recording() is not None or self.state.symbolic or type(k) is Dim:  # in jit,
                # a scan step, after a symbolic advance (a scan's draws in an lj.function
                # graph) or by a symbolic size: an update
                step = F.astype(F.tensor(k), _U64) if type(k) is Dim else \
                    F.full((), k % (1 << 64), _U64)
                self.state.assign(state + step)
            else:  # eager: a new value now (the draw keeps reading the old one), so that a
                # loop of draws builds traces of one structure, not a growing chain
                self.counter = self.counter + k
        return [philox(ctr, self.seed, w) for w in range(n)]

    def bits(self, shape) -> Tensor:
        """Raw random bits: a uint32 tensor of ``shape`` (word 0 of each block)."""
        return self._words(shape, 1, "bits")[0]

    def _unit(self, words: list[Tensor], dt: np.dtype) -> Tensor:
        """Uniform on [0, 1) from one word (float32: its top 24 bits times 2**-24; float16:
        its top 11 bits times 2**-11) or two (float64: the top 53 bits of ``w1 * 2**32 +
        w0`` times 2**-53); exact."""
        if dt == np.float16:
            return F.astype(F.astype(words[0] & 0xFFE00000, np.float32) * 2.0 ** -32, dt)
        if dt == np.float32:
            return F.astype(words[0] & 0xFFFFFF00, dt) * 2.0 ** -32
        return F.astype(words[1], dt) * 2.0 ** -32 + F.astype(words[0] & 0xFFFFF800, dt) * \
            2.0 ** -64

    def uniform(self, shape, low=0.0, high=1.0, dtype="float32") -> Tensor:
        """Uniform floats on ``[low, high)``, a tensor of ``shape`` and ``dtype``.

        ``dtype`` float16 (11 random bits per value), float32 (24 bits) or float64 (53
        bits, two words).
        The default ``[0, 1)`` is exact; other ranges compute ``low + (high - low) * u``
        in float64, rounded to ``dtype`` and kept below ``high``; bit-identical on every
        backend.

        Raises ``LazyjitError`` for a negative shape, a non-float dtype, non-finite
        bounds or ``high <= low``.
        """
        dt = _float_dtype(dtype, "uniform")
        _finite("uniform", low=low, high=high)
        if not high > low:
            raise LazyjitError(f"random.uniform: high must be > low, got low={low}, "
                               f"high={high}")
        u = self._unit(self._words(shape, 2 if dt == np.float64 else 1, "uniform"), dt)
        if low == 0 and high == 1:
            return u
        top = np.nextafter(dt.type(high), dt.type(low))  # (in float64: high - low of
        wide = F.astype(u, _F64) * float(high - low) + float(low)  # float32 can overflow)
        return F.minimum(F.astype(wide, dt), top.item())

    def normal(self, shape, mean=0.0, std=1.0, dtype="float32") -> Tensor:
        """Normal floats of ``mean`` and ``std``: a tensor of ``shape`` and ``dtype``
        (float16, float32 or float64), the same bits on every backend.

        Box-Muller (Box and Muller, 1958), one value per Philox block: ``z = sqrt(-2
        log(v)) cos(2 pi u)`` with ``v = 1 - u1`` in ``[2**-53, 1]`` (``u1`` from words 0-1)
        and ``u`` in ``[0, 1)`` (words 2-3), both 53-bit uniforms, for either ``dtype``.
        It is computed in float64, ``mean + std * z`` too, and rounded once to ``dtype``.
        ``log`` and ``cos`` are :func:`lazyjit.api.exactmath.log` and
        :func:`~lazyjit.api.exactmath.cos_2pi` (fdlibm's method with an exact range
        reduction, each below 1 ulp), graphs of correctly rounded operations only, so
        the draws are bit-identical on every backend (libm's and NumPy's SIMD ``log``
        and ``cos`` differ in the last bits); the float64 ``z`` is within about 3 ulp
        of the exact Box-Muller value of its uniforms.  ``|z| <= sqrt(106 log 2) =
        8.57`` (the smallest ``v``), for float32 too.

        Raises ``LazyjitError`` for a negative shape, a non-float dtype, non-finite
        ``mean``/``std`` or ``std < 0``.
        """
        dt = _float_dtype(dtype, "normal")
        _finite("normal", mean=mean, std=std)
        if std < 0:
            raise LazyjitError(f"random.normal: std must be >= 0, got {std}")
        w = self._words(shape, 4, "normal")
        v = 1.0 - self._unit(w[:2], _F64)  # exact: a multiple of 2**-53 in (0, 1]
        u = self._unit(w[2:], _F64)
        z = F.sqrt(exactmath.log(v, -53, 0) * -2.0) * exactmath.cos_2pi(u)
        if (mean, std) != (0, 1):
            z = z * float(std) + float(mean)
        return F.astype(z, dt)

    def bernoulli(self, shape, p=0.5, dtype="bool") -> Tensor:
        """``True`` (1) with probability ``p``: ``bits < round(p * 2**32)``, so ``p`` has a
        resolution of 2**-32 (0 and 1 exact).  ``p`` is a Python number; the result has
        ``shape`` and ``dtype`` (any supported dtype, default bool).

        Raises ``LazyjitError`` for a negative shape or ``p`` outside [0, 1].
        """
        if isinstance(p, Tensor) or not isinstance(p, (int, float, np.integer, np.floating)) \
                or not 0 <= p <= 1:
            raise LazyjitError(f"random.bernoulli: p must be a number in [0, 1], got {p!r}")
        bits = self._words(shape, 1, "bernoulli")[0]
        hit = F.astype(bits, _U64) < round(float(p) * 2.0 ** 32)
        return F.astype(hit, dtype)

    def integers(self, shape, low, high, dtype="int64") -> Tensor:
        """Integers uniform on ``[low, high)``: ``low + (w1 * 2**32 + w0) % (high - low)``
        in 64-bit arithmetic (a modulo bias below ``(high - low) / 2**64``).

        ``dtype`` an integer dtype holding ``low`` and ``high - 1``.  Raises
        ``LazyjitError`` for a negative shape, a non-integer dtype or bounds, ``high <=
        low``, or bounds outside ``dtype``.
        """
        dt = np.dtype(dtype)
        if dt.kind not in "iu":
            raise LazyjitError(f"random.integers: dtype must be an integer dtype, not {dt}")
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (low, high)):
            raise LazyjitError(f"random.integers: low and high must be ints, got {low!r}, "
                               f"{high!r}")
        low, high = int(low), int(high)
        if high <= low:
            raise LazyjitError(f"random.integers: high must be > low, got low={low}, "
                               f"high={high}")
        info = np.iinfo(dt)
        if low < info.min or high - 1 > info.max:
            raise LazyjitError(f"random.integers: [{low}, {high}) does not fit in {dt}")
        w0, w1 = (F.astype(w, _U64) for w in self._words(shape, 2, "integers"))
        x = w1 * (1 << 32) + w0
        span = high - low
        if span < 1 << 64:
            x = x % span
        return F.astype(x + low % (1 << 64), dt)  # wraps modulo 2**64, then to dt

    def permutation(self, n: int) -> Tensor:
        """A random permutation of ``range(n)`` (int64, shape ``(n,)``): the stable
        argsort of ``n`` random 64-bit keys (:func:`lazyjit.argsort`, a sorting network:
        O(n log^2 n) work).  Raises ``LazyjitError`` for a negative ``n``.
        """
        (n,) = _shape(n, "permutation")
        w0, w1 = (F.astype(w, _U64) for w in self._words((n,), 2, "permutation"))
        return argsort(w1 * (1 << 32) + w0)
