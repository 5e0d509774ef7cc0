"""A cell's replicates as rows, and the Python API that runs given graphs and samples.

One replicate: its graph (unless the cell fixes one), its agents' classes, then
t_max steps of the method and its baselines on the same samples. Each replicate's seed
is split into four streams (graph, classes, samples, release noise), so that a
replicate's rows do not depend on which other replicates run with it; the method and
its baselines run on the same samples, so that their rows are paired run by run.

Samples are drawn in numpy, a block of steps at a time (about 2²² values), and the
compiled kernels (:mod:`.kernel`) advance the state over the block; rows are recorded at
the checkpoints. :func:`trajectories` takes the graph, classes and samples (and release
noises) as arrays and returns every agent's values at every step, to compare with an
independent implementation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..components import tree
from ..components.noise import STAIRCASE, draw_unit, variance_factor
from ..components.normals import draw_scaled
from ..threads import kernel_threads
from . import graph as graphs
from . import kernel
from .config import DecentralizedConfig
from .privacy import sigma_dp

#: Values drawn per block of steps (samples, and noises if private).
BLOCK_VALUES = 1 << 22
ESTIMATORS = ("estimate", "local", "oracle", "ideal")
#: Above this many agents (two chunks of C-ColME's loop over agents) a step's agents
#: run on the threads the task may use (:func:`sweep.threads.kernel_threads`); below,
#: starting them costs more than they save. The results are the same either way.
PARALLEL_ABOVE = kernel.CHUNK_AGENTS
#: Above this many agents the kernels ask the memory ahead for the neighbours' records
#: they are about to read (below, the records are in cache and the request costs more).
#: The results are the same either way.
PREFETCH_ABOVE = 1 << 13
#: What a structure's unused array fields hold (no noise without privacy, no reverse
#: entries for C-ColME).
EMPTY, EMPTY_INT = np.empty((0, 0)), np.empty(0, dtype=np.int64)
#: C-ColME drops its dead entries once they are over this fraction of the live ones
#: (:meth:`Run._drop_dead_entries`).
DEAD_FRACTION = 1 / 16
MECHANISM_CODES = {"none": kernel.NO_MECHANISM, "pm1": kernel.PM1, "pm2": kernel.PM2}


def row_methods(config: DecentralizedConfig) -> dict[str, str]:
    """The ``method`` column of each estimator the cell records."""
    names = {"estimate": config.method}
    for baseline in config.baselines:
        names[baseline] = f"{config.method}_oracle" if baseline == "oracle" else baseline
    return names


class Run:
    """The state of one replicate: the graph, the classes and the arrays the kernels
    advance (double-buffered by step parity)."""

    def __init__(self, config: DecentralizedConfig, graph: graphs.Graph, classes: np.ndarray,
                 given: bool = False):
        F = config.dtype
        self.config, self.graph, self.F = config, graph, F
        n, entries = graph.n, graph.n_entries
        self.classes = np.asarray(classes, dtype=np.int64)
        self.means = np.asarray(config.class_means, dtype=F)[self.classes]
        self.mechanism = MECHANISM_CODES[config.privacy.mechanism]
        self.private = self.mechanism != kernel.NO_MECHANISM
        # With ``given``, the "noises" handed to :meth:`start` and :meth:`advance` are the
        # releases themselves (kernel.GIVEN); everything else is the mechanism's.
        self.release_mode = kernel.GIVEN if given else self.mechanism
        self.same = (self.classes[graph.sources()] == self.classes[graph.indices]).astype(
            np.uint8)
        self._kept = np.ones(entries, dtype=np.uint8)
        # C-ColME's graph entry of each live entry, once it has dropped some.
        self.live_entry: np.ndarray | None = None
        self.x = np.zeros((2, n), dtype=F)
        self.noise_sum = np.zeros(n if self.mechanism == kernel.PM1 else 0)
        levels = tree.depth(config.t_max) if self.mechanism == kernel.PM2 else 0
        self.levels = np.zeros((levels, n))  # PM-II: level-major (all agents share the steps)
        self.counters = np.zeros(kernel.N_COUNTERS, dtype=np.int64)
        self.counters[kernel.WRONG] = entries - int(self.same.sum())
        self.counters[kernel.LEARNT] = self.counters[kernel.WRONG] == 0
        self.estimate = np.zeros(n, dtype=F)
        self.oracle = np.zeros(n, dtype=F)
        # Per-step constants; the radius's γ = failure_probability/(4 × directed entries),
        # the reference's (its δ).
        n_collab = 4 * entries
        failure = config.decision.failure_probability
        noise_bound = np.zeros(config.t_max + 1)
        if self.private:
            noise_bound = kernel.noise_radius(config.t_max, self.mechanism,
                                              config.privacy.noise, sigma_dp(config),
                                              failure / n_collab, config.release_budget()[0])
        keep_f, new_f, beta = (np.empty(config.t_max + 1, dtype=F) for _ in range(3))
        kernel.step_tables(F, config.data_bound(), failure, n_collab, noise_bound, keep_f,
                           new_f, beta)
        recip = np.empty(0, dtype=F)
        self.with_oracle = "oracle" in config.baselines
        method = config.method
        if method == "c_colme":
            degrees = graph.degrees()
            self.node = np.zeros((2, n, kernel.C_FIELDS), dtype=F)
            self.t0 = np.zeros(n, dtype=np.int64)
            self.self_weights = np.zeros(n, dtype=F)  # the last step's w_aa (kernel)
            recip = F(1.0) / (F(1.0) + np.arange(degrees.max(initial=0) + 1, dtype=F))
            self.oracle_weight = np.zeros(entries, dtype=F)
            self.oracle_self = np.zeros(n, dtype=F)
            self.has_oracle = np.zeros(n, dtype=np.bool_)
            kernel.oracle_weights(F, graph.indptr, graph.indices, self.same,
                                  self.oracle_weight, self.oracle_self, self.has_oracle)
            # The entries the steps visit (:meth:`_drop_dead_entries`): all of them, until
            # some can no longer change a value.
            self.live = kernel.Links(graph.indptr, graph.indices, EMPTY_INT, self.same,
                                     self._kept)
            self.live_oracle_weight = self.oracle_weight
            self.live_other = int(self.counters[kernel.WRONG])  # live entries to another class
        elif method == "b_colme":
            depth = config.depth
            # Its counts, stored next to its sums, use an integer view of the same memory.
            integer = np.int32 if F == np.float32 else np.int64
            self.release_buffer = np.zeros((2, n), dtype=F)
            self.message_int = np.zeros((2, entries, 2 * depth), dtype=integer)
            # The oracle runs on the same-class subgraph (its messages never cross classes);
            # without it, on no entry.
            chosen = self.same.astype(bool) & self.with_oracle
            self.oracle_graph = graphs.from_entries(n, graph.sources()[chosen],
                                                    graph.indices[chosen])
            oracle_entries = self.oracle_graph.n_entries
            self.oracle_use = np.ones(oracle_entries, dtype=np.uint8)
            self.oracle_message_int = np.zeros((2, oracle_entries, 2 * depth), dtype=integer)
            self.message = self.message_int.view(F)
            self.oracle_message = self.oracle_message_int.view(F)
        self.tables = kernel.Tables(keep_f, new_f, beta, recip)
        self.components: tuple[int, np.ndarray] | None = None
        self.it = -1
        self.parallel = (config.method == "c_colme" and n > PARALLEL_ABOVE
                         and kernel_threads() > 1)

    def start(self, samples: np.ndarray, fresh: np.ndarray | None) -> None:
        """Step 0: every agent has its first sample (and releases it)."""
        F = self.F
        self.x[0] = samples
        release = self.x[0]
        if self.private:
            if self.mechanism == kernel.PM1:
                self.noise_sum[:] = fresh
            else:
                self.levels[0] = fresh
            release = (fresh if self.release_mode == kernel.GIVEN
                       else self.x[0] + fresh.astype(F)).astype(F)
        method = self.config.method
        if method == "c_colme":
            for field in (kernel.C_RELEASE, kernel.C_Y, kernel.C_ORACLE):
                self.node[0, :, field] = release
            self.node[0, :, kernel.C_WEIGHT] = self.tables.recip[self.graph.degrees()]
        elif method == "b_colme":
            # Step 0's messages: the releases alone (every row is still empty).
            self.release_buffer[0] = release
            self.message[0, :, 0] = release[self.graph.sources()]
            self.oracle_message[0, :, 0] = release[self.oracle_graph.sources()]
            depth = self.config.depth
            self.message_int[0, :, depth] = 1
            self.oracle_message_int[0, :, depth] = 1
        self.estimate[:] = self.x[0]
        self.oracle[:] = self.x[0]
        self.it = 0

    def advance(self, samples: np.ndarray, fresh: np.ndarray, record: bool) -> None:
        """Steps it + 1 .. it + len(samples); with ``record``, the estimates of the last."""
        F, g, c = self.F, self.graph, self.config
        it0, it1 = self.it + 1, self.it + 1 + len(samples)
        irrevocable = bool(c.decision.irrevocable)
        segment = kernel.Segment(it0, it1, samples, EMPTY if fresh is None else fresh)
        flags = kernel.Flags(self.release_mode, c.alpha_reset == "global", irrevocable,
                             record, g.n > PREFETCH_ABOVE, self.parallel,
                             (0,) * c.depth if c.method == "b_colme" else ())
        noise = kernel.Noise(self.noise_sum, self.levels)
        if c.method == "c_colme":
            kernel.c_colme_steps(
                F, segment, flags, self.live, noise, self.tables,
                kernel.CState(self.x, self.node, self.t0, self.counters, self.estimate,
                              self.oracle, self.self_weights),
                kernel.COracle(self.live_oracle_weight, self.oracle_self, self.has_oracle))
            if irrevocable:
                self._drop_dead_entries()
        elif c.method == "b_colme":
            o = self.oracle_graph
            kernel.b_colme_steps(
                F, segment, flags, kernel.Links(g.indptr, g.indices, g.reverse, self.same,
                                                self._kept),
                noise, self.tables,
                kernel.BState(self.x, self.release_buffer, self.counters,
                              kernel.Messages(self.message, self.message_int),
                              self.estimate, self.oracle),
                kernel.BOracle(kernel.Links(o.indptr, o.indices, o.reverse, self.oracle_use,
                                            self.oracle_use),
                               kernel.Messages(self.oracle_message, self.oracle_message_int),
                               self.with_oracle))
        else:
            kernel.local_steps(F, segment, self.x, self.tables)
        self.it = it1 - 1
        if record and c.method == "local":
            self.estimate[:] = self.local

    def _drop_dead_entries(self) -> None:
        """Drop from C-ColME's live entries, under irrevocable exclusions, those that can
        no longer change a value: excluded ones (never tested again) to another class
        (the oracle's weight 0). Their only part in a step was adding 0 × y to the
        oracle's sum, which changes no bit (but a −0 sum's sign, for a sum of exact
        zeros), so the values are the same; what changes is the work: with two classes,
        about half of the entries once the tests have learnt. Done when the dead ones
        are over :data:`DEAD_FRACTION` of the live ones (a pass over them, like about a
        step's work)."""
        dead = self.live_other - int(self.counters[kernel.WRONG])
        live = self.live
        if dead <= DEAD_FRACTION * len(live.indices):
            return
        keep = (live.kept | live.same).view(np.bool_)
        ends = np.concatenate(([0], np.cumsum(keep)))
        self.live = kernel.Links(ends[live.indptr], live.indices[keep], EMPTY_INT,
                                 live.same[keep], live.kept[keep])
        self.live_oracle_weight = self.live_oracle_weight[keep]
        self.live_entry = (np.flatnonzero(keep) if self.live_entry is None
                           else self.live_entry[keep])
        self.live_other -= dead

    @property
    def kept(self) -> np.ndarray:
        """The kept flag of every entry of the graph."""
        if self.live_entry is not None:
            self._kept[:] = 0  # a dropped entry was excluded
            self._kept[self.live_entry] = self.live.kept
        return self._kept

    @property
    def local(self) -> np.ndarray:
        return self.x[self.it & 1]

    @property
    def release(self) -> np.ndarray:
        """The agents' latest releases (their local means without privacy)."""
        if not self.private:
            return self.local
        if self.config.method == "c_colme":
            return self.node[self.it & 1, :, kernel.C_RELEASE]
        return self.release_buffer[self.it & 1]

    def ideal(self) -> np.ndarray:
        """The mean of the local means over each agent's same-class component."""
        if self.components is None:
            self.components = self.graph.n_components(self.same.astype(bool))
        count, labels = self.components
        return kernel.component_means(self.local, labels, count)

    def values(self, estimator: str) -> np.ndarray:
        if estimator == "estimate":
            return self.estimate
        if estimator == "local":
            return self.local
        if estimator == "oracle":
            return self.oracle
        return self.ideal()


class Draws:
    """Samples and release noises of one replicate, a block of steps at a time."""

    def __init__(self, config: DecentralizedConfig, classes: np.ndarray,
                 samples: np.random.Generator, noise: np.random.Generator):
        F = config.dtype
        self.config, self.F = config, F
        self.samples, self.noise = samples, noise
        means = np.asarray(config.class_means, dtype=np.float64)[classes]
        self.n = len(classes)
        if config.samples != "bernoulli":  # σ for Gaussian samples, √3 σ for uniform ones
            self.mean, self.scale = means.astype(F), F(config.data_bound())
        else:
            self.mean, self.scale = means, None
        self.sigma_dp = sigma_dp(config)
        self.epsilon = config.release_budget()[0]  # a p-sum's: the staircase's shape

    def draw(self, steps: int) -> tuple[np.ndarray, np.ndarray]:
        shape = (steps, self.n)
        c, F = self.config, self.F
        if c.samples == "gaussian" and F == np.float32:
            # As the reference: F(z σ) + μ; numpy's draws, scaled and shifted in one pass.
            values = draw_scaled(self.samples, shape, self.scale, self.mean)
        elif c.samples == "gaussian":
            values = self.samples.standard_normal(shape, dtype=F)
            values *= self.scale
            values += self.mean
        elif c.samples == "uniform":
            values = ((2.0 * self.samples.random(shape, dtype=F) - F(1.0)) * self.scale
                      + self.mean).astype(F, copy=False)
        else:
            values = (self.samples.random(shape) < self.mean).astype(F)
        if c.privacy.mechanism == "none":
            return values, values[:0]
        if c.privacy.noise == "gaussian":
            fresh = self.noise.standard_normal(shape)
            fresh *= self.sigma_dp
        elif c.privacy.noise == "staircase":  # in units of Δ/ε (sweep.components.noise)
            fresh = draw_unit(self.noise, STAIRCASE, shape, self.epsilon)
            fresh *= self.sigma_dp / math.sqrt(variance_factor(STAIRCASE, self.epsilon))
        else:
            fresh = self.noise.laplace(0.0, self.sigma_dp / np.sqrt(2.0), shape)
        return values, fresh


def simulate(run: Run, draw: Callable[[int], tuple[np.ndarray, np.ndarray]],
             times: np.ndarray, observe: Callable[[int, Run], None]) -> None:
    """Advance ``run`` to t_max, calling ``observe(t, run)`` at each of ``times`` (steps
    t = samples per agent, 1..t_max)."""
    t_max = run.config.t_max
    block = max(1, BLOCK_VALUES // run.graph.n)
    wanted = set(int(t) for t in times)
    samples, fresh = draw(1)
    run.start(samples[0], fresh[0] if len(fresh) else None)
    if 1 in wanted:
        observe(1, run)
    ends = []  # the step each block of steps ends at
    t = 1
    for stop in sorted({t for t in wanted if t > 1} | {t_max} - {1}):
        while t < stop:
            t = min(t + block, stop)
            ends.append(t)
    sizes = np.diff([1, *ends]).tolist()
    for t, (samples, fresh) in zip(ends, _blocks(draw, sizes, run.parallel), strict=True):
        run.advance(samples, fresh, record=t in wanted)
        if t in wanted:
            observe(t, run)


def _blocks(draw: Callable[[int], tuple[np.ndarray, np.ndarray]], sizes: list[int],
            ahead: bool) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``draw(size)`` for each of ``sizes``, in order. With ``ahead`` (a replicate that
    has the machine's cores), each block is drawn on a thread while the kernels advance
    the one before: numpy's draws and C-ColME's steps leave the GIL, and at a million agents
    the serial draws were about a sixth of the run. The calls are the same, in the same
    order, so are the values."""
    if not ahead:
        for size in sizes:
            yield draw(size)
        return
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(draw, sizes[0]) if sizes else None
        for size in sizes[1:]:
            drawn = pending.result()
            pending = pool.submit(draw, size)
            yield drawn
        if pending is not None:
            yield pending.result()


def replicate_rows(config: DecentralizedConfig, seed: np.random.SeedSequence,
                   fixed_graph: graphs.Graph | None) -> np.ndarray:
    """Metrics of one replicate: (estimators, checkpoints, 4) with columns mse, within,
    wrong links, lost links (NaN for the baselines)."""
    graph_seed, class_seed, sample_seed, noise_seed = seed.spawn(4)
    graph = fixed_graph if fixed_graph is not None else graphs.build(
        config.graph, np.random.default_rng(graph_seed))
    classes = np.random.default_rng(class_seed).choice(
        len(config.class_means), size=graph.n, p=np.asarray(config.class_proportions))
    run = Run(config, graph, classes)
    draws = Draws(config, classes, np.random.default_rng(sample_seed),
                  np.random.default_rng(noise_seed))
    times = config.checkpoint_times()
    estimators = list(row_methods(config))
    out = np.full((len(estimators), len(times), 4), np.nan)
    column = {int(t): i for i, t in enumerate(times)}

    def observe(t: int, state: Run) -> None:
        i = column[t]
        for j, name in enumerate(estimators):
            out[j, i, :2] = kernel.score(state.F, state.values(name), state.means,
                                         config.accuracy)
        out[0, i, 2] = state.counters[kernel.WRONG]
        out[0, i, 3] = state.counters[kernel.LOST]

    simulate(run, draws.draw, times, observe)
    return out


def columns(config: DecentralizedConfig, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], fixed_graph: graphs.Graph | None
            ) -> dict[str, np.ndarray]:
    """The rows of the given replicates as column arrays (the family's schema)."""
    times = config.checkpoint_times()
    methods = np.array(list(row_methods(config).values()), dtype=object)
    blocks = [replicate_rows(config, seed, fixed_graph) for seed in seeds]
    count, per = len(times), len(methods)
    metrics = (np.stack(blocks) if blocks else np.zeros((0, per, count, 4))).reshape(-1, 4)
    replicates = len(blocks)
    return {
        "method": np.tile(np.repeat(methods, count), replicates),
        "source": np.full(replicates * per * count, "simulated", dtype=object),
        "replicate": np.repeat(np.asarray(replicate_ids, dtype=np.int64), per * count),
        "t": np.tile(times, replicates * per),
        "mse": metrics[:, 0],
        "within": metrics[:, 1],
        "wrong_links": metrics[:, 2],
        "lost_links": metrics[:, 3],
    }


@dataclass(frozen=True)
class Trajectories:
    """Every agent's values at every step t = 1..t_max (rows t − 1): its local mean, its
    release, its estimate and its oracle; and the wrong and lost directed links."""

    local: np.ndarray
    release: np.ndarray
    estimate: np.ndarray
    oracle: np.ndarray
    wrong: np.ndarray
    lost: np.ndarray
    kept: np.ndarray  # the kept flags of every entry after the last step


def trajectories(config: DecentralizedConfig, graph: graphs.Graph | Sequence[Sequence[int]],
                 classes: Any, samples: Any, fresh: Any = None,
                 released: Any = None) -> Trajectories:
    """Run ``config``'s method on a given graph (a :class:`Graph` or adjacency lists,
    whose row order sets the order of sums), classes (N), samples (t_max × N, in
    ``config.precision``) and, with privacy, the fresh p-sum noises (t_max × N, already
    scaled: N(0, σ_DP²) or Laplace(σ_DP/√2) values).

    ``released`` (t_max × N, in place of ``fresh``) hands in every agent's releases
    instead: the run is that of noises z' that make the releases these values exactly,
    the coupling of a privacy proof (two neighbouring sample sets, the same releases).
    """
    if not isinstance(graph, graphs.Graph):
        graph = graphs.from_lists(graph)
    samples = np.ascontiguousarray(samples, dtype=config.dtype)
    t_max = config.t_max
    if samples.shape != (t_max, graph.n):
        raise ValueError(f"samples: need shape (t_max, n) = {(t_max, graph.n)}; got "
                         f"{samples.shape}")
    if released is not None:
        if fresh is not None or config.privacy.mechanism == "none":
            raise ValueError("released: needs a mechanism, and replaces fresh")
        fresh = released
    fresh = (np.zeros((t_max, 0)) if fresh is None
             else np.ascontiguousarray(fresh, dtype=np.float64))
    run = Run(config, graph, np.asarray(classes), given=released is not None)
    shape = (t_max, graph.n)
    out = {name: np.empty(shape, dtype=config.dtype)
           for name in ("local", "release", "estimate", "oracle")}
    counts = np.zeros((2, t_max), dtype=np.int64)
    position = [0]

    def draw(steps: int) -> tuple[np.ndarray, np.ndarray]:
        start = position[0]
        position[0] += steps
        return samples[start:start + steps], fresh[start:start + steps]

    def observe(t: int, state: Run) -> None:
        out["local"][t - 1] = state.local
        out["release"][t - 1] = state.release
        out["estimate"][t - 1] = state.estimate
        out["oracle"][t - 1] = state.oracle
        counts[:, t - 1] = state.counters[[kernel.WRONG, kernel.LOST]]

    simulate(run, draw, np.arange(1, t_max + 1), observe)
    return Trajectories(**out, wrong=counts[0], lost=counts[1], kept=run.kept.copy())


__all__ = ["ESTIMATORS", "Draws", "Run", "Trajectories", "columns", "replicate_rows",
           "row_methods", "simulate", "trajectories"]
