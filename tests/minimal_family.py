"""The smallest family the engine runs (``tests.minimal_family:FAMILY``): no paper's,
so that a test of the engine depends on no simulation family.

A replicate draws ``samples`` values from N(0, ``scale``²) and records, at each
checkpoint t, the mean of the first t (``mean``: exactly N(0, scale²/t)) and its absolute
error; the analytic rows give their expectations, 0 and ``scale`` √(2 / (π t)) (the mean
absolute value of N(0, scale²/t)).

``pause`` is the seconds a replicate waits before it draws (0 by default): cells that
keep a worker busy for a known time without using a core, for the tests that stop a
driver, a worker or a node while tasks run. It changes no value, only the time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sweep.errors import ConfigError
from sweep.options import ROWS, check_checkpoints, describe, integer, option, plain_options, real
from sweep.results import Metric, ResultSchema


@dataclass(frozen=True)
class MinimalOptions:
    samples: int = 20
    scale: float = 1.0
    checkpoints: tuple[int, ...] = option((5, 20), kind=ROWS)
    pause: float = 0.0


class MinimalFamily:
    name = "minimal"
    version = 1
    options = MinimalOptions
    schema = ResultSchema(metrics={"error": Metric(), "mean": Metric()})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> MinimalOptions:
        prepared = MinimalOptions(**plain_options(MinimalOptions, options))
        integer("samples", prepared.samples, 1)
        if not real(prepared.scale) or not prepared.scale > 0:
            raise ConfigError(f"scale: must be a number > 0; got {prepared.scale!r}")
        if not isinstance(prepared.checkpoints, tuple):
            raise ConfigError(f"checkpoints: must be a list of times; got "
                              f"{prepared.checkpoints!r}")
        check_checkpoints(prepared.checkpoints, prepared.samples, "samples")
        if not real(prepared.pause) or not 0 <= prepared.pause < math.inf:
            raise ConfigError(f"pause: must be a number of seconds >= 0; got {prepared.pause!r}")
        return prepared

    def identity(self, prepared: MinimalOptions) -> dict[str, Any]:
        return describe(prepared).identity

    def columns(self, prepared: MinimalOptions) -> dict[str, Any]:
        return describe(prepared).columns

    def cost(self, prepared: MinimalOptions) -> float:
        return prepared.pause + 1e-5

    def has_analytic(self, prepared: MinimalOptions) -> bool:
        return True

    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        time.sleep(prepared.pause * len(seeds))
        times = np.asarray(prepared.checkpoints)
        means = [np.cumsum(np.random.default_rng(seed).normal(
            0.0, prepared.scale, prepared.samples))[times - 1] / times for seed in seeds]
        errors = [np.abs(mean) for mean in means]
        count = len(times)
        rows: dict[str, list] = {
            "source": ["simulated"] * count * len(errors),
            "replicate": [r for r in replicate_ids for _ in times],
            "t": [int(t) for _ in errors for t in times],
            "error": [float(e) for error in errors for e in error],
            "mean": [float(m) for mean in means for m in mean],
        }
        if analytic:
            rows["source"] += ["analytic"] * count
            rows["replicate"] += [None] * count
            rows["t"] += [int(t) for t in times]
            rows["error"] += [prepared.scale * math.sqrt(2 / (math.pi * t)) for t in times]
            rows["mean"] += [0.0] * count
        rows["method"] = ["mean"] * len(rows["t"])
        return rows


FAMILY = MinimalFamily()
