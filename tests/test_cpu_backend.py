"""The ``cpu`` backend's own promises: fusion into few kernels, compiled code reused
across shapes and processes, safe failures, OpenMP on and off, buffer reuse."""
from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.backends.cpu import cdefs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def cpu(tmp_path):
    with lj.config(backend="cpu", cache_dir=str(tmp_path / "cache")):
        yield tmp_path


def kernels_of(*tensors) -> int:
    before = lj.stats()["kernels_run"]
    lj.realize(*tensors)
    return lj.stats()["kernels_run"] - before


def test_elementwise_chain_is_one_kernel(cpu, rng):
    x = lj.tensor(rng.standard_normal(1000).astype(np.float32))
    y = lj.exp(-x * x / 2) * lj.sin(3 * x) + 0.5 * lj.tanh(x)
    assert kernels_of(y) == 1
    xn = np.asarray(x)
    np.testing.assert_allclose(np.asarray(y), np.exp(-xn * xn / 2) * np.sin(3 * xn)
                               + 0.5 * np.tanh(xn), rtol=1e-5, atol=1e-6)


def test_chain_with_trailing_reduction_is_one_kernel(cpu, rng):
    x = lj.tensor(rng.standard_normal((37, 53)))
    y = lj.sum(lj.exp(x) * 2 + 1, axis=1)
    assert kernels_of(y) == 1
    np.testing.assert_allclose(np.asarray(y), (np.exp(np.asarray(x)) * 2 + 1).sum(1))


def test_large_shared_elementwise_is_recomputed_not_stored(cpu, rng):
    """``z = a + b`` read by three kernels (two reductions and an elementwise output) is
    recomputed inside each (no kernel of its own) when large; values as NumPy."""
    a = lj.tensor(rng.standard_normal((300, 400)).astype(np.float32))
    b = lj.tensor(rng.standard_normal(400).astype(np.float32))
    z = a + b
    m, s, out = z.max(axis=1), lj.exp(z).sum(axis=1), z * 2 - 1
    assert kernels_of(m, s, out) == 3
    zn = np.asarray(a) + np.asarray(b)
    np.testing.assert_allclose(np.asarray(m), zn.max(1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s), np.exp(zn).sum(1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out), zn * 2 - 1, rtol=1e-6)


def test_multi_output_fusion(cpu, rng):
    """Elementwise results that share a computation are one loop writing each result
    (the shared part computed once); not when one result is read, outside, by what
    another needs (a reduction in between)."""
    xv = rng.standard_normal((40, 30)).astype(np.float32)
    x = lj.tensor(xv)
    z = lj.exp(x) * 3.0
    y1, y2, y3 = z + 1.0, z * z, lj.tanh(z) - x
    assert kernels_of(y1, y2, y3) == 1
    zn = np.exp(xv) * 3
    for got, want in zip((y1, y2, y3), (zn + 1, zn * zn, np.tanh(zn) - xv)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    w = x * 2.0
    a = w + 1.0
    b = w * a.sum()  # needs the sum of a, a kernel between a and b: no group
    assert kernels_of(a, b) == 4  # w, a, the sum, b
    np.testing.assert_allclose(np.asarray(b), xv * 2 * (xv * 2 + 1).sum(), rtol=1e-4)


def test_buffers_planned_from_liveness_and_in_place(cpu, rng):
    """Intermediates whose lifetimes do not overlap share memory, an elementwise kernel
    writes over an input it reads last (same element), and values stay NumPy's."""
    from lazyjit.engine.realize import plan_for
    from lazyjit.trace.graph import collect
    x = lj.tensor(rng.standard_normal((64, 32)).astype(np.float32))
    w = lj.tensor(rng.standard_normal((32, 32)).astype(np.float32))
    h = x
    for _ in range(4):  # matmul -> its own buffer; tanh(.) * 2 can overwrite it
        h = lj.tanh(h @ w) * 2.0
    out = (h @ w).sum(axis=0)
    plan = plan_for(collect([out.node]))
    assert len(plan.blocks) < len(plan.slots)
    xn, wn = np.asarray(x), np.asarray(w)
    hn = xn
    for _ in range(4):
        hn = np.tanh(hn @ wn) * 2.0
    np.testing.assert_allclose(np.asarray(out), (hn @ wn).sum(0), rtol=1e-4, atol=1e-4)


def test_chained_indexed_updates_run_in_place(cpu, rng):
    """Several inc_subtensor / set_subtensor on one tensor that dies at each update all
    write into one buffer (the copies of the base are skipped), with NumPy's values."""
    from lazyjit.engine.realize import plan_for
    from lazyjit.trace.graph import collect
    xv = rng.standard_normal((500, 40)).astype(np.float32)
    y = lj.tensor(xv) * 3.0
    for i in range(4):
        y = lj.inc_subtensor(y[i * 10:(i + 1) * 10], lj.tensor(np.float32(i + 1)))
    y = lj.set_subtensor(y[-5:], lj.tensor(np.float32(-1.0)))
    out = lj.exp(y)
    plan = plan_for(collect([out.node]))
    big = {b for b, (shape, _, _) in zip(plan.block, plan.slots) if shape == (500, 40)}
    assert len(big) == 2  # the updated tensor (one block for all updates) and the result
    want = xv * 3
    for i in range(4):
        want[i * 10:(i + 1) * 10] += i + 1
    want[-5:] = -1
    np.testing.assert_allclose(np.asarray(out), np.exp(want), rtol=1e-6)


def test_scan_state_read_only_at_the_end_lives_in_a_ring(cpu, rng):
    """A state of which only the last row is read is not stored for every step (a ring
    of two rows); one read at an earlier row is; both equal a NumPy loop."""
    from lazyjit.engine.realize import plan_for
    from lazyjit.trace.graph import collect
    xv = rng.standard_normal((50, 4, 8)).astype(np.float32)
    wv = (np.eye(8) * 0.5).astype(np.float32)
    zeros = lj.zeros((4, 8), "float32")
    (hs, cs), _ = lj.scan(lambda x_t, h, c, w: [lj.tanh(x_t + h @ w), c + h],
                          sequences=lj.tensor(xv), outputs_info=[zeros, zeros],
                          non_sequences=lj.tensor(wv))
    outs = [hs[-1], cs[-1], cs[-2]]
    rows = sorted(shape[0] for shape, _, _ in plan_for(collect([o.node for o in outs])).slots
                  if len(shape) == 3)
    assert rows == [1, 2, 51]  # h: ring (2) and its last row (1); c: all 51 rows
    h, c, cl = np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32), []
    for t in range(50):
        c = c + h
        h = np.tanh(xv[t] + h @ wv)
        cl.append(c)
    lj.realize(*outs)
    for got, want in zip(outs, [h, c, cl[-2]]):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_fast_compile_runs_before_the_compile_and_after(cpu, rng):
    """At ``fast_compile`` a new trace runs at once on the reference interpreter while gcc
    compiles in the background; once the module is ready, it runs it; values agree."""
    from lazyjit.backends.cpu.backend import Tiered
    from lazyjit.engine.realize import plan_for
    from lazyjit.trace.graph import collect
    x = lj.tensor(rng.standard_normal((64, 33)).astype(np.float32))
    with lj.config(optimizer="fast_compile"):
        y = lj.exp(x * 0.5).sum(axis=1) + lj.tanh(x).max(axis=1)
        plan = plan_for(collect([y.node]))
        assert isinstance(plan, Tiered)
        first = plan.run([x.node.buffer])[0]
        plan.future.result(timeout=120)
        second = plan.run([x.node.buffer])[0]
        assert plan.program is not None
    xn = np.asarray(x)
    want = np.exp(xn * 0.5).sum(1) + np.tanh(xn).max(1)
    np.testing.assert_allclose(first, want, rtol=1e-5)
    np.testing.assert_allclose(second, want, rtol=1e-5)


@pytest.mark.parametrize("axis", [0, 1, (0, 2), None, 2])
def test_large_reductions(cpu, rng, axis):
    x = rng.standard_normal((64, 300, 17)).astype(np.float32)
    for name in ("sum", "max", "min"):
        got = np.asarray(getattr(lj, name)(lj.tensor(x), axis=axis))
        np.testing.assert_allclose(got, getattr(np, name)(x, axis=axis), rtol=2e-5, atol=2e-4)


@pytest.mark.parametrize("rows", [1, 3, 4, 5, 8, 11])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool"])
def test_sums_over_outer_axes(cpu, rng, rows, dtype):
    """Sums over outer axes add 4 rows at a time, then the rest one by one, of a fused
    expression (a broadcast operand, a cast), into contiguous or strided outputs."""
    x = (rng.standard_normal((rows, 3, 37)) * 50).astype(dtype)
    w = (rng.standard_normal((3, 37)) * 5).astype(dtype)
    lx, lw = lj.tensor(x), lj.tensor(w)
    with np.errstate(all="ignore"):
        for got, want in [(lx.sum(axis=0), x.sum(axis=0)),
                          ((lx * lw).sum(axis=(0, 1)), (x * w).sum(axis=(0, 1))),
                          ((lx + lw).sum(axis=0).T, (x + w).sum(axis=0).T),
                          (lx.astype("float32").sum(axis=0), x.astype("float32").sum(axis=0))]:
            assert got.dtype == want.dtype
            # (float rounding: a few float32 epsilons of the sum of the magnitudes)
            atol = 1e-6 * np.abs(x).astype(np.float64).sum() if want.dtype.kind == "f" \
                else 0
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=atol)


def test_column_split_does_not_change_a_sum(cpu, rng, monkeypatch):
    """Over few rows, a sum over outer axes splits its columns among the threads
    (``kernels.MAX_THREADS``): each column is still summed in one order, so the
    result is bit for bit the same whatever the number of threads."""
    kernels = sys.modules["lazyjit.backends.cpu.kernels"]
    realize = sys.modules["lazyjit.engine.realize"]
    x = rng.standard_normal((37, 5000)).astype(np.float32)
    results = []
    for threads in (1, 2, 7):
        monkeypatch.setattr(kernels, "MAX_THREADS", threads)
        monkeypatch.setattr(realize, "_PLANS", type(realize._PLANS)())  # plan again
        results.append(np.asarray(lj.tensor(x).sum(axis=0)).copy())
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    np.testing.assert_allclose(results[0], x.astype(np.float64).sum(axis=0), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("threads", [2, 4, 7])
@pytest.mark.parametrize("last", [1024, 1025, 2048, 2049, 5000, 9999])
def test_column_split_parts_are_balanced(threads, last, monkeypatch):
    """A column split (one output row, few rows) gives each thread a part of about the
    same width, none narrower than the minimum (1025 columns were split 1024 + 1)."""
    kernels = importlib.import_module("lazyjit.backends.cpu.kernels")
    monkeypatch.setattr(kernels, "MAX_THREADS", threads)
    bs = kernels._column_block(1, last)
    widths = [min(bs, last - k) for k in range(0, last, bs)]
    assert len(widths) <= threads
    assert len(widths) == 1 or (min(widths) >= 1024 - len(widths) and
                                max(widths) - min(widths) <= len(widths))


def test_new_batch_size_reuses_compiled_code(cpu, rng):
    w = lj.tensor(rng.standard_normal((8, 4)).astype(np.float32))

    @lj.jit
    def f(x):
        return lj.sum(lj.relu(x @ w) ** 2, axis=1)

    f(lj.tensor(rng.standard_normal((16, 8)).astype(np.float32)))
    compiles = lj.stats()["compiles"]
    for batch in (3, 7, 128):
        x = rng.standard_normal((batch, 8)).astype(np.float32)
        got = np.asarray(f(lj.tensor(x)))
        np.testing.assert_allclose(got, (np.maximum(x @ np.asarray(w), 0) ** 2).sum(1),
                                   rtol=1e-5)
    assert lj.stats()["compiles"] == compiles


def test_eager_new_shape_reuses_compiled_code(cpu, rng):
    def run(n):
        x = lj.tensor(rng.standard_normal((n, 5)))
        return np.asarray(lj.softmax(x * 3 - 1, axis=1))

    run(10)
    compiles = lj.stats()["compiles"]
    out = run(33)
    assert lj.stats()["compiles"] == compiles
    np.testing.assert_allclose(out.sum(1), np.ones(33))


def test_second_process_compiles_nothing(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, lazyjit as lj
        x = lj.tensor(np.arange(12.0).reshape(3, 4))
        y = (lj.tanh(x) @ x.T).sum() + lj.max(x, axis=0).sum()
        print(float(y), lj.stats()["compiles"], lj.stats()["disk_cache_hits"])
    """)
    env = dict(os.environ, LAZYJIT_FLAGS=f"backend=cpu,cache_dir={tmp_path}",
               PYTHONPATH=ROOT)
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True).stdout.split()
    assert first[0] == second[0]
    assert int(first[1]) >= 1
    assert int(second[1]) == 0 and int(second[2]) >= 1


def test_failed_compile_leaves_no_cache_entry(cpu):
    with lj.config(cflags="-fno-such-flag-xyz"):
        x = lj.tensor(np.ones(3))
        with pytest.raises(RuntimeError, match="compilation failed"):
            (x + 1).numpy()
    cache = cpu / "cache"
    leftovers = [f for _, _, fs in os.walk(cache) for f in fs if not f.endswith(".c")]
    assert leftovers == []
    assert float((lj.tensor(np.ones(3)) + 1).sum()) == 6.0


def test_kernels_of_the_same_code_share_one_function(cpu, rng, monkeypatch):
    # an SGD update of four parameters: four kernels of one code, each reading its own
    # buffers and sizes through its own part of the parameter table
    from lazyjit.backends.cpu import compiler
    sources, build = [], compiler._build
    monkeypatch.setattr(compiler, "_build", lambda u, cmd, folder: (sources.extend(u),
                                                                    build(u, cmd, folder))[1])
    shapes = [(3, 4), (5,), (7, 2), (64, 33)]
    ps = [rng.standard_normal(s) for s in shapes]
    gs = [rng.standard_normal(s) for s in shapes]
    new = [lj.exp(lj.tensor(p)) - 0.1 * lj.tensor(g) for p, g in zip(ps, gs)]
    assert kernels_of(*new) == 4
    for got, p, g in zip(new, ps, gs):
        np.testing.assert_allclose(got.numpy(), np.exp(p) - 0.1 * g, rtol=1e-12)
    defined = {k for text in sources for k in re.findall(r"\nLJ_KERNEL int (k\d+)\(.*\) \{", text)}
    assert len(defined) == 1


def test_loops_of_the_same_body_share_its_kernels(cpu, rng, monkeypatch):
    # two layers of one recurrence (as an LSTM's): each loop's body kernels read the
    # body's own buffer table and their sizes from their part of the parameter table, so
    # the second loop's body is the first's functions
    from lazyjit.backends.cpu import compiler
    sources, build = [], compiler._build
    monkeypatch.setattr(compiler, "_build", lambda u, cmd, folder: (sources.extend(u),
                                                                    build(u, cmd, folder))[1])
    xs, w1, w2 = rng.standard_normal((6, 3, 5)), rng.standard_normal(5), rng.standard_normal(5)

    def layer(seq, w):
        ys, _ = lj.scan(lambda x_t, h: lj.tanh(h * lj.tensor(w) + x_t), sequences=seq,
                        outputs_info=lj.zeros((3, 5)))
        return ys
    got = layer(layer(lj.tensor(xs), w1), w2).numpy()

    def ref(seq, w):
        h, out = np.zeros((3, 5)), []
        for x_t in seq:
            h = np.tanh(h * w + x_t)
            out.append(h)
        return np.stack(out)
    np.testing.assert_allclose(got, ref(ref(xs, w1), w2), rtol=1e-12)
    calls = re.findall(r"\b(k\d+)\(Bi, P, P \+ (\d+)\)", "".join(sources))
    assert len(calls) == 2  # (each loop calls its body's kernel, on its own parameters)
    assert calls[0][0] == calls[1][0] and calls[0][1] != calls[1][1]


def _in_parts(monkeypatch, units: list) -> None:
    """Make every module of more than about 400 characters compile in up to 4 units,
    recording the number of units of each build."""
    from lazyjit.backends.cpu import compiler
    build = compiler._build
    monkeypatch.setattr(compiler, "PART_CHARS", 400)
    monkeypatch.setattr(compiler, "_CPUS", 4)
    monkeypatch.setattr(compiler, "_build", lambda u, cmd, folder: (units.append(len(u)),
                                                                    build(u, cmd, folder))[1])


def test_module_compiled_in_parts_computes_the_same(cpu, rng, monkeypatch):
    # a module split into translation units: a scan whose body kernels may sit in
    # another unit than the loop kernel, GEMMs (BLAS pointers set in part 0, read in the
    # others), reductions and lj_run in part 0; values against NumPy, both dtypes
    from lazyjit.backends.cpu import compiler
    units, sources = [], []
    _in_parts(monkeypatch, units)
    build = compiler._build
    monkeypatch.setattr(compiler, "_build", lambda u, cmd, folder: (
        sources.extend(u) if len(u) > 1 and not sources else None, build(u, cmd, folder))[1])
    for dt, tol in ((np.float32, 1e-4), (np.float64, 1e-10)):
        w = rng.standard_normal((6, 6)).astype(dt) * 0.3
        xs = rng.standard_normal((9, 6)).astype(dt)
        h0 = rng.standard_normal(6).astype(dt)
        lw, lxs = lj.tensor(w), lj.tensor(xs)
        hs, _ = lj.scan(lambda x_t, h, lw: lj.tanh(h @ lw + x_t), sequences=lxs,
                        outputs_info=lj.tensor(h0), non_sequences=[lw])
        out = (hs @ lw.T).sum(axis=0) + lj.exp(-lxs).max() * hs[-1]
        h, want = h0, []
        for x_t in xs:
            h = np.tanh(h @ w + x_t)
            want.append(h)
        want = np.array(want)
        np.testing.assert_allclose(out.numpy(), (want @ w.T).sum(0) + np.exp(-xs).max()
                                   * want[-1], rtol=tol, atol=tol)
    # GEMMs in every unit, each a tanh apart (the BLAS pointers are read in every unit)
    ms = [rng.standard_normal((5, 5)) for _ in range(9)]
    out, want = lj.tensor(ms[0]), ms[0]
    for m in ms[1:]:
        out, want = lj.tanh(out @ lj.tensor(m)), np.tanh(want @ m)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    assert units and min(units) >= 2
    files = [os.path.join(d, f) for d, _, fs in os.walk(cpu / "cache") for f in fs]
    assert not [f for f in files if f.endswith(".o")]  # objects removed once linked
    # one set of BLAS pointers per library, set by part 0's lj_set_blas (a unit with
    # pointers of its own would never see them set and run its GEMMs as plain loops,
    # with the same values: gcc even folds such a pointer away, so no symbol shows it)
    for text in sources[1:]:
        for name in ("lj_sgemm", "lj_dgemm", "lj_blas_threads"):
            assert re.search(rf"^extern .*\b{name};$", text, re.M), name
        assert "lj_set_blas(" not in text
    assert "void lj_set_blas(" in sources[0]


def test_failed_compile_of_a_part_names_its_sources(cpu, monkeypatch):
    # the last unit fails, the others compile: their objects are removed, the sources
    # of all are kept and named
    from lazyjit.backends.cpu import compiler
    units = []
    _in_parts(monkeypatch, units)
    build = compiler._build
    monkeypatch.setattr(compiler, "_build", lambda u, cmd, folder: build(
        [*u[:-1], u[-1] + "\n#error this unit fails\n"], cmd, folder))
    x = lj.tensor(np.ones((3, 3)))
    with pytest.raises(RuntimeError, match="(?s)compilation failed.*this unit fails.*"
                                           "source kept at .*c, "):
        ((x @ x + 1).sum(0) * lj.exp(x).max(1)).numpy()
    assert units[-1] >= 2
    leftovers = [f for _, _, fs in os.walk(cpu / "cache") for f in fs if not f.endswith(".c")]
    assert leftovers == []


def test_out_of_bounds_index_raises_not_crashes(cpu):
    x = lj.tensor(np.arange(5.0))
    with pytest.raises(IndexError):
        lj.take(x, lj.tensor(np.array([0, 7]))).numpy()
    with pytest.raises(IndexError):
        lj.put_add(x, lj.tensor(np.array([-9])), 1.0).numpy()


def test_index_checks_kept_except_unsafe(cpu):
    """Index bounds are checked at run time at every optimizer level but ``unsafe``,
    which compiles the checks away."""
    from lazyjit.engine.realize import plan_for
    from lazyjit.trace.graph import collect
    x = lj.tensor(np.arange(10.0))
    for level in ("fast_compile", "o2", "fast_run"):
        with lj.config(optimizer=level):
            i = lj.tensor(np.array([12])) + 0  # a computed index: checked when run
            with pytest.raises(IndexError):
                lj.take(x, i).numpy()
    with lj.config(optimizer="unsafe"):
        i = lj.tensor(np.array([3])) + 0
        y = lj.take(x, i) * 2
        plan = plan_for(collect([y.node]))
        assert "(0 && (j < 0 || j >= N))" in plan.source
        np.testing.assert_array_equal(np.asarray(y), [6.0])


def test_busy_machine_runs_single_threaded(cpu, rng, monkeypatch):
    """When other processes hold the cores, calls run every kernel and GEMM on one
    thread (the flag P[0]); results are the same either way."""
    backend = sys.modules["lazyjit.backends.cpu.backend"]
    x = rng.standard_normal((600, 600)).astype(np.float32)
    f = lj.jit(lambda a: lj.tanh(a @ a).sum(axis=0))
    quiet = np.asarray(f(x)).copy()
    monkeypatch.setattr(backend, "_others_running", lambda: 64)
    monkeypatch.setattr(backend, "_MACHINE", backend._Machine())
    for _ in range(3):
        backend._MACHINE.sampled = 0.0  # sample again now
        backend.busy()
    assert backend.busy()
    loaded = np.asarray(f(x))
    np.testing.assert_allclose(loaded, quiet, rtol=1e-5, atol=1e-4)
    monkeypatch.setattr(backend, "_others_running", lambda: 0)
    for _ in range(12):  # the moving average decays
        backend._MACHINE.sampled = 0.0
        backend.busy()
    assert not backend.busy()


def test_integer_division_by_zero_does_not_trap(cpu):
    a = lj.tensor(np.array([7, -7, 0, np.iinfo(np.int64).min], np.int64))
    b = lj.tensor(np.array([0, 0, 0, -1], np.int64))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.asarray(a // b), np.asarray(a).__floordiv__(np.asarray(b)))
        np.testing.assert_array_equal(np.asarray(a % b), np.asarray(a) % np.asarray(b))


@pytest.mark.parametrize("openmp", [True, False])
def test_openmp_flag(cpu, rng, openmp):
    x = rng.standard_normal(200_000).astype(np.float32)
    with lj.config(openmp=openmp):
        got = np.asarray(lj.tanh(lj.tensor(x)) * 2 + lj.sum(lj.tensor(x)))
    np.testing.assert_allclose(got, np.tanh(x) * 2 + x.sum(), rtol=1e-4, atol=1e-3)


def test_buffers_are_reused_between_calls(cpu):
    from lazyjit.backends.cpu import pool
    n = (1 << 16) + 7  # a size no other test uses
    x = lj.tensor(np.ones(n, np.float32))
    f = lj.jit(lambda a: a * 2 + 1)
    for _ in range(5):
        np.testing.assert_array_equal(np.asarray(f(x))[:3], [3, 3, 3])
    assert len(pool._free[n * 4]) == 1


def test_results_are_read_only_and_inputs_untouched(cpu):
    a = np.arange(6.0)
    x = lj.tensor(a)
    y = lj.inc_subtensor(x[[0, 0, 1]], 1.0)
    out = np.asarray(y)
    np.testing.assert_array_equal(out, [2, 2, 2, 3, 4, 5])
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0))
    np.testing.assert_array_equal(a, np.arange(6.0))
    with pytest.raises(ValueError):
        out[0] = 1


def test_gemms_without_openblas_are_the_loops_module(tmp_path):
    """Where NumPy has no OpenBLAS of its own, every module's GEMMs are the loops of
    ``compiler.GEMM_LOOPS`` (one module): transposed operands, slices, batches, alpha,
    beta = 1 and gradients checked against NumPy."""
    script = textwrap.dedent("""
        import json, numpy as np, lazyjit as lj
        import lazyjit.backends.cpu.compiler as C
        found = C._blas_pointers
        C._blas_pointers = lambda: (C.ffi.NULL, C.ffi.NULL, C.ffi.NULL, found()[3])
        rng = np.random.default_rng(0)
        errors = {}
        for dt in ("float32", "float64"):
            a, b = (rng.standard_normal(s).astype(dt) for s in ((3, 5, 7), (3, 7, 4)))
            w, c = rng.standard_normal((7, 4)).astype(dt), rng.standard_normal(4).astype(dt)
            la, lb, lw, lc = (lj.tensor(v) for v in (a, b, w, c))
            lt = lj.tensor(np.ascontiguousarray(a[0].T))
            cases = {"batched": (la @ lb, a @ b),
                     "a.T": (lt.T @ lw, a[0] @ w),
                     "b.T": (la[1] @ lj.tensor(np.ascontiguousarray(w.T)).T, a[1] @ w),
                     "alpha, beta": (la[2] @ lw * 2.5 + lc, a[2] @ w * 2.5 + c),
                     # (views: lda, ldb above the columns used)
                     "slices": (la[0][:, :3] @ lw[:3, :2], a[0][:, :3] @ w[:3, :2])}
            loss = lambda x, y: ((x @ y) ** 2).sum()
            ga, gw = lj.grad(loss, argnums=(0, 1))(la[0], lw)
            g = 2 * (a[0] @ w)
            cases["grad a"], cases["grad w"] = (ga, g @ w.T), (gw, a[0].T @ g)
            for name, (got, want) in cases.items():
                errors[f"{dt} {name}"] = float(np.abs(got.numpy() - want).max()
                                               / (np.abs(want).max()))
        print(json.dumps([errors, C._BLAS[0] != C.ffi.NULL, lj.stats()["compiles"]]))
    """)
    env = dict(os.environ, LAZYJIT_FLAGS=f"backend=cpu,cache_dir={tmp_path}", PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    errors, loops, compiles = json.loads(out.stdout.splitlines()[-1])
    assert loops and compiles >= 2  # (the loops' module, then the programs')
    assert len(errors) == 14
    for name, err in errors.items():
        assert err < (1e-5 if name.startswith("float32") else 1e-13), (name, err)


def test_the_committed_ffi_module_is_what_cdefs_generates(tmp_path):
    cdefs.emit(str(tmp_path / "_ffi.py"))
    with open(cdefs.PATH) as committed:
        assert (tmp_path / "_ffi.py").read_text() == committed.read(), \
            "run python -m lazyjit.backends.cpu.cdefs and commit lazyjit/backends/cpu/_ffi.py"
