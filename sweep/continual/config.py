"""Options of a continual-mean simulation and their validation.

Defaults: n = 1000 users giving at most m = 64 Bernoulli(1/2) samples each, in uniformly
random order, T = 50,000 releases, ε = 1, failure probability 0.05 (the paper's δ), one
dimension, Algorithm 6. Every choice the paper leaves open is an option documented here
and in ``sweep/continual/__init__.py`` (the errata).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..options import (
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
    nested,
    option,
    plain_options,
    real,
    variant,
    with_variant,
)

#: The algorithms (``method``): the running mean, per-step Laplace, and Algs 2–6.
METHODS = ("non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6")
#: The mechanisms' noise (``noise``): the paper's Laplace noise, or the staircase.
NOISES = ("laplace", "staircase")
#: The methods that take the prior μ̃ (given as ``prior_offset`` from μ).
PRIOR_METHODS = ("alg3", "alg4", "alg5")
COMPOSITIONS = ("basic", "advanced")
#: L = ⌈log2 m⌉ as Algorithms 5 and 6 print it, or ⌊log2 m⌋ as the proof of Thm 3.2 does.
LEVEL_COUNTS = ("ceil", "floor")
#: The most users: their ids are 32-bit integers.
USERS = 2**31 - 1


def default_prior_offset(max_samples: int) -> float:
    """μ̃ − μ of the methods that take a prior when ``prior_offset`` is unset: 1/(2√m),
    half the distance the theorems allow."""
    return 1.0 / (2.0 * math.sqrt(max_samples))


@dataclass(frozen=True)
class Plain:
    """An order without parameters: ``contiguous``, ``round_robin``, ``uniform`` or
    ``staggered``."""

    def validate(self, n_users: int, max_samples: int) -> None:
        """Nothing to check: the order takes no parameter (its variants' checks name the
        dotted key, ``order.light_samples``)."""

    def capacity(self, n_users: int, max_samples: int) -> int:
        """The most samples the order can draw: n·m."""
        return n_users * max_samples


@dataclass(frozen=True)
class Zipf(Plain):
    """``zipf``: user u picked with probability ∝ (u + 1)^−s, s = ``zipf_exponent``."""

    zipf_exponent: float = 1.0

    def validate(self, n_users: int, max_samples: int) -> None:
        in_range("order.zipf_exponent", self.zipf_exponent, 0.0, math.inf,
                 "a finite number > 0")


@dataclass(frozen=True)
class OneHeavy(Plain):
    """``one_heavy``: user 0 gives m samples, every other user ``light_samples``."""

    light_samples: int = 5

    def validate(self, n_users: int, max_samples: int) -> None:
        integer("order.light_samples", self.light_samples, 1)
        if self.light_samples > max_samples:
            fail("order.light_samples", f"<= max_samples = {max_samples}",
                 self.light_samples)

    def capacity(self, n_users: int, max_samples: int) -> int:
        """m + (n − 1)·light_samples."""
        return max_samples + (n_users - 1) * self.light_samples


@dataclass(frozen=True)
class FewHeavy(Plain):
    """``few_heavy``: users 0..``heavy_users``−1 give all their samples first."""

    heavy_users: int = 4

    def validate(self, n_users: int, max_samples: int) -> None:
        integer("order.heavy_users", self.heavy_users, 1)
        if self.heavy_users >= n_users:
            fail("order.heavy_users", f"< n_users = {n_users}", self.heavy_users)


#: The arrival orders (``order.kind``) and their variants, in the order the study shows
#: them.
ORDERS: dict[str, type[Plain]] = {
    "contiguous": Plain, "round_robin": Plain, "uniform": Plain, "zipf": Zipf,
    "one_heavy": OneHeavy, "staggered": Plain, "few_heavy": FewHeavy}


@dataclass(frozen=True)
class OrderConfig:
    """The arrival order: the nested option group ``order`` (``order.kind=zipf
    order.zipf_exponent=1.5``), ``kind`` one of :data:`ORDERS`, whose variant documents
    the parameter it takes and its default; the other orders leave it None."""

    kind: str = option("uniform", group="order")
    zipf_exponent: float | None = None
    light_samples: int | None = None
    heavy_users: int | None = None

    def variant(self) -> Plain:
        """The variant of ``kind`` with the parameters set here (refusing the others)."""
        return variant(self, ORDERS, "order.")

    def normalized(self) -> OrderConfig:
        """The kind's parameter with its default, None for the others."""
        return with_variant(self, self.variant())


@dataclass(frozen=True)
class ContinualConfig:
    """One scenario of the continual family.

    The stream has ``t_max`` (T) samples x_t ~ Bernoulli(``mu``)^``dimension`` from
    ``n_users`` (n) users, each giving at most ``max_samples`` (m), arriving in the order
    ``order`` (:class:`OrderConfig`: ``order.kind``, and ``order.zipf_exponent``,
    ``order.light_samples`` or ``order.heavy_users`` for the orders that take them;
    :mod:`sweep.continual.orders`). ``method`` releases μ̂_t at every t under user-level
    ``epsilon``-DP. ``failure_probability`` is the failure probability δ of the paper,
    that of its guarantees (it also enters the projection intervals and activation
    thresholds), not a DP δ: the platform names it so because ``delta`` is the DP δ in
    every family. The releases are ε-DP, and for d > 1 with ``composition=advanced``
    (ε, ``delta``)-DP, ``delta`` being the paper's δ̃; the other families' rule on a DP δ
    (at most 0.1 and 1/n, :func:`sweep.options.check_delta`) applies to it (n =
    ``n_users``), unless ``allow_large_delta=true``, and not to ``failure_probability``.
    ``prior_offset`` is μ̃ − μ for the methods that take a prior (Algs 3–5; default
    1/(2√m)); an offset beyond 1/√m breaks the theorems' assumption and is flagged in the
    ``prior_assumption`` column.

    ``dimension`` d > 1 runs the method on each coordinate, each at ε/d (``composition=
    basic``) or at the ε₀ for which d-fold advanced composition (Dwork, Rothblum &
    Vadhan, Thm III.3) gives (ε, ``delta``)-DP. ``level_count`` is how L is rounded
    (``ceil`` as Algs 5–6 print, ``floor`` as the proof of Thm 3.2). ``bound_constant``
    is the absolute constant c of Lemma A.2 in the bounds (the paper leaves it open; 4
    makes Lemma A.2's ln(1/δ) form hold for a failure probability δ <= 0.35).
    ``noise_scale`` (not the paper's: a control) replaces the Laplace scale η of every
    binary mechanism, per-step release and level by one number: 0 runs the method without
    noise, and one value for two methods compares them under equal noise, so that a
    comparison changes one thing at a time (Alg. 4 against Alg. 5: their withhold-release
    and projections are the same, their noise is not). Unset (the default), η is the
    paper's, calibrated to ε; set, the releases are not ε-DP. PrivateMedian (Alg. 6)
    keeps its exponential mechanism. ``noise`` (not the paper's) is the noise of every
    p-sum and per-step release: ``laplace`` of scale η = Δ/ε' (the paper's), or
    ``staircase``, Geng & Viswanath's ε'-DP noise of least variance for the same
    sensitivity Δ and budget ε' (:mod:`sweep.components.staircase`); the theorems' bounds
    are stated for Laplace noise, so its cells have no ``bound`` rows of their method.
    """

    n_users: int = 1000
    max_samples: int = 64
    t_max: int = 50_000
    mu: float = 0.5
    order: OrderConfig = field(default_factory=OrderConfig)
    method: str = option("alg6", kind=ROWS)
    epsilon: float = 1.0
    failure_probability: float = 0.05
    prior_offset: float | None = None
    dimension: int = 1
    composition: str = "basic"
    delta: float | None = None
    # An acknowledgement (``permit``): in neither the cell's identity nor its columns.
    allow_large_delta: bool = option(False, kind=PERMIT)
    level_count: str = option("ceil", kind=READING)
    bound_constant: float = 4.0
    noise_scale: float | None = None
    noise: str = option("laplace", since=3)
    checkpoints: int | tuple[int, ...] = option(40, kind=ROWS)

    @classmethod
    def from_options(cls, **options: Any) -> ContinualConfig:
        """Build, validate and normalize a configuration from keyword options (the order
        as a mapping of its options)."""
        options = plain_options(cls, options)
        options["order"] = nested(OrderConfig, options.get("order", {}), "order.")
        config = cls(**options)
        config.validate()
        return config.normalized()

    def validate(self) -> None:
        """Raise :class:`~sweep.errors.ConfigError` on the first option outside its range."""
        self._validate_stream()
        self._validate_release()
        check_checkpoints(self.checkpoints, self.t_max, "t_max")

    def _validate_stream(self) -> None:
        """The users, their samples and their arrival order."""
        integer("n_users", self.n_users, 1)
        if self.n_users > USERS:
            fail("n_users", f"an integer in [1, {USERS}] (user ids are 32-bit)", self.n_users)
        integer("max_samples", self.max_samples, 1)
        integer("t_max", self.t_max, 1)
        if self.max_samples > self.t_max:
            fail("max_samples", f"<= t_max = {self.t_max} (a user gives at most T samples)",
                 self.max_samples)
        if not real(self.mu) or not 0.0 <= self.mu <= 1.0:
            fail("mu", "in [0, 1] (the mean of Bernoulli samples)", self.mu)
        order = self.order.variant()
        order.validate(self.n_users, self.max_samples)
        capacity = order.capacity(self.n_users, self.max_samples)
        if self.t_max > capacity:
            where = (f"max_samples + (n_users − 1)·order.light_samples = {self.max_samples} "
                     f"+ {self.n_users - 1}·{order.light_samples}"
                     if isinstance(order, OneHeavy)
                     else f"n_users·max_samples = {self.n_users}·{self.max_samples}")
            fail("t_max", f"<= {capacity} = {where}, the samples order.kind={self.order.kind} "
                 "can draw", self.t_max)

    def _validate_release(self) -> None:
        """The method, its privacy and its prior; the coordinates' composition."""
        choice("method", self.method, METHODS)
        in_range("epsilon", self.epsilon, 0.0, math.inf, "a finite number > 0")
        if not real(self.failure_probability) or not 0.0 < self.failure_probability < 1.0:
            fail("failure_probability", "in (0, 1)", self.failure_probability)
        if self.prior_offset is not None:
            if self.method not in PRIOR_METHODS:
                why = (" (alg6 estimates its priors with PrivateMedian)"
                       if self.method == "alg6" else "")
                fail("prior_offset", f"unset for method={self.method}: only "
                     f"{', '.join(PRIOR_METHODS)} take a prior{why}", self.prior_offset)
            if not real(self.prior_offset) or not -1.0 <= self.prior_offset <= 1.0:
                fail("prior_offset", "in [-1, 1] (μ̃ − μ)", self.prior_offset)
        integer("dimension", self.dimension, 1)
        choice("composition", self.composition, COMPOSITIONS)
        if self.delta is not None:
            if self.composition != "advanced":
                fail("delta", "unset unless composition=advanced", self.delta)
            if not real(self.delta) or not 0.0 < self.delta < 1.0:
                fail("delta", "in (0, 1)", self.delta)
        if not isinstance(self.allow_large_delta, bool | np.bool_):
            fail("allow_large_delta", "true or false", self.allow_large_delta)
        choice("level_count", self.level_count, LEVEL_COUNTS)
        choice("noise", self.noise, NOISES)
        in_range("bound_constant", self.bound_constant, 0.0, math.inf, "a finite number > 0")
        if self.noise_scale is not None and (
                not real(self.noise_scale) or not 0.0 <= self.noise_scale < math.inf):
            fail("noise_scale", "unset or a finite number >= 0 (the Laplace scale η)",
                 self.noise_scale)
        if self.noise_scale is not None:
            # A release sums up to t_max samples and noises: they must stay finite.
            limit = magnitude_limit(self.t_max) / 2.0
            check_magnitude("noise_scale", self.noise_scale, TAIL * self.noise_scale, limit,
                            f"unset or at most {limit / TAIL:.3g}", self.t_max)

    def check_guarantee(self) -> None:
        """Refuse advanced composition's ``delta`` (the paper's δ̃, a DP δ over the run's
        ``n_users`` users) above min(0.1, 1/n) unless ``allow_large_delta`` says that it is
        meant. Called when a cell is prepared to run (:meth:`ContinualFamily.prepare`): a
        configuration may still describe such a run, as the tests of the composition do."""
        composed = self.normalized().delta
        if composed is not None:
            check_delta("delta", composed, self.n_users, "n_users", "user",
                        "allow_large_delta", bool(self.allow_large_delta))

    def normalized(self) -> ContinualConfig:
        """The order's parameter with its default; the prior's default filled in for
        Algs 3–5; the DP ``delta`` for advanced composition (default 1e-6) and nothing
        for basic."""
        changes: dict[str, Any] = {"order": self.order.normalized()}
        if self.method in PRIOR_METHODS and self.prior_offset is None:
            changes["prior_offset"] = default_prior_offset(self.max_samples)
        if self.composition == "basic" or self.dimension == 1:
            changes.update(composition="basic", delta=None)
        elif self.delta is None:
            changes["delta"] = 1e-6
        return dataclasses.replace(self, **changes)

    @property
    def prior(self) -> float | None:
        """μ̃ = μ + ``prior_offset`` (not clipped to [0, 1]), or None without a prior."""
        return None if self.prior_offset is None else self.mu + self.prior_offset

    @property
    def prior_assumption(self) -> bool | None:
        """Whether |μ̃ − μ| <= 1/√m, the theorems' assumption on the prior."""
        if self.prior_offset is None:
            return None
        return abs(self.prior_offset) <= 1.0 / math.sqrt(self.max_samples) + 1e-12

    def checkpoint_times(self):
        """Times at which rows are recorded (see :func:`sweep.options.checkpoint_times`)."""
        return checkpoint_times(self.checkpoints, self.t_max)


__all__ = ["COMPOSITIONS", "LEVEL_COUNTS", "METHODS", "NOISES", "ORDERS", "PRIOR_METHODS",
           "ContinualConfig", "FewHeavy", "OneHeavy", "OrderConfig", "Plain", "Zipf",
           "default_prior_offset"]
