"""The inference family (sweep.inference) against the paper's closed forms.

Papachristou & Rahimian, "Differentially Private Distributed Inference": Algs 1–5, Thms
4.1–4.7, Prop. 4.6 and Sec. 2. References are independent of the code under test:

* the theorems' K and T (Thms 4.1–4.3, 4.5, 4.7) worked by hand in the docstrings;
* the T → ∞ limit of the belief exchange (eq. (20)): every agent's scaled log-belief
  ψ̃ → (1/n) Z_k(θ), Z_k(θ) = Λ(θ) + Σ_i d_ik(θ), so a round's belief (eq. (12)) is the
  point mass on argmax_θ Z_k(θ), the AM of eq. (13) is the fraction of rounds a state
  wins and the normalized GM of eq. (13) is the point mass on argmax_θ Σ_k Z_k(θ).
  With i.i.d. Laplace(b) noise, Z_k(θ̄) − Z_k(θ*) + l is a sum of 2n Laplace(b)
  (a Laplace variable is symmetric), whose law is ``toy.laplace_sum_cdf`` (itself
  checked against numerical integration in tests/test_inference_toy.py);
* lifelines' Cox fits (Efron ties) for the hypothesis tests on ACTG 175;
* binomial laws for the frequency counts of Alg. 2 and for the Sec. 2 toy.

Monte-Carlo checks allow Z = 4.5 standard errors (tests/stats.py) with fixed seeds; rates
are compared with bounds through Wilson score intervals at the same Z. A rate that is
an agent average (a value in [0, 1] per replicate) has variance at most p(1 − p), so the
binomial interval stays conservative for it.

Tests named ``test_bug_*`` fail on purpose: each documents a defect of the family with a
minimal reproduction in its docstring (the owner fixes the core files).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter
from scipy import stats
from scipy.special import logsumexp

from sweep.components.staircase import staircase_variance
from sweep.execute import simulate
from sweep.inference import toy
from sweep.inference.beliefs import beliefs
from sweep.inference.config import InferenceConfig
from sweep.inference.family import FAMILY
from sweep.inference.models import kl_rates
from sweep.inference.parameters import (
    belief_threshold,
    counting_probabilities,
    online_iterations,
    theorem_iterations,
    theorem_rounds,
    two_threshold_bound,
)
from sweep.inference.simulate import Shared, deviation, prepare, replicate_data, run
from sweep.inference.survival import actg175
from tests.stats import Z, assert_close_mean, assert_close_variance

COMPLETE = {"kind": "complete", "n_nodes": 5}
#: The ring of 6 with Metropolis weights is periodic (β* = 1); the lazy weights mix.
RING = {"kind": "ring", "n_nodes": 6, "weights": "lazy_metropolis"}
#: Large enough that ψ̃ has converged to the agents' average to machine precision on the
#: complete graph (a* = 3/8: (3/8)^200 < 1e-85).
LARGE_T = 200
#: ε so small that the noise (b ≈ 3e6) swamps any log-likelihood gap: each state wins a
#: round with probability 1/|Θ| to within 1e-5 (Lemma 9.1).
NOISE_ONLY = 1e-4
#: Two states tied exactly: Λ(0.3) = Λ(0.7) whenever half of the signals are ones.
TIES = {"model": {"kind": "bernoulli", "states": [0.3, 0.7], "samples": 1}}


def seeds(count: int, root: int = 0) -> list[np.random.SeedSequence]:
    return [np.random.SeedSequence(root, spawn_key=(0, r)) for r in range(count)]


def make_cell(**options: Any) -> Shared:
    return prepare(InferenceConfig.from_options(**options))


def simulate_final(cell: Shared, count: int, root: int = 0) -> dict[str, np.ndarray]:
    """The replicates' metrics at the last checkpoint (t = T)."""
    metrics = run(cell, seeds(count, root), range(count))
    return {k: v[:, -1] for k, v in metrics.items()}


def bound_row(**options: Any) -> pd.Series:
    """The family's ``bound`` row of a cell (no replicate)."""
    prepared = FAMILY.prepare(options, 1)
    rows = FAMILY.run(prepared, [], [], analytic=True)
    return rows[rows["source"] == "bound"].iloc[0]


def wilson(successes: float, count: int, z: float = Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion at z standard errors."""
    p = successes / count
    centre = p + z * z / (2 * count)
    half = z * math.sqrt(p * (1 - p) / count + z * z / (4 * count * count))
    return (centre - half) / (1 + z * z / count), (centre + half) / (1 + z * z / count)


def assert_rate_at_most(values: np.ndarray, bound: float) -> None:
    """The rate's Wilson upper limit is within the guarantee."""
    upper = wilson(float(np.sum(values)), len(values))[1]
    assert upper <= bound, (float(np.mean(values)), upper, bound)


def assert_rate_above(values: np.ndarray, bound: float) -> None:
    """The rate's Wilson lower limit exceeds the guarantee: a measured violation."""
    lower = wilson(float(np.sum(values)), len(values))[0]
    assert lower > bound, (float(np.mean(values)), lower, bound)


def assert_rate_close(values: np.ndarray, expected: float, extra_variance: float = 0.0
                      ) -> None:
    """The rate is within Z binomial standard errors (at the exact rate) of ``expected``."""
    error = math.sqrt(expected * (1 - expected) / len(values) + extra_variance)
    assert abs(np.mean(values) - expected) <= Z * error, (np.mean(values), expected, error)


def ignoring_overflow():
    """The ldexp overflow of :func:`beliefs` at large t is a defect of its own
    (``test_bug_family_warns_of_overflow_at_large_T``); the value checks look past it."""
    return np.errstate(over="ignore")


# 1. The theorems' parameters by hand ----------------------------------------------------

def test_theorem_rounds_by_hand() -> None:
    """K of Thm 4.1 and Thm 4.3 (ceilings), with |Θ*| = 2, |Θ̄| = 3, α = 1 − β = 0.05:

    * AM: |Θ̄| log(|Θ*|/(1 − β)) = 3 log 40 = 3 × 3.6889 = 11.07 → 12;
    * GM: |Θ*| log(|Θ̄|/α) = 2 log 60 = 2 × 4.0943 = 8.19 → 9;
    * threshold_1: log(|Θ̄|/α)/(2π₁²) = log 60/(1/2) = 8.19 → 9 (π₁ = 1/2), and
      log 60/(1/8) = 32.75 → 33 (π₁ = 1/4);
    * threshold_2: log(|Θ*|/(1 − β))/(2π₂²) = log 40/(1/2) = 7.38 → 8.

    Agnostic (the remarks after Thms 4.1 and 4.3), |Θ| = 5, α = 0.1, β = 0.8: AM and GM
    |Θ| log(|Θ|/min{α, 1 − β}) = 5 log 50 = 19.56 → 20; threshold_1 log(5/0.1)/(1/2) =
    7.82 → 8; threshold_2 log(5/0.2)/(1/2) = 6.44 → 7. An exact integer adds no round:
    GM with |Θ*| = |Θ̄| = 1 and α = e^{−3} needs log(1/α) = 3 rounds.
    """
    args = (0.05, 0.95, 0.5, 0.5, "theorem")
    assert theorem_rounds("am", 2, 3, *args) == 12
    assert theorem_rounds("gm", 2, 3, *args) == 9
    assert theorem_rounds("threshold_1", 2, 3, *args) == 9
    assert theorem_rounds("threshold_1", 2, 3, 0.05, 0.95, 0.25, 0.5, "theorem") == 33
    assert theorem_rounds("threshold_2", 2, 3, *args) == 8
    agnostic = (0.1, 0.8, 0.5, 0.5, "agnostic")
    assert [theorem_rounds(m, 2, 3, *agnostic)
            for m in ("am", "gm", "threshold_1", "threshold_2")] == [20, 20, 8, 7]
    assert theorem_rounds("gm", 1, 1, math.exp(-3.0), 0.95, 0.5, 0.5, "theorem") == 3


def test_default_cells_rounds_and_noise_by_hand() -> None:
    """The Cox cells (ACTG 175, |Θ*| = |Θ̄| = 1, n = 5, ε = 1, Δ = 2 B_θ B_x = 2 of
    Sec. 12): GM and AM K = log 20 = 2.996 → 3 (Thm 4.1), the thresholds
    K = log 20/(1/2) = 5.99 → 6 (Thm 4.3), the test K = log(1/(α/2)) = log 40 = 3.69 → 4
    (Prop. 4.6: GM at level α/2). The noise scale is b = K|Θ|Δ/ε (Thm 4.2): 12, 24 and,
    on the test's two states, 4 · 2 · 2 = 16. The non-private methods have b = 0."""
    expected = {"gm": (3, 12.0), "am": (3, 12.0), "threshold_1": (6, 24.0),
                "threshold_2": (6, 24.0), "test": (4, 16.0), "mle": (1, 0.0), "ol": (1, 0.0)}
    for method, (rounds, scale) in expected.items():
        cell = make_cell(method=method)
        assert cell.sensitivity == 2.0
        assert (cell.rounds, cell.scale) == (rounds, scale), method


def test_theorem_iterations_by_hand() -> None:
    """T of Thm 4.2 and Thm 4.5 with n = 5, |Θ| = 2, l = 1, Γ = 2, V = 10, a* = 3/8, K = 4,
    α = 0.05, β = 0.95, ϱ = 1.5, q₁ = 1/2, q₂ = 1/4:

    first term log(2ϱn/l)/log 2 = log₂ 15 = 3.907; |Θ|²(n − 1)(nΓ + V) = 4·4·20 = 320 and
    log(1/a*) = log(8/3) = 0.98083;

    * GM: log(320/(2·0.05·1.5·√4))/0.98083 = log(1066.7)/0.98083 = 7.109 → 8 (MLE: same);
    * AM: log(320·4/(2 log 20·1.5))/0.98083 = log(142.42)/0.98083 = 5.056 → 6;
    * threshold_1: log(320/(2·(1/2)·1.5))/0.98083 = log(213.3)/0.98083 = 5.468 → 6;
    * threshold_2: log(320/(2·(3/4)·1.5))/0.98083 = log(142.2)/0.98083 = 5.054 → 6.

    A tiny gap l = 0.001 makes the first term win: log₂ 15000 = 13.87 → 14; a* = 0 drops
    the second (⌈3.907⌉ = 4); l = 0 (every state an MLE) drops the first (8); when both
    logarithms' arguments are at most 1 (n = 2, Γ = 0.01, V = 0, K = 100, α = 0.5:
    4·1·0.02/(2·0.5·1.5·10) = 0.0053) T = 1.
    """
    common = dict(n=5, states=2, gap=1.0, largest=2.0, deviations=10.0, a_star=0.375,
                  rounds=4, alpha=0.05, beta=0.95, rho=1.5, q_1=0.5, q_2=0.25)
    expected = {"gm": 8, "mle": 8, "am": 6, "threshold_1": 6, "threshold_2": 6}
    for method, value in expected.items():
        assert theorem_iterations(method, **common) == value, method
    assert theorem_iterations("gm", **{**common, "gap": 0.001}) == 14
    assert theorem_iterations("gm", **{**common, "a_star": 0.0}) == 4
    assert theorem_iterations("gm", **{**common, "gap": 0.0}) == 8
    assert theorem_iterations("gm", **{**common, "n": 2, "gap": 0.0, "largest": 0.01,
                                       "deviations": 0.0, "rounds": 100, "alpha": 0.5}) == 1


def test_default_cox_iterations_by_hand() -> None:
    """The default cell's T = 9 from Thm 4.2's GM bound on its data: per-centre normalized
    log-likelihoods give Γ = max |log γ_i(θ) − log Σ_θ' γ_i(θ')| = 4.1477 (eq. (9)),
    l = Λ(−log 2) − Λ(0) = 9.8504 (eq. (10)), V = n√2 b = 5√2·12 = 84.853; the first term
    log₂(2·1.5·5/9.8504) = 0.607 and the second log(4·4·(5·4.1477 + 84.853)/(2·0.05·1.5·√3))
    /log(8/3) = log(6502.7)/0.98083 = 8.952 → 9."""
    cell = make_cell()
    loglik = cell.loglik
    largest = float(np.abs(loglik - logsumexp(loglik, axis=1, keepdims=True)).max())
    total = loglik.sum(axis=0)
    gap = float(total[1] - total[0])
    assert largest == pytest.approx(4.1477, abs=1e-4)
    assert gap == pytest.approx(9.8504, abs=1e-4)
    first = math.log2(2 * 1.5 * 5 / gap)
    second = math.log(16 * (5 * largest + 5 * math.sqrt(2) * 12) / (2 * 0.05 * 1.5 * math.sqrt(3))
                      ) / math.log(8 / 3)
    assert cell.a_star == pytest.approx(0.375, abs=1e-12)
    assert cell.iterations == math.ceil(max(first, second)) == 9


def test_online_iterations_by_hand() -> None:
    """T of Thm 4.7 (the end of Sec. 11.3) with n = 5, |Θ| = 3, l = 0.5, Q = 1, V = 2,
    max ξ = 1, Ξ = 5, |λ₂(A)| = 1/4, η = 0.05: V' = (√2/5)(5 + 2)(1 + √(5/0.05)) =
    77√2/5 = 21.779; T = (log 3 + 3·21.779/(2·0.05·0.75))/(0.5/5) = (1.0986 + 871.16)/0.1
    = 8722.5 → 8723. No gap (l <= 0): T = 1.

    The Bernoulli private OL cell (Θ = {0.3, 0.5, 0.7}, θ° = 0.7, one Poisson(1) signal per
    agent and round, b = |Θ|Δ/ε = 3 log(7/3) = 2.5419 for one signal): l = n min D_KL =
    5 (0.7 log 1.4 + 0.3 log 0.6) = 0.41141, Q = 2 log(7/3) √0.21 = 0.77656, V = 5√2 b
    = 17.974, V' = (√2/5)(5·0.77656 + 17.974)·11 = 68.002 and
    T = (log 3 + 3·68.002/0.075)/(0.41141/5) = 33071.08 → 33072.
    """
    assert online_iterations(5, 3, 0.5, 1.0, 2.0, 1.0, 5.0, 0.25, 0.05) == 8723
    assert online_iterations(5, 3, 0.0, 1.0, 2.0, 1.0, 5.0, 0.25, 0.05) == 1
    kl, spread = kl_rates("bernoulli", 0.7, np.array([0.3, 0.5, 0.7]))
    assert kl[1] == pytest.approx(0.7 * math.log(1.4) + 0.3 * math.log(0.6), rel=1e-12)
    assert spread.max() == pytest.approx(2 * math.log(7 / 3) * math.sqrt(0.21), rel=1e-12)
    cell = make_cell(method="private_ol", model={"kind": "bernoulli"})
    assert cell.scale == pytest.approx(3 * math.log(7 / 3), rel=1e-12)
    assert cell.iterations == 33072


@pytest.mark.parametrize("epsilon", [1.0, 10.0])
def test_staircase_iterations_follow_its_deviation(epsilon: float) -> None:
    """With ``noise=staircase`` the theorems' T take the staircase's standard deviation:
    each draw of scale b at budget ε' = ε/|Θ| is b times the staircase of sensitivity ε',
    so √V[d] = Δ√V_1(ε') with Δ = bε' (V_1 the variance at sensitivity 1, Geng &
    Viswanath's closed form), below Laplace's √2 b. The Bernoulli private OL cell of
    :func:`test_online_iterations_by_hand`, its T written out again: fewer belief
    exchanges than under Laplace noise (33,072 at ε = 1)."""
    laplace = make_cell(method="private_ol", model={"kind": "bernoulli"}, epsilon=epsilon)
    cell = make_cell(method="private_ol", model={"kind": "bernoulli"}, epsilon=epsilon,
                     noise="staircase")
    budget = epsilon / 3
    assert (cell.scale, cell.budget) == (laplace.scale, pytest.approx(budget, rel=1e-15))
    sd = cell.scale * budget * math.sqrt(staircase_variance(budget))
    assert sd < math.sqrt(2) * cell.scale
    assert deviation("staircase", cell.scale, budget) == pytest.approx(sd, rel=1e-12)
    gap = 5 * (0.7 * math.log(1.4) + 0.3 * math.log(0.6))
    spread = 2 * math.log(7 / 3) * math.sqrt(0.21)
    v_prime = math.sqrt(2) / 5 * (5 * spread + 5 * sd) * 11
    expected = math.ceil((math.log(3) + 3 * v_prime / 0.075) / (gap / 5))
    assert cell.iterations == expected < laplace.iterations


def test_belief_threshold_and_counting_by_hand() -> None:
    """τ = 1/(1 + e^ϱ) (Algs 1–2): τ(1.5) = 0.182426, τ(log 3) = 1/4 (Fig. 5's threshold),
    τ(0) = 1/2. Thm 4.3's (p₁, p₂): as printed 1 − 1/|Θ*| and 1/|Θ̄|, so (|Θ*|, |Θ̄|) =
    (1, 2) gives (0, 1/2) and (3, 1) gives (2/3, 1); corrected (Lemma 9.1 on |Θ*| + 1 and
    |Θ̄| + 1 draws) 1 − 1/(|Θ*| + 1) and 1/(|Θ̄| + 1): (1/2, 1/3) and (3/4, 1/2)."""
    assert belief_threshold(1.5) == pytest.approx(0.182426, abs=1e-6)
    assert belief_threshold(math.log(3.0)) == pytest.approx(0.25, rel=1e-15)
    assert belief_threshold(0.0) == 0.5
    assert counting_probabilities(1, 2, "printed") == (0.0, 0.5)
    assert counting_probabilities(3, 1, "printed") == pytest.approx((2 / 3, 1.0))
    assert counting_probabilities(1, 2, "corrected") == pytest.approx((0.5, 1 / 3))
    assert counting_probabilities(3, 1, "corrected") == pytest.approx((0.75, 0.5))


def test_two_threshold_bound_and_bound_rows_by_hand() -> None:
    """Eqs (29)–(30): |Θ̄|e^{−2Kπ₁²} = 3e^{−3} = 0.14936 (|Θ̄| = 3, K = 6, π₁ = 1/2) and
    |Θ*|e^{−2Kπ₂²} = 2e^{−0.75} = 0.94473 (|Θ*| = 2, π₂ = 1/4). The default cells' bound
    rows: GM type I <= 2α = 0.1 and AM type II <= 2(1 − β) = 0.1 (Thm 4.2),
    threshold_1 and threshold_2 (K = 6, π = 1/2, one state each side) e^{−3} = 0.049787,
    the test's rejection <= α = 0.05 (Prop. 4.6), private OL recovery >= 1 − 2η = 0.9
    (Thm 4.7)."""
    assert two_threshold_bound("threshold_1", 2, 3, 6, 0.5, 0.25) == pytest.approx(
        3 * math.exp(-3.0), rel=1e-14)
    assert two_threshold_bound("threshold_2", 2, 3, 6, 0.5, 0.25) == pytest.approx(
        2 * math.exp(-0.75), rel=1e-14)
    expected = {"gm": ("type_i_error", 0.1), "am": ("type_ii_error", 0.1),
                "threshold_1": ("type_i_error", math.exp(-3.0)),
                "threshold_2": ("type_ii_error", math.exp(-3.0)), "test": ("reject", 0.05),
                "private_ol": ("exact_recovery", 0.9)}
    for method, (metric, value) in expected.items():
        row = bound_row(method=method)
        assert row[metric] == pytest.approx(value, rel=1e-12), method
        assert row["t"] == make_cell(method=method).iterations


# 2. Stable beliefs ----------------------------------------------------------------------

def test_beliefs_closed_form_and_large_t() -> None:
    """ν_t = softmax(2^t ψ̃_t) (eqs (12), (18) in the scaled form of beliefs.py): at t = 3
    it equals exp(8ψ̃)/Σ exp(8ψ̃) computed directly; at t = 2000 and t = 10⁵ (2^t
    overflows a double) it is finite, sums to 1 and is the point mass on the argmax, or
    uniform over exactly tied maxima."""
    rng = np.random.default_rng(11)
    scaled = rng.uniform(-1.0, 1.0, (4, 3, 5))
    scaled[0, 0, :2] = scaled[0, 0].max() + 0.25  # an exact tie at the top
    direct = np.exp(8 * scaled) / np.exp(8 * scaled).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(beliefs(scaled, 3), direct, rtol=1e-12)
    top = scaled == scaled.max(axis=-1, keepdims=True)
    for t in (2000, 10**5):
        with ignoring_overflow():
            nu = beliefs(scaled, t)
        assert np.isfinite(nu).all()
        np.testing.assert_allclose(nu.sum(axis=-1), 1.0, rtol=1e-15)
        np.testing.assert_array_equal(nu, top / top.sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("options", [
    {}, {"method": "am"}, {"method": "threshold_2"}, {"method": "mle"},
    {"method": "gm", "model": {"kind": "bernoulli"}},
    {"method": "threshold_1", "model": {"kind": "gaussian"}},
], ids=["gm", "am", "threshold_2", "mle", "bernoulli-gm", "gaussian-threshold_1"])
@pytest.mark.parametrize("iterations", [None, 2000], ids=["theorem-T", "T=2000"])
def test_family_beliefs_are_distributions_at_any_T(options, iterations) -> None:
    """The belief rows at the theorems' T and at T = 2000: finite, in [0, 1], summing to
    1 over the states of each replicate and checkpoint (no inf − inf, no NaN)."""
    with ignoring_overflow():
        rows = simulate("inference", replicates=4, seed=1, iterations=iterations, **options)
    belief = rows[rows["source"] == "belief"]
    assert len(belief) and np.isfinite(belief["belief"]).all()
    assert belief["belief"].between(0.0, 1.0).all()
    sums = belief.groupby(["replicate", "t"])["belief"].sum()
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    simulated = rows[rows["source"] == "simulated"]
    assert np.isfinite(simulated[["type_i_error", "tvd_truth", "tvd_private"]]).all().all()


@pytest.mark.parametrize("options", [
    {}, {"method": "threshold_2"}, {"method": "test"},
    {"method": "mle", "model": {"kind": "bernoulli"}},
    {"method": "private_ol", "iterations": 300, "model": {"kind": "bernoulli"}},
], ids=["gm", "threshold_2", "test", "bernoulli-mle", "bernoulli-private_ol"])
def test_family_runs_without_floating_point_errors_at_theorem_T(options) -> None:
    """At the theorems' T no overflow, invalid operation or division by zero happens
    (numpy errors raised, warnings turned into errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            rows = simulate("inference", replicates=3, seed=2, **options)
    assert len(rows)


@pytest.mark.parametrize("options", [
    {}, {"method": "threshold_2"}, {"method": "mle", "model": {"kind": "bernoulli"}},
], ids=["gm", "threshold_2", "bernoulli-mle"])
def test_family_runs_silently_far_beyond_the_theorems_T(options) -> None:
    """At T = 2000, 2^t |ψ̃(θ) − max ψ̃| exceeds the largest double for every state behind
    the leader (from t ≈ 1030–1340 on the default cell): ``beliefs`` lets ldexp go to
    −inf there on purpose (belief 0), so the run neither warns nor raises, even under
    np.errstate(over="raise") and warnings as errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            rows = simulate("inference", replicates=3, seed=2, iterations=2000, **options)
    assert len(rows)


# 3. Non-private equals centralized ------------------------------------------------------

def test_mle_equals_centralized_on_actg() -> None:
    """Alg. 4 (eq. (18)) without noise on the default Cox cell returns Θ* = {−log 2}, the
    maximizer of Λ(θ) = Σ_i log ℓ_i(θ) (eq. (5)), at every replicate: type I = type II = 0,
    exact recovery 1; the pooled (centralized) MLE over Θ = {0, −log 2} is the same set."""
    mle = simulate("inference", replicates=3, seed=0, method="mle")
    pooled = simulate("inference", replicates=3, seed=0, method="centralized")
    for rows in (mle, pooled):
        final = rows[(rows["source"] == "simulated") & (rows["t"] == rows["t"].max())]
        assert len(final) == 3
        assert (final["type_i_error"] == 0).all() and (final["type_ii_error"] == 0).all()
        assert (final["exact_recovery"] == 1).all()
        assert (rows["mle_set"] == "-0.693147").all()
    belief = mle[(mle["source"] == "belief") & (mle["t"] == mle["t"].max())]
    np.testing.assert_allclose(belief.set_index(["replicate", "state"])["belief"].unstack()
                               [["-0.693147", "0"]], [[1.0, 0.0]] * 3, atol=1e-12)


def _selected_sets(rows: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per replicate, the states whose final average belief reaches ``threshold``."""
    final = rows[(rows["source"] == "belief") & (rows["t"] == rows["t"].max())]
    return final.set_index(["replicate", "state"])["belief"].unstack() >= threshold


@pytest.mark.parametrize("options", [
    {"model": {"kind": "bernoulli"}}, {"model": {"kind": "gaussian"}},
    {**TIES, "graph": {"kind": "complete", "n_nodes": 6}},
], ids=["bernoulli", "gaussian", "bernoulli-exact-ties"])
def test_mle_equals_centralized_on_synthetic_data(options) -> None:
    """Alg. 4 on a complete graph, at the theorem's T, returns exactly the centralized MLE
    set of each replicate's data (eq. (5)): exact recovery 1 in all 1,000 replicates, and
    the set {ν ≥ τ} of the belief rows equals the support of the centralized method's
    uniform belief on the same data (common random numbers).

    The tie case has one signal per agent and Θ = {0.3, 0.7} on 6 agents: Λ(0.3) = Λ(0.7)
    exactly when 3 of the 6 signals are ones, P = C(6,3)·0.7³·0.3³ = 0.185; the test
    asserts that more than 10% of the replicates are ties, so the case is exercised."""
    count = 1000
    mle = simulate("inference", replicates=count, seed=5, method="mle", **options)
    pooled = simulate("inference", replicates=count, seed=5, method="centralized", **options)
    final = mle[(mle["source"] == "simulated") & (mle["t"] == mle["t"].max())]
    assert (final["exact_recovery"] == 1).all()
    assert (final["type_i_error"] == 0).all() and (final["type_ii_error"] == 0).all()
    chosen = _selected_sets(mle, belief_threshold(1.5))
    centralized = _selected_sets(pooled, 1e-12)
    pd.testing.assert_frame_equal(chosen, centralized)
    if "samples" in options["model"]:
        assert centralized.sum(axis=1).gt(1).mean() > 0.10


def test_exact_ties_stay_tied_only_where_the_graph_contracts_them() -> None:
    """Exact ties of Λ under non-private Alg. 4 (eq. (18)).

    Between two tied MLE states the agents' log-belief ratios sum to 0, so φ_t =
    (A + I)^t φ_0 lies in the span of the eigenvectors of A + I other than 1, and grows
    like |λ₂(A + I)|^t. On the complete graph of 6 with Metropolis–Hastings weights,
    λ₂(A + I) = 1 − 1/5 = 0.8 < 1: the ratios vanish and every agent's belief is uniform
    on Θ* (beliefs snap rounding-level differences to ties, as ``mle_set`` does). On the
    lazy ring of 6, λ₂(A + I) = 1.75 > 1: even in exact arithmetic the ratios grow, and
    each agent ends on one of the tied states: the uniform limit over Θ* (Rahimian &
    Jadbabaie's Thm 1, Sec. 8.1) does not hold for ties there. Measured (seed 5, 1,000
    replicates, about 19% tied): exact recovery 1 on the complete graph at T = 200, below
    1/2 on the ring at its theorem's T; 1 in every untied replicate either way.
    """
    count = 1000
    for graph, iterations, tied_recovery in (
            ({"kind": "complete", "n_nodes": 6}, LARGE_T, lambda r: r == 1.0),
            (RING, None, lambda r: r < 0.5)):
        mle = make_cell(method="mle", graph=graph, iterations=iterations, **TIES)
        _, star = replicate_data(mle, seeds(count, 5), range(count))
        tied = star.sum(axis=1) == 2
        assert tied.mean() > 0.10
        recovered = simulate_final(mle, count, 5)["exact_recovery"]
        assert (recovered[~tied] == 1).all()
        assert tied_recovery(recovered[tied].mean()), (graph, recovered[tied].mean())


# 4. Closed forms of the private algorithms ----------------------------------------------

@pytest.fixture(scope="module")
def composite_cox() -> dict[str, Any]:
    """The composite test's cell on ACTG 175 (Efron ties, Θ̃ = [−1, 0]) and Σ_i of each
    centre's lifelines likelihood-ratio statistic 2(sup_θ log ℓ_i(θ) − log ℓ_i(0)) (every
    centre's unpenalized MLE lies in [−1, 0], so the supremum over Θ̃ is lifelines')."""
    cell = make_cell(method="test", iterations=LARGE_T,
                     model={"ties": "efron", "states": [0, -1]})
    total = 0.0
    for centre in cell.centres:
        frame = pd.DataFrame({"days": centre.duration, "cens": centre.event.astype(int),
                              "x": centre.covariate})
        fit = CoxPHFitter(penalizer=0.0).fit(frame, "days", "cens")
        assert -1.0 < float(fit.params_.iloc[0]) < 0.0
        total += fit.log_likelihood_ratio_test().test_statistic
    return {"cell": cell, "two_lambda": total}


def test_test_statistic_closed_form(composite_cox) -> None:
    """Prop. 4.6 and Sec. 10.2 at T → ∞: S_i = (n/2^{T−1}) log(ν^GM(1)/ν^GM(0)) →
    2Λ(1, 0) + 2 Σ_i mean_k (d_ik(1) − d_ik(0)) (eq. (20)). Cox data are fixed, so over
    4,000 replicates its mean is 2Λ = Σ_i lifelines' LRT_i = 26.0726 (measured
    25.45 ± 1.12), its variance 4/K² · nK · 2 · 2b² = 16 n b²/K = 16·5·16²/4 = 5120
    (K = 4, b = 16; measured 5024), and S − 2Λ is a sum of 2nK = 40 Laplace(2b/K = 8)
    variables (Kolmogorov–Smirnov p > 1e-5, the false-alarm rate of Z = 4.5; measured
    p = 0.22). The p-value is min(1, 2 χ²_n.sf(S + 1)): reject when
    S > ρ_d = F⁻¹_{χ²_n}(1 − α/2) − 1."""
    cell, two_lambda = composite_cox["cell"], composite_cox["two_lambda"]
    assert (cell.rounds, cell.scale, cell.n) == (4, 16.0, 5)
    assert 2 * float(np.diff(cell.expected, axis=1).sum()) == pytest.approx(two_lambda,
                                                                            rel=1e-9)
    final = simulate_final(cell, 4000, 3)
    statistic = final["statistic"]
    assert_close_mean(statistic, two_lambda)
    assert_close_variance(statistic, 16 * cell.n * cell.scale**2 / cell.rounds)
    law = stats.kstest(statistic - two_lambda,
                       lambda x: toy.laplace_sum_cdf(x, 2 * cell.n * cell.rounds,
                                                     2 * cell.scale / cell.rounds))
    assert law.pvalue > 1e-5, law
    np.testing.assert_allclose(final["p_value"], np.minimum(
        1.0, 2 * stats.chi2.sf(statistic + 1, cell.n)), rtol=1e-10, atol=1e-300)
    threshold = stats.chi2.isf(0.05 / 2, cell.n) - 1
    np.testing.assert_array_equal(final["reject"], statistic > threshold)


@pytest.fixture(scope="module")
def cox_limits() -> dict[str, float]:
    """The default Cox cell's closed forms at T → ∞ (n = 5, K = 3, b = 12,
    l = Λ(−log 2) − Λ(0) = 9.8504 from the per-centre Breslow likelihoods of eq. (3),
    checked against lifelines and eq. (3) in tests/test_inference_survival.py):

    * P[θ* wins a round] = P[Σ_i d(θ̄) − Σ_i d(θ*) < l] = F_{2n}(l) = 0.57562 (F_m the
      cdf of a sum of m Laplace(b));
    * AM misses θ* when it wins none of the K rounds (τ^AM = 0.18 < 1/K):
      (1 − 0.57562)³ = 0.07643;
    * GM (normalized, eq. (13)) picks argmax Σ_k Z_k: type I = 1 − F_{2nK}(K l) = 0.37379.
    """
    cell = make_cell(method="am")
    total = cell.loglik.sum(axis=0)
    gap = float(total[1] - total[0])
    n, rounds, scale = cell.n, cell.rounds, cell.scale
    win = float(toy.laplace_sum_cdf(gap, 2 * n, scale))
    return {"win": win, "am_miss": (1 - win) ** rounds,
            "gm_type_i": 1 - float(toy.laplace_sum_cdf(rounds * gap, 2 * n * rounds, scale))}


def test_am_is_the_fraction_of_rounds_won(cox_limits) -> None:
    """Eq. (13)'s AM at T → ∞ on the default Cox cell: each round's belief is the point
    mass on argmax Z_k, so AM(θ*) ∈ {0, 1/3, 2/3, 1} with mean P[θ* wins] = 0.57562, and AM
    misses θ* with probability (1 − 0.57562)³ = 0.07643 (eq. (21) with the exact win
    probability). That is below Thm 4.2's 2(1 − β) = 0.1, while Thm 4.1's claim,
    P[θ* wins] >= 1/|Θ̄| = 1, is false (Lemma 9.1 on |Θ̄| + 1 = 2 draws gives 1/2)."""
    cell = make_cell(method="am", iterations=LARGE_T)
    final = simulate_final(cell, 4000, 4)
    am = final["belief"][:, 1]  # θ* = −log 2
    np.testing.assert_allclose(am * 3, np.round(am * 3), atol=1e-12)
    assert_close_mean(am, cox_limits["win"])
    assert_rate_close(final["type_ii_error"], cox_limits["am_miss"])
    assert cox_limits["am_miss"] < 0.1


@pytest.mark.parametrize("iterations", [LARGE_T, None], ids=["T=200", "theorem-T"])
def test_gm_type_i_violates_theorem_4_2_on_actg(cox_limits, iterations) -> None:
    """GUARANTEE FAILS (Thm 4.1/4.2, GM): on the default Cox cell the normalized GM of
    eq. (13) returns argmax_θ Σ_k Z_k(θ), so its type I rate is 1 − F_{2nK}(K l) = 0.374
    (measured 0.389 at T = 9 and at T = 200, 2,000 replicates, Wilson lower limit 0.341),
    far above Thm 4.2's 2α = 0.1.
    The proof's step P[ν^GM(θ̄) > 0] = P[∩_k ν_k(θ̄) > 0] holds for the unnormalized
    product of point masses, not for eq. (13); and the K rounds' average noise has
    standard deviation ∝ b/√K = √K|Θ|Δ/ε, which grows with K: more rounds do not help."""
    final = simulate_final(make_cell(method="gm", iterations=iterations), 2000, 6)
    assert_rate_close(final["type_i_error"], cox_limits["gm_type_i"])
    bound = bound_row(method="gm")["type_i_error"]
    assert cox_limits["gm_type_i"] > bound
    assert_rate_above(final["type_i_error"], bound)


def test_centralized_composite_test_matches_lifelines() -> None:
    """The centralized GLRT of Sec. 10.2 on ACTG 175 (ddI against ZDV, Efron ties):
    2(sup_{θ ∈ [−1, 0]} log ℓ(θ) − log ℓ(0)) and its χ²₁ p-value equal lifelines'
    CoxPHFitter(penalizer=0).log_likelihood_ratio_test() (statistic 21.2899,
    p = 3.95e-6; the unconstrained MLE −0.528 lies in [−1, 0])."""
    rows = simulate("inference", replicates=1, seed=0, method="centralized",
                    model={"ties": "efron", "states": [0, -1]})
    final = rows[rows["source"] == "simulated"].iloc[-1]
    trial = actg175()
    trial = trial[trial["arms"].isin([0, 3])]
    frame = pd.DataFrame({"days": trial["days"], "cens": trial["cens"],
                          "x": (trial["arms"] == 3).astype(float)})
    fit = CoxPHFitter(penalizer=0.0).fit(frame, "days", "cens")
    assert -1.0 < float(fit.params_.iloc[0]) < 0.0
    test = fit.log_likelihood_ratio_test()
    assert final["statistic"] == pytest.approx(test.test_statistic, rel=1e-7)
    assert final["p_value"] == pytest.approx(test.p_value, rel=1e-5)
    assert final["reject"] == 1.0


# 5. Guarantees over many replicates ------------------------------------------------------

#: A regime where the log-likelihood gap dominates the noise: one signal's sensitivity
#: (Δ = log(7/3)) and ε = 10, b = K|Θ|Δ/ε between 1 and 2 against l = 8.2 (100 signals).
SIGNAL = {"sensitivity": "signal", "epsilon": 10.0, "model": {"kind": "bernoulli"}}
HOLDS = [("am", "printed", "type_ii_error"), ("gm", "printed", "type_i_error"),
         ("threshold_1", "corrected", "type_i_error"),
         ("threshold_2", "printed", "type_ii_error"),
         ("threshold_2", "corrected", "type_ii_error")]


def _guarantees_hold(graph: dict[str, Any]) -> None:
    for method, counting, metric in HOLDS:
        options = {**SIGNAL, "method": method, "counting": counting, "graph": graph}
        final = simulate_final(make_cell(**options), 2000, 7)
        assert_rate_at_most(final[metric], bound_row(**options)[metric])
    options = {**SIGNAL, "method": "test", "graph": graph,
               "model": {**SIGNAL["model"], "truth": 0.3}}
    final = simulate_final(make_cell(**options), 2000, 7)
    assert_rate_at_most(final["reject"], bound_row(**options)["reject"])


def test_guarantees_hold_when_the_gap_dominates_complete_graph() -> None:
    """Thms 4.2, 4.3/4.5 and Prop. 4.6 on K₅ (Θ = {0.3, 0.5, 0.7}, θ° = 0.7, 20 signals per
    agent, one signal's sensitivity, ε = 10, the theorems' K and T), 2,000 replicates, the
    Wilson upper limit within each guarantee: AM type II <= 2(1 − β) = 0.1 (measured
    0.0035, Wilson upper 0.016), GM type I <= 2α = 0.1 (0.029, 0.051), threshold_1
    (corrected counting) type I <= 2e^{−4} = 0.0366 (0.0085, 0.024), threshold_2 type II
    <= e^{−3} = 0.0498 (printed 0.0035, 0.016; corrected 0.0005, 0.011), and the composite
    test's rejection under the null θ = 0.3 <= α = 0.05 (0.0135, 0.031)."""
    _guarantees_hold(COMPLETE)


@pytest.mark.slow
def test_guarantees_hold_when_the_gap_dominates_ring() -> None:
    """The same on the lazy ring of 6 (a* = 0.875, T of 54–67): measured AM 0.0032, GM
    0.018, threshold_1 0.0055, threshold_2 0.0032 and 0.0005, test 0.012."""
    _guarantees_hold(RING)


def _noise_only_rates() -> list[tuple[str, str, str, float]]:
    """(method, counting, metric, T → ∞ rate) when noise swamps the data on Θ = {0.3,
    0.5, 0.7} (|Θ*| = 1, |Θ̄| = 2): every state wins a round with probability 1/3."""
    tau = belief_threshold(1.5)
    return [
        # AM keeps θ* iff it wins >= ⌈τK⌉ = 2 of K = 6 rounds (1/6 < τ = 0.182).
        ("am", "printed", "type_ii_error", stats.binom.cdf(math.ceil(tau * 6) - 1, 6, 1 / 3)),
        # GM: argmax of the rounds' sum, θ* with probability 1/3.
        ("gm", "printed", "type_i_error", 2 / 3),
        # threshold_1 printed: τ₁ = (1 + π₁)(1 − 1/|Θ*|) = 0 admits every state.
        ("threshold_1", "printed", "type_i_error", 1.0),
        # corrected: τ₁ = 1.5 · 1/2 = 3/4, a θ̄ needs >= 6 of K = 8 wins (disjoint events).
        ("threshold_1", "corrected", "type_i_error", 2 * stats.binom.sf(5, 8, 1 / 3)),
        # threshold_2 printed: τ₂ = 0.5 · 1/2 = 1/4, θ* needs >= 2 of K = 6 wins.
        ("threshold_2", "printed", "type_ii_error", stats.binom.cdf(1, 6, 1 / 3)),
        # corrected: τ₂ = 0.5 · 1/3 = 1/6, θ* needs >= 1 win: (2/3)⁶.
        ("threshold_2", "corrected", "type_ii_error", (2 / 3) ** 6),
    ]


@pytest.mark.parametrize(("method", "counting", "metric", "rate"), _noise_only_rates(),
                         ids=[f"{m}-{c}" for m, c, _, _ in _noise_only_rates()])
@pytest.mark.parametrize("graph", [COMPLETE, pytest.param(RING, marks=pytest.mark.slow)],
                         ids=["K5", "ring6"])
def test_guarantees_fail_when_noise_dominates(method, counting, metric, rate, graph) -> None:
    """GUARANTEES FAIL when the DP noise swamps the log-likelihood gap (ε = 1e-4, the
    theorems' K and T, K₅; the lazy ring of 6 too, slow): every state then wins a round
    with probability 1/|Θ| = 1/3 (Lemma 9.1 on all |Θ| draws), not 1/|Θ̄| = 1/2 (Thm 4.1's
    proof) nor 1 − 1/|Θ*| = 0 (Thm 4.3's p₁ for a non-MLE state). Closed forms (binomial
    counts of rounds won) against 1,500 replicates, and against the bounds:

    ===========================  ========  ===========  ======  ======================
    estimator, error             measured  closed form  bound   guarantee
    ===========================  ========  ===========  ======  ======================
    AM, type II                  0.354     0.3512       0.1     2(1 − β), Thm 4.2
    GM, type I                   0.669     0.6667       0.1     2α, Thm 4.2
    threshold_1 printed, I       1         1            0.0366  |Θ̄|e^{−2Kπ₁²}, (29)
    threshold_1 corrected, I     0.040     0.0393       0.0366  (29), barely
    threshold_2 printed, II      0.354     0.3512       0.0498  |Θ*|e^{−2Kπ₂²}, (30)
    threshold_2 corrected, II    0.089     0.0878       0.0498  (30)
    ===========================  ========  ===========  ======  ======================

    (measured on K₅, seed 8). Eqs (29)–(30) use Hoeffding with deviation π, but the
    thresholds (1 ± π)p deviate from p by πp only. AM's failure also comes from a finite
    ϱ: a single win, AM = 1/K, is below τ^AM once K > 1 + e^ϱ. Every closed form above
    its bound is asserted, and where the excess is resolvable with 1,500 replicates (more
    than 2Z standard errors), the Wilson lower limit above the bound too.
    """
    options = {"model": {"kind": "bernoulli"}, "epsilon": NOISE_ONLY, "method": method,
               "counting": counting, "graph": graph}
    final = simulate_final(make_cell(**options), 1500, 8)
    values = final[metric]
    if rate == 1.0:
        assert (values == 1.0).all()
    else:
        assert_rate_close(values, rate)
    bound = bound_row(**options)[metric]
    assert rate > bound
    if rate - bound > 2 * Z * math.sqrt(rate * (1 - rate) / len(values)):
        assert_rate_above(values, bound)


def _simple_test_rejection(cell: Shared, alpha: float) -> float:
    """P[reject | θ = θ₀] of the simple test at T → ∞ (Prop. 4.6): S = 2Λ(θ₁, θ₀) + L,
    2Λ = 2(B log(θ₁/θ₀) + (N − B) log((1 − θ₁)/(1 − θ₀))) with B ~ Bin(N, θ₀) over all
    N = n·m signals, and L a sum of 2nK Laplace(2b/K). The test rejects when
    P₀[2Λ >= S + 1] < α/2, i.e. S > v_{j−1} − 1 where v_B are the atoms of 2Λ and j the
    least B with P₀[B' >= B] < α/2."""
    null, alternative = cell.states[:2]
    signals = cell.n * cell.config.model.samples
    ones = np.arange(signals + 1)
    atoms = 2 * (ones * math.log(alternative / null)
                 + (signals - ones) * math.log((1 - alternative) / (1 - null)))
    first = int(np.flatnonzero(stats.binom.sf(ones - 1, signals, null) < alpha / 2)[0])
    cut = atoms[first - 1] - 1
    noise = 1 - toy.laplace_sum_cdf(cut - atoms, 2 * cell.n * cell.rounds,
                                    2 * cell.scale / cell.rounds)
    return float(stats.binom.pmf(ones, signals, null) @ noise)


@pytest.mark.parametrize(("sensitivity", "epsilon", "holds"), [
    ("signal", 1e4, True), ("signal", 1.0, False), ("printed", 1.0, False),
], ids=["eps=1e4", "signal-eps=1", "printed-eps=1"])
@pytest.mark.parametrize("iterations", [LARGE_T, None], ids=["T=200", "theorem-T"])
def test_simple_test_size(sensitivity, epsilon, holds, iterations) -> None:
    """Prop. 4.6's size on K₅, Θ = {0.5, 0.7} under the null θ = 0.5 (20 signals per
    agent), against the exact T → ∞ rejection probability (``_simple_test_rejection``),
    4,000 replicates:

    * ε = 1e4 (no noise to speak of): 0.0284 (measured 0.029) <= α = 0.05: HOLDS;
    * one signal's sensitivity, ε = 1 (b = 6.78, S's noise sd 30 against a threshold
      ρ_d ≈ 10): 0.305 (measured 0.298): FAILS by 0.25;
    * eq. (7)'s sensitivity, ε = 1 (b = 135.6): 0.489 (measured 0.484): FAILS, the test
      is a coin flip.

    K = 4 rounds at level α/2 shrink the noise of mean_k only as b/√K with b ∝ K, so the
    Chebyshev step of Sec. 10.1 does not make S concentrate at 2Λ.
    """
    cell = make_cell(method="test", test="simple",
                     model={"kind": "bernoulli", "states": [0.5, 0.7], "truth": 0.5},
                     sensitivity=sensitivity, epsilon=epsilon, iterations=iterations)
    exact = _simple_test_rejection(cell, 0.05)
    final = simulate_final(cell, 4000, 9)
    assert_rate_close(final["reject"], exact)
    if holds:
        assert_rate_at_most(final["reject"], 0.05)
    else:
        assert exact > 0.3
        assert_rate_above(final["reject"], 0.05)


def test_threshold_1_printed_counting_admits_every_state() -> None:
    """GUARANTEE FAILS by construction (Thm 4.3 as printed): with |Θ*| = 1,
    p₁ = 1 − 1/|Θ*| = 0, so τ₁ = (1 + π₁)p₁ = 0 and every frequency passes: Θ̂ = Θ and the
    type I error is 1 in every replicate, whatever the noise (here ε = 10, one signal's
    sensitivity, where every other guarantee holds), against a bound of 2e^{−4} = 0.037.
    ``counting=corrected`` (p₁ = 1/2) repairs it (test_guarantees_hold_*)."""
    options = {**SIGNAL, "method": "threshold_1", "graph": COMPLETE}
    final = simulate_final(make_cell(**options), 200, 10)
    assert (final["type_i_error"] == 1.0).all()
    assert bound_row(**options)["type_i_error"] == pytest.approx(2 * math.exp(-4.0))


@pytest.mark.slow
@pytest.mark.parametrize(("model", "graph"), [
    ("bernoulli", COMPLETE), ("gaussian", COMPLETE), ("bernoulli", RING),
], ids=["bernoulli-K5", "gaussian-K5", "bernoulli-ring6"])
def test_private_ol_recovery_at_theorem_T(model, graph) -> None:
    """Thm 4.7: at its T the private OL (Alg. 3, eq. (17)) recovers θ° with probability
    >= 1 − 2η; η = max(α, 1 − β) = 0.1 (α = 0.1, β = 0.9), bound 0.8, over 100
    replicates with the Wilson lower limit (z = 4.5) above it. Measured: 1.00 (Wilson lower
    0.83) for Bernoulli on K₅ (T = 12142), Gaussian on K₅ (T = 16412) and Bernoulli on the
    ring (T = 39440): the theorem's T is conservative."""
    options = {"method": "private_ol", "model": {"kind": model}, "graph": graph,
               "alpha": 0.1, "beta": 0.9}
    bound = bound_row(**options)["exact_recovery"]
    assert bound == pytest.approx(0.8)
    final = simulate_final(make_cell(**options), 100, 12)
    lower = wilson(float(final["exact_recovery"].sum()), 100)[0]
    assert lower >= bound, (final["exact_recovery"].mean(), lower)


# 6. Determinism, blocks and common random numbers ----------------------------------------

@pytest.mark.parametrize("options", [
    {}, {"method": "private_ol", "model": {"kind": "bernoulli"}, "iterations": 100},
    {"method": "laplace", "model": {"kind": "bernoulli", "states": [0.3, 0.7]}}],
    ids=["gm", "private_ol", "laplace"])
def test_same_seed_is_bit_identical(options) -> None:
    """simulate() with the same seed returns identical frames (every column, exactly)."""
    first = simulate("inference", replicates=6, seed=3, **options)
    second = simulate("inference", replicates=6, seed=3, **options)
    pd.testing.assert_frame_equal(first, second, check_exact=True)


def test_common_random_numbers_across_methods_and_budgets() -> None:
    """A replicate's synthetic signals depend on the root seed and the data options only:
    GM at ε = 1 and AM at ε = 5 (and the two-threshold method, another K and b) see the
    same log-likelihoods and the same MLE set Θ* per replicate, and their noise differs."""
    count = 50
    cells = [make_cell(method="gm", model={"kind": "bernoulli", "samples": 3}),
             make_cell(method="am", epsilon=5.0, model={"kind": "bernoulli", "samples": 3}),
             make_cell(method="threshold_2", counting="corrected",
                       model={"kind": "bernoulli", "samples": 3})]
    data = [replicate_data(c, seeds(count, 4), range(count)) for c in cells]
    for loglik, star in data[1:]:
        np.testing.assert_array_equal(loglik, data[0][0])
        np.testing.assert_array_equal(star, data[0][1])
    assert len({tuple(s) for s in data[0][1]}) > 1  # Θ* varies: the check has teeth
    gm, am = (simulate_final(c, count, 4) for c in cells[:2])
    assert not np.array_equal(gm["belief"], am["belief"])


# 7. Online learning ---------------------------------------------------------------------

@pytest.mark.parametrize("model", ["bernoulli", "gaussian"])
def test_ol_learns_the_truth(model) -> None:
    """Alg. 5 (eq. (19)) without noise: the log-belief ratios drift by −l/n < 0 per round
    (Sec. 4.3), so argmax ν_{i,t} = θ° with probability → 1. Over 200 replicates the
    recovery at t = 1000 is 1 in every replicate (Wilson lower limit > 0.9), and above the
    recovery at t = 1 (0.68 Bernoulli, 0.78 Gaussian) by more than Z paired standard
    errors; its beliefs match the non-private reference exactly (tvd_private = 0)."""
    cell = make_cell(method="ol", model={"kind": model}, iterations=1000,
                     checkpoints=[1, 1000])
    metrics = run(cell, seeds(200, 13), range(200))
    recovered = metrics["exact_recovery"]
    assert wilson(float(recovered[:, -1].sum()), 200)[0] > 0.9
    gain = recovered[:, -1] - recovered[:, 0]
    assert gain.mean() > Z * gain.std(ddof=1) / math.sqrt(len(gain))
    assert (metrics["tvd_private"] == 0).all()


def test_private_ol_tvd_private_decreases() -> None:
    """Alg. 3 (eq. (17)): ψ_t/t converges to the non-private drift as t → ∞ (Lemma 11.1),
    so the private beliefs approach the non-private ones on the same signals: over 200
    replicates the mean tvd_private falls from 0.50 (t = 1) to 0.12 (t = 1000) to 0.005
    (t = 4000), each drop more than Z paired standard errors."""
    cell = make_cell(method="private_ol", model={"kind": "bernoulli"}, iterations=4000,
                     checkpoints=[1, 1000, 4000])
    tvd = run(cell, seeds(200, 14), range(200))["tvd_private"]
    for early, late in ((0, 1), (1, 2)):
        drop = tvd[:, early] - tvd[:, late]
        assert drop.mean() > Z * drop.std(ddof=1) / math.sqrt(len(drop)), (early, late)
    assert tvd[:, -1].mean() < 0.01


# 7b. The authors' notebook's readings (options) ----------------------------------------

def _irwin_hall_cdf(x: float, n: int) -> float:
    """P[U₁ + … + U_n <= x] for independent U(0, 1) (Irwin–Hall)."""
    return sum((-1) ** k * math.comb(n, k) * (x - k) ** n
               for k in range(math.floor(x) + 1)) / math.factorial(n)


@pytest.mark.parametrize("start", ["zero", "uniform"])
def test_rizk_start(start) -> None:
    """rizk_start: with no noise to speak of (ε = 10¹², b = 2·10⁻¹⁸), η = 10⁻⁶ and T = 1
    on the complete graph of 5 (a_ij = 1/4 for j ≠ i, a_ii = 0), θ_{i,1} is the mean of
    the other four centres' starts (the scores move it by at most η·|score| < 10⁻³), so
    agent i's belief is the point mass on −log 2 = Θ* exactly when that mean is below
    −log(2)/2. From θ₀ = 0 never; from U(−1, 1) with the Irwin–Hall probability
    P[U₁ + … + U₄ <= 4(1 − log(2)/2)/2] = 0.1201 per agent (the agents' average exact
    recovery has that mean), against 4,000 replicates."""
    cell = make_cell(method="rizk", rizk_start=start, epsilon=1e12, learning_rate=1e-6,
                     iterations=1)
    final = simulate_final(cell, 4000, 21)
    expected = 0.0 if start == "zero" else _irwin_hall_cdf(4 * (1 - math.log(2) / 2) / 2, 4)
    if start == "zero":
        assert (final["exact_recovery"] == 0).all()
    else:
        assert expected == pytest.approx(0.1201, abs=5e-5)
        # The agents' average of correlated indicators: the replicates' own spread.
        assert_close_mean(final["exact_recovery"], expected)


@pytest.mark.parametrize("clip", ["score", "l1"])
def test_rizk_clip(clip) -> None:
    """rizk_clip: from θ₀ = 0 with η = 1, T = 1 and no noise to speak of, θ_{i,1} is centre
    i's score at 0, clipped to ±2B_θB_x = ±2 (``score``) or the centres' scores over
    max(1, their ℓ1 norm) (``l1``); the reported statistic is the agents' mean of
    2[log ℓ_i(θ_{i,1}) − log ℓ_i(0)], recomputed here from lifelines-checked likelihoods."""
    from sweep.inference.api import cox_centres
    from sweep.inference.survival import partial_loglik, partial_score

    cell = make_cell(method="rizk", rizk_clip=clip, epsilon=1e12, learning_rate=1.0,
                     iterations=1)
    centres = cox_centres(cell.config, cell.n)
    scores = np.array([float(partial_score(c, 0.0)) for c in centres])
    theta = (scores / max(1.0, np.abs(scores).sum()) if clip == "l1"
             else np.clip(scores, -2.0, 2.0))
    expected = np.mean([2 * (float(partial_loglik(c, t)) - float(partial_loglik(c, 0.0)))
                        for c, t in zip(centres, theta, strict=True)])
    final = simulate_final(cell, 3, 22)
    assert final["statistic"] == pytest.approx(np.full(3, expected), abs=1e-8)
    assert np.abs(scores).sum() > 1  # the two clippings differ here


def test_arrival_days_are_the_notebooks_periods() -> None:
    """arrival_days = 10: a patient arrives in round ⌊t/10⌋ of its time; T defaults to the
    last period (ACTG 175's ddI and ZDV patients reach 1,231 days: T = 123). The arrivals
    are the data's, so non-private online learning gives the same run whatever the seed;
    the random batches (the default) differ between seeds."""
    periods = make_cell(method="ol", arrival_days=10)
    assert periods.iterations == 123
    one, other = (run(periods, seeds(1, root), [0]) for root in (1, 2))
    np.testing.assert_array_equal(one["belief"], other["belief"])
    batches = make_cell(method="ol")
    one, other = (run(batches, seeds(1, root), [0]) for root in (1, 2))
    assert not np.array_equal(one["belief"], other["belief"])


def test_zdv_as_a_fourth_state_scores_zero() -> None:
    """ZDV (0) as a state of the best-treatment model scores 0 at every centre (its GLR
    against itself); the arms keep the scores of the paper's Θ = {1, 2, 3} (the same
    patients: ZDV's rows are split either way)."""
    from sweep.inference.api import treatment_loglik

    four = InferenceConfig.from_options(model={"kind": "treatments", "states": [0, 1, 2, 3]})
    three = InferenceConfig.from_options(model={"kind": "treatments"})
    local4, pooled4, _ = treatment_loglik(four, 5)
    local3, pooled3, _ = treatment_loglik(three, 5)
    assert (local4[:, 0] == 0).all() and pooled4[0] == 0
    np.testing.assert_array_equal(local4[:, 1:], local3)
    np.testing.assert_array_equal(pooled4[1:], pooled3)
    assert make_cell(model={"kind": "treatments", "states": [0, 1, 2, 3]}).labels[0] == "ZDV"


# 8. The Sec. 2 toy through the family ---------------------------------------------------

TOY = {"model": {"kind": "bernoulli", "states": [0.3, 0.7]},
       "graph": {"kind": "complete", "n_nodes": 25}}


def _toy_rows(method: str, truth: float, count: int, **options: Any) -> tuple[pd.DataFrame,
                                                                              pd.Series]:
    rows = simulate("inference", replicates=count, seed=15, method=method, epsilon=1.0,
                    **{**TOY, "model": {**TOY["model"], "truth": truth}}, **options)
    exact = rows[(rows["source"] == "exact") & (rows["method"] == method)].iloc[0]
    return rows[rows["source"] == "simulated"], exact


@pytest.mark.parametrize("truth", [0.7, 0.3], ids=["H1", "H0"])
def test_toy_randomized_response_matches_eq_1(truth) -> None:
    """Sec. 2, randomized response (n = 25, p = 0.7, ε = 1, α = 0.05): the replicates'
    rejection rate matches the exact row, β_RR of eq. (1) under H1 (0.5551) and the size
    1 − F_{Bin(n, p')}(τ_RR) under H0 (0.0409), within Z binomial SEs (10,000 replicates); the
    shared sum has mean n(1 − p') under H1 and n p' under H0, p' = p p_ε + (1 − p)(1 − p_ε)."""
    simulated, exact = _toy_rows("rr", truth, 10_000)
    n, p, epsilon = 25, 0.7, 1.0
    power = toy.rr_power(n, p, epsilon, 0.05) if truth == 0.7 else toy.rr_size(n, p, epsilon,
                                                                                 0.05)
    assert exact["reject"] == pytest.approx(power, rel=1e-12)
    assert_rate_close(simulated["reject"].to_numpy(), float(power))
    null = float(toy.rr_null_probability(p, epsilon))
    assert_close_mean(simulated["statistic"].to_numpy(), n * (1 - null if truth == 0.7 else null))


@pytest.mark.parametrize("truth", [0.7, 0.3], ids=["H1", "H0"])
def test_toy_laplace_matches_the_exact_power(truth) -> None:
    """Sec. 2, Laplace variant (n = 25, p = 0.7, ε = 1, α = 0.05): every replicate compares
    its statistic Σ_i (L(2s_i − 1) + d_i) with one threshold τ̂, the empirical
    (1 − α)-quantile of 10,000 null draws. The rejection rate matches the exact row
    (β_Laplace = P₁[S > τ] = 0.3813 under H1, α under H0) within Z standard errors of the
    binomial count plus the threshold's own: Var τ̂ ≈ α(1 − α)/(N f₀(τ)²), which moves the
    rate by f_θ(τ)(τ̂ − τ). The statistic has mean L n (2q − 1) and variance
    4L² n q(1 − q) + 2n b², L = log(7/3), b = Δ/ε = 2L, q = P[s = 1 | θ]."""
    count, draws = 5000, 10_000
    simulated, exact = _toy_rows("laplace", truth, count)
    n, p, epsilon, alpha = 25, 0.7, 1.0, 0.05
    theta = int(truth == 0.7)
    power = toy.laplace_power(n, p, epsilon, alpha) if theta else alpha
    assert exact["reject"] == pytest.approx(power, rel=1e-12)
    threshold = toy.laplace_threshold(n, p, epsilon, alpha)
    step = 1e-4

    def density(hypothesis: int) -> float:
        return float(toy.laplace_statistic_cdf(threshold + step, n, p, hypothesis, epsilon)
                     - toy.laplace_statistic_cdf(threshold - step, n, p, hypothesis,
                                                 epsilon)) / (2 * step)

    ratio = density(theta) / density(0)
    statistic, reject = simulated["statistic"].to_numpy(), simulated["reject"].to_numpy()
    assert_rate_close(reject, power, ratio**2 * alpha * (1 - alpha) / draws)
    # One threshold for all replicates: every rejected statistic exceeds every kept one.
    assert statistic[reject == 1].min() > statistic[reject == 0].max()
    q, log_ratio = (p if theta else 1 - p), math.log(p / (1 - p))
    assert_close_mean(statistic, log_ratio * n * (2 * q - 1))
    assert_close_variance(statistic, 4 * log_ratio**2 * n * q * (1 - q)
                          + 2 * n * (2 * log_ratio / epsilon) ** 2)
