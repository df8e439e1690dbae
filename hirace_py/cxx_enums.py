"""The enums Python and the generated C++ share, and their C++ spelling.

Every C++ enum that mirrors a Python one is rendered from the Python class by
`render` (templates call `cxx_enum("Name")`), so members and values exist
once. The spelling of each enumerator is "k" + an optional prefix + the
member's name in CamelCase, unless an enum lists its C++ names explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from hirace_py import fsm
from hirace_py.backends.cpu_status import FaultKind, LaunchStatus, WaitOp
from hirace_py.launch_config import ExitedThreads, Schedule


@dataclass(frozen=True)
class CxxEnum:
    """How one Python IntEnum is declared in C++."""

    python: type[IntEnum]
    base: str
    scoped: bool = False
    prefix: str = ""
    names: dict[str, str] = field(default_factory=dict)
    """C++ enumerators by Python member name, where the rule does not give them."""

    def __post_init__(self) -> None:
        unknown = set(self.names) - {m.name for m in self.python}
        if unknown:
            raise ValueError(f"{self.python.__name__} has no member(s) {sorted(unknown)}")

    def enumerator(self, member: IntEnum) -> str:
        if member.name in self.names:
            return self.names[member.name]
        return "k" + self.prefix + "".join(p.capitalize() for p in member.name.split("_"))

    def declaration(self, name: str) -> str:
        """The declaration; one enumerator per line when there are more than four."""
        items = [f"{self.enumerator(m)} = {int(m)}" for m in self.python]
        head = f"enum {'class ' if self.scoped else ''}{name} : {self.base}"
        if len(items) <= 4:
            return f"{head} {{ {', '.join(items)} }};"
        return head + " {\n" + "".join(f"    {item},\n" for item in items) + "};"


ENUMS: dict[str, CxxEnum] = {
    "Action": CxxEnum(fsm.Action, "unsigned", names={
        "R": "kRead", "W": "kWrite", "BA": "kBlockAtomic", "GA": "kDeviceAtomic",
        "BL": "kBlockLoad", "GL": "kDeviceLoad"}),
    "Sync": CxxEnum(fsm.Sync, "unsigned", names={
        "U": "kSyncNone", "W": "kSyncWarp", "B": "kSyncBlock", "G": "kSyncGrid"}),
    "Rel": CxxEnum(fsm.Rel, "unsigned", names={
        "S": "kSameThread", "W": "kSameWarp", "B": "kSameBlock", "G": "kOtherBlock"}),
    "Schedule": CxxEnum(Schedule, "int32_t", scoped=True, names={"inorder": "kInOrder"}),
    "ExitedThreads": CxxEnum(ExitedThreads, "int32_t", scoped=True),
    "Status": CxxEnum(LaunchStatus, "int32_t"),
    "Fault": CxxEnum(FaultKind, "int32_t", prefix="Fault"),
    "Op": CxxEnum(WaitOp, "int32_t", scoped=True),
}  # fmt: skip


def render(name: str) -> str:
    """The C++ declaration of enum `name` (a key of ENUMS)."""
    return ENUMS[name].declaration(name)

