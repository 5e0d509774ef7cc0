"""The network paper's figures (Figs 3–7 and Appendix C), as paper figures: the rows each
needs and how it draws them (:class:`~analysis.figures.Figure`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import seaborn as sns

from ...figures import Figure
from .appendix_c import budgets_vs_epsilon, dynamic_vs_round
from .views import error_vs_epsilon, error_vs_round

#: The paper's setting (Sec. 5), required of a paper figure unless drawn at any size.
PAPER = {"rounds": 100, "delta": 0.01, "noise": "laplace", "signal": "lognormal",
         "graph.n_nodes": [969, 4941]}
#: Options that set a run's size.
SIZES = ("graph.n_nodes", "rounds")


FIGURES: dict[str, Figure] = {f.name: f for f in [
    Figure("fig7", "+experiment=fig7; Fig. 7: networks, error against ε, vs Rizk et al.",
           {"family": "network", "method": ["mvue", "ol", "rizk", "rizk_ol"],
            "epsilon": [0.125, 0.25, 0.5, 1.0, 2.0, 4.0], "rizk_start": [None, "zero"]},
           error_vs_epsilon, {"method": {"mvue", "ol", "rizk"},
                              "privacy": {"signal", "network"}}, PAPER, SIZES),
    Figure("sample_paths", "+experiment=sample_paths; Figs 3–6: networks, error against t",
           {"family": "network", "method": ["mvue", "ol"], "epsilon": [1.0, 10.0]},
           error_vs_round,
           {"privacy": {"signal", "network"}}, PAPER, SIZES),
    Figure("appendix_c_budgets", "+experiment=appendix_c_budgets; App. C.3: heterogeneous "
           "budgets, error against ε", {"family": "network", "method": ["mvue", "ol"]},
           budgets_vs_epsilon, {"budgets": {"homogeneous", "centralized", "waterfilling"}},
           PAPER, SIZES),
    Figure("appendix_c_dynamic", "+experiment=appendix_c_dynamic; App. C.1: time-varying "
           "graphs, error against t", {"family": "network", "method": ["mvue", "ol"]},
           dynamic_vs_round, {"method": {"mvue", "ol"}}, PAPER, SIZES),
]}


VIEWS: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
    "network_error_vs_epsilon": error_vs_epsilon,
    "network_error_vs_round": error_vs_round,
}
