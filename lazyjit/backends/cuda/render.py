"""Rendering the kernel IR (:mod:`lazyjit.schedule.ir`) as one CUDA C translation unit.

Each device kernel record becomes ``LJ_KERNEL kN(B, P, E)`` (``native/lazyjit_cuda.h``):
``B`` the buffer pointers, ``P`` the int64 parameter table (every size, stride, offset
and scalar constant, in the order rendered: the source depends only on the program's
structure), ``E`` the call's error word.  Indexing is 64-bit throughout.  Kernels are
right for any grid and any block of a multiple of 32 threads (the launch picks them):

* elementwise: a grid-stride loop over the flat index of the (collapsed) shape;
* reductions over the innermost dims: one block per output element, each thread
  accumulating a strided share, then a tree of warp shuffles and a second one over the
  warps' results in shared memory; over outer dims: one thread per output element;
  float16 accumulates in float;
* arg-reductions: one thread per output element (the first extreme; the first NaN);
* gather: one thread per element; scatter: one thread per (outer index, column), the
  indices in order (repeated indices accumulate, or the last write wins, as on ``cpu``);
* check: a failed element stores its code in ``E`` unless an earlier step stored one.

GEMM, sort and the window ops are host steps (:mod:`.device` on a GPU, NumPy in
emulation: :mod:`.emulate`); conditionals and scan loops run on the host.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lazyjit.backends.cfamily import (Body, arg_reduction, combine, compute_ctype, ctype,
                                      decode, load_expr, operands, reduce_init, store_expr,
                                      wrapping)
from lazyjit.schedule import ir
from lazyjit.schedule.views import View

HOST_STEPS = (ir.Gemm, ir.Sort, ir.Window, ir.Linalg, ir.FFT, ir.If, ir.Loop)

# the type a reduction accumulates in and exchanges by warp shuffles (32 or 64 bits)
_ACC = {"bool": "int32_t", "int8": "int32_t", "int16": "int32_t", "uint8": "uint32_t",
        "uint16": "uint32_t", "float16": "float"}


def acc_ctype(op: str, dt: np.dtype) -> str:
    """The accumulator type of reduce ``op`` over ``dt``: 32 or 64 bits (what shuffles
    exchange), float for float16, and unsigned for sums and products of signed
    integers, whose overflow wraps as NumPy's does (signed overflow is undefined in
    CUDA C++, which has no ``-fwrapv``)."""
    dt = np.dtype(dt)
    acc = _ACC.get(dt.name) or ctype(dt)
    if op in ("sum", "prod") and dt.kind == "i":
        acc = "u" + acc
    return acc


@dataclass
class Launch:
    """How the host launches device kernel ``index``: ``work`` is the product of the
    parameters at these positions of ``P``: threads (one per work item), or blocks
    when ``per_block`` (a block reduction: one block per output element)."""
    index: int
    work: tuple[int, ...]
    per_block: bool = False


@dataclass
class Module:
    """The kernels of a program, the parameter table, and the launch of each step."""
    funcs: list[str] = field(default_factory=list)
    params: list[int] = field(default_factory=lambda: [0])
    launches: dict = field(default_factory=dict)  # device step -> Launch
    position: dict = field(default_factory=dict)  # "P[i]" -> i

    def p(self, value) -> str:
        """Append ``value`` to the parameter table; the C expression reading it."""
        self.params.append(int(value))
        ref = f"P[{len(self.params) - 1}]"
        self.position[ref] = len(self.params) - 1
        return ref

    def add(self, step, lines: list[str], work: list[str], per_block: bool = False) -> None:
        """Add kernel ``k<n>`` of body ``lines`` for ``step``; ``work`` lists the
        ``P[i]`` whose product is its number of work items."""
        k = len(self.funcs)
        self.funcs.append(f"LJ_KERNEL k{k}(void* const* __restrict__ B, const int64_t* "
                          f"__restrict__ P, int32_t* __restrict__ E) {{\n"
                          + "\n".join(lines) + "\n}\n")
        self.launches[step] = Launch(k, tuple(self.position[w] for w in work), per_block)


_GID = "(int64_t)blockIdx.x * blockDim.x + threadIdx.x"
_GSTRIDE = "(int64_t)gridDim.x * blockDim.x"


def _index(j: int, st: list[str], dims: list[int], cls: str) -> str:
    """The element of operand ``j`` at indices ``i<d>`` of ``dims`` (its last dim read
    as contiguous, broadcast or strided: load class ``cls``)."""
    last = dims[-1] if dims else None
    terms = [f"i{d} * {st[d]}" for d in dims if d != last]
    if last is not None:
        terms.append({"c": f"i{last}", "b": "", "s": f"i{last} * {st[last]}"}[cls])
    return " + ".join(t for t in terms if t) or "0"


def _loads(views, st, dims, cls, first: int) -> list[str]:
    """Loads of ``views`` (operands ``first``, ...) at indices ``i<d>`` of ``dims``, in
    their compute types (float16 as float)."""
    unused = [f"(void)i{dims[-1]};"] if dims and all(c == "b" for c in cls) else []
    return unused + [
        f"const {compute_ctype(v.dtype)} L{j + first} = "
        f"{load_expr(f'p{j + first}[{_index(j + first, st[j + first], dims, cls[j + first])}]', v.dtype)};"  # noqa: E501
        for j, v in enumerate(views)]


class _Body(Body):
    """Fused expressions in CUDA C++: no ``-fwrapv`` there (integer arithmetic wraps
    through unsigned types: :func:`~lazyjit.backends.cfamily.wrapping`)."""
    wrap_integers = True


def elementwise(mod: Module, k: ir.Elementwise) -> None:
    """``dsts[j][idx] = roots[j](idx)``: a grid-stride loop over the flat index."""
    n_out = len(k.dsts)
    sp = k.space()
    loads = list(sp.views[n_out:])
    dims, sizes, st, cls, _, decls = operands(mod, sp, n_out=n_out)
    body = _Body(mod, k.leaves, {v: j + n_out for j, v in enumerate(loads)})
    results = [body.value(r) for r in k.roots]
    all_dims = list(range(len(dims)))
    lines = ["  " + d for d in decls]
    if k.is_self_copy():  # a copy onto itself (its buffers planned in place)
        lines.append("  if ((const void*)p0 == (const void*)p1) return;")
    lines += [f"  const int64_t n = {' * '.join(sizes)};",
              f"  for (int64_t w = {_GID}; w < n; w += {_GSTRIDE}) {{",
              *("    " + s for s in decode(all_dims, sizes, "w")),
              *("    " + s for s in _loads(loads, st, all_dims, cls, n_out)),
              *("    " + s for s in body.stmts),
              *(f"    p{j}[{_index(j, st[j], all_dims, cls[j])}] = "
                f"{store_expr(res, k.dsts[j].dtype)};" for j, res in enumerate(results)),
              "  }"]
    mod.add(k, lines, sizes)


def reduce(mod: Module, k: ir.Reduce) -> None:
    """``dst = op over axes of root``: a block per output element when the innermost
    dim is reduced (not for a float product, in order), else a thread per output
    element."""
    op, dt = k.op, k.dtype
    sp = k.space()
    loads = list(sp.views[1:])
    dims, sizes, st, cls, flags, decls = operands(mod, sp)
    body = _Body(mod, k.leaves, {v: j + 1 for j, v in enumerate(loads)})
    res = body.value(k.root)
    D = len(dims)
    kept = [d for d in range(D) if not flags[d]]
    red = [d for d in range(D) if flags[d]]
    A, C = acc_ctype(op, dt), compute_ctype(dt)
    init = f"({A}){reduce_init(op, dt)}"
    nK = [sizes[d] for d in kept] or [mod.p(1)]
    nR = " * ".join(sizes[d] for d in red) or "1"
    out = f"p0[{' + '.join(f'i{d} * {st[0][d]}' for d in kept) or '0'}]"
    inner = [*decode(red, sizes, "r", "r_"), *_loads(loads, st, list(range(D)), cls, 1),
             *body.stmts, f"acc = {combine(op, dt, 'acc', f'({A})({res})')};"]
    lines = ["  " + d for d in decls] + [f"  const int64_t nK = {' * '.join(nK)}, "
                                          f"nR = {nR};"]
    # (a float product in NumPy's order, left to right, by one thread: a 0 before an
    # overflow gives 0, one after it NaN; a block's lanes gave NaN for both)
    if red and red[-1] == D - 1 and not (op == "prod" and dt.kind in "fc"):
        lines += [f"  __shared__ {A} part[32];",
                  "  for (int64_t o = blockIdx.x; o < nK; o += gridDim.x) {",
                  *("    " + s for s in decode(kept, sizes, "o", "o_")),
                  f"    {A} acc = {init};",
                  "    for (int64_t r = threadIdx.x; r < nR; r += blockDim.x) {",
                  *("      " + s for s in inner), "    }",
                  *("    " + s for s in _block_reduce(op, dt, A, init)),
                  f"    if (threadIdx.x == 0) {out} = {store_expr(f'({C})acc', dt)};", "  }"]
        mod.add(k, lines, nK, per_block=True)
        return
    lines += [f"  for (int64_t o = {_GID}; o < nK; o += {_GSTRIDE}) {{",
              *("    " + s for s in decode(kept, sizes, "o", "o_")),
              f"    {A} acc = {init};",
              "    for (int64_t r = 0; r < nR; r++) {",
              *("      " + s for s in inner), "    }",
              f"    {out} = {store_expr(f'({C})acc', dt)};", "  }"]
    mod.add(k, lines, nK)


def _block_reduce(op: str, dt: np.dtype, A: str, init: str) -> list[str]:
    """Combine ``acc`` over the block into thread 0's ``acc``: warp shuffles, then, for
    blocks of several warps, each warp's result in ``part`` and shuffles over those
    (every lane takes part in every shuffle: uniform control flow, as the emulation's
    barriers need)."""
    shuffle = [f"for (int d = 16; d > 0; d >>= 1) {{ const {A} s_ = lj_shfl_down_{A}(acc, d); "
               f"acc = {combine(op, dt, 'acc', 's_')}; }}"]
    return [*shuffle,
            "if (blockDim.x > 32) {  /* (the same branch for the whole block) */",
            "  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;",
            "  __syncthreads();",
            f"  acc = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : {init};",
            *("  " + x for x in shuffle),
            "  __syncthreads();  /* (part is written again for the next output) */",
            "}"]


def argreduce(mod: Module, k: ir.ArgReduce) -> None:
    """Index of the first max/min (the first NaN, as NumPy) along ``k.axis``: a thread
    per output element."""
    decls, n_kept, body = arg_reduction(mod, k)
    mod.add(k, [*("  " + x for x in decls),
                f"  for (int64_t w = {_GID}; w < nK; w += {_GSTRIDE}) {{",
                *("    " + x for x in body), "  }"], n_kept or [mod.p(1)])


def _indexed(mod: Module, base: View, idx: View, axis: int) -> tuple[list[str], list[str]]:
    """Declarations shared by gather and scatter (``base`` seen as ``(A, N, C)`` around
    ``axis``, ``I`` indices at ``ix``) and the parameters naming ``A``, ``I``, ``C``."""
    sizes = [mod.p(math.prod(base.shape[:axis])), mod.p(base.shape[axis]),
             mod.p(math.prod(base.shape[axis + 1:])), mod.p(math.prod(idx.shape))]
    A, N, C, n_idx = sizes
    return ([f"  const int64_t* ix = (const int64_t*)B[{idx.slot}] + {mod.p(idx.offset)};",
             f"  const int64_t A = {A}, N = {N}, C = {C}, I = {n_idx};"], [A, n_idx, C])


def _zero(dt: np.dtype, lhs: str) -> str:
    """The statement storing a zero of ``dt`` at ``lhs``: through the unsigned integer
    of its size (float16's storage is a struct in CUDA C), a complex as a complex."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        return f"{lhs} = ({ctype(dt)})0;"
    return f"*(uint{8 * dt.itemsize}_t*)&{lhs} = 0;"


def gather(mod: Module, k: ir.Gather) -> None:
    """``dst = take(src, idx, axis)``: a thread per element; an index out of range
    stores error 1 and a zero."""
    dst, src = k.dst, k.src
    head, work = _indexed(mod, src, k.idx, k.axis)
    T = ctype(src.dtype)
    mod.add(k, [*head,
                f"  const {T}* x = (const {T}*)B[{src.slot}] + {mod.p(src.offset)};",
                f"  {T}* out = ({T}*)B[{dst.slot}] + {mod.p(dst.offset)};",
                f"  for (int64_t w = {_GID}; w < A * I * C; w += {_GSTRIDE}) {{",
                "    const int64_t c = w % C, ai = w / C, a = ai / I, i = ai % I;",
                "    int64_t j = ix[i]; if (j < 0) j += N;",
                f"    if ({int(k.checked)} && (j < 0 || j >= N)) {{",
                f"      lj_fail(E, 1); {_zero(dst.dtype, 'out[w]')} continue;",
                "    }",
                "    out[w] = x[(a * N + j) * C + c];", "  }"], work)


def scatter(mod: Module, k: ir.Scatter) -> None:
    """``dst[..., idx, ...] (+)= vals`` along ``axis``: a thread per (outer index,
    column), taking the indices in order."""
    dst, vals = k.dst, k.vals
    head, (A, _, C) = _indexed(mod, dst, k.idx, k.axis)
    T, dt = ctype(dst.dtype), dst.dtype
    q, r = "x[(a * N + j) * C + c]", "v[(a * I + i) * C + c]"
    if not k.add:
        update = f"{q} = {r};"
    elif dt.kind == "b":
        update = f"{q} |= {r};"
    elif dt.kind in "iu":  # (wrapping, as NumPy's)
        update = f"{q} = {wrapping('add', dt, [q, r])};"
    else:  # (float16: added in float, rounded at each store, as cpu's loop does)
        update = f"{q} = {store_expr(f'{load_expr(q, dt)} + {load_expr(r, dt)}', dt)};"
    mod.add(k, [*head, f"  {T}* x = ({T}*)B[{dst.slot}] + {mod.p(dst.offset)};",
                f"  const {T}* v = (const {T}*)B[{vals.slot}] + {mod.p(vals.offset)};",
                f"  for (int64_t w = {_GID}; w < A * C; w += {_GSTRIDE}) {{",
                "    const int64_t a = w / C, c = w % C;",
                "    for (int64_t i = 0; i < I; i++) {",
                "      int64_t j = ix[i]; if (j < 0) j += N;",
                f"      if ({int(k.checked)} && (j < 0 || j >= N)) {{ lj_fail(E, 1); continue; }}",
                f"      {update}",
                "    }", "  }"], [A, C])


def check(mod: Module, k: ir.Check) -> None:
    """Store error ``3 + k.code`` when an element of the bool view ``ok`` is false
    (unless an earlier step stored an error: ``lj_fail``)."""
    ok = k.ok
    n = mod.p(math.prod(ok.shape))
    mod.add(k, [f"  const uint8_t* ok = (const uint8_t*)B[{ok.slot}] + {mod.p(ok.offset)};",
                f"  for (int64_t w = {_GID}; w < {n}; w += {_GSTRIDE})",
                f"    if (!ok[w]) lj_fail(E, {3 + k.code});"], [n])


_KERNELS = {ir.Elementwise: elementwise, ir.Reduce: reduce, ir.ArgReduce: argreduce,
            ir.Gather: gather, ir.Scatter: scatter, ir.Check: check}


def render_steps(mod: Module, steps: list) -> None:
    """Add the device kernels of ``steps`` and of the steps nested in them."""
    for k in steps:
        if isinstance(k, ir.If):
            render_steps(mod, k.then)
            render_steps(mod, k.orelse)
        elif isinstance(k, ir.Loop):
            render_steps(mod, k.body.steps)
        elif not isinstance(k, HOST_STEPS):
            _KERNELS[type(k)](mod, k)


def render_program(prog: ir.Program) -> Module:
    """The device kernels, parameter table and launches of ``prog``."""
    mod = Module()
    render_steps(mod, prog.steps)
    return mod


def render(mod: Module) -> str:
    """The module's CUDA source (emulation appends its launcher: :mod:`.emulate`); one
    with complex values defines ``LJ_COMPLEX`` (``native/lazyjit_cuda.h`` then includes
    libcu++'s complex type, which only such modules pay for)."""
    body = "\n".join(mod.funcs)
    uses_complex = any(ctype(np.dtype(d)) in body for d in ("complex64", "complex128"))
    return ("#define LJ_COMPLEX 1\n" if uses_complex else "") + \
        '#include "lazyjit_cuda.h"\n\n' + body
