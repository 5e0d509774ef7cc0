"""The pool of worker processes (``executor=processes``) against serial, for any worker
count and task cut; its failure records, workers killed mid-task, Ctrl-C and a killed
driver; what ``executor=auto`` chooses; numba's cache as the choice sees it; bad
settings; and the Hydra launcher the platform refuses."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest

import sweep.estimate
from sweep.errors import ConfigError
from sweep.estimate import choose_executor, two_digits
from sweep.execute import WORKER_DIED, Summary, execute
from sweep.plan import Execution, ProcessSettings, RaySettings, plan
from sweep.store import FAILURES, ResultsStore

from .minimal_family import MinimalFamily, MinimalOptions
from .sweep_reference import ROOT, run_cli, start_cli
from .threads_family import REPORTS, threads_by_library

#: The engine's own test family (tests/minimal_family.py): these tests need no family of
#: the paper.
FAMILY = "tests.minimal_family:FAMILY"
#: On the command line (tests/conf/family/minimal.yaml).
MINIMAL = [f"hydra.searchpath=[file://{ROOT / 'tests' / 'conf'}]", "family=minimal"]
SMALL = {"family": FAMILY, "replicates": 3, "seed": 7}
#: Eight cells of a millisecond, with their analytic rows.
GRID = [{**SMALL, "scale": scale, "samples": samples, "seed": seed}
        for scale in (0.5, 1.0) for samples in (20, 40) for seed in (7, 8)]


class KillerFamily(MinimalFamily):
    """The minimal family, except that in a worker process a cell with scale = 0.25 kills
    its process outright (SIGKILL, as the out-of-memory killer does), and one with
    scale = 0.75 does so once: while the file that ``KILL_ONCE`` names does not exist."""

    name = "killer"

    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        scale, once = prepared.scale, os.environ.get("KILL_ONCE", "")
        if multiprocessing.parent_process() is not None and (
                scale == 0.25 or (scale == 0.75 and once and not os.path.exists(once))):
            if scale == 0.75:
                Path(once).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run(prepared, seeds, replicate_ids, analytic)


KILLER = KillerFamily()


def _run(directory: Path, configs: list[dict[str, Any]], **settings: Any) -> Summary:
    cells, _ = plan(configs)
    return execute(cells, Execution(results_dir=str(directory), **settings), progress=False)


def _dataset(directory: Path) -> pd.DataFrame:
    """The rows of a directory, cell by cell (files hold the cells of one task each)."""
    frame = pd.read_parquet(directory)
    return frame.sort_values("cell_id", kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grid, computed in this process (which then holds the kernels its forked
    workers inherit)."""
    directory = tmp_path_factory.mktemp("serial")
    assert not _run(directory, GRID, executor="serial").failed
    return directory


@pytest.mark.parametrize(("workers", "task_seconds"), [(1, 2.0), (2, 2.0), (3, 2.0),
                                                       (2, 1e-6)])
def test_any_worker_count_and_task_cut_give_the_serial_dataset(
    serial: Path, tmp_path: Path, workers: int, task_seconds: float
) -> None:
    # task_seconds=1e-6: every replicate and the analytic rows are a task of their own.
    summary = _run(tmp_path, GRID, executor="processes",
                   processes=ProcessSettings(workers=workers),
                   ray=RaySettings(task_seconds=task_seconds))
    assert (summary.done, summary.failed) == (len(GRID), [])
    assert summary.executor.startswith(
        f"processes (executor=processes: about 0.08 CPU-seconds of cells on {workers} "
        "worker processes; with about")
    pd.testing.assert_frame_equal(_dataset(tmp_path), _dataset(serial), check_exact=True)


def test_failing_cells_are_recorded_as_serially(tmp_path: Path) -> None:
    faulty = [{**SMALL, "family": "tests.faulty_family:FAMILY", "scale": scale}
              for scale in (0.5, 1.0)]
    results = {}
    for executor in ("serial", "processes"):
        summary = _run(tmp_path / executor, faulty, executor=executor)
        assert len(summary.failed) == 1 and summary.done == 1
        results[executor] = ResultsStore(tmp_path / executor).failures()
    assert results["processes"].error[0] == "RuntimeError: injected failure at scale = 0.5"
    columns = ["cell_id", "scale", "error"]
    pd.testing.assert_frame_equal(results["processes"][columns], results["serial"][columns])
    pd.testing.assert_frame_equal(_dataset(tmp_path / "processes"),
                                  _dataset(tmp_path / "serial"), check_exact=True)


def _killer(scales: Sequence[float]) -> list[dict[str, Any]]:
    return [{**SMALL, "family": "tests.test_executors:KILLER", "scale": scale, "seed": seed}
            for scale in scales for seed in (1, 2)]


def test_a_worker_killed_once_loses_nothing(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILL_ONCE", str(tmp_path / "killed"))
    cells = _killer([0.5, 0.75, 1.0])
    assert not _run(tmp_path / "serial", cells, executor="serial").failed
    summary = _run(tmp_path / "processes", cells, executor="processes",
                   processes=ProcessSettings(workers=2))
    assert (tmp_path / "killed").exists()  # a worker did die
    assert (summary.done, summary.failed) == (len(cells), [])
    assert not (tmp_path / "processes" / FAILURES).exists()
    pd.testing.assert_frame_equal(_dataset(tmp_path / "processes"),
                                  _dataset(tmp_path / "serial"), check_exact=True)


def test_a_cell_that_kills_its_worker_is_recorded_and_the_others_are_stored(
    tmp_path: Path,
) -> None:
    cells = _killer([0.25, 0.5, 1.0])
    assert not _run(tmp_path / "serial", cells, executor="serial").failed
    # Every replicate a task of its own: no other cell shares a task with a killer.
    summary = _run(tmp_path / "processes", cells, executor="processes",
                   processes=ProcessSettings(workers=2), ray=RaySettings(task_seconds=1e-6))
    assert summary.done == 4 and len(summary.failed) == 2
    failures = ResultsStore(tmp_path / "processes").failures()
    assert sorted(failures.scale) == [0.25, 0.25]
    assert set(failures.error) == {WORKER_DIED}
    assert failures.traceback.str.contains("BrokenProcessPool").all()
    serial = _dataset(tmp_path / "serial")
    pd.testing.assert_frame_equal(
        _dataset(tmp_path / "processes"),
        serial[serial.scale != 0.25].reset_index(drop=True), check_exact=True)


def test_auto_takes_ray_for_a_cluster_the_pool_for_work_and_serial_for_little(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(sweep.estimate, "uncached", lambda families: [])
    two = Execution(processes=ProcessSettings(workers=2))
    name, planned, reason = choose_executor(two, 30.0, spent=1.0)
    assert name == "processes" and planned.workers == 2
    assert planned.total == pytest.approx(1.0 + sweep.estimate.POOL_SECONDS + 15.0)
    assert reason == ("about 30 CPU-seconds of cells: 15 s on 2 worker processes against 30 s "
                      f"in this process; with about {two_digits(sweep.estimate.POOL_SECONDS)} "
                      f"s starting the workers; about {two_digits(planned.total)} s in all")
    assert choose_executor(two, 1e6)[0] == "processes"  # never a local Ray
    # The pool would gain back its start-up only if the cells took as long as estimated:
    # within the estimates' error, this process.
    close = 4 * sweep.estimate.POOL_SECONDS * 1.1
    assert (choose_executor(two, close)[0], choose_executor(two, close * 2.5)[0]) == (
        "serial", "processes")
    name, planned, reason = choose_executor(two, 0.05, spent=1.0)
    assert name == "serial" and reason.endswith("; executor=processes to use them anyway")
    assert planned.total == pytest.approx(1.05)
    one = Execution(processes=ProcessSettings(workers=1))
    assert choose_executor(one, 1e6)[0] == "serial"  # one worker gains nothing
    cluster = Execution(ray=RaySettings(address="10.0.0.1:6379"))
    assert choose_executor(cluster, 0.0)[::2] == (
        "ray", "a Ray cluster address is set: about 0 CPU-seconds of cells")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    assert choose_executor(two, 1e6)[0] == "ray"
    for forced in ("serial", "processes", "ray"):
        assert choose_executor(Execution(executor=forced), 1.0)[0] == forced


def test_auto_weighs_the_compilation_of_kernels_not_cached_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each worker of a pool compiles what it meets: a cold family costs a pool more than
    this process, and the estimate says so and counts it."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(sweep.estimate, "uncached", lambda families: sorted(families))
    two = Execution(processes=ProcessSettings(workers=2))
    compile_ = sweep.estimate.COMPILE_SECONDS
    for cost, executor in ((0.05, "serial"), (1000.0, "processes")):
        name, planned, reason = choose_executor(two, cost, ["inference"])
        assert name == executor
        factor = 1.0 if executor == "serial" else sweep.estimate.POOL_COMPILING
        assert planned.compiling == pytest.approx(compile_ * factor)
        assert f"about {two_digits(compile_ * factor)} s compiling the numba kernels of " \
            "inference (not yet in numba's cache)" in reason
    name, planned, reason = choose_executor(Execution(executor="serial"), 1.0,
                                            ["colme", "continual"])
    assert planned.total == pytest.approx(2 * compile_ + 1.0)
    assert reason == (f"executor=serial: about 1 CPU-seconds of cells; with about "
                      f"{two_digits(2 * compile_)} s compiling the numba kernels of colme, "
                      f"continual (not yet in numba's cache); about "
                      f"{two_digits(2 * compile_ + 1)} s in all")


def test_the_estimate_counts_loading_the_kernels_of_families_already_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A family's first cell loads its kernels from numba's cache, in this process or in
    every worker at once: once per family, and not for a family still to compile."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(sweep.estimate, "uncached", lambda families: ["colme"])
    load = sweep.estimate.LOAD_SECONDS
    for executor in ("serial", "processes"):
        execution = Execution(executor=executor, processes=ProcessSettings(workers=2))
        _, planned, reason = choose_executor(execution, 1.0, ["colme", "continual", "network"])
        assert planned.loading == pytest.approx(2 * load)
        assert f"{two_digits(2 * load)} s loading cached kernels" in reason
        assert planned.total == pytest.approx(planned.starting + planned.compiling + 2 * load
                                              + planned.computing)


def test_work_the_cells_share_counts_once_and_only_while_a_cell_needs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exact reference under Network DP needs the graph's eigendecomposition, which a
    process computes once for every cell on that graph: the estimate counts it once,
    not for a cell under Signal DP, and not once the cells that need it are stored."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    graph = {"kind": "ring", "n_nodes": 31}
    cells = [{"family": "network", "replicates": 2, "rounds": 5, "checkpoints": 2,
              "graph": graph, "privacy": privacy, "epsilon": epsilon}
             for privacy in ("network", "signal") for epsilon in (0.5, 1.0)]
    planned, _ = plan(cells)
    [(seconds, needing)] = planned.shared.values()
    assert list(needing) == [0, 1] and seconds > 0
    monkeypatch.setattr(sweep.estimate, "LOAD_SECONDS", 0.0)

    def estimated(configs: list[dict[str, Any]]) -> str:
        summary = execute(plan(configs)[0], Execution(results_dir=str(tmp_path), dry_run=True,
                                                      executor="serial"), progress=False)
        return summary.executor

    shared = f"{two_digits(seconds)} s of work the cells share"
    assert shared in estimated(cells)
    assert shared not in estimated(cells[2:])  # Signal DP: the eigenvalues alone
    _run(tmp_path, cells[:2], executor="serial")
    assert shared not in estimated(cells)  # its cells are stored


#: Prints which of the families numba's cache leaves to compile, after planning a cell of
#: each, as the driver does before it chooses; with an argument, first runs a colme cell.
UNCACHED = """
import sys
from sweep.estimate import uncached
from sweep.execute import simulate
from sweep.plan import make_cell
cells = [{"family": "colme", "n_agents": 4, "t_max": 20, "replicates": 1},
         {"family": "network", "rounds": 5, "checkpoints": 1, "replicates": 1,
          "allow_large_delta": True}]  # the paper's δ = 0.01 > 1/969
for cell in cells:
    make_cell(cell)
if sys.argv[1:]:
    simulate(**cells[0])
print(uncached(["colme", "network"]))
"""


def test_numba_cache_is_seen_cold_until_a_family_has_run(tmp_path: Path) -> None:
    # A cache of its own (NUMBA_CACHE_DIR): the one of the checkout may be warm already.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": str(ROOT)}

    def listed(*arguments: str) -> str:
        done = subprocess.run([sys.executable, "-c", UNCACHED, *arguments], env=env,
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    # Planning compiles a helper of colme's into the cache: still cold. The network
    # family has no numba kernels: never listed.
    assert listed() == "['colme']"
    assert listed("run a cell") == "[]"  # that run compiled and cached the kernels
    assert listed() == "[]"  # and a new process finds them


def test_process_settings_are_validated_in_the_python_api() -> None:
    for workers, message in ((0, "must be an integer >= 1; got 0"),
                             (1.5, "must be an integer >= 1; got 1.5")):
        with pytest.raises(ConfigError, match=rf"^processes.workers: {message}$"):
            plan([{**SMALL, "processes": {"workers": workers}}])
    with pytest.raises(ConfigError, match=r"^processes.threads: unknown option$"):
        plan([{**SMALL, "processes": {"threads": 2}}])
    assert plan([{**SMALL, "processes": {"workers": 3.0}}])[1].processes.workers == 3


@pytest.mark.parametrize("executor", ["serial", "processes", "ray"])
def test_workers_run_the_numerical_libraries_on_one_thread_unless_told_otherwise(
    executor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What each executor's workers see while computing (tests/threads_family.py):
    one thread in every library by default; with ``threads=default``, the libraries'
    threads as this process has them (Ray's workers are told so by OMP_NUM_THREADS, which
    otherwise Ray sets to a task's CPUs, 1). This process's limits are left as they were."""
    default = threads_by_library()
    assert default  # numpy's OpenBLAS at least
    reports = tmp_path / "reports"
    reports.mkdir()
    monkeypatch.setenv(REPORTS, str(reports))
    # For Ray's workers: the tests importable, and the libraries' threads as here.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("OMP_NUM_THREADS", str(max(default.values())))
    cells = [{**SMALL, "family": "tests.threads_family:FAMILY", "seed": seed}
             for seed in (1, 2)]
    with contextlib.ExitStack() as stack:
        if executor == "ray":  # one local Ray for both runs
            import ray

            ray.init(address="local", num_cpus=1, include_dashboard=False,
                     logging_level="WARNING")
            stack.callback(ray.shutdown)
        for threads in ("one", "default"):
            summary = _run(tmp_path / threads, cells, executor=executor, threads=threads,
                           processes=ProcessSettings(workers=2))
            assert (summary.done, summary.failed) == (len(cells), [])
            seen = [json.loads(report.read_text()) for report in reports.iterdir()]
            assert len(seen) == len(cells)  # a block of replicates per cell
            for found in seen:
                assert found  # numpy's OpenBLAS at least
                assert found == ({name: 1 for name in found} if threads == "one"
                                 else {name: default.get(name, n) for name, n in found.items()})
            for report in reports.iterdir():
                report.unlink()
    assert {name: n for name, n in threads_by_library().items() if name in default} == default


def test_the_basic_launcher_is_refused_in_one_line_before_any_work(tmp_path: Path) -> None:
    done = run_cli(["-m", "hydra/launcher=basic", *MINIMAL, "seed=1,2"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: hydra/launcher: basic is not supported: it would compose, run and store the "
        "cells one Hydra job at a time, and stop at the first failed cell; leave "
        "hydra/launcher out (executor=serial runs the sweep in this process)"]
    assert list(tmp_path.iterdir()) == []


#: Six cells of a second each (four replicates that wait a quarter of a second), a task
#: each: the driver is interrupted with tasks in flight.
SLOW = ["-m", *MINIMAL, "seed=range(0,6)", "replicates=4", "pause=0.25",
        "executor=processes", "processes.workers=2"]


def _workers_once_running(driver: subprocess.Popen, results: Path) -> list[psutil.Process]:
    """The driver's worker processes, once it has stored a cell."""
    deadline = time.monotonic() + 300
    while not (results.exists() and ResultsStore(results).scan()):
        assert time.monotonic() < deadline and driver.poll() is None
        time.sleep(0.05)
    workers = psutil.Process(driver.pid).children()
    assert len(workers) == 2
    return workers


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
def test_a_stopped_driver_leaves_no_worker_and_its_rerun_completes(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it): the driver stops its
    workers and exits 130. SIGKILL of the driver alone: its workers notice and exit."""
    # SIGINT at its default, as in a terminal: a shell that runs the tests in the
    # background without job control starts them with SIGINT ignored, and the driver
    # would inherit that.
    driver = start_cli([*SLOW, "results_dir=results"], tmp_path, start_new_session=True,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        workers = _workers_once_running(driver, tmp_path / "results")
        if stop == signal.SIGINT:
            os.killpg(driver.pid, signal.SIGINT)
        else:
            driver.send_signal(signal.SIGKILL)
        driver.communicate(timeout=120)
        assert driver.returncode == (130 if stop == signal.SIGINT else -signal.SIGKILL)
        _, alive = psutil.wait_procs(workers, timeout=60)
        assert alive == []
    finally:
        with contextlib.suppress(ProcessLookupError):  # what this test started, if left
            os.killpg(driver.pid, signal.SIGKILL)
    present = len(ResultsStore(tmp_path / "results").scan())
    assert 1 <= present < 6
    done = run_cli([*SLOW, "results_dir=results"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"6 cells: {6 - present} done, {present} skipped" in done.stdout
    assert not list((tmp_path / "results").glob("**/.*.tmp"))
