"""An independent, plain-Python C-ColME and B-ColME, written from the update rules of the
public C++ code of Galante, Neglia & Leonardi (AAAI 2025) and not from the platform's
kernels: lists of neighbours, one agent at a time, float32 scalars in the C++ order of
operations where it fixes the result (running mean, radius, test, consensus), and
B-ColME's tables as the C++ builds them (each row a list of per-depth sums, the
neighbour-of-neighbour sums in row order). Slow (about 20 µs per agent and step): a test
oracle for small cases.

Every agent has n = it + 1 samples at step it; all agents update from the previous
step's values. ``samples[it][a]`` is a's sample at step it.
"""

from __future__ import annotations

import ctypes

import numpy as np

f32 = np.float32
_LIBM = ctypes.CDLL("libm.so.6")
_LIBM.logf.restype = ctypes.c_float
_LIBM.logf.argtypes = [ctypes.c_float]


def logf(value: float) -> np.float32:
    """glibc's logf, which the C++ code calls (it is not correctly rounded)."""
    return f32(_LIBM.logf(float(value)))


def radius(sigma: float, n: int, delta: float, n_collab: int) -> np.float32:
    if n < 2:
        return f32(np.inf)
    gamma = f32(delta) / f32(n_collab)
    ln_v = logf(f32(np.sqrt(f32(f32(n) + f32(1.0)))) / gamma)
    inv = f32(1.0) / f32(n)
    return f32(sigma) * f32(np.sqrt(f32(f32(f32(f32(2.0) * inv) * f32(f32(1.0) + inv)) * ln_v)))


def running_mean(x: np.float32, sample: np.float32, n: int) -> np.float32:
    keep = f32(f32(f32(n) - f32(1.0)) / f32(n))
    return f32(f32(x * keep) + f32(sample * f32(f32(1.0) / f32(n))))


def _tests(a, it, x_new, x_old, beta_new, beta_old, nbrs, kept_old, irrevocable=True):
    """New kept flags of a (a list, in a's row order) and whether they changed."""
    flags = list(kept_old[a])
    for k, b in enumerate(nbrs[a]):
        if kept_old[a][k] or not irrevocable:
            d = f32(f32(abs(f32(x_new - x_old[b])) - beta_new) - beta_old)
            flags[k] = bool(d <= f32(0.0))
    return flags, flags != kept_old[a]


def c_colme(nbrs, classes, means, samples, sigma=2.0, delta=0.1):
    """C-ColME with the global α reset and its oracle. Returns per step (lists over
    agents) x, y, the oracle, and the wrong and lost directed links."""
    n_agents, t_max = len(nbrs), len(samples)
    same = [[classes[a] == classes[b] for b in nbrs[a]] for a in range(n_agents)]
    n_collab = 4 * sum(len(r) for r in nbrs)
    x = [f32(s) for s in samples[0]]
    y, yo = list(x), list(x)
    kept = [[True] * len(r) for r in nbrs]
    ntrue = [sum(s) for s in same]
    history = {"x": [list(x)], "y": [list(y)], "oracle": [list(yo)]}
    wrong = [sum(not s for r in same for s in r)]
    lost = [0]
    learnt = wrong[0] == 0
    entered, t0, change = False, 0, False
    beta_old = radius(sigma, 1, delta, n_collab)
    for it in range(1, t_max):
        n = it + 1
        beta_new = radius(sigma, n, delta, n_collab)
        if learnt:
            if not entered:
                t0, entered = it - 1, True
        elif change:
            t0 = it - 1
        alpha = f32(f32(it - t0) / f32(f32(f32(1.0) + f32(it)) - f32(t0)))
        alpha_oracle = f32(f32(it) / f32(f32(1.0) + f32(it)))
        new_x, new_y, new_yo, new_kept = [], [], [], []
        change = False
        for a in range(n_agents):
            xa = running_mean(x[a], f32(samples[it][a]), n)
            flags, moved = _tests(a, it, xa, x, beta_new, beta_old, nbrs, kept)
            change = change or moved
            count = sum(flags)
            chosen = [b for b, f in zip(nbrs[a], flags, strict=True) if f]
            weights = [f32(f32(1.0) / f32(f32(1.0) + f32(max(count, sum(kept[b])))))
                       for b in chosen]
            self_weight = f32(1.0)
            for w in weights:
                self_weight = f32(self_weight - w)
            v = f32(self_weight * y[a])
            for b, w in zip(chosen, weights, strict=True):
                v = f32(v + f32(w * y[b]))
            new_y.append(f32(f32(f32(f32(1.0) - alpha) * xa) + f32(alpha * v)))
            true = [b for b, s in zip(nbrs[a], same[a], strict=True) if s]
            if true:
                weights = [f32(f32(1.0) / f32(f32(1.0) + f32(max(ntrue[a], ntrue[b]))))
                           for b in true]
                self_weight = f32(1.0)
                for w in weights:
                    self_weight = f32(self_weight - w)
                ov = f32(self_weight * yo[a])
                for b, w in zip(true, weights, strict=True):
                    ov = f32(ov + f32(w * yo[b]))
            else:
                ov = xa
            new_yo.append(f32(f32(f32(f32(1.0) - alpha_oracle) * xa) + f32(alpha_oracle * ov)))
            new_x.append(xa)
            new_kept.append(flags)
        x, y, yo, kept, beta_old = new_x, new_y, new_yo, new_kept, beta_new
        history["x"].append(list(x))
        history["y"].append(list(y))
        history["oracle"].append(list(yo))
        w, lo = _links(kept, same)
        wrong.append(w)
        lost.append(lo)
        if w == 0:
            learnt = True
    return history, wrong, lost


def _links(kept, same):
    pairs = [(f, s) for fr, sr in zip(kept, same, strict=True)
             for f, s in zip(fr, sr, strict=True)]
    return sum(f and not s for f, s in pairs), sum(s and not f for f, s in pairs)


def _tables(a, use_new, use_old, nbrs, x_old, rows_old, depth):
    """B-ColME's new rows of a: for every neighbour j a uses, depth 0 is x_j(it − 1),
    depth k the sum over j's used rows l ≠ a (at it − 1) of their depth k − 1 entries,
    while any such entry exists; rows of unused neighbours are empty. Each row is a list
    of (sum, count)."""
    rows = []
    for k, j in enumerate(nbrs[a]):
        if not use_new[a][k]:
            rows.append([])
            continue
        row = [(x_old[j], 1)]
        mine = nbrs[j].index(a)
        others = [m for m in range(len(nbrs[j])) if m != mine and use_old[j][m]]
        level = 1
        while others and level < depth:
            total, count, keep = f32(0.0), 0, []
            for m in others:
                if len(rows_old[j][m]) > level - 1:
                    s, c = rows_old[j][m][level - 1]
                    total = f32(total + s)
                    count += c
                    keep.append(m)
            others = keep
            if count:
                row.append((total, count))
                level += 1
        rows.append(row)
    return rows


def _belief_estimate(it, xa, rows):
    numerator = f32(f32(f32(it) + f32(1.0)) * xa)
    denominator = it + 1
    for row in rows:
        for k, (s, c) in enumerate(row):
            numerator = f32(numerator + f32(s * f32(it - k)))
            denominator += c * (it - k)
    return f32(numerator / f32(denominator))


def b_colme(nbrs, classes, means, samples, depth=4, sigma=2.0, delta=0.1):
    """B-ColME with D = ``depth`` and its oracle; returns as :func:`c_colme`."""
    n_agents, t_max = len(nbrs), len(samples)
    same = [[classes[a] == classes[b] for b in nbrs[a]] for a in range(n_agents)]
    n_collab = 4 * sum(len(r) for r in nbrs)
    x = [f32(s) for s in samples[0]]
    kept = [[True] * len(r) for r in nbrs]
    rows = [[[] for _ in r] for r in nbrs]
    oracle_rows = [[[] for _ in r] for r in nbrs]
    history = {"x": [list(x)], "y": [list(x)], "oracle": [list(x)]}
    wrong = [sum(not s for r in same for s in r)]
    lost = [0]
    beta_old = radius(sigma, 1, delta, n_collab)
    for it in range(1, t_max):
        n = it + 1
        beta_new = radius(sigma, n, delta, n_collab)
        new_x, new_kept = [], []
        for a in range(n_agents):
            xa = running_mean(x[a], f32(samples[it][a]), n)
            new_x.append(xa)
            new_kept.append(_tests(a, it, xa, x, beta_new, beta_old, nbrs, kept)[0])
        new_rows = [_tables(a, new_kept, kept, nbrs, x, rows, depth) for a in range(n_agents)]
        new_oracle = [_tables(a, same, same, nbrs, x, oracle_rows, depth)
                      for a in range(n_agents)]
        history["y"].append([_belief_estimate(it, new_x[a], new_rows[a])
                             for a in range(n_agents)])
        history["oracle"].append([_belief_estimate(it, new_x[a], new_oracle[a])
                                  for a in range(n_agents)])
        x, kept, rows, oracle_rows, beta_old = new_x, new_kept, new_rows, new_oracle, beta_new
        history["x"].append(list(x))
        w, lo = _links(kept, same)
        wrong.append(w)
        lost.append(lo)
    return history, wrong, lost


def regular_lists(n: int, degree: int, rng: np.random.Generator):
    """Adjacency lists of the reference's configuration model, in insertion order: stub
    pairs in a random order, an invalid pair dropped, a self-loop leaving a self-entry."""
    stubs = list(rng.permutation(n * degree))
    nbrs = [[] for _ in range(n)]
    while stubs:
        u, v = stubs.pop() // degree, stubs.pop() // degree
        if u in nbrs[v]:
            continue
        nbrs[v].append(u)
        if u != v:
            nbrs[u].append(v)
    return nbrs


__all__ = ["b_colme", "c_colme", "logf", "radius", "regular_lists", "running_mean"]

