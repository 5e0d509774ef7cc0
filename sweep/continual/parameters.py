"""Each method's noise, projections and thresholds, from the paper's equations.

Conventions, applied to every method alike (see the errata in :mod:`sweep.continual`):

* ``log`` is log2 and ``ln`` the natural logarithm, as in the paper;
* the depth of a binary mechanism over N elements is the number of p-sums an element
  enters, ⌊log2 N⌋ + 1 = ⌈log2(N + 1)⌉, where the paper writes 1 + log N or log(1 + N)
  unrounded (:func:`sweep.components.tree.depth`);
* "log m" inside a logarithm (ln(2n log m/δ)) is max(log2 m, 1), so that m = 1 (one sample
  per user, where the paper's ln(0) is undefined) keeps the bound of m = 2;
* L = ⌈log2 m⌉ (``level_count=ceil``, Algs 5–6) or ⌊log2 m⌋ (``floor``, the proof of
  Thm 3.2); a user's count reaches 2^ℓ only for ℓ <= ⌊log2 m⌋, so its samples beyond
  2^⌊log2 m⌋ are never released;
* levels 0 and 1 hold single samples: they are never projected (their range [0, 1] is
  within every interval) and Alg. 6 never needs a prior for them;
* k_ℓ, the number of arrays of PrivateMedian, is an integer: ⌈(32L/ε) ln(3L 2^(ℓ/2)/δ)⌉.

δ in the equations is the paper's failure probability, the option ``failure_probability``
(the platform's ``delta`` is a DP δ: advanced composition's δ̃ here).
"""

from __future__ import annotations

import math

import numpy as np

from ..components.noise import kind_code, stairs
from ..components.tree import depth
from . import kernel
from .config import ContinualConfig
from .kernel import Parameters


def log_m(m: int) -> float:
    """"log m" inside the paper's logarithms: max(log2 m, 1) (m = 1 would give ln 0)."""
    return max(math.log2(m), 1.0)


def level_count(config: ContinualConfig) -> int:
    """L: ⌈log2 m⌉ or ⌊log2 m⌋ (``level_count``)."""
    exact = math.log2(config.max_samples)
    return math.ceil(exact - 1e-12) if config.level_count == "ceil" else math.floor(
        exact + 1e-12)


def coordinate_epsilon(config: ContinualConfig) -> float:
    """ε₀ of each of the d coordinates: ε/d (basic composition), or with advanced
    composition the larger of ε/d and the ε₀ at which d-fold composition is (ε, δ̃)-DP
    (δ̃ the option ``delta``) by Dwork, Rothblum & Vadhan's Thm III.3,
    √(2d ln(1/δ̃)) ε₀ + d ε₀ (e^ε₀ − 1) = ε (Sec. 4 writes ε√(d ln(1/δ̃)) up to
    constants). Below d ≈ 2 ln(1/δ̃) the theorem gives less than basic composition,
    which is (ε, δ̃)-DP too.
    """
    d, epsilon = config.dimension, config.epsilon
    if d == 1 or config.composition == "basic":
        return epsilon / d
    from scipy.optimize import brentq  # here: only d > 1 with advanced composition needs it

    root = math.sqrt(2 * d * math.log(1 / config.delta))
    # At ε/root the first term alone is ε: the root lies in [0, ε/root].
    advanced = brentq(lambda e: root * e + d * e * math.expm1(e) - epsilon, 0.0,
                      epsilon / root)
    return max(epsilon / d, advanced)


def median_arrays(level: int, levels: int, epsilon: float, failure: float) -> int:
    """k_ℓ = k(ε/(2L), ℓ, δ/(3L)) = ⌈(32L/ε) ln(3L 2^(ℓ/2)/δ)⌉ (eq. 9, line 9 of Alg. 6),
    δ = ``failure``."""
    L = max(levels, 1)
    return math.ceil(32 * L / epsilon * math.log(3 * L * 2 ** (level / 2) / failure))


def _concentration(size: float, n: int, failure: float, blocks: float = 1.0) -> float:
    """√((size/2) ln(2n·blocks/δ)), δ = ``failure``: with probability 1 − δ/blocks, the
    sum of a block of ``size`` samples of each of n users is this close to its mean
    (Lemma A.1)."""
    return math.sqrt(size / 2 * math.log(2 * n * blocks / failure))


def parameters(config: ContinualConfig) -> Parameters:
    """The method's parameters for one coordinate (eqs. 2–10), with every Laplace scale
    η replaced by ``noise_scale`` where it is set (a control: no noise, or equal noise)."""
    found = calibrated(config)
    if config.noise_scale is None:
        return found
    return found._replace(eta=np.full_like(found.eta, config.noise_scale))


def calibrated(config: ContinualConfig) -> Parameters:
    """The method's parameters for one coordinate as the paper calibrates them to ε
    (eqs. 2–10). Each mechanism's η is Δ/ε' for its elements' sensitivity Δ and the budget
    ε' of one p-sum (``budget``), from which the staircase takes its shape: ε₀/T for the
    naive reads, ε₀/depth for the trees of Algs 2–3, ε₀/((⌊log m⌋ + 1)·depth) for Alg. 4's
    (a user's ⌊log m⌋ + 1 elements), ε₀/(L + 1)/depth and ε₀/(2(L + 1))/depth for the
    levels of Algs 5 and 6."""
    # The paper's δ, its failure probability (not a DP δ).
    n, m, T = config.n_users, config.max_samples, config.t_max
    failure = config.failure_probability
    epsilon = coordinate_epsilon(config)
    L = level_count(config)
    levels = L + 1
    power = 2.0 ** (np.arange(levels) - 1)  # 2^(ℓ−1), the paper's block size
    carried = np.maximum(power, 1).astype(np.int64)  # samples in an element of level ℓ
    no_projection = np.full(levels, np.inf)
    kind = kind_code(config.noise)
    common = dict(epsilon=epsilon, median_epsilon=0.0, initial=config.prior or 0.0, kind=kind)
    method = config.method

    def noise(budget: np.ndarray) -> dict[str, np.ndarray]:
        """Each mechanism's p-sum budget and the staircase's shape at it."""
        return {"budget": budget, "stairs": np.array([stairs(kind, e) for e in budget])}

    def single(mode: int, eta: float, tree: int, budget: float, carried: int = 1,
               centre: float = np.nan, half: float = np.inf) -> Parameters:
        """One mechanism fed at level 0 only (no withhold-release)."""
        zero = np.zeros(1, dtype=np.int64)
        return Parameters(mode, 1, eta=np.array([eta]), mechanism=zero,
                          carried=np.array([carried]), centre=np.array([centre]),
                          half=np.array([half]), threshold=zero, k=zero, depth=tree,
                          **noise(np.array([budget])), **common)

    if method in ("non_private", "alg2"):
        return single(kernel.STREAM, 0.0 if method == "non_private" else m * depth(T) / epsilon,
                      depth(T), epsilon / depth(T))
    if method == "naive_laplace":
        # Each of the T releases is (ε/T)-DP; a user changes the running sum by m at most.
        return single(kernel.NAIVE, m * T / epsilon, 1, epsilon / T)
    if method == "alg3":
        half = _concentration(m, n, failure) + math.sqrt(m)  # eq. (2)
        return single(kernel.BLOCK, 2 * half * depth(n) / epsilon, depth(n),
                      epsilon / depth(n), carried=m, centre=m * config.prior, half=half)
    used = math.floor(math.log2(m) + 1e-12) + 1  # levels a user's count can reach
    threshold = np.zeros(levels, dtype=np.int64)
    k = np.zeros(levels, dtype=np.int64)
    half = no_projection.copy()
    centre = np.full(levels, np.nan)
    if method in ("alg4", "alg5"):
        # Eq. (4): Δ_ℓ = √(2^(ℓ−1)/2 ln(2n log m/δ)) + 2^(ℓ−1)/√m, around 2^(ℓ−1) μ̃.
        for ell in range(2, levels):
            half[ell] = _concentration(power[ell], n, failure, log_m(m)) + power[ell] / math.sqrt(m)
            centre[ell] = power[ell] * config.prior
        if method == "alg4":
            # Eq. (5): one mechanism over at most n(⌊log m⌋ + 1) elements of sensitivity
            # 2Δ at most, Δ = √(m/2 ln(2n log m/δ)) + √m; a user has ⌊log m⌋ + 1 of them.
            bound = _concentration(m, n, failure, log_m(m)) + math.sqrt(m)
            tree = depth(n * used)
            eta = np.array([2 * bound * used * tree / epsilon])
            budget = np.array([epsilon / (used * tree)])
            mechanism = np.zeros(levels, dtype=np.int64)
        else:
            # Eq. (7): mechanism ℓ at ε/(L + 1), its elements' sensitivity 2(√(2^(ℓ−1)/2
            # ln(2n log m/δ)) + √(2^(ℓ−1))).
            tree = depth(n)
            eta = np.array([2 * (_concentration(p, n, failure, log_m(m)) + math.sqrt(p)) * tree
                            / (epsilon / levels) for p in power])
            budget = np.full(levels, epsilon / levels / tree)
            mechanism = np.arange(levels)
    elif method == "alg6":
        tree = depth(n)
        eta = np.empty(levels)
        for ell in range(levels):
            arrays = median_arrays(ell, L, epsilon, failure)
            # Eq. (9), at 2^(ℓ−1) = 1/2 for ℓ = 0 as printed.
            bound = (_concentration(power[ell], n, failure / 3, log_m(m))
                     + math.sqrt(2.0 ** ell * math.log(2 * arrays / (failure / (3 * max(L, 1))))))
            eta[ell] = 2 * bound * tree / (epsilon / (2 * levels))  # eq. (10)
            # A level whose threshold exceeds T never activates: capped there, k and the
            # threshold fit in 64 bits however small ε is.
            k[ell] = min(arrays, T + 1)
            if ell >= 2:
                half[ell] = bound
                threshold[ell] = min(int(carried[ell]) * arrays, T + 1)
        budget = np.full(levels, epsilon / (2 * levels) / tree)
        mechanism = np.arange(levels)
        common["median_epsilon"] = epsilon / (2 * max(L, 1))
    return Parameters(kernel.EXPONENTIAL, levels, eta=eta, mechanism=mechanism,
                      carried=carried, centre=centre, half=half,
                      threshold=threshold, k=k, depth=tree, **noise(budget), **common)


def diversity_need(config: ContinualConfig, epsilon: float) -> np.ndarray:
    """``need[M]`` = (16/ε)(2L ln(3L√M/δ)) for M = 0..m (δ = ``failure_probability``): the
    diversity condition (11) at M_t = M is Σ_u min(m_u(t), M/2) >= (M/2)·need[M]."""
    L = max(level_count(config), 1)
    M = np.arange(config.max_samples + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        need = 16 / epsilon * 2 * L * np.log(3 * L * np.sqrt(M) / config.failure_probability)
    need[0] = 0.0
    return need


__all__ = ["Parameters", "calibrated", "coordinate_epsilon", "diversity_need", "level_count",
           "log_m", "median_arrays", "parameters"]
