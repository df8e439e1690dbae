"""What the CPU backend's time limits count, and the wall-clock backstop.

Every time limit of a CPU-backend run counts CPU time of the process that runs
the kernels (CLOCK_PROCESS_CPUTIME_ID), not wall time: a launch's limit
(`HIRACE_TIMEOUT`, `timeout=`, checked by the engine at its switch points and
by a profiling timer, ITIMER_PROF, for a thread that never reaches one), a
program's deadline (`HIRACE_DEADLINE`), and the CPU limit (RLIMIT_CPU) put on
the child processes that run launches and programs. A verdict therefore does
not depend on how loaded the machine is: a run slowed down by other processes
uses no more CPU and ends the same way.

A process that waits without using CPU (a host `sleep`, a blocking read, a
wait on another process) never reaches a CPU limit; a wall-clock backstop of
`WALL_BACKSTOP` times the limit ends it. The factor is how much load may slow
a run down and still leave its verdict to the CPU limits. Measured on this
project's two-core machine: a suite run at `nice -n 19` beside test suites at
`nice -n 10` got less than a tenth of a core (an Indigo3 MIS program used
under 60 CPU s in 600 s of wall time; alone it uses 10 CPU s in 24 s), so a
factor of 5 let the backstop, not the CPU deadline, end it; 20 leaves room.
"""

from __future__ import annotations

import math
import resource
import subprocess

WALL_BACKSTOP = 20
"""Wall-clock seconds a process may run per CPU second of its limit."""


def backstop(limit: float) -> float:
    """Wall-clock seconds after which a process with a CPU limit of `limit` s is
    ended although it has not used it (it waits without using CPU)."""
    return WALL_BACKSTOP * limit


def limit_cpu(pid: int, seconds: float) -> None:
    """Has the kernel end child `pid` once it has used `seconds` of CPU time,
    counted in whole seconds (rounded up): SIGXCPU, then SIGKILL a second
    later. No core file is written. A child that has already exited is left
    alone."""
    soft = max(1, math.ceil(seconds))
    try:
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
        resource.prlimit(pid, resource.RLIMIT_CPU, (soft, soft + 1))
    except ProcessLookupError:
        pass


def run_with_limits(command: list[str], cwd: str, env: dict[str, str],
                    limit: float) -> tuple[subprocess.CompletedProcess, bool]:  # fmt: skip
    """Runs `command` to its end with a CPU limit of `limit` s (`limit_cpu`: past
    it the child is killed by SIGXCPU) and the wall-clock backstop, capturing
    its output as text; returns the finished process and whether it was
    killed at the backstop (then by SIGKILL)."""
    with subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace") as proc:  # fmt: skip
        limit_cpu(proc.pid, limit)
        try:
            stdout, stderr = proc.communicate(timeout=backstop(limit))
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr), True
    return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr), False
