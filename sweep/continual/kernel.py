"""The per-sample bookkeeping of every method, compiled: one pass over one stream.

:func:`run_stream` runs one coordinate of one replicate. The methods differ in when a
user's samples reach a binary mechanism (its ``mode``), into which mechanism, with what
projection and noise; all of it is given as arrays (:class:`Parameters`), so one loop
serves them all:

* :data:`STREAM` (``non_private``, ``alg2``): every sample is an element of mechanism 0.
* :data:`NAIVE` (``naive_laplace``): the running sum, with fresh Laplace noise on each
  release read (only checkpoints are read: the other releases' noise is independent of
  them and never drawn).
* :data:`BLOCK` (``alg3``): a user's block of m samples is released, projected, when its
  m-th sample arrives (Alg. 3, lines 7–10, for contiguous arrivals and any other).
* :data:`EXPONENTIAL` (``alg4``–``alg6``): exponential withhold-release. When a user's
  count reaches 2^ℓ, the sum of its samples 2^(ℓ−1)+1 … 2^ℓ (ℓ = 0: its first sample) is
  released at level ℓ, into mechanism ``mechanism[ℓ]``, projected where ``half[ℓ]`` is
  finite. A level whose ``threshold`` is positive starts inactive (Alg. 6): its blocks wait
  in a buffer until Σ_u min(M(u), 2^(ℓ−1)) >= ``threshold[ℓ]`` (line 9); then
  PrivateMedian (Alg. 7) gives μ̃_ℓ, the projection centre becomes 2^(ℓ−1) μ̃_ℓ and the
  buffer is released (lines 10–12).

``total`` grows by the number of samples a release carries (1, or 2^(ℓ−1), or m), not by
M(u_t) as Algs 4–5 print (an erratum: the estimate would divide by twice the samples).
Noise is drawn only where a release happens, from its own generator, so the samples of
a replicate do not depend on the method's noise.

With ``trace`` arrays of positive length, every release is recorded: its time, level,
(projected) value, mechanism, index k in that mechanism and the exact p-sum it creates;
and every PrivateMedian's cost vector. The privacy audit compares these across
neighbouring streams.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from ..components.noise import draw_scale
from ..components.tree import binary_mechanism_step, lowest_bit, merge_push, push, set_bits_sum

STREAM, NAIVE, BLOCK, EXPONENTIAL = range(4)


# The structures a kernel takes live in this module: numba's cache of its kernels is
# keyed on this file, and a field changed elsewhere would leave a stale kernel in use.
class Stream(NamedTuple):
    """One coordinate's stream: the arrivals u_1..u_T and the samples x_1..x_T."""

    users: np.ndarray  # int32[T]: u_1..u_T, 0-based, below n_users
    n_users: int  # n
    max_samples: int  # m, the samples of a user at most (a block of Alg. 3)
    mu: float  # μ: x_t = 1 with probability μ, drawn from the samples' generator …
    values: np.ndarray  # … unless these float[T] give x_1..x_T (empty: drawn)
    # float[mechanisms, elements], the privacy audit's coupling (empty in a sweep): the
    # noisy p-sum each element creates (Algs 3–6), or on the running sum's path (naive,
    # Alg. 2) the released running sum S̃_t of each checkpoint (row 0); where finite it
    # is released in place of the drawn one, where NaN the drawn one is written there
    released: np.ndarray


class Parameters(NamedTuple):
    """A method's parameters for one coordinate, from the paper's equations
    (:func:`sweep.continual.parameters.parameters`): what :func:`run_stream` needs beyond
    the stream. Arrays over levels ℓ = 0..L unless said (one level for the methods
    without withhold-release)."""

    mode: int  # STREAM, NAIVE, BLOCK or EXPONENTIAL
    levels: int  # L + 1
    epsilon: float  # ε₀, the budget of one coordinate
    eta: np.ndarray  # float[mechanisms]: Laplace scale of each mechanism's p-sums (0: none)
    kind: int  # the noise's code (sweep.components.noise)
    budget: np.ndarray  # float[mechanisms]: ε' of one p-sum, η = Δ/ε'
    # float[mechanisms, STAIR_VALUES]: the staircase's shape at ``budget``
    # (sweep.components.noise.stairs), unused with Laplace noise
    stairs: np.ndarray
    mechanism: np.ndarray  # int: each level's mechanism
    # int: the samples one element of a level carries (1 at levels 0 and 1, 2^(ℓ−1) above;
    # m for a block of Alg. 3, which uses level 0 only)
    carried: np.ndarray
    # float: [centre − half, centre + half] projects a level's elements (half = inf: no
    # projection); Alg. 6 sets the centre at activation
    centre: np.ndarray
    half: np.ndarray
    # int, Alg. 6: a level with a positive threshold starts inactive; k arrays for its
    # PrivateMedian at median_epsilon
    threshold: np.ndarray
    k: np.ndarray
    median_epsilon: float
    depth: int  # levels of each mechanism's tree (⌊log2 N⌋ + 1 for its N elements at most)
    initial: float  # the estimate while no sample is released (Alg. 3, lines 3–5: the prior)


class Coordinate(NamedTuple):
    """One coordinate's run: the estimate μ̂_t, the samples it uses and the elements the
    projection changed so far, per checkpoint; each level's activation time (0: never)
    and prior μ̃_ℓ (Alg. 6); and the trace (rows of (time, level, value, mechanism, index,
    p-sum)) and PrivateMedian's cost vector over its bins per level, when asked for.
    :func:`run_stream` writes them in place."""

    estimate: np.ndarray
    used: np.ndarray
    clipped: np.ndarray
    activation: np.ndarray
    priors: np.ndarray
    trace: np.ndarray
    costs: np.ndarray


class Mechanisms(NamedTuple):
    """The binary mechanisms of a run, as its releases change them."""

    exact: np.ndarray  # (mechanisms, depth): each tree's exact p-sums (kept for the trace)
    noisy: np.ndarray  # its noisy p-sums
    releases: np.ndarray  # the elements released into each mechanism so far
    centre: np.ndarray  # each level's projection centre, Alg. 6's once it activates
    counters: np.ndarray  # int64[3]: samples released, elements clipped, trace rows
    released: np.ndarray  # the stream's ``released``: noisy p-sums handed in or recorded


@numba.njit(cache=True)
def private_median(own: np.ndarray, start: np.ndarray, count: np.ndarray, level: int,
                   k: int, epsilon: float, rng: np.random.Generator,
                   costs: np.ndarray) -> float:
    """PrivateMedian (Alg. 7) at scale ℓ = ``level`` with privacy ``epsilon``.

    Users are taken in index order (line 3), each giving its first min(M(u), 2^(ℓ−1))
    samples (``own[start[u] + i]``), filling k arrays of 2^(ℓ−1) samples one after the
    other (lines 4–7). Their means Y_j are rounded to the nearest midpoint of the bins of
    width 2·2^(−ℓ/2) over [0, 1] (the last one shorter, lines 10–11), and a midpoint y is
    drawn with probability ∝ exp(−ε c(y)/4), c(y) = max(#{Y'_j < y}, #{Y'_j > y})
    (lines 12–13; c changes by at most 2 when a user changes). ``costs`` receives c over
    the bins (NaN beyond them).
    """
    size = 1 << (level - 1)
    sums = np.zeros(k)
    j = 0
    filled = 0
    for u in range(count.size):
        r = min(count[u], size)
        for i in range(r):
            sums[j] += own[start[u] + i]
            filled += 1
            if filled == size:
                j += 1
                filled = 0
                if j == k:
                    break
        if j == k:
            break
    width = 2.0 * 2.0 ** (-level / 2.0)
    bins = max(1, math.ceil(1.0 / width - 1e-12))
    middles = np.empty(bins)
    for b in range(bins):
        middles[b] = (b * width + min((b + 1) * width, 1.0)) / 2.0
    per_bin = np.zeros(bins, dtype=np.int64)
    for j in range(k):
        y = sums[j] / size
        nearest = 0
        for b in range(1, bins):
            if abs(y - middles[b]) < abs(y - middles[nearest]):
                nearest = b
        per_bin[nearest] += 1
    costs[:] = np.nan
    below = 0
    lowest = k
    for b in range(bins):
        above = k - below - per_bin[b]
        costs[b] = max(below, above)
        lowest = min(lowest, max(below, above))
        below += per_bin[b]
    weights = np.empty(bins)
    for b in range(bins):
        weights[b] = math.exp(-epsilon / 4.0 * (costs[b] - lowest))
    target = rng.random() * weights.sum()
    for b in range(bins):
        target -= weights[b]
        if target < 0.0:
            return middles[b]
    return middles[bins - 1]


@numba.njit(cache=True)
def run_stream(stream: Stream, parameters: Parameters, forced: np.ndarray,
               checkpoints: np.ndarray, samples: np.random.Generator,
               noise: np.random.Generator, out: Coordinate) -> int:
    """One coordinate of one replicate; returns the number of trace rows written.

    ``forced[ℓ]``, when not NaN, replaces PrivateMedian's draw at level ℓ (the privacy
    audit fixes it across neighbouring streams). The estimate is read at the
    ``checkpoints`` (int64, times t, 1-based, increasing). ``samples`` draws the samples
    (unless the stream gives them), ``noise`` the mechanisms' noise and PrivateMedian's
    draws. The outputs are written in ``out``: ``estimate``, ``used`` (samples in the
    estimate) and ``clipped`` (elements the projection changed) per checkpoint;
    ``activation[ℓ]`` the time level ℓ activated (0 if never) and ``priors[ℓ]`` its μ̃_ℓ;
    ``costs[ℓ]`` PrivateMedian's cost vector over its bins; ``trace`` rows (time, level,
    value, mechanism, index, p-sum), as many as it has room for.
    """
    # Read once: a structure's array read inside the loop would be reference-counted.
    users, n_users, mu, values = stream.users, stream.n_users, stream.mu, stream.values
    mode, eta, threshold, k = parameters.mode, parameters.eta, parameters.threshold, parameters.k
    kind, stairs = parameters.kind, parameters.stairs
    estimate, used, clipped, trace = out.estimate, out.used, out.clipped, out.trace
    audited = stream.released
    activation, priors, costs = out.activation, out.priors, out.costs
    levels = parameters.centre.size
    active = threshold <= 0
    inactive = levels - active.sum()
    count = np.zeros(n_users, dtype=np.int64)
    pending = np.zeros(n_users)
    # Alg. 6 only: every user's samples in arrival order (for PrivateMedian), and the
    # blocks of inactive levels.
    start = np.zeros(n_users if inactive else 0, dtype=np.int64)
    if inactive:
        for s in range(users.size):
            if users[s] + 1 < n_users:
                start[users[s] + 1] += 1
        for u in range(1, n_users):
            start[u] += start[u - 1]
    own = np.zeros(users.size if inactive else 0)
    buffer = np.zeros((levels, n_users if inactive else 0))
    buffered = np.zeros(levels, dtype=np.int64)
    fill = np.zeros(levels, dtype=np.int64)
    mechanisms = Mechanisms(
        exact=np.zeros((eta.size, parameters.depth)),
        noisy=np.zeros((eta.size, parameters.depth)),
        releases=np.zeros(eta.size, dtype=np.int64),
        centre=parameters.centre.copy(),
        counters=np.zeros(3, dtype=np.int64),
        released=stream.released,
    )
    exact, noisy, releases = mechanisms.exact, mechanisms.noisy, mechanisms.releases
    centre, counters = mechanisms.centre, mechanisms.counters
    activation[:] = 0
    priors[:] = np.nan
    running = 0.0
    next_checkpoint = 0
    for s in range(users.size):
        t = s + 1
        u = users[s]
        c = count[u] + 1
        count[u] = c
        if values.size:
            x = values[s]
        else:
            x = 1.0 if samples.random() < mu else 0.0
        if mode == STREAM or mode == NAIVE:
            running += x
            counters[0] = t
            # A STREAM's exact p-sums add up to the running sum: its tree holds only the
            # noise (push), and the exact p-sums are kept only for the trace.
            if mode == STREAM and eta[0] > 0:
                push(noisy[0], t, draw_scale(noise, kind, eta[0], stairs[0]))
            if counters[2] < trace.shape[0]:
                if mode == STREAM:
                    lv = merge_push(exact[0], t, x)
                    _record(trace, counters, t, 0, x, 0, t, exact[0, lv])
                else:  # every release of NAIVE is the running sum
                    _record(trace, counters, t, 0, x, 0, t, running)
        else:
            pending[u] += x
            if inactive:
                own[start[u] + c - 1] = x
                for level in range(2, levels):
                    if active[level]:
                        continue
                    if c <= (1 << (level - 1)):
                        fill[level] += 1
                    if fill[level] >= threshold[level]:
                        # Alg. 6, lines 9-12; the level leaves Inactive (an erratum).
                        active[level] = True
                        inactive -= 1
                        activation[level] = t
                        prior = private_median(own, start, count, level, k[level],
                                               parameters.median_epsilon, noise, costs[level])
                        if not math.isnan(forced[level]):
                            prior = forced[level]
                        priors[level] = prior
                        centre[level] = (1 << (level - 1)) * prior
                        for b in range(buffered[level]):
                            _release(level, buffer[level, b], t, parameters, mechanisms, noise,
                                     trace)
                        buffered[level] = 0
            due = -1
            if mode == BLOCK:
                if c == stream.max_samples:
                    due = 0
            elif c & (c - 1) == 0:
                due = lowest_bit(c)  # c = 2^due
            if 0 <= due < levels:
                value = pending[u]
                pending[u] = 0.0
                if active[due]:
                    _release(due, value, t, parameters, mechanisms, noise, trace)
                else:
                    buffer[due, buffered[due]] = value
                    buffered[due] += 1
        while next_checkpoint < checkpoints.size and checkpoints[next_checkpoint] == t:
            if mode == NAIVE or mode == STREAM:
                if mode == NAIVE:
                    released = running + (draw_scale(noise, kind, eta[0], stairs[0])
                                          if eta[0] > 0 else 0.0)
                else:
                    released = running + set_bits_sum(noisy[0], t)
                if audited.size:
                    # The coupling of the running sum's path: the read S̃_t is the
                    # release (naive), or the sum of the noisy p-sums released so far
                    # (Alg. 2, whose reads at every t determine its p-sums).
                    if math.isnan(audited[0, next_checkpoint]):
                        audited[0, next_checkpoint] = released
                    else:
                        released = audited[0, next_checkpoint]
            else:
                released = 0.0
                for j in range(eta.size):
                    if releases[j]:
                        released += set_bits_sum(noisy[j], releases[j])
            estimate[next_checkpoint] = (released / counters[0] if counters[0]
                                         else parameters.initial)
            used[next_checkpoint] = counters[0]
            clipped[next_checkpoint] = counters[1]
            next_checkpoint += 1
    return counters[2]


@numba.njit(cache=True, inline="always")
def _record(trace: np.ndarray, counters: np.ndarray, t: int, level: int, value: float,
            mechanism: int, index: int, psum: float) -> None:
    row = counters[2]
    trace[row, 0] = t
    trace[row, 1] = level
    trace[row, 2] = value
    trace[row, 3] = mechanism
    trace[row, 4] = index
    trace[row, 5] = psum
    counters[2] = row + 1


@numba.njit(cache=True, inline="always")
def _release(level: int, value: float, t: int, parameters: Parameters,
             mechanisms: Mechanisms, noise: np.random.Generator, trace: np.ndarray) -> None:
    """Project an element of ``level``, push it into its mechanism with fresh noise, and
    count its samples (``mechanisms.counters``: total, clipped, trace rows)."""
    centre, half = mechanisms.centre[level], parameters.half[level]
    counters = mechanisms.counters
    if not math.isinf(half):
        projected = min(max(value, centre - half), centre + half)
        if projected != value:
            counters[1] += 1
        value = projected
    j = parameters.mechanism[level]
    releases = mechanisms.releases
    releases[j] += 1
    eta = parameters.eta[j]
    fresh = draw_scale(noise, parameters.kind, eta, parameters.stairs[j]) if eta > 0 else 0.0
    binary_mechanism_step(mechanisms.exact[j], mechanisms.noisy[j], releases[j], value, fresh)
    audited = mechanisms.released
    if audited.size:
        created = lowest_bit(releases[j])
        if math.isnan(audited[j, releases[j] - 1]):
            audited[j, releases[j] - 1] = mechanisms.noisy[j, created]
        else:
            mechanisms.noisy[j, created] = audited[j, releases[j] - 1]
    counters[0] += parameters.carried[level]
    if counters[2] < trace.shape[0]:
        _record(trace, counters, t, level, value, j, releases[j],
                mechanisms.exact[j, lowest_bit(releases[j])])


@numba.njit(cache=True)
def arrival_statistics(users: np.ndarray, n_users: int, checkpoints: np.ndarray,
                       need: np.ndarray, max_count: np.ndarray, seen: np.ndarray,
                       diverse: np.ndarray) -> None:
    """M_t, the users seen and whether the diversity condition (11) holds, per checkpoint.

    (11): Σ_u min(m_u(t), M_t/2) >= (M_t/2)·``need[M_t]``, with ``need[M]`` =
    (16/ε)(2L ln(3L√M/δ)) precomputed for M = 0..m.
    """
    count = np.zeros(n_users, dtype=np.int64)
    top = 0
    n_seen = 0
    next_checkpoint = 0
    for s in range(users.size):
        u = users[s]
        count[u] += 1
        if count[u] == 1:
            n_seen += 1
        top = max(top, count[u])
        while next_checkpoint < checkpoints.size and checkpoints[next_checkpoint] == s + 1:
            half = top / 2.0
            mass = 0.0
            for v in range(n_users):
                mass += min(count[v], half)
            max_count[next_checkpoint] = top
            seen[next_checkpoint] = n_seen
            diverse[next_checkpoint] = mass >= half * need[top]
            next_checkpoint += 1


__all__ = ["BLOCK", "EXPONENTIAL", "NAIVE", "STREAM", "Coordinate", "Parameters", "Stream",
           "arrival_statistics", "private_median", "run_stream"]
