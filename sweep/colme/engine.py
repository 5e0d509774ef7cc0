"""Run replicates of one configuration through the compiled kernel.

A replicate draws everything (class labels, data, p-sum noises) from its own
``numpy.random.Generator``, so its result depends only on its seed sequence, not on which
other replicates run, where, or in which order.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ..components.noise import kind_code, stairs
from . import config as codes
from .config import ColmeConfig
from .kernel import N_METRICS, Audit, Constants, Scheme, State, compile_scheme, no_audit
from .privacy import data_bound, sigma_dp, variance_sigma_dp
from .statistic import new_pair_state
from .variance import welch_bounds

# Longest stretch of time steps run in one kernel call; bounds the memory of the
# per-step thresholds so that it does not grow with t_max.
_MAX_SPAN = 1 << 15


def thresholds(theta0: float, t_first: int, t_last: int) -> np.ndarray:
    """z_t² = Φ⁻¹(1 - θ_t/2)² with θ_t = θ0/ln(t + 1) for t = t_first..t_last (t = 0: ∞)."""
    t = np.arange(t_first, t_last + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        theta = theta0 / np.log1p(t)
    z2 = ndtri(1.0 - theta / 2.0) ** 2
    z2[t == 0] = np.inf
    return z2


def _no_bounds(theta0: float, t_first: int, t_last: int) -> np.ndarray:
    return _EMPTY_BOUNDS


_EMPTY_BOUNDS = np.zeros((2, 2))


def draw_labels(config: ColmeConfig, rng: np.random.Generator) -> np.ndarray:
    """Class of each agent: uniform and independent (``random``, the model of Prop. 3) or
    a random arrangement of sizes that differ by at most one (``balanced``)."""
    if config.class_assignment == "random":
        return rng.integers(0, config.n_classes, size=config.n_agents)
    return rng.permutation(np.arange(config.n_agents) % config.n_classes)


def scheme_of(config: ColmeConfig) -> Scheme:
    """The choices of ``config`` that its kernel is compiled for."""
    return Scheme(
        distribution=codes.DISTRIBUTIONS.index(config.distribution),
        noise=codes.NOISES.index(config.noise),
        mechanism=codes.MECHANISMS.index(config.mechanism),
        weights=codes.WEIGHTS.index(config.weights),
        schedule=codes.SCHEDULES.index(config.schedule),
        estimator=codes.CLASS_ESTIMATORS.index(config.class_estimator),
        refresh=codes.REFRESHES.index(config.decision.refresh),
        variance=codes.VARIANCES.index(config.variance),
        prior=codes.PRIORS.index(config.prior),
        inferred_form=codes.INFERRED_FORMS.index(config.inferred_form),
        welch_dof=codes.WELCH_DOFS.index(config.welch_dof),
    )


def run_replicate(
    config: ColmeConfig, seed: np.random.SeedSequence, audit: Audit | None = None,
    noiseless: bool = False,
) -> tuple[np.ndarray, State]:
    """Simulate one replicate; return its metrics at each checkpoint and its final state.

    The metrics array has shape (n_checkpoints, 5) with the columns of
    :mod:`sweep.colme.kernel` (MSE, FALSE_EXCLUSION, FALSE_INCLUSION, LOCAL_MSE, IDEAL_MSE).

    For the privacy audit only: ``audit`` hands in data or releases and records what is
    sent (:class:`~sweep.colme.kernel.Audit`); ``noiseless`` runs the same replicate with
    every noise drawn as usual but of scale 0, the releases then being exact.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    times = config.checkpoint_times()
    n = config.n_agents
    labels = draw_labels(config, rng)
    kappa, pair, levels = new_pair_state(
        n, codes.MECHANISMS.index(config.mechanism), config.t_max.bit_length(),
        known=config.variance == "known",
    )
    state = State(
        labels=labels,
        data_sum=np.zeros(n),
        square_sum=np.zeros(n),
        last=np.full(n, -1, dtype=np.int64),
        kappa=kappa,
        pair=pair,
        levels=levels,
        chi=np.ones((n, n), dtype=np.uint8),
        audit=no_audit() if audit is None else audit,
    )
    theta0 = config.decision.theta0
    constants = Constants(
        means=np.asarray(config.class_means, dtype=np.float64),
        sigma2=float(config.sigma) ** 2,
        bound=data_bound(config.distribution, config.sigma),
        sigma_dp=0.0 if noiseless else sigma_dp(config),
        sigma_variance=0.0 if noiseless else variance_sigma_dp(config),
        stairs=stairs(kind_code(config.noise), config.release_budget()[0]),
        theta0=theta0,
    )
    kernels = compile_scheme(scheme_of(config))
    # The Welch test's quantile bounds; known variances never read them.
    bounds = welch_bounds if config.variance != "known" else _no_bounds
    metrics = np.empty((times.size, N_METRICS))
    done = 0
    for c, checkpoint in enumerate(times):
        while done < checkpoint:
            stop = min(int(checkpoint), done + _MAX_SPAN)
            kernels.advance(done + 1, stop, thresholds(theta0, done, stop),
                            bounds(theta0, done, stop), rng, state, constants)
            done = stop
        metrics[c] = kernels.measure(done, thresholds(theta0, done, done)[0],
                                     bounds(theta0, done, done), state, constants)
    return metrics, state
