"""Counter-based random bits: the Philox4x32-10 block function as one elementwise op.

Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2,
3", SC 2011; the generator of Random123 and cuRAND's ``curand_Philox4x32_10``) maps a
128-bit counter and a 64-bit key to 128 random bits with 10 rounds of 32x32 -> 64-bit
multiplications.  Being a pure function of (counter, key), it is an ordinary elementwise
op: every element computes its own block, in any order, on any backend, bit for bit.

``philox(c01, c23, key, word)``: all operands uint64 of one shape (the API in
:mod:`lazyjit.random` casts and broadcasts them); the counter words are ``c0, c1`` =
low, high half of ``c01`` and ``c2, c3`` of ``c23``; the key words ``k0, k1`` = low, high
half of ``key``; the result (uint32) is output word ``word & 3``.  The C form calls
``lj_philox4x32_10`` in ``native/lazyjit_rt.h``.  No derivative (integer result).
"""
from __future__ import annotations

import numpy as np

from lazyjit.ops.registry import OpDef, register

PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57   # round multipliers
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85   # key schedule (Weyl) increments
_LO = 0xFFFFFFFF


def philox_ref(c01, c23, key, word, arg=None) -> np.ndarray:
    """NumPy reference: exact uint64 arithmetic (a 32x32-bit product fits in 64 bits, so
    ``p >> 32`` and ``p & 0xffffffff`` are the mulhilo of the paper)."""
    c01, c23, key, word = (np.asarray(a).astype(np.uint64) for a in (c01, c23, key, word))
    c0, c1, c2, c3 = c01 & _LO, c01 >> 32, c23 & _LO, c23 >> 32
    k0, k1 = key & _LO, key >> 32
    for r in range(10):
        if r:  # the key is bumped between rounds (Random123's philox4x32_R)
            k0, k1 = (k0 + PHILOX_W0) & _LO, (k1 + PHILOX_W1) & _LO
        p0, p1 = c0 * np.uint64(PHILOX_M0), c2 * np.uint64(PHILOX_M1)
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _LO, (p0 >> 32) ^ c3 ^ k1, p0 & _LO
    w = word & 3
    out = np.where(w == 0, c0, np.where(w == 1, c1, np.where(w == 2, c2, c3)))
    return np.asarray(out).astype(np.uint32)


def _shape(srcs, arg):
    shapes = {tuple(s.shape) for s in srcs}
    if len(srcs) != 4 or len(shapes) != 1:
        raise ValueError(f"philox takes 4 operands of one shape, got {sorted(shapes)}")
    return srcs[0].shape


def _dtype(srcs, arg):
    if any(np.dtype(s.dtype) != np.uint64 for s in srcs):
        raise TypeError("philox operands must be uint64 (lazyjit.random.philox casts them)")
    return np.dtype(np.uint32)


register(OpDef("philox", "elementwise", philox_ref, shape=_shape, dtype=_dtype,
               c="lj_philox4x32_10({0}, {1}, {2}, {3})",
               doc="Philox4x32-10 output word (operand 3) of counter (0, 1) and key (2)"))
