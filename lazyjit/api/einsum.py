"""``einsum``: Einstein summation lowered to diagonals, sums, transposes, reshapes and
batched matrix products (GEMMs), as NumPy's ``np.einsum(..., optimize=False)`` computes
it, so it differentiates in both modes through those primitives.

Operands are contracted left to right, two at a time: the indices both share and a
later operand or the output needs are a batch axis, the shared ones nobody needs later
are the matrix product's inner axis, and an index only one operand has is summed out
first when nobody needs it.  A repeated index within one operand (``"ii->i"``) takes the
diagonal; ``...`` broadcasts as in NumPy.
"""
from __future__ import annotations

import math
import string

import numpy as np

from lazyjit.api.arrays import diagonal
from lazyjit.api.core import asarray, broadcast_to
from lazyjit.api.reductions import sum as _sum
from lazyjit.api.shape_ops import matmul, reshape, transpose
from lazyjit.api.tensor import Tensor
from lazyjit.errors import op_error
from lazyjit.trace.constraints import equal_size
from lazyjit.trace.dims import Dim

_LETTERS = frozenset(string.ascii_letters)


def _parse(subscripts: str, ndims: list[int]) -> tuple[list[str], str]:
    """The index letters of each operand and of the output, ``...`` replaced by digits
    naming the broadcast axes (right-aligned, as NumPy aligns them)."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise op_error("einsum", f"{len(terms)} operand subscripts in {subscripts!r} for "
                       f"{len(ndims)} operands")
    n_ell = 0
    for term, nd in zip(terms, ndims):
        if "..." in term:
            n_ell = max(n_ell, nd - len(term.replace("...", "")))
    ell = "".join(str(i) for i in range(n_ell))  # (digits: never a subscript letter)
    out_terms = []
    for term, nd in zip(terms, ndims):
        bad = set(term.replace("...", "")) - _LETTERS
        if bad or term.count("...") > 1:
            raise op_error("einsum", f"invalid subscripts {term!r} in {subscripts!r}")
        if "..." in term:
            k = nd - len(term.replace("...", ""))
            term = term.replace("...", ell[n_ell - k:] if k else "")
        if len(term) != nd:
            raise op_error("einsum", f"subscripts {term!r} for an operand of {nd} dimensions")
        out_terms.append(term)
    if arrow:
        if set(output.replace("...", "")) - _LETTERS or output.count("...") > 1:
            raise op_error("einsum", f"invalid output subscripts {output!r}")
        if n_ell and "..." not in output:  # (NumPy never sums broadcast axes away)
            raise op_error("einsum", f"the operands' '...' axes must appear in the output "
                           f"of {subscripts!r}")
        output = output.replace("...", ell)
        for c in output:
            if output.count(c) > 1 or not any(c in t for t in out_terms):
                raise op_error("einsum", f"output subscript {c!r} is repeated or in no "
                               f"operand of {subscripts!r}")
    else:  # implicit: the broadcast axes, then the letters seen once, in order
        counts = {c: sum(t.count(c) for t in out_terms) for c in set("".join(out_terms))}
        output = ell + "".join(sorted(c for c, n in counts.items()
                                      if n == 1 and c in _LETTERS))
    return out_terms, output


def _own(x: Tensor, term: str, keep: set[str]) -> tuple[Tensor, str]:
    """``x`` with its repeated indices reduced to diagonals and the indices nobody else
    needs (not in ``keep``) summed out."""
    while len(set(term)) < len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        x = diagonal(x, 0, i, j)  # (the diagonal becomes the last axis)
        term = "".join(t for k, t in enumerate(term) if k not in (i, j)) + c
    drop = tuple(i for i, c in enumerate(term) if c not in keep)
    if drop:
        x = _sum(x, axis=drop, dtype=x.dtype)  # (ints stay in their dtype, as NumPy)
        term = "".join(c for i, c in enumerate(term) if i not in drop)
    return x, term


def _arrange(x: Tensor, term: str, order: str, sizes: dict) -> Tensor:
    """``x`` transposed to the index order ``order``, size-1 axes broadcast to
    ``sizes``."""
    x = transpose(x, tuple(term.index(c) for c in order))
    want = tuple(sizes[c] for c in order)
    return x if tuple(x.shape) == want else broadcast_to(x, want)


def _pair(a: Tensor, ta: str, b: Tensor, tb: str, keep: set[str], sizes: dict):
    batch = [c for c in ta if c in tb and c in keep]
    inner = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    size = lambda cs: math.prod(sizes[c] for c in cs)  # noqa: E731
    a = reshape(_arrange(a, ta, "".join(batch + left + inner), sizes),
                (size(batch), size(left), size(inner)))
    b = reshape(_arrange(b, tb, "".join(batch + inner + right), sizes),
                (size(batch), size(inner), size(right)))
    out = reshape(matmul(a, b), tuple(sizes[c] for c in batch + left + right))
    return out, "".join(batch + left + right)


def einsum(subscripts: str, *operands) -> Tensor:
    """Einstein summation over ``operands`` as ``subscripts`` says (``"ij,jk->ik"``, the
    implicit form ``"ij,jk"``, ``...`` for broadcast axes, a repeated index for a
    diagonal), as ``np.einsum``; the result's dtype is the operands' common dtype.

    Raises
    ------
    LazyjitError
        Malformed subscripts, a count of subscripts that differs from the operands', or
        an index whose sizes differ between operands (a size 1 broadcasts, as in
        NumPy).
    """
    if not isinstance(subscripts, str):
        raise op_error("einsum", "subscripts must be a string (the interleaved operand, "
                       "index-list form is not supported)")
    xs = [asarray(x) for x in operands]
    if not xs:
        raise op_error("einsum", "no operands")
    dt = np.result_type(*[x.dtype for x in xs])
    xs = [x if x.dtype == dt else x.astype(dt) for x in xs]
    terms, output = _parse(subscripts, [x.ndim for x in xs])
    sizes: dict[str, int] = {}  # an index's size: the operands' sizes, 1 broadcasting
    for x, term in zip(xs, terms):
        for c, n in zip(term, x.shape):
            m = sizes.setdefault(c, n)
            if m != n and 1 not in (m, n):
                if type(m) is not Dim and type(n) is not Dim:
                    raise op_error("einsum", f"index {c!r} has sizes {m} and {n} in "
                                   f"{subscripts!r}", tuple(t.node for t in xs))
                # a size known only at a call: required equal then, as matmul's inner sizes
                sizes[c] = equal_size(m, n, "einsum")
                continue
            sizes[c] = max(m, n)
    needed = [set(output).union(*terms[i + 1:]) for i in range(len(terms))]
    acc, at = _own(xs[0], terms[0], needed[0] | set(terms[1] if len(terms) > 1 else ""))
    for i in range(1, len(xs)):
        keep = needed[i]
        b, tb = _own(xs[i], terms[i], keep | set(at))
        acc, at = _own(acc, at, keep | set(tb))
        acc, at = _pair(acc, at, b, tb, keep, sizes)
    acc, at = _own(acc, at, set(output))
    return _arrange(acc, at, output, sizes)
