"""Survival data and the Cox partial likelihood of eq. (3), with its sensitivity (Sec. 12).

**Likelihood.** Patients j have a duration t_j, an event flag δ_j (1 = event observed,
0 = censored) and one covariate x_j (ACTG 175: the treatment indicator). The partial
log-likelihood of eq. (3) is

    log ℓ(S|θ) = Σ_{j: δ_j = 1} (x_j θ − log S_j(θ)),   S_j(θ) = Σ_{r ∈ R(j)} e^{x_r θ},

with the risk set R(j) = {r: t_r >= t_j}: every event tied at t_j has the whole risk set
(Breslow's handling of ties, ``ties="breslow"``). Efron's approximation
(``ties="efron"``, lifelines' ``CoxPHFitter``) gives the d events tied at one time the
denominators S − (k/d) T, k = 0, …, d − 1, with T the tied events' sum of e^{xθ}. Both are
evaluated on a whole grid of θ at once in O(N G): the risk-set sums are reverse
cumulative sums over the patients sorted by duration, shifted by max_r x_r θ per θ.

**Sensitivity.** Sec. 12 states Δ = 2 B_θ B_x for |θ| <= B_θ, |x| <= B_x. It does not
bound the change of log ℓ when one patient changes. Removing patient k (w = e^{x_k θ})
changes log ℓ by

    log ℓ(S∖k) − log ℓ(S) = δ_k log(S_k / w) + Σ_{j ≠ k: δ_j = 1, t_j <= t_k} log(S_j / (S_j − w)),

non-negative terms: k's own term, −log of a probability, is about log |R(k)| (up to
log N) where Sec. 12 counts B_θ B_x; the others form a harmonic-like sum Σ_j 1/|R(j)|.
Measured with B_θ = B_x = 1 (θ on a grid of 9 in [−1, 1]):

* ACTG 175, ddI against ZDV (1,093 patients, 309 events): the worst neighbour found changes
  log ℓ by 8.62 (a censored patient replaced by an event at the earliest time with
  x = −1, at θ = 1), 4.3 times 2 B_θ B_x = 2; 7.63 with replacements' x in {0, 1}
  only. Removing an early event alone: 7.63. The harmonic part is small here (adding a
  patient censored last: at most 1.56), as risk sets stay large under late censoring.
* One of five centres (218 or 219 patients): 6.97 to 7.05.
* :func:`risk_set_sensitivity`, the sensitivity over all data sets of N patients (a
  bound, derived in its docstring, that :func:`extreme_data` attains exactly): 42.53 for
  N = 1,093 and 30.73 for N = 219 (17.88 and 13.52 for a 0/1 covariate, ρ = e^{B_θ});
  about e^{2 B_θ B_x} log N. Even at B_θ = 0 it is about log N (4.90 for N = 50), where
  Sec. 12 gives 0.

The bound is for Breslow's ties (eq. (3)). Efron's likelihood stayed within it in the
searches of ``tests/test_inference_survival.py`` and on ACTG 175 (worst 8.62 as well), but
the proof does not cover it.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..options import choice, fail, integer, real
from .config import ARMS, SPLITS, TIES

#: Largest θ-grid × patients block evaluated at once (8 MB per float64 array).
_BLOCK = 1 << 20

#: One patient: (duration, event, covariate).
Patient = tuple[float, bool | int, float]


@functools.cache
def _actg175() -> pd.DataFrame:
    # Found without importing lifelines (a dependency), which takes a second: only its
    # data file is read.
    package = Path(importlib.util.find_spec("lifelines").origin).parent
    return pd.read_csv(package / "datasets" / "ACTG175.csv", index_col=0)


def actg175() -> pd.DataFrame:
    """ACTG 175 as packaged by lifelines: 2,139 patients, ``arms`` (:data:`ARMS`),
    ``days`` (time to event or censoring) and ``cens`` (1 = event).

    Read once per process; each call returns a copy, so callers may modify it.
    """
    return _actg175().copy()


def _columns(frame: pd.DataFrame, source: str, columns: dict[str, str]) -> None:
    """Each ``key: column`` names a column of ``frame``, or a ConfigError names the key."""
    have = ", ".join(map(str, frame.columns))
    for key, column in columns.items():
        if not isinstance(column, str) or column not in frame.columns:
            fail(key, f"a column of {source} (columns: {have})", column)


def _numeric(frame: pd.DataFrame, key: str, column: str) -> np.ndarray:
    """The column as float64; a ConfigError names ``key`` at the first non-number."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        row = bad[0]
        fail(key, f"numbers in column {column!r} (row {row + 1} of {len(values)})",
             frame[column].iloc[row])
    return values


def _checked(frame: pd.DataFrame, source: str, duration_col: str, event_col: str,
             covariate_col: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Durations > 0, events in {0, 1} with at least one event, finite covariates."""
    _columns(frame, source, {"dataset.duration_col": duration_col,
                             "dataset.event_col": event_col,
                             "dataset.covariate_col": covariate_col})
    if len(frame) == 0:
        fail("dataset.csv_path", "a CSV file with at least one patient", source)
    durations = _numeric(frame, "dataset.duration_col", duration_col)
    if (durations <= 0).any():
        row = int(np.argmax(durations <= 0))
        fail("dataset.duration_col", f"positive durations in column {duration_col!r} (row "
             f"{row + 1})", float(durations[row]))
    events = _numeric(frame, "dataset.event_col", event_col)
    if not np.isin(events, (0.0, 1.0)).all():
        row = int(np.argmax(~np.isin(events, (0.0, 1.0))))
        fail("dataset.event_col", f"0 or 1 in column {event_col!r} (row {row + 1})",
             float(events[row]))
    if not events.any():
        fail("dataset.event_col", "a column with at least one event (a 1)", event_col)
    covariates = _numeric(frame, "dataset.covariate_col", covariate_col)
    return durations, events.astype(bool), covariates


def read_csv(path: str | Path, duration_col: str, event_col: str,
             covariate_col: str) -> pd.DataFrame:
    """A user's survival data: one row per patient, with a positive duration, an event
    flag in {0, 1} (at least one event) and a numeric covariate.

    Returns the file's columns, the three named ones converted to numbers (float64
    duration and covariate, int64 event). Any problem raises a one-line
    :class:`~sweep.errors.ConfigError` naming the option of the group ``dataset``:
    ``csv_path`` (unreadable or empty file), ``duration_col``, ``event_col``,
    ``covariate_col`` (missing column, with
    the file's columns listed; non-numeric values; durations <= 0; events not 0 or 1;
    no event at all).
    """
    name = Path(path).name
    try:
        frame = pd.read_csv(path)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as error:
        reason = " ".join(str(error).split())  # one line, whatever the parser said
        fail("dataset.csv_path", f"a readable CSV file ({type(error).__name__}: {reason})",
             str(path))
    durations, events, covariates = _checked(frame, name, duration_col, event_col,
                                             covariate_col)
    frame = frame.copy()
    frame[duration_col] = durations
    frame[event_col] = events.astype(np.int64)
    frame[covariate_col] = covariates
    return frame


@dataclass(frozen=True, eq=False)
class Patients:
    """A data set S of patients, sorted by duration ascending.

    Attributes are read-only float64 arrays ``duration``, ``covariate`` and a bool array
    ``event``. Ties in duration put events before censored patients: a censoring at t
    counts as just after the deaths at t (the usual convention), and the tied events
    are then contiguous, so Efron's rank of an event is its position in its tie group.
    The likelihood does not depend on this order: risk sets are read at the first
    position of each tie group, which holds every patient with t_r >= t_j.
    """

    duration: np.ndarray
    event: np.ndarray
    covariate: np.ndarray

    def __post_init__(self) -> None:
        duration = np.asarray(self.duration, dtype=np.float64)
        event = np.asarray(self.event, dtype=bool)
        covariate = np.asarray(self.covariate, dtype=np.float64)
        if duration.ndim != 1 or not duration.shape == event.shape == covariate.shape:
            raise ValueError("Patients: duration, event and covariate must be 1-D arrays "
                             f"of one length; got shapes {duration.shape}, {event.shape}, "
                             f"{covariate.shape}")
        order = np.lexsort((~event, duration))  # by duration, then events first
        for name, values in (("duration", duration), ("event", event),
                             ("covariate", covariate)):
            values = values[order]
            values.flags.writeable = False
            object.__setattr__(self, name, values)

    @classmethod
    def from_arms(cls, frame: pd.DataFrame, arm: int, control: int = 0) -> Patients:
        """ACTG 175's patients of ``arm`` (covariate 1) and ``control`` (covariate 0),
        from a frame with the columns of :func:`actg175`."""
        arms = [int(a) for a in sorted(frame["arms"].unique()) if a != control]
        if isinstance(arm, bool) or not real(arm) or arm not in arms:
            names = ", ".join(f"{a} ({ARMS.get(a, '?')})" for a in arms)
            fail("dataset.arm", f"one of {names}, an arm other than the control "
                 f"{control} ({ARMS.get(control, '?')})", arm)
        rows = frame[frame["arms"].isin((arm, control))]
        return cls(rows["days"].to_numpy(), rows["cens"].to_numpy() == 1,
                   (rows["arms"] == arm).to_numpy(dtype=np.float64))

    @classmethod
    def from_columns(cls, frame: pd.DataFrame, duration_col: str, event_col: str,
                     covariate_col: str) -> Patients:
        """The patients of a frame (such as :func:`read_csv`'s) by column names; bad
        columns raise the same one-line errors as :func:`read_csv`."""
        return cls(*_checked(frame, "the data", duration_col, event_col, covariate_col))

    def take(self, indices: ArrayLike) -> Patients:
        """The patients at ``indices`` (positions in this sorted order; repeats allowed)."""
        indices = np.asarray(indices, dtype=np.intp)
        return Patients(self.duration[indices], self.event[indices], self.covariate[indices])

    def __len__(self) -> int:
        return self.duration.size

    @functools.cached_property
    def _ties(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per event: the first position of its risk set, the position after its tied
        events, and Efron's fraction k/d (its rank k among the d events tied with it)."""
        events = np.flatnonzero(self.event)
        start = np.searchsorted(self.duration, self.duration[events], side="left")
        _, group, tied = np.unique(start, return_inverse=True, return_counts=True)
        size = tied[group]
        return start, start + size, (events - start) / size


def _tail_sums(weights: np.ndarray) -> np.ndarray:
    """Σ_{r >= i} weights[:, r] for i = 0, …, N (the last column 0), summed from the end
    so that the small late risk sets keep their relative precision."""
    blocks, count = weights.shape
    sums = np.zeros((blocks, count + 1))
    np.cumsum(weights[:, ::-1], axis=1, out=sums[:, count - 1::-1])
    return sums


def _row_sums(terms: np.ndarray) -> np.ndarray:
    """Σ_j terms[:, j], added in order: numpy's ``sum`` adds a row pairwise alone but in
    order next to others, and a θ's value must not depend on the θs evaluated with it
    (a replicate's rows on its block)."""
    return np.cumsum(terms, axis=1)[:, -1]


def _evaluate(patients: Patients, thetas: ArrayLike, ties: str, score: bool) -> np.ndarray:
    choice("model.ties", ties, TIES)
    theta = np.asarray(thetas, dtype=np.float64)
    flat = theta.ravel()
    out = np.zeros(flat.size)
    start, after, fraction = patients._ties
    if start.size == 0:
        return out.reshape(theta.shape)
    if ties == "breslow":
        fraction = np.zeros_like(fraction)  # every tied event sees its whole risk set
    x = patients.covariate
    x_events = x[patients.event].sum()
    step = max(1, _BLOCK // (x.size + 1))
    for low in range(0, flat.size, step):
        block = flat[low:low + step, None]
        exponent = block * x
        shift = exponent.max(axis=1, keepdims=True)  # the largest term becomes 1
        weights = np.exp(exponent - shift)
        tails = _tail_sums(weights)
        # Efron: S − (k/d) T, with T = tails[start] − tails[after] the tied events' sum
        risk = tails[:, start] - fraction * (tails[:, start] - tails[:, after])
        if score:
            tails = _tail_sums(weights * x)
            moment = tails[:, start] - fraction * (tails[:, start] - tails[:, after])
            out[low:low + step] = x_events - _row_sums(moment / risk)
        else:
            out[low:low + step] = (block[:, 0] * x_events
                                   - _row_sums(np.log(risk)) - start.size * shift[:, 0])
    return out.reshape(theta.shape)


def partial_loglik(patients: Patients, thetas: ArrayLike,
                   ties: str = "breslow") -> np.ndarray:
    """log ℓ(S|θ) of eq. (3) at every θ of ``thetas`` (any shape; the result has it).

    ``breslow`` is eq. (3) as printed; ``efron`` is Efron's approximation, lifelines'
    ``CoxPHFitter.log_likelihood_``. O(N G) time for G values of θ; stable while the
    spread θ (max x − min x) stays below about 700 (the risk-set sums are shifted by
    max_r x_r θ, so no term overflows and none underflows before e^{-700}).
    """
    return _evaluate(patients, thetas, ties, score=False)


def batch_loglik(patients: Patients, batches: ArrayLike, count: int, thetas: ArrayLike,
                 ties: str = "breslow") -> np.ndarray:
    """log ℓ(S_b|θ) of eq. (3) for each batch S_b of ``patients`` at every θ: a
    (``count``, G) array, where ``batches[j]`` in [0, ``count``) is patient j's batch.

    The same likelihood as :func:`partial_loglik` of each batch on its own (an empty batch
    gives 0), in one pass: the patients are sorted by batch, then as :class:`Patients`
    sorts them, and each batch's risk-set sums are differences of one tail sum. Online
    learning's rounds (each centre's patients spread over T + 1 rounds, for every
    replicate) are thousands of small batches.
    """
    choice("model.ties", ties, TIES)
    batches = np.asarray(batches, dtype=np.int64)
    theta = np.asarray(thetas, dtype=np.float64).ravel()
    order = np.lexsort((~patients.event, patients.duration, batches))
    batch, duration = batches[order], patients.duration[order]
    event, x = patients.event[order], patients.covariate[order]
    out = np.zeros((count, theta.size))
    events = np.flatnonzero(event)
    if events.size == 0:
        return out
    # Runs of one batch and one duration: a tied group, its events first.
    new = np.r_[True, (batch[1:] != batch[:-1]) | (duration[1:] != duration[:-1])]
    first = np.flatnonzero(new)
    run = np.cumsum(new) - 1
    start = first[run[events]]
    tied = np.bincount(run[events], minlength=first.size)[run[events]]
    fraction = (events - start) / tied if ties == "efron" else np.zeros(events.size)
    end = np.searchsorted(batch, batch[events], side="right")
    exponent = theta[:, None] * x
    shift = exponent.max(axis=1, keepdims=True)
    tails = _tail_sums(np.exp(exponent - shift))
    risk = (tails[:, start] - tails[:, end]) - fraction * (tails[:, start]
                                                          - tails[:, start + tied])
    terms = exponent[:, events] - shift - np.log(risk)  # (G, events)
    for g in range(theta.size):
        out[:, g] = np.bincount(batch[events], weights=terms[g], minlength=count)
    return out


def partial_score(patients: Patients, thetas: ArrayLike,
                  ties: str = "breslow") -> np.ndarray:
    """d/dθ log ℓ(S|θ) at every θ of ``thetas``:
    Σ_{δ_j = 1} (x_j − Σ_{R(j)} x_r e^{x_r θ} / S_j(θ)) for Breslow (Efron: both sums less
    k/d of the tied events' share, as in the likelihood)."""
    return _evaluate(patients, thetas, ties, score=True)


def profile_maximum(patients: Patients, low: float, high: float,
                    ties: str = "breslow") -> tuple[float, float]:
    """(θ̂, log ℓ(S|θ̂)): the maximum of eq. (3) over θ in [low, high].

    log ℓ is concave in θ (its second derivative is minus a sum of variances), so its
    score decreases and θ̂ is the score's root, bracketed by Brent's method, or the end of
    the interval where the score keeps its sign.
    """
    if not (real(low) and real(high) and math.isfinite(low) and math.isfinite(high)
            and low < high):
        raise ValueError(f"profile_maximum: need finite low < high; got {low!r}, {high!r}")
    ends = partial_score(patients, [low, high], ties)
    if ends[0] <= 0:
        theta = float(low)
    elif ends[1] >= 0:
        theta = float(high)
    else:
        from scipy import optimize  # here: reading a data set needs no optimizer

        theta = optimize.brentq(lambda t: float(partial_score(patients, t, ties)),
                                low, high, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    return theta, float(partial_loglik(patients, theta, ties))


def split(count: int, centres: int, kind: str,
          rng: np.random.Generator) -> list[np.ndarray]:
    """Random division of ``count`` patients among ``centres`` centres: one sorted array
    of patient indices per centre, every index in exactly one.

    ``even``: a random permutation cut into parts whose sizes differ by at most 1, as
    the paper's "divided equally at random between five centres" (Sec. 2.1).
    ``skewed``: centre i (0-based) gets a share proportional to i + 1, sizes about
    1 : 2 : … : n (an option the paper does not have); sizes are rounded by largest
    remainders, and a centre rounded to no patient takes one from the largest centre.
    """
    integer("patients", count, 1)
    integer("graph.n_nodes", centres, 1)
    choice("dataset.split", kind, SPLITS)
    if centres > count:
        fail("graph.n_nodes", f"<= the number of patients ({count})", centres)
    if kind == "even":
        sizes = np.full(centres, count // centres)
        sizes[:count % centres] += 1
    else:
        share = count * np.arange(1, centres + 1) / (centres * (centres + 1) / 2)
        sizes = np.floor(share).astype(np.int64)
        remainder = np.argsort(sizes - share, kind="stable")  # largest fraction first
        sizes[remainder[:count - sizes.sum()]] += 1
        for empty in np.flatnonzero(sizes == 0):
            sizes[np.argmax(sizes)] -= 1
            sizes[empty] = 1
    order = rng.permutation(count)
    return [np.sort(part) for part in np.split(order, np.cumsum(sizes)[:-1])]


def resample(patients: Patients, size: int, rng: np.random.Generator) -> Patients:
    """``size`` patients drawn with replacement (Sec. 14.3 resamples ACTG 175 to 4,096
    and 8,192 time points for its runtime study)."""
    integer("dataset.patients", size, 1)
    return patients.take(rng.integers(0, len(patients), size))


# --- Sensitivity (Sec. 12) -------------------------------------------------------------


def sec12_sensitivity(bound_theta: float, bound_x: float) -> float:
    """Δ = 2 B_θ B_x, Sec. 12 as printed (it does not bound the change; see the module)."""
    return 2.0 * bound_theta * bound_x


def neighbour(patients: Patients, index: int | None,
              replacement: Patient | None) -> Patients:
    """S with patient ``index`` (a position in the sorted order) replaced by
    ``replacement`` = (duration, event, covariate); removed when ``replacement`` is None;
    ``replacement`` added when ``index`` is None."""
    if index is None and replacement is None:
        raise ValueError("neighbour: give an index, a replacement or both")
    keep = np.ones(len(patients), dtype=bool)
    if index is not None:
        keep[index] = False
    duration, event, covariate = (patients.duration[keep], patients.event[keep],
                                  patients.covariate[keep])
    if replacement is not None:
        t, e, x = replacement
        duration, event, covariate = (np.append(duration, t), np.append(event, bool(e)),
                                      np.append(covariate, x))
    return Patients(duration, event, covariate)


def neighbour_change(patients: Patients, index: int | None, replacement: Patient | None,
                     thetas: ArrayLike, ties: str = "breslow") -> np.ndarray:
    """log ℓ(S'|θ) − log ℓ(S|θ) on the grid ``thetas``, S' = :func:`neighbour` of S."""
    return (partial_loglik(neighbour(patients, index, replacement), thetas, ties)
            - partial_loglik(patients, thetas, ties))


def _candidates(patients: Patients, bound_x: float,
                covariates: Sequence[float] | None) -> list[Patient]:
    """Extreme replacements: earliest and latest durations, event or not, covariate ±B_x
    or the indicator's 0 and 1 (when inside [−B_x, B_x]), unless ``covariates`` given."""
    times = (float(patients.duration[0]), float(patients.duration[-1]))
    if covariates is None:
        covariates = {-bound_x, bound_x} | {x for x in (0.0, 1.0) if abs(x) <= bound_x}
    return [(t, e, float(x)) for t in times for e in (0, 1) for x in sorted(covariates)]


def worst_neighbour(patients: Patients, thetas: ArrayLike, bound_x: float,
                    ties: str = "breslow", *,
                    covariates: Sequence[float] | None = None) -> tuple[float, str]:
    """The largest max_θ |log ℓ(S'|θ) − log ℓ(S|θ)| found over neighbours S' of S, and
    which S' and θ attain it.

    Candidates: each patient removed, and each replaced by a patient with the earliest
    or the latest duration of S, event or censored, and covariate −B_x, 0, 1 or B_x
    (those in [−B_x, B_x]; ``covariates`` instead when given, e.g. (0, 1) for a
    treatment indicator). A search, so a lower bound on the sensitivity at this S.
    O(N² G) time (N = len(patients), G = len(thetas)): about 2 s for N = 1,093, G = 9.
    """
    theta = np.atleast_1d(np.asarray(thetas, dtype=np.float64))
    base = partial_loglik(patients, theta, ties)
    candidates: Sequence[Patient | None] = [None, *_candidates(patients, bound_x,
                                                               covariates)]
    best, where = -1.0, ""
    for index in range(len(patients)):
        for replacement in candidates:
            change = np.abs(partial_loglik(neighbour(patients, index, replacement), theta,
                                           ties) - base)
            at = int(np.argmax(change))
            if change[at] > best:
                best, where = float(change[at]), _describe(patients, index, replacement,
                                                           theta[at])
    return best, where


def _describe(patients: Patients, index: int, replacement: Patient | None,
              theta: float) -> str:
    old = (f"patient {index} (t={patients.duration[index]:g}, "
           f"event={int(patients.event[index])}, x={patients.covariate[index]:g})")
    if replacement is None:
        return f"remove {old} at θ={theta:g}"
    t, e, x = replacement
    return f"replace {old} by (t={t:g}, event={int(e)}, x={x:g}) at θ={theta:g}"


def _ratio(bound_theta: float, bound_x: float, spread: float | None) -> float:
    """ρ = e^{B_θ (max x − min x)}: the largest ratio of two terms e^{xθ} of a risk set."""
    spread = 2.0 * bound_x if spread is None else spread
    return math.exp(bound_theta * spread)


def _removal_bounds(count: int, rho: float) -> np.ndarray:
    """A(q), q = 0, …, N − 1, of :func:`risk_set_sensitivity`."""
    others = np.arange(1, count, dtype=np.float64)  # c = 1, …, N − 1
    earlier = np.append(np.cumsum(np.log1p(rho / others)[::-1])[::-1], 0.0)  # Σ_{c > q}
    q = np.arange(count, dtype=np.float64)
    tied = q * np.log1p(rho / np.maximum(q, 1.0))
    return np.log1p(q / rho) + tied + earlier


def risk_set_sensitivity(count: int, bound_theta: float, bound_x: float, *,
                         spread: float | None = None) -> float:
    """The sensitivity of eq. (3) (Breslow ties): the largest |log ℓ(S'|θ) − log ℓ(S|θ)|
    over data sets S, S' of N = ``count`` patients that differ in one patient (any
    duration and event flag, |x| <= B_x), for |θ| <= B_θ. The same number bounds
    removing one patient from a set of N.

    ``spread`` is the covariate's range max x − min x (default 2 B_x; 1 for the paper's
    0/1 treatment indicator). Write ρ = e^{B_θ spread}: every term e^{xθ} of a risk-set
    sum lies in [m, ρ m] for one m > 0.

    1. Removal never decreases log ℓ. Removing k, with w = e^{x_k θ},
       log ℓ(S∖k) − log ℓ(S) = δ_k log(S_k / w) + Σ_{δ_j = 1, j ≠ k, t_j <= t_k}
       log(S_j / (S_j − w)): −log of a probability, plus logs of ratios > 1 (risk sets
       of events after t_k do not hold k). The numerator θ x_k leaves with k's own term.
    2. Replacing k by k' is removing k from S and k' from S': with C = S∖k = S'∖k',
       log ℓ(S') − log ℓ(S) = [log ℓ(C) − log ℓ(S)] − [log ℓ(C) − log ℓ(S')], a difference
       of two numbers in [0, D], so in [−D, D], where D bounds one removal from N
       patients (the triangle inequality would give 2D).
    3. Bound D. Let q be the number of other patients with t >= t_k, W their sum of
       e^{xθ} (W in [q m, q ρ m]) and u = W / w (u in [q/ρ, q ρ]).
       * Own term: S_k = w + W, so δ_k log(S_k / w) <= log(1 + u).
       * Events tied with k (t_j = t_k; at most q, all among those q): S_j = w + W, so
         each adds log(1 + 1/u). These two terms, log(1 + u) + q log(1 + 1/u), have
         derivative (u − q)/(u(1 + u)) in u, so are largest at an end of [q/ρ, q ρ];
         the end u = q/ρ is the larger (for v = ρ >= 1 the difference of the two ends is
         (1 + q) log((v + q)/(1 + q v)) + (q − 1) log v, 0 at v = 1 with derivative
         (q − 1) q (v − 1)² / (v (v + q)(1 + q v)) >= 0). Bound: log(1 + q/ρ) +
         q log(1 + ρ/q).
       * Events with t_j < t_k: sort the N − 1 other patients by duration; the event at
         position p (0-based) has c >= N − 1 − p >= q + 1 patients besides k in its risk
         set (itself and every later one, ties included), each term >= m, and w <= ρ m,
         so it adds at most log(1 + ρ/c); distinct events have distinct c.
       Hence D = max_{0 <= q <= N − 1} A(q),
           A(q) = log(1 + q/ρ) + q log(1 + ρ/q) + Σ_{c=q+1}^{N−1} log(1 + ρ/c)
       (q log(1 + ρ/q) = 0 at q = 0). Ties never raise it: they only enlarge risk sets.
    4. Every A(q) is attained at θ = B_θ (:func:`extreme_data`): N − 1 − q events at
       distinct times with the smallest covariate, then q such events tied with k, an
       event with the largest covariate; replace k by a patient censored before everyone
       (whose removal changes nothing). So D is the sensitivity, not just a bound.

    A(0) is the harmonic sum Σ_{c=1}^{N−1} log(1 + ρ/c) ≈ ρ (log N + 0.58) for N >> ρ:
    e^{2 B_θ B_x} log N, against Sec. 12's 2 B_θ B_x.
    """
    integer("patients", count, 1)
    return float(_removal_bounds(count, _ratio(bound_theta, bound_x, spread)).max())


def extreme_data(count: int, bound_theta: float, bound_x: float, *,
                 spread: float | None = None) -> tuple[Patients, int]:
    """A data set of ``count`` patients and the position of the patient whose removal
    changes log ℓ(·|B_θ) by exactly :func:`risk_set_sensitivity` (step 4 there).

    Covariates are −B_x and B_x (B_x − ``spread`` and B_x when ``spread`` is given).
    """
    integer("patients", count, 1)
    rho = _ratio(bound_theta, bound_x, spread)
    q = int(np.argmax(_removal_bounds(count, rho)))
    low = -bound_x if spread is None else bound_x - spread
    early = count - 1 - q
    duration = np.append(np.arange(1.0, early + 1.0), np.full(q + 1, early + 1.0))
    covariate = np.append(np.full(count - 1, low), bound_x)
    # k is last in the input among its tied events, so last after the stable sort
    return Patients(duration, np.ones(count, dtype=bool), covariate), count - 1


__all__ = [
    "ARMS", "SPLITS", "TIES", "Patients", "actg175", "extreme_data", "neighbour",
    "neighbour_change", "partial_loglik", "partial_score", "profile_maximum", "read_csv",
    "resample", "risk_set_sensitivity", "sec12_sensitivity", "split", "worst_neighbour",
]
