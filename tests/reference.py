"""A deliberately slow, literal transcription of Algorithm 1, for testing only.

Per-agent Python objects, every sample kept, p-sums stored by their interval of times,
T and Var[T] recomputed from the weights by eq. (1) and eq. (2), variance estimates by
eqs. (6)-(8), (16) and (19) over the p-sums, and C_a^(t) rebuilt from scratch as the
paper writes it. It draws from the generator in the order the fast simulator documents
(labels; then at each t the data of agents 0..M-1, then per query of agents 0..M-1 one
p-sum noise and, for Sch-Var-1, one variance noise), so both see the same numbers.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gamma, gammainc
from scipy.stats import norm
from scipy.stats import t as student

from sweep.colme.config import ColmeConfig


def binary_blocks(kappa: int) -> list[int]:
    """Release indices ending the p-sums of release κ under PM-II, by the binary
    representation of κ (e.g. 13 = 8 + 4 + 1 → 8, 12, 13)."""
    ends, total = [], 0
    for bit in reversed(range(kappa.bit_length())):
        if kappa >> bit & 1:
            total += 1 << bit
            ends.append(total)
    return ends


class Sender:
    """Agent b's side of the channel b → a: its p-sums and their noise values."""

    def __init__(self, mechanism: str, sigma_dp: float, noise: str,
                 sigma_variance: float = 0.0) -> None:
        self.mechanism = mechanism
        self.sigma_dp = sigma_dp
        self.sigma_variance = sigma_variance
        self.noise = noise
        self.query_times: list[int] = []
        self.psums: dict[tuple[int, int], float] = {}
        self.variance_psums: dict[tuple[int, int], float] = {}
        self.estimate = math.inf  # the σ_b² estimate in use

    def draw(self, rng: np.random.Generator, scale: float) -> float:
        if self.noise == "gaussian":
            return scale * rng.standard_normal()
        return rng.laplace(0.0, scale / math.sqrt(2))

    def split(self, kappa: int) -> list[tuple[int, int]]:
        """The p-sums, as (first time, last time), of the κ-th release (Sec. IV)."""
        times = [0, *self.query_times[:kappa]]
        if self.mechanism == "pm1":
            return [(times[i - 1] + 1, times[i]) for i in range(1, kappa + 1)]
        ends = binary_blocks(kappa)
        starts = [0, *ends[:-1]]
        return [(times[s] + 1, times[e]) for s, e in zip(starts, ends, strict=True)]

    def release(self, rng: np.random.Generator, t: int, samples: list[float]) -> float:
        self.query_times.append(t)
        kappa = len(self.query_times)
        noise = 0.0
        for interval in self.split(kappa):
            if interval not in self.psums:
                fresh = fresh_variance = 0.0
                if self.mechanism != "none":
                    fresh = self.draw(rng, self.sigma_dp)
                    if self.sigma_variance > 0:
                        fresh_variance = self.draw(rng, self.sigma_variance)
                self.psums[interval] = fresh
                self.variance_psums[interval] = fresh_variance
            noise += self.psums[interval]
        return (sum(samples[:t]) + noise) / t

    def shared_variance(self, samples: list[float], released: float) -> float:
        """Eqs. (6)-(8): V_{b→a} from the partial sample variances (Sch-Var-1)."""
        t = self.query_times[-1]
        split = self.split(len(self.query_times))
        total = 0.0
        for first, last in split:
            block = samples[first - 1 : last]
            length = len(block)
            partial = (sum(x * x for x in block) - sum(block) ** 2 / length
                       + (length - 1) / length * self.variance_psums[first, last])  # (6)
            total += partial + (sum(block) + self.psums[first, last]) ** 2 / length  # (7)
        inverse = sum(1 / (last - first + 1) for first, last in split)
        return (total / (t - 1) - t / (t - 1) * released**2
                - self.sigma_dp**2 / (t - 1) * (inverse - len(split) / t))  # (8)

    def inferred_variance(self, samples: list[float], form: str) -> tuple[float, int, float]:
        """Eq. (16) (Sch-Var-2), or its length-weighted form; with k and the noise term c."""
        split = self.split(len(self.query_times))
        k = len(split)
        if k < 2:
            return math.nan, k, math.nan
        v = [sum(samples[first - 1 : last]) + self.psums[first, last] for first, last in split]
        lengths = [last - first + 1 for first, last in split]
        inverse = sum(1 / n for n in lengths)
        if form == "eq16":
            y = [vi / math.sqrt(n) for vi, n in zip(v, lengths, strict=True)]
            noise = self.sigma_dp**2 / k * inverse
            value = sum(u * u for u in y) / (k - 1) - sum(y) ** 2 / (k * (k - 1)) - noise
            return value, k, noise
        t = self.query_times[-1]
        noise = self.sigma_dp**2 * (inverse - k / t) / (k - 1)
        value = (sum(vi * vi / n for vi, n in zip(v, lengths, strict=True))
                 - sum(v) ** 2 / t) / (k - 1) - noise
        return value, k, noise


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


def calibrated_sigma_dp(config: ColmeConfig) -> tuple[float, float]:
    """σ_DP and σ_2,DP from Lemmas 1-3 and Sec. VII, written out again."""
    if config.mechanism == "none":
        return 0.0, 0.0
    bound = {"uniform": math.sqrt(3), "triangular": math.sqrt(6), "two_point": 1.0}[
        config.distribution
    ] * config.sigma
    epsilon, delta = config.epsilon, config.delta
    if config.mechanism == "pm2" and config.pm2_split:
        parts = math.floor(math.log2(config.t_max)) + 1
        epsilon, delta = epsilon / parts, delta / parts
    if config.variance == "shared":
        epsilon, delta = epsilon / 2, delta / 2
    log_term = math.log(1.25 / delta) if config.noise == "gaussian" else 1.0
    sigma_variance = (math.sqrt(32 * bound**4 * log_term / epsilon**2)
                      if config.variance == "shared" else 0.0)
    return math.sqrt(8 * bound**2 * log_term / epsilon**2), sigma_variance


def bayes(raw: float, k: int, noise: float, prior: str) -> float:
    """Eq. (19) with scipy's incomplete gamma function (fine for the small k used here)."""
    if raw >= 0:
        return raw
    shape = {"paper": (k + 2) / 2, "jeffreys": (k + 1) / 2, "uniform": (k - 2) / 2}[prior]
    if shape <= 1:
        return math.inf
    scaled = raw + noise
    x = (k - 1) * scaled / (2 * noise)

    def f(s: float) -> float:
        return gamma(shape + s) * gammainc(shape + s, x)

    return scaled * (k - 1) / 2 * f(-1) / f(0) - noise


def run_reference(config: ColmeConfig, seed: np.random.SeedSequence) -> np.ndarray:
    """Metrics (mse, false exclusion, false inclusion) at every t = 1..t_max."""
    rng = np.random.Generator(np.random.PCG64(seed))
    m, sigma = config.n_agents, config.sigma
    sigma2 = sigma * sigma
    sigma_dp, sigma_variance = calibrated_sigma_dp(config)
    known = config.variance == "known"
    if config.class_assignment == "random":
        labels = rng.integers(0, config.n_classes, size=m)
    else:
        labels = rng.permutation(np.arange(m) % config.n_classes)
    mu = [config.class_means[c] for c in labels]
    bound = {"uniform": math.sqrt(3), "triangular": math.sqrt(6), "two_point": 1.0}[
        config.distribution
    ] * sigma
    samples: list[list[float]] = [[] for _ in range(m)]
    channel = {(a, b): Sender(config.mechanism, sigma_dp, config.noise, sigma_variance)
               for a in range(m) for b in range(m) if a != b}
    stat: dict[tuple[int, int], float] = {}
    var: dict[tuple[int, int], float] = {}
    chi = {(a, b): True for a in range(m) for b in range(m) if a != b}
    last = [-1] * m

    def mean(a: int, t: int) -> float:
        return sum(samples[a][:t]) / t

    def own_variance(a: int, t: int) -> float:
        """σ_a², or V_a^(t), the sample variance of a's data (Sec. III-C2)."""
        if known:
            return sigma2
        if t < 2:
            return math.inf
        return sum((x - mean(a, t)) ** 2 for x in samples[a][:t]) / (t - 1)

    def test(a: int, b: int, t: int) -> bool:
        if config.class_estimator == "oracle":
            return labels[a] == labels[b]
        if (a, b) not in stat or var[a, b] == math.inf:
            return True
        theta = config.decision.theta0 / math.log(t + 1)
        own = own_variance(a, t) / t
        if known:
            quantile = norm.ppf(1 - theta / 2)
        else:
            t_kappa = channel[a, b].query_times[-1]
            nu = (own + var[a, b]) ** 2 / (own**2 / (t - 1) + var[a, b] ** 2 / (t_kappa - 1))
            quantile = student.ppf(1 - theta / 2, nu)
        return abs(mean(a, t) - stat[a, b]) < quantile * math.sqrt(own + var[a, b])

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
            if config.variance == "shared":  # line 11: update V_{b→a}
                if t >= 2:
                    raw = sender.shared_variance(samples[b], releases[-1])
                    sender.estimate = raw if raw > 0 else math.inf
            elif not known:
                raw, k, noise = sender.inferred_variance(samples[b], config.inferred_form)
                if k >= 2:  # otherwise a keeps its previous estimate
                    if config.variance == "inferred_bayes":
                        raw = bayes(raw, k, noise, config.prior)
                    sender.estimate = raw if raw > 0 else math.inf
            variance_b = sigma2 if known else sender.estimate
            var[a, b] = (statistic_variance(sender, config.weights, variance_b, sigma_dp)
                         if variance_b < math.inf else math.inf)
            if config.decision.refresh == "on_query":
                chi[a, b] = test(a, b, t)
        errors, same, excluded, other, included = 0.0, 0, 0, 0, 0
        for a in range(m):
            if config.decision.refresh == "every_step" or config.class_estimator == "oracle":
                members = {b for b in range(m) if b == a or test(a, b, t)}
            else:
                members = {b for b in range(m) if b == a or chi[a, b]}
            estimate[a] = members
            heard = [b for b in members if b != a and (a, b) in stat
                     and var[a, b] < math.inf]
            own = own_variance(a, t)
            if own == math.inf:  # t = 1 with estimated variances: nothing to weigh yet
                mu_hat = mean(a, t)
            else:  # eqs. (3) and (5)
                precision = t / own + sum(1 / var[a, b] for b in heard)
                alpha = {b: 1 / var[a, b] / precision for b in heard}
                mu_hat = t / own / precision * mean(a, t) + sum(
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
