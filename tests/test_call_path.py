"""The fast path of a call (issue 13, the cost of a call): ``@lj.jit`` given realized
tensors or NumPy arrays, ``lj.function`` given NumPy arrays, and the cpu backend's
blocks kept between small calls.  What the shortcuts must not change: outputs never
alias inputs or outputs still held, arguments that need a copy or a check still get it."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import lazyjit as lj


def test_kept_blocks_never_overwrite_an_output_still_held(backend):
    """A small call reuses its blocks only once nothing holds its outputs."""
    f = lj.jit(lambda x: x * 2 + 1)
    x = np.arange(10, dtype=np.float32)
    held = [f(x).numpy() for _ in range(3)] + [f(lj.tensor(x)).numpy()]
    views = [f(x).numpy()[2:] for _ in range(2)]  # a view holds its block
    f(x + 1)
    for h in held:
        np.testing.assert_array_equal(h, x * 2 + 1)
        assert not h.flags.writeable
    for v in views:
        np.testing.assert_array_equal(v, (x * 2 + 1)[2:])
    a, b = f(x), f(x)
    assert not np.may_share_memory(a.numpy(), b.numpy())


def test_numpy_arguments_take_the_fast_path_only_when_read_in_place(backend):
    """Arrays of another layout, byte order or an unsupported dtype are converted, as
    before; outputs never alias the caller's array, even one returned as is."""
    f = lj.jit(lambda x: x * 2)
    ident = lj.jit(lambda x: x)
    x = np.arange(12, dtype=np.float32)
    np.testing.assert_array_equal(f(x), x * 2)
    np.testing.assert_array_equal(f(x.reshape(3, 4).T.copy().T.reshape(12)), x * 2)
    strided = np.arange(24, dtype=np.float32)[::2]
    np.testing.assert_array_equal(f(strided), strided * 2)
    swapped = x.astype(">f4")
    np.testing.assert_array_equal(f(swapped), x * 2)
    for _ in range(2):
        out = ident(x).numpy()
        assert not np.may_share_memory(out, x) and not out.flags.writeable
    hits = lj.stats()["trace_cache_hits"]
    f(x)
    assert lj.stats()["trace_cache_hits"] == hits + 1


def test_function_fast_path_still_checks_arguments(backend):
    """After a call of one signature, other dtypes, ranks, known sizes and counts still
    raise or are converted as the first call would."""
    x = lj.vector("x", dtype="float32", shape=(4,))
    f = lj.function([x], x * 2 + 1)
    a = np.arange(4, dtype=np.float32)
    for _ in range(2):
        out = f(a)
        np.testing.assert_array_equal(out, a * 2 + 1)
        assert not np.may_share_memory(out, a) and not out.flags.writeable
    with pytest.raises(lj.LazyjitError, match="lossy"):
        f(a.astype(np.float64))
    np.testing.assert_array_equal(f(a.astype(np.int8)), a * 2 + 1)
    with pytest.raises(lj.LazyjitError, match="known size"):
        f(np.arange(5, dtype=np.float32))
    with pytest.raises(lj.LazyjitError, match="1-d"):
        f(a.reshape(2, 2))
    with pytest.raises(lj.LazyjitError, match="expected 1 arguments"):
        f(a, a)
    np.testing.assert_array_equal(f(lj.tensor(a)), a * 2 + 1)
    np.testing.assert_array_equal(f(list(a)), a * 2 + 1)


def test_function_fast_path_reads_shared_variables_and_applies_updates(backend):
    w = lj.shared(np.ones(3, np.float32), "w")
    x = lj.vector("x", dtype="float32", shape=(3,))
    f = lj.function([x], x * w, updates=[(w, w + 1)])
    a = np.ones(3, dtype=np.float32)
    got = [f(a)[0] for _ in range(3)]
    assert got == [1.0, 2.0, 3.0]
    w.set_value(np.full(3, 10, np.float32))
    assert f(a)[0] == 10.0


def test_small_calls_in_threads_never_share_blocks():
    """Two threads calling one small plan: each result is its own call's."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    f = lj.jit(lambda x: x * 2 + 1)
    errors = []

    def work(k):
        x = np.full(10, k, dtype=np.float32)
        try:
            for _ in range(2000):
                out = f(x).numpy()
                if not (out == 2 * k + 1).all():
                    errors.append((k, out.copy()))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[:3]


# --- eager realize from structural keys (issue 16) -----------------------------------------

def _walks(monkeypatch) -> list:
    """Count the graph walks (``collect``) of realizes from here on."""
    realize = sys.modules["lazyjit.engine.realize"]
    walks = []
    collect = realize.collect

    def counting(nodes, *args, **kwargs):
        walks.append(len(nodes))
        return collect(nodes, *args, **kwargs)
    monkeypatch.setattr(realize, "collect", counting)
    return walks


def test_eager_step_of_a_known_structure_walks_no_graph(backend, rng, monkeypatch):
    """A realize whose outputs have the structure of one realized before finds its plan
    from the outputs' structural keys: the graph is not walked, the values are right."""
    walks = _walks(monkeypatch)
    w = lj.tensor(rng.standard_normal((4, 3)).astype(np.float32))
    for _ in range(4):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        y = lj.tanh(lj.tensor(x) @ w + 1.0)
        loss = (y * y).sum()
        new_w = w - 0.1 * y.sum()
        lj.realize(y, loss, new_w)  # (as a training step: a new leaf for w each time)
        want = np.tanh(x @ np.asarray(w) + 1.0)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(float(loss), (want * want).sum(), rtol=1e-5)
        np.testing.assert_allclose(new_w.numpy(), np.asarray(w) - 0.1 * want.sum(),
                                   rtol=1e-5)
        w = new_w
    assert walks == [3]  # the first step only


def test_structural_keys_tell_apart_what_reads_which_input(backend, monkeypatch):
    """x + y, x + x, y + x and y - x have different keys: each gets its own plan and
    its own inputs, in the right order."""
    x = lj.tensor(np.array([1.0, 2.0], np.float32))
    y = lj.tensor(np.array([10.0, 20.0], np.float32))
    for _ in range(2):  # (the second time from the keys)
        np.testing.assert_array_equal((x + y).numpy(), [11, 22])
        np.testing.assert_array_equal((x + x).numpy(), [2, 4])
        np.testing.assert_array_equal((y - x).numpy(), [9, 18])
        np.testing.assert_array_equal((x - y).numpy(), [-9, -18])
        np.testing.assert_array_equal((y + x * y).numpy(), [20, 60])
        a, b = x * 2, y - x
        lj.realize(b, a)
        np.testing.assert_array_equal(a.numpy(), [2, 4])
        np.testing.assert_array_equal(b.numpy(), [9, 18])


def test_a_value_computed_after_its_user_was_built_walks_the_graph(backend, monkeypatch):
    """Once a node of a graph has been computed (printed), the graphs built on it
    before are realized by a walk of the graph, which reads the computed value."""
    (lj.exp(lj.tensor(np.ones(4, np.float32))) * 2 + 1).numpy()  # (a known structure)
    x = lj.tensor(np.arange(4, dtype=np.float32))
    a = lj.exp(x) * 2
    b = a + 1
    a.numpy()
    walks = _walks(monkeypatch)
    np.testing.assert_allclose(b.numpy(), np.exp(np.arange(4)) * 2 + 1, rtol=1e-6)
    assert walks == [1]


def test_a_realized_value_is_freed_with_its_last_reference(backend):
    """Leaves keep no reference to themselves: the value goes when the tensor does
    (without the cycle collector), so the cpu backend's pool gets its memory back."""
    import gc
    import weakref
    x = lj.tensor(np.ones(1000, np.float32))
    gc.disable()
    try:
        y = (x * 3).realize()
        node = weakref.ref(y.node)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_random_programs_from_structural_keys(backend, monkeypatch):
    """Random expressions over three inputs (sharing subexpressions, reading an input
    twice, constants), each realized for three sets of input values: the second and
    third realizes take their plan from the structural keys; every value is NumPy's."""
    walks = _walks(monkeypatch)
    gen = np.random.default_rng(16)
    ops = [(lambda a, b: a + b), (lambda a, b: a - b), (lambda a, b: a * b),
           (lambda a, b: a * 0.5 - b), (lambda a, b: lj.maximum(a, b)),
           (lambda a, b: -a), (lambda a, b: a + 2.0)]
    np_ops = [(lambda a, b: a + b), (lambda a, b: a - b), (lambda a, b: a * b),
              (lambda a, b: a * np.float32(0.5) - b), (lambda a, b: np.maximum(a, b)),
              (lambda a, b: -a), (lambda a, b: a + np.float32(2.0))]
    for _ in range(40):
        program = [(int(gen.integers(len(ops))), int(gen.integers(3 + i)),
                    int(gen.integers(3 + i))) for i in range(int(gen.integers(1, 7)))]
        outs = sorted({int(gen.integers(3, 3 + len(program))) for _ in range(2)})
        for _ in range(3):
            values = [gen.standard_normal(4).astype(np.float32) for _ in range(3)]
            lazy = [lj.tensor(v) for v in values]
            want = list(values)
            for op, i, j in program:
                lazy.append(ops[op](lazy[i], lazy[j]))
                want.append(np_ops[op](want[i], want[j]))
            lj.realize(*[lazy[k] for k in outs])
            for k in outs:
                np.testing.assert_allclose(lazy[k].numpy(), want[k], rtol=1e-6, atol=1e-6)
    assert len(walks) < 40 * 3 / 2  # (most realizes found their plan without a walk)


def test_a_literal_given_a_value_is_read_as_an_input(backend):
    """A 0-d literal (``lj.full((), v)`` is the literal's own node) that has been given
    a value is an input of later traces, and never numbered as the literal itself: a
    plan of the literal as a constant is never run on it, nor the other way round."""
    np.testing.assert_array_equal((lj.full((), 3.0) * 2.0).numpy(), 6.0)
    np.testing.assert_array_equal(lj.full((), 2.0).numpy(), 2.0)  # the literal 2.0, valued
    np.testing.assert_array_equal((lj.full((), 3.0) * 2.0).numpy(), 6.0)
    np.testing.assert_array_equal(lj.full((), 2.0).numpy(), 2.0)
    np.testing.assert_array_equal((lj.asarray(np.arange(3.0)) * 2.0).numpy(), [0, 2, 4])
    for _ in range(3):
        y = (lj.ones((1000,)) * lj.full((), 3.0)).numpy()
        np.testing.assert_array_equal(y[:2], [3, 3])
        np.testing.assert_array_equal(lj.full((), 3.0).numpy(), 3.0)
    v = np.float32(2.5)
    t = lj.full((), v)
    t.numpy()
    np.testing.assert_array_equal(lj.full((4,), v).numpy(), [2.5] * 4)
    x = lj.asarray(np.float32(9.0))
    np.testing.assert_array_equal(lj.broadcast_to(x, (4,)).numpy(), [9.0] * 4)
    del t
    np.testing.assert_array_equal(lj.full((4,), v).numpy(), [2.5] * 4)


def test_keys_of_a_sum_of_many_leaves_stay_small(backend):
    """A node reading more than MAX_INS inputs has no key (it is realized by a walk):
    keys never grow with the graph (a sum of N leaves would hold N^2 references)."""
    node_mod = sys.modules["lazyjit.trace.node"]
    xs = [lj.tensor(np.float32(i)) for i in range(3 * node_mod.MAX_INS)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    assert total.node.ins is None
    np.testing.assert_allclose(float(total), sum(range(len(xs))))
