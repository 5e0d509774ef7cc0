"""The network family against the paper's closed forms (dp-distributed-estimation).

Tolerances come from the Monte-Carlo standard error (tests/stats.py); seeds are fixed.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
from scipy.special import ndtr

from analysis import load, report, summaries
from sweep.components import graphs
from sweep.components.calibration import analytic_gaussian_sigma, calibrate
from sweep.components.staircase import staircase_variance
from sweep.errors import ConfigError
from sweep.network.config import NetworkConfig
from sweep.network.family import FAMILY, statistic_mean
from sweep.plan import make_cell

from .stats import Z, assert_close_mean
from .sweep_reference import Page, run_cli

SMALL = {"graph": {"kind": "geometric", "n_nodes": 30, "radius": 0.4, "seed": 3},
         "rounds": 40, "checkpoints": [1, 2, 5, 10, 20, 40]}


def _run(replicates: int, seed: int = 0, graph: dict | None = None, **options: object):
    """(cell, rows) of a network cell computed in process, references included; ``graph``
    updates SMALL's graph options (without its radius, for another kind of graph)."""
    graph = graph or {}
    base = {name: value for name, value in SMALL["graph"].items()
            if name != "radius" or graph.get("kind", "geometric") == "geometric"}
    cell = make_cell({"family": "network", "replicates": replicates, "seed": seed,
                      **SMALL, "graph": {**base, **graph}, **options})
    frame = FAMILY.run(cell.prepared, cell.seeds(0, replicates), range(replicates), True)
    return cell.prepared, frame


def _per_t(frame, source: str, column: str) -> dict[int, np.ndarray]:
    rows = frame[frame.source == source]
    return {int(t): part[column].to_numpy() for t, part in rows.groupby("t")}


def _spectral_cost(prepared, variances: np.ndarray, t: int) -> float:
    """Σ_j V[d_j] Σ_i λ_i^{2t} q_ij² (proof of Thm 3.1), from a dense eigendecomposition."""
    values, vectors = scipy.linalg.eigh(prepared.network.matrix().toarray())
    return float(np.sum(variances[:, None] * vectors**2 * values[None, :] ** (2 * t)))


@pytest.mark.parametrize("options", [
    {"signal": "gaussian", "sensitivity": 0.1, "privacy": "signal"},
    {"signal": "gaussian", "sensitivity": 0.1, "privacy": "network"},  # V_j differ by a_j
    {"signal": "lognormal", "signal_mean": 2.0, "signal_sigma": 0.3, "privacy": "network"},
    {"signal": "gaussian", "sensitivity": 0.1, "privacy": "network", "noise": "staircase"},
])
def test_mvue_cost_of_privacy_matches_the_spectral_formula(options: dict) -> None:
    prepared, frame = _run(4000, method="mvue", epsilon=0.5, **options)
    network, config = prepared.network, prepared.config
    a = network.a_neighbor if config.privacy == "network" else 0.0
    if config.noise == "staircase":  # of sensitivity max(a_j, Δ), in closed form
        variances = np.array([staircase_variance(config.epsilon, float(s)) for s in
                              np.broadcast_to(np.maximum(a, config.sensitivity), (network.n,))])
    elif config.signal == "gaussian":  # Laplace, global sensitivity: V = 2 (max(a_j, Δ)/ε)²
        variances = 2 * (np.maximum(a, config.sensitivity) / config.epsilon) ** 2
    else:  # smooth sensitivity: Monte Carlo over the signal, independent of the family
        rng = np.random.default_rng(7)
        s = rng.lognormal(config.signal_mean, config.signal_sigma, (200_000, 1))
        smooth = 2 * math.log(2 / config.delta) / (math.e * config.epsilon * s)
        variances = 2 * (2 * np.maximum(a, smooth) / config.epsilon) ** 2
        variances = variances.mean(axis=0)
    variances = np.broadcast_to(variances, (network.n,))
    simulated = _per_t(frame, "simulated", "cost_of_privacy")
    exact = _per_t(frame, "exact", "cost_of_privacy")
    for t, cost in simulated.items():
        formula = _spectral_cost(prepared, variances, t)
        tolerance = 1e-9 if config.signal == "gaussian" else 5e-3  # MC over s above
        assert exact[t][0] ** 2 == pytest.approx(formula, rel=tolerance)
        assert_close_mean(cost**2, exact[t][0] ** 2)


@pytest.mark.parametrize("graph", [
    {},
    {"kind": "ring", "n_nodes": 16, "weights": "lazy_metropolis"},
    {"kind": "complete", "n_nodes": 12, "weights": "max_degree"},
])
@pytest.mark.parametrize("privacy", ["signal", "network"])
def test_online_learning_stays_under_theorems_4_1_and_4_2(graph: dict, privacy: str) -> None:
    _, frame = _run(1000, method="ol", privacy=privacy, epsilon=1.0, signal="gaussian",
                    signal_mean=3.0, graph=graph)
    bound = frame[frame.source == "bound"].set_index("t")
    for metric in ("total_error", "cost_of_privacy", "cost_of_decentralization"):
        for t, values in _per_t(frame, "simulated", metric).items():
            upper = values.mean() + Z * values.std(ddof=1) / math.sqrt(values.size)
            assert upper <= bound.loc[t, metric], (metric, t, upper, bound.loc[t, metric])


def test_mvue_stays_under_theorem_3_1() -> None:
    _, frame = _run(1000, method="mvue", privacy="network", epsilon=1.0)
    bound = frame[frame.source == "bound"].set_index("t")
    for t, values in _per_t(frame, "simulated", "total_error").items():
        assert values.mean() + Z * values.std(ddof=1) / math.sqrt(values.size) <= (
            bound.loc[t, "total_error"])


def test_noise_scales_follow_the_papers_formulas() -> None:
    epsilon, delta = 0.5, 0.01
    signals = np.array([[0.5], [2.0], [40.0]])
    a = np.array([[0.3], [0.01], [0.2]])
    smooth = 2 * math.log(2 / delta) / (math.e * epsilon * signals)  # eq. (9)
    laplace = calibrate("laplace", epsilon, delta, smooth=True)
    np.testing.assert_allclose(laplace.scale(signals), 2 * smooth / epsilon)  # Signal DP
    np.testing.assert_allclose(laplace.scale(signals, a), 2 * np.maximum(a, smooth) / epsilon)
    bounded = calibrate("laplace", epsilon, delta, smooth=False, sensitivity=0.1)
    np.testing.assert_allclose(bounded.scale(signals), 0.1 / epsilon)  # Thm 3.1: Δ/ε
    np.testing.assert_allclose(bounded.scale(signals, a), np.maximum(a, 0.1) / epsilon)
    # The analytic Gaussian mechanism meets Balle & Wang's condition with equality, and is
    # tighter than the classical σ = Δ √(2 ln(1.25/δ))/ε.
    sigma = analytic_gaussian_sigma(epsilon, delta)
    excess = ndtr(0.5 / sigma - epsilon * sigma) - math.exp(epsilon) * ndtr(
        -0.5 / sigma - epsilon * sigma)
    assert excess == pytest.approx(delta, rel=1e-8)
    assert sigma < math.sqrt(2 * math.log(1.25 / delta)) / epsilon


@pytest.mark.parametrize(("privacy", "sensitivity"), [("signal", 0.4), ("network", 0.01)])
def test_laplace_noise_is_drawn_with_its_scale(privacy: str, sensitivity: float) -> None:
    # On the complete graph with a_ij = 1/n, one round averages: ‖ν_1 − μ_1‖² = n·mean(d)²
    # with E = Σ_j V[d_j]/n = 2 b² for Laplace scale b = max(a, Δ)/ε (a = 1/n here).
    n, epsilon = 10, 0.5
    _, frame = _run(20000, method="mvue", privacy=privacy, epsilon=epsilon,
                    signal="gaussian", sensitivity=sensitivity, checkpoints=[1],
                    graph={"kind": "complete", "n_nodes": n, "weights": "max_degree"})
    scale = max(sensitivity, 1 / n if privacy == "network" else 0.0) / epsilon
    cost = _per_t(frame, "simulated", "cost_of_privacy")[1]
    assert_close_mean(cost**2, 2 * scale**2)


@pytest.mark.parametrize("floor, log_sigma", [(None, 0.5), (2.0, 0.8)])
def test_expected_smooth_variance_matches_monte_carlo(floor: float | None,
                                                      log_sigma: float) -> None:
    """The references' expected noise variance E[2 scale²] over log-normal signals: a
    closed form for eq. (9), a quadrature with a floor (its S* is not a power of s)."""
    laplace = calibrate("laplace", 1.0, 0.01, smooth=True, floor=floor)
    a = np.array([0.0, 0.05, 0.5])
    exact = laplace.expected_variance(a, 1.0, log_mean=1.0, log_sigma=log_sigma)
    s = np.random.default_rng(1).lognormal(1.0, log_sigma, (400_000, 1))
    samples = 2 * laplace.scale(s, a[None, :]) ** 2
    for j in range(3):
        assert_close_mean(samples[:, j], exact[j])


def test_fresh_noise_every_round_diverges_and_algorithm_3_does_not() -> None:
    options = {"signal": "gaussian", "privacy": "network", "epsilon": 1.0, "rounds": 400,
               "checkpoints": [1, 25, 100, 400]}
    _, naive = _run(300, method="mvue_fresh_noise", **options)
    _, once = _run(300, method="mvue", **options)
    naive_cost = _per_t(naive, "simulated", "cost_of_privacy")
    once_cost = _per_t(once, "simulated", "cost_of_privacy")
    exact = _per_t(naive, "exact", "cost_of_privacy")
    # E‖Σ_τ A^τ d_{t−τ}‖² grows linearly in t (Sec. 3.1): at least t Σ_j V[d_j]/n.
    for t in (25, 100, 400):
        assert_close_mean(naive_cost[t] ** 2, exact[t][0] ** 2)
    # Once mixed, each round adds Σ_j V[d_j]/n = 2 (max(a_j, Δ)/ε)² = 2 along 1/√n.
    slope = (exact[400][0] ** 2 - exact[100][0] ** 2) / 300
    assert slope == pytest.approx(2.0, rel=1e-3)
    # Alg. 3: the noise added once only mixes, so the cost never grows.
    means = [np.mean(once_cost[t]) for t in (1, 25, 100, 400)]
    assert all(b <= a for a, b in itertools.pairwise(means))
    assert means[-1] < np.mean(naive_cost[400]) / 10


def test_alg5_matrix_under_signal_dp_matches_its_covariance_recursion() -> None:
    """The ablation ol_alg5 (Alg. 5's C(t) = ((t−2)/t) I + A/t with Alg. 4's Signal-DP
    noise): its noise e_t = C(t) e_{t−1} + d_t/t has covariance Σ_t = C Σ_{t−1} Cᵀ + V/t² I
    with V = 2(Δ/ε)² (Laplace, global Δ), computed here on the dense agents' basis. The
    family's exact cost of privacy is √tr Σ_t, the simulated ‖e_t‖² matches it within Z
    standard errors, and at t = 1 (e_1 = d_1 for both) it equals Alg. 4's: equal noise."""
    options = {"signal": "gaussian", "sensitivity": 0.1, "privacy": "signal",
               "epsilon": 0.5}
    prepared, frame = _run(2000, method="ol_alg5", **options)
    _, alg4 = _run(2, method="ol", **options)
    a = prepared.network.matrix().toarray()
    n, variance = a.shape[0], 2 * (0.1 / 0.5) ** 2
    exact = _per_t(frame, "exact", "cost_of_privacy")
    simulated = _per_t(frame, "simulated", "cost_of_privacy")
    covariance = np.zeros((n, n))
    for t in range(1, max(exact) + 1):
        mixing = (t - 2) / t * np.eye(n) + a / t
        covariance = mixing @ covariance @ mixing.T + variance / t**2 * np.eye(n)
        if t in exact:
            assert exact[t][0] ** 2 == pytest.approx(np.trace(covariance), rel=1e-9)
            assert_close_mean(simulated[t] ** 2, exact[t][0] ** 2)
    assert exact[1][0] == pytest.approx(_per_t(alg4, "exact", "cost_of_privacy")[1][0],
                                        rel=1e-12)


def test_graphs_and_their_statistics() -> None:
    # The paper's δ = 0.01 on its 969 agents: above 1/n, acknowledged.
    spec = make_cell({"family": "network", "replicates": 1, "allow_large_delta": True}).prepared
    assert spec.network.n_edges == 13_236  # the paper's German-households graph (seed 0)
    network = spec.network
    matrix = network.matrix().toarray()
    np.testing.assert_allclose(matrix.sum(axis=0), 1.0)
    np.testing.assert_allclose(matrix, matrix.T)
    values = np.sort(np.linalg.eigvalsh(matrix))
    assert network.beta_star == pytest.approx(max(values[-2], -values[0]), abs=1e-10)
    off = matrix - np.diag(np.diag(matrix))
    assert network.max_weight == pytest.approx(off.max())
    columns = FAMILY.columns(spec)
    assert columns["beta_star"] == network.beta_star and columns["n_edges"] == 13_236
    assert columns["graph.kind"] == "geometric" and columns["graph.n_nodes"] == 969
    assert columns["graph.radius"] == 0.1 and columns["graph.neighbors"] is None
    assert not {"graph", "n_nodes", "radius", "graph_seed", "weights"} & set(columns)


def test_cell_identity_is_the_declared_one(tmp_path) -> None:
    """The identity (since version 3) is :func:`sweep.options.describe`'s: the graph
    group nested, the options added to version 2 only when set; the random streams derive
    from it (without the replicate count since version 4), so they are pinned here."""
    # The acknowledgement of the paper's δ changes neither the identity nor the streams.
    cell = make_cell({"family": "network", "replicates": 20, "allow_large_delta": True})
    assert cell.stream == (1693626779, 1650344016)  # computed by version 4
    ring = make_cell({"family": "network", "replicates": 3, "seed": 7, "method": "ol",
                      "privacy": "network", "rounds": 30, "checkpoints": [1, 7, 30],
                      "graph": {"kind": "ring", "n_nodes": 20,
                                "weights": "lazy_metropolis"}})
    assert ring.settings["options"] == {
        "graph": {"kind": "ring", "n_nodes": 20, "radius": None, "edge_probability": None,
                  "neighbors": None, "rewire_probability": None, "attachments": None,
                  "grid_rows": None, "edgelist": None, "seed": 0,
                  "weights": "lazy_metropolis"},
        "signal": "lognormal", "signal_mean": 1.67, "signal_sigma": 1.04,
        "sensitivity": None, "method": "ol", "privacy": "network", "noise": "laplace",
        "epsilon": 1.0, "delta": 0.01, "rounds": 30, "learning_rate": None,
        "rizk_start": None, "checkpoints": (1, 7, 30), "references": ("bound", "exact")}
    assert ring.stream == (1000197243, 1231749225)  # computed by version 4
    path = tmp_path / "edges.txt"
    path.write_text("1 2\n2 3\n3 1\n")
    edges = make_cell({"family": "network", "replicates": 1,
                       "graph": {"kind": "edgelist", "edgelist": str(path)}})
    graph = edges.settings["options"]["graph"]
    assert graph["kind"] == "edgelist" and graph["n_nodes"] is None
    assert graph["edgelist"] == hashlib.sha256(path.read_bytes()).hexdigest()  # content
    moved = tmp_path / "moved.txt"
    path.rename(moved)
    assert make_cell({"family": "network", "replicates": 1, "graph": {
        "kind": "edgelist", "edgelist": str(moved)}}).cell_id == edges.cell_id
    assert edges.columns()["graph.edgelist"] == str(path)  # the column: the path


def test_edge_list_files_and_disconnected_graphs(tmp_path) -> None:
    path = tmp_path / "edges.txt"
    path.write_text("# a path and a triangle\n1 2\n2 3\n3 4\n4 2\n")
    options = {"family": "network", "replicates": 1,
               "graph": {"kind": "edgelist", "edgelist": str(path)}}
    prepared = make_cell(options).prepared
    assert prepared.network.n == 4 and prepared.network.n_edges == 4
    first = make_cell(options).cell_id
    path.write_text("1 2\n2 3\n3 4\n")
    assert make_cell(options).cell_id != first  # content, not path
    path.write_text("1 2\n3 4\n")
    with pytest.raises(ConfigError, match=r"graph: must be connected; .* 2 connected"):
        make_cell(options)
    with pytest.raises(ConfigError, match=r"^graph\.edgelist: cannot read"):
        make_cell({**options, "graph": {"kind": "edgelist", "edgelist": str(tmp_path / "no")}})
    graphs.build.cache_clear()


def test_a_mixed_sweep_shares_one_results_directory(tmp_path) -> None:
    done = run_cli(["-m", "family=colme,network", "epsilon=0.5,1", "replicates=2",
                    "checkpoints=5", "executor=serial", "results_dir=results",
                    "allow_large_delta=true"], tmp_path)  # both papers' δ, above 1/n
    assert done.returncode == 0, done.stderr
    assert "4 cells: 4 done" in done.stdout
    frame = load(tmp_path / "results")
    assert set(frame.family) == {"colme", "network"}
    assert set(frame.attrs["metrics"]) == {"mse", "false_exclusion", "false_inclusion",
                                           "total_error", "cost_of_privacy",
                                           "cost_of_decentralization"}
    network = frame[frame.family == "network"]
    assert network.mse.isna().all() and network.total_error.notna().any()
    assert frame[frame.family == "colme"].total_error.isna().all()
    summary = summaries(tmp_path / "results")
    assert set(summary.family) == {"colme", "network"}
    simulated = summary[(summary.family == "network") & (summary.source == "simulated")]
    assert (simulated.n == 2).all() and simulated.total_error_low.notna().all()
    done = report(tmp_path / "results", tmp_path / "report")
    expected = {"overview_colme", "overview_network", "network_error_vs_epsilon",
                "network_error_vs_round"}
    assert expected <= set(done.drawn)
    page = Page(tmp_path / "report" / "index.html")
    assert {f"{figure}.png" for figure in expected} <= set(page.images)
    page.check_images()
    text = (tmp_path / "report" / "index.html").read_text()
    assert "total_error" in text and "mse" in text


# ----------------------------------------- readings: Appendix B, Network DP, eq. (9)'s domain


def test_readings_split_cells_only_where_they_apply() -> None:
    """A reading that does not apply to a cell (Rizk et al.'s scale for MVUE, the network
    scale under Signal DP or for Rizk et al., the floor for Gaussian signals) is reset to
    its default and does not split cells; one that applies makes a new cell."""
    base = {"family": "network", "replicates": 2, "allow_large_delta": True}
    default = make_cell(base)
    assert not {"rizk_scale", "network_scale", "signal_floor"} & set(
        default.settings["options"])
    assert make_cell({**base, "rizk_scale": "code"}).cell_id == default.cell_id
    assert make_cell({**base, "network_scale": "code"}).cell_id == default.cell_id
    network = make_cell({**base, "privacy": "network"})
    coded = make_cell({**base, "privacy": "network", "network_scale": "code"})
    assert coded.cell_id != network.cell_id
    assert coded.settings["options"]["network_scale"] == "code"
    rizk = make_cell({**base, "method": "rizk", "privacy": "network"})
    assert make_cell({**base, "method": "rizk", "privacy": "network",
                      "network_scale": "code"}).cell_id == rizk.cell_id
    assert make_cell({**base, "method": "rizk", "rizk_scale": "no_eta"}).cell_id != (
        make_cell({**base, "method": "rizk"}).cell_id)
    gaussian = make_cell({**base, "signal": "gaussian"})
    assert make_cell({**base, "signal": "gaussian", "signal_floor": 1.0}).cell_id == (
        gaussian.cell_id)
    assert make_cell({**base, "signal_floor": 1.0}).cell_id != default.cell_id


@pytest.mark.parametrize("reading, ratio", [("code", 200.0), ("no_eta", 1000.0)])
def test_rizk_readings_scale_the_drawn_noise(reading: str, ratio: float) -> None:
    """Rizk et al. under Signal DP draw noise T·η·S_i/ε every round: the code reading's
    S_i is 2T = 200 times the printed one at T = 100, no_eta's 1/η = 1000 times. The exact
    RMS cost of privacy scales by exactly that, and the simulated one (the cells' own
    streams) matches it: mean of ‖e_T‖² within Z standard errors of the exact E‖e_T‖²."""
    options = {"method": "rizk", "privacy": "signal", "rounds": 100, "checkpoints": [100]}
    _, printed = _run(2, **options)
    _, scaled = _run(400, rizk_scale=reading, **options)
    exact = _per_t(scaled, "exact", "cost_of_privacy")[100][0]
    assert exact == pytest.approx(ratio * _per_t(printed, "exact", "cost_of_privacy")[100][0],
                                  rel=1e-12)
    assert_close_mean(_per_t(scaled, "simulated", "cost_of_privacy")[100] ** 2, exact**2)


def test_network_scale_halves_the_noise_where_a_i_dominates() -> None:
    """MVUE under Network DP with LogNormal(10, 1) signals (S* ~ 4e-4 ≪ a_i): the
    paper's 2·max(a_i, S*)/ε is twice the code's max(a_i, 2S*)/ε for every agent, so the
    exact cost of privacy (one noise draw, then A^t) halves, and the simulated one
    matches it (Z standard errors on ‖e_t‖²)."""
    options = {"method": "mvue", "privacy": "network", "signal_mean": 10.0,
               "signal_sigma": 1.0}
    _, paper = _run(2, **options)
    _, code = _run(400, network_scale="code", **options)
    exact = _per_t(code, "exact", "cost_of_privacy")[40][0]
    # Up to the far tail of small signals where 2S* passes a_i (a relative 2e-9 here).
    assert exact == pytest.approx(_per_t(paper, "exact", "cost_of_privacy")[40][0] / 2,
                                  rel=1e-7)
    assert_close_mean(_per_t(code, "simulated", "cost_of_privacy")[40] ** 2, exact**2)


def test_online_target_with_a_floor_is_the_censored_mean() -> None:
    """With a floor the agents' statistic is log max(s, s_min), a normal N(μ, σ²) censored
    below at c = log s_min: mean μ + σφ(α) + (c − μ)Φ(α), α = (c − μ)/σ. By hand at
    μ = 1, σ = 1, s_min = e (c = 1, α = 0): 1 + φ(0) = 1 + 1/√(2π) = 1.39894; Monte Carlo
    agrees; without a floor the target is μ."""
    config = NetworkConfig.from_options(signal_mean=1.0, signal_sigma=1.0,
                                        signal_floor=math.e, method="ol",
                                        allow_large_delta=True)
    assert statistic_mean(config) == pytest.approx(1 + 1 / math.sqrt(2 * math.pi), rel=1e-12)
    draws = np.log(np.maximum(np.random.default_rng(3).lognormal(1.0, 1.0, 400_000), math.e))
    assert_close_mean(draws, statistic_mean(config))
    assert statistic_mean(NetworkConfig.from_options(signal_mean=1.0, method="ol",
                                                     allow_large_delta=True)) == 1.0


def test_floor_clips_the_signals() -> None:
    """With a floor the statistic is log max(s, s_min)."""
    prepared, frame = _run(2, method="mvue", privacy="none", signal_floor=50.0,
                           signal_mean=1.0, signal_sigma=0.1)
    # Every signal is below the floor: ξ = log 50 everywhere, the estimates are exact.
    assert np.all(_per_t(frame, "simulated", "total_error")[40] < 1e-9)
    assert prepared.config.signal_floor == 50.0


def test_node_zero_target_adds_n_over_t() -> None:
    """The authors' code measures the MVUE error against node 0's time average
    c = (1/T) Σ_t ξ_{0,t} instead of 1·m̂: ‖ν − c1‖² = ‖ν − m̂1‖² + n(m̂ − c)² + a term of
    zero mean, and n·E(m̂ − c)² = σ²(1 + (n − 2)/T) by hand (m̂ and c share ξ_{0,0}:
    Var = σ²(1/n + 1/T − 2/(nT))), against n·Var(m̂) = σ² for the target 1·m. Monte
    Carlo of the formula that docs/reproduction.md uses (n = 50, T = 20, σ = 1.5)."""
    n, rounds, sigma = 50, 20, 1.5
    xi = np.random.default_rng(11).normal(0.0, sigma, (20_000, n, rounds))
    gap = xi[:, :, 0].mean(axis=1) - xi[:, 0, :].mean(axis=1)
    assert_close_mean(n * gap**2, sigma**2 * (1 + (n - 2) / rounds))


def test_fig7_factor_is_the_geometric_mean_over_epsilon() -> None:
    """Fig. 7's rows: ratios 100× and 10,000× (no error) have the geometric mean 1000×,
    which agrees with the paper's ≈ 1000×; ratios of 10× disagree; a log SE of 1/√2 per
    ε over two ε is 1/2 on the mean."""
    from analysis.claims import Factor, Verdict
    from analysis.statements import fill
    from analysis.studies.network.document import geometric_mean
    from analysis.studies.network.statements import FIG7

    def fig7_factor(ratios: pd.DataFrame) -> Factor:  # the evidence of Fig. 7's rows
        return FIG7[0].rule.evidence({"x": geometric_mean(ratios)},
                                     lambda text: fill(text, {"epsilons": "0.5, 1"}))

    exact = pd.DataFrame({"mean": [100.0, 1e4], "se": [0.0, 0.0]}, index=[0.5, 1.0])
    assert fig7_factor(exact).estimate == pytest.approx(1000.0)
    assert fig7_factor(exact).decide() is Verdict.AGREES
    low = pd.DataFrame({"mean": [10.0, 10.0], "se": [0.0, 0.0]}, index=[0.5, 1.0])
    assert fig7_factor(low).decide() is Verdict.DISAGREES
    noisy = pd.DataFrame({"mean": [10.0, 10.0], "se": [10 / math.sqrt(2)] * 2},
                         index=[0.5, 1.0])
    assert math.log(fig7_factor(noisy).high / 10.0) == pytest.approx(1.959963984540054 / 2)


def test_laplace_noise_sd_is_below_the_gaussian_of_the_same_budget() -> None:
    """Thm 3.1, part 2, as the document checks it: the Laplace noise's s.d. per unit
    sensitivity is √2/ε (scale Δ/ε), the Gaussian's the analytic mechanism's σ."""
    from analysis.studies.network.document import noise_sd

    for epsilon in (1.0, 10.0):
        assert noise_sd("laplace", epsilon, 0.01, False) == pytest.approx(math.sqrt(2) / epsilon)
        assert noise_sd("gaussian", epsilon, 0.01, False) == pytest.approx(
            analytic_gaussian_sigma(epsilon, 0.01))


def test_panel_titles_name_the_data_set_and_the_stand_in() -> None:
    from analysis.studies.network.views import data_set

    rows = pd.DataFrame({"signal_mean": [1.67, 10.0, 10.0],
                         "graph.kind": ["geometric", "newman_watts_strogatz", "edgelist"]})
    titles = list(data_set(rows))
    assert titles[0].startswith("German households") and "synthetic signals" in titles[0]
    assert titles[1] == "US power grid\n(stand-in graph: Newman–Watts–Strogatz)"
    assert titles[2] == "US power grid\n(its edge list)"
