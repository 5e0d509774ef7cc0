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

from ..components.calibration import NETWORK_SCALES, RIZK_SCALES
from ..components.graphs import GraphConfig, GraphSpec
from ..components.noise import NOISE_KINDS
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
from .algorithms import METHODS
from .budgets import BUDGETS, DEFAULT_CAP

PRIVACIES = ("none", "signal", "network")
SIGNALS = ("lognormal", "gaussian")
REFERENCES = ("bound", "exact")
RIZK_STARTS = ("zero", "signal")


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
    of ξ(s) (of log s for log-normal signals).

    ``noise`` is the kind of each agent's noise, calibrated to the same (ε, δ) either way
    (:func:`sweep.components.calibration.calibrate`): ``laplace``, the optimum of
    Thm 3.1, of scale Δ/ε with a global sensitivity, or 2 S*(s)/ε with the smooth
    sensitivity S* of eq. (9) at γ = ε/(2 ln(2/δ)); ``gaussian``, to test that optimality:
    the analytic Gaussian mechanism (Balle & Wang) with a global sensitivity, or Nissim et
    al.'s Gaussian noise S*_β(s)/α for the smooth one. Rizk et al. use Laplace noise only
    (Appendix B). Graph parameters other than the chosen graph's are ignored and recorded
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
    """

    graph: GraphConfig = field(default_factory=GraphConfig)
    signal: str = option("lognormal", group="signal")
    signal_mean: float = 1.67
    signal_sigma: float = 1.04
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
        choice("noise", self.noise, NOISE_KINDS)
        if self.method in ("rizk", "rizk_ol") and self.noise != "laplace":
            fail("noise", "laplace for Rizk et al. (Appendix B calibrates Laplace noise)",
                 self.noise)
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        if not real(self.delta) or not 0.0 < self.delta < 1.0:
            fail("delta", "in (0, 1)", self.delta)
        integer("rounds", self.rounds, 1)
        if self.method in ("rizk", "rizk_ol"):
            in_range("learning_rate", self.learning_rate, 0.0, 1.0, "in (0, 1]")
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


__all__ = ["PRIVACIES", "REFERENCES", "SIGNALS", "NetworkConfig"]
