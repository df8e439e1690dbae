"""Checking a whole labeled suite: find the codes, skip finished runs, run the
rest (in this process or in worker processes), store every row as it comes.

Build work shared across codes and inputs:
- the CPU backend's program runtime and hirace's runtime header are built and
  rendered once, here in the parent, before any worker starts;
- every program is built once (a task is one code and its pending inputs, so
  one process builds it and runs it on all of them) and cached on disk by
  content (`hirace_py.program.cached_build`), so reruns and identical codes
  build once.

Codes whose label says they may never finish (`LivelockBug`) run last, each
with a launch limit derived from the codes beside it that did finish: on an
input, one launch more than the most any finished code of the same directory
made there (`derived_limits`). A livelocked program makes the launches a
finishing version of it makes and then repeats; past the point where every
finishing sibling had stopped it is only repeating, so the report holds its
progress and at least one launch of the repetition, and the run costs what a
finishing run costs instead of running to its deadline. Without a finished
sibling on an input the run keeps the default limits (`programs.LAUNCH_LIMIT`
and the deadline).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hirace_py.errors import HiraceError
from hirace_py.indigo.cluster import execute_on_cluster
from hirace_py.indigo.pool import Pool, Task
from hirace_py.indigo.programs import CodeRunner, Input, Settings, load_input
from hirace_py.indigo.progress import Progress
from hirace_py.indigo.results import ResultsDB, RunResult, Setup
from hirace_py.indigo.suite import Code, discover
from hirace_py.indigo.summary import InputSummary, summarise
from hirace_py.instrument.runtime import include_dir


@dataclass(frozen=True)
class Request:
    """Everything `hirace check SUITE --inputs ...` asks for."""

    root: Path
    inputs: tuple[Path, ...]
    settings: Settings
    jobs: int
    db: Path | None
    progress: bool
    scheduler: str | None = None
    """A Dask scheduler's address: run the tasks on that cluster, not here."""


class Interrupted(Exception):
    """The run was interrupted (Ctrl-C); the message says what was saved."""


@dataclass
class Outcome:
    """The per-input summaries, and how much of the run was done now."""

    summaries: list[InputSummary]
    codes: int
    ran: int
    reused: int


def plan(codes: list[Code], inputs: list[Input], done: set[tuple[str, str, str]]) -> list[Task]:
    """One task per code that still has inputs to run on, in suite order."""
    tasks = []
    for code in codes:
        pending = tuple(i for i, d in enumerate(inputs) if (code.rel, code.sha, d.sha) not in done)
        if pending:
            tasks.append(Task(code, pending))
    return tasks


def derived_limits(task: Task, inputs: list[Input], rows: Iterable[RunResult]) -> Task:
    """`task` with a launch limit on each of its inputs: one more than the most
    launches a finished run (not an error, not hung, label without a hang) of
    a code in the same directory made on that input; None where there is none."""
    here = PurePosixPath(task.code.rel).parent
    most: dict[str, int] = {}
    for row in rows:
        if (row.error or row.hung or row.expected_hang or row.launches == 0
                or PurePosixPath(row.code).parent != here):  # fmt: skip
            continue
        most[row.input_sha] = max(most.get(row.input_sha, 0), row.launches)
    limits = tuple(most[inputs[i].sha] + 1 if inputs[i].sha in most else None
                   for i in task.inputs)  # fmt: skip
    return dataclasses.replace(task, launch_limits=limits)


def prepare(settings: Settings) -> None:
    """Build what every code shares before workers start (they would race on it)."""
    include_dir()
    if settings.backend == "cpu":
        from hirace_py.backends.cpu_program import program_runtime

        program_runtime()


def execute(
    tasks: list[Task],
    inputs: list[Input],
    settings: Settings,
    jobs: int,
    sink: Callable[[RunResult], None],
    scheduler: str | None = None,
) -> None:
    """Run every task; `sink` gets each row, in this process, as it finishes."""
    if scheduler is not None:
        execute_on_cluster(scheduler, tasks, inputs, settings, sink)
        return
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            runner = CodeRunner(task.code, settings)
            for i in task.inputs:
                sink(runner.run(inputs[i], task.launch_limit(i)))
        return
    Pool(jobs, inputs, settings).run(tasks, sink)


def check_suite(request: Request, note: Callable[[str], None]) -> Outcome:
    """Run what is not yet in the results database and summarise all of it.

    `note` receives one-line remarks for the user (skipped files, what is
    reused). Bad inputs raise HiraceError before anything runs.
    """
    codes = discover(request.root)
    if not codes:
        raise HiraceError(f"{request.root}: no codes (.cu files) found")
    inputs = [load_input(path) for path in request.inputs]
    settings = request.settings
    setup = Setup(settings.threads, settings.blocks, settings.backend, settings.key())
    db = ResultsDB(request.db)
    try:
        tasks = plan(codes, inputs, db.done(setup))
        total = sum(len(t.inputs) for t in tasks)
        reused = len(codes) * len(inputs) - total
        where = f" from {request.db}" if request.db else ""
        note(f"{len(codes)} codes x {len(inputs)} inputs: {reused} runs reused{where}, "
             f"{total} to run")  # fmt: skip
        progress = Progress(total, request.progress)

        def sink(row: RunResult) -> None:
            db.add(row, setup)
            progress.advance(bool(row.error))

        if tasks:
            prepare(settings)
        finishing = [t for t in tasks if not t.code.labels.hangs]
        hanging = [t for t in tasks if t.code.labels.hangs]
        try:
            if finishing:
                execute(finishing, inputs, settings, request.jobs, sink, request.scheduler)
            if hanging:
                stored = db.results(setup).values()
                hanging = [derived_limits(t, inputs, stored) for t in hanging]
                execute(hanging, inputs, settings, request.jobs, sink, request.scheduler)
        except KeyboardInterrupt:
            # The database is the truth: a row whose commit was interrupted is not there.
            planned = {(t.code.rel, t.code.sha, inputs[i].sha) for t in tasks for i in t.inputs}
            finished = len(planned & db.done(setup))
            saved = (f"saved in {request.db}; rerun the same command to resume"
                     if request.db else "not saved (no --db)")  # fmt: skip
            raise Interrupted(
                f"interrupted after {finished} of {total} runs; their results are {saved}"
            ) from None
        finally:
            progress.close()
        stored = db.results(setup)
    finally:
        db.close()
    rows = [
        dataclasses.replace(stored[(code.rel, code.sha, data.sha)], input=data.name)
        for code in codes
        for data in inputs
    ]
    return Outcome(summarise([d.name for d in inputs], rows), len(codes), total, reused)
