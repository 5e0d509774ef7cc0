"""Which rows of a summary the inference study reads: the family's methods and its cells.

Every view and statistic of the study starts here: :func:`family_rows` keeps the
inference rows of a summary (:class:`~analysis.load.MissingData` if there are none),
:func:`one_model` the cells of one signal model, :func:`final_rows` each cell's last
checkpoint; :data:`DERIVED` are the cell columns the family derives from its options,
which must not split a figure's panels.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ...load import MissingData, present
from ...plot import varying

#: The family whose results the study reads.
FAMILY = "inference"
#: Alg. 1's and Alg. 2's estimators: the private distributed MLE.
PRIVATE_MLE = ("am", "gm", "threshold_1", "threshold_2")
#: The methods whose rows carry set errors (type I, type II, exact recovery).
SET_METHODS = ("mle", *PRIVATE_MLE, "ol", "private_ol", "rizk", "centralized")
#: The set errors and their labels in :func:`.figures.error_rates`.
ERRORS = {"type_i_error": "type I error", "type_ii_error": "type II error",
          "exact_recovery": "exact recovery"}
#: The methods whose rows carry beliefs (Fig. 5).
BELIEF_METHODS = ("am", "gm", "threshold_1", "threshold_2", "mle", "centralized")
#: The cell columns the family derives from its options and method (K, T, Δ, b, the
#: SLEM, Θ*): they vary with the method and ε and would otherwise count as options that
#: split the panels.
DERIVED = ("rounds_k", "iterations_t", "sensitivity_bound", "noise_scale", "a_star",
           "mle_set")


def family_rows(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    """The inference rows of ``summary``; :class:`MissingData` if it has none."""
    if "family" not in summary or not (summary.family == FAMILY).any():
        raise MissingData(f"{view}: needs rows of the inference family (family={FAMILY})")
    if (summary.family == FAMILY).all():
        return summary
    return present(summary[summary.family == FAMILY].copy())


def without_derived(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` without the derived cell columns (:data:`DERIVED`), for
    :func:`analysis.plot.curves`, with the summary's roles."""
    frame = rows.drop(columns=[c for c in DERIVED if c in rows])
    frame.attrs.update(rows.attrs)
    return frame


def one_model(rows: pd.DataFrame, model: str | None, view: str
              ) -> tuple[pd.DataFrame, str]:
    """The rows of one signal model (``model``, default the Cox model's when several are
    present: Sec. 5's and Fig. 6's) and a sentence saying which were left out, if any."""
    models = list(pd.unique(rows["model.kind"].dropna()))
    if model is None:
        model = "cox" if "cox" in models else (models[0] if len(models) == 1 else None)
    if model is None:
        raise MissingData(f"{view}: the results hold models {', '.join(models)}: choose "
                          "one (model=...)")
    if model not in models:
        raise MissingData(f"{view}: no cells of model={model}")
    others = [m for m in models if m != model]
    note = (f"Cells of model={model}; the results' cells of model={', '.join(others)} are "
            "not drawn. " if others else "")
    return rows[rows["model.kind"] == model], note


def per_cell(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per cell."""
    return rows.drop_duplicates("cell_id")


def extra_options(rows: pd.DataFrame, allowed: Iterable[str]) -> list[str]:
    """The options that vary among ``rows``' cells beyond ``allowed`` (the derived
    columns aside)."""
    allowed = {*allowed, *DERIVED}
    return [c for c in varying(without_derived(rows)) if c not in allowed]


def final_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows at each cell's last checkpoint (t = T)."""
    return rows[rows.t == rows.groupby("cell_id").t.transform("max")]

