"""Textual edits on source bytes: wraps, insertions and replacements that nest.

Every rewrite the instrumenter makes is one of these, so the output is the
user's source with text added around expressions, never re-printed from the
AST: formatting, comments and macros outside the edits survive untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

_order = count()


@dataclass(frozen=True)
class Edit:
    """Wrap [start, end) in prefix/suffix, or replace it (`replace` not None).

    A zero-width edit (start == end) is an insertion of `prefix`. Wraps may
    nest; a replacement may not contain other edits.
    """

    start: int
    end: int
    prefix: str = ""
    suffix: str = ""
    replace: str | None = None
    order: int = field(default_factory=lambda: next(_order))


def insert(pos: int, text: str) -> Edit:
    return Edit(pos, pos, prefix=text)


def wrap(start: int, end: int, prefix: str, suffix: str) -> Edit:
    return Edit(start, end, prefix, suffix)


def replace(start: int, end: int, text: str) -> Edit:
    return Edit(start, end, replace=text)


class EditConflict(ValueError):
    """Edits that overlap without nesting; the instrumenter reports these as warnings."""


def apply(text: bytes, edits: list[Edit], base: int = 0) -> bytes:
    """Apply edits (positions relative to `base`) to `text`.

    At one position, text is emitted as: suffixes of wraps ending there
    (innermost first), insertions (in creation order), prefixes of wraps
    starting there (outermost first), then any replacement starting there.
    """
    events: dict[int, list[tuple[tuple, str]]] = {}
    deleted: list[tuple[int, int]] = []
    for e in edits:
        s, t = e.start - base, e.end - base
        if not 0 <= s <= t <= len(text):
            raise EditConflict(f"edit [{e.start}, {e.end}) outside the text")
        if e.replace is not None:
            events.setdefault(s, []).append(((3, 0, e.order), e.replace))
            deleted.append((s, t))
        elif s == t:
            events.setdefault(s, []).append(((1, 0, e.order), e.prefix))
        else:
            events.setdefault(s, []).append(((2, -t, e.order), e.prefix))
            events.setdefault(t, []).append(((0, -s, -e.order), e.suffix))
    _check_nesting(edits, base)
    deleted.sort()
    out: list[bytes] = []
    pos = 0
    d = 0
    for p in sorted(events):
        if p < pos:
            continue
        out.append(text[pos:p])
        out.extend(s.encode() for _, s in sorted(events[p], key=lambda x: x[0]))
        pos = p
        while d < len(deleted) and deleted[d][0] == p:
            pos = max(pos, deleted[d][1])
            d += 1
    out.append(text[pos:])
    return b"".join(out)


def _check_nesting(edits: list[Edit], base: int) -> None:
    spans = sorted(
        ((e.start, e.end, e.replace is not None) for e in edits if e.start != e.end),
        key=lambda x: (x[0], -x[1]),
    )
    stack: list[tuple[int, int, bool]] = []
    for s, t, is_replace in spans:
        while stack and stack[-1][1] <= s:
            stack.pop()
        if stack:
            ps, pt, p_replace = stack[-1]
            if t > pt or p_replace:
                raise EditConflict(
                    f"edits [{ps - base}, {pt - base}) and [{s - base}, {t - base}) overlap"
                )
        stack.append((s, t, is_replace))
    for e in edits:
        if e.start == e.end:
            for s, t, is_replace in spans:
                if is_replace and s < e.start < t:
                    raise EditConflict(f"insertion at {e.start - base} inside a replacement")
