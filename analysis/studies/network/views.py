"""Figures of the network family (dp-distributed-estimation, Figs 3–7), and the readings
behind its numbers.

Both figures take a summary (:func:`analysis.load.summaries`) and use the rows of the
network family only, so they draw from a directory that also holds Private-ColME cells.
The two errors the paper plots are one quantity, ``error``, told apart by the line style.

The readings (the options declared as readings of the paper: Appendix B's noise
``rizk_scale``, Network DP's ``network_scale``, eq. (9)'s ``signal_floor``):
:func:`paper_reading` keeps the rows at the paper's; :func:`rizk_ratios` gives
Fig. 7's ratios to Rizk et al. under one reading, and :func:`node_zero_excess` the effect
of the authors' MVUE target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns

from sweep.network.api import NetworkConfig
from sweep.options import readings

from ...labels import axis, name
from ...plot import MissingData, curves, derived

#: The errors the figures show, in the paper's words, and the reference each one has:
#: the theorems bound the total error; the exact RMS cost of privacy is a cost of privacy.
METRICS = {"total_error": ("total error", "bound"), "cost_of_privacy": ("cost of privacy",
                                                                        "exact")}
#: The options that read the paper where it is ambiguous, at their defaults (the paper's
#: readings), as the family declares them.
READINGS = readings(NetworkConfig)


def paper_reading(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``summary`` whose readings are all the paper's (their defaults)."""
    keep = np.logical_and.reduce([summary[c].isna() if d is None else summary[c] == d
                                  for c, d in READINGS.items()])
    return summary[keep]


def last_round(summary: pd.DataFrame, metric: str, **match: Any) -> pd.DataFrame:
    """``metric`` at each cell's last round T, mean and standard error (the summaries'
    band is ± one SE), by ε: one simulated series per ε must match, else MissingData."""
    rows = summary[np.logical_and.reduce(
        [summary.source == "simulated", summary.t == summary.rounds]
        + [summary[c] == v for c, v in match.items()])]
    if rows.empty or rows.epsilon.duplicated().any():
        described = ", ".join(f"{c}={v}" for c, v in match.items())
        raise MissingData(f"{len(rows)} series at T for {described}: the document needs "
                          "one per ε (rerun the commands of docs/reproduction.md)")
    return pd.DataFrame({"mean": rows[metric].to_numpy(),
                         "se": (rows[f"{metric}_high"] - rows[f"{metric}_low"]).to_numpy() / 2},
                        index=rows.epsilon.to_numpy()).sort_index()


def quotient(top: pd.DataFrame, bottom: pd.DataFrame) -> pd.DataFrame:
    """top/bottom of two independent means with the delta method's standard error."""
    ratio = top["mean"] / bottom["mean"]
    se = ratio * np.hypot(top.se / top["mean"], bottom.se / bottom["mean"])
    return pd.DataFrame({"mean": ratio, "se": se})


def rizk_ratios(summary: pd.DataFrame, scenario: Mapping[str, Any], privacy: str,
                reading: str, start: str = "zero", network_scale: str = "paper"
                ) -> pd.DataFrame:
    """Fig. 7's ratio of Rizk et al.'s total error at T (MVUE task, Appendix B's noise read
    as ``reading``, start ``start``) to ours, the larger of MVUE and OL (Network DP's scale
    ``network_scale``), by ε, with its standard error; columns mean, se, rizk, ours."""
    rizk = last_round(summary, "total_error", method="rizk", privacy=privacy,
                      rizk_scale=reading, rizk_start=start, **scenario)
    ours = [last_round(summary, "total_error", method=m, privacy=privacy,
                       network_scale=network_scale, **scenario) for m in ("mvue", "ol")]
    larger = ours[0].where(ours[0]["mean"] >= ours[1]["mean"], ours[1])
    return quotient(rizk, larger).assign(rizk=rizk["mean"], ours=larger["mean"])


def node_zero_excess(n: int, rounds: int, sigma: float) -> float:
    """RMS added to ‖ν − target‖ when the MVUE target is node 0's time average
    c = (1/T) Σ_t ξ_{0,t} (the authors' code) instead of the mean m̂ of the n initial ξ:
    E‖ν − c1‖² = E‖ν − m̂1‖² + n·E(m̂ − c)², and n·E(m̂ − c)² = σ²(1 + (n − 2)/T), the two
    averages sharing ξ_{0,0} (tests/test_network.py checks it by Monte Carlo). Against
    the target 1·m the excess is n·Var(m̂) = σ²."""
    return sigma * math.sqrt(1.0 + (n - 2) / rounds)


#: The data sets of Sec. 5, told apart by their signals' log-mean.
DATA_SETS = {10.0: "US power grid", 1.67: "German households"}
#: The y axis of the errors: a Euclidean norm over the agents of estimates of E[log s].
ERROR_UNITS = "(norm over agents, units of log s)"


def data_set(rows: pd.DataFrame) -> pd.Series:
    """Each row's panel title: the data set, and what in it is a stand-in (the German
    households' signals are synthetic draws of the fitted log-normal, on the paper's own
    random geometric graph; the power grid's graph is a random stand-in unless its edge
    list is given)."""
    def title(mean: float, kind: str) -> str:
        graph = name("graph.kind", kind, "network")
        data = DATA_SETS.get(round(float(mean), 2))
        if data == "German households":
            return ("German households\n(synthetic signals, geometric graph)"
                    if kind == "geometric" else
                    f"German households\n(synthetic signals, {graph} graph)")
        if data == "US power grid":
            return ("US power grid\n(its edge list)" if kind == "edgelist" else
                    f"US power grid\n(stand-in graph: {graph})")
        return f"{graph} graph"

    return pd.Series([title(m, k) for m, k in zip(rows.signal_mean, rows["graph.kind"],
                                                   strict=True)], index=rows.index)


def _network(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    if "family" not in summary or not (summary.family == "network").any():
        raise MissingData(f"{view}: needs rows of the network family (family=network)")
    rows = summary[summary.family == "network"]
    if "graph.kind" not in rows:
        raise MissingData(f"{view}: the network cells were written by version 1 of the "
                          "family (columns graph, n_nodes); rerun their sweep")
    return rows


def long_errors(rows: pd.DataFrame, metrics: Mapping[str, tuple[str, str]]) -> pd.DataFrame:
    """One row per error kind (``metric``: the label of ``metrics``' entry), its value in
    ``error`` with its band; a reference row keeps only the error it refers to (the
    entry's source)."""
    bands = [f"{m}{s}" for m in {**METRICS, **metrics} for s in ("", "_low", "_high")]
    parts = []
    for metric, (label, source) in metrics.items():
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
    # The paper's figure: its readings only (fig7 also holds the others).
    rows = paper_reading(_network(summary, "network_error_vs_epsilon"))
    if rows[rows.source == "simulated"].epsilon.nunique() < 2:
        raise MissingData("network_error_vs_epsilon: needs network cells at two values of "
                          "epsilon or more (run +experiment=fig7)")
    # The paper's Fig. 7 has no reference curves.
    long = long_errors(rows[rows.source == "simulated"],
                       {m: METRICS[m] for m in ("cost_of_privacy", "total_error")})
    long["panel"] = data_set(long)
    long = long.sort_values(["signal_mean", "epsilon"], kind="stable")
    return curves(long, x="epsilon", y="error", source="simulated", baselines=(),
                  hue="method", style="metric", col="privacy", row="panel",
                  aggregate=aggregate, sharey=False,
                  ylabel=f"error at t = T\n{ERROR_UNITS}",
                  title="Cost of privacy and total error at the last round T against ε",
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
    long = long_errors(rows, {m: METRICS[m] for m in ("total_error", "cost_of_privacy")})
    long["panel"] = data_set(long) + "\nε = " + long.epsilon.map("{:g}".format)
    long = long.sort_values(["signal_mean", "epsilon"], kind="stable")
    grid = curves(long, y="error", source="simulated", baselines=(), hue="method",
                  style="metric", col="privacy", row="panel", aggregate=aggregate,
                  sharey="row", ylabel=f"error\n{ERROR_UNITS}",
                  title="Total error and cost of privacy against the round t")
    for ax in grid.axes[-1]:
        ax.set_xlabel(axis("t").replace("time", "round"))
    return grid


__all__ = [
    "DATA_SETS",
    "ERROR_UNITS",
    "READINGS",
    "data_set",
    "error_vs_epsilon",
    "error_vs_round",
    "last_round",
    "node_zero_excess",
    "paper_reading",
    "quotient",
    "rizk_ratios",
]
