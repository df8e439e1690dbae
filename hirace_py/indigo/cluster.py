"""Running a suite's tasks on a Dask `distributed` cluster (`--scheduler`).

The same tasks as `--jobs` (one code and its pending inputs; see
`hirace_py.indigo.pool`) go to the cluster's workers; each returns the rows of
its runs. Only this process, the client, writes results: each task's rows go to
`sink` as soon as that task finishes, so an interrupted run keeps every
finished task and a rerun resumes from the database.

Workers need hirace installed and the codes and inputs at the same paths as
here (a shared file system); each builds a code's program in its own hirace
cache. A task that fails on a worker for a reason other than hirace itself (a
worker lost, say) becomes error rows naming the reason; a failure of hirace
(`ToolFailure`) stops the run, as with `--jobs`.
"""

from __future__ import annotations

from collections.abc import Callable

from hirace_py.errors import HiraceError, ToolFailure
from hirace_py.indigo.pool import Task, error_rows
from hirace_py.indigo.programs import CodeRunner, Input, Settings
from hirace_py.indigo.results import RunResult

CONNECT_TIMEOUT = 30
"""Seconds to wait for the scheduler before giving up."""


def run_task(task: Task, inputs: list[Input], settings: Settings) -> list[RunResult]:
    """What a worker runs: build the code once, run it on each pending input."""
    runner = CodeRunner(task.code, settings)
    return [runner.run(inputs[i], task.launch_limit(i)) for i in task.inputs]


def execute_on_cluster(
    address: str,
    tasks: list[Task],
    inputs: list[Input],
    settings: Settings,
    sink: Callable[[RunResult], None],
) -> None:
    """Run every task on the cluster whose scheduler is at `address`; `sink`
    gets each row here, task by task, as tasks finish."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise HiraceError(
            f"--scheduler {address}: needs Dask's distributed package "
            "(pip install 'hirace[cluster]')"
        ) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise HiraceError(f"--scheduler {address}: cannot connect ({exc})") from None
    with client:
        futures = {
            client.submit(run_task, task, inputs, settings, pure=False): task for task in tasks
        }
        try:
            for future in as_completed(futures, loop=client.loop):
                task = futures[future]
                try:
                    rows = future.result()
                except ToolFailure:
                    raise
                except Exception as exc:  # whatever the worker or the cluster raised
                    why = f"the cluster worker running this code failed ({type(exc).__name__})"
                    rows = error_rows(task, inputs, f"{why}: {exc}")
                for row in rows:
                    sink(row)
        finally:
            client.cancel(list(futures))
