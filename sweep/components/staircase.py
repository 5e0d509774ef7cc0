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
Bernoulli with P(B = 1) = (1 − γ)b/(γ + (1 − γ)b).
"""

from __future__ import annotations

import math

import numpy as np


def optimal_gamma(epsilon: float) -> float:
    """γ* that minimizes the staircase's variance at ``epsilon`` > 0 (Geng & Viswanath,
    Theorem 7): −b/(1 − b) + (b − 2b² + 2b⁴ − b⁵)^(1/3)/(2^(1/3)(1 − b)²), b = e^(−ε)."""
    b = math.exp(-epsilon)
    return -b / (1.0 - b) + (b - 2 * b**2 + 2 * b**4 - b**5) ** (1 / 3) / (
        2 ** (1 / 3) * (1.0 - b) ** 2)


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
    b = math.exp(-epsilon)
    mean_g, square_g = b / (1.0 - b), b * (1.0 + b) / (1.0 - b) ** 2
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
    top = (1.0 - b) / (2.0 * sensitivity * (gamma + (1.0 - gamma) * b))
    return top * b ** (k + low)


def draw_staircase(rng: np.random.Generator, epsilon: float, size: int | tuple[int, ...],
                   sensitivity: float = 1.0, gamma: float | None = None) -> np.ndarray:
    """Staircase noise of ``epsilon`` and ``sensitivity`` (γ* by default), ``size``
    values: four variates of ``rng`` each (sign, G, U, B, in that order, as arrays)."""
    gamma = optimal_gamma(epsilon) if gamma is None else gamma
    b = math.exp(-epsilon)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    # numpy's geometric counts trials from 1: G = trials − 1 failures before a success.
    g = rng.geometric(1.0 - b, size) - 1.0
    u = rng.random(size)
    low = rng.random(size) < _low_step(gamma, b)
    magnitude = np.where(low, g + gamma + (1.0 - gamma) * u, g + gamma * u)
    return sign * magnitude * sensitivity


def unit_variance(epsilon: float) -> float:
    """The variance of staircase noise measured in units of Laplace's scale Δ/ε, the
    units the shared noise component draws it in (sensitivity ε): ε² V_1(ε), which
    tends to Laplace's 2 as ε → 0."""
    return staircase_variance(epsilon, sensitivity=epsilon)


__all__ = ["draw_staircase", "optimal_gamma", "staircase_density", "staircase_variance",
           "unit_variance"]
