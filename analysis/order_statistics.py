"""Distribution-free intervals for quantiles from order statistics: the median and tail
quantiles of replicates' errors, drawn with an interval that holds whatever their law."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Confidence of an order-statistic interval (and of the continual study's slopes).
LEVEL = 0.95


@dataclass(frozen=True)
class Ranks:
    """1-based ranks of order statistics X_(1) <= ... <= X_(n) of n replicates: the
    quantile's estimate X_(point) and its interval [X_(low), X_(high)], which holds the
    quantile with probability at least ``coverage`` whatever the distribution."""

    point: int
    low: int
    high: int
    coverage: float


@functools.cache
def quantile_ranks(n: int, q: float, level: float = LEVEL) -> Ranks:
    """The order statistics that estimate the q-quantile ξ_q of n i.i.d. values, and a
    distribution-free interval for it.

    The estimate is X_(⌈nq⌉), the inverse of the empirical distribution function. With
    B ~ Binomial(n, q) the number of values at or below ξ_q, X_(j) <= ξ_q exactly when
    B >= j, so P(X_(j) <= ξ_q < X_(k)) = P(j <= B <= k − 1) for any continuous
    distribution (at least that for any other). ``low`` is the largest j with
    P(B < j) <= (1 − level)/2 and ``high`` the smallest k with P(B >= k) <= (1 − level)/2;
    where no rank is that far out (few replicates for a quantile near 0 or 1: with n = 50
    the 0.95-quantile is above X_(50) with probability 0.95⁵⁰ = 0.077), the sample's
    extreme is taken and ``coverage``, the exact P(low <= B <= high − 1), says what the
    interval holds.
    """
    if n < 1:
        raise ValueError(f"n: must be at least 1; got {n}")
    if not 0.0 < q < 1.0:
        raise ValueError(f"q: must be in (0, 1); got {q}")
    cdf = stats.binom.cdf(np.arange(n + 1), n, q)  # cdf[i] = P(B <= i)
    tail = (1.0 - level) / 2
    point = min(n, max(1, math.ceil(n * q - 1e-9)))  # n·q integral up to rounding: its rank
    low = max((j for j in range(1, point + 1) if cdf[j - 1] <= tail), default=1)
    high = min((k for k in range(point, n + 1) if 1.0 - cdf[k - 1] <= tail), default=n)
    return Ranks(point, low, high, float(cdf[high - 1] - cdf[low - 1]))
