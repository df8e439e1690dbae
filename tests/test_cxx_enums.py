"""The C++ enums shared with Python are rendered from the Python classes, never typed.

A hand-written copy in a template could drift from Python's values silently
(the CPU engine would report one status and Python read another), so the
templates may only declare these enums through `cxx_enum`.
"""

from __future__ import annotations

import re
from enum import IntEnum

import pytest

from hirace_py import cxx_enums
from hirace_py.backends.cpu_runtime import render
from hirace_py.instrument.runtime import render_header
from hirace_py.templating import template_dir
from hirace_py.values.runtime import render_header as render_values_header


@pytest.mark.parametrize("name", sorted(cxx_enums.ENUMS))
def test_no_template_declares_a_shared_enum_by_hand(name: str) -> None:
    # A declaration whose body is typed out (not a Jinja loop over Python data,
    # as hirace_host.h.j2's own `Op` of host-record operations is).
    declared = re.compile(rf"\benum\s+(class\s+)?{name}\b[^{{;]*\{{(?![^}}]*\{{%)")
    for path in template_dir().iterdir():
        if path.is_file():
            assert not declared.search(path.read_text()), f"{path.name} types enum {name}"


@pytest.mark.parametrize(
    ("rendered", "names"),
    [
        (lambda: render("cuda_cpu.h.j2"), ["Status", "Fault", "Op", "Schedule", "ExitedThreads"]),
        (render_header, ["Action", "Sync", "Rel"]),
        (render_values_header, ["Action"]),
    ],
)
def test_rendered_headers_carry_every_member_with_its_python_value(rendered, names) -> None:  # type: ignore[no-untyped-def]
    text = rendered()
    for name in names:
        spec = cxx_enums.ENUMS[name]
        assert cxx_enums.render(name) in text
        for member in spec.python:
            assert f"{spec.enumerator(member)} = {int(member)}" in text


def test_an_explicit_spelling_must_name_a_member() -> None:
    class Colour(IntEnum):
        red = 0

    with pytest.raises(ValueError, match=r"Colour has no member\(s\) \['blue'\]"):
        cxx_enums.CxxEnum(Colour, "int", names={"blue": "kBlue"})


def test_the_spelling_rule() -> None:
    class Mode(IntEnum):
        in_order = 0
        random = 1

    spec = cxx_enums.CxxEnum(Mode, "int32_t", scoped=True, prefix="Mode")
    assert spec.declaration("Mode") == (
        "enum class Mode : int32_t { kModeInOrder = 0, kModeRandom = 1 };"
    )
