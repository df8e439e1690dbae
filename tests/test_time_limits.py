"""The CPU backend's time limits count CPU time; a wall-clock backstop ends
what waits without using CPU (hirace_py.time_limits, docs/cpu-backend.md,
"Time limits").

Load is simulated by stopping the program (SIGSTOP) most of the time, in
short slices, as a busy machine would: it gets a fifth of a core or less, so
its wall time is five times its CPU time or more. A program that finishes
within its CPU limits must still finish; one that does not must still be
stopped by its CPU limit, with the same message.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hirace_py.backends.cpu_program import DEADLINE_EXIT
from hirace_py.children import Overrun, wait_child
from hirace_py.program import BuildOptions, build
from hirace_py.time_limits import WALL_BACKSTOP, backstop, run_with_limits

SOURCE = Path(__file__).parent / "time_limits" / "limits.cu"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("limits") / "limits"
    build(BuildOptions(sources=(SOURCE,), output=output, cpu=True, optimize="-Og"))
    return output


def _throttle(pid: int, running: float, stopped: float, done: threading.Event) -> None:
    """Lets `pid` run `running` s out of every `running + stopped` s until `done`."""
    while not done.is_set():
        try:
            os.kill(pid, signal.SIGSTOP)
            time.sleep(stopped)
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            return
        time.sleep(running)


def _run(program: Path, args: list[str], env: dict[str, str], tmp_path: Path,
         share: float | None = None) -> subprocess.CompletedProcess:  # fmt: skip
    """Runs the program (writing its race report to tmp_path/dump); with
    `share`, it gets at most that share of a core."""
    full_env = {"PATH": "/usr/bin:/bin", "HIRACE_DUMP": str(tmp_path / "dump"), **env}
    proc = subprocess.Popen([str(program), *args], env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    done = threading.Event()
    throttle = None
    if share is not None:
        stopped = 0.02 * (1 - share) / share
        throttle = threading.Thread(target=_throttle, args=(proc.pid, 0.02, stopped, done))
        throttle.start()
    try:
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        done.set()
        if throttle is not None:
            throttle.join()
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def test_a_program_using_cpu_past_its_deadline_is_ended_with_its_report(
    program: Path, tmp_path: Path
) -> None:
    run = _run(program, ["forever"], {"HIRACE_DEADLINE": "1"}, tmp_path)
    assert run.returncode == DEADLINE_EXIT, run.stderr
    assert "ran past its deadline of 1 CPU s (HIRACE_DEADLINE)" in run.stderr
    assert '"launches"' in (tmp_path / "dump").read_text()


def test_a_program_asleep_past_its_deadline_is_not_ended(program: Path, tmp_path: Path) -> None:
    # 3 s of wall time, almost no CPU: a wall-clock deadline of 1 s ended it.
    run = _run(program, ["nap"], {"HIRACE_DEADLINE": "1"}, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "done: cudaSuccess" in run.stdout


def test_a_slowed_down_program_is_not_ended_at_its_deadline(program: Path, tmp_path: Path) -> None:
    # Launches for 3 s of wall time with a fifth of a core: at most 0.6 s of CPU.
    run = _run(program, ["busy-for", "3000"], {"HIRACE_DEADLINE": "1.5"}, tmp_path, share=0.2)
    assert run.returncode == 0, run.stderr
    assert "done: cudaSuccess" in run.stdout


@pytest.mark.parametrize("mode", ["wait", "doze"])
def test_a_slowed_down_launch_is_not_stopped_at_its_time_limit(
    program: Path, tmp_path: Path, mode: str
) -> None:
    # One launch spinning for 3 s of wall time (without switch points for "wait",
    # yielding in __nanosleep for "doze") with a fifth of a core: at most 0.6 CPU s.
    run = _run(program, [mode, "3000"], {"HIRACE_TIMEOUT": "1.5"}, tmp_path, share=0.2)
    assert run.returncode == 0, run.stderr
    assert "done: cudaSuccess" in run.stdout


@pytest.mark.parametrize(("mode", "line"), [("wait", 19), ("doze", 25)])
def test_a_launch_using_cpu_past_its_limit_is_stopped_under_load(
    program: Path, tmp_path: Path, mode: str, line: int
) -> None:
    # Spins for a minute; half a core: stopped by the CPU limit (the engine's
    # clock for "doze", the profiling timer for "wait"), not the backstop.
    run = _run(program, [mode, "60000"], {"HIRACE_TIMEOUT": "0.5"}, tmp_path, share=0.5)
    assert run.returncode == 1, run.stderr
    assert "launch: cudaErrorLaunchTimeout" in run.stdout
    if mode == "wait":
        assert f"time limit exceeded at limits.cu:{line}" in run.stderr
        assert "0.5 CPU s (HIRACE_TIMEOUT)" in run.stderr
    else:
        assert "exceeded the time limit of 0.5 CPU s" in run.stderr


def test_a_launch_waiting_without_cpu_is_stopped_at_the_wall_clock_backstop(
    program: Path, tmp_path: Path
) -> None:
    # A fiftieth of a core: the profiling timer's 1.2 CPU s would take a minute;
    # the backstop ends the launch after WALL_BACKSTOP x 1.2 s of wall time.
    run = _run(program, ["wait", "60000"], {"HIRACE_TIMEOUT": "0.2"}, tmp_path, share=0.02)
    assert run.returncode == 1, run.stderr
    assert "launch: cudaErrorLaunchTimeout" in run.stdout
    assert (f"{backstop(1.2):g} s of wall-clock time ({WALL_BACKSTOP} x (HIRACE_TIMEOUT + 1 s)"
            in run.stderr)  # fmt: skip


BURN = [sys.executable, "-c", "while True: pass"]
SLEEP = [sys.executable, "-c", "import time, sys; time.sleep(float(sys.argv[1]))"]


def test_a_child_using_its_cpu_limit_is_killed(tmp_path: Path) -> None:
    proc, backstopped = run_with_limits(BURN, str(tmp_path), dict(os.environ), 1)
    assert proc.returncode == -signal.SIGXCPU
    assert not backstopped


def test_a_child_asleep_past_its_cpu_limit_is_not_killed(tmp_path: Path) -> None:
    proc, backstopped = run_with_limits([*SLEEP, "2"], str(tmp_path), dict(os.environ), 1)
    assert (proc.returncode, backstopped) == (0, False)


def test_a_child_asleep_past_the_backstop_is_killed(tmp_path: Path) -> None:
    proc, backstopped = run_with_limits([*SLEEP, "60"], str(tmp_path), dict(os.environ), 0.2)
    assert backstopped
    assert proc.returncode == -signal.SIGKILL


def _spawn(argv: list[str]) -> int:
    return os.posix_spawn(argv[0], argv, dict(os.environ))


def test_wait_child_kills_at_the_cpu_limit() -> None:
    status, overrun = wait_child(_spawn(BURN), 0.3, 60)
    assert overrun is Overrun.cpu
    assert os.WTERMSIG(status) == signal.SIGKILL


def test_wait_child_lets_a_sleeping_child_pass_its_cpu_limit() -> None:
    status, overrun = wait_child(_spawn([*SLEEP, "1"]), 0.2, 30)
    assert overrun is None
    assert os.waitstatus_to_exitcode(status) == 0


def test_wait_child_kills_a_sleeping_child_at_the_wall_limit() -> None:
    status, overrun = wait_child(_spawn([*SLEEP, "60"]), 0.2, 0.5)
    assert overrun is Overrun.wall
    assert os.WTERMSIG(status) == signal.SIGKILL
