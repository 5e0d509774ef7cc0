"""Running planned cells: tasks in this process, on worker processes or on Ray, results
into the store.

Cells stream through the driver: the plan builds them one at a time, they are packed
into tasks as they come, a bounded number of tasks is out at once (2 per worker, or
``ray.max_in_flight`` on Ray), gathered in completion order, and the cells a task
completes are stored together, in one file per family version, as soon as it is in. So
the driver holds only what is in flight, whatever the sweep's size. Workers return
tables and never touch the results directory, so it may live on the driver's disk while
the workers run on a cluster, and a worker that dies leaves nothing half written.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from dataclasses import replace as with_fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .estimate import choose_executor, pool_size, ray_address, two_digits
from .family import get_family
from .plan import (
    Cell,
    Execution,
    Piece,
    Plan,
    RaySettings,
    make_cell,
    pieces,
    tasks,
)
from .results import NEEDED, cell_rows, cell_table, option_columns, roles
from .store import ResultsStore, family_directory, format_error, provenance, worker
from .threads import cores, limit_threads

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

Task = list[Piece]


@dataclass(frozen=True)
class PieceResult:
    """A piece's rows, or the traceback of the exception it raised."""

    piece: Piece
    table: pa.Table | None
    error: str | None
    started: float  # UNIX time at which the piece started
    seconds: float
    machine: dict[str, Any] = field(default_factory=dict)  # store.worker(), where it ran


def compute(piece: Piece) -> pa.Table:
    """The rows of one piece, checked against the family's schema, with every column of
    the cell (:func:`sweep.results.cell_table`)."""
    cell = piece.cell
    family = get_family(cell.family)
    rows = family.run(cell.prepared, cell.seeds(piece.start, piece.stop),
                      range(piece.start, piece.stop), piece.analytic)
    constants = {**family.columns(cell.prepared), "family": cell.family,
                 "family_version": cell.version, "seed": cell.seed,
                 "replicates": cell.replicates, "cell_id": cell.cell_id}
    return cell_table(cell.family, family.schema, rows, constants,
                      {**option_columns(family.options), **family.schema.constants})


def simulate(family: str, replicates: int = 1, seed: int = 0, **options: Any) -> pd.DataFrame:
    """The rows of one cell, computed in this process: what a sweep cell of the same
    family, options, ``replicates`` and ``seed`` stores, row for row and bit for bit.

    ``options`` are the family's options by name (nested groups as dicts). The frame's
    ``attrs`` hold its index, metrics and their kinds, as :func:`analysis.load` leaves
    them. Raises :class:`~sweep.errors.ConfigError` on bad input before any work.
    """
    cell = make_cell({"family": family, "replicates": replicates, "seed": seed, **options})
    table = cell_rows([compute(p) for p in pieces(cell, math.inf)])
    frame = table.to_pandas()
    # The roles a file carries, where analysis.summarize looks for them.
    index, metrics = roles(table.schema)
    frame.attrs.update(index=index, metrics=list(metrics), kinds=metrics)
    return frame


def run_task(task: Task, threads: str = "one", granted: int | None = None
             ) -> list[PieceResult]:
    """Run every piece of a task, the numerical libraries' threads as ``threads`` asks,
    a family's parallel kernels on at most ``granted`` cores (None: all of this
    process's; :func:`sweep.threads.limit_threads`); an exception fails its piece only.

    The rows come back as Arrow tables with the engine's columns, so that the driver,
    the one serial part of a sweep, only concatenates and writes them.
    """
    results = []
    # The families first, so that the limit reaches the libraries their modules load (a
    # Ray worker imports a family at its first task; an unpickled cell may not have).
    for family in {piece.cell.family for piece in task}:
        get_family(family)
    with limit_threads(threads, granted):
        for piece in task:
            started, start = time.time(), time.perf_counter()
            try:
                table = compute(piece)
                results.append(PieceResult(piece, table, None, started,
                                           time.perf_counter() - start, worker()))
            except Exception as error:  # recorded with the cell; the sweep goes on
                results.append(PieceResult(piece, None, format_error(error), started,
                                           time.perf_counter() - start))
    return results


def run_task_remotely(task: Task, threads: str, granted: int = 1
                      ) -> tuple[list[tuple[Any, ...]], list[pa.Table], dict[str, Any]]:
    """:func:`run_task` in a worker process (Ray's or the pool's), shaped for the trip
    back: each piece's error and timing, its rows in as few tables as there are runs of
    pieces with one schema, each column in one chunk (pickling costs per table and per
    chunk: a table, or a chunk, per piece would cost a tiny cell about a millisecond each
    way), and the worker's record (:func:`sweep.store.worker`). The pieces stay behind:
    the driver has them. ``granted``: the cores a parallel kernel may use (a Ray task
    holds one CPU; a pool's worker its share of this machine's)."""
    import pyarrow as pa

    results = run_task(task, threads, granted)
    tables: list[list[pa.Table]] = []
    for result in results:
        if result.table is None:
            continue
        if tables and tables[-1][-1].schema.equals(result.table.schema, check_metadata=True):
            tables[-1].append(result.table)
        else:
            tables.append([result.table])
    outcomes = [(0 if r.table is None else r.table.num_rows, r.error, r.started, r.seconds)
                for r in results]
    return (outcomes, [pa.concat_tables(run).combine_chunks() for run in tables],
            worker())


def _unpack(task: Task, outcomes: list[tuple[Any, ...]], tables: list[pa.Table],
            machine: dict[str, Any]) -> list[PieceResult]:
    """The :class:`PieceResult` of each piece of a task :func:`run_task_remotely` ran."""
    blocks = iter(tables)
    table, offset = None, 0
    results = []
    for piece, (rows, error, started, seconds) in zip(task, outcomes, strict=True):
        rows_of = None
        if error is None:
            if table is None or (offset == table.num_rows and rows):
                table, offset = next(blocks), 0
            rows_of, offset = table.slice(offset, rows), offset + rows
        results.append(PieceResult(piece, rows_of, error, started, seconds,
                                   machine if error is None else {}))
    return results


class SerialExecutor:
    """Runs tasks one after the other in this process (small sweeps, other launchers);
    the numerical libraries' threads are as ``threads`` asks during each task only."""

    workers = 1

    def __init__(self, threads: str) -> None:
        self.threads = threads

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, list[PieceResult] | str]]:
        for task in tasks:
            yield task, run_task(task, self.threads)


#: How worker processes start. A fork (Linux) hands every worker the driver's imports,
#: the families and numba included, in milliseconds. The driver's threads at that point
#: are native libraries' pools with fork handlers (OpenBLAS, Arrow): no family uses
#: numba's threading layer (``parallel=True``), the one that does not survive a fork,
#: and the pool is forked before the progress bar starts its thread. Elsewhere (macOS,
#: whose system libraries are not fork-safe), a fork server started clean forks them.
START_METHOD = "fork" if sys.platform == "linux" else "forkserver"


def _watch_parent(parent: int) -> None:
    """End this worker once its parent is gone: a driver killed outright cannot stop
    its workers, and an idle one would wait for work forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _start_worker(families: Sequence[str]) -> None:
    """Set up a worker process: the families imported once, before its first task (a
    no-op after a fork), and Ctrl-C left to the driver, which stops its workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    for family in families:
        get_family(family)


#: The last line of a failure record when a task killed its worker process alone.
WORKER_DIED = ("BrokenProcessPool: the worker process computing this cell's task died, "
               "then again running it alone (killed, out of memory or a crash in compiled "
               "code)")


class ProcessExecutor:
    """Runs tasks on a pool of worker processes on this machine.

    A worker imports the families once and keeps the kernels it compiles or loads for
    every task it runs; at most two tasks per worker are out at once. A worker that dies
    (killed, out of memory, a crash in compiled code) breaks the whole pool, and every
    task then in flight comes back lost: the pool starts again and runs the lost tasks
    again one at a time, so that a task that kills its worker again, alone, is the
    cause. Its cells are recorded as failed (the next run computes them again); the
    other tasks' cells are stored as usual.
    """

    def __init__(self, workers: int, families: Iterable[str], threads: str) -> None:
        self.workers = workers
        self.families = sorted(families)
        self.threads = threads
        #: The cores each worker's parallel kernels may use: its share of this machine's.
        self.granted = max(1, cores() // workers)
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        #: The processes this one had started before its pools: not workers of theirs.
        self.others: set[multiprocessing.process.BaseProcess] = set()

    def _start(self) -> None:
        self.pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, multiprocessing.get_context(START_METHOD),
            initializer=_start_worker, initargs=(self.families,))
        # A forking pool forks all its workers at its first submission: here, before
        # the progress bar starts its thread.
        self.pool.submit(int)

    def __enter__(self) -> ProcessExecutor:
        self.others = set(multiprocessing.active_children())
        self._start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None:  # interrupted or failed: the tasks in flight are not waited for
            # concurrent.futures stops busy workers itself only from Python 3.14 on, and
            # names them only privately: they are the processes this one has started
            # since (the driver starts no others meanwhile).
            for process in set(multiprocessing.active_children()) - self.others:
                process.kill()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, list[PieceResult] | str]]:
        pending = iter(tasks)
        lost: collections.deque[Task] = collections.deque()  # in flight when the pool broke
        in_flight: dict[concurrent.futures.Future, Task] = {}
        alone: concurrent.futures.Future | None = None  # a lost task, running by itself
        broken = False
        while True:
            # Lost tasks run one at a time, on an idle pool; the others two per worker.
            while not broken and alone is None and (
                    not in_flight if lost else len(in_flight) < 2 * self.workers):
                again = bool(lost)
                task = lost.popleft() if again else next(pending, None)
                if task is None:
                    break
                try:
                    future = self.pool.submit(run_task_remotely, task, self.threads,
                                              self.granted)
                except BrokenProcessPool:  # broken meanwhile: the task never started
                    lost.appendleft(task)
                    broken = True
                else:
                    in_flight[future] = task
                    alone = future if again else None
            if not in_flight and not broken:
                return
            done, _ = concurrent.futures.wait(
                in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                task = in_flight.pop(future)
                try:
                    returned = future.result()
                except BrokenProcessPool as error:
                    broken = True
                    if future is alone:
                        yield task, f"{format_error(error)}{WORKER_DIED}\n"
                    else:
                        lost.append(task)
                except Exception as error:  # the task or its rows did not pickle
                    yield task, format_error(error)
                else:
                    yield task, _unpack(task, *returned)
                if future is alone:
                    alone = None
            if broken and not in_flight:
                self.pool.shutdown(wait=True)
                self._start()
                broken = False


class RayExecutor:
    """Runs tasks on Ray: a local instance started here, or an existing cluster.

    ``settings.address`` (or ``RAY_ADDRESS``) connects to a cluster, shipping this package
    through ``runtime_env`` (``py_modules``). Without either, a private local instance is
    started, even when a cluster started with ``ray start`` is running on this machine,
    and is shut down at the end. A Ray that is already initialized in this process is used
    as it is. Tasks lost with a worker or a node are retried by Ray.
    """

    def __init__(self, settings: RaySettings, threads: str) -> None:
        self.settings = settings
        self.threads = threads
        self.started = False
        self.workers = 1
        self.environment = contextlib.ExitStack()

    def __enter__(self) -> RayExecutor:
        try:
            return self._start()
        except BaseException:
            self.environment.close()
            raise

    def _start(self) -> RayExecutor:
        import logging

        from .cluster import connect, environment

        address = ray_address(self.settings)
        # Before ray is imported; restored once this process is done with Ray.
        self.environment.enter_context(environment(address, self.settings.connect_seconds))
        import ray

        if not ray.is_initialized():
            runtime_env = dict(self.settings.runtime_env)
            # Token authentication stays on, as Ray sets it; the warning Ray logs about it
            # on every start is silenced through Ray's logger (the README says why).
            logging.getLogger("ray._private.authentication").setLevel(logging.ERROR)
            if address:
                import sweep

                runtime_env["py_modules"] = [sweep, *runtime_env.get("py_modules", [])]
                # numba's on-disk cache is per machine; workers rebuild their own.
                runtime_env.setdefault("excludes", ["__pycache__/"])
                connect(address, self.settings.connect_seconds, runtime_env=runtime_env,
                        logging_level="WARNING")
            else:
                # "local": a plain ray.init() would join the cluster that the last
                # `ray start` recorded in Ray's temporary directory. A local instance
                # records nothing there, so later `ray.init()`s and `ray status` are not
                # pointed at it. Its ports, and the dashboard if asked for, are on
                # 127.0.0.1 only (sweep.cluster.environment).
                ray.init(address="local", num_cpus=self.settings.num_cpus,
                         include_dashboard=self.settings.dashboard, dashboard_host="127.0.0.1",
                         runtime_env=runtime_env or None, logging_level="WARNING")
            self.started = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        return self

    def __exit__(self, *exc: object) -> None:
        with self.environment:
            if self.started:
                import ray

                ray.shutdown()

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, list[PieceResult] | str]]:
        import ray

        remote = ray.remote(num_cpus=1, max_retries=3, retry_exceptions=False)(run_task_remotely)
        limit = self.settings.max_in_flight or 2 * self.workers
        pending = iter(tasks)
        in_flight: dict[ray.ObjectRef, Task] = {}
        exhausted = False
        while True:
            while not exhausted and len(in_flight) < limit:
                task = next(pending, None)
                if task is None:
                    exhausted = True
                else:
                    in_flight[remote.remote(task, self.threads)] = task
            if not in_flight:
                return
            [ref], _ = ray.wait(list(in_flight), num_returns=1)
            task = in_flight.pop(ref)
            try:
                returned = ray.get(ref)
            except ray.exceptions.RayError as error:  # retries exhausted
                yield task, format_error(error)
            else:
                yield task, _unpack(task, *returned)
            del ref  # Ray frees the result once no reference is left


@dataclass
class Summary:
    """What one command did."""

    results_dir: str
    cells: int = 0
    done: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    estimate: float | None = None  # CPU seconds of the missing cells, for dry runs
    damaged: int = 0  # damaged files found, set aside and recomputed
    replaced: int = 0  # stored cells recomputed (``recompute``)
    extended: int = 0  # stored cells given more replicates
    #: Cells of replicates=auto that needed more than their target.max (sweep.target).
    capped: list[str] = field(default_factory=list)
    note: str = ""  # a further sentence
    executor: str = ""  # the executor chosen, and why
    families: list[str] = field(default_factory=list)  # the families' subdirectories

    def __str__(self) -> str:
        damaged = f" ({self.damaged} damaged files set aside)" if self.damaged else ""
        where = self.results_dir
        if len(self.families) == 1:  # where pandas reads every column of the family
            where = os.path.join(self.results_dir, self.families[0])
        after = f"; {self.note}" if self.note else ""
        if self.capped:
            after += (f"; {len(self.capped)} of replicates=auto stopped at target.max before "
                      "their precision")
        if self.estimate is not None:
            again = f", {self.replaced} of them present" if self.replaced else ""
            extend = (f", {self.extended} to extend with more replicates" if self.extended
                      else "")
            return (
                f"{self.cells} cells: {self.skipped + self.replaced + self.extended} present,"
                f" {self.cells - self.skipped - self.extended} to compute{again}{extend} (about "
                f"{self.estimate:.2g} CPU-seconds){damaged}; results in {where}{after}"
            )
        extended = f" ({self.extended} extended)" if self.extended else ""
        return (
            f"{self.cells} cells: {self.done} done{extended}, {self.skipped} skipped (already "
            f"present), {len(self.failed)} failed in {self.seconds:.1f} s{damaged}; results "
            f"in {where}{after}"
        )


def git_commit() -> str | None:
    """The commit of this package's checkout (``+dirty`` if modified), if it is one."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=10, check=True)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return commit.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


class _Collector:
    """Assembles the pieces of each cell in flight and stores the cells each task
    completes, together."""

    def __init__(self, store: ResultsStore, replace: set[str], summary: Summary,
                 needed: Mapping[str, int] | None = None) -> None:
        from . import __version__

        self.store = store
        self.replace = replace
        self.needed = needed or {}  # the column NEEDED of cells of replicates=auto
        self.summary = summary
        self.version = __version__
        self.commit = git_commit()
        self.parts: dict[str, list[PieceResult]] = {}
        self.expected: dict[str, int] = {}

    def expect(self, cells: Iterable[Cell], task_seconds: float) -> Iterator[Cell]:
        """``cells``, noting how many pieces each will come back in."""
        for cell in cells:
            self.expected[cell.cell_id] = len(pieces(cell, task_seconds))
            self.parts[cell.cell_id] = []
            yield cell

    def add(self, results: Sequence[PieceResult]) -> int:
        """Keep a task's pieces; store the cells they complete; how many they were."""
        import pyarrow as pa

        batch, completed = [], 0
        for result in results:
            cell = result.piece.cell
            parts = self.parts[cell.cell_id]
            parts.append(result)
            if len(parts) < self.expected[cell.cell_id]:
                continue
            del self.parts[cell.cell_id], self.expected[cell.cell_id]
            completed += 1
            record = provenance(cell, self.version, self.commit,
                                started=min(p.started for p in parts),
                                finished=max(p.started + p.seconds for p in parts),
                                seconds=sum(p.seconds for p in parts),
                                machine=next((p.machine for p in parts if p.machine),
                                             worker()))
            errors = [p.error for p in parts if p.error is not None]
            if errors:
                family = get_family(cell.family)
                self.store.record_failure(cell, family.columns(cell.prepared), errors[0], record)
                self.summary.failed.append(cell.cell_id)
                continue
            table = cell_rows([p.table for p in parts])
            if cell.cell_id in self.needed:
                table = table.append_column(NEEDED, pa.array(
                    [self.needed[cell.cell_id]] * table.num_rows, pa.int64()))
            batch.append((cell, table, record))
        if batch:
            self.store.commit(batch, self.replace)
            self.summary.done += len(batch)
        return completed


def listing(cells: Plan, states: Sequence[str]) -> Iterator[str]:
    """The dry run's table: one line per cell, its swept columns, id and state. A cell's
    columns are its option set's but its seed: each set's are written once, and the widths
    found without holding a line per cell."""
    header = [*cells.swept, "cell_id", "state"]
    # A mixed sweep's families list different keys: "-" where a cell has none.
    texts = {i: {k: _text(v) for k, v in cells.listed(i).items()}
             for i in np.unique(cells.sets).tolist()}
    widths = [max([len(key), *(len(t.get(key, "-")) for t in texts.values())])
              for key in cells.swept]
    if "seed" in cells.swept and len(cells):
        widths[cells.swept.index("seed")] = max(4, len(str(int(cells.seeds.max()))))
    last = max([len("state"), *map(len, set(states))])
    yield "  ".join(v.ljust(w) for v, w in zip(
        header, [*widths, 16, last], strict=True)).rstrip()
    # One format per option set: its columns padded once, the seed, id and state put in.
    formats = {i: "  ".join([*(f"{{seed:<{w}}}" if k == "seed" else
                               t.get(k, "-").ljust(w).replace("{", "{{").replace("}", "}}")
                               for k, w in zip(cells.swept, widths, strict=True)),
                             "{number:016x}", "{state}"])
               for i, t in texts.items()}
    for i, number, state, seed in zip(cells.sets.tolist(), cells.numbers.tolist(), states,
                                      cells.seeds.tolist(), strict=True):
        yield formats[i].format(seed=seed, number=number, state=state).rstrip()


#: A cell's state in a dry run's listing, by its code in :func:`execute`.
STATES = ("present", "missing", "recompute", "extend")


def _text(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _states(cells: Plan, held: Mapping[str, int]) -> np.ndarray:
    """Per cell, in order: 0 present (skipped), 1 missing, 2 present and to recompute,
    3 present with fewer replicates than asked (to extend); ``held``: the replicates
    stored of each cell."""
    if not held:
        return np.ones(len(cells), np.uint8)
    keys = np.fromiter((int(k, 16) for k in held), np.uint64, len(held))
    stored = np.fromiter(held.values(), np.int64, len(held))
    order = np.argsort(keys)
    keys, stored = keys[order], stored[order]
    at = np.minimum(np.searchsorted(keys, cells.numbers), len(keys) - 1)
    found = keys[at] == cells.numbers
    return np.where(~found, 1, np.where(cells.replace, 2, np.where(
        stored[at] < cells.replicates, 3, 0))).astype(np.uint8)


def _remaining(cells: Plan, states: np.ndarray, held: Mapping[str, int]) -> np.ndarray:
    """The estimated CPU-seconds of what each cell has left to compute: all of a missing
    or recomputed cell, an extended cell's new replicates."""
    remaining = np.where(states == 0, 0.0, cells.costs)
    for k in np.flatnonzero(states == 3).tolist():
        remaining[k] *= 1 - held[f"{int(cells.numbers[k]):016x}"] / cells.replicates[k]
    return remaining


def execute(cells: Plan, execution: Execution, progress: bool = True,
            started: float | None = None, needed: Mapping[str, int] | None = None
            ) -> Summary:
    """Compute every cell of ``cells`` not yet in ``execution.results_dir`` (and those
    ``execution.recompute`` names) and store its rows; ``started`` is the
    :func:`time.perf_counter` at which the command started (this call, by default), for
    the estimate of its time."""
    from tqdm import tqdm

    start = time.perf_counter()
    started = start if started is None else started
    store = ResultsStore(execution.results_dir)
    store.scan()
    states = _states(cells, store.held)
    if not execution.dry_run and (states.any() or store.damaged or store.pending()):
        # Only a command with work to do writes to the directory (it may be read-only).
        store.prepare()
        states = _states(cells, store.held)
    replaced = {f"{n:016x}" for n in cells.numbers[states == 2].tolist()}
    cost = float(_remaining(cells, states, store.held).sum())
    shared = sum(seconds for seconds, needing in cells.shared.values()
                 if states[needing].any())
    todo = int(np.count_nonzero(states))
    summary = Summary(str(execution.results_dir), len(cells), skipped=len(cells) - todo,
                      damaged=len(store.damaged), replaced=len(replaced),
                      extended=int(np.count_nonzero(states == 3)))
    summary.families = sorted({family_directory(family) for family in cells.families})
    name, planned, reason = choose_executor(execution, cost, cells.families,
                                            time.perf_counter() - started, shared)
    summary.executor = f"{name} ({reason})"
    if execution.dry_run:
        summary.estimate = cost
        for line in listing(cells, [STATES[s] for s in states.tolist()]):
            print(line)
        print(f"executor: {summary.executor}")  # the one a run would take, and why
    elif todo:
        print(f"executor: {summary.executor}", flush=True)
        collector = _Collector(store, replaced, summary, needed)
        executor = (ProcessExecutor(pool_size(execution.processes), cells.families,
                                    execution.threads) if name == "processes"
                    else RayExecutor(execution.ray, execution.threads) if name == "ray"
                    else SerialExecutor(execution.threads))
        with executor, tqdm(total=todo, unit="cell", desc="sweep", file=sys.stderr,
                            disable=not progress or None) as bar:
            if name == "ray":  # its size is known once joined
                joined = with_fields(planned, workers=executor.workers)
                print(f"ray: {executor.workers} CPUs: about {two_digits(joined.computing)} s "
                      f"computing{joined.parts()}", flush=True)
            missing = collector.expect(
                (with_fields(c, start=store.held[c.cell_id]) if s == 3 else c
                 for c, s in zip(cells, states.tolist(), strict=True) if s),
                execution.ray.task_seconds)
            for task, results in executor.map(tasks(missing, execution.ray.task_seconds,
                                                    executor.workers, cost)):
                if isinstance(results, str):  # the whole task was lost
                    results = [PieceResult(piece, None, results, time.time(), 0.0)
                               for piece in task]
                bar.update(collector.add(results))
        store.save_index()  # the next resume reads it instead of every footer
    summary.seconds = time.perf_counter() - start
    return summary
