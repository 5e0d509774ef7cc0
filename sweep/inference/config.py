"""Options of a DP distributed inference simulation and their validation.

Defaults: the paper's Sec. 14.1 experiment, the ACTG 175 trial's ddI arm against ZDV split
evenly among n = 5 centres on a complete graph, Θ = {0, −log 2} (log hazard ratios), ε = 1,
α = 1 − β = 0.05, the GM estimator of Algorithm 1. Every choice the paper leaves open is an
option documented here and in ``sweep/inference/__init__.py`` (the errata).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..components.graphs import GraphConfig
from ..options import (
    READING,
    ROWS,
    check_checkpoints,
    checkpoint_times,
    choice,
    fail,
    in_range,
    integer,
    option,
    plain_options,
    real,
)

#: Signal models (``model``): states are values of p, means with a known σ, log hazard
#: ratios of a proportional-hazards partial likelihood (eq. (3)), or ACTG 175's treatment
#: arms, each scored by its generalized likelihood ratio against ZDV (Sec. 5, Fig. 5).
MODELS = ("bernoulli", "gaussian", "cox", "treatments")
#: The models whose data are a trial's patients.
SURVIVAL = ("cox", "treatments")
#: Where a Cox model's patients come from.
DATASETS = ("actg175", "csv")
SPLITS = ("even", "skewed")
TIES = ("breslow", "efron")
#: ``printed``: eq. (7) (max_i n_i g_i) and Sec. 12 (2 B_θ B_x) as printed; ``signal``:
#: one signal (one patient) changed, with a bound that holds (see the errata).
SENSITIVITIES = ("printed", "signal")
#: The algorithms (``method``), by the paper's names.
MLE_METHODS = ("mle", "am", "gm", "threshold_1", "threshold_2")
OL_METHODS = ("ol", "private_ol")
TOY_METHODS = ("rr", "laplace")
METHODS = (*MLE_METHODS, *OL_METHODS, "test", "rizk", "centralized", *TOY_METHODS)
TESTS = ("composite", "simple")
#: How K is chosen when ``rounds`` is not given: the theorem's K with the data's
#: |Θ*| (``theorem``), or the bound that holds for any MLE set (``agnostic``, the remark
#: after Thm 4.1 and after Thm 4.3).
ROUND_RULES = ("theorem", "agnostic")
#: The sets' counting of Alg. 2 and the AM/GM rounds (p₁, p₂ of Thm 4.3): as printed
#: (1 − 1/|Θ*|, 1/|Θ̄|), or with Lemma 9.1 applied to the |Θ*| + 1 (|Θ̄| + 1) draws it
#: compares (``corrected``; the printed p₁ is 0 when |Θ*| = 1).
COUNTINGS = ("printed", "corrected")
#: Rizk et al.'s start θ_{i,0} (``rizk_start``): ``zero``, this project's reading of Sec.
#: 14.4 (which gives none), or ``uniform``, U(−1, 1) per centre, the authors' notebook's.
RIZK_STARTS = ("zero", "uniform")
#: Rizk et al.'s clipping (``rizk_clip``): ``score``, each centre's score clipped to
#: [−2B_θB_x, 2B_θB_x] as Sec. 14.4 prints it, or ``l1``, the centres' scores scaled so that
#: their ℓ1 norm across centres is at most 1, the authors' notebook's.
RIZK_CLIPS = ("score", "l1")
#: ACTG 175's arms (lifelines' ``arms`` column).
ARMS = {0: "ZDV", 1: "ZDV+ddI", 2: "ZDV+Zal", 3: "ddI"}
#: Default state grids Θ per model (Sec. 14.1 for the Cox model).
DEFAULT_STATES = {"bernoulli": (0.3, 0.5, 0.7), "gaussian": (-1.0, 0.0, 1.0),
                  "cox": (0.0, -math.log(2.0)), "treatments": (1.0, 2.0, 3.0)}


@dataclass(frozen=True)
class InferenceConfig:
    """One scenario of the inference family.

    **Network.** ``graph`` is the communication graph of the n centres (agents) and its
    doubly stochastic weights A (``graph.kind``, ``graph.n_nodes``, ...; default the
    complete graph of 5 centres with Metropolis–Hastings weights, Sec. 5).

    **Signals.** ``model`` is the likelihood ℓ_i(·|θ) over the finite ``states`` Θ:
    ``bernoulli`` (states are p; a signal is 1 with probability θ), ``gaussian`` (states
    are means, known standard deviation ``sigma``; signals are clipped to
    [−``bound_x``, ``bound_x``] so that eq. (7) is finite), ``cox`` (states are log
    hazard ratios θ of the partial likelihood (3); ``dataset`` ``actg175``, the treatment
    ``arm`` against ZDV, or a user's ``csv_path`` with its ``duration_col``,
    ``event_col`` and ``covariate_col``; the patients ``split`` among the centres,
    ``even`` or ``skewed``, by the generator ``split_seed``, resampled to ``patients``
    patients when given (Sec. 14.3); ``ties`` ``breslow`` is eq. (3), ``efron``
    lifelines' likelihood). Synthetic models draw ``samples`` signals per agent from the
    state ``truth`` (MLE setting), or, online, Poisson(``rate``) signals per agent and
    round (intermittent arrivals, Sec. 4.3). Online on a Cox trial, each centre's patients
    arrive in T + 1 random batches (this project's reading), or, with ``arrival_days`` d,
    patient j in round ⌊t_j / d⌋ of its event or censoring time t_j, T then defaulting to
    the last such round (the authors' notebook's 10-day periods: d = 10).

    **Privacy.** ε-DP by Laplace noise on log-likelihoods, budget ε/|Θ| per state and
    ε/K per round (Thms 4.1–4.7); ``sensitivity`` Δ as printed (eq. (7), Sec. 12 with
    ``bound_theta`` B_θ and ``bound_x`` B_x) or for one signal or patient changed.

    **Algorithm.** ``method``: ``mle`` (Alg. 4), ``ol`` (Alg. 5), ``am`` and ``gm``
    (Alg. 1's two aggregates, thresholds ``rho_am``, ``rho_gm``), ``threshold_1`` and
    ``threshold_2`` (Alg. 2's two estimators, accuracies ``pi_1``, ``pi_2``, belief
    threshold ``rho_threshold``), ``private_ol`` (Alg. 3), ``test`` (the distributed test
    of Prop. 4.6 at level ``alpha``: ``test=simple`` of states[0] against states[1], or the
    ``composite`` GLRT through Wilks over [min Θ, max Θ]), ``rizk`` (Rizk et al.'s
    first-order method, Sec. 14.4, ``learning_rate``, its start ``rizk_start`` and its
    clipping ``rizk_clip``: the defaults are this project's reading of the text, the
    alternatives the authors' notebook's), ``centralized`` (the pooled
    non-private MLE and test), ``rr`` and ``laplace`` (Sec. 2's toy: one binary signal per
    agent, states (1 − p, p)). ``rounds`` K and ``iterations`` T default to the theorems'
    values (``round_rule``); ``alpha`` and ``beta`` are the error guarantees (type I α,
    type II 1 − β). ``null_draws`` is the Laplace toy's draws under the null for its
    simulated threshold. ``checkpoints``: iterations at which rows are recorded.
    """

    graph: GraphConfig = field(default_factory=lambda: GraphConfig(kind="complete",
                                                                   n_nodes=5))
    model: str = option("cox", group="model")
    states: tuple[float, ...] | None = None
    truth: float | None = None
    sigma: float | None = None
    samples: int | None = None
    rate: float | None = None
    dataset: str | None = option(None, group="dataset")
    arm: int | None = None
    csv_path: str | None = None
    duration_col: str | None = None
    event_col: str | None = None
    covariate_col: str | None = None
    split: str | None = None
    split_seed: int | None = None
    patients: int | None = None
    ties: str | None = None
    bound_theta: float | None = None
    bound_x: float | None = None
    sensitivity: str = option("printed", kind=READING)
    method: str = option("gm", kind=ROWS)
    epsilon: float = 1.0
    alpha: float = 0.05
    beta: float = 0.95
    rounds: int | None = None
    iterations: int | None = None
    round_rule: str = "theorem"
    counting: str = option("printed", kind=READING)
    rho_am: float = 1.5
    rho_gm: float = 1.5
    rho_threshold: float = 1.5
    pi_1: float = 0.5
    pi_2: float = 0.5
    test: str | None = None
    learning_rate: float | None = None
    # Added to version 1's results (``since``): at their defaults, cells keep their ids.
    arrival_days: int | None = option(None, kind=READING, since=1)
    rizk_start: str = option("zero", kind=READING, since=1)
    rizk_clip: str = option("score", kind=READING, since=1)
    null_draws: int | None = None
    checkpoints: int | tuple[int, ...] = option(20, kind=ROWS)

    @classmethod
    def from_options(cls, **options: Any) -> InferenceConfig:
        """Build, validate and normalize a configuration from keyword options."""
        options = plain_options(cls, options)
        graph = options.get("graph", {})
        if isinstance(graph, Mapping):
            # A partial group keeps the family's default graph for what it leaves out.
            graph = {"kind": "complete", "n_nodes": 5, **graph}
        options["graph"] = GraphConfig.from_options(graph)
        config = cls(**options)
        config.validate()
        return config.normalized()

    # -- validation ------------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`~sweep.errors.ConfigError` on the first option outside its range."""
        self.graph.validate()
        choice("model", self.model, MODELS)
        choice("method", self.method, METHODS)
        if self.states is not None and not isinstance(self.states, tuple):
            fail("states", "a list of numbers", self.states)
        states = self.state_grid
        if not all(real(s) and math.isfinite(s) for s in states):
            fail("states", "a list of finite numbers", self.states)
        if len(states) < 2:
            fail("states", "at least 2 states (a grid Θ with one state has nothing to "
                 "infer)", self.states)
        if len(set(states)) != len(states):
            fail("states", "distinct values", self.states)
        if self.model == "bernoulli" and not all(0.0 < s < 1.0 for s in states):
            fail("states", "probabilities in (0, 1) for model=bernoulli", self.states)
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not real(value) or not 0.0 < value < 1.0:
                fail(name, "in (0, 1)", value)
        choice("sensitivity", self.sensitivity, SENSITIVITIES)
        choice("round_rule", self.round_rule, ROUND_RULES)
        choice("counting", self.counting, COUNTINGS)
        for name in ("rho_am", "rho_gm", "rho_threshold"):
            in_range(name, getattr(self, name), 0.0, math.inf, "a finite number > 0")
        for name in ("pi_1", "pi_2"):
            in_range(name, getattr(self, name), 0.0, math.inf, "a finite number > 0")
        if self.pi_2 >= 1.0:
            fail("pi_2", "in (0, 1) (τ₂ = (1 − π₂)p₂ must be positive)", self.pi_2)
        for name in ("rounds", "iterations"):
            if getattr(self, name) is not None:
                integer(name, getattr(self, name), 1)
        self._validate_model()
        self._validate_method()
        check_checkpoints(self.checkpoints, 10**9, "iterations")

    def _validate_model(self) -> None:
        synthetic = self.model not in SURVIVAL
        for name in ("truth", "samples", "rate", "sigma"):
            needed = synthetic and (name != "sigma" or self.model == "gaussian")
            if getattr(self, name) is not None and not needed:
                fail(name, f"unset for model={self.model}", getattr(self, name))
        for name in ("dataset", "arm", "csv_path", "duration_col", "event_col",
                     "covariate_col", "split", "split_seed", "patients", "ties"):
            if getattr(self, name) is not None and synthetic:
                fail(name, "unset unless model=cox or treatments", getattr(self, name))
        if self.truth is not None and self.truth not in self.state_grid:
            fail("truth", f"one of the states {list(self.state_grid)}", self.truth)
        if self.samples is not None:
            integer("samples", self.samples, 1)
        if self.rate is not None:
            in_range("rate", self.rate, 0.0, math.inf, "a finite number > 0")
        if self.sigma is not None:
            in_range("sigma", self.sigma, 0.0, math.inf, "a finite number > 0")
        for name in ("bound_theta", "bound_x"):
            if getattr(self, name) is not None:
                in_range(name, getattr(self, name), 0.0, math.inf, "a finite number > 0")
        if self.model == "treatments":
            if (self.dataset or "actg175") != "actg175" or self.arm is not None:
                fail("dataset" if self.arm is None else "arm", "actg175 and unset arm for "
                     "model=treatments (its states are ACTG 175's arms 1, 2, 3)",
                     self.arm if self.arm is not None else self.dataset)
            # ZDV (0) as a state scores 0, its own GLR against itself: the authors'
            # notebook's fourth state of Fig. 5 (log-belief 0); the paper's Θ is 1, 2, 3.
            if not set(self.state_grid) <= {0.0, 1.0, 2.0, 3.0}:
                fail("states", "treatment arms among 0 (ZDV, the control: score 0), 1 "
                     "(ZDV+ddI), 2 (ZDV+Zal), 3 (ddI) for model=treatments", self.states)
        if self.model in SURVIVAL:
            choice("dataset", self.dataset or "actg175", DATASETS)
            choice("split", self.split or "even", SPLITS)
            choice("ties", self.ties or "breslow", TIES)
            if self.split_seed is not None:
                integer("split_seed", self.split_seed, 0)
            if self.patients is not None:
                integer("patients", self.patients, 1)
            if (self.dataset or "actg175") == "actg175":
                for name in ("csv_path", "duration_col", "event_col", "covariate_col"):
                    if getattr(self, name) is not None:
                        fail(name, "unset unless dataset=csv", getattr(self, name))
                if self.arm is not None and self.arm not in (1, 2, 3):
                    fail("arm", "one of 1 (ZDV+ddI), 2 (ZDV+Zal), 3 (ddI): a treatment arm "
                         "of ACTG 175 (0, ZDV, is the control)", self.arm)
            else:
                if self.arm is not None:
                    fail("arm", "unset unless dataset=actg175", self.arm)
                for name in ("csv_path", "duration_col", "event_col", "covariate_col"):
                    value = getattr(self, name)
                    if not isinstance(value, str) or not value:
                        fail(name, "a non-empty string for dataset=csv", value)
            bound = self.bound_theta or 1.0
            outside = [] if self.model == "treatments" else [
                s for s in self.state_grid if abs(s) > bound + 1e-12]
            if outside:
                fail("states", f"log hazard ratios within [−B_θ, B_θ] = [{-bound:g}, "
                     f"{bound:g}] (bound_theta, Sec. 12)", self.states)
        elif self.model == "bernoulli" and self.bound_x is not None:
            fail("bound_x", "unset for model=bernoulli (its signals are 0 or 1)", self.bound_x)
        if synthetic and self.bound_theta is not None:
            fail("bound_theta", "unset unless model=cox or treatments (B_θ bounds log hazard "
                 "ratios)",
                 self.bound_theta)

    def _validate_method(self) -> None:
        method = self.method
        if self.model == "treatments" and method not in (*MLE_METHODS, "centralized"):
            fail("method", f"one of {', '.join(MLE_METHODS)}, centralized for "
                 "model=treatments (best-treatment identification)", method)
        if method == "rizk" and self.model != "cox":
            fail("method", "used with model=cox for rizk (Sec. 14.4 clips the partial "
                 "likelihood's score to 2 B_θ B_x)", method)
        if method in TOY_METHODS:
            if self.model != "bernoulli" or len(self.state_grid) != 2:
                fail("method", f"used with model=bernoulli and two states (1 − p, p) for "
                     f"method={method} (Sec. 2)", method)
            low, high = self.state_grid
            if not math.isclose(low + high, 1.0) or high <= 0.5:
                fail("states", "(1 − p, p) with 1/2 < p < 1 for the Sec. 2 toy", self.states)
            if self.samples not in (None, 1):
                fail("samples", "1 for the Sec. 2 toy (one binary signal per agent)",
                     self.samples)
        if self.null_draws is not None:
            if method != "laplace":
                fail("null_draws", "unset unless method=laplace", self.null_draws)
            integer("null_draws", self.null_draws, 10)
        if self.test is not None:
            if method not in ("test", "centralized"):
                fail("test", "unset unless method=test or centralized", self.test)
            choice("test", self.test, TESTS)
        if (self.test or "composite") == "simple" and method in ("test", "centralized"):
            if len(self.state_grid) != 2:
                fail("states", "two states (null, alternative) for test=simple", self.states)
            if self.model == "cox":
                fail("test", "composite for model=cox (the simple LRT's null distribution "
                     "is known for the bernoulli and gaussian models only)", self.test)
        choice("rizk_start", self.rizk_start, RIZK_STARTS)
        choice("rizk_clip", self.rizk_clip, RIZK_CLIPS)
        for name, default in (("rizk_start", "zero"), ("rizk_clip", "score")):
            if method != "rizk" and getattr(self, name) != default:
                fail(name, f"{default} (the default) unless method=rizk", getattr(self, name))
        if self.arrival_days is not None:
            if method not in OL_METHODS or self.model != "cox":
                fail("arrival_days", "unset unless model=cox and method=ol or private_ol",
                     self.arrival_days)
            integer("arrival_days", self.arrival_days, 1)
        if self.learning_rate is not None:
            if method != "rizk":
                fail("learning_rate", "unset unless method=rizk", self.learning_rate)
            in_range("learning_rate", self.learning_rate, 0.0, 1.0, "in (0, 1]")

    # -- normalization ---------------------------------------------------------------

    @property
    def state_grid(self) -> tuple[float, ...]:
        """Θ: ``states``, or the model's default grid."""
        return tuple(self.states) if self.states is not None else DEFAULT_STATES[self.model]

    @property
    def online(self) -> bool:
        return self.method in OL_METHODS

    def normalized(self) -> InferenceConfig:
        """Defaults filled in for the options that apply, None for those that do not, so
        that they neither split cells nor show in the results."""
        changes: dict[str, Any] = {"states": self.state_grid,
                                   "graph": self.graph.normalized()}
        synthetic = self.model not in SURVIVAL
        if synthetic:
            changes["truth"] = self.truth if self.truth is not None else self.state_grid[-1]
            if self.model == "gaussian":
                changes["sigma"] = self.sigma or 1.0
                changes["bound_x"] = self.bound_x or 3.0
            if self.online:
                changes.update(rate=self.rate or 1.0, samples=None)
            else:
                default = 1 if self.method in TOY_METHODS else 20
                changes.update(samples=self.samples or default, rate=None)
        else:
            dataset = self.dataset or "actg175"
            changes.update(dataset=dataset, split=self.split or "even",
                           split_seed=self.split_seed or 0, ties=self.ties or "breslow",
                           bound_theta=self.bound_theta or 1.0, bound_x=self.bound_x or 1.0)
            if dataset == "actg175" and self.model == "cox":
                changes["arm"] = self.arm or 3
        if self.method not in ("test", "centralized") or self.model == "treatments":
            changes["test"] = None
        else:
            changes["test"] = self.test or "composite"
        if self.method == "rizk":
            changes["learning_rate"] = self.learning_rate or 0.001
        if self.method == "laplace":
            changes["null_draws"] = self.null_draws or 10_000
        return dataclasses.replace(self, **changes)

    def checkpoint_times(self, last: int) -> np.ndarray:
        """Iterations 1..``last`` at which rows are recorded (``last`` always included)."""
        if isinstance(self.checkpoints, tuple):
            times = np.asarray([t for t in self.checkpoints if t <= last], dtype=np.int64)
            return times if times.size and times[-1] == last else np.append(times, last)
        return checkpoint_times(self.checkpoints, last)


__all__ = [
    "ARMS",
    "COUNTINGS",
    "DATASETS",
    "DEFAULT_STATES",
    "METHODS",
    "MLE_METHODS",
    "MODELS",
    "OL_METHODS",
    "RIZK_CLIPS",
    "RIZK_STARTS",
    "ROUND_RULES",
    "SENSITIVITIES",
    "SPLITS",
    "SURVIVAL",
    "TESTS",
    "TIES",
    "TOY_METHODS",
    "InferenceConfig",
]
