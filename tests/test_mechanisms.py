"""Acceptance 2: the structure of PM-I, PM-II and the Laplace noise."""

import math

import numba
import numpy as np
import pytest
from scipy import stats

from sweep.colme.config import PM1, PM2, ColmeConfig
from sweep.colme.engine import draw_labels, run_replicate
from sweep.colme.privacy import data_bound, sigma_dp
from sweep.colme.statistic import NOISE, NOISE_VAR
from sweep.components.calibration import mean_release_std
from sweep.components.noise import GAUSSIAN, LAPLACE, STAIRCASE, draw_std, stairs
from sweep.components.tree import push_and_sum

from .reference import binary_blocks
from .stats import assert_close_mean, assert_close_variance


def test_pm2_reuses_the_noise_of_identical_p_sums():
    levels = np.zeros(8)
    fresh = 10.0 ** np.arange(1, 101)  # distinct, so every sum identifies its parts
    for kappa in range(1, 101):
        noise = push_and_sum(levels, kappa, fresh[kappa - 1])
        # Each p-sum's noise was drawn when the release ending it was made.
        expected = sum(fresh[end - 1] for end in binary_blocks(kappa))
        assert noise == pytest.approx(expected, rel=1e-15)


@numba.njit
def _released_noise(rng, noise, mechanism, sigma_dp, kappa_max, n, shape):
    """N_κ (the noise of the κ-th release) for κ = 1..kappa_max, n independent runs;
    ``shape``, the staircase's (:func:`sweep.components.noise.stairs`)."""
    levels = np.zeros(16)
    out = np.empty((n, kappa_max))
    for r in range(n):
        total = 0.0
        for kappa in range(1, kappa_max + 1):
            fresh = draw_std(rng, noise, sigma_dp, shape)
            if mechanism == PM1:
                total += fresh
            else:
                total = push_and_sum(levels, kappa, fresh)
            out[r, kappa - 1] = total
    return out


@pytest.mark.parametrize("mechanism", [PM1, PM2])
@pytest.mark.parametrize("noise", [GAUSSIAN, LAPLACE, STAIRCASE])
def test_released_noise_variance(mechanism, noise):
    """Var[Z^(t_κ)] = κ σ_DP²/t² (PM-I) and w_H(κ) σ_DP²/t² (PM-II); t cancels in N_κ.
    The staircase's shape is that of ε = 3, where it is far from Laplace's."""
    rng = np.random.Generator(np.random.PCG64(7 + 10 * mechanism + noise))
    sigma_dp = 1.7
    released = _released_noise(rng, noise, mechanism, sigma_dp, 20, 20_000,
                               stairs(noise, 3.0))
    for kappa in (1, 2, 3, 7, 8, 13, 20):
        parts = kappa if mechanism == PM1 else bin(kappa).count("1")
        assert_close_variance(released[:, kappa - 1], parts * sigma_dp**2)


def test_laplace_noise_is_centred_with_variance_sigma_dp_squared():
    sigma_dp = 2.5
    rng = np.random.Generator(np.random.PCG64(11))
    draws = _released_noise(rng, LAPLACE, PM1, sigma_dp, 1, 100_000, stairs(LAPLACE, 1.0))[:, 0]
    assert_close_mean(draws, 0.0)
    assert_close_variance(draws, sigma_dp**2)
    # The shape too: a scale passed as the location would shift or distort it.
    scale = sigma_dp / math.sqrt(2)
    assert stats.kstest(draws, stats.laplace(loc=0.0, scale=scale).cdf).pvalue > 1e-3


@pytest.mark.parametrize("mechanism", ["none", "pm1"])
def test_no_mechanism_draws_and_adds_no_noise(mechanism):
    """mechanism=none: the stream holds the class labels and the data only (replayed
    here), and no release carries noise; with pm1 the same replay must fail."""
    config = ColmeConfig.from_options(n_agents=6, t_max=40, checkpoints=2,
                                      mechanism=mechanism)
    seed = np.random.SeedSequence(5)
    _, state = run_replicate(config, seed)
    rng = np.random.Generator(np.random.PCG64(seed))
    labels = draw_labels(config, rng)
    means = np.asarray(config.class_means)[labels]
    bound = data_bound(config.distribution, config.sigma)
    data_sum = np.zeros(config.n_agents)
    for _ in range(config.t_max):
        for a in range(config.n_agents):
            data_sum[a] += means[a] + bound * (2.0 * rng.random() - 1.0)
    np.testing.assert_array_equal(state.labels, labels)
    if mechanism == "none":
        assert sigma_dp(config) == 0.0
        np.testing.assert_array_equal(state.data_sum, data_sum)
        assert not state.pair[:, :, NOISE].any() and not state.pair[:, :, NOISE_VAR].any()
    else:  # noise draws sit between the data draws: the replay falls out of step
        assert not np.array_equal(state.data_sum, data_sum)
        assert state.pair[:, :, NOISE].any()


def test_calibration_matches_lemmas_1_and_2():
    bound = data_bound("uniform", 0.5)
    assert bound == pytest.approx(0.5 * math.sqrt(3))
    assert mean_release_std("gaussian", bound, 0.5, 1e-6) ** 2 == pytest.approx(
        8 * bound**2 * math.log(1.25e6) / 0.25
    )
    assert mean_release_std("laplace", bound, 2.0, 1e-6) ** 2 == pytest.approx(
        8 * bound**2 / 4.0)
    config = ColmeConfig.from_options(noise="laplace", epsilon=2.0, mechanism="pm1")
    assert sigma_dp(config) == mean_release_std("laplace", bound, 2.0, 1e-6)
