"""Options of a Private-ColME simulation and their validation.

The option names are the command-line keys of the sweep platform; keep them stable.
Every check runs before any work starts and raises :class:`ConfigError` with one line
naming the field and its allowed range.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigError

NOISES = ("gaussian", "laplace")
MECHANISMS = ("pm1", "pm2", "none")
WEIGHTS = ("last", "mom", "wmom")
SCHEDULES = ("rr", "rrr")
REFRESHES = ("on_query", "every_step")
CLASS_ESTIMATORS = ("test", "oracle")
CLASS_ASSIGNMENTS = ("random", "balanced")
DISTRIBUTIONS = ("uniform", "triangular", "two_point")
VARIANCES = ("known", "shared", "inferred", "inferred_bayes")
PRIORS = ("paper", "jeffreys", "uniform")
INFERRED_FORMS = ("eq16", "weighted")


def _fail(name: str, allowed: str, value: Any) -> None:
    raise ConfigError(f"{name}: must be {allowed}; got {value!r}")


def _choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        _fail(name, "one of " + ", ".join(choices), value)


def _integer(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        _fail(name, f"an integer >= {low}", value)


def _real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )


def _as_floats(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """Integers given for float options as floats: equal values, one spelling (and cell id)."""
    return {
        key: float(value)
        if dataclasses.is_dataclass(cls) and key in cls.__dataclass_fields__
        and cls.__dataclass_fields__[key].type == "float" and _real(value)
        else value
        for key, value in options.items()
    }


@dataclass(frozen=True)
class DecisionConfig:
    """Decision rule of Sec. III-C1.

    ``theta0`` sets the confidence level θ_t = θ0 / ln(t + 1). ``refresh`` settles the
    paper's one real ambiguity: the test for b is stated "where t = t_κ" (made when b
    answers, ``on_query``, the default) while Algorithm 1 line 13 rebuilds C_a^(t) at every
    t (``every_step``, what the COLME code does).
    """

    theta0: float = 0.05
    refresh: str = "on_query"

    def validate(self) -> None:
        # θ_t must stay in (0, 1] for every t >= 1, i.e. θ0 <= ln 2.
        if not _real(self.theta0) or not 0.0 < self.theta0 <= math.log(2.0):
            _fail("decision.theta0", "in (0, ln 2]", self.theta0)
        _choice("decision.refresh", self.refresh, REFRESHES)


@dataclass(frozen=True)
class ColmeConfig:
    """One Private-ColME scenario (defaults: the paper's Sec. VII, Fig. 2 left).

    Attributes mirror the option names. ``pm2_split`` divides PM-II's (ε, δ) by
    ⌊log2 t_max⌋ + 1 so that PM-I and PM-II give the same overall privacy (Sec. VII).
    ``checkpoints`` is either a count of log-spaced times (t = 1 and t_max included) or an
    explicit increasing list of times. ``variance`` chooses how σ_b² is obtained: ``known``,
    ``shared`` (Sch-Var-1, Sec. V-A), ``inferred`` (Sch-Var-2, Sec. V-B) or
    ``inferred_bayes`` (Sch-Var-2 with eq. (19) and the prior ``prior``, footnote 3).
    ``inferred_form`` is Sch-Var-2's estimator: ``eq16`` as printed, or ``weighted``, which
    stays unbiased when the p-sums differ in length (see :mod:`sweep.colme.variance`).
    """

    n_agents: int = 200
    t_max: int = 30_000
    n_classes: int = 3
    class_means: tuple[float, ...] = (0.2, 0.4, 0.8)
    class_assignment: str = "random"
    sigma: float = 0.5
    distribution: str = "uniform"
    epsilon: float = 1.0
    delta: float = 1e-6
    noise: str = "gaussian"
    mechanism: str = "pm1"
    pm2_split: bool = True
    weights: str = "last"
    schedule: str = "rr"
    class_estimator: str = "test"
    variance: str = "known"
    prior: str = "paper"
    inferred_form: str = "eq16"
    decision: DecisionConfig = field(default_factory=DecisionConfig)
    checkpoints: int | tuple[int, ...] = 100

    @classmethod
    def from_options(cls, **options: Any) -> ColmeConfig:
        """Build and validate a configuration from keyword options.

        Nested groups are dicts, e.g. ``decision={"refresh": "every_step"}``.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        for name in options:
            if name not in names:
                raise ConfigError(
                    f"{name}: unknown option; allowed: {', '.join(sorted(names))}"
                )
        decision = options.get("decision", {})
        if isinstance(decision, Mapping):
            allowed = {f.name for f in dataclasses.fields(DecisionConfig)}
            for name in decision:
                if name not in allowed:
                    raise ConfigError(
                        f"decision.{name}: unknown option; allowed: "
                        + ", ".join(f"decision.{a}" for a in sorted(allowed))
                    )
            options["decision"] = DecisionConfig(**_as_floats(DecisionConfig, decision))
        elif not isinstance(decision, DecisionConfig):
            _fail("decision", "a mapping", decision)
        for key, value in options.items():  # numpy scalars and arrays as plain Python
            if isinstance(value, np.generic | np.ndarray):
                options[key] = value.tolist()
        for key in ("class_means", "checkpoints"):
            value = options.get(key)
            if isinstance(value, Sequence) and not isinstance(value, str):
                options[key] = tuple(value)
        if isinstance(options.get("class_means"), tuple):
            options["class_means"] = tuple(
                float(m) if _real(m) else m for m in options["class_means"]
            )
        config = cls(**_as_floats(cls, options))
        config.validate()
        return config

    def validate(self) -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        _integer("n_agents", self.n_agents, 2)
        _integer("t_max", self.t_max, 1)
        _integer("n_classes", self.n_classes, 1)
        if not isinstance(self.class_means, tuple) or not all(
            _real(m) and math.isfinite(m) for m in self.class_means
        ):
            _fail("class_means", "a list of finite numbers", self.class_means)
        if len(self.class_means) != self.n_classes:
            _fail(
                "class_means",
                f"a list of n_classes = {self.n_classes} numbers",
                list(self.class_means),
            )
        if len(set(self.class_means)) != len(self.class_means):
            # A class is the set of agents with the same mean (Sec. III).
            _fail("class_means", "distinct numbers", list(self.class_means))
        _choice("class_assignment", self.class_assignment, CLASS_ASSIGNMENTS)
        if not _real(self.sigma) or not 0.0 < self.sigma < math.inf:
            _fail("sigma", "a finite number > 0", self.sigma)
        _choice("distribution", self.distribution, DISTRIBUTIONS)
        if not _real(self.epsilon) or not 0.0 < self.epsilon < math.inf:
            _fail("epsilon", "a finite number > 0", self.epsilon)
        if not _real(self.delta) or not 0.0 < self.delta < 1.0:
            _fail("delta", "in (0, 1)", self.delta)
        _choice("noise", self.noise, NOISES)
        _choice("mechanism", self.mechanism, MECHANISMS)
        if not isinstance(self.pm2_split, bool | np.bool_):
            _fail("pm2_split", "true or false", self.pm2_split)
        _choice("variance", self.variance, VARIANCES)
        _choice("prior", self.prior, PRIORS)
        _choice("inferred_form", self.inferred_form, INFERRED_FORMS)
        if self.noise == "gaussian" and self.mechanism != "none":
            epsilon, _ = self.release_budget()
            if epsilon > 1.0:
                # Lemmas 1 and 3 hold for 0 < ε <= 1 only; this is the ε each p-sum is
                # calibrated with (after the splits of PM-II and Sch-Var-1, if any).
                parts = self.epsilon / epsilon
                allowed = "in (0, 1] for noise=gaussian (Lemma 1)" if parts == 1 else (
                    f"at most {parts:g} for noise=gaussian: each p-sum gets ε/{parts:g}, "
                    "which Lemma 1 needs in (0, 1]"
                )
                _fail("epsilon", allowed, self.epsilon)
        _choice("weights", self.weights, WEIGHTS)
        _choice("schedule", self.schedule, SCHEDULES)
        _choice("class_estimator", self.class_estimator, CLASS_ESTIMATORS)
        self.decision.validate()
        if isinstance(self.checkpoints, tuple):
            times = self.checkpoints
            if (
                not times
                or not all(isinstance(t, int | np.integer) for t in times)
                or any(b <= a for a, b in itertools.pairwise(times))
                or times[0] < 1
                or times[-1] > self.t_max
            ):
                _fail("checkpoints", f"increasing integers in [1, t_max = {self.t_max}]", times)
        else:
            _integer("checkpoints", self.checkpoints, 1)

    def release_budget(self) -> tuple[float, float]:
        """(ε, δ) each p-sum is calibrated with.

        PM-II's (ε, δ) is divided by ⌊log2 t_max⌋ + 1 (Sec. VII), if ``pm2_split``. With
        ``shared`` variances, the mean and the variance releases each get half of it
        (Sec. VII-B), so the overall (ε, δ) stays as configured; this is the budget of
        either release.
        """
        parts = 1
        if self.mechanism == "pm2" and self.pm2_split:
            parts *= self.t_max.bit_length()  # ⌊log2 t_max⌋ + 1
        if self.variance == "shared":
            parts *= 2
        return self.epsilon / parts, self.delta / parts

    def checkpoint_times(self) -> np.ndarray:
        """Times at which metrics are recorded, always including t_max.

        A count n gives min(n, t_max) distinct times: log-spaced from 1 to t_max, pushed
        apart where rounding would merge them (so the first ones are 1, 2, 3, ...).
        """
        if isinstance(self.checkpoints, tuple):
            return np.asarray(self.checkpoints, dtype=np.int64)
        n = min(self.checkpoints, self.t_max)
        if n == 1:
            return np.array([self.t_max], dtype=np.int64)
        times = np.rint(np.geomspace(1.0, self.t_max, n)).astype(np.int64)
        times = np.maximum(times, np.arange(1, n + 1))  # at least i + 1 at position i
        for i in range(1, n):
            times[i] = max(times[i], times[i - 1] + 1)
        return times

    def as_columns(self) -> dict[str, Any]:
        """The options as flat result columns (nested groups joined with '.')."""
        columns: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, DecisionConfig):
                for g in dataclasses.fields(value):
                    columns[f"{f.name}.{g.name}"] = getattr(value, g.name)
            elif f.name == "checkpoints":
                continue  # recorded as the t column
            elif isinstance(value, tuple):
                columns[f.name] = ",".join(repr(float(v)) for v in value)
            else:
                columns[f.name] = value
        return columns


# Integer codes of the choices, as the compiled kernels see them: the index in the
# tuples above.
PM1, PM2, NO_MECHANISM = range(len(MECHANISMS))
LAST, MOM, WMOM = range(len(WEIGHTS))
RR, RRR = range(len(SCHEDULES))
ON_QUERY, EVERY_STEP = range(len(REFRESHES))
TEST, ORACLE = range(len(CLASS_ESTIMATORS))
GAUSSIAN, LAPLACE = range(len(NOISES))
UNIFORM, TRIANGULAR, TWO_POINT = range(len(DISTRIBUTIONS))
KNOWN, SHARED, INFERRED, INFERRED_BAYES = range(len(VARIANCES))
PAPER_PRIOR, JEFFREYS_PRIOR, UNIFORM_PRIOR = range(len(PRIORS))
EQ16, WEIGHTED = range(len(INFERRED_FORMS))
