"""Noise calibration of the released p-sums (Lemmas 1-3).

The lemmas privatize a mean (Lemmas 1, 2) or a sample variance (Lemma 3) of data in
[μ - L, μ + L]; the data bound L is set by the data family (see :func:`data_bound`).
"""

from __future__ import annotations

import math

from .config import ColmeConfig


def data_bound(distribution: str, sigma: float) -> float:
    """Half-width L of the support of a data family with standard deviation σ.

    ``uniform``: L = σ√3 (Sec. VII); ``triangular`` (symmetric): L = σ√6;
    ``two_point`` (μ ± σ with probability 1/2 each): L = σ.
    """
    factor = {"uniform": math.sqrt(3.0), "triangular": math.sqrt(6.0), "two_point": 1.0}
    return factor[distribution] * sigma


def gaussian_sigma_dp(bound: float, epsilon: float, delta: float) -> float:
    """σ_DP of Lemma 1: σ_DP² = 8 L² ln(1.25/δ) / ε², valid for 0 < ε <= 1."""
    return math.sqrt(8.0 * bound**2 * math.log(1.25 / delta)) / epsilon


def laplace_sigma_dp(bound: float, epsilon: float) -> float:
    """σ_DP of Lemma 2: σ_DP² = 8 L² / ε²; the Laplace scale is σ_DP/√2."""
    return math.sqrt(8.0) * bound / epsilon


def sigma_dp(config: ColmeConfig) -> float:
    """Standard deviation σ_DP of the noise added to every p-sum (0 without a mechanism)."""
    if config.mechanism == "none":
        return 0.0
    bound = data_bound(config.distribution, config.sigma)
    epsilon, delta = config.release_budget()
    if config.noise == "gaussian":
        return gaussian_sigma_dp(bound, epsilon, delta)
    return laplace_sigma_dp(bound, epsilon)


def variance_sigma_dp(config: ColmeConfig) -> float:
    """σ_2,DP of the partial sample variances of Sch-Var-1 (0 unless ``variance=shared``).

    Lemma 3: σ_2,DP² = 32 L⁴ ln(1.25/δ)/ε² (Gaussian); its Laplace analogue 32 L⁴/ε²
    (Sec. II-C), with the half of the budget the variance releases get.
    """
    if config.mechanism == "none" or config.variance != "shared":
        return 0.0
    bound = data_bound(config.distribution, config.sigma)
    epsilon, delta = config.release_budget()
    factor = math.log(1.25 / delta) if config.noise == "gaussian" else 1.0
    return math.sqrt(32.0 * bound**4 * factor) / epsilon
