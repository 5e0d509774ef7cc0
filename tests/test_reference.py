"""Acceptance 5: the fast simulator agrees with a literal transcription of Algorithm 1."""

import numpy as np
import pytest

from sweep.colme.config import ColmeConfig
from sweep.colme.engine import run_replicate
from sweep.colme.kernel import FALSE_EXCLUSION, FALSE_INCLUSION, MSE

from .reference import run_reference

# A covering set of schemes: each mechanism, weight scheme, schedule, refresh mode,
# class estimator, noise and data family appears with several partners. Large ε with
# Laplace noise keeps the noise small enough for the decision rule to reject agents.
CASES = [
    dict(mechanism="pm1", weights="last", schedule="rr", epsilon=1.0),
    dict(mechanism="pm1", weights="mom", schedule="rr", noise="laplace", epsilon=30.0,
         decision={"refresh": "every_step"}),
    dict(mechanism="pm1", weights="wmom", schedule="rrr", noise="laplace", epsilon=30.0,
         distribution="triangular"),
    dict(mechanism="pm2", weights="last", schedule="rr", noise="laplace", epsilon=40.0,
         distribution="two_point", decision={"refresh": "every_step"}),
    dict(mechanism="pm2", weights="mom", schedule="rrr", epsilon=1.0, pm2_split=False,
         decision={"refresh": "every_step"}),
    dict(mechanism="pm2", weights="wmom", schedule="rr", noise="laplace", epsilon=30.0),
    dict(mechanism="pm2", weights="wmom", schedule="rrr", noise="laplace", epsilon=30.0,
         class_estimator="oracle", class_assignment="balanced"),
    dict(mechanism="none", weights="last", schedule="rrr"),
    dict(mechanism="none", weights="mom", schedule="rr", class_estimator="oracle",
         decision={"refresh": "every_step"}),
    dict(mechanism="pm1", weights="last", schedule="rrr", noise="laplace", epsilon=30.0,
         decision={"refresh": "every_step", "theta0": 0.3}),
    dict(mechanism="pm2", weights="mom", schedule="rr", noise="laplace", epsilon=30.0),
    dict(mechanism="pm1", weights="mom", schedule="rrr", class_estimator="oracle"),
    # Estimated variances: Sch-Var-1, Sch-Var-2 and its Bayesian form with each prior.
    dict(variance="shared", mechanism="pm1", weights="last", schedule="rr",
         noise="laplace", epsilon=30.0),
    dict(variance="shared", mechanism="pm2", weights="mom", schedule="rrr",
         noise="laplace", epsilon=30.0, decision={"refresh": "every_step"}),
    dict(variance="shared", mechanism="none", weights="last", schedule="rr",
         decision={"refresh": "every_step"}),
    dict(variance="inferred", mechanism="pm1", weights="last", schedule="rrr",
         noise="laplace", epsilon=30.0, decision={"refresh": "every_step"}),
    dict(variance="inferred", mechanism="pm2", weights="wmom", schedule="rr",
         noise="laplace", epsilon=30.0),
    dict(variance="inferred_bayes", mechanism="pm1", weights="last", schedule="rr"),
    dict(variance="inferred_bayes", mechanism="pm2", weights="last", schedule="rr",
         prior="jeffreys", decision={"refresh": "every_step"}),
    dict(variance="inferred_bayes", mechanism="pm1", weights="mom", schedule="rrr",
         noise="laplace", epsilon=5.0, prior="uniform"),
    dict(variance="inferred", inferred_form="weighted", mechanism="pm2", weights="last",
         schedule="rrr", noise="laplace", epsilon=30.0),
    dict(variance="inferred_bayes", inferred_form="weighted", mechanism="pm1",
         weights="last", schedule="rr", decision={"refresh": "every_step"}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(
    str(v) for k, v in c.items() if k in ("variance", "mechanism", "weights", "schedule")))
def test_fast_simulator_matches_literal_transcription(case):
    t_max = 48
    config = ColmeConfig.from_options(
        n_agents=5, t_max=t_max, checkpoints=list(range(1, t_max + 1)), **case
    )
    seed = np.random.SeedSequence(2024)
    fast, _ = run_replicate(config, seed)
    slow = run_reference(config, seed)
    np.testing.assert_allclose(fast[:, MSE], slow[:, 0], rtol=1e-9, atol=0)
    np.testing.assert_array_equal(fast[:, FALSE_EXCLUSION], slow[:, 1])
    np.testing.assert_array_equal(fast[:, FALSE_INCLUSION], slow[:, 2])


def test_cases_exercise_the_decision_rule():
    """Guard against a vacuous comparison: some cases must reject agents."""
    rejected = 0
    for case in CASES:
        if case.get("class_estimator") == "oracle":
            continue
        config = ColmeConfig.from_options(n_agents=5, t_max=48, **case)
        metrics, _ = run_replicate(config, np.random.SeedSequence(2024))
        rejected += np.nan_to_num(metrics[:, FALSE_INCLUSION]).min() < 1.0
    assert rejected >= 5
