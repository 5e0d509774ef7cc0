"""Private release mechanisms PM-I and PM-II (Sec. IV), compiled.

Agent b keeps one noise state per receiver a. A release of the κ-th query privatizes the
running sum of b's data with the sum of the noises of its p-sums; the released mean is
(Σ X + N_κ)/t_κ. Each query draws exactly one fresh p-sum noise:

* PM-I splits [1 : t_κ] at the query times, so N_κ = N_{κ-1} + fresh (O(1) state).
* PM-II joins those pieces by the binary representation of κ. The p-sum created at
  release j covers releases j - 2^i + 1 .. j, where 2^i is the lowest set bit of j, and
  is reused, with the same noise value, by every later release whose representation
  contains it. One noise value per level i is kept.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .config import GAUSSIAN


@numba.njit(cache=True, inline="always")
def draw_noise(rng: np.random.Generator, noise: int, sigma_dp: float) -> float:
    """One p-sum noise with variance σ_DP²: Gaussian (Lemma 1) or Laplace (Lemma 2)."""
    if noise == GAUSSIAN:
        return sigma_dp * rng.standard_normal()
    return rng.laplace(0.0, sigma_dp / math.sqrt(2.0))


@numba.njit(cache=True, inline="always")
def lowest_bit(kappa: int) -> int:
    """Index i of the lowest set bit of κ >= 1 (the level of the p-sum it creates)."""
    i = 0
    while not (kappa >> i) & 1:
        i += 1
    return i


@numba.njit(cache=True, inline="always")
def pm2_push(levels: np.ndarray, a: int, b: int, kappa: int, fresh: float) -> float:
    """Record the p-sum created by release κ of b to a and return N_κ, its noise.

    ``levels[a, b, 0, i]`` holds the noise of the live p-sum at level i; p-sums below the
    new one are merged into it and never used again.
    """
    levels[a, b, 0, lowest_bit(kappa)] = fresh
    total = 0.0
    bits = kappa
    i = 0
    while bits:
        if bits & 1:
            total += levels[a, b, 0, i]
        bits >>= 1
        i += 1
    return total
