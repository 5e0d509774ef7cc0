"""Private-ColME as a simulation family of the sweep engine (see :mod:`sweep.family`).

Validating a cell imports neither the compiled kernels nor scipy: :mod:`.simulate`
loads them, and the analytic baselines, when a cell runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import ConfigError
from ..options import describe
from ..results import Metric, ResultSchema
from .config import ColmeConfig
from .simulate import check_baselines, columns

# Agent-steps per second of one core (PM-I, round robin, variance known), and the cost
# of one checkpoint's M² class-error count in agent-steps. The restarting schedule and an
# unknown variance each about double an agent-step (the variance not on the scenario's
# streams), PM-II adds half. Measured with
# benchmarks/bench_estimates.py on the presets (warm numba cache, 2 cores: within a factor
# 2 on each); used to size tasks and to estimate a command's time, never in a result.
_AGENT_STEPS_PER_SECOND = 2e7
_CHECKPOINT_PAIR_COST = 0.5
_TABLE_SECONDS = 2e-3


@dataclass(frozen=True)
class ColmeOptions(ColmeConfig):
    """The simulator's options and the baselines tabulated next to Algorithm 1."""

    baselines: tuple[str, ...] = ("local", "ideal")


@dataclass(frozen=True)
class ColmeCell:
    """A validated Private-ColME cell: the simulator's options and the baselines asked for."""

    config: ColmeConfig
    baselines: tuple[str, ...]


class ColmeFamily:
    """Algorithm 1 of the Private-ColME paper and its local, ideal and oracle baselines."""

    name = "colme"
    # 2: replicate r draws from a stream whose key no longer hashes the replicate count
    # (sweep.plan.STREAM_VERSION 2), so that stored cells are extended with more
    # replicates: new cell ids and random streams, the same computation.
    version = 2
    options = ColmeOptions
    #: Small cells (milliseconds each), one per code path that draws or splits its random
    #: numbers differently, which the conformance suite runs; and values it must refuse.
    examples: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "default": {"n_agents": 5, "t_max": 60, "checkpoints": 4},
        "oracle": {"n_agents": 5, "t_max": 60, "checkpoints": 4,
                   "baselines": ["local", "ideal", "oracle"]},
        # Staircase noise: four variates a p-sum noise (sweep.components.noise).
        "staircase": {"n_agents": 5, "t_max": 60, "checkpoints": 4, "noise": "staircase"}}
    refused: ClassVar[Mapping[str, Any]] = {"epsilon": -1.0, "n_agents": 0}
    # The class-error rates are proportions of the M(M − 1) ordered pairs within each
    # replicate, summarized like the MSE by their spread over replicates (mean ± SE):
    # a Wilson interval on the replicate count would ignore the pairs' pooling.
    schema = ResultSchema(metrics={"mse": Metric(), "false_exclusion": Metric(),
                                   "false_inclusion": Metric()})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> ColmeCell:
        options = dict(options)
        baselines = check_baselines(options.pop("baselines", ColmeOptions.baselines))
        config = ColmeConfig.from_options(**options).normalized("oracle" in baselines)
        config.check_guarantee()  # a weaker guarantee than the options say runs if allowed
        cell = ColmeCell(config, baselines)
        if replicates == 0 and not self.has_analytic(cell):
            raise ConfigError("replicates: must be >= 1 unless analytic baselines are requested")
        if "oracle" in baselines:
            config.check_oracle()
        return cell

    def identity(self, prepared: ColmeCell) -> dict[str, Any]:
        return {**describe(prepared.config).identity,
                "baselines": list(prepared.baselines)}

    def columns(self, prepared: ColmeCell) -> dict[str, Any]:
        return {**describe(prepared.config).columns,
                "baselines": ",".join(prepared.baselines)}

    def cost(self, prepared: ColmeCell) -> float:
        config = prepared.config
        steps = config.n_agents * config.t_max * (
            (2.0 if config.variance != "known" and config.stream == "cell" else 1.0)
            * (1.5 if config.mechanism == "pm2" else 1.0)
            * (2.0 if config.schedule == "rrr" else 1.0))
        checkpoints = len(config.checkpoint_times()) * config.n_agents**2
        return (steps + _CHECKPOINT_PAIR_COST * checkpoints) / _AGENT_STEPS_PER_SECOND + (
            _TABLE_SECONDS
        )

    def has_analytic(self, prepared: ColmeCell) -> bool:
        return bool(prepared.baselines)

    def run(
        self,
        prepared: ColmeCell,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> dict[str, np.ndarray]:
        return columns(prepared.config, seeds, prepared.baselines, replicate_ids, analytic)


FAMILY = ColmeFamily()
