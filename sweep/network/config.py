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

from ..components.graphs import GRAPH_PARAMETERS, GraphConfig, GraphSpec
from ..options import (
    as_dict,
    check_checkpoints,
    checkpoint_times,
    choice,
    fail,
    flat_columns,
    in_range,
    integer,
    plain_options,
    real,
)
from .algorithms import METHODS

PRIVACIES = ("none", "signal", "network")
NOISES = ("laplace", "gaussian")
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
    ``mvue_fresh_noise`` and ``ol_alg4`` (Alg. 4 under Network DP), and Rizk et al.'s
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
    """

    graph: GraphConfig = field(default_factory=GraphConfig)
    signal: str = "lognormal"
    signal_mean: float = 1.67
    signal_sigma: float = 1.04
    sensitivity: float | None = 1.0
    method: str = "mvue"
    privacy: str = "signal"
    noise: str = "laplace"
    epsilon: float = 1.0
    delta: float = 0.01
    rounds: int = 100
    learning_rate: float | None = 0.001
    rizk_start: str | None = "zero"
    checkpoints: int | tuple[int, ...] = 100
    references: tuple[str, ...] = ("bound", "exact")

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
        choice("noise", self.noise, NOISES)
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

    def normalized(self) -> NetworkConfig:
        """This configuration with the options that do not apply set to ``None``."""
        unused: dict[str, Any] = {}
        if self.signal != "gaussian":
            unused["sensitivity"] = None
        if self.method not in ("rizk", "rizk_ol"):
            unused.update(learning_rate=None, rizk_start=None)
        elif self.method == "rizk_ol":
            unused["rizk_start"] = None
        return dataclasses.replace(self, **unused, graph=self.graph.normalized(),
                                   references=tuple(dict.fromkeys(self.references)))

    def graph_spec(self) -> GraphSpec:
        """What defines the graph (the file's content, for an edge list)."""
        return self.graph.spec()

    def identity(self, edgelist_sha256: str | None = None) -> dict[str, Any]:
        """The options as the cell identity hashes them: flat, as before the graph group.

        The cell's random streams derive from this dict, so it keeps the flat keys
        ``graph`` (the kind), ``n_nodes``, the generator parameters, ``edgelist`` (the
        file's sha256 when given) and ``graph_seed``, ``weights``; existing results keep
        their streams.
        """
        graph = self.graph
        flat: dict[str, Any] = {"graph": graph.kind, "n_nodes": graph.n_nodes}
        flat.update((name, getattr(graph, name)) for name in _LEGACY_PARAMETERS)
        # A parameter added to the graph group later enters only where it is used, so
        # that the cells of the other graphs keep their identity.
        flat.update((name, getattr(graph, name)) for name in GRAPH_PARAMETERS
                    if name not in _LEGACY_PARAMETERS and getattr(graph, name) is not None)
        flat.update(edgelist=edgelist_sha256 or graph.edgelist, graph_seed=graph.seed,
                    weights=graph.weights)
        rest = as_dict(self)
        del rest["graph"]
        return {**flat, **rest}

    def checkpoint_times(self) -> np.ndarray:
        """Rounds at which metrics are recorded (see :func:`sweep.options.checkpoint_times`)."""
        return checkpoint_times(self.checkpoints, self.rounds)

    def as_columns(self) -> dict[str, Any]:
        """The options as result columns (:func:`sweep.options.flat_columns`)."""
        return flat_columns(self)


# The generator parameters the flat identity has always held (None when unused).
_LEGACY_PARAMETERS = ("radius", "edge_probability", "neighbors", "rewire_probability",
                      "attachments", "grid_rows")


__all__ = ["NOISES", "PRIVACIES", "REFERENCES", "SIGNALS", "NetworkConfig"]
