"""The theorems' rounds K, iterations T, thresholds and error guarantees.

Every function takes the quantities the theorems name, so that the tests can check them by
hand:

* Thm 4.1 (AM/GM rounds): AM K >= |Θ̄| log(|Θ*|/(1 − β)), GM K >= |Θ*| log(|Θ̄|/α); for
  any MLE set, K >= |Θ| log(|Θ|/min{α, 1 − β}) (the remark after the theorem);
* Thm 4.2 (AM/GM iterations): T >= max{log(2ϱn/l)/log 2, log(|Θ|²(n − 1)(nΓ + V)/(2αϱ√K))
  /log(1/a*)} (GM) and the same with (n − 1)K(nΓ + V)/(2 log(1/(1 − β))ϱ) (AM);
* Thm 4.3 (two thresholds): τ₁ = (1 + π₁)p₁, K >= log(|Θ̄|/α)/(2π₁²); τ₂ = (1 − π₂)p₂,
  K >= log(|Θ*|/(1 − β))/(2π₂²); with p₁ = 1 − 1/|Θ*| and p₂ = 1/|Θ̄|; error bounds
  |Θ̄|e^{−2Kπ₁²} and |Θ*|e^{−2Kπ₂²} (eqs (29)–(30));
* Thm 4.5 (two thresholds, iterations): Thm 4.2's T with 2αϱ√K replaced by 2q₁ϱ and by
  2(1 − q₂)ϱ; here q₁ = p₁ and q₂ = p₂, the thresholds of Thm 4.3;
* Thm 4.7 (online learning): T = (log|Θ| + |Θ|(√2/n)(nQ + V)(max ξ + √(Ξ/η))
  /(2η(1 − |λ₂(A)|)))/(l/n), from the end of its proof in Sec. 11.3.

K and T are integers: the smallest that satisfy the inequalities (ceilings), at least 1.
A term whose logarithm's argument is at most 1 asks for no iteration; a graph whose
a* = 0 (every agent's log-belief reaches the average in one step) asks for none either.
"""

from __future__ import annotations

import math

import numpy as np


def theorem_rounds(method: str, mle_states: int, others: int, alpha: float, beta: float,
                   pi_1: float, pi_2: float, rule: str) -> int:
    """K of Thm 4.1 (``am``, ``gm``, and the hypothesis test at its level) or Thm 4.3
    (``threshold_1``, ``threshold_2``).

    ``mle_states`` is |Θ*| and ``others`` |Θ̄|; ``rule="agnostic"`` uses |Θ| for both
    inside the logarithms and as the factor (the bounds that hold without knowing Θ*).
    """
    if rule == "agnostic":
        size = mle_states + others
        mle_states = others = size
        if method in ("am", "gm"):
            return _ceil(size * math.log(size / min(alpha, 1.0 - beta)))
    if method == "am":
        return _ceil(others * math.log(mle_states / (1.0 - beta)))
    if method == "gm":
        return _ceil(mle_states * math.log(max(others, 1) / alpha))
    if method == "threshold_1":
        return _ceil(math.log(max(others, 1) / alpha) / (2.0 * pi_1**2))
    return _ceil(math.log(mle_states / (1.0 - beta)) / (2.0 * pi_2**2))


def counting_probabilities(mle_states: int, others: int, counting: str) -> tuple[float, float]:
    """(p₁, p₂) of Thm 4.3: the most a non-MLE state's frequency and the least an MLE
    state's can be expected to be, as T → ∞.

    ``printed``: 1 − 1/|Θ*| and 1/|Θ̄|, from Lemma 9.1 applied to |Θ*| (|Θ̄|) draws.
    ``corrected``: 1 − 1/(|Θ*| + 1) and 1/(|Θ̄| + 1): an MLE state θ* wins a round when
    its noise beats those of the |Θ̄| others, one among |Θ̄| + 1 i.i.d. draws (Lemma 9.1
    with n = |Θ̄| + 1); the printed p₁ is 0 when |Θ*| = 1, which admits every state.
    """
    extra = 1 if counting == "corrected" else 0
    return 1.0 - 1.0 / (mle_states + extra), 1.0 / (max(others, 1) + extra)


def theorem_iterations(method: str, n: int, states: int, gap: float, largest: float,
                       deviations: float, a_star: float, rounds: int, alpha: float,
                       beta: float, rho: float, q_1: float, q_2: float) -> int:
    """T of Thm 4.2 (``am``, ``gm``, ``mle``) or Thm 4.5 (``threshold_1``, ``threshold_2``).

    ``gap`` is l_{n,Θ} (the least Λ(θ*) − Λ(θ̄)), ``largest`` Γ_{n,Θ} (eq. (9)),
    ``deviations`` V_{n,Θ} = Σ_i √V[d_i] and ``a_star`` the SLEM of (A + I)/2.
    """
    first = math.log(2.0 * rho * n / gap) / math.log(2.0) if gap > 0 else 0.0
    spread = states**2 * (n - 1) * (n * largest + deviations)
    if method in ("gm", "mle"):
        argument = spread / (2.0 * alpha * rho * math.sqrt(rounds))
    elif method == "am":
        argument = spread * rounds / (2.0 * math.log(1.0 / (1.0 - beta)) * rho)
    elif method == "threshold_1":
        argument = spread / (2.0 * q_1 * rho)
    else:
        argument = spread / (2.0 * (1.0 - q_2) * rho)
    second = (math.log(argument) / math.log(1.0 / a_star)
              if a_star > 0 and argument > 1 else 0.0)
    return _ceil(max(first, second))


def online_iterations(n: int, states: int, gap: float, spread: float, deviations: float,
                      rate: float, variance: float, second: float, eta: float) -> int:
    """T of Thm 4.7 (the expression at the end of Sec. 11.3).

    ``gap`` is l_{n,Θ} = min_θ̄ Σ_i ξ_i D_KL, ``spread`` Q_{n,Θ} (eq. (11)), ``rate`` max ξ_i,
    ``variance`` Ξ_n = Σ_i V[n_{i,t}], ``second`` |λ₂(A)| and ``eta`` η.
    """
    if gap <= 0:
        return 1
    v_prime = math.sqrt(2.0) / n * (n * spread + deviations) * (rate + math.sqrt(
        variance / eta))
    numerator = math.log(states) + states * v_prime / (2.0 * eta * (1.0 - second))
    return _ceil(numerator / (gap / n))


def belief_threshold(rho: float) -> float:
    """τ = 1/(1 + e^ϱ) of Algs 1–2 for a log-belief threshold ϱ."""
    return 1.0 / (1.0 + math.exp(rho))


def two_threshold_bound(method: str, mle_states: int, others: int, rounds: int,
                        pi_1: float, pi_2: float) -> float:
    """Thm 4.3's error bounds, eqs (29)–(30): |Θ̄|e^{−2Kπ₁²} (type I of Θ̂^{thres,1})
    and |Θ*|e^{−2Kπ₂²} (type II of Θ̂^{thres,2})."""
    if method == "threshold_1":
        return others * math.exp(-2.0 * rounds * pi_1**2)
    return mle_states * math.exp(-2.0 * rounds * pi_2**2)


def slem(eigenvalues: np.ndarray) -> tuple[float, float]:
    """(a*, b*): the second-largest eigenvalue modulus of (A + I)/2 and of A, from A's
    eigenvalues (:attr:`sweep.components.graphs.Network.eigenvalues`)."""
    moduli = np.sort(np.abs(eigenvalues))[::-1]
    lazy = np.sort(np.abs((eigenvalues + 1.0) / 2.0))[::-1]
    return float(lazy[1]), float(moduli[1])


def _ceil(value: float) -> int:
    # A hair of rounding must not add a round: ⌈3.0000000000004⌉ is 3.
    return max(1, math.ceil(value - 1e-9))


__all__ = ["belief_threshold", "counting_probabilities", "online_iterations", "slem",
           "theorem_iterations", "theorem_rounds", "two_threshold_bound"]
