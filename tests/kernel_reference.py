"""Small runs of every compiled kernel and their outputs, stored to the last bit.

:func:`outputs` runs one case of :data:`CASES`: a replicate of Algorithm 1
(:func:`sweep.colme.engine.run_replicate`, its checkpoint metrics and final state) for a
covering set of schemes, the analytic oracle's schedule variances, a coordinate of each
continual method (:func:`sweep.continual.simulate.run_coordinate`, with its trace, forced
priors and given samples, the privacy audit's path), and the online belief kernel of the
inference family over synthetic rounds. ``tests/test_kernels.py`` compares them with
``tests/data/kernel_reference.json``, which holds every array exactly with the arithmetic
that wrote it, by the rule of :mod:`tests.pins`.

Regenerate that file (after a deliberate change of results, with the family's version
bumped) with::

    python -m tests.kernel_reference
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .pins import encode, stamp

REFERENCE = Path(__file__).resolve().parent / "data" / "kernel_reference.json"

#: Private-ColME schemes: every mechanism, weight scheme, schedule, refresh mode, class
#: estimator, noise, data family, variance scheme, prior, form of eq. (16) and Welch ν.
COLME: dict[str, dict[str, Any]] = {
    "known-pm1-last-rr": {},
    "known-pm2-wmom-every_step": {"mechanism": "pm2", "weights": "wmom", "noise": "laplace",
                                  "epsilon": 30.0, "distribution": "triangular",
                                  "decision": {"refresh": "every_step"}},
    "known-pm1-mom-rrr": {"weights": "mom", "schedule": "rrr", "noise": "laplace",
                          "epsilon": 30.0, "distribution": "two_point"},
    "known-none-oracle": {"mechanism": "none", "class_estimator": "oracle",
                          "class_assignment": "balanced"},
    "shared-pm1-rrr": {"variance": "shared", "schedule": "rrr", "noise": "laplace",
                       "epsilon": 30.0},
    "shared-pm2-mom-every_step": {"variance": "shared", "mechanism": "pm2", "weights": "mom",
                                  "decision": {"refresh": "every_step"}},
    "inferred-pm1-drop_first-releases": {"variance": "inferred", "inferred_form": "drop_first",
                                         "welch_dof": "releases", "noise": "laplace",
                                         "epsilon": 30.0},
    "inferred-pm2-weighted-every_step": {"variance": "inferred", "mechanism": "pm2",
                                         "weights": "wmom", "inferred_form": "weighted",
                                         "decision": {"refresh": "every_step"}},
    "bayes-pm1-jeffreys-rrr": {"variance": "inferred_bayes", "prior": "jeffreys",
                               "schedule": "rrr", "epsilon": 0.5},
    "bayes-pm2-uniform-releases": {"variance": "inferred_bayes", "prior": "uniform",
                                   "mechanism": "pm2", "welch_dof": "releases",
                                   "noise": "laplace", "epsilon": 5.0},
}
#: The analytic oracle (Prop. 3, Remark 3), which runs the schedule variances.
ORACLE: dict[str, dict[str, Any]] = {
    "pm1-last-rr": {},
    "pm2-wmom-rrr-printed": {"mechanism": "pm2", "weights": "wmom", "schedule": "rrr",
                             "oracle_eq21": "printed"},
    "pm2-mom-rrr-simulator": {"mechanism": "pm2", "weights": "mom", "schedule": "rrr",
                              "oracle_start": "simulator"},
}
#: Continual methods; a large ε activates Alg. 6's levels within the stream.
CONTINUAL = ("non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6")
CASES = ([f"colme-{name}" for name in COLME] + [f"oracle-{name}" for name in ORACLE]
         + [f"continual-{method}" for method in CONTINUAL] + ["inference-online"])


def _colme(options: dict[str, Any]) -> dict[str, np.ndarray]:
    from sweep.colme.config import ColmeConfig
    from sweep.colme.engine import run_replicate

    config = ColmeConfig.from_options(n_agents=6, t_max=150, checkpoints=6, **options)
    out = {}
    for replicate in range(2):
        metrics, state = run_replicate(config, np.random.SeedSequence(11, spawn_key=(replicate,)))
        out[f"metrics-{replicate}"] = metrics
        for name in ("data_sum", "square_sum", "last", "kappa", "pair", "levels", "chi"):
            out[f"{name}-{replicate}"] = getattr(state, name)
    return out


def _oracle(options: dict[str, Any]) -> dict[str, np.ndarray]:
    from sweep.colme.baselines import oracle_mse
    from sweep.colme.config import ColmeConfig

    config = ColmeConfig.from_options(n_agents=9, t_max=400, checkpoints=12,
                                      **options).normalized(True)
    return {"mse": oracle_mse(config, config.checkpoint_times())}


def _continual(method: str) -> dict[str, np.ndarray]:
    from sweep.continual.config import ContinualConfig
    from sweep.continual.orders import arrivals
    from sweep.continual.parameters import parameters
    from sweep.continual.simulate import run_coordinate

    config = ContinualConfig.from_options(n_users=30, max_samples=16, t_max=400,
                                          method=method, epsilon=60.0).normalized()
    p = parameters(config)
    users = arrivals(config, np.random.default_rng(5))
    times = np.array([1, 7, 60, 200, 333, 400])
    values = (np.random.default_rng(9).random(len(users)) < 0.4).astype(np.float64)
    runs = {"drawn": {}, "traced": {"trace": 40},
            "forced": {"trace": 40, "forced": np.full(p.levels, 0.3), "values": values}}
    out = {}
    for label, extra in runs.items():
        run = run_coordinate(p, users, config.n_users, config.max_samples, config.mu, times,
                             np.random.default_rng(3), np.random.default_rng(4), **extra)
        for name in ("estimate", "used", "clipped", "activation", "priors", "trace", "costs"):
            out[f"{label}-{name}"] = getattr(run, name)
    return out


def _online() -> dict[str, np.ndarray]:
    """Alg. 3 over synthetic rounds, fed in two chunks, on a ring of 6 agents."""
    from sweep.inference.beliefs import Checkpoints, LogBeliefs, online

    rng = np.random.default_rng(21)
    n, states, rounds = 6, 3, 40
    matrix = np.zeros((n, n))
    for i in range(n):
        matrix[i, i] = 0.5
        matrix[i, (i + 1) % n] = matrix[i, (i - 1) % n] = 0.25
    signals = np.log(rng.random((rounds, n, states)))
    noise = rng.laplace(0.0, 2.0, (rounds, n, states))
    times = np.array([1, 5, 17, 30, 39])
    log_beliefs = LogBeliefs(np.zeros((n, states)), np.zeros((n, states)))
    checkpoints = Checkpoints(times, 1, np.empty(len(times)), np.empty(len(times)),
                              np.empty(len(times)), np.empty((len(times), states)))
    k = 0
    for first, stop in ((0, 25), (25, rounds)):
        k = online(matrix, signals[first:stop], noise[first:stop], first, log_beliefs,
                   checkpoints, k)
    return {"correct": checkpoints.exact_recovery, "truth": checkpoints.tvd_truth,
            "private": checkpoints.tvd_private, "belief": checkpoints.belief,
            "psi": log_beliefs.psi, "phi": log_beliefs.phi}


def outputs(case: str) -> dict[str, np.ndarray]:
    """The arrays of one case of :data:`CASES`, by name."""
    kind, _, name = case.partition("-")
    if kind == "colme":
        return _colme(COLME[name])
    if kind == "oracle":
        return _oracle(ORACLE[name])
    if kind == "continual":
        return _continual(name)
    return _online()


def main() -> None:
    stored = stamp({"cases": {case: {key: encode(value) for key, value in outputs(case).items()}
                              for case in CASES}})
    REFERENCE.write_text(json.dumps(stored, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {len(CASES)} cases to {REFERENCE}")


if __name__ == "__main__":
    main()
