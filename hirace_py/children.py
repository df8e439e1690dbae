"""Waiting for forked child processes with a time limit, killing them on overrun.

The limit counts the child's CPU time (read from /proc, in clock ticks), with
a looser wall-clock backstop for a child that waits without using CPU
(`hirace_py.time_limits`).
"""

from __future__ import annotations

import enum
import os
import select
import signal
import time


class Overrun(enum.Enum):
    """Which limit a killed child ran past."""

    cpu = "cpu"
    wall = "wall"


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) process `pid` has used, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    # Fields after the command name (which may hold spaces) in parentheses:
    # state is field 3, utime and stime are fields 14 and 15.
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_child(pid: int, cpu_limit: float, wall_limit: float) -> tuple[int, Overrun | None]:
    """Wait for child `pid`; return (wait status, the limit it was killed at or None).

    It is killed once it has used `cpu_limit` s of CPU time or run for
    `wall_limit` s of wall time. Waits on a pidfd when the kernel has them,
    else polls with backoff; the CPU time is read whenever the child could
    have reached its limit (a single-threaded child uses at most the wall
    time that passed). On any exception while waiting (Ctrl-C) the child is
    killed and reaped first, so no child outlives its caller.
    """
    start = time.monotonic()
    deadline = start + wall_limit
    next_look = start + cpu_limit
    pidfd = None
    try:
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        poller = None
        if pidfd is not None:
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
        delay = 0.0002
        while (now := time.monotonic()) < deadline:
            if now >= next_look:
                used = cpu_seconds(pid)
                if used is not None and used >= cpu_limit:
                    return _kill(pid), Overrun.cpu
                # It cannot reach the limit sooner than the CPU it lacks.
                next_look = now + max(0.01, cpu_limit - (used or 0.0))
            if poller is not None:
                wait = min(deadline, next_look) - now
                if poller.poll(max(1, int(wait * 1000))):
                    return os.waitpid(pid, 0)[1], None
            else:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    return status, None
                time.sleep(delay)
                delay = min(2 * delay, 0.02)
        return _kill(pid), Overrun.wall
    except BaseException:
        try:
            _kill(pid)
        except (ProcessLookupError, ChildProcessError):
            pass
        raise
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _kill(pid: int) -> int:
    """Kills child `pid` and reaps it; its wait status."""
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]
