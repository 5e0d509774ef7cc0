"""Heterogeneous privacy budgets (dp-distributed-estimation, Appendix C.3).

An overall budget nε is shared among the agents, agent i taking ε_i <= ε_i,max, so as to
minimize the privacy term Σ_i Δ_i/ε_i of the total-error bounds of Supplementary Table 1
(problem (C.6)): Σ_i ε_i <= nε protects the vector of all estimates at the nε level
against an eavesdropper (eq. (C.5)) and ε_i <= ε_i,max each agent. Here
ε_i,max = ``cap``·ε for every agent (the paper's experiment: 10ε).

Rules (option ``budgets``):

* ``homogeneous``: ε_i = ε, the paper's main results;
* ``centralized``: Prop. C.3 as printed, ε_i* = min(ε_i,max, nε √Δ_i / Σ_j √Δ_j);
* ``waterfilling``: the exact KKT optimum of (C.6), ε_i* = min(ε_i,max, λ √Δ_i) with λ
  such that Σ_i ε_i* = nε. It equals Prop. C.3's formula when no cap binds; when one does,
  the printed formula leaves the capped agents' excess unspent (Σ_i ε_i* < nε) while
  the optimum hands it to the others.

Δ_i is the sensitivity of agent i's release (Supplementary Table 1): S*(s_i) under Signal
DP and max(a_i, S*(s_i)) under Network DP, with the method's weights
(:meth:`~sweep.network.algorithms.Dynamics.neighbour_weight`), evaluated with the smooth
sensitivity at the average budget ε (for S*(s) = c/s its scale cancels in the allocation
under Signal DP). Agent i's noise is then the family's calibration at its own ε_i:
Laplace of scale 2 S*_{γ_i}(s_i)/ε_i with γ_i = ε_i/(2 ln(2/δ)) (2 max(a_i, S*)/ε_i under
Network DP), so it falls as 1/ε_i² where (C.6) assumes 1/ε_i. As in the paper, the
allocation follows the realized signals' Δ_i (once for MVUE, every round for OL) and is
not itself privatized.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..components.calibration import Calibration

BUDGETS = ("homogeneous", "centralized", "waterfilling")
#: ε_i,max/ε of the paper's experiment (Appendix C.3, "Numerical Experiment").
DEFAULT_CAP = 10.0


def centralized(sensitivities: np.ndarray, epsilon: float, cap: float) -> np.ndarray:
    """Prop. C.3: ε_i* = min(cap·ε, nε √Δ_i / Σ_j √Δ_j), per column of ``sensitivities``
    (agents along axis 0), for cap >= 1 (its case 1: Σ_i ε_i,max >= nε)."""
    root = np.sqrt(sensitivities)
    share = root.shape[0] * epsilon * root / root.sum(axis=0)
    return np.minimum(cap * epsilon, share)


def waterfilling(sensitivities: np.ndarray, epsilon: float, cap: float) -> np.ndarray:
    """The KKT optimum of (C.6): ε_i* = min(C, λ √Δ_i) with Σ_i ε_i* = nε, C = cap·ε >= ε.

    With w the √Δ in decreasing order, capping the k largest leaves
    λ_k = (nε − kC)/Σ_{j>=k} w_j; the optimum caps the fewest agents for which the
    largest uncapped one stays below the cap, λ_k w_k <= C (k = n − 1 always qualifies
    when C >= ε, and λ_k increases with k while the condition fails).
    """
    root = np.sqrt(sensitivities)
    n = root.shape[0]
    ordered = -np.sort(-root, axis=0)
    tails = np.cumsum(ordered[::-1], axis=0)[::-1]  # Σ_{j>=k} w_j
    capped = np.arange(n).reshape((n,) + (1,) * (root.ndim - 1))
    level = (n * epsilon - capped * cap * epsilon) / tails
    first = np.argmax(level * ordered <= cap * epsilon, axis=0)
    chosen = np.take_along_axis(level, np.expand_dims(first, 0), axis=0)
    return np.minimum(cap * epsilon, chosen * root)


BUDGET_RULES = {"centralized": centralized, "waterfilling": waterfilling}


@dataclass(frozen=True)
class HeterogeneousCalibration:
    """Each agent's Laplace noise calibrated to its own budget ε_i of ``rule``.

    ``base`` is the homogeneous calibration at the average ε (it defines Δ_i) and
    ``calibrate(ε)`` the family's calibration at a budget, applied elementwise to the
    agents' ε_i; ``scale`` has the signature of :meth:`Calibration.scale`, so the
    simulation draws the same way.
    """

    base: Calibration
    calibrate: Callable[[np.ndarray], Calibration]
    rule: str
    epsilon: float
    cap: float

    def sensitivities(self, signals: np.ndarray, network: np.ndarray | float,
                      signal_weight: float) -> np.ndarray:
        """Δ_i of Supplementary Table 1 at the average ε (the base scale without ε), one
        per agent even when the sensitivity is global."""
        scale = self.base.scale(signals, network, signal_weight) / self.base.factor
        return np.broadcast_to(scale, np.shape(signals))

    def budgets(self, signals: np.ndarray, network: np.ndarray | float,
                signal_weight: float) -> np.ndarray:
        """ε_i of every agent (and replicate: the columns)."""
        delta_i = self.sensitivities(signals, network, signal_weight)
        return BUDGET_RULES[self.rule](delta_i, self.epsilon, self.cap)

    def scale(self, signals: np.ndarray, network: np.ndarray | float = 0.0,
              signal_weight: float = 1.0) -> np.ndarray:
        """Noise scale of each agent at its own ε_i (the calibration's formulas, which
        are elementwise in ε, at the array of the ε_i)."""
        epsilons = self.budgets(signals, network, signal_weight)
        return self.calibrate(epsilons).scale(signals, network, signal_weight)


__all__ = ["BUDGETS", "DEFAULT_CAP", "HeterogeneousCalibration", "centralized",
           "waterfilling"]
