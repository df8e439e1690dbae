"""Declarations in place of definitions: the host runtime's calls, out of line.

templates/hirace_host.h.j2 wraps the CUDA and pthread call wrappers (every
`inline` function a program's rewritten host calls reach) in the `outlined`
filter, which renders the text twice:

- under `#if HIRACE_HOST_BODIES` (the runtime's own object, nvcc, the values
  engine), as written, each top-level `inline` of a function definition
  turned into `HIRACE_HOST_FN` (empty where the runtime's object defines
  them once, `inline` elsewhere);
- under `#else` (an instrumented unit built with the precompiled
  instrumented header, HIRACE_HOST_OUTLINED), each such definition as its
  declaration: the unit no longer parses, instantiates and compiles their
  bodies (0.13 CPU s of an Indigo3 unit's 0.9: docs/performance.md,
  "Indigo suites"). Everything else (templates, types, constants) is kept
  as written in both.

Guarantees: the text of the first rendering is the input with only those
`inline` keywords replaced; a definition is recognised only at the start of
a line at brace depth 0 and not after a `template <...>` line; braces,
parentheses and semicolons inside comments, string and character literals
are not counted.
"""

from __future__ import annotations

import re

_INLINE = "inline "
_STRING_OR_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                re.S)  # fmt: skip


def _code_mask(text: str) -> str:
    """`text` with comments and literals blanked (same length): what to scan."""
    return _STRING_OR_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _body(mask: str, start: int) -> tuple[int, int] | None:
    """For a definition starting at `start`: the offsets of its body's opening
    brace and one past its closing brace; None for a declaration."""
    depth = 0
    i = start
    while i < len(mask):
        ch = mask[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == ";" and depth == 0:
            return None
        elif ch == "{" and depth == 0:
            break
        i += 1
    else:
        raise ValueError(f"unterminated definition at offset {start}")
    open_ = i
    braces = 0
    for j in range(open_, len(mask)):
        if mask[j] == "{":
            braces += 1
        elif mask[j] == "}":
            braces -= 1
            if braces == 0:
                return open_, j + 1
    raise ValueError(f"unbalanced braces in the definition at offset {start}")


def _after_template(mask: str, i: int) -> bool:
    """Whether the line before offset `i` (a line start) is a template head:
    a function template stays a definition in both renderings."""
    previous = mask[:i].rstrip().rsplit("\n", 1)[-1].strip()
    return previous.startswith("template")


def _split(text: str) -> tuple[str, str]:
    """(bodies, declarations): the two renderings of the module's description."""
    mask = _code_mask(text)
    bodies, decls = [], []
    depth = 0
    last = i = 0
    while i < len(text):
        at_line_start = i == 0 or text[i - 1] == "\n"
        if (
            depth == 0
            and at_line_start
            and mask.startswith(_INLINE, i)
            and not _after_template(mask, i)
        ):
            span = _body(mask, i)
            if span is not None:
                open_, end = span
                bodies.append(text[last:i])
                decls.append(text[last:i])
                bodies.append("HIRACE_HOST_FN " + text[i + len(_INLINE) : end])
                decls.append(text[i + len(_INLINE) : open_].rstrip() + ";")
                last = i = end
                continue
        if mask[i] == "{":
            depth += 1
        elif mask[i] == "}":
            depth -= 1
        i += 1
    bodies.append(text[last:])
    decls.append(text[last:])
    return "".join(bodies), "".join(decls)


def outlined(text: str) -> str:
    """The Jinja filter: `text` as definitions for HIRACE_HOST_BODIES, else as
    declarations (the module's description)."""
    bodies, decls = _split(text)
    return f"#if HIRACE_HOST_BODIES\n{bodies}\n#else\n{decls}\n#endif\n"
