"""The algorithms as linear recursions, simulated and analysed in one form.

Every method of the family updates the agents' estimates as

    x_t = p_t x_{t−1} + q_t A x_{t−1} + r_t ξ_t + g_t d_t,        t = 1, ..., T,

from x_0 (ξ(s_i) for MVUE, 0 otherwise), where ξ_t holds the sufficient statistics of
the round's signals (the initial ones for the offline task) and d_t the DP noise. The
ablations change one thing of a paper's algorithm: ``ol_alg4`` runs Alg. 4's weights for
Network DP (its noise calibrated to that sensitivity), ``ol_alg5`` Alg. 5's mixing matrix
C(t) = ((t−2)/t) I + A/t under Signal DP, so that against Alg. 4 (``ol``, Signal DP) only
the mixing matrix changes, the noise being Alg. 4's (Sec. 6: "Algorithm 4 converges faster
than Algorithm 5 (even in the absence of DP noise) because of the underlying mixing
matrices"):

=====================  ==========  ==========  ==========  =========  ===================
method                 p_t         q_t         r_t         g_t        paper
=====================  ==========  ==========  ==========  =========  ===================
mvue                   0           1           0           0          Alg. 1/3, eq. (7):
                                                                      noise once, in x_0
mvue_fresh_noise       0           1           0           1          Sec. 3.1 remark
ol (none, signal)      0           (t−1)/t     1/t         1/t        Alg. 2/4, eq. (10)
ol (network)           (t−2)/t     1/t         1/t         1/t        Alg. 5, eq. (11)
ol_alg4                0           (t−1)/t     1/t         1/t        Sec. 4.1 ablation
ol_alg5                (t−2)/t     1/t         1/t         1/t        Sec. 6 ablation
rizk, rizk_ol          −η          1           η           1          Appendix B
=====================  ==========  ==========  ==========  =========  ===================

Because the recursion is linear, the private estimate is ν_t = μ_t + e_t, with μ_t the
non-private run on the same signals and e_t the same recursion driven by the noise
alone: the cost of privacy is ‖e_t‖ and the cost of decentralization ‖μ_t − target‖.
In A's eigenbasis (A = QΛQᵀ) each direction i evolves by the factor p_t + q_t λ_i, so
E‖e_t‖² follows exactly from E‖e_{t−1}‖² (:func:`exact_privacy_cost`), generalizing the
spectral formula Σ_j V[d_j] Σ_i λ_i^{2t} q_ij² of the proof of Theorem 3.1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Methods whose signals are drawn once (the offline MVUE task); the others draw a new
#: signal every round (online learning of E[ξ(s)]).
OFFLINE = ("mvue", "mvue_fresh_noise", "rizk")
METHODS = (*OFFLINE, "ol", "ol_alg4", "ol_alg5", "rizk_ol")


@dataclass(frozen=True)
class Dynamics:
    """Coefficients of the recursion of one method (see the module docstring)."""

    method: str
    privacy: str
    learning_rate: float
    start_at_signal: bool

    @property
    def offline(self) -> bool:
        return self.method in OFFLINE

    @property
    def has_bound(self) -> bool:
        """Whether the paper bounds this method's errors (Thms 3.1, 4.1, 4.2)."""
        return self.method in ("mvue", "ol")

    @property
    def starts_at_signal(self) -> bool:
        """x_0 = ξ(s) (Alg. 1/3 and its ablation; Rizk et al. if asked), else x_0 = 0."""
        return self.method in ("mvue", "mvue_fresh_noise") or (
            self.method == "rizk" and self.start_at_signal)

    @property
    def noise_at_start(self) -> bool:
        return self.method == "mvue" and self.privacy != "none"

    def coefficients(self, t: int) -> tuple[float, float, float, float]:
        """(p_t, q_t, r_t, g_t) of round t >= 1."""
        method, eta = self.method, self.learning_rate
        private = 0.0 if self.privacy == "none" else 1.0
        if method == "mvue":
            return 0.0, 1.0, 0.0, 0.0
        if method == "mvue_fresh_noise":
            return 0.0, 1.0, 0.0, private
        if method in ("rizk", "rizk_ol"):
            return -eta, 1.0, eta, private
        if method == "ol_alg5" or (method == "ol" and self.privacy == "network"):
            return (t - 2) / t, 1 / t, 1 / t, private / t
        return 0.0, (t - 1) / t, 1 / t, private / t

    def neighbour_weight(self, t: int) -> float:
        """Weight of a_i in agent i's sensitivity at round t (0 under Signal DP).

        Alg. 4 run for Network DP releases ((t−1)/t)·Σ_j a_ij ν_j + ξ/t + d/t: its
        sensitivity max(Δ/t, (t−1)a_i/t) puts weight t − 1 on a_i once the 1/t of the
        noise is factored out (Sec. 4.1).
        """
        if self.privacy != "network":
            return 0.0
        return float(t - 1) if self.method == "ol_alg4" else 1.0

    def signal_weight(self) -> float:
        """Weight of the statistic's sensitivity: η for Rizk et al. (they add η ξ)."""
        return self.learning_rate if self.method in ("rizk", "rizk_ol") else 1.0


def run_recursion(
    dynamics: Dynamics,
    matrix: object,
    replicates: int,
    times: np.ndarray,
    draw_signals: Callable[[int], np.ndarray],
    draw_noise: Callable[[int, np.ndarray], np.ndarray],
    statistic: Callable[[np.ndarray], np.ndarray],
    mean: float,
    observe: Callable[[int, np.ndarray | None, np.ndarray, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Run the recursion of ``dynamics`` (the module docstring) for R replicates; their
    metrics at ``times``: array (len(times), 3, R).

    ``draw_signals(t)`` returns the (n, R) signals of round t (t = 0: the offline task's
    signals); ``draw_noise(t, signals)`` the (n, R) unit-free noise of round t, given the
    signals its sensitivity depends on; ``statistic`` is ξ. Metrics, in order: total
    error ‖ν_t − target‖₂, cost of privacy ‖ν_t − μ_t‖₂ and cost of decentralization
    ‖μ_t − target‖₂, with target 1·m̂ (mean of the initial ξ) offline, 1·m_θ online.
    ``matrix`` is A, or a function of t giving A(t) of a time-varying graph: every method
    then runs with A(t) in place of A (Appendix C.1, eq. (C.4)).

    ``observe(t, signals, mu, error)``, for the privacy audit, sees every round t >= 0:
    its signals, the noiseless estimates μ_t and the noise they carry; the agents send
    ν_t = μ_t + error.
    """
    weights = matrix if callable(matrix) else (lambda t: matrix)
    n = weights(1).shape[0]
    signals = draw_signals(0) if dynamics.offline else None
    xi = statistic(signals) if dynamics.offline else None
    target = _by_replicate(xi).mean(axis=1) if dynamics.offline else mean
    mu = xi.copy() if dynamics.starts_at_signal else np.zeros((n, replicates))
    error = draw_noise(0, signals) if dynamics.noise_at_start else np.zeros((n, replicates))
    out = np.empty((len(times), 3, replicates))
    wanted = {int(t): k for k, t in enumerate(times)}
    if observe is not None:
        observe(0, signals, mu, error)
    for t in range(1, int(times[-1]) + 1):
        p, q, r, g = dynamics.coefficients(t)
        if not dynamics.offline:
            signals = draw_signals(t)
            xi = statistic(signals)
        a = weights(t)
        mu = q * (a @ mu) + p * mu + r * xi
        error = q * (a @ error) + p * error
        if g:
            error += g * draw_noise(t, signals)
        if observe is not None:
            observe(t, signals, mu, error)
        if t in wanted:
            deviation = mu - target
            out[wanted[t]] = [np.linalg.norm(_by_replicate(x), axis=1)
                              for x in (deviation + error, error, deviation)]
    return out


def _by_replicate(x: np.ndarray) -> np.ndarray:
    """(R, n) contiguous: reductions over the agents then sum each replicate in the same
    order whatever R, so a replicate's result does not depend on its block."""
    return np.ascontiguousarray(x.T)


def exact_privacy_cost(dynamics: Dynamics, eigenvalues: np.ndarray,
                       noise_power: Callable[[int], np.ndarray], times: np.ndarray
                       ) -> np.ndarray:
    """√E‖ν_t − μ_t‖² at ``times``: the exact root-mean-square cost of privacy.

    ``noise_power(t)`` gives w_i(t) = Σ_j V[d_{j,t}] q_ji², the noise variance that round
    t puts in eigendirection i (a scalar when every agent has the same variance, since
    Σ_j q_ji² = 1). The noises are independent and zero-mean, so with c_i = p_t + q_t λ_i,
    S_t^i = c_i² S_{t−1}^i + g_t² w_i(t) and E‖e_t‖² = Σ_i S_t^i. For MVUE (noise at t = 0
    only) this is Σ_j V[d_j] Σ_i λ_i^{2t} q_ij², the formula of the proof of Thm 3.1.
    """
    power = np.zeros_like(eigenvalues)
    if dynamics.noise_at_start:
        power = power + noise_power(0)
    out = np.empty(len(times))
    wanted = {int(t): k for k, t in enumerate(times)}
    for t in range(1, int(times[-1]) + 1):
        p, q, _, g = dynamics.coefficients(t)
        power = (p + q * eigenvalues) ** 2 * power
        if g:
            power = power + g**2 * noise_power(t)
        if t in wanted:
            out[wanted[t]] = math.sqrt(float(np.sum(power)))
    return out


def expected_max_abs(n: int, mean: float, sigma: float) -> float:
    """E[M_n] = E max_i |ξ(s_i)| for n i.i.d. ξ ~ N(mean, σ²) (Thm 3.1's M_n)."""
    from scipy import integrate, stats  # here: planning a cell needs no scipy

    def tail(x: float) -> float:
        inside = stats.norm.cdf((x - mean) / sigma) - stats.norm.cdf((-x - mean) / sigma)
        return 1.0 - inside**n

    top = abs(mean) + sigma * (10.0 + math.sqrt(2.0 * math.log(n + 1.0)))
    value, _ = integrate.quad(tail, 0.0, top, limit=200, points=[abs(mean)])
    return value


def bounds(dynamics: Dynamics, n: int, beta_star: float, total_variance: float,
           sigma: float, mean: float, times: np.ndarray) -> np.ndarray:
    """The paper's upper bounds at ``times``: (len(times), 3) for TE, CoP and CoD.

    ``total_variance`` is Σ_j V[d_j] (the variance of one round's noise, summed over
    agents; expected over the signals when it depends on them) and ``sigma`` the
    standard deviation of ξ(s). Theorem 3.1 / Corollary 3.2 (eq. (8), with E[M_n]) for
    ``mvue``; Theorem 4.1 for ``ol`` without Network DP and Theorem 4.2 with it (only
    these have bounds: :attr:`Dynamics.has_bound`).
    """
    t = times.astype(np.float64)
    if dynamics.method == "mvue":
        decay = beta_star**t
        privacy = (1.0 + math.sqrt(n - 1) * decay) * math.sqrt(total_variance)
        decentralization = math.sqrt(n * (n - 1)) * decay * expected_max_abs(n, mean, sigma)
    else:
        # Thm 4.2 (Alg. 5, Network DP) or Thm 4.1 (Alg. 4).
        gap = 3.0 - 2.0 * beta_star if dynamics.privacy == "network" else 1.0 - beta_star**2
        spread = 1.0 + math.sqrt((n - 1) / gap)
        privacy = np.sqrt(t * total_variance) / t * spread
        decentralization = np.sqrt(n * t * sigma**2) / t * spread
    privacy = np.broadcast_to(privacy, t.shape)
    return np.stack([privacy + decentralization, privacy, decentralization], axis=1)

