"""Graph rewrites: named phases of pattern rules, run in one ordered pipeline.

:data:`PIPELINE` lists the phases in the order they run; each is active from an
optimizer level on (the ``optimizer`` flag: ``none``, ``o1`` = ``fast_compile`` ..
``o4`` = ``fast_run``, ``unsafe``).  ``o1`` is merge only, which hash-consing does as
nodes are built; ``unsafe`` adds the rules that change results in edge cases.

:func:`optimize` rewrites a trace for :func:`lazyjit.engine.realize.plan_for`, keeping its
input slots; :func:`rewrite_outputs` rewrites a list of output nodes;
:func:`rewrite_cost` rewrites the graph of a cost before ``lj.grad``'s deferred
gradients are expanded, so the backward graph is built from the stable forward one
(the gradient of ``log(softmax(z))`` is that of ``log_softmax(z)``).  The counts of
the rules applied for each plan are kept for :func:`lazyjit.debug.rewrite_summary`.
"""
from __future__ import annotations

from collections import Counter, OrderedDict

from lazyjit.config import config
from lazyjit.rewrite import canonicalize, fold, specialize, stabilize
from lazyjit.rewrite.engine import TOTAL, Phase, Rule, is_input, run
from lazyjit.trace.graph import Trace, collect
from lazyjit.trace.node import Node
from lazyjit.trace.state import STATE

PIPELINE: list[Phase] = [
    Phase("merge", 1),  # CSE: Node.make hash-conses every node built, rewritten or not
    Phase("constant_fold", 2, tuple(fold.RULES)),
    Phase("canonicalize", 2, tuple(canonicalize.RULES)),
    Phase("stabilize", 3, tuple(stabilize.RULES)),
    Phase("specialize", 4, tuple(specialize.RULES)),
]

# the phases rewrite_cost runs: those that keep every derivative convention of lj.grad
# (specialize would not: x ** -1 has derivative 0 at 0 by convention, 1 / x has -inf)
BEFORE_GRAD = ("constant_fold", "canonicalize", "stabilize")

LEVELS = {"none": 0, "o1": 1, "o2": 2, "o3": 3, "o4": 4, "unsafe": 5}

_SUMMARIES: "OrderedDict[int, tuple]" = OrderedDict()  # id(plan) -> (plan, counts)
_MAX_SUMMARIES = 4096


def phases(level: str | None = None) -> list[Phase]:
    """The phases of :data:`PIPELINE` active at optimizer ``level`` (default: the flag)."""
    n = LEVELS[level or config.optimizer]
    return [p for p in PIPELINE if p.level <= n]


def rewrite_outputs(outputs: list[Node], level: str | None = None) -> list[Node]:
    """Rewrite the graph of ``outputs`` at ``level`` (default: the ``optimizer`` flag).

    Returns the new outputs, of the same shapes and dtypes.  An output that would become
    one of the graph's inputs keeps its original node (so no plan returns an input
    buffer where it did not before).  The counts are kept for :func:`remember`."""
    level = level or config.optimizer
    active = phases(level)
    pending, STATE.rewrite_pending = STATE.rewrite_pending, Counter()
    if not any(p.rules for p in active):
        STATE.rewrite_last = pending
        return list(outputs)
    new, counts = run(list(outputs), active, level == "unsafe")
    STATE.rewrite_last = counts + pending
    return [o if is_input(n) else n for o, n in zip(outputs, new)]


def rewrite_cost(cost: Node, wrt: set[Node], level: str | None = None) -> Node:
    """The graph of ``cost`` rewritten by the phases of :data:`BEFORE_GRAD` active at
    ``level`` (default: the ``optimizer`` flag; the safe rules only),
    with the nodes of ``wrt`` and their subgraphs kept as they are, for differentiation
    with respect to them; computed nodes are rewritten too (the gradient reads their
    sources).  The counts are added to those of the next rewrite (the plan
    this gradient is compiled into)."""
    active = [p for p in phases(level) if p.name in BEFORE_GRAD]
    if not any(p.rules for p in active):
        return cost
    (new,), counts = run([cost], active, False, frozenset(wrt), True)
    STATE.rewrite_pending.update(counts)
    return new


def optimize(trace: Trace, level: str | None = None) -> Trace:
    """``trace`` rewritten, with the same input slots (``trace.inputs`` first, in order;
    inputs no longer read stay as unused slots).  When the rewritten graph would read a
    value the trace does not supply (a node computed earlier that a rewrite rebuilt by
    hash-consing), the trace is returned unchanged."""
    outputs = rewrite_outputs(trace.outputs, level)
    if all(a is b for a, b in zip(outputs, trace.outputs)):
        return trace
    inputs = set(trace.inputs)
    new = collect(outputs)
    if any(n not in inputs for n in new.inputs):
        STATE.rewrite_last = Counter()
        return trace
    nodes = list(trace.inputs) + [n for n in new.nodes if n not in inputs]
    return Trace(nodes, list(trace.inputs), outputs, {n: i for i, n in enumerate(nodes)})


def optimize_body(trace: Trace) -> Trace:
    """:func:`optimize` for the body of a loop compiled inside another plan: its rule
    counts are added to those of the enclosing plan."""
    saved = STATE.rewrite_last
    out = optimize(trace)
    STATE.rewrite_last = saved + STATE.rewrite_last
    return out


def remember(plan) -> None:
    """Keep the counts of the last rewrite as the summary of ``plan``."""
    _SUMMARIES[id(plan)] = (plan, STATE.rewrite_last)
    if len(_SUMMARIES) > _MAX_SUMMARIES:
        _SUMMARIES.popitem(last=False)


def summary_of(plan) -> Counter:
    """The counts of the rules applied when ``plan`` was built (empty if unknown)."""
    entry = _SUMMARIES.get(id(plan))
    return Counter(entry[1]) if entry is not None and entry[0] is plan else Counter()


__all__ = ["PIPELINE", "LEVELS", "Phase", "Rule", "TOTAL", "phases", "rewrite_outputs",
           "rewrite_cost", "optimize", "optimize_body", "remember", "summary_of"]
