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
