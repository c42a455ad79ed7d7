"""The op contract's rules over the whole registry: the shape and dtype rules rebuild
every node the op table builds (what the replay of a graph at new sizes relies on), and
the reduce ops' identities are neutral, NumPy's own, and what the C renderer starts from."""
from __future__ import annotations

import numpy as np
import pytest

from lazyjit.ops import REGISTRY, SUPPORTED_DTYPES, ref_dtype
from lazyjit.trace.graph import reachable

from helpers import flat_tensors
from test_ops import OPS, _build


def test_shape_and_dtype_rules_rebuild_every_node(rng):
    """Every node the cases build (control flow and deferred gradients included) has the
    shape and dtype its op's rules give (what the replay of a graph at new sizes uses)."""
    checked = set()
    for cases in OPS.values():
        for case in cases:
            try:
                roots = [t.node for t in flat_tensors(_build(case, case.inputs(rng)))]
            except (TypeError, ValueError, IndexError):
                continue
            for n in reachable(roots, lambda n: n.src):
                opdef = REGISTRY.get(n.op)
                if opdef is None:  # a leaf
                    continue
                shape = opdef.shape(n.src, n.arg) if opdef.shape else n.src[0].shape
                dtype = opdef.dtype(n.src, n.arg) if opdef.dtype else \
                    ref_dtype(opdef, n.src, n.arg)
                assert (tuple(shape), np.dtype(dtype)) == (n.shape, n.dtype), (n, shape, dtype)
                checked.add(n.op)
    assert {"scan", "ifelse", "scan_out", "grad"} <= checked


REDUCES = sorted(n for n, d in REGISTRY.items() if d.kind == "reduce")
_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def test_every_reduce_has_an_identity():
    assert REDUCES == sorted(_UFUNCS)
    assert all(REGISTRY[n].identity is not None for n in REDUCES)


def _samples(dt: np.dtype) -> np.ndarray:
    """Values of ``dt`` including its extremes (infinities and NaN for floats)."""
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind == "f":
        return np.array([-np.inf, -1.5, 0.0, 2.0, np.inf, np.finfo(dt).max, np.nan], dt)
    if dt.kind == "c":  # (finite: 1 * (inf + 0j) is (inf + nanj) in complex arithmetic)
        part = np.array([-1.5, 0.0, 2.0, np.finfo(dt).max], dt)
        return np.concatenate([part, part * 1j, part + 1j * part[::-1]])
    info = np.iinfo(dt)
    return np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dt)


@pytest.mark.parametrize("op", REDUCES)
@pytest.mark.parametrize("dt", SUPPORTED_DTYPES, ids=str)
def test_reduce_identity(op, dt):
    """``identity(dtype)`` is a scalar of ``dtype``, neutral for the op (``op(e, x) == x``
    for every value, extremes included), and NumPy's value of an empty reduction where
    NumPy has one."""
    if dt.kind == "c" and op in ("max", "min"):
        pytest.skip("no ordering of complex numbers: max and min refuse them")
    e = REGISTRY[op].identity(dt)
    assert isinstance(e, np.generic) and e.dtype == dt
    x = _samples(dt)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_UFUNCS[op](e, x).astype(dt), x)
    if op in ("sum", "prod"):
        assert _UFUNCS[op].reduce(np.empty(0, dt), dtype=dt) == e
    else:
        assert _UFUNCS[op].reduce(np.empty(0, dt), initial=e) == e
