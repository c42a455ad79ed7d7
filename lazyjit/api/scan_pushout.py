"""Moving computations on sequences across a scan's boundary.

**Push-in**: a sequence that is an elementwise function of other sequences of the same
scan (``2 * hs``, the gradient of ``sum(hs ** 2)``, read by the reverse scan next to
``hs`` itself) is computed inside the body, row by row, instead of being stored for all
steps before the loop.

**Push-out** (Theano's ``scan_pushout_seqs_ops``):
A subgraph of the body that reads sequence rows and invariants but no state is the same
computation at every step: it is computed once for all steps, before the loop, on the
whole sequences (its ops *batched* over a leading time axis), and the body reads its
rows as a new sequence.  A row-by-row product ``x_t @ W`` becomes one large GEMM
``X @ W``, which BLAS runs far faster than ``T`` small ones; in the reverse scan of a
gradient, the whole recomputation of the forward step (which reads only stored states)
leaves the loop.  Only subgraphs containing a matrix product or a reduction are pushed
out: a pure elementwise chain gains nothing (it is fused into the body's kernels).
"""
from __future__ import annotations

from lazyjit.ops import apply
from lazyjit.ops import REGISTRY
from lazyjit.trace.consts import const_of, const_shaped
from lazyjit.trace.gates import ungated
from lazyjit.trace.graph import substitute, toposort
from lazyjit.trace.node import Node

_MAX_PUSH_IN = 32  # nodes of one pushed-in expression at most

_MOVES = ("reshape", "permute", "expand", "slice")
_REDUCES = ("sum", "prod", "max", "min")


def _batchable_op(n: Node) -> bool:
    kind = REGISTRY[n.op].kind
    return kind == "elementwise" or n.op in _MOVES or n.op in _REDUCES or n.op == "matmul"


def _batched(n: Node, src: tuple, on: tuple, T: int) -> Node:
    """``n`` applied to all steps at once: ``src`` are the sources, those with ``on``
    set carrying a leading time axis of length ``T``."""
    def lift(s: Node) -> Node:  # an invariant source, repeated over the steps
        r = apply("reshape", (s,), (1, *s.shape))
        return apply("expand", (r,), (T, *s.shape))
    op, arg = n.op, n.arg
    if op == "reshape":
        return apply(op, src, (T, *arg))
    if op == "permute":
        return apply(op, src, (0, *[p + 1 for p in arg]))
    if op == "expand":
        return apply(op, src, (T, *arg))
    if op == "slice":
        return apply(op, src, ((0, T, 1), *arg))
    if op in _REDUCES:
        return apply(op, src, tuple(a + 1 for a in arg))
    if op == "matmul":
        a, b = src
        if on[0] and not on[1] and len(n.src[0].shape) == 2:  # (T, M, K) @ (K, N): one GEMM
            rows, k = n.src[0].shape
            flat = apply("reshape", (a,), (T * rows, k))
            return apply("reshape", (apply("matmul", (flat, b)),), (T, *n.shape))
        return apply(op, tuple(s if o else lift(s) for s, o in zip(src, on)))
    return apply(op, tuple(s if o else lift(s) for s, o in zip(src, on)), arg)


def push_out(outputs: list[Node], seqs: dict[Node, Node], states: set[Node],
             invariants: dict[Node, Node], T: int, make_placeholder
             ) -> tuple[list[Node], list[Node], list[Node]]:
    """Push the step-independent sequence computations of a body out of the loop.

    Parameters
    ----------
    outputs : the body's outputs.
    seqs : sequence placeholder -> the outer sequence (``(T, ...)``).
    states : the state placeholders.
    invariants : invariant placeholder -> the outer invariant.
    make_placeholder : ``(shape, dtype) -> Node``, a new sequence placeholder.

    Returns
    -------
    The new body outputs, the new sequence placeholders and their outer sequences.
    """
    order = toposort(outputs, set(seqs) | states | set(invariants))
    on_seq: dict[Node, bool] = {}
    ok: dict[Node, bool] = {}     # batchable, depends on sequences, not on states
    heavy: dict[Node, bool] = {}  # ... and contains a matmul or a reduction
    for n in order:
        if n in seqs:
            on_seq[n], ok[n], heavy[n] = True, True, False
        elif n in states:
            on_seq[n], ok[n], heavy[n] = True, False, False
        elif not n.src or n in invariants:
            on_seq[n], ok[n], heavy[n] = False, False, False
        else:
            deps = [s for s in n.src if on_seq[s]]
            on_seq[n] = bool(deps)
            ok[n] = bool(deps) and all(ok[s] for s in deps) and _batchable_op(n)
            heavy[n] = ok[n] and (n.op == "matmul" or n.op in _REDUCES
                                  or any(heavy[s] for s in deps))
    users: dict[Node, list[Node]] = {n: [] for n in order}
    for n in order:
        for s in n.src:
            if s in users:
                users[s].append(n)
    outs = set(outputs)
    needed = ungated(outputs)  # not what only an ifelse branch reads: it may never run
    roots = [n for n in order if heavy.get(n) and n in needed
             and (n in outs or any(not ok[u] for u in users[n]))]
    if not roots:
        return list(outputs), [], []
    outer: dict[Node, Node] = dict(seqs)
    for n in order:  # the batched graph, built for the nodes below a root
        if ok[n] and n not in outer:
            src = tuple(outer[s] if on_seq[s] else invariants.get(s, s) for s in n.src)
            outer[n] = _batched(n, src, tuple(on_seq[s] for s in n.src), T)
    new_ph = [make_placeholder(r.shape, r.dtype) for r in roots]
    body = substitute(outputs, dict(zip(roots, new_ph)))
    return body, new_ph, [outer[r] for r in roots]


def push_in(outputs: list[Node], placeholders: list[Node], seqs: list[Node]) -> list[Node]:
    """Compute in the body the sequences that are elementwise functions of the scan's
    other sequences (and constants): their placeholders are replaced by the same
    function of the others' placeholders (the unused sequences are dropped later)."""
    row_of = dict(zip(seqs, placeholders))
    mapping: dict[Node, Node] = {}
    for seq, ph in zip(seqs, placeholders):
        if not _elementwise(seq) or row_of[seq] is not ph:
            continue
        row = _row_expr(seq, row_of, {}, [0])
        if row is not None and row is not ph:
            mapping[ph] = row
    if not mapping:
        return outputs
    return substitute(outputs, mapping)


def _row_expr(n: Node, row_of: dict, memo: dict, count: list) -> Node | None:
    """``n`` (of shape ``(T, ...)``) as a function of the placeholders of one row, or
    None when it reads anything but the scan's sequences and constants."""
    if n in memo:
        return memo[n]
    out = None
    if n in row_of and not _elementwise(n):
        out = row_of[n]
    elif const_of(n) is not None:
        out = const_shaped(const_of(n), n.shape[1:], n.dtype)
    elif _elementwise(n) and count[0] < _MAX_PUSH_IN:
        count[0] += 1
        src = [_row_expr(s, row_of, memo, count) for s in n.src]
        if all(x is not None for x in src):
            out = Node.make(n.op, tuple(src), n.arg, n.shape[1:], n.dtype)
    elif n in row_of:
        out = row_of[n]
    memo[n] = out
    return out


def _elementwise(n: Node) -> bool:
    d = REGISTRY.get(n.op)
    return d is not None and d.kind == "elementwise" and n.buffer is None
