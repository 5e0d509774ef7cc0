"""Sensitivities and noise calibration of Signal DP and Network DP (Secs. 2.3, 3, 4).

The calibrations live in :mod:`sweep.components.calibration`, shared with Private-ColME;
this module keeps the network family's names for them. Agent i's noise has scale
k · max(network_weight · a_i, signal_weight · S_i) (:class:`Calibration`), with S_i the
global Δ or the smooth sensitivity S*(s) = 1/(e·γ·s) of eq. (9).
"""

from __future__ import annotations

from ..components.calibration import Calibration, analytic_gaussian_sigma, rizk_calibration
from ..components.calibration import calibrate as calibration


def gaussian_sigma(epsilon: float, delta: float) -> float:
    """Smallest σ of the Gaussian mechanism with sensitivity 1 that is (ε, δ)-DP.

    Balle & Wang (2018), Thm 8 (:func:`~sweep.components.calibration.analytic_gaussian_sigma`).
    """
    return analytic_gaussian_sigma(epsilon, delta)


__all__ = ["Calibration", "calibration", "gaussian_sigma", "rizk_calibration"]
