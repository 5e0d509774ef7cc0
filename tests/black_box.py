"""Black-box checks of a mechanism as it runs (issue 36): the law of the noise it draws,
and an empirical lower bound on the ε it spends.

:mod:`tests.audit` certifies that the noise a family *declares* pays for the sensitivity
of its noiseless release. The two checks here look at what the code *does*:

* :func:`check_drawn_noise`: the differences between released and noiseless values (the
  same cell with its noise switched off, or its draws recovered from its releases) must
  follow the declared law, Laplace of scale b, N(0, σ²) or the staircase of ε in units
  of b = Δ/ε. A Kolmogorov–Smirnov test checks the shape and centre; a test of the
  scale: exact for Laplace, Σ|d_i|/b ~ Gamma(n, 1), and Gaussian, Σ d_i²/σ² ~ χ²_n; for
  the staircase Σ d_i²/b², normal with the moments summed over its stairs. Before testing, the check
  computes the power of the scale test against a scale 10% off either way at the sample
  size given, and refuses to pass with less than :data:`MIN_POWER` (an audit with no
  power proves nothing).
* :func:`epsilon_lower_bound`: outputs of the mechanism on neighbouring inputs x and y,
  many runs each. Half of the runs choose a threshold event S = {o >= c} or {o <= c} and
  the direction; the other half bound P[M(x) ∈ S] from below and P[M(y) ∈ S] from above
  by Clopper–Pearson intervals at 1 − α/2 each, so that with probability >= 1 − α
  (95% by default) the mechanism is not (ε, δ)-DP for any ε below
  ε_lb = ln((P_x,lo − δ)/P_y,hi) (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from sweep.components.staircase import stair_parameters, staircase_cdf

#: Significance of the law checks: a correct mechanism fails one of them with probability
#: about 2·10⁻³ (fixed seeds make each test deterministic).
ALPHA = 1e-3
#: The scale error the scale test must detect, and the power it must have against it.
SCALE_ERROR = 0.1
MIN_POWER = 0.99


def staircase_moments(epsilon: float) -> tuple[float, float]:
    """E[X²] and E[X⁴] of the staircase in the units it is declared in (sensitivity ε,
    :mod:`sweep.components.noise`), summed over its stairs: given G = g, |X| is uniform
    on [g, g + γ] (high step) or [g + γ, g + 1] (low), and E[(c + wU)^p] =
    ((c + w)^(p+1) − c^(p+1))/((p + 1)w). The closed form of E[X²] checks the sum."""
    decay, gamma, low, _ = stair_parameters(epsilon)
    g = np.arange(int(60.0 / epsilon) + 60, dtype=np.float64)  # b^g below e^(−60)
    weights = (1.0 - decay) * decay**g

    def moment(p: int) -> float:
        def uniform(c: np.ndarray, w: float) -> np.ndarray:
            return ((c + w) ** (p + 1) - c ** (p + 1)) / ((p + 1) * w)

        given = (1.0 - low) * uniform(g, gamma) + low * uniform(g + gamma, 1.0 - gamma)
        return float(epsilon**p * np.sum(weights * given))

    return moment(2), moment(4)


def _scale_statistic(kind: str, n: int, epsilon: float | None) -> stats.rv_continuous:
    """The law of the scale statistic under the declared scale: Gamma(n, 1) (Laplace),
    χ²_n (Gaussian), or for the staircase the normal law of Σd²/b² (n >= 1,000 draws:
    its skewness is then below 0.1)."""
    if kind == "laplace":
        return stats.gamma(n)
    if kind == "gaussian":
        return stats.chi2(n)
    m2, m4 = staircase_moments(epsilon)
    return stats.norm(n * m2, math.sqrt(n * (m4 - m2 * m2)))


def _scale_statistic_value(kind: str, standardized: np.ndarray) -> float:
    if kind == "laplace":
        return float(np.abs(standardized).sum())
    return float(np.square(standardized).sum())


def scale_test_power(n: int, kind: str, alpha: float = ALPHA,
                     error: float = SCALE_ERROR, epsilon: float | None = None) -> float:
    """The power of the two-sided scale test at level ``alpha`` with n draws against a
    true scale (1 ± ``error``) times the declared one, the smaller of the two.

    A true scale c·b multiplies Σ|d|/b by c (Laplace) and Σd²/σ² by c² (Gaussian,
    staircase).
    """
    law = _scale_statistic(kind, n, epsilon)
    low, high = law.ppf(alpha / 2), law.isf(alpha / 2)
    power = math.inf
    for factor in (1.0 - error, 1.0 + error):
        stretch = factor if kind == "laplace" else factor * factor
        power = min(power, law.cdf(low / stretch) + law.sf(high / stretch))
    return float(power)


@dataclass(frozen=True)
class DrawnNoise:
    """The law check of one set of drawn noises: how many, the declared law, the
    p-values of the shape (Kolmogorov–Smirnov) and scale tests, the scale the draws
    estimate relative to the declared one, and the scale test's power against a
    10% error."""

    n: int
    kind: str
    scale: float
    shape_p: float
    scale_p: float
    scale_ratio: float
    power: float

    def __str__(self) -> str:
        return (f"{self.n} {self.kind} draws of declared scale {self.scale:.4g}: "
                f"estimated/declared {self.scale_ratio:.4f}, KS p = {self.shape_p:.3g}, "
                f"scale p = {self.scale_p:.3g}, power against ±10% {self.power:.4f}")


def check_drawn_noise(differences: np.ndarray, kind: str, scale: float,
                      alpha: float = ALPHA, epsilon: float | None = None) -> DrawnNoise:
    """Assert that ``differences`` (released − noiseless) are draws of the declared law.

    Parameters
    ----------
    differences : array
        The drawn noises, independent of each other.
    kind : {"laplace", "gaussian", "staircase"}
    scale : float
        The declared Laplace scale b, the Gaussian standard deviation σ, or the
        staircase's b = Δ/ε (its draws are b times the staircase of sensitivity ε,
        :mod:`sweep.components.noise`) (> 0).
    alpha : float
        The level of each of the two tests.
    epsilon : float, optional
        The staircase's ε (its shape); unused by the other kinds.

    Raises
    ------
    AssertionError
        If the scale test has power below :data:`MIN_POWER` at this sample size, or
        either test rejects.
    """
    d = np.asarray(differences, dtype=np.float64).ravel()
    if not scale > 0.0:
        raise ValueError(f"the declared scale must be > 0; got {scale}")
    if kind == "staircase" and epsilon is None:
        raise ValueError("the staircase's law needs its epsilon")
    n = d.size
    power = scale_test_power(n, kind, alpha, epsilon=epsilon)
    standardized = d / scale
    reference = {"laplace": stats.laplace.cdf, "gaussian": stats.norm.cdf,
                 "staircase": lambda x: staircase_cdf(x, epsilon, epsilon)}[kind]
    shape_p = float(stats.kstest(standardized, reference).pvalue)
    law = _scale_statistic(kind, n, epsilon)
    value = _scale_statistic_value(kind, standardized)
    scale_p = float(min(1.0, 2.0 * min(law.cdf(value), law.sf(value))))
    ratio = value / law.mean() if kind == "laplace" else math.sqrt(value / law.mean())
    report = DrawnNoise(n, kind, scale, shape_p, scale_p, ratio, power)
    assert power >= MIN_POWER, f"too few draws for a scale test with power: {report}"
    assert shape_p >= alpha, f"the drawn noise does not follow the declared law: {report}"
    assert scale_p >= alpha, f"the drawn noise has the wrong scale: {report}"
    return report


@dataclass(frozen=True)
class DrawnCategories:
    """The law check of a discrete mechanism's draws (e.g. the exponential mechanism):
    the chi-square p-value against the declared probabilities, and the test's power
    against the law at a privacy parameter 10% off either way."""

    n: int
    p_value: float
    power: float


def check_categorical(counts: np.ndarray, weights: Callable[[float], np.ndarray],
                      epsilon: float, alpha: float = ALPHA) -> DrawnCategories:
    """Assert that ``counts`` over categories follow the probabilities ∝
    ``weights(epsilon)``; the power is that of the same chi-square test against
    ``weights(0.9 ε)`` and ``weights(1.1 ε)`` (noncentral chi-square)."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum()

    def law(e: float) -> np.ndarray:
        w = np.asarray(weights(e), dtype=np.float64)
        return w / w.sum()

    expected = law(epsilon)
    df = counts.size - 1
    statistic = float(np.sum((counts - n * expected) ** 2 / (n * expected)))
    p_value = float(stats.chi2.sf(statistic, df))
    critical = stats.chi2.isf(alpha, df)
    power = min(float(stats.ncx2.sf(critical, df, n * np.sum((law(f * epsilon) - expected) ** 2
                                                           / expected)))
                for f in (1.0 - SCALE_ERROR, 1.0 + SCALE_ERROR))
    report = DrawnCategories(int(n), p_value, power)
    assert power >= MIN_POWER, f"too few draws for a test with power: {report}"
    assert p_value >= alpha, f"the draws do not follow the declared law: {report}"
    return report


def lemma_scale(kind: str, bound: float, epsilon: float, delta: float) -> float:
    """The declared law of a p-sum's noise, Private-ColME's Lemmas 1 and 2 written out
    again (not the platform's calibration): for data in [μ − L, μ + L], Laplace of scale
    2L/ε, or N(0, σ²) with σ = 2L√(2 ln(1.25/δ))/ε; the staircase of sensitivity 2L is
    declared in the Laplace scale's units, 2L/ε."""
    if kind != "gaussian":
        return 2.0 * bound / epsilon
    return 2.0 * bound * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def created_noises(release: np.ndarray, exact: np.ndarray, steps: np.ndarray,
                   span: np.ndarray) -> np.ndarray:
    """The p-sum noises recovered from a stream of releases (rows: release κ = 1, 2, …;
    columns: independent streams). Release κ at time ``steps[κ − 1]`` is
    (S + N_κ)/t_κ, with N_κ the sum of its p-sums' noises, and it creates one p-sum
    spanning releases κ − ``span[κ − 1]`` + 1 .. κ (span 1 for PM-I, the lowest set bit
    of κ for PM-II), whose noise is N_κ − N_{κ − span}."""
    total = np.vstack([np.zeros(release.shape[1]), steps[:, None] * (release - exact)])
    kappa = np.arange(1, release.shape[0] + 1)
    return total[kappa] - total[kappa - span]


def p_sum_spans(mechanism: str, releases: int) -> np.ndarray:
    """How many releases the p-sum created by release κ = 1..``releases`` spans."""
    kappa = np.arange(1, releases + 1)
    return np.ones_like(kappa) if mechanism == "pm1" else kappa & -kappa


@dataclass(frozen=True)
class EpsilonBound:
    """An empirical lower bound on ε: the event that separates the two inputs best on
    the choosing half, and the Clopper–Pearson bound it gives on the other half."""

    epsilon_lb: float
    threshold: float
    upper_tail: bool  # the event is {o >= threshold} (else {o <= threshold})
    swapped: bool  # the event is likelier under y (the roles of x and y exchanged)
    hits: tuple[int, int]  # the event's counts under the favoured and the other input
    runs: int  # runs per input in the bounding half


def _clopper_pearson(hits: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson bounds at 1 − alpha each: (lower, upper)."""
    lower = stats.beta.ppf(alpha, hits, n - hits + 1) if hits > 0 else 0.0
    upper = stats.beta.isf(alpha, hits + 1, n - hits) if hits < n else 1.0
    return float(lower), float(upper)


def _log_ratio(favoured: float, other: float, delta: float) -> float:
    if favoured - delta <= 0.0 or other <= 0.0:
        return -math.inf if favoured - delta <= 0.0 else math.inf
    return math.log((favoured - delta) / other)


def epsilon_lower_bound(x_out: np.ndarray, y_out: np.ndarray, delta: float = 0.0,
                        confidence: float = 0.95, candidates: int = 400) -> EpsilonBound:
    """A 95% lower bound on the ε of a mechanism from its outputs on neighbouring inputs.

    The first half of each sample chooses, among ``candidates`` thresholds (quantiles of
    the pooled outputs) and both tails and roles, the event whose plug-in bound (the
    same Clopper–Pearson formula on the first half) is largest; the second half bounds
    it. The choice never sees the bounding half, so the bound holds at ``confidence``.
    """
    x = np.asarray(x_out, dtype=np.float64).ravel()
    y = np.asarray(y_out, dtype=np.float64).ravel()
    alpha = (1.0 - confidence) / 2.0
    hx, hy = x.size // 2, y.size // 2
    choose_x, bound_x, choose_y, bound_y = x[:hx], x[hx:], y[:hy], y[hy:]
    pooled = np.concatenate([choose_x, choose_y])
    levels = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, candidates)))
    sorted_x, sorted_y = np.sort(choose_x), np.sort(choose_y)
    best = (-math.inf, 0.0, True, False)
    for upper_tail in (True, False):
        if upper_tail:
            count_x = hx - np.searchsorted(sorted_x, levels, side="left")
            count_y = hy - np.searchsorted(sorted_y, levels, side="left")
        else:
            count_x = np.searchsorted(sorted_x, levels, side="right")
            count_y = np.searchsorted(sorted_y, levels, side="right")
        for swapped in (False, True):
            fav, oth, nf, no = ((count_y, count_x, hy, hx) if swapped
                                else (count_x, count_y, hx, hy))
            for level, f, o in zip(levels, fav, oth, strict=True):
                lower = _clopper_pearson(int(f), nf, alpha)[0]
                upper = _clopper_pearson(int(o), no, alpha)[1]
                value = _log_ratio(lower, upper, delta)
                if value > best[0]:
                    best = (value, float(level), upper_tail, swapped)
    _, threshold, upper_tail, swapped = best

    def hits(sample: np.ndarray) -> int:
        return int(np.count_nonzero(sample >= threshold if upper_tail
                                    else sample <= threshold))

    favoured, other = (bound_y, bound_x) if swapped else (bound_x, bound_y)
    f, o = hits(favoured), hits(other)
    lower = _clopper_pearson(f, favoured.size, alpha)[0]
    upper = _clopper_pearson(o, other.size, alpha)[1]
    epsilon_lb = max(0.0, _log_ratio(lower, upper, delta))
    return EpsilonBound(epsilon_lb, threshold, upper_tail, swapped, (f, o),
                        min(favoured.size, other.size))


__all__ = ["ALPHA", "MIN_POWER", "SCALE_ERROR", "DrawnCategories", "DrawnNoise",
           "EpsilonBound", "check_categorical", "check_drawn_noise", "created_noises",
           "epsilon_lower_bound", "lemma_scale", "p_sum_spans", "scale_test_power"]
