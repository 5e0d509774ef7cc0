"""The empirical study of continual mean estimation under user-level DP (George, Ramesh,
Singh & Tyagi), the family ``continual``: its vocabulary, its views, and its section of
``docs/continual.md``.

The statistics across replicates and the figures are in :mod:`.figures`, the numbers and
verdicts of the section in :mod:`.document`. Every view reads the family's rows, replicate
by replicate, not a summary: the (1 − δ) quantiles need the replicates.

``python -m analysis continual ROOT --out docs`` renders the document from the presets'
results under ``ROOT`` (``ROOT/continual_quickstart``, ``ROOT/continual_orders``,
``ROOT/continual_scaling``, ``ROOT/continual_epsilon``) and draws its figures into
``OUT/figures/continual_*.png`` (:mod:`analysis.document`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from analysis.study import Preset, Section, Study, View
from analysis.vocabulary import Vocabulary

from .document import values
from .figures import (
    activation_figure,
    error_vs_option,
    error_vs_time,
    noise_figure,
    orders_figure,
    slope_figure,
)

if TYPE_CHECKING:
    import pandas as pd
    import seaborn as sns

VOCABULARY = Vocabulary(
    names={
        "method": {"non_private": "running mean", "naive_laplace": "per-step Laplace",
                   "alg2": "Algorithm 2", "alg3": "Algorithm 3", "alg4": "Algorithm 4",
                   "alg5": "Algorithm 5", "alg6": "Algorithm 6",
                   "lower_bound": "lower bound (Sec. 5)"},
        "source": {"bound": "bound", "lower_bound": "lower bound (Sec. 5)"},
        "order.kind": {"contiguous": "contiguous", "round_robin": "round robin",
                       "uniform": "uniform", "zipf": "Zipf", "one_heavy": "one heavy user",
                       "staggered": "staggered", "few_heavy": "few heavy users"},
        "statistic": {"mean": "mean", "quantile": "1 − δ quantile"},
    },
    axes={"t": "time t (samples received)", "abs_error": "error |μ̂_t − μ|",
          "error": "signed error μ̂_t − μ (coordinate 0)",
          "max_count": "largest user count M_t", "max_samples": "samples per user m = M_T",
          "n_users_seen": "users seen", "samples_used": "samples used by μ̂_t",
          "clipped": "elements clipped by the projection", "active_levels":
          "active binary mechanisms (Alg. 6)", "diversity": "diversity condition (11) holds",
          "within_bound": "error within the theorem's bound", "level": "level ℓ"},
    # δ is the paper's failure probability (the option failure_probability; the
    # platform's delta is a DP δ, advanced composition's δ̃ here).
    symbols={"n_users": "n", "max_samples": "m", "t_max": "T", "mu": "μ",
             "dimension": "d", "failure_probability": "δ"},
    curves=("non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6"),
    scheme=("method", "composition", "level_count"),
    facets=("epsilon", "order.kind", "max_samples", "n_users", "t_max",
            "failure_probability", "dimension"),
    # A method's bound; and Sec. 5's lower bound where the study files it under the
    # cell's method (the results give it as method "lower_bound", source "bound").
    references=("bound", "lower_bound"),
    metric="abs_error",
    # A method's colour in every figure of the family, seven distinct hues (blue, purple,
    # magenta, green, vermillion for Algorithms 2–6; brown and grey for the strawmen).
    colours={"non_private": "#949494", "naive_laplace": "#a6761d", "alg2": "#0173b2",
             "alg3": "#6a3d9a", "alg4": "#cc78bc", "alg5": "#029e73", "alg6": "#d55e00"},
)


def _of_rows(draw: Callable[[pd.DataFrame], sns.FacetGrid]) -> View:
    """The view that draws ``draw`` from the family's rows (read once, when first asked)."""
    return lambda source: draw(source.rows())


#: What the report and ``python -m analysis figure NAME`` draw from any continual results.
VIEWS: dict[str, View] = {
    "continual_error_vs_t": _of_rows(error_vs_time),
    "continual_error_vs_m": _of_rows(functools.partial(error_vs_option, x="max_samples")),
    "continual_error_vs_epsilon": _of_rows(functools.partial(error_vs_option, x="epsilon")),
    "continual_slopes": _of_rows(slope_figure),
    "continual_orders": _of_rows(orders_figure),
    "continual_activation": _of_rows(activation_figure),
    "continual_noise": _of_rows(noise_figure),
}
#: The document's figures by name (:attr:`Preset.figures` says from which preset).
FIGURES: dict[str, View] = {
    "continual_quickstart": _of_rows(functools.partial(
        error_vs_time,
        title="Quickstart preset: error against t (n = 10,000, m = 32, T = 200,000)")),
    "continual_orders_t": _of_rows(functools.partial(
        error_vs_time, methods=("alg2", "alg5", "alg6", "non_private"),
        title="Orders preset: error against t per arrival order (n = 100,000, m = 64, ε = 1)")),
    "continual_orders": VIEWS["continual_orders"],
    "continual_activation": VIEWS["continual_activation"],
    "continual_scaling": _of_rows(functools.partial(
        error_vs_option, x="max_samples",
        title="Scaling preset: error at T = 2^20 against m = M_T (contiguous arrivals, ε = 1)")),
    "continual_slopes": VIEWS["continual_slopes"],
    "continual_epsilon": _of_rows(functools.partial(
        error_vs_option, x="epsilon",
        title="ε preset: error at T against ε (uniform arrivals, n = 10,000, m = 64)")),
    "continual_noise": VIEWS["continual_noise"],
}

#: The options that set a preset's sizes, where the preset fixes them (the scaling preset
#: sweeps m).
SIZES = ("n_users", "max_samples", "t_max")
SECTION = Section(
    template=("analysis.studies.continual", "continual.md"),
    paper="George et al., continual mean estimation",
    presets=(
        Preset("continual_quickstart", SIZES, ("continual_quickstart",)),
        Preset("continual_orders", SIZES,
               ("continual_orders_t", "continual_orders", "continual_activation")),
        Preset("continual_scaling", ("n_users", "t_max"),
               ("continual_scaling", "continual_slopes")),
        Preset("continual_epsilon", SIZES, ("continual_epsilon",)),
        Preset("continual_noise", SIZES, ("continual_noise",)),
        Preset("continual_dimension", SIZES),
    ),
    values=values,
    sizes={"n_users": "n", "max_samples": "m", "t_max": "T"},
    reads="rows",
    figures=FIGURES,
)
# The continual paper has no figures: its study's are the document's (the section's).
STUDY = Study(family="continual", vocabulary=VOCABULARY, views=VIEWS, section=SECTION)

__all__ = ["FIGURES", "SECTION", "STUDY", "VIEWS", "VOCABULARY"]
