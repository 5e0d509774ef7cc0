"""The study of collaborative mean estimation on a sparse graph (Galante, Neglia &
Leonardi, AAAI 2025, as their public code implements it; and this project's private
variants), the family ``decentralized``: its vocabulary, its views, and its section of
``docs/decentralized.md``.

The statistics across runs and the figures are in :mod:`.figures`, the statements the
section decides in :mod:`.statements`, its numbers, tables and verdicts in
:mod:`.document`, the summary of the reference's own runs, against which the section holds
ours, in :mod:`.reference`.

``python -m analysis decentralized ROOT --out docs`` renders the document from the
presets' results under ``ROOT`` (``ROOT/decentralized_reference``,
``ROOT/decentralized_degree``, ``ROOT/decentralized_private``) and draws its figures into
``OUT/figures/decentralized_*.png`` (:mod:`analysis.document`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from analysis.study import Preset, Section, Study, View
from analysis.vocabulary import Vocabulary

from .document import values
from .figures import degree_figure, private_figure, reference_figure
from .reference import stored

if TYPE_CHECKING:
    import pandas as pd
    import seaborn as sns

VOCABULARY = Vocabulary(
    names={
        "method": {"c_colme": "C-ColME", "b_colme": "B-ColME",
                   "c_colme_oracle": "C-ColME oracle", "b_colme_oracle": "B-ColME oracle",
                   "local": "local mean", "ideal": "ideal"},
        "privacy.mechanism": {"none": "non-private", "pm1": "PM-I", "pm2": "PM-II"},
    },
    axes={"t": "t (samples per agent)", "mse": "mean squared error",
          "within": "fraction of agents within the accuracy",
          "wrong_links": "wrong links kept", "lost_links": "same-class links cut"},
    symbols={"graph.n_nodes": "N", "graph.degree": "r", "t_max": "T", "depth": "D",
             "epsilon": "ε"},
    curves=("c_colme", "b_colme"),
    baselines=("local", "ideal"),
    scheme=("method", "privacy.mechanism"),
    facets=("epsilon", "graph.degree", "graph.n_nodes"),
    metric="mse",
    colours={"c_colme": "#0072B2", "b_colme": "#D55E00", "pm1": "#E69F00", "pm2": "#0072B2"},
)


def _of_rows(draw: Callable[[pd.DataFrame], sns.FacetGrid]) -> View:
    """The view that draws ``draw`` from the family's rows (read once, when first asked)."""
    return lambda source: draw(source.rows())


#: What the report and ``python -m analysis figure NAME`` draw from any decentralized
#: results.
VIEWS: dict[str, View] = {
    "decentralized_outside": _of_rows(functools.partial(reference_figure, reference=None)),
    "decentralized_degrees": _of_rows(degree_figure),
    "decentralized_private": _of_rows(private_figure),
}
#: The document's figures by name (:attr:`Preset.figures` says from which preset).
FIGURES: dict[str, View] = {
    "decentralized_reference": lambda source: reference_figure(
        source.rows(), stored(),
        title="The reference's experiment: our runs and the reference's own"),
    "decentralized_degree": _of_rows(functools.partial(
        degree_figure, title="Degree preset: convergence against the graph's degree r")),
    "decentralized_private_mse": _of_rows(functools.partial(
        private_figure, title="Private preset: when private collaboration beats the local "
                              "mean")),
}
#: The options that set a preset's sizes.
SIZES = ("graph.n_nodes", "t_max")
SECTION = Section(
    template=("analysis.studies.decentralized", "decentralized.md"),
    paper="Galante et al., AAAI 2025",
    presets=(
        Preset("decentralized_reference", SIZES, ("decentralized_reference",)),
        Preset("decentralized_degree", SIZES, ("decentralized_degree",)),
        Preset("decentralized_private", SIZES, ("decentralized_private_mse",)),
    ),
    values=values,
    sizes={"graph.n_nodes": "N", "t_max": "T"},
    reads="rows",
    figures=FIGURES,
)
STUDY = Study(family="decentralized", vocabulary=VOCABULARY, views=VIEWS, section=SECTION)

__all__ = ["FIGURES", "SECTION", "STUDY", "VIEWS", "VOCABULARY"]
