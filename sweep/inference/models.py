"""Signal models: log-likelihoods over the state grid Θ, their sensitivity (eq. (7)) and the
signal constants of the theorems (eqs (9)–(11)).

Synthetic models draw their signals from the state θ° (``truth``) and keep, per agent,
the log-likelihood of its signals at every state, log γ_i(θ) = Σ_j log ℓ(s_j|θ) (constants
that do not depend on θ dropped: only differences between states enter the beliefs).
The Cox model's log-likelihoods are the partial likelihoods (3) of each centre's patients
(:mod:`sweep.inference.survival`), computed once per cell.
"""

from __future__ import annotations

import numpy as np

#: A state is in the MLE set Θ* when its total log-likelihood is this close to the largest
#: (relative to the largest magnitude): floating-point ties count as ties.
TIE_TOLERANCE = 1e-9


def bernoulli_loglik(ones: np.ndarray, count: np.ndarray | int, states: np.ndarray
                     ) -> np.ndarray:
    """Σ_j log ℓ(s_j|θ) = k log θ + (m − k) log(1 − θ) for k ones among m signals.

    ``ones`` and ``count`` broadcast together; the states are the last axis of the result.
    """
    ones = np.asarray(ones, dtype=np.float64)[..., None]
    zeros = np.asarray(count, dtype=np.float64)[..., None] - ones
    return ones * np.log(states) + zeros * np.log1p(-states)


def gaussian_loglik(total: np.ndarray, squares: np.ndarray, count: np.ndarray | int,
                    states: np.ndarray, sigma: float) -> np.ndarray:
    """Σ_j −(s_j − θ)²/(2σ²) from the sufficient statistics Σ s_j, Σ s_j² and the count."""
    total = np.asarray(total, dtype=np.float64)[..., None]
    squares = np.asarray(squares, dtype=np.float64)[..., None]
    count = np.asarray(count, dtype=np.float64)[..., None]
    return -(squares - 2.0 * states * total + count * states**2) / (2.0 * sigma**2)


def signal_sensitivity(model: str, states: np.ndarray, sigma: float | None = None,
                       bound_x: float | None = None) -> np.ndarray:
    """g(θ) of eq. (7) for one signal replaced by any other, per state.

    Bernoulli: |log θ − log(1 − θ)| (a signal flips). Gaussian with signals clipped to
    [−B_x, B_x]: (s − θ)² ranges over [0, (B_x + |θ|)²] when |θ| <= B_x, so
    g(θ) = max((B_x + |θ|)² − max(0, |θ| − B_x)², …)/(2σ²); the minimum of (s − θ)² over
    the box is 0 inside it and (|θ| − B_x)² outside.
    """
    states = np.asarray(states, dtype=np.float64)
    if model == "bernoulli":
        return np.abs(np.log(states) - np.log1p(-states))
    far = (bound_x + np.abs(states)) ** 2
    near = np.maximum(np.abs(states) - bound_x, 0.0) ** 2
    return (far - near) / (2.0 * sigma**2)


def kl_rates(model: str, truth: float, states: np.ndarray, sigma: float | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """Per state θ̄: D_KL(ℓ(·|θ°) ‖ ℓ(·|θ̄)), the drift per signal of log ν(θ°)/ν(θ̄), and
    the standard deviation of one signal's log-likelihood ratio log ℓ(s|θ̄)/ℓ(s|θ°)
    (the terms of l_{n,Θ}, eq. (10), and Q_{n,Θ}, eq. (11), for the online setting).

    The paper writes D_KL(ℓ(·|θ̄) | ℓ(·|θ°)); the log-belief ratio's drift under θ° is
    −D_KL(ℓ(·|θ°) ‖ ℓ(·|θ̄)) (the expectation is taken under the truth), which is used.
    """
    states = np.asarray(states, dtype=np.float64)
    if model == "bernoulli":
        kl = truth * np.log(truth / states) + (1 - truth) * np.log((1 - truth) / (1 - states))
        spread = np.abs(np.log(states / truth) - np.log((1 - states) / (1 - truth)))
        return kl, spread * np.sqrt(truth * (1 - truth))
    return (states - truth) ** 2 / (2 * sigma**2), np.abs(states - truth) / sigma


def mle_set(total: np.ndarray) -> np.ndarray:
    """Θ* of eq. (5) as a boolean mask over the last axis: the maximizers of the total
    log-likelihood Λ(θ) = Σ_i log γ_i(θ), ties within :data:`TIE_TOLERANCE`."""
    top = total.max(axis=-1, keepdims=True)
    scale = np.maximum(np.abs(top), 1.0)
    return total >= top - TIE_TOLERANCE * scale


def normalized_log(loglik: np.ndarray) -> np.ndarray:
    """log γ_i(θ) − log Σ_θ' γ_i(θ'): the log of the normalized likelihood (the initial
    belief of Alg. 4), along the last axis."""
    top = loglik.max(axis=-1, keepdims=True)
    return loglik - top - np.log(np.exp(loglik - top).sum(axis=-1, keepdims=True))


__all__ = ["TIE_TOLERANCE", "bernoulli_loglik", "gaussian_loglik", "kl_rates", "mle_set",
           "normalized_log", "signal_sensitivity"]
