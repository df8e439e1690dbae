"""Plan the rewrite: find every memory access, barrier and atomic in device code.

The planner walks each kernel and `__device__` function defined in the main
file and produces textual edits (hirace_py.instrument.edits):

* a *memory lvalue* is an lvalue that may live in global or shared memory: a
  dereference of a pointer (`*p`, `p[i]`, `p->f`, implicit `this->f`), an
  element or member of such an lvalue, a `__shared__` or `__device__`
  variable, or a reference. Locals are never wrapped.
* its *context* says how it is used: written (`=`), read and written
  (`+=`, `++`), read (every other use as a value), or not accessed at all
  (`&E`, the base of `E.f`, a binding to a reference, `sizeof`).
* accessed memory lvalues are wrapped so the access goes through the
  runtime, e.g. `a[i] = b[j]` becomes
  `(*hirace::wr(__hr_t, &(a[i]), 0)) = (*hirace::rd(__hr_t, &(b[j]), 1))`;
  atomics get their address argument wrapped as a BA or GA action;
  barriers update the thread's clocks after they complete.

Kernels are rewritten in place (their signatures never change). Each device
function gets an instrumented overload, inserted after the original, that
takes the thread context as an extra first parameter; calls from
instrumented code go to the overload, calls from host code keep the original.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import clang.cindex as ci

from hirace_py.instrument import edits
from hirace_py.instrument.model import Kernel, Param, Site, Tables, Variable, Warning
from hirace_py.instrument.parse import Parsed, binary_operator, in_main_file, unary_operator

K = ci.CursorKind
T = ci.TypeKind
CTX = "__hr_t"

TRANSPARENT = {K.UNEXPOSED_EXPR, K.PAREN_EXPR}
FUNCTIONS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD}
ARRAYS = {T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY}
REFERENCES = {T.LVALUEREFERENCE, T.RVALUEREFERENCE}
CASTS = {
    K.CSTYLE_CAST_EXPR,
    K.CXX_STATIC_CAST_EXPR,
    K.CXX_REINTERPRET_CAST_EXPR,
    K.CXX_CONST_CAST_EXPR,
    K.CXX_FUNCTIONAL_CAST_EXPR,
}

ATOMIC_OPS = ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec", "And", "Or", "Xor", "CAS")
ATOMICS = {f"atomic{op}{scope}": ("BA" if scope == "_block" else "GA")
           for op in ATOMIC_OPS for scope in ("", "_block", "_system")}  # fmt: skip
LOADS = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}
STORES = {"__stwb", "__stcg", "__stcs", "__stwt"}
VALUE_BARRIERS = {"__syncthreads_count", "__syncthreads_and", "__syncthreads_or"}
UNTRACKED_CALLS = {"memcpy", "memset", "memmove"}
PRELUDE = "parse_prelude.h"


def _children(c: ci.Cursor) -> list[ci.Cursor]:
    return list(c.get_children())


def _strip(c: ci.Cursor) -> ci.Cursor:
    """The expression under implicit casts and parentheses."""
    while c.kind in TRANSPARENT:
        kids = _children(c)
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _canonical_kind(t: ci.Type) -> T:
    return t.get_canonical().kind


def _attrs(c: ci.Cursor) -> set[K]:
    return {ch.kind for ch in c.get_children() if ch.kind.is_attribute()}


def gran_log2(t: ci.Type) -> int:
    """log2 of the smallest scalar in a type: the bytes one shadow word covers."""
    t = t.get_canonical()
    if t.kind in ARRAYS:
        return gran_log2(t.element_type)
    if t.kind == T.RECORD:
        sizes = [gran_log2(f.type) for f in t.get_fields()]
        return min(sizes) if sizes else 0
    size = t.get_size()
    if size <= 0:
        return 0
    return min(max(size.bit_length() - 1, 0), 3)


@dataclass
class FunctionPlan:
    """Edits for one function; device functions are emitted as copies."""

    cursor: ci.Cursor
    kernel: bool
    edits: list[edits.Edit] = field(default_factory=list)


class Planner:
    """Walks a parsed translation unit and fills `Tables` and the edit lists."""

    def __init__(self, parsed: Parsed, select_kernel: Callable[[str], bool]) -> None:
        self.parsed = parsed
        self.src = parsed.source
        self.main = parsed.filename
        self.display = os.path.basename(parsed.filename)
        self.select_kernel = select_kernel
        self.tables = Tables()
        self.file_edits: list[edits.Edit] = []
        self.shared_vars: dict[str, Variable] = {}
        self.device_names: set[str] = set()
        self.device_usrs: set[str] = set()
        self.macros: list[tuple[int, int]] = []
        self._warned: set[tuple[int, str]] = set()

    # -- helpers -----------------------------------------------------------

    def in_main(self, c: ci.Cursor) -> bool:
        f = c.location.file
        return f is not None and f.name == self.main

    @functools.cached_property
    def top_level(self) -> list[ci.Cursor]:
        """The translation unit's top-level cursors that lie in the main file.

        Computed once: most top-level cursors come from system headers, and
        asking libclang whether a location is in the main file is much
        cheaper than building its file name.
        """
        return [c for c in self.parsed.tu.cursor.get_children() if in_main_file(c.location)]

    def text(self, c: ci.Cursor) -> str:
        return self.src[c.extent.start.offset : c.extent.end.offset].decode(errors="replace")

    def warn(self, c: ci.Cursor, code: str, message: str) -> None:
        key = (c.extent.start.offset, code)
        if key in self._warned:
            return
        self._warned.add(key)
        loc = c.location
        self.tables.warnings.append(Warning(self.display, loc.line, loc.column, code, message))

    def site(self, c: ci.Cursor, action: str, function: str) -> int:
        expr = " ".join(self.text(c).split())
        if len(expr) > 60:
            expr = expr[:57] + "..."
        site = Site(
            len(self.tables.sites), self.display, c.location.line, c.location.column,
            action, function, expr,
        )  # fmt: skip
        self.tables.sites.append(site)
        return site.id

    def _tokens(self, c: ci.Cursor) -> list[ci.Token]:
        """Tokens of c's extent in the main file (Cursor.get_tokens misses extents that
        begin with a macro such as __device__)."""
        tu, f = self.parsed.tu, self.parsed.tu.get_file(self.main)
        span = ci.SourceRange.from_locations(
            ci.SourceLocation.from_offset(tu, f, c.extent.start.offset),
            ci.SourceLocation.from_offset(tu, f, c.extent.end.offset),
        )
        return list(tu.get_tokens(extent=span))

    @staticmethod
    def params(fn: ci.Cursor) -> list[ci.Cursor]:
        """Parameters of a function or function template."""
        return [c for c in fn.get_children() if c.kind == K.PARM_DECL]

    # -- discovery -----------------------------------------------------------

    def functions(self) -> Iterator[ci.Cursor]:
        """Function definitions of the main file, including methods defined in classes."""
        stack = list(self.top_level)
        while stack:
            c = stack.pop(0)
            if not self.in_main(c):
                continue
            if c.kind in FUNCTIONS and c.is_definition():
                yield c
            elif c.kind in {K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE,
                            K.UNEXPOSED_DECL, K.LINKAGE_SPEC}:  # fmt: skip
                stack[0:0] = list(c.get_children())

    def main_cursors(self) -> Iterator[ci.Cursor]:
        """Every cursor inside the main file's top-level declarations, in order.

        Walking only these, not the whole translation unit, keeps system
        headers (tens of thousands of cursors) out of every search.
        """
        for top in self.top_level:
            yield from top.walk_preorder()

    def collect_macros(self) -> None:
        for c in self.top_level:
            if c.kind == K.MACRO_INSTANTIATION:
                self.macros.append((c.extent.start.offset, c.extent.end.offset))

    def inside_macro(self, c: ci.Cursor) -> bool:
        s, e = c.extent.start.offset, c.extent.end.offset
        return any(ms <= s and e <= me for ms, me in self.macros)

    def collect_shared_and_globals(self, kernel_names: set[str]) -> None:
        """Variables of the translation unit: __shared__ (with frame offsets), __device__.

        A block's shadow frame holds, in order: the file-scope and device-function
        __shared__ variables (the same offsets in every kernel), then the
        kernel's own __shared__ variables (kernels never share a launch, so
        their locals overlap), then dynamic shared memory, whose offset is past
        the largest kernel's locals so one constant serves every kernel.
        """
        common: list[tuple[ci.Cursor, str]] = []
        local: dict[str, list[ci.Cursor]] = {}
        dynamic: list[ci.Cursor] = []
        for c in self.main_cursors():
            if c.kind != K.VAR_DECL:
                continue
            attrs = _attrs(c)
            function = self.enclosing_function(c)
            if K.CUDASHARED_ATTR in attrs:
                if _canonical_kind(c.type) == T.INCOMPLETEARRAY:
                    dynamic.append(c)
                elif c.type.get_size() <= 0:
                    self.warn(
                        c,
                        "shared-size",
                        f"__shared__ variable '{c.spelling}' has no "
                        "fixed size (template-dependent?); its accesses are not monitored",
                    )
                elif function in kernel_names:
                    local.setdefault(function, []).append(c)
                else:
                    common.append((c, function))
            elif K.CUDADEVICE_ATTR in attrs and not function:
                size = c.type.get_size()
                self.variable(c.spelling, "global", "device", "", gran_log2(c.type),
                              max(size, 0), 0, c.location.line)  # fmt: skip
        offset = self.place_shared([c for c, _ in common], 0)
        self.common_shared_units = offset
        self.kernel_shared_units = {k: self.place_shared(cs, offset) for k, cs in local.items()}
        self.tables.dynamic_shared_offset = max([offset, *self.kernel_shared_units.values()])
        if dynamic:
            g = min(gran_log2(c.type) for c in dynamic)
            self.tables.dynamic_shared_gran_log2 = g
            for c in dynamic:
                function = self.enclosing_function(c)
                var = self.variable(
                    c.spelling,
                    "shared",
                    "dynamic_shared",
                    function,
                    g,
                    0,
                    self.tables.dynamic_shared_offset,
                    c.location.line,
                )
                self.shared_vars[c.get_usr() or f"{c.spelling}@{c.location.offset}"] = var

    def place_shared(self, cursors: list[ci.Cursor], offset: int) -> int:
        """Give each static __shared__ variable a frame offset from `offset`; return the end."""
        for c in cursors:
            size, g = c.type.get_size(), gran_log2(c.type)
            var = self.variable(c.spelling, "shared", "shared", self.enclosing_function(c), g,
                                size, offset, c.location.line)  # fmt: skip
            self.shared_vars[c.get_usr() or f"{c.spelling}@{c.location.offset}"] = var
            offset += -(-size >> g)
        return offset

    @staticmethod
    def enclosing_function(c: ci.Cursor) -> str:
        """Name of the function a declaration is written in ('' at file scope).

        The lexical parent, not the semantic one: a block-scope `extern`
        declaration belongs to the enclosing namespace semantically.
        """
        p = c.lexical_parent
        while p is not None and p.kind not in FUNCTIONS and p.kind != K.TRANSLATION_UNIT:
            p = p.lexical_parent
        return p.spelling if p is not None and p.kind in FUNCTIONS else ""

    def variable(self, name: str, space: str, kind: str, function: str, g: int, size: int,
                 offset: int, line: int) -> Variable:  # fmt: skip
        v = Variable(len(self.tables.variables), name, space, kind, function, g, size, offset, line)
        self.tables.variables.append(v)
        return v

    # -- classification ----------------------------------------------------

    def memory(self, c: ci.Cursor, method: bool) -> bool:
        """Whether lvalue expression `c` may refer to global or shared memory."""
        k = c.kind
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = _children(c)
            if not kids:
                return False
            base = _strip(kids[0])
            if _canonical_kind(base.type) in ARRAYS:
                return self.memory(base, method)
            return True
        if k == K.UNARY_OPERATOR:
            return unary_operator(c) == "*"
        if k == K.MEMBER_REF_EXPR:
            ref = c.referenced
            if ref is not None and ref.kind in {K.CXX_METHOD, K.FUNCTION_TEMPLATE}:
                return False
            kids = _children(c)
            if not kids:
                return method
            base = _strip(kids[0])
            if base.kind == K.CXX_THIS_EXPR or _canonical_kind(base.type) == T.POINTER:
                return True
            return self.memory(base, method)
        if k == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is None:
                return False
            if ref.kind == K.VAR_DECL:
                if ref.location.file is None or ref.location.file.name.endswith(PRELUDE):
                    return False
                attrs = _attrs(ref)
                if K.CUDASHARED_ATTR in attrs:
                    return True
                if K.CUDACONSTANT_ATTR in attrs:
                    return False
                if (K.CUDADEVICE_ATTR in attrs) and ref.semantic_parent.kind not in FUNCTIONS:
                    return True
                return _canonical_kind(ref.type) in REFERENCES
            if ref.kind == K.PARM_DECL:
                return _canonical_kind(ref.type) in REFERENCES
        if k == K.CALL_EXPR:
            # A call of this file's own function, lambda or operator that returns
            # a reference is an lvalue that may name memory: `at(i) = v`, `v[i]`.
            ref = c.referenced
            return (
                ref is not None
                and ref.kind in FUNCTIONS
                and self.in_main(ref)
                and _canonical_kind(ref.result_type) in REFERENCES
            )
        return False

    def context(self, e: ci.Cursor, parents: list[ci.Cursor], fn: ci.Cursor) -> str | None:
        """How memory lvalue `e` is used: 'R', 'W', 'RW', or None (not accessed)."""
        if _canonical_kind(e.type) in ARRAYS:
            return None
        child, i = e, len(parents) - 1
        while i >= 0 and parents[i].kind in TRANSPARENT:
            child, i = parents[i], i - 1
        if i < 0:
            return "R"
        p = parents[i]
        kids = _children(p)
        first = bool(kids) and kids[0] == child
        kind = p.kind
        if kind == K.CONDITIONAL_OPERATOR and not first:
            # An arm of `c ? x : y`: when no implicit conversion separates it from the
            # conditional (both arms lvalues), the conditional is the same lvalue and
            # its use decides, e.g. `(c ? a[i] : b[i]) = v` writes.
            converted = any(q.kind == K.UNEXPOSED_EXPR for q in parents[i + 1 :])
            return "R" if converted else self.context(p, parents[:i], fn)
        if kind == K.BINARY_OPERATOR:
            op = binary_operator(p)
            if op == "=":
                return "W" if first else "R"
            if op == "," and first:
                return None
            return "R"
        if kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return "RW" if first else "R"
        if kind == K.UNARY_OPERATOR:
            op = unary_operator(p)
            if op == "&":
                return None
            return "RW" if op in ("++", "--") else "R"
        if kind == K.MEMBER_REF_EXPR:
            return "R" if _canonical_kind(e.type) == T.POINTER else None
        if kind == K.CALL_EXPR:
            return self.argument_context(p, child)
        if kind == K.VAR_DECL:
            return None if _canonical_kind(p.type) in REFERENCES else "R"
        if kind == K.RETURN_STMT:
            # Returning a reference binds it: the caller's use of the call is the
            # access (calls returning references are memory lvalues themselves).
            lam = next((q for q in reversed(parents) if q.kind == K.LAMBDA_EXPR), None)
            if lam is not None:
                return None if self.lambda_returns_reference(lam) else "R"
            return None if _canonical_kind(fn.result_type) in REFERENCES else "R"
        if kind == K.LAMBDA_EXPR:
            # An init-capture: `[v = a[i]]` copies (a read), `[&r = a[i]]` binds.
            return None if self.binds_reference(p, child) else "R"
        if kind in CASTS:
            return None if _canonical_kind(p.type) in REFERENCES else "R"
        if kind in {K.CXX_UNARY_EXPR, K.COMPOUND_STMT, K.CXX_FOR_RANGE_STMT}:
            return None
        return "R"

    def lambda_returns_reference(self, lam: ci.Cursor) -> bool:
        """Whether a lambda's trailing return type (`-> T&`) is a reference.

        Without one the return type is deduced as by `auto`, which never is.
        """
        body = next((k for k in _children(lam) if k.kind == K.COMPOUND_STMT), None)
        limit = body.extent.start.offset if body is not None else lam.extent.end.offset
        head = [t.spelling for t in self._tokens(lam) if t.extent.start.offset < limit]
        if "->" not in head:
            return False
        tail = head[len(head) - 1 - head[::-1].index("->") + 1 :]
        return bool(tail) and tail[-1] in ("&", "&&")

    def binds_reference(self, lam: ci.Cursor, init: ci.Cursor) -> bool:
        """Whether an init-capture is by reference: `&name = init`."""
        before = [t.spelling for t in self._tokens(lam)
                  if t.extent.end.offset <= init.extent.start.offset]  # fmt: skip
        return len(before) >= 3 and before[-1] == "=" and before[-3] == "&"

    def argument_context(self, call: ci.Cursor, child: ci.Cursor) -> str | None:
        args = list(call.get_arguments())
        index = next((n for n, a in enumerate(args) if a == child), None)
        if index is None:
            return "R"
        ref = call.referenced
        if ref is None:
            return "R"
        name = ref.spelling
        if ref.kind == K.CXX_METHOD and name.startswith("operator") and name.endswith("="):
            if index == 0 and name not in ("operator==", "operator!=", "operator<=",
                                           "operator>="):  # fmt: skip
                return "W" if name == "operator=" else "RW"
            return "R"
        if ref.kind == K.CONSTRUCTOR:
            return "R"
        params = list(ref.get_arguments())
        if index < len(params) and _canonical_kind(params[index].type) in REFERENCES:
            if self.instrumented_callee(call):
                return None
            pointee = params[index].type.get_canonical().get_pointee()
            if pointee.is_const_qualified():
                return "R"
            self.warn(
                child,
                "reference-argument",
                f"memory passed by reference to "
                f"uninstrumented '{name}'; accesses inside it are not tracked",
            )
            return None
        return "R"

    def instrumented_callee(self, call: ci.Cursor) -> bool:
        ref = call.referenced
        if ref is not None:
            return self.in_main(ref) and (
                ref.get_usr() in self.device_usrs or ref.spelling in self.device_names
            )
        return self.callee_name(call) in self.device_names

    @staticmethod
    def callee_name(call: ci.Cursor) -> str:
        """The called name; for a dependent call with explicit template arguments
        (`f<T>(x)` in a template) libclang leaves the call unnamed and keeps the
        name in an OVERLOADED_DECL_REF under the callee expression."""
        if call.spelling:
            return call.spelling
        kids = _children(call)
        if kids:
            for c in _children(_strip(kids[0])):
                if c.kind == K.OVERLOADED_DECL_REF:
                    return c.spelling
        return ""

    # -- rewriting -----------------------------------------------------------

    def plan_function(self, fn: ci.Cursor, kernel: bool) -> FunctionPlan:
        plan = FunctionPlan(fn, kernel)
        method = fn.kind == K.CXX_METHOD or (
            fn.semantic_parent is not None and fn.semantic_parent.kind in
            {K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE})  # fmt: skip
        body = next((c for c in fn.get_children() if c.kind == K.COMPOUND_STMT), None)
        if body is None:
            return plan
        if kernel:
            prologue = f" hirace::Thread {CTX};" + "".join(
                self.registration(v, v.name)
                for v in self.tables.variables
                if v.space == "shared" and not v.function and v.line < fn.location.line
            )
            plan.edits.append(edits.insert(body.extent.start.offset + 1, prologue))
        stack: list[tuple[ci.Cursor, list[ci.Cursor]]] = [(body, [])]
        while stack:
            c, parents = stack.pop()
            self.visit(c, parents, fn, method, plan)
            kids = _children(c)
            stack.extend((k, [*parents, c]) for k in reversed(kids))
        return plan

    def registration(self, var: Variable, name: str) -> str:
        # The casts drop volatile (a `volatile __shared__` variable's address does
        # not convert to `const void*` implicitly).
        if var.kind == "dynamic_shared":
            return (f" {CTX}.add_dynamic_shared({var.id}, (const void*){name}, "
                    f"{var.frame_offset}u);")  # fmt: skip
        return (f" {CTX}.add_shared({var.id}, (const void*)&{name}, sizeof({name}), "
                f"{var.frame_offset}u, {var.gran_log2}u);")  # fmt: skip

    def visit(self, c: ci.Cursor, parents: list[ci.Cursor], fn: ci.Cursor, method: bool,
              plan: FunctionPlan) -> None:  # fmt: skip
        name = fn.spelling
        if c.kind in {K.ASM_STMT, K.MS_ASM_STMT}:
            self.warn(
                c, "asm", "inline assembly is not instrumented; memory it touches is not tracked"
            )
            return
        if c.kind == K.DECL_STMT:
            for var in c.get_children():
                if var.kind == K.VAR_DECL and K.CUDASHARED_ATTR in _attrs(var):
                    v = self.shared_vars.get(
                        var.get_usr() or f"{var.spelling}@{var.location.offset}"
                    )
                    if v is not None:
                        end = self.statement_end(c)
                        plan.edits.append(edits.insert(end, self.registration(v, var.spelling)))
            return
        if c.kind == K.LAMBDA_EXPR:
            capture = self.lambda_capture(c)
            if capture is not None:
                plan.edits.append(capture)
        if c.kind == K.CALL_EXPR:
            self.visit_call(c, name, plan)
        if c.kind in {K.ARRAY_SUBSCRIPT_EXPR, K.UNARY_OPERATOR, K.MEMBER_REF_EXPR,
                      K.DECL_REF_EXPR, K.CALL_EXPR} and self.memory(c, method):  # fmt: skip
            action = self.context(c, parents, fn)
            if action is None:
                return
            loop = self.range_for_loop(parents)
            if loop is not None:
                kids = _children(loop)
                if len(kids) > 1 and self.memory(_strip(kids[1]), method):
                    self.warn(
                        c,
                        "range-for",
                        "elements copied into a range-based for loop's variable are "
                        "read implicitly (no source text to wrap) and are not tracked",
                    )
                return
            if self.unwrappable(c, parents):
                self.warn(
                    c,
                    "macro",
                    f"access '{self.text(c) or c.spelling}' is part of a "
                    "macro expansion and is not instrumented",
                )
                return
            if (
                c.kind == K.MEMBER_REF_EXPR
                and c.referenced is not None
                and c.referenced.kind == K.FIELD_DECL
                and c.referenced.is_bitfield()
            ):
                self.warn(c, "bitfield", "bit-field access is not instrumented")
                return
            s, e = c.extent.start.offset, c.extent.end.offset
            if action == "RW":
                r, w = self.site(c, "R", name), self.site(c, "W", name)
                plan.edits.append(edits.wrap(s, e, f"(*hirace::rw({CTX}, &(", f"), {r}u, {w}u))"))
            else:
                fn_name = "rd" if action == "R" else "wr"
                site = self.site(c, action, name)
                plan.edits.append(
                    edits.wrap(s, e, f"(*hirace::{fn_name}({CTX}, &(", f"), {site}u))")
                )

    @staticmethod
    def range_for_loop(parents: list[ci.Cursor]) -> ci.Cursor | None:
        """The range-for loop when the expression is its implicit `*__begin`, which
        initialises the loop variable and has no source text of its own."""
        i = len(parents) - 1
        while i >= 0 and parents[i].kind in TRANSPARENT:
            i -= 1
        if (
            i >= 1
            and parents[i].kind == K.VAR_DECL
            and parents[i - 1].kind == K.CXX_FOR_RANGE_STMT
            and _children(parents[i - 1])[0] == parents[i]
        ):
            return parents[i - 1]
        return None

    def lambda_capture(self, lam: ci.Cursor) -> edits.Edit | None:
        """Capture the thread context by reference in a lambda, whose body's accesses
        and calls use it (by reference, so that barriers in the body advance the
        thread's clocks); a lambda whose capture default is `&` already does."""
        tokens = self._tokens(lam)
        if not tokens or tokens[0].spelling != "[":
            return None
        depth, close = 0, None
        for n, t in enumerate(tokens):
            if t.spelling in ("[", "(", "{"):
                depth += 1
            elif t.spelling in ("]", ")", "}"):
                depth -= 1
                if depth == 0:
                    close = n
                    break
        if close is None:
            return None
        inner = [t.spelling for t in tokens[1:close]]
        if inner[:1] == ["&"] and (len(inner) == 1 or inner[1] == ","):
            return None
        if not inner:
            return edits.insert(tokens[0].extent.end.offset, f"&{CTX}")
        return edits.insert(tokens[close].extent.start.offset, f", &{CTX}")

    def unwrappable(self, c: ci.Cursor, parents: list[ci.Cursor]) -> bool:
        """True when c's text is not exactly its own expression (a macro expansion part)."""
        s, e = c.extent.start.offset, c.extent.end.offset
        if s >= e:
            return True
        for p in reversed(parents):
            if p.kind in TRANSPARENT or self.implicit_construction(p):
                continue
            ps, pe = p.extent.start.offset, p.extent.end.offset
            return (ps, pe) == (s, e)
        return False

    @staticmethod
    def implicit_construction(c: ci.Cursor) -> bool:
        """A constructor call spelled only by its argument (copy-initialisation)."""
        if c.kind != K.CALL_EXPR or c.referenced is None or c.referenced.kind != K.CONSTRUCTOR:
            return False
        args = list(c.get_arguments())
        return (
            len(args) == 1
            and args[0].extent.start.offset == c.extent.start.offset
            and args[0].extent.end.offset == c.extent.end.offset
        )

    def statement_end(self, c: ci.Cursor) -> int:
        """Offset just past the ';' ending declaration statement c."""
        end = c.extent.end.offset
        if self.src[end - 1 : end] == b";":
            return end
        semi = self.src.find(b";", end)
        return semi + 1 if semi >= 0 else end

    @staticmethod
    def explicit_arguments(call: ci.Cursor) -> list[ci.Cursor]:
        """Arguments written in the call (default arguments have no extent)."""
        return [a for a in call.get_arguments()
                if a.extent.start.offset < a.extent.end.offset and
                a.extent.start.offset > call.extent.start.offset]  # fmt: skip

    def macro_body(self, c: ci.Cursor) -> bool:
        """Whether c is spelled in a macro's body (its extent is the macro's use), as
        opposed to written in the file, possibly as a macro argument."""
        s, e = c.extent.start.offset, c.extent.end.offset
        return any(ms == s and e <= me for ms, me in self.macros)

    def call_paren(self, call: ci.Cursor) -> int | None:
        """Offset just past the '(' that opens a call's argument list; None when the
        call is spelled in a macro's body (no '(' of its own to insert after)."""
        if self.macro_body(call):
            return None
        args = self.explicit_arguments(call)
        tokens = self._tokens(call)
        if args and args[0].extent.start.offset > call.extent.start.offset:
            limit = args[0].extent.start.offset
            opens = [t for t in tokens if t.spelling == "(" and t.extent.start.offset < limit]
            return opens[-1].extent.end.offset if opens else None
        closes = [t for t in tokens if t.spelling == ")"]
        opens = [
            t
            for t in tokens
            if t.spelling == "("
            and (not closes or t.extent.start.offset < closes[-1].extent.start.offset)
        ]
        return opens[-1].extent.end.offset if opens else None

    def add_context_argument(self, c: ci.Cursor, callee: str, plan: FunctionPlan) -> bool:
        """Insert the thread context as a call's first argument; warn when the call is
        part of a macro expansion and cannot be rewritten."""
        paren = self.call_paren(c)
        if paren is None:
            self.warn(
                c,
                "macro",
                f"call of '{callee}' is part of a macro expansion and is not "
                "instrumented (it runs the uninstrumented code)",
            )
            return False
        args = self.explicit_arguments(c)
        text = CTX + (", " if args else "")
        # A call in a macro argument the macro expands twice is visited twice.
        if not any(e.start == e.end == paren and e.prefix == text for e in plan.edits):
            plan.edits.append(edits.insert(paren, text))
        return True

    def visit_call(self, c: ci.Cursor, function: str, plan: FunctionPlan) -> None:
        callee = self.callee_name(c)
        ref = c.referenced
        from_prelude = (
            ref is not None
            and ref.location.file is not None
            and ref.location.file.name.endswith(PRELUDE)
        )
        args = self.explicit_arguments(c)
        s, e = c.extent.start.offset, c.extent.end.offset
        if from_prelude or (ref is None and (callee in ATOMICS or callee in LOADS | STORES)):
            memory_call = callee in ATOMICS or callee in LOADS | STORES
            if memory_call and (not args or self.macro_body(c)):
                # Its address argument is spelled in a macro's body.
                self.warn(
                    c,
                    "macro",
                    f"'{callee}' is part of a macro expansion and is not instrumented; "
                    "the memory it accesses is not tracked",
                )
                return
            if callee in ATOMICS and args:
                site = self.site(args[0], ATOMICS[callee], function)
                action = "kBlockAtomic" if ATOMICS[callee] == "BA" else "kDeviceAtomic"
                a0 = args[0]
                plan.edits.append(
                    edits.wrap(
                        a0.extent.start.offset,
                        a0.extent.end.offset,
                        f"hirace::atom({CTX}, ",
                        f", {site}u, hirace::{action})",
                    )
                )
            elif callee in LOADS | STORES and args:
                action = "R" if callee in LOADS else "W"
                site = self.site(args[0], action, function)
                a0 = args[0]
                plan.edits.append(
                    edits.wrap(
                        a0.extent.start.offset,
                        a0.extent.end.offset,
                        f"hirace::{'rd' if action == 'R' else 'wr'}({CTX}, ",
                        f", {site}u)",
                    )
                )
            elif callee == "__syncthreads":
                plan.edits.append(edits.wrap(s, e, "(", f", {CTX}.block_barrier())"))
            elif callee in VALUE_BARRIERS:
                plan.edits.append(edits.wrap(s, e, f"{CTX}.block_barrier(", ")"))
            elif callee == "__syncwarp":
                if self.add_context_argument(c, callee, plan) and not any(
                    e.replace is not None and e.start == s for e in plan.edits
                ):
                    plan.edits.append(edits.replace(s, s + len(callee), "hirace::syncwarp"))
            elif callee in UNTRACKED_CALLS:
                self.warn(
                    c,
                    "untracked-call",
                    f"'{callee}' in device code is not instrumented; "
                    "the memory it copies or sets is not tracked",
                )
            return
        if self.instrumented_callee(c):
            self.add_context_argument(c, callee, plan)
            return
        if ref is not None and ref.kind in FUNCTIONS | {K.CONSTRUCTOR} and not self.in_main(ref):
            f = ref.location.file
            if f is not None and not self.system_file(f.name):
                self.warn(
                    c,
                    "uninstrumented-call",
                    f"'{callee}' is defined in "
                    f"{os.path.basename(f.name)}, outside the instrumented file; "
                    "its memory accesses are not tracked",
                )

    @staticmethod
    def system_file(name: str) -> bool:
        return name.startswith(("/usr/", "/opt/")) or name.endswith(PRELUDE)

    # -- device function copies ------------------------------------------------

    def signature_edits(self, fn: ci.Cursor) -> list[edits.Edit] | None:
        """Edits turning fn's text into the instrumented overload's signature."""
        tokens = self._tokens(fn)
        name_at = fn.location.offset
        paren = next(
            (t for t in tokens if t.spelling == "(" and t.extent.start.offset > name_at), None
        )
        if paren is None:
            return None
        out = []
        has_params = bool(self.params(fn))
        after = paren.extent.end.offset
        out.append(edits.insert(after, f"hirace::Thread& {CTX}" + (", " if has_params else "")))
        if not has_params:
            nxt = next((t for t in tokens if t.extent.start.offset >= after), None)
            if nxt is not None and nxt.spelling == "void":
                out.append(edits.replace(nxt.extent.start.offset, nxt.extent.end.offset, ""))
        for t in tokens:
            if t.extent.start.offset >= name_at:
                break
            if t.spelling in ("__host__", "constexpr"):
                out.append(edits.replace(t.extent.start.offset, t.extent.end.offset, ""))
        return out

    def emit_copy(self, plan: FunctionPlan) -> None:
        fn = plan.cursor
        sig = self.signature_edits(fn)
        if sig is None:
            self.warn(
                fn,
                "signature",
                f"cannot find the parameter list of '{fn.spelling}'; it is not instrumented",
            )
            return
        s, e = fn.extent.start.offset, fn.extent.end.offset
        try:
            body = edits.apply(self.src[s:e], plan.edits + sig, base=s).decode()
        except edits.EditConflict as exc:
            self.warn(fn, "edit-conflict", f"'{fn.spelling}' not instrumented: {exc}")
            return
        start_line, end_line = fn.extent.start.line, fn.extent.end.line
        text = (f'\n#line {start_line} "{self.display}"\n{body}\n'
                f'#line {end_line} "{self.display}"\n')  # fmt: skip
        self.file_edits.append(edits.insert(e, text))
        for decl in self.declarations(fn):
            self.emit_declaration_copy(decl)

    def declarations(self, fn: ci.Cursor) -> Iterator[ci.Cursor]:
        usr = fn.get_usr()
        for c in self.main_cursors():
            if (
                c.kind in FUNCTIONS
                and not c.is_definition()
                and self.in_main(c)
                and c.get_usr() == usr
            ):
                yield c

    def emit_declaration_copy(self, decl: ci.Cursor) -> None:
        sig = self.signature_edits(decl)
        if sig is None:
            return
        s = decl.extent.start.offset
        end = self.statement_end(decl)
        text = edits.apply(self.src[s:end], sig, base=s).decode()
        self.file_edits.append(edits.insert(end, " " + text))

    # -- driver ----------------------------------------------------------------

    def run(self) -> None:
        self.collect_macros()
        functions = list(self.functions())
        kernels = [f for f in functions if K.CUDAGLOBAL_ATTR in _attrs(f)]
        self.collect_shared_and_globals({k.spelling for k in kernels})
        devices = [
            f
            for f in functions
            if K.CUDADEVICE_ATTR in _attrs(f) and K.CUDAGLOBAL_ATTR not in _attrs(f)
        ]
        for f in devices:
            if f.spelling.startswith("operator"):
                self.warn(
                    f,
                    "operator",
                    f"device '{f.spelling}' is not instrumented; memory "
                    "accesses in its body are not tracked",
                )
                continue
            self.device_names.add(f.spelling)
            self.device_usrs.add(f.get_usr())
        for f in functions:
            if f.kind == K.CONSTRUCTOR or f.kind == K.DESTRUCTOR:
                self.warn(
                    f,
                    "constructor",
                    f"device constructor or destructor '{f.spelling}' is not instrumented",
                )
        for k in kernels:
            params = []
            for p in k.get_arguments():
                pointer = _canonical_kind(p.type) == T.POINTER
                var = None
                if pointer:
                    g = gran_log2(p.type.get_canonical().get_pointee())
                    var = self.variable(
                        p.spelling, "global", "param", k.spelling, g, 0, 0, p.location.line
                    ).id
                params.append(Param(p.spelling, p.type.spelling, pointer, var))
            units = self.kernel_shared_units.get(k.spelling, self.common_shared_units)
            self.tables.kernels.append(Kernel(k.spelling, k.location.line, tuple(params), units))
            if self.select_kernel(k.spelling):
                self.file_edits.extend(self.plan_function(k, kernel=True).edits)
        for f in devices:
            if f.spelling in self.device_names:
                self.emit_copy(self.plan_function(f, kernel=False))
