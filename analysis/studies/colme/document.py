"""Private-ColME's section of the reproduction document: the numbers its statements
(:mod:`.statements`) read (:class:`Measures`), and the numbers behind the readings of
disagreements (the oracle under both query starts, eq. (21) as printed, Welch's degrees of
freedom under Sch-Var-2, the crossings of Fig. 3 on common random numbers)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sweep.colme.api import ColmeConfig, member_variances, oracle_mse, sigma_dp

from ...claims import Ordering, markdown_table
from ...document import Values, at, checkpoint
from ...labels import name
from ...load import load
from ...numbers import number, percent, sci, with_error
from ...statements import Estimate, Interval, evaluate
from ...study import Results
from .statements import CHECKS, CLAIMS, FIG3_CLAIMS, ZOOM

Scheme = tuple[str, str]


def scheme(mechanism: str, weights: str) -> str:
    """A scheme in the paper's words, e.g. ``PM-II non-MoM``."""
    return f"{name('mechanism', mechanism)} {name('weights', weights)}"


def estimate(rows: pd.DataFrame, t: float | None = None, metric: str = "mse"
             ) -> tuple[float, float, float]:
    """The mean over runs, its standard error (the summaries' band is mean ± SE) and its
    degrees of freedom (runs − 1) of ``metric`` at the checkpoint nearest ``t`` (default:
    the last)."""
    row = rows.set_index("t").loc[checkpoint(rows.set_index("t")[metric], t)]
    return (float(row[metric]), float(row[f"{metric}_high"] - row[f"{metric}_low"]) / 2,
            float(row["replicates"] - 1))


def runs(results: Results, preset: str, rows: pd.DataFrame, metric: str = "mse",
         method: str | None = None) -> pd.DataFrame:
    """The runs (replicate × t) of ``metric`` of the series ``rows`` (one cell's method;
    ``method`` picks another method of the same cell, e.g. its simulated local)."""
    frame = load(results.root / preset, columns=["cell_id", "replicate", "t", metric],
                 cell_id=rows.cell_id.iloc[0], method=method or rows.method.iloc[0],
                 source="simulated")
    return frame.pivot(index="replicate", columns="t", values=metric)


def _paper_config(cell: pd.Series, **options: Any) -> ColmeConfig:
    """The Private-ColME configuration of a stored cell's scenario, with ``options``."""
    return ColmeConfig.from_options(**{
        "n_agents": int(cell.n_agents), "t_max": int(cell.t_max), "sigma": float(cell.sigma),
        "epsilon": float(cell.epsilon), "delta": float(cell.delta), **options})


#: Times beyond Fig. 2's t_max at which the paper's "asymptotically the curves will
#: cross" is checked on the oracle (σ_DP as calibrated for t_max).
BEYOND = 10**6


def roughness(curve: pd.Series, start: int) -> tuple[float, int]:
    """How much an MSE curve (indexed by t at log-spaced checkpoints) oscillates from t =
    ``start`` on: the mean absolute second difference of ln MSE over its checkpoints (a
    power law, a straight line on log–log axes, has second differences near 0; the w_H(κ)
    factor of PM-II's noise makes them jump); and the number of checkpoints."""
    values = np.log(curve[curve.index >= start].to_numpy())
    return float(np.abs(np.diff(values, 2)).mean()), values.size


#: Resamples of the runs behind a crossing's interval (:func:`paired_crossing`).
BOOTSTRAP = 2000
#: Sch-Var-2 under the three readings of eq. (16) (``inferred_form``), as the document
#: names them.
FORMS = {"eq16": "eq. (16) as printed", "weighted": "inferred_form=weighted",
         "drop_first": "inferred_form=drop_first"}
#: The paper's crossings (Sec. VII-B), by prior.
CROSSINGS = {"paper": "600", "jeffreys": "850"}


def crossing(bayes: np.ndarray, plain: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Where the Bayesian MSE goes below the non-Bayesian one for good, for mean curves
    ``bayes`` and ``plain`` (shape (..., checkpoints)) at ``times``: the first checkpoint
    of the last stretch on which it is below, if that stretch lasts to the last of
    ``times`` (else NaN: no crossing). The first of ``times`` means "never worse"."""
    behind = bayes >= plain
    last = times.size - 1 - np.argmax(behind[..., ::-1], axis=-1)
    start = np.where(behind.any(axis=-1), last + 1, 0)
    return np.where(behind[..., -1], np.nan, times[np.minimum(start, times.size - 1)])


def paired_crossing(bayes: pd.DataFrame, plain: pd.DataFrame, seed: int = 0
                    ) -> tuple[float, float, float, float, float]:
    """:func:`crossing` of the mean curves of two cells' runs on common random numbers
    (replicate × t frames over the same replicates and checkpoints): the crossing, its 95%
    interval, its standard error and the share of resamples without one.

    The interval is the paired bootstrap's: the replicates are resampled with replacement
    (:data:`BOOTSTRAP` times), the same ones for both cells, and the crossing of the
    resampled means taken each time; its 2.5% and 97.5% points (a resample without a
    crossing counts as beyond the last checkpoint, ∞). A crossing read at a checkpoint
    lies after the checkpoint before it, so the interval starts one step after that one.
    The standard error is the resampled crossings' standard deviation combined with that
    rounding, SD spacing/√12 (∞ if a resample has none).
    """
    times = bayes.columns.to_numpy()
    a, b = bayes.to_numpy(), plain.loc[bayes.index, bayes.columns].to_numpy()
    drawn = np.random.default_rng(seed).integers(0, len(a), (BOOTSTRAP, len(a)))
    found = crossing(a[drawn].mean(axis=1), b[drawn].mean(axis=1), times)
    point = float(crossing(a.mean(axis=0), b.mean(axis=0), times))
    spread = np.where(np.isnan(found), np.inf, found)
    low = float(np.percentile(spread, 2.5, method="lower"))
    high = float(np.percentile(spread, 97.5, method="higher"))
    if math.isfinite(low) and low > times[0]:
        low = float(times[np.searchsorted(times, low) - 1] + 1)
    se = math.inf
    if math.isfinite(point) and not np.isnan(found).any():
        i = max(int(np.searchsorted(times, point)), 1)
        se = math.hypot(float(found.std(ddof=1)), (times[i] - times[i - 1]) / math.sqrt(12))
    return (math.inf if math.isnan(point) else point), low, high, se, \
        float(np.isnan(found).mean())


def window_log_ratio(a: pd.DataFrame, b: pd.DataFrame, start: int, stop: int
                     ) -> tuple[np.ndarray, np.ndarray, str]:
    """Per run, the mean of ln MSE over the checkpoints from ``start`` to before ``stop``,
    of two cells on common random numbers (their difference is the mean log ratio of
    their MSEs, scale-free over a window where the MSE falls by decades); and the window
    as printed."""
    times = [t for t in a.columns if start <= t < stop]
    mean = {k: np.log(f.loc[a.index, times]).mean(axis=1).to_numpy() for k, f in
            (("a", a), ("b", b))}
    return mean["a"], mean["b"], f"t = {times[0]:,}–{times[-1]:,} ({len(times)} checkpoints)"


def start_of_collaboration(mse: pd.DataFrame, local: pd.DataFrame
                           ) -> tuple[float, float, float]:
    """When a scheme first weighs another agent in: the first checkpoint at which a run's
    MSE leaves its local MSE (on the same data, until then they agree to rounding), the
    latest over runs; and the interval the start lies in, from one step after the
    checkpoint before the earliest run's departure to the latest departure (exact: the
    checkpoints' resolution, no sampling error)."""
    times = mse.columns.to_numpy()
    apart = ~np.isclose(mse.to_numpy(), local.loc[mse.index, mse.columns].to_numpy(),
                        rtol=1e-9, atol=0.0)
    first = times[apart.argmax(axis=1)]
    before = times[np.maximum(apart.argmax(axis=1) - 1, 0)]
    low = before.min() + 1 if first.min() > times[0] else times[0]
    return float(first.max()), float(low), float(first.max())


#: The checkpoints nearest these times show the Welch reading's effect early on.
WELCH_TIMES = (300, 500, 800, 1200, 2000, 5000, None)


def welch_values(results: Results) -> Values:
    """Welch's degrees of freedom under Sch-Var-2 (``welch_dof``): the MSE and the class
    errors of the k − 1 reading against the paper's t_κ − 1, at early checkpoints."""
    def series(variance: str, dof: str) -> pd.DataFrame:
        return results.rows("fig3_welch", method="colme", variance=variance,
                            welch_dof=dof).set_index("t")

    readings = ("paper", "releases")
    cells = {(v, d): series(v, d) for v in ("inferred", "inferred_bayes") for d in readings}
    paper = cells["inferred", "paper"]
    times = sorted({checkpoint(paper.mse, t) for t in WELCH_TIMES})

    def estimate_at(rows: pd.DataFrame, metric: str, t: int,
                    fmt: Callable[[float], str]) -> str:
        mean = rows.at[t, metric]
        return with_error(mean, rows.at[t, f"{metric}_high"] - mean, fmt)

    table = []
    for t in times:
        row = [f"{t:,}"]
        for variance in ("inferred", "inferred_bayes"):
            row += [estimate_at(cells[variance, d], "mse", t, sci) for d in readings]
        row += [estimate_at(cells["inferred", d], metric, t, percent)
                for metric in ("false_inclusion", "false_exclusion") for d in readings]
        table.append(row)
    header = ["t", "MSE, Sch-Var-2, t_κ − 1", "MSE, Sch-Var-2, k − 1",
              "MSE, Bayesian, t_κ − 1", "MSE, Bayesian, k − 1",
              "false inclusion, t_κ − 1", "false inclusion, k − 1",
              "false exclusion, t_κ − 1", "false exclusion, k − 1"]
    ratio = {t: cells["inferred", "releases"].at[t, "mse"] / paper.at[t, "mse"] for t in times}
    worst = max(ratio, key=ratio.get)
    return {"welch_table": markdown_table(header, table),
            "welch_worst": number(ratio[worst], 2), "welch_worst_t": f"{worst:,}",
            "welch_inclusion": percent(
                cells["inferred", "releases"].at[worst, "false_inclusion"]),
            "welch_inclusion_paper": percent(paper.at[worst, "false_inclusion"]),
            "welch_end": number(ratio[times[-1]], 3)}


class Measures:
    """The numbers Private-ColME's statements read (:mod:`.statements`), from the
    presets' stored results: simulated means with their standard errors at a checkpoint,
    the exact baselines and oracle (Prop. 3, Remark 3), runs on common random numbers,
    and Fig. 3's crossings by the paired bootstrap."""

    def __init__(self, results: Results) -> None:
        self.results = results
        #: Fig. 2's scenario (M, t_max, σ, ε, δ).
        self.cell = results.rows("fig2_left", method="colme", mechanism="pm1", weights="last",
                                 schedule="rr").iloc[0]

    # -- Figs 2 and 4 ---------------------------------------------------------------------

    def final(self, preset: str, t: float | None = None, metric: str = "mse",
              **match: Any) -> Estimate:
        """Algorithm 1's mean over runs of ``metric`` at the checkpoint nearest ``t``
        (default: t_max), with its standard error."""
        return Estimate(*estimate(self.results.rows(preset, method="colme", **match), t,
                                  metric))

    def checkpoint(self, preset: str, t: float | None, metric: str = "mse",
                   **match: Any) -> int:
        """The checkpoint nearest ``t`` of Algorithm 1's series."""
        return checkpoint(self.results.curve(preset, metric, method="colme", **match), t)

    def runs(self, preset: str, metric: str, t: float | None, **match: Any) -> pd.Series:
        """``metric`` of each run (by replicate) at the checkpoint nearest ``t``."""
        frame = runs(self.results, preset, self.results.rows(preset, method="colme", **match),
                     metric)
        return frame[checkpoint(frame.mean(), t)]

    def analytic(self, preset: str, method: str, **match: Any) -> float:
        """An exact baseline (``local``, ``ideal``, ``oracle``) at t_max."""
        return at(self.results.curve(preset, "mse", method=method, source="analytic",
                                     **match))

    def oracle(self, n_agents: int | None = None, method: str = "oracle", **match: Any
               ) -> float:
        """The exact oracle's MSE (Prop. 3) at t_max, of M = ``n_agents`` (Fig. 2's by
        default), or the ideal's."""
        return at(self.results.curve(
            "fig2_oracle", "mse", method=method, source="analytic",
            n_agents=int(self.cell.n_agents) if n_agents is None else n_agents,
            t_max=self.cell.t_max, **match))

    def ratio(self, simulated: Estimate, reference: float) -> float:
        return simulated.mean / reference

    def ratio_text(self, what: str, simulated: Estimate, reference: float) -> str:
        """The ratio of a simulated MSE to an exact reference, with its 95% interval from
        the mean's standard error on the log scale: what "comparably" and "almost
        perfectly" are about, for which the paper prints no number to hold it against."""
        ratio, half = simulated.mean / reference, 1.959963984540054 * simulated.se / \
            simulated.mean
        return (f"{what} = {number(ratio)}× (95% CI [{number(ratio * math.exp(-half))}×, "
                f"{number(ratio * math.exp(half))}×])")

    def off(self, simulated: Estimate, reference: float) -> str:
        """How far a simulated mean is from an exact reference: ``3.1% above``."""
        ratio = simulated.mean / reference
        return f"{percent(abs(ratio - 1))} {'above' if ratio > 1 else 'below'}"

    def _config(self, **options: Any) -> ColmeConfig:
        return _paper_config(self.cell, **options)

    def noise_share(self, preset: str, noise: str, epsilon: float) -> float:
        """σ_DP² of a p-sum's noise over the data's σ², in the cell of ``preset`` with
        ``noise`` at ``epsilon``."""
        cell = self.results.rows(preset, method="colme", noise=noise, epsilon=epsilon).iloc[0]
        config = _paper_config(cell, noise=noise, distribution=str(cell.distribution),
                               n_classes=1, class_means=[0.5])
        return sigma_dp(config) ** 2 / float(cell.sigma) ** 2

    def remark(self, mechanism: str, weights: str, start: str) -> float:
        """rRR's exact oracle (Remark 3) at t_max, its first queries at the paper's times
        or the simulator's (``oracle_start``)."""
        return float(oracle_mse(self._config(mechanism=mechanism, weights=weights,
                                             schedule="rrr", oracle_start=start),
                                np.array([self.cell.t_max]))[0])

    def misses(self, schemes: Sequence[Scheme]) -> str:
        """The false-exclusion rate at t_max of each scheme under rRR."""
        rates = {(m, w): self.final("fig2_left", metric="false_exclusion", mechanism=m,
                                    weights=w, schedule="rrr").mean for m, w in schemes}
        return ", ".join(f"{scheme(*k)} {percent(rate)}" for k, rate in rates.items())

    def oracle_order(self, schemes: Sequence[Scheme]) -> list[dict[str, str]]:
        """The schemes in the oracle's order under RR, as pairs of neighbours (A below B)."""
        order = sorted(schemes, key=lambda k: self.oracle(mechanism=k[0], weights=k[1],
                                                          schedule="rr"))
        return [{"m": a[0], "w": a[1], "m2": b[0], "w2": b[1]}
                for a, b in itertools.pairwise(order)]

    def beyond(self, mechanism: str, weights: str) -> float:
        """The oracle at t = :data:`BEYOND` (σ_DP as calibrated for t_max)."""
        return float(oracle_mse(self._config(mechanism=mechanism, weights=weights),
                                np.array([BEYOND]))[0])

    def roughness(self, weights: str) -> float:
        """PM-II's oracle curve's :func:`roughness` from t = M."""
        return roughness(self.results.curve(
            "fig2_oracle", "mse", method="oracle", source="analytic",
            n_agents=self.cell.n_agents, t_max=self.cell.t_max, mechanism="pm2",
            weights=weights, schedule="rr"), int(self.cell.n_agents))[0]

    def _oracles(self, schemes: Sequence[Scheme], n_agents: int | None
                 ) -> dict[Scheme, float]:
        return {(m, w): self.oracle(n_agents, mechanism=m, weights=w, schedule="rr")
                for m, w in (*schemes, ("pm2", "wmom"))}

    def oracles_text(self, schemes: Sequence[Scheme], n_agents: int) -> str:
        return "; ".join(f"{scheme(*k)} {sci(v)}"
                         for k, v in self._oracles(schemes, n_agents).items())

    def runner_up(self, schemes: Sequence[Scheme], n_agents: int) -> list[dict[str, str]]:
        """The best scheme other than PM-II wMoM, as the case to hold wMoM against."""
        small = self._oracles(schemes, n_agents)
        m, w = min(schemes, key=small.get)
        return [{"m": m, "w": w}]

    def gap(self, schemes: Sequence[Scheme], n_agents: int | None = None) -> float:
        """The best oracle's MSE over the ideal's, at t_max."""
        ideal = self.oracle(n_agents, method="ideal", mechanism="pm1", weights="last",
                            schedule="rr")
        return min(self._oracles(schemes, n_agents).values()) / ideal

    # -- Fig. 3 ---------------------------------------------------------------------------

    def fig3(self, preset: str, variance: str, form: str = "eq16", prior: str = "paper"
              ) -> pd.DataFrame:
        return self.results.rows(preset, method="colme", variance=variance, weights="last",
                                 inferred_form=form, prior=prior)

    @functools.cache  # noqa: B019 (one Measures per document)
    def _paired(self, variance: str, form: str = "eq16", prior: str = "paper"
                ) -> pd.DataFrame:
        """The runs (replicate × t) of a cell of ``fig3_paired``."""
        return runs(self.results, "fig3_paired", self.fig3("fig3_paired", variance, form,
                                                            prior))

    @property
    def start(self) -> int:
        """Fig. 3's M: the first t from which Sch-Var-2 can weigh other agents in."""
        return int(self.fig3("fig3", "known").n_agents.iloc[0])

    def fig3_checkpoint(self, t: float | None) -> int:
        return checkpoint(self._paired("known").mean(), t)

    def fig3_first(self) -> int:
        """The first checkpoint from t = M."""
        return min(t for t in self._paired("known").columns if t >= self.start)

    def _gap(self) -> pd.DataFrame:
        return np.log(self._paired("inferred")) - np.log(self._paired("known"))

    def gap_to_known(self, t: float | None) -> pd.Series:
        """ln MSE(Sch-Var-2) − ln MSE(known) of each run, at the checkpoint nearest t."""
        return self._gap()[self.fig3_checkpoint(t)]

    def gap_to_known_text(self) -> str:
        gap, last = self._gap(), self.gap_to_known(None)
        ratios = ", ".join(f"{number(math.exp(gap[t].mean()))} (t = {t:,})"
                           for t in (self.fig3_checkpoint(x) for x in (1e3, ZOOM, 1e4, None)))
        z = last.mean() / (last.std(ddof=1) / math.sqrt(last.size))
        return f"{ratios}; at t_max still {number(z, 2)} SE above 1 (paired)"

    @functools.cache  # noqa: B019
    def _crossing(self, form: str, prior: str) -> tuple[float, float, float, float, float]:
        window = slice(self.start, ZOOM)
        return paired_crossing(self._paired("inferred_bayes", form, prior).loc[:, window],
                               self._paired("inferred", form).loc[:, window])

    def crossing(self, form: str, prior: str) -> Interval:
        t, low, high, _, _ = self._crossing(form, prior)
        return Interval(t, low, high)

    def crossing_text(self, form: str, prior: str) -> str:
        t, low, high, _, missing = self._crossing(form, prior)
        if math.isinf(t):
            return f"no crossing by t = {ZOOM:,}"
        text = f"t = {t:,.0f}, 95% CI [{low:,.0f}, {high:,.0f}]".replace("inf", "∞")
        return text + (f" ({percent(missing)} of resamples without one)" if missing else "")

    def other_crossings(self, prior: str) -> str:
        """The crossings under the two other readings of eq. (16)."""
        return "; ".join(f"under {FORMS[f]}: {self.crossing_text(f, prior)}"
                         for f in ("weighted", "drop_first"))

    def fig3_window(self) -> str:
        times = self._paired("known").columns
        return (f"t = {min(t for t in times if t >= self.start):,} to "
                f"{max(t for t in times if t <= ZOOM):,}")

    def worse_in_the_beginning(self) -> Ordering:
        """The crossing (or, with none by the zoom's end, the zoom's last checkpoint: worse
        over the whole window) after the first checkpoint from t = M."""
        t, _, _, se, _ = self._crossing("eq16", "paper")
        t = min(t, max(c for c in self._paired("known").columns if c <= ZOOM))
        first = self.fig3_first()
        return Ordering(f"crossing − t = {first:,} (the first checkpoint from t = M)",
                        t - first, se, claimed=">", paired=True)

    def _window(self) -> tuple[np.ndarray, np.ndarray, str]:
        return window_log_ratio(self._paired("inferred_bayes", "eq16", "jeffreys"),
                                self._paired("inferred_bayes"), self.start, ZOOM + 1)

    def window_log(self, prior: str) -> np.ndarray:
        """Per run, the mean ln MSE of the Bayesian form under ``prior`` over the window."""
        return self._window()[0 if prior == "jeffreys" else 1]

    def window_ratio(self) -> float:
        a, b, _ = self._window()
        return math.exp((a - b).mean())

    def window_span(self) -> str:
        return self._window()[2]

    def _collaboration(self, variance: str) -> tuple[float, float, float]:
        rows = self.fig3("fig3", variance)
        return start_of_collaboration(runs(self.results, "fig3", rows),
                                      runs(self.results, "fig3", rows, method="local"))

    def collaboration(self, variance: str) -> Interval:
        """The first t of collaboration, between two checkpoints (their resolution)."""
        return Interval(*self._collaboration(variance), from_runs=False)

    def local_until(self, variance: str) -> float:
        """The last checkpoint at which every run's MSE still equals its local MSE."""
        return self._collaboration(variance)[1] - 1


def first_release_values(results: Results, cell: pd.Series) -> Values:
    """Why rRR can beat RR under PM-II with MoM: the first release keeps weight 1/κ and,
    after PM-II's split, carries noise σ_DP²/t_1²; rRR's shorter period dilutes it. Its
    share of a member's Var[T] at t_max under RR and rRR, and the paper's eq. (21) against
    the exact PM-II variance."""
    share = {}
    for s, start in (("rr", "paper"), ("rrr", "simulator"), ("rrr", "paper")):
        config = _paper_config(cell, mechanism="pm2", weights="mom", schedule=s,
                               oracle_start=start)
        size = round(config.n_agents / config.n_classes)
        variances, first = member_variances(config, size, config.t_max)
        precision, without = (1 / variances).sum(), (1 / (variances - first)).sum()
        share[s, start] = (variances.size / precision, 1 - precision / without)
    # The paper drew its PM-II oracle curves with eq. (21) as printed.
    printed = []
    for n_agents in (int(cell.n_agents), 30):
        for w in ("mom", "wmom"):
            exact_curve = results.curve("fig2_oracle", "mse", method="oracle",
                                        source="analytic", n_agents=n_agents,
                                        t_max=cell.t_max, mechanism="pm2", weights=w,
                                        schedule="rr")
            as_printed = _paper_config(cell, n_agents=n_agents, mechanism="pm2", weights=w,
                                       oracle_eq21="printed")
            ratio = oracle_mse(as_printed, exact_curve.index.to_numpy()) / exact_curve.to_numpy()
            printed.append(f"M = {n_agents}, {name('weights', w)}: up to {number(ratio.max())}"
                           f" (t = {exact_curve.index[ratio.argmax()]:,}), {number(ratio[-1])}"
                           " at t_max")
    fig4 = results.rows("fig4", method="colme", noise="laplace", mechanism="pm1")
    curve = results.curve("fig2_oracle", "mse", method="oracle", source="analytic",
                          n_agents=cell.n_agents, t_max=cell.t_max, mechanism="pm2",
                          weights="last", schedule="rr")
    return dict(
        first_rr=sci(share["rr", "paper"][0]), first_rr_share=percent(share["rr", "paper"][1]),
        first_rrr=sci(share["rrr", "simulator"][0]),
        first_rrr_share=percent(share["rrr", "simulator"][1]),
        first_remark=sci(share["rrr", "paper"][0]),
        first_remark_share=percent(share["rrr", "paper"][1]),
        class_size=str(size),
        # RR's period is M − 1 steps, rRR's (after its first sweep) the class's size − 1.
        rrr_rate=number((config.n_agents - 1) / (size - 1), 2),
        sigma_dp_pm2=number(sigma_dp(_paper_config(cell, mechanism="pm2"))),
        eq21_ratios="; ".join(printed), fig4_runs=str(int(fig4.replicates.iloc[0])),
        roughness_points=str(roughness(curve, int(cell.n_agents))[1]))


def fig3_values(measures: Measures) -> Values:
    """Fig. 3's runs, the window its crossings are read over and every crossing."""
    return {"fig3_runs": str(int(measures.fig3("fig3", "known").replicates.iloc[0])),
            "fig3_window": measures.fig3_window(), "bootstrap": f"{BOOTSTRAP:,}",
            "fig3_crossings": "; ".join(
                f"{FORMS[form]}: {measures.crossing_text(form, 'paper')} (paper prior), "
                f"{measures.crossing_text(form, 'jeffreys')} (Jeffreys)" for form in FORMS)}


def values(results: Results) -> Values:
    """Every value of the section: the statements' rows, decided, and the numbers the
    section's prose reads."""
    measures = Measures(results)
    cell = measures.cell
    found = {**first_release_values(results, cell), **fig3_values(measures),
             **welch_values(results)}
    names = {**found, "beyond": BEYOND, "t_max": int(cell.t_max),
             "n_agents": int(cell.n_agents), "start": measures.start}
    return {**found, "colme_claims": evaluate(CLAIMS, measures, names),
            "colme_checks": evaluate(CHECKS, measures, names),
            "fig3_claims": evaluate(FIG3_CLAIMS, measures, names)}
