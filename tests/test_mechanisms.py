"""Acceptance 2: the structure of PM-I, PM-II and the Laplace noise."""

import math

import numba
import numpy as np
import pytest
from scipy import stats

from sweep.colme.config import GAUSSIAN, LAPLACE, NO_MECHANISM, PM1, PM2
from sweep.colme.mechanisms import draw_noise, pm2_push
from sweep.colme.privacy import data_bound, gaussian_sigma_dp, laplace_sigma_dp

from .stats import assert_close_mean, assert_close_variance


def binary_blocks(kappa: int) -> list[int]:
    """Release indices ending the p-sums of release κ (e.g. 13 = 8 + 4 + 1 → 8, 12, 13)."""
    ends, total = [], 0
    for bit in reversed(range(kappa.bit_length())):
        if kappa >> bit & 1:
            total += 1 << bit
            ends.append(total)
    return ends


def test_pm2_reuses_the_noise_of_identical_p_sums():
    levels = np.zeros((1, 1, 2, 8))
    fresh = 10.0 ** np.arange(1, 101)  # distinct, so every sum identifies its parts
    for kappa in range(1, 101):
        noise = pm2_push(levels, 0, 0, kappa, fresh[kappa - 1])
        # Each p-sum's noise was drawn when the release ending it was made.
        expected = sum(fresh[end - 1] for end in binary_blocks(kappa))
        assert noise == pytest.approx(expected, rel=1e-15)


@numba.njit
def _released_noise(rng, noise, mechanism, sigma_dp, kappa_max, n):
    """N_κ (the noise of the κ-th release) for κ = 1..kappa_max, n independent runs."""
    levels = np.zeros((1, 1, 2, 16))
    out = np.empty((n, kappa_max))
    for r in range(n):
        total = 0.0
        for kappa in range(1, kappa_max + 1):
            fresh = draw_noise(rng, noise, sigma_dp)
            if mechanism == PM1:
                total += fresh
            else:
                total = pm2_push(levels, 0, 0, kappa, fresh)
            out[r, kappa - 1] = total
    return out


@pytest.mark.parametrize("mechanism", [PM1, PM2])
@pytest.mark.parametrize("noise", [GAUSSIAN, LAPLACE])
def test_released_noise_variance(mechanism, noise):
    """Var[Z^(t_κ)] = κ σ_DP²/t² (PM-I) and w_H(κ) σ_DP²/t² (PM-II); t cancels in N_κ."""
    rng = np.random.Generator(np.random.PCG64(7 + 10 * mechanism + noise))
    sigma_dp = 1.7
    released = _released_noise(rng, noise, mechanism, sigma_dp, 20, 20_000)
    for kappa in (1, 2, 3, 7, 8, 13, 20):
        parts = kappa if mechanism == PM1 else bin(kappa).count("1")
        assert_close_variance(released[:, kappa - 1], parts * sigma_dp**2)


def test_laplace_noise_is_centred_with_variance_sigma_dp_squared():
    sigma_dp = 2.5
    rng = np.random.Generator(np.random.PCG64(11))
    draws = _released_noise(rng, LAPLACE, PM1, sigma_dp, 1, 100_000)[:, 0]
    assert_close_mean(draws, 0.0)
    assert_close_variance(draws, sigma_dp**2)
    # The shape too: a scale passed as the location would shift or distort it.
    scale = sigma_dp / math.sqrt(2)
    assert stats.kstest(draws, stats.laplace(loc=0.0, scale=scale).cdf).pvalue > 1e-3


def test_no_mechanism_constant_is_distinct():
    assert len({PM1, PM2, NO_MECHANISM}) == 3


def test_calibration_matches_lemmas_1_and_2():
    bound = data_bound("uniform", 0.5)
    assert bound == pytest.approx(0.5 * math.sqrt(3))
    assert gaussian_sigma_dp(bound, 0.5, 1e-6) ** 2 == pytest.approx(
        8 * bound**2 * math.log(1.25e6) / 0.25
    )
    assert laplace_sigma_dp(bound, 2.0) ** 2 == pytest.approx(8 * bound**2 / 4.0)
