"""Sensitivities and noise calibration of Signal DP and Network DP (Secs. 2.3, 3, 4).

Agent i's noise is ``scale = k · sens_i`` with

* ``sens_i = max(network_weight · a_i, signal_weight · S_i)``, where a_i = max_{j∈N_i} a_ij
  counts under Network DP only, and S_i is the sensitivity of the sufficient statistic:
  the global Δ for bounded families, or for log-normal signals (ξ(s) = log s, Δ = ∞) the
  smooth sensitivity S*(s) = 1/(e·γ·s) of eq. (9);
* ``k`` the noise's factor: Laplace scale Δ/ε (Thm 3.1), or 2/ε with the smooth
  sensitivity at γ = ε/(2 ln(2/δ)) (Nissim et al., Cor. 2.4), which is (ε, δ)-DP.

The Gaussian option (not optimal, Thm 3.1 part 2) is calibrated to the same (ε, δ): the
analytic Gaussian mechanism of Balle & Wang (2018, Thm 8) for a global sensitivity, and
for the smooth sensitivity Nissim et al.'s Gaussian admissible noise (Lemma 2.10 of the
STOC paper): σ = S*_β(s)/α with α = ε/(5√(2 ln(2/δ))) and β = ε/(4(1 + ln(2/δ))).
Laplace scale b has variance 2b²; Gaussian scale σ has variance σ².
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats


@functools.cache
def gaussian_sigma(epsilon: float, delta: float) -> float:
    """Smallest σ of the Gaussian mechanism with sensitivity 1 that is (ε, δ)-DP.

    Balle & Wang (2018), Thm 8: Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) <= δ.
    """
    def excess(sigma: float) -> float:
        return (special.ndtr(0.5 / sigma - epsilon * sigma)
                - math.exp(epsilon) * special.ndtr(-0.5 / sigma - epsilon * sigma) - delta)

    high = 1.0
    while excess(high) > 0:
        high *= 2.0
    return optimize.brentq(excess, 1e-8, high, xtol=1e-14, rtol=1e-14)


@dataclass(frozen=True)
class Calibration:
    """How agent i's noise scale follows from its signal and its neighbourhood.

    ``factor`` is k above; ``smooth`` is c in S*(s) = c/s (``None``: the global
    sensitivity ``sensitivity`` is used); ``variance_factor`` is 2 for Laplace, 1 for
    Gaussian noise.
    """

    factor: float
    smooth: float | None
    sensitivity: float
    variance_factor: float

    def statistic_sensitivity(self, signals: np.ndarray) -> np.ndarray | float:
        """S_i: the global Δ, or the smooth sensitivity c/s of each signal."""
        return self.sensitivity if self.smooth is None else self.smooth / signals

    def scale(self, signals: np.ndarray, network: np.ndarray | float = 0.0,
              signal_weight: float = 1.0) -> np.ndarray:
        """Noise scale of each agent: k · max(network, signal_weight · S_i).

        ``network`` is a_i times the method's weight on the neighbours (0 for Signal DP).
        """
        return self.factor * np.maximum(network, signal_weight
                                        * self.statistic_sensitivity(signals))

    def expected_variance(self, network: np.ndarray | float, signal_weight: float,
                          log_mean: float, log_sigma: float) -> np.ndarray:
        """E over the signal of the noise variance, per agent (the analytic references).

        For the smooth sensitivity S = c/s with log s ~ N(μ, σ²), X = w·c/s is log-normal
        and E[max(a, X)²] = a² P(X <= a) + E[X²; X > a] in closed form.
        """
        network = np.asarray(network, dtype=np.float64)
        k2 = self.variance_factor * self.factor**2
        if self.smooth is None:
            return k2 * np.maximum(network, signal_weight * self.sensitivity) ** 2
        m = math.log(signal_weight * self.smooth) - log_mean  # log X ~ N(m, σ²)
        second = math.exp(2 * m + 2 * log_sigma**2)
        with np.errstate(divide="ignore"):
            log_a = np.log(network)
        below = stats.norm.cdf((log_a - m) / log_sigma)
        above = second * stats.norm.sf((log_a - m - 2 * log_sigma**2) / log_sigma)
        return k2 * (network**2 * below + above)


def calibration(noise: str, epsilon: float, delta: float, smooth: bool,
                sensitivity: float = 1.0) -> Calibration:
    """Calibration of our algorithms' noise (Thms 3.1, 4.1, 4.2 and Sec. 5)."""
    log_term = math.log(2.0 / delta)
    if noise == "laplace":
        if smooth:
            gamma = epsilon / (2.0 * log_term)
            return Calibration(2.0 / epsilon, 1.0 / (math.e * gamma), sensitivity, 2.0)
        return Calibration(1.0 / epsilon, None, sensitivity, 2.0)
    if smooth:
        alpha = epsilon / (5.0 * math.sqrt(2.0 * log_term))
        beta = epsilon / (4.0 * (1.0 + log_term))
        return Calibration(1.0 / alpha, 1.0 / (math.e * beta), sensitivity, 1.0)
    return Calibration(gaussian_sigma(epsilon, delta), None, sensitivity, 1.0)


def rizk_calibration(epsilon: float, delta: float, rounds: int, smooth: bool,
                     sensitivity: float = 1.0) -> Calibration:
    """Appendix B's Laplace noise for Rizk et al.: scale T·sens/ε with S* of eq. (9).

    The per-round budget is ε/T; the paper writes the scale as ηT·S*(s_i)/ε (Signal DP)
    and T·max(a_i, η·S*(s_i))/ε (Network DP), with S* at the full ε, without the factor 2
    of the smooth-sensitivity mechanism. We follow it as printed.
    """
    smooth_constant = 2.0 * math.log(2.0 / delta) / (math.e * epsilon) if smooth else None
    return Calibration(rounds / epsilon, smooth_constant, sensitivity, 2.0)
