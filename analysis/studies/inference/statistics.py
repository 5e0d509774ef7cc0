"""The numbers the inference study computes from the results, for its figures and claims.

- Sec. 2: :func:`power_curves` (one :class:`Curve` per n and p of the toy) and
  :func:`critical_table`, the critical budgets ε* (eq. (2)'s, the exact root, and where
  the power curves first reach β_IND: :func:`crossing`);
- Sec. 5: :func:`best_treatment` (each algorithm's winning arm, run by run),
  :func:`pvalues_table` (the tests' p-values over runs), :func:`rizk_ratios` (Fig. 6:
  Rizk et al.'s TVD over ours);
- the theorems: :func:`final_rates`, each bounded error at T against its bound (a rate
  and its 95% Wilson interval: :func:`share`);
- Sec. 14.3: :func:`runtimes`, each cell's time per run, from the results' provenance.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import rel_entr

from sweep.store import ResultsStore

from ...load import Z95, MissingData, summaries, wilson
from ...order_statistics import quantile_ranks
from ...plot import SharedCurve
from .selection import (
    BELIEF_METHODS,
    ERRORS,
    FAMILY,
    PRIVATE_MLE,
    SET_METHODS,
    extra_options,
    family_rows,
    final_rows,
    per_cell,
)

#: Sec. 2's toy: randomized response (Fig. 1) and Laplace noise (Fig. 2).
TOY = ("rr", "laplace")
#: The paper's run times (Sec. 5: "between ∼10⁻² and 10 seconds for n = 3 to 96";
#: Sec. 14.3, Fig. 14.2: "from ∼10⁻² s to ∼1 s", n = 6 to 96), in seconds.
PAPER_RUNTIME = (1e-2, 10.0)
PAPER_RUNTIME_ACTG = (1e-2, 1.0)


def share(successes: float, runs: float) -> tuple[float, float, float]:
    """A share of runs with its 95% Wilson interval."""
    low, high = wilson(pd.Series([successes]), pd.Series([float(runs)]), Z95)
    return successes, float(low.iloc[0]), float(high.iloc[0])


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


def _p(states: str) -> float:
    """p of the Sec. 2 toy, from its states (1 − p, p) as the results write them."""
    return float(str(states).split(",")[1])


def toy_rows(summary: pd.DataFrame, method: str | None = None) -> pd.DataFrame:
    """The rows of Sec. 2's toy (``method`` ``rr`` or ``laplace``, default the one present)
    with ``p``, ``agents`` (n) and ``toy`` (the method) columns; :class:`MissingData` if there are
    none, ``ValueError`` if both methods are present and none is chosen,
    :class:`SharedCurve` if the cells differ in more than ε, n and p."""
    rows = family_rows(summary, "power_figure")
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
    extra = extra_options(rows, ("epsilon", "graph.n_nodes", "model.states"))
    if extra:
        raise SharedCurve(extra, ["epsilon", "graph.n_nodes", "model.states"])
    # ``model.states`` is categorical in a summary: p and n as plain numbers, in numeric
    # order. (``n`` is the summary's count of rows: the agents are ``agents``.)
    return rows.assign(p=rows["model.states"].astype(str).map(_p).astype(float),
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


# -- Sec. 5, Fig. 5: the best treatment ------------------------------------------------------

def best_treatment(rows: pd.DataFrame) -> pd.DataFrame:
    """Per method, from the belief rows of every run (:func:`analysis.load.load`): the
    state with the largest mean final belief (``best``) and the share of runs whose
    agents' average final belief is largest, strictly, at each state (``share_<state>``),
    with the runs counted (``runs``)."""
    beliefs = final_rows(rows[(rows.source == "belief") & rows.method.isin(BELIEF_METHODS)])
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


# -- The theorems' bounds, Fig. 6 against Rizk et al., the tests of Sec. 5 ------------------

def final_rates(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell with a bound row, the bounded metric at T: the simulated rate with its
    Wilson 95% interval, the bound, and whether the rate is within it (``holds``: the
    rate does not exceed an upper bound, or fall below a lower bound, by more than its
    interval)."""
    rows = family_rows(summary, "final_rates")
    rows = rows[rows.method.isin(SET_METHODS)]
    bounds = rows[rows.source == "bound"]
    simulated = final_rows(rows[rows.source == "simulated"]).set_index("cell_id")
    found = []
    for row in bounds.itertuples(index=False):
        metric = next((m for m in ERRORS if pd.notna(getattr(row, m))), None)
        if metric is None or row.cell_id not in simulated.index:
            continue
        mine = simulated.loc[row.cell_id]
        count = float(mine.n)
        rate, low, high = share(float(mine[metric]), count)
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
    rows = family_rows(summary, "rizk_ratios")
    final = final_rows(rows[rows.source == "simulated"])
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


#: Resamples of the bootstrap of Fig. 6's largest ratio (:func:`largest_ratio`), and its
#: seed.
RESAMPLES = 2000
RESAMPLE_SEED = 27


def largest_ratio(rows: pd.DataFrame, methods: Sequence[str] = PRIVATE_MLE,
                  resamples: int = RESAMPLES, seed: int = RESAMPLE_SEED) -> dict[str, float]:
    """The largest of Fig. 6's ratios Rizk et al.'s mean TVD / ours over the cells (method,
    n, ε), from every run's final row (:func:`analysis.load.load` of the simulated rows),
    with a percentile 95% interval of that maximum: ``resamples`` times, each cell's runs
    (Rizk et al.'s per (n, ε), shared by the methods compared with it, and each method's)
    are resampled with replacement, every cell's ratio recomputed and their maximum
    taken. The largest of many noisy ratios is biased upwards; the bootstrap carries the
    selection into the interval, which a delta-method interval of the chosen cell would
    not. A cell where ours is 0 in every run (an unbounded ratio) is left out
    (``unbounded`` counts them); a resample where ours is 0 gives an infinite ratio."""
    final = final_rows(rows[rows.source == "simulated"])
    rng = np.random.default_rng(seed)
    maxima = np.full(resamples, -np.inf)
    best = {"estimate": -math.inf}
    cells = unbounded = 0

    def boot(values: np.ndarray) -> np.ndarray:
        draws = rng.integers(0, len(values), size=(resamples, len(values)))
        return values[draws].mean(axis=1)

    for (n, epsilon), part in final.groupby(["graph.n_nodes", "epsilon"], sort=True):
        rizk = part[part.method == "rizk"].tvd_truth.to_numpy(float)
        if not rizk.size:
            continue
        rizk_boot = boot(rizk)
        for method in methods:
            ours = part[part.method == method].tvd_truth.to_numpy(float)
            if not ours.size:
                continue
            if ours.mean() == 0:
                unbounded += 1
                continue
            cells += 1
            ours_boot = boot(ours)
            with np.errstate(divide="ignore"):
                ratio = np.where(ours_boot > 0, rizk_boot / np.where(ours_boot > 0,
                                                                     ours_boot, 1.0), np.inf)
            maxima = np.maximum(maxima, ratio)
            estimate = rizk.mean() / ours.mean()
            if estimate > best["estimate"]:
                best = {"estimate": float(estimate), "method": method, "n": int(n),
                        "epsilon": float(epsilon), "rizk": float(rizk.mean()),
                        "ours": float(ours.mean())}
    if not cells:
        raise MissingData("largest_ratio: needs runs of Rizk et al. and of our methods "
                          "with a positive TVD")
    low, high = np.percentile(maxima, [2.5, 97.5])
    return {**best, "low": float(low), "high": float(high), "resamples": resamples,
            "cells": cells, "unbounded": unbounded}


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


# -- Sec. 14.3: run time per run --------------------------------------------------------------

def runtimes(results: str | Path, summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per inference cell of the results directory: its options (from the
    summary) and ``seconds``, its compute time (the provenance's ``wall_seconds``, summed
    over its pieces: the runs, not the preparation of the data), and ``per_run``, that over
    its replicates."""
    store = ResultsStore(Path(results))
    store.scan()
    seconds = {cell: record["wall_seconds"] for cell, record in store.records().items()
               if record.get("family", FAMILY) == FAMILY}
    if summary is None:
        summary = summaries(results, family=FAMILY)
    rows = family_rows(summary, "runtime_figure")
    cells = per_cell(rows[rows.source == "simulated"]).copy()
    cells["seconds"] = cells.cell_id.map(seconds)
    cells = cells[cells.seconds.notna() & (cells.replicates > 0)]
    if cells.empty:
        raise MissingData(f"runtime_figure: no provenance of simulated inference cells in "
                          f"{results}")
    cells["per_run"] = cells.seconds / cells.replicates
    return cells



# -- Thm 13.1 on Sec. 2's randomized response -----------------------------------------------

def lower_bounds(summary: pd.DataFrame) -> pd.DataFrame:
    """Thm 13.1's bound on K·T for Sec. 2's randomized-response test, per exact cell (n,
    p, ε) of Fig. 1: each agent's one signal, flipped with probability
    p_ε = 1/(1 + e^ε), is 1 with probability q₁ = p(1 − p_ε) + (1 − p)p_ε under θ = 1 and
    q₀ = (1 − p)(1 − p_ε) + p p_ε under θ = 0, so Σ_i D_KL = n·KL(q₁ ‖ q₀); the test's
    power β is eq. (1)'s and its size α the level. ``printed``: |1 − α − β| diam / (2 Σ
    D_KL) as Thm 13.1 prints it; ``corrected``: with |β − α|; ``decision_kl``: kl(β ‖ α),
    the binary relative entropy of the test's decision, which the data-processing
    inequality bounds by K·T·Σ D_KL whatever the test. diam = 1 (the
    complete graph) and K = T = 1. α is the test's actual size (the unrandomized test of
    eq. (1) is conservative: :func:`sweep.inference.api.rr_size`)."""
    from sweep.inference.api import rr_size

    rows = toy_rows(summary, "rr")
    exact = rows[(rows.method == "rr") & (rows.source == "exact")]
    flip = 1 / (1 + np.exp(exact.epsilon.to_numpy(float)))
    p = exact.p.to_numpy(float)
    q1 = p * (1 - flip) + (1 - p) * flip
    q0 = (1 - p) * (1 - flip) + p * flip
    kl = exact.agents.to_numpy(float) * (q1 * np.log(q1 / q0)
                                         + (1 - q1) * np.log((1 - q1) / (1 - q0)))
    power = exact.reject.to_numpy(float)
    alpha = np.array([rr_size(int(n), float(q), float(e), float(a)) for n, q, e, a in zip(
        exact.agents, exact.p, exact.epsilon, exact.alpha, strict=True)])
    # kl(β ‖ α): the binary relative entropy of the test's decision under θ = 1 and 0, at
    # most the responses' Σ D_KL (data processing), with any K·T = 1.
    decision = rel_entr(power, alpha) + rel_entr(1 - power, 1 - alpha)
    return pd.DataFrame({"n": exact.agents.to_numpy(int), "p": p,
                         "epsilon": exact.epsilon.to_numpy(float), "power": power, "size": alpha,
                         "kl": kl,
                         "printed": np.abs(1 - alpha - power) / (2 * kl),
                         "corrected": np.abs(power - alpha) / (2 * kl),
                         "decision_kl": decision})


# -- The guarantees on synthetic data (inference_guarantees) --------------------------------

#: T at or above which a cell of ``inference_guarantees`` stands for T → ∞ (Thm 4.1).
LARGE_T = 200


#: ϱ → ∞ of Thm 4.1, read from the final beliefs: a state is kept when its aggregated
#: belief exceeds this τ = 1/(1 + e^ϱ). At T = :data:`LARGE_T` every round's belief is a
#: point mass, so AM's beliefs are multiples of 1/K and any τ below 1/K keeps the same set.
LIMIT_TAU = 1e-9


def noise_limit(method: str, states: int, rounds: int, rho: float | None) -> float:
    """The error as ε → 0 with T → ∞ on Alg. 1, where each round's noisy log-likelihoods
    Z_k are decided by the noise alone, so each round's winner is uniform on Θ (one MLE
    state): AM (kept if its K-round average belief, wins/K, reaches τ = 1/(1 + e^ϱ); τ → 0
    for ``rho=None``) misses θ° with probability P[Bin(K, 1/|Θ|) < ⌈τK⌉]; GM, the
    normalized geometric mean (13), is a point mass at the largest K-round sum of the
    Z_k, uniform on Θ, so it returns a non-MLE state with probability 1 − 1/|Θ|."""
    from scipy.stats import binom

    if method == "gm":
        return 1 - 1 / states
    needed = 1 if rho is None else math.ceil(rounds / (1 + math.exp(rho)) - 1e-12)
    return float(binom.cdf(needed - 1, rounds, 1 / states))


def guarantee_rates(summary: pd.DataFrame, beliefs: pd.DataFrame | None = None
                    ) -> pd.DataFrame:
    """One row per cell of ``inference_guarantees``: the theorem it checks (Thm 4.1 at
    T ≥ :data:`LARGE_T` with the bound α or 1 − β; Thms 4.2, 4.3, 4.7 and Prop. 4.6 at
    their own K and T, with the family's bound row), its setting in words, the rate at T
    over the runs, the bound and whether it bounds from below (exact recovery), and the
    reading of a rate past its bound. Thm 4.1 states its limit ϱ → ∞: with ``beliefs``
    (every run's belief rows of the AM and GM cells) its rates are read there
    (:data:`LIMIT_TAU`), else at the cell's ϱ."""
    rows = family_rows(summary, "guarantee_rates")
    simulated = final_rows(rows[rows.source == "simulated"])
    bounds = rows[rows.source == "bound"].set_index("cell_id")
    limit = {}
    if beliefs is not None:
        final = final_rows(beliefs[beliefs.source == "belief"])
        for cell, part in final.groupby("cell_id", sort=False):
            star = {float(x) for x in str(part.mle_set.iloc[0]).split(",")}
            wide = part.pivot_table(index="replicate", columns="state", values="belief",
                                    observed=True)
            kept = wide.to_numpy(float) > LIMIT_TAU
            mle = np.array([float(c) in star for c in wide.columns])
            # GM: a non-MLE state kept (type I); AM: an MLE state left out (type II).
            wrong = (kept & ~mle if part.method.iloc[0] == "gm" else ~kept & mle)
            limit[cell] = float(wrong.any(axis=1).mean())
    metrics = {"gm": "type_i_error", "am": "type_ii_error", "threshold_1": "type_i_error",
               "threshold_2": "type_ii_error", "test": "reject",
               "private_ol": "exact_recovery"}
    theorems = {"gm": "Thm 4.2", "am": "Thm 4.2", "threshold_1": "Thm 4.3",
                "threshold_2": "Thm 4.3", "test": "Prop. 4.6", "private_ol": "Thm 4.7"}
    found = []
    for row in simulated.rename(columns={"model.states": "states", "model.truth": "truth"}
                                ).itertuples(index=False):
        method = row.method
        metric = metrics.get(method)
        if metric is None:
            continue
        rate = float(getattr(row, metric))
        states = len(str(row.states).split(","))
        rho = row.rho_gm if method == "gm" else row.rho_am
        if row.iterations_t >= LARGE_T and method in ("am", "gm"):
            theorem = "Thm 4.1"
            bound = row.alpha if method == "gm" else 1 - row.beta
            if row.cell_id in limit:
                rate, rho = limit[row.cell_id], None
        elif row.cell_id in bounds.index:
            theorem = theorems[method]
            bound = float(bounds.loc[row.cell_id, metric])
        else:
            continue
        gap = "noise dominates" if row.epsilon < 1e-2 else (
            "the gap dominates" if row.epsilon >= 10 else "noise comparable to the gap")
        test = f"{row.test} test, " if method == "test" else ""
        setting = (f"synthetic Bernoulli, K₅, Θ = {{{str(row.states).replace(',', ', ')}}}, "
                   f"θ° = {row.truth:g}, {test}ε = {row.epsilon:g} ({gap})")
        if theorem == "Thm 4.1":
            setting += (", ϱ → ∞ (a state is kept if its belief is positive) and T = "
                        f"{row.iterations_t} (every round's belief a point mass)"
                        if rho is None else f", ϱ = {rho:g}")
        if method == "threshold_1":
            setting += f", {row.counting} counting"
        found.append({"theorem": theorem, "method": method, "metric": metric,
                      "setting": setting, "counting": row.counting if method.startswith(
                          "threshold") else "", "rate": rate,
                      "runs": int(row.n), "bound": float(bound),
                      "lower": metric == "exact_recovery",
                      "noise_scale": float(row.noise_scale), "rounds_k": int(row.rounds_k),
                      "iterations_t": int(row.iterations_t),
                      "reading": _guarantee_reading(theorem, row, states, rho, rate)})
    if not found:
        raise MissingData("guarantee_rates: needs the cells of +experiment=inference_guarantees")
    order = {"Thm 4.1": 0, "Thm 4.2": 1, "Thm 4.3": 2, "Prop. 4.6": 3, "Thm 4.7": 4}
    return pd.DataFrame(found).sort_values(
        ["theorem", "method", "setting"], key=lambda c: c.map(order) if c.name == "theorem"
        else c).reset_index(drop=True)


def _guarantee_reading(theorem: str, row, states: int, rho: float | None,
                       rate: float) -> str:
    """Why a theorem's rate can pass its bound in this cell: what the theorem assumes, that
    the run meets it, and the error the noise alone gives (:func:`noise_limit`)."""
    method, k = row.method, int(row.rounds_k)
    if method == "threshold_1" and row.counting == "printed":
        return ("with the printed counting p₁ = 1 − 1/|Θ*| = 0, τ^{thres,1} = 0 and "
                "Θ̂^{thres,1} keeps every state: a counterexample to Thm 4.3 as printed")
    if method == "test":
        return ("Prop. 4.6 takes K and T from Thm 4.2 at level α/2 and puts no condition on "
                f"ε, and the run uses them (K = {k}, T = {row.iterations_t}); its proof's "
                "Chebyshev step needs the K rounds' average Laplace noise to be small "
                f"against the threshold, but its scale b = {row.noise_scale:.3g} grows with "
                "K and falls only as b/√K when averaged: the statistic does not "
                "concentrate. A counterexample to the proposition as printed (the text's "
                "'for sufficiently large T and K' is not in its statement)")
    if row.epsilon >= 1 or method == "private_ol":
        # Here the likelihood gap dominates the noise: the rate is expected within its
        # bound, and a row that does not agree is one the runs do not resolve.
        runs = int(row.n)
        return (f"at this ε the likelihood gap dominates the noise; {runs:,} runs "
                f"resolve a rate of {rate:.3g} only to about "
                f"±{1.96 * math.sqrt(rate * (1 - rate) / runs):.2g}, not enough to place it "
                "on either side of the bound")
    if method == "threshold_1":
        return ("under noise alone a non-MLE state wins a round with 1/|Θ| = "
                f"1/{states}, below the corrected p₁ = 1 − 1/(|Θ*| + 1), so the bound can "
                "hold as K grows; at this K the runs do not resolve the rate from it")
    if method == "threshold_2":
        return (f"Thm 4.3 is asymptotic (T, ϱ → ∞), which T = {row.iterations_t} on K₅ "
                "meets (every round's belief a point mass, so the rounds' counts are the "
                "limit's), and puts no condition on ε; its proof takes an MLE state to win "
                "a round with probability ≥ π₂ = 1/|Θ̄| (Lemma 9.1 applied to |Θ̄| draws "
                f"where |Θ̄| + 1 are compared), but under noise alone it wins with "
                f"1/|Θ| = 1/{states}, below τ₂: a counterexample to the theorem as printed")
    limit = noise_limit(method, states, k, rho)
    where = ("the theorem's limits ϱ, T → ∞ are read here" if theorem == "Thm 4.1" else
             f"the run meets its hypotheses (its T = {row.iterations_t}, which grows with "
             f"the noise, its K = {k} and ϱ = {rho:g} > 0)")
    if method == "gm":
        how = ("the normalized geometric mean (13) is, as T grows, a point mass at the "
               "state of largest K-round sum of noisy log-likelihoods, whatever ϱ (the "
               "proof's P[ν^GM(θ̄) > 0] = P[θ̄ wins every round] drops the "
               "normalization); under noise alone that state is uniform on Θ, so the type "
               f"I error tends to 1 − 1/|Θ| = {limit:.3g} whatever K")
    else:
        needed = ("at least one" if rho is None else
                  f"at least {math.ceil(k / (1 + math.exp(rho)) - 1e-12)}")
        how = (f"AM keeps θ° if it wins {needed} of the {k} rounds; under noise alone it wins each "
               f"with 1/|Θ| = 1/{states}, not the proof's ≥ 1/|Θ̄| (Lemma 9.1 applied to "
               "|Θ̄| draws where |Θ̄| + 1 are compared, and the other MLE states left "
               f"out), so it is missed with probability {limit:.3g}")
    return (f"{theorem} takes K from α and β alone and puts no condition on ε; {where}. "
            f"As ε → 0 {how}: a counterexample to the theorem as printed, not a regime "
            "it excludes")


# -- The authors' notebook -------------------------------------------------------------------

def notebook_rounds(states: int = 3, eta: float = 0.05) -> dict[str, tuple[int, int]]:
    """K for Fig. 5 (|Θ| = ``states`` arms, one best, η = max(α, 1 − β)): per AM and GM,
    Thm 4.1's (ours) and the notebook's ⌈|Θ| log(|Θ|/η)⌉."""
    from sweep.inference.api import theorem_rounds

    notebook = math.ceil(states * math.log(states / eta))
    return {m: (theorem_rounds(m, 1, states - 1, eta, 1 - eta, 0.5, 0.5, "theorem"), notebook)
            for m in ("am", "gm")}


# -- Sec. 14.3: like with like -----------------------------------------------------------------

#: Repetitions of each timed run.
REPEATS = 5
#: The timed runs of this process, by cell options and repetitions.
_TIMES: dict[tuple[str, int], list[dict[str, float]]] = {}


def timed_runs(summary: pd.DataFrame, repeats: int = REPEATS) -> pd.DataFrame:
    """Our time for one whole run of each cell of the runtime preset, as the notebook
    times its own: the centres' log-likelihoods on their patients, then the belief
    exchange, in a fresh process with every numerical library on one thread
    (:func:`sweep.inference.api.time_cell`), ``repeats`` times. Per cell: the mean and
    standard error of log₁₀ seconds (``log_mean``, ``log_se``) and the mean parts
    (``prepare``, ``exchange``)."""
    from sweep.inference.api import time_cell

    rows = family_rows(summary, "timed_runs")
    cells = per_cell(rows[rows.source == "simulated"])
    # The runtime preset's cells resample the data to a number of time points; cells of
    # the data as they are (the quickstart's) have none to time by.
    if "dataset.patients" in cells:
        cells = cells[cells["dataset.patients"].notna()]
    if "dataset.patients" not in cells or cells.empty:
        raise MissingData("timed_runs: needs cells with dataset.patients set (ACTG 175 "
                          "resampled: +experiment=inference_runtime)")
    found = []
    for _, cell in cells.iterrows():
        options = {"graph": {"kind": "complete", "n_nodes": int(cell["graph.n_nodes"])},
                   "method": cell.method, "epsilon": float(cell.epsilon),
                   "alpha": float(cell.alpha), "beta": float(cell.beta),
                   "rho_am": float(cell.rho_am), "rho_gm": float(cell.rho_gm),
                   "dataset": {"patients": int(cell["dataset.patients"])}}
        key = (json.dumps(options, sort_keys=True), repeats)
        if key not in _TIMES:  # the document's claims and its figure time a cell once
            _TIMES[key] = time_cell(options, repeats)
        times = pd.DataFrame(_TIMES[key])
        total = np.log10(times.prepare + times.exchange)
        found.append({"n": options["graph"]["n_nodes"],
                      "patients": options["dataset"]["patients"],
                      "epsilon": options["epsilon"], "alpha": options["alpha"],
                      "method": cell.method, "prepare": float(times.prepare.mean()),
                      "exchange": float(times.exchange.mean()),
                      "log_mean": float(total.mean()),
                      "log_se": float(total.std(ddof=1) / math.sqrt(len(total))),
                      "repeats": len(total)})
    return pd.DataFrame(found)


def rizk_variants(summary: pd.DataFrame) -> pd.DataFrame:
    """Per start and clipping of Rizk et al. (``inference_fig6_rizk``): the mean over the
    cells (n, ε) of the TVD to the ground truth at T, its standard error (the cells'
    standard errors combined: independent cells), and its range over the cells."""
    rows = family_rows(summary, "rizk_variants")
    final = final_rows(rows[(rows.source == "simulated") & (rows.method == "rizk")])
    if final.empty or "rizk_start" not in final:
        raise MissingData("rizk_variants: needs the cells of +experiment=inference_fig6_rizk")
    found = []
    for (start, clip), part in final.groupby(["rizk_start", "rizk_clip"], observed=True,
                                             sort=False):
        se = part.tvd_truth_high - part.tvd_truth
        found.append({"start": str(start), "clip": str(clip),
                      "mean": float(part.tvd_truth.mean()),
                      "se": float(np.sqrt((se ** 2).sum()) / len(part)),
                      "low": float(part.tvd_truth.min()), "high": float(part.tvd_truth.max()),
                      "cells": len(part)})
    return pd.DataFrame(found)
