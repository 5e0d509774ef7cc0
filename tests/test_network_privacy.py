"""The network family's privacy, tested on what the code draws and sends (issue 36).

:mod:`tests.test_privacy_audit` certifies that each calibration (Thms 3.1, 4.1, 4.2;
Appendix B) pays for the sensitivity of the messages. These tests run a cell's own
recursion (:meth:`sweep.network.family.NetworkFamily._run_recursion`) and read every
round's messages ν_t = μ_t + noise (its ``observe`` hook):

* The noise drawn is the noise declared: every round's fresh noise d_t, recovered from
  the messages (ν_t − μ_t less what the recursion carries over, over g_t), standardized
  by the agent's declared scale (its calibration at its signal and neighbourhood), is
  Laplace(1) or N(0, 1): offline MVUE (noise at round 0 only), online learning and
  Rizk et al., under Signal and Network DP, with global and smooth sensitivities.
* Everything else is post-processing: agent i's signal at one round changed, and its
  noise at that round shifted by the change of its noiseless message (z' = z +
  (release(x) − release(y))): every message of every agent at every round is the same.
  The recursion carries μ and the noise apart and sends their sum, so "the same" is up
  to the rounding of that sum (relative 10⁻¹²), not bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sweep.network.family import FAMILY, run_recursion

from .black_box import check_drawn_noise

GRAPH = {"kind": "watts_strogatz", "n_nodes": 300}


def cell(**options: Any):
    chosen = {"graph": GRAPH, "rounds": 20, "checkpoints": [20], "references": [],
              "delta": 1e-3}
    return FAMILY.prepare(chosen | options, 1)


class Rounds:
    """Every round's signals, noiseless estimates and noise, as ``observe`` sees them."""

    def __init__(self) -> None:
        self.signals: list[np.ndarray | None] = []
        self.mu: list[np.ndarray] = []
        self.error: list[np.ndarray] = []

    def __call__(self, t: int, signals: np.ndarray | None, mu: np.ndarray,
                 error: np.ndarray) -> None:
        assert t == len(self.mu)
        self.signals.append(None if signals is None else signals.copy())
        self.mu.append(mu.copy())
        self.error.append(error.copy())


def observed(prepared, seeds: int = 2) -> Rounds:
    rounds = Rounds()
    children = np.random.SeedSequence(11).spawn(seeds)
    FAMILY._run_recursion(prepared, children, prepared.config.checkpoint_times(), rounds)
    return rounds


def fresh_noises(prepared, rounds: Rounds) -> dict[int, np.ndarray]:
    """Each round's fresh noise d_t, recovered from the messages: round 0's is the noise
    MVUE starts with; round t's, the noise of ν_t less what the recursion carries over
    from round t − 1, over g_t."""
    dynamics, matrix = prepared.dynamics, prepared.network.matrix()
    out = {0: rounds.error[0]} if dynamics.noise_at_start else {}
    for t in range(1, len(rounds.error)):
        p, q, _, g = dynamics.coefficients(t)
        if g:
            carried = q * (matrix @ rounds.error[t - 1]) + p * rounds.error[t - 1]
            out[t] = (rounds.error[t] - carried) / g
    return out


def standardized_noises(prepared, rounds: Rounds) -> np.ndarray:
    """Each round's fresh noise over its agent's declared scale: the calibration at the
    signal the noise protects and, under Network DP, a_i times the round's weight."""
    dynamics, network = prepared.dynamics, prepared.network
    out = []
    for t, noise in fresh_noises(prepared, rounds).items():
        signals = rounds.signals[0] if dynamics.offline else rounds.signals[t]
        scale = prepared.calibration.scale(
            signals, dynamics.neighbour_weight(t) * network.a_neighbor[:, None],
            dynamics.signal_weight())
        out.append(noise / scale)
    return np.concatenate([x.ravel() for x in out])


CASES = [
    dict(method="mvue", privacy="signal", noise="laplace", signal="gaussian"),
    dict(method="mvue", privacy="signal", noise="gaussian", signal="gaussian"),
    dict(method="mvue", privacy="network", noise="laplace"),
    dict(method="ol", privacy="signal", noise="laplace"),
    dict(method="ol", privacy="network", noise="gaussian"),
    dict(method="ol_alg4", privacy="network", noise="laplace", signal="gaussian"),
    dict(method="rizk_ol", privacy="signal", noise="laplace"),
    # Appendix C.3: each agent's noise at its own ε_i.
    dict(method="ol", privacy="network", noise="laplace", budgets="waterfilling"),
]


@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(map(str, o.values())))
def test_the_drawn_noise_is_the_declared_noise(options: dict[str, Any]) -> None:
    """300 agents, 2 replicates: 600 noises per round, at least 9 rounds' worth (MVUE:
    round 0 of 20 replicates); the scale test detects a 10% error with power >= 0.99."""
    prepared = cell(**options)
    seeds = 20 if options["method"] == "mvue" else 2
    noises = standardized_noises(prepared, observed(prepared, seeds))
    check_drawn_noise(noises, options["noise"], 1.0)


@pytest.mark.parametrize("method", ["mvue", "ol", "ol_alg5", "rizk_ol"])
def test_what_others_see_depends_on_a_signal_only_through_its_message(method: str) -> None:
    """Agent 7's signal at round 3 (MVUE: its only one, at round 0) moved by Δ = 1, its
    noise at that round shifted to keep its message (the message moves by r_t·Δ, or Δ
    at MVUE's start, and g_t·d' = g_t·d − r_t·Δ): every message of every agent at every
    round is unchanged (to the rounding of μ + noise), while the noiseless estimates
    move."""
    prepared = cell(method=method, signal="gaussian", privacy="signal")
    dynamics, config = prepared.dynamics, prepared.config
    agent, moved = 7, 0 if dynamics.offline else 3
    first = observed(prepared, 1)
    signals = [None if s is None else s.copy() for s in first.signals]
    signals[moved][agent] += 1.0
    noises = {t: z.copy() for t, z in fresh_noises(prepared, first).items()}
    _, _, r, g = dynamics.coefficients(moved) if moved else (0.0, 0.0, 1.0, 1.0)
    noises[moved][agent] -= r / g

    second = Rounds()
    run_recursion(dynamics, prepared.network.matrix(), 1, config.checkpoint_times(),
                  lambda t: signals[t], lambda t, _: noises[t], lambda s: s,
                  config.signal_mean, second)
    for t in range(len(first.mu)):
        np.testing.assert_allclose(second.mu[t] + second.error[t], first.mu[t] + first.error[t],
                                   rtol=1e-12, atol=1e-12)
    assert max(np.abs(x - y).max() for x, y in zip(first.mu, second.mu, strict=True)) > 1e-4
