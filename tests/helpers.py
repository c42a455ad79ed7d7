"""Test helpers: inputs by domain, a NumPy comparison with dtype-aware tolerances, and a
walk of the graph to see which registry ops a tensor was built from."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import lazyjit as lj
from lazyjit.trace.node import origin_of

DTYPES = ("float32", "float64", "int32", "int64", "bool")

# value ranges; integer inputs take the integers inside the range
DOMAINS = {
    "any": (-3.0, 3.0),
    "pos": (0.5, 3.0),
    "nonneg": (0.0, 3.0),
    "gt-1": (-0.9, 3.0),
    "small": (-1.2, 1.2),
    "nonzero": None,   # like "any" without zeros
}

# (rtol, atol) per result dtype; float32 leaves room for libm differences of the
# compiled backends (expf, tanhf, ...) and for summation order in reductions; float16
# (eps 2**-10) for a rounding or two: NumPy rounds after every op, the compiled backends
# once per fused expression
TOLERANCES = {
    np.dtype("float16"): (2e-3, 1e-3),
    np.dtype("float32"): (1e-5, 1e-6),
    np.dtype("float64"): (1e-11, 1e-12),
    np.dtype("complex64"): (1e-5, 1e-6),
    np.dtype("complex128"): (1e-11, 1e-12),
}


def sample(rng: np.random.Generator, shape, dtype, domain: str = "any") -> np.ndarray:
    """Random array of ``shape`` and ``dtype`` with values in ``DOMAINS[domain]``."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if domain == "nonzero":
        mag = sample(rng, shape, dt, "pos")
        return np.where(rng.random(shape) < 0.5, -mag, mag).astype(dt)
    lo, hi = DOMAINS[domain]
    if dt.kind == "f":
        return rng.uniform(lo, hi, shape).astype(dt)
    return rng.integers(math.ceil(lo), math.floor(hi) + 1, shape).astype(dt)


def as_float(x: np.ndarray) -> np.ndarray:
    """``x`` converted as NumPy's float ufuncs (``np.exp``) convert it: int32 to float64,
    int16 to float32, bool and 8-bit ints to float16."""
    if x.dtype.kind == "f":
        return x
    return x.astype(np.result_type(x.dtype, np.float16))


def float_ufunc(fn: Callable) -> Callable:
    """SciPy's ``fn`` as a NumPy float ufunc: of ``as_float(x)``, in its dtype (SciPy
    computes float16 in float32, as lazyjit does, and returns float32)."""
    def ref(x):
        x = as_float(x)
        return np.asarray(fn(x)).astype(x.dtype)
    return ref


def reference(ref: Callable, arrays: list[np.ndarray]) -> Any:
    """Run a NumPy reference with warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of empty slices
        return ref(*arrays)


def assert_same(out, expected, rtol: float | None = None, atol: float | None = None) -> None:
    """Assert that tensor ``out`` equals array ``expected`` in shape, dtype (first as
    metadata, before computing, then as computed) and value (NaN positions included)."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(out, (list, tuple)) and len(out) == len(expected)
        for o, e in zip(out, expected, strict=True):
            assert_same(o, e, rtol, atol)
        return
    expected = np.asarray(expected)
    assert isinstance(out, lj.Tensor), type(out)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    got = out.numpy()
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind in "fc":
        r, a = TOLERANCES[expected.dtype]
        np.testing.assert_allclose(got, expected, rtol=r if rtol is None else rtol,
                                   atol=a if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def graph_ops(*tensors) -> set[str]:
    """Names of the ops in the (unrealized) graphs of ``tensors`` (and the ``numpy`` node
    that computed a value NumPy computed)."""
    seen, ops = set(), set()
    stack = [t.node for t in tensors]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        ops.add(n.op)
        stack.extend(n.src)
        origin = origin_of(n)
        if origin is not None and origin.op == "numpy":
            stack.append(origin)
    return ops


def flat_tensors(out) -> list:
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat_tensors(o)]
    return [out]


@dataclass(frozen=True)
class Case:
    """One op test: ``fn(*tensors)`` through lazyjit's public API against ``ref(*arrays)``.

    Inputs are either ``values`` (explicit arrays) or random arrays of ``shapes`` in
    ``dtype`` (one dtype, or one per input) drawn from ``domain`` (one, or one per input).
    Cases with the same ``group`` are computed in one realize (one trace, so one compile
    on compiled backends) and compared one by one.
    """

    id: str
    fn: Callable
    ref: Callable
    shapes: tuple = ()
    dtype: Any = "float64"
    domain: Any = "any"
    values: tuple | None = None
    rtol: float | None = None
    atol: float | None = None
    extra: dict = field(default_factory=dict)
    group: str | None = None

    def inputs(self, rng: np.random.Generator) -> list[np.ndarray]:
        if self.values is not None:
            return [np.asarray(v) for v in self.values]
        n = len(self.shapes)
        dtypes = self.dtype if isinstance(self.dtype, tuple) else (self.dtype,) * n
        domains = self.domain if isinstance(self.domain, tuple) else (self.domain,) * n
        return [sample(rng, s, d, m) for s, d, m in zip(self.shapes, dtypes, domains, strict=True)]


def batched(groups: dict, size: int) -> dict:
    """Consecutive lists of ``groups`` joined while they hold fewer than ``size`` items
    (a list stays whole), named ``first..last`` by their keys: one test, and one realize,
    for a few small groups of cases."""
    batches: list[tuple[list, list]] = []
    for name, group in groups.items():
        if not batches or len(batches[-1][1]) >= size:
            batches.append(([], []))
        batches[-1][0].append(name)
        batches[-1][1].extend(group)
    return {names[0] if len(names) == 1 else f"{names[0]}..{names[-1]}": items
            for names, items in batches}
