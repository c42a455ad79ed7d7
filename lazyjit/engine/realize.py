"""Realization: compute pending tensors through the trace cache and a backend.

``realize(*tensors)`` collects the pending subgraph of all given tensors as one trace,
looks its key (xxhash of structure, shapes, dtypes) up in the in-memory plan cache,
builds a plan through the backend only on a miss, runs it, and stores the results.
A realized tensor then refers to a fresh leaf holding its value, so later graphs do not
keep earlier ones alive; its former node stays reachable for ``lj.grad``.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from lazyjit.autodiff.reverse import expand_grads, has_deferred
from lazyjit.api.shared import _PENDING, OWNER, SharedVariable, pending_nodes, settle, stored
from lazyjit.backends import Executable, get_backend
from lazyjit.config import config, flags_version
from lazyjit.errors import LazyjitError, describe, format_site, warn_at_user
from lazyjit.ops import kind_of
from lazyjit.ops.linalg import LINALG_FAILURES
from lazyjit.rewrite import optimize, optimize_body, remember, rewrite_outputs
from lazyjit.speedups import NATIVE
from lazyjit.stats import count
from lazyjit.trace.graph import Trace, collect, reachable, toposort
from lazyjit.trace.node import EPOCH, NEVER, Node, derived, merge, next_epoch
from lazyjit.trace.state import CONTEXT, STATE, UPDATING, tracing_jit
from lazyjit.trace.values import SEEN, hosts

_PLANS: "OrderedDict[tuple, Executable]" = OrderedDict()
_MAX_PLANS = 4096
# (structural key of a realize's outputs, flags) -> the key of its plan in _PLANS, once a
# realize of that structure has walked its graph and found (or built) a cached plan
_KNOWN: dict = {}


def backend_key() -> tuple:
    """The flags that change what a plan computes or how it is compiled."""
    version = flags_version()
    cached = CONTEXT.backend_key
    if cached[0] != version:
        cached = CONTEXT.backend_key = (version, (
            config.backend, config.openmp, config.optimizer, config.compiler, config.cflags,
            config.conv_algo, config.cuda_emulate))
    return cached[1]


def plan_for(trace: Trace) -> Executable:
    """Return the cached plan for ``trace`` or build one (counted in ``lj.stats()``)."""
    return _plan_for(trace, (trace.key(), backend_key(), STATE.generic_sizes))


def _plan_for(trace: Trace, key: tuple) -> Executable:
    deferred = has_deferred(trace.nodes)
    if deferred and _through_computed(trace.inputs):
        count("trace_cache_misses")  # (never cached, never looked up: see below)
        return _compile_expanded(trace)[0]
    plan = _PLANS.get(key)
    if plan is not None:
        count("trace_cache_hits")
        return plan
    count("trace_cache_misses")
    if deferred:
        plan, cacheable = _compile_expanded(trace)
        if not cacheable:  # neither cached nor remembered: it holds this call's values
            return plan
        remember(plan)
    else:
        plan = get_backend(config.backend).compile(optimize(trace))
        remember(plan)
    _PLANS[key] = plan
    if len(_PLANS) > _MAX_PLANS:
        _PLANS.popitem(last=False)
    return plan


class _WithExtras:
    """A plan whose trace gained inputs when its deferred gradients were expanded
    (constant leaves created by VJP rules): they are appended to every call's inputs."""

    def __init__(self, plan: Executable, extras: list):
        self.device_values = getattr(plan, "device_values", False)
        self.plan, self.extras = plan, extras if self.device_values else hosts(extras)
        self.donors = getattr(plan, "donors", {})  # (the extras come last: same slots)

    def upload(self, array):
        return self.plan.upload(array)

    def run(self, inputs, donate=None):
        if donate is not None:
            return self.plan.run(list(inputs) + self.extras, donate)
        return self.plan.run(list(inputs) + self.extras)


def _compile_expanded(trace: Trace) -> tuple[Executable, bool]:
    """Compile ``trace`` with its deferred ``grad`` nodes expanded, keeping the input
    slots of ``trace``.  Returns the plan and whether it may be cached under the
    unexpanded trace's key: not when the expansion reached values that the unexpanded
    trace does not show (nodes below an already computed node), since another trace
    of the same key would bring other values there."""
    first_new_leaf = Node.leaf(np.empty(0), site=False).arg
    inputs = set(trace.inputs)
    mapping = expand_grads([n for n in trace.nodes if n not in inputs])
    outputs = rewrite_outputs([mapping.get(o, o) for o in trace.outputs])
    new = collect(outputs)
    extras = [n for n in new.inputs if n not in inputs]
    all_inputs = list(trace.inputs) + extras
    nodes = all_inputs + [n for n in new.nodes if n not in inputs and n not in extras]
    full = Trace(nodes, all_inputs, outputs, {n: i for i, n in enumerate(nodes)})
    plan = get_backend(config.backend).compile(full)
    # leaves created by VJP rules during the expansion are constants; anything older is
    # user data reached below a computed node.  And if a cost graph goes through a node
    # computed earlier, the trace key (which stops at it) does not show the graph below
    # it, which the expansion differentiated: another trace of the same key may differ
    # there (other constants, ops or inputs).
    cacheable = all(n.op == "buffer" and n.arg > first_new_leaf or _of_constants(n)
                    for n in extras)
    if cacheable:
        roots = [s for n in trace.nodes if kind_of(n) == "deferred" for s in n.src]
        cacheable = not any(n.buffer is not None and n.src for n in toposort(roots, set()))
    return (_WithExtras(plan, [n.buffer for n in extras]) if extras else plan), cacheable


def _known_plan(key, inputs) -> Executable | None:
    """The plan of a structure realized before (``key``, from :func:`_structural_key`),
    or None: none yet, or one of its ``inputs`` is a computed node (the plan may hold a
    deferred gradient: see :func:`_through_computed`)."""
    plan_key = _KNOWN.get((key, backend_key(), STATE.generic_sizes))
    plan = _PLANS.get(plan_key) if plan_key is not None else None
    return None if plan is None or _through_computed(inputs) else plan


def _through_computed(inputs) -> bool:
    """Whether an input of a trace with a deferred gradient is a computed node (a value
    read earlier, whose graph the gradient may be taken through): the trace's key stops
    at it, as at any input, so a plan cached under that key (one where that input was a
    plain value) would treat it as a constant: a wrong derivative.  Such a trace is
    expanded and compiled at each realize (its plan was never cacheable)."""
    return any(n.src for n in inputs)


def _of_constants(node: Node) -> bool:
    """Whether ``node`` (computed earlier, found again by hash-consing) is computed from
    scalar literals only (a broadcast constant): its value is fixed by the structure."""
    return all(n.op == "const" for n in reachable([node], lambda n: n.src) if not n.src)


def body_plan(spec, backend: str) -> Executable:
    """The body trace of the loop ``spec`` optimized and compiled by ``backend`` (cached
    on the spec): the NumPy reference of ``scan`` runs its body with it."""
    key = (backend, config.optimizer)
    plan = spec._compiled.get(key)
    if plan is None:
        plan = spec._compiled[key] = get_backend(backend).compile(optimize_body(spec.trace()))
    return plan


def _refuse_shared(nodes: list) -> None:
    """Inside an ``lj.jit`` trace, a value computed from a shared variable would be the
    value at tracing time, baked into every later call (a loop's number of steps, the
    size of ``unique``'s result, a Python ``if`` on it): an error instead."""
    for n in collect(nodes).inputs:
        sv = OWNER.get(n)
        if sv is not None:
            raise LazyjitError(
                "cannot compute, inside lj.jit, a value that depends on the shared variable"
                f"{' ' + repr(sv.name) if sv.name else ''} (shape {describe(n.shape)}, "
                f"{n.dtype}): lj.jit reads "
                "shared variables at every call, so a value computed now (for a Python "
                "branch, a loop's number of steps, a size that depends on values) would "
                "go stale; keep it in the graph (lj.where, lj.ifelse, a fixed n_steps), "
                "or compute it outside the jitted function.\n" + format_site(nodes[0].site))


def realize(*tensors) -> None:
    """Compute every given tensor that has no value yet, in one trace.

    Raises
    ------
    LazyjitError
        For a value that exists only at a call: one that depends on an ``lj.function``
        placeholder, a ``jit`` tracer, a scan step's placeholders, or a symbolic size.
    """
    if _PENDING and not STATE.recording:
        # shared variables with a pending assignment: their values become theirs (a leaf
        # of the variable's, read by later jit calls and functions), not a plain value
        pending = [t for t in tensors if isinstance(t, SharedVariable) and id(t) in _PENDING]
        if pending:
            settle(pending)
            done = {id(t) for t in pending}
            tensors = [t for t in tensors if id(t) not in done]
    if len(tensors) == 1 and not STATE.recording:  # eager code's realize of one value:
        n = tensors[0].node  # (the steps below, without their lists)
        known = _structural_key([n]) if n.buffer is None else None
        plan = _known_plan(*known) if known is not None else None
        if plan is not None:
            count("trace_cache_hits")
            if _GROWTH[1]:  # (a structure seen before: no growing graph)
                _GROWTH[1] = 0
            _leaves(tensors, (n,), _run(plan, known[1], (n,)))
            return
    nodes = []
    seen = set()
    given = [t.node for t in tensors]  # (another thread may give a tensor a new node)
    for n in given:
        if n.buffer is None and n not in seen:
            seen.add(n)
            nodes.append(n)
    if STATE.recording and tracing_jit(STATE.recording):  # (inside an lj.jit trace)
        _refuse_shared(given)
    known = _structural_key(nodes) if nodes else None
    plan = _known_plan(*known) if known is not None else None
    if plan is not None:  # the common case of eager code: a structure realized before
        count("trace_cache_hits")
        if _GROWTH[1]:  # (no growing graph)
            _GROWTH[1] = 0
        _leaves(tensors, given, _run(plan, known[1], nodes))
        return
    trace = collect(nodes) if nodes else None
    companions = _companions(trace) if nodes else []
    if companions:  # (computed in the same run: see _companions)
        nodes = nodes + companions
        trace = collect(nodes)
    if nodes:
        for n in trace.inputs:
            if n.op == "param" and n.arg[0] == "scan":
                raise LazyjitError(
                    "cannot compute the value of a tensor inside a scan step function (it "
                    "differs at every step): use lj.ifelse or lj.where instead of Python "
                    "control flow, and return values instead of printing them.\n"
                    + format_site(nodes[0].site))
            if n.op == "param" and n.arg[0] == "input":
                raise LazyjitError(
                    f"cannot compute the value of a tensor that depends on the placeholder "
                    f"{n.arg[2]!r} (it has a value only inside a call): compile it with "
                    "lj.function([...], outputs) and call that.\n" + format_site(nodes[0].site))
            if n.op == "param" and n.arg[0] in ("size", "sized"):
                size = n.arg[1] if n.arg[0] == "size" else describe(n.shape)
                raise LazyjitError(
                    f"cannot compute a value made from the size {size}, known only at "
                    "each call: it has no value before a call.  Use it in the graph of "
                    "the function (x / n, lj.zeros((n, 3)), lj.arange(n))\n"
                    + format_site(nodes[0].site))
            if n.op == "param":
                raise LazyjitError(
                    "cannot compute the value of a tensor traced by lj.jit (its value "
                    "depends on the function's inputs): return it instead; for a Python "
                    "branch on it (if, while, bool()), choose in the graph at run time "
                    "with lj.where(c, a, b), lj.cond or lj.ifelse; or mark the argument "
                    "static.\n" + format_site(nodes[0].site))
    if nodes:
        key = (trace.key(), backend_key(), STATE.generic_sizes)
        fresh = key not in _PLANS
        plan = _plan_for(trace, key)
        if not STATE.recording:
            _note_growth(len(trace.nodes) if fresh else 0)
        if known is not None and _PLANS.get(key) is plan and trace.inputs == list(known[1]) \
                and not companions:
            if len(_KNOWN) > 4 * _MAX_PLANS:
                _KNOWN.clear()
            _KNOWN[(known[0], key[1], key[2])] = key  # (the next realize of it: no walk)
        literals = _run(plan, trace.inputs, nodes)
    _leaves(tensors, given, literals if nodes else {})


GROWTH_STREAK = 8  # realizes in a row, each compiling a larger graph, before the warning
# [the last fresh graph's size, realizes in a row that compiled a larger one, warned]:
# one for the process (threads realizing at once only blur a heuristic's count)
_GROWTH = [0, 0, False]


def _note_growth(size: int) -> None:
    """Warn once (at the user's line) when realizes in a row each compile a larger graph
    (``size`` nodes; 0 for a structure realized before, which ends a streak): the sign
    of a value carried from step to step that is never realized (a parameter updated in
    an eager loop while only the loss is read), whose whole history every step then
    computes, and compiles, again."""
    g = _GROWTH
    g[1] = g[1] + 1 if size > g[0] else 0
    g[0] = size
    if g[1] >= GROWTH_STREAK and not g[2]:
        g[2] = True
        warn_at_user(
            f"the last {g[1]} realizes each compiled a larger graph.  If this is a loop, a "
            "tensor carried from step to step (w = w - lr * g) that is never computed "
            "makes every step compute, and compile, its whole history again: compute it "
            "with what you read at each step, lj.realize(w, loss), so that the next step "
            "starts from its value", UserWarning)


_PROJECTIONS = frozenset(("scan_out",))  # the ops that take one result of a multi-result node
_VIEWS = frozenset(("slice", "reshape", "expand", "cast", "transpose", "squeeze"))


def _companions(trace: Trace) -> list[Node]:
    """The pending values of shared variables that are a few view steps from a result of
    a multi-result node this trace computes (a scan's updates: a random stream's counter
    after a loop that draws).  They come out of the same run: computed later, they would
    run that loop again, and a shared variable left pending would keep a chain of every
    earlier loop in each next graph (a new structure, so a new compile, at each call)."""
    found = []
    for p in pending_nodes():
        n = p
        for _ in range(4):  # (a slice, a reshape, a cast: views of the result, which
            # cannot fail: nothing that could raise is computed unasked)
            if n.op in _PROJECTIONS:
                if n.src[0] in trace.index and p not in trace.index:
                    found.append(p)
                break
            if n.op not in _VIEWS or len(n.src) != 1 or n.buffer is not None:
                break
            n = n.src[0]
    return found


def structural_key_py(nodes: list[Node]) -> tuple | None:
    """``(key, inputs)`` of the trace of ``nodes`` from their structural keys (see
    :mod:`lazyjit.trace.node`), with no walk of the graph; None where a node has none,
    or some node of its graph may have been computed since it was made."""
    epoch = EPOCH[0]
    if len(nodes) == 1:
        n = nodes[0]
        if n.ins is None or n.ep != epoch and n.ep != NEVER:
            return None
        return n.sk, n.ins
    ins: tuple = ()
    parts = []
    for n in nodes:
        if n.ins is None or n.ep != epoch and n.ep != NEVER:
            return None
        ins, at = merge(ins, n.ins)
        parts.append((n.sk, at))
    return tuple(parts), ins


# (lazyjit._speedups.trace_key takes the same steps in C)
_structural_key = NATIVE.trace_key if NATIVE is not None else structural_key_py


def _run(plan: Executable, inputs, nodes: list[Node]) -> dict:
    """Run ``plan`` on the values of the nodes ``inputs``; store its outputs in ``nodes``
    (whose structural keys, and those of the nodes made before, then no longer hold:
    the epoch moves on).  Nodes computed from literals alone (``lj.full((), 2.0)``,
    shared by every graph that writes that literal) never hold a value, so that they
    stay constants for every later graph: their values are returned by node."""
    with UPDATING:  # (an update in another thread never writes over these arrays)
        arrays = [n.buffer for n in inputs]
    if SEEN[0]:  # (a device's plan or value was made in this process)
        if getattr(plan, "device_values", False):  # a device's plan (cuda)
            arrays = [on_device(n, a, plan.upload) for n, a in zip(inputs, arrays)]
        else:  # a host backend reading values a device computed: their host copies
            arrays = hosts(arrays)
    try:
        outs = plan.run(arrays)
    except IndexError as e:  # (a kernel's index check: say where the indexing was written)
        raise IndexError(f"{e}{_sites(nodes, _INDEXING, 'indexing')}") from None
    except np.linalg.LinAlgError as e:  # (a factorization failed: where it was asked for)
        raise np.linalg.LinAlgError(f"{e}{_sites(nodes, _LINALG, 'linear algebra')}") \
            from None
    literals = {}
    for n, arr in zip(nodes, outs):
        if n.ins == ():
            literals[n] = arr
        else:
            n.buffer = arr
    EPOCH[0] = next_epoch()
    return literals


def on_device(node: Node, value, upload):
    """``value``, ``node``'s, for a plan that reads device values: a host array is copied
    to the device by ``upload`` and kept as the node's value (a device buffer whose host
    copy it stays), so that later computations on the device read it with no copy.  A
    node's value never changes, so neither copy goes stale."""
    if type(value) is np.ndarray:
        value = node.buffer = upload(value)
    return value


_INDEXING = frozenset(("take", "put", "put_add"))  # the ops whose indices a kernel checks
_LINALG = frozenset(LINALG_FAILURES)  # the factorizations that may fail (LAPACK's info)


def _sites(nodes, ops: frozenset, what: str) -> str:
    """Where the ``ops`` of the graph of ``nodes`` (down to values computed earlier)
    were written, for an error one of them raised when computed (an index out of
    bounds, a singular matrix: ``lj.linalg.inv`` is a ``solve``)."""
    found = [n for n in reachable(list(nodes), lambda n: () if n.buffer is not None else n.src)
             if n.op in ops and n.site]
    if not found:
        return ""
    shown = "\n".join(f"{n.op} of " + ", ".join(f"a {describe(s.shape)} {s.dtype.name}"
                                                 for s in n.src)
                       + f" tensor:\n{format_site(n.site)}" for n in found[:3])
    more = f"\n(and {len(found) - 3} more)" if len(found) > 3 else ""
    return f"; the {what} of this computation was written at:\n{shown}{more}"


def _leaves_py(tensors, given, literals: dict) -> None:
    """Each realized tensor refers to a fresh leaf holding its value (the node's buffer,
    or ``literals[node]``), derived from the node (weakly: no chain of old graphs
    kept).  (``lazyjit._speedups.realized`` takes the same steps in C.)"""
    for t, n in zip(tensors, given):
        if n.op != "buffer" and stored(t) is n:  # (a shared variable's own node, not
            t._origin = n  # the value an lj.cond branch being traced assigned to it)
            t.node = Node.leaf(n.buffer if n.buffer is not None else literals[n],
                               site=n.site)
            derived(t.node, t._origin)


def _leaves(tensors, given, literals: dict) -> None:
    """:func:`_leaves_py`, in C where the extension is built; while a function is
    differentiated, its computed nodes are kept (until it is)."""
    if NATIVE is None:
        _leaves_py(tensors, given, literals)
    else:
        NATIVE.realized(tensors, given, literals)
    if STATE.keep:
        STATE.keep[-1].extend(n for t, n in zip(tensors, given) if t._origin is n)


# the calls up the layers: tensors and loop references below compute values through these
CONTEXT.realize, CONTEXT.body_plan = realize, body_plan
