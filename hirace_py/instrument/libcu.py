"""libcu++ atomics: which calls are atomic accesses, of what kind, scope and order.

docs/semantics.md 1.2: an operation on a `cuda::atomic`, `cuda::std::atomic`
(an atomic object) or through a `cuda::atomic_ref`, `cuda::std::atomic_ref`
(a reference to one) is one atomic action on the object, of the class's
thread scope (block: `BA`; device or system: `GA`; thread: a plain access,
since such an atomic is atomic only to its own thread), with the memory order
its arguments give (seq_cst by default). `cuda::atomic_thread_fence` and
`cuda::std::atomic_thread_fence` are fences.

Classes, members and fences are recognised by the declarations the call
resolves to, named as the catalogue's [libcu] table names them
(hirace_py/cuda_api.toml) with libcu++'s inline namespaces (`__4`) left out,
so the toolkit's headers and hirace's CPU-backend headers read the same. A
member is classified by its name (the table's `members`), an implicit
conversion to the value type as a load. The scope is read from the canonical
spelling of the class (`cuda::atomic<int, cuda::std::thread_scope_block>`);
the classes' default is system.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import clang.cindex as ci

from hirace_py import cuda_api
from hirace_py.instrument.parse import stripped

K = ci.CursorKind
T = ci.TypeKind

ORDERS = ("relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst")
# What each order does in message passing (docs/semantics.md 1.6):
# (acquires, releases). consume is treated as acquire, as compilers do.
_EFFECT = {"relaxed": (False, False), "consume": (True, False), "acquire": (True, False),
           "release": (False, True), "acq_rel": (True, True), "seq_cst": (True, True)}  # fmt: skip
# Order names by effect, for combining the two orders of a compare-exchange.
_BY_EFFECT = {(False, False): "relaxed", (True, False): "acquire", (False, True): "release",
              (True, True): "acq_rel"}  # fmt: skip
UNKNOWN = "unknown"
"""An order hirace cannot read from the source (a variable): counted as acq_rel."""

_SCOPE = re.compile(r"\bthread_scope_(\w+)\b")


@dataclass(frozen=True)
class AtomicType:
    """A libcu++ atomic class: an object or a reference, and its scope."""

    reference: bool
    scope: str
    """"system", "device", "block" or "thread"."""


@dataclass(frozen=True)
class AtomicOp:
    """One atomic operation: on what object, what it does, in which order."""

    obj: ci.Cursor
    """The object expression as written (a pointer to it when `arrow`)."""
    arrow: bool
    type: AtomicType
    member: str
    kind: str
    """"load", "store" or "rmw" (catalogue [libcu.members])."""
    order: str
    """One of ORDERS, or UNKNOWN."""


UNKNOWN_BIT = 4
"""The runtime's order bit of an order it cannot read: counted as ordered, but
it neither acquires nor releases (message passing takes no edge it is not
sure of; docs/semantics.md 1.6)."""


def order_bits(order: str) -> int:
    """The runtime's encoding of an order: bit 0 acquires, bit 1 releases;
    UNKNOWN_BIT for an order hirace cannot read."""
    if order not in _EFFECT:
        return UNKNOWN_BIT
    acquires, releases = _EFFECT[order]
    return int(acquires) | int(releases) << 1


def _qualified(decl: ci.Cursor) -> str:
    """`ns::name` of a declaration, inline namespaces (`__4`) left out."""
    parts = [decl.spelling]
    parent = decl.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if not parent.spelling.startswith("__"):
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(parts))


@functools.cache
def _names() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    lib = cuda_api.catalogue().libcu
    return frozenset(lib.objects), frozenset(lib.references), frozenset(lib.fences)


def atomic_type(t: ci.Type) -> AtomicType | None:
    """The atomic class `t` is (cv-qualifiers aside), or None."""
    canonical = t.get_canonical()
    if canonical.kind != T.RECORD:
        return None
    decl = canonical.get_declaration()
    if decl is None or decl.kind not in (K.STRUCT_DECL, K.CLASS_DECL):
        return None
    objects, references, _ = _names()
    name = _qualified(decl)
    if name not in objects and name not in references:
        return None
    args = canonical.spelling.partition("<")[2]
    found = _SCOPE.search(args)
    scopes = cuda_api.catalogue().libcu.scopes
    # The classes' default scope is system; a scope hirace cannot read (a
    # cast integer) is taken as block, the narrowest that is still atomic,
    # so that it can only add reported races.
    if found is not None and found.group(1) in scopes:
        scope = found.group(1)
    elif "," in args:
        scope = "block"
    else:
        scope = "system"
    return AtomicType(name in references, scope)


def _order_of(arg: ci.Cursor) -> str:
    c = stripped(arg)
    if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
        name = c.referenced.spelling.removeprefix("memory_order_")
        if name in ORDERS:
            return "acquire" if name == "consume" else name
    return UNKNOWN


def _order(args: list[ci.Cursor]) -> str:
    """The order of a call from its explicit memory_order arguments (seq_cst
    without any); a compare-exchange's success and failure orders combined."""
    orders = [_order_of(a) for a in args
              if a.type.get_canonical().spelling.endswith("memory_order")]  # fmt: skip
    if not orders:
        return "seq_cst"
    if UNKNOWN in orders:
        return UNKNOWN
    if len(orders) == 1:
        return orders[0]
    effects = [_EFFECT[o] for o in orders]
    return _BY_EFFECT[(any(a for a, _ in effects), any(r for _, r in effects))]


def member_op(call: ci.Cursor, args: list[ci.Cursor]) -> AtomicOp | None:
    """The atomic operation a call performs (`a.load()`, `p->fetch_add(1)`,
    `a = 1`, `++a`, `int v = a;`), or None if it calls no member of an atomic
    class. A member the catalogue does not classify has kind "" (reported)."""
    ref = call.referenced
    if ref is None or ref.kind not in (K.CXX_METHOD, K.CONVERSION_FUNCTION):
        return None
    kids = list(call.get_children())
    if not kids:
        return None
    first = stripped(kids[0])
    if first.kind == K.MEMBER_REF_EXPR:
        objects = list(first.get_children())
        if not objects:
            return None
        obj = objects[0]
    else:  # an operator call: the object is the first operand
        obj = kids[0]
    inner = stripped(obj)
    t = inner.type.get_canonical()
    arrow = t.kind == T.POINTER
    found = atomic_type(t.get_pointee() if arrow else t)
    if found is None:
        return None
    member = "operator T" if ref.kind == K.CONVERSION_FUNCTION else ref.spelling
    members = cuda_api.catalogue().libcu.members
    kind = "load" if member == "operator T" else members.get(member, "")
    return AtomicOp(obj, arrow, found, member, kind, _order(args))


def _constructed(call: ci.Cursor) -> AtomicType | None:
    ref = call.referenced
    if call.kind != K.CALL_EXPR or ref is None or ref.kind != K.CONSTRUCTOR:
        return None
    return atomic_type(call.type)


def constructs(call: ci.Cursor) -> bool:
    """Whether `call` constructs an atomic object or reference (which accesses
    no memory the instrumentation monitors: a new object is local)."""
    return _constructed(call) is not None


def binds_reference(call: ci.Cursor) -> bool:
    """Whether `call` constructs an atomic reference (its argument is bound,
    not accessed: the accesses are the reference's operations)."""
    found = _constructed(call)
    return found is not None and found.reference


def device_fence(args: list[ci.Cursor]) -> bool:
    """Whether a libcu++ fence with these arguments takes part in message
    passing (docs/semantics.md 1.2, 1.6): device or system scope (system
    without a scope argument) and an order that acquires or releases. A scope
    or order hirace cannot read counts as not: the fence is only counted."""
    order = _order(args)
    if order not in _EFFECT or order == "relaxed":
        return False
    scopes = [stripped(a) for a in args if a.type.get_canonical().spelling.endswith("thread_scope")]
    if not scopes:
        return True
    c = scopes[0]
    known = c.kind == K.DECL_REF_EXPR and c.referenced is not None
    return known and c.referenced.spelling in ("thread_scope_device", "thread_scope_system")


def fence(call: ci.Cursor) -> bool:
    """Whether `call` is a libcu++ fence (cuda::atomic_thread_fence, ...)."""
    ref = call.referenced
    return (
        ref is not None
        and ref.kind == K.FUNCTION_DECL
        and ref.spelling == "atomic_thread_fence"
        and _qualified(ref) in _names()[2]
    )
