"""Host-side rewrites for whole programs: allocations, launches, per-unit tables.

A translation unit is a *program* unit when its host code launches kernels
or allocates device memory. Then:

* `cudaMalloc(&p, n)` (and the Managed and Async forms) becomes
  `hirace::host::cudaMalloc(G, "p", &p, n)`: the same arguments after the
  shadow granularity of p's element type and the name reports use, so the
  allocation is registered as monitored memory. `cudaFree` unregisters.
  A call spelled in a macro's argument (`CHECK(cudaMalloc(&p, n))`) is
  rewritten where it is spelled; one in a macro's definition is not tracked,
  with a warning. (A rewrite in the argument of a macro that turns it into
  text with `#` is warned about too: the text then shows the rewrite.)
* `k<<<G, B, S, ST>>>(args)` keeps its form inside a lambda called at once,
  which evaluates each expression exactly once:
  `[&](dim3 hirace_g, dim3 hirace_b, size_t hirace_s) { before_launch(...);
  k<<<hirace_g, hirace_b, hirace_s, ST>>>(args); after_launch(); }(G, B, S)`.
  With `target="cpu"` the launch itself becomes `::hr::launch(k, g, b, s, st)(args)`,
  the CPU backend's launcher for standalone programs.
* every other CUDA API call of the host record (`HOST_API`: copies, memsets,
  streams, events, synchronisation, callbacks, error queries) becomes
  `hirace::host::NAME(HIRACE_AT(file, line, column, function, discarded), args)`,
  and allocations, frees and launches take the same call site first: the
  host runtime records each call (docs/host-events.md). Pointer arguments
  of a launch are passed through `hirace::host::arg(p)`, which notes them;
  a launch whose kernel may reach memory through pointers held in memory
  (`opaque_parameter`) tells `before_launch` so.
* the unit's tables (sites, variable names, kernels) and its `write_state`
  and `register_symbols` functions are appended, and the unit registers
  itself with the host runtime at static initialisation.
"""

from __future__ import annotations

import ctypes
import itertools
import json

import clang.cindex as ci

from hirace_py import cuda_api
from hirace_py.config import Config
from hirace_py.fsm import Action
from hirace_py.instrument import edits
from hirace_py.instrument.analyze import PRELUDE, K, Planner, gran_log2
from hirace_py.instrument.model import Tables
from hirace_py.instrument.parse import (
    attributes,
    children,
    overloaded_reference,
    stripped,
    unary_operator,
)

ALLOCATORS = {"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch",
              "cudaMallocHost", "cudaHostAlloc"}  # fmt: skip
REGISTERS = {"cudaHostRegister"}
FREES = {"cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaHostUnregister"}
SYMBOL_COPIES = {"cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0,
                 "cudaMemcpyFromSymbol": 1, "cudaMemcpyFromSymbolAsync": 1}  # fmt: skip
"""Symbol copies, by the index of their symbol argument (its text is recorded)."""
HOST_API = {
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset",
    "cudaMemsetAsync", "cudaMemset2D", "cudaStreamCreate", "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority", "cudaStreamDestroy", "cudaStreamSynchronize",
    "cudaStreamQuery", "cudaStreamWaitEvent", "cudaEventCreate", "cudaEventCreateWithFlags",
    "cudaEventDestroy", "cudaEventRecord", "cudaEventRecordWithFlags", "cudaEventSynchronize",
    "cudaEventQuery", "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaDeviceReset",
    "cudaThreadExit", "cudaStreamAddCallback", "cudaLaunchHostFunc", "cudaGetLastError",
    "cudaPeekAtLastError",
}  # fmt: skip
"""The other calls of the host record: the runtime's wrappers take the call site first."""
THREAD_API = {"pthread_create", "pthread_join", "pthread_mutex_lock", "pthread_mutex_trylock",
              "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_timedwait"}  # fmt: skip
"""pthread calls that order host threads (docs/semantics.md 6.2, rule 10): recorded
like HOST_API."""
STD_THREAD = "std::thread"
# Launches by function call: (kernel, grid, block, args, shared bytes, stream).
LAUNCH_CALLS = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel"}
CONFIG_CALLS = {"cudaConfigureCall", "__cudaPushCallConfiguration"}
POINTER_KINDS = {ci.TypeKind.POINTER, ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY}


_REFERENCE_KINDS = {ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE}


def _holds_pointer(t: ci.Type, seen: set[str]) -> bool:
    """Whether an object of type `t` holds a pointer or a reference: is one, or has
    one in a field, a base or an element (recursively; `seen`: records visited)."""
    t = t.get_canonical()
    if t.kind in (ci.TypeKind.POINTER, ci.TypeKind.MEMBERPOINTER, *_REFERENCE_KINDS):
        return True
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        return _holds_pointer(t.get_array_element_type(), seen)
    if t.kind != ci.TypeKind.RECORD or t.spelling in seen:
        return False
    seen.add(t.spelling)
    decl = t.get_declaration()
    bases = [b.type for b in decl.get_children() if b.kind == K.CXX_BASE_SPECIFIER]
    return any(_holds_pointer(f.type, seen) for f in t.get_fields()) or \
        any(_holds_pointer(b, seen) for b in bases)  # fmt: skip


def opaque_parameter(t: ci.Type) -> bool:
    """Whether a kernel parameter (or argument) of type `t` may lead the kernel to
    memory through pointers stored in memory, which the host record cannot
    see: a struct or class holding a pointer (by value, or pointed or referred
    to), a pointer to a pointer, or a pointer to void. A pointer to plain data
    (`float*`, `const S*` with S holding no pointer) is not: the record notes
    it as the launch's argument. A type not known yet (a template parameter's)
    is not either: the caller also asks about the argument's type."""
    t = t.get_canonical()
    if t.kind in (ci.TypeKind.POINTER, *_REFERENCE_KINDS):
        pointee = t.get_pointee().get_canonical()
        return pointee.kind == ci.TypeKind.VOID or _holds_pointer(pointee, set())
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        return _holds_pointer(t.get_array_element_type(), set())
    return t.kind == ci.TypeKind.RECORD and _holds_pointer(t, set())


def _launched_kernel(argument: ci.Cursor) -> str | None:
    """The name of the kernel a launch call's first argument names, under casts
    (`(void*)k`, `reinterpret_cast<void*>(&k<int>)`), or None."""
    for c in argument.walk_preorder():
        ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
        if ref is not None and ref.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
            return str(ref.spelling)
    return None


def _argument_spans(src: bytes, at: int) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of a call's arguments, whose `(` follows offset `at` of `src`
    (after blanks), trimmed of blanks, and the offset just past its `)`; None
    if the text is not a complete call."""
    i = at
    while i < len(src) and src[i : i + 1].isspace():
        i += 1
    if src[i : i + 1] != b"(":
        return None
    spans, depth, start, quote = [], 0, i + 1, b""
    for j in range(i + 1, len(src)):
        ch = src[j : j + 1]
        if quote:
            if ch == quote and src[j - 1 : j] != b"\\":
                quote = b""
        elif ch in (b'"', b"'"):
            quote = ch
        elif ch in (b"(", b"[", b"{"):
            depth += 1
        elif ch in (b")", b"]", b"}") and depth > 0:
            depth -= 1
        elif ch in (b",", b")") and depth == 0:
            text = src[start:j]
            lead = len(text) - len(text.lstrip())
            spans.append((start + lead, start + len(text.rstrip())))
            if ch == b")":
                return spans, j + 1
            start = j + 1
    return None


def _c_string(text: str) -> str:
    return json.dumps(text)


def _spelling(location: ci.SourceLocation) -> tuple[int, int, int]:
    """(offset, line, column) where the token at `location` is spelled: inside a
    macro's argument for code that came from one (cursor extents give the
    macro's place instead)."""
    file, line, column, offset = ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    ci.conf.lib.clang_getSpellingLocation(location, ctypes.byref(file), ctypes.byref(line),
                                          ctypes.byref(column), ctypes.byref(offset))  # fmt: skip
    return offset.value, line.value, column.value


def _spelling_offset(location: ci.SourceLocation) -> int:
    return _spelling(location)[0]


def _null_constant(argument: ci.Cursor) -> bool:
    """An argument that is a null pointer constant (`NULL`, `0`, `nullptr`) converted
    to a pointer: it has no pointer type of its own to pass through a template."""
    k = argument
    while k.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR) and children(k):
        if k.kind == K.CSTYLE_CAST_EXPR:
            return False
        k = children(k)[-1]
    return k.kind in (K.INTEGER_LITERAL, K.GNU_NULL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR)


def _discarded_calls(fn: ci.Cursor) -> set[int]:
    """Hashes of the calls in `fn` that are statements of their own: their value
    (a returned error) is dropped."""
    out = set()
    for c in fn.walk_preorder():
        if c.kind != K.COMPOUND_STMT:
            continue
        for k in children(c):
            while k.kind == K.UNEXPOSED_EXPR and len(children(k)) == 1:
                k = children(k)[0]
            if k.kind == K.CALL_EXPR:
                out.add(k.hash)
    return out


def _is_std_thread(t: ci.Type) -> bool:
    return t.get_canonical().spelling == STD_THREAD


def _std_thread_start(c: ci.Cursor) -> bool:
    """A std::thread constructed with a function to run (not moved), or an
    `emplace_back` of one into a container of threads."""
    ref = c.referenced
    if ref is None:
        return False
    args = list(c.get_arguments())
    if not args or _is_std_thread(args[0].type):
        return False
    if ref.kind == K.CONSTRUCTOR:
        return ref.semantic_parent is not None and _is_std_thread(ref.semantic_parent.type)
    t = c.type.get_pointee() if c.type.kind == ci.TypeKind.LVALUEREFERENCE else c.type
    return c.spelling == "emplace_back" and _is_std_thread(t)


def _std_thread_join(c: ci.Cursor) -> bool:
    ref = c.referenced
    if c.spelling != "join" or ref is None or ref.kind != K.CXX_METHOD:
        return False
    return ref.semantic_parent is not None and _is_std_thread(ref.semantic_parent.type)


def _allocated_pointer(argument: ci.Cursor) -> ci.Cursor | None:
    """The pointer an allocation writes: the operand of the first `&` in its
    first argument, under any casts: `&p`, `(void**)&p`, `reinterpret_cast<..>(&p)`."""
    address = next((k for k in argument.walk_preorder() if k.kind == K.UNARY_OPERATOR
                    and unary_operator(k) == "&" and children(k)), None)  # fmt: skip
    return stripped(children(address)[0]) if address is not None else None


def _granularity(pointer: ci.Cursor, text: str) -> str:
    """C++ for the shadow granularity (log2 bytes) of what `pointer` (spelled
    `text`) points to: 0 for void; for a type only an instantiation knows
    (a template's `T*`), the runtime's `scalar_gran` of the pointer's type."""
    pointee = pointer.type.get_canonical().get_pointee()
    if pointee.kind == ci.TypeKind.VOID:
        return "0u"
    if pointee.get_size() > 0:
        return f"{gran_log2(pointee)}u"
    return f"::hirace::host::scalar_gran<decltype({text})>()" if text else "0u"


def _overloaded_names(scope: ci.Cursor) -> set[str]:
    """The names of the functions `scope` declares more than one of (overloads)."""
    seen: dict[str, set[int]] = {}
    for d in scope.get_children():
        if d.kind == K.FUNCTION_DECL:
            seen.setdefault(d.spelling, set()).add(d.canonical.hash)
    return {name for name, functions in seen.items() if len(functions) > 1}


class HostPlanner:
    """Finds launches and allocations in host code; produces edits and the unit tables."""

    def __init__(self, planner: Planner, target: str, hooks: bool = True,
                 warn_uninstrumented: bool = True) -> None:  # fmt: skip
        self.p = planner
        self.target = target
        self.hooks = hooks
        """False: only make launches compile for the CPU (a program built unchecked)."""
        self.warn_uninstrumented = warn_uninstrumented
        """False: kernels are left uninstrumented on purpose (`hirace profile`): a
        launch of a kernel defined elsewhere is not worth a warning."""
        self.edits: dict[str, list[edits.Edit]] = {}
        """Edits by user file (libclang's name)."""
        self.launches = 0
        self.allocations = 0
        self.kernel_names = {k.name for k in planner.tables.kernels}
        self._overloads: dict[ci.Cursor, set[str]] = {}
        """Overloaded function names by declaring scope, each
        scope walked once per unit, not once per launch."""

    def host_functions(self) -> list[ci.Cursor]:
        return [
            f for f in self.p.functions()
            if not {K.CUDAGLOBAL_ATTR, K.CUDADEVICE_ATTR} & attributes(f)
            or K.CUDAHOST_ATTR in attributes(f)
        ]  # fmt: skip

    def hide_from_nvrtc(self) -> dict[str, list[edits.Edit]]:
        """Edits that put every host-only function definition under
        `#ifndef __CUDACC_RTC__`: NVRTC (the CuPy backend's compiler) rejects
        host functions, and kernels cannot call them; nvcc and the CPU backend
        still compile them. `constexpr` functions stay (device code may use them)."""
        out: dict[str, list[edits.Edit]] = {}
        for fn in self.host_functions():
            if K.CUDAHOST_ATTR in attributes(fn) and K.CUDADEVICE_ATTR in attributes(fn):
                continue
            tokens = [t.spelling for t in self.p.tokens(fn)[:8]]
            if "constexpr" in tokens or fn.kind == K.CONSTRUCTOR:
                continue
            f = self.p.file(fn)
            start, end = fn.extent.start, fn.extent.end
            name = f.display.replace("\\", "\\\\").replace('"', '\\"')
            out.setdefault(f.name, []).append(edits.wrap(
                start.offset, end.offset,
                f'\n#ifndef __CUDACC_RTC__\n#line {start.line} "{name}"\n',
                f'\n#endif\n#line {end.line} "{name}"\n',
            ))  # fmt: skip
        return out

    def run(self) -> bool:
        """Plan host edits; True when this is a program unit."""
        for fn in self.host_functions():
            discarded = _discarded_calls(fn) if self.hooks else set()
            for c in fn.walk_preorder():
                if c.kind == K.CALL_EXPR and self.in_main(c):
                    self.visit_call(c, fn.spelling, c.hash in discarded)
        return bool(self.launches or self.allocations)

    def in_main(self, c: ci.Cursor) -> bool:
        return self.p.in_main(c)

    def edit(self, c: ci.Cursor, e: edits.Edit) -> None:
        """Adds an edit to the file cursor `c` is written in."""
        self.edits.setdefault(self.p.file(c).name, []).append(e)

    def dependent_runtime_call(self, c: ci.Cursor) -> str:
        """The runtime function a call in a template names when an argument's
        type is dependent (`cudaMalloc(&p, n)` with `T* p`): libclang leaves
        such a call unnamed and unresolved. '' if it is not one."""
        ref = overloaded_reference(c)
        if ref is None:
            return ""
        decls = [ci.conf.lib.clang_getOverloadedDecl(ref, i)
                 for i in range(ci.conf.lib.clang_getNumOverloadedDecls(ref))]  # fmt: skip
        return ref.spelling if decls and all(self.from_runtime(d) for d in decls) else ""

    def from_runtime(self, ref: ci.Cursor | None) -> bool:
        f = ref.location.file if ref is not None else None
        return f is None or f.name.endswith(PRELUDE) or self.p.system_file(f.name)

    def visit_call(self, c: ci.Cursor, function: str, discarded: bool) -> None:
        kids = children(c)
        config = next(
            (k for k in kids if k.kind == K.CALL_EXPR and k.spelling in CONFIG_CALLS), None
        )
        if config is not None:
            self.launch(c, kids[0], config, function)
            return
        name = c.spelling or self.dependent_runtime_call(c)
        if not self.hooks or not self.from_runtime(c.referenced):
            return
        if c.referenced is not None and cuda_api.gpu_only_feature(name, c.referenced.type.spelling):
            return  # a GPU-only overload (cudaMallocAsync from a pool): counted by gpu_only
        if name in ALLOCATORS | REGISTERS | FREES | HOST_API | THREAD_API or name in SYMBOL_COPIES:
            self.record(c, name, function, discarded)
        elif name in LAUNCH_CALLS:
            self.call_launch(c, name, function)
        elif _std_thread_start(c):
            self.spawn(c, function)
        elif _std_thread_join(c):
            self.join(c, function)

    def at(self, c: ci.Cursor, function: str, discarded: bool) -> str:
        """The call site argument of a recorded call: where it is spelled."""
        f = self.p.file(c)
        _, line, column = _spelling(c.extent.start)
        return (f"HIRACE_AT({_c_string(f.display)}, {line}u, {column}u, {_c_string(function)}, "
                f"{'true' if discarded else 'false'})")  # fmt: skip

    def record(self, c: ci.Cursor, name: str, function: str, discarded: bool) -> None:
        """`name(args)` becomes `hirace::host::name(HIRACE_AT(...), [more, ]args)`,
        where the call is spelled (in a macro's argument too, as in the common
        `CHECK(cudaMalloc(&p, n))`). One in a macro's definition is not recorded,
        with a warning (it may stand for different calls)."""
        file = self.p.file(c)
        src = file.source
        s = _spelling_offset(c.extent.start)
        paren = s + len(name)
        while paren < len(src) and src[paren : paren + 1].isspace():
            paren += 1
        spelled = src[s : s + len(name)] == name.encode() and src[paren : paren + 1] == b"("
        in_macro = self.p.inside_macro(c)
        code = "allocation" if name in ALLOCATORS | REGISTERS | FREES else "host-call"
        if not spelled or (in_macro and not any(ms <= s < me for ms, me in file.macros)):
            what = "its memory is not monitored" if name in ALLOCATORS else "it is not recorded"
            self.p.warn(c, code, f"'{name}' in a macro definition: {what} (call it in a "
                        "macro's argument, or outside macros)")  # fmt: skip
            return
        self.edit(c, edits.replace(s, s + len(name), f"hirace::host::{name}"))
        if in_macro:
            printer = self.stringifying_macro(s, file.name)
            if printer is not None:
                self.p.warn(c, code, f"macro '{printer}' turns its argument into text "
                            f"(#): that text now shows hirace's rewrite of '{name}'")  # fmt: skip
        rest = paren + 1
        while rest < len(src) and src[rest : rest + 1].isspace():
            rest += 1
        more = [self.at(c, function, discarded), *self.extra_arguments(c, name, in_macro)]
        text = ", ".join(more) + ("" if src[rest : rest + 1] == b")" else ", ")
        self.edit(c, edits.insert(paren + 1, text))

    def spawn(self, c: ci.Cursor, function: str) -> None:
        """`std::thread t(f, args...)` (or `threads.emplace_back(f, args...)`): f
        becomes `hirace::host::spawn(HIRACE_AT(...), f)`, which records the
        creation and gives the new thread its number (rule 10)."""
        f = next(iter(c.get_arguments()))
        if self.p.inside_macro(f):
            self.p.warn(c, "host-call", "a std::thread created in a macro: its creation is "
                        "not recorded, so only CUDA calls order it with other host "
                        "threads")  # fmt: skip
            return
        start, end = _spelling_offset(f.extent.start), _spelling_offset(f.extent.end)
        self.edit(c, edits.wrap(start, end, f"hirace::host::spawn({self.at(c, function, False)}, ",
                                ")"))  # fmt: skip

    def join(self, c: ci.Cursor, function: str) -> None:
        """`t.join()` (or `p->join()`) becomes `hirace::host::join(HIRACE_AT(...), t)`."""
        member = children(c)[0] if children(c) else None
        obj = children(member)[0] if member is not None and children(member) else None
        if obj is None or self.p.inside_macro(c):
            self.p.warn(c, "host-call", "std::thread::join not recorded (in a macro, or on "
                        "`this`): the joined thread's work is not ordered before what "
                        "follows")  # fmt: skip
            return
        src = self.p.file(c).source
        start, end = _spelling_offset(obj.extent.start), _spelling_offset(obj.extent.end)
        call_end = _spelling_offset(c.extent.end)
        arrow = src[end:call_end].lstrip().startswith(b"->")
        at = self.at(c, function, False)
        self.edit(c, edits.wrap(start, end, f"hirace::host::join({at}, {'*(' if arrow else ''}",
                                "))" if arrow else ")"))  # fmt: skip
        self.edit(c, edits.replace(end, call_end, ""))

    def spelled_text(self, c: ci.Cursor, in_macro: bool) -> str:
        if not in_macro:
            return self.p.text(c)
        src = self.p.file(c).source
        start, end = _spelling_offset(c.extent.start), _spelling_offset(c.extent.end)
        return src[start:end].decode(errors="replace") if start < end else ""

    def extra_arguments(self, c: ci.Cursor, name: str, in_macro: bool) -> list[str]:
        """What a wrapper takes after the call site: the shadow granularity and the
        variable's name for an allocation; the symbol's text for a symbol copy."""
        args = list(c.get_arguments())
        if name in SYMBOL_COPIES:
            at = SYMBOL_COPIES[name]
            text = self.spelled_text(args[at], in_macro) if len(args) > at else name
            return [_c_string(text or name)]
        if name in REGISTERS:
            pointer = stripped(args[0]) if args else None
            label = self.spelled_text(pointer, in_macro) if pointer is not None else ""
            gran = _granularity(pointer, label) if pointer is not None else "0u"
            self.allocations += 1
            return [gran, _c_string(label or name)]
        if name not in ALLOCATORS:
            return []
        pointer = _allocated_pointer(args[0]) if args else None
        gran, label = "0u", ""
        if pointer is not None:
            label = self.spelled_text(pointer, in_macro)
            gran = _granularity(pointer, label)
        self.allocations += 1
        return [gran, _c_string(label or name)]

    def stringifying_macro(self, offset: int, file: str) -> str | None:
        """The name of the macro invoked around `offset` of `file` if its definition
        applies `#` to a parameter (the rewritten argument is then printed as rewritten)."""
        for m in self.p.top_level:
            if (m.kind != K.MACRO_INSTANTIATION or self.p.file(m).name != file
                    or not m.extent.start.offset <= offset < m.extent.end.offset):  # fmt: skip
                continue
            words = [t.spelling for t in m.referenced.get_tokens()] if m.referenced else []
            if len(words) < 2 or words[1] != "(" or ")" not in words:
                continue
            params = set(words[2 : words.index(")")]) - {","}
            body = words[words.index(")") + 1 :]
            if any(a == "#" and b in params for a, b in itertools.pairwise(body)):
                return m.spelling
        return None

    def overloaded(self, function: ci.Cursor) -> bool:
        """Whether the scope declaring `function` declares other functions of its name."""
        scope = function.semantic_parent
        if scope is None:
            return False
        if scope not in self._overloads:
            self._overloads[scope] = _overloaded_names(scope)
        return function.spelling in self._overloads[scope]

    def deduced_kernel(self, c: ci.Cursor, callee: ci.Cursor) -> None:
        """For the CPU, a template kernel launched without template arguments
        (deduced from the call), or an overloaded one, is named by the type of
        the function the call resolves to, which `hr::launch` needs:
        `(static_cast<void (*)(float *, int)>(k))`."""
        ref = callee.referenced
        if self.target != "cpu" or ref is None or "<" in self.p.text(callee):
            return
        if ref.kind == K.OVERLOADED_DECL_REF:
            # In a template, the call's types are known only per instantiation:
            # the specialization is the one whose parameters are the arguments'
            # types, which is what deduction gives for deduced parameters.
            arguments = ", ".join(f"std::decay_t<decltype({self.p.text(a)})>"
                                  for a in self.launch_arguments(c))  # fmt: skip
            kernel_type = f"void (*)({arguments})"
        elif ref.get_num_template_arguments() > 0 and callee.type.kind == ci.TypeKind.POINTER:
            kernel_type = callee.type.get_canonical().spelling
            if "(lambda at " in kernel_type:
                # A closure type has no name to spell: each parameter of one is
                # the decayed type of its argument, which deduced it.
                params = callee.type.get_pointee().get_canonical().argument_types()
                arguments = self.launch_arguments(c)
                types = [f"std::decay_t<decltype({self.p.text(a)})>"
                         if "(lambda at " in t.spelling else t.spelling
                         for t, a in zip(params, arguments, strict=False)]  # fmt: skip
                kernel_type = f"void (*)({', '.join(types)})"
        elif ref.kind == K.FUNCTION_DECL and self.overloaded(ref):
            # An overloaded kernel (CUDA allows them): the overload the call
            # resolved to, by its type (`void (int *, int)`).
            spelled = ref.type.get_canonical().spelling
            kernel_type = f"void (*){spelled[spelled.index('('):]}"
        else:
            return
        self.edit(c, edits.wrap(callee.extent.start.offset, callee.extent.end.offset,
                                f"(static_cast<{kernel_type}>(", "))"))  # fmt: skip

    def call_launch(self, c: ci.Cursor, name: str, function: str) -> None:
        """`cudaLaunchKernel((void*)k, G, B, args, S, ST)` (or the cooperative
        form) is tracked as `k<<<G, B, S, ST>>>(...)` is: the call, with hirace_g,
        hirace_b, hirace_s for G, B and S, runs inside a lambda called at once
        that tells the host runtime about the launch first. Edits go where the
        call is spelled, so a call in a macro's argument is tracked too (its
        arguments are then delimited in the text, by commas outside brackets).
        Its kernel arguments (`void**`) are not noted: the launch is opaque
        (opaque_parameter), taken to read and write every allocation."""
        in_macro = self.p.inside_macro(c)
        args = list(c.get_arguments())
        kernel = _launched_kernel(args[0]) if args else None
        src = self.p.file(c).source
        s = _spelling_offset(c.extent.start) if in_macro else c.extent.start.offset
        spans = _argument_spans(src, s + len(name)) if src[s : s + len(name)] == name.encode() \
            else None  # fmt: skip
        if kernel is None or spans is None or len(spans[0]) < 3:
            self.p.warn(c, "launch", f"this {name} launch is not tracked: its kernel must be "
                        "named in it, and the call spelled outside macro definitions")  # fmt: skip
            return
        printer = self.stringifying_macro(s, self.p.file(c).name) if in_macro else None
        if printer is not None:
            self.p.warn(c, "launch", f"macro '{printer}' turns its argument into text (#): "
                        f"that text now shows hirace's rewrite of '{name}'")  # fmt: skip
        arguments, e = spans
        texts = []
        replaced = (arguments[1], arguments[2], *arguments[4:6])
        for (start, end), var in zip(replaced, ("hirace_g", "hirace_b", "hirace_s", "hirace_st"),
                                     strict=False):  # fmt: skip
            texts.append(src[start:end].decode(errors="replace"))
            self.edit(c, edits.replace(start, end, var))
        shared = texts[2] if len(texts) > 2 else "0"
        stream = texts[3] if len(texts) > 3 else "0"
        self.edit(c, edits.wrap(
            s, e,
            "[&](dim3 hirace_g, dim3 hirace_b, size_t hirace_s, cudaStream_t hirace_st) "
            f"-> cudaError_t {{ hirace::host::before_launch({self.at(c, function, True)}, "
            f"hirace_unit(), {_c_string(kernel)}, hirace_g, hirace_b, hirace_s, hirace_st, "
            "true); "
            "cudaError_t hirace_e = ",
            f"; hirace::host::after_launch(); return hirace_e; }}({texts[0]}, {texts[1]}, "
            f"{shared}, {stream})",
        ))  # fmt: skip
        self.launches += 1
        if kernel not in self.kernel_names:
            self.p.warn(c, "launch", f"kernel '{kernel}' is not defined in this file: it "
                        "is checked only if its own file is instrumented too",
                        subject=kernel)  # fmt: skip

    def default_arguments(self, c: ci.Cursor, callee: ci.Cursor) -> None:
        """For the CPU backend, a launch that leaves trailing parameters to their
        default arguments gets them written out (`hr::launch` calls the kernel
        through a pointer, which has no default arguments): the default's text
        from the kernel's declaration, in parentheses, before the call's `)`."""
        ref = callee.referenced
        if self.target != "cpu" or ref is None or self.p.inside_macro(c):
            return
        explicit = len(self.p.explicit_arguments(c))
        params = list(ref.get_arguments())
        if len(params) <= explicit:
            return
        defaults = []
        for p in params[explicit:]:
            tokens = [t.spelling for t in p.get_tokens()]
            if "=" not in tokens:
                return  # not a default argument: leave the error to the compiler
            defaults.append(" ".join(tokens[tokens.index("=") + 1 :]))
        src = self.p.file(c).source
        end = c.extent.end.offset
        if src[end - 1 : end] != b")":
            return
        text = "".join(f"{', ' if explicit or i else ''}({d})" for i, d in enumerate(defaults))
        self.edit(c, edits.insert(end - 1, text))

    def launch_arguments(self, c: ci.Cursor) -> list[ci.Cursor]:
        """The kernel's arguments of the launch `c` (after `>>>`)."""
        closes = [t for t in self.p.tokens(c) if t.spelling == ">>>"]
        if not closes:
            return []
        gt = closes[0].extent.start.offset
        return [a for a in self.p.explicit_arguments(c) if a.extent.start.offset > gt]

    def launch(self, c: ci.Cursor, callee: ci.Cursor, config: ci.Cursor, function: str) -> None:
        self.default_arguments(c, callee)
        if not self.hooks:
            self.deduced_kernel(c, callee)
            return
        tokens = self.p.tokens(c)
        opens = [t for t in tokens if t.spelling == "<<<"]
        closes = [t for t in tokens if t.spelling == ">>>"]
        if not opens or not closes:
            self.p.warn(c, "launch", "kernel launch inside a macro is not tracked")
            return
        conf = self.p.explicit_arguments(config)
        if len(conf) < 2:
            return
        # A launch through a function pointer (a variable, an array element,
        # any expression) names its kernel at run time: the unit's
        # hirace_kernel_name finds it among the unit's kernels. A template
        # kernel in a template (an overload set until instantiation) is named.
        ref = callee.referenced
        through_pointer = ref is None or ref.kind not in (
            K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.OVERLOADED_DECL_REF)  # fmt: skip
        name = self.p.text(callee) if ref is None else ref.spelling
        kernel_name = (f"hirace_kernel_name((const void*)({self.p.text(callee)}), "
                       f"{_c_string(name)})" if through_pointer else _c_string(name))  # fmt: skip
        texts = [self.p.text(a) for a in conf[:4]]
        shared = texts[2] if len(texts) > 2 else "0"
        stream = texts[3] if len(texts) > 3 else "0"
        for a, var in zip(conf[:4], ("hirace_g", "hirace_b", "hirace_s", "hirace_st"),
                          strict=False):  # fmt: skip
            self.edit(c, edits.replace(a.extent.start.offset, a.extent.end.offset, var))
        lt, gt = opens[0], closes[0]
        if len(conf) < 4:
            missing = ", hirace_s, hirace_st" if len(conf) == 2 else ", hirace_st"
            self.edit(c, edits.insert(gt.extent.start.offset, missing))
        params = list(callee.referenced.get_arguments()) if callee.referenced is not None else []
        arguments = self.launch_arguments(c)
        # Whether the kernel may reach memory its pointer arguments do not show
        # (opaque_parameter): the runtime then takes it to read and write every
        # allocation (docs/profile.md).
        opaque = any(opaque_parameter(t) for t in itertools.chain(
            (p.type for p in params), (a.type for a in arguments)))  # fmt: skip
        for i, a in enumerate(arguments):
            # Pointer arguments are noted for the record (evaluated once, as
            # before), with whether the kernel's parameter points to const;
            # an object bound to a reference parameter, by its address.
            param = params[i].type.get_canonical() if i < len(params) else None
            by_reference = param is not None and param.kind == ci.TypeKind.LVALUEREFERENCE
            if by_reference:
                ro = "true" if param.get_pointee().is_const_qualified() else "false"
                self.edit(c, edits.wrap(a.extent.start.offset, a.extent.end.offset,
                                        "(*hirace::host::arg(&(", f"), {i}u, {ro}))"))  # fmt: skip
                continue
            if a.type.get_canonical().kind not in POINTER_KINDS or _null_constant(a):
                continue
            pointee = param.get_pointee() if param is not None else None
            readonly = pointee is not None and pointee.is_const_qualified()
            self.edit(c, edits.wrap(a.extent.start.offset, a.extent.end.offset,
                                    "hirace::host::arg(",
                                    f", {i}u, {'true' if readonly else 'false'})"))  # fmt: skip
        s, e = c.extent.start.offset, c.extent.end.offset
        self.edit(c, edits.wrap(
            s, e,
            "[&](dim3 hirace_g, dim3 hirace_b, size_t hirace_s, cudaStream_t hirace_st) { "
            f"hirace::host::before_launch({self.at(c, function, True)}, hirace_unit(), "
            f"{kernel_name}, hirace_g, hirace_b, hirace_s, hirace_st, "
            f"{'true' if opaque else 'false'}); ",
            f"; hirace::host::after_launch(); }}({texts[0]}, {texts[1]}, {shared}, {stream})",
        ))  # fmt: skip
        if self.target == "cpu":
            self.edit(c, edits.wrap(callee.extent.start.offset, callee.extent.end.offset,
                                    "::hr::launch(", ""))  # fmt: skip
            self.deduced_kernel(c, callee)
            self.edit(c, edits.replace(lt.extent.start.offset, lt.extent.end.offset, ", "))
            self.edit(c, edits.replace(gt.extent.start.offset, gt.extent.end.offset, ")"))
        self.launches += 1
        if name not in self.kernel_names and self.warn_uninstrumented and not through_pointer:
            self.p.warn(
                c,
                "launch",
                f"kernel '{name}' is not defined in this file: it is "
                "checked only if its own file is instrumented too",
                subject=name,
            )

    def device_symbols(self) -> list[tuple[str, int]]:
        """(name, granularity) of the unit's file-scope __device__ variables."""
        return [(v.name, v.gran_log2) for v in self.p.tables.variables if v.kind == "device"]


def unit_tables(tables: Tables, display: str, symbols: list[tuple[str, int]],
                config: Config) -> str:  # fmt: skip
    """C++ appended to a program unit: its tables, the hirace.toml settings the host
    runtime applies at run time, and its registration with the host runtime."""
    lo, hi = config.blocks or (0, 0)
    settings = (f"{config.report_capacity}u, {config.clock_bits or 0}u, "
                f"{'true' if config.sites else 'false'}, "
                f"{'true' if config.blocks else 'false'}, {lo}ull, {hi}ull")  # fmt: skip
    sites = (
        ",\n".join(
            f"  {{{_c_string(s.file)}, {s.line}u, {s.column}u, {int(Action[s.action])}u, "
            f"{_c_string(s.expr)}, {_c_string(s.function)}}}"
            for s in tables.sites
        )
        or '  {"", 0u, 0u, 0u, "", ""}'
    )
    names = ", ".join(_c_string(v.name) for v in tables.variables) or '""'
    warnings = (
        ",\n".join(
            f"  {{{_c_string(w.file)}, {w.line}u, {w.column}u, {_c_string(w.code)}, "
            f"{_c_string(w.message)}, {_c_string(w.subject)}}}"
            for w in tables.warnings
        )
        or '  {"", 0u, 0u, "", "", ""}'
    )
    # Only instrumented kernels: a launch of any other is not tracked (no shadow to prepare).
    instrumented = [k for k in tables.kernels if config.instrument_kernel(k.name)]
    kernels = (
        ",\n".join(f"  {{{_c_string(k.name)}, {k.shared_units}u}}" for k in instrumented)
        or '  {"", 0u}'
    )
    # Kernels a function pointer may hold, by address (templates have none
    # until instantiated; an overloaded name has no single address).
    counts: dict[str, int] = {}
    for k in tables.kernels:
        counts[k.qualified or k.name] = counts.get(k.qualified or k.name, 0) + 1
    by_address = "".join(
        f"  if (k == (const void*)&::{k.qualified or k.name}) return {_c_string(k.name)};\n"
        for k in instrumented
        if not k.template and counts[k.qualified or k.name] == 1
    )
    registrations = "".join(
        f"  hirace_register_symbol({n}, {g}u, {_c_string(n)});\n" for n, g in symbols
    )
    return f"""
// hirace: this translation unit's tables and its registration (generated).
static void hirace_register_symbols() {{
{registrations}}}
static void hirace_write_state(const hirace::State& s) {{
  ::cudaMemcpyToSymbol(hirace_state, &s, sizeof s);
}}
static const hirace::host::Site hirace_sites[] = {{
{sites}
}};
static const char* const hirace_variables[] = {{{names}}};
static const hirace::host::Warning hirace_warnings[] = {{
{warnings}
}};
static const hirace::host::KernelInfo hirace_kernels[] = {{
{kernels}
}};
static hirace::host::Unit& hirace_unit() {{
  static hirace::host::Unit unit{{
      {_c_string(display)}, hirace_sites, {len(tables.sites)}u, hirace_variables,
      {len(tables.variables)}u, hirace_kernels, {len(instrumented)}u,
      hirace_warnings, {len(tables.warnings)}u,
      {tables.dynamic_shared_offset}u, {tables.dynamic_shared_gran_log2}u,
      hirace_register_symbols, hirace_write_state, false}};
  return unit;
}}
static const char* hirace_kernel_name(const void* k, const char* spelled) {{
{by_address}  return spelled;
}}
static const hirace::host::Config hirace_config{{{settings}}};
static const bool hirace_registered = hirace::host::register_unit(&hirace_unit(), hirace_config);
"""
