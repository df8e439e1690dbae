"""Cooperative-groups synchronization calls: which barrier each one is.

docs/semantics.md section 1.3: a thread block's sync is a block barrier, a
tile's or coalesced group's sync a warp barrier over the group's lanes, and a
grid group's sync a grid barrier. The instrumenter keeps the call and adds the
runtime's clock update after it: `group_barrier(n)` with the group's
`size()` (a block barrier when the group is the whole block, a warp
barrier over the tile's lanes when it fits in a warp), or `grid_barrier()`.

Calls are recognised by the declaration they call, a function or method named
`sync` in namespace `cooperative_groups` (at any depth, so the toolkit's
inline `__v1` namespace and its detail base classes count), and grid groups
by the static type of the group, whose canonical spelling names `grid_group`.
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from hirace_py.instrument.parse import stripped

K = ci.CursorKind
NAMESPACE = "cooperative_groups"


@dataclass(frozen=True)
class GroupSync:
    """A group's sync call: the group expression, whether it is the grid, and
    whether its static type makes its lanes a contiguous tile (a block, or a
    `thread_block_tile`) rather than any set (`thread_group`, coalesced)."""

    group: ci.Cursor
    grid: bool
    contiguous: bool

    @property
    def width(self) -> int | None:
        """The tile width of a `thread_block_tile<N>` group, 0 for a block or
        the grid, None for a group whose lanes the static type does not tell."""
        if not self.contiguous:
            return None
        return _tile_of(self.group.type.get_canonical().spelling) or 0


def _in_namespace(decl: ci.Cursor) -> bool:
    parent = decl.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if parent.kind == K.NAMESPACE and parent.spelling == NAMESPACE:
            return True
        parent = parent.semantic_parent
    return False


def moves_values_only(decl: ci.Cursor) -> bool:
    """Whether `decl` is cooperative groups' API other than its asynchronous
    copies: group handles, ranks, partitions, shuffles, votes, reduce and scan
    exchange values among the group's threads and touch no user memory, so
    calling them uninstrumented hides no access."""
    return _in_namespace(decl) and "memcpy_async" not in decl.spelling and decl.spelling != "wait"


def is_group(reference: ci.Type) -> bool:
    """Whether a reference type refers to a group (`const cg::thread_block&`):
    a handle the caller holds in registers, not memory worth tracking."""
    decl = reference.get_canonical().get_pointee().get_declaration()
    return decl.kind != K.NO_DECL_FOUND and _in_namespace(decl)


def group_sync(call: ci.Cursor, args: list[ci.Cursor]) -> GroupSync | None:
    """The group synchronised by `call` (`g.sync()` or `cg::sync(g)`), or None."""
    ref = call.referenced
    if ref is None or ref.spelling != "sync" or not _in_namespace(ref):
        return None
    if ref.kind == K.CXX_METHOD:
        kids = list(call.get_children())
        member = stripped(kids[0]) if kids else None
        if member is None or member.kind != K.MEMBER_REF_EXPR:
            return None
        objects = list(member.get_children())
        if not objects:
            return None
        group = objects[0]
    elif len(args) == 1:
        group = args[0]
    else:
        return None
    spelling = group.type.get_canonical().spelling
    name = spelling.replace("const ", "").rstrip(" &").split("<", 1)[0].rsplit("::", 1)[-1]
    return GroupSync(group, "grid_group" in spelling, name in ("thread_block", "thread_block_tile"))


def tile_width(call: ci.Cursor, args: list[ci.Cursor]) -> int | None:
    """The width of the tiles a `tiled_partition` call makes, 0 if the call is
    not one, None if the width is not a constant the source spells.

    `tiled_partition<N>(g)` returns a `thread_block_tile<N, ...>`, whose
    canonical type names N; `tiled_partition(g, N)` takes N as an argument,
    read when it is an integer literal.
    """
    ref = call.referenced
    if ref is None or ref.spelling != "tiled_partition" or not _in_namespace(ref):
        return 0
    width = _tile_of(call.type.get_canonical().spelling)
    if width:
        return width
    if len(args) == 2:
        return literal(args[1])
    return None


def literal(arg: ci.Cursor) -> int | None:
    """The value of an integer literal argument (decimal or hex), else None."""
    arg = stripped(arg)
    if arg.kind != K.INTEGER_LITERAL:
        return None
    token = next(iter(arg.get_tokens()), None)
    text = token.spelling.rstrip("uUlL").lower() if token is not None else ""
    try:
        return int(text, 16) if text.startswith("0x") else int(text)
    except ValueError:
        return None


def syncwarp_width(args: list[ci.Cursor]) -> int:
    """The group width a `__syncwarp(mask)` call asks for (group_log2): 32 for
    no mask, a full or a non-literal one; N for a literal mask of N aligned
    lanes; 0 for another literal, which no lane-group width makes exact."""
    if not args:
        return 32
    mask = literal(args[0])
    if mask is None or mask & 0xFFFFFFFF == 0xFFFFFFFF:
        return 32
    if mask <= 0 or mask > 0xFFFFFFFF:
        return 0
    first = (mask & -mask).bit_length() - 1
    run = mask >> first
    width = run.bit_length()
    contiguous = run & (run + 1) == 0
    return width if contiguous and width & (width - 1) == 0 and first % width == 0 else 0


def _tile_of(spelling: str) -> int:
    """N of a canonical `thread_block_tile<N, ...>` type spelling, else 0."""
    marker = "thread_block_tile<"
    if marker not in spelling:
        return 0
    digits = spelling.split(marker, 1)[1].split(",", 1)[0].split(">", 1)[0].strip()
    digits = digits.rstrip("uU")
    return int(digits) if digits.isdigit() else 0


def group_log2(barriers: set[int | None], tiles: set[int | None]) -> int:
    """log2 of the lane-group width the runtime's warp level stands for
    (docs/semantics.md 1.3, "Warp barriers in the runtime").

    `barriers` holds the width of every warp-level barrier the source calls
    (32 for `__syncwarp`, N for a `thread_block_tile<N>`'s sync, None for the
    sync of a group whose static type does not tell its lanes), `tiles` the
    widths of the tiles `tiled_partition` makes (None: not a constant). A
    group of unknown lanes may be any of those tiles. When every width is one
    N < 32, the groups are N-lane tiles; otherwise whole warps (5)."""
    widths = {w for w in barriers if w is not None}
    if None in barriers:
        widths |= tiles
    if len(widths) != 1 or None in widths:
        return 5
    (width,) = widths
    if not 0 < width < 32 or width & (width - 1):
        return 5
    return width.bit_length() - 1
