"""Replicates chosen for a precision (:mod:`sweep.target`, Stein's two-stage procedure):
the interval's coverage at the declared level, whatever the variance; a count that
depends on the pilot's variance only; and the engine running a pilot, then the rest."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sweep.cli import run_configs
from sweep.errors import ConfigError
from sweep.plan import make_cell
from sweep.target import Target, pilot_deviations, two_stage_interval

from .sweep_reference import run_cli

FAMILY = "tests.minimal_family:FAMILY"
TRIALS = 4000


@pytest.mark.parametrize(("sigma", "pilot", "level"), [(1.0, 5, 0.95), (30.0, 10, 0.9)])
def test_the_two_stage_interval_covers_at_its_level(sigma: float, pilot: int,
                                                    level: float) -> None:
    """4,000 two-stage runs on normal replicates of known mean: the share of intervals
    that cover it is the level, within 3 Monte Carlo standard errors; every interval is
    at most the target's half-width (below the cap)."""
    rng = np.random.default_rng(20261202)
    target = Target(half_width=0.4 * sigma, level=level, pilot=pilot, max=10**6)
    covered, widths = 0, []
    for _ in range(TRIALS):
        first = rng.normal(3.0, sigma, pilot)
        [deviation] = pilot_deviations({"m": first}, pilot).values()
        count = target.needed(deviation)
        values = np.concatenate([first, rng.normal(3.0, sigma, count - pilot)])
        mean, half = two_stage_interval(values, pilot, level)
        covered += abs(mean - 3.0) <= half
        widths.append(half)
    error = math.sqrt(level * (1 - level) / TRIALS)
    assert abs(covered / TRIALS - level) < 3 * error, covered / TRIALS
    assert max(widths) <= target.half_width * (1 + 1e-12)


def test_the_count_depends_on_the_pilots_variance_only() -> None:
    rng = np.random.default_rng(5)
    target = Target(half_width=0.1, pilot=10)
    pilot = rng.normal(0.0, 1.0, 10)
    counts = {target.needed(*pilot_deviations({"m": pilot + shift}, 10).values())
              for shift in (0.0, 1.0, -50.0, 1e3)}
    assert len(counts) == 1
    [count] = counts
    # Stein's N: t_{9, 0.975} = 2.2622 for a 95% interval.
    deviation = pilot.std(ddof=1)
    assert count == math.ceil((2.2621571627409915 * deviation / 0.1) ** 2)
    assert target.needed(deviation * 2) > count and Target(half_width=0.1, pilot=10).needed(
        1e-9) == 10


def test_replicates_auto_runs_a_pilot_then_the_rest(tmp_path: Path) -> None:
    base = {"family": FAMILY, "samples": 20, "checkpoints": [5, 20], "seed": 3,
            "executor": "serial", "results_dir": str(tmp_path)}
    target = {"metric": "error", "at": 20, "half_width": 0.02, "pilot": 6, "max": 400}
    configs = [{**base, "scale": scale, "replicates": "auto", "target": target}
               for scale in (0.5, 1.0)]
    summary = run_configs(configs, progress=False)
    assert summary.failed == [] and summary.capped == []
    rows = pd.read_parquet(tmp_path)
    for _, cell in rows.groupby("scale"):
        first = cell[(cell.replicate < 6) & (cell.t == 20)].sort_values("replicate").error
        need = Target(**target).needed(first.std(ddof=1))
        assert cell.replicate.nunique() == cell.replicates.iloc[0] == need > 6
        assert set(cell.replicates_needed) == {need}
    # Rerun: nothing to do.
    again = run_configs(configs, progress=False)
    assert (again.done, again.skipped) == (0, 2)
    # A cell that would need more than target.max stops there, and says so.
    capped = run_configs([{**configs[1], "target": {**target, "max": 8}, "seed": 4}],
                         progress=False)
    assert len(capped.capped) == 1 and "stopped at target.max" in str(capped)
    [stopped] = capped.capped
    rows = pd.read_parquet(tmp_path)
    cell = rows[rows.cell_id == stopped]
    assert set(cell.replicates) == {8} and cell.replicates_needed.min() > 8


def test_bad_targets_are_refused_before_any_work(tmp_path: Path) -> None:
    base = {"family": FAMILY, "replicates": "auto", "results_dir": str(tmp_path)}
    cases = {
        "target.half_width: must be a finite number > 0": {"metric": "error"},
        "target.metric: must be a metric of family": {"metric": "mse", "half_width": 1.0},
        "target.pilot: must be an integer >= 2": {"metric": "error", "half_width": 1.0,
                                                  "pilot": 1},
        "target.max: must be an integer >= 10": {"metric": "error", "half_width": 1.0,
                                                 "max": 5},
        "target.level: must be in \\(0, 1\\)": {"metric": "error", "half_width": 1.0,
                                               "level": 95},
    }
    for message, target in cases.items():
        with pytest.raises(ConfigError, match=rf"^{message}"):
            make_cell({**base, "target": target})
    with pytest.raises(ConfigError, match=r"^target\.half_width: applies to replicates=auto"):
        make_cell({**base, "replicates": 5, "target": {"half_width": 1.0}})
    assert not any(tmp_path.iterdir())


def test_the_command_line_runs_a_target(tmp_path: Path) -> None:
    conf = Path(__file__).resolve().parent / "conf"
    arguments = ["-m", f"hydra.searchpath=[file://{conf}]", "family=minimal",
                 "scale=0.5,1", "replicates=auto", "target.metric=error", "target.at=20",
                 "target.half_width=0.05", "target.pilot=5", "target.max=100"]
    dry = run_cli([*arguments, "dry_run=true"], tmp_path)
    assert dry.returncode == 0, dry.stderr
    last = dry.stdout.strip().splitlines()[-1]
    assert last.startswith("2 cells: 0 present, 2 to compute") and "at most" in last
    done = run_cli(arguments, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert any(line.startswith("pilot: 2 cells: 2 done") for line in lines)
    assert "2 done (2 extended)" in lines[-1] or "0 done" in lines[-1]
    dry = run_cli([*arguments, "dry_run=true"], tmp_path)
    assert dry.stdout.strip().splitlines()[-1].startswith("2 cells: 2 present, 0 to compute")
    bad = run_cli([*arguments[:-2], "target.pilot=1"], tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1] == (
        "error: target.pilot: must be an integer >= 2; got 1")


@pytest.mark.slow
def test_the_engine_covers_at_its_level(tmp_path: Path) -> None:
    """4,000 cells of replicates=auto through the engine, each a two-stage run of the
    minimal family, whose metric ``mean`` at t is exactly N(0, scale²/t): Stein's
    interval from each cell's stored replicates covers 0 at the target's level, within
    3 Monte Carlo standard errors."""
    level, pilot = 0.9, 5
    target = {"metric": "mean", "at": 4, "half_width": 0.3, "pilot": pilot, "max": 10**4,
              "level": level}
    summary = run_configs([{"family": FAMILY, "samples": 4, "checkpoints": [4],
                            "seed": seed, "replicates": "auto", "target": target,
                            "executor": "serial", "results_dir": str(tmp_path)}
                           for seed in range(TRIALS)], progress=False)
    assert summary.failed == [] and summary.capped == []
    rows = pd.read_parquet(tmp_path, columns=["cell_id", "replicate", "source", "mean"])
    rows = rows[rows.source == "simulated"].sort_values(["cell_id", "replicate"])
    covered, counts = 0, []
    for _, cell in rows.groupby("cell_id"):
        mean, half = two_stage_interval(cell["mean"].to_numpy(), pilot, level)
        covered += abs(mean) <= half
        counts.append(len(cell))
    assert len(counts) == TRIALS and min(counts) >= pilot and len(set(counts)) > 5
    error = math.sqrt(level * (1 - level) / TRIALS)
    assert abs(covered / TRIALS - level) < 3 * error, covered / TRIALS
