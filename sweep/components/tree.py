"""The binary (tree) mechanism over an array of levels, compiled.

The binary mechanism (Chan, Shi & Song 2010; Dwork et al. 2010) privatizes the running
sums of a stream with few noise values. Release k (k = 1, 2, ...) creates one p-sum: the
sum of the stream's elements k − 2^i + 1 .. k, where 2^i is the lowest set bit of k; its
noise is drawn once and reused. The running sum up to k is the sum of the p-sums of the
binary representation of k: for k = 13 = 8 + 4 + 1, those ending at releases 8, 12 and 13.
Every element is in at most ⌊log2 T⌋ + 1 p-sums (one per level), and every release sums
at most that many.

Only one p-sum per level is ever live, so the state is a 1-D array ``levels`` of
:func:`depth` entries: ``levels[i]`` holds the live p-sum at level i. The p-sums below the
level of release k are merged into its p-sum and never read again. Any per-p-sum
quantity lives in such an array: its noise (:func:`push`), its exact sum or length
(:func:`merge_push`), or a coefficient.

Private-ColME's PM-II (Sec. IV-B) is this mechanism run over the query times of each
ordered pair; Algorithm 1 of the continual user-level mean paper is it run over a
stream (:func:`binary_mechanism_step`). That algorithm's read-out (lines 9–11) adds a
partial sum for every bit position, zeros included; only the positions whose bit b_j is 1
may contribute, which :func:`set_bits_sum` does.

The functions take a 1-D array; pass a view (``levels[a, b, plane]``) for state kept in a
larger array.
"""

from __future__ import annotations

import numba
import numpy as np


def depth(releases: int) -> int:
    """Number of levels for releases 1..``releases``: ⌊log2 T⌋ + 1 (rounded up, not down)."""
    return max(int(releases), 1).bit_length()


@numba.njit(cache=True, inline="always")
def lowest_bit(k: int) -> int:
    """Index i of the lowest set bit of k >= 1: the level of the p-sum release k creates."""
    i = 0
    while not (k >> i) & 1:
        i += 1
    return i


@numba.njit(cache=True, inline="always")
def push(levels: np.ndarray, k: int, value: float) -> int:
    """Record ``value`` (e.g. a fresh noise) as the p-sum created by release k.

    Returns its level, :func:`lowest_bit` of k. The levels below are left as they are:
    no release reads them before they are pushed again.
    """
    level = lowest_bit(k)
    levels[level] = value
    return level


@numba.njit(cache=True, inline="always")
def merge_push(levels: np.ndarray, k: int, value: float) -> int:
    """Record the p-sum of release k as ``value`` plus the live p-sums below its level.

    ``value`` is what the stream added since release k − 1 (its element, or the sum of
    its elements since then); the p-sum then covers releases k − 2^i + 1 .. k. Returns
    its level i.
    """
    level = lowest_bit(k)
    total = value
    for i in range(level):
        total += levels[i]
    levels[level] = total
    return level


@numba.njit(cache=True, inline="always")
def set_bits_sum(levels: np.ndarray, k: int) -> float:
    """Σ levels[i] over the set bits i of k: the noise (or sum) of release k.

    Only positions whose bit is 1 contribute (the erratum to line 11 of Algorithm 1 of
    the continual-mean paper); the sum runs from the lowest level up.
    """
    total = 0.0
    bits = k
    i = 0
    while bits:
        if bits & 1:
            total += levels[i]
        bits >>= 1
        i += 1
    return total


@numba.njit(cache=True, inline="always")
def push_and_sum(levels: np.ndarray, k: int, value: float) -> float:
    """:func:`push` then :func:`set_bits_sum`: the noise N_k of release k given its fresh
    p-sum noise ``value`` (PM-II: Var N_k = w_H(k) σ²)."""
    push(levels, k, value)
    return set_bits_sum(levels, k)


@numba.njit(cache=True)
def binary_mechanism_step(exact: np.ndarray, noisy: np.ndarray, t: int, x: float,
                          noise: float) -> float:
    """One step of the binary mechanism (Algorithm 1 of the continual-mean paper).

    Parameters
    ----------
    exact : ndarray
        Exact p-sums per level, updated in place (lines 4, 7 without the noise).
    noisy : ndarray
        Noisy p-sums per level (NoisyPartialSums, kept one per level), updated in place.
    t : int
        The step, t >= 1.
    x : float
        The stream's element x_t.
    noise : float
        The fresh noise of the new p-sum, Lap(η) with η = Δ(1 + log T)/ε in the paper.

    Returns
    -------
    float
        S_t, the noisy sum of x_1..x_t: the noisy p-sums of the set bits of t.
    """
    level = merge_push(exact, t, x)
    noisy[level] = exact[level] + noise
    return set_bits_sum(noisy, t)


__all__ = ["binary_mechanism_step", "depth", "lowest_bit", "merge_push", "push",
           "push_and_sum", "set_bits_sum"]
