"""Private-ColME's privacy, tested on what the code draws and sends (issue 36).

:mod:`tests.test_privacy_audit` certifies that the declared σ_DP pays for the
sensitivity of the p-sums. These tests run a cell's own replicate function
(:func:`sweep.colme.engine.run_replicate`) and look at what an observer sees: every
release an agent receives, and whom each agent queries (:class:`sweep.colme.kernel.Audit`).

* The noise drawn is the noise declared: the releases of a replicate against the same
  replicate with its noise switched off give back every p-sum noise, which must follow
  Lemma 1's N(0, σ²) or Lemma 2's Laplace(2L/ε), written out again here.
* Everything else is post-processing: agent b's data changed in one sample, and the run
  handed the releases of the unchanged one (the coupling of the DP proof). Under rRR,
  whom every other agent queries is then the same; whom b itself queries is not (a
  finding: rRR's choice of whom to ask is a test on the asker's exact mean, so b's
  queries depend on b's data without noise; RR's never do).
"""

from __future__ import annotations

import numpy as np
import pytest

from sweep.colme.config import ColmeConfig
from sweep.colme.engine import run_replicate
from sweep.colme.kernel import Audit
from sweep.colme.privacy import data_bound

from .black_box import check_drawn_noise, created_noises, lemma_scale, p_sum_spans

T_MAX = 64
CASES = [(m, n) for m in ("pm1", "pm2") for n in ("gaussian", "laplace")]


def colme(**options: object) -> ColmeConfig:
    chosen = dict(n_agents=2, n_classes=1, class_means=[0.5], t_max=T_MAX, epsilon=1.0,
                  delta=1e-6) | options
    return ColmeConfig.from_options(**chosen, checkpoints=[chosen["t_max"]])


def transcript(config: ColmeConfig, seed: int, noiseless: bool = False,
               data: np.ndarray | None = None, given: np.ndarray | None = None
               ) -> tuple[Audit, np.ndarray]:
    """What every agent received (``released``) and whom it queried (``queried``), at
    every time step of one replicate; and the agents' classes."""
    shape = (config.t_max, config.n_agents)
    empty = np.zeros((0, 0))
    audit = Audit(empty if data is None else data, empty if given is None else given,
                  np.full(shape, np.nan), np.full(shape, -1, dtype=np.int64))
    _, state = run_replicate(config, np.random.SeedSequence(seed), audit, noiseless)
    return audit, state.labels


def declared_scale(config: ColmeConfig) -> float:
    """Lemma 1 or 2 at each p-sum's budget: (ε, δ)/(⌊log2 t_max⌋ + 1) under PM-II with
    the split (Sec. VII)."""
    parts = config.t_max.bit_length() if config.mechanism == "pm2" else 1
    return lemma_scale(config.noise, data_bound(config.distribution, config.sigma),
                       config.epsilon / parts, config.delta / parts)


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
    check_drawn_noise(np.concatenate(noises), noise, declared_scale(config))


#: Classes far apart and little noise (Laplace, ε = 20), every peer re-tested at every
#: step: within 200 steps every agent has excluded the other class under rRR, and
#: queries exactly its own.
COUPLED = dict(n_agents=6, n_classes=2, class_means=[0.1, 0.9], class_assignment="balanced",
               sigma=0.1, t_max=200, noise="laplace", epsilon=20.0, schedule="rrr",
               decision={"refresh": "every_step"})


@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_what_others_see_depends_on_an_agent_only_through_its_releases(
        mechanism: str) -> None:
    """Agent b's sample at t0 replaced by the top of its support (b over all agents,
    t0 = 1, 2, 10, 50), and the run handed the unchanged run's releases: every release
    and every other agent's queries are the same, bit for bit. Exclusions and inclusions
    both occur (asserted); b's own queries move in some of the pairs (rRR's finding)."""
    config = colme(mechanism=mechanism, **COUPLED)
    drawn = np.full((config.t_max, config.n_agents), np.nan)
    first, labels = transcript(config, 3, data=drawn)
    agents = np.arange(config.n_agents)
    for a in agents:
        late, own = set(first.queried[-20:, a]), set(agents[(labels == labels[a])])
        assert late - {-1} <= own - {a} and late & own, (
            f"agent {a} did not end up querying its own class only: {late}")
    top = np.asarray(config.class_means)[labels] + data_bound(config.distribution,
                                                              config.sigma)
    moved = 0
    for b in agents:
        others = agents != b
        for t0 in (1, 2, 10, 50):
            data = drawn.copy()  # the same data but one sample, whatever b's queries
            data[t0 - 1, b] = top[b]
            second, _ = transcript(config, 3, data=data, given=first.released)
            np.testing.assert_array_equal(first.released[:, others],
                                          second.released[:, others])
            np.testing.assert_array_equal(first.queried[:, others], second.queried[:, others])
            moved += not np.array_equal(first.queried[:, b], second.queried[:, b])
    assert moved > 0, "b's own queries never depended on its data"
