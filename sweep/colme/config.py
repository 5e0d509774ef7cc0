"""Options of a Private-ColME simulation and their validation.

The option names are the command-line keys of the sweep platform; keep them stable.
Every check runs before any work starts and raises :class:`ConfigError` with one line
naming the field and its allowed range.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..options import (
    READING,
    ROWS,
    check_checkpoints,
    checkpoint_times,
    choice,
    fail,
    integer,
    option,
    plain_options,
    real,
)

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
INFERRED_FORMS = ("eq16", "weighted", "drop_first")
WELCH_DOFS = ("paper", "releases")
#: The baselines tabulated next to Algorithm 1 (:mod:`sweep.colme.baselines`): local and
#: ideal are simulated on the same data and computed analytically, oracle is analytic.
BASELINES = ("local", "ideal", "oracle")
#: The analytic oracle's options (:func:`sweep.colme.baselines.oracle_mse`); the
#: simulation ignores them.
ORACLE_STARTS = ("paper", "simulator")
ORACLE_EQ21S = ("exact", "printed")
#: Where a replicate's random numbers come from: the cell's own stream (``cell``), or a
#: stream of the scenario shared by the cells that differ only in :data:`ESTIMATES`
#: (``scenario``: common random numbers, so that their runs pair).
STREAMS = ("cell", "scenario")
#: The options that choose how σ_b² is estimated and tested. Under RR with known
#: variances or Sch-Var-2 they draw no random numbers: every query draws one p-sum noise
#: whatever they are, so cells that differ only in them use one stream identically.
ESTIMATES = ("variance", "prior", "inferred_form", "welch_dof")


@dataclass(frozen=True)
class DecisionConfig:
    """Decision rule of Sec. III-C1.

    ``theta0`` sets the confidence level θ_t = θ0 / ln(t + 1). ``refresh`` settles the
    paper's one real ambiguity: the test for b is stated "where t = t_κ" (made when b
    answers, ``on_query``, the default) while Algorithm 1 line 13 rebuilds C_a^(t) at every
    t (``every_step``, what the COLME code does).
    """

    theta0: float = 0.05
    refresh: str = option("on_query", kind=READING)

    def validate(self) -> None:
        # θ_t must stay in (0, 1] for every t >= 1, i.e. θ0 <= ln 2.
        if not real(self.theta0) or not 0.0 < self.theta0 <= math.log(2.0):
            fail("decision.theta0", "in (0, ln 2]", self.theta0)
        choice("decision.refresh", self.refresh, REFRESHES)


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
    stays unbiased when the p-sums differ in length, or ``drop_first``, eq. (16) over the
    p-sums after the first (PM-I: under RR they all have length M - 1); see
    :mod:`sweep.colme.variance`. ``welch_dof`` is the degrees of freedom the Welch test
    of Sec. III-C2 gives Var̂[T_{b→a}]: ``paper``, t_κ - 1 (the formula after eq. (5)),
    or ``releases``, k - 1 for Sch-Var-2's estimate from k p-sums.
    ``noise`` is the p-sums' noise (:mod:`sweep.components.calibration`): ``gaussian``,
    Lemma 1's Gaussian mechanism with σ_DP² = 8 L² ln(1.25/δ)/ε², valid for 0 < ε <= 1
    (checked on each release's ε), or ``laplace``, Lemma 2's scale σ_DP/√2 with
    σ_DP² = 8 L²/ε², pure ε-DP (δ unused by the mean releases); Sch-Var-1's variance
    releases follow Lemma 3 with the same kind. ``stream`` is where a replicate's random
    numbers come from: ``cell``, the cell's own stream (independent cells), or
    ``scenario``, one stream for the cells that differ only in :data:`ESTIMATES`, so that
    known variance, Sch-Var-2 and its Bayesian form run on the same data and noise and
    their runs can be compared pairwise (RR, no Sch-Var-1). ``oracle_start`` and ``oracle_eq21`` set
    the analytic oracle baseline only (:func:`sweep.colme.baselines.oracle_mse`): rRR's
    query times, Remark 3's (``paper``) or the simulator's decision rule's (``simulator``),
    and PM-II's noise variance, ``exact`` or eq. (21) as ``printed``.
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
    mechanism: str = option("pm1", group="mechanism")
    pm2_split: bool = True
    weights: str = "last"
    schedule: str = "rr"
    class_estimator: str = "test"
    variance: str = option("known", group="variance")
    prior: str = option("paper", kind=READING)
    inferred_form: str = option("eq16", kind=READING)
    # Added to version 1's results (``since``): at their defaults, cells keep their ids.
    welch_dof: str = option("paper", kind=READING, since=1)
    oracle_start: str = option("paper", kind=READING, since=1)
    oracle_eq21: str = option("exact", kind=READING, since=1)
    stream: str = option("cell", since=1)
    decision: DecisionConfig = field(default_factory=DecisionConfig)
    checkpoints: int | tuple[int, ...] = option(100, kind=ROWS)

    @classmethod
    def from_options(cls, **options: Any) -> ColmeConfig:
        """Build and validate a configuration from keyword options.

        Nested groups are dicts, e.g. ``decision={"refresh": "every_step"}``.
        """
        options = plain_options(cls, options)
        decision = options.get("decision", {})
        if isinstance(decision, Mapping):
            options["decision"] = DecisionConfig(
                **plain_options(DecisionConfig, decision, prefix="decision."))
        elif not isinstance(decision, DecisionConfig):
            fail("decision", "a mapping", decision)
        if isinstance(options.get("class_means"), tuple):
            options["class_means"] = tuple(
                float(m) if real(m) else m for m in options["class_means"]
            )
        config = cls(**options)
        config.validate()
        return config

    def validate(self) -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        integer("n_agents", self.n_agents, 2)
        integer("t_max", self.t_max, 1)
        integer("n_classes", self.n_classes, 1)
        if not isinstance(self.class_means, tuple) or not all(
            real(m) and math.isfinite(m) for m in self.class_means
        ):
            fail("class_means", "a list of finite numbers", self.class_means)
        if len(self.class_means) != self.n_classes:
            fail(
                "class_means",
                f"a list of n_classes = {self.n_classes} numbers",
                list(self.class_means),
            )
        if len(set(self.class_means)) != len(self.class_means):
            # A class is the set of agents with the same mean (Sec. III).
            fail("class_means", "distinct numbers", list(self.class_means))
        choice("class_assignment", self.class_assignment, CLASS_ASSIGNMENTS)
        if not real(self.sigma) or not 0.0 < self.sigma < math.inf:
            fail("sigma", "a finite number > 0", self.sigma)
        choice("distribution", self.distribution, DISTRIBUTIONS)
        if not real(self.epsilon) or not 0.0 < self.epsilon < math.inf:
            fail("epsilon", "a finite number > 0", self.epsilon)
        if not real(self.delta) or not 0.0 < self.delta < 1.0:
            fail("delta", "in (0, 1)", self.delta)
        choice("noise", self.noise, NOISES)
        choice("mechanism", self.mechanism, MECHANISMS)
        if not isinstance(self.pm2_split, bool | np.bool_):
            fail("pm2_split", "true or false", self.pm2_split)
        choice("variance", self.variance, VARIANCES)
        choice("prior", self.prior, PRIORS)
        choice("inferred_form", self.inferred_form, INFERRED_FORMS)
        if self.inferred_form == "drop_first" and self.mechanism == "pm2":
            # PM-II's p-sums differ in length whichever is dropped.
            fail("inferred_form", "eq16 or weighted with mechanism=pm2", self.inferred_form)
        choice("welch_dof", self.welch_dof, WELCH_DOFS)
        choice("oracle_start", self.oracle_start, ORACLE_STARTS)
        choice("oracle_eq21", self.oracle_eq21, ORACLE_EQ21S)
        choice("stream", self.stream, STREAMS)
        if self.stream == "scenario" and (self.schedule != "rr" or self.variance == "shared"):
            # rRR queries only C_a, and Sch-Var-1 draws a second noise per query: either
            # makes the draws' use depend on the estimates, so a shared stream would not pair.
            fail("stream", "cell unless schedule=rr and variance is known, inferred or "
                 "inferred_bayes", self.stream)
        if self.welch_dof != "paper" and self.variance not in ("inferred", "inferred_bayes"):
            # Only Sch-Var-2 estimates σ_b² from its k p-sums; Sch-Var-1's V_{b→a} is a
            # sample variance of t_κ data, and known variances need no Welch test.
            fail("welch_dof", "paper unless variance is inferred or inferred_bayes",
                 self.welch_dof)
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
                fail("epsilon", allowed, self.epsilon)
        choice("weights", self.weights, WEIGHTS)
        choice("schedule", self.schedule, SCHEDULES)
        choice("class_estimator", self.class_estimator, CLASS_ESTIMATORS)
        self.decision.validate()
        check_checkpoints(self.checkpoints, self.t_max, "t_max")

    def normalized(self, oracle: bool) -> ColmeConfig:
        """This configuration with the readings that do not apply at their defaults, so
        that a product grid's cells that cannot differ share one identity and one set of
        random streams: ``drop_first`` outside Sch-Var-2 (Sch-Var-1's eq. (8) needs every
        p-sum), and the analytic oracle's ``oracle_start`` (rRR only: RR queries every
        peer from t = 1) and ``oracle_eq21`` (PM-II only) without the ``oracle`` baseline.
        """
        unused: dict[str, Any] = {}
        if self.inferred_form == "drop_first" and self.variance not in ("inferred",
                                                                        "inferred_bayes"):
            unused["inferred_form"] = "eq16"
        if not oracle or self.schedule != "rrr":
            unused["oracle_start"] = "paper"
        if not oracle or self.mechanism != "pm2":
            unused["oracle_eq21"] = "exact"
        return dataclasses.replace(self, **unused)

    def check_oracle(self) -> None:
        """:class:`ConfigError` if the analytic oracle baseline
        (:func:`sweep.colme.baselines.oracle_mse`) does not apply: Prop. 3 draws each
        agent's class independently."""
        if self.class_assignment != "random":
            raise ConfigError(
                "baselines: the analytic oracle (Prop. 3) needs class_assignment=random; "
                f"got {self.class_assignment!r}"
            )

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
        """Times at which metrics are recorded (see :func:`sweep.options.checkpoint_times`)."""
        return checkpoint_times(self.checkpoints, self.t_max)


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
EQ16, WEIGHTED, DROP_FIRST = range(len(INFERRED_FORMS))
PAPER_DOF, RELEASES_DOF = range(len(WELCH_DOFS))
