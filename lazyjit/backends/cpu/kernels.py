"""C emitters, one per kernel record of the IR (:mod:`lazyjit.schedule.ir`): fused
elementwise, fused reduction, arg-reduction, GEMM, gather, scatter and check.

Every emitter adds one kernel, ``LJ_KERNEL int kN(void** B, const int64_t* P, const
int64_t* Q)``, to a :class:`Module` (a new function, or an earlier kernel's of the same
code).  Sizes, strides and offsets are read from the parameter table at indices fixed by
the code's structure, so the same source serves every shape: the values are filled in
per trace.  Loops run over a flat index of work items (outer dims times blocks of the
innermost dim), split among threads by the prelude's ``lj_parallel`` (or under ``omp
parallel for``); the innermost loop is ``omp simd`` and calls libmvec's vector math.

float16 values are loaded and stored through :func:`~lazyjit.backends.cfamily.load_expr`
and :func:`~lazyjit.backends.cfamily.store_expr` and computed in float: reductions
accumulate in float and round once, GEMMs multiply in float (BLAS's sgemm on float
copies of the operands, or a loop summing in float).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

import numpy as np

from lazyjit.backends.cfamily import (HALF, Body, arg_reduction, combine, compute_ctype,
                                      const_param, ctype, decode, load_expr, loops,
                                      operands, reduce_init, store_expr)
from lazyjit.backends.cpu.table import SLOT
from lazyjit.schedule import ir
from lazyjit.schedule.views import View, gemm_operand

# threads a kernel may use (OpenMP's team is at most this large); it sizes per-thread
# workspaces and work splits, in the parameter table, never in the source
MAX_THREADS = os.cpu_count() or 1
PAR_MIN = 1 << 18     # elements below which a kernel runs on one thread
# ... inside a loop body (a scan step): each parallel region wakes the OpenMP team,
# which then competes with OpenBLAS's threads for the cores at every step (a medium
# PTB LSTM step went from 0.33 to 2 s next to two busy processes); steps run their
# elementwise kernels on one thread unless they are this large
PAR_MIN_LOOP = 1 << 20
RED_BLOCK = 4096    # innermost block of a float reduction (blocked summation)
# columns of a float16 reduction over outer axes accumulated at once (in a float array)
HALF_COLUMNS = 256
# GEMMs below this many multiply-adds run single-threaded: waking BLAS threads costs
# more than it saves (1M multiply-adds: a 64x64x256 GEMM; the MLP step at batch 128,
# whose 128x64x256 GEMMs are 2M, is 12% faster threaded than at a 4M threshold)
BLAS_MT_MIN = 2.0 ** 20


@dataclass
class Parallel:
    """A kernel's final loop ``for w in [0, count)`` over ``body``: spread over threads
    by OpenMP when ``work`` (elements) is large and ``guard`` holds, else a plain call
    (no OpenMP runtime call at all)."""
    work: str
    count: str
    body: list[str]
    guard: str = "1"
    # work item w is block kb / bs of outer index o, with ``nb`` blocks per row: kept
    # as counters (one division per call, none per item: a scan step calls kernels of
    # one item, where a 64-bit division per call cost a third of the step)
    blocked: bool = False


class Module:
    """Accumulates kernel functions, their calls and the runtime parameter table.

    A kernel's function reads its own parameters, and the numbers of the buffers it
    reads and writes, through ``Q``, a pointer to where they start in the table; the
    whole table ``P`` serves the busy flag ``P[0]``, the calls of nested kernels and the
    window ops' geometry (``P + first``).  The kernels of a loop body read their buffers
    ``B[slot]`` directly (slots of the body's own table).  Kernels of the same code (a
    training step updates every parameter with one kernel, fusion makes the same bias
    kernel per layer, an LSTM's layers run one scan body) are then one function, called
    with different ``Q``: a module compiles once per distinct kernel, not once per
    kernel."""

    def __init__(self):
        self.funcs: list[str] = []  # the distinct kernel functions
        self._func_of: dict[str, int] = {}  # a kernel's code (named K@) -> its function
        self.n_kernels = 0  # kernels added (each runs once per lj_run, or per step)
        # C helper functions the kernels call (window ops: :mod:`.conv`), each once, in
        # the order added, rendered before the kernels
        self.helpers: dict[str, None] = {}
        # P[0] is set at each call: nonzero when the machine is busy (more runnable
        # processes than cores), so that kernels and BLAS stay on one thread
        self.params: list[int] = [0]
        self._base = 1  # where the kernel being rendered starts in params
        # the kernels the current program level calls in order (``lj_run``, a side of a
        # conditional, or a loop body: see :mod:`.loops`): (function, its Q in P)
        self.calls: list[tuple[int, int]] = []
        self.in_loop = False  # while a loop body is rendered (see :mod:`.loops`)

    @property
    def par_min(self) -> int:
        """Elements below which a kernel runs on one thread (:data:`PAR_MIN_LOOP` in a
        loop body)."""
        return PAR_MIN_LOOP if self.in_loop else PAR_MIN

    def p(self, value) -> str:
        """A parameter of the kernel being rendered, as the C expression that reads it
        (``P[n]``, read as ``Q[n - start]`` once the kernel is added)."""
        self.params.append(int(value))
        return f"P[{len(self.params) - 1}]"

    @staticmethod
    def call(entry: tuple[int, int], table: str = "B") -> str:
        """The C call of a kernel of :attr:`calls` on buffer table ``table``."""
        return f"k{entry[0]}({table}, P, P + {entry[1]})"

    def add(self, lines: list[str], loop: Parallel | None = None) -> None:
        """Add a kernel of ``lines`` (which read its parameters as ``P[n]`` and buffers
        as ``B[slot]``).  With a final parallel ``loop`` it becomes two functions:
        ``k<n>_loop(B, P, Q, w0, w1)`` runs work items ``[w0, w1)`` (emitted once, not
        inlined), and ``k<n>`` calls it on all items, or through the prelude's
        ``lj_parallel`` (per thread chunk, under OpenMP) when the work is large.  The
        kernel's function is a previous kernel's when their code is the same."""
        sig = "(void** restrict B, const int64_t* restrict P, const int64_t* restrict Q"
        body = "\n".join(lines)
        if loop is None:
            code = f"LJ_KERNEL int K@{sig}) {{\n{body}\n  return 0;\n}}\n"
        else:
            serial = "    K@_loop(B, P, Q, 0, count_);\n"
            if self.par_min > PAR_MIN:  # a loop body's kernel: its serial loop inlined (a
                # call per step cost a fifth of a scalar scan step)
                serial = "".join(f"    {x}\n" for x in _items(loop, "0", "count_"))
            code = (f"static __attribute__((noinline)) void K@_loop{sig}, int64_t w0, "
                    f"int64_t w1) {{\n{body}\n" +
                    "".join(f"  {x}\n" for x in _items(loop, "w0", "w1")) + "}\n"
                    f"LJ_KERNEL int K@{sig}) {{\n{body}\n"
                    f"  const int64_t count_ = {loop.count};\n"
                    f"  if (!P[0] && {loop.guard} && {loop.work} > {self.par_min}) {{\n"
                    "    lj_parallel(K@_loop, B, P, Q, count_);\n"
                    f"  }} else {{\n{serial}  }}\n  return 0;\n}}\n")
        base = self._base
        # (a loop body's kernel reads its buffers B[slot] directly, slots of the body's
        # own table: an indirect read per step cost 20% of a scalar scan step; its
        # parameters as Q[n], as fast as P[n], so the kernels of two loops of the same
        # body, as an LSTM's layers, are one function)
        code = self._relative(code, buffers=not self.in_loop)
        self._base = len(self.params)
        f = self._func_of.get(code)
        if f is None:
            f = self._func_of[code] = len(self.funcs)
            self.funcs.append(code.replace("K@", f"k{f}"))
        self.calls.append((f, base))
        self.n_kernels += 1

    def _relative(self, code: str, buffers: bool) -> str:
        """``code`` reading its parameters ``P[n]`` as ``Q[n - start]`` and, with
        ``buffers``, its buffers ``B[slot]`` as ``B[Q[m]]``, the slot numbers appended
        to its parameters."""
        base, end, slots = self._base, len(self.params), {}

        def param(m: re.Match) -> str:
            n = int(m.group(1))
            if n == 0:
                return "P[0]"
            if not base <= n < end:  # an emitter interleaved two kernels' parameters
                raise AssertionError(f"a kernel reads P[{n}] outside its parameters "
                                     f"[{base}, {end})")
            return f"Q[{n - base}]"

        def buffer(m: re.Match) -> str:
            slot = int(m.group(1))
            if slot not in slots:
                slots[slot] = len(self.params) - base
                self.params.append(slot)
            return f"B[Q[{slots[slot]}]]"
        code = _PARAM.sub(param, code)
        return _BUFFER.sub(buffer, code) if buffers else code


_PARAM = re.compile(r"\bP\[(\d+)\]")
_BUFFER = re.compile(r"\bB\[(\d+)\]")


def _items(loop: Parallel, lo: str, hi: str) -> list[str]:
    """The lines of ``loop``'s loop over work items ``[lo, hi)`` (a blocked loop with
    its (row, block) counters: one division when ``lo`` is not 0, none per item)."""
    start, step = [], []
    if loop.blocked:
        start = ["int64_t o_ = 0, kb_ = 0;"]
        if lo != "0":
            start.append(f"if ({lo}) {{ o_ = {lo} / nb; kb_ = ({lo} - o_ * nb) * bs; }}")
        step = ["  kb_ += bs;", "  if (kb_ >= nL) { kb_ = 0; o_++; }"]
    return [*start, f"for (int64_t w = {lo}; w < {hi}; w++) {{",
            *("  " + x for x in loop.body), *step, "}"]


_BLOCKED_ITEM = "const int64_t o = o_, kb = kb_;"  # (the first line of a blocked body)


def _ptrs(operands, strides, dims, const_flags) -> list[str]:
    out = []
    for j, (view, st) in enumerate(zip(operands, strides)):
        off = "".join(f" + i{d} * {st[d]}" for d in dims)
        q = "const " if const_flags[j] else ""
        out.append(f"{q}{ctype(view.dtype)}* q{j} = p{j}{off};")
    return out


def _load(j: int, cls: str, st_last: str, suffix: str = "") -> str:
    q = f"q{j}{suffix}"
    return {"c": f"{q}[k]", "b": f"{q}[0]", "s": f"{q}[k * {st_last}]"}[cls]


def _leaf(j: int, v: View, cls: list[str], st: list, suffix: str = "") -> str:
    """The declaration of operand ``j`` (view ``v``) loaded at the current index as
    ``L<j>`` (from pointer ``q<j>``, both with ``suffix``), in its compute type."""
    return (f"const {compute_ctype(v.dtype)} L{j}{suffix} = "
            f"{load_expr(_load(j, cls[j], st[j][-1], suffix), v.dtype)}")


def _block_size(outer: int, last: int, min_block: int = 4096) -> int:
    """Block of the innermost dim per work item: whole rows when there are many, else
    about 64 blocks of at least ``min_block`` elements, so that threads share the work."""
    if outer >= 64 or last <= min_block:
        return max(last, 1)
    return max(min_block, -(-last // 64))


def _column_block(outer: int, last: int, min_block: int = 1024) -> int:
    """Block of the innermost (kept) dim per work item of a reduction over outer axes:
    as :func:`_block_size`, but when there are fewer rows than threads the columns are
    split so that each thread streams its own part of every row (each column is still
    summed over the rows in order: the result does not depend on the split)."""
    if outer >= MAX_THREADS:
        return _block_size(outer, last)
    # (parts of about the same width, about min_block or wider: 1025 columns were split
    # as 1024 + 1, 5000 as 4096 + 904, leaving one thread most of the work)
    parts = min(-(-MAX_THREADS // max(outer, 1)), last // min_block)
    return -(-last // parts) if parts > 1 else max(last, 1)


def elementwise(mod: Module, k: ir.Elementwise) -> None:
    """``dsts[j][idx] = roots[j](idx)`` for every ``j`` in one loop over the shape: the
    fused nodes they share are computed once, the leaves read once (multi-output
    fusion); destinations may be any strided views."""
    n_out = len(k.dsts)
    sp = k.space()
    views, loads = list(sp.views), list(sp.views[n_out:])
    # (a one-element kernel of a loop body writes its zero offsets as literals: the loop
    # then keeps a scalar state in a register, see loops.render_loop; elsewhere they stay
    # parameters, so that a size whose offset is 0 shares the code of the others)
    dims, sizes, st, cls, _, decls = operands(
        mod, sp, n_out=n_out, zero_literal=mod.in_loop and k.is_one_element())
    body = Body(mod, k.leaves, {v: j + n_out for j, v in enumerate(loads)})
    results = [body.value(r) for r in k.roots]
    stores = [f"{_load(j, cls[j], st[j][-1])} = {store_expr(res, views[j].dtype)};"
              for j, res in enumerate(results)]
    if k.is_one_element():  # no loop: a scalar scan step runs a few instructions
        mod.add(["  " + x for x in (
            *decls, *_ptrs(views, st, [], [j >= n_out for j in range(len(views))]),
            "{", *(f"  {_leaf(j + n_out, v, cls, st)};" for j, v in enumerate(loads)),
            *("  " + s for s in body.stmts), *("  " + s for s in stores), "}")])
        return
    D = len(dims)
    outer = list(range(D - 1))
    n_outer = math.prod(dims[:-1])
    bs = mod.p(_block_size(n_outer, dims[-1]))
    nO = " * ".join(sizes[:-1]) or "1"
    # a copy onto itself (its buffers planned in place) does nothing
    count = "(p0 == p1 ? 0 : nO * nb)" if k.is_self_copy() else "nO * nb"
    lines = [*("  " + d for d in decls),
             f"  const int64_t nL = {sizes[-1]}, bs = {bs}, nO = {nO};",
             "  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;"]
    mod.add(lines, Parallel(count.replace("nb", "nL"), count, [
                 _BLOCKED_ITEM,
                 "const int64_t ke = kb + bs < nL ? kb + bs : nL;",
                 *decode(outer, sizes, "o"),
                 *_ptrs(views, st, outer, [j >= n_out for j in range(len(views))]),
                 "#pragma omp simd",
                 "for (int64_t k = kb; k < ke; k++) {",
                 *(f"  {_leaf(j + n_out, v, cls, st)};" for j, v in enumerate(loads)),
                 *("  " + s for s in body.stmts),
                 *("  " + s for s in stores),
                 "}"], blocked=True))


def reduce(mod: Module, k: ir.Reduce) -> None:
    """``dst = op over axes of root`` (dst contiguous, keepdims shape).

    Loops run over the source shape with the reduced dims collapsed.  When the
    innermost dim is reduced, each output element is one work item and the inner loop
    sums blocks of ``RED_BLOCK`` in SIMD lanes (blocked summation keeps float32 sums
    accurate); otherwise rows are accumulated into blocks of the output."""
    op, dt = k.op, k.dtype
    sp = k.space()
    loads, views = list(sp.views[1:]), sp.views
    dims, sizes, st, cls, flags2, decls = operands(mod, sp)
    operand_of = {v: j + 1 for j, v in enumerate(loads)}
    body = Body(mod, k.leaves, operand_of)
    res = body.value(k.root)
    kept = [d for d in range(len(dims)) if not flags2[d]]
    red = [d for d in range(len(dims)) if flags2[d]]
    inner = [f"{_leaf(j + 1, v, cls, st)};" for j, v in enumerate(loads)] + body.stmts
    ptrs = lambda ds: _ptrs(views, st, ds, [j > 0 for j in range(len(views))])  # noqa: E731
    if red and red[-1] == len(dims) - 1:
        lines, loop = _reduce_inner(mod, op, dt, dims, sizes, st, kept, red, inner, res, ptrs,
                                    cls[0])
    else:
        def rows(u: int) -> tuple[list[str], list[str], str]:
            """Copy ``u`` of the expression, on row ``i + u`` of the last reduced dim:
            its row pointers, its statements for index k and its result."""
            b = Body(mod, k.leaves, operand_of, suffix=f"_{u}")
            r = b.value(k.root)
            q = [f"const {ctype(v.dtype)}* q{j + 1}_{u} = q{j + 1} + {u} * {st[j + 1][red[-1]]};"
                 for j, v in enumerate(loads)]
            lds = [f"{_leaf(j + 1, v, cls, st, f'_{u}')};" for j, v in enumerate(loads)]
            return q, lds + b.stmts, r
        lines, loop = _reduce_outer(mod, op, dt, dims, sizes, st, kept, red, inner, res,
                                    ptrs, cls[0], rows)
    mod.add(["  " + d for d in decls] + lines, loop)


def _reduce_inner(mod, op, dt, dims, sizes, st, kept, red, inner, res, ptrs,
                  out_cls) -> tuple[list[str], Parallel | None]:
    T, init = compute_ctype(dt), reduce_init(op, dt)  # (a float16 sum accumulates in float)
    # a float product in NumPy's order, left to right: a 0 before an overflow gives 0,
    # one after it NaN (products of blocks or of SIMD lanes gave NaN for both)
    ordered = op == "prod" and dt.kind in "fc"
    simd = {"sum": "+", "prod": "*"}.get(op) if dt.kind != "b" and not ordered else None
    opened, closed = loops(red[:-1], sizes)
    blocks = [f"for (int64_t kb = 0; kb < nL; kb += {RED_BLOCK}) {{",
              f"  const int64_t ke = kb + {RED_BLOCK} < nL ? kb + {RED_BLOCK} : nL;",
              f"  {T} part = {'acc' if ordered else init};",
              *([f"  #pragma omp simd reduction({simd}:part)"] if simd else []),
              "  for (int64_t k = kb; k < ke; k++) {", *("    " + s for s in inner),
              f"    part = {combine(op, dt, 'part', res)};", "  }",
              f"  acc = {'part' if ordered else combine(op, dt, 'acc', 'part')};", "}"]
    if not kept and simd and len(red) == 1:
        # one output element: spread the blocks of the single reduced dim over threads
        return [f"  const int64_t nL = {sizes[-1]};", f"  {T} acc = {init};",
                *("  " + s for s in ptrs([])),
                f"  #pragma omp parallel for if(!P[0] && nL > {mod.par_min}) reduction({simd}:acc)",
                *("  " + s for s in blocks), f"  p0[0] = {store_expr('acc', dt)};"], None
    nK = " * ".join(sizes[d] for d in kept) or "1"
    nR = " * ".join(sizes[d] for d in red)
    off = "".join(f" + i{d} * {st[0][d]}" for d in kept)
    body = [*decode(kept, sizes, "w"), f"{T} acc = {init};", *opened,
            *ptrs(kept + red[:-1]), *blocks, *closed, f"p0[0{off}] = {store_expr('acc', dt)};"]
    return ([f"  const int64_t nK = {nK}, nR = {nR}, nL = {sizes[-1]};"],
            Parallel("nK * nR", "nK", body, guard="nK > 1"))


ROWS = 4  # rows of a sum over outer axes added together before the output is read


def _reduce_outer(mod, op, dt, dims, sizes, st, kept, red, inner, res, ptrs,
                  out_cls, rows) -> tuple[list[str], Parallel]:
    T, init = ctype(dt), reduce_init(op, dt)
    outer = kept[:-1]
    # blocks of whole rows where possible: narrower column blocks over many rows thrash the TLB
    bs = mod.p(_column_block(math.prod([dims[d] for d in outer]), dims[-1]))
    nR = " * ".join(sizes[d] for d in red) or "1"
    nO = " * ".join(sizes[d] for d in outer) or "1"
    off = "".join(f" + i{d} * {st[0][d]}" for d in outer)
    out = "out[k]" if out_cls == "c" else f"out[k * {st[0][-1]}]"
    opened, closed = loops(red, sizes)
    half = dt == HALF  # accumulated in float, HALF_COLUMNS columns at a time
    acc, lo, hi = ("acc_[k - cb]", "cb", "ce") if half else (out, "kb", "ke")
    one_row = [*ptrs(outer + red), "#pragma omp simd",
               f"for (int64_t k = {lo}; k < {hi}; k++) {{", *("  " + s for s in inner),
               f"  {acc} = {combine(op, dt, acc, res)};", "}"]
    if op == "sum" and not half and red:
        # ROWS rows at a time, added pairwise, then into the output: the output is read
        # and written once per ROWS rows (a column sum of 4096 x 4096 float32 went from
        # 3.3 to about 2 ms on 2 cores), and the sum is more accurate; the remaining
        # rows one at a time.  The order depends on the shape only, never on threads.
        r = red[-1]
        copies = [rows(u) for u in range(ROWS)]
        results = [c[2] for c in copies]
        while len(results) > 1:
            results = [combine(op, dt, a, b) for a, b in zip(results[::2], results[1::2])]
        opened = opened[:-1] + [
            f"int64_t i{r} = 0;", f"for (; i{r} + {ROWS} <= {sizes[r]}; i{r} += {ROWS}) {{",
            *("  " + s for s in ptrs(outer + red)),
            *("  " + s for c in copies for s in c[0]),
            "  #pragma omp simd", f"  for (int64_t k = {lo}; k < {hi}; k++) {{",
            *("    " + s for c in copies for s in c[1]),
            f"    {acc} = {combine(op, dt, acc, results[0])};", "  }", "}",
            f"for (; i{r} < {sizes[r]}; i{r}++) {{"]
    core = [f"for (int64_t k = {lo}; k < {hi}; k++) {acc} = {init};",
            *opened, *one_row, *closed]
    if half:
        core = [f"for (int64_t cb = kb; cb < ke; cb += {HALF_COLUMNS}) {{",
                f"  const int64_t ce = cb + {HALF_COLUMNS} < ke ? cb + {HALF_COLUMNS} : ke;",
                f"  float acc_[{HALF_COLUMNS}];", *("  " + s for s in core),
                f"  for (int64_t k = cb; k < ce; k++) {out} = {store_expr(acc, dt)};", "}"]
    body = [_BLOCKED_ITEM,
            "const int64_t ke = kb + bs < nL ? kb + bs : nL;",
            *decode(outer, sizes, "o"), f"{T}* out = p0{off};", *core]
    return ([f"  const int64_t nL = {sizes[-1]}, bs = {bs}, nO = {nO};",
             "  const int64_t nb = nL <= bs ? 1 : (nL + bs - 1) / bs;"],
            Parallel(f"nO * nL * {nR}", "nO * nb", body, blocked=True))


def argreduce(mod: Module, k: ir.ArgReduce) -> None:
    """Index of the first max/min (first NaN wins, as NumPy) along ``k.axis``."""
    decls, _, body = arg_reduction(mod, k)
    mod.add([*("  " + x for x in decls),
             f"  #pragma omp parallel for if(!P[0] && nK * n > {mod.par_min}) schedule(static)",
             "  for (int64_t w = 0; w < nK; w++) {", *("    " + x for x in body), "  }"])


def gemm(mod: Module, k: ir.Gemm) -> None:
    """Batched ``dst = alpha * (a @ b)`` (``+ dst`` with ``accumulate``: BLAS's beta = 1)
    through BLAS (float32, float64, which every module has: NumPy's OpenBLAS or
    :data:`~lazyjit.backends.cpu.compiler.GEMM_LOOPS`; complex where NumPy's OpenBLAS
    has it; float16 through float copies: :func:`_half_blas`) or a plain loop (ints,
    bool; float16 summed in float)."""
    dst, a, b, alpha, accumulate = k.dst, k.a, k.b, k.alpha, k.accumulate
    M, K = a.shape[-2:]
    N = b.shape[-1]
    batch = a.shape[:-2]
    T = ctype(dst.dtype)
    nbd = len(batch)
    bsz = [mod.p(d) for d in batch]
    lines = [f"  const {T}* pa = (const {T}*)B[{a.slot}] + {mod.p(a.offset)};",
             f"  const {T}* pb = (const {T}*)B[{b.slot}] + {mod.p(b.offset)};",
             f"  {T}* pc = ({T}*)B[{dst.slot}] + {mod.p(dst.offset)};",
             f"  const int64_t M = {mod.p(M)}, N = {mod.p(N)}, K = {mod.p(K)};",
             f"  const int64_t nB = {' * '.join(bsz) or '1'};",
             "  for (int64_t w = 0; w < nB; w++) {",
             *("    " + s for s in decode(list(range(nbd)), bsz, "w"))]
    for name, v in (("a", a), ("b", b), ("c", dst)):
        off = "".join(f" + i{d} * {mod.p(v.strides[d])}" for d in range(nbd))
        lines.append(f"    const int64_t o{name} = 0{off};")
    half = dst.dtype == HALF
    if half:
        lines, sa, sb = _half_blas(mod, k, lines)
    elif dst.dtype.kind in "fc":
        ta, lda = gemm_operand(a)
        tb, ldb = gemm_operand(b)
        zero = [] if accumulate else [
            "      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = 0;"]
        trans = [mod.p(111 + 1 * ta), mod.p(111 + 1 * tb)]
        scalars = [const_param(mod, alpha, dst.dtype), str(int(accumulate))]
        if dst.dtype.kind == "f":
            fn = "lj_sgemm" if dst.dtype == np.float32 else "lj_dgemm"
        else:  # (CBLAS's complex GEMMs take alpha and beta by address)
            slot = SLOT["cgemm" if dst.dtype == np.complex64 else "zgemm"]
            fn = f"lj_lapack[{slot}]"
            lines += [f"    const {T} alpha_ = {scalars[0]}, beta_ = {scalars[1]};"]
            scalars = ["&alpha_", "&beta_"]
        call = fn if dst.dtype.kind == "f" else f"((lj_cgemm_t){fn})"
        blas = ["int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < "
                f"{BLAS_MT_MIN:.1f});",
                "if (small) prev = lj_blas_threads(1);",
                f"{call}(101, {trans[0]}, {trans[1]}, M, N, K, {scalars[0]}, pa + oa, "
                f"{mod.p(lda)}, pb + ob, {mod.p(ldb)}, {scalars[1]}, pc + oc, N);",
                "if (small) lj_blas_threads(prev);"]
        lines += ["    if (K == 0) {", *zero, "      continue;", "    }"]
        if dst.dtype.kind == "f":  # (never NULL: NumPy's OpenBLAS or compiler.GEMM_LOOPS)
            mod.add([*lines, *("    " + s for s in blas), "  }"])
            return
        lines += [f"    if ({fn}) {{", *("      " + s for s in blas), "      continue;", "    }"]
    if not half:
        sa = [mod.p(s) for s in a.strides[-2:]]
        sb = [mod.p(s) for s in b.strides[-2:]]
    C = compute_ctype(dst.dtype)
    acc_t = "int64_t" if dst.dtype.kind == "b" else C
    result = "acc != 0" if dst.dtype.kind == "b" else "acc"
    ld = lambda x: load_expr(x, dst.dtype)  # noqa: E731
    lines += [f"    #pragma omp parallel for if(!P[0] && M * N * K > {mod.par_min}) "
              "schedule(static)",
              "    for (int64_t i = 0; i < M; i++)",
              "      for (int64_t j = 0; j < N; j++) {",
              f"        {acc_t} acc = 0;",
              "        for (int64_t l = 0; l < K; l++)",
              f"          acc += ({acc_t}){ld(f'pa[oa + i * {sa[0]} + l * {sa[1]}]')}"
              f" * ({acc_t}){ld(f'pb[ob + l * {sb[0]} + j * {sb[1]}]')};",
              "        pc[oc + i * N + j] = " + store_expr(
                  f"({C})({result_expr(result, alpha, accumulate, mod, dst)})", dst.dtype) + ";",
              "      }", "  }"]
    if half:
        lines.append("  free(fa);")
    mod.add(lines)


def _half_blas(mod: Module, k: ir.Gemm, lines: list[str]) -> tuple[list[str], list, list]:
    """``lines`` (a float16 GEMM up to its batch loop) with sgemm on float copies of the
    operands (allocated once, before the batch loop, freed after it); without BLAS or
    memory, the loop that follows (summing in float) runs instead.  Also the stride
    parameters of ``a`` and ``b``'s last two dims (the loop's too)."""
    a, b, dst = k.a, k.b, k.dst
    sa = [mod.p(s) for s in a.strides[-2:]]
    sb = [mod.p(s) for s in b.strides[-2:]]
    loop = lines.index("  for (int64_t w = 0; w < nB; w++) {")
    alloc = ["  float* fa = lj_sgemm && M * N * K > 0 ? "
             "(float*)malloc((size_t)(M * K + K * N + M * N) * sizeof(float)) : NULL;"]
    return lines[:loop] + alloc + lines[loop:] + [
        "    if (fa) {",
        "      float* fb = fa + M * K;",
        "      float* fc = fb + K * N;",
        "      for (int64_t i = 0; i < M; i++) for (int64_t l = 0; l < K; l++)",
        f"        fa[i * K + l] = lj_h2f(pa[oa + i * {sa[0]} + l * {sa[1]}]);",
        "      for (int64_t l = 0; l < K; l++) for (int64_t j = 0; j < N; j++)",
        f"        fb[l * N + j] = lj_h2f(pb[ob + l * {sb[0]} + j * {sb[1]}]);",
        *(["      for (int64_t i = 0; i < M * N; i++) fc[i] = lj_h2f(pc[oc + i]);"]
          if k.accumulate else []),
        "      int prev = 0, small = lj_blas_threads && (P[0] || (double)M * N * K < "
        f"{BLAS_MT_MIN:.1f});",
        "      if (small) prev = lj_blas_threads(1);",
        f"      lj_sgemm(101, 111, 111, M, N, K, {const_param(mod, k.alpha, dst.dtype)}, fa, K, "
        f"fb, N, {int(k.accumulate)}, fc, N);",
        "      if (small) lj_blas_threads(prev);",
        "      for (int64_t i = 0; i < M * N; i++) pc[oc + i] = lj_f2h(fc[i]);",
        "      continue;", "    }"], sa, sb


def result_expr(result: str, alpha: float, accumulate: bool, mod: Module, dst: View) -> str:
    """The plain loop's stored value: ``alpha * acc (+ the old value)``."""
    if alpha == 1.0 and not accumulate:
        return result
    scaled = f"{const_param(mod, alpha, dst.dtype)} * ({result})" if alpha != 1.0 else result
    old = load_expr("pc[oc + i * N + j]", dst.dtype)
    return f"{scaled} + {old}" if accumulate else scaled


def _indexed(mod: Module, base: View, idx: View, axis: int) -> list[str]:
    """Declarations shared by gather and scatter: ``base`` seen as ``(A, N, C)`` around
    ``axis``, ``I`` indices at ``ix``."""
    A, C = math.prod(base.shape[:axis]), math.prod(base.shape[axis + 1:])
    N, n_idx = base.shape[axis], math.prod(idx.shape)
    return [f"  const int64_t* ix = (const int64_t*)B[{idx.slot}] + {mod.p(idx.offset)};",
            f"  const int64_t A = {mod.p(A)}, N = {mod.p(N)}, C = {mod.p(C)}, "
            f"I = {mod.p(n_idx)};"]


def gather(mod: Module, k: ir.Gather) -> None:
    """``dst = take(src, idx, axis)`` (src and idx contiguous); out of range -> error 1."""
    dst, src = k.dst, k.src
    head = _indexed(mod, src, k.idx, k.axis)
    T = ctype(src.dtype)
    lines = [*head, f"  const {T}* x = (const {T}*)B[{src.slot}] + {mod.p(src.offset)};",
             f"  {T}* out = ({T}*)B[{dst.slot}] + {mod.p(dst.offset)};",
             "  int err = 0;",
             f"  #pragma omp parallel for if(!P[0] && A * I * C > {mod.par_min}) reduction(|:err)",
             "  for (int64_t w = 0; w < A * I; w++) {",
             "    const int64_t a = w / I, i = w - a * I;",
             "    int64_t j = ix[i]; if (j < 0) j += N;",
             f"    if ({int(k.checked)} && (j < 0 || j >= N)) {{",
             "      err = 1;", "      memset(out + w * C, 0, C * sizeof(*out));",
             "      continue;", "    }",
             "    memcpy(out + w * C, x + (a * N + j) * C, C * sizeof(*out));",
             "  }",
             "  if (err) return 1;"]
    mod.add(lines)


def check(mod: Module, k: ir.Check) -> None:
    """Fail the call with error ``3 + k.code`` (its message raised in Python) when an
    element of the contiguous bool buffer ``ok`` is false."""
    ok = k.ok
    mod.add([f"  const uint8_t* ok = (const uint8_t*)B[{ok.slot}] + {mod.p(ok.offset)};",
             f"  for (int64_t i = 0, n = {mod.p(math.prod(ok.shape))}; i < n; i++)",
             f"    if (!ok[i]) return {3 + k.code};"])


def scatter(mod: Module, k: ir.Scatter) -> None:
    """``dst[..., idx, ...] (+)= vals`` along ``axis`` (dst already holds the base)."""
    dst, vals = k.dst, k.vals
    head = _indexed(mod, dst, k.idx, k.axis)
    T = ctype(dst.dtype)
    op = "+=" if k.add else "="
    if k.add and dst.dtype.kind == "b":
        op = "|="
    update = f"q[c] {op} r[c];"
    if k.add and dst.dtype == HALF:  # (rounded at each addition, as np.add.at)
        update = "q[c] = lj_f2h(lj_h2f(q[c]) + lj_h2f(r[c]));"
    lines = [*head, f"  {T}* x = ({T}*)B[{dst.slot}] + {mod.p(dst.offset)};",
             f"  const {T}* v = (const {T}*)B[{vals.slot}] + {mod.p(vals.offset)};",
             "  for (int64_t a = 0; a < A; a++)",
             "    for (int64_t i = 0; i < I; i++) {",
             "      int64_t j = ix[i]; if (j < 0) j += N;",
             f"      if ({int(k.checked)} && (j < 0 || j >= N)) return 1;",
             f"      {T}* q = x + (a * N + j) * C; const {T}* r = v + (a * I + i) * C;",
             f"      for (int64_t c = 0; c < C; c++) {update}",
             "    }"]
    mod.add(lines)
