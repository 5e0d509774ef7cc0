"""Collaborative mean estimation on a sparse graph as a simulation family (see
:mod:`sweep.family`): C-ColME and B-ColME (Galante, Neglia & Leonardi, AAAI 2025), their
oracles, the local and ideal baselines, and the platform's private variants.

Rows, per replicate, estimator and checkpoint t (samples per agent; ``source =
"simulated"``): ``mse``, the mean over agents of (estimate − own class mean)²; ``within``,
the fraction of agents within ``accuracy`` of their mean (the reference's metric);
``wrong_links`` and ``lost_links``, the directed entries kept to another class and
excluded within the class (the method's rows only). ``method`` is the option's method,
``local``, ``<method>_oracle`` or ``ideal``.

Preparing a cell validates its options and, when the cell fixes its graph, builds it
(numpy, scipy); the compiled kernels load when a cell runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import ConfigError
from ..options import describe
from ..results import Metric, ResultSchema
from .config import DecentralizedConfig
from .graph import Graph, build

# Seconds per agent-step of one replicate, from benchmarks/bench_decentralized.py on 2
# shared cores, for sizing tasks only (results never depend on them).
_SECONDS = {"c_colme": 8e-8, "b_colme": 5e-7, "local": 5e-9}
_CHECKPOINT_SECONDS = 2e-8  # per agent and checkpoint (scores, the ideal)


@dataclass(frozen=True)
class DecentralizedCell:
    """A validated cell: its options and, if the cell fixes it, its graph."""

    config: DecentralizedConfig
    graph: Graph | None


class DecentralizedFamily:
    """C-ColME and B-ColME on a sparse graph, with their oracles and baselines."""

    name = "decentralized"
    # 2: the privacy budget (ε, δ) is the top-level epsilon and delta, as in every family
    # (privacy.epsilon, privacy.delta before), and the neighbour test's failure probability
    # is decision.failure_probability (decision.delta before): renamed options, so new
    # cell ids and random streams (the streams' key hashes the options by name); the
    # simulation is unchanged (the same seeds give the same rows, bit for bit).
    # Version 2 also keys the streams without the replicate count (STREAM_VERSION 2).
    version = 2
    #: Options (columns) renamed by version, old: new; analysis.load reads older files so.
    renamed: ClassVar[Mapping[int, Mapping[str, str]]] = {
        2: {"privacy.epsilon": "epsilon", "privacy.delta": "delta",
            "decision.delta": "decision.failure_probability"}}
    options = DecentralizedConfig
    #: Small cells (milliseconds each), one per code path that draws or splits its random
    #: numbers differently, which the conformance suite runs; and values it must refuse.
    examples: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "c_colme": {"graph": {"n_nodes": 20, "degree": 4}, "t_max": 10, "checkpoints": 2},
        "b_colme": {"graph": {"n_nodes": 20, "degree": 4}, "t_max": 10, "checkpoints": 2,
                    "method": "b_colme"},
        "private": {"graph": {"n_nodes": 20, "degree": 4}, "t_max": 10, "checkpoints": 2,
                    "samples": "bernoulli", "privacy": {"mechanism": "pm2", "noise": "laplace"}},
        "staircase": {"graph": {"n_nodes": 20, "degree": 4}, "t_max": 10, "checkpoints": 2,
                      "samples": "bernoulli",
                      "privacy": {"mechanism": "pm1", "noise": "staircase"}}}
    refused: ClassVar[Mapping[str, Any]] = {"t_max": 0, "graph.degree": 0, "epsilon": 0.0,
                                            "decision.failure_probability": 1.0}
    schema = ResultSchema(metrics={"mse": Metric(), "within": Metric(),
                                   "wrong_links": Metric(), "lost_links": Metric()})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> DecentralizedCell:
        config = DecentralizedConfig.from_options(**options)
        if replicates < 1:
            raise ConfigError("replicates: must be >= 1 (the family has no analytic rows)")
        graph = None
        if config.graph.fixed:
            graph = build(config.graph, None)
            if config.method != "local":
                count, _ = graph.n_components()
                if count > 1:
                    raise ConfigError(
                        f"graph: must be connected for method={config.method}; the "
                        f"{config.graph.kind} graph has {count} connected components")
        n_nodes = graph.n if graph is not None else config.graph.n_nodes
        if config.graph.n_nodes is None:  # an edge list: its size is known now
            config.check_arithmetic(n_nodes)
        # A weaker guarantee than the options say runs only if acknowledged.
        config.check_guarantee(n_nodes)
        return DecentralizedCell(config, graph)

    def identity(self, prepared: DecentralizedCell) -> dict[str, Any]:
        return describe(prepared.config).identity

    def columns(self, prepared: DecentralizedCell) -> dict[str, Any]:
        columns = describe(prepared.config).columns
        if prepared.graph is not None:
            columns = {**columns, "graph.n_nodes": prepared.graph.n}
        return columns

    def cost(self, prepared: DecentralizedCell) -> float:
        config = prepared.config
        n = prepared.graph.n if prepared.graph is not None else config.graph.n_nodes
        checkpoints = len(config.checkpoint_times())
        return n * (config.t_max * _SECONDS[config.method]
                    + checkpoints * _CHECKPOINT_SECONDS) + 1e-3

    def has_analytic(self, prepared: DecentralizedCell) -> bool:
        return False

    def run(
        self,
        prepared: DecentralizedCell,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> dict[str, np.ndarray]:
        from .simulate import columns

        return columns(prepared.config, seeds, replicate_ids, prepared.graph)


FAMILY = DecentralizedFamily()
