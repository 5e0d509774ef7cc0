"""The analysis package: summaries, labels, curves, paper figures and the report."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.collections import PolyCollection

from analysis import plot
from analysis.figures import FIGURES
from analysis.labels import add_scheme, maths, name
from analysis.load import load, summaries, summarize
from analysis.plot import MissingData, SharedCurve, curves
from sweep.execute import simulate
from sweep.family import get_family
from sweep.results import cell_table

from .sweep_reference import Page, run_cli

T = np.array([1, 10, 100, 1000])
OPTIONS = {"n_agents": 200, "t_max": 30000, "class_means": "0.2,0.4,0.8", "sigma": 0.5,
           "distribution": "uniform", "epsilon": 1.0, "delta": 1e-6, "noise": "gaussian",
           "mechanism": "pm1", "weights": "last", "schedule": "rr", "variance": "known",
           "class_estimator": "test", "seed": 0}


def _cell(cell_id: str, replicates: int = 3, **options: object) -> pd.DataFrame:
    """Rows of one synthetic cell: MSE = scale / t per replicate, plus analytic baselines."""
    rows = []
    scale = 1.0 + 0.5 * (options.get("mechanism") == "pm2") + 0.25 * (
        options.get("schedule") == "rrr")
    for r in range(replicates):
        rows.append(pd.DataFrame({"method": "colme", "source": "simulated", "replicate": r,
                                  "t": T, "mse": scale * (1 + 0.1 * r) / T,
                                  "false_exclusion": 0.0, "false_inclusion": 0.1 * r}))
    for method, value in (("local", 2.0), ("ideal", 0.5)):
        rows.append(pd.DataFrame({"method": method, "source": "analytic", "replicate": pd.NA,
                                  "t": T, "mse": value / T}))
    frame = pd.concat(rows, ignore_index=True)
    frame["replicate"] = frame.replicate.astype("Int64")
    return frame.assign(**{**OPTIONS, **options}, cell_id=cell_id)


def _grid() -> pd.DataFrame:
    cells = [
        _cell(f"c{i}", mechanism=m, weights=w, schedule=s)
        for i, (m, w, s) in enumerate(itertools.product(("pm1", "pm2"), ("last", "mom"),
                                                         ("rr", "rrr")))
    ]
    return pd.concat(cells, ignore_index=True)


def test_summarize_gives_mean_and_standard_error_per_checkpoint() -> None:
    summary = summarize(_cell("a"))
    colme = summary[summary.method == "colme"].set_index("t")
    # Replicates hold 1.0, 1.1 and 1.2 times 1/t.
    np.testing.assert_allclose(colme.mse, 1.1 / T, rtol=1e-12)
    se = np.std([1.0, 1.1, 1.2], ddof=1) / np.sqrt(3) / T
    np.testing.assert_allclose(colme.mse_high - colme.mse, se, rtol=1e-9)
    assert (colme.n == 3).all()
    wide = summarize(_cell("a"), interval="ci95").set_index(["method", "t"]).loc["colme"]
    np.testing.assert_allclose(wide.mse_high - wide.mse, 1.959963984540054 * se, rtol=1e-9)
    local = summary[summary.method == "local"]
    assert (local.mse_low == local.mse).all() and (local.mse_high == local.mse).all()
    assert set(summary.mechanism) == {"pm1"}  # cell constants carried along
    # One metric asked for: the others are neither summarized nor taken for constants.
    alone = summarize(_cell("a"), metrics=["false_exclusion"])
    assert "false_exclusion_high" in alone and "mse" not in alone


def _write(directory: Path, frame: pd.DataFrame, marked: bool = True) -> None:
    """One file per cell, as the sweep writes it (roles marked, by the engine's own
    :func:`~sweep.results.cell_table`), or as files of before the marks (``marked=False``)."""
    directory.mkdir(parents=True, exist_ok=True)
    schema = get_family("colme").schema
    for cell_id, rows in frame.groupby("cell_id"):
        if marked:
            row_columns = [*schema.index_names, *schema.metrics]
            constants = rows.drop(columns=row_columns).iloc[0].to_dict()
            table = cell_table("colme", schema, rows[row_columns], constants)
        else:
            table = pa.Table.from_pandas(rows, preserve_index=False)
        pq.write_table(table, directory / f"{cell_id}.parquet")


@pytest.mark.parametrize("marked", [True, False])
def test_load_filters_while_reading_and_reads_cells_once(tmp_path: Path, marked: bool) -> None:
    _write(tmp_path / "a", _grid(), marked)
    _write(tmp_path / "b", _grid()[lambda f: f.cell_id == "c0"], marked)  # the same cell again
    both = load([tmp_path / "a", tmp_path / "b"])
    assert len(both) == len(_grid())
    pm2 = load(tmp_path / "a", columns=["t", "mse"], mechanism="pm2", schedule=["rr"])
    assert set(pm2.columns) == {"t", "mse", "cell_id"}
    assert set(pm2.cell_id) == {"c4", "c6"}
    streamed = summaries(tmp_path / "a").sort_values(["cell_id", "method", "t"])
    direct = summarize(_grid()).sort_values(["cell_id", "method", "t"])
    pd.testing.assert_frame_equal(streamed.reset_index(drop=True),
                                  direct[streamed.columns].reset_index(drop=True))
    with pytest.raises(KeyError, match="nonexistent"):
        load(tmp_path / "a", nonexistent=1)


def test_scheme_labels_use_the_papers_words() -> None:
    labels = add_scheme(summarize(_grid()))
    assert set(labels[labels.method == "colme"].scheme) == {
        f"{m}, {w}, {s}" for m in ("PM-I", "PM-II") for w in ("non-MoM", "MoM")
        for s in ("RR", "rRR")}
    assert set(labels[labels.method != "colme"].scheme) == {"local (analytic)",
                                                            "ideal (analytic)"}
    assert name("variance", "inferred") == "Sch-Var-2" and name("epsilon", 0.5) == "ε = 0.5"


def test_curves_draw_the_promised_series_axes_and_bands() -> None:
    summary = summarize(_grid())
    grid = curves(summary, style="schedule", col="mechanism")
    assert grid.axes.shape == (1, 2)
    assert [ax.get_title() for ax in grid.axes.flat] == ["PM-I", "PM-II"]
    for ax in grid.axes.flat:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        assert ax.get_xlabel() == "time t (samples per agent)"
        # 2 weights × 2 schedules in this panel, and the two baselines.
        labels = [line.get_label() for line in ax.lines]
        assert labels == ["non-MoM, RR", "non-MoM, rRR", "MoM, RR", "MoM, rRR", "local",
                          "ideal"]
        assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 4  # bands
    assert grid.axes[0, 0].get_ylabel() == "average mean squared error"
    # A colour per weights, a line style per schedule, then the baselines.
    legend = [t.get_text() for t in grid.legend.texts]
    assert legend == ["MoM", "non-MoM", "RR", "rRR", "local", "ideal"]
    first = grid.axes[0, 0].lines[2]  # the cell (pm1, mom, rr) is c2
    assert first.get_label() == "MoM, RR"
    np.testing.assert_allclose(first.get_ydata(), summary.loc[
        (summary.cell_id == "c2") & (summary.method == "colme"), "mse"].to_numpy())


def test_the_rows_of_simulate_are_summarized_and_drawn() -> None:
    frame = simulate("colme", replicates=4, seed=2, n_agents=5, t_max=60, checkpoints=4,
                     baselines=["local", "ideal"])
    summary = summarize(frame)
    colme = summary[summary.method == "colme"]
    assert len(colme) == 4 and colme.n.eq(4).all() and set(summary.cell_id) == {
        frame.cell_id.iloc[0]}
    final = frame[(frame.method == "colme") & (frame.t == 60)].mse
    assert colme.mse.iloc[-1] == pytest.approx(final.mean())
    grid = curves(summary)
    assert [line.get_label() for line in grid.axes[0, 0].lines] == [
        "Algorithm 1", "local", "ideal"]


def test_the_vocabularys_symbols_are_mathtext_in_figures_only() -> None:
    """The documents print the vocabulary's markup; figures render it, and leave column
    names (``n_agents``) as words."""
    assert [maths(t) for t in ("two thresholds, Θ̂^{thres,1} (Alg. 2)", "error |μ̂_t − μ|",
                               "individual test (β_IND)", "ε*_RR", "t_max = 300",
                               "n_agents=3", "graph.n_nodes", "rounds_k", "M_ts", "$x_1$")] == [
        r"two thresholds, $\mathregular{\widehat{Θ}^{thres,1}}$ (Alg. 2)",
        r"error |$\mathregular{\hat{μ}_{t}}$ − μ|", r"individual test ($\mathregular{β_{IND}}$)",
        r"$\mathregular{ε*_{RR}}$", r"$\mathregular{t_{max}}$ = 300", "n_agents=3",
        "graph.n_nodes", "rounds_k", "M_ts", "$x_1$"]
    summary = summarize(_grid())
    grid = curves(summary, ylabel="MSE at t = t_max")
    assert grid.axes.flat[0].get_ylabel() == r"MSE at t = $\mathregular{t_{max}}$"
    assert name("t_max", 300, "colme") == "t_max = 300"


def test_curves_refuse_more_panels_than_a_figure_can_show() -> None:
    """Cells over a numeric option take a panel each: past ``MAX_PANELS`` the figure says
    so rather than spend minutes laying out an unreadable grid."""
    cells = [_cell(f"e{i}", epsilon=0.1 * (i + 1)) for i in range(plot.MAX_PANELS + 1)]
    summary = summarize(pd.concat(cells, ignore_index=True))
    with pytest.raises(MissingData, match=rf"^{plot.MAX_PANELS + 1} panels \(epsilon\), "
                                          rf"more than {plot.MAX_PANELS}"):
        curves(summary)
    curves(summarize(pd.concat(cells[:plot.MAX_PANELS], ignore_index=True)))


def test_curves_refuse_ambiguous_series() -> None:
    summary = add_scheme(summarize(_grid()), parts=("mechanism",))
    with pytest.raises(SharedCurve, match="several cells share one curve: they differ in "
                       "weights, schedule") as error:
        curves(summary, hue="scheme")
    # A Python caller maps or averages; a command-line user can only pass other results.
    assert str(error.value).endswith("or average explicitly with aggregate=")
    assert plot.hint(error.value, command_line=True).endswith(
        "give it results in which weights and schedule take one value (a results_dir= per "
        "value)")


def test_paper_figure_draws_its_panel_or_says_what_is_missing() -> None:
    summary = summarize(_grid())
    grid = FIGURES["fig2_left"].draw(summary)
    legend = [t.get_text() for t in grid.legend.texts]
    assert legend == ["PM-I, MoM", "PM-I, non-MoM", "PM-II, MoM", "PM-II, non-MoM", "RR",
                      "rRR", "local", "ideal"]
    with pytest.raises(MissingData, match=r"needs cells at schedule = rr and rrr; the results "
                       "have none at schedule = rrr"):
        FIGURES["fig2_left"].draw(summary[summary.schedule == "rr"])
    with pytest.raises(MissingData, match="experiment=fig4"):
        FIGURES["fig4_left"].draw(summary)


@pytest.mark.slow  # a sweep, then the report drawn twice: half a minute
def test_report_on_a_quickstart_sweep(tmp_path: Path) -> None:
    sweep = run_cli(["-m", "+experiment=quickstart", "t_max=300", "n_agents=12",
                     "replicates=3", "checkpoints=8", "executor=serial", "results_dir=results"],
                    tmp_path)
    assert sweep.returncode == 0, sweep.stderr
    done = run_cli(["report", "results", "--out", "report"], tmp_path, module="analysis")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "report"
    assert "drew overview" in done.stdout and "drew privacy_utility" in done.stdout
    # What was not drawn is one line, by need; a quickstart is not at Fig. 2's sizes.
    [line] = [x for x in done.stdout.splitlines() if not x.startswith(("drew ", "report: "))]
    assert re.match(r"not drawn: \d+ of \d+ figures: 8 need the paper's sizes \(fig2_left, "
                    r"fig2_middle, fig2_right, …: --any-size draws them\); .* \(--verbose says "
                    r"why\)$", line), line
    verbose = run_cli(["report", "results", "--out", "report", "--verbose"], tmp_path,
                      module="analysis")
    reasons = [x for x in verbose.stdout.splitlines() if x.startswith("could not draw ")]
    assert len(reasons) == int(line.split()[2])
    # The command line's words: its flag, not the keyword of a Python call.
    assert any(x.startswith("could not draw fig2_left: ") and "with --any-size)" in x
               for x in reasons)
    assert not any("paper=False" in x or "aggregate=" in x for x in reasons)
    page = Page(out / "index.html")
    assert {"html", "table", "img"} <= set(page.tags)
    assert "overview.png" in page.images and "privacy_utility.png" in page.images
    page.check_images()


def _views_grid() -> pd.DataFrame:
    """Cells over ε and M for two mechanisms, with analytic ideal and oracle rows."""
    cells = []
    for i, (m, eps, agents) in enumerate(itertools.product(("pm1", "pm2"), (0.5, 1.0),
                                                             (30, 200))):
        cell = _cell(f"v{i}", mechanism=m, epsilon=eps, n_agents=agents)
        oracle = cell[cell.method == "ideal"].assign(method="oracle", mse=0.8 / T)
        cells += [cell, oracle]
    return pd.concat(cells, ignore_index=True)


def _data_lines(ax: object, *labels: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(x, y) of the lines labelled ``labels``, in drawing order."""
    return [(np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
            for line in ax.lines if line.get_label() in labels]


def test_views_draw_what_they_promise() -> None:
    from analysis.studies.colme.figures import (
        class_errors,
        privacy_utility,
        ratio,
        time_to_target,
    )

    summary = summarize(_views_grid())
    grid = privacy_utility(summary[summary.n_agents == 200])
    ax = grid.axes.flat[0]
    assert ax.get_xlabel() == "privacy level ε" and ax.get_xscale() == "log"
    # Every baseline the cells hold: the oracle of each cell's own scheme too.
    assert [t.get_text() for t in grid.legend.texts] == ["PM-I", "PM-II", "local", "ideal",
                                                         "oracle"]
    lines = _data_lines(ax, "PM-I", "PM-II")
    assert len(lines) == 2 and all(np.allclose(x, [0.5, 1.0]) for x, _ in lines)
    # MSE at t_max = 1000: 1.1/t for PM-I, 1.5 times that for PM-II, whatever ε.
    assert sorted(y[0] for _, y in lines) == pytest.approx([1.1e-3, 1.65e-3])
    [(_, ideal)] = _data_lines(ax, "ideal")
    np.testing.assert_allclose(ideal, 0.5 / 1000)
    [(_, oracle)] = _data_lines(ax, "oracle")
    np.testing.assert_allclose(oracle, 0.8 / 1000)

    grid = class_errors(summary)
    assert grid.axes.shape == (2, 2)  # ε by M
    legend = [t.get_text() for t in grid.legend.texts]
    assert legend == ["PM-I", "PM-II", "false-exclusion rate (type I)",
                      "false-inclusion rate (type II)"]

    grid = ratio(summary[(summary.epsilon == 1.0) & (summary.n_agents == 200)], "ideal")
    curves_ = [y for _, y in _data_lines(grid.axes.flat[0], "PM-I", "PM-II")]
    assert all(np.allclose(y, y[0]) for y in curves_)  # (c/t) / (0.5/t) is constant
    assert sorted(y[0] for y in curves_) == pytest.approx([1.1 / 0.5, 1.5 * 1.1 / 0.5])

    grid = time_to_target(summary[summary.epsilon == 1.0], target=0.0012)
    # Mean MSE 1.1/t (PM-I) first reaches 0.0012 at t = 1000; 1.65/t never (t <= 1000):
    # only PM-I's cells are drawn, as Algorithm 1.
    [(agents, times)] = _data_lines(grid.axes.flat[0], "Algorithm 1")
    np.testing.assert_allclose(agents, [30, 200])
    np.testing.assert_allclose(times, [1000, 1000])
    assert "Target: MSE ≤ 0.0012." in grid.caption and "2 cells never reach it" in grid.caption
    with pytest.raises(MissingData, match="two values of epsilon"):
        privacy_utility(summary[summary.epsilon == 1.0])


def test_damaged_results_are_never_read_silently(tmp_path: Path) -> None:
    _write(tmp_path / "a", _grid())
    target = tmp_path / "a" / "c3.parquet"
    target.write_bytes(target.read_bytes()[:-50])  # truncated
    with pytest.raises(OSError, match=r"damaged results file .* rerun the sweep"):
        summaries(tmp_path / "a")
    with pytest.raises(OSError, match="damaged results file"):
        load(tmp_path / "a")


def test_flipped_bytes_in_a_sweep_file_fail_its_page_checksums(tmp_path: Path) -> None:
    from sweep.plan import make_cell
    from sweep.store import ResultsStore

    store = ResultsStore(tmp_path)
    store.prepare()
    cell = make_cell({"n_agents": 3, "t_max": 10})
    frame = _cell(cell.cell_id)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    store.commit([(cell, table, {"family": "colme", "family_version": 1})])
    pd.testing.assert_frame_equal(load(tmp_path), frame)
    [path] = store.files
    data = bytearray(path.read_bytes())
    start = data.index(b"colme")  # the dictionary page of the method column
    data[start + 1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="damaged results file"):
        load(tmp_path)
