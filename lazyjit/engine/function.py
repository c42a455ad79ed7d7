"""Theano-style compiled functions: ``lj.function(inputs, outputs, updates, givens, mode)``
over symbolic placeholders (``lj.scalar/vector/matrix/tensor3/tensor4``) of unknown sizes.

The graph is built once, eagerly, on the placeholders; their dimensions of unknown size
are symbols (``x0``, ``x1``), and every size computed from them an exact expression
(:mod:`lazyjit.trace.dims`).  A call binds the symbols to the sizes of the arguments,
checks what the graph assumed of them, and evaluates the graph's sizes at those values
(:mod:`lazyjit.engine.symbolic`: not a replay of the Python that built it, and no
guess), then runs it through the machinery of ``lj.jit``:
the plan is cached per argument signature, the shared variables the graph reads are
implicit inputs read at each call, and the updates are applied after the outputs are
computed.  The kernels do not depend on sizes, so the first call compiles and every
later size reuses the compiled code (``lj.stats()['compiles']`` stays unchanged).
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

import lazyjit.api.functions as F
from lazyjit.config import config
from lazyjit.errors import LazyjitError, describe, op_error
from lazyjit.engine.jit import Jitted
from lazyjit.api.shared import (OWNER, READS, SYMBOLIC, SharedVariable, changed,
                                refuse_assigned_reads, shapes_read_since)
from lazyjit.api.tensor import check_dtype, owned_array, Tensor
from lazyjit.trace.node import Node
from lazyjit.engine.symbolic import bind, graph_leaves, instantiate, requirements
from lazyjit.trace.constraints import VALUE_SYMBOLS, Requirement, check, discard
from lazyjit.trace.dims import Dim, axis_symbol, evaluate, ident, is_symbolic, sym
from lazyjit.trace.state import ACTIVE, CONTEXT, in_trace
from lazyjit.trace.values import host, hosts

_ids = itertools.count()


class Placeholder(Tensor):
    """A symbolic input of :func:`function` (Theano's ``TensorVariable`` without a
    value).  Create with :func:`scalar`, :func:`vector`, :func:`matrix`, :func:`tensor3`,
    :func:`tensor4` or :func:`placeholder`."""

    __slots__ = ("name", "declared", "start")

    def __repr__(self) -> str:
        return f"placeholder({self.name!r}, shape={describe(self.shape)}, " \
               f"dtype={self.dtype.name})"


def placeholder(name: str | None = None, dtype: Any = "float64",
                shape: Sequence[int | str | None] = ()) -> Placeholder:
    """A symbolic input of rank ``len(shape)`` for :func:`function`.

    Parameters
    ----------
    name : used in messages (default ``"input<k>"``).
    dtype : any supported NumPy dtype; default float64 (Theano's ``floatX``, NumPy's
        default float).
    shape : one entry per dimension: an int (a known size, checked at each call),
        ``None`` (a size of this placeholder's own, the symbol ``<name><k>``: ``x0``,
        ``x1`` for ``lj.matrix("x")``), or a name (a string: the dimensions with that
        name, in any placeholder, are one symbol, equal at each call;
        ``("time", "batch", 300)``).

    A dimension of unknown size is a symbolic size (:class:`lazyjit.trace.dims.Dim`):
    ``x.shape`` shows it by name, and shapes computed from it are exact expressions
    (``x.reshape(-1)`` has ``x0*x1`` elements).  Where an op needs it to have a
    particular size (``x @ W`` with ``W`` of shape ``(784, 10)`` needs ``x1 == 784``),
    the graph records the requirement and each call checks it, with an error naming
    the op, its line, the symbol and the sizes (PyTensor's static shapes with ``None``).

    Raises
    ------
    LazyjitError
        For a bad dtype or shape entry.
    """
    dt = check_dtype(dtype, "placeholder")
    uid = next(_ids)
    CONTEXT.placeholders += 1
    name = f"input{uid}" if name is None else str(name)
    dims = []
    for k, d in enumerate(shape):
        if d is None:  # x0, x1 for "x"; h0_0 for "h0"
            dims.append(axis_symbol(name, k))
        elif isinstance(d, str) and d:
            dims.append(sym(d))
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            dims.append(int(d))
        else:
            raise op_error("placeholder", f"{name}: shape entries must be sizes >= 0, "
                           f"None or names, got {d!r}")
    t = Placeholder(Node.make("param", (), ("input", uid, name), tuple(dims), dt))
    t.name, t.declared = name, tuple(shape)
    t.start = next(READS)  # (shared variables' shapes read after this: see Function)
    return t


def scalar(name=None, dtype="float64") -> Placeholder:
    """A 0-d placeholder (see :func:`placeholder`)."""
    return placeholder(name, dtype, ())


def vector(name=None, dtype="float64", shape=(None,)) -> Placeholder:
    """A 1-d placeholder of unknown size (see :func:`placeholder`)."""
    return placeholder(name, dtype, _rank(shape, 1))


def matrix(name=None, dtype="float64", shape=(None, None)) -> Placeholder:
    """A 2-d placeholder of unknown sizes (see :func:`placeholder`)."""
    return placeholder(name, dtype, _rank(shape, 2))


def tensor3(name=None, dtype="float64", shape=(None,) * 3) -> Placeholder:
    """A 3-d placeholder of unknown sizes (see :func:`placeholder`)."""
    return placeholder(name, dtype, _rank(shape, 3))


def tensor4(name=None, dtype="float64", shape=(None,) * 4) -> Placeholder:
    """A 4-d placeholder of unknown sizes (see :func:`placeholder`)."""
    return placeholder(name, dtype, _rank(shape, 4))


def _rank(shape, n: int) -> tuple:
    shape = tuple(shape)
    if len(shape) != n:
        raise op_error("placeholder", f"a {n}-d placeholder needs {n} shape entries, "
                       f"got {shape}")
    return shape


def _symbols_of(leaf: Node) -> set:
    """The symbols of a leaf holding symbolic sizes (``("size", n)``, ``("sized", ...)``)."""
    out: set = set()
    for d in (*leaf.arg, *leaf.shape):
        if type(d) is Dim:
            out |= d.symbols()
    return out


def _graph(t: Tensor) -> Node:
    """The graph computing ``t``, even if it has been computed since (a function
    computes its outputs at every call, as Theano's does, never a value cached by an
    eager read)."""
    origin = t._origin
    return origin if origin is not None and t.node.op == "buffer" else t.node


def _pairs(what: str, value) -> list[tuple]:
    if value is None:
        return []
    items = list(value.items()) if isinstance(value, dict) else list(value)
    for item in items:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise op_error("function", f"{what} must be a dict or a list of (variable, "
                           f"expression) pairs, got {item!r}")
    return [tuple(i) for i in items]


def _mode_flags(mode) -> dict:
    """``mode``: None, an optimizer level, a backend name, or a dict of flags."""
    if mode is None:
        return {}
    if isinstance(mode, dict):
        return config._parse(dict(mode))
    text = str(mode).lower()
    if text in ("numpy", "cpu"):
        return {"backend": text}
    return config._parse({"optimizer": text})


class Function:
    """A compiled function of placeholders; call it with arrays (one per input, in
    order).  Create with :func:`function`."""

    def __init__(self, inputs, outputs, updates, givens, mode, allow_input_downcast,
                 parent: "Function | None" = None, swap: dict | None = None,
                 no_default_updates: bool = False):
        if parent is not None:  # a copy: the same graph, updates and counters
            self.__dict__.update({k: v for k, v in parent.__dict__.items()
                                  if k not in ("_jitted", "_probed", "swaps")})
            self.swaps = parent.swaps + [dict(swap or {})]
            self._jitted = Jitted(self._instantiate, static_argnums=self._valued,
                                  optimizer=self._flags.get("optimizer"), dynamic=False)
            self._jitted.generic_sizes = parent._jitted.generic_sizes
            self._jitted.shapes_read = self._shapes_read
            self._probed = False
            return
        self.inputs = list(inputs)
        self._required: list = []  # requirements on sizes beyond those of the graph
        self.allow_input_downcast = allow_input_downcast
        self.swaps: list[dict] = []
        for i, x in enumerate(self.inputs):
            if not isinstance(x, Placeholder):
                raise op_error("function", f"inputs[{i}] must be a placeholder "
                               f"(lj.scalar/vector/matrix/...), got {type(x).__name__}")
        if len({id(x) for x in self.inputs}) != len(self.inputs):
            raise op_error("function", "an input is listed twice")
        self.single = isinstance(outputs, Tensor)
        outs = [] if outputs is None else [outputs] if self.single else list(outputs)
        self.outputs = [F.asarray(o) for o in outs]
        self.updates = []
        for var, expr in _pairs("updates", updates):
            if not isinstance(var, SharedVariable):
                raise op_error("function", f"updates: {type(var).__name__} of shape "
                               f"{getattr(var, 'shape', '?')} is not a shared variable; only "
                               "shared variables (lj.shared) can be updated",
                               (var.node,) if isinstance(var, Tensor) else ())
            expr = var.coerce(expr, "function")
            self._same_shape(expr, var.shape, f"update of {var.name or 'a shared variable'}",
                             (var.node, expr.node))
            self.updates.append((var, expr))
        if len({id(v) for v, _ in self.updates}) != len(self.updates):
            raise op_error("function", "a shared variable is updated twice")
        taken = [] if no_default_updates else self._take_symbolic()
        self.givens = []
        for var, expr in _pairs("givens", givens):
            if not isinstance(var, Tensor):
                raise op_error("function", f"givens: cannot replace a {type(var).__name__}")
            expr = F.asarray(expr)
            if expr.ndim != var.ndim or expr.dtype != var.dtype:
                raise op_error("function", f"givens: the replacement of a {var.ndim}-d "
                               f"{var.dtype} variable must have that rank and dtype, got "
                               f"{expr.ndim}-d {expr.dtype}", (var.node, expr.node))
            if not isinstance(var, Placeholder) and expr.shape != var.shape:
                raise op_error("function", f"givens: the replacement of a variable of shape "
                               f"{var.shape} has shape {expr.shape}", (var.node, expr.node))
            self.givens.append((var.node, _graph(expr)))
        refuse_assigned_reads([_graph(t) for t in self.outputs] +
                              [_graph(e) for _, e in self.updates] +
                              [e for _, e in self.givens], "function")
        self._check_graph()
        discard()  # (requirements left unattached by the graph's building: none leak on)
        # shapes of shared variables read while the graph was built (baked into it as
        # numbers: x * W.shape[0]): another shape later makes the function refuse to run
        self._shapes_read = shapes_read_since(min([x.start for x in self.inputs],
                                                  default=next(READS)))
        for sv in taken:  # its assignment is this function's update now
            sv.restore()
        flags = _mode_flags(mode)
        self._backend = flags.pop("backend", None)
        self._flags = flags
        # integer placeholders whose value is a size (a scan's n_steps): their values
        # select the plan, as static arguments of the inner jit
        self._valued = [i for i, x in enumerate(self.inputs) if x.node in VALUE_SYMBOLS]
        self._jitted = Jitted(self._instantiate, static_argnums=self._valued,
                              optimizer=flags.get("optimizer"), dynamic=False)
        self._jitted.generic_sizes = any(is_symbolic(x.shape) for x in self.inputs)
        self._jitted.shapes_read = self._shapes_read
        self._probed = False

    def _same_shape(self, expr: Tensor, shape: tuple, what: str, srcs: tuple) -> None:
        """``expr`` must have ``shape``: checked now for known sizes, at each call (a
        requirement) for symbolic ones."""
        if len(expr.shape) != len(shape) or any(
                a != b and type(a) is not Dim and type(b) is not Dim
                for a, b in zip(expr.shape, shape)):
            raise op_error("function", f"{what}: the new value has shape "
                           f"{describe(expr.shape)}, the variable {describe(shape)}", srcs)
        for a, b in zip(expr.shape, shape):
            if a != b:
                self._required.append(Requirement("eq", a, b, "function", expr.node.site))
    def _take_symbolic(self) -> list[SharedVariable]:
        """The shared variables assigned, while the graph was built, values that depend
        only on this function's placeholders (an optimizer step, a batch norm's running
        statistics, a scan's random draws): their assignments become updates (unless
        given explicitly)."""
        mine = {x.node for x in self.inputs}
        symbols = {i for x in self.inputs for d in x.shape if type(d) is Dim
                   for i in d.symbols()}
        taken = []
        for ref, phs in list(SYMBOLIC.values()):
            sv = ref()
            if sv is None or not all(p in mine or p.arg[0] != "input" and
                                     _symbols_of(p) <= symbols for p in phs):
                continue
            if all(sv is not v for v, _ in self.updates):
                self.updates.append((sv, Tensor(sv.node)))
            taken.append(sv)
        return taken

    def _resolve(self, sv: SharedVariable) -> SharedVariable:
        for swap in self.swaps:
            sv = swap.get(sv, sv)
        return sv

    def _check_graph(self) -> None:
        """Every placeholder the results depend on is an input (or replaced by givens);
        remember which leaves are shared variables (read at each call)."""
        given = {v for v, _ in self.givens}
        roots = [_graph(t) for t in self.outputs] + [_graph(e) for _, e in self.updates] + \
            [e for _, e in self.givens]
        mine = {x.node for x in self.inputs}
        self._shared: dict[Node, SharedVariable] = {}
        self._required += requirements(roots)
        # what each symbol of the inputs' shapes stands for, in errors
        self._names = {}
        for x in self.inputs:
            for k, d in enumerate(x.shape):
                i = ident(d)
                if i is not None:
                    self._names.setdefault(i, f"{d} is dimension {k} of {x.name!r}")
        for n in graph_leaves(roots):
            if n in given or (n.op == "param" and n.arg[0] in ("size", "sized")):
                continue
            if n.op == "param":
                if n.arg[0] == "input" and n not in mine:
                    raise op_error("function", f"the outputs depend on the placeholder "
                                   f"{n.arg[2]!r}, which is not among the inputs "
                                   "(a missing input)", (n,))
                if n.arg[0] != "input":
                    raise op_error("function", "the outputs depend on a tensor traced by "
                                   "lj.jit or a scan step (a leaked tracer)", (n,))
            sv = OWNER.get(n)
            if sv is not None:
                self._shared[n] = sv
        # random streams: each eager draw left the counter at a new value, so the graph
        # reads one counter leaf per draw; at a call they read the counter's current
        # value plus their offset from the first, and the counter advances past them all
        self._offsets: dict[Node, int] = {}
        self._advance: dict[SharedVariable, int] = {}
        explicit = {id(v) for v, _ in self.updates}
        for sv in dict.fromkeys(self._shared.values()):
            if not sv.counter:
                continue
            leaves = [n for n, s in self._shared.items() if s is sv]
            base = min(int(host(n.buffer)) for n in leaves)
            for n in leaves:
                self._offsets[n] = int(host(n.buffer)) - base
            if id(sv) not in explicit and not sv.symbolic:
                self._advance[sv] = (int(sv.get_value()) - base) % (1 << 64)

    def _instantiate(self, *params):
        """The graph at the sizes of ``params`` (the arguments as tensors), its updates
        assigned: what the inner ``lj.jit`` traces once per signature of shapes."""
        sv = changed(self._shapes_read, self._resolve)
        if sv is not None:
            shape, dtype = next((s, d) for v, s, d in self._shapes_read
                                if self._resolve(v) is sv)
            raise LazyjitError(
                f"lj.function: the shared variable {sv.name or ''} has shape "
                f"{describe(sv.node.shape)} {sv.node.dtype}, but the function's graph was "
                f"built when it had {describe(shape)} {dtype}, and its shape was read "
                "while building it (a size of it may be in the graph as a number): "
                "build the function again")
        params = list(params)
        values = {}
        for i in self._valued:  # a size given as a value: a constant of this plan
            x, v = self.inputs[i], params[i]
            if v < 0:
                raise LazyjitError(f"lj.function: {x.name!r} is used as a number of steps, "
                                   f"which must not be negative, got {v}")
            values[ident(VALUE_SYMBOLS[x.node])] = v
            arr = np.array(v, x.dtype)
            arr.flags.writeable = False
            params[i] = Tensor(Node.leaf(arr, site=False))
        env = bind([x.shape for x in self.inputs], [p.shape for p in params],
                   names=[repr(x.name) for x in self.inputs])
        env.update(values)
        mapping = {x.node: p.node for x, p in zip(self.inputs, params)}

        def leaf(n: Node) -> Node:
            sv = self._shared.get(n)
            if sv is None:
                return n
            sv = self._resolve(sv)
            node = sv.node
            if node.shape != n.shape:
                raise LazyjitError(
                    f"lj.function: the shared variable {sv.name or ''} has shape "
                    f"{node.shape}, but the function was built for {n.shape}: a function's "
                    "graph is built for the shapes its shared variables had (build it "
                    "again, or use @lj.jit, which traces again)")
            off = self._offsets.get(n)
            return node if not off else (Tensor(node) + np.uint64(off)).node

        for var, expr in self.givens:  # replacements first: they may use the inputs
            new = mapping[var] = instantiate([expr], mapping, env, leaf)[0]
            bind([var.shape], [new.shape], env, ["the replacement in givens"])
        check(self._required, env, self._names)
        roots = [_graph(t) for t in self.outputs] + [_graph(e) for _, e in self.updates]
        new = instantiate(roots, mapping, env, leaf)
        n_out = len(self.outputs)
        for (var, _), node in zip(self.updates, new[n_out:]):
            self._resolve(var).assign(Tensor(node))
        for sv, k in self._advance.items():
            sv = self._resolve(sv)
            sv.assign(sv + np.uint64(evaluate(k, env) % (1 << 64)))
        return tuple(Tensor(n) for n in new[:n_out])

    def _array(self, x: Placeholder, v) -> np.ndarray:
        want = x.dtype
        if isinstance(v, Tensor):
            v = v.numpy()
        if isinstance(v, np.ndarray) or isinstance(v, np.generic):
            arr = np.asarray(v)
            if arr.dtype != want:
                if not (np.can_cast(arr.dtype, want, "safe") or self.allow_input_downcast):
                    raise LazyjitError(
                        f"lj.function: input {x.name!r} is {want}, got an array of "
                        f"{arr.dtype} (a lossy cast); cast it, or pass "
                        "allow_input_downcast=True")
                arr = arr.astype(want)
        else:  # Python numbers and lists: any float for a float input, never a
            # float truncated to an integer input
            try:
                arr = np.asarray(v)
                lossy = arr.dtype.kind == "f" and want.kind in "iub"
                arr = np.asarray(v, dtype=want)
            except (TypeError, ValueError) as e:
                raise LazyjitError(f"lj.function: input {x.name!r}: {e}") from None
            if lossy and not self.allow_input_downcast:
                raise LazyjitError(f"lj.function: input {x.name!r} is {want}, got floats (a "
                                   "lossy cast); pass integers, or allow_input_downcast=True")
        if arr.ndim != x.ndim:
            raise LazyjitError(f"lj.function: input {x.name!r} is {x.ndim}-d (shape "
                               f"{describe(x.shape)}), got shape {arr.shape}")
        if not (arr.flags.c_contiguous and arr.flags.aligned and arr.dtype.isnative):
            # (a copy: ascontiguousarray keeps a contiguous array's misalignment and byte
            # order, which the kernels cannot read)
            arr = owned_array(arr, None, "function")
        return arr

    def __call__(self, *args):
        """Run on ``args`` (arrays, one per input); returns the outputs as NumPy arrays
        (one array when ``outputs`` was one tensor, else a list), after applying the
        updates.

        Raises
        ------
        LazyjitError
            Called while a trace is recorded (inside ``lj.jit``, a scan step, an
            ``lj.cond`` branch): it would run once, then, not at each call."""
        if ACTIVE[0] and in_trace():
            raise LazyjitError("lj.function: called while a trace is recorded (inside "
                               "lj.jit, a scan step or an lj.cond branch), it would run "
                               "once, as the trace is built, and apply its updates then, "
                               "not at each call: call it outside, or write the computation "
                               "with tensors (a jitted function called there becomes part "
                               "of the trace)")
        if self._probed and self._backend is None and len(args) == len(self.inputs):
            # fast path: arrays passed as they are, to a plan of their shapes and dtypes
            # (one an earlier call made, after checking arguments of that signature)
            arrays = self._jitted.outputs(args)
            if arrays is not None:
                arrays = hosts(arrays)  # (a cuda plan's outputs: their host copies)
                return arrays[0] if self.single else arrays
        if len(args) != len(self.inputs):
            raise LazyjitError(f"lj.function: expected {len(self.inputs)} arguments "
                               f"({', '.join(repr(x.name) for x in self.inputs)}), got "
                               f"{len(args)}")
        tensors = [Tensor(Node.leaf(self._array(x, v), site=False))
                   for x, v in zip(self.inputs, args)]
        for i in self._valued:
            tensors[i] = int(host(tensors[i].node.buffer))
        if self._backend is None:
            outs = self._call(tensors)
        else:
            with config(backend=self._backend):
                outs = self._call(tensors)
        arrays = [host(t.node.buffer) for t in outs]
        return arrays[0] if self.single else arrays

    def _call(self, tensors: list[Tensor]):
        outs = self._jitted(*tensors)
        if not self._probed and not self._valued:
            self._probed = True
            self._compile_other_class(tensors)
        return outs

    def _compile_other_class(self, tensors: list[Tensor]) -> None:
        """Compile (without running) the plan for the other size class of the leading
        unknown dimensions: the code generator folds away dimensions of size 1, so
        kernels for a batch of one differ from those for every other batch size.  Done
        with the first call, so that later calls at any size compile nothing (the role of
        Theano's compile at ``theano.function`` time).  A shape the graph rejects at
        the other class (a window larger than the input) is skipped."""
        # the leading unknown dimensions (the batch, or time) are those a call may well
        # make 1; the others keep this call's sizes (an image of height 1 is rare, and
        # may not be valid for the graph)
        lead = {x.shape[0] for x in self.inputs if x.ndim and type(x.shape[0]) is Dim}
        probes = []
        for x, t in zip(self.inputs, tensors):
            probes.append(tuple((2 if a == 1 else 1) if d in lead else a
                                for d, a in zip(x.shape, t.shape)))
        if all(p == t.shape for p, t in zip(probes, tensors)):
            return
        try:
            self._jitted.precompile(*[np.zeros(p, t.dtype) for p, t in zip(probes, tensors)])
        except (LazyjitError, ValueError, OverflowError):
            pass

    def copy(self, swap: dict | None = None) -> "Function":
        """A function computing the same thing with some shared variables swapped for
        others (``{old: new}``, same dtype and rank), in the outputs and the updates;
        it reuses the compiled code (the kernels and, for equal shapes, the plan).

        Raises
        ------
        LazyjitError
            If a key or value of ``swap`` is not a shared variable, or their dtypes or
            ranks differ.
        """
        swap = dict(swap or {})
        for old, new in swap.items():
            if not (isinstance(old, SharedVariable) and isinstance(new, SharedVariable)):
                raise op_error("function.copy", "swap maps shared variables to shared "
                               "variables")
            if old.dtype != new.dtype or old.shape != new.shape:
                raise op_error("function.copy", f"cannot swap a shared variable of shape "
                               f"{old.shape} {old.dtype} for one of shape {new.shape} "
                               f"{new.dtype}", (old.node, new.node))
        return Function(None, None, None, None, None, None, parent=self, swap=swap)


def function(inputs: Sequence[Placeholder], outputs=None, updates=None, givens=None,
             mode=None, allow_input_downcast: bool = False,
             no_default_updates: bool = False) -> Function:
    """Compile ``outputs`` as a function of the placeholders ``inputs`` (Theano's
    ``theano.function``).

    Parameters
    ----------
    inputs : placeholders (:func:`matrix`, ...), in call order.
    outputs : a tensor (the call returns one array), a list of tensors (a list of
        arrays), or None (the call returns ``[]``; useful with ``updates``).
    updates : ``{shared: new_value}`` or a list of pairs: after the outputs are
        computed, each shared variable takes its new value (computed in the same call,
        from the values before the call).  The new value must have the variable's shape
        and a dtype that casts to it (same kind).
    givens : ``{variable: replacement}`` or pairs: the graph is computed with each
        ``variable`` (a placeholder or a shared variable) replaced by ``replacement`` (an
        expression of the same rank and dtype, which may use the inputs).
    mode : None (the ``optimizer`` flag), an optimizer level (``'fast_run'``,
        ``'fast_compile'``, ``'o1'``..``'o4'``, ``'unsafe'``, ``'none'``), a backend name
        (``'cpu'``, ``'numpy'``), or a dict of flags (``{'optimizer': 'o2', 'backend':
        'numpy'}``), for this function only (Theano's ``mode``).
    allow_input_downcast : cast arguments of a wider dtype (float64 data for a float32
        input) instead of raising.
    no_default_updates : do not take the pending assignments (below) as updates.

    Assignments made while the graph was built (``opt.step(lj.grad(loss, params))``, a
    training-mode ``batch_norm``, random draws in a scan) are pending: the first
    function built whose inputs include the placeholders they depend on takes them as
    updates (Theano's default updates), and the variables keep their values until it
    runs.  Build the training function first, or pass ``no_default_updates=True`` to
    the others (an evaluation function over the same placeholders).

    Returns
    -------
    A :class:`Function`.  One compile serves every size of the unknown dimensions:
    kernels take sizes at run time.

    Raises
    ------
    LazyjitError
        For an input that is not a placeholder, an output that depends on a placeholder
        not among the inputs, an update of something that is not a shared variable, an
        update of the wrong shape or dtype, a bad ``mode``; at call time, for arguments
        of the wrong count, rank, dtype or size (naming the input and the dimension).
    """
    return Function(inputs, outputs, updates, givens, mode, allow_input_downcast,
                    no_default_updates=no_default_updates)


__all__ = ["function", "placeholder", "scalar", "vector", "matrix", "tensor3", "tensor4",
           "Function", "Placeholder"]
