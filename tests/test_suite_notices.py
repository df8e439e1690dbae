"""The text summary of a suite run folds a row's repeated notices.

A whole program's row carries every launch's notices (and, with `--engine
both`, both engines'): an iterative code made hundreds of identical lines in
one row. `fold_notices` keeps one text per notice code, with how many times
it came.
"""

from __future__ import annotations

from hirace_py.indigo.results import RunResult
from hirace_py.indigo.summary import details, fold_notices, summarise


def notice(code: str, message: str, count: int = 1) -> dict:
    return {"code": code, "message": message, "count": count}


def test_identical_notices_fold_with_their_number() -> None:
    fences = notice("fences", "3 fence(s) counted")
    assert fold_notices([fences] * 300) == ["3 fence(s) counted (x300)"]
    assert fold_notices([fences]) == ["3 fence(s) counted"]


def test_notices_of_one_code_with_other_counts_fold_into_the_first_and_a_total() -> None:
    atomics = [notice("values-atomics", f"{n} atomic access(es)", n) for n in (4, 7, 4)]
    other = notice("engines-atomics", "engines disagree")
    assert fold_notices([atomics[0], other, *atomics[1:]]) == [
        "4 atomic access(es) (and 2 more values-atomics notice(s); 15 counted in all)",
        "engines disagree",
    ]


def test_the_summary_shows_one_line_per_row_without_repeats() -> None:
    row = RunResult("k.cu", "", "g.egr", "", expected_racy=False, expected_bounds=False,
                    notices=[notice("values-messages", "2 byte(s) not reported", 2)] * 250)
    text = details(summarise(["g.egr"], [row]))
    assert text.count("not reported") == 1
    assert "2 byte(s) not reported (x250)" in text
