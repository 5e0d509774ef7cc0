"""The decentralized study's statistics across runs and its figures.

Every curve is the mean over a cell's runs with its Student-t 95% interval (the
reference's plots use the same), and every cell's baselines (local, oracle, ideal) are
drawn with it, never pooled across cells. Figures (each takes the family's rows, run by
run, from :func:`analysis.load.load`):

- :func:`reference_figure`: the reference's figure, 1 − the fraction of agents within
  0.1 of their class mean against t on a log axis, for C-ColME and B-ColME at the
  reference's N = 10⁴, with the reference's own runs (:mod:`.reference`) beside ours;
- :func:`degree_figure`: the same for the estimate and its oracle at each degree r;
- :func:`private_figure`: private C-ColME's mean squared error at the last step against
  ε, per mechanism and degree, with each cell's local mean and private oracle.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats

from analysis.labels import name
from analysis.load import MissingData
from analysis.numbers import number, sci
from analysis.plot import GREY, finish, panel_grid

FAMILY = "decentralized"
ALGORITHMS = ("c_colme", "b_colme")
#: The reference experiment's number of agents (the figure's, when the runs have it).
REFERENCE_N = 10_000
#: The estimators of a cell, by the suffix of their method (the algorithm's estimate is
#: the method itself).
ESTIMATORS = {"estimate": "", "oracle": "_oracle"}
COLOURS = {"estimate": "#0072B2", "oracle": "#009E73", "local": GREY, "ideal": "#000000",
           "pm1": "#E69F00", "pm2": "#0072B2"}
#: The degrees' colours: distinct hues, in the order of the degrees.
DEGREE_PALETTE = "colorblind"
#: The floor of a log axis of 1 − fraction: below one agent in 10⁴ in every run.
FLOOR = 1e-5


def half_width(sd: np.ndarray | float, runs: np.ndarray | float, prediction: bool = False
               ) -> np.ndarray:
    """The Student-t 95% half-width of a mean over ``runs`` runs of standard deviation
    ``sd`` (NaN for one run); with ``prediction``, that of the interval in which one more
    run falls."""
    runs = np.asarray(runs, dtype=float)
    quantile = stats.t.ppf(0.975, np.maximum(runs - 1, 1))
    half = quantile * sd * np.sqrt(1 + 1 / runs) if prediction else quantile * sd / np.sqrt(runs)
    return np.where(runs > 1, half, np.nan)


def interval(values: pd.Series) -> tuple[float, float, float, int]:
    """The mean of ``values`` (one per run) with its Student-t 95% interval, and the
    number of runs (the interval is NaN for one run)."""
    n = int(values.count())
    mean = float(values.mean())
    half = float(half_width(values.std(ddof=1), n))
    return mean, mean - half, mean + half, n


def across_runs(rows: pd.DataFrame, metric: str, by: Sequence[str] = ("cell_id", "method", "t")
                ) -> pd.DataFrame:
    """Per group of ``by``, the mean of ``metric`` over the runs with its Student-t 95%
    interval (``mean``, ``low``, ``high``, ``n``), the simulated rows only."""
    simulated = rows[(rows.source == "simulated") & rows[metric].notna()]
    if simulated.empty:
        raise MissingData(f"no simulated rows with {metric}")
    grouped = simulated.groupby(list(by), sort=True, observed=True)[metric]
    n = grouped.count()
    mean = grouped.mean()
    half = half_width(grouped.std(ddof=1).to_numpy(), n.to_numpy())
    return pd.DataFrame({"mean": mean, "low": mean - half, "high": mean + half,
                         "n": n}).reset_index()


def outside(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``outside`` = 1 − ``within``: the fraction of agents farther than the
    accuracy from their class mean, the reference's plotted quantity."""
    return rows.assign(outside=1.0 - rows["within"])


def runs_text(runs: Sequence[int]) -> str:
    """"10 runs", or "8–10 runs" where cells have different numbers of runs."""
    low, high = min(runs), max(runs)
    return f"{high} runs" if low == high else f"{low}–{high} runs"


def _log_curve(ax, frame: pd.DataFrame, colour: object, label: str, dashes: str = "-",
               width: float = 1.4, band: bool = True) -> None:
    """A curve of ``mean`` against ``t`` on a log axis, where it is above the floor, with
    its interval as a band."""
    shown = frame[frame["mean"] > FLOOR]
    if shown.empty:
        return
    ax.plot(shown["t"], shown["mean"], ls=dashes, lw=width, color=colour, label=label)
    if band and shown["low"].notna().any():
        ax.fill_between(shown["t"], shown["low"].clip(lower=FLOOR), shown["high"],
                        color=colour, alpha=0.18, lw=0)


def _alone(rows: pd.DataFrame) -> str:
    """What the oracle's and the ideal's curves come down to: the agents without a
    same-class neighbour, a fraction Σ_c p_c (1 − p_c)^r of a random r-regular graph's
    (about; the reference's configuration model drops a few pairs)."""
    cells = rows.drop_duplicates("cell_id")
    if (cells["graph.kind"] != "regular").any() or cells["graph.degree"].nunique() != 1:
        return ""
    first = cells.iloc[0]
    proportions = np.array([float(p) for p in str(first["class_proportions"]).split(",")])
    alone = float(np.sum(proportions * (1 - proportions) ** first["graph.degree"]))
    return (f"The oracle's and the ideal's curves level off at the agents without a "
            f"same-class neighbour (a fraction of about {sci(alone)}, Σ_c p_c (1 − p_c)ʳ), "
            "whose oracle and ideal are their own local mean.")


def _legend(grid: sns.FacetGrid) -> None:
    """One legend for the figure, right of its panels: the first panel's entries, each
    label once (a label drawn for every cell, "local (each cell)", is one entry)."""
    handles, labels = grid.axes.flat[0].get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    grid.figure.legend(unique.values(), unique.keys(), loc="center left",
                       bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=8)


def _one_value(rows: pd.DataFrame, column: str, what: str) -> object:
    values = rows[column].dropna().unique()
    if len(values) != 1:
        raise MissingData(f"{what}: the rows hold {len(values)} values of {column} "
                          f"({', '.join(map(str, values))}); the figure needs one")
    return values[0]


def reference_figure(rows: pd.DataFrame, reference: pd.DataFrame | None = None,
                     title: str | None = None) -> sns.FacetGrid:
    """The reference's figure: 1 − the fraction within the accuracy against t (log
    axis), per algorithm, of the estimate, its oracle, the local and the ideal means,
    and of the reference's runs (``reference``, :func:`.reference.stored`) at the same
    N, dashed. At the reference's N = 10⁴ when the runs have it, else at their largest."""
    sizes = sorted(rows["graph.n_nodes"].unique())
    n_nodes = REFERENCE_N if REFERENCE_N in sizes else sizes[-1]
    rows = outside(rows[rows["graph.n_nodes"] == n_nodes])
    algorithms = [a for a in ALGORITHMS if (rows.method == a).any()]
    if not algorithms:
        raise MissingData("no rows of c_colme or b_colme")
    grid = panel_grid([name("method", a, FAMILY) for a in algorithms], height=3.4, aspect=1.25,
                      sharey=True)
    runs = []
    for ax, algorithm in zip(grid.axes.flat, algorithms, strict=True):
        cells = rows[rows.method == algorithm].cell_id.unique()
        for cell in cells:
            of_cell = rows[rows.cell_id == cell]
            summary = across_runs(of_cell, "outside")
            runs.append(int(summary[summary.method == algorithm]["n"].max()))
            for estimator, method in (("estimate", algorithm), ("oracle", f"{algorithm}_oracle"),
                                      ("local", "local"), ("ideal", "ideal")):
                curve = summary[summary.method == method]
                _log_curve(ax, curve, COLOURS[estimator], f"{estimator} (ours)")
        if reference is not None:
            theirs = reference[(reference.algorithm == algorithm)
                               & (reference.n_nodes == n_nodes) & (reference.metric == "within")]
            for estimator, method in (("estimate", algorithm), ("oracle", f"{algorithm}_oracle"),
                                      ("local", "local")):
                curve = theirs[theirs.method == method]
                if curve.empty:
                    continue
                half = half_width(curve["sd"].to_numpy(), curve["runs"].to_numpy())
                _log_curve(ax, pd.DataFrame({"t": curve["t"], "mean": 1.0 - curve["mean"],
                                             "low": 1.0 - curve["mean"] - half,
                                             "high": 1.0 - curve["mean"] + half}),
                           COLOURS[estimator], f"{estimator} (reference's runs)", dashes="--",
                           width=1.0)
        ax.set_yscale("log")
        ax.set_xlabel("t (samples per agent)")
    grid.axes.flat[0].set_ylabel("1 − fraction of agents within 0.1")
    _legend(grid)
    reference_runs = ("" if reference is None else
                      "; dashed, the reference's own runs (C++ code, commit c782c29) at the same N")
    text = (f"1 − the fraction of agents whose value is within 0.1 of their class mean, "
            f"against t; N = {n_nodes:,}, mean over {runs_text(runs)} per cell "
            f"with Student-t 95% bands{reference_runs}. {_alone(rows)} Curves end where "
            "every agent is "
            f"within 0.1 in every run (the log axis stops at {FLOOR:g}).")
    return finish(grid, text, title or "Agents outside the accuracy against t: the "
                  f"estimates, their oracles, the local and the ideal means (N = {n_nodes:,})")


def degree_figure(rows: pd.DataFrame, title: str | None = None) -> sns.FacetGrid:
    """1 − the fraction within the accuracy against t, per algorithm, of the estimate
    (solid) and its oracle (dotted) at each degree r, and each cell's local mean (grey)."""
    rows = outside(rows)
    algorithms = [a for a in ALGORITHMS if (rows.method == a).any()]
    if not algorithms:
        raise MissingData("no rows of c_colme or b_colme")
    degrees = sorted(rows["graph.degree"].dropna().unique())
    colours = dict(zip(degrees, sns.color_palette(DEGREE_PALETTE, len(degrees)), strict=True))
    grid = panel_grid([name("method", a, FAMILY) for a in algorithms], height=3.4, aspect=1.25,
                      sharey=True)
    runs = []
    for ax, algorithm in zip(grid.axes.flat, algorithms, strict=True):
        of_algorithm = rows[rows.method == algorithm]
        for cell in of_algorithm.sort_values("graph.degree").cell_id.unique():
            of_cell = rows[rows.cell_id == cell]
            r = _one_value(of_cell, "graph.degree", "degree figure")
            summary = across_runs(of_cell, "outside")
            runs.append(int(summary["n"].max()))
            _log_curve(ax, summary[summary.method == algorithm], colours[r], f"r = {r:g}")
            _log_curve(ax, summary[summary.method == f"{algorithm}_oracle"], colours[r],
                       f"oracle, r = {r:g}", dashes=":", width=1.1, band=False)
            _log_curve(ax, summary[summary.method == "local"], GREY, "local (each cell)",
                       width=0.7, band=False)
        ax.set_yscale("log")
        ax.set_xlabel("t (samples per agent)")
    grid.axes.flat[0].set_ylabel("1 − fraction of agents within 0.1")
    _legend(grid)
    n_nodes = _one_value(rows, "graph.n_nodes", "degree figure")
    text = (f"1 − the fraction of agents within 0.1 of their class mean against t, at each "
            f"degree r of the random regular graph (N = {n_nodes:,}); solid: the estimate, "
            f"mean over {runs_text(runs)} with Student-t 95% bands; dotted: its "
            "oracle (the true same-class neighbours); grey: each cell's local mean.")
    return finish(grid, text, title or "Agents outside the accuracy against t, per degree r "
                  f"of the graph (N = {n_nodes:,})")


def private_figure(rows: pd.DataFrame, title: str | None = None) -> sns.FacetGrid:
    """Private C-ColME's mean squared error at the last step against ε, one panel per
    degree, one curve per mechanism, with each cell's private oracle (dotted) and local
    mean (grey); Student-t 95% error bars over the runs."""
    private = rows[rows["privacy.mechanism"] != "none"]
    if private.empty:
        raise MissingData("no rows of a private mechanism")
    last = private[private.t == private.groupby("cell_id").t.transform("max")]
    summary = across_runs(last, "mse", ("cell_id", "method"))
    cells = last.drop_duplicates("cell_id").set_index("cell_id")
    columns = ["privacy.mechanism", "epsilon", "graph.degree"]
    summary = summary.join(cells[[*columns, "t_max"]], on="cell_id")
    degrees = sorted(summary["graph.degree"].unique())
    grid = panel_grid([f"r = {r:g}" for r in degrees], height=3.2, aspect=1.1, sharey=True)
    runs = []
    for ax, r in zip(grid.axes.flat, degrees, strict=True):
        panel = summary[summary["graph.degree"] == r]
        for mechanism, of_mechanism in panel.groupby("privacy.mechanism", sort=True):
            colour = COLOURS.get(mechanism, GREY)
            label = name("privacy.mechanism", mechanism, FAMILY)
            for method, dashes, marker, text in (("c_colme", "-", "o", label),
                                                 ("c_colme_oracle", ":", "", f"{label}, oracle"),
                                                 ("local", "--", "", "local (each cell)")):
                curve = of_mechanism[of_mechanism.method == method].sort_values("epsilon")
                if curve.empty:
                    continue
                runs.append(int(curve["n"].max()))
                ax.errorbar(curve["epsilon"], curve["mean"],
                            yerr=[curve["mean"] - curve["low"], curve["high"] - curve["mean"]],
                            ls=dashes, marker=marker, ms=4, lw=1.2 if method != "local" else 0.8,
                            color=GREY if method == "local" else colour, capsize=2, label=text)
        ax.set_xscale("log")
        ax.set_yscale("log")
        epsilons = sorted(panel["epsilon"].unique())
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.minorticks_off()
        ax.set_xlabel("ε")
    grid.axes.flat[0].set_ylabel("mean squared error at the last step")
    _legend(grid)
    t_max = _one_value(summary, "t_max", "private figure")
    text = (f"Private C-ColME (this project's design: the agents exchange only their PM-I or "
            f"PM-II releases): mean squared error to each agent's class mean at t = "
            f"{number(t_max)}, against ε, per degree r; mean over {runs_text(runs)} "
            "with Student-t 95% bars; dotted, the private oracle (the releases of the true "
            "same-class neighbours); grey dashed, each cell's local mean (no privacy needed: "
            "an agent's own samples).")
    return finish(grid, text, title or f"Private C-ColME: MSE at t = {number(t_max)} "
                  "against ε, per degree r")
