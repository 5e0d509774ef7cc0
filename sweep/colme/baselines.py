"""Analytic reference curves of Sec. VI: local (Prop. 1), ideal (Prop. 2), oracle (Prop. 3).

All agents share one known σ, as in Prop. 3. The oracle is computed exactly, without the
paper's truncation of the class-size sum to pM ± 15 and of the averaging over positions:

* RR (Prop. 3): the other agents join a's class independently with p = 1/Γ, so the MSE
  is E[1/(t/σ² + Σ_{ℓ∈S} 1/v_ℓ(t))] over the random subset S. With
  1/x = ∫₀^∞ e^{-sx} ds it becomes one integral of a product of M - 1 factors,
  ∫₀^∞ e^{-st/σ²} Π_ℓ (1 - p + p e^{-s/v_ℓ(t)}) ds, evaluated by adaptive quadrature.
* rRR (Remark 3): the class members are queried in turn with period n - 1, so the MSE is
  the binomial mixture Σ_n C(M-1, n-1) p^{n-1} (1-p)^{M-n} / e_{n,t}, summed over every n.

v_ℓ(t) = Var[T_{ℓ→a}] after the releases up to t comes from the simulator's own exact
variance recursion (:func:`sweep.colme.statistic.schedule_variances`). An agent not yet
queried has v = ∞ and adds nothing; the paper's formula is undefined there.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, stats

from ..errors import ConfigError
from . import config as codes
from .config import ColmeConfig
from .privacy import sigma_dp
from .statistic import schedule_variances


def local_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 1: (1/(M t)) Σ_a σ_a² = σ²/t."""
    return config.sigma**2 / np.asarray(times, dtype=np.float64)


def inverse_class_size(config: ColmeConfig) -> float:
    """E[1/|C_a|] under the class assignment of ``config``.

    ``random``: |C_a| - 1 ~ Bin(M - 1, p), so E[1/|C_a|] = (1 - (1 - p)^M)/(M p).
    ``balanced``: Σ_a 1/|C_a| counts the nonempty classes, min(Γ, M).
    """
    m, classes = config.n_agents, config.n_classes
    if config.class_assignment == "balanced":
        return min(classes, m) / m
    p = 1.0 / classes
    return -math.expm1(m * math.log1p(-p)) / (m * p) if p < 1.0 else 1.0 / m


def ideal_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 2, averaged over the class sizes: σ² E[1/|C_a|] / t."""
    return local_mse(config, times) * inverse_class_size(config)


def _variances(config: ColmeConfig, period: int, times: np.ndarray) -> np.ndarray:
    return schedule_variances(
        period,
        period,
        np.asarray(times, dtype=np.int64),
        config.sigma**2,
        sigma_dp(config) ** 2,
        codes.MECHANISMS.index(config.mechanism),
        codes.WEIGHTS.index(config.weights),
    )


def _expected_inverse(own: float, precisions: np.ndarray, p: float) -> float:
    """E[1/(own + Σ_{ℓ∈S} q_ℓ)], each ℓ in S independently with probability p."""
    if p == 1.0:
        return 1.0 / (own + precisions.sum())
    scale = own + p * precisions.sum()
    rates = precisions / scale
    drift = own / scale

    def integrand(x: float) -> float:
        return math.exp(-x * drift + np.log1p(p * np.expm1(-x * rates)).sum())

    value, _ = integrate.quad(integrand, 0.0, math.inf, epsabs=0.0, epsrel=1e-12, limit=200)
    return value / scale


def oracle_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 3 (``rr``) or Remark 3 (``rrr``): MSE of Algorithm 1 with an oracle class
    estimator, for the mechanism, weights and noise of ``config``."""
    if config.class_assignment != "random":
        raise ConfigError(
            "baselines: the analytic oracle (Prop. 3) needs class_assignment=random; "
            f"got {config.class_assignment!r}"
        )
    times = np.asarray(times, dtype=np.int64)
    m, p = config.n_agents, 1.0 / config.n_classes
    own = times / config.sigma**2
    if config.schedule == "rr":
        with np.errstate(divide="ignore"):
            precisions = 1.0 / _variances(config, m - 1, times)
        return np.array(
            [_expected_inverse(own[c], precisions[:, c], p) for c in range(times.size)]
        )
    mse = np.zeros(times.size)
    sizes = np.arange(1, m + 1)
    for n, weight in zip(sizes, stats.binom.pmf(sizes - 1, m - 1, p), strict=True):
        precision = own.copy()
        if n > 1:
            with np.errstate(divide="ignore"):
                precision += (1.0 / _variances(config, n - 1, times)).sum(axis=0)
        mse += weight / precision
    return mse


ANALYTIC = {"local": local_mse, "ideal": ideal_mse, "oracle": oracle_mse}
