"""The inference family's study (analysis/studies/inference/): each figure draws from
small runs of the family and says what it shows, each refuses results without inference
rows, and each claim's verdict is the comparison of its numbers."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

from analysis.claims import Claim, claims_table, evidence_text
from analysis.labels import name
from analysis.load import summaries, summarize
from analysis.plot import MissingData, save
from analysis.reporting import draw, overview
from analysis.statements import Below, Statement, evaluate
from analysis.studies.inference import STUDY
from analysis.studies.inference.actg import (
    centre_frames,
    hazard_ratios,
    notebook_gap,
    split_hospitals,
    survival_cell,
)
from analysis.studies.inference.document import Measures
from analysis.studies.inference.figures import (
    beliefs_figure,
    error_rates,
    km_figure,
    power_figure,
    runtime_figure,
    timed_figure,
    tvd_figure,
)
from analysis.studies.inference.statements import (
    ACTG_BOUNDS,
    BEST_TREATMENT,
    DATA_PROCESSING,
    EXACT_LAPLACE,
    FAMHE,
    HOSPITALS,
    LOWER_BOUND,
    NOTEBOOK_SPLIT,
    RIZK_WORSE,
    RUNTIME,
    TESTS,
    TOY,
    against_rizk,
    identify,
    synthetic,
)
from analysis.studies.inference.statistics import (
    best_treatment,
    critical_table,
    crossing,
    final_rates,
    largest_ratio,
    noise_limit,
    power_curves,
    rizk_ratios,
    runtimes,
)
from analysis.study import Source
from sweep.execute import simulate
from sweep.inference import survival
from sweep.inference.api import time_cell
from sweep.inference.config import InferenceConfig
from sweep.inference.simulate import treatment_loglik
from tests.sweep_reference import run_cli

matplotlib.use("Agg")

COMPLETE = {"kind": "complete"}
TREATMENTS = {"model": {"kind": "treatments"}, "rho_am": 1.0986122886681098,
              "rho_gm": 1.0986122886681098, "rho_threshold": 1.0986122886681098}


def _summary(cells: list[dict]) -> pd.DataFrame:
    """The summary of the cells' rows, each run in this process (``simulate``)."""
    frames = [simulate("inference", **cell) for cell in cells]
    rows = pd.concat(frames, ignore_index=True)
    rows.attrs.update(frames[0].attrs)
    return summarize(rows)


@pytest.fixture(scope="module")
def toy() -> pd.DataFrame:
    """Sec. 2: RR exact (2 n × 2 p × 4 ε) and Laplace simulated (2 n × 1 p × 3 ε)."""
    rr = [{"replicates": 0, "method": "rr",
           "model": {"kind": "bernoulli", "states": [1 - p, p]},
           "graph": {**COMPLETE, "n_nodes": n}, "epsilon": e}
          for n in (25, 100) for p in (0.6, 0.7) for e in (0.05, 0.2, 0.8, 2.0)]
    laplace = [{"replicates": 100, "seed": 2, "method": "laplace",
                "model": {"kind": "bernoulli", "states": [0.3, 0.7]},
                "graph": {**COMPLETE, "n_nodes": n}, "epsilon": e,
                "null_draws": 500} for n in (25, 100) for e in (0.1, 0.5, 2.0)]
    return _summary(rr + laplace)


@pytest.fixture(scope="module")
def actg() -> pd.DataFrame:
    """Sec. 5 at 20 runs: the tests, and the best treatment by AM, GM, Alg. 4 and pooled."""
    tests = [{"replicates": 20, "seed": 3, "method": m, "model": {"states": [0.0, -1.0]}}
             for m in ("test", "centralized")]
    best = [{"replicates": 20, "seed": 3, "method": m, **TREATMENTS}
            for m in ("am", "gm", "mle", "centralized")]
    return _summary(tests + best)


@pytest.fixture(scope="module")
def tvd() -> pd.DataFrame:
    """Fig. 6 in small: GM, AM and Rizk et al. at two ε, 5 centres, 20 runs."""
    return _summary([{"replicates": 20, "seed": 6, "method": m, "epsilon": e}
                     for m in ("am", "gm", "rizk") for e in (1.0, 8.0)])


@pytest.fixture(scope="module")
def runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny runtime sweep (the run times are in the results files' provenance)."""
    work = tmp_path_factory.mktemp("runtime")
    done = run_cli(["-m", "family=inference", "method=am,gm", "graph.n_nodes=3,6",
                    "dataset.patients=256,512", "replicates=2", "executor=serial",
                    "results_dir=runtime"], work)
    assert done.returncode == 0, done.stderr[-3000:]
    return work / "runtime"


def _drawn(grid, tmp_path: Path, name: str) -> str:
    """Save the figure (it must render) and return its caption."""
    paths = save(grid, tmp_path / name, formats=("png",))
    assert paths[0].read_bytes()[:4] == b"\x89PNG"
    return grid.caption


# -- Figures ---------------------------------------------------------------------------

def test_power_figures_mark_the_critical_budgets(toy: pd.DataFrame, tmp_path: Path) -> None:
    caption = _drawn(power_figure(toy, "rr"), tmp_path, "fig1")
    assert "16 cells" in caption and "eq. (2)" in caption and "β_IND" in caption
    caption = _drawn(power_figure(toy, "laplace"), tmp_path, "fig2")
    assert "100 runs per cell" in caption and "Wilson" in caption
    with pytest.raises(ValueError, match="choose method"):
        power_figure(toy)


def test_critical_table_reads_the_results(toy: pd.DataFrame) -> None:
    rr = critical_table(toy, "rr")
    assert len(rr) == 4 and set(rr.n) == {25, 100} and set(rr.p) == {0.6, 0.7}
    exact = toy[(toy.method == "rr") & (toy.source == "exact")]
    for row in rr.itertuples():
        mine = exact[(exact["graph.n_nodes"] == row.n)
                     & (exact["model.states"].astype(str) == f"{1 - row.p!r},{row.p!r}")]
        assert (mine.critical_epsilon == row.critical).all() and len(mine) == 4
    # eq. (2) is the crossing for Σy ≥ τ: never above eq. (1)'s power crossing.
    assert (rr.critical <= rr.exact_crossing + 1e-12).all()
    # The bands are of the runs (100 per cell), whatever the number of agents.
    assert {c.replicates for c in power_curves(toy, "laplace")} == {100}
    laplace = critical_table(toy, "laplace")
    assert (laplace.crossing_low <= laplace.crossing).all()
    assert (laplace.crossing <= laplace.crossing_high).all()


def test_crossing_interpolates_in_log_epsilon() -> None:
    x = [0.1, 1.0, 10.0]
    assert crossing(x, [0.0, 0.5, 1.0], 0.75) == pytest.approx(math.sqrt(10))
    assert crossing(x, [0.6, 0.7, 0.8], 0.5) == 0.1
    assert crossing(x, [0.1, 0.2, 0.3], 0.5) == math.inf


def test_km_figure_uses_the_runs_split(actg: pd.DataFrame, tmp_path: Path) -> None:
    caption = _drawn(km_figure(actg), tmp_path, "fig4")
    assert "Kaplan–Meier" in caption and "penalizer 0.05" in caption
    assert "n = 5 centres" in caption


def test_centre_frames_are_the_familys_centres(actg: pd.DataFrame) -> None:
    """The split the figure draws is the one the best-treatment runs score: each centre's
    log GLR of every arm against ZDV, recomputed from its frame, is the family's."""
    cell = survival_cell(actg)
    frames = centre_frames(cell)
    config = InferenceConfig.from_options(model={"kind": "treatments"},
                                          graph={**COMPLETE, "n_nodes": 5})
    local, _, _ = treatment_loglik(config, 5)
    for i, frame in enumerate(frames):
        for j, arm in enumerate((1, 2, 3)):
            patients = survival.Patients.from_arms(frame, arm)
            best = survival.profile_maximum(patients, -1.0, 0.0, "breslow")[1]
            score = best - float(survival.partial_loglik(patients, 0.0, "breslow"))
            assert score == pytest.approx(local[i, j], rel=1e-9, abs=1e-9)


def test_hazard_ratios_of_actg(actg: pd.DataFrame) -> None:
    pooled = pd.concat(centre_frames(survival_cell(actg)))
    table = hazard_ratios(pooled).set_index("arm")
    assert (table.coef < 0).all() and (table.p < 1e-3).all()
    assert table.coef.idxmin() == "ZDV+ddI"


def test_beliefs_figure_and_best_treatment(actg: pd.DataFrame, tmp_path: Path) -> None:
    caption = _drawn(beliefs_figure(actg), tmp_path, "fig5")
    assert "4 cells, one per algorithm" in caption and "20 runs" in caption
    assert "non-private" in caption


def test_best_treatment_counts_strict_winners() -> None:
    rows = pd.DataFrame({
        "cell_id": "c", "method": "gm", "source": "belief", "t": 3,
        "replicate": np.repeat([0, 1, 2], 2),
        "state": ["a", "b"] * 3, "belief": [0.7, 0.3, 0.5, 0.5, 0.2, 0.8]})
    best = best_treatment(rows).iloc[0]
    assert best.runs == 3 and best.share_a == pytest.approx(1 / 3)
    assert best.share_b == pytest.approx(1 / 3)  # the tie counts for neither
    assert best.best == "b"  # mean belief 0.533 against 0.467


def test_tvd_figure(tvd: pd.DataFrame, tmp_path: Path) -> None:
    caption = _drawn(tvd_figure(tvd), tmp_path, "fig6")
    assert "6 cells" in caption and "No jitter" in caption
    ratios = rizk_ratios(tvd)
    assert set(ratios.method) == {"am", "gm"} and (ratios.rizk > 0.5).all()


def test_error_rates_draw_the_bounds(tvd: pd.DataFrame, tmp_path: Path) -> None:
    caption = _drawn(error_rates(tvd), tmp_path, "errors")
    assert "theorem's bound" in caption and "Wilson" in caption
    caption = _drawn(error_rates(tvd[tvd.epsilon == 1.0], x="t"), tmp_path, "t")
    assert "drawn flat over t" in caption
    rates = final_rates(tvd)
    assert set(rates.method) == {"am", "gm"}
    assert set(rates.metric) == {"type_i_error", "type_ii_error"}


def test_runtime_figure_reads_the_provenance(runtime_dir: Path, tmp_path: Path) -> None:
    table = runtimes(runtime_dir)
    assert len(table) == 8 and (table.per_run > 0).all()
    assert np.allclose(table.per_run * table.replicates, table.seconds)
    caption = _drawn(runtime_figure(table), tmp_path, "fig14_2")
    assert "8 cells" in caption and "no interval" in caption


def test_views_refuse_results_without_inference_rows(toy: pd.DataFrame, actg: pd.DataFrame,
                                                      tvd: pd.DataFrame) -> None:
    other = tvd.assign(family="colme")
    for view in (power_figure, km_figure, beliefs_figure,
                 tvd_figure, error_rates):
        with pytest.raises(MissingData, match="inference"):
            view(other)
    with pytest.raises(MissingData):
        power_figure(actg)  # no toy cells
    with pytest.raises(MissingData):
        km_figure(toy)  # no ACTG cells
    with pytest.raises(MissingData):
        beliefs_figure(toy)
    with pytest.raises(MissingData):
        tvd_figure(actg)  # one ε
    with pytest.raises(MissingData):
        runtime_figure(pd.DataFrame({"graph.n_nodes": [3]}))


def test_report_views(tvd: pd.DataFrame, runtime_dir: Path) -> None:
    views = STUDY.views
    assert set(views) >= {"inference_tvd", "inference_runtime", "inference_error_rates"}
    source = Source(summaries(runtime_dir), (runtime_dir,))
    assert views["inference_runtime"](source).caption
    assert views["inference_tvd"](Source(tvd)).caption
    with pytest.raises(MissingData, match="provenance"):
        views["inference_runtime"](Source(tvd))  # no results directory to read it from
    # Fig. 14.2 times the runtime preset's cells (resampled data): cells of the data as
    # they are (the quickstart's, with no dataset.patients) are none of them.
    assert tvd["dataset.patients"].isna().all()
    with pytest.raises(MissingData, match=r"timed_runs: needs cells with dataset\.patients "
                       "set"):
        STUDY.figures["inference_fig14_2"](Source(tvd))


def test_the_section_draws_every_figure_it_shows() -> None:
    section = STUDY.section
    shown = set(re.findall(r"figures/(\w+)\.png", section.text()))
    drawn = {figure for preset in section.presets for figure in preset.figures}
    assert shown == drawn and drawn <= set(STUDY.figures)


def test_the_overview_facets_by_options_and_renders_symbols(tmp_path: Path) -> None:
    """The cells' K and T differ by method and ε (columns the family derives): the
    overview's panels are the ε the sweep varied, never K or T. The legend renders the
    vocabulary's markup as mathtext, the documents' words stay as they are; the non-private
    MLE's TVD falls to about 10⁻²²⁰ and the y axis shows the decades that say something,
    and says so; a title claims a figure of the paper only at its sizes."""
    summary = _summary([{"replicates": 5, "seed": 1, "method": m, "epsilon": e}
                        for m in ("mle", "am", "threshold_1") for e in (0.5, 2.0)])
    cells = summary.drop_duplicates("cell_id")
    assert cells.rounds_k.nunique() > 1 and cells.iterations_t.nunique() > 1
    grid = overview(summary)
    assert [ax.get_title() for ax in grid.axes.flat] == ["ε = 0.5", "ε = 2"]
    legend = [t.get_text() for t in grid.legend.texts]
    assert r"two thresholds, $\mathregular{\widehat{Θ}^{thres,1}}$ (Alg. 2)" in legend
    assert name("method", "threshold_1", "inference") == "two thresholds, Θ̂^{thres,1} (Alg. 2)"
    low, high = grid.axes.flat[0].get_ylim()
    assert summary.tvd_truth.min() < 1e-100 and 1e-13 <= low and high <= 10
    assert re.search(r"The y axis shows 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+ to 1, .*: \d+ points of \d+ are "
                     r"off it\.", grid.caption)
    _drawn(grid, tmp_path, "overview")
    grid = draw(tvd_figure, summary)  # as a report draws it: sizes unchecked
    assert grid.figure.get_suptitle().startswith("Total variation distance to the ground truth")


# -- The claims' verdicts, on synthetic numbers ------------------------------------------

def _critical(values: dict[tuple[int, float], float], **extra: float) -> pd.DataFrame:
    """A critical table whose simulated crossings are 2× eq. (2)'s, with a 95% band of
    ±10% (a standard error of 0.2·v / 3.92)."""
    rows = [{"n": n, "p": p, "critical": v, "crossing": v * 2, "crossing_low": v * 1.8,
             "crossing_high": v * 2.2, "replicates": extra.get("replicates", 0)}
            for (n, p), v in values.items()]
    return pd.DataFrame(rows)


def _verdicts(claims: list[Claim]) -> list[str]:
    return [c.verdict.value for c in claims]


def _claims(statements: Sequence[Statement], **tables: object) -> list[Claim]:
    """The rows of ``statements`` on made-up tables (those :class:`Measures` reads from
    results)."""
    measures = Measures.__new__(Measures)
    vars(measures).update(tables)
    return evaluate(statements, measures)


def test_toy_claims_one_row_per_case() -> None:
    """ε* falls with n at p = 0.7 (one exact row per pair of n), is largest at the top p
    (at the largest n), stays below 1; the simulated rows are orderings of independent
    cells with the standard errors of their Wilson bands."""
    def toys(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {"toys": {"rr": table, "laplace": table.assign(replicates=100)}}

    good = _critical({(25, 0.7): 0.3, (50, 0.7): 0.2, (25, 0.9): 0.45, (50, 0.9): 0.4})
    claims = _claims(TOY, **toys(good))
    assert _verdicts(claims) == ["agrees"] * len(claims) and len(claims) == 6
    assert _verdicts(_claims([EXACT_LAPLACE], **toys(good))) == ["agrees"]
    bad = _critical({(25, 0.7): 0.3, (50, 0.7): 0.35, (25, 0.9): 0.6, (50, 0.9): 0.4})
    claims = _claims(TOY, **toys(bad))
    rows = {(c.section, c.case.split(",")[0]): c for c in claims}
    falls = rows[("2, Fig. 1 (left)", "n = 25 → 50")]
    assert falls.verdict.value == "disagrees" and "t = ∞" in evidence_text(falls.evidence)
    # Crossings 0.6 → 0.7, SEs 0.4·v/3.92 = 0.031, 0.036: z = 0.1 / 0.047 = 2.1 upwards.
    simulated = rows[("2, Fig. 2 (left)", "n = 25 → 50")]
    assert simulated.verdict.value == "disagrees"
    # Crossings 0.6 ± 0.031 and 0.65 ± 0.034 (a rise of 0.05, z = 1.1): inconclusive.
    close = _critical({(25, 0.7): 0.3, (50, 0.7): 0.325, (25, 0.9): 0.6, (50, 0.9): 0.4})
    claims = _claims(TOY, **toys(close))
    simulated = next(c for c in claims if c.section == "2, Fig. 2 (left)")
    assert simulated.verdict.value == "inconclusive"
    below = claims[0]
    assert below.case == "largest of 4 (n, p): n = 25, p = 0.9"


def test_lower_bound_claims() -> None:
    """Thm 13.1 at K = T = 1: the printed bound above 1 disagrees; the data-processing
    inequality's slack decides the check."""
    bounds = pd.DataFrame({"n": [25, 100], "p": [0.6, 0.9], "epsilon": [0.02, 1.0],
                           "power": [0.022, 0.9], "size": [0.021, 0.04],
                           "kl": [2e-4, 3.0], "printed": [2391.9, 0.01],
                           "corrected": [2.58, 0.1], "decision_kl": [2.5e-5, 2.5]})
    claim, check = _claims([LOWER_BOUND, DATA_PROCESSING], bounds=bounds)
    assert claim.verdict.value == "disagrees" and "ε = 0.02" in claim.case
    assert "1 of 2 cells" in claim.reading
    assert check.verdict.value == "agrees" and "n = 25" in check.case
    claim, check = _claims([LOWER_BOUND, DATA_PROCESSING],
                           bounds=bounds.assign(printed=[0.5, 0.01], decision_kl=[3e-4, 2.5]))
    assert claim.verdict.value == "agrees" and check.verdict.value == "disagrees"


def test_test_claims() -> None:
    tests = pd.DataFrame([
        {"method": "centralized", "median": 4e-6, "low": 4e-6, "high": 4e-6, "below_1e5": 1.0,
         "reject": 1.0, "runs": 10, "alpha": 0.05},
        {"method": "test", "median": 6e-4, "low": 1e-9, "high": 1.0, "below_1e5": 0.4,
         "reject": 0.5, "runs": 10, "alpha": 0.05}])
    # The distributed test's noise (scale b, K, Δ) and the pooled statistic.
    actg = pd.DataFrame([
        {"method": "test", "model.kind": "cox", "noise_scale": 16.0, "rounds_k": 4,
         "sensitivity_bound": 2.0, "statistic": math.nan},
        {"method": "centralized", "model.kind": "cox", "noise_scale": math.nan, "rounds_k": 0,
         "sensitivity_bound": math.nan, "statistic": 21.3}])
    centralized, distributed = _claims(TESTS, tests=tests, actg=actg)
    # 40% of 10 runs: z = −0.1 / 0.14 (Agresti–Coull): inconclusive.
    assert _verdicts([centralized, distributed]) == ["agrees", "inconclusive"]
    assert "16.0" in distributed.reading and "6.00e-4" in distributed.ours
    tests.loc[1, ["below_1e5", "runs"]] = [0.3, 400]
    assert _claims(TESTS, tests=tests, actg=actg)[1].verdict.value == "disagrees"
    tests.loc[1, "below_1e5"] = 0.7
    assert _claims(TESTS, tests=tests, actg=actg)[1].verdict.value == "agrees"


def test_share_standard_error_is_agresti_coull() -> None:
    """(k + 2)/(n + 4): 0 of 50 runs has p̃ = 2/54 and SE √(p̃(1 − p̃)/54) = 0.0257."""
    share = Measures.share(0.0, 50)
    assert share.se == pytest.approx(math.sqrt(2 / 54 * 52 / 54 / 54))
    ordering = Below("share − 0.5", ">").evidence({"a": share, "b": 0.5}, str)
    assert (ordering.difference, ordering.claimed) == (-0.5, ">")
    assert ordering.decide().value == "disagrees"


def test_hospital_and_treatment_claims() -> None:
    centre = {"coef": -0.1, "low": -0.6, "high": 0.4, "p": 0.9, "patients": 218, "events": 60}
    pooled = {"coef": -0.45, "low": -0.65, "high": -0.24, "p": 2e-5, "patients": 1093,
              "events": 309}
    modulo = [{**centre, "p": 0.4}, {**centre, "p": 0.88}, {**centre, "p": 0.01}]
    runs, both, notebook = _claims([*HOSPITALS, NOTEBOOK_SPLIT], pooled=pooled, centres={
        "runs": [{**centre, "p": 0.01}, centre], "modulo": modulo})
    assert _verdicts([runs, both]) == ["disagrees", "agrees"]
    # Over all the notebook's centres, no centre picked: 2 of 3 above 0.05.
    assert notebook.verdict.value == "agrees" and "2 of 3 above 0.05" in notebook.ours
    (notebook,) = _claims([NOTEBOOK_SPLIT], centres={
        "modulo": [{**centre, "p": 0.01}, {**centre, "p": 0.02}]})
    assert notebook.verdict.value == "disagrees"
    hazards = pd.DataFrame({"arm": ["ZDV+ddI", "ZDV+Zal", "ddI"], "coef": [-0.6, -0.5, -0.4],
                            "low": [-0.8, -0.7, -0.6], "high": [-0.4, -0.3, -0.2]})
    best = pd.DataFrame([{"method": "gm", "runs": 200, "share_ZDV+ddI": 0.6,
                          "mean_ZDV+ddI": 0.5, "mean_ddI": 0.5},
                         {"method": "am", "runs": 200, "share_ZDV+ddI": 0.52,
                          "mean_ZDV+ddI": 0.4, "mean_ddI": 0.6}])
    cells = pd.DataFrame({"method": ["gm", "am"], "model.kind": "treatments",
                          "noise_scale": [48.0, 72.0], "mle_set": "ZDV+ddI"})
    truth, am, gm = _claims([BEST_TREATMENT, identify("paper")], arms=hazards.set_index("arm"),
                            actg=cells, best=best, spread=4.8)
    # −0.6 against −0.5, SEs 0.102 each: z = −0.69.
    assert truth.verdict.value == "inconclusive"
    assert (am.case, gm.case) == ("AM (Alg. 1)", "GM (Alg. 1)")
    # 60% of 200 runs: z = 0.1 / 0.0345 = 2.9; 52%: z = 0.57.
    assert _verdicts([am, gm]) == ["inconclusive", "agrees"]


def _ratios(ours: list[float], ours_se: list[float]) -> pd.DataFrame:
    rizk = [1.0] * len(ours)
    return pd.DataFrame({"n": [10] * len(ours), "epsilon": [1.0, 8.0][:len(ours)],
                         "method": ["gm"] * len(ours), "rizk": rizk,
                         "rizk_se": [0.01] * len(ours), "ours": ours, "ours_se": ours_se,
                         "ratio": [r / o for r, o in zip(rizk, ours, strict=True)],
                         "ratio_se": [r / o * s / o for r, o, s in zip(rizk, ours, ours_se,
                                                                        strict=True)],
                         "rizk_private": [0.0] * len(ours)})


def _largest(estimate: float, low: float, high: float) -> dict[str, float]:
    return {"estimate": estimate, "low": low, "high": high, "method": "gm", "n": 10,
            "epsilon": 8.0, "rizk": 1.0, "ours": 1 / estimate, "resamples": 2000,
            "cells": 2, "unbounded": 0}


def test_rizk_claims_weigh_the_uniform_belief() -> None:
    """Below the better of Rizk et al. and the uniform belief at the least favourable
    cell; the largest ratio's bootstrap interval against 100× read to the decade."""
    def fig6(ratios: pd.DataFrame, largest: dict[str, float]) -> dict[str, dict]:
        return {"fig6": {"inference_fig6": ratios}, "uniform": {"inference_fig6": 0.5},
                "maxima": {"inference_fig6": largest}}

    below, hundred, check = _claims([*against_rizk("inference_fig6"), RIZK_WORSE], **fig6(
        _ratios([0.4, 0.01], [0.02, 0.002]), _largest(100.0, 60.0, 140.0)))
    # Rizk et al.'s 1.0 is worse than uniform: 0.4 ± 0.02 against 0.5 exact, z = −5.
    assert below.verdict.value == "agrees" and "ε = 1" in below.case
    assert "here the uniform belief's" in below.ours
    assert hundred.verdict.value == "agrees" and check.verdict.value == "agrees"
    # 0.5 ± 0.02 against the uniform 0.5: z = 0, however far below Rizk et al.
    below, hundred = _claims(against_rizk("inference_fig6"), **fig6(
        _ratios([0.5, 0.06], [0.02, 0.01]), _largest(16.7, 11.0, 23.0)))
    assert below.verdict.value == "inconclusive"
    assert hundred.verdict.value == "disagrees"  # [11, 23] misses [31.6, 316]


def test_largest_ratio_bootstraps_the_maximum() -> None:
    """The maximum over cells with a percentile interval from resampling every cell's
    runs: reproducible with its seed, the observed maximum inside, a zero cell left out."""
    rng = np.random.default_rng(0)
    rows = []
    for epsilon, ours in ((1.0, 0.5), (8.0, 0.05), (16.0, 0.0)):
        for method, mean in (("rizk", 1.0), ("gm", ours)):
            for replicate in range(40):
                value = float(np.clip(mean + 0.02 * rng.standard_normal(), 0, 1)) if mean else 0.0
                rows.append({"cell_id": f"{method}{epsilon}", "method": method,
                             "source": "simulated", "t": 5, "replicate": replicate,
                             "graph.n_nodes": 10, "epsilon": epsilon, "tvd_truth": value})
    rows = pd.DataFrame(rows)
    found = largest_ratio(rows, ("gm",), resamples=500)
    assert found == largest_ratio(rows, ("gm",), resamples=500)
    assert found["epsilon"] == 8.0 and found["unbounded"] == 1 and found["cells"] == 2
    assert found["low"] < found["estimate"] < found["high"]
    assert 15 < found["estimate"] < 25


def test_noise_limit_of_alg_1() -> None:
    """Under noise alone each round's winner is uniform on Θ: AM at ϱ → ∞ misses θ° with
    (1 − 1/|Θ|)^K, at τ = 1/(1 + e^1.5) = 0.18 with K = 6 it needs 2 wins; GM's point
    mass is uniform on Θ."""
    assert noise_limit("am", 3, 6, None) == pytest.approx((2 / 3) ** 6)
    assert noise_limit("am", 3, 6, 1.5) == pytest.approx((2 / 3) ** 6 + 6 / 3 * (2 / 3) ** 5)
    assert noise_limit("gm", 3, 4, 1.5) == pytest.approx(2 / 3)


def test_runtime_claims_read_orders_of_magnitude() -> None:
    setting = pd.DataFrame({"n": [3, 6, 96], "patients": [4096, 4096, 8192],
                            "method": ["gm"] * 3, "prepare": [0.005, 0.006, 0.5],
                            "exchange": [0.001, 0.001, 0.5],
                            "log_mean": [math.log10(0.006), math.log10(0.007), 0.0],
                            "log_se": [0.01, 0.01, 0.01], "repeats": [5, 5, 5]})
    # The text's setting (ε = 0.1) as above; the caption's (ε = 1) a hundred times slower.
    timed = pd.concat([setting.assign(epsilon=0.1, alpha=0.1),
                       setting.assign(epsilon=1.0, alpha=0.05, log_mean=setting.log_mean + 2)],
                      ignore_index=True)
    rows = _claims([*RUNTIME, FAMHE], timed=timed)
    # Sec. 5: 0.006 s inside [0.0032, 0.032]; 1 s against ∼10 s, [3.2, 32]: disagrees; at
    # ε = 1, 0.6 s and 100 s, both outside. Sec. 14.3: 0.007 s, and 1 s against ∼1 s; at
    # ε = 1, 0.7 s against ∼10⁻² s and 100 s against ∼1 s. FAMHE: not measured.
    assert _verdicts(rows) == ["agrees", "disagrees", "disagrees", "disagrees",
                               "agrees", "agrees", "disagrees", "disagrees", "inconclusive"]
    assert "likelihoods 5.00e-3 s + exchange 1.00e-3 s" in rows[0].case
    assert rows[0].case.startswith("Sec. 14.3's text: ε = 0.1, α = 0.1, fastest cell")


def _guarantee_table() -> pd.DataFrame:
    base = {"counting": "", "runs": 200, "noise_scale": 1.0, "rounds_k": 4,
            "iterations_t": 9, "reading": "noise"}
    return pd.DataFrame([
        {**base, "theorem": "Thm 4.2", "method": "gm", "metric": "type_i_error",
         "setting": "a", "rate": 0.02, "bound": 0.1, "lower": False},
        {**base, "theorem": "Thm 4.2", "method": "gm", "metric": "type_i_error",
         "setting": "b", "rate": 0.66, "bound": 0.1, "lower": False},
        {**base, "theorem": "Thm 4.7", "method": "private_ol", "metric": "exact_recovery",
         "setting": "c", "rate": 1.0, "bound": 0.8, "lower": True},
        {**base, "theorem": "Thm 4.3", "method": "threshold_1", "metric": "type_i_error",
         "setting": "d", "rate": 0.005, "bound": 0.0366, "lower": False,
         "counting": "corrected"}])


def test_guarantee_claims() -> None:
    """Clopper–Pearson against the allowed rate; exact recovery ≥ 1 − 2η counts the runs
    short of it; the corrected counting (not the paper's) is a check."""
    claims = _claims(synthetic(corrected=False), synthetic=_guarantee_table())
    assert _verdicts(claims) == ["agrees", "disagrees", "agrees"]
    assert _verdicts(_claims(synthetic(corrected=True), synthetic=_guarantee_table())) == [
        "agrees"]
    assert "0 of 200 runs break it" in evidence_text(claims[2].evidence)
    rates = pd.DataFrame([
        {"method": "gm", "metric": "type_i_error", "rate": 0.08, "low": 0.05, "high": 0.12,
         "bound": 0.1, "lower": False, "holds": True, "epsilon": 1.0, "n": 5, "runs": 200,
         "noise_scale": 12.0, "iterations_t": 9, "preset": "quick"},
        {"method": "gm", "metric": "type_i_error", "rate": 0.4, "low": 0.3, "high": 0.5,
         "bound": 0.1, "lower": False, "holds": False, "epsilon": 2.0, "n": 5, "runs": 200,
         "noise_scale": 6.0, "iterations_t": 9, "preset": "quick"}])
    (claim,) = _claims(ACTG_BOUNDS, rates=rates, gaps={5: 9.85})
    assert claim.verdict.value == "disagrees" and "ε = 2" in claim.case
    assert "within the bound in 1 of 2 cells" in claim.ours and "9.85" in claim.reading
    table = claims_table([claim])
    assert "| **disagrees** |" in table and claim.reading in table


def test_notebook_gap_and_split() -> None:
    """eq. (3)'s gap of the pooled ddI and ZDV patients equals the family's partial
    likelihood (an independent implementation); the notebook's sum over every patient is
    28× larger. The notebook's split by index is a partition."""
    cell = pd.Series({"dataset.arm": 3})
    gap = notebook_gap(cell)
    patients = survival.Patients.from_arms(survival.actg175(), 3)
    both = survival.partial_loglik(patients, [-math.log(2.0), 0.0])
    assert gap["correct"] == pytest.approx(both[0] - both[1], rel=1e-12)
    assert gap["correct"] == pytest.approx(9.63, abs=0.005)
    assert 25 < gap["notebook"] / gap["correct"] < 30
    hospitals = split_hospitals(cell, 10)
    assert sum(len(h) for h in hospitals) == len(patients) and len(hospitals) == 10
    with pytest.raises(ValueError, match="how"):
        split_hospitals(cell, 10, "even")
    with pytest.raises(ValueError, match="n: must be an integer >= 1"):
        split_hospitals(cell, 0)


def test_timed_figure() -> None:
    """Fig. 14.2 like with like: geometric means with their log-scale errors, the share of
    the likelihoods in the caption; a table of one n is refused."""
    timed = pd.DataFrame({"n": [3, 96, 3, 96], "patients": [4096, 4096, 8192, 8192],
                          "method": ["gm"] * 4, "prepare": [0.004, 0.01, 0.005, 0.012],
                          "exchange": [0.001, 0.004, 0.001, 0.005],
                          "log_mean": np.log10([0.005, 0.014, 0.006, 0.017]),
                          "log_se": [0.02] * 4, "repeats": [5] * 4,
                          "epsilon": [0.1] * 4, "alpha": [0.1] * 4})
    grid = timed_figure(timed)
    assert "The likelihoods take 71%–83% of a run" in grid.caption
    lines = grid.axes.flat[0].get_lines()
    assert any(np.allclose(line.get_ydata(), [0.005, 0.014]) for line in lines)
    with pytest.raises(MissingData, match="timed_figure"):
        timed_figure(timed[timed.n == 3])


def test_time_cell_refuses_bad_repeats() -> None:
    with pytest.raises(ValueError, match="repeats: must be an integer >= 1"):
        time_cell({}, 0)
