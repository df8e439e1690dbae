"""How one kernel launch runs: its shape and the CPU backend's scheduling choices.

`LaunchConfig` is the one value every layer passes for a launch, from a spec
file or the command line through the checkers to a backend; the layers add
only what is theirs (a backend its time limit, a checker its arguments). The
enums are the modes the CPU engine understands; their C++ twins in the engine
header are rendered from these classes (`cxx_enums`), never typed twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Self

import numpy as np

Dims = int | Sequence[int]
"""A grid or block as users give it: an int, or one to three ints."""

Dim3 = tuple[int, int, int]


class Choice(IntEnum):
    """An enum whose members are chosen by their lower-case names (in specs, on the
    command line, in hirace.toml)."""

    @classmethod
    def parse(cls, value: str | Self, what: str) -> Self:
        """The member named `value`; ValueError naming `what` and the choices."""
        if isinstance(value, cls):
            return value
        try:
            return cls[str(value)]
        except KeyError:
            raise ValueError(f"{what} must be one of {', '.join(cls.names())}, "
                             f"got {value!r}") from None  # fmt: skip

    @classmethod
    def names(cls) -> list[str]:
        return [m.name for m in cls]


class Schedule(Choice):
    """Which thread the CPU engine runs next at a switch point."""

    inorder = 0
    """Threads in index order between switch points, blocks in order."""
    random = 1
    """Seeded by the launch's seed: the next thread at every switch, and the block order."""


class ExitedThreads(Choice):
    """How barriers treat threads that have exited."""

    error = 0
    """Report barrier divergence (the CUDA programming guide's rule)."""
    arrive = 1
    """Count them as arrived, as current GPUs do."""


def dims3(value: Dims, what: str) -> Dim3:
    """Normalise a grid or block given as an int or 1-3 ints; ValueError naming `what`."""
    items = [value] if isinstance(value, int | np.integer) else list(value)
    if not 1 <= len(items) <= 3 or not all(isinstance(v, int | np.integer) and v >= 1
                                           for v in items):  # fmt: skip
        raise ValueError(f"{what} must be a positive int or 1 to 3 positive ints, got {value!r}")
    items = [int(v) for v in items] + [1] * (3 - len(items))
    return items[0], items[1], items[2]


@dataclass(frozen=True)
class LaunchConfig:
    """One launch's shape and schedule. Build it with `of`, which validates.

    `seed`, `schedule` and `exited_threads` apply to the CPU backend; on a GPU
    the hardware schedules and exited threads count as arrived.
    """

    grid: Dim3
    block: Dim3
    shared_bytes: int = 0
    seed: int = 0
    schedule: Schedule = Schedule.inorder
    exited_threads: ExitedThreads = ExitedThreads.error

    @classmethod
    def of(
        cls,
        grid: Dims,
        block: Dims,
        shared_bytes: int = 0,
        seed: int = 0,
        schedule: Schedule | str = Schedule.inorder,
        exited_threads: ExitedThreads | str = ExitedThreads.error,
    ) -> LaunchConfig:
        """A validated config; ValueError naming the parameter that is wrong."""
        if isinstance(shared_bytes, bool) or not isinstance(shared_bytes, int) or shared_bytes < 0:
            raise ValueError(f"shared_bytes must be an int >= 0, got {shared_bytes!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        return cls(
            dims3(grid, "grid"), dims3(block, "block"), shared_bytes, seed,
            Schedule.parse(schedule, "schedule"),
            ExitedThreads.parse(exited_threads, "exited_threads"),
        )  # fmt: skip

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]
