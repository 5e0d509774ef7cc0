"""Analytic baselines against brute-force enumeration and their closed forms."""

import itertools
import math

import numpy as np
import pytest

from sweep.colme.baselines import ideal_mse, inverse_class_size, local_mse, oracle_mse
from sweep.colme.config import ColmeConfig
from sweep.colme.privacy import sigma_dp

from .reference import Sender, statistic_variance


def brute_force_oracle(config: ColmeConfig, t: int) -> float:
    """Prop. 3 / Remark 3 by enumerating every class membership of the M - 1 others."""
    m, p = config.n_agents, 1.0 / config.n_classes
    sigma2 = config.sigma**2
    noise = sigma_dp(config)

    def variance(period: int, position: int) -> float:
        sender = Sender(config.mechanism, 0.0, config.noise)
        sender.query_times = list(range(position, t + 1, period))
        if not sender.query_times:
            return math.inf
        return statistic_variance(sender, config.weights, sigma2, noise)

    total = 0.0
    for members in itertools.product((0, 1), repeat=m - 1):
        n = 1 + sum(members)
        weight = p ** (n - 1) * (1 - p) ** (m - n)
        if config.schedule == "rr":
            positions = [pos for pos, inside in enumerate(members, start=1) if inside]
            period = m - 1
        else:
            positions, period = list(range(1, n)), n - 1
        precision = t / sigma2 + sum(1 / variance(period, pos) for pos in positions)
        total += weight / precision
    return total


@pytest.mark.parametrize("schedule", ["rr", "rrr"])
@pytest.mark.parametrize(("mechanism", "weights"), [
    ("pm1", "last"), ("pm1", "mom"), ("pm2", "last"), ("pm2", "mom"), ("pm2", "wmom"),
    ("none", "last"),
])
@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_oracle_equals_enumeration(schedule, mechanism, weights, noise):
    config = ColmeConfig.from_options(
        n_agents=7, t_max=60, n_classes=3, schedule=schedule, mechanism=mechanism,
        weights=weights, noise=noise, epsilon=0.5,
    )
    times = np.array([1, 2, 5, 6, 7, 13, 31, 60])
    analytic = oracle_mse(config, times)
    for t, value in zip(times, analytic, strict=True):
        assert value == pytest.approx(brute_force_oracle(config, int(t)), rel=1e-9, abs=0)


def test_oracle_with_a_single_class_is_the_pooled_precision():
    config = ColmeConfig.from_options(n_agents=5, n_classes=1, class_means=[0.3],
                                      mechanism="none", t_max=8)
    # Without noise, every T is the sender's last mean; with all in one class the
    # precision at t = 4 is t/σ² plus Σ_ℓ t_ℓ/σ² over the positions ℓ = 1..4.
    expected = 1.0 / ((4 + 1 + 2 + 3 + 4) / 0.25)
    assert oracle_mse(config, np.array([4]))[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("m", [2, 5, 30])
@pytest.mark.parametrize("classes", [1, 3, 4])
def test_inverse_class_size_enumerated(m, classes):
    config = ColmeConfig.from_options(n_agents=m, n_classes=classes,
                                      class_means=[float(c) for c in range(classes)])
    p = 1.0 / classes
    expected = sum(
        math.comb(m - 1, k) * p**k * (1 - p) ** (m - 1 - k) / (k + 1) for k in range(m)
    )
    assert inverse_class_size(config) == pytest.approx(expected, rel=1e-12)


def test_local_and_ideal_closed_forms():
    config = ColmeConfig.from_options(n_agents=4, class_assignment="balanced",
                                      n_classes=3)
    times = np.array([1, 10])
    np.testing.assert_allclose(local_mse(config, times), [0.25, 0.025])
    # Sizes 2, 1, 1: (1/M) Σ_a 1/|C_a| = 3/4.
    np.testing.assert_allclose(ideal_mse(config, times), [0.25 * 0.75, 0.025 * 0.75])
