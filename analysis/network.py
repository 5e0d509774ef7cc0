"""Figures of the network family (dp-distributed-estimation, Figs 3–7).

Both take a summary (:func:`analysis.load.summaries`) and use the rows of the network
family only, so they draw from a directory that also holds Private-ColME cells.
"""

from __future__ import annotations

import pandas as pd
import seaborn as sns

from .labels import axis, name
from .plot import MissingData

#: What the figures show of each cell: the algorithm under its protection.
VARIANT = ("method", "privacy")
METRIC_NAMES = {"total_error": "total error", "cost_of_privacy": "cost of privacy"}


def _network(summary: pd.DataFrame) -> pd.DataFrame:
    if "family" not in summary or not (summary.family == "network").any():
        raise MissingData("no rows of the network family (family=network)")
    rows = summary[summary.family == "network"].copy()
    if "graph.kind" not in rows:
        raise MissingData("the network cells were written by version 1 of the family "
                          "(columns graph, n_nodes); rerun their sweep")
    rows["variant"] = [f"{name('method', m)}, {name('privacy', p)}"
                       for m, p in zip(rows.method, rows.privacy, strict=True)]
    rows["scenario"] = [f"{name('graph.kind', g)}, n = {n:g}"
                        for g, n in zip(rows["graph.kind"], rows["graph.n_nodes"],
                                        strict=True)]
    return rows


def _long(rows: pd.DataFrame, metrics: tuple[str, ...]) -> pd.DataFrame:
    long = rows.melt(id_vars=[c for c in rows.columns if c not in metrics],
                     value_vars=list(metrics), var_name="metric", value_name="error")
    long["metric"] = long.metric.map(METRIC_NAMES)
    return long.dropna(subset=["error"])


def error_vs_epsilon(summary: pd.DataFrame) -> sns.FacetGrid:
    """Error at the last round against ε, per algorithm and protection (Fig. 7).

    Solid lines: cost of privacy; dashed: total error, as in the paper; one panel per
    scenario (graph and size).
    """
    rows = _network(summary)
    rows = rows[(rows.source == "simulated") & (rows.t == rows.rounds)]
    if rows.epsilon.nunique() < 2:
        raise MissingData("error_vs_epsilon: needs network cells at two values of epsilon "
                          "or more (run +experiment=fig7)")
    long = _long(rows, ("cost_of_privacy", "total_error"))
    grid = sns.relplot(long, x="epsilon", y="error", hue="variant", style="metric",
                       style_order=list(METRIC_NAMES.values())[::-1], col="scenario",
                       kind="line", marker="o", errorbar=None, height=4, aspect=1.2,
                       palette="colorblind", facet_kws={"sharey": False})
    grid.set(xscale="log", yscale="log")
    values = sorted(long.epsilon.unique())
    for ax in grid.axes.flat:
        ax.set_xticks(values, [f"{v:g}" for v in values], minor=False)
        ax.minorticks_off()
    grid.set_titles(col_template="{col_name}")
    grid.set_axis_labels(axis("epsilon"), "error at t = T (Euclidean norm)")
    return grid


def error_vs_round(summary: pd.DataFrame) -> sns.FacetGrid:
    """Total error and cost of privacy against the round t (Figs 3–6), with references.

    Panels: protection (columns) by scenario and ε (rows); the Theorem 3.1 / 4.1 / 4.2
    bounds (grey, dash-dotted) and the exact root-mean-square cost of privacy (grey,
    dotted) of each algorithm where the results hold them.
    """
    rows = _network(summary)
    rows["panel"] = [f"{s}, {name('epsilon', e)}"
                     for s, e in zip(rows.scenario, rows.epsilon, strict=True)]
    simulated = rows[rows.source == "simulated"]
    if simulated.empty:
        raise MissingData("error_vs_round: no simulated network rows")
    long = _long(simulated, ("total_error", "cost_of_privacy"))
    grid = sns.relplot(long, x="t", y="error", hue="method", style="metric",
                       col="privacy", row="panel", kind="line", errorbar=None, height=3.2,
                       aspect=1.3, palette="colorblind", facet_kws={"sharey": "row"})
    references = rows[rows.source.isin(["bound", "exact"])]
    for (panel, privacy), ax in grid.axes_dict.items():
        part = references[(references.panel == panel) & (references.privacy == privacy)]
        for (method, source), line in part.groupby(["method", "source"]):
            metric = "total_error" if source == "bound" else "cost_of_privacy"
            ax.plot(line.t, line[metric], color="0.5", lw=1.0,
                    ls="-." if source == "bound" else ":",
                    label=f"{name('method', method)}: {name('source', source)}")
    grid.set(xscale="log", yscale="log")
    grid.set_titles(row_template="{row_name}", col_template="{col_name}")
    grid.set_axis_labels(axis("t").replace("time", "round"), "error (Euclidean norm)")
    return grid


__all__ = ["error_vs_epsilon", "error_vs_round"]
