"""Planning, composition and storage of the sweep platform, in process.

The engine's contracts are tested on its own minimal family (tests/minimal_family.py);
Private-ColME's configurations, presets and ids on Private-ColME.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.types import HydraContext
from omegaconf import OmegaConf

from analysis import summaries
from hydra_plugins.dpsweep._compose import CellComposer
from hydra_plugins.dpsweep._core import Grid
from sweep.arithmetic import fingerprint
from sweep.cli import CONFIG_MODULE
from sweep.errors import ConfigError, StoreError
from sweep.estimate import choose_executor
from sweep.execute import execute, run_task, simulate
from sweep.family import get_family
from sweep.plan import (
    FORMAT_VERSION,
    STREAM_VERSION,
    Execution,
    make_cell,
    pieces,
    plan,
    tasks,
)
from sweep.store import FAILURES, ResultsStore, cell_records, family_directory

from .sweep_reference import ROOT, SMALL, run_cli

#: The engine's own test family: the engine's tests need no family of the paper.
FAMILY = "tests.minimal_family:FAMILY"
#: On the command line (tests/conf/family/minimal.yaml).
MINIMAL = [f"hydra.searchpath=[file://{ROOT / 'tests' / 'conf'}]", "family=minimal"]
CELL = {"family": FAMILY, "samples": 30, "scale": 2.0, "checkpoints": [5, 30],
        "replicates": 5, "seed": 3}
#: A small Private-ColME cell, for what is that family's own.
COLME = {**SMALL, "replicates": 5, "baselines": ["local", "oracle"], "seed": 3}


def test_cell_id_depends_on_what_changes_results_only() -> None:
    cell = make_cell(CELL)
    # Equal values in other spellings, and how to run, leave the id alone.
    assert make_cell({**CELL, "scale": 2, "results_dir": "elsewhere"}).cell_id == cell.cell_id
    assert make_cell({**CELL, "ray": {"num_cpus": 1}}).cell_id == cell.cell_id
    for change in ({"seed": 4}, {"scale": 0.5}, {"samples": 40}, {"checkpoints": [5, 20]}):
        assert make_cell({**CELL, **change}).cell_id != cell.cell_id, change
    assert cell.cell_id == make_cell(dict(reversed(CELL.items()))).cell_id
    # The replicate count is neither in the id nor in the streams: a cell of more
    # replicates extends the stored one (tests/test_extend.py).
    more = make_cell({**CELL, "replicates": 6})
    assert (more.cell_id, more.stream) == (cell.cell_id, cell.stream)
    # The recipes of the id and of the random streams: changing either moves every
    # family's results (test_private_colme_ids_and_streams_are_pinned). Bump
    # FORMAT_VERSION or STREAM_VERSION (and these values) when that is intended.
    assert cell.cell_id == "492d309e864528e5"
    assert cell.stream == (0x5348DE04, 0x004E4006)


def test_private_colme_ids_and_streams_are_pinned() -> None:
    cell = make_cell(COLME)
    # Ids name the files of existing results directories: a change of the recipe, or of
    # the options a family hashes, makes every earlier result look missing. Bump
    # FORMAT_VERSION (and this value) when that is intended: format 3 left the replicate
    # count out.
    assert cell.cell_id == "8413b2fe4db208a2"
    # The random streams are keyed by what the experiment is, not by the code's versions
    # nor by the replicate count (STREAM_VERSION 2).
    assert cell.stream == (0xACAC9C78, 0xDD0916A4)
    # Its options, a nested group's included, are what its id hashes.
    for change in ({"baselines": ["local"]}, {"decision": {"theta0": 0.01}}):
        assert make_cell({**COLME, **change}).cell_id != cell.cell_id, change
    # Its own rule on replicates: none only where analytic baselines give rows.
    with pytest.raises(ConfigError, match=r"^replicates: must be >= 1 unless analytic"):
        plan([{**COLME, "replicates": 0, "baselines": []}])


def test_a_family_version_changes_its_cell_ids_not_its_random_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cell = make_cell(CELL)
    monkeypatch.setattr(get_family(FAMILY), "version", 2)
    bumped = make_cell(CELL)
    assert bumped.cell_id != cell.cell_id and bumped.stream == cell.stream
    assert bumped.seeds(0, 5)[4].entropy == cell.seeds(0, 5)[4].entropy
    assert bumped.seeds(0, 5)[4].spawn_key == cell.seeds(0, 5)[4].spawn_key


def test_plan_validates_every_cell_and_deduplicates() -> None:
    cells, execution = plan([CELL, {**CELL, "scale": 0.5}, dict(CELL)])
    assert len(cells) == 2 and execution.results_dir == "results"
    with pytest.raises(ConfigError, match=r"^scale: "):
        plan([CELL, {**CELL, "scale": -1.0}])
    with pytest.raises(ConfigError, match=r"^results_dir: must be the same"):
        plan([CELL, {**CELL, "results_dir": "other"}])
    with pytest.raises(ConfigError, match=r"^replicates: must be an integer >= 0; got -1$"):
        plan([CELL, {**CELL, "replicates": -1}])
    with pytest.raises(ConfigError, match=r"^family: "):
        plan([{**CELL, "family": "nonexistent"}])


def _run(task_list: list) -> pd.DataFrame:
    results = sorted((r for task in task_list for r in run_task(task)),
                     key=lambda r: (r.piece.analytic, r.piece.start))
    assert all(r.error is None for r in results)
    return pa.concat_tables([r.table for r in results]).to_pandas()


def test_cutting_a_cell_into_pieces_does_not_change_its_rows() -> None:
    cell = make_cell(CELL)
    whole = pieces(cell, math.inf)
    assert [(p.start, p.stop, p.analytic) for p in whole] == [(0, 5, True)]  # one table
    cut = pieces(cell, 1e-9)
    assert [(p.start, p.stop) for p in cut if not p.analytic] == [(r, r + 1) for r in range(5)]
    assert cut[-1].analytic and cut[-1].start == cut[-1].stop == 0
    pd.testing.assert_frame_equal(_run([whole]), _run(list(tasks([cell], 1e-9, workers=2))),
                                  check_exact=True)


def test_simulate_gives_the_rows_of_a_sweep_cell(tmp_path: Path) -> None:
    options = {**CELL, "scale": 0.5, "samples": 40}
    cells, _ = plan([options])
    execute(cells, Execution(results_dir=str(tmp_path), executor="serial"), progress=False)
    stored = pd.read_parquet(tmp_path / family_directory(FAMILY) / f"{cells.ids[0]}.parquet")
    pd.testing.assert_frame_equal(
        simulate(FAMILY, **{k: v for k, v in options.items() if k != "family"}), stored,
        check_exact=True)


#: A small network cell.
NETWORK = {"family": "network", "rounds": 5, "replicates": 2, "checkpoints": 3,
           "graph": {"kind": "ring", "n_nodes": 8, "weights": "lazy_metropolis"}}


def test_options_that_do_not_apply_keep_their_type(tmp_path: Path) -> None:
    # Rizk et al.'s learning rate is None for MVUE: stored as a missing float, so that
    # pandas reads the directory as one table.
    cells, _ = plan([{**NETWORK, "method": method} for method in ("mvue", "rizk")])
    execute(cells, Execution(results_dir=str(tmp_path), executor="serial"), progress=False)
    for path in tmp_path.glob("*/*.parquet"):
        schema = pq.read_schema(path)
        assert schema.field("learning_rate").type == pa.float64()
        assert schema.field("rizk_start").type == pa.string()
    frame = pd.read_parquet(tmp_path / "network")
    assert frame.learning_rate.dtype == np.float64
    assert frame[frame.method == "rizk"].learning_rate.eq(0.001).all()
    assert frame[frame.method == "mvue"].learning_rate.isna().all()


def test_a_version_bump_recomputes_that_family_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs = [CELL, NETWORK]
    run = Execution(results_dir=str(tmp_path), executor="serial")
    first = execute(plan(configs)[0], run, progress=False)
    assert (first.done, first.skipped) == (2, 0)
    assert execute(plan(configs)[0], run, progress=False).skipped == 2
    monkeypatch.setattr(get_family("network"), "version", get_family("network").version + 1)
    cells, _ = plan(configs)
    again = execute(cells, run, progress=False)
    assert (again.done, again.skipped) == (1, 1)
    files = {path.stem: pq.read_metadata(path).metadata for path in tmp_path.glob("*/*.parquet")}
    assert len(files) == 3 and set(cells.ids) <= set(files)
    record = cell_records(files[cells.ids[1]])[cells.ids[1]]
    assert record["family_version"] == get_family("network").version
    assert set(record["libraries"]) >= {"numpy", "scipy", "numba", "pandas", "pyarrow", "ray"}
    assert record["arithmetic"] == fingerprint()  # the worker's: this process
    # The older network cell stays on disk; the analysis reads the newest version only.
    with pytest.warns(UserWarning, match="1 cell of family network .* older version"):
        summary = summaries(tmp_path)
    assert set(summary.cell_id) == set(cells.ids)


def test_tasks_batch_small_pieces_and_keep_every_piece_once() -> None:
    cells, _ = plan([{**CELL, "seed": s} for s in range(20)])
    task_list = list(tasks(cells, task_seconds=2.0, workers=2))
    assert 1 < len(task_list) < 2 * len(cells)
    flat = [(p.cell.cell_id, p.start, p.analytic) for task in task_list for p in task]
    assert sorted(flat) == sorted((p.cell.cell_id, p.start, p.analytic)
                                  for c in cells for p in pieces(c, 2.0))


def test_failing_piece_is_reported_not_raised() -> None:
    cell = make_cell({**CELL, "family": "tests.faulty_family:FAMILY", "scale": 0.5})
    *blocks, analytic = run_task(pieces(cell, 1e-9))  # the analytic rows apart
    assert all(r.table is None and "injected failure" in r.error for r in blocks)
    assert analytic.error is None  # only the simulation raises in that family


def test_store_writes_atomically_and_cleans_dead_writers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResultsStore(tmp_path)
    store.prepare()
    cell = make_cell(CELL)
    directory = tmp_path / family_directory(FAMILY)
    directory.mkdir()
    dead = directory / f".{cell.cell_id}.{store.host}.999999999.tmp"
    live = directory / f".{cell.cell_id}.{store.host}.{os.getppid()}.tmp"
    other = directory / f".{cell.cell_id}.another-host.1.tmp"
    for path in (dead, live, other):
        path.write_bytes(b"partial")
    assert store.scan() == set() and not store.damaged
    store.prepare()
    assert not dead.exists() and live.exists() and other.exists()
    def full_disk(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    row = (cell, pa.table({"t": [1]}), {"family": FAMILY, "family_version": 1})
    with monkeypatch.context() as patch, pytest.raises(StoreError, match="No space left"):
        patch.setattr(os, "fsync", full_disk)  # the data is written, then the sync fails
        store.commit([row])
    assert store.scan() == set() and not store.damaged
    assert not (directory / f".{cell.cell_id}.{store.host}.{os.getpid()}.tmp").exists()
    assert store.commit([row]) == 1
    assert store.scan() == {cell.cell_id} and not store.damaged
    assert store.commit([row]) == 0  # present already: left as it is
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path), pd.DataFrame({"t": [1]}))
    assert not (tmp_path / FAILURES).exists()  # no empty failures directory


@pytest.fixture(scope="module")
def hydra_context() -> HydraContext:
    GlobalHydra.instance().clear()
    with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
        yield HydraContext(config_loader=GlobalHydra.instance().hydra.config_loader,
                           callbacks=None)
    GlobalHydra.instance().clear()


def _full(overrides: list[str]) -> dict:
    config = compose("config", overrides=overrides)
    return OmegaConf.to_container(config, resolve=True)


CELLS_OVERRIDES = [
    [],
    ["epsilon=0.5", "mechanism=pm2", "pm2_split=false"],
    ["+experiment=fig4", "noise=laplace", "decision.theta0=0.1", "class_means=[0.1,0.5,0.9]"],
    ["variance=inferred_bayes", "prior=jeffreys", "+experiment=fig3", "ray.num_cpus=1"],
    ["epsilon=0.25", "+ray.runtime_env.env_vars={A:'1'}"],  # adds a mapping: full path
    ["epsilon=0.25", "~baselines"],  # deletes a key: full path
    ["epsilon=0.5", "mechanism=pm1"],
]


def test_cheap_composition_equals_hydra_composition(hydra_context: HydraContext) -> None:
    master = compose("config", overrides=[], return_hydra_config=True)
    composer = CellComposer(hydra_context, master)  # one composer: its caches are shared
    for overrides in CELLS_OVERRIDES:
        assert composer.compose(overrides) == _full(overrides), overrides


@pytest.mark.parametrize("fixed", [
    ["n_agents=7", "mechanism=pm2"],
    ["+experiment=fig4", "epsilon=0.5"],
    ["epsilon=0.25", "~baselines"],  # deletes a key: cannot be applied twice
], ids=["values", "preset", "deletion"])
def test_cells_on_the_sweeps_own_configuration_are_hydras_composition(
    hydra_context: HydraContext, fixed: list[str]
) -> None:
    """The composer starts the cells whose group overrides are the sweep's own from the
    configuration Hydra composed for the sweep (its sweeps left out): every cell, on it
    or not, is still Hydra's composition of the cell's overrides."""
    master = compose("config", overrides=fixed, return_hydra_config=True)
    master.hydra.overrides.task.append("seed=range(0,4)")  # a sweep: not in the master
    composer = CellComposer(hydra_context, master)
    for swept in (["epsilon=0.75"], ["seed=3", "t_max=9"], ["variance=inferred_bayes"]):
        overrides = [*fixed, *swept]
        assert composer.compose(overrides) == _full(overrides), overrides


@pytest.mark.parametrize(("name", "cells", "expected"), [
    ("fig2_left", 8, {"n_agents": 200, "t_max": 30000, "replicates": 20, "epsilon": 1.0}),
    ("fig2_oracle", 12, {"t_max": 30000, "replicates": 0, "schedule": "rr"}),
    ("fig3", 8, {"n_agents": 200, "replicates": 20, "mechanism": "pm1", "schedule": "rr"}),
    # The paper averages 100 runs; the preset runs 1000 so that its orderings are decided.
    ("fig4", 4, {"n_agents": 15, "replicates": 1000, "weights": "last", "schedule": "rr"}),
    ("fig2_no_privacy", 2, {"n_agents": 200, "replicates": 20, "mechanism": "none"}),
    # The first grid only (the params); the other grids add readings of eq. (16).
    ("fig3_paired", 3, {"n_agents": 200, "replicates": 20, "mechanism": "pm1",
                        "schedule": "rr", "stream": "scenario"}),
    ("quickstart", 8, {"n_agents": 100, "t_max": 50000, "replicates": 8}),
])
def test_presets_set_paper_parameters_and_valid_grids(
    hydra_context: HydraContext, name: str, cells: int, expected: dict
) -> None:
    master = compose("config", overrides=[f"+experiment={name}"], return_hydra_config=True)
    params = [f"{k}={v}" for k, v in master.hydra.sweeper.params.items()]
    # The grid as the platform's sweeper expands it: the preset's params crossed with the
    # command line.
    configs = list(Grid(CellComposer(hydra_context, master), [*params, f"+experiment={name}"]))
    planned, _ = plan(configs)
    assert len(planned) == cells
    for config in configs:
        assert {k: config[k] for k in expected} == expected
        assert config["class_means"] == [0.2, 0.4, 0.8] and config["delta"] == 1e-6


def test_unwritable_results_directory_is_refused_before_any_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root here, which writes anywhere; the permission check is simulated.
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(StoreError, match=r"^results_dir: .* is not writable$"):
        ResultsStore(tmp_path / "results").prepare()


def test_executor_auto_runs_small_plans_serially_and_large_ones_on_worker_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    one, execution = plan([{**CELL, "processes": {"workers": 2}}])
    assert execution.executor == "auto"
    assert choose_executor(execution, sum(one.costs))[0] == "serial"
    # Far more time than a pool takes to start: 80 replicates estimated at a second each.
    large, execution = plan([{**CELL, "pause": 1.0, "replicates": 20, "seed": seed,
                              "processes": {"workers": 2}} for seed in range(4)])
    name, _, reason = choose_executor(execution, sum(large.costs))
    assert name == "processes" and "on 2 worker processes" in reason
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")  # a cluster: always Ray
    assert choose_executor(execution, 0.0)[0] == "ray"
    assert choose_executor(Execution(executor="serial"), 1e6)[0] == "serial"
    with pytest.raises(ConfigError, match=r"^executor: must be one of auto, processes, ray, "):
        plan([{**CELL, "executor": "threads"}])


def test_dry_run_lists_each_cell_with_its_swept_keys_and_state(tmp_path: Path) -> None:
    tiny = [*MINIMAL, "replicates=1"]
    done = run_cli(["scale=0.5", "seed=1", *tiny], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("executor: serial (about ")  # one tiny cell: no Ray
    grid = ["-m", "scale=0.5,1", "seed=1,2", *tiny, "dry_run=true"]
    for extra, state in (([], "present"), (["recompute={seed:1}"], "recompute")):
        listed = run_cli([*grid, *extra], tmp_path)
        assert listed.returncode == 0, listed.stderr
        header, *rows, executor, summary = listed.stdout.strip().splitlines()
        assert header.split() == ["seed", "scale", "cell_id", "state"]
        cells = [row.split() for row in rows]
        assert [(c[0], c[1], c[3]) for c in cells] == [
            ("1", "0.5", state), ("2", "0.5", "missing"), ("1", "1", "missing"),
            ("2", "1", "missing")]  # in the grid's order
        again = ", 1 of them present" if state == "recompute" else ""
        assert summary.startswith(f"4 cells: 1 present, {3 + bool(again)} to compute{again} "
                                  "(about "), summary
        assert executor.startswith("executor: serial (about"), executor
    # A dry run writes nothing, not even the directory.
    assert run_cli([*grid, "results_dir=elsewhere"], tmp_path).returncode == 0
    assert not (tmp_path / "elsewhere").exists()


def test_cell_ids_and_streams_hash_the_canonical_json_of_the_cell() -> None:
    def digest(record: dict) -> str:
        return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]

    for config in (CELL, NETWORK, {**CELL, "family": "tests.faulty_family:FAMILY"}):
        cell = make_cell(config)
        hashed = {k: v for k, v in cell.settings.items() if k != "replicates"}
        assert cell.cell_id == digest({"format": FORMAT_VERSION, **hashed})
        experiment = {k: v for k, v in hashed.items() if k != "version"}
        stream = digest({"format": STREAM_VERSION, **experiment})
        assert cell.stream == (int(stream[:8], 16), int(stream[8:16], 16))


def test_sub_grids_are_the_union_of_their_products_with_the_command_line(
        tmp_path: Path) -> None:
    """``hydra.sweeper.grids`` (the ``inference_actg`` preset): each part is crossed with
    the command line's keys, and the sweep is the union of the parts, in order."""
    listed = run_cli(["-m", "+experiment=inference_actg", "replicates=2", "epsilon=1,2",
                      "dry_run=true"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    header, *rows, _, summary = listed.stdout.strip().splitlines()
    assert {"model.kind", "method", "epsilon"} <= set(header.split())
    cells = [dict(zip(header.split(), row.split(), strict=True)) for row in rows]
    parts = [(c["model.kind"], c["method"], c["epsilon"]) for c in cells]
    tests = [("cox", m, e) for m in ("test", "centralized") for e in ("1", "2")]
    best = [("treatments", m, e) for m in ("am", "gm", "threshold_1", "threshold_2", "mle",
                                           "centralized") for e in ("1", "2")]
    assert sorted(parts) == sorted(tests + best)
    assert summary.startswith(f"{len(tests) + len(best)} cells: 0 present"), summary


@pytest.mark.parametrize("lines", [
    # The seed in the middle of the product, first, last, not swept, and a group override.
    ["epsilon=0.5,1", "seed=range(3,6)", "mechanism=pm1,pm2"],
    ["seed=1,2", "weights=last,mom"],
    ["weights=last,mom", "seed=0,1,2"],
    ["epsilon=0.5,1", "mechanism=pm1,pm2"],
    ["+experiment=fig3", "seed=4,5", "variance=known,shared"],
])
def test_a_grid_laid_out_plans_as_its_composed_cells(hydra_context: HydraContext,
                                                     lines: list[str]) -> None:
    """The sweeper plans a grid from one configuration per option set and an array of
    seeds (Grid.layout): the same cells, ids and order as composing every cell."""
    master = compose("config", overrides=[], return_hydra_config=True)
    tiny = ["n_agents=4", "t_max=20", "replicates=2", "checkpoints=2"]
    grid = Grid(CellComposer(hydra_context, master), [*lines, *tiny])
    layout = grid.layout()
    composed = list(grid)
    assert len(layout.configs) == len(composed) // len(grid.seeds or [0])
    laid, _ = plan(grid)
    each, _ = plan(composed)
    assert laid.ids == each.ids == [make_cell(c).cell_id for c in composed]
    assert [cell.seed for cell in laid] == [c["seed"] for c in composed]
    assert laid.costs.tolist() == each.costs.tolist()


def test_a_bad_seed_is_refused_naming_the_key(hydra_context: HydraContext) -> None:
    master = compose("config", overrides=[], return_hydra_config=True)
    grid = Grid(CellComposer(hydra_context, master), ["seed=1,-2", "n_agents=4"])
    with pytest.raises(ConfigError, match=r"^seed: must be an integer >= 0; got -2$"):
        plan(grid)


def test_configurations_of_one_cell_are_planned_once_and_must_ask_one_count() -> None:
    config = {**SMALL, "seed": 3}
    cells, _ = plan([config, {**SMALL, "seed": 4}, dict(config)])
    assert len(cells) == 2 and cells.new.tolist() == [True, True, False]
    with pytest.raises(ConfigError, match=r"^replicates: must be one count per cell"):
        plan([config, {**config, "replicates": config.get("replicates", 1) + 1}])
