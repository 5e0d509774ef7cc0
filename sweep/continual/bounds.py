"""The theorems' error bounds, with their constants, and the single-release lower bound.

Each bound is the last inequality of its proof before the Õ(·), at failure probability δ
per event (the failure probability δ of the paper: the option ``failure_probability``, as
``delta`` is the DP δ everywhere); c is Lemma A.2's absolute constant (``bound_constant``).
The paper's Lemma A.2, c √(Σ b_i² ln(1/δ)), is false for small δ (a single Laplace(b)
exceeds b·ln(1/δ) with probability δ); the proofs use c √(Σ b_i²)·ln(1/δ), which holds
with c = 4 for δ <= 0.35 (a Chernoff bound at λ = 1/(2√(Σ b_i²)) gives 2e^(1/3) δ²).
Terms, with the error at time t:

* statistical: √(ln(2/δ)/(2t)) when μ̂_t averages all t samples (non_private,
  naive_laplace, alg2); √(ln(2/δ)/t) for Algs 3–6, which average at least t/2 (Claim C.1);
* privacy, Algs 3–6: the noise over ``total`` >= t/2 samples, so 2/t times the noise's
  bound. The proofs of Thms 3.1, 3.2 and 3.4 write η/t: they drop that factor 2
  (Alg. 3's proof keeps it), an erratum fixed here.

Which bound holds when (``conditions``): Alg. 3 for contiguous arrivals and a prior
within 1/√m; Algs 4–5 for that prior; Alg. 6 where the diversity condition (11) holds;
the others always. The guarantees hold with probability 1 − 2δ (naive, alg2) or 1 − 3δ
(Algs 3–6).
"""

from __future__ import annotations

import math

import numpy as np

from ..components.tree import depth
from .config import ContinualConfig
from .parameters import Parameters


def statistical(config: ContinualConfig, t: np.ndarray, failure: float) -> np.ndarray:
    """The sampling term of the bound at times ``t`` and failure probability ``failure``."""
    spread = math.log(2 / failure)
    if config.method in ("non_private", "naive_laplace", "alg2"):
        return np.sqrt(spread / (2 * t))
    return np.sqrt(spread / t)


def bound(config: ContinualConfig, parameters: Parameters, t: np.ndarray,
          max_count: np.ndarray) -> np.ndarray:
    """The method's bound on ‖μ̂_t − μ‖_∞ at times ``t`` with M_t ``max_count``: eq. (1)
    for alg2, Appendix B for alg3, C.2 for alg4, D.1 for alg5, E.2 for alg6; Hoeffding
    (and the Laplace tail) for non_private and naive_laplace.

    In d dimensions each coordinate's bound is taken at failure probability δ/d, so that
    by a union bound the largest coordinate's error is within it as often as one
    coordinate's is at δ (the methods' own δ, in their projections and thresholds, stays).
    """
    t = np.asarray(t, dtype=np.float64)
    failure = config.failure_probability / config.dimension
    c, tail = config.bound_constant, math.log(1 / failure)
    eta = parameters.eta
    method = config.method
    noise = np.zeros_like(t)
    if method == "naive_laplace":
        noise = eta[0] * tail / t  # one Laplace(η) value: P(|Z| >= η ln(1/δ)) = δ
    elif method in ("alg2", "alg4"):
        # At most 1 + log t p-sums in S_t; alg4 divides by total >= t/2.
        factor = 1.0 if method == "alg2" else 2.0
        noise = factor * c * eta[0] * np.sqrt(1 + np.log2(t)) * tail / t
    elif method == "alg3":
        noise = 2 * c * eta[0] * math.sqrt(depth(config.n_users)) * tail / t
    elif method in ("alg5", "alg6"):
        # Mechanisms 0..⌊log M_t⌋ hold elements, each S_t of at most depth(n) p-sums.
        top = np.floor(np.log2(np.maximum(max_count, 1))).astype(np.int64)
        squares = np.cumsum(eta**2)[np.minimum(top, eta.size - 1)]
        noise = 2 * c * tail * np.sqrt(depth(config.n_users) * squares) / t
    total = statistical(config, t, failure) + noise
    if method == "alg3":
        # Lines 3–5: before the first block, μ̂_t = μ̃, within 1/√m of μ by assumption.
        total = np.where(t < config.max_samples, 1 / math.sqrt(config.max_samples), total)
    return total


def conditions(config: ContinualConfig, diverse: np.ndarray) -> np.ndarray:
    """Whether the method's theorem applies at each checkpoint (``diverse``: (11) holds)."""
    if config.method in ("alg3", "alg4", "alg5"):
        applies = bool(config.prior_assumption) and (
            config.method != "alg3" or config.order.kind == "contiguous")
        return np.full(diverse.shape, applies)
    if config.method == "alg6":
        return diverse.astype(bool)
    return np.ones(diverse.shape, dtype=bool)


def lower_bound(t: np.ndarray, max_count: np.ndarray, epsilon: float) -> np.ndarray:
    """Sec. 5's single-release lower bound written at time t: 1/√t + √M_t/(tε), constants
    set to 1."""
    t = np.asarray(t, dtype=np.float64)
    return 1 / np.sqrt(t) + np.sqrt(max_count) / (t * epsilon)


__all__ = ["bound", "conditions", "lower_bound", "statistical"]
