"""ACTG 175 as the runs split it: each centre's patients, the Cox model's log hazard ratios
(Sec. 2.1, Fig. 4) and the likelihoods the private algorithms must resolve (Sec. 5).

A cell's data are rebuilt from its options (:func:`survival_cell` reads them from a
summary) through the family's API (:mod:`sweep.inference.api`), so the figures and
claims describe the patients the runs used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sweep.inference.api import (
    ARMS,
    InferenceConfig,
    actg175,
    cox_centres,
    partial_loglik,
    treatment_frames,
    treatment_loglik,
)

from ...load import MissingData
from ...plot import SharedCurve
from .selection import family_rows, per_cell

#: lifelines' ridge penalty for the Cox fits (Sec. 5: λ_reg = 0.05).
PENALIZER = 0.05


def survival_cell(summary: pd.DataFrame, models: Sequence[str] = ("treatments", "cox"),
                  view: str = "km_figure") -> pd.Series:
    """The data settings of the ACTG 175 cells (the first of ``models`` present): n, the
    split, its seed and any resampling; :class:`MissingData` if there is none,
    :class:`SharedCurve` if the cells differ in them."""
    rows = family_rows(summary, view)
    for model in models:
        chosen = rows[(rows["model.kind"] == model) & (rows["dataset.kind"] == "actg175")]
        if chosen.empty:
            continue
        settings = ["graph.n_nodes", "dataset.split", "dataset.split_seed",
                    "dataset.patients", "dataset.arm", "model.states"]
        cells = per_cell(chosen)[[c for c in settings if c in chosen]]
        distinct = cells.astype(str).drop_duplicates()
        if len(distinct) > 1:
            differ = [c for c in distinct if distinct[c].nunique() > 1]
            raise SharedCurve(differ, [])
        cell = cells.iloc[0].copy()
        cell["model.kind"] = model
        return cell
    raise MissingData(f"{view}: needs cells of ACTG 175 (model={' or '.join(models)}, "
                      "dataset=actg175: +experiment=inference_actg)")


def _config(cell: pd.Series) -> InferenceConfig:
    """The data options of an ACTG 175 cell (:func:`survival_cell`) as a configuration."""
    model: dict[str, Any] = {"kind": cell["model.kind"]}
    dataset: dict[str, Any] = {"kind": "actg175", "split": str(cell["dataset.split"]),
                               "split_seed": int(cell["dataset.split_seed"])}
    if cell["model.kind"] == "treatments":
        model["states"] = [float(a) for a in str(cell["model.states"]).split(",")]
    else:
        dataset["arm"] = int(cell["dataset.arm"])
    if pd.notna(cell.get("dataset.patients")):
        dataset["patients"] = int(cell["dataset.patients"])
    return InferenceConfig.from_options(
        model=model, dataset=dataset,
        graph={"kind": "complete", "n_nodes": int(cell["graph.n_nodes"])})


def centre_frames(cell: pd.Series) -> list[pd.DataFrame]:
    """ACTG 175's rows (``arms``, ``days``, ``cens``) of each centre, as the family splits
    them (:func:`sweep.inference.api.treatment_frames` for best-treatment cells,
    :func:`~sweep.inference.api.cox_centres` for a Cox model's one arm)."""
    config = _config(cell)
    if config.model.kind == "treatments":
        return treatment_frames(config, config.graph.n_nodes)
    return [pd.DataFrame({"arms": np.where(c.covariate == 1, config.dataset.arm, 0),
                          "days": c.duration, "cens": c.event.astype(int)})
            for c in cox_centres(config, config.graph.n_nodes)]


def cox_centre_frames(cell: pd.Series) -> list[pd.DataFrame]:
    """The centres of a Cox model cell (one arm against ZDV) as the family builds them,
    as frames of ``days``, ``cens`` and ``treated``."""
    return [frame.assign(treated=(frame["arms"] != 0).astype(float))[
        ["days", "cens", "treated"]] for frame in centre_frames(cell)]


def hazard_ratio(frame: pd.DataFrame) -> dict[str, float]:
    """The Cox model's log hazard ratio of ``treated`` (lifelines, penalizer 0.05), its
    95% interval and Wald p-value."""
    from lifelines import CoxPHFitter

    fitter = CoxPHFitter(penalizer=PENALIZER)
    fitter.fit(frame[["days", "cens", "treated"]], duration_col="days", event_col="cens")
    row = fitter.summary.loc["treated"]
    return {"coef": float(row["coef"]), "low": float(row["coef lower 95%"]),
            "high": float(row["coef upper 95%"]), "p": float(row["p"]),
            "patients": len(frame), "events": int(frame.cens.sum())}


def hazard_ratios(frame: pd.DataFrame, arms: Iterable[int] = (1, 2, 3)) -> pd.DataFrame:
    """Each arm's :func:`hazard_ratio` against ZDV on the rows of ``frame``."""
    table = []
    for arm in arms:
        rows = frame[frame["arms"].isin([0, arm])]
        table.append({"arm": ARMS[arm], **hazard_ratio(rows.assign(
            treated=(rows["arms"] == arm).astype(float)))})
    return pd.DataFrame(table)


def likelihood_gap(cell: pd.Series) -> float:
    """Λ(θ*) − max over the other states of Λ, Λ = Σ_i log ℓ_i the centres' partial
    log-likelihoods (eq. (3)), for a Cox model cell: the gap l_{n,Θ} the private
    algorithms must resolve through their noise."""
    states = np.array([float(v) for v in str(cell["model.states"]).split(",")])
    config = _config(cell)
    total = sum(partial_loglik(centre, states, str(cell["model.ties"]))
                for centre in cox_centres(config, config.graph.n_nodes))
    ordered = np.sort(np.asarray(total))
    return float(ordered[-1] - ordered[-2])


def score_spread(cell: pd.Series) -> float:
    """The largest difference between two arms' scores (log GLR against ZDV) at one
    centre, for a best-treatment cell, as the family computes them
    (:func:`sweep.inference.api.treatment_loglik`)."""
    config = _config(cell)
    local, _, _ = treatment_loglik(config, config.graph.n_nodes)
    return float((local.max(axis=1) - local.min(axis=1)).max())



def split_hospitals(cell: pd.Series, n: int, how: str = "modulo") -> list[pd.DataFrame]:
    """The hospitals of a Cox model cell's arm and ZDV under another split than the runs':
    ``modulo``, the authors' notebook's (patient i of the data set, in its order, to
    centre i mod ``n``; its Fig. 3 hospital is one of 10), as frames of ``days``, ``cens``
    and ``treated``."""
    if how != "modulo":
        raise ValueError(f"how: must be 'modulo'; got {how!r}")
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n: must be an integer >= 1; got {n!r}")
    frame = actg175()
    frame = frame[frame["arms"].isin([0, int(cell["dataset.arm"])])]
    frame = frame.assign(treated=(frame["arms"] != 0).astype(float))[
        ["days", "cens", "treated"]]
    return [frame[frame.index % n == i] for i in range(n)]


def notebook_gap(cell: pd.Series, theta: float = -float(np.log(2.0))) -> dict[str, float]:
    """Λ(θ) − Λ(0) of a Cox model cell's pooled patients (its arm against ZDV): with
    eq. (3) (``correct``: Σ over events of x_i θ − log Σ_{R_i} e^{x θ}, Breslow) and as
    the authors' notebook computes it (``notebook``: the risk-set term summed over every
    patient, censored ones too, the event indicator left out)."""
    frame = actg175()
    rows = frame[frame["arms"].isin([0, int(cell["dataset.arm"])])]
    days = rows["days"].to_numpy(float)
    event = rows["cens"].to_numpy() == 1
    x = (rows["arms"] != 0).to_numpy(float)

    def loglik(t: float, every: bool) -> float:
        # R_i = {j: t_j >= t_i}: the tail sums over patients sorted by duration.
        order = np.argsort(days, kind="stable")
        d, e, w = days[order], event[order], np.exp(x[order] * t)
        tail = np.cumsum(w[::-1])[::-1]
        first = np.searchsorted(d, d, side="left")  # ties share the largest risk set
        risk = np.log(tail[first])
        keep = np.ones_like(e) if every else e
        return float(np.sum(e * x[order] * t) - np.sum(risk[keep.astype(bool)]))

    return {"correct": loglik(theta, False) - loglik(0.0, False),
            "notebook": loglik(theta, True) - loglik(0.0, True)}
