"""A progress bar with ETA for suite runs, on stderr.

On a terminal it redraws one line in place; with `--progress` on something
that is not a terminal (a pipe, a log file) it writes whole lines instead, at
most one every `LINE_INTERVAL` seconds and one at the end, so logs never get
carriage returns or partial lines. Disabled, it writes nothing at all.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

LINE_INTERVAL = 5.0
WIDTH = 30


def _duration(elapsed: float) -> str:
    seconds = round(elapsed)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    """Counts finished runs out of `total` and shows the rate-based ETA."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.errors = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.last_line = 0.0
        self.drawn = False

    def advance(self, error: bool = False) -> None:
        """One more run finished (an error row if `error`)."""
        self.done += 1
        self.errors += int(error)
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.text(now) + "\x1b[K")
            self.drawn = True
            self.stream.flush()
        elif self.done == self.total or now - self.last_line >= LINE_INTERVAL:
            self.stream.write("hirace: " + self.text(now) + "\n")
            self.stream.flush()
            self.last_line = now

    def text(self, now: float) -> str:
        elapsed = now - self.start
        filled = WIDTH * self.done // self.total
        bar = "#" * filled + "-" * (WIDTH - filled)
        if self.done == self.total:
            eta = f"done in {_duration(elapsed)}"
        else:
            eta = f"ETA {_duration(elapsed / self.done * (self.total - self.done))}"
        errors = f", {self.errors} error(s)" if self.errors else ""
        return f"[{bar}] {self.done}/{self.total} runs{errors}, {eta}"

    def close(self) -> None:
        """End the bar's line (on a terminal) so later output starts clean."""
        if self.enabled and self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
