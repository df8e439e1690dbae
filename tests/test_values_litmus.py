"""The values engine against the FSM engine on the litmus suite (docs/engines.md).

Acceptance of issue 18: every race the values engine reports is one the FSM
engine reports (no false alarm), and every race it misses is documented in
kernels/values.toml with the false-negative class that `compare.classify`
gives it, so the documentation cannot drift from the engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hirace_py import litmus
from hirace_py.config import Config
from hirace_py.launchspec import SpecError, load_toml

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


@pytest.fixture(scope="module")
def both() -> list[litmus.Result]:
    return litmus.run(KERNELS, "cpu", Config(), engine="both")


def documented() -> dict[tuple[str, litmus.Key], str]:
    out = {}
    for m in load_toml(KERNELS / "values.toml")["miss"]:
        a, b = m["lines"]
        out[(m["case"], ((min(a, b), max(a, b)), m["kind"], m["space"]))] = m["class"]
    return out


def test_no_errors_and_fsm_matches_manifest(both: list[litmus.Result]) -> None:
    bad = [r for r in both if r.error or r.found != set(r.case.races)]
    assert not bad, litmus.table(bad)


def test_values_reports_only_fsm_races(both: list[litmus.Result]) -> None:
    for r in both:
        assert r.values_found is not None
        assert r.values_found <= r.found, (r.case.name, r.values_found - r.found)
        assert not [d for d in r.disagreements if d.found_by == "values"], r.case.name


def test_every_miss_is_documented_with_its_class(both: list[litmus.Result]) -> None:
    seen = {(r.case.name, d.key): d.reason for r in both for d in r.disagreements}
    assert seen == documented()
    assert all(r.ok for r in both), litmus.table([r for r in both if not r.ok])


@pytest.mark.slow
def test_values_engine_suite_verdicts(both: list[litmus.Result]) -> None:
    """`hirace check kernels/ --engine values` passes exactly on the documented misses:
    the same verdicts as the values half of --engine both, case by case."""
    alone = litmus.run(KERNELS, "cpu", Config(), engine="values")
    assert [r.found for r in alone] == [r.values_found for r in both]
    assert all(r.ok for r in alone), litmus.table([r for r in alone if not r.ok])


def test_values_toml_rejects_a_miss_that_is_no_race(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text((KERNELS / "paper" / "listing1.cu").read_text())
    (tmp_path / "manifest.toml").write_text(
        '[[case]]\nname = "one"\nfile = "k.cu"\nkernel = "listing1"\ngrid = 1\nblock = 32\n'
        'args = { a = { dtype = "int32", length = 33 }, n = 33 }\nexpect = "race"\n'
        'races = [{ lines = [16, 17], kind = "read-write", space = "global" }]\n'
    )
    miss = 'case = "one"\nkind = "read-write"\nspace = "global"\nclass = "value"\nwhy = "x"\n'
    (tmp_path / "values.toml").write_text(f"[[miss]]\nlines = [16, 17]\n{miss}")
    assert litmus.load_manifest(tmp_path)[0].values_misses == {((16, 17), "read-write", "global")}
    (tmp_path / "values.toml").write_text(f"[[miss]]\nlines = [1, 2]\n{miss}")
    with pytest.raises(SpecError, match="not races of the manifest"):
        litmus.load_manifest(tmp_path)
    (tmp_path / "values.toml").write_text(f"[[miss]]\nlines = [16, 17]\n{miss}".replace(
        '"value"', '"luck"'))
    with pytest.raises(SpecError, match="class"):
        litmus.load_manifest(tmp_path)
