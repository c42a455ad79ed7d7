"""What every C-family renderer prints alike (C for ``cpu``; CUDA C will share it):
types, literals, scalar constants read from the parameter table, the expression
templates of the ops' :class:`~lazyjit.ops.OpDef`, fused expressions, and index
arithmetic.  A renderer passes a parameter table: an object whose ``p(value)`` appends
an int64 and returns the C expression reading it.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.ops import REGISTRY
from lazyjit.schedule.views import View

CTYPE = {"bool": "uint8_t", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
         "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t",
         "uint64": "uint64_t", "float32": "float", "float64": "double"}


def ctype(dtype: np.dtype) -> str:
    return CTYPE[np.dtype(dtype).name]


def literal(value, dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        v = float(value)
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        return f"{v!r}f" if dtype == np.float32 else repr(v)
    if dtype.kind == "b":
        return "1" if value else "0"
    v = int(value)
    if v == np.iinfo(np.int64).min:
        return "(-9223372036854775807LL-1)"
    return f"(({ctype(dtype)}){v}{'ULL' if dtype.kind == 'u' else 'LL'})"


def const_param(table, value, dtype: np.dtype) -> str:
    """A scalar constant read from the parameter table, so that the source does not
    depend on its value (a new learning rate or batch-size factor compiles nothing).
    Floats travel as the bits of a double, integers and bools as int64."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        bits = int(np.array(value, np.float64).view(np.int64))
        return f"({ctype(dtype)})lj_as_f64({table.p(bits)})"
    v = int(value)
    if v >= 1 << 63:  # uint64 above int64's range: its two's complement bits
        v -= 1 << 64
    return f"({ctype(dtype)}){table.p(v)}"


def c_expr(opdef, srcs_dtypes, out_dtype, args: list[str]) -> str:
    """The op's expression template (``OpDef.c``) applied to argument expressions."""
    tmpl = opdef.c
    in_dt = np.dtype(srcs_dtypes[-1] if opdef.name == "where" else srcs_dtypes[0])
    if isinstance(tmpl, dict):  # keyed by operand kind; ">k" keys by result kind
        tmpl = tmpl.get(">" + np.dtype(out_dtype).kind) or tmpl.get(in_dt.kind, tmpl.get("*"))
        if tmpl is None:
            raise NotImplementedError(f"{opdef.name} has no C form for {in_dt}")
    return tmpl.format(*args, s="f" if in_dt == np.float32 else "", T=ctype(out_dtype),
                       I=ctype(in_dt), n=in_dt.name)


class Body:
    """Statements computing a fused elementwise expression for one innermost index.

    ``value(x)`` returns a C variable name for :class:`~lazyjit.schedule.ir.Expr` ``x``:
    an op of the fused expression, or a leaf (a :class:`View` operand loaded at the
    current index as ``L<j>``, or a :class:`~lazyjit.schedule.ir.Const`)."""

    def __init__(self, table, leaves, operand_of):
        self.table = table
        self.leaves = leaves            # leaf Expr -> View | Const
        self.operand_of = operand_of    # View -> operand number j (loaded as L{j})
        self.stmts: list[str] = []
        self.names: dict = {}

    def value(self, node) -> str:
        """The C variable holding ``node``, emitting the statements it needs (an explicit
        stack, not recursion: fused chains can be thousands of ops long)."""
        names = self.names
        stack = [(node, False)]
        while stack:
            n, ready = stack.pop()
            if n in names:
                continue
            if ready or n in self.leaves:
                self._emit(n)
                continue
            stack.append((n, True))
            stack.extend((s, False) for s in reversed(n.src) if s not in names)
        return names[node]

    def _emit(self, node) -> None:
        if node in self.leaves:
            leaf = self.leaves[node]
            if isinstance(leaf, View):
                expr = f"L{self.operand_of[leaf]}"
            else:  # a Const
                expr = const_param(self.table, leaf.value, leaf.dtype)
        else:
            args = [self.names[s] for s in node.src]
            expr = c_expr(REGISTRY[node.op], [s.dtype for s in node.src], node.dtype, args)
        name = f"v{len(self.names)}"
        self.stmts.append(f"const {ctype(node.dtype)} {name} = ({ctype(node.dtype)})({expr});")
        self.names[node] = name


def decode(dims: list[int], sizes: list[str], var: str, tmp: str = "r_") -> list[str]:
    """Statements splitting flat index ``var`` into ``i{d}`` for ``dims`` (C order),
    through the variable ``tmp``."""
    if not dims:
        return []
    out = [f"int64_t {tmp} = {var};"]
    for d in reversed(dims[1:]):
        out.append(f"const int64_t i{d} = {tmp} % {sizes[d]}; {tmp} /= {sizes[d]};")
    out.append(f"const int64_t i{dims[0]} = {tmp};")
    return out


def loops(dims: list[int], sizes: list[str]) -> tuple[list[str], list[str]]:
    """Opening and closing lines of nested loops over ``dims``."""
    return ([f"for (int64_t i{d} = 0; i{d} < {sizes[d]}; i{d}++) {{" for d in dims],
            ["}" for _ in dims])


def kernel_error(code: int, messages: list[str]) -> Exception:
    """The exception that a C-family module's nonzero error code stands for: 1 an index
    out of bounds, 2 no scratch memory, ``3 + i`` the ``i``-th check's message."""
    if code == 2:
        return MemoryError("lazyjit: a kernel could not allocate its scratch memory")
    if code >= 3:
        return ValueError(messages[code - 3])
    return IndexError("lazyjit: an index is out of bounds (take, put or advanced indexing)")
