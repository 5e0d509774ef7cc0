"""Options of a DP distributed inference simulation and their validation.

Defaults: the paper's Sec. 14.1 experiment, the ACTG 175 trial's ddI arm against ZDV split
evenly among n = 5 centres on a complete graph, Θ = {0, −log 2} (log hazard ratios), ε = 1,
α = 1 − β = 0.05, the GM estimator of Algorithm 1. Every choice the paper leaves open is an
option documented here and in ``sweep/inference/__init__.py`` (the errata).

The signal model and the data set are nested option groups whose ``kind`` chooses a
variant, as the graph's does (``model.kind=cox model.bound_theta=2``,
``dataset.kind=csv dataset.csv_path=...``; on the command line ``model=cox`` chooses the
config group's file). :class:`ModelConfig` and :class:`DatasetConfig` hold every
variant's options, as the command line and the results see them; each variant is a small
frozen dataclass of the options its kind takes, with their defaults and its own checks
(:data:`MODELS`, :data:`DATASETS`). An option set for a kind that does not take it is
refused; after validation those a kind does not take are None, so that they neither split
cells nor show in the results.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

from ..components.graphs import GraphConfig
from ..options import (
    FILE,
    READING,
    ROWS,
    check_checkpoints,
    checkpoint_times,
    choice,
    fail,
    in_range,
    integer,
    magnitude_limit,
    nested,
    option,
    plain_options,
    real,
    variant,
    with_variant,
)

#: ACTG 175's arms (lifelines' ``arms`` column).
ARMS = {0: "ZDV", 1: "ZDV+ddI", 2: "ZDV+Zal", 3: "ddI"}
#: Handling of tied event times (``model.ties``): eq. (3) as printed, or Efron's
#: approximation.
TIES = ("breslow", "efron")
#: Division of a trial's patients among the centres (``dataset.split``).
SPLITS = ("even", "skewed")
#: ``printed``: eq. (7) (max_i n_i g_i) and Sec. 12 (2 B_θ B_x) as printed; ``signal``:
#: one signal (one patient) changed, with a bound that holds (see the errata).
SENSITIVITIES = ("printed", "signal")
#: The algorithms (``method``), by the paper's names.
MLE_METHODS = ("mle", "am", "gm", "threshold_1", "threshold_2")
OL_METHODS = ("ol", "private_ol")
TOY_METHODS = ("rr", "laplace")
METHODS = (*MLE_METHODS, *OL_METHODS, "test", "rizk", "centralized", *TOY_METHODS)
#: The methods that add noise to what the agents send (log-likelihoods, Rizk et al.'s
#: iterates): those that take ``noise``.
NOISED_METHODS = ("am", "gm", "threshold_1", "threshold_2", "private_ol", "test", "rizk")
#: Their noise (``noise``): the paper's Laplace noise, or the staircase (not the paper's:
#: Geng & Viswanath's ε'-DP noise of least variance, drawn in the Laplace scale's units,
#: :mod:`sweep.components.noise`), to test the claim that Laplace noise minimizes the
#: number of belief exchanges (Thms 4.2, 4.5 and 4.7).
NOISES = ("laplace", "staircase")
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
#: The options only some methods take: unset (or at their default) for the others.
METHOD_OPTIONS = {"test": ("test", "centralized"), "learning_rate": ("rizk",),
                  "rizk_start": ("rizk",), "rizk_clip": ("rizk",), "null_draws": ("laplace",),
                  "arrival_days": OL_METHODS, "noise": NOISED_METHODS}


def _positive(name: str, value: Any) -> None:
    in_range(name, value, 0.0, math.inf, "a finite number > 0")


#: The log-likelihoods a run sums, at most (agents × signals × rounds, with room): what
#: :meth:`Gaussian.validate` keeps finite.
LIKELIHOOD_TERMS = 10**12


# -- The signal model (``model``) --------------------------------------------------------

@dataclass(frozen=True)
class _Model:
    """What every model takes: its finite set of ``states`` Θ (the default is the
    model's)."""

    states: tuple[float, ...]

    def validate(self, prefix: str) -> None:
        name = prefix + "states"
        if not isinstance(self.states, tuple) or not all(
                real(s) and math.isfinite(s) for s in self.states):
            fail(name, "a list of finite numbers", self.states)
        if len(self.states) < 2:
            fail(name, "at least 2 states (a grid Θ with one state has nothing to infer)",
                 self.states)
        if len(set(self.states)) != len(self.states):
            fail(name, "distinct values", self.states)

    def normalized(self, method: str) -> Self:
        """Defaults filled in for ``method`` (the states as floats: one cell per Θ)."""
        return dataclasses.replace(self, states=tuple(map(float, self.states)))


@dataclass(frozen=True)
class _Synthetic(_Model):
    """Signals drawn from the state ``truth`` θ° (default the last state): ``samples``
    per agent (MLE setting; default 20, 1 for Sec. 2's toy), or online Poisson(``rate``)
    per agent and round (intermittent arrivals, Sec. 4.3; default 1)."""

    truth: float | None = None
    samples: int | None = None
    rate: float | None = None

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        if self.truth is not None and self.truth not in self.states:
            fail(prefix + "truth", f"one of the states {list(self.states)}", self.truth)
        if self.samples is not None:
            integer(prefix + "samples", self.samples, 1)
        if self.rate is not None:
            _positive(prefix + "rate", self.rate)

    def normalized(self, method: str) -> Self:
        states = tuple(map(float, self.states))
        truth = states[-1] if self.truth is None else float(self.truth)
        if method in OL_METHODS:
            return dataclasses.replace(self, states=states, truth=truth, samples=None,
                                       rate=self.rate or 1.0)
        samples = self.samples or (1 if method in TOY_METHODS else 20)
        return dataclasses.replace(self, states=states, truth=truth, samples=samples,
                                   rate=None)


@dataclass(frozen=True)
class Bernoulli(_Synthetic):
    """``bernoulli``: states are values of p; a signal is 1 with probability θ."""

    states: tuple[float, ...] = (0.3, 0.5, 0.7)

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        if not all(0.0 < s < 1.0 for s in self.states):
            fail(prefix + "states", f"probabilities in (0, 1) for {prefix}kind=bernoulli",
                 self.states)


@dataclass(frozen=True)
class Gaussian(_Synthetic):
    """``gaussian``: states are means, the standard deviation ``sigma`` known; signals are
    clipped to [−``bound_x``, ``bound_x``] so that eq. (7) is finite (default 3σ)."""

    states: tuple[float, ...] = (-1.0, 0.0, 1.0)
    sigma: float = 1.0
    bound_x: float = 3.0

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        _positive(prefix + "sigma", self.sigma)
        _positive(prefix + "bound_x", self.bound_x)
        # A clipped signal's log-likelihood is within (bound_x + max|θ|)²/(2σ²) of 0: a
        # run sums at most LIKELIHOOD_TERMS of them, and their sums and squares must stay
        # finite (sweep.options.magnitude_limit); compared in logs, as the square may not be.
        limit = magnitude_limit(LIKELIHOOD_TERMS)
        reach = self.bound_x + max(abs(s) for s in self.states)
        if 2.0 * math.log(reach) - math.log(2.0) - 2.0 * math.log(self.sigma) <= math.log(
                limit):
            return
        why = (f" (a signal's log-likelihood (bound_x + max|θ|)²/(2σ²) must stay within "
               f"{limit:.3g}, summed {LIKELIHOOD_TERMS:.0e} times in float64)")
        top, largest = self.sigma * math.sqrt(2.0 * limit), max(abs(s) for s in self.states)
        if self.sigma >= 1.0 or reach > math.sqrt(2.0 * limit):  # the signals' scale
            if largest >= self.bound_x and top > self.bound_x:
                fail(prefix + "states", f"numbers of magnitude at most "
                     f"{top - self.bound_x:.3g}" + why, self.states)
            if largest < self.bound_x and top > largest:
                fail(prefix + "bound_x", f"at most {top - largest:.3g}" + why, self.bound_x)
        fail(prefix + "sigma", f"at least {reach / math.sqrt(2.0 * limit):.3g}" + why,
             self.sigma)


@dataclass(frozen=True)
class _Survival(_Model):
    """A trial's patients (the group ``dataset``): the partial likelihood (3) with
    ``ties`` ``breslow`` (eq. (3)) or ``efron`` (lifelines'), log hazard ratios bounded by
    ``bound_theta`` B_θ and covariates by ``bound_x`` B_x (Sec. 12)."""

    bound_theta: float = 1.0
    bound_x: float = 1.0
    ties: str = "breslow"

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        _positive(prefix + "bound_theta", self.bound_theta)
        _positive(prefix + "bound_x", self.bound_x)
        choice(prefix + "ties", self.ties, TIES)


@dataclass(frozen=True)
class Cox(_Survival):
    """``cox``: states are log hazard ratios θ of a treatment against its control, within
    [−B_θ, B_θ]; default Θ = {0, −log 2} (Sec. 14.1)."""

    states: tuple[float, ...] = (0.0, -math.log(2.0))

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        bound = self.bound_theta
        if any(abs(s) > bound + 1e-12 for s in self.states):
            fail(prefix + "states", f"log hazard ratios within [−B_θ, B_θ] = [{-bound:g}, "
                 f"{bound:g}] ({prefix}bound_theta, Sec. 12)", self.states)


@dataclass(frozen=True)
class Treatments(_Survival):
    """``treatments``: states are ACTG 175's treatment arms, each scored by its
    generalized likelihood ratio against ZDV (Sec. 5, Fig. 5)."""

    states: tuple[float, ...] = (1.0, 2.0, 3.0)

    def validate(self, prefix: str) -> None:
        super().validate(prefix)
        # ZDV (0) as a state scores 0, its own GLR against itself: the authors'
        # notebook's fourth state of Fig. 5 (log-belief 0); the paper's Θ is 1, 2, 3.
        if not set(self.states) <= {0.0, 1.0, 2.0, 3.0}:
            fail(prefix + "states", "treatment arms among 0 (ZDV, the control: score 0), 1 "
                 f"(ZDV+ddI), 2 (ZDV+Zal), 3 (ddI) for {prefix}kind=treatments", self.states)


#: The signal models (``model.kind``) and their variants.
MODELS: dict[str, type[_Model]] = {"bernoulli": Bernoulli, "gaussian": Gaussian,
                                   "cox": Cox, "treatments": Treatments}
#: The models whose data are a trial's patients (the group ``dataset``).
SURVIVAL = tuple(kind for kind, cls in MODELS.items() if issubclass(cls, _Survival))


@dataclass(frozen=True)
class ModelConfig:
    """The likelihood ℓ_i(·|θ) over the finite ``states`` Θ: the nested option group
    ``model``, ``kind`` one of :data:`MODELS`, whose variant (:class:`Bernoulli`,
    :class:`Gaussian`, :class:`Cox`, :class:`Treatments`) documents the other options it
    takes and their defaults; None stands for the default, or for an option the kind
    does not take."""

    kind: str = option("cox", group="model")
    states: tuple[float, ...] | None = None
    truth: float | None = None
    samples: int | None = None
    rate: float | None = None
    sigma: float | None = None
    bound_theta: float | None = None
    bound_x: float | None = None
    ties: str | None = None

    def variant(self) -> _Model:
        """The variant of ``kind`` with the options set here (refusing the others)."""
        return variant(self, MODELS, "model.")

    def validate(self) -> None:
        self.variant().validate("model.")

    def normalized(self, method: str) -> ModelConfig:
        """The kind's options with their defaults for ``method``, None for the others."""
        return with_variant(self, self.variant().normalized(method))


# -- The data set (``dataset``) of the survival models -----------------------------------

@dataclass(frozen=True)
class _Trial:
    """How a trial's patients reach the centres: ``split`` ``even`` or ``skewed`` by the
    generator ``split_seed``, after resampling (with replacement) to ``patients`` when
    given (Sec. 14.3)."""

    split: str = "even"
    split_seed: int = 0
    patients: int | None = None

    def validate(self, prefix: str, model: str) -> None:
        choice(prefix + "split", self.split, SPLITS)
        integer(prefix + "split_seed", self.split_seed, 0)
        if self.patients is not None:
            integer(prefix + "patients", self.patients, 1)

    def normalized(self, model: str) -> Self:
        return self


@dataclass(frozen=True)
class Actg175(_Trial):
    """``actg175`` (lifelines' ACTG175.csv, 2,139 patients): for the Cox model, the
    treatment ``arm`` (1 ZDV+ddI, 2 ZDV+Zal, 3 ddI; default 3) against ZDV (arm 0); the
    best-treatment model's states are the arms."""

    arm: int | None = None

    def validate(self, prefix: str, model: str) -> None:
        super().validate(prefix, model)
        if self.arm is not None and model == "treatments":
            fail(prefix + "arm", "unset for model.kind=treatments (its states are ACTG 175's "
                 "arms 1, 2, 3)", self.arm)
        if self.arm is not None and self.arm not in (1, 2, 3):
            fail(prefix + "arm", "one of 1 (ZDV+ddI), 2 (ZDV+Zal), 3 (ddI): a treatment arm "
                 "of ACTG 175 (0, ZDV, is the control)", self.arm)

    def normalized(self, model: str) -> Self:
        return dataclasses.replace(self, arm=(self.arm or 3) if model == "cox" else None)


@dataclass(frozen=True)
class Csv(_Trial):
    """``csv``: a user's survival data, the file ``csv_path`` and its columns
    ``duration_col`` (positive), ``event_col`` (0/1) and ``covariate_col`` (within
    ±``model.bound_x``), for the Cox model."""

    csv_path: str | None = None
    duration_col: str | None = None
    event_col: str | None = None
    covariate_col: str | None = None

    def validate(self, prefix: str, model: str) -> None:
        if model == "treatments":
            fail(prefix + "kind", "actg175 for model.kind=treatments (its states are ACTG "
                 "175's arms)", "csv")
        super().validate(prefix, model)
        for name in ("csv_path", "duration_col", "event_col", "covariate_col"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                fail(prefix + name, f"a non-empty string for {prefix}kind=csv", value)


#: Where a survival model's patients come from (``dataset.kind``), and the variants.
DATASETS: dict[str, type[_Trial]] = {"actg175": Actg175, "csv": Csv}


@dataclass(frozen=True)
class DatasetConfig:
    """A survival model's patients: the nested option group ``dataset``, ``kind`` one of
    :data:`DATASETS` (default ``actg175``), whose variant (:class:`Actg175`,
    :class:`Csv`) documents the other options it takes and their defaults. A synthetic
    model reads no data: every option of the group is unset."""

    kind: str | None = option(None, group="dataset")
    split: str | None = None
    split_seed: int | None = None
    patients: int | None = None
    arm: int | None = None
    csv_path: str | None = option(None, kind=FILE)
    duration_col: str | None = None
    event_col: str | None = None
    covariate_col: str | None = None

    def variant(self, model: str) -> _Trial | None:
        """The variant of ``kind`` with the options set here (refusing the others), or
        None for a synthetic ``model`` (refusing any option set)."""
        if model in SURVIVAL:
            return variant(self.chosen(), DATASETS, "dataset.")
        for f in dataclasses.fields(self):
            if getattr(self, f.name) is not None:
                fail(f"dataset.{f.name}", f"unset for model.kind={model} (its signals are "
                     "drawn, not read from a data set)", getattr(self, f.name))
        return None

    def chosen(self) -> DatasetConfig:
        return dataclasses.replace(self, kind=self.kind or "actg175")

    def validate(self, model: str) -> None:
        if (trial := self.variant(model)) is not None:
            trial.validate("dataset.", model)

    def normalized(self, model: str) -> DatasetConfig:
        """The kind's options with their defaults for ``model``, None for the others."""
        trial = self.variant(model)
        return DatasetConfig() if trial is None else with_variant(self.chosen(),
                                                                  trial.normalized(model))


@dataclass(frozen=True)
class InferenceConfig:
    """One scenario of the inference family.

    **Network.** ``graph`` is the communication graph of the n centres (agents) and its
    doubly stochastic weights A (``graph.kind``, ``graph.n_nodes``, ...; default the
    complete graph of 5 centres with Metropolis–Hastings weights, Sec. 5).

    **Signals.** ``model`` is the likelihood ℓ_i(·|θ) over the finite states Θ
    (:class:`ModelConfig`: ``model.kind`` ``bernoulli``, ``gaussian``, ``cox`` or
    ``treatments``, and ``model.states``, ``model.truth``, ...). The survival models read
    a trial's patients, the group ``dataset`` (:class:`DatasetConfig`: ACTG 175 or a
    user's CSV file, split among the centres). Online on a Cox trial, each centre's
    patients arrive in T + 1 random batches (this project's reading), or, with
    ``arrival_days`` d, patient j in round ⌊t_j / d⌋ of its event or censoring time t_j,
    T then defaulting to the last such round (the authors' notebook's 10-day periods:
    d = 10).

    **Privacy.** ε-DP by Laplace noise on log-likelihoods, budget ε/|Θ| per state and
    ε/K per round (Thms 4.1–4.7); ``sensitivity`` Δ as printed (eq. (7), Sec. 12 with
    ``model.bound_theta`` B_θ and ``model.bound_x`` B_x) or for one signal or patient
    changed. ``noise`` (not the paper's): ``laplace``, or ``staircase``, the ε'-DP noise
    of least variance at each draw's budget ε' (ε/(K|Θ|), ε/|Θ| online, ε/T for Rizk et
    al.), in the Laplace scale's units; the theorems' T then follows from its variance
    (V_{n,Θ} = Σ_i √V[d_i], Thm 4.2), which is all they ask of the noise (K does not
    depend on it).
    Sec. 2's toys name their mechanism (``method=rr``, ``laplace``) and take none.

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
    model: ModelConfig = field(default_factory=ModelConfig)
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
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
    arrival_days: int | None = option(None, kind=READING)
    rizk_start: str = option("zero", kind=READING)
    rizk_clip: str = option("score", kind=READING)
    null_draws: int | None = None
    checkpoints: int | tuple[int, ...] = option(20, kind=ROWS)
    # Added to version 3's results (``since``): at its default, cells keep their ids.
    noise: str = option("laplace", since=3)

    @classmethod
    def from_options(cls, **options: Any) -> InferenceConfig:
        """Build, validate and normalize a configuration from keyword options (the nested
        groups as mappings of their options)."""
        options = plain_options(cls, options)
        graph = options.get("graph", {})
        if isinstance(graph, Mapping):
            # A partial group keeps the family's default graph for what it leaves out.
            graph = {"kind": "complete", "n_nodes": 5, **graph}
        options.update(graph=nested(GraphConfig, graph, "graph."),
                       model=nested(ModelConfig, options.get("model", {}), "model."),
                       dataset=nested(DatasetConfig, options.get("dataset", {}), "dataset."))
        config = cls(**options)
        config.validate()
        return config.normalized()

    # -- validation ------------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`~sweep.errors.ConfigError` on the first option outside its range."""
        self.graph.validate()
        self.model.validate()
        self.dataset.validate(self.model.kind)
        choice("method", self.method, METHODS)
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not real(value) or not 0.0 < value < 1.0:
                fail(name, "in (0, 1)", value)
        choice("sensitivity", self.sensitivity, SENSITIVITIES)
        choice("round_rule", self.round_rule, ROUND_RULES)
        choice("counting", self.counting, COUNTINGS)
        for name in ("rho_am", "rho_gm", "rho_threshold", "pi_1", "pi_2"):
            _positive(name, getattr(self, name))
        if self.pi_2 >= 1.0:
            fail("pi_2", "in (0, 1) (τ₂ = (1 − π₂)p₂ must be positive)", self.pi_2)
        for name in ("rounds", "iterations"):
            if getattr(self, name) is not None:
                integer(name, getattr(self, name), 1)
        self._validate_model_method()
        self._validate_method_options()
        check_checkpoints(self.checkpoints, 10**9, "iterations")

    def _validate_model_method(self) -> None:
        """The methods that need a model, or a grid of states, of their own."""
        method, model = self.method, self.model.variant()
        kind = self.model.kind
        if kind == "treatments" and method not in (*MLE_METHODS, "centralized"):
            fail("method", f"one of {', '.join(MLE_METHODS)}, centralized for "
                 "model.kind=treatments (best-treatment identification)", method)
        if method == "rizk" and kind != "cox":
            fail("method", "used with model.kind=cox for rizk (Sec. 14.4 clips the partial "
                 "likelihood's score to 2 B_θ B_x)", method)
        if method in TOY_METHODS:
            self._validate_toy(model)
        if (self.test or "composite") == "simple" and method in ("test", "centralized"):
            if len(model.states) != 2:
                fail("model.states", "two states (null, alternative) for test=simple",
                     model.states)
            if kind == "cox":
                fail("test", "composite for model.kind=cox (the simple LRT's null "
                     "distribution is known for the bernoulli and gaussian models only)",
                     self.test)
        if self.arrival_days is not None and kind != "cox":
            fail("arrival_days", "unset unless model.kind=cox (a trial's patients arrive "
                 "by period)", self.arrival_days)

    def _validate_toy(self, model: _Model) -> None:
        """Sec. 2's toy: one binary signal per agent, states (1 − p, p)."""
        if self.model.kind != "bernoulli" or len(model.states) != 2:
            fail("method", f"used with model.kind=bernoulli and two states (1 − p, p) for "
                 f"method={self.method} (Sec. 2)", self.method)
        low, high = model.states
        if not math.isclose(low + high, 1.0) or high <= 0.5:
            fail("model.states", "(1 − p, p) with 1/2 < p < 1 for the Sec. 2 toy",
                 model.states)
        if model.samples not in (None, 1):
            fail("model.samples", "1 for the Sec. 2 toy (one binary signal per agent)",
                 model.samples)

    def _validate_method_options(self) -> None:
        """The options of some methods (:data:`METHOD_OPTIONS`): unset, or at their
        default, for the others."""
        for name, methods in METHOD_OPTIONS.items():
            value, default = getattr(self, name), _DEFAULTS[name]
            if self.method not in methods and value != default:
                shown = "unset" if default is None else f"{default} (the default)"
                fail(name, f"{shown} unless method={' or '.join(methods)}", value)
        if self.test is not None:
            choice("test", self.test, TESTS)
        if self.learning_rate is not None:
            in_range("learning_rate", self.learning_rate, 0.0, 1.0, "in (0, 1]")
        choice("rizk_start", self.rizk_start, RIZK_STARTS)
        choice("rizk_clip", self.rizk_clip, RIZK_CLIPS)
        choice("noise", self.noise, NOISES)
        if self.null_draws is not None:
            integer("null_draws", self.null_draws, 10)
        if self.arrival_days is not None:
            integer("arrival_days", self.arrival_days, 1)

    # -- normalization ---------------------------------------------------------------

    @property
    def online(self) -> bool:
        return self.method in OL_METHODS

    def normalized(self) -> InferenceConfig:
        """Defaults filled in for the options that apply, None for those that do not, so
        that they neither split cells nor show in the results."""
        changes: dict[str, Any] = {"graph": self.graph.normalized(),
                                   "model": self.model.normalized(self.method),
                                   "dataset": self.dataset.normalized(self.model.kind)}
        if self.method not in ("test", "centralized") or self.model.kind == "treatments":
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


#: The defaults of the options of :data:`METHOD_OPTIONS`.
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(InferenceConfig)
             if f.name in METHOD_OPTIONS}


__all__ = [
    "ARMS",
    "COUNTINGS",
    "DATASETS",
    "METHODS",
    "METHOD_OPTIONS",
    "MLE_METHODS",
    "MODELS",
    "NOISED_METHODS",
    "NOISES",
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
    "Actg175",
    "Bernoulli",
    "Cox",
    "Csv",
    "DatasetConfig",
    "Gaussian",
    "InferenceConfig",
    "ModelConfig",
    "Treatments",
]
