"""Waiting for forked child processes with a time limit, killing them on overrun."""

from __future__ import annotations

import os
import select
import signal
import time


def wait_child(pid: int, limit: float) -> tuple[int, bool]:
    """Wait for child `pid`; return (wait status, whether it was killed at `limit` s).

    Uses a pidfd when the kernel has them, else polls with backoff. On any
    exception while waiting (Ctrl-C) the child is killed and reaped first, so
    no child outlives its caller.
    """
    deadline = time.monotonic() + limit
    pidfd = None
    try:
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        if pidfd is not None:
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
            while (remaining := deadline - time.monotonic()) > 0:
                if poller.poll(max(1, int(remaining * 1000))):
                    return os.waitpid(pid, 0)[1], False
        else:
            delay = 0.0002
            while time.monotonic() < deadline:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    return status, False
                time.sleep(delay)
                delay = min(2 * delay, 0.02)
        os.kill(pid, signal.SIGKILL)
        return os.waitpid(pid, 0)[1], True
    except BaseException:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        raise
    finally:
        if pidfd is not None:
            os.close(pidfd)
