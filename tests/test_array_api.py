"""``lazyjit.numpy`` against the Array API standard 2023.12, as ``array_api_strict`` (the
standard's reference namespace, a test dependency) spells it: every name, every
signature, the dtypes and the type promotion table, and the values of the functions
on common inputs, on every backend.

The standard's lists come from ``array_api_strict`` restricted to version 2023.12: a
function it marks as newer (``requires_api_version``) is not required.
"""
from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

import lazyjit as lj
import lazyjit.numpy as lnp

from helpers import assert_same

xp = pytest.importorskip("array_api_strict")

VERSION = "2023.12"
# the standard's names lazyjit lacks
NOT_YET: set = set()
_FLAGS = {"ArrayAPIStrictFlags", "Device", "get_array_api_strict_flags",
          "set_array_api_strict_flags", "reset_array_api_strict_flags", "__version__"}


def _since(f) -> str:
    """The standard's version that added ``f`` (array_api_strict's decorator records it)."""
    try:
        return inspect.getclosurevars(f).nonlocals.get("version", "2021.12")
    except TypeError:
        return "2021.12"


def _standard(module, names) -> dict:
    return {n: getattr(module, n) for n in names
            if n not in _FLAGS and _since(getattr(module, n)) <= VERSION}


MAIN = _standard(xp, xp.__all__)
LINALG = _standard(xp.linalg, xp.linalg.__all__)
FFT = _standard(xp.fft, xp.fft.__all__)


def test_names():
    assert lnp.__array_api_version__ == VERSION
    assert {n for n in MAIN if not hasattr(lnp, n)} == NOT_YET
    assert {n for n in LINALG if not hasattr(lnp.linalg, n)} == set()
    assert {n for n in FFT if not hasattr(lnp.fft, n)} == set()
    x = lj.tensor([1.0])
    assert x.__array_namespace__() is lnp
    assert {"dtype", "device", "mT", "ndim", "shape", "size", "T"} <= set(dir(x))
    assert all(callable(getattr(x, m)) for m in ("__dlpack__", "__dlpack_device__",
                                                 "to_device", "__array_namespace__"))


def _takes_standard_arguments(theirs, mine) -> str | None:
    """None if ``mine`` accepts every call the standard's signature allows (its
    positional parameters by position, its keyword ones by name), else the error."""
    sig = inspect.signature(theirs)
    pos = [p for p in sig.parameters.values()
           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    opt_pos = [p for p in sig.parameters.values()
               if p.kind == p.POSITIONAL_ONLY and p.default is not p.empty]
    named = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY or
             (p.kind == p.POSITIONAL_OR_KEYWORD and p.default is not p.empty)]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())
    try:
        inspect.signature(mine).bind(*range(len(pos) + len(opt_pos) + varargs),
                                     **{n: None for n in named})
    except TypeError as e:
        return f"{sig} vs {inspect.signature(mine)}: {e}"
    return None


def test_signatures():
    bad = {}
    for ours, names in ((lnp, MAIN), (lnp.linalg, LINALG), (lnp.fft, FFT)):
        for name, f in names.items():
            if name in NOT_YET or not callable(f) or isinstance(f, type) or \
                    name == "__array_namespace_info__":
                continue
            try:
                inspect.signature(f)
            except (TypeError, ValueError):
                continue
            err = _takes_standard_arguments(f, getattr(ours, name))
            if err:
                bad[name] = err
    assert not bad, bad


DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]


def test_dtypes_and_promotion():
    for name in DTYPES:
        assert getattr(lnp, name) == np.dtype(name)
    info = lnp.__array_namespace_info__()
    assert set(info.dtypes()) == set(DTYPES)
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert info.default_dtypes()["indexing"] == lnp.int64
    assert info.capabilities()["data-dependent shapes"]
    assert info.devices() == [info.default_device()]
    for a, b in itertools.product(DTYPES, repeat=2):
        try:  # the standard's table (mixed kinds are not in it: strict raises)
            want = xp.result_type(getattr(xp, a), getattr(xp, b))
        except TypeError:
            continue
        got = lnp.result_type(getattr(lnp, a), getattr(lnp, b))
        want = next(n for n in DTYPES if getattr(xp, n) == want)
        assert got == np.dtype(want), (a, b, got, want)
        t = lnp.ones(2, dtype=getattr(lnp, a)) + lnp.ones(2, dtype=getattr(lnp, b))
        assert t.dtype == got, (a, b)
    assert lnp.isdtype(lnp.float32, "real floating") and not lnp.isdtype(lnp.int8, "bool")
    assert lnp.finfo(lnp.float32).eps == np.finfo(np.float32).eps
    assert lnp.iinfo(lnp.int16).max == 32767
    assert lnp.can_cast(lnp.int8, lnp.int16) and not lnp.can_cast(lnp.float64, lnp.float32)


def test_copy_and_device():
    x = lnp.asarray([1.0, 2.0])
    assert lnp.asarray(x, copy=False) is x
    with pytest.raises(ValueError, match="copy"):
        lnp.asarray(np.ones(2), copy=False)
    with pytest.raises(ValueError, match="copy"):
        lnp.asarray(x, dtype=lnp.float32, copy=False)
    assert lnp.asarray(x, device=x.device) is x
    assert x.to_device(x.device) is x
    with pytest.raises(lj.LazyjitError, match="device"):
        lnp.zeros(2, device="tpu")
    with pytest.raises(lj.LazyjitError, match="device"):
        lnp.ones(2, dtype=lnp.float32, device="cuda" if x.device == "cpu" else "cpu")
    with pytest.raises(lj.LazyjitError, match="unsupported dtype"):
        lnp.asarray(["a"])


def _values(rng):
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4))
    p = rng.uniform(0.1, 2.0, (3, 4))
    u = rng.uniform(-0.9, 0.9, (3, 4))
    i = rng.integers(-5, 6, (3, 4))
    j = rng.integers(1, 4, (3, 4))
    return {"a": a, "b": b, "p": p, "u": u, "i": i, "j": j, "m": a > 0, "v": a[0], "k": j[0],
            "w": b[:, 0], "s": np.sort(a[0]), "e": np.array([[np.nan, -0.0, 0.0, np.inf],
                                                              [-np.inf, 1.0, -1.0, 2.5],
                                                              [np.nan, 3.0, -3.0, 0.5]])}


# (function name, argument names from _values, keyword arguments)
UNARY_ARGS = {"a": ["abs", "ceil", "cos", "cosh", "exp", "expm1", "floor", "isfinite",
                    "isinf", "isnan", "negative", "positive", "round", "sign", "signbit",
                    "sin", "sinh", "square", "tan", "tanh", "trunc", "atan", "asinh"],
              "p": ["log", "log1p", "log2", "log10", "sqrt", "acosh"],
              "u": ["asin", "acos", "atanh"], "i": ["bitwise_invert"],
              "e": ["abs", "sign", "sqrt", "exp", "isnan", "signbit", "round", "trunc"]}
BINARY_ARGS = {("a", "b"): ["add", "subtract", "multiply", "divide", "atan2", "hypot",
                            "copysign", "maximum", "minimum", "logaddexp", "equal",
                            "not_equal", "less", "less_equal", "greater", "greater_equal",
                            "floor_divide", "remainder"],
               ("p", "a"): ["pow"], ("i", "j"): ["bitwise_and", "bitwise_or", "bitwise_xor",
                                                  "bitwise_left_shift", "bitwise_right_shift",
                                                  "floor_divide", "remainder"],
               ("m", "m"): ["logical_and", "logical_or", "logical_xor"],
               ("e", "a"): ["maximum", "add", "copysign", "atan2"]}
CALLS = [
    *[(f, (x,), {}) for x, fs in UNARY_ARGS.items() for f in fs],
    *[(f, xs, {}) for xs, fs in BINARY_ARGS.items() for f in fs],
    ("logical_not", ("m",), {}), ("clip", ("a",), {"min": -0.5, "max": 0.5}),
    ("sum", ("a",), {"axis": 1}), ("prod", ("p",), {"axis": 0, "keepdims": True}),
    ("mean", ("a",), {}), ("std", ("a",), {"correction": 1, "axis": 0}),
    ("var", ("a",), {"axis": (0, 1)}), ("max", ("a",), {"axis": 1}), ("min", ("a",), {}),
    ("argmax", ("a",), {"axis": 1, "keepdims": True}), ("argmin", ("a",), {}),
    ("all", ("m",), {"axis": 0}), ("any", ("m",), {}), ("cumulative_sum", ("i",), {"axis": 1}),
    ("cumulative_sum", ("v",), {"include_initial": True}),
    ("sort", ("a",), {"axis": 0, "descending": True}), ("argsort", ("a",), {"stable": True}),
    ("searchsorted", ("s", "w"), {"side": "right"}), ("where", ("m", "a", "b"), {}),
    ("tensordot", ("a", "b"), {"axes": ([1], [1])}), ("matmul", ("a", "a_t"), {}),
    ("vecdot", ("a", "b"), {}), ("matrix_transpose", ("a",), {}),
    ("permute_dims", ("a",), {"axes": (1, 0)}), ("reshape", ("a",), {"shape": (2, 6)}),
    ("expand_dims", ("a",), {"axis": 1}), ("squeeze", ("v",), {"axis": ()}),
    ("flip", ("a",), {"axis": 1}), ("roll", ("a",), {"shift": 1, "axis": 0}),
    ("moveaxis", ("a", 0, 1), {}), ("tile", ("v", (2,)), {}), ("repeat", ("v", 2), {}),
    ("tril", ("a",), {"k": -1}), ("triu", ("a",), {}),
    ("concat", (["a", "b"],), {"axis": 1}), ("concat", (["a", "b"],), {"axis": None}),
    ("stack", (["v", "v"],), {"axis": 1}), ("take", ("v", "k"), {"axis": 0}),
    ("astype", ("a", "int32"), {}), ("broadcast_to", ("v",), {"shape": (2, 4)}),
    ("unique_values", ("j",), {}), ("nonzero", ("m",), {}),
    ("linalg.matrix_norm", ("a",), {}), ("linalg.vector_norm", ("a",), {"ord": 1}),
    ("linalg.svdvals", ("a",), {}), ("linalg.cross", ("a", "b"), {"axis": -2}),
    ("linalg.trace", ("a",), {"offset": 1}), ("linalg.diagonal", ("a",), {}),
    ("linalg.outer", ("v", "w"), {}), ("linalg.matmul", ("a", "a_t"), {}),
]


def _resolve(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _arg(module, vals, x):
    """An argument of a call: a list of them, a dtype name, a value of ``vals`` by name
    (``a_t``: ``a`` transposed) as an array of ``module``, or a literal (non-string)."""
    if isinstance(x, list):
        return [_arg(module, vals, y) for y in x]
    if not isinstance(x, str):
        return x
    if x in DTYPES:
        return getattr(module, x)
    return module.asarray(vals["a"].T.copy() if x == "a_t" else vals[x])


def _to_numpy(out):
    if isinstance(out, tuple):
        return [_to_numpy(o) for o in out]
    if isinstance(out, lj.Tensor):
        return out.numpy()
    return np.from_dlpack(out)


def test_values_against_the_standard(backend, rng):
    """Each call's value and dtype equal array_api_strict's (NumPy underneath)."""
    vals = _values(rng)
    got, want = [], []
    with np.errstate(all="ignore"):
        for name, args, kwargs in CALLS:
            want.append(_to_numpy(_resolve(xp, name)(*[_arg(xp, vals, a) for a in args],
                                                     **kwargs)))
            got.append(_resolve(lnp, name)(*[_arg(lnp, vals, a) for a in args], **kwargs))
    lj.realize(*[t for g in got for t in (g if isinstance(g, tuple) else (g,))])
    for (name, args, _), g, w in zip(CALLS, got, want):
        for gg, ww in zip(*(x if isinstance(x, list) else [x] for x in (_to_numpy(g), w))):
            assert gg.dtype == ww.dtype, (name, args, gg.dtype, ww.dtype)
            np.testing.assert_allclose(gg, ww, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name}{args}")


def test_dlpack_shares_the_computed_value():
    t = lj.tensor(np.arange(6.0).reshape(2, 3)) * 2
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t.numpy()) and np.array_equal(a, np.arange(6.0).reshape(2, 3) * 2)
    assert t.__dlpack_device__() == a.__dlpack_device__()
    back = lnp.from_dlpack(a)  # (imported: a copy, lazyjit's values never change)
    assert np.array_equal(back.numpy(), a) and not np.shares_memory(back.numpy(), a)
    with pytest.raises(ValueError, match="copy"):
        lnp.from_dlpack(a, copy=False)
    legacy = np.from_dlpack(_Legacy(t))  # (a consumer without max_version: a copy)
    assert np.array_equal(legacy, a) and not np.shares_memory(legacy, t.numpy())
    torch = pytest.importorskip("torch")
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.numpy().ctypes.data and tt.tolist() == a.tolist()
    assert np.array_equal(lj.from_dlpack(torch.arange(3)).numpy(), [0, 1, 2])


class _Legacy:
    """A producer wrapper that calls ``__dlpack__`` as DLPack consumers before 1.0 do."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None, **_):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_copies_of_shared_variables_keep_their_value():
    sv = lj.shared(np.array([1.0, 2.0]))
    copies = [lnp.asarray(sv, copy=True), lj.tensor(sv), lnp.astype(sv, sv.dtype),
              lnp.positive(sv), lnp.real(sv)]
    sv.assign(np.array([10.0, 20.0]))
    for c in copies:
        assert_same(c, np.array([1.0, 2.0]))
    info = lnp.__array_namespace_info__()
    assert info.dtypes(kind="complex floating") == {"complex64": lnp.complex64,
                                                    "complex128": lnp.complex128}
    assert lj.tensor(1.0).__array_namespace__(api_version="2022.12") is lnp
    assert_same(lnp.var(lnp.asarray([1.0, 3.0]), correction=2), np.inf)  # (NumPy's)
