"""DP distributed estimation on networks as a simulation family (see :mod:`sweep.family`).

Rows, per replicate and checkpoint t (``source = "simulated"``): ``total_error``
E‖ν_t − target‖₂, ``cost_of_privacy`` ‖ν_t − μ_t‖₂ and ``cost_of_decentralization``
‖μ_t − target‖₂ of Sec. 1.1 (Euclidean norms over the agents, not squared; the paper's
figures call them "MSE"). Reference rows without a replicate: ``source = "bound"``, the
Theorem 3.1 / 4.1 / 4.2 bounds on the three (for ``mvue`` and ``ol``), and
``source = "exact"``, the exact root-mean-square cost of privacy √E‖ν_t − μ_t‖²
(:func:`~sweep.network.algorithms.exact_privacy_cost`). Cell columns add the graph's
``n_edges``, ``beta_star`` (β*) and ``max_weight`` (a = max_{i≠j} a_ij).

Preparing a cell builds its graph (networkx, scipy's sparse and dense linear algebra);
the compiled noise, scipy.stats and pandas are imported when a cell runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..components import graphs
from ..components.calibration import Calibration
from ..errors import ConfigError
from ..options import describe
from ..results import Metric, ResultSchema
from .algorithms import Dynamics, Releases, bounds, exact_privacy_cost, run_recursion
from .budgets import HeterogeneousCalibration
from .config import NetworkConfig

if TYPE_CHECKING:
    import pandas as pd

METRICS = ("total_error", "cost_of_privacy", "cost_of_decentralization")
# Seconds per node and round of one replicate (two sparse products, the draws and
# norms); with edge failures (Appendix C.1), per round and per kept edge of building that
# round's weights. Measured with benchmarks/bench_estimates.py on the presets (warm
# numba cache, 2 cores); used to size tasks and to estimate a command's time.
_NODE_ROUND_SECONDS = 1e-7
_FAILURES_ROUND_SECONDS = 2e-4
_KEPT_EDGE_SECONDS = 7e-8
# Seconds per n³ of a graph's dense eigendecomposition (about 27 s for the power grid's
# 4,941 nodes on one thread), which the exact reference under Network DP needs.
_EIGH_SECONDS = 2.2e-10


@dataclass(frozen=True)
class NetworkCell:
    """A validated cell: its options, the graph's definition, and the graph itself."""

    config: NetworkConfig
    spec: graphs.GraphSpec
    network: graphs.Network

    @property
    def dynamics(self) -> Dynamics:
        c = self.config
        return Dynamics(c.method, c.privacy, c.learning_rate or 0.0, c.rizk_start == "signal")

    @property
    def calibration(self) -> Calibration | HeterogeneousCalibration:
        c = self.config
        if c.method in ("rizk", "rizk_ol") or c.budgets == "homogeneous":
            return c.calibration_at(c.epsilon)
        # Appendix C.3: each agent's noise at its own ε_i.
        return HeterogeneousCalibration(c.calibration_at(c.epsilon), c.calibration_at,
                                        c.budgets, c.epsilon, c.budget_cap)


def _signal_draws(config: NetworkConfig) -> tuple[Callable, Callable[[np.ndarray], np.ndarray]]:
    """How one agent vector of signals is drawn, and ξ of it."""
    if config.signal == "lognormal":
        floor = config.signal_floor
        # With a floor the agents clip their signals to [s_min, ∞) before ξ = log.
        statistic = np.log if floor is None else (lambda s: np.log(np.maximum(s, floor)))
        return (lambda rng, n: rng.lognormal(config.signal_mean, config.signal_sigma, n),
                statistic)
    return (lambda rng, n: rng.normal(config.signal_mean, config.signal_sigma, n),
            lambda s: s)


def statistic_mean(config: NetworkConfig) -> float:
    """m_θ = E[ξ(s)], the online target: the mean of ξ(s), or with a floor the mean of
    log max(s, s_min), a normal censored below at c = log s_min:
    μ + σφ(α) + (c − μ)Φ(α) with α = (c − μ)/σ."""
    from scipy import stats

    if config.signal != "lognormal" or config.signal_floor is None:
        return config.signal_mean
    mu, sigma = config.signal_mean, config.signal_sigma
    alpha = (math.log(config.signal_floor) - mu) / sigma
    return mu + sigma * (stats.norm.pdf(alpha) + alpha * stats.norm.cdf(alpha))


#: The examples' graph: small, random, connected.
_GRAPH = {"kind": "geometric", "n_nodes": 30, "radius": 0.4, "seed": 3}


class NetworkFamily:
    """Private consensus (MVUE, OL) under Signal and Network DP, and their baselines."""

    name = "network"
    # 2: the graph options are the nested group graph (columns graph.kind, graph.n_nodes,
    # ...), the identity and so the random streams those of version 1. 3: the identity
    # is the declared one (sweep.options.describe): the graph group nested, every option
    # in it; new random streams.
    # 4: the streams' key without the replicate count (sweep.plan.STREAM_VERSION 2):
    # new cell ids and random streams, the same computation.
    # 5: the staircase's γ* in a stable form (sweep.components.staircase.optimal_gamma):
    # its cells' noise changes (in the last digits at ε >= 0.1; it was wrong below
    # ε ≈ 10⁻³); new cell ids, the same computation for Laplace and Gaussian noise.
    version = 5
    options = NetworkConfig
    #: Small cells (milliseconds each), one per code path that draws or splits its random
    #: numbers differently, which the conformance suite runs; and values it must refuse.
    examples: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        **{method: {"graph": _GRAPH, "rounds": 40, "checkpoints": [1, 2, 5, 10, 20, 40],
                    "privacy": "network", "method": method}
           for method in ("mvue", "ol", "rizk_ol")},
        # Staircase noise: four variates a value (sweep.components.staircase).
        "staircase": {"graph": _GRAPH, "rounds": 40, "checkpoints": [1, 5, 40],
                      "method": "mvue", "signal": "gaussian", "noise": "staircase"},
        # The graph of a time-varying run is the replicate seed's own (third child).
        "time-varying": {"graph": {**_GRAPH, "seed": 1}, "method": "ol",
                         "privacy": "network", "edge_keep": 0.5, "budgets": "waterfilling",
                         "rounds": 15, "checkpoints": [5, 15]}}
    refused: ClassVar[Mapping[str, Any]] = {"graph.n_nodes": 1}
    schema = ResultSchema(metrics={metric: Metric() for metric in METRICS})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> NetworkCell:
        config = NetworkConfig.from_options(**options)
        spec = config.graph_spec()
        cell = NetworkCell(config, spec, graphs.build(spec))
        if replicates == 0 and not self.has_analytic(cell):
            raise ConfigError("replicates: must be >= 1 unless reference rows apply "
                              "(references=[bound, exact])")
        return cell

    def identity(self, prepared: NetworkCell) -> dict[str, Any]:
        return describe(prepared.config).identity

    def columns(self, prepared: NetworkCell) -> dict[str, Any]:
        network = prepared.network
        return {**describe(prepared.config).columns,
                "graph.n_nodes": network.n, "n_edges": network.n_edges,
                "beta_star": network.beta_star, "max_weight": network.max_weight}

    def cost(self, prepared: NetworkCell) -> float:
        network, config = prepared.network, prepared.config
        per_round = network.n * _NODE_ROUND_SECONDS
        if config.edge_keep is not None:
            per_round += _FAILURES_ROUND_SECONDS + network.n_edges * config.edge_keep * (
                _KEPT_EDGE_SECONDS)
        return config.rounds * per_round + 2e-3

    def shared(self, prepared: NetworkCell) -> dict[Any, float]:
        """The graph's eigendecomposition, once per process (graphs.eigendecomposition),
        where the exact reference needs it: Network DP's noise differs between agents."""
        config = prepared.config
        if "exact" in config.references and config.privacy == "network":
            return {("eigendecomposition", prepared.spec): _EIGH_SECONDS * prepared.network.n**3}
        return {}

    def has_analytic(self, prepared: NetworkCell) -> bool:
        references = prepared.config.references
        return "exact" in references or ("bound" in references and prepared.dynamics.has_bound)

    def run(
        self,
        prepared: NetworkCell,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> pd.DataFrame:
        import pandas as pd

        times = prepared.config.checkpoint_times()
        blocks = []
        if seeds:
            metrics = self._run_recursion(prepared, seeds, times)  # (checkpoints, 3, R)
            count = len(times)
            blocks.append(pd.DataFrame({
                "source": "simulated",
                "replicate": np.repeat(np.asarray(replicate_ids, dtype=np.int64), count),
                "t": np.tile(times, len(seeds)),
                **dict(zip(METRICS, metrics.transpose(2, 0, 1).reshape(-1, 3).T,
                           strict=True)),
            }))
        if analytic:
            blocks.extend(self._references(prepared, times))
        frame = pd.concat(blocks, ignore_index=True)
        frame.insert(0, "method", prepared.config.method)
        frame["replicate"] = frame["replicate"].astype("Int64")
        return frame

    def _run_recursion(self, cell: NetworkCell, seeds: Sequence[np.random.SeedSequence],
                       times: np.ndarray, observe: Callable | None = None,
                       releases: Releases | None = None) -> np.ndarray:
        """The replicates' metrics (:func:`run_recursion`); ``observe`` and ``releases``
        are its hooks for the privacy audit."""
        from ..components import dynamic
        from ..components.noise import draw_unit, kind_code

        config, network, dynamics = cell.config, cell.network, cell.dynamics
        draw, statistic = _signal_draws(config)
        streams = [seed.spawn(2) for seed in seeds]  # signals, noise: separate streams
        signal_rngs = [np.random.default_rng(s) for s, _ in streams]
        noise_rngs = [np.random.default_rng(s) for _, s in streams]
        n, calibration, kind = network.n, cell.calibration, kind_code(config.noise)
        matrix, neighbour = network.matrix(), lambda t: network.a_neighbor[:, None]
        if config.edge_keep is not None:  # Appendix C.1: A(t), a_i(t) of each round
            # The graph stream is each replicate's third child, after signals and noise.
            rounds = dynamic.EdgeFailures(
                graphs.edges(cell.spec), n, config.edge_keep,
                [np.random.default_rng(seed.spawn(1)[0]) for seed in seeds])
            matrix, neighbour = rounds.weights, rounds.neighbour

        def draw_signals(t: int) -> np.ndarray:
            return np.column_stack([draw(rng, n) for rng in signal_rngs])

        def draw_noise(t: int, signals: np.ndarray) -> np.ndarray:
            network_part = dynamics.neighbour_weight(t) * neighbour(t)
            scale = calibration.scale(signals, network_part, dynamics.signal_weight())
            return np.column_stack([draw_unit(rng, kind, n, config.epsilon)
                                    for rng in noise_rngs]) * scale

        return run_recursion(dynamics, matrix, len(seeds), times, draw_signals,
                             draw_noise, statistic, statistic_mean(config), observe, releases)

    def _references(self, cell: NetworkCell, times: np.ndarray) -> list[pd.DataFrame]:
        config, network, dynamics = cell.config, cell.network, cell.dynamics

        def variance(t: int) -> np.ndarray:
            """Expected V[d_{j,t}] of every agent (over the signal it depends on)."""
            if config.privacy == "none":
                return np.zeros(network.n)
            return cell.calibration.expected_variance(
                dynamics.neighbour_weight(t) * network.a_neighbor, dynamics.signal_weight(),
                config.signal_mean, config.signal_sigma)

        rows = []
        if "bound" in config.references and dynamics.has_bound:
            bound = bounds(dynamics, network.n, network.beta_star, float(variance(1).sum()),
                           config.signal_sigma, config.signal_mean, times)
            rows.append(_reference("bound", times, *bound.T))
        if "exact" in config.references:
            if config.privacy != "network":
                # Every agent has the same variance and Σ_j q_ji² = 1: w_i(t) = V[d_t].
                eigenvalues = network.eigenvalues

                def power(t: int) -> float:
                    return float(variance(t)[0])
            else:  # variances differ with a_i: project them on the eigenvectors
                eigenvalues, vectors = graphs.eigendecomposition(cell.spec)
                squared = vectors**2

                def power(t: int) -> np.ndarray:
                    return squared.T @ variance(t)
            cost = exact_privacy_cost(dynamics, eigenvalues, power, times)
            rows.append(_reference("exact", times, np.nan, cost, np.nan))
        return rows


def _reference(source: str, times: np.ndarray, *metrics: Any) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({"source": source, "replicate": pd.NA, "t": times,
                         **dict(zip(METRICS, metrics, strict=True))})


FAMILY = NetworkFamily()
