"""lazyjit.random: Philox4x32-10 bits and the distributions built on them, per backend.

The known answers are Random123's ``tests/kat_vectors`` (``philox4x32 10`` lines); the
scalar reference below is written from the paper (Salmon et al., SC 2011) in plain Python
integers, independently of the op's NumPy reference and C helper.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.api import exactmath

KAT = [((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
       ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
       ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
        (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]
M32 = 0xFFFFFFFF


def philox_scalar(ctr, key):
    """Philox4x32-10 of 4 counter words and 2 key words, in Python ints."""
    c, k = list(ctr), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
    return c


def _u64(lo, hi):
    return lo | hi << 32


def test_scalar_reference_matches_known_answers():
    for ctr, key, want in KAT:
        assert tuple(philox_scalar(ctr, key)) == want


def test_known_answers(backend):
    outs = [lj.random.philox(_u64(*c[:2]), _u64(*k), lj.arange(4, dtype="uint64"),
                             _u64(*c[2:])) for c, k, _ in KAT]
    lj.realize(*outs)
    for out, (_, _, want) in zip(outs, KAT):
        assert out.dtype == np.uint32 and out.shape == (4,)
        assert tuple(int(v) for v in out.numpy()) == want


def test_random_counters_and_keys(backend, rng):
    """Broadcast operands (a counter per element, one key, a word per element)."""
    c01 = rng.integers(0, 2**64, 24, dtype=np.uint64, endpoint=False)
    c23 = rng.integers(0, 2**64, 24, dtype=np.uint64, endpoint=False)
    key = int(rng.integers(0, 2**64, dtype=np.uint64, endpoint=False))
    word = np.arange(24, dtype=np.int64) % 4
    got = lj.random.philox(c01, key, word, lj.tensor(c23)).numpy()
    for i in range(24):
        ctr = (int(c01[i]) & M32, int(c01[i]) >> 32, int(c23[i]) & M32, int(c23[i]) >> 32)
        assert int(got[i]) == philox_scalar(ctr, (key & M32, key >> 32))[word[i]]


def _draws(seed):
    rs = lj.random.RandomStream(seed)
    return dict(bits=rs.bits((3, 50)), u32=rs.uniform(200), u64=rs.uniform(200, dtype="float64"),
                bern=rs.bernoulli(200, 0.3), ints=rs.integers(200, -5, 17),
                big=rs.integers(20, -2**63, 2**63 - 1), perm=rs.permutation(30),
                n32=rs.normal(200), n64=rs.normal(200, 2.0, 3.0, dtype="float64"),
                aff=rs.uniform(200, -2.0, 3.0))


def test_bit_identical_across_backends():
    got = {}
    for name in ("numpy", "cpu"):
        with lj.config(backend=name):
            d = _draws(1234)
            lj.realize(*d.values())
            got[name] = {k: v.numpy() for k, v in d.items()}
    a, b = got["numpy"], got["cpu"]
    for k in a:  # normal: lazyjit.api.exactmath; aff: no fused multiply-add in C
        assert a[k].dtype == b[k].dtype
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


NORMAL_SHAPES = [(), (1,), (7,), (3, 5), (1001,), (2, 0, 3), (4, 33, 3)]
_BITS = {np.dtype("float32"): np.uint32, np.dtype("float64"): np.uint64}


def _normal_draws(dtype):
    """Normal draws of several shapes and parameters, eager, inside ``@lj.jit``, one per
    step of an ``lj.scan`` and in an ``lj.function``, on the current backend (NumPy
    arrays)."""
    rs = lj.random.RandomStream(2024)
    eager = [rs.normal(s, mean=m, std=sd, dtype=dtype)
             for s, m, sd in zip(NORMAL_SHAPES, (0.0, 1.5, -3.0, 0.25, 10.0, 0.0, -1e-3),
                                 (1.0, 2.0, 0.5, 7.0, 1e-3, 3.0, 123.0))]
    lj.realize(*eager)
    jitted = lj.jit(lambda: [rs.normal(s, -0.5, 1.75, dtype) for s in NORMAL_SHAPES])
    steps, _ = lj.scan(lambda: rs.normal((5,), 2.0, 0.1, dtype), n_steps=3)
    x = lj.vector("x", dtype, shape=(9,))
    fn = lj.function([x], x + rs.normal((9,), 0.0, 4.0, dtype))
    zeros = np.zeros(9, dtype)
    return [t.numpy() for t in eager] + [t.numpy() for t in jitted()] + \
        [t.numpy() for t in jitted()] + [steps.numpy(), fn(zeros), fn(zeros)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_bit_identical_across_backends(dtype):
    """README: every backend draws the same numbers.  normal's log and cos are computed
    by lazyjit.api.exactmath (only IEEE-exact operations), not by libm or NumPy's SIMD
    loops, which round differently in the last bit."""
    got = {}
    for name in ("numpy", "cpu"):
        with lj.config(backend=name):
            got[name] = _normal_draws(dtype)
    for i, (a, b) in enumerate(zip(got["numpy"], got["cpu"])):
        assert a.dtype == b.dtype == dtype and a.shape == b.shape
        bits = _BITS[a.dtype]
        diff = np.flatnonzero(a.reshape(-1).view(bits) != b.reshape(-1).view(bits))
        assert diff.size == 0, (f"draw {i}: {diff.size} of {a.size} values differ, e.g. "
                                f"{a.reshape(-1)[diff[:3]]} vs {b.reshape(-1)[diff[:3]]}")


LONG_DOUBLE = np.finfo(np.longdouble).nmant >= 63  # a reference ~2**-63 accurate


def _ulps(got, ref):
    """|got - ref| in units of the last place of the float64 nearest ``ref``."""
    return (np.abs(got - ref) / np.spacing(np.abs(ref.astype(np.float64)))).astype(np.float64)


def _both_backends(fn, x):
    """``fn(x)`` on the numpy and cpu backends, asserted bit-identical; one result."""
    outs = []
    for name in ("numpy", "cpu"):
        with lj.config(backend=name):
            outs.append(fn(lj.tensor(x)).numpy())
    assert outs[0].dtype == np.float64
    assert np.array_equal(outs[0].view(np.uint64), outs[1].view(np.uint64))
    return outs[0]


@pytest.mark.skipif(not LONG_DOUBLE, reason="needs an 80- or 128-bit long double reference")
def test_exact_log_accuracy():
    """exactmath.log against long double logl, on the 53-bit values ``v = 1 - u1`` that
    normal draws from (uniform, log-uniform, and the edges: the smallest v = 2**-53,
    v = 1 from u1 = 0, around powers of two and the sqrt(2) split), and over the whole
    float64 range.  Max error measured: 0.81 ulp (NumPy's own log: 0.52)."""
    rng = np.random.default_rng(1)
    n = 1 << 20
    j = rng.integers(1, 2**53 + 1, n, dtype=np.int64).astype(np.float64)
    t = np.floor(np.exp2(rng.uniform(0, 53, n)))  # log-uniform integers in [1, 2**53]
    powers = 2.0 ** np.arange(54)
    near = np.concatenate([powers - 1, powers, powers + 1])
    split = np.round(2**53 * np.sqrt(0.5)) + np.arange(-1000, 1000)  # m around sqrt(2)
    edges = np.concatenate([[1, 2, 3, 2**53 - 1, 2**53], near, split])
    v = np.concatenate([j, t, edges[(edges >= 1) & (edges <= 2**53)]]) * 2.0**-53
    got = _both_backends(lambda x: exactmath.log(x, -53, 0), v)
    err = _ulps(got, np.log(v.astype(np.longdouble)))
    assert got[v == 1.0].tolist() == [0.0] * int((v == 1.0).sum())
    assert err.max() < 1.0, f"max {err.max():.3f} ulp at v = {v[err.argmax()]!r}"
    # the full float64 range of normal numbers, with the default exponent bounds
    x = np.concatenate([np.geomspace(2.0**-1022, 2.0**1023, 1 << 16),
                        [np.finfo(np.float64).tiny, np.finfo(np.float64).max, 1.0,
                         np.nextafter(1.0, 0), np.nextafter(1.0, 2), 0.5, 2.0]])
    got = _both_backends(exactmath.log, x)
    err = _ulps(got, np.log(x.astype(np.longdouble)))
    err[x == 1.0] = np.abs(got[x == 1.0])
    assert err.max() < 1.0, f"max {err.max():.3f} ulp at x = {x[err.argmax()]!r}"


def _cos_2pi_reference(u):
    """cos(2 pi u) in long double after the same exact reduction (so exact zeros at odd
    multiples of 1/4, where cos((2 pi)_ld * u) would not be)."""
    t = u * 4
    r = (t - np.floor(t)).astype(np.longdouble)
    q = np.floor(t) % 4
    flip = r > 0.5
    r, q = np.where(flip, 1 - r, r), np.where(flip, q + 1, q)
    x = np.arctan(np.longdouble(1)) * 2 * r
    value = np.where(q % 2 == 1, np.sin(x), np.cos(x))
    neg = (q == 2) | ((q == 1) & ~flip) | ((q == 3) & flip)
    return np.where(neg, -value, value)


@pytest.mark.skipif(not LONG_DOUBLE, reason="needs an 80- or 128-bit long double reference")
def test_exact_cos_2pi_accuracy():
    """exactmath.cos_2pi against long double cos, on 53-bit uniforms and the edges (0,
    2**-53, each multiple of 1/8 and its neighbours, 1 - 2**-53, 1).  Max error measured:
    0.77 ulp; exact at multiples of 1/4 (cos = 0 there, where np.cos(2 * np.pi * u)
    gives 6e-17 and -1.8e-16)."""
    rng = np.random.default_rng(2)
    eighths = np.arange(9) / 8
    edges = np.concatenate([eighths, eighths - 2.0**-53, eighths + 2.0**-53, [2.0**-53]])
    u = np.concatenate([rng.integers(0, 2**53, 1 << 20, dtype=np.int64) * 2.0**-53,
                        edges[(edges >= 0) & (edges <= 1)]])
    got = _both_backends(exactmath.cos_2pi, u)
    ref = _cos_2pi_reference(u)
    zero = ref == 0
    assert set(u[zero]) == {0.25, 0.75} and not got[zero].any()
    err = _ulps(got[~zero], ref[~zero])
    assert err.max() < 1.0, f"max {err.max():.3f} ulp at u = {u[~zero][err.argmax()]!r}"
    for value, want in ((0.0, 1.0), (0.5, -1.0), (1.0, 1.0)):
        assert (got[u == value] == want).all()


def test_exactmath_rejects_other_dtypes():
    with pytest.raises(lj.LazyjitError, match="float64"):
        exactmath.log(lj.ones(3, dtype="float32"))
    with pytest.raises(lj.LazyjitError, match="float64"):
        exactmath.cos_2pi(lj.ones(3, dtype="float32"))
    with pytest.raises(lj.LazyjitError, match="min_exponent"):
        exactmath.log(lj.ones(3), 1, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_distribution(dtype):
    """2**20 draws: mean, std, the tails beyond 3 and 4 sigma (binomial counts) and the
    Kolmogorov-Smirnov statistic against the normal CDF (critical value 1.95 / sqrt(n)
    at the 0.1% level: 0.0019, so a CDF off by 0.2% anywhere fails)."""
    stats = pytest.importorskip("scipy.stats")
    n = 1 << 20
    x = lj.random.RandomStream(99).normal(n, mean=3.0, std=2.0, dtype=dtype).numpy()
    assert x.dtype == dtype
    z = (x.astype(np.float64) - 3.0) / 2.0
    assert abs(z.mean()) < 4 / math.sqrt(n)
    assert abs(z.std() - 1) < 4 / math.sqrt(2 * n)
    for k in (3, 4):
        p = 2 * stats.norm.sf(k)
        assert abs((np.abs(z) > k).sum() - n * p) < 4 * math.sqrt(n * p * (1 - p)) + 1
    assert np.abs(z).max() <= math.sqrt(106 * math.log(2)) + 1e-6  # v >= 2**-53
    ks = stats.kstest(z, "norm")
    assert ks.statistic < 1.95 / math.sqrt(n), ks


def test_seeds_and_successive_draws_differ(backend):
    a, b = lj.random.RandomStream(1), lj.random.RandomStream(2)
    a1, a2, b1 = a.bits(64), a.bits(64), b.bits(64)
    again = lj.random.RandomStream(1).bits(64)
    lj.realize(a1, a2, b1, again)
    assert a.counter == 128 and b.counter == 64
    assert (a1.numpy() != a2.numpy()).mean() > 0.9
    assert (a1.numpy() != b1.numpy()).mean() > 0.9
    np.testing.assert_array_equal(a1.numpy(), again.numpy())


def test_counter_wraps(backend):
    rs = lj.random.RandomStream(9, counter=2**64 - 2)
    got = rs.bits(4).numpy()
    assert rs.counter == 2
    for i, c in enumerate((2**64 - 2, 2**64 - 1, 0, 1)):
        assert int(got[i]) == philox_scalar((c & M32, c >> 32, 0, 0), (9, 0))[0]


N = 100_000


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_statistics(backend, dtype):
    rs = lj.random.RandomStream(5)
    u, v = rs.uniform(N, dtype=dtype), rs.uniform((200, 500), -3.0, 5.0, dtype=dtype)
    lj.realize(u, v)
    for x, lo, hi in ((u.numpy(), 0.0, 1.0), (v.numpy(), -3.0, 5.0)):
        assert x.dtype == dtype and x.min() >= lo and x.max() < hi
        width = hi - lo
        mean_se = width / math.sqrt(12 * x.size)
        assert abs(x.mean() - (lo + hi) / 2) < 3 * mean_se
        var = width**2 / 12  # the variance's standard error: sqrt((mu4 - var**2) / n)
        var_se = math.sqrt((width**4 / 80 - var**2) / x.size)
        assert abs(x.var(dtype=np.float64) - var) < 3 * var_se
    assert v.shape == (200, 500)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_statistics(backend, dtype):
    rs = lj.random.RandomStream(6)
    z, y = rs.normal(N, dtype=dtype), rs.normal((N,), mean=-2.0, std=0.5, dtype=dtype)
    lj.realize(z, y)
    for x, mu, sd in ((z.numpy(), 0.0, 1.0), (y.numpy(), -2.0, 0.5)):
        assert x.dtype == dtype and np.isfinite(x).all()
        assert abs(x.mean() - mu) < 3 * sd / math.sqrt(N)
        assert abs(x.std(dtype=np.float64) - sd) < 3 * sd / math.sqrt(2 * N)
        assert abs(np.mean(np.abs(x - mu) < sd) - 0.6827) < 0.005  # the shape, roughly


def test_bernoulli(backend):
    rs = lj.random.RandomStream(7)
    draws = {p: rs.bernoulli(N, p) for p in (0.0, 0.1, 0.5, 1.0)}
    f = rs.bernoulli((4, 5), 0.5, dtype="float32")
    lj.realize(f, *draws.values())
    for p, t in draws.items():
        x = t.numpy()
        assert x.dtype == np.bool_
        assert abs(x.mean() - p) <= 3 * math.sqrt(p * (1 - p) / N)
    assert f.dtype == np.float32 and f.shape == (4, 5) and set(np.unique(f.numpy())) <= {0, 1}


@pytest.mark.parametrize("low,high,dtype", [(0, 10, "int64"), (-7, 3, "int32"),
                                            (250, 256, "uint8"), (-2**63, 2**63 - 1, "int64")])
def test_integers(backend, low, high, dtype):
    x = lj.random.RandomStream(8).integers((50, 40), low, high, dtype=dtype)
    assert x.dtype == dtype and x.shape == (50, 40)
    v = x.numpy().astype(object)
    assert v.min() >= low and v.max() < high
    if high - low <= 10:
        assert set(np.unique(v)) == set(range(low, high))
    else:
        assert len(np.unique(v)) == v.size  # 2000 draws from 2**64 values


def test_permutation(backend):
    rs = lj.random.RandomStream(3)
    p1, p2, p0 = rs.permutation(50), rs.permutation(50), rs.permutation(0)
    lj.realize(p1, p2, p0)
    assert p1.dtype == np.int64 and p0.shape == (0,)
    assert sorted(p1.numpy()) == list(range(50)) == sorted(p2.numpy())
    assert (p1.numpy() != p2.numpy()).any()


@pytest.mark.parametrize("shape,want", [((), ()), (0, (0,)), (5, (5,)), ((2, 0, 3), (2, 0, 3)),
                                        ([2, 3], (2, 3))])
def test_shapes(backend, shape, want):
    rs = lj.random.RandomStream(0)
    outs = [rs.bits(shape), rs.uniform(shape), rs.normal(shape, dtype="float64"),
            rs.bernoulli(shape, 0.5), rs.integers(shape, 0, 3, dtype="int16")]
    lj.realize(*outs)
    for t, dt in zip(outs, ("uint32", "float32", "float64", "bool", "int16")):
        assert t.shape == want and t.dtype == dt and t.numpy().shape == want
    assert rs.counter == 5 * math.prod(want)


@pytest.mark.parametrize("call,msg", [
    (lambda rs: rs.uniform((2, -1)), "negative dimensions"),
    (lambda rs: rs.bits(2.5), "shape must be"),
    (lambda rs: rs.uniform(3, 1.0, 1.0), "high must be > low"),
    (lambda rs: rs.uniform(3, 0.0, float("inf")), "finite"),
    (lambda rs: rs.uniform(3, dtype="int32"), "float16, float32 or float64"),
    (lambda rs: rs.normal(3, std=-1.0), "std must be >= 0"),
    (lambda rs: rs.bernoulli(3, 1.5), r"p must be a number in \[0, 1\]"),
    (lambda rs: rs.bernoulli(3, -0.1), r"p must be a number in \[0, 1\]"),
    (lambda rs: rs.integers(3, 5, 5), "high must be > low"),
    (lambda rs: rs.integers(3, 0, 300, dtype="uint8"), "does not fit in uint8"),
    (lambda rs: rs.integers(3, 0, 2, dtype="float32"), "integer dtype"),
    (lambda rs: rs.integers(3, 0.5, 2), "must be ints"),
    (lambda rs: rs.permutation(-1), "negative dimensions"),
    (lambda rs: lj.random.RandomStream(-1), "seed must be an int"),
    (lambda rs: lj.random.philox(lj.ones(3), 0), "must be integers"),
    (lambda rs: lj.random.philox(0, 2**64), "outside"),
])
def test_bad_arguments(call, msg):
    rs = lj.random.RandomStream(0)
    with pytest.raises(lj.LazyjitError, match=msg):
        call(rs)
    assert rs.counter == 0  # a rejected draw consumes no counters


def test_jit_draws_advance_the_stream(backend):
    """Inside lj.jit the stream's counter is shared state: each call draws new numbers,
    the same as the eager draws with the same counters."""
    rs = lj.random.RandomStream(4)

    @lj.jit
    def f(x):
        return x + rs.uniform(3)

    a, b = f(np.zeros(3, np.float32)).numpy(), f(np.zeros(3, np.float32)).numpy()
    assert not np.array_equal(a, b)
    assert rs.counter == 6
    eager = lj.random.RandomStream(4).uniform(6).numpy()
    np.testing.assert_array_equal(np.concatenate([a, b]), eager)


def test_draws_in_one_jit_function_and_in_scan_steps_follow_the_stream(backend):
    """Two draws in one compiled call, or one draw per scan step, use consecutive
    counters: they equal the same draws made one after another in eager code, bit for
    bit, and the stream's counter advances through the updates."""
    ref = lj.random.RandomStream(7)
    want = [ref.normal((2,)).numpy() for _ in range(5)]
    rs = lj.random.RandomStream(7)
    a, b = lj.jit(lambda: (rs.normal((2,)), rs.normal((2,))))()
    np.testing.assert_array_equal(a.numpy(), want[0])
    np.testing.assert_array_equal(b.numpy(), want[1])
    assert rs.counter == 4
    h, updates = lj.scan(lambda h: h + rs.normal((2,)), outputs_info=lj.zeros(2, "float32"),
                         n_steps=3)
    np.testing.assert_allclose(h.numpy(), np.cumsum(want[2:], axis=0, dtype=np.float32),
                               rtol=1e-6)
    assert list(updates) == [rs.state] and rs.counter == 10
    rs.counter = 4
    f = lj.jit(lambda: lj.scan(lambda: rs.normal((2,)), n_steps=3)[0])
    np.testing.assert_array_equal(f().numpy(), np.stack(want[2:]))
    np.testing.assert_array_equal(rs.normal((2,)).numpy(), ref.normal((2,)).numpy())


def test_dropout_in_a_scan_draws_a_new_mask_per_step(backend):
    rs = lj.random.RandomStream(3)
    masks, _ = lj.scan(lambda: rs.bernoulli((1000,), 0.5), n_steps=4)
    m = masks.numpy()
    assert m.shape == (4, 1000)
    assert all(abs(r.mean() - 0.5) < 3 * 0.5 / np.sqrt(1000) for r in m)
    assert not any(np.array_equal(m[i], m[j]) for i in range(4) for j in range(i))


def test_gradient_through_a_scan_with_dropout(backend):
    """An RNN with a fresh dropout mask per step: the gradient (a reverse scan over the
    loop whose states include the stream's counter) matches finite differences taken
    with the same masks (the counter reset before each evaluation)."""
    rs = lj.random.RandomStream(11)
    xs = np.random.default_rng(0).standard_normal((4, 3))
    W0 = np.random.default_rng(1).standard_normal((3, 3)) * 0.5

    def loss(W):
        def step(x_t, h):
            return lj.tanh(x_t @ W + h) * rs.bernoulli((3,), 0.7).astype("float64") / 0.7
        hs, _ = lj.scan(step, sequences=lj.tensor(xs), outputs_info=lj.zeros(3))
        return (hs ** 2).sum()

    rs.counter = 0
    g = lj.grad(loss)(lj.tensor(W0)).numpy()
    eps = 1e-6
    for i, j in ((0, 0), (1, 2), (2, 1)):
        E = np.zeros_like(W0)
        E[i, j] = eps
        rs.counter = 0
        up = float(loss(lj.tensor(W0 + E)))
        rs.counter = 0
        down = float(loss(lj.tensor(W0 - E)))
        np.testing.assert_allclose(g[i, j], (up - down) / (2 * eps), rtol=1e-5, atol=1e-8)
    assert rs.counter == 12
