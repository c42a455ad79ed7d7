"""Sizes unknown until a call, and the replay of a graph at the sizes of that call.

A placeholder of ``lj.function`` (``lj.matrix("x")``) has dimensions whose size is known
only when the function is called.  The graph is still built eagerly, with ordinary
shapes: each unknown dimension stands as a *sentinel* size, a large prime that no real
size is, taken from one table (:func:`unknown_dim`).  Everything computed from the
placeholders' shapes at graph-building time (a reshape target, a broadcast shape, a
slice bound, the count a mean divides by) is then an integer (or a float) built from
those primes, such as ``784 * P`` or ``P - 1``.

When the function is called, each sentinel is bound to the size the arguments have
(:class:`Sizes`), and :func:`instantiate` rebuilds the graph node by node: ``param``
nodes take the arguments' shapes, the integers in op arguments and constants that are
made of sentinels are re-evaluated with the bound sizes, and every node's shape comes
from its op's shape rule again, which checks the real sizes (a mismatch is an error
naming the op and the line that built it).  Sizes that are no polynomial in the
sentinels (``(H - 3) // 2 + 1`` after a strided convolution) are learned as the nodes
are rebuilt: each nominal dimension, and each product of leading or trailing ones, maps
to its value at this call (:meth:`Sizes.learn`).  The rebuilt graph is an ordinary trace: its
kernels are the ones a trace of the same structure at any other size compiled, so a new
size compiles nothing (the code key has no sizes).

This plays the role of Theano's symbolic shapes with the machinery of concrete ones;
its limits: a dimension of unknown size must not meet a known size in a shape check
(declare it: ``lj.matrix("x", shape=(None, 784))``), a constant array whose size
depends on an unknown dimension (``lj.arange(x.shape[0])``) cannot be rebuilt, and a
number computed from sizes in Python in another way than these (``n // 3`` of an
unknown ``n`` passed to an op as a plain argument) is rebuilt only if it is one of the
learned sizes.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np

from lazyjit.api.scan import ScanSpec
from lazyjit.errors import LazyjitError, describe, format_site
from lazyjit.ops import REGISTRY
from lazyjit.trace.graph import reachable, toposort
from lazyjit.trace.node import Node, origin_of
from lazyjit.trace.sizes import _EPS, _MAX_COEF, _MAX_OFFSET, FLOOR, has_unknown


class Sizes:
    """The sizes bound to the sentinels at one call, and the re-evaluation of the
    numbers that were computed from sentinels."""

    def __init__(self, bound: dict[int, int]):
        self.bound = bound
        self.learned: dict[int, list[int]] = {}  # other nominal sizes (see learn)
        ps = sorted(bound)
        monos = []  # (sentinel product, bound product), products of up to 3 sentinels
        for r in (3, 2, 1):
            for c in itertools.combinations_with_replacement(ps, r):
                monos.append((math.prod(c), math.prod(bound[p] for p in c)))
        self.monos = sorted(monos, reverse=True)
        self.identity = all(k == v for k, v in bound.items())

    def learn(self, nominal: tuple, actual: tuple) -> None:
        """Record the sizes of a node rebuilt at this call: each dimension and each
        product of leading or trailing dimensions of its nominal shape maps to its
        value now.  Sizes that are no simple function of the sentinels (``(H - 3) // 2
        + 1`` after a strided convolution, times the channels when flattened) then map
        to their values wherever they appear later (a bias broadcast to the
        convolution's output, a reshape of it).  A nominal size seen with two values
        is ambiguous: it maps to the latest, and :meth:`variants` gives the others."""
        n = len(nominal)
        pairs = [(nominal[k], actual[k]) for k in range(n)]
        for k in range(1, n):
            pairs.append((math.prod(nominal[k:]), math.prod(actual[k:])))
            pairs.append((math.prod(nominal[:k]), math.prod(actual[:k])))
        if n > 1:
            pairs.append((math.prod(nominal), math.prod(actual)))
        for d, a in pairs:
            if d != a and d >= 1000 and d not in self.bound:
                seen = self.learned.setdefault(d, [])
                if a in seen:
                    seen.remove(a)
                seen.append(a)

    def variants(self, arg) -> list:
        """``arg`` re-evaluated with the other values of its ambiguous sizes (at most
        16 combinations), for an op whose shape rule rejects the first choice."""
        out = [()]
        for x in (arg if type(arg) is tuple else (arg,)):
            if type(x) is tuple:
                opts = self.variants(x)
            elif type(x) is int and len(self.learned.get(x, ())) > 1:
                opts = self.learned[x][::-1]
            else:
                opts = [self.arg(x)]
            out = [o + (v,) for o in out for v in opts][:16]
        return [o if type(arg) is tuple else o[0] for o in out]

    def _decompose(self, v, exact_int: bool, eps: float = 2.5e-7):
        """``(a, real, b)`` with ``v == a * mono + b`` for the best monomial, or None."""
        best = None
        for mono, real in self.monos:
            a = round(v / mono)
            if a == 0 or abs(a) > _MAX_COEF:
                continue
            r = v - a * mono
            if exact_int:
                if r == 0:
                    return a, real, 0
                if abs(r) <= _MAX_OFFSET and (best is None or abs(r) < abs(best[2])):
                    best = (a, real, int(r))
            else:  # a float: v rounded to its dtype (the error far below one mono)
                if abs(r) <= eps * abs(v) and abs(r) <= 1e-3 * mono:
                    return a, real, 0
                if abs(r) <= _MAX_OFFSET and abs(r - round(r)) <= eps * abs(v) and \
                        (best is None or abs(r) < abs(best[2])):
                    best = (a, real, round(r))
        return best

    def int(self, v: int, size: bool = False) -> int:
        """``v`` at this call's sizes.  With ``size`` (a shape, a slice bound, a step
        count), a number too large to be a size here that cannot be re-evaluated is an
        error, not a guess."""
        if self.identity:
            return v
        known = self.bound.get(v)
        if known is not None:
            return known
        seen = self.learned.get(v)
        if seen:
            return seen[-1]
        if abs(v) < FLOOR:
            return v
        d = self._decompose(v, True)
        if d is not None:
            return d[0] * d[1] + d[2]
        if size:
            raise LazyjitError(
                f"the size {v} was computed in Python from dimensions of unknown size in a "
                "way that cannot be redone at other sizes (only products, sums with "
                "constants, and the sizes of the graph's nodes can); declare the "
                "dimensions it depends on, or compute it with tensor operations")
        return v

    def _learned_near(self, v: float, eps: float) -> int | None:
        """The learned size ``v`` stands for: a float constant is the size rounded to
        its dtype (float32 keeps 24 bits)."""
        if v != int(v) or abs(v) < 1000:
            return None
        hit = self.learned.get(int(v))
        if hit:
            return hit[-1]
        tol = eps * abs(v)
        hits = {seen[-1] for d, seen in self.learned.items() if abs(d - v) <= tol}
        return hits.pop() if len(hits) == 1 else None

    def float(self, v: float, eps: float = 2.5e-7) -> float:
        """``v`` at this call's sizes; ``eps``: the relative rounding of its dtype (a
        float32 constant keeps 24 bits of a size)."""
        if self.identity or not math.isfinite(v) or v == 0:
            return v
        near = self._learned_near(v, eps)
        if near is not None:
            return float(near)
        if abs(v) < FLOOR:
            return v
        d = self._decompose(v, False, eps)
        return v if d is None else float(d[0] * d[1] + d[2])

    def arg(self, a):
        """An op argument with its sizes re-evaluated (ints, nested in tuples)."""
        if type(a) is int:
            return self.int(a, True)
        if type(a) is tuple:
            return tuple(self.arg(x) for x in a)
        return a

    def shape(self, shape: tuple) -> tuple:
        return tuple(self.int(d, True) for d in shape)


def _value(v, dtype: np.dtype, sizes: Sizes):
    """A number of ``dtype`` (a constant's value) re-evaluated at this call's sizes."""
    if dtype.kind in "iu":
        return sizes.int(int(v))
    if dtype.kind == "f":
        return sizes.float(float(v), _EPS.get(dtype.itemsize, 2.5e-7))
    return v


def _const(n: Node, sizes: Sizes) -> Node:
    v = _value(n.const_value, n.dtype, sizes)
    return n if v == n.const_value else Node.const(v, n.dtype)


def _scalar(n: Node, sizes: Sizes) -> Node:
    """A 0-d constant array holding a number computed from sizes, re-evaluated."""
    v = n.buffer[()]
    new = _value(v, n.dtype, sizes)
    if new == v:
        return n
    arr = np.asarray(new, n.dtype)
    arr.flags.writeable = False
    return Node.leaf(arr, site=False)


def _shape_of(n: Node, src: tuple, arg) -> tuple:
    """The shape of ``n`` rebuilt over ``src`` with argument ``arg``: its op's rule."""
    rule = REGISTRY[n.op].shape
    return tuple(rule(src, arg)) if rule is not None else src[0].shape


def _try_shape(n: Node, src: tuple, arg):
    """``(shape, None)``, or ``(None, the error)`` when the shape rule rejects ``arg``."""
    try:
        return _shape_of(n, src, arg), None
    except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
        return None, e


_SLICING = frozenset(("slice", "set_slice", "inc_slice"))


def _clip(sl: tuple, shape: tuple, n: Node) -> tuple:
    """Normalized slice triples clipped to ``shape``, as NumPy clips a slice of an
    array (a bound such as ``x[-1:]`` re-evaluated at this call's size may fall outside
    it).  A slice that clipping makes shorter than it was when the graph was built
    (``x[:10]`` of an unknown dim that has 5 elements now) is an error: what the graph
    computed from its length (a mean's count, a broadcast) would be wrong."""
    out = []
    for (a, b, c), d in zip(sl, shape):
        before = len(range(a, b, c))
        if c > 0:
            a, b = min(max(a, 0), d), min(max(b, 0), d)
        else:
            a, b = min(max(a, -1), d - 1), min(max(b, -1), d - 1)
        if len(range(a, b, c)) != before:
            raise LazyjitError(
                f"{n.op}: a slice of {before} elements along a dimension of unknown size, "
                f"which has {d} at this call: the graph was built for {before} (slice "
                "with bounds computed from the size, x[:x.shape[0] - k], or call with "
                "enough elements)\n(the node was built at)\n" + format_site(n.site))
        out.append((a, b, c))
    return tuple(out)


def _scan_spec(spec, sizes: Sizes, src: tuple):
    """The scan's spec rebuilt: its body's placeholders and graph at ``sizes``, and as
    many steps as the rebuilt sequences have rows (a count computed from a sentinel,
    or ``n_steps`` larger than a sequence now shorter, is cut as the API cuts it)."""
    inner = {p: Node.make("param", (), p.arg, sizes.shape(p.shape), p.dtype)
             for p in spec.inputs}
    outs = instantiate(list(spec.outputs), inner, sizes)
    steps = max(sizes.int(spec.n_steps, True), 0)
    for s in src[:spec.n_seq]:
        steps = min(steps, s.shape[0])
    return ScanSpec([inner[p] for p in spec.inputs], outs, spec.n_seq, spec.taps, spec.n_inv,
                    spec.keep, steps, spec.reverse)


_LEAVES = frozenset(("buffer", "param"))  # a computed node is rebuilt even if it has a value


def graph_leaves(roots: list[Node]) -> list[Node]:
    """The ``buffer`` and ``param`` leaves the graph of ``roots`` reads (walking through
    computed nodes even when they hold a value), in first-seen order."""
    return [n for n in reachable(roots, lambda n: () if n.op in _LEAVES else n.src)
            if n.op in _LEAVES]


def _through_values(n: Node) -> tuple[Node, ...]:
    """Below a realized tensor's value: the node that computed it (while alive)."""
    origin = origin_of(n)
    return (origin,) if origin is not None else n.src


def recompute_stateful(roots: list[Node], stateful: Callable[[Node], "Node | None"]
                       ) -> list[Node]:
    """``roots`` over the current values of shared variables: ``stateful(leaf)`` gives
    the current value of the shared variable whose value ``leaf`` is or was (None for
    other leaves).  An earlier value is replaced by the current one, and every computed
    node that holds a value (read eagerly earlier, or found again by hash-consing) but
    depends on a shared variable is replaced by a fresh node that computes it again.  A
    compiled function reads shared variables at each call (Theano's semantics): it must
    not capture a value computed from them as a constant, whenever it was traced."""
    order = toposort(roots, children=_through_values)
    dep: dict[Node, bool] = {}
    memo: dict[Node, Node] = {}
    for n in order:
        if n.op in _LEAVES or n.op == "const":
            origin = origin_of(n)
            if origin is not None and dep.get(origin):
                dep[n], memo[n] = True, memo.get(origin, origin)
            elif n.op == "buffer":
                current = stateful(n)  # a shared variable's value: its current one
                dep[n] = current is not None
                if current is not None and current is not n:
                    memo[n] = current
            else:
                dep[n] = False
            continue
        dep[n] = any(dep[s] for s in n.src)
        src = tuple(memo.get(s, s) for s in n.src)
        if dep[n] and n.buffer is not None:
            memo[n] = Node.fresh(n, src)
        elif src != n.src:
            memo[n] = Node.make(n.op, src, n.arg, n.shape, n.dtype)
    return [memo.get(r, r) for r in roots]


def instantiate(roots: list[Node], mapping: dict[Node, Node], sizes: Sizes,
                leaf: Callable[[Node], Node] | None = None) -> list[Node]:
    """Rebuild the graph of ``roots`` with ``mapping`` (old node -> new node, for the
    inputs) at ``sizes``; ``leaf(node)`` supplies the other leaves (buffers and params
    not in ``mapping``; default: kept as they are).

    Raises
    ------
    LazyjitError
        If an op's shape rule rejects the new shapes (the message names the op, the
        shapes and the line that built it), or a constant array's shape depends on an
        unknown dimension.
    """
    memo = dict(mapping)
    stack = [(r, False) for r in reversed(roots)]
    while stack:
        n, ready = stack.pop()
        if n in memo:
            continue
        if n.op == "buffer" and n.ndim == 0 and not sizes.identity and \
                (leaf is None or leaf(n) is n):  # lj.tensor(x.shape[0]): a size as a constant
            memo[n] = _scalar(n, sizes)
            continue
        if n.op in _LEAVES:
            if has_unknown(n.shape) and not sizes.identity:
                raise LazyjitError(f"a constant of shape {describe(n.shape)} depends on "
                                   "a dimension of unknown size (e.g. lj.arange(x.shape[0]))"
                                   "; this cannot be rebuilt at other sizes\n"
                                   + format_site(n.site))
            memo[n] = n if leaf is None else leaf(n)
            continue
        if n.op == "const":
            memo[n] = _const(n, sizes)
            continue
        if not ready:
            stack.append((n, True))
            stack.extend((s, False) for s in reversed(n.src) if s not in memo)
            continue
        src = tuple(memo[s] for s in n.src)
        kind = REGISTRY[n.op].kind
        if kind == "loop":  # its argument holds the body: rebuilt at these sizes too
            arg = _scan_spec(n.arg, sizes, src)
        else:
            try:
                arg = sizes.arg(n.arg) if n.arg is not None else None
            except LazyjitError as e:
                raise LazyjitError(f"{n.op}: {e}\n(the node was built at)\n"
                                   f"{format_site(n.site)}") from None
            if n.op in _SLICING and not sizes.identity:
                arg = _clip(arg, src[0].shape, n)
        if src == n.src and arg == n.arg and sizes.identity:
            memo[n] = n
            continue
        shape, error = _try_shape(n, src, arg)
        if shape is None and kind != "loop":  # an ambiguous size: its other values
            for other in sizes.variants(n.arg):
                shape = _try_shape(n, src, other)[0]
                if shape is not None:
                    arg = other
                    break
        if shape is None:
            shown = ", ".join(f"{s.shape} {s.dtype.name}" for s in src)
            raise LazyjitError(f"{n.op} with operands [{shown}]: {error}\n"
                               f"(the node was built at)\n{format_site(n.site)}") from None
        if kind == "elementwise" and any(s.shape != shape for s in src):
            raise LazyjitError(f"{n.op}: operand shapes {[s.shape for s in src]} differ at "
                               f"this call\n(the node was built at)\n{format_site(n.site)}")
        sizes.learn(n.shape, shape)
        memo[n] = Node.make(n.op, src, arg, shape, n.dtype)
    return [memo[r] for r in roots]
