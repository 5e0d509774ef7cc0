"""Empirical lower bounds on ε, black box, for each family's single releases (issue 36).

    python -m tests.epsilon_audit            # print the table of every family
    python -m tests.epsilon_audit --write    # and render it into docs/families/<family>.md

Each case runs a family's own code on two neighbouring inputs many times and keeps what
an observer sees of one release (:func:`tests.black_box.epsilon_lower_bound` turns the
two samples into a 95% Clopper–Pearson lower bound ε_lb). A release that is one of many
is read the way an observer can read it alone: the increment n·r_n − (n − 1)·r_{n−1} of
PM-I's running means is the n-th p-sum plus its own noise; a naive read is the running
sum plus fresh noise. Every release is compared with the budget it is calibrated to (ε,
or the share of ε of one read or one state). Each sample is also given with its noiseless
value, for the control that halves the drawn noise: released = noiseless + (noise)/2.

Rules (tests/test_epsilon_bounds.py): ε_lb/ε <= 1 always; >= 0.5 for the Laplace and
Gaussian single releases (an audit without power proves nothing); > 1 with the noise
halved.
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

import numpy as np

from .black_box import EpsilonBound, epsilon_lower_bound

DOCS = Path(__file__).resolve().parent.parent / "docs" / "families"
#: Released values, their noiseless values, under x; the same under y.
Outputs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Case:
    """One single release of one family: how to draw ``runs`` outputs on x and on y."""

    family: str
    release: str
    noise: str
    epsilon: float  # the budget this release is calibrated to
    delta: float
    runs: int
    draw: Callable[[int], Outputs]

    def bounds(self) -> tuple[EpsilonBound, EpsilonBound]:
        """ε_lb as the code runs, and with its noise halved."""
        x, x_exact, y, y_exact = self.draw(self.runs)
        plain = epsilon_lower_bound(x, y, self.delta)
        halved = epsilon_lower_bound(x_exact + (x - x_exact) / 2,
                                     y_exact + (y - y_exact) / 2, self.delta)
        return plain, halved


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


def _decentralized(noise: str, delta: float) -> Callable[[int], Outputs]:
    """C-ColME's releases, PM-I, t_max = 10, 100 agents (a ring): the noises from the
    cell's own ``Draws``, the samples all 1 under x and all 0 under y (Bernoulli, Δ = 1);
    every increment of an agent's running release is one sample plus its p-sum noise."""
    from sweep.decentralized import graph as graphs
    from sweep.decentralized.config import DecentralizedConfig
    from sweep.decentralized.simulate import Draws, trajectories

    t_max, n = 10, 100
    config = DecentralizedConfig.from_options(
        samples="bernoulli", class_means=[0.5], class_proportions=[1.0], t_max=t_max,
        precision="float64",
        graph={"n_nodes": n, "degree": 2},
        privacy={"mechanism": "pm1", "noise": noise, "epsilon": 1.0, "delta": delta})
    graph = graphs.regular(n, 2, np.random.default_rng(0))
    classes = np.zeros(n, dtype=np.int64)

    def releases(value: float, runs: int, seed: int) -> np.ndarray:
        out = []
        for r in range(math.ceil(runs / (n * t_max))):
            draws = Draws(config, classes, np.random.default_rng([seed, r, 0]),
                          np.random.default_rng([seed, r, 1]))
            _, fresh = draws.draw(t_max)
            run = trajectories(config, graph, classes, np.full((t_max, n), value), fresh)
            out.append(_increments(run.release).ravel())
        return np.concatenate(out)[:runs]

    def draw(runs: int) -> Outputs:
        x, y = releases(1.0, runs, 1) - 1.0, releases(0.0, runs, 2) - 1.0
        return x, np.zeros(runs), y, np.full(runs, -1.0)

    return draw


def _network(noise: str, delta: float) -> Callable[[int], Outputs]:
    """MVUE's start (Alg. 3, Signal DP): every agent sends x_0 = s + d; 300 agents, the
    signals all at 0 under x and all at 1 under y (Gaussian signals of σ = 10⁻⁹, so that
    they are the values given; Δ = 1), through the cell's recursion."""
    from sweep.network.family import FAMILY

    def releases(mean: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        cell = FAMILY.prepare({
            "graph": {"kind": "watts_strogatz", "n_nodes": 300}, "rounds": 1,
            "checkpoints": [1], "references": [], "method": "mvue", "noise": noise,
            "delta": delta, "signal": "gaussian", "signal_mean": mean,
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
        x, x_exact = releases(0.0, runs, 1)
        y, y_exact = releases(1.0, runs, 2)
        return x, x_exact, y, y_exact

    return draw


def _continual(runs_per_call: int = 1000) -> Callable[[int], Outputs]:
    """The naive mechanism (erratum 13): each of T = 1000 reads is the running sum plus
    fresh Lap(mT/ε), so each read is (ε/T)-DP; n = 1000 users of one sample each
    (m = 1), the first user's sample 1 under x and 0 under y, every other sample 1. At
    ε = 1000 (ε/T = 1: a read at ε = 1/1000 moves too little for any sample to see)."""
    from sweep.continual.config import ContinualConfig
    from sweep.continual.orders import arrivals
    from sweep.continual.parameters import parameters
    from sweep.continual.simulate import run_coordinate

    n = runs_per_call
    config = ContinualConfig.from_options(method="naive_laplace", order={"kind": "uniform"},
                                          n_users=n, max_samples=1, t_max=n,
                                          epsilon=float(n), checkpoints=1)
    users = arrivals(config, np.random.default_rng(0))
    first = users[0]
    p = parameters(config)
    times = np.arange(1, n + 1)

    def reads(first_sample: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        values = np.ones(n)
        values[users == first] = first_sample
        out = []
        for r in range(math.ceil(runs / n)):
            run = run_coordinate(p, users, n, 1, 0.5, times, np.random.default_rng(0),
                                 np.random.default_rng([seed, r]), values=values)
            out.append(run.estimate * run.used)
        exact = np.cumsum(values)
        return np.concatenate(out)[:runs], np.tile(exact, len(out))[:runs]

    def draw(runs: int) -> Outputs:
        x, x_exact = reads(1.0, runs, 1)
        y, y_exact = reads(0.0, runs, 2)
        return x - x_exact, x_exact - x_exact, y - x_exact, y_exact - x_exact

    return draw


def _inference() -> Callable[[int], Outputs]:
    """Alg. 1's release on ACTG 175 (GM, five centres, Θ = {0, −log 2}): every noisy
    log-likelihood log γ_i(θ) + Lap(K|Θ|Δ/ε), read off the exchange's start
    (``beliefs.propagate``); under y every centre's log-likelihoods are larger by the
    sensitivity Δ (the worst neighbour's change). Each value is (ε/(K|Θ|))-DP."""
    from sweep.inference import beliefs, simulate
    from sweep.inference.config import InferenceConfig

    cell = simulate.prepare(InferenceConfig.from_options(method="gm", epsilon=1.0,
                                                         iterations=1, checkpoints=[1]))
    moved = dataclasses.replace(cell, loglik=cell.loglik + cell.sensitivity)

    def releases(chosen, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        captured: list[np.ndarray] = []
        original = beliefs.propagate

        def spy(half, initial, times):  # type: ignore[no-untyped-def]
            captured.append(initial)
            return original(half, initial, times)

        per_replicate = chosen.rounds * cell.loglik.size
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
        return noisy.ravel()[:runs], exact.ravel()[:runs]

    def draw(runs: int) -> Outputs:
        x, x_exact = releases(cell, runs, 1)
        y, y_exact = releases(moved, runs, 2)
        return x, x_exact, y, y_exact

    return draw


def _inference_budget() -> float:
    from sweep.inference.config import InferenceConfig
    from sweep.inference.simulate import prepare

    cell = prepare(InferenceConfig.from_options(method="gm", epsilon=1.0, iterations=1,
                                                checkpoints=[1]))
    return cell.sensitivity / cell.scale


#: Gaussian releases are audited at δ = 10⁻³ (runs of at most 1,000 protected samples,
#: so that δ <= 1/n): the bound needs events of probability well above δ, and at 10⁻⁶ a
#: Monte-Carlo sample cannot see the Gaussian's tail where its privacy loss is spent.
GAUSSIAN_DELTA = 1e-3
LAPLACE_RUNS = 200_000
GAUSSIAN_RUNS = 1_000_000


def cases() -> list[Case]:
    """Every family's single releases."""
    return [
        Case("colme", "PM-I p-sum of one sample (Lemma 2)", "laplace", 1.0, 0.0,
             LAPLACE_RUNS, _colme("laplace", 1e-6)),
        Case("colme", "PM-I p-sum of one sample (Lemma 1)", "gaussian", 1.0, GAUSSIAN_DELTA,
             GAUSSIAN_RUNS, _colme("gaussian", GAUSSIAN_DELTA)),
        Case("network", "MVUE's x_0, Signal DP (Thm 3.1)", "laplace", 1.0, 0.0,
             LAPLACE_RUNS, _network("laplace", 1e-3)),
        Case("network", "MVUE's x_0, Signal DP (analytic Gaussian)", "gaussian", 1.0,
             GAUSSIAN_DELTA, GAUSSIAN_RUNS, _network("gaussian", GAUSSIAN_DELTA)),
        Case("continual", "one read of the naive mechanism (ε/T, T = 1000)", "laplace",
             1.0, 0.0, LAPLACE_RUNS, _continual()),
        Case("inference", "one noisy log-likelihood of Alg. 1 (ε/2K: K rounds × 2 states)",
             "laplace",
             _inference_budget(), 0.0, LAPLACE_RUNS, _inference()),
        Case("decentralized", "C-ColME's PM-I p-sum of one sample (Lemma 2)", "laplace",
             1.0, 0.0, LAPLACE_RUNS, _decentralized("laplace", 1e-6)),
        Case("decentralized", "C-ColME's PM-I p-sum of one sample (Lemma 1)", "gaussian",
             1.0, GAUSSIAN_DELTA, GAUSSIAN_RUNS, _decentralized("gaussian", GAUSSIAN_DELTA)),
    ]


def table(family: str, results: list[tuple[Case, EpsilonBound, EpsilonBound]]) -> str:
    """The family's table (markdown)."""
    lines = ["| release | noise | budget ε (δ) | runs per input (half choose the event) "
             "| ε_lb/ε | ε_lb/ε, noise halved |",
             "| --- | --- | --- | --- | --- | --- |"]
    for case, plain, halved in results:
        if case.family != family:
            continue
        budget = f"{case.epsilon:.4g}" + (f" ({case.delta:g})" if case.delta else "")
        lines.append(f"| {case.release} | {case.noise} | {budget} | {case.runs:,} | "
                     f"{plain.epsilon_lb / case.epsilon:.3f} | "
                     f"{halved.epsilon_lb / case.epsilon:.3f} |")
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
        print(f"{case.family:13} {case.release:52} ε_lb/ε = {plain.epsilon_lb / case.epsilon:.3f}"
              f"   halved {halved.epsilon_lb / case.epsilon:.3f}", flush=True)
    for family in dict.fromkeys(c.family for c, _, _ in results):
        text = table(family, results)
        print(f"\n{family}\n{text}")
        if args.write:
            render(family, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
