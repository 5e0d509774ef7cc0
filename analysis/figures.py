"""The papers' figures (Private-ColME, Sec. VII; networks, Figs 3–7) and further views.

Each figure is a :class:`Figure`: the rows it needs (``load`` filters, matching the
``+experiment=`` preset that produces them) and how to draw them. ``draw(summary)``
raises :class:`~analysis.plot.MissingData` with the reason when the results lack them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import seaborn as sns

from .labels import add_scheme, axis, name
from .network import error_vs_epsilon, error_vs_round
from .plot import MissingData, curves

PAPER = {"class_means": "0.2,0.4,0.8", "sigma": 0.5, "distribution": "uniform",
         "epsilon": 1.0, "delta": 1e-6, "t_max": 30000}


@dataclass(frozen=True)
class Figure:
    """A figure: what it shows, the rows it reads, and how it draws them.

    ``filters`` select the figure's series; ``parameters`` are the paper's settings of the
    scenario, also required unless ``draw(..., paper=False)`` (for the same figure from a
    smaller run, e.g. in tests and notebooks).
    """

    name: str
    caption: str
    filters: dict[str, Any]
    draw_summary: Callable[[pd.DataFrame], sns.FacetGrid]
    requires: dict[str, set[Any]] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=lambda: dict(PAPER))

    @property
    def preset(self) -> str:
        """The sweep that produces the figure's rows (the caption's first part)."""
        return self.caption.split(";")[0]

    def draw(self, summary: pd.DataFrame, paper: bool = True) -> sns.FacetGrid:
        """Draw from a summary that may hold more than this figure needs."""
        rows = summary
        wanted = {**self.parameters, **self.filters} if paper else self.filters
        for column, value in wanted.items():
            if column not in rows:
                raise MissingData(f"{self.name}: the results have no column {column!r}")
            allowed = value if isinstance(value, list | set | tuple) else [value]
            # None stands for "does not apply" (a missing value in the results).
            rows = rows[rows[column].isin(allowed)
                        | (rows[column].isna() if None in allowed else False)]
        for column, values in self.requires.items():
            present = set(rows[column]) if column in rows else set()
            if not values <= present:
                missing = ", ".join(name(column, v) for v in sorted(values - present, key=str))
                raise MissingData(f"{self.name}: no rows with {column} = {missing} "
                                  f"(run {self.preset})")
        if rows.empty:
            raise MissingData(f"{self.name}: no matching rows (run {self.preset})")
        return self.draw_summary(rows)


def _fig2_left(rows: pd.DataFrame) -> sns.FacetGrid:
    rows = add_scheme(rows, parts=("mechanism", "weights"))
    return curves(rows, style="schedule", title="Fig. 2 (left): M = 200, simulation")


def _oracle(title: str) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        rows = add_scheme(rows, parts=("noise", "mechanism", "weights"))
        return curves(rows, series=("oracle",), source="analytic", title=title)
    return draw


def _fig3(xlim: tuple[float, float] | None) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        # The grid is a product; the paper shows MoM with known variance only.
        rows = rows[(rows.weights == "last") | (rows.variance == "known")]
        rows = add_scheme(rows, parts=("weights", "variance"))
        return curves(rows, xlim=xlim, title="Fig. 3: PM-I, RR, M = 200"
                      + ("" if xlim is None else f", t ≤ {xlim[1]:g}"))
    return draw


def _fig4_left(rows: pd.DataFrame) -> sns.FacetGrid:
    rows = add_scheme(rows, parts=("noise", "mechanism"))
    return curves(rows, title="Fig. 4 (left): M = 15, non-MoM, RR")


# n_agents selects as much as the schemes do: cells of other figures share the rest.
FIG2 = {"n_agents": 200, "noise": "gaussian", "variance": "known", "class_estimator": "test"}
FIG2_ORACLE = {"noise": "gaussian", "variance": "known", "schedule": "rr"}
FIG3 = {"n_agents": 200, "noise": "gaussian", "mechanism": "pm1", "schedule": "rr",
        "class_estimator": "test"}
FIG4 = {"n_agents": 15, "weights": "last", "schedule": "rr", "variance": "known"}
NETWORK_PAPER = {"rounds": 100, "delta": 0.01, "noise": "laplace", "signal": "lognormal",
                 "graph.n_nodes": [969, 4941]}


FIGURES: dict[str, Figure] = {f.name: f for f in [
    Figure("fig2_left", "+experiment=fig2_left; PM-I and PM-II, MoM and non-MoM, RR and rRR",
           {**FIG2, "weights": ["last", "mom"]}, _fig2_left,
           {"mechanism": {"pm1", "pm2"}, "schedule": {"rr", "rrr"}}),
    Figure("fig2_middle", "+experiment=fig2_oracle; analytic oracle (Prop. 3), M = 200",
           {**FIG2_ORACLE, "n_agents": 200}, _oracle("Fig. 2 (middle): oracle, M = 200"),
           {"mechanism": {"pm1", "pm2"}}),
    Figure("fig2_right", "+experiment=fig2_oracle; analytic oracle (Prop. 3), M = 30",
           {**FIG2_ORACLE, "n_agents": 30}, _oracle("Fig. 2 (right): oracle, M = 30"),
           {"mechanism": {"pm1", "pm2"}}),
    Figure("fig3_left", "+experiment=fig3; known variance vs Sch-Var-1, Sch-Var-2",
           FIG3, _fig3(None), {"variance": {"known", "shared", "inferred", "inferred_bayes"}}),
    Figure("fig3_right", "+experiment=fig3; the same up to t = 2000",
           FIG3, _fig3((1, 2000)),
           {"variance": {"known", "shared", "inferred", "inferred_bayes"}}),
    Figure("fig4_left", "+experiment=fig4; Gaussian vs Laplace noise, M = 15",
           {**FIG4, "class_estimator": "test"}, _fig4_left, {"noise": {"gaussian", "laplace"}}),
    Figure("fig4_right", "+experiment=fig4; analytic oracle with Laplace noise, M = 15",
           {**FIG4, "noise": "laplace"}, _oracle("Fig. 4 (right): oracle, Laplace, M = 15"),
           {"mechanism": {"pm1", "pm2"}}),
    Figure("fig7", "+experiment=fig7; networks: error against ε, vs Rizk et al.",
           {"family": "network", "method": ["mvue", "ol", "rizk", "rizk_ol"],
            "epsilon": [0.125, 0.25, 0.5, 1.0, 2.0, 4.0], "rizk_start": [None, "zero"]},
           error_vs_epsilon, {"method": {"mvue", "ol", "rizk"},
                              "privacy": {"signal", "network"}}, NETWORK_PAPER),
    Figure("sample_paths", "+experiment=sample_paths; networks: error against t (Figs 3–6)",
           {"family": "network", "method": ["mvue", "ol"], "epsilon": [1.0, 10.0]},
           error_vs_round,
           {"privacy": {"signal", "network"}}, NETWORK_PAPER),
]}


def _algorithm(summary: pd.DataFrame) -> pd.DataFrame:
    rows = summary[(summary.method == "colme") & (summary.source == "simulated")]
    if rows.empty:
        raise MissingData("no simulated rows of Algorithm 1")
    return add_scheme(rows)


def privacy_utility(summary: pd.DataFrame, at: str = "final") -> sns.FacetGrid:
    """MSE at the last checkpoint against ε, one line per scheme: the trade-off."""
    rows = _algorithm(summary)
    if rows.epsilon.nunique() < 2:
        raise MissingData("privacy_utility: needs a sweep over at least two values of epsilon")
    rows = rows[rows.t == rows.groupby("cell_id").t.transform("max")]
    others = [c for c in ("n_agents", "t_max") if rows[c].nunique() > 1]
    grid = sns.relplot(rows, x="epsilon", y="mse", hue="scheme", col=others[0] if others
                       else None, kind="line", marker="o", errorbar=None, height=4,
                       aspect=1.3, palette="colorblind")
    grid.set(xscale="log", yscale="log")
    grid.set_axis_labels(axis("epsilon"), "MSE at t = t_max")
    return grid


def time_to_target(summary: pd.DataFrame, target: float | None = None) -> sns.FacetGrid:
    """First t at which the mean MSE reaches ``target``, against M, per scheme.

    The default target is ten times the smallest final MSE of Algorithm 1 in the sweep.
    """
    rows = _algorithm(summary)
    if rows.n_agents.nunique() < 2:
        raise MissingData("time_to_target: needs a sweep over at least two values of n_agents")
    if target is None:
        final = rows[rows.t == rows.groupby("cell_id").t.transform("max")]
        target = 10 * float(final.mse.min())
    hits = rows[rows.mse <= target].groupby("cell_id").t.min().rename("t_target")
    cells = rows.drop_duplicates("cell_id").set_index("cell_id").join(hits)
    grid = sns.relplot(cells.reset_index(), x="n_agents", y="t_target", hue="scheme",
                       kind="line", marker="o", errorbar=None, height=4, aspect=1.3,
                       palette="colorblind")
    grid.set(xscale="log", yscale="log")
    grid.set_axis_labels(axis("n_agents"), f"first t with MSE ≤ {target:.2g}")
    return grid


def class_errors(summary: pd.DataFrame) -> sns.FacetGrid:
    """False-exclusion and false-inclusion rates of the class estimates against t."""
    rows = _algorithm(summary)
    long = rows.melt(id_vars=["t", "scheme", "cell_id"],
                     value_vars=["false_exclusion", "false_inclusion"], var_name="error",
                     value_name="rate")
    long["error"] = long.error.map(axis)
    grid = sns.relplot(long, x="t", y="rate", hue="scheme", col="error", kind="line",
                       errorbar=None, height=4, aspect=1.1, palette="colorblind")
    grid.set(xscale="log")
    grid.set_titles(col_template="{col_name}")
    grid.set_axis_labels(axis("t"), "rate over ordered pairs")
    return grid


def ratio(summary: pd.DataFrame, reference: str = "ideal") -> sns.FacetGrid:
    """MSE of Algorithm 1 divided by the reference's (``ideal`` or ``oracle``) at each t.

    The reference is the analytic curve of the same cell (for ``oracle``, Prop. 3 for the
    cell's own scheme), so the ratio tends to 1 where the scheme attains it.
    """
    rows = _algorithm(summary)
    references = summary[(summary.method == reference) & (summary.source == "analytic")]
    if references.empty:
        raise MissingData(f"ratio: needs the analytic {reference} baseline "
                          f"(baselines=[...,{reference}])")
    merged = rows.merge(references[["cell_id", "t", "mse"]], on=["cell_id", "t"],
                        suffixes=("", "_reference"))
    if merged.empty:
        raise MissingData(f"ratio: no cell has both Algorithm 1 and the analytic {reference}")
    merged["ratio"] = merged.mse / merged.mse_reference
    grid = sns.relplot(merged, x="t", y="ratio", hue="scheme", kind="line", errorbar=None,
                       height=4, aspect=1.3, palette="colorblind")
    grid.set(xscale="log", yscale="log")
    for ax in grid.axes.flat:
        ax.axhline(1.0, color="0.3", lw=0.8)
    grid.set_axis_labels(axis("t"), f"MSE / MSE of the {reference} (analytic)")
    return grid


VIEWS: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
    "privacy_utility": privacy_utility,
    "time_to_target": time_to_target,
    "class_errors": class_errors,
    "ratio_to_ideal": ratio,
    "ratio_to_oracle": lambda summary: ratio(summary, "oracle"),
    "network_error_vs_epsilon": error_vs_epsilon,
    "network_error_vs_round": error_vs_round,
}
__all__ = ["FIGURES", "VIEWS", "Figure", "class_errors", "privacy_utility", "ratio",
           "time_to_target"]
