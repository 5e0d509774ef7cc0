"""A deliberately slow, literal transcription of Algorithm 1, for testing only.

Per-agent Python objects, every sample kept, p-sums stored by their interval of times,
T and Var[T] recomputed from the weights by eq. (1) and eq. (2), and C_a^(t) rebuilt
from scratch as the paper writes it. It draws from the generator in the order the fast
simulator documents (labels; then at each t the data of agents 0..M-1, then one p-sum
noise per query of agents 0..M-1), so both see the same random numbers.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from sweep.colme.config import ColmeConfig


class Sender:
    """Agent b's side of the channel b → a: its p-sums and their noise values."""

    def __init__(self, mechanism: str, sigma_dp: float, noise: str) -> None:
        self.mechanism = mechanism
        self.sigma_dp = sigma_dp
        self.noise = noise
        self.query_times: list[int] = []
        self.psums: dict[tuple[int, int], float] = {}

    def split(self, kappa: int) -> list[tuple[int, int]]:
        """The p-sums, as (first time, last time), of the κ-th release (Sec. IV)."""
        times = [0, *self.query_times[:kappa]]
        if self.mechanism == "pm1":
            return [(times[i - 1] + 1, times[i]) for i in range(1, kappa + 1)]
        ends, total = [], 0
        for bit in reversed(range(kappa.bit_length())):
            if kappa >> bit & 1:
                total += 1 << bit
                ends.append(total)
        starts = [0, *ends[:-1]]
        return [(times[s] + 1, times[e]) for s, e in zip(starts, ends, strict=True)]

    def release(self, rng: np.random.Generator, t: int, samples: list[float]) -> float:
        self.query_times.append(t)
        kappa = len(self.query_times)
        noise = 0.0
        if self.mechanism != "none":
            for interval in self.split(kappa):
                if interval not in self.psums:
                    if self.noise == "gaussian":
                        self.psums[interval] = self.sigma_dp * rng.standard_normal()
                    else:
                        self.psums[interval] = rng.laplace(0.0, self.sigma_dp / math.sqrt(2))
                noise += self.psums[interval]
        return (sum(samples[:t]) + noise) / t


def weights(scheme: str, kappa: int) -> list[float]:
    """w_1..w_κ of non-MoM, MoM and wMoM (with the corrected window length)."""
    if scheme == "last":
        return [0.0] * (kappa - 1) + [1.0]
    if scheme == "mom":
        return [1.0 / kappa] * kappa
    start = 2 ** math.floor(math.log2(kappa))
    return [0.0 if i < start else 1.0 / (kappa - start + 1) for i in range(1, kappa + 1)]


def statistic_variance(
    sender: Sender, scheme: str, sigma2: float, sigma_dp: float
) -> float:
    """Var[T] by eq. (2); the noise part sums the squared coefficient of every p-sum."""
    kappa = len(sender.query_times)
    w = weights(scheme, kappa)
    t = [0, *sender.query_times]
    data = sigma2 * sum(
        (t[i] - t[i - 1]) * sum(w[j - 1] / t[j] for j in range(i, kappa + 1)) ** 2
        for i in range(1, kappa + 1)
    )
    if sender.mechanism == "none":
        return data
    coefficient: dict[tuple[int, int], float] = {}
    for j in range(1, kappa + 1):
        for interval in sender.split(j):
            coefficient[interval] = coefficient.get(interval, 0.0) + w[j - 1] / t[j]
    return data + sigma_dp**2 * sum(c * c for c in coefficient.values())


def calibrated_sigma_dp(config: ColmeConfig) -> float:
    """σ_DP from Lemmas 1-2 and Sec. VII, written out again for an independent check."""
    if config.mechanism == "none":
        return 0.0
    bound = {"uniform": math.sqrt(3), "triangular": math.sqrt(6), "two_point": 1.0}[
        config.distribution
    ] * config.sigma
    epsilon, delta = config.epsilon, config.delta
    if config.mechanism == "pm2" and config.pm2_split:
        parts = math.floor(math.log2(config.t_max)) + 1
        epsilon, delta = epsilon / parts, delta / parts
    if config.noise == "gaussian":
        return math.sqrt(8 * bound**2 * math.log(1.25 / delta) / epsilon**2)
    return math.sqrt(8 * bound**2 / epsilon**2)


def run_reference(config: ColmeConfig, seed: np.random.SeedSequence) -> np.ndarray:
    """Metrics (mse, false exclusion, false inclusion) at every t = 1..t_max."""
    rng = np.random.Generator(np.random.PCG64(seed))
    m, sigma = config.n_agents, config.sigma
    sigma2 = sigma * sigma
    sigma_dp = calibrated_sigma_dp(config)
    if config.class_assignment == "random":
        labels = rng.integers(0, config.n_classes, size=m)
    else:
        labels = rng.permutation(np.arange(m) % config.n_classes)
    mu = [config.class_means[c] for c in labels]
    bound = {"uniform": math.sqrt(3), "triangular": math.sqrt(6), "two_point": 1.0}[
        config.distribution
    ] * sigma
    samples: list[list[float]] = [[] for _ in range(m)]
    channel = {(a, b): Sender(config.mechanism, sigma_dp, config.noise)
               for a in range(m) for b in range(m) if a != b}
    stat: dict[tuple[int, int], float] = {}
    var: dict[tuple[int, int], float] = {}
    chi = {(a, b): True for a in range(m) for b in range(m) if a != b}
    last = [-1] * m

    def mean(a: int, t: int) -> float:
        return sum(samples[a][:t]) / t

    def test(a: int, b: int, t: int) -> bool:
        if config.class_estimator == "oracle":
            return labels[a] == labels[b]
        if (a, b) not in stat:
            return True
        theta = config.decision.theta0 / math.log(t + 1)
        z = norm.ppf(1 - theta / 2)
        return abs(mean(a, t) - stat[a, b]) < z * math.sqrt(sigma2 / t + var[a, b])

    def draw(a: int) -> float:
        u = rng.random()
        if config.distribution == "uniform":
            return mu[a] + bound * (2 * u - 1)
        if config.distribution == "triangular":
            return mu[a] + bound * (u + rng.random() - 1)
        return mu[a] + bound if u < 0.5 else mu[a] - bound

    # C_a^(0) = [M] (line 2); an oracle knows C_a from the start (C_a^(t) = C_a, Lemma 5).
    estimate = [{b for b in range(m) if b == a or test(a, b, 0)} for a in range(m)]
    out = np.empty((config.t_max, 3))
    for t in range(1, config.t_max + 1):
        targets = []
        for a in range(m):  # choose_agent(C_a^(t-1), [M])
            order = [(last[a] + s) % m for s in range(1, m + 1)]
            candidates = [b for b in order if b != a and
                          (config.schedule == "rr" or b in estimate[a])]
            targets.append(candidates[0] if candidates else None)
        for a in range(m):
            samples[a].append(draw(a))
        for a in range(m):
            b = targets[a]
            if b is None:
                continue
            last[a] = b
            sender = channel[a, b]
            sender.release(rng, t, samples[b])
            releases = []
            for time in sender.query_times:
                noise = sum(sender.psums.get(iv, 0.0) for iv in sender.split(
                    sender.query_times.index(time) + 1))
                releases.append((sum(samples[b][:time]) + noise) / time)
            w = weights(config.weights, len(releases))
            stat[a, b] = sum(wi * r for wi, r in zip(w, releases, strict=True))
            var[a, b] = statistic_variance(sender, config.weights, sigma2, sigma_dp)
            if config.decision.refresh == "on_query":
                chi[a, b] = test(a, b, t)
        errors, same, excluded, other, included = 0.0, 0, 0, 0, 0
        for a in range(m):
            if config.decision.refresh == "every_step" or config.class_estimator == "oracle":
                members = {b for b in range(m) if b == a or test(a, b, t)}
            else:
                members = {b for b in range(m) if b == a or chi[a, b]}
            estimate[a] = members
            heard = [b for b in members if b != a and (a, b) in stat]
            precision = t / sigma2 + sum(1 / var[a, b] for b in heard)
            alpha = {b: 1 / var[a, b] / precision for b in heard}
            mu_hat = t / sigma2 / precision * mean(a, t) + sum(
                alpha[b] * stat[a, b] for b in heard)
            errors += (mu_hat - mu[a]) ** 2
            for b in range(m):
                if b == a:
                    continue
                if labels[a] == labels[b]:
                    same += 1
                    excluded += b not in members
                else:
                    other += 1
                    included += b in members
        out[t - 1] = (errors / m, excluded / same if same else np.nan,
                      included / other if other else np.nan)
    return out
