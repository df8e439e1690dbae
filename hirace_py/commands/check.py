"""`hirace check`: run kernels under the race checker and report.

hirace check kernel.cu --launch spec.toml   # the launches of a spec
hirace check kernel.cu --kernel K --grid G --block B [--arg n=1024] [--seeds N]
                                           # one kernel, arguments generated (no spec)
hirace check kernels/                      # a litmus suite (manifest.toml)
hirace check SUITE_DIR --inputs G.egr...   # a labeled suite of programs (docs/indigo.md)

For a suite, every .cu file is a program, built once and run on every input
with the command line --args (default "{input} {threads} {blocks}"; --threads
256 and --blocks 1024 by default), -I/-D apply to its build, --jobs runs codes
in parallel processes, --db keeps the results in SQLite (a rerun resumes),
--progress shows a progress bar also when stderr is not a terminal. Exit
status: 0 when every code matches its labels, 1 with a miss, a false alarm or
an error row, 2 on bad input, 3 on a tool failure.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hirace_py import generate, litmus
from hirace_py.backends.select import BACKENDS
from hirace_py.commands.common import (
    HelpFormatter,
    Output,
    add_compile_options,
    config,
    defines,
    dims,
    program_output_to_stderr,
    read_source,
)
from hirace_py.errors import ExitCode, HiraceError, UnknownKernel, UsageError
from hirace_py.launchspec import LaunchSpec
from hirace_py.launchspec import load as load_spec
from hirace_py.report import FORMATS
from hirace_py.values import ENGINES

if TYPE_CHECKING:
    from hirace_py.indigo.runner import Request
    from hirace_py.instrument.model import Tables


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="check kernels (or a litmus suite) for data races",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument("target", type=Path, help="a .cu file, a directory with manifest.toml, "
                   "or an Indigo suite directory (with --inputs)")  # fmt: skip
    p.add_argument("--launch", type=Path, metavar="SPEC.toml",
                   help="the launches to check, for a .cu file (docs/launch-spec.md)")  # fmt: skip
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="where kernels run: auto is CuPy with a usable GPU, else cpu")  # fmt: skip
    p.add_argument("--engine", choices=ENGINES, default="fsm",
                   help="fsm: shadow-word FSM (default); values: LD-style value-based checking "
                   "on the CPU backend; both: run both, report disagreements (docs/engines.md)")
    p.add_argument("--deterministic", action="store_true",
                   help="results are the values engine's union copies: the same for every "
                   "schedule (needs --engine values or both)")
    p.add_argument("--format", choices=sorted([*FORMATS, "csv"]), default="text",
                   help="csv: for suites (--inputs) only")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="write the report here (default: stdout)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="time limit of each launch on the CPU backend (default: "
                   "$HIRACE_TIMEOUT, else 60); for a suite, of each program's run "
                   f"(default: {TIMEOUT:g})")  # fmt: skip
    add_compile_options(p)
    k = p.add_argument_group("a kernel file without a spec")
    k.add_argument("--kernel", metavar="NAME", help="check this kernel with generated arguments")
    k.add_argument("--grid", type=dims, metavar="X[,Y[,Z]]", help="its grid (default: 1)")
    k.add_argument("--block", type=dims, metavar="X[,Y[,Z]]", help="its block (default: 32)")
    k.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="a scalar argument (default: integers the grid's thread count, "
                   "reals 1.0; arrays are generated)")  # fmt: skip
    k.add_argument("--seeds", type=int, metavar="N",
                   help="launches with other random inputs and schedules (default: 1)")  # fmt: skip
    g = p.add_argument_group("labeled suites of programs (with --inputs)")
    g.add_argument("--inputs", type=Path, nargs="+", metavar="INPUT",
                   help="check TARGET as a suite, running every code on these inputs")  # fmt: skip
    g.add_argument("--threads", type=int, help=f"{{threads}} of --args (default: {THREADS})")
    g.add_argument("--blocks", type=int, help=f"{{blocks}} of --args (default: {BLOCKS})")
    g.add_argument("--args", metavar="TEMPLATE",
                   help="each program's command line after its name, shell-quoted, with "
                   "{input}, {threads} and {blocks} (default: '{input} {threads} {blocks}')")
    g.add_argument("--matches", metavar="REGEX",
                   help="an output line saying the results match the serial code's")  # fmt: skip
    g.add_argument("--differs", metavar="REGEX",
                   help="an output line saying the results differ from the serial code's")
    g.add_argument("--jobs", type=int, help="codes run in parallel processes (default: 1)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the codes on this Dask cluster (tcp://host:port) instead; "
                   "results are stored here as they come")  # fmt: skip
    g.add_argument("--db", type=Path, metavar="FILE.sqlite",
                   help="store results here as they finish; rerunning resumes")  # fmt: skip
    g.add_argument("--progress", action="store_true",
                   help="show progress on stderr even when it is not a terminal")  # fmt: skip
    p.set_defaults(func=run)


THREADS = 256
BLOCKS = 1024
TIMEOUT = 120.0
SUITE_ONLY = ("threads", "blocks", "jobs", "scheduler", "db", "progress", "args", "matches",
              "differs")
NO_SPEC = ("kernel", "grid", "block", "arg", "seeds")


def run(args: argparse.Namespace) -> int:
    target: Path = args.target
    if args.deterministic and args.engine == "fsm":
        raise HiraceError("--deterministic needs --engine values or both")
    if args.inputs is not None:
        return run_indigo(args)
    for name in SUITE_ONLY:
        if getattr(args, name) not in (None, False):
            raise HiraceError(f"--{name} applies to suites only (give --inputs)")
    if args.format == "csv":
        raise HiraceError("--format csv applies to suites only (give --inputs)")
    if target.is_dir():
        if not (target / "manifest.toml").is_file():
            raise HiraceError(
                f"{target}: a directory to check needs a manifest.toml "
                "(or --inputs GRAPH.egr... to check it as an Indigo suite)"
            )
        return run_suite(args)
    if not target.is_file():
        raise HiraceError(f"{target}: no such file or directory")
    if args.timeout is not None:
        if not args.timeout > 0:
            raise UsageError(f"--timeout {args.timeout:g}: must be a positive number of seconds")
        # The CPU backend's (and the values engine's) time limit of every launch.
        os.environ["HIRACE_TIMEOUT"] = f"{args.timeout:g}"
    return run_kernel(args)


def _check_launch_options(args: argparse.Namespace) -> None:
    """Either a spec or --kernel with its launch; UsageError otherwise."""
    given = [f"--{n}" for n in NO_SPEC if getattr(args, n) not in (None, [])]
    if args.launch is not None and given:
        raise UsageError(f"{', '.join(given)}: give either --launch SPEC.toml or "
                         "--kernel NAME with its launch, not both")  # fmt: skip
    if args.launch is None and args.kernel is None:
        raise UsageError(f"{args.target}: give --launch SPEC.toml, or --kernel NAME "
                         "(with --grid, --block, --arg) to check one kernel without a spec "
                         f"(`hirace spec {args.target}` writes a starting spec)")  # fmt: skip
    if args.seeds is not None and args.seeds < 1:
        raise UsageError(f"--seeds {args.seeds}: must be at least 1")


def _specs(args: argparse.Namespace, tables: Tables) -> tuple[list[LaunchSpec], str]:
    """The launches to run, and what names them in errors (the spec file, or --kernel)."""
    if args.launch is not None:
        return load_spec(args.launch), str(args.launch)
    seeds = 1 if args.seeds is None else args.seeds
    kernel = tables.kernel(args.kernel)
    grid, block = args.grid or (1, 1, 1), args.block or (32, 1, 1)
    launches = generate.launches(kernel, grid, block, generate.parse_args(args.arg), seeds)
    return launches, f"--kernel {args.kernel}"


def run_kernel(args: argparse.Namespace) -> int:
    """Every launch of the spec in order. Each launch's kernel and arguments are
    checked before any runs; the report covers the launches that ran, also when
    a later one fails (its error ends the command)."""
    from hirace_py.arguments import check_arguments
    from hirace_py.values.engines import make_checker

    _check_launch_options(args)
    if args.launch is not None:
        load_spec(args.launch)  # a bad spec is reported before anything is compiled
    output = Output(args.output)
    failure: HiraceError | None = None
    with program_output_to_stderr(output.to_stdout):
        checker = make_checker(args.engine, read_source(args.target), str(args.target),
                               config(args), args.backend, args.include_dirs,
                               args.deterministic, defines(args))  # fmt: skip
        specs, source = _specs(args, checker.tables)
        print(f"hirace: {checker.backend_note}", file=sys.stderr)
        launches = []
        for i, spec in enumerate(specs):
            where = f"{source}: launch[{i}]"
            try:
                kernel = checker.tables.kernel(spec.kernel)
            except UnknownKernel as exc:
                raise exc.located(f"{where}.kernel") from None
            launch_args = spec.build_args([p.name for p in kernel.params], where)
            try:
                check_arguments(kernel, launch_args)
            except HiraceError as exc:
                raise exc.located(where) from None
            launches.append((where, spec, launch_args))
        for where, spec, launch_args in launches:
            try:
                checker.launch(spec.kernel, spec.config, launch_args)
            except HiraceError as exc:
                failure = exc.located(where)
                break
    if checker.report.launches or failure is None:
        output.write(FORMATS[args.format](checker.report))
    if failure is not None:
        raise failure
    return checker.report.exit_status


def run_suite(args: argparse.Namespace) -> int:
    from hirace_py.backends.select import resolve

    if args.format == "sarif":
        raise UsageError("--format sarif: a litmus suite's results are text or json")
    output = Output(args.output)
    _, note = resolve(args.backend)
    print(f"hirace: {note}", file=sys.stderr)
    if args.deterministic:
        raise UsageError("--deterministic applies to kernel files (--launch)")
    with program_output_to_stderr(output.to_stdout):
        results = litmus.run(args.target, args.backend, config(args), args.engine,
                             args.include_dirs, defines(args))  # fmt: skip
    output.write(litmus.to_json(results) if args.format == "json" else litmus.table(results))
    return ExitCode.CLEAN if all(r.ok for r in results) else ExitCode.FINDINGS


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
    if args.launch:
        raise HiraceError("--launch does not apply to a suite")
    if args.engine != "fsm":
        raise HiraceError(f"--engine {args.engine}: a suite's programs run whole (hirace build), "
                          "which only the fsm engine supports (docs/engines.md)")  # fmt: skip
    if args.format not in ("text", "json", "csv"):
        raise HiraceError(f"--format {args.format}: a suite's summary is text, json or csv")
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
    backend, note = _suite_backend(args.backend)
    print(f"hirace: {note}", file=sys.stderr)
    settings = programs.Settings(
        threads, blocks, backend, config(args), template,
        tuple(str(Path(d).resolve()) for d in args.include_dirs),
        tuple(sorted(defines(args).items())), timeout,
        _pattern(args.matches, programs.DEFAULT_MATCHES, "--matches"),
        _pattern(args.differs, programs.DEFAULT_DIFFERS, "--differs"),
    )  # fmt: skip
    settings.command(Path("program"), programs.Input("input", Path("input"), ""))
    progress = args.progress or sys.stderr.isatty()
    if args.scheduler is not None and args.jobs is not None:
        raise HiraceError("--jobs and --scheduler: give one (the cluster decides its parallelism)")
    return Request(args.target, tuple(args.inputs), settings, jobs, args.db, progress,
                   args.scheduler)  # fmt: skip


def run_indigo(args: argparse.Namespace) -> int:
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
