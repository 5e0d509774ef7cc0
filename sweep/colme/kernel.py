"""The time loop of Algorithm 1 (Private-ColME) and its metrics, compiled.

State lives in arrays indexed [a, b] (receiver a, sender b); there are no per-agent
objects. Per time step and agent the work is O(1) (O(log κ) for PM-II), for both decision
rule refresh modes:

* ``on_query`` tests b once, when b answers (Sec. III-C, "t = t_κ"), and stores χ.
* ``every_step`` re-tests every b at every t (Algorithm 1, line 13). The outcome of a test
  is seen only by the estimate μ_a^(t) (line 14) and, under rRR, by the next choice of
  agent. Since χ_a^(t)(b) depends on nothing but the current state, the loop evaluates it
  exactly where it is seen: for all b at the checkpoints, and for the candidates rRR walks
  past when choosing. The results equal those of re-testing all pairs at all t (the
  literal transcription in the tests does that).

Random draws come from one ``numpy.random.Generator`` per replicate in a fixed order: at
each t, first the data of agents 0..M-1, then per query of agents 0..M-1 one p-sum noise
and, with ``variance=shared``, one variance noise.

The loop is compiled once per :class:`Scheme` (the choices of family, noise, mechanism,
weights, schedule, class estimator, refresh and variance scheme): they are
compile-time constants, so each kernel carries only the branches of its own scheme. This
halves compile time and speeds the loop up by a third against passing them as run-time
arguments. Numba caches every specialization on disk.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numba
import numpy as np

from ..components.noise import draw_std, kind_code
from .config import (
    KNOWN,
    NO_MECHANISM,
    NOISES,
    ON_QUERY,
    ORACLE,
    RELEASES_DOF,
    RR,
    SHARED,
    TEST,
    TRIANGULAR,
    UNIFORM,
)
from .statistic import (
    ESTIMATE,
    RAW_ESTIMATE,
    VAR,
    Query,
    T,
    couple,
    release,
    set_variance,
)
from .variance import passes_welch, record_p_sum, update_estimate, welch_cuts, welch_samples

# Columns of the metrics row measured at a checkpoint.
MSE, FALSE_EXCLUSION, FALSE_INCLUSION, LOCAL_MSE, IDEAL_MSE = range(5)
N_METRICS = 5


@numba.njit(cache=True, inline="always")
def draw_datum(rng: np.random.Generator, distribution: int, mean: float, bound: float) -> float:
    """One sample X_a^(t) of a bounded data family on [mean - bound, mean + bound]."""
    if distribution == UNIFORM:
        return mean + bound * (2.0 * rng.random() - 1.0)
    if distribution == TRIANGULAR:
        return mean + bound * (rng.random() + rng.random() - 1.0)
    return mean + bound if rng.random() < 0.5 else mean - bound


@numba.njit(cache=True, inline="always")
def own_variance(data_sum: float, square_sum: float, t: int, sigma2: float,
                 variance: int) -> float:
    """Var[X̄_a^(t)]: σ_a²/t, or V_a^(t)/t with a's sample variance (+∞ before it exists)."""
    if t < 1 or (variance != KNOWN and t < 2):
        return math.inf
    if variance == KNOWN:
        return sigma2 / t
    return max(square_sum - data_sum * data_sum / t, 0.0) / ((t - 1.0) * t)


class Audit(NamedTuple):
    """What the privacy audit hands a replicate and reads back, indexed [t - 1, a]
    (receiver a, its query at time t); zero-size arrays in a sweep.

    The audit couples two runs on neighbouring data (``data``) by handing the second
    the releases of the first (``given``, and with ``variance=shared`` also
    ``given_variance``), and compares everything an observer sees (``released``,
    ``released_variance``, ``queried``): see :func:`sweep.colme.engine.run_replicate`.
    The variance fields may be left out (zero-size).
    """

    # X_a^(t): where finite, in place of the draw (which is still made); where NaN, the
    # draw is written there
    data: np.ndarray
    given: np.ndarray  # the release a receives at t where finite, in place of b's own
    # out, where a queried someone at t (the rest left as given): the release it
    # received, and whom it queried
    released: np.ndarray
    queried: np.ndarray
    # Sch-Var-1 (Sec. V-A): V_{b→a} of eq. (8) a receives at t where finite, in place of
    # b's own; and out, the V_{b→a} it received (NaN at t = 1, when b has no sample
    # variance to send)
    given_variance: np.ndarray = np.zeros((0, 0))
    released_variance: np.ndarray = np.zeros((0, 0))


def no_audit() -> Audit:
    """The zero-size :class:`Audit` of a sweep's replicates."""
    empty = np.zeros((0, 0))
    return Audit(empty, empty, empty, np.zeros((0, 0), dtype=np.int64), empty, empty)


class State(NamedTuple):
    """Algorithm 1's state of one replicate, in arrays indexed [a] (agent a) or [a, b]
    (receiver a, sender b); the kernels of :func:`compile_scheme` update it in place."""

    labels: np.ndarray  # class of each agent
    data_sum: np.ndarray  # Σ_{i<=t} X_a^(i)
    square_sum: np.ndarray  # Σ_{i<=t} (X_a^(i))² (estimated variances only)
    last: np.ndarray  # the agent a queried last (-1 before its first query)
    kappa: np.ndarray  # κ_{b→a}, the releases of b to a so far
    pair: np.ndarray  # T_{b→a}, Var[T_{b→a}] and their sums, see :mod:`sweep.colme.statistic`
    levels: np.ndarray  # PM-II's live p-sums per level
    chi: np.ndarray  # χ_a(b) of the last test made on b's answer (``on_query``)
    audit: Audit


class Constants(NamedTuple):
    """The numbers of a scenario that no time step changes."""

    means: np.ndarray  # μ_c, the mean of each class c
    sigma2: float  # σ², every agent's data variance, known with ``variance=known`` (eq. (3))
    bound: float  # the data's bound: X_a^(t) lies in [μ_a - bound, μ_a + bound]
    sigma_dp: float  # σ_DP, the standard deviation of each p-sum noise (Sec. IV)
    sigma_variance: float  # the same for Sch-Var-1's variance noise (Sec. V-A)
    # The staircase's shape at a release's ε (sweep.components.noise.stairs), else unused
    stairs: tuple[float, float, float, float, float]
    theta0: float  # θ_t = θ0/ln(t + 1), the decision rule's level (Sec. III-C1)


# The small structures below hold scalars only, so that building and reading them inside
# the loops costs nothing: one holding an array is reference-counted at each read, which
# keeps the loops from being unrolled (and State is therefore unpacked before the loops).
class Threshold(NamedTuple):
    """The decision rule at time t: its level θ_t and the normal quantile
    z_t² = Φ⁻¹(1 - θ_t/2)² (Sec. III-C1)."""

    t: int
    theta: float
    z2: float


class Peer(NamedTuple):
    """What agent a knows of agent b != a when it tests b (Sec. III-C)."""

    same_class: bool  # b is in a's class (what the oracle class estimator knows)
    stored: int  # χ of the last test made on b's answer (``on_query``)
    gap2: float  # (X̄_a^(t) - T_{b→a})²
    # Var[T_{b→a}]: +∞ until a has heard from b, or has a usable estimate of σ_b² (b then
    # belongs to C_a)
    other: float
    samples: float  # n_b: Var̂[T_{b→a}] has n_b - 1 degrees of freedom (welch_samples)


@numba.njit(cache=True, inline="always")
def decide(gap2: float, own: float, other: float, samples: float, cuts: tuple[float, float],
           threshold: Threshold, bounds: np.ndarray, variance: int) -> bool:
    """The decision rule's test at ``threshold``: Sec. III-C1 (known variance, squared) or
    the Welch test of Sec. III-C2 (estimated variances; ``cuts`` from ``welch_cuts``, and
    ``bounds`` those of its quantiles over the current stretch of time, from
    :func:`~sweep.colme.variance.welch_bounds`)."""
    if variance == KNOWN:
        return gap2 < threshold.z2 * (own + other)
    return passes_welch(gap2, own, other, threshold.t, samples, cuts, bounds, threshold.theta)


@numba.njit(cache=True, inline="always")
def in_estimate(peer: Peer, own: float, threshold: Threshold, bounds: np.ndarray,
                estimator: int, refresh: int, variance: int) -> bool:
    """χ_a^(t)(b; θ_t) for the ``peer`` b at t = ``threshold.t``; ``own`` = Var[X̄_a^(t)].

    ``on_query`` reads the χ of the last test made on b's answer, ``every_step`` tests b
    now. The last three arguments are codes of :mod:`sweep.colme.config`, constants of a
    compiled scheme.
    """
    if estimator == ORACLE:
        return peer.same_class
    if peer.other == math.inf:
        return True
    if refresh == ON_QUERY:
        return peer.stored != 0
    cuts = (0.0, 0.0)
    if variance != KNOWN:
        cuts = welch_cuts(bounds, peer.samples)
    return decide(peer.gap2, own, peer.other, peer.samples, cuts, threshold, bounds, variance)


class Scheme(NamedTuple):
    """Integer codes (see :mod:`sweep.colme.config`) fixed when a kernel is compiled."""

    distribution: int
    noise: int
    mechanism: int
    weights: int
    schedule: int
    estimator: int
    refresh: int
    variance: int
    prior: int
    inferred_form: int
    welch_dof: int


class Kernels(NamedTuple):
    """The compiled time loop and checkpoint metrics of one scheme."""

    advance: Callable[[int, int, np.ndarray, np.ndarray, np.random.Generator, State,
                       Constants], None]
    measure: Callable[[int, float, np.ndarray, State, Constants], np.ndarray]


@functools.cache
def compile_scheme(scheme: Scheme) -> Kernels:
    """Kernels of one scheme; the closure constants below are folded in by the compiler.

    The codes stay plain integers of the closure, never fields of a structure: the
    compiler prunes the branches of other schemes only where it sees a constant (read from
    a tuple, they are all compiled, and compilation takes twice as long).
    """
    (distribution, noise, mechanism, weights, schedule, estimator, refresh, variance,
     prior, form, dof) = scheme
    kind = kind_code(NOISES[noise])  # the noise component's code of the configured noise

    # IEEE division (error_model="numpy"): every division by a possible zero is guarded
    # above, and Python's zero checks would keep unused divisions alive.
    @numba.njit(cache=True, error_model="numpy")
    def advance(t_first: int, t_last: int, z2: np.ndarray, bounds: np.ndarray,
                rng: np.random.Generator, state: State, constants: Constants) -> None:
        """Run time steps t_first..t_last of Algorithm 1 for every agent.

        ``z2[t - t_first + 1]`` is z_t² for t_first - 1 <= t <= t_last; ``bounds`` holds
        the Welch bounds for the same times. ``rng`` draws the data and noises.
        """
        labels, data_sum, square_sum = state.labels, state.data_sum, state.square_sum
        last, kappa, pair, levels, chi = (state.last, state.kappa, state.pair, state.levels,
                                          state.chi)
        data, given, released_at, queried, given_variance, variance_at = state.audit
        # Zero-size in a sweep, where these branches are never taken.
        handed, handing, recording = data.size > 0, given.size > 0, released_at.size > 0
        handing_variance, recording_variance = given_variance.size > 0, variance_at.size > 0
        means, sigma2, sigma_dp = constants.means, constants.sigma2, constants.sigma_dp
        n_agents = data_sum.size
        sigma2_dp = sigma_dp * sigma_dp
        target = np.empty(n_agents, dtype=np.int64)
        for t in range(t_first, t_last + 1):
            # Line 8: choose_agent(C_a^(t-1)); RR takes the next index, rRR the next member.
            prev = t - 1
            before = Threshold(prev, constants.theta0 / math.log1p(prev) if prev > 0 else 1.0,
                               z2[t - t_first])
            for a in range(n_agents):
                target[a] = -1
                b = last[a]
                mean_a = own = 0.0
                if schedule != RR and prev > 0:
                    mean_a = data_sum[a] / prev
                    own = own_variance(data_sum[a], square_sum[a], prev, sigma2, variance)
                for _ in range(n_agents):
                    b = b + 1 if b + 1 < n_agents else 0
                    if b == a:
                        continue
                    if schedule == RR or in_estimate(
                        Peer(labels[a] == labels[b], chi[a, b], (mean_a - pair[a, b, T]) ** 2,
                             pair[a, b, VAR], welch_samples(pair, kappa, a, b, variance, dof)),
                        own, before, bounds, estimator, refresh, variance,
                    ):
                        target[a] = b
                        break
            # Lines 5-6: receive.
            for a in range(n_agents):
                x = draw_datum(rng, distribution, means[labels[a]], constants.bound)
                if handed:
                    if math.isnan(data[t - 1, a]):
                        data[t - 1, a] = x
                    else:
                        x = data[t - 1, a]
                data_sum[a] += x
                if variance != KNOWN:
                    square_sum[a] += x * x
            # Lines 9-11: query; b releases its privatized mean to a.
            now = Threshold(t, constants.theta0 / math.log1p(t), z2[t - t_first + 1])
            inv_t = 1.0 / t
            cuts = (0.0, 0.0)
            if variance != KNOWN and t > 1 and dof != RELEASES_DOF:
                cuts = welch_cuts(bounds, t)  # every test of this step has t_κ = t
            for a in range(n_agents):
                b = target[a]
                if b < 0:
                    continue  # rRR with C_a^(t-1) = {a}: nobody to query
                last[a] = b
                k = kappa[a, b] + 1
                kappa[a, b] = k
                fresh = 0.0
                fresh_variance = 0.0
                if mechanism != NO_MECHANISM:
                    fresh = draw_std(rng, kind, sigma_dp, constants.stairs)
                    if variance == SHARED:
                        fresh_variance = draw_std(rng, kind, constants.sigma_variance,
                                                  constants.stairs)
                query = Query(a, b, k, t, data_sum[b], square_sum[b], fresh, fresh_variance)
                handed_release = given[t - 1, a] if handing else math.nan
                released = release(pair, levels, query, sigma2_dp, mechanism, weights,
                                   handed_release)
                if handing and not math.isnan(handed_release):
                    query = couple(pair, levels, query, handed_release, mechanism)
                if recording:
                    released_at[t - 1, a] = released
                    queried[t - 1, a] = b
                if variance == KNOWN:
                    sigma2_b = sigma2
                else:
                    record_p_sum(pair, levels, query, mechanism, form)
                    update_estimate(pair, query, released, sigma2_dp, variance, prior, form,
                                    given_variance[t - 1, a] if handing_variance
                                    else math.nan)
                    if variance == SHARED and recording_variance:
                        variance_at[t - 1, a] = pair[a, b, RAW_ESTIMATE]
                    sigma2_b = pair[a, b, ESTIMATE]
                set_variance(pair, a, b, sigma2_b)
                if estimator == TEST and refresh == ON_QUERY:
                    other = pair[a, b, VAR]
                    samples = float(t)
                    if dof == RELEASES_DOF and other < math.inf:
                        samples = welch_samples(pair, kappa, a, b, variance, dof)
                        cuts = welch_cuts(bounds, samples)
                    chi[a, b] = other == math.inf or decide(
                        (data_sum[a] * inv_t - pair[a, b, T]) ** 2,
                        own_variance(data_sum[a], square_sum[a], t, sigma2, variance),
                        other, samples, cuts, now, bounds, variance,
                    )

    @numba.njit(cache=True, error_model="numpy")
    def measure(t: int, z2: float, bounds: np.ndarray, state: State,
                constants: Constants) -> np.ndarray:
        """Metrics at time t: the MSEs of Algorithm 1, local and ideal, and the class errors.

        μ_a^(t) combines X̄_a^(t) and the statistics of C_a^(t) \\ {a} with the weights of
        eq. (3), or eq. (5) with estimated variances; an agent with Var = ∞ has weight 0.
        The error rates pool all ordered pairs a != b: false exclusions over pairs of the
        same class, false inclusions over pairs of different classes (NaN where there are
        none). ``z2`` is z_t² and ``bounds`` the Welch bounds at t.
        """
        labels, data_sum, square_sum = state.labels, state.data_sum, state.square_sum
        pair, kappa, chi, means = state.pair, state.kappa, state.chi, constants.means
        n_agents = data_sum.size
        n_classes = means.size
        threshold = Threshold(t, constants.theta0 / math.log1p(t), z2)
        out = np.zeros(N_METRICS)
        class_sum = np.zeros(n_classes)
        class_size = np.zeros(n_classes)
        for a in range(n_agents):
            class_sum[labels[a]] += data_sum[a]
            class_size[labels[a]] += 1.0
        member = np.empty(n_agents, dtype=np.bool_)
        same = excluded = other = included = 0
        for a in range(n_agents):
            mean_a = data_sum[a] / t
            own = own_variance(data_sum[a], square_sum[a], t, constants.sigma2, variance)
            precision = 0.0
            weighted = 0.0
            for b in range(n_agents):
                member[b] = b != a and in_estimate(
                    Peer(labels[a] == labels[b], chi[a, b], (mean_a - pair[a, b, T]) ** 2,
                         pair[a, b, VAR], welch_samples(pair, kappa, a, b, variance, dof)),
                    own, threshold, bounds, estimator, refresh, variance,
                )
                if member[b] and pair[a, b, VAR] < math.inf:
                    w = 1.0 / pair[a, b, VAR]
                    precision += w
                    weighted += w * pair[a, b, T]
            # Counted in a pass of their own: mixed into the loop above, the data-dependent
            # branches slow it down thirtyfold.
            for b in range(n_agents):
                if b == a:
                    continue
                if labels[b] == labels[a]:
                    same += 1
                    excluded += not member[b]
                else:
                    other += 1
                    included += member[b]
            if 0.0 < own < math.inf:
                estimate = (mean_a / own + weighted) / (1.0 / own + precision)
            else:  # no usable variance of a's own mean (t = 1 with estimated variances)
                estimate = mean_a
            truth = means[labels[a]]
            out[MSE] += (estimate - truth) ** 2
            out[LOCAL_MSE] += (mean_a - truth) ** 2
            c = labels[a]
            out[IDEAL_MSE] += (class_sum[c] / (class_size[c] * t) - truth) ** 2
        out[MSE] /= n_agents
        out[LOCAL_MSE] /= n_agents
        out[IDEAL_MSE] /= n_agents
        out[FALSE_EXCLUSION] = excluded / same if same else np.nan
        out[FALSE_INCLUSION] = included / other if other else np.nan
        return out

    return Kernels(advance, measure)
