"""Figures of the network family (dp-distributed-estimation, Figs 3–7).

Both take a summary (:func:`analysis.load.summaries`) and use the rows of the network
family only, so they draw from a directory that also holds Private-ColME cells. The two
errors the paper plots are one quantity, ``error``, told apart by the line style.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import seaborn as sns

from .labels import axis
from .plot import MissingData, curves, derived

#: The errors the figures show, in the paper's words, and the reference each one has:
#: the theorems bound the total error; the exact RMS cost of privacy is a cost of privacy.
METRICS = {"total_error": ("total error", "bound"), "cost_of_privacy": ("cost of privacy",
                                                                        "exact")}
#: What tells a network series apart in these figures: the algorithm and its protection.
PARTS = ("method", "privacy")


def _network(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    if "family" not in summary or not (summary.family == "network").any():
        raise MissingData(f"{view}: needs rows of the network family (family=network)")
    rows = summary[summary.family == "network"]
    if "graph.kind" not in rows:
        raise MissingData(f"{view}: the network cells were written by version 1 of the "
                          "family (columns graph, n_nodes); rerun their sweep")
    return rows


def _long(rows: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """One row per error kind (``metric``), its value in ``error`` with its band; a
    reference row keeps only the error it refers to."""
    bands = [f"{m}{s}" for m in METRICS for s in ("", "_low", "_high")]
    parts = []
    for metric in metrics:
        label, source = METRICS[metric]
        part = rows[rows.source.isin(["simulated", source])]
        parts.append(part.drop(columns=[c for c in bands if c in part]).assign(
            metric=label, error=part[metric], error_low=part[f"{metric}_low"],
            error_high=part[f"{metric}_high"]))
    return derived(pd.concat(parts, ignore_index=True).dropna(subset=["error"]), rows, "error")


def error_vs_epsilon(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()
                     ) -> sns.FacetGrid:
    """Error at the last round against ε, per algorithm and protection (Fig. 7).

    Solid lines: cost of privacy; dashed: total error, as in the paper; a panel per
    scenario (graph and size), each with its own y axis.
    """
    rows = _network(summary, "network_error_vs_epsilon")
    if rows[rows.source == "simulated"].epsilon.nunique() < 2:
        raise MissingData("network_error_vs_epsilon: needs network cells at two values of "
                          "epsilon or more (run +experiment=fig7)")
    # The paper's Fig. 7 has no reference curves.
    long = _long(rows[rows.source == "simulated"], ("cost_of_privacy", "total_error"))
    return curves(long, x="epsilon", y="error", source="simulated", baselines=(),
                  hue="scheme", style="metric", parts=PARTS, aggregate=aggregate,
                  sharey=False, ylabel="error at t = T (Euclidean norm)",
                  note="Each point is a cell's error at its last round T.")


def error_vs_round(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()
                   ) -> sns.FacetGrid:
    """Total error and cost of privacy against the round t (Figs 3–6), with references.

    Panels: protection (columns) by scenario and ε (rows); each algorithm's Theorem 3.1 /
    4.1 / 4.2 bound on the total error (dash-dotted) and exact root-mean-square cost of
    privacy (dotted), where the results hold them, in its colour.
    """
    rows = _network(summary, "network_error_vs_round")
    if (rows.source != "simulated").all():
        raise MissingData("network_error_vs_round: needs simulated network rows "
                          "(replicates > 0)")
    long = _long(rows, ("total_error", "cost_of_privacy"))
    grid = curves(long, y="error", source="simulated", baselines=(), hue="scheme",
                  style="metric", col="privacy", parts=("method",), aggregate=aggregate,
                  sharey="row", ylabel="error (Euclidean norm)")
    for ax in grid.axes[-1]:
        ax.set_xlabel(axis("t").replace("time", "round"))
    return grid


__all__ = ["error_vs_epsilon", "error_vs_round"]
