"""Empirical lower bounds on ε, black box, for each family's releases (issue 36).

    python -m tests.epsilon_audit            # print the table of every family
    python -m tests.epsilon_audit --write    # and render it into docs/families/<family>.md

Each case runs a family's own code on two neighbouring inputs many times and keeps what
an observer sees (:func:`tests.black_box.epsilon_lower_bound` turns the two samples into
a 95% Clopper–Pearson lower bound ε_lb). A single release that is one of many is read
the way an observer can read it alone: the increment n·r_n − (n − 1)·r_{n−1} of PM-I's
running means is the n-th p-sum plus its own noise; a naive read is the running sum plus
fresh noise. A *whole run* (every release one agent or one user's data reaches, small
runs only) is read through the statistic a Neyman–Pearson observer uses, the log
likelihood ratio of the Laplace noises, Σ_j |o_j − y_j| − |o_j − x_j| over the releases
o_j whose noiseless values x_j and y_j differ. Every release is compared with the budget
it is calibrated to (ε, or the share of ε of one read or one state). Each sample is also
given with its noiseless value, for the control that halves the drawn noise: released =
noiseless + (noise)/2.

Rules (tests/test_epsilon_bounds.py), declared per case (:data:`RULES`): ε_lb/ε <= 1
always; >= 0.5 for the Laplace, staircase and Gaussian single releases and > 1 with their noise
halved (an audit without power proves nothing). The smooth-sensitivity mechanism of the
network family is audited twice: with ``signal_floor`` it must stay within its budget;
as the paper prints it, at a small signal, ε_lb must *exceed* it (the finding of
``tests/test_privacy_audit.py``, seen here black box).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .black_box import EpsilonBound, epsilon_lower_bound

DOCS = Path(__file__).resolve().parent.parent / "docs" / "families"
#: Released values, their noiseless values, under x; the same under y.
Outputs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


#: What each case's ε_lb/ε must satisfy, as the table prints it.
RULES = {
    "power": "≤ 1; ≥ 0.5, and > 1 halved",
    "within": "≤ 1",
    "finding": "> 1 (not private as printed)",
}


@dataclass(frozen=True)
class Case:
    """One release (or one whole run) of one family: how to draw ``runs`` outputs on x
    and on y. Whole runs draw a row of releases per run (``runs`` × releases), reduced
    to the Laplace likelihood ratio."""

    family: str
    release: str
    noise: str
    epsilon: float  # the budget this release is calibrated to
    delta: float
    runs: int
    draw: Callable[[int], Outputs]
    rule: str = "power"

    def bounds(self) -> tuple[EpsilonBound, EpsilonBound]:
        """ε_lb as the code runs, and with its noise halved."""
        x, x_exact, y, y_exact = self.draw(self.runs)
        plain = epsilon_lower_bound(*self.observed(x, y, x_exact, y_exact), self.delta)
        halved = epsilon_lower_bound(*self.observed(x_exact + (x - x_exact) / 2,
                                                    y_exact + (y - y_exact) / 2,
                                                    x_exact, y_exact), self.delta)
        return plain, halved

    @staticmethod
    def observed(x: np.ndarray, y: np.ndarray, x_exact: np.ndarray, y_exact: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """What the observer thresholds: a single release itself, or a whole run's
        Laplace log likelihood ratio (the most powerful statistic for x against y;
        halving the noise scales it, so the same statistic serves the control)."""
        if x.ndim == 1:
            return x, y
        a, b = x_exact[0], y_exact[0]

        def ratio(o: np.ndarray) -> np.ndarray:
            return np.sum(np.abs(o - b) - np.abs(o - a), axis=1)

        return ratio(x), ratio(y)


def _increments(release: np.ndarray) -> np.ndarray:
    """PM-I's p-sum releases from the running means r_n (rows n = 1, 2, …): n·r_n −
    (n − 1)·r_{n−1}, the n-th sample plus its own noise."""
    n = np.arange(1, release.shape[0] + 1)[:, None]
    total = n * release
    return np.diff(np.vstack([np.zeros((1, release.shape[1])), total]), axis=0)


def _colme(noise: str, delta: float) -> Callable[[int], Outputs]:
    """Two agents asking each other at every step (RR, PM-I, t_max = 500): every
    increment of what one receives is one p-sum of one sample, x_t = μ + L for every
    sample under x and μ − L under y (two-point data, the widest pair)."""
    from sweep.colme.config import ColmeConfig, data_bound
    from sweep.colme.engine import run_replicate
    from sweep.colme.kernel import Audit

    t_max = 500
    config = ColmeConfig.from_options(
        n_agents=2, n_classes=1, class_means=[0.5], t_max=t_max, epsilon=1.0, delta=delta,
        noise=noise, distribution="two_point", checkpoints=[t_max])
    bound = data_bound(config.distribution, config.sigma)

    def releases(value: float, runs: int, seed: int) -> np.ndarray:
        out = []
        for r in range(math.ceil(runs / (2 * t_max))):
            audit = Audit(np.full((t_max, 2), value), np.zeros((0, 0)),
                          np.full((t_max, 2), np.nan), np.full((t_max, 2), -1))
            run_replicate(config, np.random.SeedSequence([seed, r]), audit)
            out.append(_increments(audit.released).ravel())
        return np.concatenate(out)[:runs]

    def draw(runs: int) -> Outputs:
        x = releases(0.5 + bound, runs, 1) - (0.5 + bound)
        y = releases(0.5 - bound, runs, 2) - (0.5 + bound)
        return x, np.zeros(runs), y, np.full(runs, -2.0 * bound)

    return draw


def _colme_whole_run() -> Callable[[int], Outputs]:
    """PM-II's whole run (Laplace, t_max = 8, the split: four p-sums at ε/4): everything
    agent b sends to a (RR, two agents), b's first sample μ + L under x and μ − L under
    y, every other sample μ + L. The sample is in the p-sums [1, t] of t = 1, 2, 4, 8,
    released alone as t·r_t; every other release adds p-sums without it (fresh noise),
    so these four are the whole run's evidence."""
    from sweep.colme.config import ColmeConfig, data_bound
    from sweep.colme.engine import run_replicate
    from sweep.colme.kernel import Audit

    t_max = 8
    config = ColmeConfig.from_options(
        n_agents=2, n_classes=1, class_means=[0.5], t_max=t_max, epsilon=1.0, delta=1e-6,
        noise="laplace", mechanism="pm2", distribution="two_point", checkpoints=[t_max])
    bound = data_bound(config.distribution, config.sigma)
    spans = np.array([1, 2, 4, 8])

    def releases(first: float, runs: int, seed: int) -> np.ndarray:
        data = np.full((t_max, 2), 0.5 + bound)
        data[0] = first
        out = []
        for r in range(math.ceil(runs / 2)):
            audit = Audit(data, np.zeros((0, 0)), np.full((t_max, 2), np.nan),
                          np.full((t_max, 2), -1))
            run_replicate(config, np.random.SeedSequence([seed, r]), audit)
            out.append((spans[:, None] * audit.released[spans - 1]).T)
        return np.concatenate(out)[:runs]

    def draw(runs: int) -> Outputs:
        x_exact = spans * (0.5 + bound)
        return (releases(0.5 + bound, runs, 1), x_exact[None],
                releases(0.5 - bound, runs, 2), x_exact[None] - 2.0 * bound)

    return draw


def _decentralized(noise: str, delta: float, whole_run: bool = False
                   ) -> Callable[[int], Outputs]:
    """C-ColME's releases, 100 agents (a ring), the noises from the cell's own ``Draws``,
    Bernoulli samples (Δ = 1). A single release: PM-I, t_max = 10, the samples all 1
    under x and all 0 under y; every increment of an agent's running release is one
    sample plus its p-sum noise. The whole run: PM-II (Laplace, t_max = 8, four p-sums
    at ε/4 each), an agent's first sample 1 under x and 0 under y, every other sample 1;
    the first sample's evidence is t·r_t at t = 1, 2, 4, 8 (as :func:`_colme_whole_run`)."""
    from sweep.decentralized import graph as graphs
    from sweep.decentralized.config import DecentralizedConfig
    from sweep.decentralized.simulate import Draws, trajectories

    t_max, n = (8, 1000) if whole_run else (10, 100)
    config = DecentralizedConfig.from_options(
        samples="bernoulli", class_means=[0.5], class_proportions=[1.0], t_max=t_max,
        precision="float64",
        graph={"n_nodes": n, "degree": 2}, epsilon=1.0, delta=delta,
        privacy={"mechanism": "pm2" if whole_run else "pm1", "noise": noise})
    graph = graphs.regular(n, 2, np.random.default_rng(0))
    classes = np.zeros(n, dtype=np.int64)
    spans = np.array([1, 2, 4, 8])

    def releases(first: float, runs: int, seed: int) -> np.ndarray:
        values = np.ones((t_max, n))
        values[0 if whole_run else slice(None)] = first
        out = []
        for r in range(math.ceil(runs / (n if whole_run else n * t_max))):
            draws = Draws(config, classes, np.random.default_rng([seed, r, 0]),
                          np.random.default_rng([seed, r, 1]))
            _, fresh = draws.draw(t_max)
            run = trajectories(config, graph, classes, values, fresh)
            out.append((spans[:, None] * run.release[spans - 1]).T if whole_run
                       else _increments(run.release).ravel())
        return np.concatenate(out)[:runs]

    def draw(runs: int) -> Outputs:
        if whole_run:
            return (releases(1.0, runs, 1), spans[None] * 1.0,
                    releases(0.0, runs, 2), spans[None] - 1.0)
        x, y = releases(1.0, runs, 1) - 1.0, releases(0.0, runs, 2) - 1.0
        return x, np.zeros(runs), y, np.full(runs, -1.0)

    return draw


def _network(noise: str, delta: float, signal: str = "gaussian", signals: tuple = (0.0, 1.0),
             floor: float | None = None) -> Callable[[int], Outputs]:
    """MVUE's start (Alg. 3, Signal DP): every agent sends x_0 = ξ(s) + d; 300 agents,
    the signals all at ``signals[0]`` under x and all at ``signals[1]`` under y (σ = 10⁻⁹,
    so that they are the values given), through the cell's recursion: Gaussian signals
    (ξ(s) = s, Δ = 1), or log-normal ones (ξ(s) = log s, the smooth sensitivity)."""
    from sweep.network.family import FAMILY

    def releases(value: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        cell = FAMILY.prepare({
            "graph": {"kind": "watts_strogatz", "n_nodes": 300}, "rounds": 1,
            "checkpoints": [1], "references": [], "method": "mvue", "noise": noise,
            "delta": delta, "signal": signal, "signal_floor": floor,
            "signal_mean": math.log(value) if signal == "lognormal" else value,
            "signal_sigma": 1e-9}, 1)
        sent, exact = [], []

        def observe(t: int, signals, mu: np.ndarray, error: np.ndarray) -> None:
            if t == 0:
                sent.append((mu + error).ravel())
                exact.append(mu.ravel())

        seeds = np.random.SeedSequence(seed).spawn(math.ceil(runs / 300))
        FAMILY._run_recursion(cell, seeds, np.array([1]), observe)
        return sent[0][:runs], exact[0][:runs]

    def draw(runs: int) -> Outputs:
        x, x_exact = releases(signals[0], runs, 1)
        y, y_exact = releases(signals[1], runs, 2)
        return x, x_exact, y, y_exact

    return draw


def _continual(n: int, whole_run: bool, noise: str = "laplace") -> Callable[[int], Outputs]:
    """The naive mechanism (erratum 13): each of T = n reads is the running sum plus fresh
    Lap(mT/ε), so each read is (ε/T)-DP; n users of one sample each (m = 1), the first
    user's sample 1 under x and 0 under y, every other sample 1. A single read: n = 1000
    at ε = 1000 (ε/T = 1: a read at ε = 1/1000 moves too little for any sample to see),
    every read of a run one output. The whole run: n = 4 at ε = 1, the 4 reads of a run
    one output (the first user's sample is in all of them; with more reads the event
    that spends all of ε, every noise on its side, is too rare to bound)."""
    from sweep.continual.config import ContinualConfig
    from sweep.continual.orders import arrivals
    from sweep.continual.parameters import parameters
    from sweep.continual.simulate import run_coordinate

    config = ContinualConfig.from_options(method="naive_laplace", order={"kind": "uniform"},
                                          n_users=n, max_samples=1, t_max=n,
                                          epsilon=1.0 if whole_run else float(n),
                                          checkpoints=1, noise=noise)
    users = arrivals(config, np.random.default_rng(0))
    p = parameters(config)
    times = np.arange(1, n + 1)

    def reads(first_sample: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        values = np.ones(n)
        values[users == users[0]] = first_sample
        out = []
        for r in range(runs if whole_run else math.ceil(runs / n)):
            run = run_coordinate(p, users, n, 1, 0.5, times, np.random.default_rng(0),
                                 np.random.default_rng([seed, r]), values=values)
            out.append(run.estimate * run.used)
        if whole_run:
            return np.vstack(out), np.cumsum(values)[None]
        return np.concatenate(out)[:runs], np.tile(np.cumsum(values), len(out))[:runs]

    def draw(runs: int) -> Outputs:
        x, x_exact = reads(1.0, runs, 1)
        y, y_exact = reads(0.0, runs, 2)
        if whole_run:
            return x, x_exact, y, y_exact
        return x - x_exact, x_exact - x_exact, y - x_exact, y_exact - x_exact

    return draw


def _inference_cell(noise: str = "laplace", epsilon: float = 1.0) -> Any:
    from sweep.inference.config import InferenceConfig
    from sweep.inference.simulate import prepare

    return prepare(InferenceConfig.from_options(method="gm", epsilon=epsilon, iterations=1,
                                                checkpoints=[1], noise=noise))


def _inference(whole_run: bool, noise: str = "laplace", epsilon: float = 1.0
               ) -> Callable[[int], Outputs]:
    """Alg. 1's release on ACTG 175 (GM, five centres, Θ = {0, −log 2}): every noisy
    log-likelihood log γ_i(θ) + Lap(K|Θ|Δ/ε) (or the staircase of ε/(K|Θ|) in its
    units), read off the exchange's start (``beliefs.propagate``); under y every centre's
    log-likelihoods are larger by the sensitivity Δ (the worst neighbour's change). Each
    value is (ε/(K|Θ|))-DP, one output; the whole run is a centre's K|Θ| values of a
    replicate, ε-DP."""
    from sweep.inference import beliefs, simulate

    cell = _inference_cell(noise, epsilon)
    moved = dataclasses.replace(cell, loglik=cell.loglik + cell.sensitivity)

    def releases(chosen, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        captured: list[np.ndarray] = []
        original = beliefs.propagate

        def spy(half, initial, times):  # type: ignore[no-untyped-def]
            captured.append(initial)
            return original(half, initial, times)

        per_replicate = cell.loglik.shape[0] * (1 if whole_run else
                                                chosen.rounds * cell.loglik.shape[1])
        count = math.ceil(runs / per_replicate)
        beliefs.propagate = spy
        try:
            simulate.run(chosen, np.random.SeedSequence(seed).spawn(count), range(count))
        finally:
            beliefs.propagate = original
        initial = captured[0]  # (n, R, K + 1, |Θ|): the K noisy rounds, then Alg. 4's
        noisy = initial[:, :, :-1] - cell.loglik[:, None, None, :]
        exact = np.broadcast_to(initial[:, :, -1:] - cell.loglik[:, None, None, :],
                                noisy.shape)
        if whole_run:
            width = cell.rounds * cell.loglik.shape[1]
            return noisy.reshape(-1, width)[:runs], exact.reshape(-1, width)[:1]
        return noisy.ravel()[:runs], exact.ravel()[:runs]

    def draw(runs: int) -> Outputs:
        x, x_exact = releases(cell, runs, 1)
        y, y_exact = releases(moved, runs, 2)
        return x, x_exact, y, y_exact

    return draw


def _inference_budget(noise: str = "laplace", epsilon: float = 1.0) -> float:
    """One value's budget ε/(K|Θ|), from the cell's own calibration (Δ/b)."""
    cell = _inference_cell(noise, epsilon)
    return cell.sensitivity / cell.scale


#: Gaussian releases are audited at δ = 10⁻³ (runs of at most 1,000 protected samples,
#: so that δ <= 1/n): the bound needs events of probability well above δ, and at 10⁻⁶ a
#: Monte-Carlo sample cannot see the Gaussian's tail where its privacy loss is spent.
GAUSSIAN_DELTA = 1e-3
LAPLACE_RUNS = 200_000
GAUSSIAN_RUNS = 1_000_000
#: Whole runs cost a replicate each (colme, continual): fewer.
WHOLE_RUNS = 60_000
#: The smooth-sensitivity audit: δ of 10⁻³ (as the Gaussian's), log-normal signals at
#: their floor s_min and s_min + 1 (the pair the floor's global sensitivity log(1 +
#: 1/s_min) is set by), and, as printed, at a small signal s = 0.5 against 1.5.
SMOOTH_DELTA, SIGNAL_FLOOR, SMALL_SIGNAL = 1e-3, 0.1, 0.5


def cases() -> list[Case]:
    """Every family's single releases, and its whole runs where they are small."""
    smooth = ("MVUE's x_0, log-normal signals, smooth sensitivity (eq. (9)) with "
              f"δ = {SMOOTH_DELTA:g}")
    return [
        Case("colme", "PM-I p-sum of one sample (Lemma 2)", "laplace", 1.0, 0.0,
             LAPLACE_RUNS, _colme("laplace", 1e-6)),
        Case("colme", "PM-I p-sum of one sample (Lemma 1)", "gaussian", 1.0, GAUSSIAN_DELTA,
             GAUSSIAN_RUNS, _colme("gaussian", GAUSSIAN_DELTA)),
        Case("colme", "PM-I p-sum of one sample (staircase, Geng & Viswanath)", "staircase",
             1.0, 0.0, LAPLACE_RUNS, _colme("staircase", 1e-6)),
        Case("colme", "whole run: all b sends a, PM-II, t_max = 8 (4 p-sums at ε/4)",
             "laplace", 1.0, 0.0, WHOLE_RUNS, _colme_whole_run(), "within"),
        Case("network", "MVUE's x_0, Signal DP (Thm 3.1)", "laplace", 1.0, 0.0,
             LAPLACE_RUNS, _network("laplace", 1e-3)),
        Case("network", "MVUE's x_0, Signal DP (analytic Gaussian)", "gaussian", 1.0,
             GAUSSIAN_DELTA, GAUSSIAN_RUNS, _network("gaussian", GAUSSIAN_DELTA)),
        Case("network", "MVUE's x_0, Signal DP (staircase, Geng & Viswanath)", "staircase",
             1.0, 0.0, LAPLACE_RUNS, _network("staircase", 1e-3)),
        Case("network", f"{smooth}, signal_floor = {SIGNAL_FLOOR}: s = s_min vs s_min + 1",
             "laplace", 1.0, SMOOTH_DELTA, LAPLACE_RUNS,
             _network("laplace", SMOOTH_DELTA, "lognormal", (SIGNAL_FLOOR, SIGNAL_FLOOR + 1),
                      SIGNAL_FLOOR), "within"),
        Case("network", f"{smooth}, as printed: s = {SMALL_SIGNAL:g} vs {SMALL_SIGNAL + 1:g}",
             "laplace", 1.0, SMOOTH_DELTA, LAPLACE_RUNS,
             _network("laplace", SMOOTH_DELTA, "lognormal", (SMALL_SIGNAL, SMALL_SIGNAL + 1)),
             "finding"),
        Case("continual", "one read of the naive mechanism (ε/T, T = 1000)", "laplace",
             1.0, 0.0, LAPLACE_RUNS, _continual(1000, whole_run=False)),
        Case("continual", "one read of the naive mechanism (ε/T, T = 1000), staircase",
             "staircase", 1.0, 0.0, LAPLACE_RUNS, _continual(1000, False, "staircase")),
        Case("continual", "whole run of the naive mechanism (T = 4 reads at ε/4)", "laplace",
             1.0, 0.0, WHOLE_RUNS, _continual(4, whole_run=True), "within"),
        Case("inference", "one noisy log-likelihood of Alg. 1 (ε/2K: K rounds × 2 states)",
             "laplace", _inference_budget(), 0.0, LAPLACE_RUNS, _inference(whole_run=False)),
        Case("inference", "one noisy log-likelihood of Alg. 1, staircase (ε = 6: ε' = 1)",
             "staircase", _inference_budget("staircase", 6.0), 0.0, LAPLACE_RUNS,
             _inference(False, "staircase", 6.0)),
        Case("inference", "whole run: a centre's 2K noisy log-likelihoods of Alg. 1",
             "laplace", 1.0, 0.0, LAPLACE_RUNS, _inference(whole_run=True), "within"),
        Case("decentralized", "C-ColME's PM-I p-sum of one sample (Lemma 2)", "laplace",
             1.0, 0.0, LAPLACE_RUNS, _decentralized("laplace", 1e-6)),
        Case("decentralized", "C-ColME's PM-I p-sum of one sample (staircase)", "staircase",
             1.0, 0.0, LAPLACE_RUNS, _decentralized("staircase", 1e-6)),
        Case("decentralized", "C-ColME's PM-I p-sum of one sample (Lemma 1)", "gaussian",
             1.0, GAUSSIAN_DELTA, GAUSSIAN_RUNS, _decentralized("gaussian", GAUSSIAN_DELTA)),
        Case("decentralized", "whole run: an agent's releases, PM-II, t_max = 8 (4 p-sums "
             "at ε/4)", "laplace", 1.0, 0.0, LAPLACE_RUNS,
             _decentralized("laplace", 1e-6, whole_run=True), "within"),
    ]


def table(family: str, results: list[tuple[Case, EpsilonBound, EpsilonBound]]) -> str:
    """The family's table (markdown)."""
    lines = ["| release | noise | budget ε (δ) | runs per input (half choose the event) "
             "| ε_lb/ε | ε_lb/ε, noise halved | rule |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for case, plain, halved in results:
        if case.family != family:
            continue
        budget = f"{case.epsilon:.4g}" + (f" ({case.delta:g})" if case.delta else "")
        lines.append(f"| {case.release} | {case.noise} | {budget} | {case.runs:,} | "
                     f"{plain.epsilon_lb / case.epsilon:.3f} | "
                     f"{halved.epsilon_lb / case.epsilon:.3f} | {RULES[case.rule]} |")
    return "\n".join(lines)


START, END = "<!-- epsilon-lb:start -->", "<!-- epsilon-lb:end -->"


def render(family: str, text: str) -> None:
    """Put ``text`` between the family page's markers (which must exist)."""
    page = DOCS / f"{family}.md"
    content = page.read_text()
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    if not pattern.search(content):
        raise SystemExit(f"{page}: no {START} … {END} markers")
    command = "python -m tests.epsilon_audit --write"
    block = f"{START}\n<!-- rendered by `{command}`; do not edit -->\n{text}\n{END}"
    page.write_text(pattern.sub(lambda _: block, content))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.epsilon_audit",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="render the tables into docs/families/<family>.md")
    args = parser.parse_args(argv)
    results = []
    for case in cases():
        plain, halved = case.bounds()
        results.append((case, plain, halved))
        print(f"{case.family:13} {case.release[:60]:60} "
              f"ε_lb/ε = {plain.epsilon_lb / case.epsilon:.3f}"
              f"   halved {halved.epsilon_lb / case.epsilon:.3f}", flush=True)
    for family in dict.fromkeys(c.family for c, _, _ in results):
        text = table(family, results)
        print(f"\n{family}\n{text}")
        if args.write:
            render(family, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
