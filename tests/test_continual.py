"""The continual family (sweep/continual/) against the closed forms of George, Ramesh, Singh &
Tyagi, "Continual Mean Estimation Under User-Level Privacy".

Equation, algorithm and appendix numbers are the paper's; "erratum n" is item n of the list
in sweep/continual/__init__.py. Monte-Carlo checks allow Z standard errors (tests/stats.py)
with fixed seeds; frequency checks use χ² or binomial tails at the same two-sided level,
2Φ(−Z). Streams with Bernoulli or dyadic samples are summed exactly in floating point, so
the deterministic checks compare with ``==``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr
from scipy.stats import binom, chisquare

from sweep.components import tree
from sweep.continual import kernel
from sweep.continual.bounds import bound, lower_bound
from sweep.continual.config import METHODS, ORDERS, PRIOR_METHODS, ContinualConfig
from sweep.continual.family import FAMILY, ContinualCell
from sweep.continual.orders import arrivals
from sweep.continual.parameters import Parameters, coordinate_epsilon, parameters
from sweep.continual.simulate import Coordinate, run_coordinate, streams

from .stats import Z, assert_close_mean, assert_close_variance

#: Two-sided false-alarm level of one check at Z standard errors (≈ 6.8e-6).
ALPHA = 2 * ndtr(-Z)


# --------------------------------------------------------------------------- helpers


def config(**options: Any) -> ContinualConfig:
    """A validated, normalized configuration (defaults: the family's)."""
    return ContinualConfig.from_options(**options)


def run(p: Parameters, users: np.ndarray, n: int, m: int, mu: float, times: Sequence[int],
        seed: int, trace: int = 0, values: np.ndarray | None = None) -> Coordinate:
    """One coordinate with sample generator ``seed`` and noise generator ``seed + 1``."""
    return run_coordinate(p, np.asarray(users, dtype=np.int32), n, m, mu,
                          np.asarray(times, dtype=np.int64), np.random.default_rng(seed),
                          np.random.default_rng(seed + 1), trace=trace, values=values)


def repeat(p: Parameters, users: np.ndarray, n: int, m: int, mu: float, times: Sequence[int],
           replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimates, used, clipped), each (replicates, checkpoints), over one fixed stream of
    users. The generators are shared by the replicates: successive runs draw fresh,
    independent samples and noise, and one generator pair is much cheaper than one each."""
    users = np.asarray(users, dtype=np.int32)
    times = np.asarray(times, dtype=np.int64)
    samples, noise = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    runs = [run_coordinate(p, users, n, m, mu, times, samples, noise)
            for _ in range(replicates)]
    return (np.array([r.estimate for r in runs]), np.array([r.used for r in runs]),
            np.array([r.clipped for r in runs]))


def draws(seed: int, length: int, mu: float) -> np.ndarray:
    """The kernel's samples from generator ``seed``: x_t = 1 if U_t < μ, one U_t per step
    (run_stream's docstring)."""
    return (np.random.default_rng(seed).random(length) < mu).astype(np.float64)


def popcount(k: int) -> int:
    """The p-sums in the binary mechanism's sum of k elements: the set bits of k."""
    return bin(int(k)).count("1")


def counts_at(users: np.ndarray, n: int, t: int) -> np.ndarray:
    """m_u(t): samples of each user among the first t arrivals."""
    return np.bincount(np.asarray(users[:t]), minlength=n)


def released_samples(counts: np.ndarray) -> int:
    """Σ_u 2^⌊log2 m_u⌋: the samples exponential withhold-release has released (Claim C.1;
    erratum 2: a block carries 2^(ℓ−1) samples, the first two one each)."""
    counts = counts[counts > 0]
    return int(sum(1 << (int(c).bit_length() - 1) for c in counts))


def chi_square_pvalue(observed: np.ndarray, probabilities: np.ndarray) -> float:
    """Pearson's χ² p-value, the cells expected below 5 pooled (the χ² approximation needs
    it)."""
    expected = probabilities * observed.sum()
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if expected.size < 2:
        return 1.0
    return float(chisquare(observed, expected).pvalue)


def family_rows(options: dict[str, Any], replicates: int, seed: int = 0
                ) -> tuple[ContinualCell, pd.DataFrame]:
    """(cell, rows) of a continual cell with the planner's seeds, SeedSequence(seed,
    spawn_key=(r,)), fresh for every call (a SeedSequence changes when spawned from)."""
    cell = FAMILY.prepare(options, replicates)
    frame = FAMILY.run(cell, seeds(seed, range(replicates)), range(replicates), False)
    return cell, frame


def seeds(seed: int, replicates: Sequence[int]) -> list[np.random.SeedSequence]:
    return [np.random.SeedSequence(seed, spawn_key=(r,)) for r in replicates]


# -------------------------------------------------------- 1. binary mechanism (Alg. 1)

LONG = 1 << 16


def test_binary_mechanism_step_without_noise_gives_every_prefix_sum() -> None:
    """Alg. 1 with Lap(0): S_t = x_1 + … + x_t at every t <= 2^16 (Sec. 2.3, property ii
    with the erratum to line 11); the live p-sum of t sums its last 2^j* elements
    (line 7)."""
    x = draws(11, LONG, 0.5)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    exact, noisy = np.zeros(tree.depth(LONG)), np.zeros(tree.depth(LONG))
    sums = np.empty(LONG)
    for t in range(1, LONG + 1):
        sums[t - 1] = tree.binary_mechanism_step(exact, noisy, t, x[t - 1], 0.0)
        span = t & -t  # 2^j*, the lowest set bit of t
        assert exact[span.bit_length() - 1] == prefix[t] - prefix[t - span]
    np.testing.assert_array_equal(sums, prefix[1:])


@pytest.mark.parametrize("method", ["alg2", "non_private"])
def test_stream_mode_without_noise_is_the_running_mean_at_every_t(method: str) -> None:
    """The kernel's STREAM mode (Alg. 2 with η set to 0, and the running mean) over
    T = 2^16: μ̂_t = (x_1 + … + x_t)/t at every t; every release is traced with index t,
    its sample, and the exact p-sum of its last 2^j* elements (Alg. 1, line 7). The
    samples are the kernel's draws reproduced from the same seed."""
    cfg = config(n_users=1, max_samples=LONG, t_max=LONG, order={"kind": "contiguous"},
                 method=method, checkpoints=LONG)
    p = parameters(cfg)._replace(eta=np.zeros(1))
    times = np.arange(1, LONG + 1)
    result = run(p, np.zeros(LONG), 1, LONG, 0.3, times, seed=5, trace=LONG)
    x = draws(5, LONG, 0.3)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    np.testing.assert_array_equal(result.estimate, prefix[1:] / times)
    np.testing.assert_array_equal(result.used, times)
    trace = result.trace
    np.testing.assert_array_equal(trace[:, 0], times)
    np.testing.assert_array_equal(trace[:, 2], x)
    np.testing.assert_array_equal(trace[:, 4], times)
    span = times & -times
    np.testing.assert_array_equal(trace[:, 5], prefix[times] - prefix[times - span])


# S_t's p-sums end at t with its set bits cleared from the lowest: 7 → {4, 6, 7}.
def psum_ends(t: int) -> set[int]:
    """The releases whose p-sums make up S_t (Alg. 1, lines 8–11)."""
    ends, k = set(), t
    while k:
        ends.add(k)
        k &= k - 1
    return ends


NOISE_TIMES = (1, 2, 3, 6, 7, 8, 11, 15, 16, 31, 63, 64)
# Pairs whose difference S_b − S_a has variance 2η² |ends(a) Δ ends(b)|: a p-sum's noise is
# drawn once and reused by every S_t that contains it.
NOISE_PAIRS = ((6, 7), (7, 8), (11, 15), (15, 16), (31, 63))


def check_binary_noise(sums: np.ndarray, eta: float) -> None:
    """``sums``: (replicates, NOISE_TIMES) of S_t − Σ x. Each has mean 0 and variance
    2η²·popcount(t) (Sec. 2.3: S_t sums popcount(t) independent Lap(η) p-sums, each of
    variance 2η²); differences share the noise of their common p-sums."""
    for i, t in enumerate(NOISE_TIMES):
        assert len(psum_ends(t)) == popcount(t)
        assert_close_mean(sums[:, i] / eta, 0.0)
        assert_close_variance(sums[:, i] / eta, 2.0 * popcount(t))
    for a, b in NOISE_PAIRS:
        difference = (sums[:, NOISE_TIMES.index(b)] - sums[:, NOISE_TIMES.index(a)]) / eta
        assert_close_variance(difference, 2.0 * len(psum_ends(a) ^ psum_ends(b)))


def test_binary_mechanism_step_noise_variance() -> None:
    """:func:`tree.binary_mechanism_step` fed Lap(η) per new p-sum (Alg. 1, line 7) over a
    zero stream: Var S_t = 2η² popcount(t)."""
    eta, replicates, length = 3.0, 4000, NOISE_TIMES[-1]
    rng = np.random.default_rng(21)
    sums = np.empty((replicates, len(NOISE_TIMES)))
    positions = [t - 1 for t in NOISE_TIMES]
    for r in range(replicates):
        exact, noisy = np.zeros(tree.depth(length)), np.zeros(tree.depth(length))
        laplace = rng.laplace(0.0, eta, length)
        out = [tree.binary_mechanism_step(exact, noisy, t, 0.0, laplace[t - 1])
               for t in range(1, length + 1)]
        sums[r] = np.take(out, positions)
    check_binary_noise(sums, eta)


def test_stream_mode_noise_variance() -> None:
    """Alg. 2 in the kernel, η = m(1 + log T)/ε (its line 1, depth ⌊log2 T⌋ + 1) with μ = 0,
    so that tμ̂_t = S_t is the noise alone: Var S_t = 2η² popcount(t) (Sec. 2.3)."""
    cfg = config(n_users=8, max_samples=8, t_max=64, order={"kind": "round_robin"}, method="alg2",
                 epsilon=2.0)
    p = parameters(cfg)
    eta = float(p.eta[0])
    assert eta == 8 * 7 / 2.0  # m (⌊log2 64⌋ + 1) / ε
    users = np.arange(64) % 8
    estimates, used, _ = repeat(p, users, 8, 8, 0.0, NOISE_TIMES, 6000, seed=31)
    np.testing.assert_array_equal(used, np.broadcast_to(NOISE_TIMES, used.shape))
    check_binary_noise(estimates * np.array(NOISE_TIMES), eta)


# ------------------------------------------- 2. the worked withhold-release example (13)

#: Appendix C, eq. (13): users 1, 2, 2, 2, 1, 2, 1, 1 (0-based here).
EXAMPLE_USERS = np.array([0, 1, 1, 1, 0, 1, 0, 0])
#: Distinct dyadic samples: every sum of a subset is exact and names the subset.
EXAMPLE_X = 2.0 ** np.arange(8) / 256


def example(method: str, **options: Any) -> ContinualConfig:
    return config(n_users=2, max_samples=4, t_max=8, order={"kind": "contiguous"}, method=method,
                  checkpoints=8, **options)


def expected_example_releases(x: np.ndarray) -> list[tuple[int, int, float]]:
    """(t, level, value) of eq. (13): R1 R2 R2 W2 R1 R2 W1 R1, i.e. x1, x2, x3, —, x5,
    x4 + x6, —, x7 + x8 (1-based x)."""
    return [(1, 0, x[0]), (2, 0, x[1]), (3, 1, x[2]), (5, 1, x[4]), (6, 2, x[3] + x[5]),
            (8, 2, x[6] + x[7])]


def test_worked_example_13_with_one_mechanism() -> None:
    """Alg. 4 on the example of eq. (13): the release times, levels and values, the
    mechanism's index k and its exact p-sums (Alg. 1 over the six elements), and
    ``total`` = 1, 2, 3, 3, 4, 6, 6, 8 (erratum 2: it grows by the samples released, not
    by M(u_t), which would give 1, 2, 4, 4, 6, 10, 10, 14). With η = 0, μ̂_t·total is the
    sum of the elements released so far."""
    p = parameters(example("alg4"))
    times = np.arange(1, 9)
    expected = expected_example_releases(EXAMPLE_X)
    for noisy in (True, False):
        q = p if noisy else p._replace(eta=np.zeros(1))
        result = run(q, EXAMPLE_USERS, 2, 4, 0.5, times, seed=3, trace=16, values=EXAMPLE_X)
        trace = result.trace
        assert [(int(t), int(level), value) for t, level, value in trace[:, :3]] == expected
        np.testing.assert_array_equal(trace[:, 3], 0)  # one mechanism
        np.testing.assert_array_equal(trace[:, 4], np.arange(1, 7))
        elements = np.array([value for *_, value in expected])
        psums = [elements[k - (k & -k):k].sum() for k in range(1, 7)]
        np.testing.assert_array_equal(trace[:, 5], psums)
        np.testing.assert_array_equal(result.used, [1, 2, 3, 3, 4, 6, 6, 8])
        np.testing.assert_array_equal(result.clipped, 0)
    released = np.zeros(8)  # Σ of the elements released by t (``result`` has η = 0)
    for t, _, value in expected:
        released[t - 1:] += value
    np.testing.assert_array_equal(result.estimate * result.used, released)


def test_worked_example_13_draws_the_samples_in_arrival_order() -> None:
    """Eq. (13) with Bernoulli(1/2) samples drawn by the kernel: the released values are
    the same sums of x_t = 1{U_t < μ}, U_t the t-th uniform of the samples' generator."""
    result = run(parameters(example("alg4")), EXAMPLE_USERS, 2, 4, 0.5, np.arange(1, 9),
                 seed=8, trace=16)
    x = draws(8, 8, 0.5)
    assert 0 < x.sum() < 8  # both values occur: the check can tell samples apart
    assert [(int(t), int(level), value) for t, level, value in result.trace[:, :3]] == (
        expected_example_releases(x))


def test_worked_example_13_with_one_mechanism_per_level() -> None:
    """Alg. 5 on eq. (13): the same releases, element σ_ℓ into BinMech[ℓ] (line 13), each
    mechanism counting its own index k; ``total`` as in Alg. 4."""
    result = run(parameters(example("alg5")), EXAMPLE_USERS, 2, 4, 0.5, np.arange(1, 9),
                 seed=3, trace=16, values=EXAMPLE_X)
    trace = result.trace
    assert [(int(t), int(level), value) for t, level, value in trace[:, :3]] == (
        expected_example_releases(EXAMPLE_X))
    np.testing.assert_array_equal(trace[:, 3], trace[:, 1])
    np.testing.assert_array_equal(trace[:, 4], [1, 2, 1, 2, 1, 2])
    np.testing.assert_array_equal(result.used, [1, 2, 3, 3, 4, 6, 6, 8])


def test_worked_example_13_with_inactive_levels() -> None:
    """Alg. 6 on eq. (13): level 2 needs 2·k_2 samples to activate (line 9), far more than
    8, so x4 + x6 and x7 + x8 stay in Buffer[2] (lines 24–25) and total = 1, 2, 3, 3, 4, 4,
    4, 4."""
    p = parameters(example("alg6"))
    assert p.threshold[2] > 8
    result = run(p, EXAMPLE_USERS, 2, 4, 0.5, np.arange(1, 9), seed=3, trace=16,
                 values=EXAMPLE_X)
    assert [(int(t), int(level), value) for t, level, value in result.trace[:, :3]] == (
        expected_example_releases(EXAMPLE_X)[:4])
    np.testing.assert_array_equal(result.used, [1, 2, 3, 3, 4, 4, 4, 4])
    np.testing.assert_array_equal(result.activation, 0)


def test_buffered_blocks_are_released_unchanged() -> None:
    """Alg. 6, lines 11–12, on a stream given as values (x_t = 1/4): user 0 gives 4
    samples, then user 1. With Buffer[2] activating once Σ_u min(M(u), 2) >= 4 (t = 6),
    user 0's σ_2 = x3 + x4 = 1/2, buffered at t = 4, enters BinMech[2] at t = 6 as 1/2
    (the interval, centre 2·1/2, half Δ_2 >= 1, leaves it alone), and with η = 0,
    μ̂_8·total = 8 × 1/4 = 2 (the erratum's total: 1 + 1 + 2 samples of each user)."""
    p = parameters(example("alg6"))
    p = p._replace(eta=np.zeros(3), threshold=np.array([0, 0, 4]), k=np.array([0, 0, 2]))
    users = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    result = run(p, users, 2, 4, 0.5, np.arange(1, 9), seed=3, trace=16,
                 values=np.full(8, 0.25))
    np.testing.assert_array_equal(result.activation, [0, 0, 6])
    rows = [(int(t), int(level), value) for t, level, value in result.trace[:, :3]]
    assert (6, 2, 0.5) in rows, rows
    np.testing.assert_array_equal(result.used, [1, 2, 2, 2, 3, 6, 6, 8])
    assert result.estimate[-1] * result.used[-1] == 2.0


# ------------------------------------------------------------------- 3. arrival orders


def order_config(order: str, n: int, m: int, t_max: int, **options: Any) -> ContinualConfig:
    """The order ``order`` with its parameters ``options``."""
    return config(order={"kind": order, **options}, n_users=n, max_samples=m, t_max=t_max)


def sequence_probability(cfg: ContinualConfig, sequence: Sequence[int]) -> float:
    """P(u_1..u_T = ``sequence``) by the rules of sweep/continual/orders.py's docstring."""
    n, m, T, order = cfg.n_users, cfg.max_samples, cfg.t_max, cfg.order
    left = np.full(n, m)
    if order.kind == "one_heavy":
        left[1:] = order.light_samples
    join = np.ones(n, dtype=np.int64)  # 1-based step from which a user may arrive
    if order.kind == "staggered":
        join = 1 + np.arange(n) * T // (2 * n)
    elif order.kind == "few_heavy":
        join[order.heavy_users:] = order.heavy_users * m + 1
    weight = np.arange(1, n + 1) ** -(order.zipf_exponent or 0.0)
    joined, probability = 0, 1.0
    for t, u in enumerate(sequence, start=1):
        joined = max(joined, int((join <= t).sum()))
        while joined < n and not (left[:joined] > 0).any():
            joined += 1  # staggered: nobody left to pick, the next user joins at once
        allowed = (np.arange(n) < joined) & (left > 0)
        w = left * allowed if order.kind == "one_heavy" else weight * allowed
        probability *= w[u] / w.sum()
        if probability == 0.0:
            return 0.0
        left[u] -= 1
    return probability


SEQUENCE_CASES = [
    order_config("uniform", 3, 2, 5),
    order_config("zipf", 3, 2, 5, zipf_exponent=1.5),
    order_config("one_heavy", 3, 3, 4, light_samples=1),
    order_config("one_heavy", 3, 3, 5, light_samples=1),  # a uniform interleaving
    order_config("staggered", 4, 2, 6),  # joins at steps 1, 1, 2, 3
    order_config("few_heavy", 4, 2, 6, heavy_users=2),
]


@pytest.mark.parametrize("cfg", SEQUENCE_CASES, ids=lambda c: f"{c.order.kind}-T{c.t_max}")
def test_random_orders_follow_their_definition(cfg: ContinualConfig) -> None:
    """The whole sequence u_1..u_T of a tiny stream: its frequencies over 20,000 draws
    against the probabilities the order's definition gives every sequence (χ²)."""
    support = [s for s in itertools.product(range(cfg.n_users), repeat=cfg.t_max)
               if sequence_probability(cfg, s) > 0]
    probabilities = np.array([sequence_probability(cfg, s) for s in support])
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    if cfg.order.kind == "one_heavy" and cfg.t_max == cfg.order.variant().capacity(
            cfg.n_users, cfg.max_samples):
        np.testing.assert_allclose(probabilities, 1 / len(support), rtol=1e-12)
    index = {s: i for i, s in enumerate(support)}
    observed = np.zeros(len(support))
    rng = np.random.default_rng(17)
    for _ in range(20_000):
        sequence = tuple(arrivals(cfg, rng).tolist())
        assert sequence in index, sequence  # never a sequence of probability 0
        observed[index[sequence]] += 1
    assert chi_square_pvalue(observed, probabilities) > ALPHA


@pytest.mark.parametrize(("order", "exponent"), [("uniform", None), ("zipf", 1.2)])
def test_first_arrival_frequencies(order: str, exponent: float | None) -> None:
    """u_1 over 30 users: uniform, or P(u) ∝ (u + 1)^−s for zipf (χ² over 20,000 draws)."""
    options = {"zipf_exponent": exponent} if exponent else {}
    cfg = order_config(order, 30, 1, 1, **options)
    weights = np.arange(1, 31) ** -(exponent or 0.0)
    rng = np.random.default_rng(5)
    first = np.array([arrivals(cfg, rng)[0] for _ in range(20_000)])
    assert chi_square_pvalue(np.bincount(first, minlength=30), weights / weights.sum()) > ALPHA


def test_deterministic_orders() -> None:
    """contiguous: user u at t = um + 1 .. (u + 1)m; round_robin: u_t = (t − 1) mod n."""
    np.testing.assert_array_equal(
        arrivals(order_config("contiguous", 4, 3, 11), np.random.default_rng(0)),
        [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    np.testing.assert_array_equal(
        arrivals(order_config("round_robin", 4, 3, 11), np.random.default_rng(0)),
        [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2])


ORDER_OPTIONS = {"zipf": {"zipf_exponent": 1.1}, "one_heavy": {"light_samples": 3},
                 "few_heavy": {"heavy_users": 5}}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("full", [False, True])
def test_orders_respect_the_sample_budget(order: str, full: bool) -> None:
    """T arrivals of 0-based users, each user at most m (one_heavy: user 0 m, the others
    ``light_samples``); with T at capacity every user gives exactly its budget."""
    n, m = 60, 16
    options = ORDER_OPTIONS.get(order, {})
    capacity = m + (n - 1) * 3 if order == "one_heavy" else n * m
    t_max = capacity if full else capacity * 2 // 3
    cfg = order_config(order, n, m, t_max, **options)
    budget = np.full(n, m)
    if order == "one_heavy":
        budget[1:] = 3
    for seed in range(3):
        users = arrivals(cfg, np.random.default_rng(seed))
        assert users.shape == (t_max,) and users.dtype == np.int32
        counts = np.bincount(users, minlength=n)
        assert counts.size == n and users.min() >= 0
        assert (counts <= budget).all()
        if full:
            np.testing.assert_array_equal(counts, budget)


def test_staggered_users_arrive_after_joining() -> None:
    """staggered: user u never arrives before step 1 + ⌊uT/(2n)⌋ (here 1, 4, 8, 12, …), so
    steps 1–3 are user 0's; at step 4 users 0 and 1 are equally likely (a z-test)."""
    n, m, t_max = 40, 10, 300
    cfg = order_config("staggered", n, m, t_max)
    join = 1 + np.arange(n) * t_max // (2 * n)
    assert join[:4].tolist() == [1, 4, 8, 12]
    steps = np.arange(1, t_max + 1)
    rng = np.random.default_rng(9)
    fourth_is_one = []
    for _ in range(2000):
        users = arrivals(cfg, rng)
        assert (steps >= join[users]).all()
        assert (users[:3] == 0).all() and users[3] in (0, 1)
        fourth_is_one.append(users[3] == 1)
    assert_close_mean(np.array(fourth_is_one, dtype=float), 0.5)


def test_few_heavy_users_come_first() -> None:
    """few_heavy: steps 1..hm only heavy users (each exactly m), the others after."""
    n, m, h = 30, 8, 3
    cfg = order_config("few_heavy", n, m, 200, heavy_users=h)
    for seed in range(5):
        users = arrivals(cfg, np.random.default_rng(seed))
        assert (users[:h * m] < h).all() and (users[h * m:] >= h).all()
        np.testing.assert_array_equal(np.bincount(users[:h * m], minlength=h), m)


# --------------------------------------------------------- 4. PrivateMedian (Alg. 7)


def bin_middles(level: int) -> np.ndarray:
    """Line 10: midpoints of [0, 1] cut into bins of width 2·2^(−ℓ/2), the last shorter."""
    width = 2.0 * 2.0 ** (-level / 2.0)
    lows = []
    while len(lows) * width < 1.0 - 1e-12:
        lows.append(len(lows) * width)
    return np.array([(low + min(low + width, 1.0)) / 2.0 for low in lows])


def median_costs(samples: Sequence[np.ndarray], level: int, k: int) -> np.ndarray:
    """Lines 2–12 of Alg. 7, written from the paper: users in index order each put their
    first min(m_u, 2^(ℓ−1)) samples into S_1, S_2, … one after the other; Y'_j is the
    midpoint nearest to S_j's mean; c(y) = max(#{Y'_j < y}, #{Y'_j > y}). A mean exactly
    between two midpoints (possible at even ℓ) goes to the lower one, as in the kernel;
    line 11's argmin leaves such ties open."""
    size = 1 << (level - 1)
    pooled = np.concatenate([s[:size] for s in samples])
    means = pooled[:k * size].reshape(k, size).mean(axis=1)
    middles = bin_middles(level)
    nearest = np.abs(means[:, None] - middles[None, :]).argmin(axis=1)
    return np.array([max((nearest < b).sum(), (nearest > b).sum())
                     for b in range(middles.size)], dtype=np.float64)


def call_median(samples: Sequence[np.ndarray], level: int, k: int, epsilon: float,
                rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """:func:`kernel.private_median` on users' samples laid out as the kernel lays them
    out (``own[start[u] + i]`` is user u's (i + 1)-th sample)."""
    count = np.array([len(s) for s in samples], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    own = np.concatenate(samples).astype(np.uint8)
    costs = np.full(len(bin_middles(level)) + 2, -1.0)
    drawn = kernel.private_median(own, start, count, level, k, epsilon, rng, costs)
    return drawn, costs


def test_private_median_by_hand() -> None:
    """Alg. 7 at ℓ = 5 (arrays of 16, bins of width 2^(−3/2) ≈ 0.354: midpoints 0.177,
    0.530, 0.854), k = 4, six users:

    * user 0, 32 ones: only its first 16 (line 4's cap) fill S_1: Y_1 = 1 → 0.854;
    * user 1, 6 zeros, and user 2, 10 ones: S_2, Y_2 = 10/16 → 0.530;
    * user 3, 8 zeros then 8 ones: S_3, Y_3 = 1/2 → 0.530;
    * user 4, 16 zeros then 14 ones: its first 16 fill S_4: Y_4 = 0 → 0.177;
    * user 5 is not needed (line 7).

    c = (max(0, 3), max(1, 1), max(3, 0)) = (3, 1, 3). Without the cap (S_2 = 16 of user
    0's ones) c would be (4, 2, 2); with each user's last samples, (4, 2, 2) too. With
    ε = 1000 the draw is the midpoint of least cost (weights e^(−500) elsewhere)."""
    samples = [np.ones(32), np.zeros(6), np.ones(10), np.repeat([0.0, 1.0], 8),
               np.concatenate([np.zeros(16), np.ones(14)]), np.ones(4)]
    middles = bin_middles(5)
    np.testing.assert_allclose(middles, [0.1767767, 0.5303301, 0.8535534], atol=1e-7)
    drawn, costs = call_median(samples, 5, 4, 1000.0, np.random.default_rng(0))
    np.testing.assert_array_equal(costs[:3], [3.0, 1.0, 3.0])
    assert np.isnan(costs[3:]).all()  # beyond the bins
    np.testing.assert_array_equal(median_costs(samples, 5, 4), [3.0, 1.0, 3.0])
    assert drawn == pytest.approx(middles[1], abs=1e-12)


def test_private_median_costs_match_algorithm_7() -> None:
    """200 random inputs (ℓ = 2..9, users with random counts, some above 2^(ℓ−1), random
    means): the kernel's cost vector equals :func:`median_costs`."""
    rng = np.random.default_rng(23)
    for _ in range(200):
        level = int(rng.integers(2, 10))
        size = 1 << (level - 1)
        n = int(rng.integers(1, 12))
        samples = [(rng.random(int(rng.integers(0, 2 * size + 1))) < rng.random()).astype(
            np.float64) for _ in range(n)]
        available = sum(min(len(s), size) for s in samples) // size
        if available == 0:
            continue
        k = int(rng.integers(1, available + 1))
        _, costs = call_median(samples, level, k, 1.0, rng)
        expected = median_costs(samples, level, k)
        np.testing.assert_array_equal(costs[:expected.size], expected)
        assert np.isnan(costs[expected.size:]).all()


def test_private_median_draws_follow_the_exponential_mechanism() -> None:
    """Line 13: P(μ̃ = y) = exp(−ε c(y)/4)/Z. At ℓ = 8 (8 bins, midpoints 1/16, 3/16, …),
    six users of 128 samples with 13, 38, 38, 77, 115, 122 ones: Y' in bins 0, 2, 2, 4,
    7, 7, so c = (5, 5, 3, 3, 3, 4, 4, 4); 20,000 draws at ε = 2 (χ²)."""
    ones = [13, 38, 38, 77, 115, 122]
    samples = [np.concatenate([np.ones(j), np.zeros(128 - j)]) for j in ones]
    samples.append(np.ones(50))  # a seventh user, not needed
    cost = np.array([5.0, 5, 3, 3, 3, 4, 4, 4])
    np.testing.assert_array_equal(median_costs(samples, 8, 6), cost)
    middles = bin_middles(8)
    np.testing.assert_array_equal(middles, (2 * np.arange(8) + 1) / 16)
    rng = np.random.default_rng(29)
    picks = []
    for _ in range(20_000):
        drawn, costs = call_median(samples, 8, 6, 2.0, rng)
        picks.append(drawn)
    np.testing.assert_array_equal(costs[:8], cost)
    picks_array = np.array(picks)
    assert np.isin(picks_array, middles).all()
    observed = np.array([(picks_array == y).sum() for y in middles])
    weights = np.exp(-2.0 * cost / 4)
    assert chi_square_pvalue(observed, weights / weights.sum()) > ALPHA


def test_private_median_single_bin_at_level_2() -> None:
    """Erratum 14: at ℓ = 2 the one bin of width 1 makes μ̃_2 = 1/2 whatever the data."""
    rng = np.random.default_rng(1)
    for ones in (0, 3, 10):
        samples = [np.concatenate([np.ones(ones), np.zeros(10 - ones)])]
        drawn, costs = call_median(samples, 2, 5, 1.0, rng)
        assert drawn == 0.5 and costs[0] == 0.0


# --------------------------------------------------- Alg. 6 in a stream (lines 8–25)


def test_alg6_activation_median_projection_and_buffer() -> None:
    """Alg. 6 over a uniform stream (n = 40, m = 64, ε = 40 so that k_ℓ is small):

    * level ℓ >= 2 activates at the first t with Σ_u min(m_u(t), 2^(ℓ−1)) >= 2^(ℓ−1) k_ℓ
      (line 9, with k_ℓ's ceiling, erratum 7);
    * PrivateMedian's cost vector is Alg. 7's over the users' first samples up to t;
      with its ε made huge, μ̃_ℓ is a midpoint of least cost;
    * every block σ_ℓ of a user whose count reached 2^ℓ is released once, projected onto
      [2^(ℓ−1)μ̃_ℓ ± Δ_ℓ] (set narrow here so that projection happens; ``clipped`` counts
      the changed blocks), none before its level activates (lines 11, 21–25);
    * total = Σ_u [1{m_u >= 1} + 1{m_u >= 2} + Σ_(ℓ active) 2^(ℓ−1) 1{m_u >= 2^ℓ}]
      (lines 12 and 23 with erratum 2)."""
    n, m, t_max = 40, 64, 2000
    cfg = config(n_users=n, max_samples=m, t_max=t_max, method="alg6", epsilon=40.0,
                 checkpoints=t_max)
    p = parameters(cfg)
    half = np.where(np.arange(p.levels) >= 2, 0.75, np.inf)
    p = p._replace(median_epsilon=1e6, half=half)
    users = arrivals(cfg, np.random.default_rng(41))
    times = np.arange(1, t_max + 1)
    result = run(p, users, n, m, cfg.mu, times, seed=43, trace=10 * t_max)
    x = draws(43, t_max, cfg.mu)
    counts = np.array([counts_at(users, n, t) for t in times])  # (T, n)
    levels = range(2, p.levels)
    for level in levels:
        size = 1 << (level - 1)
        fill = np.minimum(counts, size).sum(axis=1)
        reached = np.flatnonzero(fill >= size * p.k[level])
        assert p.threshold[level] == size * p.k[level]
        activation = int(times[reached[0]]) if reached.size else 0
        assert result.activation[level] == activation, level
        if not activation:
            continue
        prefix = users[:activation]
        samples = [x[:activation][prefix == u] for u in range(n)]
        expected = median_costs(samples, level, int(p.k[level]))
        np.testing.assert_array_equal(result.costs[level, :expected.size], expected)
        prior = result.priors[level]
        middles = bin_middles(level)
        bin_of_prior = np.flatnonzero(np.isclose(middles, prior, rtol=0, atol=1e-12))
        assert bin_of_prior.size == 1 and expected[bin_of_prior[0]] == expected.min()
    assert (result.activation[2:] > 0).sum() >= 3  # the check covers several levels
    trace = result.trace
    clipped = 0
    for level in levels:
        size = 1 << (level - 1)
        rows = trace[trace[:, 1] == level]
        if not result.activation[level]:
            assert rows.size == 0
            continue
        assert (rows[:, 0] >= result.activation[level]).all()
        blocks = []
        for u in range(n):
            own = x[users == u]
            if own.size >= 2 * size:
                blocks.append(own[size:2 * size].sum())
        centre = size * result.priors[level]
        projected = np.clip(blocks, centre - half[level], centre + half[level])
        clipped += int((projected != np.array(blocks)).sum())
        np.testing.assert_array_equal(np.sort(rows[:, 2]), np.sort(projected))
    assert clipped > 0 and result.clipped[-1] == clipped
    total = (counts >= 1).sum(axis=1) + (counts >= 2).sum(axis=1)
    for level in levels:
        active = (result.activation[level] > 0) & (times >= result.activation[level])
        total = total + active * (1 << (level - 1)) * (counts >= 1 << level).sum(axis=1)
    np.testing.assert_array_equal(result.used, total)


# -------------------------------------------------------- 5. parameters by hand

# T is large enough that no threshold of Alg. 6 (at most 2660 here) is capped at T + 1.
HAND = {"n_users": 500, "max_samples": 6, "t_max": 3000, "epsilon": 0.8,
        "failure_probability": 0.1}
LOG_M = math.log2(6)  # "log m" in ln(2n log m/δ): 2.585
PRIOR = 0.5 + 1 / (2 * math.sqrt(6))  # μ̃ = μ + 1/(2√m), the default offset


def hand_parameters(method: str) -> dict[str, Any]:
    """n = 500, m = 6, T = 3000, ε = 0.8, the paper's failure probability δ = 0.1
    (``failure_probability``), by the paper's equations with the conventions of
    parameters.py: tree depth ⌊log2 N⌋ + 1 (depth(500) = 9, depth(1500) = 11,
    depth(3000) = 12), L = ⌈log2 6⌉ = 3, k_ℓ rounded up."""
    ln_conc = math.log(2 * 500 * LOG_M / 0.1)  # ln(2n log m/δ) of eqs. (4)–(7)
    if method == "non_private":
        return {"mode": kernel.STREAM, "eta": [0.0], "depth": 12, "initial": 0.0}
    if method == "alg2":  # Alg. 2, line 1: η = m(1 + log T)/ε
        return {"mode": kernel.STREAM, "eta": [6 * 12 / 0.8], "depth": 12}
    if method == "naive_laplace":  # erratum 13: Lap(mT/ε) on each release
        return {"mode": kernel.NAIVE, "eta": [6 * 3000 / 0.8]}
    if method == "alg3":  # eqs. (2)–(3): Δ = √((m/2) ln(2n/δ)) + √m, η = 2Δ(1 + log n)/ε
        delta = math.sqrt(3 * math.log(10_000)) + math.sqrt(6)
        return {"mode": kernel.BLOCK, "eta": [2 * delta * 9 / 0.8], "half": [delta],
                "centre": [6 * PRIOR], "carried": [6], "depth": 9, "initial": PRIOR}
    # Δ_ℓ of eq. (4) for ℓ = 2, 3 (levels 0, 1 unprojected, erratum 3)
    half4 = [math.inf, math.inf, math.sqrt(ln_conc) + 2 / math.sqrt(6),
             math.sqrt(2 * ln_conc) + 4 / math.sqrt(6)]
    common = {"mode": kernel.EXPONENTIAL, "levels": 4, "carried": [1, 1, 2, 4]}
    if method == "alg4":  # eq. (5), 1 + ⌊log m⌋ = 3 elements per user, depth(n·3) = 11
        delta = math.sqrt(3 * ln_conc) + math.sqrt(6)
        return {**common, "eta": [2 * delta * 3 * 11 / 0.8], "half": half4,
                "centre": [math.nan, math.nan, 2 * PRIOR, 4 * PRIOR],
                "mechanism": [0, 0, 0, 0], "depth": 11, "initial": PRIOR}
    if method == "alg5":  # eq. (7) at ε/(L + 1) = 0.2, 2^(ℓ−1) = 1/2 at ℓ = 0 (erratum 15)
        eta = [2 * (math.sqrt(b / 2 * ln_conc) + math.sqrt(b)) * 9 / 0.2
               for b in (0.5, 1, 2, 4)]
        return {**common, "eta": eta, "half": half4,
                "centre": [math.nan, math.nan, 2 * PRIOR, 4 * PRIOR],
                "mechanism": [0, 1, 2, 3], "depth": 9, "initial": PRIOR}
    # alg6: k_ℓ = ⌈(32L/ε) ln(3L 2^(ℓ/2)/δ)⌉ = ⌈120 ln(90·2^(ℓ/2))⌉ = ⌈539.98⌉, ⌈581.57⌉,
    # ⌈623.15⌉, ⌈664.74⌉; eq. (9) with δ/3 and β = δ/(3L) = 1/90; eq. (10) at
    # ε/(2(L + 1)) = 0.1; line 9's threshold 2^(ℓ−1) k_ℓ; PrivateMedian at ε/(2L).
    k = [540, 582, 624, 665]
    ln_third = math.log(2 * 500 * LOG_M / (0.1 / 3))
    delta6 = [math.sqrt(b / 2 * ln_third) + math.sqrt(2 * b * math.log(2 * k[i] * 90))
              for i, b in enumerate((0.5, 1, 2, 4))]
    return {**common, "eta": [2 * d * 9 / 0.1 for d in delta6], "k": k,
            "half": [math.inf, math.inf, delta6[2], delta6[3]],
            "threshold": [0, 0, 2 * 624, 4 * 665], "median_epsilon": 0.8 / 6,
            "mechanism": [0, 1, 2, 3], "depth": 9, "initial": 0.0}


@pytest.mark.parametrize("method", METHODS)
def test_parameters_by_hand(method: str) -> None:
    """η (and Δ_ℓ, centres, k_ℓ, thresholds) of each method for one cell, against eqs.
    (2)–(5), (7), (9), (10) and Alg. 6 line 9 evaluated by hand (to 1e-12)."""
    p = parameters(config(method=method, **HAND))
    assert p.epsilon == 0.8
    for name, value in hand_parameters(method).items():
        got = getattr(p, name)
        if isinstance(value, list):
            np.testing.assert_allclose(got, value, rtol=1e-12, err_msg=name)
        else:
            assert got == pytest.approx(value, rel=1e-12), name


def test_parameters_level_count_floor_and_m_1() -> None:
    """``level_count=floor`` (proof of Thm 3.2): L = ⌊log2 6⌋ = 2, three mechanisms at
    ε/3; m = 1 (erratum 8): log m is 1 in ln(2n log m/δ), one level, and Alg. 6's k_0 and
    Δ_0 take L = 1 (n = T = 200, depth(200) = 8)."""
    ln_conc = math.log(2 * 500 * LOG_M / 0.1)
    p = parameters(config(method="alg5", level_count="floor", **HAND))
    eta = [2 * (math.sqrt(b / 2 * ln_conc) + math.sqrt(b)) * 9 / (0.8 / 3) for b in (0.5, 1, 2)]
    np.testing.assert_allclose(p.eta, eta, rtol=1e-12)
    assert p.levels == 3
    one = {**HAND, "n_users": 200, "max_samples": 1, "t_max": 200}
    p = parameters(config(method="alg4", **one))
    delta = math.sqrt(0.5 * math.log(2 * 200 / 0.1)) + 1  # Δ at m = 1, log m := 1
    np.testing.assert_allclose(p.eta, [2 * delta * 1 * 8 / 0.8], rtol=1e-12)
    p = parameters(config(method="alg6", **one))
    k0 = math.ceil(32 / 0.8 * math.log(3 / 0.1))  # ⌈40 ln 30⌉ = 137
    assert k0 == 137 and p.k.tolist() == [k0] and p.levels == 1
    delta0 = math.sqrt(0.25 * math.log(2 * 200 / (0.1 / 3))) + math.sqrt(
        math.log(2 * k0 / (0.1 / 3)))
    np.testing.assert_allclose(p.eta, [2 * delta0 * 8 / (0.8 / 2)], rtol=1e-12)
    assert p.median_epsilon == pytest.approx(0.8 / 2, rel=1e-12)


def test_bounds_by_hand() -> None:
    """The bound rows at t = 40, M_t = 5 (c = 4, δ = 0.1, ln(1/δ) = 2.303): eq. (1)'s form
    for Alg. 2 (its 1 + log t p-sums); App. B for Alg. 3 (t >= m; μ̃'s 1/√m before);
    App. C.2 and D.1 for Algs 4 and 5 with 2η/t (erratum 10: total >= t/2) and
    mechanisms 0..⌊log M_t⌋ = 0..2 of 1 + log n = depth(500) = 9 p-sums each; Sec. 5's
    lower bound."""
    t, top = np.array([40.0]), np.array([5])
    tail = math.log(10)
    for method in METHODS:
        cfg = config(method=method, **HAND)
        p = parameters(cfg)
        wide = math.sqrt(math.log(20) / 40)  # √(ln(2/δ)/t), Claim C.1's t/2 samples
        expected = {
            "non_private": math.sqrt(math.log(20) / 80),
            "naive_laplace": math.sqrt(math.log(20) / 80) + p.eta[0] * tail / 40,
            "alg2": math.sqrt(math.log(20) / 80)
            + 4 * p.eta[0] * math.sqrt(1 + math.log2(40)) * tail / 40,
            "alg3": wide + 2 * 4 * p.eta[0] * math.sqrt(9) * tail / 40,
            "alg4": wide + 2 * 4 * p.eta[0] * math.sqrt(1 + math.log2(40)) * tail / 40,
            "alg5": wide + 2 * 4 * tail * math.sqrt(9 * (p.eta[:3] ** 2).sum()) / 40,
            "alg6": wide + 2 * 4 * tail * math.sqrt(9 * (p.eta[:3] ** 2).sum()) / 40,
        }[method]
        assert bound(cfg, p, t, top)[0] == pytest.approx(expected, rel=1e-12), method
    cfg = config(method="alg3", **HAND)
    assert bound(cfg, parameters(cfg), np.array([5.0]), np.array([5]))[0] == 1 / math.sqrt(6)
    assert lower_bound(t, top, 0.8)[0] == pytest.approx(
        1 / math.sqrt(40) + math.sqrt(5) / (40 * 0.8), rel=1e-12)


# ------------------------------------------------ 6. unbiasedness and error variance


def round_robin(n: int, m: int) -> np.ndarray:
    return np.arange(n * m) % n


def noise_variance(method: str, p: Parameters, users: np.ndarray, n: int, m: int,
                   t: int) -> tuple[int, float]:
    """(samples released, variance of the noise in S_t) at t for deterministic arrivals:
    Σ over mechanisms of 2η_j² popcount(K_j), K_j its elements (Sec. 2.3)."""
    counts = counts_at(users, n, t)
    eta = p.eta
    if method in ("non_private", "alg2"):
        return t, 2 * eta[0] ** 2 * popcount(t)
    if method == "naive_laplace":
        return t, 2 * eta[0] ** 2  # one fresh Lap(mT/ε) per read release
    if method == "alg3":
        blocks = int((counts == m).sum())
        return m * blocks, 2 * eta[0] ** 2 * popcount(blocks)
    used = released_samples(counts)
    per_level = [int((counts >= 1 << level).sum()) for level in range(p.levels)]
    if method == "alg4":
        return used, 2 * eta[0] ** 2 * popcount(sum(per_level))
    return used, float(sum(2 * e**2 * popcount(k) for e, k in zip(eta, per_level,
                                                                   strict=True)))


UNBIASED = ["non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5"]


@pytest.mark.parametrize("method", UNBIASED)
def test_error_mean_and_variance(method: str) -> None:
    """μ̂_t = (Σ of the samples released + Σ of Lap noises)/total over deterministic
    arrivals (round robin; contiguous for Alg. 3, Appendix B): E μ̂_t = μ and
    Var μ̂_t = μ(1 − μ)/total + Var(noise)/total² at every checkpoint, total and the
    mechanisms' element counts K_j from the arrivals (``noise_variance``). For the
    methods with projection (Algs 3–5, prior μ̃ = μ + 1/(2√m)) only replicates with
    ``clipped`` = 0 are used, where μ̂_t is that sum exactly."""
    n, m, mu = 12, 16, 0.3
    order = "contiguous" if method == "alg3" else "round_robin"
    times = (16, 20, 45, 100, 150, 192)
    cfg = config(n_users=n, max_samples=m, t_max=n * m, method=method, order={"kind": order},
                 mu=mu, epsilon=4.0, checkpoints=times)
    p = parameters(cfg)
    users = arrivals(cfg, np.random.default_rng(0))
    estimates, used, clipped = repeat(p, users, n, m, mu, times, 5000, seed=53)
    kept = clipped[:, -1] == 0
    assert kept.mean() > 0.99
    estimates = estimates[kept]
    for i, t in enumerate(times):
        total, noise = noise_variance(method, p, users, n, m, t)
        assert (used[:, i] == total).all()
        error = estimates[:, i] - mu
        assert_close_mean(error, 0.0)
        assert_close_variance(error, mu * (1 - mu) / total + noise / total**2)


def test_samples_used_and_arrival_columns() -> None:
    """Family rows of a uniform stream: ``samples_used`` is t (Algs 2, naive, running
    mean), m × (users with m samples) (Alg. 3), Σ_u 2^⌊log2 m_u(t)⌋ >= t/2 (Algs 4–5,
    Claim C.1 with erratum 2), and for Alg. 6 the levels 0, 1 plus the active ones;
    ``max_count`` M_t, ``n_users_seen`` and ``diversity`` (eq. 11: Σ_u min(m_u, M_t/2)
    >= (M_t/2)(16/ε)(2L ln(3L√M_t/δ))) recomputed from the replicate's arrivals."""
    base = {"n_users": 30, "max_samples": 12, "t_max": 300, "checkpoints": 25,
            "epsilon": 30.0}
    for method in METHODS:
        cell, frame = family_rows({**base, "method": method}, 2, seed=61)
        cfg = cell.config
        L = math.ceil(math.log2(cfg.max_samples))
        for r, seed in enumerate(seeds(61, range(2))):
            order, _, _ = streams(cfg, seed, r)
            users = arrivals(cfg, order)
            rows = frame[(frame.source == "simulated") & (frame.replicate == r)]
            activation = frame[(frame.source == "activation") & (frame.replicate == r)]
            for _, row in rows.iterrows():
                t = int(row.t)
                counts = counts_at(users, cfg.n_users, t)
                top = counts.max()
                assert row.max_count == top and row.n_users_seen == (counts > 0).sum()
                need = 16 / cfg.epsilon * 2 * L * math.log(
                    3 * L * math.sqrt(top) / cfg.failure_probability)
                assert row.diversity == float(np.minimum(counts, top / 2).sum()
                                              >= top / 2 * need)
                if method in ("non_private", "naive_laplace", "alg2"):
                    expected = t
                elif method == "alg3":
                    expected = cfg.max_samples * int((counts == cfg.max_samples).sum())
                elif method in ("alg4", "alg5"):
                    expected = released_samples(counts)
                    assert expected >= t / 2
                else:  # alg6: levels 0 and 1, and the levels active at t
                    active = activation.level[activation.t <= t].astype(int)
                    expected = int((counts >= 1).sum() + (counts >= 2).sum()) + sum(
                        (1 << (level - 1)) * int((counts >= 1 << level).sum())
                        for level in active)
                assert row.samples_used == expected, (method, t)
        if method == "alg6":
            assert (frame.source == "activation").any()


# -------------------------------------------------- 7. where the theorems apply


def test_within_bound_is_missing_exactly_where_the_theorem_does_not_apply() -> None:
    """``within_bound`` is NaN where the method's theorem does not apply: Alg. 3 out of
    contiguous order (App. B's assumption), Algs 3–5 with |μ̃ − μ| > 1/√m (Thms 3.1,
    3.2), Alg. 6 where the diversity condition (11) fails (Thm 3.4); 0/1 elsewhere."""
    base = {"n_users": 30, "max_samples": 16, "t_max": 300, "checkpoints": 20}
    cases = [({"method": "alg3", "order": {"kind": "contiguous"}}, True),
             ({"method": "alg3", "order": {"kind": "uniform"}}, False),
             ({"method": "alg4", "prior_offset": 0.25}, True),  # = 1/√m
             ({"method": "alg4", "prior_offset": -0.26}, False),
             ({"method": "alg5", "prior_offset": 0.3}, False),
             ({"method": "alg3", "order": {"kind": "contiguous"}, "prior_offset": 0.3}, False),
             ({"method": "alg2"}, True), ({"method": "naive_laplace"}, True),
             ({"method": "non_private"}, True)]
    for options, applies in cases:
        cell, frame = family_rows({**base, **options}, 2)
        rows = frame[frame.source == "simulated"]
        assert rows.within_bound.notna().all() == applies, options
        assert rows.within_bound.isna().all() == (not applies), options
        if options["method"] in PRIOR_METHODS:  # default offset 1/(2√m) = 0.125
            offset = options.get("prior_offset", 0.125)
            assert cell.config.prior_assumption == (abs(offset) <= 0.25)
    # Alg. 6 at ε = 20: (11) fails early and holds later in the stream.
    _, frame = family_rows({**base, "method": "alg6", "epsilon": 20.0, "n_users": 60,
                            "t_max": 900}, 2)
    rows = frame[frame.source == "simulated"]
    assert rows.diversity.isin([0.0, 1.0]).all()
    assert 0 < rows.diversity.sum() < len(rows)
    np.testing.assert_array_equal(rows.within_bound.isna(), rows.diversity == 0)
    assert rows.within_bound.dropna().isin([0.0, 1.0]).all()


def coverage_failures(within: int, replicates: int, failure: float) -> bool:
    """One-sided binomial test: so few replicates within the bound are unlikely (< 2Φ(−Z))
    if each is within it with probability 1 − δ (δ = ``failure``)."""
    return binom.cdf(within, replicates, 1 - failure) < ALPHA


COVERAGE = [
    ({"method": "non_private"}, 1000),
    ({"method": "naive_laplace"}, 1000),
    ({"method": "alg2"}, 1000),
    ({"method": "alg3", "order": {"kind": "contiguous"}}, 1000),
    ({"method": "alg4"}, 1000),
    ({"method": "alg5"}, 1000),
    ({"method": "alg6", "epsilon": 8.0, "n_users": 400, "t_max": 6400}, 600),
]
COVERAGE_BASE = {"n_users": 50, "max_samples": 16, "t_max": 800, "checkpoints": 12,
                 "failure_probability": 0.05}


@pytest.mark.slow
@pytest.mark.parametrize(("options", "replicates"), COVERAGE,
                         ids=[options["method"] for options, _ in COVERAGE])
def test_within_bound_coverage(options: dict[str, Any], replicates: int) -> None:
    """At every checkpoint where the theorem applies (``within_bound`` not NaN), the share
    of replicates within the method's bound is at least 1 − δ (Hoeffding for the running
    mean; the Laplace tail for naive; eq. (1), Apps B, C.2, D.1, E.2 for Algs 2–6), by a
    one-sided binomial test; with d coordinates the bound is on the largest error
    (``abs_error`` = ‖μ̂_t − μ‖_∞), which is what the family compares."""
    cell, frame = family_rows({**COVERAGE_BASE, **options}, replicates, seed=71)
    rows = frame[(frame.source == "simulated") & frame.within_bound.notna()]
    assert rows.t.nunique() >= 4  # the theorem applies at several checkpoints
    for t, part in rows.groupby("t"):
        # Alg. 6's condition (11) depends on the replicate's arrivals: test the replicates
        # where it holds (all of them for the other methods).
        assert len(part) == replicates or options["method"] == "alg6"
        within = int(part.within_bound.sum())
        assert not coverage_failures(within, len(part), cell.config.failure_probability), (
            t, within, len(part))


@pytest.mark.slow
def test_within_bound_covers_the_largest_coordinate_error() -> None:
    """d = 20 coordinates of the running mean: ``within_bound`` compares ‖μ̂_t − μ‖_∞ with
    the one-coordinate bound √(ln(2/δ)/(2t)) (Hoeffding at δ). One coordinate exceeds it
    with probability ≈ 0.0066 at t = 800 (μ = 1/2; more at small t), the largest of 20
    with ≈ 0.12 > δ, so the share within the bound falls below 1 − δ (0.86 at t = 21
    with these seeds), whereas criterion 7 asks for
    1 − δ wherever ``within_bound`` is reported: the bound of the largest error needs
    δ/d per coordinate (a union bound), or ``within_bound`` must be per coordinate."""
    replicates = 600
    cell, frame = family_rows({**COVERAGE_BASE, "method": "non_private", "dimension": 20},
                              replicates, seed=71)
    rows = frame[frame.source == "simulated"]
    assert rows.within_bound.notna().all()
    for t, part in rows.groupby("t"):
        within = int(part.within_bound.sum())
        assert not coverage_failures(within, replicates, cell.config.failure_probability), (
            t, within, replicates)


@pytest.mark.slow
def test_alg6_unbiased_when_nothing_is_clipped() -> None:
    """Alg. 6 (Thm 3.4's setting, uniform arrivals): given the arrivals, which blocks are
    released depends on the counts only, so without clipping μ̂_t averages ``total``
    Bernoulli(μ) samples plus zero-mean noise: E[μ̂_t − μ | clipped = 0] = 0."""
    cfg = config(n_users=300, max_samples=16, t_max=4800, method="alg6", epsilon=8.0,
                 mu=0.3, checkpoints=10)
    p = parameters(cfg)
    users = arrivals(cfg, np.random.default_rng(2))
    estimates, _, clipped = repeat(p, users, cfg.n_users, 16, 0.3, cfg.checkpoint_times(),
                                   3000, seed=73)
    kept = clipped[:, -1] == 0
    assert kept.mean() > 0.9
    for i in range(len(cfg.checkpoint_times())):
        assert_close_mean(estimates[kept, i] - 0.3, 0.0)


# ------------------------------------------------------------------- 8. dimensions


def test_basic_composition_runs_each_coordinate_at_epsilon_over_d() -> None:
    """Sec. 4 with basic composition: d = 2 coordinates each at ε/2 (the cell's
    ``coordinate_epsilon``; each method's η is the one-dimensional η at ε/2);
    ``abs_error`` = max_i |μ̂_t,i − μ| over the coordinates, rebuilt from the replicate's
    seeds, and >= |``error``|, coordinate 0's."""
    for method in ("alg2", "alg5", "alg6"):
        options = {"n_users": 20, "max_samples": 8, "t_max": 160, "method": method,
                   "epsilon": 2.0, "checkpoints": 10}
        cell, frame = family_rows({**options, "dimension": 2}, 3, seed=81)
        assert FAMILY.columns(cell)["coordinate_epsilon"] == 1.0
        single = parameters(config(**{**options, "epsilon": 1.0}))
        np.testing.assert_array_equal(cell.parameters.eta, single.eta)
        rows = frame[frame.source == "simulated"]
        assert (rows.abs_error >= rows.error.abs()).all()
        assert (rows.abs_error > rows.error.abs()).any()  # coordinate 1 is the larger
        cfg = cell.config
        for r, seed in enumerate(seeds(81, range(3))):
            order, samples, noise = streams(cfg, seed, r)
            users = arrivals(cfg, order)
            errors = [run_coordinate(cell.parameters, users, cfg.n_users, cfg.max_samples,
                                     cfg.mu, cell.times, s, z).estimate - cfg.mu
                      for s, z in zip(samples, noise, strict=True)]
            mine = rows[rows.replicate == r]
            np.testing.assert_array_equal(mine.error, errors[0])
            np.testing.assert_array_equal(mine.abs_error, np.abs(errors).max(axis=0))


@pytest.mark.parametrize(("dimension", "delta", "epsilon"),
                         [(2, 1e-6, 1.0), (10, 1e-6, 1.0), (100, 1e-5, 0.5), (50, 0.01, 3.0),
                          (2, 0.9, 0.01)])
def test_advanced_composition_solves_drv_theorem_iii_3(
        dimension: int, delta: float, epsilon: float) -> None:
    """Dwork, Rothblum & Vadhan, Thm III.3: d ε₀-DP releases are (ε', δ̃)-DP with
    ε' = √(2d ln(1/δ̃)) ε₀ + d ε₀ (e^ε₀ − 1). The left side grows from 0 to ∞ in ε₀, so
    one root makes ε' = ε for every valid δ̃ and ε; the cell takes the larger of that
    root and basic composition's ε/d (both are (ε, δ̃)-DP)."""
    cfg = config(dimension=dimension, composition="advanced", delta=delta, epsilon=epsilon)
    e0 = coordinate_epsilon(cfg)
    root = math.sqrt(2 * dimension * math.log(1 / delta))

    def spent(e: float) -> float:
        return root * e + dimension * e * math.expm1(e)

    if e0 == epsilon / dimension:
        assert spent(e0) >= epsilon  # the theorem gives no more than basic composition
    else:
        assert e0 > epsilon / dimension and spent(e0) == pytest.approx(epsilon, rel=1e-9)
    assert parameters(cfg).epsilon == e0


# ------------------------------------------------------------------ 9. determinism


def test_methods_and_epsilons_share_their_data() -> None:
    """Common random numbers: the arrivals and samples of replicate r depend on the root
    seed and the data options only (sweep.continual.simulate.streams), so cells that differ
    in method or ε see the same M_t path and the same samples: the running mean's error
    is equal across ε, and every method's M_t and users seen are equal, replicate by
    replicate; another order draws other data."""
    base = {"n_users": 40, "max_samples": 8, "t_max": 300, "order": {"kind": "uniform"},
            "checkpoints": 12}
    frames = {(method, epsilon): family_rows({**base, "method": method, "epsilon": epsilon},
                                             3, seed=5)[1]
              for method in ("non_private", "alg2", "alg6") for epsilon in (0.5, 2.0)}
    simulated = {k: f[f.source == "simulated"].reset_index(drop=True)
                 for k, f in frames.items()}
    first = simulated["non_private", 0.5]
    for frame in simulated.values():
        np.testing.assert_array_equal(frame.max_count, first.max_count)
        np.testing.assert_array_equal(frame.n_users_seen, first.n_users_seen)
    np.testing.assert_array_equal(simulated["non_private", 2.0].error, first.error)
    other = family_rows({**base, "method": "non_private", "order": {"kind": "round_robin"}}, 3,
                        seed=5)[1]
    assert not np.array_equal(other[other.source == "simulated"].error, first.error)
