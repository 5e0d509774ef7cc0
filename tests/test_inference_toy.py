"""Sec. 2's toy problem (sweep.inference.toy): β_IND, randomized response (eqs. 1–2) and the
Laplace variant, against direct computations and Monte Carlo within Z standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from sweep.components.calibration import laplace_scale
from sweep.inference.toy import (
    flip_probability,
    individual_power,
    laplace_critical_epsilon,
    laplace_power,
    laplace_sensitivity,
    laplace_simulated_threshold,
    laplace_statistic_cdf,
    laplace_statistics,
    laplace_sum_cdf,
    laplace_threshold,
    rr_critical_epsilon,
    rr_null_probability,
    rr_power,
    rr_power_crossing,
    rr_size,
    rr_threshold,
)
from tests.stats import Z

ALPHA = 0.05
NS = (25, 50, 75, 100)
PS = (0.6, 0.7, 0.8, 0.9)
GRID = [(n, p) for n in NS for p in PS]
# A spread of the paper's (n, p, ε) grid, with powers away from 0 and 1.
RR_CASES = [(25, 0.6, 2.0), (25, 0.8, 0.5), (50, 0.7, 1.0), (75, 0.9, 0.1), (100, 0.6, 0.5),
            (100, 0.8, 0.1)]
LAPLACE_CASES = [(25, 0.7, 0.5), (50, 0.6, 1.0), (100, 0.9, 0.1), (75, 0.8, 0.2)]

# Measured at α = 0.05 (rows n = 25, 50, 75, 100; columns p = 0.6, 0.7, 0.8, 0.9).
EQ2_EPSILON = [[0.072863, 0.036420, 0.239900, 0.336183],
               [0.120962, 0.060426, 0.174574, 0.231077],
               [0.029278, 0.112719, 0.120593, 0.207950],
               [0.062015, 0.071616, 0.114629, 0.186087]]
CROSSING_EPSILON = [[0.340686, 0.422347, 0.295009, 0.421961],
                    [0.169692, 0.261163, 0.204090, 0.306183],
                    [0.208505, 0.148850, 0.188442, 0.230509],
                    [0.143416, 0.155109, 0.153166, 0.193619]]
LAPLACE_EPSILON = [[0.297949, 0.327146, 0.384387, 0.540591],
                   [0.207988, 0.228902, 0.269746, 0.380996],
                   [0.169093, 0.186245, 0.219696, 0.310750],
                   [0.146124, 0.161011, 0.190026, 0.268975]]


def assert_proportion(hits: np.ndarray, expected: float, extra_variance: float = 0.0) -> None:
    """The fraction of ``hits`` is within Z standard errors of ``expected``: the binomial
    SE √(β(1 − β)/m), plus ``extra_variance`` for other sources (an estimated threshold)."""
    hits = np.asarray(hits, dtype=bool)
    error = math.sqrt(expected * (1 - expected) / hits.size + extra_variance)
    assert abs(hits.mean() - expected) <= Z * error, (hits.mean(), expected, error)


def randomized_response_sums(rng: np.random.Generator, n: int, p: float, theta: int,
                             epsilon: float, size: int) -> np.ndarray:
    """Σ y_i simulated signal by signal: s_i, then a flip with probability 1/(1 + e^ε)."""
    agrees = rng.random((size, n)) < p
    signals = agrees if theta == 1 else ~agrees
    flips = rng.random((size, n)) < 1 / (1 + math.exp(epsilon))
    return (signals ^ flips).sum(axis=1)


def eq2_holds(n: int, p: float, epsilon: float) -> bool:
    null = rr_null_probability(p, epsilon)
    beta = individual_power(p, ALPHA)
    return bool(stats.binom.ppf(1 - ALPHA, n, null) <= stats.binom.ppf(1 - beta, n, 1 - null))


# β_IND ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("p", "alpha", "case"), [
    (0.9, 0.2, 1),    # 1 − p < α
    (0.75, 0.25, 2),  # 1 − p = α, exact in binary
    (0.7, 0.05, 3),   # 1 − p > α
    (0.6, 0.05, 3),
])
def test_individual_power_is_the_neyman_pearson_power(p, alpha, case):
    # The most powerful randomized test as a linear program: rejection probabilities
    # (φ0, φ1) at s = 0, 1 maximize power p φ1 + (1 − p) φ0 subject to size <= α.
    program = optimize.linprog(c=[-(1 - p), -p], A_ub=[[p, 1 - p]], b_ub=[alpha],
                               bounds=[(0, 1), (0, 1)], method="highs")
    assert program.status == 0
    assert individual_power(p, alpha) == pytest.approx(-program.fun, abs=1e-12)
    expected = {1: p + (1 - p) * (alpha - 1 + p) / p, 2: p, 3: p * alpha / (1 - p)}[case]
    assert individual_power(p, alpha) == pytest.approx(expected, abs=1e-15)


def test_individual_power_is_vectorized_and_continuous_at_case_2():
    p = np.array([0.6, 0.95 - 1e-12, 0.95, 0.95 + 1e-12, 0.99])
    power = individual_power(p, ALPHA)
    assert power.shape == p.shape
    assert power[1:4] == pytest.approx(0.95, abs=1e-10)
    with pytest.raises(ValueError, match="p must lie"):
        individual_power(0.5, ALPHA)


# Randomized response --------------------------------------------------------------------

def test_rr_probabilities():
    assert flip_probability(0.0) == 0.5
    assert flip_probability(1.0) == pytest.approx(1 / (1 + math.e), rel=1e-15)
    assert flip_probability(1000.0) == 0.0
    assert rr_null_probability(0.7, 0.0) == pytest.approx(0.5, abs=1e-15)
    assert rr_null_probability(0.7, 60.0) == pytest.approx(0.3, abs=1e-15)
    epsilon = np.linspace(0, 5, 50)
    assert np.all(np.diff(rr_null_probability(0.8, epsilon)) < 0)


@pytest.mark.parametrize(("n", "p", "epsilon"), RR_CASES)
def test_rr_power_and_size_match_monte_carlo(n, p, epsilon):
    rng = np.random.Generator(np.random.PCG64(1000 * n + int(100 * p) + int(10 * epsilon)))
    threshold = rr_threshold(n, p, epsilon, ALPHA)
    draws = 20_000
    alternative = randomized_response_sums(rng, n, p, 1, epsilon, draws)
    null = randomized_response_sums(rng, n, p, 0, epsilon, draws)
    assert_proportion(alternative > threshold, rr_power(n, p, epsilon, ALPHA))
    assert_proportion(null > threshold, rr_size(n, p, epsilon, ALPHA))


@pytest.mark.parametrize(("n", "p"), GRID)
def test_rr_size_by_enumeration(n, p):
    for epsilon in (0.1, 0.5, 1.0, 2.0):
        null = rr_null_probability(p, epsilon)
        mass = [math.comb(n, k) * null**k * (1 - null) ** (n - k) for k in range(n + 1)]
        threshold = int(rr_threshold(n, p, epsilon, ALPHA))
        size = math.fsum(mass[threshold + 1:])
        assert size <= ALPHA
        assert math.fsum(mass[threshold:]) > ALPHA  # τ is the smallest such threshold
        assert rr_size(n, p, epsilon, ALPHA) == pytest.approx(size, abs=1e-13)


def test_rr_power_is_nondecreasing_in_epsilon():
    epsilon = np.linspace(0, 3, 3001)
    for n, p in GRID:
        assert np.all(np.diff(rr_power(n, p, epsilon, ALPHA)) >= 0), (n, p)


@pytest.mark.parametrize(("n", "p"), GRID)
def test_rr_critical_epsilon_is_the_first_epsilon_of_eq2(n, p):
    critical = rr_critical_epsilon(n, p, ALPHA)
    assert eq2_holds(n, p, critical)
    assert not eq2_holds(n, p, critical - 1e-9)
    # Eq. (2) is the crossing of the ">= τ" rule: its power exceeds β_IND exactly there.
    beta = individual_power(p, ALPHA)

    def at_least_threshold(epsilon):
        threshold = rr_threshold(n, p, epsilon, ALPHA)
        return stats.binom.sf(threshold - 1, n, 1 - rr_null_probability(p, epsilon))

    assert at_least_threshold(critical) > beta
    assert at_least_threshold(critical - 1e-9) <= beta
    crossing = rr_power_crossing(n, p, ALPHA)
    assert rr_power(n, p, crossing, ALPHA) >= beta
    assert rr_power(n, p, crossing - 1e-9, ALPHA) < beta
    assert critical <= crossing


@pytest.mark.parametrize(("n", "p"), [(25, 0.7), (75, 0.6), (100, 0.9)])
def test_rr_critical_epsilon_monte_carlo(n, p):
    """At ε*_RR of eq. (2) the ">= τ" rule reaches β_IND; eq. (1)'s "> τ" rule does so only
    at the power crossing, and at (25, 0.7) and (75, 0.6) is far below β_IND at ε*_RR."""
    rng = np.random.Generator(np.random.PCG64(31 * n + int(10 * p)))
    beta = individual_power(p, ALPHA)
    draws = 20_000
    error = Z * math.sqrt(beta * (1 - beta) / draws)
    critical = rr_critical_epsilon(n, p, ALPHA)
    sums = randomized_response_sums(rng, n, p, 1, critical, draws)
    threshold = rr_threshold(n, p, critical, ALPHA)
    assert (sums >= threshold).mean() >= beta - error
    if (n, p) != (100, 0.9):
        assert (sums > threshold).mean() < beta - error
    crossing = rr_power_crossing(n, p, ALPHA)
    above = randomized_response_sums(rng, n, p, 1, crossing, draws)
    assert (above > rr_threshold(n, p, crossing, ALPHA)).mean() >= beta - error
    below = randomized_response_sums(rng, n, p, 1, 0.95 * crossing, draws)
    assert (below > rr_threshold(n, p, 0.95 * crossing, ALPHA)).mean() <= beta + error


def test_rr_critical_epsilon_table():
    for i, n in enumerate(NS):
        for j, p in enumerate(PS):
            assert rr_critical_epsilon(n, p, ALPHA) == pytest.approx(EQ2_EPSILON[i][j], abs=1e-6)
            assert rr_power_crossing(n, p, ALPHA) == pytest.approx(
                CROSSING_EPSILON[i][j], abs=1e-6)
    # The paper's claim ε*_RR < 1 on this grid, both for eq. (2) and the power crossing.
    assert np.max(EQ2_EPSILON) < 1
    assert np.max(CROSSING_EPSILON) < 1


# The Laplace variant --------------------------------------------------------------------

def test_laplace_scale():
    assert laplace_sensitivity(0.7) == pytest.approx(2 * math.log(0.7 / 0.3), rel=1e-15)
    assert laplace_scale(laplace_sensitivity(0.7), 0.5) == pytest.approx(
        4 * math.log(0.7 / 0.3), rel=1e-15)


def test_laplace_sum_cdf_for_one_term_is_the_laplace_cdf():
    b = 1.3
    x = np.linspace(-12, 12, 241)
    assert laplace_sum_cdf(x, 1, b) == pytest.approx(stats.laplace.cdf(x, scale=b), abs=1e-15)
    assert laplace_sum_cdf(x, 1, b).shape == x.shape
    assert laplace_sum_cdf(0.0, 7, b) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("n", [2, 7, 30])
def test_laplace_sum_cdf_matches_the_gamma_integral(n):
    # Σ d_i = b (G1 − G2): P[G1 − G2 <= z] = ∫ P[G1 <= z + g] f_G2(g) dg.
    b = 0.8
    for x in (-25.0, -4.0, -0.3, 0.0, 1.1, 6.0, 30.0):
        z = x / b
        value, _ = integrate.quad(lambda g, z=z: stats.gamma.cdf(g + z, n) * stats.gamma.pdf(g, n),
                                  max(0.0, -z), np.inf, epsabs=1e-14, epsrel=1e-13, limit=200)
        assert laplace_sum_cdf(x, n, b) == pytest.approx(value, abs=1e-11)


@pytest.mark.parametrize("n", [3, 25])
def test_laplace_sum_cdf_matches_monte_carlo(n):
    rng = np.random.Generator(np.random.PCG64(n))
    b, draws = 2.0, 40_000
    sums = rng.laplace(scale=b, size=(draws, n)).sum(axis=1)
    spread = b * math.sqrt(2 * n)
    for x in spread * np.array([-2.0, -1.0, -0.3, 0.0, 0.5, 1.5, 2.5]):
        assert_proportion(sums <= x, float(laplace_sum_cdf(x, n, b)))


@pytest.mark.parametrize(("n", "p", "epsilon"), LAPLACE_CASES)
def test_laplace_statistics_follow_the_exact_cdf(n, p, epsilon):
    rng = np.random.Generator(np.random.PCG64(7 * n + int(100 * epsilon)))
    for theta in (0, 1):
        draws = laplace_statistics(rng, n, p, theta, epsilon, 40_000)
        for q in (0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98):
            # Exact cdf at the draws' own quantiles: a KS-style check at seven points.
            x = np.quantile(draws, q)
            assert_proportion(draws <= x, float(laplace_statistic_cdf(x, n, p, theta, epsilon)))


@pytest.mark.parametrize(("n", "p", "epsilon"), [(25, 0.7, 0.5), (50, 0.9, 2.0)])
def test_laplace_statistic_cdf_matches_a_signal_by_signal_simulation(n, p, epsilon):
    """Sec. 2's statistic built literally: each agent's log(ℓ(s_i|θ=1)/ℓ(s_i|θ=0)) plus
    Lap(2|log p − log(1 − p)|/ε) noise, summed."""
    rng = np.random.Generator(np.random.PCG64(5 * n))
    draws = 20_000
    scale = 2 * abs(math.log(p) - math.log(1 - p)) / epsilon
    for theta in (0, 1):
        agrees = rng.random((draws, n)) < p
        signals = agrees if theta == 1 else ~agrees
        # ℓ(s|θ=1) = p^s (1 − p)^(1−s), ℓ(s|θ=0) = (1 − p)^s p^(1−s).
        ratio = np.where(signals, np.log(p) - np.log(1 - p), np.log(1 - p) - np.log(p))
        statistic = (ratio + rng.laplace(scale=scale, size=(draws, n))).sum(axis=1)
        for q in (0.05, 0.3, 0.5, 0.7, 0.95):
            x = np.quantile(statistic, q)
            assert_proportion(statistic <= x,
                              float(laplace_statistic_cdf(x, n, p, theta, epsilon)))


@pytest.mark.parametrize(("n", "p"), GRID)
def test_laplace_threshold_has_size_alpha(n, p):
    for epsilon in (0.1, 0.5, 1.0, 2.0):
        threshold = laplace_threshold(n, p, epsilon, ALPHA)
        size = 1 - laplace_statistic_cdf(threshold, n, p, 0, epsilon)
        assert size == pytest.approx(ALPHA, abs=1e-9)


def _density(x: float, n: int, p: float, theta: int, epsilon: float) -> float:
    step = 1e-4 * laplace_scale(laplace_sensitivity(p), epsilon)
    cdf = laplace_statistic_cdf(np.array([x - step, x + step]), n, p, theta, epsilon)
    return (cdf[1] - cdf[0]) / (2 * step)


@pytest.mark.parametrize(("n", "p", "epsilon"), LAPLACE_CASES)
def test_laplace_power_matches_the_papers_simulation(n, p, epsilon):
    """10,000 null draws set the threshold and 10,000 alternative draws the power, as in
    Fig. 2. The estimated threshold adds (f1/f0)² α(1 − α)/m to the power's variance (delta
    method: F0(τ̂) has the variance of a proportion over the m null draws)."""
    rng = np.random.Generator(np.random.PCG64(11 * n + int(100 * epsilon)))
    draws = 10_000
    estimated = laplace_simulated_threshold(rng, n, p, epsilon, ALPHA, draws)
    alternative = laplace_statistics(rng, n, p, 1, epsilon, draws)
    threshold = laplace_threshold(n, p, epsilon, ALPHA)
    quantile_variance = ALPHA * (1 - ALPHA) / draws
    ratio = _density(threshold, n, p, 1, epsilon) / _density(threshold, n, p, 0, epsilon)
    assert_proportion(alternative > estimated, laplace_power(n, p, epsilon, ALPHA),
                      extra_variance=ratio**2 * quantile_variance)
    size = 1 - float(laplace_statistic_cdf(estimated, n, p, 0, epsilon))
    assert abs(size - ALPHA) <= Z * math.sqrt(quantile_variance)


def test_laplace_power_increases_in_epsilon():
    epsilon = np.geomspace(0.01, 3.0, 60)
    for n, p in [(25, 0.6), (25, 0.9), (100, 0.6), (100, 0.9)]:
        power = np.array([laplace_power(n, p, e, ALPHA) for e in epsilon])
        assert power[0] == pytest.approx(ALPHA, abs=0.01)
        # Strictly, until it rounds to 1 in double precision.
        unsaturated = power[:-1] < 1 - 1e-12
        assert np.all(np.diff(power)[unsaturated] > 0), (n, p)
        assert np.all(np.diff(power) >= 0), (n, p)


def test_laplace_critical_epsilon_table():
    for i, n in enumerate(NS):
        for j, p in enumerate(PS):
            critical = laplace_critical_epsilon(n, p, ALPHA)
            assert laplace_power(n, p, critical, ALPHA) == pytest.approx(
                individual_power(p, ALPHA), abs=1e-8)
            assert critical == pytest.approx(LAPLACE_EPSILON[i][j], abs=1e-6)
    # The paper's claim ε*_Laplace < 1 on this grid.
    assert np.max(LAPLACE_EPSILON) < 1
