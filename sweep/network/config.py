"""Options of a network simulation and their validation.

Defaults are the paper's German-households scenario of Sec. 5 with synthetic signals: a
random geometric graph of 969 nodes and radius 0.1 (seed 0 gives the paper's 13,236
edges), log-normal signals with the fitted μ = 1.67, σ = 1.04, T = 100 rounds, δ = 0.01,
Laplace noise, Metropolis–Hastings weights. The graph is the nested group ``graph``
(:class:`~sweep.components.graphs.GraphConfig`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..components.calibration import (
    NETWORK_SCALES,
    RIZK_SCALES,
    Calibration,
    calibrate,
    rizk_calibration,
)
from ..components.graphs import GraphConfig, GraphSpec
from ..options import (
    LOG_LIMIT,
    PERMIT,
    READING,
    ROWS,
    TAIL,
    check_checkpoints,
    check_delta,
    check_magnitude,
    checkpoint_times,
    choice,
    fail,
    in_range,
    integer,
    magnitude_limit,
    option,
    plain_options,
    real,
)
from .algorithms import METHODS
from .budgets import BUDGETS, DEFAULT_CAP

PRIVACIES = ("none", "signal", "network")
#: The noise kinds (those of sweep.components.noise, which loads numba: validating a
#: cell must not).
NOISES = ("laplace", "gaussian", "staircase")
#: The signals and the default (mean, σ) of ξ(s) of each: the log-normal fit of the
#: paper's German households (Sec. 5), and the standard normal.
SIGNALS = {"lognormal": (1.67, 1.04), "gaussian": (0.0, 1.0)}
REFERENCES = ("bound", "exact")
RIZK_STARTS = ("zero", "signal")
#: The agents an edge list counts in the arithmetic checks, before the family reads it.
UNKNOWN_NODES = 10**9
#: The largest |μ| and σ of log-normal signals (ξ = log s ~ N(μ, σ²)): e^ξ, its inverse
#: (the smooth sensitivity c/s) and their squares stay within e^LOG_LIMIT for
#: |ξ| <= |μ| + TAIL·σ <= LOG_LIMIT/2, and so do the references' E[(c/s)²] ∝ e^(2σ² − 2μ).
LOG_MEAN_LIMIT = LOG_LIMIT / 4.0
LOG_SIGMA_LIMIT = min(LOG_LIMIT / (4.0 * TAIL), math.sqrt(LOG_LIMIT / 8.0))


@dataclass(frozen=True)
class NetworkConfig:
    """One scenario of the network family.

    ``graph`` is the communication graph and its weights (``graph.kind``,
    ``graph.n_nodes``, ...; see :class:`~sweep.components.graphs.GraphConfig`).
    ``method`` is the algorithm (see :mod:`sweep.network.algorithms`): ``mvue``
    (Alg. 1/3), ``ol`` (Alg. 2/4/5 for privacy none/signal/network), the ablations
    ``mvue_fresh_noise``, ``ol_alg4`` (Alg. 4 under Network DP) and ``ol_alg5`` (Alg. 5's
    mixing matrix under Signal DP, Alg. 4's noise), and Rizk et al.'s
    first-order baseline on either task, ``rizk`` and ``rizk_ol`` (Appendix B).
    ``signal``: ``lognormal`` (ξ(s) = log s, smooth sensitivity, (ε, δ)-DP) or ``gaussian``
    (ξ(s) = s with global sensitivity ``sensitivity``: 1 for the paper's adjacency
    |s − s'| <= 1). ``signal_mean`` and ``signal_sigma`` are the mean and standard deviation
    of ξ(s) (of log s for log-normal signals); unset, the signal's own (:data:`SIGNALS`).

    ``noise`` is the kind of each agent's noise, calibrated to the same (ε, δ) either way
    (:func:`sweep.components.calibration.calibrate`): ``laplace``, the optimum of
    Thm 3.1, of scale Δ/ε with a global sensitivity, or 2 S*(s)/ε with the smooth
    sensitivity S* of eq. (9) at γ = ε/(2 ln(2/δ)); ``gaussian``, to test that optimality:
    the analytic Gaussian mechanism (Balle & Wang) with a global sensitivity, or Nissim et
    al.'s Gaussian noise S*_β(s)/α for the smooth one; ``staircase``, ε-DP like Laplace
    noise of scale Δ/ε with less variance (Geng & Viswanath, 2016; global sensitivity
    only, so ``signal=gaussian``), to test the claim that Laplace noise minimizes the
    variance under ε-DP (:mod:`sweep.components.staircase`). Rizk et al. use Laplace noise
    only (Appendix B). Graph parameters other than the chosen graph's are ignored and recorded
    as missing.

    Appendix C: ``budgets`` shares the overall budget nε among the agents
    (:mod:`sweep.network.budgets`, App. C.3): ``homogeneous`` (ε each, the default),
    ``centralized`` (Prop. C.3 as printed) or ``waterfilling`` (the exact optimum of
    (C.6)), each agent's Laplace noise calibrated to its own ε_i <= ``budget_cap``·ε
    (default 10, the paper's; MVUE and OL only). ``edge_keep`` = q makes the graph
    time-varying (:mod:`sweep.components.dynamic`, App. C.1): every round each edge of the
    graph is present with probability q, with the modified Metropolis–Hastings weights
    (C.3); None (default) keeps the static graph. Neither has the references of Thms
    3.1–4.2, so they set ``references`` to none.

    Readings (defaults: the paper's text): ``rizk_scale``, Appendix B's noise for Rizk et
    al. as ``printed``, as the authors' ``code`` draws it (2T times the printed signal
    part) or ``no_eta`` (printed without η); ``network_scale``, Network DP's Laplace scale
    2·max(a_i, S*_i)/ε (``paper``) or the authors' code's max(a_i, 2S*_i)/ε (``code``);
    ``signal_floor`` s_min: log-normal signals clipped to [s_min, ∞) and the exact smooth
    sensitivity of log there, which makes the (ε, δ) guarantee provable (under Network DP
    the noise then pays a_i + S*; None: eq. (9) on (0, ∞), as the paper). See
    :mod:`sweep.components.calibration`.

    Honest privacy settings: where δ counts (log-normal signals' smooth sensitivity,
    or Gaussian noise, with privacy), δ must be at most 0.1 and at most 1/n for the n =
    ``graph.n_nodes`` agents' signals the run protects (an edge list's n is not known
    when the options are checked: the 0.1 rule only), unless ``allow_large_delta=true``
    (an acknowledgement, kind ``permit``: in neither the cell's identity nor its
    columns). The paper's δ = 0.01 exceeds 1/n on both of its graphs (969 and 4,941
    agents): its presets keep it and say so. Signal means, σ, the sensitivity and ε whose
    run would overflow float64 are refused (:meth:`check_arithmetic`).
    """

    graph: GraphConfig = field(default_factory=GraphConfig)
    signal: str = option("lognormal", group="signal")
    signal_mean: float | None = None
    signal_sigma: float | None = None
    sensitivity: float | None = 1.0
    method: str = option("mvue", kind=ROWS)
    privacy: str = "signal"
    noise: str = "laplace"
    epsilon: float = 1.0
    delta: float = 0.01
    rounds: int = 100
    learning_rate: float | None = 0.001
    rizk_start: str | None = "zero"
    checkpoints: int | tuple[int, ...] = option(100, kind=ROWS)
    references: tuple[str, ...] = ("bound", "exact")
    # Added to version 2's results (``since``): at their defaults, not in the identity.
    budgets: str = option("homogeneous", since=2)
    budget_cap: float | None = option(None, since=2)
    edge_keep: float | None = option(None, since=2)
    rizk_scale: str = option("printed", kind=READING, since=2)
    network_scale: str = option("paper", kind=READING, since=2)
    signal_floor: float | None = option(None, kind=READING, since=2)
    # An acknowledgement (``permit``): it lets a weaker guarantee run, changes no result.
    allow_large_delta: bool = option(False, kind=PERMIT)

    @classmethod
    def from_options(cls, **options: Any) -> NetworkConfig:
        """Build, validate and normalize a configuration from keyword options.

        Options that do not apply (other graphs' parameters, Rizk et al.'s outside its
        methods, ``sensitivity`` for log-normal signals) become ``None``, so that they
        neither split cells nor show in the results.
        """
        options = plain_options(cls, options)
        # Checked and normalized on its own: its errors name the dotted key (graph.radius).
        options["graph"] = GraphConfig.from_options(options.get("graph", {}))
        if isinstance(options.get("references"), str):
            options["references"] = (options["references"],)
        signal = options.get("signal", cls.signal)
        choice("signal", signal, SIGNALS)
        for name, default in zip(("signal_mean", "signal_sigma"), SIGNALS[signal], strict=True):
            if options.get(name) is None:
                options[name] = default
        config = cls(**options)
        config.validate()
        return config.normalized()

    def validate(self) -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        self.graph.validate()
        choice("signal", self.signal, SIGNALS)
        if not real(self.signal_mean) or not math.isfinite(self.signal_mean):
            fail("signal_mean", "a finite number", self.signal_mean)
        in_range("signal_sigma", self.signal_sigma, 0.0, math.inf, "a finite number > 0")
        if self.signal == "gaussian":
            in_range("sensitivity", self.sensitivity, 0.0, math.inf, "a finite number > 0")
        choice("method", self.method, METHODS)
        choice("privacy", self.privacy, PRIVACIES)
        if self.method == "ol_alg4" and self.privacy != "network":
            fail("privacy", "network for method=ol_alg4 (the ablation of Alg. 4 run for "
                 "Network DP)", self.privacy)
        if self.method == "ol_alg5" and self.privacy != "signal":
            fail("privacy", "signal for method=ol_alg5 (the ablation of Alg. 5's mixing "
                 "matrix run with Alg. 4's Signal-DP noise)", self.privacy)
        choice("noise", self.noise, NOISES)
        if self.noise == "staircase" and self.signal != "gaussian":
            fail("noise", "laplace or gaussian for signal=lognormal (its smooth sensitivity "
                 "needs admissible noise; the staircase takes a global sensitivity: "
                 "signal=gaussian)", self.noise)
        if self.method in ("rizk", "rizk_ol") and self.noise != "laplace":
            fail("noise", "laplace for Rizk et al. (Appendix B calibrates Laplace noise)",
                 self.noise)
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        if not real(self.delta) or not 0.0 < self.delta < 1.0:
            fail("delta", "in (0, 1)", self.delta)
        integer("rounds", self.rounds, 1)
        if self.method in ("rizk", "rizk_ol"):
            in_range("learning_rate", self.learning_rate, 0.0, 1.0, "in (0, 1]")
            # rizk_ol does not read it (normalized to None): a stored cell's options,
            # planned again, must be valid.
            if self.method == "rizk" or self.rizk_start is not None:
                choice("rizk_start", self.rizk_start, RIZK_STARTS)
        check_checkpoints(self.checkpoints, self.rounds, "rounds")
        if not isinstance(self.references, tuple) or not all(
                isinstance(r, str) for r in self.references):
            fail("references", "a list of " + ", ".join(REFERENCES), self.references)
        for reference in self.references:
            choice("references", reference, REFERENCES)
        choice("rizk_scale", self.rizk_scale, RIZK_SCALES)
        if (self.method in ("rizk", "rizk_ol") and self.rizk_scale == "code"
                and self.signal != "lognormal"):
            fail("rizk_scale", "printed or no_eta for signal=gaussian (the code reading "
                 "scales the smooth sensitivity)", self.rizk_scale)
        choice("network_scale", self.network_scale, NETWORK_SCALES)
        if self.signal_floor is not None:
            in_range("signal_floor", self.signal_floor, 0.0, math.inf,
                     "a finite number > 0 or null")
        choice("budgets", self.budgets, BUDGETS)
        if self.budgets != "homogeneous":
            if self.method not in ("mvue", "ol"):
                fail("budgets", "homogeneous for method=" + self.method
                     + " (Appendix C.3 allocates the budgets of MVUE and OL)", self.budgets)
            if self.noise != "laplace":
                fail("noise", "laplace with heterogeneous budgets (Appendix C.3 calibrates "
                     "Laplace noise)", self.noise)
            if self.signal_floor is not None:
                fail("signal_floor", "null with heterogeneous budgets (the floored smooth "
                     "sensitivity takes one ε)", self.signal_floor)
        if self.budget_cap is not None and (
                not real(self.budget_cap) or not 1.0 <= self.budget_cap < math.inf):
            fail("budget_cap", "a finite number >= 1 (ε_i,max = budget_cap·ε must allow the "
                 "average ε, Prop. C.3)", self.budget_cap)
        if self.edge_keep is not None:
            in_range("edge_keep", self.edge_keep, 0.0, 1.0, "in (0, 1] or null")
            if self.graph.weights != "metropolis":
                fail("graph.weights", "metropolis with edge_keep (every round uses the "
                     "modified Metropolis-Hastings weights (C.3))", self.graph.weights)
        if not isinstance(self.allow_large_delta, bool | np.bool_):
            fail("allow_large_delta", "true or false", self.allow_large_delta)
        self.check_arithmetic()
        if self.privacy != "none" and (self.signal == "lognormal" or self.noise == "gaussian"):
            # δ counts (Laplace noise with a global sensitivity is pure ε-DP).
            check_delta("delta", self.delta, self.graph.n_nodes, "graph.n_nodes",
                        "agent signal", "allow_large_delta", bool(self.allow_large_delta))

    def check_arithmetic(self) -> None:
        """Refuse signal means, σ, sensitivities and ε whose run would overflow float64.

        Log-normal signals: |μ| <= LOG_LIMIT/4 and σ <= min(LOG_LIMIT/(4·TAIL),
        √(LOG_LIMIT/8)) (:data:`LOG_MEAN_LIMIT`, :data:`LOG_SIGMA_LIMIT`). Gaussian ones:
        |μ|, TAIL·σ and the sensitivity each at most a third of
        :func:`~sweep.options.magnitude_limit` of the run's n × rounds values (an edge list
        counting :data:`UNKNOWN_NODES`). With privacy, TAIL × the largest noise scale
        (:meth:`noise_bound`: the smallest signal's smooth sensitivity, a_i <= 1) must be
        too; the error names ε with the least that passes. Heterogeneous budgets are
        checked at the average ε.
        """
        values = (self.graph.n_nodes or UNKNOWN_NODES) * self.rounds
        limit = magnitude_limit(values) / 3.0
        if self.signal == "lognormal":
            reason = "(a log-normal signal e^ξ, its inverse and their squares must stay finite)"
            if not abs(self.signal_mean) <= LOG_MEAN_LIMIT:
                fail("signal_mean", f"in [{-LOG_MEAN_LIMIT:.4g}, {LOG_MEAN_LIMIT:.4g}] "
                     + reason, self.signal_mean)
            if not self.signal_sigma <= LOG_SIGMA_LIMIT:
                fail("signal_sigma", f"at most {LOG_SIGMA_LIMIT:.4g} " + reason,
                     self.signal_sigma)
        else:
            check_magnitude("signal_mean", self.signal_mean, abs(self.signal_mean), limit,
                            f"a number of magnitude at most {limit:.3g}", values)
            check_magnitude("signal_sigma", self.signal_sigma, TAIL * self.signal_sigma,
                            limit, f"at most {limit / TAIL:.3g}", values)
            check_magnitude("sensitivity", self.sensitivity, self.sensitivity, limit,
                            f"at most {limit:.3g}", values)
        if self.privacy == "none":
            return
        if TAIL * self.noise_bound(self.epsilon) <= limit:
            return
        low, high = self.epsilon, 1e300
        if TAIL * self.noise_bound(high) > limit:
            fail("sensitivity" if self.signal == "gaussian" else "signal_mean",
                 "such that some ε gives a noise scale within float64's range",
                 self.sensitivity if self.signal == "gaussian" else self.signal_mean)
        for _ in range(200):  # the least ε that passes, in log space (noise_bound falls)
            middle = math.sqrt(low * high)
            if TAIL * self.noise_bound(middle) <= limit:
                high = middle
            else:
                low = middle
        fail("epsilon", f"at least {high:.3g} (the noise's largest scale, "
             f"{self.noise_bound(self.epsilon):.3g} at ε = {self.epsilon:g}, must keep the "
             f"sums and squares of a run's {values:,} values in float64 finite)",
             self.epsilon)

    def calibration_at(self, epsilon: float) -> Calibration:
        """How every agent's noise follows from its signal at ``epsilon``: Appendix B's
        for Rizk et al., the consensus algorithms' otherwise
        (:mod:`sweep.components.calibration`)."""
        smooth = self.signal == "lognormal"
        if self.method in ("rizk", "rizk_ol"):
            return rizk_calibration(epsilon, self.delta, self.rounds, smooth,
                                    self.sensitivity or 1.0, self.rizk_scale,
                                    self.learning_rate, self.signal_floor)
        return calibrate(self.noise, epsilon, self.delta, smooth, self.sensitivity or 1.0,
                         self.network_scale, self.signal_floor)

    def noise_bound(self, epsilon: float) -> float:
        """An upper bound on every agent's noise scale at ``epsilon`` (non-increasing in
        it): the calibration's factor × (a_i + S_i), a_i <= 1 under Network DP, S_i the
        global sensitivity or the smooth one of the smallest signal, e^(μ − TAIL·σ)
        (with a floor, its global sensitivity log(1 + 1/s_min)); the analytic Gaussian σ
        by the classic one at min(ε, 1), which exceeds it."""
        network = 1.0 if self.privacy == "network" else 0.0
        try:
            if (self.noise == "gaussian" and self.signal != "lognormal"
                    and self.method not in ("rizk", "rizk_ol")):
                factor = math.sqrt(2.0 * math.log(1.25 / self.delta)) / min(epsilon, 1.0)
                calibration = Calibration(factor, None, self.sensitivity or 1.0, 1.0)
            else:
                calibration = self.calibration_at(epsilon)
            if calibration.smooth is None:
                signal = calibration.sensitivity
            elif calibration.floor is None:
                low = self.signal_mean - TAIL * self.signal_sigma
                signal = calibration.smooth * math.exp(-low)
            else:
                signal = (calibration.smooth * math.e * calibration.beta
                          * math.log1p(1.0 / calibration.floor))
            return calibration.factor * (network + signal)
        except (OverflowError, ZeroDivisionError):
            return math.inf

    def normalized(self) -> NetworkConfig:
        """This configuration with the options that do not apply set to ``None``."""
        unused: dict[str, Any] = {}
        if self.signal != "gaussian":
            unused["sensitivity"] = None
        else:
            unused["signal_floor"] = None
        rizk = self.method in ("rizk", "rizk_ol")
        # The readings go back to their defaults where they do not apply: one cell each.
        if not rizk:
            unused.update(learning_rate=None, rizk_start=None, rizk_scale="printed")
        elif self.method == "rizk_ol":
            unused["rizk_start"] = None
        if rizk or self.privacy != "network" or self.signal != "lognormal" or (
                self.noise != "laplace"):
            unused["network_scale"] = "paper"
        if self.privacy == "none":
            unused["budgets"] = "homogeneous"  # no noise to allocate a budget to
        budgets = unused.get("budgets", self.budgets)
        references = tuple(dict.fromkeys(self.references))
        if budgets != "homogeneous" or self.edge_keep is not None:
            references = ()  # the bounds and exact cost assume one ε and a static A
        # The cap applies to heterogeneous budgets only; unset, it is the paper's 10.
        cap = None if budgets == "homogeneous" else (
            DEFAULT_CAP if self.budget_cap is None else self.budget_cap)
        return dataclasses.replace(self, **unused, budget_cap=cap,
                                   graph=self.graph.normalized(), references=references)

    def graph_spec(self) -> GraphSpec:
        """What defines the graph (the file's content, for an edge list)."""
        return self.graph.spec()

    def checkpoint_times(self) -> np.ndarray:
        """Rounds at which metrics are recorded (see :func:`sweep.options.checkpoint_times`)."""
        return checkpoint_times(self.checkpoints, self.rounds)


__all__ = ["NOISES", "PRIVACIES", "REFERENCES", "SIGNALS", "NetworkConfig"]
