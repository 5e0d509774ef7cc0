"""The continual study's section of ``docs/continual.md``: every number and verdict its
template (``continual.md`` in this package) names, computed from the presets' rows.

:func:`values` gathers them: the order statistics of each preset's quantiles and its
setting in words, the findings of each preset (:func:`orders_values`,
:func:`scaling_values`, :func:`epsilon_values`, :func:`constants_values`), and the rows of
the claims and checks tables: the statements declared in :mod:`.statements`, decided from
the numbers :class:`Measures` takes of the runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.claims import Guarantee, Ordering, Slope, Verdict, markdown_table
from analysis.document import Values
from analysis.labels import name
from analysis.numbers import number, percent, sci, span
from analysis.order_statistics import LEVEL, quantile_ranks
from analysis.statements import Interval, evaluate
from analysis.study import Results
from sweep.continual.api import METHODS, ORDERS, PRIVATE

from .figures import (
    DRAWS,
    FAMILY,
    ORDER,
    SCALING_FIT,
    _orders_present,
    activations,
    at_end,
    final,
    local_ranges,
    quantiles,
    references,
    scaling_ranges,
    slopes,
)
from .statements import CHECKS, CLAIMS, DIMENSION_FIT, EPSILON_FIT


def values(results: Results) -> Values:
    """Every value of the section's template, from the rows of the presets' results: the
    paper's claims (``continual_claims``) and the project's checks (``continual_checks``),
    declared in :mod:`.statements` and decided from the :class:`Measures`, and the
    descriptive tables."""
    measures = Measures(results)
    return {**quantile_values(results.runs), **setting_values(results.runs),
            **orders_values(results), **scaling_values(results), **epsilon_values(results),
            **constants_values(results), **noise_values(results),
            **dimension_values(results), "level": percent(LEVEL),
            "epsilon_fit": f"{EPSILON_FIT[0]:g}–{EPSILON_FIT[1]:g}",
            "dimension_fit": f"{DIMENSION_FIT[0]:g}–{DIMENSION_FIT[1]:g}",
            "continual_claims": evaluate(CLAIMS, measures),
            "continual_checks": evaluate(CHECKS, measures)}


# -- What the statements measure -----------------------------------------------------------

def at_t(rows: pd.DataFrame, y: str = "abs_error", **where: object) -> pd.Series:
    """The simulated ``y`` at T of the one cell selected by ``where`` (``noise_scale=None``
    selects the calibrated noise), by replicate."""
    chosen = final(rows)
    for column, value in where.items():
        chosen = chosen[chosen[column].isna()] if value is None else chosen[
            chosen[column] == value]
    if chosen.cell_id.nunique() != 1:
        raise ValueError(f"{where} selects {chosen.cell_id.nunique()} cells, not one")
    return chosen.set_index("replicate")[y].sort_index()


def paired(what: str, a: pd.Series, b: pd.Series, claimed: str = "<") -> Ordering:
    """A − B over the replicates both cells ran, paired on their common data."""
    common = a.index.intersection(b.index)
    return Ordering.paired_runs(what, a[common].to_numpy(), b[common].to_numpy(), claimed)


def _signed(x: float) -> str:
    """``x`` to three significant digits, with a true minus sign."""
    return f"{x:.3g}".replace("-", "−")


@dataclass(frozen=True)
class BoundSlope(Slope):
    """A measured slope judged against the slope of the theorem's own bound over the same
    cells (``theory``), with the bare ``exponent`` of its Õ(·) rate, shown, not judged;
    and their words for a row (``bare``, ``bound_slope``, ``side``, ``held``)."""

    exponent: float = math.nan

    @property
    def bare(self) -> str:
        return _signed(self.exponent)

    @property
    def bound_slope(self) -> str:
        return _signed(self.theory)

    @property
    def side(self) -> str:
        """Where the interval lies against the band of the bound's slope."""
        lo, hi = self.bounds()
        return "above" if self.low > hi else "below" if self.high < lo else "across an end of"

    @property
    def held(self) -> str:
        return "holds" if self.low <= self.exponent <= self.high else "excludes"


class Measures:
    """The numbers the statements (:mod:`.statements`) read, from the presets' runs: each
    method a measure, ``M.name(...)`` in a declaration. A case's arrival order is given as
    ``order`` (the column ``order.kind``)."""

    def __init__(self, results: Results) -> None:
        self.runs = results.runs
        self._at_end: dict[str, pd.DataFrame] = {}

    def _cells(self, preset: str) -> pd.DataFrame:
        """The cells of ``preset`` at T (:func:`~.figures.at_end`), computed once."""
        if preset not in self._at_end:
            self._at_end[preset] = at_end(self.runs[preset])
        return self._at_end[preset]

    def _where(self, preset: str, **where: Any) -> pd.DataFrame:
        rows = self.runs[preset]
        for column, value in where.items():
            rows = rows[rows[column] == value]
        return rows

    # Cases, where the data decide them.

    def orders(self, preset: str, among: Sequence[str] = tuple(ORDERS)) -> list[dict[str, str]]:
        """The arrival orders of ``among`` that ``preset`` ran, in that order."""
        present = set(self.runs[preset][ORDER])
        return [{"kind": o, "order": _order(o)} for o in among if o in present]

    def applies(self, preset: str, methods: Sequence[str]) -> list[dict[str, str]]:
        """(method, arrival order) where the method's theorem applies at T in every run."""
        cells = self._cells(preset)
        return [{"method": m, "kind": o, "order": _order(o)} for m in methods for o in ORDERS
                if (cells.applies & (cells.method == m) & (cells.order == o)).any()]

    def fitted(self, fits: pd.DataFrame, method: str) -> list[dict[str, str]]:
        """The one case of ``method`` if :meth:`fits` fitted it, else none."""
        return [{"method": method}] if method in fits.index else []

    def waiting(self, preset: str) -> list[dict[str, Any]]:
        """Algorithm 3 under round robin before t = n(m − 1), when a user first has its m
        samples (Sec. 3): the wait, the checkpoints before it, the most samples μ̂_t uses
        there (``used``), its error's range over them and the runs; no case if there is
        no such checkpoint."""
        rows = self.runs[preset]
        simulated = rows[(rows.source == "simulated") & (rows.method == "alg3")
                         & (rows[ORDER] == "round_robin")]
        if simulated.empty:
            return []
        cell = simulated.iloc[0]
        wait = int(cell.n_users) * (int(cell.max_samples) - 1)
        before = simulated[simulated.t < wait]
        if before.empty:
            return []
        return [{"wait": wait, "first": before.t.min(), "last": before.t.max(),
                 "used": float(before.samples_used.max()), "low": before.abs_error.min(),
                 "high": before.abs_error.max(), "runs": before.replicate.nunique()}]

    def shares_used(self, preset: str, methods: Sequence[str]) -> list[dict[str, Any]]:
        """For each of ``methods`` that ran, the smallest share of the t samples μ̂_t uses
        over the runs, checkpoints and orders (``least``), and by order (``shares``)."""
        simulated = self.runs[preset][self.runs[preset].source == "simulated"]
        found = []
        for method in [m for m in methods if m in set(simulated.method)]:
            mine = simulated[simulated.method == method]
            share = (mine.samples_used / mine.t).groupby(mine[ORDER]).min()
            found.append({"method": method, "least": float(share.min()), "shares": ", ".join(
                f"{_order(o)} {share[o]:.3g}" for o in ORDERS if o in share.index)})
        return found

    # Numbers.

    def at_t(self, preset: str, y: str = "abs_error", **where: Any) -> pd.Series:
        """:func:`at_t` of ``preset``'s runs."""
        return at_t(self.runs[preset], y, **{ORDER if c == "order" else c: v
                                               for c, v in where.items()})

    def mean(self, runs: pd.Series) -> float:
        """The mean over the runs."""
        return runs.mean()

    def largest_difference(self, a: pd.Series, b: pd.Series) -> float:
        """The largest |A − B| over the replicates both cells ran."""
        return float((a - b).abs().max())

    def exact(self, x: float) -> Interval:
        """A number measured without error: an interval of width 0."""
        return Interval(x, x, x)

    def paired_difference(self, a: pd.Series, b: pd.Series) -> str:
        """:func:`paired` A − B in words: ``−0.606 ± 0.804 (paired, t = −0.753, 19 df)``."""
        gap = paired("", a, b)
        return (f"{_signed(gap.difference)} ± {_signed(gap.se)} (paired, t = {_signed(gap.t)}, "
                f"{gap.df:g} df)")

    def equal_noise(self, preset: str) -> float:
        """The equal noise η of ``preset``'s cells (``noise_scale`` > 0)."""
        scale = self.runs[preset].noise_scale.dropna()
        return float(scale[scale > 0].iloc[0])

    def fits(self, preset: str, x: str, fit: tuple[float, float], **where: Any
             ) -> pd.DataFrame:
        """Each method's log–log slope of its mean error at T on ``x`` over the range
        ``fit`` (:func:`~.figures.slopes`), by method, in the cells ``where`` selects."""
        return slopes(self._where(preset, **where), x, {"fit": fit}).set_index("method")

    def slope(self, fits: pd.DataFrame, method: str, exponent: float, what: str, fit: str,
              bound: bool = False) -> BoundSlope:
        """``method``'s slope of :meth:`fits`, against its bound's, over the range ``fit``
        (in words), with the bare ``exponent`` of its Õ(·) rate; one-sided (``bound``)
        where the paper states the rate as a worst case (Õ(·))."""
        r = fits.loc[method]
        return BoundSlope(what, float(r.slope), float(r.ci_low), float(r.ci_high),
                          float(r.bound), fit, bound, exponent)

    def guarantee(self, preset: str, method: str, order: str, units: int, what: str
                  ) -> Guarantee:
        """The runs of ``method``'s cell under ``order`` whose error at T breaks its bound,
        against the failure probability ``units`` × δ its statement allows, with the
        margin of its (1 − δ) quantile."""
        cells = self._cells(preset)
        cell = cells[(cells.method == method) & (cells.order == order)].iloc[0]
        rows = self.runs[preset]
        within = final(rows[rows.cell_id == cell.cell_id]).within_bound.dropna()
        return Guarantee(what, int((within == 0).sum()), int(within.size),
                         units * float(cells.failure_probability.iloc[0]),
                         f"1 − δ quantile at {cell.q_error / cell.bound:.2g}× the bound")

    def proviso(self, preset: str, **where: Any) -> list[dict[str, Any]]:
        """The case of the cells ``where`` selects, if the preset ran them: their overall
        ε and Sec. 4's proviso at T, in words. Its left side, Σ_u min{m_u(T), M_T/2}, is
        at least the number of users seen (each gives one sample or more, M_T >= 2); its
        right side is √(dM_T)/ε with the Õ's logs set to 1. With the theorem's logs and
        constants it is Algorithm 6's condition (11) at each coordinate's ε₀, which the
        preset records (``diversity``)."""
        last = final(self._where(preset, **where))
        if last.empty:
            return []
        seen, m_t = float(last.n_users_seen.min()), float(last.max_count.mean())
        eps = float(last.epsilon.iloc[0])
        right = [math.sqrt(d * m_t) / eps for d in sorted(last.dimension.unique())]
        held = float(last.diversity.mean())
        return [{"epsilon": eps, "proviso": (
            f"‖μ̂_T − μ‖_∞ over the d coordinates. The proviso at T: Σ_u min{{m_u, M_T/2}} "
            f"≥ {seen:,.0f} users seen against √(dM_T)/ε = {right[0]:.3g}–{right[-1]:.3g} "
            f"with the logs set to 1 ({'met' if seen >= right[-1] else 'not met everywhere'}); "
            f"(11) at each coordinate's ε₀ holds in {held:.0%} of the runs at T"
            + (": the preset runs Algorithm 5, given the prior, in place of Algorithm 6"
               if held < 1 else ""))}]


def quantile_values(runs: Mapping[str, pd.DataFrame]) -> Values:
    """The order statistics that estimate each preset's (1 − δ) quantiles, with their
    intervals' coverage, and whether every upper rank is the sample's maximum."""
    ranks, at_max = [], True
    for preset, rows in runs.items():
        cells = rows.drop_duplicates("cell_id")
        for (n, failure), _ in cells.groupby(["replicates", "failure_probability"]):
            r = quantile_ranks(int(n), 1.0 - float(failure))
            at_max &= r.high == n
            ranks.append(f"`{preset}` ({n} runs, δ = {failure:g}): X_({r.point}) in "
                         f"[X_({r.low}), X_({r.high})], coverage {percent(r.coverage)}")
    return {"quantile_ranks": "; ".join(ranks), "quantile_at_max": at_max}


def setting_values(runs: Mapping[str, pd.DataFrame]) -> Values:
    """Each preset's setting in words, as ``<preset>_setting`` (``quickstart_setting``)."""
    return {f"{preset.removeprefix('continual_')}_setting": setting(rows)
            for preset, rows in runs.items()}


#: The options a preset's setting names, with their symbols.
SETTING = {"n_users": "n", "max_samples": "m", "t_max": "T", ORDER: "order",
           "epsilon": "ε", "failure_probability": "δ", "bound_constant": "c"}


def setting(rows: pd.DataFrame) -> str:
    """The options of a preset's cells in words: ``n = 10,000, m = 64, ..., ε ∈ {0.25,
    ..., 16}``, and its runs and methods."""
    cells = rows.drop_duplicates("cell_id")

    def value(column: str, v: Any) -> str:
        if column == ORDER:
            return _order(v)
        return f"{v:,}" if isinstance(v, int | np.integer) else f"{v:g}"

    parts = []
    for column, symbol in SETTING.items():
        values = sorted(cells[column].dropna().unique(), key=str if column == ORDER else None)
        shown = [value(column, v) for v in values]
        parts.append(f"{symbol} = {shown[0]}" if len(shown) == 1 else
                     f"{symbol} ∈ {{{', '.join(shown)}}}")
    simulated = rows[rows.source == "simulated"].method.unique()
    methods = _list([_method(m) for m in sorted(simulated, key=METHODS.index)])
    runs = "/".join(str(r) for r in sorted(cells.replicates.unique()))
    return f"{', '.join(parts)}; {runs} runs per cell; {methods}"


def _method(method: str) -> str:
    return name("method", method, FAMILY)


def _order(order: str) -> str:
    return name(ORDER, order, FAMILY)


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
    """:func:`analysis.numbers.span` of the values, ``none`` if there are none."""
    return span(values, fmt) if len(values) else "none"


def _slope(row: pd.Series) -> str:
    return f"{number(row.slope, 2)} [{number(row.ci_low, 2)}, {number(row.ci_high, 2)}]"


def orders_values(results: Results) -> Values:
    """The orders preset: every method's error at T per order (tables), where Algorithm 6
    loses to Algorithm 2 and the candidate reasons (diversity, withheld samples, the
    bounds' constants), and Algorithm 6's activations."""
    rows = results.runs["continual_orders"]
    cells = at_end(rows)
    orders = _orders_present(rows)
    methods = [m for m in METHODS if m in set(cells.method)]
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
    }

    # Algorithm 6 against Algorithm 2 at T: the orders where it is behind by the
    # paired-runs ordering rule (the checks' rows).
    loses = [o for o in orders if paired(
        "", at_t(rows, method="alg6", **{ORDER: o}), at_t(rows, method="alg2", **{ORDER: o}),
        claimed=">").decide() is Verdict.AGREES]
    ratio = (alg6.mean_error / alg2.mean_error)[orders]
    worst, best = ratio.idxmax(), ratio.idxmin()
    bound_ratio = (alg6.bound / alg2.bound)[orders]
    values.update(
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
    summary = results.summaries["continual_orders"]
    simulated = summary[summary.source == "simulated"]
    error = simulated.pivot_table(index=[ORDER, "t"], columns="method", values="abs_error",
                                  observed=True)
    diverse = simulated[simulated.method == "alg6"].set_index([ORDER, "t"]).diversity
    behind = error.alg6 / error.alg2
    share = diverse.groupby(level=ORDER, observed=True).mean()
    frozen = [f for f in (_frozen(error.alg6.xs(o, level=ORDER), _order(o)) for o in orders)
              if f]
    values.update(
        alg6_behind_share=_span((behind > 1).groupby(level=ORDER, observed=False).mean()[orders],
                                percent),
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


def stretches(mask: pd.Series) -> list[tuple[int, int]]:
    """The maximal runs of consecutive checkpoints at which ``mask`` holds, as
    (first t, last t)."""
    run = (mask != mask.shift()).cumsum()
    return [(int(part.index[0]), int(part.index[-1]))
            for _, part in mask.groupby(run) if part.iloc[0]]


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

def scaling_values(results: Results) -> Values:
    """The scaling preset: the slopes against M_T (local and over ranges), where they
    agree with the paper's 1 and ½, and where Algorithm 6 loses (11) and explodes."""
    rows = results.runs["continual_scaling"]
    cells = at_end(rows).set_index(["method", "max_samples"])
    ranges = scaling_ranges(rows)
    fitted = slopes(rows, "max_count", ranges).set_index(["method", "range"])
    local = slopes(rows, "max_count", local_ranges(rows, "max_count"))
    methods = [m for m in METHODS if m in set(fitted.index.get_level_values("method"))]
    values: Values = {
        "slope_table": markdown_table(["range", *map(_method, methods)], [
            [f"{label} (M_T = {low:g}–{high:g})", *(
                f"{_slope(fitted.loc[(m, label)])}; bound {number(fitted.loc[(m, label)].bound, 2)}"
                for m in methods)] for label, (low, high) in ranges.items()]),
        "local_slope_table": markdown_table(["M_T", *map(_method, methods)], [
            [label, *(_slope(part.set_index("method").loc[m]) for m in methods)]
            for label, part in local.groupby("range", sort=False)]),
        "scaling_fit": f"{SCALING_FIT[0]:g}–{SCALING_FIT[1]:g}",
        "draws": f"{DRAWS:,}",
    }
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


def epsilon_values(results: Results) -> Values:
    """The epsilon preset: the slope of each method's mean error at T against ε over the
    smallest three ε (where privacy dominates most) and over all, and where Algorithm 6
    beats Algorithm 2."""
    rows = results.runs["continual_epsilon"]
    epsilons = np.sort(rows.epsilon.unique())
    ranges = {f"the fixed fit ({EPSILON_FIT[0]:g}–{EPSILON_FIT[1]:g})": EPSILON_FIT,
              f"all ε ({epsilons[0]:g}–{epsilons[-1]:g}, not a verdict)":
                  (float(epsilons[0]), float(epsilons[-1]))}
    fitted = slopes(rows, "epsilon", ranges).set_index(["method", "range"])
    present = set(fitted.index.get_level_values("method"))
    methods = [m for m in METHODS if m in present]
    cells = at_end(rows).set_index(["method", "epsilon"])
    alg6, alg2 = cells.loc["alg6"], cells.loc["alg2"]
    return {
        "epsilon_slope_table": markdown_table(
            ["method", *ranges],
            [[_method(m), *(_slope(fitted.loc[(m, r)]) for r in ranges)] for m in methods]),
        "epsilon_ratio": _span(alg6.mean_error / alg2.mean_error),
        "epsilon_used": _span(alg6.used, percent),
        "per_user": f"{float((rows.t_max / rows.n_users).mean()):.3g}",
        "half_m": f"{rows.max_samples.max() // 2:,}", "m": f"{rows.max_samples.max():,}",
        "epsilon_diverse": bool((alg6.diversity == 1).all()),
    }


def noise_values(results: Results) -> Values:
    """The noise preset: Algorithms 4 and 5's mean error at T per order, at the paper's
    noise, without noise and under equal noise."""
    rows = results.runs.get("continual_noise")
    if rows is None:
        return {"noise_table": "(no results)"}
    cells = at_end(rows).merge(rows.drop_duplicates("cell_id")[["cell_id", "noise_scale"]],
                               on="cell_id")
    cells["noise"] = cells.noise_scale.map(
        lambda v: "the paper's (ε = 1)" if pd.isna(v) else "none" if v == 0 else f"η = {v:g}")
    # By order, then the paper's noise, none and equal noise.
    cells["rank"] = cells.noise_scale.map(lambda v: 0 if pd.isna(v) else 1 if v == 0 else 2)
    cells = cells.sort_values(["order", "rank"], key=lambda c: c.map(
        {o: i for i, o in enumerate(ORDERS)}) if c.name == "order" else c)
    table = []
    for (order, noise), part in cells.groupby(["order", "noise"], sort=False):
        by = part.set_index("method")
        table.append([_order(order), noise, f"{by.max_count.mean():.3g}",
                      *(_mean_se(by.loc[m]) for m in ("alg4", "alg5"))])
    return {"noise_table": markdown_table(
        ["order", "noise", "M_T", _method("alg4"), _method("alg5")], table)}


def dimension_values(results: Results) -> Values:
    """The dimension preset: the ℓ∞ error and coordinate 0's error at T, mean ± one
    standard error, per composition and d."""
    rows = results.runs.get("continual_dimension")
    if rows is None:
        return {"dimension_table": "(no results)", "dimension_proviso": "no results",
                "dimension_proviso_met": False, "dimension_diverse": "none"}
    last = final(rows).assign(coordinate=lambda f: f.error.abs())
    # Sec. 4's proviso Σ_u min{m_u, M_T/2} >= Õ(√(dM_T)/ε): its left side is at least the
    # users seen (one sample or more each); its right side with the logs set to 1.
    seen, m_t = float(last.n_users_seen.min()), float(last.max_count.mean())
    right = np.sqrt(np.sort(last.dimension.unique()) * m_t) / float(last.epsilon.iloc[0])

    def mean_se(values: pd.Series) -> str:
        return f"{sci(values.mean())} ± {sci(values.std() / math.sqrt(values.count()))}"

    table = [[composition, f"{d:g}", f"{part.coordinate_epsilon.iloc[0]:.3g}",
              mean_se(part.abs_error), mean_se(part.coordinate)]
             for (composition, d), part in last.groupby(["composition", "dimension"])]
    return {"dimension_table": markdown_table(
        ["composition", "d", "ε₀ per coordinate", "‖μ̂_T − μ‖_∞ (the claims' rows)",
         "error of coordinate 0 at T"], table),
        "dimension_proviso": f"its left side at least the {seen:,.0f} users seen, its right "
                             f"side √(dM_T)/ε = {right[0]:.3g}–{right[-1]:.3g} over the d",
        "dimension_proviso_met": bool(seen >= right[-1]),
        "dimension_diverse": percent(float(last.diversity.mean()))}


def constants_values(results: Results) -> Values:
    """The cost of the constants, from the orders preset: per method, the (1 − δ)
    quantile of the error over its bound at T and at every checkpoint where the theorem
    applies; the share of (run, checkpoint) pairs within the bound; and Sec. 5's lower
    bound against the running mean."""
    rows = results.runs["continual_orders"]
    index = ["cell_id", "method", "t"]
    quantile = quantiles(rows).set_index(index).abs_error
    bounds = references(results.summaries["continual_orders"])
    bound = bounds[bounds.source == "bound"].set_index(index).abs_error
    simulated = rows[rows.source == "simulated"]
    applies = simulated.groupby(index).within_bound.count() > 0
    ratio = (quantile / bound.reindex(quantile.index))[applies.reindex(quantile.index)]
    cells = at_end(rows)
    orders = _orders_present(rows)
    table, within = [], {}
    for method in [m for m in METHODS if m in set(cells.method)]:
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
