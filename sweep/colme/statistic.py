"""The linear statistic T_{b→a} of eq. (1) and its exact variance, eq. (2), compiled.

All three weight schemes put equal weights 1/n on a window of the latest releases
[s : κ], n = κ - s + 1:

* ``last`` (non-MoM): s = κ;
* ``mom``: s = 1;
* ``wmom`` (PM-II): s = 2^⌊log2 κ⌋. The paper prints the weights as
  1/(κ - 2^(⌊log2 κ⌋+1)), which is negative; the window holds κ - 2^⌊log2 κ⌋ + 1
  releases, so the weights are 1/(κ - 2^⌊log2 κ⌋ + 1).

With such windows, Var[T] is kept exactly in O(1) state per pair (O(log κ) for PM-II):

* data part (eq. 2, first term): σ_b² Σ_{j,k∈W} 1/max(t_j, t_k) / n²
  = σ_b² Σ_{j∈W} (2(j - s) + 1)/t_j / n²  (Appendix A's Σ (2i-1)/t_i for MoM);
* PM-I noise (eq. 20): σ_DP² [(s - 1) G_s² + Σ_{i=s}^{κ} G_i²] / n²,
  G_i = Σ_{j=max(i,s)}^{κ} 1/t_j;
* PM-II noise: σ_DP² Σ_P c_P² / n² over the p-sums P, with c_P = Σ_{j∈W uses P} 1/t_j.
  This is the exact form of eq. (21); eq. (21) itself pools, per bit position, releases
  that do not share a p-sum (e.g. releases 5 and 7 both have bit 0 set but use the
  different p-sums [t_4+1 : t_5] and [t_6+1 : t_7]), so it overstates the MoM variance
  from κ = 7 on. The tests check both facts.

A window restarts (n = 1) when s = κ; the accumulated sums are then reset.

The noise N_κ of release κ (Sec. IV; one fresh p-sum noise per query):

* PM-I splits [1 : t_κ] at the query times, so N_κ = N_{κ-1} + fresh (O(1) state);
* PM-II joins those pieces by the binary representation of κ: the binary mechanism of
  :mod:`sweep.components.tree`, run over the releases of each ordered pair, with one live
  p-sum per level in ``levels[a, b, LEVEL_NOISE]``. The same p-sum reuses the same noise
  value every time it appears.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from ..components.tree import lowest_bit, push_and_sum
from .config import LAST, MOM, PM1, PM2

# Fields of the per-pair state ``pair[a, b, :]`` (receiver a, sender b).
T = 0  # the statistic T_{b→a}
VAR = 1  # Var[T_{b→a}]; +inf before the first release
WINDOW_SUM = 2  # Σ_{j∈W} released means
INV_TIMES = 3  # Σ_{j∈W} 1/t_j (= G_s)
DATA_SUM = 4  # Σ_{j∈W} (2(j - s) + 1)/t_j
G_SUM = 5  # PM-I: Σ_{i=s}^{κ} G_i
G_SQUARES = 6  # PM-I: Σ_{i=s}^{κ} G_i²
NOISE = 7  # N_κ, the noise of the latest release (PM-I running sum)
DEAD_SQUARES = 8  # PM-II: Σ c_P² over p-sums no release can use again
DATA_COEF = 9  # Var[T] = σ_b² DATA_COEF + NOISE_VAR
NOISE_VAR = 10
N_FIELDS = 11
# Fields used only with an unknown variance (see :mod:`sweep.colme.variance`).
LAST_SUM = 11  # Σ X_b up to the latest release time
LAST_TIME = 12  # t_κ, the latest release time
SPLIT_SIZE = 13  # k, the number of p-sums of the latest release
INV_LENGTHS = 14  # Σ_i 1/(τ_i - τ_{i-1}) over them
CROSS = 15  # Σ_i [(2 S_i Z_i + Z_i²) + (τ_i - τ_{i-1} - 1) W_i]/(τ_i - τ_{i-1}), eqs. (6)-(7)
U_SUM = 16  # Σ_i (S_i + Z_i)/√(τ_i - τ_{i-1}), eq. (16)
U_SQUARES = 17  # Σ_i (S_i + Z_i)²/(τ_i - τ_{i-1})
RAW_ESTIMATE = 18  # V_{b→a} as eq. (8) or (16) gives it (NaN before it exists)
ESTIMATE = 19  # the σ_b² estimate in use: +inf when unavailable or not positive
N_FIELDS_UNKNOWN = 20

# Planes of the PM-II per-level state ``levels[a, b, plane, level]``.
LEVEL_NOISE = 0  # noise value Z of the live p-sum at that level
LEVEL_COEF = 1  # its coefficient c_P within the current window
N_PLANES = 2
LEVEL_DATA = 2  # unknown variance: its data sum S
LEVEL_LENGTH = 3  # its length τ_i - τ_{i-1}
LEVEL_VARIANCE_NOISE = 4  # its variance noise W (Sch-Var-1)
N_PLANES_UNKNOWN = 5


def new_pair_state(
    n_agents: int, mechanism: int, n_levels: int, known: bool = True
) -> tuple[np.ndarray, ...]:
    """Zeroed state of every ordered pair: κ, the fields above and PM-II's levels.

    The fields and planes of the unknown-variance schemes are allocated only for them.
    """
    kappa = np.zeros((n_agents, n_agents), dtype=np.int64)
    pair = np.zeros((n_agents, n_agents, N_FIELDS if known else N_FIELDS_UNKNOWN))
    pair[:, :, VAR] = np.inf
    if not known:
        pair[:, :, RAW_ESTIMATE] = np.nan
        pair[:, :, ESTIMATE] = np.inf
    planes = N_PLANES if known else N_PLANES_UNKNOWN
    levels = np.zeros((n_agents, n_agents, planes, n_levels if mechanism == PM2 else 0))
    return kappa, pair, levels


class Query(NamedTuple):
    """The κ-th query of receiver a to sender b, at time t (Algorithm 1, lines 9-11), and
    what b's answer is made of: its sums Σ_{i<=t} X_b^(i) and Σ_{i<=t} (X_b^(i))² (read by
    the estimated-variance schemes only), and the fresh noises of the p-sum the release
    creates (Sec. IV): Z on its mean and W on its variance (Sch-Var-1; 0 otherwise)."""

    a: int
    b: int
    kappa: int
    t: int
    data_sum: float
    square_sum: float
    noise: float
    variance_noise: float


@numba.njit(cache=True, inline="always")
def _top_bit(kappa: int) -> int:
    """2^⌊log2 κ⌋."""
    top = 1
    while top <= kappa >> 1:
        top <<= 1
    return top


@numba.njit(cache=True, inline="always")
def window_length(kappa: int, weights: int) -> int:
    """n = κ - s + 1, the number of releases with nonzero weight after release κ."""
    if weights == LAST:
        return 1
    if weights == MOM:
        return kappa
    return kappa - _top_bit(kappa) + 1


@numba.njit(cache=True, inline="always")
def release(
    pair: np.ndarray,
    levels: np.ndarray,
    query: Query,
    sigma2_dp: float,
    mechanism: int,
    weights: int,
    given: float = math.nan,
) -> float:
    """Apply the release answering ``query`` (the κ-th of b to a, at time t); update
    T_{b→a} and the two parts of Var[T_{b→a}] = σ_b² DATA_COEF + NOISE_VAR. Return the
    released mean X̄_b^(t) + Z^(t).

    A finite ``given`` is released in its place: the noise is then whatever makes the
    release that value (the privacy audit's coupling of neighbouring data sets,
    :class:`sweep.colme.kernel.Audit`).

    ``mechanism`` and ``weights`` are codes of :mod:`sweep.colme.config`, constants of a
    compiled scheme. The caller sets VAR with the σ_b² it knows or estimates.
    """
    a, b, kappa = query.a, query.b, query.kappa
    inv_t = 1.0 / query.t
    # Indexing pair[a, b, FIELD] rather than a view of pair[a, b] spares the
    # reference counting of a view on this hot path.
    noise_squares = 0.0
    if mechanism == PM1:
        noise = pair[a, b, NOISE] + query.noise
    elif mechanism == PM2:
        noise = push_and_sum(levels[a, b, LEVEL_NOISE], kappa, query.noise)
    else:
        noise = 0.0
    pair[a, b, NOISE] = noise
    released = (query.data_sum + noise) * inv_t
    if not math.isnan(given):
        released = given
    n = window_length(kappa, weights)
    if mechanism == PM2:
        if n == 1:
            for i in range(levels.shape[3]):  # a loop, not a slice: no view on this path
                levels[a, b, LEVEL_COEF, i] = 0.0
            pair[a, b, DEAD_SQUARES] = 0.0
        for i in range(lowest_bit(kappa)):  # p-sums merged into the new one: never reused
            pair[a, b, DEAD_SQUARES] += levels[a, b, LEVEL_COEF, i] ** 2
            levels[a, b, LEVEL_COEF, i] = 0.0
        live = 0.0
        bits = kappa
        i = 0
        while bits:
            if bits & 1:
                levels[a, b, LEVEL_COEF, i] += inv_t
                live += levels[a, b, LEVEL_COEF, i] ** 2
            bits >>= 1
            i += 1
        noise_squares = pair[a, b, DEAD_SQUARES] + live
    if n == 1:
        pair[a, b, WINDOW_SUM] = released
        pair[a, b, INV_TIMES] = inv_t
        pair[a, b, DATA_SUM] = inv_t
        pair[a, b, G_SUM] = inv_t
        pair[a, b, G_SQUARES] = inv_t * inv_t
    else:
        pair[a, b, WINDOW_SUM] += released
        pair[a, b, INV_TIMES] += inv_t
        pair[a, b, DATA_SUM] += (2 * n - 1) * inv_t
        # Every G_i of the window grows by 1/t and G_κ = 1/t joins.
        pair[a, b, G_SQUARES] += 2.0 * inv_t * pair[a, b, G_SUM] + n * inv_t * inv_t
        pair[a, b, G_SUM] += n * inv_t
    if mechanism == PM1:
        noise_squares = (kappa - n) * pair[a, b, INV_TIMES] ** 2 + pair[a, b, G_SQUARES]
    pair[a, b, T] = pair[a, b, WINDOW_SUM] / n
    pair[a, b, DATA_COEF] = pair[a, b, DATA_SUM] / (n * n)
    pair[a, b, NOISE_VAR] = sigma2_dp * noise_squares / (n * n)
    return released


@numba.njit(cache=True, inline="always")
def couple(pair: np.ndarray, levels: np.ndarray, query: Query, given: float,
           mechanism: int) -> Query:
    """The privacy audit's coupling (:class:`sweep.colme.kernel.Audit`), after ``given``
    was released in place of b's own answer to ``query``: the new p-sum's noise becomes
    whatever makes b's release that value, Z' = Z + (given t - (Σ X_b + N_κ)), and so
    does N_κ. Every p-sum holding the changed sample thus carries the noise of the DP
    proofs' coupling, Z' = Z + S - S' (up to rounding), and b's noisy p-sums S + Z, which
    Sch-Var-2 reads (eq. (16)), are those of the run that released ``given``. Returns
    ``query`` with the coupled Z."""
    a, b = query.a, query.b
    shift = given * query.t - (query.data_sum + pair[a, b, NOISE])
    pair[a, b, NOISE] += shift
    if mechanism == PM2:
        levels[a, b, LEVEL_NOISE, lowest_bit(query.kappa)] += shift
    return Query(a, b, query.kappa, query.t, query.data_sum, query.square_sum,
                 query.noise + shift, query.variance_noise)


@numba.njit(cache=True, inline="always")
def set_variance(pair: np.ndarray, a: int, b: int, sigma2_b: float) -> None:
    """Var[T_{b→a}] = σ_b² DATA_COEF + NOISE_VAR with the known or estimated σ_b²."""
    pair[a, b, VAR] = sigma2_b * pair[a, b, DATA_COEF] + pair[a, b, NOISE_VAR]


# Planes of :func:`schedule_variances`' output.
SCHEDULE_VAR = 0  # Var[T_{ℓ→a}]
SCHEDULE_FIRST_WEIGHT = 1  # w_1, the weight of the first release
SCHEDULE_TAIL = 2  # Σ_{j>=2} w_j/t_j, the coefficient G_2 of eqs. (2) and (20)
SCHEDULE_PLANES = 3


class Schedule(NamedTuple):
    """A periodic query schedule: the agent at position ℓ = 1..``positions`` is queried
    at t = ℓ, then at ℓ + ``lead``, ℓ + ``lead`` + ``period``, … (RR: lead = period =
    M - 1; rRR with an oracle class of size n, Remark 3: lead = period = n - 1; the
    simulator's rRR, whose first sweep queries all M - 1 others: lead = M - 1,
    period = n - 1)."""

    positions: int
    lead: int
    period: int


@numba.njit(cache=True)
def schedule_variances(
    schedule: Schedule,
    times: np.ndarray,
    sigma2: float,
    sigma2_dp: float,
    mechanism: int,
    weights: int,
    printed: bool,
) -> np.ndarray:
    """Var[T_{ℓ→a}] at each time of ``times`` for a periodic query ``schedule``.

    ``printed`` replaces PM-II's exact noise term by eq. (21) as printed, which pools per
    bit-length group and bit position the releases of the window (see the module's
    docstring).

    Returns an array of shape (SCHEDULE_PLANES, positions, len(times)): Var[T] (+inf
    before the first release), and w_1 and G_2 = Σ_{j>=2} w_j/t_j after the latest
    release. With them Var[T] for another first query time t_1 < ℓ + lead follows in
    closed form: t_1 enters eq. (2) only through σ_b² w_1²/t_1 (the data term's first two
    summands, (t_1 - t_0) G_1² + (t_2 - t_1) G_2², sum to w_1²/t_1 + 2 w_1 G_2 + t_2 G_2²)
    and the noise only through the p-sum [1 : t_1], of coefficient G_1 = w_1/t_1 + G_2
    under PM-I (eq. 20) and w_1/t_1 under PM-II (release 1 alone uses it, in eq. (21)
    too).
    """
    n_positions, lead, period = schedule
    n_levels = 1  # bit length of the last time, the most levels PM-II can reach
    while (1 << n_levels) <= times[-1]:
        n_levels += 1
    pair = np.zeros((1, 1, N_FIELDS))
    levels = np.zeros((1, 1, N_PLANES, n_levels))
    pooled = np.zeros((n_levels + 1, n_levels))  # eq. (21): [bit length, bit] → Σ 1/t_j
    out = np.zeros((SCHEDULE_PLANES, n_positions, times.size))
    out[SCHEDULE_VAR] = math.inf
    for pos in range(n_positions):
        pair[:] = 0.0
        levels[:] = 0.0
        kappa = 0
        t = pos + 1
        first = 1.0 / t
        c = 0
        while c < times.size:
            while c < times.size and times[c] < t:
                if kappa > 0:
                    n = window_length(kappa, weights)
                    out[SCHEDULE_VAR, pos, c] = pair[0, 0, VAR]
                    # The window holds release 1 iff it holds all κ releases.
                    w1 = 1.0 / n if n == kappa else 0.0
                    out[SCHEDULE_FIRST_WEIGHT, pos, c] = w1
                    out[SCHEDULE_TAIL, pos, c] = w1 * (pair[0, 0, INV_TIMES] - first)
                c += 1
            if c == times.size:
                break
            kappa += 1
            release(pair, levels, Query(0, 0, kappa, t, 0.0, 0.0, 0.0, 0.0), sigma2_dp,
                    mechanism, weights)
            if printed and mechanism == PM2:
                n = window_length(kappa, weights)
                if n == 1:
                    pooled[:] = 0.0
                length = 0
                while kappa >> length:
                    length += 1
                squares = 0.0
                for bit in range(length):
                    if kappa >> bit & 1:
                        pooled[length, bit] += 1.0 / t
                for row in range(length + 1):
                    for bit in range(row):
                        squares += pooled[row, bit] ** 2
                pair[0, 0, NOISE_VAR] = sigma2_dp * squares / (n * n)
            set_variance(pair, 0, 0, sigma2)
            t += lead if kappa == 1 else period
    return out
