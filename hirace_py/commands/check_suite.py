"""`hirace check DIR --inputs ...`: a labelled suite of programs (docs/indigo.md).

Every .cu file is a program, built once and run on every input with the
command line --args (default "{input} {threads} {blocks}"; --threads 256 and
--blocks 1024 by default); -I/-D apply to its build, --jobs runs codes in
parallel processes, --db keeps the results in SQLite (a rerun resumes),
--progress shows a progress bar also when stderr is not a terminal. Exit
status: 0 when every code matches its labels, 1 with a miss, a false alarm or
an error row, 2 on bad input, 3 on a tool failure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hirace_py.commands.check_mode import CheckMode
from hirace_py.commands.common import Output, config
from hirace_py.errors import ExitCode, HiraceError

if TYPE_CHECKING:
    from hirace_py.indigo.runner import Request

THREADS = 256
BLOCKS = 1024
TIMEOUT = 120.0


def add_options(group: argparse._ArgumentGroup) -> list[argparse.Action]:
    return [
        group.add_argument("--inputs", type=Path, nargs="+", metavar="INPUT",
                           help="check TARGET as a suite, running every code on these inputs"),
        group.add_argument("--threads", type=int,
                           help=f"{{threads}} of --args (default: {THREADS})"),
        group.add_argument("--blocks", type=int, help=f"{{blocks}} of --args (default: {BLOCKS})"),
        group.add_argument("--args", metavar="TEMPLATE",
                           help="each program's command line after its name, shell-quoted, with "
                           "{input}, {threads} and {blocks} (default: '{input} {threads} "
                           "{blocks}')"),
        group.add_argument("--matches", metavar="REGEX",
                           help="an output line saying the results match the serial code's"),
        group.add_argument("--differs", metavar="REGEX",
                           help="an output line saying the results differ from the serial code's"),
        group.add_argument("--optimize", choices=("O2", "O1", "Og", "O0"),
                           help="optimisation level of the codes' own units on the CPU "
                           "backend (default: Og, which builds about twice as fast as O2; "
                           "runs on small inputs stay cheap)"),
        group.add_argument("--jobs", type=int,
                           help="codes run in parallel processes (default: 1)"),
        group.add_argument("--scheduler", metavar="ADDRESS",
                           help="run the codes on this Dask cluster (tcp://host:port) instead; "
                           "results are stored here as they come"),
        group.add_argument("--db", type=Path, metavar="FILE.sqlite",
                           help="store results here as they finish; rerunning resumes"),
        group.add_argument("--progress", action="store_true",
                           help="show progress on stderr even when it is not a terminal"),
    ]  # fmt: skip


def _suite_backend(name: str) -> tuple[str, str]:
    """'cpu' or 'gpu' for a suite's programs, and why; one error before the run
    (never a row per code) when the GPU asked for is not usable."""
    from hirace_py.backends.select import program_gpu_status, require

    if name == "cpu":
        return "cpu", "backend cpu: programs built with hirace build --cpu"
    if name == "cupy":
        require(name)
    usable, why = program_gpu_status()
    if name == "cupy" and not usable:
        raise HiraceError(f"--backend cupy: no GPU to run the programs on ({why})")
    if usable:
        return "gpu", f"programs built with nvcc and run on the GPU ({why})"
    return "cpu", f"backend auto: {why}; programs built with hirace build --cpu"


def _pattern(value: str | None, default: str, option: str) -> str:
    import re

    if value is None:
        return default
    try:
        re.compile(value)
    except re.error as exc:
        raise HiraceError(f"{option} {value!r}: not a regular expression: {exc}") from None
    return value


def _indigo_request(args: argparse.Namespace) -> Request:
    """Validate the suite options; HiraceError naming the bad one."""
    import shlex

    from hirace_py.commands.common import defines
    from hirace_py.indigo import programs
    from hirace_py.indigo.runner import Request

    if not args.target.is_dir():
        raise HiraceError(f"{args.target}: --inputs needs a suite directory to check")
    threads = THREADS if args.threads is None else args.threads
    if not 1 <= threads <= 1024:
        raise HiraceError(f"--threads {threads}: must be from 1 to 1024")
    blocks = BLOCKS if args.blocks is None else args.blocks
    if not 1 <= blocks <= 2**31 - 1:
        raise HiraceError(f"--blocks {blocks}: must be from 1 to {2**31 - 1}")
    jobs = 1 if args.jobs is None else args.jobs
    if jobs < 1:
        raise HiraceError(f"--jobs {jobs}: must be at least 1")
    timeout = TIMEOUT if args.timeout is None else args.timeout
    if not timeout > 0:
        raise HiraceError(f"--timeout {timeout:g}: must be positive")
    try:
        template = programs.DEFAULT_ARGS if args.args is None else tuple(shlex.split(args.args))
    except ValueError as exc:
        raise HiraceError(f"--args {args.args!r}: {exc}") from None
    seen: set[Path] = set()
    for path in args.inputs:
        if not path.is_file():
            raise HiraceError(f"{path}: no such input file")
        if path.resolve() in seen:
            raise HiraceError(f"{path}: given twice in --inputs")
        seen.add(path.resolve())
    for d in args.include_dirs:
        if not Path(d).is_dir():
            raise HiraceError(f"-I {d}: no such directory")
    if args.db is not None and args.db.exists() and not args.db.is_file():
        raise HiraceError(f"--db {args.db}: not a file")
    if args.engine != "fsm" and args.backend == "cupy":
        raise HiraceError(f"--engine {args.engine}: the values engine runs on the CPU backend "
                          "only (--backend cpu or auto)")  # fmt: skip
    backend, note = _suite_backend("cpu" if args.engine != "fsm" else args.backend)
    print(f"hirace: {note}", file=sys.stderr)
    settings = programs.Settings(
        threads, blocks, backend, config(args), template,
        tuple(str(Path(d).resolve()) for d in args.include_dirs),
        tuple(sorted(defines(args).items())), timeout,
        _pattern(args.matches, programs.DEFAULT_MATCHES, "--matches"),
        _pattern(args.differs, programs.DEFAULT_DIFFERS, "--differs"), args.engine,
        f"-{args.optimize or 'Og'}",
    )  # fmt: skip
    settings.command(Path("program"), programs.Input("input", Path("input"), ""))
    progress = args.progress or sys.stderr.isatty()
    if args.scheduler is not None and args.jobs is not None:
        raise HiraceError("--jobs and --scheduler: give one (the cluster decides its parallelism)")
    return Request(args.target, tuple(args.inputs), settings, jobs, args.db, progress,
                   args.scheduler)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from hirace_py.indigo import summary
    from hirace_py.indigo.runner import Interrupted, check_suite

    request = _indigo_request(args)
    output = Output(args.output)
    if request.db is None:
        print("hirace: no --db: results are not saved (give --db FILE.sqlite to keep them "
              "and resume)", file=sys.stderr)  # fmt: skip
    try:
        outcome = check_suite(request, lambda text: print(f"hirace: {text}", file=sys.stderr))
    except Interrupted as exc:
        print(f"hirace: {exc}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    s = request.settings
    if args.format == "json":
        setup = {"threads": s.threads, "blocks": s.blocks, "backend": s.backend,
                 "args": list(s.args)}  # fmt: skip
        text = summary.to_json(outcome.summaries, setup)
    elif args.format == "csv":
        text = summary.to_csv(outcome.summaries)
    else:
        text = (f"Suite {args.target}: {outcome.codes} codes, run as: PROGRAM "
                f"{' '.join(s.args)} (threads {s.threads}, blocks {s.blocks}), "
                f"backend {s.backend}\n\n")  # fmt: skip
        text += summary.table(outcome.summaries) + summary.details(outcome.summaries)
    output.write(text)
    bad = ("missed", "false_alarms", "errors")
    failed = any(x.counts()[k] for x in outcome.summaries for k in bad)
    return ExitCode.FINDINGS if failed else ExitCode.CLEAN


MODE = CheckMode("suites", "give --inputs", ("text", "json", "csv"), add_options, run)
