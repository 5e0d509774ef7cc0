"""Figures never average cells silently, draw each cell's baselines, say what they show
and, when they cannot be drawn, say which filter failed."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import seaborn as sns

from analysis import plot
from analysis.figures import FIGURES, Figure
from analysis.load import OTHER_FAMILY, PAPER_SIZES, summarize
from analysis.plot import MIN_TICKS, MissingData, SharedCurve, curves, hint, unclaimed
from analysis.studies.colme.figures import class_errors, privacy_utility, ratio, time_to_target
from sweep.execute import simulate

from .sweep_reference import run_cli

T_MAX = 200
SIGMA = 0.5
P = 1 / 3  # three classes, each agent's uniform over them


def _sweep(epsilons: tuple[float, ...] = (0.5, 1.0), agents: tuple[int, ...] = (6, 12),
           seeds: tuple[int, ...] = (0,), **options: object) -> pd.DataFrame:
    """Summaries of real cells over ε × M (× seed), with local, ideal and oracle."""
    frames = [simulate("colme", replicates=3, seed=seed, n_agents=m, t_max=T_MAX, epsilon=eps,
                       checkpoints=6, baselines=["local", "ideal", "oracle"], **options)
              for eps, m, seed in itertools.product(epsilons, agents, seeds)]
    frame = pd.concat(frames, ignore_index=True)
    frame.attrs = frames[0].attrs
    return summarize(frame)


@pytest.fixture(scope="module")
def grid_2x2() -> pd.DataFrame:
    return _sweep()


def _ideal(m: int, t: np.ndarray) -> np.ndarray:
    """Prop. 2 averaged over class sizes: σ² E[1/|C_a|]/t, |C_a| − 1 ~ Bin(M − 1, p)."""
    return SIGMA**2 * (1 - (1 - P) ** m) / (m * P) / t


def _lines(ax: plt.Axes, label: str) -> list[tuple[np.ndarray, np.ndarray, object]]:
    return [(np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float),
             line.get_color()) for line in ax.lines if line.get_label() == label]


def test_a_2x2_sweep_draws_four_panels_each_with_its_own_cells_baselines(
        grid_2x2: pd.DataFrame) -> None:
    grid = curves(grid_2x2, baselines=("local", "ideal", "oracle"))
    assert grid.axes.shape == (2, 2)  # ε as columns, M as rows, in numeric order
    assert [ax.get_title() for ax in grid.axes.flat] == [
        "ε = 0.5 | M = 6", "ε = 1 | M = 6", "ε = 0.5 | M = 12", "ε = 1 | M = 12"]
    oracles = set()
    for (m, eps), ax in zip(itertools.product((6, 12), (0.5, 1.0)), grid.axes.flat,
                            strict=True):
        cell = grid_2x2[(grid_2x2.n_agents == m) & (grid_2x2.epsilon == eps)]
        [(t, ideal, _)] = _lines(ax, "ideal")
        np.testing.assert_allclose(ideal, _ideal(m, t), rtol=1e-12)
        [(t, local, _)] = _lines(ax, "local")
        np.testing.assert_allclose(local, SIGMA**2 / t, rtol=1e-12)
        [(t, oracle, _)] = _lines(ax, "oracle")
        exact = cell[(cell.method == "oracle") & (cell.source == "analytic")]
        np.testing.assert_array_equal(oracle, exact.sort_values("t").mse)
        oracles.add(oracle.tobytes())
        [(t, mean, _)] = _lines(ax, "Algorithm 1")
        np.testing.assert_array_equal(mean, cell[cell.method == "colme"].sort_values("t").mse)
    assert len(oracles) == 4  # Prop. 3 depends on ε and M: four distinct curves
    assert "each curve is one cell" in grid.caption and "3 replicates" in grid.caption
    plt.close("all")


def test_baselines_that_differ_between_curves_of_a_panel_are_drawn_per_curve(
        grid_2x2: pd.DataFrame) -> None:
    grid = curves(grid_2x2, hue="n_agents", col="epsilon")
    for ax in grid.axes.flat:
        ideals = _lines(ax, "ideal")
        assert len(ideals) == 2  # one per M, never their mean
        colours = {str(c) for _, _, c in ideals}
        series = {str(c) for _, _, c in _lines(ax, "M = 6") + _lines(ax, "M = 12")}
        assert colours == series  # each in its curve's colour
        for t, ideal, _ in ideals:
            assert any(np.allclose(ideal, _ideal(m, t), rtol=1e-12) for m in (6, 12))
        # The local baseline does not depend on M: one grey line.
        [(_, _, colour)] = _lines(ax, "local")
        assert colour == "0.35"
    plt.close("all")


def test_extra_curves_are_drawn_as_extras_and_named_so(grid_2x2: pd.DataFrame) -> None:
    """``curves(extra=...)`` (Fig. 2 middle's PM-I wMoM): the matching curves are drawn
    thinner, dashed and lighter, the others as usual, and the legend marks the extra."""
    grid = curves(grid_2x2, hue="n_agents", col="epsilon", extra={"n_agents": 6})
    for ax in grid.axes.flat:
        [extra] = [line for line in ax.lines if line.get_label() == "M = 6"]
        [plain] = [line for line in ax.lines if line.get_label() == "M = 12"]
        assert extra.get_linewidth() < plain.get_linewidth()
        assert extra.get_alpha() < 1.0 and plain.get_alpha() in (None, 1.0)
        assert extra.get_linestyle() != plain.get_linestyle()
    legend = [t.get_text() for t in grid.figure.legends[0].get_texts()]
    assert "M = 6 (not in the paper)" in legend and "M = 12" in legend
    plt.close("all")


def test_an_x_zoom_zooms_y_per_panel_unless_they_share_y(grid_2x2: pd.DataFrame) -> None:
    """With ``sharey=False`` each panel's y range is the span of its own curves, bands and
    references within the zoom; shared, every panel gets the span over all of them."""
    own = curves(grid_2x2, hue="n_agents", col="epsilon", xlim=(10, 100), sharey=False)
    lows = [ax.get_ylim()[0] for ax in own.axes.flat]
    assert len(set(lows)) == len(lows)  # ε = 0.5 and 1 differ
    for ax in own.axes.flat:
        epsilon = float(ax.get_title().split("=")[-1])
        panel = grid_2x2[(grid_2x2.epsilon == epsilon) & grid_2x2.t.between(10, 100)]
        drawn = panel[panel.method == "colme"]
        assert ax.get_ylim()[0] < drawn.mse_low.min() and ax.get_ylim()[1] > drawn.mse_high.max()
    shared = curves(grid_2x2, hue="n_agents", col="epsilon", xlim=(10, 100))
    assert len({ax.get_ylim() for ax in shared.axes.flat}) == 1
    plt.close("all")


def test_cells_that_would_share_a_curve_are_refused_or_averaged_explicitly() -> None:
    summary = _sweep(epsilons=(1.0,), agents=(6,), seeds=(0, 1))
    with pytest.raises(SharedCurve, match="differ in seed"):
        curves(summary)
    grid = curves(summary, aggregate="seed")
    assert "mean over seed of 2 cells" in grid.caption
    [(_, mean, _)] = _lines(grid.axes[0, 0], "Algorithm 1")
    colme = summary[summary.method == "colme"]
    np.testing.assert_allclose(mean, colme.groupby("t").mse.mean().to_numpy(), rtol=1e-12)
    # Cells that differ only in their seed are independent estimates: the band is the
    # standard error of their mean, s/√k.
    se = colme.groupby("t").mse.std().to_numpy() / math.sqrt(2)
    edges = grid.axes[0, 0].collections[0].get_paths()[0].vertices[:, 1]
    for value in (*(mean - se), *(mean + se)):
        assert np.isclose(edges, value, rtol=1e-12).any()
    plt.close("all")


def test_views_draw_one_cell_per_curve_with_uncertainty(grid_2x2: pd.DataFrame) -> None:
    grid = privacy_utility(grid_2x2)
    assert "each point is one cell" in grid.caption
    assert [ax.get_title() for ax in grid.axes.flat] == ["M = 6", "M = 12"]
    ax = grid.axes[0, 0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.5", "1"]
    [(eps, mse, _)] = _lines(ax, "Algorithm 1")
    np.testing.assert_array_equal(eps, [0.5, 1.0])
    final = grid_2x2[(grid_2x2.method == "colme") & (grid_2x2.t == T_MAX)
                     & (grid_2x2.n_agents == 6)].sort_values("epsilon")
    np.testing.assert_array_equal(mse, final.mse)
    assert len(ax.containers) == 1  # error bars
    [(_, ideal, _)] = _lines(ax, "ideal")
    np.testing.assert_allclose(ideal, _ideal(6, np.full(2, T_MAX)), rtol=1e-12)

    grid = class_errors(grid_2x2)
    assert grid.axes.shape == (2, 2) and "Wilson score intervals" in grid.caption
    grid = ratio(grid_2x2, "oracle")
    assert grid.axes.shape == (2, 2) and "each curve is one cell" in grid.caption
    plt.close("all")


def test_time_to_target_states_its_target(grid_2x2: pd.DataFrame) -> None:
    grid = time_to_target(grid_2x2)
    assert "Target: MSE ≤" in grid.caption and "ten times the smallest" in grid.caption
    grid = time_to_target(grid_2x2, target=3e-3)
    colme = grid_2x2[grid_2x2.method == "colme"]
    for eps, ax in zip((0.5, 1.0), grid.axes.flat, strict=True):
        [(m, t, _)] = _lines(ax, "Algorithm 1")
        cells = colme[colme.epsilon == eps]
        expected = [cells[(cells.n_agents == a) & (cells.mse <= 3e-3)].t.min() for a in m]
        np.testing.assert_array_equal(t, expected)
    plt.close("all")


def test_not_drawn_names_the_failing_filter_and_the_values_present(
        grid_2x2: pd.DataFrame) -> None:
    with pytest.raises(MissingData, match=r"fig2_left: needs t_max = 30000, n_agents = 200; "
                       r"the results have t_max = 200, n_agents ∈ \{6, 12\} \(run "
                       r"\+experiment=fig2_left, or draw it from these sizes with "
                       r"paper=False\)$") as error:
        FIGURES["fig2_left"].draw(grid_2x2)
    # On the command line, the same in its words: a flag.
    assert error.value.need == PAPER_SIZES
    assert hint(error.value, command_line=True) == str(error.value).replace(
        "paper=False", "--any-size")
    with pytest.raises(MissingData, match="fig7: needs results of family network; the "
                       "results have family = colme") as error:
        FIGURES["fig7"].draw(grid_2x2)
    assert error.value.need == OTHER_FAMILY
    # At any size, the sizes are no filter; the schemes the figure needs still are.
    # Each value is needed: the message names the one missing, never reads as satisfied.
    with pytest.raises(MissingData, match=r"needs cells at mechanism = pm1 and pm2; the "
                       "results have none at mechanism = pm2 among the figure's rows"):
        FIGURES["fig2_left"].draw(grid_2x2, paper=False)
    with pytest.raises(MissingData, match=r"fig4_left: needs cells at noise = gaussian and "
                       "laplace; the results have none at noise = gaussian among the "
                       "figure's rows"):
        FIGURES["fig4_left"].draw(grid_2x2.assign(noise="laplace"), paper=False)


def test_a_paper_figure_at_any_size_puts_the_sizes_in_panels() -> None:
    summary = pd.concat([_sweep(epsilons=(1.0,), agents=(6,), mechanism=m, schedule=s)
                         for m, s in itertools.product(("pm1", "pm2"), ("rr", "rrr"))])
    summary.attrs = _sweep(epsilons=(1.0,), agents=(6,)).attrs
    grid = FIGURES["fig2_left"].draw(summary, paper=False)
    legend = [t.get_text() for t in grid.legend.texts]
    assert legend == ["PM-I", "PM-II", "RR", "rRR", "local", "ideal"]
    assert "each curve is one cell" in grid.caption
    plt.close("all")


def test_a_title_claims_a_paper_figure_only_at_the_papers_sizes(grid_2x2: pd.DataFrame
                                                                ) -> None:
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        return curves(rows, title="Fig. 9 (left): known variance")

    rows = grid_2x2[grid_2x2.n_agents == 6]
    sizes = ("n_agents", "t_max")
    at = Figure("fig9", "+experiment=fig9; known variance", {}, draw, parameters={"t_max": 200},
                sizes=sizes)
    grid = at.draw(rows, paper=False)
    assert grid.paper_sizes and grid.figure.get_suptitle() == (
        "Fig. 9 (left): known variance (M = 6, t_max = 200)")
    other = Figure("fig9", "+experiment=fig9; known variance", {}, draw,
                   parameters={"t_max": 30000}, sizes=sizes)
    grid = other.draw(rows, paper=False)
    assert not grid.paper_sizes and grid.figure.get_suptitle() == (
        "Known variance (M = 6, t_max = 200)")
    grid = FIGURES["fig2_left"].draw(_sweep(epsilons=(1.0,), agents=(6,)).pipe(
        lambda s: pd.concat([s.assign(mechanism=m, schedule=r, cell_id=s.cell_id + m + r)
                             for m in ("pm1", "pm2") for r in ("rr", "rrr")])), paper=False)
    assert "Fig." not in grid.figure.get_suptitle()
    assert [unclaimed(t) for t in ("Fig. 6: total variation", "Figs 3–6: networks",
                                   "Fig. 3, Sch-Var-2", "Fig. 14.2: time per run",
                                   "Appendix C.3: budgets")] == [
        "Total variation", "Networks", "Sch-Var-2", "Time per run", "Appendix C.3: budgets"]
    plt.close("all")


def _labelled(axis: object) -> list[str]:
    """The tick labels an axis draws within its view."""
    axis.figure.canvas.draw()
    low, high = sorted(axis.get_view_interval())
    return [t.get_text() for t in axis.get_majorticklabels()
            if t.get_text() and low <= t.get_position()[axis.axis_name == "y"] <= high]


def test_log_axes_label_at_least_three_ticks(grid_2x2: pd.DataFrame) -> None:
    """The final MSE of a few cells spans less than a decade: matplotlib's log axis would
    label one power of ten at most; 1, 2 and 5 times them, or round values, fill in."""
    cells = grid_2x2[grid_2x2.n_agents == 12].copy()
    # Squeezed into less than a decade, under 10⁻³ (v ↦ 0.05 v^0.8 keeps their order).
    for column in ("mse", "mse_low", "mse_high"):
        cells[column] = 0.05 * cells[column] ** 0.8
    grid = privacy_utility(cells)
    ax = grid.axes.flat[0]
    low, high = ax.get_ylim()
    assert ax.get_yscale() == "log" and high / low < 10
    labels = _labelled(ax.yaxis)
    assert len(labels) >= MIN_TICKS, labels
    assert all("10^" in t for t in labels)  # values under 10⁻³: as powers of ten
    # t from 1 to 200: a power of ten each, as plain numbers.
    assert _labelled(curves(grid_2x2).axes[-1, 0].xaxis) == ["1", "10", "100"]
    plt.close("all")


def test_a_log_axis_over_many_decades_shows_where_the_values_are(
        grid_2x2: pd.DataFrame) -> None:
    """One cell's MSE collapses to 10⁻²⁰⁰ after t = 10: the y axis keeps the decades of
    the others and the caption counts the points it leaves out."""
    cell = grid_2x2.cell_id.iloc[0]
    late = grid_2x2.cell_id.eq(cell) & grid_2x2.method.eq("colme") & (grid_2x2.t > 10)
    summary = grid_2x2.copy()
    for column in ("mse", "mse_low", "mse_high"):
        summary.loc[late, column] *= 1e-200
    grid = curves(summary)
    low, high = grid.axes.flat[0].get_ylim()
    assert np.log10(high / low) <= plot.MAX_DECADES + 2
    assert low <= grid_2x2[grid_2x2.method == "colme"].mse_low.min()
    assert f": {late.sum()} points of " in grid.caption
    assert grid.caption.endswith("are off it.")
    # A value at zero cannot be drawn on a log axis: the caption says so.
    summary = grid_2x2.copy()
    summary.loc[summary.index[summary.method.eq("colme")][-1], "mse"] = 0.0
    assert re.search(r"\. 1 point of \d+ lies at zero or below, which a log axis does not "
                     r"show\.$", curves(summary).caption)
    plt.close("all")


def test_the_report_of_a_sweep_rerun_with_more_replicates_reads_them_all(
        tmp_path: Path) -> None:
    grid = ["-m", "epsilon=0.5,1", "n_agents=6", "t_max=100", "checkpoints=4",
            "executor=serial", "results_dir=results"]
    for replicates in (2, 3):
        done = run_cli([*grid, f"replicates={replicates}"], tmp_path)
        assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("2 cells: 2 done (2 extended)")
    done = run_cli(["report", "results", "--out", "report"], tmp_path, module="analysis")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "each curve is one cell, 3 replicates each" in page and "over 2" not in page


@pytest.mark.parametrize(("make", "code", "message"), [
    (lambda d: None, 3, "does not exist; check the path"),
    (lambda d: d.mkdir(), 4, "no results in results: the directory is empty"),
    (lambda d: (d / "_failures").mkdir(parents=True), 4, "only _failures"),
])
def test_a_wrong_results_path_gets_its_own_message_and_exit_code(
        tmp_path: Path, make: Callable[[Path], None], code: int, message: str) -> None:
    make(tmp_path / "results")
    for command in (["report", "results", "--out", "report"],
                    ["figure", "fig2_left", "results", "--out", "fig"]):
        done = run_cli(command, tmp_path, module="analysis")
        assert done.returncode == code
        [line] = done.stderr.splitlines()
        assert message in line and "results" in line and "rerun" not in line


def _legend_colours(grid: sns.FacetGrid) -> dict[str, tuple[str, str]]:
    """The legend's entries of coloured lines: label -> (colour, marker)."""
    return {text.get_text(): (matplotlib.colors.to_hex(line.get_color()), line.get_marker())
            for text, line in zip(grid.legend.texts, grid.legend.legend_handles, strict=True)
            if matplotlib.colors.to_hex(line.get_color()) not in ("#595959", "#333333")}


def test_a_scheme_keeps_its_colour_and_every_baseline_is_drawn() -> None:
    """The overview and privacy_utility of one sweep give a scheme the same colour, its
    vocabulary's; each series has its own colour and marker (two that lie on each other
    stay apart), and the oracle the cells hold is drawn as a reference."""
    from analysis.reporting import overview
    from analysis.studies.colme import SCHEME_COLOURS

    summary = pd.concat([_sweep(agents=(6,), mechanism=m, weights=w).assign(
        cell_id=lambda s, m=m, w=w: s.cell_id + m + w)
        for m, w in itertools.product(("pm1", "pm2"), ("last", "mom"))])
    summary.attrs = _sweep(agents=(6,)).attrs
    first, second = overview(summary), privacy_utility(summary)
    schemes = {f"{m}, {w}": matplotlib.colors.to_hex(c)
               for (m, w), c in SCHEME_COLOURS.items() if w != "wMoM"}
    for grid in (first, second):
        entries = _legend_colours(grid)
        assert {label: colour for label, (colour, _) in entries.items()} == schemes
        assert len({marker for _, marker in entries.values()}) == 4
        assert "oracle" in [t.get_text() for t in grid.legend.texts]
    # Markers against t sit at staggered places: two curves on each other show both.
    starts = {line.get_markevery() for line in first.axes.flat[0].lines
              if line.get_marker() not in ("None", None, "")}
    assert len(starts) == 4
    assert first.figure.get_suptitle() == "Every colme cell: average mean squared error " \
                                          "against t"
    plt.close("all")


def test_each_kind_of_reference_has_its_own_line_style() -> None:
    """Baselines the vocabulary gives no style (decentralized's local and ideal means, its
    oracles) each get one of their own; a vocabulary's style goes to one kind only."""
    refs = pd.DataFrame({"method": ["local", "ideal", "c_colme_oracle", "b_colme_oracle",
                                    "c_colme"],
                         "source": ["simulated"] * 4 + ["bound"]})
    dashes = plot._reference_dashes(refs, ("c_colme",), ["decentralized"])
    assert len(dashes) == 5
    assert len({str(dash) for dash, _ in dashes.values()}) == 5
    # A bound of a drawn method keeps the shared vocabulary's style for bounds.
    assert dashes["", "bound"][0] == (0, (5, 1, 1, 1))


def test_bands_narrower_than_the_lines_are_said(grid_2x2: pd.DataFrame) -> None:
    narrow = grid_2x2.assign(mse_low=grid_2x2.mse * (1 - 1e-4),
                             mse_high=grid_2x2.mse * (1 + 1e-4))
    assert "Most bands are narrower than their curve's line: half a band is a median " \
           "0.0% of the value." in curves(narrow).caption
    wide = grid_2x2.assign(mse_low=grid_2x2.mse / 3, mse_high=grid_2x2.mse * 3)
    assert "narrower" not in curves(wide).caption
    plt.close("all")


def test_a_log_axis_only_where_the_values_span_decades() -> None:
    """Most values within a factor of ten (six beliefs near 0.5, one falling to 10⁻²⁰⁰):
    linear, which draws the fall at 0; values spread over decades: logarithmic."""
    beliefs = pd.Series([0.4, 0.5, 0.45, 0.6, 0.55, 0.5, 0.48, 0.1, 1e-50, 1e-200])
    assert not plot._spans_decades(beliefs)
    assert plot._spans_decades(pd.Series(np.logspace(-6, 0, 20)))
    assert not plot._spans_decades(pd.Series([0.0, -1.0]))
