"""Sensitivities and noise calibrations of every family, in one place.

A release f(x) + noise is (ε, δ)-DP when the noise is calibrated to the sensitivity Δ of
f, the most f changes between neighbouring inputs:

* Laplace mechanism (Dwork & Roth, Thm 3.6): scale b = Δ/ε, pure ε-DP; variance 2b²;
* classic Gaussian mechanism (Dwork & Roth, Thm A.1): σ = Δ √(2 ln(1.25/δ))/ε, valid for
  0 < ε <= 1 only;
* analytic Gaussian mechanism (Balle & Wang 2018, Thm 8): the smallest σ, any ε > 0;
* smooth sensitivity (Nissim, Raskhodnikova & Smith 2007): when Δ is unbounded, noise
  scaled to a β-smooth upper bound S*(x) of the local sensitivity.

Private-ColME (journal, Sec. II-C) releases means and sample variances of data in
[μ − L, μ + L] (Lemmas 1–3); its functions take the bound L and give the noise's
standard deviation σ_DP, with the paper's closed forms evaluated as printed (so that
results stay bit for bit). The network paper (dp-distributed-estimation, Secs. 2.3–4,
Appendix B) scales each agent's noise with its own signal and neighbourhood:
:class:`Calibration`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

# ------------------------------------------------------------------ generic mechanisms


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ/ε of the Laplace mechanism (ε-DP); its variance is 2b²."""
    return sensitivity / epsilon


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = Δ √(2 ln(1.25/δ))/ε of the classic Gaussian mechanism.

    (ε, δ)-DP for 0 < ε <= 1 only (Dwork & Roth, Thm A.1); above, use
    :func:`analytic_gaussian_sigma`.
    """
    return math.sqrt(2.0 * sensitivity**2 * math.log(1.25 / delta)) / epsilon


@functools.cache
def _unit_analytic_sigma(epsilon: float, delta: float) -> float:
    def excess(sigma: float) -> float:
        return (special.ndtr(0.5 / sigma - epsilon * sigma)
                - math.exp(epsilon) * special.ndtr(-0.5 / sigma - epsilon * sigma) - delta)

    high = 1.0
    while excess(high) > 0:
        high *= 2.0
    return optimize.brentq(excess, 1e-8, high, xtol=1e-14, rtol=1e-14)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ for which N(0, σ²) noise on a release of sensitivity Δ is (ε, δ)-DP.

    Balle & Wang (2018), Thm 8: with Δ = 1, the condition is
    Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) <= δ, solved to 1e-14; σ scales with Δ. Valid
    for every ε > 0 and smaller than :func:`classic_gaussian_sigma`.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).
    sensitivity : float, default 1.0
        Δ, the release's ℓ2 sensitivity.

    Returns
    -------
    float
    """
    unit = _unit_analytic_sigma(epsilon, delta)
    return unit if sensitivity == 1.0 else sensitivity * unit


# --------------------------------------------------------------------- Private-ColME


def mean_sensitivity(bound: float) -> float:
    """Δ = 2L of a sum of data in [μ − L, μ + L] when one datum changes (proof of Lemma 1)."""
    return 2.0 * bound


def variance_sensitivity(bound: float) -> float:
    """Δ = 4L² of (n − 1)·(sample variance) of data in [μ − L, μ + L] (Lemma 3)."""
    return 4.0 * bound**2


def mean_release_std(kind: str, bound: float, epsilon: float, delta: float) -> float:
    """σ_DP of the noise Z added to a p-sum of data in [μ − L, μ + L].

    ``gaussian``: Lemma 1, σ_DP² = 8 L² ln(1.25/δ)/ε² (Z ~ N(0, σ_DP²)), which is the
    classic Gaussian mechanism with Δ = 2L, for 0 < ε <= 1. ``laplace``: Lemma 2,
    σ_DP² = 8 L²/ε² and Z ~ Laplace(0, σ_DP/√2), the Laplace mechanism with Δ = 2L
    (δ unused).

    Parameters
    ----------
    kind : {"gaussian", "laplace"}
    bound : float
        L, the half-width of the data's support.
    epsilon, delta : float
        The budget of this release.

    Returns
    -------
    float
        σ_DP, the standard deviation of Z (see :func:`~sweep.components.noise.draw_std`).
    """
    if kind == "gaussian":
        return math.sqrt(8.0 * bound**2 * math.log(1.25 / delta)) / epsilon
    return math.sqrt(8.0) * bound / epsilon


def variance_release_std(kind: str, bound: float, epsilon: float, delta: float) -> float:
    """σ_2,DP of the noise W added to a partial sample variance (Lemma 3).

    ``gaussian``: σ_2,DP² = 32 L⁴ ln(1.25/δ)/ε², the classic Gaussian mechanism with
    Δ = 4L² (:func:`variance_sensitivity`), for 0 < ε <= 1; ``laplace``: its analogue
    32 L⁴/ε² (Sec. II-C, after Lemma 3), Laplace of scale Δ/ε.

    Parameters and return value as in :func:`mean_release_std`.
    """
    factor = math.log(1.25 / delta) if kind == "gaussian" else 1.0
    return math.sqrt(32.0 * bound**4 * factor) / epsilon


# ------------------------------------------------------------------- network family


def log_smooth_constant(beta: float) -> float:
    """c in S*(s) = c/s, the β-smooth sensitivity of ξ(s) = log s: c = 1/(e·β).

    Eq. (9) of the network paper (with β = γ). Its tests found that this does not bound
    the local sensitivity of log s under |s − s'| <= 1 for small s; see
    tests/test_privacy_audit.py.
    """
    return 1.0 / (math.e * beta)


@dataclass(frozen=True)
class Calibration:
    """How agent i's noise scale follows from its signal and its neighbourhood.

    Agent i's noise has scale ``factor · max(network, signal_weight · S_i)`` (Laplace
    scale b, or Gaussian σ), where S_i is the sensitivity of the sufficient statistic:
    the global Δ (``smooth`` None) or the smooth sensitivity c/s_i (``smooth`` = c), and
    ``network`` = a_i = max_{j∈N_i} a_ij, times the method's weight, under Network DP.

    Attributes
    ----------
    factor : float
        k above: 1/ε (Laplace, global Δ), 2/ε (Laplace, smooth), the analytic Gaussian σ
        of (ε, δ) (Gaussian, global Δ), 1/α (Gaussian, smooth).
    smooth : float or None
        c of S*(s) = c/s, or None for the global sensitivity.
    sensitivity : float
        The global Δ (used when ``smooth`` is None).
    variance_factor : float
        2 for Laplace, 1 for Gaussian: variance = variance_factor · scale².
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


def calibrate(kind: str, epsilon: float, delta: float, smooth: bool,
              sensitivity: float = 1.0) -> Calibration:
    """Calibration of the consensus algorithms' noise (network paper, Thms 3.1, 4.1, 4.2).

    ``laplace``: scale Δ/ε for a global sensitivity (Thm 3.1), or 2 S*(s)/ε with the
    smooth sensitivity S* at γ = ε/(2 ln(2/δ)) (Nissim et al., Cor. 2.4; eq. (9)),
    (ε, δ)-DP. ``gaussian`` (not optimal, Thm 3.1 part 2), at the same (ε, δ): the
    analytic Gaussian mechanism for a global sensitivity, or Nissim et al.'s Gaussian
    admissible noise (Lemma 2.10 of the STOC paper) for the smooth one:
    σ = S*_β(s)/α with α = ε/(5√(2 ln(2/δ))) and β = ε/(4(1 + ln(2/δ))).

    Parameters
    ----------
    kind : {"laplace", "gaussian"}
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).
    smooth : bool
        Use the smooth sensitivity of log s (log-normal signals) instead of Δ.
    sensitivity : float, default 1.0
        The global Δ (ignored when ``smooth``).

    Returns
    -------
    Calibration
    """
    log_term = math.log(2.0 / delta)
    if kind == "laplace":
        if smooth:
            gamma = epsilon / (2.0 * log_term)
            return Calibration(2.0 / epsilon, log_smooth_constant(gamma), sensitivity, 2.0)
        return Calibration(1.0 / epsilon, None, sensitivity, 2.0)
    if smooth:
        alpha = epsilon / (5.0 * math.sqrt(2.0 * log_term))
        beta = epsilon / (4.0 * (1.0 + log_term))
        return Calibration(1.0 / alpha, log_smooth_constant(beta), sensitivity, 1.0)
    return Calibration(analytic_gaussian_sigma(epsilon, delta), None, sensitivity, 1.0)


def rizk_calibration(epsilon: float, delta: float, rounds: int, smooth: bool,
                     sensitivity: float = 1.0) -> Calibration:
    """Appendix B's Laplace noise for Rizk et al.: scale T·sens/ε with S* of eq. (9).

    The per-round budget is ε/T; the paper writes the scale as ηT·S*(s_i)/ε (Signal DP)
    and T·max(a_i, η·S*(s_i))/ε (Network DP), with S* at the full ε, without the factor 2
    of the smooth-sensitivity mechanism. We follow it as printed.
    """
    smooth_constant = 2.0 * math.log(2.0 / delta) / (math.e * epsilon) if smooth else None
    return Calibration(rounds / epsilon, smooth_constant, sensitivity, 2.0)


__all__ = ["Calibration", "analytic_gaussian_sigma", "calibrate", "classic_gaussian_sigma",
           "laplace_scale", "log_smooth_constant", "mean_release_std", "mean_sensitivity",
           "rizk_calibration", "variance_release_std", "variance_sensitivity"]
