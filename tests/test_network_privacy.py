"""The network family's privacy, tested on what the code draws and sends (issue 36).

:mod:`tests.test_privacy_audit` certifies that each calibration (Thms 3.1, 4.1, 4.2;
Appendix B) pays for the sensitivity of the messages. These tests run a cell's own
recursion (:meth:`sweep.network.family.NetworkFamily._run_recursion`) and read every
round's noiseless estimates μ_t and noise (its ``observe`` hook) and every release and
message (its ``releases`` hook, :class:`sweep.network.algorithms.Releases`):

* The noise drawn is the noise declared: every round's fresh noise d_t, recovered from
  the noise the recursion carries (less what it carries over from round t − 1, over g_t),
  standardized by the agent's declared scale (its calibration at its signal and
  neighbourhood), is Laplace(1) or N(0, 1): offline MVUE (noise at round 0 only), online
  learning and Rizk et al., under Signal and Network DP, with global and smooth
  sensitivities, Appendix C.3's per-agent budgets, and on Appendix C.1's graph whose
  links fail at random (a_i(t) read off each round's weights, not the family's).
* Everything else is post-processing (the coupling of the privacy proofs): the inputs
  of one agent's release moved (Signal DP: its signal; Network DP, Sec. 2.3: its signal
  and its neighbours' estimates as it reads them, at L1 distance <= 1), and the run
  handed every release of the unmoved run (the noise z' = z + (release(x) − release(y))).
  Every message of every agent at every round is then identical, bit for bit; the
  family's own carriage of μ and the noise, on the moved inputs and z', sends the same
  messages to rounding; and z' − z is the move of the noiseless release, within the
  sensitivity the noise is calibrated to. Where nothing is released (MVUE's rounds under
  Network DP, x_0 = ξ(s) of the ablations) the same move is seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sweep.components import dynamic, graphs
from sweep.network.algorithms import Releases, run_recursion
from sweep.network.family import FAMILY, NetworkCell, _signal_draws, statistic_mean

from .black_box import check_drawn_noise

GRAPH = {"kind": "watts_strogatz", "n_nodes": 300}
SEED = 11


def cell(**options: Any) -> NetworkCell:
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

    def sent(self) -> np.ndarray:
        """μ_t + noise, (T + 1, n, R): the messages as the family's carriage has them."""
        return np.stack(self.mu) + np.stack(self.error)


def round_weights(prepared: NetworkCell, replicates: int) -> list[Any]:
    """A(t), t = 1..T, of a run of ``replicates`` seeded as :func:`observed` seeds them:
    the static graph, or (Appendix C.1) each round's failing graph, drawn again from the
    stream the family gives it (each replicate's third child seed, after its signals and
    noise)."""
    config = prepared.config
    if config.edge_keep is None:
        return [prepared.network.matrix()] * config.rounds
    rngs = [np.random.default_rng(seed.spawn(3)[2])
            for seed in np.random.SeedSequence(SEED).spawn(replicates)]
    failing = dynamic.EdgeFailures(graphs.edges(prepared.spec), prepared.network.n,
                                   config.edge_keep, rngs)
    return [failing.weights(t) for t in range(1, config.rounds + 1)]


def sparse(a: Any) -> Any:
    """The CSR matrix of A(t): the static one, or the block-diagonal one of the replicates'
    failing graphs."""
    return a.matrix if isinstance(a, dynamic.Blocks) else a


def neighbour_weight(a: Any, n: int) -> np.ndarray:
    """a_i(t) = max_{j≠i} a_ij(t), (n, R), read off the weights themselves (0 for an
    agent whose links all failed)."""
    coo = sparse(a).tocoo()
    off = coo.row != coo.col
    out = np.zeros(coo.shape[0])
    np.maximum.at(out, coo.row[off], coo.data[off])
    return out.reshape(-1, n).T


def observed(prepared: NetworkCell, seeds: int = 2) -> Rounds:
    rounds = Rounds()
    children = np.random.SeedSequence(SEED).spawn(seeds)
    FAMILY._run_recursion(prepared, children, prepared.config.checkpoint_times(), rounds)
    return rounds


def fresh_noises(prepared: NetworkCell, rounds: Rounds, weights: list[Any]
                 ) -> dict[int, np.ndarray]:
    """Each round's fresh noise d_t, recovered from the noise the recursion carries:
    round 0's is the noise MVUE starts with; round t's, the noise of ν_t less what the
    recursion carries over from round t − 1 with A(t), over g_t."""
    dynamics = prepared.dynamics
    out = {0: rounds.error[0]} if dynamics.noise_at_start else {}
    for t in range(1, len(rounds.error)):
        p, q, _, g = dynamics.coefficients(t)
        if g:
            carried = q * (weights[t - 1] @ rounds.error[t - 1]) + p * rounds.error[t - 1]
            out[t] = (rounds.error[t] - carried) / g
    return out


def declared_scales(prepared: NetworkCell, signals: np.ndarray, t: int,
                    a: Any) -> np.ndarray:
    """Round t's declared noise scales: the calibration at the signal the noise protects
    and, under Network DP, a_i(t) (round 1's graph at MVUE's start) times the round's
    weight on it."""
    dynamics = prepared.dynamics
    network = dynamics.neighbour_weight(t) * neighbour_weight(a, prepared.network.n)
    return prepared.calibration.scale(signals, network, dynamics.signal_weight())


def standardized_noises(prepared: NetworkCell, rounds: Rounds,
                        weights: list[Any]) -> np.ndarray:
    """Each round's fresh noise over its agent's declared scale."""
    offline = prepared.dynamics.offline
    out = []
    for t, noise in fresh_noises(prepared, rounds, weights).items():
        signals = rounds.signals[0] if offline else rounds.signals[t]
        out.append(noise / declared_scales(prepared, signals, t, weights[max(t, 1) - 1]))
    return np.concatenate([x.ravel() for x in out])


#: Appendix C.1's failing links with Network DP's a_i(t) on both sides of the signal's
#: Δ = 0.2: a_ij(t) = 1/(2 max(deg_t i, deg_t j)) is 1/2, 1/4, 1/6, ... or none at all.
FAILING = {"edge_keep": 0.5, "signal": "gaussian", "sensitivity": 0.2}

CASES = [
    dict(method="mvue", privacy="signal", noise="laplace", signal="gaussian"),
    dict(method="mvue", privacy="signal", noise="gaussian", signal="gaussian"),
    dict(method="mvue", privacy="signal", noise="staircase", signal="gaussian"),
    dict(method="mvue", privacy="network", noise="laplace"),
    dict(method="ol", privacy="signal", noise="laplace"),
    dict(method="ol", privacy="network", noise="gaussian"),
    dict(method="ol_alg4", privacy="network", noise="laplace", signal="gaussian"),
    dict(method="rizk_ol", privacy="signal", noise="laplace"),
    # Appendix C.3: each agent's noise at its own ε_i.
    dict(method="ol", privacy="network", noise="laplace", budgets="waterfilling"),
    # Appendix C.1: every round's graph drawn anew; MVUE's x_0 on round 1's graph.
    dict(method="ol", privacy="network", noise="laplace", **FAILING),
    dict(method="mvue", privacy="network", noise="laplace", **FAILING),
]


@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(map(str, o.values())))
def test_the_drawn_noise_is_the_declared_noise(options: dict[str, Any]) -> None:
    """300 agents, 2 replicates: 600 noises a round over 20 rounds (MVUE: round 0 of 20
    replicates, 6,000); the scale test detects a 10% error with power >= 0.99. With
    failing links, links fail and agents lose all theirs, and a_i(t) is above and below
    the signal's Δ: both terms of max(a_i(t), Δ) set scales (asserted)."""
    prepared = cell(**options)
    seeds = 20 if options["method"] == "mvue" else 2
    weights = round_weights(prepared, seeds)
    noises = standardized_noises(prepared, observed(prepared, seeds), weights)
    if prepared.config.edge_keep is not None:
        assert_links_fail(prepared, weights, seeds)
        a = np.stack([neighbour_weight(w, prepared.network.n) for w in weights])
        delta = prepared.config.sensitivity
        assert ((a > 0) & (a < delta)).any() and (a > delta).any()
    check_drawn_noise(noises, options["noise"], 1.0, epsilon=prepared.config.epsilon)


# ===================================================================== the coupling


@dataclass
class Run:
    """One replicate's run: its rounds as ``observe`` sees them, its releases and
    messages, its weights A(t) and its metrics."""

    rounds: Rounds
    releases: Releases
    weights: list[Any]
    metrics: np.ndarray


def reference(prepared: NetworkCell) -> Run:
    """The cell's own run of one replicate, recording its releases: its metrics are
    those of the run without the hooks, bit for bit."""
    config = prepared.config
    rounds, times = Rounds(), config.checkpoint_times()
    releases = Releases.record(config.rounds, prepared.network.n, 1)
    seeds = np.random.SeedSequence(SEED).spawn(1)
    metrics = FAMILY._run_recursion(prepared, seeds, times, rounds, releases)
    unhooked = FAMILY._run_recursion(prepared, np.random.SeedSequence(SEED).spawn(1), times)
    np.testing.assert_array_equal(metrics, unhooked)
    return Run(rounds, releases, round_weights(prepared, 1), metrics)


def coupled(prepared: NetworkCell, first: Run, signals: list[np.ndarray | None],
            weights: list[Any]) -> Run:
    """The run on neighbouring inputs (``signals``, and agent i's reading of its
    neighbours in ``weights``), handed every release of ``first``."""
    config = prepared.config
    rounds, releases, times = Rounds(), first.releases.replay(), config.checkpoint_times()

    def unused(t: int, s: np.ndarray) -> np.ndarray:
        return np.zeros_like(s)  # every release is handed in: no draw reaches a message

    metrics = run_recursion(prepared.dynamics, lambda t: weights[t - 1], 1, times,
                            lambda t: signals[t], unused, _signal_draws(config)[1],
                            statistic_mean(config), rounds, releases)
    return Run(rounds, releases, weights, metrics)


class MovedReading:
    """A(τ) as agent i applies it when it reads its neighbours' estimates moved by δ_j
    (Network DP's neighbouring input, Sec. 2.3): row i gains a_ij δ_j/ν_j at column j,
    so that on the messages ν, (A'ν)_i = (Aν)_i + Σ_j a_ij δ_j. A linear map: the
    noiseless estimates and the noise the family carries go through it too."""

    def __init__(self, a: Any, agent: int, extra: dict[int, float]) -> None:
        self.a, self.agent, self.extra, self.shape = a, agent, extra, a.shape

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        out = self.a @ x
        out[self.agent] += sum(w * x[j] for j, w in self.extra.items())
        return out


def neighbours(a: Any, agent: int) -> dict[int, float]:
    """Agent i's neighbours in A(t) and their weights a_ij(t)."""
    matrix = sparse(a)
    span = slice(matrix.indptr[agent], matrix.indptr[agent + 1])
    return {int(j): float(w) for j, w in zip(matrix.indices[span], matrix.data[span],
                                             strict=True) if j != agent}


def moved_signals(first: Run, offline: bool, agent: int, t: int,
                  step: float) -> list[np.ndarray | None]:
    """The reference's signals with agent i's at round t (offline: its only one) moved
    up by ``step``."""
    signals = [None if s is None else s.copy() for s in first.rounds.signals]
    signals[0 if offline else t][agent] += step
    return signals


def move_reading(first: Run, agent: int, t: int, moves: dict[int, float]) -> list[Any]:
    """The reference's weights with agent i's reading of neighbour j's estimate
    ν_{j,t−1} moved by δ_j at round t (:class:`MovedReading`)."""
    weights = list(first.weights)
    a = weights[t - 1]
    sent = first.releases.sent[t - 1]
    assert all(abs(sent[j, 0]) > 1e-3 for j in moves)  # a move of a weight reaches ν_j
    weight = neighbours(a, agent)
    weights[t - 1] = MovedReading(a, agent, {j: weight[j] * d / sent[j, 0]
                                             for j, d in moves.items()})
    return weights


def assert_the_same_messages(first: Run, second: Run, shift: np.ndarray) -> None:
    """Every message of every agent at every round identical, bit for bit; the family's
    carriage of μ and the noise (z', on the moved inputs) sends them too, to rounding;
    the noise the releases imply moved by ``shift`` (the move of the noiseless release,
    in units of g_t d_t) and nowhere else."""
    np.testing.assert_array_equal(second.releases.sent, first.releases.sent)
    sent = first.releases.sent
    tolerance = 1e-12 * np.abs(sent).max()
    for run in (first, second):
        np.testing.assert_allclose(run.rounds.sent(), sent, rtol=1e-12, atol=tolerance)
    released = ~np.isnan(first.releases.noise)
    np.testing.assert_array_equal(~np.isnan(second.releases.noise), released)
    moved = second.releases.noise - first.releases.noise
    np.testing.assert_allclose(moved[released], shift[released], rtol=1e-9,
                               atol=tolerance)


def sensitivity(prepared: NetworkCell, first: Run, signals: list[np.ndarray | None],
                agent: int, t: int) -> float:
    """The sensitivity agent i's noise at round t is calibrated to, its scale over the
    calibration's factor: w·S_i, or max(w_t a_i(t), w·S_i) under Network DP (w: η for
    Rizk et al., else 1; w_t: the round's weight on a_i)."""
    dynamics, config = prepared.dynamics, prepared.config
    s = signals[0 if dynamics.offline else t]
    network = dynamics.neighbour_weight(t) * neighbour_weight(first.weights[max(t, 1) - 1],
                                                              prepared.network.n)
    calibration = config.calibration_at(config.epsilon)
    scale = calibration.scale(s, network, dynamics.signal_weight())
    return float(scale[agent, 0] / calibration.factor)


def assert_links_fail(prepared: NetworkCell, weights: list[Any], replicates: int) -> None:
    """Appendix C.1's graph varies: at every round some links fail, and at some round an
    agent has lost all of its own."""
    n, edges = prepared.network.n, prepared.network.n_edges
    for w in weights:  # the diagonal and both directions of every kept edge
        assert sparse(w).nnz < replicates * (n + 2 * edges), "no link failed"
    assert any((neighbour_weight(w, n) == 0).any() for w in weights), "no agent isolated"


def picks(prepared: NetworkCell, first: Run, t: int) -> list[int]:
    """Agents 7, 60, 150 and 299, and the first agent at round t of each kind the cell
    has: capped and uncapped budgets (App. C.3), clipped and unclipped signals (a
    floor), an agent whose links all failed (App. C.1), one whose a_i(t) is above and
    one whose is below the signal's part of the sensitivity (Network DP)."""
    kinds: dict[str, int] = {}
    for agent in range(prepared.network.n):
        for kind in agent_kinds(prepared, first, agent, t):
            kinds.setdefault(kind, agent)
    return sorted({7, 60, 150, 299, *kinds.values()})


def agent_kinds(prepared: NetworkCell, first: Run, agent: int, t: int) -> set[str]:
    """The paths agent i's release at round t takes, among those the cell has."""
    config, dynamics, calibration = prepared.config, prepared.dynamics, prepared.calibration
    signals = first.rounds.signals[0 if dynamics.offline else t]
    a_i = neighbour_weight(first.weights[max(t, 1) - 1], prepared.network.n)
    a = a_i[agent, 0]
    out = set()
    if config.budgets != "homogeneous":
        budgets = calibration.budgets(signals, dynamics.neighbour_weight(t) * a_i,
                                      dynamics.signal_weight())
        capped = budgets[agent, 0] == config.budget_cap * config.epsilon
        out.add("capped" if capped else "uncapped")
    if config.signal_floor is not None:
        out.add("clipped" if signals[agent, 0] < config.signal_floor else "unclipped")
    if config.edge_keep is not None:
        out.add("isolated" if a == 0 else "linked")
    if config.privacy == "network" and a > 0 and t > 0:
        signal_part = dynamics.signal_weight() * config.calibration_at(
            config.epsilon).statistic_sensitivity(signals)
        if np.ndim(signal_part):
            signal_part = signal_part[agent, 0]
        out.add("a_i binds" if dynamics.neighbour_weight(t) * a > signal_part
                else "signal binds")
    return out


def expected_kinds(prepared: NetworkCell) -> set[str]:
    config = prepared.config
    expected = set()
    if config.budgets != "homogeneous":
        expected |= {"capped", "uncapped"}
    if config.signal_floor is not None:
        expected |= {"clipped", "unclipped"}
    if config.edge_keep is not None:
        expected |= {"isolated", "linked"}
    if config.privacy == "network" and not prepared.dynamics.offline:
        expected |= {"a_i binds", "signal binds"}
    return expected


#: Signal DP's coupling, in cases where every path occurs: a global Δ and the smooth
#: sensitivity (which moves the agent's declared scale with its signal), Gaussian noise,
#: per-agent budgets (capped and uncapped agents), a floor (clipped and unclipped
#: signals), failing links (agents losing all theirs), and every method's release: x_0
#: (MVUE), the noisy signals of Algs 4 and 5, Rizk et al.'s η ξ + d on the online task
#: and on the offline one (whose one signal enters every round's release).
SIGNAL_CASES = [
    dict(method="mvue", signal="gaussian"),
    dict(method="mvue", **FAILING),
    dict(method="ol", signal="gaussian", noise="gaussian"),
    dict(method="ol", budgets="waterfilling", budget_cap=2.0),  # the cap binds
    dict(method="ol", signal_floor=2.0),
    dict(method="ol", **FAILING),
    dict(method="ol_alg5"),
    dict(method="rizk_ol", signal="gaussian"),
    dict(method="rizk"),
]


def coupling_reference(privacy: str, options: dict[str, Any]) -> tuple[Any, Any, float]:
    """A coupling's cell, its unmoved run (its links asserted to fail where they may),
    and the signal's step (Δ, or 1 for log-normal signals)."""
    prepared = cell(privacy=privacy, **options)
    first = reference(prepared)
    if prepared.config.edge_keep is not None:
        assert_links_fail(prepared, first.weights, 1)
    return prepared, first, prepared.config.sensitivity or 1.0


@pytest.mark.parametrize("options", SIGNAL_CASES,
                         ids=lambda o: "-".join(map(str, o.values())))
def test_what_others_see_depends_on_a_signal_only_through_its_release(
        options: dict[str, Any]) -> None:
    """Signal DP's coupling: an agent's signal moved by its step (Δ, or 1 for log-normal
    signals) at round 1, 3 or T (the offline methods' only signal, at round 0), and the
    run handed every release of the unmoved one. Every message of every agent at every
    round is identical, bit for bit, and the noise the agent's release implies moves by
    r_t Δξ (x_0: Δξ) at each round its signal enters, within the sensitivity the noise
    pays for (a global Δ). At least 4 agents a round, and one of each kind of
    :func:`picks` (each kind asserted to occur)."""
    prepared, first, step = coupling_reference("signal", options)
    dynamics, config = prepared.dynamics, prepared.config
    statistic = _signal_draws(config)[1]
    seen: set[str] = set()
    for t in [0] if dynamics.offline else [1, 3, config.rounds]:
        for agent in picks(prepared, first, t):
            signals = moved_signals(first, dynamics.offline, agent, t, step)
            second = coupled(prepared, first, signals, first.weights)
            moved = (statistic(signals[t]) - statistic(first.rounds.signals[t]))[agent, 0]
            shift = np.zeros_like(first.releases.noise)
            # The rounds whose release the signal enters (round 0 where x_0 is one).
            for u in range(len(shift)):
                if dynamics.offline or u == t:
                    shift[u, agent] = -(1.0 if u == 0 else dynamics.coefficients(u)[2]) * moved
            assert_the_same_messages(first, second, shift)
            kinds = agent_kinds(prepared, first, agent, t)
            # A clipped signal may stay below the floor: then nothing moves.
            assert moved != 0.0 or "clipped" in kinds
            if config.signal == "gaussian":
                g = 1.0 if t == 0 else dynamics.coefficients(t)[3]
                assert abs(shift[t, agent, 0]) / g <= sensitivity(
                    prepared, first, first.rounds.signals, agent, t) * (1 + 1e-9)
            seen |= kinds
    assert seen >= expected_kinds(prepared), seen


#: Network DP's coupling (Sec. 2.3: agent i's signal and its neighbours' estimates at L1
#: distance <= 1): Alg. 5 on failing links with Δ = 0.2 (a_i(t) above and below it, and
#: agents with no link), Alg. 4's weights (the round's weight t − 1 on a_i: the signal's
#: part binds early, a_i later), Rizk et al. (η ξ + d) and MVUE's x_0 (no neighbour
#: estimate yet at round 0: its signal only).
NETWORK_CASES = [
    dict(method="ol", **FAILING),
    dict(method="ol", signal="gaussian", noise="gaussian", sensitivity=0.2),
    dict(method="ol_alg4", signal="gaussian"),
    dict(method="rizk_ol", signal="gaussian", sensitivity=300.0),  # η Δ = 0.3
    dict(method="mvue", signal="gaussian"),
]
#: Moves of L1 size 1, as (fraction λ of the signal's step, moves of the first
#: neighbours' estimates): the signal alone, two neighbours, both (in opposite ways).
MOVES = [(1.0, ()), (0.0, (0.5, 0.5)), (0.3, (-0.7,))]


@pytest.mark.parametrize("options", NETWORK_CASES,
                         ids=lambda o: "-".join(map(str, o.values())))
def test_what_others_see_depends_on_a_neighbourhood_only_through_its_release(
        options: dict[str, Any]) -> None:
    """Network DP's coupling: agent i's signal moved by λ of its step and its reading of
    two neighbours' estimates ν_{j,t−1} by δ_j, λ + Σ|δ_j| = 1 (:data:`MOVES`; the
    signal alone where the agent has no neighbour, or at round 0), at round 2, 5 or T
    (MVUE: round 0), and the run handed every release of the unmoved one. Every message
    of every agent at every round is identical, bit for bit; the noise the release
    implies moves by r_t λΔξ + q_t Σ_j a_ij δ_j, within max(w_t a_i(t), w Δ). At least 4
    agents a round, and one of each kind of :func:`picks` (each asserted to occur)."""
    prepared, first, step = coupling_reference("network", options)
    dynamics, config = prepared.dynamics, prepared.config
    seen: set[str] = set()
    for t in [0] if dynamics.offline else [2, 5, config.rounds]:
        _, q, r, g = dynamics.coefficients(t) if t else (0.0, 0.0, 1.0, 1.0)
        for agent in picks(prepared, first, t):
            heard = sorted(neighbours(first.weights[t - 1], agent)) if t else []
            for share, deltas in MOVES if heard else MOVES[:1]:
                moves = dict(zip(heard[:2], deltas, strict=False))
                signals = moved_signals(first, dynamics.offline, agent, t, share * step)
                weights = move_reading(first, agent, t, moves) if t else first.weights
                second = coupled(prepared, first, signals, weights)
                a = neighbours(first.weights[t - 1], agent) if t else {}
                # The move of the release's noiseless part, r_t ξ + q_t (Aν)_i.
                change = r * share * step + q * sum(a[j] * d for j, d in moves.items())
                shift = np.zeros_like(first.releases.noise)
                shift[t, agent] = -change
                assert_the_same_messages(first, second, shift)
                assert abs(change) > 1e-6
                assert abs(change) / g <= sensitivity(
                    prepared, first, first.rounds.signals, agent, t) * (1 + 1e-9)
            seen |= agent_kinds(prepared, first, agent, t)
    assert seen >= expected_kinds(prepared), seen


#: Where nothing is released, the same moves are seen: MVUE under Network DP noises x_0
#: only (Cor. 3.2), so from round 1 on its messages carry the neighbours' estimates in
#: the clear; Signal DP does not cover them (they reach the message outside the
#: mechanism); the ablation without Alg. 3's initial noise and Rizk et al. started at
#: the signal send x_0 = ξ(s) in the clear.
SEEN_CASES = [
    (dict(method="mvue", privacy="network"), "neighbours", 3),
    (dict(method="ol", privacy="signal"), "neighbours", 3),
    (dict(method="mvue_fresh_noise", privacy="signal"), "signal", 0),
    (dict(method="rizk", privacy="signal", rizk_start="signal"), "signal", 0),
]


@pytest.mark.parametrize(("options", "what", "t"), SEEN_CASES,
                         ids=lambda o: "-".join(map(str, o.values())) if isinstance(
                             o, dict) else str(o))
def test_what_is_not_released_is_seen(options: dict[str, Any], what: str, t: int) -> None:
    """The same coupling where no mechanism covers the move: handed every release, the
    run still sends other messages, first at the moved round and agent."""
    prepared = cell(signal="gaussian", **options)
    first, agent = reference(prepared), 7
    if what == "signal":
        signals = moved_signals(first, True, agent, 0, 1.0)
        weights = first.weights
    else:
        signals = first.rounds.signals
        weights = move_reading(first, agent, t, {min(neighbours(first.weights[t - 1],
                                                                agent)): 1.0})
    second = coupled(prepared, first, signals, weights)
    differ = np.nonzero((second.releases.sent != first.releases.sent).any(axis=(1, 2)))[0]
    assert differ.size and differ[0] == t
    assert second.releases.sent[t, agent, 0] != first.releases.sent[t, agent, 0]
