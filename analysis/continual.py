"""The empirical study of continual mean estimation under user-level DP (George, Ramesh,
Singh & Tyagi), the family ``continual``: statistics across replicates, views, and the
document ``docs/continual.md``.

The paper states its guarantees as high-probability bounds: |μ̂_t − μ| is within the bound
with probability at least 1 − δ (Thms 3.1, 3.2 and 3.4, eq. (1) for Algorithm 2). So
every error is shown twice: the mean over replicates (band ± one standard error) and the
(1 − δ) quantile over replicates (band: a distribution-free order-statistic interval,
:func:`quantile_ranks`), each with its cell's bound (``source = "bound"``,
:mod:`sweep.continual.bounds`) and Sec. 5's lower bound as reference lines, per cell.

Views (each takes the rows of :func:`analysis.load.load`, not a summary, since the
quantiles need the replicates):

- :func:`error_vs_time`: the error against t, mean and quantile side by side;
- :func:`error_vs_option`: the error at T against m (= M_T in the scaling preset) or ε;
- :func:`slope_figure`: the log–log slope of the mean error against M_T (the paper
  predicts about 1 for Algorithm 2, eq. (1), and ½ for Algorithms 5 and 6, Thms 3.2 and
  3.4, where the privacy error dominates), local and over ranges, with bootstrap
  intervals (:func:`fit_slope`);
- :func:`orders_figure` and :func:`activation_figure`: every method's error at T under
  each arrival order, and when Algorithm 6's levels activate and the diversity condition
  (11) starts to hold.

``python -m analysis continual ROOT --out docs`` (:func:`render`) reads the presets'
results under ``ROOT`` (``ROOT/continual_quickstart``, ``ROOT/continual_orders``,
``ROOT/continual_scaling``, ``ROOT/continual_epsilon``), computes every number and
verdict of ``docs/continual.md``, draws its figures into ``OUT/figures/continual_*.png``
and fills the template ``analysis/templates/continual.md`` with the renderer of
:mod:`analysis.reproduce` (the same Mustache subset, the same refusal of missing values).
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
import yaml
from matplotlib.lines import Line2D
from scipy import stats

from sweep.continual.config import ORDERS

from .claims import markdown_table
from .labels import axis, name
from .load import load, summarize
from .order_statistics import LEVEL, Ranks, quantile_ranks
from .plot import GREY, MissingData, curves, derived, finish, panel_grid
from .reproduce import (
    Preset,
    Results,
    command,
    fill,
    number,
    percent,
    provenance_values,
    read_presets,
    sci,
    span,
    stretches,
    write,
)

FAMILY = "continual"
#: Bootstrap resamples of the replicates behind a slope's interval.
DRAWS = 2000
#: A slope agrees with the paper's prediction when it is within this distance of it.
SLOPE_TOLERANCE = 0.15
#: The paper's log–log slope of the privacy error against M_t: m/(tε) for Algorithm 2
#: (eq. (1), its noise calibrated to m = M_T here), √M_t/(tε) for Algorithms 5 and 6
#: (Thms 3.2, 3.4); against ε, 1/ε for every private method.
PREDICTED = {"alg2": 1.0, "alg5": 0.5, "alg6": 0.5}
PRIVATE = ("naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6")
#: A ratio of two errors counts as a loss when it is this many standard errors from 1.
SIGNIFICANT = 2.0
STATISTICS = ("mean", "quantile")
KEYS = ["cell_id", "method", "source", "t"]
#: The cell columns the family derives from its options and method (L, ε₀, μ̃).
DERIVED = ("levels", "coordinate_epsilon", "prior", "prior_assumption")


# -- Statistics across replicates --------------------------------------------------------

def quantiles(rows: pd.DataFrame, y: str = "abs_error", level: float = LEVEL) -> pd.DataFrame:
    """Per cell, method and checkpoint of the simulated rows: the (1 − δ) quantile of
    ``y`` over the replicates (δ the cell's ``delta``), with ``<y>_low`` and ``<y>_high``
    the order-statistic interval of :func:`quantile_ranks` at ``level``, the number of
    replicates ``n``, the interval's ``coverage``, and the cell's constant columns.

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
    ranks = [quantile_ranks(int(n), float(1.0 - delta), level)
             for n, delta in zip(sizes, firsts.delta, strict=True)]
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
    # offset where every cell with a prior has the default 1/(2√m) (ContinualConfig).
    frame = pd.concat(parts, ignore_index=True)
    offset = frame.prior_offset.dropna()
    default = np.allclose(offset, 0.5 / np.sqrt(frame.max_samples[offset.index]))
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
                  series=tuple(methods or ()), title=title, height=height,
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
                  col="statistic", ylabel="error at t = T", title=title,
                  note=f"Each point is a cell's error at its last checkpoint T. {BOUND_NOTE}. "
                       f"{_band_note(frame.attrs['coverage'])}.")


# -- Slopes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Slope:
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
    """The least-squares slope of log(mean error) on log x over cells, and its
    bootstrap percentile interval at ``level``.

    ``errors[i]`` holds cell i's replicates, ``x[i]`` its abscissa. Each draw
    resamples every cell's replicates with replacement, independently (the replicates
    are the independent units, within a cell and across cells), and refits. Why the
    bootstrap rather than weighted least squares with the standard errors: the errors are
    heavy-tailed (sums of Laplace noise; Algorithm 6 explodes where (11) fails), so the
    delta-method variance of log(mean) that such weights need is unreliable exactly where
    a cell's standard error is not small against its mean, and the percentile interval
    needs no normality. The interval says how far replicate noise moves the slope; it
    does not measure the misfit of a line to a curved log–log relation (the bounds'
    log factors), which the local slopes between neighbouring cells show.
    """
    if len(errors) < 2 or len(set(x)) < 2:
        raise MissingData("a slope needs cells at two values of x or more")
    logx = np.log(np.asarray(x, dtype=float))
    means = np.array([np.mean(e) for e in errors])
    point = float(_ols(logx, np.log(means)))
    rng = np.random.default_rng(seed)
    resampled = np.column_stack([
        e[rng.integers(0, len(e), size=(draws, len(e)))].mean(axis=1) for e in errors])
    slopes = _ols(logx, np.log(resampled))
    low, high = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    return point, float(low), float(high)


def slopes(rows: pd.DataFrame, x: str, ranges: Mapping[str, tuple[float, float]],
           y: str = "abs_error") -> pd.DataFrame:
    """:class:`Slope` of each method over each named range of ``x`` (closed), as a frame
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
            found.append({"range": label, **Slope(method, float(chosen.min()), float(
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
    """Colours by method, as :func:`analysis.plot.curves` gives them (sorted names)."""
    ordered = sorted(set(methods))
    return dict(zip(ordered, sns.color_palette("colorblind", len(ordered)), strict=False))


#: Marker shapes by rank of a method among those drawn: the colourblind palette's pinks
#: and oranges are close, the shapes tell them apart.
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")


def slope_figure(rows: pd.DataFrame, ranges: Mapping[str, tuple[float, float]] | None = None,
                 x: str = "max_count") -> sns.FacetGrid:
    """The log–log slope of the mean error at T against M_T (``x``), per method: left,
    between neighbouring cells (at their geometric mean), with the slope of the
    method's bound dash-dotted; right, fitted over ``ranges`` (default: all cells). Error
    bars: bootstrap intervals (:func:`fit_slope`); grey lines at the paper's 1 and ½."""
    rows = _families(rows)
    if final(rows).groupby("cell_id")[x].mean().nunique() < 3:
        raise MissingData(f"slopes: needs {FAMILY} cells at three values of {x} or more "
                          "(run +experiment=continual_scaling)")
    ranges = ranges or {"all cells": (0.0, math.inf)}
    local = slopes(rows, x, local_ranges(rows, x))
    fitted = slopes(rows, x, ranges)
    colours = _colours(local.method)
    grid = panel_grid(["between neighbouring cells", "fitted over ranges"], sharey=True)
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
        mine = fitted[fitted.method == method]
        position = mine["range"].map(labels.index) + (i - (len(colours) - 1) / 2) * width
        right.errorbar(position, mine.slope, yerr=[mine.slope - mine.ci_low,
                                                   mine.ci_high - mine.slope],
                       color=colours[method], marker=MARKERS[i], ls="none", capsize=2)
        right.plot(position, mine.bound, color=colours[method], marker="_", ms=12, ls="none")
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
    entries["paper: 1 (Alg. 2), ½ (Algs 5, 6)"] = Line2D([], [], color=GREY, ls=":", lw=0.8)
    grid.add_legend(legend_data=entries, label_order=list(entries), title="", fontsize=8)
    replicates = int(rows.replicates.max())
    return finish(grid, f"{final(rows).cell_id.nunique()} cells, {replicates} replicates each. "
                  "Left: the slope between each pair of neighbouring cells, at their "
                  "geometric mean M_T; right: the least-squares slope over the cells in "
                  "each range. Error bars: bootstrap percentile intervals at "
                  f"{percent(LEVEL)} ({DRAWS} resamples of every cell's replicates). "
                  "Dash-dotted lines and bars: the slope of the method's own bound, which "
                  "carries the bounds' log factors. Dotted: the paper's slopes of the "
                  "privacy term, 1 (m/(tε), Algorithm 2) and ½ (√M_t/(tε), Algorithms 5 "
                  "and 6).", "Log–log slope of the error against M_T")


# -- Arrival orders ---------------------------------------------------------------------

def _orders_present(rows: pd.DataFrame) -> list[str]:
    present = set(rows.order.dropna())
    if len(present) < 2:
        raise MissingData(f"orders: needs {FAMILY} cells under two arrival orders or more "
                          "(run +experiment=continual_orders)")
    return [o for o in ORDERS if o in present]


def at_end(rows: pd.DataFrame, y: str = "abs_error", level: float = LEVEL) -> pd.DataFrame:
    """Per cell at T: the mean of ``y`` (``mean_error``, ``se``), the (1 − δ) quantile
    (``q_error``, ``q_low``, ``q_high``), the mean bound and lower bound (``bound``,
    ``lower_bound``), M_T (``max_count``), the share of the samples μ̂_T uses
    (``used``) and of replicates in which (11) holds at T (``diversity``), whether the
    theorem applies at T in every replicate (``applies``), with the cell's method, order,
    m and ε."""
    last = final(rows)
    grouped = last.groupby("cell_id")
    cells = last.drop_duplicates("cell_id").set_index("cell_id")[
        ["method", "order", "max_samples", "epsilon", "t", "delta"]]
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
        ax.set_xticks(range(len(orders)), [name("order", o, FAMILY) for o in orders],
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
        order = part.order.iloc[0]
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
    ax.set_yticks(range(len(orders)), [name("order", o, FAMILY) for o in orders])
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


# -- Views for ``python -m analysis report`` -----------------------------------------------

VIEWS: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
    "continual_error_vs_t": error_vs_time,
    "continual_error_vs_m": functools.partial(error_vs_option, x="max_samples"),
    "continual_error_vs_epsilon": functools.partial(error_vs_option, x="epsilon"),
    "continual_slopes": slope_figure,
    "continual_orders": orders_figure,
    "continual_activation": activation_figure,
}


def views(results: str | Path | Sequence[str | Path], keep: str = "newest"
          ) -> dict[str, Callable[[pd.DataFrame], sns.FacetGrid]]:
    """:data:`VIEWS` as a report draws them, from a summary: each reads the continual
    rows of ``results`` (once, when the first is drawn), since quantiles need the
    replicates a summary no longer has."""
    @functools.cache
    def rows() -> pd.DataFrame:
        return load(results, keep=keep, family=FAMILY)

    return {view: (lambda summary, draw=draw: draw(rows())) for view, draw in VIEWS.items()}


# -- The document -------------------------------------------------------------------------

#: The options of a preset that set its sizes (those it fixes rather than sweeps).
SIZES = ("n_users", "max_samples", "t_max")


def preset(name: str, figures: tuple[str, ...]) -> Preset:
    """The preset ``sweep/conf/experiment/<name>.yaml`` as the document reads it: its
    sizes and runs from the file itself, so that the document follows the preset."""
    path = resources.files("sweep") / "conf" / "experiment" / f"{name}.yaml"
    config = yaml.safe_load(path.read_text("utf-8"))
    return Preset(name, {c: config[c] for c in SIZES if c in config}, config["replicates"],
                  figures)


PRESETS: dict[str, Preset] = {p.name: p for p in [
    preset("continual_quickstart", ("continual_quickstart",)),
    preset("continual_orders", ("continual_orders_t", "continual_orders",
                                "continual_activation")),
    preset("continual_scaling", ("continual_scaling", "continual_slopes")),
    preset("continual_epsilon", ("continual_epsilon",)),
]}
SIZE_NAMES = {"n_users": "n", "max_samples": "m", "t_max": "T", "replicates": "runs"}
Values = dict[str, str | bool]


@dataclass(frozen=True)
class Study:
    """The rows of each preset's results under one root, and their summaries (as
    :class:`analysis.reproduce.Results`, whose provenance table the document reuses)."""

    rows: dict[str, pd.DataFrame]
    results: Results

    @classmethod
    def read(cls, root: str | Path, any_size: bool = False) -> Study:
        """Read every preset's directory; :class:`MissingData` if one is absent or holds
        no runs of the presets' sizes (unless ``any_size``)."""
        rows = read_presets(Path(root), PRESETS.values(),
                            functools.partial(load, family=FAMILY), any_size, SIZE_NAMES,
                            "the preset's")
        return cls(rows, Results(Path(root), {p: summarize(r) for p, r in rows.items()}))


def size_values(study: Study) -> Values:
    """The sizes of the runs read, whether they are other than the presets', and the
    order statistics of each preset's (1 − δ) quantiles."""
    found, other, ranks, at_max = [], False, [], True
    for preset in PRESETS.values():
        cells = study.rows[preset.name].drop_duplicates("cell_id")
        parts = []
        for column, wanted in {**preset.sizes, "replicates": preset.replicates}.items():
            present = sorted(cells[column].unique())
            other |= present != [wanted]
            parts.append(f"{SIZE_NAMES[column]} = {'/'.join(f'{v:,}' for v in present)}")
        found.append(f"{preset.name}: {', '.join(parts)}")
        for (n, delta), _ in cells.groupby(["replicates", "delta"]):
            r = quantile_ranks(int(n), 1.0 - float(delta))
            at_max &= r.high == n
            ranks.append(f"`{preset.name}` ({n} runs, δ = {delta:g}): X_({r.point}) in "
                         f"[X_({r.low}), X_({r.high})], coverage {percent(r.coverage)}")
    return {"other_sizes": other, "sizes_found": "; ".join(found),
            "quantile_ranks": "; ".join(ranks), "quantile_at_max": at_max,
            **{f"{name.removeprefix('continual_')}_setting": setting(rows)
               for name, rows in study.rows.items()}}


#: The options a preset's setting names, with their symbols.
SETTING = {"n_users": "n", "max_samples": "m", "t_max": "T", "order": "order",
           "epsilon": "ε", "delta": "δ", "bound_constant": "c"}


def setting(rows: pd.DataFrame) -> str:
    """The options of a preset's cells in words: ``n = 10,000, m = 64, ..., ε ∈ {0.25,
    ..., 16}``, and its runs and methods."""
    cells = rows.drop_duplicates("cell_id")

    def value(column: str, v: Any) -> str:
        if column == "order":
            return _order(v)
        return f"{v:,}" if isinstance(v, int | np.integer) else f"{v:g}"

    parts = []
    for column, symbol in SETTING.items():
        values = sorted(cells[column].dropna().unique(), key=str if column == "order" else None)
        shown = [value(column, v) for v in values]
        parts.append(f"{symbol} = {shown[0]}" if len(shown) == 1 else
                     f"{symbol} ∈ {{{', '.join(shown)}}}")
    methods = _list([_method(m) for m in sorted(rows[rows.source == "simulated"].method.unique(),
                                                key=("non_private", *PRIVATE).index)])
    runs = "/".join(str(r) for r in sorted(cells.replicates.unique()))
    return f"{', '.join(parts)}; {runs} runs per cell; {methods}"


def _method(method: str) -> str:
    return name("method", method, FAMILY)


def _order(order: str) -> str:
    return name("order", order, FAMILY)


def _list(items: Sequence[str], none: str = "none") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if not items:
        return none
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _mean_se(cell: pd.Series) -> str:
    return f"{sci(cell.mean_error)} ± {sci(cell.se)}"


def _quantile(cell: pd.Series) -> str:
    return f"{sci(cell.q_error)} [{sci(cell.q_low)}, {sci(cell.q_high)}]"


def _times(x: float) -> str:
    """A ratio of two errors, to two digits."""
    return number(x, 2)


def _span(values: pd.Series, fmt: Callable[[float], str] = _times) -> str:
    """:func:`analysis.reproduce.span` of the values, ``none`` if there are none."""
    return span(values, fmt) if len(values) else "none"


def _slope(row: pd.Series) -> str:
    return f"{number(row.slope, 2)} [{number(row.ci_low, 2)}, {number(row.ci_high, 2)}]"


def orders_values(study: Study) -> Values:
    """The orders preset: every method's error at T per order (tables), where Algorithm 6
    loses to Algorithm 2 and the candidate reasons (diversity, withheld samples, the
    bounds' constants), and Algorithm 6's activations."""
    rows = study.rows["continual_orders"]
    cells = at_end(rows)
    orders = _orders_present(rows)
    methods = [m for m in ("non_private", *PRIVATE) if m in set(cells.method)]
    by = cells.set_index(["order", "method"])
    alg6, alg2 = by.xs("alg6", level="method"), by.xs("alg2", level="method")
    header = ["order", "M_T (Alg. 6)", *map(_method, methods)]
    values: Values = {
        "orders_mean_table": markdown_table(header, [
            [_order(o), f"{alg6.max_count[o]:.3g}", *(_mean_se(by.loc[(o, m)]) for m in methods)]
            for o in orders]),
        "orders_quantile_table": markdown_table(header, [
            [_order(o), f"{alg6.max_count[o]:.3g}", *(_quantile(by.loc[(o, m)]) for m in methods)]
            for o in orders]),
        "orders_cells": str(rows.cell_id.nunique()),
        "orders_coverage": percent(quantiles(final(rows)).coverage.min()),
        "significant": number(SIGNIFICANT, 2),
    }

    # Algorithm 6 against Algorithm 2 at T: a loss (a win) when alg6's mean is SIGNIFICANT
    # standard errors of the difference above (below) alg2's.
    gap = (alg6.mean_error - alg2.mean_error) / np.hypot(alg6.se, alg2.se)
    loses = [o for o in orders if gap[o] > SIGNIFICANT]
    wins = [o for o in orders if gap[o] < -SIGNIFICANT]
    ratio = (alg6.mean_error / alg2.mean_error)[orders]
    worst, best = ratio.idxmax(), ratio.idxmin()
    bound_ratio = (alg6.bound / alg2.bound)[orders]
    values.update(
        alg6_loses=_list([_order(o) for o in loses]), alg6_loses_all=len(loses) == len(orders),
        alg6_wins=_list([_order(o) for o in wins]), alg6_wins_any=bool(wins),
        alg6_ratio=_span(ratio), alg6_quantile_ratio=_span((alg6.q_error / alg2.q_error)[orders]),
        alg6_worst=_order(worst), alg6_worst_ratio=_times(ratio[worst]),
        alg6_worst_count=f"{alg6.max_count[worst]:.3g}",
        alg6_best=_order(best), alg6_best_ratio=_times(ratio[best]),
        alg6_best_count=f"{alg6.max_count[best]:.3g}",
        # Spearman's ρ: does the loss grow with M_T, as √M_t-scaled noise makes it?
        loss_rank=number(stats.spearmanr(alg6.max_count[orders], ratio).statistic, 2),
        bound_ratio=_span(bound_ratio),
        bounds_explain=bool(loses) and bool((bound_ratio[loses] > 1).all()),
        alg6_used=_span(alg6.used[orders], percent),
        withheld=bool((alg6.used[loses] < 1).any()),
        withholding=_list([_order(o) for o in loses if alg6.used[o] < 1]),
        diverse_at_end=bool((alg6.diversity[orders] == 1).all()),
        not_diverse_at_end=_list([_order(o) for o in orders if alg6.diversity[o] < 1]),
    )

    # Over the checkpoints: how often alg6 is behind, and by how much while (11) fails
    # (in the mean over replicates) and once it holds in every replicate.
    summary = study.results.summaries["continual_orders"]
    simulated = summary[summary.source == "simulated"]
    error = simulated.pivot_table(index=["order", "t"], columns="method", values="abs_error",
                                  observed=True)
    diverse = simulated[simulated.method == "alg6"].set_index(["order", "t"]).diversity
    behind = error.alg6 / error.alg2
    share = diverse.groupby(level="order", observed=True).mean()
    frozen = [f for f in (_frozen(error.alg6.xs(o, level="order"), _order(o)) for o in orders)
              if f]
    values.update(
        alg6_behind_share=_span((behind > 1).groupby(level="order").mean()[orders], percent),
        alg6_behind_always=bool((behind > 1).all()),
        ratio_while_failing=_span(behind[diverse.reindex(behind.index) < 1]),
        ratio_once_diverse=_span(behind[diverse.reindex(behind.index) == 1]),
        once_diverse_any=bool((diverse == 1).any()),
        diversity_share=_span(share[orders], percent),
        frozen=_list(frozen), frozen_any=bool(frozen))

    best_rows = []
    for order in orders:
        private = by.loc[order].loc[[m for m in PRIVATE if m in methods]].mean_error
        top = private.idxmin()
        best_rows.append([_order(order), _method(top), sci(private[top]),
                          _times(private["alg6"] / private[top]), percent(share[order]),
                          percent(alg6.used[order])])
    values["best_table"] = markdown_table(
        ["order", "best private method at T", "its mean error", "Algorithm 6 / best",
         "checkpoints where (11) holds (Alg. 6's runs)", "samples Algorithm 6 uses at T"],
        best_rows)

    table = activations(rows)
    levels = sorted(level for level in table.level.unique() if level >= 0)
    keyed = table.set_index(["order", "level"])
    values["activation_table"] = markdown_table(
        ["order", "(11) holds from", *(f"level ℓ = {level}" for level in levels)],
        [[_order(o), *(_time(keyed.loc[(o, level)]) for level in (-1, *levels))]
         for o in orders])
    return values


def _frozen(error: pd.Series, label: str) -> str:
    """The longest stretch of checkpoints over which a mean error (indexed by t) does not
    change at all, as ``label: e from t = a to b``: μ̂_t is frozen in every run, as while
    Algorithm 6 releases nothing new; empty if it changes at every checkpoint."""
    same = error.eq(error.shift(-1)) | error.eq(error.shift())
    found = stretches(same)
    if not found:
        return ""
    start, end = max(found, key=lambda s: math.log(s[1] / s[0]))
    return f"{label} ({number(error[start])} from t = {start:,} to {end:,})"


def _time(entry: pd.Series) -> str:
    """A median time over replicates (``after T`` if beyond), and in how many replicates
    it happened when not in all."""
    if not np.isfinite(entry["median"]):
        return f"after T ({entry.activated}/{entry.replicates} runs)"
    text = f"{entry['median']:,.0f}"
    return text if entry.activated == entry.replicates else (
        f"{text} ({entry.activated}/{entry.replicates} runs)")


APPLIES, UPPER = "where every theorem applies", "its upper half"


def scaling_ranges(rows: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """The ranges of M_T the slopes are fitted over: where every method's theorem applies
    at T (its conditions hold in every replicate: for Algorithm 6, (11)); the upper half
    of those cells, where the privacy term dominates most; and all cells."""
    cells = at_end(rows)
    applies = cells.groupby("max_samples").applies.transform("all")
    held = np.sort(cells.max_count[applies].unique())
    if len(held) < 2:
        raise MissingData("slopes: the theorems apply at T in fewer than two values of m")
    upper = held[min(len(held) // 2, len(held) - 2):]  # two cells at least: a slope
    return {APPLIES: (float(held[0]), float(held[-1])),
            UPPER: (float(upper[0]), float(upper[-1])),
            "all cells": (float(cells.max_count.min()), float(cells.max_count.max()))}


def scaling_slopes(rows: pd.DataFrame) -> sns.FacetGrid:
    """:func:`slope_figure` over the ranges of :func:`scaling_ranges`."""
    return slope_figure(rows, scaling_ranges(rows))


def scaling_values(study: Study) -> Values:
    """The scaling preset: the slopes against M_T (local and over ranges), where they
    agree with the paper's 1 and ½, and where Algorithm 6 loses (11) and explodes."""
    rows = study.rows["continual_scaling"]
    cells = at_end(rows).set_index(["method", "max_samples"])
    ranges = scaling_ranges(rows)
    (held_low, held_high), (upper_low, upper_high) = ranges[APPLIES], ranges[UPPER]
    fitted = slopes(rows, "max_count", ranges).set_index(["method", "range"])
    local = slopes(rows, "max_count", local_ranges(rows, "max_count"))
    methods = sorted(fitted.index.get_level_values("method").unique())
    values: Values = {
        "slope_table": markdown_table(["range", *map(_method, methods)], [
            [f"{label} (M_T = {low:g}–{high:g})", *(
                f"{_slope(fitted.loc[(m, label)])}; bound {number(fitted.loc[(m, label)].bound, 2)}"
                for m in methods)] for label, (low, high) in ranges.items()]),
        "local_slope_table": markdown_table(["M_T", *map(_method, methods)], [
            [label, *(_slope(part.set_index("method").loc[m]) for m in methods)]
            for label, part in local.groupby("range", sort=False)]),
        "slope_tolerance": number(SLOPE_TOLERANCE, 2),
        "held_range": f"{held_low:g}–{held_high:g}",
        "upper_range": f"{upper_low:g}–{upper_high:g}",
        "draws": f"{DRAWS:,}",
    }
    first = local.groupby("range", sort=False).ngroup() == 0
    values["first_pair"] = local["range"][first].iloc[0]
    for method, predicted in PREDICTED.items():
        top = fitted.loc[(method, UPPER)]
        values.update({f"{method}_slope": _slope(top),
                       f"{method}_first_slope": _slope(local[first & (local.method == method)]
                                                       .iloc[0]),
                       f"{method}_bound_slope": number(top.bound, 2),
                       f"{method}_agrees": abs(top.slope - predicted) <= SLOPE_TOLERANCE,
                       f"{method}_covers_bound": bool(top.ci_low <= top.bound <= top.ci_high)})
    # Algorithm 6 where (11) fails at T: its error against the last m where it holds.
    alg6, alg2 = cells.loc["alg6"], cells.loc["alg2"]
    broken = alg6.index[alg6.diversity < 1].sort_values()
    values["alg6_breaks"] = bool(len(broken))
    good = alg6.index[alg6.diversity == 1]
    last_good, first_bad = (good.max(), broken.min()) if len(broken) and len(good) else (
        alg6.index.max(), alg6.index.max())
    table = activations(rows)
    table = table[table.level >= 0].merge(rows.drop_duplicates("cell_id")[
        ["cell_id", "max_samples", "levels"]], on="cell_id")

    def active(m: float) -> str:
        """Which of levels 2..L activate within T (in most runs) at m."""
        mine = table[table.max_samples == m]
        on = mine.level[np.isfinite(mine["median"])].astype(int).tolist()
        top = int(mine.levels.iloc[0]) if len(mine) else 1
        return f"m = {m:g}: {_list([f'ℓ = {v}' for v in on])} of ℓ = 2..{top}"

    values.update(
        broken_levels="; ".join(active(m) for m in broken),
        broken_m=_list([f"{m:g}" for m in broken]), last_good_m=f"{last_good:g}",
        first_bad_m=f"{first_bad:g}",
        jump=_times(alg6.mean_error[first_bad] / alg6.mean_error[last_good]),
        broken_used=_span(alg6.used[broken], percent),
        broken_error=_span(alg6.mean_error[broken], number),
        broken_alg2=_span(alg2.mean_error[broken], sci))
    return values


def epsilon_values(study: Study) -> Values:
    """The epsilon preset: the slope of each method's mean error at T against ε over the
    smallest three ε (where privacy dominates most) and over all, and where Algorithm 6
    beats Algorithm 2."""
    rows = study.rows["continual_epsilon"]
    epsilons = np.sort(rows.epsilon.unique())
    ranges = {"smallest three ε": (float(epsilons[0]), float(epsilons[:3][-1])),
              "all ε": (float(epsilons[0]), float(epsilons[-1]))}
    fitted = slopes(rows, "epsilon", ranges).set_index(["method", "range"])
    present = set(fitted.index.get_level_values("method"))
    methods = [m for m in ("non_private", *PRIVATE) if m in present]
    private = [m for m in methods if m in PRIVATE]
    first = next(iter(ranges))
    near = [m for m in private if abs(fitted.loc[(m, first)].slope + 1) <= SLOPE_TOLERANCE]
    cells = at_end(rows).set_index(["method", "epsilon"])
    alg6, alg2 = cells.loc["alg6"], cells.loc["alg2"]
    beats = [e for e in epsilons if alg6.mean_error[e] < alg2.mean_error[e]]
    far = [m for m in private if m not in near]
    return {
        "epsilon_slope_table": markdown_table(
            ["method", *(f"{r} ({a:g}–{b:g})" for r, (a, b) in ranges.items())],
            [[_method(m), *(_slope(fitted.loc[(m, r)]) for r in ranges)] for m in methods]),
        "epsilon_near_minus_one": _list(list(map(_method, near))),
        "epsilon_all_near": not far, "epsilon_any_near": bool(near),
        "epsilon_not_near": _list([f"{_method(m)} ({number(fitted.loc[(m, first)].slope, 2)})"
                                   for m in far]),
        "epsilon_alg6_beats": _list([f"{e:g}" for e in beats]),
        "epsilon_alg6_beats_any": bool(beats),
        "epsilon_ratio": _span(alg6.mean_error / alg2.mean_error),
        "epsilon_used": _span(alg6.used, percent),
        "per_user": f"{float((rows.t_max / rows.n_users).mean()):.3g}",
        "half_m": f"{rows.max_samples.max() // 2:,}", "m": f"{rows.max_samples.max():,}",
        "epsilon_diverse": bool((alg6.diversity == 1).all()),
    }


def constants_values(study: Study) -> Values:
    """The cost of the constants, from the orders preset: per method, the (1 − δ)
    quantile of the error over its bound at T and at every checkpoint where the theorem
    applies; the share of (run, checkpoint) pairs within the bound; and Sec. 5's lower
    bound against the running mean."""
    rows = study.rows["continual_orders"]
    index = ["cell_id", "method", "t"]
    quantile = quantiles(rows).set_index(index).abs_error
    bounds = references(study.results.summaries["continual_orders"])
    bound = bounds[bounds.source == "bound"].set_index(index).abs_error
    simulated = rows[rows.source == "simulated"]
    applies = simulated.groupby(index).within_bound.count() > 0
    ratio = (quantile / bound.reindex(quantile.index))[applies.reindex(quantile.index)]
    cells = at_end(rows)
    orders = _orders_present(rows)
    table, within = [], {}
    for method in [m for m in ("non_private", *PRIVATE) if m in set(cells.method)]:
        mine = cells[(cells.method == method) & cells.applies]
        if mine.empty:
            continue
        within[method] = simulated[simulated.method == method].within_bound.dropna().mean()
        where = sorted(mine.order, key=orders.index)
        table.append([_method(method), "all" if len(where) == len(orders) else _list(
            list(map(_order, where))), _span(mine.q_error / mine.bound),
                      _times(ratio.xs(method, level="method").max()),
                      percent(within[method])])
    theorems = [m for m in within if m.startswith("alg")]
    largest = pd.Series([(cells.q_error / cells.bound)[(cells.method == m) & cells.applies].max()
                         for m in theorems])
    running = cells[cells.method == "non_private"]
    strawmen = cells[cells.method.isin(["non_private", "naive_laplace"]) & cells.applies]
    return {
        "constants_table": markdown_table(
            ["method", "orders where its theorem applies at T", "(1 − δ) quantile / bound at T",
             "largest over checkpoints", "(run, checkpoint) pairs within the bound"], table),
        "theorem_bounds_hold": all(within[m] == 1 for m in theorems),
        "constants_ratio": _span(largest),
        "constants_factor": _span(1 / largest),
        "strawmen_ratio": _span(strawmen.q_error / strawmen.bound),
        "lower_over_running": _span(running.mean_error / running.lower_bound),
        "lower_above_running": bool((running.mean_error < running.lower_bound).all()),
    }


def template() -> str:
    """The document's template, shipped with the package."""
    return (resources.files("analysis") / "templates" / "continual.md").read_text("utf-8")


#: The document's figures by name (:attr:`Preset.figures` says from which preset).
FIGURES: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
    "continual_quickstart": functools.partial(error_vs_time,
                                              title="Quickstart: error against t"),
    "continual_orders_t": functools.partial(
        error_vs_time, methods=("alg2", "alg5", "alg6", "non_private"),
        title="Arrival orders: error against t"),
    "continual_orders": orders_figure,
    "continual_activation": activation_figure,
    "continual_scaling": functools.partial(
        error_vs_option, x="max_samples", title="Error at T against m = M_T (contiguous)"),
    "continual_slopes": scaling_slopes,
    "continual_epsilon": functools.partial(
        error_vs_option, x="epsilon", title="Error at T against ε (uniform arrivals)"),
}


def render(root: str | Path, out_dir: str | Path = "docs", any_size: bool = False) -> Path:
    """Render ``out_dir/continual.md`` and its figures (``out_dir/figures/continual_*.png``)
    from the presets' results under ``root``; returns the document's path.
    :class:`MissingData` if a preset's results are absent or lack a series the document
    states, :class:`~analysis.reproduce.TemplateError` if a placeholder stays unfilled."""
    study = Study.read(root, any_size)
    values = {**size_values(study), **provenance_values(study.results),
              **orders_values(study), **scaling_values(study), **epsilon_values(study),
              **constants_values(study), "level": percent(LEVEL),
              "root": str(root), "out": str(out_dir)}
    figures = ((figure, functools.partial(FIGURES[figure], study.rows[preset.name]))
               for preset in PRESETS.values() for figure in preset.figures)
    return write(fill(template(), values), figures, Path(out_dir), "continual.md")


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis continual ROOT [--out DIR] [--any-size]``."""
    return command(argv, "continual", "continual.md", PRESETS, render, "the presets'")


__all__ = ["FIGURES", "LEVEL", "PRESETS", "VIEWS", "Ranks", "Slope", "Study",
           "activation_figure", "activations", "at_end", "error_vs_option", "error_vs_time",
           "fit_slope", "main", "orders_figure", "quantile_ranks", "quantiles", "references",
           "render", "slope_figure", "slopes", "statistics", "views"]


if __name__ == "__main__":
    sys.exit(main())
