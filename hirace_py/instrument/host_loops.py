"""Host loops whose accesses to a transfer pointer can be recorded once, before the loop.

`touch` records every host access to a transfer pointer as it is made
(hirace_py.instrument.host_access), coalescing a loop's elements into one run
of bytes. In a counted loop

    for (int i = A; i < N; ++i) ... p[i] ...

that makes no call in its body (so no CUDA call is recorded and no host
function starts while it runs), cannot leave an iteration early (no break,
continue, return, goto or throw), does not change `i`, `p` or any variable
that A and N read, and makes the access `p[i]` in every iteration (not under
an `if`, `?:`, `&&`, `||`, `switch` or a nested loop), the accesses `p[i]` are
the elements [A, N) of p, one after the other, all between the same two
recorded calls: the run `touch` builds from them is known before the loop
starts, and one record of it there (`touch_span`) replaces one call per
element. A and N are evaluated once more for it, so they must have no side
effects: names, constants, arithmetic, casts, sizeof and member reads only.
(`i <= N` gives [A, N + 1); `i != N` gives [A, N), A <= N being the loop's own
condition for ending.)
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from hirace_py.instrument.analyze import K
from hirace_py.instrument.parse import binary_operator, children, stripped, unary_operator

T = ci.TypeKind
INTEGER_TYPES = {T.INT, T.UINT, T.LONG, T.ULONG, T.LONGLONG, T.ULONGLONG, T.SHORT, T.USHORT}
LEAVING = {K.BREAK_STMT, K.CONTINUE_STMT, K.RETURN_STMT, K.GOTO_STMT, K.INDIRECT_GOTO_STMT,
           K.CXX_THROW_EXPR, K.CALL_EXPR, K.LAMBDA_EXPR, K.ASM_STMT, K.MS_ASM_STMT,
           K.CXX_TRY_STMT, K.LABEL_STMT, K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR}  # fmt: skip
"""Body statements and expressions that end an iteration early, may make a CUDA
call or run code the instrumenter does not see."""
CONDITIONAL = {K.IF_STMT, K.CONDITIONAL_OPERATOR, K.SWITCH_STMT, K.FOR_STMT, K.WHILE_STMT,
               K.DO_STMT, K.CXX_FOR_RANGE_STMT}  # fmt: skip
"""Constructs under which an access may not be made in every iteration."""
PURE_OPERATORS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
PURE_KINDS = {K.INTEGER_LITERAL, K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.PAREN_EXPR,
              K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
              K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_UNARY_EXPR, K.BINARY_OPERATOR,
              K.UNARY_OPERATOR, K.CHARACTER_LITERAL}  # fmt: skip


def decl_key(decl: ci.Cursor) -> str:
    """A declaration's identity, the same wherever it is referred to."""
    usr = decl.get_usr()
    if usr:
        return usr
    f = decl.location.file
    return f"{f.name if f else ''}:{decl.location.offset}"


@dataclass(frozen=True)
class CountedLoop:
    """A loop `for (i = first; i < end; ++i)` whose body runs to its end in every
    iteration and makes no call; `first` and `end` have no side effects."""

    cursor: ci.Cursor
    first: ci.Cursor  # the initial value's expression
    end: ci.Cursor  # the bound's expression
    inclusive: bool  # i <= end
    index: str  # decl_key of i
    body: ci.Cursor
    fixed: frozenset[str]  # i and the variables first and end read

    def unconditional_accesses(self) -> dict[int, str]:
        """The subscripts `p[i]` the body makes in every iteration, by their start
        offset, with the decl_key of p; p is a variable the body does not change."""
        written = _written(self.body)
        out: dict[int, str] = {}

        def visit(c: ci.Cursor) -> None:
            if c.kind in CONDITIONAL or (c.kind == K.BINARY_OPERATOR
                                         and binary_operator(c) in ("&&", "||")):  # fmt: skip
                return
            kids = children(c)
            if c.kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
                base, index = stripped(kids[0]), stripped(kids[1])
                if (base.kind == K.DECL_REF_EXPR and base.referenced is not None
                        and index.kind == K.DECL_REF_EXPR and index.referenced is not None
                        and decl_key(index.referenced) == self.index):  # fmt: skip
                    p = decl_key(base.referenced)
                    if p not in written:
                        out[c.extent.start.offset] = p
            for kid in kids:
                visit(kid)

        visit(self.body)
        return out


def _written(c: ci.Cursor) -> set[str]:
    """Variables `c` assigns, increments, takes the address of or binds to a reference."""
    out: set[str] = set()

    def target(e: ci.Cursor) -> None:
        e = stripped(e)
        while e.kind == K.MEMBER_REF_EXPR and children(e):
            e = stripped(children(e)[0])
        if e.kind == K.DECL_REF_EXPR and e.referenced is not None:
            out.add(decl_key(e.referenced))

    for d in c.walk_preorder():
        kids = children(d)
        if d.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and len(kids) == 2:
            if d.kind == K.COMPOUND_ASSIGNMENT_OPERATOR or binary_operator(d) == "=":
                target(kids[0])
        elif d.kind == K.UNARY_OPERATOR and kids and unary_operator(d) in ("++", "--", "&"):
            target(kids[0])
        elif d.kind == K.VAR_DECL and d.type.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
            for r in d.walk_preorder():
                if r.kind == K.DECL_REF_EXPR and r.referenced is not None:
                    out.add(decl_key(r.referenced))
    return out


def _pure(e: ci.Cursor, reads: set[str]) -> bool:
    """Whether evaluating `e` again has no side effects; adds the variables it reads."""
    for d in e.walk_preorder():
        if d.kind not in PURE_KINDS:
            return False
        if d.kind == K.BINARY_OPERATOR and binary_operator(d) not in PURE_OPERATORS:
            return False
        if d.kind == K.UNARY_OPERATOR and unary_operator(d) not in ("-", "+", "~"):
            return False
        if d.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) and d.referenced is not None:
            reads.add(decl_key(d.referenced))
    return True


def _index(e: ci.Cursor) -> str | None:
    """The variable `e` names (through implicit casts), if an integer one."""
    e = stripped(e)
    if e.kind != K.DECL_REF_EXPR or e.referenced is None:
        return None
    if e.referenced.type.get_canonical().kind not in INTEGER_TYPES:
        return None
    return decl_key(e.referenced)


def counted_loop(c: ci.Cursor) -> CountedLoop | None:
    """`c` as a CountedLoop, or None if it is not one (see the module's description)."""
    if c.kind != K.FOR_STMT:
        return None
    kids = children(c)
    if len(kids) != 4:  # init, condition, increment and body, none left out
        return None
    init, cond, inc, body = kids
    # init: `int i = A` (one variable) or `i = A`
    if init.kind == K.DECL_STMT:
        decls = children(init)
        if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
            return None
        values = [k for k in children(decls[0]) if not k.kind.is_reference()]
        if len(values) != 1 or decls[0].type.get_canonical().kind not in INTEGER_TYPES:
            return None
        index, first = decl_key(decls[0]), values[0]
    elif init.kind == K.BINARY_OPERATOR and binary_operator(init) == "=":
        lhs, first = children(init)
        found = _index(lhs)
        if found is None:
            return None
        index = found
    else:
        return None
    # condition: i < N, i <= N or i != N
    if cond.kind != K.BINARY_OPERATOR or binary_operator(cond) not in ("<", "<=", "!="):
        return None
    lhs, end = children(cond)
    if _index(lhs) != index:
        return None
    # increment: ++i, i++ or i += 1
    if inc.kind == K.UNARY_OPERATOR and unary_operator(inc) == "++":
        step = children(inc)[0]
    elif inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and binary_operator(inc) == "+=":
        step, one = children(inc)
        if [t.spelling for t in one.get_tokens()] != ["1"]:
            return None
    else:
        return None
    if _index(step) != index:
        return None
    reads: set[str] = set()
    if not _pure(first, reads) or not _pure(end, reads) or index in reads:
        return None
    if any(d.kind in LEAVING for d in body.walk_preorder()):
        return None
    fixed = frozenset(reads | {index})
    if fixed & _written(body):
        return None
    return CountedLoop(c, first, end, binary_operator(cond) == "<=", index, body, fixed)
