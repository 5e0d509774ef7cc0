"""The staircase mechanism (Geng & Viswanath, "The optimal noise-adding mechanism in
differential privacy", IEEE Trans. Inf. Theory 62(2), 2016): ε-DP noise of least
variance for a query of sensitivity Δ.

Its density is a staircase: with b = e^(−ε) and a parameter γ ∈ [0, 1],

    f(x) = a(γ) b^k          for |x| ∈ [kΔ, (k + γ)Δ),
    f(x) = a(γ) b^(k + 1)    for |x| ∈ [(k + γ)Δ, (k + 1)Δ),   k = 0, 1, ...,

a(γ) = (1 − b)/(2Δ(γ + (1 − γ)b)). Shifting it by at most Δ changes the density by a
factor of at most e^ε, so x + X is ε-DP for a query x of sensitivity Δ. Its variance
(:func:`staircase_variance`) is least at γ* (:func:`optimal_gamma`, their Theorem 7 for
the cost x²): about Δ²·8.5·10⁻⁴ at ε = 10, where Laplace noise of scale Δ/ε has 2Δ²/ε²
= 0.02 Δ²; as ε → 0 the ratio of the two tends to 1. So among ε-DP noises the Laplace
distribution does not minimize the variance.

A draw (their Sec. III-D) is S((1 − B)(G + γU) + B(G + γ + (1 − γ)U))Δ, with S a fair
sign, G geometric on {0, 1, ...} with P(G = k) = (1 − b)b^k, U uniform on [0, 1) and B
Bernoulli with P(B = 1) = (1 − γ)b/(γ + (1 − γ)b); the draws are compiled, in
:mod:`sweep.components.noise`, this module holding the closed forms only (no numba, so
that the families' options validate without it).
"""

from __future__ import annotations

import math

import numpy as np


def optimal_gamma(epsilon: float) -> float:
    """γ* that minimizes the staircase's variance at ``epsilon`` > 0 (Geng & Viswanath,
    Theorem 7): −b/(1 − b) + (b − 2b² + 2b⁴ − b⁵)^(1/3)/(2^(1/3)(1 − b)²), b = e^(−ε).

    As printed it subtracts two numbers of order 1/ε: it loses 9 digits at ε = 0.01 and
    is meaningless below 10⁻⁴. Since b − 2b² + 2b⁴ − b⁵ = b(1 − b)³(1 + b), it is
    ((b(1 + b)/2)^(1/3) − b)/(1 − b), which tends to ½ as ε → 0.
    """
    b = math.exp(-epsilon)
    return ((b * (1.0 + b) / 2.0) ** (1 / 3) - b) / -math.expm1(-epsilon)


def _low_step(gamma: float, b: float) -> float:
    """P(B = 1): the probability that a draw lies on the low step of its stair."""
    return (1.0 - gamma) * b / (gamma + (1.0 - gamma) * b)


def staircase_variance(epsilon: float, sensitivity: float = 1.0,
                       gamma: float | None = None) -> float:
    """E[X²] of the staircase noise in closed form (γ* by default).

    Given G = g, the magnitude is (g + γU)Δ on the high step, with second moment
    Δ²(g² + gγ + γ²/3), and (g + γ + (1 − γ)U)Δ on the low one, with second moment
    Δ²((g + γ)² + (g + γ)(1 − γ) + (1 − γ)²/3); E[G] = b/(1 − b), E[G²] = b(1 + b)/(1 − b)².
    """
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b, rest = math.exp(-epsilon), -math.expm1(-epsilon)  # 1 − b, exact at small ε
    mean_g, square_g = b / rest, b * (1.0 + b) / rest**2
    high = square_g + gamma * mean_g + gamma**2 / 3.0
    low = (square_g + 2.0 * gamma * mean_g + gamma**2
           + (1.0 - gamma) * (mean_g + gamma) + (1.0 - gamma) ** 2 / 3.0)
    p = _low_step(gamma, b)
    return sensitivity**2 * ((1.0 - p) * high + p * low)


def staircase_density(x: np.ndarray, epsilon: float, sensitivity: float = 1.0,
                      gamma: float | None = None) -> np.ndarray:
    """The staircase density at ``x`` (γ* by default)."""
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b = math.exp(-epsilon)
    steps = np.abs(np.asarray(x, dtype=float)) / sensitivity
    k = np.floor(steps)
    low = (steps - k) >= gamma
    top = -math.expm1(-epsilon) / (2.0 * sensitivity * (gamma + (1.0 - gamma) * b))
    return top * b ** (k + low)


def staircase_cdf(x: np.ndarray, epsilon: float, sensitivity: float = 1.0,
                  gamma: float | None = None) -> np.ndarray:
    """P(X <= x) of the staircase noise (γ* by default), in closed form.

    For x >= 0, with k = ⌊x/Δ⌋ and r = x/Δ − k: the first k whole stairs hold
    (1 − b^k)/2, and the stair k up to x holds aΔ b^k (min(r, γ) + b·max(r − γ, 0)).
    """
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b = math.exp(-epsilon)
    steps = np.abs(np.asarray(x, dtype=float)) / sensitivity
    k = np.floor(steps)
    r = steps - k
    top = -math.expm1(-epsilon) / (2.0 * (gamma + (1.0 - gamma) * b))  # aΔ
    half = (1.0 - b**k) / 2.0 + top * b**k * (np.minimum(r, gamma)
                                              + b * np.maximum(r - gamma, 0.0))
    return (0.5 + np.sign(x) * half)[()]


def stair_parameters(epsilon: float, gamma: float | None = None
                     ) -> tuple[float, float, float, float]:
    """What a draw of the staircase of sensitivity 1 at ``epsilon`` needs (γ* by
    default): b = e^(−ε), γ, P(B = 1) and the noise's standard deviation √V_1(ε)."""
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b = math.exp(-epsilon)
    return b, gamma, _low_step(gamma, b), math.sqrt(staircase_variance(epsilon, 1.0, gamma))


def staircase_mgf(theta: np.ndarray, epsilon: float, gamma: float | None = None
                  ) -> np.ndarray:
    """E[e^(θX)] of the staircase of sensitivity 1 (γ* by default), for |θ| < ε.

    X = S·Y with a fair sign S, so E[e^(θX)] = (m(θ) + m(−θ))/2 with m(θ) = E[e^(θY)]:
    given G = g, Y is uniform on [g, g + γ] (high step) or [g + γ, g + 1] (low), so
    m(θ) = (1 − b)/(1 − b e^θ) · ((1 − p)(e^(θγ) − 1)/(θγ) + p e^(θγ)(e^(θ(1−γ)) − 1)/
    (θ(1 − γ))), p = P(B = 1), finite for θ < ε.
    """
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b = math.exp(-epsilon)
    p = _low_step(gamma, b)

    def magnitude(t: np.ndarray) -> np.ndarray:
        high = np.expm1(t * gamma) / (t * gamma)
        low = np.exp(t * gamma) * np.expm1(t * (1.0 - gamma)) / (t * (1.0 - gamma))
        return -math.expm1(-epsilon) / -np.expm1(t - epsilon) * ((1.0 - p) * high + p * low)

    theta = np.asarray(theta, dtype=float)
    return (magnitude(theta) + magnitude(-theta)) / 2.0


def sum_bound(terms: np.ndarray, log_term: np.ndarray, epsilon: float,
              grid: int = 64) -> np.ndarray:
    """r with P(|X_1 + … + X_k| >= r) <= 2e^(−``log_term``) for k = ``terms`` independent
    staircase noises of sensitivity 1 at ``epsilon`` (γ*): Chernoff's bound
    min over θ of (k ln E[e^(θX)] + log_term)/θ, the minimum over ``grid`` values
    θ = ε j/(grid + 1) (any θ in (0, ε) gives a valid bound)."""
    theta = epsilon * np.arange(1, grid + 1) / (grid + 1)
    log_mgf = np.log(staircase_mgf(theta, epsilon))
    terms, log_term = np.broadcast_arrays(np.asarray(terms, dtype=float),
                                          np.asarray(log_term, dtype=float))
    k, log = terms.ravel(), log_term.ravel()
    out = np.empty(k.size)
    for start in range(0, k.size, _ROWS):  # a row of ``grid`` values per sum
        rows = slice(start, start + _ROWS)
        out[rows] = ((k[rows, None] * log_mgf + log[rows, None]) / theta).min(axis=1)
    return out.reshape(terms.shape)


#: Sums bounded at a time by :func:`sum_bound` (its memory: this times its grid).
_ROWS = 1 << 16


def unit_variance(epsilon: float) -> float:
    """The variance of staircase noise measured in units of Laplace's scale Δ/ε, the
    units the shared noise component draws it in (sensitivity ε): ε² V_1(ε), which
    tends to Laplace's 2 as ε → 0."""
    return staircase_variance(epsilon, sensitivity=epsilon)


__all__ = ["optimal_gamma", "stair_parameters", "staircase_cdf", "staircase_density",
           "staircase_mgf", "staircase_variance", "sum_bound", "unit_variance"]
