"""The ``cuda`` backend: CUDA C from the kernel IR, checked by NVRTC for sm_80 and sm_90,
run on a GPU or emulated on the CPU (blocks in turn, each block's threads an OpenMP
team).  The op, gradient, scan, nn and random tables also run on ``cuda``
(``tests/conftest.py``: :data:`CUDA_TABLES`); these tests check what is particular to
it: launch shapes, block reductions over many warps and blocks, error words, NVRTC's
verdicts and the code cache.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.backends import cuda
from lazyjit.backends.cuda import emulate, nvrtc, render
from lazyjit.trace.values import DeviceBuffer, immutable

EMULATED = cuda.gpu_count() == 0


@pytest.fixture
def on_cuda():
    with lj.config(**cuda.flags()):
        yield


@pytest.mark.parametrize("threads,blocks", [(32, 1), (64, 2), (96, 3), (128, 1)])
def test_kernels_are_right_for_any_launch_shape(on_cuda, threads, blocks, monkeypatch, rng):
    """Block reductions (inner axes: shuffles within and across warps), outer-axis
    reductions, arg-reductions and grid-stride loops give NumPy's values whatever the
    block and grid sizes (emulation picks them: here 1-4 warps, 1-3 blocks)."""
    if not EMULATED:
        pytest.skip("launch shapes are chosen by the emulation")
    monkeypatch.setattr(emulate, "THREADS", threads)
    monkeypatch.setattr(emulate, "BLOCKS", blocks)
    x = rng.standard_normal((37, 301)).astype(np.float32)
    i = rng.integers(-50, 50, (5, 1000)).astype(np.int64)
    t, ti = lj.tensor(x), lj.tensor(i)
    np.testing.assert_allclose((t * 2).sum(1).numpy(), (x * 2).sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(t.sum(0).numpy(), x.sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(t.sum().numpy(), x.sum(), rtol=1e-4)
    np.testing.assert_array_equal(t.max(1).numpy(), x.max(1))
    np.testing.assert_array_equal(ti.sum(1).numpy(), i.sum(1))
    np.testing.assert_array_equal(ti.min().numpy(), i.min())
    np.testing.assert_array_equal((ti > 0).any(1).numpy(), (i > 0).any(1))
    np.testing.assert_array_equal((ti > -60).all(1).numpy(), (i > -60).all(1))
    np.testing.assert_array_equal(t.argmax(1).numpy(), x.argmax(1))
    np.testing.assert_array_equal(t.argmin(0).numpy(), x.argmin(0))
    np.testing.assert_allclose(lj.exp(t[:, ::3].T).numpy(), np.exp(x[:, ::3].T), rtol=1e-6)


def test_nan_wins_max_and_argmax(on_cuda):
    x = np.arange(200, dtype=np.float64).reshape(2, 100)
    x[1, 57] = np.nan
    t = lj.tensor(x)
    np.testing.assert_array_equal(t.max(1).numpy(), x.max(1))
    np.testing.assert_array_equal(t.argmax(1).numpy(), x.argmax(1))


def test_index_errors_and_checks(on_cuda):
    """The error word: an index out of range raises IndexError, a failed check its
    message, as on cpu."""
    x = lj.tensor(np.arange(6.0))
    with pytest.raises(IndexError, match="out of bounds"):
        lj.take(x, lj.tensor(np.array([0, 6]))).numpy()
    np.testing.assert_array_equal(lj.take(x, lj.tensor(np.array([-1, 2]))).numpy(), [5.0, 2.0])
    upd = lj.inc_subtensor(x[lj.tensor(np.array([1, 1, 3]))], 1.0).numpy()
    np.testing.assert_array_equal(upd, [0, 3, 2, 4, 4, 5])


def test_nvrtc_rejects_errors_and_warnings():
    """A warning is an error (NVRTC has no -Werror): the message holds NVRTC's log."""
    good = '#include "lazyjit_cuda.h"\nLJ_KERNEL k0(void* const* B, const int64_t* P, ' \
        'int32_t* E) { if (threadIdx.x == 0) E[0] = (int32_t)P[0]; }\n'
    assert len(nvrtc.compile_image(good, "sm_90")) > 0
    with pytest.raises(nvrtc.CudaCompileError, match="(?s)failed.*undefined"):
        nvrtc.compile_image(good.replace("E[0] =", "F[0] ="), "sm_80")
    warns = good.replace("{ if", "{ int64_t u = 1; u = u << 70; if")
    with pytest.raises(nvrtc.CudaCompileError, match="warned"):
        nvrtc.compile_image(warns, "sm_90")


def test_an_image_is_read_from_disk_once_per_process(tmp_path):
    """Found on the H200: a plan built again for a trace seen before (a plan cache miss)
    read its cubin from the disk cache each time; a process keeps the images it made or
    read (under the same key as the disk cache's)."""
    src = '#include "lazyjit_cuda.h"\nLJ_KERNEL k0(void* const* B, const int64_t* P, ' \
        'int32_t* E) { if (threadIdx.x == 0) E[0] = (int32_t)P[1]; }\n'
    with lj.config(cache_dir=str(tmp_path)):
        first = nvrtc.image(src, "sm_90")
        nvrtc._IMAGES.clear()  # (as another process would find it: on disk)
        before = lj.stats()
        assert nvrtc.image(src, "sm_90") == first
        assert nvrtc.image(src, "sm_90") == first
        after = lj.stats()
    assert after["disk_cache_hits"] - before["disk_cache_hits"] == 1
    assert after["compiles"] == before["compiles"]


def test_every_source_is_checked_once_per_cache(tmp_path):
    """Each new module is compiled by NVRTC for sm_80 and sm_90 (``nvrtc_checks``);
    another process with the same disk cache compiles nothing at all."""
    script = textwrap.dedent(f"""
        import numpy as np, lazyjit as lj
        from lazyjit.backends import cuda
        with lj.config(**cuda.flags(), cache_dir={str(tmp_path)!r}):
            x = lj.tensor(np.arange(12.0).reshape(3, 4))
            y = (lj.exp(x) * 3).sum(1).numpy()
        assert np.allclose(y, (np.exp(np.arange(12.0).reshape(3, 4)) * 3).sum(1))
        s = lj.stats()
        print(s["compiles"], s["nvrtc_checks"], s["disk_cache_hits"])
    """)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = ([int(v) for v in r.stdout.split()] for r in runs)
    assert first[1] == 2 * first[0] if EMULATED else first[1] == 2
    assert second[:2] == [0, 0] and second[2] > 0


def test_no_gpu_without_emulation_is_a_clear_error():
    if not EMULATED:
        pytest.skip("this machine has a GPU")
    with lj.config(backend="cuda", cuda_emulate=False):
        with pytest.raises(lj.LazyjitError, match="cuda_emulate=true"):
            (lj.tensor(np.arange(3.0)) + 1).numpy()


def test_devices_follow_the_backend_flag():
    """Tensors have no device of their own yet: ``t.device`` names where the backend
    flag computes, and ``lj.tensor(x, device=...)`` refuses any other device (an error
    naming the flag, never a request silently ignored)."""
    assert lj.tensor([1.0], device="cpu").device == "cpu"
    with pytest.raises(lj.LazyjitError, match="backend='cuda'"):
        lj.tensor([1.0], device="cuda")
    with pytest.raises(lj.LazyjitError, match="unknown device 'tpu:7'"):
        lj.tensor([1.0], device="tpu:7")
    with lj.config(**cuda.flags()):
        t = lj.tensor(np.arange(3.0), device="cuda")
        assert t.device == (t * 2).device == "cuda"
        np.testing.assert_array_equal((t * 2).numpy(), [0.0, 2.0, 4.0])
        with pytest.raises(lj.LazyjitError, match="backend='cpu'"):
            lj.tensor([1.0], device="cpu")


def test_integer_arithmetic_wraps_without_signed_overflow(on_cuda):
    """CUDA C++ has no -fwrapv: integer add, sub, mul, neg, abs and power go through
    unsigned types (NumPy's wrapping; emulated modules trap on a signed overflow, so a
    kernel relying on one fails here).  ``x + 1 > x`` at INT32_MAX is False, as NumPy
    says (a GPU compiler may fold a signed overflow's comparison to True)."""
    x = np.array([2**31 - 1, 5, -3, -2**31], np.int32)
    t = lj.tensor(x)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(((t + 1) > t).numpy(), (x + np.int32(1)) > x)
        for dt in (np.int8, np.int16, np.int64, np.uint16, np.uint64):
            a = np.array([np.iinfo(dt).max, np.iinfo(dt).min, 7], dt)
            b = np.array([3, 2, 5], dt)
            ta, tb = lj.tensor(a), lj.tensor(b)
            for f in (lambda p, q: p + q, lambda p, q: p * q, lambda p, q: p - q,
                      lambda p, q: p ** q, lambda p, q: abs(-p)):
                np.testing.assert_array_equal(f(ta, tb).numpy(), f(a, b))
    src = cuda_source(lambda p: p + 1, x)
    assert "(uint32_t)" in src  # the add of int32 wraps through uint32


def cuda_source(fn, *arrays) -> str:
    """The CUDA source of ``fn`` on ``arrays`` (not compiled)."""
    from lazyjit.backends.cuda import backend
    from lazyjit.trace.graph import collect
    out = fn(*(lj.tensor(a) for a in arrays))
    return backend.generate(collect([out.node]))[0]


def test_complex_modules_include_libcudacxx_through_a_private_precompiled_header():
    """Only a module with complex values includes libcu++ (``LJ_COMPLEX``); with NVRTC
    12.8 and later, the first such module of each architecture makes a precompiled
    header in a folder only this process's user may write, and the next modules use it
    (a header that did not fit would make NVRTC warn: an error here)."""
    real = '#include "lazyjit_cuda.h"\nLJ_KERNEL k0(void* const* B, const int64_t* P, ' \
        'int32_t* E) { ((double*)B[0])[threadIdx.x] = 1.0; }\n'
    mod = render.Module(funcs=["LJ_KERNEL k0(...) { double x; }"])
    assert "LJ_COMPLEX" not in render.render(mod)
    mod.funcs.append("LJ_KERNEL k1(...) { lj_cfloat z; }")
    assert render.render(mod).startswith("#define LJ_COMPLEX 1\n")
    sources = [f"#define LJ_COMPLEX 1\n{real}".replace(
        "((double*)B[0])[threadIdx.x] = 1.0;",
        f"((lj_cdouble*)B[0])[threadIdx.x] = cexp(lj_complex({k}.0, 1.0));") for k in range(2)]
    for arch in nvrtc.CHECK_ARCHS:
        for s in sources:
            assert len(nvrtc.compile_image(s, arch)) > 0
    assert len(nvrtc.compile_image(real, "sm_90")) > 0
    if nvrtc.version() >= (12, 8):
        # (the checks of other tests in this process may have made the PTX ones too)
        assert {arch for arch, _ in nvrtc._PCH} >= set(nvrtc.CHECK_ARCHS)
        folder = os.path.dirname(next(iter(nvrtc._PCH.values())))
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        assert os.stat(folder).st_uid == os.getuid()
        for k in [k for k in nvrtc._PCH if k[0] == "sm_90"]:  # (removed by a cleaner)
            os.remove(nvrtc._PCH[k])
        assert len(nvrtc.compile_image(sources[0].replace("1.0)", "2.0)"), "sm_90")) > 0
        assert len(nvrtc.compile_image(sources[1].replace("1.0)", "2.0)"), "sm_90")) > 0


# --- values left on the device (emulated: the same paths, in host memory) ---

def test_values_stay_on_the_device_and_read_back_anywhere(on_cuda, rng):
    """A computation's results stay where the cuda backend made them (device buffers),
    its inputs' host values are copied there once and kept; the values read back the
    same from ``.numpy()``, from eager code and from another backend's computation."""
    x = rng.standard_normal((5, 7)).astype(np.float32)
    t = lj.tensor(x)
    f = lj.jit(lambda a: a * 2 + 1)
    y = f(t)
    assert type(y.node.buffer) is DeviceBuffer and type(t.node.buffer) is DeviceBuffer
    assert t.node.buffer.host() is not None and np.array_equal(t.numpy(), x)
    z = f(y)  # a device value as an argument
    s = (z - y).sum(axis=0)  # and read eagerly
    np.testing.assert_allclose(z.numpy(), (x * 2 + 1) * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(s.numpy(), ((x * 2 + 1) * 2 + 1 - (x * 2 + 1)).sum(0),
                               rtol=1e-5)
    with lj.config(backend="cpu"):  # a host backend reads their host copies
        np.testing.assert_allclose((z + y).numpy(), (x * 2 + 1) * 3 + 1, rtol=1e-6)
        np.testing.assert_allclose(lj.jit(lambda a, b: a @ b.T)(z, y).numpy(),
                                   ((x * 2 + 1) * 2 + 1) @ (x * 2 + 1).T, rtol=1e-5)
    assert not z.numpy().flags.writeable


def test_shared_variables_updated_on_the_device_then_on_the_host(on_cuda):
    """A shared variable updated by jitted steps on cuda holds a device value; its
    value reads back, and a cpu step continues from it (and back again)."""
    v = lj.shared(np.ones(3, np.float32))
    step = lj.jit(lambda: v.assign(v * 2))
    step()
    step()
    assert type(v.node.buffer) is DeviceBuffer
    np.testing.assert_array_equal(v.get_value(), [4, 4, 4])
    with lj.config(backend="cpu"):
        step()
        np.testing.assert_array_equal(v.get_value(), [8, 8, 8])
    step()
    np.testing.assert_array_equal((v * 1).numpy(), [16, 16, 16])


def test_an_array_passed_through_is_never_the_callers(on_cuda):
    """A jitted function returning its NumPy argument returns a value of its own: the
    caller changing the array later changes nothing lazyjit computed."""
    a = np.arange(4.0)
    out = lj.jit(lambda x: (x, x + 1))(a)
    a[:] = -1
    np.testing.assert_array_equal(out[0].numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(out[1].numpy(), [1, 2, 3, 4])
    g = lj.function([x := lj.vector("x", "float64")], [x * 2])  # host arrays out
    r = g(np.arange(3.0))
    assert type(r[0]) is np.ndarray and np.array_equal(r[0], [0, 2, 4])


class _GpuArray:
    """Device memory as a GPU's behaves for the engine: apart from any host array, read
    back by ``get()`` into a new one."""

    def __init__(self, a):
        self.a = np.array(a)
        self.shape, self.dtype = self.a.shape, self.a.dtype

    def get(self):
        return self.a.copy()


@pytest.fixture
def gpu_like(monkeypatch):
    """The emulation with values held as device.py holds them on a GPU: device memory
    apart from the host copy, an input passed through returned as its own device
    buffer, no donation (found by review: what emulation's shared memory hid)."""
    run = emulate.Plan.run

    def device_run(self, inputs, donate=None):
        outs = run(self, inputs)
        for j, (s, shape) in enumerate(self.prog.outputs):
            if s < self.prog.n_inputs and type(inputs[s]) is DeviceBuffer \
                    and inputs[s].shape == tuple(shape):
                outs[j] = inputs[s]
            else:
                outs[j] = DeviceBuffer(_GpuArray(outs[j].host()))
        return outs
    monkeypatch.setattr(emulate.Plan, "run", device_run)
    monkeypatch.setattr(emulate.Plan, "upload", staticmethod(
        lambda a: DeviceBuffer(_GpuArray(a), host=a if immutable(a) else None)))
    with lj.config(backend="cuda", cuda_emulate=True):
        yield


def test_a_host_plan_never_writes_over_a_device_value(gpu_like):
    """Found by review: a variable given another tensor's device value (an assign, a
    value passed through), then updated in place by a cpu step, overwrote that value's
    host copy (the other tensor changed: [2, 2, 2] for [1, 1, 1])."""
    W = lj.shared(np.zeros(3))
    setw = lj.jit(lambda a: W.assign(a))
    step = lj.jit(lambda: W.assign(W + 1))
    x = lj.tensor(np.ones(3))
    setw(x)
    t = lj.jit(lambda a: a)(W)
    with lj.config(backend="cpu"):
        step()
        step()
    np.testing.assert_array_equal(x.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(t.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(W.get_value(), [3, 3, 3])


def test_lj_function_returns_arrays_of_its_own(gpu_like):
    """Found by review: on a GPU, ``lj.function`` returned the caller's own array for an
    output that is its input, and from its second call (the fast path) device buffers."""
    v = lj.vector("v", "float64")
    f = lj.function([v], [v, v * 2])
    for _ in range(3):
        a = np.arange(3.0)
        out, twice = f(a)
        assert type(out) is np.ndarray and type(twice) is np.ndarray
        a[:] = -1
        np.testing.assert_array_equal(out, [0, 1, 2])
        np.testing.assert_array_equal(twice, [0, 2, 4])


def test_from_dlpack_of_a_device_value(gpu_like):
    """Found by review: ``lj.from_dlpack(t)`` of a value on the GPU raised (NumPy cannot
    import device memory); a tensor gives its value."""
    t = lj.jit(lambda a: a * 2)(lj.tensor(np.arange(3.0)))
    np.testing.assert_array_equal(lj.from_dlpack(t).numpy(), [0, 2, 4])


def test_gpu_memory_is_shared_through_dlpack_and_the_cuda_array_interface(on_cuda):
    """On a GPU, ``cupy.from_dlpack(t)``, ``torch.from_dlpack(t)`` and
    ``cupy.asarray(t)`` read a computed value in place (the same device pointer)."""
    if EMULATED:
        with pytest.raises(AttributeError, match="on the host"):
            assert lj.tensor([1.0]).__cuda_array_interface__ is None
        pytest.skip("no GPU here: emulated values are in host memory")
    import cupy
    t = lj.jit(lambda a: a * 2)(lj.tensor(np.arange(6, dtype=np.float32)))
    ptr = t.__cuda_array_interface__["data"][0]
    assert t.__dlpack_device__()[0] == 2  # kDLCUDA
    c = cupy.from_dlpack(t)
    assert c.data.ptr == ptr and cupy.asarray(t).data.ptr == ptr
    np.testing.assert_array_equal(cupy.asnumpy(c), np.arange(6) * 2)
    torch = pytest.importorskip("torch")
    tt = torch.from_dlpack(t)
    assert tt.is_cuda and tt.data_ptr() == ptr
    np.testing.assert_array_equal(tt.cpu().numpy(), np.arange(6) * 2)
