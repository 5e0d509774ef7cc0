"""Planning, composition and storage of the sweep platform, in process."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import HydraContext
from omegaconf import OmegaConf

from analysis import summaries
from hydra_plugins.dpsweep.compose import CellComposer
from sweep.cli import CONF
from sweep.colme import simulate
from sweep.errors import ConfigError, StoreError
from sweep.execute import execute, run_task
from sweep.family import get_family
from sweep.plan import Execution, make_cell, pieces, plan, tasks
from sweep.store import ResultsStore

from .sweep_reference import SMALL

CELL = {**SMALL, "replicates": 5, "baselines": ["local", "oracle"], "seed": 3}


def test_cell_id_depends_on_what_changes_results_only() -> None:
    cell = make_cell(CELL)
    # Equal values in other spellings, and how to run, leave the id alone.
    assert make_cell({**CELL, "epsilon": 1, "results_dir": "elsewhere"}).cell_id == cell.cell_id
    assert make_cell({**CELL, "ray": {"num_cpus": 1}}).cell_id == cell.cell_id
    for change in ({"seed": 4}, {"replicates": 6}, {"epsilon": 0.5}, {"baselines": ["local"]},
                   {"decision": {"theta0": 0.01}}):
        assert make_cell({**CELL, **change}).cell_id != cell.cell_id, change
    assert cell.cell_id == make_cell(dict(reversed(CELL.items()))).cell_id
    # Ids name the files of existing results directories: a change of the recipe, or of
    # the options a family hashes, makes every earlier result look missing. Bump
    # FORMAT_VERSION (and this value) when that is intended.
    assert cell.cell_id == "848690ecfcc6e121"
    # The random streams are keyed by what the experiment is, not by the code's versions:
    # this key is the cell id of format 1, so results computed since then hold bit for bit.
    assert cell.stream == (0x7B07C533, 0x565FDD57)


def test_a_family_version_changes_its_cell_ids_not_its_random_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cell = make_cell(CELL)
    monkeypatch.setattr(get_family("colme"), "version", 2)
    bumped = make_cell(CELL)
    assert bumped.cell_id != cell.cell_id and bumped.stream == cell.stream
    assert bumped.seeds(0, 5)[4].entropy == cell.seeds(0, 5)[4].entropy
    assert bumped.seeds(0, 5)[4].spawn_key == cell.seeds(0, 5)[4].spawn_key


def test_plan_validates_every_cell_and_deduplicates() -> None:
    cells, execution = plan([CELL, {**CELL, "epsilon": 0.5}, dict(CELL)])
    assert len(cells) == 2 and execution.results_dir == "results"
    with pytest.raises(ConfigError, match=r"^epsilon: "):
        plan([CELL, {**CELL, "epsilon": -1.0}])
    with pytest.raises(ConfigError, match=r"^results_dir: must be the same"):
        plan([CELL, {**CELL, "results_dir": "other"}])
    with pytest.raises(ConfigError, match=r"^replicates: must be >= 1 unless analytic"):
        plan([{**CELL, "replicates": 0, "baselines": []}])
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
    assert [(p.start, p.stop, p.analytic) for p in whole] == [(0, 5, False), (0, 0, True)]
    cut = pieces(cell, 1e-9)
    assert [(p.start, p.stop) for p in cut if not p.analytic] == [(r, r + 1) for r in range(5)]
    pd.testing.assert_frame_equal(_run([whole]), _run(tasks([cell], 1e-9, workers=2)),
                                  check_exact=True)


def test_simulate_gives_the_rows_of_a_sweep_cell(tmp_path: Path) -> None:
    options = {**CELL, "mechanism": "pm2", "weights": "mom"}
    cells, _ = plan([options])
    execute(cells, Execution(results_dir=str(tmp_path), executor="serial"), progress=False)
    stored = pd.read_parquet(tmp_path / f"{cells[0].cell_id}.parquet")
    pd.testing.assert_frame_equal(simulate(**{k: v for k, v in options.items()}), stored,
                                  check_exact=True)


#: A small network cell.
NETWORK = {"family": "network", "rounds": 5, "replicates": 2, "checkpoints": 3,
           "graph": {"kind": "ring", "n_nodes": 8, "weights": "lazy_metropolis"}}


def test_options_that_do_not_apply_keep_their_type(tmp_path: Path) -> None:
    # Rizk et al.'s learning rate is None for MVUE: stored as a missing float, so that
    # pandas reads the directory as one table.
    cells, _ = plan([{**NETWORK, "method": method} for method in ("mvue", "rizk")])
    execute(cells, Execution(results_dir=str(tmp_path), executor="serial"), progress=False)
    for path in tmp_path.glob("*.parquet"):
        schema = pq.read_schema(path)
        assert schema.field("learning_rate").type == pa.float64()
        assert schema.field("rizk_start").type == pa.string()
    frame = pd.read_parquet(tmp_path)
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
    files = {path.stem: pq.read_metadata(path).metadata for path in tmp_path.glob("*.parquet")}
    assert len(files) == 3 and cells[1].cell_id in files and cells[0].cell_id in files
    record = json.loads(files[cells[1].cell_id][b"dpsweep"])
    assert record["family_version"] == cells[1].version
    assert set(record["libraries"]) >= {"numpy", "scipy", "numba", "pandas", "pyarrow", "ray"}
    # The older network cell stays on disk; the analysis reads the newest version only.
    with pytest.warns(UserWarning, match="1 cell of family network .* older version"):
        summary = summaries(tmp_path)
    assert set(summary.cell_id) == {c.cell_id for c in cells}


def test_tasks_batch_small_pieces_and_keep_every_piece_once() -> None:
    cells, _ = plan([{**CELL, "seed": s} for s in range(20)])
    task_list = tasks(cells, task_seconds=2.0, workers=2)
    assert 1 < len(task_list) < 2 * len(cells)
    flat = [(p.cell.cell_id, p.start, p.analytic) for task in task_list for p in task]
    assert sorted(flat) == sorted((p.cell.cell_id, p.start, p.analytic)
                                  for c in cells for p in pieces(c, 2.0))


def test_failing_piece_is_reported_not_raised() -> None:
    cell = make_cell({**CELL, "family": "tests.faulty_family:FAMILY", "epsilon": 0.5})
    (result, analytic) = run_task(pieces(cell, math.inf))
    assert result.table is None and "injected failure" in result.error
    assert analytic.error is None  # only the simulation raises in that family


def test_store_writes_atomically_and_cleans_dead_writers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResultsStore(tmp_path)
    store.prepare()
    cell = make_cell(CELL)
    dead = tmp_path / f".{cell.cell_id}.{store.host}.999999999.tmp"
    live = tmp_path / f".{cell.cell_id}.{store.host}.{os.getppid()}.tmp"
    other = tmp_path / f".{cell.cell_id}.another-host.1.tmp"
    for path in (dead, live, other):
        path.write_bytes(b"partial")
    assert store.scan() == (set(), [])
    store.prepare()
    assert not dead.exists() and live.exists() and other.exists()
    def full_disk(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch, pytest.raises(StoreError, match="No space left"):
        patch.setattr(os, "fsync", full_disk)  # the data is written, then the sync fails
        store.write(cell, pa.table({"t": [1]}), {"format": 1})
    assert store.scan() == (set(), [])
    assert not (tmp_path / f".{cell.cell_id}.{store.host}.{os.getpid()}.tmp").exists()
    store.write(cell, pa.table({"t": [1]}), {"format": 1})
    assert store.scan() == ({cell.cell_id}, [])
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path), pd.DataFrame({"t": [1]}))


@pytest.fixture(scope="module")
def hydra_context() -> HydraContext:
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
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


@pytest.mark.parametrize(("name", "cells", "expected"), [
    ("fig2_left", 8, {"n_agents": 200, "t_max": 30000, "replicates": 20, "epsilon": 1.0}),
    ("fig2_oracle", 12, {"t_max": 30000, "replicates": 0, "schedule": "rr"}),
    ("fig3", 8, {"n_agents": 200, "replicates": 20, "mechanism": "pm1", "schedule": "rr"}),
    ("fig4", 4, {"n_agents": 15, "replicates": 100, "weights": "last", "schedule": "rr"}),
    ("quickstart", 8, {"n_agents": 30, "t_max": 5000, "replicates": 8}),
])
def test_presets_set_paper_parameters_and_valid_grids(
    hydra_context: HydraContext, name: str, cells: int, expected: dict
) -> None:
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    master = compose("config", overrides=[f"+experiment={name}"], return_hydra_config=True)
    params = [f"{k}={v}" for k, v in master.hydra.sweeper.params.items()]
    parser = OverridesParser.create(config_loader=hydra_context.config_loader)
    jobs = BasicSweeper.split_arguments(parser.parse_overrides(params), None)[0]
    composer = CellComposer(hydra_context, master)
    configs = [composer.compose([f"+experiment={name}", *job]) for job in jobs]
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
