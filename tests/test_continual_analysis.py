"""The continual study's statistics and document: the quantile and its order-statistic
interval against a hand computation, the slope fit on data of a known slope, the
renderer's refusal of a missing value, and docs/continual.md with its figures rendered
from tiny runs of every preset."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.document import TemplateError, fill, render
from analysis.load import load
from analysis.order_statistics import quantile_ranks
from analysis.studies.continual import STUDY
from analysis.studies.continual.figures import (
    FIT,
    error_vs_time,
    fit_slope,
    quantiles,
    slope_figure,
    slopes,
)
from analysis.study import get_study

from .stored_presets import store

ORDER_OPTIONS = {"zipf": {"zipf_exponent": 1.0}, "one_heavy": {"light_samples": 3},
                 "few_heavy": {"heavy_users": 2}}
#: Each preset at a tiny size: (options shared by its cells, the grid over which it sweeps),
#: on fewer orders and ε than the presets (the document needs two of each, and the time
#: goes into drawing their panels). The scaling sizes keep (11) at T for m = 2, 4 and
#: break it for m = 8, 16.
TINY = {
    "continual_quickstart": ({"n_users": 60, "max_samples": 8, "t_max": 300},
                             {"method": ["non_private", "alg2", "alg5", "alg6"],
                              "order": ["uniform", "contiguous"], "epsilon": [1.0]}),
    "continual_orders": ({"n_users": 200, "max_samples": 8, "t_max": 500},
                         {"method": ["non_private", "naive_laplace", "alg2", "alg3", "alg4",
                                     "alg5", "alg6"],
                          "order": ["contiguous", "uniform", "few_heavy"]}),
    "continual_scaling": ({"n_users": 1024, "t_max": 2048, "order": "contiguous"},
                          {"method": ["alg2", "alg3", "alg4", "alg5", "alg6"],
                           "max_samples": [16, 64, 128, 256]}),
    "continual_noise": ({"n_users": 100, "max_samples": 16, "t_max": 600},
                        {"method": ["alg4", "alg5"],
                         "order": ["round_robin", "uniform", "contiguous"],
                         "noise_scale": [None, 0.0, 50.0]}),
    "continual_dimension": ({"n_users": 50, "max_samples": 8, "t_max": 300, "method": "alg5",
                             "epsilon": 2.0},
                            {"composition": ["basic", "advanced"],
                             "dimension": [32, 64, 128]}),
    "continual_epsilon": ({"n_users": 50, "max_samples": 8, "t_max": 300},
                          {"method": ["non_private", "naive_laplace", "alg2", "alg4", "alg5",
                                      "alg6"], "epsilon": [0.5, 1.0, 2.0]}),
}


def _configs(shared: dict, grid: dict) -> list[dict]:
    keys = list(grid)
    combos = pd.MultiIndex.from_product(grid.values(), names=keys).to_frame(index=False)
    configs = []
    for combo in combos.to_dict("records"):
        # An unset option (None) comes out of the product as NaN: left out, it is unset.
        combo = {k: v for k, v in combo.items() if not (isinstance(v, float) and math.isnan(v))}
        config = {"family": "continual", "replicates": 5, "seed": 1, "checkpoints": 8,
                  **shared, **combo}
        order = config.get("order", "uniform")  # the group's kind, and its parameter
        config["order"] = {"kind": order, **ORDER_OPTIONS.get(order, {})}
        configs.append(config)
    return configs


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny runs of every preset, stored as the presets' sweeps store them."""
    return store(tmp_path_factory.mktemp("continual"),
                 {preset: _configs(*spec) for preset, spec in TINY.items()})


def _binomial_cdf(i: int, n: int, q: float) -> float:
    return sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(i + 1))


def test_quantile_ranks_are_the_textbook_order_statistics() -> None:
    # The median of 10: [X_(2), X_(9)], coverage (1013 − 11)/1024 (B ~ Binomial(10, ½)).
    ranks = quantile_ranks(10, 0.5)
    assert (ranks.point, ranks.low, ranks.high) == (5, 2, 9)
    assert ranks.coverage == pytest.approx((1013 - 11) / 1024)
    # The 0.95-quantile of 50: the estimate X_(48); the lower rank is the largest j with
    # P(B <= j − 1) <= 2.5%; no upper rank is far enough out, so X_(50), at the coverage
    # P(j <= B <= 49).
    ranks = quantile_ranks(50, 0.95)
    low = max(j for j in range(1, 49) if _binomial_cdf(j - 1, 50, 0.95) <= 0.025)
    assert (ranks.point, ranks.low, ranks.high) == (48, low, 50)
    assert 1 - _binomial_cdf(49, 50, 0.95) == pytest.approx(0.95**50)
    assert ranks.coverage == pytest.approx(_binomial_cdf(49, 50, 0.95)
                                           - _binomial_cdf(low - 1, 50, 0.95))


def test_quantiles_take_the_order_statistics_of_each_checkpoint() -> None:
    rng = np.random.default_rng(0)
    rows = pd.DataFrame([{"cell_id": "a", "method": "alg6", "source": "simulated",
                          "replicate": r, "t": t, "abs_error": float(v),
                          "failure_probability": 0.05}
                         for t in (1, 2) for r, v in enumerate(rng.permutation(20) + 1)])
    rows.attrs.update(index=["method", "source", "replicate", "t"], metrics=["abs_error"])
    found = quantiles(rows)
    # n = 20, q = 0.95: X_(19) in [X_(17), X_(20)], the values being 1..20.
    assert found.abs_error.tolist() == [19.0, 19.0]
    assert found.abs_error_low.tolist() == [17.0, 17.0]
    assert found.abs_error_high.tolist() == [20.0, 20.0]
    assert found.coverage.iloc[0] == pytest.approx(quantile_ranks(20, 0.95).coverage)


def test_the_slope_fit_recovers_a_known_slope() -> None:
    rng = np.random.default_rng(1)
    counts = np.array([8, 16, 32, 64, 128, 256, 512, 1024])
    errors = [0.01 * m**0.5 * rng.lognormal(0.0, 0.3, size=40) for m in counts]
    slope, low, high = fit_slope(errors, counts)
    assert low < 0.5 < high and abs(slope - 0.5) < 0.05 and high - low < 0.2
    # Through rows: the error's slope with its interval, and the bound's slope exactly.
    frames = []
    for i, (m, values) in enumerate(zip(counts, errors, strict=True)):
        common = {"cell_id": f"c{i}", "method": "alg6", "t": 100, "max_count": float(m)}
        frames.append(pd.DataFrame({**common, "source": "simulated", "abs_error": values}))
        frames.append(pd.DataFrame({**common, "source": "bound", "abs_error": [3 * m**0.5]}))
    fitted = slopes(pd.concat(frames, ignore_index=True), "max_count",
                    {"upper": (64.0, 1024.0)}).iloc[0]
    assert fitted.cells == 5 and fitted.low == 64 and fitted.high == 1024
    assert fitted.ci_low < 0.5 < fitted.ci_high
    assert fitted.bound == pytest.approx(0.5)


def test_the_renderer_refuses_a_missing_value() -> None:
    with pytest.raises(TemplateError, match="no value computed for"):
        fill(STUDY.section.text(), {"other_sizes": False})


def test_the_document_renders_from_tiny_runs_of_every_preset(root: Path,
                                                             tmp_path: Path) -> None:
    path = render("continual.md", root, tmp_path, any_size=True)
    text = path.read_text(encoding="utf-8")
    assert "{{" not in text and "}}" not in text
    assert text.index("Rendered from runs of other sizes") < text.index("## Commands")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(images) == sum(len(p.figures) for p in STUDY.section.presets)
    for image in images:
        assert (tmp_path / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image
    # A number of the document is the results': Algorithm 2's mean error at T under
    # uniform arrivals, as the orders table prints it.
    rows = load(root / "continual_orders", method="alg2", source="simulated",
                **{"order.kind": "uniform"})
    mean = rows[rows.t == rows.t.max()].abs_error.mean()
    assert np.isfinite(mean)
    assert re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{mean:.2e}") in text


def test_a_figure_says_what_it_shows(root: Path) -> None:
    grid = error_vs_time(load(root / "continual_quickstart", **{"order.kind": "uniform"}))
    assert "(1 − δ) quantile" in grid.caption and "lower bound" in grid.caption
    assert [ax.get_yscale() for ax in grid.axes.flat] == ["log"] * grid.axes.size


def test_the_command_passes_its_arguments_to_its_own_parser(capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    with pytest.raises(SystemExit) as done:
        main(["continual", "--help"])
    assert done.value.code == 0
    assert "python -m analysis continual" in capsys.readouterr().out


def test_the_slopes_view_fits_over_the_fixed_range_and_shows_all_cells(root: Path
                                                                       ) -> None:
    # The fit's range is fixed (m = 64–256), whatever the runs; all cells are shown too.
    rows = load(root / "continual_scaling")

    def ranges(rows: pd.DataFrame) -> list[str]:
        right = slope_figure(rows).axes.flat[1]
        return [tick.get_text().split("\n(M_T")[0].replace("\n", " ")
                for tick in right.get_xticklabels()]

    assert ranges(rows) == [FIT, "all cells"]
    assert ranges(rows[rows.max_samples >= 64]) == [FIT, "all cells"]


def test_the_study_is_registered_with_every_figure_its_section_draws() -> None:
    assert get_study("continual") is STUDY
    drawn = [f for preset in STUDY.section.presets for f in preset.figures]
    assert sorted(drawn) == sorted(STUDY.section.figures)


def test_the_claims_follow_the_declared_rules(root: Path, tmp_path: Path) -> None:
    """Every row of the claims and checks tables parses as its rule's printed form and
    its verdict is the one re-derived from it (at the adjusted p-value for a claim); every
    slope is fitted over its fixed range; the tally counts the claims alone."""
    from analysis.claims import read_tables, verdict_of

    text = render("continual.md", root, tmp_path, any_size=True).read_text(encoding="utf-8")
    rows = read_tables(text)
    assert rows
    for row in rows:
        verdict = verdict_of(row["evidence (rule: numbers)"])
        assert str(verdict) == row["verdict"], row
        if row["evidence (rule: numbers)"].startswith("slope:"):
            assert any(fixed in row["evidence (rule: numbers)"]
                       for fixed in ("M_T = 64–256", "ε = 0.25–1", "d = 32–256")), row
    claims = [r for r in rows if "the paper's claim" in r]
    assert f"statements, {len(claims)} cases)" in text
    # The no-noise control: Algorithms 4 and 5 agree run by run.
    controls = [r for r in rows if r.get("case", "").endswith("noise_scale = 0")]
    assert controls and all(r["verdict"] == "agrees" for r in controls)


def test_the_stability_command_finds_no_move_between_a_root_and_itself(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.__main__ import main

    assert main(["stability", str(root), str(root), "--document", "continual",
                 "--any-size"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("continual.md: ") and "; 0 verdicts differ, 0 between" in out
