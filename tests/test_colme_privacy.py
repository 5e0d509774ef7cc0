"""Private-ColME's privacy, tested on what the code draws and sends (issue 36).

:mod:`tests.test_privacy_audit` certifies that the declared σ_DP pays for the
sensitivity of the p-sums. These tests run a cell's own replicate function
(:func:`sweep.colme.engine.run_replicate`) and look at what an observer sees: every
release an agent receives (means, and with ``variance=shared`` the V_{b→a} of eq. (8)),
and whom each agent queries (:class:`sweep.colme.kernel.Audit`).

* The noise drawn is the noise declared: the releases of a replicate against the same
  replicate with its noise switched off give back every p-sum noise, which must follow
  Lemma 1's N(0, σ²) or Lemma 2's Laplace(2L/ε), written out again here; and under
  Sch-Var-1 every partial sample variance's noise W, which must follow Lemma 3's
  N(0, σ_2,DP²) or its Laplace analogue of variance σ_2,DP² (Sec. II-C).
* Everything else is post-processing: agent b's data changed in one sample, and the run
  handed the releases of the unchanged one (the coupling of the DP proof), for known
  variances, Sch-Var-1 (mean and variance releases handed) and Sch-Var-2. Under rRR,
  whom every other agent queries is then the same; whom b itself queries is not (a
  finding: rRR's choice of whom to ask is a test on the asker's exact mean, so b's
  queries depend on b's data without noise; RR's never do).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sweep.colme.config import ColmeConfig
from sweep.colme.engine import run_replicate
from sweep.colme.kernel import Audit, State
from sweep.colme.privacy import data_bound
from sweep.colme.statistic import ESTIMATE, RAW_ESTIMATE, VAR, T

from .black_box import (
    check_drawn_noise,
    created_noises,
    lemma_scale,
    p_sum_spans,
    staircase_moments,
)

T_MAX = 64
CASES = [(m, n) for m in ("pm1", "pm2") for n in ("gaussian", "laplace", "staircase")]


def colme(**options: object) -> ColmeConfig:
    chosen = dict(n_agents=2, n_classes=1, class_means=[0.5], t_max=T_MAX, epsilon=1.0,
                  delta=1e-6) | options
    return ColmeConfig.from_options(**chosen, checkpoints=[chosen["t_max"]])


def transcript(config: ColmeConfig, seed: int, noiseless: bool = False,
               data: np.ndarray | None = None, given: np.ndarray | None = None,
               given_variance: np.ndarray | None = None) -> tuple[Audit, State]:
    """What every agent received (``released``, and ``released_variance`` under
    Sch-Var-1) and whom it queried (``queried``), at every time step of one replicate;
    and the replicate's final state."""
    shape = (config.t_max, config.n_agents)
    empty = np.zeros((0, 0))

    def handed(values: np.ndarray | None) -> np.ndarray:
        return empty if values is None else values

    audit = Audit(handed(data), handed(given), np.full(shape, np.nan),
                  np.full(shape, -1, dtype=np.int64), handed(given_variance),
                  np.full(shape, np.nan))
    _, state = run_replicate(config, np.random.SeedSequence(seed), audit, noiseless)
    return audit, state


def release_budget(config: ColmeConfig) -> tuple[float, float]:
    """Each p-sum's (ε, δ): divided by ⌊log2 t_max⌋ + 1 under PM-II with the split
    (Sec. VII), and halved between the mean and the variance releases under Sch-Var-1
    (Sec. VII-B)."""
    parts = config.t_max.bit_length() if config.mechanism == "pm2" else 1
    parts *= 2 if config.variance == "shared" else 1
    return config.epsilon / parts, config.delta / parts


def declared_scale(config: ColmeConfig) -> float:
    """Lemma 1 or 2 at each p-sum's budget: the Gaussian σ_DP or the Laplace scale (the
    staircase's too: its draws are in the Laplace scale's units, 2L/ε)."""
    return lemma_scale(config.noise, data_bound(config.distribution, config.sigma),
                       *release_budget(config))


def declared_sigma_dp(config: ColmeConfig) -> float:
    """σ_DP, the standard deviation of a p-sum's noise, which eq. (8) subtracts: Lemma 1's
    σ, √2 times Lemma 2's Laplace scale (σ_DP² = 8L²/ε²), or the staircase's second
    moment summed over its stairs times its scale."""
    scale = declared_scale(config)
    if config.noise == "staircase":
        return math.sqrt(staircase_moments(release_budget(config)[0])[0]) * scale
    return scale if config.noise == "gaussian" else math.sqrt(2.0) * scale


def declared_variance_scale(config: ColmeConfig) -> float:
    """Lemma 3 written out again (not the platform's calibration): the noise W of a
    partial sample variance of data in [μ − L, μ + L] is N(0, σ_2,DP²) with
    σ_2,DP² = 32 L⁴ ln(1.25/δ)/ε², or (Sec. II-C, after Lemma 3) Laplace of variance
    32 L⁴/ε², i.e. of scale 4L²/ε (the sensitivity 4L² of Appendix C-C over ε); each at
    the variance release's half of the budget."""
    bound = data_bound(config.distribution, config.sigma)
    epsilon, delta = release_budget(config)
    if config.noise != "gaussian":  # the staircase in the Laplace scale's units
        return 4.0 * bound**2 / epsilon
    return math.sqrt(32.0 * bound**4 * math.log(1.25 / delta)) / epsilon


@pytest.mark.parametrize(("mechanism", "noise"), CASES)
def test_the_drawn_noise_is_the_declared_noise(mechanism: str, noise: str) -> None:
    """Two agents under RR ask each other at every step, so the κ-th release of b to a
    is at t = κ: 40 replicates × 2 pairs × 64 releases give 5,120 p-sum noises (the
    scale test detects a 10% error with power >= 0.99)."""
    config = colme(mechanism=mechanism, noise=noise)
    steps = np.arange(1, T_MAX + 1, dtype=np.float64)
    noises = []
    for seed in range(40):
        noisy = transcript(config, seed)[0].released
        exact = transcript(config, seed, noiseless=True)[0].released
        noises.append(created_noises(noisy, exact, steps, p_sum_spans(mechanism, T_MAX)))
    check_drawn_noise(np.concatenate(noises), noise, declared_scale(config),
                      epsilon=release_budget(config)[0])


def pair_streams(audit: Audit, n_agents: int) -> dict[tuple[int, int], np.ndarray]:
    """The rows t − 1 at which receiver a got its releases from b, per ordered pair."""
    return {(a, b): np.flatnonzero(audit.queried[:, a] == b)
            for a in range(n_agents) for b in range(n_agents) if a != b}


def drawn_variance_noises(mean: np.ndarray, exact_mean: np.ndarray, variance: np.ndarray,
                          exact_variance: np.ndarray, times: np.ndarray, span: np.ndarray,
                          sigma_dp: float) -> tuple[np.ndarray, np.ndarray]:
    """The noises Z and W of every p-sum a stream of Sch-Var-1 releases creates.

    Rows are the releases κ = 1..K of b to a at ``times`` t_κ, released against noiseless
    (``exact_*``): the means (S + N_κ)/t_κ and V_{b→a} of eq. (8). Release κ creates the
    p-sum P of releases κ − ``span[κ − 1]`` + 1 .. κ (:func:`tests.black_box.p_sum_spans`),
    of length ℓ_P = t_κ − t_{κ−span}, data sum S_P and noises Z_P, W_P; its split is that
    of release κ − span and P. By eqs. (6)-(8), (t_κ − 1) V_{b→a} = Σ_{j<=t_κ} X_j²
    + Σ_{P in the split} c_P − t_κ r_κ² − σ_DP² (Σ_P 1/ℓ_P − k/t_κ), with
    c_P = (2 S_P Z_P + Z_P² + (ℓ_P − 1) W_P)/ℓ_P, and its noiseless value is
    Σ X_j² − t_κ r⁰_κ²; so C_κ = Σ_P c_P is known from the releases, c_P = C_κ − C_{κ−span}
    and W_P = (ℓ_P c_P − 2 S_P Z_P − Z_P²)/(ℓ_P − 1). A p-sum of one sample carries no
    W (eq. (6) weighs it by ℓ_P − 1), and at t = 1 nothing is sent (C_1 = c_P then).

    Returns every Z_P, and W_P for the p-sums of length >= 2.
    """
    kappa = np.arange(1, mean.shape[0] + 1)
    before = kappa - span
    t = np.concatenate([[0.0], times])
    noise = np.concatenate([[0.0], times * (mean - exact_mean)])  # N_κ, N_0 = 0
    data = np.concatenate([[0.0], times * exact_mean])  # Σ_{j<=t_κ} X_j
    z = noise[kappa] - noise[before]
    s = data[kappa] - data[before]
    length = t[kappa] - t[before]
    k = np.zeros(kappa.size + 1)
    inverse_lengths = np.zeros(kappa.size + 1)
    for i, j in zip(kappa, before, strict=True):
        k[i], inverse_lengths[i] = k[j] + 1.0, inverse_lengths[j] + 1.0 / length[i - 1]
    split = ((times - 1.0) * (variance - exact_variance)
             + times * (mean**2 - exact_mean**2)
             + sigma_dp**2 * (inverse_lengths[1:] - k[1:] / times))
    first = times == 1.0  # a split of one p-sum [1 : 1]
    split[first] = (2.0 * s * z + z**2)[first]
    c = np.concatenate([[0.0], split])
    c = c[kappa] - c[before]
    long = length >= 2.0
    w = (length * c - 2.0 * s * z - z**2)[long] / (length[long] - 1.0)
    return z, w


#: Sch-Var-1's draw test: three agents under RR, so that b answers a every second step
#: and its p-sums hold two samples (a p-sum of one sample carries no variance noise).
VARIANCE_DRAWS = dict(n_agents=3, t_max=256, variance="shared")
#: Each case compiles a kernel of its own (5-10 s); the quick suite keeps PM-I with
#: Laplace noise, whose kernel the reference tests compile too.
VARIANCE_CASES = [pytest.param(m, n, marks=() if (m, n) == ("pm1", "laplace")
                               else pytest.mark.slow) for m, n in CASES]


@pytest.mark.parametrize(("mechanism", "noise"), VARIANCE_CASES)
def test_the_drawn_variance_noise_is_the_declared_noise(mechanism: str, noise: str) -> None:
    """Sch-Var-1 (Sec. V-A): the mean and variance releases of a replicate against the
    same replicate without noise give back every p-sum's Z and W (eqs. (6)-(8), see
    :func:`drawn_variance_noises`), which must follow Lemmas 1/2 and 3 at half the budget
    each. Three agents under RR, t_max = 256: b answers a at t = ℓ, ℓ + 2, …, 128 times
    per ordered pair, and all but one p-sum per pair a → a + 1 (PM-I's and PM-II's
    [1 : 1]) hold >= 2 samples: 6 replicates × 765 give 4,590 variance noises, and
    6 × 6 × 128 = 4,608 mean noises; the scale test detects a 10% error with power
    0.9992 (Laplace) and > 0.9999 (Gaussian)."""
    config = colme(mechanism=mechanism, noise=noise, **VARIANCE_DRAWS)
    z_all, w_all = [], []
    for seed in range(6):
        noisy = transcript(config, seed)[0]
        exact = transcript(config, seed, noiseless=True)[0]
        np.testing.assert_array_equal(noisy.queried, exact.queried)  # RR: fixed queries
        for (a, _), rows in pair_streams(noisy, config.n_agents).items():
            z, w = drawn_variance_noises(
                noisy.released[rows, a], exact.released[rows, a],
                noisy.released_variance[rows, a], exact.released_variance[rows, a],
                rows + 1.0, p_sum_spans(mechanism, rows.size), declared_sigma_dp(config))
            z_all.append(z)
            w_all.append(w)
    z, w = np.concatenate(z_all), np.concatenate(w_all)
    assert (z.size, w.size) == (4_608, 4_590)
    epsilon = release_budget(config)[0]
    check_drawn_noise(z, noise, declared_scale(config), epsilon=epsilon)
    check_drawn_noise(w, noise, declared_variance_scale(config), epsilon=epsilon)


#: Classes far apart and little noise (Laplace, ε = 20), every peer re-tested at every
#: step: within 200 steps every agent has excluded the other class under rRR, and
#: queries exactly its own.
COUPLED = dict(n_agents=6, n_classes=2, class_means=[0.1, 0.9], class_assignment="balanced",
               sigma=0.1, t_max=200, noise="laplace", epsilon=20.0, schedule="rrr",
               decision={"refresh": "every_step"})
#: The coupling under each variance scheme: known, Sch-Var-1 (``shared``) and Sch-Var-2
#: (``inferred``, and ``inferred_bayes``'s eq. (19)). Each estimated-variance case
#: compiles a kernel of its own (7-13 s); the quick suite keeps PM-I with Sch-Var-1.
COUPLINGS = [("pm1", "known"), ("pm2", "known"), ("pm1", "shared"),
             *(pytest.param(m, v, marks=pytest.mark.slow) for m, v in
               [("pm2", "shared"), ("pm1", "inferred"), ("pm2", "inferred_bayes")])]


@pytest.mark.parametrize(("mechanism", "variance"), COUPLINGS)
def test_what_others_see_depends_on_an_agent_only_through_its_releases(
        mechanism: str, variance: str) -> None:
    """Agent b's sample at t0 replaced by the top of its support (b over all agents,
    t0 = 1, 2, 10, 50), and the run handed the unchanged run's releases (under Sch-Var-1
    its mean and its variance releases): every release and every other agent's queries
    are the same, bit for bit, and so is what every other agent a holds on its peers
    (T_{c→a}, Var[T_{c→a}], the σ_c² estimate). Under Sch-Var-2, a's σ_c² estimate reads
    c's noisy p-sums S_i + Z_i, which equal the differences of a's releases only up to
    rounding: the coupled run's are within 10⁻⁹ relative. Exclusions and inclusions both
    occur (asserted); b's own queries move in some of the pairs (rRR's finding)."""
    config = colme(mechanism=mechanism, variance=variance, **COUPLED)
    drawn = np.full((config.t_max, config.n_agents), np.nan)
    first, state = transcript(config, 3, data=drawn)
    labels = state.labels
    agents = np.arange(config.n_agents)
    for a in agents:
        late, own = set(first.queried[-20:, a]), set(agents[(labels == labels[a])])
        assert late - {-1} <= own - {a} and late & own, (
            f"agent {a} did not end up querying its own class only: {late}")
    shared = variance == "shared"
    if shared:  # a variance release answers every query from t = 2 on
        asked = first.queried[1:] >= 0
        assert np.isfinite(first.released_variance[1:][asked]).all()
    exact = [T, VAR, ESTIMATE, RAW_ESTIMATE] if variance in ("known", "shared") else [T]
    exact = [f for f in exact if f < state.pair.shape[2]]
    rounded = [VAR, ESTIMATE, RAW_ESTIMATE] if variance.startswith("inferred") else []
    top = np.asarray(config.class_means)[labels] + data_bound(config.distribution,
                                                              config.sigma)
    moved = 0
    for b in agents:
        others = agents != b
        for t0 in (1, 2, 10, 50):
            data = drawn.copy()  # the same data but one sample, whatever b's queries
            data[t0 - 1, b] = top[b]
            second, coupled = transcript(
                config, 3, data=data, given=first.released,
                given_variance=first.released_variance if shared else None)
            np.testing.assert_array_equal(first.released[:, others],
                                          second.released[:, others])
            np.testing.assert_array_equal(first.released_variance[:, others],
                                          second.released_variance[:, others])
            np.testing.assert_array_equal(first.queried[:, others], second.queried[:, others])
            view, coupled_view = state.pair[others], coupled.pair[others]
            np.testing.assert_array_equal(view[..., exact], coupled_view[..., exact])
            np.testing.assert_allclose(view[..., rounded], coupled_view[..., rounded],
                                       rtol=1e-9, atol=0.0)
            moved += not np.array_equal(first.queried[:, b], second.queried[:, b])
    assert moved > 0, "b's own queries never depended on its data"
