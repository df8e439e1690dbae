"""Exit statuses and the errors the core raises for the CLI to report.

Every sub-command ends with an `ExitCode`. A `HiraceError` carries the one
it ends with: its message is printed as the whole diagnosis, on one line,
so it must name what is wrong and where (file:line, TOML key, parameter).
Anything else escaping a command is a bug in hirace: the CLI reports it as a
tool failure (status 3), with the traceback only under `--debug`.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The exit statuses of every `hirace` command."""

    CLEAN = 0
    """Nothing found: no race, every case as expected."""
    FINDINGS = 1
    """Races, kernel faults, missed or unexpected litmus verdicts, a failed verification."""
    USAGE = 2
    """Bad command line or bad input: a file, a spec, a kernel name, an argument."""
    TOOL_FAILURE = 3
    """hirace or its environment failed: no compiler, no GPU driver, an internal error."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C (SIGINT), as a shell reports it."""


class HiraceError(Exception):
    """A user-facing error: bad input by default (`exit_code` USAGE)."""

    exit_code = ExitCode.USAGE

    def located(self, where: str) -> HiraceError:
        """The same error, its message prefixed with where it happened (`spec.toml: launch[2]`)."""
        located = HiraceError(f"{where}: {self}")
        located.exit_code = self.exit_code
        return located


class UsageError(HiraceError):
    """A command line that cannot be acted on: options that do not go together."""


class InputError(HiraceError):
    """An input file that cannot be used: unreadable, not text, not what it should be."""


class UnknownKernel(HiraceError, LookupError):
    """A kernel name the source does not define (or does not instrument)."""

    def __init__(self, name: str, known: list[str]) -> None:
        listing = ", ".join(known) or "none"
        super().__init__(f"no instrumented kernel {name!r} (kernels: {listing})")
        self.name = name
        self.known = known


class ArgumentMismatch(HiraceError, TypeError):
    """Launch arguments that do not fit the kernel's parameters; the message names one."""


class ToolFailure(HiraceError):
    """hirace's environment cannot do what was asked: a missing compiler, driver or device."""

    exit_code = ExitCode.TOOL_FAILURE


class Finding(HiraceError):
    """The program under test failed at run time (a fault, a hang, divergence): a finding
    about the program, reported with the races found before it."""

    exit_code = ExitCode.FINDINGS
