"""Privacy audit harness: do the released values move, between neighbouring inputs, by no
more than the declared noise pays for?

A mechanism is described to the harness by

* its **noiseless release** ``release(x) -> np.ndarray``: every value an observer sees over
  the run, before noise, as a function of the private input ``x``;
* its **declared noise** (:class:`Noise`): what is sent is ``release(x) + mixing @ z`` where
  the z_k are independent, centred, Laplace (scale b_k) or Gaussian (standard deviation σ_k);
  ``mixing=None`` is the identity. The mixing lets a release be stated as it is sent (e.g.
  running means whose noises share p-sum noises, or estimates that carry earlier noise
  along); the harness undoes it;
* **pairs of neighbouring inputs** (:class:`Pair`) under the relation the claim is about.

For each pair the harness solves ``mixing @ (scale · u) = release(x) − release(y)`` for the
*standardized shift* u: the change of the release in units of the noise coordinates
(least-norm u when several noise coordinates reach the same direction; any solution gives
a valid bound, as the release is then a post-processing of ``scale · u + z``). A change that
no noise coordinate covers is released noiselessly: an infinite loss. An *accountant*
turns u into the loss of the pair relative to a claimed budget (:class:`Budget`); a ratio
<= 1 certifies the claim for that pair:

``laplace``
    pure ε-DP, basic composition over all noise coordinates: ‖u‖₁ <= ε (Dwork & Roth,
    Thms 3.6 and 3.16).
``classic``
    the whole release as one Gaussian mechanism (Dwork & Roth, Thm A.1; Private-ColME
    Lemmas 1 and 3): ‖u‖₂ <= ε/√(2 ln(1.25/δ)), valid for ε <= 1.
``classic_basic``
    each noise coordinate the change touches as its own classic Gaussian mechanism with
    δ/n (n coordinates touched), composed by basic composition (PM-II's argument in
    Private-ColME Sec. IV-B): Σ_k |u_k| √(2 ln(1.25 n/δ)) <= ε, each term <= 1.
``analytic``
    the whole release as one Gaussian mechanism, exactly (Balle & Wang 2018, Thm 8):
    ‖u‖₂ <= r*(ε, δ), the largest standardized L2 shift whose privacy profile stays
    below δ at ε.

Noise scaled to the input itself (smooth sensitivity, Nissim, Raskhodnikova & Smith 2007)
is audited by :func:`audit_smooth`: the noise scale b(x) implies the smooth bound
S(x) = α·b(x); the harness checks its two hypotheses on every pair, the local-sensitivity
bound |f(x) − f(y)| <= S(x) and β-smoothness S(x) <= e^β S(y), with the (α, β) of
:func:`admissible_noise`. :func:`exact_delta` gives the exact δ(ε) of a single released
coordinate whose location and scale both move, to measure what a broken hypothesis costs.

Every audit returns an :class:`AuditReport` with the worst ratio (loss / budget) and the
pair that reaches it, so tests can assert both privacy (worst <= 1) and tightness (worst
close to 1 where the calibration is exact).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np
from scipy import optimize, special, stats

X = TypeVar("X")

LAPLACE = "laplace"
GAUSSIAN = "gaussian"
KINDS = (LAPLACE, GAUSSIAN)
ACCOUNTANTS = ("laplace", "classic", "classic_basic", "analytic")
SMOOTH = "smooth"

# A change smaller than this fraction of the release's magnitude is rounding, not signal.
_RELATIVE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Budget:
    """A claimed (ε, δ); δ = 0 for pure ε-DP."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        if not self.epsilon > 0.0 or not 0.0 <= self.delta < 1.0:
            raise ValueError(f"need ε > 0 and δ in [0, 1); got {self}")


@dataclass(frozen=True, eq=False)
class Noise:
    """Declared noise: the release is sent as ``values + mixing @ z``.

    ``kind`` is ``"laplace"`` (``scale`` holds the Laplace scales b_k) or ``"gaussian"``
    (the standard deviations σ_k); the z_k are independent. ``mixing`` has one column per
    noise coordinate and one row per released value; ``None`` means one noise coordinate
    per released value. A scale of 0 declares a coordinate noiseless.
    """

    kind: str
    scale: np.ndarray
    mixing: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"noise kind must be one of {KINDS}; got {self.kind!r}")
        scale = np.atleast_1d(np.asarray(self.scale, dtype=np.float64))
        if np.any(scale < 0.0) or not np.all(np.isfinite(scale)):
            raise ValueError("noise scales must be finite and >= 0")
        object.__setattr__(self, "scale", scale)
        if self.mixing is not None:
            mixing = np.atleast_2d(np.asarray(self.mixing, dtype=np.float64))
            if mixing.shape[1] != scale.size:
                raise ValueError(f"mixing has {mixing.shape[1]} columns for "
                                 f"{scale.size} noise scales")
            object.__setattr__(self, "mixing", mixing)

    def halved(self) -> Noise:
        """The same noise with every scale halved (a negative control)."""
        return Noise(self.kind, self.scale / 2.0, self.mixing)


@dataclass(frozen=True)
class Pair(Generic[X]):
    """Two neighbouring inputs and a label saying why they are interesting."""

    label: str
    x: X
    y: X


@dataclass(frozen=True)
class PairLoss:
    """The audit of one pair.

    ``ratio`` is loss / budget under the report's accountant (inf: a noiseless change or a
    certificate that does not apply); ``shift`` the standardized change (‖u‖₁ for
    ``laplace``, ‖u‖₂ otherwise; for ``smooth`` the largest |f(x) − f(y)|/S(x));
    ``touched`` the number of noise coordinates the change moves; ``note`` says why a
    ratio is infinite; ``delta_ratio`` is exact δ / claimed δ where it was computed.
    """

    label: str
    ratio: float
    shift: float
    touched: int
    note: str = ""
    delta_ratio: float = math.nan


@dataclass(frozen=True)
class AuditReport:
    """All pairs of one audit and the worst of them."""

    accountant: str
    budget: Budget
    pairs: tuple[PairLoss, ...] = field(repr=False)

    @property
    def worst(self) -> PairLoss:
        """The pair with the largest ratio (the first of equals)."""
        return max(self.pairs, key=lambda p: p.ratio)

    @property
    def worst_ratio(self) -> float:
        return self.worst.ratio

    def ratio(self, label: str) -> float:
        """The largest ratio among the pairs labelled ``label``."""
        ratios = [p.ratio for p in self.pairs if p.label == label]
        if not ratios:
            raise KeyError(label)
        return max(ratios)

    def assert_private(self, slack: float = 1e-9) -> AuditReport:
        """Raise AssertionError unless every pair stays within the budget."""
        if not self.worst_ratio <= 1.0 + slack:
            raise AssertionError(f"privacy claim broken: {self}")
        return self

    def assert_tight(self, at_least: float = 0.999) -> AuditReport:
        """Raise AssertionError unless the worst pair uses at least ``at_least`` of it."""
        if not self.worst_ratio >= at_least:
            raise AssertionError(f"audit not tight (worst ratio < {at_least}): {self}")
        return self

    def __str__(self) -> str:
        w = self.worst
        note = f" ({w.note})" if w.note else ""
        return (f"{self.accountant} audit of (ε={self.budget.epsilon:g}, "
                f"δ={self.budget.delta:g}) over {len(self.pairs)} pairs: worst ratio "
                f"{w.ratio:.6g} for pair {w.label!r}, shift {w.shift:.6g}, "
                f"{w.touched} noise coordinate(s) touched{note}")


# ---------------------------------------------------------------- budgets of the accountants


def classic_gaussian_shift(epsilon: float, delta: float) -> float:
    """Largest standardized L2 shift the classic Gaussian mechanism certifies at (ε, δ):
    σ >= Δ₂ √(2 ln(1.25/δ))/ε (Dwork & Roth, Thm A.1), i.e. Δ₂/σ <= ε/√(2 ln(1.25/δ))."""
    return epsilon / math.sqrt(2.0 * math.log(1.25 / delta))


def gaussian_delta(shift: float, epsilon: float) -> float:
    """Exact δ(ε) of a Gaussian mechanism whose standardized L2 shift is ``shift``:
    Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r) (Balle & Wang 2018, Thm 8)."""
    if shift <= 0.0:
        return 0.0
    if math.isinf(shift):
        return 1.0
    r = shift
    high = stats.norm.cdf(r / 2.0 - epsilon / r)
    low = math.exp(epsilon + stats.norm.logcdf(-r / 2.0 - epsilon / r))
    return max(high - low, 0.0)


def analytic_gaussian_shift(epsilon: float, delta: float) -> float:
    """Largest standardized L2 shift r*(ε, δ) with :func:`gaussian_delta` <= δ."""
    high = 1.0
    while gaussian_delta(high, epsilon) < delta:
        high *= 2.0
    return optimize.brentq(lambda r: gaussian_delta(r, epsilon) - delta, 0.0, high,
                           xtol=1e-15, rtol=4 * np.finfo(float).eps)


def admissible_noise(kind: str, epsilon: float, delta: float) -> tuple[float, float]:
    """(α, β) of noise admissible for the smooth-sensitivity framework at (ε, δ).

    Nissim, Raskhodnikova & Smith (2007), Lemma 2.9 (one dimension): Laplace with
    α = ε/2, β = ε/(2 ln(2/δ)); Gaussian with α = ε/(5√(2 ln(2/δ))), β = ε/(4(1 + ln(2/δ))).
    Adding (S(x)/α)·Z is (ε, δ)-DP when S is a β-smooth upper bound on the local
    sensitivity (their Lemma 2.6 / Corollary 2.4 for Laplace).
    """
    log_term = math.log(2.0 / delta)
    if kind == LAPLACE:
        return epsilon / 2.0, epsilon / (2.0 * log_term)
    if kind == GAUSSIAN:
        return epsilon / (5.0 * math.sqrt(2.0 * log_term)), epsilon / (4.0 * (1.0 + log_term))
    raise ValueError(f"noise kind must be one of {KINDS}; got {kind!r}")


# ---------------------------------------------------------------------------- whitening


class _Whitener:
    """Solves ``mixing @ (weights · u) = change`` for u (least norm) and checks the fit."""

    def __init__(self, noise: Noise, n_values: int, standardize: bool) -> None:
        weights = noise.scale if standardize else np.ones_like(noise.scale)
        self.weights = weights
        self.mixing = noise.mixing
        if noise.mixing is None:
            if noise.scale.size not in (1, n_values):
                raise ValueError(f"{noise.scale.size} noise scales for {n_values} values "
                                 "and no mixing")
            self.matrix = None
            self.inverse = None
        else:
            if noise.mixing.shape[0] != n_values:
                raise ValueError(f"mixing has {noise.mixing.shape[0]} rows for "
                                 f"{n_values} released values")
            self.matrix = noise.mixing * weights[None, :]
            self.inverse = np.linalg.pinv(self.matrix, rcond=1e-13)
            self.reach = np.linalg.norm(self.matrix, axis=0)  # a unit of u_k in the release

    def solve(self, change: np.ndarray, magnitude: float) -> tuple[np.ndarray, bool]:
        """(u, covered): covered is False when part of the change has no noise."""
        tolerance = _RELATIVE_TOLERANCE * max(magnitude, 1e-300)
        if self.matrix is None:
            weights = np.broadcast_to(self.weights, change.shape)
            moved = np.abs(change) > tolerance
            if np.any(moved & (weights == 0.0)):
                return np.zeros_like(change), False
            u = np.where(moved, change / np.where(weights > 0.0, weights, 1.0), 0.0)
            return u, True
        u = self.inverse @ change
        u[np.abs(u) * self.reach <= tolerance] = 0.0  # rounding of the pseudo-inverse
        residual = np.linalg.norm(self.matrix @ u - change)
        covered = residual <= tolerance * max(1.0, math.sqrt(change.size))
        return u, bool(covered)


def _values(release: Callable[[X], np.ndarray], x: X) -> np.ndarray:
    return np.atleast_1d(np.asarray(release(x), dtype=np.float64)).ravel()


def _resolve(noise: Noise | Callable[[X], Noise], x: X) -> Noise:
    return noise if isinstance(noise, Noise) else noise(x)


def standardized_shift(change: np.ndarray, noise: Noise,
                       magnitude: float | None = None) -> tuple[np.ndarray, bool]:
    """u with ``mixing @ (scale · u) = change`` (least norm), and whether the noise covers
    the whole change. ``magnitude`` (default: the change's) sets the rounding tolerance."""
    change = np.atleast_1d(np.asarray(change, dtype=np.float64)).ravel()
    size = np.max(np.abs(change), initial=0.0) if magnitude is None else magnitude
    return _Whitener(noise, change.size, standardize=True).solve(change, size)


# ---------------------------------------------------------------------------- accountants


def pair_loss(u: np.ndarray, kind: str, budget: Budget, accountant: str,
              label: str = "") -> PairLoss:
    """Loss / budget of a standardized shift ``u`` under ``accountant``."""
    touched_mask = u != 0.0
    touched = int(np.count_nonzero(touched_mask))
    eps, delta = budget.epsilon, budget.delta
    if accountant == "laplace":
        if kind != LAPLACE:
            raise ValueError("the laplace accountant needs Laplace noise")
        shift = float(np.sum(np.abs(u)))
        return PairLoss(label, shift / eps, shift, touched)
    if kind != GAUSSIAN:
        raise ValueError(f"the {accountant} accountant needs Gaussian noise")
    if delta <= 0.0:
        raise ValueError("Gaussian accountants need δ > 0")
    shift = float(np.linalg.norm(u))
    if accountant == "classic":
        if eps > 1.0:
            raise ValueError("the classic Gaussian accountant certifies ε <= 1 only; "
                             "use classic_basic or analytic")
        return PairLoss(label, shift / classic_gaussian_shift(eps, delta), shift, touched)
    if accountant == "classic_basic":
        if touched == 0:
            return PairLoss(label, 0.0, shift, 0)
        per = np.abs(u[touched_mask]) * math.sqrt(2.0 * math.log(1.25 * touched / delta))
        if np.any(per > 1.0 + 1e-12):
            return PairLoss(label, math.inf, shift, touched,
                            f"a coordinate needs ε = {per.max():.3g} > 1 (Thm A.1)")
        return PairLoss(label, float(per.sum()) / eps, shift, touched)
    if accountant == "analytic":
        return PairLoss(label, shift / analytic_gaussian_shift(eps, delta), shift, touched)
    raise ValueError(f"accountant must be one of {ACCOUNTANTS}; got {accountant!r}")


def audit(
    release: Callable[[X], np.ndarray],
    noise: Noise | Callable[[X], Noise],
    pairs: Iterable[Pair[X]],
    budget: Budget,
    accountant: str,
) -> AuditReport:
    """Audit a mechanism with input-independent noise on ``pairs``.

    ``noise`` may be a callable of the input, but must then give the same scales and
    mixing on both inputs of every pair (noise that follows the input is
    :func:`audit_smooth`'s). Returns the report; it asserts nothing.
    """
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {ACCOUNTANTS}; got {accountant!r}")
    losses = []
    cached: tuple[Noise, _Whitener] | None = None
    for pair in pairs:
        noise_x, noise_y = _resolve(noise, pair.x), _resolve(noise, pair.y)
        if noise_x is not noise_y and not _same_noise(noise_x, noise_y):
            raise ValueError(f"pair {pair.label!r}: the noise depends on the input; "
                             "use audit_smooth")
        vx, vy = _values(release, pair.x), _values(release, pair.y)
        if vx.shape != vy.shape:
            raise ValueError(f"pair {pair.label!r}: releases of different lengths")
        if cached is None or cached[0] is not noise_x:  # one pseudo-inverse per noise
            cached = (noise_x, _Whitener(noise_x, vx.size, standardize=True))
        magnitude = max(np.max(np.abs(vx), initial=0.0), np.max(np.abs(vy), initial=0.0))
        u, covered = cached[1].solve(vx - vy, magnitude)
        if not covered:
            losses.append(PairLoss(pair.label, math.inf, math.inf, -1,
                                   "a released value changes with no noise on it"))
            continue
        losses.append(pair_loss(u, noise_x.kind, budget, accountant, pair.label))
    if not losses:
        raise ValueError("no pairs to audit")
    return AuditReport(accountant, budget, tuple(losses))


def _same_noise(a: Noise, b: Noise) -> bool:
    if a.kind != b.kind or not np.array_equal(a.scale, b.scale):
        return False
    if a.mixing is None or b.mixing is None:
        return a.mixing is None and b.mixing is None
    return a.mixing is b.mixing or np.array_equal(a.mixing, b.mixing)


# ---------------------------------------------------------------------- smooth sensitivity


def audit_smooth(
    release: Callable[[X], np.ndarray],
    noise: Callable[[X], Noise],
    pairs: Iterable[Pair[X]],
    budget: Budget,
    exact: bool = True,
) -> AuditReport:
    """Audit noise scaled to the input (smooth sensitivity) on ``pairs``, in both orders.

    The mixing must not depend on the input; the change of the release is expressed in
    raw noise units v (``mixing @ v = change``). Each noise coordinate k the pair touches
    (v_k != 0 or its scale moves) is a mechanism f_k + b_k(x)·Z with implied smooth bound
    S_k(x) = α b_k(x); with n coordinates touched each gets (ε/n, δ/n) (basic
    composition) and its (α, β) from :func:`admissible_noise`. The ratio of the pair is the
    largest of |v_k|/S_k(x) (local sensitivity bound) and S_k(x)/(e^β S_k(y)) (β-smoothness)
    over the touched coordinates and both orders: <= 1 means Nissim et al.'s hypotheses
    hold on this pair. With ``exact`` and one coordinate touched, ``delta_ratio`` is the
    exact δ(ε) of the pair (:func:`exact_delta`, worse order) over the claimed δ.
    """
    if budget.delta <= 0.0:
        raise ValueError("smooth sensitivity needs δ > 0")
    losses = []
    for pair in pairs:
        worst, worst_shift, touched_max, note, delta_ratio = 0.0, 0.0, 0, "", math.nan
        exact_deltas = []
        for a, b in ((pair.x, pair.y), (pair.y, pair.x)):
            noise_a, noise_b = noise(a), noise(b)
            if noise_a.kind != noise_b.kind:
                raise ValueError(f"pair {pair.label!r}: the noise kind depends on the input")
            va, vb = _values(release, a), _values(release, b)
            whitener = _Whitener(noise_a, va.size, standardize=False)
            if noise_b.mixing is not None and not np.array_equal(noise_a.mixing,
                                                                 noise_b.mixing):
                raise ValueError(f"pair {pair.label!r}: the mixing depends on the input")
            magnitude = max(np.max(np.abs(va), initial=0.0), np.max(np.abs(vb), initial=0.0))
            v, covered = whitener.solve(va - vb, magnitude)
            if not covered:
                worst, worst_shift, note = math.inf, math.inf, "a change with no noise on it"
                break
            scale_a = np.broadcast_to(noise_a.scale, v.shape)
            scale_b = np.broadcast_to(noise_b.scale, v.shape)
            # Only noise coordinates that reach the release count.
            live = (np.ones(v.shape, dtype=bool) if noise_a.mixing is None
                    else np.any(noise_a.mixing != 0.0, axis=0))
            shifted = v != 0.0
            moved = live & (shifted | (scale_a != scale_b))
            n = int(np.count_nonzero(moved))
            touched_max = max(touched_max, n)
            if n == 0:
                continue
            alpha, beta = admissible_noise(noise_a.kind, budget.epsilon / n, budget.delta / n)
            with np.errstate(divide="ignore", invalid="ignore"):
                local = np.where(moved & shifted, np.abs(v) / (alpha * scale_a), 0.0)
                smooth = np.where(moved, scale_a / (math.exp(beta) * scale_b), 0.0)
            local = np.nan_to_num(local, nan=math.inf)
            smooth = np.nan_to_num(smooth, nan=math.inf)
            ratio = float(max(local.max(), smooth.max()))
            if ratio > worst:
                worst = ratio
                note = ("local sensitivity above the smooth bound" if local.max() >= smooth.max()
                        else "smooth bound not β-smooth")
            worst_shift = max(worst_shift, float(local.max()))
            if exact and n == 1:
                k = int(np.flatnonzero(moved)[0])
                shift = float(v[k]) if shifted[k] else 0.0
                exact_deltas.append(exact_delta(noise_a.kind, shift, float(scale_a[k]),
                                                0.0, float(scale_b[k]), budget.epsilon))
        if exact_deltas and math.isfinite(worst):
            delta_ratio = max(exact_deltas) / budget.delta
        losses.append(PairLoss(pair.label, worst, worst_shift, touched_max,
                               note if worst > 1.0 + 1e-9 else "", delta_ratio))
    if not losses:
        raise ValueError("no pairs to audit")
    return AuditReport(SMOOTH, budget, tuple(losses))


def exact_delta(kind: str, loc_x: float, scale_x: float, loc_y: float, scale_y: float,
                epsilon: float) -> float:
    """Exact δ(ε) = sup_S P(S) − e^ε Q(S) for P = kind(loc_x, scale_x), Q = kind(loc_y,
    scale_y) (Laplace scales or Gaussian standard deviations; one direction).

    The set where log p − log q > ε is found in closed form (the log-ratio is piecewise
    linear for Laplace, quadratic for Gaussian) and its masses are summed.
    """
    if scale_x <= 0.0 or scale_y <= 0.0:
        return 1.0 if (loc_x, scale_x) != (loc_y, scale_y) else 0.0
    intervals = (_laplace_region if kind == LAPLACE else _gaussian_region)(
        loc_x, scale_x, loc_y, scale_y, epsilon)
    total = sum(_mass(kind, loc_x, scale_x, lo, hi)
                - math.exp(epsilon) * _mass(kind, loc_y, scale_y, lo, hi)
                for lo, hi in intervals)
    return min(max(total, 0.0), 1.0)


def _lower_tail(kind: str, z: float) -> float:
    """P(Z <= z) for a standard Laplace (scale 1) or standard normal Z."""
    if kind == GAUSSIAN:
        return float(special.ndtr(z))
    return 0.5 * math.exp(z) if z < 0.0 else 1.0 - 0.5 * math.exp(-z)


def _mass(kind: str, loc: float, scale: float, lo: float, hi: float) -> float:
    """P(lo < Y < hi) for Y = loc + scale·Z, from the nearer tail for precision."""
    if hi <= lo:
        return 0.0
    zl, zh = (lo - loc) / scale, (hi - loc) / scale
    if zl >= 0.0:  # upper tail: P(Z > zl) − P(Z > zh)
        return _lower_tail(kind, -zl) - _lower_tail(kind, -zh)
    return _lower_tail(kind, zh) - _lower_tail(kind, zl)


def _laplace_region(mx: float, bx: float, my: float, by: float,
                    epsilon: float) -> list[tuple[float, float]]:
    """Intervals where log p − log q − ε = log(by/bx) − |y−mx|/bx + |y−my|/by − ε > 0."""
    cuts = sorted({mx, my})
    edges = [-math.inf, *cuts, math.inf]
    constant = math.log(by / bx) - epsilon
    region = []
    for lo, hi in itertools.pairwise(edges):
        if math.isinf(lo):
            mid = hi - 1.0
        elif math.isinf(hi):
            mid = lo + 1.0
        else:
            mid = (lo + hi) / 2.0
        sx = 1.0 if mid >= mx else -1.0  # |y − mx| = sx (y − mx) on this piece
        sy = 1.0 if mid >= my else -1.0
        slope = -sx / bx + sy / by
        intercept = constant + sx * mx / bx - sy * my / by
        region.extend(_positive_part(slope, intercept, lo, hi))
    return region


def _positive_part(slope: float, intercept: float, lo: float,
                   hi: float) -> list[tuple[float, float]]:
    """Where slope·y + intercept > 0 within (lo, hi)."""
    if slope == 0.0:
        return [(lo, hi)] if intercept > 0.0 else []
    root = -intercept / slope
    if slope > 0.0:
        start = max(lo, root)
        return [(start, hi)] if start < hi else []
    end = min(hi, root)
    return [(lo, end)] if lo < end else []


def _gaussian_region(mx: float, sx: float, my: float, sy: float,
                     epsilon: float) -> list[tuple[float, float]]:
    """Intervals where log(sy/sx) − (y−mx)²/(2sx²) + (y−my)²/(2sy²) − ε > 0."""
    a = 1.0 / (2.0 * sy**2) - 1.0 / (2.0 * sx**2)
    b = mx / sx**2 - my / sy**2
    c = math.log(sy / sx) - mx**2 / (2.0 * sx**2) + my**2 / (2.0 * sy**2) - epsilon
    if a == 0.0:
        return _positive_part(b, c, -math.inf, math.inf)
    disc = b * b - 4.0 * a * c
    if disc <= 0.0:
        return [(-math.inf, math.inf)] if a > 0.0 else []
    half = -(b + math.copysign(math.sqrt(disc), b)) / 2.0  # stable roots half/a, c/half
    roots = [half / a, c / half] if half != 0.0 else [-math.sqrt(-c / a), math.sqrt(-c / a)]
    r1, r2 = sorted(roots)
    if a > 0.0:
        return [(-math.inf, r1), (r2, math.inf)]
    return [(r1, r2)]


def pairs_from(label: str, inputs: Sequence[tuple[X, X]]) -> list[Pair[X]]:
    """Label a list of (x, y) tuples ``label[0]``, ``label[1]``, …"""
    return [Pair(f"{label}[{k}]", x, y) for k, (x, y) in enumerate(inputs)]
