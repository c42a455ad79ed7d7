"""Running a CUDA module on the CPU (``LAZYJIT_FLAGS=backend=cuda,cuda_emulate=true``).

The module's CUDA source, unchanged, is compiled by the C compiler with
``native/lazyjit_cuda_emu.h`` (``LJ_EMULATE``: blocks one after the other, each
block's threads fibers run in turn up to each barrier, shuffles through a barrier) and
a launcher,
``lj_launch(k, grid, block, B, P, E)``; it is loaded through the code cache as the
``cpu`` modules are.  Device memory is host memory: the buffers are the NumPy blocks of
the ``ir`` backend's interpreter (:func:`lazyjit.backends.ir.run_program`), whose steps
this module's :class:`Executor` runs: device kernels through ``lj_launch``, host steps
(GEMM, sort, window ops, conditionals, scan loops) as the interpreter does, in place of
cuBLAS, cupy's sort and cuDNN.

Launches use small blocks (:data:`THREADS` threads, two warps) and grids of at most
:data:`BLOCKS` blocks, so that every kernel is checked across warps, blocks and its
grid-stride loops: kernels must be right for any launch shape (``tests/test_cuda.py``
launches them on 1 to 4 warps and 1 to 3 blocks).
"""
from __future__ import annotations

import math
import threading

import numpy as np

from lazyjit.backends import ir as ir_backend
from lazyjit.backends.cfamily import kernel_error
from lazyjit.backends.cpu.compiler import NATIVE, ffi, load
from lazyjit.backends.cuda.render import Module
from lazyjit.config import config
from lazyjit.schedule import ir
from lazyjit.trace.values import SEEN, DeviceBuffer, immutable

THREADS = 64   # threads per block in emulation (a multiple of the warp's 32): two warps
BLOCKS = 2     # blocks per grid at most, in emulation
_LAUNCH = threading.Lock()  # one emulated launch at a time: __shared__ are statics


def source(cuda_source: str, n_kernels: int) -> str:
    """``cuda_source`` with the emulation's launcher appended."""
    table = ", ".join(f"k{i}" for i in range(n_kernels)) or "0"
    return (f"#define LJ_EMULATE 1\n{cuda_source}\n"
            "/* (GEMM is a host step: the BLAS pointers every module is given go unused) */\n"
            "void lj_set_blas(void* s, void* d, void* t, void** l) "
            "{ (void)s; (void)d; (void)t; (void)l; }\n"
            f"static const lj_kernel_t lj_kernels[] = {{{table}}};\n"
            "int lj_launch(int k, int64_t grid, int block, void** B, const int64_t* P, "
            "int32_t* E) {\n  return lj_emulate(lj_kernels[k], grid, block, B, P, E);\n}\n")


def settings() -> tuple:
    """The compile settings of emulated modules (as the ``cpu`` compiler's
    ``settings()``), at -O1: a launch takes about 25% less time than at -O0 (the fibers'
    kernels keep their values in registers across barriers and shuffles), for 20% more
    compile time in the emulated tests (131 -> 160 s on 2 cores, CI's budget affords it;
    ``benchmarks/cuda_emulation.py``).  No _FORTIFY_SOURCE, whose longjmp refuses to
    switch stacks, as the fibers of the emulation do.  Unlike the C
    modules there is no ``-fwrapv``, which CUDA C++ lacks: a signed integer overflow
    traps instead (the kernels must wrap through unsigned types, as a GPU needs)."""
    flags = ("-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno",
             "-fno-trapping-math", "-ffp-contract=off", "-fsanitize=signed-integer-overflow",
             "-fsanitize-undefined-trap-on-error", "-w", f"-I{NATIVE}")
    return (config.compiler, flags, config.disk_cache, config.cache_dir, config.strict_cache)


class Plan:
    """A program whose device kernels run emulated (one compiled module per trace)."""

    def __init__(self, prog: ir.Program, mod: Module, cuda_source: str):
        SEEN[0] = True  # (the engine now looks for device values)
        self.prog = prog
        self.lib = load(source(cuda_source, len(mod.funcs)), settings())
        self.params = np.array(mod.params, dtype=np.int64)
        self.P = ffi.from_buffer("int64_t[]", self.params)
        # per device step: (kernel, work items, one block per item?); the grid is chosen
        # at each launch (THREADS and BLOCKS are read then: tests vary them)
        self.launches = {step: (launch.index, math.prod(int(self.params[i])
                                                        for i in launch.work),
                                launch.per_block)
                         for step, launch in mod.launches.items()}
        self.donors, self.n_in, self.outputs = prog.donors, prog.n_inputs, prog.outputs

    device_values = True  # (its values are device buffers, held in host memory)

    @staticmethod
    def upload(array: np.ndarray) -> DeviceBuffer:
        """A host value as an emulated device's: the same memory where no one can write
        into it (lazyjit's own values), else a copy (a caller's array)."""
        if not immutable(array):
            array = array.copy()
            array.flags.writeable = False
        return DeviceBuffer(array, host=array)

    def run(self, inputs: list, donate: dict | None = None) -> list[DeviceBuffer]:
        """The outputs of a call (``donate`` is ignored, as the GPU's plan ignores it:
        a device value's memory may be its host copy's, which views read)."""
        ins = [(a.data if type(a.data) is np.ndarray else a.host())
               if type(a) is DeviceBuffer else a for a in inputs]
        ex = Executor(self)
        outs = ir_backend.run_program(self.prog, ins, None, ex)
        if ex.error[0]:
            raise kernel_error(int(ex.error[0]), self.prog.messages)
        return [_as_device(o, ins, inputs) for o in outs]


def _as_device(out: np.ndarray, ins: list, inputs: list) -> DeviceBuffer:
    """An output as the GPU's would be: an input passed through is that input's device
    buffer; one sharing a caller's array is a copy; a block of the call is its own."""
    for d, given in zip(ins, inputs):
        if out is d and type(given) is DeviceBuffer:
            return given
    if any(np.may_share_memory(out, d) for d in ins):
        out = out.copy()
    if out.flags.writeable:
        out.flags.writeable = False
    return DeviceBuffer(out, host=out)


class Executor(ir_backend.Executor):
    """Runs a program's steps: device kernels launched on the emulated GPU, the others
    as the interpreter runs them."""

    def __init__(self, plan: Plan):
        super().__init__(plan.prog.messages)
        self.plan = plan
        self.error = np.zeros(1, np.int32)  # the call's error word, E
        self._E = ffi.from_buffer("int32_t[]", self.error)

    def steps(self, steps: list, table: list) -> None:
        launches = self.plan.launches
        for k in steps:
            launch = launches.get(k)
            if launch is None:
                ir_backend.RUN[type(k)](self, k, table)
            elif launch[1] > 0:
                self._launch(*launch, table)

    def _launch(self, index: int, work: int, per_block: bool, table: list) -> None:
        threads = THREADS
        grid = min(work if per_block else -(-work // threads), BLOCKS)
        addrs = np.array([0 if p is None else p[0].ctypes.data + p[1] for p in table],
                         dtype=np.uint64)
        B = ffi.cast("void**", addrs.ctypes.data)
        with _LAUNCH:
            rc = self.plan.lib.lj_launch(index, grid, threads, B, self.plan.P, self._E)
        if rc == -2:  # (undefined on a GPU: a bug of the kernel, never of the user)
            raise RuntimeError(f"lazyjit: emulated CUDA kernel k{index} reached a barrier "
                               "that not every thread of its block reached")
        if rc:
            raise MemoryError(f"lazyjit: no memory for the {threads} threads' stacks of "
                              "an emulated block")
