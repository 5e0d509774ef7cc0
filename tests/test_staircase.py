"""The staircase mechanism (sweep.components.staircase): its draws follow its density,
its variance is the closed form, it is ε-DP (exactly, and as an observer can measure),
and its variance is below Laplace's at every ε (issue 40: the estimation paper's "the
noise that minimizes the convergence time ... is the Laplace noise")."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from scipy import stats

from sweep.components.noise import STAIRCASE, draw_scale, draw_staircase, draw_std, stairs
from sweep.components.staircase import (
    optimal_gamma,
    staircase_cdf,
    staircase_density,
    staircase_mgf,
    staircase_variance,
    sum_bound,
    unit_variance,
)

from .black_box import check_drawn_noise, epsilon_lower_bound, staircase_moments

DRAWS = 1_000_000


@pytest.mark.parametrize(("epsilon", "sensitivity", "gamma"), [
    (0.5, 1.0, None), (1.0, 2.0, None), (10.0, 1.0, None), (1.0, 1.0, 0.3)])
def test_the_draws_have_the_closed_form_variance(epsilon: float, sensitivity: float,
                                                 gamma: float | None) -> None:
    x = draw_staircase(np.random.default_rng(1), epsilon, DRAWS, sensitivity, gamma)
    squares = x**2
    error = squares.std() / math.sqrt(DRAWS)
    assert abs(squares.mean() - staircase_variance(epsilon, sensitivity, gamma)) < 4 * error
    assert abs(x.mean()) < 4 * x.std() / math.sqrt(DRAWS)  # symmetric about 0


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_the_draws_follow_the_staircase_density(epsilon: float) -> None:
    """Counts over the half-steps of the first stairs (and the rest) against the density's
    masses: a chi-square test at the 0.1% level."""
    gamma = optimal_gamma(epsilon)
    x = draw_staircase(np.random.default_rng(2), epsilon, DRAWS)
    stairs = np.concatenate([np.arange(0, 7), np.arange(0, 6) + gamma])
    edges = np.unique(np.concatenate([stairs, -stairs]))
    counts = np.histogram(x, np.concatenate([[-np.inf], edges, [np.inf]]))[0]
    # The density is constant on each piece: its mass is the width times its value.
    middles, widths = (edges[1:] + edges[:-1]) / 2, np.diff(edges)
    inner = staircase_density(middles, epsilon) * widths
    tail = (1.0 - inner.sum()) / 2
    expected = np.concatenate([[tail], inner, [tail]]) * DRAWS
    assert stats.chisquare(counts, expected).pvalue > 1e-3


def test_the_density_is_a_density_and_moves_by_e_epsilon_at_most() -> None:
    """Integral 1; for every shift d with |d| <= Δ, f(x)/f(x + d) <= e^ε, with equality
    reached (the guarantee is tight)."""
    epsilon, sensitivity = 1.3, 2.0
    x = np.linspace(-40.0, 40.0, 400_001)
    f = staircase_density(x, epsilon, sensitivity)
    assert abs(np.trapezoid(f, x) - 1.0) < 1e-3
    worst = 0.0
    for d in np.linspace(-sensitivity, sensitivity, 41):
        ratio = np.log(f / staircase_density(x + d, epsilon, sensitivity))
        worst = max(worst, float(np.abs(ratio).max()))
    assert worst == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize(("halved", "holds"), [(False, True), (True, False)])
def test_an_observer_measures_at_most_epsilon(halved: bool, holds: bool) -> None:
    """Black box: outputs of x + X and x + Δ + X. The 95% lower bound on ε is at most ε
    and at least half of it; with the noise halved (the bug it exists to catch) it
    exceeds ε."""
    epsilon, sensitivity = 1.0, 1.0
    rng = np.random.default_rng(3)
    factor = 0.5 if halved else 1.0
    x_out = factor * draw_staircase(rng, epsilon, 400_000, sensitivity)
    y_out = sensitivity + factor * draw_staircase(rng, epsilon, 400_000, sensitivity)
    bound = epsilon_lower_bound(x_out, y_out).epsilon_lb
    if holds:
        assert 0.5 * epsilon <= bound <= epsilon
    else:
        assert bound > epsilon


def test_gamma_star_minimizes_the_variance() -> None:
    for epsilon in (0.3, 1.0, 5.0):
        best = optimal_gamma(epsilon)
        grid = np.linspace(0.0, 1.0, 1001)
        variances = [staircase_variance(epsilon, gamma=g) for g in grid]
        assert staircase_variance(epsilon) <= min(variances) + 1e-15
        assert abs(grid[int(np.argmin(variances))] - best) <= 1e-3


def test_the_staircase_has_less_variance_than_laplace() -> None:
    """Laplace noise of scale Δ/ε has variance 2Δ²/ε²; the staircase's is below it at every
    ε, by a factor of about 24 at ε = 10, and the two agree as ε → 0."""
    epsilons = np.geomspace(0.01, 20.0, 60)
    ratios = np.array([staircase_variance(e) / (2.0 / e**2) for e in epsilons])
    assert np.all(ratios < 1.0)
    assert ratios[0] > 0.99
    assert np.all(np.diff(ratios) < 0)  # the gain grows with ε
    assert staircase_variance(10.0) / (2.0 / 10.0**2) < 1 / 20


def test_the_cdf_integrates_the_density() -> None:
    """The density is constant on each half-step: between consecutive points of a grid
    that holds every step's edges, the CDF grows by the width times the density there."""
    epsilon, sensitivity = 0.8, 1.5
    gamma = optimal_gamma(epsilon)
    half = np.concatenate([np.arange(31), np.arange(30) + gamma])
    edges = sensitivity * np.concatenate([half, -half])
    x = np.unique(np.concatenate([edges, np.linspace(-45.0, 45.0, 1001)]))
    masses = np.diff(staircase_cdf(x, epsilon, sensitivity))
    middles = (x[1:] + x[:-1]) / 2
    expected = staircase_density(middles, epsilon, sensitivity) * np.diff(x)
    np.testing.assert_allclose(masses, expected, rtol=1e-9, atol=1e-15)
    assert staircase_cdf(0.0, epsilon) == 0.5
    assert staircase_cdf(-200.0, epsilon) == pytest.approx(0.0, abs=1e-15)
    assert staircase_cdf(200.0, epsilon) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("epsilon", [0.3, 2.0, 10.0])
def test_the_moments_summed_over_the_stairs_are_the_closed_form(epsilon: float) -> None:
    """The audit's E[X²] (tests.black_box.staircase_moments) is the closed form's, in
    units of Δ/ε; E[X⁴] against the draws."""
    m2, m4 = staircase_moments(epsilon)
    assert m2 == pytest.approx(unit_variance(epsilon), rel=1e-12)
    x = draw_staircase(np.random.default_rng(9), epsilon, DRAWS, epsilon)
    fourth = x**4
    assert abs(fourth.mean() - m4) < 4 * fourth.std() / math.sqrt(DRAWS)


@numba.njit
def _compiled_draws(rng: np.random.Generator, std: float, shape: tuple[float, ...],
                    n: int, by_scale: bool) -> np.ndarray:
    out = np.empty(n)
    for i in range(n):
        out[i] = (draw_scale(rng, STAIRCASE, std, shape) if by_scale
                  else draw_std(rng, STAIRCASE, std, shape))
    return out


@pytest.mark.parametrize(("epsilon", "factor", "passes", "by_scale"),
                         [(0.5, 1.0, True, False), (4.0, 1.0, True, False),
                          (4.0, 0.5, False, False), (2.0, 1.0, True, True),
                          (2.0, 0.5, False, True)])
def test_the_compiled_draw_follows_the_declared_law(epsilon: float, factor: float,
                                                    passes: bool, by_scale: bool) -> None:
    """The compiled draw of standard deviation σ (Private-ColME's) is the staircase of
    sensitivity σ/√V_1(ε), i.e. of scale b = σ/(ε√V_1(ε)) in Laplace's units; the draw of
    scale b (the continual family's) is b times the staircase of sensitivity ε. The
    drawn-noise audit passes both, and fails them with half the noise."""
    size = 1.7
    draws = factor * _compiled_draws(np.random.default_rng(4), size,
                                     stairs(STAIRCASE, epsilon), 20_000, by_scale)
    b = size if by_scale else size / math.sqrt(unit_variance(epsilon))
    if passes:
        check_drawn_noise(draws, "staircase", b, epsilon=epsilon)
    else:
        with pytest.raises(AssertionError, match=r"declared law|wrong scale"):
            check_drawn_noise(draws, "staircase", b, epsilon=epsilon)


@pytest.mark.parametrize("epsilon", [0.5, 3.0])
def test_the_moment_generating_function_is_the_draws(epsilon: float) -> None:
    x = draw_staircase(np.random.default_rng(11), epsilon, DRAWS)
    for theta in (0.3 * epsilon, 0.6 * epsilon, -0.45 * epsilon):
        values = np.exp(theta * x)
        error = values.std() / math.sqrt(DRAWS)
        assert abs(values.mean() - staircase_mgf(theta, epsilon)) < 4 * error


@pytest.mark.parametrize(("epsilon", "terms"), [(0.5, 1), (1.0, 10), (4.0, 100)])
def test_the_sum_bound_holds_and_is_not_loose(epsilon: float, terms: int) -> None:
    """|X_1 + … + X_k| >= r with probability <= p = 0.01 (at most the 99.9% binomial
    quantile of 0.01 × 20,000 exceedances), and r is within twice the sums' own 99%
    quantile (Chernoff's bound is close at this p)."""
    runs, p = 20_000, 0.01
    sums = draw_staircase(np.random.default_rng(12), epsilon, (runs, terms)).sum(axis=1)
    r = float(sum_bound(np.array([terms]), np.array([math.log(2 / p)]), epsilon)[0])
    assert np.count_nonzero(np.abs(sums) >= r) <= stats.binom.ppf(0.999, runs, p)
    assert r <= 2.0 * np.quantile(np.abs(sums), 1 - p)


@pytest.mark.parametrize("epsilon", [1e-8, 1e-6, 1e-4, 1e-2])
def test_gamma_star_and_the_variance_are_stable_at_small_epsilon(epsilon: float) -> None:
    """γ* = 1/2 − ε/12 + O(ε²), up to the rounding of a difference of numbers near 1
    divided by ε (4 ulp/ε), and the variance tends to Laplace's 2/ε² from below (the
    continual family's p-sums run at ε/T; Theorem 7 as printed is meaningless there)."""
    rounding = 4 * np.finfo(float).eps / epsilon
    assert abs(optimal_gamma(epsilon) - (0.5 - epsilon / 12)) < epsilon**2 + rounding
    ratio = staircase_variance(epsilon) / (2.0 / epsilon**2)
    assert 1.0 - epsilon**2 <= ratio <= 1.0 + 1e-15
