"""DP distributed inference as a simulation family (see :mod:`sweep.family`).

Rows, per replicate (agent averages) and checkpoint t (an iteration of the belief
exchange), by ``source``:

* ``simulated``: ``type_i_error`` (Θ̂ ⊄ Θ*), ``type_ii_error`` (Θ* ⊄ Θ̂) and
  ``exact_recovery`` (Θ̂ = Θ*; online, θ̂ = θ°) of the returned set, ``tvd_truth`` and
  ``tvd_private``, the total variation distance of the beliefs to the ground truth
  (uniform on Θ*, or the point mass on θ°) and to the non-private run on the same data;
  for tests, ``reject``, ``statistic`` and ``p_value``;
* ``belief``: the agents' average belief in each ``state`` (an index column; "" on the
  other rows);
* ``bound`` (no replicate, at t = T): the theorem's guarantee on the metric it bounds
  (Thm 4.2: type I <= 2α for GM, type II <= 2(1 − β) for AM; Thm 4.3: |Θ̄|e^{−2Kπ₁²} and
  |Θ*|e^{−2Kπ₂²}; Thm 4.7: exact recovery >= 1 − 2η; Prop. 4.6: rejection <= α under the
  null), where the theorem applies: its K and T run, Thm 4.7 on a synthetic stream,
  Prop. 4.6 on synthetic data drawn from the null;
* ``exact`` (Sec. 2 toy, no replicate): the power (or size) of eqs (1) and of the exact
  Laplace test, with ``critical_epsilon`` ε*; ``method = "individual"``: β_IND.

Cell columns add ``rounds_k`` K and ``iterations_t`` T (the rounds and iterations run),
``sensitivity_bound`` Δ, ``noise_scale`` b, ``a_star`` (the SLEM of (A + I)/2) and
``mle_set`` (Θ*, of the data for the survival models, of the expected log-likelihoods
otherwise).

The family's options validate without its data or runs: :mod:`.simulate` (pandas, the
data sets, the graph) is imported to prepare a cell, the Sec. 2 toy to tabulate it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import ConfigError
from ..options import describe
from ..results import PROPORTION, Metric, ResultSchema
from .config import TOY_METHODS, InferenceConfig
from .parameters import two_threshold_bound

if TYPE_CHECKING:
    import pandas as pd

    from .simulate import Metrics, Shared

METRICS = {
    "type_i_error": Metric(PROPORTION), "type_ii_error": Metric(PROPORTION),
    "exact_recovery": Metric(PROPORTION), "tvd_truth": Metric(), "tvd_private": Metric(),
    "reject": Metric(PROPORTION), "statistic": Metric(), "p_value": Metric(),
    "belief": Metric(), "critical_epsilon": Metric(),
}
# Seconds per replicate, to size tasks and estimate a command's time
# (benchmarks/bench_inference.py, one core; the toy's decision and Rizk et al.'s score
# from the presets, benchmarks/bench_estimates.py): a multiply-add of the MLE
# algorithms' block (n² per agent-state-round column and iteration), an
# agent-state-round of online learning (draws and compiled kernel), a centre's score
# evaluation of Rizk et al. per iteration (amortized over a block of replicates), a
# centre's rounds of a Cox trial online (one batched partial likelihood), and the Sec. 2
# toy's one decision (its draws and test).
_MULTIPLY_SECONDS = 2e-9
_ONLINE_SECONDS = 2e-7
_SCORE_SECONDS = 1.2e-5
_BATCH_SECONDS = 5e-4
_DECISION_SECONDS = 1.8e-4

@dataclass(frozen=True)
class InferenceCell:
    """A validated cell: the configuration and what its replicates share."""

    config: InferenceConfig
    cell: Shared


class InferenceFamily:
    """Distributed MLE, hypothesis tests and online learning under DP (Papachristou &
    Rahimian, "Differentially Private Distributed Inference")."""

    name = "inference"
    # 2: the signal model and the data set are the nested groups model and dataset
    # (columns model.kind, model.states, model.truth, ..., dataset.kind, dataset.arm, ...
    # for model, states, truth, ..., dataset, arm, ...), every option in the identity
    # (arrival_days, rizk_start, rizk_clip too); new cell ids and random streams.
    # 3: the streams' key without the replicate count (sweep.plan.STREAM_VERSION 2):
    # new cell ids and random streams, the same computation.
    version = 3
    #: Columns each version renamed (old: new): older files are read under the new names.
    renamed: ClassVar[Mapping[int, Mapping[str, str]]] = {2: {
        **{name: f"model.{name}" for name in ("states", "truth", "sigma", "samples", "rate",
                                               "ties", "bound_theta", "bound_x")},
        **{name: f"dataset.{name}" for name in ("arm", "csv_path", "duration_col",
                                                 "event_col", "covariate_col", "split",
                                                 "split_seed", "patients")},
        "model": "model.kind", "dataset": "dataset.kind"}}
    options = InferenceConfig
    #: Small cells (milliseconds each), one per code path that draws or splits its random
    #: numbers differently, which the conformance suite runs; and values it must refuse.
    # Every method; the Laplace toy's null threshold comes from the cell's stream, the
    # rest from each replicate's.
    examples: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "mle": {"method": "mle", "model": {"kind": "bernoulli"}},
        "gm": {"method": "gm"},
        "am-bernoulli": {"method": "am", "model": {"kind": "bernoulli"}},
        "threshold_1": {"method": "threshold_1", "model": {"kind": "gaussian"}},
        "threshold_2": {"method": "threshold_2"},
        "ol": {"method": "ol", "model": {"kind": "bernoulli"}, "iterations": 300},
        "private_ol": {"method": "private_ol", "model": {"kind": "gaussian"},
                       "iterations": 300},
        "private_ol-cox": {"method": "private_ol"},
        "test": {"method": "test", "model": {"kind": "bernoulli"}},
        "test-cox": {"method": "test"},
        "centralized": {"method": "centralized", "model": {"kind": "gaussian"}},
        "rizk": {"method": "rizk"},
        "rizk-notebook": {"method": "rizk", "rizk_start": "uniform", "rizk_clip": "l1"},
        # Staircase noise: four variates a value, at each draw's budget.
        "gm-staircase": {"method": "gm", "noise": "staircase"},
        "private_ol-staircase": {"method": "private_ol", "model": {"kind": "bernoulli"},
                                 "iterations": 300, "noise": "staircase"},
        "rr": {"method": "rr", "model": {"kind": "bernoulli", "states": [0.3, 0.7]}},
        "laplace": {"method": "laplace", "model": {"kind": "bernoulli", "states": [0.3, 0.7]},
                    "null_draws": 1000},
    }
    refused: ClassVar[Mapping[str, Any]] = {"epsilon": -1.0, "model.states": [0.5],
                                            "dataset.arm": 0}
    schema = ResultSchema(metrics=METRICS, index={"state": "string"}, constants={
        "rounds_k": "int64", "iterations_t": "int64", "sensitivity_bound": "float64",
        "noise_scale": "float64", "a_star": "float64", "mle_set": "string"})

    def prepare(self, options: Mapping[str, Any], replicates: int) -> InferenceCell:
        from . import simulate

        config = InferenceConfig.from_options(**options)
        cell = simulate.prepare(config)
        if replicates < 1 and not self.has_analytic(InferenceCell(config, cell)):
            raise ConfigError("replicates: must be an integer >= 1 (this method has no "
                              f"replicate-free rows); got {replicates!r}")
        return InferenceCell(config, cell)

    def identity(self, prepared: InferenceCell) -> dict[str, Any]:
        return describe(prepared.config).identity

    def columns(self, prepared: InferenceCell) -> dict[str, Any]:
        cell = prepared.cell
        return {**describe(prepared.config).columns, "rounds_k": cell.rounds,
                "iterations_t": cell.iterations,
                "sensitivity_bound": cell.sensitivity, "noise_scale": cell.scale,
                "a_star": cell.a_star,
                "mle_set": ",".join(cell.labels[i] for i in np.flatnonzero(cell.star))}

    def cost(self, prepared: InferenceCell) -> float:
        cell, method = prepared.cell, prepared.config.method
        n, states, rounds, iterations = cell.n, len(cell.states), cell.rounds, cell.iterations
        if method in TOY_METHODS:
            return _DECISION_SECONDS
        if method in ("ol", "private_ol"):
            trial = n * _BATCH_SECONDS if cell.centres is not None else 0.0
            return trial + n * states * iterations * _ONLINE_SECONDS
        if method == "rizk":
            return n * iterations * _SCORE_SECONDS
        return n * n * (rounds + 1) * states * iterations * _MULTIPLY_SECONDS + 1e-4

    def has_analytic(self, prepared: InferenceCell) -> bool:
        return prepared.config.method in TOY_METHODS or _guaranteed(prepared.config)

    def run(self, prepared: InferenceCell, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> pd.DataFrame:
        import pandas as pd

        from . import simulate

        cell = prepared.cell
        frames = []
        if seeds:
            frames += _simulated(cell, simulate.run(cell, seeds, replicate_ids), replicate_ids)
        if analytic:
            frames.append(_references(cell))
        frame = pd.concat(frames, ignore_index=True)
        for metric in METRICS:
            if metric not in frame:
                frame[metric] = np.nan
        frame["replicate"] = frame["replicate"].astype("Int64")
        return frame[["method", "source", "replicate", "t", "state", *METRICS]]


def _simulated(cell: Shared, metrics: Metrics, replicate_ids: Sequence[int]
               ) -> list[pd.DataFrame]:
    """The simulated rows (one per replicate and checkpoint) and the belief rows (one per
    replicate, checkpoint and state)."""
    import pandas as pd

    method = cell.config.method
    times = cell.times if method not in ("test", *TOY_METHODS) else np.array(
        [cell.iterations])
    count = len(replicate_ids)
    replicate = np.repeat(np.asarray(replicate_ids, dtype=np.int64), len(times))
    scalar = {k: v.reshape(-1) for k, v in metrics.items() if k != "belief"}
    frames = [pd.DataFrame({"method": method, "source": "simulated", "replicate": replicate,
                            "t": np.tile(times, count), "state": "", **scalar})]
    if "belief" in metrics:
        belief = metrics["belief"]  # (R, C, |Θ|)
        states = len(cell.labels)
        frames.append(pd.DataFrame({
            "method": method, "source": "belief", "replicate": np.repeat(replicate, states),
            "t": np.repeat(np.tile(times, count), states),
            "state": np.tile(cell.labels, count * len(times)), "belief": belief.reshape(-1)}))
    return frames


def _guaranteed(config: InferenceConfig) -> bool:
    """Whether a theorem bounds the cell's error: its method has a guarantee, run with the
    theorem's K and T (Thm 4.7 needs a stream with a rate: not a Cox trial's patients;
    Prop. 4.6 bounds the rejection rate under the null, which only synthetic data are
    known to follow)."""
    method = config.method
    if config.rounds is not None or config.iterations is not None:
        return False
    model = config.model
    if method == "private_ol":
        return model.kind in ("bernoulli", "gaussian")
    if method == "test":
        return model.kind in ("bernoulli", "gaussian") and model.truth == model.states[0]
    return method in ("am", "gm", "threshold_1", "threshold_2")


def _references(cell: Shared) -> pd.DataFrame:
    """The replicate-free rows: the theorems' guarantees (``bound``) and, for the Sec. 2
    toy, the exact power and critical budget (``exact``)."""
    import pandas as pd

    from . import toy

    config, method = cell.config, cell.config.method
    row: dict[str, Any] = {"method": method, "replicate": pd.NA, "t": cell.iterations,
                           "state": ""}
    if method in TOY_METHODS:
        n, p = cell.n, float(cell.states[1])
        under_h1 = config.model.truth == cell.states[1]
        if method == "rr":
            power = toy.rr_power if under_h1 else toy.rr_size
            value = float(power(n, p, config.epsilon, config.alpha))
            critical = toy.rr_critical_epsilon(n, p, config.alpha)
        else:
            value = (toy.laplace_power(n, p, config.epsilon, config.alpha) if under_h1
                     else config.alpha)
            critical = toy.laplace_critical_epsilon(n, p, config.alpha)
        individual = float(toy.individual_power(p, config.alpha)) if under_h1 else (
            config.alpha)
        return pd.DataFrame([
            {**row, "source": "exact", "reject": value, "critical_epsilon": critical},
            {**row, "method": "individual", "source": "exact", "reject": individual}])
    mle_states = int(cell.star.sum())
    others = len(cell.star) - mle_states
    bound: dict[str, float] = {}
    if method == "gm":
        bound["type_i_error"] = min(1.0, 2 * config.alpha)
    elif method == "am":
        bound["type_ii_error"] = min(1.0, 2 * (1 - config.beta))
    elif method == "threshold_1":
        bound["type_i_error"] = min(1.0, two_threshold_bound(
            method, mle_states, others, cell.rounds, config.pi_1, config.pi_2))
    elif method == "threshold_2":
        bound["type_ii_error"] = min(1.0, two_threshold_bound(
            method, mle_states, others, cell.rounds, config.pi_1, config.pi_2))
    elif method == "private_ol":
        bound["exact_recovery"] = max(0.0, 1 - 2 * max(config.alpha, 1 - config.beta))
    elif method == "test":
        bound["reject"] = config.alpha
    return pd.DataFrame([{**row, "source": "bound", **bound}])


FAMILY = InferenceFamily()

__all__ = ["FAMILY", "METRICS", "InferenceFamily"]
