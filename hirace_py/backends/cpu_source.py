"""Reads a CUDA source for the CPU backend and prepares it for g++.

`translate` finds the `__global__` kernels and the `__device__`/`__constant__`
variables at namespace scope, and returns the source with:
- a pair of `extern "C"` launch entry points inserted after each kernel's
  definition (so that they sit inside the same `#if` branch as the kernel, and
  vanish with it when that branch is inactive), and an address accessor after
  each variable;
- every `extern __shared__ T name[];` replaced by a reference to the launch's
  dynamic shared buffer, and `static` dropped next to `__shared__` (the runtime
  header already makes `__shared__` mean `static`); after each other
  `__shared__` declaration (on its line), the registration of each variable it
  declares (`hr::SharedRegion`, which a cooperative launch needs to keep one
  copy per block).
Line numbers of the user's source are kept: replacements stay on their lines
and each insertion ends with a `#line` marker.

The scanner is a tokenizer, not a C++ parser. It understands comments, string
literals, preprocessor directives, `#if` branches it can decide (from the
defines it is given and the file's own `#define`s), namespaces, `extern "C"`
blocks and brace nesting; parameter types are taken from the compiler
(`TypeCode` in cuda_cpu_launch.h), so only names come from here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from hirace_py.backends.cpu_errors import CompileError

_TOKEN_RE = re.compile(
    r"""
    (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+|\\\r?\n)
  | (?P<comment>//(?:[^\n\\]|\\.)*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
  | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*)
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>::|->\*?|\.\.\.|<<=|>>=|&&|\|\||\+\+|--|<<|>>|[-+*/%&|^!=<>]=|\#\#|.)
    """,
    re.S | re.X,
)

# Identifiers that take a parenthesized argument but are not declarator names.
_ATTRIBUTE_LIKE = frozenset(
    {
        "__launch_bounds__",
        "__maxnreg__",
        "__attribute__",
        "__align__",
        "__declspec",
        "alignas",
        "decltype",
        "noexcept",
        "throw",
        "sizeof",
        "alignof",
        "__restrict__",
    }
)

_TYPE_WORDS = frozenset(
    {
        "void", "bool", "char", "short", "int", "long", "float", "double", "signed",
        "unsigned", "const", "volatile", "__restrict__", "__restrict", "restrict",
        "struct", "class", "union", "enum", "typename", "size_t", "ptrdiff_t",
    }
)  # fmt: skip

_DEVICE_VARIABLE_SPECIFIERS = frozenset({"__device__", "__constant__", "__managed__"})


class Token(NamedTuple):
    kind: str
    text: str
    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Param:
    """A kernel parameter as written: its name (or argN) and type text."""

    name: str
    type_text: str


@dataclass
class KernelDecl:
    """A `__global__` function defined in the source."""

    name: str  # as written in the declarator (may be qualified: ns::k)
    qualified: str  # with the enclosing named namespaces: ns::k
    line: int
    params: list[Param]
    is_template: bool
    index: int = -1  # entry point hr_kernel_<index>, -1 for templates


@dataclass
class GlobalDecl:
    """A `__device__`/`__constant__`/`__managed__` variable at namespace scope."""

    name: str
    qualified: str
    line: int
    index: int


@dataclass
class TranslationUnit:
    """The result of `translate`: what g++ compiles, and what it contains."""

    text: str
    kernels: list[KernelDecl] = field(default_factory=list)
    globals: list[GlobalDecl] = field(default_factory=list)
    includes: list[tuple[str, bool]] = field(default_factory=list)  # (name, angled)


class Renderer:
    """What `translate` needs from the module template (cuda_cpu_module.cpp.j2)."""

    def prologue(self, filename: str) -> str:
        raise NotImplementedError

    def kernel_stub(self, index: int, name: str, address: str, line: int, filename: str) -> str:
        """After kernel `name`'s definition; `address` is its address as an
        expression (`kernel_address`)."""
        raise NotImplementedError

    def global_accessor(self, index: int, name: str, line: int, filename: str) -> str:
        raise NotImplementedError

    def extern_shared(self, type_text: str, name: str) -> str:
        raise NotImplementedError


def tokenize(source: str) -> list[Token]:
    """All tokens of `source`, comments and whitespace included, with lines."""
    tokens: list[Token] = []
    line = 1
    for m in _TOKEN_RE.finditer(source):
        kind = m.lastgroup or "punct"
        text = m.group()
        tokens.append(Token(kind, text, m.start(), m.end(), line))
        line += text.count("\n")
    return tokens


def quote_filename(filename: str) -> str:
    """`filename` escaped for a string literal in #line and diagnostics."""
    return filename.replace("\\", "\\\\").replace('"', '\\"')


class _Conditionals:
    """Tracks #if nesting; decides branches when the outcome is known.

    Each level holds the state of the current branch (True, False, or None when
    unknown, which is scanned as if active) and whether an earlier branch of the
    level was known to be taken or might have been.
    """

    def __init__(self, macros: dict[str, str | None]) -> None:
        self.macros = dict(macros)
        self.undefined: set[str] = set()
        self.levels: list[list[bool | None]] = []  # [state, taken (True/None/False)]

    def active(self) -> bool:
        return all(level[0] is not False for level in self.levels)

    def is_defined(self, name: str) -> bool | None:
        if name in self.macros:
            return True
        if name in self.undefined:
            return False
        return None

    def directive(self, name: str, rest: list[Token]) -> None:
        if name in ("if", "ifdef", "ifndef"):
            if not self.active():
                self.levels.append([False, True])
                return
            if name == "if":
                state = self.evaluate(rest)
            else:
                known = self.is_defined(rest[0].text) if rest else None
                state = known if name == "ifdef" or known is None else not known
            self.levels.append([state, state])
        elif name in ("elif", "else") and self.levels:
            level = self.levels[-1]
            cond = self.evaluate(rest) if name == "elif" else True
            if level[1] is True:
                state: bool | None = False
            elif level[1] is False:
                state = cond
            else:
                state = False if cond is False else None
            level[0] = state
            level[1] = (
                True
                if level[1] is True or state is True
                else (None if level[1] is None or state is None else False)
            )
        elif name == "endif" and self.levels:
            self.levels.pop()
        elif name == "define" and rest and self.active():
            value = "".join(t.text for t in rest[1:]).strip() or None
            self.macros[rest[0].text] = value
            self.undefined.discard(rest[0].text)
        elif name == "undef" and rest and self.active():
            self.macros.pop(rest[0].text, None)
            self.undefined.add(rest[0].text)

    def evaluate(self, tokens: list[Token]) -> bool | None:
        """Value of a #if expression, or None if it depends on unknown macros."""
        values: list[str] = []
        i = 0
        while i < len(tokens):
            t = tokens[i]
            if t.text == "defined":
                j = i + 1
                paren = j < len(tokens) and tokens[j].text == "("
                name_tok = tokens[j + 1] if paren else (tokens[j] if j < len(tokens) else None)
                if name_tok is None:
                    return None
                known = self.is_defined(name_tok.text)
                if known is None:
                    return None
                values.append("1" if known else "0")
                i = j + (3 if paren else 1)
                continue
            if t.kind == "ident":
                if t.text in ("true", "false"):
                    values.append("1" if t.text == "true" else "0")
                elif self.is_defined(t.text) is False:
                    values.append("0")
                else:
                    value = self.macros.get(t.text)
                    number = _parse_int(value) if value is not None else None
                    if number is None:
                        return None
                    values.append(str(number))
            elif t.kind == "number":
                number = _parse_int(t.text)
                if number is None:
                    return None
                values.append(str(number))
            else:
                values.append(t.text)
            i += 1
        result = _evaluate_int_expression(values)
        return None if result is None else result != 0


def _parse_int(text: str) -> int | None:
    text = text.strip().rstrip("uUlL")
    try:
        if text.lower().startswith("0x"):
            return int(text, 16)
        if len(text) > 1 and text.startswith("0") and text.isdigit():
            return int(text, 8)
        return int(text)
    except ValueError:
        return None


_BINARY_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
    "*": 10, "/": 10, "%": 10,
}  # fmt: skip


def _evaluate_int_expression(items: list[str]) -> int | None:
    """Evaluates C preprocessor integer arithmetic (numbers already substituted)."""
    pos = 0

    def unary() -> int | None:
        nonlocal pos
        if pos >= len(items):
            return None
        tok = items[pos]
        pos += 1
        if tok == "(":
            value = binary(0)
            if pos >= len(items) or items[pos] != ")":
                return None
            pos += 1
            return value
        operand = unary() if tok in ("!", "-", "+", "~") else None
        if tok == "!":
            return None if operand is None else int(not operand)
        if tok == "-":
            return None if operand is None else -operand
        if tok == "+":
            return operand
        if tok == "~":
            return None if operand is None else ~operand
        return int(tok) if tok.lstrip("-").isdigit() else None

    def binary(min_prec: int) -> int | None:
        nonlocal pos
        left = unary()
        while left is not None and pos < len(items):
            op = items[pos]
            prec = _BINARY_PRECEDENCE.get(op)
            if prec is None or prec <= min_prec:
                break
            pos += 1
            right = binary(prec)
            if right is None:
                return None
            left = _apply(op, left, right)
        return left

    value = binary(0)
    return value if pos == len(items) else None


def _apply(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%") and b == 0:
        return None
    return {
        "||": lambda: int(bool(a) or bool(b)),
        "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "<": lambda: int(a < b), ">": lambda: int(a > b),
        "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
        "<<": lambda: a << b, ">>": lambda: a >> b,
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "/": lambda: int(a / b), "%": lambda: a - b * int(a / b),
    }[op]()  # fmt: skip


def _active_code(
    tokens: list[Token], macros: dict[str, str | None]
) -> tuple[list[Token], list[tuple[str, bool]]]:
    """Code tokens of active (or undecidable) #if branches, and the #includes."""
    conditionals = _Conditionals(macros)
    code: list[Token] = []
    includes: list[tuple[str, bool]] = []
    at_line_start = True
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "newline":
            at_line_start = True
            i += 1
            continue
        if t.kind in ("space", "comment"):
            i += 1
            continue
        if at_line_start and t.text == "#":
            j = i + 1
            words: list[Token] = []
            while j < len(tokens) and tokens[j].kind != "newline":
                if tokens[j].kind not in ("space", "comment"):
                    words.append(tokens[j])
                j += 1
            if words:
                name = words[0].text
                if name == "include" and conditionals.active() and len(words) > 1:
                    includes.append(_include_target(words[1:]))
                conditionals.directive(name, words[1:])
            i = j
            continue
        at_line_start = False
        if conditionals.active():
            code.append(t)
        i += 1
    return code, [inc for inc in includes if inc[0]]


def _include_target(words: list[Token]) -> tuple[str, bool]:
    if words[0].kind == "string":
        return words[0].text[1:-1], False
    if words[0].text == "<":
        return "".join(w.text for w in words[1:] if w.text != ">"), True
    return "", False


def _matching(code: list[Token], i: int, open_: str, close: str) -> int:
    """Index of the token closing the group opened at code[i]."""
    depth = 0
    for j in range(i, len(code)):
        if code[j].text == open_:
            depth += 1
        elif code[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise _ScanError(code[i], f"unbalanced '{open_}'")


class _ScanError(Exception):
    def __init__(self, token: Token, message: str) -> None:
        super().__init__(message)
        self.token = token


def _split_top_level(tokens: list[Token], separator: str = ",") -> list[list[Token]]:
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        if t.text in ("(", "[", "{", "<"):
            depth += 1
        elif t.text in (")", "]", "}", ">"):
            depth -= 1
        elif t.text == ">>":
            depth -= 2
        if t.text == separator and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def _strip_attributes(tokens: list[Token]) -> list[Token]:
    """Removes attribute-like groups: __align__(16), __attribute__((...)), ..."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text in _ATTRIBUTE_LIKE and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            i = _matching(tokens, i + 1, "(", ")") + 1
            continue
        out.append(t)
        i += 1
    return out


def _without_template_heads(tokens: list[Token]) -> list[Token]:
    """The tokens after any leading `template <...>` heads, whose parameters
    (`class T`, `typename T`) do not make the declaration a class."""
    i = 0
    while i + 1 < len(tokens) and tokens[i].text == "template" and tokens[i + 1].text == "<":
        angle, paren, j = 0, 0, i + 1
        while j < len(tokens):
            text = tokens[j].text
            j += 1
            if text in ("(", ")"):
                paren += 1 if text == "(" else -1
            elif paren == 0 and text in ("<", ">", ">>"):
                angle += 1 if text == "<" else -len(text)
                if angle <= 0:
                    break
        i = j
    return tokens[i:]


def _outside_parentheses(tokens: list[Token], opening: str = "(", closing: str = ")") -> list[str]:
    """Texts of the tokens not inside (...) groups (parameter lists, attributes),
    or inside the groups of another pair of brackets."""
    texts: list[str] = []
    depth = 0
    for t in tokens:
        if t.text == opening:
            depth += 1
        elif t.text == closing:
            depth -= 1
        elif depth == 0:
            texts.append(t.text)
    return texts


def _declarator_name(decl: list[Token]) -> tuple[int, str] | None:
    """Position of the '(' opening a function's parameters, and its name as written."""
    i = 0
    while i < len(decl):
        t = decl[i]
        if t.kind == "ident" and i + 1 < len(decl) and decl[i + 1].text == "(":
            if t.text in _ATTRIBUTE_LIKE:
                i = _matching(decl, i + 1, "(", ")") + 1
                continue
            name = t.text
            k = i
            while k >= 2 and decl[k - 1].text == "::" and decl[k - 2].kind == "ident":
                name = f"{decl[k - 2].text}::{name}"
                k -= 2
            return i + 1, name
        if t.text == "(":
            i = _matching(decl, i, "(", ")") + 1
            continue
        i += 1
    return None


def kernel_address(kernel: KernelDecl, overloaded: bool) -> str:
    """The address of a (non-template) kernel as a C++ expression: `&k`, or, when
    the unit defines more than one kernel of its name (overloads, as CUDA allows),
    the cast that picks this one by its parameter types."""
    if not overloaded:
        return f"&{kernel.name}"
    params = ", ".join(p.type_text for p in kernel.params)
    return f"static_cast<void (*)({params})>(&{kernel.name})"


def _param(tokens: list[Token], position: int) -> Param:
    tokens = _strip_attributes(tokens)
    for k, t in enumerate(tokens):
        if t.text == "=":
            tokens = tokens[:k]
            break
    name = ""
    type_tokens = tokens
    if any(t.text == "[" for t in tokens):
        k = next(k for k, t in enumerate(tokens) if t.text == "[")
        if k > 0 and tokens[k - 1].kind == "ident":
            name = tokens[k - 1].text
            type_tokens = [*tokens[: k - 1], *tokens[k:]]
    elif len(tokens) > 1 and tokens[-1].kind == "ident" and tokens[-1].text not in _TYPE_WORDS:
        name = tokens[-1].text
        type_tokens = tokens[:-1]
    type_text = " ".join(t.text for t in type_tokens)
    type_text = re.sub(r"\s*([*&\[\]])", r"\1", type_text).replace("[ ", "[")
    return Param(name or f"arg{position}", type_text)


def _parameters(decl: list[Token], open_paren: int) -> list[Param]:
    close = _matching(decl, open_paren, "(", ")")
    inner = decl[open_paren + 1 : close]
    if not inner or (len(inner) == 1 and inner[0].text == "void"):
        return []
    return [_param(p, k) for k, p in enumerate(_split_top_level(inner))]


class _Scanner:
    """Walks namespace-scope declarations and collects kernels and variables."""

    def __init__(self, code: list[Token]) -> None:
        self.code = code
        self.namespaces: list[str | None] = []  # None: extern "C" block or anonymous
        self.kernels: list[tuple[KernelDecl, Token]] = []  # with the token to insert after
        self.variables: list[tuple[GlobalDecl, Token]] = []

    def qualify(self, name: str) -> str:
        return "::".join([n for n in self.namespaces if n] + [name])

    def run(self) -> None:
        code = self.code
        decl: list[Token] = []
        i = 0
        while i < len(code):
            t = code[i]
            if t.text == "(":
                close = _matching(code, i, "(", ")")
                decl.extend(code[i : close + 1])
                i = close + 1
            elif t.text == "{":
                i, keep = self.open_brace(decl, i)
                if not keep:
                    decl = []
            elif t.text == ";":
                self.declaration(decl, t)
                decl = []
                i += 1
            elif t.text == "}":
                if self.namespaces:
                    self.namespaces.pop()
                decl = []
                i += 1
            else:
                decl.append(t)
                i += 1

    def open_brace(self, decl: list[Token], i: int) -> tuple[int, bool]:
        """Handles '{' at namespace scope: returns where to go on, and whether
        the declaration continues after the braces (initializers, class bodies)."""
        texts = [t.text for t in decl]
        if "namespace" in texts[:2]:
            words = [
                t.text for t in decl if t.kind == "ident" and t.text not in ("namespace", "inline")
            ]
            self.namespaces.append("::".join(words) or None)
            return i + 1, False
        if texts in (["extern", '"C"'], ["extern", '"C++"']):
            self.namespaces.append(None)
            return i + 1, False
        close = _matching(self.code, i, "{", "}")
        outer = _outside_parentheses(_without_template_heads(decl))
        if "=" in outer or any(w in outer for w in ("struct", "class", "union", "enum")):
            decl.extend(self.code[i : close + 1])
            return close + 1, True
        self.definition(decl, self.code[close])
        return close + 1, False

    def definition(self, decl: list[Token], last: Token) -> None:
        if not any(t.text == "__global__" for t in decl):
            return
        found = _declarator_name(decl)
        if found is None:
            return
        open_paren, name = found
        kernel = KernelDecl(
            name=name,
            qualified=self.qualify(name),
            line=decl[open_paren - 1].line,
            params=_parameters(decl, open_paren),
            is_template=decl[0].text == "template",
        )
        self.kernels.append((kernel, last))

    def declaration(self, decl: list[Token], semicolon: Token) -> None:
        # A class body's `__device__` methods do not make the class a variable.
        texts = set(_outside_parentheses(decl, "{", "}"))
        if not texts & _DEVICE_VARIABLE_SPECIFIERS:
            return
        if texts & {"__global__", "extern", "template", "typedef", "__shared__", "using"}:
            return
        words = _strip_attributes(decl)
        before_init = next((words[:k] for k, t in enumerate(words) if t.text == "="), words)
        if _declarator_name(before_init) is not None:
            return  # a function prototype
        for part in _split_top_level(words):
            head: list[Token] = []
            for t in part:
                if t.text in ("=", "["):
                    break
                head.append(t)
            idents = [t for t in head if t.kind == "ident"]
            if not idents or idents[-1].text in _TYPE_WORDS | _DEVICE_VARIABLE_SPECIFIERS:
                continue
            name = idents[-1].text
            self.variables.append(
                (GlobalDecl(name, self.qualify(name), idents[-1].line, -1), semicolon)
            )


def _shared_edits(code: list[Token], source: str, renderer: Renderer) -> list[tuple[int, int, str]]:
    """Rewrites of `extern __shared__` declarations and `static __shared__`."""
    edits: list[tuple[int, int, str]] = []
    done: set[int] = set()
    for k, t in enumerate(code):
        if t.text != "__shared__":
            continue
        start = k
        while start > 0 and code[start - 1].text not in (";", "{", "}"):
            start -= 1
        end = k
        while end < len(code) and code[end].text != ";":
            end += 1
        if start in done or end >= len(code):
            continue
        done.add(start)
        statement = code[start:end]
        if any(s.text == "extern" for s in statement):
            text = _extern_shared(statement, renderer)
            span = source[code[start].start : code[end].end]
            edits.append((code[start].start, code[end].end, text + "\n" * span.count("\n")))
        else:
            edits.extend(
                (s.start, s.end, " " * len(s.text)) for s in statement if s.text == "static"
            )
            names = _shared_names(statement[statement.index(t) + 1 :])
            registrations = "".join(
                f" static ::hr::SharedRegion hr_shared_{t.start}_{i}"
                f"(__builtin_addressof({name}), sizeof({name}));"
                for i, name in enumerate(names)
            )
            edits.append((code[end].end, code[end].end, registrations))
    return edits


def _shared_names(declarators: list[Token]) -> list[str]:
    """The variable names of the declarators after `__shared__` (`int a[4], b`:
    a and b): the last identifier of each comma-separated part before its
    array bounds or initializer."""
    names: list[str] = []
    part: list[Token] = []
    depth = angles = 0
    cut = False
    for t in [*_strip_attributes(declarators), None]:
        if t is None or (t.text == "," and depth == 0 and angles == 0):
            idents = [p for p in part if p.kind == "ident" and p.text not in _TYPE_WORDS]
            if idents:
                names.append(idents[-1].text)
            part, cut = [], False
            continue
        if depth == 0 and angles == 0 and t.text in ("[", "=", "{", "("):
            cut = True
        if not cut and depth == 0 and angles == 0:
            part.append(t)
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.text == "<":
            angles += 1
        elif depth == 0 and t.text in (">", ">>"):
            angles -= len(t.text)
    return names


def _extern_shared(statement: list[Token], renderer: Renderer) -> str:
    words = [
        t for t in _strip_attributes(statement) if t.text not in ("extern", "__shared__", "static")
    ]
    brackets = [i for i, t in enumerate(words) if t.text == "["]
    if (
        not brackets
        or brackets[0] == 0
        or words[brackets[0] - 1].kind != "ident"
        or brackets[0] + 1 >= len(words)
        or words[brackets[0] + 1].text != "]"
        or any(t.text in (",", "=") for t in words)
    ):
        raise _ScanError(
            statement[0],
            "unsupported `extern __shared__` declaration: expected `extern __shared__ T name[];`",
        )
    b = brackets[0]
    name = words[b - 1].text
    type_text = " ".join(t.text for t in words[: b - 1]) + "".join(t.text for t in words[b + 2 :])
    return renderer.extern_shared(type_text, name)


_LINE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*line[ \t]+(\d+)", re.MULTILINE)


def _user_lines(source: str) -> Callable[[int], int]:
    """Maps a line of `source` to the line its `#line` directives say it is (an
    instrumented source starts with a header, then `#line 1 "file"`)."""
    directives = [(source.count("\n", 0, m.start()) + 1, int(m.group(1)))
                  for m in _LINE_DIRECTIVE.finditer(source)]  # fmt: skip

    def user_line(line: int) -> int:
        for at, number in reversed(directives):
            if at < line:
                return number + line - at - 1
        return line

    return user_line


def translate(
    source: str, filename: str, macros: dict[str, str | None], renderer: Renderer
) -> TranslationUnit:
    """Prepares `source` (named `filename` in diagnostics) for g++; see module doc.

    `macros` are the macros known to be defined before the source (the user's
    defines and the runtime's), used to decide #if branches.
    """
    try:
        code, includes = _active_code(tokenize(source), macros)
        scanner = _Scanner(code)
        scanner.run()
        edits = _shared_edits(code, source, renderer)
    except _ScanError as exc:
        raise CompileError(
            f"{filename}:{exc.token.line}: error: {exc}", filename, exc.token.line
        ) from None
    unit = TranslationUnit(text="", includes=includes)
    quoted = quote_filename(filename)
    user_line = _user_lines(source)
    defined = Counter(k.name for k, _ in scanner.kernels if not k.is_template)
    for kernel, last in scanner.kernels:
        if not kernel.is_template:
            kernel.index = len([k for k in unit.kernels if k.index >= 0])
            stub = renderer.kernel_stub(kernel.index, kernel.name,
                                        kernel_address(kernel, defined[kernel.name] > 1),
                                        user_line(last.line), quoted)  # fmt: skip
            edits.append((last.end, last.end, "\n" + stub.strip("\n") + "\n"))
        unit.kernels.append(kernel)
    for variable, last in scanner.variables:
        variable.index = len(unit.globals)
        accessor = renderer.global_accessor(variable.index, variable.name,
                                            user_line(last.line), quoted)  # fmt: skip
        edits.append((last.end, last.end, "\n" + accessor.strip("\n") + "\n"))
        unit.globals.append(variable)
    pieces = [renderer.prologue(quoted), "\n"]
    position = 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        pieces.append(source[position:start])
        pieces.append(text)
        position = end
    pieces.append(source[position:])
    unit.text = "".join(pieces)
    return unit
