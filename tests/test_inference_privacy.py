"""Privacy audit of the inference family (Papachristou & Rahimian, "Differentially Private
Distributed Inference"; :mod:`sweep.inference`).

Acceptance criterion: for neighbouring data sets (one patient changed, or one signal), the
change in every noiseless released log-likelihood, over all states and rounds, divided by
its Laplace scale, sums to at most ε. That is the ``laplace`` accountant of
:mod:`tests.audit` (basic composition: ℓ1 standardized shift <= ε). Everything else an
agent sends (beliefs, their exchange, the sets and tests) is post-processing of its noisy
values. The scales come from the family's own calibration (``prepare``: ``cell.scale``
and ``cell.rounds``, the rows' ``noise_scale`` and ``rounds_k``). The releases come from its
own likelihoods (``survival.partial_loglik``, ``models.bernoulli_loglik`` and
``gaussian_loglik``), each checked against the family's output on the unchanged data.

What one agent releases:

* Algs 1 and 2 (am, gm, threshold_1, threshold_2): K rounds × |Θ| values
  log γ_i(θ) + d_{i,k}(θ), d ~ Lap(K|Θ|Δ/ε) (Sec. 3.2, eq. (7), "budget ε/|Θ| per state";
  Thms 4.1/4.2, "rescale the privacy budget by K|Θ|");
* the test (Prop. 4.6, Sec. 10.2): the same on its two states, log γ_i(θ₀) and the
  supremum over [min Θ, max Θ] (composite), with Lap(2KΔ/ε);
* private_ol (Alg. 3, Thm 4.7): each round's |Θ| values, Lap(|Θ|Δ/ε); a signal (a patient)
  arrives in one round;
* treatments (Sec. 5): each arm's generalized likelihood ratio, with Lap(K|Θ|·2Δ/ε);
* rizk (Sec. 14.4): the iterates, with Lap(2B_xB_θTη/ε) per iteration. It is audited step by
  step, conditioning on the past (the iterates already sent are public): what depends on
  the data is the increment η·Clip(score(θ_{i,t−1}), 2B_θB_x), summed over T iterations;
* Sec. 2's toy: ``laplace`` sends L(2s − 1) + Lap(Δ/ε), L = log(p/(1 − p)),
  Δ = 2|log p − log(1 − p)|; ``rr`` sends s flipped with probability 1/(1 + e^ε).

Neighbours. Synthetic models: one signal replaced by any value of its domain (bernoulli 0
or 1; gaussian anything in [−B_x, B_x], the clipping range, searched on a grid that holds
the extremal pair). Cox model (ACTG 175, ddI against ZDV, five centres, Θ = {0, −log 2},
B_θ = B_x = 1): one patient of a centre removed, or replaced by an extreme patient
(the centre's earliest or latest duration, event or censored, covariate −1, 0 or 1, as
:func:`sweep.inference.survival.worst_neighbour` searches). Every neighbour is ranked by
the ℓ1 change of its release. The harness then audits the worst and a random sample of
the others (25 and 25; 10 and 10 for the treatments' ratios and Rizk et al.'s scores).

Findings (worst loss / ε; each test asserts the value and the pair that reaches it):

1. Cox, ``sensitivity=printed``: Sec. 12's Δ = 2B_θB_x = 2 does not bound the partial
   likelihood's change, and the default cell fails the audit. The loss is 2.797 for Algs
   1 and 2 (centre 3's first patient, an event on day 14, removed: log ℓ moves by 11.19
   over the two states), 2.796 for the test (centre 0's event on day 135 removed) and
   1.348 online (batches of 10 or 11 patients). ``sensitivity=signal``
   (``survival.risk_set_sensitivity``, 13.52) passes: 0.414, 0.413 and 0.199.
2. ``model=treatments``: passes under either sensitivity. The worst is 0.145 printed and
   0.021 signal, a ZDV patient replaced by an event on the centre's first day: it moves
   all three arms' ratios.
3. Eq. (7) as printed (n_i·g) for bernoulli/gaussian MLE passes, with slack n_i = 20. The
   loss is 1/30 and 9/320 = 0.0281 on the default grids and 1/20 on Θ = {0.3, 0.7}. It
   is the exact calibration for an agent's whole data set: all its signals changed give 1.
   ``sensitivity=signal`` (g) passes with 2/3 and 9/16 = 0.5625 on the default grids, and
   exactly 1 for bernoulli on Θ = {0.3, 0.7} (every state moves by g). The composite tests
   are tight under ``signal`` (1, both models).
4. Online learning passes: 2/3 (bernoulli), 9/16 (gaussian), exactly 1 on {0.3, 0.7}.
   The relation is one replaced signal. A signal added or removed is not the paper's
   relation: it gives 0.887 and 0.604 on the default grids, but 1.985 on Θ = {0.5, 0.6}.
5. Rizk et al. as printed: the clipped score lies in [−2B_θB_x, 2B_θB_x], so one patient
   can move it by 4B_θB_x while the noise pays for 2B_θB_x. The loss is exactly 2ε on a
   6-patient data set (a censored patient's covariate −1 → 1, θ = 0.5: scores 2.04 and
   −2.32, both clipped). That is a factor-2 erratum. With Lap(4B_xB_θTη/ε), the same pair
   costs exactly ε. On ACTG 175 the clip never binds on both sides, and the worst found is
   0.994 (centre 3's first event, x = 1 → −1, at θ = −0.215).
6. Sec. 2's toy: ``laplace`` is exact (ratio 1). ``rr``'s likelihood ratio is e^ε exactly.
7. Rizk et al.'s P_i (Sec. 14.4) is not a post-processing of the iterates: each centre
   computes it from its exact partial likelihood at θ_{i,T}, and it moves when the
   iterates are held fixed (the coupling, below). The iterates' ε does not cover it.

Given ``rounds`` (Algs 1, 2, the test) and Rizk et al.'s given ``iterations`` rescale
the noise to the K and T run; the Laplace toy reports its scale Δ/ε.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sweep.components.calibration import laplace_scale
from sweep.inference import beliefs, simulate, survival, toy
from sweep.inference.config import InferenceConfig
from sweep.inference.models import bernoulli_loglik, gaussian_loglik
from sweep.inference.simulate import Shared, data_generator, online_loglik, prepare
from sweep.inference.survival import Patients, neighbour, partial_loglik, partial_score

from .audit import LAPLACE, AuditReport, Budget, Noise, Pair, audit
from .black_box import ALPHA, MIN_POWER, SCALE_ERROR, check_categorical, check_drawn_noise

#: Measured losses are asserted to this relative precision.
REL = 1e-3
#: The root seed of the replicates whose data the audits start from.
SEED = 20240
#: Extreme covariates of a replacement patient (|x| <= B_x = 1; ACTG's are 0 and 1).
COVARIATES = (-1.0, 0.0, 1.0)
MLE_PRIVATE = ("am", "gm", "threshold_1", "threshold_2")


def cell_of(**options: Any) -> Shared:
    return prepare(InferenceConfig.from_options(**options))


def laplace_audit(release: Callable[[Any], np.ndarray], scale: float, pairs: Sequence[Pair],
                  epsilon: float) -> AuditReport:
    """The ``laplace`` accountant with one Laplace scale on every released value."""
    return audit(release, Noise(LAPLACE, np.array([scale])), pairs, Budget(epsilon),
                 "laplace")


def rounds_release(per_round: Callable[[Any], np.ndarray], rounds: int
                   ) -> Callable[[Any], np.ndarray]:
    """K rounds of the same noiseless values, each round with fresh noise (Alg. 1)."""
    return lambda data: np.tile(per_round(data), rounds)


# ===================================================================== declared noise


@pytest.mark.parametrize(("options", "shape", "scale"), [
    # Alg. 1 on ACTG: K = 3 rounds, |Θ| = 2, Δ = 2B_θB_x = 2 (Sec. 12 as printed).
    ({"method": "gm"}, lambda c: (c.rounds, 5, 2), lambda c: c.rounds * 2 * 2.0),
    ({"method": "threshold_2", "sensitivity": "signal"}, lambda c: (c.rounds, 5, 2),
     lambda c: c.rounds * 2 * survival.risk_set_sensitivity(219, 1.0, 1.0, spread=1.0)),
    # Eq. (7) as printed: Δ = n_i max_θ g(θ), n_i = 20.
    ({"model": {"kind": "bernoulli"}, "method": "am"}, lambda c: (c.rounds, 5, 3),
     lambda c: c.rounds * 3 * 20 * math.log(0.7 / 0.3)),
    ({"method": "test"}, lambda c: (c.rounds, 5, 2), lambda c: c.rounds * 2 * 2.0),
    ({"model": {"kind": "treatments"}}, lambda c: (c.rounds, 5, 3),
     lambda c: c.rounds * 3 * 2 * 2.0),
    # Sec. 14.4: Lap(2 B_x B_θ T η / ε) per agent and iteration.
    ({"method": "rizk"}, lambda c: (c.iterations, 5), lambda c: 2 * c.iterations * 0.001),
])
def test_runs_draw_the_declared_noise(options: dict[str, Any], shape: Callable,
                                      scale: Callable, monkeypatch: pytest.MonkeyPatch
                                      ) -> None:
    """What the audits declare is what the runs draw. The MLE, test and Rizk et al. runs
    draw their Laplace noise through ``simulate._noise``, once for all replicates. The
    shape is one draw per round, agent and state (per iteration and agent for Rizk et al.),
    and the scale is ``cell.scale``, the paper's formula (Sec. 3.2 and Thm 4.2: K|Θ|Δ/ε;
    Sec. 14.4: 2B_xB_θTη/ε)."""
    calls: list[tuple[int, tuple[int, ...], float]] = []
    original = simulate._noise

    def spy(cell, seeds, draws):  # type: ignore[no-untyped-def]
        calls.append((len(seeds), tuple(draws), cell.scale))
        return original(cell, seeds, draws)

    monkeypatch.setattr(simulate, "_noise", spy)
    cell = cell_of(epsilon=1.0, **options)
    assert cell.scale == pytest.approx(scale(cell), rel=1e-12)
    simulate.run(cell, np.random.SeedSequence(SEED).spawn(2), [0, 1])
    assert calls == [(2, shape(cell), cell.scale)]


@pytest.mark.parametrize(("options", "scale"), [
    # Alg. 1 on ACTG: K|Θ|Δ/ε with Δ = 2B_θB_x = 2 (Sec. 12 as printed), Θ = {0, −log 2}.
    ({"method": "gm"}, lambda c: c.rounds * 2 * 2.0),
    ({"method": "am"}, lambda c: c.rounds * 2 * 2.0),
    # Eq. (7) as printed: Δ = n_i max_θ g(θ), n_i = 20, Θ = {0.3, 0.5, 0.7}.
    ({"model": {"kind": "bernoulli"}, "method": "threshold_1"},
     lambda c: c.rounds * 3 * 20 * math.log(0.7 / 0.3)),
    # The test (Prop. 4.6): its two states, Lap(2KΔ/ε).
    ({"method": "test"}, lambda c: c.rounds * 2 * 2.0),
    # Treatments (Sec. 5): each arm's GLR, Lap(K|Θ|·2Δ/ε).
    ({"model": {"kind": "treatments"}}, lambda c: c.rounds * 3 * 2 * 2.0),
    # The staircase of each draw's budget ε' = ε/(K|Θ|), in the same units, at budgets
    # where its shape is far from Laplace's (ε' = 2: ε = 8, K = 2 rounds × 2 states).
    ({"method": "gm", "noise": "staircase", "epsilon": 8.0, "rounds": 2},
     lambda c: 2 * 2 * 2.0 / 8.0),
    ({"method": "test", "noise": "staircase", "epsilon": 8.0, "rounds": 2},
     lambda c: 2 * 2 * 2.0 / 8.0),
], ids=["gm-cox", "am-cox", "threshold_1-bernoulli", "test-cox", "treatments",
        "gm-cox-staircase", "test-cox-staircase"])
def test_released_log_likelihoods_carry_the_declared_noise(
        options: dict[str, Any], scale: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    """Black box on what the agents send: the noisy log-likelihoods the exchange starts
    from (``beliefs.propagate``'s ψ̃_0, as the run hands them over), less the noiseless
    ones, are Laplace of the paper's scale (written out again above; ε = 1), or the
    staircase of budget ε' = Δ/b in units of b. The MLE runs carry the noiseless values
    beside the noisy ones (Alg. 4, the last round); the test's come from
    ``simulate._test_data``. 600 replicates × 5 agents × K rounds × 2 or 3 states: the
    scale test detects a 10% error with power >= 0.99."""
    captured: list[np.ndarray] = []
    original = beliefs.propagate

    def spy(half, initial, times):  # type: ignore[no-untyped-def]
        captured.append(initial.copy())
        return original(half, initial, times)

    monkeypatch.setattr(beliefs, "propagate", spy)  # simulate imports it when it runs
    cell = cell_of(**{"epsilon": 1.0, **options})
    seeds, ids = np.random.SeedSequence(SEED).spawn(600), list(range(600))
    simulate.run(cell, seeds, ids)
    released = captured[0].transpose(1, 2, 0, 3)  # (R, rounds, n, states)
    if cell.config.method == "test":
        exact = simulate._test_data(cell, seeds, ids)[:, None]
    else:
        released, exact = released[:, :-1], released[:, -1:]
    assert released.shape[1] == cell.rounds
    assert cell.budget == pytest.approx(cell.sensitivity / scale(cell), rel=1e-12)
    check_drawn_noise(released - exact, cell.config.noise, scale(cell), epsilon=cell.budget)


@pytest.mark.parametrize(("noise", "epsilon"), [("laplace", 1.0), ("staircase", 18.0)])
def test_rizk_iterates_carry_the_declared_noise(noise: str, epsilon: float,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Rizk et al. (Sec. 14.4) on ACTG: what each centre sends at iteration t is
    θ_t = Σ_j a_ij θ_{j,t−1} + η Clip(score(θ_{i,t−1}), 2B_θB_x) + Lap(2B_xB_θTη/ε). The
    iterates are read where the run mixes them (``simulate._mix``), and each iteration's
    noise is θ_t less the mixing and the clipped score (written out again here): it is
    Laplace of the paper's scale, or the staircase of budget ε/T in its units (ε' = 2
    here) (140 replicates × 5 centres × T − 1 = 8 iterations; power >= 0.99 against a 10%
    scale error)."""
    mixed: list[tuple[np.ndarray, np.ndarray]] = []
    original = simulate._mix

    def spy(matrix, iterates):  # type: ignore[no-untyped-def]
        out = original(matrix, iterates)
        mixed.append((iterates.copy(), out))
        return out

    monkeypatch.setattr(simulate, "_mix", spy)
    cell = cell_of(method="rizk", epsilon=epsilon, iterations=9, noise=noise)
    model, eta = cell.config.model, cell.config.learning_rate
    simulate.run(cell, np.random.SeedSequence(SEED).spawn(140), list(range(140)))
    private = mixed[0::2]  # each iteration mixes the private iterates, then the plain ones
    clip = 2 * model.bound_theta * model.bound_x
    noises = []
    for (before, mix), (after, _) in itertools.pairwise(private):
        score = np.stack([partial_score(c, before[i], model.ties)
                          for i, c in enumerate(cell.centres)])
        noises.append(after - mix - eta * np.clip(score, -clip, clip))
    declared = 2 * model.bound_x * model.bound_theta * cell.iterations * eta / epsilon
    assert cell.budget == epsilon / cell.iterations
    check_drawn_noise(np.concatenate(noises), noise, declared, epsilon=cell.budget)


def hand_over(monkeypatch: pytest.MonkeyPatch, noiseless: bool) -> list[np.ndarray]:
    """The coupling of the proof in the exchange. ``beliefs.propagate``, which every run
    of Algs 1, 2 and the test calls once, on ψ̃_0 = the rounds' noisy log-likelihoods
    (n, R, rounds, states), hands the second run the first run's releases: its noise
    becomes z' = z + release(x) − release(y). With ``noiseless``, the last round (Alg. 4's
    noiseless run beside the private ones) stays the run's own. Returns the ψ̃_0 each run
    brought, before the hand-over."""
    original = beliefs.propagate
    brought: list[np.ndarray] = []

    def exchange(half, initial, times):  # type: ignore[no-untyped-def]
        brought.append(initial.copy())
        if len(brought) == 2:
            initial = (np.concatenate([brought[0][:, :, :-1], initial[:, :, -1:]], axis=2)
                       if noiseless else brought[0].copy())
        return original(half, initial, times)

    monkeypatch.setattr(beliefs, "propagate", exchange)  # simulate imports it when it runs
    return brought


@pytest.mark.parametrize("method", ["am", "gm", "threshold_2"])
def test_what_agents_send_depends_on_the_data_only_through_the_release(
        method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The coupling of the proof, in the run: the centres' exact log-likelihoods changed
    (by up to 0.05 each; the MLE set stays the same, asserted) and the exchange handed
    the unchanged run's noisy releases (:func:`hand_over`). Every belief,
    set and test outcome is then identical, bit for bit; only the distance to the
    noiseless run (``tvd_private``) may move. The sets are right in some runs and wrong
    in others (asserted). (``threshold_1``, the same code as ``threshold_2`` with another
    threshold, keeps both states of Θ in every run on these data at any ε.)"""
    brought = hand_over(monkeypatch, noiseless=True)
    cell = cell_of(epsilon=1.0, method=method)
    moved = dataclasses.replace(
        cell, loglik=cell.loglik + np.random.default_rng(4).uniform(-0.05, 0.05,
                                                                      cell.loglik.shape))
    seeds = np.random.SeedSequence(SEED).spawn(20)
    first = simulate.run(cell, seeds, list(range(20)))
    second = simulate.run(moved, seeds, list(range(20)))
    assert np.array_equal(simulate.mle_set(moved.loglik.sum(axis=0)), cell.star)
    assert not np.array_equal(brought[0][:, :, -1], brought[1][:, :, -1])
    for name, values in first.items():
        if name != "tvd_private":
            np.testing.assert_array_equal(values, second[name], err_msg=name)
    assert 0.0 < first["exact_recovery"].mean() < 1.0, "every run chose the same way"


@pytest.mark.parametrize(("options", "scale"), [
    ({"model": {"kind": "bernoulli"}, "iterations": 20}, 3 * math.log(0.7 / 0.3)),
    ({"model": {"kind": "gaussian"}, "iterations": 20}, 3 * 8.0),  # g(±1) = (3 + 1)²/2
    ({}, 2 * 2.0)])  # Cox: Δ = 2B_θB_x = 2, T + 1 = 21 rounds
def test_online_runs_draw_the_declared_noise(options: dict[str, Any], scale: float,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Alg. 3 (Thm 4.7): each round's |Θ| log-likelihoods get Lap(|Θ|Δ/ε), one signal's
    Δ. The compiled loop (``beliefs.online``, which ``simulate`` calls) receives the
    rounds' log-likelihoods and their noise. The noise has the rounds' shape, and it is
    the replicate's stream of Laplace(``cell.scale``) draws."""
    received: list[tuple[np.ndarray, np.ndarray]] = []
    original = beliefs.online

    def spy(matrix, signals, draws, *rest):  # type: ignore[no-untyped-def]
        received.append((signals.copy(), draws.copy()))
        return original(matrix, signals, draws, *rest)

    monkeypatch.setattr(beliefs, "online", spy)  # simulate imports it when it runs
    cell = cell_of(method="private_ol", **options)
    assert cell.scale == pytest.approx(scale, rel=1e-12)
    seeds = np.random.SeedSequence(SEED).spawn(2)
    simulate.run(cell, seeds, [0, 1])
    assert len(received) == 2  # one chunk per replicate
    for seed, (signals, draws) in zip(seeds, received, strict=True):
        assert signals.shape == draws.shape == (cell.iterations + 1, 5, len(cell.states))
        expected = np.random.default_rng(seed).laplace(0.0, cell.scale, signals.shape)
        np.testing.assert_array_equal(draws, expected)


def test_online_staircase_draws_follow_its_law() -> None:
    """Alg. 3 with ``noise=staircase``: each round's draws are the staircase of budget
    ε' = ε/|Θ| in units of b = |Θ|Δ/ε (ε = 4, ε' = 4/3 on the bernoulli model's three
    states), read from the compiled loop's input (2 replicates × 2,001 rounds × 5 agents ×
    3 states)."""
    received: list[np.ndarray] = []
    original = beliefs.online

    def spy(matrix, signals, draws, *rest):  # type: ignore[no-untyped-def]
        received.append(draws.copy())
        return original(matrix, signals, draws, *rest)

    cell = cell_of(method="private_ol", model={"kind": "bernoulli"}, iterations=2000,
                   epsilon=4.0, noise="staircase")
    assert cell.scale == pytest.approx(3 * math.log(0.7 / 0.3) / 4.0, rel=1e-12)
    assert cell.budget == pytest.approx(4.0 / 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(beliefs, "online", spy)
        simulate.run(cell, np.random.SeedSequence(SEED).spawn(2), [0, 1])
    check_drawn_noise(np.concatenate(received), "staircase", cell.scale,
                      epsilon=cell.budget)


# ============================================================ Cox model on ACTG 175

@dataclass(frozen=True)
class Neighbour:
    """Patient ``index`` of centre ``centre`` removed (``replacement`` None) or replaced;
    ``change`` is Σ_θ |Δ log ℓ(θ)| of one round, the ranking of the search."""

    change: float
    centre: int
    index: int
    replacement: survival.Patient | None

    def label(self, patients: Patients) -> str:
        old = (f"patient {self.index} (t={patients.duration[self.index]:g}, "
               f"event={int(patients.event[self.index])}, "
               f"x={patients.covariate[self.index]:g})")
        if self.replacement is None:
            return f"centre {self.centre}: {old} removed"
        t, e, x = self.replacement
        return f"centre {self.centre}: {old} -> (t={t:g}, event={int(e)}, x={x:g})"


def extreme_patients(patients: Patients) -> list[survival.Patient | None]:
    """Removal, and the replacements :func:`survival.worst_neighbour` tries."""
    times = (float(patients.duration[0]), float(patients.duration[-1]))
    return [None, *[(t, e, x) for t in times for e in (0, 1) for x in COVARIATES]]


def search(centres: Sequence[Patients], thetas: np.ndarray,
           summary: Callable[[np.ndarray], np.ndarray] | None = None) -> list[Neighbour]:
    """Every neighbour of every centre, worst first by the ℓ1 change of one round's
    release: log ℓ on ``thetas``, or ``summary`` of it."""
    summary = summary or (lambda values: values)
    found = []
    for c, patients in enumerate(centres):
        base = summary(partial_loglik(patients, thetas))
        for index in range(len(patients)):
            for replacement in extreme_patients(patients):
                moved = summary(partial_loglik(neighbour(patients, index, replacement),
                                               thetas))
                found.append(Neighbour(float(np.abs(moved - base).sum()), c, index,
                                       replacement))
    return sorted(found, key=lambda f: -f.change)


def picked(found: list[Neighbour], worst: int = 25, random: int = 25) -> list[Neighbour]:
    """The ``worst`` first neighbours of a search and ``random`` others."""
    rng = np.random.default_rng(SEED)
    others = rng.choice(np.arange(worst, len(found)), random, replace=False)
    return found[:worst] + [found[i] for i in sorted(others)]


def cox_pairs(centres: Sequence[Patients], found: list[Neighbour]) -> list[Pair[Patients]]:
    return [Pair(f.label(centres[f.centre]), centres[f.centre],
                 neighbour(centres[f.centre], f.index, f.replacement)) for f in picked(found)]


@pytest.fixture(scope="module")
def actg() -> Shared:
    """The default cell: ACTG 175, ddI against ZDV, 5 centres, Θ = {0, −log 2}, GM."""
    return cell_of()


@pytest.fixture(scope="module")
def actg_search(actg: Shared) -> list[Neighbour]:
    return search(actg.centres, actg.states)


def test_cox_releases_are_the_partial_likelihoods(actg: Shared) -> None:
    """The audited release is the family's: each centre's log ℓ of eq. (3) on Θ."""
    for c, patients in enumerate(actg.centres):
        np.testing.assert_array_equal(actg.loglik[c], partial_loglik(patients, actg.states))
    assert [len(p) for p in actg.centres] == [219, 219, 219, 218, 218]


@pytest.mark.parametrize("method", MLE_PRIVATE)
def test_cox_printed_sensitivity_fails_the_audit(method: str, actg: Shared,
                                                 actg_search: list[Neighbour]) -> None:
    """Sec. 12 as printed (Δ = 2B_θB_x = 2, the default): removing an early event moves
    log ℓ by about log |R(k)| ≈ 5.6 at both states of Θ, against the 2 the noise of each
    state pays for. The K rounds × 2 states, each with Lap(2KΔ/ε), lose 11.19/(2·2) =
    2.80ε. The loss does not depend on K: Alg. 2's K = 6 costs what Alg. 1's K = 3 does."""
    cell = cell_of(method=method)
    assert cell.sensitivity == 2.0 and cell.scale == cell.rounds * 2 * 2.0
    report = laplace_audit(rounds_release(lambda p: partial_loglik(p, cell.states),
                                          cell.rounds),
                           cell.scale, cox_pairs(actg.centres, actg_search), 1.0)
    assert report.worst_ratio == pytest.approx(2.7967, rel=REL), report
    assert report.worst.label.startswith("centre 3: patient 0 (t=14, event=1, x=1) removed")
    assert report.worst.touched == 2 * cell.rounds
    # Remove the first event of each centre: every one of them breaks the claim.
    for c, patients in enumerate(actg.centres):
        first = int(np.flatnonzero(patients.event)[0])
        moved = survival.neighbour_change(patients, first, None, cell.states)
        assert np.abs(moved).sum() * cell.rounds / cell.scale > 2.5, c


@pytest.mark.parametrize("method", MLE_PRIVATE)
def test_cox_signal_sensitivity_passes_the_audit(method: str, actg: Shared,
                                                 actg_search: list[Neighbour]) -> None:
    """``sensitivity=signal``: Δ = ``risk_set_sensitivity`` of the largest centre (219
    patients, covariate range 1 for ACTG's indicator) = 13.52 passes. The loss is 0.414,
    with room because the bound is reached on a constructed data set, not on ACTG.
    Replacements with x = −1 (a range of 2) stay within it too."""
    cell = cell_of(method=method, sensitivity="signal")
    assert cell.sensitivity == pytest.approx(13.5234, rel=1e-4)
    report = laplace_audit(rounds_release(lambda p: partial_loglik(p, cell.states),
                                          cell.rounds),
                           cell.scale, cox_pairs(actg.centres, actg_search), 1.0)
    report.assert_private()
    assert report.worst_ratio == pytest.approx(0.41360, rel=REL), report


def cox_test_release(states: np.ndarray) -> Callable[[Patients], np.ndarray]:
    """One round of the composite test (Sec. 10.2): log ℓ(θ₀) and the supremum of log ℓ
    over [min Θ, max Θ] (``simulate._test_loglik``)."""
    low, high = states.min(), states.max()
    return lambda p: np.array([float(partial_loglik(p, states[0])),
                               survival.profile_maximum(p, low, high)[1]])


@pytest.fixture(scope="module")
def test_search(actg: Shared) -> list[Neighbour]:
    """The test's neighbours, ranked with the supremum taken on a grid of 21 in
    [−log 2, 0] (θ₀ = 0 last)."""
    grid = np.linspace(actg.states.min(), actg.states.max(), 21)
    return search(actg.centres, grid, lambda values: np.array([values[-1], values.max()]))


@pytest.mark.parametrize(("sensitivity", "expected"), [("printed", 2.7955), ("signal", 0.41343)])
def test_cox_test_release(sensitivity: str, expected: float, actg: Shared,
                          test_search: list[Neighbour]) -> None:
    """The distributed test (Prop. 4.6, composite): K = 4 rounds of (log ℓ(0), sup over
    [−log 2, 0] of log ℓ) with Lap(2KΔ/ε). Printed: 2.796ε, for removing centre 0's event
    on day 135 (the supremum moves about as much as log ℓ(0)). Signal: 0.413."""
    cell = cell_of(method="test", sensitivity=sensitivity)
    one_round = cox_test_release(cell.states)
    for c, patients in enumerate(cell.centres):
        np.testing.assert_allclose(one_round(patients), cell.expected[c], rtol=1e-12)
    report = laplace_audit(rounds_release(one_round, cell.rounds), cell.scale,
                           cox_pairs(actg.centres, test_search), 1.0)
    assert report.worst_ratio == pytest.approx(expected, rel=REL), report
    assert report.worst.label.startswith("centre 0: patient 3 (t=135, event=1, x=1) removed")


@dataclass(frozen=True)
class Batches:
    """One centre's patients as they arrive online: one data set per round."""

    rounds: tuple[Patients, ...]

    def replaced(self, round_: int, found: Neighbour) -> Batches:
        changed = list(self.rounds)
        changed[round_] = neighbour(changed[round_], found.index, found.replacement)
        return Batches(tuple(changed))


def arrivals(cell: Shared, seed: np.random.SeedSequence) -> list[Batches]:
    """Each centre's rounds as :func:`simulate.online_loglik` draws them (replicate 0)."""
    rng = data_generator(cell.config, seed, 0)
    out = []
    for patients in cell.centres:
        order = rng.permutation(len(patients))
        out.append(Batches(tuple(patients.take(b) for b in
                                 np.array_split(order, cell.iterations + 1))))
    return out


@pytest.mark.parametrize(("sensitivity", "expected"), [("printed", 1.34841), ("signal", 0.19942)])
def test_cox_online_release(sensitivity: str, expected: float) -> None:
    """Alg. 3 on ACTG: each centre's patients arrive over T + 1 = 21 rounds (10 or 11 a
    round), and a round's log ℓ of its own batch gets Lap(|Θ|Δ/ε). A patient arrives in
    one round. Printed (Δ = 2): one patient of a batch moves its log ℓ by 5.39 over the
    two states: 1.348ε. Signal (Δ of the whole centre, 13.52): 0.199."""
    cell = cell_of(method="private_ol", sensitivity=sensitivity)
    seed = np.random.SeedSequence(SEED)
    batches = arrivals(cell, seed)
    expected_release = np.concatenate(list(online_loglik(
        cell.config, cell, cell.iterations, data_generator(cell.config, seed, 0))))
    for c, centre in enumerate(batches):
        mine = np.stack([partial_loglik(b, cell.states) for b in centre.rounds])
        np.testing.assert_allclose(mine, expected_release[:, c], rtol=1e-12, atol=1e-12)
    # The search: every patient of every round of every centre.
    found: list[tuple[Neighbour, int]] = []
    for c, centre in enumerate(batches):
        for r, batch in enumerate(centre.rounds):
            found += [(Neighbour(f.change, c, f.index, f.replacement), r)
                      for f in search([batch], cell.states)]
    found.sort(key=lambda item: -item[0].change)
    chosen = found[:25] + [found[i] for i in np.random.default_rng(SEED).choice(
        np.arange(25, len(found)), 25, replace=False)]
    pairs = [Pair(f"round {r}, {f.label(batches[f.centre].rounds[r])}",
                  batches[f.centre], batches[f.centre].replaced(r, f)) for f, r in chosen]
    report = laplace_audit(lambda b: np.concatenate([partial_loglik(p, cell.states)
                                                     for p in b.rounds]),
                           cell.scale, pairs, 1.0)
    assert report.worst_ratio == pytest.approx(expected, rel=REL), report
    assert report.worst.touched == 2  # one round, two states
    assert (report.worst_ratio > 1.0) == (sensitivity == "printed")


# ------------------------------------------------------------ best treatment (Fig. 5)

TREATMENT_ARMS = (1, 2, 3)


@dataclass(frozen=True, eq=False)
class Trial:
    """A centre's ACTG 175 patients of ZDV and the treatment arms."""

    days: np.ndarray
    events: np.ndarray
    arms: np.ndarray

    def changed(self, index: int, replacement: tuple[float, int, int] | None) -> Trial:
        if replacement is None:
            keep = np.arange(len(self.days)) != index
            return Trial(self.days[keep], self.events[keep], self.arms[keep])
        days, events, arms = self.days.copy(), self.events.copy(), self.arms.copy()
        days[index], events[index], arms[index] = replacement
        return Trial(days, events, arms)

    def label(self, centre: int, index: int, replacement: tuple[float, int, int] | None
              ) -> str:
        old = (f"centre {centre}: patient {index} (day {self.days[index]:g}, "
               f"event {self.events[index]}, arm {self.arms[index]})")
        if replacement is None:
            return f"{old} removed"
        day, event, arm = replacement
        return f"{old} -> (day {day:g}, event {event}, arm {arm})"

    def scores(self, thetas: np.ndarray | None = None) -> np.ndarray:
        """Each arm's generalized likelihood ratio max_{−1 <= θ <= 0} log ℓ(θ) − log ℓ(0)
        (``simulate.treatment_loglik``); on the grid ``thetas`` (ending at 0) if given."""
        out = []
        for arm in TREATMENT_ARMS:
            mask = (self.arms == 0) | (self.arms == arm)
            patients = Patients(self.days[mask], self.events[mask] == 1,
                                (self.arms[mask] == arm).astype(float))
            if thetas is None:
                best = survival.profile_maximum(patients, -1.0, 0.0)[1]
                out.append(best - float(partial_loglik(patients, 0.0)))
            else:
                values = partial_loglik(patients, thetas)
                out.append(values.max() - values[-1])
        return np.array(out)


def trials() -> list[Trial]:
    """The centres of ``model=treatments`` (even split, ``split_seed`` 0)."""
    frame = survival.actg175()
    frame = frame[frame["arms"].isin([0, *TREATMENT_ARMS])].reset_index(drop=True)
    parts = survival.split(len(frame), 5, "even", np.random.default_rng(0))
    return [Trial(*(frame.iloc[part][k].to_numpy() for k in ("days", "cens", "arms")))
            for part in parts]


def treatment_audit(centres: Sequence[int], full: bool) -> dict[str, AuditReport]:
    """Rank the neighbours of ``centres`` on a θ grid of 51, then audit the 10 worst and 10
    random ones with the exact ratios. A patient is removed or replaced by one with the
    centre's earliest or latest day, event or censored, in any arm; ``full=False`` tries
    only an event on the earliest day and a censoring on the latest."""
    printed, signal = (cell_of(model={"kind": "treatments"}, sensitivity=s)
                       for s in ("printed", "signal"))
    everyone = trials()
    for c, trial in enumerate(everyone):
        np.testing.assert_allclose(trial.scores(), printed.loglik[c], rtol=1e-9, atol=1e-12)
    grid = np.linspace(-1.0, 0.0, 51)
    found = []
    for c in centres:
        trial = everyone[c]
        base = trial.scores(grid)
        first, last = trial.days.min(), trial.days.max()
        options = [(d, e, a) for d in (first, last) for e in (0, 1) for a in range(4)
                   if full or (d, e) in ((first, 1), (last, 0))]
        for index in range(len(trial.days)):
            for replacement in (None, *options):
                change = np.abs(trial.changed(index, replacement).scores(grid) - base).sum()
                found.append((float(change), c, index, replacement))
    found.sort(key=lambda f: -f[0])
    rng = np.random.default_rng(SEED)
    chosen = found[:10] + [found[i] for i in rng.choice(np.arange(10, len(found)), 10,
                                                        replace=False)]
    pairs = [Pair(everyone[c].label(c, i, r), everyone[c], everyone[c].changed(i, r))
             for _, c, i, r in chosen]
    return {cell.config.sensitivity: laplace_audit(
        rounds_release(lambda t: t.scores(), cell.rounds), cell.scale, pairs, 1.0)
        for cell in (printed, signal)}


def test_treatment_scores_pass_the_audit() -> None:
    """Best-treatment identification (Sec. 5, Fig. 5): centre 3 (the worst of the five,
    see the slow test). A ZDV patient enters all three arms' likelihoods, so replacing one
    by an event on the first day moves the three ratios by 1.74 in all. A ratio is a
    difference of a maximum and the value at θ = 0, and the two move together, so the
    change stays far below log |R|. Printed (2Δ = 4 per arm, K|Θ|·4/ε): 0.145; signal
    (2·13.66): 0.021."""
    reports = treatment_audit([3], full=False)
    for report in reports.values():
        report.assert_private()
        assert report.worst.label.startswith("centre 3: patient ")
        assert report.worst.label.endswith("-> (day 50, event 1, arm 0)")
    assert reports["printed"].worst_ratio == pytest.approx(0.14465, rel=REL)
    assert reports["signal"].worst_ratio == pytest.approx(0.021185, rel=REL)


@pytest.mark.slow
def test_treatment_scores_pass_the_audit_at_every_centre() -> None:
    """Every centre, every replacement (earliest or latest day, either flag, any arm):
    the worst is centre 3's of the fast test."""
    reports = treatment_audit(range(5), full=True)
    assert reports["printed"].worst_ratio == pytest.approx(0.14465, rel=REL)
    assert reports["printed"].worst.label.startswith("centre 3: ")
    reports["signal"].assert_private()


# ====================================================== bernoulli and gaussian signals

def bernoulli_pairs(samples: int) -> list[Pair[int]]:
    """One of ``samples`` binary signals flipped: k ones against k + 1."""
    return [Pair(f"{k} -> {k + 1} ones", k, k + 1) for k in range(samples)]


def gaussian_pairs(samples: int, bound: float, rng: np.random.Generator
                   ) -> list[Pair[np.ndarray]]:
    """One of ``samples`` signals in [−B_x, B_x] replaced, over a grid of step B_x/12 for
    both values (the extremal pair (B_x, 0) of the default grid is on it), on three
    backgrounds: all −B_x, all B_x, and clipped N(1, 1) draws."""
    values = np.linspace(-bound, bound, 25)
    backgrounds = {"low": np.full(samples, -bound), "high": np.full(samples, bound),
                   "random": np.clip(rng.normal(1.0, 1.0, samples), -bound, bound)}
    pairs = []
    for name, background in backgrounds.items():
        for a in values:
            for b in values:
                x, y = background.copy(), background.copy()
                x[0], y[0] = a, b
                pairs.append(Pair(f"{name}: {a:g} -> {b:g}", x, y))
    return pairs


def synthetic_release(cell: Shared) -> tuple[Callable[[Any], np.ndarray], list[Pair]]:
    """One round of an agent of the MLE setting, and its one-signal neighbours."""
    config = cell.config
    m = config.model.samples
    if config.model.kind == "bernoulli":
        return lambda k: bernoulli_loglik(k, m, cell.states), bernoulli_pairs(m)
    return (lambda s: gaussian_loglik(s.sum(), (s**2).sum(), m, cell.states, config.model.sigma),
            gaussian_pairs(m, config.model.bound_x, np.random.default_rng(SEED)))


def test_synthetic_releases_are_the_familys() -> None:
    """The audited per-agent release is what ``simulate.synthetic_loglik`` computes from
    the replicate's signals (same generator, same draws)."""
    seed = np.random.SeedSequence(SEED)
    for model in ("bernoulli", "gaussian"):
        cell = cell_of(model={"kind": model})
        config = cell.config
        theirs = simulate.synthetic_loglik(config, cell.states, cell.n,
                                           data_generator(config, seed, 3))
        rng = data_generator(config, seed, 3)
        if model == "bernoulli":
            ours = bernoulli_loglik(rng.binomial(config.model.samples, config.model.truth, cell.n),
                                    config.model.samples, cell.states)
        else:
            signals = np.clip(rng.normal(config.model.truth, config.model.sigma,
                                         (cell.n, config.model.samples)), -3.0, 3.0)
            release, _ = synthetic_release(cell)
            ours = np.stack([release(s) for s in signals])
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


#: (options, loss / ε measured, its closed form)
SYNTHETIC = [
    # Eq. (7) as printed, n_i g with n_i = 20: the slack is n_i.
    ({"model": {"kind": "bernoulli"}}, 1 / 30),  # (2g(0.3) + 0)/(3 · 20 g(0.3))
    ({"model": {"kind": "bernoulli", "states": [0.3, 0.7]}}, 1 / 20),
    ({"model": {"kind": "gaussian"}}, 9 / 16 / 20),  # 13.5/(3 · 8 · 20)
    # One signal, Δ = max_θ g(θ).
    ({"model": {"kind": "bernoulli"}, "sensitivity": "signal"}, 2 / 3),
    ({"model": {"kind": "bernoulli", "states": [0.3, 0.7]}, "sensitivity": "signal"}, 1.0),
    ({"model": {"kind": "gaussian"}, "sensitivity": "signal"}, 9 / 16),
]


@pytest.mark.parametrize("method", MLE_PRIVATE)
@pytest.mark.parametrize(("options", "expected"), SYNTHETIC)
def test_synthetic_mle_releases(method: str, options: dict[str, Any], expected: float
                                ) -> None:
    """Algs 1 and 2 on bernoulli and gaussian signals (eq. (7)): the K × |Θ| values of an
    agent against every one-signal neighbour. Printed passes with slack n_i = 20. Signal
    is tight (ratio 1) exactly when every state moves by max g at once: bernoulli on
    Θ = {0.3, 0.7}. On the default grids θ = 0.5 does not move (bernoulli, 2/3), or no
    pair moves every state by its own maximum (gaussian: (s, s') = (B_x, 0) = (3, 0) moves
    the three states by 7.5, 4.5 and 1.5 against g = 8, 4.5, 8: 13.5/24 = 9/16)."""
    cell = cell_of(method=method, **options)
    per_round, pairs = synthetic_release(cell)
    report = laplace_audit(rounds_release(per_round, cell.rounds), cell.scale, pairs, 1.0)
    report.assert_private()
    assert report.worst_ratio == pytest.approx(expected, rel=1e-9), report
    if expected == 1.0:  # tight; the negative control (half the noise) loses 2ε
        halved = audit(rounds_release(per_round, cell.rounds),
                       Noise(LAPLACE, np.array([cell.scale])).halved(), pairs, Budget(1.0),
                       "laplace")
        assert halved.worst_ratio == pytest.approx(2.0, rel=1e-9)


@pytest.mark.parametrize(("states", "expected"), [(None, 2 / 3), ([0.3, 0.7], 1.0)])
def test_printed_eq7_is_the_calibration_for_a_whole_data_set(states: list[float] | None,
                                                             expected: float) -> None:
    """Eq. (7)'s n_i·g protects all of an agent's signals at once. The neighbour is every
    one of its 20 binary signals flipped (0 ones against 20): 1 on Θ = {0.3, 0.7}, the
    2/3 of a single signal under ``signal`` on the default grid."""
    cell = cell_of(model={"kind": "bernoulli", "states": states}, method="gm")
    m = cell.config.model.samples
    report = laplace_audit(
        rounds_release(lambda k: bernoulli_loglik(k, m, cell.states), cell.rounds),
        cell.scale, [Pair("all 0 -> all 1", 0, m)], 1.0)
    assert report.worst_ratio == pytest.approx(expected, rel=1e-9)


def synthetic_test_release(cell: Shared) -> Callable[[Any], np.ndarray]:
    """One round of the composite test: log γ(θ₀) and the supremum over [min Θ, max Θ]
    (``simulate._synthetic_sup``: the agent's clipped MLE)."""
    config, low, high = cell.config, cell.states.min(), cell.states.max()
    m, null = config.model.samples, cell.states[0]
    if config.model.kind == "bernoulli":
        def release(k: int) -> np.ndarray:
            best = min(max(k / m, low), high)
            return np.array([k * math.log(null) + (m - k) * math.log1p(-null),
                             k * math.log(best) + (m - k) * math.log1p(-best)])
        return release

    def gaussian(s: np.ndarray) -> np.ndarray:
        best = min(max(s.mean(), low), high)
        return -np.array([((s - null) ** 2).sum(), ((s - best) ** 2).sum()]) / (
            2 * config.model.sigma**2)
    return gaussian


@pytest.mark.parametrize(("options", "expected"), [
    ({"model": {"kind": "bernoulli"}}, 1 / 20),
    ({"model": {"kind": "bernoulli"}, "sensitivity": "signal"}, 1.0),
    ({"model": {"kind": "gaussian"}}, 1 / 20),
    ({"model": {"kind": "gaussian"}, "sensitivity": "signal"}, 1.0)])
def test_synthetic_test_releases(options: dict[str, Any], expected: float) -> None:
    """The composite test (Sec. 10.2) on bernoulli and gaussian signals: K rounds of
    (log γ(θ₀), sup log γ) with Lap(2KΔ/ε). Both move by max g at once when the agent's
    MLE stays at θ₀ = min Θ, so ``signal`` is tight. Bernoulli: a 1 added to 0 ones moves
    both by log(0.3/0.7). Gaussian: s from −1 to 3 among −3s moves both by 8. Printed:
    1/n_i."""
    cell = cell_of(method="test", **options)
    one_round = synthetic_test_release(cell)
    # The family's own test data of a replicate, from the same draws.
    seed = np.random.SeedSequence(SEED)
    theirs = simulate._test_data(cell, [seed], [0])[0]
    rng = data_generator(cell.config, seed, 0)
    model = cell.config.model
    if model.kind == "bernoulli":
        data = list(rng.binomial(model.samples, model.truth, cell.n))
    else:
        data = list(np.clip(rng.normal(model.truth, model.sigma, (cell.n, model.samples)),
                            -model.bound_x, model.bound_x))
    np.testing.assert_allclose(np.stack([one_round(d) for d in data]), theirs, rtol=1e-12)
    _, pairs = synthetic_release(cell)
    report = laplace_audit(rounds_release(one_round, cell.rounds), cell.scale, pairs, 1.0)
    report.assert_private()
    assert report.worst_ratio == pytest.approx(expected, rel=1e-9), report


# ------------------------------------------------------------------- online (Alg. 3)

@dataclass(frozen=True, eq=False)
class Stream:
    """An agent's arrivals: per round, the signals (bernoulli: 0/1)."""

    rounds: tuple[np.ndarray, ...]

    def replaced(self, round_: int, value: float | None, index: int = 0) -> Stream:
        """Signal ``index`` of a round set to ``value`` (removed if None; appended when
        ``index`` is the round's count)."""
        changed = list(self.rounds)
        signals = changed[round_]
        if value is None:
            signals = np.delete(signals, index)
        elif index == len(signals):
            signals = np.append(signals, value)
        else:
            signals = signals.copy()
            signals[index] = value
        changed[round_] = signals
        return Stream(tuple(changed))


def stream_release(cell: Shared) -> Callable[[Stream], np.ndarray]:
    config = cell.config

    def release(stream: Stream) -> np.ndarray:
        counts = np.array([len(s) for s in stream.rounds])
        if config.model.kind == "bernoulli":
            ones = np.array([s.sum() for s in stream.rounds])
            return bernoulli_loglik(ones, counts, cell.states).ravel()
        total = np.array([s.sum() for s in stream.rounds])
        squares = np.array([(s**2).sum() for s in stream.rounds])
        return gaussian_loglik(total, squares, counts, cell.states, config.model.sigma).ravel()
    return release


def agent_stream(cell: Shared, rounds: int) -> Stream:
    """Agent 0's ``rounds`` + 1 rounds of a replicate, checked against
    :func:`simulate.online_loglik` on the same generator (one chunk of rounds)."""
    assert rounds + 1 <= simulate.CHUNK
    config = cell.config
    seed = np.random.SeedSequence(SEED)
    rng = data_generator(config, seed, 0)
    counts = rng.poisson(config.model.rate, (rounds + 1, cell.n))
    if config.model.kind == "bernoulli":
        ones = rng.binomial(counts, config.model.truth)
        signals = [np.r_[np.ones(k), np.zeros(c - k)] for k, c in zip(ones[:, 0], counts[:, 0],
                                                                      strict=True)]
    else:
        draws = np.clip(rng.normal(config.model.truth, config.model.sigma, counts.sum()),
                        -config.model.bound_x, config.model.bound_x)
        ends = np.cumsum(counts.ravel())
        per = np.split(draws, ends[:-1])
        signals = [per[t * cell.n] for t in range(rounds + 1)]
    stream = Stream(tuple(signals))
    theirs = np.concatenate(list(online_loglik(config, cell, rounds,
                                               data_generator(config, seed, 0))))[:, 0]
    np.testing.assert_allclose(stream_release(cell)(stream), theirs.ravel(), rtol=1e-12,
                               atol=1e-12)
    return stream


def stream_pairs(cell: Shared, stream: Stream, added: bool) -> list[Pair[Stream]]:
    """Per round with a signal, its first signal replaced by every value of the domain (a
    grid of step B_x/6 for gaussian, with the extremal (B_x, 0)); with ``added``,
    also a signal of every value added to any round."""
    config = cell.config
    values = ((0.0, 1.0) if config.model.kind == "bernoulli"
              else np.linspace(-config.model.bound_x, config.model.bound_x, 13))
    pairs = []
    for r, signals in enumerate(stream.rounds):
        if len(signals):
            pairs += [Pair(f"round {r}: {a:g} -> {b:g}", stream.replaced(r, a),
                           stream.replaced(r, b)) for a in values for b in values if a != b]
        if added:
            pairs += [Pair(f"round {r}: {a:g} added", stream.replaced(r, a, len(signals)),
                           stream) for a in values]
    return pairs


@pytest.mark.parametrize(("options", "expected"), [
    ({"model": {"kind": "bernoulli"}}, 2 / 3),
    ({"model": {"kind": "bernoulli", "states": [0.3, 0.7]}}, 1.0),
    ({"model": {"kind": "gaussian"}}, 9 / 16)])
def test_online_releases_pass_the_audit(options: dict[str, Any], expected: float) -> None:
    """Alg. 3 (Thm 4.7): each round's log-likelihoods of its arrivals with Lap(|Θ|g/ε)
    (one signal; ``printed`` and ``signal`` agree online). A signal enters one round, so
    one round's |Θ| values move: the MLE setting's single-signal losses, over 30 rounds of
    Poisson(1) arrivals."""
    for sensitivity in ("printed", "signal"):
        cell = cell_of(method="private_ol", iterations=30, sensitivity=sensitivity,
                       **options)
        stream = agent_stream(cell, 30)
        report = laplace_audit(stream_release(cell), cell.scale,
                               stream_pairs(cell, stream, added=False), 1.0)
        report.assert_private()
        assert report.worst_ratio == pytest.approx(expected, rel=1e-9), report
        assert report.worst.touched <= len(cell.states)


@pytest.mark.parametrize(("options", "expected"), [
    ({"model": {"kind": "bernoulli"}}, 0.88666), ({"model": {"kind": "gaussian"}}, 29 / 48),
    ({"model": {"kind": "bernoulli", "states": [0.5, 0.6]}}, 1.98468)])
def test_online_signal_added_or_removed(options: dict[str, Any], expected: float) -> None:
    """Outside the paper's relation (a replaced signal), for the record: a signal added
    to a round moves each state by −log ℓ(s|θ), not by a difference. On the default
    grids that stays within ε: bernoulli (|log 0.7| + |log 0.5| + |log 0.3|)/(3 log(7/3))
    = 0.887, gaussian (16 + 9 + 4)/2/24 = 29/48. On Θ = {0.5, 0.6}, where g(0.5) = 0, it
    does not: a 0 added costs (log 2 + log 2.5)/(2 log 1.5) = 1.985ε."""
    cell = cell_of(model=options["model"], method="private_ol", iterations=30)
    stream = agent_stream(cell, 30)
    report = laplace_audit(stream_release(cell), cell.scale,
                           stream_pairs(cell, stream, added=True), 1.0)
    assert report.worst_ratio == pytest.approx(expected, rel=REL), report
    assert "added" in report.worst.label


# ======================================================= Rizk et al. (Sec. 14.4)

@dataclass(frozen=True, eq=False)
class Conditioned:
    """A centre's data and the iterate θ_{i,t−1} it is scored at, every iteration: the
    past is public, so the worst past for a pair is the θ where its clipped scores differ
    most, at every step."""

    patients: Patients
    theta: float


def rizk_release(cell: Shared, clip: float) -> Callable[[Conditioned], np.ndarray]:
    """The data's part of T iterates: η Clip(d log ℓ/dθ (θ_{t−1}), clip) per iteration
    (``simulate.run_rizk``)."""
    eta, iterations = cell.config.learning_rate, cell.iterations
    return lambda d: np.full(iterations, eta * float(np.clip(
        partial_score(d.patients, d.theta), -clip, clip)))


def straddling_pair() -> tuple[Patients, Patients]:
    """Six patients: events at days 1 to 5 with x = 1, 1, −1, −1, −1, and one censored on
    day 6 with x = −1 in S and 1 in S'. Late censored patients enter every risk set, so
    the score moves by a harmonic-like sum (4.35 at θ = 0.5), from 2.04 to −2.32: both
    past the clip at ±2B_θB_x = ±2 (between θ = 0.44 and 0.51)."""
    days, events = np.arange(1.0, 7.0), np.array([1, 1, 1, 1, 1, 0], dtype=bool)
    x = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    return (Patients(days, events, np.append(x, -1.0)),
            Patients(days, events, np.append(x, 1.0)))


def test_rizk_as_printed_loses_twice_its_budget() -> None:
    """Sec. 14.4: Clip(·, 2B_θB_x) bounds the clipped score to [−2B_θB_x, 2B_θB_x], so one
    patient can move it by 4B_θB_x (here 4) while Lap(2B_xB_θTη/ε) pays for 2B_θB_x. On
    the straddling pair, every one of the T = 9 increments moves by 4η: 2ε, exactly. The
    noise Lap(4B_xB_θTη/ε) makes it ε, exactly."""
    cell = cell_of(method="rizk")
    assert cell.scale == pytest.approx(2 * 1.0 * 1.0 * cell.iterations * 0.001 / 1.0)
    s, s_prime = straddling_pair()
    assert partial_score(s, 0.5) > 2.0 and partial_score(s_prime, 0.5) < -2.0
    pairs = [Pair("censored covariate -1 -> 1, θ = 0.5", Conditioned(s, 0.5),
                  Conditioned(s_prime, 0.5))]
    release = rizk_release(cell, clip=2.0)
    report = laplace_audit(release, cell.scale, pairs, 1.0)
    assert report.worst_ratio == pytest.approx(2.0, rel=1e-12)
    assert report.worst.touched == cell.iterations
    doubled = laplace_audit(release, 2 * cell.scale, pairs, 1.0)
    assert doubled.worst_ratio == pytest.approx(1.0, rel=1e-12)


def rizk_search(cell: Shared, centres: Sequence[int], grid: np.ndarray
                ) -> list[tuple[float, float, Neighbour]]:
    """Per neighbour, the largest change of the clipped score over the θ grid."""
    found = []
    for c in centres:
        patients = cell.centres[c]
        base = np.clip(partial_score(patients, grid), -2.0, 2.0)
        for index in range(len(patients)):
            for replacement in extreme_patients(patients):
                moved = np.clip(partial_score(neighbour(patients, index, replacement), grid),
                                -2.0, 2.0)
                at = int(np.argmax(np.abs(moved - base)))
                found.append((float(abs(moved[at] - base[at])), float(grid[at]),
                              Neighbour(0.0, c, index, replacement)))
    return sorted(found, key=lambda f: -f[0])


def rizk_actg_audit(centres: Sequence[int], grid: np.ndarray) -> AuditReport:
    """The 10 worst neighbours on the grid, each at the θ of [−1, 1] (grid of 2001)
    where its clipped scores differ most."""
    cell = cell_of(method="rizk")
    fine = np.linspace(-1.0, 1.0, 2001)
    pairs = []
    for _, _, f in rizk_search(cell, centres, grid)[:10]:
        patients = cell.centres[f.centre]
        other = neighbour(patients, f.index, f.replacement)
        gap = np.abs(np.clip(partial_score(patients, fine), -2, 2)
                     - np.clip(partial_score(other, fine), -2, 2))
        theta = float(fine[np.argmax(gap)])
        pairs.append(Pair(f"{f.label(patients)} at θ={theta:g}", Conditioned(patients, theta),
                          Conditioned(other, theta)))
    return laplace_audit(rizk_release(cell, 2.0), cell.scale, pairs, 1.0)


def test_rizk_on_actg_stays_within_its_budget_barely() -> None:
    """On ACTG 175 (centre 3, the worst of the five; see the slow test) a patient moves
    the raw score by about 2: the first event's covariate 1 → −1 moves its own term
    x − E_R[x] by 2, less its share of a risk set of 218. The clip binds on neither side
    at θ = −0.215. Worst: 0.994ε."""
    report = rizk_actg_audit([3], np.linspace(-1.0, 1.0, 21))
    report.assert_private()
    assert report.worst_ratio == pytest.approx(0.99437, rel=REL), report
    assert report.worst.label.startswith(
        "centre 3: patient 0 (t=14, event=1, x=1) -> (t=14, event=1, x=-1)")


@pytest.mark.slow
def test_rizk_on_actg_every_centre() -> None:
    report = rizk_actg_audit(range(5), np.linspace(-1.0, 1.0, 41))
    report.assert_private()
    assert report.worst_ratio == pytest.approx(0.99437, rel=REL), report
    assert report.worst.label.startswith("centre 3: ")


# ================================================================= Sec. 2's toy

@pytest.mark.parametrize("p", [0.6, 0.7, 0.9])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_laplace_toy_is_exactly_private(p: float, epsilon: float) -> None:
    """Each agent sends log(ℓ(s|θ=1)/ℓ(s|θ=0)) + Lap(Δ/ε) = L(2s − 1) + Lap(Δ/ε). Flipping s
    moves it by 2L = Δ = 2|log p − log(1 − p)| (the cell's ``sensitivity_bound``): ratio
    1, exactly, for every agent of n = 5."""
    cell = cell_of(model={"kind": "bernoulli", "states": [1 - p, p]}, method="laplace",
                   epsilon=epsilon)
    assert cell.sensitivity == pytest.approx(float(toy.laplace_sensitivity(p)), rel=1e-12)
    ratio = math.log(p / (1 - p))
    pairs = [Pair(f"agent {i}: 0 -> 1", np.zeros(cell.n), np.eye(cell.n)[i])
             for i in range(cell.n)]
    scale = laplace_scale(float(toy.laplace_sensitivity(p)), epsilon)
    report = laplace_audit(lambda s: ratio * (2 * s - 1), scale, pairs, epsilon)
    assert report.worst_ratio == pytest.approx(1.0, rel=1e-12)
    assert min(pair.ratio for pair in report.pairs) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 4.0, 20.0])
def test_randomized_response_is_exactly_private(epsilon: float) -> None:
    """``rr`` (Sec. 2) sends y = s XOR flip, P[flip] = p_ε = 1/(1 + e^ε)
    (``toy.flip_probability``, as ``simulate.run_toy`` uses it). The largest likelihood
    ratio of an output between s = 0 and s = 1 is (1 − p_ε)/p_ε = e^ε: loss ε, exactly."""
    cell = cell_of(model={"kind": "bernoulli", "states": [0.3, 0.7]}, method="rr",
                   epsilon=epsilon)
    flip = float(toy.flip_probability(cell.config.epsilon))
    output = {s: np.array([1 - flip, flip]) if s == 0 else np.array([flip, 1 - flip])
              for s in (0, 1)}  # P[y = 0], P[y = 1]
    loss = float(np.abs(np.log(output[0] / output[1])).max())
    assert loss == pytest.approx(epsilon, rel=1e-12)


def test_randomized_response_flips_at_its_declared_rate() -> None:
    """What ``rr`` runs (``simulate.run_toy``): over 3,000 replicates of 100 signals, the
    shared bits y = s XOR flip are ones at the rate the mechanism declares,
    q(ε) = P[s = 1](1 − p_ε) + P[s = 0] p_ε with p_ε = 1/(1 + e^ε) written out again
    (chi-square on the ones and zeros; power >= 0.99 against ε 10% off)."""
    cell = cell_of(model={"kind": "bernoulli", "states": [0.3, 0.7], "truth": 0.7},
                   method="rr", epsilon=1.0, graph={"n_nodes": 100})
    replicates = 3000
    out = simulate.run(cell, np.random.SeedSequence(SEED).spawn(replicates),
                       list(range(replicates)))
    ones = float(out["statistic"].sum())
    signals = cell.n * replicates
    p_one = 0.7  # θ = 0.7: each signal is 1 with probability 0.7

    def rates(epsilon: float) -> np.ndarray:
        flip = 1.0 / (1.0 + math.exp(epsilon))
        q = p_one * (1.0 - flip) + (1.0 - p_one) * flip
        return np.array([q, 1.0 - q])

    check_categorical(np.array([ones, signals - ones]), rates, cell.config.epsilon)


def laplace_sum_cdf(x: np.ndarray, n: int) -> np.ndarray:
    """P[d_1 + … + d_n <= x] for i.i.d. d_i ~ Lap(1), written out again (not
    ``toy.laplace_sum_cdf``) from the density of the n-fold convolution,
    f_n(x) = e^{−|x|} Σ_{j<n} c_j |x|^j with c_j = (2n − 2 − j)! 2^j / (2^{2n−1} (n − 1)!
    j! (n − 1 − j)!): the tail beyond |x| is Σ_j c_j Γ(j + 1, |x|) (upper incomplete
    gamma), and the law is symmetric."""
    from scipy import special

    j = np.arange(n)
    c = np.array([math.factorial(2 * n - 2 - i) * 2.0**i / (
        2.0 ** (2 * n - 1) * math.factorial(n - 1) * math.factorial(i)
        * math.factorial(n - 1 - i)) for i in j])
    tail = (c * special.factorial(j) * special.gammaincc(j + 1, np.abs(x)[..., None])).sum(-1)
    return np.where(x >= 0, 1.0 - tail, tail)


@dataclass(frozen=True)
class DrawnSums:
    """The law check of drawn sums of n Laplace noises: how many, the KS p-value, the
    scale the draws estimate relative to the declared one, the scale test's p-value and
    its power against a 10% scale error."""

    draws: int
    shape_p: float
    scale_ratio: float
    scale_p: float
    power: float


def check_laplace_sums(sums: np.ndarray, n: int, scale: float) -> DrawnSums:
    """Assert that ``sums`` are draws of d_1 + … + d_n, d_i i.i.d. Lap(``scale``): the
    toy's per-agent draws are not observable, their sum is (``check_drawn_noise`` on a
    sum). Kolmogorov–Smirnov against :func:`laplace_sum_cdf` checks the shape; the scale
    test is the mean of X²/(2n) over R draws of X = sum/b, 1 in expectation with variance
    (12n + 8n²)/(4n²R) (the cumulants of Lap(1): κ₂ = 2, κ₄ = 12), at level
    :data:`~tests.black_box.ALPHA` two-sided (normal approximation, R in the thousands).
    A true scale c·b multiplies X² by c²: the power against c = 0.9 and 1.1, the smaller,
    must be at least :data:`~tests.black_box.MIN_POWER`."""
    from scipy import stats

    x = np.asarray(sums, dtype=np.float64) / scale
    draws = x.size
    shape_p = float(stats.kstest(x, lambda v: laplace_sum_cdf(np.asarray(v), n)).pvalue)
    spread = math.sqrt((12 * n + 8 * n * n) / (4 * n * n) / draws)
    value = float(np.mean(x * x) / (2 * n))
    scale_p = float(2.0 * stats.norm.sf(abs(value - 1.0) / spread))
    critical = stats.norm.isf(ALPHA / 2) * spread
    power = min(float(stats.norm.cdf((1.0 - critical - c * c) / (c * c * spread))
                      + stats.norm.sf((1.0 + critical - c * c) / (c * c * spread)))
                for c in (1.0 - SCALE_ERROR, 1.0 + SCALE_ERROR))
    report = DrawnSums(draws, shape_p, math.sqrt(value), scale_p, power)
    assert power >= MIN_POWER, f"too few draws for a scale test with power: {report}"
    assert shape_p >= ALPHA, f"the drawn noise does not follow the declared law: {report}"
    assert scale_p >= ALPHA, f"the drawn noise has the wrong scale: {report}"
    return report


def test_laplace_toy_draws_its_declared_noise() -> None:
    """What ``laplace`` runs (``simulate.run_toy``, Sec. 2): each replicate's statistic
    Σ_i (L(2s_i − 1) + d_i), less its noiseless part L(2B − n) (L = log(p/(1 − p)) and
    B = Σ s_i written out again, B replayed from the replicate's data stream), is the sum
    of the n = 5 agents' noises d_i ~ Lap(Δ/ε), Δ = 2|log p − log(1 − p)|: its law and
    scale are checked (:func:`check_laplace_sums`) on 3,000 replicates, a scale test with
    power 0.9993 against a 10% scale error."""
    p, epsilon = 0.7, 1.0
    cell = cell_of(model={"kind": "bernoulli", "states": [1 - p, p], "truth": p},
                   method="laplace", epsilon=epsilon)
    replicates = 3000
    seeds = np.random.SeedSequence(SEED).spawn(replicates)
    out = simulate.run(cell, seeds, list(range(replicates)))
    # θ = 1 (truth p): each signal is 1 with probability p; B is the stream's first draw.
    ones = np.array([data_generator(cell.config, seed, r).binomial(cell.n, p)
                     for r, seed in enumerate(seeds)])
    exact = math.log(p / (1 - p)) * (2 * ones - cell.n)
    declared = 2 * abs(math.log(p) - math.log(1 - p)) / epsilon
    check_laplace_sums(out["statistic"][:, 0] - exact, cell.n, declared)


# ============================================================ given K and T, scales

@pytest.mark.parametrize("method", ["gm", "test"])
def test_given_rounds_rescale_the_noise(method: str, actg: Shared,
                                        actg_search: list[Neighbour]) -> None:
    """Thm 4.2: K rounds need Lap(K|Θ|Δ/ε) each: with ``rounds=30`` the cell's scale is
    that of 30 rounds, and the audit of ``sensitivity=signal`` passes (it lost 4.14ε (gm)
    and 3.10ε (test) when the scale kept the theorem's K of 3 or 4)."""
    cell = cell_of(method=method, sensitivity="signal", rounds=30)
    assert cell.rounds == 30
    one_round = (cox_test_release(cell.states) if method == "test"
                 else lambda p: partial_loglik(p, cell.states))
    report = laplace_audit(rounds_release(one_round, cell.rounds), cell.scale,
                           cox_pairs(actg.centres, actg_search), 1.0)
    report.assert_private()


def test_given_iterations_rescale_rizks_noise() -> None:
    """Sec. 14.4 scales the budget by T: with ``iterations=90`` the noise is that of 90
    iterations (with T = 9's, the straddling pair cost 20ε)."""
    cell = cell_of(method="rizk", iterations=90)
    assert cell.iterations == 90
    assert cell.scale == pytest.approx(2 * cell.iterations * 0.001)


def test_laplace_toy_reports_its_noise_scale() -> None:
    """The rows' ``noise_scale`` (``cell.scale``) is "the Laplace scale b of each noise
    draw". The toy's draw is Lap(Δ/ε) (``toy.laplace_statistics``)."""
    cell = cell_of(method="laplace", model={"kind": "bernoulli", "states": [0.3, 0.7]})
    assert cell.scale == pytest.approx(laplace_scale(float(toy.laplace_sensitivity(0.7)), 1.0))


@dataclass(frozen=True, eq=False)
class Scored:
    """Every centre's data and the (public) iterate θ they are all scored at."""

    centres: tuple[Patients, ...]
    theta: float


def rizk_l1_release(cell: Shared) -> Callable[[Scored], np.ndarray]:
    """The data's part of T iterates under ``rizk_clip=l1``: η times the centres' scores
    scaled to ℓ1 norm at most 1 across centres, every iteration (``simulate.run_rizk``).
    One patient moves the shared norm, so every centre's release moves with it."""
    eta, iterations = cell.config.learning_rate, cell.iterations

    def release(d: Scored) -> np.ndarray:
        raw = np.array([partial_score(c, d.theta) for c in d.centres])
        return np.tile(eta * raw / max(1.0, float(np.abs(raw).sum())), iterations)

    return release


def test_rizk_l1_reading_stays_within_its_budget() -> None:
    """``rizk_clip=l1`` (the notebook's reading): the scaled scores lie in the ℓ1 ball of
    radius 1, so one patient moves a round's released vector by at most 2 in ℓ1 — the
    2B_xB_θ (B = 1) that Lap(2B_xB_θTη/ε) pays for per round. Audited on ACTG 175's centres
    (extreme replacements of centre 0's first patients, a grid of iterates: at most 0.08ε)
    and on a constructed pair that attains the bound."""
    cell = cell_of(method="rizk", rizk_clip="l1")
    centres = tuple(cell.centres)
    pairs = []
    for theta in np.linspace(-1.0, 1.0, 5):
        for index in range(8):
            for replacement in extreme_patients(centres[0]):
                moved = (neighbour(centres[0], index, replacement), *centres[1:])
                pairs.append(Pair(f"centre 0, patient {index} at θ={theta:g}",
                                  Scored(centres, float(theta)), Scored(moved, float(theta))))
    # The bound is attained: the straddling pair flips centre 0's score from 2.04 to
    # −2.32 beside a centre whose score is 0, so the scaled vector goes from (1, 0) to
    # (−1, 0), 2 in ℓ1 every round: exactly ε.
    s, s_prime = straddling_pair()
    still = Patients(np.array([1.0]), np.array([True]), np.array([0.0]))
    assert partial_score(still, 0.5) == 0.0
    pairs.append(Pair("straddling pair beside a centre of score 0, θ = 0.5",
                      Scored((s, still), 0.5), Scored((s_prime, still), 0.5)))
    report = laplace_audit(rizk_l1_release(cell), cell.scale, pairs, 1.0)
    report.assert_private()
    assert report.worst_ratio == pytest.approx(1.0, rel=1e-12), report


# ============================================ the coupling of the proof, every path

def test_the_tests_decisions_depend_on_the_data_only_through_the_release(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The distributed test (Prop. 4.6, composite as in Sec. 10.2) on ACTG 175: K = 4
    rounds of (log ℓ_i(θ₀), sup log ℓ_i) + Lap(2KΔ/ε). Centre 0's patient 3 removed (the
    neighbour that moves the test's release most, :func:`test_cox_test_release`) and the
    exchange handed the unchanged run's releases (:func:`hand_over`): every agent's
    statistic S_i = 2n(ψ̃^GM(1) − ψ̃^GM(0)), its p-value and its decision (reject when
    p < α) are then the same, bit for bit, over 40 replicates in which the test rejects
    and accepts (asserted)."""
    brought = hand_over(monkeypatch, noiseless=False)
    cell = cell_of(method="test", epsilon=1.0)
    centres = list(cell.centres)
    assert (centres[0].duration[3], centres[0].event[3]) == (135.0, True)
    centres[0] = neighbour(centres[0], 3, None)
    moved = dataclasses.replace(
        cell, centres=tuple(centres),
        loglik=np.stack([partial_loglik(c, cell.states) for c in centres]),
        expected=simulate._test_loglik(cell.config, cell.states, centres, cell.expected))
    assert (moved.expected[0] != cell.expected[0]).all()  # both values of centre 0 move
    seeds, ids = np.random.SeedSequence(SEED).spawn(40), list(range(40))
    first = simulate.run(cell, seeds, ids)
    second = simulate.run(moved, seeds, ids)
    assert not np.array_equal(brought[0], brought[1])  # what each run brought differs
    for name, values in first.items():
        np.testing.assert_array_equal(values, second[name], err_msg=name)
    assert 0.0 < first["reject"].mean() < 1.0, "the test always decided the same way"


@pytest.mark.parametrize("method", ["am", "gm", "threshold_2"])
def test_the_best_treatment_depends_on_the_data_only_through_the_release(
        method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Best-treatment identification (Sec. 5, Fig. 5): each centre's three generalized
    likelihood ratios with Lap(K|Θ|·2Δ/ε). Centre 3's first patient replaced by a ZDV
    event on the centre's first day (the kind of neighbour that moves all three arms'
    ratios, asserted; :func:`test_treatment_scores_pass_the_audit`) and the exchange
    handed the unchanged run's releases (:func:`hand_over`): every belief, set and error
    is then the same, bit for bit, over 20 replicates; only the distance to the noiseless
    run (``tvd_private``) may move. The best arm's set is right in some runs and wrong in
    others (asserted), and the MLE set of the exact ratios stays {ZDV+ddI} (asserted: the
    errors are measured against it)."""
    brought = hand_over(monkeypatch, noiseless=True)
    cell = cell_of(model={"kind": "treatments"}, method=method, epsilon=1.0)
    trial = trials()[3]
    scores = trial.changed(0, (float(trial.days.min()), 1, 0)).scores()
    assert (scores != trial.scores()).all()
    loglik = cell.loglik.copy()
    loglik[3] = scores
    moved = dataclasses.replace(cell, loglik=loglik, expected=loglik)
    assert np.array_equal(simulate.mle_set(loglik.sum(axis=0)), cell.star)
    seeds, ids = np.random.SeedSequence(SEED).spawn(20), list(range(20))
    first = simulate.run(cell, seeds, ids)
    second = simulate.run(moved, seeds, ids)
    assert not np.array_equal(brought[0][:, :, -1], brought[1][:, :, -1])
    for name, values in first.items():
        if name != "tvd_private":
            np.testing.assert_array_equal(values, second[name], err_msg=name)
    assert 0.0 < first["exact_recovery"].mean() < 1.0, "every run chose the same way"


def test_online_beliefs_depend_on_the_signals_only_through_the_release(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Online learning (Alg. 3, eq. (17)) on bernoulli signals, T = 100 rounds of
    Poisson(1) arrivals at 5 agents: in every replicate, one signal of agent 0 flipped (in
    the first round it has one), and the compiled loop (``beliefs.online``) handed the
    unchanged run's releases ζ_{i,t} + d_{i,t} of every round and agent (``released``).
    The beliefs, their argmax (right or wrong, both occur: asserted) and the distance to
    the truth are then the same at every checkpoint, bit for bit, over 10 replicates;
    the distance to the noiseless run (Alg. 5, φ, each run's own signals) moves
    (asserted). Recording the releases, ψ adds ζ + d rounded once: the sweep's run to
    within 10⁻¹² and the same decisions (asserted)."""
    cell = cell_of(method="private_ol", model={"kind": "bernoulli"}, iterations=100,
                   epsilon=1.0)
    seeds, ids = np.random.SeedSequence(SEED).spawn(10), list(range(10))
    recorded = np.full((len(seeds), cell.iterations + 1, cell.n, len(cell.states)), np.nan)
    first = simulate.run_online(cell, seeds, ids, released=recorded)
    assert np.isfinite(recorded).all()
    plain = simulate.run(cell, seeds, ids)
    np.testing.assert_array_equal(first["exact_recovery"], plain["exact_recovery"])
    for name, values in plain.items():
        np.testing.assert_allclose(first[name], values, rtol=0.0, atol=1e-12, err_msg=name)

    original = simulate.bernoulli_loglik
    flipped: list[int] = []

    def neighbour_signals(ones, counts, states):  # type: ignore[no-untyped-def]
        ones = np.array(ones, copy=True)
        row = int(np.flatnonzero(counts[:, 0])[0])
        ones[row, 0] += 1 if ones[row, 0] < counts[row, 0] else -1
        flipped.append(row)
        return original(ones, counts, states)

    monkeypatch.setattr(simulate, "bernoulli_loglik", neighbour_signals)
    second = simulate.run_online(cell, seeds, ids, released=recorded.copy())
    assert len(flipped) == len(seeds)
    for name, values in first.items():
        if name != "tvd_private":
            np.testing.assert_array_equal(values, second[name], err_msg=name)
    assert not np.array_equal(first["tvd_private"], second["tvd_private"])
    assert 0.0 < first["exact_recovery"].mean() < 1.0, "every agent chose the same way"


def test_rizks_beliefs_depend_on_the_data_only_through_the_iterates() -> None:
    """Rizk et al. (Sec. 14.4) on ACTG 175 at ε = 0.1: centre 3's first event's covariate
    1 → −1 (the neighbour that moves its clipped score most,
    :func:`test_rizk_on_actg_stays_within_its_budget_barely`) and the run handed the
    unchanged run's iterates θ_{i,t} (``released``, every iteration, centre and
    replicate). Each centre's belief (the point mass on the state nearest its iterate),
    set and distance to the truth are then the same at every checkpoint, bit for bit,
    over 20 replicates in which the sets are right and wrong (asserted). Sec. 14.4's
    P_i = 1 − F_χ²₁(2[log ℓ_i(S_i|θ_{i,T}) − log ℓ_i(S_i|0)]) is not a post-processing of
    the iterates: each centre computes it on its exact data, and it moves (asserted).
    Recording the iterates changes nothing in the run (asserted)."""
    cell = cell_of(method="rizk", epsilon=0.1)
    centres = list(cell.centres)
    patient = centres[3]
    assert (patient.duration[0], patient.event[0], patient.covariate[0]) == (14.0, True, 1.0)
    centres[3] = neighbour(patient, 0, (14.0, True, -1.0))
    loglik = np.stack([partial_loglik(c, cell.states) for c in centres])
    moved = dataclasses.replace(cell, centres=tuple(centres), loglik=loglik, expected=loglik)
    assert np.array_equal(simulate.mle_set(loglik.sum(axis=0)), cell.star)
    seeds, ids = np.random.SeedSequence(SEED).spawn(20), list(range(20))
    recorded = np.full((cell.iterations, cell.n, len(seeds)), np.nan)
    first = simulate.run_rizk(cell, seeds, ids, released=recorded)
    assert np.isfinite(recorded).all()
    for name, values in simulate.run(cell, seeds, ids).items():
        np.testing.assert_array_equal(first[name], values, err_msg=name)
    second = simulate.run_rizk(moved, seeds, ids, released=recorded.copy())
    for name in ("belief", "exact_recovery", "type_i_error", "type_ii_error", "tvd_truth"):
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    assert not np.array_equal(first["statistic"], second["statistic"])
    assert 0.0 < first["exact_recovery"].mean() < 1.0, "every centre chose the same way"
