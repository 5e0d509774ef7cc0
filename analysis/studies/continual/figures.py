"""The continual study's statistics across replicates and its figures.

The paper states its guarantees as high-probability bounds: |μ̂_t − μ| is within the bound
with probability at least 1 − δ (Thms 3.1, 3.2 and 3.4, eq. (1) for Algorithm 2). So
every error is shown twice: the mean over replicates (band ± one standard error) and the
(1 − δ) quantile over replicates (band: a distribution-free order-statistic interval,
:func:`~analysis.order_statistics.quantile_ranks`), each with its cell's bound
(``source = "bound"``, :mod:`sweep.continual.bounds`) and Sec. 5's lower bound as
reference lines, per cell.

Figures (each takes the rows of :func:`analysis.load.load`, not a summary, since the
quantiles need the replicates):

- :func:`error_vs_time`: the error against t, mean and quantile side by side;
- :func:`error_vs_option`: the error at T against m (= M_T in the scaling preset) or ε;
- :func:`slope_figure`: the log–log slope of the mean error against M_T (the paper
  predicts about 1 for Algorithm 2, eq. (1), and ½ for Algorithms 3–6, App. B and
  Thms 3.1, 3.2 and 3.4, where the privacy error dominates), local and over the fixed
  fit and all cells, with bootstrap intervals (:func:`fit_slope`);
- :func:`orders_figure` and :func:`activation_figure`: every method's error at T under
  each arrival order, and when Algorithm 6's levels activate and the diversity condition
  (11) starts to hold.
"""

from __future__ import annotations

import itertools
import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from scipy import stats

from analysis.labels import axis, name, vocabulary
from analysis.load import summarize
from analysis.numbers import percent
from analysis.order_statistics import LEVEL, quantile_ranks
from analysis.plot import GREY, MissingData, curves, derived, finish, panel_grid
from sweep.continual.api import DERIVED, METHODS, ORDERS, default_prior_offset

FAMILY = "continual"
#: Bootstrap resamples of the replicates behind a slope's interval.
DRAWS = 2000
#: The paper's log–log slope of the privacy error against M_t: m/(tε) for Algorithm 2
#: (eq. (1), its noise calibrated to m = M_T here), √m/(tε) for Algorithms 3 and 4
#: (App. B, Thm 3.1) and √M_t/(tε) for 5 and 6 (Thms 3.2, 3.4); against ε, 1/ε for every
#: private method.
PREDICTED = {"alg2": 1.0, "alg3": 0.5, "alg4": 0.5, "alg5": 0.5, "alg6": 0.5}
STATISTICS = ("mean", "quantile")
KEYS = ["cell_id", "method", "source", "t"]
#: The range of m = M_T (contiguous arrivals) over which every scaling slope is fitted,
#: fixed before the runs were read and the same for every method: the largest m at which
#: the diversity condition (11) holds at T by its arithmetic alone (T/m = 4,096 users of m
#: samples against the (16/ε)·2L ln(3L√m/δ) = 2,291 it needs at m = 256, L = 8; at
#: m = 512 it needs 2,709 of 2,048), and the two octaves below, where every bound's
#: privacy term is above its statistical term.
SCALING_FIT = (64.0, 256.0)
FIT = "the fixed fit"


# -- Statistics across replicates --------------------------------------------------------

def quantiles(rows: pd.DataFrame, y: str = "abs_error", level: float = LEVEL) -> pd.DataFrame:
    """Per cell, method and checkpoint of the simulated rows: the (1 − δ) quantile of
    ``y`` over the replicates (δ the cell's ``failure_probability``, the paper's failure
    probability), with ``<y>_low`` and ``<y>_high`` the order-statistic interval of
    :func:`quantile_ranks` at ``level``, the number of replicates ``n``, the interval's
    ``coverage``, and the cell's constant columns.

    The rows of a group are sorted once, so each rank is one lookup: the groups of a
    sweep (cells × checkpoints) are many, the replicates of each few.
    """
    simulated = rows[(rows.source == "simulated") & rows[y].notna()]
    if simulated.empty:
        raise MissingData(f"no simulated rows with {y}")
    ordered = simulated.sort_values([*KEYS, y], kind="stable")
    values = ordered[y].to_numpy(float)
    starts = np.flatnonzero(~ordered.duplicated(KEYS).to_numpy())
    sizes = np.diff(np.append(starts, len(ordered)))
    firsts = ordered.iloc[starts]
    ranks = [quantile_ranks(int(n), float(1.0 - failure), level)
             for n, failure in zip(sizes, firsts.failure_probability, strict=True)]
    out = firsts[KEYS].reset_index(drop=True)
    for column, field in ((y, "point"), (f"{y}_low", "low"), (f"{y}_high", "high")):
        out[column] = values[starts + np.array([getattr(r, field) for r in ranks]) - 1]
    out["n"] = sizes
    out["coverage"] = [r.coverage for r in ranks]
    constants = [c for c in rows.columns if c not in (*rows.attrs.get("index", KEYS),
                                                      *rows.attrs.get("metrics", ()))]
    return out.merge(rows.drop_duplicates("cell_id")[constants], on="cell_id", how="left")


def summary_of(rows: pd.DataFrame, y: str = "abs_error") -> pd.DataFrame:
    """:func:`analysis.load.summarize` of ``y`` alone (mean ± one standard error)."""
    return summarize(rows, metrics=[y])


def references(summary: pd.DataFrame) -> pd.DataFrame:
    """The bound rows of a summary, each the reference of its cell's method: the
    theorem's bound as ``source = "bound"`` and Sec. 5's lower bound (``method =
    "lower_bound"`` in the results) as ``source = "lower_bound"``, so that a figure
    draws both with the cell's curve. Each is the mean over replicates, as M_t may be
    random."""
    simulated = summary[summary.source == "simulated"]
    own = simulated.drop_duplicates("cell_id").set_index("cell_id").method.astype(object)
    bounds = summary[summary.source == "bound"].copy()
    lower = (bounds.method == "lower_bound").to_numpy()
    bounds["method"] = bounds.cell_id.map(own)
    bounds["source"] = np.where(lower, "lower_bound", "bound")
    # Bounds of cells whose simulated rows were left out (e.g. methods not drawn).
    return bounds[bounds.method.notna()]


def statistics(rows: pd.DataFrame, y: str = "abs_error", level: float = LEVEL
               ) -> pd.DataFrame:
    """The mean (± one standard error) and the (1 − δ) quantile (order-statistic interval)
    of ``y`` per cell, method and checkpoint, told apart by ``statistic``, with the
    references of :func:`references` under both: a frame :func:`analysis.plot.curves`
    draws with ``col="statistic"``. ``attrs["coverage"]`` is the smallest coverage of
    the quantiles' intervals."""
    summary = summary_of(rows, y)
    mean = summary[summary.source == "simulated"]
    quantile = quantiles(rows, y, level)
    bounds = references(summary)
    parts = [mean.assign(statistic="mean"), quantile.drop(columns="coverage").assign(
        statistic="quantile"), *(bounds.assign(statistic=s) for s in STATISTICS)]
    # The family's derived cell columns depend on the method (a row column here): left
    # in, they would count as options that vary and split the panels. So does the prior's
    # offset where every cell with a prior has the family's default.
    frame = pd.concat(parts, ignore_index=True)
    offset = frame.prior_offset.dropna()
    default = np.allclose(offset, frame.max_samples[offset.index].map(default_prior_offset))
    frame = frame.drop(columns=[*DERIVED, *(["prior_offset"] if default else [])])
    frame = derived(frame, summary, y)
    frame.attrs["coverage"] = float(quantile.coverage.min())
    return frame


def final(rows: pd.DataFrame, sources: Sequence[str] = ("simulated",)) -> pd.DataFrame:
    """The rows of ``sources`` at each cell's last checkpoint (t = T)."""
    chosen = rows[rows.source.isin(sources)]
    return chosen[chosen.t == chosen.groupby("cell_id").t.transform("max")]


def _band_note(coverage: float, level: float = LEVEL) -> str:
    return (f"Quantile panels: the (1 − δ) quantile over replicates, X_(⌈n(1−δ)⌉), and as "
            f"band the order-statistic interval chosen for {percent(level)} confidence "
            f"from the binomial distribution (distribution-free); with these replicates it "
            f"covers the quantile with probability at least {percent(coverage)}")


def _families(rows: pd.DataFrame) -> pd.DataFrame:
    if "family" not in rows or not (rows.family == FAMILY).any():
        raise MissingData(f"needs rows of the {FAMILY} family (family={FAMILY})")
    return rows[rows.family == FAMILY]


# -- Error against t, m and ε -------------------------------------------------------------

BOUND_NOTE = ("Reference lines, per cell: the method's theorem bound with its constants "
              "(sweep/continual/bounds.py; c = bound_constant) and Sec. 5's lower bound "
              "1/√t + √M_t/(tε₀) with its constants set to 1, each the mean over "
              "replicates of the replicate's value (M_t may be random)")


def error_vs_time(rows: pd.DataFrame, methods: Sequence[str] | None = None,
                  title: str | None = None, height: float = 2.6) -> sns.FacetGrid:
    """The error ‖μ̂_t − μ‖_∞ against t, per method: the mean over replicates (left) and
    the (1 − δ) quantile (right), each cell with its bound and lower bound; what else
    varies (order, ε, m) goes to the panels' rows."""
    rows = _families(rows)
    if methods is not None:
        rows = rows[rows.method.isin([*methods, "lower_bound"])]
    frame = statistics(rows)
    return curves(frame, y="abs_error", source="simulated", hue="method", col="statistic",
                  series=tuple(methods or ()), height=height,
                  title=title or "Error against t: its mean and its (1 − δ) quantile over "
                                 "replicates",
                  note=f"{BOUND_NOTE}. {_band_note(frame.attrs['coverage'])}.")


def error_vs_option(rows: pd.DataFrame, x: str, title: str | None = None) -> sns.FacetGrid:
    """The error at the last checkpoint T against the option ``x`` (``max_samples``: m,
    which is M_T when every user seen gives m samples; ``epsilon``), log–log: a point per
    cell, mean and (1 − δ) quantile side by side, with each cell's bounds."""
    rows = _families(rows)
    present = rows[rows.source == "simulated"][x].nunique()
    if present < 2:
        raise MissingData(f"needs {FAMILY} cells at two values of {x} or more; the results "
                          f"have {present}")
    frame = statistics(rows)
    return curves(frame, x=x, y="abs_error", source="simulated", hue="method",
                  col="statistic", ylabel="error at t = T",
                  title=title or f"Error at T against {axis(x, FAMILY)}: its mean and its "
                                 "(1 − δ) quantile over replicates",
                  note=f"Each point is a cell's error at its last checkpoint T. {BOUND_NOTE}. "
                       f"{_band_note(frame.attrs['coverage'])}.")


# -- Slopes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SlopeFit:
    """A log–log slope of the mean error at T against ``x``, fitted over cells whose x
    lies in [``low``, ``high``], with its bootstrap interval [``ci_low``, ``ci_high``],
    and the slope of the method's mean bound over the same cells."""

    method: str
    low: float
    high: float
    cells: int
    slope: float
    ci_low: float
    ci_high: float
    bound: float


def _ols(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares slopes of each row of ``y`` on ``x``."""
    centred = x - x.mean()
    return (y - y.mean(axis=-1, keepdims=True)) @ centred / (centred @ centred)


def fit_slope(errors: Sequence[np.ndarray], x: Sequence[float], level: float = LEVEL,
              draws: int = DRAWS, seed: int = 0) -> tuple[float, float, float]:
    """The least-squares slope of log(mean error) on log x over cells, and its interval at
    ``level``: the bootstrap's percentile interval of the replicates' noise, widened by the
    fit's own misfit.

    ``errors[i]`` holds cell i's replicates, ``x[i]`` its abscissa. Each draw
    resamples every cell's replicates with replacement, independently (the replicates
    are the independent units, within a cell and across cells), and refits. Why the
    bootstrap rather than weighted least squares with the standard errors: the errors are
    heavy-tailed (sums of Laplace noise; Algorithm 6 explodes where (11) fails), so the
    delta-method variance of log(mean) that such weights need is unreliable exactly where
    a cell's standard error is not small against its mean, and the percentile interval
    needs no normality. The bootstrap alone says how far replicate noise moves the slope,
    not how far a line misses a curved log–log relation (the bounds' log factors): with
    three cells or more, each side of the interval is widened in quadrature by Student's
    t (cells − 2 degrees of freedom) times the least-squares standard error of the slope
    from the residuals of the cells' means. Those residuals hold some replicate noise too,
    so the interval errs wide.
    """
    if len(errors) < 2 or len(set(x)) < 2:
        raise MissingData("a slope needs cells at two values of x or more")
    logx = np.log(np.asarray(x, dtype=float))
    means = np.log(np.array([np.mean(e) for e in errors]))
    point = float(_ols(logx, means))
    rng = np.random.default_rng(seed)
    resampled = np.column_stack([
        e[rng.integers(0, len(e), size=(draws, len(e)))].mean(axis=1) for e in errors])
    slopes = _ols(logx, np.log(resampled))
    low, high = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    misfit = 0.0
    if len(errors) > 2:
        centred = logx - logx.mean()
        residuals = means - means.mean() - point * centred
        se = math.sqrt(residuals @ residuals / (len(errors) - 2) / (centred @ centred))
        misfit = float(stats.t.ppf((1 + level) / 2, len(errors) - 2)) * se
    return (point, point - math.hypot(point - float(low), misfit),
            point + math.hypot(float(high) - point, misfit))


def slopes(rows: pd.DataFrame, x: str, ranges: Mapping[str, tuple[float, float]],
           y: str = "abs_error") -> pd.DataFrame:
    """:class:`SlopeFit` of each method over each named range of ``x`` (closed), as a frame
    with a ``range`` column. ``x`` is a column of the rows at T: an option (``epsilon``)
    or a metric (``max_count``: M_T), whose mean over a cell's replicates is its
    abscissa."""
    at_end, bounds = final(rows), final(rows, ("bound",))
    bounds = bounds[bounds.method != "lower_bound"]
    found = []
    for method, cells in at_end.groupby("method", sort=True):
        abscissa = cells.groupby("cell_id")[x].mean()
        bound = bounds[bounds.method == method].groupby("cell_id")[y].mean()
        for label, (low, high) in ranges.items():
            chosen = abscissa[(abscissa >= low) & (abscissa <= high)].sort_values()
            if len(chosen) < 2:
                continue
            errors = [cells.loc[cells.cell_id == c, y].to_numpy(float) for c in chosen.index]
            slope, ci_low, ci_high = fit_slope(errors, chosen.to_numpy())
            bound_slope = float(_ols(np.log(chosen.to_numpy()),
                                     np.log(bound.reindex(chosen.index).to_numpy())))
            found.append({"range": label, **SlopeFit(method, float(chosen.min()), float(
                chosen.max()), len(chosen), slope, ci_low, ci_high, bound_slope).__dict__})
    if not found:
        raise MissingData(f"no method has cells at two values of {x} in the ranges")
    return pd.DataFrame(found)


def local_ranges(rows: pd.DataFrame, x: str) -> dict[str, tuple[float, float]]:
    """The ranges between neighbouring values of ``x`` (cells' means at T), named
    ``low–high``."""
    values = np.sort(final(rows).groupby("cell_id")[x].mean().round(9).unique())
    return {f"{a:g}–{b:g}": (a, b) for a, b in itertools.pairwise(values)}


def _colours(methods: Iterable[str]) -> dict[str, Any]:
    """Colours by method: each method's fixed colour (the vocabulary's ``colours``), as
    :func:`analysis.plot.curves` gives them, in the paper's order."""
    fixed = vocabulary([FAMILY]).colours
    present = set(methods)
    return {m: fixed[m] for m in METHODS if m in present}


def scaling_ranges(rows: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """The ranges of M_T the slopes are drawn over: the fixed fit (:data:`SCALING_FIT`,
    the one the verdicts use) and all cells (shown, not judged)."""
    every = final(rows).max_count
    return {FIT: SCALING_FIT, "all cells": (float(every.min()), float(every.max()))}


#: Marker shapes by rank of a method among those drawn: the colourblind palette's pinks
#: and oranges are close, the shapes tell them apart.
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")


def slope_figure(rows: pd.DataFrame, ranges: Mapping[str, tuple[float, float]] | None = None,
                 x: str = "max_count") -> sns.FacetGrid:
    """The log–log slope of the mean error at T against M_T (``x``), per method: left,
    between neighbouring cells (at their geometric mean), with the slope of the
    method's bound dash-dotted; right, fitted over ``ranges``. Error bars: bootstrap
    intervals (:func:`fit_slope`); grey lines at the paper's 1 and ½.

    The default ranges are those of :func:`scaling_ranges`: the fixed fit and all cells.
    """
    rows = _families(rows)
    if final(rows).groupby("cell_id")[x].mean().nunique() < 3:
        raise MissingData(f"slopes: needs {FAMILY} cells at three values of {x} or more "
                          "(run +experiment=continual_scaling)")
    if ranges is None and x == "max_count":
        ranges = scaling_ranges(rows)
    ranges = ranges or {"all cells": (0.0, math.inf)}
    local = slopes(rows, x, local_ranges(rows, x))
    fitted = slopes(rows, x, ranges)
    colours = _colours(local.method)
    # Not one y axis: a fit over three cells has one degree of freedom for its misfit, and
    # its interval would flatten the neighbouring slopes.
    grid = panel_grid(["between neighbouring cells", "fitted over ranges"])
    left, right = grid.axes.flat
    labels = list(dict.fromkeys(fitted["range"]))
    width = 0.6 / max(len(colours), 1)
    for i, (method, part) in enumerate(local.groupby("method", sort=True)):
        # Dodged a little on the log axis, so that the error bars do not hide each other.
        middle = np.sqrt(part["low"] * part["high"]) * 1.06 ** (i - (len(colours) - 1) / 2)
        left.errorbar(middle, part.slope, yerr=[part.slope - part.ci_low,
                                                part.ci_high - part.slope],
                      color=colours[method], marker=MARKERS[i], ms=4, lw=1.4, capsize=2)
        left.plot(middle, part.bound, color=colours[method], ls=(0, (5, 1, 1, 1)), lw=1)
        # As arrays: matplotlib reads a one-element Series as a scalar, through float().
        mine = fitted[fitted.method == method]
        position = (mine["range"].map(labels.index).to_numpy()
                    + (i - (len(colours) - 1) / 2) * width)
        slope, low, high = (mine[c].to_numpy() for c in ("slope", "ci_low", "ci_high"))
        right.errorbar(position, slope, yerr=[slope - low, high - slope],
                       color=colours[method], marker=MARKERS[i], ls="none", capsize=2)
        right.plot(position, mine.bound.to_numpy(), color=colours[method], marker="_", ms=12,
                   ls="none")
    left.set_xscale("log")
    left.set_xlabel(axis(x, FAMILY) + " at T")
    right.set_xticks(range(len(labels)), [
        f"{textwrap.fill(label, 16)}\n(M_T {part['low'].min():g}–{part['high'].max():g})"
        for label, part in fitted.groupby("range", sort=False)])
    left.set_ylabel("log–log slope of the mean error at T")
    for ax in (left, right):
        for level in sorted(set(PREDICTED.values())):
            ax.axhline(level, color=GREY, lw=0.8, ls=":")
    entries = {name("method", m, FAMILY): Line2D([], [], color=c, marker=MARKERS[i], lw=1.4)
               for i, (m, c) in enumerate(colours.items())}
    entries["bound's slope"] = Line2D([], [], color=GREY, ls=(0, (5, 1, 1, 1)), lw=1)
    entries["paper: 1 (Alg. 2), ½ (Algs 3–6)"] = Line2D([], [], color=GREY, ls=":", lw=0.8)
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    replicates = int(rows.replicates.max())
    return finish(grid, f"{final(rows).cell_id.nunique()} cells, {replicates} replicates each. "
                  "Left: the slope between each pair of neighbouring cells, at their "
                  "geometric mean M_T; right: the least-squares slope over the cells in "
                  "each range. Error bars: bootstrap percentile intervals at "
                  f"{percent(LEVEL)} ({DRAWS} resamples of every cell's replicates), over "
                  "three cells or more widened by the fit's misfit (Student t on cells − 2 "
                  "degrees of freedom times the least-squares standard error). "
                  "Dash-dotted lines and bars: the slope of the method's own bound, which "
                  "carries the bounds' log factors. Dotted: the paper's slopes of the "
                  "privacy term, 1 (m/(tε), Algorithm 2) and ½ (√m/(tε) or √M_t/(tε), "
                  "Algorithms 3–6).", "Log–log slope of the error against M_T")


# -- Arrival orders ---------------------------------------------------------------------

#: The column of a cell's arrival order: the kind of the nested group ``order`` (the
#: study's own tables, :func:`at_end` and :func:`activations`, call it ``order``).
ORDER = "order.kind"


def _orders_present(rows: pd.DataFrame) -> list[str]:
    present = set(rows[ORDER].dropna())
    if len(present) < 2:
        raise MissingData(f"orders: needs {FAMILY} cells under two arrival orders or more "
                          "(run +experiment=continual_orders)")
    return [o for o in ORDERS if o in present]


def at_end(rows: pd.DataFrame, y: str = "abs_error", level: float = LEVEL) -> pd.DataFrame:
    """Per cell at T: the mean of ``y`` (``mean_error``, ``se``), the (1 − δ) quantile
    (``q_error``, ``q_low``, ``q_high``), the mean bound and lower bound (``bound``,
    ``lower_bound``), M_T (``max_count``), the share of the samples μ̂_T uses
    (``used``) and of replicates in which (11) holds at T (``diversity``), whether the
    theorem applies at T in every replicate (``applies``), with the cell's method, order
    (``order``), m, ε and failure probability δ (``failure_probability``)."""
    last = final(rows)
    grouped = last.groupby("cell_id")
    cells = last.drop_duplicates("cell_id").set_index("cell_id")[
        ["method", ORDER, "max_samples", "epsilon", "t", "failure_probability"]].rename(
        columns={ORDER: "order"})
    cells["mean_error"] = grouped[y].mean()
    cells["se"] = grouped[y].std(ddof=1) / np.sqrt(grouped[y].count())
    quantile = quantiles(last, y, level).set_index("cell_id")
    cells["q_error"] = quantile[y]
    cells["q_low"] = quantile[f"{y}_low"]
    cells["q_high"] = quantile[f"{y}_high"]
    bounds = references(summary_of(final(rows, ("simulated", "bound")), y))
    bounds = bounds.set_index(["cell_id", "source"])[y]
    cells["bound"] = bounds.xs("bound", level="source").reindex(cells.index)
    cells["lower_bound"] = bounds.xs("lower_bound", level="source").reindex(cells.index)
    cells["max_count"] = grouped.max_count.mean()
    cells["used"] = grouped.samples_used.mean() / cells.t
    cells["diversity"] = grouped.diversity.mean()
    cells["applies"] = grouped.within_bound.count() == grouped.size()
    return cells.reset_index()


def orders_figure(rows: pd.DataFrame) -> sns.FacetGrid:
    """Each method's error at T under each arrival order: the mean (± one standard error)
    and the (1 − δ) quantile (order-statistic interval), a marker per cell, with each
    cell's bound (a bar in the method's colour) and lower bound (a grey bar)."""
    rows = _families(rows)
    orders = _orders_present(rows)
    cells = at_end(rows)
    colours = _colours(cells.method)
    panels = [name("statistic", s, FAMILY) for s in STATISTICS]
    grid = panel_grid(panels, height=3.6, aspect=1.5, sharey=True)
    width = 0.8 / len(colours)
    where = {o: i for i, o in enumerate(orders)}
    for ax, statistic in zip(grid.axes.flat, STATISTICS, strict=True):
        for i, (method, part) in enumerate(cells.groupby("method", sort=True)):
            x = part.order.map(where).to_numpy(float) + (i - (len(colours) - 1) / 2) * width
            if statistic == "mean":
                value, error = part.mean_error, [part.se, part.se]
            else:
                value = part.q_error
                error = [value - part.q_low, part.q_high - value]
            ax.errorbar(x, value, yerr=error, color=colours[method], marker=MARKERS[i], ms=4,
                        ls="none", capsize=2, lw=1)
            ax.plot(x, part.bound, color=colours[method], marker="_", ms=9, ls="none")
            ax.plot(x, part.lower_bound, color=GREY, marker="_", ms=9, ls="none")
        ax.set_yscale("log")
        ax.set_xticks(range(len(orders)), [name(ORDER, o, FAMILY) for o in orders],
                      rotation=30, ha="right")
        for boundary in np.arange(len(orders) - 1) + 0.5:
            ax.axvline(boundary, color="0.9", lw=0.8, zorder=0)
    grid.axes.flat[0].set_ylabel("error at t = T")
    entries = {name("method", m, FAMILY): Line2D([], [], color=c, marker=MARKERS[i], ls="none")
               for i, (m, c) in enumerate(colours.items())}
    entries["bound (per cell)"] = Line2D([], [], color="0.2", marker="_", ms=9, ls="none")
    entries["lower bound (Sec. 5)"] = Line2D([], [], color=GREY, marker="_", ms=9, ls="none")
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    coverage = quantiles(final(rows)).coverage.min()
    return finish(grid, f"{cells.cell_id.nunique()} cells, {int(rows.replicates.max())} "
                  "replicates each; each marker is one cell (a method under an order) at "
                  "its last checkpoint T. Error bars: ± one standard error over replicates "
                  f"(mean). {_band_note(coverage)}. Bars: the cell's theorem bound (in its "
                  "colour; drawn also where the theorem's conditions fail, e.g. Algorithm 3 "
                  "without contiguous arrivals) and Sec. 5's lower bound (grey), means over "
                  "replicates.",
                  "Error at T under each arrival order")


#: The noise settings of the noise preset, in the order a figure shows them: the paper's
#: (``noise_scale`` unset), none (0) and equal noise (any other value).
NOISE_SETTINGS = ("the paper's (calibrated to ε)", "none", "equal: every p-sum Lap(η)")


def _noise(scale: float) -> str:
    paper, none, equal = NOISE_SETTINGS
    return paper if pd.isna(scale) else none if scale == 0 else equal


def noise_figure(rows: pd.DataFrame) -> sns.FacetGrid:
    """Algorithms 4 and 5 (or any methods) at T, one panel per arrival order, against
    their noise: the paper's, none, and equal noise (``noise_scale``); the mean (± one
    standard error) per cell. Without noise the two release the same μ̂_t."""
    rows = _families(rows)
    if "noise_scale" not in rows or rows.noise_scale.notna().sum() == 0:
        raise MissingData("needs continual cells with noise_scale set (+experiment="
                          "continual_noise)")
    cells = at_end(rows).merge(rows.drop_duplicates("cell_id")[["cell_id", "noise_scale"]],
                               on="cell_id")
    cells["noise"] = cells.noise_scale.map(_noise)
    equal = cells.noise_scale[cells.noise_scale > 0]
    orders = _orders_present(rows)
    colours = _colours(cells.method)
    grid = panel_grid([f"{name(ORDER, o, FAMILY)} arrivals" for o in orders], height=3.2,
                      aspect=0.9, sharey=True)
    width = 0.5 / len(colours)
    where = {n: i for i, n in enumerate(NOISE_SETTINGS)}
    for ax, order in zip(grid.axes.flat, orders, strict=True):
        mine = cells[cells.order == order]
        for i, method in enumerate(colours):
            part = mine[mine.method == method]
            x = part.noise.map(where).to_numpy(float) + (i - (len(colours) - 1) / 2) * width
            ax.errorbar(x, part.mean_error, yerr=part.se, color=colours[method],
                        marker=MARKERS[i], ms=5, ls="none", capsize=2, lw=1)
        ax.set_yscale("log")
        ax.set_xticks(range(len(NOISE_SETTINGS)), ["paper's", "none", "equal"])
        ax.set_xlabel("noise of the binary mechanisms")
    grid.axes.flat[0].set_ylabel("mean error |μ̂_T − μ| at t = T")
    entries = {name("method", m, FAMILY): Line2D([], [], color=c, marker=MARKERS[i], ls="none")
               for i, (m, c) in enumerate(colours.items())}
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    return finish(grid, f"{cells.cell_id.nunique()} cells, {int(rows.replicates.max())} "
                  "replicates each, the same data for every cell of an order (common random "
                  "numbers). Each marker: a cell's mean error at T, ± one standard error. "
                  "Noise: the paper's (η of eq. (5) for Algorithm 4, η_ℓ of eq. (7) for "
                  f"Algorithm 5, at ε = {cells.epsilon.iloc[0]:g}); none (noise_scale = 0: "
                  "the two coincide); equal (every p-sum of both Lap("
                  f"{equal.iloc[0] if len(equal) else float('nan'):g})).",
                  "Algorithm 4 against Algorithm 5, one change at a time (noise preset)")


def first_diverse(rows: pd.DataFrame) -> pd.DataFrame:
    """Per cell and replicate, the first checkpoint from which the diversity condition
    (11) holds at every later checkpoint (``t``; missing if it fails at T)."""
    simulated = rows[rows.source == "simulated"].sort_values(["cell_id", "replicate", "t"])
    keys = [simulated.cell_id, simulated.replicate]
    # Holds from here on: the reversed running minimum of the indicator.
    held = simulated.diversity[::-1].groupby([k[::-1] for k in keys]).cummin()[::-1]
    start = simulated[held.to_numpy() == 1].groupby(["cell_id", "replicate"]).t.min()
    everyone = simulated.drop_duplicates(["cell_id", "replicate"]).set_index(
        ["cell_id", "replicate"]).index
    return start.reindex(everyone).rename("t").reset_index()


def _median_interval(values: np.ndarray) -> tuple[float, float, float]:
    """The median of ``values`` (``inf`` for never) with its order-statistic interval."""
    ranks = quantile_ranks(len(values), 0.5)
    ordered = np.sort(values)
    return ordered[ranks.point - 1], ordered[ranks.low - 1], ordered[ranks.high - 1]


def activations(rows: pd.DataFrame) -> pd.DataFrame:
    """Algorithm 6's activation time of each level ℓ >= 2 (lines 8–13), per order: the
    median over replicates with its order-statistic interval (``inf`` where a level
    never activates within T), and the number of replicates in which it activates; and,
    as ``level = -1``, the same for the first checkpoint from which (11) holds."""
    rows = rows[rows.method == "alg6"]
    if rows.empty:
        raise MissingData("activations: needs cells of Algorithm 6 (method=alg6)")
    found = []
    starts = first_diverse(rows)
    for cell, part in rows.groupby("cell_id"):
        replicates = int(part.replicates.iloc[0])
        order = part[ORDER].iloc[0]
        times = part[part.source == "activation"]
        for level in range(2, int(part.levels.iloc[0]) + 1):
            values = times[times.level == level].t.to_numpy(float)
            found.append((cell, order, level, values, replicates))
        diverse = starts[starts.cell_id == cell].t.dropna().to_numpy(float)
        found.append((cell, order, -1, diverse, replicates))
    table = []
    for cell, order, level, values, replicates in found:
        padded = np.concatenate([values, np.full(replicates - len(values), np.inf)])
        median, low, high = _median_interval(padded)
        table.append({"cell_id": cell, "order": order, "level": level, "median": median,
                      "low": low, "high": high, "activated": len(values),
                      "replicates": replicates})
    return pd.DataFrame(table)


def activation_figure(rows: pd.DataFrame) -> sns.FacetGrid:
    """When Algorithm 6's levels ℓ = 2..L activate under each arrival order (medians over
    replicates, order-statistic intervals), and from which checkpoint the diversity
    condition (11) holds."""
    rows = _families(rows)
    orders = _orders_present(rows)
    table = activations(rows)
    levels = sorted(table.level[table.level >= 0].unique())
    palette = dict(zip(levels, sns.color_palette("viridis", len(levels)), strict=True))
    grid = panel_grid([""], height=3.4, aspect=1.9, sharey=True)
    ax = grid.axes.flat[0]
    where = {o: i for i, o in enumerate(orders)}
    end = float(rows.t.max())
    for level, part in table.groupby("level"):
        y = part.order.map(where).to_numpy(float) + (0.25 if level < 0 else 0.0)
        shown = np.isfinite(part["median"].to_numpy())
        high = np.minimum(part.high, end)
        colour, marker = ("black", "|") if level < 0 else (palette[level], "o")
        ax.errorbar(part["median"][shown], y[shown],
                    xerr=[(part["median"] - part.low)[shown], (high - part["median"])[shown]],
                    color=colour, marker=marker, ms=6 if level < 0 else 5, ls="none",
                    capsize=2, lw=1)
    ax.set_xscale("log")
    ax.set_xlim(right=end)
    ax.set_yticks(range(len(orders)), [name(ORDER, o, FAMILY) for o in orders])
    ax.invert_yaxis()
    ax.set_xlabel(axis("t", FAMILY))
    entries = {f"level ℓ = {int(level)} activates": Line2D([], [], color=palette[level],
                                                           marker="o", ls="none")
               for level in levels}
    entries["(11) holds from here on"] = Line2D([], [], color="black", marker="|", ms=8,
                                                ls="none")
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    checkpoints = rows[rows.source == "simulated"].groupby("cell_id").t.nunique().max()
    never = table[(table.activated < table.replicates) & (table.level >= 0)]
    note = "" if never.empty else (" Levels that never activate within T in some "
                                   "replicates count as activating after T.")
    return finish(grid, f"{table.cell_id.nunique()} cells of Algorithm 6, one per order, "
                  f"{int(table.replicates.max())} replicates each. Dots: the median over "
                  "replicates of the time at which level ℓ's binary mechanism activates "
                  "(its PrivateMedian runs, lines 8–13), with the order-statistic interval "
                  f"of the median at {percent(LEVEL)}. Bars (|): the median first checkpoint "
                  "from which the diversity condition (11) holds at every later checkpoint "
                  f"(resolution: the {checkpoints} log-spaced checkpoints)." + note,
                  "Algorithm 6: activation of its levels and the diversity condition")


