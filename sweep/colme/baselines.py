"""Analytic reference curves of Sec. VI: local (Prop. 1), ideal (Prop. 2), oracle (Prop. 3).

All agents share one known σ, as in Prop. 3. The oracle is computed exactly, without the
paper's truncation of the class-size sum to pM ± 15 and of the averaging over positions:

* RR (Prop. 3): the other agents join a's class independently with p = 1/Γ, so the MSE
  is E[1/(t/σ² + Σ_{ℓ∈S} 1/v_ℓ(t))] over the random subset S. With
  1/x = ∫₀^∞ e^{-sx} ds it becomes one integral of a product of M - 1 factors,
  ∫₀^∞ e^{-st/σ²} Π_ℓ (1 - p + p e^{-s/v_ℓ(t)}) ds, evaluated by adaptive quadrature.
* rRR (Remark 3): the class members are queried in turn with period n - 1, so the MSE is
  the binomial mixture Σ_n C(M-1, n-1) p^{n-1} (1-p)^{M-n} / e_{n,t}, summed over every n.

* rRR with the simulator's query times (``oracle_start=simulator``): the simulated rRR
  starts from C_a^(0) = all agents and first sweeps all M - 1 others, so Remark 3's
  oracle is no bound for it; :func:`_first_sweep_mse` gives the oracle those times, the
  members' positions in the sweep averaged exactly by dynamic programming. The default,
  ``paper``, keeps Remark 3 (and the times of the simulator's ``class_estimator=oracle``).

v_ℓ(t) = Var[T_{ℓ→a}] after the releases up to t comes from the simulator's own exact
variance recursion (:func:`sweep.colme.statistic.schedule_variances`), or with
``oracle_eq21=printed`` from eq. (21) as printed, to reproduce the paper's curves. An
agent not yet queried has v = ∞ and adds nothing; the paper's formula is undefined there.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numba
import numpy as np
from scipy import integrate, stats

from . import config as codes
from .config import ColmeConfig
from .privacy import sigma_dp
from .statistic import (
    SCHEDULE_FIRST_WEIGHT,
    SCHEDULE_TAIL,
    SCHEDULE_VAR,
    Schedule,
    schedule_variances,
)


def local_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 1: (1/(M t)) Σ_a σ_a² = σ²/t."""
    return config.sigma**2 / np.asarray(times, dtype=np.float64)


def inverse_class_size(config: ColmeConfig) -> float:
    """E[1/|C_a|] under the class assignment of ``config``.

    ``random``: |C_a| - 1 ~ Bin(M - 1, p), so E[1/|C_a|] = (1 - (1 - p)^M)/(M p).
    ``balanced``: Σ_a 1/|C_a| counts the nonempty classes, min(Γ, M).
    """
    m, classes = config.n_agents, config.n_classes
    if config.class_assignment == "balanced":
        return min(classes, m) / m
    p = 1.0 / classes
    return -math.expm1(m * math.log1p(-p)) / (m * p) if p < 1.0 else 1.0 / m


def ideal_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 2, averaged over the class sizes: σ² E[1/|C_a|] / t."""
    return local_mse(config, times) * inverse_class_size(config)


def _schedule(config: ColmeConfig, period: int, n_positions: int, times: np.ndarray,
              lead: int) -> np.ndarray:
    """:func:`~sweep.colme.statistic.schedule_variances` for the mechanism, weights, noise
    and ``oracle_eq21`` of ``config``."""
    return schedule_variances(
        Schedule(positions=n_positions, lead=lead, period=period),
        np.asarray(times, dtype=np.int64),
        config.sigma**2,
        sigma_dp(config) ** 2,
        codes.MECHANISMS.index(config.mechanism),
        codes.WEIGHTS.index(config.weights),
        config.oracle_eq21 == "printed",
    )


def _precisions(config: ColmeConfig, period: int, times: np.ndarray) -> np.ndarray:
    """1/Var[T_ℓ] of positions ℓ = 1..period queried every ``period`` steps (0 before
    the first query)."""
    with np.errstate(divide="ignore"):
        return 1.0 / _schedule(config, period, period, times, period)[SCHEDULE_VAR]


def _laplace_inverse(log_transform: Callable[[float], float], scale: float) -> float:
    """E[1/X] = ∫₀^∞ E[e^{-sX}] ds for a random precision X > 0, given
    ``log_transform(x)`` = ln E[e^{-xX/scale}] (``scale`` ~ X keeps x of order one)."""

    def integrand(x: float) -> float:
        return math.exp(log_transform(x))

    value, _ = integrate.quad(integrand, 0.0, math.inf, epsabs=0.0, epsrel=1e-12, limit=200)
    return value / scale


def _expected_inverse(own: float, precisions: np.ndarray, p: float) -> float:
    """E[1/(own + Σ_{ℓ∈S} q_ℓ)], each ℓ in S independently with probability p."""
    if p == 1.0:
        return 1.0 / (own + precisions.sum())
    scale = own + p * precisions.sum()
    rates = precisions / scale
    drift = own / scale
    return _laplace_inverse(
        lambda x: -x * drift + np.log1p(p * np.expm1(-x * rates)).sum(), scale)


@numba.njit(cache=True)
def _log_ordered_mean(rates: np.ndarray, x: float) -> float:
    """ln of the mean of Π_i e^{-x rates[i, q_i - i]} over the C(i_max + g_max, i_max)
    sequences of positions q_1 < … < q_{i_max}, i.e. of gaps g_i = q_i - i with
    0 <= g_1 <= … <= g_{i_max} <= g_max (``rates`` has shape (i_max, g_max + 1)).

    Dynamic programming over i: F_i(g) = e^{-x rates[i, g]} Σ_{g' <= g} F_{i-1}(g'),
    rescaled at each i to stay within range.
    """
    ranks, gaps = rates.shape
    row = np.ones(gaps)  # the prefix sums of F_0 = [g = 0]
    log_total = 0.0
    for i in range(ranks):
        total = 0.0
        for g in range(gaps):  # in place: row[g] is read before it is overwritten
            total += row[g] * math.exp(-x * rates[i, g])
            row[g] = total
        if total == 0.0:
            return -math.inf
        row /= total  # Σ_g F_i(g) is now 1, its log in log_total
        log_total += math.log(total)
    return log_total - (math.lgamma(ranks + gaps) - math.lgamma(ranks + 1)
                        - math.lgamma(gaps))


def _moved_first_query(config: ColmeConfig, plane: np.ndarray, rank: np.ndarray,
                       first: np.ndarray) -> np.ndarray:
    """Var[T] with the first query moved from t = ``rank`` to t = ``first`` (< the second
    query), from a :func:`~sweep.colme.statistic.schedule_variances` plane triple computed
    with the first query at ``rank``: t_1 enters eq. (2) only as σ_b² w_1²/t_1 and the
    noise only through the p-sum [1 : t_1], of coefficient w_1/t_1 + G_2 (PM-I, eq. (20))
    or w_1/t_1 (PM-II)."""
    var, w1, tail = plane[SCHEDULE_VAR], plane[SCHEDULE_FIRST_WEIGHT], plane[SCHEDULE_TAIL]
    sigma2_dp = sigma_dp(config) ** 2
    var = var + config.sigma**2 * w1**2 * (1.0 / first - 1.0 / rank)
    if config.mechanism == "pm1":
        var = var + sigma2_dp * ((w1 / first + tail) ** 2 - (w1 / rank + tail) ** 2)
    elif config.mechanism == "pm2":
        var = var + sigma2_dp * w1**2 * (1.0 / first**2 - 1.0 / rank**2)
    return var


def member_variances(config: ColmeConfig, n: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Var[T_{ℓ→a}] at time t of the members ℓ of a's class of size n, and the part of
    each due to the first release's p-sum under PM-II, σ_DP² w_1²/t_1² (eq. (21)'s
    release-1 term), for the schedule and ``oracle_start`` of ``config``.

    RR: every position 1..M - 1 (n unused). rRR: Remark 3's members at t_1 = 1..n - 1, or
    with ``oracle_start=simulator`` first queries spread evenly over the first sweep
    1..M - 1 (the positions' mean spacing).
    """
    m = config.n_agents
    times = np.array([t], dtype=np.int64)
    if config.schedule == "rr":
        plane = _schedule(config, m - 1, m - 1, times, m - 1)[:, :, 0]
        rank = first = np.arange(1.0, m)
    else:
        lead = m - 1 if config.oracle_start == "simulator" else n - 1
        plane = _schedule(config, n - 1, n - 1, times, lead)[:, :, 0]
        rank = np.arange(1.0, n)
        first = np.rint(np.linspace(1, m - 1, n - 1)) if lead == m - 1 else rank
    noise = sigma_dp(config) ** 2 * (plane[SCHEDULE_FIRST_WEIGHT] / first) ** 2
    return _moved_first_query(config, plane, rank, first), noise


@numba.njit(cache=True)
def _first_sweep_log_transform(rates: np.ndarray, offsets: np.ndarray, shapes: np.ndarray,
                               pmf: np.ndarray, x: float) -> float:
    """ln Σ_n pmf[n] E[e^{-x Σ_i rates_n[i, g_i]}] over the class sizes n, the ordered
    member positions uniform given n (:func:`_log_ordered_mean`); size n's table is
    ``rates[offsets[n]:offsets[n + 1]]`` of shape ``shapes[n]`` (empty for n = 1)."""
    logs = np.full(pmf.size, -math.inf)
    for n in range(pmf.size):
        if pmf[n] > 0.0:
            ranks, gaps = shapes[n, 0], shapes[n, 1]
            table = rates[offsets[n]:offsets[n + 1]].reshape((ranks, gaps))
            logs[n] = math.log(pmf[n]) + (_log_ordered_mean(table, x) if ranks else 0.0)
    top = logs.max()
    return top + math.log(np.exp(logs - top).sum())


def _first_sweep_mse(config: ColmeConfig, times: np.ndarray, pmf: np.ndarray) -> np.ndarray:
    """The oracle's MSE under the simulator's rRR start (``oracle_start=simulator``).

    The simulator's rRR starts with C_a^(0) = all agents (an agent not yet heard from
    stays in C_a), so its first sweep queries all M - 1 others in index order, at
    t = 1..M - 1; from t = M on only class members answer, in turn. With an oracle class
    of size n whose members sit at positions q_1 < … < q_{n-1} of that sweep, member i is
    queried at q_i, then at M - 1 + i, M - 1 + i + (n - 1), … Given n the positions are a
    uniform (n - 1)-subset of 1..M - 1, so the MSE is Σ_n Bin(n - 1; M - 1, p)
    E[1/(t/σ² + Σ_i 1/v_i(q_i))], each expectation the integral of
    :func:`_laplace_inverse` of a product over ordered positions (:func:`_log_ordered_mean`).
    v_i(q) comes from the schedule with q = i and the closed form in t_1 of
    :func:`~sweep.colme.statistic.schedule_variances`. Up to t = M - 1 only the first
    sweep has happened, RR's first round: the MSE is then Prop. 3's.
    """
    m = config.n_agents
    mse = np.empty(times.size)
    sweep = times < m
    if sweep.any():  # (an empty array of times would reach the compiled schedule)
        mse[sweep] = oracle_mse(dataclasses.replace(config, schedule="rr"), times[sweep])
    planes = [_schedule(config, n - 1, n - 1, times, m - 1) for n in range(2, m + 1)]
    for c, t in enumerate(times):
        if sweep[c]:
            continue
        tables = [np.zeros(0)]  # n = 1: no member
        shapes = [(0, 0)]
        for n, plane in enumerate(planes, start=2):
            rank = np.arange(1, n)[:, None]
            first = rank + np.arange(m - n + 1)[None, :]  # q = i + g
            var = _moved_first_query(config, plane[:, :, c, None], rank, first)
            with np.errstate(divide="ignore", invalid="ignore"):
                tables.append(np.where(first <= t, 1.0 / var, 0.0))
            shapes.append(tables[-1].shape)
        own = t / config.sigma**2
        scale = own + sum(w * table.mean(axis=1).sum() for w, table in zip(pmf[1:], tables[1:],
                                                                       strict=True))
        rates = np.concatenate([table.ravel() for table in tables]) / scale
        offsets = np.cumsum([0, *(table.size for table in tables)])
        shape_array = np.array(shapes, dtype=np.int64)
        drift = own / scale
        mse[c] = _laplace_inverse(lambda x, r=rates, o=offsets, s=shape_array, d=drift:
                                  -x * d + _first_sweep_log_transform(r, o, s, pmf, x), scale)
    return mse


def oracle_mse(config: ColmeConfig, times: np.ndarray) -> np.ndarray:
    """Prop. 3 (``rr``) or Remark 3 (``rrr``): MSE of Algorithm 1 with an oracle class
    estimator, for the mechanism, weights and noise of ``config``.

    ``oracle_start`` chooses rRR's query times: ``paper``, Remark 3's (member j of the
    class at t = j, j + n - 1, …), the times of the simulator's ``class_estimator=oracle``,
    or ``simulator``, those of the simulator's decision rule when it never errs (a first
    sweep over all M - 1 others, then the members in turn; :func:`_first_sweep_mse`),
    which makes it a bound for the simulated rRR. RR has one schedule under both.
    ``oracle_eq21=printed`` evaluates PM-II's noise with eq. (21) as printed.
    """
    config.check_oracle()
    times = np.asarray(times, dtype=np.int64)
    m, p = config.n_agents, 1.0 / config.n_classes
    own = times / config.sigma**2
    if config.schedule == "rr":
        precisions = _precisions(config, m - 1, times)
        return np.array(
            [_expected_inverse(own[c], precisions[:, c], p) for c in range(times.size)]
        )
    sizes = np.arange(1, m + 1)
    pmf = stats.binom.pmf(sizes - 1, m - 1, p)
    if config.oracle_start == "simulator":
        return _first_sweep_mse(config, times, pmf)
    mse = pmf[0] / own
    for n in sizes[1:]:
        mse += pmf[n - 1] / (own + _precisions(config, n - 1, times).sum(axis=0))
    return mse


#: The analytic curve of each of :data:`~sweep.colme.config.BASELINES`, by name.
ANALYTIC = dict(zip(codes.BASELINES, (local_mse, ideal_mse, oracle_mse), strict=True))
