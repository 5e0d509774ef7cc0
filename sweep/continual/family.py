"""Continual mean estimation under user-level DP as a simulation family.

Rows per replicate and checkpoint t:

* ``source = "simulated"``: ``abs_error`` ‖μ̂_t − μ‖_∞ (|μ̂_t − μ| in one dimension),
  ``error`` μ̂_t − μ of the first coordinate, ``max_count`` M_t, ``n_users_seen``,
  ``samples_used`` (the samples μ̂_t averages, ``total``), ``clipped`` (elements the
  projection changed so far, over the coordinates), ``active_levels`` (Alg. 6: binary
  mechanisms active), ``diversity`` (1 where the diversity condition (11) holds) and
  ``within_bound`` (1 where ``abs_error`` is within the method's bound, where its
  theorem's conditions hold; missing elsewhere);
* ``source = "bound"``: ``abs_error`` is the method's bound at t and the replicate's
  M_t (:mod:`sweep.continual.bounds`), and, as ``method = "lower_bound"``, Sec. 5's
  lower bound 1/√t + √M_t/(tε₀);
* ``source = "activation"`` (Alg. 6): one row per level ℓ that activated, at its time
  t, with ``level`` ℓ and ``median`` μ̃_ℓ (first coordinate).

Cell columns add ``levels`` (L, for Algs 4–6), ``coordinate_epsilon`` (ε₀), ``prior`` (μ̃) and
``prior_assumption`` (whether |μ̃ − μ| <= 1/√m).

The options validate without the compiled kernels: preparing a cell computes each
method's parameters (:mod:`.parameters`, which takes the kernel's mode codes and the
tree's depth from the compiled modules), running it imports the rest and pandas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import ConfigError
from ..options import TAIL, describe, magnitude_limit
from ..results import PROPORTION, Metric, ResultSchema
from .config import ContinualConfig

if TYPE_CHECKING:
    import pandas as pd

    from .parameters import Parameters

METRICS = {"abs_error": Metric(), "error": Metric(), "max_count": Metric(),
           "n_users_seen": Metric(), "samples_used": Metric(), "clipped": Metric(),
           "active_levels": Metric(), "diversity": Metric(PROPORTION),
           "within_bound": Metric(PROPORTION), "level": Metric(), "median": Metric()}
#: The methods with levels ℓ = 0..L (exponential withhold-release).
LEVELLED = ("alg4", "alg5", "alg6")
# Seconds per stream element and coordinate pass (the arrivals count as one), by arrival
# order: the orders that revisit users at random reach the per-user arrays out of cache.
# Measured with benchmarks/bench_estimates.py on the presets (warm numba cache, 2 cores);
# used to size tasks and to estimate a command's time.
_ELEMENT_SECONDS = {"contiguous": 2.2e-8, "round_robin": 3.1e-8, "uniform": 3.7e-8,
                    "staggered": 4e-8, "few_heavy": 4e-8, "zipf": 1e-7, "one_heavy": 1.3e-7}
#: How much longer a method takes than the plain stream above (Alg. 6's two estimators).
_METHOD_FACTOR = {"alg6": 1.4}


@dataclass(frozen=True)
class ContinualCell:
    """A validated cell: its options, each coordinate's parameters, the diversity
    condition's thresholds and the checkpoints."""

    config: ContinualConfig
    parameters: Parameters
    need: np.ndarray
    times: np.ndarray


class ContinualFamily:
    """Algorithms 2–6 of the continual user-level mean paper and two strawmen."""

    name = "continual"
    # 2: the arrival order is the nested group order (columns order.kind,
    # order.zipf_exponent, ... for order, zipf_exponent, ...), every option in the
    # identity (noise_scale too); new cell ids and random streams.
    # 3: delta is the DP δ as in every family: the failure probability of the guarantees
    # (delta) is failure_probability, advanced composition's δ̃ (composition_delta) is
    # delta. Renamed options only, the same computation: new cell ids, and new random
    # streams (a stream's key hashes the options by name), so the noise drawn differs.
    # Version 3 also keys the streams without the replicate count (STREAM_VERSION 2).
    version = 3
    #: The options (and so columns) each version renamed, old: new; analysis.load reads
    #: files of earlier versions under the new names (sweep.family.current_names).
    renamed: ClassVar[Mapping[int, Mapping[str, str]]] = {
        2: {"order": "order.kind", **{name: f"order.{name}" for name in (
            "zipf_exponent", "light_samples", "heavy_users")}},
        3: {"delta": "failure_probability", "composition_delta": "delta"}}
    options = ContinualConfig
    #: Small cells (milliseconds each), one per code path that draws or splits its random
    #: numbers differently, which the conformance suite runs; and values it must refuse.
    examples: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "alg6": {"n_users": 20, "max_samples": 8, "t_max": 160, "method": "alg6",
                 "epsilon": 20.0, "checkpoints": 12, "dimension": 2},
        # Staircase noise: four variates a p-sum noise (sweep.components.noise).
        "staircase": {"n_users": 20, "max_samples": 8, "t_max": 160, "method": "alg5",
                      "checkpoints": 12, "noise": "staircase"}}
    refused: ClassVar[Mapping[str, Any]] = {"epsilon": 0.0, "order.heavy_users": 2}
    schema = ResultSchema(metrics=METRICS, constants={
        "levels": "int64", "coordinate_epsilon": "float64", "prior": "float64",
        "prior_assumption": "bool"})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> ContinualCell:
        from .parameters import diversity_need, parameters

        config = ContinualConfig.from_options(**options)
        config.check_guarantee()
        if replicates < 1:
            raise ConfigError(f"replicates: must be an integer >= 1; got {replicates!r}")
        try:
            found = parameters(config)
        except OverflowError:
            found = None
        # A release sums up to t_max samples and noises: they must stay finite.
        limit = magnitude_limit(config.t_max) / 2.0
        if found is None or not TAIL * np.max(found.eta, initial=0.0) <= limit:
            raise ConfigError(f"epsilon: must be large enough for noise scales of at most "
                              f"{limit / TAIL:.3g} (the sums and squares of a run's "
                              f"{config.t_max:,} values in float64 must stay finite); got "
                              f"{config.epsilon!r}")
        return ContinualCell(config, found, diversity_need(config, found.epsilon),
                             config.checkpoint_times())

    def identity(self, prepared: ContinualCell) -> dict[str, Any]:
        return describe(prepared.config).identity

    def columns(self, prepared: ContinualCell) -> dict[str, Any]:
        config = prepared.config
        # L only where the method has levels (Algs 4–6): a column that differs between
        # methods would split their curves into panels.
        levels = prepared.parameters.levels - 1 if config.method in LEVELLED else None
        return {**describe(config).columns, "levels": levels,
                "coordinate_epsilon": prepared.parameters.epsilon, "prior": config.prior,
                "prior_assumption": config.prior_assumption}

    def cost(self, prepared: ContinualCell) -> float:
        config = prepared.config
        element = _ELEMENT_SECONDS[config.order.kind] * _METHOD_FACTOR.get(config.method, 1.0)
        return config.t_max * (config.dimension + 1) * element + 1e-3

    def has_analytic(self, prepared: ContinualCell) -> bool:
        return False

    def run(self, prepared: ContinualCell, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> pd.DataFrame:
        import pandas as pd

        blocks = [self._rows(prepared, seed, r) for seed, r in zip(seeds, replicate_ids,
                                                                   strict=True)]
        return pd.concat(blocks, ignore_index=True)

    def _rows(self, cell: ContinualCell, seed: np.random.SeedSequence,
              replicate_id: int) -> pd.DataFrame:
        import pandas as pd

        from .bounds import bound, conditions, lower_bound
        from .simulate import replicate

        config, p, times = cell.config, cell.parameters, cell.times
        run = replicate(config, p, cell.need, times, seed, replicate_id)
        abs_error = np.abs(run.estimates - config.mu).max(axis=0)
        # The theorems bound the error under Laplace noise only (the staircase: no bound).
        laplace = config.noise == "laplace"
        applies = conditions(config, run.diverse) & laplace
        method_bound = (bound(config, p, times, run.max_count) if laplace
                        else np.full(len(times), np.nan))
        active = np.full(len(times), np.nan)
        if config.method == "alg6":
            always = int((p.threshold <= 0).sum())
            activated = run.activation[run.activation > 0]
            active = always + (activated[None, :] <= times[:, None]).sum(axis=1)
        simulated = {
            "method": config.method, "source": "simulated", "t": times,
            "abs_error": abs_error, "error": run.estimates[0] - config.mu,
            "max_count": run.max_count, "n_users_seen": run.seen,
            "samples_used": run.used, "clipped": run.clipped, "active_levels": active,
            "diversity": run.diverse.astype(float),
            "within_bound": np.where(applies, abs_error <= method_bound, np.nan),
        }
        references = [
            *([{"method": config.method, "source": "bound", "t": times,
                "abs_error": method_bound}] if laplace else []),
            {"method": "lower_bound", "source": "bound", "t": times,
             "abs_error": lower_bound(times, run.max_count, p.epsilon)},
        ]
        for reference in references:
            reference.update(max_count=run.max_count, n_users_seen=run.seen)
        levels = np.flatnonzero(run.activation > 0)
        activations = {"method": config.method, "source": "activation",
                       "t": run.activation[levels], "level": levels.astype(float),
                       "median": run.priors[levels]}
        frames = [pd.DataFrame(block) for block in (simulated, *references, activations)]
        frame = pd.concat(frames, ignore_index=True)
        for metric in METRICS:
            if metric not in frame:
                frame[metric] = np.nan
        frame.insert(2, "replicate", replicate_id)
        return frame[["method", "source", "replicate", "t", *METRICS]]


FAMILY = ContinualFamily()
