"""``@lj.jit``: trace a Python function of tensors once per input signature.

The function runs once on placeholder (``param``) tensors of the inputs' shapes and
dtypes; the resulting trace is compiled by the backend into one plan.  Later calls with
the same signature (shapes, dtypes, tree structure and static arguments, as JAX's cache
key) look the plan up and run it directly; no graph is built.

Automatic dynamic shapes (torch.compile's "automatic dynamic"): when a call brings a new
size on an axis where an earlier call of the same structure had another, the function is
traced once more with that axis a size symbol (:mod:`lazyjit.trace.dims`), and from then
on every size on that axis reuses that symbolic graph: it is made concrete at the sizes
of the call (:mod:`lazyjit.engine.symbolic`, exact, no Python run) and its plan reuses
the compiled code, since kernels take sizes at run time.  A function that cannot be
traced over a symbol (it turns the size into a Python number: ``if x.shape[0] > 3``),
or whose graph's requirements do not hold at some size, is traced at that size instead.
``dynamic=True`` makes every axis symbolic from the first call (and raises instead),
``dynamic=False`` traces every new signature.

Python ``float`` and ``int`` arguments (not ``bool``), in nested containers too, are
runtime scalars, as in JAX: 0-d inputs of the plan (float64, int64) whose values are
passed at each call, so a learning rate that changes at every call traces once.  While
traced they are :class:`~lazyjit.api.weak.WeakScalar` s, weakly typed as the Python
literal would be (``float32_tensor * lr`` stays float32); the cache key holds only their
Python type.  A use that needs the value itself (an axis, a shape, ``range``, an ``if``)
raises; ``static_argnums`` / ``static_argnames`` make an argument a Python value baked
into the trace (part of the key).  Other non-array arguments (bools, strings, None, NumPy
scalars) are part of the key, as before.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import sys
from typing import Any, Callable, Sequence

import numpy as np

import lazyjit.api.functions as F
from lazyjit.config import config, flags_version
from lazyjit.errors import LazyjitError
from lazyjit.ops import SUPPORTED_DTYPES
from lazyjit.pytree import constant_kind, flatten, unflatten
from lazyjit.backends import get_backend
from lazyjit.engine.realize import backend_key, on_device, plan_for
from lazyjit.api.shared import (_PENDING, OWNER, READS, SharedVariable, changed, stored,
                                realize_pending, shapes_read_since)
from lazyjit.speedups import NATIVE
from lazyjit.stats import COUNTS, count
from lazyjit.api.tensor import owned_array, Tensor
from lazyjit.api.weak import WeakFloat, WeakInt, WeakScalar
from lazyjit.trace.graph import collect
from lazyjit.trace.node import Node
from lazyjit.engine.dynamic import Dynamic
from lazyjit.engine.symbolic import recompute_stateful
from lazyjit.trace.constraints import discard
from lazyjit.trace.state import ACTIVE, CONTEXT, STATE, UPDATING, in_trace, recording_trace
from lazyjit.trace.updates import UpdateFrame
from lazyjit.trace.through import JITTED
from lazyjit.trace.values import SEEN, host, hosts

_jit_args = NATIVE.jit_args if NATIVE is not None else None

_trace_ids = itertools.count()


def invalidate_traces() -> None:
    """Make every ``@lj.jit`` function trace again at its next call.

    For Python state a trace depends on that is not an argument, such as a layer's
    train/eval mode (``lj.nn.Module.train`` calls this when a mode changes).  Compiled
    code is reused: a new trace of a known structure compiles nothing."""
    CONTEXT.epoch += 1


def _held_once() -> int:
    """``sys.getrefcount`` of an object held by one attribute and one local variable
    (3 on CPython 3.11: the attribute, the local, the argument; measured, as newer
    interpreters count borrowed references differently)."""
    class Holder:
        __slots__ = ("value",)
    h = Holder()
    h.value = object()
    value = h.value
    return sys.getrefcount(value)


_HELD_ONCE = _held_once()


def _in_call() -> int:
    """``sys.getrefcount`` of an array held by a node's attribute, a call's input list and
    a local variable (a probe with the structure of :meth:`_Entry._donate`)."""
    class Holder:
        __slots__ = ("buffer",)
    h = Holder()
    h.buffer = np.empty(1)
    ins = [h.buffer]
    arr = ins[0]
    return sys.getrefcount(arr)


_IN_CALL = _in_call()


def _owner_held() -> int:
    """``sys.getrefcount`` of the array owning a view's memory, held by the view's base
    and a local variable alone (a probe with the structure of :meth:`_Entry._donate`):
    a computed value is usually a view of its block, and a view of it made later
    (``.numpy()``) has that block as its base, not the value."""
    view = np.empty(2)[:1]
    owner = view.base
    return sys.getrefcount(owner)


_OWNER_HELD = _owner_held()


def _current(leaf: Node) -> "Node | None":
    """The current value of the shared variable whose value ``leaf`` is or was."""
    sv = OWNER.get(leaf)
    return None if sv is None or stored(sv).buffer is None else stored(sv)


def _is_array(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray))


def _is_leaf(x) -> bool:
    """An input of the plan: an array, or a Python float or int (a weak runtime scalar;
    not a bool, nor a subclass such as a NumPy scalar or an enum; an int beyond int64,
    the runtime scalar's dtype, is a constant of the trace, as a static argument is, so
    that it means what it means in NumPy: a uint64 mask, a float factor)."""
    t = type(x)
    return isinstance(x, (Tensor, np.ndarray)) or t is float or \
        (t is int and -2 ** 63 <= x < 2 ** 63)


_WEAK = {float: WeakFloat, int: WeakInt}  # a Python scalar's type -> its traced stand-in


def _scalar(x: "float | int") -> np.ndarray:
    """The Python scalar argument ``x`` as the plan's 0-d input: float64 or int64."""
    try:
        arr = np.array(x, np.float64 if type(x) is float else np.int64)
    except OverflowError:
        raise LazyjitError(f"lj.jit: the Python int argument {x} does not fit int64, the "
                           "dtype of a runtime scalar; pass it in static_argnums") from None
    arr.flags.writeable = False
    return arr


def _leaf_paths(tree, positions: list[int], names: list[str]) -> list[str]:
    """What each leaf of the argument tree ``tree`` (``(args, kwargs)``) is, for errors:
    ``"argument 1 ('lr')"``, ``"argument 0 ('hp')['lr']"``, ``"keyword argument 'lr'"``;
    ``positions``, the position of each of ``args`` in the call (static ones left out);
    ``names``, the parameter names of the positional arguments (as far as known)."""
    out: list[str] = []

    def walk(d, path: str) -> None:
        if d == "*":
            out.append(path)
        elif d[0] in ("t", "l"):
            for i, v in enumerate(d[1]):
                walk(v, f"{path}[{i}]")
        elif d[0] == "d":
            for k, v in zip(d[1], d[2]):
                walk(v, f"{path}[{k!r}]")

    (_, args), (_, keys, values) = tree[1]
    for i, d in zip(positions, args):
        walk(d, f"argument {i}" + (f" ({names[i]!r})" if i < len(names) else ""))
    for k, d in zip(keys, values):
        walk(d, f"keyword argument {k!r}")
    return out


def _wrap(array: np.ndarray, low: int | None) -> Tensor:
    """An output as a tensor.  Derivatives do not go through a jit call: when tensor
    arguments (whose graphs may hold a differentiated node, none older than ``low``)
    went in, the output's leaf says so, and a derivative that might need to go through
    it raises (:func:`lazyjit.trace.through.see_through`) instead of giving zero."""
    if NATIVE is not None:  # (the same steps in C, derived and low below included)
        return NATIVE.tensor_leaf(array, JITTED, low)
    node = Node.leaf(array, site=False)
    t = Tensor(node)
    if low is not None:  # (and a value computed from it, passed to another jitted
        node.derived = (JITTED, node.seq, low)  # function, carries the same low on)
        node.low = low
    return t


def _low(args) -> int | None:
    """The oldest leaf the tensor arguments read (each a leaf holding a value), or None."""
    low = None
    for a in args:
        if isinstance(a, Tensor):
            v = a.node.low
            low = v if low is None or v < low else low
    return low


def _signature(args: tuple) -> tuple | None:
    """``(signature, arrays, low)`` of a jitted call's positional ``args`` for its fast
    path (see :meth:`Jitted._lookup`; ``lazyjit._speedups.jit_args`` is the same loop in
    C): per argument ``(shape, dtype)``, or the type of a Python float or int; the plan's
    input arrays; the oldest node the tensor arguments read (None without one).  None
    where an argument is anything else."""
    arrays = []
    sig = []
    low = None  # (see _wrap)
    for a in args:
        kind = type(a)
        if kind is Tensor:
            node = a.node
            a = node.buffer
            if type(a) is not np.ndarray:  # (not computed, or a device's value: _call)
                return None
            if low is None or node.low < low:
                low = node.low
        elif kind is np.ndarray:
            flags = a.flags
            if not (flags.c_contiguous and flags.aligned):
                return None
        elif kind is float or kind is int:  # a weak runtime scalar: keyed by its type
            if kind is int and not -2**63 <= a < 2**63:
                return None
            arrays.append(_scalar(a))
            sig.append(kind)
            continue
        else:
            return None
        arrays.append(a)
        sig.append((a.shape, a.dtype))
    return tuple(sig), arrays, low


# what a call returns when it must trace again (a function's own result may be None)
_RETRACE = object()


class _Entry:
    """One traced signature: its plan, where each plan input comes from (``slots``:
    argument position, or ``-1-j`` for the j-th captured buffer) and the output tree."""

    __slots__ = ("plan", "slots", "captured", "out_tree", "direct", "passthrough", "shared",
                 "updates", "n_out", "in_place", "fresh", "simple", "single", "shapes_read",
                 "low", "device")

    def call(self, arrays: list, low: int | None = None) -> Any:
        """Run the plan on ``arrays`` and return the output tree of tensors, or
        ``_RETRACE`` (see :meth:`outputs`).  ``low``: the oldest node the tensor
        arguments depend on, None when none is a tensor (see :meth:`_wrap`)."""
        if self.low is not None and (low is None or self.low < low):
            low = self.low  # (a captured tensor is as much an input as an argument)
        if self.single:  # (one output, the plan's own: the common case, written out)
            return _wrap(self.plan.run(arrays)[0], low)
        outs = self.plan.run(arrays) if self.simple else self.outputs(arrays)
        if outs is _RETRACE:
            return outs
        if self.out_tree == "*":
            return _wrap(outs[0], low)
        return unflatten(self.out_tree, [_wrap(a, low) for a in outs])

    def outputs(self, arrays: list) -> Any:
        """Run the plan on ``arrays``; the output arrays (flat, in the order of the output
        tree), or ``_RETRACE`` when a shared variable it reads no longer has the shape or
        dtype it was traced with (the caller traces again).  Calls that update shared
        variables run one at a time (in any thread), each from the values the one before
        left: no update is lost."""
        if self.simple:  # the arguments are the plan's inputs; no update, no pass-through
            return self.plan.run(arrays)
        if self.updates:
            with UPDATING:
                return self._run(arrays)
        return self._run(arrays)

    def _run(self, arrays: list) -> Any:
        if self.direct:
            ins = arrays
        else:
            with UPDATING:  # the values of shared variables: none half updated
                ins = self._inputs(arrays)
            if ins is None:
                return _RETRACE
        if SEEN[0] and not self.device:  # (a host plan: device values' host copies)
            ins = hosts(ins)
        if self.in_place:  # (a dict, even empty: see the cpu backend's Program.run)
            try:
                return self._finish(self.plan.run(ins, self._donate(ins)), ins)
            finally:  # (the variables hold their new values: readers need not wait)
                for _, _, sv in self.in_place:
                    sv.updating = False
        return self._finish(self.plan.run(ins), ins)

    def _finish(self, outs: list, ins: list) -> list:
        """The call's outputs, after its updates: each shared variable given its new
        value; an input returned as it is, copied."""
        if self.updates:  # the shared variables take their new values after the call
            for sv, arr, fresh in zip(self.updates, outs[self.n_out:], self.fresh):
                if not fresh and type(arr) is np.ndarray:  # an input passed on (an
                    arr = arr.copy()  # argument, another variable's value): the
                    arr.flags.writeable = False  # variable's own copy, never shared
                sv._set_leaf(arr, True)  # the variable's alone: it may be donated
            outs = outs[:self.n_out]
        if self.passthrough:  # an input returned as is: a copy, never the caller's array
            # (a device plan's outputs are device buffers of their own)
            outs = [o.copy() if type(o) is np.ndarray and any(
                np.may_share_memory(o, a) for a in ins if type(a) is np.ndarray) else o
                for o in outs]
            for o in outs:
                if type(o) is np.ndarray:
                    o.flags.writeable = False
        return outs

    def _inputs(self, arrays: list) -> list | None:
        """The plan's inputs: the arguments and the captured values, each shared
        variable's read once, as traced (None: it changed shape or dtype, or one whose
        shape the trace read as a number did: trace again)."""
        if self.shapes_read and changed(self.shapes_read) is not None:
            return None
        ins = []
        for s in self.slots:
            if s >= 0:
                ins.append(arrays[s])
                continue
            v = self.captured[-s - 1]
            if isinstance(v, SharedVariable):
                v = stored(v).buffer
                if v is None or (v.shape, v.dtype) != self.shared[-s - 1]:
                    return None
            ins.append(v)
        return ins

    def _donate(self, ins: list) -> dict:
        """``{output position: input slot}`` of the updates the plan may write over the
        variable's old value, in place: those whose memory is lazyjit's alone (an
        earlier update's fresh output never handed out: ``sv.own``), whose leaf no lazy
        graph reads, and which no other input of this call shares."""
        out = {}
        if self.device:  # (a device's plan overwrites nothing: its values are shared)
            return out
        for j, a, sv in self.in_place:
            sv.updating = True  # (before the count: a reader from now on waits, and one
            node = stored(sv)  # that read the value before is counted; see _run)
            # (never a device's value: its host copy is what other tensors read)
            if not sv.own or type(node.buffer) is not np.ndarray or \
                    sys.getrefcount(node) > _HELD_ONCE:
                continue
            arr = ins[a]  # (a view of it handed out would have cleared sv.own)
            owner = arr.base  # (a view of the value, as .numpy() makes, holds this)
            if sum(b is arr for b in ins) == 1 and sys.getrefcount(arr) <= _IN_CALL and \
                    (owner is None or sys.getrefcount(owner) <= _OWNER_HELD):
                out[j] = a  # not also an argument, and no other computation holds it
        return out


def _as_argument(x):
    """A call's argument ``x`` (a pytree) as an inlined function sees it: each array (a
    tensor, a shared variable, a NumPy array) as a tensor of its value now."""
    leaves, tree = flatten(x, _is_leaf)
    return unflatten(tree, [F.asarray(a) if isinstance(a, (Tensor, np.ndarray)) else a
                            for a in leaves])


def _outputs(out) -> tuple[list, Any]:
    """``(leaves as tensors, tree)`` of what a jit function returned.

    Raises
    ------
    LazyjitError
        If a leaf is not a tensor (nor a traced Python number)."""
    leaves, tree = flatten(out, lambda x: isinstance(x, (Tensor, WeakScalar)))
    for x in leaves:
        if not isinstance(x, (Tensor, WeakScalar)):
            raise LazyjitError(f"lj.jit: outputs must be tensors, got {type(x).__name__}")
    return [F.asarray(x) for x in leaves], tree


class Jitted:
    """A jit-compiled function; call it like the original."""

    def __init__(self, fn: Callable, static_argnums: Sequence[int] = (),
                 donate_argnums: Sequence[int] = (), optimizer: str | None = None,
                 dynamic: bool | None = None, static_argnames: Sequence[str] = ()):
        self.fn = fn
        self._names = _positional_names(fn)
        # a parameter made static by position is static by name too, and the other way
        self.static_argnums = frozenset(static_argnums) | frozenset(
            i for i, n in enumerate(self._names) if n in static_argnames)
        self.static_argnames = frozenset(static_argnames) | frozenset(
            self._names[i] for i in static_argnums if 0 <= i < len(self._names))
        self.donate_argnums = frozenset(donate_argnums)
        self.optimizer = optimizer
        self.dynamic = dynamic
        self.shapes_read: list = []  # shapes read by what builds this function's graph
        self._dynamic = Dynamic(dynamic)  # sizes seen and symbolic traces, per structure
        self.generic_sizes = False  # plans made for sizes that vary (lj.function)
        self._cache: dict = {}
        self._fast: dict = {}   # (shapes and dtypes, config version) -> entry
        functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _split(self, args, kwargs):
        """``(dynamic args, dynamic kwargs, static)``: ``static``, the static arguments
        as ``(position, type, value)`` then ``(name, type, value)`` (part of the cache
        key)."""
        if not self.static_argnums and not self.static_argnames:
            return args, kwargs, ()
        dyn = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        # (each value with its kind: 2 == 2.0, np.float32(2.5) == np.float64(2.5) and
        # 0.0 == -0.0, but a trace for one is not the trace for the other)
        static = tuple((i, constant_kind(a), a) for i, a in enumerate(args)
                       if i in self.static_argnums)
        if kwargs and self.static_argnames:
            static += tuple((k, constant_kind(kwargs[k]), kwargs[k]) for k in sorted(kwargs)
                            if k in self.static_argnames)
            kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return dyn, kwargs, static

    def __call__(self, *args, **kwargs):
        if ACTIVE[0] and in_trace():  # called while a trace is recorded
            return self._inline(args, kwargs)
        if _PENDING:  # shared variables assigned outside: computed before the call
            realize_pending()
        if not kwargs and not self.static_argnums:  # (_lookup's steps, inlined: hot path)
            found = _signature(args) if NATIVE is None else _jit_args(args, Tensor, _scalar)
            if found is not None:
                entry = self._fast.get((found[0], flags_version(), CONTEXT.epoch))
                if entry is not None:
                    out = entry.call(found[1], found[2])
                    if out is not _RETRACE:
                        COUNTS.of["trace_cache_hits"] += 1  # (count(), inlined)
                        return out
        return self._call(args, kwargs)

    def _inline(self, args, kwargs):
        """The call made inside a trace (another jit function's, a scan step's, an
        ``lj.cond`` branch's): the function's graph becomes part of that trace, as
        ``jax.jit`` inside ``jax.jit`` (its reads and assigns of shared variables in
        program order with the enclosing code's; its own optimizer level is not
        applied: the enclosing function's is).  Its array arguments are tensors, as at
        a call: a shared variable's value now (never the variable, which the function
        may assign), a NumPy array's copy (never the caller's, which it may change)."""
        static = set(self.static_argnums)
        args = [a if i in static else _as_argument(a) for i, a in enumerate(args)]
        kwargs = {k: v if k in self.static_argnames else _as_argument(v)
                  for k, v in kwargs.items()}
        leaves, tree = _outputs(self.fn(*args, **kwargs))
        return unflatten(tree, leaves)

    def outputs(self, args: tuple) -> list | None:
        """The output arrays (flat, in the order of the output tree; read-only) of a call
        on the positional ``args``, when the fast path of :meth:`__call__` takes them (a
        signature seen before, arguments it needs neither to realize nor to copy); None
        otherwise (call the function).  For ``lj.function``, whose results are arrays:
        no tensor is made around them."""
        if _PENDING:
            realize_pending()
        if self.static_argnums:
            return None
        found = self._lookup(args)
        if found is None:
            return None
        outs = found[0].outputs(found[1])
        if outs is _RETRACE:
            return None
        COUNTS.of["trace_cache_hits"] += 1
        return outs

    def _lookup(self, args: tuple) -> tuple | None:
        """``(entry, arrays, low)`` for positional ``args`` that are realized tensors or
        C-contiguous, aligned NumPy arrays (read in place: outputs never alias them) of a
        signature called before; None for anything else (:meth:`_call` decides).  An
        array of a dtype that must be converted (another byte order, an unsupported
        dtype) has a signature no call stored."""
        found = _signature(args) if NATIVE is None else _jit_args(args, Tensor, _scalar)
        if found is None:
            return None
        sig, arrays, low = found
        entry = self._fast.get((sig, flags_version(), CONTEXT.epoch))
        return None if entry is None else (entry, arrays, low)

    def precompile(self, *arrays: np.ndarray) -> None:
        """Trace and compile the plan for positional arguments of the shapes and dtypes
        of ``arrays`` (their values are not read), without running it: a later call with
        that signature traces again but compiles nothing."""
        tree = flatten(((*arrays,), {}), _is_array)[1]
        self._trace(arrays, list(arrays), list(arrays), tree, ())

    def _call(self, args, kwargs):
        dyn, kwargs, static = self._split(args, kwargs)
        leaves, tree = flatten((dyn, kwargs), _is_leaf)
        arrays = []
        sig = []
        device = get_backend(config.backend)  # (one whose plans read device values)
        device = device if getattr(device, "device_values", False) else None
        for x in leaves:
            if type(x) is float or type(x) is int:  # a weak runtime scalar
                arrays.append(_scalar(x))
                sig.append(type(x))
                continue
            if isinstance(x, Tensor):
                node = x.node
                if node.buffer is None:
                    x.realize()
                    node = x.node
                arr = node.buffer
                if device is None:  # a host backend: a device's value's host copy
                    arr = host(arr)
                else:
                    arr = on_device(node, arr, device.upload)
            elif isinstance(x, np.ndarray) and x.flags.c_contiguous and x.flags.aligned \
                    and x.dtype.isnative and x.dtype in SUPPORTED_DTYPES:
                arr = x.view()  # read in place during the call (outputs never alias it)
                arr.flags.writeable = False
            else:  # an owned, native-order, read-only copy: the caller keeps theirs
                arr = owned_array(x, None, "jit")
            arrays.append(arr)
            sig.append((arr.shape, arr.dtype))
        key = (tuple(sig), tree, static, backend_key(), CONTEXT.epoch)
        try:
            entry = self._cache.get(key)
        except TypeError:
            raise LazyjitError("lj.jit: non-array arguments must be hashable "
                               "(or passed as static_argnums)") from None
        low = _low(leaves)
        out = _RETRACE if entry is None else entry.call(arrays, low)
        if out is _RETRACE:  # new, or a shared variable it reads changed shape or dtype
            count("trace_cache_misses")
            shape_key = (tuple((len(a.shape), a.dtype) for a in arrays), tree, static,
                         backend_key(), CONTEXT.epoch)
            if entry is not None:  # (a shared variable changed: its symbolic graph too)
                self._dynamic.forget(shape_key)
            entry = self._dynamic.entry(self, shape_key, args, leaves, arrays, tree, static)
            if entry is None:
                entry = self._trace(args, leaves, arrays, tree, static)
            epoch = CONTEXT.epoch  # entries of earlier epochs (train/eval switches) go
            keys = list(self._cache)  # (a copy made at once: other threads insert)
            if any(k[-1] != epoch for k in keys):
                self._cache = {k: v for k, v in list(self._cache.items()) if k[-1] == epoch}
            if len(self._cache) >= 256:
                self._cache.clear()
            self._cache[key] = entry
            out = entry.call(arrays, low)
        else:
            count("trace_cache_hits")
        if not kwargs and not static and \
                tree == ("t", (("t", ("*",) * len(args)), ("d", (), ()))):
            if len(self._fast) > 64 or any(k[2] != CONTEXT.epoch for k in list(self._fast)):
                self._fast.clear()  # stale config versions and epochs
            self._fast[(tuple(sig), flags_version(), CONTEXT.epoch)] = entry
        return out

    def _run_body(self, args, leaves, shapes, arrays, tree, static) -> tuple:
        """Run the Python function on ``param`` tensors of ``shapes`` (sizes may be
        symbolic) and the dtypes of ``arrays`` (weak scalars for the Python numbers among
        ``leaves``): ``(trace id, param nodes, output nodes, update nodes, shared
        variables updated, output tree)``."""
        count("traces")
        tid = next(_trace_ids)
        clock = next(READS)  # (shared variables' shapes the function reads from here)
        nodes_in = [Node.make("param", (), (tid, i), shape, a.dtype)
                    for i, (shape, a) in enumerate(zip(shapes, arrays))]
        params: list = [Tensor(p) for p in nodes_in]
        if any(type(x) in _WEAK for x in leaves):  # the runtime scalars, weakly typed
            positions = [i for i in range(len(args)) if i not in self.static_argnums]
            paths = _leaf_paths(tree, positions, self._names)
            params = [_WEAK[type(x)](p, paths[i]) if type(x) in _WEAK else p
                      for i, (x, p) in enumerate(zip(leaves, params))]
        dyn, kwargs = unflatten(tree, params)
        full, it = [], iter(dyn)
        static_map = {k: v for k, _, v in static}
        for i in range(len(args)):
            full.append(static_map[i] if i in static_map else next(it))
        kwargs.update((k, v) for k, v in static_map.items() if isinstance(k, str))
        frame = UpdateFrame()
        STATE.recording.append(frame)
        STATE.views.append(frame)  # (a read after an assign gives the value assigned)
        try:
            with recording_trace():
                out_leaves, out_tree = _outputs(self.fn(*full, **kwargs))
            nodes = [x.node for x in out_leaves]
        finally:
            STATE.views.pop()
            updates = STATE.recording.pop()
            discard()  # (requirements on sizes this trace left unattached go with it)
        return (tid, nodes_in, nodes, [v.node for v in updates.values()], list(updates),
                out_tree, shapes_read_since(clock) + self.shapes_read)

    def _trace(self, args, leaves, arrays, tree, static) -> _Entry:
        run = self._run_body(args, leaves, [a.shape for a in arrays], arrays, tree, static)
        return self._entry(run[0], *run[2:6], arrays, self.generic_sizes, run[6])

    def _arg_names(self, n: int, tree) -> list[str]:
        """Names for the array arguments' size symbols: the parameter names when every
        argument is one array, else ``a0``, ``a1``, ..."""
        flat = tree == ("t", (("t", ("*",) * n), ("d", (), ())))
        params = [p for i, p in enumerate(self._names) if i not in self.static_argnums]
        if flat and len(params) >= n:
            return params[:n]
        return [f"a{i}" for i in range(n)]

    def _entry(self, tid, nodes, update_nodes, updates, out_tree, arrays,
               generic_sizes: bool, shapes_read: list) -> _Entry:
        """The entry (plan and bookkeeping) of a traced graph over params ``tid``;
        ``shapes_read``: the shared variables whose shapes the trace read as numbers
        (``(variable, shape, dtype)``: another shape at a call makes it trace again)."""
        # a value computed earlier from a shared variable (read eagerly, or found again
        # by hash-consing) is computed again at each call, never captured as a constant
        roots = recompute_stateful(nodes + update_nodes, _current)
        nodes, update_nodes = roots[:len(nodes)], roots[len(nodes):]
        trace = collect(nodes + update_nodes)
        entry = _Entry()
        entry.n_out, entry.updates = len(nodes), list(updates)
        STATE.generic_sizes = generic_sizes
        try:
            if self.optimizer is None:
                entry.plan = plan_for(trace)
            else:  # this function's own optimizer level, for its plans only
                with config(optimizer=self.optimizer):
                    entry.plan = plan_for(trace)
        finally:
            STATE.generic_sizes = False
        entry.device = getattr(entry.plan, "device_values", False)
        entry.captured = []
        entry.low = None  # the oldest leaf the captured tensors read (see _wrap)
        slots = []
        for n in trace.inputs:
            if n.op == "param" and n.arg[0] == tid:
                slots.append(n.arg[1])
            elif n.op == "param" and n.arg[0] == "input":
                raise LazyjitError(
                    f"lj.jit: the function uses a tensor that depends on the lj.function "
                    f"placeholder {n.arg[2]!r} (or a shared variable assigned such a "
                    "value while a graph was being built: build that lj.function first, "
                    "or call the variable's .restore())")
            elif n.op == "param":
                raise LazyjitError("lj.jit: the function uses a tensor traced by another "
                                   "jit call (a leaked tracer)")
            else:  # a constant, or a shared variable's value (read at each call; one
                # another thread's call replaced while this trace was built is the
                # variable all the same, unless it has no value now: symbolic)
                sv = OWNER.get(n)
                if sv is not None and stored(sv).buffer is None:
                    sv = None
                if sv is None and entry.device:
                    on_device(n, n.buffer, entry.plan.upload)
                entry.captured.append(n.buffer if sv is None else sv)
                slots.append(-len(entry.captured))
                if n.low != sys.maxsize and (entry.low is None or n.low < entry.low):
                    entry.low = n.low
        entry.shared = [(c.shape, c.dtype) if isinstance(c, SharedVariable) else None
                        for c in entry.captured]  # what each shared variable must hold
        # updates the plan may compute in place, over the variable's old value; and
        # the updates whose value is a fresh array (a compiled plan's own block, not an
        # input passed through): the variable's alone
        program = getattr(entry.plan, "plan", entry.plan)  # (through _WithExtras)
        n_in = getattr(program, "n_in", None)
        outputs = getattr(program, "outputs", None)
        entry.fresh = [n_in is not None and outputs[entry.n_out + k][0] >= n_in
                       for k in range(len(entry.updates))]
        donors = getattr(entry.plan, "donors", None) or {}
        entry.in_place = []
        for k, sv in enumerate(entry.updates):
            j = entry.n_out + k
            a = donors.get(j)
            if a is not None and slots[a] < 0 and entry.captured[-slots[a] - 1] is sv:
                entry.in_place.append((j, a, sv))
        entry.slots = slots
        entry.shapes_read = shapes_read
        entry.direct = slots == list(range(len(arrays))) and not shapes_read
        entry.passthrough = any(n in trace.inputs for n in trace.outputs[:len(nodes)])
        entry.simple = entry.direct and not entry.updates and not entry.passthrough
        entry.out_tree = out_tree
        entry.single = entry.simple and out_tree == "*"
        return entry


def _positional_names(fn: Callable) -> list[str]:
    """The names of ``fn``'s parameters that may be passed by position, in order (none
    when its signature cannot be read)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def jit(fn: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        optimizer: str | None = None, donate_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), dynamic: bool | None = None) -> Any:
    """Compile ``fn`` (a function of tensors, NumPy arrays and nested tuples, lists and
    dicts of them) into one native call per input signature.

    Parameters
    ----------
    fn : the function; its outputs must be tensors, weak scalars (returned as 0-d
        tensors) or nested containers of them.
    static_argnums : positions of arguments that are Python values baked into the trace
        (part of the cache key; must be hashable): what ``fn`` uses as a Python value
        (an axis, a shape, a loop count, a flag in an ``if``).  A parameter named in
        ``static_argnames`` is static when passed by position too.
    static_argnames : names of keyword arguments baked into the trace, as
        ``static_argnums`` (a parameter given in either is static however it is passed).
    donate_argnums : accepted for JAX compatibility (buffers are not reused yet).
    optimizer : this function's optimizer level (``'fast_compile'``, ``'o1'``..``'o4'``,
        ``'fast_run'``, ``'unsafe'``, ``'none'``), overriding the ``optimizer`` flag for
        its plans (Theano's ``mode`` per function).
    dynamic : sizes that vary between calls.  ``None`` (default, torch.compile's
        "automatic dynamic"): the first signature is traced at its sizes; a later call
        with other sizes on some axes traces once more with those axes symbolic, and
        every later size there reuses that trace (no Python run, no compile).  ``True``:
        every axis of every array argument is symbolic from the first call; a function
        that cannot be traced so (``if x.shape[0] > 3``, ``float(x.shape[0])``) raises.
        ``False``: every new signature is traced at its sizes.

    Returns
    -------
    A :class:`Jitted` callable (or a decorator, when ``fn`` is not given).

    Notes
    -----
    Arguments are traced by signature: tensors and NumPy arrays by shape and dtype;
    Python ``float`` and ``int`` values (not ``bool``), also inside nested containers, by
    their Python type only.  Those are *weakly typed runtime scalars*, JAX's weak types
    and NumPy 2's rule for Python scalars (NEP 50): their value is a 0-d input of the
    plan (float64 or int64) passed at each call, so calls with other values trace and
    compile nothing again (a learning-rate schedule traces once), and in arithmetic they
    take the dtype of the tensor they meet, as the literal would: ``float32 * lr`` stays
    float32, ``int32 + n`` stays int32 (an ``n`` out of int32's range raises at the
    call), ``int32 * lr`` is float64.  Arithmetic of them with Python numbers stays weak
    (``lr * 0.5``); ``lj.exp(lr)`` and ``lj.tensor(lr)`` are float64 tensors, as
    ``lj.exp(0.1)``.  A traced int indexes (``x[i]``, read at each call).  A use that
    needs the number itself (``float(lr)``, ``if lr > 0``, ``range(n)``, an axis, a
    shape, ``lj.scan``'s ``n_steps``) raises a ``LazyjitError``: pass that argument in
    ``static_argnums`` or ``static_argnames``.  Other non-array arguments (bools,
    strings, ``None``, NumPy scalars, hashable objects) are part of the cache key.

    Inside ``fn``, values cannot be read (``float(t)``, ``bool(t)`` raise), since they
    are not known until the call.
    """
    if optimizer is not None:
        optimizer = config._parse({"optimizer": optimizer})["optimizer"]  # fails here
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    if isinstance(donate_argnums, int):
        donate_argnums = (donate_argnums,)
    if dynamic not in (None, True, False):
        raise LazyjitError(f"lj.jit: dynamic must be None, True or False, got {dynamic!r}")
    if fn is None:
        return lambda f: Jitted(f, static_argnums, donate_argnums, optimizer,
                                dynamic=dynamic, static_argnames=static_argnames)
    return Jitted(fn, static_argnums, donate_argnums, optimizer, dynamic=dynamic,
                  static_argnames=static_argnames)
