"""The decentralized study: the curves rule and its Welch test against scipy's, the
summary of the reference's runs against a hand computation, and docs/decentralized.md
with its figures rendered from tiny runs of every preset."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.claims import Curves, Verdict, evidence_text, parse, read_tables, verdict_of
from analysis.document import render
from analysis.studies.decentralized import STUDY
from analysis.studies.decentralized.document import first_zero, prediction, welch
from analysis.studies.decentralized.figures import reference_figure
from analysis.studies.decentralized.reference import COLUMNS, stored, summarize_runs
from analysis.study import get_study

from .stored_presets import store

#: Each preset at a tiny size: (options shared by its cells, the grid it sweeps). The
#: reference preset keeps N = 1,000, a size of the reference's runs, so that the agreement
#: tables have rows (at the checkpoints both grids share).
TINY = {
    "decentralized_reference": ({"graph": {"n_nodes": 1000, "degree": 10}, "t_max": 60},
                                {"method": ["c_colme", "b_colme"]}),
    "decentralized_degree": ({"graph.n_nodes": 200, "t_max": 60},
                             {"method": ["c_colme", "b_colme"], "graph.degree": [4, 6, 10]}),
    "decentralized_private": ({"graph.n_nodes": 200, "t_max": 200, "method": "c_colme",
                               "samples": "bernoulli", "class_means": [0.1, 0.9]},
                              {"privacy.mechanism": ["pm1", "pm2"],
                               "epsilon": [0.5, 1.0], "graph.degree": [4, 10]}),
}


def _configs(shared: dict, grid: dict) -> list[dict]:
    configs = []
    for combo in itertools.product(*grid.values()):
        config = {"family": "decentralized", "replicates": 3, "seed": 1, "checkpoints": 20}
        for key, value in [*shared.items(), *zip(grid, combo, strict=True)]:
            group, _, option = key.partition(".")
            if option:
                config.setdefault(group, {})[option] = value
            elif isinstance(value, dict):
                config.setdefault(key, {}).update(value)
            else:
                config[key] = value
        configs.append(config)
    return configs


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny runs of every preset, stored as the presets' sweeps store them."""
    return store(tmp_path_factory.mktemp("decentralized"),
                 {preset: _configs(*spec) for preset, spec in TINY.items()})


def test_welch_is_scipys_and_decides_runs_without_spread() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 10), rng.normal(0.5, 2, 30)
    p = welch(*(np.array([x]) for x in (a.mean(), a.std(ddof=1), 10, b.mean(),
                                        b.std(ddof=1), 30)))
    assert p[0] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-12)
    zero = np.zeros(2)
    assert welch(np.array([1.0, 1.0]), zero, np.full(2, 5), np.array([1.0, 2.0]), zero,
                 np.full(2, 5)).tolist() == [1.0, 0.0]


def test_the_curves_rule_is_bonferroni_and_reads_back_its_printed_form() -> None:
    agrees = Curves("within 0.1: estimate", 6e-4, 502, 100)
    differs = Curves("within 0.1: estimate", 4e-4, 502, 100)
    assert agrees.decide() is Verdict.AGREES and differs.decide() is Verdict.DISAGREES
    for evidence in (agrees, differs):
        assert parse(evidence_text(evidence)).decide() is evidence.decide()
    # One checkpoint alone is held at 5%.
    assert Curves("x", 0.049, 1, 1).decide() is Verdict.DISAGREES


def test_a_prediction_interval_covers_a_new_run_at_its_level() -> None:
    rng = np.random.default_rng(5)
    covered = 0
    trials = 4000
    for _ in range(trials):
        runs = rng.normal(0.0, 1.0, 11)
        _, low, high = prediction(pd.Series(runs[:10]))
        covered += low <= runs[10] <= high
    # 95% exactly for normal runs; binomial standard error 0.0034.
    assert abs(covered / trials - 0.95) < 4 * np.sqrt(0.95 * 0.05 / trials)


def test_wrong_links_are_cut_from_the_first_checkpoint_where_every_later_one_is_clean() -> None:
    runs = pd.DataFrame([[3, 0, 1, 0, 0], [2, 0, 0, 0, 0]], columns=[1, 2, 3, 4, 5])
    assert first_zero(runs) == 4
    assert first_zero(runs.iloc[:, :3]) is None


def test_the_reference_summary_is_the_mean_and_deviation_over_complete_runs(tmp_path: Path
                                                                           ) -> None:
    times = np.array([1, 2, 4])
    logs = {}
    for seed, offset in (("s1", 0.0), ("s2", 0.1), ("s3", 0.3)):
        iterations = np.arange(4 if seed != "s3" else 2)  # s3 stopped early: left out
        log = pd.DataFrame({"iter": iterations, **{c: offset + iterations / 10 for c in COLUMNS}})
        path = tmp_path / "consensus" / "N50" / seed
        path.mkdir(parents=True)
        log.to_csv(path / "preliminary.csv", index=False)
        logs[seed] = log
    summary = summarize_runs(tmp_path, times)
    estimate = summary[(summary.method == "c_colme") & (summary.metric == "within")]
    assert estimate.t.tolist() == times.tolist()
    assert (estimate.runs == 2).all()
    np.testing.assert_allclose(estimate["mean"], [0.05, 0.15, 0.35])
    np.testing.assert_allclose(estimate["sd"], np.full(3, np.std([0.0, 0.1], ddof=1)))
    assert set(summary.method) == {"c_colme", "local", "c_colme_oracle"}
    with pytest.raises(FileNotFoundError):
        summarize_runs(tmp_path / "absent", times)


def test_the_shipped_reference_summary_covers_both_algorithms_and_sizes() -> None:
    reference = stored()
    series = reference.groupby(["algorithm", "n_nodes", "method", "metric"]).t.count()
    assert len(series) == 2 * 2 * len(COLUMNS)
    assert (series == 100).all()
    assert (reference.runs >= 10).all()
    within = reference[reference.metric == "within"]
    assert within["mean"].between(0, 1).all()


def test_the_study_is_registered_with_every_figure_its_section_draws() -> None:
    assert get_study("decentralized") is STUDY
    drawn = [f for preset in STUDY.section.presets for f in preset.figures]
    assert sorted(drawn) == sorted(STUDY.section.figures)


def test_the_document_renders_from_tiny_runs_of_every_preset(root: Path,
                                                             tmp_path: Path) -> None:
    text = render("decentralized.md", root, tmp_path, any_size=True).read_text("utf-8")
    assert "{{" not in text and "}}" not in text
    assert text.index("Rendered from runs of other sizes") < text.index("## Commands")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(images) == sum(len(p.figures) for p in STUDY.section.presets)
    for image in images:
        assert (tmp_path / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image
    rows = read_tables(text)
    kinds = {row["evidence (rule: numbers)"].split(":")[0] for row in rows}
    assert {"curves", "ordering", "value"} <= kinds
    for row in rows:
        assert str(verdict_of(row["evidence (rule: numbers)"])) == row["verdict"], row
    # Every quantity of both algorithms is held against the reference's runs at N = 1,000.
    curves = [row for row in rows if row["evidence (rule: numbers)"].startswith("curves")]
    assert len(curves) == 2 * len(COLUMNS)
    assert all(row["case"].endswith("N = 1,000") for row in curves)


def test_the_reference_figure_draws_the_reference_runs_beside_ours(root: Path) -> None:
    from analysis.load import load

    grid = reference_figure(load(root / "decentralized_reference"), stored())
    labels = grid.axes.flat[0].get_legend_handles_labels()[1]
    assert "estimate (reference's runs)" in labels and "local (ours)" in labels
    assert [ax.get_yscale() for ax in grid.axes.flat] == ["log", "log"]
    assert "Student-t 95%" in grid.caption and "N = 1,000" in grid.caption
