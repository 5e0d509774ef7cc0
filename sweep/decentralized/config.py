"""Options of a decentralized (sparse-graph) collaborative mean estimation cell.

Defaults are the default experiment of the public C++ code of Galante, Neglia & Leonardi
(AAAI 2025, "Scalable decentralized algorithms for online personalized mean
estimation"): N = 10,000 agents on a random 10-regular graph built by its configuration
model, two equiprobable classes of means 0 and 1, Gaussian samples of σ = 2, the
optimistic test at failure probability 0.1 (its δ), T = 2,000 steps, the fraction of
agents within 0.1 of their mean as the metric, C-ColME with the global α reset, float32
arithmetic. Three nested option groups: ``graph`` (:class:`GraphOptions`), ``decision``
(:class:`DecisionOptions`) and ``privacy`` (:class:`PrivacyOptions`, this project's own
design: off by default); the privacy budget (ε, δ) is the top-level ``epsilon`` and
``delta``, as in every family.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..components.calibration import mean_release_std
from ..components.graphs import Complete, EdgeList, ErdosRenyi, GraphGroup, GraphKind
from ..options import (
    FILE,
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
    in_range,
    integer,
    magnitude_limit,
    nested,
    option,
    plain_options,
    real,
)

METHODS = ("c_colme", "b_colme", "local")
#: How the random r-regular graph is drawn: the reference's configuration model (stubs
#: matched at random, an invalid pair dropped, a self-loop leaving its agent listed once as
#: its own neighbour) or the same matching with self-loops dropped too ("erased").
CONFIGURATIONS = ("reference", "erased")
SAMPLES = ("gaussian", "bernoulli", "uniform")
ALPHA_RESETS = ("global", "local")
MECHANISMS = ("none", "pm1", "pm2")
NOISES = ("gaussian", "laplace", "staircase")
PRECISIONS = ("float32", "float64")
BASELINES = ("local", "oracle", "ideal")


@dataclass(frozen=True)
class Regular(GraphKind):
    """``regular``: a random ``degree``-regular graph by the configuration model, as
    ``configuration`` says (:data:`CONFIGURATIONS`); a new graph per replicate unless
    ``seed`` fixes one."""

    degree: int = 10
    # The reference's reading of "random regular graph" (self-loops kept as self-entries).
    configuration: str = "reference"
    seed: int | None = None

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        integer(prefix + "degree", self.degree, 1)
        if self.degree >= n_nodes:
            fail(prefix + "degree", f"an integer in [1, n_nodes = {n_nodes})", self.degree)
        if self.degree * n_nodes % 2:
            fail(prefix + "degree", f"such that degree × n_nodes is even (n_nodes = "
                 f"{n_nodes}: the configuration model pairs the stubs)", self.degree)
        choice(prefix + "configuration", self.configuration, CONFIGURATIONS)


@dataclass(frozen=True)
class SparseErdosRenyi(ErdosRenyi):
    """``erdos_renyi``: G(n, p), by default as sparse as the reference's graphs (p =
    0.001: mean degree about 10 at its N = 10,000); a new graph per replicate unless
    ``seed`` fixes one."""

    edge_probability: float = 0.001
    seed: int | None = None


@dataclass(frozen=True)
class Tree(GraphKind):
    """``tree``: the reference's regular tree, agent 0 the root and every agent with
    ``branching`` children, filled level by level."""

    branching: int = 10

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        integer(prefix + "branching", self.branching, 1)


#: The graphs of the family (``graph.kind``) and their variants: its own ``regular`` and
#: ``tree``, and the shared component's G(n, p), complete graph and edge list.
GRAPHS: dict[str, type[GraphKind]] = {"regular": Regular, "erdos_renyi": SparseErdosRenyi,
                                      "tree": Tree, "complete": Complete,
                                      "edgelist": EdgeList}


@dataclass(frozen=True)
class GraphOptions(GraphGroup):
    """The communication graph: the nested option group ``graph``.

    ``kind`` (one of :data:`GRAPHS`): ``regular`` (random ``degree``-regular by the
    configuration model, as ``configuration`` says), ``erdos_renyi`` (G(n,
    ``edge_probability``)), ``tree`` (every agent has ``branching`` children, filled level
    by level: the reference's regular tree), ``complete``, or ``edgelist`` (a file of
    ``u v`` lines, ``#`` comments). A kind's parameters are unset (None) unless given: its
    variant (:class:`Regular`, ...) holds their defaults, and one set for a kind that does
    not take it is refused. ``seed`` (the random kinds': ``regular``, ``erdos_renyi``):
    None draws a new graph per replicate, from the replicate's stream, as the reference
    does per seed; an integer fixes one graph for the cell.
    """

    VARIANTS: ClassVar[Mapping[str, type[GraphKind]]] = GRAPHS
    COMMON: ClassVar[tuple[str, ...]] = ("n_nodes",)

    kind: str = option("regular", group="graph")
    n_nodes: int | None = 10_000
    degree: int | None = None
    # A reading (the reference's, ``reference``, is :class:`Regular`'s default).
    configuration: str | None = option(None, kind=READING)
    edge_probability: float | None = None
    branching: int | None = None
    edgelist: str | None = option(None, kind=FILE)
    seed: int | None = None

    def validate(self) -> None:
        self.validate_kind()
        if self.seed is not None:
            integer("graph.seed", self.seed, 0)

    @property
    def fixed(self) -> bool:
        """Whether every replicate runs on the same graph: a graph that is not random
        (its kind takes no ``seed``), or a seed given."""
        return self.seed is not None or "seed" not in {
            f.name for f in dataclasses.fields(GRAPHS[self.kind])}


@dataclass(frozen=True)
class DecisionOptions:
    """The optimistic neighbour test: the nested option group ``decision``.

    Agent a keeps neighbour b while |x̂_a − x̂_b| − β_a − β_b <= 0, with the reference's
    radius β(n) = σ √((2/n)(1 + 1/n) ln(√(n + 1)/γ)), γ = ``failure_probability``/(4 ×
    the number of directed edges), β = ∞ for n < 2 (the reference's δ: the probability
    that some test ever cuts a same-class link, not a privacy parameter).
    ``irrevocable`` (the reference's choice): an excluded neighbour is never tested
    again; otherwise every neighbour is tested at every step and may come back.
    """

    failure_probability: float = 0.1
    # The reference's reading: an excluded neighbour is never tested again.
    irrevocable: bool = option(True, kind=READING)

    def validate(self) -> None:
        if not real(self.failure_probability) or not 0.0 < self.failure_probability < 1.0:
            fail("decision.failure_probability", "in (0, 1)", self.failure_probability)
        if not isinstance(self.irrevocable, bool | np.bool_):
            fail("decision.irrevocable", "true or false", self.irrevocable)


@dataclass(frozen=True)
class PrivacyOptions:
    """What an agent releases: the nested option group ``privacy``.

    This is the platform's own design (no published private C-ColME or B-ColME code).
    ``mechanism``: ``none`` (the reference: neighbours see the exact running means),
    ``pm1`` or ``pm2``, Private-ColME's mechanisms (journal, Sec. IV) run over the
    agent's own stream with a release at every step, spending the budget (ε, δ) of the
    top-level ``epsilon`` and ``delta`` (:class:`DecentralizedConfig`): PM-I adds a
    fresh p-sum noise per step (each sample in one p-sum: the whole run is (ε, δ)-DP per
    sample), PM-II the binary mechanism's (each sample in up to ⌊log2 t_max⌋ + 1 p-sums;
    ``pm2_split`` divides (ε, δ) by that number, so that the run is (ε, δ)-DP).
    ``noise``: Lemma 1's Gaussian mechanism (per-release ε <= 1), Lemma 2's Laplace
    mechanism, or the staircase mechanism of the same sensitivity 2L (ε-DP as Laplace
    noise is, of less variance; :mod:`sweep.components.staircase`). Every value an agent
    sends (its consensus value, its belief-propagation sums, its test decisions) is
    computed from releases only, so the guarantee holds by post-processing; its own
    estimate also uses its exact local mean, which it keeps.

    Honest privacy settings (:meth:`DecentralizedConfig.check_guarantee`, when a cell is
    prepared to run): a weaker guarantee than the options suggest runs only if an
    acknowledgement (kind ``permit``: in neither the cell's identity nor its columns, so
    setting it changes no cell id and no row) says it is meant. ``pm2_split=false`` with
    PM-II makes the run only ((⌊log2 t_max⌋ + 1)ε, (⌊log2 t_max⌋ + 1)δ)-DP by basic
    composition: it needs ``allow_pm2_unsplit=true`` (refused rather than recorded: new
    result columns would change every stored row). With Gaussian noise the run's δ must
    be at most 0.1 and at most 1/n for its n = n_nodes × t_max protected samples, unless
    ``allow_large_delta=true``.
    """

    mechanism: str = "none"
    noise: str = "gaussian"
    pm2_split: bool = True
    # Acknowledgements (``permit``): they let a weaker guarantee run, and change no result.
    allow_large_delta: bool = option(False, kind=PERMIT)
    allow_pm2_unsplit: bool = option(False, kind=PERMIT)

    def validate(self) -> None:
        choice("privacy.mechanism", self.mechanism, MECHANISMS)
        choice("privacy.noise", self.noise, NOISES)
        for name in ("pm2_split", "allow_large_delta", "allow_pm2_unsplit"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                fail("privacy." + name, "true or false", getattr(self, name))

    def normalized(self) -> PrivacyOptions:
        """Settings that do not apply at their defaults: all of them without a mechanism,
        ``pm2_split`` with PM-I."""
        if self.mechanism == "none":
            return PrivacyOptions()
        if self.mechanism == "pm1":
            return dataclasses.replace(self, pm2_split=True)
        return self


@dataclass(frozen=True)
class DecentralizedConfig:
    """One scenario of the decentralized family.

    ``method``: ``c_colme`` (consensus), ``b_colme`` (belief propagation over ``depth``
    hops, D), or ``local`` (each agent's own running mean). ``alpha_reset`` (C-ColME):
    ``global``, the reference's (every agent restarts its α = s/(s + 1) when any agent
    changed its neighbours at the previous step, and freezes it once no wrong link is
    left: knowledge no agent has), or ``local``, a decentralized alternative: agent a
    restarts when it, or one of the neighbours it keeps, changed its neighbours at the
    previous step (one bit sent with each message), and never freezes.

    Agents' classes are drawn independently with probabilities ``class_proportions``;
    class c's samples have mean ``class_means[c]``: ``gaussian`` N(μ, σ²), ``uniform``
    on [μ − σ√3, μ + σ√3] (standard deviation σ), or ``bernoulli`` (μ in [0, 1], σ
    unused). The test radius uses σ for Gaussian samples, the half-width L of the
    support for bounded ones (Hoeffding: L = 1/2 for Bernoulli).

    ``accuracy`` is ε_acc of the reference's metric (the fraction of agents within it
    of their mean). ``precision``: ``float32``, the reference's arithmetic (same
    operations in the same order), or ``float64``; class means, σ and ``epsilon``
    whose sums and squares over a run would overflow it are refused
    (:meth:`check_arithmetic`). ``baselines``: rows next to the
    method's, on the same data: ``local``, ``oracle`` (the method run with the true
    same-class neighbours, never tested), ``ideal`` (the mean of the local means over the
    agent's same-class connected component).

    ``epsilon`` and ``delta``: the differential-privacy budget (ε, δ) of every agent's
    whole run of releases with respect to each of its samples, spent as ``privacy`` says
    (:class:`PrivacyOptions`); they do not apply without a mechanism. The neighbour
    test's failure probability is ``decision.failure_probability``.
    """

    graph: GraphOptions = field(default_factory=GraphOptions)
    method: str = option("c_colme", kind=ROWS)
    depth: int | None = 4
    # The reference's reading of C-ColME's α schedule (a global restart and freeze).
    alpha_reset: str | None = option("global", kind=READING)
    t_max: int = 2000
    class_means: tuple[float, ...] = (0.0, 1.0)
    class_proportions: tuple[float, ...] = (0.5, 0.5)
    samples: str = "gaussian"
    sigma: float | None = 2.0
    accuracy: float = 0.1
    decision: DecisionOptions = field(default_factory=DecisionOptions)
    epsilon: float = 1.0
    delta: float = 1e-6
    privacy: PrivacyOptions = field(default_factory=PrivacyOptions)
    # The reference's arithmetic.
    precision: str = option("float32", kind=READING)
    checkpoints: int | tuple[int, ...] = option(100, kind=ROWS)
    baselines: tuple[str, ...] = ("local", "oracle", "ideal")

    @classmethod
    def from_options(cls, **options: Any) -> DecentralizedConfig:
        """Build, validate and normalize a configuration from keyword options (nested
        groups as mappings); :class:`ConfigError` naming the first bad key."""
        options = plain_options(cls, options)
        for name, group in (("graph", GraphOptions), ("decision", DecisionOptions),
                            ("privacy", PrivacyOptions)):
            options[name] = nested(group, options.get(name, {}), f"{name}.")
        if isinstance(options.get("baselines"), str):
            options["baselines"] = (options["baselines"],)
        for name in ("class_means", "class_proportions"):
            if isinstance(options.get(name), tuple):
                options[name] = tuple(float(v) if real(v) else v for v in options[name])
        config = cls(**options)
        config.validate()
        return config.normalized()

    def validate(self) -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        self.graph.validate()
        choice("method", self.method, METHODS)
        if self.method == "b_colme":
            integer("depth", self.depth, 1)
        if self.method == "c_colme":
            choice("alpha_reset", self.alpha_reset, ALPHA_RESETS)
        integer("t_max", self.t_max, 1)
        self._validate_classes()
        choice("samples", self.samples, SAMPLES)
        if self.samples != "bernoulli":
            in_range("sigma", self.sigma, 0.0, math.inf, "a finite number > 0")
        in_range("accuracy", self.accuracy, 0.0, math.inf, "a finite number > 0")
        self.decision.validate()
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        if not real(self.delta) or not 0.0 < self.delta < 1.0:
            fail("delta", "in (0, 1)", self.delta)
        self.privacy.validate()
        if self.private and self.privacy.noise == "gaussian":
            check_gaussian_epsilon("privacy.", self.epsilon, self.release_budget()[0])
        if self.privacy.mechanism != "none" and self.samples == "gaussian":
            fail("samples", f"bernoulli or uniform with privacy.mechanism="
                 f"{self.privacy.mechanism} (the release's sensitivity needs bounded "
                 "samples)", self.samples)
        choice("precision", self.precision, PRECISIONS)
        if self.graph.n_nodes is not None:  # an edge list's: when the family reads it
            self.check_arithmetic(self.graph.n_nodes)
        check_checkpoints(self.checkpoints, self.t_max, "t_max")
        if not isinstance(self.baselines, tuple):
            fail("baselines", "a list of " + ", ".join(BASELINES), self.baselines)
        for name in self.baselines:
            choice("baselines", name, BASELINES)
        if len(set(self.baselines)) != len(self.baselines):
            fail("baselines", "distinct names", list(self.baselines))
        if self.method == "local" and set(self.baselines) & {"local", "oracle"}:
            fail("baselines", "ideal or nothing for method=local (the local estimate is "
                 "the method's; an oracle needs c_colme or b_colme)", list(self.baselines))

    def _validate_classes(self) -> None:
        means, proportions = self.class_means, self.class_proportions
        if not isinstance(means, tuple) or not means or not all(
                real(m) and math.isfinite(m) for m in means):
            fail("class_means", "a non-empty list of finite numbers", means)
        if len(set(means)) != len(means):
            fail("class_means", "distinct numbers (a class is the agents of one mean)",
                 list(means))
        if self.samples == "bernoulli" and not all(0.0 <= m <= 1.0 for m in means):
            fail("class_means", "probabilities in [0, 1] for samples=bernoulli", list(means))
        if not isinstance(proportions, tuple) or len(proportions) != len(means) or not all(
                real(p) and 0.0 < p <= 1.0 for p in proportions):
            fail("class_proportions", f"a list of {len(means)} numbers in (0, 1], one per "
                 "class mean", proportions)
        if abs(math.fsum(proportions) - 1.0) > 1e-9:
            fail("class_proportions", "numbers summing to 1", list(proportions))

    def check_arithmetic(self, n_nodes: int) -> None:
        """Refuse class means, σ and ε whose run would overflow ``precision``: a
        sample is within |μ| + its spread of 0 (TAIL·σ for Gaussian samples, the support's
        half-width for bounded ones), a p-sum's noise within TAIL·σ_DP, and each of the
        three parts must be at most a third of :func:`~sweep.options.magnitude_limit` of
        the run's n_nodes × t_max values in that precision (B-ColME's messages sum at
        most all of them); ``accuracy`` must be a number of the precision."""
        values, dtype = n_nodes * self.t_max, self.dtype
        limit = magnitude_limit(values, dtype) / 3.0
        largest = max(abs(m) for m in self.class_means)
        check_magnitude("class_means", list(self.class_means), largest, limit,
                        f"numbers of magnitude at most {limit:.3g}", values, dtype)
        if self.samples != "bernoulli":
            factor = TAIL if self.samples == "gaussian" else math.sqrt(3.0)
            check_magnitude("sigma", self.sigma, factor * self.sigma, limit,
                            f"at most {limit / factor:.3g}", values, dtype)
        top = float(np.finfo(dtype).max)
        if self.accuracy > top:
            fail("accuracy", f"at most {top:.3g} for precision={self.precision}",
                 self.accuracy)
        if self.private:
            # σ_DP is inversely proportional to ε: TAIL × its value at ε = 1.
            unit = TAIL * self.noise_scale(1.0)
            check_magnitude("epsilon", self.epsilon, unit / self.epsilon, limit,
                            f"at least {unit / limit:.3g}, the noise's scale being "
                            f"{unit / TAIL:.3g}/ε", values, dtype)

    def release_budget(self) -> tuple[float, float]:
        """(ε, δ) each p-sum is calibrated with: PM-II's divided by ⌊log2 t_max⌋ + 1
        with ``privacy.pm2_split`` (every sample is in at most that many p-sums)."""
        privacy = self.privacy
        parts = self.t_max.bit_length() if privacy.mechanism == "pm2" and privacy.pm2_split else 1
        return self.epsilon / parts, self.delta / parts

    def check_guarantee(self, n_nodes: int) -> None:
        """Refuse a run whose guarantee is weaker than its options suggest, unless its
        acknowledgement says that it is meant (see :class:`PrivacyOptions`): PM-II without
        its split (``privacy.allow_pm2_unsplit``), a ``delta`` above min(0.1, 1/n) for the
        run's n = n_nodes × t_max samples (``privacy.allow_large_delta``; the run's δ,
        ⌊log2 t_max⌋ + 1 times ``delta`` without the split). Called when a cell is prepared
        to run (:meth:`DecentralizedFamily.prepare`): a configuration may still describe
        such a run, for an audit."""
        check_release_guarantee(self.privacy, "privacy.", self.epsilon, self.delta,
                                self.t_max, n_nodes * self.t_max, "n_nodes × t_max")

    def noise_scale(self, epsilon: float | None = None) -> float:
        """σ_DP of every p-sum's noise (0 without a mechanism): Lemma 1 (``gaussian``),
        Lemma 2 (``laplace``) or the staircase with the data bound L and the per-p-sum
        budget, at the overall ``epsilon`` (default: the configured one)."""
        if not self.private:
            return 0.0
        config = self if epsilon is None else dataclasses.replace(self, epsilon=epsilon)
        release_epsilon, release_delta = config.release_budget()
        return mean_release_std(self.privacy.noise, self.data_bound(), release_epsilon,
                                release_delta)

    def normalized(self) -> DecentralizedConfig:
        """Options that do not apply set to None (or their defaults), so that they
        neither split cells nor show in the results."""
        unused: dict[str, Any] = {}
        if self.method != "b_colme":
            unused["depth"] = None
        if self.method != "c_colme":
            unused["alpha_reset"] = None
        if self.samples == "bernoulli":
            unused["sigma"] = None
        # The local mean releases nothing: its cells do not differ by privacy.
        privacy = PrivacyOptions() if self.method == "local" else self.privacy.normalized()
        if privacy.mechanism == "none":  # no release is noised: the budget is not spent
            unused.update(epsilon=DecentralizedConfig.epsilon,
                          delta=DecentralizedConfig.delta)
        return dataclasses.replace(self, **unused, graph=self.graph.normalized(),
                                   privacy=privacy)

    @property
    def private(self) -> bool:
        return self.privacy.mechanism != "none"

    @property
    def dtype(self) -> type:
        return np.float32 if self.precision == "float32" else np.float64

    def data_bound(self) -> float:
        """Half-width L of the samples' support (bounded samples), or σ's sub-Gaussian
        scale for Gaussian ones: the test radius's scale."""
        if self.samples == "bernoulli":
            return 0.5
        if self.samples == "uniform":
            return math.sqrt(3.0) * self.sigma
        return self.sigma

    def checkpoint_times(self) -> np.ndarray:
        """Steps t (samples per agent, 1..t_max) at which rows are recorded."""
        return checkpoint_times(self.checkpoints, self.t_max)


__all__ = ["ALPHA_RESETS", "BASELINES", "CONFIGURATIONS", "GRAPHS", "MECHANISMS", "METHODS",
           "NOISES", "PRECISIONS", "SAMPLES", "DecentralizedConfig", "DecisionOptions",
           "GraphOptions", "PrivacyOptions", "Regular", "SparseErdosRenyi", "Tree"]
