"""Arrival orders: which user gives the sample of each time step.

:func:`arrivals` returns u_1..u_T (0-based user ids, int32) for one replicate, in the order
``order.kind``. Every order gives each user at most m samples; the random ones draw from
their own generator, so the order of a replicate does not depend on its samples or noise.
How each is drawn:

* ``contiguous``: user 0 gives its m samples at t = 1..m, user 1 at m+1..2m, and so on:
  the "wishful" order of Algorithm 3 (deterministic).
* ``round_robin``: u_t = (t − 1) mod n (deterministic).
* ``uniform``: each step picks a user uniformly among those with samples left.
* ``zipf``: each step picks, among the users with samples left, user u with probability
  proportional to (u + 1)^−s, s = ``order.zipf_exponent``.
* ``one_heavy``: user 0 has m samples, each other user ``order.light_samples``; each step picks
  a user with probability proportional to its samples left, so the stream is a
  uniformly random interleaving of these samples.
* ``staggered``: user u joins at step 1 + ⌊u·T/(2n)⌋ (evenly over the first half of the
  stream); each step picks uniformly among the users who have joined and have samples
  left (if none has, the next user joins at once).
* ``few_heavy``: users 0..h−1 (h = ``order.heavy_users``) give all their m samples first, in
  steps 1..h·m, each step picking uniformly among them; the other users join at step
  h·m + 1 and are then picked uniformly among those with samples left. The case after
  Theorem 3.4 where the diversity condition fails.
"""

from __future__ import annotations

import numba
import numpy as np

from .config import ContinualConfig


@numba.njit(cache=True)
def _pool(users: np.ndarray, join: np.ndarray, remaining: np.ndarray,
          rng: np.random.Generator) -> None:
    """Each step, a user picked uniformly among those joined (``join[u]`` <= the step,
    0-based; ``join`` increasing) with samples left (``remaining``, updated in place)."""
    n = join.size
    available = np.empty(n, dtype=np.int32)
    size = 0
    joined = 0
    for t in range(users.size):
        while joined < n and (join[joined] <= t or size == 0):
            if remaining[joined] > 0:
                available[size] = joined
                size += 1
            joined += 1
        # random() < 1, so i < size; its granularity (2^-53) biases nothing measurable.
        i = int(rng.random() * size)
        u = available[i]
        users[t] = u
        remaining[u] -= 1
        if remaining[u] == 0:
            size -= 1
            available[i] = available[size]


@numba.njit(cache=True)
def _weighted(users: np.ndarray, weights: np.ndarray, remaining: np.ndarray,
              by_remaining: bool, rng: np.random.Generator) -> None:
    """Each step, user u with probability ∝ ``weights[u]`` among those with samples left;
    with ``by_remaining`` the weight is the samples left (``weights`` ignored).

    A Fenwick tree of the weights gives a draw and an update in O(log n).
    """
    n = remaining.size
    tree = np.zeros(n + 1)
    for u in range(n):
        w = float(remaining[u]) if by_remaining else weights[u]
        i = u + 1
        while i <= n:
            tree[i] += w
            i += i & -i
    top = 1
    while top * 2 <= n:
        top *= 2
    total = 0.0
    for u in range(n):
        total += float(remaining[u]) if by_remaining else weights[u]
    for t in range(users.size):
        while True:
            target = rng.random() * total
            position = 0
            step = top
            while step:
                nxt = position + step
                if nxt <= n and tree[nxt] <= target:
                    position = nxt
                    target -= tree[nxt]
                step >>= 1
            u = min(position, n - 1)
            # Rounding in the tree's float sums could land on an exhausted user: redraw.
            if remaining[u] > 0:
                break
        users[t] = u
        remaining[u] -= 1
        change = 0.0
        if by_remaining:
            change = 1.0
        elif remaining[u] == 0:
            change = weights[u]
        if change:
            total -= change
            i = u + 1
            while i <= n:
                tree[i] -= change
                i += i & -i


def arrivals(config: ContinualConfig, rng: np.random.Generator) -> np.ndarray:
    """The users u_1..u_T of one replicate (0-based, int32), drawn as the module says."""
    n, m, T = config.n_users, config.max_samples, config.t_max
    order = config.order
    if order.kind == "contiguous":
        return np.repeat(np.arange(-(-T // m), dtype=np.int32), m)[:T]
    if order.kind == "round_robin":
        users = np.arange(T, dtype=np.int32)
        users %= n
        return users
    users = np.empty(T, dtype=np.int32)
    remaining = np.full(n, m, dtype=np.int64)
    if order.kind in ("uniform", "staggered", "few_heavy"):
        join = np.zeros(n, dtype=np.int64)
        if order.kind == "staggered":
            join = np.arange(n, dtype=np.int64) * T // (2 * n)
        elif order.kind == "few_heavy":
            join[order.heavy_users:] = order.heavy_users * m
        _pool(users, join, remaining, rng)
    elif order.kind == "zipf":
        weights = np.arange(1, n + 1, dtype=np.float64) ** -order.zipf_exponent
        _weighted(users, weights, remaining, False, rng)
    else:  # one_heavy
        remaining[1:] = order.light_samples
        _weighted(users, np.zeros(n), remaining, True, rng)
    return users


__all__ = ["arrivals"]
