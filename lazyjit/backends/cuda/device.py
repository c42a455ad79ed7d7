"""Running a CUDA module on the GPU through cupy.

The module's image is compiled by NVRTC for the device's architecture (``sm_XY``) and
kept in lazyjit's code cache (:func:`.nvrtc.image`: verified bytes), then loaded as a
cupy module; its kernels are launched on cupy's current stream with grids from the
parameter table (:class:`.render.Launch`).  Buffers are blocks of cupy's memory pool,
addressed as the interpreter's (:mod:`lazyjit.backends.ir`) blocks are; host steps run
on cupy: GEMM through cuBLAS (``cupy.matmul``; float16 in float32, rounded once, as the
interpreter's GEMM, which it is), and,
for now, sort, the window ops, the linalg ops and FFTs by their NumPy references (pocketfft)
through host memory.

Inputs are NumPy arrays (copied to the device at each call) or device buffers
(:class:`lazyjit.trace.values.DeviceBuffer`: values computed on the device, or host
values uploaded once, :func:`upload`); outputs are device buffers, left on the device.
A call waits for the GPU only when its program may fail (an index check, a
factorization): it reads the error word then, to raise where the computation was asked
for; otherwise nothing waits until a value is read (``DeviceBuffer.host``).  Every
call runs on cupy's current stream and values carry no event: a program that switches
streams between computing a value and reading it (``cupy.cuda.Stream``, per-thread
default streams) must synchronize itself.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.backends import ir as ir_backend
from lazyjit.backends.cfamily import kernel_error
from lazyjit.backends.cuda import nvrtc
from lazyjit.backends.cuda.render import Module
from lazyjit.ops import REGISTRY
from lazyjit.schedule import ir
from lazyjit.stats import count
from lazyjit.schedule.views import View
from lazyjit.trace.values import SEEN, DeviceBuffer, immutable

class _Cupy:
    """cupy, imported on first use: only a GPU needs it (the backend imports this module
    on every machine; emulation runs without cupy)."""

    def __getattr__(self, name: str):
        import cupy
        return getattr(cupy, name)


cp = _Cupy()
THREADS = 256     # threads per block
MAX_BLOCKS = 1 << 16  # grid-stride loops cover the rest


def arch() -> str:
    """The current device's architecture, ``sm_XY``."""
    return f"sm_{cp.cuda.Device().compute_capability}"


def upload(array: np.ndarray) -> DeviceBuffer:
    """A host value copied to the current device; the array stays its host copy where
    no one can write into it (lazyjit's own values; a caller's array is not kept)."""
    return DeviceBuffer(cp.asarray(array), host=array if immutable(array) else None)


def _on_device(a):
    """An input as a contiguous cupy array."""
    if type(a) is DeviceBuffer:
        a = a.data
        if type(a) is np.ndarray:  # (an emulated value)
            a = cp.asarray(a)
        return a
    return cp.ascontiguousarray(cp.asarray(a))


class Plan:
    """A program whose device kernels run on the GPU."""

    device_values = True  # (its inputs may be device buffers; its outputs are)
    upload = staticmethod(upload)

    def __init__(self, prog: ir.Program, mod: Module, source: str):
        SEEN[0] = True  # (the engine now looks for device values)
        self.prog = prog
        self.module = cp.cuda.function.Module()
        self.module.load(nvrtc.image(source, arch()))
        self.funcs = [self.module.get_function(f"k{i}") for i in range(len(mod.funcs))]
        params = np.array(mod.params, dtype=np.int64)
        self.device = cp.cuda.Device()  # (the module, P and the buffers live there)
        self.P = cp.asarray(params)
        self.no_error = cp.zeros(1, cp.int32)
        self.device.synchronize()  # (P copied before any stream's kernel reads it)
        self.launches = {}
        for step, launch in mod.launches.items():
            work = math.prod(int(params[i]) for i in launch.work)
            blocks = work if launch.per_block else -(-work // THREADS)
            self.launches[step] = (self.funcs[launch.index], min(blocks, MAX_BLOCKS))
        self.donors, self.n_in, self.outputs = {}, prog.n_inputs, prog.outputs

    def run(self, inputs: list, donate: dict | None = None) -> list[DeviceBuffer]:
        with self.device:
            return self._run(inputs)

    def _run(self, inputs: list) -> list[DeviceBuffer]:
        prog, n_in = self.prog, self.prog.n_inputs
        arrays = [_on_device(a) for a in inputs]
        blocks = [cp.empty(n, cp.uint8) for n in prog.block_bytes]
        table = [(a.reshape(-1).view(cp.uint8), 0) for a in arrays]
        table += [(blocks[b], 0) for b in prog.block]
        ex = Executor(self)
        ex.steps(prog.steps, table)
        count("kernels_run", ex.launched)
        if prog.may_fail:
            error = int(ex.error.get()[0])  # (waits for the GPU)
            if error:
                raise kernel_error(error, prog.messages)
        outs = []
        for s, shape in prog.outputs:
            if s < n_in:  # an input passed through: itself (values never change)
                a = inputs[s]
                if type(a) is DeviceBuffer and a.shape == tuple(shape):
                    outs.append(a)
                    continue
                a = arrays[s]
            else:
                dt = prog.slots[s - n_in][1]
                a = cp.ndarray(shape, dt, memptr=blocks[prog.block[s - n_in]].data)
            outs.append(DeviceBuffer(a.reshape(shape)))
        return outs


def device_view(table, v: View) -> cp.ndarray:
    """The cupy array that view ``v`` addresses in the buffer table."""
    base, off = table[v.slot]
    isz = v.dtype.itemsize
    return cp.ndarray(v.shape, v.dtype, memptr=base.data + off + v.offset * isz,
                      strides=tuple(s * isz for s in v.strides))


class Executor(ir_backend.Executor):
    """Runs a program's steps on the GPU: device kernels launched, GEMM on cuBLAS,
    conditionals read on the host, scan loops as the interpreter takes them."""

    def __init__(self, plan: Plan):
        super().__init__(plan.prog.messages)
        self.plan = plan
        # the call's error word: its own where a kernel may write it (read after the
        # call); else the plan's, which no kernel writes (no allocation per call)
        self.error = cp.zeros(1, cp.int32) if plan.prog.may_fail else plan.no_error
        self.launched = 0  # kernels launched (lj.stats()'s kernels_run)

    xp = cp
    view = staticmethod(device_view)

    def steps(self, steps: list, table: list) -> None:
        B = None  # the table's addresses on the device, copied again after a loop or a
        for k in steps:  # conditional (whose steps move rows' addresses in the table)
            launch = self.plan.launches.get(k)
            if launch is None:
                kind = type(k)
                _HOST[kind](self, k, table)
                if kind is ir.Loop or kind is ir.If:
                    B = None
            elif launch[1] > 0:
                fn, grid = launch
                if B is None:
                    B = cp.asarray(np.array([0 if p is None else p[0].data.ptr + p[1]
                                             for p in table], dtype=np.uint64))
                fn((grid,), (THREADS,), (B, self.plan.P, self.error))
                self.launched += 1

    def gemm(self, k: ir.Gemm, table) -> None:
        """cuBLAS through ``cupy.matmul``, into the output's own memory where it is a
        plain product into a contiguous float32 or float64 block apart from the operands
        (else the interpreter's steps: a product, scaled or accumulated, then a copy)."""
        a, b, dst = (device_view(table, v) for v in (k.a, k.b, k.dst))
        dt = dst.dtype
        if (k.accumulate or k.alpha != 1.0 or dt.char not in "fd" or a.dtype != dt
                or b.dtype != dt
                or not a.ndim == b.ndim == dst.ndim >= 2
                or dst.shape != a.shape[:-1] + b.shape[-1:] or a.shape[:-2] != b.shape[:-2]
                or not dst.flags.c_contiguous or cp.may_share_memory(dst, a)
                or cp.may_share_memory(dst, b)):
            return ir_backend.Executor.gemm(self, k, table)
        cp.matmul(a, b, out=dst)

    def sort(self, k: ir.Sort, table) -> None:
        src = cp.asnumpy(self.view(table, k.src))
        self.view(table, k.dst)[...] = cp.asarray(REGISTRY["argsort"].ref(src, k.descending))

    def window(self, k: ir.Window, table) -> None:
        a, b = (cp.asnumpy(self.view(table, v)) for v in (k.a, k.b))
        out = REGISTRY[k.op].ref(a, b, k.arg)
        self.view(table, k.dst)[...] = cp.asarray(np.asarray(out).astype(k.dst.dtype))

    def linalg(self, k: ir.Linalg, table) -> None:
        srcs = [cp.asnumpy(self.view(table, v)) for v in (k.a, k.b) if v is not None]
        self.view(table, k.dst)[...] = cp.asarray(REGISTRY[k.op].ref(*srcs, k.arg))

    def fft(self, k: ir.FFT, table) -> None:
        src = cp.asnumpy(self.view(table, k.a))
        self.view(table, k.dst)[...] = cp.asarray(REGISTRY["fft"].ref(src, k.arg))

    def branch(self, k: ir.If, table) -> None:
        self.steps(k.then if self.view(table, k.cond).item() else k.orelse, table)


_HOST = {ir.Gemm: Executor.gemm, ir.Sort: Executor.sort, ir.Window: Executor.window,
         ir.Linalg: Executor.linalg, ir.FFT: Executor.fft, ir.If: Executor.branch,
         ir.Loop: Executor.loop}
