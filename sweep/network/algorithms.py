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


class Releases:
    """What the agents release and send, round by round: the privacy audit's hook on
    :func:`run_recursion` (the coupling of a privacy proof, issue 36).

    Agent i sends ν_{i,t} = F_{i,t}(ν_{i,t−1}) + G_{i,t}({ν_{j,t−1}}) + H_{i,t}(s_{i,t})
    + d_{i,t} (Sec. 2.3, eq. (6)); here F = p_t ν_{i,t−1}, G = q_t (A ν_{t−1})_i (over
    N_i = {j : a_ij ≠ 0}, the paper's notation, which holds i: its own estimate is public
    either way) and H = r_t ξ_{i,t}, with the noise g_t d_{i,t}. What a DP mechanism releases is
    ψ_{i,t} = H + noise under Signal DP (M^S_{i,t}: Alg. 3's x_0 = ξ(s) + d, the noisy
    signals (ξ_t + d_t)/t of Algs 4 and 5, Rizk et al.'s η ξ + d) and G + H + noise under
    Network DP (M^N_{i,t}, which protects the neighbours' estimates too); the rest of the
    message is computed from messages already sent. A round without noise (g_t = 0, and
    round 0 unless MVUE noises x_0) releases nothing: its message is computed in full.

    The recursion carries the noiseless estimates and the noise apart (the metrics need
    both); with a :class:`Releases` it also forms every message as above, from ν_{t−1}
    and ψ_t. Where ``values`` is NaN it releases what it computes (ψ = noiseless part +
    the noise drawn) and records it; where it is finite, that value is released instead,
    and the run carries the noise that makes it exact, ψ − noiseless part. A run handed
    every release of another (:meth:`replay`) therefore sends the same messages, bit for
    bit, unless something other than a release carries its private inputs into them.

    Attributes
    ----------
    values : array (T + 1, n, R)
        ψ_t of every agent and replicate at rounds with noise (NaN elsewhere).
    sent : array (T + 1, n, R)
        The messages ν_t, rounds 0..T.
    noise : array (T + 1, n, R)
        The noise each release carries, g_t d_t (d of x_0 at round 0): the one drawn, or
        the one a handed release implies; NaN at rounds without noise.
    """

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.sent = np.full_like(values, np.nan)
        self.noise = np.full_like(values, np.nan)

    @classmethod
    def record(cls, rounds: int, n: int, replicates: int) -> Releases:
        """Record rounds 0..``rounds`` of n agents and R replicates."""
        return cls(np.full((rounds + 1, n, replicates), np.nan))

    def replay(self) -> Releases:
        """Hand a run every release recorded here (a copy: the run records too)."""
        return Releases(self.values.copy())

    def _release(self, t: int, own: np.ndarray | None, noiseless: np.ndarray,
                 fresh: np.ndarray | None) -> np.ndarray | None:
        """Send round t's messages: ``own`` (F, None at round 0) plus the release of
        ``noiseless`` and the noise drawn, ``fresh`` (None: no release); returns the noise
        the run carries."""
        if fresh is None:  # nothing released: the message is computed in full
            self.sent[t] = noiseless if own is None else own + noiseless
            return None
        given = self.values[t]
        handed = ~np.isnan(given)
        release = np.where(handed, given, noiseless + fresh)
        noise = np.where(handed, release - noiseless, fresh)
        self.values[t], self.noise[t] = release, noise
        self.sent[t] = release if own is None else own + release
        return noise

    def start(self, x0: np.ndarray, noise: np.ndarray, released: bool) -> np.ndarray:
        """Round 0: x_0 = ``x0`` (ξ(s) or 0) plus ``noise``, which MVUE releases
        (``released``) and the other methods do not have (zeros); returns the noise the
        run carries."""
        if not released:
            self._release(0, None, x0, None)
            return noise
        return self._release(0, None, x0, noise)

    def send(self, t: int, a: object, dynamics: Dynamics, xi: np.ndarray,
             fresh: np.ndarray | None) -> np.ndarray | None:
        """Round t >= 1 with weights ``a``, statistics ξ_t and the noise drawn, g_t d_t
        (None without noise); returns the noise the run carries."""
        p, q, r, _ = dynamics.coefficients(t)
        previous = self.sent[t - 1]
        heard = q * (a @ previous)  # G: the neighbours' estimates, weighted
        if dynamics.privacy == "network":  # M^N: G is an input of the mechanism
            return self._release(t, p * previous, heard + r * xi, fresh)
        return self._release(t, heard + p * previous, r * xi, fresh)


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
    releases: Releases | None = None,
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
    ν_t = μ_t + error. ``releases`` (:class:`Releases`), for its coupling, also forms
    every message as the agents do, from the messages sent before and the round's
    releases, which it records or is handed; the run then carries the noise that makes
    each handed release exact. Neither changes the metrics of a run that draws its
    releases.
    """
    weights = matrix if callable(matrix) else (lambda t: matrix)
    n = weights(1).shape[0]
    signals = draw_signals(0) if dynamics.offline else None
    xi = statistic(signals) if dynamics.offline else None
    target = _by_replicate(xi).mean(axis=1) if dynamics.offline else mean
    mu = xi.copy() if dynamics.starts_at_signal else np.zeros((n, replicates))
    error = draw_noise(0, signals) if dynamics.noise_at_start else np.zeros((n, replicates))
    if releases is not None:
        error = releases.start(mu, error, dynamics.noise_at_start)
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
        fresh = g * draw_noise(t, signals) if g else None
        if releases is not None:
            fresh = releases.send(t, a, dynamics, xi, fresh)
        if fresh is not None:
            error += fresh
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

