"""The optional C extension ``lazyjit._speedups`` does what the Python loops it replaces
do: every case runs with it and without it (the cpu backend's ``NATIVE`` set to None),
against NumPy, with the same outputs, read-only flags, kept and shared blocks,
donated inputs, errors, creation sites, and nodes' structural keys."""
from __future__ import annotations

import gc
import importlib
import operator
import os
import sys
import time
import types

import numpy as np
import pytest

import lazyjit as lj
from lazyjit import errors, speedups
from lazyjit.backends.cpu import backend
from lazyjit.api import memo
from lazyjit.autodiff import reverse
from lazyjit.engine import jit, realize
from lazyjit.engine.realize import plan_for
from lazyjit.trace import node, through
from lazyjit.speedups import NATIVE
from lazyjit.trace.graph import collect, reachable

MODES = ["python"] + (["C"] if NATIVE is not None else [])


@pytest.fixture(params=MODES)
def mode(request, tmp_path, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(backend, "NATIVE", None)
        monkeypatch.setattr(jit, "NATIVE", None)
        monkeypatch.setattr(node, "creation_site", errors.walk_stack)
        monkeypatch.setattr(node, "_structure", node.structure_py)
        monkeypatch.setattr(node.Node, "make", staticmethod(node.make_py))
        monkeypatch.setattr(node.Node, "leaf", staticmethod(node.leaf_py))
        monkeypatch.setattr(node, "make_group", node.make_group_py)
        monkeypatch.setattr(reverse, "make_group", node.make_group_py)
        monkeypatch.setattr(through, "_reach", through.reach_py)
        monkeypatch.setattr(realize, "_structural_key", realize.structural_key_py)
        monkeypatch.setattr(realize, "NATIVE", None)  # (_leaves_py)
    memo.ON[0] = request.param != "python"  # (replays of API functions: C only)
    try:
        with lj.config(backend="cpu", cache_dir=str(tmp_path / "cache")):
            yield request.param
    finally:
        memo.ON[0] = True


def read_only(a: np.ndarray) -> bool:
    return not a.flags.writeable


def test_small_program_keeps_its_blocks_only_while_free(mode):
    """A small program's blocks are reused by the next call once its outputs are gone,
    and not while an output is still held (its values never change under the caller)."""
    x = np.arange(10, dtype=np.float32)
    f = lj.jit(lambda a: a * 2 + 1)
    first = f(x).numpy()
    second = f(x + 1).numpy()  # (first still held: new blocks)
    np.testing.assert_array_equal(first, x * 2 + 1)
    np.testing.assert_array_equal(second, (x + 1) * 2 + 1)
    assert read_only(first) and read_only(second)
    del first, second
    for k in range(3):  # (each call's output dropped: the same blocks, re-read)
        np.testing.assert_array_equal(f(x + k).numpy(), (x + k) * 2 + 1)


def test_larger_program_keeps_its_intermediates_not_its_outputs(mode, rng):
    """A program whose intermediates exceed a small one's blocks keeps them between calls
    (the same arrays, within the pool's budget), while every output is a new array: an
    output held from one call keeps its values through the next, on every path (held,
    dropped, views of it kept)."""
    from lazyjit.backends.cpu import pool
    xn = rng.standard_normal((96, 64)).astype(np.float32) * 0.1
    wn = rng.standard_normal((64, 64)).astype(np.float32) * 0.1
    f = lj.jit(lambda x, w: (lj.tanh(x @ w) @ w, lj.exp(x @ w).sum(axis=0)))
    want = [(np.tanh((xn + k) @ wn) @ wn, np.exp((xn + k) @ wn).sum(axis=0))
            for k in range(4)]
    held, views = [], []
    for k in range(4):
        a, b = f(xn + k, wn)
        held.append((a.numpy(), b.numpy()))
        views.append(a.numpy()[1:, :3])
        if k == 1:
            del held[0]  # (an output dropped: its block may go back to the pool only)
    plan = next(p for p in _programs(f) if p._scratch)
    scratch = [b for _, _, blocks in plan._B if blocks for b in blocks if b is not None]
    assert scratch and plan._reserved.alive and pool._kept >= plan._scratch
    for (a, b), (wa, wb), v in zip(held, want[1:], views[1:]):
        np.testing.assert_allclose(a, wa, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(b, wb, rtol=1e-4)
        np.testing.assert_array_equal(v, a[1:, :3])
    a, _ = f(xn, wn)  # (the same scratch arrays again)
    assert all(any(k is b for k in plan._B[-1][2] if k is not None) for b in scratch)
    np.testing.assert_allclose(a.numpy(), want[0][0], rtol=1e-4, atol=1e-3)


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_realized_leaves_in_c_equal_pythons(rng):
    """``NATIVE.realized`` gives each computed tensor the leaf ``_leaves_py`` gives it:
    its value, the node's site, and ``derived`` (the node weakly, its seq, the low: a
    gradient's is its sources' lowest), for values, literals, gradients, leaves, and a
    tensor given twice."""
    x = lj.tensor(rng.standard_normal(4))
    y = (x * 2.0).sum()
    c = lj.full((3,), 2.0, "float32")  # (a gradient whose sources are all constants)
    given = [t.node for t in (x * 3.0, y, lj.grad(y, x), lj.full((), 3.0) * 2.0, x,
                              lj.grad((c * c).sum(), c))]
    given.insert(5, given[0])
    copies = {n: lj.Tensor(n) for n in given if n.buffer is None}
    lj.realize(*copies.values())  # (the values, in the nodes or as literals)
    literals = {n: c.numpy() for n, c in copies.items() if n.buffer is None}
    got = {}
    for how, leaves in (("py", realize._leaves_py), ("c", NATIVE.realized)):
        ts = [lj.Tensor(n) for n in given]
        ts[5] = ts[0]  # (the same tensor again: a leaf already)
        leaves(ts, given, literals)
        got[how] = [(t._origin is n, t.node.op, t.node.site, t.node.low,
                     None if t.node.derived is None else
                     (t.node.derived[0]() is n, *t.node.derived[1:]),
                     np.asarray(t.node.buffer).tolist()) for t, n in zip(ts, given)]
    assert got["py"] == got["c"]
    assert [g[0] for g in got["c"]] == [True, True, True, True, False, True, True]
    assert got["c"][2][3] == min(s.low for s in given[2].src)  # (the gradient's low)
    assert got["c"][6][3] == sys.maxsize  # (of constants only: as min(...) gives)


def test_realize_takes_shared_variables(mode):
    """``lj.realize`` and ``.realize()`` of shared variables (a Tensor subclass), pending
    or holding their value, with other tensors (found by review: the C step refused
    subclasses)."""
    w = lj.shared(np.ones(3, np.float32), name="w")
    lj.realize(w)
    w.realize()
    w.set_value(w * 2.0)
    y = w + 1.0
    lj.realize(w, y)
    np.testing.assert_array_equal(w.get_value(), [2, 2, 2])
    np.testing.assert_array_equal(y.numpy(), [3, 3, 3])


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_operators_are_named_and_free_their_type():
    """The C operators carry a method's name and doc, and an Operator made and freed
    leaves its (heap) type's reference count as it was (found by review)."""
    assert lj.Tensor.__radd__.__name__ == "__radd__"
    assert lj.Tensor.__mul__.__qualname__ == "Tensor.__mul__"
    NATIVE.Operator("add", np.add, False)  # (a first call may cache what holds the type)
    before = sys.getrefcount(NATIVE.Operator)
    for _ in range(1000):
        NATIVE.Operator("add", np.add, False)
    after = sys.getrefcount(NATIVE.Operator)  # (outside the assert, which holds its parts)
    assert after == before


def test_the_kept_scratch_budget_never_waits_for_the_pools_lock():
    """``pool.release`` runs from a program's finalizer, which a garbage collection may
    run inside ``alloc_all`` with the pool's lock held: it takes a lock of its own
    (found by review: a deadlock)."""
    import threading
    from lazyjit.backends.cpu import pool
    done = []
    with pool._LOCK:
        t = threading.Thread(target=lambda: done.append(pool.reserve(0) and
                                                        pool.release(0) is None))
        t.start()
        t.join(timeout=10)
    assert done == [True]


def _programs(jitted) -> list:
    """The cpu Programs of ``jitted``'s compiled entries."""
    from lazyjit.backends.cpu import backend
    found = []
    for entry in jitted._cache.values():
        for obj in vars(entry).values() if hasattr(entry, "__dict__") else \
                [getattr(entry, k, None) for k in getattr(type(entry), "__slots__", ())]:
            plan = getattr(obj, "program", obj)
            if isinstance(plan, backend.Program):
                found.append(plan)
    return found


def test_blocks_shared_by_several_slots(mode, rng):
    """Intermediates whose lifetimes do not overlap share a block (the slot order NATIVE
    takes); the values are NumPy's on a call that reuses the program."""
    xn = rng.standard_normal((64, 32)).astype(np.float32)
    wn = rng.standard_normal((32, 32)).astype(np.float32)

    def net(x, w):
        h = x
        for _ in range(4):
            h = lj.tanh(h @ w) * 2.0
        return (h @ w).sum(axis=0)

    out = net(lj.tensor(xn), lj.tensor(wn))
    plan = plan_for(collect([out.node]))
    assert plan._order is not None  # (the case this test is for)
    hn = xn
    for _ in range(4):
        hn = np.tanh(hn @ wn) * 2.0
    for _ in range(2):
        got = net(lj.tensor(xn), lj.tensor(wn)).numpy()
        np.testing.assert_allclose(got, (hn @ wn).sum(0), rtol=1e-4, atol=1e-4)
        assert read_only(got)


def test_inputs_passed_through_and_reshaped(mode):
    """Outputs that are inputs (a view, read-only; reshaped where the output's shape
    differs) never alias the caller's array."""
    a = np.arange(12.0)
    f = lj.jit(lambda x: (x, x.reshape(3, 4), x + 1))
    same, shaped, plus = f(a)
    np.testing.assert_array_equal(same.numpy(), a)
    np.testing.assert_array_equal(shaped.numpy(), a.reshape(3, 4))
    np.testing.assert_array_equal(plus.numpy(), a + 1)
    assert all(read_only(t.numpy()) for t in (same, shaped, plus))
    assert a.flags.writeable and not np.shares_memory(same.numpy(), a)


def test_large_program_and_donated_update(mode, rng):
    """Pooled blocks (a large program) and a shared variable updated in place (its old
    value donated to the output), called several times."""
    v = rng.standard_normal((300, 200))
    w = lj.shared(v.copy())
    step = lj.function([], (w * w).sum(), updates=[(w, w * 0.5 + 1.0)])
    expect = v.copy()
    for _ in range(3):
        got = step()
        np.testing.assert_allclose(got, (expect * expect).sum(), rtol=1e-12)
        expect = expect * 0.5 + 1.0
    np.testing.assert_allclose(w.get_value(), expect, rtol=1e-12)


def test_broken_input_contract_raises(mode):
    """A program called with more inputs than its buffer table holds, or with an input
    that is not C-contiguous, raises (an internal error, never memory written past the
    table or a strided array read as a contiguous one)."""
    x = lj.tensor(np.arange(8.0))
    y = x * 2
    plan = plan_for(collect([y.node]))
    a = np.arange(8.0)
    np.testing.assert_array_equal(plan.run([a])[0], a * 2)
    with pytest.raises(IndexError):
        plan.run([a] * (plan.n_slots + 1))
    with pytest.raises(ValueError, match="contiguous"):
        plan.run([np.arange(16.0)[::2]])
    np.testing.assert_array_equal(plan.run([a + 1])[0], (a + 1) * 2)


def test_busy_flag_count_and_a_new_table(mode, monkeypatch):
    """A small program's call (whole in C): P[0], which every kernel reads (one thread
    when other processes hold the cores), follows the machine's sample and
    ``Program._busy`` says what it holds; ``kernels_run`` counts the call's kernels; with
    every buffer table in use (calls in other threads) a new one serves."""
    x = lj.tensor(np.arange(8.0))
    plan = plan_for(collect([(x * 2 + 1).node]))
    assert plan._keep
    a = np.arange(8.0)
    m = backend._MACHINE
    monkeypatch.setattr(m, "sampled", time.monotonic() + 3600.0)  # (a fresh sample)
    for flag in (True, False, True, True, False, True):
        monkeypatch.setattr(m, "busy", flag)
        before = lj.stats()["kernels_run"]
        np.testing.assert_array_equal(plan.run([a + flag])[0], (a + flag) * 2 + 1)
        assert lj.stats()["kernels_run"] - before == plan.n_kernels
        assert plan.params[0] == flag and plan._busy is flag
    fresh = backend._Machine()  # (a machine sample replaced, as a test may: read at the call)
    fresh.sampled, fresh.busy = time.monotonic() + 3600.0, False
    monkeypatch.setattr(backend, "_MACHINE", fresh)
    np.testing.assert_array_equal(plan.run([a])[0], a * 2 + 1)
    assert plan.params[0] == 0 and plan._busy is False
    plan._B.clear()
    np.testing.assert_array_equal(plan.run([a])[0], a * 2 + 1)
    assert len(plan._B) == 1
    np.testing.assert_array_equal(plan.run([a + 1])[0], (a + 1) * 2 + 1)


def test_kernel_error_is_raised_the_same(mode):
    """A failing check raises its message, and the program works again afterwards."""
    f = lj.jit(lambda x: lj.debug.check(x * 2, x > 0, "x must be positive"))
    with pytest.raises(Exception, match="x must be positive"):
        f(np.array([1.0, -1.0]))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])).numpy(), [2.0, 4.0])


def test_eager_values_and_errors_name_the_users_line(mode):
    x = lj.tensor(np.arange(5.0))
    y = (x * 2 + 1).sum()
    assert float(y) == 25.0
    with pytest.raises(lj.LazyjitError) as info:
        lj.tensor(np.ones(3)) + lj.tensor(np.ones(4))
    assert "test_speedups.py" in str(info.value)


def test_jit_arguments_of_every_kind(mode):
    """Realized and pending tensors, NumPy arrays (contiguous or not, another byte
    order), Python floats and ints and bools: the values of a jitted call, and a second
    identical call served without tracing; an int beyond int64 is a constant of its trace."""
    f = lj.jit(lambda x, k: x * k + 1)
    base = np.arange(6.0)
    pending = lj.tensor(base) * 1.0
    cases = [(lj.tensor(base), 2.0), (pending, 2), (base, 3), (base[::2], 2.0),
             (base.astype(">f8"), 2.0), (base, True), (base, np.int8(2))]
    for x, k in cases:
        want = np.asarray(x, np.float64) * k + 1
        traces = lj.stats()["traces"]
        for _ in range(2):
            np.testing.assert_array_equal(f(x, k).numpy(), want)
        assert lj.stats()["traces"] - traces <= 1, (x, k)
    traces = lj.stats()["traces"]
    for _ in range(2):  # an int beyond int64: a constant of its trace (NumPy's meaning)
        np.testing.assert_array_equal(f(base, 2 ** 70).numpy(), base * 2 ** 70 + 1)
    assert lj.stats()["traces"] - traces == 1


def _nested_site():
    return errors.creation_site(), errors.walk_stack()


def test_creation_site_walks_the_stack_as_python_does():
    """The C walk (where built) and the Python walk give the same frames: lazyjit's own
    skipped, the user's innermost first, at most three."""
    def a():
        return b()

    def b():
        return _nested_site()

    native, python = a()
    # (the two calls sit at two instructions of one line of _nested_site: the same line,
    # and in the outer frames the same instruction)
    assert errors.site_lines(native) == errors.site_lines(python)
    assert native[1:] == python[1:] and native[0][0] is python[0][0]
    assert [c.co_name for c, _ in native] == ["_nested_site", "b", "a"]


def test_creation_site_of_many_code_objects():
    """The C walk remembers, per code object, whether it is lazyjit's own, in a cache of
    a few hundred entries: with thousands of code objects made on the fly (exec, as
    notebooks do), half of them named as files inside the package, every walk still
    equals the Python one (no entry answers for another code object)."""
    inside = os.path.join(os.path.dirname(lj.__file__), "generated_for_test.py")
    rng = np.random.default_rng(0)
    for i in range(3000):
        mine = bool(rng.integers(2))
        scope = {"site": _nested_site}
        exec(compile(f"def f{i}():\n    return site()\n", inside if mine else f"<cell {i}>",
                     "exec"), scope)
        errors._INTERNAL.clear()  # (nothing but the cache holds the code objects: freed
        native, python = scope[f"f{i}"]()  # ones' addresses are reused by new ones)
        assert errors.site_lines(native) == errors.site_lines(python), i
        names = [c.co_name for c, _ in native]
        assert names[:2] == (["_nested_site", "test_creation_site_of_many_code_objects"]
                             if mine else ["_nested_site", f"f{i}"]), (i, names)
    # another predicate's walk neither reads nor fills the cache of lazyjit's own
    if NATIVE is not None:
        assert NATIVE.creation_site({}, lambda code: True, 3) == ()
        native, python = _nested_site()
        assert errors.site_lines(native) == errors.site_lines(python)


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_structural_keys_in_c_equal_pythons(rng):
    """Every node made while eager programs run (by the operators' C paths and by the
    Python functions: random expressions over leaves and computed values, sharing
    inputs, constants, more than sixteen inputs, nodes of no, one, two and more
    sources, an MLP's gradients) has the structural key the Python steps give it, right
    after it is made: the same inputs (the same nodes, in order), number and epoch."""
    compared: list[int] = []
    newest = [0]

    def check(t):
        new = [n for n in reachable([t.node], lambda n: n.src) if n.seq > newest[0]]
        for n in sorted(new, key=lambda n: n.seq):
            if n.op == "buffer":
                continue
            got = (n.ins, n.sk, n.ep)
            node.structure_py(n)
            assert got[1:] == (n.sk, n.ep) and (got[0] is None) == (n.ins is None), n
            assert n.ins is None or len(got[0]) == len(n.ins) and \
                all(x is y for x, y in zip(got[0], n.ins)), n
            compared.append(len(n.src))
        newest[0] = max([newest[0]] + [n.seq for n in new])

    ops = [lambda a, b, c: a + b, lambda a, b, c: a * b - 1.5, lambda a, b, c: -a,
           lambda a, b, c: lj.maximum(a, b), lambda a, b, c: (a * a).sum() + b,
           lambda a, b, c: lj.where(a > b, a, c), lambda a, b, c: a / b + 2.0 / c,
           lambda a, b, c: lj.stack([a, b, c * 2]).sum(axis=0),
           lambda a, b, c: a + float(rng.random()), lambda a, b, c: (a + b) * (b + a) - a]
    with lj.config(backend="numpy"):  # (keys are the same on every backend)
        for _ in range(30):
            xs = [lj.tensor(rng.standard_normal(3).astype(np.float32))
                  for _ in range(int(rng.integers(2, 30)))]
            newest[0] = max(x.node.seq for x in xs)
            for _step in range(int(rng.integers(1, 25))):
                a, b, c = (xs[int(rng.integers(len(xs)))] for _ in range(3))
                xs.append(ops[int(rng.integers(len(ops)))](a, b, c))
                check(xs[-1])
                if rng.random() < 0.2:
                    lj.realize(xs[-1])  # (a computed source: an input of the next nodes)
            many = sum(xs[1:], xs[0])  # (more than sixteen inputs, in C and Python merges)
            check(many)
            lj.realize(many)
        w = lj.tensor(rng.standard_normal((4, 3)).astype(np.float32))
        x = lj.tensor(rng.standard_normal((5, 4)).astype(np.float32))
        grads = lj.grad(lj.log_softmax(lj.relu(x @ w), axis=-1).sum(), [w, x])
        for g in grads:
            check(g)
    assert {0, 1, 2, 3} <= set(compared) and len(compared) > 300


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_recent_structures_give_the_numbers_of_the_table():
    """The C steps look a structure's number up in a table of the 1024 recent ones first,
    by the identities of its key's items.  Families of keys that differ in one item only
    (an int of the shape, an int in a nested tuple, ints beyond 64 bits, -1 against an
    overflowing int, the op), more keys than entries, made twice, get the numbers the
    Python steps give, and unequal keys never share one; keys Python takes as equal (1,
    1.0, True; equal tuples of new objects) share theirs, as in the dictionary."""
    f32 = np.dtype(np.float32)
    leaf = node.Node.leaf(np.ones(3, np.float32))
    big = 2 ** 64
    families = [lambda i: ("t", None, (1000 + i,)), lambda i: ("t", ((1000 + i,), 1), (3,)),
                lambda i: ("t", big + i, (3,)),
                lambda i: ("t", -1 if i % 2 else -(big + i), (3,)),
                lambda i: (f"t{i}", None, (3,)),
                lambda i: ("t", [1, 1.0, True, (5, 6), tuple([5, 6]), "a"][i % 6], (3,))]
    for family in families:
        numbers: dict = {}
        for _ in range(2):
            for i in range(1500):
                op, arg, shape = family(i)
                n = node.Node.make(op, (leaf,), arg, shape, f32)
                sk = n.sk
                node.structure_py(n)
                assert n.sk == sk, (op, arg, shape)
                numbers.setdefault((op, arg, shape), set()).add(sk)
        assert all(len(v) == 1 for v in numbers.values())
        assert len({min(v) for v in numbers.values()}) == len(numbers)


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_make_group_makes_the_nodes_make_makes():
    """``make_group`` (a deferred gradient's nodes: one tuple of sources, the sources'
    part of the key computed once) returns the very nodes ``make`` returns for each
    spec, with the structural keys the Python steps give; a second group over other
    leaves of the same shapes has the same numbers, and one over a source without a key
    (a ``fresh`` node) gives none; a bad spec raises."""
    f32 = np.dtype(np.float32)
    a, b = (node.Node.leaf(np.ones((2, 3), np.float32)) for _ in range(2))
    mid = node.Node.make("add", (a, b), None, (2, 3), f32)
    cost = node.Node.make("sum", (mid,), (0, 1), (), f32)
    specs = [(("grad", (i,)), (2, 3), f32) for i in range(2)]
    group = NATIVE.make_group("grad", (cost, a, b), specs)
    assert group == [node.make_py("grad", (cost, a, b), *spec) for spec in specs]
    for g in group:
        got = (g.ins, g.sk, g.ep)
        node.structure_py(g)
        assert got == (g.ins, g.sk, g.ep) and got[0] == (a, b)
    c, d = (node.Node.leaf(np.zeros((2, 3), np.float32)) for _ in range(2))
    cost2 = node.Node.make("sum", (node.Node.make("add", (c, d), None, (2, 3), f32),),
                           (0, 1), (), f32)
    other = NATIVE.make_group("grad", (cost2, c, d), specs)
    assert [g.sk for g in other] == [g.sk for g in group] and other[0] is not group[0]
    assert len({g.sk for g in group}) == 2
    loose = node.Node.fresh(cost, (mid,))
    assert [g.ins for g in NATIVE.make_group("grad", (loose, a, b), specs)] == [None, None]
    with pytest.raises(TypeError, match="spec"):
        NATIVE.make_group("grad", (cost, a, b), [("grad", (0,))])


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_make_group_keeps_nothing_when_code_it_runs_makes_nodes_of_its_sources():
    """Python code run while a group's first node is keyed (a gc callback here; a
    finalizer, another thread) that makes a node over the group's very tuple of sources
    leaves no reference behind: the leaves stay freeable (found by a reviewer)."""
    f32 = np.dtype(np.float32)
    make = NATIVE.make
    a = node.Node.leaf(np.ones((2, 3), np.float32))

    def sources():
        x = a
        for leaf in [node.Node.leaf(np.ones((2, 3), np.float32)) for _ in range(18)]:
            x = make("add", (x, leaf), None, (2, 3), f32)  # (over 16 inputs: Python merge)
        return (make("sum", (x,), (0, 1), (), f32), a,
                node.Node.leaf(np.ones((2, 3), np.float32)))
    state = {"src": None, "k": 0, "fire": 0}

    def callback(phase, info):
        if phase == "start" and state["src"] is not None:
            state["k"] += 1
            if state["k"] == state["fire"]:
                src, state["src"] = state["src"], None
                make("other", src, None, (2, 3), f32)
    before = sys.getrefcount(a)
    threshold = gc.get_threshold()
    gc.callbacks.append(callback)
    try:
        for fire in range(1, 30):
            src = sources()
            state.update(src=src, k=0, fire=fire)
            gc.set_threshold(1)
            NATIVE.make_group("grad", src, [(("grad", (i,)), (2, 3), f32) for i in range(2)])
            gc.set_threshold(*threshold)
            state["src"] = None
            del src
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*threshold)
    gc.collect()
    assert sys.getrefcount(a) == before


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # (1e300 in float32)
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_operators_in_c_make_the_nodes_python_makes(rng):
    """Operators take elementwise's fast paths in C (``elementwise2``): each result is the
    very node (hash-consing) that ``lazyjit.api.core.elementwise`` makes for the same
    operands, for tensors of one or two shapes and dtypes and Python scalars (signed
    zeros, NaN, ints beyond the dtype), and its value is NumPy's."""
    from lazyjit.api import core, methods
    ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
           "lt": np.less, "eq": np.equal}
    arrays = [rng.standard_normal(3).astype(np.float32), np.arange(3, dtype=np.int64),
              rng.standard_normal((2, 3)), np.array([True, False, True])]
    scalars = [2, 2.0, -0.0, 0.0, float("nan"), 7, 1e300]
    fns = {**methods._BINARY, **methods._COMPARISONS}
    fast = 0
    with lj.config(backend="numpy"):
        for op, np_op in ops.items():
            name = methods._ELEMENTWISE[op]
            for x in arrays:
                for y in arrays + scalars:
                    for a, b in ((x, y), (y, x)):
                        ta = lj.tensor(a) if isinstance(a, np.ndarray) else a
                        tb = lj.tensor(b) if isinstance(b, np.ndarray) else b
                        try:
                            want = np_op(a, b)
                        except (TypeError, ValueError):
                            continue
                        if not isinstance(ta, lj.Tensor) and op in ("lt", "eq"):
                            continue  # (Python turns 2 < t into t > 2)
                        got = getattr(operator, op)(ta, tb)
                        same = core.elementwise(name, ta, tb)
                        assert got.node is same.node, (op, a, b)
                        # (the C Operator's steps are the Python method's)
                        py = methods._operator(op, fns[op], python=True)(ta, tb) \
                            if isinstance(ta, lj.Tensor) else \
                            methods._operator(op, fns[op], True, python=True)(tb, ta)
                        assert py.node is got.node, (op, a, b)
                        fast += NATIVE.elementwise2(name, ta, tb) is not None
                        np.testing.assert_array_equal(got.numpy(), want)
                        assert got.dtype == want.dtype, (op, a, b)
    assert fast > 100  # (most went through the C paths)
    with lj.config(backend="numpy"):  # an operator with no fast path: fn (reflected too)
        m, v = rng.standard_normal((2, 3)), rng.standard_normal(3)
        tm, tv = lj.tensor(m), lj.tensor(v)
        np.testing.assert_allclose((tm @ tv).numpy(), m @ v)
        np.testing.assert_allclose(tv.__rmatmul__(tm).numpy(), m @ v)
        np.testing.assert_allclose((2 ** tv).numpy(), 2 ** v)
        assert repr(lj.Tensor.__radd__).startswith("<operator 'add' of")
        with pytest.raises(TypeError, match="takes .self, other."):
            lj.Tensor.__add__(tm)


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_leaves_in_c_equal_pythons():
    """``Node.leaf`` in C sets every slot as the Python steps do, for each kind of site
    (walked, none, given), and leaves are numbered in creation order."""
    arr = np.arange(6.0).reshape(2, 3)
    given = ((test_leaves_in_c_equal_pythons.__code__, 0),)
    for args, kw in (((arr,), {}), ((arr, True), {}), ((arr,), {"site": False}),
                     ((arr, False), {}), ((arr,), {"site": given})):
        a, b = node.leaf_py(*args, **kw), NATIVE.leaf(*args, **kw)
        assert b.seq == b.arg == b.low == a.seq + 1 and b.op == a.op == "buffer"
        for slot in ("src", "shape", "dtype", "derived", "ins", "sk", "ep"):
            assert getattr(a, slot) == getattr(b, slot), slot
        assert b.buffer is arr and [c for c, _ in a.site] == [c for c, _ in b.site]
    with pytest.raises(TypeError):
        NATIVE.leaf(arr, False, True)


def test_an_operator_on_a_tensor_around_no_node_raises():
    """A Tensor built around something that is not a node (``lj.Tensor`` is public; the
    C fast paths read nodes' slots) raises TypeError, on both sides of an operator,
    instead of reading another object's memory (found by review)."""
    u, t = lj.Tensor(np.arange(3.0)), lj.tensor(np.arange(3.0))
    for make in (lambda: u * 2.0, lambda: 2.0 - u, lambda: u + t, lambda: t < u):
        with pytest.raises((TypeError, AttributeError)):
            make()


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_trace_keys_and_gradient_walks_in_c_equal_pythons(rng):
    """``trace_key`` (a realize's key from its nodes' keys) and ``reach`` (lj.grad's walk
    of the cost's graph, looking into the graphs of values that were read, some of them
    freed) give what their Python functions give: the same nodes, or the same error, on
    random graphs over leaves and realized values."""
    from lazyjit.engine.realize import structural_key_py
    from lazyjit.trace.through import _look_into, reach_py
    ops = [lambda a, b: a + b, lambda a, b: a * b - 1.5, lambda a, b: lj.tanh(a),
           lambda a, b: lj.stop_gradient(a) * b, lambda a, b: (a * b).sum() + a]
    outcomes = set()

    def walk(fn, roots, floor, stop, targets):
        try:
            got = fn(roots, floor, stop, targets, lambda n: _look_into(n, targets, floor))
        except lj.LazyjitError as e:
            return "error", str(e).split(" (at ")[0]
        return "none" if got is None else "seen", got

    with lj.config(backend="numpy"):
        for _ in range(40):
            xs = [lj.tensor(rng.standard_normal(3)) for _ in range(int(rng.integers(1, 8)))]
            for _step in range(int(rng.integers(1, 20))):
                a, b = (xs[int(rng.integers(len(xs)))] for _ in range(2))
                xs.append(ops[int(rng.integers(len(ops)))](a, b))
                if rng.random() < 0.3:
                    lj.realize(xs[-1])
            picked = [xs[int(i)].node for i in rng.integers(0, len(xs), int(rng.integers(1, 5)))]
            nodes = list(dict.fromkeys(n for n in picked if n.buffer is None))
            if nodes:
                assert NATIVE.trace_key(nodes) == structural_key_py(nodes)
            targets = {x.graph_node for x in xs[:int(rng.integers(1, len(xs) + 1))]}
            floor = min(t.seq for t in targets)
            stop = {xs[int(rng.integers(len(xs)))].node} if rng.random() < 0.3 else set()
            roots = [xs[-1].graph_node, xs[-1].node]
            for i in rng.permutation(len(xs) - 1)[:int(rng.integers(0, len(xs)))]:
                xs[int(i)] = None  # (freed: the graphs of values read in it may go)
            got = walk(NATIVE.reach, roots, floor, stop, targets)
            want = walk(reach_py, roots, floor, stop, targets)
            assert got == want
            outcomes.add(got[0])
    assert outcomes == {"seen", "none", "error"}  # (each case came up)


@pytest.mark.skipif(NATIVE is None, reason="the C extension lazyjit._speedups is not built")
def test_dead_nodes_leave_the_table():
    """A node's weak entry in the hash-consing table goes when the node dies (C's
    ``forget``), also for a node whose key holds a symbolic size (hashed in lazyjit's
    own frame, through the Python ``_forget``: no error at the collection), and an
    entry a newer node of that key holds stays."""
    import gc
    before = len(node._CACHE)
    x = lj.tensor(np.arange(3.0))
    ys = [(lj.tensor(np.ones(3)) * x - x) / x for _ in range(50)]
    assert len(node._CACHE) >= before + 150
    del ys
    gc.collect()
    assert len(node._CACHE) <= before
    raised, hook = [], sys.unraisablehook
    sys.unraisablehook = raised.append
    try:
        f = lj.jit(lambda a: (a * 2).sum(), dynamic=True)
        for n in (3, 4, 5):
            assert float(f(np.ones(n, np.float32))) == 2 * n
        del f
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert not raised, raised[0].exc_value
    a = x + 2.0
    key = next(k for k, r in node._CACHE.items() if r() is a.node)
    del a
    b = x + 2.0  # (a new node of that key)
    assert node._CACHE[key]() is b.node


def test_a_failed_allocation_gives_the_kept_scratch_back(mode, rng, monkeypatch):
    """A call that fails after its buffer table was taken (an output's allocation raises
    MemoryError) gives that table's kept scratch back to the pool's budget, and the next
    calls keep scratch again, with NumPy's values (found by review: the reservation
    stayed, and the program never kept scratch again)."""
    from lazyjit.backends.cpu import pool
    xn = rng.standard_normal((96, 64)).astype(np.float32) * 0.1
    f = lj.jit(lambda x: lj.tanh(x @ x.T) @ x)
    want = np.tanh(xn @ xn.T) @ xn
    for _ in range(2):
        np.testing.assert_allclose(f(xn).numpy(), want, rtol=1e-4, atol=1e-4)
    plan = next(p for p in _programs(f) if p._scratch)
    assert plan._reserved is not None
    kept = pool._kept

    def fail(blocks):
        raise MemoryError("test: no memory")
    with monkeypatch.context() as m:
        m.setattr(pool, "alloc_all", fail)
        with pytest.raises(MemoryError):
            f(xn)
    assert plan._reserved is None and pool._kept == kept - plan._scratch
    for _ in range(2):
        np.testing.assert_allclose(f(xn).numpy(), want, rtol=1e-4, atol=1e-4)
    assert plan._reserved is not None and pool._kept == kept


def test_a_stale_extension_is_not_used(monkeypatch):
    """An extension built from older sources (its ABI not this code's) is left unused,
    with a warning: its functions may take other arguments."""
    monkeypatch.setitem(sys.modules, "lazyjit._speedups", types.ModuleType("stale"))
    try:
        with pytest.warns(UserWarning, match="rebuild"):
            importlib.reload(speedups)
        assert speedups.NATIVE is None
    finally:
        monkeypatch.undo()
        importlib.reload(speedups)
    assert speedups.NATIVE is NATIVE
