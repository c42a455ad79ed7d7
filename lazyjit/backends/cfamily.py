"""What every C-family renderer prints alike (C for ``cpu``; CUDA C will share it):
types, literals, scalar constants read from the parameter table, the expression
templates of the ops' :class:`~lazyjit.ops.OpDef`, fused expressions, and index
arithmetic.  A renderer passes a parameter table: an object whose ``p(value)`` appends
an int64 and returns the C expression reading it.

float16 (NumPy's ``float16``, IEEE 754 binary16) is stored as 16 bits and computed in
``float``.  The contract every renderer and its prelude keep:

* :func:`ctype` is the *storage* type: ``lj_half`` for float16, which each prelude
  defines (C: ``typedef _Float16 lj_half``; CUDA C: a 16-bit struct);
* :func:`compute_ctype` is the type arithmetic is done in: ``float`` for float16;
* memory is read through :func:`load_expr` and written through :func:`store_expr`:
  ``lj_h2f(x)`` and ``lj_f2h(x)`` for float16 (each prelude defines both, and
  ``lj_d2h(double)``, the correctly rounded conversion from double), the expression
  itself for every other dtype;
* a fused expression (:class:`Body`) holds its float16 values in ``float`` variables,
  computes each op in float (the op templates see float16 as float32: ``expf``) and
  rounds each op's result to float16 where it is made, as NumPy's float16 loops do
  (held unrounded along a fused chain, ``floor_divide(x * 3, x)`` gave 3 where NumPy
  gives 2); a cast to float16 (``astype``) rounds correctly (``lj_d2h`` from float64).
  Every float16 value of a fused expression is then one that float16 holds.
"""
from __future__ import annotations

import math

import numpy as np

from lazyjit.errors import check_error
from lazyjit.ops import REGISTRY
from lazyjit.schedule.views import View

CTYPE = {"bool": "uint8_t", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
         "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t",
         "uint64": "uint64_t", "float16": "lj_half", "float32": "float",
         "float64": "double", "complex64": "lj_cfloat", "complex128": "lj_cdouble"}
HALF = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_C64 = np.dtype(np.complex64)


def ctype(dtype: np.dtype) -> str:
    """The C type a value of ``dtype`` is stored as (``lj_half`` for float16)."""
    return CTYPE[np.dtype(dtype).name]


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic on ``dtype`` is done in: float32 for float16, else itself."""
    dtype = np.dtype(dtype)
    return _F32 if dtype == HALF else dtype


def compute_ctype(dtype: np.dtype) -> str:
    """The C type arithmetic on ``dtype`` is done in: ``float`` for float16, else
    :func:`ctype`."""
    return ctype(compute_dtype(dtype))


def load_expr(expr: str, dtype: np.dtype) -> str:
    """``expr``, a stored value of ``dtype``, as a value of :func:`compute_ctype`."""
    return f"lj_h2f({expr})" if np.dtype(dtype) == HALF else expr


def store_expr(expr: str, dtype: np.dtype) -> str:
    """``expr``, a value of :func:`compute_ctype` (``float`` for float16), as the
    storage type of ``dtype``."""
    return f"lj_f2h({expr})" if np.dtype(dtype) == HALF else expr


def complex_maker(dtype: np.dtype) -> str:
    """The function of the preludes making a complex ``dtype`` value of its two parts
    (``native/lazyjit_rt.h``: C99's ``__builtin_complex``; CUDA C++: a constructor)."""
    return "lj_complexf" if np.dtype(dtype) == _C64 else "lj_complex"


def literal(value, dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # (lj_complex(re, im): each prelude's, of two reals)
        part = np.dtype(np.float32 if dtype == _C64 else np.float64)
        value = complex(value)
        return f"{complex_maker(dtype)}(({ctype(part)}){literal(value.real, part)}, " \
               f"({ctype(part)}){literal(value.imag, part)})"
    if dtype.kind == "f":
        v = float(value)
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        return f"{v!r}f" if dtype in (_F32, HALF) else repr(v)
    if dtype.kind == "b":
        return "1" if value else "0"
    v = int(value)
    if v == np.iinfo(np.int64).min:
        return "(-9223372036854775807LL-1)"
    return f"(({ctype(dtype)}){v}{'ULL' if dtype.kind == 'u' else 'LL'})"


def const_param(table, value, dtype: np.dtype) -> str:
    """A scalar constant read from the parameter table, so that the source does not
    depend on its value (a new learning rate or batch-size factor compiles nothing).
    Floats travel as the bits of a double, integers and bools as int64; a float16
    constant is a ``float`` (its compute type)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # the real and the imaginary part, each as a double's bits
        part = np.dtype(np.float32 if dtype == _C64 else np.float64)
        value = complex(value)
        return f"{complex_maker(dtype)}({const_param(table, value.real, part)}, " \
               f"{const_param(table, value.imag, part)})"
    if dtype.kind == "f":
        bits = int(np.array(value, np.float64).view(np.int64))
        return f"({compute_ctype(dtype)})lj_as_f64({table.p(bits)})"
    v = int(value)
    if v >= 1 << 63:  # uint64 above int64's range: its two's complement bits
        v -= 1 << 64
    return f"({ctype(dtype)}){table.p(v)}"


def c_expr(opdef, srcs_dtypes, out_dtype, args: list[str]) -> str:
    """The op's expression template (``OpDef.c``) applied to argument expressions (values
    of their :func:`compute_ctype`); float16 is seen as float32."""
    tmpl = opdef.c
    in_dt = np.dtype(srcs_dtypes[-1] if opdef.name == "where" else srcs_dtypes[0])
    out_dt = np.dtype(out_dtype)
    if opdef.name == "cast" and in_dt.kind == "c" and out_dt.kind not in "cb":
        # (to a real type: the real part, as NumPy's astype; C++ has no such conversion)
        args = [f"creal{'f' if in_dt == _C64 else ''}({args[0]})"]
        in_dt = np.dtype(np.float32 if in_dt == _C64 else np.float64)
    if opdef.name == "cast" and out_dt == HALF and in_dt != HALF:
        return _to_half(args[0], in_dt)
    if isinstance(tmpl, dict):  # keyed by operand kind; ">k" keys by result kind
        tmpl = tmpl.get(">" + out_dt.kind) or tmpl.get(in_dt.kind, tmpl.get("*"))
    elif in_dt.kind == "c" and opdef.name not in C_OPERATORS:
        tmpl = None  # (a real function's template would drop the imaginary part)
    if tmpl is None:
        raise NotImplementedError(f"{opdef.name} has no C form for {in_dt}")
    in_dt, out_dt = compute_dtype(in_dt), compute_dtype(out_dt)
    return tmpl.format(*args, s="f" if in_dt in (_F32, _C64) else "", T=ctype(out_dt),
                       I=ctype(in_dt), n=in_dt.name)


# the ops whose one template (C's operators) is right for complex operands too
C_OPERATORS = frozenset(("add", "sub", "neg", "eq", "ne", "where", "cast",
                         "stop_gradient", "logical_not", "logical_and", "logical_or",
                         "logical_xor"))


def _to_half(arg: str, in_dt: np.dtype) -> str:
    """A cast to float16, rounded where it is (as a float): from float64 directly
    (``lj_d2h``; through float, a value could round twice), from the others through
    float (exact for every integer float16 can hold, and for float32)."""
    if in_dt == np.float64:
        return f"lj_h2f(lj_d2h({arg}))"
    return f"lj_h2f(lj_f2h((float)({arg})))"


class Body:
    """Statements computing a fused elementwise expression for one innermost index.

    ``value(x)`` returns a C variable name for :class:`~lazyjit.schedule.ir.Expr` ``x``:
    an op of the fused expression, or a leaf (a :class:`View` operand loaded at the
    current index as ``L<j>``, already converted by :func:`load_expr`, or a
    :class:`~lazyjit.schedule.ir.Const`).  Every variable has its node's
    :func:`compute_ctype` (``float`` for float16)."""

    # integer add, sub, mul, neg and abs as wrapping (unsigned) arithmetic: for C
    # dialects without -fwrapv (CUDA C++), where signed overflow is undefined and lets
    # the compiler fold x + 1 > x to true
    wrap_integers = False

    def __init__(self, table, leaves, operand_of, suffix: str = ""):
        self.table = table
        self.leaves = leaves            # leaf Expr -> View | Const
        self.operand_of = operand_of    # View -> operand number j (loaded as L{j})
        self.suffix = suffix            # of every name: copies of one body side by side
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
                expr = f"L{self.operand_of[leaf]}{self.suffix}"
            else:  # a Const
                expr = const_param(self.table, leaf.value, leaf.dtype)
        else:
            args = [self.names[s] for s in node.src]
            expr = wrapping(node.op, node.dtype, args) if self.wrap_integers else None
            if expr is None:
                expr = c_expr(REGISTRY[node.op], [s.dtype for s in node.src], node.dtype,
                              args)
            if node.dtype == HALF and node.op not in _HALF_EXACT:  # (rounded, as NumPy)
                expr = f"lj_h2f(lj_f2h({expr}))"
        name = f"v{len(self.names)}{self.suffix}"
        t = compute_ctype(node.dtype)
        self.stmts.append(f"const {t} {name} = ({t})({expr});")
        self.names[node] = name


# the ops whose float16 result is one of their float16 operands, or its negation (a
# cast to float16 rounds in its own template)
_HALF_EXACT = frozenset(("cast", "where", "stop_gradient", "neg", "abs", "maximum",
                         "minimum"))

_WRAPPING = {"add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})",
             "neg": "(0u - {0})"}


def wrapping(op: str, dt: np.dtype, args: list[str]) -> str | None:
    """Integer ``op`` (add, sub, mul, neg, abs) of result dtype ``dt`` computed in
    unsigned arithmetic of at least 32 bits and cast back: two's complement wrapping,
    as NumPy's, with no overflow of a signed type (nor of the ``int`` that C promotes
    small unsigned types to); None for any other op or dtype (the op's template)."""
    dt = np.dtype(dt)
    if dt.kind not in "iu" or (op not in _WRAPPING and op != "abs"):
        return None
    T, U = ctype(dt), "uint64_t" if dt.itemsize == 8 else "uint32_t"
    if op == "abs":
        if dt.kind == "u":
            return None
        return f"(({T})({args[0]} < 0 ? 0u - ({U}){args[0]} : ({U}){args[0]}))"
    return f"(({T}){_WRAPPING[op].format(*(f'({U}){a}' for a in args))})"


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
        return check_error(messages[code - 3])
    return IndexError("lazyjit: an index is out of bounds (take, put or advanced indexing)")


def operands(table, sp, n_out: int = 1, zero_literal: bool = False):
    """For the loop space ``sp`` (:class:`~lazyjit.schedule.ir.Space`): (dims, size
    params, per-operand stride params, load classes of the last dim: ``c`` contiguous,
    ``b`` broadcast, ``s`` strided, reduced flags, pointer declarations ``p<j>``); the
    first ``n_out`` views are written.  With ``zero_literal`` an offset of 0 is written
    as none, not as a parameter (the source then differs from a nonzero offset's)."""
    views, shape2, strides2, flags2 = sp.views, sp.shape, sp.strides, sp.flags
    sizes = [table.p(d) for d in shape2]
    st_params, classes, decls = [], [], []
    for j, (v, st) in enumerate(zip(views, strides2)):
        last = st[-1]
        classes.append("c" if last == 1 else "b" if last == 0 else "s")
        st_params.append([table.p(s) for s in st])
        q = "" if j < n_out else "const "
        off = "" if zero_literal and v.offset == 0 else f" + {table.p(v.offset)}"
        decls.append(f"{q}{ctype(v.dtype)}* p{j} = ({q}{ctype(v.dtype)}*)B[{v.slot}]{off};")
    return list(shape2), sizes, st_params, classes, flags2, decls


def reduce_init(op: str, dt: np.dtype) -> str:
    """The accumulator's start: the reduce op's identity (its OpDef's)."""
    return literal(REGISTRY[op].identity(dt), dt)


def combine(op: str, dt: np.dtype, a: str, b: str) -> str:
    """``a`` combined with ``b`` by reduce op ``op`` (``b`` may be evaluated three times:
    pass a variable); max and min of floats propagate NaN, as NumPy."""
    if op == "sum":
        return f"({a} + {b})" if dt.kind != "b" else f"({a} | {b})"
    if op == "prod":
        if dt.kind == "c":  # (NumPy's reduce: the textbook product, not C's Annex G one)
            return f"lj_cmul_t{'f' if dt == _C64 else ''}({a}, {b})"
        return f"({a} * {b})" if dt.kind != "b" else f"({a} & {b})"
    cmp = ">" if op == "max" else "<"
    if dt.kind == "f":
        return f"(({b} {cmp} {a} || {b} != {b}) ? {b} : {a})"
    return f"({b} {cmp} {a} ? {b} : {a})"


def arg_reduction(table, k) -> tuple[list[str], list[str], list[str]]:
    """The parts of an arg-reduction kernel (:class:`~lazyjit.schedule.ir.ArgReduce`
    ``k``) that every C-family renderer shares: (declarations of ``p``, ``out``,
    ``nK`` outputs, ``n`` and ``s`` along the axis; the size params of ``nK``; the
    statements of work item ``w``: the index of the first max or min of its row, the
    first NaN winning, as NumPy's, stored in ``out[w]``)."""
    axis, dst, src = k.axis, k.dst, k.src
    T, C, dt = ctype(src.dtype), compute_ctype(src.dtype), src.dtype
    sizes = [table.p(d) for d in src.shape]
    strides = [table.p(s) for s in src.strides]
    kept = [d for d in range(len(src.shape)) if d != axis]
    n_kept = [sizes[d] for d in kept]
    cmp = ">" if k.op == "argmax" else "<"
    off = "".join(f" + i{d} * {strides[d]}" for d in kept)
    decls = [f"const {T}* p = (const {T}*)B[{src.slot}] + {table.p(src.offset)};",
             f"int64_t* out = (int64_t*)B[{dst.slot}] + {table.p(dst.offset)};",
             f"const int64_t nK = {' * '.join(n_kept) or '1'}, n = {sizes[axis]}, "
             f"s = {strides[axis]};"]
    body = [*decode(kept, sizes, "w"), f"const {T}* q = p{off};",
            f"{C} best = {load_expr('q[0]', dt)}; int64_t bi = 0;",
            "if (best == best) for (int64_t j = 1; j < n; j++) {",
            f"  const {C} v = {load_expr('q[j * s]', dt)};",
            "  if (v != v) { bi = j; break; }",
            f"  if (v {cmp} best) {{ best = v; bi = j; }}",
            "}", "out[w] = bi;"]
    return decls, n_kept, body
