"""Sec. 2's toy problem: when does sharing privatized signals beat deciding alone?

n agents each hold one binary signal s_i with P[s_i = 1 | θ = 1] = P[s_i = 0 | θ = 0] = p,
1/2 < p < 1, and test H0: θ = 0 against H1: θ = 1 at level α. Three tests are compared:

* alone, on one clean signal: the Neyman–Pearson randomized test, power β_IND
  (``individual_power``);
* together, on randomized responses y_i (each signal flipped with probability
  p_ε = 1/(1 + e^ε)), rejecting for a large Σ y_i: power β_RR of eq. (1)
  (``rr_threshold``, ``rr_power``, ``rr_size``) and the critical budget ε*_RR of eq. (2)
  (``rr_critical_epsilon``, with ``rr_power_crossing`` for the figures' intersection);
* together, on Laplace-privatized log-likelihood ratios, rejecting for a large
  Σ_i (log(ℓ(s_i|θ=1)/ℓ(s_i|θ=0)) + d_i), d_i ~ Lap(Δ/ε). The paper finds the threshold
  and the power by simulation (10,000 draws under each hypothesis, Fig. 2); here they are
  also exact (``laplace_threshold``, ``laplace_power``, ``laplace_critical_epsilon``), from
  a closed form for the distribution of a sum of Laplace variables (``laplace_sum_cdf``).

The statistic's distribution, used throughout: with L = log(p/(1 − p)) each agent's
log-likelihood ratio is L (2 s_i − 1), so Σ_i L (2 s_i − 1) = L (2B − n) with
B ~ Bin(n, q), q = 1 − p under H0 and p under H1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special, stats

from ..components.calibration import laplace_scale

_RR_TOLERANCE = 1e-10  # bisection width for the critical budgets


def _check_probability(p: ArrayLike) -> None:
    if not np.all((np.asarray(p) > 0.5) & (np.asarray(p) < 1.0)):
        raise ValueError(f"the signal accuracy p must lie in (1/2, 1), got {p}")


def _check_level(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"the level α must lie in (0, 1), got {alpha}")


def individual_power(p: ArrayLike, alpha: float) -> np.ndarray | float:
    """β_IND: the power of the most powerful level-α test on one signal (Sec. 2, cases 1–3).

    The likelihood ratio is p/(1 − p) > 1 at s = 1 and its inverse at s = 0, so the
    Neyman–Pearson test spends its size on s = 1 first (size 1 − p) and randomizes:

    1. 1 − p < α: always reject at s = 1, reject with probability (α − 1 + p)/p at s = 0;
       β_IND = p + (1 − p)(α − 1 + p)/p.
    2. 1 − p = α: reject exactly at s = 1; β_IND = p = 1 − α.
    3. 1 − p > α: reject with probability α/(1 − p) at s = 1, never at s = 0;
       β_IND = p α/(1 − p).

    Case 2 is the common limit of cases 1 and 3 (both equal p there), so the boundary needs
    no exact floating-point equality and the result is continuous in p.
    """
    _check_probability(p)
    _check_level(alpha)
    p = np.asarray(p, dtype=np.float64)
    power = np.where(
        1 - p < alpha,
        p + (1 - p) * (alpha - 1 + p) / p,
        p * alpha / (1 - p),
    )
    return power[()]


def flip_probability(epsilon: ArrayLike) -> np.ndarray | float:
    """p_ε = 1/(1 + e^ε): the probability that randomized response flips a signal."""
    # expit(−ε) = 1/(1 + e^ε) without overflow for large ε.
    return special.expit(-np.asarray(epsilon, dtype=np.float64))[()]


def rr_null_probability(p: ArrayLike, epsilon: ArrayLike) -> np.ndarray | float:
    """p' = p p_ε + (1 − p)(1 − p_ε) = P[y_i = 1 | θ = 0].

    Under θ = 1 the roles of p and 1 − p swap, so P[y_i = 1 | θ = 1] = 1 − p'.
    p' decreases from 1/2 (ε = 0) toward 1 − p (ε → ∞).
    """
    flip = flip_probability(epsilon)
    p = np.asarray(p, dtype=np.float64)
    return (p * flip + (1 - p) * (1 - flip))[()]


def rr_threshold(n: ArrayLike, p: ArrayLike, epsilon: ArrayLike,
                 alpha: float) -> np.ndarray | float:
    """τ_RR = Q_{Bin(n, p')}(1 − α), the smallest k with P[Σ y_i <= k | θ = 0] >= 1 − α."""
    _check_probability(p)
    _check_level(alpha)
    return stats.binom.ppf(1 - alpha, n, rr_null_probability(p, epsilon))[()]


def rr_power(n: ArrayLike, p: ArrayLike, epsilon: ArrayLike,
             alpha: float) -> np.ndarray | float:
    """β_RR of eq. (1): 1 − F_{Bin(n, 1−p')}(τ_RR) = P[Σ y_i > τ_RR | θ = 1].

    The text says "reject whenever Σ y_i >= τ_RR" and eq. (1) writes
    P[Σ y_i >= τ_RR | θ = 1] = 1 − F(τ_RR), but for an integer statistic
    P[Σ y_i >= τ] = 1 − F(τ − 1). The two rules differ: with τ the (1 − α)-quantile,
    "Σ y_i >= τ" has size 1 − F_0(τ − 1) > α in general, whereas "Σ y_i > τ" has size
    1 − F_0(τ) <= α (``rr_size``). We follow the right-hand side of eq. (1), the valid
    level-α test: reject when Σ y_i > τ_RR.

    β_RR is nondecreasing in ε: τ_RR is nonincreasing (p' falls as ε grows, and binomial
    quantiles grow with the success probability), and for a fixed threshold the tail of
    Bin(n, 1 − p') grows with 1 − p'.
    """
    threshold = rr_threshold(n, p, epsilon, alpha)
    return stats.binom.sf(threshold, n, 1 - rr_null_probability(p, epsilon))[()]


def rr_size(n: ArrayLike, p: ArrayLike, epsilon: ArrayLike,
            alpha: float) -> np.ndarray | float:
    """P[Σ y_i > τ_RR | θ = 0] = 1 − F_{Bin(n, p')}(τ_RR) <= α: the size of eq. (1)'s test.

    The paper's footnote to eq. (1) sets aside the randomized test needed when
    P[Σ y_i >= τ + 1] < α < P[Σ y_i >= τ], saying that case does not arise for n >= 25.
    With τ the (1 − α)-quantile those two inequalities hold whenever F_0(τ) ≠ 1 − α,
    i.e. for all ε but a discrete set, so the unrandomized test is conservative: this is
    its actual size.
    """
    threshold = rr_threshold(n, p, epsilon, alpha)
    return stats.binom.sf(threshold, n, rr_null_probability(p, epsilon))[()]


def _first_true(holds: Callable[[float], bool], high: float,
                tolerance: float = _RR_TOLERANCE) -> float:
    """inf{ε in [0, high] : holds(ε)} for a condition monotone in ε (false, then true).

    Returns the upper end of the final bracket, so ``holds`` is true at the returned value
    and false ``tolerance`` below it; 0 if it holds at 0, inf if not even at ``high``.
    """
    if holds(0.0):
        return 0.0
    if not holds(high):
        return float("inf")
    low = 0.0
    while high - low > tolerance:
        middle = 0.5 * (low + high)
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def rr_critical_epsilon(n: int, p: float, alpha: float, high: float = 50.0) -> float:
    """ε*_RR of eq. (2), as printed: the infimum of the ε > 0 at which
    Q_{Bin(n, p')}(1 − α) <= Q_{Bin(n, 1−p')}(1 − β_IND).

    The condition is monotone in ε: as ε grows p' falls from 1/2 toward 1 − p, so the
    left quantile (of Bin(n, p')) can only fall and the right one (of Bin(n, 1 − p')) can
    only rise; once it holds it holds for every larger ε. Both sides are integer step
    functions of ε, so the infimum is one of their breakpoints, found by bisection to
    within 1e-10 (the returned ε satisfies the condition). Returns inf if the condition
    fails at ``high``, and 0 if it holds already at ε = 0.

    What the condition means: Q_1(1 − β) >= τ iff F_1(τ − 1) < 1 − β, i.e. iff
    P[Σ y_i >= τ_RR | θ = 1] > β_IND. So eq. (2) is the crossing for the text's rule
    "reject when Σ y_i >= τ_RR" (size above α), not for the power of eq. (1)
    (``rr_power_crossing``). Since P[Σ y >= τ] >= P[Σ y > τ], ε*_RR <= rr_power_crossing;
    the two differ wherever the atom P[Σ y = τ | θ = 1] carries the power across β_IND,
    an interval of ε that can be wide (at α = 0.05: 0.036 against 0.42 for n = 25,
    p = 0.7; 0.029 against 0.21 for n = 75, p = 0.6).
    """
    beta = individual_power(p, alpha)

    def holds(epsilon: float) -> bool:
        null = rr_null_probability(p, epsilon)
        left = stats.binom.ppf(1 - alpha, n, null)
        right = stats.binom.ppf(1 - beta, n, 1 - null)
        return bool(left <= right)

    return _first_true(holds, high)


def rr_power_crossing(n: int, p: float, alpha: float, high: float = 50.0) -> float:
    """The smallest ε with β_RR(ε) >= β_IND: where eq. (1)'s power curve meets the dotted
    line of Fig. 1 (bisection to 1e-10; β_RR is nondecreasing in ε). inf if never.

    β_RR(ε) >= β_IND implies eq. (2)'s condition (see ``rr_critical_epsilon``), so this is
    at least ε*_RR. The converse fails where Q_{Bin(n,1−p')}(1 − β_IND) = τ_RR: there
    eq. (2)'s "<=" holds with equality of quantiles but 1 − F_1(τ_RR) <= β_IND. The
    crossing can fall at a breakpoint of τ_RR, where β_RR jumps over β_IND.
    """
    beta = individual_power(p, alpha)
    return _first_true(lambda epsilon: bool(rr_power(n, p, epsilon, alpha) >= beta), high)


def laplace_sensitivity(p: ArrayLike) -> np.ndarray | float:
    """Δ = 2 |log p − log(1 − p)|, the sensitivity the paper gives for the log-likelihood
    ratio L (2 s − 1) of one binary signal (flipping s moves it by 2L)."""
    p = np.asarray(p, dtype=np.float64)
    return (2 * np.abs(np.log(p) - np.log1p(-p)))[()]


def _laplace_sum_tail(z: np.ndarray, n: int) -> np.ndarray:
    """P[G1 − G2 > z] for z >= 0, G1, G2 i.i.d. Gamma(n, 1) (a sum of n Laplace(1)).

    Conditioning on G2 and expanding the Gamma(n) tail as a Poisson sum gives
    P[G1 − G2 > z] = Σ_{r<n} e^{−z} z^r/r! · w_r, w_r = P[Bin(2n − 1 − r, 1/2) >= n]:
    a Poisson(z)-weighted mix of positive terms, so there is no cancellation.
    """
    r = np.arange(n)
    weights = stats.binom.sf(n - 1, 2 * n - 1 - r, 0.5)
    return stats.poisson.pmf(r, z[..., np.newaxis]) @ weights


def laplace_sum_cdf(x: ArrayLike, n: int, b: float) -> np.ndarray | float:
    """P[d_1 + … + d_n <= x] for i.i.d. d_i ~ Lap(b), exactly (vectorized over x).

    The sum is b (G1 − G2) with G1, G2 i.i.d. Gamma(n, 1); its tail at z = |x|/b >= 0 is
    Σ_{r=0}^{n−1} Poisson(r; z) P[Bin(2n − 1 − r, 1/2) >= n], and the sum is symmetric.
    For n = 1 this is the Laplace cdf, 1 − e^{−x/b}/2 for x >= 0.
    """
    if n < 1:
        raise ValueError(f"need at least one Laplace term, got n = {n}")
    x = np.asarray(x, dtype=np.float64)
    tail = _laplace_sum_tail(np.abs(x) / b, n)
    return np.where(x >= 0, 1 - tail, tail)[()]


def _statistic_parts(n: int, p: float, theta: int,
                     epsilon: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The atoms L (2k − n) of the signal part, their Bin(n, q) masses, and b = Δ/ε, the
    scale of each agent's Laplace noise d_i."""
    _check_probability(p)
    if theta not in (0, 1):
        raise ValueError(f"θ is 0 or 1, got {theta}")
    if epsilon <= 0:
        raise ValueError(f"the Laplace variant needs ε > 0, got {epsilon}")
    ones = np.arange(n + 1)
    atoms = np.log(p / (1 - p)) * (2 * ones - n)
    masses = stats.binom.pmf(ones, n, p if theta == 1 else 1 - p)
    return atoms, masses, float(laplace_scale(float(laplace_sensitivity(p)), epsilon))


def laplace_statistic_cdf(x: ArrayLike, n: int, p: float, theta: int,
                          epsilon: float) -> np.ndarray | float:
    """P[Σ_i (L (2 s_i − 1) + d_i) <= x | θ], exactly: the Bin(n, q) mixture of
    ``laplace_sum_cdf`` shifted to the atoms L (2k − n), q = p under θ = 1, 1 − p under 0."""
    atoms, masses, b = _statistic_parts(n, p, theta, epsilon)
    x = np.asarray(x, dtype=np.float64)
    return (laplace_sum_cdf(x[..., np.newaxis] - atoms, n, b) @ masses)[()]


def laplace_threshold(n: int, p: float, epsilon: float, alpha: float) -> float:
    """τ_Laplace: the exact (1 − α)-quantile of the statistic under H0 (root finding).

    The statistic has a continuous, strictly increasing cdf, so rejecting when it exceeds
    τ has size exactly α (to the root finder's 1e-12 in x).
    """
    _check_level(alpha)
    atoms, masses, b = _statistic_parts(n, p, 0, epsilon)
    mean = atoms @ masses
    sd = np.sqrt(((atoms - mean) ** 2) @ masses + 2 * n * b**2)
    # Cantelli: P[T − μ >= k sd] <= 1/(1 + k²) < min(α, 1 − α), so the cdf crosses 1 − α
    # strictly inside [μ − k sd, μ + k sd].
    k = 1 / np.sqrt(min(alpha, 1 - alpha))

    def excess(x: float) -> float:
        return float(laplace_statistic_cdf(x, n, p, 0, epsilon)) - (1 - alpha)

    return optimize.brentq(excess, mean - k * sd, mean + k * sd, xtol=1e-12, rtol=1e-15)


def laplace_power(n: int, p: float, epsilon: float, alpha: float) -> float:
    """β_Laplace: P[statistic > τ_Laplace | θ = 1], exactly (Fig. 2 simulates it)."""
    threshold = laplace_threshold(n, p, epsilon, alpha)
    return 1.0 - float(laplace_statistic_cdf(threshold, n, p, 1, epsilon))


def laplace_statistics(rng: np.random.Generator, n: int, p: float, theta: int,
                       epsilon: float, size: int) -> np.ndarray:
    """``size`` independent draws of Σ_i (L (2 s_i − 1) + d_i) under θ.

    Drawn as L (2B − n) + b (G1 − G2), B ~ Bin(n, q), G1, G2 ~ Gamma(n, 1): the same law
    as n signals and n Laplace noises, at O(1) cost per draw instead of O(n).
    """
    atoms, _, b = _statistic_parts(n, p, theta, epsilon)
    ones = rng.binomial(n, p if theta == 1 else 1 - p, size)
    noise = b * (rng.standard_gamma(n, size) - rng.standard_gamma(n, size))
    return atoms[ones] + noise


def laplace_simulated_threshold(rng: np.random.Generator, n: int, p: float, epsilon: float,
                                alpha: float, draws: int = 10_000) -> float:
    """The paper's threshold (Fig. 2): the empirical (1 − α)-quantile of ``draws`` null
    statistics, inf{x : F̂_0(x) >= 1 − α} (the same quantile convention as τ_RR)."""
    _check_level(alpha)
    null = laplace_statistics(rng, n, p, 0, epsilon, draws)
    return float(np.quantile(null, 1 - alpha, method="inverted_cdf"))


def laplace_critical_epsilon(n: int, p: float, alpha: float, high: float = 50.0) -> float:
    """ε*_Laplace: the smallest ε with β_Laplace(ε) >= β_IND, to within 1e-10; inf if the
    power stays below β_IND up to ``high``.

    β_Laplace is continuous and increasing in ε (the noise scale Δ/ε shrinks; checked
    numerically in the tests), tends to α < β_IND as ε → 0, so the crossing is the unique
    root of β_Laplace − β_IND, bracketed and found by Brent's method (a safeguarded
    bisection).
    """
    beta = float(individual_power(p, alpha))

    def shortfall(epsilon: float) -> float:
        return laplace_power(n, p, epsilon, alpha) - beta

    # A tiny ε leaves power ≈ α, below β_IND (a most powerful test beats its level when the
    # hypotheses differ): the lower end of the bracket.
    low = 1e-6
    if shortfall(high) < 0:
        return float("inf")
    return optimize.brentq(shortfall, low, high, xtol=1e-10, rtol=1e-15)
