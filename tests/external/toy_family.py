"""A toy family that lives outside the package, as a user's would (see README, "A new
family"): coin flips at several nodes, with an extra index column ``node`` and a
proportion metric.

Node i flips a coin of bias ``p`` ``t`` times; at each checkpoint t it reports its
estimate's absolute error (continuous) and whether the normal 95% interval
p̂ ± 1.96 √(p̂(1 − p̂)/t) covers ``p`` (an indicator: a proportion metric, summarized with
a Wilson interval). An analytic row per node gives E|p̂ − p| ≈ √(2p(1 − p)/(πt)).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from sweep.errors import ConfigError
from sweep.options import ROWS, check_checkpoints, describe, integer, option, plain_options, real
from sweep.results import PROPORTION, Metric, ResultSchema


@dataclass(frozen=True)
class CoinOptions:
    n_nodes: int = 3
    p: float = 0.3
    flips: int = 200
    checkpoints: tuple[int, ...] = option((10, 50, 200), kind=ROWS)  # the t column


class CoinFamily:
    name = "toy"
    version = 1
    options = CoinOptions
    schema = ResultSchema(index={"node": pa.int64()},
                          metrics={"error": Metric(), "covered": Metric(PROPORTION)})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> CoinOptions:
        # Unknown keys are refused, lists become tuples (the dataclass is frozen).
        prepared = CoinOptions(**plain_options(CoinOptions, options))
        integer("n_nodes", prepared.n_nodes, 1)
        integer("flips", prepared.flips, 1)
        if not real(prepared.p) or not 0 < prepared.p < 1:
            raise ConfigError(f"p: must be in (0, 1); got {prepared.p!r}")
        times = prepared.checkpoints
        if not isinstance(times, tuple):
            raise ConfigError(f"checkpoints: must be a list of times; got {times!r}")
        check_checkpoints(times, prepared.flips, "flips")
        return prepared

    def identity(self, prepared: CoinOptions) -> dict[str, Any]:
        return describe(prepared).identity

    def columns(self, prepared: CoinOptions) -> dict[str, Any]:
        return describe(prepared).columns

    def cost(self, prepared: CoinOptions) -> float:
        return 1e-4

    def has_analytic(self, prepared: CoinOptions) -> bool:
        return True

    def run(self, prepared: CoinOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        rows: dict[str, list] = {k: [] for k in ("method", "source", "replicate", "t", "node",
                                                  "error", "covered")}

        def add(source: str, replicate: int | None, t: int, node: int, error: float,
                covered: float) -> None:
            for key, value in zip(rows, ("coin", source, replicate, t, node, error, covered),
                                  strict=True):
                rows[key].append(value)

        times = np.asarray(prepared.checkpoints)
        for replicate, seed in zip(replicate_ids, seeds, strict=True):
            flips = np.random.default_rng(seed).random((prepared.n_nodes, prepared.flips))
            heads = np.cumsum(flips < prepared.p, axis=1)[:, times - 1]
            estimate = heads / times
            half = 1.96 * np.sqrt(estimate * (1 - estimate) / times)
            for node in range(prepared.n_nodes):
                for j, t in enumerate(times):
                    add("simulated", replicate, int(t), node,
                        abs(estimate[node, j] - prepared.p),
                        float(abs(estimate[node, j] - prepared.p) <= half[node, j]))
        if analytic:
            for node in range(prepared.n_nodes):
                for t in times:
                    add("analytic", None, int(t), node,
                        math.sqrt(2 * prepared.p * (1 - prepared.p) / (math.pi * t)), math.nan)
        return rows


FAMILY = CoinFamily()
