"""The shared science components (sweep/components/) against closed forms and brute force.

Tree sums use integer-valued floats, so that every comparison is exact; Monte-Carlo
checks allow Z standard errors (tests/stats.py) with fixed seeds.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import networkx as nx
import numba
import numpy as np
import pytest
from scipy.special import ndtr

from sweep.colme.config import NOISES as COLME_NOISES
from sweep.components import graphs, noise, normals, tree
from sweep.components.calibration import (
    analytic_gaussian_sigma,
    calibrate,
    classic_gaussian_sigma,
    floored_log_smooth_sensitivity,
    laplace_scale,
    log_smooth_constant,
    mean_release_std,
    mean_sensitivity,
    rizk_calibration,
    variance_release_std,
    variance_sensitivity,
)
from sweep.components.graphs import GraphConfig
from sweep.errors import ConfigError
from sweep.network.config import NOISES as NETWORK_NOISES
from sweep.options import describe

from .stats import assert_close_mean, assert_close_variance

# ------------------------------------------------------------------------------ tree


def blocks(k: int) -> list[tuple[int, int]]:
    """The p-sums (first, last release) of release k, from its binary representation."""
    out, start = [], 0
    for bit in reversed(range(k.bit_length())):
        if k >> bit & 1:
            out.append((start + 1, start + (1 << bit)))
            start += 1 << bit
    return out


def test_blocks_follow_the_papers_example() -> None:
    assert blocks(13) == [(1, 8), (9, 12), (13, 13)]  # 13 = 8 + 4 + 1 (Private-ColME, Sec. IV)


def test_lowest_bit_and_depth() -> None:
    for k in range(1, 300):
        assert tree.lowest_bit(k) == (k & -k).bit_length() - 1
    assert [tree.depth(t) for t in (1, 2, 3, 4, 7, 8, 30_000)] == [1, 2, 2, 3, 3, 4, 15]


@pytest.mark.parametrize("seed", range(5))
def test_tree_sums_match_the_binary_representation(seed: int) -> None:
    """Random streams: the exact p-sums, their running sums and the reused noises."""
    rng = np.random.default_rng(seed)
    length = int(rng.integers(1, 600))
    x = rng.integers(-50, 50, length).astype(np.float64)
    fresh = rng.integers(1, 10**6, length).astype(np.float64)
    exact = np.full(tree.depth(length), np.nan)  # NaN: a level read before it is written
    noisy = np.full(tree.depth(length), np.nan)
    for k in range(1, length + 1):
        level = tree.merge_push(exact, k, x[k - 1])
        first, last = blocks(k)[-1]
        assert level == tree.lowest_bit(k) and last - first + 1 == 1 << level
        assert exact[level] == x[first - 1:last].sum()
        assert tree.set_bits_sum(exact, k) == x[:k].sum()
        expected = sum(fresh[last - 1] for _, last in blocks(k))
        assert tree.push_and_sum(noisy, k, fresh[k - 1]) == expected


def paper_binary_mechanism(x: np.ndarray, lap: np.ndarray, corrected: bool) -> np.ndarray:
    """Algorithm 1 of the continual-mean paper, literally, on its length-T arrays.

    ``corrected``: line 11 adds NoisyPartialSums[index] only when b_j = 1 (the erratum);
    otherwise as printed, for every j.
    """
    noisy_partial_sums = np.zeros(len(x) + 1)
    out = np.empty(len(x))
    for t in range(1, len(x) + 1):
        j_star = tree.lowest_bit(t)
        noisy_partial_sums[t] = x[t - (1 << j_star):t].sum() + lap[t - 1]
        total, index = 0.0, 0
        for j in reversed(range(t.bit_length())):
            b = t >> j & 1
            index += b << j
            if b or not corrected:
                total += noisy_partial_sums[index]
        out[t - 1] = total
    return out


def test_binary_mechanism_step_is_algorithm_1_with_the_erratum() -> None:
    rng = np.random.default_rng(3)
    steps = 200
    x = rng.integers(0, 2, steps).astype(np.float64)  # a bit stream, as in the paper
    lap = rng.integers(1, 1000, steps).astype(np.float64)  # > 0: double counts show
    exact, noisy = np.zeros(tree.depth(steps)), np.zeros(tree.depth(steps))
    ours = np.array([tree.binary_mechanism_step(exact, noisy, t, x[t - 1], lap[t - 1])
                     for t in range(1, steps + 1)])
    np.testing.assert_array_equal(ours, paper_binary_mechanism(x, lap, corrected=True))
    for t in range(1, steps + 1):  # S_t = running sum + the noises of t's p-sums
        assert ours[t - 1] - x[:t].sum() == sum(lap[last - 1] for _, last in blocks(t))
    # As printed, every zero bit below the top one adds a p-sum a second time.
    printed = paper_binary_mechanism(x, lap, corrected=False)
    zero_bits = np.array([bin(t).count("0") - 1 > 0 for t in range(1, steps + 1)])
    assert (printed[zero_bits] > ours[zero_bits]).all()
    np.testing.assert_array_equal(printed[~zero_bits], ours[~zero_bits])


def test_only_set_bits_contribute() -> None:
    levels = np.full(12, 1e300)  # garbage everywhere but at the set bits
    for k in (1, 2, 5, 6, 1000, 2047, 2048):
        filled = levels.copy()
        set_bits = [i for i in range(12) if k >> i & 1]
        filled[set_bits] = np.arange(1.0, len(set_bits) + 1)
        assert tree.set_bits_sum(filled, k) == sum(range(1, len(set_bits) + 1))


@numba.njit
def _push_view(levels: np.ndarray, k: int, value: float) -> float:
    return tree.push_and_sum(levels[0, 1], k, value)


def test_tree_works_on_a_view_of_a_larger_state() -> None:
    state = np.zeros((2, 3, 5))
    _push_view(state, 1, 4.0)
    assert _push_view(state, 2, 3.0) == 3.0 and state[0, 1, :2].tolist() == [4.0, 3.0]
    assert _push_view(state, 3, 2.0) == 5.0 and not state[1].any() and not state[0, 0].any()


# ----------------------------------------------------------------------- calibration

BOUNDS = [0.1, 0.5 * math.sqrt(3), 1.0, 3.7]
BUDGETS = [(0.1, 1e-6), (0.5, 1e-3), (1.0, 0.01)]


@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize(("epsilon", "delta"), BUDGETS)
def test_private_colme_lemmas(bound: float, epsilon: float, delta: float) -> None:
    """Lemmas 1–3 as printed, and as the generic mechanisms with Δ = 2L and 4L²."""
    log = math.log(1.25 / delta)
    gaussian = mean_release_std("gaussian", bound, epsilon, delta)
    laplace = mean_release_std("laplace", bound, epsilon, delta)
    assert gaussian**2 == pytest.approx(8 * bound**2 * log / epsilon**2, rel=1e-14)
    assert laplace**2 == pytest.approx(8 * bound**2 / epsilon**2, rel=1e-14)
    assert variance_release_std("gaussian", bound, epsilon, delta) ** 2 == pytest.approx(
        32 * bound**4 * log / epsilon**2, rel=1e-14)
    assert variance_release_std("laplace", bound, epsilon, delta) ** 2 == pytest.approx(
        32 * bound**4 / epsilon**2, rel=1e-14)
    assert mean_sensitivity(bound) == 2 * bound
    assert variance_sensitivity(bound) == pytest.approx(4 * bound**2, rel=1e-15)
    for kind, sensitivity, release in (("gaussian", mean_sensitivity(bound), gaussian),
                                       ("laplace", mean_sensitivity(bound), laplace)):
        generic = (classic_gaussian_sigma(sensitivity, epsilon, delta) if kind == "gaussian"
                   else math.sqrt(2.0) * laplace_scale(sensitivity, epsilon))
        assert release == pytest.approx(generic, rel=1e-15)
    assert variance_release_std("gaussian", bound, epsilon, delta) == pytest.approx(
        classic_gaussian_sigma(variance_sensitivity(bound), epsilon, delta), rel=1e-15)
    assert variance_release_std("laplace", bound, epsilon, delta) == pytest.approx(
        math.sqrt(2.0) * laplace_scale(variance_sensitivity(bound), epsilon), rel=1e-15)


@pytest.mark.parametrize(("epsilon", "delta"), [*BUDGETS, (4.0, 1e-5), (10.0, 0.01)])
def test_analytic_gaussian_mechanism(epsilon: float, delta: float) -> None:
    """Balle & Wang's condition holds with equality; tighter than the classic σ; ∝ Δ."""
    sigma = analytic_gaussian_sigma(epsilon, delta)
    excess = ndtr(0.5 / sigma - epsilon * sigma) - math.exp(epsilon) * ndtr(
        -0.5 / sigma - epsilon * sigma)
    assert excess == pytest.approx(delta, rel=1e-8)
    if epsilon <= 1.0:
        assert sigma < classic_gaussian_sigma(1.0, epsilon, delta)
    assert analytic_gaussian_sigma(epsilon, delta, sensitivity=2.5) == 2.5 * sigma


def test_network_calibrations() -> None:
    epsilon, delta, log = 0.5, 0.01, math.log(2 / 0.01)
    laplace = calibrate("laplace", epsilon, delta, smooth=True)
    assert laplace.factor == 2 / epsilon and laplace.variance_factor == 2.0
    # eq. (9): S*(s) = 1/(e γ s) with γ = ε/(2 ln(2/δ))
    assert laplace.smooth == pytest.approx(2 * log / (math.e * epsilon), rel=1e-15)
    assert log_smooth_constant(0.25) == pytest.approx(4 / math.e, rel=1e-15)
    bounded = calibrate("laplace", epsilon, delta, smooth=False, sensitivity=0.3)
    assert (bounded.factor, bounded.smooth, bounded.sensitivity) == (1 / epsilon, None, 0.3)
    gaussian = calibrate("gaussian", epsilon, delta, smooth=True)
    assert gaussian.factor == pytest.approx(5 * math.sqrt(2 * log) / epsilon, rel=1e-15)
    assert gaussian.smooth == pytest.approx(4 * (1 + log) / (math.e * epsilon), rel=1e-15)
    assert gaussian.variance_factor == 1.0
    analytic = calibrate("gaussian", epsilon, delta, smooth=False)
    assert analytic.factor == analytic_gaussian_sigma(epsilon, delta)
    rizk = rizk_calibration(epsilon, delta, 100, smooth=True)
    assert rizk.factor == 100 / epsilon
    assert rizk.smooth == pytest.approx(2 * log / (math.e * epsilon), rel=1e-15)
    signals = np.array([0.5, 2.0, 40.0])
    np.testing.assert_allclose(rizk.scale(signals, 0.0, 0.001),
                               100 * 0.001 * 2 * log / (math.e * epsilon * signals) / epsilon,
                               rtol=1e-14)


def test_rizk_scale_readings() -> None:
    """Appendix B's noise for Rizk et al. at T = 100, η = 0.001, ε = 1, δ = 0.01, by hand:
    S*(s) = 2 ln 200/(e s) = 3.898284/s (eq. (9) at the full ε), so the Signal-DP scale
    T·max(0, η S)/ε at s = 1 is printed 100·0.001·3.898284 = 0.3898284; code, with S* at
    ε/T (100 times larger) and the factor 2, 200 times that = 77.96568; no_eta
    100·3.898284 = 389.8284. Network DP with a_i = 0.2 at s = 100: 100·max(0.2, ·) = 20
    under every reading (the signal part 0.0039, 0.78 and 3.9 per 100 below a_i = 0.2), and
    at s = 1 the code reading's 100·0.001·2·100·3.898284 = 77.96568 passes a_i."""
    per_unit = 2 * math.log(200) / math.e
    assert per_unit == pytest.approx(3.898284, rel=1e-6)
    one, hundred = np.array([1.0]), np.array([100.0])
    expected = {"printed": 0.3898284, "code": 77.96568, "no_eta": 389.8284}
    for reading, scale in expected.items():
        cal = rizk_calibration(1.0, 0.01, 100, True, reading=reading, learning_rate=0.001)
        assert cal.scale(one, 0.0, 0.001)[0] == pytest.approx(scale, rel=1e-6)
        assert cal.scale(hundred, 0.2, 0.001)[0] == pytest.approx(20.0, rel=1e-12)
    code = rizk_calibration(1.0, 0.01, 100, True, reading="code", learning_rate=0.001)
    assert code.scale(one, 0.2, 0.001)[0] == pytest.approx(77.96568, rel=1e-6)
    # The default reading is the printed one, bit for bit.
    assert rizk_calibration(1.0, 0.01, 100, True) == rizk_calibration(
        1.0, 0.01, 100, True, reading="printed", learning_rate=0.001)
    # A global Δ: no_eta pays Δ/η for the η Δ of the update; code is undefined there.
    bounded = rizk_calibration(1.0, 0.01, 100, False, 0.5, "no_eta", 0.001)
    assert float(bounded.scale(one, 0.0, 0.001)) == pytest.approx(100 * 0.5, rel=1e-12)
    with pytest.raises(ValueError, match="smooth sensitivity only"):
        rizk_calibration(1.0, 0.01, 100, False, reading="code")


def test_network_dp_scale_readings() -> None:
    """Network DP at ε = 1, δ = 0.01, S*(s) = 3.898284/s: the paper's 2·max(a_i, S*)/ε and
    the authors' code's max(a_i, 2S*)/ε. Where a_i dominates (a_i = 0.5, s = 100,
    S* = 0.038983): 1.0 against 0.5, half. Where S* dominates (a_i = 0.5, s = 1): both
    2·3.898284 = 7.796568. Signal DP (a_i weight 0): both 2S*/ε."""
    paper = calibrate("laplace", 1.0, 0.01, smooth=True)
    code = calibrate("laplace", 1.0, 0.01, smooth=True, network_scale="code")
    signals, a = np.array([100.0, 1.0]), np.array([0.5, 0.5])
    np.testing.assert_allclose(paper.scale(signals, a), [1.0, 7.796568], rtol=1e-6)
    np.testing.assert_allclose(code.scale(signals, a), [0.5, 7.796568], rtol=1e-6)
    np.testing.assert_allclose(code.scale(signals), paper.scale(signals), rtol=1e-15)


def test_floored_smooth_sensitivity_by_hand_and_by_definition() -> None:
    """S* of log on [s_min, ∞) at s_min = 1, β = 0.1, by hand (L = log 2 = 0.693147):
    s = 0.3 is clipped to 1 and LS(1) = log 2 (moving up to 2) = L: S* = 0.693147; s = 3:
    LS = log(3/2) = 0.405465 and k_0 = 1 reaches y = 2: e^{−0.1}·log 2 = 0.627186; s = 5:
    k_0 = 3, e^{−0.3}·log 2 = 0.513496 above LS(5) = log(5/4) = 0.223144, e^{−0.1}·log(4/3)
    = 0.260309 and e^{−0.2}·log(3/2) = 0.331967; s = 100: LS(100) = log(100/99) = 0.0100503
    dominates (eq. (9) gives 1/(e·0.1·100) = 0.0367879 there). Then against Nissim et
    al.'s definition, max_k e^{−βk} max_{|y−s|<=k} LS(y), by brute force on a grid of y."""
    got = floored_log_smooth_sensitivity(np.array([0.3, 3.0, 5.0, 100.0]), 0.1, 1.0)
    np.testing.assert_allclose(got, [0.693147, 0.627186, 0.513496, 0.0100503], rtol=1e-5)

    def local(y: float, floor: float) -> float:
        return max(math.log1p(1 / y), math.log(y / max(floor, y - 1)))

    def brute(s: float, beta: float, floor: float) -> float:
        x, best = max(s, floor), 0.0
        for k in range(int(x) + 3):
            low = max(floor, x - k)
            ys = np.linspace(low, x + k, 401).tolist()
            if low <= floor + 1 <= x + k:  # where LS peaks
                ys.append(floor + 1)
            best = max(best, math.exp(-beta * k) * max(local(y, floor) for y in ys))
        return best

    for floor, beta in itertools.product((0.1, 1.0, 2.0), (0.02, 0.1, 0.5)):
        for s in (0.05, 1.0, 1.5, 2.7, 4.0, 7.3, 12.0, 30.0):
            assert floored_log_smooth_sensitivity(np.array([s]), beta, floor)[0] == (
                pytest.approx(brute(s, beta, floor), rel=1e-12))


def test_floor_calibrations() -> None:
    """With a floor, Laplace noise is 2 S*(s)/ε with the exact S* at γ = ε/(2 ln(2/δ))
    (and the reading's multiplier for Rizk et al.: 2 for the code, 1/η without η)."""
    gamma = 1.0 / (2 * math.log(200))
    s = np.array([0.2, 1.0, 3.0, 50.0])
    exact = floored_log_smooth_sensitivity(s, gamma, 1.0)
    laplace = calibrate("laplace", 1.0, 0.01, smooth=True, floor=1.0)
    np.testing.assert_allclose(laplace.scale(s), 2 * exact, rtol=1e-14)
    for reading, beta, multiplier in (("printed", gamma, 1.0), ("code", gamma / 100, 2.0),
                                      ("no_eta", gamma, 1000.0)):
        cal = rizk_calibration(1.0, 0.01, 100, True, reading=reading, learning_rate=0.001,
                               floor=1.0)
        np.testing.assert_allclose(
            cal.scale(s, 0.0, 0.001),
            100 * 0.001 * multiplier * floored_log_smooth_sensitivity(s, beta, 1.0),
            rtol=1e-13)



def test_floor_under_network_dp_pays_a_and_s_together() -> None:
    """Network DP with a floor: Laplace scale 2(a_i + S*(s))/ε, not 2·max(a_i, S*)/ε.
    By hand at ε = 1, δ = 0.01, s_min = 4, s = 4 (γ = 1/(2 ln 200) = 0.0944): S* is the
    global sensitivity log(5/4) = 0.2231 there (k_0 = 1: max(LS(4) = log(5/4),
    e^{−γ}·log(5/4))), so with a_i = 0.3 the scale is 2(0.3 + 0.2231) = 1.0463, where the
    max would give 0.6; with a_i = 0 both are 2·0.2231 = 0.4463."""
    laplace = calibrate("laplace", 1.0, 0.01, smooth=True, floor=4.0)
    s = np.array([4.0])
    assert laplace.scale(s, 0.3)[0] == pytest.approx(2 * (0.3 + math.log(1.25)), rel=1e-12)
    assert laplace.scale(s, 0.0)[0] == pytest.approx(2 * math.log(1.25), rel=1e-12)
    # Without a floor, Sec. 3.1's max: eq. (9)'s S*(4) = 1/(eγ·4) = 0.9746 > a_i = 0.3.
    plain = calibrate("laplace", 1.0, 0.01, smooth=True)
    gamma = 1.0 / (2 * math.log(200))
    assert plain.scale(s, 0.3)[0] == pytest.approx(2 / (math.e * gamma * 4), rel=1e-12)


# ----------------------------------------------------------------------------- noise


def test_kind_codes() -> None:
    assert [noise.kind_code(name) for name in noise.NOISE_KINDS] == [
        noise.LAPLACE, noise.GAUSSIAN, noise.STAIRCASE]
    # The families validate against their own tuples (this module loads numba).
    assert set(NETWORK_NOISES) == set(noise.NOISE_KINDS)
    assert set(COLME_NOISES) == set(noise.NOISE_KINDS)
    assert noise.variance_factor(noise.LAPLACE) == 2.0
    assert noise.variance_factor(noise.GAUSSIAN) == 1.0
    # Laplace's variance 2 as ε → 0 (the staircase tends to it), 24 times less at ε = 10.
    assert noise.variance_factor(noise.STAIRCASE, 1e-3) == pytest.approx(2.0, rel=1e-3)
    assert noise.variance_factor(noise.STAIRCASE, 10.0) < 2.0 / 20
    with pytest.raises(ValueError, match="student"):
        noise.kind_code("student")


@numba.njit
def _draws(rng: np.random.Generator, kind: int, size: float, n: int,
           by_scale: bool) -> np.ndarray:
    out = np.empty(n)
    for i in range(n):
        out[i] = noise.draw_scale(rng, kind, size, noise.NO_STAIRS) if by_scale else \
            noise.draw_std(rng, kind, size, noise.NO_STAIRS)
    return out


@pytest.mark.parametrize("kind", [noise.LAPLACE, noise.GAUSSIAN])
@pytest.mark.parametrize("by_scale", [False, True])
def test_draws_have_their_scale(kind: int, by_scale: bool) -> None:
    size = 1.7
    rng = np.random.default_rng(21 + kind + 2 * by_scale)
    draws = _draws(rng, kind, size, 100_000, by_scale)
    assert_close_mean(draws, 0.0)
    variance = noise.variance_factor(kind) * size**2 if by_scale else size**2
    assert_close_variance(draws, variance)
    unit = noise.draw_unit(np.random.default_rng(kind), kind, 100_000)
    assert_close_mean(unit, 0.0)
    assert_close_variance(unit, noise.variance_factor(kind))


@pytest.mark.parametrize("epsilon", [0.5, 4.0])
def test_staircase_draws_are_in_units_of_the_laplace_scale(epsilon: float) -> None:
    """b × draw_unit(STAIRCASE, ε) is the staircase of sensitivity Δ = bε: its variance is
    variance_factor(STAIRCASE, ε) b², and it exceeds m·b beyond the first stair with
    probability about e^(−m), as Laplace(b) does."""
    unit = noise.draw_unit(np.random.default_rng(5), noise.STAIRCASE, 400_000, epsilon)
    assert_close_mean(unit, 0.0)
    assert_close_variance(unit, noise.variance_factor(noise.STAIRCASE, epsilon))
    beyond = np.mean(np.abs(unit) >= 2 * epsilon)  # |X| >= 2Δ, in units of b = Δ/ε
    assert beyond == pytest.approx(math.exp(-2 * epsilon), abs=4 * math.sqrt(
        beyond * (1 - beyond) / unit.size))


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_scaled_normals_are_numpys_bit_for_bit(bit_generator: type) -> None:
    """:func:`normals.draw_scaled` gives numpy's float32 normals, scaled and shifted, and
    leaves the generator where numpy's draw leaves it, over blocks of odd shapes, with
    enough draws that the ziggurat's tail (|z| > r, about 2.6e-4 of the draws) and its
    wedges (about 1%) are taken thousands of times. (MT19937's 32-bit outputs check
    that the bits are its ``next_uint32``'s, not halves of 64-bit ones.)"""
    ours, numpys = np.random.Generator(bit_generator(8)), np.random.Generator(bit_generator(8))
    shift = np.random.default_rng(1).normal(size=1001).astype(np.float32)
    scale = np.float32(1.7)
    tails = 0
    for rows in (1, 2_999, 4_000):
        drawn = normals.draw_scaled(ours, (rows, shift.size), scale, shift)
        z = numpys.standard_normal((rows, shift.size), dtype=np.float32)
        tails += int(np.sum(np.abs(z) > normals.ZIGGURAT_R))
        z *= scale
        z += shift
        np.testing.assert_array_equal(drawn, z)
    assert tails > 1_000
    # Both go on with the same 32-bit outputs (a half 64-bit output buffered included).
    np.testing.assert_array_equal(ours.random(5, dtype=np.float32),
                                  numpys.random(5, dtype=np.float32))


def test_scaled_normals_refuse_what_numpy_would_round_otherwise() -> None:
    rng, shift = np.random.default_rng(0), np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="scale: must be a numpy float32; got float"):
        normals.draw_scaled(rng, (2, 4), 1.5, shift)
    with pytest.raises(ValueError, match=r"shift: must be float32 of shape \(4,\); got "
                                         r"float64 of shape \(4,\)"):
        normals.draw_scaled(rng, (2, 4), np.float32(1.5), shift.astype(np.float64))
    with pytest.raises(ValueError, match=r"got float32 of shape \(3,\)"):
        normals.draw_scaled(rng, (2, 4), np.float32(1.5), shift[:3])


# ---------------------------------------------------------------------------- graphs


@pytest.mark.parametrize(("options", "message"), [
    ({"radius": 3.0}, "graph.radius: must be in (0, √2]; got 3.0"),
    ({"kind": "torus"}, "graph.kind: must be one of"),
    ({"n_nodes": 1}, "graph.n_nodes: must be an integer >= 2; got 1"),
    ({"kind": "ring", "n_nodes": 2}, "graph.n_nodes: must be an integer >= 3 for graph.kind"),
    ({"kind": "grid", "grid_rows": 7}, "graph.grid_rows: must be a divisor of n_nodes = 969"),
    ({"kind": "watts_strogatz", "neighbors": 3}, "graph.neighbors: must be an even integer"),
    ({"kind": "barabasi_albert", "n_nodes": 3, "attachments": 3}, "graph.attachments:"),
    ({"kind": "erdos_renyi", "edge_probability": 0}, "graph.edge_probability: must be in"),
    ({"kind": "watts_strogatz", "rewire_probability": 2}, "graph.rewire_probability:"),
    ({"kind": "edgelist"}, "graph.edgelist: must be the path of an edge-list file"),
    ({"seed": -1}, "graph.seed: must be an integer >= 0"),
    ({"weights": "uniform"}, "graph.weights: must be one of"),
    ({"kind": "erdos_renyi", "radius": 0.2}, "graph.radius: must be unset for graph.kind="
     "erdos_renyi (only geometric takes it); got 0.2"),
    ({"kind": "ring", "n_nodes": 9, "neighbors": 4}, "graph.neighbors: must be unset for "
     "graph.kind=ring (only watts_strogatz, newman_watts_strogatz take it); got 4"),
    ({"kind": "edgelist", "edgelist": "edges.txt", "grid_rows": 3}, "graph.grid_rows: must "
     "be unset for graph.kind=edgelist (only grid takes it)"),
    ({"size": 5}, "graph.size: unknown option; allowed: graph.attachments"),
])
def test_graph_options_name_their_dotted_key(options: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        GraphConfig.from_options(options)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_graph_config_prefix_normalization_and_columns() -> None:
    with pytest.raises(ConfigError, match=r"^topology\.radius: "):
        GraphConfig.from_options({"radius": 0}, prefix="topology.")
    ring = GraphConfig.from_options({"kind": "ring", "n_nodes": 12, "seed": 4})
    assert ring == GraphConfig(kind="ring", n_nodes=12, radius=None, edge_probability=None,
                               neighbors=None, rewire_probability=None, attachments=None,
                               grid_rows=None, edgelist=None, seed=4)
    holder = dataclasses.make_dataclass("Holder", [("graph", GraphConfig), ("states", tuple)])
    assert describe(holder(ring, (0.5, -1.0))).columns == {"states": "0.5,-1.0",
        "graph.kind": "ring", "graph.n_nodes": 12, "graph.radius": None,
        "graph.edge_probability": None, "graph.neighbors": None,
        "graph.rewire_probability": None, "graph.attachments": None,
        "graph.grid_rows": None, "graph.edgelist": None, "graph.seed": 4,
        "graph.weights": "metropolis"}
    assert GraphConfig.from_options(ring) == ring


@pytest.mark.parametrize("options", [
    {"kind": "ring", "n_nodes": 9},
    {"kind": "grid", "n_nodes": 12, "grid_rows": 3},
    {"kind": "erdos_renyi", "n_nodes": 20, "edge_probability": 0.3, "seed": 2},
    {"kind": "barabasi_albert", "n_nodes": 15, "attachments": 2, "seed": 1},
])
def test_edges_and_weights_against_their_definitions(options: dict) -> None:
    spec = GraphConfig.from_options(options).spec()
    graph = graphs.generate(spec)
    edges = graphs.edges(spec)
    n = graph.number_of_nodes()
    assert edges.shape == (graph.number_of_edges(), 2) and edges.min() >= 0
    assert edges.max() < n
    degree = np.bincount(edges.ravel(), minlength=n)
    metropolis = np.zeros((n, n))
    for i, j in edges:
        metropolis[i, j] = metropolis[j, i] = 1 / max(degree[i], degree[j])
    np.fill_diagonal(metropolis, 1 - metropolis.sum(axis=1))
    np.testing.assert_allclose(graphs.weight_matrix(graph, "metropolis").toarray(),
                               metropolis, rtol=0, atol=1e-15)
    np.testing.assert_allclose(graphs.weight_matrix(graph, "lazy_metropolis").toarray(),
                               (np.eye(n) + metropolis) / 2, rtol=0, atol=1e-15)
    adjacency = nx.to_numpy_array(graph)
    max_degree = adjacency / (degree.max() + 1)
    np.fill_diagonal(max_degree, 1 - max_degree.sum(axis=1))
    np.testing.assert_allclose(graphs.weight_matrix(graph, "max_degree").toarray(),
                               max_degree, rtol=0, atol=1e-15)


def test_build_checks_connectivity_and_mixing() -> None:
    network = graphs.build(GraphConfig.from_options(
        {"kind": "ring", "n_nodes": 9, "weights": "lazy_metropolis"}).spec())
    # Lazy MH on a 9-ring: λ_k = (1 + cos(2πk/9))/2, so β* = λ_1.
    assert network.beta_star == pytest.approx((1 + math.cos(2 * math.pi / 9)) / 2, rel=1e-12)
    assert network.n == 9 and network.n_edges == 9 and network.max_weight == 0.25
    with pytest.raises(ConfigError, match=r"^graph\.weights: must mix"):
        graphs.build(GraphConfig.from_options({"kind": "ring", "n_nodes": 10}).spec())
    with pytest.raises(ConfigError, match=r"^graph: must be connected; .* graph\.seed"):
        graphs.build(GraphConfig.from_options(
            {"kind": "erdos_renyi", "n_nodes": 50, "edge_probability": 0.01}).spec())
