"""Plan the rewrite: find every memory access, barrier and atomic in device code.

The planner walks each kernel and `__device__` function defined in the user
files of a translation unit (the source and the headers it reaches, see
hirace_py.instrument.files) and produces textual edits
(hirace_py.instrument.edits) for each file:

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
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import clang.cindex as ci

from hirace_py import cuda_api, shadow, source_text
from hirace_py.cuda_api import atomic_scopes
from hirace_py.instrument import edits, groups, libcu
from hirace_py.instrument.files import (
    FRAME_DYNAMIC,
    FRAME_LOCALS,
    PRELUDE,
    SourceFile,
    is_system,
    quote,
    tag_of,
)
from hirace_py.instrument.model import Kernel, Param, Site, Tables, Variable, Warning
from hirace_py.instrument.parse import (
    DependentMember,
    Parsed,
    attributes,
    binary_operator,
    children,
    dependent_functor,
    dependent_member,
    in_system_header,
    overloaded_reference,
    stripped,
    unary_operator,
)
from hirace_py.instrument.records import record_of

K = ci.CursorKind
T = ci.TypeKind
CTX = "__hr_t"
CALL_OPERATOR = "operator()"

TRANSPARENT = {K.UNEXPOSED_EXPR, K.PAREN_EXPR}
FUNCTIONS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD}
# Everything with a body a block-scope declaration can be written in.
BODIES = FUNCTIONS | {K.CONVERSION_FUNCTION, K.CONSTRUCTOR, K.DESTRUCTOR}
ARRAYS = {T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY}
STATIC_SHARED_LIMIT = 48 * 1024
"""Bytes of static __shared__ memory a block may declare (every CUDA GPU)."""
REFERENCES = {T.LVALUEREFERENCE, T.RVALUEREFERENCE}
CASTS = {
    K.CSTYLE_CAST_EXPR,
    K.CXX_STATIC_CAST_EXPR,
    K.CXX_REINTERPRET_CAST_EXPR,
    K.CXX_CONST_CAST_EXPR,
    K.CXX_FUNCTIONAL_CAST_EXPR,
}

# Classification of CUDA's built-ins, from the catalogue (hirace_py/cuda_api.toml).
ATOMICS = {name: ("BA" if scope == "block" else "GA") for name, scope in atomic_scopes().items()}
LIBCU_ACTIONS = {
    "BA": "kBlockAtomic", "GA": "kDeviceAtomic", "BL": "kBlockLoad", "GL": "kDeviceLoad",
}  # fmt: skip
"""The runtime's enumerator of each action a libcu++ atomic operation makes."""
LOADS = cuda_api.names("load")
STORES = cuda_api.names("store")
BARRIERS = cuda_api.names("barrier")
VALUE_BARRIERS = cuda_api.names("value_barrier")
WARP_BARRIERS = cuda_api.names("warp_barrier")
UNTRACKED_CALLS = cuda_api.names("untracked_memory")
FENCES = cuda_api.names("fence")
NUMBER_HEADER_FILES = cuda_api.number_header_files()
"""Files of the number headers (cuda_fp16.hpp, ...), whose calls the catalogue classifies."""
DEVICE_FENCES = frozenset({"__threadfence", "__threadfence_system"})
# Compiler built-ins that read or write memory the instrumentation cannot see into.
UNTRACKED_BUILTINS = {"__builtin_memcpy", "__builtin_memset", "__builtin_memmove",
                      "__builtin_memcmp", "__builtin_strcpy", "__builtin_strncpy"}  # fmt: skip


def _canonical_kind(t: ci.Type) -> T:
    return t.get_canonical().kind


def gran_log2(t: ci.Type) -> int:
    """log2 of the smallest scalar in a type: the bytes one shadow word covers."""
    t = t.get_canonical()
    if t.kind in ARRAYS:
        return gran_log2(t.element_type)
    if t.kind == T.RECORD:
        # Fields of base classes count too (a cuda::atomic<int> keeps its int
        # in a base class).
        decl = t.get_declaration()
        bases = [b.type for b in decl.get_children() if b.kind == K.CXX_BASE_SPECIFIER]
        sizes = [gran_log2(f.type) for f in t.get_fields()]
        sizes += [gran_log2(b) for b in bases if b.get_size() > 0]
        return min(sizes) if sizes else 0
    size = t.get_size()
    if size <= 0:
        return 0
    return min(max(size.bit_length() - 1, 0), shadow.MAX_GRAN_LOG2)


_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def balanced_conditionals(text: str) -> str:
    """`text` (a function's copied extent) with each #endif, #else or #elif that
    closes an #if outside it blanked, and an #endif added for each #if it leaves
    open: the extent of `#ifdef X` / `__host__ __device__` / `#endif` / `f(...)`
    starts inside the conditional. Blanked lines keep the line count."""
    lines = text.split("\n")
    depth = 0
    for n, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if m is None:
            continue
        word = m.group(1)
        if word in ("if", "ifdef", "ifndef"):
            depth += 1
        elif depth == 0:
            lines[n] = ""
        elif word == "endif":
            depth -= 1
    return "\n".join(lines) + "\n#endif" * depth


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
        self.main = parsed.filename
        self.main_file = SourceFile(parsed.filename, os.path.realpath(parsed.filename),
                                    parsed.source, "")  # fmt: skip
        self.files: dict[str, SourceFile] = {parsed.filename: self.main_file}
        """User files by libclang's name, in the order the unit reaches them."""
        self._not_user: set[str] = set()
        self.select_kernel = select_kernel
        self.tables = Tables()
        self.shared_vars: dict[str, tuple[Variable, SourceFile]] = {}
        self.dependent_offsets: dict[str, str] = {}
        """Key of a template-dependent __shared__ variable -> the C++ sum of the
        shadow words of the kernel's dependent variables before it."""
        self.device_names: set[str] = set()
        self.device_usrs: set[str] = set()
        self._warned: set[tuple[str, int, str]] = set()
        # Which file numbers each site, variable and kernel (ids are numbered
        # within a file until `finish` makes them the unit's).
        self._site_files: list[SourceFile] = []
        self._variable_files: list[SourceFile] = []
        self._kernel_files: list[SourceFile] = []
        self._counts: dict[tuple[str, str], int] = {}
        self.frame_bases: dict[str, int] = {}
        self.site_bases: dict[str, int] = {}
        self.variable_bases: dict[str, int] = {}
        self.positions: dict[str, tuple[int, int]] = {}
        """Where variables and functions are declared in the unit: (top-level index, offset)."""
        self.tile_widths: set[int | None] = set()
        """Widths of the tiles the device code partitions groups into (None: not a constant)."""
        self.warp_barrier_widths: set[int | None] = set()
        """Widths of the warp-level barriers it calls (groups.group_log2)."""
        self.member_callers: set[str] = set()
        """Member names called through a dependent object (`call_member`)."""

    # -- helpers -----------------------------------------------------------

    def user_file(self, name: str) -> SourceFile | None:
        """The user file libclang calls `name`, or None for a system header."""
        found = self.files.get(name)
        if found is not None or name in self._not_user:
            return found
        if is_system(name, self.parsed.stub_dir) or self._system_header(name):
            self._not_user.add(name)
            return None
        path = os.path.realpath(name)
        data = self.parsed.unsaved.get(path)
        if data is None:
            try:
                data = Path(path).read_bytes()
            except OSError:
                self._not_user.add(name)
                return None
        found = self.files[name] = SourceFile(name, path, data, tag_of(path))
        return found

    def _system_header(self, name: str) -> bool:
        """Whether libclang found `name` through a system include directory (-isystem)."""
        tu = self.parsed.tu
        try:
            start = ci.SourceLocation.from_position(tu, tu.get_file(name), 1, 1)
        except Exception:  # a file libclang does not know
            return False
        return in_system_header(start)

    def file_of(self, c: ci.Cursor) -> SourceFile | None:
        """The user file a cursor is written in (None outside user files)."""
        f = c.location.file
        return None if f is None else self.user_file(f.name)

    def file(self, c: ci.Cursor) -> SourceFile:
        """The user file of a cursor known to be in one (the main file otherwise)."""
        return self.file_of(c) or self.main_file

    def in_main(self, c: ci.Cursor) -> bool:
        """Whether a cursor is in a user file (the source or a header it reaches)."""
        return self.file_of(c) is not None

    @functools.cached_property
    def top_level(self) -> list[ci.Cursor]:
        """The translation unit's top-level cursors that lie in user files.

        Computed once: most top-level cursors come from system headers, and
        asking libclang whether a location is in one is much cheaper than
        building its file name.
        """
        return [c for c in self.parsed.tu.cursor.get_children()
                if not in_system_header(c.location) and self.file_of(c) is not None]  # fmt: skip

    def text(self, c: ci.Cursor) -> str:
        src = self.file(c).source
        return src[c.extent.start.offset : c.extent.end.offset].decode(errors="replace")

    def warn(self, c: ci.Cursor, code: str, message: str, subject: str = "") -> None:
        f = self.file(c)
        key = (f.name, c.extent.start.offset, code)
        if key in self._warned:
            return
        self._warned.add(key)
        loc = c.location
        self.tables.warnings.append(
            Warning(f.display, loc.line, loc.column, code, message, subject)
        )

    def _number(self, f: SourceFile, kind: str) -> int:
        n = self._counts.get((f.name, kind), 0)
        self._counts[(f.name, kind)] = n + 1
        return n

    def site(self, c: ci.Cursor, action: str, function: str, order: str = "") -> str:
        """Records an access site; returns its id as the C++ its file embeds."""
        f = self.file(c)
        f.instrumented = True
        expr = " ".join(self.text(c).split())
        if len(expr) > 60:
            expr = expr[:57] + "..."
        n = self._number(f, "site")
        site = Site(n, f.display, c.location.line, c.location.column, action, function, expr,
                    order)  # fmt: skip
        self.tables.sites.append(site)
        self._site_files.append(f)
        return f.number("HIRACE_S", n)

    def tokens(self, c: ci.Cursor) -> list[ci.Token]:
        """Tokens of c's extent in its file (Cursor.get_tokens misses extents that
        begin with a macro such as __device__)."""
        tu, f = self.parsed.tu, self.parsed.tu.get_file(self.file(c).name)
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
        """Function definitions of the user files, including methods defined in classes."""
        stack = list(enumerate(self.top_level))
        while stack:
            n, c = stack.pop(0)
            if not self.in_main(c):
                continue
            if c.kind in FUNCTIONS | {K.CONVERSION_FUNCTION} and c.is_definition():
                self.positions[self.key(c)] = (n, c.extent.start.offset)
                yield c
            elif c.kind in {K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE,
                            K.UNEXPOSED_DECL, K.LINKAGE_SPEC}:  # fmt: skip
                stack[0:0] = [(n, k) for k in c.get_children()]

    def main_cursors(self) -> Iterator[ci.Cursor]:
        """Every cursor inside the user files' top-level declarations, in order.

        Walking only these, not the whole translation unit, keeps system
        headers (tens of thousands of cursors) out of every search.
        """
        for top in self.top_level:
            yield from top.walk_preorder()

    def collect_macros(self) -> None:
        for c in self.top_level:
            if c.kind == K.MACRO_INSTANTIATION:
                self.file(c).macros.append((c.extent.start.offset, c.extent.end.offset))

    def inside_macro(self, c: ci.Cursor) -> bool:
        s, e = c.extent.start.offset, c.extent.end.offset
        return any(ms <= s and e <= me for ms, me in self.file(c).macros)

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
        dependent: dict[str, list[ci.Cursor]] = {}
        dynamic: list[ci.Cursor] = []
        for c, position in self.positioned_cursors():
            if c.kind != K.VAR_DECL:
                continue
            self.positions[self.key(c)] = position
            attrs = attributes(c)
            function = self.enclosing_function(c)
            if K.CUDASHARED_ATTR in attrs:
                if _canonical_kind(c.type) == T.INCOMPLETEARRAY:
                    dynamic.append(c)
                elif c.type.get_size() <= 0 and function in kernel_names:
                    dependent.setdefault(function, []).append(c)
                elif c.type.get_size() <= 0:
                    self.warn(
                        c,
                        "shared-size",
                        f"__shared__ variable '{c.spelling}' of a device function has no "
                        "fixed size (template-dependent?); its accesses are not monitored",
                    )
                elif function in kernel_names:
                    local.setdefault(function, []).append(c)
                else:
                    common.append((c, function))
            elif attrs & {K.CUDADEVICE_ATTR, K.CUDACONSTANT_ATTR} and not function:
                # __constant__ ones too: device code only reads them, but it may
                # read through a pointer (`&table[i][0]`), which the runtime
                # looks up like any other address.
                size = c.type.get_size()
                self.variable(self.file(c), c.spelling, "global", "device", "",
                              gran_log2(c.type), max(size, 0), 0, c.location.line)  # fmt: skip
        # Each file's common variables together, so a header's offsets are
        # its own base plus what it alone decides.
        order = {name: n for n, name in enumerate(self.files)}
        common.sort(key=lambda item: order[self.file(item[0]).name])
        offset = 0
        for c, _ in common:
            self.frame_bases.setdefault(self.file(c).name, offset)
            offset = self.place_shared([c], offset)
        self.common_shared_units = offset
        self.kernel_shared_units = {k: self.place_shared(cs, offset) for k, cs in local.items()}
        for k, cs in dependent.items():
            self.kernel_shared_units[k] = self.place_dependent(
                cs, self.kernel_shared_units.get(k, offset))
        self.tables.dynamic_shared_offset = max([offset, *self.kernel_shared_units.values()])
        if dynamic:
            g = min(gran_log2(c.type) for c in dynamic)
            self.tables.dynamic_shared_gran_log2 = g
            for c in dynamic:
                function = self.enclosing_function(c)
                f = self.file(c)
                var = self.variable(
                    f,
                    c.spelling,
                    "shared",
                    "dynamic_shared",
                    function,
                    g,
                    0,
                    self.tables.dynamic_shared_offset,
                    c.location.line,
                )
                self.shared_vars[self.key(c)] = (var, f)

    @staticmethod
    def key(c: ci.Cursor) -> str:
        return c.get_usr() or f"{c.spelling}@{c.location.offset}"

    def positioned_cursors(self) -> Iterator[tuple[ci.Cursor, tuple[int, int]]]:
        """`main_cursors` with their place in the unit: (top-level index, offset)."""
        for n, top in enumerate(self.top_level):
            for c in top.walk_preorder():
                yield c, (n, c.extent.start.offset)

    def place_shared(self, cursors: list[ci.Cursor], offset: int) -> int:
        """Give each static __shared__ variable a frame offset from `offset`; return the end."""
        for c in cursors:
            size, g = c.type.get_size(), gran_log2(c.type)
            f = self.file(c)
            var = self.variable(f, c.spelling, "shared", "shared", self.enclosing_function(c), g,
                                size, offset, c.location.line)  # fmt: skip
            self.shared_vars[self.key(c)] = (var, f)
            offset += -(-size >> g)
        return offset

    def place_dependent(self, cursors: list[ci.Cursor], offset: int) -> int:
        """Place a kernel's __shared__ variables whose size depends on its
        template parameters from `offset`, in declaration order; return the
        end of the frame they may use.

        Their sizes are known only to the C++ compiler, so each one's offset is
        a C++ expression (`dependent_offsets`): `offset` plus the shadow words
        of the ones before it, from the sizes of their spelled types. The frame
        reserves what the largest possible instantiation needs, the static
        __shared__ limit of a block (`STATIC_SHARED_LIMIT`) at the finest
        granularity among them; a registration past the frame is dropped and
        counted (`shared_frame_full`), never written out of bounds.
        """
        g_min = min(gran_log2(c.type) for c in cursors)
        before = ""
        for c in cursors:
            g = gran_log2(c.type)
            f = self.file(c)
            var = self.variable(f, c.spelling, "shared", "shared", self.enclosing_function(c), g,
                                0, offset, c.location.line)  # fmt: skip
            self.shared_vars[self.key(c)] = (var, f)
            self.dependent_offsets[self.key(c)] = before
            before += f" + ((sizeof({c.type.spelling}) + {(1 << g) - 1}u) >> {g}u)"
        return offset + (STATIC_SHARED_LIMIT >> g_min)

    @staticmethod
    def qualified_name(fn: ci.Cursor) -> str:
        """`ns::inner::name` for a function in named namespaces; its name in an
        anonymous one (which no qualified name reaches)."""
        parts = [fn.spelling]
        p = fn.semantic_parent
        while p is not None and p.kind == K.NAMESPACE:
            if not p.spelling:
                return fn.spelling
            parts.append(p.spelling)
            p = p.semantic_parent
        return "::".join(reversed(parts))

    @staticmethod
    def enclosing_function(c: ci.Cursor) -> str:
        """Name of the function a declaration is written in ('' at file scope).

        The lexical parent, not the semantic one: a block-scope `extern`
        declaration belongs to the enclosing namespace semantically.
        """
        p = c.lexical_parent
        while p is not None and p.kind not in BODIES and p.kind != K.TRANSLATION_UNIT:
            p = p.lexical_parent
        return p.spelling if p is not None and p.kind in BODIES else ""

    def variable(self, f: SourceFile, name: str, space: str, kind: str, function: str, g: int,
                 size: int, offset: int, line: int) -> Variable:  # fmt: skip
        """A variable of file `f`, numbered within it until `finish`."""
        v = Variable(self._number(f, "variable"), name, space, kind, function, g, size, offset,
                     line)  # fmt: skip
        self.tables.variables.append(v)
        self._variable_files.append(f)
        return v

    # -- classification ----------------------------------------------------

    @staticmethod
    def called(c: ci.Cursor, parents: list[ci.Cursor]) -> bool:
        """Whether `c` is what a call calls (`x.f` of `x.f()`): a method named
        through a template-dependent object has no declaration for libclang to
        tell it from a data member by."""
        i = len(parents) - 1
        while i >= 0 and parents[i].kind in TRANSPARENT:
            i -= 1
        if i < 0 or parents[i].kind != K.CALL_EXPR:
            return False
        kids = children(parents[i])
        return bool(kids) and stripped(kids[0]) == c

    def memory(self, c: ci.Cursor, method: bool) -> bool:
        """Whether lvalue expression `c` may refer to global or shared memory."""
        k = c.kind
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = children(c)
            if not kids:
                return False
            base = stripped(kids[0])
            if _canonical_kind(base.type) in ARRAYS:
                return self.memory(base, method)
            return True
        if k == K.UNARY_OPERATOR:
            return unary_operator(c) == "*"
        if k == K.MEMBER_REF_EXPR:
            ref = c.referenced
            if ref is not None and ref.kind in {K.CXX_METHOD, K.FUNCTION_TEMPLATE,
                                                K.CONVERSION_FUNCTION}:  # fmt: skip
                return False
            kids = children(c)
            if not kids:
                return method
            base = stripped(kids[0])
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
                attrs = attributes(ref)
                if K.CUDASHARED_ATTR in attrs:
                    return True
                if K.CUDACONSTANT_ATTR in attrs:
                    return False
                if (K.CUDADEVICE_ATTR in attrs) and ref.semantic_parent.kind not in FUNCTIONS:
                    return True
                return _canonical_kind(ref.type) in REFERENCES and not groups.is_group(ref.type)
            if ref.kind == K.PARM_DECL:
                return _canonical_kind(ref.type) in REFERENCES and not groups.is_group(ref.type)
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
        kids = children(p)
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
        body = next((k for k in children(lam) if k.kind == K.COMPOUND_STMT), None)
        limit = body.extent.start.offset if body is not None else lam.extent.end.offset
        head = [t.spelling for t in self.tokens(lam) if t.extent.start.offset < limit]
        if "->" not in head:
            return False
        tail = head[len(head) - 1 - head[::-1].index("->") + 1 :]
        return bool(tail) and tail[-1] in ("&", "&&")

    def binds_reference(self, lam: ci.Cursor, init: ci.Cursor) -> bool:
        """Whether an init-capture is by reference: `&name = init`."""
        before = [t.spelling for t in self.tokens(lam)
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
            if groups.moves_values_only(ref):
                return "R"  # cg::reduce(g, x, op), g.shfl(x, k): read x, by forwarding reference
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
        ref = overloaded_reference(call)
        return ref.spelling if ref is not None else ""

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
            # The file-scope __shared__ variables declared before the kernel.
            here = self.positions.get(self.key(fn), (len(self.top_level), 0))
            prologue = f" hirace::Thread {CTX};" + "".join(
                self.registration(v, f, v.name)
                for key, (v, f) in self.shared_vars.items()
                if not v.function and self.positions.get(key, here) < here
            )
            # Dynamic shared memory, under the unit's first name for it, unless
            # the kernel declares it itself (add_dynamic_shared in the runtime
            # header says why).
            dynamic = [vf for vf in self.shared_vars.values() if vf[0].kind == "dynamic_shared"]
            if dynamic and not any(v.function == fn.spelling for v, _ in dynamic):
                v, f = dynamic[0]
                prologue += self.registration(v, f, "hirace::dynamic_shared_base()")
            plan.edits.append(edits.insert(body.extent.start.offset + 1, prologue))
        stack: list[tuple[ci.Cursor, list[ci.Cursor]]] = [(body, [])]
        while stack:
            c, parents = stack.pop()
            self.visit(c, parents, fn, method, plan)
            kids = children(c)
            stack.extend((k, [*parents, c]) for k in reversed(kids))
        return plan

    def registration(self, var: Variable, f: SourceFile, name: str, after: str = "") -> str:
        """The call that registers __shared__ variable `var` of file `f` in a
        block's frame (`after`: the C++ sum that follows its offset, for a
        template-dependent variable)."""
        # The casts drop volatile (a `volatile __shared__` variable's address does
        # not convert to `const void*` implicitly).
        var_id = f.number("HIRACE_V", var.id)
        if var.kind == "dynamic_shared":
            offset = f"{var.frame_offset}u" if f.main else FRAME_DYNAMIC
            return (f" {CTX}.add_dynamic_shared({var_id}, (const void*){name}, "
                    f"{offset});")  # fmt: skip
        if f.main:
            offset = f"{var.frame_offset}u"
        elif var.frame_offset >= self.common_shared_units:
            offset = f"({FRAME_LOCALS} + {var.frame_offset - self.common_shared_units}u)"
        else:
            offset = f.number("HIRACE_F", var.frame_offset - self.frame_bases[f.name])
        if after:
            offset = f"({offset}{after})"
        return (f" {CTX}.add_shared({var_id}, (const void*)&{name}, sizeof({name}), "
                f"{offset}, {var.gran_log2}u);")  # fmt: skip

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
                if var.kind == K.VAR_DECL and K.CUDASHARED_ATTR in attributes(var):
                    found = self.shared_vars.get(self.key(var))
                    if found is not None:
                        end = self.statement_end(c)
                        reg = self.registration(*found, var.spelling,
                                                self.dependent_offsets.get(self.key(var), ""))
                        plan.edits.append(edits.insert(end, reg))
            return
        if c.kind == K.LAMBDA_EXPR:
            capture = self.lambda_capture(c)
            if capture is not None:
                plan.edits.append(capture)
        if c.kind == K.CALL_EXPR and not self.plan_libcu(c, name, method, plan):
            self.visit_call(c, name, plan)
        if c.kind == K.MEMBER_REF_EXPR and self.called(c, parents):
            return
        if c.kind in {K.ARRAY_SUBSCRIPT_EXPR, K.UNARY_OPERATOR, K.MEMBER_REF_EXPR,
                      K.DECL_REF_EXPR, K.CALL_EXPR} and self.memory(c, method):  # fmt: skip
            if self.atomic_object(c) or self.bound_by_atomic_ref(parents):
                # Accessed only through the atomic's operations (plan_libcu).
                return
            action = self.context(c, parents, fn)
            if action is None:
                return
            loop = self.range_for_loop(parents)
            if loop is not None:
                kids = children(loop)
                if len(kids) > 1 and self.memory(stripped(kids[1]), method):
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
                plan.edits.append(edits.wrap(s, e, f"(*hirace::rw({CTX}, &(", f"), {r}, {w}))"))
            else:
                fn_name = "rd" if action == "R" else "wr"
                site = self.site(c, action, name)
                plan.edits.append(
                    edits.wrap(s, e, f"(*hirace::{fn_name}({CTX}, &(", f"), {site}))")
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
            and children(parents[i - 1])[0] == parents[i]
        ):
            return parents[i - 1]
        return None

    def lambda_capture(self, lam: ci.Cursor) -> edits.Edit | None:
        """Capture the thread context by reference in a lambda, whose body's accesses
        and calls use it (by reference, so that barriers in the body advance the
        thread's clocks); a lambda whose capture default is `&` already does."""
        tokens = self.tokens(lam)
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
        src = self.file(c).source
        if src[end - 1 : end] == b";":
            return end
        semi = src.find(b";", end)
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
        return any(ms == s and e <= me for ms, me in self.file(c).macros)

    def call_paren(self, call: ci.Cursor) -> int | None:
        """Offset just past the '(' that opens a call's argument list; None when the
        call is spelled in a macro's body (no '(' of its own to insert after)."""
        if self.macro_body(call):
            return None
        args = self.explicit_arguments(call)
        tokens = self.tokens(call)
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

    def call_member(self, c: ci.Cursor, member: DependentMember, plan: FunctionPlan) -> None:
        """A member call through an object of dependent type (`o.put(i, v)` in a
        template, where a class of the file has a device `put`): which class it
        calls is known only per instantiation, so the call goes through the
        unit's caller for the name, `hirace_member_put::call(0, t, (o), i, v)`
        (HIRACE_MEMBER_CALLER, templates/hirace_callers.h), which takes the checked
        overload where the class has one and counts the call otherwise."""
        if self.call_through(c, member.obj, f"hirace_member_{member.name}::call",
                             member.arrow, plan):  # fmt: skip
            self.member_callers.add(member.name)

    def call_through(self, c: ci.Cursor, obj: ci.Cursor, caller: str, arrow: bool,
                     plan: FunctionPlan) -> bool:  # fmt: skip
        """Rewrite call `c` of (a member of) `obj` as `caller(0, t, (obj), args...)`
        (`*(obj)` for `arrow`): the callers of templates/hirace_callers.h pick the checked
        overload per instantiation. False (warned) in a macro expansion."""
        paren = self.call_paren(c)
        if paren is None or self.inside_macro(obj):
            self.warn(c, "macro", "a call through an object of template-parameter type is "
                      "part of a macro expansion and is not instrumented (it runs the "
                      "uninstrumented code)")  # fmt: skip
            return False
        args = self.explicit_arguments(c)
        plan.edits.append(edits.wrap(obj.extent.start.offset, obj.extent.end.offset,
                                     f"{caller}(0, {CTX}, {'*(' if arrow else '('}", ")"))
        plan.edits.append(edits.replace(obj.extent.end.offset, paren, ", " if args else ""))
        return True

    def visit_call(self, c: ci.Cursor, function: str, plan: FunctionPlan) -> None:
        callee = self.callee_name(c)
        ref = c.referenced
        if self.plan_group_sync(c, plan):
            return
        width = groups.tile_width(c, self.explicit_arguments(c))
        if width != 0:
            self.tile_widths.add(width)
        # The catalogue's functions: the prelude's, and the number headers'
        # (cuda_fp16.h's atomicAdd(__half*, __half), ...: cuda_api.NumberHeader).
        from_prelude = (
            ref is not None
            and ref.location.file is not None
            and (ref.location.file.name.endswith(PRELUDE)
                 or os.path.basename(ref.location.file.name) in NUMBER_HEADER_FILES)
        )  # fmt: skip
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
                        f", {site}, hirace::{action})",
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
                        f", {site})",
                    )
                )
            elif callee in BARRIERS:
                plan.edits.append(edits.wrap(s, e, "(", f", {CTX}.block_barrier())"))
            elif callee in VALUE_BARRIERS:
                plan.edits.append(edits.wrap(s, e, f"{CTX}.block_barrier(", ")"))
            elif callee in FENCES:
                # Device and system scope fences take part in message passing
                # (docs/semantics.md 1.6); block-scope ones are only counted.
                device = "true" if callee in DEVICE_FENCES else ""
                plan.edits.append(edits.wrap(s, e, "(", f", {CTX}.fence({device}))"))
            elif callee in WARP_BARRIERS:
                width = groups.syncwarp_width(self.explicit_arguments(c))
                if width:
                    self.warp_barrier_widths.add(width)
                if self.add_context_argument(c, callee, plan) and not any(
                    e.replace is not None and e.start == s for e in plan.edits
                ):
                    plan.edits.append(edits.replace(s, s + len(callee), "hirace::syncwarp"))
            elif callee in UNTRACKED_CALLS:
                self.untracked_call(c, callee)
            return
        if callee in UNTRACKED_CALLS | UNTRACKED_BUILTINS:
            self.untracked_call(c, callee)
            return
        functor = dependent_functor(c)
        if functor is not None and CALL_OPERATOR in self.device_names:
            self.call_through(c, functor, "hirace::call_operator", False, plan)
            return
        if self.instrumented_callee(c):
            self.add_context_argument(c, callee, plan)
            return
        member = dependent_member(c) if ref is None and not callee else None
        if member is not None and member.name in self.device_names:
            self.call_member(c, member, plan)
            return
        if ref is not None and ref.kind in FUNCTIONS | {K.CONSTRUCTOR} and not self.in_main(ref):
            f = ref.location.file
            if f is not None and not self.system_file(f.name):
                self.warn(
                    c,
                    "uninstrumented-call",
                    f"'{callee}' is defined in "
                    f"{os.path.basename(f.name)}, outside the instrumented files; "
                    "its memory accesses are not tracked",
                )
            elif (f is not None and K.CUDADEVICE_ATTR in attributes(ref)
                  and not groups.moves_values_only(ref)):  # fmt: skip
                self.warn(
                    c,
                    "system-code",
                    f"device code '{callee}' of the system header "
                    f"{os.path.basename(f.name)} is not instrumented; "
                    "the memory it accesses is not tracked",
                )

    # -- libcu++ atomics ---------------------------------------------------------

    @staticmethod
    def atomic_object(c: ci.Cursor) -> bool:
        """Whether lvalue c is a libcu++ atomic object (cuda::atomic)."""
        found = libcu.atomic_type(c.type)
        return found is not None and not found.reference

    @staticmethod
    def bound_by_atomic_ref(parents: list[ci.Cursor]) -> bool:
        """Whether an lvalue is the argument an atomic reference is constructed from."""
        i = len(parents) - 1
        while i >= 0 and parents[i].kind in TRANSPARENT:
            i -= 1
        return i >= 0 and libcu.binds_reference(parents[i])

    def plan_libcu(self, c: ci.Cursor, function: str, method: bool, plan: FunctionPlan) -> bool:
        """A libcu++ fence, or an operation of a libcu++ atomic (docs/semantics.md
        1.2): its object becomes one action of the class's scope with the call's
        memory order. False if `c` is neither."""
        if libcu.fence(c):
            s, e = c.extent.start.offset, c.extent.end.offset
            device = "true" if libcu.device_fence(self.explicit_arguments(c)) else ""
            plan.edits.append(edits.wrap(s, e, "(", f", {CTX}.fence({device}))"))
            return True
        if libcu.constructs(c):
            return True  # constructs a local atomic, or binds a reference
        op = libcu.member_op(c, self.explicit_arguments(c))
        if op is None:
            return False
        if op.kind == "none":
            return True
        if not op.kind:
            self.warn(c, "atomic-member", f"'{op.member}' of a libcu++ atomic is not "
                      "instrumented; the memory it accesses is not tracked")  # fmt: skip
            return True
        obj = op.obj
        s, e = obj.extent.start.offset, obj.extent.end.offset
        if not op.type.reference and not op.arrow and not self.memory(stripped(obj), method):
            return True  # an atomic object in local memory
        if s >= e or self.macro_body(c) or self.inside_macro(obj):
            self.warn(c, "macro", f"'{op.member}' of a libcu++ atomic is part of a macro "
                      "expansion and is not instrumented; the memory it accesses is not "
                      "tracked")  # fmt: skip
            return True
        plan.edits.append(edits.wrap(s, e, *self.libcu_wrap(op, function)))
        return True

    def libcu_wrap(self, op: libcu.AtomicOp, function: str) -> tuple[str, str]:
        """Text before and after an atomic operation's object expression."""
        obj, scope = op.obj, op.type.scope
        if scope == "thread":
            # Atomic only to its own thread: to the others a plain access.
            actions = {"load": ["R"], "store": ["W"], "rmw": ["R", "W"]}[op.kind]
            sites = [self.site(obj, a, function) for a in actions]
            if op.type.reference:
                kinds = {"R": "hirace::kRead", "W": "hirace::kWrite"}
                before = f"hirace::ref({CTX}, " * len(actions)
                after = "".join(f", {site}, {kinds[a]})"
                                for a, site in zip(actions, sites, strict=True))  # fmt: skip
                return (f"(&{before}*(", f"){after})") if op.arrow else (before, after)
            accessor = {"load": "rd", "store": "wr", "rmw": "rw"}[op.kind]
            call = f"hirace::{accessor}({CTX}, "
            tail = ", ".join(sites)
            return ((call, f", {tail})") if op.arrow else
                    (f"(*{call}&(", f"), {tail}))"))  # fmt: skip
        # A load (`load`, `wait`, the conversion to the value type) reads and
        # writes nothing: an atomic load (docs/semantics.md 1.2).
        load = op.kind == "load"
        action = ("BL" if load else "BA") if scope == "block" else ("GL" if load else "GA")
        site = self.site(obj, action, function, op.order)
        tail = (f", {site}, hirace::{LIBCU_ACTIONS[action]}, "
                f"{libcu.order_bits(op.order)}u)")  # fmt: skip
        if op.type.reference:
            return ((f"(&hirace::ref({CTX}, *(", f"){tail})") if op.arrow else
                    (f"hirace::ref({CTX}, ", tail))  # fmt: skip
        return ((f"hirace::atom({CTX}, ", tail) if op.arrow else
                (f"(*hirace::atom({CTX}, &(", f"){tail})"))  # fmt: skip

    def untracked_call(self, c: ci.Cursor, callee: str) -> None:
        self.warn(
            c,
            "untracked-call",
            f"'{callee}' in device code is not instrumented; "
            "the memory it copies, sets or reads is not tracked",
        )

    def system_file(self, name: str) -> bool:
        return is_system(name, self.parsed.stub_dir)

    def plan_group_sync(self, c: ci.Cursor, plan: FunctionPlan) -> bool:
        """A cooperative-groups sync: keep the call, update the clocks after it."""
        sync = groups.group_sync(c, self.explicit_arguments(c))
        if sync is None:
            return False
        s, e = c.extent.start.offset, c.extent.end.offset
        group = self.text(sync.group)
        if sync.width != 0:
            self.warp_barrier_widths.add(sync.width)
        if sync.grid:
            update = f"{CTX}.grid_barrier()"
        elif sync.contiguous:
            # size(): CUDA 13 declares thread_group::num_threads() but defines
            # only size() for it; every group type has size().
            update = f"{CTX}.group_barrier(({group}).size())"
        else:
            # A thread_group or coalesced group: its lanes are not its size's
            # tile; HIRACE_GROUP_LANES reads them where it can.
            update = f"{CTX}.group_barrier(({group}).size(), HIRACE_GROUP_LANES({group}))"
        plan.edits.append(edits.wrap(s, e, "(", f", {update})"))
        return True

    # -- device function copies ------------------------------------------------

    def signature_edits(self, fn: ci.Cursor) -> list[edits.Edit] | None:
        """Edits turning fn's text into the instrumented overload's signature."""
        tokens = self.tokens(fn)
        name_at = fn.location.offset
        opens = [t for t in tokens if t.spelling == "(" and t.extent.start.offset > name_at]
        # `operator()(...)`: the name's own parentheses come first.
        paren = next(iter(opens[1:] if fn.spelling == CALL_OPERATOR else opens), None)
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
        f = self.file(fn)
        try:
            body = source_text.decode(edits.apply(f.source[s:e], plan.edits + sig, base=s))
        except edits.EditConflict as exc:
            self.warn(fn, "edit-conflict", f"'{fn.spelling}' not instrumented: {exc}")
            return
        body = balanced_conditionals(body)
        start_line, end_line = fn.extent.start.line, fn.extent.end.line
        display = quote(f.display)
        text = (f'\n#line {start_line} "{display}"\n{body}\n'
                f'#line {end_line} "{display}"\n')  # fmt: skip
        f.edits.append(edits.insert(e, text))
        f.instrumented = True
        for decl in self.declarations(fn):
            self.emit_declaration_copy(decl)

    def declarations(self, fn: ci.Cursor) -> Iterator[ci.Cursor]:
        """Declarations of `fn` in its own file (a header's copy must not depend on
        which unit defines what it declares)."""
        usr, name = fn.get_usr(), self.file(fn).name
        for c in self.main_cursors():
            if (
                c.kind in FUNCTIONS
                and not c.is_definition()
                and c.get_usr() == usr
                and self.file(c).name == name
            ):
                yield c

    def warn_device_lambdas(self, host: ci.Cursor) -> None:
        """Warn of each extended `__device__` lambda written in host function
        `host`: its body runs on the device but is not instrumented (a lambda
        in device code is checked as part of the function it is written in)."""
        for c in host.walk_preorder():
            if c.kind != K.LAMBDA_EXPR:
                continue
            body = next((k for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
            end = body.extent.start.offset if body is not None else c.extent.end.offset
            if any(t.spelling == "__device__" for t in self.tokens(c)
                   if t.extent.start.offset < end):  # fmt: skip
                self.warn(c, "device-lambda", "a __device__ lambda written in host code is not "
                          "instrumented; memory accesses in its body are not tracked")  # fmt: skip

    def emit_declaration_copy(self, decl: ci.Cursor) -> None:
        sig = self.signature_edits(decl)
        if sig is None:
            return
        s = decl.extent.start.offset
        end = self.statement_end(decl)
        f = self.file(decl)
        text = source_text.decode(edits.apply(f.source[s:end], sig, base=s))
        f.edits.append(edits.insert(end, " " + text))

    # -- driver ----------------------------------------------------------------

    def run(self) -> None:
        self.collect_macros()
        functions = list(self.functions())
        kernels = [f for f in functions if K.CUDAGLOBAL_ATTR in attributes(f)]
        self.collect_shared_and_globals({k.spelling for k in kernels})
        devices = [
            f
            for f in functions
            if K.CUDADEVICE_ATTR in attributes(f) and K.CUDAGLOBAL_ATTR not in attributes(f)
        ]
        for f in devices:
            if f.spelling.startswith("operator") and f.spelling != CALL_OPERATOR:
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
            if K.CUDADEVICE_ATTR not in attributes(f) and K.CUDAGLOBAL_ATTR not in attributes(f):
                self.warn_device_lambdas(f)
            if f.kind in (K.CONSTRUCTOR, K.DESTRUCTOR) and K.CUDADEVICE_ATTR in attributes(f):
                self.warn(
                    f,
                    "constructor",
                    f"device constructor or destructor '{f.spelling}' is not instrumented",
                )
        for k in kernels:
            params = []
            file = self.file(k)
            for p in k.get_arguments():
                pointer = _canonical_kind(p.type) == T.POINTER
                var = None
                if pointer:
                    g = gran_log2(p.type.get_canonical().get_pointee())
                    var = self.variable(
                        file, p.spelling, "global", "param", k.spelling, g, 0, 0, p.location.line
                    ).id
                params.append(Param(p.spelling, p.type.spelling, pointer, var, record_of(p.type)))
            units = self.kernel_shared_units.get(k.spelling, self.common_shared_units)
            self.tables.kernels.append(Kernel(k.spelling, k.location.line, tuple(params), units,
                                              self.qualified_name(k),
                                              k.kind == K.FUNCTION_TEMPLATE))  # fmt: skip
            self._kernel_files.append(file)
            if self.select_kernel(k.spelling):
                file.edits.extend(self.plan_function(k, kernel=True).edits)
                file.instrumented = True
        for f in devices:
            if f.spelling in self.device_names:
                self.emit_copy(self.plan_function(f, kernel=False))
        for c in self.main_cursors():
            # A call through a base class reaches a pure virtual declaration: it
            # needs the thread-taking overload that the overriders get.
            if (c.kind == K.CXX_METHOD and c.is_pure_virtual_method()
                    and c.spelling in self.device_names
                    and K.CUDADEVICE_ATTR in attributes(c)):  # fmt: skip
                self.emit_declaration_copy(c)
        self.finish()

    def finish(self) -> None:
        """Numbers sites and variables for the whole unit: the main file's first
        (their numbers unchanged: its text embeds them), then each header's from
        its base (`HIRACE_S_<tag>`, `HIRACE_V_<tag>`, defined by the unit)."""
        order = {name: n for n, name in enumerate(self.files)}
        for kind, items, owners, bases in (
            ("site", self.tables.sites, self._site_files, self.site_bases),
            ("variable", self.tables.variables, self._variable_files, self.variable_bases),
        ):
            total = 0
            for name in sorted({f.name for f in owners}, key=order.__getitem__):
                bases[name] = total
                total += self._counts.get((name, kind), 0)
            renumbered = sorted(
                (replace(item, id=bases[f.name] + item.id) for item, f in zip(items, owners,
                                                                              strict=True)),
                key=lambda item: item.id,
            )  # fmt: skip
            items[:] = renumbered
        self.tables.kernels[:] = [
            replace(k, params=tuple(
                replace(p, var=None if p.var is None else self.variable_bases[f.name] + p.var)
                for p in k.params))
            for k, f in zip(self.tables.kernels, self._kernel_files, strict=True)
        ]  # fmt: skip
