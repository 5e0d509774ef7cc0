"""User-level privacy of the continual-mean methods, audited (George, Ramesh, Singh & Tyagi,
"Continual Mean Estimation Under User-Level Privacy"; :mod:`sweep.continual`).

Neighbours (Def. 2.1): the same arrivals u_1..u_T, the samples of ONE user changed
arbitrarily (Bernoulli samples: each 0 or 1). What a method releases is a post-processing
of

* the noisy p-sums of its binary mechanisms (Alg. 1): mechanism j adds Lap(η_j) to each
  p-sum it creates. :func:`~sweep.continual.simulate.run_coordinate` traces every p-sum
  created, exactly (``trace`` rows, :data:`~sweep.continual.simulate.TRACE`); for
  ``naive_laplace`` every running sum, each with Lap(η_0), η_0 = mT/ε (erratum 13);
* Alg. 6's priors μ̃_ℓ, drawn by PrivateMedian (Alg. 7) at ε' = ``median_epsilon``:
  the exponential mechanism with weights exp(−ε' c(y)/4), i.e. declared score
  sensitivity Δc = 2 (Claim E.1). Its privacy loss on a pair is ε'·max_y |c(y) − c'(y)|/2
  (the ratio of the weights times that of the normalizers).

Which p-sums are created, and when, depends on the arrivals only (the withhold-release
pattern, Alg. 6's activation thresholds): both streams of a pair create the same p-sums in
the same order, which :func:`privacy_loss` checks. The priors are conditioned on
(adaptive composition): both runs of a pair get the priors of a normal run of one stream,
or priors chosen to make the projections bind (``forced``). The loss of a pair (Dwork &
Roth, Thms 3.6 and 3.16, basic composition) is

    Σ_j Σ_k |S_jk − S'_jk| / η_j  +  Σ_ℓ ε'·max_y |c_ℓ(y) − c'_ℓ(y)| / 2,

the first sum being the ``laplace`` accountant of :mod:`tests.audit` (ℓ1 standardized
shift, mixing=None); it must not exceed the coordinate's ε.

Pairs: for every user (a sample of 40, the heaviest and first ones included, for larger
n), all its samples 0 against all 1 — each element, and so each p-sum, then moves the
most, all in one direction (the projections are monotone) — on a random, an all-0 and an
all-1 background; and random users with random replacements. Algs 3–5's projections bind
at both edges where 2Δ_ℓ is below the block's range (m = 64, prior at mid-range);
Alg. 6's bind at one edge with forced priors 0 or 1 (m = 128).

Findings (largest loss / ε over the default grid, the tests say where):

* no method spends more than ε, and PrivateMedian's score moves by 2 at most (reached);
* ``alg2``: 1 for m = 1 (the sample at t = 1 is in every level's p-sum); for m > 1 a
  user's samples cannot all be in depth(T) p-sums (release t creates the p-sum of level
  lowest-bit(t) only: sample t is in one p-sum per zero bit of t − 1), so the largest
  loss is (Σ of the m largest such counts)/(m·depth(T)): 0.79 for m = 64, T = 512 with
  the user's samples placed there (0.7 for the first user of a contiguous stream);
* ``naive_laplace``: 1 − (m − 1)/(2T) (the first user of a contiguous stream);
* ``alg3``: 1 (the first block, projected onto a range of width 2Δ < m, is in depth(n)
  p-sums);
* ``alg4`` 0.19 (m = 1), ``alg5`` 0.44 (m = 64), ``alg6`` 0.40–0.43 (m = 128, ε = 60,
  PrivateMedians most of it: at most (L − 1)/(2L) of ε): their η pay 2Δ for levels 0 and 1,
  whose elements move by 1, and 2(√(…) + √(2^(ℓ−1))) for elements that move by
  2Δ_ℓ < that or by 2^(ℓ−1) < 2Δ_ℓ; Alg. 4 besides counts every level's element as one of
  sensitivity 2Δ (eq. 5). So η/2 is still within ε for Algs 4–6 (Alg. 5: 0.87 ε);
* under-noised variants are reported: η/2 for Algs 2 and 3, each of Alg. 5's mechanisms
  at the whole ε (η/(L + 1)), Alg. 3's projection twice as wide, Alg. 6's PrivateMedians
  at ε/2 each.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sweep.continual.config import ContinualConfig
from sweep.continual.kernel import NAIVE, private_median
from sweep.continual.orders import arrivals
from sweep.continual.parameters import Parameters, parameters
from sweep.continual.simulate import TRACE, Coordinate, median_bins, run_coordinate

from .audit import LAPLACE, AuditReport, Budget, Noise, PairLoss, pair_loss, standardized_shift
from .black_box import check_categorical, check_drawn_noise

PRIVATE_METHODS = ("naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6")
#: Claim E.1: changing a user moves at most 2 of PrivateMedian's k array means, so c(y).
SCORE_SENSITIVITY = 2.0
#: A budget is met when loss <= ε (1 + SLACK) (floating-point sums of p-sums).
SLACK = 1e-9
#: Columns that must agree between the runs of a pair (the release pattern).
PATTERN = [TRACE.index(name) for name in ("t", "level", "mechanism", "index")]
MECHANISM, PSUM = TRACE.index("mechanism"), TRACE.index("psum")
#: Pairs of every user when the stream has at most this many users, else of a sample.
ALL_USERS = 40

assert "values" in inspect.signature(run_coordinate).parameters, (
    "the audit needs run_coordinate(..., values=x) running the kernel on x_1..x_T")


# ------------------------------------------------------------------------ streams, runs


@dataclass(frozen=True)
class Scenario:
    """One method on one stream of arrivals: what the two streams of a pair share."""

    config: ContinualConfig
    parameters: Parameters
    users: np.ndarray

    @property
    def label(self) -> str:
        c = self.config
        prior = "" if c.prior is None else f" prior={c.prior:g}"
        return (f"{c.method} {c.order.kind} n={c.n_users} m={c.max_samples} T={c.t_max} "
                f"ε={c.epsilon:g} δ={c.failure_probability:g}{prior}")

    def run(self, values: np.ndarray, forced: np.ndarray | None = None,
            seed: int = 0) -> Coordinate:
        """The method on x_1..x_T = ``values`` (priors ``forced``, NaN: drawn with the
        noise of ``seed``), tracing every p-sum it creates."""
        c, p = self.config, self.parameters
        room = c.t_max + c.n_users * p.levels + 1
        coordinate = run_coordinate(
            p, self.users, c.n_users, c.max_samples, c.mu, np.array([c.t_max]),
            np.random.default_rng(seed), np.random.default_rng(seed + 1), trace=room,
            forced=forced, values=values)
        assert len(coordinate.trace) < room, "trace truncated"
        return coordinate


def scenario(method: str, order: str, n: int, m: int, t_max: int | None = None,
             epsilon: float = 1.0, seed: int = 0, users: np.ndarray | None = None,
             **options: Any) -> Scenario:
    """A validated configuration, its parameters and its arrivals (drawn with ``seed``, or
    ``users``). T is every sample when not given, and at most that; the orders' own
    options default to zipf 1.1, one_heavy ⌈m/4⌉ light samples, few_heavy 2 heavy users."""
    defaults = {"zipf": {"zipf_exponent": 1.1},
                "one_heavy": {"light_samples": max(1, m // 4)},
                "few_heavy": {"heavy_users": min(2, n - 1)}}.get(order, {})
    options = {**defaults, **options}
    capacity = (m + (n - 1) * options["light_samples"] if order == "one_heavy" else n * m)
    t_max = capacity if t_max is None else min(t_max, capacity)
    order_options = {k: options.pop(k) for k in defaults}
    config = ContinualConfig.from_options(
        method=method, order={"kind": order, **order_options}, n_users=n, max_samples=m,
        t_max=t_max, epsilon=epsilon, checkpoints=1, **options)
    if users is None:
        users = arrivals(config, np.random.default_rng(seed))
    return Scenario(config, parameters(config), np.asarray(users, dtype=np.int32))


def tampered(s: Scenario, **changes: Callable[[Parameters], Any]) -> Scenario:
    """``s`` with parameters changed (``name=f(parameters)``): the kernel runs them as
    given, so this is a method whose noise no longer matches its calibration."""
    p = s.parameters
    return dataclasses.replace(s, parameters=p._replace(
        **{name: f(p) for name, f in changes.items()}))


@dataclass(frozen=True)
class Neighbours:
    """Two sample streams that differ in one user's samples only; ``forced`` priors
    (NaN: drawn) for both runs, or None for those of a normal run of ``x``."""

    label: str
    x: np.ndarray
    y: np.ndarray
    forced: np.ndarray | None = None


# ------------------------------------------------------------------------ the accountant


@dataclass(frozen=True)
class Loss:
    """The privacy loss of one pair: of the binary mechanisms (ℓ1 standardized shift) and
    of the PrivateMedians; the largest change of a PrivateMedian's score; the p-sums
    moved; and the elements the projections clipped (more of the two runs)."""

    label: str
    mechanisms: float
    median: float
    score: float
    touched: int
    clipped: int

    @property
    def total(self) -> float:
        return self.mechanisms + self.median


def privacy_loss(p: Parameters, a: Coordinate, b: Coordinate, label: str = "") -> Loss:
    """Σ_j Σ_k |S_jk − S'_jk|/η_j + Σ_ℓ ε'·max_y|c_ℓ(y) − c'_ℓ(y)|/Δc of two runs on
    neighbouring streams, after checking that they create the same p-sums and run the
    same PrivateMedians (the pattern depends on the arrivals only) with the same priors."""
    assert a.trace.shape == b.trace.shape, f"{label}: different numbers of p-sums"
    np.testing.assert_array_equal(a.trace[:, PATTERN], b.trace[:, PATTERN],
                                  err_msg=f"{label}: different release patterns")
    np.testing.assert_array_equal(a.activation, b.activation)
    np.testing.assert_array_equal(a.priors, b.priors)
    mechanisms, touched = 0.0, 0
    if len(a.trace):
        scale = p.eta[a.trace[:, MECHANISM].astype(np.int64)]
        change = a.trace[:, PSUM] - b.trace[:, PSUM]
        magnitude = float(np.max(np.abs(a.trace[:, PSUM])) + np.max(np.abs(b.trace[:, PSUM])))
        u, covered = standardized_shift(change, Noise(LAPLACE, scale), magnitude)
        shift = pair_loss(u, LAPLACE, Budget(p.epsilon), "laplace", label)
        mechanisms = shift.shift if covered else math.inf  # uncovered: noiseless change
        touched = shift.touched
    ran = np.isfinite(a.costs)
    np.testing.assert_array_equal(ran, np.isfinite(b.costs))
    score = np.array([np.max(np.abs(a.costs[level][ran[level]] - b.costs[level][ran[level]]),
                             initial=0.0) for level in range(p.levels)])
    median = float(p.median_epsilon * score.sum() / SCORE_SENSITIVITY)
    clipped = int(max(a.clipped[-1], b.clipped[-1]))
    return Loss(label, mechanisms, median, float(score.max(initial=0.0)), touched, clipped)


@dataclass(frozen=True)
class ContinualAudit:
    """The losses of a scenario's pairs, as an :class:`~tests.audit.AuditReport` against
    the coordinate's ε (``assert_private``, ``worst_ratio``) and in detail."""

    report: AuditReport
    losses: tuple[Loss, ...]

    @property
    def worst_ratio(self) -> float:
        return self.report.worst_ratio

    @property
    def score(self) -> float:
        """The largest change of a PrivateMedian's score over the pairs."""
        return max(loss.score for loss in self.losses)


def audit_pairs(s: Scenario, pairs: Iterable[Neighbours], seed: int = 0) -> ContinualAudit:
    """Run both streams of every pair (priors alike) and account their losses."""
    p = s.parameters
    losses = []
    for pair in pairs:
        forced = pair.forced
        if forced is None:  # condition on the priors μ̃_ℓ of a normal run of x
            forced = s.run(pair.x, seed=seed).priors
        losses.append(privacy_loss(p, s.run(pair.x, forced, seed), s.run(pair.y, forced, seed),
                                   f"{s.label}: {pair.label}"))
    if not losses:
        raise ValueError(f"{s.label}: no pairs")
    report = AuditReport("laplace", Budget(p.epsilon), tuple(
        PairLoss(loss.label, loss.total / p.epsilon, loss.total, loss.touched,
                 f"binary mechanisms {loss.mechanisms:.6g}, PrivateMedian {loss.median:.6g}, "
                 f"score change {loss.score:g}") for loss in losses))
    return ContinualAudit(report, tuple(losses))


# ------------------------------------------------------------------------------ the pairs


def prior_choices(s: Scenario) -> list[tuple[str, np.ndarray | None]]:
    """Alg. 6: the priors of a normal run (None), and 0, 1/2, 1 at every level that
    activates (the projections then bind at one edge, or at both where 2Δ_ℓ < 2^(ℓ−1)).
    The other methods have no drawn prior."""
    if not (s.parameters.threshold > 0).any():
        return [("", np.full(s.parameters.levels, np.nan))]
    active = s.run(np.zeros(s.config.t_max)).activation > 0
    choices: list[tuple[str, np.ndarray | None]] = [(", drawn priors", None)]
    if active.any():
        choices += [(f", priors {v:g}", np.where(active, v, np.nan)) for v in (0.0, 0.5, 1.0)]
    return choices


def audited_users(s: Scenario, rng: np.random.Generator) -> np.ndarray:
    """Every user who gives a sample; or, beyond :data:`ALL_USERS` of them, the heaviest,
    the lowest-numbered (PrivateMedian's first arrays), the first to arrive (the first
    elements of the mechanisms) and a random sample of the others."""
    present, counts = np.unique(s.users, return_counts=True)
    if present.size <= ALL_USERS:
        return present
    first = s.users[np.sort(np.unique(s.users, return_index=True)[1])[:8]]
    chosen = {int(present[np.argmax(counts)]), *map(int, present[:8]), *map(int, first)}
    rest = np.setdiff1d(present, list(chosen))
    chosen.update(map(int, rng.choice(rest, ALL_USERS - len(chosen), replace=False)))
    return np.array(sorted(chosen))


def neighbours(s: Scenario, seed: int = 0, n_random: int = 8) -> list[Neighbours]:
    """Adversarial pairs (a user's samples all 0 against all 1, on random, all-0 and all-1
    backgrounds, under each of :func:`prior_choices`) and ``n_random`` random ones (a
    random user's samples redrawn at a random rate; the priors of a normal run)."""
    rng = np.random.default_rng(seed)
    T = s.config.t_max
    backgrounds = {"random": (rng.random(T) < rng.uniform(0.2, 0.8)).astype(float),
                   "all-0": np.zeros(T), "all-1": np.ones(T)}
    pairs = []
    for prior_label, forced in prior_choices(s):
        for j in audited_users(s, rng):
            mine = s.users == j
            for name, background in backgrounds.items():
                x, y = background.copy(), background.copy()
                x[mine], y[mine] = 0.0, 1.0
                pairs.append(Neighbours(f"user {j} all 0 vs all 1, {name} background"
                                        f"{prior_label}", x, y, forced))
    for r in range(n_random):
        x = (rng.random(T) < rng.uniform()).astype(float)
        y = x.copy()
        j = rng.choice(s.users)
        mine = s.users == j
        y[mine] = (rng.random(mine.sum()) < rng.uniform()).astype(float)
        pairs.append(Neighbours(f"random[{r}], user {j}", x, y))
    return pairs


def audit(s: Scenario, seed: int = 0, n_random: int = 8) -> ContinualAudit:
    """The audit of a scenario on its adversarial and random pairs."""
    return audit_pairs(s, neighbours(s, seed, n_random), seed)


def flip(s: Scenario, user: int) -> Neighbours:
    """The pair: every sample 0, against ``user``'s samples 1."""
    zeros = np.zeros(s.config.t_max)
    return Neighbours(f"user {user} all 0 vs all 1", zeros,
                      np.where(s.users == user, 1.0, 0.0))


def p_sums_containing(k: int, releases: int) -> int:
    """Reference: p-sums of a binary mechanism of ``releases`` releases holding element k.

    Release e creates the p-sum of level i = lowest set bit of e, over e − 2^i + 1..e
    (:mod:`sweep.components.tree`). Element k's block of level i ends at
    e = (⌊(k − 1)/2^i⌋ + 1)·2^i, whose lowest bit is i iff bit i of k − 1 is 0.
    """
    return sum(1 for i in range(releases.bit_length())
               if not (k - 1) >> i & 1 and (((k - 1) >> i) + 1) << i <= releases)


# ----------------------------------------------------------------------- the scenarios

ORDERS = ("contiguous", "round_robin", "uniform", "zipf", "few_heavy", "one_heavy",
          "staggered")
#: (n, m, T or None for every sample): m = 1, 2, powers of two and not, partial streams.
SHAPES = ((6, 1, None), (9, 2, 15), (7, 3, None), (12, 8, None), (10, 16, 120),
          (6, 64, None))


def grid(method: str) -> list[Scenario]:
    """Every order × shape at ε = 1, and: ε = 0.3 and 40 (at which Alg. 6's levels
    activate with few users), m = 5 and 6, ``level_count=floor``, δ = 0.5, Alg. 6 with
    n = 400 (activation at ε = 1) and with m = 32 and 128 (projections that bind), and
    priors at, above and below mid-range (Algs 3–5, m = 64)."""
    out = []
    for order in ORDERS:
        for n, m, t_max in SHAPES:
            if order == "one_heavy" and m == 1:
                continue  # no user lighter than the heavy one
            out.append(scenario(method, order, n, m, t_max, seed=len(out)))
    for epsilon in (0.3, 40.0):
        out += [scenario(method, "uniform", 24, 8, epsilon=epsilon, seed=1),
                scenario(method, "zipf", 30, 5, 100, epsilon=epsilon, seed=2)]
    out += [scenario(method, "uniform", 11, 6, epsilon=40.0, level_count="floor"),
            scenario(method, "round_robin", 10, 16, epsilon=40.0,
                         failure_probability=0.5)]
    if method == "alg6":
        out += [scenario(method, "uniform", 400, 4, 1200, seed=3),
                scenario(method, "staggered", 36, 32, epsilon=60.0, seed=4),
                scenario(method, "uniform", 36, 128, epsilon=60.0, seed=9)]
    if method in ("alg3", "alg4", "alg5"):
        out += [scenario(method, order, 8, 64, mu=0.5, prior_offset=offset, seed=5)
                for order in ("contiguous", "uniform") for offset in (0.0, 0.5, -0.5)]
    return out


#: The largest loss/ε over :func:`grid`, as observed (the calibration's slack).
WORST = {"naive_laplace": (0.99, 1.0), "alg2": (1.0, 1.0), "alg3": (1.0, 1.0),
         "alg4": (0.15, 0.25), "alg5": (0.38, 0.5), "alg6": (0.35, 0.5)}


@pytest.mark.parametrize("method", PRIVATE_METHODS)
def test_every_method_spends_at_most_epsilon(method: str) -> None:
    """Acceptance criterion 3: over every scenario of :func:`grid` (7 orders; m = 1, 2, 3,
    5, 6, 8, 16, 32, 64, 128; partial streams; ε from 0.3 to 60) and its adversarial and
    random pairs, the binary mechanisms' ℓ1 shift in noise units plus the PrivateMedians'
    cost stays within ε, and PrivateMedian's score moves by Δc = 2 at most (Claim E.1).
    The largest loss/ε is as in :data:`WORST` (exact for Algs 2 and 3, see below)."""
    worst, clipped = 0.0, 0
    for s in grid(method):
        result = audit(s, seed=len(s.users))
        result.report.assert_private(SLACK)
        assert result.score <= SCORE_SENSITIVITY, (s.label, result.score)
        worst = max(worst, result.worst_ratio)
        clipped = max(clipped, *(loss.clipped for loss in result.losses))
    low, high = WORST[method]
    assert low - 1e-12 <= worst <= high + SLACK, worst
    assert (clipped > 0) == (method in ("alg3", "alg4", "alg5", "alg6"))


def slow_grid(method: str) -> list[Scenario]:
    """More arrivals: every order × 5 shapes (n up to 160, users sampled beyond 40;
    m = 1, 2, 7, 12, 32) × ε in {0.5, 50}, failure probability δ 0.01 and 0.3 in turn,
    each its own arrivals."""
    shapes = ((160, 1, None), (64, 2, None), (33, 7, 200), (50, 12, None), (20, 32, None))
    out = []
    for order in ORDERS:
        for n, m, t_max in shapes:
            if order == "one_heavy" and m == 1:
                continue
            for epsilon in (0.5, 50.0):  # Alg. 6's levels activate at ε = 50
                k = len(out)
                out.append(scenario(method, order, n, m, t_max, epsilon=epsilon,
                                    failure_probability=(0.01, 0.3)[k % 2], seed=100 + k))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method", PRIVATE_METHODS)
def test_every_method_spends_at_most_epsilon_on_more_arrivals(method: str) -> None:
    """:func:`test_every_method_spends_at_most_epsilon` over :func:`slow_grid`, with 40
    random pairs a scenario."""
    for s in slow_grid(method):
        result = audit(s, seed=len(s.users), n_random=40)
        result.report.assert_private(SLACK)
        assert result.score <= SCORE_SENSITIVITY, (s.label, result.score)


def test_non_private_releases_its_p_sums_unprotected() -> None:
    """The running mean adds no noise (η = 0): any change of a user is an infinite loss."""
    result = audit(scenario("non_private", "uniform", 6, 4), n_random=2)
    assert math.isinf(result.worst_ratio)
    with pytest.raises(AssertionError, match="privacy claim broken"):
        result.report.assert_private()


# --------------------------------------------------------------------- where it is tight


def test_alg2_loss_is_the_p_sums_of_the_users_samples() -> None:
    """Alg. 2, η = m·depth(T)/ε (depth(T) = ⌊log2 T⌋ + 1, erratum 6): a user's loss is
    Σ over its samples t of the p-sums holding t (:func:`p_sums_containing`), over
    m·depth(T), wherever its samples arrive. Exactly ε for m = 1 at t = 1; for m > 1 at
    most the m largest counts (samples at t − 1 = 0, then powers of two, ...), below
    m·depth(T): the largest loss/ε is as in ``best`` (arrivals placed there on purpose)."""
    rng = np.random.default_rng(5)
    best = {(6, 1): 1.0, (7, 3): 13 / 15, (12, 8): 7 / 8, (8, 64): 101 / 128}
    for (n, m), largest in best.items():
        T = n * m
        counts = np.array([p_sums_containing(t, T) for t in range(1, T + 1)])
        top = np.sort(np.argsort(-counts, kind="stable")[:m])
        for placed in (top, np.sort(rng.choice(T, m, replace=False))):
            users = np.empty(T, dtype=np.int32)  # user 0 at ``placed``, the others around
            users[placed] = 0
            users[np.setdiff1d(np.arange(T), placed)] = np.repeat(np.arange(1, n), m)
            s = scenario("alg2", "uniform", n, m, epsilon=0.7, users=users)
            ratio = audit_pairs(s, [flip(s, 0)]).report.assert_private(SLACK).worst_ratio
            assert ratio == pytest.approx(counts[placed].sum() / (m * T.bit_length()),
                                          rel=1e-12)
            if placed is top:
                assert ratio == pytest.approx(largest, rel=1e-12)


def test_naive_laplace_is_tight_up_to_the_first_users_ramp() -> None:
    """naive_laplace, η = mT/ε (erratum 13): the first user's samples change every running
    sum, by min(t, m): Σ_t min(t, m)/(mT) = 1 − (m − 1)/(2T) of ε."""
    for n, m in ((6, 1), (7, 3), (12, 8)):
        s = scenario("naive_laplace", "contiguous", n, m, epsilon=2.0)
        ratio = audit_pairs(s, [flip(s, 0)]).worst_ratio
        assert ratio == pytest.approx(1 - (m - 1) / (2 * s.config.t_max), rel=1e-12)


def test_alg3_is_exactly_tight_when_the_projection_binds_at_both_edges() -> None:
    """Alg. 3, η = 2Δ·depth(n)/ε, Δ of eq. (2): with m = 64, n = 8 and μ̃ = 1/2 the
    interval [32 − Δ, 32 + Δ] lies within [0, 64] (2Δ ≈ 44), so user j's block (the
    (j + 1)-th element under contiguous arrivals) moves by 2Δ, in p_sums_containing(j + 1)
    p-sums: the first user costs exactly ε. With μ̃ = 1 only [64 − Δ, 64] is left: ε/2."""
    s = scenario("alg3", "contiguous", 8, 64, mu=0.5, prior_offset=0.0)
    assert 2 * s.parameters.half[0] < 64
    for j in range(8):
        ratio = audit_pairs(s, [flip(s, j)]).worst_ratio
        assert ratio == pytest.approx(p_sums_containing(j + 1, 8) / 4, rel=1e-12)
    assert audit_pairs(s, [flip(s, 0)]).report.assert_tight(1 - 1e-12)
    far = scenario("alg3", "contiguous", 8, 64, mu=0.5, prior_offset=0.5)
    assert audit_pairs(far, [flip(far, 0)]).worst_ratio == pytest.approx(0.5, rel=1e-12)


# ------------------------------------------------------------------------ PrivateMedian


def test_private_median_score_reaches_but_never_exceeds_its_sensitivity() -> None:
    """Claim E.1: a user's first min(M(u), 2^(ℓ−1)) samples fill at most two of the k
    arrays, so c(y) = max(#{Y'_j < y}, #{Y'_j > y}) moves by 2 at most; the bound is
    reached. Every level ℓ >= 2 activates here (n = 40 >= k_ℓ at ε = 40), and the audit
    charges ε'·|Δc|/2 for each PrivateMedian, conditioned on the priors."""
    s = scenario("alg6", "uniform", 40, 16, epsilon=40.0, seed=7)
    assert (s.run(np.zeros(s.config.t_max)).activation[2:] > 0).all()
    result = audit(s, seed=7)
    result.report.assert_private(SLACK)
    assert result.score == SCORE_SENSITIVITY
    assert max(loss.median for loss in result.losses) >= s.parameters.median_epsilon


# ------------------------------------------------------------------- negative controls

UNDER_NOISED: dict[str, tuple[Callable[[], Scenario], dict[str, Callable[..., Any]]]] = {
    "alg2 eta/2": (lambda: scenario("alg2", "contiguous", 8, 64),
                 {"eta": lambda p: p.eta / 2}),
    "alg3 eta/2": (lambda: scenario("alg3", "uniform", 8, 64, mu=0.5, prior_offset=0.0),
                 {"eta": lambda p: p.eta / 2}),
    "alg3 projection twice as wide": (
        lambda: scenario("alg3", "contiguous", 8, 64, mu=0.5, prior_offset=0.0),
        {"half": lambda p: p.half * 2}),
    "alg5 every mechanism at the whole epsilon": (
        lambda: scenario("alg5", "contiguous", 8, 64, mu=0.5, prior_offset=0.0),
        {"eta": lambda p: p.eta / p.levels}),
    "alg6 PrivateMedians at epsilon/2 each": (
        lambda: scenario("alg6", "uniform", 36, 32, epsilon=60.0, seed=9),
        {"median_epsilon": lambda p: p.epsilon / 2}),
}


@pytest.mark.parametrize("variant", list(UNDER_NOISED))
def test_under_noised_variants_are_reported(variant: str) -> None:
    """"Fails loudly": the same audit, on a method whose noise no longer pays for its
    sensitivity, finds a pair spending more than ε, and ``assert_private`` raises."""
    build, changes = UNDER_NOISED[variant]
    result = audit(tampered(build(), **changes), n_random=2)
    assert result.worst_ratio > 1.05, result.report
    with pytest.raises(AssertionError, match="privacy claim broken"):
        result.report.assert_private(SLACK)


def test_halved_noise_of_alg5_is_still_private() -> None:
    """η/2 is not a negative control for Alg. 5: its calibration (eq. 7) has more than a
    factor 2 of slack on every pair (0.44 ε at most, m = 64 with binding projections), so
    halving η spends 0.87 ε. The audit must not flag it."""
    s = scenario("alg5", "contiguous", 8, 64, mu=0.5, prior_offset=0.0)
    ratio = audit(tampered(s, eta=lambda p: p.eta / 2), n_random=2).worst_ratio
    assert 0.8 < ratio < 1.0


# ------------------------------------------------------------------------- the API used


@pytest.mark.parametrize("method", ("naive_laplace", "alg2", "alg3", "alg5", "alg6"))
def test_explicit_values_replay_the_kernels_own_draws(method: str) -> None:
    """``values`` = the x_t the kernel would draw (x_t = 1 iff U_t < μ, one U_t per step
    from ``samples``) gives the same run, estimates included: the audited streams are
    streams the method sees."""
    s = scenario(method, "uniform", 24, 8, epsilon=40.0, seed=3)
    c = s.config
    x = (np.random.default_rng(11).random(c.t_max) < c.mu).astype(float)
    times = np.arange(1, c.t_max + 1)
    drawn = run_coordinate(s.parameters, s.users, c.n_users, c.max_samples, c.mu, times,
                           np.random.default_rng(11), np.random.default_rng(12),
                           trace=4 * c.t_max)
    given = run_coordinate(s.parameters, s.users, c.n_users, c.max_samples, c.mu, times,
                           np.random.default_rng(99), np.random.default_rng(12),
                           trace=4 * c.t_max, values=x)
    for name in drawn._fields:
        np.testing.assert_array_equal(getattr(drawn, name), getattr(given, name))


def test_each_coordinate_of_basic_composition_gets_its_share() -> None:
    """Sec. 4, d = 3 with basic composition: each coordinate runs at ε/3 and a user's
    samples change in every coordinate; the three coordinates' losses sum to ε at most."""
    s = scenario("alg5", "uniform", 12, 16, dimension=3)
    assert s.parameters.epsilon == pytest.approx(s.config.epsilon / 3)
    rng = np.random.default_rng(3)
    total = 0.0
    for _ in range(3):  # each coordinate its own samples, user 0 all 0 vs all 1
        x = (rng.random(s.config.t_max) < 0.5).astype(float)
        x[s.users == 0] = 0.0
        y = np.where(s.users == 0, 1.0, x)
        total += audit_pairs(s, [Neighbours("user 0", x, y)]).losses[0].total
    assert 0.0 < total <= s.config.epsilon * (1 + SLACK)


# ------------------------------------------------------ what the code draws (issue 36)


def released_noise(s: Scenario, seed: int) -> tuple[np.ndarray, Coordinate]:
    """N_t, the noise in the released running sum at every t, and the noisy run: the
    estimate times the samples it uses, less the same with every η set to 0 (the samples
    come from their own generator, so both runs see the same stream)."""
    c = s.config
    times = np.arange(1, c.t_max + 1)
    room = c.t_max + c.n_users * s.parameters.levels + 1

    def run(scenario_: Scenario) -> Coordinate:
        p = scenario_.parameters
        return run_coordinate(p, s.users, c.n_users, c.max_samples, c.mu, times,
                              np.random.default_rng(seed), np.random.default_rng(seed + 1),
                              trace=room)

    noisy = run(s)
    exact = run(tampered(s, eta=lambda p: np.zeros_like(p.eta)))
    np.testing.assert_array_equal(noisy.used, exact.used)
    return (noisy.estimate - exact.estimate) * noisy.used, noisy


def drawn_noises(s: Scenario, seed: int) -> np.ndarray:
    """Every p-sum noise the run drew, over its mechanism's declared η_j, recovered from
    the releases. The naive mechanism's N_t is one fresh draw per read. A binary
    mechanism's N after its k-th element sums the noises of k's set bits, and element k
    creates the p-sum of k's lowest set bit: its noise is N_k − N_{k − 2^(lowest bit)}.
    Each step releases at most one element (no Alg. 6 activation here), so the change of
    N_t at a step with a trace row is the change of that row's mechanism."""
    total, noisy = released_noise(s, seed)
    eta = s.parameters.eta
    if s.parameters.mode == NAIVE:
        return total[noisy.used > 0] / eta[0]
    steps = np.r_[0.0, total]
    per_mechanism: dict[int, list[float]] = {}
    for t, _, _, mechanism, index, _ in noisy.trace:
        running = per_mechanism.setdefault(int(mechanism), [0.0])
        assert index == len(running), "one element per step, in order"
        running.append(running[-1] + steps[int(t)] - steps[int(t) - 1])
    out = []
    for j, running in per_mechanism.items():
        n = np.asarray(running)
        k = np.arange(1, len(n))
        out.append((n[k] - n[k - (k & -k)]) / eta[j])
    return np.concatenate(out)


@pytest.mark.parametrize(("method", "n", "m", "noise", "epsilon"), [
    ("naive_laplace", 64, 80, "laplace", 1.0), ("alg2", 64, 80, "laplace", 1.0),
    ("alg3", 2600, 2, "laplace", 1.0), ("alg4", 900, 64, "laplace", 1.0),
    ("alg5", 900, 64, "laplace", 1.0),
    # The staircase at p-sum budgets where its shape is far from Laplace's (ε' = 1.54 and
    # 1): ε large, spread over the trees' depth.
    ("alg2", 64, 80, "staircase", 20.0), ("alg5", 900, 64, "staircase", 70.0),
    # ε/T = 1/5120: the staircase's γ* near ½ (Theorem 7 as printed fails there).
    ("naive_laplace", 64, 80, "staircase", 1.0)])
def test_the_drawn_noise_is_the_declared_noise(method: str, n: int, m: int, noise: str,
                                               epsilon: float) -> None:
    """Both release paths (the running sum's tree or fresh noise per read; the released
    elements' trees): the noises recovered from what is released, over η_j, are Laplace(1)
    or the staircase of sensitivity ε' (a p-sum's budget, the same for every mechanism of
    these methods) in those units (5,000 to 6,300 of them, two streams: the scale test
    detects a 10% error with power >= 0.99). Uniform arrivals, every user with all m
    samples."""
    noises = []
    for seed in (0, 2):
        s = scenario(method, "uniform", n, m, epsilon=epsilon, seed=seed, noise=noise)
        noises.append(drawn_noises(s, seed))
    budgets = set(s.parameters.budget)
    assert len(budgets) == 1
    check_drawn_noise(np.concatenate(noises), noise, 1.0, epsilon=budgets.pop())


def test_private_median_draws_from_its_declared_law() -> None:
    """PrivateMedian (Alg. 7), the kernel's own function, drawn 40,000 times on one input:
    the bins' frequencies follow exp(−ε′c(y)/4) over its cost vector (chi-square), a test
    that detects ε′ 10% off either way with power >= 0.99."""
    level, k, epsilon = 6, 24, 2.0
    size = 1 << (level - 1)
    means = np.linspace(0.05, 0.95, k)  # users' means spread over the bins
    rng = np.random.default_rng(5)
    own = np.concatenate([(rng.random(size) < mu).astype(float) for mu in means])
    count = np.full(k, size, dtype=np.int64)
    start = np.arange(k, dtype=np.int64) * size
    costs = np.empty(median_bins(level + 1))
    draws = np.random.default_rng(6)
    picked = np.array([private_median(own, start, count, level, k, epsilon, draws, costs)
                       for _ in range(40_000)])
    c = costs[~np.isnan(costs)]
    bins = c.size
    width = 2.0 * 2.0 ** (-level / 2.0)
    middles = np.array([(b * width + min((b + 1) * width, 1.0)) / 2.0 for b in range(bins)])
    observed = np.array([np.count_nonzero(picked == y) for y in middles])
    assert observed.sum() == picked.size
    check_categorical(observed, lambda e: np.exp(-e * c / 4.0), epsilon)


@pytest.mark.parametrize(("method", "options"), [
    ("alg3", {"mu": 0.9, "prior_offset": -0.4, "epsilon": 4.0}),
    ("alg4", {"mu": 0.9, "prior_offset": -0.55, "epsilon": 4.0}),
    ("alg5", {"mu": 0.9, "prior_offset": -0.55, "epsilon": 4.0}),
    ("alg6", {"mu": 0.5, "epsilon": 40.0})])
def test_the_estimates_depend_on_a_user_only_through_the_releases(
        method: str, options: dict[str, Any]) -> None:
    """The coupling of the proof, in the kernel (Algs 3–6, the released elements' path):
    each of eight users' samples all flipped, and the run handed the noisy p-sums of the
    unchanged run (``released``; z' = z + S − S') and, for Alg. 6, its priors (the
    exponential mechanism's releases, conditioned on as in adaptive composition). The
    estimate, the samples it counts and the activations are then the same at every t,
    bit for bit. The projections bind for some elements and not others, and Alg. 6's
    levels activate (asserted). (``clipped``, the count of elements the projection
    changed, is a diagnostic of the simulation, not a release: it may move.)"""
    s = scenario(method, "uniform", 256, 64, seed=1, **options)
    c, p = s.config, s.parameters
    times = np.arange(1, c.t_max + 1)
    x = (np.random.default_rng(3).random(c.t_max) < c.mu).astype(float)
    recorded = np.full((p.eta.size, c.n_users * p.levels + 1), np.nan)

    def run(values: np.ndarray, released: np.ndarray, forced: np.ndarray | None
            ) -> Coordinate:
        return run_coordinate(p, s.users, c.n_users, c.max_samples, c.mu, times,
                              np.random.default_rng(0), np.random.default_rng(1),
                              forced=forced, values=values, released=released)

    first = run(x, recorded, None)
    elements = int(np.isfinite(recorded).sum())
    assert 0 < first.clipped[-1] < elements or (first.activation > 0).any(), (
        "no projection bound, or every one did, and no level activated")
    forced = first.priors if method == "alg6" else None
    for user in range(0, c.n_users, c.n_users // 8):
        y = np.where(s.users == user, 1.0 - x, x)
        second = run(y, recorded.copy(), forced)
        for name in ("estimate", "used", "activation", "priors"):
            np.testing.assert_array_equal(getattr(first, name), getattr(second, name),
                                          err_msg=name)


@pytest.mark.parametrize("method", ("naive_laplace", "alg2"))
def test_the_running_sums_estimates_depend_on_a_user_only_through_the_reads(
        method: str) -> None:
    """The coupling of the proof on the running sum's path (the naive mechanism: S_t plus
    fresh Lap(η_0) per read, erratum 13; Alg. 2: the binary mechanism of Alg. 1 over the
    raw stream). Each of eight users' samples all flipped, and the run handed the
    unchanged run's releases (``released``): the naive mechanism's reads S̃_t, and Alg. 2's
    noisy running sums S̃_t = Σ of the noisy p-sums of t's set bits, read at every t, which
    determine its p-sums (the p-sum t creates is S̃_t − S̃_{t − 2^i}, 2^i t's lowest set
    bit). The estimate μ̂_t = S̃_t/t and the samples it counts are then the same at every
    t = 1..T, bit for bit. This path takes no decision (no projection, no activation, no
    prior): nothing else may move, and the two runs' exact running sums do (asserted).
    Recording the reads changes nothing in the run (asserted)."""
    s = scenario(method, "uniform", 64, 16, seed=2)
    c, p = s.config, s.parameters
    times = np.arange(1, c.t_max + 1)
    x = (np.random.default_rng(3).random(c.t_max) < c.mu).astype(float)
    recorded = np.full((1, times.size), np.nan)

    def run(values: np.ndarray, released: np.ndarray | None) -> Coordinate:
        return run_coordinate(p, s.users, c.n_users, c.max_samples, c.mu, times,
                              np.random.default_rng(0), np.random.default_rng(1),
                              trace=c.t_max + 1, values=values, released=released)

    first = run(x, recorded)
    for name, value in run(x, None)._asdict().items():
        np.testing.assert_array_equal(getattr(first, name), value, err_msg=name)
    assert np.isfinite(recorded).all()
    for user in range(0, c.n_users, c.n_users // 8):
        y = np.where(s.users == user, 1.0 - x, x)
        handed = recorded.copy()
        second = run(y, handed)
        np.testing.assert_array_equal(handed, recorded)  # handed in, not overwritten
        # The exact data differ: the running sum (naive) or the exact p-sums (Alg. 2).
        assert not np.array_equal(first.trace[:, PSUM], second.trace[:, PSUM])
        for name in ("estimate", "used", "clipped", "activation", "priors"):
            np.testing.assert_array_equal(getattr(first, name), getattr(second, name),
                                          err_msg=name)
