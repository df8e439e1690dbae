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
    """A group's sync call: the group expression and whether it is the grid."""

    group: ci.Cursor
    grid: bool


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
    return GroupSync(group, "grid_group" in spelling)
