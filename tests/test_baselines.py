"""Analytic baselines against brute-force enumeration and their closed forms."""

import itertools
import math

import numpy as np
import pytest

from sweep.colme.baselines import ideal_mse, inverse_class_size, local_mse, oracle_mse
from sweep.colme.config import ColmeConfig
from sweep.colme.privacy import sigma_dp
from sweep.execute import simulate

from .reference import Sender, statistic_variance
from .stats import Z, assert_close_means


def brute_force_oracle(config: ColmeConfig, t: int) -> float:
    """Prop. 3 / Remark 3 by enumerating every class membership of the M - 1 others; with
    ``oracle_start=simulator`` rRR's member i (at position q_i of the first sweep) is
    queried at q_i, then at M - 1 + i, M - 1 + i + (n - 1), …"""
    m, p = config.n_agents, 1.0 / config.n_classes
    sigma2 = config.sigma**2
    noise = sigma_dp(config)

    def variance(times: list[int]) -> float:
        sender = Sender(config.mechanism, 0.0, config.noise)
        sender.query_times = [time for time in times if time <= t]
        if not sender.query_times:
            return math.inf
        return statistic_variance(sender, config.weights, sigma2, noise)

    total = 0.0
    for members in itertools.product((0, 1), repeat=m - 1):
        n = 1 + sum(members)
        weight = p ** (n - 1) * (1 - p) ** (m - n)
        positions = [pos for pos, inside in enumerate(members, start=1) if inside]
        if config.schedule == "rr":
            schedules = [range(pos, t + 1, m - 1) for pos in positions]
        elif config.oracle_start == "paper":
            schedules = [range(i, t + 1, n - 1) for i in range(1, n)]
        else:
            schedules = [[q, *range(m - 1 + i, t + 1, n - 1)]
                         for i, q in enumerate(positions, start=1)]
        precision = t / sigma2 + sum(1 / variance(list(times)) for times in schedules)
        total += weight / precision
    return total


@pytest.mark.parametrize(("schedule", "start"), [("rr", "paper"), ("rrr", "paper"),
                                               ("rrr", "simulator")])
@pytest.mark.parametrize(("mechanism", "weights"), [
    ("pm1", "last"), ("pm1", "mom"), ("pm2", "last"), ("pm2", "mom"), ("pm2", "wmom"),
    ("none", "last"),
])
@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_oracle_equals_enumeration(schedule, start, mechanism, weights, noise):
    config = ColmeConfig.from_options(
        n_agents=7, t_max=60, n_classes=3, schedule=schedule, mechanism=mechanism,
        weights=weights, noise=noise, epsilon=0.5, oracle_start=start,
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


def test_simulator_start_by_hand():
    """M = 3, Γ = 2 (p = 1/2), no privacy noise, non-MoM (Var[T] = σ²/t_κ), t = 2.

    |C_a| = 1 (probability 1/4): σ²/2. |C_a| = 3 (1/4): both others answer at t = 1 and
    2 under either start, precision (2 + 1 + 2)/σ², MSE σ²/5. |C_a| = 2 (1/2): Remark 3
    queries the one member at t = 1, 2 (precision (2 + 2)/σ², σ²/4); the simulator's
    first sweep queries it at its position q (1 or 2, each with probability 1/2), then
    at t = 3: σ²/3 or σ²/4. So Remark 3 gives σ² (1/8 + 1/8 + 1/20) = 0.3 σ² and the
    simulator's start σ² (1/8 + (1/3 + 1/4)/4 + 1/20) = 77/240 σ².
    """
    options = dict(n_agents=3, n_classes=2, class_means=[0.0, 1.0], mechanism="none",
                   schedule="rrr", t_max=3)
    paper = oracle_mse(ColmeConfig.from_options(**options), np.array([2]))[0]
    simulator = oracle_mse(ColmeConfig.from_options(oracle_start="simulator", **options),
                           np.array([2]))[0]
    assert paper == pytest.approx(0.3 * 0.25, rel=1e-12)
    assert simulator == pytest.approx(77 / 240 * 0.25, rel=1e-12)


@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_rr_oracle_has_one_start(mechanism):
    """RR queries position ℓ at ℓ, ℓ + M - 1, … under both starts."""
    options = dict(n_agents=9, t_max=100, mechanism=mechanism, weights="mom")
    times = np.array([3, 8, 9, 50, 100])
    np.testing.assert_array_equal(
        oracle_mse(ColmeConfig.from_options(**options), times),
        oracle_mse(ColmeConfig.from_options(oracle_start="simulator", **options), times))


def eq21_mom_at_7(sigma2: float, sigma2_dp: float, printed: bool) -> float:
    """Var[T] after 7 releases at t_j = j, PM-II with MoM weights 1/7.

    Data part (Appendix A): σ²/49 Σ_{i<=7} (2i - 1)/i = σ² (14 - H_7)/49, H_7 = 363/140.
    Eq. (21) pools per bit-length group l and bit position: group 1 {1}: 1; group 2
    {2, 3}: bit 2 (1/2 + 1/3)², bit 1 (1/3)²; group 3 {4..7}: bit 3
    (1/4 + 1/5 + 1/6 + 1/7)², bit 2 (j = 6, 7) (1/6 + 1/7)², bit 1 (j = 5, 7)
    (1/5 + 1/7)². The p-sums are [1:1], [1:2], [3:3], [1:4], [5:5], [5:6], [7:7]: the
    same except that [5:5] and [7:7] enter apart, (1/5)² + (1/7)².
    """
    shared = 1 + (1 / 2 + 1 / 3) ** 2 + (1 / 3) ** 2 + (1 / 4 + 1 / 5 + 1 / 6 + 1 / 7) ** 2 + (
        1 / 6 + 1 / 7) ** 2
    noise = shared + ((1 / 5 + 1 / 7) ** 2 if printed else (1 / 5) ** 2 + (1 / 7) ** 2)
    return sigma2 * (14 - 363 / 140) / 49 + sigma2_dp * noise / 49


@pytest.mark.parametrize("form", ["exact", "printed"])
def test_eq21_printed_by_hand(form):
    """M = 2 and one class: the one other agent answers at every t, so at t = 7 the
    oracle is 1/(7/σ² + 1/Var[T]) with Var[T] of :func:`eq21_mom_at_7`."""
    config = ColmeConfig.from_options(n_agents=2, n_classes=1, class_means=[0.3], t_max=7,
                                      mechanism="pm2", weights="mom", oracle_eq21=form)
    sigma2 = config.sigma**2
    variance = eq21_mom_at_7(sigma2, sigma_dp(config) ** 2, form == "printed")
    assert oracle_mse(config, np.array([7]))[0] == pytest.approx(
        1 / (7 / sigma2 + 1 / variance), rel=1e-12)


@pytest.mark.parametrize(("mechanism", "weights"), [("pm1", "mom"), ("pm2", "last")])
def test_eq21_printed_only_changes_pm2_window_sums(mechanism, weights):
    """Eq. (21) pools nothing for non-MoM (w_H(κ)/t_κ², Appendix A), and PM-I has eq. (20)."""
    options = dict(n_agents=6, t_max=200, mechanism=mechanism, weights=weights)
    times = np.array([5, 40, 200])
    np.testing.assert_allclose(
        oracle_mse(ColmeConfig.from_options(oracle_eq21="printed", **options), times),
        oracle_mse(ColmeConfig.from_options(**options), times), rtol=1e-13)


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "weights"), [("pm1", "mom"), ("pm1", "last")])
def test_errorless_simulated_rrr_matches_the_simulator_start_oracle(mechanism, weights):
    """The simulator's rRR with a decision rule that never errs (classes 10⁵ apart, far
    beyond any DP noise, and θ0 = 10⁻¹² so no member fails the test) is the
    ``oracle_start=simulator`` oracle, within Z standard errors; Remark 3's oracle
    (members queried from t = 1; 11-20% lower around t = M here) is not."""
    checks = [5, 20, 39, 40, 80, 200, 500, 2000]
    options = dict(n_agents=40, t_max=2000, schedule="rrr", mechanism=mechanism,
                   weights=weights, epsilon=1.0)
    frame = simulate("colme", replicates=400, seed=21, checkpoints=checks,
                     class_means=[0.0, 1e5, 2e5], decision={"theta0": 1e-12}, **options)
    runs = frame[frame.method == "colme"].pivot(index="replicate", columns="t",
                                               values="mse").to_numpy()
    times = np.array(checks)
    simulator = oracle_mse(ColmeConfig.from_options(oracle_start="simulator", **options),
                           times)
    assert_close_means(runs, simulator)
    paper = oracle_mse(ColmeConfig.from_options(**options), times)
    error = runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    assert (np.abs(runs.mean(axis=0) - paper) > Z * error).any()


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
