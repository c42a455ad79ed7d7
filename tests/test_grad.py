"""Derivatives against central finite differences (float64), on every backend.

``GRADS`` maps each differentiable registry op (one with ``vjp`` and ``jvp`` rules) to
cases that reach it through the public API; ``test_every_differentiable_op_has_cases``
fails when an op with a derivative rule is added without a case here.  Every case passes
``check_grads`` to order 2 in both modes (forward and reverse), with the op's own JVP
rule and, on the reference backend, with the double-VJP fallback instead.  Then: higher
order, broadcasting, indexing with repeated indices, softmax cross-entropy,
``disconnected_inputs``, ``consider_constant`` and ``grad`` inside ``lj.jit``.
"""
from __future__ import annotations

import dataclasses
import operator
import warnings

import numpy as np
import pytest

import lazyjit as lj
import lazyjit.nn.functional as nnf
from lazyjit.ops import REGISTRY

from gradcheck import GradBatch, check_grads
from helpers import graph_ops, sample
from test_nn_functional import (GEOMETRY, conv2d_grad_input_fn, conv2d_grad_weight_fn,
                                max_pool2d_grad_fn)


def G(fn, *shapes, domain="any", **kw):
    """A gradient case: ``fn`` of float64 inputs of ``shapes`` drawn from ``domain``
    (one per input when a tuple); ``kw`` goes to ``check_grads``."""
    return (fn, shapes, domain, kw)


_EYE3 = lj.tensor(np.eye(3))


def _sym(x):
    return (x + lj.linalg.matrix_transpose(x)) * 0.5


GRADS = {
    "exp": [G(lj.exp, (3, 4))],
    "log": [G(lj.log, (3, 4), domain="pos")],
    "log1p": [G(lj.log1p, (3, 4), domain="gt-1")],
    "expm1": [G(lj.expm1, (3, 4))],
    "sqrt": [G(lj.sqrt, (3, 4), domain="pos")],
    "sin": [G(lj.sin, (3, 4))],
    "cos": [G(lj.cos, (3, 4))],
    "tan": [G(lj.tan, (3, 4), domain="small")],
    "tanh": [G(lj.tanh, (3, 4))],
    "erf": [G(lj.erf, (3, 4))],
    "sigmoid": [G(lj.sigmoid, (3, 4)), G(lambda x: lj.sigmoid(x * 30), (5,))],
    "softplus": [G(lj.softplus, (3, 4)), G(lambda x: lj.softplus(x * 30), (5,))],
    "neg": [G(operator.neg, (3, 4))],
    "abs": [G(abs, (3, 4), domain="nonzero")],
    "sign": [G(lambda x: lj.sign(x) * x, (3, 4), domain="nonzero")],
    "floor": [G(lambda x: lj.floor(x) + x * x, (3, 4))],
    "ceil": [G(lambda x: lj.ceil(x) * x, (3, 4))],
    "relu": [G(lj.relu, (3, 4), domain="nonzero")],
    "arcsin": [G(lambda x: lj.arcsin(x * 0.3), (3, 4))],
    "arccos": [G(lambda x: lj.arccos(x * 0.3), (3, 4))],
    "arctan": [G(lj.arctan, (3, 4))],
    "sinh": [G(lj.sinh, (3, 4))],
    "cosh": [G(lj.cosh, (3, 4))],
    "arcsinh": [G(lj.arcsinh, (3, 4))],
    "arccosh": [G(lambda x: lj.arccosh(x + 1.0), (3, 4), domain="pos")],
    "arctanh": [G(lambda x: lj.arctanh(x * 0.3), (3, 4))],
    "log2": [G(lj.log2, (3, 4), domain="pos")],
    "log10": [G(lj.log10, (3, 4), domain="pos")],
    "exp2": [G(lj.exp2, (3, 4))],
    "cbrt": [G(lj.cbrt, (3, 4), domain="pos"), G(lambda x: lj.cbrt(x - 2.0), (3,), domain="pos")],
    "rint": [G(lambda x: lj.rint(x) * x, (3, 4))],
    "trunc": [G(lambda x: lj.trunc(x) + x * x, (3, 4))],
    "arctan2": [G(lj.arctan2, (3, 4), (3, 4)), G(lambda a: lj.arctan2(a, -1.5), (5,))],
    "hypot": [G(lj.hypot, (3, 4), (1, 4), domain="nonzero")],
    "copysign": [G(lambda a, b: lj.copysign(a, b) * b, (3, 4), (3, 4), domain="nonzero")],
    "fmod": [G(lj.fmod, (3, 4), (3, 4), domain=("any", "pos")),
             G(lambda a: lj.fmod(a, -1.5), (6,))],
    "logaddexp": [G(lj.logaddexp, (3, 4), (3, 4)), G(lambda a: lj.logaddexp(a * 40, 2.0), (5,))],
    "cast": [G(lambda x: x.astype("float32") * 3, (3, 4), eps=1e-2, rtol=1e-4, atol=1e-4),
             G(lambda x: x.astype("int32") + x, (3, 4))],
    "add": [G(operator.add, (3, 4), (3, 4)), G(lambda a, b: a + b, (3, 1), (1, 4)),
            G(lambda a: a + 2.5, (3,))],
    "sub": [G(operator.sub, (3, 4), (4,)), G(lambda a: 1 - a, (3,))],
    "mul": [G(operator.mul, (3, 4), (3, 4)), G(operator.mul, (), (2, 3)),
            G(lambda a: a * a * a, (4,))],
    "div": [G(operator.truediv, (3, 4), (3, 4), domain=("any", "nonzero")),
            G(lambda a: 2.0 / a, (3,), domain="nonzero")],
    "floordiv": [G(lambda a, b: a // b + a * b, (3, 4), (3, 4), domain=("any", "pos"))],
    "mod": [G(operator.mod, (3, 4), (3, 4), domain=("any", "pos")),
            G(lambda a: a % -1.5, (6,))],
    "pow": [G(operator.pow, (3, 4), (3, 4), domain=("pos", "any")),
            G(lambda a: a ** 3, (5,)), G(lambda a: 2.0 ** a, (5,))],
    "maximum": [G(lj.maximum, (3, 4), (3, 4)), G(lambda a: lj.maximum(a, 0.5), (3, 4))],
    "minimum": [G(lj.minimum, (3, 4), (1, 4)), G(lambda a: a.clip(-1, 1), (3, 4))],
    "where": [G(lambda a, b: lj.where(a > b, a * b, a - b), (3, 4), (3, 4)),
              G(lambda a: lj.where(a > 0, a, 0.0), (3, 4), domain="nonzero")],
    "stop_gradient": [G(lambda a, b: a * lj.stop_gradient(lj.floor(a)) + b, (3,), (3,))],
    "sum": [G(lambda x: x.sum(), (2, 3, 4)), G(lambda x: x.sum((0, 2), keepdims=True), (2, 3, 4)),
            G(lambda x: x.mean(-1), (2, 3, 4)), G(lambda x: x.var(0), (3, 4)),
            G(lambda x: x.std(1, ddof=1), (3, 4))],
    "prod": [G(lambda x: x.prod(1), (3, 4), domain="nonzero"), G(lj.prod, (5,), domain="nonzero")],
    "max": [G(lambda x: x.max(1), (3, 4)), G(lambda x: lj.max(x), (2, 3, 4)),
            G(lambda x: lj.logsumexp(x, 1), (3, 4)), G(lambda x: lj.softmax(x, 0), (3, 4)),
            G(lambda x: lj.log_softmax(x), (3, 4))],
    "min": [G(lambda x: x.min((0, 1)), (2, 3, 4)), G(lambda x: x.min(-1, keepdims=True), (3, 4))],
    "reshape": [G(lambda x: x.reshape(4, -1) * np.arange(6.0), (2, 3, 4)),
                G(lambda x: lj.expand_dims(x, 1).squeeze(), (3, 4))],
    "permute": [G(lambda x: x.T * np.arange(3.0), (3, 4)),
                G(lambda x: x.transpose(2, 0, 1).reshape(4, 6), (2, 3, 4))],
    "expand": [G(lambda x: lj.broadcast_to(x, (2, 3, 4)), (3, 1)),
               G(lambda x, y: x * y, (2, 1, 4), (3, 1))],
    "slice": [G(lambda x: x[::-2, 1:], (5, 4)), G(lambda x: x[1, ::-1], (3, 4)),
              G(lambda x: lj.split(x, [1, 3], axis=1), (2, 5))],
    "set_slice": [G(lambda x, v: lj.set_subtensor(x[1:3], v), (4, 3), (2, 3)),
                  G(lambda x, v: x.at[::-2, 0].set(v), (4, 3), ())],
    "inc_slice": [G(lambda x, v: lj.inc_subtensor(x[:, 1:], v), (4, 3), (4, 2)),
                  G(lambda x, v: x.at[1].add(v * v), (4, 3), (3,))],
    "take": [G(lambda x: x[[0, 2, 2, -1]], (4, 3)), G(lambda x: x[:, [1, 1]] * 2, (4, 3)),
             G(lambda x: x[[0, 1], [2, 2]], (4, 3)), G(lambda x: x[[-1, 0], :, [-2, 1]], (4, 2, 3)),
             G(lambda x: x[x.numpy() > 0], (4, 3)),
             G(lambda x: lj.take_along_axis(x, lj.tensor([[2, 0, 1]]), 1), (4, 3))],
    "put": [G(lambda x, v: lj.set_subtensor(x[[0, 2]], v), (4, 3), (2, 3)),
            G(lambda x, v: x.at[[1, 3], [0, 2]].set(v), (4, 3), (2,)),
            G(lambda x, v: lj.set_subtensor(x[[0, 2, 0, -2]], v * v), (4, 3), (4, 3))],
    "check": [G(lambda x: lj.debug.check(lj.exp(x), x < 10) * x, (3, 2))],
    "put_add": [G(lambda x, v: lj.inc_subtensor(x[[0, 2, 0]], v), (4, 3), (3, 3)),
                G(lambda x, v: x.at[:, [1, 1]].add(v), (4, 3), (4, 1))],
    "concat": [G(lambda a, b: lj.concatenate([a, b * b], 1), (2, 3), (2, 2)),
               G(lambda a, b: lj.stack([a, b], -1), (2, 3), (2, 3))],
    "matmul": [G(operator.matmul, (3, 4), (4, 2)), G(operator.matmul, (2, 1, 3, 4), (5, 4, 2)),
               G(operator.matmul, (4,), (4, 2)), G(operator.matmul, (3, 4), (4,)),
               G(operator.matmul, (4,), (4,)), G(lj.dot, (2, 3, 4), (4, 2)),
               G(lambda a, b: lj.tensordot(a, b, 1), (2, 3), (3, 4))],
    # linear algebra (tests/test_linalg.py has more cases): symmetric inputs where only a
    # triangle is read, shifted to be well conditioned; signs of vectors squared away
    "cholesky": [G(lambda x: lj.linalg.cholesky(_sym(x) + 3 * _EYE3), (3, 3))],
    "solve": [G(lambda a, b: lj.linalg.solve(a + 3 * _EYE3, b), (3, 3), (3, 2))],
    "slogdet": [G(lambda a: lj.linalg.slogdet(a + 3 * _EYE3)[1], (2, 3, 3))],
    "eigh": [G(lambda x: [(r := lj.linalg.eigh(_sym(x)))[0], r[1] ** 2], (3, 3))],
    "svd": [G(lambda x: [(r := lj.linalg.svd(x, full_matrices=False))[1], r[0] ** 2,
                         r[2] ** 2], (4, 3)), G(lj.linalg.svdvals, (3, 4))],
    "qr": [G(lambda x: list(lj.linalg.qr(x)), (4, 3))],
    "eig": [G(lambda x: [lj.real((r := lj.linalg.eig(x))[0]), lj.imag(r[0]),
                         lj.abs(r[1]) ** 2], (3, 3))],
    # complex values inside real functions (tests/test_complex.py and test_fft.py check
    # complex inputs against finite differences, with JAX's convention)
    "real": [G(lambda x, y: lj.real((x + 1j * y) * (x - 2j)), (3,), (3,))],
    "imag": [G(lambda x, y: lj.imag((x + 1j * y) ** 2 * y), (3,), (3,))],
    "conj": [G(lambda x, y: lj.real(lj.conj(x + 1j * y) * (x * y + 3j)), (3,), (3,))],
    "reciprocal": [G(lambda x, y: lj.imag(lj.reciprocal(x + 1j * y + 3) * (2 - 1j)), (3,),
                     (3,))],
    "fft": [G(lambda x: [lj.real(f := lj.fft.fft(x * (1 + 0.5j))), lj.imag(f)], (2, 5)),
            G(lambda x: lj.fft.irfft(lj.fft.rfft(x) * (1 + 1j), 5), (2, 5))],
    "scan": [G(lambda x, h: lj.scan(lambda a, s: lj.tanh(a * s + 0.5), sequences=x,
                                    outputs_info=h)[0], (4, 3), (3,)),
             G(lambda x, w: lj.scan(lambda a, b, s2, s1, w: [s1 * w + a * b, s1 * s2],
                                    sequences=dict(input=x, taps=[-1, 0]),
                                    outputs_info=[dict(initial=w[:2], taps=[-2, -1]), None],
                                    non_sequences=w[2])[0], (5, 2), (3, 2))],
    "ifelse": [G(lambda x, y: lj.ifelse(x.sum() > 0, lj.exp(x) * y, y * y), (3,), (3,)),
               G(lambda x, y: lj.ifelse(x.sum() < 0, [lj.exp(x), y], [x * y, y * 2])[0],
                 (3,), (3,))],
    "scan_out": [G(lambda x, h: lj.scan(lambda a, s: [s * a, a * a], sequences=x,
                                        outputs_info=[h, None])[0][1], (3, 2), (2,))],
    "conv2d": [G(lambda x, w: nnf.conv2d(x, w, **GEOMETRY), (2, 4, 5, 6), (4, 2, 2, 3)),
               G(lambda x: nnf.avg_pool2d(x, (3, 2), 2, (1, 1)), (2, 2, 5, 4))],
    "conv2d_grad_input": [G(conv2d_grad_input_fn((2, 4, 5, 6), **GEOMETRY), (2, 4, 3, 2),
                            (4, 2, 2, 3))],
    "conv2d_grad_weight": [G(conv2d_grad_weight_fn((4, 2, 2, 3), **GEOMETRY), (2, 4, 5, 6),
                             (2, 4, 3, 2))],
    "max_pool2d": [G(lambda x: nnf.max_pool2d(x, 3, (2, 1), 1), (2, 2, 5, 4))],
    "max_pool2d_grad": [G(max_pool2d_grad_fn(2, 1, 0, (1, 2)), (2, 2, 5, 4), (2, 2, 4, 2))],
}
# no gradient: integer or bool results, or integer outputs of arg-reductions
NO_VJP = {"logical_not", "invert", "isnan", "isinf", "signbit", "bitwise_and", "bitwise_or",
          "bitwise_xor", "left_shift", "right_shift", "eq", "ne", "lt", "le", "gt", "ge",
          "logical_and", "logical_or",
          "logical_xor", "argmax", "argmin", "philox", "argsort",
          "grad",  # a deferred gradient: expanded before any derivative rule sees it
          "numpy"}  # a value NumPy computed: a derivative through it raises (test_interop)



def _inputs(shapes, domain, rng):
    domains = domain if isinstance(domain, tuple) else (domain,) * len(shapes)
    return [sample(rng, s, "float64", d) for s, d in zip(shapes, domains, strict=True)]


def _op_groups(size: int = 8) -> dict[str, list[str]]:
    """The ops of ``GRADS`` by kind (elementwise, reduce, ...), in chunks of ``size``: a
    group is checked in one batch (one compile of each structure on compiled backends)."""
    groups: dict[str, list[str]] = {"complex": [op for op in GRADS if op in COMPLEX_ONLY]}
    for kind in dict.fromkeys(REGISTRY[op].kind for op in GRADS):
        ops = [op for op in GRADS if REGISTRY[op].kind == kind and op not in COMPLEX_ONLY]
        for i in range(0, len(ops), size):
            groups[f"{kind}-{i // size}" if len(ops) > size else kind] = ops[i:i + size]
    return groups


COMPLEX_ONLY = ("real", "imag", "conj", "reciprocal", "fft")  # (complex values only)
OP_GROUPS = _op_groups()


def check_ops(ops, rng, order=2, modes=("fwd", "rev"), first_only=False):
    """All cases of ``ops`` through ``check_grads`` in one batch.  With ``first_only``,
    only the first case of each op is checked to ``order``, the others to order 1."""
    batch = GradBatch()
    for op in ops:
        for i, (fn, shapes, domain, kw) in enumerate(GRADS[op]):
            check_grads(fn, _inputs(shapes, domain, rng), order if i == 0 or not first_only
                        else 1, modes, batch=batch, label=f"{op}-{i}", **kw)
    batch.run()


@pytest.mark.parametrize("group", list(OP_GROUPS))
def test_check_grads_order_2(group, backend, rng):
    """Every differentiable op to order 2 in both modes.  On compiled backends, where
    each new graph costs a C compile, the further cases of an op (broadcasting variants,
    composites) are checked to order 1; the reference backend checks all to order 2.
    The linalg ops are host steps on emulated cuda (NumPy's linalg) and their rules the
    same graphs as on cpu: test_linalg checks them there; their derivative graphs cost
    most of a minute of emulated compiles, which CI's 20 minutes cannot spare."""
    if backend == "cuda" and group == "linalg":
        pytest.skip("linalg derivatives on emulated cuda: tests/test_linalg.py")
    if backend == "cuda" and group == "complex":
        pytest.skip("complex derivatives on emulated cuda: tests/test_complex.py (CI's time)")
    check_ops(OP_GROUPS[group], rng, first_only=backend != "numpy")


@pytest.mark.parametrize("group", list(OP_GROUPS))
def test_double_vjp_fallback(group, rng, monkeypatch):
    """Forward mode with no JVP rule at all: every op's JVP is its transposed VJP
    (``lazyjit.autodiff.forward.transposed_vjp``), to order 2."""
    for name, opdef in REGISTRY.items():
        if opdef.kind not in ("loop", "branch", "select"):  # multi-result: own JVP only
            monkeypatch.setitem(REGISTRY, name, dataclasses.replace(opdef, jvp=None))
    with lj.config(backend="numpy"):
        check_ops(OP_GROUPS[group], rng, modes=("fwd",))


def test_every_differentiable_op_has_cases(rng):
    # "gemm" is made only by a rewrite, after gradients (test_rewrite checks its rules)
    differentiable = {n for n, d in REGISTRY.items() if d.vjp is not None and n != "gemm"}
    assert differentiable == {n for n, d in REGISTRY.items() if d.jvp is not None} - {"gemm"}
    assert set(GRADS) == differentiable, (differentiable - set(GRADS), set(GRADS) - differentiable)
    assert NO_VJP == set(REGISTRY) - differentiable - {"gemm"}
    for op, cases in GRADS.items():
        built = set()
        for fn, shapes, domain, _ in cases:
            out = fn(*[lj.tensor(a) for a in _inputs(shapes, domain, rng)])
            built |= graph_ops(*(out if isinstance(out, list) else [out]))
        assert op in built, f"no gradient case of {op!r} builds a {op!r} node"


def test_stop_gradient_blocks(backend):
    x = lj.tensor([1.0, 2.0, 3.0])
    g = lj.grad(lj.sum(lj.stop_gradient(x) * x), x)
    np.testing.assert_allclose(g.numpy(), [1.0, 2.0, 3.0])


def test_zero_gradients_through_floor_and_comparisons(backend):
    x = lj.tensor([0.5, 1.5, -2.5])
    g = lj.grad(lj.sum(lj.floor(x)) + lj.sum(lj.where(x > 0, 1.0, 2.0)), x)
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g.numpy(), np.zeros(3))


def test_max_splits_gradient_among_ties(backend):
    x = lj.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    np.testing.assert_allclose(lj.grad(lj.sum(lj.max(x, axis=1)), x).numpy(),
                               [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_selection_gradient_goes_to_the_nan_operand(name, backend):
    # maximum/minimum take a NaN operand's value (NumPy): its derivative goes there
    # too, in both modes; a at ties and where both are NaN
    nan = np.nan
    av, bv = np.array([nan, 1.0, nan, 2.0, 3.0]), np.array([1.0, nan, nan, 2.0, -1.0])
    a, b = lj.tensor(av), lj.tensor(bv)
    out = getattr(lj, name)(a, b)
    took_a = (np.isnan(av) | (av >= bv if name == "maximum" else av <= bv))
    np.testing.assert_array_equal(np.isnan(out.numpy()), np.isnan(getattr(np, name)(av, bv)))
    ga, gb = lj.grad(out.sum(), [a, b])
    np.testing.assert_array_equal(ga.numpy(), took_a * 1.0)
    np.testing.assert_array_equal(gb.numpy(), (~took_a) * 1.0)
    ta = lj.Rop(out, a, lj.tensor(np.full(5, 2.0)))
    tb = lj.Rop(out, b, lj.tensor(np.full(5, 3.0)))
    np.testing.assert_array_equal(ta.numpy(), took_a * 2.0)
    np.testing.assert_array_equal(tb.numpy(), (~took_a) * 3.0)


def test_new_float_function_gradients_at_their_edges(backend):
    # fmod's quotient where a / b rounds up to the next integer; arctan2 at tiny and
    # infinite arguments (a*a + b*b would underflow); hypot at an infinite result
    a, b = lj.tensor(np.array([1.0, 0.3, 7.5])), lj.tensor(np.array([0.1, 0.1, 2.0]))
    ga, gb = lj.grad(lj.fmod(a, b).sum(), [a, b])
    np.testing.assert_allclose(gb.numpy(), [-9.0, -2.0, -3.0])
    np.testing.assert_allclose(ga.numpy(), [1.0, 1.0, 1.0])
    y, x = lj.tensor(np.array([1e-200, np.inf, 1.0])), lj.tensor(np.array([1e-200, 1.0, 2.0]))
    gy, gx = lj.grad(lj.arctan2(y, x).sum(), [y, x])
    np.testing.assert_allclose(gy.numpy(), [5e199, 0.0, 0.4], rtol=1e-12)
    np.testing.assert_allclose(gx.numpy(), [-5e199, 0.0, -0.2], rtol=1e-12)
    p = lj.tensor(np.array([np.inf, 3.0]))
    (gp,) = lj.grad(lj.hypot(p, 4.0).sum(), [p])
    np.testing.assert_allclose(gp.numpy(), [0.0, 0.6])


def test_pow_gradient_at_zero_and_negative_base(backend):
    x = lj.tensor([-1.5, 0.0, 2.0])
    np.testing.assert_allclose(lj.grad(lj.sum(x ** 2), x).numpy(), [-3.0, 0.0, 4.0])
    np.testing.assert_allclose(lj.grad(lj.sum(x ** 3.0), x).numpy(), [6.75, 0.0, 12.0])
    np.testing.assert_allclose(lj.grad(lj.sum(x ** 0), x).numpy(), [0.0, 0.0, 0.0])


# --- higher order and composites ------------------------------------------------------------

SECOND_ORDER = [
    ("tanh", lambda x: lj.sum(lj.tanh(x) * x), (4,)),
    ("exp-mul", lambda x: lj.sum(lj.exp(x) * x * x), (3, 2)),
    ("log-sigmoid", lambda x: lj.sum(lj.log(lj.sigmoid(x))), (5,)),
    ("softmax", lambda x: lj.sum(lj.softmax(x) * np.arange(4.0)), (2, 4)),
    ("matmul", lambda x: lj.sum((x @ x.T) ** 2), (3, 2)),
    ("div-pow", lambda x: lj.sum(1.0 / (1.0 + x * x) ** 1.5), (4,)),
    ("index", lambda x: lj.sum(x[[0, 0, 2]] ** 3), (3,)),
]


@pytest.mark.parametrize("name,fn,shape", SECOND_ORDER, ids=[s[0] for s in SECOND_ORDER])
def test_second_order(name, fn, shape, backend, rng):
    check_grads(lambda x: lj.grad(fn(x), x), [rng.standard_normal(shape)], order=1)


def test_third_order_of_polynomial(backend):
    x = lj.tensor(2.0)
    y = x ** 4
    g3 = lj.grad(lj.grad(lj.grad(y, x), x), x)
    assert float(g3) == pytest.approx(24 * 2.0)


def test_hessian_vector_product(backend, rng):
    a = rng.standard_normal((3, 3))
    a = a @ a.T
    x, v = lj.tensor(rng.standard_normal(3)), rng.standard_normal(3)
    g = lj.grad(0.5 * lj.sum(x * (lj.tensor(a) @ x)), x)
    hv = lj.grad(lj.sum(g * v), x)
    np.testing.assert_allclose(hv.numpy(), a @ v, rtol=1e-12)


def test_softmax_cross_entropy(backend, rng):
    logits = rng.standard_normal((4, 5)) * 3
    labels = np.array([0, 4, 2, 2])
    onehot = np.eye(5)[labels]

    def loss(z):
        return -lj.mean(lj.sum(lj.log_softmax(z, axis=-1) * onehot, axis=-1))

    check_grads(loss, [logits], order=1)
    z = lj.tensor(logits)
    g = lj.grad(loss(z), z).numpy()
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(g, (p - onehot) / 4, rtol=1e-12, atol=1e-14)
    # the same loss by indexing the log-probabilities
    g2 = lj.grad(-lj.mean(lj.log_softmax(z)[np.arange(4), labels]), z).numpy()
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    # the fused function, with integer and with one-hot labels, to order 2 in both modes
    check_grads(lambda z: lj.softmax_cross_entropy(z, labels), [logits], order=2)
    g3 = lj.grad(lj.softmax_cross_entropy(z, labels).mean(), z).numpy()
    np.testing.assert_allclose(g3, g, rtol=1e-12, atol=1e-14)
    g4 = lj.grad(lj.softmax_cross_entropy(z, onehot).mean(), z).numpy()
    np.testing.assert_allclose(g4, g, rtol=1e-12, atol=1e-14)


def test_softmax_cross_entropy_gradient_finite_at_1e4(backend):
    """Logits of magnitude 1e4 in float32: finite loss and gradient (softmax - onehot)."""
    z = lj.tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 5e3]], dtype="float32")
    loss = lj.softmax_cross_entropy(z, np.array([1, 1])).sum()
    g = lj.grad(loss, z).numpy()
    np.testing.assert_allclose(g, [[1, -1, 0], [0, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(lj.softmax_cross_entropy(z, np.array([1, 1])).numpy(),
                               [2e4, 0.0], rtol=1e-6)


def test_softmax_grad_at_extremes(backend):
    z = lj.tensor([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]])
    g = lj.grad(lj.sum(lj.log_softmax(z)[:, 1]), z).numpy()
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g[0], [-1.0, 1.0, 0.0], atol=1e-12)
    e = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    np.testing.assert_allclose(g[1], [0.0, 1 - e[0], -e[1]], rtol=1e-12)


def test_grad_accumulates_through_broadcast_and_repeats(backend):
    x = lj.tensor([1.0, 2.0, 3.0])
    y = lj.sum(lj.broadcast_to(x, (4, 3)) * 2.0) + lj.sum(x[[0, 0, 0, 2]])
    np.testing.assert_allclose(lj.grad(y, x).numpy(), [8 + 3, 8, 8 + 1])


def test_grad_of_inc_subtensor_wrt_both(backend):
    x, v = lj.tensor(np.zeros((3, 2))), lj.tensor([[1.0, 2.0], [3.0, 4.0]])
    w = np.arange(6.0).reshape(3, 2)
    y = lj.sum(lj.inc_subtensor(x[[2, 2]], v) * w)
    gx, gv = lj.grad(y, [x, v])
    np.testing.assert_allclose(gx.numpy(), w)
    np.testing.assert_allclose(gv.numpy(), [w[2], w[2]])
    gx, gv = lj.grad(lj.sum(lj.set_subtensor(x[1:], v) * w), [x, v])
    np.testing.assert_allclose(gx.numpy(), [w[0], [0, 0], [0, 0]])
    np.testing.assert_allclose(gv.numpy(), w[1:])


def test_grad_wrt_intermediate_and_realized(backend):
    x = lj.tensor([1.0, 2.0])
    h = x * 3.0
    y = lj.sum(h * h)
    gh, gx = lj.grad(y, [h, x])
    np.testing.assert_allclose(gh.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(gx.numpy(), [18.0, 36.0])
    h.numpy()  # realized: still differentiable
    np.testing.assert_allclose(lj.grad(y, x).numpy(), [18.0, 36.0])


# --- disconnected inputs, constants, callables ------------------------------------------------

def test_disconnected_inputs(backend):
    x, z = lj.tensor([1.0, 2.0]), lj.tensor([[5.0]])
    cost = lj.sum(x * x)
    with pytest.raises(lj.DisconnectedInputError, match="disconnected"):
        lj.grad(cost, z)
    with pytest.raises(lj.DisconnectedInputError):
        lj.grad(cost, [x, z])
    gx, gz = lj.grad(cost, [x, z], disconnected_inputs="ignore")
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0])
    assert gz.shape == (1, 1) and gz.dtype == np.float64
    np.testing.assert_array_equal(gz.numpy(), [[0.0]])
    with pytest.warns(UserWarning, match="disconnected"):
        gz = lj.grad(cost, z, disconnected_inputs="warn")
    np.testing.assert_array_equal(gz.numpy(), [[0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lj.grad(cost, z, disconnected_inputs="ignore")
    with pytest.raises(ValueError):
        lj.grad(cost, x, disconnected_inputs="sometimes")


def test_consider_constant(backend):
    x = lj.tensor([1.0, 2.0])
    h = x * x
    y = lj.sum(h * x)
    np.testing.assert_allclose(lj.grad(y, x).numpy(), [3.0, 12.0])
    np.testing.assert_allclose(lj.grad(y, x, consider_constant=[h]).numpy(), [1.0, 4.0])


def test_grad_of_callable_and_value_and_grad(backend):
    def f(a, b):
        return lj.sum(a * a * b)

    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(lj.grad(f)(a, b).numpy(), 2 * a * b)
    ga, gb = lj.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(gb.numpy(), a * a)
    value, g = lj.value_and_grad(f, argnums=1)(a, b)
    assert float(value) == pytest.approx(19.0)
    np.testing.assert_allclose(g.numpy(), a * a)
    # JAX's spelling: grad(f, 1) is argnums (it was read as Theano's wrt, and ignored)
    def h(a, b):
        return lj.sum(lj.sin(a) * b * b)
    np.testing.assert_allclose(lj.grad(h, 1)(a, b).numpy(), 2 * np.sin(a) * b)
    ga, gb = lj.grad(h, (0, 1))(a, b)
    np.testing.assert_allclose(ga.numpy(), np.cos(a) * b * b)
    with pytest.raises(TypeError, match="argnums"):
        lj.grad(h, [lj.tensor(a)])


def test_grad_inside_jit(backend, rng):
    @lj.jit
    def step(w, x, y):
        loss = lj.mean((x @ w - y) ** 2)
        return loss, lj.grad(loss, w)

    w, x, y = rng.standard_normal(3), rng.standard_normal((5, 3)), rng.standard_normal(5)
    loss, g = step(w, x, y)
    r = x @ w - y
    assert float(loss) == pytest.approx(np.mean(r ** 2), rel=1e-12)
    np.testing.assert_allclose(g.numpy(), 2 * x.T @ r / 5, rtol=1e-12)
    before = lj.stats()["trace_cache_hits"]
    loss2, g2 = step(w * 2, x, y)
    assert lj.stats()["trace_cache_hits"] == before + 1
    np.testing.assert_allclose(g2.numpy(), 2 * x.T @ (x @ (w * 2) - y) / 5, rtol=1e-12)


def test_jit_of_grad_function(backend, rng):
    f = lj.jit(lj.grad(lambda x: lj.sum(lj.sin(x) * x)))
    x = rng.standard_normal(4)
    np.testing.assert_allclose(f(x).numpy(), np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_float32_gradients_keep_dtype(backend):
    x = lj.tensor(np.array([0.5, -1.0], np.float32))
    g = lj.grad(lj.sum(lj.exp(x) * 2.0 + x.astype("float64")), x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.numpy(), np.exp([0.5, -1.0]) * 2 + 1, rtol=1e-6)


def test_a_constant_argument_is_a_variable_of_its_own(backend):
    """Found by a new-user trial: ``lj.grad(fn)(lj.ones(3))`` differentiated the node
    that hash-consing shares with every equal constant, ``fn``'s own ``lj.ones(3)``
    included (d/dx sum(x * ones(3)) gave 2), and a jitted function of it gave zeros
    where it must raise (derivatives do not go through a jit call)."""
    np.testing.assert_array_equal(
        lj.grad(lambda x: (x * lj.ones(3)).sum())(lj.ones(3)).numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(
        lj.jacobian(lambda x: x * lj.zeros(3) + x)(lj.zeros(3)).numpy(), np.eye(3))
    _, tangent = lj.jvp(lambda x: (x * lj.ones(3)).sum(), (lj.ones(3),), (lj.ones(3),))
    assert float(tangent) == 3.0
    squares = lj.jit(lambda y: (y * y).sum())
    with pytest.raises(lj.LazyjitError, match="jit"):
        lj.grad(lambda x: squares(x))(lj.zeros(3))
    np.testing.assert_array_equal(lj.jit(lj.grad(squares))(lj.ones(3)).numpy(), [2.0] * 3)
    p = lj.vector("p")  # (sizes known only at a call: no value to hold, a node of its own)
    f = lj.function([p], lj.grad(lambda w: (w * lj.ones(p.shape) * p).sum())(lj.ones(p.shape)))
    np.testing.assert_array_equal(f(np.arange(4.0)), np.arange(4.0))
    g = lj.jit(lambda x: lj.grad(lambda w: (w * x).sum())(lj.zeros(x.shape)), dynamic=True)
    for n in (3, 5):
        np.testing.assert_array_equal(g(np.arange(float(n))).numpy(), np.arange(float(n)))
