"""Validate the litmus manifest (kernels/manifest.toml) against the kernel sources.

These tests check the manifest itself, not the checker: every case names an
existing file and kernel, gives exactly the kernel's parameters, and its expected
races point at real access lines of that file.  Schema: docs/launch-spec.md.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
MANIFEST = KERNELS / "manifest.toml"

CASE_KEYS = {
    "name",
    "file",
    "description",
    "kernel",
    "grid",
    "block",
    "shared_bytes",
    "seed",
    "schedule",
    "args",
    "expect",
    "races",
    "warnings",
}
REQUIRED_KEYS = {"name", "file", "description", "kernel", "grid", "block", "args", "expect"}
ARRAY_KEYS = {"dtype", "length", "init", "seed", "low", "high", "fill", "path"}
DTYPES = {
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
}
INITS = {"zeros", "ones", "arange", "random", "npy"}
KINDS = {"read-write", "write-write", "atomic-plain"}
SPACES = {"global", "shared"}
NAME_RE = re.compile(r"^[a-z0-9_]+$")
# Something that reads or writes memory: an index, a dereference, a member
# access through a pointer, an assignment or an atomic call.
ACCESS_RE = re.compile(r"\[|\*|->|\.\w|=|\+\+|--|atomic\w*\(")


def _load() -> list[dict[str, Any]]:
    with MANIFEST.open("rb") as fh:
        data = tomllib.load(fh)
    assert set(data) == {"case"}, f"unexpected top-level keys: {sorted(set(data) - {'case'})}"
    cases = data["case"]
    assert isinstance(cases, list)
    return cases


CASES = _load()


def _source(case: dict[str, Any]) -> str:
    return (KERNELS / case["file"]).read_text()


def _params(source: str, kernel: str) -> list[tuple[str, str]]:
    """(type, name) of each parameter of `__global__ void kernel(...)`."""
    m = re.search(r"__global__\s+void\s+" + re.escape(kernel) + r"\s*\(([^)]*)\)", source)
    assert m, f"__global__ void {kernel}(...) not found"
    params: list[tuple[str, str]] = []
    for raw in m.group(1).split(","):
        text = raw.strip()
        if not text or text == "void":
            continue
        name = re.findall(r"[A-Za-z_]\w*", text)[-1]
        params.append((text[: text.rfind(name)].strip(), name))
    return params


def _code_lines(source: str) -> list[str]:
    """The source's lines with // and /* */ comments blanked out (line count kept)."""
    out: list[str] = []
    i, n = 0, len(source)
    in_block = False
    quote = ""
    while i < n:
        ch = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if in_block:
            if ch == "*" and nxt == "/":
                in_block = False
                i += 2
                continue
            out.append("\n" if ch == "\n" else " ")
        elif quote:
            out.append(ch)
            if ch == "\\" and nxt:
                out.append(nxt)
                i += 1
            elif ch == quote:
                quote = ""
        elif ch == "/" and nxt == "/":
            while i < n and source[i] != "\n":
                i += 1
            continue
        elif ch == "/" and nxt == "*":
            in_block = True
            i += 2
            continue
        else:
            if ch in "\"'":
                quote = ch
            out.append(ch)
        i += 1
    return "".join(out).split("\n")


def _dims_ok(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1
    return (
        isinstance(value, list)
        and 1 <= len(value) <= 3
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
    )


def test_at_least_40_cases() -> None:
    assert len(CASES) >= 40


def test_names_unique_and_well_formed() -> None:
    names = [c.get("name") for c in CASES]
    assert all(isinstance(n, str) and NAME_RE.match(n) for n in names), names
    dups = sorted({n for n in names if names.count(n) > 1})
    assert not dups, f"duplicate case names: {dups}"


def test_both_verdicts_present() -> None:
    verdicts = [c["expect"] for c in CASES]
    assert verdicts.count("race") >= 10
    assert verdicts.count("race-free") >= 10


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_fields(case: dict[str, Any]) -> None:
    keys = set(case)
    assert not keys - CASE_KEYS, f"unknown keys: {sorted(keys - CASE_KEYS)}"
    assert not REQUIRED_KEYS - keys, f"missing keys: {sorted(REQUIRED_KEYS - keys)}"
    assert isinstance(case["description"], str) and case["description"].strip()
    assert _dims_ok(case["grid"]), case["grid"]
    assert _dims_ok(case["block"]), case["block"]
    block = case["block"] if isinstance(case["block"], list) else [case["block"]]
    threads = 1
    for d in block:
        threads *= d
    assert threads <= 1024, "more than 1024 threads per block"
    shared = case.get("shared_bytes", 0)
    assert isinstance(shared, int) and not isinstance(shared, bool) and shared >= 0
    assert case.get("schedule", "inorder") in {"inorder", "random"}
    assert case["expect"] in {"race", "race-free"}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_file_and_kernel_exist(case: dict[str, Any]) -> None:
    path = KERNELS / case["file"]
    assert path.suffix == ".cu" and path.is_file(), f"{case['file']} does not exist"
    assert path.resolve().is_relative_to(KERNELS.resolve())
    source = path.read_text()
    assert re.search(r"__global__\s+void\s+" + re.escape(case["kernel"]) + r"\s*\(", source), (
        f"kernel {case['kernel']} is not defined in {case['file']}"
    )
    assert source.lstrip().startswith("//"), f"{case['file']} must start with a comment"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_args_match_parameters(case: dict[str, Any]) -> None:
    params = _params(_source(case), case["kernel"])
    args = case["args"]
    assert isinstance(args, dict)
    names = [n for _, n in params]
    assert sorted(args) == sorted(names), f"args {sorted(args)} != parameters {sorted(names)}"
    for ctype, name in params:
        value = args[name]
        if "*" in ctype:
            assert isinstance(value, dict), f"{name}: pointer parameter needs an array table"
            assert not set(value) - ARRAY_KEYS, f"{name}: unknown keys {set(value) - ARRAY_KEYS}"
            assert value.get("dtype") in DTYPES, f"{name}: bad dtype {value.get('dtype')}"
            length = value.get("length")
            assert isinstance(length, int) and not isinstance(length, bool) and length >= 1
            assert value.get("init", "zeros") in INITS
        else:
            assert isinstance(value, bool | int | float), f"{name}: scalar expected"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_races_point_at_access_lines(case: dict[str, Any]) -> None:
    races = case.get("races", [])
    if case["expect"] == "race-free":
        assert not races, "a race-free case lists races"
        return
    assert races, "a racy case must list its races"
    source = _source(case)
    lines = source.splitlines()
    code_lines = _code_lines(source)
    seen: set[tuple[int, int, str, str]] = set()
    for race in races:
        assert set(race) == {"lines", "kind", "space"}, race
        assert race["kind"] in KINDS, race
        assert race["space"] in SPACES, race
        pair = race["lines"]
        assert isinstance(pair, list) and len(pair) == 2, race
        for n in pair:
            assert isinstance(n, int) and 1 <= n <= len(lines), f"line {n} out of range"
            text = lines[n - 1]
            code = code_lines[n - 1].strip()
            assert code, f"line {n} is blank or a comment"
            assert ACCESS_RE.search(code), f"line {n} has no memory access: {text!r}"
            # Convention of this suite: every racing line is tagged [TAG] in a comment.
            assert re.search(r"//.*\[\w+\]", text), f"line {n} lacks a [TAG] comment"
        key = (min(pair), max(pair), race["kind"], race["space"])
        assert key not in seen, f"duplicate race entry {race}"
        seen.add(key)
