"""Options of a network simulation and their validation.

Defaults are the paper's German-households scenario of Sec. 5 with synthetic signals: a
random geometric graph of 969 nodes and radius 0.1 (seed 0 gives the paper's 13,236
edges), log-normal signals with the fitted μ = 1.67, σ = 1.04, T = 100 rounds, δ = 0.01,
Laplace noise, Metropolis–Hastings weights.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..options import (
    check_checkpoints,
    checkpoint_times,
    choice,
    fail,
    integer,
    plain_options,
    real,
)
from .algorithms import METHODS
from .graphs import GENERATORS, GRAPH_PARAMETERS, GRAPHS, WEIGHTS, GraphSpec, file_digest

PRIVACIES = ("none", "signal", "network")
NOISES = ("laplace", "gaussian")
SIGNALS = ("lognormal", "gaussian")
REFERENCES = ("bound", "exact")
RIZK_STARTS = ("zero", "signal")


@dataclass(frozen=True)
class NetworkConfig:
    """One scenario of the network family.

    ``method`` is the algorithm (see :mod:`sweep.network.algorithms`): ``mvue``
    (Alg. 1/3), ``ol`` (Alg. 2/4/5 for privacy none/signal/network), the ablations
    ``mvue_fresh_noise`` and ``ol_alg4`` (Alg. 4 under Network DP), and Rizk et al.'s
    first-order baseline on either task, ``rizk`` and ``rizk_ol`` (Appendix B).
    ``signal``: ``lognormal`` (ξ(s) = log s, smooth sensitivity, (ε, δ)-DP) or ``gaussian``
    (ξ(s) = s with global sensitivity ``sensitivity``: 1 for the paper's adjacency
    |s − s'| <= 1). ``signal_mean`` and ``signal_sigma`` are the mean and standard deviation
    of ξ(s) (of log s for log-normal signals). Graph parameters other than the chosen
    graph's are ignored and recorded as missing.
    """

    graph: str = "geometric"
    n_nodes: int | None = 969
    radius: float | None = 0.1
    edge_probability: float | None = 0.01
    neighbors: int | None = 4
    rewire_probability: float | None = 0.1
    attachments: int | None = 2
    grid_rows: int | None = 10
    edgelist: str | None = None
    graph_seed: int = 0
    weights: str = "metropolis"
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
        if isinstance(options.get("references"), str):
            options["references"] = (options["references"],)
        config = cls(**options)
        config.validate()
        return config.normalized()

    def validate(self) -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        choice("graph", self.graph, GRAPHS)
        if self.graph == "edgelist":
            if not isinstance(self.edgelist, str) or not self.edgelist:
                fail("edgelist", "the path of an edge-list file for graph=edgelist",
                     self.edgelist)
        else:
            integer("n_nodes", self.n_nodes, 2)
        used = GENERATORS.get(self.graph, ())
        if "radius" in used:
            _in_range("radius", self.radius, 0.0, math.sqrt(2.0), "in (0, √2]")
        if "edge_probability" in used:
            _in_range("edge_probability", self.edge_probability, 0.0, 1.0, "in (0, 1]")
        if "rewire_probability" in used:
            if not real(self.rewire_probability) or not 0 <= self.rewire_probability <= 1:
                fail("rewire_probability", "in [0, 1]", self.rewire_probability)
        if "neighbors" in used:
            integer("neighbors", self.neighbors, 2)
            if self.neighbors % 2 or self.neighbors >= self.n_nodes:
                fail("neighbors", f"an even integer < n_nodes = {self.n_nodes}",
                     self.neighbors)
        if "attachments" in used:
            integer("attachments", self.attachments, 1)
            if self.attachments >= self.n_nodes:
                fail("attachments", f"an integer in [1, n_nodes = {self.n_nodes})",
                     self.attachments)
        if "grid_rows" in used:
            integer("grid_rows", self.grid_rows, 1)
            if self.n_nodes % self.grid_rows:
                fail("grid_rows", f"a divisor of n_nodes = {self.n_nodes}", self.grid_rows)
        if self.graph == "ring" and self.n_nodes < 3:
            fail("n_nodes", "an integer >= 3 for graph=ring", self.n_nodes)
        integer("graph_seed", self.graph_seed, 0)
        choice("weights", self.weights, WEIGHTS)
        choice("signal", self.signal, SIGNALS)
        if not real(self.signal_mean) or not math.isfinite(self.signal_mean):
            fail("signal_mean", "a finite number", self.signal_mean)
        _in_range("signal_sigma", self.signal_sigma, 0.0, math.inf, "a finite number > 0")
        if self.signal == "gaussian":
            _in_range("sensitivity", self.sensitivity, 0.0, math.inf, "a finite number > 0")
        choice("method", self.method, METHODS)
        choice("privacy", self.privacy, PRIVACIES)
        if self.method == "ol_alg4" and self.privacy != "network":
            fail("privacy", "network for method=ol_alg4 (the ablation of Alg. 4 run for "
                 "Network DP)", self.privacy)
        choice("noise", self.noise, NOISES)
        if self.method in ("rizk", "rizk_ol") and self.noise != "laplace":
            fail("noise", "laplace for Rizk et al. (Appendix B calibrates Laplace noise)",
                 self.noise)
        _in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        if not real(self.delta) or not 0.0 < self.delta < 1.0:
            fail("delta", "in (0, 1)", self.delta)
        integer("rounds", self.rounds, 1)
        if self.method in ("rizk", "rizk_ol"):
            _in_range("learning_rate", self.learning_rate, 0.0, 1.0, "in (0, 1]")
            choice("rizk_start", self.rizk_start, RIZK_STARTS)
        check_checkpoints(self.checkpoints, self.rounds, "rounds")
        if not isinstance(self.references, tuple) or not all(
                isinstance(r, str) for r in self.references):
            fail("references", "a list of " + ", ".join(REFERENCES), self.references)
        for reference in self.references:
            choice("references", reference, REFERENCES)

    def normalized(self) -> NetworkConfig:
        """This configuration with the options that do not apply set to ``None``."""
        used = set(GENERATORS.get(self.graph, ()))
        unused = {name: None for name in GRAPH_PARAMETERS if name not in used}
        if self.graph == "edgelist":
            unused["n_nodes"] = None
        else:
            unused["edgelist"] = None
        if self.signal != "gaussian":
            unused["sensitivity"] = None
        if self.method not in ("rizk", "rizk_ol"):
            unused.update(learning_rate=None, rizk_start=None)
        elif self.method == "rizk_ol":
            unused["rizk_start"] = None
        return dataclasses.replace(self, **unused,
                                   references=tuple(dict.fromkeys(self.references)))

    def graph_spec(self) -> GraphSpec:
        """What defines the graph (the file's content, for an edge list)."""
        parameters = tuple((name, getattr(self, name))
                           for name in GENERATORS.get(self.graph, ()))
        digest = file_digest(self.edgelist) if self.graph == "edgelist" else None
        return GraphSpec(self.graph, self.n_nodes, parameters, self.graph_seed, self.weights,
                         self.edgelist, digest)

    def checkpoint_times(self) -> np.ndarray:
        """Rounds at which metrics are recorded (see :func:`sweep.options.checkpoint_times`)."""
        return checkpoint_times(self.checkpoints, self.rounds)

    def as_columns(self) -> dict[str, Any]:
        """The options as result columns; ``method`` is a row column of every family."""
        columns: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("method", "checkpoints"):
                continue
            columns[f.name] = ",".join(value) if isinstance(value, tuple) else value
        return columns


def _in_range(name: str, value: Any, low: float, high: float, allowed: str) -> None:
    """``low < value <= high`` (``high`` excluded when infinite)."""
    if not real(value) or not (low < value <= high) or not math.isfinite(value):
        fail(name, allowed, value)


__all__ = ["NOISES", "PRIVACIES", "REFERENCES", "SIGNALS", "NetworkConfig"]
