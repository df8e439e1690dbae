"""nvcc's dialect, written so that clang and g++ accept it, in place.

nvcc's front end accepts a few spellings that clang (hirace's parse) and g++
(the CPU backend) reject. `normalized` rewrites each of them into an
equivalent spelling of the same length, so every byte offset and line of the
source stays where it was (edits planned on the result apply to it as to the
original, and diagnostics keep their positions):

- spaced launch brackets `k << < g, b >> > (...)` (launch_syntax.contiguous);
- `__shared__ alignas(X) T v;`: a standard attribute after the (GNU)
  `__shared__` attribute, which clang and g++ refuse in the middle of the
  declaration specifiers, becomes `alignas(X) __shared__ T v;` (on one line;
  written across lines it is left as it is);
- inline-assembly operands separated by blanks only, `:: "r"(a) "l"(p)`:
  the first blank becomes the comma nvcc infers;
- a string literal written against a CUDA specifier, `extern "C"__global__`:
  C++11 reads `"C"__global__` as a literal with a user-defined suffix
  (clang: "string literal with user-defined suffix cannot be used here"),
  nvcc expands the macro; the blank before the literal moves after it,
  `extern"C" __global__`.
"""

from __future__ import annotations

from hirace_py.backends.cpu_source import Token, tokenize
from hirace_py.instrument.launch_syntax import contiguous

_BLANK = ("space", "newline", "comment")
_ASM = frozenset({"asm", "__asm__", "__asm"})
_ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "__volatile", "goto", "inline"})
# CUDA's specifiers, macros in nvcc's headers (and in hirace's parse prelude).
_SPECIFIERS = frozenset({
    "__global__", "__device__", "__host__", "__forceinline__", "__noinline__",
    "__shared__", "__constant__", "__managed__", "__launch_bounds__",
})  # fmt: skip


def _next_code(tokens: list[Token], i: int) -> int:
    while i < len(tokens) and tokens[i].kind in _BLANK:
        i += 1
    return i


def _balanced_end(tokens: list[Token], i: int) -> int | None:
    """Index of the bracket closing the one at token i, or None."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].kind != "punct":
            continue
        if tokens[j].text in "([{":
            depth += 1
        elif tokens[j].text in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _shared_alignas(source: str, tokens: list[Token], chars: list[str]) -> bool:
    changed = False
    for i, t in enumerate(tokens):
        if t.kind != "ident" or t.text != "__shared__":
            continue
        j = _next_code(tokens, i + 1)
        if j >= len(tokens) or tokens[j].text not in ("alignas", "_Alignas"):
            continue
        paren = _next_code(tokens, j + 1)
        if paren >= len(tokens) or tokens[paren].text != "(":
            continue
        close = _balanced_end(tokens, paren)
        if close is None:
            continue
        # `__shared__ <gap> alignas(X)` becomes `alignas(X) <gap> __shared__`.
        gap = source[t.end : tokens[j].start]
        if "\n" in gap or "/" in gap or "\n" in source[tokens[j].start : tokens[close].end]:
            continue  # moved text must not carry a line break across lines
        spec = source[tokens[j].start : tokens[close].end]
        chars[t.start : tokens[close].end] = list(spec + gap + t.text)
        changed = True
    return changed


def _asm_commas(tokens: list[Token], chars: list[str]) -> bool:
    changed = False
    i = 0
    while i < len(tokens):
        if tokens[i].kind != "ident" or tokens[i].text not in _ASM:
            i += 1
            continue
        j = _next_code(tokens, i + 1)
        while j < len(tokens) and tokens[j].text in _ASM_QUALIFIERS:
            j = _next_code(tokens, j + 1)
        if j >= len(tokens) or tokens[j].text != "(":
            i += 1
            continue
        close = _balanced_end(tokens, j)
        if close is None:
            return changed
        depth, colons = 0, 0
        for k in range(j + 1, close):
            t = tokens[k]
            if t.kind == "punct" and t.text in "([{":
                depth += 1
            elif t.kind == "punct" and t.text in ")]}":
                depth -= 1
                nxt = _next_code(tokens, k + 1)
                # An operand `"c"(x)` followed, after blanks only, by the next
                # operand's constraint string.
                if (depth == 0 and 1 <= colons <= 2 and nxt < close
                        and tokens[nxt].kind == "string" and nxt > k + 1
                        and tokens[k + 1].kind == "space"):  # fmt: skip
                    chars[tokens[k + 1].start] = ","
                    changed = True
            elif depth == 0 and t.kind == "punct" and t.text in (":", "::"):
                colons += len(t.text)
        i = close + 1
    return changed


def _literal_suffixes(tokens: list[Token], chars: list[str]) -> bool:
    changed = False
    for i in range(1, len(tokens) - 1):
        string, after = tokens[i], tokens[i + 1]
        if string.kind != "string" or after.kind != "ident" or after.text not in _SPECIFIERS:
            continue
        before = tokens[i - 1]
        if before.kind != "space" or after.start != string.end:
            continue
        # ` "C"` becomes `"C" `: the blank moves from before the literal to after it.
        chars[string.start - 1 : string.end] = list(string.text + " ")
        changed = True
    return changed


def normalized(source: str) -> str:
    """`source` with nvcc-only spellings rewritten in place (same length, same lines)."""
    source = contiguous(source)
    if "__shared__" not in source and "asm" not in source and '"__' not in source:
        return source
    tokens = tokenize(source)
    chars = list(source)
    changed = _shared_alignas(source, tokens, chars)
    changed = _asm_commas(tokens, chars) or changed
    changed = _literal_suffixes(tokens, chars) or changed
    return "".join(chars) if changed else source
