"""The memory plan of a :class:`~lazyjit.schedule.ir.Program`, from its records' reads
and writes: which memory block holds each buffer slot, in-place writes, and donors.

Non-input slots whose lifetimes (the span of top-level steps naming them) do not
overlap share one block; an elementwise kernel may write its result over an operand it
reads last, element for element (in place); outputs get blocks of their own.  A donor
is an input a kernel could overwrite with an output when the caller gives the input up
(a shared variable's old value): decided per call, so only offered where it is safe.
"""
from __future__ import annotations

from lazyjit.schedule.ir import Elementwise, Program


def _in_place(prog: Program) -> dict[int, tuple[int, set[int]]]:
    """Per top-level step position: the slot its elementwise kernel writes and the slots
    it may overwrite in place."""
    out = {}
    for pos, k in enumerate(prog.steps):
        if isinstance(k, Elementwise):
            info = k.in_place()
            if info is not None:
                out[pos] = info
    return out


def plan(prog: Program) -> Program:
    """Fill ``prog.block``, ``prog.block_bytes`` and ``prog.donors``; returns ``prog``."""
    uses = [prog.uses(k) for k in prog.steps]
    inplace = _in_place(prog)
    prog.block, prog.block_bytes = _blocks(prog, uses, inplace)
    prog.donors = {} if prog.may_fail else _donors(prog, uses, inplace)
    return prog


def _blocks(prog: Program, uses, inplace) -> tuple[list[int], list[int]]:
    n_in = prog.n_inputs
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for pos, slots in enumerate(uses):
        for s in slots:
            first.setdefault(s, pos)
            last[s] = pos
    outs = {s for s, _ in prog.outputs}
    nbytes = [prog.slot_bytes(prog.n_inputs + i) for i in range(len(prog.slots))]
    block = [-1] * len(prog.slots)
    sizes: list[int] = []
    free: list[int] = []
    ending: dict[int, list[int]] = {}
    order = sorted((first.get(n_in + i, -1), i) for i in range(len(prog.slots)))
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
        b = _reuse(prog, inplace.get(pos), s, pos, last, block, sizes, nbytes[i], ending,
                   outs)
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


def _reuse(prog, info, s, pos, last, block, sizes, nbytes, ending, outs):
    """A block that step ``pos`` may write ``s`` into in place: that of an input it reads
    last, element for element (its block then ends with ``s``)."""
    if info is None or info[0] != s:
        return None
    n_in = prog.n_inputs
    for a in sorted(info[1]):
        if a < n_in or a in outs or last.get(a) != pos:
            continue
        b = block[a - n_in]
        if b < 0 or sizes[b] != nbytes or b not in ending.get(pos, []):
            continue
        ending[pos].remove(b)
        return b
    return None


def _donors(prog: Program, uses, inplace) -> dict[int, int]:
    """``{output position: input slot}`` for the outputs that the step computing them
    could write over that input in place: it reads the input element for element as it
    writes, and no later step reads the input."""
    n_in = prog.n_inputs
    last: dict[int, int] = {}
    writer: dict[int, int] = {}
    for pos, slots in enumerate(uses):
        for s in slots:
            last[s] = pos
        if pos in inplace:
            writer.setdefault(inplace[pos][0], pos)
    slots = [s for s, _ in prog.outputs]
    out: dict[int, int] = {}
    for j, (s, _) in enumerate(prog.outputs):
        pos = writer.get(s)
        if s < n_in or pos is None or slots.count(s) != 1:
            continue
        for a in sorted(inplace[pos][1]):
            if a < n_in and last.get(a) == pos and a not in slots:
                out[j] = a
                break
    return out
