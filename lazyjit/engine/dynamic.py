"""``@lj.jit`` over sizes that vary: automatic dynamic shapes (torch.compile's rule).

A jitted function is traced at the sizes of its first call.  When a call of the same
structure (ranks, dtypes, tree, static arguments) brings other sizes, the function is
traced once more with a size symbol (:mod:`lazyjit.trace.dims`) on each axis whose size
differed (:class:`Symbolic`), and every later signature that differs only on those axes
is that graph made concrete at its sizes (:func:`lazyjit.engine.symbolic.instantiate`:
exact, no Python run); its plan reuses the compiled code, since kernels take sizes at run
time.  An axis that starts to vary later widens the symbolic trace (one more trace per
axis at most).  Varying axes of equal size at the trace share one symbol (torch's "duck
sizing": ``x.shape == y.shape`` then holds for every size, and ``x - y`` needs no
broadcast); a later call where they differ traces once more with a symbol each.
Exactness first: a signature where the symbolic graph's requirements fail, where a
shared variable it reads has changed shape, or a function that cannot be traced over
symbols (it makes a size a Python number) is traced at its own sizes instead;
``dynamic=True`` raises there instead.
"""
from __future__ import annotations

import threading

from lazyjit.api.shared import OWNER, changed, stored
from lazyjit.engine.symbolic import bind, graph_leaves, instantiate, requirements
from lazyjit.errors import LazyjitError
from lazyjit.trace.constraints import check
from lazyjit.trace.dims import TEXT, Dim, axis_symbol, ident
from lazyjit.trace.node import Node


class Symbolic:
    """A jitted function traced over size symbols on ``axes`` ((argument, axis) pairs):
    its graph, what the graph requires of the sizes, and the shared variables it reads
    with the shapes they had (a variable given another shape since makes it stale)."""

    __slots__ = ("shapes", "axes", "tid", "params", "nodes", "update_nodes", "updates",
                 "out_tree", "required", "names", "shared", "shapes_read")

    def __init__(self, shapes, axes, run: tuple, names: dict):
        self.shapes, self.axes, self.names = shapes, axes, names
        (self.tid, self.params, self.nodes, self.update_nodes, self.updates,
         self.out_tree, self.shapes_read) = run
        roots = self.nodes + self.update_nodes
        self.required = requirements(roots)
        self.shared = [(OWNER[n], n.shape, n.dtype) for n in graph_leaves(roots)
                       if n.op == "buffer" and n in OWNER]

    def covers(self, shapes) -> bool:
        """Whether ``shapes`` differ from the traced ones only on symbolic axes, with
        one size for each symbol (axes that share one: :meth:`Dynamic._trace`)."""
        sizes: dict = {}
        for s, t in zip(self.shapes, shapes):
            if len(s) != len(t):
                return False
            for d, a in zip(s, t):
                if type(d) is not Dim:
                    if d != a:
                        return False
                elif sizes.setdefault(ident(d), a) != a:
                    return False
        return True

    def current(self) -> bool:
        """Whether every shared variable the graph reads has the shape and dtype it had."""
        return changed(self.shared + self.shapes_read) is None and \
            all(stored(sv).buffer is not None for sv, _, _ in self.shared)

    def entry(self, jitted, arrays: list):
        """The jit entry at the sizes of ``arrays``; None (automatic mode) when the
        graph's requirements do not hold there (that signature is traced itself)."""
        try:
            env = bind(self.shapes, [a.shape for a in arrays], where="lj.jit")
            check(self.required, env, self.names)
        except LazyjitError:
            if jitted.dynamic:
                raise
            return None
        mapping = {p: Node.make("param", (), p.arg, a.shape, a.dtype)
                   for p, a in zip(self.params, arrays)}
        roots = instantiate(self.nodes + self.update_nodes, mapping, env)
        k = len(self.nodes)
        return jitted._entry(self.tid, roots[:k], roots[k:], self.updates, self.out_tree,
                             arrays, True, self.shapes_read)


class Dynamic:
    """The sizes a jitted function has seen, and its symbolic traces, per structure
    (``mode``: the ``dynamic=`` option: None automatic, True always, False never)."""

    def __init__(self, mode: "bool | None"):
        self.mode = mode
        self.seen: dict = {}      # structure -> shapes traced at their sizes
        self.symbolic: dict = {}  # structure -> Symbolic, or None (traced at each size)
        self.distinct: set = set()  # structures whose equal sizes were not equal later
        self.lock = threading.Lock()

    def forget(self, key) -> None:
        """Drop the symbolic trace of structure ``key`` (what it reads has changed)."""
        with self.lock:
            if self.symbolic.get(key) is not None:
                del self.symbolic[key]

    def entry(self, jitted, key, args, leaves, arrays, tree, static):
        """The entry of a call whose signature is new, from the symbolic trace of its
        structure (made or widened here); None when it is traced at its sizes."""
        if self.mode is False:
            return None
        shapes = tuple(a.shape for a in arrays)
        with self.lock:
            symbolic = self.symbolic.get(key)
            if key in self.symbolic and symbolic is None:
                return None  # (this structure cannot be traced over symbols)
            if symbolic is not None and not symbolic.current():
                del self.symbolic[key]  # (a shared variable it reads changed shape)
                symbolic = None
            if symbolic is not None and symbolic.covers(shapes):
                axes = None
            else:
                seen = self.seen.setdefault(key, set())
                earlier = list(seen)
                if symbolic is None and self.mode is None and (not earlier or shapes in earlier):
                    if len(earlier) < 64:
                        seen.add(shapes)
                    return None
                axes = set() if symbolic is None else set(symbolic.axes)
                axes |= {(i, k) for i, s in enumerate(shapes) for k in range(len(s))
                         if self.mode or any(o[i][k] != s[k] for o in earlier) or
                         (symbolic is not None and type(symbolic.shapes[i][k]) is not Dim
                          and symbolic.shapes[i][k] != s[k])}
                if symbolic is not None and len(axes) == len(symbolic.axes):
                    self.distinct.add(key)  # (no new axis: shared symbols that differ)
                duck = key not in self.distinct
        if axes is not None:  # (traced outside the lock: the function may take long)
            symbolic = self._trace(jitted, args, leaves, arrays, tree, static, axes, duck)
            with self.lock:
                self.symbolic[key] = symbolic
            if symbolic is None:
                return None
        return symbolic.entry(jitted, arrays)

    def _trace(self, jitted, args, leaves, arrays, tree, static, axes,
               duck: bool) -> "Symbolic | None":
        """The function traced with a size symbol on each of ``axes`` (one symbol for
        axes of one size, with ``duck``); None (automatic mode) when it cannot be traced
        over symbols (it makes a size a Python number, or fails otherwise: each size is
        traced exactly instead)."""
        names = jitted._arg_names(len(arrays), tree)
        by_size: dict = {}

        def symbol(i: int, k: int, size: int) -> Dim:
            if not duck:
                return axis_symbol(names[i], k)
            d = by_size.get(size)
            if d is None:
                d = by_size[size] = axis_symbol(names[i], k)
            return d
        shapes = [tuple(symbol(i, k, d) if (i, k) in axes else d
                        for k, d in enumerate(a.shape)) for i, a in enumerate(arrays)]
        TEXT.strict = getattr(TEXT, "strict", 0) + 1
        try:
            run = jitted._run_body(args, leaves, shapes, arrays, tree, static)
        except Exception:  # noqa: BLE001 - exact traces raise whatever is the user's
            if self.mode:
                raise
            return None
        finally:
            TEXT.strict -= 1
        said: dict = {}
        for i, s in enumerate(shapes):
            for k, d in enumerate(s):
                if type(d) is Dim:
                    said.setdefault(ident(d), f"{d} is dimension {k} of {names[i]!r}")
        return Symbolic(shapes, frozenset(axes), run, said)
