"""Fusion: which nodes of a trace are computed inside which kernel.

An elementwise node joins the kernel of its consumers when all of them are elementwise
nodes or a reduction of that one kernel and it is not an output; a reduction ends its
kernel (elementwise chains with a trailing reduction become one loop).  A large value
read by a few kernels is recomputed in each of them (inlined) instead of stored, when
its computation gives the same bits in any kernel (``EXACT_OPS``: not ``exp``, ``sin``).
Elementwise kernels of one shape that read a common elementwise node become one loop
with several results (multi-output fusion).
"""
from __future__ import annotations

from lazyjit.ops import REGISTRY
from lazyjit.ops.registry import EXACT_OPS
from lazyjit.trace.graph import Trace
from lazyjit.trace.node import Node

# ops per fused kernel at most: gcc's time on one loop body grows faster than linearly
# (a 48,000-op kernel took 45 s at -O2), while a memory pass every few hundred ops
# costs little
MAX_FUSED = 256

# an elementwise node read by several kernels is recomputed in each of them (not
# written to memory) when it is this large: a pass over memory costs more than the
# arithmetic (smaller values stay in cache, where recomputing costs more than storing);
# always when the sizes vary from call to call (generic sizes: one code for all sizes)
INLINE_MIN = 65536
INLINE_MAX_USERS = 4


class Fusion:
    """The fusion decisions of one trace.

    ``root_of`` maps each computed node to the root node of the kernel computing it;
    ``inline`` holds the nodes recomputed inside every kernel that reads them; ``group``
    maps a kernel root to the roots of its multi-output kernel; ``members`` maps a root
    (or an inlined node) to the nodes fused into it."""

    def __init__(self, trace: Trace, users: dict, gate: dict, generic_sizes: bool):
        self.trace, self.users, self.gate = trace, users, gate
        self.root_of, self.inline = _roots(trace, users, generic_sizes)
        self.group = self._sibling_groups()
        self.members: dict[Node, list[Node]] = {}
        for n in trace.nodes:
            r = self.root_of.get(n)
            if r is not None and r is not n or n in self.inline:
                self.members.setdefault(r, []).append(n)

    def _sibling_groups(self) -> dict[Node, list[Node]]:
        """Multi-output fusion: a kernel joins a later one only if nothing outside the
        group reads its result before the later kernel (where the group is emitted)."""
        index, users, root_of = self.trace.index, self.users, self.root_of
        outputs = set(self.trace.outputs)
        group: dict[Node, list[Node]] = {}

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
            merged = sorted({m for r in roots for m in group.get(r, [r])},
                            key=index.__getitem__)
            if sum(sizes.get(m, 1) for m in merged) + 1 > MAX_FUSED or not valid(merged):
                continue
            for m in merged:
                group[m] = merged
            # n (and what was fused into it) is computed inside the group's kernel
            self.inline.discard(n)
            for x in [x for x, r in root_of.items() if r is n]:
                root_of[x] = merged[-1]
        return group

    def is_root(self, n: Node) -> bool:
        """Whether ``n`` ends a kernel of its own (not fused into another, not inlined)."""
        return self.root_of[n] is n and n not in self.inline

    def leaves(self, roots: list[Node], vals: dict) -> tuple[list[Node], dict]:
        """The nodes fused into the kernel of ``roots`` (topological order; inlined
        groups included) and the values it reads (from ``vals``)."""
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
        members.sort(key=self.trace.index.__getitem__)
        leaves = {}
        for m in members + list(roots):
            for s in m.src:
                if s not in inside:
                    leaves[s] = vals[s]
        return members, leaves


def _roots(trace: Trace, users: dict, generic_sizes: bool) -> tuple[dict, set]:
    """The kernel root of each computed node, and the inlined nodes."""
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
        elif (generic_sizes or n.size >= INLINE_MIN) and len(roots) <= INLINE_MAX_USERS and \
                all(size[r] < MAX_FUSED for r in roots):
            inline.add(n)
    # (a value computed with a libm approximation is stored, never computed again: two
    # kernels, one vectorized, could give it different last bits)
    if inline:
        inline -= {root_of[m] for m in root_of if root_of[m] in inline and
                   m.op not in EXACT_OPS}
    return root_of, inline
