"""Golden tests of the rewrite: small kernels and their instrumented text.

The `.hirace.cu` files under tests/golden/ document what the rewriter does.
Regenerate them after an intended change with HIRACE_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hirace_py.instrument import instrument

GOLDEN = Path(__file__).parent / "golden"
SOURCES = sorted(p for p in GOLDEN.glob("*.cu") if not p.name.endswith(".hirace.cu"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_rewrite_matches_golden(source: Path) -> None:
    got = instrument(source.read_text(), source.name).source
    expected = source.with_suffix(".hirace.cu")
    if os.environ.get("HIRACE_UPDATE_GOLDEN"):
        expected.write_text(got)
    assert got == expected.read_text()


def test_every_golden_source_has_expected_output() -> None:
    assert len(SOURCES) >= 4
    for source in SOURCES:
        assert source.with_suffix(".hirace.cu").is_file(), source.name
