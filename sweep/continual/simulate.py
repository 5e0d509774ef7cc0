"""One replicate of a continual-mean cell: its arrivals, each coordinate's run, and the
quantities the rows report.

:func:`run_coordinate` is the entry point for one stream of users with explicit
generators (the tests and the privacy audit call it with streams of their own);
:func:`replicate` draws a replicate's arrivals and runs every coordinate, with the
generators of :func:`streams`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..options import data_key
from . import kernel
from .config import ContinualConfig
from .kernel import Coordinate, Parameters, Stream
from .orders import arrivals

#: Columns of a trace row (see :func:`sweep.continual.kernel.run_stream`).
TRACE = ("t", "level", "value", "mechanism", "index", "psum")


def median_bins(levels: int) -> int:
    """The most bins a PrivateMedian of levels 0..``levels`` − 1 has: ⌈2^(ℓ/2)/2⌉."""
    return max(1, int(np.ceil(2.0 ** ((levels - 1) / 2) / 2)) + 1)


def run_coordinate(parameters: Parameters, users: np.ndarray, n_users: int, m: int,
                   mu: float, times: np.ndarray, samples: np.random.Generator,
                   noise: np.random.Generator, trace: int = 0,
                   forced: np.ndarray | None = None,
                   values: np.ndarray | None = None,
                   released: np.ndarray | None = None) -> Coordinate:
    """Run ``parameters``' method over the arrivals ``users`` (0-based, int32).

    ``trace`` rows of releases are kept (0: none); ``forced`` priors μ̃_ℓ (NaN: drawn)
    replace PrivateMedian's draws, and ``values`` (x_1..x_T) the samples' draws, as the
    privacy audit needs. So does ``released`` (mechanisms × elements, Algs 3–6): each
    element's noisy p-sum, released where finite in place of the drawn one (the coupling
    of neighbouring streams), recorded where NaN; on the running sum's path (naive,
    Alg. 2: 1 × checkpoints) the released running sum S̃_t of each checkpoint, alike.
    """
    levels, count = parameters.levels, len(times)
    out = Coordinate(
        estimate=np.empty(count), used=np.empty(count, np.int64),
        clipped=np.empty(count, np.int64), activation=np.empty(levels, np.int64),
        priors=np.empty(levels), trace=np.full((trace, len(TRACE)), np.nan),
        costs=np.full((levels, median_bins(levels)), np.nan))
    stream = Stream(
        users=np.ascontiguousarray(users, dtype=np.int32), n_users=n_users, max_samples=m,
        mu=mu, values=np.empty(0) if values is None else np.asarray(values, dtype=np.float64),
        released=np.empty((0, 0)) if released is None else released)
    forced = np.full(levels, np.nan) if forced is None else np.asarray(forced, float)
    written = kernel.run_stream(stream, parameters, forced, np.asarray(times, dtype=np.int64),
                                samples, noise, out)
    return out._replace(trace=out.trace[:written])


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


#: The options that define a replicate's data, the arrivals and the samples.
DATA = ("n_users", "max_samples", "t_max", "mu", "order.kind", "order.zipf_exponent",
        "order.light_samples", "order.heavy_users", "dimension")


def _children(seed: np.random.SeedSequence, count: int) -> list[np.random.SeedSequence]:
    """The children ``seed.spawn(count)`` would give, without changing ``seed`` (spawn
    counts its children): a seed passed twice gives the same streams."""
    return [np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, i),
                                   pool_size=seed.pool_size) for i in range(count)]


def streams(config: ContinualConfig, seed: np.random.SeedSequence, replicate_id: int
            ) -> tuple[np.random.Generator, list[np.random.Generator],
                       list[np.random.Generator]]:
    """The generators of one replicate: its arrivals', and each coordinate's samples' and
    noise's.

    The data (arrivals and samples) come from the root seed, the options in
    :data:`DATA` and the replicate alone, not from the cell's stream: every method and ε
    of a sweep sees the same streams (common random numbers), so that their errors are
    compared replicate by replicate. The noise comes from the cell's ``seed``.
    """
    order, samples = _children(np.random.SeedSequence(seed.entropy, spawn_key=(
        *data_key(config, DATA), replicate_id)), 2)
    return (np.random.default_rng(order),
            [np.random.default_rng(s) for s in _children(samples, config.dimension)],
            [np.random.default_rng(z) for z in _children(seed, config.dimension)])


def replicate(config: ContinualConfig, parameters: Parameters, need: np.ndarray,
              times: np.ndarray, seed: np.random.SeedSequence, replicate_id: int
              ) -> Replicate:
    """One replicate, from the generators :func:`streams` gives."""
    order, samples, noise = streams(config, seed, replicate_id)
    users = arrivals(config, order)
    count = len(times)
    max_count, seen = np.empty(count, np.int64), np.empty(count, np.int64)
    diverse = np.empty(count, np.bool_)
    kernel.arrival_statistics(users, config.n_users, np.asarray(times, np.int64), need,
                              max_count, seen, diverse)
    runs = [run_coordinate(parameters, users, config.n_users, config.max_samples,
                           config.mu, times, s, z)
            for s, z in zip(samples, noise, strict=True)]
    return Replicate(np.array([r.estimate for r in runs]), runs[0].used,
                     np.sum([r.clipped for r in runs], axis=0), max_count, seen, diverse,
                     runs[0].activation, runs[0].priors)


__all__ = ["DATA", "TRACE", "Coordinate", "Replicate", "median_bins", "replicate",
           "run_coordinate", "streams"]
