"""Views over the results of the DP distributed inference family (Papachristou &
Rahimian, "Differentially Private Distributed Inference"), ``family=inference``.

Every figure takes a summary (:func:`analysis.load.summaries`: mean over replicates,
Wilson intervals for the proportions ``reject``, ``type_i_error``, ``type_ii_error`` and
``exact_recovery``, ± one standard error for the continuous metrics) and raises
:class:`~analysis.plot.MissingData` when the results cannot make it:

- :func:`power_figure` (Figs 1 and 2): the power of the pooled test of Sec. 2 against ε,
  left with n varying at p = 0.7, middle with p varying at n = 100, each curve with its
  β_IND (dotted) and its critical budget ε* marked; right, ε* over n × p;
- :func:`km_figure` (Fig. 4): Kaplan–Meier curves of ACTG 175 by arm (lifelines), pooled
  and at one centre of the split the runs used, and each treatment's log hazard ratio
  against ZDV with its 95% interval (lifelines' ``CoxPHFitter``, penalizer 0.05);
- :func:`beliefs_figure` (Fig. 5): the final belief in each state (arm) per algorithm,
  and the total variation distance to the non-private run against t;
- :func:`tvd_figure` (Fig. 6): the TVD to the ground truth at T against ε, a panel per n,
  against Rizk et al.;
- :func:`runtime_figure` (Fig. 14.2): the time per run against n, from the cells'
  provenance (:func:`runtimes` reads it from the results directories);
- :func:`error_rates`: type I and II errors and exact recovery against ε or t, with the
  theorems' bounds (``source = "bound"``) as each cell's reference line.

The computations the reproduction document states (the crossings ε* of Sec. 2, the log
hazard ratios of Sec. 2.1, the best treatment of Sec. 5, the ratios of Fig. 6, the run
times of Sec. 14.3, the theorems' guarantees) are here as well, and
:mod:`analysis.reproduce` turns them into the document's table, one row per claim of the
paper (:class:`~analysis.claims.Claim`), with verdicts computed by comparison.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from sweep.inference import survival
from sweep.inference.config import ARMS, InferenceConfig
from sweep.inference.simulate import cox_centres, treatment_frames, treatment_loglik
from sweep.store import ResultsStore, cell_records

from .labels import axis, name
from .load import Z95, load, present, wilson
from .order_statistics import quantile_ranks
from .plot import (
    GREY,
    MissingData,
    SharedCurve,
    curves,
    derived,
    finish,
    panel_grid,
    varying,
)

FAMILY = "inference"
#: Alg. 1's and Alg. 2's estimators: the private distributed MLE.
PRIVATE_MLE = ("am", "gm", "threshold_1", "threshold_2")
#: The methods whose rows carry set errors (type I, type II, exact recovery).
SET_METHODS = ("mle", *PRIVATE_MLE, "ol", "private_ol", "rizk", "centralized")
#: Sec. 2's toy: randomized response (Fig. 1) and Laplace noise (Fig. 2).
TOY = ("rr", "laplace")
#: The set errors and their labels in :func:`error_rates`.
ERRORS = {"type_i_error": "type I error", "type_ii_error": "type II error",
          "exact_recovery": "exact recovery"}
#: lifelines' ridge penalty for the Cox fits (Sec. 5: λ_reg = 0.05).
PENALIZER = 0.05
#: The paper's run times (Sec. 5: "between ∼10⁻² and 10 seconds for n = 3 to 96";
#: Sec. 14.3, Fig. 14.2: "from ∼10⁻² s to ∼1 s", n = 6 to 96), in seconds.
PAPER_RUNTIME = (1e-2, 10.0)
PAPER_RUNTIME_ACTG = (1e-2, 1.0)
#: Marker shapes, by rank of a series: the colourblind palette's pinks and oranges are
#: close, the shapes tell them apart.
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
#: The cell columns the family derives from its options and method (K, T, Δ, b, the
#: SLEM, Θ*): they vary with the method and ε and would otherwise count as options that
#: split the panels.
DERIVED = ("rounds_k", "iterations_t", "sensitivity_bound", "noise_scale", "a_star",
           "mle_set")
#: The x label of t: an iteration of the belief exchange (a round online).
ITERATION = "iteration t"
DOTTED = (0, (1, 1))
DASHED = (0, (4, 2))


# -- Selection ----------------------------------------------------------------------------

def _family(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    """The inference rows of ``summary``; :class:`MissingData` if it has none."""
    if "family" not in summary or not (summary.family == FAMILY).any():
        raise MissingData(f"{view}: needs rows of the inference family (family={FAMILY})")
    if (summary.family == FAMILY).all():
        return summary
    return present(summary[summary.family == FAMILY].copy())


def _options(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` without the derived cell columns (:data:`DERIVED`), for
    :func:`analysis.plot.curves`, with the summary's roles."""
    frame = rows.drop(columns=[c for c in DERIVED if c in rows])
    frame.attrs.update(rows.attrs)
    return frame


def _one_model(rows: pd.DataFrame, model: str | None, view: str
               ) -> tuple[pd.DataFrame, str]:
    """The rows of one signal model (``model``, default the Cox model's when several are
    present: Sec. 5's and Fig. 6's) and a sentence saying which were left out, if any."""
    models = list(pd.unique(rows.model.dropna()))
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
    return rows[rows.model == model], note


def _cells(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per cell."""
    return rows.drop_duplicates("cell_id")


def _only(rows: pd.DataFrame, column: str, view: str) -> Any:
    """The one value ``column`` takes among ``rows``' cells (:class:`SharedCurve` if
    several: the figure would mix cells that differ)."""
    values = pd.unique(_cells(rows)[column].dropna())
    if len(values) > 1:
        raise SharedCurve([column], [])
    if not len(values):
        raise MissingData(f"{view}: the rows have no {column}")
    return values[0]


def _extra(rows: pd.DataFrame, allowed: Iterable[str]) -> list[str]:
    """The options that vary among ``rows``' cells beyond ``allowed`` (the derived
    columns aside)."""
    allowed = {*allowed, *DERIVED}
    return [c for c in varying(_options(rows)) if c not in allowed]


def _p(states: str) -> float:
    """p of the Sec. 2 toy, from its states (1 − p, p) as the results write them."""
    return float(str(states).split(",")[1])


def _final(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows at each cell's last checkpoint (t = T)."""
    return rows[rows.t == rows.groupby("cell_id").t.transform("max")]


def _palette(count: int) -> list[Any]:
    return sns.color_palette("colorblind", max(count, 1))


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


# -- Sec. 2: power against ε and the critical budget ε* ------------------------------------

def crossing(x: Sequence[float], y: Sequence[float], level: float) -> float:
    """The first x at which ``y`` reaches ``level``, interpolated linearly in log x between
    the two grid points around it; ``x[0]`` if ``y`` is already at the level there (ε* is
    then at most the grid's first value), ``inf`` if it never reaches it. ``x`` is
    increasing."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    reached = np.flatnonzero(y >= level)
    if not reached.size:
        return math.inf
    k = int(reached[0])
    if k == 0:
        return float(x[0])
    share = (level - y[k - 1]) / (y[k] - y[k - 1])
    return float(np.exp(np.log(x[k - 1]) + share * (np.log(x[k]) - np.log(x[k - 1]))))


def toy_rows(summary: pd.DataFrame, method: str | None = None) -> pd.DataFrame:
    """The rows of Sec. 2's toy (``method`` ``rr`` or ``laplace``, default the one present)
    with ``p``, ``agents`` (n) and ``toy`` (the method) columns; :class:`MissingData` if there are
    none, ``ValueError`` if both methods are present and none is chosen,
    :class:`SharedCurve` if the cells differ in more than ε, n and p."""
    rows = _family(summary, "power_figure")
    present_methods = [m for m in TOY if (rows.method == m).any()]
    if not present_methods:
        raise MissingData("power_figure: needs cells of Sec. 2's toy (method=rr or laplace: "
                          "+experiment=inference_fig1 or inference_fig2)")
    if method is None:
        if len(present_methods) > 1:
            raise ValueError("power_figure: the results hold both toys; choose method=rr "
                             "(Fig. 1) or method=laplace (Fig. 2)")
        method = present_methods[0]
    if method not in present_methods:
        raise MissingData(f"power_figure: no cells of method={method}")
    cells = rows[rows.method == method].cell_id.unique()
    rows = rows[rows.cell_id.isin(cells)]
    extra = _extra(rows, ("epsilon", "graph.n_nodes", "states"))
    if extra:
        raise SharedCurve(extra, ["epsilon", "graph.n_nodes", "states"])
    # ``states`` is categorical in a summary: p and n as plain numbers, in numeric order.
    # (``n`` is the summary's count of rows: the agents are ``agents``.)
    return rows.assign(p=rows.states.astype(str).map(_p).astype(float),
                       agents=rows["graph.n_nodes"].astype(int), toy=method)


@dataclass(frozen=True)
class Curve:
    """One power curve of the toy: n, p, the ε grid, the power (simulated, with its
    Wilson band at z = 1 and at 95%, or exact), the exact power, β_IND, eq. (2)'s ε*
    (``critical``, from the results' ``critical_epsilon``; for Laplace the exact crossing)
    and the crossings of β_IND by the curves."""

    method: str
    n: int
    p: float
    epsilon: np.ndarray
    power: np.ndarray
    low: np.ndarray
    high: np.ndarray
    low95: np.ndarray
    high95: np.ndarray
    exact: np.ndarray
    individual: float
    critical: float
    replicates: int

    @property
    def simulated(self) -> bool:
        return self.replicates > 0

    @property
    def exact_crossing(self) -> float:
        """Where the exact power curve first reaches β_IND (log-interpolated on the grid)."""
        return crossing(self.epsilon, self.exact, self.individual)

    @property
    def crossings(self) -> tuple[float, float, float]:
        """The simulated curve's crossing and the interval from its 95% Wilson band (the
        upper edge crosses first); the exact curve's (three times) without runs."""
        if not self.simulated:
            value = self.exact_crossing
            return value, value, value
        return (crossing(self.epsilon, self.power, self.individual),
                crossing(self.epsilon, self.high95, self.individual),
                crossing(self.epsilon, self.low95, self.individual))


def power_curves(summary: pd.DataFrame, method: str | None = None) -> list[Curve]:
    """One :class:`Curve` per (n, p) of the toy's cells, over their ε."""
    rows = toy_rows(summary, method)
    method = str(rows.toy.iloc[0])
    found = []
    for (n, p), part in rows.groupby(["agents", "p"], sort=True):
        exact = part[(part.method == method) & (part.source == "exact")].sort_values("epsilon")
        individual = part[(part.method == "individual") & (part.source == "exact")]
        simulated = part[(part.method == method) & (part.source == "simulated")
                         ].sort_values("epsilon")
        if exact.empty or individual.empty:
            raise MissingData("power_figure: needs the toy's exact rows (the sweep computes "
                              "them unless analytic=false)")
        if not simulated.empty and len(simulated) != len(exact):
            raise MissingData(f"power_figure: n = {n}, p = {p:g} has simulated rows at "
                              f"{len(simulated)} values of ε and exact rows at {len(exact)}")
        eps = exact.epsilon.to_numpy(float)
        if simulated.empty:
            power = low = high = low95 = high95 = exact.reject.to_numpy(float)
            replicates = 0
        else:
            power = simulated.reject.to_numpy(float)
            low, high = simulated.reject_low.to_numpy(float), simulated.reject_high.to_numpy(float)
            counts = simulated.n.to_numpy(float)
            low95, high95 = (np.asarray(b) for b in wilson(pd.Series(power),
                                                           pd.Series(counts), Z95))
            replicates = int(simulated.n.min())
        found.append(Curve(method, int(n), float(p), eps, power, low, high, low95, high95,
                           exact.reject.to_numpy(float), float(individual.reject.iloc[0]),
                           float(exact.critical_epsilon.iloc[0]), replicates))
    return found


def critical_table(summary: pd.DataFrame, method: str | None = None) -> pd.DataFrame:
    """ε* per (n, p): ``critical`` (eq. (2) for RR, the exact root for Laplace),
    ``exact_crossing`` (of the exact power curve, on the grid), ``crossing`` with
    ``crossing_low`` and ``crossing_high`` (the simulated curve's, from its 95% Wilson
    band; the exact crossing without runs), ``individual`` β_IND and the grid's ends."""
    table = []
    for curve in power_curves(summary, method):
        value, low, high = curve.crossings
        table.append({"method": curve.method, "n": curve.n, "p": curve.p,
                      "critical": curve.critical, "exact_crossing": curve.exact_crossing,
                      "crossing": value, "crossing_low": low, "crossing_high": high,
                      "individual": curve.individual, "replicates": curve.replicates,
                      "epsilon_min": float(curve.epsilon.min()),
                      "epsilon_max": float(curve.epsilon.max())})
    return pd.DataFrame(table)


def _nearest(values: Sequence[float], wanted: float) -> float:
    values = sorted(set(values))
    return min(values, key=lambda v: (abs(v - wanted), -v))


def _draw_power(ax: plt.Axes, chosen: list[Curve], label: Callable[[Curve], str]) -> None:
    """The curves of one panel, each with its β_IND (grey where the panel's curves share
    it, else in the curve's colour) and its ε* markers."""
    colours = _palette(len(chosen))
    shared = len({round(c.individual, 12) for c in chosen}) == 1
    for i, (curve, colour) in enumerate(zip(chosen, colours, strict=False)):
        main = curve.power if curve.simulated else curve.exact
        ax.plot(curve.epsilon, main, color=colour, lw=1.4, label=label(curve))
        if curve.simulated:
            ax.fill_between(curve.epsilon, curve.low, curve.high, color=colour, alpha=0.25,
                            lw=0)
            ax.plot(curve.epsilon, curve.exact, color=colour, lw=1.0, ls=DASHED)
        line = GREY if shared else colour
        if not shared or i == 0:
            ax.axhline(curve.individual, color=line, lw=1.0, ls=DOTTED, zorder=1.5)
        # ε* markers, on the β_IND line.
        if math.isfinite(curve.critical):
            ax.plot(curve.critical, curve.individual, marker="x", color=colour, ms=6, mew=1.5,
                    ls="none", zorder=3)
        value, low, high = curve.crossings
        if math.isfinite(value):
            if curve.simulated and math.isfinite(low) and math.isfinite(high):
                ax.errorbar(value, curve.individual, xerr=[[value - low], [high - value]],
                            color=colour, marker="o", mfc="white", ms=5, capsize=2, lw=1,
                            zorder=3)
            else:
                ax.plot(value, curve.individual, marker="o", mfc="white", color=colour, ms=5,
                        ls="none", zorder=3)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(axis("epsilon", FAMILY))


def power_figure(summary: pd.DataFrame, method: str | None = None, p: float = 0.7,
                 n: int = 100) -> sns.FacetGrid:
    """Power of the pooled test of Sec. 2 against ε (Fig. 1: randomized response, exact;
    Fig. 2: Laplace, simulated with its Wilson band and the exact curve dashed).

    Left: the curves of every n at ``p`` (or the nearest p present); middle: of every p at
    ``n`` (or the largest n present); each curve with β_IND as a dotted line (grey where
    the panel's curves share it) and its critical budget marked on that line: ×, the
    results' ``critical_epsilon`` (RR: eq. (2) as printed; Laplace: the exact root of
    β_Laplace = β_IND); ○, where the drawn power curve first reaches β_IND (Laplace: with
    the interval where its 95% Wilson band does). Right: ε* over n × p.
    """
    curves_ = power_curves(summary, method)
    method = curves_[0].method
    ps = sorted({c.p for c in curves_})
    ns = sorted({c.n for c in curves_})
    left_p = _nearest(ps, p)
    middle_n = n if n in ns else max(ns)
    rr = method == "rr"
    star = "ε*_RR" if rr else "ε*_Laplace"
    grid = panel_grid([f"p = {left_p:g}, n varies", f"n = {middle_n}, p varies",
                  f"{star} over n and p"], height=3.4, aspect=1.15)
    left, middle, right = grid.axes.flat
    _draw_power(left, [c for c in curves_ if c.p == left_p], lambda c: f"n = {c.n}")
    _draw_power(middle, [c for c in curves_ if c.n == middle_n], lambda c: f"p = {c.p:g}")
    what = "β_RR, eq. (1)" if rr else "β_Laplace"
    left.set_ylabel(f"power ({what})")
    for ax in (left, middle):
        handles, labels = ax.get_legend_handles_labels()
        handles += [Line2D([], [], color=GREY, ls=DOTTED, lw=1.0),
                    Line2D([], [], color=GREY, marker="x", ls="none", mew=1.5),
                    Line2D([], [], color=GREY, marker="o", mfc="white", ls="none")]
        labels += ["β_IND (individual test)",
                   f"{star}: eq. (2)" if rr else f"{star}: exact",
                   "power curve reaches β_IND" if rr else "simulated curve reaches β_IND"]
        if not rr:
            handles.insert(len(handles) - 3, Line2D([], [], color=GREY, ls=DASHED, lw=1.0))
            labels.insert(len(labels) - 3, "exact power")
        ax.legend(handles, labels, fontsize=6.5, loc="upper left", frameon=False)
    _critical_heatmap(right, curves_, rr)
    replicates = max(c.replicates for c in curves_)
    cells = sum(len(c.epsilon) for c in curves_)
    if rr:
        how = ("Exact curves (eq. (1), reject when Σy > τ_RR; no runs, no bands). ×: ε*_RR "
               "of eq. (2) as printed, the crossing for the rule Σy ≥ τ_RR, hence at or "
               "below ○, where eq. (1)'s power first reaches β_IND on the ε grid "
               "(interpolated in log ε between grid points; the power is a step function "
               "of ε). Right: eq. (2)'s ε*, with the power curve's crossing in brackets")
    else:
        how = (f"Solid: simulated power, {_count(replicates, 'run')} per cell each one "
               "decision against the threshold of the cell's 10,000 null draws; bands: "
               "Wilson score intervals at z = 1. Dashed: the exact power. ×: the exact "
               "ε*_Laplace (root of β_Laplace = β_IND); ○: where the simulated curve "
               "reaches β_IND (log-interpolated on the ε grid) with the interval where its "
               "95% Wilson band does. Right: the exact ε*, with the simulated crossing in "
               "brackets")
    return finish(grid, f"{cells} cells (one per n, p and ε), α = 0.05; each curve is one "
                  f"(n, p) over its cells of ε. {how}. β_IND depends on p only: one grey "
                  "dotted line where a panel's curves share it.",
                  "Fig. 1: randomized response" if rr else "Fig. 2: Laplace noise")


def _critical_heatmap(ax: plt.Axes, curves_: list[Curve], rr: bool) -> None:
    ns = sorted({c.n for c in curves_})
    ps = sorted({c.p for c in curves_})
    values = np.full((len(ns), len(ps)), np.nan)
    text = {}
    for c in curves_:
        i, j = ns.index(c.n), ps.index(c.p)
        values[i, j] = c.critical
        text[i, j] = f"{c.critical:.3f}\n({c.crossings[0]:.2f})"
    # On [0, 1]: the paper's claim is ε* < 1.
    top = max(1.0, float(np.nanmax(values)))
    image = ax.imshow(values, cmap="Blues", origin="lower", aspect="auto", vmin=0, vmax=top)
    for (i, j), label in text.items():
        ax.text(j, i, label, ha="center", va="center", fontsize=6.5,
                color="white" if values[i, j] > 0.6 * top else "black")
    ax.set_xticks(range(len(ps)), [f"{p:g}" for p in ps])
    ax.set_yticks(range(len(ns)), [str(n) for n in ns])
    ax.set_xlabel("signal accuracy p")
    ax.set_ylabel("agents n")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="ε*")


# -- Sec. 2.1 and Fig. 4: ACTG 175, Kaplan–Meier curves and log hazard ratios --------------

def survival_cell(summary: pd.DataFrame, models: Sequence[str] = ("treatments", "cox"),
                  view: str = "km_figure") -> pd.Series:
    """The data settings of the ACTG 175 cells (the first of ``models`` present): n, the
    split, its seed and any resampling; :class:`MissingData` if there is none,
    :class:`SharedCurve` if the cells differ in them."""
    rows = _family(summary, view)
    for model in models:
        chosen = rows[(rows.model == model) & (rows.dataset == "actg175")]
        if chosen.empty:
            continue
        settings = ["graph.n_nodes", "split", "split_seed", "patients", "arm", "states"]
        cells = _cells(chosen)[[c for c in settings if c in chosen]]
        distinct = cells.astype(str).drop_duplicates()
        if len(distinct) > 1:
            differ = [c for c in distinct if distinct[c].nunique() > 1]
            raise SharedCurve(differ, [])
        cell = cells.iloc[0].copy()
        cell["model"] = model
        return cell
    raise MissingData(f"{view}: needs cells of ACTG 175 (model={' or '.join(models)}, "
                      "dataset=actg175: +experiment=inference_actg)")


def _config(cell: pd.Series) -> InferenceConfig:
    """The data options of an ACTG 175 cell (:func:`survival_cell`) as a configuration."""
    options: dict[str, Any] = {
        "model": cell.model, "dataset": "actg175", "split": str(cell.split),
        "split_seed": int(cell.split_seed),
        "graph": {"kind": "complete", "n_nodes": int(cell["graph.n_nodes"])}}
    if cell.model == "treatments":
        options["states"] = [float(a) for a in str(cell.states).split(",")]
    else:
        options["arm"] = int(cell.arm)
    if pd.notna(cell.get("patients")):
        options["patients"] = int(cell.patients)
    return InferenceConfig.from_options(**options)


def centre_frames(cell: pd.Series) -> list[pd.DataFrame]:
    """ACTG 175's rows (``arms``, ``days``, ``cens``) of each centre, as the family splits
    them (:func:`sweep.inference.simulate.treatment_frames` for best-treatment cells,
    :func:`~sweep.inference.simulate.cox_centres` for a Cox model's one arm)."""
    config = _config(cell)
    if config.model == "treatments":
        return treatment_frames(config, config.graph.n_nodes)
    return [pd.DataFrame({"arms": np.where(c.covariate == 1, config.arm, 0),
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


def _km(ax: plt.Axes, frame: pd.DataFrame, colours: Mapping[int, Any]) -> None:
    from lifelines import KaplanMeierFitter

    for arm, rows in frame.groupby("arms", sort=True):
        fitter = KaplanMeierFitter(label=f"{ARMS[int(arm)]} ({len(rows)})")
        fitter.fit(rows["days"], rows["cens"])
        fitter.plot_survival_function(ax=ax, color=colours[int(arm)], ci_show=True, lw=1.3,
                                      ci_alpha=0.2)
    ax.set_xlabel("days")
    ax.legend(fontsize=7, title="arm (patients)", title_fontsize=7, frameon=False,
              loc="lower left")


def km_figure(summary: pd.DataFrame, centre: int = 0) -> sns.FacetGrid:
    """Fig. 4: Kaplan–Meier curves of ACTG 175 by arm, pooled and at one centre (the
    split of the results' best-treatment cells, or of their Cox cells), with their 95%
    intervals; right, each treatment's log hazard ratio against ZDV with its 95%
    interval, pooled and at the centre (lifelines, penalizer 0.05)."""
    cell = survival_cell(summary)
    frames = centre_frames(cell)
    if not 0 <= centre < len(frames):
        raise MissingData(f"km_figure: centre {centre} of {len(frames)}")
    pooled = pd.concat(frames, ignore_index=True)
    local = frames[centre]
    n = len(frames)
    grid = panel_grid(["pooled (centralized)", f"centre {centre + 1} of {n}",
                  "log hazard ratio vs ZDV"], height=3.4, aspect=1.15)
    left, middle, right = grid.axes.flat
    arms = sorted(int(a) for a in pooled["arms"].unique())
    colours = dict(zip(arms, _palette(len(arms)), strict=False))
    _km(left, pooled, colours)
    _km(middle, local, colours)
    left.set_ylabel("survival probability")
    middle.set_ylim(left.get_ylim())
    treatments = [a for a in arms if a != 0]
    table = pd.concat([hazard_ratios(pooled, treatments).assign(where="pooled"),
                       hazard_ratios(local, treatments).assign(where=f"centre {centre + 1}")],
                      ignore_index=True)
    shapes = {"pooled": ("o", -0.12), f"centre {centre + 1}": ("s", 0.12)}
    for where, (marker, shift) in shapes.items():
        part = table[table["where"] == where]
        y = np.arange(len(part)) + shift
        for k, row in enumerate(part.itertuples()):
            arm = next(a for a in treatments if ARMS[a] == row.arm)
            right.errorbar(row.coef, y[k], xerr=[[row.coef - row.low], [row.high - row.coef]],
                           color=colours[arm], marker=marker, capsize=2, lw=1.2,
                           mfc="white" if where != "pooled" else colours[arm])
    right.axvline(0.0, color=GREY, lw=0.8, ls=DOTTED)
    right.set_yticks(range(len(treatments)), [ARMS[a] for a in treatments])
    right.invert_yaxis()
    right.set_xlabel("log hazard ratio θ (95% interval)")
    grid.figure.subplots_adjust(wspace=0.45)
    right.legend([Line2D([], [], color="0.2", marker="o", ls="none"),
                  Line2D([], [], color="0.2", marker="s", mfc="white", ls="none")],
                 ["pooled", f"centre {centre + 1}"], fontsize=7, frameon=False)
    pvalues = "; ".join(f"{row.arm} {row.p:.2g}" for row in
                        table[table["where"] == "pooled"].itertuples())
    local_p = "; ".join(f"{row.arm} {row.p:.2g}" for row in
                        table[table["where"] != "pooled"].itertuples())
    split = (f"{len(pooled):,} patients of ACTG 175 (lifelines' ACTG175.csv) split "
             f"{cell.split}ly at random among n = {n} centres by the generator of "
             f"split_seed = {int(cell.split_seed)}, as the results' {cell.model} cells "
             "split them")
    return finish(grid, f"{split}. Kaplan–Meier estimates per arm (lifelines) with 95% "
                  "(Greenwood) bands; legend: patients per arm. Right: the Cox model's log "
                  "hazard ratio of each treatment against ZDV (only the two arms' patients, "
                  f"lifelines' CoxPHFitter with penalizer {PENALIZER}), 95% Wald intervals; "
                  f"negative: the treatment improves survival. Wald p-values, pooled: "
                  f"{pvalues}; centre {centre + 1}: {local_p}.", "Fig. 4: ACTG 175 by arm")


# -- Fig. 5: best-treatment beliefs ---------------------------------------------------------

BELIEF_METHODS = ("am", "gm", "threshold_1", "threshold_2", "mle", "centralized")


def _belief_cells(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    rows = _family(summary, view)
    rows = rows[rows.method.isin(BELIEF_METHODS)]
    if not (rows.source == "belief").any():
        raise MissingData(f"{view}: needs belief rows of the MLE algorithms (method=am, gm, "
                          "threshold_1, threshold_2, mle: +experiment=inference_actg)")
    if "model" in rows and (rows.model == "treatments").any():
        rows = rows[rows.model == "treatments"]
    extra = _extra(rows, ("method",))
    # Options a method does not read (ϱ of another estimator) vary with the method only.
    extra = [c for c in extra if (_cells(rows).groupby("method")[c].nunique() > 1).any()]
    if extra:
        raise SharedCurve(extra, ["method"])
    return rows


def beliefs_figure(summary: pd.DataFrame) -> sns.FacetGrid:
    """Fig. 5: each algorithm's final belief in each state (for the best-treatment model,
    the arms ZDV+ddI, ZDV+Zal and ddI), mean over runs ± one standard error, beside the
    non-private MLE (Alg. 4) and the pooled baseline; right, the total variation
    distance of the private algorithms' beliefs to the non-private run on the same data
    (``tvd_private``) against the iteration t, bands ± one standard error."""
    rows = _belief_cells(summary, "beliefs_figure")
    beliefs = _final(rows[rows.source == "belief"])
    methods = [m for m in BELIEF_METHODS if (beliefs.method == m).any()]
    colours = dict(zip(methods, _palette(len(methods)), strict=False))
    states = list(dict.fromkeys(beliefs.sort_values("state").state))
    if (rows.model == "treatments").all():
        states = [a for a in ARMS.values() if a in states]
    grid = panel_grid(["final beliefs ν_T per state", "TVD to the non-private run"],
                 height=3.4, aspect=1.35)
    left, right = grid.axes.flat
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        part = beliefs[beliefs.method == method].set_index("state").reindex(states)
        x = np.arange(len(states)) + (i - (len(methods) - 1) / 2) * width
        left.bar(x, part.belief, width=width * 0.9, color=colours[method], alpha=0.35)
        left.errorbar(x, part.belief, yerr=[part.belief - part.belief_low,
                                            part.belief_high - part.belief],
                      color=colours[method], marker=MARKERS[i], ms=4, ls="none", capsize=2,
                      lw=1)
    left.axhline(1 / len(states), color=GREY, lw=0.8, ls=DOTTED)
    left.set_xticks(range(len(states)), states)
    left.set_ylim(0, 1.05)
    left.set_ylabel(axis("belief", FAMILY))
    left.set_xlabel("state" if not (rows.model == "treatments").all() else "treatment arm")
    simulated = rows[(rows.source == "simulated") & rows.method.isin(PRIVATE_MLE)]
    for i, method in enumerate(methods):
        part = simulated[simulated.method == method].sort_values("t")
        if part.empty:
            continue
        right.plot(part.t, part.tvd_private, color=colours[method], marker=MARKERS[i], ms=3,
                   lw=1.3)
        right.fill_between(part.t, part.tvd_private_low, part.tvd_private_high,
                           color=colours[method], alpha=0.2, lw=0)
    right.set_xlabel(ITERATION)
    right.set_ylabel("total variation distance")
    right.set_ylim(bottom=0)
    entries = {name("method", m, FAMILY): Line2D([], [], color=colours[m], marker=MARKERS[i],
                                                 lw=1.3) for i, m in enumerate(methods)}
    entries["uniform belief 1/|Θ|"] = Line2D([], [], color=GREY, ls=DOTTED, lw=0.8)
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    cells = _cells(rows)
    runs = sorted(cells.replicates.unique())
    first = cells.iloc[0]
    setting = (f"n = {int(first['graph.n_nodes'])} centres ({first['graph.kind']} graph), "
               f"ε = {first.epsilon:g}, α = {first.alpha:g}, β = {first.beta:g}")
    private = cells[cells.method.isin(PRIVATE_MLE)].set_index("method")
    rounds = "; ".join(f"{name('method', m, FAMILY)}: K = {int(c.rounds_k)}, "
                       f"T = {int(c.iterations_t)}, b = {c.noise_scale:g}"
                       for m, c in private.reindex([m for m in PRIVATE_MLE
                                                    if m in private.index]).iterrows())
    return finish(grid, f"{_count(len(cells), 'cell')}, one per algorithm ({setting}), "
                  f"{'–'.join(map(str, runs))} runs each. Left: the agents' average belief at "
                  "T, mean over runs (bars and markers) ± one standard error, the "
                  "non-private algorithms (Alg. 4, the pooled MLE) beside the private; for the "
                  "two-threshold estimators the belief is the normalized frequency of rounds "
                  "above the threshold. Right: the total variation distance of the agents' "
                  "beliefs to Alg. 4 run on the same data without noise, ± one standard "
                  f"error over runs. Rounds, iterations and Laplace scales: {rounds}.",
                  "Fig. 5: best-treatment identification")


def best_treatment(rows: pd.DataFrame) -> pd.DataFrame:
    """Per method, from the belief rows of every run (:func:`analysis.load.load`): the
    state with the largest mean final belief (``best``) and the share of runs whose
    agents' average final belief is largest, strictly, at each state (``share_<state>``),
    with the runs counted (``runs``)."""
    beliefs = _final(rows[(rows.source == "belief") & rows.method.isin(BELIEF_METHODS)])
    if beliefs.empty:
        raise MissingData("best_treatment: needs belief rows of every run")
    found = []
    for method, part in beliefs.groupby("method", sort=False):
        wide = part.pivot_table(index="replicate", columns="state", values="belief",
                                observed=True)
        top = wide.max(axis=1)
        unique = wide.eq(top, axis=0).sum(axis=1) == 1
        winner = wide.idxmax(axis=1).where(unique)
        row = {"method": method, "best": wide.mean().idxmax(), "runs": len(wide)}
        row.update({f"share_{s}": float((winner == s).mean()) for s in wide.columns})
        row.update({f"mean_{s}": float(wide[s].mean()) for s in wide.columns})
        found.append(row)
    return pd.DataFrame(found)


# -- Fig. 6: TVD to the ground truth against ε ------------------------------------------------

TVD_METHODS = ("am", "gm", "threshold_1", "threshold_2", "private_ol", "rizk")


def tvd_figure(summary: pd.DataFrame, aggregate: str | Sequence[str] = (),
               model: str | None = None) -> sns.FacetGrid:
    """Fig. 6: the agents' average total variation distance to the ground truth (uniform
    on Θ*, or the point mass on θ° online) at the last iteration T against ε, a panel per
    n, a colour per algorithm, Rizk et al. among them; error bars ± one standard error.
    One signal ``model`` (default: the Cox model's cells where several are present)."""
    rows = _family(summary, "tvd_figure")
    rows = rows[rows.method.isin(TVD_METHODS) & (rows.source == "simulated")]
    if rows.empty:
        raise MissingData("tvd_figure: needs simulated cells of the MLE algorithms "
                          "(+experiment=inference_fig6)")
    rows, left_out = _one_model(rows, model, "tvd_figure")
    if rows.epsilon.nunique() < 2:
        raise MissingData("tvd_figure: needs cells of the MLE algorithms at two values of ε "
                          "or more (+experiment=inference_fig6)")
    note = (f"{left_out}Each point is a cell's mean TVD over its runs at its last iteration "
            "T (T differs by method and ε: the theorems' T; Rizk et al. run the GM's T). No "
            "jitter is added (the authors' notebook adds U(0, 0.05)).")
    return curves(_options(rows), x="epsilon", y="tvd_truth", series=tuple(
        m for m in TVD_METHODS if (rows.method == m).any()), source="simulated",
        baselines=(), hue="method", aggregate=aggregate, log=(True, True),
        ylabel="TVD to the ground truth at T", title="Fig. 6: total variation distance "
        "to the ground truth", note=note)


# -- Sec. 14.3: run time per run --------------------------------------------------------------

def runtimes(results: str | Path, summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per inference cell of the results directory: its options (from the
    summary) and ``seconds``, its compute time (the provenance's ``wall_seconds``, summed
    over its pieces: the runs, not the preparation of the data), and ``per_run``, that over
    its replicates."""
    store = ResultsStore(Path(results))
    store.scan()
    seconds = {cell: record["wall_seconds"] for path in store.files
               for cell, record in cell_records(pq.read_schema(path).metadata).items()
               if record.get("family", FAMILY) == FAMILY}
    if summary is None:
        from .load import summaries

        summary = summaries(results, family=FAMILY)
    rows = _family(summary, "runtime_figure")
    cells = _cells(rows[rows.source == "simulated"]).copy()
    cells["seconds"] = cells.cell_id.map(seconds)
    cells = cells[cells.seconds.notna() & (cells.replicates > 0)]
    if cells.empty:
        raise MissingData(f"runtime_figure: no provenance of simulated inference cells in "
                          f"{results}")
    cells["per_run"] = cells.seconds / cells.replicates
    return cells


def runtime_figure(table: pd.DataFrame) -> sns.FacetGrid:
    """Fig. 14.2: the time per run against the number of centres n, log–log, a colour per
    algorithm and a line style per data size (time points), with the paper's reported
    ranges shaded."""
    if "per_run" not in table:
        raise MissingData("runtime_figure: needs the table of runtimes(results)")
    # Fig. 14.2 times the resampled data sets: those cells, where the results hold any.
    if "patients" in table and table.patients.notna().any():
        table = table[table.patients.notna()]
    table = table[table["graph.n_nodes"].notna()]
    if table["graph.n_nodes"].nunique() < 2:
        raise MissingData("runtime_figure: needs cells at two values of n or more "
                          "(+experiment=inference_runtime)")
    extra = _extra(table.drop(columns=["seconds", "per_run"], errors="ignore"),
                   ("graph.n_nodes", "patients", "method"))
    extra = [c for c in extra if c not in ("rho_am", "rho_gm", "rho_threshold")]
    if extra:
        raise SharedCurve(extra, ["graph.n_nodes", "patients", "method"])
    methods = sorted(table.method.unique())
    sizes = sorted(table.patients.dropna().unique()) or [None]
    colours = dict(zip(methods, _palette(len(methods)), strict=False))
    styles = dict(zip(sizes, ["-", "--", ":", "-."], strict=False))
    grid = panel_grid([""], height=3.6, aspect=1.5)
    ax = grid.axes.flat[0]
    ax.axhspan(*PAPER_RUNTIME, color="0.88", zorder=0)
    ax.axhspan(*PAPER_RUNTIME_ACTG, color="0.78", zorder=0)
    for i, method in enumerate(methods):
        for size in sizes:
            part = table[(table.method == method) & (
                table.patients == size if size is not None else True)].sort_values(
                "graph.n_nodes")
            ax.plot(part["graph.n_nodes"], part.per_run, color=colours[method],
                    ls=styles[size], marker=MARKERS[i], ms=4, lw=1.3)
    ns = sorted(table["graph.n_nodes"].unique())
    ax.set(xscale="log", yscale="log")
    ax.set_xticks(ns, [str(int(n)) for n in ns])
    ax.minorticks_off()
    ax.set_xlabel(axis("graph.n_nodes", FAMILY))
    ax.set_ylabel(axis("seconds", FAMILY))
    entries = {name("method", m, FAMILY): Line2D([], [], color=colours[m], marker=MARKERS[i],
                                                 lw=1.3) for i, m in enumerate(methods)}
    for size in sizes:
        if size is not None:
            entries[f"{int(size):,} time points"] = Line2D([], [], color="0.2",
                                                           ls=styles[size], lw=1.3)
    entries["paper, Sec. 14.3: ∼10⁻²–1 s"] = Patch(color="0.78")
    entries["paper, Sec. 5: 10⁻²–10 s"] = Patch(color="0.88")
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    first = table.iloc[0]
    runs = sorted(table.replicates.unique())
    return finish(grid, f"{_count(len(table), 'cell')}, one per algorithm, data size and "
                  f"n ({first['graph.kind']} graph, ε = {first.epsilon:g}, α = "
                  f"{first.alpha:g}, β = {first.beta:g}), {'–'.join(map(str, runs))} runs "
                  "each. Each point is one cell's compute time (its provenance: the runs "
                  "only; loading, resampling and splitting the data and the centres' "
                  "log-likelihoods are prepared before) divided by its runs: one measurement "
                  "per cell, the runs are timed together, so there is no interval; the runs' "
                  "work does not depend on the number of time points (the likelihoods are "
                  "prepared before), so the two sizes' points show the timing's noise. Shaded: "
                  "the ranges the paper reports (Sec. 14.3 for n = 6 to 96; Sec. 5 for n = 3 "
                  "to 96), measured on other hardware and code.",
                  "Fig. 14.2: time per run (ACTG 175 resampled)")


# -- Error rates and the theorems' bounds -------------------------------------------------------

def error_long(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per set error (``metric``: type I, type II, exact recovery), its value in
    ``rate`` with its Wilson band; a bound row keeps only the error it bounds."""
    bands = [f"{m}{s}" for m in ERRORS for s in ("", "_low", "_high")]
    parts = []
    for metric, label in ERRORS.items():
        part = rows[rows[metric].notna()]
        # A Wilson interval holds its rate, but rounding can put a rate of 1 a hair above
        # the interval's end.
        parts.append(part.drop(columns=[c for c in bands if c in part]).assign(
            metric=label, rate=part[metric],
            rate_low=np.minimum(part[f"{metric}_low"], part[metric]),
            rate_high=np.maximum(part[f"{metric}_high"], part[metric])))
    return derived(pd.concat(parts, ignore_index=True), rows, "rate", "proportion")


def error_rates(summary: pd.DataFrame, x: str | None = None,
                aggregate: str | Sequence[str] = (), model: str | None = None
                ) -> sns.FacetGrid:
    """Type I error, type II error and exact recovery of the returned sets (Wilson
    bands), against ε (the last iteration T of each cell) or against t, a panel per
    error, a colour per algorithm, each cell's theorem bound (Thm 4.2 for GM's type I and
    AM's type II, Thm 4.3 for Alg. 2, Thm 4.7 for Alg. 3's exact recovery) as its
    reference line. One signal ``model`` (default: the Cox model's cells where several are
    present); the pooled baselines of the tests (``test`` set) are not drawn."""
    rows = _family(summary, "error_rates")
    rows = rows[rows.method.isin(SET_METHODS) & rows.source.isin(["simulated", "bound"])]
    if "test" in rows:
        rows = rows[rows.test.isna()]
    simulated = rows[rows.source == "simulated"]
    if simulated.empty or simulated.type_i_error.isna().all():
        raise MissingData("error_rates: needs simulated rows of the MLE or online algorithms "
                          "(+experiment=inference_quickstart or inference_fig6)")
    rows, left_out = _one_model(rows, model, "error_rates")
    simulated = rows[rows.source == "simulated"]
    if x is None:
        x = "epsilon" if simulated.epsilon.nunique() > 1 else "t"
    if x == "epsilon" and simulated.epsilon.nunique() < 2:
        raise MissingData("error_rates: needs cells at two values of ε or more for x=epsilon")
    if x == "t":
        # A bound is the theorem's guarantee at T: drawn flat over the cell's checkpoints,
        # or a single point would not show.
        times = simulated[["cell_id", "t"]].drop_duplicates()
        bounds = rows[rows.source == "bound"].drop(columns="t").merge(times, on="cell_id")
        rows = pd.concat([rows[rows.source != "bound"], bounds], ignore_index=True)
        rows.attrs.update(summary.attrs)
    long = error_long(_options(rows))
    series = tuple(m for m in SET_METHODS if (simulated.method == m).any())
    bound = (rows.source == "bound").any()
    note = ("Reference lines: each cell's theorem bound on the error it bounds (GM's type "
            "I ≤ 2α and AM's type II ≤ 2(1 − β), Thm 4.2; Alg. 2's |Θ̄|e^{−2Kπ₁²} and "
            "|Θ*|e^{−2Kπ₂²}, Thm 4.3; Alg. 3's exact recovery ≥ 1 − 2η, Thm 4.7), in the "
            "cell's colour, at its T." if bound else "")
    if x == "epsilon":
        note = "Each point is a cell's rate at its last iteration T. " + note
    elif bound:
        note += " The bounds hold at T; they are drawn flat over t."
    grid = curves(long, x=x, y="rate", series=series, hue="method", col="metric",
                  baselines=("centralized",) if "centralized" not in series else (),
                  aggregate=aggregate, log=(True, False), sharey=True,
                  ylabel="rate over runs (agents' average)", note=(left_out + note).strip(),
                  title="Set errors of the returned estimates")
    if x == "t":
        for ax in grid.axes[-1]:
            ax.set_xlabel(ITERATION)
    return grid


# -- Views for ``python -m analysis report`` -----------------------------------------------------

def _runtime_view(results: str | Path | Sequence[str | Path]) -> Callable[[pd.DataFrame],
                                                                          sns.FacetGrid]:
    paths = [results] if isinstance(results, str | Path) else list(results)

    def draw(summary: pd.DataFrame) -> sns.FacetGrid:
        tables = []
        for path in paths:
            try:
                tables.append(runtimes(path, summary))
            except MissingData:
                continue
        if not tables:
            raise MissingData("runtime_figure: no provenance of inference cells")
        table = pd.concat(tables).drop_duplicates("cell_id")
        return runtime_figure(table)
    return draw


def views(results: str | Path | Sequence[str | Path]
          ) -> dict[str, Callable[[pd.DataFrame], sns.FacetGrid]]:
    """The inference views as a report draws them from a summary; the run times read the
    provenance of ``results``."""
    return {
        "inference_power_rr": functools.partial(power_figure, method="rr"),
        "inference_power_laplace": functools.partial(power_figure, method="laplace"),
        "inference_km": km_figure,
        "inference_beliefs": beliefs_figure,
        "inference_tvd": tvd_figure,
        "inference_runtime": _runtime_view(results),
        "inference_error_rates": error_rates,
    }


# -- The claims of the paper, checked ---------------------------------------------------------

def decreasing(values: Sequence[float]) -> bool:
    """Whether ``values`` (in increasing n) strictly decrease."""
    return all(b < a for a, b in itertools.pairwise(values))


def largest_at(table: pd.DataFrame, column: str, p: float) -> dict[str, bool]:
    """Per n: whether ``column`` is largest at ``p`` among the p of that n."""
    return {f"n = {n}": bool(part.loc[part[column].idxmax(), "p"] == p)
            for n, part in table.groupby("n")}


def final_rates(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell with a bound row, the bounded metric at T: the simulated rate with its
    Wilson 95% interval, the bound, and whether the rate is within it (``holds``: the
    rate does not exceed an upper bound, or fall below a lower bound, by more than its
    interval)."""
    rows = _family(summary, "final_rates")
    rows = rows[rows.method.isin(SET_METHODS)]
    bounds = rows[rows.source == "bound"]
    simulated = _final(rows[rows.source == "simulated"]).set_index("cell_id")
    found = []
    for row in bounds.itertuples(index=False):
        metric = next((m for m in ERRORS if pd.notna(getattr(row, m))), None)
        if metric is None or row.cell_id not in simulated.index:
            continue
        mine = simulated.loc[row.cell_id]
        count = float(mine.n)
        rate = float(mine[metric])
        low, high = (float(v.iloc[0]) for v in wilson(pd.Series([rate]), pd.Series([count]),
                                                      Z95))
        bound = float(getattr(row, metric))
        lower = metric == "exact_recovery"
        holds = high >= bound if lower else low <= bound
        found.append({"cell_id": row.cell_id, "method": row.method, "metric": metric,
                      "rate": rate, "low": low, "high": high, "bound": bound,
                      "lower": lower, "holds": holds, "epsilon": mine.epsilon,
                      "n": int(mine["graph.n_nodes"]), "runs": int(count),
                      "noise_scale": float(mine.noise_scale),
                      "iterations_t": int(mine.iterations_t)})
    return pd.DataFrame(found)


def rizk_ratios(summary: pd.DataFrame, methods: Sequence[str] = PRIVATE_MLE) -> pd.DataFrame:
    """Per n, ε and private MLE method: Rizk et al.'s mean TVD to the ground truth at T
    over the method's, with each's standard error and that of the ratio (delta method),
    and Rizk et al.'s TVD to their own noiseless run (``rizk_private``)."""
    rows = _family(summary, "rizk_ratios")
    final = _final(rows[rows.source == "simulated"])
    keys = ["graph.n_nodes", "epsilon"]
    rizk = final[final.method == "rizk"].set_index(keys)
    if rizk.empty:
        raise MissingData("rizk_ratios: needs cells of Rizk et al. (method=rizk)")
    found = []
    for method in methods:
        ours = final[final.method == method].set_index(keys)
        for key in ours.index.intersection(rizk.index):
            theirs, mine = rizk.loc[key], ours.loc[key]
            r, o = float(theirs.tvd_truth), float(mine.tvd_truth)
            r_se = float(theirs.tvd_truth_high - theirs.tvd_truth)
            o_se = float(mine.tvd_truth_high - mine.tvd_truth)
            ratio = r / o if o > 0 else math.inf
            se = ratio * math.hypot(r_se / r if r else 0.0, o_se / o) if o > 0 else math.nan
            found.append({"n": int(key[0]), "epsilon": float(key[1]), "method": method,
                          "rizk": r, "rizk_se": r_se, "ours": o, "ours_se": o_se,
                          "ratio": ratio, "ratio_se": se,
                          "rizk_private": float(theirs.tvd_private)})
    return pd.DataFrame(found)


def pvalues_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per method of the test cells (``test``, ``centralized``) from every run's rows
    (:func:`analysis.load.load`): the median p-value over runs, its order-statistic 95%
    interval, the share of runs below 10⁻⁵ and the rejection rate at α, with the runs."""
    found = []
    for method, part in rows[(rows.source == "simulated") & rows.p_value.notna()].groupby(
            "method", sort=False):
        values = np.sort(part.p_value.to_numpy(float))
        ranks = quantile_ranks(len(values), 0.5)
        found.append({"method": method, "median": float(np.median(values)),
                      "low": float(values[ranks.low - 1]),
                      "high": float(values[ranks.high - 1]),
                      "below_1e5": float((values < 1e-5).mean()),
                      "reject": float(part.reject.mean()), "runs": len(values),
                      "alpha": float(part.alpha.iloc[0])})
    return pd.DataFrame(found)


def likelihood_gap(cell: pd.Series) -> float:
    """Λ(θ*) − max over the other states of Λ, Λ = Σ_i log ℓ_i the centres' partial
    log-likelihoods (eq. (3)), for a Cox model cell: the gap l_{n,Θ} the private
    algorithms must resolve through their noise."""
    states = np.array([float(v) for v in str(cell.states).split(",")])
    total = sum(survival.partial_loglik(survival.Patients(
        frame.days.to_numpy(), frame.cens.to_numpy() == 1, frame.treated.to_numpy()),
        states, str(cell.ties)) for frame in cox_centre_frames(cell))
    ordered = np.sort(np.asarray(total))
    return float(ordered[-1] - ordered[-2])


def score_spread(cell: pd.Series) -> float:
    """The largest difference between two arms' scores (log GLR against ZDV) at one
    centre, for a best-treatment cell, as the family computes them
    (:func:`sweep.inference.simulate.treatment_loglik`)."""
    config = _config(cell)
    local, _, _ = treatment_loglik(config, config.graph.n_nodes)
    return float((local.max(axis=1) - local.min(axis=1)).max())


def load_rows(root: str | Path, **filters: Any) -> pd.DataFrame:
    """The inference rows of a results directory (every run), filtered."""
    return load(root, family=FAMILY, **filters)


__all__ = [
    "FAMILY",
    "Curve",
    "beliefs_figure",
    "best_treatment",
    "centre_frames",
    "cox_centre_frames",
    "critical_table",
    "crossing",
    "error_rates",
    "final_rates",
    "hazard_ratio",
    "hazard_ratios",
    "km_figure",
    "power_curves",
    "power_figure",
    "pvalues_table",
    "rizk_ratios",
    "runtime_figure",
    "runtimes",
    "survival_cell",
    "tvd_figure",
    "views",
]


# -- The document's figures ----------------------------------------------------------------------

def _figure_runtime(summary: pd.DataFrame, path: Path) -> sns.FacetGrid:
    return runtime_figure(runtimes(path, summary))


#: The reproduction document's figures by name, each drawn from its preset's summary and
#: results directory (``analysis/reproduce.py``'s presets say which).
FIGURES: dict[str, Callable[[pd.DataFrame, Path], sns.FacetGrid]] = {
    "inference_fig1": lambda summary, _: power_figure(summary, "rr"),
    "inference_fig2": lambda summary, _: power_figure(summary, "laplace"),
    "inference_fig4": lambda summary, _: km_figure(summary),
    "inference_fig5": lambda summary, _: beliefs_figure(summary),
    "inference_fig6": lambda summary, _: tvd_figure(summary),
    "inference_errors": lambda summary, _: error_rates(summary),
    "inference_fig14_2": _figure_runtime,
}
