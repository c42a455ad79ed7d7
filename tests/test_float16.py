"""float16 on every backend: NumPy's float16 (IEEE 754 binary16), stored in 16 bits and
computed in float32.

What is checked, per backend: a mean that a float16 accumulator would get wrong; every
elementwise op of the registry against NumPy's float16 loops; the promotion table against
NumPy 2 (weak Python scalars); matmul, reductions, sorting, indexing, convolution and
pooling against NumPy computed in float32 and rounded; casts round once and correctly;
gradients against the same function's float32 gradients; an MLP trained with ``lj.nn``
and ``lj.optim`` against the same steps in float32; a jitted function; random draws.

Tolerances: every backend rounds to float16 after each op, as NumPy does; values agree
to a float16 rounding or two (``RTOL``) where a math function's float32 value may differ
from NumPy's by an ulp, and exactly for arithmetic.
"""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj
from lazyjit import nn
from lazyjit.ops import REGISTRY, SUPPORTED_DTYPES

from helpers import assert_same, reference, sample
from test_ops import BINARY, UNARY

H = np.dtype(np.float16)
F32 = np.dtype(np.float32)
RTOL, ATOL = 2e-3, 1e-3   # a rounding or two of float16 (eps 2**-10)
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-3, 1.0, -2.5, 100.0, -100.0,
                    65504.0, 6e-8], H)


def _close(got, want, rtol=RTOL, atol=ATOL, what="") -> str | None:
    """None if tensor ``got`` has ``want``'s dtype and shape and values (NaNs included)
    within tolerance; else what differs."""
    want = np.asarray(want)
    if got.dtype != want.dtype or tuple(got.shape) != want.shape:
        return f"{what}: {got.dtype} {got.shape}, NumPy {want.dtype} {want.shape}"
    g = got.numpy()
    if want.dtype.kind not in "fc":
        return None if np.array_equal(g, want) else f"{what}: {g} != {want}"
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    try:
        np.testing.assert_allclose(g.astype(wide), want.astype(wide), rtol=rtol,
                                   atol=atol, equal_nan=True)
    except AssertionError as e:
        return f"{what}: {e}"
    return None


def _check_all(cases) -> None:
    """``cases``: ``(name, tensor or exception type, expected)``; all tensors computed in
    one realize (one compile), every difference reported."""
    lj.realize(*[t for _, t, _ in cases if isinstance(t, lj.Tensor)])
    failures = [_close(t, want, what=name) for name, t, want in cases]
    failures = [f for f in failures if f]
    assert not failures, "\n".join(failures)


def _f32_then_f16(fn, *arrays, **kwargs):
    """NumPy's ``fn`` of the float16 ``arrays`` computed in float32, rounded to float16."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[a.astype(F32) for a in arrays], **kwargs)).astype(H)


# --- the mean of issue 14 ------------------------------------------------------------------

def test_mean_of_100000_values_of_1000_is_1000(backend):
    """A float16 accumulator would reach 65504 and overflow (or stall at 2048 steps of
    1.0); lazyjit accumulates in float32, so the mean is exact.  The sum, 1e8, is beyond
    float16's largest value 65504: ``inf``, as NumPy's ``np.sum`` gives."""
    a = np.full(100_000, 1000.0, H)
    x = lj.tensor(a)
    m, s = x.mean(), x.sum()
    rows, cols = x.reshape(100, 1000).mean(axis=0), x.reshape(100, 1000).mean(axis=1)
    v, sd = x.var(), x.std()
    ones = lj.ones(4096, H).sum()  # 2048 + 1 == 2048 in float16
    lj.realize(m, s, rows, cols, v, sd, ones)
    assert m.dtype == H and m.item() == 1000.0
    with np.errstate(over="ignore"):
        assert s.dtype == H and s.item() == np.sum(a) == np.inf
    assert rows.dtype == H and np.all(rows.numpy() == 1000.0)
    assert cols.dtype == H and np.all(cols.numpy() == 1000.0)
    assert v.item() == 0.0 and sd.item() == 0.0 and v.dtype == sd.dtype == H
    assert ones.item() == 4096.0


# --- elementwise ---------------------------------------------------------------------------

def _unary_cases(rng):
    cases = []
    for op, (fn, ref, dom, _) in UNARY.items():
        for name, a in ((f"{op}-random", sample(rng, (3, 5), H, dom)),
                        (f"{op}-special", SPECIAL)):
            try:
                want = reference(ref, [a])
            except TypeError:  # integer-only (invert): refused by both
                with pytest.raises((TypeError, lj.LazyjitError)):
                    fn(lj.tensor(a))
                continue
            cases.append((name, fn(lj.tensor(a)), want))
    return cases


def _binary_cases(rng):
    cases = []
    shapes = [((3, 5), (3, 5)), ((3, 1), (1, 4)), ((), (2, 3))]
    for op, (fn, ref, da, db) in BINARY.items():
        for sa, sb in shapes:
            a, b = sample(rng, sa, H, da), sample(rng, sb, H, db)
            try:
                want = reference(ref, [a, b])
            except TypeError:  # bitwise ops: refused by both
                with pytest.raises((TypeError, lj.LazyjitError)):
                    fn(lj.tensor(a), lj.tensor(b))
                break
            cases.append((f"{op}-{sa}-{sb}", fn(lj.tensor(a), lj.tensor(b)), want))
        if op in ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum",
                  "minimum", "lt", "eq"):
            a = np.repeat(SPECIAL, len(SPECIAL))
            b = np.tile(SPECIAL, len(SPECIAL))
            cases.append((f"{op}-special", fn(lj.tensor(a), lj.tensor(b)), reference(ref, [a, b])))
    return cases


def test_every_elementwise_op_against_numpy(backend, rng):
    """Every elementwise op of the registry on float16 operands (random values in each
    op's domain, and the special values: NaN, infinities, signed zeros, float16's largest
    and smallest) against NumPy's float16 loops, which compute in float32 and round."""
    c = sample(rng, (3, 5), np.bool_)
    a, b = sample(rng, (3, 5), H), sample(rng, (3, 5), H)
    rest = [("where", lj.where(lj.tensor(c), lj.tensor(a), lj.tensor(b)), np.where(c, a, b)),
            ("where-weak", lj.where(lj.tensor(c), lj.tensor(a), 0.5), np.where(c, a, 0.5)),
            ("stop_gradient", lj.stop_gradient(lj.tensor(a)), a),
            ("cast", lj.tensor(a).astype(F32), a.astype(F32))]
    cases = _unary_cases(rng) + _binary_cases(rng) + rest
    tested = {name.split("-")[0] for name, _, _ in cases} | {
        "invert", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"}
    elementwise = {n for n, d in REGISTRY.items() if d.kind == "elementwise"}
    # (philox: random bits, uint; real, imag, conj, reciprocal: complex only (float
    # reciprocal is 1 / x), tests/test_complex.py)
    assert elementwise - tested <= {"philox", "real", "imag", "conj", "reciprocal"}, \
        elementwise - tested
    _check_all(cases)


def test_fused_chains_round_after_each_op(backend, rng):
    """Each op of a fused float16 chain is rounded to float16, as NumPy rounds: arithmetic
    equals NumPy's bit for bit (held in float32 along the chain, ``floor_divide(x * 3,
    x)`` gave 3 where NumPy gives 2, for a third of random values; found by a fuzzing
    helper), math functions within a rounding or two."""
    s = np.random.default_rng(1).normal(size=2000).astype(H)
    t = np.abs(s) + np.float16(0.5)
    x, u = lj.tensor(s), lj.tensor(t)
    exact = [(lj.floor_divide(x * 3.0, x), np.floor_divide(s * 3.0, s)),
             ((x * 0.1 + u) / u - x, (s * 0.1 + t) / t - s),
             (lj.sqrt(u * u + 1.5) % 0.7, np.sqrt(t * t + 1.5) % 0.7),
             ((x * 7.0 + 1.0) > (u * 3.0), (s * 7.0 + 1.0) > (t * 3.0)),
             ((x * u).astype(np.float32) * 3.0, (s * t).astype(np.float32) * 3.0)]
    lj.realize(*[g for g, _ in exact])
    for k, (got, want) in enumerate(exact):
        assert got.dtype == want.dtype, k
        np.testing.assert_array_equal(got.numpy(), want, err_msg=str(k))
    a, b = sample(rng, (4, 6), H), sample(rng, (6,), H, "pos")
    x, y = lj.tensor(a), lj.tensor(b)
    with np.errstate(all="ignore"):
        want = np.tanh(a * 2 + b) * np.exp(-a / b) - np.sqrt(b)
    _check_all([("chain", lj.tanh(x * 2 + y) * lj.exp(-x / y) - lj.sqrt(y), want),
                ("softmax", lj.softmax(x, axis=1), _f32_then_f16(
                    lambda z: np.exp(z) / np.exp(z).sum(1, keepdims=True), a)),
                ("log_softmax", lj.log_softmax(x), _f32_then_f16(
                    lambda z: z - np.log(np.exp(z).sum(1, keepdims=True)), a))])


# --- promotion -----------------------------------------------------------------------------

def test_promotion_follows_numpy(backend):
    """float16 with every supported dtype, with weak Python scalars and NumPy scalars, and
    NumPy's float functions of small integers: the dtypes of NumPy 2 (``np.result_type``,
    NEP 50), and the values."""
    cases = []
    h = np.array([1.5, -2.0, 3.0], H)
    for dt in SUPPORTED_DTYPES:
        o = np.array([1, 0, 2]).astype(dt)
        ops = (("add", np.add), ("div", np.true_divide), ("max", np.maximum))
        if np.dtype(dt).kind == "c":  # (no ordering of complex numbers; not on cuda)
            ops = ops[:2] if backend != "cuda" else ()
        for name, f in ops:
            fn = {"add": lambda p, q: p + q, "div": lambda p, q: p / q,
                  "max": lj.maximum}[name]
            with np.errstate(all="ignore"):
                cases += [(f"{name}-f16-{dt}", fn(lj.tensor(h), lj.tensor(o)), f(h, o)),
                          (f"{name}-{dt}-f16", fn(lj.tensor(o), lj.tensor(h)), f(o, h))]
        assert np.result_type(H, dt) == (lj.ones(2, H) + lj.ones(2, dt)).dtype
    for i, s in enumerate((2, 2.5, True, np.float32(2.0), np.float64(2.0), np.int8(3))):
        cases += [(f"weak{i}", lj.tensor(h) * s, h * s), (f"weak{i}r", s + lj.tensor(h), s + h)]
    for dt in ("bool", "int8", "uint8", "int16", "int32"):
        o = np.array([1, 0, 2]).astype(dt)
        cases += [(f"exp-{dt}", lj.exp(lj.tensor(o)), np.exp(o)),
                  (f"sqrt-{dt}", lj.sqrt(lj.tensor(o)), np.sqrt(o))]
    assert (lj.tensor(h) * 2.0).dtype == H and (lj.ones(3, "int8") + lj.tensor(h)).dtype == H
    assert (lj.tensor(h) + lj.ones(3, F32)).dtype == F32
    assert (lj.ones(3, "int16") + lj.tensor(h)).dtype == F32
    assert (lj.ones(3, "int32") + lj.tensor(h)).dtype == np.float64
    _check_all(cases)


# --- casts ---------------------------------------------------------------------------------

def test_astype_rounds_once_and_correctly(backend, rng):
    """Casts to float16 round to nearest even where they are, also inside a fused
    expression (``x.astype(f16).astype(f32)`` is not the identity); from float64 directly
    (through float32, ``1 + 2**-11 + 1e-12`` would round twice, to 1.0); out-of-range
    values become infinite; casts from float16 are exact (to ints: truncated)."""
    x32 = np.concatenate([rng.standard_normal(50), [1e-8, 7e4, -7e4, 65519.0, 65520.0,
                                                    np.nan, np.inf]]).astype(F32)
    x64 = np.array([1 + 2 ** -11 + 1e-12, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 0.1, -1e-9, 1e300])
    ints = np.array([0, 1, -7, 2049, 65504, 65520, 10 ** 6, -(2 ** 40)], np.int64)
    h = sample(rng, (20,), H) * 30
    with np.errstate(all="ignore"):
        cases = [("f32-f16-f32", lj.tensor(x32).astype(H).astype(F32), x32.astype(H).astype(F32)),
                 ("f32*1-f16", (lj.tensor(x32) * 1.0).astype(H), x32.astype(H)),
                 ("f64-f16", lj.tensor(x64).astype(H), x64.astype(H)),
                 ("f64+0-f16", (lj.tensor(x64) + 0.0).astype(H), x64.astype(H)),
                 ("int64-f16", lj.tensor(ints).astype(H), ints.astype(H)),
                 ("bool-f16", lj.tensor(h > 0).astype(H), (h > 0).astype(H)),
                 ("f16-int32", lj.tensor(h).astype("int32"), h.astype("int32")),
                 ("f16-int8", lj.tensor(h).astype("int8"), h.astype("int8")),
                 ("f16-bool", lj.tensor(h).astype("bool"), h.astype("bool")),
                 ("f16-f64-f16", lj.tensor(h).astype(np.float64).astype(H), h)]
    lj.realize(*[t for _, t, _ in cases])
    for name, t, want in cases:  # bit for bit
        assert t.dtype == want.dtype, name
        np.testing.assert_array_equal(t.numpy(), want, err_msg=name)


# --- matmul and reductions -----------------------------------------------------------------

def test_matmul_accumulates_in_float32(backend, rng):
    """Matrix products of float16 (plain, batched, broadcast, transposed, vector, empty,
    with the ``gemm`` rule's ``alpha * (a @ b) + c``) against NumPy in float32, rounded;
    ``ones(4096) @ ones(4096)`` is 4096 (a float16 sum stops at 2048)."""
    a, b, c = (sample(rng, s, H) for s in ((2, 5, 7), (2, 7, 3), (5, 3)))
    ta, tb, tc = lj.tensor(a), lj.tensor(b), lj.tensor(c)
    mm = np.matmul
    cases = [("batched", ta @ tb, _f32_then_f16(mm, a, b)),
             ("broadcast", ta @ tb[0], _f32_then_f16(mm, a, b[0])),
             ("transposed", lj.swapaxes(ta, 1, 2) @ ta,
              _f32_then_f16(lambda p: np.swapaxes(p, 1, 2) @ p, a)),
             ("vector", ta[0, 0] @ tb[1], _f32_then_f16(mm, a[0, 0], b[1])),
             ("gemm", ta[0] @ tb[0] * 0.5 + tc, _f32_then_f16(lambda p, q, r: p @ q * 0.5 + r,
                                                              a[0], b[0], c)),
             ("empty", lj.zeros((3, 0), H) @ lj.zeros((0, 4), H), np.zeros((3, 4), H)),
             ("long", lj.ones((2, 4096), H) @ lj.ones((4096, 3), H), np.full((2, 3), 4096, H)),
             ("dot", lj.dot(ta[1], tb[0]), _f32_then_f16(np.dot, a[1], b[0]))]
    _check_all(cases)


def test_reductions_and_sorting(backend, rng):
    """sum, prod, mean, var, std (in float32, rounded), max, min, argmax, argmin, sort,
    argsort (exact), cumsum (NumPy's float16 running sum) over inner, outer and all axes,
    with more than 256 columns (the cpu backend sums outer axes 256 columns at a time)."""
    a = sample(rng, (6, 300), H)
    s = sample(rng, (4, 7), H)
    s[1, 2] = np.nan
    x, t = lj.tensor(a), lj.tensor(s)
    cases = []
    for axis in (0, 1, None):
        for name in ("sum", "mean", "var", "std"):
            cases.append((f"{name}-{axis}", getattr(lj, name)(x, axis=axis),
                          _f32_then_f16(getattr(np, name), a, axis=axis)))
        for name in ("max", "min", "argmax", "argmin"):
            cases.append((f"{name}-{axis}", getattr(lj, name)(x, axis=axis),
                          getattr(np, name)(a, axis=axis)))
    p = sample(rng, (3, 8), H, "pos")
    cases += [("prod", lj.prod(lj.tensor(p), axis=1), _f32_then_f16(lambda z: z.prod(1), p)),
              ("max-nan", lj.max(t, axis=1), np.max(s, axis=1)),
              ("argmax-nan", lj.argmax(t, axis=1), np.argmax(s, axis=1)),
              ("sort", lj.sort(t, axis=1), np.sort(s, axis=1)),
              ("argsort", lj.argsort(t, axis=0), np.argsort(s, axis=0, kind="stable")),
              ("cumsum", lj.cumsum(t, axis=1), np.cumsum(s, axis=1)),
              ("logsumexp", lj.logsumexp(x, axis=1),
               _f32_then_f16(lambda z: np.log(np.exp(z).sum(1)), a))]
    _check_all(cases)


def test_indexing_concat_and_scatter(backend, rng):
    """Gathers, slices, concatenation and indexed updates move float16 values exactly;
    ``inc_subtensor`` with repeated indices adds (rounding each addition, as
    ``np.add.at``)."""
    a, v = sample(rng, (5, 4), H), sample(rng, (3, 4), H)
    idx = np.array([0, 3, 0])
    x = lj.tensor(a)
    added = a.copy()
    np.add.at(added, idx, v)
    cases = [("take", lj.take(x, lj.tensor(idx), axis=0), a[idx]),
             ("slice", x[1:4:2, ::-1], a[1:4:2, ::-1]),
             ("concat", lj.concatenate([x, x[:2]]), np.concatenate([a, a[:2]])),
             ("set", lj.set_subtensor(x[1:3], lj.tensor(v[:2])), np.concatenate(
                 [a[:1], v[:2], a[3:]])),
             ("inc", lj.inc_subtensor(x[lj.tensor(idx)], lj.tensor(v)), added),
             ("mask-where", lj.where(x > 0, x, -x), np.abs(a))]
    _check_all(cases)


def test_conv_and_pool(backend, rng):
    """Convolutions of float16 are computed in float32 and rounded; pooling is exact."""
    x, w = sample(rng, (2, 3, 6, 6), H), sample(rng, (4, 3, 3, 3), H)
    tx, tw = lj.tensor(x), lj.tensor(w)
    y = nn.functional.conv2d(tx, tw, padding=1)
    want = nn.functional.conv2d(tx.astype(F32), tw.astype(F32), padding=1)
    p = nn.functional.max_pool2d(tx, 2)
    lj.realize(y, want, p)
    assert y.dtype == H and p.dtype == H
    np.testing.assert_allclose(y.numpy().astype(F32), want.numpy().astype(H).astype(F32),
                               rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(p.numpy(), x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    g = lj.grad(lambda v: lj.sum(nn.functional.conv2d(v, tw) ** 2))(tx)
    g32 = lj.grad(lambda v: lj.sum(nn.functional.conv2d(v, tw.astype(F32)) ** 2))(
        tx.astype(F32))
    assert g.dtype == H
    np.testing.assert_allclose(g.numpy().astype(F32), g32.numpy(), rtol=1e-2,
                               atol=1e-2 * float(np.abs(g32.numpy()).max()))


# --- derivatives, training, jit ------------------------------------------------------------

GRAD_FUNCTIONS = {
    "tanh-matmul": lambda x, w: lj.sum(lj.tanh(x @ w) * 0.5),
    "mean-square": lambda x, w: lj.mean((x @ w) ** 2),
    "cross-entropy": lambda x, w: lj.mean(lj.softmax_cross_entropy(x @ w,
                                                                   lj.tensor([0, 1, 2, 1]))),
    "logsumexp": lambda x, w: lj.sum(lj.logsumexp(x @ w, axis=1)),
    "max": lambda x, w: lj.sum(lj.max(x @ w, axis=0)),
    "std": lambda x, w: lj.std(x @ w),
    "sigmoid-prod": lambda x, w: lj.sum(lj.sigmoid(x) * lj.exp(-lj.abs(x))) +
    lj.prod(w[:2, :2]),
    "relu-div": lambda x, w: lj.sum(lj.relu(x) / (1 + w[:4, :1] ** 2).T[0, :, None]),
}


@pytest.mark.parametrize("name", GRAD_FUNCTIONS)
def test_gradients_match_float32(backend, rng, name):
    """The float16 gradients (float16 tensors) of a function equal its float32 gradients
    at the same points to float16's precision (finite differences are too coarse in
    float16: their steps are a few ulps)."""
    f = GRAD_FUNCTIONS[name]
    x, w = sample(rng, (4, 6), H), sample(rng, (6, 3), H)
    g16 = lj.grad(f, argnums=(0, 1))(lj.tensor(x), lj.tensor(w))
    g32 = lj.grad(f, argnums=(0, 1))(lj.tensor(x.astype(F32)), lj.tensor(w.astype(F32)))
    for a, b in zip(g16, g32):
        assert a.dtype == H
        want = b.numpy()
        np.testing.assert_allclose(a.numpy().astype(F32), want, rtol=2e-2,
                                   atol=5e-3 * max(1.0, float(np.abs(want).max())))


def _mlp_losses(dtype, opt_cls, steps=15, **kw):
    nn.manual_seed(3)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5)).astype(dtype)
    opt = opt_cls(model.parameters(), **kw)
    r = np.random.default_rng(0)
    x, y = r.standard_normal((64, 16)).astype(dtype), r.integers(0, 5, 64)

    @lj.jit
    def step(x, y):
        loss = lj.mean(lj.softmax_cross_entropy(model(x), y))
        opt.step(lj.grad(loss, model.parameters()))
        return loss

    losses = [step(x, y) for _ in range(steps)]
    return [float(v) for v in losses], losses[0].dtype, model.parameters()


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_mlp_training_steps(backend, opt):
    """An ``lj.nn`` MLP (Linear, relu, Linear, softmax cross-entropy) cast to float16 and
    trained by ``lj.optim`` in a jitted step: float16 losses and parameters, finite and
    close to the same steps in float32, the loss falling."""
    opt_cls, kw = {"SGD": (lj.optim.SGD, dict(lr=0.1, momentum=0.9)),
                   "Adam": (lj.optim.Adam, dict(lr=1e-2))}[opt]
    l16, dt, params = _mlp_losses(H, opt_cls, **kw)
    l32, _, params32 = _mlp_losses(F32, opt_cls, **kw)
    assert dt == H and all(p.dtype == H for p in params)
    assert np.all(np.isfinite(l16)) and l16[-1] < 0.8 * l16[0]
    np.testing.assert_allclose(l16, l32, rtol=1e-2)
    for p, q in zip(params, params32):
        np.testing.assert_allclose(p.get_value().astype(F32), q.get_value(), atol=3e-2)


def test_jit_with_float16_inputs(backend, rng):
    """A jitted function of float16 arrays and a Python scalar: float16 results, one
    trace for new values (not for a new dtype)."""
    calls = []

    @lj.jit
    def f(x, w, lr):
        calls.append(1)
        return lj.tanh(x @ w) * lr + x.mean(), lj.argmax(x, axis=1)

    x, w = sample(rng, (3, 4), H), sample(rng, (4, 4), H)
    for lr in (0.5, 0.25):
        y, i = f(x, w, lr)
        want = _f32_then_f16(lambda p, q, r: np.tanh(p @ q) * r + p.mean(), x, w, r=lr)
        assert y.dtype == H and i.dtype == np.int64
        np.testing.assert_allclose(y.numpy().astype(F32), want.astype(F32), rtol=RTOL,
                                   atol=ATOL)
    assert len(calls) == 1
    assert f(x.astype(F32), w.astype(F32), 0.5)[0].dtype == F32 and len(calls) == 2


def test_placeholders_shared_and_creation(backend):
    """float16 placeholders and shared variables in ``lj.function``; creation functions
    of dtype float16."""
    x = lj.vector("x", H)
    s = lj.shared(np.array([1.0, 2.0], H), "s")
    fn = lj.function([x], x * s, updates=[(s, s + x)])
    np.testing.assert_array_equal(fn(np.array([0.5, 0.25], H)), np.array([0.5, 0.5], H))
    assert s.get_value().dtype == H and list(s.get_value()) == [1.5, 2.25]
    made = [lj.zeros(3, H), lj.ones((2, 2), H), lj.full((2,), 0.1, H), lj.eye(2, dtype=H),
            lj.arange(0, 2, 0.5, dtype=H), lj.linspace(0, 1, 5, dtype=H)]
    wants = [np.zeros(3, H), np.ones((2, 2), H), np.full((2,), 0.1, H), np.eye(2, dtype=H),
             np.arange(0, 2, 0.5, dtype=H), np.linspace(0, 1, 5, dtype=H)]
    for t, want in zip(made, wants):
        assert t.dtype == H
        np.testing.assert_array_equal(t.numpy(), want)


def test_random_draws(backend):
    """float16 uniforms are multiples of 2**-11 in [0, 1) (11 random bits), and in
    ``[low, high)``; normals are the float64 draws rounded once: the same bits on every
    backend."""
    u = lj.random.RandomStream(5).uniform((1000,), dtype=H).numpy()
    r = lj.random.RandomStream(5).uniform((1000,), -2.0, 3.0, dtype=H).numpy()
    z = lj.random.RandomStream(7).normal((1000,), dtype=H).numpy()
    z64 = lj.random.RandomStream(7).normal((1000,), dtype=np.float64).numpy()
    assert u.dtype == r.dtype == z.dtype == H
    assert u.min() >= 0 and u.max() < 1 and np.all(u * 2048 == np.round(u * 2048))
    assert r.min() >= -2 and r.max() < 3 and r.std() > 1
    np.testing.assert_array_equal(z, z64.astype(H))


def test_a_float16_value_widened_is_a_float16_value(backend):
    """Found by the bug hunt: a float16 result of a fused chain, cast to float64 (or
    promoted with a float64 operand), kept the float32 it was computed in; it is rounded
    to float16 first, as NumPy's value is."""
    a, b = np.array([0.3, 1.7], np.float16), np.array([3.97, -0.61], np.float16)
    x, y = lj.tensor(a), lj.tensor(b)
    z = np.zeros(2)
    assert_same((x + y).astype("float64"), (a + b).astype(np.float64), rtol=0, atol=0)
    assert_same((x + y) + lj.tensor(z), (a + b) + z, rtol=0, atol=0)
    assert_same((x * y) * lj.tensor(z) + x * y, (a * b) * z + (a * b), rtol=0, atol=0)


def test_logaddexp2_rounds_once_as_numpys_float32_loop(backend):
    # (found by a fuzzing helper: rounded after each step, a fifth of all float16 values
    # against 0.75 were an ulp off NumPy's)
    a = np.arange(-2 ** 15, 2 ** 15, dtype=np.int32).astype(np.uint16).view(np.float16)
    a = a[np.isfinite(a)]
    b = np.full_like(a, 0.75)
    got = lj.logaddexp2(lj.tensor(a), lj.tensor(b)).numpy()
    want = np.logaddexp2(a, b)
    assert got.dtype == np.float16
    off = (got != want) & ~(np.isnan(got) & np.isnan(want))
    assert off.sum() <= 4  # (NumPy's float32 formula, not ours: an ulp at a few points)
    ulps = np.abs(got[off].view(np.int16).astype(np.int32) - want[off].view(np.int16))
    assert (ulps <= 1).all()
