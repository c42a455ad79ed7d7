"""``lj.fft`` against ``numpy.fft`` on every backend (complex and real inputs, float32 and
float64, integers promoted, odd and even lengths, ``n`` padding and truncating, axes,
the three norms, length 1), NumPy's errors, compiled once per shape, inside ``scan``;
and derivatives of real losses against finite differences in both modes (JAX's
convention for complex cotangents), to order 2 on the reference backend."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from helpers import Case, assert_same
from test_complex import check_real_loss, check_second_order

_R = np.random.default_rng(5)
_X = _R.standard_normal((3, 5, 6))
_Z = _X + 1j * _R.standard_normal((3, 5, 6))


# the fft primitive's cases of tests/test_ops.py's table
OP_CASES = {"fft": [Case(f"fft-{f}", getattr(lj.fft, f), getattr(np.fft, f), values=(a,),
                         extra={"complex": True})
                    for f, a in (("fft", _Z), ("ifft", _Z[0]), ("rfft", _X[:, 0]),
                                 ("irfft", _Z), ("rfft", _X.astype(np.float32)))]}


def _cases():
    x32, z64 = _X.astype(np.float32), _Z.astype(np.complex64)
    ints = np.arange(7, dtype=np.int32)
    out = []
    for norm in (None, "ortho", "forward"):
        out += [("fft", (_Z,), dict(norm=norm)), ("ifft", (_Z,), dict(axis=1, norm=norm)),
                ("rfft", (_X,), dict(norm=norm)), ("irfft", (_Z[..., :4],), dict(norm=norm)),
                ("hfft", (_Z[..., :4],), dict(n=7, norm=norm)),
                ("ihfft", (_X,), dict(norm=norm)), ("fftn", (_Z,), dict(norm=norm)),
                ("irfftn", (_Z,), dict(axes=(0, 2), norm=norm))]
    out += [("fft", (_X,), dict(n=4, axis=0)), ("fft", (_Z,), dict(n=9)), ("fft", (ints,), {}),
            ("fft", (z64,), {}), ("rfft", (x32,), dict(n=7, axis=1)), ("rfft", (ints,), {}),
            ("irfft", (_Z,), dict(n=9)), ("irfft", (_Z,), dict(n=3, axis=0)),
            ("irfft", (z64,), {}), ("ifftn", (_Z,), dict(s=(2, 8), axes=(0, 2))),
            ("rfftn", (_X,), {}), ("rfft2", (x32,), {}), ("fft2", (_X,), dict(s=(4, 4))),
            ("ifft2", (_Z,), {}), ("irfft2", (_Z,), dict(s=(5, 5))),
            ("fft", (_Z[..., :1],), {}), ("irfft", (_Z[..., :1],), dict(n=1)),
            ("fftshift", (_X,), {}), ("ifftshift", (_X,), dict(axes=1)),
            ("fftshift", (np.arange(7),), dict(axes=0))]
    return out


def test_values_match_numpy(backend):
    cases = _cases()
    outs = [getattr(lj.fft, f)(*[lj.tensor(a) for a in args], **kw) for f, args, kw in cases]
    lj.realize(*outs)
    for (f, args, kw), out in zip(cases, outs):
        expected = getattr(np.fft, f)(*args, **kw)
        single = expected.dtype in (np.complex64, np.float32)
        assert_same(out, expected, rtol=1e-5 if single else 1e-10,
                    atol=1e-5 if single else 1e-10)


def test_frequencies(backend):
    for n, d in ((1, 1.0), (8, 0.1), (9, 2.5)):
        assert_same(lj.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
        assert_same(lj.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    assert_same(lj.fft.fftfreq(4, dtype=np.float32), np.fft.fftfreq(4).astype(np.float32))


def test_errors():
    z = lj.tensor(_Z)
    for fn in (lambda: lj.fft.fft(z, n=0), lambda: lj.fft.fft(lj.zeros((2, 0))),
               lambda: lj.fft.fft(z, norm="both"), lambda: lj.fft.fft(z, axis=3),
               lambda: lj.fft.irfft(z, n=0), lambda: lj.fft.fftn(z, s=(2,), axes=(0, 1)),
               lambda: lj.fft.fftfreq(0)):
        with pytest.raises(ValueError):
            fn()
    with pytest.raises(TypeError):
        lj.fft.rfft(z)
    with pytest.raises(NotImplementedError, match="symbolic"):  # (a symbolic length
        lj.jit(lambda x: lj.fft.fft(x, n=x.shape[0] + 1), dynamic=True)(  # to pad to)
            lj.tensor(_Z[0, 0]))


def test_along_a_symbolic_axis(backend):
    """Transforms of an axis whose size is known only at each call (``dynamic=True``):
    one trace for every length, derivatives included."""
    rng = np.random.default_rng(2)
    fns = {"fft": lambda x: lj.fft.fft(x * 2),
           "rfft": lambda x: lj.fft.rfft(x, axis=0),
           "irfft": lambda x: lj.fft.irfft(lj.fft.rfft(x) * 1j, norm="ortho"),
           "grad": lj.grad(lambda x: lj.sum(lj.abs(lj.fft.rfft(x)) ** 2 * 0.5))}
    wants = {"fft": lambda x: np.fft.fft(x * 2), "rfft": lambda x: np.fft.rfft(x, axis=0),
             "irfft": lambda x: np.fft.irfft(np.fft.rfft(x) * 1j, norm="ortho"),
             "grad": lambda x: lj.grad(lambda t: lj.sum(lj.abs(lj.fft.rfft(t)) ** 2 * 0.5))(
                 lj.tensor(x)).numpy()}
    jitted = {k: lj.jit(f, dynamic=True) for k, f in fns.items()}
    traces = lj.stats()["traces"]
    for n in (5, 8, 13):
        x = rng.standard_normal((3, n))
        for k, f in jitted.items():
            np.testing.assert_allclose(f(lj.tensor(x)).numpy(), wants[k](x), atol=1e-12,
                                       err_msg=f"{k} {n}")
    assert lj.stats()["traces"] - traces == len(jitted)


def test_compiled_once_per_shape_and_in_scan():
    with lj.config(backend="cpu"):
        f = lj.jit(lambda x: lj.abs(lj.fft.rfft(x)).sum(axis=-1))
        f(lj.tensor(_X)).numpy()
        before = lj.stats()["compiles"]
        got = f(lj.tensor(_X * 2)).numpy()
        assert lj.stats()["compiles"] == before
        np.testing.assert_allclose(got, np.abs(np.fft.rfft(_X * 2)).sum(axis=-1), rtol=1e-12)
        # a transform per step of a compiled loop (the callback from the loop's body)
        ys, _ = lj.scan(lambda row, acc: acc + lj.real(lj.fft.fft(row * acc)),
                        sequences=lj.tensor(_X[0]), outputs_info=lj.ones(6))
        acc, want = np.ones(6), []
        for row in _X[0]:
            acc = acc + np.real(np.fft.fft(row * acc))
            want.append(acc)
        np.testing.assert_allclose(ys.numpy(), np.array(want), rtol=1e-10)


LOSSES = {
    "fft": lambda m, z, x: m.sum(m.abs(m.fft.fft(z * x)) ** 2),
    "ifft_ortho": lambda m, z, x: m.sum(m.real(m.fft.ifft(z, n=7, norm="ortho") * z[..., :1])),
    "rfft": lambda m, z, x: m.sum(m.imag(r := m.fft.rfft(x * m.real(z))) * m.arange(r.shape[-1])),
    "rfft_odd": lambda m, z, x: m.sum(m.abs(m.fft.rfft(x, n=5, norm="forward"))),
    "irfft_even": lambda m, z, x: m.sum(m.fft.irfft(z[..., :4]) * x),
    "irfft_odd": lambda m, z, x: m.sum(m.fft.irfft(z, n=7) ** 2),
    "fftn": lambda m, z, x: m.sum(m.abs(m.fft.fftn(z, axes=(0, 1)))),
    "hfft": lambda m, z, x: m.sum(m.fft.hfft(z[..., :3], n=5) * x[..., :5]),
    "axis0": lambda m, z, x: m.sum(m.abs(m.fft.rfft(x, axis=0)))
    + m.sum(m.fft.irfft(z, n=3, axis=0) * x[:1]),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients_both_modes(backend, name):
    if backend == "cuda" and name not in ("fft", "rfft"):
        pytest.skip("FFTs are NumPy host steps on emulated cuda: two losses check the "
                    "kernels around them (CI's time)")
    check_real_loss(LOSSES[name], (_Z[:2, 0], _X[:2, 0]))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft_odd"])
def test_second_order(name):
    check_second_order(LOSSES[name], (_Z[:1, 0, :4], _X[:1, 0, :4]))


def test_numpy_functions_on_tensors():
    t = lj.tensor(_Z[0])
    for got, want in ((np.fft.fft(t, axis=0), np.fft.fft(_Z[0], axis=0)),
                      (np.fft.irfft(t, 7), np.fft.irfft(_Z[0], 7)),
                      (np.conj(t), np.conj(_Z[0])), (np.abs(t), np.abs(_Z[0])),
                      (np.real(t), np.real(_Z[0])), (np.angle(t), np.angle(_Z[0]))):
        assert isinstance(got, lj.Tensor)
        assert_same(got, want)


def test_numpy_dtype_and_length_rules():
    h = np.ones(3, np.float16)
    assert_same(lj.fft.irfft(lj.tensor(h)), np.fft.irfft(h))
    assert_same(lj.fft.hfft(lj.tensor(h)), np.fft.hfft(h))
    assert_same(lj.fft.fftn(lj.tensor(_X[0]), s=(-1, 2), axes=(0, 1)),
                np.fft.fftn(_X[0], s=(-1, 2), axes=(0, 1)))
