"""What an agent releases, and the noise it pays (the platform's own design).

Each agent publishes its running mean only through Private-ColME's PM-I or PM-II
(journal, Sec. IV), run over its own sample stream with one release per step (the
release is broadcast: every neighbour sees the same value). The n-th release is
(Σ_{i<=n} X_i + N_n)/n, where N_n sums the noises of the p-sums that make up [1 : n]:

- PM-I: one p-sum per step ([i : i]), so N_n = Σ_{i<=n} Z_i and every sample is in one
  p-sum: the whole run of releases is one Lemma 1 (Gaussian) or Lemma 2 (Laplace)
  release per sample, (ε, δ)-DP with respect to each sample;
- PM-II: the binary mechanism's p-sums (:mod:`sweep.components.tree`), N_n the w_H(n)
  p-sums of n's binary representation; a sample is in up to ⌊log2 t_max⌋ + 1 p-sums,
  so with ``pm2_split`` each p-sum gets (ε, δ)/(⌊log2 t_max⌋ + 1) and the run is
  (ε, δ)-DP by basic composition.

Each p-sum's noise has the standard deviation σ_DP of Lemma 1 or 2 for data in
[μ − L, μ + L] (sensitivity 2L). Everything an agent sends besides (its consensus value,
its belief-propagation sums) and every decision that shapes what it sends (its tests) is
computed from releases only, its own included: post-processing, so the same guarantee
covers all of it. Only the agent's own estimate, which it keeps, uses its exact mean. The
tests widen their radius by a bound on the release noise (:func:`.kernel.noise_radius`).
"""

from __future__ import annotations

from ..components.calibration import mean_release_std
from .config import DecentralizedConfig


def sigma_dp(config: DecentralizedConfig) -> float:
    """σ_DP of every p-sum's noise (0 without a mechanism): Lemma 1 (``gaussian``),
    Lemma 2 (``laplace``) or the staircase with the data bound L and the per-p-sum
    budget."""
    if config.privacy.mechanism == "none":
        return 0.0
    epsilon, delta = config.release_budget()
    return mean_release_std(config.privacy.noise, config.data_bound(), epsilon, delta)


__all__ = ["sigma_dp"]
