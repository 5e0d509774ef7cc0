"""Privacy of the decentralized family's private variants (the platform's own design,
:mod:`sweep.decentralized.privacy`), audited with :mod:`tests.audit`.

Neighbours: agent b's sample streams differing in one sample, both in the support
(Bernoulli: 0 ↔ 1, L = 1/2). What b sends over a run is its release at every step,
(Σ_{i<=n} X_i + N_n)/n; everything else it sends, and every decision that shapes it,
is computed from releases (post-processing). So the audit has two parts:

* the releases: their noiseless values (running means), the declared noise (each p-sum
  noise of the family's σ_DP, mixed into the releases as PM-I or PM-II add them up), and
  the accountant of the mechanism; the implementation's releases are checked to be
  exactly those values plus that mixing of the noises it drew;
* post-processing: two runs in which b's samples differ but its releases are the same
  (its p-sum noises shifted to compensate) give every other agent the same values,
  messages and decisions; only b's own estimate, which it keeps, differs.

A negative control (every noise halved) must fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from sweep.decentralized import graph as graphs
from sweep.decentralized.config import DecentralizedConfig
from sweep.decentralized.privacy import sigma_dp
from sweep.decentralized.simulate import trajectories
from sweep.execute import simulate

from .audit import GAUSSIAN, LAPLACE, Budget, Noise, Pair, audit
from .reference import binary_blocks

T_MAX = 64
LAPLACE_SCALE_OF_SD = 1.0 / np.sqrt(2.0)


def config(mechanism: str, noise: str, **options) -> DecentralizedConfig:
    return DecentralizedConfig.from_options(
        samples="bernoulli", class_means=[0.3, 0.7], t_max=T_MAX,
        graph={"n_nodes": 12, "degree": 4}, precision="float64",
        privacy={"mechanism": mechanism, "noise": noise, "epsilon": 1.0, "delta": 1e-6},
        **options)


def p_sums(mechanism: str, n: int) -> list[int]:
    """The p-sums (named by the release that created them) whose noises release n sums:
    PM-I every release's; PM-II the binary blocks of n."""
    return list(range(1, n + 1)) if mechanism == "pm1" else binary_blocks(n)


def covering(mechanism: str, sample: int) -> list[int]:
    """The p-sums that contain sample ``sample`` (1-based): PM-I its own; PM-II one per
    level, the block of each release i whose p-sum spans it."""
    if mechanism == "pm1":
        return [sample]
    return [i for i in range(1, T_MAX + 1)
            if i - (i & -i) + 1 <= sample <= i]


def mixing(mechanism: str) -> np.ndarray:
    """Release n's noise N_n/n as a combination of the p-sum noises."""
    matrix = np.zeros((T_MAX, T_MAX))
    for n in range(1, T_MAX + 1):
        for created in p_sums(mechanism, n):
            matrix[n - 1, created - 1] = 1.0 / n
    return matrix


def releases(data: np.ndarray) -> np.ndarray:
    return np.cumsum(data) / np.arange(1, len(data) + 1)


def declared_noise(cfg: DecentralizedConfig, halved: bool = False) -> Noise:
    unit = 1.0 if cfg.privacy.noise == GAUSSIAN else LAPLACE_SCALE_OF_SD
    noise = Noise(cfg.privacy.noise, np.full(T_MAX, sigma_dp(cfg) * unit),
                  mixing(cfg.privacy.mechanism))
    return noise.halved() if halved else noise


def pairs(rng: np.random.Generator) -> list[Pair[np.ndarray]]:
    """The first sample flipped with all others at one end (it enters the most p-sums
    under PM-II), every sample flipped in turn on random streams."""
    out = [Pair("first sample, end to end", np.ones(T_MAX), np.r_[0.0, np.ones(T_MAX - 1)])]
    for k in range(T_MAX):
        x = (rng.random(T_MAX) < 0.5).astype(float)
        y = x.copy()
        y[k] = 1.0 - y[k]
        out.append(Pair(f"sample {k + 1}", x, y))
    return out


def accountant(mechanism: str, noise: str) -> str:
    if noise == LAPLACE:
        return "laplace"
    return "classic" if mechanism == "pm1" else "classic_basic"


CASES = [(m, n) for m in ("pm1", "pm2") for n in (GAUSSIAN, LAPLACE)]


@pytest.mark.parametrize(("mechanism", "noise"), CASES)
def test_the_releases_are_as_private_as_claimed(mechanism: str, noise: str) -> None:
    """PM-I: every sample in one p-sum, a single Lemma 1/2 release per sample (tight).
    PM-II with the split: a sample in at most ⌊log2 t_max⌋ + 1 p-sums, each at
    (ε, δ)/(⌊log2 t_max⌋ + 1); the first sample reaches all levels (tight at t_max = 2^k)."""
    cfg = config(mechanism, noise)
    report = audit(releases, declared_noise(cfg), pairs(np.random.default_rng(0)),
                   Budget(1.0, 1e-6), accountant(mechanism, noise))
    report.assert_private().assert_tight(0.999)


@pytest.mark.parametrize(("mechanism", "noise"), CASES)
def test_halving_the_noise_breaks_the_claim(mechanism: str, noise: str) -> None:
    """The negative control: the same audit with every noise halved must fail."""
    cfg = config(mechanism, noise)
    report = audit(releases, declared_noise(cfg, halved=True),
                   pairs(np.random.default_rng(0)), Budget(1.0, 1e-6),
                   accountant(mechanism, noise))
    with pytest.raises(AssertionError, match="privacy claim broken"):
        report.assert_private()


def run(cfg: DecentralizedConfig, samples: np.ndarray, fresh: np.ndarray):
    n = samples.shape[1]
    graph = graphs.regular(n, 4, np.random.default_rng(2))
    classes = np.arange(n) % 2
    return trajectories(cfg, graph, classes, samples, fresh)


def draws(cfg: DecentralizedConfig, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = cfg.graph.n_nodes
    means = np.array(cfg.class_means)[np.arange(n) % 2]
    samples = (rng.random((T_MAX, n)) < means).astype(np.float64)
    scale = sigma_dp(cfg)
    if cfg.privacy.noise == GAUSSIAN:
        fresh = rng.standard_normal((T_MAX, n)) * scale
    else:
        fresh = rng.laplace(0.0, scale * LAPLACE_SCALE_OF_SD, (T_MAX, n))
    return samples, fresh


@pytest.mark.parametrize(("mechanism", "noise"), CASES)
def test_the_kernels_release_what_the_audit_declares(mechanism: str, noise: str) -> None:
    """Each agent's releases are its running means plus the declared mixing of the p-sum
    noises it drew (one fresh noise per step)."""
    cfg = config(mechanism, noise)
    samples, fresh = draws(cfg, 1)
    ours = run(cfg, samples, fresh)
    expected = (np.cumsum(samples, axis=0) / np.arange(1, T_MAX + 1)[:, None]
                + mixing(mechanism) @ fresh)
    np.testing.assert_allclose(ours.release, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["c_colme", "b_colme"])
@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_what_others_see_depends_on_an_agent_only_through_its_releases(
        method: str, mechanism: str) -> None:
    """Agent 0's samples change (its first and 20th samples flipped) and its p-sum noises
    absorb the change, so its releases stay the same: every other agent's release,
    estimate and oracle, and every kept flag, are unchanged; agent 0's own estimate,
    which uses its exact mean, moves."""
    options = {"method": method}
    if method == "c_colme":
        options["alpha_reset"] = "local"  # the reset bits are messages too
    cfg = config(mechanism, GAUSSIAN, **options)
    samples, fresh = draws(cfg, 3)
    other_samples, other_fresh = samples.copy(), fresh.copy()
    for k in (1, 20):
        delta = 1.0 - 2.0 * other_samples[k - 1, 0]
        other_samples[k - 1, 0] += delta
        for created in covering(mechanism, k):
            other_fresh[created - 1, 0] -= delta
    first, second = run(cfg, samples, fresh), run(cfg, other_samples, other_fresh)
    np.testing.assert_allclose(first.release, second.release, rtol=0, atol=1e-12)
    for name in ("estimate", "oracle", "local"):
        np.testing.assert_allclose(getattr(first, name)[:, 1:], getattr(second, name)[:, 1:],
                                   rtol=0, atol=1e-12)
    np.testing.assert_array_equal(first.kept, second.kept)
    np.testing.assert_array_equal(first.wrong, second.wrong)
    assert np.abs(first.estimate[:, 0] - second.estimate[:, 0]).max() > 1e-3


@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_the_radius_pays_for_the_noise(mechanism: str) -> None:
    """Private tests lose no same-class link and still cut every wrong one: classes of
    means 0.1 and 0.9 at ε = 1 (PM-I's release noise σ_DP/√n, σ_DP ≈ 5.3, is ten times
    the data's; PM-II's p-sums get ε/15 each)."""
    frame = simulate("decentralized", 3, 0, samples="bernoulli", class_means=[0.1, 0.9],
                     t_max=20_000, checkpoints=[20_000], baselines=[],
                     graph={"n_nodes": 100, "degree": 6},
                     privacy={"mechanism": mechanism, "epsilon": 1.0})
    method = frame[frame["method"] == "c_colme"]
    assert (method["lost_links"] == 0).all() and (method["wrong_links"] == 0).all()
