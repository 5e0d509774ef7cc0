"""A validated inference cell (data, sensitivity, K and T) and the runs of its method.

:func:`prepare` builds a :class:`Shared` from a configuration: the graph, the Cox model's
per-centre log-likelihoods over Θ (computed once, shared by every replicate), the
sensitivity Δ, the rounds K and iterations T and the noise scale. :func:`run` simulates
replicates and returns, per method, arrays of the metrics at the checkpoints, which
:mod:`sweep.inference.family` lays out as rows.

Random streams: a replicate's signals (synthetic models) and its Cox patients' arrival
order (online learning) come from the root seed and the data options only, so every
method and ε of a sweep sees the same data (common random numbers); the DP noise comes
from the cell's stream.

Preparing reads the data and builds the graph; the compiled belief kernels, scipy.stats
and the Sec. 2 toy are imported by the runs that use them, so a dry run needs none.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..components import graphs
from ..components.calibration import unit_noise_variance
from ..errors import ConfigError
from ..options import TAIL, check_magnitude, data_key, magnitude_limit
from . import survival
from .config import ARMS, LIKELIHOOD_TERMS, MLE_METHODS, SURVIVAL, InferenceConfig
from .models import (
    bernoulli_loglik,
    gaussian_loglik,
    kl_rates,
    mle_set,
    normalized_log,
    signal_sensitivity,
)
from .parameters import (
    belief_threshold,
    counting_probabilities,
    online_iterations,
    slem,
    theorem_iterations,
    theorem_rounds,
)

#: Rounds of a Cox model's online run when ``iterations`` is not given: Thm 4.7 needs a
#: stream of signals with a rate, and a trial's patients are a finite set, split evenly
#: over the rounds (Sec. 14.1 "splitting the data evenly among these days").
COX_ONLINE_ROUNDS = 20
#: The options that define a replicate's data (common random numbers).
DATA = ("model.kind", "model.states", "model.truth", "model.sigma", "model.samples",
        "model.rate", "model.bound_x", "dataset.kind", "dataset.arm", "dataset.csv_path",
        "dataset.split", "dataset.split_seed", "dataset.patients")


@dataclass(frozen=True)
class Shared:
    """What every replicate of a cell shares (:func:`prepare`; the family's prepared cell
    holds it next to the configuration).

    ``loglik`` is the Cox model's (n, |Θ|) per-centre log-likelihoods (None for synthetic
    models, whose signals are drawn per replicate); ``expected`` the (n, |Θ|) expected
    log-likelihoods of synthetic agents (the theorems' constants are evaluated there, so
    that K and T do not vary between replicates). ``star`` is Θ* of those (a mask);
    ``sensitivity`` Δ, ``scale`` the Laplace scale b of each noise draw (the staircase's
    unit, ``noise=staircase``), ``budget`` ε' the privacy budget of one draw (the
    staircase's shape), ``rounds`` K, ``iterations`` T.
    """

    config: InferenceConfig
    spec: graphs.GraphSpec
    matrix: np.ndarray
    states: np.ndarray
    centres: tuple[survival.Patients, ...] | None
    loglik: np.ndarray | None
    expected: np.ndarray
    star: np.ndarray
    sensitivity: float
    scale: float
    budget: float
    rounds: int
    iterations: int
    a_star: float
    b_star: float
    #: The pooled (centralized) log-likelihood per state and its supremum over
    #: [min Θ, max Θ], for the survival models' ``centralized`` method.
    pooled: np.ndarray | None = None
    pooled_sup: float | None = None

    @property
    def n(self) -> int:
        return len(self.matrix)

    @property
    def times(self) -> np.ndarray:
        return self.config.checkpoint_times(self.iterations)

    @property
    def labels(self) -> list[str]:
        """The states as the rows name them."""
        if self.config.method == "test":
            return ["null", "alternative"]
        if self.config.model.kind == "treatments":
            return [ARMS[int(s)] for s in self.states]
        return [f"{s:g}" for s in self.states]


# -- Data --------------------------------------------------------------------------------

def cox_centres(config: InferenceConfig, n: int) -> tuple[survival.Patients, ...]:
    """The patients of each centre: the data set, resampled if asked, split among n
    centres by the generator ``dataset.split_seed``."""
    data, bound = config.dataset, config.model.bound_x
    if data.kind == "actg175":
        patients = survival.Patients.from_arms(survival.actg175(), data.arm)
    else:
        columns = (data.duration_col, data.event_col, data.covariate_col)
        patients = survival.Patients.from_columns(survival.read_csv(data.csv_path, *columns),
                                                  *columns)
        largest = np.abs(patients.covariate).max()
        if largest > bound + 1e-12:
            raise ConfigError(f"model.bound_x: must bound |covariate| (Sec. 12); the column "
                              f"{data.covariate_col!r} reaches {largest:g}; got {bound!r}")
    rng = np.random.default_rng(data.split_seed)
    if data.patients is not None:
        patients = survival.resample(patients, data.patients, rng)
    parts = survival.split(len(patients), n, data.split, rng)
    return tuple(patients.take(part) for part in parts)


def treatment_frames(config: InferenceConfig, n: int) -> list[pd.DataFrame]:
    """ACTG 175's rows (``arms``, ``days``, ``cens``, ...) of ZDV and the treatment arms Θ,
    resampled to ``dataset.patients`` if asked, split among n centres by the generator
    ``dataset.split_seed``: the centres of the best-treatment model."""
    data = config.dataset
    frame = survival.actg175()
    frame = frame[frame["arms"].isin([0, *(int(a) for a in config.model.states)])]
    frame = frame.reset_index(drop=True)
    rng = np.random.default_rng(data.split_seed)
    if data.patients is not None:
        frame = frame.iloc[rng.integers(0, len(frame), data.patients)].reset_index(drop=True)
    return [frame.iloc[part] for part in survival.split(len(frame), n, data.split, rng)]


def treatment_loglik(config: InferenceConfig, n: int
                     ) -> tuple[np.ndarray, np.ndarray, int]:
    """Best-treatment identification (Sec. 5, Fig. 5): centre i scores arm a by its
    generalized likelihood ratio against ZDV, log γ_i(a) = max_{−B_θ <= θ <= 0}
    log ℓ_i,a(θ) − log ℓ_i,a(0), on its patients of the two arms (θ <= 0: the treatment
    improves survival, the composite alternative of Sec. 5), the centres those of
    :func:`treatment_frames`. Returns the (n, |Θ|) scores, the pooled scores and the
    largest number of patients a centre scores an arm on. ZDV itself (arm 0, the authors'
    notebook's fourth state) scores 0: its GLR against itself."""
    model = config.model
    arms = [int(a) for a in model.states]

    def scores(rows: pd.DataFrame) -> tuple[list[float], int]:
        out, largest = [], 0
        for arm in arms:
            if arm == 0:
                out.append(0.0)
                continue
            patients = survival.Patients.from_arms(rows, arm)
            best = survival.profile_maximum(patients, -model.bound_theta, 0.0, model.ties)[1]
            out.append(best - float(survival.partial_loglik(patients, 0.0, model.ties)))
            largest = max(largest, len(patients))
        return out, largest

    frames = treatment_frames(config, n)
    local = [scores(frame) for frame in frames]
    pooled = pd.concat(frames).sort_index()  # the data set's own order
    return (np.array([s for s, _ in local]), np.array(scores(pooled)[0]),
            max(size for _, size in local))


def _expected(config: InferenceConfig, states: np.ndarray, n: int) -> np.ndarray:
    """n × |Θ| expected log-likelihoods of ``samples`` signals from θ° (synthetic)."""
    model = config.model
    m, truth = model.samples or 1, model.truth
    if model.kind == "bernoulli":
        row = m * (truth * np.log(states) + (1 - truth) * np.log1p(-states))
    else:
        row = -m * ((states - truth) ** 2 + model.sigma**2) / (2 * model.sigma**2)
    return np.tile(row, (n, 1))


@functools.lru_cache(maxsize=64)
def _data_key(config: InferenceConfig) -> tuple[int, int]:
    return data_key(config, DATA, n=config.graph.n_nodes)


def data_generator(config: InferenceConfig, seed: np.random.SeedSequence, replicate: int
                   ) -> np.random.Generator:
    """The replicate's data stream: from the root seed, the data options and the replicate
    only (common random numbers across methods and ε)."""
    return np.random.default_rng(np.random.SeedSequence(
        seed.entropy, spawn_key=(*_data_key(config), replicate)))


def synthetic_loglik(config: InferenceConfig, states: np.ndarray, n: int,
                     rng: np.random.Generator) -> np.ndarray:
    """n × |Θ| log-likelihoods of ``samples`` fresh signals per agent from θ°."""
    model = config.model
    m = model.samples
    if model.kind == "bernoulli":
        return bernoulli_loglik(rng.binomial(m, model.truth, n), m, states)
    signals = np.clip(rng.normal(model.truth, model.sigma, (n, m)), -model.bound_x,
                      model.bound_x)
    return gaussian_loglik(signals.sum(axis=1), (signals**2).sum(axis=1), m, states,
                           model.sigma)


#: Rounds of online learning generated at once: a long run's signals and noise are
#: drawn, and consumed, in chunks of this many rounds (memory, not results, depends on it).
CHUNK = 4096


def online_loglik(config: InferenceConfig, cell: Shared, rounds: int,
                  rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The (rounds + 1, n, |Θ|) log-likelihoods of each round's arrivals (0 when none),
    in chunks of at most :data:`CHUNK` rounds, drawn from ``rng`` in order."""
    states, n, model = cell.states, cell.n, config.model
    if model.kind == "cox":
        out = np.zeros((rounds + 1, n, len(states)))
        for i, patients in enumerate(cell.centres):
            if config.arrival_days is not None:
                # By period of the event or censoring time; later periods never arrive.
                period = (patients.duration // config.arrival_days).astype(np.int64)
                patients = patients.take(np.flatnonzero(period <= rounds))
                label = period[period <= rounds]
            else:
                label = np.empty(len(patients), dtype=np.int64)
                for t, batch in enumerate(np.array_split(rng.permutation(len(patients)),
                                                         rounds + 1)):
                    label[batch] = t
            out[:, i] = survival.batch_loglik(patients, label, rounds + 1, states, model.ties)
        yield out
        return
    for first in range(0, rounds + 1, CHUNK):
        counts = rng.poisson(model.rate, (min(CHUNK, rounds + 1 - first), n))
        if model.kind == "bernoulli":
            yield bernoulli_loglik(rng.binomial(counts, model.truth), counts, states)
            continue
        signals = np.clip(rng.normal(model.truth, model.sigma, counts.sum()), -model.bound_x,
                          model.bound_x)
        starts = np.append(0, np.cumsum(counts.ravel())[:-1])
        total = np.add.reduceat(np.append(signals, 0.0), starts)
        squares = np.add.reduceat(np.append(signals**2, 0.0), starts)
        empty = counts.ravel() == 0
        total[empty], squares[empty] = 0.0, 0.0
        yield gaussian_loglik(total.reshape(counts.shape), squares.reshape(counts.shape),
                              counts, states, model.sigma)


# -- Preparation -------------------------------------------------------------------------

def _sensitivity(config: InferenceConfig, states: np.ndarray, largest: int) -> float:
    """Δ of eq. (7): the most one agent's log-likelihood at one state moves between
    neighbouring data sets, for the adjacency ``sensitivity`` names (``largest``: the
    most patients one likelihood is computed on)."""
    if config.method in ("rr", "laplace"):
        from . import toy

        return float(toy.laplace_sensitivity(states[1]))
    model = config.model
    if model.kind in SURVIVAL:
        if config.sensitivity == "printed":
            delta = survival.sec12_sensitivity(model.bound_theta, model.bound_x)
        else:
            # ACTG's covariate is the 0/1 treatment indicator (a neighbour's too): its
            # range is 1, not 2 B_x.
            spread = 1.0 if config.dataset.kind == "actg175" else None
            delta = survival.risk_set_sensitivity(largest, model.bound_theta, model.bound_x,
                                                  spread=spread)
        # A treatment's score is a maximum minus the value at θ = 0: each moves by Δ.
        return 2 * delta if model.kind == "treatments" else delta
    g = float(signal_sensitivity(model.kind, states, model.sigma, model.bound_x).max())
    # Eq. (7) multiplies by n_i: every signal of an agent may change. Online, a round's
    # count is random and unbounded, and each signal enters one round only: one signal.
    if config.sensitivity == "printed" and not config.online:
        return model.samples * g
    return g


def prepare(config: InferenceConfig) -> Shared:
    """The cell of a validated configuration; :class:`ConfigError` if the data or graph
    are unusable (a disconnected graph, more centres than patients, a bad CSV)."""
    spec = config.graph.spec()
    network = graphs.build(spec)
    matrix = network.matrix().toarray()
    n = len(matrix)
    states = np.asarray(config.model.states, dtype=np.float64)
    centres = loglik = pooled = pooled_sup = None
    largest, kind, ties = 0, config.model.kind, config.model.ties
    if kind == "cox":
        centres = cox_centres(config, n)
        loglik = np.stack([survival.partial_loglik(c, states, ties) for c in centres])
        largest = max(len(c) for c in centres)
        if config.method == "centralized":
            everyone = survival.Patients(*(np.concatenate([getattr(c, a) for c in centres])
                                           for a in ("duration", "event", "covariate")))
            pooled = survival.partial_loglik(everyone, states, ties)
            pooled_sup = survival.profile_maximum(everyone, states.min(), states.max(),
                                                  ties)[1]
    elif kind == "treatments":
        loglik, pooled, largest = treatment_loglik(config, n)
    expected = loglik if loglik is not None else _expected(config, states, n)
    a_star, b_star = slem(network.eigenvalues)
    sensitivity = _sensitivity(config, states, largest)
    if config.method == "test":
        expected = _test_loglik(config, states, centres, expected)
    star = mle_set(expected.sum(axis=0))
    base = Shared(config, spec, matrix, states, centres, loglik, expected, star, sensitivity,
                0.0, 0.0, 1, 1, a_star, b_star, pooled, pooled_sup)
    rounds, iterations, scale, budget = _schedule(base)
    # Every scale is proportional to 1/ε: refuse an ε whose draws (within TAIL scales),
    # summed over a run's log-likelihoods, would not stay finite.
    limit = magnitude_limit(LIKELIHOOD_TERMS)
    check_magnitude("epsilon", config.epsilon, TAIL * scale, limit,
                    f"at least {config.epsilon * TAIL * scale / limit:.3g}, the noise's "
                    f"scale being {config.epsilon * scale:.3g}/ε", LIKELIHOOD_TERMS)
    return Shared(config, spec, matrix, states, centres, loglik, expected, star, sensitivity,
                scale, budget, rounds, iterations, a_star, b_star, pooled, pooled_sup)


def _gap(total: np.ndarray, star: np.ndarray) -> float:
    """l_{n,Θ}: the least Λ(θ*) − Λ(θ̄) (0 when every state is an MLE)."""
    if star.all():
        return 0.0
    return float(total[star].min() - total[~star].max())


def _test_loglik(config: InferenceConfig, states: np.ndarray,
                 centres: Sequence[survival.Patients] | None, expected: np.ndarray
                 ) -> np.ndarray:
    """The test's two states (Prop. 4.6, Sec. 10.2), (n, 2): log γ_i(Θ̃₀) = log ℓ_i(θ₀)
    and log γ_i(Θ̃), the supremum over [min Θ, max Θ] (composite) or log ℓ_i(θ₁)
    (simple); of the expected log-likelihoods (on the grid) for synthetic models."""
    if config.test == "simple":
        return expected[:, :2]
    if centres is None:
        return np.column_stack([expected[:, 0], expected.max(axis=1)])
    low, high = states.min(), states.max()
    return np.array([(float(survival.partial_loglik(c, states[0], config.model.ties)),
                      survival.profile_maximum(c, low, high, config.model.ties)[1])
                     for c in centres])


def deviation(kind: str, scale: float, budget: float) -> float:
    """√V[d] of one draw of scale b at budget ε' (the theorems' V_{n,Θ} = Σ_i √V[d_i],
    Thm 4.2): √2 b for Laplace noise, b ε'√V_1(ε') for the staircase."""
    return scale * math.sqrt(unit_noise_variance(kind, budget))


def _schedule(cell: Shared) -> tuple[int, int, float, float]:
    """(K, T, b, ε') for the cell's method: the ``rounds`` and ``iterations`` given, else
    the theorems'; b the Laplace scale of one draw for the K (and, for Rizk et al., the T)
    run and ε' its budget (ε/|Θ| per state and ε/K per round: ε' = ε/(K|Θ|) and
    b = K|Θ|Δ/ε, Thms 4.1–4.5; |Θ|Δ/ε online, Thm 4.7; Δ/ε for Sec. 2's Laplace toy).
    The theorems' T take the noise's standard deviation (:func:`deviation`)."""
    config, n = cell.config, cell.n
    method, size = config.method, len(cell.star)  # the test's two states, or Θ
    mle_states = int(cell.star.sum())
    others = len(cell.star) - mle_states
    total = cell.expected.sum(axis=0)
    largest = float(np.abs(normalized_log(cell.expected)).max())
    p_1, p_2 = counting_probabilities(mle_states, others, "corrected")

    def rounds_of(kind: str, alpha: float = config.alpha, sizes: tuple[int, int] = (
            mle_states, others)) -> int:
        if config.rounds is not None:
            return config.rounds
        return theorem_rounds(kind, *sizes, alpha, config.beta, config.pi_1, config.pi_2,
                              config.round_rule)

    def iterations_of(kind: str, rounds: int, rho: float, alpha: float = config.alpha,
                      noiseless: bool = False) -> int:
        if config.iterations is not None:
            return config.iterations
        spread = 0.0 if noiseless else n * deviation(config.noise, scale_of(rounds),
                                                     budget_of(rounds))
        return theorem_iterations(kind, n, size, _gap(total, cell.star), largest, spread,
                                  cell.a_star, rounds, alpha, config.beta, rho, p_1, p_2)

    def budget_of(rounds: int) -> float:
        return config.epsilon / (rounds * size)

    def scale_of(rounds: int) -> float:
        # Δ/ε', in the order of the paper's K|Θ|Δ/ε (the same bits as before ε' existed).
        return rounds * size * cell.sensitivity / config.epsilon

    if method in ("rr", "centralized"):
        return 1, 1, 0.0, 0.0
    if method == "laplace":
        return 1, 1, cell.sensitivity / config.epsilon, config.epsilon
    if method in ("ol", "private_ol"):
        scale, budget = (scale_of(1), budget_of(1)) if method == "private_ol" else (0.0, 0.0)
        if config.iterations is None and config.arrival_days is not None:
            last = max(float(c.duration.max()) for c in cell.centres)
            return 1, max(1, int(last // config.arrival_days)), scale, budget
        model = config.model
        if config.iterations is not None or model.kind == "cox":
            return 1, config.iterations or COX_ONLINE_ROUNDS, scale, budget
        kl, spread = kl_rates(model.kind, model.truth, cell.states, model.sigma)
        drift = np.delete(kl, int(np.argmin(np.abs(cell.states - model.truth)))).min()
        eta = max(config.alpha, 1.0 - config.beta)
        return 1, online_iterations(n, size, n * model.rate * float(drift),
                                    float(spread.max()),
                                    n * deviation(config.noise, scale, budget), model.rate,
                                    n * model.rate, cell.b_star, eta), scale, budget
    if method == "test":
        # Prop. 4.6: the GM algorithm at type I level α/2 with ϱ^GM = 1 (its proof), on
        # a null and an alternative: |Θ*| = |Θ̄| = 1 whatever the data.
        rounds = rounds_of("gm", config.alpha / 2.0, (1, 1))
        return (rounds, iterations_of("gm", rounds, 1.0, config.alpha / 2.0),
                scale_of(rounds), budget_of(rounds))
    if method == "mle":
        # One noiseless round; its T is Thm 4.2's without noise (V_{n,Θ} = 0).
        return 1, iterations_of("mle", 1, config.rho_gm, noiseless=True), 0.0, 0.0
    if method == "rizk":
        # Sec. 14.4: T "equal to the number of iterations we run our algorithms" (the
        # GM's); Lap(2 B_x B_θ T η/ε) per iteration, each at ε/T.
        rounds = rounds_of("gm")
        iterations = iterations_of("gm", rounds, config.rho_gm)
        return 1, iterations, (2 * config.model.bound_x * config.model.bound_theta * iterations
                               * config.learning_rate / config.epsilon), (config.epsilon
                                                                          / iterations)
    rho = {"am": config.rho_am, "gm": config.rho_gm}.get(method, config.rho_threshold)
    rounds = rounds_of(method)
    return (rounds, iterations_of(method, rounds, rho), scale_of(rounds),
            budget_of(rounds))


# -- Runs --------------------------------------------------------------------------------

#: Per replicate and checkpoint, the metrics a method's run reports (arrays (R, C)), and
#: the agents' average belief per state (R, C, |Θ|).
Metrics = dict[str, np.ndarray]


def _set_metrics(selected: np.ndarray, star: np.ndarray) -> Metrics:
    """Agent averages of the type I error (Θ̂ ⊄ Θ*), type II error (Θ* ⊄ Θ̂) and exact
    recovery; ``selected`` (n, R, |Θ|), ``star`` (R, |Θ|) or (|Θ|,)."""
    extra = (selected & ~star).any(axis=-1)
    missed = (~selected & star).any(axis=-1)
    return {"type_i_error": extra.mean(axis=0), "type_ii_error": missed.mean(axis=0),
            "exact_recovery": (~extra & ~missed).mean(axis=0)}


def _tvd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Agent average of the total variation distance between beliefs (last axis)."""
    return (0.5 * np.abs(p - q).sum(axis=-1)).mean(axis=0)


def _stack(per_time: list[Metrics]) -> Metrics:
    return {k: np.stack([m[k] for m in per_time], axis=-1 if k != "belief" else 1)
            for k in per_time[0]}


def _uniform(star: np.ndarray) -> np.ndarray:
    return star / star.sum(axis=-1, keepdims=True)


def replicate_data(cell: Shared, seeds: Sequence[np.random.SeedSequence],
                   replicate_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(R, n, |Θ|) log-likelihoods of the replicates and their Θ* masks (R, |Θ|)."""
    config = cell.config
    if cell.loglik is not None:
        loglik = np.broadcast_to(cell.loglik, (len(seeds), *cell.loglik.shape))
    else:
        loglik = np.stack([synthetic_loglik(config, cell.states, cell.n,
                                            data_generator(config, s, r))
                           for s, r in zip(seeds, replicate_ids, strict=True)])
    return loglik, mle_set(loglik.sum(axis=1))


def draw_noise(cell: Shared, rng: np.random.Generator, shape: tuple[int, ...]
               ) -> np.ndarray:
    """The cell's noise of ``shape`` from ``rng``: Laplace of scale b, or the staircase
    of budget ε' in the same units (b times the staircase of sensitivity ε'); zeros
    without noise (b = 0)."""
    if cell.scale == 0:
        return np.zeros(shape)
    from ..components.noise import draw_unit, kind_code

    return cell.scale * draw_unit(rng, kind_code(cell.config.noise), shape, cell.budget)


def _noise(cell: Shared, seeds: Sequence[np.random.SeedSequence], shape: tuple[int, ...]
           ) -> np.ndarray:
    """:func:`draw_noise` of ``shape`` per replicate, each from its own noise stream."""
    return np.stack([draw_noise(cell, np.random.default_rng(s), shape) for s in seeds])


def run_mle(cell: Shared, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int]) -> Metrics:
    """Algs 1, 2 and 4: K rounds of T iterations from noisy log-likelihoods, the
    method's aggregate and set at each checkpoint, next to Alg. 4 on the same data."""
    from .beliefs import beliefs, mixing, propagate

    config, method = cell.config, cell.config.method
    loglik, star = replicate_data(cell, seeds, replicate_ids)
    noise = _noise(cell, seeds, (cell.rounds, cell.n, len(cell.states)))
    noisy = loglik[:, None] + noise  # (R, K, n, |Θ|)
    # One block: the private rounds and, last, the noiseless run of Alg. 4.
    initial = np.concatenate([noisy, loglik[:, None]], axis=1).transpose(2, 0, 1, 3)
    truth = _uniform(star)
    out = []
    for t, scaled in propagate(mixing(cell.matrix), np.ascontiguousarray(initial),
                               cell.times):
        private, plain = scaled[:, :, :-1], scaled[:, :, -1]
        reference = beliefs(plain, t)
        if method == "mle":
            belief = reference
            selected = belief >= belief_threshold(config.rho_gm)
        elif method == "gm":
            belief = beliefs(private.mean(axis=2), t)
            selected = belief >= belief_threshold(config.rho_gm)
        elif method == "am":
            belief = beliefs(private, t).mean(axis=2)
            selected = belief >= belief_threshold(config.rho_am)
        else:
            frequency = (beliefs(private, t) > belief_threshold(config.rho_threshold)).mean(
                axis=2)
            selected = frequency >= _frequency_threshold(cell)
            total = frequency.sum(axis=-1, keepdims=True)
            belief = np.where(total > 0, frequency / np.where(total > 0, total, 1.0),
                              1.0 / len(cell.states))
        metrics = _set_metrics(selected, star)
        metrics.update(tvd_truth=_tvd(belief, truth), tvd_private=_tvd(belief, reference),
                       belief=belief.mean(axis=0))
        out.append(metrics)
    return _stack(out)


def _frequency_threshold(cell: Shared) -> float:
    """τ^{thres,1} = (1 + π₁)p₁ or τ^{thres,2} = (1 − π₂)p₂ (Thm 4.3)."""
    mle_states = int(cell.star.sum())
    p_1, p_2 = counting_probabilities(mle_states, len(cell.star) - mle_states,
                                      cell.config.counting)
    if cell.config.method == "threshold_1":
        return (1.0 + cell.config.pi_1) * p_1
    return (1.0 - cell.config.pi_2) * p_2


def run_online(cell: Shared, seeds: Sequence[np.random.SeedSequence],
               replicate_ids: Sequence[int], released: np.ndarray | None = None
               ) -> Metrics:
    """Algs 3 and 5, one replicate at a time in compiled code (:func:`beliefs.online`),
    its rounds fed in chunks. ``released`` (R, T + 1, n, |Θ|; the privacy audit's
    coupling) holds each round's released log-likelihoods ζ + d: handed in where finite,
    recorded where NaN (:class:`beliefs.LogBeliefs`)."""
    from .beliefs import NOT_AUDITED, Checkpoints, LogBeliefs, online

    config, times = cell.config, cell.times
    truth = int(np.argmax(cell.star)) if config.model.kind == "cox" else int(
        np.argmin(np.abs(cell.states - config.model.truth)))
    shape = (len(seeds), len(times))
    out = {k: np.empty(shape) for k in ("exact_recovery", "tvd_truth", "tvd_private")}
    out["belief"] = np.empty((*shape, len(cell.states)))
    matrix = np.ascontiguousarray(cell.matrix)
    for r, (seed, replicate) in enumerate(zip(seeds, replicate_ids, strict=True)):
        psi = np.zeros((cell.n, len(cell.states)))
        log_beliefs = LogBeliefs(psi=psi, phi=np.zeros_like(psi), released=(
            NOT_AUDITED if released is None else released[r]))
        checkpoints = Checkpoints(times, truth, out["exact_recovery"][r], out["tvd_truth"][r],
                                  out["tvd_private"][r], out["belief"][r])
        noise = np.random.default_rng(seed)
        first = k = 0
        for signals in online_loglik(config, cell, cell.iterations,
                                     data_generator(config, seed, replicate)):
            k = online(matrix, signals, draw_noise(cell, noise, signals.shape), first,
                       log_beliefs, checkpoints, k)
            first += len(signals)
    # The returned set is {argmax}: it is wrong exactly when it is not {θ°}.
    out["type_i_error"] = 1.0 - out["exact_recovery"]
    out["type_ii_error"] = out["type_i_error"]
    return out


def test_statistics(cell: Shared, scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per agent: S_i = (n/2^{T−1}) log(ν^GM(1)/ν^GM(0)) = 2n (ψ̃^GM(1) − ψ̃^GM(0)) from
    the rounds' scaled log-beliefs (n, R, K, 2), and its p-value (Prop. 4.6, Sec. 10.2)."""
    statistic = 2 * cell.n * (scaled[..., 1] - scaled[..., 0]).mean(axis=-1)
    return statistic, np.minimum(1.0, 2.0 * _null_tail(cell, statistic + 1.0))


def _null_tail(cell: Shared, value: np.ndarray, pooled: bool = False) -> np.ndarray:
    """P[statistic >= value] under the null: χ²_n (χ²_1 pooled) by Wilks for the
    composite test, the exact law of 2Λ(θ₁, θ₀) for the simple one."""
    from scipy import stats

    config = cell.config
    if config.test == "composite":
        return stats.chi2.sf(value, 1 if pooled else cell.n)
    null, alternative = cell.states[:2]
    signals = cell.n * config.model.samples
    if config.model.kind == "bernoulli":
        # 2Λ = 2(B a + (N − B) b), B ~ Bin(N, θ₀): monotone in B.
        a = math.log(alternative / null)
        b = math.log((1 - alternative) / (1 - null))
        ones = (value / 2.0 - signals * b) / (a - b)
        if a > b:
            return stats.binom.sf(np.ceil(ones - 1e-9) - 1, signals, null)
        return stats.binom.cdf(np.floor(ones + 1e-9), signals, null)
    # Gaussian (ignoring the clipping): 2Λ = Σ (2 s (θ₁ − θ₀) − (θ₁² − θ₀²))/σ².
    shift = alternative - null
    mean = -signals * shift**2 / config.model.sigma**2
    sd = 2 * abs(shift) * math.sqrt(signals) / config.model.sigma
    return stats.norm.sf(value, mean, sd)


def run_test(cell: Shared, seeds: Sequence[np.random.SeedSequence],
             replicate_ids: Sequence[int]) -> Metrics:
    """The distributed test of Prop. 4.6 (simple) or Sec. 10.2 (composite, Wilks): the GM
    algorithm at level α/2 on the two states, rejecting when S > ϱ_d = ϱ_c − 1."""
    from .beliefs import mixing, propagate

    config = cell.config
    loglik = _test_data(cell, seeds, replicate_ids)
    noise = _noise(cell, seeds, (cell.rounds, cell.n, 2))
    initial = (loglik[:, None] + noise).transpose(2, 0, 1, 3)
    last = cell.iterations
    _, scaled = list(propagate(mixing(cell.matrix), np.ascontiguousarray(initial),
                               np.array([last])))[-1]
    statistic, p_value = test_statistics(cell, scaled)
    reject = (p_value < config.alpha).mean(axis=0)
    return {"reject": reject[:, None], "statistic": statistic.mean(axis=0)[:, None],
            "p_value": p_value.mean(axis=0)[:, None]}


def _test_data(cell: Shared, seeds: Sequence[np.random.SeedSequence],
               replicate_ids: Sequence[int]) -> np.ndarray:
    """(R, n, 2) log γ_i of the test's two states per replicate."""
    if cell.config.model.kind == "cox":
        return np.broadcast_to(cell.expected, (len(seeds), *cell.expected.shape))
    loglik, _ = replicate_data(cell, seeds, replicate_ids)
    if cell.config.test == "simple":
        return loglik[..., :2]
    return np.stack([loglik[..., 0], _synthetic_sup(cell, seeds, replicate_ids)], axis=-1)


def _synthetic_sup(cell: Shared, seeds: Sequence[np.random.SeedSequence],
                   replicate_ids: Sequence[int]) -> np.ndarray:
    """(R, n) sup over θ in [min Θ, max Θ] of each agent's log-likelihood (its own
    maximum likelihood estimate, clipped to the interval)."""
    config, low, high = cell.config, cell.states.min(), cell.states.max()
    model, m = config.model, config.model.samples
    out = []
    for seed, replicate in zip(seeds, replicate_ids, strict=True):
        rng = data_generator(config, seed, replicate)
        if model.kind == "bernoulli":
            ones = rng.binomial(m, model.truth, cell.n)
            best = np.clip(ones / m, low, high)
            out.append(ones * np.log(best) + (m - ones) * np.log1p(-best))
        else:
            signals = np.clip(rng.normal(model.truth, model.sigma, (cell.n, m)),
                              -model.bound_x, model.bound_x)
            best = np.clip(signals.mean(axis=1), low, high)
            out.append(-((signals - best[:, None]) ** 2).sum(axis=1) / (2 * model.sigma**2))
    return np.stack(out)


def run_centralized(cell: Shared, seeds: Sequence[np.random.SeedSequence],
                    replicate_ids: Sequence[int]) -> Metrics:
    """The pooled, non-private baseline: the MLE set of all the data at once and the
    centralized test (χ²₁ by Wilks for the composite test, the exact law for the simple)."""
    config = cell.config
    count, times = len(seeds), len(cell.times)
    if cell.pooled is not None:
        totals = np.broadcast_to(cell.pooled, (count, len(cell.states)))
        sup = np.full(count, np.nan if cell.pooled_sup is None else cell.pooled_sup)
        star = np.broadcast_to(cell.star, totals.shape)
    else:
        loglik, star = replicate_data(cell, seeds, replicate_ids)
        totals = loglik.sum(axis=1)
        sup = _synthetic_sup(cell, seeds, replicate_ids).sum(axis=1)
    chosen = mle_set(totals)
    metrics = _set_metrics(chosen[None], star)
    belief = _uniform(chosen)
    metrics.update(tvd_truth=_tvd(belief[None], _uniform(star)),
                   tvd_private=np.zeros(count), belief=belief)
    if config.test is not None:
        statistic = 2 * ((sup if config.test == "composite" else totals[:, 1])
                         - totals[:, 0])
        p_value = _null_tail(cell, statistic, pooled=True)
        metrics.update(statistic=statistic, p_value=p_value,
                       reject=(p_value < config.alpha).astype(float))
    out = {k: np.repeat(v[:, None], times, axis=1) for k, v in metrics.items()
           if k != "belief"}
    out["belief"] = np.repeat(metrics["belief"][:, None], times, axis=1)
    return out


def _mix(matrix: np.ndarray, iterates: np.ndarray) -> np.ndarray:
    """``matrix @ iterates`` (centres × replicates), each entry summed over the centres in
    their order: BLAS rounds a matrix-vector product (a block of one replicate) otherwise
    than a matrix-matrix one, and a replicate's rows must not depend on its block."""
    mixed = matrix[:, :1] * iterates[:1]
    for j in range(1, len(iterates)):
        mixed = mixed + matrix[:, j:j + 1] * iterates[j:j + 1]
    return mixed


def run_rizk(cell: Shared, seeds: Sequence[np.random.SeedSequence],
             replicate_ids: Sequence[int], released: np.ndarray | None = None) -> Metrics:
    """Rizk et al.'s first-order method as Sec. 14.4 writes it:
    θ_{i,t} = Σ_j a_ij θ_{j,t−1} + η Clip(d log ℓ_i/dθ, 2B_θB_x) + Lap(2B_xB_θTη/ε),
    from θ_{i,0} = 0, next to the same iteration without noise. Its output belief is the
    point mass on the state of Θ nearest θ_{i,t}; its test statistic is
    2[log ℓ_i(θ_{i,T}) − log ℓ_i(0)] with the p-value of χ²₁.

    The authors' notebook's readings (options): ``rizk_start="uniform"`` starts each
    centre at θ_{i,0} ~ U(−1, 1), drawn from the replicate's own stream after its noise
    (the noiseless run starts there too); ``rizk_clip="l1"`` scales the centres' scores so
    that their ℓ1 norm across centres is at most 1, in place of the per-centre clip.

    ``released`` (T, n, R; the privacy audit's coupling) holds the iterates the centres
    send: handed in where finite, in place of the computed ones, and recorded where NaN."""
    from scipy import stats

    from .beliefs import point_mass

    config, times = cell.config, cell.times
    count, n = len(seeds), cell.n
    clip = 2 * config.model.bound_theta * config.model.bound_x
    if config.rizk_start == "uniform":
        # One generator per replicate: its noise (T × n draws), then the n starts.
        streams = [np.random.default_rng(s) for s in seeds]
        noise = np.stack([draw_noise(cell, g, (cell.iterations, n)) for g in streams])
        private = np.stack([g.uniform(-1.0, 1.0, n) for g in streams], axis=1)
    else:
        noise = _noise(cell, seeds, (cell.iterations, n))  # (R, T, n)
        private = np.zeros((n, count))
    plain = private.copy()
    star = np.broadcast_to(cell.star, (count, len(cell.states)))
    truth = _uniform(star)
    wanted = {int(t): k for k, t in enumerate(times)}
    out: list[Metrics] = []

    def score(theta: np.ndarray) -> np.ndarray:
        """The centres' clipped scores at their iterates (n, R)."""
        raw = np.stack([survival.partial_score(c, theta[i], config.model.ties)
                        for i, c in enumerate(cell.centres)])
        if config.rizk_clip == "l1":
            return raw / np.maximum(1.0, np.abs(raw).sum(axis=0))
        return np.clip(raw, -clip, clip)

    for t in range(1, cell.iterations + 1):
        private = (_mix(cell.matrix, private) + config.learning_rate * score(private)
                   + noise[:, t - 1].T)
        if released is not None:
            sent = released[t - 1]
            recorded = np.isnan(sent)
            sent[recorded] = private[recorded]
            private = sent.copy()
        plain = _mix(cell.matrix, plain) + config.learning_rate * score(plain)
        if t not in wanted:
            continue
        nearest = np.abs(private[..., None] - cell.states).argmin(axis=-1)
        belief = point_mass(nearest, len(cell.states))
        reference = point_mass(np.abs(plain[..., None] - cell.states).argmin(axis=-1),
                               len(cell.states))
        metrics = _set_metrics(belief > 0.5, star)
        statistic = 2 * np.stack([
            survival.partial_loglik(c, private[i], config.model.ties)
            - survival.partial_loglik(c, 0.0, config.model.ties) for i, c in enumerate(
                cell.centres)])
        p_value = stats.chi2.sf(statistic, 1)
        metrics.update(tvd_truth=_tvd(belief, truth), tvd_private=_tvd(belief, reference),
                       belief=belief.mean(axis=0), statistic=statistic.mean(axis=0),
                       p_value=p_value.mean(axis=0),
                       reject=(p_value < config.alpha).mean(axis=0))
        out.append(metrics)
    return _stack(out)


def run_toy(cell: Shared, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int]) -> Metrics:
    """Sec. 2: one decision per replicate of the pooled test on n binary signals shared by
    randomized response (reject when Σy > τ_RR, eq. (1)) or with Laplace noise on their
    log-likelihood ratios (reject above the empirical (1 − α)-quantile of ``null_draws``
    null statistics, drawn from a stream of the cell's own, Fig. 2)."""
    from . import toy

    config, n = cell.config, cell.n
    p = float(cell.states[1])
    theta = int(config.model.truth == cell.states[1])
    reject, statistic = np.empty(len(seeds)), np.empty(len(seeds))
    if config.method == "rr":
        threshold = float(toy.rr_threshold(n, p, config.epsilon, config.alpha))
        flip = float(toy.flip_probability(config.epsilon))
    elif seeds:
        # The null draws come from a stream of the cell's own: its key with a last element
        # no replicate has, so every block of replicates compares with one threshold.
        cell_stream = np.random.SeedSequence(seeds[0].entropy, spawn_key=(
            *seeds[0].spawn_key[:-1], 2**32 - 1))
        threshold = toy.laplace_simulated_threshold(np.random.default_rng(cell_stream), n, p,
                                                    config.epsilon, config.alpha,
                                                    config.null_draws)
    for r, (seed, replicate) in enumerate(zip(seeds, replicate_ids, strict=True)):
        rng = data_generator(config, seed, replicate)
        if config.method == "rr":
            signals = rng.random(n) < (p if theta else 1 - p)
            shared = signals ^ (np.random.default_rng(seed).random(n) < flip)
            statistic[r] = shared.sum()
        else:
            statistic[r] = toy.laplace_statistics(rng, n, p, theta, config.epsilon, 1)[0]
        reject[r] = statistic[r] > threshold
    return {"reject": reject[:, None], "statistic": statistic[:, None]}


RUNS = {**dict.fromkeys(MLE_METHODS, run_mle), "ol": run_online, "private_ol": run_online,
        "test": run_test, "centralized": run_centralized, "rizk": run_rizk, "rr": run_toy,
        "laplace": run_toy}


def run(cell: Shared, seeds: Sequence[np.random.SeedSequence], replicate_ids: Sequence[int]
        ) -> Metrics:
    """The metrics of the replicates (arrays (R, checkpoints); ``belief`` (R, C, |Θ|))."""
    return RUNS[cell.config.method](cell, seeds, replicate_ids)


__all__ = ["COX_ONLINE_ROUNDS", "DATA", "Metrics", "Shared", "cox_centres", "data_generator",
           "deviation", "draw_noise", "online_loglik", "prepare", "replicate_data", "run",
           "run_centralized", "run_mle", "run_online", "run_rizk", "run_test", "run_toy",
           "synthetic_loglik", "test_statistics", "treatment_frames", "treatment_loglik"]
