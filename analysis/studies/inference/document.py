"""The inference paper's section of the reproduction document: its claims, each decided by
a declared rule (:mod:`analysis.claims`), the project's own checks, and what the authors'
notebook does differently.

:func:`inference_values` reads the presets' summaries (and the replicates' rows of
``inference_actg``) and returns ``inference_claims`` (one :class:`~analysis.claims.Claim`
per statement and case of the paper: Secs 2, 2.1, 5, 14.1, 14.3, the theorems),
``inference_checks`` (the project's checks, never tallied), ``inference_notebook`` (the
table of the notebook's differences, with the numbers the project computes) and the
numbers the section's prose states. Each ``*_claims`` function turns the study's
statistics into claims, so that its verdicts can be tested on numbers made up to agree or
not.

Shares of runs ("identifies", "recovers", "P < 10⁻⁵") are read as *in most runs*: the
share's difference from one half, with its Agresti–Coull standard error, is an
:class:`~analysis.claims.Ordering`. A value the data fix without runs (eq. (2), a pooled
p-value) is an exact ordering (standard error 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from sweep.inference.api import ARMS

from ...claims import Claim, Factor, Guarantee, Ordering, Unchecked, markdown_table
from ...document import Values
from ...labels import name
from ...load import Z95, load
from ...numbers import interval, number, percent, pvalue, sci, span
from ...study import Results
from .actg import (
    centre_frames,
    cox_centre_frames,
    hazard_ratio,
    hazard_ratios,
    likelihood_gap,
    notebook_gap,
    score_spread,
    split_hospitals,
    survival_cell,
)
from .selection import FAMILY, PRIVATE_MLE
from .statistics import (
    PAPER_RUNTIME,
    PAPER_RUNTIME_ACTG,
    best_treatment,
    critical_table,
    final_rates,
    guarantee_rates,
    largest_ratio,
    lower_bounds,
    notebook_rounds,
    pvalues_table,
    rizk_ratios,
    rizk_variants,
    timed_runs,
)

#: A claim that an algorithm identifies (recovers) the answer: in most runs.
MOST = 0.5
#: The best treatment of ACTG 175, by the paper (Sec. 5, Fig. 4).
ARM_BEST = "ZDV+ddI"
#: The level at which a hospital "cannot detect" an effect (Sec. 2.1's two-sided 5%).
LEVEL = 0.05


def _label(method: str) -> str:
    return name("method", method, FAMILY)


def exact(what: str, a: float, b: float, claimed: str = "<") -> Ordering:
    """A − B for values the data fix without runs: standard error 0."""
    return Ordering(what, float(a) - float(b), 0.0, claimed)


def share_se(value: float, runs: int) -> float:
    """The Agresti–Coull standard error of a share of ``runs`` (never 0 at 0 or 1)."""
    tilde = (value * runs + 2) / (runs + 4)
    return math.sqrt(tilde * (1 - tilde) / (runs + 4))


def most_runs(what: str, value: float, runs: int, level: float = MOST) -> Ordering:
    """A share of ``runs`` against ``level`` (one half: "in most runs"), claimed above."""
    return Ordering(f"{what} − {level:g}", value - level, share_se(value, runs), ">")


def band_se(low: float, high: float) -> float:
    """The standard error a 95% interval [low, high] implies."""
    return (high - low) / (2 * Z95)


# -- Sec. 2 (Figs 1 and 2) and Thm 13.1 --------------------------------------------------------

def toy_claims(rr: pd.DataFrame, laplace: pd.DataFrame) -> tuple[list[Claim], list[Claim]]:
    """Sec. 2's claims on ε* from the critical tables of the two toys
    (:func:`.statistics.critical_table`), one row per case; and the checks of the exact
    ε*_Laplace."""
    ns = sorted(rr.n.unique())
    ps = sorted(rr.p.unique())
    p7 = min(ps, key=lambda p: abs(p - 0.7))
    top = max(ps)
    where = f"n = {ns[0]}–{ns[-1]}, p = {ps[0]:g}–{ps[-1]:g}"
    claims, checks = [], []
    worst = rr.loc[rr.critical.idxmax()]
    claims.append(Claim(
        "2, Fig. 1", f"\"ε*_RR < 1 in all the cases we have tested\" ({where})",
        exact("largest ε*_RR (eq. (2)) − 1", worst.critical, 1.0),
        f"largest of {len(rr)} (n, p): n = {worst.n:.0f}, p = {worst.p:g}",
        f"eq. (2): {span(rr.critical)}"))

    def at(table: pd.DataFrame, p: float) -> pd.DataFrame:
        return table[table.p == p].sort_values("n").reset_index(drop=True)

    step = ("ε*_RR is a step function of n: eq. (2) compares integer quantiles of Bin(n, p') "
            "and Bin(n, 1 − p'), which jump at different ε as n grows, so ε* need not fall "
            "with every n")
    part = at(rr, p7)
    for a, b in zip(part.itertuples(), part.iloc[1:].itertuples(), strict=False):
        claims.append(Claim(
            "2, Fig. 1 (left)", "\"ε*_RR decreases with increasing n because the benefit "
            "of collective hypothesis testing is greater in larger groups\" (the panel draws "
            f"p = {p7:g})",
            exact(f"ε*_RR(n = {b.n}) − ε*_RR(n = {a.n})", b.critical, a.critical),
            f"n = {a.n} → {b.n}, p = {p7:g}",
            f"eq. (2): {number(a.critical)} → {number(b.critical)}", step))
    last = rr[rr.n == ns[-1]].set_index("p").critical
    runner = last.drop(top).idxmax()
    claims.append(Claim(
        "2, Fig. 1 (middle)", "\"our simulations further suggest that ε*_RR increases "
        f"as private signals become more informative with increasing p\" (largest at p = "
        f"{top:g})",
        exact(f"ε*_RR(p = {top:g}) − ε*_RR(p = {runner:g})", last[top], last[runner], ">"),
        f"n = {ns[-1]} (the panel's n), against the next largest p",
        "eq. (2) at p = " + ", ".join(f"{p:g}" for p in last.index) + ": "
        + ", ".join(number(v) for v in last), "the paper calls the variation with p small"))

    simulated = bool(laplace.replicates.max() > 0)
    checks.append(Claim(
        "2, Fig. 2", "the exact ε*_Laplace (closed form of the Laplace sum) is below 1",
        exact("largest exact ε*_Laplace − 1", laplace.critical.max(), 1.0),
        f"largest of {len(laplace)} (n, p)", f"exact {span(laplace.critical)}"))
    column = "crossing" if simulated else "critical"

    def laplace_ordering(what: str, a: pd.Series, b: pd.Series | float,
                         claimed: str) -> Ordering:
        if not simulated:
            return exact(what, a.critical, b if isinstance(b, float) else b.critical, claimed)
        se_a = band_se(a.crossing_low, a.crossing_high)
        if isinstance(b, float):
            return Ordering.of(what, a.crossing, se_a, b, 0.0, claimed)
        return Ordering.of(what, a.crossing, se_a, b.crossing,
                           band_se(b.crossing_low, b.crossing_high), claimed)

    source = (f"simulated crossings of β_IND ({int(laplace.replicates.max()):,} runs per "
              "cell; SE from the 95% Wilson band)" if simulated else "exact")
    worst = laplace.loc[laplace[column].idxmax()]
    claims.append(Claim(
        "2, Fig. 2", f"\"ε*_Laplace < 1 in all our simulations\" ({where})",
        laplace_ordering("largest ε*_Laplace − 1", worst, 1.0, "<"),
        f"largest of {len(laplace)} (n, p): n = {worst.n:.0f}, p = {worst.p:g}",
        f"{source}: {span(laplace[column])}",
        "the simulated power crosses β_IND above ε = 1"))
    part = at(laplace, p7)
    for a, b in zip(part.iloc[:-1].iterrows(), part.iloc[1:].iterrows(), strict=False):
        a, b = a[1], b[1]
        claims.append(Claim(
            "2, Fig. 2 (left)", "\"ε*_Laplace decreases with the increasing number of "
            f"agents n\" (the panel draws p = {p7:g})",
            laplace_ordering(f"ε*_Laplace(n = {b.n:.0f}) − ε*_Laplace(n = {a.n:.0f})", b, a,
                             "<"),
            f"n = {a.n:.0f} → {b.n:.0f}, p = {p7:g}",
            f"{source}: {number(a[column])} → {number(b[column])}; exact "
            f"{number(a.critical)} → {number(b.critical)}",
            "the crossings of neighbouring n differ by less than the runs resolve"))
    last = laplace[laplace.n == ns[-1]].set_index("p")
    runner = last.drop(top)[column].idxmax()
    claims.append(Claim(
        "2, Fig. 2 (middle)", "\"ε*_Laplace is highest at high values of p where "
        f"individuals alone can perform highly accurate tests\" (p = {top:g})",
        laplace_ordering(f"ε*_Laplace(p = {top:g}) − ε*_Laplace(p = {runner:g})",
                         last.loc[top], last.loc[runner], ">"),
        f"n = {ns[-1]}, against the next largest p",
        f"{source} at p = " + ", ".join(f"{p:g}" for p in last.index) + ": "
        + ", ".join(number(v) for v in last[column])))
    return claims, checks


def lower_bound_claims(bounds: pd.DataFrame) -> tuple[list[Claim], list[Claim]]:
    """Thm 13.1 on Sec. 2's randomized-response test (:func:`.statistics.lower_bounds`):
    K = T = 1 on the complete graph (each agent shares its one randomized response), so
    the theorem says 1 ≥ its bound in every cell. The claim is the bound as printed
    (|1 − α − β|) at its tightest cell; the check is the inequality such bounds rest on,
    kl(β ‖ α) ≤ K·T·Σ_i D_KL (data processing), at its tightest cell."""
    worst = bounds.loc[bounds.printed.idxmax()]

    def case(row: pd.Series) -> str:
        return (f"tightest of {len(bounds)} cells of Fig. 1: n = {int(row.n)}, p = {row.p:g},"
                f" ε = {row.epsilon:g}, size α = {number(row['size'])}, power β = "
                f"{number(row.power)}")

    corrected = int((bounds.corrected > 1).sum())
    claim = Claim(
        "13, Thm 13.1", "any belief aggregation scheme with type I error α and type II "
        "error 1 − β needs K·T ≥ |1 − α − β| diam(G) / (2 Σ_i D_KL(ℓ̂_i(·|1) | ℓ̂_i(·|0)))",
        exact("K·T − bound", 1.0, worst.printed, ">"), case(worst),
        f"K = T = 1, diam = 1; Σ_i D_KL of the randomized responses {sci(worst.kl)}; the "
        f"bound {number(worst.printed)}; above 1 in {int((bounds.printed > 1).sum())} of "
        f"{len(bounds)} cells",
        "as printed the bound grows without limit as ε → 0 even for a test whose power is "
        "its size, which needs no data at all; with |β − α| for |1 − α − β| it still "
        f"exceeds 1 in {corrected} of {len(bounds)} cells, because a bound linear in β − α "
        "cannot follow from the KL divergence near β = α (Pinsker gives (β − α)²); the "
        "data-processing inequality behind it holds (checks)")
    slack = bounds.kl - bounds.decision_kl
    tight = bounds.loc[slack.idxmin()]
    check = Claim(
        "13, Thm 13.1", "the test's kl(β ‖ α) is at most K·T·Σ_i D_KL (the inequality the "
        "lower bound rests on)", exact("K·T·Σ D_KL − kl(β ‖ α)", tight.kl,
                                       tight.decision_kl, ">"), case(tight),
        f"Σ D_KL {sci(tight.kl)}, kl(β ‖ α) {sci(tight.decision_kl)}",
        "the exact power or size is wrong")
    return [claim], [check]


# -- Sec. 2.1 (Fig. 3) ----------------------------------------------------------------------

def hospital_claims(centres: Sequence[Mapping[str, float]], pooled: Mapping[str, float],
                    arm: str, modulo: Sequence[Mapping[str, float]] = ()
                    ) -> tuple[list[Claim], list[Claim]]:
    """Sec. 2.1 (Fig. 3): the Cox model's log hazard ratio of ``arm`` against ZDV at one
    hospital of the runs' split (``centres``, :func:`.actg.hazard_ratio`'s numbers) and
    pooled: the paper's claims. The authors' notebook's 10-centre split by index
    (``modulo``) is a check over all its centres: neither the paper nor the notebook says
    which of the 10 its Fig. 3 shows, and picking the centre whose p is nearest the
    paper's would agree by construction."""
    first = centres[0]
    detected = sum(c["p"] <= LEVEL for c in centres)
    claims = [Claim(
        "2.1, Fig. 3", f"one hospital cannot detect the effect of {arm} (p-value 0.9)",
        exact("p − 0.05 (Wald, lifelines)", first["p"], LEVEL, ">"),
        "centre 1 of 5 (the runs' even random split, seed 0)",
        f"log HR {number(first['coef'])} {interval(first['low'], first['high'])}, "
        f"p = {pvalue(first['p'])}; all {len(centres)} centres: p = "
        + ", ".join(pvalue(c["p"]) for c in centres),
        f"with {span(c['patients'] for c in centres)} patients a centre detects an effect "
        f"of the pooled size ({number(pooled['coef'])}) at 5% in {detected} of "
        f"{len(centres)} centres: which centre the paper shows, and its split, decide"),
        Claim(
        "2.1, Fig. 3", f"pooled, {arm}'s log HR is significant at p < 0.001",
        exact("p − 0.001", pooled["p"], 1e-3), "the 1,093 patients of ddI and ZDV",
        f"log HR {number(pooled['coef'])} {interval(pooled['low'], pooled['high'])}, "
        f"p = {sci(pooled['p'])} ({pooled['events']} events)",
        "the pooled effect is weaker than the paper's")]
    checks = []
    if modulo:
        undetected = sum(c["p"] > LEVEL for c in modulo)
        near = sum(abs(c["p"] - 0.9) < 0.05 for c in modulo)
        checks.append(Claim(
            "2.1, Fig. 3", f"under the notebook's split most centres cannot detect the "
            f"effect of {arm} (p > 0.05)",
            exact("share of centres with p > 0.05 − 0.5", undetected / len(modulo), 0.5,
                  ">"),
            f"all {len(modulo)} centres of the split by patient index mod {len(modulo)}",
            f"p = {', '.join(pvalue(c['p']) for c in modulo)}: {undetected} of "
            f"{len(modulo)} above 0.05, {near} within 0.05 of the paper's 0.9; which "
            "centre the paper shows is not said, so none is picked",
            "most centres of the split detect the effect"))
    return claims, checks


# -- Sec. 5: tests, best treatment, Fig. 6 ------------------------------------------------------

def pvalue_claims(tests: pd.DataFrame, scale: float, rounds: int, sensitivity: float,
                  statistic: float) -> list[Claim]:
    """Sec. 5's tests (:func:`.statistics.pvalues_table`'s table), with the
    distributed test's noise (Laplace scale, rounds K, Δ) and the pooled statistic."""
    table = tests.set_index("method")
    pooled, ours = table.loc["centralized"], table.loc["test"]
    runs = int(ours.runs)
    return [
        Claim("5", "\"The centralized test yields a p-value of P < 10⁻⁴\" (ddI against "
              "ZDV)",
              exact("P − 10⁻⁴", pooled["median"], 1e-4), "pooled GLRT, χ²₁ by Wilks",
              f"P = {pvalue(pooled['median'])} (statistic {number(statistic)})",
              "the pooled likelihood ratio is smaller than the paper's"),
        Claim("5", "\"the distributed hypothesis test produces a p-value of P < 10⁻⁵\" "
              "(5 centres, ε = 1)",
              most_runs("share of runs with P < 10⁻⁵", float(ours.below_1e5), runs),
              f"in most of {runs} runs (the paper reports one)",
              f"median P {pvalue(ours['median'])} {interval(ours.low, ours.high, pvalue)} "
              f"(95%); rejects at α = {ours.alpha:g} in {percent(ours.reject)}",
              f"each round adds Laplace noise of scale b = K·2Δ/ε = {number(scale)} (K = "
              f"{rounds} at α/2, Δ = {number(sensitivity)} as printed) to every centre's "
              f"log-likelihoods, against a pooled GLR statistic of {number(statistic)}: "
              f"P is below 10⁻⁵ in {percent(ours.below_1e5)} of runs"),
    ]


def treatment_claims(hazards: pd.DataFrame, mle_set: str, best: pd.DataFrame,
                     scale: Mapping[str, float], spread: float) -> list[Claim]:
    """Sec. 5, Figs 4 and 5: the best treatment, from the pooled log hazard ratios
    (independent standard errors from their 95% intervals: the arms share the ZDV
    controls, whose positive covariance makes this conservative) and each algorithm's
    runs (:func:`.statistics.best_treatment`)."""
    arms = hazards.set_index("arm")
    best_arm = arms.loc[ARM_BEST]
    runner = arms.drop(ARM_BEST).coef.idxmin()
    claims = [Claim(
        "5, Fig. 4", f"{ARM_BEST} is the best treatment (ground truth)",
        Ordering.of(f"log HR({ARM_BEST}) − log HR({runner})", best_arm.coef,
                    band_se(best_arm.low, best_arm.high), arms.loc[runner, "coef"],
                    band_se(arms.loc[runner, "low"], arms.loc[runner, "high"])),
        "pooled Cox fits against ZDV, against the next best arm",
        "log HR vs ZDV: " + "; ".join(f"{r.arm} {number(r.coef)}" for r in hazards.itertuples())
        + f"; Θ* of the centres' GLR scores: {mle_set}",
        "the two best arms' hazard ratios are within their standard errors: the data do "
        "not single out one arm")]
    return claims + identify_claims(best, scale, spread)


def identify_claims(best: pd.DataFrame, scale: Mapping[str, float], spread: float,
                    setting: str = "") -> list[Claim]:
    """Fig. 5: per private algorithm, its share of runs whose top final belief is
    ZDV+ddI (:func:`.statistics.best_treatment`) against one half, with the Laplace
    scales and the centres' spread of scores; ``setting`` names a case other than the
    paper's printed one."""
    rows = best.set_index("method")
    column = f"share_{ARM_BEST}"
    states = [c.removeprefix("mean_") for c in rows.columns if c.startswith("mean_")]
    claims = []
    for m in (m for m in PRIVATE_MLE if m in rows.index):
        runs = int(rows.loc[m, "runs"])
        value = float(rows.loc[m, column])
        means = ", ".join(f"{s} {number(rows.loc[m, f'mean_{s}'])}" for s in states)
        claims.append(Claim(
            "5, Fig. 5", "\"All algorithms are able to identify the best treatment that "
            f"corresponds to {ARM_BEST}\" (AM, GM, two thresholds; 5 centres, ε = 1)",
            most_runs(f"share of runs whose top final belief is {ARM_BEST}", value, runs),
            _label(m) + (f"; {setting}" if setting else ""),
            f"{percent(value)} of {runs} runs (chance {percent(1 / len(states))});"
            f" mean final beliefs {means}",
            f"Laplace noise of scale b = K|Θ|·2Δ/ε = {number(scale.get(m, math.nan))} per "
            f"centre and arm against scores that differ between arms by at most "
            f"{number(spread)} at a centre: every round is decided by the noise"))
    return claims


def rizk_claims(ratios: pd.DataFrame, uniform: float, largest: Mapping[str, float]
                ) -> tuple[list[Claim], list[Claim]]:
    """Sec. 5, Fig. 6 against Rizk et al. (:func:`.statistics.rizk_ratios`), with the TVD
    ``uniform`` of the uniform belief to the ground truth (Fig. 6's reference line, exact):
    per method, ours below the better of Rizk et al.'s and the uniform belief's (a belief
    that learned nothing) at the least favourable cell (independent cells); and the
    largest ratio (:func:`.statistics.largest_ratio`, its bootstrap interval) against
    "up to 100×". The check: Rizk et al.'s beliefs are worse than the uniform belief."""
    cells = ratios.n.nunique() * ratios.epsilon.nunique()
    claims = []
    # The better reference per cell: Rizk et al.'s TVD where it is below the uniform
    # belief's, else the uniform belief's (exact: standard error 0).
    rizk_better = ratios.rizk < uniform
    reference = ratios.rizk.where(rizk_better, uniform)
    reference_se = ratios.rizk_se.where(rizk_better, 0.0)
    for method, part in ratios.groupby("method", sort=False):
        ref, ref_se = reference[part.index], reference_se[part.index]
        z = (part.ours - ref) / np_hypot(part.ours_se, ref_se)
        w = part.loc[z.idxmax()]
        which = "Rizk et al.'s" if rizk_better[w.name] else "the uniform belief's"
        claims.append(Claim(
            "5, Fig. 6", "\"Our MLE algorithms exhibit a smaller average total variation "
            "distance compared to the algorithm of Rizk et al.\"",
            Ordering.of("TVD ours − min(Rizk et al.'s, uniform's)", w.ours, w.ours_se,
                        ref[w.name], ref_se[w.name]),
            f"{_label(method)}: least favourable of {cells} (n, ε): n = {w.n}, "
            f"ε = {w.epsilon:g}",
            f"ours {span(part.ours)}, Rizk et al.'s {span(part.rizk)}; held against the "
            f"better of Rizk et al.'s TVD and the uniform belief's {number(uniform)} "
            f"(exact), here {which}",
            "at this cell our TVD is no lower than the uniform belief's (a belief that "
            "learned nothing), which Rizk et al.'s exceeds: the noise decides, and being "
            "below Rizk et al. says only that theirs is worse than learning nothing"))
    claims.append(Claim(
        "5 (details in 14.4)", "\"our algorithms yield answers closer to ground truth "
        "compared to the first-order method of Rizk et al. with up to 100 times smaller "
        "errors\"",
        Factor("Rizk et al.'s TVD / ours, largest over the cells", largest["estimate"],
               largest["low"], largest["high"], "100"),
        f"largest ratio of {largest['cells']} (method, n, ε): {_label(largest['method'])}, "
        f"n = {largest['n']}, ε = {largest['epsilon']:g}"
        + (f" ({largest['unbounded']} cells where ours is 0 in every run left out: their "
           "ratio is unbounded)" if largest["unbounded"] else ""),
        f"{number(largest['rizk'])} against {sci(largest['ours'])}; ratios "
        f"{span(ratios.ratio, sci)}; interval of the maximum: percentile bootstrap, "
        f"{largest['resamples']:,} resamples of every cell's runs (fixed seed), the "
        "maximum over the cells recomputed each time",
        f"a TVD is at most 1 and Rizk et al.'s is {span(ratios.rizk)} (from θ = 0 with "
        "η = 0.001 their iterate stays nearest the state 0 ∉ Θ*), so 100× needs ours at "
        f"0.01; ours is at least {number(ratios.ours.min())}. The notebook's 100× divides "
        "by its added jitter U(0, 0.05) (see below)"))
    rizk = ratios.drop_duplicates(["n", "epsilon"])
    w = rizk.loc[((rizk.rizk - uniform) / rizk.rizk_se.where(rizk.rizk_se > 0, 1e-12)).idxmin()]
    checks = [Claim(
        "5, Fig. 6", "Rizk et al.'s beliefs are worse than the uniform belief",
        Ordering.of("TVD Rizk et al.'s − uniform's", w.rizk, w.rizk_se, uniform, 0.0, ">"),
        f"least favourable of {len(rizk)} (n, ε): n = {w.n}, ε = {w.epsilon:g}",
        f"Rizk et al.'s {span(rizk.rizk)}", "")]
    return claims, checks


def np_hypot(a: pd.Series, b: pd.Series) -> pd.Series:
    """√(a² + b²), never 0 (a cell without spread)."""
    return ((a ** 2 + b ** 2) ** 0.5).where((a > 0) | (b > 0), 1e-12)


# -- Runtime (Sec. 5, Sec. 14.3) ----------------------------------------------------------------

def runtime_claims(timed: pd.DataFrame) -> list[Claim]:
    """Sec. 5 and Sec. 14.3 against our times (:func:`.statistics.timed_runs`: per cell,
    the mean and standard error of log₁₀ seconds of a whole run, the centres' likelihoods
    and the belief exchange, with one thread). The paper prints orders of magnitude
    ("∼10⁻²"), so each end is read to the nearest decade."""

    def decade(row: pd.Series, printed: float) -> Factor:
        # A time as a multiple of one second, on the log scale, against the paper's power
        # of ten read to the nearest decade (Factor's rule).
        half = Z95 * row.log_se
        return Factor("time per run / (1 s)", 10 ** row.log_mean,
                      10 ** (row.log_mean - half), 10 ** (row.log_mean + half), f"{printed:g}")

    def describe(row: pd.Series) -> str:
        return (f"n = {row.n}, {row.patients:,} time points, {_label(row.method)}: "
                f"likelihoods {sci(row.prepare)} s + exchange {sci(row.exchange)} s")

    rows = []
    least = timed[timed.n == timed.n.min()]
    small, large = least.loc[least.log_mean.idxmin()], timed.loc[timed.log_mean.idxmax()]
    for section, claim, ends in (
            ("5", "\"our algorithm can run between ∼10⁻² and 10 seconds for values of n "
             "ranging from n = 3 to n = 96\"",
             ((small, PAPER_RUNTIME[0]), (large, PAPER_RUNTIME[1]))),
            ("14.3, Fig. 14.2", "\"Our reported runtimes range from ∼10⁻² s to ∼1 s\" "
             "(4,096 and 8,192 time points, n = 6 to 96)",
             ((timed[timed.n >= 6].pipe(lambda t: t.loc[t.log_mean.idxmin()]),
               PAPER_RUNTIME_ACTG[0]), (large, PAPER_RUNTIME_ACTG[1])))):
        for row, printed in ends:
            rows.append(Claim(
                section, claim, decade(row, printed),
                f"{'fastest' if printed < 0.1 else 'slowest'} cell: {describe(row)}",
                "one whole run: the centres' log-likelihoods on their patients, then the "
                "belief exchange (K rounds of T steps), one thread; "
                f"{int(row.repeats)} repetitions",
                "our run is faster than the paper's: the notebook computes each centre's "
                "likelihood with pandas (0.03–0.35 s a run), ours with sorted arrays; its "
                "exchange takes 1–3 ms, like ours; the paper's times are of its machine "
                "(Sec. 14.3 calls them the per-agent cost; the notebook times whole runs)"))
    rows.append(Claim(
        "5, 14.3, abstract", "\"significantly faster (up to 1000×) than existing "
        "methods that rely on homomorphic encryption\"; \"a 10×−1000× improvement over "
        "the runtimes reported in Froelicher et al. (2021)\" (FAMHE)",
        Unchecked("FAMHE's side cannot be run: no public implementation, and the paper "
                  "compares with times printed in Froelicher et al.'s Fig. 2(c)"),
        "n = 6 to 96, 4,096 and 8,192 time points",
        f"ours {span(10 ** timed.log_mean, sci)} s per run",
        "what can be checked is our side: the time of one whole run, against the "
        "paper's own printed times (the rows above); what cannot is the ratio, since "
        "FAMHE has no public implementation (as the paper says) and the paper's 10×–1000× "
        "sets its times against those printed by Froelicher et al. (their Fig. 2(c)) for "
        "a different protection (encryption, not DP noise), other data sizes and other "
        "machines"))
    return rows


# -- Sec. 14.1 and the theorems -----------------------------------------------------------------

def recovery_claims(rates: pd.DataFrame, epsilon: float, gap: float) -> list[Claim]:
    """Sec. 14.1 (n = 5, ddI against ZDV, Θ = {0, −log 2}): exact recovery at T at
    ``epsilon``, one row per method (rows of the quickstart's simulated summary at T:
    method, exact_recovery, n (runs), type_i_error, noise_scale, iterations_t), with the
    gap Λ(θ*) − Λ(other) of the centres' log-likelihoods."""
    rows = rates.set_index("method")
    sections = {"am": ("14.1, Fig. 14.1(a)", "Alg. 1 (AM, GM) recovers Θ* = {−log 2}"),
                "gm": ("14.1, Fig. 14.1(a)", "Alg. 1 (AM, GM) recovers Θ* = {−log 2}"),
                "threshold_1": ("14.1, Fig. 14.1(b)", "the two-threshold algorithm "
                                "recovers Θ*"),
                "threshold_2": ("14.1, Fig. 14.1(b)", "the two-threshold algorithm "
                                "recovers Θ*"),
                "private_ol": ("14.1, Fig. 14.1(c)", "private online learning (Alg. 3) "
                               "identifies θ° = −log 2")}
    readings = {
        "am": "AM returns a superset (type I error {type_i}): it controls type II only",
        "threshold_1": "with the printed counting p₁ = 1 − 1/|Θ*| = 0, τ^{{thres,1}} = 0 "
                       "and Θ̂^{{thres,1}} is every state (type I error {type_i})",
    }
    claims = []
    for m, (section, claim) in sections.items():
        if m not in rows.index:
            continue
        row = rows.loc[m]
        extra = readings.get(m, "").format(type_i=percent(row.type_i_error))
        claims.append(Claim(
            section, f"{claim} (5 centres, ε = {epsilon:g})",
            most_runs("share of runs with exact recovery at T", float(row.exact_recovery),
                      int(row.n)),
            _label(m), f"{percent(row.exact_recovery)} of {int(row.n)} runs",
            (extra + "; " if extra else "") + f"Laplace noise of scale "
            f"{number(row.noise_scale)} per centre, state and round against the gap "
            f"Λ(−log 2) − Λ(0) = {number(gap)}"))
    return claims


#: The theorems' guarantees: (theorem, the paper's words, method, metric).
GUARANTEES = (
    ("Thm 4.2", "GM's type I error ≤ 2α at the theorem's K and T", "gm", "type_i_error"),
    ("Thm 4.2", "AM's type II error ≤ 2(1 − β) at the theorem's K and T", "am",
     "type_ii_error"),
    ("Thm 4.3", "Alg. 2: type I error of Θ̂^{thres,1} ≤ |Θ̄|e^{−2Kπ₁²}", "threshold_1",
     "type_i_error"),
    ("Thm 4.3", "Alg. 2: type II error of Θ̂^{thres,2} ≤ |Θ*|e^{−2Kπ₂²}", "threshold_2",
     "type_ii_error"),
)


def guarantee(what: str, rate: float, runs: int, allowed: float, lower: bool) -> Guarantee:
    """A guarantee from a rate of ``runs``: the share breaking it (for a lower bound on a
    rate, the runs short of it, allowed 1 − the bound)."""
    broken = 1 - rate if lower else rate
    delta = 1 - allowed if lower else allowed
    margin = (f"rate {number(rate)} against {number(allowed)}" if delta else "")
    return Guarantee(what, round(broken * runs), runs, delta, margin)


def bound_claims(rates: pd.DataFrame, gaps: Mapping[int, float]) -> list[Claim]:
    """Thms 4.2 and 4.3 on ACTG 175 over every cell with a bound row
    (:func:`.statistics.final_rates` of the presets' summaries, with a ``preset``
    column): per estimator, the cell furthest past its bound (a guarantee holds in every
    cell, so the least favourable decides), with the likelihood gaps by n."""
    gap = f"likelihood gaps of {span(gaps.values())} (n = {', '.join(map(str, sorted(gaps)))})"
    claims = []
    for theorem, claim, method, metric in GUARANTEES:
        part = rates[(rates.method == method) & (rates.metric == metric)]
        if part.empty:
            continue
        w = part.loc[(part.rate - part.bound).idxmax()]
        counting = ("; and under the printed counting p₁ = 1 − 1/|Θ*| = 0, so "
                    "Θ̂^{thres,1} keeps every state" if method == "threshold_1" else "")
        claims.append(Claim(
            theorem, claim, guarantee(f"{metric.replace('_', ' ')} ≤ bound", w.rate,
                                      int(w.runs), w.bound, False),
            f"ACTG 175, least favourable of {len(part)} cells "
            f"({', '.join(sorted(part.preset.unique()))}): n = {w.n}, ε = {w.epsilon:g}",
            f"within the bound in {int(part.holds.sum())} of {len(part)} cells",
            "the theorems take K from α and β alone; with Laplace noise of scale "
            f"{span(part.noise_scale)} per centre, state and round against {gap}, the "
            f"rounds' answers are close to coin flips, whatever K and T{counting}"))
    return claims


def synthetic_claims(table: pd.DataFrame) -> tuple[list[Claim], list[Claim]]:
    """The guarantees on synthetic data (``inference_guarantees``,
    :func:`.statistics.guarantee_rates`): Thms 4.1, 4.2, 4.3, Prop. 4.6 and Thm 4.7, one
    row per theorem, estimator and setting; Alg. 2 with the corrected counting (not the
    paper's) is a check."""
    claims, checks = [], []
    words = {"Thm 4.1": "as ϱ, T → ∞, with K ≥ |Θ*| log(|Θ̄|/α) GM's type I error ≤ α, and "
                        "with K ≥ |Θ̄| log(|Θ*|/(1 − β)) AM's type II error ≤ 1 − β",
             "Prop. 4.6": "the distributed test has size ≤ α (rejects the true null with "
                          "probability at most α)",
             "Thm 4.7": "at its T, private online learning recovers θ° with probability "
                        "≥ 1 − 2η"}
    words.update({f"{t}:{m}": c for t, c, m, _ in GUARANTEES})
    for row in table.itertuples():
        key = row.theorem if row.theorem in words else f"{row.theorem}:{row.method}"
        claim = Claim(
            row.theorem, words.get(key, words.get(f"{row.theorem}:{row.method}", "")),
            guarantee(f"{row.metric.replace('_', ' ')} "
                      f"{'≥' if row.lower else '≤'} bound", row.rate, row.runs, row.bound,
                      row.lower),
            f"{_label(row.method)}; {row.setting}",
            f"{percent(row.rate)} of {row.runs:,} runs; b = {number(row.noise_scale)}, "
            f"K = {row.rounds_k}, T = {row.iterations_t:,}",
            row.reading)
        (checks if row.counting == "corrected" else claims).append(claim)
    return claims, checks


# -- The authors' notebook ----------------------------------------------------------------------

def notebook_table(gaps: Mapping[str, float], rounds: Mapping[str, tuple[int, int]],
                   shares: Mapping[str, float], test_share: float,
                   fig6: pd.DataFrame | None, fig5: Mapping[str, pd.DataFrame],
                   rizk: pd.DataFrame, online: Mapping[str, float],
                   hospitals: Sequence[Mapping[str, float]]) -> str:
    """What the authors' notebook does differently, and how much each difference moves
    the paper's numbers, as computed here: the Cox likelihood gap ddI vs ZDV (correct and
    with the notebook's risk-set sum over every patient), the noise scale (K and the extra
    2), the fixed seed (our shares over runs), the Fig. 6 setting."""
    k_ours, k_notebook = rounds["gm"]
    scale = 2 * k_notebook / k_ours
    rows = [
        ["Cox likelihood", "the risk-set term log Σ_{R_i} e^{xθ} summed over every patient, "
         "censored ones too", "Λ(−log 2) − Λ(0) of the pooled ddI and ZDV patients: "
         f"{number(gaps['notebook'])} (notebook) against {number(gaps['correct'])} (eq. (3)),"
         f" {number(gaps['notebook'] / gaps['correct'])}×",
         "a gap that swamps the privacy noise: the notebook's GM identifies Θ* in every "
         "run, its TVD is 0 at ε ≥ 1 (Figs 5, 6); with eq. (3) the noise decides"],
        ["noise scale", "Lap(2·K·|Θ|·Δ/ε) with K = ⌈|Θ| log(|Θ|/η)⌉",
         f"Fig. 5 (|Θ| = 3, η = 0.05): K = {k_notebook} against Thm 4.1's {k_ours} for GM; "
         f"scale {number(scale)}× ours", "more noise than the theorems ask for, which the "
         "likelihood bug above hides"],
        ["test statistic", "S divided by 2^T on a column holding T − 1 steps",
         "S is 4× too small", "the distributed P is larger than the statistic implies"],
        ["random seed", "np.random.seed(0) inside every call: one fixed noise draw per "
         "configuration, the same for the three treatments",
         "over runs with fresh draws (ours): " + "; ".join(
             f"{_label(m)} picks ZDV+ddI in {percent(v)}" for m, v in shares.items())
         + f"; distributed P < 10⁻⁵ in {percent(test_share)} of runs",
         "the paper's Fig. 5 and 'P < 10⁻⁵' are one draw each"],
        ["plotted TVD", "U(0, 0.05) added to every TVD; TVD to the non-private run",
         "with the likelihood bug the GM TVD is 0, so the plotted GM curve is the jitter "
         "(mean 0.025)", "'up to 100× smaller than Rizk et al.' divides by the jitter"],
        ["Δ for the test and Fig. 5", "from the centres' own penalized fits",
         "data-dependent: not DP", "—"],
    ]
    column = f"share_{ARM_BEST}"
    rows.append(["ZDV as a fourth state of Fig. 5 (a reading)", "ZDV scored 0 (log-belief 0) "
                 "beside the three arms; ε = 0.1, K = 10, T = 1000 (preset "
                 "inference_fig5_notebook)", "runs picking ZDV+ddI, one change at a time: "
                 + "; ".join(f"{label}: " + ", ".join(
                     f"{_label(m)} {percent(table.set_index('method').loc[m, column])}"
                     for m in PRIVATE_MLE if m in set(table.method))
                     for label, table in fig5.items()),
                 "chance falls from 1/3 to 1/4; Fig. 5's rows above, case by case"])
    parts = rizk.set_index(["start", "clip"])
    rows.append(["Rizk et al.'s start and clipping (readings)", "θ_{i,0} ~ U(−1, 1); the "
                 "centres' scores scaled to ℓ1 norm ≤ 1 (preset inference_fig6_rizk)",
                 "Rizk et al.'s mean TVD over Fig. 6's cells: " + "; ".join(
                     f"start {start}, clip {clip}: {number(r['mean'])} ± {number(r.se, 2)} "
                     f"({span((r.low, r.high))})" for (start, clip), r in parts.iterrows()),
                 ("under every reading each cell's TVD stays above the uniform belief's 0.5"
                  if rizk.low.min() > 0.5 else "a reading brings Rizk et al.'s TVD below the "
                  "uniform belief's 0.5 in some cells")])
    rows.append(["online arrivals (a reading)", "each centre's patients by 10-day period of "
                 "their time (preset inference_ol_notebook)", "private OL's exact recovery at "
                 "T, ε = 1: " + "; ".join(f"{k} {percent(v)}" for k, v in online.items()),
                 "Fig. 14.1(c)'s rows above, case by case"])
    if hospitals:
        rows.append(["Fig. 3's hospital (a reading)", "patient index mod 10: one of 10 "
                     "centres", "p-values of the 10 centres: " + ", ".join(
                         pvalue(h["p"]) for h in hospitals),
                     f"{sum(abs(h['p'] - 0.9) < 0.05 for h in hospitals)} of them are "
                     "within 0.05 of the paper's p = 0.9; which centre it shows is not said "
                     "(Fig. 3's check above)"])
    if fig6 is not None and not fig6.empty:
        rows.append(["Fig. 6 setting (a reading)", "α = 0.1, ϱ = 0.1, ε ∈ [0.1, 1.6] "
                     "(preset inference_fig6_notebook)",
                     "ours at that setting: TVD " + "; ".join(
                         f"{_label(m)} {span(p.ours)}"
                         for m, p in fig6.groupby("method", sort=False))
                     + f"; Rizk et al. {span(fig6.rizk)}",
                     "Fig. 6's rows above, case by case"])
    return markdown_table(("difference", "the notebook", "how much, computed here",
                           "effect on the paper's figures (the notebook run beside ours)"),
                          rows)


def uniform_tvd(summary: pd.DataFrame) -> float:
    """The TVD of the uniform belief on Θ to the ground truth (uniform on Θ*): 1 − |Θ*|/|Θ|
    (Fig. 6's reference line)."""
    cell = summary[(summary.source == "simulated") & summary.mle_set.notna()].iloc[0]
    states = len(str(cell["model.states"]).split(","))
    return 1 - len(str(cell.mle_set).split(",")) / states


def inference_values(results: Results) -> Values:
    """The inference paper's claims (Secs 2, 2.1, 5, 13, 14.1, 14.3 and the theorems),
    checked against the presets' results, the project's checks, the notebook's table and
    the numbers the prose states."""
    s = results.summaries
    rr = critical_table(s["inference_fig1"], "rr")
    laplace = critical_table(s["inference_fig2"], "laplace")
    claims, checks = toy_claims(rr, laplace)
    lower, lower_checks = lower_bound_claims(lower_bounds(s["inference_fig1"]))

    actg = s["inference_actg"]
    cox = survival_cell(actg, ("cox",), "reproduce")
    frames = cox_centre_frames(cox)
    centres = [hazard_ratio(frame) for frame in frames]
    pooled = hazard_ratio(pd.concat(frames, ignore_index=True))
    modulo = [hazard_ratio(frame) for frame in split_hospitals(cox, 10, "modulo")]
    hospital, hospital_checks = hospital_claims(centres, pooled, ARMS[int(cox["dataset.arm"])],
                                                modulo)
    claims += hospital
    checks += hospital_checks

    root = results.root / "inference_actg"
    tests = pvalues_table(load(root, family=FAMILY, **{"model.kind": "cox"}))
    test_cell = actg[(actg.method == "test") & (actg.source == "simulated")].iloc[0]
    pooled_cell = actg[(actg.method == "centralized") & (actg["model.kind"] == "cox")
                       & (actg.source == "simulated")].iloc[0]
    claims += pvalue_claims(tests, float(test_cell.noise_scale), int(test_cell.rounds_k),
                            float(test_cell.sensitivity_bound), float(pooled_cell.statistic))

    treatments = survival_cell(actg, ("treatments",), "reproduce")
    hazards = hazard_ratios(pd.concat(centre_frames(treatments), ignore_index=True))
    best = best_treatment(load(root, family=FAMILY, source="belief",
                               **{"model.kind": "treatments"}))
    cells = actg[(actg["model.kind"] == "treatments") & (actg.source == "simulated")]
    scale = cells.drop_duplicates("method").set_index("method").noise_scale.to_dict()
    claims += treatment_claims(hazards, str(cells.mle_set.iloc[0]), best, scale,
                               score_spread(treatments))

    # Fig. 5 with ZDV as a fourth state: at ε = 1 (only Θ changes) and at the notebook's
    # ε = 0.1, K = 10, T = 1000 (the figure's setting, whose rows are claims' cases).
    zdv_root = results.root / "inference_fig5_notebook"
    zdv_rows = load(zdv_root, family=FAMILY, source="belief",
                    **{"model.kind": "treatments"})
    zdv_cells = s["inference_fig5_notebook"]
    zdv_cells = zdv_cells[zdv_cells.source == "simulated"].drop_duplicates("cell_id")
    zdv = {float(e): best_treatment(part) for e, part in zdv_rows.groupby("epsilon")}
    notebook_eps = min(zdv)
    zdv_scale = zdv_cells[zdv_cells.epsilon == notebook_eps].set_index(
        "method").noise_scale.to_dict()
    claims += identify_claims(zdv[notebook_eps], zdv_scale, score_spread(treatments),
                              f"Θ with ZDV as a fourth state, ε = {notebook_eps:g}, K = 10, "
                              "T = 1000 (the notebook's setting of the figure)")

    fig6 = s["inference_fig6"]

    def runs(preset: str) -> pd.DataFrame:
        return load(results.root / preset, columns=[
            "method", "source", "replicate", "t", "tvd_truth", "graph.n_nodes", "epsilon"],
            family=FAMILY, source="simulated")

    rizk, rizk_checks = rizk_claims(rizk_ratios(fig6), uniform_tvd(fig6),
                                    largest_ratio(runs("inference_fig6")))
    claims += rizk
    checks += rizk_checks
    paper_fig6 = s.get("inference_fig6_notebook")
    notebook_fig6 = rizk_ratios(paper_fig6) if paper_fig6 is not None else None
    if notebook_fig6 is not None:
        more, _ = rizk_claims(notebook_fig6, uniform_tvd(paper_fig6),
                              largest_ratio(runs("inference_fig6_notebook")))
        claims += [Claim(c.section, c.claim, c.evidence,
                         f"{c.case}; the notebook's setting α = 0.1, ϱ = 0.1", c.ours,
                         c.reading) for c in more]

    timed = timed_runs(s["inference_runtime"])
    claims += runtime_claims(timed)

    quick = s["inference_quickstart"]
    epsilon = 1.0 if (quick.epsilon == 1.0).any() else float(quick.epsilon.min())
    final = quick[(quick.source == "simulated") & (quick.epsilon == epsilon)]
    final = final[final.t == final.groupby("cell_id").t.transform("max")]
    gaps = {}
    for summary in (quick, fig6):
        for _, cell in summary[(summary["model.kind"] == "cox") & (summary.source == "bound")
                               ].drop_duplicates("graph.n_nodes").iterrows():
            gaps[int(cell["graph.n_nodes"])] = likelihood_gap(cell)
    gap = likelihood_gap(quick[quick["model.kind"] == "cox"].iloc[0])
    claims += recovery_claims(final, epsilon, gap)
    periods = s["inference_ol_notebook"]
    periods = periods[(periods.source == "simulated") & (periods.epsilon == epsilon)]
    periods = periods[periods.t == periods.groupby("cell_id").t.transform("max")]
    claims += [Claim(c.section, c.claim, c.evidence, f"{c.case}; patients arriving by 10-day "
                     f"period (the notebook's), T = {int(periods.iterations_t.max())}",
                     c.ours, c.reading)
               for c in recovery_claims(periods, epsilon, gap)]

    rates = pd.concat([final_rates(s[p]).assign(preset=p) for p in (
        "inference_quickstart", "inference_fig6", "inference_actg")], ignore_index=True)
    claims += bound_claims(rates, gaps)
    beliefs = load(results.root / "inference_guarantees", columns=[
        "method", "source", "replicate", "t", "state", "belief", "mle_set"],
        family=FAMILY, source="belief", method=["am", "gm"])
    synthetic, synthetic_checks = synthetic_claims(
        guarantee_rates(s["inference_guarantees"], beliefs))
    claims += synthetic + lower
    checks += synthetic_checks + lower_checks

    shares = best.set_index("method")[f"share_{ARM_BEST}"].to_dict()
    online = {name: float(part.set_index("method").loc["private_ol", "exact_recovery"])
              for name, part in (("random batches", final), ("10-day periods", periods))}
    notebook = notebook_table(
        notebook_gap(cox), notebook_rounds(), {m: shares[m] for m in ("am", "gm") if m in shares},
        float(tests.set_index("method").loc["test", "below_1e5"]), notebook_fig6,
        {"the paper's Θ (3 arms), ε = 1": best, **{
            f"ZDV as a fourth state, ε = {e:g}" + (", K = 10, T = 1000" if e < 1 else ""):
            table for e, table in sorted(zdv.items(), reverse=True)}},
        rizk_variants(s["inference_fig6_rizk"]), online, modulo)

    fig2 = s["inference_fig2"]
    return {
        "inference_claims": claims,
        "inference_checks": checks,
        "inference_notebook": notebook,
        "inference_toy_runs": f"{int(fig2[fig2.source == 'simulated'].n.max()):,}",
        "inference_actg_runs": f"{int(actg.replicates.max()):,}",
        "inference_fig6_runs": f"{int(fig6.replicates.max()):,}",
        "inference_runtime_repeats": f"{int(timed.repeats.max()):,}",
        "inference_guarantee_runs": f"{int(s['inference_guarantees'].replicates.max()):,}",
    }
