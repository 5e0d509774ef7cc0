"""Noise calibration of the released p-sums (Lemmas 1-3) for a configuration.

The lemmas privatize a mean (Lemmas 1, 2) or a sample variance (Lemma 3) of data in
[μ - L, μ + L]; the data bound L is set by the data family (see :func:`data_bound`) and
the calibrations themselves live in :mod:`sweep.components.calibration`.
"""

from __future__ import annotations

from ..components.calibration import mean_release_std, variance_release_std
from .config import ColmeConfig, data_bound


def sigma_dp(config: ColmeConfig) -> float:
    """Standard deviation σ_DP of the noise added to every p-sum (0 without a mechanism).

    Lemma 1 (``noise=gaussian``) or Lemma 2 (``laplace``) at the budget of one release,
    :meth:`~sweep.colme.config.ColmeConfig.release_budget`.
    """
    if config.mechanism == "none":
        return 0.0
    epsilon, delta = config.release_budget()
    return mean_release_std(config.noise, data_bound(config.distribution, config.sigma),
                            epsilon, delta)


def variance_sigma_dp(config: ColmeConfig) -> float:
    """σ_2,DP of the partial sample variances of Sch-Var-1 (0 unless ``variance=shared``).

    Lemma 3: σ_2,DP² = 32 L⁴ ln(1.25/δ)/ε² (Gaussian); its Laplace analogue 32 L⁴/ε²
    (Sec. II-C), with the half of the budget the variance releases get.
    """
    if config.mechanism == "none" or config.variance != "shared":
        return 0.0
    epsilon, delta = config.release_budget()
    return variance_release_std(config.noise, data_bound(config.distribution, config.sigma),
                                epsilon, delta)


__all__ = ["data_bound", "sigma_dp", "variance_sigma_dp"]
