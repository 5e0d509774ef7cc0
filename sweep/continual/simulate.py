"""One replicate of a continual-mean cell: its arrivals, each coordinate's run, and the
quantities the rows report.

:func:`run_coordinate` is the entry point for one stream of users with explicit
generators (the tests and the privacy audit call it with streams of their own);
:func:`replicate` draws a replicate's arrivals and runs every coordinate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernel
from .config import ContinualConfig
from .orders import arrivals
from .parameters import Parameters

#: Columns of a trace row (see :func:`sweep.continual.kernel.run_stream`).
TRACE = ("t", "level", "value", "mechanism", "index", "psum")


@dataclass(frozen=True)
class Coordinate:
    """One coordinate's run: the estimate μ̂_t, the samples it uses and the elements the
    projection changed so far, per checkpoint; each level's activation time (0: never)
    and prior μ̃_ℓ (Alg. 6); and the trace (rows of :data:`TRACE`) and PrivateMedian's
    cost vectors, when asked for."""

    estimate: np.ndarray
    used: np.ndarray
    clipped: np.ndarray
    activation: np.ndarray
    priors: np.ndarray
    trace: np.ndarray
    costs: np.ndarray


def median_bins(levels: int) -> int:
    """The most bins a PrivateMedian of levels 0..``levels`` − 1 has: ⌈2^(ℓ/2)/2⌉."""
    return max(1, int(np.ceil(2.0 ** ((levels - 1) / 2) / 2)) + 1)


def run_coordinate(parameters: Parameters, users: np.ndarray, n_users: int, m: int,
                   mu: float, times: np.ndarray, samples: np.random.Generator,
                   noise: np.random.Generator, trace: int = 0,
                   forced: np.ndarray | None = None,
                   values: np.ndarray | None = None) -> Coordinate:
    """Run ``parameters``' method over the arrivals ``users`` (0-based, int32).

    ``trace`` rows of releases are kept (0: none); ``forced`` priors μ̃_ℓ (NaN: drawn)
    replace PrivateMedian's draws, and ``values`` (x_1..x_T) the samples' draws, as the
    privacy audit needs.
    """
    p = parameters
    count = len(times)
    estimate, used, clipped = np.empty(count), np.empty(count, np.int64), np.empty(
        count, np.int64)
    activation, priors = np.empty(p.levels, np.int64), np.empty(p.levels)
    rows = np.full((trace, len(TRACE)), np.nan)
    costs = np.full((p.levels, median_bins(p.levels)), np.nan)
    forced = np.full(p.levels, np.nan) if forced is None else np.asarray(forced, float)
    written = kernel.run_stream(
        np.ascontiguousarray(users, dtype=np.int32), n_users, mu, p.mode, m, p.eta,
        p.mechanism, p.carried, p.centre, p.half, p.threshold, p.k, p.median_epsilon,
        forced, p.depth, p.initial, np.asarray(times, dtype=np.int64),
        np.empty(0) if values is None else np.asarray(values, dtype=np.float64), samples, noise,
        estimate, used, clipped, activation, priors, rows, costs)
    return Coordinate(estimate, used, clipped, activation, priors, rows[:written], costs)


@dataclass(frozen=True)
class Replicate:
    """What the rows of one replicate report, per checkpoint; and Alg. 6's activations."""

    estimates: np.ndarray  # (d, checkpoints)
    used: np.ndarray
    clipped: np.ndarray  # over the coordinates
    max_count: np.ndarray
    seen: np.ndarray
    diverse: np.ndarray
    activation: np.ndarray  # per level, 0: never
    priors: np.ndarray  # per level, of the first coordinate


def replicate(config: ContinualConfig, parameters: Parameters, need: np.ndarray,
              times: np.ndarray, seed: np.random.SeedSequence) -> Replicate:
    """One replicate: the arrivals from the first child of ``seed``, each coordinate's
    samples and noise from children of the second and third (so a coordinate's samples
    do not depend on the method, and the arrivals on neither)."""
    # The children spawn() would give, built without changing ``seed`` (spawn counts
    # its children): a seed passed twice gives the same replicate.
    order, samples, noise = (np.random.SeedSequence(seed.entropy, spawn_key=(
        *seed.spawn_key, i), pool_size=seed.pool_size) for i in range(3))
    users = arrivals(config, np.random.default_rng(order))
    count = len(times)
    max_count, seen = np.empty(count, np.int64), np.empty(count, np.int64)
    diverse = np.empty(count, np.bool_)
    kernel.arrival_statistics(users, config.n_users, np.asarray(times, np.int64), need,
                              max_count, seen, diverse)
    runs = [run_coordinate(parameters, users, config.n_users, config.max_samples,
                           config.mu, times, np.random.default_rng(s),
                           np.random.default_rng(z))
            for s, z in zip(samples.spawn(config.dimension), noise.spawn(config.dimension),
                            strict=True)]
    return Replicate(np.array([r.estimate for r in runs]), runs[0].used,
                     np.sum([r.clipped for r in runs], axis=0), max_count, seen, diverse,
                     runs[0].activation, runs[0].priors)


__all__ = ["TRACE", "Coordinate", "Replicate", "median_bins", "replicate", "run_coordinate"]
