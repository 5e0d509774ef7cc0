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

from ..components.calibration import mean_release_std, variance_release_std
from ..errors import ConfigError
from ..options import (
    PERMIT,
    READING,
    ROWS,
    TAIL,
    check_checkpoints,
    check_gaussian_epsilon,
    check_magnitude,
    check_release_guarantee,
    checkpoint_times,
    choice,
    fail,
    integer,
    magnitude_limit,
    option,
    plain_options,
    real,
)

#: ``staircase`` is not in the paper: the ε-DP noise of least variance (issue 40), against
#: which Lemma 2's Laplace noise is compared.
NOISES = ("gaussian", "laplace", "staircase")
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
#: The half-width L of each data family's support, in units of σ (:func:`data_bound`).
DATA_BOUNDS = {"uniform": math.sqrt(3.0), "triangular": math.sqrt(6.0), "two_point": 1.0}
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

    Honest privacy settings (:meth:`check_guarantee`, when a cell is prepared to run):
    a run whose guarantee is weaker than its options suggest is refused unless an
    acknowledgement (an option of kind ``permit``: in neither the cell's identity nor
    its columns, so that setting it changes no cell id and no stored row) says that it is
    meant. ``pm2_split=false`` with PM-II calibrates each p-sum to the whole (ε, δ) while
    a sample enters up to ⌊log2 t_max⌋ + 1 of them: the run is only
    ((⌊log2 t_max⌋ + 1)ε, (⌊log2 t_max⌋ + 1)δ)-DP by basic composition; it needs
    ``allow_pm2_unsplit=true``. (Refused rather than recorded: the effective (ε, δ) as
    new result columns would change every stored row; the rows' ``epsilon``, ``delta``,
    ``t_max`` and ``pm2_split`` give it.) Where δ counts (Gaussian noise, a mechanism),
    the run's δ must be at most 0.1 and at most 1/n for its n = ``n_agents`` × ``t_max``
    protected samples, unless ``allow_large_delta=true``: the paper's δ = 10⁻⁶ exceeds
    1/n at M = 200, t_max = 3·10⁴ (the presets that keep it say so).
    :meth:`validate` also refuses class means, σ and ε whose sums and squares over a run
    would overflow float64 (:func:`sweep.options.magnitude_limit`).
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
    σ_DP² = 8 L²/ε², pure ε-DP (δ unused by the mean releases), or ``staircase`` (not in
    the paper), Geng & Viswanath's ε-DP noise of least variance for the same sensitivity
    2L, σ_DP² = 4L² V_1(ε) < 8L²/ε² (:mod:`sweep.components.staircase`); Sch-Var-1's
    variance releases follow Lemma 3 with the same kind. ``stream`` is where a replicate's random
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
    # Acknowledgements (``permit``): they let a weaker guarantee run, and change no result.
    allow_large_delta: bool = option(False, kind=PERMIT)
    allow_pm2_unsplit: bool = option(False, kind=PERMIT)
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
        for name in ("allow_large_delta", "allow_pm2_unsplit"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                fail(name, "true or false", getattr(self, name))
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
            check_gaussian_epsilon("", self.epsilon, self.release_budget()[0])
        choice("weights", self.weights, WEIGHTS)
        choice("schedule", self.schedule, SCHEDULES)
        choice("class_estimator", self.class_estimator, CLASS_ESTIMATORS)
        self.decision.validate()
        check_checkpoints(self.checkpoints, self.t_max, "t_max")
        self.check_arithmetic()

    def check_arithmetic(self) -> None:
        """Refuse class means, σ and ε whose run would overflow float64: a sample is
        within |μ| + L of 0 and a p-sum's noise within :data:`~sweep.options.TAIL` of its
        scale σ_DP (Sch-Var-1's variance noise too), and each of the three parts must be
        at most a third of :func:`~sweep.options.magnitude_limit` of the run's
        ``n_agents`` × ``t_max`` values (every sum of them, and its square, stays finite)."""
        values = self.n_agents * self.t_max
        limit = magnitude_limit(values) / 3.0
        largest = max(abs(m) for m in self.class_means)
        check_magnitude("class_means", list(self.class_means), largest, limit,
                        f"numbers of magnitude at most {limit:.3g}", values)
        factor = DATA_BOUNDS[self.distribution]
        check_magnitude("sigma", self.sigma, factor * self.sigma, limit,
                        f"at most {limit / factor:.3g}", values)
        if self.variance == "shared":
            # Sch-Var-1 releases sample variances: values up to (2L)².
            check_magnitude("sigma", self.sigma, (2.0 * factor * self.sigma) ** 2, limit,
                            f"at most {math.sqrt(limit) / (2.0 * factor):.3g} with "
                            "variance=shared (its releases are sums of squares)", values)
        if self.mechanism == "none":
            return
        # Every noise scale is inversely proportional to ε: TAIL × the scale at ε = 1.
        unit = TAIL * max(self.noise_scales(1.0))
        check_magnitude("epsilon", self.epsilon, unit / self.epsilon, limit,
                        f"at least {unit / limit:.3g}, the noise's scale being "
                        f"{unit / TAIL:.3g}/ε", values)

    def noise_scales(self, epsilon: float | None = None) -> tuple[float, float]:
        """σ_DP of a p-sum's noise (Lemma 1 or 2) and σ_2,DP of a partial sample
        variance's (Lemma 3, 0 unless ``variance=shared``), at the overall ``epsilon``
        (default: the configured one); both 0 without a mechanism."""
        if self.mechanism == "none":
            return 0.0, 0.0
        config = self if epsilon is None else dataclasses.replace(self, epsilon=epsilon)
        release_epsilon, release_delta = config.release_budget()
        bound = data_bound(self.distribution, self.sigma)
        variance = (variance_release_std(self.noise, bound, release_epsilon, release_delta)
                    if self.variance == "shared" else 0.0)
        return mean_release_std(self.noise, bound, release_epsilon, release_delta), variance

    def check_guarantee(self) -> None:
        """Refuse a run whose privacy guarantee is weaker than its options suggest, unless
        its acknowledgement says that it is meant (see the class): PM-II without its split
        (``allow_pm2_unsplit``), a δ above min(0.1, 1/n) for the run's n = n_agents ×
        t_max samples (``allow_large_delta``; the run's δ, ⌊log2 t_max⌋ + 1 times δ
        without the split). A configuration may describe such a run (an audit, a stored
        cell's scenario); the family refuses to run it (:meth:`ColmeFamily.prepare`)."""
        check_release_guarantee(self, "", self.epsilon, self.delta, self.t_max,
                                self.n_agents * self.t_max, "n_agents × t_max")

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


def data_bound(distribution: str, sigma: float) -> float:
    """Half-width L of the support of a data family with standard deviation σ.

    ``uniform``: L = σ√3 (Sec. VII); ``triangular`` (symmetric): L = σ√6;
    ``two_point`` (μ ± σ with probability 1/2 each): L = σ.
    """
    return DATA_BOUNDS[distribution] * sigma


# Integer codes of the choices, as the compiled kernels see them: the index in the
# tuples above.
PM1, PM2, NO_MECHANISM = range(len(MECHANISMS))
LAST, MOM, WMOM = range(len(WEIGHTS))
RR, RRR = range(len(SCHEDULES))
ON_QUERY, EVERY_STEP = range(len(REFRESHES))
TEST, ORACLE = range(len(CLASS_ESTIMATORS))
GAUSSIAN, LAPLACE, STAIRCASE = range(len(NOISES))
UNIFORM, TRIANGULAR, TWO_POINT = range(len(DISTRIBUTIONS))
KNOWN, SHARED, INFERRED, INFERRED_BAYES = range(len(VARIANCES))
PAPER_PRIOR, JEFFREYS_PRIOR, UNIFORM_PRIOR = range(len(PRIORS))
EQ16, WEIGHTED, DROP_FIRST = range(len(INFERRED_FORMS))
PAPER_DOF, RELEASES_DOF = range(len(WELCH_DOFS))
