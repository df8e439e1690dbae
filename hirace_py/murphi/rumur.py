"""Build a Murphi model into a verifier with Rumur and a C compiler, run it, parse the result.

Rumur (Debian package `rumur`, installed by scripts/setup.sh) turns the
model into C; the C compiler builds the verifier; the verifier explores every
reachable state breadth-first and reports in Rumur's machine-readable XML
format: the summary (states, rules fired) and, on an error, the trace of
rules from the start state. One verifier thread keeps the search strictly
breadth-first, so a counterexample is a shortest one, and the same every run.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from hirace_py.errors import ToolFailure

SETUP_HINT = "run scripts/setup.sh to install it"


@dataclass(frozen=True)
class Step:
    """One rule (or the start state) of a counterexample.

    `rule` is the rule's name with its thread, block or warp parameters in
    the trace syntax ("W 1.0.1", "bsync 0", "launch 0.1.0"); `sync` is the
    sync parameter of access rules, None for others.
    """

    rule: str
    sync: int | None


@dataclass(frozen=True)
class Outcome:
    """What the verifier found.

    `failed` is the name of the invariant that failed ("soundness" or
    "completeness"), None if every reachable state satisfies both; `steps`
    are the rules from the start state to the failing state (empty when
    none failed). `seconds` is the verifier's wall-clock time, `build_seconds`
    that of Rumur and the C compiler together.
    """

    states: int
    rules_fired: int
    seconds: float
    build_seconds: float
    failed: str | None
    steps: tuple[Step, ...]
    version: str


class _Deadline:
    """Wall-clock budget shared by the steps of one check."""

    def __init__(self, seconds: float, limit: float) -> None:
        self.end = time.monotonic() + seconds
        self.seconds = limit

    def run(self, what: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        left = self.end - time.monotonic()
        try:
            if left <= 0:
                raise subprocess.TimeoutExpired(argv, 0)
            return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=left)
        except subprocess.TimeoutExpired:
            raise ToolFailure(
                f"{what} did not finish within --timeout {self.seconds:g} s; "
                "raise --timeout or check a smaller --grid"
            ) from None


def _tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolFailure(f"{name} not found on PATH; {hint}")
    return path


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no output"


def _compiler_flags() -> list[str]:
    # Rumur's verifier uses 16-byte compare-and-swap, which GCC only emits
    # inline on x86-64 when asked to.
    return ["-mcx16"] if platform.machine() in ("x86_64", "AMD64") else []


def check(
    model: str, workdir: Path, timeout: float, optimize: bool = True, limit: float | None = None
) -> Outcome:
    """Write `model` to workdir/fsm_model.m, build its verifier there, run it, parse the result.

    `optimize` builds the verifier with -O3 (slower to build, several times
    faster to run); without it, -O0, for a search known to stop early.
    `limit` is the --timeout a timeout's message names, when `timeout` is
    what is left of it (default: `timeout`).

    workdir also receives fsm_model.c, the verifier and its XML output
    (verifier.xml). Raises ToolFailure when Rumur or the compiler is missing
    or fails, when the whole check takes longer than `timeout` seconds, or
    when the verifier reports something other than an invariant failure.
    """
    deadline = _Deadline(timeout, timeout if limit is None else limit)
    rumur = _tool("rumur", SETUP_HINT)
    compiler = _tool(os.environ.get("CC", "cc"), "install a C compiler (scripts/setup.sh does)")
    (workdir / "fsm_model.m").write_text(model)
    started = time.monotonic()
    version = _first_line(deadline.run("rumur", [rumur, "--version"], workdir).stdout)
    done = deadline.run(
        "rumur",
        [
            rumur,
            "--output-format", "machine-readable",
            "--deadlock-detection", "off",
            "--symmetry-reduction", "heuristic",
            "--threads", "1",
            "--output", "fsm_model.c",
            "fsm_model.m",
        ],
        workdir,
    )  # fmt: skip
    if done.returncode != 0:
        raise ToolFailure(f"rumur rejected the model: {_first_line(done.stderr + done.stdout)}")
    level = "-O3" if optimize else "-O0"
    argv = [compiler, "-std=c11", level, *_compiler_flags(), "-o", "verifier", "fsm_model.c"]
    done = deadline.run("the C compiler", [*argv, "-lpthread"], workdir)
    if done.returncode != 0:
        raise ToolFailure(
            f"{compiler} failed on the verifier Rumur generated: "
            f"{_first_line(done.stderr + done.stdout)}"
        )
    build_seconds = time.monotonic() - started
    started = time.monotonic()
    done = deadline.run("the verifier", [str(workdir / "verifier")], workdir)
    seconds = time.monotonic() - started
    (workdir / "verifier.xml").write_text(done.stdout)
    return _parse(done.stdout, done.stderr, seconds, build_seconds, version)


SYNC_PARAMETER = "y"


def _step(transition: ET.Element) -> Step:
    """A transition of the trace as a Step: the rule (or start state) named with its parameters.

    The model's rulesets have scalarset parameters for the thread, block or
    warp, which the verifier writes as TYPE_N (its Nth value), and the
    sync parameter `y`. The step's rule is the rule's name followed by the
    scalarset values joined by dots, e.g. "W 1.0.1" for rule "W" fired with
    b, w, l = block_t_1, wl_t_0, lane_t_1: the trace syntax.
    """
    text = (transition.text or "").strip()
    name = text.partition(" ")[2].strip('"')
    sync = None
    coords = []
    for param in transition.iterfind("parameter"):
        value = (param.text or "").strip()
        if param.get("name") == SYNC_PARAMETER:
            sync = int(value)
        else:
            coords.append(value.rpartition("_")[2])
    return Step(" ".join([name, ".".join(coords)]) if coords else name, sync)


def _parse(xml: str, stderr: str, seconds: float, build_seconds: float, version: str) -> Outcome:
    """The outcome in the verifier's XML output; HiraceError if it is not one we expect."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        raise ToolFailure(
            f"the verifier's output is not Rumur's XML: {_first_line(stderr + xml)}"
        ) from None
    summary = root.find("summary")
    if summary is None:
        raise ToolFailure(f"the verifier stopped without a summary: {_first_line(stderr)}")
    failed = None
    steps: list[Step] = []
    error = root.find("error")
    if error is not None:
        message = error.findtext("message", "")
        names = [n for n in ("soundness", "completeness") if message == f'invariant "{n}" failed']
        if not names:
            raise ToolFailure(f"the verifier reported an error in the model: {message}")
        failed = names[0]
        steps = [_step(transition) for transition in error.iterfind("transition")]
    return Outcome(
        states=int(summary.get("states", "0")),
        rules_fired=int(summary.get("rules_fired", "0")),
        seconds=seconds,
        build_seconds=build_seconds,
        failed=failed,
        steps=tuple(steps),
        version=version,
    )
