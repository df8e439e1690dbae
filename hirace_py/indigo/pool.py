"""Running codes in parallel worker processes; only the parent writes results.

Workers are started with the `forkserver` context (the CPU backend forks for
every launch, so workers are processes, not threads, and start from a clean
interpreter rather than a fork of this one). Each worker gets the inputs and
settings once, then one task (a code and the inputs it still needs) at a time
over its own pipe, and sends back each run's row as soon as it finishes. The
parent hands out tasks, passes rows to `sink` (which stores them), and
watches every worker: if one dies, the runs of its task that did not report
become error rows saying so, and a new worker takes its place.

On an exception in the parent (Ctrl-C) every worker is stopped before it
propagates; a worker stopped that way kills its own launch in flight.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from hirace_py.errors import ToolFailure
from hirace_py.indigo.programs import CodeRunner, Input, Settings
from hirace_py.indigo.results import RunResult
from hirace_py.indigo.suite import Code


@dataclass(frozen=True)
class Task:
    """One code and the indices (into the run's inputs) it still has to run on."""

    code: Code
    inputs: tuple[int, ...]
    launch_limits: tuple[int | None, ...] = ()
    """The launches the program may make on each of `inputs`, in their order
    (None, or none given: `programs.LAUNCH_LIMIT`)."""

    def launch_limit(self, i: int) -> int | None:
        """The launch limit on input `i` (an index into the run's inputs)."""
        if not self.launch_limits:
            return None
        return self.launch_limits[self.inputs.index(i)]


def error_rows(task: Task, inputs: list[Input], why: str) -> list[RunResult]:
    """One error row saying `why` for each run of `task`."""
    c = task.code
    racy, bounds = c.labels.racy, c.labels.bounds
    return [
        RunResult(c.rel, c.sha, inputs[i].name, inputs[i].sha, racy, bounds, error=why)
        for i in task.inputs
    ]


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _worker(conn: Connection, inputs: list[Input], settings: Settings) -> None:
    """Worker main loop: run tasks until told to stop or the parent is gone."""
    signal.signal(signal.SIGTERM, _stop)
    try:
        while (task := conn.recv()) is not None:
            runner = CodeRunner(task.code, settings)
            for i in task.inputs:
                conn.send(("row", i, runner.run(inputs[i], task.launch_limit(i))))
            conn.send(("done", None, None))
    except ToolFailure as exc:
        conn.send(("failed", None, str(exc)))
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        pass


@dataclass
class _Worker:
    process: mp.process.BaseProcess
    conn: Connection
    task: Task | None = None
    pending: set[int] | None = None


class Pool:
    """`jobs` worker processes running `Task`s; see the module docstring."""

    def __init__(self, jobs: int, inputs: list[Input], settings: Settings) -> None:
        self.ctx = mp.get_context("forkserver")
        self.ctx.set_forkserver_preload(["hirace_py.indigo.pool"])
        self.jobs = jobs
        self.inputs = inputs
        self.settings = settings
        self.workers: list[_Worker] = []

    def _start(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        process = self.ctx.Process(
            target=_worker, args=(child, self.inputs, self.settings), daemon=True
        )
        process.start()
        child.close()
        worker = _Worker(process, parent)
        self.workers.append(worker)
        return worker

    def run(self, tasks: list[Task], sink: Callable[[RunResult], None]) -> None:
        """Run every task; `sink` gets each row in the parent, as it arrives."""
        queue = list(reversed(tasks))
        try:
            for _ in range(min(self.jobs, len(tasks))):
                self._give(self._start(), queue)
            while any(w.task is not None for w in self.workers):
                busy = [w for w in self.workers if w.task is not None]
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
                for w in busy:
                    if w.conn in ready or w.process.sentinel in ready:
                        self._service(w, queue, sink)
            self.close(graceful=True)
        finally:
            self.close(graceful=False)

    def _give(self, worker: _Worker, queue: list[Task]) -> None:
        """Send the worker the next task, or None (stop) when there is none."""
        task = queue.pop() if queue else None
        try:
            worker.conn.send(task)
        except OSError:
            # It died after its last message, so it never got this task.
            if task is not None:
                queue.append(task)
            self._bury(worker, queue)
            return
        worker.task = task
        worker.pending = set(task.inputs) if task is not None else None

    def _service(self, w: _Worker, queue: list[Task], sink: Callable[[RunResult], None]) -> None:
        """Take everything the worker sent; if it died, its unfinished runs
        become error rows."""
        assert w.task is not None and w.pending is not None
        try:
            while w.conn.poll():
                kind, i, row = w.conn.recv()
                if kind == "row":
                    w.pending.discard(i)
                    sink(row)
                elif kind == "failed":
                    raise ToolFailure(row)
                else:
                    self._give(w, queue)
                    return
        except (EOFError, ConnectionResetError):
            pass
        if w.process.is_alive():
            return
        w.process.join()
        why = f"the worker process running this code died (exit code {w.process.exitcode})"
        for row in error_rows(Task(w.task.code, tuple(sorted(w.pending))), self.inputs, why):
            sink(row)
        self._bury(w, queue)

    def _bury(self, w: _Worker, queue: list[Task]) -> None:
        """Forget a dead worker; a new one takes over if tasks are left."""
        w.task = None
        w.conn.close()
        w.process.join(timeout=5)
        if w.process.is_alive():
            w.process.kill()
            w.process.join()
        self.workers.remove(w)
        if queue:
            self._give(self._start(), queue)

    def close(self, graceful: bool) -> None:
        """Reap every worker: ones told to stop get time to exit by themselves
        when `graceful`; the rest are stopped (politely, then by force)."""
        if graceful:
            for w in self.workers:
                w.process.join(timeout=5)
        for w in self.workers:
            if w.process.is_alive():
                w.process.terminate()
        for w in self.workers:
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.conn.close()
        self.workers = []
