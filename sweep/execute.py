"""Running planned cells: tasks on Ray or in this process, results into the store.

The driver submits at most ``ray.max_in_flight`` tasks at a time, gathers them in
completion order (``ray.wait``) and writes each cell's file as soon as its last piece is
in. Workers return tables and never touch the results directory, so it may live on the
driver's disk while the workers run on a cluster.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from .family import get_family
from .plan import Cell, Execution, Piece, RaySettings, make_cell, pieces, tasks
from .results import cell_table, option_columns, roles
from .store import ResultsStore, format_error, library_versions, provenance

Task = list[Piece]


@dataclass(frozen=True)
class PieceResult:
    """A piece's rows, or the traceback of the exception it raised."""

    piece: Piece
    table: pa.Table | None
    error: str | None
    started: float  # UNIX time at which the piece started
    seconds: float
    libraries: dict[str, str | None] = field(default_factory=dict)  # the worker's (provenance)


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
                      option_columns(family.options))


def simulate(family: str, replicates: int = 1, seed: int = 0, **options: Any) -> pd.DataFrame:
    """The rows of one cell, computed in this process: what a sweep cell of the same
    family, options, ``replicates`` and ``seed`` stores, row for row and bit for bit.

    ``options`` are the family's options by name (nested groups as dicts). The frame's
    ``attrs`` hold its index, metrics and their kinds, as :func:`analysis.load` leaves
    them. Raises :class:`~sweep.errors.ConfigError` on bad input before any work.
    """
    cell = make_cell({"family": family, "replicates": replicates, "seed": seed, **options})
    table = pa.concat_tables([compute(p) for p in pieces(cell, math.inf)])
    frame = table.to_pandas()
    # The roles a file carries, where analysis.summarize looks for them.
    index, metrics = roles(table.schema)
    frame.attrs.update(index=index, metrics=list(metrics), kinds=metrics)
    return frame


def run_task(task: Task) -> list[PieceResult]:
    """Run every piece of a task; an exception fails its piece only.

    The rows come back as Arrow tables with the engine's columns, so that the driver,
    the one serial part of a sweep, only concatenates and writes them.
    """
    results = []
    for piece in task:
        started, start = time.time(), time.perf_counter()
        try:
            table = compute(piece)
            results.append(PieceResult(piece, table, None, started, time.perf_counter() - start,
                                       library_versions()))
        except Exception as error:  # recorded with the cell; the sweep goes on
            results.append(PieceResult(piece, None, format_error(error), started,
                                       time.perf_counter() - start))
    return results


class SerialExecutor:
    """Runs tasks one after the other in this process (debugging, other launchers)."""

    workers = 1

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, list[PieceResult] | str]]:
        for task in tasks:
            yield task, run_task(task)


class RayExecutor:
    """Runs tasks on Ray: a local instance started here, or an existing cluster.

    ``settings.address`` (or ``RAY_ADDRESS``) connects to a cluster, shipping this package
    through ``runtime_env`` (``py_modules``). A Ray that is already initialized in this
    process is used as it is. Tasks lost with a worker or a node are retried by Ray.
    """

    def __init__(self, settings: RaySettings) -> None:
        self.settings = settings
        self.started = False
        self.workers = 1

    def __enter__(self) -> RayExecutor:
        import ray

        if not ray.is_initialized():
            address = self.settings.address or os.environ.get("RAY_ADDRESS")
            runtime_env = dict(self.settings.runtime_env)
            if address:
                import sweep

                runtime_env["py_modules"] = [sweep, *runtime_env.get("py_modules", [])]
                # numba's on-disk cache is per machine; workers rebuild their own.
                runtime_env.setdefault("excludes", ["__pycache__/"])
                ray.init(address=address, runtime_env=runtime_env, logging_level="WARNING")
            else:
                # Token authentication stays as Ray sets it (on); the dashboard, if asked
                # for, listens on the loopback interface only.
                ray.init(num_cpus=self.settings.num_cpus,
                         include_dashboard=self.settings.dashboard, dashboard_host="127.0.0.1",
                         runtime_env=runtime_env or None, logging_level="WARNING")
            self.started = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.started:
            import ray

            ray.shutdown()

    def map(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, list[PieceResult] | str]]:
        import ray

        remote = ray.remote(num_cpus=1, max_retries=3, retry_exceptions=False)(run_task)
        limit = self.settings.max_in_flight or 2 * self.workers
        pending = deque(tasks)
        in_flight: dict[ray.ObjectRef, Task] = {}
        while pending or in_flight:
            while pending and len(in_flight) < limit:
                task = pending.popleft()
                in_flight[remote.remote(task)] = task
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                task = in_flight.pop(ref)
                try:
                    yield task, ray.get(ref)
                except ray.exceptions.RayError as error:  # retries exhausted
                    yield task, format_error(error)


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

    def __str__(self) -> str:
        damaged = f" ({self.damaged} damaged files set aside)" if self.damaged else ""
        if self.estimate is not None:
            return (
                f"{self.cells} cells: {self.skipped} present, {self.cells - self.skipped} to "
                f"compute (about {self.estimate:.0f} CPU-seconds){damaged}; results in "
                f"{self.results_dir}"
            )
        return (
            f"{self.cells} cells: {self.done} done, {self.skipped} skipped (already present), "
            f"{len(self.failed)} failed in {self.seconds:.1f} s{damaged}; results in "
            f"{self.results_dir}"
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
    """Assembles the pieces of each cell and stores the cell when its last piece is in."""

    def __init__(self, store: ResultsStore, cells: Sequence[Cell], summary: Summary) -> None:
        from . import __version__

        self.store = store
        self.summary = summary
        self.version = __version__
        self.commit = git_commit()
        self.parts: dict[str, list[PieceResult]] = {c.cell_id: [] for c in cells}
        self.expected: dict[str, int] = {}

    def expect(self, task_list: Sequence[Task]) -> None:
        for task in task_list:
            for piece in task:
                self.expected[piece.cell.cell_id] = self.expected.get(piece.cell.cell_id, 0) + 1

    def add(self, result: PieceResult) -> bool:
        """Keep a piece's result; True if it completed its cell."""
        cell = result.piece.cell
        parts = self.parts[cell.cell_id]
        parts.append(result)
        if len(parts) < self.expected[cell.cell_id]:
            return False
        del self.parts[cell.cell_id]
        record = provenance(cell, self.version, self.commit,
                            started=min(p.started for p in parts),
                            finished=max(p.started + p.seconds for p in parts),
                            seconds=sum(p.seconds for p in parts),
                            libraries=next((p.libraries for p in parts if p.libraries),
                                           library_versions()))
        errors = [p.error for p in parts if p.error is not None]
        if errors:
            family = get_family(cell.family)
            self.store.record_failure(cell, family.columns(cell.prepared), errors[0], record)
            self.summary.failed.append(cell.cell_id)
            return True
        parts.sort(key=lambda p: (p.piece.analytic, p.piece.start))
        self.store.write(cell, pa.concat_tables([p.table for p in parts]), record)
        self.summary.done += 1
        return True


def execute(cells: Sequence[Cell], execution: Execution, progress: bool = True) -> Summary:
    """Compute every cell not yet in ``execution.results_dir`` and store its rows."""
    from tqdm import tqdm

    start = time.perf_counter()
    store = ResultsStore(execution.results_dir)
    present, damaged = store.scan()
    todo = [cell for cell in cells if cell.cell_id not in present]
    summary = Summary(str(execution.results_dir), len(cells), skipped=len(cells) - len(todo),
                      damaged=len(damaged))
    if execution.dry_run:
        summary.estimate = sum(p.cost for cell in todo for p in pieces(cell, math.inf))
    elif todo:
        store.set_aside(damaged)
        store.prepare()
        collector = _Collector(store, todo, summary)
        executor = SerialExecutor() if execution.executor == "serial" else RayExecutor(
            execution.ray
        )
        with executor, tqdm(total=len(todo), unit="cell", desc="sweep", file=sys.stderr,
                            disable=not progress or None) as bar:
            task_list = tasks(todo, execution.ray.task_seconds, executor.workers)
            collector.expect(task_list)
            for task, results in executor.map(task_list):
                if isinstance(results, str):  # the whole task was lost
                    results = [PieceResult(piece, None, results, time.time(), 0.0)
                               for piece in task]
                for result in results:
                    if collector.add(result):
                        bar.update(1)
    summary.seconds = time.perf_counter() - start
    return summary
