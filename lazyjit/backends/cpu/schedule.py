"""Scheduling a trace into kernels: fusion, views and buffer slots.

Fusion rule: an elementwise node joins the kernel of its consumers when all of them are
elementwise nodes or a reduction of that one kernel and it is not an output; a
reduction ends its kernel (elementwise chains with a trailing reduction become one
loop).  Movement ops become strided views of materialized buffers (a copy only when a
reshape cannot be expressed with strides); matmul, indexing and concatenation read
views of materialized operands.

Buffer slots: ``0 .. n_inputs-1`` are the trace inputs, then one slot per materialized
value.  The result is a :class:`Schedule`: the C module, its parameter table, the slot
shapes and dtypes, and which slot each output lives in.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lazyjit.backends.cpu import kernels as K
from lazyjit.backends.cpu.views import View
from lazyjit.ops import REGISTRY
from lazyjit.trace.graph import Trace
from lazyjit.trace.node import Node
from lazyjit.trace.state import STATE


@dataclass
class Schedule:
    module: K.Module
    slots: list[tuple[tuple[int, ...], np.dtype]]   # shape, dtype per non-input slot
    n_inputs: int
    outputs: list[tuple[int, tuple[int, ...]]]      # (slot, shape) per trace output

    def memory_plan(self) -> tuple[list[int], list[int]]:
        """Buffer reuse planned from liveness: non-input slots whose lifetimes (the
        span of top-level kernels naming them) do not overlap share one memory block.
        Output slots get blocks of their own.  Returns the block of each non-input slot
        and each block's size in bytes."""
        mod, n_in = self.module, self.n_inputs
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for pos, k in enumerate(mod.calls):
            for s in mod.uses[k]:
                first.setdefault(s, pos)
                last[s] = pos
        outs = {s for s, _ in self.outputs}
        nbytes = [int(np.prod(shape)) * np.dtype(dt).itemsize for shape, dt in self.slots]
        block = [-1] * len(self.slots)
        sizes: list[int] = []
        free: list[int] = []
        ending: dict[int, list[int]] = {}
        order = sorted((first.get(n_in + i, -1), i) for i in range(len(self.slots)))
        pos_done = -1
        for pos, i in order:
            s = n_in + i
            while pos_done < pos - 1:  # blocks whose last use is before this kernel
                pos_done += 1
                free.extend(ending.pop(pos_done, []))
            if s in outs or s not in first:
                block[i] = len(sizes)
                sizes.append(nbytes[i])
                continue
            b = self._in_place(s, pos, last, block, sizes, nbytes[i], ending, outs)
            if b is None:
                fits = [b for b in free if nbytes[i] <= sizes[b] <= 2 * nbytes[i] + 4096]
                if fits:
                    b = min(fits, key=sizes.__getitem__)
                    free.remove(b)
                else:
                    b = len(sizes)
                    sizes.append(nbytes[i])
            block[i] = b
            ending.setdefault(last[s], []).append(b)
        return block, sizes

    def donors(self) -> dict[int, int]:
        """``{output position: input slot}`` for the outputs that the kernel computing
        them could write over that input in place: it reads the input element for
        element as it writes, and no later kernel reads the input.  Whether an output is
        written there is decided at each call (the caller donates the input: a shared
        variable's value that nothing else holds, replaced by this output)."""
        mod, n_in = self.module, self.n_inputs
        last: dict[int, int] = {}
        writer: dict[int, int] = {}
        for pos, k in enumerate(mod.calls):
            for s in mod.uses[k]:
                last[s] = pos
            dst = mod.inplace.get(k, (None, ()))[0]
            if dst is not None:
                writer.setdefault(dst, pos)
        slots = [s for s, _ in self.outputs]
        out: dict[int, int] = {}
        for j, (s, _) in enumerate(self.outputs):
            pos = writer.get(s)
            if s < n_in or pos is None or slots.count(s) != 1:
                continue
            for a in sorted(mod.inplace[mod.calls[pos]][1]):
                if a < n_in and last.get(a) == pos and a not in slots:
                    out[j] = a
                    break
        return out

    def _in_place(self, s, pos, last, block, sizes, nbytes, ending, outs):
        """A block that kernel ``pos`` may write ``s`` into in place: that of an input it
        reads last, element for element (its block then ends with ``s``)."""
        mod, n_in = self.module, self.n_inputs
        dst, ok = mod.inplace.get(mod.calls[pos], (None, ()))
        if dst != s:
            return None
        for a in sorted(ok):
            if a < n_in or a in outs or last.get(a) != pos:
                continue
            b = block[a - n_in]
            if b < 0 or sizes[b] != nbytes or b not in ending.get(pos, []):
                continue
            ending[pos].remove(b)
            return b
        return None


# ops per fused kernel at most: gcc's time on one loop body grows faster than linearly
# (a 48,000-op kernel took 45 s at -O2), while a memory pass every few hundred ops
# costs little
MAX_FUSED = 256


# an elementwise node read by several kernels is recomputed in each of them (not
# written to memory) when it is this large: a pass over memory costs more than the
# arithmetic (smaller values stay in cache, where recomputing costs more than storing);
# always when the sizes vary from call to call (GENERIC_SIZES: one code for all sizes)
INLINE_MIN = 65536
INLINE_MAX_USERS = 4


def _fusion_roots(trace: Trace) -> tuple[dict[Node, Node], set[Node]]:
    """Map each computed node to the root node of the kernel that computes it; and the
    set of inlined nodes (recomputed inside every kernel that reads them, with the nodes
    fused into them)."""
    users = trace.consumers()
    outputs = set(trace.outputs)
    inputs = set(trace.inputs)
    root_of: dict[Node, Node] = {}
    inline: set[Node] = set()
    size: dict[Node, int] = {}
    for n in reversed(trace.nodes):
        if n in inputs or n.op == "const":
            continue
        root_of[n] = n
        size[n] = 1
        if REGISTRY[n.op].kind != "elementwise" or n in outputs or not users[n]:
            continue
        us = users[n]
        if not all(REGISTRY[u.op].kind in ("elementwise", "reduce") for u in us):
            continue
        roots = {root_of[u] for u in us}
        if len(roots) == 1:
            r = roots.pop()
            if size[r] < MAX_FUSED:
                root_of[n] = r
                size[r] += 1
        elif (STATE.generic_sizes or n.size >= INLINE_MIN) and len(roots) <= INLINE_MAX_USERS and \
                all(size[r] < MAX_FUSED for r in roots):
            inline.add(n)
    return root_of, inline


class Scheduler:
    def __init__(self, trace: Trace, mod: K.Module | None = None):
        self.trace = trace
        self.mod = mod if mod is not None else K.Module()
        self.slots: list[tuple[tuple[int, ...], np.dtype]] = []
        self.n_inputs = len(trace.inputs)
        self.vals: dict[Node, object] = {}
        self.root_of, self.inline = _fusion_roots(trace)
        self.users = trace.consumers()
        from lazyjit.ifelse import gates
        self.gate = gates(trace)  # nodes computed only when one side of an ifelse is taken
        self.gated: dict[tuple, list[Node]] = {}
        for n in trace.nodes:
            if n in self.gate:
                self.gated.setdefault(self.gate[n], []).append(n)
        self.group: dict[Node, list[Node]] = {}  # kernel root -> the roots of its kernel
        self._sibling_groups()
        self.members: dict[Node, list[Node]] = {}
        for n in trace.nodes:
            r = self.root_of.get(n)
            if r is not None and r is not n or n in self.inline:
                self.members.setdefault(r, []).append(n)

    def _sibling_groups(self) -> None:
        """Multi-output fusion: elementwise kernels of one shape that read a common
        elementwise node become one loop writing all their results, the common node
        computed once in it (instead of stored, or recomputed per kernel).  A kernel
        joins a later one only if nothing outside the group reads its result before
        the later kernel (where the group is emitted)."""
        index, users, root_of = self.trace.index, self.users, self.root_of
        outputs = set(self.trace.outputs)
        group: dict[Node, list[Node]] = {}

        def members_of(r: Node) -> list[Node]:
            return group.get(r, [r])

        def valid(roots: list[Node]) -> bool:
            last = max(index[r] for r in roots)
            inside = set(roots)
            for r in roots:
                for u in users[r]:
                    if u in self.inline or (root_of.get(u) not in inside and index[u] < last):
                        return False
            return True
        sizes: dict[Node, int] = {}
        for r in root_of.values():
            sizes[r] = sizes.get(r, 0) + 1
        for n in self.trace.nodes:
            if n not in root_of or n in outputs or REGISTRY[n.op].kind != "elementwise":
                continue
            if root_of[n] is not n and n not in self.inline or n in group:
                continue
            roots = {root_of[u] for u in users[n]}
            if len(roots) < 2 or not all(
                    REGISTRY[r.op].kind == "elementwise" and r not in self.inline
                    and r.shape == n.shape and self.gate.get(r) == self.gate.get(n)
                    for r in roots):
                continue
            merged = sorted({m for r in roots for m in members_of(r)}, key=index.__getitem__)
            if sum(sizes.get(m, 1) for m in merged) + 1 > MAX_FUSED or not valid(merged):
                continue
            for m in merged:
                group[m] = merged
            # n (and what was fused into it) is computed inside the group's kernel
            self.inline.discard(n)
            for x in [x for x, r in root_of.items() if r is n]:
                root_of[x] = merged[-1]
        self.group = group

    # ---- buffers ----
    def new_buffer(self, shape, dtype) -> View:
        self.slots.append((tuple(shape), np.dtype(dtype)))
        return View.contiguous(self.n_inputs + len(self.slots) - 1, np.dtype(dtype), tuple(shape))

    def materialize(self, node: Node) -> View:
        """The value of ``node`` as a view of a buffer (copying a constant if needed)."""
        v = self.vals[node]
        if isinstance(v, View):
            return v
        dst = self.new_buffer(node.shape, node.dtype)
        K.elementwise(self.mod, dst, node.shape, [], node, {node: v})
        self.vals[node] = dst
        return dst

    def contiguous(self, node: Node) -> View:
        v = self.materialize(node)
        if v.is_contiguous():
            return v
        dst = self.new_buffer(node.shape, node.dtype)
        K.elementwise(self.mod, dst, node.shape, [], node, {node: v})
        return dst

    # ---- the walk ----
    def run(self) -> Schedule:
        for i, n in enumerate(self.trace.inputs):
            self.vals[n] = View.contiguous(i, n.dtype, n.shape)
        self.walk([n for n in self.trace.nodes if n not in self.gate])
        outputs = []
        for n in self.trace.outputs:
            v = self.vals[n]
            if n in self.trace.inputs:
                outputs.append((v.slot, n.shape))
                continue
            if not (isinstance(v, View) and v.slot >= self.n_inputs and v.offset == 0
                    and v.is_contiguous() and v.slot not in [s for s, _ in outputs]
                    and int(np.prod(self.slots[v.slot - self.n_inputs][0])) == n.size):
                dst = self.new_buffer(n.shape, n.dtype)
                K.elementwise(self.mod, dst, n.shape, [], n, {n: v})
                v = dst
            outputs.append((v.slot, n.shape))
        return Schedule(self.mod, self.slots, self.n_inputs, outputs)

    def walk(self, nodes: list[Node]) -> None:
        for n in nodes:
            if n in self.vals:
                continue
            if n.op == "const":
                self.vals[n] = ("const", n.const_value, n.dtype)
            elif self.root_of[n] is n and n not in self.inline:
                roots = self.group.get(n)
                if roots is None:
                    self.vals[n] = self.emit(n)
                elif n is roots[-1]:  # a multi-output kernel, emitted at its last root
                    members, leaves = self.leaves(n, roots)
                    dsts = [self.new_buffer(r.shape, r.dtype) for r in roots]
                    K.elementwise_multi(self.mod, dsts, n.shape, members, roots, leaves)
                    self.vals.update(zip(roots, dsts))

    def branch(self, n: Node) -> list[View]:
        """``ifelse``: each side's gated nodes and a copy of its values into the results,
        run under a test of the condition."""
        k = n.arg
        cond = self.contiguous(n.src[0])
        outs = [self.new_buffer(x.shape, x.dtype) for x in n.src[1:1 + k]]
        sides = []
        for side, srcs in ((0, n.src[1:1 + k]), (1, n.src[1 + k:])):
            before = dict(self.vals)  # values made inside a side are not valid outside it
            saved, self.mod.calls = self.mod.calls, []
            self.walk(self.gated.get((n, side), []))
            for o, x in zip(outs, srcs):
                K.elementwise(self.mod, o, x.shape, [], x, {x: self.vals[x]})
            sides.append(self.mod.calls)
            self.mod.calls = saved
            self.vals = {m: before.get(m, v) for m, v in self.vals.items()}
        call = lambda ks: [f"    if ((e = k{c}(B, P))) return e;" for c in ks]  # noqa: E731
        self.mod.add("\n".join([
            "  int e = 0;",
            f"  if (*((const uint8_t*)B[{cond.slot}] + {self.mod.p(cond.offset)})) {{",
            *call(sides[0]), "  } else {", *call(sides[1]), "  }", "  (void)e;"]))
        for k in sides[0] + sides[1]:  # the sides' kernels use this program's buffers
            self.mod.uses[-1] |= self.mod.uses[k]
        return outs

    def leaves(self, root: Node, roots: list[Node] | None = None
               ) -> tuple[list[Node], dict]:
        """The nodes fused into ``root``'s kernel (or the kernel of several ``roots``;
        topological order; inlined groups included) and the values it reads."""
        roots = roots or [root]
        kernel = set(roots)
        inside = set(roots)
        members = []
        stack = list(roots)
        while stack:  # the kernel's group, and the groups of inlined nodes it reads
            m = stack.pop()
            for x in [m, *self.members.get(m, [])]:
                for s in x.src:
                    g = self.root_of.get(s)
                    if s in inside or g is None or (g not in kernel and g not in self.inline):
                        continue
                    inside.add(s)
                    members.append(s)
                    if s in self.inline:
                        stack.append(s)
        order = self.trace.index
        members.sort(key=order.__getitem__)
        leaves = {}
        for m in members + roots:
            for s in m.src:
                if s not in inside:
                    leaves[s] = self.vals[s]
        return members, leaves

    def emit(self, n: Node):
        kind = REGISTRY[n.op].kind
        if kind == "movement":
            return self.movement(n)
        if kind == "elementwise":
            members, leaves = self.leaves(n)
            dst = self.new_buffer(n.shape, n.dtype)
            K.elementwise(self.mod, dst, n.shape, members, n, leaves)
            return dst
        if kind == "reduce":
            members, leaves = self.leaves(n)
            src = n.src[0]
            if src not in members:
                leaves = {src: self.vals[src]}
            dst = self.new_buffer(n.shape, n.dtype)
            K.reduce(self.mod, dst, n, src.shape, members, src, leaves)
            return dst
        if kind == "arg":
            dst = self.new_buffer(n.shape, n.dtype)
            K.argreduce(self.mod, dst, n, self.materialize(n.src[0]))
            return dst
        if kind == "matmul":
            return self.matmul(n)
        if kind == "loop":
            from lazyjit.backends.cpu.loops import emit_scan
            return emit_scan(self, n)
        if kind == "branch":
            return self.branch(n)
        if kind == "window":
            from lazyjit.backends.cpu.conv import emit
            return emit(self, n)
        if kind == "sort":
            from lazyjit.backends.cpu.sort import emit as emit_sort
            return emit_sort(self, n)
        if kind == "select":
            return self.vals[n.src[0]][n.arg]
        if kind == "check":  # the guard, then the value passes through unchanged
            K.check(self.mod, self.contiguous(n.src[1]), n.arg)
            return self.vals[n.src[0]]
        if kind == "concat":
            dst = self.new_buffer(n.shape, n.dtype)
            start = 0
            for s in n.src:
                sl = tuple((start, start + s.shape[n.arg], 1) if i == n.arg else (0, d, 1)
                           for i, d in enumerate(n.shape))
                K.elementwise(self.mod, dst.slice(sl), s.shape, [], s, {s: self.vals[s]})
                start += s.shape[n.arg]
            return dst
        return self.index(n)

    def movement(self, n: Node):
        v = self.vals[n.src[0]]
        if not isinstance(v, View):  # a broadcast constant stays a constant
            return v
        if n.op == "reshape":
            out = v.reshape(n.arg)
            if out is None:
                out = self.contiguous(n.src[0]).reshape(n.arg)
            return out
        if n.op == "permute":
            return v.permute(n.arg)
        if n.op == "expand":
            return v.expand(n.arg)
        return v.slice(n.arg)

    def matmul(self, n: Node) -> View:
        a, b = (self.materialize(s) for s in n.src[:2])
        if n.dtype.kind == "f":
            if K.gemm_operand(a) is None:
                a = self.contiguous(n.src[0])
            if K.gemm_operand(b) is None:
                b = self.contiguous(n.src[1])
        dst = self.new_buffer(n.shape, n.dtype)
        if n.op == "gemm":  # c into the result, then the product added to it
            c = n.src[2]
            K.elementwise(self.mod, dst, n.shape, [], c, {c: self.vals[c]})
            K.gemm(self.mod, dst, a, b, alpha=n.arg, accumulate=True)
            return dst
        nb = len(n.shape) - 2
        if nb > 0 and not any(b.strides[:nb]) and a.is_contiguous() and K.gemm_operand(b):
            # (..., M, K) @ broadcast (K, N): one GEMM over all rows, not one per batch
            rows = int(np.prod(n.shape[:-1]))
            a2 = View(a.slot, a.dtype, a.offset, (rows, a.shape[-1]),
                      (a.shape[-1], 1))
            b2 = View(b.slot, b.dtype, b.offset, b.shape[-2:], b.strides[-2:])
            K.gemm(self.mod, dst.reshape((rows, n.shape[-1])), a2, b2)
            return dst
        K.gemm(self.mod, dst, a, b)
        return dst

    def index(self, n: Node) -> View:
        x = n.src[0]
        if n.op == "take":
            dst = self.new_buffer(n.shape, n.dtype)
            K.gather(self.mod, dst, self.contiguous(x), self.contiguous(n.src[1]), n.arg)
            return dst
        dst = self.new_buffer(n.shape, n.dtype)
        K.elementwise(self.mod, dst, n.shape, [], x, {x: self.vals[x]})
        if n.op in ("put", "put_add"):
            K.scatter(self.mod, dst, self.contiguous(n.src[1]), self.contiguous(n.src[2]),
                      n.arg, add=n.op == "put_add")
            return dst
        v = n.src[1]
        region = dst.slice(n.arg)
        if n.op == "set_slice":
            K.elementwise(self.mod, region, v.shape, [], v, {v: self.vals[v]})
        else:  # inc_slice: region = region + v
            total = Node.make("add", (x, v), None, v.shape, n.dtype)
            K.elementwise(self.mod, region, v.shape, [], total, {x: region, v: self.vals[v]})
        return dst


def schedule(trace: Trace) -> Schedule:
    return Scheduler(trace).run()
