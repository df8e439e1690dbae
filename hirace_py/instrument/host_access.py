"""Host accesses to transfer buffers: the host side of the host-device model.

In the host functions of a program unit, a read or write of an element of a
*transfer pointer* goes through `hirace::host::touch`, which records the bytes
touched (coalesced into runs) with their call site and their place among the
recorded CUDA calls (docs/semantics.md section 6.1, docs/programs.md). A
transfer pointer is a pointer variable, parameter or struct field that the
unit passes to a call that copies to or from host memory or allocates host-
visible memory (`TRANSFER_CALLS`): the buffers whose host and device copies
can disagree. `h[i] = x` becomes
`(*::hirace::host::touch<SITE>(&(h[i]), 1, "app.cu", 12, 5, "main", "h")) = x`.
In a counted loop that `hirace_py.instrument.host_loops` proves makes the
access `h[i]` for every i in [A, N) and nothing that could come between them,
the access is recorded once, before the loop, as the run of those elements:
`for (int i = (::hirace::host::touch_span<SITE>((h) + (A), (h) + (N), 1, ...), A); ...`.
A member of an element, `h[i].x` or `p->x`, is touched as the member's bytes.
Binding an element to a reference (`k<<<1, 1>>>(*p)` for a kernel taking
`T&`, a call's `T&` parameter, `T& r = h[i]`) reads nothing.

What is not rewritten (so not seen): accesses through other pointers (a
pointer copied from a transfer pointer, `std::vector` elements, library calls
such as `memcpy` or `printf("%s")` that read host memory themselves), accesses
spelled inside a macro's definition, array members (`p->a[i]`: the
array's decay to a pointer is not an access), and member function calls on an
element (`h[i].f()`: what the function reads and writes is its own business).
"""

from __future__ import annotations

import hashlib

import clang.cindex as ci

from hirace_py.instrument import edits
from hirace_py.instrument.analyze import K, Planner
from hirace_py.instrument.host_loops import CountedLoop, counted_loop, decl_key
from hirace_py.instrument.parse import (
    attributes,
    binary_operator,
    children,
    stripped,
    unary_operator,
)

T = ci.TypeKind
TRANSFER_CALLS = {
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync",
    "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync",
    "cudaMemcpyFromSymbolAsync", "cudaMallocHost", "cudaHostAlloc", "cudaMallocManaged",
    "cudaHostRegister",
}  # fmt: skip
READ, WRITE, READ_WRITE = 0, 1, 2
"""Access modes as the runtime's `touch` takes them."""
POINTER_KINDS = {T.POINTER, T.INCOMPLETEARRAY, T.CONSTANTARRAY}
NOT_EVALUATED = {K.CXX_UNARY_EXPR}  # sizeof, alignof
DECLS = {K.VAR_DECL, K.PARM_DECL, K.FIELD_DECL}
METHODS = {K.CXX_METHOD, K.CONVERSION_FUNCTION, K.DESTRUCTOR, K.FUNCTION_TEMPLATE}
"""Member functions: `h[i].f()` is a call, not an access to a member's bytes."""


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _site_id(path: str, offset: int) -> int:
    """A number for an access site, the same wherever its file is compiled (a header
    included by several units), different for different sites."""
    return int.from_bytes(hashlib.blake2b(f"{path}:{offset}".encode(), digest_size=8).digest(),
                          "little")  # fmt: skip


def _named_decl(c: ci.Cursor) -> ci.Cursor | None:
    """The variable, parameter or field an expression names, through casts,
    parentheses and `&` (`(void**)&h`, `bufs[0].h`)."""
    c = stripped(c)
    while c.kind in (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
                     K.UNARY_OPERATOR) and children(c):  # fmt: skip
        if c.kind == K.UNARY_OPERATOR and unary_operator(c) != "&":
            break
        c = stripped(children(c)[-1])
    if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
        ref = c.referenced
        if ref is not None and ref.kind in DECLS:
            return ref
    return None


COMPOUND_OPERATORS = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}
VALUE_OPERATORS = {
    "+", "-", "/", "%", "==", "!=", "<", ">", "<=", ">=", "<=>", "!", "~", "^", "|", "&&",
    "||", "<<", ">>",
}  # fmt: skip
"""Overloaded operators that read every operand (`*` and `&` only as binary
operators: their unary forms dereference or take an address)."""


def _operator_modes(call: ci.Cursor) -> dict[tuple[int, int], int] | None:
    """How an overloaded assignment or arithmetic operator uses each operand,
    by the operand's extent, as the built-in operator would (`h[i] = v` on a
    class type writes h[i]; `h[i] += v` reads and writes it; `h[i] < v` reads
    both); None for any other call (`operator[]`, `operator()`, functions)."""
    ref = call.referenced
    if ref is None or not ref.spelling.startswith("operator"):
        return None
    op = ref.spelling[len("operator"):].strip()
    args = list(call.get_arguments())
    if op == "=":
        first = WRITE
    elif op in COMPOUND_OPERATORS:
        first = READ_WRITE
    elif op in VALUE_OPERATORS or (op in ("*", "&") and len(args) == 2):
        first = READ
    else:
        return None
    return {(a.extent.start.offset, a.extent.end.offset): first if i == 0 else READ
            for i, a in enumerate(args)}  # fmt: skip


class HostAccessPlanner:
    """Edits that route host accesses to transfer pointers through `touch`."""

    def __init__(self, planner: Planner, host_functions: list[ci.Cursor]) -> None:
        self.p = planner
        # __host__ __device__ functions are compiled for the device too, where
        # the host runtime does not exist.
        self.functions = [f for f in host_functions if K.CUDADEVICE_ATTR not in attributes(f)]
        self.tracked: set[str] = set()
        self.edits: dict[str, list[edits.Edit]] = {}
        self.sites = 0
        # While walking a counted loop: its accesses recorded before it (by start
        # offset, with their pointer's decl_key), and the spans found for them.
        self.hoisting: tuple[dict[int, str], list[tuple[int, str, str]]] | None = None

    def run(self) -> dict[str, list[edits.Edit]]:
        for fn in self.functions:
            for c in fn.walk_preorder():
                if c.kind == K.CALL_EXPR and c.spelling in TRANSFER_CALLS:
                    for arg in list(c.get_arguments()):
                        decl = _named_decl(arg)
                        if decl is not None:
                            self.tracked.add(decl_key(decl))
        if not self.tracked:
            return {}
        for fn in self.functions:
            body = [k for k in children(fn) if k.kind == K.COMPOUND_STMT]
            for b in body:
                self._walk(b, None, fn.spelling)
        return self.edits

    def _is_tracked(self, base: ci.Cursor) -> bool:
        base = stripped(base)
        if base.kind not in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            return False
        ref = base.referenced
        return ref is not None and ref.kind in DECLS and decl_key(ref) in self.tracked

    def _wrap(self, c: ci.Cursor, base: ci.Cursor, mode: int, function: str) -> None:
        if not self.p.in_main(c) or self.p.inside_macro(c):
            return
        f = self.p.file(c)
        if c.extent.start.file is None or c.extent.start.file.name != f.name:
            return
        loc = c.location
        pointer = " ".join(self.p.text(base).split())
        self.sites += 1
        site = _site_id(f.path, c.extent.start.offset)
        where = (f"{mode}, {_c_string(f.display)}, {loc.line}, {loc.column}, "
                 f"{_c_string(function)}, {_c_string(pointer)}")  # fmt: skip
        hoistable = c.kind == K.ARRAY_SUBSCRIPT_EXPR  # not a member: p[i].x is not all of p[i]
        if self.hoisting is not None and hoistable and c.extent.start.offset in self.hoisting[0]:
            # (recorded before the loop: `base` is a variable the loop does not change)
            self.hoisting[1].append((site, self.p.text(base), where))
            return
        self.edits.setdefault(f.name, []).append(edits.wrap(
            c.extent.start.offset, c.extent.end.offset,
            f"(*::hirace::host::touch<{site}ull>(&(", f"), {where}))",
        ))  # fmt: skip

    def _loop(self, c: ci.Cursor, function: str) -> bool:
        """Walk `c` if it is a counted loop with accesses to record before it."""
        loop = counted_loop(c) if self.p.in_main(c) and not self.p.inside_macro(c) else None
        # A and N are written again for the span: spelled in the source, or as the
        # name of a macro (`i < N`), which expands there as in the loop.
        if loop is None or any(self.p.inside_macro(e) and not self.p.text(e).isidentifier()
                               for e in (loop.first, loop.end)):  # fmt: skip
            return False
        hoisted = {at: p for at, p in loop.unconditional_accesses().items() if p in self.tracked}
        if not hoisted:
            return False
        outer, self.hoisting = self.hoisting, (hoisted, [])
        try:
            for kid in children(c):
                self._walk(kid, READ, function)
            spans = self.hoisting[1]
        finally:
            self.hoisting = outer
        if spans:
            self._record_before(loop, spans)
        return True

    def _record_before(self, loop: CountedLoop, spans: list[tuple[int, str, str]]) -> None:
        """Make the loop's initial value record `spans` (site, base, the rest of
        touch's arguments) first: `(touch_span(...), ..., A)`."""
        first = f"({self.p.text(loop.first)})"
        end = f"({self.p.text(loop.end)}){' + 1' if loop.inclusive else ''}"
        calls = [f"::hirace::host::touch_span<{site}ull>(({base}) + {first}, ({base}) + {end}, "
                 f"{where})" for site, base, where in spans]  # fmt: skip
        f = self.p.file(loop.first)
        self.edits.setdefault(f.name, []).append(edits.wrap(
            loop.first.extent.start.offset, loop.first.extent.end.offset,
            "(" + "".join(f"{call}, " for call in calls), ")"))  # fmt: skip

    def _element_pointer(self, member: ci.Cursor) -> ci.Cursor | None:
        """The tracked pointer whose element `member` (`p->x`, `h[i].x`,
        `(*p).a.b`) is a member of, or None."""
        kids = children(member)
        if not kids:
            return None
        base = stripped(kids[0])
        if base.type.get_canonical().kind == T.POINTER:  # p->x
            return base if self._is_tracked(base) else None
        if base.kind == K.MEMBER_REF_EXPR:
            return self._element_pointer(base)
        inner = children(base)
        if base.kind == K.ARRAY_SUBSCRIPT_EXPR and len(inner) == 2 and self._is_tracked(inner[0]):
            return inner[0]
        if (base.kind == K.UNARY_OPERATOR and unary_operator(base) == "*" and inner
                and self._is_tracked(inner[0])):  # fmt: skip
            return inner[0]
        return None

    def _by_reference(self, call: ci.Cursor) -> set[tuple[int, int]]:
        """Extents of the call's arguments that bind to reference parameters
        (the object of a member operator, `h[i](x)`, binds to `this`)."""
        ref = call.referenced
        if ref is None:
            return set()
        params = list(ref.get_arguments())
        args = list(call.get_arguments())
        if len(args) == len(params) + 1 and ref.kind in METHODS:
            params = [None, *params]
        refs = (T.LVALUEREFERENCE, T.RVALUEREFERENCE)
        return {
            (a.extent.start.offset, a.extent.end.offset)
            for a, p in zip(args, params, strict=False)
            if p is None or p.type.get_canonical().kind in refs
        }

    def _walk(self, c: ci.Cursor, ctx: int | None, function: str) -> None:
        """Visit `c`, used as `ctx` (READ, WRITE, READ_WRITE, or None: not accessed)."""
        k = c.kind
        kids = children(c)
        if k in NOT_EVALUATED or k == K.LAMBDA_EXPR:
            return
        if k == K.FOR_STMT and self._loop(c, function):
            return
        if k == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
            if ctx is not None and self._is_tracked(kids[0]):
                self._wrap(c, kids[0], ctx, function)
            for kid in kids:
                self._walk(kid, READ, function)
            return
        if k == K.UNARY_OPERATOR and kids:
            op = unary_operator(c)
            if op == "*":
                if ctx is not None and self._is_tracked(kids[0]):
                    self._wrap(c, kids[0], ctx, function)
                self._walk(kids[0], READ, function)
            elif op == "&":
                self._walk(kids[0], None, function)
            elif op in ("++", "--"):
                self._walk(kids[0], READ_WRITE, function)
            else:
                self._walk(kids[0], READ, function)
            return
        if k == K.BINARY_OPERATOR and len(kids) == 2 and binary_operator(c) == "=":
            self._walk(kids[0], WRITE, function)
            self._walk(kids[1], READ, function)
            return
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            self._walk(kids[0], READ_WRITE, function)
            self._walk(kids[1], READ, function)
            return
        if k in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(kids) == 1:
            self._walk(kids[0], ctx, function)
            return
        if k == K.MEMBER_REF_EXPR:
            method = c.referenced is not None and c.referenced.kind in METHODS
            if ctx is not None and not method and c.type.get_canonical().kind not in (
                    T.CONSTANTARRAY, T.INCOMPLETEARRAY):  # fmt: skip
                pointer = self._element_pointer(c)
                if pointer is not None:
                    self._wrap(c, pointer, ctx, function)
            for kid in kids:
                self._walk(kid, None, function)
            return
        if k == K.CALL_EXPR and (modes := _operator_modes(c)) is not None:
            for kid in kids:
                self._walk(kid, modes.get((kid.extent.start.offset, kid.extent.end.offset),
                                          READ), function)  # fmt: skip
            return
        if k == K.CALL_EXPR:
            by_reference = self._by_reference(c)
            for kid in kids:
                bound = (kid.extent.start.offset, kid.extent.end.offset) in by_reference
                self._walk(kid, None if bound else READ, function)
            return
        if k == K.VAR_DECL and c.type.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
            for kid in kids:
                self._walk(kid, None, function)
            return
        for kid in kids:
            self._walk(kid, READ, function)
