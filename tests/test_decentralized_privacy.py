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
from sweep.decentralized.simulate import Draws, trajectories
from sweep.execute import simulate

from .audit import GAUSSIAN, LAPLACE, Budget, Noise, Pair, audit
from .black_box import check_drawn_noise, created_noises, lemma_scale, p_sum_spans
from .reference import binary_blocks

T_MAX = 64
LAPLACE_SCALE_OF_SD = 1.0 / np.sqrt(2.0)


def config(mechanism: str, noise: str, **options) -> DecentralizedConfig:
    chosen = {"samples": "bernoulli", "class_means": [0.3, 0.7], "t_max": T_MAX,
              "graph": {"n_nodes": 12, "degree": 4}, "precision": "float64",
              "epsilon": 1.0, "delta": 1e-6, "privacy": {"mechanism": mechanism,
                                                         "noise": noise}}
    return DecentralizedConfig.from_options(**(chosen | options))


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


def p_sum_budget(cfg: DecentralizedConfig) -> tuple[float, float]:
    """(ε, δ)/(⌊log2 t_max⌋ + 1) for PM-II with the split, else (ε, δ)."""
    privacy = cfg.privacy
    parts = cfg.t_max.bit_length() if privacy.mechanism == "pm2" and privacy.pm2_split else 1
    return cfg.epsilon / parts, cfg.delta / parts


def declared_scale(cfg: DecentralizedConfig) -> float:
    """Lemma 1 or 2 at each p-sum's budget (the staircase in the Laplace scale's units)."""
    return lemma_scale(cfg.privacy.noise, cfg.data_bound(), *p_sum_budget(cfg))


@pytest.mark.parametrize(("mechanism", "noise"),
                         [*CASES, ("pm1", "staircase"), ("pm2", "staircase")])
def test_the_drawn_noise_is_the_declared_noise(mechanism: str, noise: str) -> None:
    """What an observer sees, with the noise the cell draws (the family's ``Draws``)
    against the same run with it switched off: the p-sum noises recovered from the
    differences follow Lemma 1's N(0, σ²), Lemma 2's Laplace(2L/ε) or the staircase of
    sensitivity 2L (100 agents × 64 steps; the scale test detects a 10% error with
    power >= 0.99)."""
    cfg = config(mechanism, noise, graph={"n_nodes": 100, "degree": 4})
    n = cfg.graph.n_nodes
    classes = np.arange(n) % 2
    draws = Draws(cfg, classes, np.random.default_rng(4), np.random.default_rng(5))
    samples, fresh = draws.draw(T_MAX)
    graph = graphs.regular(n, 4, np.random.default_rng(2))
    noisy = trajectories(cfg, graph, classes, samples, fresh)
    exact = trajectories(cfg, graph, classes, samples, np.zeros_like(fresh))
    np.testing.assert_array_equal(exact.release, exact.local)
    steps = np.arange(1, T_MAX + 1)
    check_drawn_noise(created_noises(noisy.release, exact.release, steps,
                                     p_sum_spans(mechanism, T_MAX)),
                      noise, declared_scale(cfg), epsilon=p_sum_budget(cfg)[0])


#: Links cut and kept within 256 steps: classes far apart, little noise (PM-II's p-sums
#: get ε/9 each).
COUPLED_T = 256
COUPLED_EPSILON = {"pm1": 10.0, "pm2": 40.0}


@pytest.mark.parametrize("method", ["c_colme", "b_colme"])
@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_what_others_see_depends_on_an_agent_only_through_its_releases(
        method: str, mechanism: str) -> None:
    """The coupling of the privacy proof, in the kernels: agent b's samples change in
    one place (its 1st, 2nd, 3rd or 10th sample flipped, b over ten agents) and the run
    is handed the releases of the unchanged run (noises z' = z + release(x) −
    release(y)). Every other observable is then identical, bit for bit: every release,
    every other agent's estimate and oracle, the wrong and lost links at every step (the
    decisions of every agent, b's included) and the kept flags. Links are cut and kept
    (asserted), and with C-ColME's local reset the kept sets' changes reset the weights."""
    options = {"method": method}
    if method == "c_colme":
        options["alpha_reset"] = "local"  # the reset bits are messages too
    cfg = config(mechanism, LAPLACE, t_max=COUPLED_T, class_means=[0.1, 0.9],
                 graph={"n_nodes": 30, "degree": 6},
                 epsilon=COUPLED_EPSILON[mechanism], delta=1e-6,
                 privacy={"mechanism": mechanism, "noise": LAPLACE},
                 **options)
    n = cfg.graph.n_nodes
    classes = np.arange(n) % 2
    samples, fresh = Draws(cfg, classes, np.random.default_rng(1),
                           np.random.default_rng(2)).draw(COUPLED_T)
    graph = graphs.regular(n, 6, np.random.default_rng(2))
    first = trajectories(cfg, graph, classes, samples, fresh)
    assert first.wrong[0] > 0 and first.wrong[-1] < first.wrong[0], "no link was cut"
    assert first.kept.any(), "no link was kept"
    for agent in range(10):
        others = np.arange(n) != agent
        for k in (1, 2, 3, 10):
            neighbour = samples.copy()
            neighbour[k - 1, agent] = 1.0 - neighbour[k - 1, agent]
            second = trajectories(cfg, graph, classes, neighbour, released=first.release)
            np.testing.assert_array_equal(first.release, second.release)
            for name in ("estimate", "oracle"):
                np.testing.assert_array_equal(getattr(first, name)[:, others],
                                              getattr(second, name)[:, others])
            for name in ("wrong", "lost", "kept"):
                np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
            assert np.abs(first.local[:, agent] - second.local[:, agent]).max() > 1e-3


@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_the_radius_pays_for_the_noise(mechanism: str) -> None:
    """Private tests lose no same-class link and still cut every wrong one: classes of
    means 0.1 and 0.9 at ε = 1 (PM-I's release noise σ_DP/√n, σ_DP ≈ 5.3, is ten times
    the data's; PM-II's p-sums get ε/15 each)."""
    frame = simulate("decentralized", 3, 0, samples="bernoulli", class_means=[0.1, 0.9],
                     t_max=20_000, checkpoints=[20_000], baselines=[],
                     graph={"n_nodes": 100, "degree": 6},
                     # δ = 10⁻⁶ over 2·10⁶ samples: above 1/n, meant here.
                     epsilon=1.0, privacy={"mechanism": mechanism,
                                           "allow_large_delta": True})
    method = frame[frame["method"] == "c_colme"]
    assert (method["lost_links"] == 0).all() and (method["wrong_links"] == 0).all()
