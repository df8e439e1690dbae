"""nvcc's spaced launch brackets, `k << < g, b >> > (args)`, made contiguous.

nvcc's front end accepts `<< <` and `>> >` as a launch configuration's
brackets; clang and hirace's CPU translation want `<<<` and `>>>`. `contiguous`
moves the blanks after the brackets, so every byte offset and line of the
source stays where it was (edits planned on the result apply to it as to the
original). `operator<< <T>` (an explicit template argument list) is left
alone, and a `>> >` is joined only when it closes a joined `<< <`, never in a
template argument list such as `A<B<C>> >`.
"""

from __future__ import annotations

from hirace_py.backends.cpu_source import Token, tokenize

_BLANK = ("space", "newline", "comment")


def _next_code(tokens: list[Token], i: int) -> int:
    while i < len(tokens) and tokens[i].kind in _BLANK:
        i += 1
    return i


def _previous_code(tokens: list[Token], i: int) -> int:
    while i >= 0 and tokens[i].kind in _BLANK:
        i -= 1
    return i


def _closing(tokens: list[Token], i: int) -> tuple[int, int] | None:
    """(index of `>>`, index of the `>` after blanks) closing a configuration
    that starts at token i; None if a `;` or unbalanced bracket comes first."""
    depth = 0
    while i < len(tokens):
        text = tokens[i].text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif text == ";" or depth < 0:
            return None
        elif depth == 0 and text == ">>":
            j = _next_code(tokens, i + 1)
            if j < len(tokens) and tokens[j].text == ">" and tokens[j].kind == "punct":
                return i, j
        i += 1
    return None


def contiguous(source: str) -> str:
    """`source` with every spaced launch bracket pair written `<<<` ... `>>>`."""
    if "<<" not in source:
        return source
    tokens = tokenize(source)
    chars = list(source)
    changed = False
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text != "<<" or t.kind != "punct":
            i += 1
            continue
        j = _next_code(tokens, i + 1)
        before = _previous_code(tokens, i - 1)
        if (j == i + 1 or j >= len(tokens) or tokens[j].text != "<"
                or (before >= 0 and tokens[before].text == "operator")):  # fmt: skip
            i += 1
            continue
        close = _closing(tokens, j + 1)
        if close is None:
            i += 1
            continue
        for first, second in ((i, j), close):
            if second == first + 1:
                continue
            a, b = tokens[first], tokens[second]
            gap = source[a.end : b.start]
            if "\n" in gap or "/" in gap:
                continue
            # `<<` + blanks + `<` becomes `<<<` + blanks: same length, same lines.
            chars[a.end] = b.text
            chars[a.end + 1 : b.end] = list(gap)
            changed = True
        i = close[1] + 1
    return "".join(chars) if changed else source
