"""The toolkit headers a unit includes are parsed from a precompiled header,
which changes nothing but the time (hirace_py.instrument.precompiled)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hirace_py import cuda_api
from hirace_py.instrument import instrument
from hirace_py.instrument import parse as parse_module
from hirace_py.instrument.parse import ParseError
from hirace_py.instrument.precompiled import conditional_macros

pytestmark = pytest.mark.skipif(cuda_api.toolkit_include() is None,
                                reason="needs the CUDA toolkit's headers")  # fmt: skip

HERE = Path(__file__).parent / "toolkit_pch"


def test_macros_tested_in_conditionals_are_found() -> None:
    text = (
        "#ifndef GUARD_H\n#define GUARD_H\n#if defined(A) && B > 2 \\\n  || C\n#elif D\n"
        "#endif\n#ifdef E\n#endif\nint F;\n#define G H\n#endif\n"
    )
    assert conditional_macros(text) == {"GUARD_H", "defined", "A", "B", "C", "D", "E"}


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records the arguments of every libclang parse of a unit."""
    calls: list[list[str]] = []
    real = parse_module._parse_file

    def spy(path: str, filename: str, args: list[str], files: list) -> object:
        calls.append(args)
        return real(path, filename, args, files)

    monkeypatch.setattr(parse_module, "_parse_file", spy)
    return calls


def _pch_of(args: list[str]) -> str:
    return args[args.index("-include-pch") + 1]


@pytest.mark.parametrize("name", ["atomics.cu", "groups.cu"])
def test_a_unit_with_toolkit_headers_instruments_the_same_from_the_pch(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit (its toolkit include in its own header) is parsed once, from a
    PCH holding the prelude and that header, into the same rewrite and tables
    as from the prelude alone."""
    path = HERE / name
    text = path.read_text()
    calls = _parses(monkeypatch)
    fast = instrument(text, str(path), target="cpu", program=True, header_dir=Path("/nonexistent"))
    assert len(calls) == 1 and "hirace_parse_toolkit-" in _pch_of(calls[0])
    parse_module.use_toolkit_pch(False)
    try:
        plain = instrument(text, str(path), target="cpu", program=True,
                           header_dir=Path("/nonexistent"))  # fmt: skip
    finally:
        parse_module.use_toolkit_pch(True)
    assert "hirace_parse_prelude-" in _pch_of(calls[1])
    assert fast.source == plain.source
    assert [h.text for h in fast.headers] == [h.text for h in plain.headers]
    assert fast.tables == plain.tables
    assert fast.tables.sites  # the kernels were instrumented


def test_a_toolkit_header_in_an_inactive_branch_stays_unseen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`#if 0` around `#include <cuda/std/array>`: the PCH holding it is
    dropped after the parse (no active directive names it) and the unit
    parsed again without it, so its use of cuda::std::array is an error, as
    with nvcc."""
    path = HERE / "inactive.cu"
    calls = _parses(monkeypatch)
    with pytest.raises(ParseError, match="array"):
        instrument(path.read_text(), str(path), target="cpu", program=True)
    assert ["hirace_parse_toolkit-" in _pch_of(c) for c in calls] == [True, False]


def test_a_unit_defining_a_macro_the_headers_test_is_not_given_the_pch() -> None:
    """A configuration macro (one the PCH's headers test in a conditional)
    defined by the unit would change what the headers declare."""
    text = "#include <cuda/atomic>\n"
    pch = parse_module._unit_pch([text], [str(HERE)], {})
    assert pch is not None and "NDEBUG" in pch.tested
    assert parse_module._unit_pch(["#define NDEBUG\n" + text], [str(HERE)], {}) is None
    assert parse_module._unit_pch(["#define MAX(a, b) a\n" + text], [str(HERE)], {}) is pch
    # Macros of the command line are part of the PCH itself.
    other = parse_module._unit_pch([text], [str(HERE)], {"WIDTH": 4})
    assert other is not None and other.path != pch.path


def test_headers_found_in_the_users_directories_or_stood_in_are_not_precompiled() -> None:
    texts = ["#include <cuda_runtime.h>\n#include <local_only.h>\n#include <cuda/atomic>\n"]
    assert list(parse_module._toolkit_includes(texts, [str(HERE)])) == ["cuda/atomic"]
