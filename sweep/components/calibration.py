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
:class:`Calibration`. scipy is imported by the two computations that need it, so that the
families' options, which name these calibrations, validate without it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .staircase import staircase_variance, unit_variance

# ------------------------------------------------------------------ generic mechanisms


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ/ε of the Laplace mechanism (ε-DP); its variance is 2b²."""
    return sensitivity / epsilon


def unit_noise_variance(kind: str, epsilon: float | None = None) -> float:
    """Variance of a noise value of scale 1 (:mod:`sweep.components.noise`'s units): 2 for
    Laplace(0, 1), 1 for N(0, 1), ε² V_1(ε) for the staircase at ``epsilon`` (in units of
    the Laplace scale Δ/ε)."""
    if kind == "staircase":
        return unit_variance(epsilon)
    return 2.0 if kind == "laplace" else 1.0


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = Δ √(2 ln(1.25/δ))/ε of the classic Gaussian mechanism.

    (ε, δ)-DP for 0 < ε <= 1 only (Dwork & Roth, Thm A.1); above, use
    :func:`analytic_gaussian_sigma`.
    """
    return math.sqrt(2.0 * sensitivity**2 * math.log(1.25 / delta)) / epsilon


@functools.cache
def _unit_analytic_sigma(epsilon: float, delta: float) -> float:
    from scipy import optimize, special

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
    (δ unused). ``staircase`` (not in the paper): the staircase mechanism of Δ = 2L, ε-DP
    as Lemma 2's noise is, σ_DP² = 4L² V_1(ε) (:mod:`sweep.components.staircase`), which
    is below 8L²/ε² at every ε.

    Parameters
    ----------
    kind : {"gaussian", "laplace", "staircase"}
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
    return _pure_std(kind, mean_sensitivity(bound), epsilon, math.sqrt(8.0) * bound)


def variance_release_std(kind: str, bound: float, epsilon: float, delta: float) -> float:
    """σ_2,DP of the noise W added to a partial sample variance (Lemma 3).

    ``gaussian``: σ_2,DP² = 32 L⁴ ln(1.25/δ)/ε², the classic Gaussian mechanism with
    Δ = 4L² (:func:`variance_sensitivity`), for 0 < ε <= 1; ``laplace``: its analogue
    32 L⁴/ε² (Sec. II-C, after Lemma 3), Laplace of scale Δ/ε; ``staircase``: the
    staircase mechanism of Δ = 4L², σ_2,DP² = 16 L⁴ V_1(ε).

    Parameters and return value as in :func:`mean_release_std`.
    """
    factor = math.log(1.25 / delta) if kind == "gaussian" else 1.0
    return _pure_std(kind, variance_sensitivity(bound), epsilon,
                     math.sqrt(32.0 * bound**4 * factor))


def _pure_std(kind: str, sensitivity: float, epsilon: float, printed: float) -> float:
    """The standard deviation of the staircase of ``sensitivity`` at ``epsilon``, or the
    lemma's closed form ``printed``/ε (evaluated as printed, so that results stay bit
    for bit)."""
    if kind == "staircase":
        return sensitivity * math.sqrt(staircase_variance(epsilon))
    return printed / epsilon


# ------------------------------------------------------------------- network family


def log_smooth_constant(beta: float) -> float:
    """c in S*(s) = c/s, the β-smooth sensitivity of ξ(s) = log s: c = 1/(e·β).

    Eq. (9) of the network paper (with β = γ). Its tests found that this does not bound
    the local sensitivity of log s under |s − s'| <= 1 for small s; see
    tests/test_privacy_audit.py.
    """
    return 1.0 / (math.e * beta)


def floored_log_smooth_sensitivity(signals: np.ndarray, beta: float,
                                   floor: float) -> np.ndarray:
    """β-smooth sensitivity S*(s) of ξ(s) = log s on the domain [s_min, ∞), exactly.

    The signals are clipped to the floor first, x = max(s, s_min); clipping is
    1-Lipschitz, so neighbouring signals (the paper's adjacency |s − s'| <= 1, Sec. 2.3,
    eq. (9)) stay neighbours. Nissim et al. (2007, Def. 2.1, Prop. 2.3) define
    S*(x) = max_{k>=0} e^{−βk} A_k(x) with A_k(x) = max{LS(y) : y in D, |y − x| <= k}
    and LS(y) = max{|log y' − log y| : y' in D, |y' − y| <= 1}, the local sensitivity.

    * LS(y) = max(log(1 + 1/y), log(y / max(s_min, y − 1))): log is concave, so moving
      down costs more than moving up unless the floor stops the move. LS decreases on
      [s_min + 1, ∞) (log(y/(y − 1))); on [s_min, s_min + 1] it is at most
      L = log(1 + 1/s_min), reached at y = s_min (up) and y = s_min + 1 (down), so L is
      the global sensitivity on D.
    * For k >= 1 the window [max(s_min, x − k), x + k] contains s_min + 1 as soon as
      x − k <= s_min + 1, i.e. k >= k_0 = max(1, ⌈x − s_min − 1⌉): there A_k = L and the
      best of those k is k_0. For 1 <= k < k_0 the window lies where LS decreases:
      A_k = LS(x − k) = h(x − k) with h(u) = −log(1 − 1/u) = Σ_n u^{−n}/n, a sum of
      log-convex functions, hence log-convex; so log(e^{−βk} h(x − k)) is convex in k and
      its maximum over 1 <= k <= k_0 − 1 is at an end.

    Hence S*(x) = max(LS(x), e^{−β} h(x − 1), e^{−β(k_0−1)} h(x − k_0 + 1), e^{−βk_0} L),
    the two middle terms only when k_0 >= 2. Eq. (9)'s 1/(eβs) maximizes e^{−βk}·k/s, the
    derivative's linearization, instead: it is larger than S* far from the floor (S* tends
    to LS(x) ≈ 1/(x − 1)), not β-smooth below 1/(e^β − 1), and without a floor no finite
    bound exists, LS being infinite for s <= 1 (s' → 0).
    """
    x = np.maximum(signals, floor)
    top = math.log1p(1.0 / floor)
    local = np.maximum(np.log1p(1.0 / x), np.log(x / np.maximum(floor, x - 1.0)))
    first = np.maximum(1.0, np.ceil(x - floor - 1.0))  # k_0
    inner = first >= 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.where(inner, math.exp(-beta) * -np.log1p(-1.0 / (x - 1.0)), 0.0)
        far = np.where(inner, np.exp(-beta * (first - 1.0))
                       * -np.log1p(-1.0 / (x - first + 1.0)), 0.0)
    return np.maximum.reduce([local, near, far, np.exp(-beta * first) * top])


@dataclass(frozen=True)
class Calibration:
    """How agent i's noise scale follows from its signal and its neighbourhood.

    Agent i's noise has scale ``factor · max(network, signal_weight · S_i)`` (Laplace
    scale b, or Gaussian σ), where S_i is the sensitivity of the sufficient statistic:
    the global Δ (``smooth`` None) or the smooth sensitivity c/s_i (``smooth`` = c), and
    ``network`` = a_i = max_{j∈N_i} a_ij, times the method's weight, under Network DP.
    With a signal floor s_min, S_i is instead c·eβ times the exact β-smooth sensitivity
    of log on [s_min, ∞) (:func:`floored_log_smooth_sensitivity`; c·eβ is 1 where eq. (9)
    has c = 1/(eβ), and carries the reading's multiplier otherwise).

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
        2 for Laplace, 1 for Gaussian, ε² V_1(ε) for the staircase: variance =
        variance_factor · scale².
    beta : float or None
        The smoothness β of S* (used with a floor).
    floor : float or None
        s_min: signals are clipped to [s_min, ∞) and S* is the exact one on that domain.
    """

    factor: float
    smooth: float | None
    sensitivity: float
    variance_factor: float
    beta: float | None = None
    floor: float | None = None

    def statistic_sensitivity(self, signals: np.ndarray) -> np.ndarray | float:
        """S_i: the global Δ, or the smooth sensitivity c/s of each signal (with a floor,
        the exact one on [s_min, ∞), see the class)."""
        if self.smooth is None:
            return self.sensitivity
        if self.floor is None:
            return self.smooth / signals
        return (self.smooth * math.e * self.beta
                * floored_log_smooth_sensitivity(signals, self.beta, self.floor))

    def combined(self, network: np.ndarray | float, signal: np.ndarray) -> np.ndarray:
        """The sensitivity of agent i's message under Network DP: max(a_i, S_i) (Sec. 3.1's
        remark), or a_i + S_i with a floor.

        The max bounds a move split between the signal and a neighbour's estimate only if
        part of a step of ξ costs at most that part of the step's cost: true of log
        (concave), not of log clipped at s_min (from s_min + 1/2, half a step down costs a
        whole step's log((s_min + 1/2)/s_min)). The sum bounds every split, and is
        β-smooth as S_i is, so the floor's guarantee stays provable under Network DP.
        """
        if self.floor is None:
            return np.maximum(network, signal)
        return network + signal

    def scale(self, signals: np.ndarray, network: np.ndarray | float = 0.0,
              signal_weight: float = 1.0) -> np.ndarray:
        """Noise scale of each agent: k · max(network, signal_weight · S_i) (a sum with a
        floor, :meth:`combined`).

        ``network`` is a_i times the method's weight on the neighbours (0 for Signal DP).
        """
        return self.factor * self.combined(network, signal_weight
                                           * self.statistic_sensitivity(signals))

    def expected_variance(self, network: np.ndarray | float, signal_weight: float,
                          log_mean: float, log_sigma: float) -> np.ndarray:
        """E over the signal of the noise variance, per agent (the analytic references).

        For the smooth sensitivity S = c/s with log s ~ N(μ, σ²), X = w·c/s is log-normal
        and E[max(a, X)²] = a² P(X <= a) + E[X²; X > a] in closed form. With a floor, S is
        not a power of s: the expectation is a quadrature over the quantiles of log s.
        """
        from scipy import stats

        network = np.asarray(network, dtype=np.float64)
        k2 = self.variance_factor * self.factor**2
        if self.smooth is None:
            return k2 * np.maximum(network, signal_weight * self.sensitivity) ** 2
        if self.floor is not None:
            # Midpoint rule in probability: 4,096 equally likely values of s.
            levels = (np.arange(_QUANTILES) + 0.5) / _QUANTILES
            signals = np.exp(log_mean + log_sigma * stats.norm.ppf(levels))
            scale = self.combined(network[..., None],
                                  signal_weight * self.statistic_sensitivity(signals))
            return k2 * np.mean(scale**2, axis=-1)
        m = math.log(signal_weight * self.smooth) - log_mean  # log X ~ N(m, σ²)
        second = math.exp(2 * m + 2 * log_sigma**2)
        with np.errstate(divide="ignore"):
            log_a = np.log(network)
        below = stats.norm.cdf((log_a - m) / log_sigma)
        above = second * stats.norm.sf((log_a - m - 2 * log_sigma**2) / log_sigma)
        return k2 * (network**2 * below + above)


_QUANTILES = 4096

#: How agent i's Network-DP noise combines a_i and S*: ``paper``, 2·max(a_i, S*_i)/ε
#: (Sec. 3.1's remark: the smooth-sensitivity mechanism's 2/ε on the whole sensitivity,
#: as Nissim et al.'s Cor. 2.4 has it); ``code``, max(a_i, 2 S*_i)/ε, the authors' code
#: (the factor 2 on the signal's part only).
NETWORK_SCALES = ("paper", "code")
#: Readings of Appendix B's noise for Rizk et al. (:func:`rizk_calibration`).
RIZK_SCALES = ("printed", "code", "no_eta")


def calibrate(kind: str, epsilon: float, delta: float, smooth: bool,
              sensitivity: float = 1.0, network_scale: str = "paper",
              floor: float | None = None) -> Calibration:
    """Calibration of the consensus algorithms' noise (network paper, Thms 3.1, 4.1, 4.2).

    ``laplace``: scale Δ/ε for a global sensitivity (Thm 3.1), or 2 S*(s)/ε with the
    smooth sensitivity S* at γ = ε/(2 ln(2/δ)) (Nissim et al., Cor. 2.4; eq. (9)),
    (ε, δ)-DP. ``gaussian`` (not optimal, Thm 3.1 part 2), at the same (ε, δ): the
    analytic Gaussian mechanism for a global sensitivity, or Nissim et al.'s Gaussian
    admissible noise (Lemma 2.10 of the STOC paper) for the smooth one:
    σ = S*_β(s)/α with α = ε/(5√(2 ln(2/δ))) and β = ε/(4(1 + ln(2/δ))). ``staircase``
    (global sensitivity only): Geng & Viswanath's ε-DP noise of least variance, drawn in
    units of the Laplace scale Δ/ε (:mod:`sweep.components.noise`), to test the claim
    that Laplace noise minimizes the variance under ε-DP.

    Parameters
    ----------
    kind : {"laplace", "gaussian", "staircase"}
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1) (unused by the staircase, pure ε-DP).
    smooth : bool
        Use the smooth sensitivity of log s (log-normal signals) instead of Δ.
    sensitivity : float, default 1.0
        The global Δ (ignored when ``smooth``).
    network_scale : {"paper", "code"}, default "paper"
        Under Network DP with Laplace noise and the smooth sensitivity:
        2·max(a_i, S*_i)/ε or the authors' code's max(a_i, 2 S*_i)/ε (see
        :data:`NETWORK_SCALES`); the former is what Nissim et al.'s Cor. 2.4 proves.
    floor : float or None, default None
        s_min of the smooth sensitivity's domain [s_min, ∞) (Calibration's ``floor``).

    Returns
    -------
    Calibration
    """
    if kind == "staircase":
        # Global sensitivity only: the smooth sensitivity framework needs admissible
        # noise (Laplace, Gaussian), which the staircase is not shown to be.
        if smooth:
            raise ValueError("the staircase takes a global sensitivity, not a smooth one")
        # Drawn in units of Δ/ε (sweep.components.noise).
        return Calibration(1.0 / epsilon, None, sensitivity, unit_variance(epsilon))
    log_term = math.log(2.0 / delta)
    if kind == "laplace":
        if smooth:
            gamma = epsilon / (2.0 * log_term)
            if network_scale == "code":
                return Calibration(1.0 / epsilon, 2.0 * log_smooth_constant(gamma),
                                   sensitivity, 2.0, gamma, floor)
            return Calibration(2.0 / epsilon, log_smooth_constant(gamma), sensitivity, 2.0,
                               gamma, floor)
        return Calibration(1.0 / epsilon, None, sensitivity, 2.0)
    if smooth:
        alpha = epsilon / (5.0 * math.sqrt(2.0 * log_term))
        beta = epsilon / (4.0 * (1.0 + log_term))
        return Calibration(1.0 / alpha, log_smooth_constant(beta), sensitivity, 1.0, beta,
                           floor)
    return Calibration(analytic_gaussian_sigma(epsilon, delta), None, sensitivity, 1.0)


def rizk_calibration(epsilon: float, delta: float, rounds: int, smooth: bool,
                     sensitivity: float = 1.0, reading: str = "printed",
                     learning_rate: float = 1.0, floor: float | None = None) -> Calibration:
    """Appendix B's Laplace noise for Rizk et al., scale (T/ε)·max(a_i, η S_i), read three
    ways (``reading``, :data:`RIZK_SCALES`); the family supplies η as the signal weight.

    ``printed``: as the appendix prints it, ηT·S*(s_i)/ε (Signal DP) and
    T·max(a_i, η S*(s_i))/ε (Network DP), with S* of eq. (9) at the full ε
    (γ = ε/(2 ln(2/δ))) and without the factor 2 of the smooth-sensitivity mechanism.
    ``code``: the authors' code, which computes S* at the per-round budget ε/T
    (γ/T, so S* is T times larger) and doubles it: S_i = 2T·S*(s_i), 2T times the printed
    signal part (a_i unchanged); defined for the smooth sensitivity only. ``no_eta``: the
    printed scale without η on the signal's part, T·max(a_i, S*(s_i))/ε (S_i = S*/η, or
    Δ/η for a global Δ), 1/η = 1000 times the printed Signal-DP noise at η = 0.001.

    With T = 100, η = 0.001, ε = 1, δ = 0.01 the Signal-DP scale is, per unit 1/s,
    printed 100·0.001·2 ln 200/e = 0.390, code 200 times that (77.9), no_eta 1000 times
    (390).
    """
    if reading == "code" and not smooth:
        raise ValueError("rizk_calibration: the code reading is defined for the smooth "
                         "sensitivity only")
    gamma = epsilon / (2.0 * math.log(2.0 / delta))
    if not smooth:
        scale = sensitivity / learning_rate if reading == "no_eta" else sensitivity
        return Calibration(rounds / epsilon, None, scale, 2.0)
    if reading == "code":
        return Calibration(rounds / epsilon, 2.0 * log_smooth_constant(gamma / rounds),
                           sensitivity, 2.0, gamma / rounds, floor)
    smooth_constant = 2.0 * math.log(2.0 / delta) / (math.e * epsilon)
    if reading == "no_eta":
        smooth_constant /= learning_rate
    return Calibration(rounds / epsilon, smooth_constant, sensitivity, 2.0, gamma, floor)


__all__ = ["NETWORK_SCALES", "RIZK_SCALES", "Calibration", "analytic_gaussian_sigma",
           "calibrate", "classic_gaussian_sigma", "floored_log_smooth_sensitivity",
           "laplace_scale", "log_smooth_constant", "mean_release_std", "mean_sensitivity",
           "rizk_calibration", "unit_noise_variance", "variance_release_std",
           "variance_sensitivity"]
