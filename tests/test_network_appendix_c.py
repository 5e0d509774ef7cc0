"""Appendix C of the network paper: heterogeneous budgets (C.3) and time-varying graphs (C.1).

Formulas are pinned with values derived by hand in the docstrings; convergence and the
private error by Monte Carlo with the standard-error tolerances of :mod:`tests.stats`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from sweep.components import dynamic, graphs
from sweep.components.calibration import Calibration, calibrate
from sweep.execute import simulate
from sweep.network import budgets
from sweep.network.config import NetworkConfig
from sweep.network.family import FAMILY
from sweep.plan import make_cell

from .audit import LAPLACE, Budget, Noise, audit
from .stats import assert_close_mean

SMALL = {"graph": {"kind": "geometric", "n_nodes": 30, "radius": 0.4, "seed": 1}}

# ----------------------------------------------------------------- C.3: the allocation


def test_centralized_allocation_of_prop_c3_by_hand() -> None:
    """Δ = (1, 4, 16), ε = 1, n = 3: √Δ = (1, 2, 4), Σ = 7, so nε√Δ_i/Σ_j√Δ_j = (3/7, 6/7,
    12/7). With the cap 10ε nothing binds; with ε_i,max = 1.5 agent 3 is capped at 1.5 and
    Prop. C.3's formula leaves the others at 3/7 and 6/7 (Σ ε_i = 2.79 < 3)."""
    delta = np.array([1.0, 4.0, 16.0])
    np.testing.assert_allclose(budgets.centralized(delta, 1.0, 10.0), [3 / 7, 6 / 7, 12 / 7])
    np.testing.assert_allclose(budgets.centralized(delta, 1.0, 1.5), [3 / 7, 6 / 7, 1.5])


def test_waterfilling_is_the_kkt_optimum_by_hand() -> None:
    """Same Δ and cap 1.5: agent 3 is capped, the remaining 3 − 1.5 = 1.5 goes to agents 1
    and 2 in proportion to √Δ = (1, 2): λ = 1.5/3 = 0.5, ε* = (0.5, 1, 1.5) (1 <= 1.5: no
    other cap binds). Σ Δ_i/ε_i = 2 + 4 + 10.67 = 16.67, below Prop. C.3's printed
    7/3 + 14/3 + 10.67 = 17.67 and the homogeneous 21. Uncapped it is Prop. C.3's, with
    Σ Δ_i/ε_i = (Σ√Δ_i)²/(nε) = 49/3."""
    delta = np.array([1.0, 4.0, 16.0])
    optimum = budgets.waterfilling(delta, 1.0, 1.5)
    np.testing.assert_allclose(optimum, [0.5, 1.0, 1.5])
    assert np.sum(delta / optimum) == pytest.approx(50 / 3)
    assert np.sum(delta / budgets.centralized(delta, 1.0, 1.5)) == pytest.approx(53 / 3)
    uncapped = budgets.waterfilling(delta, 1.0, 10.0)
    np.testing.assert_allclose(uncapped, [3 / 7, 6 / 7, 12 / 7])
    assert np.sum(delta / uncapped) == pytest.approx(49 / 3)


def test_waterfilling_solves_c6_numerically_per_column() -> None:
    """Against SLSQP on (C.6) for random Δ (columns are independent problems); Prop. C.3's
    bounds min Δ/max Δ <= Σ(Δ/ε*)/Σ(Δ/ε) <= 1 hold for both rules."""
    rng = np.random.default_rng(5)
    delta = rng.lognormal(0.0, 1.5, (8, 3))
    epsilon, cap = 2.0, 1.7
    optimum = budgets.waterfilling(delta, epsilon, cap)
    np.testing.assert_allclose(optimum.sum(axis=0), 8 * epsilon)
    for column in range(3):
        d = delta[:, column]
        result = optimize.minimize(
            lambda e, d=d: np.sum(d / e), np.full(8, epsilon), method="SLSQP",
            bounds=[(1e-6, cap * epsilon)] * 8,
            constraints=[{"type": "ineq", "fun": lambda e: 8 * epsilon - e.sum()}],
            options={"ftol": 1e-14, "maxiter": 500})
        assert np.sum(d / optimum[:, column]) <= result.fun * (1 + 1e-9)
        for rule in (budgets.centralized, budgets.waterfilling):
            ratio = np.sum(d / rule(d, epsilon, cap)) / np.sum(d / epsilon)
            assert d.min() / d.max() <= ratio <= 1.0 + 1e-12


def test_each_agent_noise_is_calibrated_to_its_own_budget() -> None:
    """Log-normal signals s = (16, 4, 1) under Signal DP: Δ_i = S*(s_i) = c/s_i ∝ (1, 4, 16),
    so with ε = 1 and cap 1.5 Prop. C.3 gives ε = (3/7, 6/7, 1.5) as above, and agent i's
    Laplace scale is 2 S*_{γ_i}(s_i)/ε_i with γ_i = ε_i/(2 ln(2/δ)):
    4 ln(2/δ)/(e ε_i² s_i)."""
    delta = 0.01
    base = calibrate("laplace", 1.0, delta, True)
    het = budgets.HeterogeneousCalibration(
        base, lambda e: calibrate("laplace", e, delta, True), "centralized", 1.0, 1.5)
    signals = np.array([16.0, 4.0, 1.0])
    eps = np.array([3 / 7, 6 / 7, 1.5])
    np.testing.assert_allclose(het.budgets(signals, 0.0, 1.0), eps)
    expected = 4 * math.log(2 / delta) / (math.e * eps**2 * signals)
    np.testing.assert_allclose(het.scale(signals, 0.0, 1.0), expected)


def test_heterogeneous_network_dp_pays_each_agent_its_own_budget() -> None:
    """Audit (tests/audit.py) of Alg. 5's per-round release ψ_{i,t} of every agent under
    Network DP with Δ = 0.2 on the audit graph: Δ_i = max(a_i, 0.2) differ, so do the
    ε_i of the optimal allocation; each agent's releases are ε_i-DP, tightly."""
    # The audit's graph and releases are those of the family's audit (imported here: that
    # module also audits Private-ColME).
    from .test_privacy_audit import (
        A_NEIGHBOUR,
        N_NODES,
        ROUNDS,
        Method,
        network_pairs,
        round_release,
    )

    method = Method("ol", "network")
    base = calibrate("laplace", 1.0, 0.01, False, 0.2)
    het = budgets.HeterogeneousCalibration(
        base, lambda e: calibrate("laplace", e, 0.01, False, 0.2), "waterfilling", 1.0, 10.0)
    network, weight = method.noise_weights(1)
    eps = het.budgets(np.zeros(N_NODES), network * A_NEIGHBOUR, weight)
    assert np.ptp(eps) > 0.1 and eps.sum() == pytest.approx(N_NODES)
    pairs = network_pairs(0.2, np.random.default_rng(23), range(ROUNDS + 1))

    def noise(inp) -> Noise:
        network, weight = method.noise_weights(inp.t)
        scales = het.scale(np.full(N_NODES, inp.signal), network * A_NEIGHBOUR, weight)
        g = method.coefficients(inp.t)[3] if inp.t else 0.0
        return Noise(LAPLACE, np.array([g * scales[inp.agent]]))

    for agent in range(N_NODES):
        report = audit(round_release(method, "gaussian"), noise,
                       [p for p in pairs if p.x.agent == agent], Budget(float(eps[agent])),
                       "laplace")
        report.assert_private().assert_tight(0.999999)


def test_budgets_options_and_their_cap() -> None:
    """A cap applies only with budgets; neither budgets nor edges keep the references."""
    paper = {"allow_large_delta": True}  # the paper's δ = 0.01 on its 969 agents
    default = NetworkConfig.from_options(**paper)
    assert default.references == ("bound", "exact") and default.budget_cap is None
    central = NetworkConfig.from_options(budgets="centralized", **paper)
    assert central.budget_cap == 10.0 and central.references == ()
    assert NetworkConfig.from_options(budget_cap=3.0, **paper).budget_cap is None
    dynamic_config = NetworkConfig.from_options(edge_keep=0.5, **paper)
    assert dynamic_config.edge_keep == 0.5 and dynamic_config.references == ()


def test_equal_sensitivities_give_the_homogeneous_scales() -> None:
    """Gaussian signals under Signal DP: every Δ_i = Δ, so ε_i* = nεΔ^½/(nΔ^½) = ε and each
    agent's scale is the homogeneous Δ/ε (up to the rounding of the sum)."""
    base = calibrate("laplace", 2.0, 0.01, False, 0.5)
    het = budgets.HeterogeneousCalibration(
        base, lambda e: calibrate("laplace", e, 0.01, False, 0.5), "centralized", 2.0, 10.0)
    signals = np.random.default_rng(1).normal(size=(7, 3))
    np.testing.assert_allclose(het.scale(signals), np.full((7, 3), 0.25), rtol=1e-14)


# ------------------------------------------------------- C.1: time-varying MH weights


def test_modified_metropolis_weights_of_a_4_node_graph_by_hand() -> None:
    """Base edges 0-1, 1-2, 2-3, 1-3; three replicates of one round.

    r = 0, edge 2-3 failed: a star on 1, degrees (1, 3, 1, 1): a_01 = a_12 = a_13 =
    1/(2·3) = 1/6, a_11 = 1/2, a_00 = a_22 = a_33 = 5/6; a_i = 1/6 for all.
    r = 1, all present: degrees (1, 3, 2, 2): a_01 = a_12 = a_13 = 1/6, a_23 = 1/(2·2) =
    1/4, a_00 = 5/6, a_11 = 1/2, a_22 = a_33 = 1 − 1/6 − 1/4 = 7/12; a = (1/6, 1/6, 1/4,
    1/4). r = 2, no edge: I, a = 0.
    """
    edges = np.array([[0, 1], [1, 2], [2, 3], [1, 3]])
    kept = np.array([[1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]], dtype=bool)
    matrix, neighbour = dynamic.modified_metropolis(edges, 4, kept)
    dense = matrix.toarray()
    s = 1 / 6
    star = [[5 / 6, s, 0, 0], [s, 1 / 2, s, s], [0, s, 5 / 6, 0], [0, s, 0, 5 / 6]]
    full = [[5 / 6, s, 0, 0], [s, 1 / 2, s, s], [0, s, 7 / 12, 1 / 4],
            [0, s, 1 / 4, 7 / 12]]
    np.testing.assert_allclose(dense[:4, :4], star, atol=1e-15)
    np.testing.assert_allclose(dense[4:8, 4:8], full, atol=1e-15)
    np.testing.assert_array_equal(dense[8:, 8:], np.eye(4))
    assert not dense[:4, 4:].any() and not dense[4:8, 8:].any()  # replicates do not mix
    np.testing.assert_allclose(neighbour, [[s, s, 0], [s, s, 0], [s, 1 / 4, 0],
                                           [s, 1 / 4, 0]], atol=1e-15)


def test_rounds_are_symmetric_doubly_stochastic_and_preserve_the_average() -> None:
    """(C.3) is symmetric with rows summing to 1, so A(t) is doubly stochastic and
    1ᵀA(t)x = 1ᵀx: the average of the estimates never moves (why MVUE's limit is m̂)."""
    spec = NetworkConfig.from_options(**SMALL).graph_spec()
    rounds = dynamic.EdgeFailures(graphs.edges(spec), 30, 0.5,
                                  [np.random.default_rng(k) for k in range(3)])
    x = np.random.default_rng(9).normal(size=(30, 3))
    for t in range(1, 6):
        a = rounds.weights(t)
        dense = a.matrix.toarray()
        np.testing.assert_array_equal(dense, dense.T)
        np.testing.assert_allclose(dense.sum(axis=0), 1.0, rtol=0, atol=1e-15)
        assert dense.diagonal().min() >= 0.5
        y = a @ x
        np.testing.assert_allclose(y.mean(axis=0), x.mean(axis=0), rtol=0, atol=1e-14)
        x = y


def test_keeping_every_edge_gives_the_lazy_metropolis_weights() -> None:
    """q = 1: 1/(2 max(deg i, deg j)) is (I + A_MH)/2 off the diagonal, so A(t) is the
    static lazy Metropolis–Hastings matrix."""
    spec = NetworkConfig.from_options(**SMALL).graph_spec()
    matrix, _ = dynamic.modified_metropolis(graphs.edges(spec), 30,
                                            np.ones((1, len(graphs.edges(spec))), bool))
    lazy = graphs.weight_matrix(graphs.generate(spec), "lazy_metropolis")
    np.testing.assert_allclose(matrix.toarray(), lazy.toarray(), rtol=0, atol=1e-15)


def test_nonprivate_mvue_on_a_time_varying_graph_converges_to_the_mvue() -> None:
    """Prop. C.1: with A(t) doubly stochastic every round the consensus is the average of
    ξ, the MVUE m̂ (the target of the cost of decentralization), even with edges failing
    half the time."""
    frame = simulate("network", replicates=3, seed=2, **SMALL, privacy="none",
                     edge_keep=0.5, rounds=400, checkpoints=[1, 400])
    first, last = (frame[frame.t == t].cost_of_decentralization.to_numpy() for t in (1, 400))
    assert np.all(last < 1e-6 * first)


def test_nonprivate_online_learning_on_a_time_varying_graph_converges() -> None:
    """Prop. C.2: Alg. 2 with A(t) in place of A converges to 1·m_θ. At T = 400 the
    error is less than half that of agents averaging only their own signals,
    √(nσ²/T) = 0.28 (n = 30, σ = 1.04), near the centralized average's
    σ√(2/(πT)) = 0.041, and it has fallen by more than half since t = 25."""
    frame = simulate("network", replicates=20, seed=4, **SMALL, method="ol", privacy="none",
                     signal="gaussian", edge_keep=0.5, rounds=400, checkpoints=[25, 400])
    early, late = (frame[frame.t == t].cost_of_decentralization.mean() for t in (25, 400))
    sigma = 1.04
    assert late < math.sqrt(30 * sigma**2 / 400) / 2
    assert late < early / 2


@pytest.mark.slow
def test_private_mvue_on_a_time_varying_graph_ends_at_the_noise_average() -> None:
    """MVUE's noise enters once and A(t) preserves averages: ν_t → 1(m̂ + d̄), so the cost
    of privacy tends to √n |d̄| with E[n d̄²] = Σ_i V[d_i]/n = 2(Δ/ε)² for Laplace noise of
    scale Δ/ε (Gaussian signals, Δ = 1, ε = 1): 2."""
    frame = simulate("network", replicates=2000, seed=6, **SMALL, signal="gaussian",
                     edge_keep=0.5, rounds=300, checkpoints=[300])
    assert_close_mean(frame.cost_of_privacy.to_numpy() ** 2, 2.0)


def test_network_dp_uses_each_round_neighbour_weights(monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    """Under Network DP the sensitivity max(a_i(t), Δ) follows the round's graph: the
    network part of every round's noise scale, recorded from the calibration, is a_i(t) of
    that round's weights (C.3), recomputed replicate by replicate from the replicates'
    graph streams (each seed's third child, after signals and noise)."""
    cell = make_cell({"family": "network", "replicates": 2, "seed": 8, **SMALL,
                      "method": "ol", "privacy": "network", "signal": "gaussian",
                      "sensitivity": 0.01, "edge_keep": 0.7, "rounds": 6,
                      "checkpoints": [6]})
    recorded = []
    scale = Calibration.scale

    def spy(self, signals, network=0.0, signal_weight=1.0):
        recorded.append(np.array(network, dtype=float))
        return scale(self, signals, network, signal_weight)

    monkeypatch.setattr(Calibration, "scale", spy)
    FAMILY.run(cell.prepared, cell.seeds(0, 2), range(2), False)
    graph = [np.random.default_rng(np.random.SeedSequence(seed.entropy,
                                                          spawn_key=(*seed.spawn_key, 2)))
             for seed in cell.seeds(0, 2)]
    rounds = dynamic.EdgeFailures(graphs.edges(cell.prepared.spec), 30, 0.7, graph)
    assert len(recorded) == 6  # rounds 1..6 (OL adds no noise at t = 0)
    static = graphs.build(cell.prepared.spec).a_neighbor[:, None]
    for t, network in enumerate(recorded, start=1):
        expected = np.broadcast_to(rounds.neighbour(t), network.shape)
        np.testing.assert_array_equal(network, expected)
        assert not np.allclose(network, static)  # not the static graph's a_i
