"""The inference family's figures (Papachristou & Rahimian, "Differentially Private
Distributed Inference"), ``family=inference``.

Every figure takes a summary (:func:`analysis.load.summaries`: mean over replicates,
Wilson intervals for the proportions ``reject``, ``type_i_error``, ``type_ii_error`` and
``exact_recovery``, ± one standard error for the continuous metrics) and raises
:class:`~analysis.load.MissingData` when the results cannot make it:

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
  provenance (:func:`~.statistics.runtimes` reads it from the results directories);
- :func:`error_rates`: type I and II errors and exact recovery against ε or t, with the
  theorems' bounds (``source = "bound"``) as each cell's reference line.

:data:`VIEWS` and :data:`FIGURES` draw them from a :class:`~analysis.study.Source`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from sweep.inference.api import ARMS

from ...labels import axis, name, vocabulary
from ...load import MissingData
from ...numbers import percent, span
from ...plot import GREY, SharedCurve, curves, derived, finish, panel_grid
from ...study import Source, View
from .actg import PENALIZER, centre_frames, hazard_ratios, survival_cell
from .selection import (
    BELIEF_METHODS,
    ERRORS,
    FAMILY,
    PRIVATE_MLE,
    SET_METHODS,
    extra_options,
    family_rows,
    final_rows,
    one_model,
    per_cell,
    without_derived,
)
from .statistics import (
    PAPER_RUNTIME,
    PAPER_RUNTIME_ACTG,
    Curve,
    power_curves,
    runtimes,
    timed_runs,
)

#: Marker shapes, by rank of a series: they tell the curves apart where hues do not (in
#: grey print, to a colour-blind reader).
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
#: The x label of t: an iteration of the belief exchange (a round online).
ITERATION = "iteration t"
DOTTED = (0, (1, 1))
DASHED = (0, (4, 2))
#: The methods of Fig. 6.
TVD_METHODS = ("am", "gm", "threshold_1", "threshold_2", "private_ol", "rizk")


#: Colours of curves that are not methods (the toy's n or p, the arms), in order: the
#: Okabe–Ito hues with the ones far apart first (the colour-blind palette's orange and
#: vermillion side by side are hard to tell apart).
DISTINCT = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000",
            "#f0e442")


def _palette(count: int) -> list[Any]:
    return [DISTINCT[i % len(DISTINCT)] for i in range(max(count, 1))]


def _method_colours(methods: Sequence[str]) -> dict[str, Any]:
    """Each method's fixed colour (the vocabulary's ``colours``: one hue per method across
    the family's figures)."""
    fixed = vocabulary(FAMILY).colours
    return {m: fixed[m] for m in methods}


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _nearest(values: Sequence[float], wanted: float) -> float:
    values = sorted(set(values))
    return min(values, key=lambda v: (abs(v - wanted), -v))


# -- Sec. 2: power against ε and the critical budget ε* ------------------------------------

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
                  "Fig. 1: randomized response (Sec. 2's binary signals)" if rr else
                  "Fig. 2: Laplace noise (Sec. 2's binary signals)")


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
             f"{cell['dataset.split']}ly at random among n = {n} centres by the generator "
             f"of dataset.split_seed = {int(cell['dataset.split_seed'])}, as the results' "
             f"{cell['model.kind']} cells split them")
    return finish(grid, f"{split}. Kaplan–Meier estimates per arm (lifelines) with 95% "
                  "(Greenwood) bands; legend: patients per arm. Right: the Cox model's log "
                  "hazard ratio of each treatment against ZDV (only the two arms' patients, "
                  f"lifelines' CoxPHFitter with penalizer {PENALIZER}), 95% Wald intervals; "
                  f"negative: the treatment improves survival. Wald p-values, pooled: "
                  f"{pvalues}; centre {centre + 1}: {local_p}.", "Fig. 4: ACTG 175 by arm")


# -- Fig. 5: best-treatment beliefs ---------------------------------------------------------

def _belief_cells(summary: pd.DataFrame, view: str) -> pd.DataFrame:
    rows = family_rows(summary, view)
    rows = rows[rows.method.isin(BELIEF_METHODS)]
    if not (rows.source == "belief").any():
        raise MissingData(f"{view}: needs belief rows of the MLE algorithms (method=am, gm, "
                          "threshold_1, threshold_2, mle: +experiment=inference_actg)")
    if (rows["model.kind"] == "treatments").any():
        rows = rows[rows["model.kind"] == "treatments"]
    extra = extra_options(rows, ("method",))
    # Options a method does not read (ϱ of another estimator) vary with the method only.
    extra = [c for c in extra if (per_cell(rows).groupby("method")[c].nunique() > 1).any()]
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
    beliefs = final_rows(rows[rows.source == "belief"])
    methods = [m for m in BELIEF_METHODS if (beliefs.method == m).any()]
    colours = _method_colours(methods)
    states = list(dict.fromkeys(beliefs.sort_values("state").state))
    treatments = (rows["model.kind"] == "treatments").all()
    if treatments:
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
    left.set_xlabel("treatment arm" if treatments else "state")
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
    cells = per_cell(rows)
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
                  "Fig. 5: best-treatment identification (ACTG 175, 3 arms against ZDV)"
                  if treatments else
                  f"Fig. 5: final beliefs ({rows['model.kind'].iloc[0]} model)")


# -- Fig. 6: TVD to the ground truth against ε ------------------------------------------------

def tvd_figure(summary: pd.DataFrame, aggregate: str | Sequence[str] = (),
               model: str | None = None) -> sns.FacetGrid:
    """Fig. 6: the agents' average total variation distance to the ground truth (uniform
    on Θ*, or the point mass on θ° online) at the last iteration T against ε, a panel per
    n, a colour per algorithm, Rizk et al. among them; error bars ± one standard error.
    One signal ``model`` (default: the Cox model's cells where several are present)."""
    rows = family_rows(summary, "tvd_figure")
    rows = rows[rows.method.isin(TVD_METHODS) & (rows.source == "simulated")]
    if rows.empty:
        raise MissingData("tvd_figure: needs simulated cells of the MLE algorithms "
                          "(+experiment=inference_fig6)")
    rows, left_out = one_model(rows, model, "tvd_figure")
    if rows.epsilon.nunique() < 2:
        raise MissingData("tvd_figure: needs cells of the MLE algorithms at two values of ε "
                          "or more (+experiment=inference_fig6)")
    cell = rows[rows.mle_set.notna()].iloc[0]
    # The uniform belief on Θ against the ground truth (uniform on Θ*): what a belief that
    # learned nothing scores.
    uniform = 1 - len(str(cell.mle_set).split(",")) / len(str(cell["model.states"]).split(","))
    data = ("ACTG 175, ddI against ZDV" if str(cell.get("dataset.kind")) == "actg175"
            else str(cell["model.kind"]))
    note = (f"{left_out}Each point is a cell's mean TVD over its runs at its last iteration "
            "T (T differs by method and ε: the theorems' T; Rizk et al. run the GM's T). No "
            "jitter is added (the authors' notebook adds U(0, 0.05)). The dotted grey line "
            f"is the uniform belief's TVD, {uniform:.2g}: below it a belief has learned "
            "something.")
    grid = curves(without_derived(rows), x="epsilon", y="tvd_truth", series=tuple(
        m for m in TVD_METHODS if (rows.method == m).any()), source="simulated",
        baselines=(), hue="method", aggregate=aggregate, log=(True, True),
        ylabel="TVD to the ground truth at T", title="Fig. 6: total variation distance to "
        f"the ground truth ({data})", note=note)
    for ax in grid.axes.flat:
        ax.axhline(uniform, color=GREY, lw=1.0, ls=DOTTED, zorder=1.5)
        ax.annotate("uniform belief", (1.0, uniform), xycoords=("axes fraction", "data"),
                    xytext=(-2, 2), textcoords="offset points", ha="right", va="bottom",
                    fontsize=7, color=GREY)
    return grid


# -- Sec. 14.3: run time per run --------------------------------------------------------------

def _times_grid(table: pd.DataFrame) -> sns.FacetGrid:
    """Seconds (``seconds``, with ``low`` and ``high`` where the table has them) against
    the number of centres ``graph.n_nodes``, log–log, a panel per privacy setting (ε, α),
    a colour per method and a line style per data size (``dataset.patients``), the
    paper's ranges shaded."""
    methods = sorted(table.method.unique())
    sizes = sorted(table["dataset.patients"].dropna().unique()) or [None]
    colours = _method_colours(methods)
    styles = dict(zip(sizes, ["-", "--", ":", "-."], strict=False))
    settings = sorted(set(zip(table.epsilon, table.alpha, strict=True)))
    grid = panel_grid([f"ε = {e:g}, α = 1 − β = {a:g}" for e, a in settings], height=3.6,
                      aspect=1.2, sharey=True)
    for ax, (epsilon, alpha) in zip(grid.axes.flat, settings, strict=True):
        ax.axhspan(*PAPER_RUNTIME, color="0.88", zorder=0)
        ax.axhspan(*PAPER_RUNTIME_ACTG, color="0.78", zorder=0)
        setting = table[(table.epsilon == epsilon) & (table.alpha == alpha)]
        for i, method in enumerate(methods):
            for size in sizes:
                part = setting[(setting.method == method) & (
                    setting["dataset.patients"] == size if size is not None else True)
                    ].sort_values("graph.n_nodes")
                errors = ([part.seconds - part.low, part.high - part.seconds]
                          if "low" in part else None)
                ax.errorbar(part["graph.n_nodes"], part.seconds, yerr=errors,
                            color=colours[method], ls=styles[size], marker=MARKERS[i], ms=4,
                            lw=1.3, capsize=2)
        ns = sorted(table["graph.n_nodes"].unique())
        ax.set(xscale="log", yscale="log")
        ax.set_xticks(ns, [str(int(n)) for n in ns])
        ax.minorticks_off()
        ax.set_xlabel(axis("graph.n_nodes", FAMILY))
    grid.axes.flat[0].set_ylabel(axis("seconds", FAMILY))
    entries = {name("method", m, FAMILY): Line2D([], [], color=colours[m], marker=MARKERS[i],
                                                 lw=1.3) for i, m in enumerate(methods)}
    for size in sizes:
        if size is not None:
            entries[f"{int(size):,} time points"] = Line2D([], [], color="0.2",
                                                           ls=styles[size], lw=1.3)
    entries["paper, Sec. 14.3: ∼10⁻²–1 s"] = Patch(color="0.78")
    entries["paper, Sec. 5: 10⁻²–10 s"] = Patch(color="0.88")
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    return grid


def timed_figure(table: pd.DataFrame) -> sns.FacetGrid:
    """Fig. 14.2 like with like: our time for one whole run (the centres' log-likelihoods
    and the belief exchange, one thread) against n (:func:`.statistics.timed_runs`), the
    mean of log₁₀ seconds over the repetitions with ± one standard error."""
    if "log_mean" not in table or table.n.nunique() < 2:
        raise MissingData("timed_figure: needs timed_runs() of cells at two values of n or "
                          "more (+experiment=inference_runtime)")
    low, high = table.log_mean - table.log_se, table.log_mean + table.log_se
    grid = _times_grid(table.rename(columns={"n": "graph.n_nodes",
                                             "patients": "dataset.patients"}).assign(
        seconds=10 ** table.log_mean, low=10 ** low, high=10 ** high))
    share = table.prepare / (table.prepare + table.exchange)
    return finish(grid, f"{_count(len(table), 'cell')}, one per algorithm, data size (ACTG "
                  "175's ddI and ZDV patients resampled), n (complete graph) and privacy "
                  "setting (a panel each: Sec. 14.3's text, ε = 0.1, α = 0.1; Fig. 14.2's "
                  "caption, ε = 1, α = 0.05). Each point "
                  "is one whole run, as the authors' notebook times its own: the centres' "
                  "log-likelihoods on their patients, then the belief exchange, in a fresh "
                  "process with the numerical libraries on one thread; geometric mean of "
                  f"{int(table.repeats.max())} runs ± one standard error (log scale). The "
                  f"likelihoods take {span(share, percent)} of a run. Shaded: the ranges "
                  "the paper reports (Sec. 14.3 for n = 6 to 96; Sec. 5 for n = 3 to 96), "
                  "measured on other hardware and code.",
                  "Fig. 14.2: time per run (ACTG 175 resampled)")


def runtime_figure(table: pd.DataFrame) -> sns.FacetGrid:
    """Fig. 14.2: the time per run against the number of centres n, log–log, a colour per
    algorithm and a line style per data size (time points), with the paper's reported
    ranges shaded."""
    if "per_run" not in table:
        raise MissingData("runtime_figure: needs the table of runtimes(results)")
    # Fig. 14.2 times the resampled data sets: those cells, where the results hold any.
    if "dataset.patients" in table and table["dataset.patients"].notna().any():
        table = table[table["dataset.patients"].notna()]
    table = table[table["graph.n_nodes"].notna()]
    if table["graph.n_nodes"].nunique() < 2:
        raise MissingData("runtime_figure: needs cells at two values of n or more "
                          "(+experiment=inference_runtime)")
    extra = extra_options(table.drop(columns=["seconds", "per_run"], errors="ignore"),
                   ("graph.n_nodes", "dataset.patients", "method"))
    # The privacy setting has a panel each.
    extra = [c for c in extra if c not in ("rho_am", "rho_gm", "rho_threshold", "epsilon",
                                           "alpha", "beta")]
    if extra:
        raise SharedCurve(extra, ["graph.n_nodes", "dataset.patients", "method"])
    grid = _times_grid(table.assign(seconds=table.per_run))
    first = table.iloc[0]
    runs = sorted(table.replicates.unique())
    return finish(grid, f"{_count(len(table), 'cell')}, one per algorithm, data size and "
                  f"n ({first['graph.kind']} graph), a panel per privacy setting (Sec. "
                  "14.3's text: ε = 0.1, α = 0.1; Fig. 14.2's caption: ε = 1, α = 0.05), "
                  f"{'–'.join(map(str, runs))} runs each. Each point is one cell's compute "
                  "time (its provenance: the runs only; loading, resampling and splitting the "
                  "data and the centres' log-likelihoods are prepared before) divided by its "
                  "runs: one measurement per cell, the runs are timed together, so there is "
                  "no interval; the runs' work does not depend on the number of time points "
                  "(the likelihoods are prepared before), so the two sizes' points show the "
                  "timing's noise. Shaded: the ranges the paper reports (Sec. 14.3 for n = 6 "
                  "to 96; Sec. 5 for n = 3 to 96), measured on other hardware and code.",
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
    rows = family_rows(summary, "error_rates")
    rows = rows[rows.method.isin(SET_METHODS) & rows.source.isin(["simulated", "bound"])]
    if "test" in rows:
        rows = rows[rows.test.isna()]
    simulated = rows[rows.source == "simulated"]
    if simulated.empty or simulated.type_i_error.isna().all():
        raise MissingData("error_rates: needs simulated rows of the MLE or online algorithms "
                          "(+experiment=inference_quickstart or inference_fig6)")
    rows, left_out = one_model(rows, model, "error_rates")
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
    long = error_long(without_derived(rows))
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
                  title="Set errors of the returned estimates" + (
                      " (ACTG 175)" if (rows["dataset.kind"] == "actg175").all()
                      else ""))
    if x == "t":
        for ax in grid.axes[-1]:
            ax.set_xlabel(ITERATION)
    return grid


# -- The study's views ---------------------------------------------------------------------

def runtime_view(source: Source) -> sns.FacetGrid:
    """Fig. 14.2 from the provenance of the source's results directories (a cell stored in
    several is counted once)."""
    tables = []
    for path in source.results:
        try:
            tables.append(runtimes(path, source.summary))
        except MissingData:
            continue
    if not tables:
        raise MissingData("runtime_figure: no provenance of inference cells")
    return runtime_figure(pd.concat(tables).drop_duplicates("cell_id"))


#: The views the report and ``python -m analysis figure NAME`` draw from any results of
#: the family.
VIEWS: dict[str, View] = {
    "inference_power_rr": lambda source: power_figure(source.summary, "rr"),
    "inference_power_laplace": lambda source: power_figure(source.summary, "laplace"),
    "inference_km": lambda source: km_figure(source.summary),
    "inference_beliefs": lambda source: beliefs_figure(source.summary),
    "inference_tvd": lambda source: tvd_figure(source.summary, source.aggregate),
    "inference_runtime": runtime_view,
    "inference_error_rates": lambda source: error_rates(source.summary,
                                                        aggregate=source.aggregate),
}
#: The paper's figures the reproduction document shows: the views' drawings, under the
#: names its presets give them (the names of its figure files).
FIGURES: dict[str, View] = {
    "inference_fig1": VIEWS["inference_power_rr"],
    "inference_fig2": VIEWS["inference_power_laplace"],
    "inference_fig4": VIEWS["inference_km"],
    "inference_fig5": VIEWS["inference_beliefs"],
    "inference_fig6": VIEWS["inference_tvd"],
    "inference_errors": VIEWS["inference_error_rates"],
    "inference_fig14_2": lambda source: timed_figure(timed_runs(source.summary)),
}
