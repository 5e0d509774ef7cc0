"""Figures of the network paper's Appendix C: heterogeneous budgets (C.3) and time-varying
graphs (C.1), from the presets ``appendix_c_budgets`` and ``appendix_c_dynamic``.
"""

from __future__ import annotations

import pandas as pd
import seaborn as sns

from ...plot import MissingData, curves, derived
from .views import ERROR_UNITS, _network, data_set, long_errors

#: The budget rules in the document's words (:mod:`sweep.network.budgets`).
BUDGET_NAMES = {"homogeneous": "homogeneous ε", "centralized": "Prop. C.3 (as printed)",
                "waterfilling": "optimum of (C.6)"}
#: The errors of the time-varying figure: the total, and the non-private run's (Props
#: C.1, C.2 are about its convergence).
DYNAMIC_METRICS = {"total_error": ("total error", "simulated"),
                   "cost_of_decentralization": ("non-private (CoD)", "simulated")}


#: How a round's graph is drawn, in the document's words (the vocabulary's names of
#: ``edge_keep``, keyed by :func:`graph_label`).
GRAPH_NAMES = {"static MH": "static graph, MH weights",
               "q=1": "q = 1: static graph, weights (C.3)",
               "q=0.5": "q = 0.5, weights (C.3)", "q=0.2": "q = 0.2, weights (C.3)"}


def graph_label(edge_keep: float) -> str:
    """How a round's graph is drawn: static with the MH weights, or edges kept w.p. q."""
    return "static MH" if pd.isna(edge_keep) else f"q={edge_keep:g}"


def _title(rows: pd.DataFrame, what: str) -> str:
    """A figure's title: what it shows, on which data set(s)."""
    sets = " and ".join(sorted(set(data_set(rows).str.replace("\n", " ", regex=False))))
    return f"{what}, {sets}"


def budgets_vs_epsilon(summary: pd.DataFrame) -> sns.FacetGrid:
    """Total error at T against the average budget ε per budget rule (Supp. Fig. 3), a
    panel per algorithm and protection, with error bars (± 1 SE)."""
    rows = _network(summary, "appendix_c_budgets")
    rows = rows[rows.source == "simulated"]
    if rows.epsilon.nunique() < 2 or rows.budgets.nunique() < 2:
        raise MissingData("appendix_c_budgets: needs cells at two values of epsilon and two "
                          "budget rules (run +experiment=appendix_c_budgets)")
    title = _title(rows, "Appendix C.3: heterogeneous budgets")
    rows = derived(rows, rows, "total_error")
    return curves(rows, x="epsilon", y="total_error", source="simulated", baselines=(),
                  hue="budgets", col="method", row="privacy", sharey=False,
                  ylabel=f"total error at t = T\n{ERROR_UNITS}", title=title,
                  note="Budgets capped at ε_i,max = 10ε; each point is a cell's error at T.")


def dynamic_vs_round(summary: pd.DataFrame) -> sns.FacetGrid:
    """Total error and the non-private run's error (cost of decentralization) against t,
    static graph against time-varying ones (App. C.1), a panel per algorithm and
    protection."""
    rows = _network(summary, "appendix_c_dynamic")
    rows = rows[rows.source == "simulated"]
    if rows.edge_keep.notna().sum() == 0:
        raise MissingData("appendix_c_dynamic: needs cells with edge_keep set (run "
                          "+experiment=appendix_c_dynamic)")
    long = long_errors(rows, DYNAMIC_METRICS)
    long["edge_keep"] = long.edge_keep.map(graph_label)
    grid = curves(long, y="error", source="simulated", baselines=(), hue="edge_keep",
                  style="metric", col="method", row="privacy", sharey=False,
                  ylabel=f"error\n{ERROR_UNITS}",
                  title=_title(rows, "Appendix C.1: time-varying graphs"),
                  note="Each round every edge is present with probability q.")
    for ax in grid.axes[-1]:
        ax.set_xlabel("round t")
    return grid


__all__ = ["BUDGET_NAMES", "GRAPH_NAMES", "budgets_vs_epsilon", "dynamic_vs_round",
           "graph_label"]
