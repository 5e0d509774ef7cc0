"""Unknown data variance (Secs. III-C2 and V), compiled.

After each release of b to a, the state of the pair keeps the p-sums of the release's
split (Sec. IV): for p-sum i its data sum S_i, length ℓ_i = τ_i - τ_{i-1}, mean noise Z_i
and, for Sch-Var-1, variance noise W_i. PM-I adds one p-sum per release (O(1) sums);
PM-II keeps one p-sum per level and sums over the set bits of κ. From them:

* ``shared`` (Sch-Var-1): b releases V_{b→a} of eq. (8), built from the partial sample
  variances of eq. (6) and the terms of eq. (7) over the same split as its mean;
  available from t_κ = 2.
* ``inferred`` (Sch-Var-2): a computes eq. (16) from u_i = (S_i + Z_i)/√ℓ_i, which it
  can difference out of b's releases. It needs k >= 2 p-sums: under PM-I from κ = 2;
  under PM-II a release with κ = 2^m has a single p-sum, and a then keeps its previous
  estimate (the paper is silent there).
* ``inferred_bayes``: eq. (16), replaced by the posterior mean of eq. (19) when negative.

Erratum, Lemma 7: E[u_i] = μ_b √ℓ_i, so eq. (16) is unbiased only when the p-sums have
equal lengths (or μ_b = 0); otherwise it is biased upward by
μ_b² [Σ ℓ_i - (Σ √ℓ_i)²/k]/(k - 1). Under PM-I with RR only the first p-sum differs and
the bias fades as 1/κ; under PM-II the p-sums of a split differ in length at every κ
and the bias grows with t. ``inferred_form="weighted"`` uses, with v_i = S_i + Z_i,

    V = [Σ v_i²/ℓ_i - t (X̄_b^(t) + Z^(t))² - σ_DP² (Σ 1/ℓ_i - k/t)] / (k - 1),

which is unbiased for any lengths (E[v_i²/ℓ_i] = μ²ℓ_i + σ² + σ_DP²/ℓ_i), equals
eq. (16) when the lengths are equal, and mirrors eq. (8) with k - 1 in place of t - 1.
Eq. (19) then uses its noise term c = σ_DP² (Σ 1/ℓ_i - k/t)/(k - 1) in place of K σ_DP²
(the two agree for equal lengths).

``inferred_form="drop_first"`` (PM-I) is eq. (16) over the p-sums after the first: the
first one, [1 : t_1], has the length of b's position in a's RR cycle, and its
E[u_1] = μ_b √ℓ_1 ≠ μ_b √(M - 1) drives the bias above while κ is small (M = 200,
ℓ = 1, 199, 199, 199, 199 at κ = 5, μ_b = 0.8: a bias of 22, against σ² = 0.25). The
others all have length M - 1 under RR, so eq. (16) over them is unbiased; it needs
k >= 2 of them (κ >= 3).

The Welch test's ν (after eq. (5)) gives Var̂[T_{b→a}] t_κ - 1 degrees of freedom
(``welch_dof="paper"``); Sch-Var-2's σ_b² estimate has only k - 1, the degrees of
freedom of a sample variance of k values u_i (``welch_dof="releases"``,
:func:`welch_samples`).

A negative estimate counts as +∞, as do one of exactly 0 (noiseless releases of
degenerate data) and one not available yet: b then stays in C_a with weight 0. The
decision rule becomes the Welch test of Sec. III-C2 and the weights follow eq. (5).
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from scipy.special import stdtrit

from ..components.tree import merge_push
from .config import (
    DROP_FIRST,
    EQ16,
    INFERRED_BAYES,
    JEFFREYS_PRIOR,
    KNOWN,
    PAPER_PRIOR,
    PM2,
    RELEASES_DOF,
    SHARED,
    WEIGHTED,
)
from .statistic import (
    CROSS,
    ESTIMATE,
    INV_LENGTHS,
    LAST_SUM,
    LAST_TIME,
    LEVEL_DATA,
    LEVEL_LENGTH,
    LEVEL_NOISE,
    LEVEL_VARIANCE_NOISE,
    RAW_ESTIMATE,
    SPLIT_SIZE,
    U_SQUARES,
    U_SUM,
    Query,
)

# Degrees of freedom ν_j = 2^(j/8), j < 160, and ν_160 = ∞, at which the Welch test keeps
# bounds of its quantile.
WELCH_DOF = np.append(2.0 ** (np.arange(160) / 8.0), np.inf)


@functools.lru_cache(maxsize=4096)
def welch_bounds(theta0: float, t_first: int, t_last: int) -> np.ndarray:
    """Quantiles Φ⁻¹_{t,ν_j}(1 - θ_t/2) at t = t_first (row 0) and t = t_last (row 1).

    The test is only made from t = 2 on, so row 0 uses t >= 2. Replicates run the same
    stretches of time, so the (read-only) result is cached.
    """
    times = np.array([max(t_first, 2), max(t_last, 2)], dtype=np.float64)
    level = 1.0 - theta0 / np.log1p(times) / 2.0
    bounds = stdtrit(WELCH_DOF[None, :], level[:, None])
    bounds.flags.writeable = False
    return bounds


@numba.njit(cache=True, inline="always")
def _add_p_sum(
    pair: np.ndarray, a: int, b: int, data: float, length: float, noise: float, wnoise: float
) -> None:
    inverse = 1.0 / length
    pair[a, b, SPLIT_SIZE] += 1.0
    pair[a, b, INV_LENGTHS] += inverse
    pair[a, b, CROSS] += (2.0 * data * noise + noise * noise + (length - 1.0) * wnoise) * inverse
    u = (data + noise) * math.sqrt(inverse)
    pair[a, b, U_SUM] += u
    pair[a, b, U_SQUARES] += u * u


@numba.njit(cache=True, inline="always")
def record_p_sum(
    pair: np.ndarray,
    levels: np.ndarray,
    query: Query,
    mechanism: int,
    form: int = EQ16,
) -> None:
    """Record the p-sum created by the release answering ``query`` (the κ-th of b to a,
    at time t, with the new p-sum's mean noise Z and variance noise W) and update the sums
    over the p-sums of that release's split.

    With ``form`` = DROP_FIRST (PM-I only) the first p-sum is left out of the sums.
    """
    a, b, kappa, t = query.a, query.b, query.kappa, query.t
    data = query.data_sum - pair[a, b, LAST_SUM]
    length = t - pair[a, b, LAST_TIME]
    pair[a, b, LAST_SUM] = query.data_sum
    pair[a, b, LAST_TIME] = t
    if mechanism != PM2:  # PM-I (or no noise): the split is every query interval
        if form != DROP_FIRST or kappa > 1:
            _add_p_sum(pair, a, b, data, length, query.noise, query.variance_noise)
        return
    # The p-sums below merge into the new one (the binary mechanism's tree).
    low = merge_push(levels[a, b, LEVEL_DATA], kappa, data)
    merge_push(levels[a, b, LEVEL_LENGTH], kappa, length)
    levels[a, b, LEVEL_VARIANCE_NOISE, low] = query.variance_noise
    for field in (SPLIT_SIZE, INV_LENGTHS, CROSS, U_SUM, U_SQUARES):
        pair[a, b, field] = 0.0
    bits = kappa
    i = 0
    while bits:
        if bits & 1:
            _add_p_sum(pair, a, b, levels[a, b, LEVEL_DATA, i], levels[a, b, LEVEL_LENGTH, i],
                       levels[a, b, LEVEL_NOISE, i], levels[a, b, LEVEL_VARIANCE_NOISE, i])
        bits >>= 1
        i += 1


@numba.njit(cache=True)
def gamma_series(a: float, x: float) -> float:
    """S(a, x) = Σ_{n>=0} x^n / (a (a+1) ⋯ (a+n)) = γ(a, x) e^x x^(-a).

    The lower incomplete gamma function without its factor x^a e^(-x), which over- or
    underflows for large a. For 0 <= x < a + 1 the terms decrease from the first on.
    """
    term = 1.0 / a
    total = term
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= x / (a + n)
        total += term
    return total


@numba.njit(cache=True)
def bayes_estimate(raw: float, k: float, noise: float, prior: int) -> float:
    """Eq. (19): V^imp = V if V >= 0, else the truncated inverse-gamma posterior mean.

    ``noise`` is c = K σ_DP², K = (1/k) Σ 1/ℓ_i, the variance the p-sum noise adds to each
    u_i. With V' = V + c and x = (k - 1) V'/(2c), the posterior mean is
    V' (k-1)/2 · γ(a-1, x)/γ(a, x) - c = c (S(a-1, x)/S(a, x) - 1) (S of
    :func:`gamma_series`, computed without overflow for any k). The shape a is (k + 2)/2
    (``paper``), (k + 1)/2 (``jeffreys``) or (k - 2)/2 (``uniform``), footnote 3; the mean
    is +∞ when a <= 1. The paper derives it for PM-I and RR (k = κ, ℓ_i = M - 1); other
    mechanisms and schedules enter through K. (With the stated prior and the likelihood
    of the sample variance V', whose k - 1 degrees of freedom give (σ² + c)^(-(k-1)/2),
    the shape would be (k + 1)/2, the ``jeffreys`` option; the printed (k + 2)/2 is the
    default.)
    """
    if raw >= 0.0:
        return raw
    if prior == PAPER_PRIOR:
        shape = (k + 2.0) / 2.0
    elif prior == JEFFREYS_PRIOR:
        shape = (k + 1.0) / 2.0
    else:
        shape = (k - 2.0) / 2.0
    if shape <= 1.0 or noise <= 0.0:
        return math.inf
    x = max((k - 1.0) * (raw + noise) / (2.0 * noise), 0.0)
    series = gamma_series(shape, x)
    # S(a - 1, x) = (1 + x S(a, x))/(a - 1): one series gives both.
    return noise * ((1.0 + x * series) / ((shape - 1.0) * series) - 1.0)


@numba.njit(cache=True, inline="always")
def update_estimate(
    pair: np.ndarray,
    query: Query,
    released: float,
    sigma2_dp: float,
    variance: int,
    prior: int,
    form: int,
    given: float = math.nan,
) -> None:
    """Update V_{b→a} (RAW_ESTIMATE) and the σ_b² estimate in use (ESTIMATE) after the
    release ``released`` = X̄_b^(t) + Z^(t) answering ``query``.

    With ``shared`` variances, a finite ``given`` is released in place of b's eq. (8):
    the variance noise is then whatever makes the release that value (the privacy
    audit's coupling, :class:`sweep.colme.kernel.Audit`)."""
    a, b, t = query.a, query.b, query.t
    square_sum = query.square_sum
    k = pair[a, b, SPLIT_SIZE]
    inv_lengths = pair[a, b, INV_LENGTHS]
    noise = 0.0
    if variance == SHARED:
        if t < 2:
            return
        raw = (  # eq. (8)
            square_sum + pair[a, b, CROSS] - t * released * released
            - sigma2_dp * (inv_lengths - k / t)
        ) / (t - 1.0)
        if not math.isnan(given):
            raw = given
    elif k < 2.0:
        return
    elif form != WEIGHTED:  # eq. (16), over every p-sum or (drop_first) all but the first
        u_sum = pair[a, b, U_SUM]
        noise = sigma2_dp * inv_lengths / k
        raw = pair[a, b, U_SQUARES] / (k - 1.0) - u_sum * u_sum / (k * (k - 1.0)) - noise
    else:
        noise = sigma2_dp * (inv_lengths - k / t) / (k - 1.0)
        raw = (pair[a, b, U_SQUARES] - t * released * released) / (k - 1.0) - noise
    pair[a, b, RAW_ESTIMATE] = raw
    if variance == INFERRED_BAYES:
        raw = bayes_estimate(raw, k, noise, prior)
    # Negative counts as ∞ (Sec. V); so does 0, which only noiseless releases of
    # degenerate data reach and which would give b infinite weight.
    pair[a, b, ESTIMATE] = raw if raw > 0.0 else math.inf


@numba.njit(cache=True)
def _beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


@numba.njit(cache=True)
def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
        + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


@numba.njit(cache=True, inline="always")
def welch_samples(pair: np.ndarray, kappa: np.ndarray, a: int, b: int, variance: int,
                  dof: int) -> float:
    """n_b, with n_b - 1 the degrees of freedom the Welch test gives Var̂[T_{b→a}]: t_κ
    (``paper``, the formula after eq. (5)) or the number k of p-sums that Sch-Var-2's
    estimate in use comes from (``releases``: a sample variance of k values u_i, eq. (16),
    has k - 1). That k is the latest split's, except under PM-II at κ = 2^m, a single
    p-sum: a then keeps the estimate of release κ - 1, whose split has m p-sums.
    Unread (0) with known variances, whose state keeps neither."""
    if variance == KNOWN:
        return 0.0
    if dof != RELEASES_DOF:
        return pair[a, b, LAST_TIME]
    k = pair[a, b, SPLIT_SIZE]
    return k if k >= 2.0 else math.floor(math.log2(kappa[a, b]))


@numba.njit(cache=True, inline="always")
def welch_cuts(bounds: np.ndarray, samples: float) -> tuple[float, float]:
    """Squared quantiles that settle most Welch tests without ν: the normal quantile at
    the stretch's first t (every t quantile is larger) and the t quantile at the least
    possible ν = n_b - 1 (Welch-Satterthwaite: ν >= min(t - 1, n_b - 1), n_b of
    :func:`welch_samples`, at most t) at its last t."""
    last = bounds.shape[1] - 1
    j = min(int(8.0 * math.log2(samples - 1.0)), last - 1)
    return bounds[0, last] ** 2, bounds[1, j] ** 2


@numba.njit(cache=True, inline="always")
def passes_welch(
    gap2: float,
    own: float,
    other: float,
    t: int,
    samples: float,
    cuts: tuple[float, float],
    bounds: np.ndarray,
    theta: float,
) -> bool:
    """Welch test of Sec. III-C2: |X̄_a - T| < Φ⁻¹_{t,ν}(1 - θ/2) √(V_a/t + Var̂[T]).

    ``gap2`` = (X̄_a - T)², ``own`` = V_a^(t)/t, ``other`` = Var̂[T_{b→a}], ν as after
    eq. (5) with ``samples`` - 1 in place of t_κ - 1 (:func:`welch_samples`). ``cuts``,
    the squared quantiles (accept², reject²), come from :func:`welch_cuts`. Between them,
    the quantile, which falls with ν and rises with t, is bracketed by
    ``bounds[0, j + 1]``, the quantile at ν_{j+1} >= ν for the smallest t of the current
    stretch, and ``bounds[1, j]``, the one at ν_j <= ν for its largest t (see
    :data:`WELCH_DOF`); only inside that bracket is the exact comparison made:
    P(|T_ν| >= |gap|/se) > θ, with the Student tail I_{ν/(ν+x²)}(ν/2, 1/2).
    """
    accept2, reject2 = cuts
    se2 = own + other
    if gap2 < accept2 * se2:
        return True
    if gap2 >= reject2 * se2:
        return False
    nu = se2 * se2 / (own * own / (t - 1.0) + other * other / (samples - 1.0))
    j = min(max(int(8.0 * math.log2(nu)), 0), bounds.shape[1] - 2)
    if gap2 < bounds[0, j + 1] ** 2 * se2:
        return True
    if gap2 >= bounds[1, j] ** 2 * se2:
        return False
    return regularized_beta(nu / 2.0, 0.5, nu / (nu + gap2 / se2)) > theta
