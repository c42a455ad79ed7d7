"""``ifelse``: a conditional that evaluates only the taken branch (Theano's lazy
``ifelse``).

The node ``ifelse(cond, a_1..a_n, b_1..b_n)`` has ``n`` results (selected by
``scan_out`` nodes): the ``a`` values when ``cond`` is true, else the ``b`` values.  As
in Theano, the branches are ordinary sources, so every graph tool (gradients with
respect to intermediates, rewrites, merging) sees through it, and laziness is the
backends' part: :func:`gates` finds, in a trace, the nodes that only one branch of one
``ifelse`` needs, and backends compute them only when that branch is taken.
"""
from __future__ import annotations

import numpy as np
import lazyjit.api.core as C
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.ops.registry import REGISTRY, apply
from lazyjit.trace.node import Node
from lazyjit.trace.constraints import same_shape


def ifelse(cond, then_branch, else_branch, name: str | None = None):
    """``then_branch`` if ``cond`` is true, else ``else_branch``, computing only the
    branch taken (Theano's ``ifelse``).

    Parameters
    ----------
    cond : a 0-d tensor (any dtype; nonzero is true) or a Python bool or number.
    then_branch, else_branch : a tensor, or a list or tuple of tensors; the same number
        of them, with equal shapes pairwise (dtypes are promoted as NumPy does when
        they differ).

    Returns
    -------
    A tensor, or a list of tensors (for list inputs), holding the taken branch's values.

    Raises
    ------
    LazyjitError
        If ``cond`` is not 0-d, or the branches differ in number or shape.

    Notes
    -----
    When the result is computed, the part of a branch's graph that nothing else needs
    runs only if that branch is taken (so its NaNs do not matter otherwise); what the
    branches share with each other, with the condition or with other results is
    computed before the test.  Derivatives flow into the taken branch only: the
    gradient of ``ifelse(c, a, b)`` is ``ifelse(c, g, 0)`` for ``a`` and ``ifelse(c, 0,
    g)`` for ``b``.
    """
    name = name or "ifelse"
    single = not isinstance(then_branch, (list, tuple))
    a = [C.asarray(x) for x in ([then_branch] if single else then_branch)]
    b = [C.asarray(x) for x in ([else_branch] if single else else_branch)]
    cond = C.asarray(cond)
    if cond.ndim != 0:
        raise op_error(name, f"cond must be a scalar (0-d), got shape {cond.shape}",
                       (cond.node,))
    if len(a) != len(b) or not a:
        raise op_error(name, f"the branches have {len(a)} and {len(b)} outputs (need the "
                       "same number, at least one)")
    for i, (x, y) in enumerate(zip(a, b)):
        if not same_shape(x.shape, y.shape, name):
            raise op_error(name, f"output {i}: the branches have shapes {x.shape} and "
                           f"{y.shape}", (x.node, y.node))
        if x.dtype != y.dtype:
            dt = np.result_type(x.dtype, y.dtype)
            a[i], b[i] = C.astype(x, dt), C.astype(y, dt)
    c = cond if cond.dtype == np.bool_ else cond != 0
    out = build(c, a, b)
    return out[0] if single else out


def build(cond: Tensor, a: list[Tensor], b: list[Tensor]) -> list[Tensor]:
    return results_of("ifelse", len(a), (cond.node, *[x.node for x in a], *[y.node for y in b]))


def results_of(op: str, arg, src: tuple[Node, ...]) -> list[Tensor]:
    """The multi-result node ``op`` (``scan``, ``ifelse``) of ``arg`` over ``src``, and
    one ``scan_out`` tensor selecting each of its results (its op's ``results`` rule)."""
    node = apply(op, src, arg)
    return [Tensor(apply("scan_out", (node,), i))
            for i in range(len(REGISTRY[op].results(src, arg)))]
