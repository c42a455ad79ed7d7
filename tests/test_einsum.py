"""``lj.einsum`` against ``np.einsum`` on every backend (explicit and implicit forms,
``...`` broadcasting, diagonals, size-1 broadcasting, several operands, ints and
floats, empty axes), its errors, and its gradients against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import lazyjit as lj

from gradcheck import GradBatch, check_grads
from helpers import assert_same

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ij", [(3, 4)]), ("ji", [(3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("ij,ij->ij", [(1, 4), (3, 4)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]), ("ij,j->i", [(3, 4), (4,)]),
    ("i,ij,jk->k", [(3,), (3, 4), (4, 5)]), ("abc,cd,bd->a", [(2, 3, 4), (4, 6), (3, 6)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]), ("ij,jk->ik", [(3, 0), (0, 5)]), ("i->", [(1,)]),
    ("ab,ba->", [(3, 4), (4, 3)]), ("...", [(2, 3)]), ("b...,b...->...b", [(2, 3, 4), (2, 3, 4)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_against_numpy(dtype, backend, rng):
    got, want = [], []
    for sub, shapes in CASES:
        ops = [(rng.standard_normal(s) * 3).astype(dtype) for s in shapes]
        got.append(lj.einsum(sub, *[lj.tensor(o) for o in ops]))
        want.append(np.einsum(sub, *ops))
    lj.realize(*got)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-4 if dtype == "float32" else None)


def test_mixed_dtypes_promote(backend):
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((3, 2), np.float32)
    assert_same(lj.einsum("ij,jk->ik", lj.tensor(a), lj.tensor(b)), np.einsum("ij,jk->ik", a, b))


def test_errors():
    x = lj.tensor(np.ones((2, 3)))
    for sub, args, match in [("ij,jk->ik", (x,), "1 operands"), ("ij,jk", (x, x), "sizes 3 and 2"),
                             ("i1", (x,), "invalid subscripts"), ("ijk", (x,), "2 dimensions"),
                             ("ij->k", (x,), "output subscript 'k'"),
                             ("ij->ii", (x,), "output subscript 'i'"),
                             ("i...->i", (x,), "'...' axes must appear in the output")]:
        with pytest.raises(lj.LazyjitError, match=match):
            lj.einsum(sub, *args)


def test_gradients(backend, rng):
    batch = GradBatch()
    order = 2 if backend == "numpy" else 1
    cases = [("ij,jk->ik", [(3, 4), (4, 2)]), ("ii->i", [(3, 3)]), ("bij,bjk->bik", [(2, 3, 4),
             (2, 4, 2)]), ("i,ij,jk->k", [(3,), (3, 4), (4, 2)]), ("...i,...i->...", [(2, 1, 3),
             (4, 3)]), ("ij,ij->", [(3, 4), (3, 4)])]
    for sub, shapes in cases:
        check_grads(lambda *xs, sub=sub: lj.einsum(sub, *xs),
                    [rng.standard_normal(s) for s in shapes], order, batch=batch, label=sub)
    batch.run()


def test_contracted_index_of_sizes_known_at_each_call(backend):
    # an index whose sizes are symbols of two operands is required equal at each call,
    # as matmul's inner sizes are (found by a fuzzing helper: a LazyjitError when built)
    x, w = lj.matrix("x"), lj.matrix("w")
    f = lj.function([x, w], lj.einsum("ij,jk->ik", x, w))
    rng = np.random.default_rng(0)
    for n in (3, 5):
        a, b = rng.standard_normal((4, n)), rng.standard_normal((n, 2))
        np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-12)
    with pytest.raises(lj.LazyjitError, match="must equal"):
        f(np.ones((4, 3)), np.ones((2, 2)))
    g = lj.jit(lambda a, b: lj.einsum("ij,jk->ik", a, b), dynamic=True)
    np.testing.assert_allclose(g(np.ones((5, 4)), np.ones((4, 4))).numpy(), np.full((5, 4), 4.0))
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(g(a, b).numpy(), a @ b, rtol=1e-12)
