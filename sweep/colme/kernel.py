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
each t, first the data of agents 0..M-1, then one p-sum noise per query of agents
0..M-1.

The loop is compiled once per :class:`Scheme` (the choices of family, noise, mechanism,
weights, schedule, class estimator and refresh): they are compile-time constants, so
each kernel carries only the branches of its own scheme. This halves compile time and
speeds the loop up by a third against passing them as run-time arguments. Numba caches
every specialization on disk.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numba
import numpy as np

from .config import (
    NO_MECHANISM,
    ON_QUERY,
    ORACLE,
    RR,
    TEST,
    TRIANGULAR,
    UNIFORM,
)
from .mechanisms import draw_noise
from .statistic import VAR, T, release

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
def passes_test(mean_a: float, var_mean_a: float, stat: float, var_stat: float, z2: float) -> bool:
    """Known-variance test of Sec. III-C1: |X̄_a - T| < z √(σ_a²/t + Var[T]), squared."""
    gap = mean_a - stat
    return gap * gap < z2 * (var_mean_a + var_stat)


@numba.njit(cache=True, inline="always")
def in_estimate(
    same_class: bool,
    heard: bool,
    stored: int,
    mean_a: float,
    var_mean_a: float,
    stat: float,
    var_stat: float,
    z2: float,
    estimator: int,
    refresh: int,
) -> bool:
    """χ_a^(t)(b; θ_t) for b != a, with z² = Φ⁻¹(1 - θ_t/2)².

    Takes scalars only: array arguments would cost reference counting on every call.
    ``heard`` tells whether b has answered a yet; ``stored`` is the χ of the last test
    made on b's answer (``on_query``).
    """
    if estimator == ORACLE:
        return same_class
    if not heard:
        return True  # b belongs to C_a until a hears from b for the first time
    if refresh == ON_QUERY:
        return stored != 0
    return passes_test(mean_a, var_mean_a, stat, var_stat, z2)


class Scheme(NamedTuple):
    """Integer codes (see :mod:`sweep.colme.config`) fixed when a kernel is compiled."""

    distribution: int
    noise: int
    mechanism: int
    weights: int
    schedule: int
    estimator: int
    refresh: int


class Kernels(NamedTuple):
    """The compiled time loop and checkpoint metrics of one scheme."""

    advance: Callable[..., None]
    measure: Callable[..., np.ndarray]


@functools.cache
def compile_scheme(scheme: Scheme) -> Kernels:
    """Kernels of one scheme; the closure constants below are folded in by the compiler."""
    distribution, noise, mechanism, weights, schedule, estimator, refresh = scheme

    @numba.njit(cache=True)
    def advance(
        t_first: int,
        t_last: int,
        z2: np.ndarray,
        rng: np.random.Generator,
        data_sum: np.ndarray,
        means: np.ndarray,
        labels: np.ndarray,
        last: np.ndarray,
        kappa: np.ndarray,
        pair: np.ndarray,
        levels: np.ndarray,
        chi: np.ndarray,
        sigma2: float,
        bound: float,
        sigma_dp: float,
    ) -> None:
        """Run time steps t_first..t_last of Algorithm 1 for every agent.

        ``z2[t - t_first + 1]`` is z_t² for t_first - 1 <= t <= t_last. ``last[a]`` is the
        agent a queried last (-1 before the first query).
        """
        n_agents = data_sum.size
        sigma2_dp = sigma_dp * sigma_dp
        target = np.empty(n_agents, dtype=np.int64)
        for t in range(t_first, t_last + 1):
            # Line 8: choose_agent(C_a^(t-1)); RR takes the next index, rRR the next member.
            z2_prev = z2[t - t_first]
            inv_prev = 1.0 / (t - 1) if t > 1 else 0.0  # at t = 1 no agent has been heard
            for a in range(n_agents):
                target[a] = -1
                b = last[a]
                for _ in range(n_agents):
                    b = b + 1 if b + 1 < n_agents else 0
                    if b == a:
                        continue
                    if schedule == RR or in_estimate(
                        labels[a] == labels[b], kappa[a, b] > 0, chi[a, b],
                        data_sum[a] * inv_prev, sigma2 * inv_prev, pair[a, b, T], pair[a, b, VAR],
                        z2_prev, estimator, refresh,
                    ):
                        target[a] = b
                        break
            # Lines 5-6: receive.
            for a in range(n_agents):
                data_sum[a] += draw_datum(rng, distribution, means[labels[a]], bound)
            # Lines 9-11: query; b releases its privatized mean to a.
            z2_now = z2[t - t_first + 1]
            inv_t = 1.0 / t
            for a in range(n_agents):
                b = target[a]
                if b < 0:
                    continue  # rRR with C_a^(t-1) = {a}: nobody to query
                last[a] = b
                k = kappa[a, b] + 1
                kappa[a, b] = k
                fresh = 0.0
                if mechanism != NO_MECHANISM:
                    fresh = draw_noise(rng, noise, sigma_dp)
                release(pair, levels, a, b, k, inv_t, data_sum[b], fresh, sigma2, sigma2_dp,
                        mechanism, weights)
                if estimator == TEST and refresh == ON_QUERY:
                    chi[a, b] = passes_test(
                        data_sum[a] * inv_t, sigma2 * inv_t, pair[a, b, T], pair[a, b, VAR], z2_now
                    )

    @numba.njit(cache=True)
    def measure(
        t: int,
        z2: float,
        data_sum: np.ndarray,
        means: np.ndarray,
        labels: np.ndarray,
        n_classes: int,
        kappa: np.ndarray,
        pair: np.ndarray,
        chi: np.ndarray,
        sigma2: float,
    ) -> np.ndarray:
        """Metrics at time t: the MSEs of Algorithm 1, local and ideal, and the class errors.

        μ_a^(t) combines X̄_a^(t) and the statistics of C_a^(t) \\ {a} with the weights of
        eq. (3); an agent not heard from yet has Var = ∞ and weight 0. The error rates pool
        all ordered pairs a != b: false exclusions over pairs of the same class, false
        inclusions over pairs of different classes (NaN where there are none).
        """
        n_agents = data_sum.size
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
            precision = t / sigma2
            weighted = precision * mean_a
            for b in range(n_agents):
                member[b] = b != a and in_estimate(
                    labels[a] == labels[b], kappa[a, b] > 0, chi[a, b], mean_a, sigma2 / t,
                    pair[a, b, T], pair[a, b, VAR], z2, estimator, refresh,
                )
                if member[b] and kappa[a, b] > 0:
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
            truth = means[labels[a]]
            out[MSE] += (weighted / precision - truth) ** 2
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

