"""The sweep platform end to end through its command line, with a local Ray.

Acceptance of issue 4: a small grid's dataset (cells, rows, columns, reference values),
resume after a normal run and after SIGKILL, determinism across worker counts and
executors and between a cell alone and in a grid, failure recording, and rejection of bad
input.

The engine's contracts run on its own minimal family (tests/minimal_family.py); the
regression grid's dataset and reference values, and Private-ColME's bad input, on
Private-ColME.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from sweep.store import FAILURES, ResultsStore

from .pins import assert_pinned, same_arithmetic
from .sweep_reference import GRID, KEYS, REFERENCE, ROOT, run_cli, start_cli, statistics

#: The engine's own test family on the command line (tests/conf/family/minimal.yaml).
MINIMAL = [f"hydra.searchpath=[file://{ROOT / 'tests' / 'conf'}]", "family=minimal"]
#: Eight cells of it (scale × samples × seed), with their analytic rows.
ENGINE = [*MINIMAL, "scale=0.5,1", "samples=20,40", "seed=7,8", "replicates=3"]

CELLS = 8  # in either grid
REPLICATES, CHECKPOINTS = 3, 4
# Per cell: colme and local simulated for every replicate, local and oracle analytic once.
ROWS_PER_CELL = 2 * REPLICATES * CHECKPOINTS + 2 * CHECKPOINTS
COLUMNS = {
    "method", "source", "replicate", "t", "mse", "false_exclusion", "false_inclusion",
    "n_agents", "t_max", "n_classes", "class_means", "class_assignment", "sigma",
    "distribution", "epsilon", "delta", "noise", "mechanism", "pm2_split", "weights",
    "schedule", "class_estimator", "variance", "prior", "inferred_form", "welch_dof",
    "oracle_start", "oracle_eq21", "stream", "decision.theta0", "decision.refresh",
    "baselines", "family", "family_version", "seed", "replicates", "cell_id",
}


def _ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout


def _dataset(directory: Path) -> pd.DataFrame:
    """The rows of a directory, cell by cell: files hold the cells each task completed,
    which depends on the worker count, so only the order within a cell is fixed."""
    frame = pd.read_parquet(directory)
    return frame.sort_values("cell_id", kind="stable").reset_index(drop=True)


def _files(directory: Path) -> dict[str, float]:
    return {str(p.relative_to(directory)): p.stat().st_mtime_ns
            for p in directory.glob("*/*.parquet")}


def _cells(directory: Path) -> int:
    """The number of cells stored in ``directory`` (0 if it does not exist)."""
    return len(ResultsStore(directory).scan())


@pytest.fixture(scope="module")
def regression(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The regression grid (Private-ColME), run once."""
    cwd = tmp_path_factory.mktemp("regression")
    _ok(run_cli(["-m", *GRID, "results_dir=two", "executor=serial"], cwd))
    return cwd


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The engine's grid, run once on a local Ray of two workers."""
    cwd = tmp_path_factory.mktemp("grid")
    _ok(run_cli(["-m", *ENGINE, "results_dir=two", "executor=ray", "ray.num_cpus=2"], cwd))
    return cwd


def test_grid_dataset_has_expected_cells_rows_and_columns(regression: Path) -> None:
    frame = _dataset(regression / "two")
    assert set(frame.columns) == COLUMNS
    assert frame.cell_id.nunique() == CELLS == _cells(regression / "two")
    # In the family's directory, where pandas reads every column of the family.
    files = _files(regression / "two")
    assert files and all(name.startswith("colme/") for name in files)
    assert not list((regression / "two").glob("*.parquet"))
    assert len(frame) == CELLS * ROWS_PER_CELL
    assert frame.groupby(KEYS).cell_id.nunique().eq(1).all()
    assert set(frame.epsilon) == {0.5, 1.0}
    assert set(frame.method) == {"colme", "local", "oracle"}
    simulated = frame[frame.source == "simulated"]
    assert set(simulated.replicate) == set(range(REPLICATES))
    assert frame[frame.source == "analytic"].replicate.isna().all()
    assert not (regression / "two" / FAILURES).exists()  # no empty failures directory


def test_grid_matches_stored_reference_values(regression: Path) -> None:
    """By the rule of tests/pins.py: the last bit on the arithmetic that wrote the values.
    Regenerate with `python -m tests.sweep_reference`."""
    reference = json.loads(REFERENCE.read_text())
    exact = same_arithmetic(reference["arithmetic"])
    measured = statistics(_dataset(regression / "two"))
    assert measured.keys() == reference["cells"].keys()
    for key, stats in reference["cells"].items():
        assert measured[key].keys() == stats.keys(), key
        for name, value in stats.items():
            assert_pinned(measured[key][name], value, exact, f"{key} {name}")


def test_rerun_computes_nothing(grid: Path) -> None:
    before = _files(grid / "two")
    out = _ok(run_cli(["-m", *ENGINE, "results_dir=two"], grid))
    assert f"{CELLS} cells: 0 done, {CELLS} skipped" in out
    assert _files(grid / "two") == before


def test_one_and_two_workers_serial_and_worker_processes_give_identical_datasets(
    grid: Path,
) -> None:
    runs = {"one": ["executor=ray", "ray.num_cpus=1"], "serial": ["executor=serial"],
            "processes": ["executor=processes", "processes.workers=2"],
            # Every replicate a task of its own.
            "three": ["executor=processes", "processes.workers=3", "ray.task_seconds=1e-6"]}
    for name, arguments in runs.items():
        out = _ok(run_cli(["-m", *ENGINE, f"results_dir={name}", *arguments], grid))
        assert out.startswith(f"executor: {arguments[0].removeprefix('executor=')} (")
    two = _dataset(grid / "two")
    for name in runs:
        pd.testing.assert_frame_equal(_dataset(grid / name), two, check_exact=True)


def test_cell_alone_equals_cell_in_grid(grid: Path) -> None:
    # One replicate per task: the cell is cut differently from the grid run (and run
    # in this process, where the grid ran on Ray).
    single = [*MINIMAL, "scale=0.5", "samples=40", "seed=8", "replicates=3"]
    _ok(run_cli([*single, "results_dir=alone", "ray.task_seconds=1e-6", "executor=serial"],
                grid))
    alone = _dataset(grid / "alone")
    assert alone.cell_id.nunique() == 1
    in_grid = _dataset(grid / "two")
    in_grid = in_grid[in_grid.cell_id == alone.cell_id[0]].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone, in_grid, check_exact=True)


def test_damaged_files_are_set_aside_and_recomputed(grid: Path) -> None:
    damaged = grid / "damaged"
    shutil.copytree(grid / "two", damaged)
    store = ResultsStore(damaged)
    store.scan()
    first, second, *_ = files = sorted(store.files)
    lost = len(store.files[first]) + len(store.files[second])
    first.write_bytes(first.read_bytes()[:-100])  # truncated: no footer
    second.write_bytes(b"not a parquet file")
    shutil.copy(files[-1], second.with_name("0000000000000000.parquet"))  # misnamed
    out = _ok(run_cli(["-m", *ENGINE, "results_dir=damaged", "executor=serial"], grid))
    assert f"{CELLS} cells: {lost} done, {CELLS - lost} skipped" in out
    assert "(3 damaged files set aside)" in out
    assert len(list((damaged / "_corrupt").iterdir())) == 3
    pd.testing.assert_frame_equal(_dataset(damaged), _dataset(grid / "two"), check_exact=True)


#: (grid, cells present when the driver is killed): during planning (none yet), with
#: tasks in flight (cells of 0.4 s, few files), and while files are written (a stream
#: of tiny cells, where the driver is writing most of the time).
KILL_POINTS = {
    "planning": (["seed=range(0,6)", "replicates=4", "pause=0.1"], 0),
    "in_flight": (["seed=range(0,6)", "replicates=4", "pause=0.1"], 2),
    "writing": (["seed=range(0,200)", "replicates=1"], 40),
}


@pytest.mark.slow
@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_of_the_driver_then_rerun_equals_uninterrupted_run(
    grid: Path, point: str
) -> None:
    cells, stored = KILL_POINTS[point]
    arguments = ["-m", *MINIMAL, *cells, "ray.num_cpus=2"]
    whole, killed = grid / f"whole_{point}", grid / f"killed_{point}"
    _ok(run_cli([*arguments, f"results_dir={whole.name}"], grid))
    driver = start_cli([*arguments, f"results_dir={killed.name}"], grid,
                       start_new_session=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    if stored:
        while _cells(killed) < stored:
            assert time.monotonic() < deadline and driver.poll() is None
            time.sleep(0.01)
    else:
        time.sleep(1.0)  # still composing and validating the grid
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(driver.pid, signal.SIGKILL)  # the local Ray it started, if still there
    present, total = _cells(killed), _cells(whole)
    assert stored <= present < total, "the kill should land mid-sweep"
    if present:  # whatever is there reads as complete cells only
        assert pd.read_parquet(killed).cell_id.nunique() == present
    out = _ok(run_cli([*arguments, f"results_dir={killed.name}"], grid))
    assert f"{total} cells: {total - present} done, {present} skipped" in out
    assert not list(killed.glob("**/.*.tmp"))
    pd.testing.assert_frame_equal(_dataset(killed), _dataset(whole), check_exact=True)


def test_failing_cell_is_recorded_and_others_finish(tmp_path: Path) -> None:
    searchpath = f"hydra.searchpath=[file://{Path(__file__).parent / 'conf'}]"
    done = run_cli(["-m", searchpath, "family=faulty", "scale=0.5,1", "replicates=2",
                    "executor=serial"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("error: 1 of 2 cells failed")
    frame = _dataset(tmp_path / "results")
    assert set(frame.scale) == {1.0}
    failures = pd.read_parquet(tmp_path / "results" / FAILURES)
    assert len(failures) == 1
    assert failures.scale[0] == 0.5
    assert failures.error[0] == "RuntimeError: injected failure at scale = 0.5"
    assert "Traceback" in failures.traceback[0]


@pytest.mark.parametrize(("arguments", "key"), [
    # Issue 4's examples (Private-ColME's); tests/test_bad_input.py goes through every key.
    (["epsilon=-1", "t_max=10"], "epsilon"),
    (["n_agents=1", "t_max=10"], "n_agents"),
    (["mechanism=pm3", "t_max=10"], "mechanism"),
    (["delta=2", "t_max=10"], "delta"),
    # The pool's settings, the engine's.
    ([*MINIMAL, "processes.workers=0"], "processes.workers"),
    ([*MINIMAL, "processes.workers=many"], "processes.workers"),
    ([*MINIMAL, "processes.unknown=1"], "processes.unknown"),
])
def test_bad_values_are_rejected_before_any_work(
    tmp_path: Path, arguments: list[str], key: str
) -> None:
    done = run_cli(arguments, tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {key}: "), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_unusable_results_directory_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("")
    done = run_cli([*MINIMAL, "replicates=1", "executor=serial", "results_dir=a_file/results"],
                   tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: results_dir: cannot create a_file/results (Not a directory)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_concurrent_sweeps_into_one_directory_neither_corrupt_nor_duplicate(
    grid: Path,
) -> None:
    command = ["-m", *ENGINE, "results_dir=shared", "executor=serial"]
    sweeps = [start_cli(command, grid) for _ in range(2)]
    for sweep in sweeps:
        _, stderr = sweep.communicate(timeout=600)
        assert sweep.returncode == 0, stderr
    assert not list((grid / "shared").glob("**/.*.tmp"))
    pd.testing.assert_frame_equal(_dataset(grid / "shared"), _dataset(grid / "two"),
                                  check_exact=True)
